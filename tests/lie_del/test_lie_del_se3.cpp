// A rigid body in SE(3) under uniform gravity (models::lie_mechanics::FloatingRigidBody: body-frame origin away
// from the centre of mass, so ell couples omega and v), with Cayley and exp on SE(3):
//  - discrete Noether, on a vertical spring (k = 50, bounded motion): the momentum maps of rotations about the
//    vertical through the origin and of the two horizontal translations kept to round-off over 5e3 steps;
//  - in free fall (k = 0) the vertical momentum changes by exactly -m g h per step (V(exp(s (0, e3)) g) =
//    V(g) + m g s, and the trapezoid weights sum to h), and the centre of mass follows the exact parabola
//    x_c0 + v_c0 t - ½ g t^2 e3: order 2 measured against it;
//  - energy bounded without drift on the spring (slope of per-window maxima). (In free fall the body velocity
//    grows without bound, and so does the O(h^2 |omega|^2 m |v|^2) energy error: not a test of drift.)
#include <gtest/gtest.h>

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
using integrators::lie_del::LieDel;
using integrators::lie_del::LieDelState;
using lie::SE3;
using lie::Vec3;
using lie::Vec6;
using Body = models::lie_mechanics::FloatingRigidBody;

Body on_spring() {
  Body b;
  b.k = 50.0;
  return b;
}

/// Tumbling (omega mostly about body axis 1) and thrown sideways and up.
LieDelState<SE3> initial_state(const Body& b) {
  LieDelState<SE3> x;
  x.g = SE3(lie::Exp<lie::SO3>::tau(Vec3(0.2, -0.1, 0.3)), Vec3(1.0, 2.0, 0.5));
  x.p = b.mass_matrix() * SE3::join(Vec3(4.0, 1.0, -0.5), Vec3(0.5, -1.0, 3.0));
  return x;
}
/// Spatial centre of mass p + R c and its velocity R (v + omega × c) for the body twist xi = (omega, v).
Vec3 com(const Body& b, const SE3& g) { return g.act(b.c); }
Vec3 com_velocity(const Body& b, const SE3& g, const Vec6& xi) {
  return g.rotation() * (SE3::linear(xi) + SE3::angular(xi).cross(b.c));
}

template <class R_>
class FallingBodyDel : public ::testing::Test {};
using Retractions = ::testing::Types<lie::Cayley<SE3>, lie::Exp<SE3>>;
TYPED_TEST_SUITE(FallingBodyDel, Retractions);

TYPED_TEST(FallingBodyDel, NoetherMomentaToRoundOff) {
  const Body b = on_spring();
  LieDel<Body, TypeParam> s(b);
  LieDelState<SE3> x = initial_state(b);
  const auto syms = b.symmetries();
  double J0[3];
  for (int i = 0; i < 3; ++i) J0[i] = integrators::lie_del::momentum_map(x.g, x.p, syms[i]);
  const double h = 0.01;
  const long N = 5000;
  double dJ = 0, scale = 0, p_max = 0;
  for (long k = 1; k <= N; ++k) {
    ASSERT_TRUE(s.step(x, h).converged) << k;
    for (int i = 0; i < 3; ++i) {
      const double J = integrators::lie_del::momentum_map(x.g, x.p, syms[i]);
      dJ = std::max(dJ, std::abs(J - J0[i]));
      scale = std::max(scale, std::abs(J));
    }
    p_max = std::max(p_max, x.g.translation().norm());
  }
  std::printf("[%s] SE(3) body on a spring, %ld steps: max |J - J0| (vertical rotation, horizontal translations) "
              "= %.2e (|J| <= %.2f, |position| <= %.1f)\n", TypeParam::id, N, dJ, scale, p_max);
  // Ad*_{g^{-1}} p = (R p_m + x × R p_n, R p_n) mixes the position (drifting horizontally to |x| ~ 10) with the
  // momentum (|p| ~ 10): a step's rounding is ~eps |x| |p| ~ 2e-14, accumulated over 5e3 steps (random walk x
  // the flow's amplification); 1e-11 x (1 + |J|) is ~1e3 such roundings and far below an O(h^2) = 1e-4 error.
  EXPECT_LE(dJ, 1e-11 * (1.0 + scale));
}

