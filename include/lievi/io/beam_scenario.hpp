#pragma once
/// @file lievi/io/beam_scenario.hpp
/// @brief The scenario of a geometrically exact beam on SE(3), `model.type = "beam"` (variants `exact` and
/// `approx`, Type-I noise: common, independent or spatial modes; Type-II follows with the rest of issue 6).
///
/// Same schema style as the rigid body and the wave (io/scenario.hpp, io/wave_scenario.hpp): every key with
/// type, default, unit and allowed values in `beam_schema()`, all issues of a file reported together, `--set`
/// overrides, `lievi validate` printout, docs/scenarios.md table. Keys: docs/scenarios.md ("beam").
///
/// Section constants (docs/theory/beam.md "The continuous beam"): square A = a², J2 = J3 = a⁴/12, J1 = J2 + J3; circle A = πr², J2 = J3 = πr⁴/4,
/// J1 = πr⁴/2; general A, J1, J2, J3 as given; K = diag(ρJ1, ρJ2, ρJ3, ρA, ρA, ρA),
/// P = diag(GJ1, EJ2, EJ3, EA, k_s GA, k_s GA), G = E/(2(1+ν)) unless model.G is given; or K, P given in full
/// (section "matrix", 6x6 symmetric positive definite). Loads come from `[[loads]]` tables and cannot be set
/// with `--set`. Noise: `common` or `independent` with a constant Theta in se(3), or `modes`: a list of
/// `[[noise.modes]]` tables, each a Theta in se(3) times a spatial profile (Type-II arrives with the rest of
/// issue 6).
#include <array>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "lievi/io/scenario.hpp"

namespace lievi::io {

/// One point wrench (docs/scenarios.md `[[loads]]`): at `node`, in the spatial frame (dead load: fixed
/// directions, torque about the node) or the body frame (follower), the wrench (M1, M2, M3, F1, F2, F3) times
/// a piecewise-linear factor f(t) through (times[i], factors[i]) (constant 1 when no table; 0 outside the
/// table's time range unless `hold` is set, then the end values are held).
struct BeamLoad {
  long long node = 0;              ///< node index (0 ... n_nodes-1); "last" in the file resolves to n_nodes-1
  bool last = false;               ///< node given as "last" (printed back as "last")
  std::string frame = "spatial";   ///< "spatial" (dead) or "body" (follower)
  std::array<double, 6> wrench{};  ///< torque (3) then force (3)
  std::vector<double> times;       ///< strictly increasing (empty: constant factor 1)
  std::vector<double> factors;     ///< same length as times
  bool hold = false;               ///< hold the first / last factor outside the table
  /// f(t): 1 without a table; inside [times.front(), times.back()] the linear interpolation of the table;
  /// outside it 0, or the nearest end value with `hold`.
  [[nodiscard]] double factor(double t) const;
};

/// One distributed load (docs/scenarios.md `[[distributed_loads]]`): a wrench per unit length (torque, force)
/// on s in [s_from, s_to], in the spatial frame (dead: fixed directions, torque about the centre line) or the
/// body frame (follower), times a factor table as BeamLoad's. Lumped at the nodes: node j gets the wrench
/// times the length of its cell [s_j - w_j/2, s_j + w_j/2] that lies in [s_from, s_to].
struct BeamDistributedLoad {
  std::string frame = "spatial";
  std::array<double, 6> wrench{};   ///< per unit length: torque (3) then force (3)
  double s_from = 0.0, s_to = 0.0;  ///< resolved range (default the whole beam)
  std::vector<double> times, factors;
  bool hold = false;
  [[nodiscard]] double factor(double t) const;
};

/// A part of the beam with its own section or material (docs/scenarios.md `[[regions]]`): the segments whose
/// midpoint lies in [s_from, s_to) take the base model's values with the given ones replaced (later regions
/// win); the node inertia is the weighted mean of the adjacent segments'.
struct BeamRegion {
  double s_from = 0.0, s_to = 0.0;
  /// the given overrides, by key leaf ("rho", "E", "nu", "G", "a", "r", "A", "J1", "J2", "J3", "shear_factor")
  std::vector<std::pair<std::string, double>> values;
};

/// One spatial noise mode (docs/scenarios.md `[[noise.modes]]`): Theta_k(s_j) = f_k(s_j) theta, with the
/// profile f_k = 1 (constant), cos(k pi s / L), sin(k pi s / L) (L = grid.length, s the node position), or one
/// given value per node. Mode k (list index) draws the Brownian motion of stream mode k.
struct BeamNoiseMode {
  std::array<double, 6> theta{};     ///< (w1, w2, w3, v1, v2, v3), body frame
  std::string profile = "constant";  ///< "constant", "cos", "sin", or "values" (the `values` key was given)
  long long wavenumber = 0;          ///< k of cos (>= 0) and sin (>= 1)
  std::vector<double> values;        ///< profile "values": f_k(s_j), one per node
  /// resolved: Theta_k(s_j) per node (n_nodes entries; empty when the grid is not known)
  std::vector<std::array<double, 6>> at_nodes;
};

/// The pose table of a prescribed end (bc.left_motion / bc.right_motion): times from 0, strictly increasing,
/// and poses x, y, z, qw, qx, qy, qz (unit quaternions, qw >= 0 after normalising the sign).
struct PoseTable {
  std::string file, file_path;  ///< as given / resolved against the scenario's folder
  std::vector<double> times;
  std::vector<std::array<double, 7>> poses;
};

/// A validated beam scenario with every default filled.
struct BeamScenario {
  std::string name, source;

