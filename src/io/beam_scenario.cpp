/// @file src/io/beam_scenario.cpp
/// @brief The beam scenario (`model.type = "beam"`): schema, validation of every key, the section constants
/// and K, P (docs/theory/beam.md "The continuous beam"), the initial configuration (straight, the bending example's arc, or a CSV file),
/// the
/// `[[loads]]` tables and the resolved printout. The reading machinery is scenario_reader.cpp.
#include "lievi/io/beam_scenario.hpp"

#include <Eigen/Cholesky>
#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <fstream>
#include <limits>
#include <numbers>
#include <sstream>
#include <stdexcept>
#include <tuple>
#include <unordered_set>

#include "lievi/core/error.hpp"
#include "lievi/io/memory_estimate.hpp"
#include "scenario_reader.hpp"

namespace lievi::io {
namespace detail {

std::optional<long long> integer_bounded(Resolver& r, const std::string& key, long long lo, long long hi) {
  auto i = r.integer(key);
  if (!i || (*i >= lo && *i <= hi)) return i;
  r.issue(key, "value " + std::to_string(*i) + (*i < lo ? " must be >= " + std::to_string(lo)
                                                        : " must be in [" + std::to_string(lo) + ", " +
                                                              std::to_string(hi) + "]"));
  return std::nullopt;
}

std::string short_value(const std::string& text) {
  constexpr std::size_t kMax = 80;
  if (text.size() <= kMax) return text;
  return text.substr(0, kMax - 3) + "... (" + std::to_string(text.size()) + " characters)";
}

void check_probes(Resolver& r, const std::vector<long long>& probes, long long n_nodes, const std::string& nodes) {
  const std::string key = "output.probes", value = "value " + short_value(r.get(key)->text());
  if (probes.size() > static_cast<std::size_t>(limits::kMaxProbes)) {
    r.issue(key, value + " has " + std::to_string(probes.size()) + " nodes; at most " +
                     std::to_string(limits::kMaxProbes) + " are allowed");
    return;
  }
  std::unordered_set<long long> seen, repeated;
  long long outside = 0, twice = 0;
  for (const long long j : probes) {
    if (j < 0 || j >= n_nodes) {
      if (++outside <= limits::kMaxListed)
        r.issue(key, value + " has node " + std::to_string(j) + " outside [0, " + std::to_string(n_nodes) + "); " +
                         nodes);
    } else if (!seen.insert(j).second && repeated.insert(j).second) {  // each repeated node once
      if (++twice <= limits::kMaxListed) r.issue(key, value + " lists node " + std::to_string(j) + " twice");
    }
  }
  if (outside > limits::kMaxListed)
    r.issue(key, "... and " + std::to_string(outside - limits::kMaxListed) + " more nodes outside [0, " +
                     std::to_string(n_nodes) + ")");
  if (twice > limits::kMaxListed)
    r.issue(key, "... and " + std::to_string(twice - limits::kMaxListed) + " more nodes listed twice");
}

}  // namespace detail
namespace {

using detail::join;
using detail::RawValue;
using detail::Resolver;
using Vec3 = Eigen::Vector3d;
using Mat3 = Eigen::Matrix3d;
using Mat6 = std::array<std::array<double, 6>, 6>;

constexpr long long kMaxSnapshots = 1000;
// Integer bounds (docs/scenarios.md): far beyond any run this machine can make, and small enough that the
// counters and products of the run (n_nodes + 1, steps / every, 1000 every, the snapshot count) cannot overflow.
constexpr long long kMaxJ = limits::kMaxGridJ;
constexpr long long kMaxEvery = limits::kMaxSteps;
constexpr long long kMaxNewtonIt = 1000;
constexpr long long kMaxWavenumber = limits::kMaxWavenumber;

const std::vector<std::string> kSections = {"square", "circle", "general", "matrix"};
const std::vector<std::string> kLayouts = {"vertex", "cell"};
const std::vector<std::string> kBoundaries = {"free", "clamped", "prescribed", "periodic"};
const std::vector<std::string> kShapes = {"straight", "arc", "file"};
const std::vector<std::string> kFrames = {"spatial", "body"};
const std::vector<std::string> kMethods = {"type-i", "type-ii"};
const std::vector<std::string> kVariants = {"exact", "approx"};
const std::vector<std::string> kRetractions = {"cayley", "exp"};
const std::vector<std::string> kStarts = {"half", "full"};
const std::vector<std::string> kReferences = {"strain", "initial"};
/// The section and material keys a region may override.
const std::vector<std::string> kRegionKeys = {"rho", "E", "nu", "G", "a", "r", "A", "J1", "J2", "J3", "shear_factor"};
const std::vector<std::string> kNoiseModes = {"none", "common", "independent", "modes"};
/// The spatial profiles f_k(s) of a [[noise.modes]] table (or `values`, one per node).
const std::vector<std::string> kProfiles = {"constant", "cos", "sin"};
/// The keys of a [[noise.modes]] table, in documentation order.
const std::vector<std::string> kModeKeys = {"theta", "profile", "wavenumber", "values"};
/// The entry prefix of the [[noise.modes]] tables: `noise.modes[i].leaf` (schema key `noise.modes.leaf`).
constexpr const char* kModesSection = "noise.modes";

const detail::Schema& schema() {
  static const detail::Schema v{
      &beam_schema(),
      {"model", "regions", "grid", "bc", "initial", "loads", "distributed_loads", "damping", "integrator", "noise",
       "output"},
      "a beam scenario",
      {{"model.nu", "model.G"}},
      {"regions", "loads", "distributed_loads", kModesSection}};
  return v;
}

/// The model keys each section reads.
std::vector<std::string> section_keys(const std::string& section) {
  if (section == "matrix") return {"model.K", "model.P"};
  std::vector<std::string> k = {"model.rho", "model.E", "model.nu", "model.G", "model.shear_factor"};
  if (section == "square") k.emplace_back("model.a");
  if (section == "circle") k.emplace_back("model.r");
  if (section == "general") k.insert(k.end(), {"model.A", "model.J1", "model.J2", "model.J3"});
  return k;
}

/// The initial keys each shape reads (besides initial.shape and initial.velocity).
std::vector<std::string> shape_keys(const std::string& shape) {
  if (shape == "straight") return {"initial.origin", "initial.direction", "initial.normal"};
  if (shape == "arc") return {"initial.radius", "initial.arc_start"};
  return {"initial.file"};
}

bool contains(const std::vector<std::string>& v, const std::string& x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

std::string nodes_text(const BeamScenario& s) {
  return "n_nodes = " + std::to_string(s.n_nodes()) + " (grid.J = " + std::to_string(s.J) + ", layout " +
         s.layout + ")";
}

std::vector<double> to_vector(const std::array<double, 3>& a) {
  return {a.begin(), a.end()};
}
std::vector<double> to_vector(const std::array<double, 6>& a) {
  return {a.begin(), a.end()};
}
std::vector<std::vector<double>> to_vector(const Mat6& m) {
  std::vector<std::vector<double>> out;
  for (const auto& row : m) out.push_back(to_vector(row));
  return out;
}
std::array<double, 3> to_array(const Vec3& v) {
  return {v[0], v[1], v[2]};
}
Vec3 to_eigen(const std::array<double, 3>& a) {
  return {a[0], a[1], a[2]};
}

/// Divide v by its largest |component| when |v|^2 overflows or underflows (a huge or tiny finite vector), so
/// that v.normalized() is right; otherwise v is left as it is (the same rounding as before for usual vectors).
/// False for the zero vector.
bool rescale(Vec3& v) {
  const double scale = v.cwiseAbs().maxCoeff();
  if (!(scale > 0.0)) return false;
  const double sq = v.squaredNorm();
  if (!(std::isfinite(sq) && sq >= std::numeric_limits<double>::min())) v /= scale;
  return true;
}

/// The pose (x, y, z, qw, qx, qy, qz) of position p and rotation R (Hamilton quaternion, qw >= 0).
std::array<double, 7> pose_of(const Vec3& p, const Mat3& R) {
  Eigen::Quaterniond q(R);
  q.normalize();
  if (q.w() < 0.0) q.coeffs() = -q.coeffs();
  return {p[0], p[1], p[2], q.w(), q.x(), q.y(), q.z()};
}

// ---------------------------------------------------------------------------------------------------------------
// initial.file
// ---------------------------------------------------------------------------------------------------------------

/// Reads the CSV of initial.file; each problem is an issue on (CSV file, initial.file) with its line.
class InitialFileReader {
 public:
  InitialFileReader(Resolver& r, BeamScenario& s) : r_(r), s_(s) {}

  void read(const std::filesystem::path& base) {
    bool have_header = false, header_ok = true;
    const long ln = detail::read_csv_side_file(
        r_, "initial.file", s_.file, base, s_.file_path, have_header,
        [&](const std::vector<std::string>& f, long l) { return header_ok = header(f, l); },
        [&](const std::vector<std::string>& f, long l) { row(f, l); });
    if (ln < 0 || !header_ok) return;
    if (!have_header) {
      problem(ln, 0,
              std::string("the file is empty; expected the header ") + kHeader + " and one row per node");
      return;
    }
    finish(ln);
  }

 private:
  static constexpr std::size_t kMaxProblems = 20;
  static constexpr const char* kHeader = "x,y,z,qw,qx,qy,qz[,w1,w2,w3,v1,v2,v3]";
  static constexpr const char* kPose[7] = {"x", "y", "z", "qw", "qx", "qy", "qz"};
  static constexpr const char* kVel[6] = {"w1", "w2", "w3", "v1", "v2", "v3"};

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
      int* slot = nullptr;
      for (int k = 0; k < 7; ++k)
        if (fields[c] == kPose[k]) slot = &pose_[k];
      for (int k = 0; k < 6; ++k)
        if (fields[c] == kVel[k]) slot = &vel_[k];
      if (!slot) {
        problem(ln, c + 1, "unknown column '" + fields[c] + "'; expected the header " + kHeader);
      } else if (*slot >= 0) {
        problem(ln, c + 1, "column '" + fields[c] + "' given twice");
      } else {
        *slot = static_cast<int>(c);
      }
    }
    for (int k = 0; k < 7; ++k)
      if (pose_[k] < 0)
        problem(ln, 0, std::string("missing column '") + kPose[k] + "'; expected the header " + kHeader);
    const int n_vel = static_cast<int>(std::count_if(vel_, vel_ + 6, [](int c) { return c >= 0; }));
    if (n_vel != 0 && n_vel != 6)
      problem(ln, 0,
              "has " + std::to_string(n_vel) +
                  " of the velocity columns w1,w2,w3,v1,v2,v3; give all six or none");
    s_.file_velocity = n_vel == 6;
    n_columns_ = fields.size();
    return problems_ == before;
  }

