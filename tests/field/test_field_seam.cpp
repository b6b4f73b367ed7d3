// The seam between field::StaggeredStepper and its models (lievi/field/model.hpp):
//  - a field model written here, a scalar Klein–Gordon chain rho phi_tt = kappa phi_ss - m^2 phi (the wave
//    equation plus an on-site potential, given by the optional `load` and `onsite_density` hooks), runs through
//    the same stepper: against the discrete dispersion relation of the leapfrog scheme (a Fourier mode, exact
//    to round-off), against the scheme written out separately here (free ends, independent noise), and its
//    energy with the on-site term does not drift;
//  - the reference node solve of the beam (Newton on the full Jacobian, by LU; Options::reference_solve)
//    against every other solve of the same equation the stepper can pick (the model's block Newton
//    correction, its reduced solve, the batched node sweep on each instruction set the CPU has) on random
//    states: random poses, velocities, inertias and stiffnesses, with and without damping and noise.
#include <gtest/gtest.h>

#include <Eigen/Geometry>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numbers>
#include <random>
#include <string>
#include <vector>

#include "lievi/core/isa.hpp"
#include "lievi/field/model.hpp"
#include "lievi/field/noise_field.hpp"
#include "lievi/field/stepper.hpp"
#include "lievi/lie/retraction/exp.hpp"
#include "lievi/models/beam.hpp"
#include "lievi/models/wave.hpp"
#include "lievi/noise/wiener.hpp"

using lievi::field::End;
using lievi::field::Grid;
using lievi::field::Layout;
using lievi::field::NodeField;
using lievi::field::NodeIndex;
using lievi::field::NoiseField;
using lievi::field::NoiseMode;
using lievi::field::StaggeredStepper;
using lievi::field::Sweep;
using lievi::lie::Mat3;
using lievi::lie::Mat6;
using lievi::lie::SE3;
using lievi::lie::Vec3;
using lievi::lie::Vec6;
using lievi::noise::StreamKey;
using lievi::noise::WienerIncrements;

namespace {

/// A scalar Klein–Gordon chain: the wave equation with the on-site potential V(phi) = ½ m² phi² per unit
/// length. Nothing in it is known to the stepper but what lievi/field/model.hpp names.
struct KleinGordon {
  using Algebra = double;
  using Config = double;
  static constexpr bool is_abelian = true;
  double rho = 1.0, kappa = 1.0, m2 = 1.0;

  static double zero() { return 0.0; }
  [[nodiscard]] double momentum(std::ptrdiff_t, double zeta) const { return rho * zeta; }
  [[nodiscard]] double velocity(std::ptrdiff_t, double mu) const { return mu / rho; }
  [[nodiscard]] double stress(std::ptrdiff_t, double gamma) const { return kappa * gamma; }
  [[nodiscard]] double kinetic_density(std::ptrdiff_t, double zeta) const { return 0.5 * rho * zeta * zeta; }
  [[nodiscard]] double potential_density(std::ptrdiff_t, double gamma) const { return 0.5 * kappa * gamma * gamma; }
  static double advance(double g, double a) { return g + a; }
  static double relative(double g, double h) { return h - g; }
  /// The on-site force on a node of weight w: -w V'(phi).
  [[nodiscard]] double load(std::ptrdiff_t, double phi, double, double w) const { return -w * m2 * phi; }
  [[nodiscard]] double onsite_density(std::ptrdiff_t, double phi) const { return 0.5 * m2 * phi * phi; }
};
static_assert(lievi::field::AbelianFieldModel<KleinGordon>);
static_assert(lievi::field::AbelianFieldModel<lievi::models::Wave<1>>);
static_assert(lievi::field::LieFieldModel<lievi::models::Beam<>>);
static_assert(lievi::field::BatchedFieldModel<lievi::models::Beam<>>);
static_assert(lievi::field::LieFieldModel<lievi::models::Beam<lievi::lie::Exp<SE3>>>);

using KgStepper = StaggeredStepper<KleinGordon>;

}  // namespace

