// Periodic beams (docs/theory/staggered.md "Ends", docs/theory/beam.md), exact variant with Cayley:
//
//  1. Dispersion of the infinite straight beam (period L = 2 pi / 3, Table-1 material, closure = translation by
//     (L, 0, 0)). A small-amplitude initial velocity in one Fourier mode m (k = 2 pi m / L) of one branch:
//     torsion (omega_1 ∝ cos k s), axial (v_1 ∝ cos k s), bending in the x-z plane (the lower eigenvector of the
//     2x2 Timoshenko block below: v_3 = W sin k s, omega_2 = Phi cos k s, so that only the bending branch is
//     excited). The modal coordinate is recorded every step, its frequency Omega measured by zero crossings
//     and the leapfrog dispersion undone, omega = (2/dt) sin(Omega dt / 2). Compared with
//       - the prototype's values for J = 40, m = 1, 2, 3 (an independent implementation): to one unit of
//         the last quoted digit (the values are rounded to 5 significant digits; the measurement itself is
//         exact to ~1e-8, see below);
//       - the closed-form semi-discrete dispersion derived here for the linearised chain: with the Cayley
//         strain at B0 = ds E6 (a pure translation, cay(B0 + eta) ~ linear in eta with the correction
//         -ad_{B0} eta / 2), the linearised strains are kappa = (phi_{j+1} - phi_j)/ds and
//         Gamma = (u_{j+1} - u_j)/ds + e_1 x (phi_j + phi_{j+1})/2. Torsion and axial motion are then exact
//         discrete wave equations, omega = (2/ds) sin(k ds/2) c with c = sqrt(G/rho), sqrt(E/rho); bending is
//         det [[GA kt^2 - rho A w^2, GA kt ct], [GA kt ct, EJ kt^2 + GA ct^2 - rho J w^2]] = 0 with
//         kt = (2/ds) sin(k ds/2), ct = cos(k ds/2) (lower root). These reproduce all nine prototype numbers
//         and its bending errors 1.6e-2 ... 2.4e-4; the code must agree to 2e-6 relative (the measurement:
//         the linear leapfrog in an exact eigenvector is an exact discrete sine, so only the zero-crossing
//         interpolation, O((Omega dt)^2) per crossing but averaged by the fit, and the geometric nonlinearity,
//         ~ strain^2 ~ 1e-10, enter);
//       - the continuum (Timoshenko with k_s = 1, the determinant of docs/theory/beam.md; axial k
//         sqrt(E/rho); torsion k sqrt(G/rho)) over J = 10, 20, 40, 80 (m = 1): the measured order of
//         convergence within 0.15 of 2.
//     dt = 0.25 of the a-priori stability bound (Beam::stable_dt).
//  2. Momentum map J = sum_j w_j Ad*_{g_j^{-1}} M~_j (docs/theory/beam.md) on periodic grids, nonlinear, no
//     loads:
//       - a ring (closure = identity) with a large random velocity field: all six components are symmetries
//         and are conserved to round-off (1e-12 of the momentum scale sum_j w_j (|m| + |p| |n| + |n|));
//       - the infinite straight beam (closure = translation c = (L, 0, 0)): the internal forces telescope up to
//         the last segment, whose far end is closure g_0, so J changes by dt (Ad*_{c^{-1}} - 1)(force) =
//         dt c x N in its angular part: linear momentum and Jang_x (rotations about the axis commute with
//         the closure) are conserved to round-off; Jang_y, Jang_z are not symmetries and change (by ~7 % of
//         the momentum scale here), and their change equals sum_n dt c x N^n to round-off, N^n the spatial
//         force T^+ Pi of the closing segment on node 0 at level n (computed here from gamma and the model).
//     Plus the centred energy E_c stays bounded (max |E_c - E_c0| < 5e-3 E_c0, measured 5e-6 ring, 7e-4
//     straight; no drift: the second half of the run deviates less than twice the first half) and
//     max |R^T R - I| < 1e-13 (round-off; measured ~2e-14).
//  3. Equilibria that check the closure: the straight periodic beam at rest in its reference state (strains
//     E6 on every segment, including the closing one) stays at rest to round-off; a wrong closure (identity)
//     would strain the last segment by -(L - ds)/ds. Also a ring of radius r = ds / (2 tan(pi/J)) at rest: its
//     Cayley strains are exactly (0, 0, 2 tan(pi/J)/ds, 1, 0, 0) (no axial strain, no shear), so the moment
//     is parallel to the curvature and ad*_B Pi = 0: an exact discrete equilibrium.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numbers>
#include <random>
#include <vector>