  void row(const std::vector<std::string>& fields, long ln) {
    last_row_ = ln;
    ++rows_;
    if (fields.size() != n_columns_) {
      problem(ln, 0,
              "has " + std::to_string(fields.size()) + " fields; expected " + std::to_string(n_columns_) +
                  " as in the header");
      return;
    }
    std::vector<double> v(n_columns_, 0.0);
    bool ok = true;
    for (std::size_t c = 0; c < n_columns_; ++c) {
      const auto x = detail::parse_double(fields[c]);
      if (!x) {
        problem(ln, c + 1, "value '" + fields[c] + "' is not a number");
        ok = false;
      } else if (!std::isfinite(*x)) {
        problem(ln, c + 1, "value " + fields[c] + " is not finite");
        ok = false;
      }
      v[c] = x.value_or(0.0);
    }
    if (!ok) return;
    std::array<double, 7> pose{};
    for (int k = 0; k < 7; ++k) pose[static_cast<std::size_t>(k)] = v[static_cast<std::size_t>(pose_[k])];
    const double norm =
        std::sqrt(pose[3] * pose[3] + pose[4] * pose[4] + pose[5] * pose[5] + pose[6] * pose[6]);
    if (!(std::abs(norm - 1.0) <= 1e-9)) {
      problem(ln, 0,
              "the quaternion (qw, qx, qy, qz) has norm " + format_number(norm) +
                  "; it must be 1 within 1e-9 (a unit quaternion, Hamilton convention, body to spatial)");
      return;
    }
    const double sign = pose[3] < 0.0 ? -1.0 : 1.0;  // q and -q are the same rotation; store qw >= 0
    for (std::size_t k = 3; k < 7; ++k) pose[k] *= sign / norm;
    s_.poses.push_back(pose);
    std::array<double, 6> w{};
    if (s_.file_velocity)
      for (int k = 0; k < 6; ++k) w[static_cast<std::size_t>(k)] = v[static_cast<std::size_t>(vel_[k])];
    s_.velocity.push_back(w);
  }

  void finish(long ln) {
    const auto n = static_cast<std::size_t>(s_.n_nodes());
    if (rows_ != n && problems_ == 0)
      problem(rows_ == 0 ? ln : last_row_, 0,
              "the file has " + std::to_string(rows_) + " rows; expected one per node, " + nodes_text(s_));
    if (problems_ > kMaxProblems)
      r_.issues().push_back({s_.file_path, "initial.file",
                             std::to_string(problems_ - kMaxProblems) + " more problems not listed"});
    if (problems_ != 0) {
      s_.poses.clear();
      s_.velocity.clear();
    }
  }

