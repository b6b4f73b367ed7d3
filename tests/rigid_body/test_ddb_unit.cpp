// DDB building blocks (docs/theory/ddb.md step (a)): psi and its Jacobian against the closed forms there and
// finite differences, step (c) against an independent matrix implementation, the Newton failure report, the
// a-priori exp step bound and the registry.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <numbers>
#include <random>
#include <string>

#include "lievi/core/error.hpp"
#include "lievi/integrators/ddb.hpp"
#include "lievi/integrators/rigid_body_stepper.hpp"
#include "retraction_types.hpp"
#include "support/rigid_body_scenarios.hpp"

using namespace lievi;
using lie::hat;
using lie::Mat3;
using lie::Vec3;

namespace {

/// A random symmetric positive-definite inertia with eigenvalues in [0.5, 2] (general, not diagonal).
models::RigidBody random_body(std::mt19937& rng, double alpha) {
  std::uniform_real_distribution<double> u(-1.0, 1.0), e(0.5, 2.0);
  const Mat3 Q = Eigen::Quaterniond(u(rng), u(rng), u(rng), u(rng)).normalized().toRotationMatrix();
  const Mat3 I = Q * Vec3(e(rng), e(rng), e(rng)).asDiagonal() * Q.transpose();
  return models::RigidBody::general(0.5 * (I + I.transpose()), alpha * Mat3::Identity());
}

Vec3 random_vec(std::mt19937& rng, double scale) {
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  return scale * Vec3(u(rng), u(rng), u(rng));
}

template <class R>
class DDBUnit : public ::testing::Test {};
TYPED_TEST_SUITE(DDBUnit, test::DDBRetractions, test::RetractionName);

}  // namespace

// D psi (built from R::dtau_inv_star and R::J_dtau_inv_star_x) against central differences of psi.
// Step 1e-5: truncation ~ (1e-5)^2 |psi'''| ~ 1e-10, rounding ~ eps/1e-5 ~ 1e-11; 1e-8 leaves margin.
TYPED_TEST(DDBUnit, JacobianMatchesFiniteDifferences) {
  std::mt19937 rng(7);
  for (int trial = 0; trial < 50; ++trial) {
    const auto b = random_body(rng, 0.5);
    const integrators::DDB<TypeParam> ddb(b);
    const double h = std::uniform_real_distribution<double>(0.001, 1.0)(rng);
    const Vec3 xi = random_vec(rng, 2.0);
    const Mat3 J = ddb.Dpsi(xi, h);
    Mat3 J_fd;
    const double d = 1e-5;
    for (int j = 0; j < 3; ++j) {
      const Vec3 e = Vec3::Unit(j) * d;
      J_fd.col(j) = (ddb.psi(xi + e, h) - ddb.psi(xi - e, h)) / (2 * d);
    }
    EXPECT_LT((J - J_fd).cwiseAbs().maxCoeff(), 1e-8) << "h = " << h << " xi = " << xi.transpose();
  }
}

// The fused closed forms used in the Newton loop (psi_fused, Dpsi_fused: the closed forms written entrywise)
// equal the generic ones built from the retraction's dtau_inv_star / J_dtau_inv_star_x, for diagonal and
// general inertia, at, below and above the series thresholds of beta and gamma (h|xi| from 0.01 to 3).
// 2e-14: O(1) entries assembled in a different order; beta/gamma evaluated identically.
TYPED_TEST(DDBUnit, FusedFormsMatchGeneric) {
  std::mt19937 rng(17);
  for (int trial = 0; trial < 60; ++trial) {
    const auto b = trial % 2 ? random_body(rng, 0.5)
                             : models::RigidBody::principal(Vec3(0.5, 1.0, 1.7) + random_vec(rng, 0.3), 0.5);
    const integrators::DDB<TypeParam> ddb(b);
    const double h = std::uniform_real_distribution<double>(0.005, 1.5)(rng);
    const Vec3 xi = random_vec(rng, 2.0);
    typename integrators::DDB<TypeParam>::PsiTerms t;
    const Vec3 psi = ddb.psi_fused(xi, h, t);
    const Mat3 J = ddb.Dpsi_fused(xi, h, t);
    EXPECT_LT((psi - ddb.psi(xi, h)).cwiseAbs().maxCoeff(), 2e-14);
    EXPECT_LT((J - ddb.Dpsi(xi, h)).cwiseAbs().maxCoeff(), 2e-14) << "h|xi| = " << h * xi.norm();
  }
}

