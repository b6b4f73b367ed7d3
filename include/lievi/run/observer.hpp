#pragma once
/// @file lievi/run/observer.hpp
/// @brief What the run loop calls: observers see every accepted step and the output times.
///
/// The run loop (run/rigid_body_run.hpp) owns time stepping; observers know nothing of integrators and the
/// integrators nothing of observers. Both hooks get t_k = k dt (t_N = t_end) and the state after step k.
/// Hooks are called on the hot path: implementations must not allocate (beyond amortised buffered output).
#include "lievi/core/state_io.hpp"
#include "lievi/models/rigid_body.hpp"

namespace lievi::run {

/// Observer of a rigid-body run.
class RigidBodyObserver {
 public:
  virtual ~RigidBodyObserver() = default;
  /// Called once before the first step with the initial state (k = 0, t = 0), before `output(0, ...)`.
  virtual void begin(const models::RigidBody& /*model*/, const models::RigidBodyState& /*x0*/) {}
  /// Called after every accepted step k >= 1.
  virtual void step(long long /*k*/, double /*t_k*/, const models::RigidBodyState& /*x_k*/) {}
  /// Called at output times: k = 0, every `output.every` steps, the last step (t = t_end), and after a
  /// numerical failure at the last good step if that was not an output time.
  virtual void output(long long /*k*/, double /*t_k*/, const models::RigidBodyState& /*x_k*/) {}
  /// Save or restore what it carries (checkpoints, run/checkpoint.hpp): called with the state it had after
  /// level n - 1's calls; on restore after `begin`.
  virtual void checkpoint(StateIO& /*a*/) {}
};

}  // namespace lievi::run
