// Jacobians and fused operations the integrators rely on:
//  - SO(3), all three retractions (Cayley, Exp, Exp2): J_dtau_inv_star_x(x, p) = d/dx[(dtau_x^{-1})^T p]
//  against
//    central finite differences of dtau_inv_star_apply, at small and large x and on both sides of every
//    small-angle threshold the formula goes through (beta at 0.5, gamma at 1, their numerators at 2 and 4);
//    dtau_inv_star_apply = dtau_inv_star * p; act / act_increment against the matrix tau(x).
//  - SE(3) Cayley: the same for its J_dtau_inv_star_x (docs/theory/beam.md "SE(3) formulas") and its matrix
//    form of dcay^{-1}.
//  - ad* as a linear map of x (J_ad_star_x), and the SE(3) body-to-spatial co-adjoint formula.
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "lie_test_util.hpp"
#include "lievi/lie/retraction/cayley.hpp"
#include "lievi/lie/retraction/exp.hpp"

namespace {

using namespace lievi::lie;
using namespace lievi::lie::testing;

// Central differences with step h = 1e-5 on a map with |p| ~ 2: truncation h^2/6 |f'''| with |f'''| <= ~50
// even at |x| = 5.5 (the exp forms have a pole at 2 pi) gives <= 1e-9; round-off eps |f| / h ~ 1e-10.
// Tolerance 1e-7 relative to (1 + |J|): 100x above both, and far below any coefficient error (which changes J
// by O(|x|^2 |p|)).
constexpr double kFdStep = 1e-5;
constexpr double kFdTol = 1e-7;

// Round-off between two evaluations of the same closed form assembled differently (entries O(10)).
constexpr double kTol = 1e-13;

template <class R>
class SO3RetractionJacobian : public ::testing::Test {};
using SO3Retractions = ::testing::Types<Cayley<SO3>, Exp<SO3>, Exp2<SO3>>;
class RetractionNames {
 public:
  template <class T>
  static std::string GetName(int) {
    return T::id;
  }
};
TYPED_TEST_SUITE(SO3RetractionJacobian, SO3Retractions, RetractionNames);

/// Angles that exercise every branch of beta / gamma and their neighbours, plus a large Cayley-only one.
std::vector<double> jacobian_angles(bool cayley) {
  std::vector<double> t = {0.0, 1e-8, 1e-3, 0.3};
  for (double c : {lievi::tol::small_angle, lievi::tol::small_angle_gamma,
                   lievi::tol::small_angle_beta_numerator, lievi::tol::small_angle_gamma_numerator}) {
    t.push_back(c * (1 - 1e-7));
    t.push_back(c);
    t.push_back(c * (1 + 1e-7));
  }
  for (double s : {1.5, 2.5, 3.0, 5.5}) t.push_back(s);
  if (cayley) t.push_back(10.0);
  return t;
}

TYPED_TEST(SO3RetractionJacobian, JDtauInvStarXMatchesFiniteDifferences) {
  using R = TypeParam;
  std::mt19937_64 rng(11);
  std::normal_distribution<double> normal(0.0, 1.0);
  for (double t : jacobian_angles(std::is_same_v<R, Cayley<SO3>>)) {
    for (int rep = 0; rep < 5; ++rep) {
      Vec3 x(normal(rng), normal(rng), normal(rng));
      x *= (t == 0.0 ? 0.0 : t / x.norm());
      const Vec3 p = 2.0 * Vec3(normal(rng), normal(rng), normal(rng));
      const Mat3 J = R::J_dtau_inv_star_x(x, p);
      Mat3 J_fd;
      for (int j = 0; j < 3; ++j) {
        const Vec3 e = kFdStep * Vec3::Unit(j);
        J_fd.col(j) = (R::dtau_inv_star_apply(x + e, p) - R::dtau_inv_star_apply(x - e, p)) / (2.0 * kFdStep);
      }
      EXPECT_LT(max_abs(J - J_fd), kFdTol * (1.0 + max_abs(J)))
          << R::id << " |x| = " << t << " x = " << x.transpose();
    }
  }
}

TYPED_TEST(SO3RetractionJacobian, FusedOperationsMatchTheMatrices) {
  using R = TypeParam;
  for (const auto& s : algebra_samples<SO3>(30, 5)) {
    const Vec3& x = s.x;
    const Vec3 p(0.7, -1.3, 2.0);
    EXPECT_LT((R::dtau_inv_star_apply(x, p) - R::dtau_inv_star(x) * p).cwiseAbs().maxCoeff(), kTol)
        << x.transpose();
    const Vec3 tau_p = R::tau(x).matrix() * p;
    EXPECT_LT((R::act(x, p) - tau_p).cwiseAbs().maxCoeff(), kTol) << x.transpose();
    EXPECT_LT((R::act_increment(x, p) - (tau_p - p)).cwiseAbs().maxCoeff(), kTol) << x.transpose();
    // Rotations keep |p| exactly in exact arithmetic: a few ulps of |p|^2 here.
    EXPECT_NEAR(R::act(x, p).squaredNorm(), p.squaredNorm(), 1e-14 * p.squaredNorm()) << x.transpose();
  }
}

TEST(Exp2SO3, DtauInvIsTheTruncatedSeriesAndDtauItsInverse) {
  for (const auto& s : algebra_samples<SO3>(30, 6)) {
    const Mat3 X = hat(s.x);
    EXPECT_LT(max_abs(Exp2<SO3>::dtau_inv(s.x) - (Mat3::Identity() - 0.5 * X + X * X / 12.0)), kTol);
    EXPECT_LT(max_abs(Exp2<SO3>::dtau(s.x) * Exp2<SO3>::dtau_inv(s.x) - Mat3::Identity()), kTol);
  }
}

TEST(CayleySE3, JDtauInvStarXMatchesFiniteDifferences) {
  std::mt19937_64 rng(13);
  std::normal_distribution<double> normal(0.0, 1.0);
  for (const auto& s : algebra_samples<SE3>(30, 8)) {
    const Vec6& x = s.x;
    Vec6 mu;
    for (int i = 0; i < 6; ++i) mu(i) = normal(rng);
    const Mat6 J = Cayley<SE3>::J_dtau_inv_star_x(x, mu);
    Mat6 J_fd;
    for (int j = 0; j < 6; ++j) {
      const Vec6 e = kFdStep * Vec6::Unit(j);
      J_fd.col(j) =
          (Cayley<SE3>::dtau_inv_star_apply(x + e, mu) - Cayley<SE3>::dtau_inv_star_apply(x - e, mu)) /
          (2.0 * kFdStep);
    }
    EXPECT_LT(max_abs(J - J_fd), kFdTol * (1.0 + max_abs(J))) << s.regime << " x = " << x.transpose();
  }
}

TEST(SE3Retractions, FusedDualsMatchTheMatrices) {
  const Vec6 mu = SE3::join(Vec3(0.4, -1.1, 0.9), Vec3(-0.6, 1.5, 0.2));
  for (const auto& s : algebra_samples<SE3>(30, 9)) {
    EXPECT_LT((Cayley<SE3>::dtau_inv_star_apply(s.x, mu) - Cayley<SE3>::dtau_inv_star(s.x) * mu)
                  .cwiseAbs()
                  .maxCoeff(),
              kTol)
        << s.x.transpose();
    EXPECT_LT(
        (Exp<SE3>::dtau_inv_star_apply(s.x, mu) - Exp<SE3>::dtau_inv_star(s.x) * mu).cwiseAbs().maxCoeff(),
        kTol)
        << s.x.transpose();
  }
}

TEST(CayleySE3, DtauInvIsTheMatrixSandwich) {
  // dcay^{-1}_x y = vee((I - X/2) hat(y) (I + X/2)) (matrix form), column by column.
  for (const auto& s : algebra_samples<SE3>(30, 10)) {
    const Mat4 X = SE3::hat(s.x);
    const Mat6 D = Cayley<SE3>::dtau_inv(s.x);
    for (int j = 0; j < 6; ++j) {
      const Mat4 Y = SE3::hat(Vec6::Unit(j));
      const Mat4 S = (Mat4::Identity() - 0.5 * X) * Y * (Mat4::Identity() + 0.5 * X);
      EXPECT_LT((SE3::vee(S) - D.col(j)).cwiseAbs().maxCoeff(), kTol) << s.x.transpose();
    }
  }
}

TEST(CoadjointJacobians, AdStarIsLinearInX) {
  // ad*_x mu = J_ad_star_x(mu) x exactly (it is bilinear), for SO(3) (hat(mu)) and SE(3) (C(mu),
  // docs/theory/beam.md "SE(3) formulas").
  for (const auto& s : algebra_samples<SO3>(20, 12)) {
    const Vec3 mu(1.0, -2.0, 0.5);
    EXPECT_LT((SO3::ad_star(s.x, mu) - SO3::J_ad_star_x(mu) * s.x).cwiseAbs().maxCoeff(), kTol);
  }
  for (const auto& s : algebra_samples<SE3>(20, 12)) {
    const Vec6 mu = SE3::join(Vec3(1.0, -2.0, 0.5), Vec3(0.3, 0.8, -1.2));
    EXPECT_LT((SE3::ad_star(s.x, mu) - SE3::J_ad_star_x(mu) * s.x).cwiseAbs().maxCoeff(), kTol);
  }
}

TEST(SE3Coadjoint, BodyToSpatialMomentum) {
  // Ad*_{g^{-1}} mu = (R m + p × R n, R n) (docs/theory/beam.md), written out independently of Ad().
  for (const auto& s : algebra_samples<SE3>(20, 14)) {
    const SE3 g = Exp<SE3>::tau(s.x);
    const Vec3 m(0.2, 1.0, -0.7), n(-1.4, 0.1, 0.9);
    const Vec3 Rn_ = g.rotation() * n;
    const Vec6 expected = SE3::join(g.rotation() * m + g.translation().cross(Rn_), Rn_);
    EXPECT_LT((Ad_star_inverse(g, SE3::join(m, n)) - expected).cwiseAbs().maxCoeff(), 1e-12)
        << s.x.transpose();
  }
}

}  // namespace
