/// @file src/io/scenario.cpp
/// @brief Rigid-body scenario: schema, TOML reading (toml++), `--set` conversion, validation, resolved
/// printout.
///
/// Reading is split in three stages so that every issue of a file is found in one pass:
///  1. flatten the TOML document (or the `--set` strings) into `key -> RawValue` entries, remembering their
///  origin;
///  2. check each key against the schema (unknown keys, types), then the ranges and cross-key rules;
///  3. throw one lievi::invalid_argument with all issues, or return the resolved scenario.
#include "lievi/io/scenario.hpp"

#include <toml++/toml.h>

#include <Eigen/Cholesky>
#include <Eigen/Eigenvalues>
#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <stdexcept>

#include "lievi/core/error.hpp"

namespace lievi::io {
namespace {

using models::Mat3;
using models::Vec3;

// ---------------------------------------------------------------------------------------------------------------
// Stage 1: raw values
// ---------------------------------------------------------------------------------------------------------------

/// A value as read, before its schema type is checked.
struct RawValue {
  enum class Kind { string, integer, floating, boolean, array, table, other } kind = Kind::other;
  std::string s;
  long long i = 0;
  double d = 0.0;
  bool b = false;
  std::vector<RawValue> items;

  [[nodiscard]] bool is_number() const { return kind == Kind::integer || kind == Kind::floating; }
  [[nodiscard]] double number() const { return kind == Kind::integer ? static_cast<double>(i) : d; }

