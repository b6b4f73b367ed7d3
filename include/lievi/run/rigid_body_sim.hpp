#pragma once
/// @file lievi/run/rigid_body_sim.hpp
/// @brief A rigid body stepped by the caller: the stepper `lievi run` prepares for a scenario (prepare_rigid_body)
/// and the run loop's health check of every step, without observers or files. For the Python module.
#include <memory>
#include <optional>

#include "lievi/io/scenario.hpp"
#include "lievi/run/result.hpp"

namespace lievi::run {

class RigidBodySimulation {
 public:
  /// Prepares the run as `lievi run` does (lievi::invalid_argument for a scenario the method rejects).
  explicit RigidBodySimulation(const io::RigidBodyScenario& s);
  ~RigidBodySimulation();

  /// Take up to n steps of size dt; a step that fails the run's check (no convergence, a non-finite state, a
  /// blow-up, an energy rise under pure dissipation) returns its failure, and the state goes back to the last
  /// good one; the simulation then refuses to step on (failed()).
  std::optional<RunFailure> step(long long n = 1);
  [[nodiscard]] bool failed() const;
  [[nodiscard]] double t() const;  ///< k dt
  [[nodiscard]] long long steps() const;
  [[nodiscard]] double dt() const;
  /// The body momentum M (3 doubles) and the attitude R (9, column-major; body to spatial), valid until the next
  /// step() or the simulation's end.
  [[nodiscard]] const double* M() const;
  [[nodiscard]] const double* R() const;
  [[nodiscard]] double energy() const;   ///< H = ½ M·I⁻¹M
  [[nodiscard]] double casimir() const;  ///< |M|²

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace lievi::run
