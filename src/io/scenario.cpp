/// @file src/io/scenario.cpp
/// @brief Rigid-body scenario: schema, validation of every key, resolved printout. The reading machinery
/// (TOML, `--set`, the Resolver, the step-count rule) is model-independent and lives in scenario_reader.cpp.
#include "lievi/io/scenario.hpp"

#include <Eigen/Cholesky>
#include <Eigen/Eigenvalues>
#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <stdexcept>

#include "lievi/core/error.hpp"
#include "key_table.hpp"
#include "lievi/io/memory_estimate.hpp"
#include "scenario_reader.hpp"

namespace lievi::config {

const char* id(RigidBodyMethod m) {
  switch (m) {
    case RigidBodyMethod::ddb: return "ddb";
    case RigidBodyMethod::rk4: return "rk4";
    case RigidBodyMethod::ddb_symmetric: return "ddb-symmetric";
    case RigidBodyMethod::moser_veselov: return "moser-veselov";
    case RigidBodyMethod::lobatto_iiic: return "lobatto-iiic";
    case RigidBodyMethod::dop853: return "dop853";
  }
  return "";
}
const char* id(Retraction r) {
  switch (r) {
    case Retraction::cayley: return "cayley";
    case Retraction::exp: return "exp";
    case Retraction::exp2: return "exp2";
  }
  return "";
}
const char* id(DissipationQuadrature q) {
  switch (q) {
    case DissipationQuadrature::midpoint: return "midpoint";
    case DissipationQuadrature::trapezoid: return "trapezoid";
  }
  return "";
}

integrators::RigidBodyMethodOptions RigidBodyConfig::method_options() const {
  integrators::RigidBodyMethodOptions o;
  o.method = id(method);
  o.retraction = id(retraction);
  o.dissipation_quadrature = id(dissipation_quadrature);
  o.symmetric_processing = symmetric_processing;
  o.rtol = rtol;
  o.atol = atol;
  return o;
}

}  // namespace lievi::config

