// The high-accuracy references (reference/rigid_body_taylor.hpp, reference/rigid_body_exact.hpp) checked
// against each other (alpha = 0: the Taylor series vs the Landau–Lifshitz closed form, independent
// derivations) and against SciPy's DOP853 (docs/theory/ddb.md "Comparators and scenarios").
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "lievi/core/error.hpp"
#include "lievi/reference/rigid_body_exact.hpp"
#include "lievi/reference/rigid_body_taylor.hpp"
#include "support/rigid_body_scenarios.hpp"

using namespace lievi;
using models::Vec3;

namespace {

std::vector<double> linspace(double a, double b, int n) {
  std::vector<double> t;
  for (int i = 0; i < n; ++i) t.push_back(a + (b - a) * i / (n - 1));
  return t;
}

/// max_i ||taylor(t_i) - exact(t_i)||_inf / |M0| over n output times in [0, T].
double taylor_vs_exact(const models::RigidBody& b, const Vec3& M0, double T, int n = 301) {
  const auto t = linspace(0.0, T, n);
  const auto ref = reference::taylor_dense_ld(b, M0, t);
  const reference::TorqueFreeExact ex(b, M0);
  long double err = 0;
  for (std::size_t i = 0; i < t.size(); ++i) err = std::max(err, (ref[i] - ex.M_ld(t[i])).cwiseAbs().maxCoeff());
  return static_cast<double>(err) / M0.norm();
}

}  // namespace

// Scenario A's inertia at alpha = 0, t in [0, 30] (about 3 periods): |M|^2 < 2 E I_mid, polar axis = smallest.
// 1e-14 relative: both are ~1e-17 accurate in long double; the margin covers the conditioning of the
// elliptic phase (u = u0 + lambda t, error ~ |d/du| * eps * lambda t) over 30 time units.
TEST(Reference, TaylorMatchesEllipticScenarioAInertia) {
  const auto s = test::scenario_A(0.0);
  const reference::TorqueFreeExact ex(s.body, s.M0);
  EXPECT_EQ(ex.polar_axis(), 2);  // Omega0 is nearly along e3, the smallest moment (0.5)
  EXPECT_GT(ex.modulus(), 0.0L);
  const double err = taylor_vs_exact(s.body, s.M0, 30.0);
  std::printf("Taylor vs elliptic (scenario A, alpha = 0): %.3e\n", err);
  EXPECT_LT(err, 1e-14);
}

// The other branch (|M|^2 > 2 E I_mid: polar axis = largest) and an odd labelling of the axes: the
// inertias are permuted so that (a, m, p) is an odd permutation, which flips the sign of lambda.
TEST(Reference, TaylorMatchesEllipticOtherBranchAndOddPermutation) {
  for (const Vec3& moments : {Vec3(2.0, 1.3, 0.5), Vec3(0.5, 2.0, 1.3), Vec3(1.3, 0.5, 2.0)}) {
    const auto b = models::RigidBody::principal(moments, 0.0);
    // Momentum near the largest axis (index of max moment), with components along the others.
    int imax = 0;
    moments.maxCoeff(&imax);
    Vec3 M0(0.3, -0.2, 0.25);
    M0(imax) = 1.5;
    const reference::TorqueFreeExact ex(b, M0);
    EXPECT_EQ(ex.polar_axis(), imax);
    const double err = taylor_vs_exact(b, M0, 30.0);
    // Same 1e-14 reasoning as above.
    EXPECT_LT(err, 1e-14) << "moments " << moments.transpose();
  }
}

// Two equal moments (Scenario C's inertia at alpha = 0): the trigonometric symmetric-top branch.
TEST(Reference, TaylorMatchesSymmetricTop) {
  for (const Vec3& moments : {Vec3(1.0, 1.0, 0.5), Vec3(0.5, 1.0, 1.0), Vec3(1.0, 0.5, 1.0)}) {
    const auto b = models::RigidBody::principal(moments, 0.0);
    const Vec3 M0 = b.I * Vec3(0.3, 0.05, 1.0);
    const reference::TorqueFreeExact ex(b, M0);
    EXPECT_EQ(ex.modulus(), 0.0L);
    const double err = taylor_vs_exact(b, M0, 30.0);
    EXPECT_LT(err, 1e-14) << "moments " << moments.transpose();  // as above
  }
}

