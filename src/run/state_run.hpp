#pragma once
/// @file src/run/state_run.hpp
/// @brief The pipeline shared by the state-vector runs (model types mechanics, lie_group, kirchhoff): the step
/// loop over levels with its checkpoints, resume, progress line and numerical-failure stop, the run in its
/// output folder (series.csv, checkpoint.h5, plots, summary.json), and the parts of summary.json they share.
///
/// A model brings two things. Its *levels* (concept StateLevels): the checked step from level k-1 to level k,
/// the reported values of a level, what a level adds to the diagnostics and to its series.csv row, and the
/// state a checkpoint holds. Its *pipeline* (concept StatePipeline, static members): the scenario check, the
/// series columns, the integration over its levels, the plots and summary.json.
///
/// The loop keeps the rule of run/checkpoint.hpp: the checkpoint of level k is written after step k is
/// accepted and before level k is observed, so a resumed run emits level k again and continues bit for bit.
#include <algorithm>
#include <chrono>
#include <concepts>
#include <filesystem>
#include <functional>
#include <initializer_list>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "field_summary.hpp"
#include "lievi/core/error.hpp"
#include "lievi/io/checkpoint.hpp"
#include "lievi/io/output_dir.hpp"
#include "lievi/io/table_csv.hpp"
#include "lievi/run/checkpoint.hpp"
#include "lievi/run/progress.hpp"
#include "lievi/run/result.hpp"
#include "lievi/run/rigid_body_run.hpp"

