// Lobatto IIIC (lievi/integrators/ode/lobatto_iiic.hpp): the field Jacobian against central finite differences of
// RigidBody::field (K = alpha Id and a general K, general inertia), the measured order 4 on Scenario A against
// the long-double Taylor reference, the attitude against RK4 at a small step, and the registry entry.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <vector>

#include "lievi/integrators/ode/lobatto_iiic.hpp"
#include "lievi/integrators/ode/rk4.hpp"
#include "lievi/integrators/rigid_body_stepper.hpp"
#include "lievi/reference/rigid_body_taylor.hpp"
#include "support/convergence.hpp"
#include "support/rigid_body_scenarios.hpp"

using namespace lievi;
using integrators::LobattoIIIC;
using models::Mat3;
using models::Vec3;

namespace {

/// Central differences of RigidBody::field, column by column, step d.
Mat3 fd_jacobian(const models::RigidBody& b, const Vec3& M, double d) {
  Mat3 J;
  for (int c = 0; c < 3; ++c) {
    Vec3 e = Vec3::Zero();
    e(c) = d;
    J.col(c) = (b.field(M + e) - b.field(M - e)) / (2.0 * d);
  }
  return J;
}

/// Output times 1, 2, ..., T.
std::vector<double> unit_times(double T) {
  std::vector<double> t;
  for (int i = 1; i <= static_cast<int>(T); ++i) t.push_back(i);
  return t;
}

/// max over t = 1..T of ||M(t) - ref(t)||_inf with Lobatto IIIC at step h (1/h an integer); INFINITY on failure.
double lobatto_error(const test::RigidBodyScenario& s, double h, const std::vector<Vec3>& ref,
                     models::RigidBodyState* final_state = nullptr) {
  models::RigidBodyState x;
  x.M = s.M0;
  const long per_unit = std::lround(1.0 / h);
  double err = 0;
  for (const Vec3& r : ref) {
    for (long k = 0; k < per_unit; ++k)
      if (!LobattoIIIC::step(s.body, x, h).converged) return INFINITY;
    err = std::max(err, (x.M - r).cwiseAbs().maxCoeff());
  }
  if (final_state) *final_state = x;
  return err;
}

}  // namespace

// The tableau: row sums are the nodes, b is the last row (stiffly accurate), and the order conditions up to
// order 4 hold (Hairer & Wanner II, IV.5): b.1 = 1, b.c = 1/2, b.c^2 = 1/3, b.Ac = 1/6, b.c^3 = 1/4, ...
TEST(LobattoIIIC, TableauOrderConditions) {
  const auto& a = LobattoIIIC::a;
  const auto& b = LobattoIIIC::b;
  const auto& c = LobattoIIIC::c;
  double s1 = 0, sc = 0, sc2 = 0, sAc = 0, sc3 = 0, scAc = 0, sAc2 = 0, sAAc = 0;
  for (int i = 0; i < 3; ++i) {
    EXPECT_DOUBLE_EQ(a[i][0] + a[i][1] + a[i][2], c[i]);
    EXPECT_DOUBLE_EQ(a[2][i], b[i]);
    double Ac = 0, Ac2 = 0, AAc = 0;
    for (int j = 0; j < 3; ++j) {
      Ac += a[i][j] * c[j];
      Ac2 += a[i][j] * c[j] * c[j];
      double Acj = 0;
      for (int l = 0; l < 3; ++l) Acj += a[j][l] * c[l];
      AAc += a[i][j] * Acj;
    }
    s1 += b[i];
    sc += b[i] * c[i];
    sc2 += b[i] * c[i] * c[i];
    sAc += b[i] * Ac;
    sc3 += b[i] * c[i] * c[i] * c[i];
    scAc += b[i] * c[i] * Ac;
    sAc2 += b[i] * Ac2;
    sAAc += b[i] * AAc;
  }
  // Sums of a few rationals with denominators <= 24: exact to a few ulps.
  EXPECT_NEAR(s1, 1.0, 1e-15);
  EXPECT_NEAR(sc, 0.5, 1e-15);
  EXPECT_NEAR(sc2, 1.0 / 3.0, 1e-15);
  EXPECT_NEAR(sAc, 1.0 / 6.0, 1e-15);
  EXPECT_NEAR(sc3, 0.25, 1e-15);
  EXPECT_NEAR(scAc, 1.0 / 8.0, 1e-15);
  EXPECT_NEAR(sAc2, 1.0 / 12.0, 1e-15);
  EXPECT_NEAR(sAAc, 1.0 / 24.0, 1e-15);
}

