#pragma once
/// @file lievi/integrators/ddb.hpp
/// @brief The basic DDB integrator (seed 002 §4, Algorithm (ii); docs/theory/ddb.md) for the rigid body
/// with double-bracket dissipation, templated on the SO(3) retraction (Cayley, exp, exp2).
///
/// One step M_k -> M_{k+1}, R_k -> R_{k+1}:
///  (a) solve  psi_h(xi) = (dtau_{h xi}^{-1})^T I xi = M_k  for xi by Newton (analytic Jacobian
///      D psi = (dtau_{h xi}^{-1})^T I + h J_x[(dtau_x^{-1})^T p]|_{x = h xi, p = I xi}),
///  (b) w_k = tau(h xi),  phi_k = phi(xi) = K ((I xi) × xi),
///  (c) M_{k+1} = tau(-h phi_k) ( tau(-h xi) M_k )  = Ad*_{w_k phi_d} M_k,  phi_d = tau(h phi_k),
///      R_{k+1} = R_k w_k.
/// Conventions (docs/theory/ddb.md "Conventions"): <mu, xi> = mu · xi, Ad*_g mu = g^T mu, tau(x)^T = tau(-x).
///
/// Floating point: step (c) is written as M_{k+1} = M_k + delta with delta the sum of the two rotation
/// increments, and delta is added with Kahan (compensated) summation whose residue is carried across steps,
/// so |M|^2 stays within ~1 ulp of |M_0|^2 for any run length (plain summation drifts ~1e-13 over
/// 2.5e5 steps). Nothing is renormalised. Do not compile with -ffast-math (it deletes the compensation).
///
/// Orders: first order for alpha > 0 (the dissipation factor is explicit in xi_k; fits over h in
/// [0.01, 0.1] can look like 1.5); second order at alpha = 0, where DDB-cayley and DDB-exp are the
/// variational (symplectic) Lie–Poisson integrators (Bou-Rabee & Marsden 2009, eq. 4.26 for Cayley) with
/// bounded energy error. DDB-exp2 uses the
/// paper's truncated dexp^{-1} (beta = 1/12): no longer exactly variational, its energy error drifts slowly
/// in long conservative runs (windowed max 2.5e-7 -> 2.1e-7 over t = 5000 at h = 0.1; docs/theory/ddb.md).
#include <Eigen/Core>
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>

#include "lievi/core/error.hpp"
#include "lievi/core/state_io.hpp"
#include "lievi/integrators/rigid_body_stepper.hpp"
#include "lievi/lie/retraction/cayley.hpp"
#include "lievi/lie/retraction/exp.hpp"
#include "lievi/lie/so3.hpp"
#include "lievi/models/rigid_body.hpp"
#include "lievi/solve/newton.hpp"

