#pragma once
/// @file lievi/integrators/ddb_group.hpp
/// @brief The basic DDB integrator over a matrix Lie group G (SO(3), SE(3)) and a retraction on it (Cayley, exp),
/// for a quadratic Hamiltonian H = ½ mu · A^{-1} mu with double-bracket dissipation phi(xi) = K ad*_xi (A xi)
/// (the DDB paper, §4, stated there for any Lie group; docs/theory/ddb.md "DDB on se(3)*: Kirchhoff's body").
///
/// One step mu_k -> mu_{k+1}, g_k -> g_{k+1}:
///  (a) solve  psi_h(xi) = (dtau_{h xi}^{-1})^* A xi = mu_k  for xi by Newton, with the Jacobian
///      D psi = (dtau_{h xi}^{-1})^* A + h J_x[(dtau_x^{-1})^* p]|_{x = h xi, p = A xi},
///  (b) w_k = tau(h xi),  phi_k = phi(xi) = K ad*_xi (A xi),
///  (c) mu_{k+1} = Ad*_{w_k tau(h phi_k)} mu_k = Ad*_{tau(h phi_k)} ( Ad*_{tau(h xi)} mu_k )  (eq. (4.12)),
///      g_{k+1} = g_k w_k.
/// Conventions (lie/concepts.hpp): <mu, xi> = mu · xi, ad*_xi = ad_xi^T, Ad*_g = Ad_g^T, right-trivialised
/// tangents T_x tau(y) = hat(dtau_x y) tau(x).
///
/// Step (c) is a coadjoint action, so every Casimir is kept exactly in exact arithmetic; in floating point each
/// factor is applied as an increment Ad*_{tau(x)} mu - mu = O(|x|) (written in closed form per group, see
/// `CoadjointIncrement`), and mu_{k+1} = mu_k + (delta_1 + delta_2) is summed with Kahan compensation whose
/// residue is carried across steps, as in integrators/ddb.hpp. On SO(3) the update is the same sequence of
/// operations as DDB::update (equal bitwise for the same xi, tested); step (a) runs the generic Newton, so whole
/// trajectories agree with DDB to round-off, not bitwise.
///
/// Orders: 1 for K != 0 (the dissipation factor is explicit in xi_k), 2 at K = 0, where the method is the
/// variational Lie–Poisson integrator of the retraction (bounded energy error).
/// Limits: with exp every continuous equilibrium (ad*_xi mu = 0) is a fixed point of the step, so the method
/// converges to the minimum-energy set itself; with Cayley on SE(3) a screw equilibrium (Omega not parallel to V)
/// is displaced by O(h^2) (energy O(h^4)); on SO(3) both are exact (docs/theory/ddb.md "DDB on se(3)*").
#include <Eigen/Core>
#include <cmath>
#include <limits>
#include <type_traits>

#include "lievi/core/error.hpp"
#include "lievi/core/state_io.hpp"
#include "lievi/integrators/ddb.hpp"
#include "lievi/integrators/rigid_body_stepper.hpp"
#include "lievi/lie/bernoulli.hpp"
#include "lievi/lie/retraction/cayley.hpp"
#include "lievi/lie/retraction/exp.hpp"
#include "lievi/lie/se3.hpp"
#include "lievi/lie/so3.hpp"
#include "lievi/models/kirchhoff.hpp"
#include "lievi/solve/newton.hpp"

