#pragma once
/// @file lievi/integrators/del/del_stepper.hpp
/// @brief Position–momentum variational stepper (q_k, p_k) -> (q_{k+1}, p_{k+1}) for a discrete Lagrangian
/// tag (discrete_lagrangian.hpp), and the discrete Noether momentum map J_d = <p_k, xi_Q(q_k)>.
///
/// The implicit equation of the method (`Method::residual`) is solved by Newton with the AD Jacobian; the
/// stopping rule is that of solve::newton (||dx|| <= step_tol (1 + ||x||), ||F|| <= residual_tol * scale).
/// Failures are returned in a StepResult (never thrown): degenerate Lagrangian (d2L/dqdot2 singular), singular
/// DEL Jacobian, non-finite values, iteration limit. `integrate` turns a failure into lievi::numerical_failure
/// with the step index, time and residual.
#include <Eigen/LU>
#include <string>

#include "lievi/core/error.hpp"
#include "lievi/integrators/del/discrete_lagrangian.hpp"
#include "lievi/integrators/del/lagrangian.hpp"
#include "lievi/solve/newton.hpp"

namespace lievi::integrators::del {

/// Plain state: position q_k, discrete momentum p_k, time t_k.
template <int n>
struct DelState {
  Vec<n> q = Vec<n>::Zero();
  Vec<n> p = Vec<n>::Zero();
  double t = 0.0;
};

struct DelOptions {
  solve::NewtonOptions newton{};
  /// Check d2L/dqdot2 at (q_k, 0) before the solve; a (numerically) singular one is a degenerate Lagrangian.
  bool check_regularity = true;
};

/// Reciprocal condition number below which a matrix is treated as singular (~1000 eps).
inline constexpr double singular_rcond = 1e-13;

/// Whether an LU factorisation is (numerically) singular: rcond <= singular_rcond. The L1 condition estimate
/// costs more than the whole solve of a small system, so it is only computed when the pivots are suspicious
/// (smallest / largest |U_ii| below 1e-8); a well-spread pivot set is taken as regular. (A matrix with
/// well-spread pivots and rcond < 1e-13 is possible in principle, e.g. Kahan's; Newton then reports the
/// iteration limit instead of the singular-Jacobian message.)
template <class LU>
bool numerically_singular(const LU& lu) {
  const auto piv = lu.matrixLU().diagonal().cwiseAbs();
  const double lo = piv.minCoeff(), hi = piv.maxCoeff();
  if (!(hi > 0.0)) return true;
  if (lo > 1e-8 * hi) return false;
  return !(lu.rcond() > singular_rcond);
}

inline constexpr const char* msg_degenerate =
    "degenerate Lagrangian: d2L/dqdot2 is singular at q_k, so the discrete Euler-Lagrange equation does not "
    "determine q_{k+1}; give L a kinetic term positive definite in qdot (a regular Lagrangian)";
inline constexpr const char* msg_singular =
    "singular Jacobian D2 D1 Ld of the discrete Euler-Lagrange equation: the discrete Lagrangian is not regular "
    "here; check that L is regular in qdot, or reduce h";
inline constexpr const char* msg_nonfinite =
    "non-finite value in the discrete Euler-Lagrange solve; reduce h or check L, V, f near q_k";
inline constexpr const char* msg_iterations =
    "Newton did not converge on the discrete Euler-Lagrange equation within the iteration limit; reduce h or "
    "raise DelOptions::newton.max_iterations";

/// One step of `Method` on x = (q_k, p_k, t_k), in place on success (x unchanged on failure).
template <class Method, LagrangianModel M>
StepResult del_step(const M& m, DelState<M::dim>& x, double h, const DelOptions& opt = {}) {
  constexpr int n = M::dim;
  constexpr int K = Method::unknowns(n);
  StepResult res;
  // Start guess: one Newton step on the Legendre transform from qdot = 0 (exact for L quadratic in qdot).
  const auto d0 = lagrangian_derivatives(m, x.q, Vec<n>::Zero());
  const Eigen::PartialPivLU<Mat<n>> lu0(d0.Lvv);
  const bool regular = d0.Lvv.allFinite() && !numerically_singular(lu0);
  if (opt.check_regularity && !regular) {
    res.converged = false;
    res.message = msg_degenerate;
    return res;
  }
  const Vec<n> v0 = regular ? Vec<n>(lu0.solve(x.p - d0.Lv)) : Vec<n>::Zero();
  Vec<K> z;
  if constexpr (K == n)
    z = x.q + h * v0;
  else
    for (int i = 0; i < K / n; ++i) z.template segment<n>(n * i) = v0;
  Vec<K> F;
  Mat<K> J;
  double scale = Method::residual(m, x.q, x.p, x.t, h, z, F, J);
  for (int it = 1; it <= opt.newton.max_iterations; ++it) {
    res.iterations = it;
    const Eigen::PartialPivLU<Mat<K>> lu(J);
    if (!J.allFinite() || !F.allFinite()) {
      res.converged = false;
      res.residual = F.template lpNorm<Eigen::Infinity>();
      res.message = msg_nonfinite;
      return res;
    }
    if (numerically_singular(lu)) {
      res.converged = false;
      res.residual = F.template lpNorm<Eigen::Infinity>();
      res.message = msg_singular;
      return res;
    }
    const Vec<K> dz = lu.solve(F);
    z -= dz;
    scale = Method::residual(m, x.q, x.p, x.t, h, z, F, J);
    res.residual = F.template lpNorm<Eigen::Infinity>();
    if (!std::isfinite(res.residual) || !z.allFinite()) {
      res.converged = false;
      res.message = msg_nonfinite;
      return res;
    }
    // The residual cannot be computed more accurately than the rounding of z allows: |J| |z| eps. For the
    // position unknown q1 of midpoint/trapezoid, J ~ Lvv / h, so near rest (p0, Lv ~ 0) that term dominates
    // the terms' size `scale` and the test must include it (else Newton stalls at ~|Lvv| eps |q| / h).
    const double attainable = J.cwiseAbs().rowwise().sum().maxCoeff() * z.template lpNorm<Eigen::Infinity>();
    if (dz.template lpNorm<Eigen::Infinity>() <= opt.newton.step_tol * (1.0 + z.template lpNorm<Eigen::Infinity>()) &&
        res.residual <= opt.newton.residual_tol * (scale + attainable)) {
      Vec<n> q1, p1;
      Method::advance(m, x.q, x.p, x.t, h, z, q1, p1);
      x.q = q1;
      x.p = p1;
      x.t += h;
      return res;
    }
  }
  res.converged = false;
  res.message = msg_iterations;
  return res;
}

/// "DEL step k (t = ..): message (residual .., .. Newton iterations)".
inline std::string describe_failure(const StepResult& r, long k, double t) {
  return "DEL step " + std::to_string(k) + " (t = " + std::to_string(t) + "): " + r.message + " (residual " +
         std::to_string(r.residual) + ", " + std::to_string(r.iterations) + " Newton iterations)";
}

/// `steps` steps of size h from x, calling observer(k, x) after each; throws lievi::numerical_failure on failure.
template <class Method, LagrangianModel M, class Observer>
void integrate(const M& m, DelState<M::dim>& x, double h, long steps, Observer&& observer, const DelOptions& opt = {}) {
  for (long k = 0; k < steps; ++k) {
    const StepResult r = del_step<Method>(m, x, h, opt);
    if (!r.converged) throw numerical_failure(k, x.t, -1, r.residual, describe_failure(r, k, x.t));
    observer(k + 1, x);
  }
}

/// Discrete Noether momentum map J_d(q_k, p_k) = <p_k, xi_Q(q_k)> for the infinitesimal generator xi_Q of a
/// symmetry of L (MW01 discrete Noether theorem); conserved by every method here when Ld is invariant.
template <int n, class Generator>
double momentum_map(const DelState<n>& x, Generator&& xi_Q) {
  return x.p.dot(xi_Q(x.q));
}

}  // namespace lievi::integrators::del
