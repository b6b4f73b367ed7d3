#pragma once
/// @file lievi/lie/retraction/exp.hpp
/// @brief The exponential retraction tau = exp, its right-trivialised tangents in closed form, and the
/// paper's variant with dexp^{-1} truncated after order 2 (`exp2`).
///
/// T_x exp(dx) = (dexp_x dx)^ exp(x);  dexp_x = sum_k ad_x^k/(k+1)!,  dexp_x^{-1} = sum_k B_k/k! ad_x^k
/// (Bernoulli numbers, B_1 = -1/2). Duals (`*_star`) are transposes under mu · xi.
#include <Eigen/LU>
#include <cmath>

#include "lievi/lie/so3.hpp"

namespace lievi::lie {

template <class G>
struct Exp;

/// exp on SO(3): Rodrigues' formula; closed-form dexp and dexp^{-1} (rigid-body-ddb spec §2).
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

}  // namespace lievi::lie