namespace lievi::integrators {

/// The Jacobian J_x[(dtau_x^{-1})^* p] of a retraction, for the Newton iteration of step (a): the retraction's
/// closed form `R::J_dtau_inv_star_x` where it has one.
template <class R>
struct DtauInvStarJacobian {
  using Vec = typename R::Group::Algebra;
  using Mat = typename R::Group::Matrix;
  static Mat get(const Vec& x, const Vec& p) { return R::J_dtau_inv_star_x(x, p); }
};

/// exp on SE(3) (no closed form in lie/): from the Bernoulli series (dexp_x^{-1})^* p = sum_k b_k (ad*_x)^k p,
/// b_k = B_k/k!:  with q_k = (ad*_x)^k p and ad*_x q = C(q) x (C = SE3::J_ad_star_x),
///   D_0 = 0,  D_k = d q_k / dx = ad*_x D_{k-1} + C(q_{k-1}),   J = sum_k b_k D_k.
/// The series converges for |omega| < 2 pi (the pole of dexp^{-1}); it is summed until an even term is below
/// 1e-17 of the sum (plus 1e-300), at most to k = `max_order`. Tested against central differences.
template <>
struct DtauInvStarJacobian<lie::Exp<lie::SE3>> {
  static constexpr int max_order = 60;
  static lie::Mat6 get(const lie::Vec6& x, const lie::Vec6& p) {
    const lie::Mat6 adT = lie::SE3::ad(x).transpose();
    lie::Vec6 q = p;
    lie::Mat6 D = lie::Mat6::Zero();
    lie::Mat6 J = lie::Mat6::Zero();
    for (int k = 1; k <= max_order; ++k) {
      D = (adT * D).eval() + lie::SE3::J_ad_star_x(q);
      q = (adT * q).eval();
      const double b = lie::bernoulli::over_factorial[static_cast<std::size_t>(k)];
      if (b == 0.0) continue;
      J += b * D;
      if (k >= 2 && std::abs(b) * D.lpNorm<Eigen::Infinity>() <= 1e-17 * J.lpNorm<Eigen::Infinity>() + 1e-300) break;
    }
    return J;
  }
};

/// The SO(3) retraction that a retraction on G applies to rotations (tau on SE(3) has rotation part tau on SO(3)).
template <class R>
struct RotationRetraction;
template <>
struct RotationRetraction<lie::Cayley<lie::SO3>> {
  using type = lie::Cayley<lie::SO3>;
};
template <>
struct RotationRetraction<lie::Exp<lie::SO3>> {
  using type = lie::Exp<lie::SO3>;
};
template <>
struct RotationRetraction<lie::Cayley<lie::SE3>> {
  using type = lie::Cayley<lie::SO3>;
};
template <>
struct RotationRetraction<lie::Exp<lie::SE3>> {
  using type = lie::Exp<lie::SO3>;
};

/// Ad*_{tau(x)} mu - mu and g tau(x), per group, as increments of size O(|x|) (step (c) and the reconstruction).
template <class G, class R>
struct CoadjointIncrement;

/// SO(3): Ad*_{tau(x)} mu = tau(x)^T mu = tau(-x) mu, so the increment is tau(-x) mu - mu =
/// a y × mu + b y × (y × mu), y = -x (RotationCoefficients; the operations of DDB::update).
template <class R>
struct CoadjointIncrement<lie::SO3, R> {
  using Rot = typename RotationRetraction<R>::type;
  /// The data of tau(x) used by `delta` and `advance`: y = -x and the coefficients a(y), b(y).
  struct Factor {
    lie::Vec3 y;
    double a, b;
  };
  static Factor factor(const lie::Vec3& x) {
    Factor f;
    f.y = -x;
    RotationCoefficients<Rot>::get(f.y, f.a, f.b);
    return f;
  }
  /// out = Ad*_{tau(x)} mu - mu.
  static void delta(const Factor& f, const double* mu, double* out) {
    DDB<Rot>::increment3(f.y, f.a, f.b, mu, out);
  }
  /// g <- g tau(x), row-wise: row_i(R tau(x)) = tau(-x) row_i(R) = row_i + increment.
  static void advance(lie::SO3& g, const Factor& f) {
    lie::Mat3 Rg = g.matrix();
    for (int i = 0; i < 3; ++i) {
      const double row[3] = {Rg(i, 0), Rg(i, 1), Rg(i, 2)};
      double inc[3];
      DDB<Rot>::increment3(f.y, f.a, f.b, row, inc);
      for (int j = 0; j < 3; ++j) Rg(i, j) = row[j] + inc[j];
    }
    g = lie::SO3(Rg);
  }
};

/// SE(3): tau(x) = (Q, t) with Q = tau_SO3(omega) and t the translation of the retraction (Cayley:
/// (4v + 2 omega × v + (omega·v) omega)/(4 + |omega|^2); exp: J_l(omega) v), x = (omega, v). With
/// Ad*_{(Q,t)} (m, n) = (Q^T (m - t × n), Q^T n) and Q^T u = u + a y × u + b y × (y × u), y = -omega:
///   delta_n = inc(n),   delta_m = -t × n + inc(m - t × n).
template <class R>
struct CoadjointIncrement<lie::SE3, R> {
  using Rot = typename RotationRetraction<R>::type;
  struct Factor {
    lie::Vec3 y;  ///< -omega
    double a, b;  ///< rotation coefficients of tau_SO3(y)
    lie::Vec3 t;  ///< translation of tau(x)
  };
  static Factor factor(const lie::Vec6& x) {
    Factor f;
    const lie::Vec3 omega = x.head<3>(), v = x.tail<3>();
    f.y = -omega;
    RotationCoefficients<Rot>::get(f.y, f.a, f.b);
    if constexpr (std::is_same_v<Rot, lie::Cayley<lie::SO3>>) {
      f.t = (4.0 * v + 2.0 * omega.cross(v) + omega.dot(v) * omega) / (4.0 + omega.squaredNorm());
    } else {
      const double th = omega.norm();
      const lie::Vec3 wv = omega.cross(v);
      f.t = v + lie::so3_series::one_minus_cos_over_t2(th) * wv +
            lie::so3_series::t_minus_sin_over_t3(th) * omega.cross(wv);
    }
    return f;
  }
  static void delta(const Factor& f, const double* mu, double* out) {
    const lie::Vec3 n(mu[3], mu[4], mu[5]);
    const lie::Vec3 txn = f.t.cross(n);
    const double mp[3] = {mu[0] - txn(0), mu[1] - txn(1), mu[2] - txn(2)};
    double im[3];
    DDB<Rot>::increment3(f.y, f.a, f.b, mp, im);
    DDB<Rot>::increment3(f.y, f.a, f.b, mu + 3, out + 3);
    for (int i = 0; i < 3; ++i) out[i] = im[i] - txn(i);
  }
  /// g <- g tau(x) = (R Q, p + R t).
  static void advance(lie::SE3& g, const Factor& f) {
    lie::Mat3 Rg = g.rotation();
    const lie::Vec3 p = g.translation() + Rg * f.t;
    for (int i = 0; i < 3; ++i) {
      const double row[3] = {Rg(i, 0), Rg(i, 1), Rg(i, 2)};
      double inc[3];
      DDB<Rot>::increment3(f.y, f.a, f.b, row, inc);
      for (int j = 0; j < 3; ++j) Rg(i, j) = row[j] + inc[j];
    }
    g = lie::SE3(Rg, p);
  }
};

/// The basic DDB method on g* for the group G and the retraction `Retraction` on G (Cayley<G>, Exp<G>; G = SO3
/// or SE3), stepping a `models::QuadraticLiePoisson<G>`. Owns its workspace (the Kahan residue and the last xi);
/// no allocation in `step`.
template <class G, class Retraction, Summation Sum = Summation::compensated>
class DDBGroup {
 public:
  using R = Retraction;
  using Vec = typename G::Algebra;
  using Mat = typename G::Matrix;
  using Model = models::QuadraticLiePoisson<G>;
  using State = models::LiePoissonState<G>;
  static constexpr int N = G::dof;
  static_assert(lie::Retraction<R, G>);
  /// Smallest step-size increment of step (a)'s continuation (as DDB's).
  static constexpr double continuation_min_increment = 1.0 / 1024;
  static constexpr MethodTraits traits{"ddb", 1, true, true, true, false,
                                       "DDB on a Lie group (SO(3), SE(3)), quadratic H, double-bracket dissipation: "
                                       "order 1 (2 at K = 0), implicit (a), Casimirs to round-off"};