TEST(FieldSeam, KleinGordonChainFollowsTheDiscreteDispersionRelation) {
  // A Fourier mode phi_j = cos(k s_j) at rest on a periodic chain is an eigenvector of the scheme: with the
  // half-kick start, phi_j^n = cos(k s_j) cos(n omega dt), where 1 - cos(omega dt) = dt² Omega² / 2 and
  // rho Omega² = m² + (4 kappa / ds²) sin²(k ds / 2). Without the on-site force the frequency would be the
  // wave's (Omega² lower by m² / rho).
  const KleinGordon kg{1.3, 2.0, 5.0};
  const Grid grid(Layout::vertex, 64, 2 * std::numbers::pi, End::periodic, End::periodic);
  const double ds = grid.ds(), k = 3.0;
  const double Omega2 = (kg.m2 + 4.0 * kg.kappa / (ds * ds) * std::pow(std::sin(0.5 * k * ds), 2)) / kg.rho;
  KgStepper::Options o;
  o.dt = 1.0 / std::sqrt((kg.m2 + 4.0 * kg.kappa / (ds * ds)) / kg.rho);  // half the limit of the highest mode
  const double omega = std::acos(1.0 - 0.5 * o.dt * o.dt * Omega2) / o.dt;
  KgStepper st(kg, grid, o);
  EXPECT_EQ(st.sweep(), Sweep::abelian);
  const long n = grid.n_nodes();
  NodeField<double> phi0(n), z0(n, 0.0);
  for (long j = 0; j < n; ++j) phi0[NodeIndex{j}] = std::cos(k * grid.s(NodeIndex{j}));
  st.initialize(phi0, z0);
  double err = 0.0;
  for (int step = 1; step <= 2000; ++step) {
    const auto r = st.step();
    ASSERT_TRUE(r.ok) << "step " << step << ": " << r.message << " at node " << r.node;
    for (long j = 0; j < n; ++j)
      err = std::max(err, std::abs(st.g()[NodeIndex{j}] - phi0[NodeIndex{j}] * std::cos(step * omega * o.dt)));
  }
  EXPECT_LT(err, 1e-11) << "largest deviation from the discrete Fourier mode over 2000 steps";
  // the wave's frequency (no on-site force) would be off by O(1) after this many steps
  const double wave_omega = std::acos(1.0 - 0.5 * o.dt * o.dt * (Omega2 - kg.m2 / kg.rho)) / o.dt;
  EXPECT_GT(std::abs(std::cos(2000 * omega * o.dt) - std::cos(2000 * wave_omega * o.dt)), 0.1);
}

TEST(FieldSeam, KleinGordonChainWithNoiseEqualsTheSchemeWrittenOut) {
  // free ends (vertex layout: end weights ds / 2, one segment each), independent Type-I noise theta_j = amp dW_j:
  //   mu = rho z_j + (dt / w_j)(Pi_right - Pi_left - w_j m² phi_j),  z_j = mu / rho,  phi_j += dt z_j + theta_j
  const KleinGordon kg{0.7, 1.5, 3.0};
  const Grid grid(Layout::vertex, 40, 1.0, End::free, End::free);
  KgStepper::Options o;
  o.dt = 0.4 * grid.ds() / std::sqrt(kg.kappa / kg.rho);
  const double amp = 0.01;
  NoiseField<double> nf(grid, NoiseMode::independent, amp, {}, WienerIncrements(StreamKey{5, 2}, o.dt, 0));
  KgStepper st(kg, grid, o, std::move(nf));
  const long n = grid.n_nodes(), m = grid.n_segments();
  std::vector<double> phi(static_cast<std::size_t>(n)), z(static_cast<std::size_t>(n));
  NodeField<double> phi0(n), z0(n);
  for (long j = 0; j < n; ++j) {
    const double s = grid.s(NodeIndex{j});
    phi[static_cast<std::size_t>(j)] = phi0[NodeIndex{j}] = std::exp(-40.0 * (s - 0.3) * (s - 0.3));
    z0[NodeIndex{j}] = std::sin(3.0 * s);
  }
  st.initialize(phi0, z0);
  auto force = [&](long j) {  // Pi_right - Pi_left - w m² phi (a missing segment contributes nothing)
    const double w = grid.weight(NodeIndex{j}), ds = grid.ds();
    double f = -w * kg.m2 * phi[static_cast<std::size_t>(j)];
    if (j < m) f += kg.kappa * (phi[static_cast<std::size_t>(j + 1)] - phi[static_cast<std::size_t>(j)]) / ds;
    if (j > 0) f -= kg.kappa * (phi[static_cast<std::size_t>(j)] - phi[static_cast<std::size_t>(j - 1)]) / ds;
    return f;
  };
  for (long j = 0; j < n; ++j)  // the half kick: z^{-1/2} = z(0) - (dt / 2) force / (w rho)
    z[static_cast<std::size_t>(j)] = z0[NodeIndex{j}] - 0.5 * o.dt * force(j) / (grid.weight(NodeIndex{j}) * kg.rho);
  double err = 0.0, size = 0.0;
  for (int step = 0; step < 500; ++step) {
    ASSERT_TRUE(st.step().ok);
    const std::vector<double>& dW = st.noise().raw();
    std::vector<double> f(static_cast<std::size_t>(n));
    for (long j = 0; j < n; ++j) f[static_cast<std::size_t>(j)] = force(j);
    for (long j = 0; j < n; ++j) {
      const auto i = static_cast<std::size_t>(j);
      z[i] = (kg.rho * z[i] + o.dt / grid.weight(NodeIndex{j}) * f[i]) / kg.rho;
      phi[i] += o.dt * z[i] + amp * dW[i];
    }
    for (long j = 0; j < n; ++j) {
      err = std::max(err, std::abs(st.g()[NodeIndex{j}] - phi[static_cast<std::size_t>(j)]));
      size = std::max(size, std::abs(phi[static_cast<std::size_t>(j)]));
    }
  }
  EXPECT_GT(size, 0.1);
  EXPECT_LT(err / size, 1e-12) << "the stepper's Klein-Gordon run against the scheme written out";
}