// J_field_M against central differences at Scenario A's inertia with K = alpha Id (the formula of
// docs/theory/ddb.md "Comparators and scenarios") and at a general (non-diagonal) inertia with a general
// symmetric PSD K (the derived formula).
TEST(LobattoIIIC, FieldJacobianMatchesFiniteDifferences) {
  Mat3 I_gen;
  I_gen << 1.2, 0.1, -0.05, 0.1, 0.9, 0.2, -0.05, 0.2, 0.6;
  Mat3 L;
  L << 0.7, 0.0, 0.0, 0.3, 0.4, 0.0, -0.2, 0.1, 0.5;
  const models::RigidBody bodies[] = {models::RigidBody::principal({1.0, 1.3, 0.5}, 0.5),
                                      models::RigidBody::general(I_gen, L * L.transpose())};
  for (const auto& body : bodies) {
    for (const Vec3& M : {Vec3(0.0, 0.065, 0.5), Vec3(0.3, -0.4, 0.7), Vec3(-1.1, 0.2, 0.05)}) {
      const Mat3 J = LobattoIIIC::J_field_M(body, M);
      const Mat3 J_fd = fd_jacobian(body, M, 1e-5);
      // Central differences: truncation d^2 |f'''| / 6 ~ 1e-10 * O(1), rounding eps |f| / d ~ 1e-11;
      // 1e-8 relative to the Jacobian's size leaves a margin, while any wrong term is O(1).
      EXPECT_LT((J - J_fd).cwiseAbs().maxCoeff(), 1e-8 * (1.0 + J.cwiseAbs().maxCoeff()))
          << "M = " << M.transpose() << "\nJ =\n" << J << "\nJ_fd =\n" << J_fd;
    }
  }
}

// Scenario A, max error over t = 1..30 against the Taylor reference: order 4 (pairwise orders and the fitted slope
// in [3.7, 4.3]: the asymptotic regime is reached for h <= 0.1, and a method of order 3 or 5 would fall outside).
TEST(LobattoIIIC, FourthOrderOnScenarioA) {
  const auto s = test::scenario_A();
  const auto t = unit_times(s.t_end);
  const auto ref = reference::taylor_dense(s.body, s.M0, t);
  const std::vector<double> h = {0.1, 0.05, 0.025, 0.0125};
  std::vector<double> e;
  for (double hh : h) e.push_back(lobatto_error(s, hh, ref));
  std::printf("Lobatto IIIC, scenario A:\n%s", test::order_table(h, e).c_str());
  for (double p : test::pairwise_orders(h, e)) {
    EXPECT_GT(p, 3.7) << test::order_table(h, e);
    EXPECT_LT(p, 4.3) << test::order_table(h, e);
  }
  const double p_fit = test::fitted_order(h, e);
  EXPECT_NEAR(p_fit, LobattoIIIC::traits.order, 0.3) << test::order_table(h, e);
}