  explicit DDBGroup(const Model& model, const solve::NewtonOptions& newton = {}) : m_(model), newton_(newton) {}

  [[nodiscard]] const Model& model() const { return m_; }
  /// xi of the last step (w_k = tau(h xi)).
  [[nodiscard]] const Vec& xi() const { return xi_; }
  /// The compensated-summation residue carried to the next step.
  [[nodiscard]] const Vec& residue() const { return c_; }

  /// Reset the carried state before a run.
  void start() {
    c_.setZero();
    xi_.setZero();
  }

  /// psi_h(xi) = (dtau_{h xi}^{-1})^* A xi  (step (a); eq. (4.11) with M_k = (dtau^{-1})^* p_k).
  [[nodiscard]] Vec psi(const Vec& xi, double h) const { return R::dtau_inv_star_apply(h * xi, m_.A * xi); }

  /// D psi_h(xi) = (dtau_{h xi}^{-1})^* A + h J_x[(dtau_x^{-1})^* p]|_{x = h xi, p = A xi}.
  [[nodiscard]] Mat Dpsi(const Vec& xi, double h) const {
    const Vec x = h * xi;
    return R::dtau_inv_star(x) * m_.A + h * DtauInvStarJacobian<R>::get(x, m_.A * xi);
  }

  /// Start guess xi^0 = A^{-1}(mu + (h/2) ad*_omega mu), omega = A^{-1} mu: psi_h(xi) = p - (h/2) ad*_xi p + O(h^2)
  /// (dexp^{-1} and dcay^{-1} both start I - ½ ad_x), so the guess is O(h^2) accurate. On SO(3) this is DDB's
  /// I^{-1}(M - (h/2) omega × M).
  [[nodiscard]] Vec initial_guess(const Vec& mu, double h) const {
    const Vec omega = m_.A_inv * mu;
    return m_.A_inv * (mu + (0.5 * h) * G::ad_star(omega, mu));
  }

