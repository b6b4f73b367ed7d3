#pragma once
/// @file lievi/models/rigid_body.hpp
/// @brief The free rigid body with double-bracket dissipation (seed 002; docs/theory/ddb.md "Conventions").
///
///   dM/dt = M × Omega + M × phi(Omega),  Omega = I^{-1} M,
/// with the dissipation map phi(xi) = K ((I xi) × xi); for K = alpha Id this is
///   dM/dt = M × Omega + alpha M × (M × Omega).
/// Casimir |M|^2 is conserved; dH/dt = -(M × Omega)^T K (M × Omega) <= 0 with H = ½ M · Omega.
#include <Eigen/Core>
#include <Eigen/Geometry>
#include <Eigen/LU>

namespace lievi::models {

using Vec3 = Eigen::Matrix<double, 3, 1>;
using Mat3 = Eigen::Matrix<double, 3, 3>;

/// Immutable model parameters. Build with `RigidBody::principal` or `RigidBody::general`.
struct RigidBody {
  Mat3 I;       ///< inertia (symmetric positive definite), body frame
  Mat3 I_inv;   ///< its inverse
  Mat3 K;       ///< dissipation metric (symmetric positive semi-definite); alpha Id in the paper
  bool diagonal_inertia = true;

  /// Principal moments (I1, I2, I3) > 0 and K = alpha Id, alpha >= 0 (validated by the caller/scenario layer).
  static RigidBody principal(const Vec3& moments, double alpha) {
    return general(moments.asDiagonal().toDenseMatrix(), alpha * Mat3::Identity());
  }
  static RigidBody general(const Mat3& inertia, const Mat3& metric) {
    RigidBody b;
    b.I = inertia;
    b.I_inv = inertia.inverse();
    b.K = metric;
    b.diagonal_inertia = inertia.isDiagonal(0.0);
    return b;
  }

  /// Omega = I^{-1} M.
  [[nodiscard]] Vec3 omega(const Vec3& M) const { return I_inv * M; }
  /// H = ½ M · I^{-1} M.
  [[nodiscard]] double energy(const Vec3& M) const { return 0.5 * M.dot(I_inv * M); }
  /// C = |M|^2.
  [[nodiscard]] static double casimir(const Vec3& M) { return M.squaredNorm(); }
  /// phi(xi) = K ((I xi) × xi)  (docs/theory/ddb.md "Conventions"; = alpha M × Omega for K = alpha Id,
  /// xi = Omega).
  [[nodiscard]] Vec3 phi(const Vec3& xi) const { return K * (I * xi).cross(xi); }
  /// Continuous vector field f(M) = M × Omega + M × phi(Omega).
  [[nodiscard]] Vec3 field(const Vec3& M) const {
    const Vec3 Om = omega(M);
    return M.cross(Om) + M.cross(phi(Om));
  }
};

/// State of a rigid-body run: body momentum M and attitude R (body to spatial).
struct RigidBodyState {
  Vec3 M = Vec3::Zero();
  Mat3 R = Mat3::Identity();
};

}  // namespace lievi::models
