#pragma once
/// @file lievi/integrators/ddb_group_symmetric.hpp
/// @brief The symmetric DDB (the DDB paper's Remark 4.10, midpoint quadrature of the dissipation) over a matrix
/// Lie group G (SO(3), SE(3)), with the start/output processing that makes it second order
/// (docs/theory/ddb.md "The symmetric DDB" for SO(3), "DDB on se(3)*: Kirchhoff's body" for the generic form).
///
/// The recursion carries xi_k. With mu'_k = Ad*_{tau(h xi_k)} mu~_k, the unknown z = xi_{k+1} solves
///   G(z) = psi_h(z) - Ad*_{tau(h phibar(z))} mu'_k = 0,   phibar(z) = phi((xi_k + z)/2),
/// by Newton with
///   DG = D psi(z) - Ad*_{tau(y)} C(mu'_k) dtau_y h D phibar(z),  y = h phibar(z),  D phibar = ½ D phi((xi_k+z)/2),
///   D phi(xi) = K (C(A xi) + ad_xi^T A),   C(nu) = d(ad*_x nu)/dx,
/// (d/dy Ad*_{tau(y)} nu = Ad*_{tau(y)} C(nu) dtau_y from tau(y + d) = exp(dtau_y d) tau(y) to first order), then
/// mu~_{k+1} = Ad*_{tau(h phibar)} mu'_k (DDBGroup::update: increments, Kahan), g_{k+1} = g_k tau(h xi_k).
/// Processing: the recursion starts from mu~_0 = Ad*_{tau((h/2) phi(A^{-1} mu_0))} mu_0 and reports
/// mu_k = Ad*_{tau(-(h/2) phi(A^{-1} mu~_k))} mu~_k; both are coadjoint actions, so the Casimirs are untouched.
/// On SO(3) this is DDBSymmetric<R, midpoint> of ddb_symmetric.hpp (Ad*_{tau(x)} = tau(-x)).
#include <Eigen/Core>
#include <cmath>

#include "lievi/core/error.hpp"
#include "lievi/integrators/ddb_group.hpp"
#include "lievi/lie/concepts.hpp"

namespace lievi::integrators {

/// Symmetric (Remark 4.10, midpoint) DDB on g* for the group G and a retraction on it, processed start and output.
template <class G, class Retraction>
class DDBGroupSymmetric {
 public:
  using R = Retraction;
  using Basic = DDBGroup<G, R>;
  using Vec = typename G::Algebra;
  using Mat = typename G::Matrix;
  using Model = models::QuadraticLiePoisson<G>;
  using State = models::LiePoissonState<G>;
  static constexpr int N = G::dof;
  static constexpr MethodTraits traits{"ddb-symmetric", 2, true, true, true, false,
                                       "symmetric DDB (Remark 4.10, midpoint) on a Lie group with start/output "
                                       "processing: order 2, implicit, Casimirs to round-off"};

  explicit DDBGroupSymmetric(const Model& model, bool symmetric_processing = true,
                             const solve::NewtonOptions& newton = {})
      : m_(model), ddb_(model, newton), newton_(newton), processing_(symmetric_processing) {}

  [[nodiscard]] const Model& model() const { return m_; }
  /// xi_k of the recursion.
  [[nodiscard]] const Vec& xi() const { return xi_k_; }

  /// phibar(z) = phi((xi_k + z)/2).
  [[nodiscard]] Vec phibar(const Vec& xi_k, const Vec& z) const { return m_.phi(0.5 * (xi_k + z)); }
  /// D phi(xi) = K (C(A xi) + ad_xi^T A).
  [[nodiscard]] Mat Dphi(const Vec& xi) const {
    return m_.K * (G::J_ad_star_x(m_.A * xi) + G::ad(xi).transpose() * m_.A);
  }
  /// G(z) = psi_h(z) - Ad*_{tau(h phibar(z))} mu'  (increment form of step (c)).
  [[nodiscard]] Vec residual(const Vec& xi_k, const Vec& mu_prime, const Vec& z, double h) const {
    return ddb_.psi(z, h) - act(h * phibar(xi_k, z), mu_prime);
  }
  /// DG(z) as above.
  [[nodiscard]] Mat Jacobian(const Vec& xi_k, const Vec& mu_prime, const Vec& z, double h) const {
    const Vec y = h * phibar(xi_k, z);
    return ddb_.Dpsi(z, h) - lie::Ad_star_matrix(R::tau(y)) * G::J_ad_star_x(mu_prime) * R::dtau(y) *
                                 ((0.5 * h) * Dphi(0.5 * (xi_k + z)));
  }