namespace lievi::integrators {

/// Which coadjoint action step (c) uses. Only `transpose` (Ad*_g mu = g^T mu, docs/theory/ddb.md) is the
/// method; `wrong_left` (Ad*_g mu = g mu, i.e. M_{k+1} = tau(+h phi_k)(tau(+h xi) M_k)) exists so that a test
/// can show that a wrong convention does not converge (it is not registered).
enum class Coadjoint { transpose, wrong_left };

/// How step (c) adds its increment to M. `compensated` (Kahan, the method) keeps |M|^2 at ~1 ulp for any run
/// length; `plain` (M <- M + delta) exists so that a test can show the drift it causes (~1e-13
/// after 2.5e5 steps). Not registered.
enum class Summation { compensated, plain };

/// tau(x) v - v = a(x) x × v + b(x) x × (x × v): the two scalar coefficients of a retraction on SO(3),
/// computed once per step so that the three attitude rows and the two momentum increments of step (c) do
/// not re-evaluate norms and trigonometric functions. Equal to R::act_increment (tested).
template <class R>
struct RotationCoefficients;

template <>
struct RotationCoefficients<lie::Cayley<lie::SO3>> {
  /// Cayley: a = c, b = c/2, c = 4 / (4 + |x|^2)  (docs/theory/ddb.md, step (c)).
  static void get(const lie::Vec3& x, double& a, double& b) {
    a = lie::Cayley<lie::SO3>::c(x);
    b = 0.5 * a;
  }
};
template <>
struct RotationCoefficients<lie::Exp<lie::SO3>> {
  /// exp: a = sin t / t, b = (1 - cos t)/t^2, t = |x|  (Rodrigues).
  static void get(const lie::Vec3& x, double& a, double& b) {
    const double t = x.norm();
    a = lie::so3_series::sinc(t);
    b = lie::so3_series::one_minus_cos_over_t2(t);
  }
};
template <>
struct RotationCoefficients<lie::Exp2<lie::SO3>> : RotationCoefficients<lie::Exp<lie::SO3>> {};

/// Human-readable traits per retraction (the method id is always "ddb").
template <class R>
struct DDBTraits;
template <>
struct DDBTraits<lie::Cayley<lie::SO3>> {
  static constexpr MethodTraits value{"ddb", 1, true, true, true, false,
                                      "DDB, tau = cay: order 1 (2 at alpha = 0), implicit (a), |M|^2 to round-off, "
                                      "symplectic at alpha = 0"};
};
template <>
struct DDBTraits<lie::Exp<lie::SO3>> {
  static constexpr MethodTraits value{"ddb", 1, true, true, true, false,
                                      "DDB, tau = exp (closed-form dexp^-1): order 1 (2 at alpha = 0), implicit (a), "
                                      "|M|^2 to round-off, symplectic at alpha = 0; needs h|M|/I_min < 2 pi"};
};
template <>
struct DDBTraits<lie::Exp2<lie::SO3>> {
  static constexpr MethodTraits value{"ddb", 1, true, true, false, false,
                                      "DDB, tau = exp with dexp^-1 truncated at order 2 (paper): order 1 (2 at "
                                      "alpha = 0), |M|^2 to round-off, not exactly variational (slow energy drift)"};
};

/// The basic DDB method over the retraction `Retraction` (Cayley<SO3>, Exp<SO3>, Exp2<SO3>).
/// Owns its workspace: the compensated-summation residue of M and the previous xi. No allocation in step.
template <class Retraction, Coadjoint Convention = Coadjoint::transpose, Summation Sum = Summation::compensated>
class DDB {
 public:
  using R = Retraction;
  using Vec3 = lie::Vec3;
  using Mat3 = lie::Mat3;
  static constexpr MethodTraits traits = DDBTraits<Retraction>::value;

  explicit DDB(const models::RigidBody& body, const solve::NewtonOptions& newton = {})
      : b_(body), newton_(newton), K_scalar_(body.K == body.K(0, 0) * Mat3::Identity()) {}

  [[nodiscard]] const models::RigidBody& model() const { return b_; }
  [[nodiscard]] const solve::NewtonOptions& newton_options() const { return newton_; }
  /// xi of the last step (the body angular velocity of the discrete flow, w_k = tau(h xi)).
  [[nodiscard]] const Vec3& xi() const { return xi_; }
  /// The compensated-summation residue carried to the next step (for tests).
  [[nodiscard]] const Vec3& residue() const { return c_; }

  /// Reset the carried state (Kahan residue) before a run.
  void start(const models::RigidBodyState& /*x0*/, double /*h*/) {
    c_.setZero();
    xi_.setZero();
  }

  /// psi_h(xi) = (dtau_{h xi}^{-1})^T I xi  (docs/theory/ddb.md step (a); Cayley: p + (h/2) xi×p +
  /// (h^2/4)(xi·p) xi, exp: p + (h/2) xi×p + h^2 beta(h|xi|) xi×(xi×p), p = I xi).
  [[nodiscard]] Vec3 psi(const Vec3& xi, double h) const { return R::dtau_inv_star_apply(h * xi, b_.I * xi); }

