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
using models::Mat3;
using models::Vec3;

/// output.every: at most the largest step count, 1e12 (io/memory_estimate.hpp, docs/scenarios.md).
constexpr long long kMaxEvery = limits::kMaxSteps;

// ---------------------------------------------------------------------------------------------------------------
// Schema
// ---------------------------------------------------------------------------------------------------------------

std::vector<std::string> method_ids() {
  std::vector<std::string> ids;
  for (const auto& t : integrators::rigid_body_methods()) ids.emplace_back(t.id);
  return ids;
}

const std::vector<std::string>& quadratures() {
  static const std::vector<std::string> v = {"midpoint", "trapezoid"};
  return v;
}

/// The reader's view of the rigid-body format. Exclusive groups: keys of which at most one may be given; a
/// `--set` of one member replaces the file's other members.
const detail::Schema& schema() {
  static const detail::Schema v{
      &rigid_body_schema(),
      {"model", "initial", "integrator", "output"},
      "a rigid-body scenario",
      {{"integrator.dt", "integrator.h"}, {"initial.omega", "initial.M"}, {"model.alpha", "model.K"}}};
  return v;
}

/// Keys only some methods read. `retraction` is read by every method whose stepper reports a retraction, the
/// tolerances by adaptive methods; these two are used only by `ddb-symmetric` (rigid-body-ddb spec §4).
const std::map<std::string, std::string>& keys_only_for() {
  static const std::map<std::string, std::string> v = {{"integrator.dissipation_quadrature", "ddb-symmetric"},
                                                       {"integrator.symmetric_processing", "ddb-symmetric"}};
  return v;
}

std::string matrix_text(const Mat3& A) {
  std::string t = "[";
  for (int r = 0; r < 3; ++r) {
    t += r ? ", [" : "[";
    for (int c = 0; c < 3; ++c) t += (c ? ", " : "") + format_number(A(r, c));
    t += "]";
  }
  return t + "]";
}

/// Symmetric within 1e-12 of the largest entry: tighter than any hand-written decimal asymmetry is
/// meaningful, looser than the round-off of a matrix computed as R D R^T (~1e-16 relative).
bool nearly_symmetric(const Mat3& A) {
  const double scale = A.cwiseAbs().maxCoeff();
  return (A - A.transpose()).cwiseAbs().maxCoeff() <= 1e-12 * scale;
}

