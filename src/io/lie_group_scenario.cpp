/// @file src/io/lie_group_scenario.cpp
/// @brief The lie_group scenario (`model.type = "lie_group"`): the key table of config::LieGroupConfig (schema,
/// reading, resolved printout and ignored-key notes derive from it) and the rules between keys. The reading
/// machinery is scenario_reader.cpp, the table engine key_table.hpp.
#include "lievi/io/lie_group_scenario.hpp"

#include <Eigen/Cholesky>
#include <Eigen/Eigenvalues>
#include <algorithm>
#include <cmath>
#include <optional>

#include "key_table.hpp"
#include "lievi/core/error.hpp"
#include "scenario_reader.hpp"

namespace lievi::config {

const char* id(LieSystem s) {
  switch (s) {
    case LieSystem::heavy_top: return "heavy_top";
    case LieSystem::pendulum_3d: return "pendulum_3d";
    case LieSystem::free_body: return "free_body";
    case LieSystem::floating_body: return "floating_body";
  }
  return "";
}
const char* id(LieMethod m) {
  switch (m) {
    case LieMethod::del: return "del";
    case LieMethod::del_reduced: return "del-reduced";
    case LieMethod::moser_veselov: return "moser-veselov";
    case LieMethod::rk4: return "rk4";
  }
  return "";
}
const char* id(LieRetraction r) { return r == LieRetraction::cayley ? "cayley" : r == LieRetraction::exp ? "exp" : ""; }

}  // namespace lievi::config

