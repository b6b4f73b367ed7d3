#pragma once
/// @file lievi/models/nonholonomic.hpp
/// @brief The catalogue of nonholonomic systems (del::NonholonomicModel, integrators/del/nonholonomic.hpp):
/// the Chaplygin sleigh, the vertical rolling disk and the rolling disk free to tilt. Lagrangians and
/// constraint matrices are written generically in the scalar S (the toolkit differentiates them by AD).
/// Closed-form solutions and the measured behaviour of the discrete Lagrange–d'Alembert step:
/// docs/theory/nonholonomic.md. Units: SI.
#include <Eigen/Core>
#include <cmath>

#include "lievi/integrators/del/dual.hpp"
#include "lievi/integrators/del/lagrangian.hpp"

namespace lievi::models::nonholonomic {

template <class S, int n>
using VecS = Eigen::Matrix<S, n, 1>;
template <class S, int r, int c>
using MatS = Eigen::Matrix<S, r, c>;

/// Chaplygin sleigh: a planar rigid body of mass m and inertia I about its centre of mass, on a knife edge
/// (blade) at distance a behind the centre of mass along the body axis e1 = (cos theta, sin theta).
/// q = (x, y, theta), (x, y) the centre of mass: L = 1/2 m (xdot^2 + ydot^2) + 1/2 I thetadot^2.
/// Constraint: the contact point c = (x, y) - a e1 has no velocity normal to the blade, e2 . cdot = 0 with
/// e2 = (-sin theta, cos theta):  A(q) qdot = -sin(theta) xdot + cos(theta) ydot - a thetadot = 0.
/// Reduced equations (v = e1 . (xdot, ydot), omega = thetadot): v' = a omega^2,
/// omega' = -m a v omega / (I + m a^2); energy E = 1/2 m v^2 + 1/2 (I + m a^2) omega^2.
struct ChaplyginSleigh {
  static constexpr int dim = 3;
  static constexpr int n_constraints = 1;
  double m = 1.0, I = 1.0, a = 1.0;
  template <class S>
  S L(const VecS<S, 3>&, const VecS<S, 3>& v) const {
    return (0.5 * m) * (v(0) * v(0) + v(1) * v(1)) + (0.5 * I) * v(2) * v(2);
  }
  template <class S>
  MatS<S, 1, 3> A(const VecS<S, 3>& q) const {
    using std::cos;
    using std::sin;
    MatS<S, 1, 3> r;
    r(0, 0) = -sin(q(2));
    r(0, 1) = cos(q(2));
    r(0, 2) = S(-a);
    return r;
  }
};

/// Vertical rolling disk (Bloch, Nonholonomic Mechanics and Control, Sec. 1.4): a disk of mass m and radius R
/// rolling upright without slipping on the plane; q = (x, y, theta, phi), (x, y) the contact point, theta the
/// rolling angle about the axle, phi the heading. I: moment of inertia about the axle, J: about a vertical
/// diameter (uniform disk: I = m R^2 / 2, J = m R^2 / 4).
///   L = 1/2 m (xdot^2 + ydot^2) + 1/2 I thetadot^2 + 1/2 J phidot^2,
///   A(q) qdot = (xdot - R cos(phi) thetadot, ydot - R sin(phi) thetadot) = 0.
/// Solution: thetadot = Omega and phidot = omega constant; the contact point runs on a circle of radius
/// R Omega / omega (a line if omega = 0); energy E = 1/2 (I + m R^2) Omega^2 + 1/2 J omega^2.
struct VerticalRollingDisk {
  static constexpr int dim = 4;
  static constexpr int n_constraints = 2;
  double m = 1.0, R = 1.0, I = 0.5, J = 0.25;
  template <class S>
  S L(const VecS<S, 4>&, const VecS<S, 4>& v) const {
    return (0.5 * m) * (v(0) * v(0) + v(1) * v(1)) + (0.5 * I) * v(2) * v(2) + (0.5 * J) * v(3) * v(3);
  }
  template <class S>
  MatS<S, 2, 4> A(const VecS<S, 4>& q) const {
    using std::cos;
    using std::sin;
    MatS<S, 2, 4> r;
    r(0, 0) = S(1.0);
    r(0, 1) = S(0.0);
    r(0, 2) = -R * cos(q(3));
    r(0, 3) = S(0.0);
    r(1, 0) = S(0.0);
    r(1, 1) = S(1.0);
    r(1, 2) = -R * sin(q(3));
    r(1, 3) = S(0.0);
    return r;
  }
};

/// Rolling disk on the plane, free to tilt: a disk of mass m, radius R rolling without slipping under
/// gravity g; I: moment of inertia about the axle (symmetry axis), J: about a diameter (uniform disk:
/// I = m R^2/2, J = m R^2/4).
/// q = (x, y, theta, phi, psi): (x, y) the contact point, theta the tilt from the vertical, phi the heading
/// (the rolling direction t = (cos phi, sin phi, 0)), psi the rolling angle (at theta = 0 this is
/// VerticalRollingDisk with its (theta, phi) = (psi, phi)).
/// Centre c = (x, y, 0) + R u with u = (-sin theta sin phi, sin theta cos phi, cos theta); axle a = t x u;
/// angular velocity Omega = phidot z - thetadot t - psidot a.
///   L = 1/2 m |cdot|^2 + 1/2 J (thetadot^2 + phidot^2 cos^2 theta) + 1/2 I (phidot sin theta - psidot)^2
///       - m g R cos theta,
///   A(q) qdot = (xdot - R cos(phi) psidot, ydot - R sin(phi) psidot) = 0
/// (the material point at the contact has zero velocity: cdot = Omega x (R u), whose horizontal part gives
/// the two constraints; the vertical part is the holonomic z_c = R cos theta, built into the coordinates).
/// Steady motions: theta = theta0, phidot = Omega, psidot = w constant with
///   (I + m R^2) Omega cos(theta0) (w - Omega sin theta0)
///       = m g R sin theta0 - J Omega^2 sin theta0 cos theta0,
/// the contact point on a circle of radius R w / Omega.
struct RollingDisk {
  static constexpr int dim = 5;
  static constexpr int n_constraints = 2;
  double m = 1.0, R = 1.0, I = 0.5, J = 0.25, g = 9.81;
  template <class S>
  S L(const VecS<S, 5>& q, const VecS<S, 5>& v) const {
    using std::cos;
    using std::sin;
    const S st = sin(q(2)), ct = cos(q(2)), sp = sin(q(3)), cp = cos(q(3));
    const S cx = v(0) - R * (ct * sp * v(2) + st * cp * v(3));
    const S cy = v(1) + R * (ct * cp * v(2) - st * sp * v(3));
    const S cz = -R * st * v(2);
    const S spin = v(3) * st - v(4);
    return (0.5 * m) * (cx * cx + cy * cy + cz * cz) + (0.5 * J) * (v(2) * v(2) + v(3) * v(3) * ct * ct) +
           (0.5 * I) * spin * spin - (m * g * R) * ct;
  }
  template <class S>
  MatS<S, 2, 5> A(const VecS<S, 5>& q) const {
    using std::cos;
    using std::sin;
    MatS<S, 2, 5> r = MatS<S, 2, 5>::Zero();
    r(0, 0) = S(1.0);
    r(0, 4) = -R * cos(q(3));
    r(1, 1) = S(1.0);
    r(1, 4) = -R * sin(q(3));
    return r;
  }
};

}  // namespace lievi::models::nonholonomic
