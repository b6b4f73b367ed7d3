#pragma once
/// @file lievi/run/models.hpp
/// @brief The model registry: one entry per model type (rigid_body, wave, beam, lagrangian, kirchhoff, string,
/// lie_group) with what the
/// front ends need of it — its scenario keys, the a-priori checks, the resolved printout, the run of one path
/// or of an ensemble, and its methods. `lievi run`, `validate`, `schema` and `methods` are loops over it;
/// adding a model type is one entry here plus the model's own files (config, key table, run).
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "lievi/io/any_scenario.hpp"
#include "lievi/run/result.hpp"
#include "lievi/run/rigid_body_run.hpp"

namespace lievi::run {

/// A run's report (RunReport) and what the summary line says of it.
struct RunOutcome : RunReport {
  /// What ran: "20 steps of ddb (cayley)", "... on 101 nodes, 3 paths".
  std::string what;
  bool notes_first = false;  ///< the model prints its notes before the outcome (lagrangian)
  /// An ensemble stopped on request: the paths done and planned (0, 0 otherwise).
  long long paths_done = 0, paths_planned = 0;
};

/// One model type.
struct ModelType {
  std::string name;  ///< model.type
  /// The scenario keys in documentation order (`lievi schema`, docs/scenarios.md).
  const std::vector<io::SchemaEntry>& (*schema)();
  /// The checks `run` makes before writing anything (stability bounds, a method's a-priori conditions);
  /// `validate` makes them too. Throws lievi::invalid_argument.
  void (*check)(const io::AnyScenario& s);
  /// The resolved scenario as TOML (`lievi validate`).
  std::string (*resolved_toml)(const io::AnyScenario& s);
  /// Run one path (`paths` = 0) or an ensemble of `paths` noise paths into `out` (default: runs/<name>).
  /// A model without noise refuses paths != 0 (lievi::invalid_argument naming --paths).
  RunOutcome (*run)(const io::AnyScenario& s, long long paths, const std::filesystem::path& out,
                    const RunOptions& options);
  /// Its methods for `lievi methods`: a heading line and a table (empty when the model lists none).
  std::string (*methods_text)();
  /// Continue the run in `dir` from its checkpoint (`lievi resume`), with the scenario `s` (the checkpoint's,
  /// with an extended t_end at most); null for a model that writes no checkpoints.
  RunOutcome (*resume)(const io::AnyScenario& s, const ResumeFrom& from, const std::filesystem::path& dir,
                       const RunOptions& options) = nullptr;
};

/// Every model type, in the order of `io::model_types()`.
[[nodiscard]] const std::vector<ModelType>& model_registry();
/// The entry of a scenario's model type.
[[nodiscard]] const ModelType& model_of(const io::AnyScenario& s);

/// `lievi resume DIR [--set integrator.t_end=T]`: read and verify DIR/checkpoint.h5, rebuild its scenario
/// with `overrides` (only integrator.t_end may change, and not to before the checkpoint; any other difference
/// is refused naming the keys), check it, and continue the run in DIR (outputs equal to the uninterrupted
/// run's, or to a run with the longer t_end from the start). Throws lievi::invalid_argument for a bad
/// folder, checkpoint or override. `scenario_name` receives the scenario's name.
/// An ensemble's checkpoint: nothing may change (its paths' final states are not kept, so it cannot be
/// extended), and options.stop_at counts paths.
RunOutcome resume_run(const std::filesystem::path& dir, const std::vector<std::string>& overrides,
                      const RunOptions& options, std::string* scenario_name = nullptr);

/// `lievi merge DIR... --out DIR`: combine the slices of one ensemble (`lievi run --paths N --path-range A:B`,
/// each folder with slice.json and series_paths.npy) into the outputs of the ensemble run whole, bit for bit
/// (series_mean.csv, series_std.csv, per-path series, summary.json apart from timing), in any order of the
/// folders. Refuses (lievi::invalid_argument naming the folder) slices of different scenarios or ensembles,
/// overlapping or missing paths, a failed or unfinished slice, another lievi version.
RunOutcome merge_slices(const std::vector<std::filesystem::path>& dirs, const std::filesystem::path& out,
                        const RunOptions& options, std::string* scenario_name = nullptr);

/// The check of `--path-range A:B` (Python: path_range): 0 <= A < B <= paths, with paths > 0.
void check_path_range(long long paths, long long begin, long long end, const std::string& flag);

/// The check of `lievi run --stop-at K` (and Python's stop_at): 1 <= K < the run's steps, or with `paths` > 0
/// (an ensemble, where K counts paths) 1 <= K < paths; throws lievi::invalid_argument naming `flag`.
void check_stop_at(const io::AnyScenario& s, long long paths, long long stop_at, const std::string& flag);

}  // namespace lievi::run