  /// TOML-like text of the value, for messages ("0", "\"rk5\"", "[1, 2, 3]").
  [[nodiscard]] std::string text() const {
    switch (kind) {
      case Kind::string:
        return "\"" + s + "\"";
      case Kind::integer:
        return std::to_string(i);
      case Kind::floating:
        return format_number(d, true);
      case Kind::boolean:
        return b ? "true" : "false";
      case Kind::array: {
        std::string t = "[";
        for (std::size_t n = 0; n < items.size(); ++n) t += (n ? ", " : "") + items[n].text();
        return t + "]";
      }
      case Kind::table:
        return "(a table)";
      case Kind::other:
        break;
    }
    return "(a date/time)";
  }
  /// The TOML type name, for "has type ..." messages.
  [[nodiscard]] const char* kind_name() const {
    switch (kind) {
      case Kind::string:
        return "string";
      case Kind::integer:
        return "integer";
      case Kind::floating:
        return "float";
      case Kind::boolean:
        return "boolean";
      case Kind::array:
        return "array";
      case Kind::table:
        return "table";
      case Kind::other:
        break;
    }
    return "date/time";
  }
};

struct RawEntry {
  RawValue value;
  std::string origin;  ///< file label, or "--set"
};

RawValue from_node(const toml::node& n) {
  RawValue r;
  if (const auto* v = n.as_string()) {
    r.kind = RawValue::Kind::string;
    r.s = v->get();
  } else if (const auto* v = n.as_integer()) {
    r.kind = RawValue::Kind::integer;
    r.i = v->get();
  } else if (const auto* v = n.as_floating_point()) {
    r.kind = RawValue::Kind::floating;
    r.d = v->get();
  } else if (const auto* v = n.as_boolean()) {
    r.kind = RawValue::Kind::boolean;
    r.b = v->get();
  } else if (const auto* a = n.as_array()) {
    r.kind = RawValue::Kind::array;
    for (const auto& e : *a) r.items.push_back(from_node(e));
  } else if (n.is_table()) {
    r.kind = RawValue::Kind::table;
  }
  return r;
}

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t");
  if (b == std::string::npos) return "";
  const auto e = s.find_last_not_of(" \t");
  return s.substr(b, e - b + 1);
}

/// A number as the command line writes it ("0.1", "1e-3", ".5", "-2"); nullopt unless the whole text
/// converts.
std::optional<double> parse_double(const std::string& t) {
  if (t.empty()) return std::nullopt;
  char* end = nullptr;
  const double v = std::strtod(t.c_str(), &end);
  if (end != t.c_str() + t.size()) return std::nullopt;
  return v;
}

/// Tiny array grammar for `--set`: '[' (item (',' item)*)? ']', item = number | array.
bool parse_array(const std::string& t, std::size_t& pos, RawValue& out) {
  auto skip = [&] {
    while (pos < t.size() && (t[pos] == ' ' || t[pos] == '\t')) ++pos;
  };
  skip();
  if (pos >= t.size() || t[pos] != '[') return false;
  ++pos;
  out.kind = RawValue::Kind::array;
  skip();
  if (pos < t.size() && t[pos] == ']') {
    ++pos;
    return true;
  }
  while (true) {
    skip();
    RawValue item;
    if (pos < t.size() && t[pos] == '[') {
      if (!parse_array(t, pos, item)) return false;
    } else {
      const auto stop = t.find_first_of(",]", pos);
      if (stop == std::string::npos) return false;
      const auto v = parse_double(trim(t.substr(pos, stop - pos)));
      if (!v) return false;
      item.kind = RawValue::Kind::floating;
      item.d = *v;
      pos = stop;
    }
    out.items.push_back(std::move(item));
    skip();
    if (pos >= t.size()) return false;
    if (t[pos] == ']') {
      ++pos;
      return true;
    }
    if (t[pos] != ',') return false;
    ++pos;
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Schema
// ---------------------------------------------------------------------------------------------------------------

std::string join(const std::vector<std::string>& v, const char* sep = ", ") {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : sep) + x;
  return s;
}

std::vector<std::string> method_ids() {
  std::vector<std::string> ids;
  for (const auto& t : integrators::rigid_body_methods()) ids.emplace_back(t.id);
  return ids;
}

const std::vector<std::string>& sections() {
  static const std::vector<std::string> v = {"model", "initial", "integrator", "output"};
  return v;
}
const std::vector<std::string>& quadratures() {
  static const std::vector<std::string> v = {"midpoint", "trapezoid"};
  return v;
}

/// Groups of keys of which at most one may be given. A `--set` of one member replaces the file's other
/// members.
const std::vector<std::vector<std::string>>& exclusive_groups() {
  static const std::vector<std::vector<std::string>> v = {
      {"integrator.dt", "integrator.h"}, {"initial.omega", "initial.M"}, {"model.alpha", "model.K"}};
  return v;
}

/// Keys only some methods read. `retraction` is read by every method whose stepper reports a retraction, the
/// tolerances by adaptive methods; these two are used only by `ddb-symmetric` (rigid-body-ddb spec §4).
const std::map<std::string, std::string>& keys_only_for() {
  static const std::map<std::string, std::string> v = {{"integrator.dissipation_quadrature", "ddb-symmetric"},
                                                       {"integrator.symmetric_processing", "ddb-symmetric"}};
  return v;
}

const SchemaEntry* find_entry(const std::string& key) {
  for (const auto& e : rigid_body_schema())
    if (e.key == key) return &e;
  return nullptr;
}

std::string canonical(const std::string& key) {
  const auto* e = find_entry(key);
  return (e && !e->alias_of.empty()) ? e->alias_of : key;
}

std::size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<std::size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j)
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] == b[j - 1] ? 0u : 1u)});
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

/// "unknown key; allowed in [integrator]: method, dt, ... (did you mean 'dt'?)"
std::string unknown_key_message(const std::string& key) {
  const auto dot = key.find('.');
  const std::string section = dot == std::string::npos ? key : key.substr(0, dot);
  if (std::find(sections().begin(), sections().end(), section) == sections().end() ||
      dot == std::string::npos) {
    return "unknown key; a rigid-body scenario has the sections [" + join(sections(), "], [") + "]";
  }
  std::vector<std::string> names;
  std::string best;
  std::size_t best_d = 3;  // suggest only close matches (edit distance <= 2)
  for (const auto& e : rigid_body_schema()) {
    if (e.key.rfind(section + ".", 0) != 0) continue;
    const std::string leaf = e.key.substr(section.size() + 1);
    names.push_back(leaf);
    const std::size_t d = edit_distance(leaf, key.substr(dot + 1));
    if (d < best_d) best_d = d, best = leaf;
  }
  std::string m = "unknown key; allowed in [" + section + "]: " + join(names);
  if (!best.empty()) m += " (did you mean '" + best + "'?)";
  return m;
}

