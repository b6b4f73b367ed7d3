/// @file src/run/convergence.cpp
/// @brief Convergence studies (run/convergence.hpp): one in-process run per value, the final-time error
/// against an independent reference, observed orders, and the output folder (convergence.csv, summary.json,
/// convergence.png via python/lievi_convergence_plot.py).
#include "lievi/io/any_scenario.hpp"
#include "lievi/run/convergence.hpp"


#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <set>
#include <stdexcept>
#include <variant>

#include "lievi/core/error.hpp"
#include "lievi/io/output_dir.hpp"
#include "lievi/io/wave_scenario.hpp"
#include "lievi/reference/rigid_body_exact.hpp"
#include "lievi/reference/rigid_body_taylor.hpp"
#include "lievi/run/plots.hpp"
#include "lievi/run/rigid_body_run.hpp"
#include "lievi/version.hpp"


namespace lievi::run {
namespace fs = std::filesystem;

namespace {

using Clock = std::chrono::steady_clock;
using json = nlohmann::ordered_json;

/// Tolerances of the dop853 reference (docs/outputs.md "convergence"; ~1e-12 accurate on the paper's scenarios,
/// docs/theory/ddb.md "Comparators and scenarios").
constexpr double kDop853Tol = 1e-13;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

bool dop853_registered() {
  for (const auto& t : integrators::rigid_body_methods())
    if (std::string(t.id) == "dop853") return true;
  return false;
}

std::string join(const std::vector<std::string>& v, const char* sep = ", ") {
  std::string s;
  for (const auto& e : v) s += (s.empty() ? "" : sep) + e;
  return s;
}

/// The full text as a finite double, or nullopt.
std::optional<double> to_double(const std::string& text) {
  double d = 0.0;
  const char* b = text.data();
  const char* e = b + text.size();
  const auto r = std::from_chars(b, e, d);
  if (r.ec != std::errc() || r.ptr != e || !std::isfinite(d)) return std::nullopt;
  return d;
}

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t");
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(" \t") - b + 1);
}

/// The schema entry of `key` (aliases included), or nullptr.
const io::SchemaEntry* schema_entry(const std::string& key) {
  for (const auto& e : io::rigid_body_schema())
    if (e.key == key) return &e;
  return nullptr;
}

/// The canonical key (an alias maps to its target).
std::string canonical(const std::string& key) {
  const auto* e = schema_entry(key);
  return e && !e->alias_of.empty() ? e->alias_of : key;
}

std::vector<std::string> numeric_keys() {
  std::vector<std::string> v;
  for (const auto& e : io::rigid_body_schema())
    if (e.type == io::ValueType::number || e.type == io::ValueType::integer) v.push_back(e.key);
  return v;
}

/// Key of one `--set key=value` string ("" if it has no '=').
std::string override_key(const std::string& o) {
  const auto eq = o.find('=');
  return eq == std::string::npos ? "" : trim(o.substr(0, eq));
}

bool same_problem(const io::RigidBodyScenario& a, const io::RigidBodyScenario& b) {
  return a.inertia == b.inertia && a.K == b.K && a.M0 == b.M0 && a.t_end == b.t_end;
}

double seconds(Clock::duration d) {
  return std::chrono::duration<double>(d).count();
}

/// The reference scenario for `dop853`: the same problem and output times, method dop853 at 1e-13.
io::RigidBodyScenario dop853_scenario(const io::RigidBodyScenario& s) {
  io::RigidBodyScenario r = s;
  r.method = config::RigidBodyMethod::dop853;
  r.rtol = kDop853Tol;
  r.atol = kDop853Tol;
  return r;
}

/// M_ref(t_end) for scenario s; a failure of the dop853 reference run is returned in `failure`.
models::Vec3 reference_final(const io::RigidBodyScenario& s, ConvergenceReference ref,
                             std::optional<RunFailure>& failure) {
  const models::RigidBody model = s.model();
  switch (ref) {
    case ConvergenceReference::taylor:
      return reference::taylor_reference(model, s.M0, s.t_end);
    case ConvergenceReference::exact:
      return reference::TorqueFreeExact(model, s.M0).M(s.t_end);
    case ConvergenceReference::dop853: {
      const io::RigidBodyScenario r = dop853_scenario(s);
      const RunResult res = integrate_rigid_body(r, {});
      if (!res.complete) {
        failure = res.failure;
        failure->message = "dop853 reference: " + failure->message;
      }
      return res.final_state.M;
    }
  }
  return models::Vec3::Zero();
}

