#pragma once
/// @file lievi/core/tolerances.hpp
/// @brief Named thresholds: below them the closed forms lose digits to cancellation and a series is used.
///
/// Each threshold is used by exactly one helper (lie/so3.hpp, lie/se3.hpp), whose series order is stated
/// there; the tests evaluate each helper at, below and above its threshold.
namespace lievi::tol {

/// Below this angle the SO(3)/SE(3) closed forms with cancellation ((1-cos)/t^2, (t-sin)/t^3, beta, ...)
/// switch to their Taylor series. 0.5 keeps the closed form's cancellation error below ~5e-15 relative
/// while a series to t^12 is exact to ~1e-17 there.
inline constexpr double small_angle = 0.5;

/// Below this angle gamma(t) = beta'(t)/t (a 4th-derivative-like combination with heavier cancellation)
/// uses its series (to t^16).
inline constexpr double small_angle_gamma = 1.0;

/// Newton stopping rule of the small implicit solves: ||dx||_inf <= newton_step * (1 + ||x||_inf).
inline constexpr double newton_step = 1e-14;

/// Maximum Newton iterations before a step reports non-convergence.
inline constexpr int newton_max_iterations = 50;

}  // namespace lievi::tol
