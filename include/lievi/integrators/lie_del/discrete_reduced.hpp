#pragma once
/// @file lievi/integrators/lie_del/discrete_reduced.hpp
/// @brief Lie-group DEL for a discrete Lagrangian given directly as a function of the relative element
/// F_k = g_k^{-1} g_{k+1}:  Ld(g_k, g_{k+1}) = l_d(F_k) - (h/2) (V(g_k) + V(g_{k+1})).
///
/// The retraction form of lie_del.hpp is the case l_d(F) = h ell(tau^{-1}(F)/h); Moser–Veselov's rigid body is
/// l_d(F) = tr((Id - F) J)/h, J = ½ tr(I) Id - I (docs/theory/lie-group-del.md "Moser–Veselov as a case").
/// With the right-trivialised gradient  <grad_R l_d(F), zeta> = d/ds l_d(exp(s zeta) F)|_0  and variations
/// dg = g eta, dF F^{-1} = -eta_k + Ad_F eta_{k+1}, so the one-step map on (g_k, p_k) is
///   (1)  grad_R l_d(F) = p_k - (h/2) grad_V(g_k)                       (solved for F = cay(x) by Newton in x)
///   (2)  g_{k+1} = g_k F
///   (3)  p_{k+1} = Ad*_F grad_R l_d(F) - (h/2) grad_V(g_{k+1}).
/// A model is a struct with `using Group`, `template <class S> S l_d(const Eigen::Matrix<S, E, E>& F, double h)`
/// (generic in the scalar), and optionally V / grad_V / symmetries as in lie_model.hpp.
/// Derivatives: one evaluation of l_d((I + hat eps)(I + hat y) F) with Jet2<2 dof> in (eps, y): the eps-gradient
/// is grad_R l_d(F), the mixed block H_{eps y} its derivative along right-trivialised perturbations y of F, so
/// d/dx grad_R l_d(cay(x)) = H_{eps y} dcay_x (cay(x + dx) = (I + hat(dcay_x dx)) cay(x) + O(dx^2)).
#include <Eigen/Core>
#include <Eigen/LU>
#include <algorithm>
#include <concepts>
#include <cstddef>

#include "lievi/core/error.hpp"
#include "lievi/integrators/del/jet.hpp"
#include "lievi/integrators/lie_del/lie_del.hpp"
#include "lievi/integrators/lie_del/lie_model.hpp"
#include "lievi/lie/concepts.hpp"
#include "lievi/lie/retraction/cayley.hpp"
#include "lievi/solve/newton.hpp"

namespace lievi::integrators::lie_del {

/// A discrete reduced Lagrangian model: `l_d(F, h)` callable with double and with Jet2<2 dof> matrices; V as in
/// LieLagrangianModel.
template <class M>
concept DiscreteReducedModel =
    lie::LieGroup<GroupOf<M>> &&
    requires(const M& m, const EmbeddingOf<M, double>& F) {
      { m.l_d(F, 1.0) } -> std::convertible_to<double>;
    } &&
    requires(const M& m, const EmbeddingOf<M, del::Jet2<2 * M::Group::dof>>& F) {
      { m.l_d(F, 1.0) } -> std::convertible_to<del::Jet2<2 * M::Group::dof>>;
    };

/// The potential helpers of lie_model.hpp ask for a LieLagrangianModel; a discrete reduced model reuses them
/// through this adapter (ell = 0 is never differentiated here).
template <class M>
struct PotentialOf {
  using Group = GroupOf<M>;
  const M* m;
  template <class S>
  S ell(const Eigen::Matrix<S, Group::dof, 1>&) const {
    return S(0.0);
  }
  template <class S>
  S V(const EmbeddingOf<M, S>& g) const
    requires HasLiePotential<M>
  {
    return m->V(g);
  }
  typename Group::Algebra grad_V(const Group& g) const
    requires HasAnalyticGradV<M>
  {
    return m->grad_V(g);
  }
};

/// The DEL stepper (1)-(3) of a discrete reduced Lagrangian, Newton in the Cayley chart F = cay(x).
template <DiscreteReducedModel M>
class DiscreteReducedDel {
 public:
  using Group = GroupOf<M>;
  using Algebra = typename Group::Algebra;
  using Matrix = typename Group::Matrix;
  using State = LieDelState<Group>;
  using Chart = lie::Cayley<Group>;
  static constexpr int dof = Group::dof;

  explicit DiscreteReducedDel(const M& model, const solve::NewtonOptions& newton = {}) : m_(model), newton_(newton) {}

  [[nodiscard]] const M& model() const { return m_; }
  /// F of the last step.
  [[nodiscard]] const Group& F() const { return F_; }

  /// grad_R l_d(F) and (if J is given) its derivative H_{eps y} in right-trivialised perturbations of F.
  Algebra grad_R(const Group& F, double h, Matrix* H = nullptr) const {
    constexpr int N = 2 * dof;
    using J2 = del::Jet2<N>;
    using E = EmbeddingOf<M, J2>;
    const auto& basis = algebra_basis<Group>();
    E A = E::Identity(), B = E::Identity();
    for (int i = 0; i < dof; ++i) {
      A += basis[static_cast<std::size_t>(i)].template cast<J2>() * J2(0.0, i);
      B += basis[static_cast<std::size_t>(i)].template cast<J2>() * J2(0.0, dof + i);
    }
    const E F_eps = A * (B * EmbeddingOf<M, double>(F.matrix()).template cast<J2>());
    const J2 y = m_.l_d(F_eps, h);
    Algebra g;
    for (int i = 0; i < dof; ++i) {
      g(i) = y.g[static_cast<std::size_t>(i)];
      if (H)
        for (int j = 0; j < dof; ++j) (*H)(i, j) = y.hessian(i, dof + j);
    }
    return g;
  }

  /// One step (1)-(3), in place on success; x unchanged on failure.
  StepResult step(State& x, double h) {
    const PotentialOf<M> pot{&m_};
    const Algebra b = x.p - (0.5 * h) * grad_V(pot, x.g);
    const double scale = std::max(x.p.template lpNorm<Eigen::Infinity>(), b.template lpNorm<Eigen::Infinity>());
    Matrix Jc;
    const auto F = [&](const Algebra& z) -> Algebra {
      Matrix H;
      const Algebra r = grad_R(Chart::tau(z), h, &H) - b;
      Jc = H * Chart::dtau(z);
      return r;
    };
    const auto DF = [&](const Algebra&) -> Matrix { return Jc; };
    Algebra z = x_;
    if (!warm_) {  // one Newton step from F = identity
      F(Algebra::Zero());
      z = Eigen::PartialPivLU<Matrix>(Jc).solve(b);
    }
    StepResult r = solve::newton<dof>(F, DF, z, scale, newton_);
    if (!r.converged) return r;
    const Group Fk = Chart::tau(z);
    const Group g_kp1 = x.g * Fk;  // (2)
    const Algebra p_kp1 = lie::Ad_star(Fk, grad_R(Fk, h)) - (0.5 * h) * grad_V(pot, g_kp1);  // (3)
    if (!p_kp1.allFinite()) {
      r.converged = false;
      r.message = msg_lie_del_nonfinite;
      return r;
    }
    x.g = g_kp1;
    x.p = p_kp1;
    x.t += h;
    x_ = z;
    F_ = Fk;
    warm_ = true;
    return r;
  }

 private:
  M m_;
  solve::NewtonOptions newton_;
  Algebra x_ = Algebra::Zero();
  Group F_ = Group::identity();
  bool warm_ = false;
};

}  // namespace lievi::integrators::lie_del