/// Path of python/lievi_convergence_plot.py: $LIEVI_CONVERGENCE_PLOT_SCRIPT, else next to the run plot script
/// (source tree or <prefix>/share/lievi), else <source>/python.
/// lievi_convergence_plot.py: $LIEVI_CONVERGENCE_PLOT_SCRIPT, else beside the run plot script in use (so
/// LIEVI_PLOT_SCRIPT pointing into a python/ folder finds its sibling), else the usual places.
fs::path convergence_plot_script() {
  const char* name = "lievi_convergence_plot.py";
  if (const char* env = std::getenv("LIEVI_CONVERGENCE_PLOT_SCRIPT"); env && *env) return env;
  std::error_code ec;
  if (const fs::path p = plot_script_path(); !p.empty() && fs::exists(p.parent_path() / name, ec))
    return p.parent_path() / name;
  return find_python_script(name, nullptr);
}

/// The log-log plot of `dir`/convergence.csv (run/plots.hpp process rules). Returns why it was skipped, or nullopt.
std::optional<std::string> make_convergence_plot(const fs::path& dir, const std::string& title,
                                                 const std::string& xlabel, double fitted) {
  const fs::path script = convergence_plot_script();
  if (script.empty())
    return std::string("plot script lievi_convergence_plot.py not found (set LIEVI_CONVERGENCE_PLOT_SCRIPT)");
  std::vector<std::string> args = {dir.string(), "--title", title, "--xlabel", xlabel};
  if (std::isfinite(fitted)) {
    args.emplace_back("--fitted");
    args.push_back(io::format_number(fitted));
  }
  return run_plot_script(script, dir, args);
}

json number_or_null(double x) {
  return std::isfinite(x) ? json(x) : json(nullptr);
}

void write_file(const fs::path& p, const std::string& text) {
  std::ofstream out(p, std::ios::binary);
  out << text;
  out.close();
  if (!out) throw std::runtime_error("writing " + p.string() + " failed");
}

}  // namespace

const char* reference_id(ConvergenceReference r) {
  switch (r) {
    case ConvergenceReference::taylor:
      return "taylor";
    case ConvergenceReference::exact:
      return "exact";
    case ConvergenceReference::dop853:
      return "dop853";
  }
  return "";
}

std::vector<std::string> available_references() {
  std::vector<std::string> v = {"taylor", "exact"};
  if (dop853_registered()) v.emplace_back("dop853");
  return v;
}

ConvergenceReference parse_reference(const std::string& name) {
  const std::string avail = join(available_references());
  if (name == "taylor") return ConvergenceReference::taylor;
  if (name == "exact") return ConvergenceReference::exact;
  if (name == "dop853") {
    if (dop853_registered()) return ConvergenceReference::dop853;
    throw invalid_argument("--reference", "",
                           "'dop853' is not available: the method 'dop853' is not registered in this build; "
                           "available references: " +
                               avail);
  }
  throw invalid_argument("--reference", "",
                         "unknown reference '" + name + "'; available references: " + avail);
}

std::vector<std::optional<double>> observed_orders(const std::vector<double>& v,
                                                   const std::vector<double>& e) {
  if (v.size() != e.size())
    throw std::invalid_argument("observed_orders: values and errors differ in length");
  const auto usable = [](double x) { return std::isfinite(x) && x > 0.0; };
  std::vector<std::optional<double>> p(v.size());
  for (std::size_t i = 1; i < v.size(); ++i) {
    if (!usable(v[i]) || !usable(v[i - 1]) || !usable(e[i]) || !usable(e[i - 1]) || v[i] == v[i - 1])
      continue;
    const double o = std::log(e[i] / e[i - 1]) / std::log(v[i] / v[i - 1]);
    if (std::isfinite(o)) p[i] = o;
  }
  return p;
}

