#pragma once
/// @file lievi/run/models.hpp
/// @brief The model registry: one entry per model type (rigid_body, wave, beam, lagrangian) with what the
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
};

/// Every model type, in the order of `io::model_types()`.
[[nodiscard]] const std::vector<ModelType>& model_registry();
/// The entry of a scenario's model type.
[[nodiscard]] const ModelType& model_of(const io::AnyScenario& s);

}  // namespace lievi::run
