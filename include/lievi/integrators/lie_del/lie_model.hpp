#pragma once
/// @file lievi/integrators/lie_del/lie_model.hpp
/// @brief The user model of a left-trivialised Lagrangian system on a Lie group, L(g, gdot) = ell(xi) - V(g),
/// xi = g^{-1} gdot, and its derivatives (jets for ell, duals through the chart g (I + eps^) for V, or analytic).
///
/// A model is a struct with
///   using Group = lie::SO3;  // or lie::SE3, lie::Rn<n>, lie_del::ProductRn<...>: any lie::LieGroup
///   template <class S> S ell(const Eigen::Matrix<S, Group::dof, 1>& xi) const;        // reduced Lagrangian
/// and optionally
///   template <class S> S V(const Eigen::Matrix<S, E, E>& g) const;  // potential of the embedding matrix
///   KineticDerivatives<Group::dof> ell_derivatives(const Algebra& xi) const;   // analytic ell, mu, ell''
///   Algebra grad_V(const Group& g) const;                                      // analytic left gradient
///   std::array<Algebra, k> symmetries() const;  // generators zeta of left actions g -> exp(s zeta) g
///                                               // leaving V invariant (discrete Noether, momentum_map)
/// The scalar S is double, `del::Jet2` (ell: value, gradient mu = d ell/d xi and Hessian in one evaluation) or
/// `del::Dual` (V: one evaluation for the gradient). Write both generically (`using std::sin;`, plain doubles
/// for constants), as for the R^n toolkit (integrators/del/lagrangian.hpp).
///
/// Conventions (docs/theory/lie-group-del.md "Conventions"): left trivialisation xi = g^{-1} gdot, variations
/// dg = g eta; pairing <mu, xi> = mu . xi, duals are transposes; the left-trivialised gradient of V is
///   <grad_V(g), eta> = d/ds V(g exp(s eta))|_{s=0},
/// computed as the first derivative of V(g (I + hat(eps))) at eps = 0 (exact to first order in eps).
#include <Eigen/Core>
#include <Eigen/LU>
#include <array>
#include <concepts>
#include <cstddef>
#include <limits>

#include "lievi/integrators/del/dual.hpp"
#include "lievi/integrators/del/jet.hpp"
#include "lievi/lie/concepts.hpp"