  /// D psi_h(xi) = (dtau_{h xi}^{-1})^T I + h J_dtau_inv_star_x(h xi, I xi)  (equals the closed forms of
  /// docs/theory/ddb.md step (a) for symmetric I; tested).
  [[nodiscard]] Mat3 Dpsi(const Vec3& xi, double h) const {
    const Vec3 x = h * xi;
    return R::dtau_inv_star(x) * b_.I + h * R::J_dtau_inv_star_x(x, b_.I * xi);
  }

  /// Terms shared by psi_h and D psi_h at one xi (computed once per Newton iterate).
  struct PsiTerms {
    Vec3 p;        ///< I xi
    Vec3 xp;       ///< xi × p
    Vec3 w;        ///< xi × (xi × p)  (exp, exp2)
    double xdp;    ///< xi · p
    double a;      ///< coefficient of [(xi·p) I + 2 xi p^T] in D psi: h^2/4 (cay), h^2 beta (exp), h^2/12 (exp2)
    double g;      ///< coefficient of (xi × (xi × p)) xi^T: h^4 gamma (exp), 0 otherwise
  };

  /// psi_h(xi) in the closed form of docs/theory/ddb.md step (a), filling the shared terms:
  ///   cayley: p + (h/2) xi×p + (h^2/4)(xi·p) xi;   exp/exp2: p + (h/2) xi×p + h^2 beta xi×(xi×p).
  /// Fused for speed (one evaluation of p, xi×p, beta per iterate); equal to `psi` (tested).
  Vec3 psi_fused(const Vec3& xi, double h, PsiTerms& t) const {
    t.p = I_times(xi);
    t.xp = xi.cross(t.p);
    t.xdp = xi.dot(t.p);
    if constexpr (std::is_same_v<R, lie::Cayley<lie::SO3>>) {
      t.a = 0.25 * h * h;
      t.g = 0.0;
      return t.p + (0.5 * h) * t.xp + (t.a * t.xdp) * xi;
    } else {
      t.w = xi.cross(t.xp);
      if constexpr (std::is_same_v<R, lie::Exp<lie::SO3>>) {
        const double theta = h * xi.norm();
        t.a = h * h * lie::so3_series::beta(theta);
        t.g = h * h * h * h * lie::so3_series::gamma(theta);
      } else {
        t.a = h * h / 12.0;
        t.g = 0.0;
      }
      return t.p + (0.5 * h) * t.xp + t.a * t.w;
    }
  }

  /// D psi_h(xi) in the closed form of docs/theory/ddb.md step (a), from the terms of the last `psi_fused` at
  /// this xi:
  ///   cayley:   I + (h/2)(xi^ I - p^) + (h^2/4)[(xi·p) Id + 2 xi p^T]
  ///   exp:      I + (h/2)(xi^ I - p^) + h^2 beta [(xi·p) Id + 2 xi p^T - 2 p xi^T - |xi|^2 I]
  ///             + h^4 gamma (xi × (xi × p)) xi^T                  (exp2: beta = 1/12, no gamma term).
  /// Written entrywise (no 3x3 products); equal to `Dpsi` (tested).
  Mat3 Dpsi_fused(const Vec3& xi, double h, const PsiTerms& t) const {
    const double hh = 0.5 * h;
    Mat3 J;
    // (h/2) xi^ I: column j is (h/2) xi × I e_j.
    if (b_.diagonal_inertia) {
      const double I0 = b_.I(0, 0), I1 = b_.I(1, 1), I2 = b_.I(2, 2);
      J << I0, -hh * xi(2) * I1, hh * xi(1) * I2,  //
          hh * xi(2) * I0, I1, -hh * xi(0) * I2,   //
          -hh * xi(1) * I0, hh * xi(0) * I1, I2;
    } else {
      for (int j = 0; j < 3; ++j) J.col(j) = b_.I.col(j) + hh * xi.cross(b_.I.col(j));
    }
    // - (h/2) p^
    J(0, 1) += hh * t.p(2);
    J(0, 2) -= hh * t.p(1);
    J(1, 0) -= hh * t.p(2);
    J(1, 2) += hh * t.p(0);
    J(2, 0) += hh * t.p(1);
    J(2, 1) -= hh * t.p(0);
    // a [(xi·p) Id + 2 xi p^T]; for exp/exp2 also - a [2 p xi^T + |xi|^2 I] + g (xi × (xi × p)) xi^T.
    // Outer products written as loops (Eigen's outer-product path is not inlined at -O2).
    const double a2 = 2.0 * t.a;
    for (int i = 0; i < 3; ++i) {
      J(i, i) += t.a * t.xdp;
      for (int j = 0; j < 3; ++j) J(i, j) += a2 * xi(i) * t.p(j);
    }
    if constexpr (!std::is_same_v<R, lie::Cayley<lie::SO3>>) {
      const double a_xx = t.a * xi.squaredNorm();
      for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) J(i, j) += (t.g * t.w(i) - a2 * t.p(i)) * xi(j) - a_xx * b_.I(i, j);
    }
    return J;
  }

