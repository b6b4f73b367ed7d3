#pragma once
/// @file lievi/integrators/ode/lobatto_iiic.hpp
/// @brief Three-stage Lobatto IIIC (order 4, implicit, L-stable) for the rigid body, integrating the attitude
/// with the momentum (docs/theory/ddb.md "Comparators and scenarios"; the comparator of seed 002):
///   dM/dt = f(M) = M × Omega + M × K (M × Omega),  Omega = I^{-1} M  (models/rigid_body.hpp),
///   dR/dt = R hat(Omega).
///
/// Stages (s = 3):  M_i = M_k + h sum_j a_ij f(M_j),  M_{k+1} = M_k + h sum_j b_j f(M_j).
/// The 9 stage values of M are found by Newton's method with the analytic Jacobian
///   DF = Id_9 - h [a_ij Df(M_j)]_{ij}  (Df = `LobattoIIIC::J_field_M`).
/// Given the converged Omega_j = I^{-1} M_j, the same tableau applied to dR/dt = R hat(Omega) is *linear* in
/// the R stages:  R_i = R_k + h sum_j a_ij R_j hat(Omega_j).  Transposed, with W_j = hat(Omega_j) and
/// hat(x)^T = -hat(x):  R_i^T + h sum_j a_ij W_j R_j^T = R_k^T, one 9x9 system G Y = [R_k^T; R_k^T; R_k^T]
/// with G_ij = delta_ij Id_3 + h a_ij W_j and a 9x3 right-hand side (the three rows of R share G), solved
/// once per step by LU. Then R_{k+1} = R_k + h sum_j b_j R_j W_j. This is the Runge–Kutta method applied to
/// the coupled system (M, R) exactly (the M equation does not depend on R), so the order is 4 for both.
/// Neither |M|^2 nor R^T R = Id is preserved (Lobatto IIIC is not symplectic); the drift is O(h^4).
/// Fixed-size Eigen throughout: nothing is allocated per step.
#include <Eigen/Core>
#include <Eigen/LU>

#include "lievi/core/error.hpp"
#include "lievi/integrators/rigid_body_stepper.hpp"
#include "lievi/lie/so3.hpp"
#include "lievi/models/rigid_body.hpp"
#include "lievi/solve/newton.hpp"

namespace lievi::integrators {

struct LobattoIIIC {
  static constexpr MethodTraits traits{"lobatto-iiic", 4, true, false, false, false,
                                       "3-stage Lobatto IIIC (comparator; implicit, Newton on the stages; M and R)"};

  using Vec9 = Eigen::Matrix<double, 9, 1>;
  using Mat9 = Eigen::Matrix<double, 9, 9>;

  // Lobatto IIIC, s = 3, order 2s - 2 = 4: Hairer & Wanner, Solving Ordinary Differential Equations II,
  // 2nd ed., Springer 1996, Section IV.5 (Lobatto IIIC, s = 3).
  static constexpr double a[3][3] = {{1.0 / 6.0, -1.0 / 3.0, 1.0 / 6.0},
                                     {1.0 / 6.0, 5.0 / 12.0, -1.0 / 12.0},
                                     {1.0 / 6.0, 2.0 / 3.0, 1.0 / 6.0}};
  static constexpr double b[3] = {1.0 / 6.0, 2.0 / 3.0, 1.0 / 6.0};
  static constexpr double c[3] = {0.0, 0.5, 1.0};

  /// Jacobian of the field, Df = d f / d M, for f(M) = u + M × K u, u = M × Omega, Omega = I^{-1} M:
  ///   Du = hat(M) I^{-1} - hat(Omega),   Df = Du - hat(K u) + hat(M) K Du.
  /// For K = alpha Id this is  Df = [hat(M) I^{-1} - hat(Omega)] + alpha [-hat(u) + hat(M) Du].
  [[nodiscard]] static models::Mat3 J_field_M(const models::RigidBody& body, const models::Vec3& M) {
    using lie::hat;
    const models::Vec3 Omega = body.omega(M);
    const models::Vec3 u = M.cross(Omega);
    const models::Mat3 hat_M = hat(M);
    const models::Mat3 Du = hat_M * body.I_inv - hat(Omega);
    return Du - hat(body.K * u) + hat_M * body.K * Du;
  }

