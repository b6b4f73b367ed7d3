// The rolling disk free to tilt (models/nonholonomic.hpp, RollingDisk) under the discrete Lagrange–d'Alembert
// step: against the closed-form steady circular motion (order measured), against the vertical disk when it
// rolls upright in a straight line, energy (order 2, bounded with no drift) and constraints at round-off on a
// nutating motion, and the Newton Jacobian of this q-dependent Lagrangian against central differences.
//
// Steady motion (derived here from the Lagrange–d'Alembert equations of L and A in the header, with
// theta = theta0, phi = phi0 + Omega t, psi = w t, and the contact point on the circle
// x = (R w / Omega) sin(phi), ...: the x, y rows fix the multipliers, the phi and psi rows vanish
// identically, and the theta row is the condition)
//     (I + m R^2) Omega cos(theta0) (w - Omega sin theta0)
//         = m g R sin theta0 - J Omega^2 sin theta0 cos theta0.
// With theta0 = 0.2, Omega = 0.5 (uniform disk m = 1, R = 0.5) the spin is w = 5.39 and the motion is stable
// (a perturbation of thetadot stays a bounded nutation); at larger Omega and small spin it is unstable and a
// test of the closed form over long times would measure the instability, not the scheme.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

#include "lievi/integrators/del/nonholonomic.hpp"
#include "lievi/models/nonholonomic.hpp"
#include "support/convergence.hpp"

using namespace lievi::integrators::del;
using lievi::models::nonholonomic::RollingDisk;
using lievi::models::nonholonomic::VerticalRollingDisk;

namespace {

constexpr double eps = 2.220446049250313e-16;

RollingDisk make_disk() {
  RollingDisk d;
  d.m = 1.0;
  d.R = 0.5;
  d.I = 0.5 * d.m * d.R * d.R;
  d.J = 0.25 * d.m * d.R * d.R;
  d.g = 9.81;
  return d;
}

struct Steady {
  double theta0 = 0.2, Omega = 0.5, phi0 = 0.1, w = 0.0;
  explicit Steady(const RollingDisk& d) {
    const double s = std::sin(theta0), c = std::cos(theta0);
    w = Omega * s +
        (d.m * d.g * d.R * s - d.J * Omega * Omega * s * c) / ((d.I + d.m * d.R * d.R) * Omega * c);
  }
  [[nodiscard]] Vec<5> q(const RollingDisk& d, double t) const {
    const double r = d.R * w / Omega, phi = phi0 + Omega * t;
    return {r * (std::sin(phi) - std::sin(phi0)), -r * (std::cos(phi) - std::cos(phi0)), theta0, phi, w * t};
  }
  [[nodiscard]] Vec<5> qdot(const RollingDisk& d, double thetadot = 0.0) const {
    return {d.R * std::cos(phi0) * w, d.R * std::sin(phi0) * w, thetadot, Omega, w};
  }
};

template <class Method>
std::vector<double> steady_errors(const RollingDisk& d, const Steady& s, const std::vector<double>& hs,
                                  double T) {
  std::vector<double> e;
  for (const double h : hs) {
    DelState<5> x = nonholonomic_state(d, s.q(d, 0.0), s.qdot(d));
    for (long k = 0; k < std::lround(T / h); ++k) {
      const auto r = nonholonomic_step<Method>(d, x, h);
      if (!r.converged) {
        ADD_FAILURE() << describe_nonholonomic_failure(r, k, x.t);
        return e;
      }
    }
    e.push_back((x.q - s.q(d, T)).lpNorm<Eigen::Infinity>());
  }
  return e;
}

}  // namespace

// Steady circular rolling at T = 10 (about 0.8 turns of the heading): order 2 for both discrete Lagrangians.
TEST(RollingDisk, SteadyCircularMotionSecondOrder) {
  const RollingDisk d = make_disk();
  const Steady s(d);
  const std::vector<double> hs = {0.02, 0.01, 0.005};
  const auto em = steady_errors<Midpoint>(d, s, hs, 10.0);
  const auto et = steady_errors<Trapezoid>(d, s, hs, 10.0);
  ASSERT_EQ(em.size(), hs.size());
  ASSERT_EQ(et.size(), hs.size());
  for (const auto* e : {&em, &et}) {
    const double p = lievi::test::fitted_order(hs, *e);
    std::printf("tilting disk, steady motion:\n%s  fitted order %.3f\n",
                lievi::test::order_table(hs, *e).c_str(), p);
    // 0.1: three halvings of an O(h^2) error with an O(h^4) remainder (measured pairwise 2.00)
    EXPECT_NEAR(p, 2.0, 0.1) << lievi::test::order_table(hs, *e);
    // and small: a wrong steady-state condition (e.g. a sign of J) leaves an O(1e-2 .. 1) error at T = 10
    EXPECT_LT(e->back(), 1e-3);
  }
}

