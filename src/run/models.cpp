/// @file src/run/models.cpp
/// @brief The model registry (run/models.hpp): each model type's checks, resolved printout, run, ensemble and
/// methods, behind one entry.
#include "lievi/run/models.hpp"

#include <cstdarg>
#include <cstdio>
#include <algorithm>
#include <type_traits>
#include <utility>
#include <variant>

#include "lievi/core/error.hpp"
#include "lievi/parallel/comm.hpp"
#include "lievi/integrators/rigid_body_stepper.hpp"
#include "lievi/io/checkpoint.hpp"
#include "lievi/io/mechanics_scenario.hpp"
#include "lievi/run/beam_run.hpp"
#include "lievi/run/kirchhoff_run.hpp"
#include "lievi/run/lie_group_run.hpp"
#include "lievi/run/mechanics_run.hpp"
#include "lievi/run/string_run.hpp"
#include "lievi/run/wave_run.hpp"
#include "ensemble.hpp"

namespace lievi::run {
namespace {

namespace fs = std::filesystem;

/// printf into a string.
std::string format(const char* f, ...) {
  va_list a, b;
  va_start(a, f);
  va_copy(b, a);
  std::string out(static_cast<std::size_t>(std::vsnprintf(nullptr, 0, f, a)), '\0');
  std::vsnprintf(out.data(), out.size() + 1, f, b);
  va_end(a);
  va_end(b);
  return out;
}

/// The report of a model's result.
RunOutcome outcome_of(const RunReport& r) {
  RunOutcome o;
  static_cast<RunReport&>(o) = r;
  return o;
}

/// --paths on a model without noise.
void refuse_paths(long long paths, const char* model) {
  if (paths != 0)
    throw invalid_argument("--paths", "",
                           "value " + std::to_string(paths) + " not allowed: " + model +
                               " has no noise, so there is nothing to sample");
}

/// ", across R ranks" for an ensemble or a field spread over an MPI job.
std::string across(const RunOptions& o) {
  return o.comm ? ", across " + std::to_string(o.comm->size()) + " ranks" : std::string();
}

/// The paths an ensemble run takes: all N, or its slice's.
long long paths_run(long long paths, const RunOptions& o) {
  return o.range_end > 0 ? o.range_end - o.range_begin : paths;
}

/// A wave or beam run's outcome: `what` is `head` with the ensemble's paths, the ranks, and where a resumed run
/// resumed (a step, or an ensemble's path count); a stopped ensemble reports its paths done and planned.
RunOutcome field_outcome(const WaveRunResult& r, long long paths, const RunOptions& options, const std::string& head,
                         const ResumeFrom* from = nullptr) {
  RunOutcome o = outcome_of(r);
  if (r.stopped && paths > 0) o.paths_done = r.paths, o.paths_planned = paths_run(paths, options);
  o.what = head + (paths > 0 ? ", " + std::to_string(r.paths) + " paths" : std::string()) + across(options);
  if (from) o.what += std::string(" (resumed at ") + (paths > 0 ? "path " : "step ") + std::to_string(from->data.step) + ")";
  return o;
}

template <class S>
fs::path out_or_default(const S& s, const fs::path& out) {
  return out.empty() ? default_output_dir(s) : out;
}

/// A slice's default folder is runs/<name>-paths-A-B.
template <class S>
fs::path out_or_default(const S& s, const fs::path& out, const RunOptions& o) {
  if (!out.empty() || o.range_end <= 0) return out_or_default(s, out);
  return default_output_dir(s).string() + "-paths-" + std::to_string(o.range_begin) + "-" + std::to_string(o.range_end);
}

const char* yes(bool b) { return b ? "yes" : "no"; }

ModelType rigid_body() {
  using S = io::RigidBodyScenario;
  ModelType t{"rigid_body", io::rigid_body_schema,
          [](const io::AnyScenario& s) { (void)prepare_rigid_body(std::get<S>(s)); },
          [](const io::AnyScenario& s) { return io::to_toml(std::get<S>(s)); },
          [](const io::AnyScenario& any, long long paths, const fs::path& out, const RunOptions& options) {
            refuse_paths(paths, "the rigid body");
            const S& s = std::get<S>(any);
            const RunResult r = run_rigid_body(s, out_or_default(s, out), options);
            RunOutcome o = outcome_of(r);
            o.what = format("%lld steps of %s%s", r.steps, config::id(s.method),
                            r.retraction.empty() ? "" : (" (" + r.retraction + ")").c_str());
            return o;
          },
          [] {
            std::string t = format("%-16s %5s  %-8s  %-9s  %-10s  %s\n", "id", "order", "implicit", "casimirs",
                                   "symplectic", "summary");
            for (const auto& m : integrators::rigid_body_methods())
              t += format("%-16s %5d  %-8s  %-9s  %-10s  %s\n", m.id, m.order, yes(m.is_implicit),
                          yes(m.preserves_casimirs), yes(m.symplectic), m.summary);
            std::string r;
            for (const auto& x : integrators::rigid_body_retractions()) r += (r.empty() ? "" : ", ") + x;
            return t + "\nretractions (integrator.retraction, DDB family): " + r + "\n";
          }};
  t.resume = [](const io::AnyScenario& any, const ResumeFrom& from, const fs::path& dir, const RunOptions& options) {
    const S& s = std::get<S>(any);
    const RunResult r = run_rigid_body(s, dir, options, &from);
    RunOutcome o = outcome_of(r);
    o.what = format("%lld steps of %s%s (resumed at step %lld)", r.steps, config::id(s.method),
                    r.retraction.empty() ? "" : (" (" + r.retraction + ")").c_str(), from.data.step);
    return o;
  };
  return t;
}

std::string wave_head(const io::WaveScenario& s, const WaveRunResult& r) {
  return format("%lld steps of %s (%s) on %lld nodes", r.steps, config::id(s.method),
                s.avi() ? config::id(s.queue) : config::id(s.variant), s.n_nodes());
}

std::string beam_head(const io::BeamScenario& s, const WaveRunResult& r) {
  return format("%lld steps of the %s beam integrator (%s, %s) on %lld nodes", r.steps, config::id(s.variant),
                config::id(s.method), config::id(s.retraction), s.n_nodes());
}

ModelType wave() {
  using S = io::WaveScenario;
  ModelType t{"wave", io::wave_schema, [](const io::AnyScenario& s) { check_wave(std::get<S>(s)); },
          [](const io::AnyScenario& s) { return io::to_toml(std::get<S>(s)); },
          [](const io::AnyScenario& any, long long paths, const fs::path& out, const RunOptions& options) {
            const S& s = std::get<S>(any);
            const WaveRunResult r =
                paths > 0 ? run_wave_ensemble(s, paths, out_or_default(s, out, options), options)
                          : run_wave(s, out_or_default(s, out), options);
            return field_outcome(r, paths, options, wave_head(s, r));
          },
          [] {
            const char* row = "%-16s %5d  %-8s  %-9s  %-10s  %s\n";
            return "\nfield methods (model.type = \"wave\"; integrator.variant = exact | approx coincide on G = R):\n" +
                   format(row, "type-i", 2, "no", "-", "yes",
                          "stochastic kinematics (discrete stochastic Hamilton principle): staggered leapfrog / 1-D "
                          "Yee, noise through the group increment (Stratonovich)") +
                   format(row, "type-ii", 2, "no", "-", "yes",
                          "stochastic potential Phi = <mu, Theta> (discrete Hamilton-Pontryagin): the "
                          "general-potential code path; the same scheme as type-i") +
                   format(row, "avi", 2, "no", "-", "yes",
                          "asynchronous variational integrator: each segment its own step dt / 2^k, graded "
                          "meshes and stepped sections ([[regions]]); deterministic, serial");
          }};
  t.resume = [](const io::AnyScenario& any, const ResumeFrom& from, const fs::path& dir, const RunOptions& options) {
    const S& s = std::get<S>(any);
    const long long paths = detail::ensemble_paths_of(from.data);
    const RunOptions o = detail::ensemble_options_of(from.data, options);  // an ensemble's slice
    const WaveRunResult r = paths > 0 ? run_wave_ensemble(s, paths, dir, o, &from) : run_wave(s, dir, o, &from);
    return field_outcome(r, paths, o, wave_head(s, r), &from);
  };
  return t;
}

ModelType beam() {
  using S = io::BeamScenario;
  ModelType t{"beam", io::beam_schema, [](const io::AnyScenario& s) { check_beam(std::get<S>(s)); },
          [](const io::AnyScenario& s) { return io::to_toml(std::get<S>(s)); },
          [](const io::AnyScenario& any, long long paths, const fs::path& out, const RunOptions& options) {
            const S& s = std::get<S>(any);
            const WaveRunResult r = paths > 0 ? run_beam_ensemble(s, paths, out_or_default(s, out, options), options)
                                              : run_beam(s, out_or_default(s, out), options);
            return field_outcome(r, paths, options, beam_head(s, r));
          },
          [] {
            const char* row = "%-16s %5d  %-8s  %-9s  %-10s  %s\n";
            return "\nbeam methods (model.type = \"beam\"; integrator.method, with integrator.variant and "
                   "integrator.retraction):\n" +
                   format("%-16s %5s  %-8s  %-9s  %-10s  %s\n", "id", "order", "implicit", "momentum", "symplectic",
                          "summary") +
                   format(row, "type-i", 2, "yes", "yes", "yes",
                          "stochastic kinematics on SE(3) (discrete stochastic Hamilton principle): staggered in "
                          "time, each node's implicit equation solved on its own (Newton), noise through the group "
                          "increment (Stratonovich)") +
                   format(row, "type-ii", 2, "yes", "yes", "yes",
                          "stochastic potential Phi = <mu, Theta> (discrete Hamilton-Pontryagin): the "
                          "general-potential code path; without noise the same scheme as type-i") +
                   "variants (integrator.variant): exact (exact Ad* and dtau^-1: order 2, the momentum map to "
                   "round-off; the default), approx (BCH-truncated operators: order 1 with strains, the momentum map "
                   "approximately)\n"
                   "retractions (integrator.retraction, beam): cayley (the default), exp\n";
          }};
  t.resume = [](const io::AnyScenario& any, const ResumeFrom& from, const fs::path& dir, const RunOptions& options) {
    const S& s = std::get<S>(any);
    const long long paths = detail::ensemble_paths_of(from.data);
    const RunOptions o = detail::ensemble_options_of(from.data, options);  // an ensemble's slice
    const WaveRunResult r = paths > 0 ? run_beam_ensemble(s, paths, dir, o, &from) : run_beam(s, dir, o, &from);
    return field_outcome(r, paths, o, beam_head(s, r), &from);
  };
  return t;
}

ModelType lagrangian() {
  using S = io::MechanicsScenario;
  ModelType t{"lagrangian", io::mechanics_schema, [](const io::AnyScenario& s) { check_mechanics(std::get<S>(s)); },
          [](const io::AnyScenario& s) { return io::to_toml(std::get<S>(s)); },
          [](const io::AnyScenario& any, long long paths, const fs::path& out, const RunOptions& options) {
            refuse_paths(paths, "the lagrangian model");
            const S& s = std::get<S>(any);
            const MechanicsRunResult r = run_mechanics(s, out_or_default(s, out), options);
            RunOutcome o = outcome_of(r);
            o.what = format("%lld steps of %s on %s (n = %d)", r.steps, config::id(s.method), config::id(s.system),
                            s.dim());
            o.notes_first = true;
            return o;
          },
          [] {
            std::string t =
                "\nlagrangian methods (model.type = \"lagrangian\"; constraints: SHAKE/RATTLE for the spherical "
                "pendulum):\n" +
                format("%-18s %5s  %-8s  %-11s  %-11s  %s\n", "id", "order", "implicit", "symplectic", "constraints",
                       "summary");
            for (const auto& m : io::mechanics_methods())
              t += format("%-18s %5d  %-8s  %-11s  %-11s  %s\n", m.id(), m.order, yes(m.is_implicit),
                          yes(m.symplectic), yes(m.constraints), m.summary);
            return t;
          }};
  t.resume = [](const io::AnyScenario& any, const ResumeFrom& from, const fs::path& dir, const RunOptions& options) {
    const S& s = std::get<S>(any);
    const MechanicsRunResult r = run_mechanics(s, dir, options, &from);
    RunOutcome o = outcome_of(r);
    o.what = format("%lld steps of %s on %s (n = %d, resumed at step %lld)", r.steps, config::id(s.method),
                    config::id(s.system), s.dim(), from.data.step);
    o.notes_first = true;
    return o;
  };
  return t;
}

std::string kirchhoff_head(const io::KirchhoffScenario& s, const KirchhoffRunResult& r) {
  return format("%lld steps of %s (%s) on se(3)*", r.steps, config::id(s.method), config::id(s.retraction));
}

ModelType kirchhoff() {
  using S = io::KirchhoffScenario;
  ModelType t{"kirchhoff", io::kirchhoff_schema, [](const io::AnyScenario& s) { check_kirchhoff(std::get<S>(s)); },
              [](const io::AnyScenario& s) { return io::to_toml(std::get<S>(s)); },
              [](const io::AnyScenario& any, long long paths, const fs::path& out, const RunOptions& options) {
                refuse_paths(paths, "the kirchhoff model");
                const S& s = std::get<S>(any);
                const KirchhoffRunResult r = run_kirchhoff(s, out_or_default(s, out), options);
                RunOutcome o = outcome_of(r);
                o.what = kirchhoff_head(s, r);
                return o;
              },
              [] {
                const char* row = "%-16s %5s  %-8s  %-9s  %-10s  %s\n";
                return "\nkirchhoff methods (model.type = \"kirchhoff\"; integrator.retraction = cayley | exp):\n" +
                       format(row, "id", "order", "implicit", "casimirs", "symplectic", "summary") +
                       format(row, "ddb", "1", "yes", "yes", "no",
                              "DDB on se(3)* (Kirchhoff's body, double-bracket dissipation): order 1, 2 without "
                              "dissipation; H decreases, Casimirs |P|^2 and P.Pi to round-off") +
                       format(row, "ddb-symmetric", "2", "yes", "yes", "no",
                              "symmetric DDB on se(3)* (midpoint dissipation, start/output processing): order 2");
              }};
  t.resume = [](const io::AnyScenario& any, const ResumeFrom& from, const fs::path& dir, const RunOptions& options) {
    const S& s = std::get<S>(any);
    const KirchhoffRunResult r = run_kirchhoff(s, dir, options, &from);
    RunOutcome o = outcome_of(r);
    o.what = kirchhoff_head(s, r) + format(" (resumed at step %lld)", from.data.step);
    return o;
  };
  return t;
}

ModelType elastic_string() {
  using S = io::ElasticStringScenario;
  ModelType t{"string", io::string_schema, [](const io::AnyScenario& s) { check_string(std::get<S>(s)); },
              [](const io::AnyScenario& s) { return io::to_toml(std::get<S>(s)); },
              [](const io::AnyScenario& any, long long paths, const fs::path& out, const RunOptions& options) {
                refuse_paths(paths, "the string");
                const S& s = std::get<S>(any);
                if (options.stop_at > 0)
                  throw invalid_argument("--stop-at", "", "not available: a string run writes no checkpoints");
                const StringRunResult r = run_string(s, out_or_default(s, out), options);
                RunOutcome o = outcome_of(r);
                o.what = format("%lld steps of dt with %s on %lld nodes, %lld segment updates", r.steps,
                                config::id(s.method), r.n_nodes, r.updates);
                return o;
              },
              [] {
                const char* row = "%-16s %5s  %-8s  %-9s  %-10s  %s\n";
                return "\nstring methods (model.type = \"string\"; integrator.queue = calendar | heap for avi):\n" +
                       format(row, "id", "order", "implicit", "momentum", "symplectic", "summary") +
                       format(row, "avi", "2", "no", "yes", "yes",
                              "asynchronous variational integrator: each segment its own step dt/2^k (a fraction of "
                              "its stability limit, or the region's dt), updates in time order") +
                       format(row, "synchronous", "2", "no", "yes", "yes",
                              "every segment at dt: velocity Verlet, the AVI with equal steps (bit for bit)");
              }};
  return t;
}

ModelType lie_group() {
  using S = io::LieGroupScenario;
  ModelType t{"lie_group", io::lie_group_schema, [](const io::AnyScenario& s) { check_lie_group(std::get<S>(s)); },
              [](const io::AnyScenario& s) { return io::to_toml(std::get<S>(s)); },
              [](const io::AnyScenario& any, long long paths, const fs::path& out, const RunOptions& options) {
                refuse_paths(paths, "the lie_group model");
                const S& s = std::get<S>(any);
                const LieGroupRunResult r = run_lie_group(s, out_or_default(s, out), options);
                RunOutcome o = outcome_of(r);
                o.what = format("%lld steps of %s%s on %s", r.steps, config::id(s.method),
                                s.uses_retraction() ? (std::string(" (") + config::id(s.retraction) + ")").c_str() : "",
                                config::id(s.system));
                o.notes_first = true;
                return o;
              },
              [] {
                std::string t = "\nlie_group methods (model.type = \"lie_group\"; integrator.retraction = cayley | exp "
                                "for del and del-reduced):\n" +
                                format("%-16s %5s  %-8s  %-10s  %s\n", "id", "order", "implicit", "symplectic", "summary");
                for (const auto& m : io::lie_group_methods())
                  t += format("%-16s %5d  %-8s  %-10s  %s\n", m.id(), m.order, yes(m.is_implicit), yes(m.symplectic),
                              m.summary);
                return t;
              }};
  t.resume = [](const io::AnyScenario& any, const ResumeFrom& from, const fs::path& dir, const RunOptions& options) {
    const S& s = std::get<S>(any);
    const LieGroupRunResult r = run_lie_group(s, dir, options, &from);
    RunOutcome o = outcome_of(r);
    o.what = format("%lld steps of %s%s on %s (resumed at step %lld)", r.steps, config::id(s.method),
                    s.uses_retraction() ? (std::string(" (") + config::id(s.retraction) + ")").c_str() : "",
                    config::id(s.system), from.data.step);
    o.notes_first = true;
    return o;
  };
  return t;
}

}  // namespace

const std::vector<ModelType>& model_registry() {
  static const std::vector<ModelType> v = {rigid_body(), wave(),      beam(),    lagrangian(),
                                           kirchhoff(),  elastic_string(), lie_group()};
  return v;
}

const ModelType& model_of(const io::AnyScenario& s) {
  const std::string type = std::visit([](const auto& x) { return std::string(x.model_type); }, s);
  for (const auto& m : model_registry())
    if (m.name == type) return m;
  throw std::logic_error("a scenario type without a registry entry");
}

namespace {

std::vector<io::ResolvedEntry> entries_of(const io::AnyScenario& s) {
  return std::visit([](const auto& x) { return io::resolved_entries(x); }, s);
}

std::string value_text(const io::ScenarioValue& v) {
  return std::visit(
      [](const auto& x) -> std::string {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<T, std::string>) return "\"" + x + "\"";
        else if constexpr (std::is_same_v<T, double>) return io::format_number(x);
        else if constexpr (std::is_same_v<T, long long>) return std::to_string(x);
        else if constexpr (std::is_same_v<T, bool>) return x ? "true" : "false";
        else return "[...]";
      },
      v);
}

}  // namespace

