#pragma once
/// @file lievi/run/rigid_body_summary.hpp
/// @brief `summary.json` of a rigid-body run (docs/outputs.md): status, failure, resolved scenario, method,
/// steps, n_nodes, timing, final state, diagnostics, Newton statistics, notes, version.
#include <filesystem>
#include <string>

#include "lievi/io/scenario.hpp"
#include "lievi/run/result.hpp"

namespace lievi::run {

/// The summary as JSON text (pretty-printed, 2 spaces; doubles round-trip; non-finite numbers become null).
[[nodiscard]] std::string rigid_body_summary_json(const io::RigidBodyScenario& scenario,
                                                  const RunResult& result);

/// Write rigid_body_summary_json to `path`; throws std::runtime_error on an I/O error.
void write_rigid_body_summary(const std::filesystem::path& path, const io::RigidBodyScenario& scenario,
                              const RunResult& result);

}  // namespace lievi::run
