/// @file src/io/wave_scenario.cpp
/// @brief The wave scenario (`model.type = "wave"`): schema, validation of every key, initial data (built-in
/// shapes or a CSV file), resolved printout; and the dispatch of any scenario file on its `model.type`.
/// The reading machinery is scenario_reader.cpp, shared with the rigid body.
#include "lievi/io/wave_scenario.hpp"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <limits>
#include <numbers>
#include <sstream>
#include <stdexcept>

#include "lievi/core/error.hpp"
#include "lievi/io/memory_estimate.hpp"
#include "scenario_reader.hpp"

namespace lievi::io {
namespace detail {
/// An integer in [lo, hi]: below lo "value 0 must be >= 1" (as before the upper bounds), above hi "value ...
/// must be in [lo, hi]" (beam_scenario.cpp).
std::optional<long long> integer_bounded(Resolver& r, const std::string& key, long long lo, long long hi);
/// output.probes of a field model: at most limits::kMaxProbes distinct nodes in [0, n_nodes); each node outside
/// or repeated is an issue, listed limits::kMaxListed times, then counted (beam_scenario.cpp).
void check_probes(Resolver& r, const std::vector<long long>& probes, long long n_nodes, const std::string& nodes);
/// The lagrangian resolver on a parsed document (mechanics_scenario.cpp).
MechanicsScenario resolve_mechanics_document(const RawValue& root, const std::string& file, const std::string& name,
                                             const std::string& source, const std::vector<std::string>& overrides);
}  // namespace detail
namespace {

using detail::join;
using detail::RawValue;
using detail::Resolver;

// Integer bounds (io/memory_estimate.hpp, docs/scenarios.md).
constexpr long long kMaxJ = limits::kMaxGridJ;
constexpr long long kMaxEvery = limits::kMaxSteps;
constexpr long long kMaxSnapshots = 1000;

const std::vector<std::string> kLayouts = {"cell", "vertex"};
const std::vector<std::string> kBoundaries = {"free", "clamped", "periodic"};
const std::vector<std::string> kShapes = {"cosine", "sine", "gaussian", "zero", "file"};
const std::vector<std::string> kMethods = {"type-i", "type-ii"};
const std::vector<std::string> kVariants = {"exact", "approx"};
const std::vector<std::string> kStarts = {"half", "full"};
const std::vector<std::string> kNoiseModes = {"none", "common", "independent", "modes"};

/// The reader's view of the wave format; a `--set` of one of noise.modes / noise.cosine_modes replaces the
/// file's other.
const detail::Schema& schema() {
  static const detail::Schema v{&wave_schema(),
                                {"model", "grid", "bc", "initial", "integrator", "noise", "output"},
                                "a wave scenario",
                                {{"noise.modes", "noise.cosine_modes"}}};
  return v;
}

/// The initial parameters each shape reads.
std::vector<std::string> shape_keys(const std::string& shape) {
  if (shape == "cosine" || shape == "sine") return {"initial.amplitude", "initial.wavenumber"};
  if (shape == "gaussian") return {"initial.amplitude", "initial.center", "initial.width"};
  if (shape == "file") return {"initial.file"};
  return {};
}

/// "n_nodes = 101 (grid.J = 100, layout vertex)", for messages about per-node data.
std::string nodes_text(const WaveScenario& s) {
  const bool periodic = s.bc_left == "periodic";
  return "n_nodes = " + std::to_string(s.n_nodes()) + " (grid.J = " + std::to_string(s.J) +
         (periodic ? ", periodic" : ", layout " + s.layout) + ")";
}

/// phi(s) of a built-in shape.
double shape_value(const WaveScenario& s, double x) {
  const double k = static_cast<double>(s.wavenumber) * std::numbers::pi / s.length;
  if (s.shape == "cosine") return s.amplitude * std::cos(k * x);
  if (s.shape == "sine") return s.amplitude * std::sin(k * x);
  if (s.shape == "gaussian") {
    const double z = (x - s.center) / s.width;
    return s.amplitude * std::exp(-z * z);
  }
  return 0.0;
}

// ---------------------------------------------------------------------------------------------------------------
// initial.file
// ---------------------------------------------------------------------------------------------------------------

/// Split a CSV line at commas, trimming blanks and a trailing '\r'.
/// Reads the CSV of initial.file; each problem is an issue on (CSV file, initial.file) with line and column.
class InitialFileReader {
 public:
  InitialFileReader(Resolver& r, WaveScenario& s) : r_(r), s_(s) {}

