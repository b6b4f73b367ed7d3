#pragma once
/// @file lievi/lie/retraction/exp.hpp
/// @brief The exponential retraction tau = exp, its right-trivialised tangents in closed form, and the
/// paper's variant with dexp^{-1} truncated after order 2 (`exp2`).
///
/// T_x exp(dx) = (dexp_x dx)^ exp(x);  dexp_x = sum_k ad_x^k/(k+1)!,  dexp_x^{-1} = sum_k B_k/k! ad_x^k
/// (Bernoulli numbers, B_1 = -1/2). Duals (`*_star`) are transposes under mu · xi.
#include <Eigen/LU>
#include <cmath>

#include "lievi/lie/concepts.hpp"
#include "lievi/lie/retraction/series.hpp"
#include "lievi/lie/rn.hpp"
#include "lievi/lie/se3.hpp"
#include "lievi/lie/so3.hpp"

namespace lievi::lie {

template <class G>
struct Exp;

/// exp on SO(3): Rodrigues' formula; closed-form dexp and dexp^{-1} (docs/theory/ddb.md "Conventions").
template <>
struct Exp<SO3> {
  using Group = SO3;
  static constexpr const char* id = "exp";

  /// exp(x) v - v = (sin t/t) x × v + ((1 - cos t)/t^2) x × (x × v),  t = |x|.
  static Vec3 act_increment(const Vec3& x, const Vec3& v) {
    const double t = x.norm();
    const Vec3 xv = x.cross(v);
    return so3_series::sinc(t) * xv + so3_series::one_minus_cos_over_t2(t) * x.cross(xv);
  }
  /// exp(x) v.
  static Vec3 act(const Vec3& x, const Vec3& v) { return v + act_increment(x, v); }

  /// exp(x) = I + (sin t/t) x^ + ((1 - cos t)/t^2) x^2.
  static SO3 tau(const Vec3& x) {
    const double t = x.norm();
    const Mat3 X = hat(x);
    return SO3(Mat3::Identity() + so3_series::sinc(t) * X + so3_series::one_minus_cos_over_t2(t) * X * X);
  }
  /// log(R), angle in [0, pi]; accurate near 0 and near pi.
  static Vec3 tau_inv(const SO3& g) {
    const Mat3& R = g.matrix();
    const Vec3 s = vee(R - R.transpose()) * 0.5;  // sin(t) n
    const double ct = 0.5 * (R.trace() - 1.0);
    const double st = s.norm();
    const double t = std::atan2(st, ct);
    if (ct > -0.5) return s / so3_series::sinc(t);  // well away from pi: sin t is not small relative to t
    // Near pi: recover the axis from the symmetric part  R + R^T = 2 cos t I + 2 (1 - cos t) n n^T.
    const Mat3 nn = (0.5 * (R + R.transpose()) - ct * Mat3::Identity()) / (1.0 - ct);
    int k = 0;
    nn.diagonal().maxCoeff(&k);
    Vec3 n = nn.col(k) / std::sqrt(nn(k, k));
    if (n.dot(s) < 0) n = -n;
    return t * n;
  }
  /// dexp_x = I + ((1 - cos t)/t^2) x^ + ((t - sin t)/t^3) x^2.
  static Mat3 dtau(const Vec3& x) {
    const double t = x.norm();
    const Mat3 X = hat(x);
    return Mat3::Identity() + so3_series::one_minus_cos_over_t2(t) * X + so3_series::t_minus_sin_over_t3(t) * X * X;
  }
  /// dexp_x^{-1} = I - ½ x^ + beta(t) x^2.
  static Mat3 dtau_inv(const Vec3& x) {
    const Mat3 X = hat(x);
    return Mat3::Identity() - 0.5 * X + beta(x) * X * X;
  }
  static Mat3 dtau_star(const Vec3& x) { return dtau(x).transpose(); }
  /// (dexp_x^{-1})^T = I + ½ x^ + beta(t) x^2.
  static Mat3 dtau_inv_star(const Vec3& x) {
    const Mat3 X = hat(x);
    return Mat3::Identity() + 0.5 * X + beta(x) * X * X;
  }
  /// (dexp_x^{-1})^T p = p + ½ x × p + beta x × (x × p).
  static Vec3 dtau_inv_star_apply(const Vec3& x, const Vec3& p) {
    const Vec3 xp = x.cross(p);
    return p + 0.5 * xp + beta(x) * x.cross(xp);
  }
  /// J = d/dx [(dexp_x^{-1})^T p] = -½ p^ + beta ((x·p) I + x p^T - 2 p x^T) + gamma (x × (x × p)) x^T,
  /// gamma = beta'(t)/t.
  static Mat3 J_dtau_inv_star_x(const Vec3& x, const Vec3& p) {
    const double t = x.norm();
    const Vec3 xxp = x.cross(x.cross(p));
    return -0.5 * hat(p) +
           so3_series::beta(t) * (x.dot(p) * Mat3::Identity() + x * p.transpose() - 2.0 * p * x.transpose()) +
           gamma(x) * xxp * x.transpose();
  }

