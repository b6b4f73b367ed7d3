#pragma once
/// @file lievi/models/wave.hpp
/// @brief The (vector) wave equation as a field theory on the abelian group G = R^N (docs/theory/beam.md
/// "The wave equation as the abelian case"): configuration phi in R^N, velocity zeta = phi_t, strain
/// gamma = phi_s, Lagrangian density ℓ = ½ ρ |zeta|² − ½ κ |gamma|² per unit length, wave speed c = sqrt(κ /
/// ρ).
///
/// All ad terms vanish and tau is the identity on R^N, so the exact and the approximate variants of the
/// integrators coincide (docs/theory/staggered.md "One step"): the Type-I scheme is the staggered leapfrog /
/// 1-D Yee scheme. N = 1 is the scalar wave equation of the paper (Algebra = double); N > 1 (Eigen vectors)
/// shows the field machinery is generic over the group and is used by tests.
#include <Eigen/Core>
#include <cmath>
#include <cstddef>
#include <type_traits>

namespace lievi::models {

template <int N = 1>
struct Wave {
  static_assert(N >= 1);
  /// The Lie algebra R^N (= the group: phi, zeta, gamma, A and momenta all live in it).
  using Algebra = std::conditional_t<N == 1, double, Eigen::Matrix<double, N, 1>>;
  using Config = Algebra;
  static constexpr bool is_abelian = true;
  static constexpr int dof = N;

  double rho = 1.0;    ///< mass per unit length (kinetic metric K = rho Id)
  double kappa = 1.0;  ///< stiffness (P = kappa Id); c^2 = kappa / rho

  /// Wave with unit density and speed c (the scenario's model.c).
  static Wave with_speed(double c) { return Wave{1.0, c * c}; }
  [[nodiscard]] double speed() const { return std::sqrt(kappa / rho); }

  [[nodiscard]] static Algebra zero() {
    if constexpr (N == 1) return 0.0;
    else return Algebra::Zero();
  }
  [[nodiscard]] static double dot(const Algebra& a, const Algebra& b) {
    if constexpr (N == 1) return a * b;
    else return a.dot(b);
  }
  // The node / segment index of the field-model interface is unused: the wave is uniform.
  /// mu = K zeta at node j.
  [[nodiscard]] Algebra momentum(std::ptrdiff_t, const Algebra& zeta) const { return Algebra(rho * zeta); }
  /// zeta = K^{-1} mu at node j.
  [[nodiscard]] Algebra velocity(std::ptrdiff_t, const Algebra& mu) const { return Algebra(mu / rho); }
  /// Pi = P (gamma - E) on segment e, reference strain E = 0.
  [[nodiscard]] Algebra stress(std::ptrdiff_t, const Algebra& gamma) const { return Algebra(kappa * gamma); }
  /// Kinetic energy density ½ <zeta, K zeta>.
  [[nodiscard]] double kinetic_density(std::ptrdiff_t, const Algebra& zeta) const {
    return 0.5 * rho * dot(zeta, zeta);
  }
  /// Potential energy density ½ <gamma - E, P (gamma - E)>.
  [[nodiscard]] double potential_density(std::ptrdiff_t, const Algebra& gamma) const {
    return 0.5 * kappa * dot(gamma, gamma);
  }

  // Group operations of R^N with tau = identity.
  /// g tau(A) = g + A.
  [[nodiscard]] static Config advance(const Config& g, const Algebra& A) { return Config(g + A); }
  /// tau^{-1}(g^{-1} h) = h - g.
  [[nodiscard]] static Algebra relative(const Config& g, const Config& h) { return Algebra(h - g); }
};

}  // namespace lievi::models
