#pragma once
/// @file lievi/core/tolerances.hpp
/// @brief Named thresholds: below them the closed forms lose digits to cancellation and a series is used.
///
/// Each threshold is used by exactly one helper (lie/so3.hpp, lie/se3.hpp), whose series order is stated
/// there; the tests evaluate each helper at, below and above its threshold.
namespace lievi::tol {

/// Below this angle sinc(t) = sin t/t (hence (1 - cos t)/t^2 = sinc(t/2)^2/2 below 1) and beta(t) use their
/// Taylor series (to t^12 and t^14, exact to ~1e-18 there). Above it sinc has no cancellation, and beta uses a
/// cancellation-free rewriting (so3_series::beta), so nothing loses digits across 0.5.
inline constexpr double small_angle = 0.5;

/// Below this angle gamma(t) = beta'(t)/t uses its Bernoulli series (to t^24, exact to < 1e-17 relative at
/// 1); above it the cancellation-free rewriting gamma = (numerator)/sinc(t/2)^2 (so3_series::gamma).
inline constexpr double small_angle_gamma = 1.0;

/// Newton stopping rule of the small implicit solves: ||dx||_inf <= newton_step * (1 + ||x||_inf).
inline constexpr double newton_step = 1e-14;

/// Cayley's inverse cay^{-1}(R) = 2 (R - R^T)^vee / (1 + tr R) is singular at rotations by pi; below this
/// margin 1 + tr R it is refused (docs/theory/beam.md "SE(3) formulas"): `Cayley<SO3>::tau_inv` returns NaN and the
/// beam stepper names the segment.
inline constexpr double cayley_margin = 1e-8;

/// Maximum Newton iterations before a step reports non-convergence.
inline constexpr int newton_max_iterations = 50;

// --- thresholds added with the Lie-group core (each used by one helper in lie/so3.hpp or lie/se3.hpp)

/// (t - sin t)/t^3 (the "C" of dexp on SO(3), c_1 of the SE(3) Q-matrix): series to t^20 below this angle.
/// The closed form loses eps t/(t - sin t) ~ 6 eps/t^2 relative: <= 3 eps above 1.5; the series' first
/// omitted term is < 1e-18 relative at 1.5.
inline constexpr double small_angle_t_minus_sin = 1.5;

/// (1 - cos t - (t/2) sin t)/t^4, the numerator of beta(t) = 2 (that)/sinc(t/2)^2: series to t^22 below this
/// angle. The closed form loses ~ 12 eps/t^2 relative: <= 3 eps above 2; the series is exact to < 1e-17 at 2.
inline constexpr double small_angle_beta_numerator = 2.0;

/// (t^2 + t sin t - 4 (1 - cos t))/t^6, the numerator of gamma(t) = (that)/sinc(t/2)^2: series to t^28 below
/// this angle. The closed form loses ~ 360 eps/t^4 (x its 3 terms) relative: <= 3 eps above 4; the series is
/// exact to < 1e-17 relative at 4.
inline constexpr double small_angle_gamma_numerator = 4.0;

/// (t^2 + 2 cos t - 2)/(2 t^4), the c_2 of the SE(3) Q-matrix (docs/theory/beam.md "SE(3) formulas"): series to t^22 below this
/// angle. The closed form loses ~ 12 eps/t^2 relative: <= 3 eps above 2.
inline constexpr double small_angle_se3_c2 = 2.0;

/// (2t - 3 sin t + t cos t)/(2 t^5), the c_3 of the SE(3) Q-matrix: series to t^26 below this angle. The
/// closed form loses ~ 360 eps/t^4 relative: <= 5 eps above 3.
inline constexpr double small_angle_se3_c3 = 3.0;

}  // namespace lievi::tol