  /// Prepare a run from x0 with step h (the same h in every `step`): mu~_0 (processed or not), g_0, residue 0.
  void start(const State& x0, double h) {
    s_ = x0;
    h_ = h;
    c_.setZero();
    xi_k_.setZero();
    xi_km1_.setZero();
    have_xi_ = false;
    if (processing_) {
      // mu~_0 = Ad*_{tau((h/2) phi(A^{-1} mu_0))} mu_0 as mu_0 + delta, the rounding kept in the residue.
      const Vec delta = increment((0.5 * h) * m_.phi(m_.xi(x0.mu)), x0.mu);
      for (int i = 0; i < N; ++i) {
        const double t = x0.mu(i) + delta(i);
        c_(i) = (t - x0.mu(i)) - delta(i);
        s_.mu(i) = t;
      }
    }
  }

  /// One step of the recursion; writes the reported (mu_k, g_k) into x. Failure is returned, state unchanged.
  StepResult step(State& x, double h) {
    StepResult res;
    int iterations = 0;
    Vec xi_k = xi_k_;
    h_ = h;
    if (!have_xi_) {
      res = ddb_.solve_xi(s_.mu, h, xi_k);  // xi_0 from mu~_0 by step (a) of the basic DDB
      if (!res.converged) return res;
      iterations = res.iterations;
    }
    const Vec mu_prime = act(h * xi_k, s_.mu);
    Vec z = have_xi_ ? Vec(2.0 * xi_k - xi_km1_)  // predictor, O(h^2)
                     : ddb_.initial_guess(act(h * m_.phi(xi_k), mu_prime), h);
    res = newton_xi_kp1(xi_k, mu_prime, h, z);
    if (!res.converged) {
      const int it = res.iterations;
      z = ddb_.initial_guess(mu_prime, h);
      res = newton_xi_kp1(xi_k, mu_prime, h, z);
      res.iterations += it;
    }
    res.iterations += iterations;
    if (!res.converged) {
      res.message = "ddb-symmetric: Newton for xi_{k+1} did not converge (reduce the time step)";
      return res;
    }
    Basic::update(s_, c_, xi_k, phibar(xi_k, z), h);  // mu~_{k+1}, g_{k+1} = g_k tau(h xi_k)
    xi_km1_ = xi_k;
    xi_k_ = z;
    have_xi_ = true;
    x.g = s_.g;
    x.mu = reported_mu();
    if (!x.mu.allFinite()) {
      res.converged = false;
      res.message = "ddb-symmetric: non-finite state after the step";
    }
    return res;
  }

  /// mu_k = Ad*_{tau(-(h/2) phi(A^{-1} mu~_k))} mu~_k (processing on), with the Kahan residue folded in.
  [[nodiscard]] Vec reported_mu() const {
    if (!processing_) return s_.mu;
    const Vec delta = increment(-(0.5 * h_) * m_.phi(m_.xi(s_.mu)), s_.mu);
    return s_.mu + (delta - c_);
  }

 private:
  /// Ad*_{tau(x)} v - v (CoadjointIncrement: the operations of step (c)).
  static Vec increment(const Vec& x, const Vec& v) {
    using Inc = CoadjointIncrement<G, R>;
    double in[N], out[N];
    for (int i = 0; i < N; ++i) in[i] = v(i);
    Inc::delta(Inc::factor(x), in, out);
    Vec d;
    for (int i = 0; i < N; ++i) d(i) = out[i];
    return d;
  }
  static Vec act(const Vec& x, const Vec& v) { return v + increment(x, v); }

  StepResult newton_xi_kp1(const Vec& xi_k, const Vec& mu_prime, double h, Vec& z) const {
    const auto F = [&](const Vec& zz) -> Vec { return residual(xi_k, mu_prime, zz, h); };
    const auto DF = [&](const Vec& zz) -> Mat { return Jacobian(xi_k, mu_prime, zz, h); };
    const auto approx = [&](const Vec& r) -> Vec { return m_.A_inv * r; };  // DG = A + O(h)
    return solve::newton<N>(F, DF, z, mu_prime.template lpNorm<Eigen::Infinity>(), newton_, approx);
  }

  Model m_;
  Basic ddb_;
  solve::NewtonOptions newton_;
  bool processing_;
  State s_;                   ///< recursion state: mu~_k, g_k
  double h_ = 0.0;
  Vec c_ = Vec::Zero();       ///< Kahan residue of mu~
  Vec xi_k_ = Vec::Zero();
  Vec xi_km1_ = Vec::Zero();
  bool have_xi_ = false;

 public:
  /// The carried state (checkpoints): the recursion's mu~_k and g_k, h, the Kahan residue, xi_k, xi_{k-1}.
  void state(StateIO& a) {
    a("mu_tilde", s_.mu);
    typename G::Embedding g = s_.g.matrix();  // the group element by its matrix (SO3 has no StateDoubles)
    a("g", g);
    if (a.restoring()) s_.g = G(g);
    a("h", h_);
    a("c", c_);
    a("xi_k", xi_k_);
    a("xi_km1", xi_km1_);
    a("have_xi", have_xi_);
  }
};

}  // namespace lievi::integrators
