#pragma once
/// @file lievi/integrators/ddb_symmetric.hpp
/// @brief The symmetric DDB of seed 002 Remark 4.10 with the start/output correction of docs/theory/ddb.md
/// ("The symmetric DDB"; `ddb-symmetric`), templated on the SO(3) retraction (Cayley, exp, exp2) and the
/// dissipation quadrature.
///
/// The method carries xi_k. One step:
///   M'_k = tau(-h xi_k) M_k,
///   solve  G(z) = psi_h(z) - tau(-h phibar(z)) M'_k = 0  for z = xi_{k+1}  (Newton),
///   M_{k+1} = tau(-h phibar(z)) M'_k,   R_{k+1} = R_k tau(h xi_k),
/// with psi_h(xi) = (dtau_{h xi}^{-1})^T I xi (step (a) of the basic DDB) and
///   midpoint:  phibar(z) = phi((xi_k + z)/2),      trapezoid:  phibar(z) = ½ (phi(xi_k) + phi(z)),
/// phi(xi) = K ((I xi) × xi). Newton Jacobian:
///   DG = D psi(z) - h M^_{k+1} dtau_{-h phibar} D phibar(z),   D phi(xi) = K ((I xi)^ - xi^ I),
///   midpoint D phibar = ½ D phi((xi_k + z)/2),  trapezoid D phibar = ½ D phi(z);
/// predictor z^0 = 2 xi_k - xi_{k-1}; xi_0 from M_0 by step (a) of the basic DDB (DDB::solve_xi).
///
/// Processing (`symmetric_processing = true`, the default): the map between M and p = I xi absorbs
/// half a step of the conservative flow and none of the dissipative one, so the raw scheme (start from
/// M_0 = mu(t_0), read M_k as mu(t_k)) is only first order. The corrected method runs the recursion above on
///   M~_0 = tau(-(h/2) phi(I^{-1} M_0)) M_0   and reports   M_k = tau(+(h/2) phi(I^{-1} M~_k)) M~_k,
/// which gives order 2. Both maps are rotations, so |M|^2 is untouched. With `symmetric_processing = false`
/// the recursion runs on M_k itself (the paper's form, first order).
///
/// Floating point: the recursion's M~ is updated by DDB::update (step (c) as increments with Kahan summation,
/// residue carried across steps) and the reported M = M~ + (delta - c) folds the residue in, so |M|^2 stays at
/// round-off for any run length. h must be the same in `start` and every `step`.
#include <Eigen/Core>
#include <cmath>
#include <limits>
#include <type_traits>

#include "lievi/core/error.hpp"
#include "lievi/integrators/ddb.hpp"
#include "lievi/integrators/rigid_body_stepper.hpp"
#include "lievi/lie/retraction/cayley.hpp"
#include "lievi/lie/retraction/exp.hpp"
#include "lievi/lie/so3.hpp"
#include "lievi/models/rigid_body.hpp"
#include "lievi/solve/newton.hpp"

namespace lievi::integrators {

/// The dissipation quadrature phibar of Remark 4.10.
enum class DissipationQuadrature {
  midpoint,   ///< phibar = phi((xi_k + xi_{k+1})/2)
  trapezoid,  ///< phibar = ½ (phi(xi_k) + phi(xi_{k+1}))
};

/// The right-trivialised tangent dtau_x of the map that step (c) actually applies. For exp2 that map is exp
/// itself (only psi uses the truncated dexp^{-1}), so its tangent is the closed-form dexp.
template <class R>
struct AppliedRotationTangent {
  static lie::Mat3 dtau(const lie::Vec3& x) { return R::dtau(x); }
};
template <>
struct AppliedRotationTangent<lie::Exp2<lie::SO3>> {
  static lie::Mat3 dtau(const lie::Vec3& x) { return lie::Exp<lie::SO3>::dtau(x); }
};

/// Traits of ddb-symmetric for a retraction, processing on or off.
template <class R>
constexpr MethodTraits ddb_symmetric_traits(bool symmetric_processing) {
  constexpr bool exp2 = std::is_same_v<R, lie::Exp2<lie::SO3>>;
  if (symmetric_processing)
    return {"ddb-symmetric", 2, true, true, !exp2,
            false,
            exp2 ? "symmetric DDB (Remark 4.10) with start/output correction, tau = exp, truncated dexp^-1: order 2, "
                   "implicit, |M|^2 to round-off, not exactly variational"
                 : "symmetric DDB (Remark 4.10) with start/output correction: order 2, implicit, |M|^2 to round-off, "
                   "symplectic at alpha = 0"};
  return {"ddb-symmetric", 1, true, true, !exp2, false,
          "symmetric DDB as printed in Remark 4.10 (no processing): order 1 (2 at alpha = 0), implicit, |M|^2 to "
          "round-off"};
}

/// The symmetric DDB method over `Retraction` (Cayley<SO3>, Exp<SO3>, Exp2<SO3>) and the quadrature `Q`.
/// Owns its workspace: the recursion's M~_k, R_k, xi_k, xi_{k-1} and the Kahan residue. No allocation in step.
template <class Retraction, DissipationQuadrature Q = DissipationQuadrature::midpoint>
class DDBSymmetric {
 public:
  using R = Retraction;
  using Vec3 = lie::Vec3;
  using Mat3 = lie::Mat3;
  using Basic = DDB<Retraction>;

