#pragma once
/// @file tests/support/rigid_body_scenarios.hpp
/// @brief The rigid-body scenarios A, B, C of seed 002 §5 (docs/theory/ddb.md "Comparators and scenarios")
/// for tests and benchmarks.
#include "lievi/models/rigid_body.hpp"

namespace lievi::test {

struct RigidBodyScenario {
  models::RigidBody body;
  models::Vec3 M0;
  double t_end;
};

/// Omega0 = (0, 0.05, 1), M0 = I Omega0.
inline RigidBodyScenario rigid_body_scenario(const models::Vec3& moments, double alpha, double t_end) {
  const auto b = models::RigidBody::principal(moments, alpha);
  return {b, b.I * models::Vec3(0.0, 0.05, 1.0), t_end};
}
/// A: I = diag(1, 1.3, 0.5), alpha = 0.5, t in [0, 30].
inline RigidBodyScenario scenario_A(double alpha = 0.5) { return rigid_body_scenario({1.0, 1.3, 0.5}, alpha, 30.0); }
/// B: as A on [0, 250]; ends at -|M0| e2.
inline RigidBodyScenario scenario_B() { return rigid_body_scenario({1.0, 1.3, 0.5}, 0.5, 250.0); }
/// C: I = diag(1, 1, 0.5), alpha = 0.5, t in [0, 250]; ends on the great circle of the (I1, I2) plane.
inline RigidBodyScenario scenario_C() { return rigid_body_scenario({1.0, 1.0, 0.5}, 0.5, 250.0); }

}  // namespace lievi::test