double fitted_order(const std::vector<double>& v, const std::vector<double>& e) {
  if (v.size() != e.size()) throw std::invalid_argument("fitted_order: values and errors differ in length");
  // Centred sums (mean first) so that the slope does not suffer from cancellation.
  std::vector<double> x, y;
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (std::isfinite(v[i]) && v[i] > 0.0 && std::isfinite(e[i]) && e[i] > 0.0) {
      x.push_back(std::log(v[i]));
      y.push_back(std::log(e[i]));
    }
  }
  if (x.size() < 2) return kNaN;
  double mx = 0, my = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    mx += x[i];
    my += y[i];
  }
  mx /= static_cast<double>(x.size());
  my /= static_cast<double>(y.size());
  double sxx = 0, sxy = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    sxx += (x[i] - mx) * (x[i] - mx);
    sxy += (x[i] - mx) * (y[i] - my);
  }
  return sxx > 0.0 ? sxy / sxx : kNaN;
}

ConvergenceStudy prepare_convergence(const fs::path& file, const ConvergenceOptions& o) {
  ConvergenceStudy st;
  st.options = o;
  std::vector<InputIssue> issues;
  const std::string& key = o.param;

  // Only the rigid body has convergence studies: another model is refused by name, before its keys are read
  // against the rigid-body schema (which would report them as unknown keys).
  if (const auto type = io::scenario_model_type(file, o.overrides); type && *type != io::RigidBodyScenario::model_type)
    throw invalid_argument(file.string(), "model.type",
                           "lievi convergence supports model.type = \"rigid_body\"; " + file.string() +
                               " has model.type = \"" + *type + "\"");

  const io::SchemaEntry* entry = schema_entry(key);
  if (!entry) {
    issues.push_back({"--param", key, "unknown scenario key; numeric keys: " + join(numeric_keys())});
  } else if (entry->type != io::ValueType::number && entry->type != io::ValueType::integer) {
    issues.push_back(
        {"--param", key,
         std::string("is ") + io::type_name(entry->type) +
             ", not a number; a convergence study needs a numeric key: " + join(numeric_keys())});
  }
  if (o.values.size() < 2) {
    issues.push_back({"--values", "",
                      "need at least 2 values to measure an order, got " + std::to_string(o.values.size())});
  }
  std::set<double> seen;
  for (const auto& text : o.values) {
    const auto d = to_double(trim(text));
    if (!d) {
      issues.push_back({"--values", key, "value '" + text + "' is not a number"});
    } else if (!(*d > 0.0)) {
      issues.push_back(
          {"--values", key,
           "value " + trim(text) + " must be > 0 (orders are slopes of log error against log value)"});
    } else if (!seen.insert(*d).second) {
      issues.push_back({"--values", key, "value " + trim(text) + " given twice"});
    } else {
      st.values.push_back(*d);
    }
  }
  for (const auto& s : o.overrides) {
    if (!key.empty() && canonical(override_key(s)) == canonical(key))
      issues.push_back({"--set", override_key(s), "is the key varied by --param; remove it from --set"});
  }
  if (!issues.empty()) throw invalid_argument(std::move(issues));

  // One scenario per value; an issue common to all values (a bad file, a bad --set) is reported once.
  std::set<std::string> reported;
  bool dissipation_reported = false;
  const auto add = [&](const InputIssue& i, const std::string& context) {
    if (!reported.insert(i.format()).second) return;
    InputIssue j = i;
    j.message += context;
    // The varied key's value came from --values, not from a --set the user wrote.
    if (j.file == "--set" && canonical(j.key) == canonical(key)) j.file = "--values";
    issues.push_back(std::move(j));
  };
  for (std::size_t i = 0; i < o.values.size(); ++i) {
    const std::string v = trim(o.values[i]);
    const std::string context = " (with --param " + key + " = " + v + ")";
    std::vector<std::string> sets = o.overrides;
    sets.push_back(key + "=" + v);
    try {
      io::RigidBodyScenario s = io::load_scenario(file, sets);
      PreparedRigidBodyRun p = prepare_rigid_body(s);
      if (i == 0) {
        st.name = s.name;
        st.traits = integrators::rigid_body_method_traits(s.method_options());
        st.retraction = p.stepper->retraction();
      }
      if (o.reference == ConvergenceReference::exact) {
        if (!s.K.isZero(0.0)) {
          // Reported once, for the first value with dissipation (the reason is the same for all).
          const std::string what =
              s.metric_given ? "model.K is not zero" : "model.alpha = " + io::format_number(s.alpha);
          if (!dissipation_reported)
            add({"--reference", "",
                 "'exact' (the Jacobi-elliptic solution) holds only without dissipation, but " + what +
                     "; use --reference taylor, or --set model.alpha=0"},
                canonical(key) == "model.alpha" ? context : "");
          dissipation_reported = true;
        } else {
          try {
            (void)reference::TorqueFreeExact(s.model(), s.M0);
          } catch (const invalid_argument& e) {
            for (const auto& x : e.issues()) add({"--reference", "", "'exact': " + x.message}, "");
          }
        }
      } else if (o.reference == ConvergenceReference::dop853) {
        (void)prepare_rigid_body(dop853_scenario(s));
      }
      st.scenarios.push_back(std::move(s));
    } catch (const invalid_argument& e) {
      for (const auto& x : e.issues()) add(x, context);
    }
  }
  if (!issues.empty()) throw invalid_argument(std::move(issues));
  return st;
}

