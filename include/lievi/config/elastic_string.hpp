#pragma once
/// @file lievi/config/elastic_string.hpp
/// @brief The typed configuration of a geometrically nonlinear elastic string in R^3 (`model.type = "string"`):
/// nodes x_a in R^3, segment e of rest length L_e, axial stiffness EA_e and mass per rest length rho_e with the
/// stretching energy V_e = 1/2 EA_e (|x_b - x_a| - L_e)^2 / L_e (integrators/avi/models.hpp, ElasticString),
/// stepped by the asynchronous variational integrator (every segment its own step dt / 2^k) or synchronously
/// (every segment at dt: velocity Verlet, the scheme the AVI is when the steps are equal). Enumerations and
/// numbers; a scenario file is read into it (docs/scenarios.md "string"), and the member initialisers are the
/// defaults. (Named ElasticString... so as not to clash with std::string.)
#include <array>
#include <string>
#include <vector>

#include "lievi/core/error.hpp"
#include "lievi/field/grid.hpp"

namespace lievi::config {

/// integrator.method: asynchronous (per-segment steps) or synchronous (every segment at dt).
enum class StringMethod { avi, synchronous };
/// integrator.queue: the AVI's event queue (the same results, different cost).
enum class StringQueue { calendar, heap };
/// initial.shape: a transverse pluck (a triangle), a gaussian displacement, straight, or a CSV file.
enum class StringShape { pluck, gaussian, straight, file };

[[nodiscard]] const char* id(StringMethod m);
[[nodiscard]] const char* id(StringQueue q);
[[nodiscard]] const char* id(StringShape s);

/// A part of the string with its own values: the reference segments whose midpoint lies in [s_from, s_to]
/// take them (later regions win, value by value). Unset values are 0.
struct StringRegion {
  double s_from = 0.0, s_to = 0.0;
  double rho = 0.0;       ///< mass per unit rest length in the region (0: the model's)
  double EA = 0.0;        ///< axial stiffness in the region (0: the model's)
  double dt = 0.0;        ///< an explicit AVI step for the region's segments, integrator.dt / 2^k (0: by fraction)
  long long refine = 0;   ///< each of the region's segments split into `refine` equal segments (0: 1)
};

struct ElasticStringConfig {
  // model
  double rho = 1.0;         ///< mass per unit rest length (> 0)
  double EA = 1.0;          ///< axial stiffness (> 0)
  double prestretch = 0.1;  ///< the engineering strain of the straight initial configuration (>= 0)
  double tension = 0.0;     ///< when > 0: the initial tension instead (strain tension / EA_e per segment)
  bool tension_given = false;
  std::vector<StringRegion> regions;
  // grid and ends
  long long J = 64;          ///< reference segments before refinement (>= 1)
  double length = 1.0;       ///< rest length S of the whole string (> 0)
  field::End bc_left = field::End::clamped, bc_right = field::End::clamped;  ///< free or clamped
  // initial data
  StringShape shape = StringShape::pluck;
  double amplitude = 0.05;                   ///< transverse displacement of the pluck's apex / the gaussian
  double center = 0.5;                       ///< s0: apex of the pluck, centre of the gaussian (rest arc length)
  double width = 0.05;                       ///< w of the gaussian (> 0)
  std::array<double, 3> direction{0.0, 1.0, 0.0};  ///< the displacement's direction (not zero)
  std::array<double, 3> velocity{0.0, 0.0, 0.0};   ///< a uniform initial velocity added at every free node
  std::array<double, 3> omega{0.0, 0.0, 0.0};      ///< a rigid rotation about the origin: v += omega x x
  std::string file;       ///< initial.file: CSV x,y,z[,vx,vy,vz], one row per node
  std::string file_path;  ///< initial.file resolved against the scenario file's folder
  std::vector<double> x0, v0;  ///< from the file: 3 numbers per node (empty for the built-in shapes)
  // integrator
  StringMethod method = StringMethod::avi;
  double dt = 0.0, t_end = 0.0;  ///< dt: the largest step h_max; t_end = steps dt
  long long steps = 0;
  double fraction = 0.3;         ///< AVI: a segment's step is the largest dt / 2^k <= fraction x its limit
  StringQueue queue = StringQueue::calendar;
  bool allow_unstable = false;   ///< run a step beyond a segment's stability limit
  // output
  long long every = 1;            ///< a series row every `every` steps of dt
  std::vector<long long> probes;  ///< nodes with position columns (default first, middle, last)
  bool fields = true;             ///< fields.h5 (node positions and velocities)
  long long fields_every = 0;     ///< default: every, raised to <= 1000 snapshots
  bool plots = true;

  [[nodiscard]] double time_at(long long k) const { return k == steps ? t_end : static_cast<double>(k) * dt; }
};

/// The mesh a configuration describes: reference segments (after refinement) with their rest length, rho,
/// EA, the region that set their explicit step (or -1) and that step; the reference node positions s_a.
struct StringMesh {
  std::vector<double> s;              ///< reference arc length of the nodes (n_segments + 1)
  std::vector<double> L, rho, EA;     ///< per segment
  std::vector<double> region_dt;      ///< per segment: the explicit step of its region (0: none)
  std::vector<int> region;            ///< per segment: the last region containing its midpoint (-1: none)
  [[nodiscard]] long long n_segments() const { return static_cast<long long>(L.size()); }
  [[nodiscard]] long long n_nodes() const { return static_cast<long long>(s.size()); }
};

/// The segments and nodes of `c` (reference segments of length S/J, those of a region with refine = R split
/// into R; the values of the last region containing each reference segment's midpoint).
[[nodiscard]] StringMesh string_mesh(const ElasticStringConfig& c);

/// Every problem of `c`, each naming the key, the value and what is allowed. Empty when `c` is valid.
[[nodiscard]] std::vector<InputIssue> problems(const ElasticStringConfig& c);
/// Throws lievi::invalid_argument carrying every problem of `c`.
void validate(const ElasticStringConfig& c);

}  // namespace lievi::config
