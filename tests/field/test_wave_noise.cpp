// The stochastic wave equation (docs/theory/staggered.md "Noise", "Type-II"): Type-I and Type-II against a
// textbook noisy leapfrog / Yee update written here, the common-noise shift theorem, the independent-noise
// energy pumping rate, and the strong order on refined Brownian paths.
#include <gtest/gtest.h>
#include <omp.h>

#include <algorithm>
#include <cstdio>
#include <cmath>
#include <numbers>
#include <vector>

#include "lievi/noise/wiener.hpp"
#include "support/convergence.hpp"
#include "wave_support.hpp"

using namespace wave_test;
using lievi::field::LevelEnergy;
using lievi::field::NoiseField;
using lievi::field::NoiseMode;
using lievi::field::SegmentIndex;
using lievi::field::TypeII;
using lievi::field::Variant;
using lievi::noise::StreamKey;
using lievi::noise::WienerIncrements;
constexpr double pi = std::numbers::pi;

namespace {

NoiseField<double> noise(const Grid& g, NoiseMode m, double theta, double dt, std::uint32_t path = 0, int refine = 0,
                         std::uint32_t seed = 7) {
  return NoiseField<double>(g, m, theta, {}, WienerIncrements(StreamKey{seed, path}, dt / std::ldexp(1.0, refine), refine));
}

/// Textbook noisy Yee for the cell grid with free ends (docs/theory/staggered.md "One step"): zeta += dt/ds
/// dgamma - beta dW (additive force noise, Type-II Phi = beta phi), phi += (dt + kappa dW) zeta + theta dW
/// (Type-II Phi = kappa mu^2/2 gives the multiplicative term; Type-I theta), gamma from phi.
struct NoisyYee {
  std::vector<double> phi, zeta, gamma;
  double dt, ds;
  NoisyYee(std::vector<double> phi0, double dt_, double ds_) : phi(std::move(phi0)), dt(dt_), ds(ds_) {
    const std::size_t J = phi.size();
    gamma.assign(J - 1, 0.0);
    for (std::size_t e = 0; e + 1 < J; ++e) gamma[e] = (phi[e + 1] - phi[e]) / ds;
    zeta.assign(J, 0.0);
    for (std::size_t j = 0; j < J; ++j) zeta[j] = -0.5 * dt * (face(j + 1) - face(j)) / ds;
  }
  [[nodiscard]] double face(std::size_t f) const { return (f == 0 || f == phi.size()) ? 0.0 : gamma[f - 1]; }
  void step(const std::vector<double>& dW, double theta, double beta, double kappa) {
    const std::size_t J = phi.size();
    for (std::size_t j = 0; j < J; ++j) {
      const double M = zeta[j] + dt / ds * (face(j + 1) - face(j));
      // Type-II force -beta dW; the multiplicative potential kappa mu^2 / 2 has dPhi/dg = 0
      zeta[j] = M - beta * dW[j];
      phi[j] += (dt + kappa * dW[j]) * zeta[j] + theta * dW[j];
    }
    for (std::size_t e = 0; e + 1 < J; ++e) gamma[e] = (phi[e + 1] - phi[e]) / ds;
  }
};

/// Phi(phi, mu) = beta phi + kappa mu^2 / 2 (Type-II, general hook).
struct TestPotential {
  double beta = 0, kappa = 0;
  [[nodiscard]] double dphi_dmu(std::ptrdiff_t, double, double mu) const { return kappa * mu; }
  [[nodiscard]] double dphi_dg(std::ptrdiff_t, double, double) const { return beta; }
  [[nodiscard]] double d2phi_dmu2(std::ptrdiff_t, double, double) const { return kappa; }
  [[nodiscard]] double d2phi_dg_dmu(std::ptrdiff_t, double, double) const { return 0.0; }
};

std::vector<double> to_vec(const NodeField<double>& f) { return {f.data(), f.data() + f.size()}; }

}  // namespace