RigidBodyScenario resolve(Resolver& r, const std::string& name, const std::string& source) {
  RigidBodyScenario s;
  s.name = name;
  s.source = source;
  s.given_keys = r.given_keys();

  // --- model ---
  if (!r.has("model.type")) {
    r.missing("model.type", "the model, \"rigid_body\"");
  } else {
    r.choice("model.type", {"rigid_body"}, "a model this scenario format supports");
  }
  bool inertia_ok = false;
  if (const RawValue* v = r.get("model.inertia")) {
    Vec3 moments;
    Mat3 A;
    if (Resolver::as_vec3(*v, moments)) {
      if ((moments.array() > 0.0).all()) {
        s.inertia = moments.asDiagonal().toDenseMatrix();
        inertia_ok = true;
      } else {
        r.issue("model.inertia", "value " + v->text() + " must have 3 principal moments > 0");
      }
    } else if (Resolver::as_mat3(*v, A)) {
      s.inertia_is_matrix = true;
      if (!nearly_symmetric(A)) {
        r.issue("model.inertia",
                "matrix " + matrix_text(A) + " is not symmetric (within 1e-12 of its largest entry)");
      } else {
        const Mat3 Asym = 0.5 * A + 0.5 * A.transpose();  // (A + A^T) / 2 without overflowing A + A^T
        // the tests on A / (its largest entry), so that huge finite entries do not overflow the factorisations
        const double scale = Asym.cwiseAbs().maxCoeff();
        const Mat3 Aunit = scale > 0.0 ? Mat3(Asym / scale) : Asym;
        const double lmin =
            scale * Eigen::SelfAdjointEigenSolver<Mat3>(Aunit, Eigen::EigenvaluesOnly).eigenvalues()(0);
        if (!(lmin > 0.0) || Aunit.llt().info() != Eigen::Success) {
          r.issue("model.inertia", "matrix " + matrix_text(A) +
                                       " is not positive definite (smallest eigenvalue " +
                                       format_number(lmin) + ")");
        } else {
          s.inertia = Asym;
          inertia_ok = true;
        }
      }
    } else {
      r.issue("model.inertia",
              "value " + v->text() +
                  " is neither 3 principal moments [I1, I2, I3] nor a 3x3 matrix of finite numbers");
    }
  } else {
    r.missing("model.inertia", "3 principal moments [I1, I2, I3] or a 3x3 matrix");
  }
  if (r.has("model.alpha") && r.has("model.K")) {
    r.issue("model.K", "both model.alpha and model.K are given; give one (model.alpha = a means K = a Id)");
  }
  if (auto a = r.number("model.alpha")) {
    if (*a < 0.0) r.issue("model.alpha", "value " + format_number(*a) + " must be >= 0");
    s.alpha = *a;
  }
  s.K = s.alpha * Mat3::Identity();
  if (auto K = r.mat3("model.K")) {
    s.metric_given = true;
    if (!nearly_symmetric(*K)) {
      r.issue("model.K",
              "matrix " + matrix_text(*K) + " is not symmetric (within 1e-12 of its largest entry)");
    } else {
      const Mat3 Ksym = 0.5 * *K + 0.5 * K->transpose();  // as the inertia's: no overflow of K + K^T
      const double scale = Ksym.cwiseAbs().maxCoeff();  // as for the inertia: the eigenvalues of K / scale
      const Eigen::SelfAdjointEigenSolver<Mat3> eig(scale > 0.0 ? Mat3(Ksym / scale) : Ksym, Eigen::EigenvaluesOnly);
      const Vec3 ev = (scale > 0.0 ? scale : 1.0) * eig.eigenvalues();
      // PSD up to the eigen-solver's round-off (~1e-15 of the largest |eigenvalue|); 1e-14 leaves a margin.
      if (ev(0) < -1e-14 * ev.cwiseAbs().maxCoeff()) {
        r.issue("model.K", "matrix " + matrix_text(*K) +
                               " is not positive semi-definite (smallest eigenvalue " + format_number(ev(0)) +
                               ")");
      }
      s.K = Ksym;
    }
  }

  // --- initial ---
  const bool has_omega = r.has("initial.omega"), has_M = r.has("initial.M");
  if (has_omega && has_M) {
    r.issue("initial.M", "both initial.omega and initial.M are given; give exactly one");
  } else if (!has_omega && !has_M) {
    r.missing("initial.omega", "the initial body angular velocity Omega_0 (or give initial.M = I Omega_0)");
  } else if (has_omega) {
    if (auto w = r.vec3("initial.omega")) {
      s.omega0 = *w;
      s.omega_given = true;
      if (inertia_ok) s.M0 = s.inertia * s.omega0;
      if (!s.M0.allFinite())
        r.issue("initial.omega", "value " + r.get("initial.omega")->text() + " gives M_0 = I Omega_0 = " +
                                     detail::value_toml(std::vector<double>{s.M0[0], s.M0[1], s.M0[2]}) +
                                     ", which is not finite; expected a smaller angular velocity or inertia");
    }
  } else {
    if (auto M = r.vec3("initial.M")) {
      s.M0 = *M;
      s.omega_given = false;
      if (inertia_ok) s.omega0 = s.inertia.inverse() * s.M0;
      if (inertia_ok && !s.omega0.allFinite()) {  // the cofactors of huge moments overflowed: invert I / 2^k
        int k = 0;
        (void)std::frexp(s.inertia.cwiseAbs().maxCoeff(), &k);
        s.omega0 = (std::ldexp(1.0, -k) * s.inertia).inverse() * s.M0 * std::ldexp(1.0, -k);
      }
      if (!s.omega0.allFinite())
        r.issue("initial.M", "value " + r.get("initial.M")->text() + " gives Omega_0 = I^-1 M_0 = " +
                                 detail::value_toml(std::vector<double>{s.omega0[0], s.omega0[1], s.omega0[2]}) +
                                 ", which is not finite; expected a smaller momentum or a larger inertia");
    }
  }

  // --- integrator ---
  const std::vector<std::string> ids = method_ids();
  if (!r.has("integrator.method")) {
    r.missing("integrator.method", "a method id (" + join(ids) + ")");
  } else if (auto m = r.choice("integrator.method", ids, "a registered method")) {
    s.method = *m;
  }
  if (auto v = r.choice("integrator.retraction", integrators::rigid_body_retractions(), "a retraction"))
    s.retraction = *v;
  if (auto v = r.choice("integrator.dissipation_quadrature", quadratures(), "a dissipation quadrature"))
    s.dissipation_quadrature = *v;
  if (auto v = r.boolean("integrator.symmetric_processing")) s.symmetric_processing = *v;

  const std::string dt_key = r.has("integrator.h") ? "integrator.h" : "integrator.dt";
  const bool both_steps = r.has("integrator.dt") && r.has("integrator.h");
  if (both_steps)
    r.issue("integrator.h", "both integrator.dt and its alias integrator.h are given; give one");
  const detail::TimeGrid grid =
      detail::read_time_grid(r, dt_key, "the time step h (integrator.h is an alias)", !both_steps);
  if (grid.ok) s.steps = grid.steps;
  if (grid.dt > 0.0 && grid.t_end > 0.0) s.dt = grid.dt, s.t_end = grid.t_end;
  for (const char* key : {"integrator.rtol", "integrator.atol"}) {
    if (auto v = r.number(key)) {
      if (*v <= 0.0) r.issue(key, "value " + format_number(*v) + " must be > 0");
      (std::string(key) == "integrator.rtol" ? s.rtol : s.atol) = *v;
    }
  }

  // --- output ---
  if (auto e = detail::integer_bounded(r, "output.every", 1, kMaxEvery)) s.every = *e;
  if (auto p = r.boolean("output.plots")) s.plots = *p;
  return s;
}

