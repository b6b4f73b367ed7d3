/// @file apps/lievi/cmd_schema.cpp
/// @brief `lievi schema [TYPE]`: the scenario keys of a model type (type, default, unit, allowed values) as
/// the Markdown table of docs/scenarios.md; without TYPE every model type of the registry, each under a
/// `### TYPE` heading.
#include <cstdio>

#include "commands.hpp"
#include "lievi/io/any_scenario.hpp"
#include "lievi/run/models.hpp"

namespace lievi::cli {

CLI::App* add_schema_command(CLI::App& app, SchemaArgs& a) {
  CLI::App* c =
      app.add_subcommand("schema", "Print the scenario keys as a Markdown table (docs/scenarios.md)");
  std::string types;
  for (const auto& m : run::model_registry()) types += (types.empty() ? "" : ", ") + m.name;
  c->add_option("TYPE", a.type, "Model type (" + types + "); default: every type");
  return c;
}

int schema_command(const SchemaArgs& a) {
  bool first = true;
  for (const auto& m : run::model_registry()) {
    if (!a.type.empty() && m.name != a.type) continue;
    const std::string table = io::schema_markdown(m.schema());
    if (a.type.empty())
      std::printf("%s### %s\n\n%s", first ? "" : "\n", m.name.c_str(), table.c_str());
    else
      std::fputs(table.c_str(), stdout);
    first = false;
  }
  if (first) (void)io::schema_of(a.type);  // an unknown type: invalid_argument listing the model types
  return static_cast<int>(ExitCode::ok);
}

}  // namespace lievi::cli
