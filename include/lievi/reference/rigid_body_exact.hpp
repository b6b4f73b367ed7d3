#pragma once
/// @file lievi/reference/rigid_body_exact.hpp
/// @brief Closed-form torque-free rigid body (alpha = 0) in Jacobi elliptic functions (Landau & Lifshitz,
/// Mechanics §37; docs/theory/ddb.md "References used by the tests"), for any principal moments, in long double.
///
/// With principal moments relabelled (a, m, p) so that p is the "polar" axis — the largest moment if
/// |M|^2 > 2 E I_mid, else the smallest — and m the middle one, E = ½ sum M_i^2 / I_i, M^2 = |M|^2:
///   Omega_a = A_a cn(u, k),  Omega_m = sigma A_m sn(u, k),  Omega_p = sigma A_p dn(u, k),  u = u0 + lambda t,
///   A_a^2 = (2 E I_p - M^2) / (I_a (I_p - I_a)),  A_m^2 = (2 E I_p - M^2) / (I_m (I_p - I_m)),
///   A_p^2 = (M^2 - 2 E I_a) / (I_p (I_p - I_a)),
///   k^2 = (I_m - I_a)(2 E I_p - M^2) / ((I_p - I_m)(M^2 - 2 E I_a)),
///   |lambda| = sqrt((I_p - I_m)(M^2 - 2 E I_a) / (I_a I_m I_p)),
/// sigma = sign(Omega_p(0)) (the Euler equations are invariant under (Omega_m, Omega_p) -> -(Omega_m, Omega_p)),
/// sign(lambda) = sign(I_p - I_a) times the parity of the permutation (a, m, p) (from I_a dOmega_a/dt =
/// (I_m - I_p) Omega_m Omega_p), and u0 = F(am0, k), am0 = atan2(sigma Omega_m(0)/A_m, Omega_a(0)/A_a).
/// Two equal moments (k = 0, the symmetric top) use the trigonometric solution directly: Omega_p constant,
/// (Omega_a, Omega_m) rotating at the rate (I_p - I_e) Omega_p / I_e times the parity. The attitude is not
/// provided. Convention: dM/dt = M × Omega (docs/theory/ddb.md "Conventions").
#include <array>

#include "lievi/models/rigid_body.hpp"
#include "lievi/reference/rigid_body_taylor.hpp"

namespace lievi::reference {

/// The torque-free solution through M0 for a body with diagonal inertia.
class TorqueFreeExact {
 public:
  /// Throws lievi::invalid_argument unless the inertia is diagonal and K = 0 (alpha = 0).
  TorqueFreeExact(const models::RigidBody& model, const models::Vec3& M0);

  /// M(t) in long double.
  [[nodiscard]] Vec3L M_ld(double t) const;
  /// M(t) rounded to double.
  [[nodiscard]] models::Vec3 M(double t) const;

  /// Index of the polar axis (the one whose Omega component never changes sign).
  [[nodiscard]] int polar_axis() const { return p_; }
  /// Elliptic modulus k (0 for the symmetric top).
  [[nodiscard]] long double modulus() const { return k_; }

 private:
  enum class Kind { steady, symmetric, elliptic };
  Kind kind_ = Kind::steady;
  std::array<long double, 3> I_{};
  Vec3L M0_;
  int a_ = 0, m_ = 1, p_ = 2;
  long double A_a_ = 0, A_m_ = 0, A_p_ = 0, k_ = 0, lambda_ = 0, u0_ = 0, sigma_ = 1;
};

}  // namespace lievi::reference