  /// One Lobatto IIIC step of (M, R) with step h. On failure (Newton not converging, singular attitude
  /// system, non-finite values) x is left unchanged and converged = false.
  static StepResult step(const models::RigidBody& body, models::RigidBodyState& x, double h) {
    using lie::hat;
    using models::Mat3;
    using models::Vec3;
    const Vec3 M_k = x.M;

    // Predictor: explicit Euler to each node, M_i = M_k + c_i h f(M_k).
    const Vec3 f_k = body.field(M_k);
    Vec9 Z;
    for (int i = 0; i < 3; ++i) Z.segment<3>(3 * i) = M_k + c[i] * h * f_k;

    // Residual F(Z)_i = M_i - M_k - h sum_j a_ij f(M_j), as the stage equation reads.
    const auto F = [&](const Vec9& z) -> Vec9 {
      Vec3 f[3];
      for (int j = 0; j < 3; ++j) f[j] = body.field(z.segment<3>(3 * j));
      Vec9 r;
      for (int i = 0; i < 3; ++i)
        r.segment<3>(3 * i) = z.segment<3>(3 * i) - M_k - h * (a[i][0] * f[0] + a[i][1] * f[1] + a[i][2] * f[2]);
      return r;
    };
    const auto DF = [&](const Vec9& z) -> Mat9 {
      Mat9 J = Mat9::Identity();
      for (int j = 0; j < 3; ++j) {
        const Mat3 Df = J_field_M(body, z.segment<3>(3 * j));
        for (int i = 0; i < 3; ++i) J.block<3, 3>(3 * i, 3 * j) -= (h * a[i][j]) * Df;
      }
      return J;
    };
    // DF = Id + O(h): the simplified-Newton step dZ ~ F(Z) confirms convergence without another 9x9 solve.
    const auto approx = [](const Vec9& r) -> Vec9 { return r; };
    const double scale = M_k.lpNorm<Eigen::Infinity>();
    StepResult result = solve::newton<9>(F, DF, Z, scale, solve::NewtonOptions{}, approx);
    if (!result.converged) {
      result.message = "Lobatto IIIC: Newton on the stage values did not converge; try a smaller dt";
      return result;
    }

    // Stage derivatives at the converged stages.
    Vec3 f[3];
    Mat3 W[3];
    for (int j = 0; j < 3; ++j) {
      const Vec3 M_j = Z.segment<3>(3 * j);
      f[j] = body.field(M_j);
      W[j] = hat(body.omega(M_j));
    }

    // Attitude stages: G Y = [R_k^T; R_k^T; R_k^T],  G_ij = delta_ij Id + h a_ij W_j,  block i of Y = R_i^T.
    Mat9 G = Mat9::Identity();
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) G.block<3, 3>(3 * i, 3 * j) += (h * a[i][j]) * W[j];
    Eigen::Matrix<double, 9, 3> rhs;
    for (int i = 0; i < 3; ++i) rhs.block<3, 3>(3 * i, 0) = x.R.transpose();
    const Eigen::PartialPivLU<Mat9> lu(G);
    const Eigen::Matrix<double, 9, 3> Y = lu.solve(rhs);

    const Vec3 M_kp1 = M_k + h * (b[0] * f[0] + b[1] * f[1] + b[2] * f[2]);
    Mat3 dR = Mat3::Zero();
    for (int j = 0; j < 3; ++j) dR += b[j] * (Y.block<3, 3>(3 * j, 0).transpose() * W[j]);
    const Mat3 R_kp1 = x.R + h * dR;
    if (!M_kp1.allFinite() || !R_kp1.allFinite()) {
      result.converged = false;
      result.message = "Lobatto IIIC: non-finite state after the step";
      return result;
    }
    x.M = M_kp1;
    x.R = R_kp1;
    return result;
  }
};

}  // namespace lievi::integrators
