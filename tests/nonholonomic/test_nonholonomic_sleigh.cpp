// The Chaplygin sleigh (models/nonholonomic.hpp) under the discrete Lagrange–d'Alembert step with the
// midpoint discrete constraint (integrators/del/nonholonomic.hpp): against its closed-form solution (order
// measured as a log-log slope), the discrete constraint and the velocity constraint at the nodes over 1e5
// steps, and energy (order 2 error, no drift).
//
// Closed form (derived here). q = (x, y, theta), (x, y) the centre of mass, blade at distance a behind it;
// v = e1 . (xdot, ydot), omega = thetadot, J = I + m a^2. The reduced equations v' = a omega^2,
// omega' = -(m a / J) v omega conserve E = 1/2 m v^2 + 1/2 J omega^2, so omega^2 = (2E - m v^2)/J and
//     v' = (a m / J)(v_inf^2 - v^2),  v_inf = sqrt(2E/m)   =>   v(t) = v_inf tanh(k t + c),
// k = a m v_inf / J, c = atanh(v0 / v_inf). Then omega'/omega = -k tanh(k t + c) gives
//     omega(t) = omega0 cosh(c) / cosh(k t + c),
//     theta(t) = theta0 + (omega0 cosh(c) / k) [atan(sinh(k t + c)) - atan(sinh(c))]
// (since the integral of sech is atan sinh).
// The centre of mass moves with (xdot, ydot) = v e1 + a omega e2 (the contact point moves along e1), so
//     x(t) = x0 + int_0^t v cos(theta) ds + a (cos theta(t) - cos theta0),
//     y(t) = y0 + int_0^t v sin(theta) ds + a (sin theta(t) - sin theta0),
// the integrals by composite 5-point Gauss–Legendre quadrature of the closed-form integrand (error < 1e-14
// here).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

#include "lievi/integrators/del/nonholonomic.hpp"
#include "lievi/models/nonholonomic.hpp"
#include "support/convergence.hpp"

using namespace lievi::integrators::del;
using lievi::models::nonholonomic::ChaplyginSleigh;

namespace {

constexpr double eps = 2.220446049250313e-16;

/// The closed-form sleigh solution above, for v0 in (-v_inf, v_inf) and a > 0.
struct SleighExact {
  ChaplyginSleigh s;
  double x0, y0, theta0, v0, omega0;
  double J, E, v_inf, k, c;
  SleighExact(const ChaplyginSleigh& s_, double x0_, double y0_, double th0, double v0_, double w0)
      : s(s_), x0(x0_), y0(y0_), theta0(th0), v0(v0_), omega0(w0) {
    J = s.I + s.m * s.a * s.a;
    E = 0.5 * s.m * v0 * v0 + 0.5 * J * omega0 * omega0;
    v_inf = std::sqrt(2.0 * E / s.m);
    k = s.a * s.m * v_inf / J;
    c = std::atanh(v0 / v_inf);
  }
  [[nodiscard]] double v(double t) const { return v_inf * std::tanh(k * t + c); }
  [[nodiscard]] double omega(double t) const { return omega0 * std::cosh(c) / std::cosh(k * t + c); }
  [[nodiscard]] double theta(double t) const {
    return theta0 + (omega0 * std::cosh(c) / k) * (std::atan(std::sinh(k * t + c)) - std::atan(std::sinh(c)));
  }
  /// (x, y) of the centre of mass at t.
  [[nodiscard]] Eigen::Vector2d position(double t) const {
    // 5-point Gauss–Legendre nodes and weights on [-1, 1] (Abramowitz & Stegun, Table 25.4).
    static constexpr double xi[5] = {0.0, 0.5384693101056831, -0.5384693101056831, 0.9061798459386640,
                                     -0.9061798459386640};
    static constexpr double wi[5] = {0.5688888888888889, 0.4786286704993665, 0.4786286704993665,
                                     0.2369268850561891, 0.2369268850561891};
    const int panels = std::max(1, static_cast<int>(std::ceil(t / 0.01)));
    const double dt = t / panels;
    double ix = 0.0, iy = 0.0;
    for (int j = 0; j < panels; ++j)
      for (int i = 0; i < 5; ++i) {
        const double s_ = (j + 0.5 + 0.5 * xi[i]) * dt;
        ix += 0.5 * dt * wi[i] * v(s_) * std::cos(theta(s_));
        iy += 0.5 * dt * wi[i] * v(s_) * std::sin(theta(s_));
      }
    return {x0 + ix + s.a * (std::cos(theta(t)) - std::cos(theta0)),
            y0 + iy + s.a * (std::sin(theta(t)) - std::sin(theta0))};
  }
  /// The centre-of-mass velocity at t = 0: v0 e1 + a omega0 e2 (on the constraint).
  [[nodiscard]] Vec<3> qdot0() const {
    return {v0 * std::cos(theta0) - s.a * omega0 * std::sin(theta0),
            v0 * std::sin(theta0) + s.a * omega0 * std::cos(theta0), omega0};
  }
  [[nodiscard]] Vec<3> q0() const { return {x0, y0, theta0}; }
};

const ChaplyginSleigh kSleigh{1.0, 0.1, 0.5};  // m, I, a: J = 0.35, strongly turning at the start

/// The node velocity qdot(q_k, p_k) (L is quadratic with constant metric: qdot = M^{-1} p).
Vec<3> node_velocity(const ChaplyginSleigh& s, const DelState<3>& x) {
  return {x.p(0) / s.m, x.p(1) / s.m, x.p(2) / s.I};
}

double sleigh_energy(const ChaplyginSleigh& s, const Vec<3>& qd) {
  return 0.5 * s.m * (qd(0) * qd(0) + qd(1) * qd(1)) + 0.5 * s.I * qd(2) * qd(2);
}

}  // namespace

