#pragma once
/// @file lievi/integrators/moser_veselov.hpp
/// @brief The Moser–Veselov discrete rigid body with double-bracket dissipation (seed 002 Example 4.5;
/// docs/theory/ddb.md "Moser–Veselov"), `moser-veselov`.
///
/// Matrix form (Example 4.5): J = ½ tr(I) Id - I; (a) find w in SO(3) with M^_k = (w J - J w^T)/h;
/// (b) M^_{k+1} = (w phi_d)^T M^_k (w phi_d), phi_d = cay(h phi(xi)), xi = cay^{-1}(w)/h.
/// Vector form, as implemented: with w = cay(h xi), p = I xi, step (a) reads
///   M_k = (p + (h/2) xi × p) / (1 + h^2 |xi|^2 / 4),
/// solved by Newton on G(xi) = p + (h/2) xi × p - (1 + h^2|xi|^2/4) M_k = 0 with the analytic Jacobian
///   DG = I + (h/2)(xi^ I - p^) - (h^2/2) M_k xi^T;
/// step (b) is exactly the DDB-Cayley update M_{k+1} = cay(-h phi(xi)) (cay(-h xi) M_k), computed by
/// DDB<Cayley>::update (increments with Kahan summation, residue carried), attitude R_{k+1} = R_k w.
/// The literal 3x3 conjugation drifts ~1e-12 in |M|^2 over 1e5 steps; the matrix form is kept only for
/// checking the step-(a) residual (`residual_matrix_form`).
///
/// Existence: along a principal axis (M = m e_i) step (a) is the quadratic (h^2 m/4) x^2 - I_i x + m = 0, real
/// iff h|m| <= I_i; in general step (a) has no solution once h|M| is too large for the inertia (Scenario A at
/// h = 1). Newton from the guess, then a continuation in h along the branch from xi = I^{-1} M at h = 0; if that
/// branch ends before h, the step returns converged = false with a message to reduce integrator.dt.
///
/// Orders: 2 at alpha = 0 (the variational Moser–Veselov map), where it conserves |M|^2 and the energy
/// H = ½ M·I^{-1}M to round-off (measured: |H - H0|/H0 <= 1 eps over 3e4 steps; with |M| fixed this is the same
/// as conserving tr(M^^2 J^2) = mu |M|^2 + det(I) M·I^{-1}M, mu a constant, by Cayley–Hamilton for I);
/// 1 for alpha > 0 (the dissipation factor is explicit in xi_k, as in DDB; measured).
#include <Eigen/Core>
#include <algorithm>
#include <cmath>
#include <limits>

#include "lievi/core/error.hpp"
#include "lievi/integrators/ddb.hpp"
#include "lievi/integrators/rigid_body_stepper.hpp"
#include "lievi/lie/retraction/cayley.hpp"
#include "lievi/lie/so3.hpp"
#include "lievi/models/rigid_body.hpp"
#include "lievi/solve/newton.hpp"

namespace lievi::integrators {

class MoserVeselov {
 public:
  using Vec3 = lie::Vec3;
  using Mat3 = lie::Mat3;
  using Cay = lie::Cayley<lie::SO3>;
  static constexpr MethodTraits traits{"moser-veselov", 1, true, true, true, false,
                                       "Moser-Veselov (Example 4.5), step (b) as DDB-cayley: order 1 (2 at alpha = "
                                       "0), implicit, |M|^2 and at alpha = 0 the energy to round-off, symplectic "
                                       "at alpha = 0"};

  explicit MoserVeselov(const models::RigidBody& body, const solve::NewtonOptions& newton = {})
      : b_(body), newton_(newton), K_scalar_(body.K == body.K(0, 0) * Mat3::Identity()) {}

  [[nodiscard]] const models::RigidBody& model() const { return b_; }
  /// xi of the last step, w_k = cay(h xi).
  [[nodiscard]] const Vec3& xi() const { return xi_; }

  /// J = ½ tr(I) Id - I  (Example 4.5).
  [[nodiscard]] Mat3 J() const { return 0.5 * b_.I.trace() * Mat3::Identity() - b_.I; }

  /// G(xi) = p + (h/2) xi × p - (1 + h^2 |xi|^2 / 4) M,  p = I xi  (step (a)).
  [[nodiscard]] Vec3 G(const Vec3& xi, const Vec3& M, double h) const {
    const Vec3 p = b_.I * xi;
    return p + (0.5 * h) * xi.cross(p) - (1.0 + 0.25 * h * h * xi.squaredNorm()) * M;
  }
  /// DG(xi) = I + (h/2)(xi^ I - p^) - (h^2/2) M xi^T  (step (a)).
  [[nodiscard]] Mat3 DG(const Vec3& xi, const Vec3& M, double h) const {
    const Vec3 p = b_.I * xi;
    return b_.I + (0.5 * h) * (lie::hat(xi) * b_.I - lie::hat(p)) - (0.5 * h * h) * M * xi.transpose();
  }

