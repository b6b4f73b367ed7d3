// The staggered stepper on G = R without noise, against things it does not compute itself: a textbook
// staggered leapfrog / 1-D Yee update written here, the discrete exact solution of docs/theory/staggered.md
// ("Start"), d'Alembert's solution with even reflections (order 2 measured here), and the energy behaviour of
// docs/theory/staggered.md "Energies".
#include <gtest/gtest.h>
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <numbers>
#include <vector>

#include "support/convergence.hpp"
#include "wave_support.hpp"

using namespace wave_test;
using lievi::field::LevelEnergy;
using lievi::field::Variant;
constexpr double pi = std::numbers::pi;

namespace {

/// Textbook 1-D Yee / staggered leapfrog for phi_tt = phi_ss on the cell grid with free ends
/// (gamma_{1/2} = gamma_{J+1/2} = 0), written from the formulas of docs/theory/staggered.md "One step" with
/// plain arrays.
struct Yee {
  std::vector<double> phi, zeta, gamma;  // zeta at half steps, gamma on the J-1 interior faces
  double dt, ds;
  Yee(std::vector<double> phi0, double dt_, double ds_) : phi(std::move(phi0)), dt(dt_), ds(ds_) {
    const std::size_t J = phi.size();
    gamma.assign(J - 1, 0.0);
    for (std::size_t e = 0; e + 1 < J; ++e) gamma[e] = (phi[e + 1] - phi[e]) / ds;
    // velocity-Verlet start from phi_t = 0: zeta^{1/2} = (dt/2) a(phi^0); stored as zeta^{-1/2} = -(dt/2) a
    zeta.assign(J, 0.0);
    for (std::size_t j = 0; j < J; ++j) zeta[j] = -0.5 * dt * (face(j + 1) - face(j)) / ds;
  }
  [[nodiscard]] double face(std::size_t f) const {  // gamma_{f-1/2} with ghost faces 0 and J
    return (f == 0 || f == phi.size()) ? 0.0 : gamma[f - 1];
  }
  void step() {
    const std::size_t J = phi.size();
    for (std::size_t j = 0; j < J; ++j) zeta[j] += dt / ds * (face(j + 1) - face(j));
    for (std::size_t j = 0; j < J; ++j) phi[j] += dt * zeta[j];
    for (std::size_t e = 0; e + 1 < J; ++e) gamma[e] += dt / ds * (zeta[e + 1] - zeta[e]);
  }
};

/// d'Alembert with even reflections at s = 0 and s = 1: phi = (F(s - t) + F(s + t)) / 2, F the even
/// 2-periodic extension of phi0.
double dalembert(double s, double t, double (*phi0)(double)) {
  auto F = [&](double x) {
    x = std::fmod(x, 2.0);
    if (x < 0) x += 2.0;
    return phi0(x <= 1.0 ? x : 2.0 - x);
  };
  return 0.5 * (F(s - t) + F(s + t));
}
double gaussian(double s) { return std::exp(-std::pow((s - 0.3) / 0.05, 2)); }

}  // namespace

TEST(WaveStepper, EqualsTextbookYeeBothVariants) {
  const long J = 64;
  const Grid grid = cell_free(J);
  const double dt = 0.4 * grid.ds();
  auto phi0 = sample(grid, [](double s) { return std::exp(-std::pow((s - 0.4) / 0.1, 2)) + 0.3 * std::cos(3 * pi * s); });
  for (Variant v : {Variant::exact, Variant::approx}) {
    auto st = make(grid, dt, v);
    st.initialize(phi0, zeros(grid));
    std::vector<double> p0(phi0.data(), phi0.data() + J);
    Yee ref(p0, dt, grid.ds());
    double err_phi = 0, err_zeta = 0, err_gamma = 0;
    for (int n = 0; n < 2000; ++n) {
      ASSERT_TRUE(st.step().ok);
      ref.step();
      for (long j = 0; j < J; ++j) {
        err_phi = std::max(err_phi, std::abs(st.g()[NodeIndex{j}] - ref.phi[j]));
        err_zeta = std::max(err_zeta, std::abs(st.zeta()[NodeIndex{j}] - ref.zeta[j]));
      }
      for (long e = 0; e + 1 < J; ++e)
        err_gamma = std::max(err_gamma, std::abs(st.gamma()[lievi::field::SegmentIndex{e}] - ref.gamma[e]));
    }
    // Round-off: the exact variant takes gamma from phi differences (error ~ eps |phi| / ds per step);
    // the approx one updates gamma incrementally like the textbook scheme.
    EXPECT_LT(err_phi, 1e-12) << (v == Variant::exact ? "exact" : "approx");
    EXPECT_LT(err_zeta, 1e-11);
    EXPECT_LT(err_gamma, 1e-11);
  }
}