  Resolver& r_;
  BeamScenario& s_;
  int pose_[7] = {-1, -1, -1, -1, -1, -1, -1};
  int vel_[6] = {-1, -1, -1, -1, -1, -1};
  std::size_t n_columns_ = 0, problems_ = 0, rows_ = 0;
  long last_row_ = 0;
};

// ---------------------------------------------------------------------------------------------------------------
// bc.left_motion / bc.right_motion: the pose table of a prescribed end
// ---------------------------------------------------------------------------------------------------------------

/// Reads a pose table t,x,y,z,qw,qx,qy,qz (columns in this order); each problem is an issue on (CSV file, key)
/// with its line. Times from 0, strictly increasing; unit quaternions within 1e-9.
void read_pose_table(Resolver& r, const std::string& key, PoseTable& table, const std::filesystem::path& base) {
  static const std::vector<std::string> kColumns = {"t", "x", "y", "z", "qw", "qx", "qy", "qz"};
  std::size_t problems = 0;
  auto problem = [&](long line, const std::string& message) {
    if (++problems <= 20) r.issues().push_back({table.file_path, key, "line " + std::to_string(line) + ": " + message});
  };
  bool had_header = false, first_seen = false;
  const long ln = detail::read_csv_side_file(
      r, key, table.file, base, table.file_path, had_header,
      [&](const std::vector<std::string>& f, long l) {
        if (f != kColumns) {
          problem(l, "header '" + join(f, ",") + "'; expected t,x,y,z,qw,qx,qy,qz");
          return false;
        }
        return true;
      },
      [&](const std::vector<std::string>& f, long l) {
        if (f.size() != kColumns.size()) {
          problem(l, "has " + std::to_string(f.size()) + " fields; expected 8 (t,x,y,z,qw,qx,qy,qz)");
          return;
        }
        std::array<double, 8> v{};
        for (std::size_t c = 0; c < 8; ++c) {
          const auto x = detail::parse_double(f[c]);
          if (!x || !std::isfinite(*x)) {
            problem(l, "column " + kColumns[c] + ": value '" + f[c] + "' is not a finite number");
            return;
          }
          v[c] = *x;
        }
        if (!first_seen && v[0] != 0.0) problem(l, "the first time is " + f[0] + "; the table must start at t = 0");
        first_seen = true;
        if (!table.times.empty() && !(v[0] > table.times.back())) {
          problem(l, "time " + f[0] + " is not after the previous row's " + format_number(table.times.back()) +
                         "; times must be strictly increasing");
          return;
        }
        const double norm = std::sqrt(v[4] * v[4] + v[5] * v[5] + v[6] * v[6] + v[7] * v[7]);
        if (!(std::abs(norm - 1.0) <= 1e-9)) {
          problem(l, "the quaternion (qw, qx, qy, qz) has norm " + format_number(norm) +
                         "; it must be 1 within 1e-9 (Hamilton convention, body to spatial)");
          return;
        }
        const double sign = v[4] < 0.0 ? -1.0 : 1.0;
        table.times.push_back(v[0]);
        table.poses.push_back({v[1], v[2], v[3], sign * v[4] / norm, sign * v[5] / norm, sign * v[6] / norm,
                               sign * v[7] / norm});
      });
  if (ln < 0) return;
  if (problems > 20)
    r.issues().push_back({table.file_path, key, std::to_string(problems - 20) + " more problems not listed"});
  if (problems == 0 && table.times.empty())
    problem(ln, "the table has no rows; expected the header t,x,y,z,qw,qx,qy,qz and one row per time from t = 0");
  if (problems != 0) {
    table.times.clear();
    table.poses.clear();
  }
}

// ---------------------------------------------------------------------------------------------------------------
// The resolver, section by section
// ---------------------------------------------------------------------------------------------------------------

/// A 6x6 matrix key: symmetric (within 1e-12 of its largest entry) and positive definite (Eigen's LLT).
void check_spd(Resolver& r, const std::string& key, const Mat6& m) {
  Eigen::Matrix<double, 6, 6> M;
  double scale = 0.0;
  for (int i = 0; i < 6; ++i)
    for (int j = 0; j < 6; ++j) {
      M(i, j) = m[static_cast<std::size_t>(i)][static_cast<std::size_t>(j)];
      scale = std::max(scale, std::abs(M(i, j)));
    }
  // scaled by the largest entry, so that huge finite entries neither overflow M - M^T nor the Cholesky factor
  if (scale > 0.0) M /= scale;
  const double asym = (M - M.transpose()).cwiseAbs().maxCoeff() * scale;
  if (asym > 1e-12 * scale) {
    r.issue(key, "value " + r.get(key)->text() + " is not symmetric (largest |M_ij - M_ji| = " +
                     format_number(asym) + "); expected a symmetric positive definite 6x6 matrix");
    return;
  }
  Eigen::LLT<Eigen::Matrix<double, 6, 6>> llt(M);
  if (llt.info() != Eigen::Success || !(scale > 0.0))
    r.issue(key,
            "value " + r.get(key)->text() +
                " is not positive definite (Cholesky failed); expected a symmetric positive definite 6x6 "
                "matrix");
}

/// A, J1, J2, J3 from the section's own constants (square, circle), then K and P (docs/theory/beam.md "The continuous beam").
void section_matrices(BeamScenario& s) {
  if (s.section == "square") {
    s.A = s.a * s.a;
    s.J2 = s.J3 = std::pow(s.a, 4) / 12.0;
    s.J1 = s.J2 + s.J3;
  } else if (s.section == "circle") {
    s.A = std::numbers::pi * s.r * s.r;
    s.J2 = s.J3 = std::numbers::pi * std::pow(s.r, 4) / 4.0;
    s.J1 = std::numbers::pi * std::pow(s.r, 4) / 2.0;
  }
  s.K = {};
  s.P = {};
  const double K_diag[6] = {s.rho * s.J1, s.rho * s.J2, s.rho * s.J3, s.rho * s.A, s.rho * s.A, s.rho * s.A};
  const double P_diag[6] = {
      s.G * s.J1, s.E * s.J2, s.E * s.J3, s.E * s.A, s.shear_factor * s.G * s.A, s.shear_factor * s.G * s.A};
  for (std::size_t i = 0; i < 6; ++i) {
    s.K[i][i] = K_diag[i];
    s.P[i][i] = P_diag[i];
  }
}

/// model.reference, model.reference_strain and the [[regions]]; then K, P per segment.
void resolve_regions(Resolver& r, BeamScenario& s, bool grid_ok) {
  if (auto v = r.choice("model.reference", kReferences, "a reference configuration")) s.reference = *v;
  if (auto v = r.vec6("model.reference_strain")) s.reference_strain = *v;
  if (r.has("model.reference_strain") && s.reference == "initial")
    r.issue("model.reference_strain",
            "is given but model.reference = \"initial\" (the initial configuration is stress-free); give one");
  const std::size_t count = r.array_length("regions");
  if (count > 0 && s.section == "matrix")
    r.issue("regions[0].s_range",
            "[[regions]] need a section given by its constants (square, circle, general), not model.section = "
            "\"matrix\"");
  for (std::size_t i = 0; i < count; ++i) {
    const std::string p = "regions[" + std::to_string(i) + "].";
    BeamRegion g;
    if (auto v = r.number_array(p + "s_range")) {
      if (v->size() != 2 || !((*v)[0] < (*v)[1]))
        r.issue(p + "s_range", "value " + r.get(p + "s_range")->text() + " must be [s_from, s_to] with s_from < s_to");
      else
        g.s_from = (*v)[0], g.s_to = (*v)[1];
    } else if (!r.has(p + "s_range")) {
      r.missing(p + "s_range", "the part [s_from, s_to] of the beam the region covers");
    }
    for (const auto& leaf : kRegionKeys) {
      const std::string key = p + leaf;
      if (!r.has(key)) continue;
      if (s.section != "matrix" && !contains(section_keys(s.section), "model." + leaf)) {
        r.issue(key, "is not a constant of model.section = \"" + s.section + "\"; a region may set " +
                         join(section_keys(s.section)));
        continue;
      }
      if (leaf == "nu") {
        if (auto v = r.number(key)) {
          if (*v > -1.0 && *v < 0.5)
            g.values.emplace_back(leaf, *v);
          else
            r.issue(key, "value " + format_number(*v) + " must be in (-1, 0.5) (Poisson's ratio)");
        }
      } else if (auto v = r.positive(key)) {
        g.values.emplace_back(leaf, *v);
      }
    }
    if (r.has(p + "nu") && r.has(p + "G"))
      r.issue(p + "G", "both " + p + "nu and " + p + "G are given; give one");
    s.regions.push_back(std::move(g));
  }
  if (!grid_ok) return;
  const auto m = static_cast<std::size_t>(s.n_segments());
  s.segment_K.assign(m, s.K);
  s.segment_P.assign(m, s.P);
  if (s.regions.empty() || s.section == "matrix") return;
  // A segment takes, for each key leaf, the value of the last region covering its midpoint that sets the leaf
  // (later regions win); G follows E and nu unless the last region setting nu or G set G (or, with none, the
  // base gave G). Each region covers a contiguous run of segments (the midpoints increase), found by binary
  // search; "the last region setting leaf k" is painted in reverse region order with a next-unpainted
  // pointer, so the work is O((segments + regions) log segments), not segments x regions.
  std::vector<double> mid(m);
  for (std::size_t e = 0; e < m; ++e)
    mid[e] = (static_cast<double>(e) + (s.layout == "cell" && !s.periodic() ? 1.0 : 0.5)) * s.ds();
  const std::size_t n_leaves = kRegionKeys.size();  // leaf k = kRegionKeys[k]; slot n_leaves: any region
  // region indices as 32 bits (4 bytes per leaf and segment; a file cannot hold 2^32 - 1 tables)
  constexpr std::uint32_t kNone = std::numeric_limits<std::uint32_t>::max();
  std::vector<std::vector<std::uint32_t>> last(n_leaves + 1, std::vector<std::uint32_t>(m, kNone));
  std::vector<std::size_t> next(m + 1);
  for (std::size_t k = 0; k <= n_leaves; ++k) {
    for (std::size_t e = 0; e <= m; ++e) next[e] = e;
    const auto find = [&](std::size_t e) {  // the first unpainted segment >= e (path halving)
      while (next[e] != e) e = next[e] = next[next[e]];
      return e;
    };
    for (std::size_t i = s.regions.size(); i-- > 0;) {
      const BeamRegion& g = s.regions[i];
      bool sets = k == n_leaves;
      for (const auto& x : g.values) sets = sets || x.first == kRegionKeys[k];
      if (!sets) continue;
      // covered: mid >= s_from and mid < s_to
      const auto lo = static_cast<std::size_t>(std::lower_bound(mid.begin(), mid.end(), g.s_from) - mid.begin());
      const auto hi = static_cast<std::size_t>(std::lower_bound(mid.begin(), mid.end(), g.s_to) - mid.begin());
      for (std::size_t e = find(lo); e < hi; e = find(e)) {
        last[k][e] = static_cast<std::uint32_t>(i);
        next[e] = e + 1;
      }
    }
  }
  const auto leaf_index = [&](const char* leaf) {
    return static_cast<std::size_t>(std::find(kRegionKeys.begin(), kRegionKeys.end(), leaf) - kRegionKeys.begin());
  };
  const std::size_t k_nu = leaf_index("nu"), k_G = leaf_index("G");
  for (std::size_t e = 0; e < m; ++e) {
    if (last[n_leaves][e] == kNone) continue;  // no region covers the segment
    BeamScenario local;  // the base section with the regions' values (only the section constants are copied)
    local.section = s.section;
    local.rho = s.rho, local.E = s.E, local.nu = s.nu, local.G = s.G, local.G_given = s.G_given;
    local.a = s.a, local.r = s.r, local.A = s.A, local.J1 = s.J1, local.J2 = s.J2, local.J3 = s.J3;
    local.shear_factor = s.shear_factor;
    double* slots[] = {&local.rho, &local.E, &local.nu, &local.G, &local.a,  &local.r,
                       &local.A,   &local.J1, &local.J2, &local.J3, &local.shear_factor};
    for (std::size_t k = 0; k < n_leaves; ++k)
      if (last[k][e] != kNone)
        for (const auto& [leaf, x] : s.regions[last[k][e]].values)
          if (leaf == kRegionKeys[k]) *slots[k] = x;  // (a leaf given twice in a table: TOML refuses it)
    const std::uint32_t i_nu = last[k_nu][e], i_G = last[k_G][e];
    if (i_nu != kNone || i_G != kNone) local.G_given = i_G != kNone && (i_nu == kNone || i_G > i_nu);
    // G follows E and nu after the last covering region unless G is given (by it or the base)
    if (!local.G_given) local.G = local.E / (2.0 * (1.0 + local.nu));
    section_matrices(local);
    s.segment_K[e] = local.K;
    s.segment_P[e] = local.P;
  }
}

void resolve_model(Resolver& r, BeamScenario& s) {
  if (!r.has("model.type"))
    r.missing("model.type", "the model, \"beam\"");
  else
    r.choice("model.type", {"beam"}, "a model this scenario format supports");
  bool section_ok = true;
  if (auto v = r.choice("model.section", kSections, "a beam section"))
    s.section = *v;
  else if (r.has("model.section"))
    section_ok = false;

  if (auto v = r.positive("model.rho")) s.rho = *v;
  if (auto v = r.positive("model.E")) s.E = *v;
  if (auto v = r.number("model.nu")) {
    if (*v > -1.0 && *v < 0.5)
      s.nu = *v;
    else
      r.issue("model.nu", "value " + format_number(*v) + " must be in (-1, 0.5) (Poisson's ratio)");
  }
  if (auto v = r.positive("model.G")) s.G = *v;
  s.G_given = r.has("model.G");
  if (s.G_given && r.has("model.nu"))
    r.issue("model.G", "both model.nu and model.G are given; give one (G = E / (2 (1 + nu)) otherwise)");
  if (auto v = r.positive("model.a")) s.a = *v;
  if (auto v = r.positive("model.r")) s.r = *v;
  for (auto [key, slot] : {std::pair{"model.A", &s.A}, std::pair{"model.J1", &s.J1},
                           std::pair{"model.J2", &s.J2}, std::pair{"model.J3", &s.J3}})
    if (auto v = r.positive(key)) *slot = *v;
  if (auto v = r.positive("model.shear_factor")) s.shear_factor = *v;
  const auto K = r.mat6("model.K"), P = r.mat6("model.P");
  if (auto v = r.vec3("model.gravity")) s.gravity = {(*v)[0], (*v)[1], (*v)[2]};
  if (!section_ok) return;

  const std::string sec = "model.section = \"" + s.section + "\"";
  if (s.section == "matrix") {
    for (const auto& [key, m] : {std::pair{"model.K", &K}, std::pair{"model.P", &P}}) {
      if (!r.has(key))
        r.missing(key, std::string(key == std::string("model.K") ? "the inertia" : "the stiffness") +
                           " matrix of " + sec);
      else if (*m)
        check_spd(r, key, **m);
    }
    if (K) s.K = *K;
    if (P) s.P = *P;
    return;
  }
  if (!s.G_given) s.G = s.E / (2.0 * (1.0 + s.nu));
  if (s.section == "square") {
    if (!r.has("model.a")) r.missing("model.a", "the edge of the square section of " + sec);
  } else if (s.section == "circle") {
    if (!r.has("model.r")) r.missing("model.r", "the radius of the circular section of " + sec);
  } else {
    for (const char* key : {"model.A", "model.J1", "model.J2", "model.J3"})
      if (!r.has(key)) r.missing(key, "a section constant of " + sec);
  }
  section_matrices(s);
}

/// grid and bc; true when the node set is known.
bool resolve_grid(Resolver& r, BeamScenario& s) {
  const std::size_t before = r.issues().size();
  if (auto v = detail::integer_bounded(r, "grid.J", 1, kMaxJ)) s.J = *v;
  if (auto v = r.choice("grid.layout", kLayouts, "a grid layout")) s.layout = *v;
  if (auto v = r.positive("grid.length")) s.length = *v;
  const std::pair<const char*, std::string*> ends[] = {{"bc.left", &s.bc_left}, {"bc.right", &s.bc_right}};
  for (const auto& [key, value] : ends)
    if (auto v = r.choice(key, kBoundaries, "a boundary condition")) *value = *v;
  for (const auto& [key, value] : ends)
    if ((*value == "clamped" || *value == "prescribed") && s.layout != "vertex")
      r.issue(key, "value \"" + *value +
                       "\" needs grid.layout = \"vertex\" (a cell-layout end node lies half a cell inside the "
                       "beam); grid.layout is \"" +
                       s.layout + "\"");
  if ((s.bc_left == "periodic") != (s.bc_right == "periodic"))
    r.issue(s.bc_left == "periodic" ? "bc.right" : "bc.left",
            "value \"" + (s.bc_left == "periodic" ? s.bc_right : s.bc_left) +
                "\": \"periodic\" must be given for both ends (bc.left = \"" + s.bc_left + "\", bc.right = \"" +
                s.bc_right + "\")");
  if (s.bc_left == "periodic" && s.bc_right == "periodic" && s.J < 2)
    r.issue("grid.J", "value " + std::to_string(s.J) + ": a periodic beam needs grid.J >= 2");
  if (auto v = r.vec3("bc.shift")) s.shift = {(*v)[0], (*v)[1], (*v)[2]};
  for (auto [key, table, end] : {std::tuple{"bc.left_motion", &s.left_motion, &s.bc_left},
                                 std::tuple{"bc.right_motion", &s.right_motion, &s.bc_right}}) {
    if (auto v = r.string(key)) {
      table->file = *v;
      // an empty name would be read as the scenario's folder; refuse it here, as a missing table
      if (v->empty() && *end == "prescribed")
        r.issue(key, std::string("value \"\" is an empty file name; expected the CSV path of the pose table "
                                 "(t,x,y,z,qw,qx,qy,qz) of the prescribed end ") +
                         (table == &s.left_motion ? "bc.left" : "bc.right"));
    }
    if (*end == "prescribed" && !r.has(key))
      r.missing(key, std::string("the pose table (CSV t,x,y,z,qw,qx,qy,qz) of the prescribed end ") +
                         (table == &s.left_motion ? "bc.left" : "bc.right"));
  }
  return r.issues().size() == before;
}

void resolve_initial(Resolver& r, BeamScenario& s, bool grid_ok, const std::filesystem::path& base) {
  bool shape_ok = true;
  if (auto v = r.choice("initial.shape", kShapes, "an initial shape")) {
    s.shape = *v;
  } else if (r.has("initial.shape")) {
    shape_ok = false;
  } else if (r.has("initial.file")) {
    s.shape = "file";  // initial.file alone means shape "file"
  }
  if (auto v = r.vec3("initial.origin")) s.origin = {(*v)[0], (*v)[1], (*v)[2]};
  const auto direction = r.vec3("initial.direction");
  const auto normal = r.vec3("initial.normal");
  if (auto v = r.positive("initial.radius")) s.radius = *v;
  if (auto v = r.number("initial.arc_start")) s.arc_start = *v;
  const auto file = r.string("initial.file");
  if (file) s.file = *file;
  if (auto v = r.vec6("initial.velocity")) s.initial_velocity = *v;

  // the straight frame: d normalised, n orthogonalised against d, R = [d | n x d | n]
  Vec3 d = to_eigen(s.direction), n = to_eigen(s.normal);
  bool frame_ok = true;
  if (direction) {
    d = *direction;
    if (!rescale(d)) {
      r.issue("initial.direction", "value " + r.get("initial.direction")->text() +
                                       " is the zero vector; expected a non-zero beam axis");
      frame_ok = false;
    }
  }
  if (normal) n = *normal;
  if (frame_ok) {
    d.normalize();
    rescale(n);  // (a zero normal stays zero and is refused below)
    const double n0 = n.norm();
    n -= n.dot(d) * d;
    if (!(n.norm() > 1e-9 * n0)) {
      const auto text = [&](const char* key, const std::array<double, 3>& fallback) {
        if (const RawValue* v = r.get(key)) return v->text();
        return detail::value_toml(to_vector(fallback));
      };
      r.issue(normal ? "initial.normal" : "initial.direction",
              "value " +
                  text(normal ? "initial.normal" : "initial.direction", normal ? s.normal : s.direction) +
                  ": initial.normal " + text("initial.normal", s.normal) +
                  " is zero or parallel to initial.direction " + text("initial.direction", s.direction) +
                  "; expected a normal not parallel to the beam axis");
      frame_ok = false;
    } else {
      n.normalize();
      // The printed frame must resolve to itself when read back (validate's printout is loadable again), but
      // normalising and orthogonalising an already unit, orthogonal pair can move it by an ulp, or swap it
      // between two neighbours. Repeat the two steps to their fixed point; on a two-cycle keep the
      // lexicographically smaller pair, which a read-back reaches too.
      const auto step = [](const Vec3& a, const Vec3& b) {
        const Vec3 a2 = a.normalized();
        Vec3 b2 = b - b.dot(a2) * a2;
        b2.normalize();
        return std::pair<Vec3, Vec3>{a2, b2};
      };
      const auto key = [](const Vec3& a, const Vec3& b) {
        return std::array<double, 6>{a[0], a[1], a[2], b[0], b[1], b[2]};
      };
      Vec3 d_prev = d, n_prev = n;
      for (int pass = 0; pass < 8; ++pass) {
        const auto [d2, n2] = step(d, n);
        if (d2 == d && n2 == n) break;  // fixed point
        if (pass > 0 && d2 == d_prev && n2 == n_prev) {  // two-cycle {(d, n), (d2, n2)}
          if (key(d2, n2) < key(d, n)) d = d2, n = n2;
          break;
        }
        d_prev = d, n_prev = n;
        d = d2, n = n2;
      }
      if (direction) s.direction = to_array(d);
      s.normal = to_array(n);
    }
  }
  if (normal && !frame_ok) s.normal = {(*normal)[0], (*normal)[1], (*normal)[2]};
  if (!shape_ok) return;
  if (s.shape == "file" && !r.has("initial.file")) {
    r.missing("initial.file",
              "the CSV file of initial.shape = \"file\" (columns x,y,z,qw,qx,qy,qz, one row per node)");
  } else if (s.shape != "file" && r.has("initial.file")) {
    r.issue("initial.file", "is given but initial.shape = \"" + s.shape +
                                "\"; set initial.shape = \"file\" (or leave initial.shape out) to read it");
  }
  if (!grid_ok) return;
  if (s.shape == "file") {
    if (file) InitialFileReader(r, s).read(base);
    if (s.file_velocity && r.has("initial.velocity"))
      r.issue("initial.velocity",
              "is given but initial.file \"" + s.file +
                  "\" has the velocity columns w1,...,v3; give the velocity in one place");
    if (!s.file_velocity)
      for (auto& w : s.velocity) w = s.initial_velocity;
    return;
  }
  const long long N = s.n_nodes();
  if (s.shape == "straight" && !frame_ok) return;
  for (long long j = 0; j < N; ++j) {
    const double sj = s.s_of(j);
    Vec3 p;
    Mat3 R;
    if (s.shape == "straight") {
      p = to_eigen(s.origin) + sj * d;
      R.col(0) = d;
      R.col(1) = n.cross(d);
      R.col(2) = n;
    } else {
      const double u = s.arc_start + sj / s.radius;
      p = s.radius * Vec3(0.0, std::cos(u), std::sin(u));
      R.col(0) = Vec3(0.0, -std::sin(u), std::cos(u));
      R.col(1) = Vec3(0.0, -std::cos(u), -std::sin(u));
      R.col(2) = Vec3(1.0, 0.0, 0.0);
    }
    s.poses.push_back(pose_of(p, R));
    s.velocity.push_back(s.initial_velocity);
  }
  if (s.periodic() && s.shape == "straight" && !r.has("bc.shift")) s.shift = to_array(s.length * d);
  // the closure is a translation: an arc's end frame must be its start frame, i.e. a full ring
  if (s.periodic() && s.shape == "arc" && !(std::abs(s.length - 2.0 * std::numbers::pi * s.radius) <= 1e-9 * s.length))
    r.issue("grid.length", "value " + format_number(s.length) +
                               ": a periodic arc must close into a ring, grid.length = 2 pi initial.radius = " +
                               format_number(2.0 * std::numbers::pi * s.radius) +
                               " (the periodic closure bc.shift is a translation and cannot turn the frames)");
}

/// The pose tables of prescribed ends; the table's pose at t = 0 must be the end node's initial pose.
void resolve_motion(Resolver& r, BeamScenario& s, bool grid_ok, const std::filesystem::path& base) {
  for (auto [key, table, end, node] :
       {std::tuple{"bc.left_motion", &s.left_motion, &s.bc_left, 0LL},
        std::tuple{"bc.right_motion", &s.right_motion, &s.bc_right, s.n_nodes() - 1}}) {
    if (*end != "prescribed" || table->file.empty() || !grid_ok) continue;  // (an empty name is an issue)
    read_pose_table(r, key, *table, base);
    if (table->poses.empty() || s.poses.size() != static_cast<std::size_t>(s.n_nodes())) continue;
    const auto& a = table->poses.front();
    const auto& b = s.poses[static_cast<std::size_t>(node)];
    const double dp = (Vec3(a[0], a[1], a[2]) - Vec3(b[0], b[1], b[2])).norm();
    const Eigen::Quaterniond qa(a[3], a[4], a[5], a[6]), qb(b[3], b[4], b[5], b[6]);
    const double angle = qa.angularDistance(qb);
    if (dp > 1e-6 * s.length || angle > 1e-6)
      r.issues().push_back(
          {table->file_path, key,
           "the pose at t = 0 differs from the initial pose of node " + std::to_string(node) + " by " +
               format_number(dp) + " m and " + format_number(angle) +
               " rad (allowed: 1e-6 grid.length and 1e-6 rad); the table must start at the end node's initial "
               "pose (x, y, z, qw, qx, qy, qz) = (" +
               format_number(b[0]) + ", " + format_number(b[1]) + ", " + format_number(b[2]) + ", " +
               format_number(b[3]) + ", " + format_number(b[4]) + ", " + format_number(b[5]) + ", " +
               format_number(b[6]) + ")"});
  }
}

/// The factor table of a load (times, factors, hold) under prefix p ("loads[0]." ...).
void resolve_factor_table(Resolver& r, const std::string& p, std::vector<double>& t_out,
                          std::vector<double>& f_out, bool& hold) {
  if (auto v = r.boolean(p + "hold")) hold = *v;
  const auto times = r.number_array(p + "times"), factors = r.number_array(p + "factors");
  if (r.has(p + "times") != r.has(p + "factors")) {
    const std::string given = r.has(p + "times") ? p + "times" : p + "factors";
    const std::string other = r.has(p + "times") ? p + "factors" : p + "times";
    r.issue(given, "is given without " + other + "; give both (the factor table) or neither (factor 1)");
  }
  if (times) {
    if (times->empty())
      r.issue(p + "times", "value [] has no time; give at least one (or leave times and factors out)");
    for (std::size_t k = 1; k < times->size(); ++k)
      if (!((*times)[k] > (*times)[k - 1])) {
        r.issue(p + "times", "value " + r.get(p + "times")->text() + " is not strictly increasing (entry " +
                                 std::to_string(k) + ")");
        break;
      }
    t_out = *times;
  }
  if (factors) f_out = *factors;
  if (times && factors && times->size() != factors->size())
    r.issue(p + "factors", "value " + r.get(p + "factors")->text() + " has " + std::to_string(factors->size()) +
                               " entries; expected one per time, " + std::to_string(times->size()));
}

void resolve_distributed_loads(Resolver& r, BeamScenario& s) {
  const std::size_t count = r.array_length("distributed_loads");
  for (std::size_t i = 0; i < count; ++i) {
    const std::string p = "distributed_loads[" + std::to_string(i) + "].";
    BeamDistributedLoad L;
    L.s_to = s.length;
    if (auto v = r.choice(p + "frame", kFrames, "a load frame")) L.frame = *v;
    if (auto v = r.vec6(p + "wrench"))
      L.wrench = *v;
    else if (!r.has(p + "wrench"))
      r.missing(p + "wrench", "the wrench per unit length (m1, m2, m3, f1, f2, f3) of the load");
    if (auto v = r.number_array(p + "s_range")) {
      if (v->size() != 2 || !((*v)[0] < (*v)[1]) || (*v)[0] < 0.0 || (*v)[1] > s.length)
        r.issue(p + "s_range", "value " + r.get(p + "s_range")->text() +
                                   " must be [s_from, s_to] with 0 <= s_from < s_to <= grid.length = " +
                                   format_number(s.length));
      else
        L.s_from = (*v)[0], L.s_to = (*v)[1];
    }
    resolve_factor_table(r, p, L.times, L.factors, L.hold);
    s.distributed_loads.push_back(std::move(L));
  }
}

void resolve_damping(Resolver& r, BeamScenario& s) {
  for (auto [key, slot] : {std::pair{"damping.angular", &s.damping_angular}, std::pair{"damping.linear", &s.damping_linear}})
    if (auto v = r.number(key)) {
      if (*v >= 0.0)
        *slot = *v;
      else
        r.issue(key, "value " + format_number(*v) + " must be >= 0 (a damping rate in 1/s)");
    }
}

void resolve_loads(Resolver& r, BeamScenario& s, bool grid_ok) {
  const std::size_t count = r.array_length("loads");
  const long long N = s.n_nodes();
  for (std::size_t i = 0; i < count; ++i) {
    const std::string p = "loads[" + std::to_string(i) + "].";
    BeamLoad L;
    const std::string node_key = p + "node";
    if (const RawValue* v = r.get(node_key)) {
      const bool integral =
          v->kind == RawValue::Kind::integer ||
          (v->kind == RawValue::Kind::floating && v->d == std::floor(v->d) && std::abs(v->d) < 9e15);
      if (v->kind == RawValue::Kind::string && v->s == "last") {
        L.last = true;
        L.node = N - 1;
      } else if (integral) {
        L.node = v->kind == RawValue::Kind::integer ? v->i : static_cast<long long>(v->d);
        if (grid_ok && (L.node < 0 || L.node >= N))
          r.issue(node_key, "value " + std::to_string(L.node) + " must be a node index in [0, " +
                                std::to_string(N) + ") or \"last\"; " + nodes_text(s));
      } else {
        r.issue(node_key, "value " + v->text() + " is not a node; allowed: an integer in [0, " +
                              std::to_string(N) + ") or \"last\"");
      }
    } else {
      r.missing(node_key, "the node the load acts at (an index, or \"last\")");
    }
    if (auto v = r.choice(p + "frame", kFrames, "a load frame")) L.frame = *v;
    if (auto v = r.vec6(p + "wrench"))
      L.wrench = *v;
    else if (!r.has(p + "wrench"))
      r.missing(p + "wrench", "the wrench (M1, M2, M3, F1, F2, F3) of the load");
    resolve_factor_table(r, p, L.times, L.factors, L.hold);
    s.loads.push_back(std::move(L));
  }
}

void resolve_integrator(Resolver& r, BeamScenario& s) {
  if (auto m = r.choice("integrator.method", kMethods, "a beam integrator")) s.method = *m;
  if (auto m = r.choice("integrator.variant", kVariants, "a variant")) s.variant = *m;
  if (auto v = r.choice("integrator.retraction", kRetractions, "a retraction")) s.retraction = *v;
  if (auto v = r.choice("integrator.start", kStarts, "a start")) s.start = *v;
  const detail::TimeGrid g = detail::read_time_grid(r, "integrator.dt", "the time step");
  if (g.ok) s.dt = g.dt, s.t_end = g.t_end, s.steps = g.steps;
  if (auto v = r.positive("integrator.newton_tol")) s.newton_tol = *v;
  if (auto v = detail::integer_bounded(r, "integrator.newton_maxit", 1, kMaxNewtonIt)) s.newton_maxit = *v;
  if (auto v = r.boolean("integrator.allow_unstable")) s.allow_unstable = *v;
}

/// The [[noise.modes]] tables: theta (6 numbers, not all zero), a profile (constant, cos / sin with a
/// wavenumber) or one value per node; then Theta_k(s_j) = f_k(s_j) theta at every node.
void resolve_noise_modes(Resolver& r, BeamScenario& s, bool grid_ok) {
  const std::size_t count = r.array_length(kModesSection);
  const long long n = s.n_nodes();
  for (std::size_t i = 0; i < count; ++i) {
    const std::string p = std::string(kModesSection) + "[" + std::to_string(i) + "].";
    BeamNoiseMode m;
    bool ok = true;
    if (auto v = r.vec6(p + "theta")) {
      m.theta = *v;
      if (std::all_of(v->begin(), v->end(), [](double x) { return x == 0.0; })) {
        r.issue(p + "theta", "value " + r.get(p + "theta")->text() +
                                 " is zero; give a non-zero Theta (w1, w2, w3, v1, v2, v3) or leave the mode out");
        ok = false;
      }
    } else {
      if (!r.has(p + "theta"))
        r.missing(p + "theta", "the amplitude Theta (w1, w2, w3, v1, v2, v3) of the mode, body frame");
      ok = false;
    }
    const bool has_values = r.has(p + "values"), has_profile = r.has(p + "profile");
    if (auto v = r.choice(p + "profile", kProfiles, "a mode profile"))
      m.profile = *v;
    else if (has_profile)
      ok = false;
    if (has_values && has_profile) {
      r.issue(p + "values", "both " + p + "profile and " + p +
                                "values are given; give one (values: f_k(s_j) at every node, instead of a profile)");
      ok = false;
    }
    const bool waves = !has_values && (m.profile == "cos" || m.profile == "sin");
    if (auto k = r.integer(p + "wavenumber")) {
      m.wavenumber = *k;
      if (*k > kMaxWavenumber) {
        r.issue(p + "wavenumber", "value " + std::to_string(*k) + " must be <= " + std::to_string(kMaxWavenumber));
        ok = false;
      } else if (!waves) {
        r.issue(p + "wavenumber",
                "is given but " +
                    (has_values ? p + "values gives the profile" : p + "profile = \"" + m.profile + "\"") +
                    "; a wavenumber is for the profiles \"cos\" and \"sin\"");
        ok = false;
      } else if (const long long lo = m.profile == "sin" ? 1 : 0; *k < lo) {
        r.issue(p + "wavenumber", "value " + std::to_string(*k) + " must be >= " + std::to_string(lo) +
                                      " for profile \"" + m.profile + "\" (f(s) = " + m.profile + "(k pi s / L))");
        ok = false;
      }
    } else if (r.has(p + "wavenumber")) {
      ok = false;
    } else if (waves) {
      r.missing(p + "wavenumber", "the wavenumber k of profile \"" + m.profile + "\": f(s) = " + m.profile +
                                      "(k pi s / L), L = grid.length");
      ok = false;
    }
    if (has_values) {
      m.profile = "values";
      if (auto v = r.number_array(p + "values")) {
        m.values = *v;
        if (grid_ok && static_cast<long long>(v->size()) != n) {
          r.issue(p + "values", "value " + r.get(p + "values")->text() + " has " + std::to_string(v->size()) +
                                    " entries; expected one per node, " + nodes_text(s));
          ok = false;
        } else if (std::all_of(v->begin(), v->end(), [](double x) { return x == 0.0; })) {
          r.issue(p + "values", "value " + r.get(p + "values")->text() + " is zero at every node; the mode would be zero");
          ok = false;
        }
      } else {
        ok = false;
      }
    }
    if (ok && grid_ok) {
      double largest = 0.0;
      for (long long j = 0; j < n; ++j) {
        const double arg = static_cast<double>(m.wavenumber) * std::numbers::pi * s.s_of(j) / s.length;
        const double f = m.profile == "values" ? m.values[static_cast<std::size_t>(j)]
                         : m.profile == "cos"  ? std::cos(arg)
                         : m.profile == "sin"  ? std::sin(arg)
                                               : 1.0;
        largest = std::max(largest, std::abs(f));
        std::array<double, 6> t{};
        for (std::size_t c = 0; c < 6; ++c) t[c] = f * m.theta[c];
        m.at_nodes.push_back(t);
      }
      // sin(k pi j / J) vanishes at every vertex node when k is a multiple of J (to round-off)
      if (waves && !(largest > 1e-12))
        r.issue(p + "wavenumber", "value " + std::to_string(m.wavenumber) + ": profile \"" + m.profile +
                                      "\" is zero at every node (" + nodes_text(s) +
                                      "); the mode would be zero, choose another wavenumber");
    }
    s.noise_modes.push_back(std::move(m));
  }
}

/// `modes_given`: [[noise.modes]] (or noise.modes) is in the file; `modes_empty`: it is the empty array.
void resolve_noise(Resolver& r, BeamScenario& s, bool grid_ok, bool modes_given, bool modes_empty) {
  if (auto m = r.choice("noise.mode", kNoiseModes, "a noise mode")) s.noise_mode = *m;
  const auto theta = r.vec6("noise.theta");
  if (theta) s.theta = *theta;
  detail::read_noise_stream(r, s.dt, s.steps > 0, s.seed, s.path, s.base_dt, s.refine_log2, s.truncate);
  resolve_noise_modes(r, s, grid_ok);
  const std::string mode_text = "noise.mode = \"" + s.noise_mode + "\"";
  if (s.noise_mode == "modes" && s.method == "type-ii")
    r.issue("noise.mode", "value \"modes\" with integrator.method = \"type-ii\": a Type-II potential is driven by one "
                          "Brownian motion per node; allowed: common, independent, none (or integrator.method = "
                          "\"type-i\" for spatial modes)");
  if (s.noise_mode == "modes") {  // noise.theta is not read (noted as ignored): each mode has its own theta
    if (!modes_given)
      r.issue(kModesSection, "missing: " + mode_text +
                                 " needs at least one [[noise.modes]] table (theta = [w1, w2, w3, v1, v2, v3] and "
                                 "profile = \"constant\" | \"cos\" | \"sin\" with wavenumber, or values = [one per node])");
    else if (modes_empty)
      r.issue(kModesSection, "value [] has no mode; give at least one [[noise.modes]] table with " + mode_text);
    return;
  }
  if (modes_given && !r.has("noise.mode"))
    r.issue(kModesSection, "[[noise.modes]] tables are given but noise.mode is not (default \"none\"); set "
                           "noise.mode = \"modes\" to use them");
  else if (modes_given && s.noise_mode != "none")  // with an explicit "none" they are noted as ignored
    r.issue(kModesSection, "[[noise.modes]] tables are given but " + mode_text +
                               "; they are only for noise.mode = \"modes\" (allowed: " + join(kNoiseModes) + ")");
  if (s.noise_mode == "none") return;  // the other keys are noted as ignored
  if (!r.has("noise.theta"))
    r.missing("noise.theta", "the noise amplitude Theta (w1, w2, w3, v1, v2, v3) of " + mode_text);
  else if (theta && std::all_of(theta->begin(), theta->end(), [](double x) { return x == 0.0; }))
    r.issue("noise.theta", "value " + r.get("noise.theta")->text() + " is zero; give a non-zero Theta with " + mode_text +
                               " (or noise.mode = \"none\")");
}

long long snapshots(long long steps, long long f) {
  return steps / f + 1 + (steps % f != 0 ? 1 : 0);
}

void resolve_output(Resolver& r, BeamScenario& s, bool grid_ok) {
  if (auto v = detail::integer_bounded(r, "output.every", 1, kMaxEvery)) s.every = *v;
  const long long n = s.n_nodes();
  if (auto p = r.integer_array("output.probes")) {
    if (grid_ok) detail::check_probes(r, *p, n, nodes_text(s));
    s.probes = *p;
  } else if (grid_ok) {
    s.probes = {n / 2};
  }
  if (auto v = r.boolean("output.fields")) s.fields = *v;
  if (auto v = detail::integer_bounded(r, "output.fields_every", 1, kMaxEvery)) {
    s.fields_every = *v;
  } else if (!r.has("output.fields_every") && s.steps > 0) {
    long long m = std::max(1LL, s.steps / (kMaxSnapshots * s.every));
    while (snapshots(s.steps, m * s.every) > kMaxSnapshots) ++m;
    s.fields_every = m * s.every;
  }
  if (auto v = r.boolean("output.vtk")) s.vtk = *v;
  if (auto v = r.boolean("output.fields_csv")) s.fields_csv = *v;
  if (auto v = r.boolean("output.plots")) s.plots = *v;
  if (auto v = r.boolean("output.per_path")) s.per_path = *v;
  if (auto v = r.boolean("output.animation")) s.animation = *v;
}

/// Whether a --set key names the [[noise.modes]] tables ("noise.modes", "noise.modes[0].theta", ...).
bool is_modes_key(const std::string& key) {
  const std::string m = kModesSection;
  return key.rfind(m, 0) == 0 && (key.size() == m.size() || key[m.size()] == '.' || key[m.size()] == '[');
}

BeamScenario resolve_beam(const RawValue& root_in, const std::string& file, const std::string& name,
                          const std::string& source, const std::vector<std::string>& overrides_in) {
  // [[noise.modes]] is an array of tables inside [noise]: lift it to a top-level array section "noise.modes",
  // so the reader flattens it as it does [[loads]] (entries noise.modes[i].leaf, checked against the schema
  // keys noise.modes.leaf, not settable with --set)
  RawValue root = root_in;
  bool modes_given = false, modes_empty = false;
  const auto noise = std::find_if(root.members.begin(), root.members.end(),
                                  [](const auto& m) { return m.first == "noise"; });
  if (noise != root.members.end() && noise->second.kind == RawValue::Kind::table) {
    auto& members = noise->second.members;
    const auto it = std::find_if(members.begin(), members.end(), [](const auto& m) { return m.first == "modes"; });
    if (it != members.end()) {
      RawValue modes = std::move(it->second);
      modes_empty = modes.kind == RawValue::Kind::array && modes.items.empty();
      members.erase(it);
      root.members.emplace_back(kModesSection, std::move(modes));  // invalidates `noise`, not used after
      modes_given = true;
    }
  }
  std::vector<std::string> overrides;
  std::vector<InputIssue> set_issues;
  for (const auto& o : overrides_in) {
    const std::string key = detail::trim(o.substr(0, o.find('=')));
    if (o.find('=') != std::string::npos && is_modes_key(key))
      set_issues.push_back({"--set", key, "the [[noise.modes]] tables cannot be changed with --set; edit them in the file"});
    else
      overrides.push_back(o);
  }
  detail::RawInput input = detail::read_entries(schema(), root, file, overrides);
  input.issues.insert(input.issues.end(), set_issues.begin(), set_issues.end());
  Resolver r(schema(), file, std::move(input));
  BeamScenario s;
  s.name = name;
  s.source = source;
  s.given_keys = r.given_keys();
  resolve_model(r, s);
  bool grid_ok = resolve_grid(r, s);
  if (grid_ok) {  // before the per-node arrays of the initial configuration are built
    if (const auto available = available_memory())
      if (const auto problem = memory_problem(estimate_memory(s, 1), *available)) {
        r.issue("grid.J", *problem);
        grid_ok = false;
      }
  }
  resolve_initial(r, s, grid_ok, std::filesystem::path(source).parent_path());
  resolve_regions(r, s, grid_ok);
  resolve_motion(r, s, grid_ok, std::filesystem::path(source).parent_path());
  resolve_loads(r, s, grid_ok);
  resolve_distributed_loads(r, s);
  resolve_damping(r, s);
  resolve_integrator(r, s);
  resolve_noise(r, s, grid_ok, modes_given, modes_empty);
  resolve_output(r, s, grid_ok);
  if (r.issues().empty())  // the whole need, with the noise modes (a run of one path)
    if (const auto available = available_memory()) {
      const MemoryEstimate e = estimate_memory(s, 1);
      if (const auto problem = memory_problem(e, *available)) r.issue(e.key, *problem);
    }
  detail::throw_if_issues(r);
  return s;
}

/// Whether a (non-load) key applies to the resolved scenario (else it is printed only when given, as
/// ignored).
bool applies(const BeamScenario& s, const std::string& key) {
  if (key == "model.reference_strain") return s.reference == "strain";
  if (key.rfind("model.", 0) == 0 && key != "model.type" && key != "model.section" &&
      key != "model.gravity" && key != "model.reference") {
    if (!contains(section_keys(s.section), key)) return false;
    if (key == "model.nu") return !s.G_given;
    if (key == "model.G") return s.G_given;
    return true;
  }
  if (key == "bc.shift") return s.periodic();
  if (key == "noise.theta") return s.noise_mode == "common" || s.noise_mode == "independent";
  if (key.rfind("noise.", 0) == 0 && key != "noise.mode") return s.noise_mode != "none";
  if (key == "bc.left_motion") return s.bc_left == "prescribed";
  if (key == "bc.right_motion") return s.bc_right == "prescribed";
  if (key.rfind("initial.", 0) == 0 && key != "initial.shape") {
    if (key == "initial.velocity") return !s.file_velocity;
    return contains(shape_keys(s.shape), key);
  }
  return true;
}

std::string why_ignored(const BeamScenario& s, const std::string& key) {
  if (key == "model.nu" && s.G_given && s.section != "matrix") return "model.G given";
  if (key == "model.reference_strain") return "model.reference = \"" + s.reference + "\"";
  if (key.rfind("model.", 0) == 0) return "model.section = \"" + s.section + "\"";
  if (key == "initial.velocity") return "velocities from initial.file";
  if (key == "bc.shift") return "ends that are not periodic";
  if (key == "noise.theta" && s.noise_mode == "modes")
    return "noise.mode = \"modes\" (each [[noise.modes]] table has its own theta)";
  if (key.rfind("noise.", 0) == 0) return "noise.mode = \"none\"";
  if (key == "bc.left_motion") return "bc.left = \"" + s.bc_left + "\"";
  if (key == "bc.right_motion") return "bc.right = \"" + s.bc_right + "\"";
  return "initial.shape = \"" + s.shape + "\"";
}

ScenarioValue value_of(const BeamScenario& s, const std::string& k) {
  const std::vector<std::pair<const char*, ScenarioValue>> values = {
      {"model.type", std::string("beam")},
      {"model.section", s.section},
      {"model.rho", s.rho},
      {"model.E", s.E},
      {"model.nu", s.nu},
      {"model.G", s.G},
      {"model.a", s.a},
      {"model.r", s.r},
      {"model.A", s.A},
      {"model.J1", s.J1},
      {"model.J2", s.J2},
      {"model.J3", s.J3},
      {"model.shear_factor", s.shear_factor},
      {"model.K", to_vector(s.K)},
      {"model.P", to_vector(s.P)},
      {"model.gravity", to_vector(s.gravity)},
      {"model.reference", s.reference},
      {"model.reference_strain", to_vector(s.reference_strain)},
      {"grid.J", s.J},
      {"grid.layout", s.layout},
      {"grid.length", s.length},
      {"bc.left", s.bc_left},
      {"bc.right", s.bc_right},
      {"bc.shift", to_vector(s.shift)},
      {"bc.left_motion", s.left_motion.file},
      {"bc.right_motion", s.right_motion.file},
      {"damping.angular", s.damping_angular},
      {"damping.linear", s.damping_linear},
      {"initial.shape", s.shape},
      {"initial.origin", to_vector(s.origin)},
      {"initial.direction", to_vector(s.direction)},
      {"initial.normal", to_vector(s.normal)},
      {"initial.radius", s.radius},
      {"initial.arc_start", s.arc_start},
      {"initial.file", s.file},
      {"initial.velocity", to_vector(s.initial_velocity)},
      {"integrator.method", s.method},
      {"integrator.variant", s.variant},
      {"integrator.retraction", s.retraction},
      {"integrator.start", s.start},
      {"integrator.dt", s.dt},
      {"integrator.t_end", s.t_end},
      {"integrator.newton_tol", s.newton_tol},
      {"integrator.newton_maxit", s.newton_maxit},
      {"integrator.allow_unstable", s.allow_unstable},
      {"noise.mode", s.noise_mode},
      {"noise.theta", to_vector(s.theta)},
      {"noise.seed", static_cast<long long>(s.seed)},
      {"noise.path", static_cast<long long>(s.path)},
      {"noise.base_dt", s.base_dt},
      {"noise.truncate", s.truncate},
      {"output.every", s.every},
      {"output.probes", s.probes},
      {"output.fields", s.fields},
      {"output.fields_every", s.fields_every},
      {"output.vtk", s.vtk},
      {"output.fields_csv", s.fields_csv},
      {"output.plots", s.plots},
      {"output.per_path", s.per_path},
      {"output.animation", s.animation},
  };
  for (const auto& [key, v] : values)
    if (k == key) return v;
  throw std::logic_error("schema key without a resolved value: " + k);  // keep schema and struct in step
}

/// The resolved entries of one load ("loads[i].node", ...).
std::vector<ResolvedEntry> load_entries(const BeamScenario& s, std::size_t i) {
  const BeamLoad& L = s.loads[i];
  const std::string p = "loads[" + std::to_string(i) + "].";
  const auto given = [&](const char* leaf) { return s.given(p + leaf); };
  std::vector<ResolvedEntry> out;
  out.push_back({p + "node", L.last ? ScenarioValue(std::string("last")) : ScenarioValue(L.node), false});
  out.push_back({p + "frame", L.frame, !given("frame")});
  out.push_back({p + "wrench", to_vector(L.wrench), false});
  if (!L.times.empty() || given("times")) {
    out.push_back({p + "times", L.times, false});
    out.push_back({p + "factors", L.factors, false});
  }
  out.push_back({p + "hold", L.hold, !given("hold")});
  return out;
}

/// The resolved entries of one noise mode ("noise.modes[i].theta", then profile (and wavenumber) or values).
std::vector<ResolvedEntry> noise_mode_entries(const BeamScenario& s, std::size_t i) {
  const BeamNoiseMode& m = s.noise_modes[i];
  const std::string p = std::string(kModesSection) + "[" + std::to_string(i) + "].";
  std::vector<ResolvedEntry> out;
  out.push_back({p + "theta", to_vector(m.theta), false});
  if (m.profile == "values") {
    out.push_back({p + "values", m.values, false});
    return out;
  }
  out.push_back({p + "profile", m.profile, !s.given(p + "profile")});
  if (m.profile == "cos" || m.profile == "sin") out.push_back({p + "wavenumber", m.wavenumber, false});
  return out;
}

/// The resolved entries of one region ("regions[i].s_range", then the given values).
std::vector<ResolvedEntry> region_entries(const BeamScenario& s, std::size_t i) {
  const BeamRegion& g = s.regions[i];
  const std::string p = "regions[" + std::to_string(i) + "].";
  std::vector<ResolvedEntry> out;
  out.push_back({p + "s_range", std::vector<double>{g.s_from, g.s_to}, false});
  for (const auto& [leaf, v] : g.values) out.push_back({p + leaf, v, false});
  return out;
}

/// The resolved entries of one distributed load ("distributed_loads[i].frame", ...).
std::vector<ResolvedEntry> distributed_load_entries(const BeamScenario& s, std::size_t i) {
  const BeamDistributedLoad& L = s.distributed_loads[i];
  const std::string p = "distributed_loads[" + std::to_string(i) + "].";
  const auto given = [&](const char* leaf) { return s.given(p + leaf); };
  std::vector<ResolvedEntry> out;
  out.push_back({p + "frame", L.frame, !given("frame")});
  out.push_back({p + "wrench", to_vector(L.wrench), false});
  out.push_back({p + "s_range", std::vector<double>{L.s_from, L.s_to}, !given("s_range")});
  if (!L.times.empty() || given("times")) {
    out.push_back({p + "times", L.times, false});
    out.push_back({p + "factors", L.factors, false});
  }
  out.push_back({p + "hold", L.hold, !given("hold")});
  return out;
}

/// f(t) of a factor table: 1 without a table; the linear interpolation inside it; outside 0 or (hold) the end
/// values.
double table_factor(const std::vector<double>& times, const std::vector<double>& factors, bool hold, double t) {
  if (times.empty() || factors.size() != times.size()) return 1.0;
  if (t < times.front()) return hold ? factors.front() : 0.0;
  if (t > times.back()) return hold ? factors.back() : 0.0;
  const auto it = std::upper_bound(times.begin(), times.end(), t);
  if (it == times.end()) return factors.back();                 // t == times.back()
  const auto k = static_cast<std::size_t>(it - times.begin());  // times[k-1] <= t < times[k]
  const double w = (t - times[k - 1]) / (times[k] - times[k - 1]);
  return (1.0 - w) * factors[k - 1] + w * factors[k];
}

}  // namespace