#include "lievi/field/stepper.hpp"
#include "lievi/models/beam.hpp"
#include "support/beam_support.hpp"

using lievi::field::End;
using lievi::field::Grid;
using lievi::field::Layout;
using lievi::field::LevelEnergy;
using lievi::field::NodeField;
using lievi::field::NodeIndex;
using lievi::field::SegmentIndex;
using lievi::field::StaggeredStepper;
using lievi::lie::Mat3;
using lievi::lie::SE3;
using lievi::lie::Vec3;
using lievi::lie::Vec6;
using lievi::models::Beam;
using lievi::models::Section;
using Stepper = StaggeredStepper<Beam<>>;
using lievi::test::beam::momentum_map;
using lievi::test::beam::orth_error;
using lievi::test::beam::semi_discrete;
using lievi::test::beam::table1;

namespace {

constexpr double kPi = std::numbers::pi;
const double kLength = 2.0 * kPi / 3.0;  // the period: k sqrt(E/rho) = 300 for m = 1




enum class Branch { torsion, axial, bending };
const char* name(Branch b) { return b == Branch::torsion ? "torsion" : b == Branch::axial ? "axial" : "bending"; }

/// Lower root of det [[GA kt^2 - rho A w^2, GA kt ct], [GA kt ct, EJ kt^2 + GA ct^2 - rho J w^2]] = 0:
/// (kt, ct) = (k, 1) is the continuum Timoshenko beam, ((2/ds) sin(k ds/2), cos(k ds/2)) the chain.
double bending_lower(const Section& s, double kt, double ct) {
  const double GA = s.shear_factor * s.G * s.A, EJ = s.E * s.J2, rA = s.rho * s.A, rJ = s.rho * s.J2;
  const double a = rA * rJ, b = -(rA * (GA * ct * ct + EJ * kt * kt) + rJ * GA * kt * kt), c = GA * kt * kt * EJ * kt * kt;
  const double w2 = (-b - std::sqrt(b * b - 4 * a * c)) / (2 * a);
  return std::sqrt(w2);
}

/// Continuum dispersion (docs/theory/beam.md "Examples and linear checks").
double continuum(Branch b, const Section& s, double k) {
  if (b == Branch::torsion) return k * std::sqrt(s.G / s.rho);
  if (b == Branch::axial) return k * std::sqrt(s.E / s.rho);
  return bending_lower(s, k, 1.0);
}

/// Semi-discrete dispersion of the linearised periodic chain (derived in the file comment).
double chain(Branch b, const Section& s, double k, double ds) {
  const double kt = 2.0 / ds * std::sin(0.5 * k * ds), ct = std::cos(0.5 * k * ds);
  if (b == Branch::torsion) return kt * std::sqrt(s.G / s.rho);
  if (b == Branch::axial) return kt * std::sqrt(s.E / s.rho);
  return bending_lower(s, kt, ct);
}

/// The infinite straight beam of period L: J nodes at (s_j, 0, 0), R = I, closure = translation by (L, 0, 0).
Stepper straight_beam(std::ptrdiff_t J, double dt_fraction, double* dt_out = nullptr, double dt = 0.0) {
  const Section sec = table1();
  const Grid grid(Layout::vertex, J, kLength, End::periodic, End::periodic);
  Beam<> b = Beam<>::uniform(sec, grid.n_nodes(), grid.n_segments());
  b.closure = SE3(Mat3::Identity(), Vec3(kLength, 0, 0));
  Stepper::Options o;
  o.dt = dt > 0.0 ? dt : dt_fraction * b.stable_dt(grid.ds());
  if (dt_out) *dt_out = o.dt;
  return Stepper(b, grid, o);
}

NodeField<SE3> straight_poses(const Grid& grid) {
  NodeField<SE3> g0(grid.n_nodes(), SE3());
  for (std::ptrdiff_t j = 0; j < grid.n_nodes(); ++j)
    g0[NodeIndex{j}] = SE3(Mat3::Identity(), Vec3(grid.s(NodeIndex{j}), 0, 0));
  return g0;
}

struct Measured {
  double Omega = 0, omega = 0, dt = 0;
  long steps = 0;
};

/// Run mode m of one branch on the periodic straight beam with J nodes for `periods` periods.
Measured measure(Branch br, int m, std::ptrdiff_t J, double periods) {
  const Section sec = table1();
  Measured out;
  Stepper st = straight_beam(J, 0.25, &out.dt);
  const Grid& grid = st.grid();
  const std::ptrdiff_t n = grid.n_nodes();
  const double k = 2.0 * kPi * m / kLength, ds = grid.ds();
  const double eps = 1e-4;  // velocity amplitude: displacements <= 4e-6 m, strains <= 1e-5
  // bending eigenvector (W, Phi) of the chain's 2x2 block, W = 1: first row of (K - w^2 M) x = 0
  const double kt = 2.0 / ds * std::sin(0.5 * k * ds), ct = std::cos(0.5 * k * ds);
  const double GA = sec.shear_factor * sec.G * sec.A, wb = chain(Branch::bending, sec, k, ds);
  const double Phi = -(GA * kt * kt - sec.rho * sec.A * wb * wb) / (GA * kt * ct);
  NodeField<Vec6> z0(n);
  std::vector<double> phi(static_cast<std::size_t>(n));
  for (std::ptrdiff_t j = 0; j < n; ++j) {
    const double s = grid.s(NodeIndex{j}), c = std::cos(k * s), sn = std::sin(k * s);
    Vec6& z = z0[NodeIndex{j}];
    z.setZero();
    if (br == Branch::torsion) z[0] = eps * c, phi[static_cast<std::size_t>(j)] = c;
    else if (br == Branch::axial) z[3] = eps * c, phi[static_cast<std::size_t>(j)] = c;
    else z[1] = eps * Phi * c, z[5] = eps * sn, phi[static_cast<std::size_t>(j)] = sn;
  }
  st.initialize(straight_poses(grid), z0);
  auto signal = [&] {
    double y = 0;
    for (std::ptrdiff_t j = 0; j < n; ++j) {
      const SE3& g = st.g()[NodeIndex{j}];
      double u = 0;
      if (br == Branch::torsion) u = 0.5 * (g.rotation()(2, 1) - g.rotation()(1, 2));
      else if (br == Branch::axial) u = g.translation().x() - grid.s(NodeIndex{j});
      else u = g.translation().z();
      y += phi[static_cast<std::size_t>(j)] * u;
    }
    return y;
  };
  out.steps = std::lround(std::ceil(periods * 2 * kPi / chain(br, sec, k, ds) / out.dt));
  std::vector<double> y;
  y.reserve(static_cast<std::size_t>(out.steps) + 1);
  y.push_back(signal());
  for (long i = 0; i < out.steps; ++i) {
    const auto r = st.step();
    EXPECT_TRUE(r.ok) << r.message;
    if (!r.ok) return out;
    y.push_back(signal());
  }
  out.Omega = lievi::test::beam::zero_crossing_frequency(y, out.dt, 10);
  out.omega = semi_discrete(out.Omega, out.dt);
  return out;
}


/// A momentum scale: sum_j w_j (|m| + |p| |n| + |n|).
double momentum_scale(const Stepper& st) {
  double s = 0;
  for (std::ptrdiff_t j = 0; j < st.grid().n_nodes(); ++j) {
    const SE3& g = st.g()[NodeIndex{j}];
    const Vec6& M = st.pre_momentum()[NodeIndex{j}];
    s += st.weight(j) * (M.head<3>().norm() + (g.translation().norm() + 1.0) * M.tail<3>().norm());
  }
  return s;
}


/// Ring of radius r in the x-y plane: p = r (cos th, sin th, 0), R = [t | n | e_z] (t tangent, n inward).
SE3 ring_pose(double r, double th) {
  Mat3 R;
  R.col(0) = Vec3(-std::sin(th), std::cos(th), 0);
  R.col(1) = Vec3(-std::cos(th), -std::sin(th), 0);
  R.col(2) = Vec3(0, 0, 1);
  return SE3(R, Vec3(r * std::cos(th), r * std::sin(th), 0));
}

Stepper ring(std::ptrdiff_t J, double dt) {
  const Grid grid(Layout::vertex, J, kLength, End::periodic, End::periodic);
  Stepper::Options o;
  o.dt = dt;
  return Stepper(Beam<>::uniform(table1(), grid.n_nodes(), grid.n_segments()), grid, o);  // closure = identity
}

NodeField<SE3> ring_poses(const Grid& grid, double r) {
  NodeField<SE3> g0(grid.n_nodes(), SE3());
  for (std::ptrdiff_t j = 0; j < grid.n_nodes(); ++j)
    g0[NodeIndex{j}] = ring_pose(r, 2 * kPi * static_cast<double>(j) / static_cast<double>(grid.n_nodes()));
  return g0;
}

/// A large random velocity field (body frame) plus a spatially uniform drift, so that all of J is nonzero.
NodeField<Vec6> random_velocity(const NodeField<SE3>& g, unsigned seed, const Vec3& w_sp = Vec3(0.5, -1.0, 1.5)) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(-1, 1);
  NodeField<Vec6> z(g.size());
  const Vec3 v_sp(0.2, -0.3, 0.4);
  for (std::ptrdiff_t j = 0; j < g.size(); ++j) {
    const Mat3 Rt = g[NodeIndex{j}].rotation().transpose();
    Vec6& zj = z[NodeIndex{j}];
    zj << 2 * u(rng), 2 * u(rng), 2 * u(rng), 0.5 * u(rng), 0.5 * u(rng), 0.5 * u(rng);
    zj.head<3>() += Rt * w_sp;
    zj.tail<3>() += Rt * v_sp;
  }
  return z;
}

