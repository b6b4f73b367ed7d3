#pragma once
/// @file lievi/integrators/lie_del/lie_del.hpp
/// @brief The Lie-group variational integrator of a left-trivialised Lagrangian ell(xi) - V(g) (lie_model.hpp)
/// with a retraction tau (Cayley or exp): position-momentum form of its discrete Euler-Lagrange (DEL) equations,
/// the Euler-Poincare (reduced) update, and the reduced heavy-top form with an advected vector.
///
/// Discrete Lagrangian (docs/theory/lie-group-del.md, "The discrete Lagrangian"), g_{k+1} = g_k tau(h xi_k):
///   Ld(g_k, g_{k+1}) = h ell(xi_k) - (h/2) (V(g_k) + V(g_{k+1})),   xi_k = tau^{-1}(g_k^{-1} g_{k+1}) / h
/// (retraction midpoint for the kinetic part, trapezoid for V: a symmetric method of order 2).
/// Left-trivialised DEL with the right-trivialised dtau of lie/concepts.hpp and mu_k = d ell/d xi (xi_k):
///   (dtau^{-1}_{h xi_k})^* mu_k = (dtau^{-1}_{-h xi_{k-1}})^* mu_{k-1} - h grad_V(g_k),
/// written as a one-step map on (g_k, p_k), p_k the left-trivialised discrete momentum at t_k:
///   (1)  (dtau^{-1}_{h xi})^* mu(xi) = p_k - (h/2) grad_V(g_k)          (solved for xi by Newton)
///   (2)  g_{k+1} = g_k tau(h xi)
///   (3)  p_{k+1} = (dtau^{-1}_{-h xi})^* mu(xi) - (h/2) grad_V(g_{k+1})   (= Ad*_{tau(h xi)} (1) + potential)
/// Newton Jacobian of (1):  d/dxi = (dtau^{-1}_{h xi})^* ell''(xi) + h J_x[(dtau^{-1}_x)^* mu]|_{x = h xi}.
/// Discrete Noether: for a generator zeta with V(exp(s zeta) g) = V(g), J = <Ad*_{g_k^{-1}} p_k, zeta> is exactly
/// conserved by (1)-(3) (momentum_map in lie_model.hpp).
#include <Eigen/Core>
#include <algorithm>
#include <cmath>
#include <concepts>
#include <limits>
#include <type_traits>

#include "lievi/core/error.hpp"
#include "lievi/integrators/lie_del/lie_model.hpp"
#include "lievi/lie/bernoulli.hpp"
#include "lievi/lie/concepts.hpp"
#include "lievi/lie/retraction/cayley.hpp"
#include "lievi/lie/retraction/exp.hpp"
#include "lievi/lie/so3.hpp"
#include "lievi/solve/newton.hpp"

