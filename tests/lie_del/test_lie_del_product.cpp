// Systems on SO(3) × R^3 (lie_del::ProductRn, ProductRetraction):
//  - decoupled (a heavy top and a free-falling point mass): the top equals the heavy top stepped on SO(3) alone,
//    and the mass lands on the exact parabola with momentum m v(t_k) (the R^3 part is Störmer-Verlet, exact for a
//    constant force);
//  - coupled (the mass tethered by a spring to a body point of the top, a model written here): the momentum map
//    of the diagonal rotation about the vertical (R, q) -> (Rz R, Rz q), J = <p_R, R^T e3> + <p_q, e3 × q>, kept to
//    round-off; energy bounded without drift (maxima of the two halves of the run); order 2 against RK4 of the continuous equations written here.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <vector>

#include "lievi/integrators/lie_del/lie_del.hpp"
#include "lievi/integrators/lie_del/product.hpp"
#include "lievi/lie/retraction/cayley.hpp"
#include "lievi/lie/retraction/exp.hpp"
#include "lievi/models/lie_mechanics.hpp"
#include "support/convergence.hpp"

namespace {

using namespace lievi;
using integrators::lie_del::LieDel;
using integrators::lie_del::LieDelState;
using integrators::lie_del::ProductRetraction;
using integrators::lie_del::ProductRn;
using lie::Mat3;
using lie::SO3;
using lie::Vec3;
using Vec6 = Eigen::Matrix<double, 6, 1>;
using TopR3 = ProductRn<SO3, 3>;
using models::lie_mechanics::HeavyTop;

HeavyTop top() {
  HeavyTop m;
  m.I = Vec3(1.0, 0.8, 0.4).asDiagonal();
  m.chi = Vec3(0.05, 0.02, 0.5);
  return m;
}

/// A heavy top and a point mass m_q on a spring (stiffness k) tied to the body point a, under gravity -g e3:
///   ell = ½ Omega . I Omega + ½ m_q |qdot|^2,  V = m g e3 . R chi + m_q g e3 . q + ½ k |q - R a|^2.
struct TetheredTop {
  using Group = TopR3;
  HeavyTop body = top();
  double m_q = 0.5, k = 20.0;
  Vec3 a = Vec3(0.2, 0.0, 0.6);
  template <class S>
  S ell(const Eigen::Matrix<S, 6, 1>& xi) const {
    const Eigen::Matrix<S, 3, 1> Om = xi.template head<3>(), u = xi.template tail<3>();
    return body.ell(Om) + (0.5 * m_q) * u.dot(u);
  }
  template <class S>
  S V(const Eigen::Matrix<S, 7, 7>& T) const {
    const Eigen::Matrix<S, 3, 3> R = TopR3::group_block(T);
    const Eigen::Matrix<S, 3, 1> q = TopR3::translation_block(T);
    const Eigen::Matrix<S, 3, 1> d = q - R * a.cast<S>();
    return body.V(R) + (m_q * body.g) * q(2) + (0.5 * k) * d.dot(d);
  }
};

/// The decoupled case: the same with k = 0.
struct TopAndFallingMass : TetheredTop {
  TopAndFallingMass() { k = 0.0; }
};

LieDelState<TopR3> initial_state(const TetheredTop& m) {
  LieDelState<TopR3> x;
  const SO3 R0 = lie::Exp<SO3>::tau(Vec3(0.4, 0.1, 0.0));
  x.g = TopR3(R0, Vec3(R0.act(m.a) + Vec3(0.1, 0.0, -0.2)));
  x.p.head<3>() = m.body.I * Vec3(0.5, -0.3, 3.0);
  x.p.tail<3>() = m.m_q * Vec3(0.3, 0.5, 0.0);
  return x;
}

template <class R_>
class ProductDel : public ::testing::Test {};
using Retractions = ::testing::Types<lie::Cayley<SO3>, lie::Exp<SO3>>;
TYPED_TEST_SUITE(ProductDel, Retractions);

TYPED_TEST(ProductDel, DecoupledEqualsTopAloneAndExactParabola) {
  const TopAndFallingMass m;
  LieDel<TopAndFallingMass, ProductRetraction<TypeParam, 3>> prod(m);
  LieDel<HeavyTop, TypeParam> alone(m.body);
  LieDelState<TopR3> x = initial_state(m);
  LieDelState<SO3> y;
  y.g = x.g.group();
  y.p = x.p.head<3>();
  const Vec3 q0 = x.g.translation(), v0 = x.p.tail<3>() / m.m_q;
  const double h = 0.01;
  double d_top = 0, d_q = 0, d_p = 0;
  for (int k = 1; k <= 1000; ++k) {
    ASSERT_TRUE(prod.step(x, h).converged);
    ASSERT_TRUE(alone.step(y, h).converged);
    const double t = k * h;
    d_top = std::max(d_top, (x.g.group().matrix() - y.g.matrix()).cwiseAbs().maxCoeff() +
                                (x.p.head<3>() - y.p).cwiseAbs().maxCoeff());
    d_q = std::max(d_q, (x.g.translation() - (q0 + t * v0 - 0.5 * m.body.g * t * t * Vec3::UnitZ())).norm());
    d_p = std::max(d_p, (x.p.tail<3>() - m.m_q * (v0 - m.body.g * t * Vec3::UnitZ())).norm());
  }
  std::printf("[%s] decoupled, 1000 steps: top vs SO(3) alone %.2e, mass vs parabola %.2e (position), %.2e "
              "(momentum)\n", TypeParam::id, d_top, d_q, d_p);
  // Same equations solved with a 6x6 instead of a 3x3 Newton: round-off differences growing along the top's
  // flow (1e-10 after 1e3 steps); the parabola is exact up to the rounding of sums reaching |q| ~ 50, |p| ~ 50.
  EXPECT_LE(d_top, 1e-10);
  EXPECT_LE(d_q, 1e-11);
  EXPECT_LE(d_p, 1e-11);
}

/// J of the diagonal rotation about e3: <p_R, R^T e3> + <p_q, e3 × q>.
double vertical_momentum(const LieDelState<TopR3>& x) {
  const Vec3 q = x.g.translation();
  return x.p.head<3>().dot(x.g.group().matrix().transpose() * Vec3::UnitZ()) + x.p.tail<3>().dot(Vec3::UnitZ().cross(q));
}

TYPED_TEST(ProductDel, TetheredTopNoetherAndEnergy) {
  const TetheredTop m;
  LieDel<TetheredTop, ProductRetraction<TypeParam, 3>> s(m);
  LieDelState<TopR3> x = initial_state(m);
  const double J0 = vertical_momentum(x), E0 = integrators::lie_del::energy(m, x.g, x.p);
  const double h = 0.01;
  const long N = 20000;
  double dJ = 0, orth = 0, first_half = 0, second_half = 0;
  for (long k = 1; k <= N; ++k) {
    ASSERT_TRUE(s.step(x, h).converged);
    dJ = std::max(dJ, std::abs(vertical_momentum(x) - J0));
    orth = std::max(orth, x.g.group().orthogonality_error());
    double& half = k <= N / 2 ? first_half : second_half;
    half = std::max(half, std::abs(integrators::lie_del::energy(m, x.g, x.p) - E0));
  }
  std::printf("[%s] tethered top, %ld steps: |J - J0| = %.2e (J0 = %.3f), |R^T R - I| = %.2e, max |E - E0| over "
              "the first / second half %.3e / %.3e (E0 = %.3f)\n", TypeParam::id, N, dJ, J0, orth, first_half,
              second_half, E0);
  // round-off accumulated over 2e4 steps of O(1-10) quantities (see the heavy top's test)
  EXPECT_LE(dJ, 2e-12 * (1.0 + std::abs(J0)));
  EXPECT_LE(orth, 2e-12);
  // Bounded O(h^2) energy error. No drift: the error's maximum over the second half of the run may not exceed
  // that over the first half by more than 50 %. (The window maxima of this coupled system fluctuate by +-30 %
  // as energy moves between the top and the spring; a run of 1e5 steps stays within 0.9-1.5e-2 throughout, so
  // a short-window slope is not a reliable statistic here, while a drift of half the error per t = 100 fails.)
  EXPECT_LE(first_half, 1e-2 * std::abs(E0));
  EXPECT_LE(second_half, 1.5 * first_half);
}

/// RK4 of the continuous tethered top, written here: dR/dt = R hat(Omega), dPi/dt = Pi × Omega - grad_R V,
/// dq/dt = v, m_q dv/dt = -dV/dq, with grad_R V = m g chi × Gamma - k a × R^T (q - R a).
struct State {
  Mat3 R;
  Vec3 Pi, q, v;
};
State rk4_reference(const TetheredTop& m, State s, double T, long n) {
  const Mat3 I_inv = m.body.I.inverse();
  const auto f = [&](const State& x) {
    State d;
    const Vec3 Om = I_inv * x.Pi, Gamma = x.R.transpose() * Vec3::UnitZ();
    const Vec3 stretch = x.q - x.R * m.a;
    d.R = x.R * lie::hat(Om);
    d.Pi = x.Pi.cross(Om) - (m.body.m * m.body.g * m.body.chi.cross(Gamma) - m.k * m.a.cross(x.R.transpose() * stretch));
    d.q = x.v;
    d.v = -(m.k * stretch + m.m_q * m.body.g * Vec3::UnitZ()) / m.m_q;
    return d;
  };
  const auto axpy = [](const State& x, double c, const State& d) {
    return State{x.R + c * d.R, x.Pi + c * d.Pi, x.q + c * d.q, x.v + c * d.v};
  };
  const double h = T / static_cast<double>(n);
  for (long k = 0; k < n; ++k) {
    const State k1 = f(s), k2 = f(axpy(s, 0.5 * h, k1)), k3 = f(axpy(s, 0.5 * h, k2)), k4 = f(axpy(s, h, k3));
    s.R += (h / 6) * (k1.R + 2 * k2.R + 2 * k3.R + k4.R);
    s.Pi += (h / 6) * (k1.Pi + 2 * k2.Pi + 2 * k3.Pi + k4.Pi);
    s.q += (h / 6) * (k1.q + 2 * k2.q + 2 * k3.q + k4.q);
    s.v += (h / 6) * (k1.v + 2 * k2.v + 2 * k3.v + k4.v);
  }
  return s;
}

TYPED_TEST(ProductDel, TetheredTopSecondOrder) {
  const TetheredTop m;
  const LieDelState<TopR3> x0 = initial_state(m);
  const double T = 1.0;
  const State ref = rk4_reference(m, State{x0.g.group().matrix(), x0.p.head<3>(), x0.g.translation(),
                                           Vec3(x0.p.tail<3>() / m.m_q)}, T, 20000);
  std::vector<double> hs, es;
  for (const double h : {0.04, 0.02, 0.01, 0.005}) {
    LieDel<TetheredTop, ProductRetraction<TypeParam, 3>> s(m);
    LieDelState<TopR3> x = x0;
    for (long k = 0; k < std::lround(T / h); ++k) ASSERT_TRUE(s.step(x, h).converged);
    hs.push_back(h);
    es.push_back((x.g.group().matrix() - ref.R).norm() + (x.p.head<3>() - ref.Pi).norm() +
                 (x.g.translation() - ref.q).norm() + (x.p.tail<3>() / m.m_q - ref.v).norm());
  }
  const double p = lievi::test::fitted_order(hs, es);
  std::printf("[%s] tethered top vs RK4, t = 1:\n%s  fitted order %.3f\n", TypeParam::id,
              lievi::test::order_table(hs, es).c_str(), p);
  // order 2; +-0.1 for the O(h^3) terms at h = 0.04
  EXPECT_NEAR(p, 2.0, 0.1);
}

}  // namespace