  DDBSymmetric(const models::RigidBody& body, bool symmetric_processing = true,
               const solve::NewtonOptions& newton = {})
      : b_(body), ddb_(body, newton), newton_(newton), processing_(symmetric_processing) {}

  [[nodiscard]] MethodTraits traits() const { return ddb_symmetric_traits<R>(processing_); }
  [[nodiscard]] const models::RigidBody& model() const { return b_; }
  [[nodiscard]] bool symmetric_processing() const { return processing_; }
  /// xi_k of the recursion (after k steps; before the first step: 0).
  [[nodiscard]] const Vec3& xi() const { return xi_k_; }
  /// The recursion's momentum M~_k (equal to the reported M_k without processing).
  [[nodiscard]] const Vec3& internal_M() const { return s_.M; }

  /// phibar(z) for given xi_k.
  [[nodiscard]] Vec3 phibar(const Vec3& xi_k, const Vec3& z) const {
    if constexpr (Q == DissipationQuadrature::midpoint) {
      return b_.phi(0.5 * (xi_k + z));
    } else {
      return 0.5 * (b_.phi(xi_k) + b_.phi(z));
    }
  }
  /// D phi(xi) = K ((I xi)^ - xi^ I).
  [[nodiscard]] Mat3 Dphi(const Vec3& xi) const { return b_.K * (lie::hat(b_.I * xi) - lie::hat(xi) * b_.I); }
  /// D phibar(z) = ½ D phi((xi_k + z)/2) (midpoint) or ½ D phi(z) (trapezoid).
  [[nodiscard]] Mat3 Dphibar(const Vec3& xi_k, const Vec3& z) const {
    if constexpr (Q == DissipationQuadrature::midpoint) {
      return 0.5 * Dphi(0.5 * (xi_k + z));
    } else {
      return 0.5 * Dphi(z);
    }
  }

  /// G(z) = psi_h(z) - tau(-h phibar(z)) M'_k.
  [[nodiscard]] Vec3 G(const Vec3& z, const Vec3& xi_k, const Vec3& M_prime, double h) const {
    typename Basic::PsiTerms t;
    return ddb_.psi_fused(z, h, t) - rotate(-h * phibar(xi_k, z), M_prime);
  }
  /// DG(z) = D psi(z) - h M^_{k+1} dtau_{-h phibar} D phibar(z),  M_{k+1} = tau(-h phibar(z)) M'_k.
  [[nodiscard]] Mat3 DG(const Vec3& z, const Vec3& xi_k, const Vec3& M_prime, double h) const {
    typename Basic::PsiTerms t;
    ddb_.psi_fused(z, h, t);
    const Vec3 x = -h * phibar(xi_k, z);
    return ddb_.Dpsi_fused(z, h, t) -
           h * lie::hat(rotate(x, M_prime)) * AppliedRotationTangent<R>::dtau(x) * Dphibar(xi_k, z);
  }

  /// Prepare a run from x0 with step h: M~_0 (processed or not), R_0, residue 0. xi_0 is solved by the first
  /// `step` (so that a failure of step (a) is reported as a step failure).
  void start(const models::RigidBodyState& x0, double h) {
    s_ = x0;
    h_ = h;
    c_.setZero();
    xi_k_.setZero();
    xi_km1_.setZero();
    have_xi_ = false;
    if (processing_) {
      // M~_0 = tau(-(h/2) phi(I^{-1} M_0)) M_0 as M_0 + delta, the rounding of the sum kept in the residue.
      const Vec3 delta = increment(-(0.5 * h) * b_.phi(b_.omega(x0.M)), x0.M);
      for (int i = 0; i < 3; ++i) {
        const double t = x0.M(i) + delta(i);
        c_(i) = (t - x0.M(i)) - delta(i);
        s_.M(i) = t;
      }
    }
  }

