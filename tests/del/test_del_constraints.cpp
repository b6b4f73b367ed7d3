// Holonomic constraints (constraints.hpp): SHAKE and RATTLE on the spherical pendulum in Cartesian coordinates
// (constraint, Noether Lz, energy, hidden constraint over 1e5 steps), SHAKE = RATTLE in q, equality with the
// classical RATTLE (HLW VII.1) and the two-step SHAKE position form written out here in closed form, measured
// orders against RK4 of the pendulum in angle coordinates (planar, damped planar, spherical), a non-quadratic
// Lagrangian (general inverse-Legendre projection), diagnostics and project_initial.
#include <gtest/gtest.h>
#include <Eigen/Geometry>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "lievi/integrators/del/constraints.hpp"
#include "support/convergence.hpp"

using namespace lievi::integrators::del;
using lievi::StepResult;

namespace {

constexpr double eps = 2.220446049250313e-16;

/// Spherical pendulum, q in R^3: L = 1/2 mass |v|^2 - mass grav z - (k/2)(x^2 + y^2) (an axisymmetric spring, so
/// that V is not linear and midpoint differs from trapezoid), g(q) = (|q|^2 - l^2)/2.
struct SphericalPendulum {
  static constexpr int dim = 3;
  static constexpr int n_constraints = 1;
  double mass = 1.3, grav = 9.81, l = 1.0, k = 3.0;
  template <class S>
  S L(const Eigen::Matrix<S, 3, 1>& q, const Eigen::Matrix<S, 3, 1>& v) const {
    return 0.5 * mass * v.squaredNorm() - mass * grav * q(2) - 0.5 * k * (q(0) * q(0) + q(1) * q(1));
  }
  Vec<3> gradV(const Vec<3>& q) const { return Vec<3>(k * q(0), k * q(1), mass * grav); }
  template <class S>
  Eigen::Matrix<S, 1, 1> g(const Eigen::Matrix<S, 3, 1>& q) const {
    Eigen::Matrix<S, 1, 1> r;
    r(0) = 0.5 * (q.squaredNorm() - l * l);
    return r;
  }
};

/// Planar pendulum with a horizontal spring, q in R^2 (y up): L = 1/2 mass |v|^2, V = mass grav y + (k/2) x^2,
/// optional damping f = -c v (DampedPlanarPendulum).
struct PlanarPendulum {
  static constexpr int dim = 2;
  static constexpr int n_constraints = 1;
  double mass = 0.7, grav = 9.81, l = 1.2, k = 2.0;
  template <class S>
  S L(const Eigen::Matrix<S, 2, 1>&, const Eigen::Matrix<S, 2, 1>& v) const {
    return 0.5 * mass * v.squaredNorm();
  }
  template <class S>
  S V(const Eigen::Matrix<S, 2, 1>& q) const {
    return mass * grav * q(1) + 0.5 * k * q(0) * q(0);
  }
  template <class S>
  Eigen::Matrix<S, 1, 1> g(const Eigen::Matrix<S, 2, 1>& q) const {
    Eigen::Matrix<S, 1, 1> r;
    r(0) = 0.5 * (q.squaredNorm() - l * l);
    return r;
  }
};

struct DampedPlanarPendulum : PlanarPendulum {
  double c = 0.3;
  template <class S>
  Eigen::Matrix<S, 2, 1> f(const Eigen::Matrix<S, 2, 1>&, const Eigen::Matrix<S, 2, 1>& v, double) const {
    return -c * v;
  }
};

/// Non-quadratic kinetic term L = 1/2 |v|^2 + (eps4/4) |v|^4 - grav y on the circle: p = (1 + eps4 |v|^2) v.
struct QuarticPendulum {
  static constexpr int dim = 2;
  static constexpr int n_constraints = 1;
  double eps4 = 0.2, grav = 9.81, l = 1.0;
  template <class S>
  S L(const Eigen::Matrix<S, 2, 1>& q, const Eigen::Matrix<S, 2, 1>& v) const {
    const S v2 = v.squaredNorm();
    return 0.5 * v2 + 0.25 * eps4 * v2 * v2 - grav * q(1);
  }
  template <class S>
  Eigen::Matrix<S, 1, 1> g(const Eigen::Matrix<S, 2, 1>& q) const {
    Eigen::Matrix<S, 1, 1> r;
    r(0) = 0.5 * (q.squaredNorm() - l * l);
    return r;
  }
};

/// The same constraint twice: G has rank 1 < 2.
struct DuplicateConstraint : SphericalPendulum {
  static constexpr int n_constraints = 2;
  template <class S>
  Eigen::Matrix<S, 2, 1> g(const Eigen::Matrix<S, 3, 1>& q) const {
    Eigen::Matrix<S, 2, 1> r;
    r(0) = 0.5 * (q.squaredNorm() - l * l);
    r(1) = r(0);
    return r;
  }
};

/// Anisotropic mass diag(1, 2, 3) on the unit sphere (for the kinetic-metric projection).
struct AnisotropicSphere {
  static constexpr int dim = 3;
  static constexpr int n_constraints = 1;
  template <class S>
  S L(const Eigen::Matrix<S, 3, 1>&, const Eigen::Matrix<S, 3, 1>& v) const {
    return 0.5 * (v(0) * v(0) + 2.0 * v(1) * v(1) + 3.0 * v(2) * v(2));
  }
  template <class S>
  Eigen::Matrix<S, 1, 1> g(const Eigen::Matrix<S, 3, 1>& q) const {
    Eigen::Matrix<S, 1, 1> r;
    r(0) = 0.5 * (q.squaredNorm() - 1.0);
    return r;
  }
};

static_assert(ConstrainedModel<SphericalPendulum>);
static_assert(ConstrainedModel<DampedPlanarPendulum>);
static_assert(ConstrainedModel<DuplicateConstraint>);
static_assert(!ConstrainedModel<DelState<3>>);

struct NotConstrained {  // a LagrangianModel without g
  static constexpr int dim = 2;
  template <class S>
  S L(const Eigen::Matrix<S, 2, 1>&, const Eigen::Matrix<S, 2, 1>& v) const {
    return 0.5 * v.squaredNorm();
  }
};
static_assert(LagrangianModel<NotConstrained> && !ConstrainedModel<NotConstrained>);

/// Spherical pendulum start: polar angle theta0 from the downward vertical, azimuthal speed w (tangent).
DelState<3> spherical_start(const SphericalPendulum& m, double theta0, double w, double thetadot0 = 0.0) {
  DelState<3> x;
  x.q = m.l * Vec<3>(std::sin(theta0), 0.0, -std::cos(theta0));
  const Vec<3> v = m.l * Vec<3>(std::cos(theta0) * thetadot0, std::sin(theta0) * w, std::sin(theta0) * thetadot0);
  x.p = m.mass * v;
  return x;
}

ConstraintOptions with(Projection pr) {
  ConstraintOptions o;
  o.projection = pr;
  return o;
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

/// Classical RK4 of y' = f(y) on a fixed-size vector, N steps of size h.
template <class Y, class F>
Y rk4(Y y, double h, long N, F&& f) {
  for (long k = 0; k < N; ++k) {
    const Y k1 = f(y), k2 = f(Y(y + 0.5 * h * k1)), k3 = f(Y(y + 0.5 * h * k2)), k4 = f(Y(y + h * k3));
    y += h / 6.0 * (k1 + 2.0 * k2 + 2.0 * k3 + k4);
  }
  return y;
}

}  // namespace

// ---------------------------------------------------------------------------------------------------------------
// Long run: spherical pendulum, trapezoid, h = 0.01, 1e5 steps (t = 1000, ~500 swings), SHAKE and RATTLE.
TEST(Constraints, SphericalPendulumLongRun) {
  const SphericalPendulum m;
  const double h = 0.01;
  const long N = 100000;
  const DelState<3> x0 = spherical_start(m, 1.0, 2.0, 0.5);
  DelState<3> xs = x0, xr = x0;
  auto Lz = [](const DelState<3>& x) { return x.q(0) * x.p(1) - x.q(1) * x.p(0); };
  auto E = [&](const DelState<3>& x) {
    return x.p.squaredNorm() / (2 * m.mass) + m.mass * m.grav * x.q(2) + 0.5 * m.k * x.q.head<2>().squaredNorm();
  };
  const double Lz0 = Lz(x0), E0 = E(x0);
  double gmax_s = 0, gmax_r = 0, dLz_s = 0, dLz_r = 0, hidden_r = 0, hidden_s = 0, dq = 0, perp = 0;
  double dE_r = 0, dE_s = 0, mean_first = 0, mean_last = 0;
  const long win = N / 10;
  const auto t0 = std::chrono::steady_clock::now();
  for (long k = 1; k <= N; ++k) {
    const StepResult rs = constrained_step<Trapezoid>(m, xs, h, with(Projection::shake));
    const StepResult rr = constrained_step<Trapezoid>(m, xr, h, with(Projection::rattle));
    ASSERT_TRUE(rs.converged && rr.converged) << k << " " << rs.message << " " << rr.message;
    gmax_s = std::max(gmax_s, constraint_residual(m, xs.q));
    gmax_r = std::max(gmax_r, constraint_residual(m, xr.q));
    dLz_s = std::max(dLz_s, std::abs(Lz(xs) - Lz0));
    dLz_r = std::max(dLz_r, std::abs(Lz(xr) - Lz0));
    hidden_r = std::max(hidden_r, std::abs(xr.q.dot(xr.p)));
    hidden_s = std::max(hidden_s, std::abs(xs.q.dot(xs.p)));
    dq = std::max(dq, (xs.q - xr.q).cwiseAbs().maxCoeff());
    // p_R - p_S = mu G^T = mu q: its component orthogonal to q vanishes
    const Vec<3> dp = xr.p - xs.p;
    perp = std::max(perp, (dp - dp.dot(xr.q) / xr.q.squaredNorm() * xr.q).cwiseAbs().maxCoeff());
    const double er = E(xr) - E0;
    dE_r = std::max(dE_r, std::abs(er));
    dE_s = std::max(dE_s, std::abs(E(xs) - E0));
    if (k <= win) mean_first += er / win;
    if (k > N - win) mean_last += er / win;
  }
  const double secs = seconds_since(t0);
  std::printf("spherical pendulum, trapezoid, h = %.3g, %ld steps (%.2f s for SHAKE + RATTLE):\n", h, N, secs);
  std::printf("  max |g|: SHAKE %.2e, RATTLE %.2e\n", gmax_s, gmax_r);
  std::printf("  max |Lz - Lz0| (Lz0 = %.4f): SHAKE %.2e, RATTLE %.2e\n", Lz0, dLz_s, dLz_r);
  std::printf("  max |q.p|: RATTLE %.2e (SHAKE %.2e, O(h))\n", hidden_r, hidden_s);
  std::printf("  max |E - E0| (E0 = %.4f): RATTLE %.2e, SHAKE momentum %.2e; RATTLE mean of E - E0 over the "
              "first/last 10%%: %.4e / %.4e (difference %.1e)\n", E0, dE_r, dE_s, mean_first, mean_last,
              mean_last - mean_first);
  std::printf("  max |q_SHAKE - q_RATTLE| %.2e, max |(p_R - p_S) orthogonal to G^T| %.2e\n", dq, perp);
  EXPECT_LT(gmax_s, 1e-12);
  EXPECT_LT(gmax_r, 1e-12);
  // Noether: Lz is conserved exactly by the map; round-off does a random walk ~ sqrt(N) eps |q||p| per unit.
  const double scale = x0.q.norm() * x0.p.norm();
  const double lz_bound = 10.0 * std::sqrt(double(N)) * eps * scale;
  std::printf("  Lz bound 10 sqrt(N) eps |q||p| = %.2e\n", lz_bound);
  EXPECT_LT(dLz_s, lz_bound);
  EXPECT_LT(dLz_r, lz_bound);
  EXPECT_LT(hidden_r, 1e-13);
  EXPECT_GT(hidden_s, 1e-3);  // SHAKE momentum is off the cotangent space by O(h)
  // energy: O(h^2) oscillation, no secular drift (the window means agree to a small fraction of the oscillation)
  EXPECT_LT(dE_r, 0.05 * std::abs(E0) + 1e-2);
  EXPECT_LT(std::abs(mean_last - mean_first), 0.05 * dE_r);
  EXPECT_LT(dq, 1e-8);
  EXPECT_LT(perp, 1e-8);
}

// ---------------------------------------------------------------------------------------------------------------
// Trapezoid + L = 1/2 m|v|^2 - V = classical RATTLE (Andersen 1983; HLW VII.1 (1.26)):
//   p_{1/2} = p_n - h/2 (grad V(q_n) + G(q_n)^T L_n),  q_{n+1} = q_n + h p_{1/2}/m,  g(q_{n+1}) = 0,
//   p_{n+1} = p_{1/2} - h/2 (grad V(q_{n+1}) + G(q_{n+1})^T M_n),  G(q_{n+1}) p_{n+1} / m = 0,
// solved here in closed form for the sphere (G^T = q): with a = q_n + h (p_n - h/2 grad V)/m and c = h^2 L_n/(2m),
// |a - c q_n|^2 = l^2 has the small root c = (|a|^2 - l^2) / (a.q_n + sqrt((a.q_n)^2 - |q_n|^2 (|a|^2 - l^2))),
// and h M_n/2 = q_{n+1}.b / |q_{n+1}|^2 with
// b = p_{1/2} - h/2 grad V(q_{n+1}). SHAKE in its two-step position form
//   q_{n+1} = 2 q_n - q_{n-1} - h^2/m (grad V(q_n) + G(q_n)^T L_n),  g(q_{n+1}) = 0,
// is solved the same way. The library multipliers are lambda = (h/2) L_n, mu = -(h/2) M_n.
TEST(Constraints, TrapezoidIsClassicalRattleAndShake) {
  const SphericalPendulum m;
  const double h = 0.01, l2 = m.l * m.l;
  // q_{n+1} = a - c q_n on the sphere: the small root of |q_n|^2 c^2 - 2 (a.q_n) c + |a|^2 - l^2 = 0
  auto on_sphere = [&](const Vec<3>& a, const Vec<3>& qn, double& c) {
    const double aq = a.dot(qn), qq = qn.squaredNorm(), r = a.squaredNorm() - l2;
    c = r / (aq + std::sqrt(aq * aq - qq * r));
    return Vec<3>(a - c * qn);
  };
  DelState<3> x = spherical_start(m, 0.8, 1.5, -0.7), xs = x;
  Vec<3> q = x.q, p = x.p;           // classical RATTLE
  Vec<3> qs_prev = x.q, qs = x.q;    // two-step SHAKE (q_{n-1}, q_n)
  double dqr = 0, dpr = 0, dlam = 0, dmu = 0, dqs = 0, dps = 0, first = 0;
  for (int k = 0; k < 10000; ++k) {
    ConstraintMultipliers<1> mr, ms;
    ASSERT_TRUE(constrained_step<Trapezoid>(m, x, h, with(Projection::rattle), mr).converged) << k;
    ASSERT_TRUE(constrained_step<Trapezoid>(m, xs, h, with(Projection::shake), ms).converged) << k;
    // classical RATTLE
    double c = 0;
    const Vec<3> qn = q;
    const Vec<3> a = q + h * (p - 0.5 * h * m.gradV(qn)) / m.mass;
    q = on_sphere(a, qn, c);                          // c = h^2 L_n / (2 m)
    const Vec<3> phalf = m.mass * (q - qn) / h;       // = p_n - h/2 (grad V + L_n q_n)
    const Vec<3> b = phalf - 0.5 * h * m.gradV(q);
    const double hM2 = q.dot(b) / q.squaredNorm();    // (h/2) M_n
    p = b - hM2 * q;
    dqr = std::max(dqr, (x.q - q).cwiseAbs().maxCoeff());
    if (k == 0) first = std::max((x.q - q).cwiseAbs().maxCoeff(), (x.p - p).cwiseAbs().maxCoeff());
    dpr = std::max(dpr, (x.p - p).cwiseAbs().maxCoeff());
    dlam = std::max(dlam, std::abs(mr.lambda(0) - c * m.mass / h));  // (h/2) L_n = c m / h
    dmu = std::max(dmu, std::abs(mr.mu(0) + hM2));
    // two-step SHAKE; its first step is started from the same (q_0, p_0) by the one-step form
    if (k == 0) {
      qs = xs.q;
    } else {
      double cs = 0;
      const Vec<3> as = 2.0 * qs - qs_prev - h * h / m.mass * m.gradV(qs);
      const Vec<3> qnew = on_sphere(as, qs, cs);
      qs_prev = qs;
      qs = qnew;
    }
    dqs = std::max(dqs, (xs.q - qs).cwiseAbs().maxCoeff());
    // SHAKE momentum p_{k+1} = D2 Ld = m (q_{k+1} - q_k)/h - h/2 grad V(q_{k+1}) (no multiplier at q_{k+1})
    if (k > 0)
      dps = std::max(dps, (xs.p - (m.mass * (qs - qs_prev) / h - 0.5 * h * m.gradV(qs))).cwiseAbs().maxCoeff());
  }
  std::printf("trapezoid vs classical RATTLE, 1e4 steps: max |dq| %.2e, |dp| %.2e, |d lambda| %.2e, |d mu| %.2e "
              "(after one step: %.1e)\n", dqr, dpr, dlam, dmu, first);
  EXPECT_LT(first, 1e-14);
  std::printf("trapezoid SHAKE vs two-step SHAKE position form: max |dq| %.2e, |p - D2 Ld| %.2e\n", dqs, dps);
  // two implementations of the same map: round-off differences grow ~linearly (integrable system), N eps |p| ~ 7e-12
  EXPECT_LT(dqr, 1e-10);
  EXPECT_LT(dpr, 1e-10);
  EXPECT_LT(dlam, 1e-12);
  EXPECT_LT(dmu, 1e-12);
  EXPECT_LT(dqs, 1e-10);
  EXPECT_LT(dps, 1e-10);
}

// One step from the same state: SHAKE and RATTLE give bitwise the same q1, and p differ by exactly G(q1)^T mu.
TEST(Constraints, ShakeRattleOneStep) {
  const SphericalPendulum m;
  const DelState<3> x0 = spherical_start(m, 1.2, 0.9, 0.4);
  DelState<3> xs = x0, xr = x0;
  ConstraintMultipliers<1> ms, mr;
  ASSERT_TRUE(constrained_step<Midpoint>(m, xs, 0.05, with(Projection::shake), ms).converged);
  ASSERT_TRUE(constrained_step<Midpoint>(m, xr, 0.05, with(Projection::rattle), mr).converged);
  EXPECT_EQ(xs.q, xr.q);
  EXPECT_EQ(ms.lambda, mr.lambda);
  EXPECT_EQ(ms.mu(0), 0.0);
  const Vec<3> G1t = xr.q;  // G(q) = q^T
  EXPECT_LT((xr.p - xs.p - mr.mu(0) * G1t).cwiseAbs().maxCoeff(), 1e-14);
  EXPECT_NEAR(xr.t, 0.05, 1e-16);
}

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

// ---------------------------------------------------------------------------------------------------------------
// Non-quadratic kinetic energy: RATTLE projects with the inverse Legendre transform. Checked with
// hidden_constraint_residual (velocity_from_momentum of lagrangian.hpp, an independent Newton): G v(q, p) = 0.
TEST(Constraints, NonQuadraticLagrangianHiddenConstraint) {
  const QuarticPendulum m;
  DelState<2> x, xs;
  x.q = Vec<2>(std::sin(1.0), -std::cos(1.0));
  const Vec<2> v0 = 1.5 * Vec<2>(std::cos(1.0), std::sin(1.0));
  x.p = legendre(m, x.q, v0);
  xs = x;
  double hid = 0, hid_s = 0, dq = 0, gmax = 0;
  for (int k = 0; k < 2000; ++k) {
    ASSERT_TRUE(constrained_step<Trapezoid>(m, x, 0.01).converged) << k;
    ASSERT_TRUE(constrained_step<Trapezoid>(m, xs, 0.01, with(Projection::shake)).converged) << k;
    hid = std::max(hid, hidden_constraint_residual(m, x.q, x.p));
    hid_s = std::max(hid_s, hidden_constraint_residual(m, xs.q, xs.p));
    dq = std::max(dq, (x.q - xs.q).cwiseAbs().maxCoeff());
    gmax = std::max(gmax, constraint_residual(m, x.q));
  }
  std::printf("quartic kinetic term, 2000 trapezoid steps: max |G v(q,p)| RATTLE %.2e (SHAKE %.2e), max |g| %.2e, "
              "max |q_S - q_R| %.2e\n", hid, hid_s, gmax, dq);
  EXPECT_LT(hid, 1e-12);
  EXPECT_GT(hid_s, 1e-4);
  EXPECT_LT(gmax, 1e-12);
  EXPECT_LT(dq, 1e-11);
}

// Small steps: the residual test includes the round-off |dF/dq1| |q1| eps of the velocity (q1 - q0)/h, so Newton
// still converges for h = 1e-5 (a scale without it fails for h <~ 1e-3, see the report on del_step).
TEST(Constraints, SmallStepsConverge) {
  const SphericalPendulum m;
  for (double h : {1e-3, 1e-4, 1e-5}) {
    DelState<3> xt = spherical_start(m, 1.0, 2.0, 0.5), xm = xt;
    int it_max = 0;
    for (int k = 0; k < 300; ++k) {
      const StepResult rt = constrained_step<Trapezoid>(m, xt, h), rm = constrained_step<Midpoint>(m, xm, h);
      ASSERT_TRUE(rt.converged) << h << " " << k << " " << rt.message;
      ASSERT_TRUE(rm.converged) << h << " " << k << " " << rm.message;
      it_max = std::max({it_max, rt.iterations, rm.iterations});
    }
    std::printf("h = %.0e: 300 steps, max Newton iterations %d, |g| %.1e\n", h, it_max, constraint_residual(m, xt.q));
    EXPECT_LT(constraint_residual(m, xt.q), 1e-12);
    EXPECT_LT(constraint_residual(m, xm.q), 1e-12);
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Diagnostics.
TEST(ConstraintsFailure, DependentConstraints) {
  const DuplicateConstraint m;
  DelState<3> x = spherical_start(m, 1.0, 1.0);
  const DelState<3> x0 = x;
  for (Projection pr : {Projection::shake, Projection::rattle}) {
    const StepResult r = constrained_step<Trapezoid>(m, x, 0.01, with(pr));
    EXPECT_FALSE(r.converged);
    EXPECT_STREQ(r.message, msg_dependent_constraints);
    EXPECT_EQ(x.q, x0.q);
    EXPECT_EQ(x.p, x0.p);
    EXPECT_EQ(x.t, x0.t);
  }
  try {
    integrate_constrained<Midpoint>(m, x, 0.01, 10, [](long, const DelState<3>&) {});
    ADD_FAILURE() << "no throw";
  } catch (const lievi::numerical_failure& e) {
    std::printf("dependent constraints: %s\n", e.what());
    EXPECT_EQ(e.step(), 0);
    EXPECT_NE(std::string(e.what()).find("rank deficient"), std::string::npos);
  }
  Vec<3> q = x.q, v = Vec<3>(0.1, 0.2, 0.3);
  EXPECT_FALSE(project_initial(m, q, v));
}

TEST(ConstraintsFailure, TooLargeStep) {
  // Released from rest at 1 rad: with h = 0.3 the sphere |q_n + h (p_n - h/2 grad V)/m - c q_n| = l stops being
  // reachable as the speed grows (the quadratic for the multiplier has no real root), and Newton fails there
  // (at step 4; h <= 0.25 runs).
  const SphericalPendulum m;
  const double h = 0.3;
  const DelState<3> x0 = spherical_start(m, 1.0, 0.0);
  long first_fail = -1;
  const char* msg = "";
  {
    DelState<3> x = x0;
    for (long k = 0; k < 100 && first_fail < 0; ++k) {
      const DelState<3> before = x;
      const StepResult r = constrained_step<Trapezoid>(m, x, h);
      if (!r.converged) {
        first_fail = k;
        msg = r.message;
        EXPECT_EQ(x.q, before.q);  // unchanged on failure
      }
    }
  }
  ASSERT_GT(first_fail, 0) << "expected a failure after at least one successful step";
  std::printf("too large h = %.2f: first failing step %ld (%s)\n", h, first_fail, msg);
  DelState<3> x = x0;
  long observed = 0;
  try {
    integrate_constrained<Trapezoid>(m, x, h, 100, [&](long k, const DelState<3>&) { observed = k; });
    ADD_FAILURE() << "no throw";
  } catch (const lievi::numerical_failure& e) {
    std::printf("  numerical_failure: %s\n", e.what());
    EXPECT_EQ(e.step(), first_fail);
    EXPECT_EQ(observed, first_fail);
    EXPECT_NEAR(e.t(), first_fail * h, 1e-12);
    EXPECT_NE(std::string(e.what()).find("step " + std::to_string(first_fail)), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("reduce h"), std::string::npos);
  }
}

TEST(ConstraintsFailure, DriftAndInconsistentStart) {
  const SphericalPendulum m;
  DelState<3> x = spherical_start(m, 1.0, 1.0);
  ConstraintOptions o;
  o.drift_tol = -1.0;  // every converged step "drifts": exercises the drift path
  const StepResult r = constrained_step<Trapezoid>(m, x, 0.01, o);
  EXPECT_FALSE(r.converged);
  EXPECT_STREQ(r.message, msg_constraint_drift);
  x.q *= 1.01;  // off the manifold
  EXPECT_THROW(integrate_constrained<Trapezoid>(m, x, 0.01, 3, [](long, const DelState<3>&) {}),
               lievi::invalid_argument);
}

TEST(Constraints, ProjectInitial) {
  {  // sphere, isotropic mass: the closed-form nearest point l q/|q| and the tangential part of qdot
    const SphericalPendulum m;
    const Vec<3> q0(0.5, -0.6, -0.9), v0(0.3, 1.1, -0.4);  // |q0| = 1.18..
    Vec<3> q = q0, v = v0;
    ASSERT_TRUE(project_initial(m, q, v));
    const Vec<3> qe = m.l * q0.normalized();
    const Vec<3> ve = v0 - v0.dot(qe) * qe / qe.squaredNorm();
    std::printf("project_initial: |g| %.1e, |q - l q0/|q0|| %.1e, |qdot - tangential part| %.1e\n",
                constraint_residual(m, q), (q - qe).cwiseAbs().maxCoeff(), (v - ve).cwiseAbs().maxCoeff());
    EXPECT_LT(constraint_residual(m, q), 1e-15);
    EXPECT_LT((q - qe).cwiseAbs().maxCoeff(), 1e-15);
    EXPECT_LT((v - ve).cwiseAbs().maxCoeff(), 1e-15);
    // and a projected start integrates
    DelState<3> x;
    x.q = q;
    x.p = legendre(m, q, v);
    EXPECT_NO_THROW(integrate_constrained<Trapezoid>(m, x, 0.01, 10, [](long, const DelState<3>&) {}));
  }
  {  // anisotropic mass W = diag(1, 2, 3): KKT of min (v - v0).W(v - v0), G v = 0: W (v - v0) parallel to q
    const AnisotropicSphere m;
    Vec<3> q(1.0, 0.2, -0.3), v(0.5, -0.7, 0.9);
    const Vec<3> v0 = v;
    ASSERT_TRUE(project_initial(m, q, v));
    const Vec<3> Wdv = Eigen::Vector3d(1, 2, 3).cwiseProduct(v - v0);
    EXPECT_LT(std::abs(q.dot(v)), 1e-15);
    EXPECT_LT(Wdv.cross(q).norm(), 1e-15);
    EXPECT_LT(constraint_residual(m, q), 1e-15);
  }
  {  // q = 0: G = 0, nothing to project along
    const SphericalPendulum m;
    Vec<3> q = Vec<3>::Zero(), v = Vec<3>::Ones();
    EXPECT_FALSE(project_initial(m, q, v));
  }
}