struct InvariantRun {
  Vec6 J0 = Vec6::Zero(), drift = Vec6::Zero(), last = Vec6::Zero();
  Vec6 closure_impulse = Vec6::Zero();  ///< sum over the steps of dt (c x N, 0), see the file comment
  double scale = 0, E0 = 0, dE_all = 0, dE_first_half = 0, dE_second_half = 0, orth = 0;
};

/// The closing segment's wrench on node 0 in the spatial frame, (R m + p x R n, R n) for f^+ = T^+_B Pi.
Vec6 closing_wrench_spatial(const Stepper& st) {
  const std::ptrdiff_t e = st.grid().n_segments() - 1;
  const Vec6& y = st.gamma()[SegmentIndex{e}];
  const Vec6 f = Beam<>::pre(Vec6(st.grid().ds() * y), st.model().stress(e, y));
  const SE3& g = st.g()[NodeIndex{0}];
  Vec6 W;
  W.tail<3>() = g.rotation() * f.tail<3>();
  W.head<3>() = g.rotation() * f.head<3>() + g.translation().cross(W.tail<3>());
  return W;
}

InvariantRun run_invariants(Stepper& st, long steps) {
  InvariantRun r;
  r.J0 = momentum_map(st);
  r.scale = momentum_scale(st);
  const Vec3 c = st.model().closure.translation();
  const double dt = st.options().dt;
  for (long n = 0; n < steps; ++n) {
    r.closure_impulse.head<3>() += dt * c.cross(closing_wrench_spatial(st).tail<3>());
    LevelEnergy E;
    const auto rep = st.step(&E);
    EXPECT_TRUE(rep.ok) << rep.message << " at step " << n;
    if (!rep.ok) return r;
    if (n == 0) r.E0 = E.E_c();
    const double dE = std::abs(E.E_c() - r.E0);
    r.dE_all = std::max(r.dE_all, dE);
    if (2 * n >= steps) r.dE_second_half = std::max(r.dE_second_half, dE);
    else r.dE_first_half = std::max(r.dE_first_half, dE);
    r.drift = r.drift.cwiseMax((momentum_map(st) - r.J0).cwiseAbs());
  }
  r.last = momentum_map(st) - r.J0;
  r.orth = orth_error(st);
  return r;
}