TEST(FieldSeam, KleinGordonEnergyWithTheOnSiteTermDoesNotDrift) {
  // E_c = (K^{n-1/2} + K^{n+1/2}) / 2 + V^n with V including sum_j w_j ½ m² phi_j² (onsite_density): for the
  // symplectic leapfrog it oscillates by O(dt²) and does not drift; without the on-site term in V it would
  // swing by O(1) of the on-site energy.
  const KleinGordon kg{1.0, 1.0, 25.0};
  const Grid grid(Layout::vertex, 100, 1.0, End::free, End::free);
  KgStepper::Options o;
  o.dt = 0.3 * grid.ds();
  KgStepper st(kg, grid, o);
  const long n = grid.n_nodes();
  NodeField<double> phi0(n), z0(n, 0.0);
  for (long j = 0; j < n; ++j) phi0[NodeIndex{j}] = std::exp(-100.0 * std::pow(grid.s(NodeIndex{j}) - 0.4, 2));
  st.initialize(phi0, z0);
  std::vector<double> E;
  double onsite_max = 0.0;
  for (int step = 0; step < 20000; ++step) {
    lievi::field::LevelEnergy e;
    ASSERT_TRUE(st.step(&e).ok);
    E.push_back(e.E_c());
    double v = 0.0;
    for (long j = 0; j < n; ++j) v += grid.weight(NodeIndex{j}) * kg.onsite_density(j, st.g()[NodeIndex{j}]);
    onsite_max = std::max(onsite_max, v);
  }
  const double E0 = E.front();
  auto swing = [&](std::size_t b, std::size_t e) {
    double d = 0.0;
    for (std::size_t i = b; i < e; ++i) d = std::max(d, std::abs(E[i] - E0));
    return d;
  };
  const double first = swing(0, E.size() / 4), last = swing(3 * E.size() / 4, E.size());
  std::printf("E0 = %.6g, largest |E_c - E0| first quarter %.3g, last quarter %.3g, on-site energy up to %.3g\n", E0,
              first, last, onsite_max);
  EXPECT_LT(last, 1e-2 * E0);            // bounded, O(dt²)
  EXPECT_LT(last, 2.0 * first + 1e-14);  // no drift
  EXPECT_GT(onsite_max, 0.1 * E0);       // the on-site term is a large part of the energy
}

// ---- the reference node solve of the beam -------------------------------------------------------------

