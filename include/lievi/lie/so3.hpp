#pragma once
/// @file lievi/lie/so3.hpp
/// @brief SO(3) as a value type, its algebra so(3) ~ R^3 (hat/vee), ad, Ad and their duals.
///
/// Conventions (docs/conventions.md, rigid-body-ddb spec §1):
///  - hat(x) y = x × y;  ad_x y = x × y (ad_x = hat(x));  Ad_R x = R x.
///  - pairing <mu, xi> = mu · xi; duals are transposes:  ad*_x mu = -hat(x) mu = mu × x,  Ad*_R mu = R^T mu.
#include <Eigen/Core>
#include <Eigen/Geometry>
#include <cmath>

#include "lievi/core/tolerances.hpp"

namespace lievi::lie {

using Vec3 = Eigen::Matrix<double, 3, 1>;
using Mat3 = Eigen::Matrix<double, 3, 3>;

/// hat: R^3 -> so(3),  hat(x) y = x × y.
inline Mat3 hat(const Vec3& x) {
  Mat3 X;
  X << 0.0, -x.z(), x.y(),  //
      x.z(), 0.0, -x.x(),   //
      -x.y(), x.x(), 0.0;
  return X;
}

/// vee: so(3) -> R^3, the inverse of hat (reads the skew part).
inline Vec3 vee(const Mat3& X) {
  return Vec3(0.5 * (X(2, 1) - X(1, 2)), 0.5 * (X(0, 2) - X(2, 0)), 0.5 * (X(1, 0) - X(0, 1)));
}

/// Series-safe scalar functions of the rotation angle t = |x| used by the SO(3)/SE(3) closed forms.
/// Each switches to its Taylor series below a named threshold (core/tolerances.hpp).
namespace so3_series {

/// sin(t)/t  (series to t^12 below tol::small_angle; no cancellation, but avoids 0/0).
inline double sinc(double t) {
  if (t < tol::small_angle) {
    const double t2 = t * t;
    return 1.0 + t2 * (-1.0 / 6 + t2 * (1.0 / 120 + t2 * (-1.0 / 5040 + t2 * (1.0 / 362880 +
           t2 * (-1.0 / 39916800 + t2 * (1.0 / 6227020800.0))))));
  }
  return std::sin(t) / t;
}

/// (1 - cos t)/t^2 = ½ (sin(t/2)/(t/2))^2  (cancellation-free form).
inline double one_minus_cos_over_t2(double t) {
  const double s = sinc(0.5 * t);
  return 0.5 * s * s;
}

/// (t - sin t)/t^3  (series to t^12 below tol::small_angle).
inline double t_minus_sin_over_t3(double t) {
  if (t < tol::small_angle) {
    const double t2 = t * t;
    return 1.0 / 6 + t2 * (-1.0 / 120 + t2 * (1.0 / 5040 + t2 * (-1.0 / 362880 + t2 * (1.0 / 39916800 +
           t2 * (-1.0 / 6227020800.0 + t2 * (1.0 / 1307674368000.0))))));
  }
  return (t - std::sin(t)) / (t * t * t);
}

/// beta(t) = (1 - (t/2) cot(t/2)) / t^2 = sum_{n>=1} |B_2n| t^(2n-2) / (2n)!  (series to t^14 below
/// tol::small_angle). The coefficient of hat(x)^2 in dexp^{-1}_x (rigid-body-ddb spec §2).
inline double beta(double t) {
  if (t < tol::small_angle) {
    const double t2 = t * t;
    return 1.0 / 12 + t2 * (1.0 / 720 + t2 * (1.0 / 30240 + t2 * (1.0 / 1209600 + t2 * (1.0 / 47900160 +
           t2 * (691.0 / (2730.0 * 479001600.0) + t2 * (7.0 / (6.0 * 87178291200.0) +
           t2 * (3617.0 / (510.0 * 20922789888000.0))))))));
  }
  const double half = 0.5 * t;
  return (1.0 - half * std::cos(half) / std::sin(half)) / (t * t);
}

/// gamma(t) = beta'(t)/t = sum_{n>=2} |B_2n| (2n-2) t^(2n-4)/(2n)!  (series to t^16 below
/// tol::small_angle_gamma), used in the Newton Jacobian of DDB-exp (spec §3).
inline double gamma(double t) {
  if (t < tol::small_angle_gamma) {
    // |B_2n| for n = 2..10
    constexpr double B[] = {1.0 / 30, 1.0 / 42, 1.0 / 30, 5.0 / 66, 691.0 / 2730, 7.0 / 6, 3617.0 / 510,
                            43867.0 / 798, 174611.0 / 330};
    double fact = 24.0;  // (2n)! for n = 2
    double c[9];
    for (int k = 0; k < 9; ++k) {
      const int n = k + 2;
      if (k > 0) fact *= (2.0 * n - 1) * (2.0 * n);
      c[k] = B[k] * (2.0 * n - 2) / fact;
    }
    const double t2 = t * t;
    double s = c[8];
    for (int k = 7; k >= 0; --k) s = c[k] + t2 * s;
    return s;
  }
  const double half = 0.5 * t;
  const double sh = std::sin(half), ch = std::cos(half);
  const double cot = ch / sh, csc2 = 1.0 / (sh * sh);
  const double dbeta = -2.0 / (t * t * t) + csc2 / (4.0 * t) + cot / (2.0 * t * t);
  return dbeta / t;
}

}  // namespace so3_series

/// A rotation R in SO(3), stored as a 3x3 matrix (body to spatial when used as an attitude).
class SO3 {
 public:
  using Algebra = Vec3;
  using Matrix = Mat3;  ///< matrices acting on the algebra (ad, Ad, Jacobians)
  static constexpr int dof = 3;

  SO3() : R_(Mat3::Identity()) {}
  explicit SO3(const Mat3& R) : R_(R) {}

  static SO3 identity() { return SO3(); }
  [[nodiscard]] const Mat3& matrix() const { return R_; }

  SO3 operator*(const SO3& other) const { return SO3(R_ * other.R_); }
  [[nodiscard]] SO3 inverse() const { return SO3(R_.transpose()); }
  /// Action on a point: R p.
  [[nodiscard]] Vec3 act(const Vec3& p) const { return R_ * p; }
  /// Ad_R x = R x (matrix: R).
  [[nodiscard]] Mat3 Ad() const { return R_; }

  static Mat3 hat(const Vec3& x) { return lie::hat(x); }
  static Vec3 vee(const Mat3& X) { return lie::vee(X); }
  /// ad_x = hat(x).
  static Mat3 ad(const Vec3& x) { return lie::hat(x); }
  /// ad*_x mu = (ad_x)^T mu = mu × x.
  static Vec3 ad_star(const Vec3& x, const Vec3& mu) { return mu.cross(x); }

  /// Hamilton unit quaternion (w, x, y, z) with w >= 0.
  [[nodiscard]] Eigen::Quaterniond quaternion() const {
    Eigen::Quaterniond q(R_);
    q.normalize();
    if (q.w() < 0) q.coeffs() = -q.coeffs();
    return q;
  }

  /// ||R^T R - I||_max, a measure of how far the stored matrix is from SO(3).
  [[nodiscard]] double orthogonality_error() const {
    return (R_.transpose() * R_ - Mat3::Identity()).cwiseAbs().maxCoeff();
  }

 private:
  Mat3 R_;
};

/// Ad*_R mu = R^T mu (rigid-body-ddb spec §1; the dual of Ad_R x = R x under mu · xi).
inline Vec3 Ad_star(const SO3& g, const Vec3& mu) { return g.matrix().transpose() * mu; }

}  // namespace lievi::lie