void print_run(const char* what, const InvariantRun& r) {
  std::printf("%s: momentum scale %.4g, J0 = (%.4g %.4g %.4g | %.4g %.4g %.4g)\n", what, r.scale, r.J0[0], r.J0[1],
              r.J0[2], r.J0[3], r.J0[4], r.J0[5]);
  std::printf("%s: max |J - J0| per component / scale = (%.2e %.2e %.2e | %.2e %.2e %.2e)\n", what,
              r.drift[0] / r.scale, r.drift[1] / r.scale, r.drift[2] / r.scale, r.drift[3] / r.scale,
              r.drift[4] / r.scale, r.drift[5] / r.scale);
  std::printf("%s: E_c0 = %.6g J, max |E_c - E_c0| / E_c0 = %.3e (first half %.3e, second half %.3e), max |R^T R - I| = "
              "%.2e\n",
              what, r.E0, r.dE_all / r.E0, r.dE_first_half / r.E0, r.dE_second_half / r.E0, r.orth);
}

}  // namespace

TEST(BeamPeriodic, ReferenceValuesOfTheDispersionRelations) {
  // The continuum values of the prototype's table, and the chain's closed form against the prototype's
  // "discrete" column (J = 40): the derivation in the file comment reproduces the independent prototype.
  const Section s = table1();
  const double ds = kLength / 40;
  const double cont[3][3] = {{25.629, 98.692, 209.997}, {300.00, 600.00, 900.00}, {182.57, 365.15, 547.72}};
  const double proto[3][3] = {{25.654, 99.024, 211.245}, {299.69, 597.54, 891.70}, {182.39, 363.65, 542.67}};
  const double unit[3] = {1e-3, 1e-2, 1e-2};  // one unit of the last quoted digit
  const Branch brs[3] = {Branch::bending, Branch::axial, Branch::torsion};
  for (int b = 0; b < 3; ++b) {
    for (int m = 1; m <= 3; ++m) {
      const double k = 2 * kPi * m / kLength;
      const double wc = continuum(brs[b], s, k), wd = chain(brs[b], s, k, ds);
      std::printf("%-8s m=%d: continuum %.5f (spec %.5g), chain J=40 %.5f (prototype %.5g)\n", name(brs[b]), m, wc,
                  cont[b][m - 1], wd, proto[b][m - 1]);
      EXPECT_NEAR(wc, cont[b][m - 1], 0.5 * unit[b] + 1e-9);
      EXPECT_NEAR(wd, proto[b][m - 1], 0.5 * unit[b] + 1e-9);
    }
  }
  // the prototype's first-bending relative errors for J = 10, 20, 40, 80
  const double spec_err[4] = {1.6e-2, 3.9e-3, 9.8e-4, 2.4e-4};
  const double k1 = 2 * kPi / kLength;
  int i = 0;
  for (long J : {10L, 20L, 40L, 80L}) {
    const double e = chain(Branch::bending, s, k1, kLength / static_cast<double>(J)) / continuum(Branch::bending, s, k1) - 1;
    EXPECT_NEAR(e, spec_err[i], 0.05 * spec_err[i]) << "J=" << J;
    ++i;
  }
}

