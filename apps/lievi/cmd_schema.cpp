/// @file apps/lievi/cmd_schema.cpp
/// @brief `lievi schema [TYPE]`: the scenario keys of a model type (type, default, unit, allowed values) as
/// the Markdown table of docs/scenarios.md; without TYPE every model type, each under a `### TYPE` heading.
#include <cstdio>

#include "commands.hpp"
#include "lievi/io/any_scenario.hpp"

namespace lievi::cli {

CLI::App* add_schema_command(CLI::App& app, SchemaArgs& a) {
  CLI::App* c =
      app.add_subcommand("schema", "Print the scenario keys as a Markdown table (docs/scenarios.md)");
  std::string types;
  for (const auto& t : io::model_types()) types += (types.empty() ? "" : ", ") + t;
  c->add_option("TYPE", a.type, "Model type (" + types + "); default: every type");
  return c;
}

int schema_command(const SchemaArgs& a) {
  if (!a.type.empty()) {
    std::fputs(io::schema_markdown(a.type).c_str(), stdout);  // an unknown type throws invalid_argument
    return static_cast<int>(ExitCode::ok);
  }
  bool first = true;
  for (const auto& t : io::model_types()) {
    std::printf("%s### %s\n\n%s", first ? "" : "\n", t.c_str(), io::schema_markdown(t).c_str());
    first = false;
  }
  return static_cast<int>(ExitCode::ok);
}

}  // namespace lievi::cli