  /// Start guess (docs/theory/ddb.md step (a)): xi^0 = I^{-1}(M - (h/2) omega × M), omega = I^{-1} M (error
  /// O(h^2)).
  [[nodiscard]] Vec3 initial_guess(const Vec3& M_k, double h) const {
    const Vec3 omega = I_inv_times(M_k);
    return I_inv_times(M_k - (0.5 * h) * omega.cross(M_k));
  }

  /// Step (a): Newton for psi_h(xi) = M_k from the start guess above. If that fails (only for very large
  /// h: the guess is O(h^2) accurate), a continuation in the step size follows the solution branch from
  /// xi = I^{-1} M_k at h = 0 (Newton at h s for s increasing to 1, halving the increment on failure).
  /// Returns the Newton report (iterations summed over all attempts).
  StepResult solve_xi(const Vec3& M_k, double h, Vec3& xi) const {
    if (!M_k.allFinite() || !std::isfinite(h)) {
      StepResult bad;
      bad.converged = false;
      bad.residual = std::numeric_limits<double>::quiet_NaN();
      bad.message = "DDB step (a): non-finite M_k or h";
      return bad;
    }
    xi = initial_guess(M_k, h);
    StepResult r = newton_at(M_k, h, xi);
    if (r.converged) return r;
    int iterations = r.iterations;
    Vec3 z = I_inv_times(M_k);
    const auto at = [&](double s, Vec3& x) { return newton_at(M_k, h * s, x); };
    if (solve::continuation(at, z, iterations, continuation_min_increment)) {
      xi = z;
      r = newton_at(M_k, h, xi);  // the final report at the full step (converges immediately)
      r.iterations += iterations;
      if (r.converged) return r;
    }
    r.iterations = iterations;
    r.converged = false;
    r.message = newton_failure_message(r.message);
    return r;
  }

  /// psi_h(xi) - M_k and the terms shared with D psi, on scalars, for principal inertia (see psi_fused).
  /// Forced inline so that the Newton iterate stays in registers.
  [[gnu::always_inline]] static inline void eval_principal(double h, double hh, double I0, double I1, double I2,
                                                           double m0, double m1, double m2, double x0, double x1,
                                                           double x2, double& p0, double& p1, double& p2,
                                                           double& c0, double& c1, double& c2, double& w0,
                                                           double& w1, double& w2, double& d, double& a, double& g,
                                                           double& F0, double& F1, double& F2) {
    p0 = I0 * x0;
    p1 = I1 * x1;
    p2 = I2 * x2;
    c0 = x1 * p2 - x2 * p1;  // xi × p
    c1 = x2 * p0 - x0 * p2;
    c2 = x0 * p1 - x1 * p0;
    d = x0 * p0 + x1 * p1 + x2 * p2;
    if constexpr (std::is_same_v<R, lie::Cayley<lie::SO3>>) {
      a = 0.25 * h * h;
      g = 0.0;
      const double ad = a * d;
      F0 = p0 + hh * c0 + ad * x0 - m0;
      F1 = p1 + hh * c1 + ad * x1 - m1;
      F2 = p2 + hh * c2 + ad * x2 - m2;
    } else {
      w0 = x1 * c2 - x2 * c1;  // xi × (xi × p)
      w1 = x2 * c0 - x0 * c2;
      w2 = x0 * c1 - x1 * c0;
      if constexpr (std::is_same_v<R, lie::Exp<lie::SO3>>) {
        const double theta = h * std::sqrt(x0 * x0 + x1 * x1 + x2 * x2);
        a = h * h * lie::so3_series::beta(theta);
        g = h * h * h * h * lie::so3_series::gamma(theta);
      } else {
        a = h * h / 12.0;
        g = 0.0;
      }
      F0 = p0 + hh * c0 + a * w0 - m0;
      F1 = p1 + hh * c1 + a * w1 - m1;
      F2 = p2 + hh * c2 + a * w2 - m2;
    }
  }