// The scalar hot path of step (a) for principal inertia equals the Eigen path: same guess, same Newton, same
// stopping rules. 1e-14 absolute on xi ~ O(1): both stop within the 1e-14 (1 + |xi|) step rule.
TYPED_TEST(DDBUnit, PrincipalHotPathMatchesGeneral) {
  std::mt19937 rng(19);
  for (int trial = 0; trial < 200; ++trial) {
    const auto b = models::RigidBody::principal(Vec3(0.5, 1.0, 1.7) + random_vec(rng, 0.4), 0.5);
    const integrators::DDB<TypeParam> ddb(b);
    const double h = std::uniform_real_distribution<double>(0.0005, 1.0)(rng);
    const Vec3 M = random_vec(rng, 1.0);
    Vec3 xi_fast, xi_gen;
    const StepResult rf = ddb.solve_xi_principal(M, h, xi_fast);
    const StepResult rg = ddb.solve_xi(M, h, xi_gen);
    ASSERT_TRUE(rf.converged && rg.converged);
    EXPECT_LT((xi_fast - xi_gen).cwiseAbs().maxCoeff(), 1e-14) << "h = " << h;
    EXPECT_LE(rf.residual, 1e-13 * M.lpNorm<Eigen::Infinity>());
  }
}

// The fixed-point form of step (a): I xi = dtau_{h xi}^T M_k, with dtau_star an independent
// closed form (R::dtau). 1e-13: the Newton solution satisfies psi = M to ~1e-15; dtau^T has norm ~1.
TYPED_TEST(DDBUnit, NewtonSolutionSatisfiesFixedPointForm) {
  std::mt19937 rng(11);
  for (int trial = 0; trial < 50; ++trial) {
    const auto b = random_body(rng, 0.5);
    const integrators::DDB<TypeParam> ddb(b);
    const double h = std::uniform_real_distribution<double>(0.001, 0.5)(rng);
    const Vec3 M = random_vec(rng, 1.0);
    Vec3 xi;
    const StepResult r = ddb.solve_xi(M, h, xi);
    ASSERT_TRUE(r.converged) << r.message;
    EXPECT_GE(r.iterations, 1);
    EXPECT_LE(r.iterations, 6);  // quadratic convergence from an O(h^2) guess (prototype: 2-5 iterations)
    EXPECT_LE(r.residual, 1e-13 * M.lpNorm<Eigen::Infinity>());  // the Newton residual rule
    if constexpr (!std::is_same_v<TypeParam, lie::Exp2<lie::SO3>>) {
      // exp2's dtau is the inverse of the *truncated* dtau^{-1}, so the identity holds for it as well, but
      // R::dtau is then not independent of psi; checked for cayley and exp only.
      EXPECT_LT((b.I * xi - TypeParam::dtau_star(h * xi) * M).cwiseAbs().maxCoeff(), 1e-13);
    }
  }
}

// Step (c) and the attitude update against the literal matrix formulas M_{k+1} = tau(-h phi)^... written
// with R::tau (3x3 matrices) and tau(x)^T = tau(-x):  M_{k+1} = tau(h phi)^T tau(h xi)^T M_k,
// R_{k+1} = R_k tau(h xi). 1e-15: a handful of roundings of O(1) quantities.
TYPED_TEST(DDBUnit, StepMatchesMatrixFormulas) {
  std::mt19937 rng(3);
  for (int trial = 0; trial < 50; ++trial) {
    const auto b = random_body(rng, 0.7);
    integrators::DDB<TypeParam> ddb(b);
    const double h = 0.1;
    models::RigidBodyState x;
    x.M = random_vec(rng, 1.0);
    x.R = TypeParam::tau(random_vec(rng, 1.0)).matrix();
    const models::RigidBodyState x0 = x;
    ddb.start(x, h);
    ASSERT_TRUE(ddb.step(x, h).converged);
    const Vec3 xi = ddb.xi();
    const Vec3 phi = b.phi(xi);
    const Vec3 M_expected =
        TypeParam::tau(h * phi).matrix().transpose() * (TypeParam::tau(h * xi).matrix().transpose() * x0.M);
    const Mat3 R_expected = x0.R * TypeParam::tau(h * xi).matrix();
    EXPECT_LT((x.M - M_expected).cwiseAbs().maxCoeff(), 1e-15);
    EXPECT_LT((x.R - R_expected).cwiseAbs().maxCoeff(), 1e-15);
  }
}

