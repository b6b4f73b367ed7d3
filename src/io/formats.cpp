/// @file src/io/formats.cpp
/// @brief The scenario formats, one entry per model type: its schema and its reader. A scenario file is read
/// by the reader its `model.type` names (io/any_scenario.hpp).
#include <functional>

#include "lievi/core/error.hpp"
#include "lievi/io/any_scenario.hpp"
#include "scenario_reader.hpp"

namespace lievi::io {
namespace detail {
// The readers of the formats, on a parsed document (each in its model's file).
RigidBodyScenario resolve_rigid_body(const RawValue& root, const std::string& file, const std::string& name,
                                     const std::string& source, const std::vector<std::string>& overrides);
BeamScenario resolve_beam_document(const RawValue& root, const std::string& file, const std::string& name,
                                   const std::string& source, const std::vector<std::string>& overrides);
WaveScenario resolve_wave_document(const RawValue& root, const std::string& file, const std::string& name,
                                   const std::string& source, const std::vector<std::string>& overrides);
MechanicsScenario resolve_mechanics_document(const RawValue& root, const std::string& file, const std::string& name,
                                             const std::string& source, const std::vector<std::string>& overrides);
KirchhoffScenario resolve_kirchhoff_document(const RawValue& root, const std::string& file, const std::string& name,
                                             const std::string& source, const std::vector<std::string>& overrides);
ElasticStringScenario resolve_string_document(const RawValue& root, const std::string& file, const std::string& name,
                                              const std::string& source, const std::vector<std::string>& overrides);
LieGroupScenario resolve_lie_group_document(const RawValue& root, const std::string& file, const std::string& name,
                                            const std::string& source, const std::vector<std::string>& overrides);
}  // namespace detail
namespace {

using detail::RawValue;

/// One scenario format.
struct Format {
  std::string type;
  const std::vector<SchemaEntry>& (*schema)();
  std::function<AnyScenario(const RawValue&, const std::string& file, const std::string& name,
                            const std::string& source, const std::vector<std::string>& overrides)>
      read;
};

const std::vector<Format>& formats() {
  static const std::vector<Format> v = {
      {RigidBodyScenario::model_type, rigid_body_schema, detail::resolve_rigid_body},
      {WaveScenario::model_type, wave_schema, detail::resolve_wave_document},
      {BeamScenario::model_type, beam_schema, detail::resolve_beam_document},
      {MechanicsScenario::model_type, mechanics_schema, detail::resolve_mechanics_document},
      {KirchhoffScenario::model_type, kirchhoff_schema, detail::resolve_kirchhoff_document},
      {ElasticStringScenario::model_type, string_schema, detail::resolve_string_document},
      {LieGroupScenario::model_type, lie_group_schema, detail::resolve_lie_group_document},
  };
  return v;
}

AnyScenario parse_any_impl(const std::string& text, const std::string& file, const std::string& name,
                           const std::string& source, const std::vector<std::string>& overrides) {
  const RawValue root = detail::parse_toml(text, file);
  const auto type = detail::peek_key(root, file, overrides, "model.type");
  const std::string allowed = detail::join(model_types());
  if (!type)
    throw invalid_argument(file, "model.type",
                           "missing required key; expected a string (" + allowed +
                               "): the model type, which selects the scenario format");
  if (type->value.kind == RawValue::Kind::string)
    for (const auto& f : formats())
      if (f.type == type->value.s) return f.read(root, file, name, source, overrides);
  throw invalid_argument(type->origin, "model.type",
                         "value " + type->value.text() + " is not a model type; allowed: " + allowed);
}

}  // namespace

std::vector<std::string> model_types() {
  std::vector<std::string> v;
  for (const auto& f : formats()) v.push_back(f.type);
  return v;
}

const std::vector<SchemaEntry>& schema_of(const std::string& model_type) {
  for (const auto& f : formats())
    if (f.type == model_type) return f.schema();
  throw invalid_argument("", "", "unknown model type \"" + model_type + "\"; allowed: " + detail::join(model_types()));
}

std::string schema_markdown(const std::string& model_type) { return detail::schema_markdown(schema_of(model_type)); }

std::string schema_markdown(const std::vector<SchemaEntry>& schema) { return detail::schema_markdown(schema); }

std::optional<std::string> scenario_model_type(const std::filesystem::path& path,
                                               const std::vector<std::string>& overrides) {
  const std::string file = path.string();
  const RawValue root = detail::parse_toml(detail::read_scenario_text(path), file);
  const auto type = detail::peek_key(root, file, overrides, "model.type");
  if (!type) return std::nullopt;
  return type->value.kind == RawValue::Kind::string ? type->value.s : type->value.text();
}

AnyScenario load_any_scenario(const std::filesystem::path& path, const std::vector<std::string>& overrides) {
  const std::string file = path.string();
  return parse_any_impl(detail::read_scenario_text(path), file, path.stem().string(), file, overrides);
}

AnyScenario parse_any_scenario(const std::string& toml_text, const std::string& file_label, const std::string& name,
                               const std::vector<std::string>& overrides, const std::string& source) {
  return parse_any_impl(toml_text, file_label, name, source, overrides);
}

}  // namespace lievi::io
