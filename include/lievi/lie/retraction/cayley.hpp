#pragma once
/// @file lievi/lie/retraction/cayley.hpp
/// @brief The Cayley retraction tau = cay and its right-trivialised tangents, as closed forms.
///
/// Definition of the right-trivialised tangent (rigid-body-ddb spec §2, seed 002 §4):
///   T_x tau(dx) = (dtau_x dx)^ tau(x).
/// Duals (`*_star`) are transposes under the pairing <mu, xi> = mu · xi.
#include "lievi/lie/so3.hpp"

namespace lievi::lie {

template <class G>
struct Cayley;

/// Cayley on SO(3): cay(x) = (I - x^/2)^{-1} (I + x^/2).
template <>
struct Cayley<SO3> {
  using Group = SO3;
  static constexpr const char* id = "cayley";

  /// c(x) = 4 / (4 + |x|^2).
  static double c(const Vec3& x) { return 4.0 / (4.0 + x.squaredNorm()); }

  /// tau(x) v = v + c (x × v + ½ x × (x × v))   (spec §2 table), without forming the matrix.
  static Vec3 act(const Vec3& x, const Vec3& v) {
    const Vec3 xv = x.cross(v);
    return v + c(x) * (xv + 0.5 * x.cross(xv));
  }
  /// The increment tau(x) v - v (for compensated summation of M <- tau(x) M).
  static Vec3 act_increment(const Vec3& x, const Vec3& v) {
    const Vec3 xv = x.cross(v);
    return c(x) * (xv + 0.5 * x.cross(xv));
  }

  /// tau(x) = I + c (x^ + ½ x^2).
  static SO3 tau(const Vec3& x) {
    const Mat3 X = hat(x);
    return SO3(Mat3::Identity() + c(x) * (X + 0.5 * X * X));
  }
  /// tau^{-1}(R) = 2 vee(R - R^T) / (1 + tr R)   (defined for tr R > -1, i.e. rotations by less than pi).
  static Vec3 tau_inv(const SO3& g) {
    const Mat3& R = g.matrix();
    return 2.0 * vee(R - R.transpose()) / (1.0 + R.trace());
  }
  /// dtau_x = c (I + ½ x^).
  static Mat3 dtau(const Vec3& x) { return c(x) * (Mat3::Identity() + 0.5 * hat(x)); }
  /// dtau_x^{-1} = I - ½ x^ + ¼ x x^T.
  static Mat3 dtau_inv(const Vec3& x) {
    return Mat3::Identity() - 0.5 * hat(x) + 0.25 * x * x.transpose();
  }
  /// (dtau_x)^T = c (I - ½ x^).
  static Mat3 dtau_star(const Vec3& x) { return dtau(x).transpose(); }
  /// (dtau_x^{-1})^T = I + ½ x^ + ¼ x x^T.
  static Mat3 dtau_inv_star(const Vec3& x) {
    return Mat3::Identity() + 0.5 * hat(x) + 0.25 * x * x.transpose();
  }
  /// (dtau_x^{-1})^T p = p + ½ x × p + ¼ (x · p) x.
  static Vec3 dtau_inv_star_apply(const Vec3& x, const Vec3& p) {
    return p + 0.5 * x.cross(p) + 0.25 * x.dot(p) * x;
  }
  /// J = d/dx [ (dtau_x^{-1})^T p ] = -½ p^ + ¼ ((x · p) I + x p^T).
  static Mat3 J_dtau_inv_star_x(const Vec3& x, const Vec3& p) {
    return -0.5 * hat(p) + 0.25 * (x.dot(p) * Mat3::Identity() + x * p.transpose());
  }
};

}  // namespace lievi::lie
