#pragma once
/// @file src/run/field_summary.hpp
/// @brief summary.json: the resolved scenario of every model, and the fields the field runs (wave, beam) share
/// (docs/outputs.md); each run adds its own (`method`, `final`, bounds) before writing.
#include <nlohmann/json.hpp>

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "lievi/io/scenario.hpp"
#include "lievi/run/wave_run.hpp"

namespace lievi::run::detail {

using json = nlohmann::ordered_json;

/// The resolved scenario of summary.json: the entries as nested objects, {"model": {...}, "grid": {...}, ...}.
[[nodiscard]] json scenario_json(const std::vector<io::ResolvedEntry>& entries);

/// status, failure, scenario (resolved entries as nested objects), scenario_name, steps, steps_planned, rows,
/// snapshots, n_nodes, paths, timing (with ns_per_node_step), diagnostics (non-finite as null), newton, notes,
/// version.
[[nodiscard]] json field_summary(const std::vector<io::ResolvedEntry>& entries, const std::string& name,
                                 const WaveRunResult& r, long long steps_planned, long long n_nodes);

/// The checks of `--paths N` shared by wave and beam ensembles: a noisy scenario and 1 <= N with
/// noise.path + N - 1 <= 2^32 - 1; throws lievi::invalid_argument naming --paths.
void check_ensemble(field::NoiseMode noise_mode, std::uint32_t first_path, long long paths, const std::string& file);

/// Write `j` pretty-printed; throws std::runtime_error naming the file on failure.
void write_json(const std::filesystem::path& path, const json& j);

}  // namespace lievi::run::detail
