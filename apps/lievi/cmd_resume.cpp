/// @file apps/lievi/cmd_resume.cpp
/// @brief `lievi resume DIR [--set integrator.t_end=T]`: continue a run from its checkpoint, in its folder.
#include <cstdio>
#include <exception>

#include "commands.hpp"
#include "lievi/parallel/comm.hpp"
#include "lievi/run/models.hpp"

namespace lievi::cli {

CLI::App* add_resume_command(CLI::App& app, ResumeArgs& a) {
  CLI::App* c = app.add_subcommand(
      "resume", "Continue a run from the checkpoint in its output folder (runs with output.checkpoint_every or "
                "output.checkpoint_wall); the outputs equal the uninterrupted run's");
  c->add_option("DIR", a.dir, "The run's output folder (it holds checkpoint.h5)")->required();
  c->add_option("--set", a.set, "Only integrator.t_end=T: extend the run to T (a finished run too)")
      ->type_name("KEY=VALUE")
      ->take_all()
      ->allow_extra_args(false);
  c->add_option("--stop-at", a.stop_at, "Write a checkpoint at step STEP and stop there again")
      ->type_name("STEP")
      ->check(CLI::PositiveNumber);
  return c;
}

int resume_command(const ResumeArgs& a) {
  try {
    run::RunOptions o;
    o.stop_at = a.stop_at;
    o.comm = parallel::world();
    std::string name;
    const run::RunOutcome r = run::resume_run(a.dir, a.set, o, &name);
    return report_outcome(a.dir, name, r);
  } catch (const invalid_argument& e) {
    return report(e);
  } catch (const std::exception& e) {
    return report_other(e.what());
  }
}

}  // namespace lievi::cli
