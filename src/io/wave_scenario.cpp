/// @file src/io/wave_scenario.cpp
/// @brief The wave scenario (`model.type = "wave"`): the key table of config::WaveConfig, the rules between keys,
/// the initial data (built-in shapes or a CSV file) and the resolved printout.
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
#include "key_table.hpp"
#include "lievi/build/output.hpp"
#include "lievi/build/wave.hpp"
#include "scenario_reader.hpp"

namespace lievi::config {

const char* id(WaveShape s) {
  switch (s) {
    case WaveShape::cosine: return "cosine";
    case WaveShape::sine: return "sine";
    case WaveShape::gaussian: return "gaussian";
    case WaveShape::zero: return "zero";
    case WaveShape::file: return "file";
  }
  return "";
}
const char* id(FieldMethod m) {
  return m == FieldMethod::type_i ? "type-i" : m == FieldMethod::type_ii ? "type-ii" : m == FieldMethod::avi ? "avi" : "";
}
const char* id(AviQueue q) { return q == AviQueue::calendar ? "calendar" : q == AviQueue::heap ? "heap" : ""; }
const char* id(field::Layout l) {
  return l == field::Layout::cell ? "cell" : l == field::Layout::vertex ? "vertex" : "";
}
const char* id(field::End e) {
  switch (e) {
    case field::End::free: return "free";
    case field::End::clamped: return "clamped";
    case field::End::periodic: return "periodic";
    case field::End::prescribed: return "prescribed";
  }
  return "";
}
const char* id(field::Variant v) {
  return v == field::Variant::exact ? "exact" : v == field::Variant::approx ? "approx" : "";
}
const char* id(field::Start s) { return s == field::Start::half ? "half" : s == field::Start::full ? "full" : ""; }
const char* id(field::NoiseMode m) {
  switch (m) {
    case field::NoiseMode::none: return "none";
    case field::NoiseMode::common: return "common";
    case field::NoiseMode::independent: return "independent";
    case field::NoiseMode::modes: return "modes";
  }
  return "";
}

long long WaveConfig::n_base_nodes() const {
  return (layout == field::Layout::vertex && !periodic()) ? J + 1 : J;
}
long long WaveConfig::n_nodes() const {
  return node_s.empty() ? n_base_nodes() : static_cast<long long>(node_s.size());
}

double WaveConfig::base_s_of(long long j) const {
  const double x = static_cast<double>(j);
  return (layout == field::Layout::cell && !periodic()) ? (x + 0.5) * ds() : x * ds();
}
double WaveConfig::s_of(long long j) const {
  return node_s.empty() ? base_s_of(j) : node_s.at(static_cast<std::size_t>(j));
}

}  // namespace lievi::config

