// Moser–Veselov (seed 002 Example 4.5, docs/theory/ddb.md "Moser–Veselov"): the Newton Jacobian against
// finite differences, the step-(a) residual in the paper's matrix form (w J - J w^T)/h = M^, step (b) against
// the literal matrix conjugation, the principal-axis quadratic, energy and Casimir to round-off, orders (2 at
// alpha = 0 against the elliptic solution, 1 with dissipation against the Taylor reference), and the failure
// at Scenario A, dt = 1.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "lievi/core/error.hpp"
#include "lievi/integrators/moser_veselov.hpp"
#include "lievi/integrators/rigid_body_stepper.hpp"
#include "lievi/reference/rigid_body_exact.hpp"
#include "lievi/reference/rigid_body_taylor.hpp"
#include "support/convergence.hpp"
#include "support/rigid_body_scenarios.hpp"

using namespace lievi;
using integrators::MoserVeselov;
using lie::hat;
using lie::Mat3;
using lie::Vec3;

namespace {

constexpr double eps = std::numeric_limits<double>::epsilon();

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

std::vector<double> unit_times(double T) {
  std::vector<double> t;
  for (int i = 1; i <= static_cast<int>(T); ++i) t.push_back(i);
  return t;
}

double max_error(const test::RigidBodyScenario& s, double h, const std::vector<double>& times,
                 const std::vector<Vec3>& ref) {
  MoserVeselov mv(s.body);
  models::RigidBodyState x;
  x.M = s.M0;
  mv.start(x, h);
  const long per_unit = std::lround(1.0 / h);
  double err = 0;
  for (std::size_t i = 0; i < times.size(); ++i) {
    for (long k = 0; k < per_unit; ++k)
      if (!mv.step(x, h).converged) return INFINITY;
    err = std::max(err, (x.M - ref[i]).cwiseAbs().maxCoeff());
  }
  return err;
}

}  // namespace

// DG = I + (h/2)(xi^ I - p^) - (h^2/2) M xi^T against central differences of G (random general inertia).
// Step 1e-5: G is quadratic in xi, so the central difference is exact up to rounding ~ eps/1e-5 ~ 1e-11; 1e-9.
TEST(MoserVeselovUnit, JacobianMatchesFiniteDifferences) {
  std::mt19937 rng(5);
  for (int trial = 0; trial < 50; ++trial) {
    const MoserVeselov mv(random_body(rng, 0.5));
    const double h = std::uniform_real_distribution<double>(0.001, 1.0)(rng);
    const Vec3 xi = random_vec(rng, 2.0), M = random_vec(rng, 1.0);
    Mat3 J_fd;
    const double d = 1e-5;
    for (int j = 0; j < 3; ++j) {
      const Vec3 e = Vec3::Unit(j) * d;
      J_fd.col(j) = (mv.G(xi + e, M, h) - mv.G(xi - e, M, h)) / (2 * d);
    }
    EXPECT_LT((mv.DG(xi, M, h) - J_fd).cwiseAbs().maxCoeff(), 1e-9) << "h = " << h;
  }
}

// The solved xi satisfies the paper's matrix equation (w J - J w^T)/h = M^ with w = cay(h xi) and
// J = ½ tr(I) Id - I, both formed here from scratch (Cayley as (Id - X/2)^{-1}(Id + X/2), X = hat(h xi)).
// Random general inertia, |M| < 1, h in [0.01, 0.5] (a solution exists). Tolerance: the vector equation is solved
// to the Newton residual rule 1e-13 |M|_inf (in practice ~1e-16), and forming w J - J w^T rounds O(|I|) entries to
// a few eps, then divided by h: bound 1e-13 |M|_inf + 20 eps max|I| / h (measured worst 2.7e-14 relative).
TEST(MoserVeselovUnit, StepAResidualInMatrixForm) {
  std::mt19937 rng(9);
  double worst = 0;
  for (int trial = 0; trial < 100; ++trial) {
    const auto b = random_body(rng, 0.5);
    const MoserVeselov mv(b);
    const double h = std::uniform_real_distribution<double>(0.01, 0.5)(rng);
    const Vec3 M = random_vec(rng, 0.57);
    Vec3 xi;
    const StepResult r = mv.solve_xi(M, h, xi);
    ASSERT_TRUE(r.converged) << r.message;
    const Mat3 X = hat(h * xi);
    const Mat3 w = (Mat3::Identity() - 0.5 * X).inverse() * (Mat3::Identity() + 0.5 * X);
    const Mat3 J = 0.5 * b.I.trace() * Mat3::Identity() - b.I;
    const Mat3 res = (w * J - J * w.transpose()) / h - hat(M);
    const double rel = res.cwiseAbs().maxCoeff() / M.cwiseAbs().maxCoeff();
    worst = std::max(worst, rel);
    EXPECT_LT(res.cwiseAbs().maxCoeff(), 1e-13 * M.cwiseAbs().maxCoeff() + 20 * eps * b.I.cwiseAbs().maxCoeff() / h);
    // And the library's own matrix-form residual agrees.
    EXPECT_LT((mv.residual_matrix_form(xi, M, h) - res).cwiseAbs().maxCoeff(), 1e-13);
  }
  std::printf("Moser-Veselov step (a): max relative matrix-form residual %.3e\n", worst);
}

