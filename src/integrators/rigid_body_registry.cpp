/// @file src/integrators/rigid_body_registry.cpp
/// @brief Maps the method ids of docs/interfaces.md to type-erased steppers over the templated cores.
#include <string>

#include "lievi/integrators/ode/rk4.hpp"
#include "lievi/integrators/rigid_body_stepper.hpp"

namespace lievi::integrators {
namespace {

/// Adapter for stateless explicit methods with `static StepResult step(model, state, h)`.
template <class Method>
class StatelessStepper final : public RigidBodyStepper {
 public:
  explicit StatelessStepper(const models::RigidBody& b) : b_(b) {}
  [[nodiscard]] MethodTraits traits() const override { return Method::traits; }
  [[nodiscard]] std::string retraction() const override { return ""; }
  void start(const models::RigidBodyState&, double) override {}
  StepResult step(models::RigidBodyState& x, double h) override { return Method::step(b_, x, h); }

 private:
  models::RigidBody b_;
};

}  // namespace

std::unique_ptr<RigidBodyStepper> make_rigid_body_stepper(const models::RigidBody& model,
                                                          const RigidBodyMethodOptions& options) {
  if (options.method == "rk4") return std::make_unique<StatelessStepper<RK4>>(model);
  std::string allowed;
  for (const auto& t : rigid_body_methods()) allowed += (allowed.empty() ? "" : ", ") + std::string(t.id);
  throw invalid_argument("", "integrator.method", "unknown method '" + options.method + "'; allowed: " + allowed);
}

std::vector<MethodTraits> rigid_body_methods() { return {RK4::traits}; }

std::vector<std::string> rigid_body_retractions() { return {"cayley", "exp", "exp2"}; }

}  // namespace lievi::integrators