namespace lievi::io {
namespace detail {
/// The rigid-body reader on a parsed document (below; also the dispatch of formats.cpp).
RigidBodyScenario resolve_rigid_body(const RawValue& root, const std::string& file, const std::string& name,
                                     const std::string& source, const std::vector<std::string>& overrides);
}  // namespace detail
namespace {

using config::RigidBodyConfig;
using detail::join;
using detail::Key;
using detail::RawValue;
using detail::Resolver;
using models::Mat3;
using models::Vec3;


std::string matrix_text(const Mat3& A) {
  std::string t = "[";
  for (int r = 0; r < 3; ++r) {
    t += r ? ", [" : "[";
    for (int c = 0; c < 3; ++c) t += (c ? ", " : "") + format_number(A(r, c));
    t += "]";
  }
  return t + "]";
}

std::vector<double> vec(const Vec3& x) { return {x[0], x[1], x[2]}; }
std::vector<std::vector<double>> mat(const Mat3& A) { return {vec(A.row(0)), vec(A.row(1)), vec(A.row(2))}; }

/// Symmetric within 1e-12 of the largest entry: tighter than any hand-written decimal asymmetry is
/// meaningful, looser than the round-off of a matrix computed as R D R^T (~1e-16 relative).
bool nearly_symmetric(const Mat3& A) {
  const double scale = A.cwiseAbs().maxCoeff();
  return (A - A.transpose()).cwiseAbs().maxCoeff() <= 1e-12 * scale;
}

/// The problem of an inertia (3 moments when !is_matrix, `text` the value as given), or nullopt; `sym` gets
/// the symmetric part.
std::optional<std::string> inertia_problem(const Mat3& A, bool is_matrix, const std::string& text, Mat3& sym) {
  if (!A.allFinite()) return "value " + text + " must be finite";
  if (!is_matrix) {
    sym = A;
    if ((A.diagonal().array() > 0.0).all()) return std::nullopt;
    return "value " + text + " must have 3 principal moments > 0";
  }
  if (!nearly_symmetric(A)) return "matrix " + matrix_text(A) + " is not symmetric (within 1e-12 of its largest entry)";
  const Mat3 Asym = 0.5 * A + 0.5 * A.transpose();  // (A + A^T) / 2 without overflowing A + A^T
  // the tests on A / (its largest entry), so that huge finite entries do not overflow the factorisations
  const double scale = Asym.cwiseAbs().maxCoeff();
  const Mat3 Aunit = scale > 0.0 ? Mat3(Asym / scale) : Asym;
  const double lmin = scale * Eigen::SelfAdjointEigenSolver<Mat3>(Aunit, Eigen::EigenvaluesOnly).eigenvalues()(0);
  if (!(lmin > 0.0) || Aunit.llt().info() != Eigen::Success)
    return "matrix " + matrix_text(A) + " is not positive definite (smallest eigenvalue " + format_number(lmin) + ")";
  sym = Asym;
  return std::nullopt;
}

/// The problem of a dissipation metric, or nullopt; `sym` gets the symmetric part.
std::optional<std::string> metric_problem(const Mat3& K, Mat3& sym) {
  if (!K.allFinite()) return "matrix " + matrix_text(K) + " must be finite";
  if (!nearly_symmetric(K)) return "matrix " + matrix_text(K) + " is not symmetric (within 1e-12 of its largest entry)";
  const Mat3 Ksym = 0.5 * K + 0.5 * K.transpose();  // as the inertia's: no overflow of K + K^T
  sym = Ksym;
  const double scale = Ksym.cwiseAbs().maxCoeff();  // as for the inertia: the eigenvalues of K / scale
  const Eigen::SelfAdjointEigenSolver<Mat3> eig(scale > 0.0 ? Mat3(Ksym / scale) : Ksym, Eigen::EigenvaluesOnly);
  const Vec3 ev = (scale > 0.0 ? scale : 1.0) * eig.eigenvalues();
  // PSD up to the eigen-solver's round-off (~1e-15 of the largest |eigenvalue|); 1e-14 leaves a margin.
  if (ev(0) < -1e-14 * ev.cwiseAbs().maxCoeff())
    return "matrix " + matrix_text(K) + " is not positive semi-definite (smallest eigenvalue " + format_number(ev(0)) +
           ")";
  return std::nullopt;
}

/// Omega_0 = I^-1 M_0, also when the cofactors of huge moments overflow (then I / 2^k is inverted).
Vec3 omega_of(const Mat3& inertia, const Vec3& M0) {
  Vec3 w = inertia.inverse() * M0;
  if (!w.allFinite()) {
    int k = 0;
    (void)std::frexp(inertia.cwiseAbs().maxCoeff(), &k);
    w = (std::ldexp(1.0, -k) * inertia).inverse() * M0 * std::ldexp(1.0, -k);
  }
  return w;
}

std::string omega_problem(const std::string& text, const Vec3& M0) {
  return "value " + text + " gives M_0 = I Omega_0 = " + detail::value_toml(vec(M0)) +
         ", which is not finite; expected a smaller angular velocity or inertia";
}
std::string momentum_problem(const std::string& text, const Vec3& w) {
  return "value " + text + " gives Omega_0 = I^-1 M_0 = " + detail::value_toml(vec(w)) +
         ", which is not finite; expected a smaller momentum or a larger inertia";
}

const detail::Names<config::RigidBodyMethod>& method_names() {
  using config::RigidBodyMethod;
  static const detail::Names<RigidBodyMethod> v = [] {
    detail::Names<RigidBodyMethod> n;
    for (RigidBodyMethod m : {RigidBodyMethod::ddb, RigidBodyMethod::rk4, RigidBodyMethod::ddb_symmetric,
                              RigidBodyMethod::moser_veselov, RigidBodyMethod::lobatto_iiic, RigidBodyMethod::dop853})
      n.emplace_back(config::id(m), m);
    return n;
  }();
  return v;
}

/// `k` with `rule` (a rule between keys, reported first) run before its own reading.
Key<RigidBodyConfig> with_rule(Key<RigidBodyConfig> k, std::function<void(Resolver&, RigidBodyConfig&)> rule) {
  k.read = [rule = std::move(rule), read = std::move(k.read)](Resolver& r, RigidBodyConfig& c) {
    rule(r, c);
    read(r, c);
  };
  return k;
}

/// Exactly one of initial.omega and initial.M; the other is derived through the inertia.
void read_initial(Resolver& r, RigidBodyConfig& c) {
  const bool has_omega = r.has("initial.omega"), has_M = r.has("initial.M");
  const bool inertia_ok = r.has("model.inertia") && !detail::has_issue(r, {"model.inertia"});
  if (has_omega && has_M) {
    r.issue("initial.M", "both initial.omega and initial.M are given; give exactly one");
  } else if (!has_omega && !has_M) {
    r.missing("initial.omega", "the initial body angular velocity Omega_0 (or give initial.M = I Omega_0)");
  } else if (has_omega) {
    if (auto w = r.vec3("initial.omega")) {
      c.omega0 = *w;
      c.omega_given = true;
      if (inertia_ok) c.M0 = c.inertia * c.omega0;
      if (!c.M0.allFinite()) r.issue("initial.omega", omega_problem(r.get("initial.omega")->text(), c.M0));
    }
  } else if (auto M = r.vec3("initial.M")) {
    c.M0 = *M;
    c.omega_given = false;
    if (inertia_ok) c.omega0 = omega_of(c.inertia, c.M0);
    if (!c.omega0.allFinite()) r.issue("initial.M", momentum_problem(r.get("initial.M")->text(), c.omega0));
  }
}

/// integrator.dt (or its alias integrator.h, not both) and integrator.t_end: t_end = N dt.
void read_time_grid(Resolver& r, RigidBodyConfig& c) {
  const std::string dt_key = r.has("integrator.h") ? "integrator.h" : "integrator.dt";
  const bool both_steps = r.has("integrator.dt") && r.has("integrator.h");
  if (both_steps) r.issue("integrator.h", "both integrator.dt and its alias integrator.h are given; give one");
  const detail::TimeGrid grid =
      detail::read_time_grid(r, dt_key, "the time step h (integrator.h is an alias)", !both_steps);
  if (grid.ok) c.steps = grid.steps;
  if (grid.dt > 0.0 && grid.t_end > 0.0) c.dt = grid.dt, c.t_end = grid.t_end;
}

/// The rigid-body key table, in documentation order. The checks that read the raw value (the inertia as
/// moments or matrix, the time grid) and the rules between keys are written here; everything else is the
/// table's.
const detail::KeyTable<RigidBodyConfig>& table() {
  using C = RigidBodyConfig;
  using config::DissipationQuadrature;
  using config::Retraction;
  static const detail::KeyTable<C> t = [] {
    const std::string one_of = "exactly one of initial.omega, initial.M";
    std::vector<Key<C>> k;
    k.push_back(detail::model_type_key<C>("rigid_body"));
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
                r.issue("model.inertia",
                        "value " + v->text() + " is neither 3 principal moments [I1, I2, I3] nor a 3x3 matrix of finite numbers");
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
            .doc("inertia tensor I in the body frame (diag(I1, I2, I3) when 3 numbers are given)")
            .required("3 principal moments [I1, I2, I3] or a 3x3 matrix"));
    k.push_back(with_rule(detail::number_key<C>("model.alpha", &C::alpha, detail::NumberCheck::nonnegative),
                          [](Resolver& r, C&) {
                            if (r.has("model.alpha") && r.has("model.K"))
                              r.issue("model.K",
                                      "both model.alpha and model.K are given; give one (model.alpha = a means K = a Id)");
                          })
                    .requirement("optional, not with model.K")
                    .unit("s/(kg m^2)")
                    .doc("dissipation strength: K = alpha Id, dM/dt = M x Omega + alpha M x (M x Omega)")
                    .when([](const C& c) { return !c.metric_given; }));
    k.push_back(detail::custom_key<C>(
                    "model.K", ValueType::mat3,
                    [](Resolver& r, C& c) {
                      if (auto K = r.mat3("model.K")) {
                        c.metric_given = true;
                        Mat3 sym = *K;
                        if (auto p = metric_problem(*K, sym)) r.issue("model.K", *p);
                        if (nearly_symmetric(*K)) c.K = sym;
                      } else {
                        c.K = c.alpha * Mat3::Identity();
                      }
                    },
                    [](const C& c) { return ScenarioValue(mat(c.K)); })
                    .requirement("optional, not with model.alpha")
                    .default_text("alpha Id")
                    .unit("s/(kg m^2)")
                    .allowed("symmetric positive semi-definite 3x3")
                    .doc("dissipation metric: phi(xi) = K ((I xi) x xi)")
                    .when([](const C& c) { return c.metric_given; })
                    .no_default());
    k.push_back(detail::custom_key<C>("initial.omega", ValueType::vec3, read_initial,
                                      [](const C& c) { return ScenarioValue(vec(c.omega0)); })
                    .requirement(one_of)
                    .unit("rad/s")
                    .allowed("finite")
                    .doc("initial body angular velocity Omega_0")
                    .when([](const C& c) { return c.omega_given; })
                    .no_default());
    k.push_back(detail::custom_key<C>("initial.M", ValueType::vec3, nullptr,
                                      [](const C& c) { return ScenarioValue(vec(c.M0)); })
                    .requirement(one_of)
                    .unit("kg m^2/s")
                    .allowed("finite")
                    .doc("initial body momentum M_0 = I Omega_0")
                    .when([](const C& c) { return !c.omega_given; })
                    .no_default());
    k.push_back(detail::quaternion_key<C>("initial.attitude", &C::attitude).doc("initial attitude R_0, body to spatial"));
    k.push_back(detail::choice_key<C>("integrator.method", &C::method, method_names(), "a registered method")
                    .allowed("a method id listed by `lievi methods`")
                    .doc("the integrator")
                    .required("a method id (" + join(detail::name_list(method_names())) + ")"));
    k.push_back(detail::dt_key<C>("required (or its alias integrator.h)",
                                  "time step h; for the adaptive dop853 the output grid (rows at multiples of dt * "
                                  "every, from its dense output)"));
    k.push_back(detail::alias_key<C>("integrator.h", ValueType::number, "integrator.dt")
                    .requirement("alias of integrator.dt (not both)")
                    .unit("s")
                    .doc("the paper's name of the time step"));
    k.push_back(detail::t_end_key<C>(read_time_grid));
    k.push_back(detail::choice_key<C>("integrator.retraction", &C::retraction,
                                      {{"cayley", Retraction::cayley}, {"exp", Retraction::exp}, {"exp2", Retraction::exp2}},
                                      "a retraction")
                    .doc("retraction tau of the DDB family (exp2: dexp^-1 to order 2)"));
    k.push_back(detail::choice_key<C>("integrator.dissipation_quadrature", &C::dissipation_quadrature,
                                      {{"midpoint", DissipationQuadrature::midpoint},
                                       {"trapezoid", DissipationQuadrature::trapezoid}},
                                      "a dissipation quadrature")
                    .doc("quadrature of the dissipation in ddb-symmetric"));
    k.push_back(detail::boolean_key<C>("integrator.symmetric_processing", &C::symmetric_processing)
                    .doc("ddb-symmetric start/output correction (false: the paper's raw first-order variant)"));
    k.push_back(detail::number_key<C>("integrator.rtol", &C::rtol, detail::NumberCheck::positive)
                    .doc("relative tolerance (adaptive methods)"));
    k.push_back(detail::number_key<C>("integrator.atol", &C::atol, detail::NumberCheck::positive)
                    .doc("absolute tolerance (adaptive methods)"));
    k.push_back(detail::every_key<C>());
    for (auto& c : detail::checkpoint_keys<C>()) k.push_back(std::move(c));
    k.push_back(detail::boolean_key<C>("output.plots", &C::plots)
                    .doc("make casimir_energy.png and trajectory.png (python3 + matplotlib)"));
    return detail::KeyTable<C>(std::move(k));
  }();
  return t;
}

/// The reader's view of the rigid-body format. Exclusive groups: keys of which at most one may be given; a
/// `--set` of one member replaces the file's other members.
const detail::Schema& schema() {
  static const detail::Schema v{
      &table().schema(),
      {"model", "initial", "integrator", "output"},
      "a rigid-body scenario",
      {{"integrator.dt", "integrator.h"}, {"initial.omega", "initial.M"}, {"model.alpha", "model.K"}}};
  return v;
}

/// Keys only some methods read. `retraction` is read by every method whose stepper reports a retraction, the
/// tolerances by adaptive methods; these two are used only by `ddb-symmetric` (docs/theory/ddb.md).
const std::map<std::string, config::RigidBodyMethod>& keys_only_for() {
  static const std::map<std::string, config::RigidBodyMethod> v = {
      {"integrator.dissipation_quadrature", config::RigidBodyMethod::ddb_symmetric},
      {"integrator.symmetric_processing", config::RigidBodyMethod::ddb_symmetric}};
  return v;
}

RigidBodyScenario parse_impl(const std::string& text, const std::string& file, const std::string& name,
                             const std::string& source, const std::vector<std::string>& overrides) {
  return detail::resolve_rigid_body(detail::parse_toml(text, file), file, name, source, overrides);
}

}  // namespace

