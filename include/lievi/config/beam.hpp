#pragma once
/// @file lievi/config/beam.hpp
/// @brief The typed configuration of a geometrically exact beam on SE(3): section and material (or K and P
/// in full), regions, grid and ends, prescribed end motion, initial configuration, point and distributed
/// loads, damping, Type-I/II noise (common, independent or spatial modes), the integrator and the output, as
/// enumerations and numbers. A scenario file (`model.type = "beam"`) is read into it; the keys, defaults
/// and allowed values are those of docs/scenarios.md ("beam"), and the member initialisers are the
/// defaults. The equations are those of docs/theory/beam.md.
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "lievi/config/rigid_body.hpp"
#include "lievi/core/error.hpp"
#include "lievi/config/wave.hpp"
#include "lievi/field/grid.hpp"
#include "lievi/field/noise_field.hpp"
#include "lievi/field/options.hpp"

namespace lievi::config {

/// model.section: square (edge a), circle (radius r), general (A, J1, J2, J3), matrix (K, P in full).
enum class BeamSection { square, circle, general, matrix };
/// initial.shape: straight, the circular arc of the bending example, or a CSV file of poses.
enum class BeamShape { straight, arc, file };
/// The frame of a load: spatial (dead load: fixed directions) or body (follower load).
enum class LoadFrame { spatial, body };
/// model.reference: the stress-free state is model.reference_strain on every segment, or the initial
/// configuration.
enum class BeamReference { strain, initial };
/// The spatial profile f_k(s) of a noise mode: 1, cos(k pi s / L), sin(k pi s / L), or one value per node.
enum class ModeProfile { constant, cos, sin, values };
/// The section and material constants a region may set, in documentation order.
enum class RegionConstant { rho, E, nu, G, a, r, A, J1, J2, J3, shear_factor };
inline constexpr std::size_t kRegionConstants = 11;

[[nodiscard]] const char* id(BeamSection s);
[[nodiscard]] const char* id(BeamShape s);
[[nodiscard]] const char* id(LoadFrame f);
[[nodiscard]] const char* id(BeamReference r);
[[nodiscard]] const char* id(ModeProfile p);
[[nodiscard]] const char* id(RegionConstant c);

using Wrench = std::array<double, 6>;                   ///< (torque or angular, force or linear)
using Mat6 = std::array<std::array<double, 6>, 6>;      ///< row-major 6x6
using Pose = std::array<double, 7>;                     ///< x, y, z, qw, qx, qy, qz (unit, qw >= 0)

/// A piecewise-linear factor f(t) through (times[i], factors[i]); 1 without a table; outside the table's
/// time range 0, or the nearest end value with `hold`.
[[nodiscard]] double table_factor(const std::vector<double>& times, const std::vector<double>& factors, bool hold,
                                  double t);

/// One point wrench at a node: in the spatial frame (dead load: fixed directions, torque about the node) or
/// the body frame (follower), the wrench (M1, M2, M3, F1, F2, F3) times the factor f(t).
struct BeamLoad {
  long long node = 0;              ///< node index (0 ... n_nodes-1)
  bool last = false;               ///< given as "last" (printed back as "last")
  LoadFrame frame = LoadFrame::spatial;
  Wrench wrench{};                 ///< torque (3) then force (3)
  std::vector<double> times;       ///< strictly increasing (empty: constant factor 1)
  std::vector<double> factors;     ///< same length as times
  bool hold = false;               ///< hold the first / last factor outside the table
  [[nodiscard]] double factor(double t) const { return table_factor(times, factors, hold, t); }
};

/// A wrench per unit length (torque, force) on s in [s_from, s_to], spatial (dead, torque about the centre
/// line) or body (follower), times a factor table as BeamLoad's. Lumped at the nodes: node j gets the wrench
/// times the length of its cell [s_j - w_j/2, s_j + w_j/2] that lies in [s_from, s_to].
struct BeamDistributedLoad {
  LoadFrame frame = LoadFrame::spatial;
  Wrench wrench{};                  ///< per unit length: torque (3) then force (3)
  double s_from = 0.0, s_to = 0.0;  ///< the range (the scenario reader's default: the whole beam)
  std::vector<double> times, factors;
  bool hold = false;
  [[nodiscard]] double factor(double t) const { return table_factor(times, factors, hold, t); }
};

/// A part of the beam with its own section or material: the segments whose midpoint lies in [s_from, s_to)
/// take the base values with the given ones replaced (later regions win); the node inertia is the weighted
/// mean of the adjacent segments'.
struct BeamRegion {
  double s_from = 0.0, s_to = 0.0;
  /// the constants the region sets, indexed by RegionConstant
  std::array<std::optional<double>, kRegionConstants> values{};
  [[nodiscard]] std::optional<double> value(RegionConstant c) const { return values[static_cast<std::size_t>(c)]; }
};

/// One spatial noise mode: Theta_k(s_j) = f_k(s_j) theta. Mode k (list index) draws the Brownian motion of
/// stream mode k.
struct BeamNoiseMode {
  Wrench theta{};                              ///< (w1, w2, w3, v1, v2, v3), body frame
  ModeProfile profile = ModeProfile::constant;
  long long wavenumber = 0;                    ///< k of cos (>= 0) and sin (>= 1)
  std::vector<double> values;                  ///< profile values: f_k(s_j), one per node
  std::vector<Wrench> at_nodes;                ///< resolved: Theta_k(s_j) per node
};

/// The pose table of a prescribed end: times from 0, strictly increasing, and poses x, y, z, qw, qx, qy, qz
/// (unit quaternions, qw >= 0). Between rows positions are linear and rotations geodesic; after the table
/// the last pose is held.
struct PoseTable {
  std::string file, file_path;  ///< as given / resolved against the scenario's folder (reader only)
  std::vector<double> times;
  std::vector<Pose> poses;
};

struct BeamConfig {
  // model: section and material, or full K and P
  BeamSection section = BeamSection::square;
  double rho = 1.0, E = 1.0, nu = 0.0, G = 0.0;  ///< G derived from E, nu unless G_given
  bool G_given = false;                          ///< model.G given (else G = E / (2 (1 + nu)))
  double a = 0.0, r = 0.0;                       ///< square edge / circle radius
  double A = 0.0, J1 = 0.0, J2 = 0.0, J3 = 0.0;  ///< section constants (resolved also for square / circle)
  double shear_factor = 1.0;
  Mat6 K{}, P{};                                 ///< resolved (diagonal unless section = matrix)
  std::array<double, 3> gravity{};               ///< m/s^2 (mass per length rho A = K[3][3])
  BeamReference reference = BeamReference::strain;
  Wrench reference_strain{0.0, 0.0, 0.0, 1.0, 0.0, 0.0};  ///< (kappa, Gamma), default E6
  std::vector<BeamRegion> regions;
  std::vector<Mat6> segment_K, segment_P;  ///< resolved per segment (n_segments entries)