// Upright (theta = 0) in a straight line (phidot = 0) the tilting disk is the vertical disk: the two models,
// with (x, y, psi, phi) <-> (x, y, theta, phi), give the same steps to round-off.
TEST(RollingDisk, UprightStraightEqualsVerticalDisk) {
  const RollingDisk d = make_disk();
  VerticalRollingDisk v;
  v.m = d.m;
  v.R = d.R;
  v.I = d.I;
  v.J = d.J;
  const double phi = 0.4, spin = 5.0, h = 0.02;
  DelState<5> a =
      nonholonomic_state(d, Vec<5>(0.1, -0.2, 0.0, phi, 0.3),
                         Vec<5>(d.R * spin * std::cos(phi), d.R * spin * std::sin(phi), 0.0, 0.0, spin));
  DelState<4> b =
      nonholonomic_state(v, Vec<4>(0.1, -0.2, 0.3, phi),
                         Vec<4>(d.R * spin * std::cos(phi), d.R * spin * std::sin(phi), spin, 0.0));
  for (int k = 1; k <= 200; ++k) {
    ASSERT_TRUE(nonholonomic_step<Midpoint>(d, a, h).converged);
    ASSERT_TRUE(nonholonomic_step<Midpoint>(v, b, h).converged);
    const Vec<4> qa(a.q(0), a.q(1), a.q(4), a.q(3));
    // 4 k eps |q|: one rounding of size eps |q| per step in each run
    ASSERT_LT((qa - b.q).lpNorm<Eigen::Infinity>(), 4.0 * k * eps * (1.0 + b.q.lpNorm<Eigen::Infinity>()))
        << k;
    // the upright disk does not tilt (theta -> -theta symmetry; spin 5 > sqrt(g / 3R) = 2.6, the upright disk
    // is stable): theta is only Newton round-off, accumulating at most ~eps per step
    ASSERT_LT(std::abs(a.q(2)), 4.0 * k * eps) << "the upright disk must not tilt";
  }
}

