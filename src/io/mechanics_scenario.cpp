/// @file src/io/mechanics_scenario.cpp
/// @brief The lagrangian scenario (`model.type = "lagrangian"`): schema, validation of every key, resolved
/// printout. The reading machinery is scenario_reader.cpp, shared with the other models.
#include "lievi/io/mechanics_scenario.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <numeric>
#include <stdexcept>

#include "lievi/core/error.hpp"
#include "lievi/io/memory_estimate.hpp"
#include "scenario_reader.hpp"

namespace lievi::io {
namespace detail {
/// An integer in [lo, hi]: below lo "value 0 must be >= 1" (as before the upper bounds), above hi "value ...
/// must be in [lo, hi]" (beam_scenario.cpp).
std::optional<long long> integer_bounded(Resolver& r, const std::string& key, long long lo, long long hi);
}  // namespace detail
namespace {

using detail::join;
using detail::RawValue;
using detail::Resolver;

const std::vector<std::string> kProjections = {"rattle", "shake"};
/// output.every: at most the largest step count, 1e12 (io/memory_estimate.hpp, docs/scenarios.md).
constexpr long long kMaxEvery = limits::kMaxSteps;

std::vector<std::string> method_ids() {
  std::vector<std::string> v;
  for (const auto& m : mechanics_methods()) v.emplace_back(m.id);
  return v;
}

std::vector<std::string> constrained_method_ids() {
  std::vector<std::string> v;
  for (const auto& m : mechanics_methods())
    if (m.constraints) v.emplace_back(m.id);
  return v;
}

const detail::Schema& schema() {
  static const detail::Schema v{&mechanics_schema(), {"model", "initial", "integrator", "output"},
                                "a lagrangian scenario", {}};
  return v;
}

/// The model parameters each system reads.
const std::map<std::string, std::vector<std::string>>& system_keys() {
  static const std::map<std::string, std::vector<std::string>> v = {
      {"pendulum", {"model.mass", "model.length", "model.gravity"}},
      {"double_pendulum", {"model.masses", "model.lengths", "model.gravity"}},
      {"kepler", {"model.mass", "model.mu"}},
      {"spherical_pendulum", {"model.mass", "model.length", "model.gravity"}},
      {"oscillator",
       {"model.mass", "model.stiffness", "model.damping", "model.force_amplitude", "model.force_frequency"}},
  };
  return v;
}

bool is_model_parameter(const std::string& key) {
  return key.rfind("model.", 0) == 0 && key != "model.type" && key != "model.system";
}

bool implicit(const std::string& method) {
  for (const auto& m : mechanics_methods())
    if (method == m.id) return m.is_implicit;
  return true;
}

/// Whether a key applies to the resolved scenario (else it is printed only when given, as ignored).
bool applies(const MechanicsScenario& s, const std::string& key) {
  if (is_model_parameter(key)) {
    const auto it = system_keys().find(s.system);
    return it != system_keys().end() && std::find(it->second.begin(), it->second.end(), key) != it->second.end();
  }
  if (key == "integrator.constraints" || key == "integrator.drift_tol") return s.constrained();
  if (key == "integrator.newton_tol" || key == "integrator.max_iterations") return implicit(s.method);
  return true;
}

std::string why_ignored(const MechanicsScenario& s, const std::string& key) {
  if (is_model_parameter(key)) return "by system " + s.system;
  if (key == "integrator.constraints" || key == "integrator.drift_tol")
    return "by system " + s.system + " (it has no constraints)";
  return "by method " + s.method + " (explicit)";
}

void positive_into(Resolver& r, const char* key, double& out) {
  if (auto v = r.positive(key)) out = *v;
}

void non_negative_into(Resolver& r, const char* key, double& out) {
  if (auto v = r.number(key)) {
    if (*v < 0.0) r.issue(key, "value " + format_number(*v) + " must be >= 0");
    out = *v;
  }
}

/// An array of 2 numbers > 0 (double pendulum masses / lengths).
void pair_into(Resolver& r, const char* key, std::vector<double>& out) {
  if (auto v = r.number_array(key)) {
    if (v->size() != 2 || (*v)[0] <= 0.0 || (*v)[1] <= 0.0)
      r.issue(key, "value " + r.get(key)->text() + " must be 2 numbers > 0 (one per pendulum)");
    else
      out = *v;
  }
}

/// initial.q / initial.qdot: an array of n numbers.
bool vector_into(Resolver& r, const char* key, int n, const std::string& system, std::vector<double>& out) {
  const auto v = r.number_array(key);
  if (!v) return false;
  if (n > 0 && static_cast<int>(v->size()) != n) {
    r.issue(key, "value " + r.get(key)->text() + " has " + std::to_string(v->size()) +
                     " numbers; expected " + std::to_string(n) + " (the dimension of system " + system + ")");
    return false;
  }
  out = *v;
  return true;
}

MechanicsScenario resolve(Resolver& r, const std::string& name, const std::string& source) {
  MechanicsScenario s;
  s.name = name;
  s.source = source;
  s.given_keys = r.given_keys();
  if (!r.has("model.type"))
    r.missing("model.type", "the model, \"lagrangian\"");
  else
    r.choice("model.type", {"lagrangian"}, "a model this scenario format supports");
  if (!r.has("model.system"))
    r.missing("model.system", "the system (" + join(mechanics_systems()) + ")");
  else if (auto v = r.choice("model.system", mechanics_systems(), "a system of the catalogue"))
    s.system = *v;
  positive_into(r, "model.mass", s.mass);
  positive_into(r, "model.length", s.length);
  non_negative_into(r, "model.gravity", s.gravity);
  pair_into(r, "model.masses", s.masses);
  pair_into(r, "model.lengths", s.lengths);
  positive_into(r, "model.mu", s.mu);
  non_negative_into(r, "model.stiffness", s.stiffness);
  non_negative_into(r, "model.damping", s.damping);
  if (auto v = r.number("model.force_amplitude")) s.force_amplitude = *v;
  non_negative_into(r, "model.force_frequency", s.force_frequency);

  // --- initial ---
  const int n = s.dim();
  if (!r.has("initial.q")) {
    r.missing("initial.q", n > 0 ? "the initial position, " + std::to_string(n) + " numbers" : "the initial position");
  } else if (vector_into(r, "initial.q", n, s.system, s.q0)) {
    // not the origin: some component non-zero (|q|^2 would underflow to 0 for a tiny q, or overflow for a huge one)
    const bool origin = std::all_of(s.q0.begin(), s.q0.end(), [](double x) { return x == 0.0; });
    if ((s.system == "kepler" || s.system == "spherical_pendulum") && origin)
      r.issue("initial.q", "value " + r.get("initial.q")->text() + " must not be the origin (" +
                               (s.system == "kepler" ? "the attracting centre" : "the pivot") + ")");
  }
  if (!vector_into(r, "initial.qdot", n, s.system, s.qdot0) && n > 0) s.qdot0.assign(static_cast<std::size_t>(n), 0.0);

  // --- integrator ---
  if (auto v = r.choice("integrator.method", method_ids(), "a method of the lagrangian model")) {
    s.method = *v;
    const auto ok = constrained_method_ids();
    if (s.constrained() && std::find(ok.begin(), ok.end(), s.method) == ok.end())
      r.issue("integrator.method",
              "value \"" + s.method + "\" is not available for the constrained system " + s.system +
                  "; allowed with constraints (SHAKE/RATTLE): " + join(ok));
  }
  if (auto v = r.choice("integrator.constraints", kProjections, "a constraint projection")) s.constraints = *v;
  const detail::TimeGrid g = detail::read_time_grid(r, "integrator.dt", "the time step");
  if (g.ok) s.dt = g.dt, s.t_end = g.t_end, s.steps = g.steps;
  positive_into(r, "integrator.newton_tol", s.newton_tol);
  if (auto v = r.integer_in("integrator.max_iterations", 1, 1000)) s.max_iterations = *v;
  positive_into(r, "integrator.drift_tol", s.drift_tol);

  // --- output ---
  if (auto v = detail::integer_bounded(r, "output.every", 1, kMaxEvery)) s.every = *v;
  if (auto v = r.boolean("output.plots")) s.plots = *v;
  return s;
}

ScenarioValue value_of(const MechanicsScenario& s, const std::string& k) {
  const std::vector<std::pair<const char*, ScenarioValue>> values = {
      {"model.type", std::string("lagrangian")},
      {"model.system", s.system},
      {"model.mass", s.mass},
      {"model.length", s.length},
      {"model.gravity", s.gravity},
      {"model.masses", s.masses},
      {"model.lengths", s.lengths},
      {"model.mu", s.mu},
      {"model.stiffness", s.stiffness},
      {"model.damping", s.damping},
      {"model.force_amplitude", s.force_amplitude},
      {"model.force_frequency", s.force_frequency},
      {"initial.q", s.q0},
      {"initial.qdot", s.qdot0},
      {"integrator.method", s.method},
      {"integrator.dt", s.dt},
      {"integrator.t_end", s.t_end},
      {"integrator.constraints", s.constraints},
      {"integrator.newton_tol", s.newton_tol},
      {"integrator.max_iterations", s.max_iterations},
      {"integrator.drift_tol", s.drift_tol},
      {"output.every", s.every},
      {"output.plots", s.plots},
  };
  for (const auto& [key, v] : values)
    if (k == key) return v;
  throw std::logic_error("schema key without a resolved value: " + k);  // keep schema and struct in step
}

}  // namespace

namespace detail {

/// The lagrangian resolver on a parsed document, for the dispatch of wave_scenario.cpp.
MechanicsScenario resolve_mechanics_document(const RawValue& root, const std::string& file, const std::string& name,
                                             const std::string& source, const std::vector<std::string>& overrides) {
  Resolver r(schema(), file, read_entries(schema(), root, file, overrides));
  MechanicsScenario s = resolve(r, name, source);
  throw_if_issues(r);
  return s;
}

}  // namespace detail

// -------------------------------------------------------------------------------------------------------------
// Public API
// -------------------------------------------------------------------------------------------------------------

const std::vector<MechanicsMethodInfo>& mechanics_methods() {
  static const std::vector<MechanicsMethodInfo> v = {
      {"midpoint", 2, true, true, true,
       "midpoint discrete Lagrangian Ld = h L((q0+q1)/2, (q1-q0)/h); forced: discrete Lagrange-d'Alembert"},
      {"trapezoid", 2, true, true, true,
       "trapezoidal Ld = h/2 [L(q0,v) + L(q1,v)]; Stormer-Verlet for L = 1/2 v.Mv - V"},
      {"lobatto-iiia-iiib", 4, true, true, false,
       "3-stage Lobatto IIIA-IIIB symplectic partitioned RK (Galerkin Ld), Newton on the stage velocities"},
      {"rk4", 4, false, false, false,
       "comparator: classical RK4 on the Euler-Lagrange ODE q'' = Lvv^-1 (Lq - Lqv^T q' + f)"},
  };
  return v;
}

const std::vector<std::string>& mechanics_systems() {
  static const std::vector<std::string> v = {"pendulum", "double_pendulum", "kepler", "spherical_pendulum",
                                             "oscillator"};
  return v;
}

int mechanics_dim(const std::string& system) {
  if (system == "pendulum" || system == "oscillator") return 1;
  if (system == "double_pendulum" || system == "kepler") return 2;
  if (system == "spherical_pendulum") return 3;
  return 0;
}

const std::vector<SchemaEntry>& mechanics_schema() {
  static const std::vector<SchemaEntry> schema = [] {
    const std::string opt = "optional";
    return std::vector<SchemaEntry>{
        {"model.type", ValueType::string, "required", "", "", "lagrangian", "the model", ""},
        {"model.system", ValueType::string, "required", "", "", join(mechanics_systems()),
         "the Lagrangian system of the catalogue (models/mechanics.hpp)", ""},
        {"model.mass", ValueType::number, opt, "1.0", "kg", "> 0",
         "m (pendulum, kepler, spherical_pendulum, oscillator)", ""},
        {"model.length", ValueType::number, opt, "1.0", "m", "> 0", "l (pendulum, spherical_pendulum)", ""},
        {"model.gravity", ValueType::number, opt, "9.81", "m/s^2", ">= 0",
         "g (pendulum, double_pendulum, spherical_pendulum)", ""},
        {"model.masses", ValueType::number_array, opt, "[1.0, 1.0]", "kg", "2 numbers > 0",
         "m1, m2 (double_pendulum)", ""},
        {"model.lengths", ValueType::number_array, opt, "[1.0, 1.0]", "m", "2 numbers > 0",
         "l1, l2 (double_pendulum)", ""},
        {"model.mu", ValueType::number, opt, "1.0", "m^3/s^2", "> 0",
         "gravitational parameter: L = 1/2 m |qdot|^2 + m mu/|q| (kepler)", ""},
        {"model.stiffness", ValueType::number, opt, "1.0", "N/m", ">= 0", "k (oscillator)", ""},
        {"model.damping", ValueType::number, opt, "0.0", "N s/m", ">= 0",
         "c: force -c qdot (oscillator)", ""},
        {"model.force_amplitude", ValueType::number, opt, "0.0", "N", "finite",
         "F: force F cos(w t) (oscillator)", ""},
        {"model.force_frequency", ValueType::number, opt, "1.0", "rad/s", ">= 0", "w (oscillator)", ""},
        {"initial.q", ValueType::number_array, "required", "", "rad or m", "n finite numbers (n = system dimension)",
         "q(0): pendulum [theta], double_pendulum [theta1, theta2], kepler [x, y], spherical_pendulum [x, y, z] "
         "(projected onto |q| = l), oscillator [x]",
         ""},
        {"initial.qdot", ValueType::number_array, opt, "zeros", "rad/s or m/s", "n finite numbers",
         "qdot(0) (spherical_pendulum: projected onto the tangent plane)", ""},
        {"integrator.method", ValueType::string, opt, "\"midpoint\"", "", join(method_ids()),
         "variational integrator (midpoint, trapezoid, lobatto-iiia-iiib) or the rk4 comparator", ""},
        {"integrator.dt", ValueType::number, "required", "", "s", "> 0, t_end/dt an integer N < 1e12 within 1e-9 relative",
         "time step h", ""},
        {"integrator.t_end", ValueType::number, "required", "", "s", "> 0", "final time (the run starts at t = 0)",
         ""},
        {"integrator.constraints", ValueType::string, opt, "\"rattle\"", "", join(kProjections),
         "constraint projection (spherical_pendulum): rattle projects p onto the hidden constraint, shake does not",
         ""},
        {"integrator.newton_tol", ValueType::number, opt, "1e-13", "", "> 0",
         "relative residual tolerance of the implicit step (Newton; implicit methods)", ""},
        {"integrator.max_iterations", ValueType::integer, opt, "50", "", "1 ... 1000",
         "Newton iteration limit per step (implicit methods)", ""},
        {"integrator.drift_tol", ValueType::number, opt, "1e-10", "m^2", "> 0",
         "largest |g(q)| = |(|q|^2 - l^2)/2| after a step before the run stops (spherical_pendulum)", ""},
        {"output.every", ValueType::integer, opt, "1", "steps", "1 ... 1000000000000",
         "write a row of series.csv every `every` steps (t = 0 and t = t_end always)", ""},
        {"output.plots", ValueType::boolean, opt, "true", "", "true, false",
         "make the PNG plots (python3 + matplotlib)", ""},
    };
  }();
  return schema;
}

bool MechanicsScenario::given(const std::string& key) const {
  return std::binary_search(given_keys.begin(), given_keys.end(), key);
}

MechanicsScenario load_mechanics_scenario(const std::filesystem::path& path, const std::vector<std::string>& overrides) {
  const std::string file = path.string();
  return detail::resolve_mechanics_document(detail::parse_toml(detail::read_scenario_text(path), file), file,
                                            path.stem().string(), file, overrides);
}

MechanicsScenario parse_mechanics_scenario(const std::string& toml_text, const std::string& file_label,
                                           const std::string& name, const std::vector<std::string>& overrides) {
  return detail::resolve_mechanics_document(detail::parse_toml(toml_text, file_label), file_label, name, "",
                                            overrides);
}

std::vector<ResolvedEntry> resolved_entries(const MechanicsScenario& s) {
  std::vector<ResolvedEntry> out;
  for (const auto& e : mechanics_schema()) {
    const bool given = s.given(e.key);
    const bool derived = e.key == "model.type" || e.key == "model.system" || e.key == "initial.q" ||
                         e.key == "integrator.dt" || e.key == "integrator.t_end";
    if (given || applies(s, e.key)) out.push_back({e.key, value_of(s, e.key), !given && !derived});
  }
  return out;
}

std::vector<std::string> ignored_key_notes(const MechanicsScenario& s) {
  std::vector<std::string> notes;
  for (const auto& e : mechanics_schema())
    if (s.given(e.key) && !applies(s, e.key)) notes.push_back("key '" + e.key + "' is ignored " + why_ignored(s, e.key));
  return notes;
}

std::string to_toml(const MechanicsScenario& s) {
  const auto notes = ignored_key_notes(s);
  std::string t = detail::toml_header("lagrangian scenario", s.name, s.source, s.steps, s.dt, s.t_end,
                                      "; system " + s.system + ", n = " + std::to_string(s.dim()), notes);
  t += detail::entries_toml(resolved_entries(s), [&](const ResolvedEntry& e) {
    std::vector<std::string> comments;
    for (const auto& n : notes)
      if (n.find("'" + e.key + "'") != std::string::npos) comments.push_back(n.substr(n.find("ignored")));
    return comments;
  });
  return t;
}

}  // namespace lievi::io
