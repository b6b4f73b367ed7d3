#pragma once
/// @file lievi/models/lie_mechanics.hpp
/// @brief Catalogue of left-trivialised Lagrangian systems on SO(3) and SE(3) for the Lie-group DEL integrator
/// (integrators/lie_del): the heavy top, the 3D pendulum, the free rigid body, Moser–Veselov's discrete rigid
/// body, and a rigid body in SE(3) under uniform gravity (optionally on a vertical spring). Theory: docs/theory/lie-group-del.md.
///
/// Conventions: R is body to spatial, xi = g^{-1} gdot (body velocity; Omega on SO(3), (omega, v) on SE(3)),
/// momenta are body-frame (Pi = I Omega), left gradients <grad_V(g), eta> = d/ds V(g exp(s eta)). Every ell is
/// generic in the scalar (the integrator differentiates it with jets); the SO(3) potentials also give their
/// gradient through the advected vector Gamma = R^T e3 (`grad_V_reduced`) for the reduced form. Units SI.
#include <Eigen/Core>
#include <Eigen/LU>
#include <array>

#include "lievi/lie/se3.hpp"
#include "lievi/lie/so3.hpp"

namespace lievi::models::lie_mechanics {

using lie::Mat3;
using lie::Vec3;
using lie::Vec6;

template <class S, int n>
using VecS = Eigen::Matrix<S, n, 1>;
template <class S, int n>
using MatS = Eigen::Matrix<S, n, n>;

/// ½ x . A x for a constant symmetric A, at any scalar (written out so that double x jet products stay cheap).
template <class S, int n>
S half_quadratic_form(const Eigen::Matrix<double, n, n>& A, const VecS<S, n>& x) {
  S s = S(0.0);
  for (int i = 0; i < n; ++i) {
    S row = (0.5 * A(i, i)) * x(i);
    for (int j = i + 1; j < n; ++j) row += A(i, j) * x(j);
    s += row * x(i);
  }
  return s;
}

/// The heavy top: a rigid body with a fixed point O under uniform gravity -g e3 (e3 up). Inertia I about O
/// (body frame), mass m, centre of mass chi (body frame, from O).
///   ell(Omega) = ½ Omega . I Omega,   V(R) = m g e3 . R chi = m g chi . Gamma,   Gamma = R^T e3,
///   reduced (Euler–Poincaré with advected Gamma):  dPi/dt = Pi × Omega + m g Gamma × chi,  dGamma/dt = Gamma × Omega.
/// Casimirs of the reduced (Lie–Poisson) form: |Gamma|^2 and Pi . Gamma; Pi . Gamma is also the vertical angular
/// momentum e3 . R Pi, the Noether momentum of rotations about e3 (the `symmetries()` generator).
struct HeavyTop {
  using Group = lie::SO3;
  Mat3 I = Vec3(1.0, 1.0, 0.5).asDiagonal();  ///< inertia about the fixed point, body frame
  double m = 1.0;                                ///< mass
  double g = 9.81;                               ///< gravitational acceleration
  Vec3 chi = Vec3(0.0, 0.0, 1.0);                ///< centre of mass from the fixed point, body frame

  template <class S>
  S ell(const VecS<S, 3>& Omega) const {
    return half_quadratic_form<S, 3>(I, Omega);
  }
  /// V(R) = m g e3 . (R chi), R the embedding matrix.
  template <class S>
  S V(const MatS<S, 3>& R) const {
    return (m * g) * (R(2, 0) * chi(0) + R(2, 1) * chi(1) + R(2, 2) * chi(2));
  }
  /// Left gradient through Gamma: V = m g chi . Gamma, d(R^T e3) = -eps × Gamma, so grad_V = m g chi × Gamma.
  [[nodiscard]] Vec3 grad_V_reduced(const Vec3& Gamma) const { return (m * g) * chi.cross(Gamma); }
  /// Rotations about the vertical through the fixed point leave V invariant.
  [[nodiscard]] std::array<Vec3, 1> symmetries() const { return {Vec3::UnitZ()}; }

