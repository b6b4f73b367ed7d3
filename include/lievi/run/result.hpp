#pragma once
/// @file lievi/run/result.hpp
/// @brief The outcome of a run: status, failure, counts, timing, final state, diagnostics, Newton statistics.
/// summary.json (docs/outputs.md) is this struct written out.
#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "lievi/integrators/rigid_body_stepper.hpp"
#include "lievi/models/rigid_body.hpp"

namespace lievi::run {

/// Where and why a run stopped early (a step returned converged = false or a non-finite state).
struct RunFailure {
  long long step = 0;     ///< number of the failed step n (1-based: it would have gone from t_{n-1} to t_n)
  double t = 0.0;         ///< t_{n-1}: time of the last good state, where the failed step started
  int node = -1;          ///< node index (field models), -1 for the rigid body
  double residual = 0.0;  ///< residual reported by the step (0 for explicit methods)
  std::string message;    ///< what happened, e.g. "non-finite state after an RK4 step"
  std::string hint;       ///< what to change, e.g. "try a smaller integrator.dt, e.g. 0.01"
};

/// Newton iteration statistics over the steps taken (all zero for explicit methods).
struct NewtonStats {
  int max = 0;
  double mean = 0.0;
  long long total = 0;
};

/// What every run reports, whatever the model (the one result type of the pipelines; each model's result
/// adds its final state and its own counts). summary.json is it written out (docs/outputs.md).
struct RunReport {
  bool complete = false;              ///< true: all N steps taken
  bool stopped = false;               ///< stopped on request after a checkpoint (RunOptions::stop_at), resumable
  std::optional<RunFailure> failure;  ///< set when !complete
  long long steps = 0;                ///< steps taken successfully
  long long rows = 0;                 ///< output rows (series.csv)
  double t_final = 0.0;               ///< time of the last good state
  double integrate_s = 0.0;           ///< wall time of stepping and per-step diagnostics, output excluded
  double total_s = 0.0;               ///< wall time of the whole run
  std::vector<std::pair<std::string, double>> diagnostics;  ///< name -> value, in the order written
  std::vector<std::string> notes;                           ///< ignored keys, skipped plots, ...
  std::filesystem::path out_dir;                            ///< where outputs went ("" for in-process runs)
};

/// Result of `integrate_rigid_body` / `run_rigid_body`.
struct RunResult : RunReport {
  models::RigidBodyState final_state;  ///< last good state
  NewtonStats newton;
  integrators::MethodTraits traits;  ///< of the method used
  std::string retraction;            ///< retraction in use, "" for methods without one
};

}  // namespace lievi::run