// Step (b) in the vector form (the DDB-Cayley update with Kahan summation) equals the literal matrix conjugation
// M^_{k+1} = (w phi_d)^T M^_k (w phi_d), w = cay(h xi), phi_d = cay(h phi(xi)), to round-off (1e-15 on |M| ~ 1:
// a few roundings of O(1) products), and the attitude is R_{k+1} = R_k w.
TEST(MoserVeselovUnit, StepBEqualsMatrixConjugation) {
  std::mt19937 rng(13);
  for (int trial = 0; trial < 50; ++trial) {
    const auto b = random_body(rng, 0.7);
    MoserVeselov mv(b);
    const double h = std::uniform_real_distribution<double>(0.01, 0.5)(rng);
    models::RigidBodyState x;
    x.M = random_vec(rng, 0.57);
    x.R = Eigen::Quaterniond(Eigen::AngleAxisd(1.3, random_vec(rng, 1.0).normalized())).toRotationMatrix();
    const models::RigidBodyState x0 = x;
    mv.start(x, h);
    ASSERT_TRUE(mv.step(x, h).converged);
    const Vec3 xi = mv.xi();
    const Mat3 w = lie::Cayley<lie::SO3>::tau(h * xi).matrix();
    const Mat3 phi_d = lie::Cayley<lie::SO3>::tau(h * b.phi(xi)).matrix();
    const Mat3 g = w * phi_d;
    const Mat3 M_next = g.transpose() * hat(x0.M) * g;
    EXPECT_LT((x.M - lie::vee(M_next)).cwiseAbs().maxCoeff(), 2e-15);
    EXPECT_LT((x.R - x0.R * w).cwiseAbs().maxCoeff(), 2e-15);
  }
}

// Along a principal axis, M = m e_i, step (a) is the quadratic (h^2 m/4) x^2 - I_i x + m = 0: the solution on the
// branch from xi = M/I_i (h -> 0) is x = 2 m / (I_i + sqrt(I_i^2 - h^2 m^2)) for h|m| <= I_i, and there is none for
// h|m| > I_i. Checked at h m/I_i = 0.5, 0.99 (relative 1e-14: Newton's 1e-14 step rule) and 1.01 (failure).
TEST(MoserVeselovUnit, PrincipalAxisQuadratic) {
  const auto b = models::RigidBody::principal(Vec3(1.0, 1.3, 0.5), 0.5);
  const MoserVeselov mv(b);
  const double h = 0.4;
  for (int i = 0; i < 3; ++i) {
    const double Ii = b.I(i, i);
    for (double ratio : {0.5, 0.99}) {
      const double m = ratio * Ii / h;
      Vec3 xi;
      ASSERT_TRUE(mv.solve_xi(m * Vec3::Unit(i), h, xi).converged);
      const double x = 2 * m / (Ii + std::sqrt(Ii * Ii - h * h * m * m));
      EXPECT_NEAR(xi(i), x, 1e-14 * x) << "axis " << i << " ratio " << ratio;
      EXPECT_LT((xi - xi(i) * Vec3::Unit(i)).norm(), 1e-14 * x);
    }
    Vec3 xi;
    const StepResult r = mv.solve_xi(1.01 * Ii / h * Vec3::Unit(i), h, xi);
    EXPECT_FALSE(r.converged) << "axis " << i;
  }
}

// Scenario A with dt = 1: h|M3| = 0.5 = I3 and M0 leans off the axis with |M0| = 0.504 > I3: step (a) has no
// solution. The first step returns converged = false with a message naming integrator.dt, and the run's stepper
// from the registry does the same at its first step.
TEST(MoserVeselovUnit, ScenarioAAtDt1FailsAtFirstStep) {
  const auto s = test::scenario_A();
  MoserVeselov mv(s.body);
  models::RigidBodyState x;
  x.M = s.M0;
  mv.start(x, 1.0);
  const StepResult r = mv.step(x, 1.0);
  EXPECT_FALSE(r.converged);
  EXPECT_NE(std::string(r.message).find("integrator.dt"), std::string::npos) << r.message;
  EXPECT_EQ(x.M, s.M0);  // state unchanged on failure
  std::printf("Moser-Veselov, scenario A, dt = 1: %s (%d Newton iterations in all)\n", r.message, r.iterations);

  integrators::RigidBodyMethodOptions o;
  o.method = "moser-veselov";
  auto st = integrators::make_rigid_body_stepper(s.body, o);
  EXPECT_EQ(st->retraction(), "");
  EXPECT_EQ(st->traits().order, 1);
  EXPECT_TRUE(st->traits().symplectic);
  models::RigidBodyState y;
  y.M = s.M0;
  st->start(y, 1.0);
  EXPECT_FALSE(st->step(y, 1.0).converged);
  // A smaller step works (h |M0| / I3 ~ 0.5).
  st->start(y, 0.5);
  EXPECT_TRUE(st->step(y, 0.5).converged);
}

