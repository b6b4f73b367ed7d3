/// @file apps/lievi/cmd_methods.cpp
/// @brief `lievi methods`: every model type's methods with their traits (order, implicit, Casimirs,
/// symplectic, constraints), from the model registry.
#include <cstdio>

#include "commands.hpp"
#include "lievi/run/models.hpp"

namespace lievi::cli {

CLI::App* add_methods_command(CLI::App& app) {
  return app.add_subcommand("methods", "List the method ids with their traits");
}

int methods_command() {
  for (const auto& m : run::model_registry()) std::fputs(m.methods_text().c_str(), stdout);
  return static_cast<int>(ExitCode::ok);
}

}  // namespace lievi::cli
