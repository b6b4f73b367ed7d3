// Holonomic constraints (constraints.hpp): SHAKE and RATTLE on the spherical pendulum in Cartesian coordinates
// (constraint, Noether Lz, energy, hidden constraint over 1e5 steps), SHAKE = RATTLE in q, equality with the
// classical RATTLE (HLW VII.1) and the two-step SHAKE position form written out here in closed form. The measured
// orders are in test_del_constraints_order.cpp, the other models and the failures in
// test_del_constraints_models.cpp (three files: the constrained steppers instantiate heavily).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "constraint_models.hpp"
#include "support/convergence.hpp"

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

