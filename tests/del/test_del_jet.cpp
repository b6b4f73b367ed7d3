// Second-order jets (jet.hpp): value, gradient and Hessian of expressions using every supported math function,
// against central finite differences of the plain double function (independent of any AD code) and against
// the nested duals of dual.hpp; atan2 on both of its derivative branches and across the branch cut in x < 0.
#include <gtest/gtest.h>

#include <cmath>

#include "lievi/integrators/del/dual.hpp"
#include "lievi/integrators/del/jet.hpp"

using namespace lievi::integrators::del;

namespace {

template <class S>
S f(const Eigen::Matrix<S, 4, 1>& z) {
  using std::acos, std::asin, std::atan, std::atan2, std::cos, std::cosh, std::exp, std::log, std::pow, std::sin,
      std::sinh, std::sqrt, std::tan, std::tanh;
  return 0.5 * z(2) * z(2) + z(2) * z(3) * cos(z(0) - z(1)) + 1.0 / sqrt(z(0) * z(0) + z(1) * z(1)) +
         atan2(z(1), z(0)) * tanh(z(3)) + pow(z(2) * z(2) + 1.0, 1.5) + exp(z(0)) * log(2.0 + z(1)) +
         asin(0.3 * z(3)) / (z(2) + 3.0) + acos(0.2 * z(0)) * sin(z(1)) + tan(0.4 * z(3)) * sinh(z(2)) -
         cosh(0.5 * z(1)) * atan(z(0) * z(3)) + pow(2.0 + z(0) * z(0), z(3)) - (3.0 - z(2)) / (1.5 + z(3) * z(3));
}

/// Max |Jet2 - reference| over value, gradient, Hessian, relative to 1 + |reference|.
double jet_vs(const Eigen::Matrix<double, 4, 1>& x, double value, const Eigen::Vector4d& grad,
              const Eigen::Matrix4d& hess) {
  const Jet2<4> y = f(seed_jet<4>(x));
  double e = std::abs(y.v - value) / (1 + std::abs(value));
  for (int i = 0; i < 4; ++i) {
    e = std::max(e, std::abs(y.g[static_cast<std::size_t>(i)] - grad(i)) / (1 + std::abs(grad(i))));
    for (int j = 0; j < 4; ++j) e = std::max(e, std::abs(y.hessian(i, j) - hess(i, j)) / (1 + std::abs(hess(i, j))));
  }
  return e;
}

const Eigen::Vector4d kPoints[] = {{0.3, -0.7, 1.1, 0.4},   // atan2 branch |x| < |y|
                                   {1.2, 0.5, -0.4, 0.5},   // |x| >= |y|
                                   {-1.5, 0.2, 0.3, -0.8},  // x < 0 near the cut, y > 0
                                   {-1.5, -0.2, 0.3, -0.8}};  // x < 0 near the cut, y < 0

TEST(Jet2, MatchesNestedDuals) {
  for (const auto& x : kPoints) {
    const auto r = hessian<4>([](const auto& z) { return f(z); }, x);
    const double e = jet_vs(x, r.value, r.gradient, r.hessian);
    std::printf("  x = (%g, %g, %g, %g): max rel diff vs nested duals %.2e\n", x(0), x(1), x(2), x(3), e);
    EXPECT_LT(e, 1e-14);
  }
}

TEST(Jet2, MatchesFiniteDifferences) {
  // Central differences of the double function: gradient error ~ h^2 f''' + eps f / h, Hessian (4-point
  // mixed) ~ h^2 + eps f / h^2; with h = 1e-4 both are below 1e-6 for this f of moderate size.
  constexpr double h = 1e-4;
  for (const auto& x : kPoints) {
    const auto F = [](Eigen::Vector4d z) { return f(z); };
    Eigen::Vector4d g;
    Eigen::Matrix4d H;
    for (int i = 0; i < 4; ++i) {
      const Eigen::Vector4d ei = h * Eigen::Vector4d::Unit(i);
      g(i) = (F(x + ei) - F(x - ei)) / (2 * h);
      for (int j = 0; j < 4; ++j) {
        const Eigen::Vector4d ej = h * Eigen::Vector4d::Unit(j);
        H(i, j) = (F(x + ei + ej) - F(x + ei - ej) - F(x - ei + ej) + F(x - ei - ej)) / (4 * h * h);
      }
    }
    const double e = jet_vs(x, F(x), g, H);
    std::printf("  x = (%g, %g, %g, %g): max rel diff vs central differences %.2e\n", x(0), x(1), x(2), x(3), e);
    EXPECT_LT(e, 1e-6);
  }
}

/// Eigen reductions on jet vectors (squaredNorm and norm go through the specialised abs2, dot through products).
template <class S>
S g_eigen(const Eigen::Matrix<S, 4, 1>& z) {
  using std::sqrt;
  const Eigen::Matrix<S, 2, 1> q = z.template head<2>(), v = z.template tail<2>();
  return 0.5 * v.squaredNorm() + 1.0 / q.norm() + q.dot(v) * v.squaredNorm();
}

TEST(Jet2, EigenReductionsMatchNestedDuals) {
  for (const auto& x : kPoints) {
    const auto r = hessian<4>([](const auto& z) { return g_eigen(z); }, x);
    const Jet2<4> y = g_eigen(seed_jet<4>(x));
    double e = std::abs(y.v - r.value);
    for (int i = 0; i < 4; ++i) {
      e = std::max(e, std::abs(y.g[static_cast<std::size_t>(i)] - r.gradient(i)));
      for (int j = 0; j < 4; ++j) e = std::max(e, std::abs(y.hessian(i, j) - r.hessian(i, j)));
    }
    EXPECT_LT(e, 1e-13) << "x = " << x.transpose();
  }
}

TEST(Jet2, PackedHessianIndexing) {
  // index(i, j) enumerates the upper triangle row by row, symmetric in (i, j), and hi/hj invert it
  for (int k = 0; k < Jet2<5>::hsize; ++k) {
    EXPECT_EQ(Jet2<5>::index(Jet2<5>::hi[static_cast<std::size_t>(k)], Jet2<5>::hj[static_cast<std::size_t>(k)]), k);
    EXPECT_EQ(Jet2<5>::index(Jet2<5>::hj[static_cast<std::size_t>(k)], Jet2<5>::hi[static_cast<std::size_t>(k)]), k);
  }
  // the Hessian of x_i x_j is e_i e_j^T + e_j e_i^T
  const auto z = seed_jet<5>(Eigen::Matrix<double, 5, 1>::Constant(0.5));
  const Jet2<5> p = z(1) * z(3);
  for (int i = 0; i < 5; ++i)
    for (int j = 0; j < 5; ++j) EXPECT_EQ(p.hessian(i, j), ((i == 1 && j == 3) || (i == 3 && j == 1)) ? 1.0 : 0.0);
}

TEST(Jet2, NonFiniteIsDetected) {
  const auto z = seed_jet<2>(Eigen::Vector2d(0.0, 1.0));
  EXPECT_FALSE(isfinite(sqrt(z(0))));  // d sqrt / dx = inf at 0
  EXPECT_TRUE(isfinite(sqrt(z(1))));
  EXPECT_TRUE(isnan(log(-1.0 * z(1))));
}

}  // namespace
