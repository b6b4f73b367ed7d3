#pragma once
/// @file lievi/run/wave_sim.hpp
/// @brief A stochastic wave equation stepped by the caller: the stepper `lievi run` builds for a scenario (path
/// noise.path), without the output pipeline; its levels are the run's bit for bit. For the Python module.
#include <cstddef>
#include <memory>
#include <optional>

#include "lievi/io/wave_scenario.hpp"
#include "lievi/run/result.hpp"
#include "lievi/run/sim_energies.hpp"

namespace lievi::run {

class WaveSimulation {
 public:
  /// Checks the scenario as `lievi run` does (lievi::invalid_argument) and builds the level-0 state.
  explicit WaveSimulation(const io::WaveScenario& s);
  ~WaveSimulation();
  WaveSimulation(WaveSimulation&&) noexcept;
  WaveSimulation& operator=(WaveSimulation&&) noexcept;

  /// Take up to n steps; stops at the first that fails (a Type-II Newton solve, a non-finite field) and returns
  /// its failure; the simulation then refuses to step on (failed()).
  std::optional<RunFailure> step(long long n = 1);
  /// A factor on the noise increments from the next step on (0: noise off; 1: the scenario's; the same stream,
  /// scaled). lievi::invalid_argument for a negative or non-finite factor.
  void set_noise_scale(double s);
  [[nodiscard]] bool failed() const;
  [[nodiscard]] double t() const;
  [[nodiscard]] long long steps() const;
  [[nodiscard]] double dt() const;
  [[nodiscard]] std::ptrdiff_t n_nodes() const;
  /// phi^n at the nodes and the velocities (phi^{n} - phi^{n-1}) / dt of the last step (valid until the next
  /// step() or the simulation's end).
  [[nodiscard]] const double* phi() const;
  [[nodiscard]] const double* velocities() const;
  /// (E_d, E_c, K^{n-1/2}, K^{n+1/2}, V^n) of the current level (a trial sweep, restored).
  using Energies = LevelEnergies;
  [[nodiscard]] Energies energies();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace lievi::run
