#pragma once
/// @file tests/support/beam_support.hpp
/// @brief Shared set-up and measurements of the beam tests (tests/beam/): the Table-1 section, the bending
/// example's arc, the spatial momentum map, the orthogonality error, and the frequency of a sampled
/// oscillation.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <numbers>
#include <vector>

#include "lievi/field/grid.hpp"
#include "lievi/lie/se3.hpp"
#include "lievi/models/beam.hpp"

namespace lievi::test::beam {

/// S of Table 1 (docs/theory/beam.md "Examples and linear checks"): 2 pi / 3.
inline const double kTable1Length = 2.0 * std::numbers::pi / 3.0;

/// Table 1: rho 1000, square a = 0.1, nu 0.35, E (default 1e7), k_s = 1.
inline models::Section table1(double E = 1e7) { return models::Section::square(1000.0, E, 0.35, 0.1); }

/// The prestressed arc of the bending example in the y-z plane: b(s) = (0, cos(pi/6 + s), sin(pi/6 + s)), R =
/// [t | n | e_x].
inline lie::SE3 arc_pose(double s) {
  const double u = std::numbers::pi / 6 + s;
  lie::Mat3 R;
  R.col(0) = lie::Vec3(0, -std::sin(u), std::cos(u));
  R.col(1) = lie::Vec3(0, -std::cos(u), -std::sin(u));
  R.col(2) = lie::Vec3(1, 0, 0);
  return lie::SE3(R, lie::Vec3(0, std::cos(u), std::sin(u)));
}

/// A single free node as a beam model (a free rigid body on SE(3), the single node of the Stratonovich
/// check, docs/theory/staggered.md "Noise on beams"): K = diag(1, 2, 3, 1, 1, 1),
/// rho A = 1, momentum scale 1e-12 (use with a one-segment `cell` grid, J = 1).
inline models::Beam<> one_node_body() {
  models::Beam<> b;
  lie::Vec6 k;
  k << 1, 2, 3, 1, 1, 1;
  b.K_node = {k.asDiagonal()};
  b.rhoA_node = {1.0};
  b.momentum_scale = 1e-12;
  return b;
}

/// Ad*_{g^{-1}} M = (R m + p x R n, R n): a body momentum M = (m, n) at g in the spatial frame.
inline lie::Vec6 spatial(const lie::SE3& g, const lie::Vec6& M) {
  const lie::Vec3 Rm = g.rotation() * M.head<3>(), Rn = g.rotation() * M.tail<3>();
  lie::Vec6 out;
  out.head<3>() = Rm + g.translation().cross(Rn);
  out.tail<3>() = Rn;
  return out;
}

/// Spatial momentum map J = sum_j w_j Ad*_{g_j^{-1}} M~_j of a stepper's state (docs/theory/beam.md
/// "Energies and momentum map"; no loads), in node order.
template <class St>
lie::Vec6 momentum_map(const St& st) {
  lie::Vec6 J = lie::Vec6::Zero();
  for (std::ptrdiff_t j = 0; j < st.grid().n_nodes(); ++j)
    J += st.weight(j) * spatial(st.g()[field::NodeIndex{j}], st.pre_momentum()[field::NodeIndex{j}]);
  return J;
}

/// max_j |R_j^T R_j - I| (entries).
template <class St>
double orth_error(const St& st) {
  double e = 0;
  for (std::ptrdiff_t j = 0; j < st.grid().n_nodes(); ++j) {
    const lie::Mat3& R = st.g()[field::NodeIndex{j}].rotation();
    e = std::max(e, (R.transpose() * R - lie::Mat3::Identity()).cwiseAbs().maxCoeff());
  }
  return e;
}

/// Every node's R (9 entries, column-major) and p, in node order: a bitwise fingerprint of the configuration.
template <class St>
void append_poses(const St& st, std::vector<double>& out) {
  for (std::ptrdiff_t j = 0; j < st.grid().n_nodes(); ++j) {
    const lie::SE3& g = st.g()[field::NodeIndex{j}];
    out.insert(out.end(), g.rotation().data(), g.rotation().data() + 9);
    out.insert(out.end(), g.translation().data(), g.translation().data() + 3);
  }
}

/// Zero crossings of y (y[n] at t = n dt) by linear interpolation; a least-squares line through the crossing
/// times t_k = t_0 + k pi / Omega gives Omega. Expects at least `min_crossings` (>= 3) crossings.
inline double zero_crossing_frequency(const std::vector<double>& y, double dt, std::size_t min_crossings = 3) {
  std::vector<double> tc;
  for (std::size_t n = 1; n + 1 < y.size(); ++n) {
    if (y[n] == 0.0 || (y[n] > 0.0) != (y[n + 1] > 0.0)) {
      const double f = y[n] / (y[n] - y[n + 1]);
      tc.push_back((static_cast<double>(n) + f) * dt);
    }
  }
  EXPECT_GE(tc.size(), std::max<std::size_t>(min_crossings, 3));
  if (tc.size() < 3) return 0.0;
  const double m = static_cast<double>(tc.size());
  double sk = 0, st = 0, skk = 0, skt = 0;
  for (std::size_t k = 0; k < tc.size(); ++k) {
    const double kk = static_cast<double>(k);
    sk += kk, st += tc[k], skk += kk * kk, skt += kk * tc[k];
  }
  return std::numbers::pi / ((m * skt - sk * st) / (m * skk - sk * sk));
}

/// Undo the leapfrog time dispersion: Omega = (2/dt) asin(omega dt / 2)  <=>  omega = (2/dt) sin(Omega dt / 2).
inline double semi_discrete(double Omega, double dt) { return 2.0 / dt * std::sin(0.5 * Omega * dt); }

}  // namespace lievi::test::beam
