// The beam with Type-I noise (stochastic kinematics, docs/theory/beam.md "Noise"), variant exact, Cayley:
//  - the spatial momentum map is conserved to round-off with common and with independent noise (free ends, no
//    loads): the noise enters only through the body-frame increment A = dt zeta + theta, which keeps
//    left-invariance, so discrete Noether holds path by path;
//  - a single node (a free rigid body on SE(3)) keeps the se(3)* Casimirs |n|^2 and m.n to round-off under
//    noise, and its frames stay orthonormal over 2e4 noisy steps (prototype: <= 6e-14);
//  - Stratonovich: the mean energy gain of the single-node case (docs/theory/staggered.md "Noise on beams")
//    over many paths agrees, within its
//    statistical error, with the Stratonovich generator integrated along the deterministic trajectory
//    (computed here by RK4 on Euler's equations), and excludes the Ito reading (no correction drift);
//  - results are bitwise the same for 1 and 2 threads with independent noise (1201 nodes);
//  - strong order about 1 over 40 paths, each refined on its own Brownian path (noise.base_dt).
#include <gtest/gtest.h>
#include <omp.h>

#include <cmath>
#include <cstdio>
#include <vector>

#include "lievi/field/noise_field.hpp"
#include "lievi/field/stepper.hpp"
#include "lievi/models/beam.hpp"
#include "lievi/noise/wiener.hpp"
#include "support/beam_support.hpp"

using lievi::field::End;
using lievi::field::Grid;
using lievi::field::Layout;
using lievi::field::LevelEnergy;
using lievi::field::NodeField;
using lievi::field::NodeIndex;
using lievi::field::NoiseField;
using lievi::field::NoiseMode;
using lievi::field::StaggeredStepper;
using lievi::lie::Mat3;
using lievi::lie::SE3;
using lievi::lie::Vec3;
using lievi::lie::Vec6;
using lievi::models::Beam;
using lievi::noise::StreamKey;
using lievi::noise::WienerIncrements;
using lievi::test::beam::arc_pose;
using lievi::test::beam::momentum_map;
using lievi::test::beam::orth_error;
using lievi::test::beam::table1;
using Stepper = StaggeredStepper<Beam<>>;

namespace {

NoiseField<Vec6> noise(const Grid& grid, NoiseMode mode, const Vec6& theta, double dt, std::uint32_t path,
                       std::uint32_t seed = 11) {
  return NoiseField<Vec6>(grid, mode, theta, {}, WienerIncrements(StreamKey{seed, path}, dt, 0));
}

/// The bending example's arc, free-free, vertex layout, with a non-uniform initial velocity and the given
/// noise.
Stepper noisy_arc(long J, double dt, NoiseMode mode, const Vec6& theta) {
  const Grid grid(Layout::vertex, J, lievi::test::beam::kTable1Length, End::free, End::free);
  Stepper::Options o;
  o.dt = dt;
  Stepper st(Beam<>::uniform(table1(), grid.n_nodes(), grid.n_segments()), grid, o, noise(grid, mode, theta, dt, 0));
  NodeField<SE3> g0(grid.n_nodes(), SE3());
  NodeField<Vec6> z0(grid.n_nodes(), Vec6::Zero());
  for (std::ptrdiff_t j = 0; j < grid.n_nodes(); ++j) {
    g0[NodeIndex{j}] = arc_pose(grid.s(NodeIndex{j}));
    const double s = grid.s(NodeIndex{j});
    z0[NodeIndex{j}] << 0.5 * std::sin(3 * s), 0.2, -0.3 * s, 0.1 * std::cos(s), -0.2, 0.05 * s;
  }
  st.initialize(g0, z0);
  return st;
}

/// A single node (cell layout, J = 1): K = diag(1, 2, 3, 1, 1, 1).
Stepper single_node(double dt, const Vec6& theta, std::uint32_t path, const Vec6& zeta0) {
  const Grid grid(Layout::cell, 1, 1.0, End::free, End::free);
  const Beam<> b = lievi::test::beam::one_node_body();
  Stepper::Options o;
  o.dt = dt;
  o.start = lievi::field::Start::full;  // M~^0 = K zeta(0): the energy at level 0 is the initial energy
  Stepper st(b, grid, o, noise(grid, NoiseMode::common, theta, dt, path, 2026));
  st.initialize(NodeField<SE3>(1, SE3()), NodeField<Vec6>(1, zeta0));
  return st;
}

/// H = ½ m . I^{-1} m of the rotational part of a pre-momentum (I = diag(1, 2, 3)).
double rot_energy(const Vec6& M) { return 0.5 * (M[0] * M[0] / 1.0 + M[1] * M[1] / 2.0 + M[2] * M[2] / 3.0); }

}  // namespace

