// DEL toolkit vs the Newmark family (MW01 "Newmark" section; Kane, Marsden, Ortiz & West, IJNME 49 (2000)).
// Newmark(gamma, beta) for M q'' = -grad V(q), a_k = -M^{-1} grad V(q_k), is written here independently:
//   q1 = q0 + h v0 + (h^2/2) [(1 - 2 beta) a0 + 2 beta a1],   v1 = v0 + h [(1 - gamma) a0 + gamma a1].
// Shown:
//  1. gamma = 1/2, beta = 0 is velocity Stormer-Verlet, and equals the library's Trapezoid DEL (p = M v) to
//     round-off on a nonlinear V with a non-diagonal M.
//  2. Linear M q'' + K q = 0, gamma = 1/2, any beta: with qbar = (q0+q1)/2, vbar = (v0+v1)/2 one has
//       M (v1 - v0) = -h K qbar,   A (q1 - q0) = h M vbar,   A = M + (beta - 1/4) h^2 K
//     (the second from q1 - q0 - h vbar = (beta - 1/4) h^2 (a1 - a0) = -(beta - 1/4) h^2 M^{-1} K (q1 - q0)).
//     Then E_beta = 1/2 v^T M A^{-1} M v + 1/2 q^T K q is conserved exactly:
//       E_beta(1) - E_beta(0) = vbar^T M A^{-1} M (v1 - v0) + qbar^T K (q1 - q0)
//                             = -h vbar^T M A^{-1} K qbar + h qbar^T K A^{-1} M vbar = 0.
//     (Equivalently 1/2 w^T A w + 1/2 q^T K q with w = A^{-1} M v. For beta = 0, M = 1, K = w^2 this is
//     the known Verlet invariant (p^2/2 + w^2 q^2 (1 - h^2 w^2/4)/2) / (1 - h^2 w^2/4). The form
//     1/2 v^T (M + (beta - 1/4) h^2 K) v + 1/2 q^T K q agrees with E_beta only to O(h^2) and is NOT conserved;
//     it is measured here to show the difference.) gamma != 1/2 dissipates (gamma > 1/2) or grows (< 1/2) E_beta.
//  3. beta = 1/4, gamma = 1/2 on the linear system: A = M, q1 - q0 = h vbar, M (v1 - v0) = -h K qbar, which is
//     exactly the midpoint DEL (p = M v: p1 - p0 = -h K qbar, M (q1 - q0)/h = (p0 + p1)/2): equal to round-off.
//     On a nonlinear V they differ (Newmark averages the force, midpoint evaluates it at qbar): O(h^2) globally.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

#include "lievi/integrators/del/del_stepper.hpp"

using namespace lievi::integrators::del;

