#pragma once
/// @file lievi/integrators/avi/mesh.hpp
/// @brief The 1-D mesh of an asynchronous variational integrator (docs/theory/avi.md "Mesh"): nodes a with
/// lumped masses m_a, segments e joining nodes e and e + 1 (the last one closing on node 0 when periodic),
/// each segment with its own time step h_e; and the ways of choosing those steps.
///
/// Ends (lievi::field::End): `free` (the end node has only its one segment), `clamped` (the end node is held
/// fixed: infinite mass, no impulse), `periodic` (both ends). Masses are per node; `dual_cells` lumps
/// m_a = ½ Σ_{e ∋ a} ρ_e Δs_e (the vertex layout of lievi's field grid, generalised to a graded mesh), and
/// `from_grid` reproduces the masses ρ w_j of a field::Grid (cell, vertex or periodic layout) so that the AVI
/// runs on exactly the mesh of lievi's synchronous staggered stepper.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <stdexcept>
#include <vector>

#include "lievi/field/grid.hpp"

namespace lievi::integrators::avi {

using field::End;

/// Nodes (masses, fixed flags) and the segment connectivity of a chain.
struct Mesh {
  std::vector<double> m;    ///< lumped node masses m_a (> 0; ignored at fixed nodes)
  std::vector<char> fixed;  ///< 1 where the node is held fixed (a clamped end)
  bool periodic = false;    ///< segment n_nodes - 1 joins the last node to node 0

  [[nodiscard]] std::ptrdiff_t n_nodes() const { return static_cast<std::ptrdiff_t>(m.size()); }
  [[nodiscard]] std::ptrdiff_t n_segments() const { return periodic ? n_nodes() : n_nodes() - 1; }
  /// First and second node of segment e: a = e, b = e + 1 (mod n_nodes when periodic).
  [[nodiscard]] std::ptrdiff_t first(std::ptrdiff_t e) const { return e; }
  [[nodiscard]] std::ptrdiff_t second(std::ptrdiff_t e) const { return e + 1 == n_nodes() ? 0 : e + 1; }

  /// Masses from dual cells on a graded mesh: m_a = ½ Σ_{e ∋ a} rho_ds[e], rho_ds[e] = ρ_e Δs_e the mass of
  /// segment e; ends `free` or `clamped` (both `periodic` for a ring, rho_ds then has n_nodes entries).
  static Mesh dual_cells(const std::vector<double>& rho_ds, End left, End right) {
    const bool per = left == End::periodic;
    if ((right == End::periodic) != per)
      throw std::invalid_argument("avi::Mesh: periodic must be given for both ends");
    if (left == End::prescribed || right == End::prescribed)
      throw std::invalid_argument("avi::Mesh: prescribed ends are not supported");
    const std::ptrdiff_t ns = static_cast<std::ptrdiff_t>(rho_ds.size());
    if (ns < (per ? 2 : 1)) throw std::invalid_argument("avi::Mesh: too few segments");
    Mesh mesh;
    mesh.periodic = per;
    const std::ptrdiff_t nn = per ? ns : ns + 1;
    mesh.m.assign(static_cast<std::size_t>(nn), 0.0);
    mesh.fixed.assign(static_cast<std::size_t>(nn), 0);
    for (std::ptrdiff_t e = 0; e < ns; ++e) {
      if (!(rho_ds[static_cast<std::size_t>(e)] > 0.0))
        throw std::invalid_argument("avi::Mesh: segment masses must be > 0");
      mesh.m[static_cast<std::size_t>(mesh.first(e))] += 0.5 * rho_ds[static_cast<std::size_t>(e)];
      mesh.m[static_cast<std::size_t>(mesh.second(e))] += 0.5 * rho_ds[static_cast<std::size_t>(e)];
    }
    if (left == End::clamped) mesh.fixed.front() = 1;
    if (right == End::clamped) mesh.fixed.back() = 1;
    return mesh;
  }

