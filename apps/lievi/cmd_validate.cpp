/// @file apps/lievi/cmd_validate.cpp
/// @brief `lievi validate FILE [--set ...]`: check and print the fully resolved scenario of any model type;
/// run nothing.
#include <cstdio>
#include <variant>

#include "commands.hpp"
#include "lievi/io/wave_scenario.hpp"
#include "lievi/run/beam_run.hpp"
#include "lievi/run/mechanics_run.hpp"
#include "lievi/run/rigid_body_run.hpp"
#include "lievi/run/wave_run.hpp"

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
    if (const auto* s = std::get_if<io::RigidBodyScenario>(&any)) {
      (void)run::prepare_rigid_body(*s);  // the method's a-priori checks (e.g. the exp step-size bound)
      std::fputs(io::to_toml(*s).c_str(), stdout);
    } else if (const auto* w = std::get_if<io::WaveScenario>(&any)) {
      run::check_wave(*w);  // the CFL limit, as `run` checks it
      std::fputs(io::to_toml(*w).c_str(), stdout);
    } else if (const auto* m = std::get_if<io::MechanicsScenario>(&any)) {
      run::check_mechanics(*m);  // the constraint projection of the start, as `run` does it
      std::fputs(io::to_toml(*m).c_str(), stdout);
    } else {
      const auto& b = std::get<io::BeamScenario>(any);
      run::check_beam(b);  // the a-priori stability bound, as `run` checks it
      std::fputs(io::to_toml(b).c_str(), stdout);
    }
    return static_cast<int>(ExitCode::ok);
  } catch (const invalid_argument& e) {
    return report(e);
  }
}

}  // namespace lievi::cli
