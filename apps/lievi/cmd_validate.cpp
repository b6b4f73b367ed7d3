/// @file apps/lievi/cmd_validate.cpp
/// @brief `lievi validate FILE [--set ...]`: check and print the fully resolved scenario of any model type;
/// run nothing.
#include <cstdio>
#include <variant>

#include "commands.hpp"
#include "lievi/io/any_scenario.hpp"
#include "lievi/run/models.hpp"

namespace lievi::cli {

CLI::App* add_validate_command(CLI::App& app, ValidateArgs& a) {
  CLI::App* c =
      app.add_subcommand("validate", "Check a scenario and print it resolved (all defaults filled)");
  c->add_option("FILE", a.file, "Scenario file (TOML)")->required();
  c->add_option("--set", a.set, "Override a scenario key: --set integrator.dt=0.01 (repeatable)")
      ->type_name("KEY=VALUE")
      ->take_all()
      ->allow_extra_args(false);
  return c;
}

int validate_command(const ValidateArgs& a) {
  try {
    const io::AnyScenario any = io::load_any_scenario(a.file, a.set);
    const run::ModelType& model = run::model_of(any);
    model.check(any);  // what `run` checks before writing (stability bounds, a method's a-priori conditions)
    std::fputs(model.resolved_toml(any).c_str(), stdout);
    return static_cast<int>(ExitCode::ok);
  } catch (const invalid_argument& e) {
    return report(e);
  }
}

}  // namespace lievi::cli
