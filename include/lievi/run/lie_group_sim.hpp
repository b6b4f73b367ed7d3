#pragma once
/// @file lievi/run/lie_group_sim.hpp
/// @brief A lie_group system stepped by the caller: the step `lievi run` takes for a lie_group scenario (the same
/// start, method, warm start and solver options, so its levels are the run's bit for bit) and the run's check of
/// every step, without series or files. For the Python module.
#include <memory>
#include <optional>

#include "lievi/io/lie_group_scenario.hpp"
#include "lievi/run/result.hpp"

namespace lievi::run {

class LieGroupSimulation {
 public:
  /// Checks the scenario as `lievi run` does (lievi::invalid_argument) and builds the level-0 state.
  explicit LieGroupSimulation(const io::LieGroupScenario& s);
  ~LieGroupSimulation();

  /// Take up to n steps of size dt; a step that fails the run's check (Newton, a non-finite state or reported
  /// value) returns its failure, the state goes back to the last good one, and the simulation refuses to step
  /// on (failed()).
  std::optional<RunFailure> step(long long n = 1);
  [[nodiscard]] bool failed() const;
  [[nodiscard]] double t() const;
  [[nodiscard]] long long steps() const;
  [[nodiscard]] double dt() const;
  /// The level's attitude R_k (3x3, column-major), body momentum Pi_k, and Gamma_k = R_k^T e3 (del-reduced: the
  /// advected Gamma_k), valid until the next step().
  [[nodiscard]] const double* R() const;
  [[nodiscard]] const double* Pi() const;
  [[nodiscard]] const double* Gamma() const;
  /// The level's reported values, as series.csv has them: energy, the Casimirs (2 for the heavy top and the 3D
  /// pendulum, |Gamma|^2 and Pi . Gamma; 1 for the free body, |Pi|^2), the Noether momenta (1: e3 . R Pi; free
  /// body 3: R Pi) and |R^T R - I|.
  [[nodiscard]] double energy() const;
  [[nodiscard]] std::vector<double> casimirs() const;
  [[nodiscard]] std::vector<double> momenta() const;
  [[nodiscard]] double orth_err() const;

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace lievi::run