TEST(BeamNoise, MomentumMapConservedToRoundOffWithCommonAndIndependentNoise) {
  Vec6 theta;
  theta << 0.05, 0.05, 0.05, 0.05, 0.05, 0.05;  // the paper's strong noise on the Table-1 beam
  for (const NoiseMode mode : {NoiseMode::common, NoiseMode::independent}) {
    Stepper st = noisy_arc(20, 1e-4, mode, theta);
    const Vec6 J0 = momentum_map(st);
    double drift = 0.0, scale = J0.cwiseAbs().maxCoeff();
    for (int n = 0; n < 3000; ++n) {
      ASSERT_TRUE(st.step().ok) << n;
      drift = std::max(drift, (momentum_map(st) - J0).cwiseAbs().maxCoeff());
    }
    std::printf("%s noise: |J0| = %.4e, momentum drift %.3e, orth %.2e, Newton max %d\n", to_string(mode), scale,
                drift, orth_error(st), st.newton_max());
    EXPECT_GT(scale, 0.1);
    EXPECT_LT(drift, 1e-12 * scale) << to_string(mode);
    EXPECT_LT(orth_error(st), 1e-13);
  }
}

TEST(BeamNoise, SingleNodeKeepsCasimirsAndFramesUnderNoise) {
  Vec6 theta, z0;
  theta << 0.3, 0.2, 0.1, 0.1, 0.0, 0.0;
  z0 << 1, 0.5, 0.2, 0.3, 0, 0.1;  // the strong-order case below: linear part non-zero
  Stepper st = single_node(1e-3, theta, 0, z0);
  const Vec6 M0 = st.pre_momentum()[NodeIndex{0}];
  const double nn0 = M0.tail<3>().squaredNorm(), mn0 = M0.head<3>().dot(M0.tail<3>());
  double e_nn = 0, e_mn = 0, moved = 0;
  for (int n = 0; n < 20000; ++n) {
    ASSERT_TRUE(st.step().ok) << n;
    const Vec6 M = st.pre_momentum()[NodeIndex{0}];
    e_nn = std::max(e_nn, std::abs(M.tail<3>().squaredNorm() - nn0));
    e_mn = std::max(e_mn, std::abs(M.head<3>().dot(M.tail<3>()) - mn0));
    moved = std::max(moved, (M - M0).cwiseAbs().maxCoeff());
  }
  std::printf("single node, noise: |n|^2 %.3e (drift %.2e), m.n %.3e (drift %.2e), max |M - M0| %.3f, orth %.2e\n",
              nn0, e_nn, mn0, e_mn, moved, orth_error(st));
  EXPECT_GT(moved, 0.1);  // the noise moves the momentum a lot ...
  EXPECT_LT(e_nn, 1e-13 * nn0 * 10);  // ... on the coadjoint orbit
  EXPECT_LT(e_mn, 1e-13 * std::abs(mn0) * 10);
  EXPECT_LE(orth_error(st), 6e-14);
}

