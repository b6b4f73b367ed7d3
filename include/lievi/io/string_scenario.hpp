#pragma once
/// @file lievi/io/string_scenario.hpp
/// @brief The elastic-string scenario, `model.type = "string"`: a geometrically nonlinear string in R^3
/// (config/elastic_string.hpp) stepped by the asynchronous variational integrator or synchronously.
///
/// Same schema style as the other models (io/scenario.hpp): TOML reading, `--set` conversion, every issue of a
/// file reported together, `lievi validate` printout and the docs/scenarios.md key table (`string_schema()`).
/// Keys the method or shape does not read are accepted (their values are still checked) and noted as ignored.
#include <filesystem>
#include <string>
#include <vector>

#include "lievi/config/elastic_string.hpp"
#include "lievi/io/scenario.hpp"

namespace lievi::io {

/// A validated string scenario: the typed configuration with every default filled, its name, source and the
/// keys given.
struct ElasticStringScenario : config::ElasticStringConfig {
  static constexpr const char* model_type = "string";  ///< model.type of the format
  std::string name;                     ///< file stem (default output folder runs/<name>)
  std::string source;                   ///< file it came from ("" for a string)
  std::vector<std::string> given_keys;  ///< canonical keys present in the file or --set, sorted
  [[nodiscard]] bool given(const std::string& key) const;
};

/// The string schema (sections model, regions, grid, bc, initial, integrator, output), in documentation order.
[[nodiscard]] const std::vector<SchemaEntry>& string_schema();

/// Load / parse a string scenario (model.type must be "string"); throws lievi::invalid_argument with every
/// issue.
[[nodiscard]] ElasticStringScenario load_string_scenario(const std::filesystem::path& path,
                                                         const std::vector<std::string>& overrides = {});
[[nodiscard]] ElasticStringScenario parse_string_scenario(const std::string& toml_text,
                                                          const std::string& file_label, const std::string& name,
                                                          const std::vector<std::string>& overrides = {});

/// The resolved keys in schema order: the keys that apply (defaults filled), the regions and every key given.
[[nodiscard]] std::vector<ResolvedEntry> resolved_entries(const ElasticStringScenario& s);
/// Keys given but not read by the method or shape, one note each.
[[nodiscard]] std::vector<std::string> ignored_key_notes(const ElasticStringScenario& s);
/// The resolved scenario as TOML text, loadable again.
[[nodiscard]] std::string to_toml(const ElasticStringScenario& s);

}  // namespace lievi::io
