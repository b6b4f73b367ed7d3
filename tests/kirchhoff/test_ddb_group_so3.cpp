/// @file tests/kirchhoff/test_ddb_group_so3.cpp
/// @brief On SO(3) the generic DDBGroup is the rigid-body DDB of integrators/ddb.hpp: step (c) bitwise for the
/// same xi, psi and D psi to round-off, and whole trajectories (Scenario A) to round-off, for Cayley and exp.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

#include "lievi/integrators/ddb.hpp"
#include "lievi/integrators/ddb_group.hpp"
#include "support/rigid_body_scenarios.hpp"

namespace {

using namespace lievi;

template <class R>
struct DDBGroupSO3 : ::testing::Test {};
using Retractions = ::testing::Types<lie::Cayley<lie::SO3>, lie::Exp<lie::SO3>>;
TYPED_TEST_SUITE(DDBGroupSO3, Retractions);

models::QuadraticLiePoisson<lie::SO3> as_lie_poisson(const models::RigidBody& b) {
  return models::QuadraticLiePoisson<lie::SO3>::make(b.I, b.K);
}

TYPED_TEST(DDBGroupSO3, StepCIsBitwiseDDBUpdate) {
  using R = TypeParam;
  const auto sc = test::scenario_A();
  const auto q = as_lie_poisson(sc.body);
  integrators::DDB<R> ref(sc.body);
  integrators::DDBGroup<lie::SO3, R> gen(q);
  models::RigidBodyState x;
  x.M = sc.M0;
  models::LiePoissonState<lie::SO3> y;
  y.mu = sc.M0;
  lie::Vec3 c_ref = lie::Vec3::Zero(), c_gen = lie::Vec3::Zero();
  const double h = 0.05;
  for (int k = 0; k < 200; ++k) {
    lie::Vec3 xi;
    ASSERT_TRUE(ref.solve_xi(x.M, h, xi).converged);
    const lie::Vec3 phi = sc.body.phi(xi);
    // phi is the same function in both (K ad*_xi (A xi) = K ((I xi) × xi)): bitwise, since A and K are diagonal.
    ASSERT_EQ(phi, q.phi(xi));
    integrators::DDB<R>::update(x, c_ref, xi, phi, h);
    integrators::DDBGroup<lie::SO3, R>::update(y, c_gen, xi, phi, h);
    // Same operations in the same order: bitwise equal, residue and attitude too.
    ASSERT_EQ(x.M, y.mu) << "step " << k;
    ASSERT_EQ(c_ref, c_gen) << "step " << k;
    ASSERT_EQ(x.R, y.g.matrix()) << "step " << k;
    y.mu = x.M;  // keep them on the same path (they are equal anyway)
  }
}

TYPED_TEST(DDBGroupSO3, PsiAndJacobianMatchDDB) {
  using R = TypeParam;
  // A general (non-diagonal) inertia and metric.
  lie::Mat3 I;
  I << 1.2, 0.1, -0.05, 0.1, 0.9, 0.2, -0.05, 0.2, 0.6;
  lie::Mat3 K;
  K << 0.4, 0.05, 0.0, 0.05, 0.3, 0.1, 0.0, 0.1, 0.5;
  const auto body = models::RigidBody::general(I, K);
  integrators::DDB<R> ref(body);
  integrators::DDBGroup<lie::SO3, R> gen(models::QuadraticLiePoisson<lie::SO3>::make(I, K));
  const lie::Vec3 xi(0.3, -0.7, 1.1);
  for (double h : {0.01, 0.1, 0.5}) {
    // Same closed forms evaluated by the same retraction functions: round-off (a few ulps of |psi| ~ 1).
    EXPECT_LE((gen.psi(xi, h) - ref.psi(xi, h)).template lpNorm<Eigen::Infinity>(), 1e-15) << h;
    EXPECT_LE((gen.Dpsi(xi, h) - ref.Dpsi(xi, h)).template lpNorm<Eigen::Infinity>(), 1e-15) << h;
    EXPECT_EQ(gen.initial_guess(I * xi, h), ref.initial_guess(I * xi, h)) << h;
    EXPECT_EQ(body.phi(xi), gen.model().phi(xi));
  }
}

TYPED_TEST(DDBGroupSO3, TrajectoryEqualsDDBToRoundOff) {
  using R = TypeParam;
  const auto sc = test::scenario_A();
  integrators::DDB<R> ref(sc.body);
  integrators::DDBGroup<lie::SO3, R> gen(as_lie_poisson(sc.body));
  models::RigidBodyState x;
  x.M = sc.M0;
  models::LiePoissonState<lie::SO3> y;
  y.mu = sc.M0;
  ref.start(x, 0.01);
  gen.start();
  double max_dM = 0, max_dR = 0;
  for (int k = 0; k < 3000; ++k) {  // t in [0, 30] with h = 0.01
    ASSERT_TRUE(ref.step(x, 0.01).converged);
    ASSERT_TRUE(gen.step(y, 0.01).converged);
    max_dM = std::max(max_dM, (x.M - y.mu).template lpNorm<Eigen::Infinity>());
    max_dR = std::max(max_dR, (x.R - y.g.matrix()).template lpNorm<Eigen::Infinity>());
  }
  std::printf("[ measure ] %s: max |M_DDB - mu_generic| = %.3e, max |R diff| = %.3e over 3000 steps\n", R::id,
              max_dM, max_dR);
  // DDB's principal-axis Newton (scalars) and the generic one (Eigen, LU) stop at xi differing in the last bits,
  // so the trajectories are not bitwise equal; measured 5.6e-17 (one ulp of |M| ~ 0.5) for M and 1e-15 for R.
  // Bounds: 1e-15 is ~9 ulps of |M_0| (round-off, with room for other compilers' rounding of Newton); R is a
  // product of 3000 rotations, whose rounding accumulates ~ sqrt(3000) ulps: 1e-14.
  EXPECT_LE(max_dM, 1e-15);
  EXPECT_LE(max_dR, 1e-14);
}

}  // namespace