// The Taylor reference conserves |M|^2 (a rotation flow) and its energy decays as dH/dt = -alpha |M x Omega|^2:
// checked by comparing H(T) - H(0) with Simpson's rule applied to dH/dt evaluated on the dense output.
TEST(Reference, TaylorCasimirAndEnergyBalance) {
  const auto s = test::scenario_A();
  const int n = 3001;  // Simpson on 3000 intervals of 0.01: error ~ h^4 |H'''''| ~ 1e-9 * O(1) -> 1e-10 bound
  const auto t = linspace(0.0, s.t_end, n);
  const auto M = reference::taylor_dense(s.body, s.M0, t);
  double casimir_err = 0;
  std::vector<double> dH(n);
  for (int i = 0; i < n; ++i) {
    casimir_err = std::max(casimir_err, std::abs(M[i].squaredNorm() - s.M0.squaredNorm()));
    const Vec3 Om = s.body.omega(M[i]);
    const Vec3 u(M[i](1) * Om(2) - M[i](2) * Om(1), M[i](2) * Om(0) - M[i](0) * Om(2), M[i](0) * Om(1) - M[i](1) * Om(0));
    dH[i] = -0.5 * u.squaredNorm();  // -alpha |M x Omega|^2, alpha = 0.5 (Scenario A)
  }
  double integral = dH[0] + dH[n - 1];
  for (int i = 1; i < n - 1; ++i) integral += (i % 2 ? 4.0 : 2.0) * dH[i];
  integral *= (t[1] - t[0]) / 3.0;
  // Rounding of the double outputs: |M|^2 ~ 0.25, a few ulps.
  EXPECT_LT(casimir_err, 4e-16);
  EXPECT_NEAR(s.body.energy(M.back()) - s.body.energy(s.M0), integral, 1e-10);  // Simpson error bound above
}

TEST(Reference, TaylorRejectsUnsortedTimes) {
  const auto s = test::scenario_A();
  EXPECT_THROW(reference::taylor_dense(s.body, s.M0, {1.0, 0.5}), lievi::invalid_argument);
  EXPECT_THROW(reference::taylor_dense(s.body, s.M0, {-1.0}), lievi::invalid_argument);
}

TEST(Reference, ExactRejectsDissipation) {
  const auto s = test::scenario_A();
  EXPECT_THROW(reference::TorqueFreeExact(s.body, s.M0), lievi::invalid_argument);
}

// Taylor vs SciPy DOP853 (rtol = atol = 1e-13) on Scenario A: DOP853 is itself only ~1e-12 accurate here
// (docs/theory/ddb.md "Comparators and scenarios"), so 1e-11 is the resolvable agreement.
TEST(Reference, TaylorMatchesScipyDop853ScenarioA) {
  const char* python = "/usr/bin/python3";
  if (!std::filesystem::exists(python)) GTEST_SKIP() << "/usr/bin/python3 not found";
  const auto s = test::scenario_A();
  const std::vector<double> t = {1.0, 2.5, 5.0, 10.0, 15.0, 20.0, 25.0, 30.0};
  std::ostringstream cmd;
  cmd.precision(17);
  cmd << python << " " << LIEVI_TEST_DIR << "/scipy_dop853.py";
  for (int i = 0; i < 3; ++i) cmd << " " << s.body.I(i, i);
  cmd << " " << 0.5;
  for (int i = 0; i < 3; ++i) cmd << " " << s.M0(i);
  for (double ti : t) cmd << " " << ti;
  FILE* pipe = popen(cmd.str().c_str(), "r");
  ASSERT_NE(pipe, nullptr);
  std::string out;
  char buf[512];
  while (std::fgets(buf, sizeof buf, pipe)) out += buf;
  const int status = pclose(pipe);
  if (WIFEXITED(status) && WEXITSTATUS(status) == 77) GTEST_SKIP() << "SciPy not available";
  ASSERT_EQ(status, 0) << cmd.str();
  const auto ref = reference::taylor_dense(s.body, s.M0, t);
  std::istringstream in(out);
  double max_err = 0;
  for (std::size_t i = 0; i < t.size(); ++i) {
    double ti, m1, m2, m3;
    ASSERT_TRUE(in >> ti >> m1 >> m2 >> m3) << out;
    EXPECT_DOUBLE_EQ(ti, t[i]);
    max_err = std::max(max_err, (ref[i] - Vec3(m1, m2, m3)).cwiseAbs().maxCoeff());
  }
  std::printf("Taylor vs SciPy DOP853 (scenario A): max abs diff %.3e\n", max_err);
  EXPECT_LT(max_err, 1e-11);
}
