#pragma once
/// @file lievi/lie/se3.hpp
/// @brief SE(3) as a value type g = (R, p), its algebra se(3) ~ R^6 ordered (omega, v), ad, Ad and their duals.
///
/// Conventions (docs/theory/beam.md "SE(3) formulas", docs/conventions.md):
///  - xi = (omega, v): angular part first, then linear; dual mu = (m, n) (moment, force) in the same order.
///  - hat(xi) = [[hat(omega), v], [0, 0]] (4x4); g = [[R, p], [0, 1]];  g1 g2 = (R1 R2, p1 + R1 p2);
///    g^{-1} = (R^T, -R^T p);  g . x = R x + p.
///  - ad_xi = [[hat(omega), 0], [hat(v), hat(omega)]] (= the matrix commutator); Ad_g = [[R, 0], [hat(p) R, R]].
///  - Pairing mu . xi on R^6, so ad*_xi = ad_xi^T and Ad*_g = Ad_g^T = [[R^T, -R^T hat(p)], [0, R^T]].
#include <Eigen/Core>
#include <array>
#include <cmath>

#include "lievi/core/state_io.hpp"
#include "lievi/core/tolerances.hpp"
#include "lievi/lie/concepts.hpp"
#include "lievi/lie/so3.hpp"

namespace lievi::lie {

using Vec6 = Eigen::Matrix<double, 6, 1>;
using Mat6 = Eigen::Matrix<double, 6, 6>;
using Mat4 = Eigen::Matrix<double, 4, 4>;

/// Scalar coefficients of the SE(3) Q-matrix (docs/theory/beam.md "SE(3) formulas", Barfoot–Furgale), functions of t = |omega|.
/// c_1 = (t - sin t)/t^3 is so3_series::t_minus_sin_over_t3.
namespace se3_series {

/// c_2(t) = (t^2 + 2 cos t - 2)/(2 t^4) = sum_k (-1)^k t^{2k}/(2k+4)!  (series to t^22 below
/// tol::small_angle_se3_c2; closed form (t^2 - 4 sin^2(t/2))/(2 t^4) above).
inline double t2_plus_2cos_minus_2_over_2t4(double t) {
  static constexpr auto c = so3_series::detail::alternating<12>(0, 1, 4);
  if (t < tol::small_angle_se3_c2) return so3_series::detail::horner(c, t * t);
  const double s = std::sin(0.5 * t);
  const double t2 = t * t;
  return (t2 - 4.0 * s * s) / (2.0 * t2 * t2);
}

/// c_3(t) = (2t - 3 sin t + t cos t)/(2 t^5) = sum_k (-1)^k (k+1) t^{2k}/(2k+5)!  (series to t^26 below
/// tol::small_angle_se3_c3).
inline double two_t_minus_3sin_plus_t_cos_over_2t5(double t) {
  static constexpr auto c = so3_series::detail::alternating<14>(1, 1, 5);
  if (t < tol::small_angle_se3_c3) return so3_series::detail::horner(c, t * t);
  const double t2 = t * t;
  return (2.0 * t - 3.0 * std::sin(t) + t * std::cos(t)) / (2.0 * t2 * t2 * t);
}

}  // namespace se3_series

/// A rigid motion g = (R, p) in SE(3): rotation R (body to spatial) and translation p.
class SE3 {
 public:
  using Algebra = Vec6;    ///< xi = (omega, v), angular first
  using Matrix = Mat6;     ///< matrices acting on the algebra (ad, Ad, Jacobians)
  using Embedding = Mat4;  ///< the homogeneous 4x4 matrix, and the type of hat(xi)
  using Point = Vec3;
  static constexpr int dof = 6;

  SE3() : R_(Mat3::Identity()), p_(Vec3::Zero()) {}
  SE3(const Mat3& R, const Vec3& p) : R_(R), p_(p) {}
  SE3(const SO3& R, const Vec3& p) : R_(R.matrix()), p_(p) {}
  /// From a homogeneous matrix [[R, p], [0, 1]] (the last row is not checked).
  explicit SE3(const Mat4& T) : R_(T.topLeftCorner<3, 3>()), p_(T.topRightCorner<3, 1>()) {}

  static SE3 identity() { return SE3(); }
  [[nodiscard]] const Mat3& rotation() const { return R_; }
  [[nodiscard]] const Vec3& translation() const { return p_; }
  [[nodiscard]] SO3 so3() const { return SO3(R_); }
  /// The 12 coefficients, contiguous: R column-major, then p (the batched kernels of models/beam_batch.hpp
  /// read and write arrays of poses this way).
  [[nodiscard]] const double* data() const { return R_.data(); }
  [[nodiscard]] double* data() { return R_.data(); }
  /// The homogeneous matrix [[R, p], [0, 1]].
  [[nodiscard]] Mat4 matrix() const {
    Mat4 T = Mat4::Identity();
    T.topLeftCorner<3, 3>() = R_;
    T.topRightCorner<3, 1>() = p_;
    return T;
  }

