#pragma once
/// @file lievi/run/rigid_body_run.hpp
/// @brief The rigid-body run pipeline: scenario -> stepper -> run loop -> observers -> output folder.
///
/// Time stepping (docs/scenarios.md "Step count"): N = t_end / dt steps of size h = dt; t_k = k h (t_N =
/// t_end exactly); observers see every step and the output times (k = 0, every `output.every` steps, k = N).
/// A step that returns converged = false, leaves a non-finite state or reported value (M, R, the energy H,
/// |M|^2), blows up, or raises H under pure dissipation (K != 0) beyond round-off
/// (health::dissipation_rise_tol) stops the run: the last good state is the final one (written as a row if it
/// was not an output time), and the result is not complete, with a failure record (summary status "failed").
#include <filesystem>
#include <memory>
#include <span>

#include "lievi/integrators/rigid_body_stepper.hpp"
#include "lievi/io/scenario.hpp"
#include "lievi/run/observer.hpp"
#include "lievi/run/checkpoint.hpp"
#include "lievi/run/result.hpp"

namespace lievi::parallel {
class Comm;
}

namespace lievi::run {

/// The model, a started stepper and the initial state: everything a run needs, checked before any output.
struct PreparedRigidBodyRun {
  models::RigidBody model;
  std::unique_ptr<integrators::RigidBodyStepper> stepper;
  models::RigidBodyState x0;
};

/// Build the model and the stepper, run the method's a-priori checks and `start` it. Throws
/// lievi::invalid_argument (key and file of the scenario) when the method rejects the scenario.
[[nodiscard]] PreparedRigidBodyRun prepare_rigid_body(const io::RigidBodyScenario& scenario);

/// Progress display on stderr.
enum class Progress { automatic, never };  ///< automatic: a progress line only when stderr is a terminal

/// Checkpoints of a run loop (run/checkpoint.hpp): where they go (null: none) and the checkpoint to continue
/// from (null: level 0).
struct CheckpointPlan {
  Checkpointer* checkpoints = nullptr;
  const ResumeFrom* resume = nullptr;
};

/// Run the loop over a prepared run with the given observers (no files). `result.diagnostics` is empty:
/// add a RigidBodyDiagnostics observer and read it. Never throws for numerical failure.
[[nodiscard]] RunResult integrate_rigid_body(const io::RigidBodyScenario& scenario,
                                             PreparedRigidBodyRun& prepared,
                                             std::span<RigidBodyObserver* const> observers,
                                             Progress progress = Progress::never, const CheckpointPlan& plan = {});

/// Convenience: prepare and integrate in-process (the C++ API without files).
[[nodiscard]] RunResult integrate_rigid_body(const io::RigidBodyScenario& scenario,
                                             std::span<RigidBodyObserver* const> observers);

/// Options of a run with outputs.
struct RunOptions {
  bool force = false;  ///< replace a non-empty existing output folder
  Progress progress = Progress::automatic;
  /// A run with checkpoints: write a checkpoint at this step and stop there (0: never), leaving the folder
  /// for `lievi resume` (result.stopped); for splitting a run into pieces that a scheduler allows.
  long long stop_at = 0;
  /// An ensemble's slice (`--path-range A:B` with `--paths N`): only its paths A ... B - 1 (counted from
  /// noise.path) run, and the folder also gets series_paths.npy and slice.json for `lievi merge`; range_end
  /// 0: the whole ensemble.
  long long range_begin = 0, range_end = 0;
  /// The job's ranks when started by `mpirun -np R` with R > 1 (lievi/parallel/comm.hpp): an ensemble's paths
  /// are spread over them, rank 0 writing; null: this process alone.
  parallel::Comm* comm = nullptr;
};

/// The default output folder: runs/<scenario name> (relative to the working directory).
[[nodiscard]] std::filesystem::path default_output_dir(const io::RigidBodyScenario& scenario);

/// Run a scenario and write series.csv, summary.json and (if `output.plots`) the PNG plots atomically into
/// `out_dir`. Bad input (including an unusable `out_dir`) throws lievi::invalid_argument before anything is
/// written; a numerical failure returns a failed result with the outputs up to the last good step;
/// I/O errors throw std::runtime_error (nothing left behind but what was there before).
///
/// With output.checkpoint_every or output.checkpoint_wall the run is written in place (io::OutputDir::in_place)
/// with checkpoint.h5; `resume` continues the run in `out_dir` from its checkpoint (`lievi resume`): the
/// outputs are then those of the uninterrupted run, bit for bit.
RunResult run_rigid_body(const io::RigidBodyScenario& scenario, const std::filesystem::path& out_dir,
                         const RunOptions& options = {}, const ResumeFrom* resume = nullptr);

}  // namespace lievi::run