  // grid and ends
  long long J = 20;                                ///< segments (vertex, periodic) / cells (cell)
  field::Layout layout = field::Layout::vertex;
  double length = 1.0;
  field::End bc_left = field::End::free, bc_right = field::End::free;
  /// periodic: g_{j+J} = (translation by shift) g_j; default grid.length * direction (straight), 0 (ring)
  std::array<double, 3> shift{};
  PoseTable left_motion, right_motion;  ///< prescribed ends

  // initial configuration
  BeamShape shape = BeamShape::straight;
  std::array<double, 3> origin{};                  ///< straight: position of node 0
  std::array<double, 3> direction{1.0, 0.0, 0.0};  ///< straight: beam axis (first director), unit
  std::array<double, 3> normal{0.0, 0.0, 1.0};     ///< straight: third director, unit, orthogonal to direction
  /// arc: centre line radius (0, cos u, sin u), u = arc_start + s / radius, frames [t | inward normal | e_x]
  double radius = 1.0;
  double arc_start = 0.5235987755982988;  ///< angle u of s = 0 (pi/6 for the bending example)
  std::string file;                       ///< initial.file: CSV x,y,z,qw,qx,qy,qz[,w1,...,v3] per node
  std::string file_path;                  ///< initial.file resolved against the scenario's folder
  bool file_velocity = false;             ///< the file gave the six velocity columns
  Wrench initial_velocity{};              ///< uniform body (w, v)
  std::vector<Pose> poses;                ///< resolved per node
  std::vector<Wrench> velocity;           ///< resolved per node: body (w, v)

