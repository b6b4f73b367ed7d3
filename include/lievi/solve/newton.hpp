#pragma once
/// @file lievi/solve/newton.hpp
/// @brief Small fixed-size Newton iteration with an analytic Jacobian (no allocation, no exceptions).
///
/// Solves F(x) = 0 for x in R^N by  x <- x - DF(x)^{-1} F(x)  and stops when both
///   ||dx||_inf <= step_tol (1 + ||x||_inf)              (docs/architecture.md; tol::newton_step), and
///   ||F(x)||_inf <= residual_tol * residual_scale        (residual near machine precision),
/// the residual being re-evaluated at the updated x. Non-convergence (iteration limit, singular or
/// non-finite Jacobian, non-finite iterate) is *returned* in a StepResult, never thrown.
#include <Eigen/Core>
#include <Eigen/LU>
#include <algorithm>
#include <cmath>
#include <type_traits>

#include "lievi/core/error.hpp"
#include "lievi/core/tolerances.hpp"

namespace lievi::solve {

/// Stopping rule and iteration limit of `newton`.
struct NewtonOptions {
  /// ||dx||_inf <= step_tol (1 + ||x||_inf)  (docs/theory/ddb.md "One step, as implemented").
  double step_tol = tol::newton_step;
  /// ||F(x)||_inf <= residual_tol * residual_scale. 1e-13 is ~500 ulps of the scale: loose enough for the
  /// rounding error of evaluating F (a few terms of size ~scale), tight enough to catch a wrong root.
  double residual_tol = 1e-13;
  int max_iterations = tol::newton_max_iterations;
};

/// Continuation in a parameter s in [0, 1]: follow the solution branch of F(x; s) = 0 from a known solution
/// `x` at s = 0 to s = 1 by Newton at increasing s; the increment (first 1/4) doubles on success and halves on
/// failure, and the continuation gives up below `min_increment`. `newton_at(s, x)` runs Newton at s from x (in
/// place) and returns its StepResult. Returns true with x at s = 1, or false (x at the last s reached);
/// `iterations` accumulates every Newton iteration spent. Used by the implicit rigid-body steps when the
/// start guess at the full step fails (s scales the time step).
template <class Vec, class NewtonAt>
bool continuation(NewtonAt&& newton_at, Vec& x, int& iterations, double min_increment) {
  double s = 0.0, ds = 0.25;
  while (s < 1.0 && ds >= min_increment) {
    const double s_try = std::min(1.0, s + ds);
    Vec x_try = x;
    const StepResult r = newton_at(s_try, x_try);
    iterations += r.iterations;
    if (r.converged) {
      s = s_try;
      x = x_try;
      ds *= 2.0;
    } else {
      ds *= 0.5;
    }
  }
  return s == 1.0;
}

/// Solve the 3x3 system J d = r by the adjugate in cross-product form:
///   with columns a, b, c of J:  d = ((b×c)·r, (c×a)·r, (a×b)·r) / (a·(b×c)).
/// Returns false (d untouched) if det J is zero or not finite.
inline bool solve3(const Eigen::Matrix3d& J, const Eigen::Vector3d& r, Eigen::Vector3d& d) {
  const Eigen::Vector3d a = J.col(0), b = J.col(1), c = J.col(2);
  const Eigen::Vector3d bc = b.cross(c), ca = c.cross(a), ab = a.cross(b);
  const double det = a.dot(bc);
  if (!(std::isfinite(det) && det != 0.0)) return false;
  const double inv = 1.0 / det;
  d = Eigen::Vector3d(bc.dot(r), ca.dot(r), ab.dot(r)) * inv;
  return true;
}

/// Solve J d = r for a small fixed-size N (partial-pivot LU; the 3x3 case uses `solve3`).
template <int N>
bool solve_small(const Eigen::Matrix<double, N, N>& J, const Eigen::Matrix<double, N, 1>& r,
                 Eigen::Matrix<double, N, 1>& d) {
  if constexpr (N == 3) {
    return solve3(J, r, d);
  } else {
    const Eigen::PartialPivLU<Eigen::Matrix<double, N, N>> lu(J);
    d = lu.solve(r);
    return d.allFinite();
  }
}

/// No approximate inverse: `newton` then uses only full Newton steps.
struct NoApproximateSolve {};

/// Newton's method for F(x) = 0, x in R^N, from the initial guess in `x` (overwritten by the solution).
///
/// @param F       x -> F(x) (Eigen::Matrix<double, N, 1>)
/// @param DF      x -> the Jacobian dF/dx (Eigen::Matrix<double, N, N>), analytic. DF is only ever called at
///                the point of the latest F call, so F may cache terms that DF reuses.
/// @param residual_scale  the size against which ||F||_inf is judged (e.g. ||M_k||_inf)
/// @param approx  optional r -> A r with A ~ DF^{-1} (e.g. I^{-1} for DF = I + O(h)). After each Newton update
///                whose step is not yet small, the simplified-Newton step dx' = A F(x) is tried: if it already
///                meets the step rule, x <- x - dx' and the residual rule is checked at that x, saving the
///                last (confirming) Jacobian and solve. The residual rule at the returned x is always enforced.
/// @return converged, iterations (Jacobian solves), residual ||F(x)||_inf at the returned x, message.
template <int N, class Residual, class Jacobian, class Approx = NoApproximateSolve>
StepResult newton(Residual&& F, Jacobian&& DF, Eigen::Matrix<double, N, 1>& x, double residual_scale,
                  const NewtonOptions& options = {}, Approx&& approx = {}) {
  using VecN = Eigen::Matrix<double, N, 1>;
  constexpr bool has_approx = !std::is_same_v<std::decay_t<Approx>, NoApproximateSolve>;
  StepResult result;
  VecN r = F(x);
  VecN dx;
  const double res_tol = options.residual_tol * residual_scale;
  for (int it = 1; it <= options.max_iterations; ++it) {
    result.iterations = it;
    if (!solve_small<N>(DF(x), r, dx)) {
      result.converged = false;
      result.residual = r.template lpNorm<Eigen::Infinity>();
      result.message = "Newton: singular or non-finite Jacobian";
      return result;
    }
    x -= dx;
    r = F(x);
    double res = r.template lpNorm<Eigen::Infinity>();
    result.residual = res;
    if (!std::isfinite(res) || !x.allFinite()) {
      result.converged = false;
      result.message = "Newton: non-finite iterate";
      return result;
    }
    const double step_tol = options.step_tol * (1.0 + x.template lpNorm<Eigen::Infinity>());
    if (dx.template lpNorm<Eigen::Infinity>() <= step_tol && res <= res_tol) return result;
    if constexpr (has_approx) {
      const VecN dx_simplified = approx(r);
      if (dx_simplified.template lpNorm<Eigen::Infinity>() <= step_tol) {
        x -= dx_simplified;
        r = F(x);
        res = r.template lpNorm<Eigen::Infinity>();
        result.residual = res;
        if (res <= res_tol) return result;
      }
    }
  }
  result.converged = false;
  result.message = "Newton did not converge within the iteration limit";
  return result;
}

}  // namespace lievi::solve