RunOutcome resume_run(const fs::path& dir, const std::vector<std::string>& overrides, const RunOptions& options,
                      std::string* scenario_name) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec))
    throw invalid_argument(dir.string(), "", "no such folder: lievi resume takes the output folder of a run");
  const fs::path file = dir / io::checkpoint_file;
  ResumeFrom from{io::read_checkpoint(file), file};
  // relative files the scenario names (pose tables, shapes) are found from its own folder, as in the run
  const std::string label = file.string();
  const io::AnyScenario base = io::parse_any_scenario(from.data.scenario, label, from.data.name, {}, from.data.source);
  io::AnyScenario s = overrides.empty()
                          ? base
                          : io::parse_any_scenario(from.data.scenario, label, from.data.name, overrides, from.data.source);
  // The resolved text gives every key; the run's notes and summary name the keys its file and --set gave.
  std::visit(
      [&](auto& x) {
        const std::vector<std::string> now = std::move(x.given_keys);
        x.given_keys.clear();
        std::string line;
        for (const char c : from.data.given_keys)
          if (c == '\n') x.given_keys.push_back(std::exchange(line, {}));
          else line += c;
        for (const std::string& o : overrides) {  // the overrides' keys: "key=value"
          const std::string key = o.substr(0, o.find('='));
          if (std::find(now.begin(), now.end(), key) != now.end()) x.given_keys.push_back(key);
        }
        std::sort(x.given_keys.begin(), x.given_keys.end());
        x.given_keys.erase(std::unique(x.given_keys.begin(), x.given_keys.end()), x.given_keys.end());
        x.source = from.data.source;
      },
      s);
  if (scenario_name) *scenario_name = from.data.name;
  // Only t_end may change (a longer run); anything else would not continue the same run. An ensemble keeps
  // its paths' statistics, not their final states, so it cannot be extended.
  const long long ensemble = detail::ensemble_paths_of(from.data);
  const auto a = entries_of(base), b = entries_of(s);
  std::vector<InputIssue> issues;
  for (const auto& eb : b) {
    const auto it = std::find_if(a.begin(), a.end(), [&](const io::ResolvedEntry& ea) { return ea.key == eb.key; });
    const bool same = it != a.end() && it->value == eb.value;
    if (same) continue;
    if (ensemble > 0) {
      if (eb.key == "integrator.steps") continue;  // follows t_end, reported there
      issues.push_back({"--set", eb.key,
                        "value " + value_text(eb.value) + " differs from the checkpoint's " +
                            (it == a.end() ? std::string("(absent)") : value_text(it->value)) +
                            ": a resumed ensemble keeps its scenario (its paths' final states are not kept, so it "
                            "cannot be extended; run a new ensemble for a longer integrator.t_end)"});
      continue;
    }
    if (eb.key == "integrator.t_end" || eb.key == "integrator.steps") continue;
    issues.push_back({"--set", eb.key,
                      "value " + value_text(eb.value) + " differs from the checkpoint's " +
                          (it == a.end() ? std::string("(absent)") : value_text(it->value)) +
                          ": a resumed run keeps its scenario; only integrator.t_end may change (to extend it)"});
  }
  if (!issues.empty()) throw invalid_argument(std::move(issues));
  const ModelType& m = model_of(s);
  if (options.comm && ensemble == 0 && m.name != "wave" && m.name != "beam")
    throw invalid_argument("mpirun", "",
                           std::to_string(options.comm->size()) + " ranks resume an ensemble, or a wave or beam "
                           "field split across them; a " + m.name + " run is not split across ranks: resume it "
                           "without mpirun");
  if (ensemble > 0) {
    const long long done = from.data.step, count = paths_run(ensemble, detail::ensemble_options_of(from.data, options));
    if (options.stop_at > 0 && (options.stop_at <= done || options.stop_at >= count))
      throw invalid_argument("--stop-at", "",
                             "value " + std::to_string(options.stop_at) + " not allowed: the ensemble has " +
                                 std::to_string(done) + " of its " + std::to_string(count) +
                                 " paths done; stop after a path count between them");
    m.check(s);
    return m.resume(s, from, dir, options);
  }
  const double t_end = std::visit([](const auto& x) { return x.t_end; }, s);
  const long long steps = std::visit([](const auto& x) { return x.steps; }, s);
  if (steps < from.data.step)
    throw invalid_argument("--set", "integrator.t_end",
                           "value " + io::format_number(t_end) + " is before the checkpoint's t = " +
                               io::format_number(from.data.t) + " (step " + std::to_string(from.data.step) +
                               "): a resumed run can only go on");
  if (options.stop_at > 0 && (options.stop_at <= from.data.step || options.stop_at >= steps))
    throw invalid_argument("--stop-at", "",
                           "value " + std::to_string(options.stop_at) + " not allowed: the run goes on from step " +
                               std::to_string(from.data.step) + " to step " + std::to_string(steps) +
                               "; stop at a step between them");
  if (!m.resume)
    throw invalid_argument(file.string(), "", "the model type '" + m.name + "' cannot be resumed yet");
  m.check(s);
  return m.resume(s, from, dir, options);
}

