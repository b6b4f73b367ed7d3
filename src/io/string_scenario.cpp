/// @file src/io/string_scenario.cpp
/// @brief The elastic-string scenario (`model.type = "string"`): the key table of config::ElasticStringConfig
/// (schema, reading, resolved printout and ignored-key notes derive from it), the rules between keys (tension
/// or pre-stretch, the [[regions]], the initial file against the refined mesh), and the mesh the configuration
/// describes (config::string_mesh).
#include "lievi/io/string_scenario.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>

#include "key_table.hpp"
#include "lievi/core/error.hpp"
#include "scenario_reader.hpp"

namespace lievi::config {

const char* id(StringMethod m) { return m == StringMethod::avi ? "avi" : m == StringMethod::synchronous ? "synchronous" : ""; }
const char* id(StringQueue q) { return q == StringQueue::calendar ? "calendar" : q == StringQueue::heap ? "heap" : ""; }
const char* id(StringShape s) {
  constexpr const char* n[] = {"pluck", "gaussian", "straight", "file"};
  return static_cast<std::size_t>(s) < 4 ? n[static_cast<std::size_t>(s)] : "";
}

StringMesh string_mesh(const ElasticStringConfig& c) {
  StringMesh m;
  const double ds = c.length / static_cast<double>(c.J);
  m.s.push_back(0.0);
  for (long long j = 0; j < c.J; ++j) {
    const double a = static_cast<double>(j) * ds, b = j + 1 == c.J ? c.length : static_cast<double>(j + 1) * ds;
    const double mid = 0.5 * (a + b);
    double rho = c.rho, EA = c.EA, dt = 0.0;
    long long refine = 1;
    int region = -1;
    for (std::size_t i = 0; i < c.regions.size(); ++i) {
      const StringRegion& g = c.regions[i];
      if (!(mid >= g.s_from && mid <= g.s_to)) continue;
      region = static_cast<int>(i);
      if (g.rho > 0.0) rho = g.rho;
      if (g.EA > 0.0) EA = g.EA;
      if (g.dt > 0.0) dt = g.dt;
      if (g.refine > 0) refine = g.refine;
    }
    for (long long q = 0; q < refine; ++q) {
      const double sb = q + 1 == refine ? b : a + static_cast<double>(q + 1) * (b - a) / static_cast<double>(refine);
      m.L.push_back(sb - m.s.back());
      m.s.push_back(sb);
      m.rho.push_back(rho);
      m.EA.push_back(EA);
      m.region_dt.push_back(dt);
      m.region.push_back(region);
    }
  }
  return m;
}

}  // namespace lievi::config

