#pragma once
/// @file lievi/io/lie_group_scenario.hpp
/// @brief The Lie-group scenario, `model.type = "lie_group"`: a rigid-body system of models/lie_mechanics.hpp
/// (`model.system` = heavy_top | pendulum_3d | free_body) integrated by the Lie-group variational integrator of
/// integrators/lie_del (position-momentum or reduced form, Cayley or exp retraction), Moser-Veselov's discrete
/// Lagrangian (free body), or the RK4 comparator.
///
/// Same schema style as the other models (io/scenario.hpp): TOML reading, `--set` conversion, every issue of a
/// file reported together, `lievi validate` printout and the docs/scenarios.md key table (`lie_group_schema()`).
/// Keys a system or method does not read are accepted (their values are still checked) and noted as ignored.
#include <filesystem>
#include <string>
#include <vector>

#include "lievi/config/lie_group.hpp"
#include "lievi/io/scenario.hpp"

namespace lievi::io {

/// One method of the lie_group model, for `lievi methods` and summary.json.
struct LieGroupMethodInfo {
  config::LieMethod method;
  int order;
  bool is_implicit;
  bool symplectic;  ///< variational (symplectic, discrete Noether)
  const char* summary;
  [[nodiscard]] const char* id() const { return config::id(method); }
};

/// del, del-reduced, moser-veselov, rk4.
[[nodiscard]] const std::vector<LieGroupMethodInfo>& lie_group_methods();
[[nodiscard]] const LieGroupMethodInfo& lie_group_method(config::LieMethod m);

/// A validated lie_group scenario: the typed configuration with every default filled, its name, source and the
/// keys given.
struct LieGroupScenario : config::LieGroupConfig {
  static constexpr const char* model_type = "lie_group";  ///< model.type of the format
  std::string name;                     ///< file stem (default output folder runs/<name>)
  std::string source;                   ///< file it came from ("" for a string)
  std::vector<std::string> given_keys;  ///< canonical keys present in the file or --set, sorted
  [[nodiscard]] bool given(const std::string& key) const;
};

/// The lie_group schema (sections model, initial, integrator, output), in documentation order.
[[nodiscard]] const std::vector<SchemaEntry>& lie_group_schema();

/// Load / parse a lie_group scenario (model.type must be "lie_group"); throws lievi::invalid_argument with every
/// issue.
[[nodiscard]] LieGroupScenario load_lie_group_scenario(const std::filesystem::path& path,
                                                       const std::vector<std::string>& overrides = {});
[[nodiscard]] LieGroupScenario parse_lie_group_scenario(const std::string& toml_text, const std::string& file_label,
                                                        const std::string& name,
                                                        const std::vector<std::string>& overrides = {});

/// The resolved keys in schema order: the keys the system and method read (defaults filled) and every key given.
[[nodiscard]] std::vector<ResolvedEntry> resolved_entries(const LieGroupScenario& s);
/// Keys given but not read by the system or the method, one note each.
[[nodiscard]] std::vector<std::string> ignored_key_notes(const LieGroupScenario& s);
/// The resolved scenario as TOML text, loadable again.
[[nodiscard]] std::string to_toml(const LieGroupScenario& s);

}  // namespace lievi::io
