#pragma once
/// @file lievi/io/memory_estimate.hpp
/// @brief The integer bounds of the scenario keys, and the memory a run of a scenario needs, checked against
/// the machine's available memory before anything is allocated.
///
/// The estimate counts what grows with the problem: the per-node arrays of the resolved scenario (initial
/// poses, per-segment K and P, noise-mode profiles), of the model and of the stepper (state, half-step and
/// segment fields, workspaces), the per-node buffers of one output level (snapshot and VTK arrays; snapshots are
/// streamed to fields.h5, not kept), and for ensembles the paths that run at once (one per OpenMP thread) and
/// the series statistics (mean and variance of every row and column; the wave also keeps each running path's
/// rows). The per-node byte counts are the sizes of those arrays summed from the run code (src/run/*_run.cpp,
/// models/beam.hpp, field/stepper.hpp), rounded up; the estimate is meant to be within a factor of 2 of the
/// peak resident size, not exact. Small fixed costs (the rigid body, the lagrangian systems) are not counted.
#include <optional>
#include <string>

#include "lievi/io/any_scenario.hpp"

namespace lievi::io {

/// Bounds of the integer keys (docs/scenarios.md). Chosen so that no counter or product of a run overflows a
/// 64-bit integer (n_nodes + 1, steps / every, 1000 every, snapshots x n_nodes x 9), far beyond what a run
/// on one machine can use.
namespace limits {
inline constexpr long long kMaxGridJ = 100'000'000;             ///< grid.J (beam, wave): at most 1e8 segments
inline constexpr long long kMaxSteps = 1'000'000'000'000;       ///< t_end / dt < 1e12 (read_time_grid)
inline constexpr long long kMaxWavenumber = 1'000'000'000;      ///< initial.wavenumber, noise.modes wavenumber
inline constexpr long long kMaxProbes = 10'000;                 ///< entries of output.probes
inline constexpr long long kMaxCosineModes = 100'000;           ///< noise.cosine_modes (wave)
inline constexpr long long kMaxListed = 5;  ///< a problem repeated per item is listed this often, then counted
}  // namespace limits

/// What a run needs: `bytes` in total, and the key that dominates it (grid.J, noise.modes, --paths, ...).
struct MemoryEstimate {
  double bytes = 0.0;  ///< a double: the products of huge keys must not overflow before they are compared
  std::string key;     ///< the scenario key (or flag) to change to need less
  std::string what;    ///< e.g. "101 nodes x 2.6 kB (state, workspaces, scenario arrays)"
};

/// The estimate for a run of `paths` noise paths (1: a single run).
[[nodiscard]] MemoryEstimate estimate_memory(const AnyScenario& s, long long paths);
[[nodiscard]] MemoryEstimate estimate_memory(const config::BeamConfig& s, long long paths);
[[nodiscard]] MemoryEstimate estimate_memory(const config::WaveConfig& s, long long paths);

/// MemAvailable of /proc/meminfo in bytes, or nullopt when it cannot be read ($LIEVI_MEMORY_AVAILABLE, a
/// number of bytes, replaces it: for tests).
[[nodiscard]] std::optional<double> available_memory();

/// The refusal text when `e` needs more than `available` bytes ("needs about 12 GB (...); this machine has
/// 3.1 GB available (MemAvailable); use a smaller grid.J"), else nullopt.
[[nodiscard]] std::optional<std::string> memory_problem(const MemoryEstimate& e, double available);

/// Throws lievi::invalid_argument on the dominating key when the run needs more than the available memory;
/// does nothing when the available memory is unknown.
void check_memory(const AnyScenario& s, long long paths);

}  // namespace lievi::io
