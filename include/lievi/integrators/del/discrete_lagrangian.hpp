#pragma once
/// @file lievi/integrators/del/discrete_lagrangian.hpp
/// @brief Discrete Lagrangians Ld(q0, q1) ~ int_0^h L dt and their position–momentum step equations
/// (Marsden & West 2001, seed 001: discrete Legendre transforms, forced systems, symplectic PRK methods).
///
/// Each method is a stateless tag with traits (`id`, `order`, `stages`) and two functions used by
/// `del_step` (del_stepper.hpp):
///  - `residual(m, q0, p0, t0, h, x, F, J)`: the implicit equation F(x) = 0 of one step in the unknown x and its
///    Jacobian J = dF/dx; returns the size of its terms (the scale of the residual test);
///  - `advance(m, q0, p0, t0, h, x, q1, p1)`: the new state from the solution x.
/// Closed forms (midpoint, trapezoid): x = q1 and
///    F = p0 + D1 Ld(q0, q1) + f_d^-(q0, q1),   p1 = D2 Ld(q0, q1) + f_d^+(q0, q1)
/// (forced discrete Legendre transforms p0 = -D1 Ld - f_d^-, p1 = D2 Ld + f_d^+). D1 Ld, D2 Ld and
/// D2 D1 Ld are written by the chain rule in the blocks Lq, Lv, Lqq, Lqv, Lvv of the continuous L
/// (lagrangian.hpp), so analytic model derivatives are used when given.
/// Any regular L (d2L/dqdot2 invertible) is supported.
#include <Eigen/Core>

#include "lievi/integrators/del/lagrangian.hpp"

namespace lievi::integrators::del {

/// Midpoint rule: Ld = h L((q0 + q1)/2, (q1 - q0)/h); f_d^+ = f_d^- = (h/2) f(q_mid, v, t0 + h/2). Order 2.
///   D1 Ld = (h/2) Lq - Lv,  D2 Ld = (h/2) Lq + Lv  (at (q_mid, v)),
///   d(D1 Ld)/dq1 = (h/4) Lqq + (1/2)(Lqv - Lqv^T) - Lvv/h.
struct Midpoint {
  static constexpr const char* id = "midpoint";
  static constexpr int order = 2;
  static constexpr int stages = 1;
  static constexpr bool is_implicit = true;
  static constexpr bool symplectic = true;
  static constexpr int unknowns(int n) { return n; }

  /// Ld(q0, q1) at any scalar (tests differentiate it directly).
  template <class M, class S>
  static S Ld(const M& m, const Eigen::Matrix<S, M::dim, 1>& q0, const Eigen::Matrix<S, M::dim, 1>& q1, double h) {
    const Eigen::Matrix<S, M::dim, 1> qm = 0.5 * (q0 + q1), v = (q1 - q0) / h;
    return h * total_lagrangian(m, qm, v);
  }

  template <class M>
  static double residual(const M& m, const Vec<M::dim>& q0, const Vec<M::dim>& p0, double t0, double h,
                         const Vec<M::dim>& q1, Vec<M::dim>& F, Mat<M::dim>& J) {
    const Vec<M::dim> qm = 0.5 * (q0 + q1), v = (q1 - q0) / h;
    const auto d = lagrangian_derivatives(m, qm, v);
    const auto fd = force_derivatives(m, qm, v, t0 + 0.5 * h);
    F = p0 + (0.5 * h) * d.Lq - d.Lv + (0.5 * h) * fd.f;
    J = (0.25 * h) * d.Lqq + 0.5 * (d.Lqv - d.Lqv.transpose()) - d.Lvv / h + (0.25 * h) * fd.fq + 0.5 * fd.fv;
    return p0.template lpNorm<Eigen::Infinity>() + (0.5 * h) * d.Lq.template lpNorm<Eigen::Infinity>() +
           d.Lv.template lpNorm<Eigen::Infinity>() + (0.5 * h) * fd.f.template lpNorm<Eigen::Infinity>();
  }

