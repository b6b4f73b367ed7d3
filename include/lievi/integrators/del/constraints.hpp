#pragma once
/// @file lievi/integrators/del/constraints.hpp
/// @brief Holonomic constraints g(q) = 0 for the position–momentum variational steppers: SHAKE (position form)
/// and RATTLE (with the momentum projection onto the cotangent space of the constraint manifold)
/// (Marsden & West 2001, seed 001, constrained systems; Hairer, Lubich & Wanner, Geometric Numerical
/// Integration, 2nd ed., Section VII.1; Andersen 1983).
///
/// Equations. The discrete Hamilton principle for the augmented discrete Lagrangian
/// Ld(q_k, q_{k+1}) - <lambda_k, g(q_k)> gives the constrained DEL
///     D2 Ld(q_{k-1}, q_k) + f_d^+ + D1 Ld(q_k, q_{k+1}) + f_d^- = G(q_k)^T lambda_k,   g(q_{k+1}) = 0,
/// G = dg/dq (m x n). In position–momentum form one step solves, for the unknowns (q1, lambda) in R^{n+m},
///     F_q = p0 + D1 Ld(q0, q1) + f_d^-(q0, q1) - G(q0)^T lambda = 0,                 (n rows)
///     F_g = g(q1) / h = 0                                                          (m rows, scaled by 1/h)
/// by Newton with the exact Jacobian [[d(D1 Ld + f_d^-)/dq1, -G(q0)^T], [G(q1)/h, 0]] (G by AD). The
/// constraint force of step k acts through G(q0), which does not depend on the unknowns, so no second
/// derivatives of g enter the Jacobian (the lambda-contracted Hessian of g is identically absent, not dropped).
/// Then
///     p1* = D2 Ld(q0, q1) + f_d^+(q0, q1)                                            (Method::advance)
///  - SHAKE:  p1 = p1*  (no multiplier is booked at q1: the whole constraint force at q1 enters the next step's
///    lambda; p1 does not satisfy the hidden constraint, it is off it by O(h)). Eliminating p gives the classical
///    position form, e.g. for the trapezoid and L = 1/2 v.Mv - V:  M (q_{k+1} - 2 q_k + q_{k-1}) / h^2
///    = -grad V(q_k) - G(q_k)^T lambda_k / h.
///  - RATTLE: p1 = p1* + G(q1)^T mu with mu such that the hidden constraint holds,
///        G(q1) v1 = 0,  where  dL/dqdot(q1, v1) = p1,
///    i.e. v1 = qdot(q1, p1) is the inverse Legendre transform of p1 (general regular L). Solved by Newton on
///    (v1, mu) with Jacobian [[Lvv(q1, v1), -G(q1)^T], [G(q1), 0]]; for L = 1/2 v.Mv - V this is one linear
///    solve, mu = -(G M^{-1} G^T)^{-1} G M^{-1} p1*, i.e. G(q1) M^{-1} p1 = 0.
/// Since p1(RATTLE) - p1(SHAKE) = G(q1)^T mu, the next step's lambda differs by mu and both give the same
/// q-trajectory. For the trapezoid and L = 1/2 v.Mv - V the map is the classical RATTLE of Andersen / HLW VII.1
/// with lambda = (h/2) lambda_HLW, mu = -(h/2) mu_HLW. Any Ld whose unknown is q1 (Midpoint, Trapezoid);
/// forces enter through Method::residual / advance (the forced discrete Lagrange–d'Alembert principle).
///
/// Stopping rule: |dq1|_inf <= step_tol (1 + |q1|_inf), |F_q|_inf <= residual_tol (terms of F_q + |G^T lambda| +
/// |dF_q/dq1|_inf |q1|_inf) and |g(q1)|_inf <= residual_tol |G(q1)|_inf (1 + |q1|_inf). The |dF_q/dq1| |q1| term is
/// the round-off of F_q from q1 stored to relative eps (amplified by 1/h through (q1 - q0)/h); lambda has no step
/// test (its round-off is ~ eps |Lvv| |q1| / (h |G|)): F_q is linear in lambda, so the F_q residual fixes it.
/// Start guess q1 = q0 + h v0 (v0 from one Newton step on the Legendre transform, as del_step), lambda = 0.
///
/// Failures are returned in the StepResult (never thrown): degenerate Lagrangian, singular Jacobian (with a
/// separate message when G is rank deficient: dependent constraints), non-finite values, iteration limit,
/// constraint drift beyond ConstraintOptions::drift_tol, failed RATTLE projection. Fixed-size Eigen throughout
/// (no allocation in the step).
#include <Eigen/Core>
#include <Eigen/LU>
#include <Eigen/SVD>
#include <algorithm>
#include <cmath>
#include <concepts>
#include <limits>
#include <string>

