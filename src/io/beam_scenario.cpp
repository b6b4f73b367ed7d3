/// @file src/io/beam_scenario.cpp
/// @brief The beam scenario (`model.type = "beam"`): the key table of config::BeamConfig (the schema, the
/// reading of every key, the resolved printout and the notes of ignored keys derive from it) and the rules
/// between keys: the section constants and K, P (docs/theory/beam.md "The continuous beam"), the regions,
/// the initial configuration (straight, the bending example's arc, or a CSV file), the pose tables of
/// prescribed ends, the `[[loads]]`, `[[distributed_loads]]` and `[[noise.modes]]` tables. The reading
/// machinery is scenario_reader.cpp, the table engine key_table.hpp.
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

#include "key_table.hpp"
#include "lievi/build/output.hpp"
#include "lievi/build/beam.hpp"
#include "lievi/core/error.hpp"
#include "lievi/io/memory_estimate.hpp"
#include "scenario_reader.hpp"

namespace lievi::config {

const char* id(BeamSection s) {
  constexpr const char* n[] = {"square", "circle", "general", "matrix"};
  return static_cast<std::size_t>(s) < 4 ? n[static_cast<std::size_t>(s)] : "";
}
const char* id(BeamShape s) {
  constexpr const char* n[] = {"straight", "arc", "file"};
  return static_cast<std::size_t>(s) < 3 ? n[static_cast<std::size_t>(s)] : "";
}
const char* id(LoadFrame f) { return f == LoadFrame::spatial ? "spatial" : f == LoadFrame::body ? "body" : ""; }
const char* id(BeamReference r) {
  return r == BeamReference::strain ? "strain" : r == BeamReference::initial ? "initial" : "";
}
const char* id(ModeProfile p) {
  constexpr const char* n[] = {"constant", "cos", "sin", "values"};
  return static_cast<std::size_t>(p) < 4 ? n[static_cast<std::size_t>(p)] : "";
}
const char* id(RegionConstant c) {
  constexpr const char* n[] = {"rho", "E", "nu", "G", "a", "r", "A", "J1", "J2", "J3", "shear_factor"};
  return static_cast<std::size_t>(c) < kRegionConstants ? n[static_cast<std::size_t>(c)] : "";
}

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

long long BeamConfig::n_nodes() const { return layout == field::Layout::cell || periodic() ? J : J + 1; }

long long BeamConfig::n_segments() const { return layout == field::Layout::cell && !periodic() ? J - 1 : J; }

double BeamConfig::s_of(long long j) const {
  const double x = static_cast<double>(j);
  return layout == field::Layout::cell && !periodic() ? (x + 0.5) * ds() : x * ds();
}

double BeamConfig::weight_of(long long j) const {
  if (layout == field::Layout::vertex && !periodic() && (j == 0 || j == n_nodes() - 1)) return 0.5 * ds();
  return ds();
}

}  // namespace lievi::config