  /// Step (a) for principal (diagonal) inertia — the hot path of `step`. The same Newton iteration as
  /// `solve_xi` (same start guess, the fused closed forms of psi_fused/Dpsi_fused, the same stopping rules,
  /// including the simplified-Newton confirmation with I^{-1}), written on scalars so that the iterate stays in
  /// registers (the Eigen version costs ~2x the instructions at -O2). On any failure it falls back to
  /// `solve_xi` (with its continuation). Equal to `solve_xi` to round-off (tested).
  StepResult solve_xi_principal(const Vec3& M_k, double h, Vec3& xi_out) const {
    if (!std::isfinite(M_k.sum() + h)) return solve_xi(M_k, h, xi_out);  // reports the non-finite input
    const double I0 = b_.I(0, 0), I1 = b_.I(1, 1), I2 = b_.I(2, 2);
    const double J0 = b_.I_inv(0, 0), J1 = b_.I_inv(1, 1), J2 = b_.I_inv(2, 2);
    const double m0 = M_k(0), m1 = M_k(1), m2 = M_k(2);
    const double hh = 0.5 * h;
    // Start guess xi = I^{-1}(M - (h/2) omega × M), omega = I^{-1} M.
    const double o0 = J0 * m0, o1 = J1 * m1, o2 = J2 * m2;
    double x0 = J0 * (m0 - hh * (o1 * m2 - o2 * m1));
    double x1 = J1 * (m1 - hh * (o2 * m0 - o0 * m2));
    double x2 = J2 * (m2 - hh * (o0 * m1 - o1 * m0));
    // Terms shared by F and DF at the current iterate.
    double p0, p1, p2, c0, c1, c2, w0 = 0, w1 = 0, w2 = 0, d, a, g;
    double F0, F1, F2;
#define LIEVI_DDB_EVAL_F() \
  eval_principal(h, hh, I0, I1, I2, m0, m1, m2, x0, x1, x2, p0, p1, p2, c0, c1, c2, w0, w1, w2, d, a, g, F0, F1, F2)
    const auto inf3 = [](double u, double v, double w) { return std::max({std::abs(u), std::abs(v), std::abs(w)}); };
    const double res_tol = newton_.residual_tol * inf3(m0, m1, m2);
    StepResult r;
    LIEVI_DDB_EVAL_F();
    for (int it = 1; it <= newton_.max_iterations; ++it) {
      r.iterations = it;
      // D psi (docs/theory/ddb.md step (a)), column-major entries A_ij.
      const double a2 = 2.0 * a, ad = a * d;
      double A00 = I0 + ad + a2 * x0 * p0, A01 = -hh * x2 * I1 + hh * p2 + a2 * x0 * p1,
             A02 = hh * x1 * I2 - hh * p1 + a2 * x0 * p2;
      double A10 = hh * x2 * I0 - hh * p2 + a2 * x1 * p0, A11 = I1 + ad + a2 * x1 * p1,
             A12 = -hh * x0 * I2 + hh * p0 + a2 * x1 * p2;
      double A20 = -hh * x1 * I0 + hh * p1 + a2 * x2 * p0, A21 = hh * x0 * I1 - hh * p0 + a2 * x2 * p1,
             A22 = I2 + ad + a2 * x2 * p2;
      if constexpr (!std::is_same_v<R, lie::Cayley<lie::SO3>>) {
        // - a [2 p xi^T + |xi|^2 I] + g (xi × (xi × p)) xi^T
        const double axx = a * (x0 * x0 + x1 * x1 + x2 * x2);
        const double q0 = g * w0 - a2 * p0, q1 = g * w1 - a2 * p1, q2 = g * w2 - a2 * p2;
        A00 += q0 * x0 - axx * I0;
        A01 += q0 * x1;
        A02 += q0 * x2;
        A10 += q1 * x0;
        A11 += q1 * x1 - axx * I1;
        A12 += q1 * x2;
        A20 += q2 * x0;
        A21 += q2 * x1;
        A22 += q2 * x2 - axx * I2;
      }
      // Solve A dx = F by the adjugate: rows of A^{-1} det are col1×col2, col2×col0, col0×col1.
      const double k00 = A11 * A22 - A21 * A12, k01 = A21 * A02 - A01 * A22, k02 = A01 * A12 - A11 * A02;
      const double det = A00 * k00 + A10 * k01 + A20 * k02;
      if (!(std::isfinite(det) && det != 0.0)) break;
      const double k10 = A12 * A20 - A22 * A10, k11 = A22 * A00 - A02 * A20, k12 = A02 * A10 - A12 * A00;
      const double k20 = A10 * A21 - A20 * A11, k21 = A20 * A01 - A00 * A21, k22 = A00 * A11 - A10 * A01;
      const double inv = 1.0 / det;
      const double d0 = (k00 * F0 + k01 * F1 + k02 * F2) * inv;
      const double d1 = (k10 * F0 + k11 * F1 + k12 * F2) * inv;
      const double d2 = (k20 * F0 + k21 * F1 + k22 * F2) * inv;
      x0 -= d0;
      x1 -= d1;
      x2 -= d2;
      LIEVI_DDB_EVAL_F();
      r.residual = inf3(F0, F1, F2);
      if (!std::isfinite(r.residual)) break;
      const double step_tol = newton_.step_tol * (1.0 + inf3(x0, x1, x2));
      if (inf3(d0, d1, d2) <= step_tol && r.residual <= res_tol) {
        xi_out = Vec3(x0, x1, x2);
        return r;
      }
      // Simplified-Newton confirmation with I^{-1} (D psi = I + O(h)).
      const double s0 = J0 * F0, s1 = J1 * F1, s2 = J2 * F2;
      if (inf3(s0, s1, s2) <= step_tol) {
        x0 -= s0;
        x1 -= s1;
        x2 -= s2;
        LIEVI_DDB_EVAL_F();
        r.residual = inf3(F0, F1, F2);
        if (r.residual <= res_tol) {
          xi_out = Vec3(x0, x1, x2);
          return r;
        }
      }
    }
#undef LIEVI_DDB_EVAL_F
    // Not converged here: the general path (with its continuation fallback) decides and reports.
    StepResult g_r = solve_xi(M_k, h, xi_out);
    g_r.iterations += r.iterations;
    return g_r;
  }