  // loads and damping
  std::vector<BeamLoad> loads;
  std::vector<BeamDistributedLoad> distributed_loads;
  double damping_angular = 0.0, damping_linear = 0.0;  ///< mass-proportional rates, 1/s

  // noise (body frame, Stratonovich through the group increment)
  field::NoiseMode noise_mode = field::NoiseMode::none;
  Wrench theta{};                          ///< Theta in se(3) (angular, linear), per sqrt(s)
  std::vector<BeamNoiseMode> noise_modes;  ///< noise_mode = modes
  std::uint32_t seed = 1, path = 0;
  double base_dt = 0.0;  ///< finest noise step (default dt); dt = 2^refine_log2 base_dt
  int refine_log2 = 0;
  bool truncate = false;

  // integrator
  FieldMethod method = FieldMethod::type_i;
  Retraction retraction = Retraction::cayley;  ///< cayley or exp
  field::Variant variant = field::Variant::exact;
  field::Start start = field::Start::half;
  double dt = 0.0, t_end = 0.0;
  long long steps = 0;
  double newton_tol = 1e-13;
  long long newton_maxit = 30;
  bool allow_unstable = false;

  // output
  long long every = 1;
  std::vector<long long> probes;  ///< default: the middle node
  bool fields = true;
  long long fields_every = 0;  ///< default: every, raised to <= 1000 snapshots
  bool vtk = true;             ///< beam.pvd + .vtp series (at the field snapshots)
  bool fields_csv = false;
  bool plots = true;
  bool per_path = false;   ///< ensembles: also write series_path<k>.csv
  std::vector<double> quantiles;  ///< ensembles: series_q<q>.csv for each q in [0, 1]
  bool animation = false;  ///< motion.gif of the centre line from the fields.h5 snapshots
  long long checkpoint_every = 0;  ///< checkpoint.h5 every so many steps (0: not by steps; single runs)
  double checkpoint_wall = 0.0;    ///< checkpoint.h5 after so many seconds of wall time (0: not by time)
  [[nodiscard]] bool checkpoints() const { return checkpoint_every > 0 || checkpoint_wall > 0.0; }

  [[nodiscard]] bool periodic() const { return bc_left == field::End::periodic; }
  [[nodiscard]] long long n_nodes() const;     ///< J + 1 (vertex) or J (cell, or periodic)
  [[nodiscard]] long long n_segments() const;  ///< J (vertex, periodic) or J - 1 (cell)
  [[nodiscard]] double ds() const { return length / static_cast<double>(J); }
  [[nodiscard]] double s_of(long long j) const;       ///< vertex or periodic j ds, cell (j + 1/2) ds
  [[nodiscard]] double weight_of(long long j) const;  ///< the node's mass weight w_j (field::Grid::weight)
  [[nodiscard]] double time_at(long long k) const { return k == steps ? t_end : static_cast<double>(k) * dt; }
};

/// Every problem of `c`, each naming the key (or the member, for the resolved arrays: poses, velocity,
/// segment_K, ...), the value and what is allowed: the checks of the scenario keys (ranges, enumeration values
/// out of range), the ends, the time grid, a matrix section's K and P, and the per-node and per-segment arrays
/// against the grid. Empty when `c` is valid.
[[nodiscard]] std::vector<InputIssue> problems(const BeamConfig& c);
/// Throws lievi::invalid_argument carrying every problem of `c`.
void validate(const BeamConfig& c);

}  // namespace lievi::config
