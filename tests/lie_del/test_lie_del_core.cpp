// Lie-group DEL building blocks, for SO(3) and SE(3) with Cayley and exp (one typed suite):
//  - the Newton Jacobian d psi/d xi of (dtau^{-1}_{h xi})^* mu(xi) against central differences of psi;
//  - the identity Ad*_{tau(x)} (dtau_x^{-1})^* = (dtau_{-x}^{-1})^* on which update (3) rests, from the retraction's
//    matrices and Ad alone;
//  - the jet derivatives of ell against the mass matrix, and the dual (AD) left gradient of V against central
//    differences of V(g exp(s e_i)) through the exp map (a different chart from the AD's g (I + eps^));
//  - the exp series Jacobian (used for Exp<SE3>) against central differences at a large angle.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "lievi/integrators/lie_del/lie_del.hpp"
#include "lievi/lie/retraction/cayley.hpp"
#include "lievi/lie/retraction/exp.hpp"
#include "lievi/models/lie_mechanics.hpp"

namespace {

using namespace lievi;
using integrators::lie_del::LieDel;
namespace lm = models::lie_mechanics;

template <class Model_, class R_>
struct Case {
  using Model = Model_;
  using R = R_;
};

using Cases = ::testing::Types<Case<lm::HeavyTop, lie::Cayley<lie::SO3>>, Case<lm::HeavyTop, lie::Exp<lie::SO3>>,
                               Case<lm::FloatingRigidBody, lie::Cayley<lie::SE3>>,
                               Case<lm::FloatingRigidBody, lie::Exp<lie::SE3>>>;

template <class C>
class LieDelCore : public ::testing::Test {};
TYPED_TEST_SUITE(LieDelCore, Cases);

template <class A>
A random_vector(std::mt19937& rng, double scale) {
  std::uniform_real_distribution<double> u(-scale, scale);
  A x;
  for (int i = 0; i < x.size(); ++i) x(i) = u(rng);
  return x;
}

template <class Model>
Model test_model() {
  Model m;
  if constexpr (std::is_same_v<Model, lm::HeavyTop>) {
    m.I << 1.2, 0.1, -0.05, 0.1, 0.9, 0.07, -0.05, 0.07, 0.5;  // general inertia, off-diagonal terms
    m.chi = lie::Vec3(0.1, -0.2, 0.8);
  } else {
    m.k = 50.0;  // the spring makes V nonlinear in the pose
  }
  return m;
}

TYPED_TEST(LieDelCore, NewtonJacobianMatchesCentralDifferences) {
  using C = TypeParam;
  using Model = typename C::Model;
  using A = typename Model::Group::Algebra;
  using Mx = typename Model::Group::Matrix;
  const LieDel<Model, typename C::R> s(test_model<Model>());
  std::mt19937 rng(7);
  for (const double h : {0.05, 0.3}) {
    for (int trial = 0; trial < 5; ++trial) {
      const A xi = random_vector<A>(rng, 2.0);
      Mx J;
      s.psi(xi, h, &J);
      Mx J_fd;
      const double d = 1e-6;
      for (int j = 0; j < A::RowsAtCompileTime; ++j) {
        const A e = d * A::Unit(j);
        J_fd.col(j) = (s.psi(xi + e, h) - s.psi(xi - e, h)) / (2 * d);
      }
      // central differences with d = 1e-6 on entries of size ~1-10: truncation ~d^2 |psi'''| ~ 1e-11, rounding
      // ~eps |psi| / d ~ 1e-9; 1e-7 relative leaves a margin and still catches any missing term (>= h * 1e-2).
      EXPECT_LE((J - J_fd).cwiseAbs().maxCoeff(), 1e-7 * (1.0 + J.cwiseAbs().maxCoeff())) << "h = " << h;
    }
  }
}

TYPED_TEST(LieDelCore, CoadjointOfDtauInvStarIsDtauInvStarOfMinusX) {
  using C = TypeParam;
  using G = typename C::Model::Group;
  using A = typename G::Algebra;
  using R = typename C::R;
  std::mt19937 rng(3);
  for (int trial = 0; trial < 10; ++trial) {
    const A x = random_vector<A>(rng, 1.5);
    const A mu = random_vector<A>(rng, 2.0);
    const A lhs = R::tau(x).Ad().transpose() * (R::dtau_inv_star(x) * mu);
    const A rhs = R::dtau_inv_star(-x) * mu;
    // both sides are O(1) products of closed forms; 1e-13 is ~100 ulps
    EXPECT_LE((lhs - rhs).cwiseAbs().maxCoeff(), 1e-13 * (1.0 + mu.cwiseAbs().maxCoeff()));
  }
}

TYPED_TEST(LieDelCore, KineticAndPotentialDerivatives) {
  using C = TypeParam;
  using Model = typename C::Model;
  using G = typename Model::Group;
  using A = typename G::Algebra;
  const Model m = test_model<Model>();
  std::mt19937 rng(11);
  for (int trial = 0; trial < 5; ++trial) {
    const A xi = random_vector<A>(rng, 2.0);
    const auto d = integrators::lie_del::kinetic_derivatives(m, xi);
    typename G::Matrix Mm;
    if constexpr (std::is_same_v<G, lie::SO3>)
      Mm = m.I;
    else
      Mm = m.mass_matrix();
    // ell is quadratic: the jet result is exact up to a few roundings of O(1) sums (1e-14)
    EXPECT_LE((d.mu - Mm * xi).cwiseAbs().maxCoeff(), 1e-14 * (1.0 + (Mm * xi).cwiseAbs().maxCoeff()));
    EXPECT_LE((d.ell_xixi - Mm).cwiseAbs().maxCoeff(), 1e-14 * Mm.cwiseAbs().maxCoeff());
    EXPECT_NEAR(d.ell, 0.5 * xi.dot(Mm * xi), 1e-14 * (1.0 + std::abs(d.ell)));

    const G g = lie::Exp<G>::tau(random_vector<A>(rng, 2.0));
    const A grad = integrators::lie_del::grad_V(m, g);
    A grad_fd;
    const double s = 1e-5;
    for (int i = 0; i < A::RowsAtCompileTime; ++i) {
      const A e = s * A::Unit(i);
      grad_fd(i) = (integrators::lie_del::potential(m, g * lie::Exp<G>::tau(e)) -
                    integrators::lie_del::potential(m, g * lie::Exp<G>::tau(-e))) /
                   (2 * s);
    }
    // central differences, s = 1e-5, |V| ~ 10-20: truncation ~s^2 |V'''| ~ 1e-9, rounding ~eps |V| / s ~ 1e-10
    EXPECT_LE((grad - grad_fd).cwiseAbs().maxCoeff(), 1e-8 * (1.0 + grad.cwiseAbs().maxCoeff()));
  }
}

TEST(LieDelCore, HeavyTopReducedGradientEqualsFullGradient) {
  const lm::HeavyTop m = test_model<lm::HeavyTop>();
  std::mt19937 rng(5);
  for (int trial = 0; trial < 5; ++trial) {
    const lie::SO3 R = lie::Exp<lie::SO3>::tau(random_vector<lie::Vec3>(rng, 3.0));
    const lie::Vec3 Gamma = R.matrix().transpose() * lie::Vec3::UnitZ();
    // two evaluations of the same O(10) expression: a few ulps
    EXPECT_LE((integrators::lie_del::grad_V(m, R) - m.grad_V_reduced(Gamma)).cwiseAbs().maxCoeff(), 1e-13);
  }
}

TEST(LieDelCore, ExpSeriesJacobianAtLargeAngle) {
  // Exp<SE3> has no closed-form J_dtau_inv_star_x: the Bernoulli series is used; at |omega| = 1.2 it must still
  // agree with central differences of the closed-form (dexp^{-1})^* to the differences' accuracy.
  std::mt19937 rng(9);
  for (int trial = 0; trial < 5; ++trial) {
    lie::Vec6 x = random_vector<lie::Vec6>(rng, 1.0);
    x.head<3>() *= 1.2 / x.head<3>().norm();
    const lie::Vec6 mu = random_vector<lie::Vec6>(rng, 2.0);
    const lie::Mat6 J = integrators::lie_del::J_dtau_inv_star_x<lie::SE3, lie::Exp<lie::SE3>>(x, mu);
    lie::Mat6 J_fd;
    const double d = 1e-6;
    for (int j = 0; j < 6; ++j) {
      const lie::Vec6 e = d * lie::Vec6::Unit(j);
      J_fd.col(j) = (lie::Exp<lie::SE3>::dtau_inv_star(x + e) * mu - lie::Exp<lie::SE3>::dtau_inv_star(x - e) * mu) / (2 * d);
    }
    // truncation of the series (1.2/2pi)^24 ~ 1e-17; differences ~1e-9 (see NewtonJacobian...)
    EXPECT_LE((J - J_fd).cwiseAbs().maxCoeff(), 1e-8);
  }
}

}  // namespace
