/// @file src/io/mechanics_scenario.cpp
/// @brief The lagrangian scenario (`model.type = "lagrangian"`): the key table of config::LagrangianConfig
/// (schema, reading, resolved printout and ignored-key notes derive from it) and the rules between keys. The
/// reading machinery is scenario_reader.cpp, the table engine key_table.hpp.
#include "lievi/io/mechanics_scenario.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <numeric>
#include <stdexcept>

#include "key_table.hpp"
#include "lievi/core/error.hpp"
#include "lievi/io/memory_estimate.hpp"
#include "scenario_reader.hpp"

namespace lievi::config {

const char* id(MechanicalSystem s) {
  constexpr const char* n[] = {"pendulum",   "double_pendulum",  "kepler",        "spherical_pendulum",
                               "oscillator", "chaplygin_sleigh", "vertical_disk", "rolling_disk"};
  return static_cast<std::size_t>(s) < 8 ? n[static_cast<std::size_t>(s)] : "";
}
const char* id(MechanicsMethod m) {
  constexpr const char* n[] = {"midpoint", "trapezoid", "lobatto-iiia-iiib", "rk4"};
  return static_cast<std::size_t>(m) < 4 ? n[static_cast<std::size_t>(m)] : "";
}
const char* id(Projection p) { return p == Projection::rattle ? "rattle" : p == Projection::shake ? "shake" : ""; }

int dimension(MechanicalSystem s) {
  switch (s) {
    case MechanicalSystem::pendulum:
    case MechanicalSystem::oscillator: return 1;
    case MechanicalSystem::double_pendulum:
    case MechanicalSystem::kepler: return 2;
    case MechanicalSystem::spherical_pendulum:
    case MechanicalSystem::chaplygin_sleigh: return 3;
    case MechanicalSystem::vertical_disk: return 4;
    case MechanicalSystem::rolling_disk: return 5;
  }
  return 0;
}

}  // namespace lievi::config