namespace lievi::io {
namespace detail {
void check_probes(Resolver& r, const std::vector<long long>& probes, long long n_nodes, const std::string& nodes);
}  // namespace detail
namespace {

using config::ElasticStringConfig;
using config::StringMethod;
using config::StringQueue;
using config::StringRegion;
using config::StringShape;
using detail::has_issue;
using detail::join;
using detail::Key;
using detail::Names;
using detail::names_of;
using detail::RawValue;
using detail::Resolver;
using field::End;

constexpr long long kMaxSegments = 10'000'000;  ///< segments after refinement (memory: ~200 B each)
constexpr long long kMaxRefine = 4096;

const Names<StringMethod> kMethods = names_of({StringMethod::avi, StringMethod::synchronous});
const Names<StringQueue> kQueues = names_of({StringQueue::calendar, StringQueue::heap});
const Names<StringShape> kShapes =
    names_of({StringShape::pluck, StringShape::gaussian, StringShape::straight, StringShape::file});
const Names<End> kEnds = names_of({End::free, End::clamped});

const detail::KeyTable<ElasticStringConfig>& table();

const detail::Schema& schema() {
  static const detail::Schema v{&table().schema(),
                                {"model", "regions", "grid", "bc", "initial", "integrator", "output"},
                                "a string scenario",
                                {{"model.prestretch", "model.tension"}},
                                {"regions"}};
  return v;
}

/// The initial keys each shape reads.
std::vector<std::string> shape_keys(StringShape shape) {
  if (shape == StringShape::pluck) return {"initial.amplitude", "initial.center", "initial.direction"};
  if (shape == StringShape::gaussian)
    return {"initial.amplitude", "initial.center", "initial.width", "initial.direction"};
  if (shape == StringShape::file) return {"initial.file"};
  return {};
}

std::string nodes_text(const config::StringMesh& m, long long J) {
  return "n_nodes = " + std::to_string(m.n_nodes()) + " (" + std::to_string(m.n_segments()) +
         " segments: grid.J = " + std::to_string(J) + " with the regions' refine)";
}

/// The grid and ends were read without issue: the mesh is known.
bool grid_ok(Resolver& r) {
  return !has_issue(r, {"grid.J", "grid.length", "bc.left", "bc.right"}) && r.mark("regions ok") == 1;
}

/// The [[regions]]: s_range, rho, EA, dt (integrator.dt / 2^k), refine; then the size of the refined mesh.
void regions_rule(Resolver& r, ElasticStringConfig& s) {
  const std::size_t count = r.array_length("regions");
  const std::size_t before = r.issues().size();
  const bool dt_ok = s.steps > 0;
  for (std::size_t i = 0; i < count; ++i) {
    const std::string p = "regions[" + std::to_string(i) + "].";
    StringRegion g;
    if (auto v = r.number_array(p + "s_range")) {
      if (v->size() != 2 || !((*v)[0] < (*v)[1]))
        r.issue(p + "s_range", "value " + r.get(p + "s_range")->text() + " must be [s_from, s_to] with s_from < s_to");
      else
        g.s_from = (*v)[0], g.s_to = (*v)[1];
    } else if (!r.has(p + "s_range")) {
      r.missing(p + "s_range", "the part [s_from, s_to] of the string (rest arc length) the region covers");
    }
    if (auto v = r.positive(p + "rho")) g.rho = *v;
    if (auto v = r.positive(p + "EA")) g.EA = *v;
    if (auto v = r.integer_in(p + "refine", 1, kMaxRefine)) g.refine = *v;
    if (auto v = r.positive(p + "dt")) {
      if (s.method == StringMethod::synchronous) {
        g.dt = *v;  // noted as ignored (every segment steps at integrator.dt)
      } else if (dt_ok) {
        const double k = std::log2(s.dt / *v);
        const double kr = std::round(k);
        if (!(kr >= 0.0 && kr <= 52.0 && std::abs(std::ldexp(*v, static_cast<int>(kr)) - s.dt) <= 1e-9 * s.dt))
          r.issue(p + "dt", "value " + format_number(*v) + " is not integrator.dt / 2^k for an integer k in [0, 52] "
                            "(integrator.dt = " + format_number(s.dt) + "; e.g. " +
                            format_number(std::ldexp(s.dt, std::max(0, static_cast<int>(std::ceil(k))))) + ")");
        else
          g.dt = std::ldexp(s.dt, -static_cast<int>(kr));  // exactly dyadic
      }
    }
    s.regions.push_back(g);
  }
  if (r.issues().size() == before && !has_issue(r, {"grid.J", "grid.length"})) {
    long long n = 0;  // segments after refinement, counted without building the mesh
    const double ds = s.length / static_cast<double>(s.J);
    std::vector<long long> rf(static_cast<std::size_t>(std::min(s.J, kMaxSegments + 1)), 1);
    if (s.J <= kMaxSegments) {
      for (long long j = 0; j < s.J; ++j) {
        const double mid = (static_cast<double>(j) + 0.5) * ds;
        for (const auto& g : s.regions)
          if (mid >= g.s_from && mid <= g.s_to && g.refine > 0) rf[static_cast<std::size_t>(j)] = g.refine;
        n += rf[static_cast<std::size_t>(j)];
      }
    }
    if (s.J > kMaxSegments || n > kMaxSegments)
      r.issue(count > 0 ? "regions[0].refine" : "grid.J",
              "the mesh has " + std::to_string(s.J > kMaxSegments ? s.J : n) + " segments after refinement; at most " +
                  std::to_string(kMaxSegments) + " are allowed (use a smaller grid.J or regions' refine)");
    else
      r.mark("regions ok") = 1;
  }
}

/// model.prestretch or model.tension (both given is an issue).
void tension_rule(Resolver& r, ElasticStringConfig& s) {
  if (r.has("model.tension")) {
    if (auto v = r.number("model.tension")) {
      if (*v < 0.0) r.issue("model.tension", "value " + format_number(*v) + " must be >= 0");
      else s.tension = *v, s.tension_given = true;
    }
    if (r.has("model.prestretch"))
      r.issue("model.tension", "both model.prestretch and model.tension are given; give one");
  }
}

/// Reads the CSV of initial.file: x,y,z[,vx,vy,vz], one row per node of the refined mesh.
void read_initial_file(Resolver& r, ElasticStringConfig& s, const std::filesystem::path& base) {
  if (const auto f = r.string("initial.file")) s.file = *f;
  if (has_issue(r, {"initial.shape"})) return;
  if (s.shape == StringShape::file && !r.has("initial.file")) {
    r.missing("initial.file", "the CSV file of initial.shape = \"file\" (columns x,y,z[,vx,vy,vz], one row per node)");
    return;
  }
  if (s.shape != StringShape::file) {
    if (r.has("initial.file"))
      r.issue("initial.file", std::string("is given but initial.shape = \"") + config::id(s.shape) +
                                  "\"; set initial.shape = \"file\" (or leave initial.shape out) to read it");
    return;
  }
  if (!grid_ok(r) || s.file.empty()) return;
  const config::StringMesh mesh = config::string_mesh(s);
  const char* names[] = {"x", "y", "z", "vx", "vy", "vz"};
  int col[6] = {-1, -1, -1, -1, -1, -1};
  std::size_t n_columns = 0, problems = 0;
  const auto problem = [&](long line, std::size_t column, const std::string& message) {
    if (++problems > 20) return;
    std::string where = "line " + std::to_string(line);
    if (column) where += ", column " + std::to_string(column);
    r.issues().push_back({s.file_path, "initial.file", where + ": " + message});
  };
  std::vector<std::pair<long, std::vector<double>>> rows;
  bool have_header = false, header_ok = true;
  const long ln = detail::read_csv_side_file(
      r, "initial.file", s.file, base, s.file_path, have_header,
      [&](const std::vector<std::string>& f, long l) {
        for (std::size_t c = 0; c < f.size(); ++c) {
          int* slot = nullptr;
          for (int k = 0; k < 6; ++k)
            if (f[c] == names[k]) slot = &col[k];
          if (!slot) problem(l, c + 1, "unknown column '" + f[c] + "'; expected the header x,y,z[,vx,vy,vz]");
          else if (*slot >= 0) problem(l, c + 1, "column '" + f[c] + "' given twice");
          else *slot = static_cast<int>(c);
        }
        for (int k = 0; k < 3; ++k)
          if (col[k] < 0) problem(l, 0, std::string("missing column '") + names[k] + "'; expected the header x,y,z[,vx,vy,vz]");
        const int nv = (col[3] >= 0) + (col[4] >= 0) + (col[5] >= 0);
        if (nv != 0 && nv != 3) problem(l, 0, "give all of vx,vy,vz or none (the velocities are then zero)");
        n_columns = f.size();
        return header_ok = problems == 0;
      },
      [&](const std::vector<std::string>& f, long l) {
        std::vector<double> v(n_columns, 0.0);
        if (f.size() != n_columns) {
          problem(l, 0, "has " + std::to_string(f.size()) + " fields; expected " + std::to_string(n_columns) +
                            " as in the header");
        } else {
          for (std::size_t c = 0; c < n_columns; ++c) {
            const auto x = detail::parse_double(f[c]);
            if (!x) problem(l, c + 1, "value '" + f[c] + "' is not a number");
            else if (!std::isfinite(*x)) problem(l, c + 1, "value " + f[c] + " is not finite");
            else v[c] = *x;
          }
        }
        rows.push_back({l, std::move(v)});
      });
  if (ln < 0 || !header_ok) return;
  if (!have_header) {
    problem(ln, 0, "the file is empty; expected the header x,y,z[,vx,vy,vz] and one row per node");
  } else if (static_cast<long long>(rows.size()) != mesh.n_nodes()) {
    problem(rows.empty() ? ln : rows.back().first, 0,
            "the file has " + std::to_string(rows.size()) + " data rows; expected one per node in node order, " +
                nodes_text(mesh, s.J));
  }
  if (problems > 20)
    r.issues().push_back({s.file_path, "initial.file", std::to_string(problems - 20) + " more problems not listed"});
  if (problems != 0) return;
  for (const auto& [line, v] : rows)
    for (int k = 0; k < 6; ++k) (k < 3 ? s.x0 : s.v0).push_back(col[k] >= 0 ? v[static_cast<std::size_t>(col[k])] : 0.0);
  // consecutive nodes must not coincide (the force along the chord is undefined there)
  for (std::size_t a = 0; a + 1 < rows.size(); ++a) {
    const double dx = s.x0[3 * a + 3] - s.x0[3 * a], dy = s.x0[3 * a + 4] - s.x0[3 * a + 1],
                 dz = s.x0[3 * a + 5] - s.x0[3 * a + 2];
    if (dx == 0.0 && dy == 0.0 && dz == 0.0) {
      problem(rows[a + 1].first, 0, "node " + std::to_string(a + 1) + " is at the position of node " +
                                        std::to_string(a) + "; a segment must have a length > 0");
      s.x0.clear(), s.v0.clear();
      return;
    }
  }
}

/// The resolved entries of the regions ("regions[i].s_range", then the values set).
std::vector<ResolvedEntry> region_entries(const ElasticStringConfig& s, const std::function<bool(const std::string&)>&) {
  std::vector<ResolvedEntry> out;
  for (std::size_t i = 0; i < s.regions.size(); ++i) {
    const StringRegion& g = s.regions[i];
    const std::string p = "regions[" + std::to_string(i) + "].";
    out.push_back({p + "s_range", std::vector<double>{g.s_from, g.s_to}, false});
    if (g.rho > 0.0) out.push_back({p + "rho", g.rho, false});
    if (g.EA > 0.0) out.push_back({p + "EA", g.EA, false});
    if (g.dt > 0.0) out.push_back({p + "dt", g.dt, false});
    if (g.refine > 0) out.push_back({p + "refine", g.refine, false});
  }
  return out;
}

const detail::KeyTable<ElasticStringConfig>& table() {
  using C = ElasticStringConfig;
  using detail::NumberCheck;
  static const detail::KeyTable<C> t = [] {
    const auto for_shape = [](std::string key) {
      return [key](const C& c) {
        const auto keys = shape_keys(c.shape);
        return std::find(keys.begin(), keys.end(), key) != keys.end();
      };
    };
    const auto shape_reason = [](const C& c) { return std::string("with initial.shape = \"") + config::id(c.shape) + "\""; };
    const auto avi = [](const C& c) { return c.method == StringMethod::avi; };
    const auto synchronous_reason = [](const C&) {
      return std::string("with integrator.method = \"synchronous\" (every segment steps at integrator.dt)");
    };
    std::vector<Key<C>> k;
    k.push_back(detail::model_type_key<C>("string"));
    k.push_back(detail::number_key<C>("model.rho", &C::rho, NumberCheck::positive)
                    .unit("kg/m")
                    .doc("mass per unit rest length"));
    k.push_back(detail::number_key<C>("model.EA", &C::EA, NumberCheck::positive)
                    .unit("N")
                    .doc("axial stiffness: V_e = 1/2 EA (l_e - L_e)^2 / L_e per segment, l_e = |x_b - x_a|"));
    k.push_back(detail::number_key<C>("model.prestretch", &C::prestretch, NumberCheck::nonnegative)
                    .doc("strain (l - L) / L of the straight initial configuration along e1")
                    .when([](const C& c) { return !c.tension_given; },
                          [](const C&) { return std::string("with model.tension given"); }));
    k.push_back(detail::custom_key<C>("model.tension", ValueType::number, tension_rule,
                                      [](const C& c) { return ScenarioValue(c.tension); })
                    .requirement("optional; not with model.prestretch")
                    .unit("N")
                    .allowed(">= 0")
                    .doc("initial tension instead of model.prestretch: each segment stretched by tension / EA_e "
                         "(equilibrium with a stepped section)")
                    .when([](const C& c) { return c.tension_given; })
                    .no_default());
    const std::string region = "optional; in each [[regions]] table";
    auto s_range = detail::entry_only<C>(
        {"regions.s_range", ValueType::number_array, "required in each [[regions]] table", "", "m",
         "[s_from, s_to], s_from < s_to",
         "the reference segments whose midpoint (rest arc length) lies in [s_from, s_to] take this region's values "
         "(later regions win)",
         ""});
    s_range.expand = region_entries;
    k.push_back(s_range);
    k.push_back(detail::entry_only<C>({"regions.rho", ValueType::number, region, "model.rho", "kg/m", "> 0",
                                       "mass per unit rest length in the region", ""}));
    k.push_back(detail::entry_only<C>({"regions.EA", ValueType::number, region, "model.EA", "N", "> 0",
                                       "axial stiffness in the region (a stepped section)", ""}));
    k.push_back(detail::entry_only<C>({"regions.dt", ValueType::number, region, "by integrator.fraction", "s",
                                       "integrator.dt / 2^k, k in [0, 52]",
                                       "the AVI step of the region's segments (overrides integrator.fraction)", ""}));
    k.push_back(detail::entry_only<C>({"regions.refine", ValueType::integer, region, "1", "",
                                       "1 ... " + std::to_string(kMaxRefine),
                                       "split each of the region's segments into `refine` equal segments (a graded "
                                       "mesh)",
                                       ""}));
    k.push_back(detail::integer_key<C>("grid.J", &C::J, 1, kMaxSegments)
                    .doc("number of reference segments before the regions' refine; ds = length / J"));
    k.push_back(detail::number_key<C>("grid.length", &C::length, NumberCheck::positive)
                    .unit("m")
                    .doc("rest length S of the string, s in [0, S]"));
    k.push_back(detail::choice_key<C>("bc.left", &C::bc_left, kEnds, "a boundary condition of the string")
                    .doc("end s = 0: free, or clamped (the end node held at its initial position)"));
    k.push_back(detail::choice_key<C>("bc.right", &C::bc_right, kEnds, "a boundary condition of the string")
                    .doc("end s = S, as bc.left"));
    auto shape = detail::choice_key<C>("initial.shape", &C::shape, kShapes, "an initial shape");
    shape.read = [read = shape.read](Resolver& r, C& c) {
      read(r, c);
      if (!r.has("initial.shape") && r.has("initial.file")) c.shape = StringShape::file;  // file alone: "file"
    };
    k.push_back(shape
                    .doc("x(0) = (stretched s) e1 + u(s) d: pluck u = A s/s0 then A (S-s)/(S-s0); gaussian "
                         "u = A exp(-((s-s0)/w)^2); straight u = 0; file: positions (and velocities) per node; "
                         "\"file\" when only initial.file is given"));
    k.push_back(detail::number_key<C>("initial.amplitude", &C::amplitude)
                    .unit("m")
                    .doc("A: the transverse displacement of the pluck's apex or the gaussian's peak")
                    .when(for_shape("initial.amplitude"), shape_reason));
    k.push_back(detail::number_key<C>("initial.center", &C::center)
                    .unit("m")
                    .allowed("finite; pluck: in (0, grid.length)")
                    .doc("s0: the pluck's apex, the gaussian's centre (rest arc length)")
                    .when(for_shape("initial.center"), shape_reason));
    k.push_back(detail::number_key<C>("initial.width", &C::width, NumberCheck::positive)
                    .unit("m")
                    .doc("w of the gaussian")
                    .when(for_shape("initial.width"), shape_reason));
    auto direction = detail::array_key<C, 3>("initial.direction", &C::direction)
                         .allowed("3 finite numbers, not all zero")
                         .doc("d: the displacement's direction (normalised)")
                         .when(for_shape("initial.direction"), shape_reason);
    direction.read = [read = direction.read](Resolver& r, C& c) {
      read(r, c);
      if (r.has("initial.direction") && c.direction[0] == 0.0 && c.direction[1] == 0.0 && c.direction[2] == 0.0)
        r.issue("initial.direction", "value [0, 0, 0] must not be zero (it is the displacement's direction)");
    };
    k.push_back(direction);
    k.push_back(detail::array_key<C, 3>("initial.velocity", &C::velocity)
                    .unit("m/s")
                    .doc("a uniform velocity of every free node (added to the file's velocities)"));
    k.push_back(detail::array_key<C, 3>("initial.omega", &C::omega)
                    .unit("rad/s")
                    .doc("a rigid rotation about the origin: v += omega x x(0) at every free node"));
    k.push_back(detail::custom_key<C>("initial.file", ValueType::string, nullptr,
                                      [](const C& c) { return ScenarioValue(c.file); })
                    .requirement("required iff initial.shape = \"file\"")
                    .allowed("CSV path, relative to the scenario file's folder")
                    .doc("header x,y,z[,vx,vy,vz], one row per node of the refined mesh in node order, finite "
                         "values, consecutive nodes distinct")
                    .when(for_shape("initial.file"), shape_reason)
                    .no_default());
    k.push_back(detail::choice_key<C>("integrator.method", &C::method, kMethods, "a string integrator")
                    .doc("avi: every segment its own step dt / 2^k, updates in time order from the event queue; "
                         "synchronous: every segment at dt (velocity Verlet, the AVI with equal steps)"));
    k.push_back(detail::dt_key<C>("required", "the largest step h_max; AVI steps are dt / 2^k, rows at multiples of dt"));
    k.push_back(detail::t_end_key<C>([](Resolver& r, C& c) {
      const detail::TimeGrid g = detail::read_time_grid(r, "integrator.dt", "the time step");
      if (g.ok) c.dt = g.dt, c.t_end = g.t_end, c.steps = g.steps;
    }));
    k.push_back(detail::number_key_with<C>("integrator.fraction", &C::fraction, "(0, 1]",
                                           [](double x) -> std::optional<std::string> {
                                             if (x > 0.0 && x <= 1.0) return std::nullopt;
                                             return "value " + format_number(x) + " must be in (0, 1]";
                                           })
                    .doc("AVI: segment e's step is the largest dt / 2^k <= fraction x its stability limit L_e / "
                         "sqrt(EA_e / rho_e)")
                    .when(avi, synchronous_reason));
    k.push_back(detail::choice_key<C>("integrator.queue", &C::queue, kQueues, "an event queue")
                    .doc("AVI event queue: calendar (by dyadic level, O(1) per update) or heap (binary heap); "
                         "equal-time updates of different levels in another order, so the results agree to "
                         "round-off (bit for bit with equal steps)")
                    .when(avi, synchronous_reason));
    k.push_back(detail::boolean_key<C>("integrator.allow_unstable", &C::allow_unstable)
                    .doc("run even when a segment's step is beyond its stability limit"));
    k.push_back(detail::rule<C>([](Resolver& r, C& c) { r.mark("regions ok") = 0; regions_rule(r, c); }));
    k.push_back(detail::rule<C>([](Resolver& r, C& c) { read_initial_file(r, c, r.folder); }));
    k.push_back(detail::every_key<C>("write a row of series.csv every `every` steps of dt (t = 0 and t = t_end always)"));
    k.push_back(detail::custom_key<C>(
                    "output.probes", ValueType::integer_array,
                    [](Resolver& r, C& c) {
                      if (!grid_ok(r)) {
                        if (auto p = r.integer_array("output.probes")) c.probes = *p;
                        return;
                      }
                      const config::StringMesh mesh = config::string_mesh(c);
                      const long long n = mesh.n_nodes();
                      if (auto p = r.integer_array("output.probes")) {
                        detail::check_probes(r, *p, n, nodes_text(mesh, c.J));
                        c.probes = *p;
                      } else if (!r.has("output.probes")) {
                        for (const long long j : {0LL, n / 2, n - 1})
                          if (std::find(c.probes.begin(), c.probes.end(), j) == c.probes.end()) c.probes.push_back(j);
                      }
                    },
                    [](const C& c) { return ScenarioValue(c.probes); })
                    .default_text("[0, n_nodes/2, n_nodes-1]")
                    .allowed("at most 10000 distinct node indices in [0, n_nodes)")
                    .doc("nodes whose position is a series.csv column x<j>,y<j>,z<j>"));
    k.push_back(detail::boolean_key<C>("output.fields", &C::fields)
                    .doc("write fields.h5 (node positions and velocities)"));
    k.push_back(detail::fields_every_key<C>(
        "a fields.h5 snapshot every `fields_every` steps of dt (t = 0 and t = t_end always)"));
    k.push_back(detail::boolean_key<C>("output.plots", &C::plots).doc("make the PNG plots (python3 + matplotlib)"));
    return detail::KeyTable<C>(std::move(k));
  }();
  return t;
}

ElasticStringScenario resolve_string(const RawValue& root, const std::string& file, const std::string& name,
                                     const std::string& source, const std::vector<std::string>& overrides) {
  Resolver r(schema(), file, detail::read_entries(schema(), root, file, overrides));
  r.folder = std::filesystem::path(source).parent_path();
  ElasticStringScenario s;
  s.name = name;
  s.source = source;
  s.given_keys = r.given_keys();
  table().read(r, s);
  detail::throw_if_issues(r);
  return s;
}

/// Every problem of a configuration built in C++: the checks of the keys, the time grid, the regions, the
/// initial data and probes against the mesh.
std::vector<InputIssue> string_problems(const ElasticStringConfig& c) {
  std::vector<InputIssue> out = table().problems(c);
  for (auto& i : detail::time_grid_problems(c.dt, c.t_end, c.steps)) out.push_back(std::move(i));
  const auto add = [&](const std::string& key, std::string message) { out.push_back({"", key, std::move(message)}); };
  for (const auto& [key, end] : {std::pair{"bc.left", c.bc_left}, std::pair{"bc.right", c.bc_right}})
    if (end != End::free && end != End::clamped)
      add(key, std::string("value \"") + config::id(end) + "\" is not allowed for the string; allowed: free, clamped");
  if (c.tension_given && !(c.tension >= 0.0 && std::isfinite(c.tension)))
    add("model.tension", "value " + format_number(c.tension) + " must be >= 0");
  if (c.direction[0] == 0.0 && c.direction[1] == 0.0 && c.direction[2] == 0.0)
    add("initial.direction", "must not be zero");
  for (std::size_t i = 0; i < c.regions.size(); ++i) {
    const StringRegion& g = c.regions[i];
    const std::string p = "regions[" + std::to_string(i) + "].";
    if (!(g.s_from < g.s_to)) add(p + "s_range", "must be [s_from, s_to] with s_from < s_to");
    if (g.rho < 0.0 || g.EA < 0.0 || g.dt < 0.0) add(p + "rho", "rho, EA and dt must be > 0 (0: not set)");
    if (g.refine < 0 || g.refine > kMaxRefine) add(p + "refine", "must be in [1, " + std::to_string(kMaxRefine) + "]");
  }
  if (!out.empty() || c.J < 1) return out;
  const config::StringMesh mesh = config::string_mesh(c);
  const long long n = mesh.n_nodes();
  if (c.shape == StringShape::file) {
    if (auto p = detail::count_problem(c.x0.size(), 3 * n, "3 coordinates per node, " + nodes_text(mesh, c.J)))
      add("x0", *p);
    if (auto p = detail::count_problem(c.v0.size(), 3 * n, "3 velocities per node, " + nodes_text(mesh, c.J)))
      add("v0", *p);
  }
  if (c.shape == StringShape::pluck && !(c.center > 0.0 && c.center < c.length))
    add("initial.center", "value " + format_number(c.center) + " must be in (0, grid.length) for the pluck");
  if (auto p = detail::probes_problem(c.probes, n, nodes_text(mesh, c.J))) add("output.probes", *p);
  return out;
}

}  // namespace

namespace detail {
/// The string resolver on a parsed document, for the dispatch of formats.cpp.
ElasticStringScenario resolve_string_document(const RawValue& root, const std::string& file, const std::string& name,
                                              const std::string& source, const std::vector<std::string>& overrides) {
  return resolve_string(root, file, name, source, overrides);
}
}  // namespace detail

const std::vector<SchemaEntry>& string_schema() { return table().schema(); }

bool ElasticStringScenario::given(const std::string& key) const {
  return std::binary_search(given_keys.begin(), given_keys.end(), key);
}

ElasticStringScenario load_string_scenario(const std::filesystem::path& path, const std::vector<std::string>& overrides) {
  const std::string file = path.string();
  return resolve_string(detail::parse_toml(detail::read_scenario_text(path), file), file, path.stem().string(), file,
                        overrides);
}

ElasticStringScenario parse_string_scenario(const std::string& toml_text, const std::string& file_label,
                                            const std::string& name, const std::vector<std::string>& overrides) {
  return resolve_string(detail::parse_toml(toml_text, file_label), file_label, name, "", overrides);
}

std::vector<ResolvedEntry> resolved_entries(const ElasticStringScenario& s) {
  auto out = table().resolved(s, [&](const std::string& k) { return s.given(k); });
  for (auto& e : out)  // initial.shape = "file" derived from initial.file is not the default
    if (e.key == "initial.shape" && s.shape == StringShape::file) e.is_default = false;
  return out;
}

std::vector<std::string> ignored_key_notes(const ElasticStringScenario& s) {
  auto notes = table().ignored_notes(s, [&](const std::string& k) { return s.given(k); });
  if (s.method == StringMethod::synchronous)
    for (std::size_t i = 0; i < s.regions.size(); ++i)
      if (s.regions[i].dt > 0.0)
        notes.push_back("key 'regions[" + std::to_string(i) +
                        "].dt' is ignored with integrator.method = \"synchronous\" (every segment steps at "
                        "integrator.dt)");
  return notes;
}

std::string to_toml(const ElasticStringScenario& s) {
  const auto notes = ignored_key_notes(s);
  const config::StringMesh mesh = config::string_mesh(s);
  std::string t = detail::toml_header("string scenario", s.name, s.source, s.steps, s.dt, s.t_end,
                                      "; " + nodes_text(mesh, s.J), notes);
  std::vector<ResolvedEntry> flat, regions;
  for (auto& e : resolved_entries(s)) (e.key.rfind("regions[", 0) == 0 ? regions : flat).push_back(std::move(e));
  const auto comments = [&](const ResolvedEntry& e) { return detail::note_comments(notes, e); };
  t += detail::entries_toml(flat, comments);
  std::string current;
  for (const auto& e : regions) {
    const auto close = e.key.find(']');
    const std::string tbl = e.key.substr(0, close + 1), leaf = e.key.substr(close + 2);
    if (tbl != current) {
      t += "\n[[regions]]  # " + tbl + "\n";
      current = tbl;
    }
    std::string line = leaf + " = " + detail::value_toml(e.value);
    for (const auto& c : comments(e)) {
      if (line.size() < 40) line.resize(40, ' ');
      line += "  # " + c;
    }
    t += line + "\n";
  }
  return t;
}

}  // namespace lievi::io

namespace lievi::config {
std::vector<InputIssue> problems(const ElasticStringConfig& c) { return io::string_problems(c); }
void validate(const ElasticStringConfig& c) {
  if (auto p = problems(c); !p.empty()) throw invalid_argument(std::move(p));
}
}  // namespace lievi::config
