#pragma once
/// @file lievi/lie/retraction/cayley.hpp
/// @brief The Cayley retraction tau = cay and its right-trivialised tangents, as closed forms.
///
/// Definition of the right-trivialised tangent (docs/theory/ddb.md "Conventions", seed 002 §4):
///   T_x tau(dx) = (dtau_x dx)^ tau(x).
/// Duals (`*_star`) are transposes under the pairing <mu, xi> = mu · xi.
#include <limits>

#include "lievi/core/tolerances.hpp"
#include "lievi/lie/concepts.hpp"
#include "lievi/lie/rn.hpp"
#include "lievi/lie/se3.hpp"
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

  /// tau(x) v = v + c (x × v + ½ x × (x × v))   (docs/conventions.md), without forming the matrix.
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
  /// Near a rotation by pi (1 + tr R < tol::cayley_margin, or NaN) there is no usable inverse: the
  /// result is NaN, which the integrators' non-finite checks report (numerical failure is returned, not thrown).
  static Vec3 tau_inv(const SO3& g) {
    const Mat3& R = g.matrix();
    const double d = 1.0 + R.trace();
    if (!(d >= tol::cayley_margin)) return Vec3::Constant(std::numeric_limits<double>::quiet_NaN());
    return 2.0 * vee(R - R.transpose()) / d;
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

/// Cayley on SE(3): the 4x4 matrix Cayley cay(x) = (I - hat(x)/2)^{-1} (I + hat(x)/2), in closed form
/// (docs/theory/beam.md "SE(3) formulas"). With x = (omega, v), W = hat(omega), V = hat(v), s = |omega|^2:
///   cay(x) = (cay(omega), (4 v + 2 omega × v + (omega · v) omega)/(4 + s)),
///   dcay_x^{-1} = [[I - ½W + ¼ omega omega^T, 0], [-½ (I - ½W) V, I - ½W]],
///   dcay_x      = [[4/(4+s) (I + ½W), 0], [2/(4+s) V (I + ½W), (4I + 2W + omega omega^T)/(4+s)]].
template <>
struct Cayley<SE3> {
  using Group = SE3;
  static constexpr const char* id = "cayley";

  /// cay(x) = (cay(omega), (I - W/2)^{-1} v),
  /// (I - W/2)^{-1} v = (4v + 2 omega × v + (omega · v) omega)/(4+s).
  static SE3 tau(const Vec6& x) {
    const Vec3 omega = SE3::angular(x), v = SE3::linear(x);
    const double s = omega.squaredNorm();
    return SE3(Cayley<SO3>::tau(omega),
               Vec3((4.0 * v + 2.0 * omega.cross(v) + omega.dot(v) * omega) / (4.0 + s)));
  }
  /// cay^{-1}(R, p) = (omega, p - ½ omega × p), omega = cay^{-1}(R)  (rotations by less than pi).
  static Vec6 tau_inv(const SE3& g) {
    const Vec3 omega = Cayley<SO3>::tau_inv(g.so3());
    const Vec3& p = g.translation();
    return SE3::join(omega, p - 0.5 * omega.cross(p));
  }
  /// dcay_x, block form above.
  static Mat6 dtau(const Vec6& x) {
    const Vec3 omega = SE3::angular(x);
    const double s = omega.squaredNorm();
    const Mat3 W = hat(omega);
    const Mat3 I_plus = Mat3::Identity() + 0.5 * W;
    Mat6 D;
    D.topLeftCorner<3, 3>() = (4.0 / (4.0 + s)) * I_plus;
    D.topRightCorner<3, 3>().setZero();
    D.bottomLeftCorner<3, 3>() = (2.0 / (4.0 + s)) * hat(SE3::linear(x)) * I_plus;
    D.bottomRightCorner<3, 3>() = (4.0 * Mat3::Identity() + 2.0 * W + omega * omega.transpose()) / (4.0 + s);
    return D;
  }
  /// dcay_x^{-1}, block form above.
  static Mat6 dtau_inv(const Vec6& x) {
    const Vec3 omega = SE3::angular(x);
    const Mat3 I_minus = Mat3::Identity() - 0.5 * hat(omega);
    Mat6 D;
    D.topLeftCorner<3, 3>() = Cayley<SO3>::dtau_inv(omega);
    D.topRightCorner<3, 3>().setZero();
    D.bottomLeftCorner<3, 3>() = -0.5 * I_minus * hat(SE3::linear(x));
    D.bottomRightCorner<3, 3>() = I_minus;
    return D;
  }
  static Mat6 dtau_star(const Vec6& x) { return dtau(x).transpose(); }
  static Mat6 dtau_inv_star(const Vec6& x) { return dtau_inv(x).transpose(); }
  /// (dcay_x^{-1})^T mu = (m + ½ omega × m + ¼ (omega · m) omega + ½ v × n~, n~), n~ = n + ½ omega × n
  /// (docs/theory/beam.md "SE(3) formulas"; the inner-loop operation).
  static Vec6 dtau_inv_star_apply(const Vec6& x, const Vec6& mu) {
    const Vec3 omega = SE3::angular(x), v = SE3::linear(x), m = SE3::angular(mu), n = SE3::linear(mu);
    const Vec3 n_tilde = n + 0.5 * omega.cross(n);
    return SE3::join(m + 0.5 * omega.cross(m) + 0.25 * omega.dot(m) * omega + 0.5 * v.cross(n_tilde), n_tilde);
  }
  /// D(x, mu) = d/dx [(dcay_x^{-1})^T mu] (docs/theory/beam.md "SE(3) formulas", for Newton):
  ///   [[-½ hat(m) + ¼ ((omega · m) I + omega m^T) - ¼ hat(v) hat(n), -½ hat(n) - ¼ hat(omega × n)],
  ///    [-½ hat(n), 0]].
  static Mat6 J_dtau_inv_star_x(const Vec6& x, const Vec6& mu) {
    const Vec3 omega = SE3::angular(x), v = SE3::linear(x), m = SE3::angular(mu), n = SE3::linear(mu);
    const Mat3 N = hat(n);
    Mat6 D;
    D.topLeftCorner<3, 3>() = -0.5 * hat(m) + 0.25 * (omega.dot(m) * Mat3::Identity() + omega * m.transpose()) -
                              0.25 * hat(v) * N;
    D.topRightCorner<3, 3>() = -0.5 * N - 0.25 * hat(omega.cross(n));
    D.bottomLeftCorner<3, 3>() = -0.5 * N;
    D.bottomRightCorner<3, 3>().setZero();
    return D;
  }
};

/// Cayley on the translation group R^N: hat(x)^2 = 0, so the matrix Cayley is I + hat(x):
/// tau(x) = x, dtau = I.
template <int N>
struct Cayley<Rn<N>> {
  using Group = Rn<N>;
  using Algebra = typename Group::Algebra;
  using Matrix = typename Group::Matrix;
  static constexpr const char* id = "cayley";

  static Group tau(const Algebra& x) { return Group(x); }
  static Algebra tau_inv(const Group& g) { return g.translation(); }
  static Matrix dtau(const Algebra&) { return Matrix::Identity(); }
  static Matrix dtau_inv(const Algebra&) { return Matrix::Identity(); }
  static Matrix dtau_star(const Algebra&) { return Matrix::Identity(); }
  static Matrix dtau_inv_star(const Algebra&) { return Matrix::Identity(); }
};

static_assert(Retraction<Cayley<SO3>, SO3>);
static_assert(Retraction<Cayley<SE3>, SE3>);
static_assert(Retraction<Cayley<Rn<3>>, Rn<3>>);

}  // namespace lievi::lie