// -------------------------------------------------------------------------------------------------------------
// Public API
// -------------------------------------------------------------------------------------------------------------

double BeamLoad::factor(double t) const { return table_factor(times, factors, hold, t); }
double BeamDistributedLoad::factor(double t) const { return table_factor(times, factors, hold, t); }

const std::vector<SchemaEntry>& beam_schema() {
  static const std::vector<SchemaEntry> schema = [] {
    const std::string opt = "optional";
    const std::string not_matrix = "optional; not for model.section = \"matrix\"";
    const std::string general = "required for model.section = \"general\"";
    const std::string matrix = "required for model.section = \"matrix\"";
    const std::string straight = "optional; initial.shape = \"straight\"";
    const std::string arc = "optional; initial.shape = \"arc\"";
    const std::string load = "optional; in each [[loads]] table";
    const std::string dload = "optional; in each [[distributed_loads]] table";
    const std::string region = "optional; in each [[regions]] table (the keys of model.section)";
    std::vector<SchemaEntry> v{
        {"model.type", ValueType::string, "required", "", "", "beam", "the model", ""},
        {"model.section", ValueType::string, opt, "\"square\"", "", join(kSections),
         "cross-section: square (edge a), circle (radius r), general (A, J1, J2, J3) or matrix (K, P in "
         "full)",
         ""},
        {"model.rho", ValueType::number, not_matrix, "1.0", "kg/m^3", "> 0", "density rho", ""},
        {"model.E", ValueType::number, not_matrix, "1.0", "Pa", "> 0", "Young's modulus E", ""},
        {"model.nu", ValueType::number, "optional; at most one of model.nu, model.G", "0.0", "", "(-1, 0.5)",
         "Poisson's ratio: G = E / (2 (1 + nu))", ""},
        {"model.G", ValueType::number, "optional; at most one of model.nu, model.G", "E / (2 (1 + nu))", "Pa",
         "> 0", "shear modulus G", ""},
        {"model.a", ValueType::number, "required for model.section = \"square\"", "", "m", "> 0",
         "square edge a: A = a^2, J2 = J3 = a^4/12, J1 = J2 + J3", ""},
        {"model.r", ValueType::number, "required for model.section = \"circle\"", "", "m", "> 0",
         "circle radius r: A = pi r^2, J2 = J3 = pi r^4/4, J1 = pi r^4/2", ""},
        {"model.A", ValueType::number, general, "", "m^2", "> 0", "section area A", ""},
        {"model.J1", ValueType::number, general, "", "m^4", "> 0",
         "polar moment J1 (rotary inertia rho J1 and torsional stiffness G J1)", ""},
        {"model.J2", ValueType::number, general, "", "m^4", "> 0", "second moment J2 (bending about e2)", ""},
        {"model.J3", ValueType::number, general, "", "m^4", "> 0", "second moment J3 (bending about e3)", ""},
        {"model.shear_factor", ValueType::number, not_matrix, "1.0", "", "> 0",
         "shear factor k_s: P = diag(G J1, E J2, E J3, E A, k_s G A, k_s G A)", ""},
        {"model.K", ValueType::mat6, matrix, "", "", "symmetric positive definite 6x6",
         "inertia per length K (angular, linear); default diag(rho J1, rho J2, rho J3, rho A, rho A, rho A)",
         ""},
        {"model.P", ValueType::mat6, matrix, "", "", "symmetric positive definite 6x6",
         "stiffness P of the strain (kappa, Gamma) - E6", ""},
        {"model.gravity", ValueType::vec3, opt, "[0.0, 0.0, 0.0]", "m/s^2", "finite",
         "gravity vector (potential -rho A g . p per length; rho A = K[3][3])", ""},
        {"model.reference", ValueType::string, opt, "\"strain\"", "", join(kReferences),
         "stress-free state: strain (model.reference_strain on every segment) or initial (the initial "
         "configuration is stress-free: each segment's reference strain is its initial discrete strain)",
         ""},
        {"model.reference_strain", ValueType::vec6, "optional; model.reference = \"strain\"",
         "[0.0, 0.0, 0.0, 1.0, 0.0, 0.0]", "1/m, —", "finite",
         "reference strain (kappa1, kappa2, kappa3, Gamma1, Gamma2, Gamma3): E6 = straight and unsheared; a "
         "constant kappa makes a pre-curved or pre-twisted beam",
         ""},
        {"regions.s_range", ValueType::number_array, "required in each [[regions]] table", "", "m",
         "[s_from, s_to], s_from < s_to",
         "segments whose midpoint lies in [s_from, s_to) take this region's values (later regions win); node "
         "inertia = mean of the adjacent segments'",
         ""},
        {"regions.rho", ValueType::number, region, "the model's", "kg/m^3", "> 0", "density in the region", ""},
        {"regions.E", ValueType::number, region, "the model's", "Pa", "> 0", "Young's modulus in the region", ""},
        {"regions.nu", ValueType::number, region, "the model's", "", "(-1, 0.5)", "Poisson's ratio (G = E / (2 (1 + nu))) in the region", ""},
        {"regions.G", ValueType::number, region, "the model's", "Pa", "> 0", "shear modulus in the region", ""},
        {"regions.a", ValueType::number, region, "the model's", "m", "> 0", "square edge (model.section = square) in the region", ""},
        {"regions.r", ValueType::number, region, "the model's", "m", "> 0", "circle radius (model.section = circle) in the region", ""},
        {"regions.A", ValueType::number, region, "the model's", "m^2", "> 0", "area (model.section = general) in the region", ""},
        {"regions.J1", ValueType::number, region, "the model's", "m^4", "> 0", "polar moment (general) in the region", ""},
        {"regions.J2", ValueType::number, region, "the model's", "m^4", "> 0", "second moment (general) in the region", ""},
        {"regions.J3", ValueType::number, region, "the model's", "m^4", "> 0", "second moment (general) in the region", ""},
        {"regions.shear_factor", ValueType::number, region, "the model's", "", "> 0", "shear factor k_s in the region", ""},
        {"grid.J", ValueType::integer, opt, "20", "", "1 ... 100000000, within the available memory",
         "number of segments; ds = length / J; n_nodes = J + 1 (vertex) or J (cell)", ""},
        {"grid.layout", ValueType::string, opt, "\"vertex\"", "", join(kLayouts),
         "nodes: vertex s_j = j ds, j = 0..J; cell s_j = (j + 1/2) ds, j = 0..J-1", ""},
        {"grid.length", ValueType::number, opt, "1.0", "m", "> 0", "beam length S, s in [0, S]", ""},
        {"bc.left", ValueType::string, opt, "\"free\"", "", join(kBoundaries),
         "end s = 0: free (zero stress), clamped (node held at its initial pose), prescribed (node moved as "
         "bc.left_motion gives; clamped and prescribed need the vertex layout) or periodic (both ends: J nodes "
         "at s_j = j ds, the last segment joins node J-1 to node 0 moved by bc.shift)",
         ""},
        {"bc.right", ValueType::string, opt, "\"free\"", "", join(kBoundaries), "end s = S, as bc.left", ""},
        {"bc.shift", ValueType::vec3, "optional; periodic ends",
         "grid.length * initial.direction (straight), [0, 0, 0] otherwise", "m", "finite",
         "period of a periodic beam: g_{j+J} = (translation by shift) g_j; [0, 0, 0] closes a ring (a periodic "
         "arc must then have grid.length = 2 pi initial.radius)",
         ""},
        {"bc.left_motion", ValueType::string, "required iff bc.left = \"prescribed\"", "", "",
         "CSV path, relative to the scenario file's folder",
         "pose table of the end node: header t,x,y,z,qw,qx,qy,qz, times from 0 strictly increasing, the first "
         "pose the node's initial pose; positions linear and rotations geodesic (slerp) between rows, the last "
         "pose held after the table",
         ""},
        {"bc.right_motion", ValueType::string, "required iff bc.right = \"prescribed\"", "", "",
         "CSV path, relative to the scenario file's folder", "pose table of the end node s = S, as bc.left_motion",
         ""},
        {"initial.shape", ValueType::string, opt, "\"straight\"", "", join(kShapes),
         "initial configuration; \"file\" when only initial.file is given", ""},
        {"initial.origin", ValueType::vec3, straight, "[0.0, 0.0, 0.0]", "m", "finite",
         "position of node s = 0", ""},
        {"initial.direction", ValueType::vec3, straight, "[1.0, 0.0, 0.0]", "", "finite, non-zero (normalised)",
         "beam axis, the first director d", ""},
        {"initial.normal", ValueType::vec3, straight, "[0.0, 0.0, 1.0]", "",
         "finite, not zero nor parallel to direction (orthogonalised)", "third director n; frames R = [d | n x d | n]", ""},
        {"initial.radius", ValueType::number, arc, "1.0", "m", "> 0",
         "arc radius: centre line radius (0, cos u, sin u), u = arc_start + s / radius", ""},
        {"initial.arc_start", ValueType::number, arc, "0.5235987755982988", "rad", "finite",
         "angle u at s = 0 (pi/6: the arc of the bending example, symmetric about z for length 2 pi/3)", ""},
        {"initial.file", ValueType::string, "required iff initial.shape = \"file\"", "", "",
         "CSV path, relative to the scenario file's folder",
         "header x,y,z,qw,qx,qy,qz[,w1,w2,w3,v1,v2,v3], one row per node, unit quaternions within 1e-9", ""},
        {"initial.velocity", ValueType::vec6, "optional; not with velocity columns in initial.file",
         "[0.0, 0.0, 0.0, 0.0, 0.0, 0.0]", "rad/s, m/s", "finite",
         "uniform body velocity (w1, w2, w3, v1, v2, v3) of every node", ""},
        {"loads.node", ValueType::integer_or_string, "required in each [[loads]] table", "", "",
         "integer in [0, n_nodes) or \"last\"", "node the point wrench acts at", ""},
        {"loads.frame", ValueType::string, load, "\"spatial\"", "", join(kFrames),
         "spatial: dead load (fixed directions, torque about the node); body: follower load", ""},
        {"loads.wrench", ValueType::vec6, "required in each [[loads]] table", "", "N m, N", "finite",
         "wrench (M1, M2, M3, F1, F2, F3), scaled by the factor f(t)", ""},
        {"loads.times", ValueType::number_array, "optional; with loads.factors", "", "s",
         "strictly increasing", "times of the factor table (none: f = 1)", ""},
        {"loads.factors", ValueType::number_array, "optional; with loads.times", "", "", "one per time",
         "factors of the table: f piecewise linear through (times, factors)", ""},
        {"loads.hold", ValueType::boolean, load, "false", "", "true, false",
         "outside the table hold the end factors (else f = 0)", ""},
        {"distributed_loads.frame", ValueType::string, dload, "\"spatial\"", "", join(kFrames),
         "spatial: dead load (fixed directions, torque about the centre line); body: follower load", ""},
        {"distributed_loads.wrench", ValueType::vec6, "required in each [[distributed_loads]] table", "",
         "N m/m, N/m", "finite",
         "wrench per unit length (m1, m2, m3, f1, f2, f3), scaled by the factor f(t); lumped at the nodes by "
         "the length of each node's cell in s_range",
         ""},
        {"distributed_loads.s_range", ValueType::number_array, dload, "[0, grid.length]", "m",
         "[s_from, s_to], 0 <= s_from < s_to <= grid.length", "part of the beam the load acts on", ""},
        {"distributed_loads.times", ValueType::number_array, "optional; with distributed_loads.factors", "", "s",
         "strictly increasing", "times of the factor table (none: f = 1)", ""},
        {"distributed_loads.factors", ValueType::number_array, "optional; with distributed_loads.times", "", "",
         "one per time", "factors of the table: f piecewise linear through (times, factors)", ""},
        {"distributed_loads.hold", ValueType::boolean, dload, "false", "", "true, false",
         "outside the table hold the end factors (else f = 0)", ""},
        {"damping.angular", ValueType::number, opt, "0.0", "1/s", ">= 0",
         "rate c_ang of the linear viscous damping of rotation: force density -D zeta, D = C^1/2 K C^1/2, "
         "C = diag(c_ang x3, c_lin x3) (mass-proportional; a free rigid spin decays as e^(-c_ang t))",
         ""},
        {"damping.linear", ValueType::number, opt, "0.0", "1/s", ">= 0",
         "rate c_lin of the linear viscous damping of translation (discrete Lagrange-d'Alembert force, "
         "midpoint in time)",
         ""},
        {"integrator.method", ValueType::string, opt, "\"type-i\"", "", join(kMethods),
         "type-i: noise in the kinematics (stochastic Hamilton principle); type-ii: the stochastic potential "
         "Phi = <mu, Theta> (Hamilton-Pontryagin), the same scheme through the general-potential local solve; "
         "one Brownian motion per node (common or independent noise, not modes)",
         ""},
        {"integrator.variant", ValueType::string, opt, "\"exact\"", "", join(kVariants),
         "exact: exact DEL and compatibility (variational, 2nd order in dt); approx: the paper's (44)+(55), "
         "I -/+ 1/2 ad* and the truncated compatibility (1st order in dt, momentum only approximately kept)",
         ""},
        {"integrator.retraction", ValueType::string, opt, "\"cayley\"", "", join(kRetractions),
         "retraction tau on SE(3)", ""},
        {"integrator.start", ValueType::string, opt, "\"half\"", "", join(kStarts),
         "first velocity: half (velocity-Verlet half kick) or full step", ""},
        {"integrator.dt", ValueType::number, "required", "", "s",
         "> 0, t_end/dt an integer N < 1e12 within 1e-9 relative", "time step", ""},
        {"integrator.t_end", ValueType::number, "required", "", "s", "> 0",
         "final time (the run starts at t = 0)", ""},
        {"integrator.newton_tol", ValueType::number, opt, "1e-13", "", "> 0",
         "Newton tolerance of the implicit velocity update", ""},
        {"integrator.newton_maxit", ValueType::integer, opt, "30", "", "1 ... 1000", "Newton iteration limit", ""},
        {"integrator.allow_unstable", ValueType::boolean, opt, "false", "", "true, false",
         "run even when dt is beyond the a-priori stability bound", ""},
        {"noise.mode", ValueType::string, opt, "\"none\"", "", join(kNoiseModes),
         "Type-I noise in the body frame (Stratonovich, through A = dt zeta + theta): common: one Brownian "
         "motion for all nodes; independent: one per node; modes: the [[noise.modes]] fields Theta_k(s), one "
         "Brownian motion each; zero at clamped and prescribed nodes",
         ""},
        {"noise.theta", ValueType::vec6, "required for common and independent (not read with modes)", "",
         "rad/sqrt(s), m/sqrt(s)", "finite, not all zero",
         "Theta (w1, w2, w3, v1, v2, v3): theta_j = Theta dW (per node for independent)", ""},
        {"noise.modes.theta", ValueType::vec6, "required in each [[noise.modes]] table", "",
         "rad/sqrt(s), m/sqrt(s)", "finite, not all zero",
         "theta (w1, w2, w3, v1, v2, v3) of mode k (the table's index, its stream mode): Theta_k(s_j) = f_k(s_j) "
         "theta, theta_j = sum_k Theta_k(s_j) dW_k",
         ""},
        {"noise.modes.profile", ValueType::string, "optional; in each [[noise.modes]] table, not with values",
         "\"constant\"", "", join(kProfiles),
         "f_k(s): constant 1, cos(k pi s / L) or sin(k pi s / L); s the node position, L = grid.length", ""},
        {"noise.modes.wavenumber", ValueType::integer, "required for profile cos and sin", "", "",
         "0 ... 1000000000 (cos), 1 ... 1000000000 (sin)", "wavenumber k of a cos / sin profile", ""},
        {"noise.modes.values", ValueType::number_array, "optional; instead of profile", "", "",
         "n_nodes finite numbers, not all zero", "f_k(s_j) given at every node j (node order)", ""},
        {"output.every", ValueType::integer, opt, "1", "steps", "1 ... 1000000000000",
         "write a row of series.csv every `every` steps (t = 0 and t = t_end always)", ""},
        {"output.probes", ValueType::integer_array, opt, "[n_nodes/2]", "",
         "at most 10000 distinct node indices in [0, n_nodes)", "nodes whose pose is in series.csv", ""},
        {"output.fields", ValueType::boolean, opt, "true", "", "true, false", "write fields.h5", ""},
        {"output.fields_every", ValueType::integer, opt, "every, raised to <= 1000 snapshots", "steps",
         "1 ... 1000000000000", "a snapshot (fields.h5, vtk) every `fields_every` steps (t = 0 and t = t_end always)", ""},
        {"output.vtk", ValueType::boolean, opt, "true", "", "true, false",
         "write beam.pvd and a .vtp polyline per snapshot", ""},
        {"output.fields_csv", ValueType::boolean, opt, "false", "", "true, false",
         "also write the final poses as final_fields.csv (s,x,y,z,qw,qx,qy,qz)", ""},
        {"output.plots", ValueType::boolean, opt, "true", "", "true, false",
         "make the PNG plots (python3 + matplotlib)", ""},
        {"output.per_path", ValueType::boolean, opt, "false", "", "true, false",
         "ensembles (--paths N): also write each path's series as series_path<k>.csv", ""},
        {"output.animation", ValueType::boolean, opt, "false", "", "true, false",
         "with the plots, motion.gif: the centre line over time from the fields.h5 snapshots (matplotlib + "
         "Pillow; needs output.fields)",
         ""},
    };
    // the noise stream keys shared with the other field scenarios, before the output section
    const auto at = std::find_if(v.begin(), v.end(), [](const SchemaEntry& e) { return e.key == "output.every"; });
    const auto shared = detail::noise_stream_entries();
    v.insert(at, shared.begin(), shared.end());
    return v;
  }();
  return schema;
}

