#pragma once
/// @file src/io/key_table.hpp
/// @brief Internal: the declarative key tables of the scenario formats and the engine that reads them.
///
/// A model's scenario keys are written once, as a table of `Key<Config>`: the dotted key, its documentation
/// (type, requirement, default, unit, allowed values, one line of text), how it is read into the typed
/// configuration (a member and a check), how its resolved value is shown, and when it applies. From the table
/// the engine derives the schema (unknown-key detection, `--set` conversion, `lievi schema` and the key tables
/// of docs/scenarios.md), the reading of a file (every issue collected by the Resolver, messages naming file,
/// key, value and what is allowed) and the resolved printout (`lievi validate`, summary.json). Rules that tie
/// several keys stay in the model's own code.
///
/// Defaults are the initial values of the configuration's members: `C{}` is the configuration with every
/// default, and the documented default text is derived from it unless a key states its own (a derived
/// default such as "alpha Id").
#include <cmath>
#include <limits>
#include <functional>
#include <initializer_list>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "lievi/build/output.hpp"
#include "lievi/config/beam.hpp"
#include "lievi/config/rigid_body.hpp"
#include "lievi/config/wave.hpp"
#include "lievi/io/memory_estimate.hpp"
#include "scenario_reader.hpp"

namespace lievi::io::detail {

/// The allowed values of a number key.
enum class NumberCheck { finite, positive, nonnegative };

/// One key of a table over the configuration type C.
template <class C>
struct Key {
  SchemaEntry entry;  ///< what the schema, the docs and the messages show
  /// Reads the key (when given) into the configuration, checked; null for an alias, read with its key.
  std::function<void(Resolver&, C&)> read;
  /// The resolved value; null for an alias (never printed).
  std::function<ScenarioValue(const C&)> value;
  /// The problem of the configuration's value (a C++-built config, `KeyTable::problems`), or nullopt; the
  /// reader runs the same check on what it read.
  std::function<std::optional<std::string>(const C&)> check;
  /// Whether the key applies to the configuration; a key that does not is printed only when given.
  std::function<bool(const C&)> applies;
  /// Why a given key that does not apply is ignored ("with noise.mode = \"none\""), for its note.
  std::function<std::string(const C&)> why;
  /// The resolved entries of an array of tables (`loads[0].node`, ...), printed at this key's place; set
  /// on the first key of the array's schema entries.
  std::function<std::vector<ResolvedEntry>(const C&, const std::function<bool(const std::string&)>&)> expand;
  /// Printed as "# default" when not given (false for required keys and values derived from others).
  bool defaultable = true;