// alpha = 0: the energy H = ½ M·I^{-1}M is conserved to round-off, not merely bounded. Scenario A's
// inertia, h = 0.1 and 0.01, t = 300 (3000 and 30 000 steps). Bound: each step commits O(eps) errors in xi and the
// update, i.e. a random walk of ~ sqrt(n) * few eps * H0; the bound 4 eps H0 sqrt(n) (~2.6e-14 relative at
// n = 3e4) is far below DDB-cayley's O(h^2) energy error (7.5e-7 at h = 0.1, docs/theory/ddb.md).
TEST(MoserVeselovInvariants, EnergyConservedToRoundOffAtAlpha0) {
  const auto s = test::scenario_A(0.0);
  const double H0 = s.body.energy(s.M0);
  for (double h : {0.1, 0.01}) {
    MoserVeselov mv(s.body);
    models::RigidBodyState x;
    x.M = s.M0;
    mv.start(x, h);
    const long n = std::lround(300.0 / h);
    double dH = 0;
    for (long k = 0; k < n; ++k) {
      ASSERT_TRUE(mv.step(x, h).converged);
      dH = std::max(dH, std::abs(s.body.energy(x.M) - H0));
    }
    std::printf("Moser-Veselov alpha = 0, h = %g, %ld steps: max |H - H0| / H0 = %.3e (%.2f eps)\n", h, n, dH / H0,
                dH / H0 / eps);
    EXPECT_LE(dH, 4 * eps * H0 * std::sqrt(static_cast<double>(n)));
  }
}

// Casimir: max relative drift of |M|^2 over Scenario B with dt = 0.001 (250 000 steps) <= 1e-15 (~4.5 ulps of
// |M0|^2; step (b) is the Kahan-summed DDB-Cayley update).
TEST(MoserVeselovInvariants, CasimirAtRoundOffOverScenarioB) {
  const auto s = test::scenario_B();
  const double h = 0.001;
  const long n = std::lround(s.t_end / h);
  const double C0 = s.M0.squaredNorm();
  MoserVeselov mv(s.body);
  models::RigidBodyState x;
  x.M = s.M0;
  mv.start(x, h);
  double drift = 0;
  for (long k = 0; k < n; ++k) {
    ASSERT_TRUE(mv.step(x, h).converged);
    drift = std::max(drift, std::abs(x.M.squaredNorm() - C0) / C0);
  }
  std::printf("Moser-Veselov Casimir max rel drift over %ld steps: %.3e (%.2f eps)\n", n, drift, drift / eps);
  EXPECT_LE(drift, 1e-15);
}

// Orders. alpha = 0, against the Landau–Lifshitz closed form: second order (pairwise orders in [1.9, 2.1]).
// alpha = 0.5 (Scenario A), against the Taylor reference: first order, the dissipation factor being explicit in
// xi_k as in DDB (last two pairwise orders in [0.9, 1.2]).
TEST(MoserVeselovConvergence, OrdersOnScenarioA) {
  const std::vector<double> h = {0.1, 0.05, 0.025, 0.0125, 0.00625, 0.003125};
  {
    const auto s = test::scenario_A(0.0);
    const auto t = unit_times(s.t_end);
    const reference::TorqueFreeExact exact(s.body, s.M0);
    std::vector<Vec3> ref;
    for (double ti : t) ref.push_back(exact.M(ti));
    std::vector<double> e;
    for (double hh : h) e.push_back(max_error(s, hh, t, ref));
    std::printf("Moser-Veselov, alpha = 0:\n%s", test::order_table(h, e).c_str());
    for (double p : test::pairwise_orders(h, e)) {
      EXPECT_GT(p, 1.9) << test::order_table(h, e);
      EXPECT_LT(p, 2.1) << test::order_table(h, e);
    }
  }
  {
    const auto s = test::scenario_A();
    const auto t = unit_times(s.t_end);
    const auto ref = reference::taylor_dense(s.body, s.M0, t);
    std::vector<double> e;
    for (double hh : h) e.push_back(max_error(s, hh, t, ref));
    std::printf("Moser-Veselov, scenario A (alpha = 0.5):\n%s", test::order_table(h, e).c_str());
    const auto p = test::pairwise_orders(h, e);
    for (std::size_t i = p.size() - 2; i < p.size(); ++i) {
      EXPECT_GT(p[i], 0.9) << test::order_table(h, e);
      EXPECT_LT(p[i], 1.2) << test::order_table(h, e);
    }
  }
}
