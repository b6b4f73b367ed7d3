// DEL toolkit: AD gradient/Hessian vs analytic, measured orders on the Kepler ellipse (analytic solution),
// Noether (angular momentum), degenerate Lagrangian diagnostic, trapezoid = Störmer-Verlet (written in the test),
// symplecticity of the one-step maps (J^T Omega J = Omega by central differences; RK4 as the failing control).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

#include "lievi/integrators/del/del_stepper.hpp"
#include "support/del_models.hpp"
#include "support/convergence.hpp"

using namespace lievi::integrators::del;

namespace {

using Kepler = lievi::test::del_models::Kepler;

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

TEST(DelEquivalence, TrapezoidIsStormerVerlet) {
  // L = ½|qdot|² - V(q), V = -1/|q| (Kepler, M = I): the trapezoidal discrete Lagrangian's position-momentum map is
  // Störmer-Verlet, p_{1/2} = p0 - (h/2) grad V(q0), q1 = q0 + h p_{1/2}, p1 = p_{1/2} - (h/2) grad V(q1),
  // written out here independently.
  auto gradV = [](const Vec<2>& q) { return Vec<2>(q / std::pow(q.squaredNorm(), 1.5)); };
  DelState<2> x;
  x.q = Vec<2>(0.5, 0.0);
  x.p = Vec<2>(0.0, std::sqrt(3.0));
  Vec<2> q = x.q, p = x.p;
  const double h = 0.01;
  double d = 0;
  for (int k = 0; k < 2000; ++k) {
    ASSERT_TRUE(del_step<Trapezoid>(Kepler{}, x, h).converged) << k;
    const Vec<2> ph = p - 0.5 * h * gradV(q);
    q = q + h * ph;
    p = ph - 0.5 * h * gradV(q);
    d = std::max({d, (x.q - q).cwiseAbs().maxCoeff(), (x.p - p).cwiseAbs().maxCoeff()});
  }
  std::printf("trapezoid vs Stormer-Verlet, 2000 Kepler steps: max difference %.2e\n", d);
  EXPECT_LT(d, 1e-11);
}

/// |J^T Omega J - Omega| of a one-step map of R^4 = (q, p) at a generic Kepler state (J by central differences).
template <class Map>
double defect_of(Map&& map);

template <class Method>
double symplecticity_defect(double h) {
  // J^T Omega J = Omega for the one-step map (q, p) -> (q', p') of Kepler at a generic state, J by central
  // differences (eps = 1e-5: truncation ~1e-10, round-off ~1e-11 with Newton converged to round-off).
  auto map = [&](const Eigen::Matrix<double, 4, 1>& z) {
    DelState<2> x;
    x.q = z.head<2>();
    x.p = z.tail<2>();
    EXPECT_TRUE(del_step<Method>(Kepler{}, x, h).converged);
    Eigen::Matrix<double, 4, 1> out;
    out << x.q, x.p;
    return out;
  };
  return defect_of(map);
}

template <class Map>
double defect_of(Map&& map) {
  const Vec<2> q0(0.7, 0.2), p0(-0.3, 1.1);
  Eigen::Matrix<double, 4, 1> z;
  z << q0, p0;
  Eigen::Matrix4d J;
  const double eps = 1e-5;
  for (int c = 0; c < 4; ++c) {
    Eigen::Matrix<double, 4, 1> e = Eigen::Matrix<double, 4, 1>::Zero();
    e[c] = eps;
    J.col(c) = (map(z + e) - map(z - e)) / (2 * eps);
  }
  Eigen::Matrix4d Om = Eigen::Matrix4d::Zero();
  Om.topRightCorner<2, 2>() = Eigen::Matrix2d::Identity();
  Om.bottomLeftCorner<2, 2>() = -Eigen::Matrix2d::Identity();
  return (J.transpose() * Om * J - Om).cwiseAbs().maxCoeff();
}

TEST(DelSymplecticity, OneStepMapPreservesOmega) {
  const double h = 0.1;  // large enough that a non-symplectic map would show an O(h^p) defect
  const double dm = symplecticity_defect<Midpoint>(h), dt = symplecticity_defect<Trapezoid>(h),
               dl = symplecticity_defect<LobattoIIIAIIIB>(h);
  std::printf("|J^T Omega J - Omega|: midpoint %.2e, trapezoid %.2e, lobatto %.2e\n", dm, dt, dl);
  EXPECT_LT(dm, 1e-9);
  EXPECT_LT(dt, 1e-9);
  EXPECT_LT(dl, 1e-9);
  // the check can fail: a classical RK4 step of the same Hamiltonian system is not symplectic
  auto rk4 = [h](const Eigen::Matrix<double, 4, 1>& z) {
    auto f = [](const Eigen::Matrix<double, 4, 1>& y) {
      Eigen::Matrix<double, 4, 1> d;
      d.head<2>() = y.tail<2>();
      d.tail<2>() = -y.head<2>() / std::pow(y.head<2>().squaredNorm(), 1.5);
      return d;
    };
    const auto k1 = f(z), k2 = f(z + 0.5 * h * k1), k3 = f(z + 0.5 * h * k2), k4 = f(z + h * k3);
    return Eigen::Matrix<double, 4, 1>(z + h / 6 * (k1 + 2 * k2 + 2 * k3 + k4));
  };
  const double dr = defect_of(rk4);
  std::printf("RK4 (control): %.2e\n", dr);
  EXPECT_GT(dr, 1e-7);
}
