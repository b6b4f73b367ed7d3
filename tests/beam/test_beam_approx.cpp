// The `approx` variant of the beam integrator (docs/theory/beam.md "The two variants": the paper's (44) +
// (55)): T^-/+_x = I -/+ ½ ad*_x in the discrete Euler-Poincaré equations and the linearised compatibility
// for the strains. What is checked, each against something independent of the stepper:
//  - one node (no strains): T^+_A mu - T^-_A mu = ad*_A mu is a midpoint Lie-Poisson step, which keeps the se(3)*
//    Casimirs |n|^2 and m.n exactly (|u -/+ ½ u x w|^2 = |u|^2 + ¼|u x w|^2, and the m.n difference cancels);
//    checked to round-off under noise;
//  - one node, deterministic: second order in dt (self-convergence; order 2 only without strains);
//  - one node with noise: strong order about 1 on refined Brownian paths (prototype: ≈ 1.0-1.2);
//  - the beam, deterministic: approx converges to the exact variant's solution at first order in dt (the
//    paper: "agrees to O(dt)"), measured against an exact run at a small step (exact is second order);
//  - the strain drifts from tau^{-1}(g_j^{-1} g_{j+1}) / ds at second order in ds (prototype: 1.1 % for J =
//    20, 0.23 % for J = 40 after 0.5 s);
//  - the energy behaves like that of `exact` (bounded, no drift), and the momentum map is only approximately
//    kept (prototype: ~1 %), not to round-off (so the variant is really in use).
#include <gtest/gtest.h>

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
using lievi::field::Variant;
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

/// A single node (cell layout, J = 1), K = diag(1, 2, 3, 1, 1, 1), common noise on a base grid of
/// 2^-fine (increments summed to dt), variant v.
Stepper single_node(Variant v, double dt, const Vec6& theta, std::uint32_t path, const Vec6& zeta0, int fine = -1) {
  const Grid grid(Layout::cell, 1, 1.0, End::free, End::free);
  const Beam<> b = lievi::test::beam::one_node_body();
  Stepper::Options o;
  o.dt = dt;
  o.variant = v;
  const double base = fine < 0 ? dt : std::ldexp(1.0, -fine);
  const int refine = fine < 0 ? 0 : static_cast<int>(std::lround(std::log2(dt / base)));
  NoiseField<Vec6> nf(grid, theta.isZero() ? NoiseMode::none : NoiseMode::common, theta, {},
                      WienerIncrements(StreamKey{99, path}, base, refine));
  Stepper st(b, grid, o, std::move(nf));
  st.initialize(NodeField<SE3>(1, SE3()), NodeField<Vec6>(1, zeta0));
  return st;
}

/// The bending example's arc (Table 1), free-free, with a smooth non-uniform initial velocity, deterministic.
Stepper arc(Variant v, long J, double dt, Layout layout = Layout::vertex) {
  const Grid grid(layout, J, lievi::test::beam::kTable1Length, End::free, End::free);
  Stepper::Options o;
  o.dt = dt;
  o.variant = v;
  Stepper st(Beam<>::uniform(table1(), grid.n_nodes(), grid.n_segments()), grid, o);
  NodeField<SE3> g0(grid.n_nodes(), SE3());
  NodeField<Vec6> z0(grid.n_nodes(), Vec6::Zero());
  for (std::ptrdiff_t j = 0; j < grid.n_nodes(); ++j) {
    const double s = grid.s(NodeIndex{j});
    g0[NodeIndex{j}] = arc_pose(s);
    z0[NodeIndex{j}] << 0.5 * std::sin(3 * s), 0.2, -0.3 * s, 0.1 * std::cos(s), -0.2, 0.05 * s;
  }
  st.initialize(g0, z0);
  return st;
}

/// max_e |gamma_e - tau^{-1}(g_e^{-1} g_{e+1}) / ds| (the series' strain_consistency).
double strain_consistency(const Stepper& st) {
  double c = 0;
  const auto& grid = st.grid();
  for (std::ptrdiff_t e = 0; e < grid.n_segments(); ++e) {
    const Vec6 from_g =
        Beam<>::relative(st.g()[NodeIndex{e}], st.g()[NodeIndex{e + 1}]) / grid.ds();
    c = std::max(c, (from_g - st.gamma()[lievi::field::SegmentIndex{e}]).cwiseAbs().maxCoeff());
  }
  return c;
}

/// Least-squares slope of log2(err) against log2(dt).
double slope(const std::vector<double>& dts, const std::vector<double>& errs) {
  double sx = 0, sy = 0, sxx = 0, sxy = 0;
  const double n = static_cast<double>(dts.size());
  for (std::size_t i = 0; i < dts.size(); ++i) {
    const double x = std::log2(dts[i]), y = std::log2(errs[i]);
    sx += x, sy += y, sxx += x * x, sxy += x * y;
  }
  return (n * sxy - sx * sy) / (n * sxx - sx * sx);
}

}  // namespace