namespace {

using Beam = lievi::models::Beam<>;
using BeamStepper = StaggeredStepper<Beam>;

/// How the random beam is made: the inertia's structure decides which solves the stepper may pick.
enum class Inertia { diagonal_isotropic, block, full };

struct SolveCase {
  std::string name;
  Inertia inertia;
  bool damped;
  NoiseMode mode;
};

struct State {
  std::vector<double> pose, zeta, Mt;  // per node: R (9) and p (3); zeta (6); M~ (6)
};

template <class St>
State state_of(const St& st) {
  State s;
  for (long j = 0; j < st.grid().n_nodes(); ++j) {
    const SE3& g = st.g()[NodeIndex{j}];
    for (int c = 0; c < 3; ++c)
      for (int r = 0; r < 3; ++r) s.pose.push_back(g.rotation()(r, c));
    for (int r = 0; r < 3; ++r) s.pose.push_back(g.translation()[r]);
    for (int i = 0; i < 6; ++i) {
      s.zeta.push_back(st.zeta()[NodeIndex{j}][i]);
      s.Mt.push_back(st.pre_momentum()[NodeIndex{j}][i]);
    }
  }
  return s;
}

/// max |a - b| / max |b| over a field.
double rel(const std::vector<double>& a, const std::vector<double>& b) {
  double d = 0.0, scale = 1e-300;
  for (std::size_t i = 0; i < a.size(); ++i) {
    d = std::max(d, std::abs(a[i] - b[i]));
    scale = std::max(scale, std::abs(b[i]));
  }
  return d / scale;
}

/// A random beam (free-free, 14 nodes: packs of 8, 4 and 2 all end partially) in a random state, stepped
/// `steps` times with the given options.
template <class B = Beam>
StaggeredStepper<B> random_run(const SolveCase& c, unsigned seed, typename StaggeredStepper<B>::Options o) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  const Grid grid(Layout::vertex, 13, 1.0, End::free, End::free);
  const long n = grid.n_nodes(), m = grid.n_segments();
  B b;
  for (long j = 0; j < n; ++j) {
    Vec6 k;
    k << 0.1 * (1.5 + u(rng)), 0.1 * (1.5 + u(rng)), 0.1 * (1.5 + u(rng)), 1.0 + 0.5 * u(rng), 0, 0;
    if (c.inertia == Inertia::diagonal_isotropic) {
      k[4] = k[5] = k[3];
    } else {
      k[4] = 1.0 + 0.5 * u(rng);
      k[5] = 1.0 + 0.5 * u(rng);
    }
    Mat6 K = k.asDiagonal();
    if (c.inertia != Inertia::diagonal_isotropic) {  // couplings within the blocks, positive definite
      K(0, 1) = K(1, 0) = 0.02 * u(rng);
      K(3, 4) = K(4, 3) = 0.1 * u(rng);
    }
    if (c.inertia == Inertia::full) K(0, 4) = K(4, 0) = 0.03 * u(rng);  // rotation-translation coupling
    b.K_node.push_back(K);
    b.rhoA_node.push_back(K(3, 3));
  }
  for (long e = 0; e < m; ++e) {
    Vec6 p;
    for (int i = 0; i < 6; ++i) p[i] = (i < 3 ? 0.05 : 5.0) * (1.5 + u(rng));
    b.P_seg.push_back(p.asDiagonal());
    Vec6 E = lievi::models::straight_strain();
    E.head<3>() = 0.3 * Vec3(u(rng), u(rng), u(rng));
    b.E_seg.push_back(E);
  }
  b.gravity = Vec3(0.0, 0.0, -9.81);
  b.momentum_scale = 1e-12;
  if (c.damped) b.set_damping(0.3, 0.2);
  o.dt = 0.3 * b.stable_dt(grid.ds());
  Vec6 theta;
  theta << 0.02, -0.01, 0.03, 0.01, 0.02, -0.015;
  NoiseField<Vec6> nf(grid, c.mode, theta, {}, WienerIncrements(StreamKey{seed, 1}, o.dt, 0));
  StaggeredStepper<B> st(b, grid, o, std::move(nf));
  NodeField<SE3> g0(n, SE3());
  NodeField<Vec6> z0(n);
  for (long j = 0; j < n; ++j) {
    const Vec3 axis = Vec3(u(rng), u(rng), u(rng)).normalized();
    const Mat3 R = Eigen::AngleAxisd(0.6 * u(rng), axis).toRotationMatrix();
    g0[NodeIndex{j}] = SE3(R, Vec3(grid.s(NodeIndex{j}), 0.05 * u(rng), 0.05 * u(rng)));
    for (int i = 0; i < 6; ++i) z0[NodeIndex{j}][i] = (i < 3 ? 3.0 : 0.5) * u(rng);
  }
  st.initialize(g0, z0);
  return st;
}

}  // namespace