// A nutating motion (the steady motion with thetadot0 = 0.3): energy error O(h^2), and over 1e4 steps (h =
// 0.01) bounded with no drift; constraints at round-off.
TEST(RollingDisk, NutationEnergyBoundedNoDriftConstraintsAtRoundOff) {
  const RollingDisk d = make_disk();
  const Steady s(d);
  const Vec<5> q0 = s.q(d, 0.0), qd0 = s.qdot(d, 0.3);
  const double E0 = energy(d, q0, qd0);
  auto node_energy = [&](const DelState<5>& x) {
    Vec<5> v = Vec<5>::Zero();
    EXPECT_TRUE(velocity_from_momentum(d, x.q, x.p, v));
    return energy(d, x.q, v);
  };
  // order of the max energy error over [0, 5]
  const std::vector<double> hs = {0.02, 0.01, 0.005};
  std::vector<double> emax;
  for (const double h : hs) {
    DelState<5> x = nonholonomic_state(d, q0, qd0);
    double e = 0.0;
    for (long k = 0; k < std::lround(5.0 / h); ++k) {
      ASSERT_TRUE(nonholonomic_step<Midpoint>(d, x, h).converged);
      e = std::max(e, std::abs(node_energy(x) - E0));
    }
    emax.push_back(e);
  }
  const double p = lievi::test::fitted_order(hs, emax);
  std::printf("tilting disk, nutation, max energy error:\n%s  fitted order %.3f\n",
              lievi::test::order_table(hs, emax).c_str(), p);
  // 0.15: O(h^2) with a remainder; measured 2.00
  EXPECT_NEAR(p, 2.0, 0.15) << lievi::test::order_table(hs, emax);

  // long run: maxima of |E - E0| over 10 windows of 1000 steps (2 nutation periods each, ~0.5 s)
  const double h = 0.01;
  DelState<5> x = nonholonomic_state(d, q0, qd0);
  std::vector<double> window(10, 0.0);
  double c_discrete = 0.0, c_node = 0.0;
  for (long k = 1; k <= 10000; ++k) {
    const Vec<5> qk = x.q;
    ASSERT_TRUE(nonholonomic_step<Midpoint>(d, x, h).converged);
    const auto b = static_cast<std::size_t>((k - 1) / 1000);
    window[b] = std::max(window[b], std::abs(node_energy(x) - E0));
    c_discrete = std::max(c_discrete,
                          discrete_constraint_residual(d, qk, x.q) /
                              ((1.0 + d.R) * (qk.lpNorm<Eigen::Infinity>() + x.q.lpNorm<Eigen::Infinity>())));
    Vec<5> v = Vec<5>::Zero();
    velocity_from_momentum(d, x.q, x.p, v);
    c_node = std::max(
        c_node, velocity_constraint_residual(d, x.q, x.p) / ((1.0 + d.R) * v.lpNorm<Eigen::Infinity>()));
  }
  // least-squares slope of the window maxima per window, relative to their mean
  const double mx = 4.5;
  double my = 0.0, sxy = 0.0, sxx = 0.0;
  for (double w : window) my += w / 10.0;
  for (int i = 0; i < 10; ++i) {
    sxy += (i - mx) * (window[static_cast<std::size_t>(i)] - my);
    sxx += (i - mx) * (i - mx);
  }
  const double slope = sxy / sxx / my;
  std::printf(
      "tilting disk 1e4 steps: window max |E - E0| first %.3e last %.3e, relative slope per window %.2e; "
      "discrete constraint %.2e, node constraint %.2e\n",
      window.front(), window.back(), slope, c_discrete, c_node);
  // bounded: every window within 20 % of the first (a drift of even 1e-3 relative per window over 10 windows
  // would still pass, so the slope test below is the sharp one)
  for (double w : window) EXPECT_LT(std::abs(w - window.front()), 0.2 * window.front());
  // no drift: the window maxima change by less than 0.5 % of their size per window (measured ~3e-4, from the
  // quasi-periodic beating of nutation and heading)
  EXPECT_LT(std::abs(slope), 5e-3);
  // 4 eps: a few roundings of terms of size |A| |q| (|A| |qdot| for the node constraint)
  EXPECT_LT(c_discrete, 4.0 * eps);
  EXPECT_LT(c_node, 4.0 * eps);
}

// The Newton Jacobian of this q-dependent Lagrangian (gyroscopic and gravity terms) against central
// differences, both discrete Lagrangians (relative 1e-7: central differences with d = 1e-6 are good to ~1e-9
// relative here).
TEST(RollingDisk, JacobianMatchesFiniteDifferences) {
  const RollingDisk d = make_disk();
  const Steady s(d);
  const DelState<5> x = nonholonomic_state(d, s.q(d, 0.0), s.qdot(d, 0.4));
  Vec<7> z;
  z << x.q + Vec<5>(0.02, -0.01, 0.03, 0.05, 0.2), 0.3, -0.2;
  for (const double h : {0.1, 0.01}) {
    for (int method = 0; method < 2; ++method) {
      Vec<7> F;
      Mat<7> J, Jfd;
      auto res = [&](const Vec<7>& zz, Vec<7>& FF, Mat<7>& JJ) {
        if (method == 0)
          nonholonomic_residual<Midpoint>(d, x.q, x.p, x.t, h, zz, FF, JJ);
        else
          nonholonomic_residual<Trapezoid>(d, x.q, x.p, x.t, h, zz, FF, JJ);
      };
      res(z, F, J);
      for (int j = 0; j < 7; ++j) {
        const double dz = 1e-6 * (1.0 + std::abs(z(j)));
        Vec<7> zp = z, zm = z, Fp, Fm;
        Mat<7> Jd;
        zp(j) += dz;
        zm(j) -= dz;
        res(zp, Fp, Jd);
        res(zm, Fm, Jd);
        Jfd.col(j) = (Fp - Fm) / (2.0 * dz);
      }
      EXPECT_LT((J - Jfd).cwiseAbs().maxCoeff() / J.cwiseAbs().maxCoeff(), 1e-7)
          << "h " << h << " method " << method;
    }
  }
}