  /// The nodes of a field::Grid with density rho: m_j = rho w_j, clamped end nodes fixed. The segments are
  /// the grid's stored ones (a free cell-layout end's ghost segment carries no stress and is left out).
  static Mesh from_grid(const field::Grid& grid, double rho) {
    if (grid.left() == End::prescribed || grid.right() == End::prescribed)
      throw std::invalid_argument("avi::Mesh: prescribed ends are not supported");
    Mesh mesh;
    mesh.periodic = grid.periodic();
    const std::ptrdiff_t n = grid.n_nodes();
    for (std::ptrdiff_t j = 0; j < n; ++j) {
      mesh.m.push_back(rho * grid.weight(field::NodeIndex{j}));
      mesh.fixed.push_back(grid.clamped(field::NodeIndex{j}) ? 1 : 0);
    }
    return mesh;
  }
};

/// The largest step h_max 2^{-k} (k >= 0) not above h (h <= h_max): snapping steps to a dyadic ladder makes
/// the events of different segments fall on common times, and the integrator then counts time in exact ticks.
[[nodiscard]] inline double snap_dyadic(double h, double h_max) {
  if (!(h > 0.0) || !(h_max > 0.0)) throw std::invalid_argument("avi::snap_dyadic: steps must be > 0");
  double s = h_max;
  while (s > h) s *= 0.5;
  return s;
}

/// Per-segment steps h_e = fraction * limit_e (limit_e the segment's own stability limit,
/// model.step_limit(e)); with `dyadic`, snapped down to h_max 2^{-k}, h_max = fraction * max_e limit_e (or
/// the given h_max > 0).
template <class Model>
[[nodiscard]] std::vector<double> stable_steps(const Model& model, std::ptrdiff_t n_segments, double fraction,
                                               bool dyadic, double h_max = 0.0) {
  if (!(fraction > 0.0)) throw std::invalid_argument("avi::stable_steps: the fraction must be > 0");
  std::vector<double> h(static_cast<std::size_t>(n_segments));
  double top = 0.0;
  for (std::ptrdiff_t e = 0; e < n_segments; ++e) {
    h[static_cast<std::size_t>(e)] = fraction * model.step_limit(e);
    top = std::max(top, h[static_cast<std::size_t>(e)]);
  }
  if (dyadic) {
    const double hm = h_max > 0.0 ? h_max : top;
    for (double& he : h) he = snap_dyadic(he, hm);
  }
  return h;
}

/// A region of segments [begin, end) with one step (a per-region step table).
struct StepRegion {
  std::ptrdiff_t begin = 0, end = 0;
  double h = 0.0;
};

/// Per-segment steps from a region table: h_fill everywhere, then each region's step over its segments (later
/// regions win where they overlap).
[[nodiscard]] inline std::vector<double> region_steps(std::ptrdiff_t n_segments, double h_fill,
                                                      const std::vector<StepRegion>& regions) {
  std::vector<double> h(static_cast<std::size_t>(n_segments), h_fill);
  for (const StepRegion& r : regions) {
    if (r.begin < 0 || r.end > n_segments || r.begin > r.end)
      throw std::invalid_argument("avi::region_steps: a region outside the segments");
    for (std::ptrdiff_t e = r.begin; e < r.end; ++e) h[static_cast<std::size_t>(e)] = r.h;
  }
  return h;
}

/// Whether every step is h_max 2^{-k} for one h_max (the largest step); then k_max is the finest level.
[[nodiscard]] inline bool is_dyadic(const std::vector<double>& h, int* k_max = nullptr) {
  if (h.empty()) return false;
  const double hm = *std::max_element(h.begin(), h.end());
  int kmax = 0;
  for (double he : h) {
    int k = 0;
    double s = hm;
    while (s > he && k < 62) {
      s *= 0.5;
      ++k;
    }
    if (s != he) return false;
    kmax = std::max(kmax, k);
  }
  if (k_max) *k_max = kmax;
  return true;
}

}  // namespace lievi::integrators::avi