void check_stop_at(const io::AnyScenario& s, long long paths, long long stop_at, const std::string& flag) {
  if (stop_at <= 0) return;
  if (paths > 0) {
    if (stop_at >= paths)
      throw invalid_argument(flag, "",
                             "value " + std::to_string(stop_at) + " not allowed: the ensemble has " +
                                 std::to_string(paths) + " paths; stop after a path count from 1 to " +
                                 std::to_string(paths - 1));
    return;
  }
  const long long steps = std::visit([](const auto& x) { return x.steps; }, s);
  if (stop_at >= steps)
    throw invalid_argument(flag, "",
                           "value " + std::to_string(stop_at) + " not allowed: the run has " + std::to_string(steps) +
                               " steps; stop at a step from 1 to " + std::to_string(steps - 1));
}

void check_path_range(long long paths, long long begin, long long end, const std::string& flag) {
  if (end <= 0 && begin <= 0) return;
  if (paths <= 0)
    throw invalid_argument(flag, "", "needs --paths N: a slice is part of an ensemble of N paths");
  if (!(0 <= begin && begin < end && end <= paths))
    throw invalid_argument(flag, "",
                           "value " + std::to_string(begin) + ":" + std::to_string(end) +
                               " not allowed: A:B with 0 <= A < B <= " + std::to_string(paths) +
                               " runs the ensemble's paths A ... B - 1");
}

}  // namespace lievi::run
