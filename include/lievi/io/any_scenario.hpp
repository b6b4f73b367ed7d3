#pragma once
/// @file lievi/io/any_scenario.hpp
/// @brief A scenario of any model type, read by dispatching the file on its `model.type`: the formats
/// (io/scenario.hpp, io/wave_scenario.hpp, io/beam_scenario.hpp, io/mechanics_scenario.hpp) are one table in
/// src/io/formats.cpp. The run side of each model type is run/models.hpp.
#include <filesystem>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "lievi/io/beam_scenario.hpp"
#include "lievi/io/kirchhoff_scenario.hpp"
#include "lievi/io/lie_group_scenario.hpp"
#include "lievi/io/mechanics_scenario.hpp"
#include "lievi/io/scenario.hpp"
#include "lievi/io/string_scenario.hpp"
#include "lievi/io/wave_scenario.hpp"

namespace lievi::io {

/// Any scenario: dispatched on `model.type` (also after `--set model.type=...`). A missing or unknown
/// model.type is one issue listing the model types; otherwise the model's own reader gives its messages.
using AnyScenario = std::variant<RigidBodyScenario, WaveScenario, BeamScenario, MechanicsScenario,
                                 KirchhoffScenario, ElasticStringScenario, LieGroupScenario>;
[[nodiscard]] AnyScenario load_any_scenario(const std::filesystem::path& path,
                                            const std::vector<std::string>& overrides = {});
/// `source`: the file the text stands for (its folder is where relative side files are read from; "" for
/// the working folder).
[[nodiscard]] AnyScenario parse_any_scenario(const std::string& toml_text, const std::string& file_label,
                                             const std::string& name,
                                             const std::vector<std::string>& overrides = {},
                                             const std::string& source = "");

/// The model.type of a scenario file (after the `--set` overrides) without reading the rest: its string, the
/// TOML text of a value that is not a string, or nullopt when absent. Throws lievi::invalid_argument when the
/// file cannot be read or is not TOML.
[[nodiscard]] std::optional<std::string> scenario_model_type(const std::filesystem::path& path,
                                                             const std::vector<std::string>& overrides = {});

/// The model types and their schemas, for `lievi schema [TYPE]` and docs/scenarios.md.
[[nodiscard]] std::vector<std::string> model_types();  ///< {"rigid_body", "wave", "beam", "lagrangian", "kirchhoff", "string", "lie_group"}
[[nodiscard]] const std::vector<SchemaEntry>& schema_of(const std::string& model_type);
[[nodiscard]] std::string schema_markdown(const std::string& model_type);
/// The Markdown key table of a schema (docs/scenarios.md, `lievi schema`).
[[nodiscard]] std::string schema_markdown(const std::vector<SchemaEntry>& schema);

}  // namespace lievi::io
