// The vertical rolling disk (models/nonholonomic.hpp) under the discrete Lagrange–d'Alembert step with the
// midpoint discrete constraint: against the closed-form solution of the continuous system (order measured),
// against the closed-form *discrete* solution derived here (every step of a 1e5-step run), constraints at
// round-off and energy exact to round-off.
//
// Continuous solution: thetadot = Omega, phidot = omega constant; the contact point on the circle
//     x(t) = x0 + (R Omega / omega)(sin phi(t) - sin phi0),
//     y(t) = y0 - (R Omega / omega)(cos phi(t) - cos phi0).
//
// Discrete solution (derived here for L = 1/2 qdot.M qdot, M = diag(m, m, I, J), midpoint Ld, so that
// D1 Ld = -M dq_k / h, D2 Ld = M dq_k / h with dq_k = q_{k+1} - q_k). The DLA equations read
//     M (dq_k - dq_{k-1}) / h = A(q_k)^T lambda_k,     A(q_{k+1/2}) dq_k = 0.
// A has no phi column: dphi_k = dphi_{k-1}, so phi_k = phi0 + k dphi exactly. The rows x, y give
// m (dx_k - dx_{k-1})/h = lambda_1, ..., with dx_k = R cos(phi_{k+1/2}) dtheta_k and
// dy_k = R sin(phi_{k+1/2}) dtheta_k. The theta row,
//     I (dtheta_k - dtheta_{k-1})/h = -R (cos phi_k lambda_1 + sin phi_k lambda_2),
// with cos phi_k cos phi_{k+-1/2} + sin phi_k sin phi_{k+-1/2} = cos(dphi/2), becomes
//     (I + m R^2 cos(dphi/2)) (dtheta_k - dtheta_{k-1}) = 0:   dtheta constant.
// The first step from p_0 = M qdot_0 (theta row + R cos phi0 x row + R sin phi0 y row, eliminating lambda_0):
//     dphi = omega h,   dtheta = Omega h (I + m R^2) / (I + m R^2 cos(omega h / 2)),
// and the telescoping sum
//     2 sin(dphi/2) cos(phi0 + (j + 1/2) dphi) = sin(phi0 + (j+1) dphi) - sin(phi0 + j dphi)
// give
//     x_k = x0 + rho (sin phi_k - sin phi0),  y_k = y0 - rho (cos phi_k - cos phi0),
//     rho = R dtheta / (2 sin(dphi/2)):
// the discrete contact point runs exactly on a circle of radius rho = (R Omega / omega)(1 + O(h^2)).
// The node momentum projected onto A(q_k) qdot = 0 (minimum in the metric M) gives
//     thetadot_k = (I dtheta/h + m R^2 cos(dphi/2) dtheta/h) / (I + m R^2) = Omega   exactly,
// and phidot_k = omega: the node velocity, and so the energy, are exact to round-off.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

#include "lievi/integrators/del/nonholonomic.hpp"
#include "lievi/models/nonholonomic.hpp"
#include "support/convergence.hpp"

using namespace lievi::integrators::del;
using lievi::models::nonholonomic::VerticalRollingDisk;

