#pragma once
/// @file tests/kirchhoff/kirchhoff_support.hpp
/// @brief The Kirchhoff test body and the continuous double-bracket Kirchhoff equations written out in cross
/// products (independent of models::QuadraticLiePoisson), with a classical RK4 for references.
#include <cmath>

#include "lievi/lie/se3.hpp"
#include "lievi/models/kirchhoff.hpp"

namespace lievi::test {

/// The test body: J = I + I_added = (1.1, 1.6, 0.8), D = m + m_added = (1.2, 1.8, 2.5), alpha = 0.5 on both
/// blocks (unless given), mu_0 = (Pi, P) = ((0.3, 0.1, 0.8), (0.5, 0.4, 0.2)).
inline models::Kirchhoff kirchhoff_body(double alpha = 0.5) {
  models::Kirchhoff k;
  k.inertia = lie::Vec3(1.0, 1.4, 0.5);
  k.added_inertia = lie::Vec3(0.1, 0.2, 0.3);
  k.mass = 1.0;
  k.added_mass = lie::Vec3(0.2, 0.8, 1.5);
  k.alpha_rot = alpha;
  k.alpha_trans = alpha;
  return k;
}
inline lie::Vec6 kirchhoff_mu0() {
  lie::Vec6 mu;
  mu << 0.3, 0.1, 0.8, 0.5, 0.4, 0.2;
  return mu;
}

/// Kirchhoff's equations with double-bracket dissipation, written out: (Omega, V) = A^{-1} (Pi, P),
///   s = (Pi × Omega + P × V, P × Omega),   (a, u) = K s,
///   dPi/dt = Pi × (Omega + a) + P × (V + u),   dP/dt = P × (Omega + a).
inline lie::Vec6 kirchhoff_field(const lie::Mat6& A_inv, const lie::Mat6& K, const lie::Vec6& mu) {
  const lie::Vec6 xi = A_inv * mu;
  const lie::Vec3 Pi = mu.head<3>(), P = mu.tail<3>(), Om = xi.head<3>(), V = xi.tail<3>();
  lie::Vec6 s;
  s << Pi.cross(Om) + P.cross(V), P.cross(Om);
  const lie::Vec6 ku = K * s;
  const lie::Vec3 a = ku.head<3>(), u = ku.tail<3>();
  lie::Vec6 f;
  f << Pi.cross(Om + a) + P.cross(V + u), P.cross(Om + a);
  return f;
}

/// Classical RK4 on the field above from mu over time T with n steps.
inline lie::Vec6 kirchhoff_rk4(const lie::Mat6& A_inv, const lie::Mat6& K, lie::Vec6 mu, double T, int n) {
  const double h = T / n;
  for (int k = 0; k < n; ++k) {
    const lie::Vec6 k1 = kirchhoff_field(A_inv, K, mu);
    const lie::Vec6 k2 = kirchhoff_field(A_inv, K, mu + 0.5 * h * k1);
    const lie::Vec6 k3 = kirchhoff_field(A_inv, K, mu + 0.5 * h * k2);
    const lie::Vec6 k4 = kirchhoff_field(A_inv, K, mu + h * k3);
    mu += (h / 6.0) * (k1 + 2.0 * k2 + 2.0 * k3 + k4);
  }
  return mu;
}

}  // namespace lievi::test
