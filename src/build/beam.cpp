/// @file src/build/beam.cpp
/// @brief The beam builders (build/beam.hpp): derived data of a configuration, the grid, the model with its
/// loads and prescribed ends, the noise field.
#include "lievi/build/beam.hpp"
#include "lievi/build/output.hpp"

#include <Eigen/Geometry>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <numbers>

#include "lievi/core/error.hpp"
#include "lievi/noise/wiener.hpp"

namespace lievi::build {
namespace {

using config::BeamConfig;
using config::BeamSection;
using config::RegionConstant;
using lie::Mat3;
using lie::Mat6;
using lie::SE3;
using lie::Vec3;
using lie::Vec6;

Mat6 mat6(const config::Mat6& a) {
  Mat6 M;
  for (int i = 0; i < 6; ++i)
    for (int k = 0; k < 6; ++k) M(i, k) = a[static_cast<std::size_t>(i)][static_cast<std::size_t>(k)];
  return M;
}

Vec6 vec6(const config::Wrench& a) {
  Vec6 v;
  for (int c = 0; c < 6; ++c) v[c] = a[static_cast<std::size_t>(c)];
  return v;
}

SE3 pose_se3(const config::Pose& q) {
  const Eigen::Quaterniond Q(q[3], q[4], q[5], q[6]);
  return SE3(Mat3(Q.normalized().toRotationMatrix()), Vec3(q[0], q[1], q[2]));
}

/// The pose (x, y, z, qw, qx, qy, qz) of position p and rotation R (Hamilton quaternion, qw >= 0).
config::Pose pose_of(const Vec3& p, const Mat3& R) {
  Eigen::Quaterniond q(R);
  q.normalize();
  if (q.w() < 0.0) q.coeffs() = -q.coeffs();
  return {p[0], p[1], p[2], q.w(), q.x(), q.y(), q.z()};
}

/// Length of [lo, hi] inside [a, b].
double overlap(double lo, double hi, double a, double b) { return std::max(0.0, std::min(hi, b) - std::max(lo, a)); }

}  // namespace

void section_matrices(BeamConfig& s) {
  if (s.section == BeamSection::matrix) return;
  if (!s.G_given) s.G = s.E / (2.0 * (1.0 + s.nu));
  if (s.section == BeamSection::square) {
    s.A = s.a * s.a;
    s.J2 = s.J3 = std::pow(s.a, 4) / 12.0;
    s.J1 = s.J2 + s.J3;
  } else if (s.section == BeamSection::circle) {
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

void segment_matrices(BeamConfig& s) {
  const auto m = static_cast<std::size_t>(s.n_segments());
  s.segment_K.assign(m, s.K);
  s.segment_P.assign(m, s.P);
  if (s.regions.empty() || s.section == BeamSection::matrix) return;
  // A segment takes, for each constant, the value of the last region covering its midpoint that sets it
  // (later regions win); G follows E and nu unless the last region setting nu or G set G (or, with none, the
  // base gave G). Each region covers a contiguous run of segments (the midpoints increase), found by binary
  // search; "the last region setting constant k" is painted in reverse region order with a next-unpainted
  // pointer, so the work is O((segments + regions) log segments), not segments x regions.
  std::vector<double> mid(m);
  for (std::size_t e = 0; e < m; ++e)
    mid[e] = (static_cast<double>(e) + (s.layout == field::Layout::cell && !s.periodic() ? 1.0 : 0.5)) * s.ds();
  const std::size_t n_leaves = config::kRegionConstants;  // slot n_leaves: any region
  // region indices as 32 bits (4 bytes per constant and segment; a file cannot hold 2^32 - 1 tables)
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
      const config::BeamRegion& g = s.regions[i];
      if (k != n_leaves && !g.values[k]) continue;
      // covered: mid >= s_from and mid < s_to
      const auto lo = static_cast<std::size_t>(std::lower_bound(mid.begin(), mid.end(), g.s_from) - mid.begin());
      const auto hi = static_cast<std::size_t>(std::lower_bound(mid.begin(), mid.end(), g.s_to) - mid.begin());
      for (std::size_t e = find(lo); e < hi; e = find(e)) {
        last[k][e] = static_cast<std::uint32_t>(i);
        next[e] = e + 1;
      }
    }
  }
  const auto k_nu = static_cast<std::size_t>(RegionConstant::nu), k_G = static_cast<std::size_t>(RegionConstant::G);
  for (std::size_t e = 0; e < m; ++e) {
    if (last[n_leaves][e] == kNone) continue;  // no region covers the segment
    BeamConfig local;  // the base section with the regions' values (only the section constants are copied)
    local.section = s.section;
    local.rho = s.rho, local.E = s.E, local.nu = s.nu, local.G = s.G, local.G_given = s.G_given;
    local.a = s.a, local.r = s.r, local.A = s.A, local.J1 = s.J1, local.J2 = s.J2, local.J3 = s.J3;
    local.shear_factor = s.shear_factor;
    double* slots[] = {&local.rho, &local.E,  &local.nu, &local.G,  &local.a,           &local.r,
                       &local.A,   &local.J1, &local.J2, &local.J3, &local.shear_factor};
    for (std::size_t k = 0; k < n_leaves; ++k)
      if (last[k][e] != kNone) *slots[k] = *s.regions[last[k][e]].values[k];
    const std::uint32_t i_nu = last[k_nu][e], i_G = last[k_G][e];
    if (i_nu != kNone || i_G != kNone) local.G_given = i_G != kNone && (i_nu == kNone || i_G > i_nu);
    // G follows E and nu after the last covering region unless G is given (by it or the base)
    section_matrices(local);
    s.segment_K[e] = local.K;
    s.segment_P[e] = local.P;
  }
}

void initial_poses(BeamConfig& s) {
  if (s.shape == config::BeamShape::file)
    throw invalid_argument("", "initial.shape", "the poses of shape \"file\" are the file's; give them in poses");
  const long long N = s.n_nodes();
  const Vec3 d(s.direction[0], s.direction[1], s.direction[2]), n(s.normal[0], s.normal[1], s.normal[2]);
  s.poses.clear();
  s.velocity.clear();
  for (long long j = 0; j < N; ++j) {
    const double sj = s.s_of(j);
    Vec3 p;
    Mat3 R;
    if (s.shape == config::BeamShape::straight) {
      p = Vec3(s.origin[0], s.origin[1], s.origin[2]) + sj * d;
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
}

std::vector<config::Wrench> mode_at_nodes(const BeamConfig& s, const config::BeamNoiseMode& m, double* largest_f) {
  std::vector<config::Wrench> at;
  double largest = 0.0;
  for (long long j = 0; j < s.n_nodes(); ++j) {
    const double arg = static_cast<double>(m.wavenumber) * std::numbers::pi * s.s_of(j) / s.length;
    const double f = m.profile == config::ModeProfile::values ? m.values.at(static_cast<std::size_t>(j))
                     : m.profile == config::ModeProfile::cos  ? std::cos(arg)
                     : m.profile == config::ModeProfile::sin  ? std::sin(arg)
                                                              : 1.0;
    largest = std::max(largest, std::abs(f));
    config::Wrench t{};
    for (std::size_t c = 0; c < 6; ++c) t[c] = f * m.theta[c];
    at.push_back(t);
  }
  if (largest_f) *largest_f = largest;
  return at;
}

void mode_profiles(BeamConfig& s) {
  for (auto& m : s.noise_modes) m.at_nodes = mode_at_nodes(s, m, nullptr);
}

void complete(BeamConfig& c) {
  section_matrices(c);
  segment_matrices(c);
  if (c.poses.empty() && c.shape != config::BeamShape::file) initial_poses(c);
  if (c.velocity.empty()) c.velocity.assign(c.poses.size(), c.initial_velocity);
  if (c.periodic() && c.shape == config::BeamShape::straight && c.shift == std::array<double, 3>{})
    for (std::size_t i = 0; i < 3; ++i) c.shift[i] = c.length * c.direction[i];
  mode_profiles(c);
  if (c.probes.empty()) c.probes = {c.n_nodes() / 2};
  if (c.fields_every == 0 && c.steps > 0 && c.every > 0) c.fields_every = default_fields_every(c.steps, c.every);
}

field::Grid grid(const BeamConfig& c) { return field::Grid(c.layout, c.J, c.length, c.bc_left, c.bc_right); }

SE3 pose_at(const config::PoseTable& table, double t) {
  const auto& T = table.times;
  if (T.size() == 1 || t >= T.back()) return pose_se3(table.poses.back());
  if (t <= T.front()) return pose_se3(table.poses.front());
  const auto k = static_cast<std::size_t>(std::upper_bound(T.begin(), T.end(), t) - T.begin());  // T[k-1] <= t < T[k]
  const double w = (t - T[k - 1]) / (T[k] - T[k - 1]);
  const auto& a = table.poses[k - 1];
  const auto& b = table.poses[k];
  const Eigen::Quaterniond qa(a[3], a[4], a[5], a[6]), qb(b[3], b[4], b[5], b[6]);
  const Vec3 p = (1.0 - w) * Vec3(a[0], a[1], a[2]) + w * Vec3(b[0], b[1], b[2]);
  return SE3(Mat3(qa.slerp(w, qb).normalized().toRotationMatrix()), p);
}

template <class Ret>
models::Beam<Ret> model(const BeamConfig& s, const field::Grid& grid) {
  models::Beam<Ret> b;
  const Mat6 K = mat6(s.K), P = mat6(s.P);
  const auto n = static_cast<std::size_t>(grid.n_nodes()), m = static_cast<std::size_t>(grid.n_segments());
  b.E_seg.assign(m, vec6(s.reference_strain));  // model.reference = "initial" replaces them by the initial strains
  if (s.segment_P.size() != m) {  // uniform (a configuration resolved without its grid)
    b.K_node.assign(n, K);
    b.P_seg.assign(m, P);
  } else {
    // per-segment K and P; the node inertia is the mean of the adjacent segments' K (equal weights ds/2; one
    // segment at a free or clamped end; a cell-layout end node has its ghost half cell of the end segment's K)
    b.P_seg.clear();
    for (std::size_t e = 0; e < m; ++e) b.P_seg.push_back(mat6(s.segment_P[e]));
    b.K_node.assign(n, Mat6::Zero());
    for (std::ptrdiff_t j = 0; j < grid.n_nodes(); ++j) {
      const auto l = grid.left_segment(field::NodeIndex{j}).e, r = grid.right_segment(field::NodeIndex{j}).e;
      Mat6 Kj = Mat6::Zero();
      int count = 0;
      for (const auto e : {l, r})
        if (e >= 0) Kj += mat6(s.segment_K[static_cast<std::size_t>(e)]), ++count;
      b.K_node[static_cast<std::size_t>(j)] = count ? Mat6(Kj / count) : K;
    }
  }
  b.rhoA_node.clear();
  for (const Mat6& Kj : b.K_node) b.rhoA_node.push_back(Kj(3, 3));  // rho A = the translational inertia
  b.gravity = Vec3(s.gravity[0], s.gravity[1], s.gravity[2]);
  b.momentum_scale = 1e-12 * K.norm();
  if (grid.periodic()) b.closure = SE3(Mat3::Identity(), Vec3(s.shift[0], s.shift[1], s.shift[2]));
  b.set_damping(s.damping_angular, s.damping_linear);
  if (s.bc_left == field::End::prescribed || s.bc_right == field::End::prescribed) {
    const config::PoseTable left = s.left_motion, right = s.right_motion;
    // pose_at reads the table's first and last rows: a prescribed end needs one (config::validate refuses an
    // empty table; this guards a model built from an unchecked configuration)
    for (const auto& [end, key, table] : {std::tuple{s.bc_left, "bc.left_motion", &left},
                                          std::tuple{s.bc_right, "bc.right_motion", &right}}) {
      const bool prescribed = end == field::End::prescribed;
      if (prescribed && (table->times.empty() || table->poses.size() != table->times.size()))
        throw invalid_argument("", key,
                               "a prescribed end needs a pose table with at least one row (times and poses of equal "
                               "length)");
    }
    b.prescribed_pose = [left, right](std::ptrdiff_t j, double t) { return pose_at(j == 0 ? left : right, t); };
  }
  // One lumped wrench table per node: point loads at their node; a distributed load's density times the
  // length of the node's cell inside its s_range. The cell is [s_j - ds/2, s_j + ds/2], clipped to [0, S]
  // (so a vertex end node's cell is its half cell, of length w_j); periodic: the cell of node 0 reaches below
  // s = 0, i.e. to the end of the period.
  // the factor tables once per load; per node the list of its lumped wrenches (Beam::tabled_loads, which the
  // batched node sweep applies itself)
  using Entry = models::TabledLoads::Entry;
  std::vector<std::function<double(double)>> factors;
  std::vector<std::vector<Entry>> by_node(static_cast<std::size_t>(grid.n_nodes()));
  bool any = false;
  for (const auto& l : s.loads) {
    by_node[static_cast<std::size_t>(l.node)].push_back({factors.size(), l.frame == config::LoadFrame::body, vec6(l.wrench)});
    factors.emplace_back([l](double t) { return l.factor(t); });
    any = true;
  }
  for (const auto& d : s.distributed_loads) {
    for (std::ptrdiff_t j = 0; j < grid.n_nodes(); ++j) {
      const double sj = grid.s(field::NodeIndex{j}), hw = 0.5 * grid.ds();
      double len = 0.0;
      if (grid.periodic())
        len = overlap(sj - hw, sj + hw, d.s_from, d.s_to) + overlap(sj - hw + s.length, sj + hw + s.length, d.s_from, d.s_to);
      else
        len = overlap(std::max(sj - hw, 0.0), std::min(sj + hw, s.length), d.s_from, d.s_to);
      if (len <= 0.0) continue;
      Vec6 w;
      for (int c = 0; c < 6; ++c) w[c] = len * d.wrench[static_cast<std::size_t>(c)];
      by_node[static_cast<std::size_t>(j)].push_back({factors.size(), d.frame == config::LoadFrame::body, w});
      any = true;
    }
    factors.emplace_back([d](double t) { return d.factor(t); });
  }
  if (any) b.tabled_loads = models::TabledLoads::from(std::move(factors), by_node);
  return b;
}

template models::Beam<lie::Cayley<SE3>> model(const BeamConfig&, const field::Grid&);
template models::Beam<lie::Exp<SE3>> model(const BeamConfig&, const field::Grid&);

field::NoiseField<Vec6> noise_field(const BeamConfig& s, const field::Grid& grid) {
  const noise::WienerIncrements inc(noise::StreamKey{s.seed, s.path}, s.base_dt > 0 ? s.base_dt : s.dt, s.refine_log2,
                                    s.truncate);
  // modes: Theta_k(s_j) per mode and node (stream mode k = the list index)
  std::vector<std::vector<Vec6>> modes;
  if (s.noise_mode == field::NoiseMode::modes)
    for (const auto& m : s.noise_modes) {
      std::vector<Vec6>& at = modes.emplace_back();
      for (const auto& t : m.at_nodes) at.push_back(vec6(t));
    }
  return field::NoiseField<Vec6>(grid, s.noise_mode, vec6(s.theta), std::move(modes), inc);
}

}  // namespace lievi::build