namespace lievi::io {
namespace detail {

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

using config::BeamConfig;
using config::BeamSection;
using config::BeamShape;
using config::LoadFrame;
using config::ModeProfile;
using config::RegionConstant;
using detail::has_issue;
using detail::join;
using detail::Key;
using detail::Names;
using detail::names_of;
using detail::RawValue;
using detail::Resolver;
using field::End;
using field::Layout;
using field::NoiseMode;
using Vec3 = Eigen::Vector3d;
using Mat3 = Eigen::Matrix3d;
using Mat6 = config::Mat6;

// Integer bounds (docs/scenarios.md): far beyond any run this machine can make, and small enough that the
// counters and products of the run (n_nodes + 1, steps / every, 1000 every, the snapshot count) cannot overflow.
constexpr long long kMaxJ = limits::kMaxGridJ;
constexpr long long kMaxNewtonIt = 1000;
constexpr long long kMaxWavenumber = limits::kMaxWavenumber;

const Names<BeamSection> kSections =
    names_of({BeamSection::square, BeamSection::circle, BeamSection::general, BeamSection::matrix});
const Names<Layout> kLayouts = names_of({Layout::vertex, Layout::cell});
const Names<End> kBoundaries = names_of({End::free, End::clamped, End::prescribed, End::periodic});
const Names<BeamShape> kShapes = names_of({BeamShape::straight, BeamShape::arc, BeamShape::file});
const Names<LoadFrame> kFrames = names_of({LoadFrame::spatial, LoadFrame::body});
const Names<config::FieldMethod> kMethods = names_of({config::FieldMethod::type_i, config::FieldMethod::type_ii});
const Names<field::Variant> kVariants = names_of({field::Variant::exact, field::Variant::approx});
const Names<config::Retraction> kRetractions = names_of({config::Retraction::cayley, config::Retraction::exp});
const Names<field::Start> kStarts = names_of({field::Start::half, field::Start::full});
const Names<config::BeamReference> kReferences =
    names_of({config::BeamReference::strain, config::BeamReference::initial});
const Names<NoiseMode> kNoiseModes =
    names_of({NoiseMode::none, NoiseMode::common, NoiseMode::independent, NoiseMode::modes});
/// The spatial profiles f_k(s) of a [[noise.modes]] table (or `values`, one per node).
const Names<ModeProfile> kProfiles = names_of({ModeProfile::constant, ModeProfile::cos, ModeProfile::sin});
/// The keys of a [[noise.modes]] table, in documentation order.
const std::vector<std::string> kModeKeys = {"theta", "profile", "wavenumber", "values"};
/// The entry prefix of the [[noise.modes]] tables: `noise.modes[i].leaf` (schema key `noise.modes.leaf`).
constexpr const char* kModesSection = "noise.modes";

const detail::KeyTable<BeamConfig>& table();

const detail::Schema& schema() {
  static const detail::Schema v{
      &table().schema(),
      {"model", "regions", "grid", "bc", "initial", "loads", "distributed_loads", "damping", "integrator", "noise",
       "output"},
      "a beam scenario",
      {{"model.nu", "model.G"}},
      {"regions", "loads", "distributed_loads", kModesSection}};
  return v;
}

/// The model keys each section reads.
std::vector<std::string> section_keys(BeamSection section) {
  if (section == BeamSection::matrix) return {"model.K", "model.P"};
  std::vector<std::string> k = {"model.rho", "model.E", "model.nu", "model.G", "model.shear_factor"};
  if (section == BeamSection::square) k.emplace_back("model.a");
  if (section == BeamSection::circle) k.emplace_back("model.r");
  if (section == BeamSection::general) k.insert(k.end(), {"model.A", "model.J1", "model.J2", "model.J3"});
  return k;
}

bool contains(const std::vector<std::string>& v, const std::string& x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

/// `"name"` of an enumeration value, for messages.
template <class E>
std::string quoted(E e) {
  return std::string("\"") + config::id(e) + "\"";
}

std::string nodes_text(const BeamConfig& s) {
  return "n_nodes = " + std::to_string(s.n_nodes()) + " (grid.J = " + std::to_string(s.J) + ", layout " +
         config::id(s.layout) + ")";
}

std::vector<double> to_vector(const std::array<double, 3>& a) { return {a.begin(), a.end()}; }
std::vector<double> to_vector(const std::array<double, 6>& a) { return {a.begin(), a.end()}; }
std::vector<std::vector<double>> to_vector(const Mat6& m) {
  std::vector<std::vector<double>> out;
  for (const auto& row : m) out.push_back(to_vector(row));
  return out;
}
std::array<double, 3> to_array(const Vec3& v) { return {v[0], v[1], v[2]}; }
Vec3 to_eigen(const std::array<double, 3>& a) { return {a[0], a[1], a[2]}; }

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


/// The node set is known: the grid and ends were read without an issue and the per-node arrays fit in memory.
bool nodes_known(Resolver& r) { return r.mark("nodes known") == 1; }

// ---------------------------------------------------------------------------------------------------------------
// initial.file
// ---------------------------------------------------------------------------------------------------------------

/// Reads the CSV of initial.file; each problem is an issue on (CSV file, initial.file) with its line.
class InitialFileReader {
 public:
  InitialFileReader(Resolver& r, BeamConfig& s) : r_(r), s_(s) {}

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
  BeamConfig& s_;
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

/// The problem of a 6x6 matrix that must be symmetric (within 1e-12 of its largest entry) and positive
/// definite (Eigen's LLT), or nullopt; `text` is the value as given.
std::optional<std::string> spd_problem(const Mat6& m, const std::string& text) {
  Eigen::Matrix<double, 6, 6> M;
  double scale = 0.0;
  for (int i = 0; i < 6; ++i)
    for (int j = 0; j < 6; ++j) {
      M(i, j) = m[static_cast<std::size_t>(i)][static_cast<std::size_t>(j)];
      scale = std::max(scale, std::abs(M(i, j)));
    }
  if (!M.allFinite()) return "value " + text + " must be finite";
  // scaled by the largest entry, so that huge finite entries neither overflow M - M^T nor the Cholesky factor
  if (scale > 0.0) M /= scale;
  const double asym = (M - M.transpose()).cwiseAbs().maxCoeff() * scale;
  if (asym > 1e-12 * scale)
    return "value " + text + " is not symmetric (largest |M_ij - M_ji| = " + format_number(asym) +
           "); expected a symmetric positive definite 6x6 matrix";
  Eigen::LLT<Eigen::Matrix<double, 6, 6>> llt(M);
  if (llt.info() != Eigen::Success || !(scale > 0.0))
    return "value " + text +
           " is not positive definite (Cholesky failed); expected a symmetric positive definite 6x6 matrix";
  return std::nullopt;
}

void check_spd(Resolver& r, const std::string& key, const Mat6& m) {
  if (auto p = spd_problem(m, r.get(key)->text())) r.issue(key, *p);
}

/// model.G: read, and refused together with model.nu.
void read_G(Resolver& r, BeamConfig& s) {
  if (auto v = r.positive("model.G")) s.G = *v;
  s.G_given = r.has("model.G");
  if (s.G_given && r.has("model.nu"))
    r.issue("model.G", "both model.nu and model.G are given; give one (G = E / (2 (1 + nu)) otherwise)");
}

/// The keys each section needs; G from E and nu unless given; K and P.
void model_rule(Resolver& r, BeamConfig& s) {
  if (has_issue(r, {"model.section"})) return;
  const std::string sec = "model.section = " + quoted(s.section);
  if (s.section == BeamSection::matrix) {
    for (const char* key : {"model.K", "model.P"}) {
      if (!r.has(key))
        r.missing(key, std::string(key == std::string("model.K") ? "the inertia" : "the stiffness") +
                           " matrix of " + sec);
      else if (r.mark(key) == 1)
        check_spd(r, key, key == std::string("model.K") ? s.K : s.P);
    }
    return;
  }
  if (s.section == BeamSection::square) {
    if (!r.has("model.a")) r.missing("model.a", "the edge of the square section of " + sec);
  } else if (s.section == BeamSection::circle) {
    if (!r.has("model.r")) r.missing("model.r", "the radius of the circular section of " + sec);
  } else {
    for (const char* key : {"model.A", "model.J1", "model.J2", "model.J3"})
      if (!r.has(key)) r.missing(key, "a section constant of " + sec);
  }
  build::section_matrices(s);  // G = E / (2 (1 + nu)) unless given; A, J; K and P
}

/// The problem of a Poisson's ratio, or nullopt.
std::optional<std::string> poisson_problem(double nu) {
  if (nu > -1.0 && nu < 0.5) return std::nullopt;
  return "value " + format_number(nu) + " must be in (-1, 0.5) (Poisson's ratio)";
}

/// model.reference, model.reference_strain and the [[regions]]; then K, P per segment.
void regions_rule(Resolver& r, BeamConfig& s) {
  if (auto v = r.choice("model.reference", detail::name_list(kReferences), "a reference configuration"))
    for (const auto& [n, e] : kReferences)
      if (n == *v) s.reference = e;
  if (auto v = r.vec6("model.reference_strain")) s.reference_strain = *v;
  if (r.has("model.reference_strain") && s.reference == config::BeamReference::initial)
    r.issue("model.reference_strain",
            "is given but model.reference = \"initial\" (the initial configuration is stress-free); give one");
  const std::size_t count = r.array_length("regions");
  const bool matrix = s.section == BeamSection::matrix;
  if (count > 0 && matrix)
    r.issue("regions[0].s_range",
            "[[regions]] need a section given by its constants (square, circle, general), not model.section = "
            "\"matrix\"");
  for (std::size_t i = 0; i < count; ++i) {
    const std::string p = "regions[" + std::to_string(i) + "].";
    config::BeamRegion g;
    if (auto v = r.number_array(p + "s_range")) {
      if (v->size() != 2 || !((*v)[0] < (*v)[1]))
        r.issue(p + "s_range", "value " + r.get(p + "s_range")->text() + " must be [s_from, s_to] with s_from < s_to");
      else
        g.s_from = (*v)[0], g.s_to = (*v)[1];
    } else if (!r.has(p + "s_range")) {
      r.missing(p + "s_range", "the part [s_from, s_to] of the beam the region covers");
    }
    for (std::size_t k = 0; k < config::kRegionConstants; ++k) {
      const std::string leaf = config::id(static_cast<RegionConstant>(k)), key = p + leaf;
      if (!r.has(key)) continue;
      if (!matrix && !contains(section_keys(s.section), "model." + leaf)) {
        r.issue(key, "is not a constant of model.section = " + quoted(s.section) + "; a region may set " +
                         join(section_keys(s.section)));
        continue;
      }
      if (leaf == "nu") {
        if (auto v = r.number(key)) {
          if (auto problem = poisson_problem(*v))
            r.issue(key, *problem);
          else
            g.values[k] = *v;
        }
      } else if (auto v = r.positive(key)) {
        g.values[k] = *v;
      }
    }
    if (r.has(p + "nu") && r.has(p + "G")) r.issue(p + "G", "both " + p + "nu and " + p + "G are given; give one");
    s.regions.push_back(std::move(g));
  }
  if (nodes_known(r)) build::segment_matrices(s);
}

/// bc.left / bc.right: clamped and prescribed need the vertex layout; periodic on both ends, with J >= 2.
void ends_rule(Resolver& r, BeamConfig& s) {
  for (const auto& [key, value] : {std::pair{"bc.left", s.bc_left}, std::pair{"bc.right", s.bc_right}})
    if ((value == End::clamped || value == End::prescribed) && s.layout != Layout::vertex)
      r.issue(key, "value " + quoted(value) +
                       " needs grid.layout = \"vertex\" (a cell-layout end node lies half a cell inside the "
                       "beam); grid.layout is " +
                       quoted(s.layout));
  if ((s.bc_left == End::periodic) != (s.bc_right == End::periodic))
    r.issue(s.bc_left == End::periodic ? "bc.right" : "bc.left",
            "value " + quoted(s.bc_left == End::periodic ? s.bc_right : s.bc_left) +
                ": \"periodic\" must be given for both ends (bc.left = " + quoted(s.bc_left) +
                ", bc.right = " + quoted(s.bc_right) + ")");
  if (s.bc_left == End::periodic && s.bc_right == End::periodic && s.J < 2)
    r.issue("grid.J", "value " + std::to_string(s.J) + ": a periodic beam needs grid.J >= 2");
}

/// bc.left_motion / bc.right_motion: the file name (required for a prescribed end; read with the initial
/// configuration, motion_rule).
Key<BeamConfig> motion_key(const char* key, config::PoseTable BeamConfig::*table, End BeamConfig::*end,
                           const char* side) {
  auto k = detail::custom_key<BeamConfig>(
      key, ValueType::string,
      [key, table, end, side](Resolver& r, BeamConfig& s) {
        if (auto v = r.string(key)) {
          (s.*table).file = *v;
          // an empty name would be read as the scenario's folder; refuse it here, as a missing table
          if (v->empty() && s.*end == End::prescribed)
            r.issue(key, std::string("value \"\" is an empty file name; expected the CSV path of the pose table "
                                     "(t,x,y,z,qw,qx,qy,qz) of the prescribed end ") +
                             side);
        }
        if (s.*end == End::prescribed && !r.has(key))
          r.missing(key, std::string("the pose table (CSV t,x,y,z,qw,qx,qy,qz) of the prescribed end ") + side);
      },
      [table](const BeamConfig& s) { return ScenarioValue((s.*table).file); });
  return k.allowed("CSV path, relative to the scenario file's folder")
      .requirement(std::string("required iff ") + side + " = \"prescribed\"")
      .when([end](const BeamConfig& s) { return s.*end == End::prescribed; },
            [end, side](const BeamConfig& s) { return std::string("with ") + side + " = " + quoted(s.*end); })
      .no_default();
}

/// The end of the grid and ends: the node set is known when they were read without an issue and the
/// per-node arrays of one path fit in the available memory.
void nodes_rule(Resolver& r, BeamConfig& s) {
  bool ok = r.issues().size() == r.mark("issues before the grid");
  if (ok)
    if (const auto available = available_memory())
      if (const auto problem = memory_problem(estimate_memory(s, 1), *available)) {
        r.issue("grid.J", *problem);
        ok = false;
      }
  r.mark("nodes known") = ok ? 1 : 0;
}

/// initial.shape ("file" when only initial.file is given).
void read_shape(Resolver& r, BeamConfig& s) {
  if (auto v = r.choice("initial.shape", detail::name_list(kShapes), "an initial shape")) {
    for (const auto& [n, e] : kShapes)
      if (n == *v) s.shape = e;
  } else if (!r.has("initial.shape") && r.has("initial.file")) {
    s.shape = BeamShape::file;  // initial.file alone means shape "file"
  }
}

/// The straight frame: d normalised, n orthogonalised against d, R = [d | n x d | n]; false (with an issue)
/// when there is none. `direction`, `normal`: read without an issue.
bool straight_frame(Resolver& r, BeamConfig& s, bool direction, bool normal, Vec3& d, Vec3& n) {
  const BeamConfig defaults;
  d = to_eigen(s.direction), n = to_eigen(s.normal);
  if (direction && !rescale(d)) {
    r.issue("initial.direction",
            "value " + r.get("initial.direction")->text() + " is the zero vector; expected a non-zero beam axis");
    return false;
  }
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
                text(normal ? "initial.normal" : "initial.direction", normal ? defaults.normal : defaults.direction) +
                ": initial.normal " + text("initial.normal", defaults.normal) + " is zero or parallel to initial.direction " +
                text("initial.direction", defaults.direction) + "; expected a normal not parallel to the beam axis");
    return false;
  }
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
  const auto key = [](const Vec3& a, const Vec3& b) { return std::array<double, 6>{a[0], a[1], a[2], b[0], b[1], b[2]}; };
  Vec3 d_prev = d, n_prev = n;
  for (int pass = 0; pass < 8; ++pass) {
    const auto [d2, n2] = step(d, n);
    if (d2 == d && n2 == n) break;                   // fixed point
    if (pass > 0 && d2 == d_prev && n2 == n_prev) {  // two-cycle {(d, n), (d2, n2)}
      if (key(d2, n2) < key(d, n)) d = d2, n = n2;
      break;
    }
    d_prev = d, n_prev = n;
    d = d2, n = n2;
  }
  if (direction) s.direction = to_array(d);
  s.normal = to_array(n);
  return true;
}

/// The initial configuration: the frame, initial.file against the shape, the poses and velocities per node,
/// the periodic shift and the closure of a periodic arc.
void initial_rule(Resolver& r, BeamConfig& s) {
  const auto read_ok = [&](const char* key) { return r.has(key) && !has_issue(r, {key}); };
  Vec3 d, n;
  const bool frame_ok = straight_frame(r, s, read_ok("initial.direction"), read_ok("initial.normal"), d, n);
  if (has_issue(r, {"initial.shape"})) return;
  if (s.shape == BeamShape::file && !r.has("initial.file")) {
    r.missing("initial.file",
              "the CSV file of initial.shape = \"file\" (columns x,y,z,qw,qx,qy,qz, one row per node)");
  } else if (s.shape != BeamShape::file && r.has("initial.file")) {
    r.issue("initial.file", "is given but initial.shape = " + quoted(s.shape) +
                                "; set initial.shape = \"file\" (or leave initial.shape out) to read it");
  }
  if (!nodes_known(r)) return;
  if (s.shape == BeamShape::file) {
    if (read_ok("initial.file")) InitialFileReader(r, s).read(r.folder);
    if (s.file_velocity && r.has("initial.velocity"))
      r.issue("initial.velocity",
              "is given but initial.file \"" + s.file +
                  "\" has the velocity columns w1,...,v3; give the velocity in one place");
    if (!s.file_velocity)
      for (auto& w : s.velocity) w = s.initial_velocity;
    return;
  }
  if (s.shape == BeamShape::straight && !frame_ok) return;
  build::initial_poses(s);  // (the frame (direction, normal) resolved above)
  if (s.periodic() && s.shape == BeamShape::straight && !r.has("bc.shift")) s.shift = to_array(s.length * d);
  // the closure is a translation: an arc's end frame must be its start frame, i.e. a full ring
  if (s.periodic() && s.shape == BeamShape::arc &&
      !(std::abs(s.length - 2.0 * std::numbers::pi * s.radius) <= 1e-9 * s.length))
    r.issue("grid.length", "value " + format_number(s.length) +
                               ": a periodic arc must close into a ring, grid.length = 2 pi initial.radius = " +
                               format_number(2.0 * std::numbers::pi * s.radius) +
                               " (the periodic closure bc.shift is a translation and cannot turn the frames)");
}

/// The pose tables of prescribed ends; the table's pose at t = 0 must be the end node's initial pose.
void motion_rule(Resolver& r, BeamConfig& s) {
  for (auto [key, table, end, node] :
       {std::tuple{"bc.left_motion", &s.left_motion, s.bc_left, 0LL},
        std::tuple{"bc.right_motion", &s.right_motion, s.bc_right, s.n_nodes() - 1}}) {
    if (end != End::prescribed || table->file.empty() || !nodes_known(r)) continue;  // (an empty name: an issue)
    read_pose_table(r, key, *table, r.folder);
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
void read_factor_table(Resolver& r, const std::string& p, std::vector<double>& t_out, std::vector<double>& f_out,
                       bool& hold) {
  if (auto v = r.boolean(p + "hold")) hold = *v;
  const auto times = r.number_array(p + "times"), factors = r.number_array(p + "factors");
  if (r.has(p + "times") != r.has(p + "factors")) {
    const std::string given = r.has(p + "times") ? p + "times" : p + "factors";
    const std::string other = r.has(p + "times") ? p + "factors" : p + "times";
    r.issue(given, "is given without " + other + "; give both (the factor table) or neither (factor 1)");
  }
  if (times) {
    if (times->empty()) r.issue(p + "times", "value [] has no time; give at least one (or leave times and factors out)");
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

/// The frame of a load table.
void read_frame(Resolver& r, const std::string& key, LoadFrame& frame) {
  if (auto v = r.choice(key, detail::name_list(kFrames), "a load frame"))
    for (const auto& [n, e] : kFrames)
      if (n == *v) frame = e;
}

void loads_rule(Resolver& r, BeamConfig& s) {
  const std::size_t count = r.array_length("loads");
  const long long N = s.n_nodes();
  for (std::size_t i = 0; i < count; ++i) {
    const std::string p = "loads[" + std::to_string(i) + "].";
    config::BeamLoad L;
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
        if (nodes_known(r) && (L.node < 0 || L.node >= N))
          r.issue(node_key, "value " + std::to_string(L.node) + " must be a node index in [0, " + std::to_string(N) +
                                ") or \"last\"; " + nodes_text(s));
      } else {
        r.issue(node_key, "value " + v->text() + " is not a node; allowed: an integer in [0, " + std::to_string(N) +
                              ") or \"last\"");
      }
    } else {
      r.missing(node_key, "the node the load acts at (an index, or \"last\")");
    }
    read_frame(r, p + "frame", L.frame);
    if (auto v = r.vec6(p + "wrench"))
      L.wrench = *v;
    else if (!r.has(p + "wrench"))
      r.missing(p + "wrench", "the wrench (M1, M2, M3, F1, F2, F3) of the load");
    read_factor_table(r, p, L.times, L.factors, L.hold);
    s.loads.push_back(std::move(L));
  }
}

void distributed_loads_rule(Resolver& r, BeamConfig& s) {
  const std::size_t count = r.array_length("distributed_loads");
  for (std::size_t i = 0; i < count; ++i) {
    const std::string p = "distributed_loads[" + std::to_string(i) + "].";
    config::BeamDistributedLoad L;
    L.s_to = s.length;
    read_frame(r, p + "frame", L.frame);
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
    read_factor_table(r, p, L.times, L.factors, L.hold);
    s.distributed_loads.push_back(std::move(L));
  }
}

/// The [[noise.modes]] tables: theta (6 numbers, not all zero), a profile (constant, cos / sin with a
/// wavenumber) or one value per node; then Theta_k(s_j) = f_k(s_j) theta at every node.
void read_noise_modes(Resolver& r, BeamConfig& s) {
  const std::size_t count = r.array_length(kModesSection);
  const long long n = s.n_nodes();
  const bool grid_ok = nodes_known(r);
  for (std::size_t i = 0; i < count; ++i) {
    const std::string p = std::string(kModesSection) + "[" + std::to_string(i) + "].";
    config::BeamNoiseMode m;
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
    if (auto v = r.choice(p + "profile", detail::name_list(kProfiles), "a mode profile")) {
      for (const auto& [name, e] : kProfiles)
        if (name == *v) m.profile = e;
    } else if (has_profile) {
      ok = false;
    }
    if (has_values && has_profile) {
      r.issue(p + "values", "both " + p + "profile and " + p +
                                "values are given; give one (values: f_k(s_j) at every node, instead of a profile)");
      ok = false;
    }
    const bool waves = !has_values && (m.profile == ModeProfile::cos || m.profile == ModeProfile::sin);
    const std::string profile = config::id(m.profile);
    if (auto k = r.integer(p + "wavenumber")) {
      m.wavenumber = *k;
      if (*k > kMaxWavenumber) {
        r.issue(p + "wavenumber", "value " + std::to_string(*k) + " must be <= " + std::to_string(kMaxWavenumber));
        ok = false;
      } else if (!waves) {
        r.issue(p + "wavenumber", "is given but " +
                                      (has_values ? p + "values gives the profile" : p + "profile = " + quoted(m.profile)) +
                                      "; a wavenumber is for the profiles \"cos\" and \"sin\"");
        ok = false;
      } else if (const long long lo = m.profile == ModeProfile::sin ? 1 : 0; *k < lo) {
        r.issue(p + "wavenumber", "value " + std::to_string(*k) + " must be >= " + std::to_string(lo) +
                                      " for profile \"" + profile + "\" (f(s) = " + profile + "(k pi s / L))");
        ok = false;
      }
    } else if (r.has(p + "wavenumber")) {
      ok = false;
    } else if (waves) {
      r.missing(p + "wavenumber",
                "the wavenumber k of profile \"" + profile + "\": f(s) = " + profile + "(k pi s / L), L = grid.length");
      ok = false;
    }
    if (has_values) {
      m.profile = ModeProfile::values;
      if (auto v = r.number_array(p + "values")) {
        m.values = *v;
        if (grid_ok && static_cast<long long>(v->size()) != n) {
          r.issue(p + "values", "value " + r.get(p + "values")->text() + " has " + std::to_string(v->size()) +
                                    " entries; expected one per node, " + nodes_text(s));
          ok = false;
        } else if (std::all_of(v->begin(), v->end(), [](double x) { return x == 0.0; })) {
          r.issue(p + "values",
                  "value " + r.get(p + "values")->text() + " is zero at every node; the mode would be zero");
          ok = false;
        }
      } else {
        ok = false;
      }
    }
    if (ok && grid_ok) {
      double largest = 0.0;
      m.at_nodes = build::mode_at_nodes(s, m, &largest);
      // sin(k pi j / J) vanishes at every vertex node when k is a multiple of J (to round-off)
      if (waves && !(largest > 1e-12))
        r.issue(p + "wavenumber", "value " + std::to_string(m.wavenumber) + ": profile \"" + profile +
                                      "\" is zero at every node (" + nodes_text(s) +
                                      "); the mode would be zero, choose another wavenumber");
    }
    s.noise_modes.push_back(std::move(m));
  }
}

/// The noise stream keys, the [[noise.modes]] tables, then the rules of the noise mode.
void noise_rule(Resolver& r, BeamConfig& s) {
  detail::read_noise_stream(r, s.dt, s.steps > 0, s.seed, s.path, s.base_dt, s.refine_log2, s.truncate);
  read_noise_modes(r, s);
  const bool modes_given = r.mark("noise.modes given") == 1, modes_empty = r.mark("noise.modes empty") == 1;
  const std::string mode_text = "noise.mode = " + quoted(s.noise_mode);
  if (s.noise_mode == NoiseMode::modes && s.method == config::FieldMethod::type_ii)
    r.issue("noise.mode", "value \"modes\" with integrator.method = \"type-ii\": a Type-II potential is driven by one "
                          "Brownian motion per node; allowed: common, independent, none (or integrator.method = "
                          "\"type-i\" for spatial modes)");
  if (s.noise_mode == NoiseMode::modes) {  // noise.theta is not read (noted as ignored): each mode has its own theta
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
  else if (modes_given && s.noise_mode != NoiseMode::none)  // with an explicit "none" they are noted as ignored
    r.issue(kModesSection, "[[noise.modes]] tables are given but " + mode_text +
                               "; they are only for noise.mode = \"modes\" (allowed: " +
                               join(detail::name_list(kNoiseModes)) + ")");
  if (s.noise_mode == NoiseMode::none) return;  // the other keys are noted as ignored
  if (!r.has("noise.theta"))
    r.missing("noise.theta", "the noise amplitude Theta (w1, w2, w3, v1, v2, v3) of " + mode_text);
  else if (r.mark("noise.theta") == 1 && std::all_of(s.theta.begin(), s.theta.end(), [](double x) { return x == 0.0; }))
    r.issue("noise.theta", "value " + r.get("noise.theta")->text() + " is zero; give a non-zero Theta with " +
                               mode_text + " (or noise.mode = \"none\")");
}

/// Whether a --set key names the [[noise.modes]] tables ("noise.modes", "noise.modes[0].theta", ...).
bool is_modes_key(const std::string& key) {
  const std::string m = kModesSection;
  return key.rfind(m, 0) == 0 && (key.size() == m.size() || key[m.size()] == '.' || key[m.size()] == '[');
}

/// A 6x6 matrix key of section "matrix" (read; checked by model_rule).
Key<BeamConfig> matrix_key(const char* key, Mat6 BeamConfig::*m, const char* doc) {
  return detail::custom_key<BeamConfig>(
             key, ValueType::mat6,
             [key, m](Resolver& r, BeamConfig& s) {
               if (auto v = r.mat6(key)) s.*m = *v, r.mark(key) = 1;
             },
             [m](const BeamConfig& s) { return ScenarioValue(to_vector(s.*m)); })
      .requirement("required for model.section = \"matrix\"")
      .allowed("symmetric positive definite 6x6")
      .doc(doc)
      .no_default();
}

/// The resolved entries of the point loads ("loads[i].node", ...).
std::vector<ResolvedEntry> load_entries(const BeamConfig& s, const std::function<bool(const std::string&)>& given) {
  std::vector<ResolvedEntry> out;
  for (std::size_t i = 0; i < s.loads.size(); ++i) {
    const config::BeamLoad& L = s.loads[i];
    const std::string p = "loads[" + std::to_string(i) + "].";
    out.push_back({p + "node", L.last ? ScenarioValue(std::string("last")) : ScenarioValue(L.node), false});
    out.push_back({p + "frame", std::string(config::id(L.frame)), !given(p + "frame")});
    out.push_back({p + "wrench", to_vector(L.wrench), false});
    if (!L.times.empty() || given(p + "times")) {
      out.push_back({p + "times", L.times, false});
      out.push_back({p + "factors", L.factors, false});
    }
    out.push_back({p + "hold", L.hold, !given(p + "hold")});
  }
  return out;
}

/// The resolved entries of the distributed loads ("distributed_loads[i].frame", ...).
std::vector<ResolvedEntry> distributed_load_entries(const BeamConfig& s,
                                                    const std::function<bool(const std::string&)>& given) {
  std::vector<ResolvedEntry> out;
  for (std::size_t i = 0; i < s.distributed_loads.size(); ++i) {
    const config::BeamDistributedLoad& L = s.distributed_loads[i];
    const std::string p = "distributed_loads[" + std::to_string(i) + "].";
    out.push_back({p + "frame", std::string(config::id(L.frame)), !given(p + "frame")});
    out.push_back({p + "wrench", to_vector(L.wrench), false});
    out.push_back({p + "s_range", std::vector<double>{L.s_from, L.s_to}, !given(p + "s_range")});
    if (!L.times.empty() || given(p + "times")) {
      out.push_back({p + "times", L.times, false});
      out.push_back({p + "factors", L.factors, false});
    }
    out.push_back({p + "hold", L.hold, !given(p + "hold")});
  }
  return out;
}

/// The resolved entries of the regions ("regions[i].s_range", then the constants set).
std::vector<ResolvedEntry> region_entries(const BeamConfig& s, const std::function<bool(const std::string&)>&) {
  std::vector<ResolvedEntry> out;
  for (std::size_t i = 0; i < s.regions.size(); ++i) {
    const config::BeamRegion& g = s.regions[i];
    const std::string p = "regions[" + std::to_string(i) + "].";
    out.push_back({p + "s_range", std::vector<double>{g.s_from, g.s_to}, false});
    for (std::size_t k = 0; k < config::kRegionConstants; ++k)
      if (g.values[k]) out.push_back({p + config::id(static_cast<RegionConstant>(k)), *g.values[k], false});
  }
  return out;
}

/// The resolved entries of the noise modes ("noise.modes[i].theta", then profile (and wavenumber) or values).
std::vector<ResolvedEntry> noise_mode_entries(const BeamConfig& s,
                                              const std::function<bool(const std::string&)>& given) {
  std::vector<ResolvedEntry> out;
  for (std::size_t i = 0; i < s.noise_modes.size(); ++i) {
    const config::BeamNoiseMode& m = s.noise_modes[i];
    const std::string p = std::string(kModesSection) + "[" + std::to_string(i) + "].";
    out.push_back({p + "theta", to_vector(m.theta), false});
    if (m.profile == ModeProfile::values) {
      out.push_back({p + "values", m.values, false});
      continue;
    }
    out.push_back({p + "profile", std::string(config::id(m.profile)), !given(p + "profile")});
    if (m.profile == ModeProfile::cos || m.profile == ModeProfile::sin)
      out.push_back({p + "wavenumber", m.wavenumber, false});
  }
  return out;
}

/// The beam key table, in documentation order; keys and rules are read in this order.
const detail::KeyTable<BeamConfig>& table() {
  using C = BeamConfig;
  using detail::NumberCheck;
  static const detail::KeyTable<C> t = [] {
    const std::string not_matrix = "optional; not for model.section = \"matrix\"";
    const std::string straight = "optional; initial.shape = \"straight\"";
    const std::string arc = "optional; initial.shape = \"arc\"";
    const std::string load = "optional; in each [[loads]] table";
    const std::string dload = "optional; in each [[distributed_loads]] table";
    const std::string region = "optional; in each [[regions]] table (the keys of model.section)";
    const auto section_reason = [](const C& c) {
      return "with model.section = " + quoted(c.section);
    };
    const auto of_section = [&](const char* key) {
      return [key](const C& c) { return contains(section_keys(c.section), key); };
    };
    const auto shape_reason = [](const C& c) { return "with initial.shape = " + quoted(c.shape); };
    const auto of_shape = [](BeamShape shape) { return [shape](const C& c) { return c.shape == shape; }; };
    const auto noise_reason = [](const C&) { return std::string("with noise.mode = \"none\""); };
    std::vector<Key<C>> k;

    // model
    k.push_back(detail::model_type_key<C>("beam"));
    k.push_back(detail::choice_key<C>("model.section", &C::section, kSections, "a beam section")
                    .doc("cross-section: square (edge a), circle (radius r), general (A, J1, J2, J3) or matrix (K, P "
                         "in full)"));
    k.push_back(detail::number_key<C>("model.rho", &C::rho, NumberCheck::positive)
                    .requirement(not_matrix)
                    .unit("kg/m^3")
                    .doc("density rho")
                    .when(of_section("model.rho"), section_reason));
    k.push_back(detail::number_key<C>("model.E", &C::E, NumberCheck::positive)
                    .requirement(not_matrix)
                    .unit("Pa")
                    .doc("Young's modulus E")
                    .when(of_section("model.E"), section_reason));
    k.push_back(detail::number_key_with<C>("model.nu", &C::nu, "(-1, 0.5)", poisson_problem)
                    .requirement("optional; at most one of model.nu, model.G")
                    .doc("Poisson's ratio: G = E / (2 (1 + nu))")
                    .when([](const C& c) { return c.section != BeamSection::matrix && !c.G_given; },
                          [section_reason](const C& c) {
                            return c.G_given && c.section != BeamSection::matrix ? std::string("with model.G given")
                                                                                  : section_reason(c);
                          }));
    auto G = detail::number_key<C>("model.G", &C::G, NumberCheck::positive)
                 .requirement("optional; at most one of model.nu, model.G")
                 .default_text("E / (2 (1 + nu))")
                 .unit("Pa")
                 .doc("shear modulus G")
                 .when([](const C& c) { return c.section != BeamSection::matrix && c.G_given; }, section_reason);
    G.read = read_G;
    G.check = [](const C& c) { return c.G_given ? detail::number_problem(c.G, NumberCheck::positive) : std::nullopt; };
    k.push_back(G);
    const auto constant = [&](const char* key, double C::*m, const char* unit, const char* doc, const char* section) {
      return detail::number_key<C>(key, m, NumberCheck::positive)
          .requirement(std::string("required for model.section = \"") + section + "\"")
          .default_text("")
          .unit(unit)
          .doc(doc)
          .when(of_section(key), section_reason)
          .no_default();
    };
    k.push_back(constant("model.a", &C::a, "m", "square edge a: A = a^2, J2 = J3 = a^4/12, J1 = J2 + J3", "square"));
    k.push_back(constant("model.r", &C::r, "m", "circle radius r: A = pi r^2, J2 = J3 = pi r^4/4, J1 = pi r^4/2",
                         "circle"));
    k.push_back(constant("model.A", &C::A, "m^2", "section area A", "general"));
    k.push_back(constant("model.J1", &C::J1, "m^4", "polar moment J1 (rotary inertia rho J1 and torsional stiffness G J1)",
                         "general"));
    k.push_back(constant("model.J2", &C::J2, "m^4", "second moment J2 (bending about e2)", "general"));
    k.push_back(constant("model.J3", &C::J3, "m^4", "second moment J3 (bending about e3)", "general"));
    k.push_back(detail::number_key<C>("model.shear_factor", &C::shear_factor, NumberCheck::positive)
                    .requirement(not_matrix)
                    .doc("shear factor k_s: P = diag(G J1, E J2, E J3, E A, k_s G A, k_s G A)")
                    .when(of_section("model.shear_factor"), section_reason));
    k.push_back(matrix_key("model.K", &C::K,
                           "inertia per length K (angular, linear); default diag(rho J1, rho J2, rho J3, rho A, rho A, "
                           "rho A)")
                    .when(of_section("model.K"), section_reason));
    k.push_back(matrix_key("model.P", &C::P, "stiffness P of the strain (kappa, Gamma) - E6")
                    .when(of_section("model.P"), section_reason));
    k.push_back(detail::array_key<C, 3>("model.gravity", &C::gravity)
                    .unit("m/s^2")
                    .doc("gravity vector (potential -rho A g . p per length; rho A = K[3][3])"));
    k.push_back(detail::rule<C>(model_rule));
    auto reference = detail::choice_key<C>("model.reference", &C::reference, kReferences, "a reference configuration")
                         .doc("stress-free state: strain (model.reference_strain on every segment) or initial (the "
                              "initial configuration is stress-free: each segment's reference strain is its initial "
                              "discrete strain)");
    reference.read = nullptr;  // read with the regions (regions_rule)
    k.push_back(reference);
    auto strain = detail::array_key<C, 6>("model.reference_strain", &C::reference_strain)
                      .requirement("optional; model.reference = \"strain\"")
                      .unit("1/m, —")
                      .doc("reference strain (kappa1, kappa2, kappa3, Gamma1, Gamma2, Gamma3): E6 = straight and "
                           "unsheared; a constant kappa makes a pre-curved or pre-twisted beam")
                      .when([](const C& c) { return c.reference == config::BeamReference::strain; },
                            [](const C& c) { return "with model.reference = " + quoted(c.reference); });
    strain.read = nullptr;
    k.push_back(strain);

    // regions (read by regions_rule, after the initial configuration)
    auto s_range = detail::entry_only<C>(
        {"regions.s_range", ValueType::number_array, "required in each [[regions]] table", "", "m",
         "[s_from, s_to], s_from < s_to",
         "segments whose midpoint lies in [s_from, s_to) take this region's values (later regions win); node "
         "inertia = mean of the adjacent segments'",
         ""});
    s_range.expand = region_entries;
    k.push_back(s_range);
    const std::pair<const char*, const char*> region_docs[] = {
        {"kg/m^3", "density in the region"},
        {"Pa", "Young's modulus in the region"},
        {"", "Poisson's ratio (G = E / (2 (1 + nu))) in the region"},
        {"Pa", "shear modulus in the region"},
        {"m", "square edge (model.section = square) in the region"},
        {"m", "circle radius (model.section = circle) in the region"},
        {"m^2", "area (model.section = general) in the region"},
        {"m^4", "polar moment (general) in the region"},
        {"m^4", "second moment (general) in the region"},
        {"m^4", "second moment (general) in the region"},
        {"", "shear factor k_s in the region"}};
    for (std::size_t i = 0; i < config::kRegionConstants; ++i) {
      const auto c = static_cast<RegionConstant>(i);
      k.push_back(detail::entry_only<C>({std::string("regions.") + config::id(c), ValueType::number, region,
                                         "the model's", region_docs[i].first,
                                         c == RegionConstant::nu ? "(-1, 0.5)" : "> 0", region_docs[i].second, ""}));
    }

    // grid and ends
    k.push_back(detail::rule<C>([](Resolver& r, C&) { r.mark("issues before the grid") = r.issues().size(); }));
    k.push_back(detail::integer_key<C>("grid.J", &C::J, 1, kMaxJ)
                    .allowed("1 ... 100000000, within the available memory")
                    .doc("number of segments; ds = length / J; n_nodes = J + 1 (vertex) or J (cell)"));
    k.push_back(detail::choice_key<C>("grid.layout", &C::layout, kLayouts, "a grid layout")
                    .doc("nodes: vertex s_j = j ds, j = 0..J; cell s_j = (j + 1/2) ds, j = 0..J-1"));
    k.push_back(detail::number_key<C>("grid.length", &C::length, NumberCheck::positive)
                    .unit("m")
                    .doc("beam length S, s in [0, S]"));
    k.push_back(detail::choice_key<C>("bc.left", &C::bc_left, kBoundaries, "a boundary condition")
                    .doc("end s = 0: free (zero stress), clamped (node held at its initial pose), prescribed (node "
                         "moved as bc.left_motion gives; clamped and prescribed need the vertex layout) or periodic "
                         "(both ends: J nodes at s_j = j ds, the last segment joins node J-1 to node 0 moved by "
                         "bc.shift)"));
    k.push_back(detail::choice_key<C>("bc.right", &C::bc_right, kBoundaries, "a boundary condition")
                    .doc("end s = S, as bc.left"));
    k.push_back(detail::rule<C>(ends_rule));
    k.push_back(detail::array_key<C, 3>("bc.shift", &C::shift)
                    .requirement("optional; periodic ends")
                    .default_text("grid.length * initial.direction (straight), [0, 0, 0] otherwise")
                    .unit("m")
                    .doc("period of a periodic beam: g_{j+J} = (translation by shift) g_j; [0, 0, 0] closes a ring "
                         "(a periodic arc must then have grid.length = 2 pi initial.radius)")
                    .when([](const C& c) { return c.periodic(); },
                          [](const C&) { return std::string("with ends that are not periodic"); }));
    k.push_back(motion_key("bc.left_motion", &C::left_motion, &C::bc_left, "bc.left")
                    .doc("pose table of the end node: header t,x,y,z,qw,qx,qy,qz, times from 0 strictly increasing, "
                         "the first pose the node's initial pose; positions linear and rotations geodesic (slerp) "
                         "between rows, the last pose held after the table"));
    k.push_back(motion_key("bc.right_motion", &C::right_motion, &C::bc_right, "bc.right")
                    .doc("pose table of the end node s = S, as bc.left_motion"));
    k.push_back(detail::rule<C>(nodes_rule));

    // initial configuration
    auto shape = detail::choice_key<C>("initial.shape", &C::shape, kShapes, "an initial shape")
                     .doc("initial configuration; \"file\" when only initial.file is given");
    shape.read = read_shape;
    k.push_back(shape);
    k.push_back(detail::array_key<C, 3>("initial.origin", &C::origin)
                    .requirement(straight)
                    .unit("m")
                    .doc("position of node s = 0")
                    .when(of_shape(BeamShape::straight), shape_reason));
    k.push_back(detail::array_key<C, 3>("initial.direction", &C::direction)
                    .requirement(straight)
                    .allowed("finite, non-zero (normalised)")
                    .doc("beam axis, the first director d")
                    .when(of_shape(BeamShape::straight), shape_reason));
    k.push_back(detail::array_key<C, 3>("initial.normal", &C::normal)
                    .requirement(straight)
                    .allowed("finite, not zero nor parallel to direction (orthogonalised)")
                    .doc("third director n; frames R = [d | n x d | n]")
                    .when(of_shape(BeamShape::straight), shape_reason));
    k.push_back(detail::number_key<C>("initial.radius", &C::radius, NumberCheck::positive)
                    .requirement(arc)
                    .unit("m")
                    .doc("arc radius: centre line radius (0, cos u, sin u), u = arc_start + s / radius")
                    .when(of_shape(BeamShape::arc), shape_reason));
    k.push_back(detail::number_key<C>("initial.arc_start", &C::arc_start)
                    .requirement(arc)
                    .unit("rad")
                    .doc("angle u at s = 0 (pi/6: the arc of the bending example, symmetric about z for length 2 "
                         "pi/3)")
                    .when(of_shape(BeamShape::arc), shape_reason));
    k.push_back(detail::custom_key<C>(
                    "initial.file", ValueType::string,
                    [](Resolver& r, C& c) {
                      if (auto v = r.string("initial.file")) c.file = *v;
                    },
                    [](const C& c) { return ScenarioValue(c.file); })
                    .requirement("required iff initial.shape = \"file\"")
                    .allowed("CSV path, relative to the scenario file's folder")
                    .doc("header x,y,z,qw,qx,qy,qz[,w1,w2,w3,v1,v2,v3], one row per node, unit quaternions within "
                         "1e-9")
                    .when(of_shape(BeamShape::file), shape_reason)
                    .no_default());
    k.push_back(detail::array_key<C, 6>("initial.velocity", &C::initial_velocity)
                    .requirement("optional; not with velocity columns in initial.file")
                    .unit("rad/s, m/s")
                    .doc("uniform body velocity (w1, w2, w3, v1, v2, v3) of every node")
                    .when([](const C& c) { return !c.file_velocity; },
                          [](const C&) { return std::string("with velocities from initial.file"); }));
    k.push_back(detail::rule<C>(initial_rule));
    k.push_back(detail::rule<C>(regions_rule));
    k.push_back(detail::rule<C>(motion_rule));

    // loads and damping
    auto node = detail::entry_only<C>({"loads.node", ValueType::integer_or_string, "required in each [[loads]] table",
                                       "", "", "integer in [0, n_nodes) or \"last\"", "node the point wrench acts at",
                                       ""});
    node.expand = load_entries;
    k.push_back(node);
    const std::string frames = join(detail::name_list(kFrames));
    const std::vector<SchemaEntry> load_keys = {
        {"loads.frame", ValueType::string, load, "\"spatial\"", "", frames,
         "spatial: dead load (fixed directions, torque about the node); body: follower load", ""},
        {"loads.wrench", ValueType::vec6, "required in each [[loads]] table", "", "N m, N", "finite",
         "wrench (M1, M2, M3, F1, F2, F3), scaled by the factor f(t)", ""},
        {"loads.times", ValueType::number_array, "optional; with loads.factors", "", "s", "strictly increasing",
         "times of the factor table (none: f = 1)", ""},
        {"loads.factors", ValueType::number_array, "optional; with loads.times", "", "", "one per time",
         "factors of the table: f piecewise linear through (times, factors)", ""},
        {"loads.hold", ValueType::boolean, load, "false", "", "true, false",
         "outside the table hold the end factors (else f = 0)", ""}};
    for (const auto& e : load_keys) k.push_back(detail::entry_only<C>(e));
    k.push_back(detail::rule<C>(loads_rule));
    const std::vector<SchemaEntry> dload_keys = {
        {"distributed_loads.frame", ValueType::string, dload, "\"spatial\"", "", frames,
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
         "outside the table hold the end factors (else f = 0)", ""}};
    for (const auto& e : dload_keys) k.push_back(detail::entry_only<C>(e));
    k[k.size() - dload_keys.size()].expand = distributed_load_entries;
    k.push_back(detail::rule<C>(distributed_loads_rule));
    k.push_back(detail::number_key<C>("damping.angular", &C::damping_angular, NumberCheck::nonnegative,
                                      "a damping rate in 1/s")
                    .unit("1/s")
                    .doc("rate c_ang of the linear viscous damping of rotation: force density -D zeta, D = C^1/2 K "
                         "C^1/2, C = diag(c_ang x3, c_lin x3) (mass-proportional; a free rigid spin decays as "
                         "e^(-c_ang t))"));
    k.push_back(detail::number_key<C>("damping.linear", &C::damping_linear, NumberCheck::nonnegative,
                                      "a damping rate in 1/s")
                    .unit("1/s")
                    .doc("rate c_lin of the linear viscous damping of translation (discrete Lagrange-d'Alembert "
                         "force, midpoint in time)"));

    // integrator
    k.push_back(detail::choice_key<C>("integrator.method", &C::method, kMethods, "a beam integrator")
                    .doc("type-i: noise in the kinematics (stochastic Hamilton principle); type-ii: the stochastic "
                         "potential Phi = <mu, Theta> (Hamilton-Pontryagin), the same scheme through the "
                         "general-potential local solve; one Brownian motion per node (common or independent noise, "
                         "not modes)"));
    k.push_back(detail::choice_key<C>("integrator.variant", &C::variant, kVariants, "a variant")
                    .doc("exact: exact DEL and compatibility (variational, 2nd order in dt); approx: the paper's "
                         "(44)+(55), I -/+ 1/2 ad* and the truncated compatibility (1st order in dt, momentum only "
                         "approximately kept)"));
    k.push_back(detail::choice_key<C>("integrator.retraction", &C::retraction, kRetractions, "a retraction")
                    .doc("retraction tau on SE(3), in time and in the strains: cayley (the faster step) or exp "
                         "(logarithmic strains, which do not stiffen in large bends: it keeps the a-priori stability "
                         "bound in large motion, docs/theory/beam.md)"));
    k.push_back(detail::choice_key<C>("integrator.start", &C::start, kStarts, "a start")
                    .doc("first velocity: half (velocity-Verlet half kick) or full step"));
    k.push_back(detail::dt_key<C>("required", "time step"));
    k.push_back(detail::t_end_key<C>([](Resolver& r, C& c) {
      const detail::TimeGrid g = detail::read_time_grid(r, "integrator.dt", "the time step");
      if (g.ok) c.dt = g.dt, c.t_end = g.t_end, c.steps = g.steps;
    }));
    k.push_back(detail::number_key<C>("integrator.newton_tol", &C::newton_tol, NumberCheck::positive)
                    .doc("Newton tolerance of the implicit velocity update"));
    k.push_back(detail::integer_key<C>("integrator.newton_maxit", &C::newton_maxit, 1, kMaxNewtonIt)
                    .doc("Newton iteration limit"));
    k.push_back(detail::boolean_key<C>("integrator.allow_unstable", &C::allow_unstable)
                    .doc("run even when dt is beyond the a-priori stability bound"));

    // noise
    k.push_back(detail::choice_key<C>("noise.mode", &C::noise_mode, kNoiseModes, "a noise mode")
                    .doc("Type-I noise in the body frame (Stratonovich, through A = dt zeta + theta): common: one "
                         "Brownian motion for all nodes; independent: one per node; modes: the [[noise.modes]] "
                         "fields Theta_k(s), one Brownian motion each; zero at clamped and prescribed nodes"));
    auto theta = detail::array_key<C, 6>("noise.theta", &C::theta)
                     .requirement("required for common and independent (not read with modes)")
                     .default_text("")
                     .unit("rad/sqrt(s), m/sqrt(s)")
                     .allowed("finite, not all zero")
                     .doc("Theta (w1, w2, w3, v1, v2, v3): theta_j = Theta dW (per node for independent)")
                     .when([](const C& c) {
                       return c.noise_mode == NoiseMode::common || c.noise_mode == NoiseMode::independent;
                     },
                           [](const C& c) {
                             return c.noise_mode == NoiseMode::modes
                                        ? std::string("with noise.mode = \"modes\" (each [[noise.modes]] table has "
                                                      "its own theta)")
                                        : std::string("with noise.mode = \"none\"");
                           })
                     .no_default();
    theta.read = [](Resolver& r, C& c) {
      if (auto v = r.vec6("noise.theta")) c.theta = *v, r.mark("noise.theta") = 1;
    };
    k.push_back(theta);
    auto mode_theta = detail::entry_only<C>(
        {"noise.modes.theta", ValueType::vec6, "required in each [[noise.modes]] table", "", "rad/sqrt(s), m/sqrt(s)",
         "finite, not all zero",
         "theta (w1, w2, w3, v1, v2, v3) of mode k (the table's index, its stream mode): Theta_k(s_j) = f_k(s_j) "
         "theta, theta_j = sum_k Theta_k(s_j) dW_k",
         ""});
    mode_theta.expand = noise_mode_entries;
    k.push_back(mode_theta);
    k.push_back(detail::entry_only<C>(
        {"noise.modes.profile", ValueType::string, "optional; in each [[noise.modes]] table, not with values",
         "\"constant\"", "", join(detail::name_list(kProfiles)),
         "f_k(s): constant 1, cos(k pi s / L) or sin(k pi s / L); s the node position, L = grid.length", ""}));
    k.push_back(detail::entry_only<C>({"noise.modes.wavenumber", ValueType::integer,
                                       "required for profile cos and sin", "", "",
                                       "0 ... 1000000000 (cos), 1 ... 1000000000 (sin)",
                                       "wavenumber k of a cos / sin profile", ""}));
    k.push_back(detail::entry_only<C>({"noise.modes.values", ValueType::number_array, "optional; instead of profile",
                                       "", "", "n_nodes finite numbers, not all zero",
                                       "f_k(s_j) given at every node j (node order)", ""}));
    for (auto& key : detail::noise_stream_keys<C>(
             noise_rule, [](const C& c) { return c.noise_mode != NoiseMode::none; }, noise_reason))
      k.push_back(std::move(key));

    // output
    k.push_back(detail::every_key<C>());
    for (auto& c : detail::checkpoint_keys<C>()) k.push_back(std::move(c));
    k.push_back(detail::custom_key<C>(
                    "output.probes", ValueType::integer_array,
                    [](Resolver& r, C& c) {
                      const long long n = c.n_nodes();
                      if (auto p = r.integer_array("output.probes")) {
                        if (nodes_known(r)) detail::check_probes(r, *p, n, nodes_text(c));
                        c.probes = *p;
                      } else if (nodes_known(r)) {
                        c.probes = {n / 2};
                      }
                    },
                    [](const C& c) { return ScenarioValue(c.probes); })
                    .default_text("[n_nodes/2]")
                    .allowed("at most 10000 distinct node indices in [0, n_nodes)")
                    .doc("nodes whose pose is in series.csv"));
    k.push_back(detail::boolean_key<C>("output.fields", &C::fields).doc("write fields.h5"));
    k.push_back(detail::fields_every_key<C>("a snapshot (fields.h5, vtk) every `fields_every` steps (t = 0 and t = t_end "
                                 "always)"));
    k.push_back(detail::boolean_key<C>("output.vtk", &C::vtk).doc("write beam.pvd and a .vtp polyline per snapshot"));
    k.push_back(detail::boolean_key<C>("output.fields_csv", &C::fields_csv)
                    .doc("also write the final poses as final_fields.csv (s,x,y,z,qw,qx,qy,qz)"));
    k.push_back(detail::boolean_key<C>("output.plots", &C::plots).doc("make the PNG plots (python3 + matplotlib)"));
    k.push_back(detail::boolean_key<C>("output.per_path", &C::per_path)
                    .doc("ensembles (--paths N): also write each path's series as series_path<k>.csv"));
    k.push_back(detail::quantiles_key<C>());
    k.push_back(detail::boolean_key<C>("output.animation", &C::animation)
                    .doc("with the plots, motion.gif: the centre line over time from the fields.h5 snapshots "
                         "(matplotlib + Pillow; needs output.fields)"));
    return detail::KeyTable<C>(std::move(k));
  }();
  return t;
}

BeamScenario resolve_beam(const RawValue& root_in, const std::string& file, const std::string& name,
                          const std::string& source, const std::vector<std::string>& overrides_in) {
  // [[noise.modes]] is an array of tables inside [noise]: lift it to a top-level array section "noise.modes",
  // so the reader flattens it as it does [[loads]] (entries noise.modes[i].leaf, checked against the schema
  // keys noise.modes.leaf, not settable with --set)
  RawValue root = root_in;
  bool modes_given = false, modes_empty = false;
  const auto noise =
      std::find_if(root.members.begin(), root.members.end(), [](const auto& m) { return m.first == "noise"; });
  if (noise != root.members.end() && noise->second.kind == RawValue::Kind::table) {
    auto& members = noise->second.members;
    const auto it = std::find_if(members.begin(), members.end(), [](const auto& m) { return m.first == "modes"; });
    if (it != members.end()) {
      RawValue modes = std::move(it->second);
      modes_empty = modes.kind == RawValue::Kind::array && modes.items.empty();
      members.erase(it);
      root.members.push_back({kModesSection, std::move(modes)});  // invalidates `noise`, not used after
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
  r.folder = std::filesystem::path(source).parent_path();
  r.mark("noise.modes given") = modes_given ? 1 : 0;
  r.mark("noise.modes empty") = modes_empty ? 1 : 0;
  BeamScenario s;
  s.name = name;
  s.source = source;
  s.given_keys = r.given_keys();
  table().read(r, s);
  if (r.issues().empty())  // the whole need, with the noise modes (a run of one path)
    if (const auto available = available_memory()) {
      const MemoryEstimate e = estimate_memory(s, 1);
      if (const auto problem = memory_problem(e, *available)) r.issue(e.key, *problem);
    }
  detail::throw_if_issues(r);
  return s;
}

/// Every problem of a beam configuration built in C++ (beam_problems): the checks of the keys, then the rules
/// between them and the per-node and per-segment arrays the builders need.
std::vector<InputIssue> beam_problems(const BeamConfig& c) {
  std::vector<InputIssue> out = table().problems(c);
  for (auto& i : detail::time_grid_problems(c.dt, c.t_end, c.steps)) out.push_back(std::move(i));
  const auto add = [&](const std::string& key, std::string message) { out.push_back({"", key, std::move(message)}); };
  if ((c.bc_left == End::periodic) != (c.bc_right == End::periodic))
    add("bc.right", "value " + quoted(c.bc_right) + " with bc.left = " + quoted(c.bc_left) +
                        ": periodic must be on both ends");
  for (const auto& [key, end] : {std::pair{"bc.left", c.bc_left}, std::pair{"bc.right", c.bc_right}})
    if ((end == End::clamped || end == End::prescribed) && c.layout != Layout::vertex)
      add(key, "value " + quoted(end) + " needs grid.layout = \"vertex\"");
  if (c.periodic() && c.J < 2) add("grid.J", "value " + std::to_string(c.J) + ": a periodic beam needs grid.J >= 2");
  if (!out.empty()) return out;  // the node set depends on the keys above
  const long long n = c.n_nodes(), m = c.n_segments();
  const std::string nodes = nodes_text(c);
  if (c.section == BeamSection::matrix) {
    for (const auto& [key, M] : {std::pair{"model.K", &c.K}, std::pair{"model.P", &c.P}})
      if (auto p = spd_problem(*M, detail::value_toml(to_vector(*M)))) add(key, *p);
  }
  if (auto p = detail::count_problem(c.poses.size(), n, "one pose per node, " + nodes)) add("poses", *p);
  if (!c.velocity.empty())
    if (auto p = detail::count_problem(c.velocity.size(), n, "one velocity per node, or none")) add("velocity", *p);
  if (!c.segment_K.empty() || !c.segment_P.empty())
    for (const auto& [name, v] : {std::pair{"segment_K", &c.segment_K}, std::pair{"segment_P", &c.segment_P}})
      if (auto p = detail::count_problem(v->size(), m, "one per segment, or none for the uniform section"))
        add(name, *p);
  for (const auto& [key, end, table] : {std::tuple{"bc.left_motion", c.bc_left, &c.left_motion},
                                        std::tuple{"bc.right_motion", c.bc_right, &c.right_motion}})
    if (end == End::prescribed && (table->times.empty() || table->times.size() != table->poses.size()))
      add(key, "a prescribed end needs a pose table with at least one row (times and poses of equal length)");
  const auto factor_table = [&](const std::string& p, const std::vector<double>& times,
                                const std::vector<double>& factors) {
    if (times.size() != factors.size())
      add(p + "factors", "has " + std::to_string(factors.size()) + " entries; expected one per time, " +
                             std::to_string(times.size()));
    for (std::size_t k = 1; k < times.size(); ++k)
      if (!(times[k] > times[k - 1])) {
        add(p + "times", "is not strictly increasing (entry " + std::to_string(k) + ")");
        break;
      }
  };
  for (std::size_t i = 0; i < c.loads.size(); ++i) {
    const std::string p = "loads[" + std::to_string(i) + "].";
    const auto& L = c.loads[i];
    if (L.node < 0 || L.node >= n)
      add(p + "node", "value " + std::to_string(L.node) + " must be a node index in [0, " + std::to_string(n) + "); " +
                          nodes);
    if (detail::name_of(kFrames, L.frame).empty()) add(p + "frame", "is not a load frame; allowed: spatial, body");
    factor_table(p, L.times, L.factors);
  }
  for (std::size_t i = 0; i < c.distributed_loads.size(); ++i) {
    const std::string p = "distributed_loads[" + std::to_string(i) + "].";
    const auto& L = c.distributed_loads[i];
    if (!(L.s_from >= 0.0 && L.s_from < L.s_to && L.s_to <= c.length))
      add(p + "s_range", "value [" + format_number(L.s_from) + ", " + format_number(L.s_to) +
                             "] must be [s_from, s_to] with 0 <= s_from < s_to <= grid.length = " +
                             format_number(c.length));
    if (detail::name_of(kFrames, L.frame).empty()) add(p + "frame", "is not a load frame; allowed: spatial, body");
    factor_table(p, L.times, L.factors);
  }
  const bool zero_theta = std::all_of(c.theta.begin(), c.theta.end(), [](double x) { return x == 0.0; });
  if ((c.noise_mode == NoiseMode::common || c.noise_mode == NoiseMode::independent) && zero_theta)
    add("noise.theta", "is zero; give a non-zero Theta with noise.mode = " + quoted(c.noise_mode));
  if (c.noise_mode == NoiseMode::modes) {
    if (c.noise_modes.empty()) add("noise.modes", "has no mode; noise.mode = \"modes\" needs at least one");
    if (c.method == config::FieldMethod::type_ii)
      add("noise.mode", "value \"modes\" with integrator.method = \"type-ii\"; allowed: common, independent, none");
    for (std::size_t k = 0; k < c.noise_modes.size(); ++k)
      if (auto p = detail::count_problem(c.noise_modes[k].at_nodes.size(), n, "Theta_k(s_j) at every node, " + nodes))
        add("noise.modes[" + std::to_string(k) + "].at_nodes", *p);
  }
  if (auto p = detail::probes_problem(c.probes, n, nodes)) add("output.probes", *p);
  return out;
}

}  // namespace

// -------------------------------------------------------------------------------------------------------------
// Public API
// -------------------------------------------------------------------------------------------------------------

const std::vector<SchemaEntry>& beam_schema() { return table().schema(); }

bool BeamScenario::given(const std::string& key) const {
  return std::binary_search(given_keys.begin(), given_keys.end(), key);
}

BeamScenario load_beam_scenario(const std::filesystem::path& path, const std::vector<std::string>& overrides) {
  const std::string file = path.string();
  return resolve_beam(detail::parse_toml(detail::read_scenario_text(path), file), file, path.stem().string(), file,
                      overrides);
}

BeamScenario parse_beam_scenario(const std::string& toml_text, const std::string& file_label, const std::string& name,
                                 const std::vector<std::string>& overrides) {
  return resolve_beam(detail::parse_toml(toml_text, file_label), file_label, name, "", overrides);
}

std::vector<ResolvedEntry> resolved_entries(const BeamScenario& s) {
  auto out = table().resolved(s, [&](const std::string& k) { return s.given(k); });
  for (auto& e : out)  // initial.shape = "file" derived from initial.file is not the default
    if (e.key == "initial.shape" && s.shape == BeamShape::file) e.is_default = false;
  return out;
}

std::vector<std::string> ignored_key_notes(const BeamScenario& s) {
  std::vector<std::string> notes = table().ignored_notes(s, [&](const std::string& k) { return s.given(k); });
  // the notes of the per-table keys: listed kMaxNotes times each, then counted
  constexpr long long kMaxNotes = 20;
  long long modes_ignored = 0, holds_ignored = 0;
  const std::string mode = quoted(s.noise_mode);
  if (s.noise_mode != NoiseMode::modes)  // (only with noise.mode = "none": with another mode the tables are an error)
    for (std::size_t i = 0; i < s.noise_modes.size(); ++i)
      for (const auto& leaf : kModeKeys) {
        const std::string key = std::string(kModesSection) + "[" + std::to_string(i) + "]." + leaf;
        if (s.given(key) && ++modes_ignored <= kMaxNotes)
          notes.push_back("key '" + key + "' is ignored with noise.mode = " + mode);
      }
  if (modes_ignored > kMaxNotes)
    notes.push_back("... and " + std::to_string(modes_ignored - kMaxNotes) +
                    " more keys of [[noise.modes]] tables are ignored with noise.mode = " + mode);
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
  if (s.section != BeamSection::matrix)
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
  const auto comments = [&](const ResolvedEntry& e) { return detail::note_comments(notes, e); };
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

namespace lievi::config {
std::vector<InputIssue> problems(const BeamConfig& c) { return io::beam_problems(c); }
void validate(const BeamConfig& c) {
  if (auto p = problems(c); !p.empty()) throw invalid_argument(std::move(p));
}
}  // namespace lievi::config
