#pragma once
/// @file lievi/reference/rigid_body_taylor.hpp
/// @brief High-accuracy reference for the rigid body with double-bracket dissipation: the Taylor-series
/// method in long double (docs/theory/ddb.md "References used by the tests"), ~1e-17 accurate on the paper's scenarios.
///
/// The ODE  dM/dt = M × Omega + M × K (M × Omega),  Omega = I^{-1} M  (docs/theory/ddb.md "Conventions"; K = alpha Id in the paper)
/// has Taylor coefficients M(t0 + s) = sum_n m_n s^n given by the recurrence (docs/theory/ddb.md "References used by the tests", generalised to K)
///   Omega_n = I^{-1} m_n,  u_n = sum_{j=0}^{n} m_j × Omega_{n-j},  v_n = sum_{j=0}^{n} m_j × (K u_{n-j}),
///   m_{n+1} = (u_n + v_n) / (n + 1),
/// (u = M × Omega, v = M × K u as Cauchy products). Each step uses `order` coefficients and the step size of
/// Jorba & Zou (2005): s = min_{n in {N-1, N}} (eps / ||m_n||_inf)^{1/n}, eps = tol * ||M||_inf, so that the
/// truncated tail is of size ~eps. Dense output evaluates the step's polynomial (Horner) at output times,
/// so many output times cost no extra steps. Independent of every integrator in the library.
#include <Eigen/Core>
#include <vector>

#include "lievi/models/rigid_body.hpp"

namespace lievi::reference {

using Vec3L = Eigen::Matrix<long double, 3, 1>;

/// Order and tolerance of the Taylor reference.
struct TaylorOptions {
  int order = 30;           ///< number of Taylor coefficients per step (N)
  long double tol = 1e-20L;  ///< relative size of the truncated tail per step (long double eps ~ 1.1e-19)
};

/// M(t_i) for each time of the non-decreasing list `times` (all >= 0), from M(0) = M0, in long double.
/// Throws lievi::invalid_argument if the times are negative or not sorted.
std::vector<Vec3L> taylor_dense_ld(const models::RigidBody& model, const models::Vec3& M0,
                                   const std::vector<double>& times, const TaylorOptions& options = {});

/// As taylor_dense_ld, rounded to double.
std::vector<models::Vec3> taylor_dense(const models::RigidBody& model, const models::Vec3& M0,
                                       const std::vector<double>& times, const TaylorOptions& options = {});

/// M(t) from M(0) = M0 (t >= 0), rounded to double.
models::Vec3 taylor_reference(const models::RigidBody& model, const models::Vec3& M0, double t,
                              const TaylorOptions& options = {});

}  // namespace lievi::reference