TEST(BeamNoise, MeanEnergyGainIsStratonovichNotIto) {
  // K = diag(1, 2, 3, 1, 1, 1), zeta0 = (1, 0.5, 0.2, 0, 0, 0), Theta = (0.3, 0.2, 0.1, 0, 0, 0),
  // dt = 1e-3, 100 steps. The rotation is a rigid body with dm = m x (omega dt + Theta o dW) (Stratonovich);
  // its generator on H = ½ m.I^{-1}m is L H = omega.(½ (m x Theta) x Theta) + ½ (m x Theta).I^{-1}(m x Theta),
  // the second term alone being the Ito reading (no correction drift). Predicted mean gain: the integral of
  // L H along the deterministic motion (Euler's equations by RK4; the neglected O(Theta^4 T^2) is ~1e-6 of it).
  Vec6 theta, z0;
  theta << 0.3, 0.2, 0.1, 0, 0, 0;
  z0 << 1, 0.5, 0.2, 0, 0, 0;
  const double dt = 1e-3, T = 0.1;
  const Vec3 Iinv(1.0, 0.5, 1.0 / 3.0), Th(0.3, 0.2, 0.1);
  auto rates = [&](const Vec3& m, double& strat, double& ito) {
    const Vec3 w = Iinv.cwiseProduct(m), s = m.cross(Th);
    ito = 0.5 * s.dot(Iinv.cwiseProduct(s));
    strat = w.dot(0.5 * s.cross(Th)) + ito;
  };
  double pred_s = 0.0, pred_i = 0.0;
  {
    Vec3 m(1.0, 1.0, 0.6);
    const int N = 10000;
    const double h = T / N;
    auto f = [&](const Vec3& x) { return Vec3(x.cross(Iinv.cwiseProduct(x))); };  // dm/dt = m x omega
    for (int i = 0; i <= N; ++i) {
      double rs, ri;
      rates(m, rs, ri);
      const double wgt = (i == 0 || i == N) ? 0.5 : 1.0;  // trapezoid
      pred_s += wgt * h * rs;
      pred_i += wgt * h * ri;
      const Vec3 k1 = f(m), k2 = f(m + 0.5 * h * k1), k3 = f(m + 0.5 * h * k2), k4 = f(m + h * k3);
      m += h / 6.0 * (k1 + 2 * k2 + 2 * k3 + k4);
    }
  }
  const int paths = 4000;
  double sum = 0.0, sum2 = 0.0;
  for (int p = 0; p < paths; ++p) {
    Stepper st = single_node(dt, theta, static_cast<std::uint32_t>(p), z0);
    const double E0 = rot_energy(st.pre_momentum()[NodeIndex{0}]);
    for (int n = 0; n < 100; ++n) ASSERT_TRUE(st.step().ok);
    const double gain = rot_energy(st.pre_momentum()[NodeIndex{0}]) - E0;
    sum += gain;
    sum2 += gain * gain;
  }
  const double mean = sum / paths, err = std::sqrt((sum2 / paths - mean * mean) / (paths - 1));
  std::printf("mean energy gain %.4e +- %.2e (%d paths); Stratonovich %.4e, Ito %.4e (spec: 7.56e-4 +- 0.55e-4 "
              "vs 7.40e-4, Ito 3.33e-4)\n",
              mean, err, paths, pred_s, pred_i);
  EXPECT_NEAR(mean, pred_s, 3.5 * err + 0.02 * pred_s);
  EXPECT_GT(std::abs(mean - pred_i), 5.0 * err);
}

TEST(BeamNoise, BitwiseIdenticalForOneAndTwoThreadsWithIndependentNoise) {
  Vec6 theta;
  theta << 0.01, 0.02, 0.01, 0.005, 0.0, 0.01;
  auto run = [&](int threads) {
    omp_set_num_threads(threads);
    Stepper st = noisy_arc(1200, 5e-6, NoiseMode::independent, theta);  // > 512 nodes: parallel sweeps
    std::vector<double> out;
    for (int n = 0; n < 10; ++n) {
      LevelEnergy E;
      EXPECT_TRUE(st.step(&E).ok);
      out.push_back(E.E_c());
    }
    lievi::test::beam::append_poses(st, out);
    return out;
  };
  const auto a = run(1), b = run(2);
  omp_set_num_threads(omp_get_num_procs());
  EXPECT_TRUE(a == b);
}