namespace {
std::vector<InputIssue> rigid_body_problems(const RigidBodyConfig& c) {
  std::vector<InputIssue> out = table().problems(c);
  const auto add = [&](const std::string& key, std::string message) { out.push_back({"", key, std::move(message)}); };
  Mat3 sym;
  const auto text = [](const Mat3& A, bool is_matrix) {
    return is_matrix ? matrix_text(A) : detail::value_toml(vec(A.diagonal()));
  };
  const bool diagonal = c.inertia.isDiagonal(0.0);
  if (!c.inertia_is_matrix && !diagonal)
    add("model.inertia", "matrix " + matrix_text(c.inertia) + " is not diagonal; set inertia_is_matrix for a full tensor");
  else if (auto p = inertia_problem(c.inertia, c.inertia_is_matrix, text(c.inertia, c.inertia_is_matrix), sym))
    add("model.inertia", *p);
  const Mat3 K = c.metric_given ? c.K : Mat3(c.alpha * Mat3::Identity());
  if (c.metric_given)
    if (auto p = metric_problem(K, sym)) add("model.K", *p);
  if (!c.M0.allFinite()) add(c.omega_given ? "initial.omega" : "initial.M", "M_0 " + detail::value_toml(vec(c.M0)) + " must be finite");
  for (auto& i : detail::time_grid_problems(c.dt, c.t_end, c.steps)) out.push_back(std::move(i));
  return out;
}

}  // namespace