TYPED_TEST(FallingBodyDel, FreeFallVerticalMomentumChangesByMinusMgh) {
  const Body b;  // k = 0
  LieDel<Body, TypeParam> s(b);
  LieDelState<SE3> x = initial_state(b);
  const Vec6 zeta_up = SE3::join(Vec3::Zero(), Vec3::UnitZ());
  const double Jz0 = integrators::lie_del::momentum_map(x.g, x.p, zeta_up);
  const double h = 0.01;
  const long N = 1000;
  double dJz = 0;
  for (long k = 1; k <= N; ++k) {
    ASSERT_TRUE(s.step(x, h).converged) << k;
    dJz = std::max(dJz, std::abs(integrators::lie_del::momentum_map(x.g, x.p, zeta_up) - (Jz0 - k * b.m * b.g * h)));
  }
  std::printf("[%s] free fall, %ld steps: max |Jz - (Jz0 - k m g h)| = %.2e (|Jz| ~ %.0f at the end)\n",
              TypeParam::id, N, dJz, std::abs(Jz0 - N * b.m * b.g * h));
  // exact up to round-off of sums reaching |Jz| ~ 2e2 over 1e3 steps: 1e-12 relative to the final |Jz|
  EXPECT_LE(dJz, 1e-12 * N * b.m * b.g * h);
}

TYPED_TEST(FallingBodyDel, CentreOfMassParabolaSecondOrder) {
  const Body b;
  const LieDelState<SE3> x0 = initial_state(b);
  Vec6 xi0 = Vec6::Zero();
  ASSERT_TRUE(integrators::lie_del::velocity_from_momentum(b, x0.p, xi0));
  const Vec3 xc0 = com(b, x0.g), vc0 = com_velocity(b, x0.g, xi0);
  const double T = 1.0;
  const Vec3 xc_exact = xc0 + T * vc0 - 0.5 * b.g * T * T * Vec3::UnitZ();
  std::vector<double> hs, es;
  for (const double h : {0.04, 0.02, 0.01, 0.005}) {
    LieDel<Body, TypeParam> s(b);
    LieDelState<SE3> x = x0;
    const long n = std::lround(T / h);
    for (long k = 0; k < n; ++k) ASSERT_TRUE(s.step(x, h).converged);
    hs.push_back(h);
    es.push_back((com(b, x.g) - xc_exact).norm());
  }
  const double p = lievi::test::fitted_order(hs, es);
  std::printf("[%s] centre of mass vs the parabola, t = 1:\n%s  fitted order %.3f\n", TypeParam::id,
              lievi::test::order_table(hs, es).c_str(), p);
  // order 2 (symmetric method, p_0 = mu(0)); +-0.15 allows the O(h^3) terms at h = 0.04 with |omega| ~ 4
  EXPECT_NEAR(p, 2.0, 0.15);
}

TYPED_TEST(FallingBodyDel, EnergyBoundedWithoutDrift) {
  const Body b = on_spring();
  LieDel<Body, TypeParam> s(b);
  LieDelState<SE3> x = initial_state(b);
  const double h = 0.01, E0 = integrators::lie_del::energy(b, x.g, x.p);
  const int windows = 40, per_window = 250;
  std::vector<double> mx(windows, 0.0);
  for (int w = 0; w < windows; ++w)
    for (int k = 0; k < per_window; ++k) {
      ASSERT_TRUE(s.step(x, h).converged);
      mx[w] = std::max(mx[w], std::abs(integrators::lie_del::energy(b, x.g, x.p) - E0));
    }
  double sw = 0, sm = 0, sww = 0, swm = 0;
  for (int w = 0; w < windows; ++w) {
    sw += w;
    sm += mx[w];
    sww += w * w;
    swm += w * mx[w];
  }
  const double slope = (windows * swm - sw * sm) / (windows * sww - sw * sw);  // per window
  const double overall = *std::max_element(mx.begin(), mx.end());
  std::printf("[%s] SE(3) body, t = %d: max |E - E0| = %.3e (E0 = %.2f), first window %.3e, last %.3e, "
              "trend over the run %.2e\n", TypeParam::id, static_cast<int>(windows * per_window * h), overall, E0,
              mx.front(), mx.back(), slope * windows);
  // bounded O(h^2): (h |omega|)^2 ~ 2e-3 relative times the method's error constant (Cayley's is larger, measured
  // 5e-3 relative; exp 8e-4); 2e-2 still fails for an O(h) method or a drift of a few % over the run. No growth
  // of the window maxima above 20 % of the error itself over the run: one-sided, since the maxima exchange
  // between the translational and rotational modes and fluctuate by +-40 % without trend (measured), while a
  // drift, of either sign of E - E0, makes them grow.
  EXPECT_LE(overall, 2e-2 * std::abs(E0));
  EXPECT_LE(slope * windows, 0.2 * overall);
}

}  // namespace