  // model: section and material, or full K and P
  /// "square" (edge a), "circle" (radius r), "general" (A, J1, J2, J3), "matrix" (K, P)
  std::string section = "square";
  double rho = 1.0, E = 1.0, nu = 0.0, G = 0.0;  ///< G derived from E, nu unless given (nu unused then)
  bool G_given = false;                          ///< model.G given (else G = E / (2 (1 + nu)))
  double a = 0.0, r = 0.0;                       ///< square edge / circle radius
  double A = 0.0, J1 = 0.0, J2 = 0.0, J3 = 0.0;  ///< resolved section constants (also for square / circle)
  double shear_factor = 1.0;
  std::array<std::array<double, 6>, 6> K{}, P{};  ///< resolved (diagonal unless section = "matrix")
  std::array<double, 3> gravity{};                ///< model.gravity, m/s^2 (mass per length rho A = K[3][3])
  /// "strain": the reference strain is model.reference_strain on every segment; "initial": the initial
  /// configuration is stress-free (each segment's reference strain is its initial strain)
  std::string reference = "strain";
  std::array<double, 6> reference_strain{0.0, 0.0, 0.0, 1.0, 0.0, 0.0};  ///< (kappa, Gamma), default E6
  std::vector<BeamRegion> regions;
  /// resolved per segment (n_segments entries): K and P of each segment (the base section's, or a region's)
  std::vector<std::array<std::array<double, 6>, 6>> segment_K, segment_P;

  // grid and ends
  long long J = 20;               ///< segments (vertex) / cells (cell)
  std::string layout = "vertex";  ///< "vertex" (default for beams) or "cell"
  double length = 1.0;
  std::string bc_left = "free", bc_right = "free";  ///< "free", "clamped", "prescribed" (vertex), "periodic" (both)
  /// periodic: g_{j+J} = (translation by shift) g_j; default grid.length * direction (straight), 0 (ring)
  std::array<double, 3> shift{};
  PoseTable left_motion, right_motion;  ///< prescribed ends
  [[nodiscard]] bool periodic() const { return bc_left == "periodic"; }

  // initial configuration
  std::string shape = "straight";                  ///< "straight", "arc" (circular arc of the bending example), "file"
  std::array<double, 3> origin{};                  ///< straight: position of node 0
  std::array<double, 3> direction{1.0, 0.0, 0.0};  ///< straight: beam axis (first director), normalised
  std::array<double, 3> normal{0.0, 0.0,
                               1.0};  ///< straight: third director (orthogonalised against direction)
  /// arc: radius; centre line radius (0, cos u, sin u), u = arc_start + s / radius, in the y-z plane (the bending example, docs/theory/beam.md),
  /// frames [t | inward normal | e_x]
  double radius = 1.0;
  double arc_start = 0.5235987755982988;        ///< arc: angle u of s = 0 (pi/6 for the bending example)
  std::string file;                             ///< CSV x,y,z,qw,qx,qy,qz[,w1,w2,w3,v1,v2,v3] per node
  std::string file_path;                        ///< initial.file resolved against the scenario's folder
  bool file_velocity = false;                   ///< the file gave the six velocity columns
  std::array<double, 6> initial_velocity{};     ///< initial.velocity (body w, v), uniform
  std::vector<std::array<double, 7>> poses;     ///< resolved per node: x, y, z, qw, qx, qy, qz
  std::vector<std::array<double, 6>> velocity;  ///< resolved per node: body (w, v) (initial.velocity or file)

