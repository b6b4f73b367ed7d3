#pragma once
/// @file lievi/io/kirchhoff_scenario.hpp
/// @brief The scenario of Kirchhoff's rigid body in an ideal fluid with double-bracket dissipation,
/// `model.type = "kirchhoff"`: the body (models/kirchhoff.hpp), stepped by the DDB on se(3)*
/// (integrators/ddb_group.hpp, ddb_group_symmetric.hpp; docs/theory/ddb.md "DDB on se(3)*").
///
/// Same schema style as the other models (io/scenario.hpp): TOML reading, `--set` conversion, every issue of a
/// file reported together, `lievi validate` printout and the docs/scenarios.md key table (`kirchhoff_schema()`).
/// Keys the method does not read are accepted (their values are still checked) and noted as ignored.
#include <filesystem>
#include <string>
#include <vector>

#include "lievi/config/kirchhoff.hpp"
#include "lievi/io/scenario.hpp"

namespace lievi::io {

/// A validated kirchhoff scenario: the typed configuration with every default filled, its name, source and the
/// keys given.
struct KirchhoffScenario : config::KirchhoffConfig {
  static constexpr const char* model_type = "kirchhoff";  ///< model.type of the format
  std::string name;                     ///< file stem (default output folder runs/<name>)
  std::string source;                   ///< file it came from ("" for a string)
  std::vector<std::string> given_keys;  ///< canonical keys present in the file or --set, sorted
  [[nodiscard]] bool given(const std::string& key) const;
};

/// The kirchhoff schema (sections model, initial, integrator, output), in documentation order.
[[nodiscard]] const std::vector<SchemaEntry>& kirchhoff_schema();

/// Load / parse a kirchhoff scenario (model.type must be "kirchhoff"); throws lievi::invalid_argument with every
/// issue.
[[nodiscard]] KirchhoffScenario load_kirchhoff_scenario(const std::filesystem::path& path,
                                                        const std::vector<std::string>& overrides = {});
[[nodiscard]] KirchhoffScenario parse_kirchhoff_scenario(const std::string& toml_text, const std::string& file_label,
                                                         const std::string& name,
                                                         const std::vector<std::string>& overrides = {});

/// The resolved keys in schema order: the keys the body and method read (defaults filled) and every key given.
[[nodiscard]] std::vector<ResolvedEntry> resolved_entries(const KirchhoffScenario& s);
/// Keys given but not read by the method, one note each.
[[nodiscard]] std::vector<std::string> ignored_key_notes(const KirchhoffScenario& s);
/// The resolved scenario as TOML text, loadable again (the ellipsoid's derived body in comments).
[[nodiscard]] std::string to_toml(const KirchhoffScenario& s);

}  // namespace lievi::io