RigidBodyScenario detail::resolve_rigid_body(const RawValue& root, const std::string& file, const std::string& name,
                                             const std::string& source, const std::vector<std::string>& overrides) {
  Resolver r(schema(), file, read_entries(schema(), root, file, overrides));
  RigidBodyScenario s;
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

const std::vector<SchemaEntry>& rigid_body_schema() { return table().schema(); }

std::string schema_markdown() { return detail::schema_markdown(rigid_body_schema()); }

bool RigidBodyScenario::given(const std::string& key) const {
  return std::binary_search(given_keys.begin(), given_keys.end(), key);
}

RigidBodyScenario load_scenario(const std::filesystem::path& path, const std::vector<std::string>& overrides) {
  const std::string file = path.string();
  return parse_impl(detail::read_scenario_text(path), file, path.stem().string(), file, overrides);
}

RigidBodyScenario parse_scenario(const std::string& toml_text, const std::string& file_label, const std::string& name,
                                 const std::vector<std::string>& overrides) {
  return parse_impl(toml_text, file_label, name, "", overrides);
}

std::vector<ResolvedEntry> resolved_entries(const RigidBodyScenario& s) {
  return table().resolved(s, [&](const std::string& k) { return s.given(k); });
}

std::vector<std::string> ignored_key_notes(const RigidBodyScenario& s) {
  std::vector<std::string> notes;
  const std::string method = config::id(s.method);
  const auto ignored = [&](const std::string& key) { notes.push_back("key '" + key + "' is ignored by method " + method); };
  bool uses_retraction = true, adaptive = false;
  for (const auto& t : integrators::rigid_body_methods())
    if (method == t.id) adaptive = t.adaptive;
  try {
    uses_retraction = !integrators::make_rigid_body_stepper(s.model(), s.method_options())->retraction().empty();
  } catch (const std::exception&) {
    // a method that cannot be built is reported by the run; here we only decide what to note
  }
  if (s.given("integrator.retraction") && !uses_retraction) ignored("integrator.retraction");
  for (const auto& [key, m] : keys_only_for())
    if (s.given(key) && s.method != m) ignored(key);
  for (const char* key : {"integrator.rtol", "integrator.atol"})
    if (s.given(key) && !adaptive) ignored(key);
  return notes;
}

std::string to_toml(const RigidBodyScenario& s) {
  const auto notes = ignored_key_notes(s);
  std::string t = detail::toml_header("scenario", s.name, s.source, s.steps, s.dt, s.t_end, "", notes);
  t += detail::entries_toml(resolved_entries(s), [&](const ResolvedEntry& e) {
    std::vector<std::string> comments;
    if (e.key == "initial.omega") comments.push_back("M_0 = " + detail::value_toml(vec(s.M0)));
    if (e.key == "initial.M") comments.push_back("Omega_0 = " + detail::value_toml(vec(s.omega0)));
    for (const auto& n : notes)
      if (n.find("'" + e.key + "'") != std::string::npos) comments.push_back(std::string("ignored by ") + config::id(s.method));
    return comments;
  });
  return t;
}

}  // namespace lievi::io

namespace lievi::config {
std::vector<InputIssue> problems(const RigidBodyConfig& c) { return io::rigid_body_problems(c); }
void validate(const RigidBodyConfig& c) {
  if (auto p = problems(c); !p.empty()) throw invalid_argument(std::move(p));
}
}  // namespace lievi::config