TEST(BeamApprox, SingleNodeKeepsCasimirsToRoundOffUnderNoise) {
  Vec6 theta, z0;
  theta << 0.3, 0.2, 0.1, 0.1, 0.0, 0.0;
  z0 << 1, 0.5, 0.2, 0.3, 0, 0.1;  // linear part non-zero: |m| is not a Casimir
  Stepper st = single_node(Variant::approx, 1e-3, theta, 0, z0);
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
  std::printf("approx single node, noise: |n|^2 drift %.2e of %.3e, m.n drift %.2e of %.3e, max |M - M0| %.3f, "
              "orth %.2e, Newton max %d\n",
              e_nn, nn0, e_mn, mn0, moved, orth_error(st), st.newton_max());
  EXPECT_GT(moved, 0.1);
  EXPECT_LT(e_nn, 1e-12 * nn0);
  EXPECT_LT(e_mn, 1e-12 * std::abs(mn0));
  EXPECT_LE(orth_error(st), 6e-14);
}

TEST(BeamApprox, SingleNodeIsSecondOrderDeterministic) {
  Vec6 z0;
  z0 << 1, 0.5, 0.2, 0.3, 0, 0.1;
  auto run = [&](int log2_inv_dt) {
    Stepper st = single_node(Variant::approx, std::ldexp(1.0, -log2_inv_dt), Vec6::Zero(), 0, z0);
    for (long n = 0; n < (2L << log2_inv_dt); ++n) EXPECT_TRUE(st.step().ok);  // T = 2
    return st.g()[NodeIndex{0}];
  };
  const SE3 ref = run(13);
  std::vector<double> dts, errs;
  for (int l = 5; l <= 9; ++l) {
    const SE3 g = run(l);
    dts.push_back(std::ldexp(1.0, -l));
    errs.push_back((g.translation() - ref.translation()).norm() + (g.rotation() - ref.rotation()).norm());
  }
  const double order = slope(dts, errs);
  std::printf("approx single node, deterministic: error %.2e at dt = 2^-9, order %.3f\n", errs.back(), order);
  EXPECT_GT(order, 1.85);
  EXPECT_LT(order, 2.15);
}

TEST(BeamApprox, SingleNodeStrongOrderAboutOneOnRefinedBrownianPaths) {
  // The single-node strong-order case of test_beam_noise.cpp with the approx variant: errors of (M~^N, p^N,
  // R^N) at T = 1 against dt = 2^-12 on the same Brownian path, 40 paths; prototype: about 1.0-1.2.
  Vec6 theta, z0;
  theta << 0.3, 0.2, 0.1, 0.1, 0, 0;
  z0 << 1, 0.5, 0.2, 0.3, 0, 0.1;
  const int fine = 12, paths = 40;
  const std::vector<int> levels = {5, 6, 7, 8, 9};
  struct State {
    Vec6 M;
    Vec3 p;
    Mat3 R;
  };
  auto run = [&](int log2_inv_dt, std::uint32_t path) {
    Stepper st = single_node(Variant::approx, std::ldexp(1.0, -log2_inv_dt), theta, path, z0, fine);
    for (long n = 0; n < (1L << log2_inv_dt); ++n) EXPECT_TRUE(st.step().ok);
    return State{st.pre_momentum()[NodeIndex{0}], st.g()[NodeIndex{0}].translation(), st.g()[NodeIndex{0}].rotation()};
  };
  std::vector<double> eM(levels.size(), 0.0), ep(levels.size(), 0.0), eR(levels.size(), 0.0), dts;
  for (int p = 0; p < paths; ++p) {
    const State ref = run(fine, static_cast<std::uint32_t>(p));
    for (std::size_t l = 0; l < levels.size(); ++l) {
      const State x = run(levels[l], static_cast<std::uint32_t>(p));
      eM[l] += (x.M - ref.M).squaredNorm() / paths;
      ep[l] += (x.p - ref.p).squaredNorm() / paths;
      eR[l] += (x.R - ref.R).squaredNorm() / paths;
    }
  }
  for (const int l : levels) dts.push_back(std::ldexp(1.0, -l));
  auto rms = [](std::vector<double> e2) {
    for (double& e : e2) e = std::sqrt(e);
    return e2;
  };
  const double oM = slope(dts, rms(eM)), op = slope(dts, rms(ep)), oR = slope(dts, rms(eR));
  std::printf("approx strong order over %d paths: M~ %.3f, p %.3f, R %.3f (spec about 1.0-1.2)\n", paths, oM, op, oR);
  for (const double o : {oM, op, oR}) {
    EXPECT_GT(o, 0.85);
    EXPECT_LT(o, 1.45);
  }
}

