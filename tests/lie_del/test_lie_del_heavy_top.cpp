// The heavy top and the 3D pendulum with the Lie-group DEL (Cayley and exp):
//  - Casimirs of the reduced form |Gamma|^2 and Pi . Gamma (= the vertical angular momentum, Noether for rotations
//    about e3) kept to round-off over 2e4 steps, in the full (R, p) and the reduced (Pi, Gamma) forms;
//  - |R^T R - I| at round-off; full and reduced forms agree;
//  - energy bounded with no drift: the slope of per-window maxima of |H - H_0| over 2e4 steps;
//  - order 2 measured against RK4 of the continuous Euler-Poincaré equations (written here, fine step);
//  - equal, for a few steps, to an update written here independently (fixed-point iteration for xi, the matrix
//    Cayley (I - X/2)^{-1}(I + X/2) or the exponential series, momentum by the coadjoint action Ad*_F);
//  - the 3D pendulum: small oscillations about the hanging equilibrium against the linearisation
//    J theta'' = -K theta, K = (m g/|rho|)(|rho|^2 Id - rho rho^T), solved here by a generalised eigenproblem.
#include <gtest/gtest.h>

#include <Eigen/Eigenvalues>
#include <cmath>
#include <cstdio>
#include <vector>

#include "lievi/integrators/lie_del/lie_del.hpp"
#include "lievi/lie/retraction/cayley.hpp"
#include "lievi/lie/retraction/exp.hpp"
#include "lievi/models/lie_mechanics.hpp"
#include "support/convergence.hpp"

