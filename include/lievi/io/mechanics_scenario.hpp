#pragma once
/// @file lievi/io/mechanics_scenario.hpp
/// @brief The Lagrangian-mechanics scenario, `model.type = "lagrangian"`: one of the catalogue systems of
/// models/mechanics.hpp (`model.system`), integrated by a discrete-mechanics method (integrators/del) or by the
/// RK4 comparator on the Euler-Lagrange ODE.
///
/// Same schema style as the other models (io/scenario.hpp): TOML reading, `--set` conversion, every issue of a
/// file reported together, `lievi validate` printout and the docs/scenarios.md key table (`mechanics_schema()`).
/// Keys a system or method does not read are accepted (their values are still checked) and noted as ignored.
#include <filesystem>
#include <string>
#include <vector>

#include "lievi/config/lagrangian.hpp"
#include "lievi/io/scenario.hpp"

namespace lievi::io {

/// One method of the lagrangian model, for `lievi methods` and the scenario's allowed values.
struct MechanicsMethodInfo {
  config::MechanicsMethod method;
  int order;
  bool is_implicit;
  bool symplectic;   ///< variational (symplectic, discrete Noether)
  bool constraints;  ///< available for the constrained system (SHAKE / RATTLE)
  const char* summary;
  [[nodiscard]] const char* id() const { return config::id(method); }
};

/// midpoint, trapezoid, lobatto-iiia-iiib, rk4.
[[nodiscard]] const std::vector<MechanicsMethodInfo>& mechanics_methods();
/// The entry of `m`.
[[nodiscard]] const MechanicsMethodInfo& mechanics_method(config::MechanicsMethod m);

/// A validated lagrangian scenario: the typed configuration (config/lagrangian.hpp) with every default
/// filled, its name, source and the keys given.
struct MechanicsScenario : config::LagrangianConfig {
  static constexpr const char* model_type = "lagrangian";  ///< model.type of the format
  std::string name;                     ///< file stem (default output folder runs/<name>)
  std::string source;                   ///< file it came from ("" for a string)
  std::vector<std::string> given_keys;  ///< canonical keys present in the file or --set, sorted
  [[nodiscard]] bool given(const std::string& key) const;
};

/// The lagrangian schema (sections model, initial, integrator, output), in documentation order.
[[nodiscard]] const std::vector<SchemaEntry>& mechanics_schema();

/// Load / parse a lagrangian scenario (model.type must be "lagrangian"); throws lievi::invalid_argument with
/// every issue.
[[nodiscard]] MechanicsScenario load_mechanics_scenario(const std::filesystem::path& path,
                                                        const std::vector<std::string>& overrides = {});
[[nodiscard]] MechanicsScenario parse_mechanics_scenario(const std::string& toml_text, const std::string& file_label,
                                                         const std::string& name,
                                                         const std::vector<std::string>& overrides = {});

/// The resolved keys in schema order: the keys the system and method read (defaults filled) and every key given.
[[nodiscard]] std::vector<ResolvedEntry> resolved_entries(const MechanicsScenario& s);
/// Keys given but not read by the system or the method, one note each.
[[nodiscard]] std::vector<std::string> ignored_key_notes(const MechanicsScenario& s);
/// The resolved scenario as TOML text, loadable again.
[[nodiscard]] std::string to_toml(const MechanicsScenario& s);

}  // namespace lievi::io
