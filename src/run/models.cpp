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
#include "lievi/integrators/rigid_body_stepper.hpp"
#include "lievi/io/checkpoint.hpp"
#include "lievi/io/mechanics_scenario.hpp"
#include "lievi/run/beam_run.hpp"
#include "lievi/run/mechanics_run.hpp"
#include "lievi/run/wave_run.hpp"

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

template <class S>
fs::path out_or_default(const S& s, const fs::path& out) {
  return out.empty() ? default_output_dir(s) : out;
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

/// Checkpoints are for single runs so far: an ensemble with checkpoint keys is refused.
template <class S>
void refuse_ensemble_checkpoints(const S& s, long long paths) {
  if (paths > 0 && s.checkpoints())
    throw invalid_argument("--paths", "",
                           "not with output.checkpoint_every or output.checkpoint_wall: ensembles are not "
                           "checkpointed yet; run the paths in pieces (noise.path and --paths) instead");
}

ModelType wave() {
  using S = io::WaveScenario;
  ModelType t{"wave", io::wave_schema, [](const io::AnyScenario& s) { check_wave(std::get<S>(s)); },
          [](const io::AnyScenario& s) { return io::to_toml(std::get<S>(s)); },
          [](const io::AnyScenario& any, long long paths, const fs::path& out, const RunOptions& options) {
            const S& s = std::get<S>(any);
            refuse_ensemble_checkpoints(s, paths);
            const WaveRunResult r =
                paths > 0 ? run_wave_ensemble(s, paths, out_or_default(s, out), options)
                          : run_wave(s, out_or_default(s, out), options);
            RunOutcome o = outcome_of(r);
            o.what = format("%lld steps of %s (%s) on %lld nodes%s", r.steps, config::id(s.method),
                            config::id(s.variant), s.n_nodes(),
                            r.paths > 1 || paths > 0 ? (", " + std::to_string(r.paths) + " paths").c_str() : "");
            return o;
          },
          [] {
            const char* row = "%-16s %5d  %-8s  %-9s  %-10s  %s\n";
            return "\nfield methods (model.type = \"wave\"; integrator.variant = exact | approx coincide on G = R):\n" +
                   format(row, "type-i", 2, "no", "-", "yes",
                          "stochastic kinematics (discrete stochastic Hamilton principle): staggered leapfrog / 1-D "
                          "Yee, noise through the group increment (Stratonovich)") +
                   format(row, "type-ii", 2, "no", "-", "yes",
                          "stochastic potential Phi = <mu, Theta> (discrete Hamilton-Pontryagin): the "
                          "general-potential code path; the same scheme as type-i");
          }};
  t.resume = [](const io::AnyScenario& any, const ResumeFrom& from, const fs::path& dir, const RunOptions& options) {
    const S& s = std::get<S>(any);
    const WaveRunResult r = run_wave(s, dir, options, &from);
    RunOutcome o = outcome_of(r);
    o.what = format("%lld steps of %s (%s) on %lld nodes (resumed at step %lld)", r.steps, config::id(s.method),
                    config::id(s.variant), s.n_nodes(), from.data.step);
    return o;
  };
  return t;
}

ModelType beam() {
  using S = io::BeamScenario;
  ModelType t{"beam", io::beam_schema, [](const io::AnyScenario& s) { check_beam(std::get<S>(s)); },
          [](const io::AnyScenario& s) { return io::to_toml(std::get<S>(s)); },
          [](const io::AnyScenario& any, long long paths, const fs::path& out, const RunOptions& options) {
            const S& s = std::get<S>(any);
            refuse_ensemble_checkpoints(s, paths);
            const WaveRunResult r = paths > 0 ? run_beam_ensemble(s, paths, out_or_default(s, out), options)
                                              : run_beam(s, out_or_default(s, out), options);
            RunOutcome o = outcome_of(r);
            o.what = format("%lld steps of the %s beam integrator (%s, %s) on %lld nodes%s", r.steps,
                            config::id(s.variant), config::id(s.method), config::id(s.retraction), s.n_nodes(),
                            paths > 0 ? (", " + std::to_string(r.paths) + " paths").c_str() : "");
            return o;
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
    const WaveRunResult r = run_beam(s, dir, options, &from);
    RunOutcome o = outcome_of(r);
    o.what = format("%lld steps of the %s beam integrator (%s, %s) on %lld nodes (resumed at step %lld)", r.steps,
                    config::id(s.variant), config::id(s.method), config::id(s.retraction), s.n_nodes(),
                    from.data.step);
    return o;
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

}  // namespace

const std::vector<ModelType>& model_registry() {
  static const std::vector<ModelType> v = {rigid_body(), wave(), beam(), lagrangian()};
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
  // Only t_end may change (a longer run); anything else would not continue the same run.
  const auto a = entries_of(base), b = entries_of(s);
  std::vector<InputIssue> issues;
  for (const auto& eb : b) {
    const auto it = std::find_if(a.begin(), a.end(), [&](const io::ResolvedEntry& ea) { return ea.key == eb.key; });
    const bool same = it != a.end() && it->value == eb.value;
    if (same || eb.key == "integrator.t_end" || eb.key == "integrator.steps") continue;
    issues.push_back({"--set", eb.key,
                      "value " + value_text(eb.value) + " differs from the checkpoint's " +
                          (it == a.end() ? std::string("(absent)") : value_text(it->value)) +
                          ": a resumed run keeps its scenario; only integrator.t_end may change (to extend it)"});
  }
  if (!issues.empty()) throw invalid_argument(std::move(issues));
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
  const ModelType& m = model_of(s);
  if (!m.resume)
    throw invalid_argument(file.string(), "", "the model type '" + m.name + "' cannot be resumed yet");
  m.check(s);
  return m.resume(s, from, dir, options);
}

}  // namespace lievi::run
