#pragma once
/// @file lievi/build/beam.hpp
/// @brief The beam builders: from a configuration (config/beam.hpp) to what the integrator steps — the
/// derived data a scenario file's reader fills (section constants, K and P, per-segment values of the regions,
/// the initial poses of a straight or arc beam, the noise modes at the nodes), the grid, the model with its
/// lumped point and distributed loads and prescribed end motion, and the noise field. The CLI runs through
/// these, so anything a scenario file can describe a C++ program can build from the installed package.
#include "lievi/config/beam.hpp"
#include "lievi/field/grid.hpp"
#include "lievi/field/noise_field.hpp"
#include "lievi/lie/retraction/cayley.hpp"
#include "lievi/lie/retraction/exp.hpp"
#include "lievi/lie/se3.hpp"
#include "lievi/models/beam.hpp"

namespace lievi::build {

/// A, J1, J2, J3 from the section's own constants (square: a, circle: r; general as given), G = E/(2(1+nu))
/// unless G_given, then K = diag(rho J1, rho J2, rho J3, rho A, rho A, rho A) and
/// P = diag(G J1, E J2, E J3, E A, k_s G A, k_s G A). A matrix section keeps its K and P.
void section_matrices(config::BeamConfig& c);
/// K and P of every segment: the base section's, or, where regions cover the segment's midpoint, the base
/// values with the regions' constants (later regions win; G follows E and nu unless the last region setting
/// nu or G set G). Empty regions (or a matrix section): every segment has the base K and P.
void segment_matrices(config::BeamConfig& c);
/// The poses and velocities of a straight beam (direction and normal unit and orthogonal) or of the arc, at
/// every node; a periodic straight beam's shift is grid.length * direction. Not for shape `file`.
void initial_poses(config::BeamConfig& c);
/// Theta_k(s_j) = f_k(s_j) theta of one mode at every node; `largest_f`, when given, receives max_j |f_k(s_j)|.
[[nodiscard]] std::vector<config::Wrench> mode_at_nodes(const config::BeamConfig& c, const config::BeamNoiseMode& m,
                                                        double* largest_f = nullptr);
/// Theta_k(s_j) at every node for each noise mode (mode_at_nodes).
void mode_profiles(config::BeamConfig& c);
/// Everything a scenario file's reader derives, for a configuration filled in C++: section_matrices,
/// segment_matrices, the initial poses (unless given), the mode profiles, the default probes (the middle node)
/// and fields interval (every, raised to <= 1000 snapshots). Then `config::validate(c)` passes for a valid
/// configuration.
void complete(config::BeamConfig& c);

/// The grid of the configuration.
[[nodiscard]] field::Grid grid(const config::BeamConfig& c);
/// The pose of a prescribed end at time t: positions linear, rotations geodesic (slerp) between the rows of
/// the table; the last pose after it.
[[nodiscard]] lie::SE3 pose_at(const config::PoseTable& table, double t);
/// The beam model: per-node inertia and per-segment stiffness and reference strain, gravity, damping, the
/// periodic closure, the prescribed end motion, and one lumped wrench table per node (point loads at their
/// node; a distributed load's density times the length of the node's cell inside its range).
template <class Ret>
[[nodiscard]] models::Beam<Ret> model(const config::BeamConfig& c, const field::Grid& grid);
/// The noise field of the configuration's mode, amplitude, modes and stream (noise.seed, noise.path).
[[nodiscard]] field::NoiseField<lie::Vec6> noise_field(const config::BeamConfig& c, const field::Grid& grid);

extern template models::Beam<lie::Cayley<lie::SE3>> model(const config::BeamConfig&, const field::Grid&);
extern template models::Beam<lie::Exp<lie::SE3>> model(const config::BeamConfig&, const field::Grid&);

}  // namespace lievi::build