// ---------------------------------------------------------------------------------------------------------------
// Stage 2: the resolver
// ---------------------------------------------------------------------------------------------------------------

class Resolver {
 public:
  Resolver(std::string file, std::map<std::string, RawEntry> entries, std::vector<InputIssue> issues)
      : file_(std::move(file)), entries_(std::move(entries)), issues_(std::move(issues)) {}

  void issue(const std::string& key, std::string message) {
    const auto it = entries_.find(key);
    issues_.push_back({it != entries_.end() ? it->second.origin : file_, key, std::move(message)});
  }
  [[nodiscard]] const RawValue* get(const std::string& key) const {
    const auto it = entries_.find(key);
    return it == entries_.end() ? nullptr : &it->second.value;
  }
  [[nodiscard]] bool has(const std::string& key) const { return entries_.count(key) != 0; }
  [[nodiscard]] std::vector<InputIssue>& issues() { return issues_; }
  [[nodiscard]] const std::map<std::string, RawEntry>& entries() const { return entries_; }

  void type_error(const std::string& key, const RawValue& v, ValueType t) {
    issue(key, "value " + v.text() + " has type " + v.kind_name() + "; expected " + type_name(t));
  }
  void missing(const std::string& key, const std::string& what) {
    const auto* e = find_entry(key);
    issues_.push_back({file_, key,
                       "missing required key; expected " + std::string(type_name(e->type)) +
                           (e->allowed.empty() ? "" : " (" + e->allowed + ")") + ": " + what});
  }

  /// A finite number, or nullopt (absent, or an issue was recorded).
  std::optional<double> number(const std::string& key) {
    const RawValue* v = get(key);
    if (!v) return std::nullopt;
    if (!v->is_number()) {
      type_error(key, *v, ValueType::number);
      return std::nullopt;
    }
    if (!std::isfinite(v->number())) {
      issue(key, "value " + v->text() + " must be a finite number");
      return std::nullopt;
    }
    return v->number();
  }
  std::optional<long long> integer(const std::string& key) {
    const RawValue* v = get(key);
    if (!v) return std::nullopt;
    if (v->kind != RawValue::Kind::integer) {
      // `--set output.every=2` arrives as a float; accept an exactly integral float there.
      if (v->kind == RawValue::Kind::floating && std::isfinite(v->d) && v->d == std::floor(v->d) &&
          std::abs(v->d) < 9e15)
        return static_cast<long long>(v->d);
      type_error(key, *v, ValueType::integer);
      return std::nullopt;
    }
    return v->i;
  }
  std::optional<bool> boolean(const std::string& key) {
    const RawValue* v = get(key);
    if (!v) return std::nullopt;
    if (v->kind != RawValue::Kind::boolean) {
      type_error(key, *v, ValueType::boolean);
      return std::nullopt;
    }
    return v->b;
  }
  std::optional<std::string> string(const std::string& key) {
    const RawValue* v = get(key);
    if (!v) return std::nullopt;
    if (v->kind != RawValue::Kind::string) {
      type_error(key, *v, ValueType::string);
      return std::nullopt;
    }
    return v->s;
  }
  /// A string that must be one of `allowed`.
  std::optional<std::string> choice(const std::string& key, const std::vector<std::string>& allowed,
                                    const char* what) {
    auto s = string(key);
    if (!s) return std::nullopt;
    if (std::find(allowed.begin(), allowed.end(), *s) == allowed.end()) {
      issue(key, "value \"" + *s + "\" is not " + what + "; allowed: " + join(allowed));
      return std::nullopt;
    }
    return s;
  }
  /// Array of exactly 3 finite numbers.
  static bool as_vec3(const RawValue& v, Vec3& out) {
    if (v.kind != RawValue::Kind::array || v.items.size() != 3) return false;
    for (int n = 0; n < 3; ++n) {
      if (!v.items[n].is_number() || !std::isfinite(v.items[n].number())) return false;
      out[n] = v.items[n].number();
    }
    return true;
  }
  static bool as_mat3(const RawValue& v, Mat3& out) {
    if (v.kind != RawValue::Kind::array || v.items.size() != 3) return false;
    for (int r = 0; r < 3; ++r) {
      Vec3 row;
      if (!as_vec3(v.items[r], row)) return false;
      out.row(r) = row.transpose();
    }
    return true;
  }
  std::optional<Vec3> vec3(const std::string& key) {
    const RawValue* v = get(key);
    if (!v) return std::nullopt;
    Vec3 x;
    if (!as_vec3(*v, x)) {
      issue(key, "value " + v->text() + " is not an array of 3 finite numbers");
      return std::nullopt;
    }
    return x;
  }
  std::optional<Mat3> mat3(const std::string& key) {
    const RawValue* v = get(key);
    if (!v) return std::nullopt;
    Mat3 A;
    if (!as_mat3(*v, A)) {
      issue(key, "value " + v->text() + " is not a 3x3 matrix (an array of 3 arrays of 3 finite numbers)");
      return std::nullopt;
    }
    return A;
  }