namespace {

constexpr double eps = 2.220446049250313e-16;

/// Uniform disk of mass 1.3 and radius 0.7: I = m R^2 / 2 about the axle, J = m R^2 / 4 about a diameter.
VerticalRollingDisk make_disk() {
  VerticalRollingDisk d;
  d.m = 1.3;
  d.R = 0.7;
  d.I = 0.5 * d.m * d.R * d.R;
  d.J = 0.25 * d.m * d.R * d.R;
  return d;
}

struct DiskStart {
  double x0 = 0.1, y0 = 0.2, theta0 = 0.0, phi0 = 0.2, Omega = 2.0, omega = 0.8;
  [[nodiscard]] Vec<4> q0() const { return {x0, y0, theta0, phi0}; }
  [[nodiscard]] Vec<4> qdot0(double R) const {
    return {R * Omega * std::cos(phi0), R * Omega * std::sin(phi0), Omega, omega};
  }
};

/// Continuous closed form.
Vec<4> exact(const VerticalRollingDisk& d, const DiskStart& s, double t) {
  const double phi = s.phi0 + s.omega * t, r = d.R * s.Omega / s.omega;
  return {s.x0 + r * (std::sin(phi) - std::sin(s.phi0)), s.y0 - r * (std::cos(phi) - std::cos(s.phi0)),
          s.theta0 + s.Omega * t, phi};
}

/// Discrete closed form after k steps of size h.
Vec<4> discrete_exact(const VerticalRollingDisk& d, const DiskStart& s, double h, long k) {
  const double dphi = s.omega * h;
  const double dtheta =
      s.Omega * h * (d.I + d.m * d.R * d.R) / (d.I + d.m * d.R * d.R * std::cos(0.5 * dphi));
  const double rho = d.R * dtheta / (2.0 * std::sin(0.5 * dphi));
  const double phi = s.phi0 + static_cast<double>(k) * dphi;
  return {s.x0 + rho * (std::sin(phi) - std::sin(s.phi0)), s.y0 - rho * (std::cos(phi) - std::cos(s.phi0)),
          s.theta0 + static_cast<double>(k) * dtheta, phi};
}

double disk_energy(const VerticalRollingDisk& d, const Vec<4>& v) {
  return 0.5 * d.m * (v(0) * v(0) + v(1) * v(1)) + 0.5 * d.I * v(2) * v(2) + 0.5 * d.J * v(3) * v(3);
}

Vec<4> node_velocity(const VerticalRollingDisk& d, const DelState<4>& x) {
  return {x.p(0) / d.m, x.p(1) / d.m, x.p(2) / d.I, x.p(3) / d.J};
}

}  // namespace

// (x, y, theta) at T = 5 against the continuous closed form: order 2; phi exact to round-off (the heading is
// free).
TEST(VerticalRollingDisk, ClosedFormSolutionSecondOrder) {
  const VerticalRollingDisk d = make_disk();
  const DiskStart s;
  const double T = 5.0;
  const std::vector<double> hs = {0.04, 0.02, 0.01, 0.005};
  std::vector<double> e_pos, e_theta;
  for (const double h : hs) {
    DelState<4> x = nonholonomic_state(d, s.q0(), s.qdot0(d.R));
    for (long k = 0; k < std::lround(T / h); ++k) ASSERT_TRUE(nonholonomic_step<Midpoint>(d, x, h).converged);
    const Vec<4> qe = exact(d, s, T);
    e_pos.push_back((x.q.head<2>() - qe.head<2>()).lpNorm<Eigen::Infinity>());
    e_theta.push_back(std::abs(x.q(2) - qe(2)));
    // phi: k additions of omega h, each rounded: 4 k eps |phi|
    EXPECT_NEAR(x.q(3), qe(3), 4.0 * (T / h) * eps * std::abs(qe(3)));
  }
  for (const auto* e : {&e_pos, &e_theta}) {
    const double p = lievi::test::fitted_order(hs, *e);
    std::printf("disk:\n%s  fitted order %.3f\n", lievi::test::order_table(hs, *e).c_str(), p);
    // 0.05: the discrete solution is the closed form above, whose error is C h^2 + O(h^4)
    EXPECT_NEAR(p, 2.0, 0.05) << lievi::test::order_table(hs, *e);
  }
}