namespace lievi::run::detail {

using Row = std::vector<double>;
/// Where the rows of series.csv go (the CSV writer, or memory for the in-process runs).
using Sink = std::function<void(const Row&)>;

/// Seconds of a steady-clock duration (the timing fields of summary.json).
[[nodiscard]] inline double seconds(std::chrono::steady_clock::duration d) {
  return std::chrono::duration<double>(d).count();
}

/// Checkpoints of a state-vector run: where they go (null: none), the checkpoint it resumes from (null: level
/// 0), and the outputs' own state (series.csv's length) saved with the run's.
struct StateCheckpoints {
  Checkpointer* checkpoints = nullptr;
  const ResumeFrom* resume = nullptr;
  std::function<void(StateIO&)> outputs;
};

/// The levels of a model, as the step loop reads them. `Values` are the reported values of a level.
/// - values(): those of the current level;
/// - checked_step(k, res, val): step k (level k-1 to level k) with the model's health check; a failure puts the
///   state back to level k-1 and is returned, otherwise `val` holds level k's (finite) values;
/// - unusable(val): "" when the values are finite, else the end of "the checkpoint's state ..." saying why not;
/// - observe(val): level k into the diagnostics (maxima, final energy), whether or not it is written;
/// - columns(row, val): the row's columns between t and newton;
/// - save(a): the state the next step reads and the diagnostics' accumulators (before the loop's counters).
template <class L>
concept StateLevels = requires(L& l, const L& cl, long long k, StepResult& res, typename L::Values& val, Row& row,
                               StateIO& a) {
  { cl.values() } -> std::same_as<typename L::Values>;
  { l.checked_step(k, res, val) } -> std::same_as<std::optional<RunFailure>>;
  { cl.unusable(val) } -> std::convertible_to<std::string>;
  l.observe(val);
  cl.columns(row, val);
  l.save(a);
};

/// The step loop of a state-vector run over levels 0..N of `s` (s.steps, s.every, s.t_end, s.time_at): level
/// 0, or the resumed level k0 of `plan.resume`, then steps k = k0 + 1..N. Every level is observed; a row
/// (t, the model's columns, the step's Newton iterations) goes to `sink` every `s.every` steps and at N.
/// A failed step stops the loop (r.failure) with the last good level written as the final row; a checkpoint at
/// `--stop-at` stops it resumable (r.stopped). Sets r's steps, rows, complete, t_final, newton, integrate_s.
/// Throws lievi::invalid_argument when a checkpoint's state is not finite.
template <class Scenario, StateLevels L, class Result>
void step_levels(const Scenario& s, L& levels, Result& r, const Sink& sink, Progress progress,
                 const StateCheckpoints& plan) {
  using Values = typename L::Values;
  const long long N = s.steps;
  long long last_output = 0;
  int last_iterations = 0;
  Row row;
  // Level k with its (finite) values: the diagnostics, and the row when `write`.
  auto level = [&](double t, const Values& val, int iterations, bool write) {
    levels.observe(val);
    if (!write) return;
    row.clear();
    row.push_back(t);
    levels.columns(row, val);
    row.push_back(static_cast<double>(iterations));
    sink(row);
    ++r.rows;
  };
  // Everything the next step and the outputs read (run/checkpoint.hpp): saved after step k is accepted and
  // before level k's diagnostics and row; last_iterations is then step k's count.
  auto state = [&](StateIO& a) {
    levels.save(a);
    a("run/newton_total", r.newton.total);
    a("run/newton_max", r.newton.max);
    a("run/rows", r.rows);
    a("run/last_output", last_output);
    a("run/last_iterations", last_iterations);
    if (plan.outputs) {
      StateIO::Scope scope(a, "outputs");
      plan.outputs(a);
    }
  };
  auto is_output = [&](long long k) { return k % s.every == 0 || k == N; };

  ProgressLine line(N, s.t_end, progress == Progress::automatic);
  const auto t0 = std::chrono::steady_clock::now();
  long long k = 1;
  Values val;
  if (plan.resume) {
    io::CheckpointLoader loader(plan.resume->data, plan.resume->file);
    state(loader);
    const long long k0 = plan.resume->data.step;
    val = levels.values();
    if (const std::string why = levels.unusable(val); !why.empty())
      throw invalid_argument(plan.resume->file.string(), "", "the checkpoint's state " + why);
    level(s.time_at(k0), val, last_iterations, is_output(k0));
    if (is_output(k0)) last_output = k0;
    k = k0 + 1;
  } else {
    level(0.0, levels.values(), 0, true);
  }
  for (; k <= N; ++k) {
    StepResult res;
    std::optional<RunFailure> failure = levels.checked_step(k, res, val);
    r.newton.total += res.iterations;
    r.newton.max = std::max(r.newton.max, res.iterations);
    if (failure) {
      r.failure = std::move(failure);
      break;
    }
    last_iterations = res.iterations;
    if (plan.checkpoints && plan.checkpoints->due(k)) {
      plan.checkpoints->write(k, s.time_at(k), state);
      if (plan.checkpoints->stops_at(k)) {  // level k is emitted by the resumed run
        r.stopped = true;
        break;
      }
    }
    const bool out = is_output(k);
    level(s.time_at(k), val, res.iterations, out);
    if (out) last_output = k;
    line.update(k, s.time_at(k));
  }
  r.steps = r.stopped ? k : k - 1;
  r.complete = !r.failure.has_value() && !r.stopped;
  r.t_final = s.time_at(r.steps);
  if (r.failure && last_output != r.steps) {
    // the last good level as the final row (a failed step put the state back to it; its values were checked)
    val = levels.values();
    if (levels.unusable(val).empty()) level(r.t_final, val, last_iterations, true);
  }
  r.integrate_s = seconds(std::chrono::steady_clock::now() - t0);
  line.finish();
  r.newton.mean = r.steps > 0 ? static_cast<double>(r.newton.total) / static_cast<double>(r.steps) : 0.0;
}

/// The sink of an in-process run: each row appended to `rows` when given (null: the rows are dropped).
[[nodiscard]] inline Sink collect_rows(std::vector<Row>* rows) {
  return [rows](const Row& row) {
    if (rows) rows->push_back(row);
  };
}

/// The notes on the scenario's ignored keys, put before the run's own. (ignored_key_notes and to_toml below are
/// each scenario type's own, in io/, found by argument-dependent lookup.)
template <class Scenario>
void prepend_ignored_key_notes(const Scenario& s, RunReport& r) {
  const auto pre = ignored_key_notes(s);
  r.notes.insert(r.notes.begin(), pre.begin(), pre.end());
}

/// What a model gives its run in an output folder (static members of `P`):
/// - check(s): the checks of a scenario built in C++ (throws lievi::invalid_argument);
/// - columns(s): the header of series.csv;
/// - integrate(s, sink, progress, plan): the step loop (step_levels) and the run's diagnostics;
/// - plot(dir, s, r): the PNG plots of the folder (a skipped plot is a note of r);
/// - write_summary(file, s, r): summary.json.
template <class P>
concept StatePipeline = requires(const typename P::Scenario& s, typename P::Result& r, const Sink& sink,
                                 const StateCheckpoints& plan, const std::filesystem::path& dir) {
  P::check(s);
  { P::columns(s) } -> std::same_as<std::vector<std::string>>;
  { P::integrate(s, sink, Progress::never, plan) } -> std::same_as<typename P::Result>;
  P::plot(dir, s, r);
  P::write_summary(dir, s, std::as_const(r));
};

/// Run scenario `s` into `out_dir`: series.csv, checkpoint.h5 (with output.checkpoint_every/_wall, --stop-at or
/// a resume), the plots and summary.json, moved into place atomically when the run ends (in place with
/// checkpoints). Bad input throws lievi::invalid_argument before anything is written; a numerical failure
/// returns a failed result with the outputs up to the last good level (exit 3 from the CLI); a stop at
/// `options.stop_at` leaves the folder for `lievi resume` without plots or summary.
template <StatePipeline P>
typename P::Result run_in_folder(const typename P::Scenario& s, const std::filesystem::path& out_dir,
                                 const RunOptions& options, const ResumeFrom* resume) {
  const auto t0 = std::chrono::steady_clock::now();
  if (!resume) io::check_output_dir(out_dir, options.force);
  P::check(s);
  io::OutputDir dir = resume ? io::OutputDir::reopen(out_dir)
                      : s.checkpoints() || options.stop_at > 0 ? io::OutputDir::in_place(out_dir, options.force)
                                                               : io::OutputDir(out_dir, options.force);
  typename P::Result r;
  {
    std::optional<io::TableCsvWriter> csv;
    if (resume)
      csv.emplace(dir.tmp() / "series.csv", P::columns(s), io::TableCsvWriter::Resume{});
    else
      csv.emplace(dir.tmp() / "series.csv", P::columns(s));
    dir.mark_running();
    const Sink sink = [&](const Row& row) { csv->row(row); };
    std::optional<Checkpointer> checkpoints;
    if (s.checkpoints() || options.stop_at > 0 || resume) {  // a resumed run checkpoints its last step
      checkpoints.emplace(dir.tmp(), s, to_toml(s));
      checkpoints->stop_at(options.stop_at);
    }
    const StateCheckpoints plan{checkpoints ? &*checkpoints : nullptr, resume, [&](StateIO& a) {
                                  StateIO::Scope scope(a, "series");
                                  csv->checkpoint(a);
                                }};
    r = P::integrate(s, sink, options.progress, plan);
    csv->close();
  }
  if (r.stopped) {
    r.out_dir = out_dir;
    dir.keep_for_resume();
    r.total_s = seconds(std::chrono::steady_clock::now() - t0);
    return r;
  }
  prepend_ignored_key_notes(s, r);
  P::plot(dir.tmp(), s, r);
  r.out_dir = out_dir;
  r.total_s = seconds(std::chrono::steady_clock::now() - t0);
  P::write_summary(dir.tmp() / "summary.json", s, r);
  dir.commit();
  return r;
}

// ---- summary.json: the parts every state-vector run writes ----

/// A number of summary.json: null when not finite.
[[nodiscard]] json finite_or_null(double x);
/// A list of numbers of summary.json, each finite or null.
[[nodiscard]] json finite_array(const double* v, std::size_t n);
template <class Vector>
[[nodiscard]] json finite_array(const Vector& v) {
  return finite_array(v.data(), static_cast<std::size_t>(v.size()));
}
[[nodiscard]] inline json finite_array(std::initializer_list<double> v) { return finite_array(v.begin(), v.size()); }

/// The opening of summary.json: status, failure (when failed), the resolved scenario, scenario_name.
[[nodiscard]] json summary_opening(const RunReport& r, const std::vector<io::ResolvedEntry>& entries,
                                   const std::string& name);
/// steps, steps_planned, rows, timing.
void add_summary_counts(json& j, const RunReport& r, long long steps_planned);
/// The run's diagnostics by name (non-finite as null).
[[nodiscard]] json diagnostics_json(const RunReport& r);
/// The closing of summary.json: diagnostics `d`, newton, notes, version.
void add_summary_closing(json& j, json d, const RunReport& r, const NewtonStats& newton);

}  // namespace lievi::run::detail
