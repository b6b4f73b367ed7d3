// DEL toolkit: AD gradient/Hessian vs analytic, measured orders on the Kepler ellipse (analytic solution),
// Noether (angular momentum), degenerate Lagrangian diagnostic.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "lievi/integrators/del/del_stepper.hpp"
#include "support/convergence.hpp"

using namespace lievi::integrators::del;

namespace {

struct Kepler {
  static constexpr int dim = 2;
  template <class S>
  S L(const Eigen::Matrix<S, 2, 1>& q, const Eigen::Matrix<S, 2, 1>& v) const {
    using std::sqrt;
    return 0.5 * v.squaredNorm() + 1.0 / sqrt(q.squaredNorm());
  }
};

struct Degenerate {  // linear in qdot
  static constexpr int dim = 2;
  template <class S>
  S L(const Eigen::Matrix<S, 2, 1>& q, const Eigen::Matrix<S, 2, 1>& v) const {
    return q.dot(v) - 0.5 * q.squaredNorm();
  }
};

/// Kepler ellipse a = 1, e = 0.5, periapsis at t = 0.
Vec<2> kepler_q(double t) {
  const double e = 0.5;
  double E = t;
  for (int i = 0; i < 50; ++i) E -= (E - e * std::sin(E) - t) / (1 - e * std::cos(E));
  return {std::cos(E) - e, std::sqrt(1 - e * e) * std::sin(E)};
}

template <class Method>
double kepler_error(double h, double T) {
  DelState<2> x;
  x.q = Vec<2>(0.5, 0.0);
  x.p = Vec<2>(0.0, std::sqrt(3.0));
  const long N = std::lround(T / h);
  for (long k = 0; k < N; ++k) EXPECT_TRUE(del_step<Method>(Kepler{}, x, h).converged);
  return (x.q - kepler_q(N * h)).norm();
}

}  // namespace

TEST(Dual, GradientHessianNested) {
  const Vec<2> x(0.7, 1.3);
  const auto f = [](const auto& z) { using std::sin; using std::exp; using std::log; return sin(z(0)) * exp(z(1)) + log(z(0)) * z(1); };
  const auto r = hessian<2>(f, x);
  const double a = x(0), b = x(1);
  EXPECT_NEAR(r.value, std::sin(a) * std::exp(b) + std::log(a) * b, 1e-14);
  EXPECT_NEAR(r.gradient(0), std::cos(a) * std::exp(b) + b / a, 1e-14);
  EXPECT_NEAR(r.gradient(1), std::sin(a) * std::exp(b) + std::log(a), 1e-14);
  EXPECT_NEAR(r.hessian(0, 0), -std::sin(a) * std::exp(b) - b / (a * a), 1e-14);
  EXPECT_NEAR(r.hessian(0, 1), std::cos(a) * std::exp(b) + 1 / a, 1e-14);
  EXPECT_NEAR(r.hessian(1, 0), r.hessian(0, 1), 1e-15);
  EXPECT_NEAR(r.hessian(1, 1), std::sin(a) * std::exp(b), 1e-14);
}

template <class Method>
void check_order() {
  std::vector<double> hs{0.02, 0.01, 0.005}, es;
  for (double h : hs) es.push_back(kepler_error<Method>(h, 2.0));
  const double p = lievi::test::fitted_order(hs, es);
  std::printf("%s:\n%s", Method::id, lievi::test::order_table(hs, es).c_str());
  EXPECT_NEAR(p, Method::order, 0.2) << lievi::test::order_table(hs, es);
}
TEST(DelOrder, Midpoint) { check_order<Midpoint>(); }
TEST(DelOrder, Trapezoid) { check_order<Trapezoid>(); }
TEST(DelOrder, LobattoIIIAIIIB) { check_order<LobattoIIIAIIIB>(); }

TEST(DelNoether, KeplerAngularMomentum) {
  DelState<2> x;
  x.q = Vec<2>(0.5, 0.0);
  x.p = Vec<2>(0.0, std::sqrt(3.0));
  const auto xi = [](const Vec<2>& q) { return Vec<2>(-q(1), q(0)); };
  const double J0 = momentum_map(x, xi);
  double dmax = 0;
  for (int k = 0; k < 10000; ++k) {
    ASSERT_TRUE(del_step<Midpoint>(Kepler{}, x, 0.05).converged);
    dmax = std::max(dmax, std::abs(momentum_map(x, xi) - J0));
  }
  std::printf("max |J_d - J_0| over 1e4 midpoint steps: %.3e\n", dmax);
  EXPECT_LT(dmax, 100 * std::sqrt(1e4) * 2.2e-16 * std::abs(J0));  // random walk of round-off
}

TEST(DelFailure, DegenerateLagrangian) {
  DelState<2> x;
  x.q = Vec<2>(1.0, 0.0);
  const auto r = del_step<Midpoint>(Degenerate{}, x, 0.1);
  EXPECT_FALSE(r.converged);
  EXPECT_STREQ(r.message, msg_degenerate);
  EXPECT_THROW(integrate<Midpoint>(Degenerate{}, x, 0.1, 3, [](long, const DelState<2>&) {}),
               lievi::numerical_failure);
}
