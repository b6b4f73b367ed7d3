#pragma once
/// @file lievi/run/mechanics_sim.hpp
/// @brief A catalogue Lagrangian system stepped by the caller: the step `lievi run` takes for a lagrangian
/// scenario (the same start, projection onto the constraint, method and solver options, so its levels are the
/// run's bit for bit) and the run's check of every step, without series or files. For the Python module.
#include <memory>
#include <optional>

#include "lievi/io/mechanics_scenario.hpp"
#include "lievi/run/result.hpp"

namespace lievi::run {

class MechanicsSimulation {
 public:
  /// Checks the scenario as `lievi run` does (lievi::invalid_argument) and builds the level-0 state.
  explicit MechanicsSimulation(const io::MechanicsScenario& s);
  ~MechanicsSimulation();

  /// Take up to n steps of size dt; a step that fails the run's check (Newton, a non-finite state or reported
  /// value, constraint drift, the inverse Legendre transform) returns its failure, and the state goes back to
  /// the last good one; the simulation then refuses to step on (failed()).
  std::optional<RunFailure> step(long long n = 1);
  [[nodiscard]] bool failed() const;
  [[nodiscard]] double t() const;  ///< t_k of the current level (k dt)
  [[nodiscard]] long long steps() const;
  [[nodiscard]] double dt() const;
  [[nodiscard]] int dim() const;  ///< n, the configuration dimension
  /// The level's q_k, discrete momentum p_k and velocity v_k = (dL/dqdot)^-1(q_k, p_k) (RK4: its own v), n
  /// doubles each, valid until the next step() or the simulation's end.
  [[nodiscard]] const double* q() const;
  [[nodiscard]] const double* p() const;
  [[nodiscard]] const double* v() const;
  /// The level's reported values, as series.csv has them: energy E(q, v); the momentum map p . xi_Q(q) of a
  /// system with a symmetry (Kepler, spherical pendulum), NaN otherwise; the constraint residual |g(q)| of
  /// the constrained system, NaN otherwise.
  [[nodiscard]] double energy() const;
  [[nodiscard]] double momentum() const;
  [[nodiscard]] double constraint() const;

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace lievi::run
