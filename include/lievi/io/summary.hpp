#pragma once
/// @file lievi/io/summary.hpp
/// @brief `summary.json` of a rigid-body run (docs/outputs.md): status, failure, resolved scenario, method,
/// steps, n_nodes, timing, final state, diagnostics, Newton statistics, notes, version.
#include <filesystem>
#include <string>

#include "lievi/io/scenario.hpp"
#include "lievi/run/result.hpp"

namespace lievi::io {

/// The summary as JSON text (pretty-printed, 2 spaces; doubles round-trip; non-finite numbers become null).
[[nodiscard]] std::string rigid_body_summary_json(const RigidBodyScenario& scenario,
                                                  const run::RunResult& result);

/// Write rigid_body_summary_json to `path`; throws std::runtime_error on an I/O error.
void write_rigid_body_summary(const std::filesystem::path& path, const RigidBodyScenario& scenario,
                              const run::RunResult& result);

}  // namespace lievi::io