// Every step of a 1e5-step run (h = 0.01, T = 1000, ~127 turns) against the discrete closed form; the
// discrete constraint, the node velocity constraint and the node velocity (Omega, omega) and energy are exact
// to round-off.
TEST(VerticalRollingDisk, DiscreteClosedFormConstraintsAndEnergyOver1e5Steps) {
  const VerticalRollingDisk d = make_disk();
  const DiskStart s;
  const double h = 0.01;
  const long N = 100000;
  DelState<4> x = nonholonomic_state(d, s.q0(), s.qdot0(d.R));
  const double E0 = disk_energy(d, s.qdot0(d.R));
  double dev = 0.0, c_discrete = 0.0, c_node = 0.0, e_energy = 0.0, e_rates = 0.0;
  for (long k = 1; k <= N; ++k) {
    const Vec<4> q0 = x.q;
    const auto r = nonholonomic_step<Midpoint>(d, x, h);
    ASSERT_TRUE(r.converged) << describe_nonholonomic_failure(r, k, x.t);
    const Vec<4> qd = discrete_exact(d, s, h, k);
    // relative to k eps |q|: each step adds a rounding of size eps |q|, and the closed form's k dtheta
    // carries k eps too
    dev = std::max(dev, (x.q - qd).lpNorm<Eigen::Infinity>() /
                            (static_cast<double>(k) * eps * (1.0 + qd.lpNorm<Eigen::Infinity>())));
    const double Aq = (1.0 + d.R) * (q0.lpNorm<Eigen::Infinity>() + x.q.lpNorm<Eigen::Infinity>());
    c_discrete = std::max(c_discrete, discrete_constraint_residual(d, q0, x.q) / Aq);
    const Vec<4> v = node_velocity(d, x);
    c_node = std::max(
        c_node, velocity_constraint_residual(d, x.q, x.p) / ((1.0 + d.R) * v.lpNorm<Eigen::Infinity>()));
    e_energy = std::max(e_energy, std::abs(disk_energy(d, v) - E0) / E0);
    e_rates = std::max(e_rates, std::max(std::abs(v(2) - s.Omega), std::abs(v(3) - s.omega)));
  }
  std::printf(
      "disk 1e5 steps: |q - q_discrete| / (k eps |q|) %.3f, discrete constraint %.2e, node constraint %.2e, "
      "energy %.2e (relative), |rates - (Omega, omega)| %.2e, |theta| %.0f\n",
      dev, c_discrete, c_node, e_energy, e_rates, x.q(2));
  // 10 k eps |q|: the measured maximum is ~1 (rounding accumulates no faster than one eps |q| per step)
  EXPECT_LT(dev, 10.0);
  // 4 eps: a few roundings of terms of size |A| |q| (measured 0.1 .. 0.5 eps)
  EXPECT_LT(c_discrete, 4.0 * eps);
  EXPECT_LT(c_node, 4.0 * eps);
  // The node velocity is (q_{k+1} - q_k)/h projected, with q_{k+1} - q_k rounded to eps |q| (|q| <= 2000
  // here): |dv| <= eps |q| / h ~ 4.4e-11; energy and rates to 4 eps |q|_max / h relative / absolute
  const double roundoff = 4.0 * eps * 2100.0 / h;
  EXPECT_LT(e_energy, roundoff);
  EXPECT_LT(e_rates, roundoff);
}

// omega = 0: the disk rolls along a straight line; then dtheta = Omega h exactly and the discrete solution is
// the continuous one at the nodes (to round-off).
TEST(VerticalRollingDisk, StraightLineIsExact) {
  const VerticalRollingDisk d = make_disk();
  DiskStart s;
  s.omega = 0.0;
  s.phi0 = 0.7;
  const double h = 0.05;
  DelState<4> x = nonholonomic_state(d, s.q0(), s.qdot0(d.R));
  for (long k = 1; k <= 1000; ++k) {
    ASSERT_TRUE(nonholonomic_step<Midpoint>(d, x, h).converged);
    const double t = static_cast<double>(k) * h;
    const Vec<4> qe(s.x0 + d.R * s.Omega * t * std::cos(s.phi0), s.y0 + d.R * s.Omega * t * std::sin(s.phi0),
                    s.Omega * t, s.phi0);
    // 4 k eps |q|: one rounding of size eps |q| per step
    ASSERT_LT((x.q - qe).lpNorm<Eigen::Infinity>(),
              4.0 * static_cast<double>(k) * eps * (1.0 + qe.lpNorm<Eigen::Infinity>()))
        << "step " << k;
  }
}

// The trapezoid discrete Lagrangian equals the midpoint one when L does not depend on q (both are h L(dq/h)):
// the two steppers must agree to round-off.
TEST(VerticalRollingDisk, TrapezoidEqualsMidpointForFlatLagrangian) {
  const VerticalRollingDisk d = make_disk();
  const DiskStart s;
  DelState<4> a = nonholonomic_state(d, s.q0(), s.qdot0(d.R)), b = a;
  for (int k = 0; k < 100; ++k) {
    ASSERT_TRUE(nonholonomic_step<Midpoint>(d, a, 0.02).converged);
    ASSERT_TRUE(nonholonomic_step<Trapezoid>(d, b, 0.02).converged);
  }
  // 1e-13: 100 steps of Newton round-off (terms ~1, ~1e-15 each)
  EXPECT_LT((a.q - b.q).lpNorm<Eigen::Infinity>(), 1e-13);
  EXPECT_LT((a.p - b.p).lpNorm<Eigen::Infinity>(), 1e-13);
}