  void read(const std::filesystem::path& base) {
    bool have_header = false, header_ok = true;
    const long ln = detail::read_csv_side_file(
        r_, "initial.file", s_.file, base, s_.file_path, have_header,
        [&](const std::vector<std::string>& f, long l) { return header_ok = header(f, l); },
        [&](const std::vector<std::string>& f, long l) { row(f, l); });
    if (ln < 0 || !header_ok) return;
    if (!have_header) {
      problem(ln, 0, "the file is empty; expected the header s,phi[,phi_t] and one row per node");
      return;
    }
    finish(ln);
  }

 private:
  static constexpr std::size_t kMaxProblems = 20;
  static constexpr const char* kHeader = "s,phi[,phi_t]";

  void problem(long line, std::size_t column, const std::string& message) {
    ++problems_;
    if (problems_ > kMaxProblems) return;
    std::string where = "line " + std::to_string(line);
    if (column) where += ", column " + std::to_string(column);
    r_.issues().push_back({s_.file_path, "initial.file", where + ": " + message});
  }

  bool header(const std::vector<std::string>& fields, long ln) {
    const std::size_t before = problems_;
    for (std::size_t c = 0; c < fields.size(); ++c) {
      const std::string& f = fields[c];
      int* slot = f == "s" ? &col_s_ : f == "phi" ? &col_phi_ : f == "phi_t" ? &col_phi_t_ : nullptr;
      if (!slot) {
        problem(ln, c + 1, "unknown column '" + f + "'; expected the header " + kHeader);
      } else if (*slot >= 0) {
        problem(ln, c + 1, "column '" + f + "' given twice");
      } else {
        *slot = static_cast<int>(c);
      }
    }
    for (const auto& [name, col] : {std::pair{"s", col_s_}, std::pair{"phi", col_phi_}})
      if (col < 0)
        problem(ln, 0, std::string("missing column '") + name + "'; expected the header " + kHeader);
    n_columns_ = fields.size();
    return problems_ == before;
  }

  void row(const std::vector<std::string>& fields, long ln) {
    last_row_ = ln;
    if (fields.size() != n_columns_) {
      problem(ln, 0,
              "has " + std::to_string(fields.size()) + " fields; expected " + std::to_string(n_columns_) +
                  " as in the header");
      rows_.push_back({ln, {}});
      return;
    }
    std::vector<double> v(n_columns_, 0.0);
    for (std::size_t c = 0; c < n_columns_; ++c) {
      const auto x = detail::parse_double(fields[c]);
      if (!x) {
        problem(ln, c + 1, "value '" + fields[c] + "' is not a number");
      } else if (!std::isfinite(*x)) {
        problem(ln, c + 1, "value " + fields[c] + " is not finite");
      }
      v[c] = x.value_or(0.0);
    }
    rows_.push_back({ln, std::move(v)});
  }

  void finish(long ln) {
    const std::size_t n = static_cast<std::size_t>(s_.n_nodes());
    if (rows_.size() != n) {
      problem(rows_.empty() ? ln : last_row_, 0,
              "the file has " + std::to_string(rows_.size()) +
                  " data rows; expected one per node in node order, " + nodes_text(s_));
    }
    for (std::size_t j = 0; j < std::min(n, rows_.size()); ++j) {
      const auto& [line, v] = rows_[j];
      if (v.empty()) continue;
      const double sj = s_.s_of(static_cast<long long>(j)), x = v[col_s_];
      if (std::isfinite(x) && std::abs(x - sj) > 1e-9 * s_.length)
        problem(line, col_s_ + 1,
                "s = " + format_number(x) + " is not the position of node " + std::to_string(j) + ", s_" +
                    std::to_string(j) + " = " + format_number(sj) + " (within 1e-9 grid.length; " +
                    nodes_text(s_) + ")");
    }
    if (problems_ > kMaxProblems)
      r_.issues().push_back({s_.file_path, "initial.file",
                             std::to_string(problems_ - kMaxProblems) + " more problems not listed"});
    if (problems_ != 0) return;
    for (const auto& [line, v] : rows_) {
      s_.phi0.push_back(v[col_phi_]);
      s_.phi_t0.push_back(col_phi_t_ >= 0 ? v[col_phi_t_] : 0.0);
    }
  }