namespace lievi::io {
namespace detail {
/// output.probes of a field model: at most limits::kMaxProbes distinct nodes in [0, n_nodes); each node outside
/// or repeated is an issue, listed limits::kMaxListed times, then counted (beam_scenario.cpp).
void check_probes(Resolver& r, const std::vector<long long>& probes, long long n_nodes, const std::string& nodes);
}  // namespace detail
namespace {

using detail::join;
using detail::RawValue;
using detail::Resolver;

// Integer bounds (io/memory_estimate.hpp, docs/scenarios.md).
constexpr long long kMaxJ = limits::kMaxGridJ;

using config::FieldMethod;
using config::WaveConfig;
using config::WaveShape;
using detail::Key;
using detail::Names;
using field::End;
using field::Layout;
using field::NoiseMode;

using detail::names_of;
const Names<Layout> kLayouts = names_of({Layout::cell, Layout::vertex});
const Names<End> kBoundaries = names_of({End::free, End::clamped, End::periodic});
const Names<WaveShape> kShapes =
    names_of({WaveShape::cosine, WaveShape::sine, WaveShape::gaussian, WaveShape::zero, WaveShape::file});
const Names<FieldMethod> kMethods = names_of({FieldMethod::type_i, FieldMethod::type_ii, FieldMethod::avi});
const Names<config::AviQueue> kQueues = names_of({config::AviQueue::calendar, config::AviQueue::heap});
const Names<field::Variant> kVariants = names_of({field::Variant::exact, field::Variant::approx});
const Names<field::Start> kStarts = names_of({field::Start::half, field::Start::full});
const Names<NoiseMode> kNoiseModes = names_of({NoiseMode::none, NoiseMode::common, NoiseMode::independent, NoiseMode::modes});

const detail::KeyTable<WaveConfig>& table();

/// The reader's view of the wave format; a `--set` of one of noise.modes / noise.cosine_modes replaces the
/// file's other.
const detail::Schema& schema() {
  static const detail::Schema v{&table().schema(),
                                {"model", "regions", "grid", "bc", "initial", "integrator", "noise", "output"},
                                "a wave scenario",
                                {{"noise.modes", "noise.cosine_modes"}},
                                {"regions"}};
  return v;
}

/// The initial parameters each shape reads.
std::vector<std::string> shape_keys(WaveShape shape) {
  if (shape == WaveShape::cosine || shape == WaveShape::sine) return {"initial.amplitude", "initial.wavenumber"};
  if (shape == WaveShape::gaussian) return {"initial.amplitude", "initial.center", "initial.width"};
  if (shape == WaveShape::file) return {"initial.file"};
  return {};
}

/// "n_nodes = 101 (grid.J = 100, layout vertex)", for messages about per-node data.
std::string nodes_text(const WaveConfig& s) {
  return "n_nodes = " + std::to_string(s.n_nodes()) + " (grid.J = " + std::to_string(s.J) +
         (s.periodic() ? ", periodic" : std::string(", layout ") + config::id(s.layout)) + ")";
}

// ---------------------------------------------------------------------------------------------------------------
// initial.file
// ---------------------------------------------------------------------------------------------------------------

/// Split a CSV line at commas, trimming blanks and a trailing '\r'.
/// Reads the CSV of initial.file; each problem is an issue on (CSV file, initial.file) with line and column.
class InitialFileReader {
 public:
  InitialFileReader(Resolver& r, WaveConfig& s) : r_(r), s_(s) {}

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
  WaveConfig& s_;
  int col_s_ = -1, col_phi_ = -1, col_phi_t_ = -1;
  std::size_t n_columns_ = 0, problems_ = 0;
  long last_row_ = 0;
  std::vector<std::pair<long, std::vector<double>>> rows_;
};

// ---------------------------------------------------------------------------------------------------------------
// The rules between keys, each run where the table reads its key
// ---------------------------------------------------------------------------------------------------------------

using detail::has_issue;

/// The node set is known: no issue on the grid, the ends or the memory for the per-node data.
bool grid_ok(Resolver& r) { return !has_issue(r, {"grid.J", "grid.layout", "grid.length", "bc.left", "bc.right"}); }

/// bc.left / bc.right: "prescribed" is for beams; periodic on both ends; clamped needs the vertex layout; then
/// the memory of the per-node arrays (an issue on grid.J).
void read_end(Resolver& r, WaveConfig& s, const char* key, End WaveConfig::*m) {
  if (r.get(key) && r.get(key)->kind == RawValue::Kind::string && r.get(key)->s == "prescribed") {
    r.issue(key, "value \"prescribed\" is for beams (prescribed motion of an end node); the wave allows: " +
                     join(detail::name_list(kBoundaries)));
  } else if (auto v = r.choice(key, detail::name_list(kBoundaries), "a boundary condition")) {
    for (const auto& [n, e] : kBoundaries)
      if (n == *v) s.*m = e;
  }
  if (std::string(key) != "bc.right") return;
  const std::pair<const char*, End> ends[] = {{"bc.left", s.bc_left}, {"bc.right", s.bc_right}};
  if ((s.bc_left == End::periodic) != (s.bc_right == End::periodic)) {
    const bool left_periodic = s.bc_left == End::periodic;
    r.issue(left_periodic ? "bc.right" : "bc.left",
            std::string("value \"") + config::id(left_periodic ? s.bc_right : s.bc_left) + "\" with " +
                (left_periodic ? "bc.left" : "bc.right") +
                " = \"periodic\": periodic must be on both ends (bc.left = bc.right = \"periodic\")");
  }
  for (const auto& [k, value] : ends)
    if (value == End::clamped && s.layout != Layout::vertex)
      r.issue(k,
              "value \"clamped\" needs grid.layout = \"vertex\" (a cell-layout end node lies half a cell "
              "inside the domain); grid.layout is \"" +
                  std::string(config::id(s.layout)) + "\"");
  if (grid_ok(r))  // before the per-node arrays of the initial data are built
    if (const auto available = available_memory())
      if (const auto problem = memory_problem(estimate_memory(s, 1), *available))
        r.issue("grid.J", *problem);
}

/// initial.shape ("file" when only initial.file is given), then, with initial.file, the initial data.
void read_shape(Resolver& r, WaveConfig& s) {
  if (auto v = r.choice("initial.shape", detail::name_list(kShapes), "an initial shape")) {
    for (const auto& [n, e] : kShapes)
      if (n == *v) s.shape = e;
  } else if (!r.has("initial.shape") && r.has("initial.file")) {
    s.shape = WaveShape::file;  // initial.file alone means shape "file"
  }
}

void read_initial_data(Resolver& r, WaveConfig& s, const std::filesystem::path& base) {
  const auto file = r.string("initial.file");
  if (file) s.file = *file;
  if (has_issue(r, {"initial.shape"})) return;
  if (s.shape == WaveShape::file && !r.has("initial.file")) {
    r.missing("initial.file", "the CSV file of initial.shape = \"file\" (columns s,phi[,phi_t], one row per node)");
  } else if (s.shape != WaveShape::file && r.has("initial.file")) {
    r.issue("initial.file", std::string("is given but initial.shape = \"") + config::id(s.shape) +
                                "\"; set initial.shape = \"file\" (or leave initial.shape out) to read it");
  }
  if (!grid_ok(r)) return;
  if (s.shape == WaveShape::file) {
    if (file) InitialFileReader(r, s).read(base);
    return;
  }
  build::initial_data(s);
}

/// The noise stream keys, then the rules of the noise mode and the modes Theta_k(s_j).
void read_noise(Resolver& r, WaveConfig& s) {
  detail::read_noise_stream(r, s.dt, s.steps > 0, s.seed, s.path, s.base_dt, s.refine_log2, s.truncate);
  const NoiseMode mode = s.noise_mode;
  if (mode == NoiseMode::none) return;  // the other keys are noted as ignored (ignored_key_notes)
  const std::string mode_text = std::string("noise.mode = \"") + config::id(mode) + "\"";
  const bool explicit_modes = r.has("noise.modes"), cosine = r.has("noise.cosine_modes");
  if (mode != NoiseMode::modes) {
    for (const char* key : {"noise.modes", "noise.cosine_modes"})
      if (r.has(key)) r.issue(key, std::string("is only for noise.mode = \"modes\"; here ") + mode_text);
  } else if (explicit_modes && cosine) {
    r.issue("noise.cosine_modes", "both noise.modes and noise.cosine_modes are given; give one");
  } else if (!explicit_modes && !cosine) {
    r.missing("noise.modes", "the modes Theta_k(s_j) of " + mode_text + " (or give noise.cosine_modes = K)");
  }
  if (mode != NoiseMode::modes || cosine) {
    if (!r.has("noise.theta"))
      r.missing("noise.theta", "the noise amplitude of " + mode_text);
    else if (!has_issue(r, {"noise.theta"}) && !(s.theta > 0.0))
      r.issue("noise.theta", "value " + format_number(s.theta) + " must be > 0 with " + mode_text);
  }
  if (!grid_ok(r) || mode != NoiseMode::modes) return;
  const long long n = s.n_nodes();
  if (explicit_modes && !cosine) {
    if (has_issue(r, {"noise.modes"})) return;
    if (s.modes.empty()) r.issue("noise.modes", "value [] has no mode; give at least one array of n_nodes values");
    long long wrong = 0;  // listed limits::kMaxListed times, then counted
    for (std::size_t k = 0; k < s.modes.size(); ++k) {
      if (static_cast<long long>(s.modes[k].size()) != n && ++wrong <= limits::kMaxListed)
        r.issue("noise.modes", "mode " + std::to_string(k) + " has " + std::to_string(s.modes[k].size()) +
                                   " values; expected one per node, " + nodes_text(s));
    }
    if (wrong > limits::kMaxListed)
      r.issue("noise.modes", "... and " + std::to_string(wrong - limits::kMaxListed) +
                                 " more modes without one value per node");
  } else if (cosine && !has_issue(r, {"noise.cosine_modes"})) {
    if (const auto available = available_memory())  // before the K x n_nodes profiles are built
      if (const auto problem = memory_problem(estimate_memory(s, 1), *available)) {
        r.issue("noise.cosine_modes", *problem);
        return;
      }
    build::cosine_modes(s);
  }
}

// ---------------------------------------------------------------------------------------------------------------
// The AVI: [[regions]] and the rules of integrator.method = "avi"
// ---------------------------------------------------------------------------------------------------------------

constexpr long long kMaxRefine = 1024;

/// Whether an issue was recorded on one of `keys` (keys built at run time: the regions' entries).
bool issue_on(Resolver& r, const std::vector<std::string>& keys) {
  for (const auto& i : r.issues())
    if (std::find(keys.begin(), keys.end(), i.key) != keys.end()) return true;
  return false;
}

/// The [[regions]] tables (after the grid and the ends): s_range, c, rho, refine, dt, each checked; every
/// region must hold a segment midpoint; then the graded mesh's node positions (node_s).
void regions_rule(Resolver& r, WaveConfig& s) {
  const std::size_t count = r.array_length("regions");
  for (std::size_t i = 0; i < count; ++i) {
    const std::string p = "regions[" + std::to_string(i) + "].";
    config::WaveRegion g;
    if (auto v = r.number_array(p + "s_range")) {
      if (v->size() != 2 || !((*v)[0] < (*v)[1]))
        r.issue(p + "s_range", "value " + r.get(p + "s_range")->text() + " must be [s_from, s_to] with s_from < s_to");
      else
        g.s_from = (*v)[0], g.s_to = (*v)[1];
    } else if (!r.has(p + "s_range")) {
      r.missing(p + "s_range", "the part [s_from, s_to] of the domain the region covers");
    }
    if (r.has(p + "c"))
      if (auto v = r.positive(p + "c")) g.c = *v;
    if (r.has(p + "rho"))
      if (auto v = r.positive(p + "rho")) g.rho = *v;
    if (r.has(p + "dt"))
      if (auto v = r.positive(p + "dt")) g.dt = *v;
    if (r.has(p + "refine"))
      if (auto v = r.integer_in(p + "refine", 1, kMaxRefine)) g.refine = *v;
    s.regions.push_back(g);
  }
  if (count == 0 || !grid_ok(r) || has_issue(r, {"model.c"})) return;
  for (std::size_t i = 0; i < count; ++i)
    if (issue_on(r, {"regions[" + std::to_string(i) + "].s_range", "regions[" + std::to_string(i) + "].refine"}))
      return;
  // the node count of the graded mesh, before its arrays are built
  const long long nb = s.n_base_nodes(), n_base_segments = s.periodic() ? nb : nb - 1;
  const double ds = s.ds();
  long long nodes = nb;
  std::vector<long long> held(count, 0);
  for (long long j = 0; j < n_base_segments; ++j) {
    const double mid = s.base_s_of(j) + 0.5 * ds;
    long long g = -1;
    for (std::size_t i = 0; i < count; ++i)
      if (s.regions[i].s_from <= mid && mid < s.regions[i].s_to) g = static_cast<long long>(i);
    if (g < 0) continue;
    ++held[static_cast<std::size_t>(g)];
    nodes += s.regions[static_cast<std::size_t>(g)].refine - 1;
  }
  bool ok = true;
  for (std::size_t i = 0; i < count; ++i)
    if (held[i] == 0) {
      ok = false;
      r.issue("regions[" + std::to_string(i) + "].s_range",
              "value [" + format_number(s.regions[i].s_from) + ", " + format_number(s.regions[i].s_to) +
                  "] holds no segment midpoint" + (count > 1 ? " (or every one is taken by a later region)" : "") +
                  "; the segments' midpoints lie in (0, grid.length = " + format_number(s.length) +
                  "), " + std::to_string(n_base_segments) + " segments of ds = " + format_number(ds));
    }
  if (nodes > kMaxJ + 1) {
    ok = false;
    r.issue("regions[0].refine", "the refined mesh has " + std::to_string(nodes) + " nodes; at most " +
                                     std::to_string(kMaxJ + 1) + " are allowed");
  }
  if (ok) build::graded_nodes(s);
}

/// The rules of integrator.method = "avi" (after every key is read): regions need it; it refuses noise,
/// checkpoints and the full start; its per-segment steps (build::avi_steps) must be dyadic and stable.
void avi_rule(Resolver& r, WaveConfig& s) {
  if (has_issue(r, {"integrator.method"})) return;
  const std::size_t count = r.array_length("regions");
  if (!s.avi()) {
    if (count > 0)
      r.issue("regions[0].s_range", std::string("[[regions]] (a stepped section, a graded mesh, per-region steps) "
                                                "need integrator.method = \"avi\"; the synchronous ") +
                                        config::id(s.method) + " steps a uniform grid with one speed");
    return;
  }
  if (r.has("noise.mode") && s.noise_mode != NoiseMode::none)
    r.issue("noise.mode", std::string("value \"") + config::id(s.noise_mode) +
                              "\" with integrator.method = \"avi\": the AVI is deterministic; use noise.mode = "
                              "\"none\" or the synchronous type-i / type-ii");
  for (const char* key : {"output.checkpoint_every", "output.checkpoint_wall"})
    if (r.has(key) && !has_issue(r, {key}) &&
        (std::string(key) == "output.checkpoint_every" ? s.checkpoint_every > 0 : s.checkpoint_wall > 0.0))
      r.issue(key, "is not supported with integrator.method = \"avi\" (a run is not checkpointed; leave the key out "
                   "or use type-i)");
  if (r.has("integrator.start") && s.start != field::Start::half)
    r.issue("integrator.start", "value \"full\" with integrator.method = \"avi\": the AVI starts with the half "
                                "update (\"half\")");
  std::vector<std::string> keys = {"grid.J", "grid.layout", "grid.length", "bc.left", "bc.right", "model.c",
                                   "integrator.dt", "integrator.t_end", "integrator.fraction"};
  for (std::size_t i = 0; i < count; ++i)
    for (const char* leaf : {"s_range", "c", "rho", "dt", "refine"})
      keys.push_back("regions[" + std::to_string(i) + "]." + leaf);
  if (issue_on(r, keys) || !(s.dt > 0.0)) return;
  for (auto& i : build::avi_steps(s, build::wave_mesh(s)).problems) r.issue(i.key, i.message);
}

/// The resolved entries of the regions ("regions[i].s_range", then the values given).
std::vector<ResolvedEntry> region_entries(const WaveConfig& s, const std::function<bool(const std::string&)>&) {
  std::vector<ResolvedEntry> out;
  for (std::size_t i = 0; i < s.regions.size(); ++i) {
    const config::WaveRegion& g = s.regions[i];
    const std::string p = "regions[" + std::to_string(i) + "].";
    out.push_back({p + "s_range", std::vector<double>{g.s_from, g.s_to}, false});
    if (g.c > 0) out.push_back({p + "c", g.c, false});
    if (g.rho > 0) out.push_back({p + "rho", g.rho, false});
    if (g.refine != 1) out.push_back({p + "refine", g.refine, false});
    if (g.dt > 0) out.push_back({p + "dt", g.dt, false});
  }
  return out;
}

/// The wave key table, in documentation order; each key's reading runs in this order.
const detail::KeyTable<WaveConfig>& table() {
  using C = WaveConfig;
  static const detail::KeyTable<C> t = [] {
    const std::string modes_rule = "exactly one of noise.modes, noise.cosine_modes for noise.mode = \"modes\"";
    const auto noise_applies = [](const C& c) { return c.noise_mode != NoiseMode::none; };
    const auto noise_reason = [](const C& c) {
      return std::string(c.noise_mode == NoiseMode::none ? "with noise.mode = \"none\"" : "with explicit noise.modes");
    };
    const auto shape_reason = [](const C& c) { return std::string("with initial.shape = \"") + config::id(c.shape) + "\""; };
    std::vector<Key<C>> k;
    k.push_back(detail::model_type_key<C>("wave"));
    k.push_back(detail::number_key<C>("model.c", &C::c, detail::NumberCheck::positive)
                    .unit("m/s")
                    .doc("wave speed: l = 1/2 (phi_t^2 - c^2 phi_s^2) per unit length"));
    // [[regions]] (integrator.method = "avi"; read by regions_rule after the ends)
    const std::string region = "optional; in each [[regions]] table (integrator.method = \"avi\")";
    auto s_range = detail::entry_only<C>(
        {"regions.s_range", ValueType::number_array, "required in each [[regions]] table (integrator.method = \"avi\")",
         "", "m", "[s_from, s_to], s_from < s_to, holding a segment midpoint",
         "segments whose midpoint lies in [s_from, s_to) take this region's values (later regions win); "
         "the synchronous type-i / type-ii refuse [[regions]] (they step a uniform grid)",
         ""});
    s_range.expand = region_entries;
    k.push_back(s_range);
    k.push_back(detail::entry_only<C>({"regions.c", ValueType::number, region, "model.c", "m/s", "> 0",
                                       "wave speed in the region (a stepped section); kappa = rho c^2", ""}));
    k.push_back(detail::entry_only<C>({"regions.rho", ValueType::number, region, "1", "kg/m",
                                       "> 0", "mass per length in the region (the model's is 1)", ""}));
    k.push_back(detail::entry_only<C>({"regions.refine", ValueType::integer, region, "1", "",
                                       "1 ... 1024", "each segment of the region split into refine equal "
                                       "segments (a graded mesh: n_nodes, node indices and s_j are the refined "
                                       "mesh's)", ""}));
    k.push_back(detail::entry_only<C>({"regions.dt", ValueType::number, region, "", "s",
                                       "integrator.dt / 2^k, k = 0 ... 30; within ds_e / c_e unless "
                                       "integrator.allow_unstable",
                                       "explicit step of the region's segments (overrides integrator.fraction)",
                                       ""}));
    k.push_back(detail::integer_key<C>("grid.J", &C::J, 2, kMaxJ)
                    .allowed("2 ... 100000000, within the available memory")
                    .doc("number of cells (cell) or segments (vertex, periodic); ds = length / J"));
    k.push_back(detail::choice_key<C>("grid.layout", &C::layout, kLayouts, "a grid layout")
                    .doc("nodes: cell s_j = (j + 1/2) ds, j = 0..J-1; vertex s_j = j ds, j = 0..J"));
    k.push_back(detail::number_key<C>("grid.length", &C::length, detail::NumberCheck::positive)
                    .unit("m")
                    .doc("domain length S, s in [0, S]"));
    auto end_key = [&](const char* key, End C::*m, const char* doc) {
      auto e = detail::choice_key<C>(key, m, kBoundaries, "a boundary condition").doc(doc);
      e.read = [key, m](Resolver& r, C& c) { read_end(r, c, key, m); };
      return e;
    };
    k.push_back(end_key("bc.left", &C::bc_left,
                        "end s = 0: free (zero strain), clamped (end node held; vertex layout only), periodic (both "
                        "ends, J nodes s_j = j ds)"));
    k.push_back(end_key("bc.right", &C::bc_right, "end s = S, as bc.left"));
    k.push_back(detail::rule<C>(regions_rule));
    auto shape = detail::choice_key<C>("initial.shape", &C::shape, kShapes, "an initial shape")
                     .doc("phi(0, s); \"file\" when only initial.file is given; phi_t(0, s) = 0 unless the file "
                          "gives it");
    shape.read = read_shape;
    k.push_back(shape);
    const auto for_shape = [](const char* key) {
      return [key](const C& c) {
        const auto keys = shape_keys(c.shape);
        return std::find(keys.begin(), keys.end(), key) != keys.end();
      };
    };
    k.push_back(detail::number_key<C>("initial.amplitude", &C::amplitude)
                    .doc("A of cosine A cos(k pi s/S), sine A sin(k pi s/S), gaussian A exp(-((s - s0)/w)^2)")
                    .when(for_shape("initial.amplitude"), shape_reason));
    k.push_back(detail::integer_key<C>("initial.wavenumber", &C::wavenumber, 0, limits::kMaxWavenumber)
                    .doc("k of cosine and sine")
                    .when(for_shape("initial.wavenumber"), shape_reason));
    k.push_back(detail::number_key<C>("initial.center", &C::center)
                    .unit("m")
                    .doc("s0 of the gaussian")
                    .when(for_shape("initial.center"), shape_reason));
    k.push_back(detail::number_key<C>("initial.width", &C::width, detail::NumberCheck::positive)
                    .unit("m")
                    .doc("w of the gaussian")
                    .when(for_shape("initial.width"), shape_reason));
    k.push_back(detail::custom_key<C>("initial.file", ValueType::string, nullptr,
                                      [](const C& c) { return ScenarioValue(c.file); })
                    .requirement("required iff initial.shape = \"file\"")
                    .allowed("CSV path, relative to the scenario file's folder")
                    .doc("header s,phi[,phi_t], one row per node in node order, s within 1e-9 length of s_j, finite "
                         "values")
                    .when(for_shape("initial.file"), shape_reason)
                    .no_default());
    k.push_back(detail::choice_key<C>("integrator.method", &C::method, kMethods, "a wave integrator")
                    .doc("type-i: stochastic kinematics; type-ii: stochastic potential (Hamilton-Pontryagin); "
                         "avi: asynchronous variational integrator, each segment its own step dt / 2^k "
                         "(deterministic, serial)"));
    k.push_back(detail::choice_key<C>("integrator.variant", &C::variant, kVariants, "a variant")
                    .doc("exact or approximate variations (they coincide for the wave, G = R)"));
    k.push_back(detail::choice_key<C>("integrator.start", &C::start, kStarts, "a start")
                    .doc("first velocity: half (velocity-Verlet half kick) or full step"));
    k.push_back(detail::dt_key<C>("required", "time step"));
    k.push_back(detail::t_end_key<C>([](Resolver& r, C& c) {
      const detail::TimeGrid g = detail::read_time_grid(r, "integrator.dt", "the time step");
      if (g.ok) c.dt = g.dt, c.t_end = g.t_end, c.steps = g.steps;
    }));
    k.push_back(detail::boolean_key<C>("integrator.allow_unstable", &C::allow_unstable)
                    .doc("run even when dt is beyond the stability (CFL) bound (avi: a region's dt beyond "
                         "its segments' limit)"));
    const auto avi_only = [](const C& c) { return c.avi(); };
    const auto avi_reason = [](const C& c) {
      return std::string("with integrator.method = \"") + config::id(c.method) + "\" (avi only)";
    };
    k.push_back(detail::number_key_with<C>("integrator.fraction", &C::fraction, "(0, 1]",
                                           [](double x) -> std::optional<std::string> {
                                             if (x > 0.0 && x <= 1.0) return std::nullopt;
                                             return "value " + format_number(x) + " must be in (0, 1]";
                                           })
                    .doc("avi: segment e's step is the largest integrator.dt / 2^k <= fraction x ds_e / c_e "
                         "(its own stability limit)")
                    .when(avi_only, avi_reason));
    k.push_back(detail::choice_key<C>("integrator.queue", &C::queue, kQueues, "an event queue")
                    .doc("avi: calendar (by dyadic level, O(1) per update) or heap (binary heap); the same "
                         "results to round-off (equal-time updates of different levels in another order)")
                    .when(avi_only, avi_reason));
    k.push_back(detail::choice_key<C>("noise.mode", &C::noise_mode, kNoiseModes, "a noise mode")
                    .doc("common: one Brownian motion for all nodes; independent: one per node; modes: Theta_k(s) "
                         "fields"));
    auto theta = detail::number_key<C>("noise.theta", &C::theta)
                     .requirement("required for common, independent and noise.cosine_modes")
                     .allowed("> 0")
                     .doc("noise amplitude Theta")
                     .when(
                         [](const C& c) {
                           return c.noise_mode != NoiseMode::none &&
                                  (c.noise_mode != NoiseMode::modes || c.cosine_modes > 0);
                         },
                         noise_reason);
    theta.check = nullptr;  // > 0 only where it applies (read_noise)
    k.push_back(theta);
    k.push_back(detail::custom_key<C>(
                    "noise.modes", ValueType::number_array_array,
                    [](Resolver& r, C& c) {
                      if (auto v = r.number_array_array("noise.modes")) c.modes = *v;
                    },
                    [](const C& c) { return ScenarioValue(c.modes); })
                    .requirement(modes_rule)
                    .allowed("arrays of n_nodes finite numbers")
                    .doc("explicit modes: Theta_k(s_j), one array per mode k, one value per node j")
                    // explicit modes (built cosine modes are printed as noise.cosine_modes)
                    .when([](const C& c) { return c.noise_mode != NoiseMode::none && c.cosine_modes == 0 && !c.modes.empty(); },
                          noise_reason)
                    .no_default());
    auto cosine = detail::integer_key<C>("noise.cosine_modes", &C::cosine_modes, 1, limits::kMaxCosineModes)
                      .requirement(modes_rule)
                      .default_text("")
                      .allowed("1 ... 100000, within the available memory")
                      .doc("K cosine modes Theta_k(s) = theta cos(k pi s / S), k = 0..K-1")
                      .when([](const C& c) { return c.noise_mode != NoiseMode::none && c.cosine_modes > 0; }, noise_reason)
                      .no_default();
    cosine.check = nullptr;
    k.push_back(cosine);
    for (auto& key : detail::noise_stream_keys<C>(read_noise, noise_applies, noise_reason)) k.push_back(std::move(key));
    k.push_back(detail::every_key<C>());
    for (auto& c : detail::checkpoint_keys<C>()) k.push_back(std::move(c));
    k.push_back(detail::custom_key<C>(
                    "output.probes", ValueType::integer_array,
                    [](Resolver& r, C& c) {
                      const long long n = c.n_nodes();
                      if (auto p = r.integer_array("output.probes")) {
                        if (grid_ok(r)) detail::check_probes(r, *p, n, nodes_text(c));
                        c.probes = *p;
                      } else if (grid_ok(r)) {
                        for (const long long j : {0LL, n / 2, n - 1})
                          if (std::find(c.probes.begin(), c.probes.end(), j) == c.probes.end()) c.probes.push_back(j);
                      }
                    },
                    [](const C& c) { return ScenarioValue(c.probes); })
                    .default_text("[0, n_nodes/2, n_nodes-1]")
                    .allowed("at most 10000 distinct node indices in [0, n_nodes)")
                    .doc("nodes whose phi is a series.csv column phi_<j>"));
    k.push_back(detail::boolean_key<C>("output.fields", &C::fields).doc("write fields.h5"));
    k.push_back(detail::fields_every_key<C>("a fields.h5 snapshot every `fields_every` steps (t = 0 and t = t_end always)"));
    k.push_back(detail::boolean_key<C>("output.fields_csv", &C::fields_csv)
                    .doc("also write the final snapshot as final_fields.csv"));
    k.push_back(detail::boolean_key<C>("output.per_path", &C::per_path)
                    .doc("ensembles (--paths N): also write each path's series"));
    k.push_back(detail::quantiles_key<C>());
    k.push_back(detail::boolean_key<C>("output.plots", &C::plots).doc("make the PNG plots (python3 + matplotlib)"));
    k.push_back(detail::rule<C>(avi_rule));
    return detail::KeyTable<C>(std::move(k));
  }();
  return t;
}

WaveScenario resolve_wave(const RawValue& root, const std::string& file, const std::string& name,
                          const std::string& source, const std::vector<std::string>& overrides) {
  Resolver r(schema(), file, detail::read_entries(schema(), root, file, overrides));
  WaveScenario s;
  s.name = name;
  s.source = source;
  s.given_keys = r.given_keys();
  const std::filesystem::path base = std::filesystem::path(source).parent_path();
  for (const auto& key : table().keys()) {
    if (key.read) key.read(r, s);
    if (key.entry.key == "initial.file") read_initial_data(r, s, base);
  }
  if (r.issues().empty())  // the whole need, with the noise modes (a run of one path)
    if (const auto available = available_memory()) {
      const MemoryEstimate e = estimate_memory(s, 1);
      if (const auto problem = memory_problem(e, *available)) r.issue(e.key, *problem);
    }
  detail::throw_if_issues(r);
  return s;
}

/// Every problem of a wave configuration built in C++: the checks of the keys, the ends, the time grid and the
/// per-node arrays against the grid.
std::vector<InputIssue> wave_problems(const WaveConfig& c) {
  std::vector<InputIssue> out = table().problems(c);
  for (auto& i : detail::time_grid_problems(c.dt, c.t_end, c.steps)) out.push_back(std::move(i));
  const auto add = [&](const std::string& key, std::string message) { out.push_back({"", key, std::move(message)}); };
  if ((c.bc_left == End::periodic) != (c.bc_right == End::periodic))
    add("bc.right", std::string("value \"") + config::id(c.bc_right) + "\" with bc.left = \"" + config::id(c.bc_left) +
                        "\": periodic must be on both ends");
  for (const auto& [key, end] : {std::pair{"bc.left", c.bc_left}, std::pair{"bc.right", c.bc_right}})
    if (end == End::clamped && c.layout != Layout::vertex) add(key, "value \"clamped\" needs grid.layout = \"vertex\"");
  if (!out.empty()) return out;  // the node set depends on the keys above
  const long long n = c.n_nodes();
  const std::string nodes = nodes_text(c);
  if (auto p = detail::count_problem(c.phi0.size(), n, "phi at every node, " + nodes)) add("phi0", *p);
  if (auto p = detail::count_problem(c.phi_t0.size(), n, "phi_t at every node, " + nodes)) add("phi_t0", *p);
  if (c.noise_mode != NoiseMode::none && c.noise_mode != NoiseMode::modes && !(c.theta > 0.0))
    add("noise.theta", "value " + format_number(c.theta) + " must be > 0 with noise.mode = \"" +
                           config::id(c.noise_mode) + "\"");
  if (c.noise_mode == NoiseMode::modes) {
    if (c.modes.empty()) add("noise.modes", "has no mode; noise.mode = \"modes\" needs at least one");
    for (std::size_t k = 0; k < c.modes.size(); ++k)
      if (auto p = detail::count_problem(c.modes[k].size(), n, "Theta_k(s_j) at every node, " + nodes))
        add("noise.modes[" + std::to_string(k) + "]", *p);
  }
  if (auto p = detail::probes_problem(c.probes, n, nodes)) add("output.probes", *p);
  if (!c.avi()) {
    if (!c.regions.empty()) add("regions[0].s_range", "[[regions]] need integrator.method = \"avi\"");
    return out;
  }
  if (c.noise_mode != NoiseMode::none) add("noise.mode", "must be \"none\" with integrator.method = \"avi\"");
  if (c.checkpoints()) add("output.checkpoint_every", "checkpoints are not supported with integrator.method = \"avi\"");
  if (c.start != field::Start::half) add("integrator.start", "must be \"half\" with integrator.method = \"avi\"");
  for (std::size_t i = 0; i < c.regions.size(); ++i) {
    const auto& g = c.regions[i];
    const std::string p = "regions[" + std::to_string(i) + "].";
    if (!(g.s_from < g.s_to)) add(p + "s_range", "must be [s_from, s_to] with s_from < s_to");
    if (g.c < 0 || g.rho < 0 || g.dt < 0 || !std::isfinite(g.c + g.rho + g.dt)) add(p + "c", "c, rho and dt must be > 0 (0: not given)");
    if (g.refine < 1 || g.refine > kMaxRefine) add(p + "refine", "value " + std::to_string(g.refine) + " must be in 1 ... 1024");
  }
  if (out.empty()) {
    config::WaveConfig graded = c;
    build::graded_nodes(graded);
    if (graded.node_s != c.node_s) add("node_s", "is not the graded mesh of the regions (build::graded_nodes)");
    else
      for (auto& i : build::avi_steps(c, build::wave_mesh(c)).problems) out.push_back(std::move(i));
  }
  return out;
}

}  // namespace

// -------------------------------------------------------------------------------------------------------------
// Public API
// -------------------------------------------------------------------------------------------------------------

const std::vector<SchemaEntry>& wave_schema() { return table().schema(); }

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
  auto out = table().resolved(s, [&](const std::string& k) { return s.given(k); });
  for (auto& e : out)  // initial.shape = "file" derived from initial.file is not the default
    if (e.key == "initial.shape" && s.shape == WaveShape::file) e.is_default = false;
  return out;
}