  /// Step (a): Newton for psi_h(xi) = mu_k from the start guess; on failure (very large h only) a continuation in
  /// the step size from xi = A^{-1} mu_k at h = 0 (as DDB::solve_xi).
  StepResult solve_xi(const Vec& mu, double h, Vec& xi) const {
    if (!mu.allFinite() || !std::isfinite(h)) {
      StepResult bad;
      bad.converged = false;
      bad.residual = std::numeric_limits<double>::quiet_NaN();
      bad.message = "DDB step (a): non-finite mu_k or h";
      return bad;
    }
    xi = initial_guess(mu, h);
    StepResult r = newton_at(mu, h, xi);
    if (r.converged) return r;
    int iterations = r.iterations;
    Vec z = m_.A_inv * mu;
    const auto at = [&](double s, Vec& x) { return newton_at(mu, h * s, x); };
    if (solve::continuation(at, z, iterations, continuation_min_increment)) {
      xi = z;
      r = newton_at(mu, h, xi);
      r.iterations += iterations;
      if (r.converged) return r;
    }
    r.iterations = iterations;
    r.converged = false;
    r.message = "DDB step (a): Newton did not converge (reduce the time step)";
    return r;
  }

  /// One DDB step (a)-(c) of (mu, g) with step h. Numerical failure is returned; on failure x is unchanged.
  StepResult step(State& x, double h) {
    Vec xi;
    StepResult res = solve_xi(x.mu, h, xi);
    if (!res.converged) return res;
    xi_ = xi;
    // (b) phi_k = K ad*_xi (A xi)
    const Vec phi_k = m_.phi(xi);
    // (c)
    update(x, c_, xi, phi_k, h);
    if (!x.mu.allFinite()) {
      res.converged = false;
      res.message = "DDB: non-finite state after step (c)";
    }
    return res;
  }

  /// Step (c) and the reconstruction for given xi_k, phi_k:
  ///   mu_{k+1} = Ad*_{tau(h phi_k)} ( Ad*_{tau(h xi_k)} mu_k ),   g_{k+1} = g_k tau(h xi_k),
  /// with mu_{k+1} = mu_k + (delta_1 + delta_2) added by Kahan summation against the carried residue c.
  static void update(State& x, Vec& c, const Vec& xi, const Vec& phi_k, double h) {
    using Inc = CoadjointIncrement<G, R>;
    const auto f_xi = Inc::factor(h * xi);
    const auto f_phi = Inc::factor(h * phi_k);
    double mk[N], d1[N], d2[N], mp[N];
    for (int i = 0; i < N; ++i) mk[i] = x.mu(i);
    Inc::delta(f_xi, mk, d1);
    for (int i = 0; i < N; ++i) mp[i] = mk[i] + d1[i];
    Inc::delta(f_phi, mp, d2);
    for (int i = 0; i < N; ++i) {
      if constexpr (Sum == Summation::compensated) {
        const double y = (d1[i] + d2[i]) - c(i);
        const double t = mk[i] + y;
        c(i) = (t - mk[i]) - y;
        x.mu(i) = t;
      } else {
        x.mu(i) = mk[i] + (d1[i] + d2[i]);
      }
    }
    Inc::advance(x.g, f_xi);
  }

 private:
  StepResult newton_at(const Vec& mu, double h, Vec& xi) const {
    const auto F = [&](const Vec& z) -> Vec { return psi(z, h) - mu; };
    const auto DF = [&](const Vec& z) -> Mat { return Dpsi(z, h); };
    const auto approx = [&](const Vec& r) -> Vec { return m_.A_inv * r; };  // D psi = A + O(h)
    return solve::newton<N>(F, DF, xi, mu.template lpNorm<Eigen::Infinity>(), newton_, approx);
  }

  Model m_;
  solve::NewtonOptions newton_;
  Vec c_ = Vec::Zero();   ///< Kahan residue of mu, carried across steps
  Vec xi_ = Vec::Zero();  ///< xi of the last step

 public:
  /// The carried state (checkpoints): the Kahan residue and the last xi.
  void state(StateIO& a) {
    a("c", c_);
    a("xi", xi_);
  }
};

using DDBKirchhoffCayley = DDBGroup<lie::SE3, lie::Cayley<lie::SE3>>;
using DDBKirchhoffExp = DDBGroup<lie::SE3, lie::Exp<lie::SE3>>;

}  // namespace lievi::integrators