  [[nodiscard]] Vec3 Omega(const Vec3& Pi) const { return I.ldlt().solve(Pi); }
  /// H(Pi, Gamma) = ½ Pi . I^{-1} Pi + m g chi . Gamma.
  [[nodiscard]] double energy(const Vec3& Pi, const Vec3& Gamma) const {
    return 0.5 * Pi.dot(Omega(Pi)) + m * g * chi.dot(Gamma);
  }
  /// The Casimirs (|Gamma|^2, Pi . Gamma).
  [[nodiscard]] static std::array<double, 2> casimirs(const Vec3& Pi, const Vec3& Gamma) {
    return {Gamma.squaredNorm(), Pi.dot(Gamma)};
  }
  /// The continuous reduced vector field (dPi/dt, dGamma/dt) (for RK4 comparators).
  void field(const Vec3& Pi, const Vec3& Gamma, Vec3& dPi, Vec3& dGamma) const {
    const Vec3 Om = Omega(Pi);
    dPi = Pi.cross(Om) + (m * g) * Gamma.cross(chi);
    dGamma = Gamma.cross(Om);
  }
};

/// The 3D pendulum of Lee, Leok & McClamroch (a rigid body on a frictionless pivot, "A Lie group variational
/// integrator for the attitude dynamics of a rigid body with applications to the 3D pendulum", 2005): inertia J
/// about the pivot (general, not principal), rho the pivot-to-centre-of-mass vector (body frame), e3 the
/// direction of gravity (down):  V(R) = -m g e3 . R rho,  Gamma = R^T e3.
/// The same equations as the heavy top with chi = -rho and the vertical flipped; kept as its own entry for its
/// parameters and conventions (hanging equilibrium R rho = |rho| e3, offset off the principal axes).
struct ThreeDPendulum {
  using Group = lie::SO3;
  Mat3 J = (Mat3() << 0.2, 0.01, -0.02, 0.01, 0.25, 0.015, -0.02, 0.015, 0.3).finished();  ///< inertia about the pivot
  double m = 1.0;
  double g = 9.81;
  Vec3 rho = Vec3(0.02, 0.03, 0.2);  ///< pivot to centre of mass, body frame (not a principal axis of J)

  template <class S>
  S ell(const VecS<S, 3>& Omega) const {
    return half_quadratic_form<S, 3>(J, Omega);
  }
  /// V(R) = -m g e3 . (R rho).
  template <class S>
  S V(const MatS<S, 3>& R) const {
    return (-m * g) * (R(2, 0) * rho(0) + R(2, 1) * rho(1) + R(2, 2) * rho(2));
  }
  /// grad_V = -m g rho × Gamma.
  [[nodiscard]] Vec3 grad_V_reduced(const Vec3& Gamma) const { return (-m * g) * rho.cross(Gamma); }
  [[nodiscard]] std::array<Vec3, 1> symmetries() const { return {Vec3::UnitZ()}; }
  [[nodiscard]] Vec3 Omega(const Vec3& Pi) const { return J.ldlt().solve(Pi); }
  /// H = ½ Pi . J^{-1} Pi - m g rho . Gamma.
  [[nodiscard]] double energy(const Vec3& Pi, const Vec3& Gamma) const {
    return 0.5 * Pi.dot(Omega(Pi)) - m * g * rho.dot(Gamma);
  }
  [[nodiscard]] static std::array<double, 2> casimirs(const Vec3& Pi, const Vec3& Gamma) {
    return {Gamma.squaredNorm(), Pi.dot(Gamma)};
  }
  /// An attitude of the hanging equilibrium: the rotation taking rho/|rho| to e3 (R rho = |rho| e3).
  [[nodiscard]] Mat3 hanging_attitude() const {
    const Vec3 a = rho.normalized(), b = Vec3::UnitZ();
    const Vec3 v = a.cross(b);
    const double c = a.dot(b);
    const Mat3 K = lie::hat(v);
    return Mat3::Identity() + K + K * K / (1.0 + c);
  }
};

/// The free rigid body on SO(3): ell = ½ Omega . I Omega, no potential; invariant under all rotations (spatial
/// angular momentum R Pi conserved: three Noether momenta).
struct FreeRigidBody {
  using Group = lie::SO3;
  Mat3 I = Vec3(1.0, 2.0, 3.0).asDiagonal();
  template <class S>
  S ell(const VecS<S, 3>& Omega) const {
    return half_quadratic_form<S, 3>(I, Omega);
  }
  [[nodiscard]] std::array<Vec3, 3> symmetries() const { return {Vec3::UnitX(), Vec3::UnitY(), Vec3::UnitZ()}; }
};

/// Moser–Veselov's discrete rigid body as a discrete reduced Lagrangian of F = R_k^T R_{k+1}:
///   l_d(F) = tr((Id - F) J) / h,  J = ½ tr(I) Id - I,
/// which is h ell(Omega) + O(h^3) for F = exp(h Omega^) (tr((Id - F) J) = (h^2/2) Omega . I Omega + O(h^4)).
struct MoserVeselovBody {
  using Group = lie::SO3;
  Mat3 I = Vec3(1.0, 2.0, 3.0).asDiagonal();
  [[nodiscard]] Mat3 J() const { return 0.5 * I.trace() * Mat3::Identity() - I; }
  template <class S>
  S l_d(const MatS<S, 3>& F, double h) const {
    const Mat3 Jm = J();
    S s = S(Jm.trace());
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) s -= F(i, j) * Jm(j, i);
    return s * (1.0 / h);
  }
  [[nodiscard]] std::array<Vec3, 3> symmetries() const { return {Vec3::UnitX(), Vec3::UnitY(), Vec3::UnitZ()}; }
};