TEST(WaveNoise, BufferedFewModeNoiseIsDrawnStepByStepBitwise) {
  // `common` and few-`modes` noise are drawn 64 fine steps at a time (the noise field's buffer); each step's
  // increments must be those of WienerIncrements one step at a time, bitwise, for steps taken in order, a step
  // drawn again, jumps back and forward (a resumed run), every refinement m with a buffer (m <= 6) and one
  // without (m = 7), and the scale applied after.
  const Grid grid(Layout::vertex, 17, 1.0, End::free, End::free);
  for (const int m : {0, 1, 6, 7}) {
    const WienerIncrements inc({3, 9}, 1e-4, m);
    for (const std::size_t K : {std::size_t{1}, std::size_t{3}, std::size_t{8}}) {
      const bool common = K == 1;
      std::vector<std::vector<double>> modes(common ? 0 : K, std::vector<double>(static_cast<std::size_t>(grid.n_nodes()), 0.5));
      NoiseField<double> f(grid, common ? NoiseMode::common : NoiseMode::modes, 1.0, modes, inc);
      std::vector<std::uint64_t> order;
      for (std::uint64_t n = 0; n < 150; ++n) order.push_back(n);
      for (const std::uint64_t n : {std::uint64_t{149}, std::uint64_t{3}, std::uint64_t{1000}, std::uint64_t{999},
                                    std::uint64_t{1064}, std::uint64_t{0}})
        order.push_back(n);
      for (const std::uint64_t n : order) {
        f.draw(n);
        for (std::size_t k = 0; k < K; ++k)
          ASSERT_EQ(f.raw()[k], inc.increment(n, static_cast<std::uint32_t>(k))) << "m " << m << " K " << K << " n " << n;
      }
      f.set_scale(0.5);
      f.draw(7);
      ASSERT_EQ(f.raw()[0], inc.increment(7, 0) * 0.5);
    }
  }
}

TEST(WaveNoise, TypeIEqualsTextbookWithSameNoise) {
  const long J = 50;
  const Grid grid = cell_free(J);
  const double dt = 0.5 * grid.ds(), theta = 0.01;
  for (NoiseMode m : {NoiseMode::common, NoiseMode::independent}) {
    for (Variant v : {Variant::exact, Variant::approx}) {
      auto st = make(grid, dt, v, noise(grid, m, theta, dt));
      auto phi0 = sample(grid, [](double s) { return std::cos(pi * s); });
      st.initialize(phi0, zeros(grid));
      NoisyYee ref(to_vec(phi0), dt, grid.ds());
      const WienerIncrements inc(StreamKey{7, 0}, dt, 0);
      double err = 0;
      std::vector<double> dW(J);
      for (int n = 0; n < 1000; ++n) {
        ASSERT_TRUE(st.step().ok);
        for (long j = 0; j < J; ++j) dW[j] = inc.increment(n, m == NoiseMode::common ? 0 : j);
        ref.step(dW, theta, 0.0, 0.0);
        for (long j = 0; j < J; ++j) err = std::max(err, std::abs(st.g()[NodeIndex{j}] - ref.phi[j]));
      }
      EXPECT_LT(err, 1e-12) << lievi::field::to_string(m);
    }
  }
}

