#pragma once
/// @file lievi/run/wave_run.hpp
/// @brief The run pipeline of the (stochastic) wave equation: scenario -> staggered stepper -> level loop ->
/// series.csv, fields.h5, summary.json, plots; and ensembles of noise paths (`--paths N`).
///
/// Time levels (docs/outputs.md): the row of level n has t_n, the paper's energy E_d^n = K^{n+1/2} + V^n,
/// the centred E_c^n = (K^{n-1/2} + K^{n+1/2})/2 + V^n and phi_j^n at the probe nodes. Because E^n needs the
/// velocity zeta^{n+1/2} of the step n -> n+1, a row is complete after that step; the last level N takes its
/// K^{N+1/2} from a trial velocity update (docs/theory/staggered.md "Energies"). Rows at n = 0, every
/// `output.every` levels, and n = N; field snapshots every `output.fields_every` levels and at n = N.
///
/// A-priori check: dt > ds / c (the CFL limit of the staggered leapfrog) is refused as bad input naming the
/// largest stable dt, unless `integrator.allow_unstable = true`. A non-finite value mid-run stops the run
/// (numerical failure, step and node in the summary), keeping the rows written so far.
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "lievi/field/stepper.hpp"
#include "lievi/io/wave_scenario.hpp"
#include "lievi/run/result.hpp"
#include "lievi/run/checkpoint.hpp"
#include "lievi/run/rigid_body_run.hpp"

namespace lievi::run {

/// What an AVI run (integrator.method = "avi") reports besides the wave's rows (summary.json "avi").
struct AviReport {
  std::string queue;
  double fraction = 0.0;
  long long segments = 0;
  long long updates = 0;           ///< segment updates taken (the start updates included)
  double updates_per_time = 0.0;   ///< updates per unit simulated time
  double ns_per_update = 0.0;      ///< integrate_s / updates
  double h_min = 0.0, h_max = 0.0;
  std::vector<std::pair<int, long long>> levels;  ///< k -> number of segments with step integrator.dt / 2^k
  /// The updates of a synchronous scheme on the same mesh at the smallest step, n_segments t / h_min (the
  /// start included), and updates / that.
  double synchronous_updates = 0.0, update_fraction = 0.0;
};

/// What a wave run reports (summary.json is this struct written out).
struct WaveRunResult : RunReport {
  std::optional<AviReport> avi;   ///< integrator.method = "avi"
  long long snapshots = 0;
  std::vector<double> phi_final;  ///< phi at the last good level (wave)
  double cfl_dt = 0.0;            ///< the largest stable dt (wave: ds / c; beam: the a-priori bound)
  int newton_max = 0;             ///< local solves (0: explicit)
  long long paths = 1;
};

/// Observer of the levels of a wave run (no files: in-process use and the writers).
class WaveObserver {
 public:
  virtual ~WaveObserver() = default;
  /// Level n at t_n: phi^n at every node and the energies of level n (NaN for a level whose velocity step
  /// failed). `snapshot`: whether n is a field-output level.
  virtual void level(long long n, double t, std::span<const double> phi, const field::LevelEnergy& energy,
                     bool snapshot) = 0;
};

/// The largest stable time step ds / c of a scenario's grid.
[[nodiscard]] double wave_cfl_dt(const io::WaveScenario& s);

/// Check what can be checked before stepping (the CFL limit); throws lievi::invalid_argument naming
/// `integrator.dt`, its value and the largest stable dt.
void check_wave(const io::WaveScenario& s);

/// Integrate one path (noise.path of the scenario) calling `observer` at output levels. Never throws for
/// numerical failure (see the result).
[[nodiscard]] WaveRunResult integrate_wave(const io::WaveScenario& s, WaveObserver& observer,
                                           Progress progress = Progress::never);

/// The series columns of a wave run: t, E_d, E_c, phi_<j> for each probe.
[[nodiscard]] std::vector<std::string> wave_series_columns(const io::WaveScenario& s);

/// Run a scenario into `out_dir` (atomically): series.csv, fields.h5 (output.fields), final_fields.csv
/// (output.fields_csv), summary.json, plots (output.plots). As run_rigid_body for errors, checkpoints and
/// `resume` (fields.h5 is then written crash-safe and cut back to the checkpoint's snapshots on resume).
WaveRunResult run_wave(const io::WaveScenario& s, const std::filesystem::path& out_dir,
                       const RunOptions& options = {}, const ResumeFrom* resume = nullptr);

/// Run paths noise.path ... noise.path + paths - 1 (threads across paths) into `out_dir`: series_mean.csv,
/// series_std.csv (and series_path<k>.csv with output.per_path), summary.json, plots. Path k equals a single
/// run with noise.path = k. Throws lievi::invalid_argument when the scenario has no noise or paths < 1.
/// With checkpoint keys (or options.stop_at, which counts paths here) the folder is written in place with
/// checkpoints between batches of paths, and `resume` continues it: the outputs are those of the
/// uninterrupted ensemble, bit for bit (src/run/ensemble.hpp).
WaveRunResult run_wave_ensemble(const io::WaveScenario& s, long long paths, const std::filesystem::path& out_dir,
                                const RunOptions& options = {}, const ResumeFrom* resume = nullptr);

/// Default output folder runs/<name>.
[[nodiscard]] std::filesystem::path default_output_dir(const io::WaveScenario& s);

}  // namespace lievi::run
