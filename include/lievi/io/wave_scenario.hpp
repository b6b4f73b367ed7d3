#pragma once
/// @file lievi/io/wave_scenario.hpp
/// @brief The field scenario of the (stochastic) wave equation, `model.type = "wave"` (the dispatch of any
/// scenario file on its `model.type`: io/any_scenario.hpp).
///
/// One schema style with the rigid body's (io/scenario.hpp): the same TOML reading, `--set` conversion, all
/// issues of a file reported together, `lievi validate` printout and docs/scenarios.md key table. Every key
/// with type, default, unit and allowed values is in `wave_schema()` (docs/scenarios.md, "wave").
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "lievi/config/wave.hpp"
#include "lievi/io/scenario.hpp"

namespace lievi::io {

/// A validated wave scenario: the typed configuration (config/wave.hpp) with every default filled, its name,
/// source and the keys given.
struct WaveScenario : config::WaveConfig {
  static constexpr const char* model_type = "wave";  ///< model.type of the format
  std::string name;    ///< file stem (default output folder runs/<name>)
  std::string source;  ///< file it came from ("" for a string)
  std::vector<std::string> given_keys;  ///< canonical keys present in the file or --set, sorted
  [[nodiscard]] bool given(const std::string& key) const;
};

/// The wave schema (sections model, grid, bc, initial, integrator, noise, output), in documentation order.
[[nodiscard]] const std::vector<SchemaEntry>& wave_schema();

/// Load / parse a wave scenario (model.type must be "wave"); throws lievi::invalid_argument with every issue.
/// A relative initial.file is relative to the scenario file's folder (`load_*`) or to the current directory
/// (`parse_*`, which has no folder).
[[nodiscard]] WaveScenario load_wave_scenario(const std::filesystem::path& path,
                                              const std::vector<std::string>& overrides = {});
[[nodiscard]] WaveScenario parse_wave_scenario(const std::string& toml_text, const std::string& file_label,
                                               const std::string& name,
                                               const std::vector<std::string>& overrides = {});

/// The resolved keys in schema order (validate printout, summary.json): every key that applies (with its
/// default when not given) and every key given. Keys that do not apply are left out unless given: the other
/// noise keys with noise.mode = "none", initial parameters the shape does not read, noise.theta with explicit
/// noise.modes.
[[nodiscard]] std::vector<ResolvedEntry> resolved_entries(const WaveScenario& s);
/// Keys given but not used (noise keys with noise.mode = "none", initial parameters of another shape,
/// noise.theta with explicit modes), one note each (summary.json `notes`, `lievi validate`).
[[nodiscard]] std::vector<std::string> ignored_key_notes(const WaveScenario& s);
/// The resolved scenario as TOML text, loadable again (the same resolved entries); defaults are marked
/// `# default`, ignored keys `# ignored: ...`.
[[nodiscard]] std::string to_toml(const WaveScenario& s);

}  // namespace lievi::io