 private:
  std::string file_;
  std::map<std::string, RawEntry> entries_;
  std::vector<InputIssue> issues_;
};

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
  for (const auto& [key, entry] : r.entries()) s.given_keys.push_back(canonical(key));
  std::sort(s.given_keys.begin(), s.given_keys.end());

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
        const Mat3 Asym = 0.5 * (A + A.transpose());
        const double lmin =
            Eigen::SelfAdjointEigenSolver<Mat3>(Asym, Eigen::EigenvaluesOnly).eigenvalues()(0);
        if (!(lmin > 0.0) || Asym.llt().info() != Eigen::Success) {
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
      const Mat3 Ksym = 0.5 * (*K + K->transpose());
      const auto ev = Eigen::SelfAdjointEigenSolver<Mat3>(Ksym, Eigen::EigenvaluesOnly).eigenvalues();
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
    }
  } else {
    if (auto M = r.vec3("initial.M")) {
      s.M0 = *M;
      s.omega_given = false;
      if (inertia_ok) s.omega0 = s.inertia.inverse() * s.M0;
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
  double dt = 0.0, t_end = 0.0;
  bool dt_ok = false, t_end_ok = false;
  if (r.has("integrator.dt") && r.has("integrator.h")) {
    r.issue("integrator.h", "both integrator.dt and its alias integrator.h are given; give one");
  } else if (!r.has(dt_key)) {
    r.missing("integrator.dt", "the time step h (integrator.h is an alias)");
  } else if (const auto v = r.number(dt_key)) {
    dt = *v;
    dt_ok = dt > 0.0;
    if (!dt_ok) r.issue(dt_key, "value " + format_number(dt) + " must be > 0");
  }
  if (!r.has("integrator.t_end")) {
    r.missing("integrator.t_end", "the final time");
  } else if (const auto v = r.number("integrator.t_end")) {
    t_end = *v;
    t_end_ok = t_end > 0.0;
    if (!t_end_ok) r.issue("integrator.t_end", "value " + format_number(t_end) + " must be > 0");
  }
  if (dt_ok && t_end_ok) {
    s.dt = dt;
    s.t_end = t_end;
    const double ratio = t_end / dt;
    // Our choice (docs/scenarios.md): t_end must be N dt within 1e-9 relative, so that t_N = t_end and no
    // shortened last step changes the method.
    const double N = std::round(ratio);
    if (!(ratio < 1e12)) {
      r.issue(dt_key, "value " + format_number(dt) + " gives " + format_number(ratio) +
                          " steps to t_end = " + format_number(t_end) + "; at most 1e12 steps are allowed");
    } else if (N < 1.0 || std::abs(N * dt - t_end) > 1e-9 * t_end) {
      const double n_lo = std::max(1.0, std::floor(ratio)), n_hi = std::max(1.0, std::ceil(ratio));
      std::string suggestion = "dt = " + format_number(t_end / n_lo) + " (N = " + format_number(n_lo) + ")";
      if (n_hi != n_lo)
        suggestion += " or dt = " + format_number(t_end / n_hi) + " (N = " + format_number(n_hi) + ")";
      r.issue(dt_key, "value " + format_number(dt) + " does not divide t_end = " + format_number(t_end) +
                          " into an integer number of steps (within 1e-9 relative); use dt = t_end/N, e.g. " +
                          suggestion);
    } else {
      s.steps = static_cast<long long>(N);
    }
  }
  for (const char* key : {"integrator.rtol", "integrator.atol"}) {
    if (auto v = r.number(key)) {
      if (*v <= 0.0) r.issue(key, "value " + format_number(*v) + " must be > 0");
      (std::string(key) == "integrator.rtol" ? s.rtol : s.atol) = *v;
    }
  }

  // --- output ---
  if (auto e = r.integer("output.every")) {
    if (*e < 1) r.issue("output.every", "value " + std::to_string(*e) + " must be >= 1");
    s.every = *e;
  }
  if (auto p = r.boolean("output.plots")) s.plots = *p;
  return s;
}

/// Flatten a TOML document into entries; records unknown sections/keys and non-table sections as issues.
void flatten(const toml::table& root, const std::string& file, std::map<std::string, RawEntry>& entries,
             std::vector<InputIssue>& issues) {
  for (const auto& [k, node] : root) {
    const std::string section(k.str());
    const auto* tbl = node.as_table();
    if (!tbl) {
      if (std::find(sections().begin(), sections().end(), section) != sections().end())
        issues.push_back({file, section, "must be a table ([" + section + "])"});
      else
        issues.push_back({file, section, unknown_key_message(section)});
      continue;
    }
    for (const auto& [k2, node2] : *tbl) {
      const std::string key = section + "." + std::string(k2.str());
      if (!find_entry(key)) {
        issues.push_back({file, key, unknown_key_message(key)});
        continue;
      }
      entries[key] = {from_node(node2), file};
    }
    if (tbl->empty() && std::find(sections().begin(), sections().end(), section) == sections().end())
      issues.push_back({file, section, unknown_key_message(section)});
  }
}

/// Apply `--set key=value` overrides, converting by the key's schema type.
void apply_overrides(const std::vector<std::string>& overrides, std::map<std::string, RawEntry>& entries,
                     std::vector<InputIssue>& issues) {
  const std::string origin = "--set";
  std::set<std::string> set_keys;
  for (const auto& o : overrides) {
    const auto eq = o.find('=');
    if (eq == std::string::npos) {
      issues.push_back({origin, "", "expected key=value, got '" + o + "'"});
      continue;
    }
    const std::string key = trim(o.substr(0, eq)), text = trim(o.substr(eq + 1));
    const SchemaEntry* e = find_entry(key);
    if (!e) {
      issues.push_back({origin, key, unknown_key_message(key)});
      continue;
    }
    RawValue v;
    bool ok = true;
    switch (e->type) {
      case ValueType::string:
        v.kind = RawValue::Kind::string;
        v.s = text;
        if (v.s.size() >= 2 && (v.s.front() == '"' || v.s.front() == '\'') && v.s.back() == v.s.front())
          v.s = v.s.substr(1, v.s.size() - 2);
        break;
      case ValueType::boolean:
        v.kind = RawValue::Kind::boolean;
        ok = text == "true" || text == "false";
        v.b = text == "true";
        break;
      case ValueType::integer: {
        v.kind = RawValue::Kind::integer;
        const auto res = std::from_chars(text.data(), text.data() + text.size(), v.i);
        ok = res.ec == std::errc() && res.ptr == text.data() + text.size();
        break;
      }
      case ValueType::number: {
        const auto d = parse_double(text);
        ok = d.has_value();
        v.kind = RawValue::Kind::floating;
        v.d = d.value_or(0.0);
        break;
      }
      case ValueType::vec3:
      case ValueType::mat3:
      case ValueType::vec3_or_mat3: {
        std::size_t pos = 0;
        ok = parse_array(text, pos, v) && trim(text.substr(pos)).empty();
        break;
      }
    }
    if (!ok) {
      issues.push_back({origin, key, "value '" + text + "' does not convert to " + type_name(e->type)});
      continue;
    }
    // A --set of one member of an exclusive group replaces the file's other members (e.g. h replaces dt).
    for (const auto& group : exclusive_groups()) {
      if (std::find(group.begin(), group.end(), key) == group.end()) continue;
      for (const auto& other : group) {
        const auto it = entries.find(other);
        if (other != key && it != entries.end() && it->second.origin != origin) entries.erase(it);
      }
    }
    if (!set_keys.insert(key).second) {
      issues.push_back({origin, key, "given twice in --set"});
      continue;
    }
    entries[key] = {std::move(v), origin};
  }
}

RigidBodyScenario finish(const std::string& file, const std::string& name, const std::string& source,
                         std::map<std::string, RawEntry> entries, std::vector<InputIssue> issues) {
  Resolver r(file, std::move(entries), std::move(issues));
  RigidBodyScenario s = resolve(r, name, source);
  if (!r.issues().empty()) throw invalid_argument(std::move(r.issues()));
  return s;
}

RigidBodyScenario parse_impl(const std::string& text, const std::string& file, const std::string& name,
                             const std::string& source, const std::vector<std::string>& overrides) {
  toml::table root;
  try {
    root = toml::parse(text, file);
  } catch (const toml::parse_error& e) {
    const auto& b = e.source().begin;
    throw invalid_argument(file, "",
                           "TOML syntax error at line " + std::to_string(b.line) + ", column " +
                               std::to_string(b.column) + ": " + std::string(e.description()));
  }
  std::map<std::string, RawEntry> entries;
  std::vector<InputIssue> issues;
  flatten(root, file, entries, issues);
  apply_overrides(overrides, entries, issues);
  return finish(file, name, source, std::move(entries), std::move(issues));
}

std::string toml_string(const std::string& s) {
  std::string t = "\"";
  for (const char c : s) {
    if (c == '"' || c == '\\') t += '\\';
    t += c;
  }
  return t + "\"";
}

std::string value_toml(const ScenarioValue& v) {
  struct V {
    std::string operator()(const std::string& s) const { return toml_string(s); }
    std::string operator()(double x) const { return format_number(x, true); }
    std::string operator()(long long i) const { return std::to_string(i); }
    std::string operator()(bool b) const { return b ? "true" : "false"; }
    std::string operator()(const std::vector<double>& x) const {
      std::string t = "[";
      for (std::size_t n = 0; n < x.size(); ++n) t += (n ? ", " : "") + format_number(x[n], true);
      return t + "]";
    }
    std::string operator()(const std::vector<std::vector<double>>& A) const {
      std::string t = "[";
      for (std::size_t n = 0; n < A.size(); ++n) t += (n ? ", " : "") + (*this)(A[n]);
      return t + "]";
    }
  };
  return std::visit(V{}, v);
}

std::vector<double> vec(const Vec3& x) {
  return {x[0], x[1], x[2]};
}
std::vector<std::vector<double>> mat(const Mat3& A) {
  return {vec(A.row(0)), vec(A.row(1)), vec(A.row(2))};
}

}  // namespace