long long BeamScenario::n_nodes() const {
  return layout == "cell" || periodic() ? J : J + 1;
}

long long BeamScenario::n_segments() const {
  return layout == "cell" && !periodic() ? J - 1 : J;
}

double BeamScenario::s_of(long long j) const {
  const double x = static_cast<double>(j);
  return layout == "cell" && !periodic() ? (x + 0.5) * ds() : x * ds();
}

double BeamScenario::weight_of(long long j) const {
  if (layout == "vertex" && !periodic() && (j == 0 || j == n_nodes() - 1)) return 0.5 * ds();
  return ds();
}

bool BeamScenario::given(const std::string& key) const {
  return std::binary_search(given_keys.begin(), given_keys.end(), key);
}

BeamScenario load_beam_scenario(const std::filesystem::path& path,
                                const std::vector<std::string>& overrides) {
  const std::string file = path.string();
  return resolve_beam(detail::parse_toml(detail::read_scenario_text(path), file), file, path.stem().string(),
                      file, overrides);
}

BeamScenario parse_beam_scenario(const std::string& toml_text, const std::string& file_label,
                                 const std::string& name, const std::vector<std::string>& overrides) {
  return resolve_beam(detail::parse_toml(toml_text, file_label), file_label, name, "", overrides);
}

std::vector<ResolvedEntry> resolved_entries(const BeamScenario& s) {
  std::vector<ResolvedEntry> out;
  for (const auto& e : beam_schema()) {
    if (e.key == "noise.modes.theta")  // the mode tables follow noise.theta, as in the schema
      for (std::size_t i = 0; i < s.noise_modes.size(); ++i)
        for (auto& l : noise_mode_entries(s, i)) out.push_back(std::move(l));
    if (e.key.rfind("loads.", 0) == 0 || e.key.rfind("distributed_loads.", 0) == 0 ||
        e.key.rfind("regions.", 0) == 0 || e.key.rfind("noise.modes.", 0) == 0)
      continue;
    const bool given = s.given(e.key);
    const bool derived = e.key == "model.type" || (e.key == "initial.shape" && s.shape == "file" && !given);
    if (given || applies(s, e.key)) out.push_back({e.key, value_of(s, e.key), !given && !derived});
    if (e.key == "model.reference_strain")  // the regions follow the model section, as in the schema
      for (std::size_t i = 0; i < s.regions.size(); ++i)
        for (auto& l : region_entries(s, i)) out.push_back(std::move(l));
    if (e.key == "initial.velocity")  // the loads follow the initial section, as in the schema
    {
      for (std::size_t i = 0; i < s.loads.size(); ++i)
        for (auto& l : load_entries(s, i)) out.push_back(std::move(l));
      for (std::size_t i = 0; i < s.distributed_loads.size(); ++i)
        for (auto& l : distributed_load_entries(s, i)) out.push_back(std::move(l));
    }
  }
  return out;
}