  /// The coefficient of x^2 in dexp^{-1}: beta(|x|) (exp2 overrides it with 1/12).
  static double beta(const Vec3& x) { return so3_series::beta(x.norm()); }
  static double gamma(const Vec3& x) { return so3_series::gamma(x.norm()); }
};

/// The paper's `exp2` (seed 002, §4): tau = exp, but dexp^{-1} truncated after order 2,
///   dtau_x^{-1} := I - ½ x^ + (1/12) x^2.
/// No longer the exact tangent of exp, so the resulting scheme is not exactly variational (its energy
/// error drifts slowly in long conservative runs; see docs).
template <class G>
struct Exp2;

template <>
struct Exp2<SO3> {
  using Group = SO3;
  static constexpr const char* id = "exp2";

  static Vec3 act_increment(const Vec3& x, const Vec3& v) { return Exp<SO3>::act_increment(x, v); }
  static Vec3 act(const Vec3& x, const Vec3& v) { return Exp<SO3>::act(x, v); }
  static SO3 tau(const Vec3& x) { return Exp<SO3>::tau(x); }
  static Vec3 tau_inv(const SO3& g) { return Exp<SO3>::tau_inv(g); }
  /// The inverse of the truncated dtau^{-1} (so that dtau dtau_inv = I holds for this retraction too).
  static Mat3 dtau(const Vec3& x) { return dtau_inv(x).inverse(); }
  static Mat3 dtau_inv(const Vec3& x) {
    const Mat3 X = hat(x);
    return Mat3::Identity() - 0.5 * X + (1.0 / 12.0) * X * X;
  }
  static Mat3 dtau_star(const Vec3& x) { return dtau(x).transpose(); }
  static Mat3 dtau_inv_star(const Vec3& x) { return dtau_inv(x).transpose(); }
  static Vec3 dtau_inv_star_apply(const Vec3& x, const Vec3& p) {
    const Vec3 xp = x.cross(p);
    return p + 0.5 * xp + (1.0 / 12.0) * x.cross(xp);
  }
  /// J = -½ p^ + (1/12) ((x·p) I + x p^T - 2 p x^T).
  static Mat3 J_dtau_inv_star_x(const Vec3& x, const Vec3& p) {
    return -0.5 * hat(p) + (1.0 / 12.0) * (x.dot(p) * Mat3::Identity() + x * p.transpose() - 2.0 * p * x.transpose());
  }
};

// --- SE(3) --------------------------------------------------------------------------------

/// exp on SE(3), x = (omega, v): exp(x) = (exp(omega), J_l(omega) v), J_l = dexp on SO(3); closed-form dexp and
/// dexp^{-1} through the Q-matrix (docs/theory/beam.md "SE(3) formulas", after Barfoot–Furgale):
///   dexp_x = [[J_l, 0], [Q, J_l]],   dexp_x^{-1} = [[J_l^{-1}, 0], [-J_l^{-1} Q J_l^{-1}, J_l^{-1}]],
///   Q = ½ V + c_1 (W V + V W + W V W) + c_2 (W^2 V + V W^2 - 3 W V W) + c_3 (W V W^2 + W^2 V W),
/// W = hat(omega), V = hat(v), t = |omega|, c_1 = (t - sin t)/t^3, c_2 = (t^2 + 2 cos t - 2)/(2 t^4),
/// c_3 = (2t - 3 sin t + t cos t)/(2 t^5). Q is the lower-left block of sum_k ad_x^k/(k+1)! (tests/lie).
template <>
struct Exp<SE3> {
  using Group = SE3;
  static constexpr const char* id = "exp";

  /// The Q-matrix above (lower-left block of dexp_x).
  static Mat3 Q(const Vec3& omega, const Vec3& v) {
    const double t = omega.norm();
    const Mat3 W = hat(omega), V = hat(v);
    const Mat3 WV = W * V, VW = V * W, WVW = WV * W, W2 = W * W;
    return 0.5 * V + so3_series::t_minus_sin_over_t3(t) * (WV + VW + WVW) +
           se3_series::t2_plus_2cos_minus_2_over_2t4(t) * (W2 * V + V * W2 - 3.0 * WVW) +
           se3_series::two_t_minus_3sin_plus_t_cos_over_2t5(t) * (WVW * W + W2 * VW);
  }

