/// @file tests/kirchhoff/test_kirchhoff_invariants.cpp
/// @brief DDB on se(3)* (Kirchhoff's body), Cayley and exp: the Jacobian of step (a) against central
/// differences, the Casimirs |P|^2 and P · Pi over 10^5 steps, energy decrease at every step, and step (c) as
/// the coadjoint action Ad*_{tau(h xi) tau(h phi)} written with SE3::Ad.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <limits>
#include <random>

#include "kirchhoff_support.hpp"
#include "lievi/integrators/ddb_group.hpp"

namespace {

using namespace lievi;
using models::Kirchhoff;

template <class R>
struct KirchhoffDDB : ::testing::Test {};
using Retractions = ::testing::Types<lie::Cayley<lie::SE3>, lie::Exp<lie::SE3>>;
TYPED_TEST_SUITE(KirchhoffDDB, Retractions);

TYPED_TEST(KirchhoffDDB, JacobianMatchesCentralDifferences) {
  using R = TypeParam;
  // A general SPD locked inertia (with coupling) and metric, random xi of moderate size, several h.
  std::mt19937_64 rng(29);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  for (int trial = 0; trial < 20; ++trial) {
    lie::Mat6 B, C;
    for (int i = 0; i < 6; ++i)
      for (int j = 0; j < 6; ++j) {
        B(i, j) = u(rng);
        C(i, j) = u(rng);
      }
    const lie::Mat6 A = B * B.transpose() + lie::Mat6::Identity();
    const lie::Mat6 K = C * C.transpose();
    integrators::DDBGroup<lie::SE3, R> m(models::QuadraticLiePoisson<lie::SE3>::make(A, K));
    lie::Vec6 xi;
    for (int i = 0; i < 6; ++i) xi(i) = 1.5 * u(rng);
    const double h = 0.05 + 0.5 * std::abs(u(rng));
    const lie::Mat6 J = m.Dpsi(xi, h);
    lie::Mat6 Jfd;
    const double e = 1e-6;
    for (int j = 0; j < 6; ++j) {
      lie::Vec6 d = lie::Vec6::Zero();
      d(j) = e;
      Jfd.col(j) = (m.psi(xi + d, h) - m.psi(xi - d, h)) / (2 * e);
    }
    // Central differences: truncation e^2 |psi'''| ~ 1e-12 and rounding eps |psi| / e ~ 1e-10 (|psi| ~ 10);
    // 1e-8 relative to |J| leaves a margin of 100 and still catches any wrong term (those are O(h) ~ 0.1).
    EXPECT_LE((J - Jfd).template lpNorm<Eigen::Infinity>(), 1e-8 * J.template lpNorm<Eigen::Infinity>())
        << "trial " << trial << " h " << h;
  }
}

TYPED_TEST(KirchhoffDDB, StepCIsTheCoadjointActionOfTauXiTauPhi) {
  using R = TypeParam;
  const Kirchhoff body = test::kirchhoff_body();
  integrators::DDBGroup<lie::SE3, R> m(body.system());
  models::LiePoissonState<lie::SE3> x;
  x.mu = test::kirchhoff_mu0();
  lie::Vec6 c = lie::Vec6::Zero();
  const double h = 0.2;
  lie::Vec6 xi;
  ASSERT_TRUE(m.solve_xi(x.mu, h, xi).converged);
  // Step (a) solved: psi_h(xi) = mu to the Newton residual rule (1e-13 of |mu|_inf).
  EXPECT_LE((m.psi(xi, h) - x.mu).template lpNorm<Eigen::Infinity>(), 1e-13);
  const lie::Vec6 phi = m.model().phi(xi);
  const lie::Vec6 mu_k = x.mu;
  integrators::DDBGroup<lie::SE3, R>::update(x, c, xi, phi, h);
  // Literal (4.12): Ad*_{w phi_d} mu = (Ad_{w phi_d})^T mu, with tau from lie/retraction and Ad from SE3.
  const lie::SE3 w = R::tau(h * xi), phi_d = R::tau(h * phi);
  const lie::Vec6 expected = (w * phi_d).Ad().transpose() * mu_k;
  // Two different evaluations of the same 6-vector of size ~1: a few ulps.
  EXPECT_LE((x.mu - expected).template lpNorm<Eigen::Infinity>(), 1e-15);
  // The reconstruction g_1 = g_0 w.
  EXPECT_LE((x.g.matrix() - w.matrix()).template lpNorm<Eigen::Infinity>(), 1e-15);
}

/// Run n steps of h from mu_0; report the maximum relative Casimir drifts and the largest energy rise.
template <class R, integrators::Summation Sum>
void run_invariants(int n, double h, double& dP2, double& dPPi, double& max_rise, double& H_end) {
  const Kirchhoff body = test::kirchhoff_body();
  const auto sys = body.system();
  integrators::DDBGroup<lie::SE3, R, Sum> m(sys);
  models::LiePoissonState<lie::SE3> x;
  x.mu = test::kirchhoff_mu0();
  const double P2_0 = Kirchhoff::casimir_P2(x.mu), PPi_0 = Kirchhoff::casimir_PPi(x.mu);
  double H = sys.energy(x.mu);
  dP2 = dPPi = 0.0;
  max_rise = -std::numeric_limits<double>::infinity();
  m.start();
  for (int k = 0; k < n; ++k) {
    ASSERT_TRUE(m.step(x, h).converged) << k;
    dP2 = std::max(dP2, std::abs(Kirchhoff::casimir_P2(x.mu) - P2_0) / P2_0);
    dPPi = std::max(dPPi, std::abs(Kirchhoff::casimir_PPi(x.mu) - PPi_0) / PPi_0);
    const double H_new = sys.energy(x.mu);
    max_rise = std::max(max_rise, (H_new - H) / H);
    H = H_new;
  }
  H_end = H;
}

TYPED_TEST(KirchhoffDDB, CasimirsToRoundOffOver1e5Steps) {
  using R = TypeParam;
  constexpr double eps = std::numeric_limits<double>::epsilon();
  double dP2, dPPi, rise, H_end;
  run_invariants<R, integrators::Summation::compensated>(100000, 0.01, dP2, dPPi, rise, H_end);
  double pP2, pPPi, prise, pH;
  run_invariants<R, integrators::Summation::plain>(100000, 0.01, pP2, pPPi, prise, pH);
  std::printf("[ measure ] %s, 1e5 steps of 0.01: max rel drift |P|^2 %.2e (%.2f eps), P.Pi %.2e (%.2f eps); "
              "plain summation: %.2e, %.2e; max energy rise %.2e (rel)\n",
              R::id, dP2, dP2 / eps, dPPi, dPPi / eps, pP2, pPPi, rise);
  // Compensated summation keeps mu_k within about one ulp of the exact coadjoint orbit: a Casimir, a quadratic
  // form in mu, is then off by a few ulps of its size (|P|^2: 2 ulps for the two rounded factors plus the
  // rounding of the three products and the sum; P·Pi likewise, relative to |P||Pi| >= |P·Pi|, here |P||Pi|/|P·Pi|
  // = 1.63). 8 eps for both leaves a margin of 2 over the measured worst case; plain summation drifts far beyond.
  EXPECT_LE(dP2, 8 * eps);
  EXPECT_LE(dPPi, 8 * eps);
  // And the compensation is what achieves it: plain summation (M <- M + delta) drifts linearly with the number of
  // steps, measured 3e-14 to 6e-14 here, well above the bound.
  EXPECT_GT(std::max(pP2, pPPi), 8 * eps);
  // Energy never rises by more than rounding (one ulp of H per step is ~1.1e-16 relative).
  EXPECT_LE(rise, 4 * eps);
}

}  // namespace