#include "lievi/core/error.hpp"
#include "lievi/integrators/del/del_stepper.hpp"
#include "lievi/integrators/del/lagrangian.hpp"

namespace lievi::integrators::del {

/// A Lagrangian model with m = n_constraints holonomic constraints g(q) = 0 (1 <= m < dim), g written
/// generically in the scalar S (it is differentiated with Dual<double, dim>).
template <class M>
concept ConstrainedModel =
    LagrangianModel<M> && requires { requires(M::n_constraints >= 1 && M::n_constraints < M::dim); } &&
    requires(const M& m, const Eigen::Matrix<double, M::dim, 1>& q,
             const Eigen::Matrix<Dual<double, M::dim>, M::dim, 1>& qd) {
      { m.g(q) } -> std::convertible_to<Eigen::Matrix<double, M::n_constraints, 1>>;
      { m.g(qd) } -> std::convertible_to<Eigen::Matrix<Dual<double, M::dim>, M::n_constraints, 1>>;
    };

enum class Projection { shake, rattle };

struct ConstraintOptions {
  DelOptions del{};
  Projection projection = Projection::rattle;
  /// |g(q_{k+1})|_inf beyond this after a converged solve is a failure.
  double drift_tol = 1e-10;
};

/// The multipliers of one constrained step: p0 + D1 Ld + f_d^- = G(q0)^T lambda, p1 = p1* + G(q1)^T mu
/// (mu = 0 for SHAKE).
template <int m>
struct ConstraintMultipliers {
  Eigen::Matrix<double, m, 1> lambda = Eigen::Matrix<double, m, 1>::Zero();
  Eigen::Matrix<double, m, 1> mu = Eigen::Matrix<double, m, 1>::Zero();
};

inline constexpr const char* msg_dependent_constraints =
    "singular Jacobian of the constrained step: the constraint Jacobian G = dg/dq is rank deficient (dependent or "
    "redundant constraints, or a singular point of g); remove redundant constraints so that G(q) has full row rank";
inline constexpr const char* msg_constrained_singular =
    "singular Jacobian [[D2 D1 Ld, -G(q_k)^T], [G(q_{k+1}), 0]] of the constrained discrete Euler-Lagrange "
    "equations; reduce h, or check that L is regular in qdot near q_k";
inline constexpr const char* msg_constrained_nonfinite =
    "non-finite value in the constrained discrete Euler-Lagrange solve; reduce h or check L, V, f, g near q_k";
inline constexpr const char* msg_constrained_iterations =
    "Newton did not converge on the constrained discrete Euler-Lagrange equations (q_{k+1}, lambda_k) within the "
    "iteration limit (for too large h the constraint manifold may not be reachable in one step); reduce h or raise "
    "ConstraintOptions::del.newton.max_iterations";
inline constexpr const char* msg_constraint_drift =
    "constraint drift: |g(q_{k+1})| exceeds ConstraintOptions::drift_tol after a converged solve; rescale g so that "
    "its round-off is below drift_tol, or raise drift_tol";
inline constexpr const char* msg_rattle_projection =
    "RATTLE momentum projection failed ([[d2L/dqdot2, -G^T], [G, 0]] at q_{k+1} singular, or Newton on the inverse "
    "Legendre transform did not converge); check that L is regular and G(q_{k+1}) has full rank, or use "
    "Projection::shake";

/// g(q) and G(q) = dg/dq by one evaluation with Dual<double, dim>.
template <ConstrainedModel M>
Eigen::Matrix<double, M::n_constraints, M::dim> constraint_jacobian(const M& m, const Vec<M::dim>& q,
                                                                     Eigen::Matrix<double, M::n_constraints, 1>* g) {
  constexpr int n = M::dim, c = M::n_constraints;
  return jacobian<c, n>(
      [&](const Eigen::Matrix<Dual<double, n>, n, 1>& s) -> Eigen::Matrix<Dual<double, n>, c, 1> { return m.g(s); },
      q, g);
}

/// max_i |g_i(q)|
template <ConstrainedModel M>
double constraint_residual(const M& m, const Vec<M::dim>& q) {
  const Eigen::Matrix<double, M::n_constraints, 1> g = m.g(q);
  return g.template lpNorm<Eigen::Infinity>();
}

/// max_i |(G(q) qdot(q, p))_i|, the hidden constraint, with qdot(q, p) the inverse Legendre transform (Newton from
/// qdot = 0); +inf if that fails.
template <ConstrainedModel M>
double hidden_constraint_residual(const M& m, const Vec<M::dim>& q, const Vec<M::dim>& p) {
  Vec<M::dim> v = Vec<M::dim>::Zero();
  if (!velocity_from_momentum(m, q, p, v)) return std::numeric_limits<double>::infinity();
  const auto G = constraint_jacobian(m, q, static_cast<Eigen::Matrix<double, M::n_constraints, 1>*>(nullptr));
  return (G * v).template lpNorm<Eigen::Infinity>();
}

namespace detail {

/// True if the m x n matrix G has (numerically) full row rank m. Failure path only.
template <int c, int n>
bool full_row_rank(const Eigen::Matrix<double, c, n>& G) {
  if (!G.allFinite()) return false;
  Eigen::FullPivLU<Eigen::Matrix<double, c, n>> lu(G);
  lu.setThreshold(1e3 * std::numeric_limits<double>::epsilon());  // pivots relative to the largest
  return lu.rank() == c;
}

/// Scale of the terms of g(q): |G|_inf (1 + |q|_inf) (exact for quadratic and linear constraints up to constants).
template <int c, int n>
double constraint_scale(const Eigen::Matrix<double, c, n>& G, const Vec<n>& q) {
  return G.cwiseAbs().rowwise().sum().maxCoeff() * (1.0 + q.template lpNorm<Eigen::Infinity>());
}

/// Whether the LU factorisation `lu` of the square matrix M is (numerically) singular: as
/// del::numerically_singular, the pivots decide when they are well spread (smallest / largest |U_ii| > 1e-8);
/// otherwise the ratio of the extreme singular values of M (JacobiSVD, only on that rare path) against
/// singular_rcond. (Eigen's L1 condition estimate, used by numerically_singular, trips GCC's
/// -Wmaybe-uninitialized at some fixed sizes, e.g. 7.)
template <int K>
bool singular_saddle(const Mat<K>& M, const Eigen::PartialPivLU<Mat<K>>& lu) {
  const auto piv = lu.matrixLU().diagonal().cwiseAbs();
  const double lo = piv.minCoeff(), hi = piv.maxCoeff();
  if (!(hi > 0.0)) return true;
  if (lo > 1e-8 * hi) return false;
  const Eigen::JacobiSVD<Mat<K>> svd(M);
  const auto sv = svd.singularValues();
  return !(sv(K - 1) > singular_rcond * sv(0));
}

/// The momentum p1s projected onto the velocity constraint G1 v = 0 at q1: p1 = p1s + G1^T mu with G1 v1 = 0 and
/// Lv(q1, v1) = p1 (RATTLE's projection onto the hidden constraint; the nonholonomic step's onto A(q1) v = 0).
/// Newton on (v1, mu) with the Jacobian [[Lvv, -G1^T], [G1, 0]] from v1 = v_guess, mu = 0. Returns false (p1,
/// mu unchanged) on a singular or non-finite system or at the iteration limit.
template <class M, int c>
bool rattle_projection(const M& m, const Vec<M::dim>& q1, const Vec<M::dim>& p1s,
                       const Eigen::Matrix<double, c, M::dim>& G1, const Vec<M::dim>& v_guess,
                       const solve::NewtonOptions& newton, Vec<M::dim>& p1, Eigen::Matrix<double, c, 1>& mu) {
  constexpr int n = M::dim, K = n + c;
  Vec<K> w;
  w << v_guess, Eigen::Matrix<double, c, 1>::Zero();
  Mat<K> J;
  J.template topRightCorner<n, c>() = -G1.transpose();
  J.template bottomLeftCorner<c, n>() = G1;
  J.template bottomRightCorner<c, c>().setZero();
  const double gnorm = G1.cwiseAbs().rowwise().sum().maxCoeff();
  for (int it = 0; it < newton.max_iterations; ++it) {
    const Vec<n> v = w.template head<n>();
    const Eigen::Matrix<double, c, 1> mu_it = w.template tail<c>();
    const auto d = lagrangian_derivatives(m, q1, v);
    const Vec<n> Gtmu = G1.transpose() * mu_it;
    Vec<K> R;
    R << d.Lv - p1s - Gtmu, G1 * v;
    J.template topLeftCorner<n, n>() = d.Lvv;
    if (!R.allFinite() || !J.allFinite()) return false;
    const Eigen::PartialPivLU<Mat<K>> lu(J);
    if (singular_saddle<K>(J, lu)) return false;
    const Vec<K> dw = lu.solve(R);
    w -= dw;
    if (!w.allFinite()) return false;
    if (it > 0 && dw.template lpNorm<Eigen::Infinity>() <= newton.step_tol * (1.0 + w.template lpNorm<Eigen::Infinity>()) &&
        R.template head<n>().template lpNorm<Eigen::Infinity>() <=
            newton.residual_tol * (p1s.template lpNorm<Eigen::Infinity>() + d.Lv.template lpNorm<Eigen::Infinity>() +
                                   Gtmu.template lpNorm<Eigen::Infinity>()) &&
        R.template tail<c>().template lpNorm<Eigen::Infinity>() <=
            newton.residual_tol * gnorm * (1.0 + v.template lpNorm<Eigen::Infinity>())) {
      mu = w.template tail<c>();
      p1 = p1s + G1.transpose() * mu;
      return true;
    }
  }
  return false;
}

/// qdot projected onto the velocity constraint G qdot = 0 at q, minimum-norm in the kinetic metric
/// W = d2L/dqdot2(q, qdot): qdot <- qdot - W^{-1} G^T (G W^{-1} G^T)^{-1} G qdot (a holonomic system's hidden
/// constraint, or a nonholonomic A(q)). Returns false (qdot unchanged) if W or G W^{-1} G^T is singular or a
/// value is non-finite.
template <class M, int c>
bool project_onto_velocity_constraint(const M& m, const Vec<M::dim>& q, const Eigen::Matrix<double, c, M::dim>& G,
                                      Vec<M::dim>& qdot) {
  constexpr int n = M::dim;
  const auto d = lagrangian_derivatives(m, q, qdot);
  const Eigen::PartialPivLU<Mat<n>> W(d.Lvv);
  if (!d.Lvv.allFinite() || !G.allFinite() || singular_saddle<n>(d.Lvv, W)) return false;
  const Eigen::Matrix<double, n, c> WiGt = W.solve(G.transpose());
  const Eigen::Matrix<double, c, c> S = G * WiGt;
  const Eigen::PartialPivLU<Eigen::Matrix<double, c, c>> luS(S);
  if (!S.allFinite() || singular_saddle<c>(S, luS)) return false;
  const Vec<n> v = qdot - WiGt * luS.solve(G * qdot);
  if (!v.allFinite()) return false;
  qdot = v;
  return true;
}

}  // namespace detail

/// One constrained step (SHAKE or RATTLE per opt.projection) of Method on x = (q_k, p_k, t_k), in place on success
/// (x unchanged on failure); the multipliers of the step in `mult`.
template <class Method, ConstrainedModel M>
StepResult constrained_step(const M& m, DelState<M::dim>& x, double h, const ConstraintOptions& opt,
                            ConstraintMultipliers<M::n_constraints>& mult) {
  static_assert(Method::unknowns(M::dim) == M::dim,
                "constrained_step needs a discrete Lagrangian whose unknown is q_{k+1} (Midpoint, Trapezoid)");
  constexpr int n = M::dim, c = M::n_constraints, K = n + c;
  using CVec = Eigen::Matrix<double, c, 1>;
  using CMat = Eigen::Matrix<double, c, n>;
  StepResult res;
  auto fail = [&](const char* msg, double residual) {
    res.converged = false;
    res.message = msg;
    res.residual = residual;
    return res;
  };
  // Start guess as del_step: q1 = q0 + h v0 with v0 from one Newton step on the Legendre transform; lambda = 0.
  const auto d0 = lagrangian_derivatives(m, x.q, Vec<n>::Zero());
  const Eigen::PartialPivLU<Mat<n>> lu0(d0.Lvv);
  const bool regular = d0.Lvv.allFinite() && lu0.rcond() > singular_rcond;
  if (opt.del.check_regularity && !regular) return fail(msg_degenerate, 0.0);
  const Vec<n> v0 = regular ? Vec<n>(lu0.solve(x.p - d0.Lv)) : Vec<n>::Zero();
  const CMat G0 = constraint_jacobian(m, x.q, static_cast<CVec*>(nullptr));
  const Eigen::Matrix<double, n, c> G0t = G0.transpose();

  Vec<K> z;
  z << x.q + h * v0, CVec::Zero();
  Vec<K> F;
  Mat<K> J;
  J.template topRightCorner<n, c>() = -G0t;
  J.template bottomRightCorner<c, c>().setZero();
  CMat G1;
  double scale = 0.0, gres = 0.0, gscale = 0.0;
  auto evaluate = [&]() {
    const Vec<n> q1 = z.template head<n>();
    const CVec lam = z.template tail<c>();
    Vec<n> Fq;
    Mat<n> Jq;
    const Vec<n> Gtl = G0t * lam;
    // residual scale: the method's terms, the constraint force, and |dF/dq1| |q1| (the round-off of F_q from
    // storing q1 to relative eps: the velocity (q1 - q0)/h amplifies it by 1/h)
    scale = Method::residual(m, x.q, x.p, x.t, h, q1, Fq, Jq) + Gtl.template lpNorm<Eigen::Infinity>();
    scale += Jq.cwiseAbs().rowwise().sum().maxCoeff() * q1.template lpNorm<Eigen::Infinity>();
    CVec g1;
    G1 = constraint_jacobian(m, q1, &g1);
    F << Fq - Gtl, g1 / h;
    J.template topLeftCorner<n, n>() = Jq;
    J.template bottomLeftCorner<c, n>() = G1 / h;
    gres = g1.template lpNorm<Eigen::Infinity>();
    gscale = detail::constraint_scale(G1, q1);
  };
  evaluate();
  for (int it = 1; it <= opt.del.newton.max_iterations; ++it) {
    res.iterations = it;
    if (!J.allFinite() || !F.allFinite())
      return fail(msg_constrained_nonfinite, F.template lpNorm<Eigen::Infinity>());
    const Eigen::PartialPivLU<Mat<K>> lu(J);
    if (!(lu.rcond() > singular_rcond)) {
      const bool dependent = !detail::full_row_rank(G0) || !detail::full_row_rank(G1);
      return fail(dependent ? msg_dependent_constraints : msg_constrained_singular,
                  F.template lpNorm<Eigen::Infinity>());
    }
    const Vec<K> dz = lu.solve(F);
    z -= dz;
    evaluate();
    res.residual = F.template lpNorm<Eigen::Infinity>();
    if (!std::isfinite(res.residual) || !z.allFinite()) return fail(msg_constrained_nonfinite, res.residual);
    // Step test on q1 only: lambda is fixed to round-off by the F_q residual test (its own round-off is
    // ~ eps |Lvv| |q1| / (h |G|), which would fail a relative step test for small h).
    const auto dq1 = dz.template head<n>();
    if (dq1.template lpNorm<Eigen::Infinity>() <=
            opt.del.newton.step_tol * (1.0 + z.template head<n>().template lpNorm<Eigen::Infinity>()) &&
        F.template head<n>().template lpNorm<Eigen::Infinity>() <= opt.del.newton.residual_tol * scale &&
        gres <= opt.del.newton.residual_tol * gscale) {
      if (gres > opt.drift_tol) return fail(msg_constraint_drift, gres);
      Vec<n> q1, p1;
      Method::advance(m, x.q, x.p, x.t, h, Vec<n>(z.template head<n>()), q1, p1);
      CVec mu = CVec::Zero();
      if (opt.projection == Projection::rattle) {
        Vec<n> p1r;
        if (!detail::rattle_projection(m, q1, p1, G1, Vec<n>((q1 - x.q) / h), opt.del.newton, p1r, mu))
          return fail(detail::full_row_rank(G1) ? msg_rattle_projection : msg_dependent_constraints, res.residual);
        p1 = p1r;
      }
      mult.lambda = z.template tail<c>();
      mult.mu = mu;
      x.q = q1;
      x.p = p1;
      x.t += h;
      return res;
    }
  }
  return fail(msg_constrained_iterations, res.residual);
}

/// One constrained step of Method (Midpoint or Trapezoid) on (q_k, p_k, t_k), in place on success.
template <class Method, ConstrainedModel M>
StepResult constrained_step(const M& m, DelState<M::dim>& x, double h, const ConstraintOptions& opt = {}) {
  ConstraintMultipliers<M::n_constraints> mult;
  return constrained_step<Method>(m, x, h, opt, mult);
}

/// "constrained DEL step k (t = ..): message (residual .., .. Newton iterations)".
inline std::string describe_constrained_failure(const StepResult& r, long k, double t) {
  return "constrained DEL step " + std::to_string(k) + " (t = " + std::to_string(t) + "): " + r.message +
         " (residual " + std::to_string(r.residual) + ", " + std::to_string(r.iterations) + " Newton iterations)";
}

/// `steps` constrained steps of size h from x, observer(k, x) after each (k = 1..steps). Throws
/// lievi::invalid_argument if the start violates the constraints by more than opt.drift_tol (use project_initial),
/// and lievi::numerical_failure (step index, time, residual, what to change) on a failed step.
template <class Method, ConstrainedModel M, class Observer>
void integrate_constrained(const M& m, DelState<M::dim>& x, double h, long steps, Observer&& observer,
                           const ConstraintOptions& opt = {}) {
  const double g0 = constraint_residual(m, x.q);
  if (!(g0 <= opt.drift_tol))
    throw invalid_argument("", "", "initial position violates the constraints: |g(q_0)| = " + std::to_string(g0) +
                                       " > drift_tol; project the initial data with project_initial");
  for (long k = 0; k < steps; ++k) {
    const StepResult r = constrained_step<Method>(m, x, h, opt);
    if (!r.converged) throw numerical_failure(k, x.t, -1, r.residual, describe_constrained_failure(r, k, x.t));
    observer(k + 1, x);
  }
}

/// Consistent initial data: q onto g = 0 by minimum-norm (Euclidean) Gauss–Newton, q <- q - G^T (G G^T)^{-1} g(q),
/// until the step is below tol::newton_step (1 + |q|); then qdot onto G(q) qdot = 0, minimum-norm in the kinetic
/// metric W = d2L/dqdot2(q, qdot): qdot <- qdot - W^{-1} G^T (G W^{-1} G^T)^{-1} G qdot. Returns false (q, qdot
/// possibly modified) if G G^T, W or G W^{-1} G^T is singular, a value is non-finite, or 50 iterations do not
/// converge.
template <ConstrainedModel M>
bool project_initial(const M& m, Vec<M::dim>& q, Vec<M::dim>& qdot) {
  constexpr int n = M::dim, c = M::n_constraints;
  using CVec = Eigen::Matrix<double, c, 1>;
  using CMat = Eigen::Matrix<double, c, n>;
  const solve::NewtonOptions newton{};
  bool converged = false;
  for (int it = 0; it < newton.max_iterations && !converged; ++it) {
    CVec g;
    const CMat G = constraint_jacobian(m, q, &g);
    if (!G.allFinite() || !g.allFinite()) return false;
    const Eigen::Matrix<double, c, c> A = G * G.transpose();
    const Eigen::PartialPivLU<Eigen::Matrix<double, c, c>> lu(A);
    if (!(lu.rcond() > singular_rcond)) return false;
    const Vec<n> dq = G.transpose() * lu.solve(g);
    q -= dq;
    if (!q.allFinite()) return false;
    converged = dq.template lpNorm<Eigen::Infinity>() <= newton.step_tol * (1.0 + q.template lpNorm<Eigen::Infinity>());
  }
  if (!converged) return false;
  CVec g;
  const CMat G = constraint_jacobian(m, q, &g);
  if (!(g.template lpNorm<Eigen::Infinity>() <= newton.residual_tol * detail::constraint_scale(G, q))) return false;
  return detail::project_onto_velocity_constraint(m, q, G, qdot);
}

}  // namespace lievi::integrators::del