  template <class M>
  static void advance(const M& m, const Vec<M::dim>& q0, const Vec<M::dim>&, double t0, double h,
                      const Vec<M::dim>& x, Vec<M::dim>& q1, Vec<M::dim>& p1) {
    q1 = x;
    const Vec<M::dim> qm = 0.5 * (q0 + q1), v = (q1 - q0) / h;
    const auto d = lagrangian_derivatives(m, qm, v);
    p1 = (0.5 * h) * d.Lq + d.Lv + (0.5 * h) * force(m, qm, v, t0 + 0.5 * h);
  }
};

/// Trapezoidal rule: Ld = (h/2) [L(q0, v) + L(q1, v)], v = (q1 - q0)/h; f_d^- = (h/2) f(q0, v, t0),
/// f_d^+ = (h/2) f(q1, v, t0 + h). Order 2; for L = (1/2) qdot.M qdot - V(q) it is Störmer–Verlet.
///   D1 Ld = (h/2) Lq(0) - (Lv(0) + Lv(1))/2,  D2 Ld = (h/2) Lq(1) + (Lv(0) + Lv(1))/2,
///   d(D1 Ld)/dq1 = Lqv(0)/2 - (Lvv(0) + Lvv(1))/(2h) - Lqv(1)^T/2.
struct Trapezoid {
  static constexpr const char* id = "trapezoid";
  static constexpr int order = 2;
  static constexpr int stages = 2;
  static constexpr bool is_implicit = true;
  static constexpr bool symplectic = true;
  static constexpr int unknowns(int n) { return n; }

  template <class M, class S>
  static S Ld(const M& m, const Eigen::Matrix<S, M::dim, 1>& q0, const Eigen::Matrix<S, M::dim, 1>& q1, double h) {
    const Eigen::Matrix<S, M::dim, 1> v = (q1 - q0) / h;
    return (0.5 * h) * (total_lagrangian(m, q0, v) + total_lagrangian(m, q1, v));
  }

  template <class M>
  static double residual(const M& m, const Vec<M::dim>& q0, const Vec<M::dim>& p0, double t0, double h,
                         const Vec<M::dim>& q1, Vec<M::dim>& F, Mat<M::dim>& J) {
    const Vec<M::dim> v = (q1 - q0) / h;
    const auto d0 = lagrangian_derivatives(m, q0, v);
    const auto d1 = lagrangian_derivatives(m, q1, v);
    const auto fd = force_derivatives(m, q0, v, t0);
    F = p0 + (0.5 * h) * d0.Lq - 0.5 * (d0.Lv + d1.Lv) + (0.5 * h) * fd.f;
    J = 0.5 * d0.Lqv - (d0.Lvv + d1.Lvv) / (2.0 * h) - 0.5 * d1.Lqv.transpose() + 0.5 * fd.fv;
    return p0.template lpNorm<Eigen::Infinity>() + (0.5 * h) * d0.Lq.template lpNorm<Eigen::Infinity>() +
           d0.Lv.template lpNorm<Eigen::Infinity>() + (0.5 * h) * fd.f.template lpNorm<Eigen::Infinity>();
  }

  template <class M>
  static void advance(const M& m, const Vec<M::dim>& q0, const Vec<M::dim>&, double t0, double h,
                      const Vec<M::dim>& x, Vec<M::dim>& q1, Vec<M::dim>& p1) {
    q1 = x;
    const Vec<M::dim> v = (q1 - q0) / h;
    const auto d0 = lagrangian_derivatives(m, q0, v);
    const auto d1 = lagrangian_derivatives(m, q1, v);
    p1 = (0.5 * h) * d1.Lq + 0.5 * (d0.Lv + d1.Lv) + (0.5 * h) * force(m, q1, v, t0 + h);
  }
};

/// Lobatto IIIA–IIIB (s = 3, order 4): the variational partitioned Runge–Kutta method of the Galerkin discrete
/// Lagrangian Ld = ext h sum_i b_i L(Q_i, Qdot_i) with quadratic q(t) (MW01, symplectic PRK methods), in
/// position–momentum form with the stage velocities V_i = Qdot_i as unknowns (x = (V_1, V_2, V_3)):
///   Q_i = q0 + h sum_j a_ij V_j,   Pdot_j = Lq(Q_j, V_j) + f(Q_j, V_j, t0 + c_j h),
///   F_i = Lv(Q_i, V_i) - p0 - h sum_j abar_ij Pdot_j = 0,
///   q1 = q0 + h sum_j b_j V_j,     p1 = p0 + h sum_j b_j Pdot_j,
/// with b_i abar_ij + b_j a_ji = b_i b_j (symplectic). Any regular L; forces enter at the stages (forced PRK,
/// order 4 as the pair has order 4 for general partitioned systems).
struct LobattoIIIAIIIB {
  static constexpr const char* id = "lobatto-iiia-iiib";
  static constexpr int order = 4;
  static constexpr int stages = 3;
  static constexpr bool is_implicit = true;
  static constexpr bool symplectic = true;
  static constexpr int unknowns(int n) { return 3 * n; }

