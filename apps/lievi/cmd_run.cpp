/// @file apps/lievi/cmd_run.cpp
/// @brief `lievi run FILE [--set key=value]... [--out DIR] [--force]`: run one scenario, write its folder.
#include <cstdio>
#include <exception>

#include "commands.hpp"
#include "lievi/io/scenario.hpp"
#include "lievi/run/rigid_body_run.hpp"

namespace lievi::cli {

CLI::App* add_run_command(CLI::App& app, RunArgs& a) {
  CLI::App* c =
      app.add_subcommand("run", "Run a scenario; write series.csv, summary.json and plots into --out");
  c->add_option("FILE", a.file, "Scenario file (TOML)")->required();
  c->add_option("--set", a.set, "Override a scenario key: --set integrator.dt=0.01 (repeatable)")
      ->type_name("KEY=VALUE")
      ->take_all()
      ->allow_extra_args(false);
  c->add_option("--out", a.out, "Output folder (default runs/<scenario name>)");
  c->add_flag("--force", a.force,
              "Replace a non-empty existing output folder (after the new one is complete)");
  c->add_option("--paths", a.paths, "Number of noise paths (ensembles; needs a noisy model)");
  return c;
}

int run_command(const RunArgs& a) {
  try {
    const io::RigidBodyScenario s = io::load_scenario(a.file, a.set);
    if (a.paths != 0) {
      throw invalid_argument("--paths", "",
                             "value " + std::to_string(a.paths) +
                                 " not allowed: the rigid body has no noise, so there is nothing to sample");
    }
    const std::filesystem::path out =
        a.out.empty() ? run::default_output_dir(s) : std::filesystem::path(a.out);
    run::RunOptions o;
    o.force = a.force;
    const run::RunResult r = run::run_rigid_body(s, out, o);
    if (!r.complete) {
      const auto& f = *r.failure;
      std::fprintf(stderr,
                   "%s: numerical failure in step %lld (from t = %s): %s (residual %s); %s. Outputs up to "
                   "t = %s kept in %s (status \"incomplete\")\n",
                   a.file.c_str(), f.step, io::format_number(f.t).c_str(), f.message.c_str(),
                   io::format_number(f.residual).c_str(), f.hint.c_str(),
                   io::format_number(r.t_final).c_str(), r.out_dir.c_str());
      return static_cast<int>(ExitCode::numerical_failure);
    }
    std::printf("%s: %lld steps of %s%s to t = %s in %.3f s; wrote %s\n", s.name.c_str(), r.steps,
                s.method.c_str(), r.retraction.empty() ? "" : (" (" + r.retraction + ")").c_str(),
                io::format_number(r.t_final).c_str(), r.total_s, r.out_dir.c_str());
    for (const auto& n : r.notes) std::printf("  note: %s\n", n.c_str());
    return static_cast<int>(ExitCode::ok);
  } catch (const invalid_argument& e) {
    return report(e);
  } catch (const std::exception& e) {
    return report_other(e.what());
  }
}

}  // namespace lievi::cli
