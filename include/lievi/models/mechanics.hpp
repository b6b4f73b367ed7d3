#pragma once
/// @file lievi/models/mechanics.hpp
/// @brief The catalogue of Lagrangian systems runnable from the CLI (`model.type = "lagrangian"`), as user
/// models of the discrete mechanics toolkit (integrators/del): pendulum, double pendulum, Kepler problem,
/// spherical pendulum (holonomically constrained, a del::ConstrainedModel) and the damped, forced oscillator.
///
/// Every Lagrangian is written generically in the scalar S, so the toolkit differentiates it with nested duals
/// (no hand-written derivatives). Systems with a continuous symmetry give its infinitesimal generator
/// `xi_Q(q)`; the conserved (discrete Noether) momentum map is then J = <p, xi_Q(q)> (del::momentum_map).
/// Units: SI (kg, m, s, rad).
#include <Eigen/Core>
#include <cmath>

#include "lievi/integrators/del/dual.hpp"
#include "lievi/integrators/del/lagrangian.hpp"

namespace lievi::models::mechanics {

template <class S, int n>
using VecS = Eigen::Matrix<S, n, 1>;

/// Planar pendulum, q = angle from the downward vertical: L = 1/2 m l^2 qdot^2 + m g l cos q.
/// Energy E = 1/2 m l^2 qdot^2 - m g l cos q. Period from rest at q0: 4 K(sin(q0/2)) sqrt(l/g).
struct Pendulum {
  static constexpr int dim = 1;
  double m = 1.0, l = 1.0, g = 9.81;
  template <class S>
  S L(const VecS<S, 1>& q, const VecS<S, 1>& v) const {
    using std::cos;
    return (0.5 * m * l * l) * v(0) * v(0) + (m * g * l) * cos(q(0));
  }
};

/// Double pendulum, q = (theta1, theta2), both from the downward vertical, point masses m1, m2 on massless rods
/// l1, l2: L = 1/2 (m1 + m2) l1^2 th1'^2 + 1/2 m2 l2^2 th2'^2 + m2 l1 l2 th1' th2' cos(th1 - th2)
///           + (m1 + m2) g l1 cos th1 + m2 g l2 cos th2.
struct DoublePendulum {
  static constexpr int dim = 2;
  double m1 = 1.0, m2 = 1.0, l1 = 1.0, l2 = 1.0, g = 9.81;
  template <class S>
  S L(const VecS<S, 2>& q, const VecS<S, 2>& v) const {
    using std::cos;
    const S T = (0.5 * (m1 + m2) * l1 * l1) * v(0) * v(0) + (0.5 * m2 * l2 * l2) * v(1) * v(1) +
                (m2 * l1 * l2) * v(0) * v(1) * cos(q(0) - q(1));
    return T + ((m1 + m2) * g * l1) * cos(q(0)) + (m2 * g * l2) * cos(q(1));
  }
};

/// Kepler problem in the plane, q in R^2: L = 1/2 m |qdot|^2 + m mu / |q|. Rotation symmetry: xi_Q(q) =
/// (-q2, q1), momentum map the angular momentum J = q1 p2 - q2 p1.
struct Kepler {
  static constexpr int dim = 2;
  double m = 1.0, mu = 1.0;
  template <class S>
  S L(const VecS<S, 2>& q, const VecS<S, 2>& v) const {
    using std::sqrt;
    return (0.5 * m) * v.squaredNorm() + (m * mu) / sqrt(q.squaredNorm());
  }
  [[nodiscard]] Eigen::Vector2d xi_Q(const Eigen::Vector2d& q) const { return {-q(1), q(0)}; }
};

/// Spherical pendulum in Cartesian coordinates q in R^3 (z up, the bob hangs at q = (0, 0, -l)):
/// L = 1/2 m |qdot|^2 - m g q3 with the holonomic constraint g(q) = (|q|^2 - l^2)/2 = 0. Rotation about the
/// vertical: xi_Q(q) = (-q2, q1, 0), momentum map the vertical angular momentum J_z = q1 p2 - q2 p1.
struct SphericalPendulum {
  static constexpr int dim = 3;
  static constexpr int n_constraints = 1;
  double m = 1.0, l = 1.0, grav = 9.81;
  template <class S>
  S L(const VecS<S, 3>& q, const VecS<S, 3>& v) const {
    return (0.5 * m) * v.squaredNorm() - (m * grav) * q(2);
  }
  template <class S>
  VecS<S, 1> g(const VecS<S, 3>& q) const {
    VecS<S, 1> r;
    r(0) = 0.5 * (q.squaredNorm() - l * l);
    return r;
  }
  [[nodiscard]] Eigen::Vector3d xi_Q(const Eigen::Vector3d& q) const { return {-q(1), q(0), 0.0}; }
};

/// Damped, forced oscillator m q'' = -k q - c q' + F cos(w t): L = 1/2 m qdot^2 - 1/2 k q^2 and the
/// non-conservative force f = -c qdot + F cos(w t) (discrete Lagrange-d'Alembert).
struct Oscillator {
  static constexpr int dim = 1;
  double m = 1.0, k = 1.0, c = 0.0, F = 0.0, w = 1.0;
  template <class S>
  S L(const VecS<S, 1>& q, const VecS<S, 1>& v) const {
    return (0.5 * m) * v(0) * v(0) - (0.5 * k) * q(0) * q(0);
  }
  template <class S>
  VecS<S, 1> f(const VecS<S, 1>&, const VecS<S, 1>& v, double t) const {
    VecS<S, 1> r;
    r(0) = -c * v(0) + F * std::cos(w * t);
    return r;
  }
};

/// A model with a continuous symmetry generator xi_Q (its momentum map is <p, xi_Q(q)>).
template <class M>
concept HasSymmetry = requires(const M& m, const Eigen::Matrix<double, M::dim, 1>& q) {
  { m.xi_Q(q) } -> std::convertible_to<Eigen::Matrix<double, M::dim, 1>>;
};

}  // namespace lievi::models::mechanics