TEST(WaveStepper, DiscreteExactSolution) {
  // the discrete exact solution: phi_j^n = cos(pi s_j) cos(Omega n dt),
  // sin(Omega dt / 2) = (dt / ds) sin(pi ds / 2), cell, free.
  const Grid grid = cell_free(100);
  const double dt = 1e-3, ds = grid.ds();
  const double Omega = 2.0 / dt * std::asin(dt / ds * std::sin(pi * ds / 2));
  auto st = make(grid, dt);
  st.initialize(sample(grid, [](double s) { return std::cos(pi * s); }), zeros(grid));
  const int N = 20000;
  for (int n = 0; n < N; ++n) ASSERT_TRUE(st.step().ok);
  double err = 0;
  for (long j = 0; j < grid.n_nodes(); ++j)
    err = std::max(err, std::abs(st.g()[NodeIndex{j}] - std::cos(pi * grid.s(NodeIndex{j})) * std::cos(Omega * N * dt)));
  EXPECT_LT(err, 1e-12);
}

TEST(WaveStepper, DalembertOrderTwo) {
  // Gaussian pulse, free ends (even reflections), dt = ds / 2, T = 1.3: order 2 in ds (prototype: 2.00).
  std::vector<double> h, e;
  for (long J : {100, 200, 400, 800}) {
    const Grid grid = cell_free(J);
    const double dt = grid.ds() / 2;
    const long N = std::lround(1.3 / dt);
    auto st = make(grid, dt);
    st.initialize(sample(grid, gaussian), zeros(grid));
    for (long n = 0; n < N; ++n) ASSERT_TRUE(st.step().ok);
    double err = 0;
    for (long j = 0; j < J; ++j)
      err = std::max(err, std::abs(st.g()[NodeIndex{j}] - dalembert(grid.s(NodeIndex{j}), N * dt, gaussian)));
    h.push_back(grid.ds());
    e.push_back(err);
  }
  const double p = lievi::test::fitted_order(h, e);
  EXPECT_NEAR(p, 2.0, 0.1) << lievi::test::order_table(h, e);
}

TEST(WaveStepper, EnergyFluctuationOrders) {
  // Over T = 20, E_d fluctuates by (pi^3/4) dt, the centred energy by O(dt^2); no drift.
  const Grid grid = cell_free(100);
  std::vector<double> dts = {1e-3, 5e-4}, fd, fc;
  for (double dt : dts) {
    auto st = make(grid, dt);
    st.initialize(sample(grid, [](double s) { return std::cos(pi * s); }), zeros(grid));
    const long N = std::lround(20.0 / dt);
    double dmin = 1e300, dmax = -1e300, cmin = 1e300, cmax = -1e300, first_mean = 0, last_mean = 0;
    for (long n = 0; n < N; ++n) {
      LevelEnergy E;
      ASSERT_TRUE(st.step(&E).ok);
      dmin = std::min(dmin, E.E_d()), dmax = std::max(dmax, E.E_d());
      cmin = std::min(cmin, E.E_c()), cmax = std::max(cmax, E.E_c());
      if (n < N / 10) first_mean += E.E_c() / (N / 10);
      if (n >= N - N / 10) last_mean += E.E_c() / (N / 10);
    }
    fd.push_back(dmax - dmin);
    fc.push_back(cmax - cmin);
    EXPECT_NEAR((dmax - dmin) / dt, pi * pi * pi / 4, 0.02 * pi * pi * pi / 4) << "dt " << dt;
    // no drift: the mean centred energy of the last tenth equals the first tenth's to within its fluctuation
    EXPECT_LT(std::abs(last_mean - first_mean), 0.1 * (cmax - cmin)) << "dt " << dt;
    // the energy itself is pi^2/4 (discrete: to O(ds^2))
    EXPECT_NEAR(cmin, pi * pi / 4, 1e-3);
  }
  EXPECT_NEAR(std::log(fd[0] / fd[1]) / std::log(2.0), 1.0, 0.05);
  EXPECT_NEAR(std::log(fc[0] / fc[1]) / std::log(2.0), 2.0, 0.1);
}

TEST(WaveStepper, VectorWaveEqualsScalarComponents) {
  // The field machinery is generic over the group: R^3 components evolve as three scalar waves.
  using W3 = lievi::models::Wave<3>;
  const Grid grid(Layout::vertex, 40, 2.0, End::free, End::free);
  const double dt = 0.3 * grid.ds();
  lievi::field::StaggeredStepper<W3>::Options o;
  o.dt = dt;
  lievi::field::StaggeredStepper<W3> st3(W3::with_speed(1.5), grid, o);
  NodeField<W3::Algebra> g0(grid.n_nodes()), z0(grid.n_nodes(), W3::Algebra::Zero());
  std::vector<NodeField<double>> gs(3, NodeField<double>(grid.n_nodes()));
  for (long j = 0; j < grid.n_nodes(); ++j) {
    const double s = grid.s(NodeIndex{j});
    g0[NodeIndex{j}] = W3::Algebra(std::sin(s), std::cos(2 * s), s * s);
    for (int c = 0; c < 3; ++c) gs[c][NodeIndex{j}] = g0[NodeIndex{j}][c];
  }
  st3.initialize(g0, z0);
  std::vector<lievi::field::StaggeredStepper<lievi::models::Wave<1>>> st1;
  lievi::field::StaggeredStepper<lievi::models::Wave<1>>::Options o1;
  o1.dt = dt;
  for (int c = 0; c < 3; ++c) {
    st1.emplace_back(lievi::models::Wave<1>::with_speed(1.5), grid, o1);
    st1.back().initialize(gs[c], zeros(grid));
  }
  for (int n = 0; n < 500; ++n) {
    ASSERT_TRUE(st3.step().ok);
    for (auto& s : st1) ASSERT_TRUE(s.step().ok);
  }
  for (long j = 0; j < grid.n_nodes(); ++j)
    for (int c = 0; c < 3; ++c) EXPECT_EQ(st3.g()[NodeIndex{j}][c], st1[c].g()[NodeIndex{j}]);
}