// The fused coefficients (a, b) of step (c) reproduce R::act_increment, at, below and above the small-angle
// threshold of the exp series. 4e-16 absolute on O(1) increments: the same operations up to association
// (c (xv + x(xv)/2) vs c xv + (c/2) x(xv)), i.e. an ulp or two.
TYPED_TEST(DDBUnit, RotationCoefficientsMatchActIncrement) {
  std::mt19937 rng(5);
  for (double scale : {1e-9, 1e-3, 0.3, 0.5, 0.7, 2.0}) {
    for (int trial = 0; trial < 20; ++trial) {
      Vec3 x = random_vec(rng, 1.0).normalized() * scale;
      const Vec3 v = random_vec(rng, 1.0);
      double a, bb;
      integrators::RotationCoefficients<TypeParam>::get(x, a, bb);
      const Vec3 inc = integrators::DDB<TypeParam>::increment(x, a, bb, v);
      EXPECT_LT((inc - TypeParam::act_increment(x, v)).cwiseAbs().maxCoeff(), 4e-16) << "|x| = " << scale;
    }
  }
}

// Newton failure is reported, not thrown, and leaves the state untouched.
TYPED_TEST(DDBUnit, NewtonFailureIsReported) {
  const auto s = test::scenario_A();
  solve::NewtonOptions one_iteration;
  // At h = 1 the O(h^2) start guess is far off: one Newton iteration (plus the simplified-Newton check) cannot
  // meet the 1e-14 step rule.
  one_iteration.max_iterations = 1;
  integrators::DDB<TypeParam> ddb(s.body, one_iteration);
  models::RigidBodyState x;
  x.M = s.M0;
  ddb.start(x, 1.0);
  const StepResult r = ddb.step(x, 1.0);
  EXPECT_FALSE(r.converged);
  EXPECT_GE(r.iterations, 1);
  EXPECT_GT(r.residual, 1e-13 * s.M0.lpNorm<Eigen::Infinity>());  // above the convergence threshold
  EXPECT_NE(std::string(r.message).find("Newton"), std::string::npos) << r.message;
  EXPECT_EQ(x.M, s.M0);

  // A non-finite state is reported before any iteration.
  integrators::DDB<TypeParam> ddb2(s.body);
  x.M = Vec3(std::numeric_limits<double>::quiet_NaN(), 0.0, 1.0);
  const StepResult r2 = ddb2.step(x, 0.1);
  EXPECT_FALSE(r2.converged);
  EXPECT_EQ(r2.iterations, 0);
}

// D psi equals the closed forms of docs/theory/ddb.md step (a) (written out here independently of the
// retraction headers). 1e-14 absolute: O(1) entries, the same terms summed in a different order.
TEST(DDBJacobian, CayleyAndExpMatchSpecClosedForms) {
  std::mt19937 rng(13);
  for (int trial = 0; trial < 50; ++trial) {
    const auto b = random_body(rng, 0.0);
    const double h = std::uniform_real_distribution<double>(0.01, 1.0)(rng);
    const Vec3 xi = random_vec(rng, 2.0);
    const Vec3 p = b.I * xi;
    const Mat3 Id = Mat3::Identity();
    const Mat3 common = b.I + 0.5 * h * (hat(xi) * b.I - hat(p));
    const Mat3 D_cay = common + 0.25 * h * h * (xi.dot(p) * Id + 2.0 * xi * p.transpose());
    const double theta = h * xi.norm();
    const double beta = lie::so3_series::beta(theta), gamma = lie::so3_series::gamma(theta);
    const Mat3 bracket = xi.dot(p) * Id + 2.0 * xi * p.transpose() - 2.0 * p * xi.transpose() - xi.squaredNorm() * b.I;
    const Mat3 D_exp = common + h * h * beta * bracket + std::pow(h, 4) * gamma * xi.cross(xi.cross(p)) * xi.transpose();
    const Mat3 D_exp2 = common + h * h / 12.0 * bracket;
    EXPECT_LT((integrators::DDBCayley(b).Dpsi(xi, h) - D_cay).cwiseAbs().maxCoeff(), 1e-14);
    EXPECT_LT((integrators::DDBExp(b).Dpsi(xi, h) - D_exp).cwiseAbs().maxCoeff(), 1e-14);
    EXPECT_LT((integrators::DDBExp2(b).Dpsi(xi, h) - D_exp2).cwiseAbs().maxCoeff(), 1e-14);
    // psi itself (step (a)).
    const Vec3 psi_cay = p + 0.5 * h * xi.cross(p) + 0.25 * h * h * xi.dot(p) * xi;
    const Vec3 psi_exp = p + 0.5 * h * xi.cross(p) + h * h * beta * xi.cross(xi.cross(p));
    EXPECT_LT((integrators::DDBCayley(b).psi(xi, h) - psi_cay).cwiseAbs().maxCoeff(), 1e-14);
    EXPECT_LT((integrators::DDBExp(b).psi(xi, h) - psi_exp).cwiseAbs().maxCoeff(), 1e-14);
  }
}