  /// The matrix-form residual of step (a): (w J - J w^T)/h - M^, w = cay(h xi)  (Example 4.5).
  [[nodiscard]] Mat3 residual_matrix_form(const Vec3& xi, const Vec3& M, double h) const {
    const Mat3 w = Cay::tau(h * xi).matrix();
    const Mat3 Jm = J();
    return (w * Jm - Jm * w.transpose()) / h - lie::hat(M);
  }

  void start(const models::RigidBodyState& /*x0*/, double /*h*/) {
    c_.setZero();
    xi_.setZero();
  }

  /// Step (a): Newton for G(xi) = 0 from xi^0 = I^{-1}(M - (h/2) omega × M), omega = I^{-1} M (O(h^2)); on
  /// failure a continuation in the step size (Newton at h s, s -> 1, increment doubled on success, halved on
  /// failure down to 1/1024). No solution on the branch: converged = false with a message naming integrator.dt.
  StepResult solve_xi(const Vec3& M_k, double h, Vec3& xi) const {
    if (!M_k.allFinite() || !std::isfinite(h)) {
      StepResult bad;
      bad.converged = false;
      bad.residual = std::numeric_limits<double>::quiet_NaN();
      bad.message = "moser-veselov step (a): non-finite M_k or h";
      return bad;
    }
    const Vec3 omega = b_.I_inv * M_k;
    xi = b_.I_inv * (M_k - (0.5 * h) * omega.cross(M_k));
    StepResult r = newton_at(M_k, h, xi);
    if (r.converged) return r;
    int iterations = r.iterations;
    Vec3 z = omega;
    const auto at = [&](double s, Vec3& x) { return newton_at(M_k, h * s, x); };
    if (solve::continuation(at, z, iterations, continuation_min_increment)) {
      xi = z;
      r = newton_at(M_k, h, xi);
      r.iterations += iterations;
      if (r.converged) return r;
    }
    r.iterations = iterations;
    r.converged = false;
    r.message =
        "moser-veselov step (a): no solution w in SO(3) of (w J - J w^T)/h = M^ (h |M| too large for the inertia, "
        "e.g. h |M_i| > I_i along a principal axis); reduce integrator.dt";
    return r;
  }

  /// One step (a), (b) of (M, R). On failure x is unchanged.
  StepResult step(models::RigidBodyState& x, double h) {
    Vec3 xi;
    StepResult res = solve_xi(x.M, h, xi);
    if (!res.converged) return res;
    xi_ = xi;
    const Vec3 Ixi_x_xi = (b_.I * xi).cross(xi);
    const Vec3 phi = K_scalar_ ? Vec3(b_.K(0, 0) * Ixi_x_xi) : Vec3(b_.K * Ixi_x_xi);
    DDB<Cay>::update(x, c_, xi, phi, h);  // (b): M_{k+1} = cay(-h phi)(cay(-h xi) M_k), R_{k+1} = R_k w
    if (!std::isfinite(x.M.sum() + x.R.sum())) {
      res.converged = false;
      res.message = "moser-veselov: non-finite state after step (b)";
    }
    return res;
  }

 private:
  static constexpr double continuation_min_increment = 1.0 / 1024;

  StepResult newton_at(const Vec3& M_k, double h, Vec3& xi) const {
    const auto F = [&](const Vec3& z) -> Vec3 { return G(z, M_k, h); };
    const auto DF = [&](const Vec3& z) -> Mat3 { return DG(z, M_k, h); };
    const auto approx = [&](const Vec3& r) -> Vec3 { return Vec3(b_.I_inv * r); };
    return solve::newton<3>(F, DF, xi, M_k.lpNorm<Eigen::Infinity>(), newton_, approx);
  }

  models::RigidBody b_;
  solve::NewtonOptions newton_;
  bool K_scalar_;
  Vec3 c_ = Vec3::Zero();   ///< Kahan residue of M
  Vec3 xi_ = Vec3::Zero();  ///< xi of the last step

 public:
  /// The carried state (checkpoints): the Kahan residue and the last xi.
  void state(StateIO& a) {
    a("c", c_);
    a("xi", xi_);
  }
};

}  // namespace lievi::integrators