namespace lievi::integrators::lie_del {

template <class R, class G>
concept HasJdtauInvStar = requires(const typename G::Algebra& x) {
  { R::J_dtau_inv_star_x(x, x) } -> std::convertible_to<typename G::Matrix>;
};

/// Maximum number of terms of the Bernoulli series used for J_x[(dexp_x^{-1})^* mu] when the retraction has no
/// closed form (Exp<SE3>, Exp<Rn>): the k-th term is ~ (|x| / 2 pi)^k, so 24 terms reach round-off for |x| < 1.5
/// and give a Jacobian good enough for Newton's convergence up to |x| ~ 5 (the Jacobian only steers Newton; the
/// solution is set by the residual). The sum stops earlier once a term is below round-off.
inline constexpr int dexp_inv_jacobian_terms = 24;

/// J_x[(dtau_x^{-1})^* mu]: the retraction's closed form `R::J_dtau_inv_star_x` if it has one; for exp, the
/// derivative of the series (dexp_x^{-1})^* mu = sum_k b_k (ad*_x)^k mu term by term,
///   v_0 = mu, v_k = ad*_x v_{k-1},  D_k = ad_x^T D_{k-1} + C(v_{k-1}),  C(v) = d(ad*_x v)/dx = [ad*_{e_j} v]_j;
/// otherwise central differences with step 1e-6 (Jacobian to ~1e-10, enough for Newton).
template <lie::LieGroup G, class R>
  requires lie::Retraction<R, G>
typename G::Matrix J_dtau_inv_star_x(const typename G::Algebra& x, const typename G::Algebra& mu) {
  using A = typename G::Algebra;
  using Mx = typename G::Matrix;
  if constexpr (HasJdtauInvStar<R, G>) {
    return R::J_dtau_inv_star_x(x, mu);
  } else if constexpr (std::is_same_v<R, lie::Exp<G>>) {
    const Mx adT = G::ad(x).transpose();
    A v = mu;
    Mx D = Mx::Zero(), sum = Mx::Zero();
    for (int k = 1; k <= dexp_inv_jacobian_terms; ++k) {
      Mx C;
      for (int j = 0; j < G::dof; ++j) C.col(j) = G::ad_star(A::Unit(j), v);
      D = adT * D + C;
      v = adT * v;
      const double b = lie::bernoulli::over_factorial[k];
      if (b == 0.0) continue;
      sum += b * D;
      // the series converges geometrically (ratio ~ |x| / 2 pi): stop once a term is below round-off of the sum
      if (k >= 2 && std::abs(b) * D.cwiseAbs().maxCoeff() <= 1e-17 * (1.0 + sum.cwiseAbs().maxCoeff())) break;
    }
    return sum;
  } else {
    constexpr double step = 1e-6;
    Mx J;
    for (int j = 0; j < G::dof; ++j) {
      const A e = step * A::Unit(j);
      J.col(j) = (R::dtau_inv_star(x + e) * mu - R::dtau_inv_star(x - e) * mu) / (2.0 * step);
    }
    return J;
  }
}

/// State of a run: configuration g_k, left-trivialised discrete momentum p_k (body frame), time t_k.
template <lie::LieGroup G>
struct LieDelState {
  G g = G::identity();
  typename G::Algebra p = G::Algebra::Zero();
  double t = 0.0;
};

inline constexpr const char* msg_lie_del_nonfinite =
    "lie-del: non-finite value in the discrete Euler-Lagrange solve; reduce h or check ell and V";

// --- reduced form with an advected vector on SO(3) (heavy top) -----------------------------------------

/// A model on SO(3) whose potential depends on the attitude only through the advected body vector
/// Gamma = R^T a (a fixed spatial direction): it gives `grad_V_reduced(Gamma)`, the left gradient of V as a
/// function of Gamma (for V = U(R^T a): grad_V = (dU/dGamma) × Gamma).
template <class M>
concept AdvectedSO3Model = LieLagrangianModel<M> && std::same_as<GroupOf<M>, lie::SO3> &&
                           requires(const M& m, const lie::Vec3& Gamma) {
                             { m.grad_V_reduced(Gamma) } -> std::convertible_to<lie::Vec3>;
                           };

/// Reduced state (Pi_k, Gamma_k) of a system on SO(3) with an advected vector: Pi the discrete body momentum
/// (p_k of the full stepper), Gamma = R^T a.
struct AdvectedState {
  lie::Vec3 Pi = lie::Vec3::Zero();
  lie::Vec3 Gamma = lie::Vec3::UnitZ();
  double t = 0.0;
};

/// The Lie-group variational integrator of `M` with retraction `R` (a value type holding the model and the last
/// xi, the warm start of the next Newton solve). One step: (1)-(3) of the file comment.
template <LieLagrangianModel M, class R>
  requires lie::Retraction<R, GroupOf<M>>
class LieDel {
 public:
  using Group = GroupOf<M>;
  using Algebra = typename Group::Algebra;
  using Matrix = typename Group::Matrix;
  using State = LieDelState<Group>;
  static constexpr int dof = Group::dof;
  static constexpr const char* id = "lie-del";
  static constexpr int order = 2;
  static constexpr bool symplectic = true;
  static constexpr bool is_implicit = true;

  explicit LieDel(const M& model, const solve::NewtonOptions& newton = {}) : m_(model), newton_(newton) {}

  [[nodiscard]] const M& model() const { return m_; }
  /// xi of the last step (the discrete body velocity, g_{k+1} = g_k tau(h xi)).
  [[nodiscard]] const Algebra& xi() const { return xi_; }
  /// Forget the warm start (the next step starts Newton from ell''(0)^{-1} b); call it when the state is reset
  /// or h changes.
  void start() { warm_ = 0; }

  /// psi_h(xi) = (dtau^{-1}_{h xi})^* mu(xi), the left-trivialised -D1 Ld without the potential; with its Jacobian
  /// d psi/d xi = (dtau^{-1}_{h xi})^* ell''(xi) + h J_x[(dtau^{-1}_x)^* mu]_{x = h xi} if `J` is given.
  Algebra psi(const Algebra& xi, double h, Matrix* J = nullptr) const {
    const auto d = kinetic_derivatives(m_, xi);
    const Algebra x = h * xi;
    const Matrix S = R::dtau_inv_star(x);
    if (J) *J = S * d.ell_xixi + h * J_dtau_inv_star_x<Group, R>(x, d.mu);
    return S * d.mu;
  }

  /// Solve (1): psi_h(xi) = b by Newton from `xi` (in place). `scale` is the size the residual is judged against.
  StepResult solve_xi(const Algebra& b, double h, double scale, Algebra& xi) const {
    if (!(scale > 0.0)) {  // b = 0 and p_k = 0: at rest, xi = 0 exactly (mu(0) = 0 for ell with a minimum at 0)
      xi.setZero();
      StepResult r;
      const Algebra res = psi(xi, h) - b;
      r.residual = res.template lpNorm<Eigen::Infinity>();
      r.converged = r.residual == 0.0;
      if (!r.converged) r.message = "lie-del: d ell/d xi (0) != 0 at rest";
      return r;
    }
    Matrix J_cache, J_last;
    const auto F = [&](const Algebra& z) -> Algebra { return psi(z, h, &J_cache) - b; };
    const auto DF = [&](const Algebra&) -> Matrix {
      J_last = J_cache;
      return J_cache;
    };
    // simplified Newton with the last Jacobian: confirms convergence without a new Jacobian (solve::newton)
    const auto approx = [&](const Algebra& r) -> Algebra {
      Algebra d;
      if (!solve::solve_small<dof>(J_last, r, d)) d.setConstant(std::numeric_limits<double>::infinity());
      return d;
    };
    return solve::newton<dof>(F, DF, xi, scale, newton_, approx);
  }