namespace {

using namespace lievi;
using integrators::lie_del::AdvectedState;
using integrators::lie_del::LieDel;
using integrators::lie_del::LieDelState;
using lie::Mat3;
using lie::SO3;
using lie::Vec3;
using lm_HeavyTop = models::lie_mechanics::HeavyTop;

/// An asymmetric top with its centre of mass off the symmetry axis.
lm_HeavyTop top() {
  lm_HeavyTop m;
  m.I = Vec3(1.0, 0.8, 0.4).asDiagonal();
  m.I(0, 1) = m.I(1, 0) = 0.05;
  m.m = 1.0;
  m.g = 9.81;
  m.chi = Vec3(0.05, 0.02, 0.5);
  return m;
}
/// Tilted by 0.4 rad about e1, spinning mostly about its body axis 3.
LieDelState<SO3> initial_state(const lm_HeavyTop& m) {
  LieDelState<SO3> x;
  x.g = lie::Exp<SO3>::tau(Vec3(0.4, 0.1, 0.0));
  x.p = m.I * Vec3(0.5, -0.3, 6.0);
  return x;
}
Vec3 Gamma_of(const SO3& R) { return R.matrix().transpose() * Vec3::UnitZ(); }

template <class R_>
class HeavyTopDel : public ::testing::Test {};
using Retractions = ::testing::Types<lie::Cayley<SO3>, lie::Exp<SO3>>;
TYPED_TEST_SUITE(HeavyTopDel, Retractions);

TYPED_TEST(HeavyTopDel, CasimirsNoetherAndOrthogonalityToRoundOff) {
  const lm_HeavyTop m = top();
  LieDel<lm_HeavyTop, TypeParam> full(m), reduced(m);
  LieDelState<SO3> x = initial_state(m);
  AdvectedState y{x.p, Gamma_of(x.g), 0.0};
  const double h = 0.01;
  const long N = 20000;
  const double C1_0 = Gamma_of(x.g).squaredNorm(), J_0 = x.p.dot(Gamma_of(x.g));
  const double J_noether_0 = integrators::lie_del::momentum_map(x.g, x.p, m.symmetries()[0]);
  double dC1 = 0, dJ = 0, dJ_noether = 0, dC1_red = 0, dJ_red = 0, orth = 0, full_vs_reduced = 0;
  for (long k = 0; k < N; ++k) {
    ASSERT_TRUE(full.step(x, h).converged) << k;
    ASSERT_TRUE(reduced.advected_step(y, h).converged) << k;
    const Vec3 G = Gamma_of(x.g);
    dC1 = std::max(dC1, std::abs(G.squaredNorm() - C1_0));
    dJ = std::max(dJ, std::abs(x.p.dot(G) - J_0));
    dJ_noether = std::max(dJ_noether, std::abs(integrators::lie_del::momentum_map(x.g, x.p, m.symmetries()[0]) - J_noether_0));
    dC1_red = std::max(dC1_red, std::abs(y.Gamma.squaredNorm() - C1_0));
    dJ_red = std::max(dJ_red, std::abs(y.Pi.dot(y.Gamma) - J_0));
    orth = std::max(orth, x.g.orthogonality_error());
    full_vs_reduced = std::max(full_vs_reduced, (x.p - y.Pi).cwiseAbs().maxCoeff() + (G - y.Gamma).cwiseAbs().maxCoeff());
  }
  std::printf("[%s] max over %ld steps: ||Gamma|^2 - 1| %.2e, |Pi.Gamma - J0| %.2e (|J0| = %.3f), Noether %.2e, "
              "reduced: %.2e %.2e, |R^T R - I| %.2e, full vs reduced %.2e\n",
              TypeParam::id, N, dC1, dJ, std::abs(J_0), dJ_noether, dC1_red, dJ_red, orth, full_vs_reduced);
  // Round-off: each step rounds |Gamma|^2, Pi.Gamma and R^T R by a few ulps, accumulating like a random walk
  // (sqrt(2e4) ~ 140) or at worst linearly; 2e-12 (~1e4 ulps of the O(1-3) quantities) is far below any
  // truncation-error drift (h^2 ~ 1e-4) and catches a wrong coadjoint convention or a missing potential term.
  EXPECT_LE(dC1, 2e-12);
  EXPECT_LE(dJ, 2e-12 * (1.0 + std::abs(J_0)));
  EXPECT_LE(dJ_noether, 2e-12 * (1.0 + std::abs(J_0)));
  EXPECT_LE(dC1_red, 2e-12);
  EXPECT_LE(dJ_red, 2e-12 * (1.0 + std::abs(J_0)));
  EXPECT_LE(orth, 2e-12);
  // The two forms differ only in how Gamma is rounded (R^T e3 vs F^T Gamma); the motion is chaotic-ish, so the
  // rounding difference grows with a Lyapunov exponent. 1e-6 over t = 200 is far below the O(1) of a wrong step.
  EXPECT_LE(full_vs_reduced, 1e-6);
}

TYPED_TEST(HeavyTopDel, EnergyBoundedWithoutDrift) {
  const lm_HeavyTop m = top();
  LieDel<lm_HeavyTop, TypeParam> s(m);
  AdvectedState y{initial_state(m).p, Gamma_of(initial_state(m).g), 0.0};
  const double h = 0.01, H0 = m.energy(y.Pi, y.Gamma);
  const int windows = 20, per_window = 1000;
  std::vector<double> t_w, max_w;
  for (int w = 0; w < windows; ++w) {
    double mx = 0;
    for (int k = 0; k < per_window; ++k) {
      ASSERT_TRUE(s.advected_step(y, h).converged);
      mx = std::max(mx, std::abs(m.energy(y.Pi, y.Gamma) - H0));
    }
    t_w.push_back((w + 0.5) * per_window * h);
    max_w.push_back(mx);
  }
  // least-squares slope of the window maxima against time
  double st = 0, sm = 0, stt = 0, stm = 0;
  for (int w = 0; w < windows; ++w) {
    st += t_w[w];
    sm += max_w[w];
    stt += t_w[w] * t_w[w];
    stm += t_w[w] * max_w[w];
  }
  const double n = windows, slope = (n * stm - st * sm) / (n * stt - st * st);
  const double T = windows * per_window * h, overall = *std::max_element(max_w.begin(), max_w.end());
  std::printf("[%s] h = %.3g, t = %.0f: max |H - H0| = %.3e (H0 = %.3f), first window %.3e, last %.3e, "
              "drift slope x T = %.2e\n", TypeParam::id, h, T, overall, H0, max_w.front(), max_w.back(), slope * T);
  // Bounded: an O(h^2) energy error (h^2 |H| ~ 1e-4 |H|). No drift: a linear trend would add slope * T over the
  // run; a variational method's window maxima fluctuate without trend, so |slope| T must stay well below the
  // error itself (0.2 of it allows the fluctuation of 20 window maxima, a drifting method has slope * T ~ overall).
  EXPECT_LE(overall, 1e-3 * std::abs(H0));
  EXPECT_LE(std::abs(slope) * T, 0.2 * overall);
}

/// RK4 of the continuous reduced equations dPi/dt = Pi × Omega + m g Gamma × chi, dGamma/dt = Gamma × Omega,
/// written here (independently of the model's `field`).
void rk4_reference(const lm_HeavyTop& m, Vec3& Pi, Vec3& Gamma, double T, long n) {
  const Mat3 I_inv = m.I.inverse();
  const auto f = [&](const Vec3& P, const Vec3& G, Vec3& dP, Vec3& dG) {
    const Vec3 W = I_inv * P;
    dP = P.cross(W) + m.m * m.g * G.cross(m.chi);
    dG = G.cross(W);
  };
  const double h = T / static_cast<double>(n);
  for (long k = 0; k < n; ++k) {
    Vec3 a1, b1, a2, b2, a3, b3, a4, b4;
    f(Pi, Gamma, a1, b1);
    f(Pi + 0.5 * h * a1, Gamma + 0.5 * h * b1, a2, b2);
    f(Pi + 0.5 * h * a2, Gamma + 0.5 * h * b2, a3, b3);
    f(Pi + h * a3, Gamma + h * b3, a4, b4);
    Pi += (h / 6) * (a1 + 2 * a2 + 2 * a3 + a4);
    Gamma += (h / 6) * (b1 + 2 * b2 + 2 * b3 + b4);
  }
}

TYPED_TEST(HeavyTopDel, SecondOrderAgainstRK4Reference) {
  const lm_HeavyTop m = top();
  const double T = 1.0;
  Vec3 Pi_ref = initial_state(m).p, G_ref = Gamma_of(initial_state(m).g);
  rk4_reference(m, Pi_ref, G_ref, T, 20000);  // RK4 error ~ (5e-5)^4 ~ 1e-17 per unit time
  std::vector<double> hs, es;
  for (const double h : {0.04, 0.02, 0.01, 0.005}) {
    LieDel<lm_HeavyTop, TypeParam> s(m);
    AdvectedState y{initial_state(m).p, Gamma_of(initial_state(m).g), 0.0};
    const long n = std::lround(T / h);
    for (long k = 0; k < n; ++k) ASSERT_TRUE(s.advected_step(y, h).converged);
    hs.push_back(h);
    es.push_back((y.Pi - Pi_ref).norm() + (y.Gamma - G_ref).norm());
  }
  const double p = lievi::test::fitted_order(hs, es);
  std::printf("[%s] heavy top, t = 1:\n%s  fitted order %.3f\n", TypeParam::id, lievi::test::order_table(hs, es).c_str(), p);
  // trait order 2; +-0.1 allows the O(h^3) terms at the largest step
  EXPECT_NEAR(p, 2.0, 0.1);
}

/// (dtau_x^{-1})^T mu for the retraction, written here: Cayley I + x^/2 + x x^T/4; exp by its Bernoulli series
/// sum_k B_k/k! (ad*_x)^k mu with ad*_x mu = mu × x (30 terms).
template <class R>
Vec3 dtau_inv_T(const Vec3& x, const Vec3& mu) {
  if constexpr (std::is_same_v<R, lie::Cayley<SO3>>) {
    return mu + 0.5 * x.cross(mu) + 0.25 * x.dot(mu) * x;
  } else {
    const double B[] = {1.0, -0.5, 1.0 / 6, 0.0, -1.0 / 30, 0.0, 1.0 / 42, 0.0, -1.0 / 30, 0.0, 5.0 / 66, 0.0,
                        -691.0 / 2730, 0.0, 7.0 / 6, 0.0, -3617.0 / 510, 0.0, 43867.0 / 798, 0.0, -174611.0 / 330};
    Vec3 term = mu, sum = mu;
    double fact = 1.0;
    for (int k = 1; k <= 20; ++k) {
      term = term.cross(x);
      fact *= k;
      sum += (B[k] / fact) * term;
    }
    return sum;
  }
}
/// tau(x) as a matrix, written here: Cayley (I - X/2)^{-1}(I + X/2); exp by its power series (40 terms).
template <class R>
Mat3 tau_matrix(const Vec3& x) {
  const Mat3 X = lie::hat(x);
  if constexpr (std::is_same_v<R, lie::Cayley<SO3>>) {
    return (Mat3::Identity() - 0.5 * X).inverse() * (Mat3::Identity() + 0.5 * X);
  } else {
    Mat3 term = Mat3::Identity(), sum = Mat3::Identity();
    for (int k = 1; k <= 40; ++k) {
      term = term * X / k;
      sum += term;
    }
    return sum;
  }
}

TYPED_TEST(HeavyTopDel, EqualsIndependentlyWrittenUpdate) {
  const lm_HeavyTop m = top();
  LieDel<lm_HeavyTop, TypeParam> s(m);
  LieDelState<SO3> x = initial_state(m);
  Mat3 R = x.g.matrix();
  Vec3 Pi = x.p;
  const double h = 0.01;
  const Mat3 I_inv = m.I.inverse();
  const auto gradV = [&](const Mat3& Rm) { return Vec3(m.m * m.g * m.chi.cross(Rm.transpose() * Vec3::UnitZ())); };
  for (int k = 0; k < 5; ++k) {
    ASSERT_TRUE(s.step(x, h).converged);
    // independent: fixed point xi = xi + I^{-1}(b - (dtau^{-1}_{h xi})^T I xi), a contraction for small h
    const Vec3 b = Pi - 0.5 * h * gradV(R);
    Vec3 xi = I_inv * b;
    for (int it = 0; it < 200; ++it) xi += I_inv * (b - dtau_inv_T<TypeParam>(h * xi, m.I * xi));
    const Mat3 F = tau_matrix<TypeParam>(h * xi);
    R = R * F;
    Pi = F.transpose() * b - 0.5 * h * gradV(R);  // Ad*_F of the momentum before the step, plus the potential
    // Newton vs fixed point to ~1e-15 and two different formulas for tau and the momentum: 1e-13 (~100 ulps of
    // |Pi| ~ 2.4) over 5 steps
    EXPECT_LE((x.g.matrix() - R).cwiseAbs().maxCoeff(), 1e-13) << "step " << k;
    EXPECT_LE((x.p - Pi).cwiseAbs().maxCoeff(), 1e-13 * Pi.norm()) << "step " << k;
  }
}

TEST(ThreeDPendulumDel, SmallOscillationsMatchTheLinearisation) {
  const models::lie_mechanics::ThreeDPendulum m;
  const Mat3 R0 = m.hanging_attitude();
  ASSERT_LE((R0 * m.rho - m.rho.norm() * Vec3::UnitZ()).norm(), 1e-15);
  // K = (m g / |rho|)(|rho|^2 Id - rho rho^T); modes J theta'' = -K theta
  const double r = m.rho.norm();
  const Mat3 K = (m.m * m.g / r) * (r * r * Mat3::Identity() - m.rho * m.rho.transpose());
  const Eigen::GeneralizedSelfAdjointEigenSolver<Mat3> es(K, m.J);
  // the largest eigenvalue: the fastest swinging mode
  const double w = std::sqrt(es.eigenvalues()(2));
  const Vec3 v = es.eigenvectors().col(2).normalized();
  const double A = 1e-4;
  for (const bool use_exp : {false, true}) {
    LieDelState<SO3> x;
    x.g = SO3(R0 * lie::Exp<SO3>::tau(A * v).matrix());
    const double period = 2 * M_PI / w, h = period / 400;
    const long n = 400 * 3;
    double err = 0;
    const auto run = [&](auto& s) {
      for (long k = 1; k <= n; ++k) {
        ASSERT_TRUE(s.step(x, h).converged);
        const Vec3 theta = lie::Exp<SO3>::tau_inv(SO3(R0.transpose() * x.g.matrix()));
        err = std::max(err, (theta - A * std::cos(w * k * h) * v).norm());
      }
    };
    if (use_exp) {
      LieDel<models::lie_mechanics::ThreeDPendulum, lie::Exp<SO3>> s(m);
      run(s);
    } else {
      LieDel<models::lie_mechanics::ThreeDPendulum, lie::Cayley<SO3>> s(m);
      run(s);
    }
    std::printf("[3D pendulum, %s] omega = %.4f rad/s, 3 periods, h = T/400: max |theta - theta_lin| = %.2e (A = %.0e)\n",
                use_exp ? "exp" : "cayley", w, err, A);
    // nonlinear terms O(A^2) ~ 1e-8 and the phase error of a second-order method, (w h)^2 w t / 24 A ~ 3e-8;
    // 2e-6 = 2 % of A is far below the O(A) error of a wrong frequency or a wrong sign of the potential
    EXPECT_LE(err, 2e-2 * A);
  }
}

}  // namespace