namespace lievi::io {
namespace {

using config::LagrangianConfig;
using config::MechanicalSystem;
using config::MechanicsMethod;
using detail::has_issue;
using detail::join;
using detail::Key;
using detail::Names;
using detail::names_of;
using detail::RawValue;
using detail::Resolver;


const Names<MechanicalSystem> kSystems =
    names_of({MechanicalSystem::pendulum, MechanicalSystem::double_pendulum, MechanicalSystem::kepler,
              MechanicalSystem::spherical_pendulum, MechanicalSystem::oscillator, MechanicalSystem::chaplygin_sleigh,
              MechanicalSystem::vertical_disk, MechanicalSystem::rolling_disk});
const Names<MechanicsMethod> kMethods = names_of(
    {MechanicsMethod::midpoint, MechanicsMethod::trapezoid, MechanicsMethod::lobatto_iiia_iiib, MechanicsMethod::rk4});
const Names<config::Projection> kProjections = names_of({config::Projection::rattle, config::Projection::shake});

const detail::KeyTable<LagrangianConfig>& table();

const detail::Schema& schema() {
  static const detail::Schema v{&table().schema(), {"model", "initial", "integrator", "output"},
                                "a lagrangian scenario", {}};
  return v;
}

/// The model parameters each system reads.
const std::map<MechanicalSystem, std::vector<std::string>>& system_keys() {
  static const std::map<MechanicalSystem, std::vector<std::string>> v = {
      {MechanicalSystem::pendulum, {"model.mass", "model.length", "model.gravity"}},
      {MechanicalSystem::double_pendulum, {"model.masses", "model.lengths", "model.gravity"}},
      {MechanicalSystem::kepler, {"model.mass", "model.mu"}},
      {MechanicalSystem::spherical_pendulum, {"model.mass", "model.length", "model.gravity"}},
      {MechanicalSystem::oscillator,
       {"model.mass", "model.stiffness", "model.damping", "model.force_amplitude", "model.force_frequency"}},
      {MechanicalSystem::chaplygin_sleigh, {"model.mass", "model.inertia", "model.offset"}},
      {MechanicalSystem::vertical_disk, {"model.mass", "model.radius", "model.inertias"}},
      {MechanicalSystem::rolling_disk, {"model.mass", "model.radius", "model.inertias", "model.gravity"}},
  };
  return v;
}

/// The system was read (the dimension of initial.q and initial.qdot is known).
bool system_known(Resolver& r) { return r.has("model.system") && !has_issue(r, {"model.system"}); }

/// initial.q / initial.qdot: an array of n numbers (any length when n = 0: the system is not known).
bool vector_into(Resolver& r, const char* key, int n, MechanicalSystem system, std::vector<double>& out) {
  const auto v = r.number_array(key);
  if (!v) return false;
  if (n > 0 && static_cast<int>(v->size()) != n) {
    r.issue(key, "value " + r.get(key)->text() + " has " + std::to_string(v->size()) + " numbers; expected " +
                     std::to_string(n) + " (the dimension of system " + config::id(system) + ")");
    return false;
  }
  out = *v;
  return true;
}

/// initial.q: required, n numbers, not the origin for kepler and the spherical pendulum.
void read_q(Resolver& r, LagrangianConfig& s) {
  const int n = system_known(r) ? s.dim() : 0;
  if (!r.has("initial.q")) {
    r.missing("initial.q", n > 0 ? "the initial position, " + std::to_string(n) + " numbers" : "the initial position");
  } else if (vector_into(r, "initial.q", n, s.system, s.q0)) {
    // not the origin: some component non-zero (|q|^2 would underflow to 0 for a tiny q, or overflow for a huge one)
    const bool origin = std::all_of(s.q0.begin(), s.q0.end(), [](double x) { return x == 0.0; });
    if (s.has_momentum_map() && system_known(r) && origin)
      r.issue("initial.q", "value " + r.get("initial.q")->text() + " must not be the origin (" +
                               (s.system == MechanicalSystem::kepler ? "the attracting centre" : "the pivot") + ")");
  }
}

/// An array of 2 numbers > 0 (double pendulum masses / lengths).
Key<LagrangianConfig> pair_key(const char* key, std::vector<double> LagrangianConfig::*m, const char* unit,
                               const char* doc, std::string what = "one per pendulum", bool may_be_empty = false) {
  return detail::custom_key<LagrangianConfig>(
             key, ValueType::number_array,
             [key, m, what](Resolver& r, LagrangianConfig& s) {
               if (auto v = r.number_array(key)) {
                 if (v->size() != 2 || (*v)[0] <= 0.0 || (*v)[1] <= 0.0)
                   r.issue(key, "value " + r.get(key)->text() + " must be 2 numbers > 0 (" + what + ")");
                 else
                   s.*m = *v;
               }
             },
             // (an empty value, allowed by may_be_empty, is shown resolved: the disks' uniform-disk inertias)
             [m, may_be_empty](const LagrangianConfig& s) {
               return ScenarioValue(may_be_empty && (s.*m).empty() ? s.disk_inertias() : s.*m);
             })
      .default_text("[1.0, 1.0]")
      .checked([m, what, may_be_empty](const LagrangianConfig& s) -> std::optional<std::string> {
        const auto& v = s.*m;
        if (may_be_empty && v.empty()) return std::nullopt;
        if (v.size() == 2 && v[0] > 0.0 && v[1] > 0.0 && std::isfinite(v[0]) && std::isfinite(v[1]))
          return std::nullopt;
        return "value " + detail::value_toml(v) + " must be 2 numbers > 0 (" + what + ")";
      })
      .unit(unit)
      .allowed("2 numbers > 0")
      .doc(doc);
}

const detail::KeyTable<LagrangianConfig>& table() {
  using C = LagrangianConfig;
  using detail::NumberCheck;
  static const detail::KeyTable<C> t = [] {
    const auto of_system = [](std::string key) {
      return [key](const C& c) {
        const auto& keys = system_keys().at(c.system);
        return std::find(keys.begin(), keys.end(), key) != keys.end();
      };
    };
    const auto by_system = [](const C& c) { return std::string("by system ") + config::id(c.system); };
    const auto param = [&](detail::Key<C> k, const char* unit, const char* doc) {
      const std::string key = k.entry.key;
      return k.unit(unit).doc(doc).when(of_system(key), by_system);
    };
    const auto constrained = [](const C& c) { return c.constrained(); };
    const auto no_constraints = [](const C& c) {
      return std::string("by system ") + config::id(c.system) + " (it has no constraints)";
    };
    const auto implicit = [](const C& c) { return mechanics_method(c.method).is_implicit; };
    const auto explicit_method = [](const C& c) {
      return std::string("by method ") + config::id(c.method) + " (explicit)";
    };
    std::vector<Key<C>> k;
    k.push_back(detail::model_type_key<C>("lagrangian"));
    auto system = detail::choice_key<C>("model.system", &C::system, kSystems, "a system of the catalogue")
                      .doc("the Lagrangian system of the catalogue (models/mechanics.hpp)")
                      .required("the system (" + join(detail::name_list(kSystems)) + ")");
    k.push_back(system);
    k.push_back(param(detail::number_key<C>("model.mass", &C::mass, NumberCheck::positive), "kg",
                      "m (pendulum, kepler, spherical_pendulum, oscillator)"));
    k.push_back(param(detail::number_key<C>("model.length", &C::length, NumberCheck::positive), "m",
                      "l (pendulum, spherical_pendulum)"));
    k.push_back(param(detail::number_key<C>("model.gravity", &C::gravity, NumberCheck::nonnegative), "m/s^2",
                      "g (pendulum, double_pendulum, spherical_pendulum, rolling_disk)"));
    k.push_back(pair_key("model.masses", &C::masses, "kg", "m1, m2 (double_pendulum)")
                    .when(of_system("model.masses"), by_system));
    k.push_back(pair_key("model.lengths", &C::lengths, "m", "l1, l2 (double_pendulum)")
                    .when(of_system("model.lengths"), by_system));
    k.push_back(param(detail::number_key<C>("model.mu", &C::mu, NumberCheck::positive), "m^3/s^2",
                      "gravitational parameter: L = 1/2 m |qdot|^2 + m mu/|q| (kepler)"));
    k.push_back(param(detail::number_key<C>("model.stiffness", &C::stiffness, NumberCheck::nonnegative), "N/m",
                      "k (oscillator)"));
    k.push_back(param(detail::number_key<C>("model.damping", &C::damping, NumberCheck::nonnegative), "N s/m",
                      "c: force -c qdot (oscillator)"));
    k.push_back(param(detail::number_key<C>("model.force_amplitude", &C::force_amplitude), "N",
                      "F: force F cos(w t) (oscillator)"));
    k.push_back(param(detail::number_key<C>("model.force_frequency", &C::force_frequency, NumberCheck::nonnegative),
                      "rad/s", "w (oscillator)"));
    k.push_back(param(detail::number_key<C>("model.inertia", &C::inertia, NumberCheck::positive), "kg m^2",
                      "I about the centre of mass (chaplygin_sleigh)"));
    k.push_back(param(detail::number_key<C>("model.offset", &C::offset, NumberCheck::nonnegative), "m",
                      "a: the blade (contact point) at distance a behind the centre of mass (chaplygin_sleigh)"));
    k.push_back(param(detail::number_key<C>("model.radius", &C::radius, NumberCheck::positive), "m",
                      "R (vertical_disk, rolling_disk)"));
    k.push_back(pair_key("model.inertias", &C::inertias, "kg m^2",
                         "I about the axle, J about a diameter (vertical_disk, rolling_disk)",
                         "I about the axle, J about a diameter", true)
                    .default_text("a uniform disk: [m R^2/2, m R^2/4]")
                    .when(of_system("model.inertias"), by_system));
    k.push_back(detail::custom_key<C>("initial.q", ValueType::number_array, read_q,
                                      [](const C& c) { return ScenarioValue(c.q0); })
                    .requirement("required")
                    .unit("rad or m")
                    .allowed("n finite numbers (n = system dimension)")
                    .doc("q(0): pendulum [theta], double_pendulum [theta1, theta2], kepler [x, y], spherical_pendulum "
                         "[x, y, z] (projected onto |q| = l), oscillator [x], chaplygin_sleigh [x, y, theta] (centre "
                         "of mass, heading), vertical_disk [x, y, theta, phi] (contact point, rolling angle, "
                         "heading), rolling_disk [x, y, theta, phi, psi] (contact point, tilt, heading, rolling "
                         "angle)")
                    .no_default());
    k.push_back(detail::custom_key<C>(
                    "initial.qdot", ValueType::number_array,
                    [](Resolver& r, C& c) {
                      const int n = system_known(r) ? c.dim() : 0;
                      if (!vector_into(r, "initial.qdot", n, c.system, c.qdot0) && n > 0)
                        c.qdot0.assign(static_cast<std::size_t>(n), 0.0);
                    },
                    [](const C& c) { return ScenarioValue(c.qdot0); })
                    .default_text("zeros")
                    .unit("rad/s or m/s")
                    .allowed("n finite numbers")
                    .doc("qdot(0) (spherical_pendulum: projected onto the tangent plane; the nonholonomic systems: "
                         "projected onto the constraints A(q) qdot = 0, a note saying how far)"));
    auto method = detail::choice_key<C>("integrator.method", &C::method, kMethods, "a method of the lagrangian model")
                      .doc("variational integrator (midpoint, trapezoid, lobatto-iiia-iiib) or the rk4 comparator");
    method.read = [read = method.read](Resolver& r, C& c) {
      read(r, c);
      if (!r.has("integrator.method") || has_issue(r, {"integrator.method"})) return;
      if (c.nonholonomic() && c.method != MechanicsMethod::midpoint && c.method != MechanicsMethod::trapezoid)
        r.issue("integrator.method", std::string("value \"") + config::id(c.method) +
                                         "\" is not available for the nonholonomic system " + config::id(c.system) +
                                         "; allowed (discrete Lagrange-d'Alembert): midpoint, trapezoid");
      if (!c.constrained()) return;
      std::vector<std::string> ok;
      for (const auto& m : mechanics_methods())
        if (m.constraints) ok.emplace_back(m.id());
      if (!mechanics_method(c.method).constraints)
        r.issue("integrator.method", std::string("value \"") + config::id(c.method) +
                                         "\" is not available for the constrained system " + config::id(c.system) +
                                         "; allowed with constraints (SHAKE/RATTLE): " + join(ok));
    };
    k.push_back(method);
    k.push_back(detail::dt_key<C>("required", "time step h"));
    k.push_back(detail::t_end_key<C>(nullptr));  // read after integrator.constraints (below)
    k.push_back(detail::choice_key<C>("integrator.constraints", &C::constraints, kProjections,
                                      "a constraint projection")
                    .doc("constraint projection (spherical_pendulum): rattle projects p onto the hidden constraint, "
                         "shake does not")
                    .when(constrained, no_constraints));
    k.push_back(detail::rule<C>([](Resolver& r, C& c) {
      const detail::TimeGrid g = detail::read_time_grid(r, "integrator.dt", "the time step");
      if (g.ok) c.dt = g.dt, c.t_end = g.t_end, c.steps = g.steps;
    }));
    k.push_back(detail::number_key<C>("integrator.newton_tol", &C::newton_tol, NumberCheck::positive)
                    .doc("relative residual tolerance of the implicit step (Newton; implicit methods)")
                    .when(implicit, explicit_method));
    auto max_iterations = detail::integer_key<C>("integrator.max_iterations", &C::max_iterations, 1, 1000)
                              .doc("Newton iteration limit per step (implicit methods)")
                              .when(implicit, explicit_method);
    max_iterations.read = [](Resolver& r, C& c) {  // (0 is "must be in [1, 1000]" here, as ever)
      if (auto v = r.integer_in("integrator.max_iterations", 1, 1000)) c.max_iterations = *v;
    };
    k.push_back(max_iterations);
    k.push_back(detail::number_key<C>("integrator.drift_tol", &C::drift_tol, NumberCheck::positive)
                    .unit("m^2")
                    .doc("largest |g(q)| = |(|q|^2 - l^2)/2| after a step before the run stops (spherical_pendulum)")
                    .when(constrained, no_constraints));
    k.push_back(detail::every_key<C>());
    for (auto& c : detail::checkpoint_keys<C>()) k.push_back(std::move(c));
    k.push_back(detail::boolean_key<C>("output.plots", &C::plots).doc("make the PNG plots (python3 + matplotlib)"));
    return detail::KeyTable<C>(std::move(k));
  }();
  return t;
}

/// Every problem of a lagrangian configuration built in C++: the checks of the keys, the time grid, the
/// initial state against the system's dimension, the double pendulum's masses and lengths.
std::vector<InputIssue> lagrangian_problems(const LagrangianConfig& c) {
  std::vector<InputIssue> out = table().problems(c);
  for (auto& i : detail::time_grid_problems(c.dt, c.t_end, c.steps)) out.push_back(std::move(i));
  const auto add = [&](const std::string& key, std::string message) { out.push_back({"", key, std::move(message)}); };
  if (detail::name_of(kSystems, c.system).empty()) return out;  // (the table named it)
  const auto what = std::string("the dimension of system ") + config::id(c.system);
  if (auto p = detail::count_problem(c.q0.size(), c.dim(), what)) add("initial.q", *p);
  if (auto p = detail::count_problem(c.qdot0.size(), c.dim(), what)) add("initial.qdot", *p);
  for (const auto& [key, v] : {std::pair{"initial.q", &c.q0}, std::pair{"initial.qdot", &c.qdot0}})
    if (!std::all_of(v->begin(), v->end(), [](double x) { return std::isfinite(x); })) add(key, "must be finite");
  if (c.has_momentum_map() && std::all_of(c.q0.begin(), c.q0.end(), [](double x) { return x == 0.0; }))
    add("initial.q", "must not be the origin");
  return out;
}

}  // namespace

namespace detail {

/// The lagrangian resolver on a parsed document, for the dispatch of wave_scenario.cpp.
MechanicsScenario resolve_mechanics_document(const RawValue& root, const std::string& file, const std::string& name,
                                             const std::string& source, const std::vector<std::string>& overrides) {
  Resolver r(schema(), file, read_entries(schema(), root, file, overrides));
  MechanicsScenario s;
  s.name = name;
  s.source = source;
  s.given_keys = r.given_keys();
  table().read(r, s);
  throw_if_issues(r);
  return s;
}

}  // namespace detail

// -------------------------------------------------------------------------------------------------------------
// Public API
// -------------------------------------------------------------------------------------------------------------

const std::vector<MechanicsMethodInfo>& mechanics_methods() {
  using M = MechanicsMethod;
  static const std::vector<MechanicsMethodInfo> v = {
      {M::midpoint, 2, true, true, true,
       "midpoint discrete Lagrangian Ld = h L((q0+q1)/2, (q1-q0)/h); forced: discrete Lagrange-d'Alembert"},
      {M::trapezoid, 2, true, true, true,
       "trapezoidal Ld = h/2 [L(q0,v) + L(q1,v)]; Stormer-Verlet for L = 1/2 v.Mv - V"},
      {M::lobatto_iiia_iiib, 4, true, true, false,
       "3-stage Lobatto IIIA-IIIB symplectic partitioned RK (Galerkin Ld), Newton on the stage velocities"},
      {M::rk4, 4, false, false, false,
       "comparator: classical RK4 on the Euler-Lagrange ODE q'' = Lvv^-1 (Lq - Lqv^T q' + f)"},
  };
  return v;
}

const MechanicsMethodInfo& mechanics_method(MechanicsMethod m) {
  for (const auto& info : mechanics_methods())
    if (info.method == m) return info;
  throw invalid_argument("", "integrator.method",
                         "value " + std::to_string(static_cast<int>(m)) + " is not a method of the lagrangian model");
}

const std::vector<SchemaEntry>& mechanics_schema() { return table().schema(); }

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
  return table().resolved(s, [&](const std::string& k) { return s.given(k); });
}

std::vector<std::string> ignored_key_notes(const MechanicsScenario& s) {
  return table().ignored_notes(s, [&](const std::string& k) { return s.given(k); });
}

std::string to_toml(const MechanicsScenario& s) {
  const auto notes = ignored_key_notes(s);
  std::string t = detail::toml_header("lagrangian scenario", s.name, s.source, s.steps, s.dt, s.t_end,
                                      std::string("; system ") + config::id(s.system) + ", n = " + std::to_string(s.dim()), notes);
  t += detail::entries_toml(resolved_entries(s), [&](const ResolvedEntry& e) { return detail::note_comments(notes, e); });
  return t;
}

}  // namespace lievi::io

namespace lievi::config {
std::vector<InputIssue> problems(const LagrangianConfig& c) { return io::lagrangian_problems(c); }
void validate(const LagrangianConfig& c) {
  if (auto p = problems(c); !p.empty()) throw invalid_argument(std::move(p));
}
}  // namespace lievi::config