TEST(BeamPeriodic, StraightBeamAtRestStaysAtRest) {
  const std::ptrdiff_t J = 16;
  Stepper st = straight_beam(J, 0.5);
  const Grid& grid = st.grid();
  const NodeField<SE3> g0 = straight_poses(grid);
  st.initialize(g0, NodeField<Vec6>(grid.n_nodes()));
  double strain_err = 0;
  for (std::ptrdiff_t e = 0; e < grid.n_segments(); ++e)
    strain_err = std::max(strain_err, (st.gamma()[SegmentIndex{e}] - lievi::models::straight_strain()).cwiseAbs().maxCoeff());
  for (int n = 0; n < 2000; ++n) ASSERT_TRUE(st.step().ok);
  double dp = 0, dR = 0, z = 0;
  for (std::ptrdiff_t j = 0; j < grid.n_nodes(); ++j) {
    dp = std::max(dp, (st.g()[NodeIndex{j}].translation() - g0[NodeIndex{j}].translation()).cwiseAbs().maxCoeff());
    dR = std::max(dR, (st.g()[NodeIndex{j}].rotation() - Mat3::Identity()).cwiseAbs().maxCoeff());
    z = std::max(z, st.zeta()[NodeIndex{j}].cwiseAbs().maxCoeff());
  }
  std::printf("straight periodic beam at rest, J=%td: initial max |gamma - E6| = %.2e (closing segment %.2e); "
              "after 2000 steps max |dp| = %.2e m, max |R - I| = %.2e, max |zeta| = %.2e\n",
              J, strain_err,
              (st.gamma()[SegmentIndex{J - 1}] - lievi::models::straight_strain()).cwiseAbs().maxCoeff(), dp, dR, z);
  EXPECT_LT(strain_err, 1e-13);  // s_{j+1} - s_j = ds to round-off, also L - s_{J-1}
  EXPECT_LT(dp, 1e-13);
  EXPECT_EQ(dR, 0.0);  // no rotation is ever generated from a purely axial round-off stress
  EXPECT_LT(z, 1e-9);

  // negative control: with the identity as closure the closing segment has strain -(L - ds)/ds along x
  const Grid g2(Layout::vertex, J, kLength, End::periodic, End::periodic);
  Stepper::Options o;
  o.dt = 1e-5;
  Stepper wrong(Beam<>::uniform(table1(), g2.n_nodes(), g2.n_segments()), g2, o);
  wrong.initialize(straight_poses(g2), NodeField<Vec6>(g2.n_nodes()));
  EXPECT_NEAR(wrong.gamma()[SegmentIndex{J - 1}][3], -(kLength - g2.ds()) / g2.ds(), 1e-9);
}