/// A rigid body in SE(3) under uniform gravity -g e3, optionally held by a vertical spring: the body frame's
/// origin O is away from the centre of mass c (body frame), g = (R, p) the pose of O, xi = (omega, v) its twist,
///   ell(omega, v) = ½ omega . I_O omega + m v . (omega × c) + ½ m |v|^2,   I_O = I_c + m (|c|^2 Id - c c^T),
///   V(R, p) = m g e3 . (p + R c) + ½ k (e3 . (p + R a))^2,
/// the spring (stiffness k >= 0, rest at height 0, vertical: its anchor slides freely in the horizontal plane)
/// acting at the body point a. k = 0 is free fall (the centre of mass then follows a parabola exactly); k > 0
/// keeps the height bounded (a bobbing, tumbling buoy).
/// Symmetries of V (left actions g -> exp(s zeta) g): rotations about the vertical through the spatial origin
/// zeta = (e3, 0) and horizontal translations zeta = (0, e1), (0, e2); their momentum maps are the vertical
/// angular momentum about the origin and the horizontal linear momentum. For k = 0 the vertical momentum
/// (zeta = (0, e3)) changes at the rate -m g.
struct FloatingRigidBody {
  using Group = lie::SE3;
  double m = 2.0;
  double g = 9.81;
  Mat3 I_c = Vec3(0.3, 0.5, 0.6).asDiagonal();  ///< inertia about the centre of mass, body frame
  Vec3 c = Vec3(0.1, -0.05, 0.2);               ///< centre of mass from O, body frame
  double k = 0.0;                               ///< vertical spring stiffness (0: free fall)
  Vec3 a = Vec3(0.3, 0.2, 0.4);                 ///< body point where the spring acts, from O, body frame

  [[nodiscard]] Mat3 I_O() const { return I_c + m * (c.squaredNorm() * Mat3::Identity() - c * c.transpose()); }
  /// The 6x6 mass matrix of ell = ½ xi . M xi: [[I_O, m hat(c)], [-m hat(c), m Id]] (v . (omega × c) =
  /// omega . (c × v)).
  [[nodiscard]] Eigen::Matrix<double, 6, 6> mass_matrix() const {
    Eigen::Matrix<double, 6, 6> M;
    M.topLeftCorner<3, 3>() = I_O();
    M.topRightCorner<3, 3>() = m * lie::hat(c);
    M.bottomLeftCorner<3, 3>() = -m * lie::hat(c);
    M.bottomRightCorner<3, 3>() = m * Mat3::Identity();
    return M;
  }
  template <class S>
  S ell(const VecS<S, 6>& xi) const {
    return half_quadratic_form<S, 6>(mass_matrix(), xi);
  }
  /// V = m g e3 . (p + R c) + ½ k (e3 . (p + R a))^2, g the 4x4 embedding [[R, p], [0, 1]].
  template <class S>
  S V(const MatS<S, 4>& T) const {
    const S z_a = T(2, 3) + T(2, 0) * a(0) + T(2, 1) * a(1) + T(2, 2) * a(2);
    return (m * g) * (T(2, 3) + T(2, 0) * c(0) + T(2, 1) * c(1) + T(2, 2) * c(2)) + (0.5 * k) * z_a * z_a;
  }
  [[nodiscard]] std::array<Vec6, 3> symmetries() const {
    return {lie::SE3::join(Vec3::UnitZ(), Vec3::Zero()), lie::SE3::join(Vec3::Zero(), Vec3::UnitX()),
            lie::SE3::join(Vec3::Zero(), Vec3::UnitY())};
  }
};

}  // namespace lievi::models::lie_mechanics