// theta, (x, y), v and omega at T = 4 against the closed form for h = 0.04 ... 0.005; the scheme is second
// order in every one (the momentum with the node projection, NonholonomicOptions::project_momentum).
TEST(ChaplyginSleigh, ClosedFormSolutionSecondOrder) {
  const SleighExact ex(kSleigh, 0.2, -0.1, 0.3, 0.5, 1.0);
  ASSERT_LT(std::abs(ex.v0), ex.v_inf);
  const double T = 4.0;
  const std::vector<double> hs = {0.04, 0.02, 0.01, 0.005};
  std::vector<double> e_theta, e_pos, e_v, e_omega, e_energy;
  for (const double h : hs) {
    DelState<3> x = nonholonomic_state(kSleigh, ex.q0(), ex.qdot0());
    double emax = 0.0;
    const long N = std::lround(T / h);
    for (long k = 0; k < N; ++k) {
      const auto r = nonholonomic_step<Midpoint>(kSleigh, x, h);
      ASSERT_TRUE(r.converged) << r.message;
      emax = std::max(emax, std::abs(sleigh_energy(kSleigh, node_velocity(kSleigh, x)) - ex.E));
    }
    const Vec<3> qd = node_velocity(kSleigh, x);
    const double th = x.q(2);
    e_theta.push_back(std::abs(th - ex.theta(T)));
    e_pos.push_back((x.q.head<2>() - ex.position(T)).lpNorm<Eigen::Infinity>());
    e_v.push_back(std::abs(std::cos(th) * qd(0) + std::sin(th) * qd(1) - ex.v(T)));
    e_omega.push_back(std::abs(qd(2) - ex.omega(T)));
    e_energy.push_back(emax);
  }
  const char* names[5] = {"theta", "(x, y)", "v", "omega", "max energy error"};
  const std::vector<double>* errs[5] = {&e_theta, &e_pos, &e_v, &e_omega, &e_energy};
  for (int i = 0; i < 5; ++i) {
    const double p = lievi::test::fitted_order(hs, *errs[i]);
    std::printf("sleigh %s:\n%s  fitted order %.3f\n", names[i],
                lievi::test::order_table(hs, *errs[i]).c_str(), p);
    // 0.1: four halvings of an O(h^2) error with an O(h^4) remainder (the pairwise orders are 1.99-2.01)
    EXPECT_NEAR(p, 2.0, 0.1) << names[i] << "\n" << lievi::test::order_table(hs, *errs[i]);
  }
  // the error is small in absolute terms too: h = 0.01 errors are ~1e-7 .. 6e-7 (a wrong closed form or a
  // wrong sign of a would give O(1) errors with any slope)
  EXPECT_LT(e_pos[2], 1e-5);
  EXPECT_LT(e_omega[2], 1e-5);
}

// Without the node projection the trajectory is the same but p_k = D2 Ld(q_{k-1}, q_k) is the one-sided
// momentum: omega from it is first order (it is the mean of omega over [t_{k-1}, t_k], off by (h/2) omega').
TEST(ChaplyginSleigh, OneSidedMomentumIsFirstOrderSameTrajectory) {
  const SleighExact ex(kSleigh, 0.0, 0.0, 0.3, 0.5, 1.0);
  const double T = 2.0;
  const std::vector<double> hs = {0.02, 0.01, 0.005};
  std::vector<double> e_omega;
  NonholonomicOptions raw;
  raw.project_momentum = false;
  for (const double h : hs) {
    DelState<3> x = nonholonomic_state(kSleigh, ex.q0(), ex.qdot0()), y = x;
    double dq = 0.0;
    for (long k = 0; k < std::lround(T / h); ++k) {
      ASSERT_TRUE(nonholonomic_step<Midpoint>(kSleigh, x, h, raw).converged);
      ASSERT_TRUE(nonholonomic_step<Midpoint>(kSleigh, y, h).converged);
      dq = std::max(dq, (x.q - y.q).lpNorm<Eigen::Infinity>());
    }
    // the projection only moves A(q)^T mu into the next lambda: same q up to Newton round-off (~1e-15 per
    // step)
    EXPECT_LT(dq, 1e-12);
    e_omega.push_back(std::abs(x.p(2) / kSleigh.I - ex.omega(x.t)));
  }
  const double p = lievi::test::fitted_order(hs, e_omega);
  // 0.1: a first-order error with an O(h^2) remainder
  EXPECT_NEAR(p, 1.0, 0.1) << lievi::test::order_table(hs, e_omega);
}