ConvergenceResult compute_convergence(const ConvergenceStudy& st) {
  const auto t0 = Clock::now();
  ConvergenceResult r;
  r.complete = true;
  std::vector<double> errors;
  const io::RigidBodyScenario* ref_of = nullptr;
  models::Vec3 M_ref = models::Vec3::Zero();
  std::optional<RunFailure> ref_failure;
  for (std::size_t i = 0; i < st.scenarios.size(); ++i) {
    const io::RigidBodyScenario& s = st.scenarios[i];
    ConvergenceRow row;
    row.value = st.values[i];
    row.value_text = trim(st.options.values[i]);
    // The reference depends only on the problem (model, M0, t_end): reuse it while that is unchanged.
    if (!ref_of || !same_problem(*ref_of, s)) {
      ref_failure.reset();
      M_ref = reference_final(s, st.options.reference, ref_failure);
      ref_of = &s;
    }
    row.M_ref = M_ref;
    PreparedRigidBodyRun p = prepare_rigid_body(s);
    const RunResult res = integrate_rigid_body(s, p, {}, Progress::never);
    row.steps = res.steps;
    row.integrate_s = res.integrate_s;
    row.M_final = res.final_state.M;
    row.complete = res.complete && !ref_failure;
    row.failure = res.complete ? ref_failure : res.failure;
    row.error = row.complete ? (row.M_final - row.M_ref).cwiseAbs().maxCoeff() : kNaN;
    r.complete = r.complete && row.complete;
    errors.push_back(row.error);
    r.rows.push_back(std::move(row));
  }
  const auto p = observed_orders(st.values, errors);
  for (std::size_t i = 0; i < r.rows.size(); ++i) r.rows[i].order = p[i];
  r.fitted_order = fitted_order(st.values, errors);
  r.notes = st.scenarios.empty() ? std::vector<std::string>{} : io::ignored_key_notes(st.scenarios.front());
  r.total_s = seconds(Clock::now() - t0);
  return r;
}

fs::path default_convergence_dir(const ConvergenceStudy& st) {
  return fs::path("runs") / (st.name + "-convergence");
}

std::string convergence_csv(const ConvergenceStudy&, const ConvergenceResult& r) {
  std::string s = "value,error,order\n";
  for (const auto& row : r.rows) {
    s += io::format_number(row.value) + ",";
    if (std::isfinite(row.error)) s += io::format_number(row.error);
    s += ",";
    if (row.order) s += io::format_number(*row.order);
    s += "\n";
  }
  return s;
}