namespace {

Mat<2> mass() { return (Mat<2>() << 2.0, 0.3, 0.3, 1.0).finished(); }
Mat<2> stiffness() { return (Mat<2>() << 3.0, -1.0, -1.0, 2.0).finished(); }

/// Nonlinear: L = 1/2 v^T M v - V, V = |q|^4/4 + q1^2 q2 / 2 + |q|^2 / 2.
struct Nonlinear {
  static constexpr int dim = 2;
  template <class S>
  S L(const Eigen::Matrix<S, 2, 1>& q, const Eigen::Matrix<S, 2, 1>& v) const {
    const Mat<2> M = mass();
    const S r2 = q.squaredNorm();
    return 0.5 * v.dot(M * v) - (0.25 * r2 * r2 + 0.5 * q(0) * q(0) * q(1) + 0.5 * r2);
  }
  static Vec<2> gradV(const Vec<2>& q) {
    const double r2 = q.squaredNorm();
    return Vec<2>(r2 * q(0) + q(0) * q(1) + q(0), r2 * q(1) + 0.5 * q(0) * q(0) + q(1));
  }
};

/// Linear: L = 1/2 v^T M v - 1/2 q^T K q.
struct Linear {
  static constexpr int dim = 2;
  template <class S>
  S L(const Eigen::Matrix<S, 2, 1>& q, const Eigen::Matrix<S, 2, 1>& v) const {
    const Mat<2> M = mass(), K = stiffness();
    return 0.5 * v.dot(M * v) - 0.5 * q.dot(K * q);
  }
};

struct NM {
  Vec<2> q, v, a;
};

/// One Newmark step; `accel(q)` = -M^{-1} grad V(q). For beta > 0 the implicit a1 is found by fixed-point
/// iteration on a1 = accel(q_pred + beta h^2 a1) to round-off (contractive for the small h used), or for a
/// linear system by the direct solve (M + beta h^2 K) a1 = -K q_pred.
template <class Accel>
void newmark_step(NM& s, double h, double gamma, double beta, Accel&& accel) {
  const Vec<2> qp = s.q + h * s.v + (0.5 * h * h * (1 - 2 * beta)) * s.a;
  Vec<2> a1 = accel(qp);
  for (int it = 0; it < 100 && beta > 0; ++it) {
    const Vec<2> an = accel(Vec<2>(qp + beta * h * h * a1));
    const double d = (an - a1).cwiseAbs().maxCoeff();
    a1 = an;
    if (d <= 1e-16 * (1 + a1.cwiseAbs().maxCoeff())) break;
  }
  s.q = qp + beta * h * h * a1;
  s.v += h * ((1 - gamma) * s.a + gamma * a1);
  s.a = a1;
}

void newmark_linear_step(NM& s, double h, double gamma, double beta) {
  const Mat<2> M = mass(), K = stiffness();
  const Vec<2> qp = s.q + h * s.v + (0.5 * h * h * (1 - 2 * beta)) * s.a;
  const Vec<2> a1 = (M + beta * h * h * K).lu().solve(-K * qp);
  s.q = qp + beta * h * h * a1;
  s.v += h * ((1 - gamma) * s.a + gamma * a1);
  s.a = a1;
}

double E_beta(const NM& s, double h, double beta) {
  const Mat<2> M = mass(), K = stiffness(), A = M + (beta - 0.25) * h * h * K;
  return 0.5 * (M * s.v).dot(A.lu().solve(M * s.v)) + 0.5 * s.q.dot(K * s.q);
}

double E_guess(const NM& s, double h, double beta) {  // the O(h^2)-close form that is not conserved
  const Mat<2> M = mass(), K = stiffness();
  return 0.5 * s.v.dot((M + (beta - 0.25) * h * h * K) * s.v) + 0.5 * s.q.dot(K * s.q);
}

NM linear_start() {
  NM s;
  s.q = Vec<2>(1.0, -0.5);
  s.v = Vec<2>(0.3, 0.8);
  s.a = mass().lu().solve(-stiffness() * s.q);
  return s;
}

}  // namespace

TEST(Newmark, Gamma12Beta0IsStormerVerletIsTrapezoid) {
  const Mat<2> M = mass();
  const auto accel = [&](const Vec<2>& q) { return Vec<2>(M.lu().solve(-Nonlinear::gradV(q))); };
  NM s;
  s.q = Vec<2>(0.9, -0.4);
  s.v = Vec<2>(0.2, 0.7);
  s.a = accel(s.q);
  DelState<2> x;
  x.q = s.q;
  x.p = M * s.v;
  Vec<2> q = s.q, p = x.p;  // Stormer-Verlet in (q, p), p = M v
  const double h = 0.01;
  double d_nm_sv = 0, d_del_nm = 0;
  for (int k = 0; k < 2000; ++k) {
    newmark_step(s, h, 0.5, 0.0, accel);
    const Vec<2> ph = p - 0.5 * h * Nonlinear::gradV(q);
    q += h * M.lu().solve(ph);
    p = ph - 0.5 * h * Nonlinear::gradV(q);
    ASSERT_TRUE(del_step<Trapezoid>(Nonlinear{}, x, h).converged) << k;
    d_nm_sv = std::max({d_nm_sv, (s.q - q).cwiseAbs().maxCoeff(), (M * s.v - p).cwiseAbs().maxCoeff()});
    d_del_nm = std::max({d_del_nm, (x.q - s.q).cwiseAbs().maxCoeff(), (x.p - M * s.v).cwiseAbs().maxCoeff()});
  }
  std::printf("Newmark(1/2, 0) vs Stormer-Verlet: %.2e; trapezoid DEL vs Newmark(1/2, 0): %.2e (2000 steps)\n",
              d_nm_sv, d_del_nm);
  // round-off: O(1) states, 2000 steps, Newton to ~1e-16 relative: a few 1e-14 at most; bound 1e-11 as in
  // test_del.cpp (TrapezoidIsStormerVerlet).
  EXPECT_LT(d_nm_sv, 1e-11);
  EXPECT_LT(d_del_nm, 1e-11);
}