RigidBodyScenario parse_impl(const std::string& text, const std::string& file, const std::string& name,
                             const std::string& source, const std::vector<std::string>& overrides) {
  return detail::resolve_rigid_body(detail::parse_toml(text, file), file, name, source, overrides);
}

std::vector<double> vec(const Vec3& x) {
  return {x[0], x[1], x[2]};
}
std::vector<std::vector<double>> mat(const Mat3& A) {
  return {vec(A.row(0)), vec(A.row(1)), vec(A.row(2))};
}

}  // namespace

RigidBodyScenario detail::resolve_rigid_body(const RawValue& root, const std::string& file,
                                             const std::string& name, const std::string& source,
                                             const std::vector<std::string>& overrides) {
  Resolver r(schema(), file, read_entries(schema(), root, file, overrides));
  RigidBodyScenario s = resolve(r, name, source);
  throw_if_issues(r);
  return s;
}

// -------------------------------------------------------------------------------------------------------------
// Public API
// -------------------------------------------------------------------------------------------------------------

const std::vector<SchemaEntry>& rigid_body_schema() {
  static const std::vector<SchemaEntry> schema = [] {
    const std::string one_of = "exactly one of initial.omega, initial.M";
    return std::vector<SchemaEntry>{
        {"model.type", ValueType::string, "required", "", "", "rigid_body", "the model", ""},
        {"model.inertia", ValueType::vec3_or_mat3, "required", "", "kg m^2",
         "3 principal moments > 0, or a symmetric positive-definite 3x3",
         "inertia tensor I in the body frame (diag(I1, I2, I3) when 3 numbers are given)", ""},
        {"model.alpha", ValueType::number, "optional, not with model.K", "0.0", "s/(kg m^2)", ">= 0",
         "dissipation strength: K = alpha Id, dM/dt = M x Omega + alpha M x (M x Omega)", ""},
        {"model.K", ValueType::mat3, "optional, not with model.alpha", "alpha Id", "s/(kg m^2)",
         "symmetric positive semi-definite 3x3", "dissipation metric: phi(xi) = K ((I xi) x xi)", ""},
        {"initial.omega", ValueType::vec3, one_of, "", "rad/s", "finite",
         "initial body angular velocity Omega_0", ""},
        {"initial.M", ValueType::vec3, one_of, "", "kg m^2/s", "finite",
         "initial body momentum M_0 = I Omega_0", ""},
        {"integrator.method", ValueType::string, "required", "", "", "a method id listed by `lievi methods`",
         "the integrator", ""},
        {"integrator.dt", ValueType::number, "required (or its alias integrator.h)", "", "s",
         "> 0, t_end/dt an integer N < 1e12 within 1e-9 relative",
         "time step h; for the adaptive dop853 the output grid (rows at multiples of dt * every, from "
         "its dense output)",
         ""},
        {"integrator.h", ValueType::number, "alias of integrator.dt (not both)", "", "s", "as integrator.dt",
         "the paper's name of the time step", "integrator.dt"},
        {"integrator.t_end", ValueType::number, "required", "", "s", "> 0",
         "final time (the run starts at t = 0)", ""},
        {"integrator.retraction", ValueType::string, "optional", "\"cayley\"", "",
         join(integrators::rigid_body_retractions()),
         "retraction tau of the DDB family (exp2: dexp^-1 to order 2)", ""},
        {"integrator.dissipation_quadrature", ValueType::string, "optional", "\"midpoint\"", "",
         join(quadratures()), "quadrature of the dissipation in ddb-symmetric", ""},
        {"integrator.symmetric_processing", ValueType::boolean, "optional", "true", "", "true, false",
         "ddb-symmetric start/output correction (false: the paper's raw first-order variant)", ""},
        {"integrator.rtol", ValueType::number, "optional", "1e-13", "", "> 0",
         "relative tolerance (adaptive methods)", ""},
        {"integrator.atol", ValueType::number, "optional", "1e-13", "", "> 0",
         "absolute tolerance (adaptive methods)", ""},
        {"output.every", ValueType::integer, "optional", "1", "steps", "1 ... 1000000000000",
         "write a row of series.csv every `every` steps (t = 0 and t = t_end always)", ""},
        {"output.plots", ValueType::boolean, "optional", "true", "", "true, false",
         "make casimir_energy.png and trajectory.png (python3 + matplotlib)", ""},
    };
  }();
  return schema;
}