// The a-priori step bound of DDB-exp (pole of psi_exp at h|xi| = 2 pi): refused with key integrator.dt.
TEST(DDBCheck, ExpStepBoundIsRefusedApriori) {
  const auto s = test::scenario_A();
  const double I_min = 0.5;
  const double dt_pole = 2.0 * std::numbers::pi * I_min / s.M0.norm();
  integrators::RigidBodyMethodOptions o;
  o.retraction = "exp";
  EXPECT_NO_THROW(integrators::check_rigid_body_step(s.body, o, s.M0, 0.99 * dt_pole));
  try {
    integrators::check_rigid_body_step(s.body, o, s.M0, 1.01 * dt_pole);
    FAIL() << "expected lievi::invalid_argument";
  } catch (const lievi::invalid_argument& e) {
    ASSERT_EQ(e.issues().size(), 1u);
    EXPECT_EQ(e.issues()[0].key, "integrator.dt");
    EXPECT_NE(e.issues()[0].message.find("2 pi"), std::string::npos) << e.what();
  }
  // The registry's stepper runs the same check in start().
  auto stepper = integrators::make_rigid_body_stepper(s.body, o);
  models::RigidBodyState x;
  x.M = s.M0;
  EXPECT_THROW(stepper->start(x, 1.01 * dt_pole), lievi::invalid_argument);
  // Cayley and exp2 have no pole: the same step is accepted.
  for (const char* r : {"cayley", "exp2"}) {
    o.retraction = r;
    EXPECT_NO_THROW(integrators::check_rigid_body_step(s.body, o, s.M0, 1.01 * dt_pole)) << r;
  }
  // dt <= 0 is refused for every method.
  o.retraction = "cayley";
  EXPECT_THROW(integrators::check_rigid_body_step(s.body, o, s.M0, 0.0), lievi::invalid_argument);
  o.method = "rk4";
  EXPECT_THROW(integrators::check_rigid_body_step(s.body, o, s.M0, -1.0), lievi::invalid_argument);
  // Numbers in the message are the shortest text that reads back to the same double: -0.1, not
  // -0.10000000000000001 (issue 22).
  try {
    integrators::check_rigid_body_step(s.body, o, s.M0, -0.1);
    FAIL() << "expected lievi::invalid_argument";
  } catch (const lievi::invalid_argument& e) {
    EXPECT_NE(e.issues()[0].message.find("value -0.1 must"), std::string::npos) << e.what();
  }
  o.method = "ddb";
  o.retraction = "exp";
  try {
    integrators::check_rigid_body_step(s.body, o, s.M0, 10.1);
    FAIL() << "expected lievi::invalid_argument";
  } catch (const lievi::invalid_argument& e) {
    EXPECT_NE(e.issues()[0].message.find("value 10.1 too large"), std::string::npos) << e.what();
    EXPECT_EQ(e.issues()[0].message.find("000000"), std::string::npos) << e.what();
  }
}

// Just below the pole DDB-exp still converges (the bound is not over-restrictive), with h|xi| < 2 pi.
TEST(DDBCheck, ExpConvergesJustBelowTheBound) {
  const auto s = test::scenario_A(0.0);
  const double dt = 0.9 * 2.0 * std::numbers::pi * 0.5 / s.M0.norm();
  integrators::DDBExp ddb(s.body);
  Vec3 xi;
  const StepResult r = ddb.solve_xi(s.M0, dt, xi);
  EXPECT_TRUE(r.converged) << r.message << " residual " << r.residual;
  EXPECT_LT(dt * xi.norm(), 2.0 * std::numbers::pi);
}

