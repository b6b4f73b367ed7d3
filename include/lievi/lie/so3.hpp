#pragma once
/// @file lievi/lie/so3.hpp
/// @brief SO(3) as a value type, its algebra so(3) ~ R^3 (hat/vee), ad, Ad and their duals.
///
/// Conventions (docs/conventions.md, docs/theory/ddb.md "Conventions"):
///  - hat(x) y = x × y;  ad_x y = x × y (ad_x = hat(x));  Ad_R x = R x.
///  - pairing <mu, xi> = mu · xi; duals are transposes:  ad*_x mu = -hat(x) mu = mu × x,  Ad*_R mu = R^T mu.
#include <Eigen/Core>
#include <Eigen/Geometry>
#include <array>
#include <cmath>
#include <cstddef>

#include "lievi/core/tolerances.hpp"
#include "lievi/lie/bernoulli.hpp"
#include "lievi/lie/concepts.hpp"

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
/// Each switches to its Taylor series below a named threshold (core/tolerances.hpp); the thresholds and series
/// orders are chosen so that every helper is accurate to a few ulps for all t in [0, 2 pi) (tests/lie/).
namespace so3_series {

namespace detail {
/// n! in long double (exact up to 25!; coefficient tables are rounded to double once).
constexpr long double factorial(int n) {
  long double f = 1.0L;
  for (int k = 2; k <= n; ++k) f *= static_cast<long double>(k);
  return f;
}
/// sum_k c[k] t2^k by Horner's rule.
template <std::size_t N>
constexpr double horner(const std::array<double, N>& c, double t2) {
  double s = c[N - 1];
  for (std::size_t k = N - 1; k-- > 0;) s = c[k] + t2 * s;
  return s;
}
/// c[k] = (-1)^k (a k + b) / (2k + d)!, k = 0..N-1: the coefficient pattern of every series below.
template <std::size_t N>
constexpr std::array<double, N> alternating(int a, int b, int d) {
  std::array<double, N> c{};
  for (std::size_t k = 0; k < N; ++k) {
    const int ki = static_cast<int>(k);
    const long double v = static_cast<long double>(a * ki + b) / factorial(2 * ki + d);
    c[k] = static_cast<double>(k % 2 == 0 ? v : -v);
  }
  return c;
}
}  // namespace detail

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

/// (t - sin t)/t^3 = sum_k (-1)^k t^{2k}/(2k+3)!  (series to t^20 below tol::small_angle_t_minus_sin).
inline double t_minus_sin_over_t3(double t) {
  static constexpr auto c = detail::alternating<11>(0, 1, 3);
  if (t < tol::small_angle_t_minus_sin) return detail::horner(c, t * t);
  return (t - std::sin(t)) / (t * t * t);
}

/// (1 - cos t - (t/2) sin t)/t^4 = sum_k (-1)^k (k+1) t^{2k}/(2k+4)!  (series to t^22 below
/// tol::small_angle_beta_numerator; closed form sin(t/2) (2 sin(t/2) - t cos(t/2)) / t^4 above).
inline double one_minus_cos_minus_half_t_sin_over_t4(double t) {
  static constexpr auto c = detail::alternating<12>(1, 1, 4);
  if (t < tol::small_angle_beta_numerator) return detail::horner(c, t * t);
  const double s = std::sin(0.5 * t), co = std::cos(0.5 * t);
  const double t2 = t * t;
  return s * (2.0 * s - t * co) / (t2 * t2);
}

/// (t^2 + t sin t - 4 (1 - cos t))/t^6 = sum_k (-1)^k (2k+2) t^{2k}/(2k+6)!  (series to t^28 below
/// tol::small_angle_gamma_numerator; closed form with 4 (1 - cos t) = 8 sin^2(t/2) above).
inline double t2_plus_t_sin_minus_4_one_minus_cos_over_t6(double t) {
  static constexpr auto c = detail::alternating<15>(2, 2, 6);
  if (t < tol::small_angle_gamma_numerator) return detail::horner(c, t * t);
  const double s = std::sin(0.5 * t);
  const double t2 = t * t;
  return (t2 + t * std::sin(t) - 8.0 * s * s) / (t2 * t2 * t2);
}

/// beta(t) = (1 - (t/2) cot(t/2)) / t^2 = sum_{n>=1} |B_2n| t^(2n-2) / (2n)!, the coefficient of hat(x)^2 in
/// dexp^{-1}_x (docs/theory/ddb.md "Conventions"). Series to t^14 below tol::small_angle; above, the cancellation-free
/// rewriting beta = 2 [(1 - cos t - (t/2) sin t)/t^4] / sinc(t/2)^2. Pole at t = 2 pi.
inline double beta(double t) {
  if (t < tol::small_angle) {
    const double t2 = t * t;
    return 1.0 / 12 + t2 * (1.0 / 720 + t2 * (1.0 / 30240 + t2 * (1.0 / 1209600 + t2 * (1.0 / 47900160 +
           t2 * (691.0 / (2730.0 * 479001600.0) + t2 * (7.0 / (6.0 * 87178291200.0) +
           t2 * (3617.0 / (510.0 * 20922789888000.0))))))));
  }
  const double s = sinc(0.5 * t);
  return 2.0 * one_minus_cos_minus_half_t_sin_over_t4(t) / (s * s);
}

/// gamma(t) = beta'(t)/t = sum_{n>=2} |B_2n| (2n-2) t^(2n-4)/(2n)!, used in the Newton Jacobian of DDB-exp
/// (docs/theory/ddb.md "One step, as implemented"). Series to t^24 below tol::small_angle_gamma; above, the cancellation-free rewriting
/// gamma = [(t^2 + t sin t - 4 (1 - cos t))/t^6] / sinc(t/2)^2. Pole at t = 2 pi.
inline double gamma(double t) {
  if (t < tol::small_angle_gamma) {
    static constexpr auto c = [] {
      std::array<double, 13> a{};
      for (std::size_t k = 0; k < a.size(); ++k) {  // n = k + 2, |b_2n| (2n - 2)
        const int n = static_cast<int>(k) + 2;
        const double b = bernoulli::over_factorial[2 * n];
        a[k] = (b < 0 ? -b : b) * (2.0 * n - 2.0);
      }
      return a;
    }();
    return detail::horner(c, t * t);
  }
  const double s = sinc(0.5 * t);
  return t2_plus_t_sin_minus_4_one_minus_cos_over_t6(t) / (s * s);
}

}  // namespace so3_series

/// A rotation R in SO(3), stored as a 3x3 matrix (body to spatial when used as an attitude).
class SO3 {
 public:
  using Algebra = Vec3;
  using Matrix = Mat3;     ///< matrices acting on the algebra (ad, Ad, Jacobians)
  using Embedding = Mat3;  ///< the group's matrix, and the type of hat(x)
  using Point = Vec3;      ///< what act() acts on
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
  /// ad*_x mu is linear in x too: ad*_x mu = mu × x = hat(mu) x; this returns hat(mu) = d(ad*_x mu)/dx.
  static Mat3 J_ad_star_x(const Vec3& mu) { return lie::hat(mu); }

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

/// Ad*_R mu = R^T mu (docs/theory/ddb.md "Conventions"; the dual of Ad_R x = R x under mu · xi).
inline Vec3 Ad_star(const SO3& g, const Vec3& mu) { return g.matrix().transpose() * mu; }

static_assert(LieGroup<SO3>);

}  // namespace lievi::lie
