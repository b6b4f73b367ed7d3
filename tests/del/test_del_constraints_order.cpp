// Holonomic constraints (constraints.hpp), measured orders: SHAKE and RATTLE (trapezoid, midpoint) against RK4 of
// the pendulum in angle coordinates (planar, damped planar, spherical).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "constraint_models.hpp"
#include "support/convergence.hpp"

// ---------------------------------------------------------------------------------------------------------------
// Orders against RK4 (h = 1e-4) of the pendulum in angle coordinates.

namespace {

/// Planar pendulum theta'' = -(grav/l) sin - (k/mass) sin cos - (c/mass) theta', x = l sin, y = -l cos; q, qdot at T.
void planar_reference(const PlanarPendulum& m, double c, double th0, double w0, double T, Vec<2>& q, Vec<2>& v) {
  const Eigen::Vector2d y = rk4(Eigen::Vector2d(th0, w0), 1e-4, std::lround(T / 1e-4), [&](const Eigen::Vector2d& s) {
    return Eigen::Vector2d(s(1), -(m.grav / m.l) * std::sin(s(0)) - (m.k / m.mass) * std::sin(s(0)) * std::cos(s(0)) -
                                     (c / m.mass) * s(1));
  });
  q = m.l * Vec<2>(std::sin(y(0)), -std::cos(y(0)));
  v = m.l * y(1) * Vec<2>(std::cos(y(0)), std::sin(y(0)));
}

struct OrderRun {
  std::vector<double> eq, ep;  // position, momentum errors
  double dq_shake_rattle = 0, gmax = 0;
};

template <class Method, class Model>
OrderRun planar_orders(const Model& m, double c, const std::vector<double>& hs, double T, Projection pr) {
  const double th0 = 1.3, w0 = 0.4;
  Vec<2> qref, vref;
  planar_reference(m, c, th0, w0, T, qref, vref);
  OrderRun out;
  for (double h : hs) {
    DelState<2> x, xo;
    x.q = m.l * Vec<2>(std::sin(th0), -std::cos(th0));
    x.p = m.mass * m.l * w0 * Vec<2>(std::cos(th0), std::sin(th0));
    xo = x;
    const Projection other = pr == Projection::rattle ? Projection::shake : Projection::rattle;
    const long N = std::lround(T / h);
    for (long k = 0; k < N; ++k) {
      EXPECT_TRUE(constrained_step<Method>(m, x, h, with(pr)).converged);
      EXPECT_TRUE(constrained_step<Method>(m, xo, h, with(other)).converged);
      out.gmax = std::max(out.gmax, constraint_residual(m, x.q));
      out.dq_shake_rattle = std::max(out.dq_shake_rattle, (x.q - xo.q).cwiseAbs().maxCoeff());
    }
    out.eq.push_back((x.q - qref).norm());
    out.ep.push_back((x.p - m.mass * vref).norm());
  }
  return out;
}

template <class Method, class Model>
void check_planar_order(const Model& m, double c, const char* label) {
  const std::vector<double> hs{0.04, 0.02, 0.01, 0.005};
  for (Projection pr : {Projection::rattle, Projection::shake}) {
    const OrderRun r = planar_orders<Method>(m, c, hs, 2.0, pr);
    const bool rattle = pr == Projection::rattle;
    const double pq = lievi::test::fitted_order(hs, r.eq), pp = lievi::test::fitted_order(hs, r.ep);
    std::printf("%s, %s, %s: q order %.3f, p order %.3f, max |g| %.1e, max |q_S - q_R| %.1e\n  q errors:\n%s  p errors:\n%s",
                label, Method::id, rattle ? "RATTLE" : "SHAKE", pq, pp, r.gmax, r.dq_shake_rattle,
                lievi::test::order_table(hs, r.eq).c_str(), lievi::test::order_table(hs, r.ep).c_str());
    EXPECT_NEAR(pq, 2.0, 0.1) << lievi::test::order_table(hs, r.eq);
    // RATTLE momentum is second order; SHAKE's p = D2 Ld lacks the O(h) multiplier term at q_{k+1}: first order
    EXPECT_NEAR(pp, rattle ? 2.0 : 1.0, 0.15) << lievi::test::order_table(hs, r.ep);
    EXPECT_LT(r.gmax, 1e-12);
    EXPECT_LT(r.dq_shake_rattle, 1e-11);
  }
}

}  // namespace

TEST(ConstraintsOrder, PlanarTrapezoid) { check_planar_order<Trapezoid>(PlanarPendulum{}, 0.0, "planar"); }
TEST(ConstraintsOrder, PlanarMidpoint) { check_planar_order<Midpoint>(PlanarPendulum{}, 0.0, "planar"); }
TEST(ConstraintsOrder, DampedPlanarTrapezoid) {
  check_planar_order<Trapezoid>(DampedPlanarPendulum{}, DampedPlanarPendulum{}.c, "damped planar");
}
TEST(ConstraintsOrder, DampedPlanarMidpoint) {
  check_planar_order<Midpoint>(DampedPlanarPendulum{}, DampedPlanarPendulum{}.c, "damped planar");
}

// Spherical pendulum vs RK4 in spherical coordinates (theta from the downward vertical, phi):
//   theta'' = sin cos phi'^2 - (grav/l) sin theta - (k/mass) sin cos,  phi'' = -2 cot(theta) theta' phi'.
template <class Method>
void check_spherical_order() {
  const SphericalPendulum m;
  const double th0 = 1.0, w0 = 2.0, thd0 = 0.5, T = 1.5;
  using Y = Eigen::Vector4d;  // theta, phi, theta', phi'
  const Y y = rk4(Y(th0, 0.0, thd0, w0), 1e-4, std::lround(T / 1e-4), [&](const Y& s) {
    const double st = std::sin(s(0)), ct = std::cos(s(0));
    return Y(s(2), s(3), st * ct * s(3) * s(3) - (m.grav / m.l) * st - (m.k / m.mass) * st * ct,
             -2.0 * ct / st * s(2) * s(3));
  });
  const Vec<3> qref = m.l * Vec<3>(std::sin(y(0)) * std::cos(y(1)), std::sin(y(0)) * std::sin(y(1)), -std::cos(y(0)));
  const std::vector<double> hs{0.02, 0.01, 0.005};
  std::vector<double> es;
  for (double h : hs) {
    DelState<3> x = spherical_start(m, th0, w0, thd0);
    for (long k = 0, N = std::lround(T / h); k < N; ++k) EXPECT_TRUE(constrained_step<Method>(m, x, h).converged);
    es.push_back((x.q - qref).norm());
  }
  const double p = lievi::test::fitted_order(hs, es);
  std::printf("spherical pendulum, %s RATTLE vs RK4 in (theta, phi): order %.3f\n%s", Method::id, p,
              lievi::test::order_table(hs, es).c_str());
  EXPECT_NEAR(p, 2.0, 0.1) << lievi::test::order_table(hs, es);
}
TEST(ConstraintsOrder, SphericalTrapezoid) { check_spherical_order<Trapezoid>(); }
TEST(ConstraintsOrder, SphericalMidpoint) { check_spherical_order<Midpoint>(); }