TEST(BeamPeriodic, CayleyRingAtRestIsAnExactEquilibrium) {
  const std::ptrdiff_t J = 20;
  const double ds = kLength / static_cast<double>(J), r = ds / (2 * std::tan(kPi / static_cast<double>(J)));
  Stepper st = ring(J, 1e-4);
  const NodeField<SE3> g0 = ring_poses(st.grid(), r);
  st.initialize(g0, NodeField<Vec6>(J));
  Vec6 expect = lievi::models::straight_strain();
  expect[2] = 2 * std::tan(kPi / static_cast<double>(J)) / ds;
  double strain_err = 0;
  for (std::ptrdiff_t e = 0; e < J; ++e)
    strain_err = std::max(strain_err, (st.gamma()[SegmentIndex{e}] - expect).cwiseAbs().maxCoeff());
  for (int n = 0; n < 2000; ++n) ASSERT_TRUE(st.step().ok);
  double dp = 0, dR = 0, z = 0;
  for (std::ptrdiff_t j = 0; j < J; ++j) {
    dp = std::max(dp, (st.g()[NodeIndex{j}].translation() - g0[NodeIndex{j}].translation()).cwiseAbs().maxCoeff());
    dR = std::max(dR, (st.g()[NodeIndex{j}].rotation() - g0[NodeIndex{j}].rotation()).cwiseAbs().maxCoeff());
    z = std::max(z, st.zeta()[NodeIndex{j}].cwiseAbs().maxCoeff());
  }
  std::printf("Cayley ring at rest, J=%td, r=%.6f: max |gamma - (0,0,%.4f,1,0,0)| = %.2e; after 2000 steps max |dp| = "
              "%.2e m, max |dR| = %.2e, max |zeta| = %.2e\n",
              J, r, expect[2], strain_err, dp, dR, z);
  EXPECT_LT(strain_err, 1e-12);
  EXPECT_LT(dp, 1e-12);
  EXPECT_LT(dR, 1e-12);
  EXPECT_LT(z, 1e-8);
}