  /// One step: advances the recursion (M~_k, xi_k, R_k) and writes the reported (M_k, R_k) into x. Numerical
  /// failure is returned (converged = false); x and the carried state are then unchanged.
  StepResult step(models::RigidBodyState& x, double h) {
    StepResult res;
    int iterations = 0;
    Vec3 xi_k = xi_k_;
    Vec3 z;
    h_ = h;
    if (!have_xi_) {
      // xi_0 from M~_0 by step (a) of the basic DDB.
      res = b_.diagonal_inertia ? ddb_.solve_xi_principal(s_.M, h, xi_k) : ddb_.solve_xi(s_.M, h, xi_k);
      if (!res.converged) return res;
      iterations = res.iterations;
    }
    const Vec3 M_prime = Basic::first_rotation(s_.M, xi_k, h);
    if (have_xi_) {
      z = 2.0 * xi_k - xi_km1_;  // predictor, O(h^2)
    } else {
      // First step: the basic DDB's guess for its M_1 = tau(-h phi(xi_0)) M'_0 (O(h^2)).
      z = ddb_.initial_guess(rotate(-h * b_.phi(xi_k), M_prime), h);
    }
    res = newton_xi_kp1(xi_k, M_prime, h, z);
    if (!res.converged) {
      // Retry from the basic DDB's guess at M'_k (robust for large h).
      const int it = res.iterations;
      z = ddb_.initial_guess(M_prime, h);
      res = newton_xi_kp1(xi_k, M_prime, h, z);
      res.iterations += it;
    }
    res.iterations += iterations;
    if (!res.converged) {
      res.message = "ddb-symmetric: Newton for xi_{k+1} did not converge (reduce integrator.dt)";
      return res;
    }

    Basic::update(s_, c_, xi_k, phibar(xi_k, z), h);  // M~_{k+1}, R_{k+1} = R_k tau(h xi_k)
    xi_km1_ = xi_k;
    xi_k_ = z;
    have_xi_ = true;
    x.R = s_.R;
    x.M = reported_M();
    if (!std::isfinite(x.M.sum() + x.R.sum())) {
      res.converged = false;
      res.message = "ddb-symmetric: non-finite state after the step";
    }
    return res;
  }

  /// The reported momentum from the recursion's M~ (the output processing above): tau(+(h/2) phi(I^{-1} M~))
  /// M~ with processing, M~ without; the Kahan residue c (M~_exact ~ M~ - c) is folded into the one rounding
  /// of the sum.
  [[nodiscard]] Vec3 reported_M() const {
    if (!processing_) return s_.M;
    const Vec3 delta = increment((0.5 * h_) * b_.phi(b_.omega(s_.M)), s_.M);
    return s_.M + (delta - c_);
  }

 private:
  /// tau(x) v - v, with the coefficients of step (c).
  static Vec3 increment(const Vec3& x, const Vec3& v) {
    double a, b;
    RotationCoefficients<R>::get(x, a, b);
    return Basic::increment(x, a, b, v);
  }
  static Vec3 rotate(const Vec3& x, const Vec3& v) { return v + increment(x, v); }

  /// Newton on G(z) = 0 from z (overwritten), DG analytic; simplified-Newton confirmation with I^{-1}
  /// (DG = I + O(h)).
  StepResult newton_xi_kp1(const Vec3& xi_k, const Vec3& M_prime, double h, Vec3& z) const {
    typename Basic::PsiTerms t;
    Vec3 x_phi, M_next;
    const auto F = [&](const Vec3& zz) -> Vec3 {
      x_phi = -h * phibar(xi_k, zz);
      M_next = rotate(x_phi, M_prime);
      return ddb_.psi_fused(zz, h, t) - M_next;
    };
    const auto DF = [&](const Vec3& zz) -> Mat3 {
      return ddb_.Dpsi_fused(zz, h, t) -
             h * lie::hat(M_next) * AppliedRotationTangent<R>::dtau(x_phi) * Dphibar(xi_k, zz);
    };
    const auto approx = [&](const Vec3& r) -> Vec3 { return Vec3(b_.I_inv * r); };
    return solve::newton<3>(F, DF, z, M_prime.lpNorm<Eigen::Infinity>(), newton_, approx);
  }

  models::RigidBody b_;
  Basic ddb_;
  solve::NewtonOptions newton_;
  bool processing_;
  models::RigidBodyState s_;     ///< recursion state: M~_k and R_k
  Vec3 c_ = Vec3::Zero();        ///< Kahan residue of M~
  Vec3 xi_k_ = Vec3::Zero();     ///< xi_k
  Vec3 xi_km1_ = Vec3::Zero();   ///< xi_{k-1}
  bool have_xi_ = false;         ///< xi_0 solved
  double h_ = 0.0;               ///< step size of the run

 public:
  /// The carried state (checkpoints): the recursion state, its Kahan residue, xi_k and xi_{k-1}, the inner
  /// DDB's own carried state.
  void state(StateIO& a) {
    a("s.M", s_.M);
    a("s.R", s_.R);
    a("c", c_);
    a("xi_k", xi_k_);
    a("xi_km1", xi_km1_);
    a("have_xi", have_xi_);
    a("h", h_);
    StateIO::Scope inner(a, "ddb");
    ddb_.state(a);
  }

 private:
};

}  // namespace lievi::integrators