std::string schema_markdown() {
  return detail::schema_markdown(rigid_body_schema());
}

integrators::RigidBodyMethodOptions RigidBodyScenario::method_options() const {
  integrators::RigidBodyMethodOptions o;
  o.method = method;
  o.retraction = retraction;
  o.dissipation_quadrature = dissipation_quadrature;
  o.symmetric_processing = symmetric_processing;
  o.rtol = rtol;
  o.atol = atol;
  return o;
}

bool RigidBodyScenario::given(const std::string& key) const {
  return std::binary_search(given_keys.begin(), given_keys.end(), key);
}

RigidBodyScenario load_scenario(const std::filesystem::path& path,
                                const std::vector<std::string>& overrides) {
  const std::string file = path.string();
  return parse_impl(detail::read_scenario_text(path), file, path.stem().string(), file, overrides);
}

RigidBodyScenario parse_scenario(const std::string& toml_text, const std::string& file_label,
                                 const std::string& name, const std::vector<std::string>& overrides) {
  return parse_impl(toml_text, file_label, name, "", overrides);
}

std::vector<ResolvedEntry> resolved_entries(const RigidBodyScenario& s) {
  std::vector<ResolvedEntry> out;
  for (const auto& e : rigid_body_schema()) {
    if (!e.alias_of.empty()) continue;
    const std::string& k = e.key;
    const auto add = [&](ScenarioValue v, bool can_default = true) {
      out.push_back({k, std::move(v), can_default && !s.given(k)});
    };
    if (k == "model.type") {
      add(std::string("rigid_body"), false);
    } else if (k == "model.inertia") {
      add(s.inertia_is_matrix ? ScenarioValue(mat(s.inertia)) : ScenarioValue(vec(s.inertia.diagonal())),
          false);
    } else if (k == "model.alpha") {
      if (!s.metric_given) add(s.alpha);
    } else if (k == "model.K") {
      if (s.metric_given) add(mat(s.K), false);
    } else if (k == "initial.omega") {
      if (s.omega_given) add(vec(s.omega0), false);
    } else if (k == "initial.M") {
      if (!s.omega_given) add(vec(s.M0), false);
    } else if (k == "integrator.method") {
      add(s.method, false);
    } else if (k == "integrator.dt") {
      add(s.dt, false);
    } else if (k == "integrator.t_end") {
      add(s.t_end, false);
    } else if (k == "integrator.retraction") {
      add(s.retraction);
    } else if (k == "integrator.dissipation_quadrature") {
      add(s.dissipation_quadrature);
    } else if (k == "integrator.symmetric_processing") {
      add(s.symmetric_processing);
    } else if (k == "integrator.rtol") {
      add(s.rtol);
    } else if (k == "integrator.atol") {
      add(s.atol);
    } else if (k == "output.every") {
      add(s.every);
    } else if (k == "output.plots") {
      add(s.plots);
    } else {
      throw std::logic_error("schema key without a resolved value: " + k);  // keep schema and struct in step
    }
  }
  return out;
}

std::vector<std::string> ignored_key_notes(const RigidBodyScenario& s) {
  std::vector<std::string> notes;
  const auto ignored = [&](const std::string& key) {
    notes.push_back("key '" + key + "' is ignored by method " + s.method);
  };
  bool uses_retraction = true, adaptive = false;
  for (const auto& t : integrators::rigid_body_methods())
    if (s.method == t.id) adaptive = t.adaptive;
  try {
    uses_retraction =
        !integrators::make_rigid_body_stepper(s.model(), s.method_options())->retraction().empty();
  } catch (const std::exception&) {
    // a method that cannot be built is reported by the run; here we only decide what to note
  }
  if (s.given("integrator.retraction") && !uses_retraction) ignored("integrator.retraction");
  for (const auto& [key, method] : keys_only_for())
    if (s.given(key) && s.method != method) ignored(key);
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
      if (n.find("'" + e.key + "'") != std::string::npos) comments.push_back("ignored by " + s.method);
    return comments;
  });
  return t;
}

}  // namespace lievi::io
