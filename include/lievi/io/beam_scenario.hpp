#pragma once
/// @file lievi/io/beam_scenario.hpp
/// @brief The beam scenario format, `model.type = "beam"`: a scenario file read into the typed configuration
/// (config/beam.hpp), with every issue of a file reported together, `--set` overrides, the `lievi validate`
/// printout and the docs/scenarios.md key table ("beam"), all derived from one key table. Point loads,
/// distributed loads, regions and noise modes are arrays of tables (`[[loads]]`, ...), not settable with
/// `--set`.
#include <array>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "lievi/config/beam.hpp"
#include "lievi/io/scenario.hpp"

namespace lievi::io {

using config::BeamDistributedLoad;
using config::BeamLoad;
using config::BeamNoiseMode;
using config::BeamRegion;
using config::PoseTable;

/// A validated beam scenario: the typed configuration (config/beam.hpp) with every default filled and every
/// per-node array resolved, its name, source and the keys given.
struct BeamScenario : config::BeamConfig {
  static constexpr const char* model_type = "beam";  ///< model.type of the format
  std::string name;                     ///< file stem (default output folder runs/<name>)
  std::string source;                   ///< file it came from ("" for a string)
  std::vector<std::string> given_keys;  ///< canonical keys present in the file or --set, sorted
  [[nodiscard]] bool given(const std::string& key) const;
};

/// The beam schema (sections model, grid, bc, initial, loads, integrator, noise, output), in documentation
/// order; the `loads.*` entries are the keys of each `[[loads]]` table, the `noise.modes.*` entries those of
/// each `[[noise.modes]]` table.
[[nodiscard]] const std::vector<SchemaEntry>& beam_schema();
/// Load / parse a beam scenario (model.type must be "beam"); throws lievi::invalid_argument with every issue.
/// A relative initial.file is relative to the scenario file's folder (`load_*`) or the current directory.
[[nodiscard]] BeamScenario load_beam_scenario(const std::filesystem::path& path,
                                              const std::vector<std::string>& overrides = {});
[[nodiscard]] BeamScenario parse_beam_scenario(const std::string& toml_text, const std::string& file_label,
                                               const std::string& name,
                                               const std::vector<std::string>& overrides = {});
/// The resolved keys in schema order (validate, summary.json): every key that applies (default when not
/// given) and every key given; each load as `loads[i].node`, `loads[i].frame`, ... (times / factors only when
/// it has a table); each noise mode as `noise.modes[i].theta`, then `profile` (and `wavenumber`) or `values`.
[[nodiscard]] std::vector<ResolvedEntry> resolved_entries(const BeamScenario& s);
/// The resolved scenario as TOML (loadable again: the same resolved entries); the derived section constants
/// and K, P diagonals in the header comments, the loads as `[[loads]]` tables.
[[nodiscard]] std::string to_toml(const BeamScenario& s);
/// Keys given but not used (material keys with section "matrix", keys of another section or shape), one note
/// each.
[[nodiscard]] std::vector<std::string> ignored_key_notes(const BeamScenario& s);

}  // namespace lievi::io