  /// One DDB step (a)-(c) of (M, R) with step h. Numerical failure is returned; on failure x is unchanged.
  StepResult step(models::RigidBodyState& x, double h) {
    Vec3 xi;
    StepResult res = b_.diagonal_inertia ? solve_xi_principal(x.M, h, xi) : solve_xi(x.M, h, xi);
    if (!res.converged) return res;
    xi_ = xi;

    // (b) phi_k = K ((I xi) × xi)
    const Vec3 Ixi_x_xi = I_times(xi).cross(xi);
    const Vec3 phi_k = K_scalar_ ? Vec3(b_.K(0, 0) * Ixi_x_xi) : Vec3(b_.K * Ixi_x_xi);
    // (c) and the attitude.
    update(x, c_, xi, phi_k, h);
    if (!std::isfinite(x.M.sum() + x.R.sum())) {
      res.converged = false;
      res.message = "DDB: non-finite state after step (c)";
    }
    return res;
  }

  /// M' = tau(-h xi) M_k  (the first factor of step (c), transpose convention), computed exactly as `update`
  /// computes it (same coefficients, same operations), for methods that need M' before step (c) completes
  /// (the symmetric DDB, ddb_symmetric.hpp, solves for xi_{k+1} against it).
  [[nodiscard]] static Vec3 first_rotation(const Vec3& M_k, const Vec3& xi, double h) {
    constexpr double s = Convention == Coadjoint::transpose ? -1.0 : 1.0;
    const Vec3 x_xi = (s * h) * xi;
    double a_xi, b_xi;
    RotationCoefficients<R>::get(x_xi, a_xi, b_xi);
    double d1[3];
    const double Mk[3] = {M_k(0), M_k(1), M_k(2)};
    increment3(x_xi, a_xi, b_xi, Mk, d1);
    return Vec3(Mk[0] + d1[0], Mk[1] + d1[1], Mk[2] + d1[2]);
  }