  /// One step (1)-(3) of x = (g_k, p_k, t_k), in place on success; x unchanged on failure.
  StepResult step(State& x, double h) {
    const Algebra gradV_k = grad_V(m_, x.g);
    const Algebra b = x.p - (0.5 * h) * gradV_k;
    Algebra xi = guess(b);
    const double scale = std::max(x.p.template lpNorm<Eigen::Infinity>(), b.template lpNorm<Eigen::Infinity>());
    StepResult r = solve_xi(b, h, scale, xi);
    if (!r.converged) return r;
    const Group g_kp1 = x.g * R::tau(h * xi);                                  // (2)
    const auto d = kinetic_derivatives(m_, xi);
    const Algebra p_kp1 = R::dtau_inv_star(-h * xi) * d.mu - (0.5 * h) * grad_V(m_, g_kp1);  // (3)
    if (!p_kp1.allFinite() || !g_kp1.matrix().allFinite()) {
      r.converged = false;
      r.message = msg_lie_del_nonfinite;
      return r;
    }
    x.g = g_kp1;
    x.p = p_kp1;
    x.t += h;
    remember(xi);
    return r;
  }

  /// The Euler-Poincare (reduced) step of a G-invariant system (no V): the update on mu alone,
  ///   (dtau^{-1}_{h xi})^* mu(xi) = mu_k,   mu_{k+1} = (dtau^{-1}_{-h xi})^* mu(xi) = Ad*_{tau(h xi)} mu_k;
  /// the configuration, if wanted, is reconstructed by g_{k+1} = g_k tau(h xi()).
  StepResult reduced_step(Algebra& mu, double h) {
    Algebra xi = guess(mu);
    StepResult r = solve_xi(mu, h, mu.template lpNorm<Eigen::Infinity>(), xi);
    if (!r.converged) return r;
    const auto d = kinetic_derivatives(m_, xi);
    mu = R::dtau_inv_star(-h * xi) * d.mu;
    remember(xi);
    return r;
  }

  /// The reduced (Lie-Poisson on so(3)* x R^3) form of (1)-(3) for an AdvectedSO3Model:
  ///   (dtau^{-1}_{h xi})^* mu(xi) = Pi_k - (h/2) grad_V(Gamma_k),   Gamma_{k+1} = tau(h xi)^T Gamma_k,
  ///   Pi_{k+1} = (dtau^{-1}_{-h xi})^* mu(xi) - (h/2) grad_V(Gamma_{k+1}).
  /// Gamma is rotated by an orthogonal matrix, so |Gamma|^2 is kept to round-off; Pi . Gamma is the momentum map
  /// of rotations about a (Noether), kept to round-off as well. In place on success, unchanged on failure.
  StepResult advected_step(AdvectedState& x, double h)
    requires AdvectedSO3Model<M>
  {
    const Algebra b = x.Pi - (0.5 * h) * m_.grad_V_reduced(x.Gamma);
    Algebra xi = guess(b);
    StepResult r = solve_xi(b, h, std::max(x.Pi.template lpNorm<Eigen::Infinity>(), b.template lpNorm<Eigen::Infinity>()), xi);
    if (!r.converged) return r;
    const lie::Vec3 Gamma_kp1 = R::tau(h * xi).matrix().transpose() * x.Gamma;
    const auto d = kinetic_derivatives(m_, xi);
    x.Pi = R::dtau_inv_star(-h * xi) * d.mu - (0.5 * h) * m_.grad_V_reduced(Gamma_kp1);
    x.Gamma = Gamma_kp1;
    x.t += h;
    remember(xi);
    return r;
  }

 private:
  /// Newton's start: the linear extrapolation 2 xi_{k-1} - xi_{k-2} (O(h^2) from the solution along a smooth
  /// run) after two steps, xi_{k-1} after one, else ell''(0)^{-1} (b - mu(0)) (O(h) for a quadratic ell).
  Algebra guess(const Algebra& b) const {
    if (warm_ >= 2) return 2.0 * xi_ - xi_prev_;
    if (warm_ == 1) return xi_;
    const auto d0 = kinetic_derivatives(m_, Algebra::Zero());
    return Eigen::PartialPivLU<Matrix>(d0.ell_xixi).solve(Algebra(b - d0.mu));
  }
  void remember(const Algebra& xi) {
    xi_prev_ = xi_;
    xi_ = xi;
    warm_ = std::min(warm_ + 1, 2);
  }

  M m_;
  solve::NewtonOptions newton_;
  Algebra xi_ = Algebra::Zero(), xi_prev_ = Algebra::Zero();
  int warm_ = 0;  ///< number of remembered xi (0, 1, 2)
};

}  // namespace lievi::integrators::lie_del