// The attitude: Lobatto IIIC at h and RK4 at h/4 (both order 4 for (M, R), independent codes; RK4's error is then
// ~1e-11) agree at t = 30 to the size of Lobatto's own error, and R stays orthogonal to within the O(h^4) error
// (not to round-off: not a Lie-group method).
TEST(LobattoIIIC, AttitudeMatchesRK4AndStaysNearOrthogonal) {
  const auto s = test::scenario_A();
  const auto ref = reference::taylor_dense(s.body, s.M0, unit_times(s.t_end));
  const double h = 0.0125;
  models::RigidBodyState x;
  const double err_M = lobatto_error(s, h, ref, &x);
  models::RigidBodyState y;
  y.M = s.M0;
  const long n = std::lround(4.0 * s.t_end / h);
  for (long k = 0; k < n; ++k) ASSERT_TRUE(integrators::RK4::step(s.body, y, h / 4.0).converged);
  const double dR = (x.R - y.R).cwiseAbs().maxCoeff();
  const double orth = (x.R.transpose() * x.R - Mat3::Identity()).cwiseAbs().maxCoeff();
  std::printf("Lobatto IIIC h = %g: |M - ref| = %.3e, |R - R_rk4| = %.3e, |R^T R - I| = %.3e\n", h, err_M, dR,
              orth);
  // Measured 4.5e-10 (Lobatto's attitude error at h = 0.0125, 10x its momentum error 4e-11): 3e-9 leaves a 7x
  // margin, while a wrong attitude equation (e.g. hat(Omega) R instead of R hat(Omega)) gives O(1).
  EXPECT_LT(dR, 3e-9);
  // Orthogonality defect, a global O(h^4) error, measured 6e-12: bound 1e-10.
  EXPECT_LT(orth, 1e-10);
  EXPECT_GT(x.R.determinant(), 0.0);
}

// At a large step the Newton iteration still converges in a few iterations (the predictor is explicit Euler).
TEST(LobattoIIIC, NewtonConvergesInFewIterations) {
  const auto s = test::scenario_A();
  models::RigidBodyState x;
  x.M = s.M0;
  int it_max = 0;
  for (int k = 0; k < 300; ++k) {
    const StepResult r = LobattoIIIC::step(s.body, x, 0.1);
    ASSERT_TRUE(r.converged) << r.message;
    it_max = std::max(it_max, r.iterations);
    // The residual rule of solve::newton: <= 1e-13 |M_k|_inf (|M| ~ 0.5 here).
    EXPECT_LE(r.residual, 1e-13);
  }
  std::printf("Lobatto IIIC h = 0.1: max Newton iterations %d\n", it_max);
  // Full Newton from an O(h) predictor: quadratic convergence reaches 1e-14 in <= 5 iterations at h = 0.1.
  EXPECT_LE(it_max, 5);
}

// Failure is returned, not thrown, and the state is kept: a non-finite momentum.
TEST(LobattoIIIC, ReportsFailure) {
  const auto s = test::scenario_A();
  models::RigidBodyState x;
  x.M = Vec3(NAN, 0.0, 1.0);
  const StepResult r = LobattoIIIC::step(s.body, x, 0.1);
  EXPECT_FALSE(r.converged);
  EXPECT_TRUE(std::isnan(x.M(0)));
}

// Registry: id, traits, and the stepper agrees bit for bit with the core.
TEST(LobattoIIIC, Registry) {
  const auto s = test::scenario_A();
  integrators::RigidBodyMethodOptions o;
  o.method = "lobatto-iiic";
  const auto traits = integrators::rigid_body_method_traits(o);
  EXPECT_STREQ(traits.id, "lobatto-iiic");
  EXPECT_EQ(traits.order, 4);
  EXPECT_TRUE(traits.is_implicit);
  EXPECT_FALSE(traits.preserves_casimirs);
  auto stepper = integrators::make_rigid_body_stepper(s.body, o);
  EXPECT_EQ(stepper->retraction(), "");
  models::RigidBodyState x, y;
  x.M = y.M = s.M0;
  stepper->start(x, 0.1);
  for (int k = 0; k < 10; ++k) {
    ASSERT_TRUE(stepper->step(x, 0.1).converged);
    ASSERT_TRUE(LobattoIIIC::step(s.body, y, 0.1).converged);
  }
  EXPECT_EQ(x.M, y.M);
  EXPECT_EQ(x.R, y.R);
  EXPECT_THROW(stepper->start(x, 0.0), lievi::invalid_argument);  // dt must be > 0
}