namespace lievi::integrators::lie_del {

/// Value, gradient mu = d ell/d xi and Hessian d^2 ell/d xi^2 of the reduced Lagrangian at xi.
template <int n>
struct KineticDerivatives {
  double ell = 0.0;
  Eigen::Matrix<double, n, 1> mu = Eigen::Matrix<double, n, 1>::Zero();
  Eigen::Matrix<double, n, n> ell_xixi = Eigen::Matrix<double, n, n>::Zero();
};

template <class M>
using GroupOf = typename M::Group;
template <class M>
using AlgebraOf = typename M::Group::Algebra;
template <class M>
using MatrixOf = typename M::Group::Matrix;
/// The embedding matrix of the group at scalar S (3x3 for SO(3), 4x4 for SE(3)).
template <class M, class S>
using EmbeddingOf = Eigen::Matrix<S, M::Group::Embedding::RowsAtCompileTime, M::Group::Embedding::ColsAtCompileTime>;

template <class M>
concept HasAnalyticKinetic = requires(const M& m, const AlgebraOf<M>& xi) {
  { m.ell_derivatives(xi) } -> std::convertible_to<KineticDerivatives<M::Group::dof>>;
};

template <class M>
concept HasLiePotential = requires(const M& m, const EmbeddingOf<M, double>& g) {
  { m.V(g) } -> std::convertible_to<double>;
};

template <class M>
concept HasAnalyticGradV = requires(const M& m, const GroupOf<M>& g) {
  { m.grad_V(g) } -> std::convertible_to<AlgebraOf<M>>;
};

template <class M>
concept HasSymmetries = requires(const M& m) { m.symmetries(); };

/// A left-trivialised Lagrangian model on a Lie group: ell callable with double, and with the jet Jet2<dof>
/// unless analytic derivatives are given; V (if any) callable with double, and with Dual<double, dof> unless an
/// analytic grad_V is given.
template <class M>
concept LieLagrangianModel =
    lie::LieGroup<GroupOf<M>> &&
    requires(const M& m, const AlgebraOf<M>& xi) {
      { m.ell(xi) } -> std::convertible_to<double>;
    } &&
    (HasAnalyticKinetic<M> ||
     requires(const M& m, const Eigen::Matrix<del::Jet2<M::Group::dof>, M::Group::dof, 1>& xi) {
       { m.ell(xi) } -> std::convertible_to<del::Jet2<M::Group::dof>>;
     }) &&
    (!HasLiePotential<M> || HasAnalyticGradV<M> ||
     requires(const M& m, const EmbeddingOf<M, del::Dual<double, M::Group::dof>>& g) {
       { m.V(g) } -> std::convertible_to<del::Dual<double, M::Group::dof>>;
     });

/// ell(xi), mu = d ell/d xi and d^2 ell/d xi^2: the model's analytic `ell_derivatives`, else one evaluation of
/// ell with the second-order jet Jet2<dof> seeded at xi.
template <LieLagrangianModel M>
KineticDerivatives<M::Group::dof> kinetic_derivatives(const M& m, const AlgebraOf<M>& xi) {
  constexpr int n = M::Group::dof;
  if constexpr (HasAnalyticKinetic<M>) {
    return m.ell_derivatives(xi);
  } else {
    Eigen::Matrix<del::Jet2<n>, n, 1> x;
    LIEVI_JET_UNROLL
    for (int i = 0; i < n; ++i) x(i) = del::Jet2<n>(xi(i), i);
    const del::Jet2<n> y = m.ell(x);
    KineticDerivatives<n> r;
    r.ell = y.v;
    LIEVI_JET_UNROLL
    for (int i = 0; i < n; ++i) {
      r.mu(i) = y.g[static_cast<std::size_t>(i)];
      LIEVI_JET_UNROLL
      for (int j = 0; j < n; ++j) r.ell_xixi(i, j) = y.hessian(i, j);
    }
    return r;
  }
}

/// The basis of the algebra in the embedding: E_i = hat(e_i).
template <lie::LieGroup G>
const std::array<typename G::Embedding, static_cast<std::size_t>(G::dof)>& algebra_basis() {
  static const auto E = [] {
    std::array<typename G::Embedding, static_cast<std::size_t>(G::dof)> b;
    for (int i = 0; i < G::dof; ++i) b[static_cast<std::size_t>(i)] = G::hat(G::Algebra::Unit(i));
    return b;
  }();
  return E;
}

/// V(g) (0 if the model has none).
template <LieLagrangianModel M>
double potential(const M& m, const GroupOf<M>& g) {
  if constexpr (HasLiePotential<M>)
    return m.V(EmbeddingOf<M, double>(g.matrix()));
  else
    return 0.0;
}

/// Left-trivialised gradient of V: <grad_V(g), eta> = d/ds V(g exp(s eta))|_0. The model's analytic `grad_V`,
/// else the gradient of V(g (I + hat(eps))) at eps = 0 with first-order duals Dual<double, dof> (g (I + hat eps)
/// agrees with g exp(eps) to first order, which is all a gradient sees). Zero without a potential.
template <LieLagrangianModel M>
AlgebraOf<M> grad_V(const M& m, const GroupOf<M>& g) {
  using G = GroupOf<M>;
  constexpr int n = G::dof;
  if constexpr (!HasLiePotential<M>) {
    return AlgebraOf<M>::Zero();
  } else if constexpr (HasAnalyticGradV<M>) {
    return m.grad_V(g);
  } else {
    using D = del::Dual<double, n>;
    const EmbeddingOf<M, double> g0 = g.matrix();
    const auto& E = algebra_basis<G>();
    // g (I + sum_i eps_i E_i) = g + sum_i eps_i (g E_i): value g, tangent i the double matrix g E_i (seeded
    // entrywise, no dual products)
    EmbeddingOf<M, D> g_eps;
    for (int r = 0; r < g_eps.rows(); ++r)
      for (int c = 0; c < g_eps.cols(); ++c) g_eps(r, c) = D(g0(r, c));
    for (int i = 0; i < n; ++i) {
      const EmbeddingOf<M, double> gE = g0 * E[static_cast<std::size_t>(i)];
      for (int r = 0; r < g_eps.rows(); ++r)
        for (int c = 0; c < g_eps.cols(); ++c) g_eps(r, c).d[static_cast<std::size_t>(i)] = gE(r, c);
    }
    const D y = m.V(g_eps);
    AlgebraOf<M> r;
    for (int i = 0; i < n; ++i) r(i) = y.d[static_cast<std::size_t>(i)];
    return r;
  }
}

/// Inverse Legendre transform: xi with d ell/d xi (xi) = mu, by Newton from `xi` (in place; exact in one step for
/// a quadratic ell). Returns false if ell'' is singular or 50 iterations do not reach 1e-14 relative.
template <LieLagrangianModel M>
bool velocity_from_momentum(const M& m, const AlgebraOf<M>& mu, AlgebraOf<M>& xi) {
  for (int it = 0; it < 50; ++it) {
    const auto d = kinetic_derivatives(m, xi);
    const Eigen::PartialPivLU<MatrixOf<M>> lu(d.ell_xixi);
    const AlgebraOf<M> dxi = lu.solve(AlgebraOf<M>(d.mu - mu));
    if (!dxi.allFinite()) return false;
    xi -= dxi;
    if (dxi.template lpNorm<Eigen::Infinity>() <= 1e-14 * (1.0 + xi.template lpNorm<Eigen::Infinity>())) return true;
  }
  return false;
}

/// Energy of the continuous system at (g, mu): E = <mu, xi> - ell(xi) + V(g), xi the inverse Legendre transform
/// of the body momentum mu (NaN if it fails).
template <LieLagrangianModel M>
double energy(const M& m, const GroupOf<M>& g, const AlgebraOf<M>& mu) {
  AlgebraOf<M> xi = AlgebraOf<M>::Zero();
  if (!velocity_from_momentum(m, mu, xi)) return std::numeric_limits<double>::quiet_NaN();
  const auto d = kinetic_derivatives(m, xi);
  return mu.dot(xi) - d.ell + potential(m, g);
}

/// Momentum map of the left action g -> exp(s zeta) g at (g, mu): J_zeta = <Ad*_{g^{-1}} mu, zeta>
/// = <mu, Ad_{g^{-1}} zeta> (the spatial momentum paired with zeta; discrete Noether, lie-group-del.md).
template <lie::LieGroup G>
double momentum_map(const G& g, const typename G::Algebra& mu, const typename G::Algebra& zeta) {
  return lie::Ad_star_inverse(g, mu).dot(zeta);
}

}  // namespace lievi::integrators::lie_del