TEST(BeamPeriodic, DiscreteDispersionMatchesPrototypeAndClosedForm) {
  const Section sec = table1();
  const double proto[3][3] = {{25.654, 99.024, 211.245}, {299.69, 597.54, 891.70}, {182.39, 363.65, 542.67}};
  const double unit[3] = {1e-3, 1e-2, 1e-2};
  const Branch brs[3] = {Branch::bending, Branch::axial, Branch::torsion};
  const std::ptrdiff_t J = 40;
  const double ds = kLength / static_cast<double>(J);
  for (int b = 0; b < 3; ++b) {
    for (int m = 1; m <= 3; ++m) {
      const Measured r = measure(brs[b], m, J, 6.0);
      const double cf = chain(brs[b], sec, 2 * kPi * m / kLength, ds);
      std::printf("%-8s m=%d J=%td dt=%.3e steps=%6ld: Omega=%.7f omega=%.7f  closed form %.7f (rel %+.1e)  "
                  "prototype %.6g (diff %+.1e)\n",
                  name(brs[b]), m, J, r.dt, r.steps, r.Omega, r.omega, cf, r.omega / cf - 1, proto[b][m - 1],
                  r.omega - proto[b][m - 1]);
      EXPECT_NEAR(r.omega, cf, 2e-6 * cf) << name(brs[b]) << " m=" << m;
      EXPECT_NEAR(r.omega, proto[b][m - 1], unit[b]) << name(brs[b]) << " m=" << m;
    }
  }
}

TEST(BeamPeriodic, DispersionConvergesAtOrderTwoToTheContinuum) {
  const Section sec = table1();
  const double k = 2 * kPi / kLength;
  for (Branch br : {Branch::bending, Branch::axial, Branch::torsion}) {
    const double wc = continuum(br, sec, k);
    std::vector<double> err;
    for (std::ptrdiff_t J : {10, 20, 40, 80}) {
      const Measured r = measure(br, 1, J, 6.0);
      err.push_back(r.omega / wc - 1);
      std::printf("%-8s m=1 J=%2td dt=%.3e steps=%6ld: omega=%.7f continuum %.7f rel.err %+.4e\n", name(br), J, r.dt,
                  r.steps, r.omega, wc, err.back());
    }
    std::printf("%-8s orders:", name(br));
    for (std::size_t i = 0; i + 1 < err.size(); ++i) {
      const double p = std::log2(err[i] / err[i + 1]);
      std::printf(" %.4f", p);
      EXPECT_NEAR(p, 2.0, 0.15) << name(br) << " step " << i;
    }
    std::printf("\n");
    if (br == Branch::bending) {
      // prototype: 1.6e-2, 3.9e-3, 9.8e-4, 2.4e-4 (two digits)
      const double spec[4] = {1.6e-2, 3.9e-3, 9.8e-4, 2.4e-4};
      for (std::size_t i = 0; i < 4; ++i) EXPECT_NEAR(err[i], spec[i], 0.05 * spec[i]) << i;
    }
  }
}

