#pragma once
/// @file lievi/integrators/ode/dop853.hpp
/// @brief DOP853 — the explicit Dormand–Prince 8(5,3) pair with adaptive step control — for the rigid body,
/// integrating the attitude with the momentum (rigid-body-ddb spec §6; comparator of seed 002):
///   y = (M, vec R) in R^12,  dM/dt = f(M) (models/rigid_body.hpp),  dR/dt = R hat(Omega),  Omega = I^{-1} M.
///
/// Method (Hairer, Nørsett & Wanner, Solving Ordinary Differential Equations I, 2nd ed., Springer 1993,
/// Section II.5: the order-8 pair of Prince & Dormand 1981; and Hairer's Fortran code dop853.f, whose error
/// estimator of orders 5 and 3, step-size controller and initial step `hinit` are followed here):
///  - 12 stages, y_{n+1} = y_n + h sum_i b_i k_i (order 8); first-same-as-last: f(y_{n+1}) is the next k_1.
///  - error estimate as in DOP853: with sk_l = atol + rtol max(|y_n,l|, |y_{n+1},l|),
///      err5 = sum_l (sum_i e5_i k_i,l / sk_l)^2,  err3 = sum_l (sum_i e3_i k_i,l / sk_l)^2,
///      err  = |h| err5 / sqrt(n (err5 + 0.01 err3)),   n = 12,
///    (e5: the 8th minus the embedded 5th-order weights; e3: the 8th minus the 3rd-order weights).
///  - step accepted iff err <= 1; controller h_new = h min(6, max(0.333, 0.9 err^{-1/8})) (DOP853's defaults:
///    safety 0.9, fac1 = 0.333, fac2 = 6, beta = 0); after a rejection the step is not increased.
///  - initial step by Hairer's `hinit` (explicit Euler probe of the second derivative), capped by the output
///    interval.
///
/// Output at requested times: `step(x, H)` integrates exactly from t to t + H with as many internal accepted
/// steps as needed; the last internal step is clamped to land on t + H (a step ending within 1% short of t + H is
/// stretched to it, as in dop853.f). The internal step size is carried across
/// calls (the controller's proposal; a step shortened only to land on t + H does not shrink it). No dense output.
/// Failure (non-finite state, step-size underflow, more than `max_steps` internal steps in one call) is returned
/// in StepResult with x unchanged.
#include <Eigen/Core>

#include "lievi/core/error.hpp"
#include "lievi/integrators/rigid_body_stepper.hpp"
#include "lievi/models/rigid_body.hpp"

namespace lievi::integrators {

/// Tolerances and limits of `Dop853`.
struct Dop853Options {
  double rtol = 1e-13;         ///< integrator.rtol
  double atol = 1e-13;         ///< integrator.atol
  long max_steps = 1'000'000;  ///< internal steps (accepted + rejected) allowed in one `step` call
};

class Dop853 {
 public:
  static constexpr MethodTraits traits{"dop853", 8, false, false, false, true,
                                       "Dormand-Prince 8(5,3), adaptive rtol/atol (comparator; M and R)"};
  /// The state y = (M1, M2, M3, R00, R10, R20, R01, ..., R22): M then R column-major.
  using Vec12 = Eigen::Matrix<double, 12, 1>;

  using Options = Dop853Options;

  /// Throws lievi::invalid_argument (keys integrator.rtol / integrator.atol) unless both are finite and > 0.
  explicit Dop853(const models::RigidBody& body, const Options& options = {});

  /// Reset the carried step size and counters; the first internal step is chosen by `hinit` from x0 (<= h).
  void start(const models::RigidBodyState& x0, double h);
  /// Integrate x from t to t + h exactly (adaptive internal steps). x is unchanged on failure.
  StepResult step(models::RigidBodyState& x, double h);

  /// One fixed step of the 8th-order formula (no error control): y <- y + h sum_i b_i k_i. For measuring the
  /// order. Returns converged = false (x unchanged) if the result is not finite.
  static StepResult fixed_step(const models::RigidBody& body, models::RigidBodyState& x, double h);

  /// Right-hand side of the coupled system: (f(M), vec(R hat(Omega))).
  [[nodiscard]] static Vec12 rhs(const models::RigidBody& body, const Vec12& y);

  [[nodiscard]] long accepted_steps() const noexcept { return accepted_; }
  [[nodiscard]] long rejected_steps() const noexcept { return rejected_; }
  [[nodiscard]] long evaluations() const noexcept { return evaluations_; }
  [[nodiscard]] double internal_step() const noexcept { return h_next_; }

 private:
  /// One trial step from (y, f0 = f(y)) with step h: the 8th-order y_new and DOP853's scaled error norm.
  double attempt(const Vec12& y, const Vec12& f0, double h, Vec12& y_new) const;
  /// Hairer's initial step-size guess from (y0, f0), capped by h_max.
  double initial_step(const Vec12& y0, const Vec12& f0, double h_max);

  models::RigidBody body_;
  Options options_;
  double h_next_ = 0.0;  ///< proposal for the next internal step (0: not yet chosen)
  double t_ = 0.0;       ///< time since `start` (for the underflow test)
  bool have_f_ = false;  ///< f_ holds f(y) of the state returned by the last call (FSAL)
  Vec12 y_last_ = Vec12::Zero();
  Vec12 f_ = Vec12::Zero();
  long accepted_ = 0, rejected_ = 0, evaluations_ = 0;
};

}  // namespace lievi::integrators
