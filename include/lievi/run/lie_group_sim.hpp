#pragma once
/// @file lievi/run/lie_group_sim.hpp
/// @brief A lie_group system stepped by the caller: the step `lievi run` takes for a lie_group scenario (the same
/// start, method, warm start and solver options, so its levels are the run's bit for bit) and the run's check of
/// every step, without series or files. For the Python module.
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

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
  /// The level's attitude R_k (3x3, column-major), body momentum Pi_k (floating body: its angular part, about
  /// the body origin), and Gamma_k = R_k^T e3 (del-reduced: the advected Gamma_k), valid until the next step().
  [[nodiscard]] const double* R() const;
  [[nodiscard]] const double* Pi() const;
  [[nodiscard]] const double* Gamma() const;
  /// Floating body: the position x_k of the body origin (spatial) and the linear momentum P_k (body frame);
  /// nullptr for the systems on SO(3).
  [[nodiscard]] const double* position() const;
  [[nodiscard]] const double* P() const;
  /// The level's reported values under their series.csv names: energy, the Casimirs and Noether momenta of the
  /// system, orth_err.
  [[nodiscard]] std::vector<std::pair<std::string, double>> values() const;

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace lievi::run
