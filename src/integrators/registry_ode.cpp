/// @file src/integrators/registry_ode.cpp
/// @brief Registry entries of the classical ODE comparators beyond RK4: lobatto-iiic (implicit, order 4) and
/// dop853 (explicit, adaptive, order 8). Both integrate the attitude with the momentum; neither reads
/// `integrator.retraction`.
#include <memory>

#include "lievi/integrators/ode/dop853.hpp"
#include "lievi/integrators/ode/lobatto_iiic.hpp"
#include "registry_entries.hpp"

namespace lievi::integrators::detail {
namespace {

/// Lobatto IIIC carries no state between steps; `start` runs the a-priori check (dt finite and > 0).
class LobattoStepper final : public RigidBodyStepper {
 public:
  LobattoStepper(const models::RigidBody& b, const RigidBodyMethodOptions& o) : b_(b), options_(o) {}
  [[nodiscard]] MethodTraits traits() const override { return LobattoIIIC::traits; }
  [[nodiscard]] std::string retraction() const override { return ""; }
  void start(const models::RigidBodyState& x0, double h) override { check_rigid_body_step(b_, options_, x0.M, h); }
  StepResult step(models::RigidBodyState& x, double h) override { return LobattoIIIC::step(b_, x, h); }

 private:
  models::RigidBody b_;
  RigidBodyMethodOptions options_;
};

/// DOP853 carries its internal step size and the FSAL derivative between output intervals.
class Dop853Stepper final : public RigidBodyStepper {
 public:
  Dop853Stepper(const models::RigidBody& b, const RigidBodyMethodOptions& o)
      : core_(b, Dop853::Options{o.rtol, o.atol}), b_(b), options_(o) {}
  [[nodiscard]] MethodTraits traits() const override { return Dop853::traits; }
  [[nodiscard]] std::string retraction() const override { return ""; }
  void start(const models::RigidBodyState& x0, double h) override {
    check_rigid_body_step(b_, options_, x0.M, h);
    core_.start(x0, h);
  }
  StepResult step(models::RigidBodyState& x, double h) override { return core_.step(x, h); }
  void checkpoint(StateIO& a) override { core_.state(a); }

 private:
  Dop853 core_;
  models::RigidBody b_;
  RigidBodyMethodOptions options_;
};

std::unique_ptr<RigidBodyStepper> make_lobatto(const models::RigidBody& b, const RigidBodyMethodOptions& o) {
  return std::make_unique<LobattoStepper>(b, o);
}
MethodTraits lobatto_traits(const RigidBodyMethodOptions&) { return LobattoIIIC::traits; }

std::unique_ptr<RigidBodyStepper> make_dop853(const models::RigidBody& b, const RigidBodyMethodOptions& o) {
  return std::make_unique<Dop853Stepper>(b, o);
}
MethodTraits dop853_traits(const RigidBodyMethodOptions&) { return Dop853::traits; }

}  // namespace

std::vector<MethodEntry> ode_entries() {
  return {{LobattoIIIC::traits, false, &make_lobatto, &lobatto_traits},
          {Dop853::traits, false, &make_dop853, &dop853_traits}};
}

}  // namespace lievi::integrators::detail
