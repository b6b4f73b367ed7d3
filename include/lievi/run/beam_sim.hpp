#pragma once
/// @file lievi/run/beam_sim.hpp
/// @brief A beam stepped by the caller: the stepper `lievi run` builds for a scenario (the same model, grid,
/// noise, options and initial state, so its levels are the run's bit for bit), without the output pipeline.
/// For control loops and the Python module's Simulation.
#include <array>
#include <cstddef>
#include <memory>
#include <optional>
#include <vector>

#include "lievi/io/beam_scenario.hpp"
#include "lievi/run/result.hpp"
#include "lievi/run/sim_energies.hpp"

namespace lievi::run {

class BeamSimulation {
 public:
  /// A point wrench the caller controls: its node, its initial value (torque, force) and whether it follows
  /// the node's frame (body) or keeps its spatial directions (dead, torque about the node).
  struct PointLoad {
    std::ptrdiff_t node = 0;
    std::array<double, 6> wrench{};
    bool body = false;
  };
  /// Checks the scenario as `lievi run` does (lievi::invalid_argument) and builds the level-0 state, with the
  /// caller's point loads (on top of the scenario's) at their initial values from level 0 on (the start's half
  /// kick included); set_load changes them later. The batched sweeps leave loaded nodes to the per-node code:
  /// name only those needed.
  explicit BeamSimulation(const io::BeamScenario& s, const std::vector<PointLoad>& loads = {});
  ~BeamSimulation();
  BeamSimulation(BeamSimulation&&) noexcept;
  BeamSimulation& operator=(BeamSimulation&&) noexcept;

  /// Take up to n steps; stops at the first that fails and returns its failure (step, node, message, hint).
  /// After a failure the state is that of the failed step, partly updated (the nodes solved before the
  /// failing one): step() refuses to go on (failed() stays true).
  std::optional<RunFailure> step(long long n = 1);
  /// Drive a prescribed end (0: left, node 0; 1: right, the last node; its bc must be "prescribed"): from the
  /// next step on the end takes this pose (position, unit quaternion w, x, y, z as in the pose tables) at every
  /// level until it is set again, instead of its pose table's. Throws lievi::invalid_argument for an end that
  /// is not prescribed, a non-finite position or a quaternion whose norm is not within 1e-6 of 1.
  void set_end_pose(int end, const double* position, const double* quaternion);
  /// The point wrench (torque, force) the caller puts on a node of its loads, from the next step on
  /// until set again, on top of the scenario's loads: dead (spatial directions, torque about the node; as a
  /// [[loads]] table with frame = "spatial") or, with body = true, a follower wrench in the node's frame.
  /// Throws lievi::invalid_argument for another node or a non-finite component.
  void set_load(std::ptrdiff_t node, const double* wrench, bool body);
  /// A factor on the noise increments from the next step on (0: noise off; 1: the scenario's; the same stream,
  /// scaled). lievi::invalid_argument for a negative or non-finite factor.
  void set_noise_scale(double s);
  [[nodiscard]] bool failed() const;
  [[nodiscard]] double t() const;
  [[nodiscard]] long long steps() const;  ///< steps taken
  [[nodiscard]] double dt() const;
  [[nodiscard]] std::ptrdiff_t n_nodes() const;
  [[nodiscard]] std::ptrdiff_t n_segments() const;
  /// The state's storage (valid until the next step() or the simulation's end): poses, 12 doubles per node
  /// (R column-major, then p); velocities zeta^{n-1/2}, 6 per node (angular first); strains gamma^n, 6 per
  /// segment; the pre-momenta M~^n, 6 per node.
  [[nodiscard]] const double* poses() const;
  [[nodiscard]] const double* velocities() const;
  [[nodiscard]] const double* strains() const;
  [[nodiscard]] const double* pre_momenta() const;
  /// The energies of the current level: (E_d, E_c, K^{n-1/2}, K^{n+1/2}, V^n) with gravity in V as the series
  /// (a trial node sweep, restored; the state is unchanged).
  using Energies = LevelEnergies;
  [[nodiscard]] Energies energies();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace lievi::run