TEST(DDBRegistry, MethodsAndRetractions) {
  const auto methods = integrators::rigid_body_methods();
  ASSERT_GE(methods.size(), 2u);
  EXPECT_STREQ(methods[0].id, "ddb");
  bool has_rk4 = false;
  for (const auto& m : methods) has_rk4 = has_rk4 || std::string(m.id) == "rk4";
  EXPECT_TRUE(has_rk4);

  const auto s = test::scenario_A();
  integrators::RigidBodyMethodOptions o;
  for (const auto& r : integrators::rigid_body_retractions()) {
    o.retraction = r;
    auto st = integrators::make_rigid_body_stepper(s.body, o);
    EXPECT_EQ(st->retraction(), r);
    const auto t = st->traits();
    EXPECT_STREQ(t.id, "ddb");
    EXPECT_EQ(t.order, 1);
    EXPECT_TRUE(t.is_implicit);
    EXPECT_TRUE(t.preserves_casimirs);
    EXPECT_EQ(t.symplectic, r != "exp2");
    EXPECT_EQ(integrators::rigid_body_method_traits(o).symplectic, t.symplectic);
  }
  o.retraction = "bogus";
  try {
    (void)integrators::make_rigid_body_stepper(s.body, o);
    FAIL() << "expected lievi::invalid_argument";
  } catch (const lievi::invalid_argument& e) {
    EXPECT_EQ(e.issues()[0].key, "integrator.retraction");
    const std::string m = e.issues()[0].message;
    EXPECT_NE(m.find("cayley, exp, exp2"), std::string::npos) << m;
  }
  o.method = "nope";
  try {
    (void)integrators::make_rigid_body_stepper(s.body, o);
    FAIL() << "expected lievi::invalid_argument";
  } catch (const lievi::invalid_argument& e) {
    EXPECT_EQ(e.issues()[0].key, "integrator.method");
    EXPECT_NE(e.issues()[0].message.find("ddb"), std::string::npos);
  }
}

// solve::newton on its own: quadratic convergence to a known root, and a system without a real root
// (x0^2 + 1 = 0) reported as not converged at the iteration limit, with its residual (>= 1 everywhere).
TEST(Newton, ConvergesToKnownRootAndReportsNoRoot) {
  using V = Eigen::Vector3d;
  using M = Eigen::Matrix3d;
  const V root(1.0, -2.0, 0.5);
  const auto F = [&](const V& x) -> V {
    return V(x(0) * x(0) - 1.0, x(1) + x(0) * x(2) - (-2.0 + 0.5), std::exp(x(2)) - std::exp(0.5));
  };
  const auto DF = [&](const V& x) -> M {
    M J;
    J << 2 * x(0), 0, 0, x(2), 1, x(0), 0, 0, std::exp(x(2));
    return J;
  };
  V x(1.3, 0.0, 0.0);
  const StepResult r = solve::newton<3>(F, DF, x, 1.0);
  ASSERT_TRUE(r.converged) << r.message;
  EXPECT_LE(r.iterations, 8);                          // quadratic convergence from a guess at distance ~2
  EXPECT_LT((x - root).cwiseAbs().maxCoeff(), 1e-14);  // the step rule 1e-14 (1 + |x|) at |x| ~ 2, one more step

  const auto G = [](const V& y) -> V { return V(y(0) * y(0) + 1.0, y(1), y(2)); };
  const auto DG = [](const V& y) -> M {
    M J = M::Identity();
    J(0, 0) = 2 * y(0);
    return J;
  };
  solve::NewtonOptions o;
  o.max_iterations = 30;
  V y(0.7, 1.0, 1.0);
  const StepResult q = solve::newton<3>(G, DG, y, 1.0, o);
  EXPECT_FALSE(q.converged);
  EXPECT_GE(q.residual, 1.0);
  EXPECT_GE(q.iterations, 1);
  EXPECT_NE(std::string(q.message), "");
}

// The registry's type-erased stepper runs exactly the templated core: bitwise the same states over 1000 steps.
TYPED_TEST(DDBUnit, RegistryStepperIsTheCore) {
  const auto s = test::scenario_A();
  integrators::RigidBodyMethodOptions o;
  o.retraction = TypeParam::id;
  auto stepper = integrators::make_rigid_body_stepper(s.body, o);
  integrators::DDB<TypeParam> core(s.body);
  models::RigidBodyState x, y;
  x.M = y.M = s.M0;
  stepper->start(x, 0.01);
  core.start(y, 0.01);
  for (int k = 0; k < 1000; ++k) {
    ASSERT_TRUE(stepper->step(x, 0.01).converged);
    ASSERT_TRUE(core.step(y, 0.01).converged);
  }
  EXPECT_EQ(x.M, y.M);
  EXPECT_EQ(x.R, y.R);
}