TEST(WaveStepper, ClampedAndPeriodicEnds) {
  // vertex layout, both ends clamped: the standing wave sin(pi s) with the discrete frequency
  // sin(Omega dt/2) = (dt/ds) sin(pi ds/2) is exact (odd modes of the Dirichlet Laplacian).
  {
    const Grid grid(Layout::vertex, 50, 1.0, End::clamped, End::clamped);
    const double dt = 0.5 * grid.ds(), ds = grid.ds();
    const double Omega = 2.0 / dt * std::asin(dt / ds * std::sin(pi * ds / 2));
    auto st = make(grid, dt);
    st.initialize(sample(grid, [](double s) { return std::sin(pi * s); }), zeros(grid));
    const int N = 3000;
    for (int n = 0; n < N; ++n) ASSERT_TRUE(st.step().ok);
    double err = 0;
    for (long j = 0; j < grid.n_nodes(); ++j)
      err = std::max(err, std::abs(st.g()[NodeIndex{j}] - std::sin(pi * grid.s(NodeIndex{j})) * std::cos(Omega * N * dt)));
    EXPECT_LT(err, 1e-12);
  }
  // periodic: a travelling wave cos(2 pi (s - t)) with the discrete dispersion relation
  {
    const Grid grid(Layout::vertex, 64, 1.0, End::periodic, End::periodic);
    const double dt = 0.5 * grid.ds(), ds = grid.ds(), k = 2 * pi;
    const double Omega = 2.0 / dt * std::asin(dt / ds * std::sin(k * ds / 2));
    // standing wave cos(k s) cos(Omega t) from rest
    auto st = make(grid, dt);
    st.initialize(sample(grid, [&](double s) { return std::cos(k * s); }), zeros(grid));
    const int N = 4000;
    for (int n = 0; n < N; ++n) ASSERT_TRUE(st.step().ok);
    double err = 0;
    for (long j = 0; j < grid.n_nodes(); ++j)
      err = std::max(err, std::abs(st.g()[NodeIndex{j}] - std::cos(k * grid.s(NodeIndex{j})) * std::cos(Omega * N * dt)));
    EXPECT_LT(err, 1e-12);
  }
}

TEST(WaveStepper, BitwiseIdenticalForOneAndTwoThreads) {
  const Grid grid = cell_free(100000);
  const double dt = 0.5 * grid.ds();
  auto run = [&](int threads) {
    omp_set_num_threads(threads);
    auto st = make(grid, dt);
    st.initialize(sample(grid, [](double s) { return std::cos(3 * pi * s) + std::exp(-100 * (s - 0.5) * (s - 0.5)); }),
                  zeros(grid));
    std::vector<double> energies;
    for (int n = 0; n < 50; ++n) {
      LevelEnergy E;
      EXPECT_TRUE(st.step(&E).ok);
      energies.push_back(E.E_d());
      energies.push_back(E.E_c());
    }
    std::vector<double> out(st.g().data(), st.g().data() + grid.n_nodes());
    out.insert(out.end(), st.zeta().data(), st.zeta().data() + grid.n_nodes());
    out.insert(out.end(), energies.begin(), energies.end());
    return out;
  };
  const auto a = run(1), b = run(2);
  omp_set_num_threads(omp_get_num_procs());
  ASSERT_EQ(a.size(), b.size());
  EXPECT_TRUE(std::equal(a.begin(), a.end(), b.begin())) << "results differ between 1 and 2 threads";
}

TEST(WaveStepper, NonFiniteStopsWithNode) {
  const Grid grid = cell_free(20);
  auto st = make(grid, 0.9 * grid.ds());
  auto phi0 = zeros(grid);
  phi0[NodeIndex{7}] = std::numeric_limits<double>::infinity();
  st.initialize(phi0, zeros(grid));
  const auto r = st.step();
  EXPECT_FALSE(r.ok);
  EXPECT_GE(r.node, 6);
  EXPECT_LE(r.node, 8);
}