std::vector<std::string> ignored_key_notes(const BeamScenario& s) {
  std::vector<std::string> notes;
  for (const auto& e : beam_schema()) {
    if (e.key.rfind("loads.", 0) == 0 || e.key.rfind("distributed_loads.", 0) == 0 ||
        e.key.rfind("regions.", 0) == 0 || e.key.rfind("noise.modes.", 0) == 0 || !s.given(e.key) ||
        applies(s, e.key))
      continue;
    notes.push_back("key '" + e.key + "' is ignored with " + why_ignored(s, e.key));
  }
  // the notes of the per-table keys: listed kMaxNotes times each, then counted
  constexpr long long kMaxNotes = 20;
  long long modes_ignored = 0, holds_ignored = 0;
  if (s.noise_mode != "modes")  // (only with noise.mode = "none": with another mode the tables are an error)
    for (std::size_t i = 0; i < s.noise_modes.size(); ++i)
      for (const auto& leaf : kModeKeys) {
        const std::string key = std::string(kModesSection) + "[" + std::to_string(i) + "]." + leaf;
        if (s.given(key) && ++modes_ignored <= kMaxNotes)
          notes.push_back("key '" + key + "' is ignored with noise.mode = \"" + s.noise_mode + "\"");
      }
  if (modes_ignored > kMaxNotes)
    notes.push_back("... and " + std::to_string(modes_ignored - kMaxNotes) +
                    " more keys of [[noise.modes]] tables are ignored with noise.mode = \"" + s.noise_mode + "\"");
  for (std::size_t i = 0; i < s.loads.size(); ++i) {
    const std::string p = "loads[" + std::to_string(i) + "].";
    if (s.given(p + "hold") && s.loads[i].times.empty() && ++holds_ignored <= kMaxNotes)
      notes.push_back("key '" + p + "hold' is ignored without a factor table (times, factors)");
  }
  if (holds_ignored > kMaxNotes)
    notes.push_back("... and " + std::to_string(holds_ignored - kMaxNotes) +
                    " more [[loads]] hold keys are ignored without a factor table");
  return notes;
}