  // Lobatto IIIA and IIIB, s = 3: Hairer, Lubich & Wanner, Geometric Numerical Integration, 2nd ed., Springer
  // 2006, Section II.2.2 (Tables for Lobatto IIIA / IIIB) and Section VI.4 (symplecticity of the pair).
  static constexpr double c[3] = {0.0, 0.5, 1.0};
  static constexpr double b[3] = {1.0 / 6.0, 2.0 / 3.0, 1.0 / 6.0};
  static constexpr double a[3][3] = {
      {0.0, 0.0, 0.0}, {5.0 / 24.0, 1.0 / 3.0, -1.0 / 24.0}, {1.0 / 6.0, 2.0 / 3.0, 1.0 / 6.0}};
  static constexpr double abar[3][3] = {
      {1.0 / 6.0, -1.0 / 6.0, 0.0}, {1.0 / 6.0, 1.0 / 3.0, 0.0}, {1.0 / 6.0, 5.0 / 6.0, 0.0}};

  template <class M>
  static double residual(const M& m, const Vec<M::dim>& q0, const Vec<M::dim>& p0, double t0, double h,
                         const Vec<3 * M::dim>& x, Vec<3 * M::dim>& F, Mat<3 * M::dim>& J) {
    constexpr int n = M::dim;
    LagrangianDerivatives<n> d[3];
    ForceDerivatives<n> fd[3];
    for (int i = 0; i < 3; ++i) {
      Vec<n> Q = q0;
      for (int j = 0; j < 3; ++j) Q += (h * a[i][j]) * x.template segment<n>(n * j);
      const Vec<n> V = x.template segment<n>(n * i);
      d[i] = lagrangian_derivatives(m, Q, V);
      fd[i] = force_derivatives(m, Q, V, t0 + c[i] * h);
    }
    double scale = p0.template lpNorm<Eigen::Infinity>();
    J.setZero();
    for (int i = 0; i < 3; ++i) {
      Vec<n> Fi = d[i].Lv - p0;
      for (int j = 0; j < 3; ++j) Fi -= (h * abar[i][j]) * (d[j].Lq + fd[j].f);
      F.template segment<n>(n * i) = Fi;
      scale = std::max(scale, d[i].Lv.template lpNorm<Eigen::Infinity>() +
                                  h * (d[i].Lq + fd[i].f).template lpNorm<Eigen::Infinity>());
      // dF_i/dV_mu = Lvq(i) h a_i,mu + Lvv(i) delta_i,mu - h sum_j abar_ij [(Lqq + fq)(j) h a_j,mu + (Lqv + fv)(j) delta_j,mu]
      for (int mu = 0; mu < 3; ++mu) {
        Mat<n> B = (h * a[i][mu]) * d[i].Lqv.transpose();
        if (mu == i) B += d[i].Lvv;
        for (int j = 0; j < 3; ++j) {
          Mat<n> C = (h * a[j][mu]) * (d[j].Lqq + fd[j].fq);
          if (j == mu) C += d[j].Lqv + fd[j].fv;
          B -= (h * abar[i][j]) * C;
        }
        J.template block<n, n>(n * i, n * mu) = B;
      }
    }
    return scale;
  }

  template <class M>
  static void advance(const M& m, const Vec<M::dim>& q0, const Vec<M::dim>& p0, double t0, double h,
                      const Vec<3 * M::dim>& x, Vec<M::dim>& q1, Vec<M::dim>& p1) {
    constexpr int n = M::dim;
    q1 = q0;
    p1 = p0;
    for (int i = 0; i < 3; ++i) {
      Vec<n> Q = q0;
      for (int j = 0; j < 3; ++j) Q += (h * a[i][j]) * x.template segment<n>(n * j);
      const Vec<n> V = x.template segment<n>(n * i);
      const auto d = lagrangian_derivatives(m, Q, V);
      q1 += (h * b[i]) * V;
      p1 += (h * b[i]) * (d.Lq + force(m, Q, V, t0 + c[i] * h));
    }
  }
};

}  // namespace lievi::integrators::del
