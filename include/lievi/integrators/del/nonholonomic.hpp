#pragma once
/// @file lievi/integrators/del/nonholonomic.hpp
/// @brief Linear nonholonomic constraints A(q) qdot = 0 for the position–momentum variational steppers: the
/// discrete Lagrange–d'Alembert principle of Cortés & Martínez (Nonlinearity 14, 2001) with the midpoint
/// discrete constraint manifold (the time-symmetric choice discussed by McLachlan & Perlmutter, J. Nonlinear
/// Sci. 16, 2006). Theory and measurements: docs/theory/nonholonomic.md.
///
/// Continuous system. Lagrangian L(q, qdot) on R^n and m linear velocity constraints A(q) qdot = 0 (A: m x n,
/// full row rank). The Lagrange–d'Alembert principle (variations delta q in ker A(q), curves in the
/// constraint distribution D_q = ker A(q)) gives
///     d/dt dL/dqdot - dL/dq = A(q)^T lambda,      A(q) qdot = 0.
///
/// Discrete system. A discrete Lagrangian Ld(q_k, q_{k+1}) (Method: Midpoint or Trapezoid,
/// discrete_lagrangian.hpp), variations delta q_k in D_{q_k} (the continuous distribution at the nodes) and
/// the discrete constraint manifold
///     D_d = { (q0, q1) : A((q0 + q1)/2) (q1 - q0) = 0 }                                              (DCM)
/// give the discrete Lagrange–d'Alembert (DLA) equations
///     D2 Ld(q_{k-1}, q_k) + f_d^+ + D1 Ld(q_k, q_{k+1}) + f_d^- = A(q_k)^T lambda_k,
///     (q_k, q_{k+1}) in D_d.
/// Why (DCM): it is consistent (its tangent at the diagonal is D), it holds *exactly* at every step (it is
/// one of the equations Newton solves), and it is symmetric, (q0, q1) in D_d <=> (q1, q0) in D_d, so that
/// with a symmetric Ld (Midpoint, Trapezoid, L even in qdot) the two-step recursion in q is time-symmetric
/// (reversible), the property to which McLachlan & Perlmutter and Modin & Verdier (Numer. Math. 144, 2020)
/// attribute the good long-time energy behaviour of nonholonomic integrators.
///
/// Position–momentum form (p_k = D2 Ld(q_{k-1}, q_k) + f_d^+, as del_step): one step solves, for the unknowns
/// z = (q1, lambda) in R^{n+m},
///     F_q = p0 + D1 Ld(q0, q1) + f_d^-(q0, q1) - A(q0)^T lambda = 0                        (n rows)
///     F_c = A((q0 + q1)/2) (q1 - q0) / h = 0                                                (m rows)
/// by Newton with the exact Jacobian
///     [[ d(D1 Ld + f_d^-)/dq1,  -A(q0)^T ],
///      [ dF_c/dq1,               0       ]],   dF_c/dq1 = A(q_mid)/h + (1/2) (dA/dq (q_mid) . (q1 - q0)/h)
/// (dF_c/dq1 by one evaluation of A with Dual<double, n>; d(D1 Ld)/dq1 from Method::residual). Then
///     p1* = D2 Ld(q0, q1) + f_d^+(q0, q1)                                   (Method::advance)
/// and, by default (NonholonomicOptions::project_momentum), the projection of p1* onto the constraint at the
/// new node, as RATTLE does for holonomic constraints:
///     p1 = p1* + A(q1)^T mu,   A(q1) qdot(q1, p1) = 0,   qdot the inverse Legendre transform.
/// The constraint force of step k acts through A(q0), which does not depend on the unknowns; since
/// A(q1)^T mu is absorbed into the next step's lambda (lambda_{k+1} -> lambda_{k+1} - mu), the projection
/// does not change the q-trajectory. It changes the reported momentum: p1* is the one-sided D2 Ld, off the
/// constraint by O(h) and first order in time; the projected p1 satisfies the velocity constraint at the node
/// exactly and is second order (measured, docs/theory/nonholonomic.md).
///
/// What holds exactly and what does not: F_c = 0 (the discrete constraint) to round-off at every step, and
/// with the projection A(q_k) qdot(q_k, p_k) = 0 at every node. Energy is not conserved exactly in general
/// (measured in docs/theory/nonholonomic.md).
///
/// Stopping rule (as constraints.hpp): |dq1|_inf <= step_tol (1 + |q1|_inf), |F_q|_inf <= residual_tol (terms
/// of F_q + |A(q0)^T lambda| + |dF_q/dq1|_inf |q1|_inf) and |F_c|_inf <= residual_tol |A(q_mid)|_inf
/// (|q0|_inf + |q1|_inf) / h (the round-off of q1 - q0 stored to relative eps, divided by h). Failures are
/// returned in the StepResult (never thrown): degenerate Lagrangian, singular Jacobian (its own message when
/// A is rank deficient), non-finite values, iteration limit. Fixed-size Eigen throughout (no allocation).
#include <Eigen/Core>
#include <Eigen/LU>
#include <Eigen/SVD>
#include <cmath>
#include <concepts>
#include <limits>
#include <string>