TEST(WaveNoise, TypeIIEqualsTypeIAndTextbook) {
  const long J = 40;
  const Grid grid = cell_free(J);
  const double dt = 0.5 * grid.ds(), theta = 0.02;
  auto phi0 = sample(grid, [](double s) { return std::cos(2 * pi * s); });
  // Phi = theta mu through the general Type-II code path equals Type-I with constant theta.
  {
    auto st1 = make(grid, dt, Variant::exact, noise(grid, NoiseMode::independent, theta, dt));
    using P = TypeII<lievi::field::LinearMomentumPotential>;
    auto st2 = make<P>(grid, dt, Variant::exact, noise(grid, NoiseMode::independent, 1.0, dt), P{{theta}});
    st1.initialize(phi0, zeros(grid));
    st2.initialize(phi0, zeros(grid));
    double err = 0;
    for (int n = 0; n < 500; ++n) {
      ASSERT_TRUE(st1.step().ok);
      ASSERT_TRUE(st2.step().ok);
      for (long j = 0; j < J; ++j) err = std::max(err, std::abs(st1.g()[NodeIndex{j}] - st2.g()[NodeIndex{j}]));
    }
    EXPECT_LT(err, 1e-14);
  }
  // A genuine Type-II potential Phi = beta phi + kappa mu^2/2 (additive force noise and a multiplicative,
  // implicit increment) against the textbook update.
  {
    using P = TypeII<TestPotential>;
    // kappa dW stays well below dt, so the effective step dt + kappa dW keeps within the CFL limit (a larger
    // kappa makes the scheme locally unstable and round-off differences grow).
    const double beta = 0.3, kappa = 0.01;
    auto st = make<P>(grid, dt, Variant::exact, noise(grid, NoiseMode::independent, 1.0, dt), P{{beta, kappa}});
    st.initialize(phi0, zeros(grid));
    NoisyYee ref(to_vec(phi0), dt, grid.ds());
    const WienerIncrements inc(StreamKey{7, 0}, dt, 0);
    std::vector<double> dW(J);
    double err = 0;
    for (int n = 0; n < 500; ++n) {
      ASSERT_TRUE(st.step().ok);
      for (long j = 0; j < J; ++j) dW[j] = inc.increment(n, j);
      ref.step(dW, 0.0, beta, kappa);
      for (long j = 0; j < J; ++j) err = std::max(err, std::abs(st.g()[NodeIndex{j}] - ref.phi[j]));
    }
    double scale = 0;
    for (long j = 0; j < J; ++j) scale = std::max(scale, std::abs(ref.phi[j]));
    EXPECT_LT(err, 1e-13 * scale) << "max |phi| " << scale;
  }
}

TEST(WaveNoise, CommonNoiseShiftsConfigurationOnly) {
  // Common noise is a Casimir (docs/theory/staggered.md "Noise"): (zeta, gamma) equal the deterministic run
  // and phi - phi_det = Theta W_t at every node; the energy is the deterministic one.
  const Grid grid = cell_free(100);
  const double dt = 1e-3, theta = 1e-2;
  auto phi0 = sample(grid, [](double s) { return std::cos(pi * s); });
  auto det = make(grid, dt);
  auto sto = make(grid, dt, Variant::exact, noise(grid, NoiseMode::common, theta, dt));
  det.initialize(phi0, zeros(grid));
  sto.initialize(phi0, zeros(grid));
  const WienerIncrements inc(StreamKey{7, 0}, dt, 0);
  double W = 0, ez = 0, ey = 0, ephi = 0, eE = 0;
  for (int n = 0; n < 5000; ++n) {
    LevelEnergy Ed, Es;
    ASSERT_TRUE(det.step(&Ed).ok);
    ASSERT_TRUE(sto.step(&Es).ok);
    W += inc.increment(n, 0);
    eE = std::max(eE, std::abs(Ed.E_c() - Es.E_c()));
  }
  for (long j = 0; j < grid.n_nodes(); ++j) {
    ez = std::max(ez, std::abs(det.zeta()[NodeIndex{j}] - sto.zeta()[NodeIndex{j}]));
    ephi = std::max(ephi, std::abs(sto.g()[NodeIndex{j}] - det.g()[NodeIndex{j}] - theta * W));
  }
  for (long e = 0; e < grid.n_segments(); ++e)
    ey = std::max(ey, std::abs(det.gamma()[SegmentIndex{e}] - sto.gamma()[SegmentIndex{e}]));
  EXPECT_LT(ez, 1e-11);
  EXPECT_LT(ey, 1e-11);
  EXPECT_LT(ephi, 1e-12);
  EXPECT_LT(eE, 1e-11);
  EXPECT_GT(std::abs(theta * W), 1e-4);  // the shift is really there
}