TEST(BeamPeriodic, RingConservesAllSixMomentumComponents) {
  // Ring of radius 1/3 (length 2 pi / 3, prestressed: straight reference strain), J = 20, dt = 1e-4 (a fifth
  // of the a-priori bound of the straight beam), 3000 steps with a large random velocity field.
  const std::ptrdiff_t J = 20;
  const double r = kLength / (2 * kPi);
  Stepper st = ring(J, 1e-4);
  const NodeField<SE3> g0 = ring_poses(st.grid(), r);
  st.initialize(g0, random_velocity(g0, 7));
  const InvariantRun run = run_invariants(st, 3000);
  print_run("ring", run);
  std::printf("ring: Newton max %d, mean %.2f\n", st.newton_max(),
              static_cast<double>(st.newton_total()) / (3000.0 * static_cast<double>(J)));
  for (int i = 0; i < 6; ++i) {
    EXPECT_GT(std::abs(run.J0[i]), 1e-3 * run.scale) << "component " << i << " should be non-trivial";
    EXPECT_LT(run.drift[i], 1e-12 * run.scale) << "component " << i;
  }
  EXPECT_LT(run.dE_all, 5e-3 * run.E0);
  EXPECT_LT(run.dE_second_half, 2.0 * run.dE_first_half);  // bounded, no drift
  EXPECT_LT(run.orth, 1e-13);
}

TEST(BeamPeriodic, InfiniteStraightBeamConservesTheMomentaOfItsSymmetries) {
  const std::ptrdiff_t J = 20;
  Stepper st = straight_beam(J, 0.0, nullptr, 1e-4);
  const NodeField<SE3> g0 = straight_poses(st.grid());
  // a spin of 20 rad/s about the axis makes Jang_x (rho J1 small) of the size of the other components
  st.initialize(g0, random_velocity(g0, 11, Vec3(20.0, -1.0, 1.5)));
  const InvariantRun run = run_invariants(st, 3000);
  print_run("straight periodic", run);
  const Vec6 miss = run.last - run.closure_impulse;
  std::printf("straight periodic: J^N - J^0 = (%.6e %.6e %.6e | ...), sum dt (c x N) = (%.6e %.6e %.6e), "
              "difference / scale = (%.1e %.1e %.1e)\n",
              run.last[0], run.last[1], run.last[2], run.closure_impulse[0], run.closure_impulse[1],
              run.closure_impulse[2], miss[0] / run.scale, miss[1] / run.scale, miss[2] / run.scale);
  // linear momentum (3, 4, 5) and the angular momentum about the axis (0): symmetries commuting with the closure
  for (int i : {0, 3, 4, 5}) {
    EXPECT_GT(std::abs(run.J0[i]), 1e-3 * run.scale) << "component " << i << " should be non-trivial";
    EXPECT_LT(run.drift[i], 1e-12 * run.scale) << "component " << i;
  }
  // Jang_y, Jang_z: not symmetries (a rotation about y or z does not commute with the translation closure);
  // they change by dt L e_x x N per step, N the spatial force in the closing segment
  for (int i : {1, 2}) EXPECT_GT(run.drift[i], 1e-6 * run.scale) << "component " << i;
  // ... and the change is exactly the moment of the closing segment's force about the period shift
  for (int i = 0; i < 6; ++i) EXPECT_LT(std::abs(miss[i]), 1e-12 * run.scale) << "component " << i;
  EXPECT_LT(run.dE_all, 5e-3 * run.E0);
  EXPECT_LT(run.dE_second_half, 2.0 * run.dE_first_half);  // bounded, no drift
  EXPECT_LT(run.orth, 1e-13);
}
