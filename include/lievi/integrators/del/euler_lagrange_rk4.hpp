#pragma once
/// @file lievi/integrators/del/euler_lagrange_rk4.hpp
/// @brief The non-variational comparator of the discrete-mechanics methods: classical RK4 on the
/// Euler-Lagrange ODE of the same Lagrangian, q'' = Lvv^-1 (Lq + f - Lqv^T q'), for a model of
/// del/lagrangian.hpp (conservative or forced).
#include <Eigen/LU>

#include "lievi/integrators/del/del_stepper.hpp"
#include "lievi/integrators/del/lagrangian.hpp"

namespace lievi::integrators::del {

/// qddot = Lvv^-1 (Lq + f - Lqv^T qdot) at (q, v, t); false if Lvv is singular (rcond <= singular_rcond) or a
/// value is not finite.
template <class M>
bool euler_lagrange_acceleration(const M& m, const Vec<M::dim>& q, const Vec<M::dim>& v, double t, Vec<M::dim>& a) {
  const auto d = lagrangian_derivatives(m, q, v);
  const Vec<M::dim> rhs = d.Lq + force(m, q, v, t) - d.Lqv.transpose() * v;
  const Eigen::PartialPivLU<Mat<M::dim>> lu(d.Lvv);
  if (!d.Lvv.allFinite() || !(lu.rcond() > singular_rcond)) return false;
  a = lu.solve(rhs);
  return a.allFinite();
}

/// One classical RK4 step of (q, v) from t by h, in place; false (q, v unspecified) on a singular Lvv or a
/// non-finite value.
template <class M>
bool rk4_step(const M& m, Vec<M::dim>& q, Vec<M::dim>& v, double t, double h) {
  using V = Vec<M::dim>;
  V a1, a2, a3, a4;
  if (!euler_lagrange_acceleration(m, q, v, t, a1)) return false;
  const V q2 = q + 0.5 * h * v, v2 = v + 0.5 * h * a1;
  if (!euler_lagrange_acceleration(m, q2, v2, t + 0.5 * h, a2)) return false;
  const V q3 = q + 0.5 * h * v2, v3 = v + 0.5 * h * a2;
  if (!euler_lagrange_acceleration(m, q3, v3, t + 0.5 * h, a3)) return false;
  const V q4 = q + h * v3, v4 = v + h * a3;
  if (!euler_lagrange_acceleration(m, q4, v4, t + h, a4)) return false;
  q += (h / 6.0) * (v + 2.0 * v2 + 2.0 * v3 + v4);
  v += (h / 6.0) * (a1 + 2.0 * a2 + 2.0 * a3 + a4);
  return q.allFinite() && v.allFinite();
}

}  // namespace lievi::integrators::del
