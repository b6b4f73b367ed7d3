#pragma once
/// @file lievi/build/wave.hpp
/// @brief The wave builders: what a scenario file's reader derives from a configuration (config/wave.hpp),
/// for a configuration filled in C++.
#include <vector>

#include "lievi/config/wave.hpp"
#include "lievi/core/error.hpp"

namespace lievi::build {

/// phi(0, s_j) of a built-in shape at every node (A cos(k pi s/S), A sin(k pi s/S), A exp(-((s - s0)/w)^2),
/// 0) and phi_t(0, s_j) = 0. Not for shape `file` (the file gives phi0, phi_t0).
void initial_data(config::WaveConfig& c);
/// noise.cosine_modes = K: the modes Theta_k(s_j) = theta cos(k pi s_j / S), k = 0 ... K-1.
void cosine_modes(config::WaveConfig& c);
/// The mesh of the AVI (integrator.method = "avi"): the uniform grid's stored segments (vertex: J; cell: J - 1,
/// a free end's ghost segment carries no stress; periodic: J, the last closing on node 0), each taking the
/// values of the last [[regions]] table whose [s_from, s_to) holds its midpoint and split into that region's
/// `refine` equal segments. Node masses lumped from dual cells, m_a = 1/2 sum_{e ∋ a} rho_e ds_e, plus at a
/// free end of the cell layout the half cell beyond the end node (so a uniform mesh has the synchronous
/// stepper's masses rho w_j).
struct WaveMesh {
  std::vector<double> s;                     ///< node positions
  std::vector<double> ds, c, rho, dt;        ///< per segment: length, speed, density, explicit step (0: none)
  std::vector<long long> region;             ///< per segment: the [[regions]] table giving its values, -1 none
  std::vector<double> mass;                  ///< per node
  std::vector<char> fixed;                   ///< per node: 1 at a clamped end
  bool periodic = false;
  [[nodiscard]] long long n_segments() const { return static_cast<long long>(ds.size()); }
};
[[nodiscard]] WaveMesh wave_mesh(const config::WaveConfig& c);
/// node_s of a graded mesh: the node positions of wave_mesh when a region has refine > 1, else empty.
void graded_nodes(config::WaveConfig& c);

/// The AVI's per-segment steps h_e = integrator.dt / 2^k_e: a region's explicit dt (which must be dt / 2^k and,
/// unless integrator.allow_unstable, within the segment's limit ds_e / c_e), else the largest dt / 2^k <=
/// integrator.fraction x ds_e / c_e. `problems` names the key of each step that cannot be taken.
struct AviSteps {
  std::vector<double> h;      ///< per segment
  std::vector<int> level;     ///< per segment: k
  std::vector<InputIssue> problems;
};
inline constexpr int kMaxAviLevel = 30;  ///< h_e >= dt / 2^30
[[nodiscard]] AviSteps avi_steps(const config::WaveConfig& c, const WaveMesh& mesh);

/// Everything a scenario file's reader derives: the graded mesh's nodes (graded_nodes), the initial data (unless given), the cosine modes (when
/// cosine_modes > 0 and no modes are given), the default probes (first, middle, last node) and fields
/// interval (every, raised to <= 1000 snapshots). Then `config::validate(c)` passes for a valid configuration.
void complete(config::WaveConfig& c);

}  // namespace lievi::build
