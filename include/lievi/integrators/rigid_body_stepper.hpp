#pragma once
/// @file lievi/integrators/rigid_body_stepper.hpp
/// @brief The one stepping interface of the rigid-body methods, type-erased over the templated cores,
/// and the registry that maps method ids (docs/cli.md `lievi methods`, README.md) to steppers.
#include <memory>
#include <string>
#include <vector>

#include "lievi/core/error.hpp"
#include "lievi/core/state_io.hpp"
#include "lievi/models/rigid_body.hpp"

namespace lievi::integrators {

/// Static properties of a method, read by tests and by `lievi methods`.
struct MethodTraits {
  const char* id = "";          ///< method id as in scenario files (`ddb`, `rk4`, ...)
  int order = 0;                ///< classical order of the output map (with the default options)
  bool is_implicit = false;
  bool preserves_casimirs = false;  ///< |M|^2 kept to round-off for any step size
  bool symplectic = false;      ///< symplectic / variational at alpha = 0
  bool adaptive = false;
  const char* summary = "";     ///< one line for `lievi methods`
};

/// Options that select a method and its variants (scenario keys `integrator.*`).
struct RigidBodyMethodOptions {
  std::string method = "ddb";
  std::string retraction = "cayley";             ///< cayley | exp | exp2  (DDB family)
  std::string dissipation_quadrature = "midpoint";  ///< midpoint | trapezoid  (ddb-symmetric)
  bool symmetric_processing = true;              ///< ddb-symmetric start/output correction
  double rtol = 1e-13, atol = 1e-13;             ///< adaptive methods
};

/// A rigid-body method with its preallocated workspace. `step` advances the *output* state x by h; a
/// method may carry internal state between calls (compensated-summation residue, previous xi, ...), so
/// call `start` once with the initial state, then `step` repeatedly with the state it returned.
class RigidBodyStepper {
 public:
  virtual ~RigidBodyStepper() = default;
  [[nodiscard]] virtual MethodTraits traits() const = 0;
  /// The retraction in use ("cayley", "exp", "exp2"), or "" for methods without one.
  [[nodiscard]] virtual std::string retraction() const = 0;
  /// Prepare a run from x0 with nominal step h (resets carried state).
  virtual void start(const models::RigidBodyState& x0, double h) = 0;
  /// One step of size h. Numerical failure is returned (converged = false), never thrown.
  virtual StepResult step(models::RigidBodyState& x, double h) = 0;
  /// Save or restore the state it carries between steps (checkpoints; core/state_io.hpp). After `start` and a
  /// restore, the next `step` continues as the saved stepper would have.
  virtual void checkpoint(StateIO& /*a*/) {}
};

/// A stepper for `options.method` on `model`. Throws lievi::invalid_argument (key `integrator.method` or
/// `integrator.retraction`) for an unknown id.
std::unique_ptr<RigidBodyStepper> make_rigid_body_stepper(const models::RigidBody& model,
                                                          const RigidBodyMethodOptions& options);

/// Every registered rigid-body method, in the order `lievi methods` lists them.
std::vector<MethodTraits> rigid_body_methods();

/// Allowed values of `integrator.retraction`.
std::vector<std::string> rigid_body_retractions();

/// Traits of `options.method` with `options.retraction` (e.g. DDB-exp2 is not symplectic). Throws
/// lievi::invalid_argument like make_rigid_body_stepper for an unknown id.
MethodTraits rigid_body_method_traits(const RigidBodyMethodOptions& options);

/// A-priori check of a run before it starts (call it from the scenario layer; `RigidBodyStepper::start` of
/// the DDB steppers calls it too). Throws lievi::invalid_argument (all issues together) if
///  - `integrator.method` / `integrator.retraction` is unknown (the retraction only for the DDB family),
///  - `integrator.dt` is not finite and > 0,
///  - DDB with tau = exp and  dt |M0| / I_min >= 2 pi: step (a) has a pole at h|xi| = 2 pi
///    (docs/theory/ddb.md step (a)); since |xi| <= |M|/I_min and |M| = |M0| is conserved, the bound is known
///    a priori.
void check_rigid_body_step(const models::RigidBody& model, const RigidBodyMethodOptions& options,
                           const models::Vec3& M0, double dt);

}  // namespace lievi::integrators