std::string to_toml(const BeamScenario& s) {
  const auto notes = ignored_key_notes(s);
  auto diag = [](const Mat6& m) {
    std::string t;
    for (std::size_t i = 0; i < 6; ++i) t += (i ? ", " : "") + format_number(m[i][i]);
    return t;
  };
  std::string extra = "; " + nodes_text(s) + ", ds = " + format_number(s.ds());
  if (s.section != "matrix")
    extra += "\n# section: A = " + format_number(s.A) + ", J1 = " + format_number(s.J1) +
             ", J2 = " + format_number(s.J2) + ", J3 = " + format_number(s.J3) +
             ", G = " + format_number(s.G) + "\n# K = diag(" + diag(s.K) + ")\n# P = diag(" + diag(s.P) + ")";
  std::string t =
      detail::toml_header("beam scenario", s.name, s.source, s.steps, s.dt, s.t_end, extra, notes);
  std::vector<ResolvedEntry> flat, loads;
  for (auto& e : resolved_entries(s))
    (e.key.rfind("loads[", 0) == 0 || e.key.rfind("distributed_loads[", 0) == 0 || e.key.rfind("regions[", 0) == 0 ||
             e.key.rfind("noise.modes[", 0) == 0
         ? loads
         : flat)
        .push_back(std::move(e));
  const auto comments = [&](const ResolvedEntry& e) {
    std::vector<std::string> c;
    for (const auto& n : notes)
      if (n.find("'" + e.key + "'") != std::string::npos) c.push_back(n.substr(n.find("ignored")));
    return c;
  };
  t += detail::entries_toml(flat, comments);
  std::string current;
  for (const auto& e : loads) {
    const auto close = e.key.find(']');
    const std::string table = e.key.substr(0, close + 1), leaf = e.key.substr(close + 2);
    if (table != current) {
      t += "\n[[" + table.substr(0, table.find('[')) + "]]  # " + table + "\n";
      current = table;
    }
    std::string line = leaf + " = " + detail::value_toml(e.value);
    std::vector<std::string> parts;
    if (e.is_default) parts.emplace_back("default");
    for (auto& c : comments(e)) parts.push_back(std::move(c));
    if (!parts.empty()) {
      if (line.size() < 40) line.resize(40, ' ');
      line += "  # " + join(parts, "; ");
    }
    t += line + "\n";
  }
  return t;
}

/// The beam resolver on a parsed document, for the dispatch of wave_scenario.cpp.
namespace detail {
BeamScenario resolve_beam_document(const RawValue& root, const std::string& file, const std::string& name,
                                   const std::string& source, const std::vector<std::string>& overrides) {
  return resolve_beam(root, file, name, source, overrides);
}
}  // namespace detail

}  // namespace lievi::io