std::string convergence_summary_json(const ConvergenceStudy& st, const ConvergenceResult& r) {
  json j;
  j["status"] = r.complete ? "complete" : "incomplete";
  json failures = json::array();
  for (const auto& row : r.rows) {
    if (!row.failure) continue;
    const auto& f = *row.failure;
    failures.push_back({{"value", row.value},
                        {"step", f.step},
                        {"t", f.t},
                        {"residual", f.residual},
                        {"message", f.message},
                        {"hint", f.hint}});
  }
  if (!failures.empty()) j["failures"] = failures;
  j["scenario_name"] = st.name;
  // The resolved scenario of the first value (the others differ only in `param`).
  json scen = json::object();
  if (!st.scenarios.empty()) {
    for (const auto& e : io::resolved_entries(st.scenarios.front())) {
      const auto dot = e.key.find('.');
      scen[e.key.substr(0, dot)][e.key.substr(dot + 1)] =
          std::visit([](const auto& x) { return json(x); }, e.value);
    }
  }
  j["scenario"] = scen;
  j["param"] = st.options.param;
  j["values"] = st.values;
  j["method"] = {{"id", st.traits.id},
                 {"order", st.traits.order},
                 {"retraction", st.retraction.empty() ? json(nullptr) : json(st.retraction)},
                 {"implicit", st.traits.is_implicit}};
  json ref = {{"id", reference_id(st.options.reference)}};
  switch (st.options.reference) {
    case ConvergenceReference::taylor:
      ref["description"] = "long-double Taylor series (~1e-17)";
      break;
    case ConvergenceReference::exact:
      ref["description"] = "Jacobi-elliptic closed form (no dissipation)";
      break;
    case ConvergenceReference::dop853:
      ref["description"] = "registry method dop853";
      ref["rtol"] = kDop853Tol;
      ref["atol"] = kDop853Tol;
      break;
  }
  j["reference"] = ref;
  j["error_norm"] = "max-norm of the final-time error: max_i |M_N,i - M_ref,i(t_end)|";
  j["t_end"] = st.scenarios.empty() ? 0.0 : st.scenarios.front().t_end;
  json rows = json::array();
  json orders = json::array();
  for (const auto& row : r.rows) {
    rows.push_back({{"value", row.value},
                    {"error", number_or_null(row.error)},
                    {"order", row.order ? json(*row.order) : json(nullptr)},
                    {"status", row.complete ? "complete" : "incomplete"},
                    {"steps", row.steps},
                    {"integrate_s", row.integrate_s},
                    {"M_final", {row.M_final[0], row.M_final[1], row.M_final[2]}},
                    {"M_ref", {row.M_ref[0], row.M_ref[1], row.M_ref[2]}}});
    if (&row != &r.rows.front()) orders.push_back(row.order ? json(*row.order) : json(nullptr));
  }
  j["rows"] = rows;
  j["pairwise_orders"] = orders;
  j["fitted_order"] = number_or_null(r.fitted_order);
  j["timing"] = {{"total_s", r.total_s}};
  j["notes"] = r.notes;
  j["version"] = lievi::version;
  return j.dump(2) + "\n";
}

ConvergenceResult run_convergence(const ConvergenceStudy& st, const fs::path& out_dir, bool force) {
  const auto t0 = Clock::now();
  io::check_output_dir(out_dir, force);
  io::OutputDir dir(out_dir, force);
  ConvergenceResult r = compute_convergence(st);
  write_file(dir.tmp() / "convergence.csv", convergence_csv(st, r));
  const bool plots = st.options.plots && !st.scenarios.empty() && st.scenarios.front().plots;
  if (plots) {
    const std::string title =
        st.name + ": " + st.traits.id + (st.retraction.empty() ? "" : " (" + st.retraction + ")") + " vs " +
        reference_id(st.options.reference) + ", t_end = " + io::format_number(st.scenarios.front().t_end) +
        (r.complete ? "" : " [incomplete]");
    if (const auto why = make_convergence_plot(dir.tmp(), title, st.options.param, r.fitted_order))
      r.notes.push_back("plot skipped: " + *why);
  } else {
    r.notes.emplace_back("plot not made: output.plots = false");
  }
  r.out_dir = dir.dir();
  r.total_s = seconds(Clock::now() - t0);
  write_file(dir.tmp() / "summary.json", convergence_summary_json(st, r));
  dir.commit();
  return r;
}

}  // namespace lievi::run
