#pragma once
/// @file lievi/lie/retraction/series.hpp
/// @brief Truncated series of the right-trivialised tangent of exp and of its inverse, for any Lie group.
///
///   dexp_x      = sum_{k>=0} ad_x^k / (k+1)!         (entire in x)
///   dexp_x^{-1} = sum_{k>=0} (B_k / k!) ad_x^k       (B_1 = -1/2; converges for the spectral radius of ad_x
///                                                      below 2 pi, i.e. |omega| < 2 pi on SO(3) and SE(3))
/// Convention: right-trivialised, T_x exp(y) = hat(dexp_x y) exp(x) (seed 002 §4, docs/theory/beam.md "SE(3) formulas"). The paper's
/// `exp2` is dexp_inv_series(x, 2) = I - ½ ad_x + (1/12) ad_x^2.
#include <string>

#include "lievi/core/error.hpp"
#include "lievi/lie/bernoulli.hpp"
#include "lievi/lie/concepts.hpp"

namespace lievi::lie {

/// sum_{k=0}^{order} ad_x^k / (k+1)!  (order >= 0; the truncation error is O(|ad_x|^{order+1}/(order+2)!)).
template <LieGroup G>
typename G::Matrix dexp_series(const typename G::Algebra& x, int order) {
  using M = typename G::Matrix;
  if (order < 0) throw invalid_argument("", "order", "value " + std::to_string(order) + " must be >= 0");
  const M A = G::ad(x);
  M term = M::Identity();  // ad_x^k / (k+1)!
  M sum = term;
  for (int k = 1; k <= order; ++k) {
    term = (A * term) / static_cast<double>(k + 1);
    sum += term;
  }
  return sum;
}

/// sum_{k=0}^{order} (B_k / k!) ad_x^k  (0 <= order <= bernoulli::max_order).
template <LieGroup G>
typename G::Matrix dexp_inv_series(const typename G::Algebra& x, int order) {
  using M = typename G::Matrix;
  if (order < 0 || order > bernoulli::max_order)
    throw invalid_argument("", "order", "value " + std::to_string(order) + " must be in [0, " +
                                            std::to_string(bernoulli::max_order) + "]");
  const M A = G::ad(x);
  M power = M::Identity();  // ad_x^k
  M sum = power;            // b_0 = 1
  for (int k = 1; k <= order; ++k) {
    power = A * power;
    if (bernoulli::over_factorial[k] != 0.0) sum += bernoulli::over_factorial[k] * power;
  }
  return sum;
}

}  // namespace lievi::lie