namespace lievi::io {
namespace {

using config::LieGroupConfig;
using config::LieMethod;
using config::LieRetraction;
using config::LieSystem;
using detail::has_issue;
using detail::join;
using detail::Key;
using detail::Names;
using detail::names_of;
using detail::RawValue;
using detail::Resolver;
using Mat3 = Eigen::Matrix3d;
using Vec3 = Eigen::Vector3d;

const Names<LieSystem> kSystems =
    names_of({LieSystem::heavy_top, LieSystem::pendulum_3d, LieSystem::free_body, LieSystem::floating_body});
const Names<LieMethod> kMethods =
    names_of({LieMethod::del, LieMethod::del_reduced, LieMethod::moser_veselov, LieMethod::rk4});
const Names<LieRetraction> kRetractions = names_of({LieRetraction::cayley, LieRetraction::exp});

std::vector<double> vec(const Vec3& x) { return {x[0], x[1], x[2]}; }
std::vector<std::vector<double>> mat(const Mat3& A) { return {vec(A.row(0)), vec(A.row(1)), vec(A.row(2))}; }

/// The problem of an inertia (3 moments when !is_matrix), or nullopt; `sym` gets the symmetric part. Symmetric
/// within 1e-12 of the largest entry (looser than the round-off of R D R^T, tighter than a meaningful asymmetry);
/// positive definite by the eigenvalues of I / (its largest entry), so that huge entries do not overflow.
std::optional<std::string> inertia_problem(const Mat3& A, bool is_matrix, const std::string& text, Mat3& sym) {
  if (!A.allFinite()) return "value " + text + " must be finite";
  if (!is_matrix) {
    sym = A;
    if ((A.diagonal().array() > 0.0).all()) return std::nullopt;
    return "value " + text + " must have 3 principal moments > 0";
  }
  const double scale = A.cwiseAbs().maxCoeff();
  if ((A - A.transpose()).cwiseAbs().maxCoeff() > 1e-12 * scale)
    return "value " + text + " is not symmetric (within 1e-12 of its largest entry)";
  const Mat3 Asym = 0.5 * A + 0.5 * A.transpose();
  const Mat3 Aunit = scale > 0.0 ? Mat3(Asym / scale) : Asym;
  const double lmin = scale * Eigen::SelfAdjointEigenSolver<Mat3>(Aunit, Eigen::EigenvaluesOnly).eigenvalues()(0);
  if (!(lmin > 0.0) || Aunit.llt().info() != Eigen::Success)
    return "value " + text + " is not positive definite (smallest eigenvalue " + format_number(lmin) + ")";
  sym = Asym;
  return std::nullopt;
}

/// Exactly one of initial.omega and initial.Pi; the other is derived through the inertia (Pi = I Omega).
void read_initial(Resolver& r, LieGroupConfig& c) {
  const bool has_omega = r.has("initial.omega"), has_Pi = r.has("initial.Pi");
  const bool inertia_ok = r.has("model.inertia") && !has_issue(r, {"model.inertia"});
  if (has_omega && has_Pi) {
    r.issue("initial.Pi", "both initial.omega and initial.Pi are given; give exactly one");
  } else if (!has_omega && !has_Pi) {
    r.missing("initial.omega", "the initial body angular velocity Omega_0 (or give initial.Pi = I Omega_0)");
  } else if (has_omega) {
    if (auto w = r.vec3("initial.omega")) {
      c.omega0 = *w;
      c.omega_given = true;
      if (inertia_ok) c.Pi0 = c.inertia * c.omega0;
      if (!c.Pi0.allFinite())
        r.issue("initial.omega", "value " + r.get("initial.omega")->text() +
                                     " gives Pi_0 = I Omega_0, which is not finite; expected a smaller angular velocity");
    }
  } else if (r.has("model.system") && !has_issue(r, {"model.system"}) && c.floating()) {
    r.issue("initial.Pi", "is not taken by system floating_body (its momentum couples rotation and translation); "
                          "give initial.omega and initial.velocity");
  } else if (auto P = r.vec3("initial.Pi")) {
    c.Pi0 = *P;
    c.omega_given = false;
    if (inertia_ok) c.omega0 = c.inertia.ldlt().solve(c.Pi0);
    if (!c.omega0.allFinite())
      r.issue("initial.Pi", "value " + r.get("initial.Pi")->text() +
                                " gives Omega_0 = I^-1 Pi_0, which is not finite; expected a smaller momentum");
  }
}

const detail::KeyTable<LieGroupConfig>& table() {
  using C = LieGroupConfig;
  using detail::NumberCheck;
  static const detail::KeyTable<C> t = [] {
    const auto gravitating = [](const C& c) { return c.gravitating(); };
    const auto no_gravity = [](const C& c) {
      return std::string("by system ") + config::id(c.system) + " (no potential)";
    };
    const auto implicit = [](const C& c) { return c.implicit(); };
    const auto explicit_method = [](const C& c) { return std::string("by method ") + config::id(c.method) + " (explicit)"; };
    const std::string one_of = "exactly one of initial.omega, initial.Pi";
    std::vector<Key<C>> k;
    k.push_back(detail::model_type_key<C>("lie_group"));
    k.push_back(detail::choice_key<C>("model.system", &C::system, kSystems, "a system of the catalogue")
                    .doc("heavy_top (fixed point, gravity -g e3, e3 up), pendulum_3d (pivot, gravity +g e3, e3 down; "
                         "Lee, Leok & McClamroch), free_body, floating_body (on SE(3), gravity -g e3, optional "
                         "vertical spring) (models/lie_mechanics.hpp)")
                    .required("the system (" + join(detail::name_list(kSystems)) + ")"));
    k.push_back(
        detail::custom_key<C>(
            "model.inertia", ValueType::vec3_or_mat3,
            [](Resolver& r, C& c) {
              const RawValue* v = r.get("model.inertia");
              if (!v) return;
              Vec3 moments;
              Mat3 A;
              if (Resolver::as_vec3(*v, moments)) {
                A = moments.asDiagonal().toDenseMatrix();
              } else if (Resolver::as_mat3(*v, A)) {
                c.inertia_is_matrix = true;
              } else {
                r.issue("model.inertia", "value " + v->text() +
                                             " is neither 3 principal moments [I1, I2, I3] nor a 3x3 matrix of finite numbers");
                return;
              }
              Mat3 sym;
              if (auto p = inertia_problem(A, c.inertia_is_matrix, v->text(), sym)) r.issue("model.inertia", *p);
              else c.inertia = sym;
            },
            [](const C& c) {
              return c.inertia_is_matrix ? ScenarioValue(mat(c.inertia)) : ScenarioValue(vec(c.inertia.diagonal()));
            })
            .unit("kg m^2")
            .allowed("3 principal moments > 0, or a symmetric positive-definite 3x3")
            .doc("inertia I in the body frame about the fixed point or pivot (free_body, floating_body: about the "
                 "centre of mass)")
            .required("3 principal moments [I1, I2, I3] or a 3x3 matrix"));
    k.push_back(detail::number_key<C>("model.mass", &C::mass, NumberCheck::positive)
                    .unit("kg")
                    .doc("m (heavy_top, pendulum_3d, floating_body)")
                    .when(gravitating, no_gravity));
    k.push_back(detail::number_key<C>("model.gravity", &C::gravity, NumberCheck::nonnegative)
                    .unit("m/s^2")
                    .doc("g (heavy_top, pendulum_3d, floating_body)")
                    .when(gravitating, no_gravity));
    k.push_back(detail::array_key<C, 3>("model.chi", &C::chi)
                    .unit("m")
                    .doc("centre of mass from the fixed point (heavy_top), the pivot (pendulum_3d) or the body origin "
                         "(floating_body), body frame")
                    .when(gravitating, no_gravity));
    const auto floating = [](const C& c) { return c.floating(); };
    const auto on_so3 = [](const C& c) { return std::string("by system ") + config::id(c.system) + " (on SO(3))"; };
    k.push_back(detail::number_key<C>("model.spring_stiffness", &C::spring_stiffness, NumberCheck::nonnegative)
                    .unit("N/m")
                    .doc("k of a vertical spring, V += 1/2 k (e3 . (x + R a))^2, rest at height 0 (floating_body; 0: "
                         "free fall)")
                    .when(floating, on_so3));
    k.push_back(detail::array_key<C, 3>("model.spring_point", &C::spring_point)
                    .unit("m")
                    .doc("a: where the spring acts, from the body origin, body frame (floating_body)")
                    .when(floating, on_so3));
    k.push_back(detail::quaternion_key<C>("initial.attitude", &C::attitude)
                    .doc("initial attitude R_0 (w, x, y, z), body to spatial"));
    k.push_back(detail::custom_key<C>("initial.omega", ValueType::vec3, read_initial,
                                      [](const C& c) { return ScenarioValue(vec(c.omega0)); })
                    .requirement(one_of)
                    .unit("rad/s")
                    .allowed("finite")
                    .doc("initial body angular velocity Omega_0")
                    .when([](const C& c) { return c.omega_given; })
                    .no_default());
    k.push_back(detail::custom_key<C>("initial.Pi", ValueType::vec3, nullptr,
                                      [](const C& c) { return ScenarioValue(vec(c.Pi0)); })
                    .requirement(one_of)
                    .unit("kg m^2/s")
                    .allowed("finite")
                    .doc("initial body angular momentum Pi_0 = I Omega_0")
                    .when([](const C& c) { return !c.omega_given; })
                    .no_default());
    k.push_back(detail::array_key<C, 3>("initial.position", &C::position)
                    .unit("m")
                    .doc("x_0, the body origin in space (floating_body)")
                    .when(floating, on_so3));
    k.push_back(detail::array_key<C, 3>("initial.velocity", &C::velocity)
                    .unit("m/s")
                    .doc("v_0, the velocity of the body origin in the body frame (floating_body; the twist is (omega, v))")
                    .when(floating, on_so3));
    auto method = detail::choice_key<C>("integrator.method", &C::method, kMethods, "a method of the lie_group model")
                      .doc("del (DEL on SO(3) in (R, Pi)), del-reduced (its reduced form in (Pi, Gamma)), "
                           "moser-veselov (free_body), or the rk4 comparator")
                      .required("a method (" + join(detail::name_list(kMethods)) + ")");
    method.read = [read = method.read](Resolver& r, C& c) {
      read(r, c);
      if (!r.has("integrator.method") || has_issue(r, {"integrator.method"}) || !r.has("model.system") ||
          has_issue(r, {"model.system"}))
        return;
      if (c.floating() && c.method != LieMethod::del)
        r.issue("integrator.method", std::string("value \"") + config::id(c.method) +
                                         "\" is not available for system floating_body (on SE(3)); allowed: del");
      else if (c.method == LieMethod::moser_veselov && c.system != LieSystem::free_body)
        r.issue("integrator.method", std::string("value \"moser-veselov\" is only for system free_body (its discrete "
                                                 "Lagrangian has no potential), not ") +
                                         config::id(c.system) + "; allowed: del, del-reduced, rk4");
    };
    k.push_back(method);
    k.push_back(detail::choice_key<C>("integrator.retraction", &C::retraction, kRetractions, "a retraction")
                    .doc("retraction tau of del and del-reduced: g_{k+1} = g_k tau(h xi_k)")
                    .when([](const C& c) { return c.uses_retraction(); },
                          [](const C& c) { return std::string("by method ") + config::id(c.method); }));
    k.push_back(detail::dt_key<C>("required", "time step h"));
    k.push_back(detail::t_end_key<C>([](Resolver& r, C& c) {
      const detail::TimeGrid g = detail::read_time_grid(r, "integrator.dt", "the time step");
      if (g.ok) c.dt = g.dt, c.t_end = g.t_end, c.steps = g.steps;
    }));
    k.push_back(detail::number_key<C>("integrator.newton_tol", &C::newton_tol, NumberCheck::positive)
                    .doc("relative residual tolerance of the implicit step (Newton)")
                    .when(implicit, explicit_method));
    auto max_iterations = detail::integer_key<C>("integrator.max_iterations", &C::max_iterations, 1, 1000)
                              .doc("Newton iteration limit per step")
                              .when(implicit, explicit_method);
    max_iterations.read = [](Resolver& r, C& c) {
      if (auto v = r.integer_in("integrator.max_iterations", 1, 1000)) c.max_iterations = *v;
    };
    k.push_back(max_iterations);
    k.push_back(detail::every_key<C>());
    for (auto& c : detail::checkpoint_keys<C>()) k.push_back(std::move(c));
    k.push_back(detail::boolean_key<C>("output.plots", &C::plots)
                    .doc("make invariants.png and attitude.png (python3 + matplotlib)"));
    return detail::KeyTable<C>(std::move(k));
  }();
  return t;
}

const detail::Schema& schema() {
  static const detail::Schema v{&table().schema(), {"model", "initial", "integrator", "output"},
                                "a lie_group scenario", {{"initial.omega", "initial.Pi"}}};
  return v;
}

std::vector<InputIssue> lie_group_problems(const LieGroupConfig& c) {
  std::vector<InputIssue> out = table().problems(c);
  for (auto& i : detail::time_grid_problems(c.dt, c.t_end, c.steps)) out.push_back(std::move(i));
  const auto add = [&](const std::string& key, std::string message) { out.push_back({"", key, std::move(message)}); };
  if (detail::name_of(kSystems, c.system).empty()) return out;
  Mat3 sym;
  if (auto p = inertia_problem(c.inertia, c.inertia_is_matrix || !c.inertia.isDiagonal(0.0), "I", sym))
    add("model.inertia", *p);
  if (!c.omega0.allFinite()) add("initial.omega", "must be finite");
  if (!c.Pi0.allFinite()) add("initial.Pi", "must be finite");
  if (c.method == LieMethod::moser_veselov && c.system != LieSystem::free_body)
    add("integrator.method", "moser-veselov is only for system free_body");
  if (c.floating() && c.method != LieMethod::del) add("integrator.method", "floating_body takes del only");
  if (c.floating() && !c.omega_given) add("initial.Pi", "floating_body takes initial.omega");
  return out;
}

}  // namespace

namespace detail {

/// The lie_group resolver on a parsed document, for the dispatch of formats.cpp.
LieGroupScenario resolve_lie_group_document(const RawValue& root, const std::string& file, const std::string& name,
                                            const std::string& source, const std::vector<std::string>& overrides) {
  Resolver r(schema(), file, read_entries(schema(), root, file, overrides));
  LieGroupScenario s;
  s.name = name;
  s.source = source;
  s.given_keys = r.given_keys();
  table().read(r, s);
  throw_if_issues(r);
  return s;
}

}  // namespace detail

const std::vector<LieGroupMethodInfo>& lie_group_methods() {
  using M = LieMethod;
  static const std::vector<LieGroupMethodInfo> v = {
      {M::del, 2, true, true,
       "Lie-group DEL on SO(3) in (R_k, Pi_k): Ld = h ell(tau^-1(R_k^T R_k+1)/h) - h/2 (V_k + V_k+1), Newton on xi"},
      {M::del_reduced, 2, true, true,
       "its reduced form: Euler-Poincare on (Pi, Gamma = R^T e3) (heavy top, 3D pendulum) or Pi (free body); R "
       "reconstructed by R_k+1 = R_k tau(h xi)"},
      {M::moser_veselov, 2, true, true,
       "free body: Moser-Veselov's l_d(F) = tr((Id - F) J)/h, F = R_k^T R_k+1 (discrete reduced DEL)"},
      {M::rk4, 4, false, false, "comparator: classical RK4 on R' = R hat(Omega), Pi' = Pi x Omega - grad V(Gamma)"},
  };
  return v;
}

const LieGroupMethodInfo& lie_group_method(LieMethod m) {
  for (const auto& info : lie_group_methods())
    if (info.method == m) return info;
  throw invalid_argument("", "integrator.method",
                         "value " + std::to_string(static_cast<int>(m)) + " is not a method of the lie_group model");
}

const std::vector<SchemaEntry>& lie_group_schema() { return table().schema(); }

bool LieGroupScenario::given(const std::string& key) const {
  return std::binary_search(given_keys.begin(), given_keys.end(), key);
}

LieGroupScenario load_lie_group_scenario(const std::filesystem::path& path, const std::vector<std::string>& overrides) {
  const std::string file = path.string();
  return detail::resolve_lie_group_document(detail::parse_toml(detail::read_scenario_text(path), file), file,
                                            path.stem().string(), file, overrides);
}

LieGroupScenario parse_lie_group_scenario(const std::string& toml_text, const std::string& file_label,
                                          const std::string& name, const std::vector<std::string>& overrides) {
  return detail::resolve_lie_group_document(detail::parse_toml(toml_text, file_label), file_label, name, "",
                                            overrides);
}

std::vector<ResolvedEntry> resolved_entries(const LieGroupScenario& s) {
  return table().resolved(s, [&](const std::string& k) { return s.given(k); });
}

std::vector<std::string> ignored_key_notes(const LieGroupScenario& s) {
  return table().ignored_notes(s, [&](const std::string& k) { return s.given(k); });
}

std::string to_toml(const LieGroupScenario& s) {
  const auto notes = ignored_key_notes(s);
  std::string t = detail::toml_header("lie_group scenario", s.name, s.source, s.steps, s.dt, s.t_end,
                                      std::string("; system ") + config::id(s.system), notes);
  t += detail::entries_toml(resolved_entries(s), [&](const ResolvedEntry& e) { return detail::note_comments(notes, e); });
  return t;
}

}  // namespace lievi::io

namespace lievi::config {
std::vector<InputIssue> problems(const LieGroupConfig& c) { return io::lie_group_problems(c); }
void validate(const LieGroupConfig& c) {
  if (auto p = problems(c); !p.empty()) throw invalid_argument(std::move(p));
}
}  // namespace lievi::config