  /// exp(omega, v) = (exp(omega), J_l(omega) v).
  static SE3 tau(const Vec6& x) {
    const Vec3 omega = SE3::angular(x);
    return SE3(Exp<SO3>::tau(omega), Vec3(Exp<SO3>::dtau(omega) * SE3::linear(x)));
  }
  /// log(R, p) = (log R, J_l^{-1}(log R) p), rotation angle in [0, pi].
  static Vec6 tau_inv(const SE3& g) {
    const Vec3 omega = Exp<SO3>::tau_inv(g.so3());
    return SE3::join(omega, Exp<SO3>::dtau_inv(omega) * g.translation());
  }
  /// dexp_x = [[J_l, 0], [Q, J_l]].
  static Mat6 dtau(const Vec6& x) {
    const Vec3 omega = SE3::angular(x);
    const Mat3 J = Exp<SO3>::dtau(omega);
    Mat6 D;
    D.topLeftCorner<3, 3>() = J;
    D.topRightCorner<3, 3>().setZero();
    D.bottomLeftCorner<3, 3>() = Q(omega, SE3::linear(x));
    D.bottomRightCorner<3, 3>() = J;
    return D;
  }
  /// dexp_x^{-1} = [[J_l^{-1}, 0], [-J_l^{-1} Q J_l^{-1}, J_l^{-1}]].
  static Mat6 dtau_inv(const Vec6& x) {
    const Vec3 omega = SE3::angular(x);
    const Mat3 Ji = Exp<SO3>::dtau_inv(omega);
    Mat6 D;
    D.topLeftCorner<3, 3>() = Ji;
    D.topRightCorner<3, 3>().setZero();
    D.bottomLeftCorner<3, 3>() = -(Ji * Q(omega, SE3::linear(x)) * Ji);
    D.bottomRightCorner<3, 3>() = Ji;
    return D;
  }
  static Mat6 dtau_star(const Vec6& x) { return dtau(x).transpose(); }
  static Mat6 dtau_inv_star(const Vec6& x) { return dtau_inv(x).transpose(); }
  /// (dexp_x^{-1})^T mu = (J_l^{-T} (m - Q^T J_l^{-T} n), J_l^{-T} n) for mu = (m, n).
  static Vec6 dtau_inv_star_apply(const Vec6& x, const Vec6& mu) {
    const Vec3 omega = SE3::angular(x);
    const Mat3 JiT = Exp<SO3>::dtau_inv_star(omega);
    const Vec3 n_tilde = JiT * SE3::linear(mu);
    return SE3::join(JiT * (SE3::angular(mu) - Q(omega, SE3::linear(x)).transpose() * n_tilde), n_tilde);
  }
};

/// The paper's order-2 truncation on SE(3): tau = exp, dtau^{-1}_x := I - ½ ad_x + (1/12) ad_x^2
/// (= dexp_inv_series(x, 2)); dtau is its inverse. Not the exact tangent of exp (see Exp2<SO3>).
template <>
struct Exp2<SE3> {
  using Group = SE3;
  static constexpr const char* id = "exp2";

  static SE3 tau(const Vec6& x) { return Exp<SE3>::tau(x); }
  static Vec6 tau_inv(const SE3& g) { return Exp<SE3>::tau_inv(g); }
  static Mat6 dtau_inv(const Vec6& x) {
    const Mat6 A = SE3::ad(x);
    return Mat6::Identity() - 0.5 * A + (1.0 / 12.0) * A * A;
  }
  static Mat6 dtau(const Vec6& x) { return dtau_inv(x).inverse(); }
  static Mat6 dtau_star(const Vec6& x) { return dtau(x).transpose(); }
  static Mat6 dtau_inv_star(const Vec6& x) { return dtau_inv(x).transpose(); }
};

// --- R^n ----------------------------------------------------------------------------------

/// exp on the translation group R^N: exp(x) = x (as a translation); dexp = dexp^{-1} = I.
template <int N>
struct Exp<Rn<N>> {
  using Group = Rn<N>;
  using Algebra = typename Group::Algebra;
  using Matrix = typename Group::Matrix;
  static constexpr const char* id = "exp";

  static Group tau(const Algebra& x) { return Group(x); }
  static Algebra tau_inv(const Group& g) { return g.translation(); }
  static Matrix dtau(const Algebra&) { return Matrix::Identity(); }
  static Matrix dtau_inv(const Algebra&) { return Matrix::Identity(); }
  static Matrix dtau_star(const Algebra&) { return Matrix::Identity(); }
  static Matrix dtau_inv_star(const Algebra&) { return Matrix::Identity(); }
};

static_assert(Retraction<Exp<SO3>, SO3>);
static_assert(Retraction<Exp2<SO3>, SO3>);
static_assert(Retraction<Exp<SE3>, SE3>);
static_assert(Retraction<Exp2<SE3>, SE3>);
static_assert(Retraction<Exp<Rn<3>>, Rn<3>>);

}  // namespace lievi::lie