// -------------------------------------------------------------------------------------------------------------
// Public API
// -------------------------------------------------------------------------------------------------------------

const char* type_name(ValueType t) {
  switch (t) {
    case ValueType::string:
      return "a string";
    case ValueType::number:
      return "a number";
    case ValueType::integer:
      return "an integer";
    case ValueType::boolean:
      return "a boolean (true or false)";
    case ValueType::vec3:
      return "an array of 3 numbers";
    case ValueType::mat3:
      return "a 3x3 matrix (array of 3 arrays of 3 numbers)";
    case ValueType::vec3_or_mat3:
      return "an array of 3 numbers or a 3x3 matrix";
  }
  return "?";
}

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
         "> 0, t_end/dt an integer within 1e-9 relative", "time step h", ""},
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
        {"output.every", ValueType::integer, "optional", "1", "steps", ">= 1",
         "write a row of series.csv every `every` steps (t = 0 and t = t_end always)", ""},
        {"output.plots", ValueType::boolean, "optional", "true", "", "true, false",
         "make casimir_energy.png and trajectory.png (python3 + matplotlib)", ""},
    };
  }();
  return schema;
}

std::string schema_markdown() {
  auto cell = [](const std::string& s) {
    std::string t;
    for (const char c : s) t += c == '|' ? std::string("\\|") : std::string(1, c);
    return t.empty() ? std::string("—") : t;
  };
  std::string md = "| key | type | required | default | unit | allowed | meaning |\n";
  md += "|---|---|---|---|---|---|---|\n";
  for (const auto& e : rigid_body_schema()) {
    md += "| `" + e.key + "` | " + cell(type_name(e.type)) + " | " + cell(e.requirement) + " | " +
          (e.default_text.empty() ? std::string("—") : "`" + e.default_text + "`") + " | " + cell(e.unit) +
          " | " + cell(e.allowed) + " | " + cell(e.doc) + " |\n";
  }
  return md;
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
  std::ifstream in(path, std::ios::binary);
  std::error_code ec;
  if (!in || std::filesystem::is_directory(path, ec)) {
    throw invalid_argument(file, "", "cannot read the scenario file (missing or not a regular file)");
  }
  std::ostringstream ss;
  ss << in.rdbuf();
  return parse_impl(ss.str(), file, path.stem().string(), file, overrides);
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
  std::string t = "# lievi: resolved scenario '" + s.name + "'" +
                  (s.source.empty() ? "" : " from " + s.source) + "\n# " + std::to_string(s.steps) +
                  " steps of dt = " + format_number(s.dt) +
                  " from t = 0 to t_end = " + format_number(s.t_end) + "\n";
  for (const auto& n : notes) t += "# note: " + n + "\n";
  std::string section;
  for (const auto& e : resolved_entries(s)) {
    const auto dot = e.key.find('.');
    const std::string sec = e.key.substr(0, dot), leaf = e.key.substr(dot + 1);
    if (sec != section) {
      t += "\n[" + sec + "]\n";
      section = sec;
    }
    std::string line = leaf + " = " + value_toml(e.value);
    std::string comment;
    if (e.is_default) comment = "default";
    if (e.key == "initial.omega") comment = "M_0 = " + value_toml(vec(s.M0));
    if (e.key == "initial.M") comment = "Omega_0 = " + value_toml(vec(s.omega0));
    for (const auto& n : notes)
      if (n.find("'" + e.key + "'") != std::string::npos)
        comment += (comment.empty() ? "" : "; ") + std::string("ignored by ") + s.method;
    if (!comment.empty()) {
      if (line.size() < 40) line.resize(40, ' ');
      line += "  # " + comment;
    }
    t += line + "\n";
  }
  return t;
}

std::string format_number(double x, bool toml_float) {
  if (std::isnan(x)) return "nan";
  if (std::isinf(x)) return x > 0 ? "inf" : "-inf";
  char buf[64];
  const auto res = std::to_chars(buf, buf + sizeof buf, x);
  std::string s(buf, res.ptr);
  if (toml_float && s.find_first_of(".eE") == std::string::npos) s += ".0";
  return s;
}

}  // namespace lievi::io