#include "lievi/core/error.hpp"
#include "lievi/integrators/del/constraints.hpp"
#include "lievi/integrators/del/del_stepper.hpp"
#include "lievi/integrators/del/lagrangian.hpp"

namespace lievi::integrators::del {

/// A Lagrangian model with m = n_constraints linear velocity constraints A(q) qdot = 0 (1 <= m < dim), A(q)
/// (m x dim) written generically in the scalar S (it is differentiated with Dual<double, dim>).
template <class M>
concept NonholonomicModel = LagrangianModel<M> && requires {
  requires(M::n_constraints >= 1 && M::n_constraints < M::dim);
} && requires(const M& m, const Eigen::Matrix<double, M::dim, 1>& q,
              const Eigen::Matrix<Dual<double, M::dim>, M::dim, 1>& qd) {
  { m.A(q) } -> std::convertible_to<Eigen::Matrix<double, M::n_constraints, M::dim>>;
  { m.A(qd) } -> std::convertible_to<Eigen::Matrix<Dual<double, M::dim>, M::n_constraints, M::dim>>;
};

struct NonholonomicOptions {
  DelOptions del{};
  /// Project p_{k+1} onto the constraint at the node, p_{k+1} = p* + A(q_{k+1})^T mu with
  /// A(q_{k+1}) qdot(q_{k+1}, p_{k+1}) = 0 (the RATTLE analogue, see nonholonomic_step). The q-trajectory
  /// does not depend on it; without it p_k is the one-sided momentum D2 Ld, first order in time.
  bool project_momentum = true;
  /// integrate_nonholonomic refuses a start whose velocity violates the constraints by more than
  /// initial_tol |A(q_0)|_inf |qdot_0|_inf (use project_velocity).
  double initial_tol = 1e-10;
};

inline constexpr const char* msg_nonholonomic_dependent =
    "singular Jacobian of the nonholonomic step: the constraint matrix A(q) is rank deficient (dependent or "
    "redundant velocity constraints, or a singular point of A); remove redundant rows so that A(q) has "
    "full row rank";
inline constexpr const char* msg_nonholonomic_singular =
    "singular Jacobian [[D2 D1 Ld, -A(q_k)^T], [dF_c/dq_{k+1}, 0]] of the discrete Lagrange-d'Alembert "
    "equations; reduce h, or check that L is regular in qdot near q_k";
inline constexpr const char* msg_nonholonomic_nonfinite =
    "non-finite value in the discrete Lagrange-d'Alembert solve; reduce h or check L, V, f, A near q_k";
inline constexpr const char* msg_nonholonomic_projection =
    "momentum projection onto the constraint failed ([[d2L/dqdot2, -A^T], [A, 0]] at q_{k+1} singular, or "
    "Newton on the inverse Legendre transform did not converge); check that L is regular and A(q_{k+1}) has "
    "full rank, or set NonholonomicOptions::project_momentum = false";
inline constexpr const char* msg_nonholonomic_iterations =
    "Newton did not converge on the discrete Lagrange-d'Alembert equations (q_{k+1}, lambda_k) within the "
    "iteration limit; reduce h or raise NonholonomicOptions::del.newton.max_iterations";

/// The constraint matrix A(q) (m x n) at double.
template <NonholonomicModel M>
Eigen::Matrix<double, M::n_constraints, M::dim> constraint_matrix(const M& m, const Vec<M::dim>& q) {
  return m.A(q);
}

/// The discrete constraint F_c(q0, q1) = A((q0 + q1)/2) (q1 - q0) / h of (DCM), at any scalar S.
template <NonholonomicModel M, class S>
Eigen::Matrix<S, M::n_constraints, 1> discrete_constraint(const M& m, const Eigen::Matrix<S, M::dim, 1>& q0,
                                                          const Eigen::Matrix<S, M::dim, 1>& q1, double h) {
  const Eigen::Matrix<S, M::dim, 1> qm = 0.5 * (q0 + q1), dq = (q1 - q0) / h;
  return m.A(qm) * dq;
}

/// max_i |(A(q_mid) (q1 - q0))_i|: the discrete constraint of a step (displacement units; zero to round-off
/// on a converged step).
template <NonholonomicModel M>
double discrete_constraint_residual(const M& m, const Vec<M::dim>& q0, const Vec<M::dim>& q1) {
  const Vec<M::dim> qm = 0.5 * (q0 + q1);
  const Eigen::Matrix<double, M::n_constraints, 1> c = m.A(qm) * (q1 - q0);
  return c.template lpNorm<Eigen::Infinity>();
}

/// max_i |(A(q) qdot)_i| with qdot = qdot(q, p) the inverse Legendre transform of p (Newton from qdot = 0):
/// the continuous constraint at a node (zero to round-off with the node projection, O(h) without it); +inf
/// if the transform fails.
template <NonholonomicModel M>
double velocity_constraint_residual(const M& m, const Vec<M::dim>& q, const Vec<M::dim>& p) {
  Vec<M::dim> v = Vec<M::dim>::Zero();
  if (!velocity_from_momentum(m, q, p, v)) return std::numeric_limits<double>::infinity();
  const Eigen::Matrix<double, M::n_constraints, 1> c = m.A(q) * v;
  return c.template lpNorm<Eigen::Infinity>();
}

/// The step equations F(z) = (F_q, F_c), z = (q1, lambda), and their Jacobian J = dF/dz (see the file
/// comment); returns the scale of the F_q terms (method terms + |A(q0)^T lambda| + |dF_q/dq1| |q1|). `cscale`
/// receives the round-off scale of F_c, |A(q_mid)|_inf (|q0|_inf + |q1|_inf) / h. Public so that tests
/// compare J with finite differences.
template <class Method, NonholonomicModel M>
double nonholonomic_residual(const M& m, const Vec<M::dim>& q0, const Vec<M::dim>& p0, double t0, double h,
                             const Vec<M::dim + M::n_constraints>& z, Vec<M::dim + M::n_constraints>& F,
                             Mat<M::dim + M::n_constraints>& J, double* cscale = nullptr) {
  constexpr int n = M::dim, c = M::n_constraints;
  using CVec = Eigen::Matrix<double, c, 1>;
  const Vec<n> q1 = z.template head<n>();
  const CVec lambda = z.template tail<c>();
  const Eigen::Matrix<double, c, n> A0 = m.A(q0);
  Vec<n> Fq;
  Mat<n> Jq;
  const Vec<n> Atl = A0.transpose() * lambda;
  double scale = Method::residual(m, q0, p0, t0, h, q1, Fq, Jq) + Atl.template lpNorm<Eigen::Infinity>();
  scale += Jq.cwiseAbs().rowwise().sum().maxCoeff() * q1.template lpNorm<Eigen::Infinity>();
  CVec Fc;
  const Eigen::Matrix<double, c, n> Jc = jacobian<c, n>(
      [&](const Eigen::Matrix<Dual<double, n>, n, 1>& s) -> Eigen::Matrix<Dual<double, n>, c, 1> {
        const Eigen::Matrix<Dual<double, n>, n, 1> s0 = q0.template cast<Dual<double, n>>();
        return discrete_constraint(m, s0, s, h);
      },
      q1, &Fc);
  F << Fq - Atl, Fc;
  J.template topLeftCorner<n, n>() = Jq;
  J.template topRightCorner<n, c>() = -A0.transpose();
  J.template bottomLeftCorner<c, n>() = Jc;
  J.template bottomRightCorner<c, c>().setZero();
  if (cscale) {
    const Eigen::Matrix<double, c, n> Am = m.A(Vec<n>(0.5 * (q0 + q1)));
    *cscale = Am.cwiseAbs().rowwise().sum().maxCoeff() *
              (q0.template lpNorm<Eigen::Infinity>() + q1.template lpNorm<Eigen::Infinity>()) / h;
  }
  return scale;
}

/// Momentum projection onto the constraint at a node: p = p* + A(q)^T mu with A(q) qdot = 0, where
/// dL/dqdot(q, qdot) = p (qdot the inverse Legendre transform of p). Newton on (qdot, mu) with the Jacobian
/// [[Lvv(q, qdot), -A(q)^T], [A(q), 0]] from qdot = v_guess, mu = 0 (one linear solve for L quadratic in
/// qdot, then one confirming iteration); the stopping rule is that of the step. Returns false (p, mu
/// unchanged) on a singular or non-finite system or at the iteration limit.
template <NonholonomicModel M>
bool project_momentum(const M& m, const Vec<M::dim>& q, const Vec<M::dim>& p_star, const Vec<M::dim>& v_guess,
                      const solve::NewtonOptions& newton, Vec<M::dim>& p,
                      Eigen::Matrix<double, M::n_constraints, 1>& mu) {
  return detail::rattle_projection(m, q, p_star, constraint_matrix(m, q), v_guess, newton, p, mu);
}

/// One discrete Lagrange–d'Alembert step of Method (Midpoint or Trapezoid) with the midpoint discrete
/// constraint (DCM) on x = (q_k, p_k, t_k), in place on success (x unchanged on failure); the multiplier
/// lambda_k of p_k + D1 Ld + f_d^- = A(q_k)^T lambda_k in `lambda`.
template <class Method, NonholonomicModel M>
StepResult nonholonomic_step(const M& m, DelState<M::dim>& x, double h, const NonholonomicOptions& opt,
                             Eigen::Matrix<double, M::n_constraints, 1>& lambda) {
  static_assert(
      Method::unknowns(M::dim) == M::dim,
      "nonholonomic_step needs a discrete Lagrangian whose unknown is q_{k+1} (Midpoint, Trapezoid)");
  constexpr int n = M::dim, c = M::n_constraints, K = n + c;
  using CVec = Eigen::Matrix<double, c, 1>;
  StepResult res;
  auto fail = [&](const char* msg, double residual) {
    res.converged = false;
    res.message = msg;
    res.residual = residual;
    return res;
  };
  // Start guess as del_step: q1 = q0 + h v0 (v0 from one Newton step on the Legendre transform), lambda = 0.
  const auto d0 = lagrangian_derivatives(m, x.q, Vec<n>::Zero());
  const Eigen::PartialPivLU<Mat<n>> lu0(d0.Lvv);
  const bool regular = d0.Lvv.allFinite() && !detail::singular_saddle<n>(d0.Lvv, lu0);
  if (opt.del.check_regularity && !regular) return fail(msg_degenerate, 0.0);
  const Vec<n> v0 = regular ? Vec<n>(lu0.solve(x.p - d0.Lv)) : Vec<n>::Zero();
  Vec<K> z;
  z << x.q + h * v0, CVec::Zero();
  Vec<K> F;
  Mat<K> J;
  double cscale = 0.0;
  double scale = nonholonomic_residual<Method>(m, x.q, x.p, x.t, h, z, F, J, &cscale);
  for (int it = 1; it <= opt.del.newton.max_iterations; ++it) {
    res.iterations = it;
    if (!J.allFinite() || !F.allFinite())
      return fail(msg_nonholonomic_nonfinite, F.template lpNorm<Eigen::Infinity>());
    const Eigen::PartialPivLU<Mat<K>> lu(J);
    if (detail::singular_saddle<K>(J, lu)) {
      const Eigen::Matrix<double, c, n> A0 = m.A(x.q);
      return fail(detail::full_row_rank(A0) ? msg_nonholonomic_singular : msg_nonholonomic_dependent,
                  F.template lpNorm<Eigen::Infinity>());
    }
    const Vec<K> dz = lu.solve(F);
    z -= dz;
    scale = nonholonomic_residual<Method>(m, x.q, x.p, x.t, h, z, F, J, &cscale);
    res.residual = F.template lpNorm<Eigen::Infinity>();
    if (!std::isfinite(res.residual) || !z.allFinite()) return fail(msg_nonholonomic_nonfinite, res.residual);
    // Step test on q1 only: lambda is fixed to round-off by the F_q residual test (F_q is linear in lambda).
    const auto dq1 = dz.template head<n>();
    if (dq1.template lpNorm<Eigen::Infinity>() <=
            opt.del.newton.step_tol * (1.0 + z.template head<n>().template lpNorm<Eigen::Infinity>()) &&
        F.template head<n>().template lpNorm<Eigen::Infinity>() <= opt.del.newton.residual_tol * scale &&
        F.template tail<c>().template lpNorm<Eigen::Infinity>() <= opt.del.newton.residual_tol * cscale) {
      Vec<n> q1, p1;
      Method::advance(m, x.q, x.p, x.t, h, Vec<n>(z.template head<n>()), q1, p1);
      if (opt.project_momentum) {
        Vec<n> p1r;
        CVec mu;
        if (!project_momentum(m, q1, p1, Vec<n>((q1 - x.q) / h), opt.del.newton, p1r, mu)) {
          const Eigen::Matrix<double, c, n> A1 = m.A(q1);
          return fail(detail::full_row_rank(A1) ? msg_nonholonomic_projection : msg_nonholonomic_dependent,
                      res.residual);
        }
        p1 = p1r;
      }
      lambda = z.template tail<c>();
      x.q = q1;
      x.p = p1;
      x.t += h;
      return res;
    }
  }
  return fail(msg_nonholonomic_iterations, res.residual);
}

/// One discrete Lagrange–d'Alembert step (multiplier discarded).
template <class Method, NonholonomicModel M>
StepResult nonholonomic_step(const M& m, DelState<M::dim>& x, double h, const NonholonomicOptions& opt = {}) {
  Eigen::Matrix<double, M::n_constraints, 1> lambda;
  return nonholonomic_step<Method>(m, x, h, opt, lambda);
}

/// "nonholonomic DLA step k (t = ..): message (residual .., .. Newton iterations)".
inline std::string describe_nonholonomic_failure(const StepResult& r, long k, double t) {
  return "nonholonomic DLA step " + std::to_string(k) + " (t = " + std::to_string(t) + "): " + r.message +
         " (residual " + std::to_string(r.residual) + ", " + std::to_string(r.iterations) +
         " Newton iterations)";
}

/// Consistent initial velocity: qdot <- qdot - W^{-1} A^T (A W^{-1} A^T)^{-1} A qdot, the projection onto
/// ker A(q) that is orthogonal in the kinetic metric W = d2L/dqdot2(q, qdot). Returns false (qdot unchanged)
/// if W or A W^{-1} A^T is singular or a value is non-finite.
template <NonholonomicModel M>
bool project_velocity(const M& m, const Vec<M::dim>& q, Vec<M::dim>& qdot) {
  return detail::project_onto_velocity_constraint(m, q, constraint_matrix(m, q), qdot);
}

/// The state (q, p = dL/dqdot(q, qdot), t): the start of a DLA run from a position and a velocity in D_q.
template <NonholonomicModel M>
DelState<M::dim> nonholonomic_state(const M& m, const Vec<M::dim>& q, const Vec<M::dim>& qdot,
                                    double t = 0.0) {
  DelState<M::dim> x;
  x.q = q;
  x.p = legendre(m, q, qdot);
  x.t = t;
  return x;
}

/// `steps` DLA steps of size h from x, observer(k, x) after each (k = 1..steps). Throws
/// lievi::invalid_argument if the start velocity qdot(q_0, p_0) violates A(q_0) qdot = 0 by more than
/// opt.initial_tol |A| |qdot| (use project_velocity), and lievi::numerical_failure (step index, time,
/// residual, what to change) on a failed step.
template <class Method, NonholonomicModel M, class Observer>
void integrate_nonholonomic(const M& m, DelState<M::dim>& x, double h, long steps, Observer&& observer,
                            const NonholonomicOptions& opt = {}) {
  Vec<M::dim> v = Vec<M::dim>::Zero();
  if (!velocity_from_momentum(m, x.q, x.p, v))
    throw invalid_argument("", "", "initial momentum: the inverse Legendre transform qdot(q_0, p_0) failed");
  const Eigen::Matrix<double, M::n_constraints, M::dim> A = m.A(x.q);
  const double c0 = (A * v).template lpNorm<Eigen::Infinity>();
  const double c_scale = A.cwiseAbs().rowwise().sum().maxCoeff() * v.template lpNorm<Eigen::Infinity>();
  if (!(c0 <= opt.initial_tol * c_scale) && !(c0 == 0.0))
    throw invalid_argument("", "",
                           "initial velocity violates the nonholonomic constraints: |A(q_0) qdot_0| = " +
                               std::to_string(c0) + "; project it with project_velocity");
  for (long k = 0; k < steps; ++k) {
    const StepResult r = nonholonomic_step<Method>(m, x, h, opt);
    if (!r.converged)
      throw numerical_failure(k, x.t, -1, r.residual, describe_nonholonomic_failure(r, k, x.t));
    observer(k + 1, x);
  }
}

}  // namespace lievi::integrators::del