TEST(BeamNoise, StrongOrderAboutOneOnRefinedBrownianPaths) {
  // J = 1, K = diag(1, 2, 3, 1, 1, 1), zeta0 = (1, 0.5, 0.2, 0.3, 0, 0.1),
  // Theta = (0.3, 0.2, 0.1, 0.1, 0, 0), T = 1; each path's increments drawn on the finest grid 2^-12
  // (noise.base_dt) and summed for the coarse steps, so every dt sees the same Brownian path; reference
  // dt = 2^-12; errors of (M~^N, p^N, R^N) at t = T (the pre-momentum of level N, at the same time level for
  // every dt). Prototype: orders 1.12, 1.14, 1.11.
  Vec6 theta, z0;
  theta << 0.3, 0.2, 0.1, 0.1, 0, 0;
  z0 << 1, 0.5, 0.2, 0.3, 0, 0.1;
  const int fine = 12, paths = 40;
  const std::vector<int> levels = {5, 6, 7, 8, 9};  // dt = 2^-5 ... 2^-9
  auto run = [&](int log2_inv_dt, std::uint32_t path) {
    const double dt = std::ldexp(1.0, -log2_inv_dt);
    const Grid grid(Layout::cell, 1, 1.0, End::free, End::free);
    const Beam<> b = lievi::test::beam::one_node_body();
    Stepper::Options o;
    o.dt = dt;
    NoiseField<Vec6> nf(grid, NoiseMode::common, theta, {},
                        WienerIncrements(StreamKey{99, path}, std::ldexp(1.0, -fine), fine - log2_inv_dt));
    Stepper st(b, grid, o, std::move(nf));
    st.initialize(NodeField<SE3>(1, SE3()), NodeField<Vec6>(1, z0));
    const long steps = 1L << log2_inv_dt;
    for (long n = 0; n < steps; ++n) EXPECT_TRUE(st.step().ok);
    struct State {
      Vec6 M;
      Vec3 p;
      Mat3 R;
    };
    return State{st.pre_momentum()[NodeIndex{0}], st.g()[NodeIndex{0}].translation(), st.g()[NodeIndex{0}].rotation()};
  };
  std::vector<double> eM(levels.size(), 0.0), ep(levels.size(), 0.0), eR(levels.size(), 0.0);
  for (int p = 0; p < paths; ++p) {
    const auto ref = run(fine, static_cast<std::uint32_t>(p));
    for (std::size_t l = 0; l < levels.size(); ++l) {
      const auto x = run(levels[l], static_cast<std::uint32_t>(p));
      eM[l] += (x.M - ref.M).squaredNorm() / paths;
      ep[l] += (x.p - ref.p).squaredNorm() / paths;
      eR[l] += (x.R - ref.R).squaredNorm() / paths;
    }
  }
  auto order = [&](const std::vector<double>& e2) {  // least-squares slope of log2 sqrt(E|err|^2) vs log2 dt
    double sx = 0, sy = 0, sxx = 0, sxy = 0;
    const double n = static_cast<double>(levels.size());
    for (std::size_t l = 0; l < levels.size(); ++l) {
      const double xv = -levels[l], yv = 0.5 * std::log2(e2[l]);
      sx += xv, sy += yv, sxx += xv * xv, sxy += xv * yv;
    }
    return (n * sxy - sx * sy) / (n * sxx - sx * sx);
  };
  const double oM = order(eM), op = order(ep), oR = order(eR);
  std::printf("strong order over %d paths, dt = 2^-5 .. 2^-9 vs 2^-12: M~ %.3f, p %.3f, R %.3f (spec 1.12, 1.14, 1.11); "
              "rms errors at 2^-9: %.2e %.2e %.2e\n",
              paths, oM, op, oR, std::sqrt(eM.back()), std::sqrt(ep.back()), std::sqrt(eR.back()));
  for (const double o : {oM, op, oR}) {
    EXPECT_GT(o, 0.85);
    EXPECT_LT(o, 1.45);
  }
}