std::vector<std::string> ignored_key_notes(const WaveScenario& s) {
  return table().ignored_notes(s, [&](const std::string& k) { return s.given(k); });
}

std::string to_toml(const WaveScenario& s) {
  const auto notes = ignored_key_notes(s);
  std::string t = detail::toml_header("wave scenario", s.name, s.source, s.steps, s.dt, s.t_end,
                                      "; " + nodes_text(s) + ", ds = " + format_number(s.ds()), notes);
  std::vector<ResolvedEntry> flat, regions;
  for (auto& e : resolved_entries(s)) (e.key.rfind("regions[", 0) == 0 ? regions : flat).push_back(std::move(e));
  t += detail::entries_toml(flat, [&](const ResolvedEntry& e) { return detail::note_comments(notes, e); });
  std::string current;
  for (const auto& e : regions) {
    const auto close = e.key.find(']');
    const std::string table = e.key.substr(0, close + 1), leaf = e.key.substr(close + 2);
    if (table != current) {
      t += "\n[[regions]]  # " + table + "\n";
      current = table;
    }
    t += leaf + " = " + detail::value_toml(e.value) + "\n";
  }
  return t;
}

namespace detail {
/// The wave resolver on a parsed document, for the dispatch of formats.cpp.
WaveScenario resolve_wave_document(const RawValue& root, const std::string& file, const std::string& name,
                                   const std::string& source, const std::vector<std::string>& overrides) {
  return resolve_wave(root, file, name, source, overrides);
}
}  // namespace detail

}  // namespace lievi::io

namespace lievi::config {
std::vector<InputIssue> problems(const WaveConfig& c) { return io::wave_problems(c); }
void validate(const WaveConfig& c) {
  if (auto p = problems(c); !p.empty()) throw invalid_argument(std::move(p));
}
}  // namespace lievi::config
