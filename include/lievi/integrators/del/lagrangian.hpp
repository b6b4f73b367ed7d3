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
/// The scalar S is double, a `Jet2` or a (nested) `Dual`; write L with generic code (`using std::sin;` then
/// `sin(x)`, and `S(c)` / plain doubles for constants). Derivatives of L: one evaluation with the second-order
/// jet Jet2<2n> on (q, qdot) (jet.hpp); of forces: first-order duals Dual<double, 2n>.
#include <Eigen/Core>
#include <Eigen/LU>
#include <concepts>

#include "lievi/integrators/del/dual.hpp"
#include "lievi/integrators/del/jet.hpp"

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
     requires(const M& m, const Eigen::Matrix<Jet2<2 * M::dim>, M::dim, 1>& q) {
       { m.L(q, q) } -> std::convertible_to<Jet2<2 * M::dim>>;
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
/// `derivatives` if it has one, else one evaluation with the second-order jet Jet2<2n> (jet.hpp).
template <LagrangianModel M>
LagrangianDerivatives<M::dim> lagrangian_derivatives(const M& m, const Vec<M::dim>& q, const Vec<M::dim>& v) {
  constexpr int n = M::dim;
  if constexpr (HasAnalyticDerivatives<M>) {
    return m.derivatives(q, v);
  } else {
    // Seeds in place: q_i is variable i, qdot_i variable n + i (gradient e, zero Hessian).
    Eigen::Matrix<Jet2<2 * n>, n, 1> qd, vd;
    LIEVI_JET_UNROLL
    for (int i = 0; i < n; ++i) {
      qd(i).v = q(i);
      qd(i).g[static_cast<std::size_t>(i)] = 1.0;
      vd(i).v = v(i);
      vd(i).g[static_cast<std::size_t>(n + i)] = 1.0;
    }
    const Jet2<2 * n> y = total_lagrangian(m, qd, vd);
    LagrangianDerivatives<n> r;
    r.L = y.v;
    LIEVI_JET_UNROLL
    for (int i = 0; i < n; ++i) {
      r.Lq(i) = y.g[i];
      r.Lv(i) = y.g[n + i];
      LIEVI_JET_UNROLL
      for (int j = 0; j < n; ++j) {
        r.Lqq(i, j) = y.hessian(i, j);
        r.Lqv(i, j) = y.hessian(i, n + j);
        r.Lvv(i, j) = y.hessian(n + i, n + j);
      }
    }
    return r;
  }
}

/// The force f(q, qdot, t): the model's `f`, else the `.f` of its analytic `force_derivatives` (a model may give
/// only that), else zero.
template <LagrangianModel M>
Vec<M::dim> force(const M& m, const Vec<M::dim>& q, const Vec<M::dim>& v, double t) {
  if constexpr (HasForce<M>)
    return m.f(q, v, t);
  else if constexpr (HasAnalyticForceDerivatives<M>)
    return m.force_derivatives(q, v, t).f;
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
