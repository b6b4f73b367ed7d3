#pragma once
/// @file lievi/integrators/del/lagrangian.hpp
/// @brief The user model of a Lagrangian system on R^n and its derivatives (AD by default, analytic if given).
///
/// A model is a struct with
///   static constexpr int dim;                                              // n
///   template <class S> S L(const Eigen::Matrix<S, dim, 1>& q, const Eigen::Matrix<S, dim, 1>& qdot) const;
/// and optionally
///   template <class S> S V(const Eigen::Matrix<S, dim, 1>& q) const;       // total Lagrangian L - V
///   template <class S> Eigen::Matrix<S, dim, 1> f(q, qdot, double t) const; // non-conservative force
///   LagrangianDerivatives<dim> derivatives(q, qdot) const;                 // analytic, of the total L - V
/// The scalar S is double or a (nested) `Dual`; write L with generic code (`using std::sin;` then `sin(x)`,
/// and `S(c)` / plain doubles for constants). Derivatives: nested duals with 2n tangents on (q, qdot).
#include <Eigen/Core>
#include <Eigen/LU>
#include <concepts>

#include "lievi/integrators/del/dual.hpp"

namespace lievi::integrators::del {

template <int n>
using Vec = Eigen::Matrix<double, n, 1>;
template <int n>
using Mat = Eigen::Matrix<double, n, n>;

/// Derivatives of the total Lagrangian at (q, qdot). Lqv(i, j) = d^2 L / dq_i dqdot_j.
template <int n>
struct LagrangianDerivatives {
  double L = 0.0;
  Vec<n> Lq = Vec<n>::Zero(), Lv = Vec<n>::Zero();
  Mat<n> Lqq = Mat<n>::Zero(), Lqv = Mat<n>::Zero(), Lvv = Mat<n>::Zero();
};

/// A force and its Jacobians: fq(i, j) = df_i/dq_j, fv(i, j) = df_i/dqdot_j.
template <int n>
struct ForceDerivatives {
  Vec<n> f = Vec<n>::Zero();
  Mat<n> fq = Mat<n>::Zero(), fv = Mat<n>::Zero();
};

/// The AD scalars used for a model of dimension n: first and second order on (q, qdot) in R^{2n}.
template <int n>
using Dual1 = Dual<double, 2 * n>;
template <int n>
using Dual2 = Dual<Dual1<n>, 2 * n>;

template <class M>
concept HasPotential = requires(const M& m, const Eigen::Matrix<double, M::dim, 1>& q) {
  { m.V(q) } -> std::convertible_to<double>;
};

template <class M>
concept HasForce = requires(const M& m, const Eigen::Matrix<double, M::dim, 1>& q) {
  { m.f(q, q, 0.0) } -> std::convertible_to<Eigen::Matrix<double, M::dim, 1>>;
};

template <class M>
concept HasAnalyticDerivatives = requires(const M& m, const Eigen::Matrix<double, M::dim, 1>& q) {
  { m.derivatives(q, q) } -> std::convertible_to<LagrangianDerivatives<M::dim>>;
};

template <class M>
concept HasAnalyticForceDerivatives = requires(const M& m, const Eigen::Matrix<double, M::dim, 1>& q) {
  { m.force_derivatives(q, q, 0.0) } -> std::convertible_to<ForceDerivatives<M::dim>>;
};

/// A Lagrangian model on R^dim: L callable with double, and with the AD scalar unless analytic derivatives
/// are provided.
template <class M>
concept LagrangianModel =
    requires { requires M::dim >= 1; } &&
    requires(const M& m, const Eigen::Matrix<double, M::dim, 1>& q) {
      { m.L(q, q) } -> std::convertible_to<double>;
    } &&
    (HasAnalyticDerivatives<M> ||
     requires(const M& m, const Eigen::Matrix<Dual2<M::dim>, M::dim, 1>& q) {
       { m.L(q, q) } -> std::convertible_to<Dual2<M::dim>>;
     });

/// The total Lagrangian L(q, qdot) - V(q) at any scalar S.
template <class M, class S>
S total_lagrangian(const M& m, const Eigen::Matrix<S, M::dim, 1>& q, const Eigen::Matrix<S, M::dim, 1>& v) {
  if constexpr (HasPotential<M>)
    return m.L(q, v) - m.V(q);
  else
    return m.L(q, v);
}

/// Value, first and second derivatives of the total Lagrangian at (q, qdot): the model's analytic
/// `derivatives` if it has one, else one evaluation with Dual<Dual<double, 2n>, 2n>.
template <LagrangianModel M>
LagrangianDerivatives<M::dim> lagrangian_derivatives(const M& m, const Vec<M::dim>& q, const Vec<M::dim>& v) {
  constexpr int n = M::dim;
  if constexpr (HasAnalyticDerivatives<M>) {
    return m.derivatives(q, v);
  } else {
    Vec<2 * n> z;
    z << q, v;
    const auto s = seed_second<2 * n>(z);
    const Eigen::Matrix<Dual2<n>, n, 1> qd = s.template head<n>(), vd = s.template tail<n>();
    const Dual2<n> y = total_lagrangian(m, qd, vd);
    LagrangianDerivatives<n> r;
    r.L = y.v.v;
    for (int i = 0; i < n; ++i) {
      r.Lq(i) = y.v.d[i];
      r.Lv(i) = y.v.d[n + i];
      for (int j = 0; j < n; ++j) {
        r.Lqq(i, j) = y.d[i].d[j];
        r.Lqv(i, j) = y.d[i].d[n + j];
        r.Lvv(i, j) = y.d[n + i].d[n + j];
      }
    }
    return r;
  }
}

/// The force f(q, qdot, t) (zero for a model without one).
template <LagrangianModel M>
Vec<M::dim> force(const M& m, const Vec<M::dim>& q, const Vec<M::dim>& v, double t) {
  if constexpr (HasForce<M>)
    return m.f(q, v, t);
  else
    return Vec<M::dim>::Zero();
}

/// The force and its Jacobians (analytic if the model has `force_derivatives`, else AD with 2n tangents).
template <LagrangianModel M>
ForceDerivatives<M::dim> force_derivatives(const M& m, const Vec<M::dim>& q, const Vec<M::dim>& v, double t) {
  constexpr int n = M::dim;
  ForceDerivatives<n> r;
  if constexpr (HasAnalyticForceDerivatives<M>) {
    r = m.force_derivatives(q, v, t);
  } else if constexpr (HasForce<M>) {
    Vec<2 * n> z;
    z << q, v;
    Vec<n> f;
    const Eigen::Matrix<double, n, 2 * n> J = jacobian<n, 2 * n>(
        [&](const Eigen::Matrix<Dual1<n>, 2 * n, 1>& s) -> Eigen::Matrix<Dual1<n>, n, 1> {
          const Eigen::Matrix<Dual1<n>, n, 1> qd = s.template head<n>(), vd = s.template tail<n>();
          return m.f(qd, vd, t);
        },
        z, &f);
    r.f = f;
    r.fq = J.template leftCols<n>();
    r.fv = J.template rightCols<n>();
  }
  return r;
}

/// Continuous Legendre transform p = dL/dqdot (q, qdot).
template <LagrangianModel M>
Vec<M::dim> legendre(const M& m, const Vec<M::dim>& q, const Vec<M::dim>& v) {
  return lagrangian_derivatives(m, q, v).Lv;
}

/// Energy E = <dL/dqdot, qdot> - L of the total Lagrangian.
template <LagrangianModel M>
double energy(const M& m, const Vec<M::dim>& q, const Vec<M::dim>& v) {
  const auto d = lagrangian_derivatives(m, q, v);
  return d.Lv.dot(v) - d.L;
}

/// Inverse Legendre transform: solve dL/dqdot(q, v) = p for v by Newton from `v` (in place).
/// Returns false if d2L/dqdot2 is singular or 50 iterations do not reach 1e-14 relative.
template <LagrangianModel M>
bool velocity_from_momentum(const M& m, const Vec<M::dim>& q, const Vec<M::dim>& p, Vec<M::dim>& v) {
  for (int it = 0; it < 50; ++it) {
    const auto d = lagrangian_derivatives(m, q, v);
    const Eigen::PartialPivLU<Mat<M::dim>> lu(d.Lvv);
    const Vec<M::dim> dv = lu.solve(d.Lv - p);
    if (!dv.allFinite()) return false;
    v -= dv;
    if (dv.template lpNorm<Eigen::Infinity>() <= 1e-14 * (1.0 + v.template lpNorm<Eigen::Infinity>())) return true;
  }
  return false;
}

}  // namespace lievi::integrators::del
