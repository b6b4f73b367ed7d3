/// @file src/io/kirchhoff_scenario.cpp
/// @brief The kirchhoff scenario (`model.type = "kirchhoff"`): the key table of config::KirchhoffConfig (schema,
/// reading, resolved printout and ignored-key notes derive from it) and the rules between keys (a body by its
/// parameters or an ellipsoid; one pair of initial impulses or velocities; a positive-definite locked inertia).
/// The reading machinery is scenario_reader.cpp, the table engine key_table.hpp.
#include "lievi/io/kirchhoff_scenario.hpp"

#include <Eigen/Cholesky>
#include <algorithm>
#include <cmath>
#include <optional>

#include "key_table.hpp"
#include "lievi/core/error.hpp"
#include "scenario_reader.hpp"

namespace lievi::io {
namespace detail {
/// The kirchhoff reader on a parsed document (below; the dispatch of formats.cpp).
KirchhoffScenario resolve_kirchhoff_document(const RawValue& root, const std::string& file, const std::string& name,
                                             const std::string& source, const std::vector<std::string>& overrides);
}  // namespace detail
namespace {

using config::KirchhoffConfig;
using config::Retraction;
using config::RigidBodyMethod;
using detail::has_issue;
using detail::Key;
using detail::NumberCheck;
using detail::RawValue;
using detail::Resolver;
using models::Mat3;
using models::Vec3;

std::vector<double> vec(const Vec3& x) { return {x[0], x[1], x[2]}; }
std::vector<std::vector<double>> mat(const Mat3& A) { return {vec(A.row(0)), vec(A.row(1)), vec(A.row(2))}; }
std::string vec_text(const Vec3& x) { return detail::value_toml(vec(x)); }

const detail::Names<RigidBodyMethod> kMethods =
    detail::names_of({RigidBodyMethod::ddb, RigidBodyMethod::ddb_symmetric});
const detail::Names<Retraction> kRetractions = detail::names_of({Retraction::cayley, Retraction::exp});

/// The body keys an ellipsoid replaces.
constexpr const char* kBodyKeys[] = {"model.inertia", "model.mass", "model.added_inertia", "model.added_mass",
                                     "model.coupling"};

/// The problem of 3 numbers under `check` ("value [1, -1, 2] must be 3 numbers > 0"), or nullopt.
std::optional<std::string> vec3_problem(const Vec3& v, NumberCheck check, const char* what) {
  if (!v.allFinite()) return "value " + vec_text(v) + " must be finite";
  const bool ok = check == NumberCheck::positive ? (v.array() > 0.0).all()
                  : check == NumberCheck::nonnegative ? (v.array() >= 0.0).all()
                                                      : true;
  if (ok) return std::nullopt;
  return "value " + vec_text(v) + " must be " + what;
}

/// 3 finite numbers checked by `check` (what: "3 numbers > 0 (principal moments)").
Key<KirchhoffConfig> vec3_key(const char* key, Vec3 KirchhoffConfig::*m, NumberCheck check, const char* what) {
  return detail::custom_key<KirchhoffConfig>(
             key, ValueType::vec3,
             [key, m, check, what](Resolver& r, KirchhoffConfig& c) {
               if (auto v = r.vec3(key)) {
                 if (auto p = vec3_problem(*v, check, what)) r.issue(key, *p);
                 else c.*m = *v;
               }
             },
             [m](const KirchhoffConfig& c) { return ScenarioValue(vec(c.*m)); })
      .default_text(vec_text(KirchhoffConfig{}.*m))
      .checked([m, check, what](const KirchhoffConfig& c) { return vec3_problem(c.*m, check, what); })
      .allowed(std::string(what) + ", finite");
}

/// Whether the locked inertia A = [[J, C^T], [C, D]] of a body is finite and positive definite, with A^{-1} finite;
/// the message of the problem otherwise.
std::optional<std::string> locked_inertia_problem(const models::Kirchhoff& k) {
  const lie::Mat6 A = k.locked_inertia();
  if (!A.allFinite()) return "the locked inertia is not finite (overflow)";
  const Eigen::LLT<lie::Mat6> llt(A);
  if (llt.info() != Eigen::Success)
    return "the locked inertia A = [[diag(I + I_added), C^T], [C, diag(m + m_added)]] is not positive definite";
  if (!k.system().A_inv.allFinite()) return "the inverse of the locked inertia is not finite (underflow of A)";
  return std::nullopt;
}

/// The body is known well enough to build A (no issue on its keys).
bool body_ok(Resolver& r, const KirchhoffConfig& c) {
  if (c.is_ellipsoid)
    return !has_issue(r, {"model.ellipsoid", "model.density", "model.fluid_density"});
  return r.has("model.inertia") && r.has("model.mass") &&
         !has_issue(r, {"model.inertia", "model.mass", "model.added_inertia", "model.added_mass", "model.coupling"});
}

/// The body as a whole, after its keys: an ellipsoid excludes the body keys; otherwise model.inertia and model.mass
/// are required; the locked inertia must be positive definite.
void read_body(Resolver& r, KirchhoffConfig& c) {
  if (c.is_ellipsoid) {
    for (const char* key : kBodyKeys)
      if (r.has(key))
        r.issue(key, "not allowed with model.ellipsoid: the ellipsoid gives the body's mass, inertia and added masses "
                     "(give either model.ellipsoid or the body's parameters)");
  } else {
    if (!r.has("model.inertia"))
      r.missing("model.inertia", "the body's principal moments of inertia [I1, I2, I3] (or give model.ellipsoid)");
    if (!r.has("model.mass")) r.missing("model.mass", "the body's mass (or give model.ellipsoid)");
  }
  if (!body_ok(r, c)) return;
  if (auto p = locked_inertia_problem(c.model())) {
    const char* key = c.is_ellipsoid ? "model.ellipsoid" : r.has("model.coupling") ? "model.coupling" : "model.inertia";
    r.issue(key, "value " + r.get(key)->text() + ": " + *p +
                     (c.is_ellipsoid ? "; expected semi-axes and densities of moderate size"
                                     : r.has("model.coupling") ? "; expected a smaller coupling block"
                                                               : "; expected moments and masses of moderate size"));
  }
}

/// Exactly one pair: initial.Pi with initial.P, or initial.Omega with initial.V (then mu_0 = A (Omega_0, V_0)).
void read_initial(Resolver& r, KirchhoffConfig& c) {
  const bool impulses = r.has("initial.Pi") || r.has("initial.P");
  const bool velocities = r.has("initial.Omega") || r.has("initial.V");
  if (impulses && velocities) {
    r.issue(r.has("initial.Omega") ? "initial.Omega" : "initial.V",
            "both impulses (initial.Pi, initial.P) and velocities (initial.Omega, initial.V) are given; give one pair");
    return;
  }
  if (!impulses && !velocities) {
    r.missing("initial.Pi", "the initial impulse moment Pi_0, with initial.P (or give initial.Omega and initial.V)");
    r.missing("initial.P", "the initial impulse P_0, with initial.Pi (or give initial.Omega and initial.V)");
    return;
  }
  c.velocity_given = velocities;
  const char* a = velocities ? "initial.Omega" : "initial.Pi";
  const char* b = velocities ? "initial.V" : "initial.P";
  for (const auto& [key, other] : {std::pair{a, b}, std::pair{b, a}})
    if (!r.has(key))
      r.missing(key, std::string("given together with ") + other + " (" +
                         (velocities ? "the body's angular velocity and velocity" : "the body's impulse moment and impulse") +
                         ")");
  const auto u = r.vec3(a), w = r.vec3(b);
  if (!u || !w) return;
  (velocities ? c.Omega0 : c.Pi0) = *u;
  (velocities ? c.V0 : c.P0) = *w;
  if (velocities && body_ok(r, c) && !has_issue(r, {"model.ellipsoid", "model.inertia", "model.coupling"})) {
    const lie::Vec6 mu = c.mu0();
    if (!mu.allFinite())
      r.issue("initial.Omega", "values " + vec_text(c.Omega0) + ", " + vec_text(c.V0) +
                                   " give impulses mu_0 = A (Omega_0, V_0) that are not finite; expected smaller "
                                   "velocities or a smaller body");
  }
}

const detail::KeyTable<KirchhoffConfig>& table() {
  using C = KirchhoffConfig;
  static const detail::KeyTable<C> t = [] {
    const auto ellipsoid = [](const C& c) { return c.is_ellipsoid; };
    const auto not_ellipsoid = [](const C&) { return std::string("without model.ellipsoid"); };
    const auto body = [](const C& c) { return !c.is_ellipsoid; };
    const auto by_ellipsoid = [](const C&) { return std::string("(model.ellipsoid gives the body)"); };
    const std::string pair = "one pair: initial.Pi and initial.P, or initial.Omega and initial.V";
    std::vector<Key<C>> k;
    k.push_back(detail::model_type_key<C>("kirchhoff"));
    k.push_back(detail::custom_key<C>(
                    "model.ellipsoid", ValueType::vec3,
                    [](Resolver& r, C& c) {
                      if (!r.has("model.ellipsoid")) return;
                      c.is_ellipsoid = true;
                      if (auto v = r.vec3("model.ellipsoid")) {
                        if (auto p = vec3_problem(*v, NumberCheck::positive, "3 semi-axes > 0"))
                          r.issue("model.ellipsoid", *p);
                        else
                          c.semi_axes = *v;
                      }
                    },
                    [](const C& c) { return ScenarioValue(vec(c.semi_axes)); })
                    .requirement("optional, not with the body keys below")
                    .unit("m")
                    .allowed("3 semi-axes > 0, finite")
                    .doc("a solid ellipsoid with semi-axes (a, b, c) along the body axes: mass, inertia and Lamb's "
                         "added masses and moments derived (Kirchhoff::ellipsoid)")
                    .checked([](const C& c) -> std::optional<std::string> {
                      if (!c.is_ellipsoid) return std::nullopt;
                      return vec3_problem(c.semi_axes, NumberCheck::positive, "3 semi-axes > 0");
                    })
                    .when(ellipsoid)
                    .no_default());
    k.push_back(detail::number_key<C>("model.density", &C::density, NumberCheck::positive)
                    .unit("kg/m^3")
                    .doc("density of the ellipsoid")
                    .when(ellipsoid, not_ellipsoid));
    k.push_back(detail::number_key<C>("model.fluid_density", &C::fluid_density, NumberCheck::nonnegative)
                    .unit("kg/m^3")
                    .doc("density of the ideal fluid around the ellipsoid (0: no added masses)")
                    .when(ellipsoid, not_ellipsoid));
    k.push_back(vec3_key("model.inertia", &C::inertia, NumberCheck::positive, "3 principal moments > 0")
                    .requirement("required (or model.ellipsoid)")
                    .default_text("")
                    .unit("kg m^2")
                    .doc("the body's moments of inertia I_i about its principal axes (the body axes)")
                    .when(body, by_ellipsoid)
                    .no_default());
    k.push_back(detail::number_key<C>("model.mass", &C::mass, NumberCheck::positive)
                    .requirement("required (or model.ellipsoid)")
                    .default_text("")
                    .unit("kg")
                    .doc("the body's mass m")
                    .when(body, by_ellipsoid)
                    .no_default());
    k.push_back(vec3_key("model.added_inertia", &C::added_inertia, NumberCheck::nonnegative, "3 numbers >= 0")
                    .unit("kg m^2")
                    .doc("added moments of inertia of the fluid about the principal axes: J = diag(I + I_added)")
                    .when(body, by_ellipsoid));
    k.push_back(vec3_key("model.added_mass", &C::added_mass, NumberCheck::nonnegative, "3 numbers >= 0")
                    .unit("kg")
                    .doc("added masses of the fluid along the principal axes: D = diag(m + m_added)")
                    .when(body, by_ellipsoid));
    k.push_back(detail::custom_key<C>(
                    "model.coupling", ValueType::mat3,
                    [](Resolver& r, C& c) {
                      if (auto M = r.mat3("model.coupling")) c.coupling = *M;
                    },
                    [](const C& c) { return ScenarioValue(mat(c.coupling)); })
                    .default_text("zero")
                    .unit("kg m")
                    .allowed("3x3, finite; A positive definite")
                    .doc("C, the rotation-translation block of the locked inertia A = [[J, C^T], [C, D]] (zero for "
                         "a body with three planes of symmetry); with C != 0 the minimum-energy columns are nan")
                    .checked([](const C& c) -> std::optional<std::string> {
                      if (!c.coupling.allFinite()) return "must be finite";
                      return std::nullopt;
                    })
                    .when(body, by_ellipsoid));
    k.push_back(detail::rule<C>(read_body));
    k.push_back(detail::number_key<C>("model.alpha_rot", &C::alpha_rot, NumberCheck::nonnegative)
                    .unit("s/(kg m^2)")
                    .doc("dissipation, rotational block of K = diag(alpha_rot Id, alpha_trans Id): phi(xi) = K "
                         "ad*_xi (A xi)"));
    k.push_back(detail::number_key<C>("model.alpha_trans", &C::alpha_trans, NumberCheck::nonnegative)
                    .unit("s/kg")
                    .doc("dissipation, translational block of K"));
    k.push_back(detail::custom_key<C>("initial.Pi", ValueType::vec3, read_initial,
                                      [](const C& c) { return ScenarioValue(vec(c.Pi0)); })
                    .requirement(pair)
                    .unit("kg m^2/s")
                    .allowed("finite")
                    .doc("initial impulse moment Pi_0 (body frame)")
                    .when([](const C& c) { return !c.velocity_given; })
                    .no_default());
    k.push_back(detail::custom_key<C>("initial.P", ValueType::vec3, nullptr,
                                      [](const C& c) { return ScenarioValue(vec(c.P0)); })
                    .requirement(pair)
                    .unit("kg m/s")
                    .allowed("finite")
                    .doc("initial impulse P_0 (body frame)")
                    .when([](const C& c) { return !c.velocity_given; })
                    .no_default());
    k.push_back(detail::custom_key<C>("initial.Omega", ValueType::vec3, nullptr,
                                      [](const C& c) { return ScenarioValue(vec(c.Omega0)); })
                    .requirement(pair)
                    .unit("rad/s")
                    .allowed("finite")
                    .doc("initial angular velocity Omega_0 (body frame); (Pi_0, P_0) = A (Omega_0, V_0)")
                    .when([](const C& c) { return c.velocity_given; })
                    .no_default());
    k.push_back(detail::custom_key<C>("initial.V", ValueType::vec3, nullptr,
                                      [](const C& c) { return ScenarioValue(vec(c.V0)); })
                    .requirement(pair)
                    .unit("m/s")
                    .allowed("finite")
                    .doc("initial velocity V_0 (body frame)")
                    .when([](const C& c) { return c.velocity_given; })
                    .no_default());
    k.push_back(
        detail::quaternion_key<C>("initial.attitude", &C::attitude).doc("initial attitude R_0, body to spatial"));
    k.push_back(vec3_key("initial.position", &C::position, NumberCheck::finite, "3 numbers")
                    .unit("m")
                    .doc("initial position x_0 of the body's origin (spatial frame)"));
    k.push_back(detail::choice_key<C>("integrator.method", &C::method, kMethods, "a method of the kirchhoff model")
                    .doc("DDB on se(3)* (order 1; 2 without dissipation) or the symmetric DDB (order 2)")
                    .required("a method id (ddb, ddb-symmetric)"));
    k.push_back(detail::dt_key<C>("required", "time step h"));
    k.push_back(detail::t_end_key<C>([](Resolver& r, C& c) {
      const detail::TimeGrid g = detail::read_time_grid(r, "integrator.dt", "the time step h");
      if (g.ok) c.steps = g.steps;
      if (g.dt > 0.0 && g.t_end > 0.0) c.dt = g.dt, c.t_end = g.t_end;
    }));
    k.push_back(detail::choice_key<C>("integrator.retraction", &C::retraction, kRetractions, "a retraction on SE(3)")
                    .doc("retraction tau on SE(3) (Cayley or the exponential)"));
    k.push_back(detail::boolean_key<C>("integrator.symmetric_processing", &C::symmetric_processing)
                    .doc("ddb-symmetric start/output processing (false: the raw first-order variant)")
                    .when([](const C& c) { return c.method == RigidBodyMethod::ddb_symmetric; },
                          [](const C& c) { return std::string("by method ") + config::id(c.method); }));
    k.push_back(detail::number_key<C>("integrator.newton_tol", &C::newton_tol, NumberCheck::positive)
                    .doc("relative residual tolerance of the implicit step (Newton)"));
    auto max_iterations = detail::integer_key<C>("integrator.max_iterations", &C::max_iterations, 1, 1000)
                              .doc("Newton iteration limit per step");
    k.push_back(max_iterations);
    k.push_back(detail::every_key<C>());
    for (auto& c : detail::checkpoint_keys<C>()) k.push_back(std::move(c));
    k.push_back(detail::boolean_key<C>("output.plots", &C::plots)
                    .doc("make kirchhoff_invariants.png and kirchhoff_motion.png (python3 + matplotlib)"));
    return detail::KeyTable<C>(std::move(k));
  }();
  return t;
}

/// The reader's view of the format. A --set of initial.Omega (V) replaces the file's initial.Pi (P).
const detail::Schema& schema() {
  static const detail::Schema v{&table().schema(),
                                {"model", "initial", "integrator", "output"},
                                "a kirchhoff scenario",
                                {{"initial.Pi", "initial.Omega"}, {"initial.P", "initial.V"}}};
  return v;
}

std::vector<InputIssue> kirchhoff_problems(const KirchhoffConfig& c) {
  std::vector<InputIssue> out = table().problems(c);
  const auto add = [&](const std::string& key, std::string message) { out.push_back({"", key, std::move(message)}); };
  // (the table checks every key: the body's numbers, the method and retraction among the allowed names)
  if (out.empty())
    if (auto p = locked_inertia_problem(c.model())) add(c.is_ellipsoid ? "model.ellipsoid" : "model.inertia", *p);
  if (!c.mu0().allFinite()) add(c.velocity_given ? "initial.Omega" : "initial.Pi", "mu_0 must be finite");
  for (auto& i : detail::time_grid_problems(c.dt, c.t_end, c.steps)) out.push_back(std::move(i));
  return out;
}

}  // namespace

KirchhoffScenario detail::resolve_kirchhoff_document(const RawValue& root, const std::string& file,
                                                     const std::string& name, const std::string& source,
                                                     const std::vector<std::string>& overrides) {
  Resolver r(schema(), file, read_entries(schema(), root, file, overrides));
  KirchhoffScenario s;
  s.name = name;
  s.source = source;
  s.given_keys = r.given_keys();
  table().read(r, s);
  throw_if_issues(r);
  return s;
}

// -------------------------------------------------------------------------------------------------------------
// Public API
// -------------------------------------------------------------------------------------------------------------

const std::vector<SchemaEntry>& kirchhoff_schema() { return table().schema(); }

bool KirchhoffScenario::given(const std::string& key) const {
  return std::binary_search(given_keys.begin(), given_keys.end(), key);
}

KirchhoffScenario load_kirchhoff_scenario(const std::filesystem::path& path, const std::vector<std::string>& overrides) {
  const std::string file = path.string();
  return detail::resolve_kirchhoff_document(detail::parse_toml(detail::read_scenario_text(path), file), file,
                                            path.stem().string(), file, overrides);
}

KirchhoffScenario parse_kirchhoff_scenario(const std::string& toml_text, const std::string& file_label,
                                           const std::string& name, const std::vector<std::string>& overrides) {
  return detail::resolve_kirchhoff_document(detail::parse_toml(toml_text, file_label), file_label, name, "",
                                            overrides);
}

std::vector<ResolvedEntry> resolved_entries(const KirchhoffScenario& s) {
  return table().resolved(s, [&](const std::string& k) { return s.given(k); });
}

std::vector<std::string> ignored_key_notes(const KirchhoffScenario& s) {
  return table().ignored_notes(s, [&](const std::string& k) { return s.given(k); });
}

std::string to_toml(const KirchhoffScenario& s) {
  const auto notes = ignored_key_notes(s);
  std::string t = detail::toml_header("kirchhoff scenario", s.name, s.source, s.steps, s.dt, s.t_end, "", notes);
  const models::Kirchhoff body = s.model();
  t += detail::entries_toml(resolved_entries(s), [&](const ResolvedEntry& e) {
    std::vector<std::string> comments = detail::note_comments(notes, e);
    if (e.key == "model.ellipsoid")
      comments.push_back("mass " + format_number(body.mass) + ", inertia " + vec_text(body.inertia) +
                         ", added_inertia " + vec_text(body.added_inertia) + ", added_mass " +
                         vec_text(body.added_mass));
    if (e.key == "initial.Omega" && s.velocity_given) {
      const lie::Vec6 mu = s.mu0();
      comments.push_back("Pi_0 = " + vec_text(mu.head<3>()) + ", P_0 = " + vec_text(mu.tail<3>()));
    }
    return comments;
  });
  return t;
}

}  // namespace lievi::io

namespace lievi::config {
std::vector<InputIssue> problems(const KirchhoffConfig& c) { return io::kirchhoff_problems(c); }
void validate(const KirchhoffConfig& c) {
  if (auto p = problems(c); !p.empty()) throw invalid_argument(std::move(p));
}
}  // namespace lievi::config