TEST(BeamApprox, BeamAgreesWithExactToFirstOrderInDtAndSecondOrderInDs) {
  // The arc (vertex) with a smooth initial velocity, T = 0.02 s. At fixed ds the approx end positions converge in
  // dt at first order (against an approx run at dt = 1e-5); their limit differs from the exact variant's by
  // O(ds^2) (the paper: "agrees with the exact one to O(dt) in time and O(ds^2) in space"), measured as the
  // gap at dt = 1e-5 for J = 20 and 40 (both variants second order in ds, each to its own semi-discrete
  // limit).
  const double T = 0.02;
  auto ends = [&](Variant v, long J, double dt) {
    Stepper st = arc(v, J, dt);
    const long N = std::lround(T / dt);
    for (long n = 0; n < N; ++n) EXPECT_TRUE(st.step().ok) << n;
    std::vector<double> x;
    for (const long j : {0L, J})
      for (int c = 0; c < 3; ++c) x.push_back(st.g()[NodeIndex{j}].translation()[c]);
    return x;
  };
  auto dist = [](const std::vector<double>& a, const std::vector<double>& b) {
    double d = 0;
    for (std::size_t i = 0; i < a.size(); ++i) d = std::max(d, std::abs(a[i] - b[i]));
    return d;
  };
  const double fine = 1.5625e-6;
  const auto ref = ends(Variant::approx, 20, fine);
  std::vector<double> dts = {2e-4, 1e-4, 5e-5, 2.5e-5, 1.25e-5}, errs;
  for (const double dt : dts) errs.push_back(dist(ends(Variant::approx, 20, dt), ref));
  const double order = slope(dts, errs), last = std::log2(errs[3] / errs[4]);
  const double gap20 = dist(ref, ends(Variant::exact, 20, fine));
  const double gap40 = dist(ends(Variant::approx, 40, fine), ends(Variant::exact, 40, fine));
  const double order_ds = std::log2(gap20 / gap40);
  std::printf("beam, approx at T = %.2f: errors vs dt = %.3g for dt = 2e-4 .. 1.25e-5: %.2e %.2e %.2e %.2e %.2e; "
              "order in dt %.3f (fit), %.3f (last pair); gap to exact J = 20: %.3e, J = 40: %.3e, order in ds %.2f\n",
              T, fine, errs[0], errs[1], errs[2], errs[3], errs[4], order, last, gap20, gap40, order_ds);
  // first order: the pairwise order falls towards 1 as dt shrinks (a second-order part dominates at large dt)
  EXPECT_GT(last, 0.8);
  EXPECT_LT(last, 1.35);
  EXPECT_LT(order, 1.6);
  EXPECT_GT(order_ds, 1.6);
  EXPECT_LT(order_ds, 2.6);
}

TEST(BeamApprox, StrainDriftsFromTheConfigurationsAtSecondOrderInDs) {
  // prototype (Table 1, released from rest, cell layout as the paper's, dt = 1e-4, t = 0.5 s): 1.1 % for
  // J = 20, 0.23 % for J = 40; here the smooth velocity field of `arc` as well.
  std::vector<double> ds, drift;
  for (const long J : {20L, 40L}) {
    Stepper st = arc(Variant::approx, J, 1e-4, Layout::cell);
    double c = 0;
    for (long n = 0; n < 5000; ++n) {
      ASSERT_TRUE(st.step().ok) << n;
      c = std::max(c, strain_consistency(st));
    }
    ds.push_back(st.grid().ds());
    drift.push_back(c);
  }
  const double order = slope(ds, drift);
  std::printf("approx strain consistency over 0.5 s: J = 20: %.3e, J = 40: %.3e (|E6| = 1), order in ds %.2f\n",
              drift[0], drift[1], order);
  EXPECT_GT(drift[1], 1e-6);  // gamma is a state variable of its own, not the configurations' strain
  EXPECT_GT(order, 1.6);
  EXPECT_LT(order, 2.6);
}

TEST(BeamApprox, EnergyBoundedLikeExactMomentumOnlyApproximatelyKept) {
  // The arc (vertex, J = 20), 0.5 s at dt = 1e-4: the centred energy's excursion stays small and of the exact
  // variant's kind; the momentum map drifts (not a discrete Noether variant) but stays within a few percent.
  struct Out {
    double e_dev, j_drift, j_scale;
  };
  auto run = [](Variant v) {
    Stepper st = arc(v, 20, 1e-4);
    const Vec6 J0 = momentum_map(st);
    double e0 = 0, e_dev = 0, j_drift = 0;
    for (long n = 0; n < 5000; ++n) {
      LevelEnergy E;
      EXPECT_TRUE(st.step(&E).ok) << n;
      if (n == 0) e0 = E.E_c();
      e_dev = std::max(e_dev, std::abs(E.E_c() - e0) / e0);
      j_drift = std::max(j_drift, (momentum_map(st) - J0).cwiseAbs().maxCoeff());
    }
    return Out{e_dev, j_drift, J0.cwiseAbs().maxCoeff()};
  };
  const Out ex = run(Variant::exact), ap = run(Variant::approx);
  std::printf("0.5 s: relative E_c excursion exact %.3e, approx %.3e; momentum drift / |J0| exact %.2e, approx %.2e\n",
              ex.e_dev, ap.e_dev, ex.j_drift / ex.j_scale, ap.j_drift / ap.j_scale);
  EXPECT_LT(ap.e_dev, 1e-2);
  EXPECT_LT(ap.j_drift, 0.05 * ap.j_scale);
  EXPECT_GT(ap.j_drift, 1e3 * ex.j_drift);  // approx really is in use (exact keeps J to round-off)
}
