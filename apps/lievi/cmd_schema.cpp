/// @file apps/lievi/cmd_schema.cpp
/// @brief `lievi schema`: the scenario keys (type, default, unit, allowed values) as the Markdown table of
/// docs/scenarios.md.
#include <cstdio>

#include "commands.hpp"
#include "lievi/io/scenario.hpp"

namespace lievi::cli {

CLI::App* add_schema_command(CLI::App& app) {
  return app.add_subcommand("schema", "Print the scenario keys as a Markdown table (docs/scenarios.md)");
}

int schema_command() {
  std::fputs(io::schema_markdown().c_str(), stdout);
  return static_cast<int>(ExitCode::ok);
}

}  // namespace lievi::cli
