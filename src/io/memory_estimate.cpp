/// @file src/io/memory_estimate.cpp
/// @brief The memory a run needs (io/memory_estimate.hpp) and its check against MemAvailable.
#include "lievi/io/memory_estimate.hpp"

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "lievi/core/error.hpp"

namespace lievi::io {
namespace {

// Bytes per node of a beam run (Mat6 = 288 B, Vec6 = 48 B, an SE(3) pose ~128 B):
//  - the resolved scenario: initial pose and velocity, per-segment K and P (680);
//  - the model: K per node, P per segment, reference strain, rho A, damping D per node, batch tables (~1000);
//  - the stepper: g, zeta, the increments, gamma, the weights, pre-momenta, segment forces, workspaces (~500);
//  - the run: initial fields, one snapshot (R, p, zeta, gamma), the VTK director arrays, positions (~450).
constexpr double kBeamScenarioPerNode = 700.0;
constexpr double kBeamRunPerNode = 2000.0;  ///< model + stepper + run buffers, per running path (a run at J = 2e5 peaked at 2.6 kB per node)
constexpr double kBeamPerModeNode = 160.0;      ///< a noise mode: Theta_k(s_j) in the scenario, the run, the noise field
// Bytes per node of a wave run: phi and phi_t of the scenario (16); the stepper's fields and workspaces and
// one level's buffers (~16 doubles; a run at J = 2e6 peaked at 156 B per node); a noise mode is one double per node in the scenario and twice in the run.
constexpr double kWaveScenarioPerNode = 16.0;
constexpr double kWaveRunPerNode = 144.0;
constexpr double kWavePerModeNode = 24.0;
constexpr double kRowOverhead = 40.0;  ///< a std::vector row: its header and the allocator's rounding

/// Paths that run at once in an ensemble (one per OpenMP thread, at most `paths`).
double concurrent(long long paths) {
  return static_cast<double>(std::max(1LL, std::min<long long>(paths, std::max(1, omp_get_max_threads()))));
}

/// Series rows of a run: t = 0, every `every` steps, and t_end.
double rows_of(long long steps, long long every) {
  return static_cast<double>(steps) / static_cast<double>(std::max(1LL, every)) + 2.0;
}

std::string bytes_text(double b) {
  const char* units[] = {"B", "kB", "MB", "GB", "TB", "PB", "EB"};
  int u = 0;
  while (b >= 1000.0 && u < 6) b /= 1000.0, ++u;
  char buf[64];
  std::snprintf(buf, sizeof buf, b < 10.0 && u > 0 ? "%.1f %s" : "%.0f %s", b, units[u]);
  return buf;
}

std::string count_text(double x) {
  char buf[64];
  std::snprintf(buf, sizeof buf, x < 1e15 ? "%.0f" : "%.3g", x);
  return buf;
}

template <class S>
std::string file_of(const S& s) {
  return s.source.empty() ? s.name : s.source;
}

}  // namespace

namespace {
/// Quantiles across the paths read every path's series at the end (series_paths.npy): paths x rows x columns.
void add_quantiles(MemoryEstimate& e, std::size_t quantiles, long long paths, double rows, double cols) {
  if (quantiles == 0) return;
  const double all = static_cast<double>(paths) * rows * cols * 8.0;
  e.bytes += all;
  e.what += " + every path's series for output.quantiles (" + bytes_text(all) + ")";
  if (all > 0.5 * e.bytes) e.key = "output.quantiles";
}
}  // namespace

MemoryEstimate estimate_memory(const config::BeamConfig& s, long long paths) {
  const double nodes = static_cast<double>(s.n_nodes()), modes = static_cast<double>(s.noise_modes.size());
  const double T = paths > 1 ? concurrent(paths) : 1.0;
  const double per_node = kBeamScenarioPerNode + T * kBeamRunPerNode + (1.0 + T) * modes * kBeamPerModeNode;
  MemoryEstimate e;
  e.bytes = nodes * per_node;
  e.key = modes * kBeamPerModeNode > kBeamScenarioPerNode + kBeamRunPerNode ? "noise.modes" : "grid.J";
  e.what = count_text(nodes) + " nodes x " + bytes_text(per_node) + " (state, workspaces, scenario arrays" +
           (modes > 0 ? ", " + count_text(modes) + " noise modes" : std::string()) +
           (T > 1 ? ", " + count_text(T) + " paths at once" : std::string()) + ")";
  if (paths > 1) {  // mean and variance of every series cell, and the series of the paths running at once
    const double cols = 20.0 + 3.0 * static_cast<double>(s.probes.size()), rows = rows_of(s.steps, s.every);
    const double stats = rows * ((2.0 + T) * 8.0 * cols + T * kRowOverhead);
    e.bytes += stats;
    e.what += " + series statistics " + count_text(rows) + " rows x " + count_text(cols) + " columns";
    if (stats > nodes * per_node) e.key = "output.every";
    add_quantiles(e, s.quantiles.size(), paths, rows, cols);
  }
  return e;
}

MemoryEstimate estimate_memory(const config::WaveConfig& s, long long paths) {
  // (the cosine modes are counted before they are built)
  const double nodes = static_cast<double>(s.n_nodes()),
               modes = static_cast<double>(std::max<long long>(static_cast<long long>(s.modes.size()), s.cosine_modes));
  const double T = paths > 1 ? concurrent(paths) : 1.0;
  const double per_node = kWaveScenarioPerNode + T * kWaveRunPerNode + (1.0 + T) * modes * kWavePerModeNode;
  MemoryEstimate e;
  e.bytes = nodes * per_node;
  e.key = modes * kWavePerModeNode > kWaveScenarioPerNode + kWaveRunPerNode
              ? (s.cosine_modes > 0 ? "noise.cosine_modes" : "noise.modes")
              : "grid.J";
  e.what = count_text(nodes) + " nodes x " + bytes_text(per_node) + " (state, workspaces, scenario arrays" +
           (modes > 0 ? ", " + count_text(modes) + " noise modes" : std::string()) +
           (T > 1 ? ", " + count_text(T) + " paths at once" : std::string()) + ")";
  if (paths > 1) {  // the rows of the paths running at once, and the mean and variance of every cell
    const double cols = 3.0 + static_cast<double>(s.probes.size()), rows = rows_of(s.steps, s.every);
    const double series = rows * ((T + 2.0) * 8.0 * cols + T * kRowOverhead);
    e.bytes += series;
    e.what += " + series of the running paths and statistics " + count_text(rows) + " rows x " +
              count_text(cols) + " columns";
    if (series > nodes * per_node) e.key = "output.every";
    add_quantiles(e, s.quantiles.size(), paths, rows, cols);
  }
  return e;
}

MemoryEstimate estimate_memory(const AnyScenario& s, long long paths) {
  if (const auto* b = std::get_if<BeamScenario>(&s)) return estimate_memory(*b, paths);
  if (const auto* w = std::get_if<WaveScenario>(&s)) return estimate_memory(*w, paths);
  return {};  // the rigid body and the lagrangian systems: a few vectors, series streamed to disk
}

std::optional<double> available_memory() {
  if (const char* v = std::getenv("LIEVI_MEMORY_AVAILABLE")) {
    char* end = nullptr;
    const double x = std::strtod(v, &end);
    if (end != v && *end == '\0' && x >= 0.0) return x;
  }
  std::ifstream in("/proc/meminfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("MemAvailable:", 0) != 0) continue;
    std::istringstream ss(line.substr(13));
    double kb = 0.0;
    std::string unit;
    if (ss >> kb >> unit && unit == "kB") return kb * 1024.0;
    return std::nullopt;
  }
  return std::nullopt;
}

std::optional<std::string> memory_problem(const MemoryEstimate& e, double available) {
  if (!(e.bytes > available)) return std::nullopt;
  return "the run needs about " + bytes_text(e.bytes) + " of memory (" + e.what + "); this machine has " +
         bytes_text(available) + " available (MemAvailable); use a smaller " + e.key;
}

void check_memory(const AnyScenario& s, long long paths) {
  const auto available = available_memory();
  if (!available) return;
  const MemoryEstimate e = estimate_memory(s, paths);
  const auto problem = memory_problem(e, *available);
  if (!problem) return;
  const std::string file = std::visit([](const auto& x) { return file_of(x); }, s);
  throw invalid_argument(e.key == "--paths" ? "--paths" : file, e.key, *problem);
}

}  // namespace lievi::io
