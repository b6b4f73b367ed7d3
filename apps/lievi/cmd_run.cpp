/// @file apps/lievi/cmd_run.cpp
/// @brief `lievi run FILE [--set key=value]... [--out DIR] [--force]`: run one scenario, write its folder.
#include <algorithm>
#include <cstdio>
#include <exception>
#include <variant>

#include "commands.hpp"
#include "lievi/parallel/comm.hpp"
#include "lievi/io/any_scenario.hpp"
#include "lievi/io/memory_estimate.hpp"
#include "lievi/run/models.hpp"

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
  c->add_option("--stop-at", a.stop_at,
                 "Write a checkpoint at step STEP and stop there (with --paths: after STEP paths); continue "
                 "later with lievi resume DIR")
      ->type_name("STEP")
      ->check(CLI::PositiveNumber);
  c->add_option("--path-range", a.path_range,
                "With --paths N: run only the paths A ... B-1 (counted from noise.path), a slice for a job array; "
                "lievi merge combines the slices into the ensemble's outputs")
      ->type_name("A:B");
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

/// "LABEL: numerical failure in step N (from t = ...): message (residual r); hint. Outputs ... kept in DIR"
int report_failure(const std::string& label, const run::RunFailure& f, double t_final, const std::filesystem::path& dir) {
  std::fprintf(stderr,
               "%s: numerical failure in step %lld (from t = %s): %s (residual %s); %s. Outputs up to "
               "t = %s kept in %s (status \"failed\")\n",
               label.c_str(), f.step, io::format_number(f.t).c_str(), f.message.c_str(),
               io::format_number(f.residual).c_str(), f.hint.c_str(), io::format_number(t_final).c_str(),
               dir.c_str());
  return static_cast<int>(ExitCode::numerical_failure);
}

/// "NAME: stopped at step k (t = ...) ...; continue with: lievi resume DIR"
int report_stopped(const std::string& name, long long step, double t, const std::string& dir) {
  std::printf("%s: stopped at step %lld (t = %s) after its checkpoint, as asked; continue with: lievi resume %s\n",
              name.c_str(), step, io::format_number(t).c_str(), dir.c_str());
  return static_cast<int>(ExitCode::ok);
}

}  // namespace

int report_outcome(const std::string& label, const std::string& name, const run::RunOutcome& r) {
  const auto notes = [&] {
    for (const auto& n : r.notes) std::printf("  note: %s\n", n.c_str());
  };
  if (r.notes_first) notes();
  if (r.stopped && r.paths_planned > 0) {
    std::printf("%s: stopped after %lld of %lld paths, after their checkpoint, as asked; continue with: lievi "
                "resume %s\n",
                name.c_str(), r.paths_done, r.paths_planned, r.out_dir.c_str());
    return static_cast<int>(ExitCode::ok);
  }
  if (r.stopped) return report_stopped(name, r.steps, r.t_final, r.out_dir.string());
  if (!r.complete) return report_failure(label, *r.failure, r.t_final, r.out_dir);
  std::printf("%s: %s to t = %s in %.3f s; wrote %s\n", name.c_str(), r.what.c_str(),
              io::format_number(r.t_final).c_str(), r.total_s, r.out_dir.c_str());
  if (!r.notes_first) notes();
  return static_cast<int>(ExitCode::ok);
}

int run_command(const RunArgs& args) {
  try {
    RunArgs a = args;
    if (a.paths_given) a.paths = parse_paths(a.paths_text);
    const io::AnyScenario any = io::load_any_scenario(a.file, a.set);
    // An ensemble keeps one path per thread and the series statistics: refuse it before allocating when it
    // needs more than the available memory (a single run was checked when the scenario was read).
    if (a.paths > 1) io::check_memory(any, a.paths);
    run::RunOptions o;
    o.force = a.force;
    o.stop_at = a.stop_at;
    if (!a.path_range.empty()) {
      const auto colon = a.path_range.find(':');
      const auto number = [&](const std::string& t) {
        const bool digits = !t.empty() && t.size() <= 7 &&
                            std::all_of(t.begin(), t.end(), [](char ch) { return ch >= '0' && ch <= '9'; });
        if (!digits || colon == std::string::npos)
          throw invalid_argument("--path-range", "",
                                 "value '" + shorten(a.path_range) + "' not allowed: A:B, two integers (paths A ... B-1)");
        return std::stoll(t);
      };
      o.range_begin = number(a.path_range.substr(0, colon));
      o.range_end = number(colon == std::string::npos ? std::string() : a.path_range.substr(colon + 1));
      run::check_path_range(a.paths, o.range_begin, o.range_end, "--path-range");
    }
    run::check_stop_at(any, o.range_end > 0 ? o.range_end - o.range_begin : a.paths, a.stop_at, "--stop-at");
    o.comm = parallel::world();
    const std::string model = std::visit([](const auto& s) { return std::string(s.model_type); }, any);
    if (o.comm && a.paths == 0 && model != "wave" && model != "beam")
      throw invalid_argument("mpirun", "",
                             std::to_string(o.comm->size()) + " ranks split a wave or beam field (domain "
                             "decomposition) or run an ensemble (--paths N) across ranks; a " + model +
                             " run is not split across ranks: run it without mpirun");
    const run::RunOutcome r = run::model_of(any).run(any, a.paths, a.out, o);
    return report_outcome(a.file, std::visit([](const auto& s) { return s.name; }, any), r);
  } catch (const invalid_argument& e) {
    return report(e);
  } catch (const std::exception& e) {
    return report_other(e.what());
  }
}

}  // namespace lievi::cli