  /// g1 g2 = (R1 R2, p1 + R1 p2).
  SE3 operator*(const SE3& o) const { return SE3(R_ * o.R_, p_ + R_ * o.p_); }
  /// g^{-1} = (R^T, -R^T p).
  [[nodiscard]] SE3 inverse() const {
    const Mat3 Rt = R_.transpose();
    return SE3(Rt, -(Rt * p_));
  }
  /// Action on a point: g . x = R x + p.
  [[nodiscard]] Vec3 act(const Vec3& x) const { return R_ * x + p_; }
  /// Ad_g = [[R, 0], [hat(p) R, R]]  (Ad_g eta = vee(g hat(eta) g^{-1})).
  [[nodiscard]] Mat6 Ad() const {
    Mat6 A;
    A.topLeftCorner<3, 3>() = R_;
    A.topRightCorner<3, 3>().setZero();
    A.bottomLeftCorner<3, 3>() = lie::hat(p_) * R_;
    A.bottomRightCorner<3, 3>() = R_;
    return A;
  }

  /// Angular part omega of xi = (omega, v).
  static Vec3 angular(const Vec6& xi) { return xi.head<3>(); }
  /// Linear part v of xi = (omega, v).
  static Vec3 linear(const Vec6& xi) { return xi.tail<3>(); }
  /// xi = (omega, v).
  static Vec6 join(const Vec3& omega, const Vec3& v) {
    Vec6 xi;
    xi << omega, v;
    return xi;
  }

  /// hat(xi) = [[hat(omega), v], [0, 0]].
  static Mat4 hat(const Vec6& xi) {
    Mat4 X = Mat4::Zero();
    X.topLeftCorner<3, 3>() = lie::hat(angular(xi));
    X.topRightCorner<3, 1>() = linear(xi);
    return X;
  }
  /// vee: the inverse of hat (reads the skew part of the rotation block and the last column).
  static Vec6 vee(const Mat4& X) {
    return join(lie::vee(Mat3(X.topLeftCorner<3, 3>())), Vec3(X.topRightCorner<3, 1>()));
  }
  /// ad_xi = [[hat(omega), 0], [hat(v), hat(omega)]]: ad_xi eta = (omega × alpha, omega × u + v × alpha).
  static Mat6 ad(const Vec6& xi) {
    const Mat3 W = lie::hat(angular(xi));
    Mat6 A;
    A.topLeftCorner<3, 3>() = W;
    A.topRightCorner<3, 3>().setZero();
    A.bottomLeftCorner<3, 3>() = lie::hat(linear(xi));
    A.bottomRightCorner<3, 3>() = W;
    return A;
  }
  /// ad*_xi mu = ad_xi^T mu = (m × omega + n × v, n × omega) for mu = (m, n)  (docs/theory/beam.md "SE(3) formulas").
  static Vec6 ad_star(const Vec6& xi, const Vec6& mu) {
    const Vec3 omega = angular(xi), v = linear(xi), m = angular(mu), n = linear(mu);
    return join(m.cross(omega) + n.cross(v), n.cross(omega));
  }
  /// ad*_xi mu is linear in xi: ad*_xi mu = C(mu) xi with C(mu) = [[hat(m), hat(n)], [hat(n), 0]]  (docs/theory/beam.md
  /// "SE(3) formulas", for Newton Jacobians). Returns C(mu) = d(ad*_xi mu)/dxi.
  static Mat6 J_ad_star_x(const Vec6& mu) {
    const Mat3 N = lie::hat(linear(mu));
    Mat6 C;
    C.topLeftCorner<3, 3>() = lie::hat(angular(mu));
    C.topRightCorner<3, 3>() = N;
    C.bottomLeftCorner<3, 3>() = N;
    C.bottomRightCorner<3, 3>().setZero();
    return C;
  }

 private:
  Mat3 R_;
  Vec3 p_;
};

static_assert(sizeof(SE3) == 12 * sizeof(double), "SE3::data: R and p are 12 contiguous doubles");

/// Ad*_g mu = Ad_g^T mu = (R^T (m - p × n), R^T n) for mu = (m, n)  (docs/theory/beam.md "SE(3) formulas").
inline Vec6 Ad_star(const SE3& g, const Vec6& mu) {
  const Mat3 Rt = g.rotation().transpose();
  const Vec3 m = SE3::angular(mu), n = SE3::linear(mu);
  return SE3::join(Rt * (m - g.translation().cross(n)), Rt * n);
}

static_assert(LieGroup<SE3>);

}  // namespace lievi::lie

namespace lievi {
/// A pose is stored as its rotation (9 doubles, column-major) and its position (3): 12 doubles, no padding.
template <>
struct StateDoubles<lie::SE3> {
  static constexpr std::size_t value = 12;
};
}  // namespace lievi