TEST(FieldSeam, EveryNodeSolveAgreesWithTheReferenceOnRandomStates) {
  // The reference stops when |F| <= lie_tol max(|M|, scale) (1e-13); every other solve stops at the same
  // test on its own iterate, so the states agree to about that tolerance relative to the field: measured at
  // 2e-13 after one step and 4e-13 after 20 (GCC, x86-64), checked at 1e-11.
  namespace simd = lievi::simd;
  const simd::Isa start = simd::isa();
  const std::vector<SolveCase> cases = {
      {"diagonal K (reduced solve, batched sweep)", Inertia::diagonal_isotropic, false, NoiseMode::none},
      {"diagonal K, independent noise", Inertia::diagonal_isotropic, false, NoiseMode::independent},
      {"diagonal K, common noise", Inertia::diagonal_isotropic, false, NoiseMode::common},
      {"diagonal K, damped (reduced solve with damping)", Inertia::diagonal_isotropic, true, NoiseMode::independent},
      {"block K (block Newton correction)", Inertia::block, false, NoiseMode::independent},
      {"block K, damped", Inertia::block, true, NoiseMode::none},
      {"full K (the correction's LU)", Inertia::full, false, NoiseMode::common},
  };
  int compared_batched = 0;
  double worst1 = 0.0, worst20 = 0.0;
  for (const SolveCase& c : cases) {
    for (unsigned seed = 1; seed <= 4; ++seed) {
      for (int steps : {1, 20}) {
        BeamStepper::Options ref_o;
        ref_o.reference_solve = true;
        BeamStepper ref = random_run(c, seed, ref_o);
        ASSERT_EQ(ref.sweep(), Sweep::lie);
        for (int s = 0; s < steps; ++s) ASSERT_TRUE(ref.step().ok) << c.name << " seed " << seed;
        const State want = state_of(ref);
        const double tol = 1e-11;
        auto check = [&](BeamStepper& st, const std::string& path) {
          for (int s = 0; s < steps; ++s) ASSERT_TRUE(st.step().ok) << path << ", " << c.name << " seed " << seed;
          const State got = state_of(st);
          const double d = std::max({rel(got.pose, want.pose), rel(got.zeta, want.zeta), rel(got.Mt, want.Mt)});
          double& worst = steps == 1 ? worst1 : worst20;
          worst = std::max(worst, d);
          EXPECT_LT(rel(got.pose, want.pose), tol) << path << ", " << c.name << ", seed " << seed << ", " << steps;
          EXPECT_LT(rel(got.zeta, want.zeta), tol) << path << ", " << c.name << ", seed " << seed << ", " << steps;
          EXPECT_LT(rel(got.Mt, want.Mt), tol) << path << ", " << c.name << ", seed " << seed << ", " << steps;
        };
        BeamStepper::Options gen_o;
        gen_o.batched = false;
        BeamStepper gen = random_run(c, seed, gen_o);
        ASSERT_EQ(gen.sweep(), Sweep::lie);
        check(gen, "generic per-node solve");
        for (simd::Isa want_isa : simd::usable_isas()) {
          ASSERT_EQ(simd::force_isa(want_isa), want_isa);
          BeamStepper bat = random_run(c, seed, BeamStepper::Options{});
          const bool applies = c.inertia == Inertia::diagonal_isotropic;  // damped or not
          ASSERT_EQ(bat.sweep(), applies ? Sweep::batched : Sweep::lie) << c.name;
          if (!applies) break;
          check(bat, std::string("batched sweep, ") + simd::isa_name(want_isa));
          ++compared_batched;
        }
        simd::force_isa(start);
      }
    }
  }
  std::printf("largest relative difference from the reference: %.2g after 1 step, %.2g after 20 (%d batched runs)\n",
              worst1, worst20, compared_batched);
  EXPECT_GT(compared_batched, 0);
  EXPECT_GT(worst1, 0.0);  // the solves are different computations (else this test compares nothing)
}

TEST(FieldSeam, ExpRetractionNodeSolveAgreesWithTheReference) {
  // Beam<Exp>: the model's Newton correction is the LU of its own Jacobian (with the approximate derivative of
  // dexp^{-1}): the same equation as the reference's.
  using ExpBeam = lievi::models::Beam<lievi::lie::Exp<SE3>>;
  using St = StaggeredStepper<ExpBeam>;
  const SolveCase c{"exp", Inertia::diagonal_isotropic, false, NoiseMode::independent};
  for (unsigned seed = 1; seed <= 3; ++seed) {
    St::Options ro;
    ro.reference_solve = true;
    St ref = random_run<ExpBeam>(c, seed, ro);
    St::Options go;
    go.batched = false;
    St gen = random_run<ExpBeam>(c, seed, go);
    EXPECT_EQ(gen.sweep(), Sweep::lie);
    // and the batched exp kernels (series for the functions of the angle, their own reduced Newton)
    St bat = random_run<ExpBeam>(c, seed, St::Options{});
    const bool batched = bat.sweep() == Sweep::batched;
    for (int s = 0; s < 20; ++s) {
      ASSERT_TRUE(ref.step().ok);
      ASSERT_TRUE(gen.step().ok);
      ASSERT_TRUE(bat.step().ok);
    }
    const State b = state_of(ref);
    for (const St* st : {&gen, &bat}) {
      const State a = state_of(*st);
      EXPECT_LT(rel(a.pose, b.pose), 1e-11) << seed;
      EXPECT_LT(rel(a.zeta, b.zeta), 1e-11) << seed;
      EXPECT_LT(rel(a.Mt, b.Mt), 1e-11) << seed;
    }
    std::printf("seed %u: batched %d, batched vs reference: zeta %.2g\n", seed, static_cast<int>(batched),
                rel(state_of(bat).zeta, b.zeta));
  }
}
