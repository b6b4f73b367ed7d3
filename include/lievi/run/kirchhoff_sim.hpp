#pragma once
/// @file lievi/run/kirchhoff_sim.hpp
/// @brief Kirchhoff's body stepped by the caller: the stepper `lievi run` builds for a kirchhoff scenario (the
/// same body, method, retraction and Newton options, so its levels are the run's bit for bit) and the run's check
/// of every step, without series or files. For the Python module.
#include <memory>
#include <optional>

#include "lievi/io/kirchhoff_scenario.hpp"
#include "lievi/run/result.hpp"

namespace lievi::run {

class KirchhoffSimulation {
 public:
  /// Checks the scenario as `lievi run` does (lievi::invalid_argument) and builds level 0.
  explicit KirchhoffSimulation(const io::KirchhoffScenario& s);
  ~KirchhoffSimulation();

  /// Take up to n steps of size dt; a step that fails the run's check (Newton, a non-finite state or reported
  /// value, a blow-up, an energy rise under dissipation) returns its failure, and the state goes back to the
  /// last good one; the simulation then refuses to step on (failed()).
  std::optional<RunFailure> step(long long n = 1);
  [[nodiscard]] bool failed() const;
  [[nodiscard]] double t() const;  ///< k dt
  [[nodiscard]] long long steps() const;
  [[nodiscard]] double dt() const;
  /// mu = (Pi, P) (6 doubles), the attitude R (9, column-major; body to spatial) and the position x (3),
  /// valid until the next step() or the simulation's end.
  [[nodiscard]] const double* mu() const;
  [[nodiscard]] const double* R() const;
  [[nodiscard]] const double* x() const;
  /// The level's reported values as series.csv has them: energy H, the Casimirs |P|^2 and P . Pi, H - min H, the
  /// distance to the minimum-energy set (NaN for both with a coupling block) and |ad*_xi mu|_inf.
  [[nodiscard]] double energy() const;
  [[nodiscard]] double casimir_P2() const;
  [[nodiscard]] double casimir_PPi() const;
  [[nodiscard]] double energy_above_min() const;
  [[nodiscard]] double distance_min() const;
  [[nodiscard]] double equilibrium_residual() const;

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace lievi::run