  Resolver& r_;
  WaveScenario& s_;
  int col_s_ = -1, col_phi_ = -1, col_phi_t_ = -1;
  std::size_t n_columns_ = 0, problems_ = 0;
  long last_row_ = 0;
  std::vector<std::pair<long, std::vector<double>>> rows_;
};

// ---------------------------------------------------------------------------------------------------------------
// The resolver, section by section
// ---------------------------------------------------------------------------------------------------------------

/// grid and bc; true when the node set is known (no issue in these sections).
bool resolve_grid(Resolver& r, WaveScenario& s) {
  const std::size_t before = r.issues().size();
  if (auto v = detail::integer_bounded(r, "grid.J", 2, kMaxJ)) s.J = *v;
  if (auto v = r.choice("grid.layout", kLayouts, "a grid layout")) s.layout = *v;
  if (auto v = r.positive("grid.length")) s.length = *v;
  const std::pair<const char*, std::string*> ends[] = {{"bc.left", &s.bc_left}, {"bc.right", &s.bc_right}};
  for (const auto& [key, value] : ends) {
    if (r.get(key) && r.get(key)->kind == RawValue::Kind::string && r.get(key)->s == "prescribed") {
      r.issue(key, "value \"prescribed\" is for beams (prescribed motion of an end node); the wave allows: " +
                       join(kBoundaries));
    } else if (auto v = r.choice(key, kBoundaries, "a boundary condition")) {
      *value = *v;
    }
  }
  if ((s.bc_left == "periodic") != (s.bc_right == "periodic")) {
    const bool left_periodic = s.bc_left == "periodic";
    r.issue(left_periodic ? "bc.right" : "bc.left",
            std::string("value \"") + (left_periodic ? s.bc_right : s.bc_left) + "\" with " +
                (left_periodic ? "bc.left" : "bc.right") +
                " = \"periodic\": periodic must be on both ends (bc.left = bc.right = \"periodic\")");
  }
  for (const auto& [key, value] : ends) {
    if (*value == "clamped" && s.layout != "vertex")
      r.issue(key,
              "value \"clamped\" needs grid.layout = \"vertex\" (a cell-layout end node lies half a cell "
              "inside the domain); grid.layout is \"" +
                  s.layout + "\"");
  }
  return r.issues().size() == before;
}

void resolve_initial(Resolver& r, WaveScenario& s, bool grid_ok, const std::filesystem::path& base) {
  bool shape_ok = true;
  if (auto v = r.choice("initial.shape", kShapes, "an initial shape")) {
    s.shape = *v;
  } else if (r.has("initial.shape")) {
    shape_ok = false;
  } else if (r.has("initial.file")) {
    s.shape = "file";  // initial.file alone means shape "file"
  }
  if (auto v = r.number("initial.amplitude")) s.amplitude = *v;
  if (auto v = detail::integer_bounded(r, "initial.wavenumber", 0, limits::kMaxWavenumber)) s.wavenumber = *v;
  if (auto v = r.number("initial.center")) s.center = *v;
  if (auto v = r.positive("initial.width")) s.width = *v;
  const auto file = r.string("initial.file");
  if (file) s.file = *file;
  if (!shape_ok) return;
  if (s.shape == "file" && !r.has("initial.file")) {
    r.missing("initial.file",
              "the CSV file of initial.shape = \"file\" (columns s,phi[,phi_t], one row per node)");
  } else if (s.shape != "file" && r.has("initial.file")) {
    r.issue("initial.file", "is given but initial.shape = \"" + s.shape +
                                "\"; set initial.shape = \"file\" (or leave initial.shape out) to read it");
  }
  if (!grid_ok) return;
  if (s.shape == "file") {
    if (file) InitialFileReader(r, s).read(base);
    return;
  }
  const long long n = s.n_nodes();
  s.phi0.resize(static_cast<std::size_t>(n));
  s.phi_t0.assign(static_cast<std::size_t>(n), 0.0);
  for (long long j = 0; j < n; ++j) s.phi0[static_cast<std::size_t>(j)] = shape_value(s, s.s_of(j));
}

void resolve_integrator(Resolver& r, WaveScenario& s) {
  if (auto v = r.choice("integrator.method", kMethods, "a wave integrator")) s.method = *v;
  if (auto v = r.choice("integrator.variant", kVariants, "a variant")) s.variant = *v;
  if (auto v = r.choice("integrator.start", kStarts, "a start")) s.start = *v;
  const detail::TimeGrid g = detail::read_time_grid(r, "integrator.dt", "the time step");
  if (g.ok) s.dt = g.dt, s.t_end = g.t_end, s.steps = g.steps;
  if (auto v = r.boolean("integrator.allow_unstable")) s.allow_unstable = *v;
}

void resolve_noise(Resolver& r, WaveScenario& s, bool grid_ok) {
  if (auto v = r.choice("noise.mode", kNoiseModes, "a noise mode")) s.noise_mode = *v;
  const auto theta = r.number("noise.theta");
  if (theta) s.theta = *theta;
  const auto modes = r.number_array_array("noise.modes");
  if (auto v = detail::integer_bounded(r, "noise.cosine_modes", 1, limits::kMaxCosineModes)) s.cosine_modes = *v;
  detail::read_noise_stream(r, s.dt, s.steps > 0, s.seed, s.path, s.base_dt, s.refine_log2, s.truncate);

  const std::string& mode = s.noise_mode;
  if (mode == "none") return;  // the other keys are noted as ignored (ignored_key_notes)
  const std::string mode_text = "noise.mode = \"" + mode + "\"";
  const bool explicit_modes = r.has("noise.modes"), cosine = r.has("noise.cosine_modes");
  if (mode != "modes") {
    for (const char* key : {"noise.modes", "noise.cosine_modes"})
      if (r.has(key)) r.issue(key, std::string("is only for noise.mode = \"modes\"; here ") + mode_text);
  } else if (explicit_modes && cosine) {
    r.issue("noise.cosine_modes", "both noise.modes and noise.cosine_modes are given; give one");
  } else if (!explicit_modes && !cosine) {
    r.missing("noise.modes", "the modes Theta_k(s_j) of " + mode_text + " (or give noise.cosine_modes = K)");
  }
  if (mode != "modes" || cosine) {
    if (!r.has("noise.theta"))
      r.missing("noise.theta", "the noise amplitude of " + mode_text);
    else if (theta && !(*theta > 0.0))
      r.issue("noise.theta", "value " + format_number(*theta) + " must be > 0 with " + mode_text);
  }
  if (!grid_ok || mode != "modes") return;
  const long long n = s.n_nodes();
  if (modes && !cosine) {
    if (modes->empty())
      r.issue("noise.modes", "value [] has no mode; give at least one array of n_nodes values");
    long long wrong = 0;  // listed limits::kMaxListed times, then counted
    for (std::size_t k = 0; k < modes->size(); ++k) {
      if (static_cast<long long>((*modes)[k].size()) != n && ++wrong <= limits::kMaxListed)
        r.issue("noise.modes", "mode " + std::to_string(k) + " has " + std::to_string((*modes)[k].size()) +
                                   " values; expected one per node, " + nodes_text(s));
    }
    if (wrong > limits::kMaxListed)
      r.issue("noise.modes", "... and " + std::to_string(wrong - limits::kMaxListed) +
                                 " more modes without one value per node");
    s.modes = *modes;
  } else if (cosine) {
    if (const auto available = available_memory())  // before the K x n_nodes profiles are built
      if (const auto problem = memory_problem(estimate_memory(s, 1), *available)) {
        r.issue("noise.cosine_modes", *problem);
        return;
      }
    s.modes.assign(static_cast<std::size_t>(s.cosine_modes),
                   std::vector<double>(static_cast<std::size_t>(n)));
    for (long long k = 0; k < s.cosine_modes; ++k)
      for (long long j = 0; j < n; ++j)
        s.modes[static_cast<std::size_t>(k)][static_cast<std::size_t>(j)] =
            s.theta * std::cos(static_cast<double>(k) * std::numbers::pi * s.s_of(j) / s.length);
  }
}

/// Snapshots written with a fields interval f over N steps: k = 0, f, 2f, ... and the last step.
long long snapshots(long long steps, long long f) {
  return steps / f + 1 + (steps % f != 0 ? 1 : 0);
}

void resolve_output(Resolver& r, WaveScenario& s, bool grid_ok) {
  if (auto v = detail::integer_bounded(r, "output.every", 1, kMaxEvery)) s.every = *v;
  const long long n = s.n_nodes();
  if (auto p = r.integer_array("output.probes")) {
    if (grid_ok) detail::check_probes(r, *p, n, nodes_text(s));
    s.probes = *p;
  } else if (grid_ok) {
    for (const long long j : {0LL, n / 2, n - 1})
      if (std::find(s.probes.begin(), s.probes.end(), j) == s.probes.end()) s.probes.push_back(j);
  }
  if (auto v = r.boolean("output.fields")) s.fields = *v;
  if (auto v = detail::integer_bounded(r, "output.fields_every", 1, kMaxEvery)) {
    s.fields_every = *v;
  } else if (!r.has("output.fields_every") && s.steps > 0) {
    long long m = std::max(1LL, s.steps / (kMaxSnapshots * s.every));
    while (snapshots(s.steps, m * s.every) > kMaxSnapshots) ++m;
    s.fields_every = m * s.every;
  }
  if (auto v = r.boolean("output.fields_csv")) s.fields_csv = *v;
  if (auto v = r.boolean("output.per_path")) s.per_path = *v;
  if (auto v = r.boolean("output.plots")) s.plots = *v;
}

WaveScenario resolve(Resolver& r, const std::string& name, const std::string& source,
                     const std::filesystem::path& base) {
  WaveScenario s;
  s.name = name;
  s.source = source;
  s.given_keys = r.given_keys();
  if (!r.has("model.type"))
    r.missing("model.type", "the model, \"wave\"");
  else
    r.choice("model.type", {"wave"}, "a model this scenario format supports");
  if (auto v = r.positive("model.c")) s.c = *v;
  bool grid_ok = resolve_grid(r, s);
  if (grid_ok) {  // before the per-node arrays of the initial data are built
    if (const auto available = available_memory())
      if (const auto problem = memory_problem(estimate_memory(s, 1), *available)) {
        r.issue("grid.J", *problem);
        grid_ok = false;
      }
  }
  resolve_initial(r, s, grid_ok, base);
  resolve_integrator(r, s);
  resolve_noise(r, s, grid_ok);
  resolve_output(r, s, grid_ok);
  if (r.issues().empty())  // the whole need, with the noise modes (a run of one path)
    if (const auto available = available_memory()) {
      const MemoryEstimate e = estimate_memory(s, 1);
      if (const auto problem = memory_problem(e, *available)) r.issue(e.key, *problem);
    }
  return s;
}

WaveScenario resolve_wave(const RawValue& root, const std::string& file, const std::string& name,
                          const std::string& source, const std::vector<std::string>& overrides) {
  Resolver r(schema(), file, detail::read_entries(schema(), root, file, overrides));
  WaveScenario s = resolve(r, name, source, std::filesystem::path(source).parent_path());
  detail::throw_if_issues(r);
  return s;
}

/// Whether a key applies to the resolved scenario (else it is printed only when given, as ignored).
bool applies(const WaveScenario& s, const std::string& key) {
  if (key.rfind("initial.", 0) == 0 && key != "initial.shape") {
    const auto keys = shape_keys(s.shape);
    return std::find(keys.begin(), keys.end(), key) != keys.end();
  }
  if (key.rfind("noise.", 0) == 0 && key != "noise.mode") {
    if (s.noise_mode == "none") return false;
    if (key == "noise.modes" || key == "noise.cosine_modes") return s.given(key);
    if (key == "noise.theta") return s.noise_mode != "modes" || s.cosine_modes > 0;
  }
  return true;
}

ScenarioValue value_of(const WaveScenario& s, const std::string& k) {
  const std::vector<std::pair<const char*, ScenarioValue>> values = {
      {"model.type", std::string("wave")},
      {"model.c", s.c},
      {"grid.J", s.J},
      {"grid.layout", s.layout},
      {"grid.length", s.length},
      {"bc.left", s.bc_left},
      {"bc.right", s.bc_right},
      {"initial.shape", s.shape},
      {"initial.amplitude", s.amplitude},
      {"initial.wavenumber", s.wavenumber},
      {"initial.center", s.center},
      {"initial.width", s.width},
      {"initial.file", s.file},
      {"integrator.method", s.method},
      {"integrator.variant", s.variant},
      {"integrator.start", s.start},
      {"integrator.dt", s.dt},
      {"integrator.t_end", s.t_end},
      {"integrator.allow_unstable", s.allow_unstable},
      {"noise.mode", s.noise_mode},
      {"noise.theta", s.theta},
      {"noise.modes", s.modes},
      {"noise.cosine_modes", s.cosine_modes},
      {"noise.seed", static_cast<long long>(s.seed)},
      {"noise.path", static_cast<long long>(s.path)},
      {"noise.base_dt", s.base_dt},
      {"noise.truncate", s.truncate},
      {"output.every", s.every},
      {"output.probes", s.probes},
      {"output.fields", s.fields},
      {"output.fields_every", s.fields_every},
      {"output.fields_csv", s.fields_csv},
      {"output.per_path", s.per_path},
      {"output.plots", s.plots},
  };
  for (const auto& [key, v] : values)
    if (k == key) return v;
  throw std::logic_error("schema key without a resolved value: " + k);  // keep schema and struct in step
}

}  // namespace

// -------------------------------------------------------------------------------------------------------------
// Public API
// -------------------------------------------------------------------------------------------------------------

const std::vector<SchemaEntry>& wave_schema() {
  static const std::vector<SchemaEntry> schema = [] {
    const std::string opt = "optional";
    const std::string modes_rule =
        "exactly one of noise.modes, noise.cosine_modes for noise.mode = \"modes\"";
    std::vector<SchemaEntry> v{
        {"model.type", ValueType::string, "required", "", "", "wave", "the model", ""},
        {"model.c", ValueType::number, opt, "1.0", "m/s", "> 0",
         "wave speed: l = 1/2 (phi_t^2 - c^2 phi_s^2) per unit length", ""},
        {"grid.J", ValueType::integer, opt, "100", "", "2 ... 100000000, within the available memory",
         "number of cells (cell) or segments (vertex, periodic); ds = length / J", ""},
        {"grid.layout", ValueType::string, opt, "\"cell\"", "", join(kLayouts),
         "nodes: cell s_j = (j + 1/2) ds, j = 0..J-1; vertex s_j = j ds, j = 0..J", ""},
        {"grid.length", ValueType::number, opt, "1.0", "m", "> 0", "domain length S, s in [0, S]", ""},
        {"bc.left", ValueType::string, opt, "\"free\"", "", join(kBoundaries),
         "end s = 0: free (zero strain), clamped (end node held; vertex layout only), periodic (both ends, J "
         "nodes s_j = j ds)",
         ""},
        {"bc.right", ValueType::string, opt, "\"free\"", "", join(kBoundaries), "end s = S, as bc.left", ""},
        {"initial.shape", ValueType::string, opt, "\"cosine\"", "", join(kShapes),
         "phi(0, s); \"file\" when only initial.file is given; phi_t(0, s) = 0 unless the file gives it", ""},
        {"initial.amplitude", ValueType::number, opt, "1.0", "", "finite",
         "A of cosine A cos(k pi s/S), sine A sin(k pi s/S), gaussian A exp(-((s - s0)/w)^2)", ""},
        {"initial.wavenumber", ValueType::integer, opt, "1", "", "0 ... 1000000000", "k of cosine and sine", ""},
        {"initial.center", ValueType::number, opt, "0.3", "m", "finite", "s0 of the gaussian", ""},
        {"initial.width", ValueType::number, opt, "0.05", "m", "> 0", "w of the gaussian", ""},
        {"initial.file", ValueType::string, "required iff initial.shape = \"file\"", "", "",
         "CSV path, relative to the scenario file's folder",
         "header s,phi[,phi_t], one row per node in node order, s within 1e-9 length of s_j, finite values",
         ""},
        {"integrator.method", ValueType::string, opt, "\"type-i\"", "", join(kMethods),
         "type-i: stochastic kinematics; type-ii: stochastic potential (Hamilton-Pontryagin)", ""},
        {"integrator.variant", ValueType::string, opt, "\"exact\"", "", join(kVariants),
         "exact or approximate variations (they coincide for the wave, G = R)", ""},
        {"integrator.start", ValueType::string, opt, "\"half\"", "", join(kStarts),
         "first velocity: half (velocity-Verlet half kick) or full step", ""},
        {"integrator.dt", ValueType::number, "required", "", "s",
         "> 0, t_end/dt an integer N < 1e12 within 1e-9 relative", "time step", ""},
        {"integrator.t_end", ValueType::number, "required", "", "s", "> 0",
         "final time (the run starts at t = 0)", ""},
        {"integrator.allow_unstable", ValueType::boolean, opt, "false", "", "true, false",
         "run even when dt is beyond the stability (CFL) bound", ""},
        {"noise.mode", ValueType::string, opt, "\"none\"", "", join(kNoiseModes),
         "common: one Brownian motion for all nodes; independent: one per node; modes: Theta_k(s) fields",
         ""},
        {"noise.theta", ValueType::number, "required for common, independent and noise.cosine_modes", "0.0",
         "", "> 0", "noise amplitude Theta", ""},
        {"noise.modes", ValueType::number_array_array, modes_rule, "", "", "arrays of n_nodes finite numbers",
         "explicit modes: Theta_k(s_j), one array per mode k, one value per node j", ""},
        {"noise.cosine_modes", ValueType::integer, modes_rule, "", "", "1 ... 100000, within the available memory",
         "K cosine modes Theta_k(s) = theta cos(k pi s / S), k = 0..K-1", ""},
        {"output.every", ValueType::integer, opt, "1", "steps", "1 ... 1000000000000",
         "write a row of series.csv every `every` steps (t = 0 and t = t_end always)", ""},
        {"output.probes", ValueType::integer_array, opt, "[0, n_nodes/2, n_nodes-1]", "",
         "at most 10000 distinct node indices in [0, n_nodes)", "nodes whose phi is a series.csv column phi_<j>", ""},
        {"output.fields", ValueType::boolean, opt, "true", "", "true, false", "write fields.h5", ""},
        {"output.fields_every", ValueType::integer, opt, "every, raised to <= 1000 snapshots", "steps",
         "1 ... 1000000000000", "a fields.h5 snapshot every `fields_every` steps (t = 0 and t = t_end always)", ""},
        {"output.fields_csv", ValueType::boolean, opt, "false", "", "true, false",
         "also write the final snapshot as final_fields.csv", ""},
        {"output.per_path", ValueType::boolean, opt, "false", "", "true, false",
         "ensembles (--paths N): also write each path's series", ""},
        {"output.plots", ValueType::boolean, opt, "true", "", "true, false",
         "make the PNG plots (python3 + matplotlib)", ""},
    };
    // the noise stream keys shared with the other field scenarios, before the output section
    const auto at = std::find_if(v.begin(), v.end(), [](const SchemaEntry& e) { return e.key == "output.every"; });
    const auto shared = detail::noise_stream_entries();
    v.insert(at, shared.begin(), shared.end());
    return v;
  }();
  return schema;
}

long long WaveScenario::n_nodes() const {
  return (layout == "vertex" && bc_left != "periodic") ? J + 1 : J;
}

double WaveScenario::s_of(long long j) const {
  const double x = static_cast<double>(j);
  return (layout == "cell" && bc_left != "periodic") ? (x + 0.5) * ds() : x * ds();
}

bool WaveScenario::given(const std::string& key) const {
  return std::binary_search(given_keys.begin(), given_keys.end(), key);
}

WaveScenario load_wave_scenario(const std::filesystem::path& path,
                                const std::vector<std::string>& overrides) {
  const std::string file = path.string();
  return resolve_wave(detail::parse_toml(detail::read_scenario_text(path), file), file, path.stem().string(),
                      file, overrides);
}

WaveScenario parse_wave_scenario(const std::string& toml_text, const std::string& file_label,
                                 const std::string& name, const std::vector<std::string>& overrides) {
  return resolve_wave(detail::parse_toml(toml_text, file_label), file_label, name, "", overrides);
}

std::vector<ResolvedEntry> resolved_entries(const WaveScenario& s) {
  std::vector<ResolvedEntry> out;
  for (const auto& e : wave_schema()) {
    const bool given = s.given(e.key);
    // initial.shape = "file" derived from initial.file is not the default
    const bool derived = e.key == "model.type" || (e.key == "initial.shape" && s.shape == "file");
    if (given || applies(s, e.key)) out.push_back({e.key, value_of(s, e.key), !given && !derived});
  }
  return out;
}

std::vector<std::string> ignored_key_notes(const WaveScenario& s) {
  std::vector<std::string> notes;
  for (const auto& e : wave_schema()) {
    if (!s.given(e.key) || applies(s, e.key)) continue;
    std::string why;
    if (e.key.rfind("noise.", 0) == 0)
      why = s.noise_mode == "none" ? "noise.mode = \"none\"" : "explicit noise.modes";
    else
      why = "initial.shape = \"" + s.shape + "\"";
    notes.push_back("key '" + e.key + "' is ignored with " + why);
  }
  return notes;
}

std::string to_toml(const WaveScenario& s) {
  const auto notes = ignored_key_notes(s);
  std::string t = detail::toml_header("wave scenario", s.name, s.source, s.steps, s.dt, s.t_end,
                                      "; " + nodes_text(s) + ", ds = " + format_number(s.ds()), notes);
  t += detail::entries_toml(resolved_entries(s), [&](const ResolvedEntry& e) {
    std::vector<std::string> comments;
    for (const auto& n : notes)
      if (n.find("'" + e.key + "'") != std::string::npos) comments.push_back(n.substr(n.find("ignored")));
    return comments;
  });
  return t;
}

// -------------------------------------------------------------------------------------------------------------
// Dispatch on model.type
// -------------------------------------------------------------------------------------------------------------

std::vector<std::string> model_types() {
  return {"rigid_body", "wave", "beam", "lagrangian"};
}

const std::vector<SchemaEntry>& schema_of(const std::string& model_type) {
  if (model_type == "rigid_body") return rigid_body_schema();
  if (model_type == "wave") return wave_schema();
  if (model_type == "beam") return beam_schema();
  if (model_type == "lagrangian") return mechanics_schema();
  throw invalid_argument("", "",
                         "unknown model type \"" + model_type + "\"; allowed: " + join(model_types()));
}

std::string schema_markdown(const std::string& model_type) {
  return detail::schema_markdown(schema_of(model_type));
}

namespace {

AnyScenario parse_any_impl(const std::string& text, const std::string& file, const std::string& name,
                           const std::string& source, const std::vector<std::string>& overrides) {
  const RawValue root = detail::parse_toml(text, file);
  const auto type = detail::peek_key(root, file, overrides, "model.type");
  const std::string allowed = join(model_types());
  if (!type)
    throw invalid_argument(file, "model.type",
                           "missing required key; expected a string (" + allowed +
                               "): the model type, which selects the scenario format");
  if (type->value.kind == RawValue::Kind::string && type->value.s == "rigid_body")
    return detail::resolve_rigid_body(root, file, name, source, overrides);
  if (type->value.kind == RawValue::Kind::string && type->value.s == "wave")
    return resolve_wave(root, file, name, source, overrides);
  if (type->value.kind == RawValue::Kind::string && type->value.s == "beam")
    return detail::resolve_beam_document(root, file, name, source, overrides);
  if (type->value.kind == RawValue::Kind::string && type->value.s == "lagrangian")
    return detail::resolve_mechanics_document(root, file, name, source, overrides);
  throw invalid_argument(type->origin, "model.type",
                         "value " + type->value.text() + " is not a model type; allowed: " + allowed);
}

}  // namespace

std::optional<std::string> scenario_model_type(const std::filesystem::path& path,
                                               const std::vector<std::string>& overrides) {
  const std::string file = path.string();
  const RawValue root = detail::parse_toml(detail::read_scenario_text(path), file);
  const auto type = detail::peek_key(root, file, overrides, "model.type");
  if (!type) return std::nullopt;
  return type->value.kind == RawValue::Kind::string ? type->value.s : type->value.text();
}

AnyScenario load_any_scenario(const std::filesystem::path& path, const std::vector<std::string>& overrides) {
  const std::string file = path.string();
  return parse_any_impl(detail::read_scenario_text(path), file, path.stem().string(), file, overrides);
}

AnyScenario parse_any_scenario(const std::string& toml_text, const std::string& file_label,
                               const std::string& name, const std::vector<std::string>& overrides) {
  return parse_any_impl(toml_text, file_label, name, "", overrides);
}

}  // namespace lievi::io
