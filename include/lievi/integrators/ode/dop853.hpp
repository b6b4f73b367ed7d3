#pragma once
/// @file lievi/integrators/ode/dop853.hpp
/// @brief DOP853 — the explicit Dormand–Prince 8(5,3) pair with adaptive step control — for the rigid body,
/// integrating the attitude with the momentum (docs/theory/ddb.md "Comparators and scenarios"; comparator of
/// seed 002):
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
///    interval (landing mode) or by t_end (dense mode, if set).
///
/// Output at requested times, `step(x, H)` from the output time t to t + H. Two modes
/// (`Dop853Options::dense_output`):
///  - dense output (default): the integrator takes its natural steps (the controller's sizes, independent of the
///    output times) and the state at t + H is interpolated by Hairer's continuous extension of order 7 (dop853.f's
///    `contd8`; Hairer, Nørsett & Wanner, Section II.6): three extra stages k_14, k_15, k_16 per step, computed only
///    for steps that contain an output time, and
///      y(t_n + s h) = y_n + s (F0 + (1-s)(F1 + s (F2 + (1-s)(F3 + s (F4 + (1-s)(F5 + s F6)))))),
///    F0 = y_{n+1} - y_n, F1 = h f_n - F0, F2 = 2 F0 - h (f_n + f_{n+1}), F3..F6 = h sum_i d_{j,i} k_i.
///    The integrator runs ahead of the output by at most one step; the number of natural steps does not depend on
///    the output cadence. The end time: with `t_end` set (finite) no natural step crosses it, a step ending within
///    1% short of it is stretched to land on it (as dop853.f does at xend), and an output time within a few ulps of
///    t_end is taken as t_end, so the state at t_end is the 8th-order solution of a step landing on it (not
///    interpolated). Without `t_end` (the registry's stepper: `lievi run` does not pass its end time) the state at
///    the last output time is interpolated like every other output.
///  - landing (dense_output = false; the former behaviour): every call integrates exactly from t to t + H, the
///    last internal step clamped to land on t + H (a step ending within 1% short of t + H is stretched to it, as in
///    dop853.f). With frequent outputs this shortens most steps (about 5x slower at output every 0.1 on Scenario A).
/// In both modes the internal step size is carried across calls (the controller's proposal; in landing mode a step
/// shortened only to land on t + H does not shrink it), and the attitude part of y is returned as integrated or
/// interpolated (no re-orthonormalisation of R, as before: |R^T R - I| is ~1 tol at step ends and, measured on
/// Scenario A, 16-18 tol at interpolated outputs, where the M error stays below 0.15 tol). A call whose x is not
/// the state returned by the previous call restarts the integration from x at the current output time (keeping
/// the carried step size). Failure (non-finite state, step-size underflow, more than `max_steps` internal steps in
/// one call) is returned in StepResult with x unchanged.
#include <Eigen/Core>
#include <array>
#include <limits>

#include "lievi/core/error.hpp"
#include "lievi/integrators/rigid_body_stepper.hpp"
#include "lievi/models/rigid_body.hpp"

namespace lievi::integrators {

/// Tolerances and limits of `Dop853`.
struct Dop853Options {
  double rtol = 1e-13;         ///< integrator.rtol
  double atol = 1e-13;         ///< integrator.atol
  long max_steps = 1'000'000;  ///< internal steps (accepted + rejected) allowed in one `step` call
  /// Natural steps with the 7th-order continuous extension at the output times (true), or steps clamped to
  /// land on every output time (false, the former behaviour).
  bool dense_output = true;
  /// Dense output only: end time of the run (from the time of `start`); no natural step crosses it and the state
  /// there comes from a step landing on it. Infinite (default): unbounded, the last output is interpolated.
  double t_end = std::numeric_limits<double>::infinity();
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

  /// Reset the time to 0, the carried step size and counters; the first internal step is chosen by `hinit`
  /// (capped by h in landing mode, by t_end in dense mode).
  void start(const models::RigidBodyState& x0, double h);
  /// Advance x from the output time t to t + h (adaptive internal steps; interpolated or landed, see the file
  /// comment). x is unchanged on failure.
  StepResult step(models::RigidBodyState& x, double h);

  /// Dense output of the last accepted natural step [step_begin(), step_end()] at time t in it (computes the
  /// three extra stages once per step). Dense mode only; y of the step's start if no step was taken yet.
  [[nodiscard]] Vec12 interpolate(double t);
  [[nodiscard]] double step_begin() const noexcept { return step_t0_; }
  [[nodiscard]] double step_end() const noexcept { return t_int_; }
  /// Time of the state returned by the last `step` (0 after `start`).
  [[nodiscard]] double time() const noexcept { return t_; }