  /// Step (c) and the attitude for given xi_k and phi_k (docs/theory/ddb.md steps (b), (c)):
  ///   M_{k+1} = tau(-h phi_k) ( tau(-h xi_k) M_k ),   R_{k+1} = R_k tau(h xi_k),
  /// with M_{k+1} = M_k + (delta_1 + delta_2) summed by Kahan compensation against the residue `c` (carried by
  /// the caller across steps; reset to 0 at the start of a run). Shared by DDB, the symmetric DDB (with
  /// phi_k = phibar) and Moser–Veselov (its step (b), with R = Cayley). No allocation.
  [[gnu::always_inline]] static inline void update(models::RigidBodyState& x, Vec3& c, const Vec3& xi,
                                                   const Vec3& phi_k, double h) {
    // (c) M' = tau(-h xi) M_k, M_{k+1} = tau(-h phi_k) M'  (wrong_left: +h), as increments.
    constexpr double s = Convention == Coadjoint::transpose ? -1.0 : 1.0;
    const Vec3 x_xi = (s * h) * xi;
    const Vec3 x_phi = (s * h) * phi_k;
    double a_xi, b_xi, a_phi, b_phi;
    RotationCoefficients<R>::get(x_xi, a_xi, b_xi);
    RotationCoefficients<R>::get(x_phi, a_phi, b_phi);
    // Written on scalars (the same formulas as `increment`), so the step stays in registers.
    double d1[3], d2[3], Mp[3];
    const double Mk[3] = {x.M(0), x.M(1), x.M(2)};
    increment3(x_xi, a_xi, b_xi, Mk, d1);
    for (int i = 0; i < 3; ++i) Mp[i] = Mk[i] + d1[i];
    increment3(x_phi, a_phi, b_phi, Mp, d2);
    // Kahan: M_{k+1} = M_k + (d1 + d2), with the rounding residue c carried to the next step.
    for (int i = 0; i < 3; ++i) {
      if constexpr (Sum == Summation::compensated) {
        const double y = (d1[i] + d2[i]) - c(i);
        const double t = Mk[i] + y;
        c(i) = (t - Mk[i]) - y;
        x.M(i) = t;
      } else {
        x.M(i) = Mk[i] + (d1[i] + d2[i]);
      }
    }

    // Attitude R_{k+1} = R_k w_k, w_k = tau(h xi). Row-wise: row_i(R w) = (w^T row_i^T)^T = tau(-h xi) row_i,
    // i.e. the same rotation as the first factor of (c) (transpose convention), without forming w_k.
    const Vec3 x_att = -h * xi;
    double a_att, b_att;
    if constexpr (Convention == Coadjoint::transpose) {
      a_att = a_xi;
      b_att = b_xi;
    } else {
      RotationCoefficients<R>::get(x_att, a_att, b_att);
    }
    for (int i = 0; i < 3; ++i) {
      const double row[3] = {x.R(i, 0), x.R(i, 1), x.R(i, 2)};
      double inc[3];
      increment3(x_att, a_att, b_att, row, inc);
      for (int j = 0; j < 3; ++j) x.R(i, j) = row[j] + inc[j];
    }
  }

