/// @file tests/kirchhoff/test_kirchhoff_convergence.cpp
/// @brief Orders of the DDB on se(3)* (Kirchhoff's body), Cayley and exp, measured as log–log slopes against a
/// fine RK4 solution of the continuous equations written out in the test (kirchhoff_support.hpp): order 1 with
/// dissipation, order 2 at alpha = 0; at alpha = 0 the energy error stays bounded (variational integrator).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <vector>

#include "kirchhoff_support.hpp"
#include "lievi/integrators/ddb_group.hpp"
#include "support/convergence.hpp"

namespace {

using namespace lievi;

template <class R>
struct KirchhoffOrder : ::testing::Test {};
using Retractions = ::testing::Types<lie::Cayley<lie::SE3>, lie::Exp<lie::SE3>>;
TYPED_TEST_SUITE(KirchhoffOrder, Retractions);

/// Max over t = 1, 2, ..., T of |mu_DDB(t) - mu_ref(t)|_inf for step h; the reference is RK4 with 2000 steps per
/// unit time (its error, ~C h_ref^4 ~ 1e-13 here, is far below the DDB errors measured, >= 1e-5).
template <class R>
std::vector<double> errors(double alpha, const std::vector<double>& hs, int T) {
  const auto body = test::kirchhoff_body(alpha);
  const auto sys = body.system();
  std::vector<lie::Vec6> ref(static_cast<std::size_t>(T) + 1);
  ref[0] = test::kirchhoff_mu0();
  for (int t = 1; t <= T; ++t)
    ref[static_cast<std::size_t>(t)] = test::kirchhoff_rk4(sys.A_inv, sys.K, ref[static_cast<std::size_t>(t) - 1], 1.0, 2000);
  std::vector<double> e;
  for (double h : hs) {
    integrators::DDBGroup<lie::SE3, R> m(sys);
    models::LiePoissonState<lie::SE3> x;
    x.mu = ref[0];
    m.start();
    const int per_unit = static_cast<int>(std::lround(1.0 / h));
    double err = 0.0;
    for (int t = 1; t <= T; ++t) {
      for (int k = 0; k < per_unit; ++k) EXPECT_TRUE(m.step(x, h).converged);
      err = std::max(err, (x.mu - ref[static_cast<std::size_t>(t)]).template lpNorm<Eigen::Infinity>());
    }
    e.push_back(err);
  }
  return e;
}

TYPED_TEST(KirchhoffOrder, FirstOrderWithDissipation) {
  using R = TypeParam;
  const std::vector<double> hs = {0.05, 0.025, 0.0125, 0.00625};
  const auto e = errors<R>(0.5, hs, 5);
  const auto p = test::pairwise_orders(hs, e);
  std::printf("[ measure ] %s alpha = 0.5:\n%s", R::id, test::order_table(hs, e).c_str());
  // Order 1: the dissipation factor tau(h phi(xi_k)) is explicit in xi_k. The conservative part is O(h^2), so
  // at the larger steps the pairwise order can exceed 1; the last pair must be within 0.1 of 1.
  EXPECT_NEAR(p.back(), 1.0, 0.1) << test::order_table(hs, e);
  for (double q : p) EXPECT_GT(q, 0.9) << test::order_table(hs, e);
}

TYPED_TEST(KirchhoffOrder, SecondOrderWithoutDissipation) {
  using R = TypeParam;
  const std::vector<double> hs = {0.1, 0.05, 0.025, 0.0125};
  const auto e = errors<R>(0.0, hs, 5);
  const auto p = test::pairwise_orders(hs, e);
  std::printf("[ measure ] %s alpha = 0:\n%s", R::id, test::order_table(hs, e).c_str());
  // At K = 0 the DDB is the variational Lie–Poisson integrator of the retraction: symmetric, order 2.
  for (double q : p) EXPECT_NEAR(q, 2.0, 0.1) << test::order_table(hs, e);
}

TYPED_TEST(KirchhoffOrder, BoundedEnergyWithoutDissipation) {
  using R = TypeParam;
  const auto sys = test::kirchhoff_body(0.0).system();
  integrators::DDBGroup<lie::SE3, R> m(sys);
  models::LiePoissonState<lie::SE3> x;
  x.mu = test::kirchhoff_mu0();
  const double H0 = sys.energy(x.mu);
  m.start();
  const double h = 0.1;
  const int n = 20000, window = 2000;  // t in [0, 2000]; windows [0, 200] and [1800, 2000]
  double first = 0.0, last = 0.0;
  for (int k = 1; k <= n; ++k) {
    ASSERT_TRUE(m.step(x, h).converged);
    const double dH = std::abs(sys.energy(x.mu) - H0);
    if (k <= window) first = std::max(first, dH);
    if (k > n - window) last = std::max(last, dH);
  }
  std::printf("[ measure ] %s alpha = 0, h = 0.1: max |H - H0| in [0, 200] %.4e, in [1800, 2000] %.4e (H0 %.4f)\n",
              R::id, first, last, H0);
  // Bounded, no drift: the late window's maximum is not more than 1.5 times the early one (a drift of the energy
  // error, as for a non-variational one-step method, would make it grow with t), and the error is O(h^2) small.
  EXPECT_LE(last, 1.5 * first);
  EXPECT_LE(first, 1e-2 * H0);
}

}  // namespace