  /// One fixed step of size h from x (no error control) and its continuous extension at t = theta h, theta in
  /// [0, 1]: writes y(theta h) into x. theta = 1 gives `fixed_step`'s result. For testing the dense output.
  static StepResult fixed_step_dense(const models::RigidBody& body, models::RigidBodyState& x, double h,
                                     double theta);

  /// One fixed step of the 8th-order formula (no error control): y <- y + h sum_i b_i k_i. For measuring the
  /// order. Returns converged = false (x unchanged) if the result is not finite.
  static StepResult fixed_step(const models::RigidBody& body, models::RigidBodyState& x, double h);

  /// Right-hand side of the coupled system: (f(M), vec(R hat(Omega))).
  [[nodiscard]] static Vec12 rhs(const models::RigidBody& body, const Vec12& y);

  [[nodiscard]] long accepted_steps() const noexcept { return accepted_; }
  [[nodiscard]] long rejected_steps() const noexcept { return rejected_; }
  [[nodiscard]] long evaluations() const noexcept { return evaluations_; }
  [[nodiscard]] double internal_step() const noexcept { return h_next_; }

  /// The stages of one step: k_1..k_12, k_13 = f(y_{n+1}) (FSAL) and the dense-output stages k_14..k_16.
  using Stages = std::array<Vec12, 16>;

 private:
  /// One trial step from (y, f0 = f(y)) with step h: the stages k_1..k_12 into k, the 8th-order y_new and
  /// DOP853's scaled error norm.
  double attempt(const Vec12& y, const Vec12& f0, double h, Vec12& y_new, Stages& k) const;
  /// Hairer's initial step-size guess from (y0, f0), capped by h_max.
  double initial_step(const Vec12& y0, const Vec12& f0, double h_max);
  StepResult step_landing(models::RigidBodyState& x, double H);
  StepResult step_dense(models::RigidBodyState& x, double H);

  models::RigidBody body_;
  Options options_;
  double h_next_ = 0.0;  ///< proposal for the next internal step (0: not yet chosen)
  double t_ = 0.0;       ///< time since `start` (for the underflow test)
  bool have_f_ = false;  ///< f_ holds f(y) of the state returned by the last call (FSAL)
  Vec12 y_last_ = Vec12::Zero();
  Vec12 f_ = Vec12::Zero();
  long accepted_ = 0, rejected_ = 0, evaluations_ = 0;
  // Dense mode: the integration runs ahead of the output time t_out_ to t_int_ >= t_out_.
  double t_out_ = 0.0;       ///< time of the last returned state y_last_
  double t_out_c_ = 0.0;     ///< Kahan compensation of t_out_ (the sum of the output intervals)
  bool have_state_ = false;  ///< y_int_, f_int_, t_int_ continue from y_last_
  double t_int_ = 0.0;       ///< end of the last accepted natural step
  Vec12 y_int_ = Vec12::Zero(), f_int_ = Vec12::Zero();  ///< y and f(y) at t_int_
  bool have_step_ = false;   ///< a natural step [step_t0_, t_int_] is stored (k_, y_old_)
  bool dense_ready_ = false; ///< F_ computed for that step
  double step_t0_ = 0.0, step_h_ = 0.0;
  Vec12 y_old_ = Vec12::Zero();
  Stages k_{};
  std::array<Vec12, 7> F_{};  ///< the continuous extension's coefficients F0..F6

 public:
  /// The carried state (checkpoints): the step-size proposal, the FSAL derivative, the dense-output run-ahead
  /// (state, time, Kahan compensation, the last natural step's stages) and the counters.
  void state(StateIO& a) {
    a("h_next", h_next_);
    a("t", t_);
    a("have_f", have_f_);
    a("y_last", y_last_);
    a("f", f_);
    a("accepted", accepted_);
    a("rejected", rejected_);
    a("evaluations", evaluations_);
    a("t_out", t_out_);
    a("t_out_c", t_out_c_);
    a("have_state", have_state_);
    a("t_int", t_int_);
    a("y_int", y_int_);
    a("f_int", f_int_);
    a("have_step", have_step_);
    a("dense_ready", dense_ready_);
    a("step_t0", step_t0_);
    a("step_h", step_h_);
    a("y_old", y_old_);
    a("k", k_);
    a("F", F_);
  }
};

}  // namespace lievi::integrators