  // loads and damping
  std::vector<BeamLoad> loads;
  std::vector<BeamDistributedLoad> distributed_loads;
  double damping_angular = 0.0, damping_linear = 0.0;  ///< mass-proportional rates, 1/s

  // noise (Type-I, body frame, Stratonovich through the group increment; docs/theory/beam.md "Noise")
  std::string noise_mode = "none";  ///< "none", "common", "independent", "modes"
  std::array<double, 6> theta{};    ///< noise.theta: Theta in se(3) (angular, linear), per sqrt(s)
  std::vector<BeamNoiseMode> noise_modes;  ///< the [[noise.modes]] tables (noise.mode = "modes")
  std::uint32_t seed = 1, path = 0;
  double base_dt = 0.0;  ///< noise.base_dt (default dt); dt = 2^refine_log2 base_dt
  int refine_log2 = 0;
  bool truncate = false;

  // integrator
  std::string method = "type-i";  ///< "type-i" (type-ii arrives with the stochastic beam: refused for now)
  std::string retraction = "cayley";  ///< "cayley" or "exp"
  std::string variant = "exact";  ///< "exact" or "approx" (docs/theory/beam.md "The two variants"; approx: first order in dt)
  std::string start = "half";     ///< "half" (velocity-Verlet half kick) or "full"
  double dt = 0.0, t_end = 0.0;
  long long steps = 0;
  double newton_tol = 1e-13;
  long long newton_maxit = 30;
  bool allow_unstable = false;

  // output
  long long every = 1;
  std::vector<long long> probes;  ///< default: the middle node
  bool fields = true;
  long long fields_every = 0;  ///< default as the wave: every, raised to <= 1000 snapshots
  bool vtk = true;             ///< beam.pvd + .vtp series (at the field snapshots)
  bool fields_csv = false;
  bool plots = true;
  bool per_path = false;  ///< ensembles: also write series_path<k>.csv
  bool animation = false;  ///< motion.gif of the centre line from the fields.h5 snapshots

  std::vector<std::string> given_keys;

  [[nodiscard]] long long n_nodes() const;  ///< J + 1 (vertex) or J (cell, or periodic)
  [[nodiscard]] long long n_segments() const;  ///< J (vertex, periodic) or J - 1 (cell)
  [[nodiscard]] double ds() const { return length / static_cast<double>(J); }
  [[nodiscard]] double s_of(long long j) const;  ///< vertex or periodic j ds, cell (j + 1/2) ds
  [[nodiscard]] double weight_of(long long j) const;  ///< the node's mass weight w_j (field::Grid::weight)
  [[nodiscard]] double time_at(long long k) const { return k == steps ? t_end : static_cast<double>(k) * dt; }
  [[nodiscard]] bool given(const std::string& key) const;
};

/// The beam schema (sections model, grid, bc, initial, loads, integrator, noise, output), in documentation
/// order; the `loads.*` entries are the keys of each `[[loads]]` table, the `noise.modes.*` entries those of
/// each `[[noise.modes]]` table.
[[nodiscard]] const std::vector<SchemaEntry>& beam_schema();
/// Load / parse a beam scenario (model.type must be "beam"); throws lievi::invalid_argument with every issue.
/// A relative initial.file is relative to the scenario file's folder (`load_*`) or the current directory.
[[nodiscard]] BeamScenario load_beam_scenario(const std::filesystem::path& path,
                                              const std::vector<std::string>& overrides = {});
[[nodiscard]] BeamScenario parse_beam_scenario(const std::string& toml_text, const std::string& file_label,
                                               const std::string& name,
                                               const std::vector<std::string>& overrides = {});
/// The resolved keys in schema order (validate, summary.json): every key that applies (default when not
/// given) and every key given; each load as `loads[i].node`, `loads[i].frame`, ... (times / factors only when
/// it has a table); each noise mode as `noise.modes[i].theta`, then `profile` (and `wavenumber`) or `values`.
[[nodiscard]] std::vector<ResolvedEntry> resolved_entries(const BeamScenario& s);
/// The resolved scenario as TOML (loadable again: the same resolved entries); the derived section constants
/// and K, P diagonals in the header comments, the loads as `[[loads]]` tables.
[[nodiscard]] std::string to_toml(const BeamScenario& s);
/// Keys given but not used (material keys with section "matrix", keys of another section or shape), one note
/// each.
[[nodiscard]] std::vector<std::string> ignored_key_notes(const BeamScenario& s);

}  // namespace lievi::io