// 1e5 steps (h = 0.01, T = 1000: the sleigh turns, then settles on a straight line): the discrete constraint
// A(q_mid)(q_{k+1} - q_k) = 0 and the velocity constraint at the nodes hold to round-off at every step;
// energy has an O(h^2) error that stops changing (no drift) once the motion is straight.
TEST(ChaplyginSleigh, ConstraintsAtRoundOffAndEnergyNoDriftOver1e5Steps) {
  const SleighExact ex(kSleigh, 0.0, 0.0, 0.3, 0.5, 1.0);
  const double h = 0.01;
  const long N = 100000;
  DelState<3> x = nonholonomic_state(kSleigh, ex.q0(), ex.qdot0());
  double c_discrete = 0.0, c_node = 0.0, emax = 0.0, e_half = 0.0, drift = 0.0;
  for (long k = 1; k <= N; ++k) {
    const Vec<3> q0 = x.q;
    const auto r = nonholonomic_step<Midpoint>(kSleigh, x, h);
    ASSERT_TRUE(r.converged) << describe_nonholonomic_failure(r, k, x.t);
    // relative to the size of the terms, |A| |q| (|A|_inf = 1 + a): the position grows to |q| ~ 750
    c_discrete = std::max(
        c_discrete, discrete_constraint_residual(kSleigh, q0, x.q) /
                        ((1.0 + kSleigh.a) * (q0.lpNorm<Eigen::Infinity>() + x.q.lpNorm<Eigen::Infinity>())));
    const Vec<3> qd = node_velocity(kSleigh, x);
    c_node = std::max(c_node, velocity_constraint_residual(kSleigh, x.q, x.p) /
                                  ((1.0 + kSleigh.a) * qd.lpNorm<Eigen::Infinity>()));
    const double e = sleigh_energy(kSleigh, qd) - ex.E;
    emax = std::max(emax, std::abs(e));
    if (k == N / 2) e_half = e;
    if (k > N / 2) drift = std::max(drift, std::abs(e - e_half));
  }
  std::printf(
      "sleigh 1e5 steps: discrete constraint %.2e, node constraint %.2e (relative), max |E - E0| %.3e, "
      "second-half drift %.2e, |q| %.1f\n",
      c_discrete, c_node, emax, drift, x.q.lpNorm<Eigen::Infinity>());
  // 4 eps: the residual of a converged solve is a few roundings of terms of size |A| |q| (measured 4.7e-17 =
  // 0.2 eps)
  EXPECT_LT(c_discrete, 4.0 * eps);
  EXPECT_LT(c_node, 4.0 * eps);
  // O(h^2) energy error, measured 3.1e-7 = 0.0104 h^2 E0 with E0 = 0.3 (and the same 0.0104 h^2 E0 at
  // h = 0.04 ... 0.005, ClosedFormSolutionSecondOrder); the bound 0.03 h^2 E0 leaves a factor 3
  EXPECT_LT(emax, 0.03 * h * h * ex.E);
  // no drift: once the motion is a straight line the energy only carries the rounding of the node velocity,
  // (q_{k+1} - q_k)/h with q_{k+1} - q_k rounded to eps |q|: |dE| <= m |v| eps |q| / h per step, not
  // accumulated (v is recomputed from the positions); 4x that bound at the final |q| (measured 4.3e-12
  // against 5.1e-11)
  EXPECT_LT(drift, 4.0 * kSleigh.m * ex.v_inf * eps * x.q.lpNorm<Eigen::Infinity>() / h);
}

// The sleigh going backwards (v0 < 0) is the same closed form (v tends to +v_inf through zero): checked at
// T = 6.
TEST(ChaplyginSleigh, BackwardStartCrossesZeroSpeed) {
  const SleighExact ex(kSleigh, 0.0, 0.0, -1.0, -0.4, 0.8);
  const double h = 0.005, T = 6.0;
  DelState<3> x = nonholonomic_state(kSleigh, ex.q0(), ex.qdot0());
  for (long k = 0; k < std::lround(T / h); ++k)
    ASSERT_TRUE(nonholonomic_step<Midpoint>(kSleigh, x, h).converged);
  const Vec<3> qd = node_velocity(kSleigh, x);
  const double v = std::cos(x.q(2)) * qd(0) + std::sin(x.q(2)) * qd(1);
  ASSERT_GT(v, 0.0);  // the speed has changed sign
  // 1e-5: the O(h^2) global error at h = 0.005 (C h^2 with C ~ 0.1 .. 0.4 from the convergence test)
  EXPECT_NEAR(x.q(2), ex.theta(T), 1e-5);
  EXPECT_NEAR(v, ex.v(T), 1e-5);
  EXPECT_NEAR(qd(2), ex.omega(T), 1e-5);
  EXPECT_LT((x.q.head<2>() - ex.position(T)).lpNorm<Eigen::Infinity>(), 1e-5);
}