  /// out = tau(x) v - v = a x × v + b x × (x × v), on scalars.
  [[gnu::always_inline]] static inline void increment3(const Vec3& x, double a, double b, const double* v,
                                                       double* out) {
    const double x0 = x(0), x1 = x(1), x2 = x(2);
    const double u0 = x1 * v[2] - x2 * v[1], u1 = x2 * v[0] - x0 * v[2], u2 = x0 * v[1] - x1 * v[0];
    out[0] = a * u0 + b * (x1 * u2 - x2 * u1);
    out[1] = a * u1 + b * (x2 * u0 - x0 * u2);
    out[2] = a * u2 + b * (x0 * u1 - x1 * u0);
  }

  /// tau(x) v - v = a x × v + b x × (x × v).
  static Vec3 increment(const Vec3& x, double a, double b, const Vec3& v) {
    const Vec3 xv = x.cross(v);
    return a * xv + b * x.cross(xv);
  }

 private:
  /// I v and I^{-1} v, with the diagonal (principal-axes) case as three products.
  Vec3 I_times(const Vec3& v) const {
    return b_.diagonal_inertia ? Vec3(b_.I.diagonal().cwiseProduct(v)) : Vec3(b_.I * v);
  }
  Vec3 I_inv_times(const Vec3& v) const {
    return b_.diagonal_inertia ? Vec3(b_.I_inv.diagonal().cwiseProduct(v)) : Vec3(b_.I_inv * v);
  }

  /// Smallest step-size increment of the continuation fallback of step (a) before it gives up.
  static constexpr double continuation_min_increment = 1.0 / 1024;

  /// Newton on psi_h(xi) = M_k with the fused closed forms; DF reuses the terms of the latest F call,
  /// which solve::newton always makes at the same point.
  StepResult newton_at(const Vec3& M_k, double h, Vec3& xi) const {
    PsiTerms terms;
    const auto F = [&](const Vec3& z) -> Vec3 { return psi_fused(z, h, terms) - M_k; };
    const auto DF = [&](const Vec3& z) -> Mat3 { return Dpsi_fused(z, h, terms); };
    // D psi = I + O(h): the simplified-Newton step I^{-1} F confirms convergence without a last Jacobian.
    const auto approx = [&](const Vec3& r) -> Vec3 { return I_inv_times(r); };
    return solve::newton<3>(F, DF, xi, M_k.lpNorm<Eigen::Infinity>(), newton_, approx);
  }

  static const char* newton_failure_message(const char* newton_message) {
    // Static strings only (StepResult::message is a const char*).
    if (std::strcmp(newton_message, "Newton did not converge within the iteration limit") == 0)
      return "DDB step (a): Newton did not converge within the iteration limit (reduce integrator.dt)";
    if (std::strcmp(newton_message, "Newton: singular or non-finite Jacobian") == 0)
      return "DDB step (a): singular or non-finite Newton Jacobian (reduce integrator.dt)";
    return "DDB step (a): non-finite Newton iterate (reduce integrator.dt)";
  }

  models::RigidBody b_;
  solve::NewtonOptions newton_;
  bool K_scalar_;           ///< K = alpha Id (the paper's case): phi = alpha (I xi) × xi
  Vec3 c_ = Vec3::Zero();   ///< Kahan residue of M, carried across steps
  Vec3 xi_ = Vec3::Zero();  ///< xi of the last step

 public:
  /// The carried state (checkpoints): the Kahan residue and the last xi (the next Newton start).
  void state(StateIO& a) {
    a("c", c_);
    a("xi", xi_);
  }
};

using DDBCayley = DDB<lie::Cayley<lie::SO3>>;
using DDBExp = DDB<lie::Exp<lie::SO3>>;
using DDBExp2 = DDB<lie::Exp2<lie::SO3>>;

}  // namespace lievi::integrators