  Key& unit(std::string u) { entry.unit = std::move(u); return *this; }
  Key& doc(std::string d) { entry.doc = std::move(d); return *this; }
  Key& allowed(std::string a) { entry.allowed = std::move(a); return *this; }
  Key& requirement(std::string q) { entry.requirement = std::move(q); return *this; }
  Key& default_text(std::string t) { entry.default_text = std::move(t); return *this; }
  Key& when(std::function<bool(const C&)> f, std::function<std::string(const C&)> reason = nullptr) {
    applies = std::move(f);
    why = std::move(reason);
    return *this;
  }
  Key& no_default() { defaultable = false; return *this; }
  Key& checked(std::function<std::optional<std::string>(const C&)> f) { check = std::move(f); return *this; }
  /// A required key: absent, it is the issue "missing required key; expected <type> (<allowed>): <what>".
  Key& required(std::string what) {
    entry.requirement = "required";
    entry.default_text.clear();
    defaultable = false;
    read = [key = entry.key, what = std::move(what), read = std::move(read)](Resolver& r, C& c) {
      if (!r.has(key)) r.missing(key, what);
      read(r, c);
    };
    return *this;
  }
};

/// The message of a number outside its check ("value -1 must be >= 0"), or nullopt.
inline std::optional<std::string> number_problem(double x, NumberCheck check) {
  if (!std::isfinite(x)) return "value " + format_number(x) + " must be a finite number";
  if (check == NumberCheck::positive && !(x > 0.0)) return "value " + format_number(x) + " must be > 0";
  if (check == NumberCheck::nonnegative && x < 0.0) return "value " + format_number(x) + " must be >= 0";
  return std::nullopt;
}

/// The message of an integer outside [lo, hi] ("value 0 must be >= 1", "value 7 must be in [1, 5]"), or nullopt.
inline std::optional<std::string> integer_problem(long long i, long long lo, long long hi) {
  if (i < lo) return "value " + std::to_string(i) + " must be >= " + std::to_string(lo);
  if (i > hi) return "value " + std::to_string(i) + " must be in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]";
  return std::nullopt;
}

/// A number checked by `problem` (the message of a bad value, or nullopt); `allowed` is its documentation.
template <class C>
Key<C> number_key_with(std::string key, double C::*m, std::string allowed,
                       std::function<std::optional<std::string>(double)> problem) {
  Key<C> k;
  k.entry = {key, ValueType::number, "optional", format_number(C{}.*m, true), "", std::move(allowed), "", ""};
  k.check = [m, problem](const C& c) -> std::optional<std::string> {
    if (!std::isfinite(c.*m)) return "value " + format_number(c.*m) + " must be a finite number";
    return problem(c.*m);
  };
  k.read = [key, m, problem](Resolver& r, C& c) {
    if (auto v = r.number(key)) {
      c.*m = *v;
      if (auto p = problem(*v)) r.issue(key, *p);
    }
  };
  k.value = [m](const C& c) { return ScenarioValue(c.*m); };
  return k;
}

/// A number: finite, > 0 or >= 0; `why` completes the message of a value outside ("a damping rate in 1/s").
template <class C>
Key<C> number_key(std::string key, double C::*m, NumberCheck check = NumberCheck::finite, std::string why = "") {
  return number_key_with<C>(
      std::move(key), m, check == NumberCheck::positive ? "> 0" : check == NumberCheck::nonnegative ? ">= 0" : "finite",
      [check, why](double x) -> std::optional<std::string> {
        auto p = number_problem(x, check);
        if (p && !why.empty()) *p += " (" + why + ")";
        return p;
      });
}

/// N finite numbers (N = 3 or 6), stored as an array.
template <class C, std::size_t N>
Key<C> array_key(std::string key, std::array<double, N> C::*m) {
  static_assert(N == 3 || N == 6);
  Key<C> k;
  const C defaults{};
  const std::vector<double> d((defaults.*m).begin(), (defaults.*m).end());
  k.entry = {key, N == 3 ? ValueType::vec3 : ValueType::vec6, "optional", value_toml(d), "", "finite", "", ""};
  k.check = [m](const C& c) -> std::optional<std::string> {
    for (double x : c.*m)
      if (!std::isfinite(x)) return "value " + value_toml(std::vector<double>((c.*m).begin(), (c.*m).end())) +
                                    " must be finite";
    return std::nullopt;
  };
  k.read = [key, m](Resolver& r, C& c) {
    if constexpr (N == 3) {
      if (auto v = r.vec3(key)) c.*m = {(*v)[0], (*v)[1], (*v)[2]};
    } else {
      if (auto v = r.vec6(key)) c.*m = *v;
    }
  };
  k.value = [m](const C& c) { return ScenarioValue(std::vector<double>((c.*m).begin(), (c.*m).end())); };
  return k;
}

/// The problem of a rotation given as a quaternion (qw, qx, qy, qz), or nullopt: |q| = 1 within 1e-9.
inline std::optional<std::string> quaternion_problem(const std::array<double, 4>& q) {
  const double norm = std::sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
  if (std::abs(norm - 1.0) <= 1e-9) return std::nullopt;
  return "value " + value_toml(std::vector<double>(q.begin(), q.end())) + " has norm " + format_number(norm) +
         "; expected a unit quaternion (qw, qx, qy, qz), |q| = 1 within 1e-9 (Hamilton convention, body to spatial)";
}

/// A rotation as a unit quaternion (qw, qx, qy, qz), Hamilton convention, body to spatial; stored divided
/// by its norm and with qw >= 0 (q and -q are the same rotation).
template <class C>
Key<C> quaternion_key(std::string key, std::array<double, 4> C::*m) {
  Key<C> k;
  const C defaults{};
  const std::vector<double> d((defaults.*m).begin(), (defaults.*m).end());
  k.entry = {key, ValueType::quaternion, "optional", value_toml(d), "", "|q| = 1 within 1e-9", "", ""};
  k.check = [m](const C& c) { return quaternion_problem(c.*m); };
  k.read = [key, m](Resolver& r, C& c) {
    const auto v = r.number_array(key);
    if (!v) return;
    if (v->size() != 4) {
      r.issue(key, "value " + r.get(key)->text() + " has " + std::to_string(v->size()) +
                       " numbers; expected 4 (qw, qx, qy, qz)");
      return;
    }
    std::array<double, 4> q{(*v)[0], (*v)[1], (*v)[2], (*v)[3]};
    if (auto p = quaternion_problem(q)) {
      r.issue(key, *p);
      return;
    }
    // Divided by the norm unless that is 1 within 4 ulps: dividing again is not idempotent (a normalised q
    // divided by its own rounded norm can move by an ulp), and the resolved printout must read back to the same
    // value; a q within 4 ulps of unit length is as unit as division can make it.
    const double norm = std::sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    const double sign = q[0] < 0.0 ? -1.0 : 1.0;
    const double scale = std::abs(norm - 1.0) <= 4.0 * std::numeric_limits<double>::epsilon() ? sign : sign / norm;
    for (double& x : q) x *= scale;
    c.*m = q;
  };
  k.value = [m](const C& c) { return ScenarioValue(std::vector<double>((c.*m).begin(), (c.*m).end())); };
  return k;
}

/// A rule between keys, run where it stands in the table's reading order (no schema entry).
template <class C>
Key<C> rule(std::function<void(Resolver&, C&)> f) {
  Key<C> k;
  k.read = std::move(f);
  return k;
}

/// A schema entry read by a rule (the keys of an array of tables, keys read with others).
template <class C>
Key<C> entry_only(SchemaEntry e) {
  Key<C> k;
  k.entry = std::move(e);
  return k;
}

/// An integer in [lo, hi] (a float is refused, an integral `--set` value accepted).
template <class C>
Key<C> integer_key(std::string key, long long C::*m, long long lo, long long hi) {
  Key<C> k;
  k.entry = {key, ValueType::integer, "optional", std::to_string(C{}.*m), "",
             std::to_string(lo) + " ... " + std::to_string(hi), "", ""};
  k.check = [m, lo, hi](const C& c) { return integer_problem(c.*m, lo, hi); };
  k.read = [key, m, lo, hi](Resolver& r, C& c) {
    if (auto v = r.integer(key)) {
      if (auto p = integer_problem(*v, lo, hi)) r.issue(key, *p);
      else c.*m = *v;
    }
  };
  k.value = [m](const C& c) { return ScenarioValue(c.*m); };
  return k;
}

/// output.every: a row of series.csv every `every` steps, 1 ... 1e12.
template <class C>
Key<C> every_key(std::string doc = "write a row of series.csv every `every` steps (t = 0 and t = t_end always)") {
  return integer_key<C>("output.every", &C::every, 1, limits::kMaxSteps).unit("steps").doc(std::move(doc));
}

/// output.checkpoint_every and output.checkpoint_wall: checkpoint.h5 every so many steps and/or seconds of
/// wall time (0: never by that rule; either set: also one at the last step), for `lievi resume`.
template <class C>
std::vector<Key<C>> checkpoint_keys() {
  std::vector<Key<C>> k;
  k.push_back(integer_key<C>("output.checkpoint_every", &C::checkpoint_every, 0, limits::kMaxSteps)
                  .unit("steps")
                  .doc("write checkpoint.h5 every so many steps (0: not by steps); with either checkpoint key set the "
                       "run writes in place in its folder and `lievi resume` continues it bit for bit"));
  k.push_back(number_key<C>("output.checkpoint_wall", &C::checkpoint_wall, NumberCheck::nonnegative)
                  .unit("s")
                  .doc("write checkpoint.h5 when this much wall time has passed since the last one (0: not by time)"));
  return k;
}

/// output.quantiles of a field model: ensembles' quantiles across the paths, numbers in [0, 1], at most
/// limits::kMaxQuantiles, strictly increasing.
template <class C>
Key<C> quantiles_key() {
  constexpr const char* key = "output.quantiles";
  const auto problem = [](const std::vector<double>& v) -> std::optional<std::string> {
    if (v.size() > 99) return "value " + value_toml(v).substr(0, 80) + " has more than 99 quantiles";
    for (std::size_t i = 0; i < v.size(); ++i)
      if (!(v[i] >= 0.0 && v[i] <= 1.0) || (i > 0 && !(v[i] > v[i - 1])))
        return "value " + value_toml(v).substr(0, 80) + " must be numbers in [0, 1], strictly increasing";
    return std::nullopt;
  };
  return custom_key<C>(
             key, ValueType::number_array,
             [problem](Resolver& r, C& c) {
               if (auto v = r.number_array(key)) {
                 if (const auto p = problem(*v)) r.issue(key, *p);
                 else c.quantiles = *v;
               }
             },
             [](const C& c) { return ScenarioValue(c.quantiles); })
      .default_text("[]")
      .checked([problem](const C& c) { return problem(c.quantiles); })
      .allowed("at most 99 numbers in [0, 1], strictly increasing")
      .doc("ensembles (--paths N): write series_q<q>.csv, the q-quantile of every series column across the paths "
           "(numpy's default, linear), and series_paths.npy");
}

/// output.fields_every of a field model: a snapshot every `fields_every` steps; when not given, every raised
/// to at most 1000 snapshots (build::default_fields_every).
template <class C>
Key<C> fields_every_key(std::string doc) {
  auto k = integer_key<C>("output.fields_every", &C::fields_every, 1, limits::kMaxSteps)
               .default_text("every, raised to <= 1000 snapshots")
               .unit("steps")
               .doc(std::move(doc));
  k.read = [read = k.read](Resolver& r, C& c) {
    read(r, c);
    if (!r.has("output.fields_every") && c.steps > 0) c.fields_every = build::default_fields_every(c.steps, c.every);
  };
  return k;
}

/// true or false.
template <class C>
Key<C> boolean_key(std::string key, bool C::*m) {
  Key<C> k;
  k.entry = {key, ValueType::boolean, "optional", C{}.*m ? "true" : "false", "", "true, false", "", ""};
  k.read = [key, m](Resolver& r, C& c) {
    if (auto v = r.boolean(key)) c.*m = *v;
  };
  k.value = [m](const C& c) { return ScenarioValue(c.*m); };
  return k;
}

/// The names of an enumeration's values, in the order the docs list them.
template <class E>
using Names = std::vector<std::pair<std::string, E>>;

/// The names of `values` as the configuration's `id` writes them.
template <class E>
Names<E> names_of(std::initializer_list<E> values) {
  Names<E> n;
  for (E v : values) n.emplace_back(config::id(v), v);
  return n;
}

/// The name of `e` in `names` ("" when absent).
template <class E>
std::string name_of(const Names<E>& names, E e) {
  for (const auto& [n, v] : names)
    if (v == e) return n;
  return "";
}

/// The names alone, for messages and the allowed column.
template <class E>
std::vector<std::string> name_list(const Names<E>& names) {
  std::vector<std::string> v;
  for (const auto& [n, e] : names) v.push_back(n);
  return v;
}

/// One of a set of names, stored as the enumeration value; `what` completes "value \"x\" is not <what>".
template <class C, class E>
Key<C> choice_key(std::string key, E C::*m, Names<E> names, std::string what) {
  Key<C> k;
  k.entry = {key, ValueType::string, "optional", toml_string(name_of(names, C{}.*m)), "", join(name_list(names)), "",
             ""};
  k.read = [key, m, names, what](Resolver& r, C& c) {
    if (auto v = r.choice(key, name_list(names), what.c_str()))
      for (const auto& [n, e] : names)
        if (n == *v) c.*m = e;
  };
  k.check = [m, names, what](const C& c) -> std::optional<std::string> {
    if (!name_of(names, c.*m).empty()) return std::nullopt;
    return "value " + std::to_string(static_cast<long long>(c.*m)) + " is not " + what + "; allowed: " +
           join(name_list(names));
  };
  k.value = [m, names](const C& c) { return ScenarioValue(name_of(names, c.*m)); };
  return k;
}

/// A key whose reading and value are written by hand (shapes the typed keys do not cover).
template <class C>
Key<C> custom_key(std::string key, ValueType type, std::function<void(Resolver&, C&)> read,
                  std::function<ScenarioValue(const C&)> value) {
  Key<C> k;
  k.entry = {std::move(key), type, "optional", "", "", "", "", ""};
  k.read = std::move(read);
  k.value = std::move(value);
  return k;
}

/// model.type of a format: required, and the one type `name` this format reads (the dispatch on model.type
/// chose it).
template <class C>
Key<C> model_type_key(const std::string& name) {
  return custom_key<C>(
             "model.type", ValueType::string,
             [name](Resolver& r, C&) { r.choice("model.type", {name}, "a model this scenario format supports"); },
             [name](const C&) { return ScenarioValue(name); })
      .allowed(name)
      .doc("the model")
      .required("the model, \"" + name + "\"");
}

/// integrator.dt of a format whose time grid is read with integrator.t_end (read there).
template <class C>
Key<C> dt_key(std::string requirement, std::string doc) {
  return custom_key<C>("integrator.dt", ValueType::number, nullptr, [](const C& c) { return ScenarioValue(c.dt); })
      .requirement(std::move(requirement))
      .unit("s")
      .allowed("> 0, t_end/dt an integer N < 1e12 within 1e-9 relative")
      .doc(std::move(doc))
      .no_default();
}

/// integrator.t_end; `read` reads the time grid (the step, t_end, the step count).
template <class C>
Key<C> t_end_key(std::function<void(Resolver&, C&)> read) {
  return custom_key<C>("integrator.t_end", ValueType::number, std::move(read),
                       [](const C& c) { return ScenarioValue(c.t_end); })
      .requirement("required")
      .unit("s")
      .allowed("> 0")
      .doc("final time (the run starts at t = 0)")
      .no_default();
}

/// The problems of a configuration's time grid (dt > 0, t_end > 0, t_end = steps dt within 1e-9 relative).
inline std::vector<InputIssue> time_grid_problems(double dt, double t_end, long long steps) {
  std::vector<InputIssue> out;
  if (!(dt > 0.0) || !std::isfinite(dt)) out.push_back({"", "integrator.dt", "value " + format_number(dt) + " must be > 0"});
  if (!(t_end > 0.0) || !std::isfinite(t_end))
    out.push_back({"", "integrator.t_end", "value " + format_number(t_end) + " must be > 0"});
  else if (dt > 0.0 && (steps < 1 || steps > limits::kMaxSteps ||
                        std::abs(static_cast<double>(steps) * dt - t_end) > 1e-9 * t_end))
    out.push_back({"", "integrator.t_end", "value " + format_number(t_end) + " is not steps * dt = " +
                                               std::to_string(steps) + " * " + format_number(dt) +
                                               " within 1e-9 relative"});
  return out;
}

/// "field has 3 entries; expected n" for a per-node (per-segment, ...) array of a configuration, or nullopt.
inline std::optional<std::string> count_problem(std::size_t have, long long expected, const std::string& what) {
  if (static_cast<long long>(have) == expected) return std::nullopt;
  return "has " + std::to_string(have) + " entries; expected " + std::to_string(expected) + " (" + what + ")";
}

/// The problem of output.probes of a configuration (the first node outside [0, n)), or nullopt.
inline std::optional<std::string> probes_problem(const std::vector<long long>& probes, long long n,
                                                 const std::string& nodes) {
  for (const long long j : probes)
    if (j < 0 || j >= n) return "has node " + std::to_string(j) + " outside [0, " + std::to_string(n) + "); " + nodes;
  return std::nullopt;
}

/// The comments of a resolved entry in the printout: the "ignored ..." part of each note that names its key.
inline std::vector<std::string> note_comments(const std::vector<std::string>& notes, const ResolvedEntry& e) {
  std::vector<std::string> c;
  for (const auto& n : notes)
    if (n.find("'" + e.key + "'") != std::string::npos) c.push_back(n.substr(n.find("ignored")));
  return c;
}

/// Whether an issue was recorded on one of `keys` since the reading began.
inline bool has_issue(Resolver& r, std::initializer_list<const char*> keys) {
  for (const auto& i : r.issues())
    for (const char* k : keys)
      if (i.key == k) return true;
  return false;
}

/// The noise stream keys of a field model (noise.seed, noise.path, noise.base_dt, noise.truncate), applying
/// with `applies` (ignored with `why`); `read` runs at noise.seed and reads them all, with the model's rules of
/// its noise.
template <class C>
std::vector<Key<C>> noise_stream_keys(std::function<void(Resolver&, C&)> read, std::function<bool(const C&)> applies,
                                      std::function<std::string(const C&)> why = nullptr) {
  std::vector<Key<C>> out;
  for (const SchemaEntry& e : noise_stream_entries()) {
    Key<C> key;
    key.entry = e;
    key.applies = applies;
    key.why = why;
    if (e.key == "noise.seed") {
      key.read = read;
      key.value = [](const C& c) { return ScenarioValue(static_cast<long long>(c.seed)); };
    } else if (e.key == "noise.path") {
      key.value = [](const C& c) { return ScenarioValue(static_cast<long long>(c.path)); };
    } else if (e.key == "noise.base_dt") {
      key.value = [](const C& c) { return ScenarioValue(c.base_dt); };
    } else {
      key.value = [](const C& c) { return ScenarioValue(c.truncate); };
    }
    out.push_back(std::move(key));
  }
  return out;
}

/// An alias of another key (read and printed under that key's name).
template <class C>
Key<C> alias_key(std::string key, ValueType type, std::string of) {
  Key<C> k;
  k.entry = {std::move(key), type, "alias of " + of, "", "", "as " + of, "", of};
  return k;
}

/// A model's table: its keys in documentation order.
template <class C>
class KeyTable {
 public:
  explicit KeyTable(std::vector<Key<C>> keys) : keys_(std::move(keys)) {
    for (const auto& k : keys_)
      if (!k.entry.key.empty()) schema_.push_back(k.entry);
  }
  [[nodiscard]] const std::vector<Key<C>>& keys() const { return keys_; }
  /// The schema entries, in documentation order (Schema::entries, `lievi schema`, docs/scenarios.md).
  [[nodiscard]] const std::vector<SchemaEntry>& schema() const { return schema_; }
  /// The key `key`, or nullptr.
  [[nodiscard]] const Key<C>* find(const std::string& key) const {
    for (const auto& k : keys_)
      if (!k.entry.key.empty() && k.entry.key == key) return &k;
    return nullptr;
  }
  /// Read every key of the table into `c` (issues collected in `r`).
  void read(Resolver& r, C& c) const {
    for (const auto& k : keys_)
      if (k.read) k.read(r, c);
  }
  /// The problems of a configuration built in C++: every check of a key that applies, as issues without a
  /// file (the key names the field).
  [[nodiscard]] std::vector<InputIssue> problems(const C& c) const {
    std::vector<InputIssue> out;
    for (const auto& k : keys_)
      if (k.check && (!k.applies || k.applies(c)))
        if (auto p = k.check(c)) out.push_back({"", k.entry.key, *p});
    return out;
  }
  /// The resolved entries in table order: every key that applies, and every key given; an entry is marked
  /// default when it was not given and the key has a default.
  [[nodiscard]] std::vector<ResolvedEntry> resolved(const C& c,
                                                    const std::function<bool(const std::string&)>& given) const {
    std::vector<ResolvedEntry> out;
    for (const auto& k : keys_) {
      if (k.expand)
        for (auto& e : k.expand(c, given)) out.push_back(std::move(e));
      if (!k.value) continue;
      const bool is_given = given(k.entry.key);
      if (!is_given && k.applies && !k.applies(c)) continue;
      out.push_back({k.entry.key, k.value(c), k.defaultable && !is_given});
    }
    return out;
  }
  /// "key 'k' is ignored <why>" for every key given that does not apply and has a reason.
  [[nodiscard]] std::vector<std::string> ignored_notes(const C& c,
                                                       const std::function<bool(const std::string&)>& given) const {
    std::vector<std::string> out;
    for (const auto& k : keys_)
      if (k.why && k.applies && given(k.entry.key) && !k.applies(c))
        out.push_back("key '" + k.entry.key + "' is ignored " + k.why(c));
    return out;
  }

 private:
  std::vector<Key<C>> keys_;
  std::vector<SchemaEntry> schema_;
};

}  // namespace lievi::io::detail
