/// @file apps/lievi/cmd_run.cpp
/// @brief `lievi run FILE [--set key=value]... [--out DIR] [--force]`: run one scenario, write its folder.
#include <algorithm>
#include <cstdio>
#include <exception>

#include "commands.hpp"
#include "lievi/io/memory_estimate.hpp"
#include "lievi/io/scenario.hpp"
#include "lievi/io/wave_scenario.hpp"
#include "lievi/run/beam_run.hpp"
#include "lievi/run/mechanics_run.hpp"
#include "lievi/run/rigid_body_run.hpp"
#include "lievi/run/wave_run.hpp"

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
              "Replace an existing output folder that lievi wrote (after the new one is complete)");
  c->add_option("--paths", a.paths_text,
                "Number of noise paths, 1 to " + std::to_string(kMaxPaths) + " (ensembles; needs a noisy model)")
      ->type_name("N");
  return c;
}

namespace {

/// --paths: an integer 1 ... kMaxPaths, digits only.
long long parse_paths(const std::string& text) {
  const bool digits = !text.empty() && text.size() <= 7 &&
                      std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
  const long long n = digits ? std::stoll(text) : 0;
  if (n < 1 || n > kMaxPaths)
    throw invalid_argument("--paths", "",
                           "value '" + shorten(text) + "' not allowed: the number of noise paths is an integer from 1 to " +
                               std::to_string(kMaxPaths));
  return n;
}

/// "FILE: numerical failure in step N (from t = ...): message (residual r); hint. Outputs ... kept in DIR"
int report_failure(const RunArgs& a, const run::RunFailure& f, double t_final, const std::filesystem::path& dir) {
  std::fprintf(stderr,
               "%s: numerical failure in step %lld (from t = %s): %s (residual %s); %s. Outputs up to "
               "t = %s kept in %s (status \"failed\")\n",
               a.file.c_str(), f.step, io::format_number(f.t).c_str(), f.message.c_str(),
               io::format_number(f.residual).c_str(), f.hint.c_str(), io::format_number(t_final).c_str(),
               dir.c_str());
  return static_cast<int>(ExitCode::numerical_failure);
}

int run_rigid_body(const RunArgs& a, const io::RigidBodyScenario& s) {
  if (a.paths != 0) {
    throw invalid_argument("--paths", "",
                           "value " + std::to_string(a.paths) +
                               " not allowed: the rigid body has no noise, so there is nothing to sample");
  }
  const std::filesystem::path out = a.out.empty() ? run::default_output_dir(s) : std::filesystem::path(a.out);
  run::RunOptions o;
  o.force = a.force;
  const run::RunResult r = run::run_rigid_body(s, out, o);
  if (!r.complete) return report_failure(a, *r.failure, r.t_final, r.out_dir);
  std::printf("%s: %lld steps of %s%s to t = %s in %.3f s; wrote %s\n", s.name.c_str(), r.steps, config::id(s.method),
              r.retraction.empty() ? "" : (" (" + r.retraction + ")").c_str(), io::format_number(r.t_final).c_str(),
              r.total_s, r.out_dir.c_str());
  for (const auto& n : r.notes) std::printf("  note: %s\n", n.c_str());
  return static_cast<int>(ExitCode::ok);
}

int run_wave(const RunArgs& a, const io::WaveScenario& s) {
  const std::filesystem::path out = a.out.empty() ? run::default_output_dir(s) : std::filesystem::path(a.out);
  run::RunOptions o;
  o.force = a.force;
  const run::WaveRunResult r = a.paths > 0 ? run::run_wave_ensemble(s, a.paths, out, o) : run::run_wave(s, out, o);
  if (!r.complete) return report_failure(a, *r.failure, r.t_final, r.out_dir);
  std::printf("%s: %lld steps of %s (%s) on %lld nodes%s to t = %s in %.3f s; wrote %s\n", s.name.c_str(), r.steps,
              config::id(s.method), config::id(s.variant), s.n_nodes(),
              r.paths > 1 || a.paths > 0 ? (", " + std::to_string(r.paths) + " paths").c_str() : "",
              io::format_number(r.t_final).c_str(), r.total_s, r.out_dir.c_str());
  for (const auto& n : r.notes) std::printf("  note: %s\n", n.c_str());
  return static_cast<int>(ExitCode::ok);
}

int run_beam(const RunArgs& a, const io::BeamScenario& s) {
  const std::filesystem::path out = a.out.empty() ? run::default_output_dir(s) : std::filesystem::path(a.out);
  run::RunOptions o;
  o.force = a.force;
  const run::WaveRunResult r = a.paths > 0 ? run::run_beam_ensemble(s, a.paths, out, o) : run::run_beam(s, out, o);
  if (!r.complete) return report_failure(a, *r.failure, r.t_final, r.out_dir);
  std::printf("%s: %lld steps of the %s beam integrator (%s, %s) on %lld nodes%s to t = %s in %.3f s; wrote %s\n",
              s.name.c_str(), r.steps, config::id(s.variant), config::id(s.method), config::id(s.retraction), s.n_nodes(),
              a.paths > 0 ? (", " + std::to_string(r.paths) + " paths").c_str() : "",
              io::format_number(r.t_final).c_str(), r.total_s, r.out_dir.c_str());
  for (const auto& n : r.notes) std::printf("  note: %s\n", n.c_str());
  return static_cast<int>(ExitCode::ok);
}

int run_mechanics(const RunArgs& a, const io::MechanicsScenario& s) {
  if (a.paths != 0) {
    throw invalid_argument("--paths", "",
                           "value " + std::to_string(a.paths) +
                               " not allowed: the lagrangian model has no noise, so there is nothing to sample");
  }
  const std::filesystem::path out = a.out.empty() ? run::default_output_dir(s) : std::filesystem::path(a.out);
  run::RunOptions o;
  o.force = a.force;
  const run::MechanicsRunResult r = run::run_mechanics(s, out, o);
  for (const auto& n : r.notes) std::printf("  note: %s\n", n.c_str());
  if (!r.complete) return report_failure(a, *r.failure, r.t_final, r.out_dir);
  std::printf("%s: %lld steps of %s on %s (n = %d) to t = %s in %.3f s; wrote %s\n", s.name.c_str(), r.steps,
              config::id(s.method), config::id(s.system), s.dim(), io::format_number(r.t_final).c_str(), r.total_s,
              r.out_dir.c_str());
  return static_cast<int>(ExitCode::ok);
}

}  // namespace

int run_command(const RunArgs& args) {
  try {
    RunArgs a = args;
    if (a.paths_given) a.paths = parse_paths(a.paths_text);
    const io::AnyScenario any = io::load_any_scenario(a.file, a.set);
    // An ensemble keeps one path per thread and the series statistics: refuse it before allocating when it
    // needs more than the available memory (a single run was checked when the scenario was read).
    if (a.paths > 1) io::check_memory(any, a.paths);
    if (const auto* rb = std::get_if<io::RigidBodyScenario>(&any)) return run_rigid_body(a, *rb);
    if (const auto* beam = std::get_if<io::BeamScenario>(&any)) return run_beam(a, *beam);
    if (const auto* mech = std::get_if<io::MechanicsScenario>(&any)) return run_mechanics(a, *mech);
    return run_wave(a, std::get<io::WaveScenario>(any));
  } catch (const invalid_argument& e) {
    return report(e);
  } catch (const std::exception& e) {
    return report_other(e.what());
  }
}

}  // namespace lievi::cli