TEST(WaveNoise, IndependentNoiseEnergyRate) {
  // Independent noise pumps energy in at the rate (J - 1) Theta^2 / ds (the strain increments
  // Theta (dW_{j+1} - dW_j) / ds on the J - 1 interior segments). Mean over 200 paths within 4 standard
  // errors (false alarm ~ 6e-5) plus the O(dt) energy-definition offset.
  const long J = 50;
  const Grid grid = cell_free(J);
  const double dt = 1e-3, theta = 1e-2, T = 1.0;
  const long N = std::lround(T / dt);
  const int paths = 200;
  const double rate = (J - 1) * theta * theta / grid.ds();
  auto phi0 = sample(grid, [](double s) { return std::cos(pi * s); });
  std::vector<double> gain(paths);
#pragma omp parallel for schedule(dynamic)
  for (int p = 0; p < paths; ++p) {
    auto st = make(grid, dt, Variant::exact, noise(grid, NoiseMode::independent, theta, dt, p));
    st.initialize(phi0, zeros(grid));
    LevelEnergy E0, E;
    st.step(&E0);
    for (long n = 1; n < N; ++n) st.step(&E);
    gain[p] = E.E_c() - E0.E_c();
  }
  double mean = 0, var = 0;
  for (double g : gain) mean += g / paths;
  for (double g : gain) var += (g - mean) * (g - mean) / (paths - 1);
  const double se = std::sqrt(var / paths), expected = rate * (N - 1) * dt;
  std::printf("energy gain over %d paths: %.5f +- %.5f (predicted %.5f)\n", paths, mean, se, expected);
  EXPECT_NEAR(mean, expected, 4 * se + 0.02 * expected) << "mean " << mean << " +- " << se << ", predicted " << expected;
  EXPECT_GT(std::sqrt(var), 0.0);
}

TEST(WaveNoise, StrongOrderOnRefinedBrownianPaths) {
  // Strong order ~1 for independent noise: 40 paths, each run at dt = 2^m base_dt (m = 1..4) on its own
  // Brownian path and compared at T with the base_dt run of the same path (the reference).
  const long J = 20;
  const Grid grid = cell_free(J);
  const double base = grid.ds() / 64, theta = 0.05, T = 0.5;
  const int paths = 40;
  auto phi0 = sample(grid, [](double s) { return std::cos(pi * s); });
  auto final_phi = [&](int m, std::uint32_t path) {
    const double dt = base * std::ldexp(1.0, m);
    auto st = make(grid, dt, Variant::exact, noise(grid, NoiseMode::independent, theta, dt, path, m));
    st.initialize(phi0, zeros(grid));
    const long N = std::lround(T / dt);
    for (long n = 0; n < N; ++n) st.step();
    return to_vec(st.g());
  };
  std::vector<double> h, err;
  for (int m = 1; m <= 4; ++m) {
    double ms = 0;
    for (int p = 0; p < paths; ++p) {
      const auto ref = final_phi(0, p), x = final_phi(m, p);
      double e2 = 0;
      for (long j = 0; j < J; ++j) e2 = std::max(e2, std::abs(ref[j] - x[j]));
      ms += e2 * e2 / paths;
    }
    h.push_back(base * std::ldexp(1.0, m));
    err.push_back(std::sqrt(ms));
  }
  const double p = lievi::test::fitted_order(h, err);
  std::printf("strong order (independent noise, 40 paths): %.3f\n%s", p, lievi::test::order_table(h, err).c_str());
  EXPECT_GT(p, 0.85) << lievi::test::order_table(h, err);
  EXPECT_LT(p, 1.5) << lievi::test::order_table(h, err);
}

TEST(WaveNoise, BitwiseIdenticalForOneAndTwoThreadsWithNoise) {
  const Grid grid = cell_free(60000);
  const double dt = 0.5 * grid.ds();
  auto run = [&](int threads) {
    omp_set_num_threads(threads);
    auto st = make(grid, dt, Variant::exact, noise(grid, NoiseMode::independent, 1e-3, dt));
    st.initialize(sample(grid, [](double s) { return std::cos(3 * pi * s); }), zeros(grid));
    std::vector<double> e;
    for (int n = 0; n < 30; ++n) {
      LevelEnergy E;
      EXPECT_TRUE(st.step(&E).ok);
      e.push_back(E.E_d());
    }
    auto out = to_vec(st.g());
    out.insert(out.end(), e.begin(), e.end());
    return out;
  };
  const auto a = run(1), b = run(2);
  omp_set_num_threads(omp_get_num_procs());
  EXPECT_TRUE(std::equal(a.begin(), a.end(), b.begin()));
}