TEST(Newmark, LinearGammaHalfConservesEbeta) {
  const double h = 0.1;  // h * omega_max = 0.16: inside the stability range of every beta below
  const long N = 100000;
  for (double beta : {0.0, 1.0 / 12, 1.0 / 6, 0.25, 0.5}) {
    NM s = linear_start();
    const double E0 = E_beta(s, h, beta), G0 = E_guess(s, h, beta);
    double dE = 0, dG = 0;
    for (long k = 0; k < N; ++k) {
      newmark_linear_step(s, h, 0.5, beta);
      dE = std::max(dE, std::abs(E_beta(s, h, beta) - E0));
      dG = std::max(dG, std::abs(E_guess(s, h, beta) - G0));
    }
    std::printf("beta = %.4f: max |E_beta - E_beta(0)|/E0 = %.2e over 1e5 steps; "
                "1/2 v(M + (beta-1/4)h^2K)v + 1/2 qKq varies by %.2e\n",
                beta, dE / E0, dG / G0);
    // round-off random walk: ~1e-16 per step, sqrt(1e5) ~ 300 steps' worth, times a few ulps per step:
    // ~1e-13; bound 1e-11 relative (nine orders below the O(h^2) ~ 1e-2 variation of the energy itself).
    EXPECT_LT(dE / E0, 1e-11) << beta;
    if (beta != 0.25) {
      EXPECT_GT(dG / G0, 1e-6) << beta;  // the O(h^2)-close form is not invariant
    }
  }
}

TEST(Newmark, LinearGammaNotHalfIsNotConservative) {
  const double h = 0.1;
  const long N = 10000;
  for (double gamma : {0.6, 0.4}) {
    const double beta = 0.25 * (gamma + 0.5) * (gamma + 0.5);  // the usual beta for a given gamma
    NM s = linear_start();
    const double E0 = E_beta(s, h, beta);
    for (long k = 0; k < N; ++k) newmark_linear_step(s, h, gamma, beta);
    const double rel = (E_beta(s, h, beta) - E0) / E0;
    std::printf("gamma = %.2f, beta = %.4f: (E_beta(T) - E_beta(0))/E0 = %.3e after 1e4 steps\n", gamma, beta, rel);
    // numerical damping (gamma > 1/2) / growth (gamma < 1/2) of order (gamma - 1/2) h omega^2 per unit time
    if (gamma > 0.5)
      EXPECT_LT(rel, -1e-2);
    else
      EXPECT_GT(rel, 1e-2);
  }
}

TEST(Newmark, Beta14IsMidpointOnLinearSystems) {
  const double h = 0.1;
  const Mat<2> M = mass();
  NM s = linear_start();
  DelState<2> x;
  x.q = s.q;
  x.p = M * s.v;
  double d = 0;
  for (int k = 0; k < 10000; ++k) {
    newmark_linear_step(s, h, 0.5, 0.25);
    ASSERT_TRUE(del_step<Midpoint>(Linear{}, x, h).converged);
    d = std::max({d, (x.q - s.q).cwiseAbs().maxCoeff(), (x.p - M * s.v).cwiseAbs().maxCoeff()});
  }
  std::printf("Newmark(1/2, 1/4) vs midpoint DEL, linear, 1e4 steps: max difference %.2e\n", d);
  EXPECT_LT(d, 1e-11);  // round-off (both conserve the same quadratic energy; the phase error is identical)

  // nonlinear V: they are different methods (force averaged vs force at the midpoint), both of order 2
  const auto accel = [&](const Vec<2>& q) { return Vec<2>(M.lu().solve(-Nonlinear::gradV(q))); };
  NM t;
  t.q = Vec<2>(0.9, -0.4);
  t.v = Vec<2>(0.2, 0.7);
  t.a = accel(t.q);
  DelState<2> y;
  y.q = t.q;
  y.p = M * t.v;
  double dn = 0;
  for (int k = 0; k < 100; ++k) {
    newmark_step(t, 0.05, 0.5, 0.25, accel);
    ASSERT_TRUE(del_step<Midpoint>(Nonlinear{}, y, 0.05).converged);
    dn = std::max(dn, (y.q - t.q).cwiseAbs().maxCoeff());
  }
  std::printf("nonlinear V, h = 0.05, 100 steps: max |q_newmark - q_midpoint| = %.2e (O(h^2), not round-off)\n", dn);
  EXPECT_GT(dn, 1e-6);
}
