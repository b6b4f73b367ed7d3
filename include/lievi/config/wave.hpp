#pragma once
/// @file lievi/config/wave.hpp
/// @brief The typed configuration of a (stochastic) wave run, ℓ = ½(φ_t² − c²φ_s²) per unit length on
/// s ∈ [0, S]: grid, ends, initial data, method, noise and output as enumerations and numbers. A scenario
/// file (`model.type = "wave"`) is read into it; the keys, defaults and allowed values are those of
/// docs/scenarios.md ("wave"), and the member initialisers are the defaults.
#include <cstdint>
#include <string>
#include <vector>

#include "lievi/core/error.hpp"
#include "lievi/field/grid.hpp"
#include "lievi/field/noise_field.hpp"
#include "lievi/field/options.hpp"

namespace lievi::config {

/// initial.shape: A cos(kπs/S), A sin(kπs/S), A exp(−((s − s0)/w)²), 0, or a CSV file.
enum class WaveShape { cosine, sine, gaussian, zero, file };
/// integrator.method of the field models: stochastic kinematics (type-i), stochastic potential (type-ii), or
/// (wave only) the asynchronous variational integrator (avi: deterministic, per-segment steps dt / 2^k).
enum class FieldMethod { type_i, type_ii, avi };
/// integrator.queue of the AVI: the calendar by dyadic level (O(1) per update) or the binary heap.
enum class AviQueue { calendar, heap };

/// One [[regions]] table of a wave scenario: the segments whose midpoint lies in [s_from, s_to) take its
/// values (later tables win). 0 means "not given": the model's c, density 1, the fraction's step.
struct WaveRegion {
  double s_from = 0.0, s_to = 0.0;
  double c = 0.0;         ///< wave speed in the region (a stepped section)
  double rho = 0.0;       ///< mass per length in the region (the model's is 1; kappa = rho c^2)
  long long refine = 1;   ///< each base segment of the region split into `refine` equal segments
  double dt = 0.0;        ///< explicit AVI step of the region's segments, integrator.dt / 2^k
};

[[nodiscard]] const char* id(WaveShape s);
[[nodiscard]] const char* id(FieldMethod m);
[[nodiscard]] const char* id(AviQueue q);
[[nodiscard]] const char* id(field::Layout l);
[[nodiscard]] const char* id(field::End e);
[[nodiscard]] const char* id(field::Variant v);
[[nodiscard]] const char* id(field::Start s);
[[nodiscard]] const char* id(field::NoiseMode m);

struct WaveConfig {
  // model
  double c = 1.0;  ///< wave speed (> 0)

  // regions (AVI only): stepped sections, graded meshes, per-region steps
  std::vector<WaveRegion> regions;
  /// Node positions of a graded mesh (regions with refine > 1; build::graded_nodes), empty for the uniform
  /// grid; then n_nodes() and s_of() are this mesh's.
  std::vector<double> node_s;

  // grid and ends
  long long J = 100;                          ///< cells (cell) / segments (vertex, periodic), >= 2
  field::Layout layout = field::Layout::cell;
  double length = 1.0;                        ///< S (> 0)
  field::End bc_left = field::End::free, bc_right = field::End::free;  ///< free, clamped (vertex), periodic (both)

  // initial data
  WaveShape shape = WaveShape::cosine;
  double amplitude = 1.0;
  long long wavenumber = 1;    ///< k of cosine and sine
  double center = 0.3;         ///< s0 of the gaussian
  double width = 0.05;         ///< w of the gaussian (> 0)
  std::string file;            ///< initial.file: CSV with columns s,phi[,phi_t] at the node positions
  std::string file_path;       ///< initial.file resolved against the scenario file's folder (what was read)
  std::vector<double> phi0;    ///< initial phi at the nodes (filled for every shape)
  std::vector<double> phi_t0;  ///< initial phi_t at the nodes (zero unless the file gives it)

  // integrator
  FieldMethod method = FieldMethod::type_i;
  field::Variant variant = field::Variant::exact;  ///< exact or approx (they coincide on G = R)
  field::Start start = field::Start::half;         ///< half (velocity-Verlet half kick) or full
  double dt = 0.0, t_end = 0.0;                    ///< t_end = steps dt within 1e-9 relative
  long long steps = 0;
  bool allow_unstable = false;  ///< skip the CFL refusal
  double fraction = 0.3;        ///< AVI: segment step = largest dt / 2^k <= fraction x its own limit ds_e / c_e
  AviQueue queue = AviQueue::calendar;

  // noise
  field::NoiseMode noise_mode = field::NoiseMode::none;
  double theta = 0.0;                      ///< amplitude (common, independent; cosine_modes)
  std::vector<std::vector<double>> modes;  ///< Theta_k(s_j), one array per mode, one value per node
  long long cosine_modes = 0;              ///< K: Theta_k(s) = theta cos(k pi s/S), k < K
  std::uint32_t seed = 1;                  ///< Philox key, first word
  std::uint32_t path = 0;                  ///< Philox key, second word
  double base_dt = 0.0;                    ///< finest noise step (default dt); dt = 2^refine_log2 base_dt
  int refine_log2 = 0;
  bool truncate = false;  ///< truncated increments (Milstein-Repin-Tretyakov, k = 2)

  // output
  long long every = 1;
  std::vector<long long> probes;  ///< nodes with a phi column (default first, middle, last)
  bool fields = true;             ///< fields.h5
  long long fields_every = 0;     ///< default: every, raised to <= 1000 snapshots
  bool fields_csv = false;        ///< final_fields.csv
  bool per_path = false;          ///< per-path series in ensembles
  std::vector<double> quantiles;  ///< ensembles: series_q<q>.csv for each q in [0, 1]
  bool plots = true;
  long long checkpoint_every = 0;  ///< checkpoint.h5 every so many steps (0: not by steps; single runs)
  double checkpoint_wall = 0.0;    ///< checkpoint.h5 after so many seconds of wall time (0: not by time)
  [[nodiscard]] bool checkpoints() const { return checkpoint_every > 0 || checkpoint_wall > 0.0; }

  [[nodiscard]] bool periodic() const { return bc_left == field::End::periodic; }
  [[nodiscard]] bool avi() const { return method == FieldMethod::avi; }
  /// J (cell, periodic) or J + 1 (vertex, not periodic); on a graded mesh node_s.size()
  [[nodiscard]] long long n_nodes() const;
  [[nodiscard]] long long n_base_nodes() const;  ///< the uniform grid's node count (before refinement)
  [[nodiscard]] double ds() const { return length / static_cast<double>(J); }
  [[nodiscard]] double s_of(long long j) const;       ///< node position s_j (of the graded mesh if any)
  [[nodiscard]] double base_s_of(long long j) const;  ///< position of the uniform grid's node j
  [[nodiscard]] double time_at(long long k) const { return k == steps ? t_end : static_cast<double>(k) * dt; }
};

/// Every problem of `c`, each naming the key (or the member: phi0, phi_t0), the value and what is allowed: the
/// checks of the scenario keys, the ends, the time grid, the per-node arrays and noise modes against the grid.
/// Empty when `c` is valid.
[[nodiscard]] std::vector<InputIssue> problems(const WaveConfig& c);
/// Throws lievi::invalid_argument carrying every problem of `c`.
void validate(const WaveConfig& c);

}  // namespace lievi::config
