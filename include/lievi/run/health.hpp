#pragma once
/// @file lievi/run/health.hpp
/// @brief The numerical-health guard shared by the run loops: finite checks of reported values and the
/// round-off tolerance of an energy rise under pure dissipation (docs/outputs.md, "Numerical health").
#include <cmath>
#include <cstddef>
#include <limits>
#include <span>

namespace lievi::run::health {

/// Index of the first entry of `v` that is NaN or infinite, or -1 when all are finite.
[[nodiscard]] inline std::ptrdiff_t first_non_finite(std::span<const double> v) {
  for (std::size_t i = 0; i < v.size(); ++i)
    if (!std::isfinite(v[i])) return static_cast<std::ptrdiff_t>(i);
  return -1;
}

/// How far the energy H_k of a purely dissipative model may rise above its smallest earlier value before
/// the rise is reported as a numerical failure, after k steps from H_0 (`scale` = |H_0|, or the smallest
/// normal double when H_0 = 0):
///   tol_k = scale (1e-9 + 8 eps k).
/// The exact flow and an exactly dissipating method give H_k <= H_j for j < k; what remains is round-off.
/// One step changes M (or q, p) and the evaluation of H by a few relative ulps each (8 eps covers the step
/// and the evaluation), and in the worst case these add up over the k steps (linear, not sqrt(k)); the
/// 1e-9 floor covers an implicit method's solve tolerance (residuals of 1e-12 or below relative to |M|
/// move H by about 2e-12 H per step; 1e-9 is a margin over that for short runs, the linear term for long
/// ones). Any method whose energy rises by more than this is wrong, not merely inaccurate.
[[nodiscard]] inline double dissipation_rise_tol(double scale, long long k) {
  constexpr double eps = std::numeric_limits<double>::epsilon();
  return scale * (1e-9 + 8.0 * eps * static_cast<double>(k));
}

}  // namespace lievi::run::health
