// Type-II (stochastic potential, discrete Hamilton-Pontryagin, docs/theory/beam.md) on the SE(3) beam
// with the general C++ hook Phi(g, mu): the increment is A = dt zeta + dW dPhi/dmu(g_j^n, mu) and the node
// equation gains the force dW T*_e L_g dPhi/dg, so the local solve is the full 6x6 Newton with the second
// derivatives of Phi. Checked against consequences that follow from the potential alone:
//  - Phi = <mu, Theta>: Type-II is Type-I (docs/theory/beam.md "Stochastic forms"), for both variants and
//    common / independent noise; here through the general Newton path against Type-I's reduced solve;
//  - Phi = F . p (a spatially fixed direction F): the noise is a random dead force -F dW at every node, so the
//    spatial momentum map changes each step by exactly -sum_j w_j dW_j (p_j^n x F, F) (internal forces telescope);
//  - Phi = c h(mu), h = ½ <mu, K^{-1} mu>: A = (dt + c dW) zeta, a random time change of the deterministic
//    discrete flow; compared with a chain of deterministic one-step runs of steps dt + c dW_n;
//  - a Phi coupling g and mu (<mu, Theta>(1 + eps F . p)): the momentum balance with the force evaluated at
//    (g^n, mu^{n+1/2}) holds to round-off and Newton converges in a few iterations (the Jacobian is right).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <vector>

#include "lievi/field/noise_field.hpp"
#include "lievi/field/stepper.hpp"
#include "lievi/models/beam.hpp"
#include "lievi/noise/wiener.hpp"
#include "support/beam_support.hpp"

using lievi::field::End;
using lievi::field::Grid;
using lievi::field::Layout;
using lievi::field::NodeField;
using lievi::field::NodeIndex;
using lievi::field::NoiseField;
using lievi::field::NoiseMode;
using lievi::field::StaggeredStepper;
using lievi::field::TypeII;
using lievi::field::Variant;
using lievi::lie::Mat3;
using lievi::lie::Mat6;
using lievi::lie::SE3;
using lievi::lie::Vec3;
using lievi::lie::Vec6;
using lievi::models::Beam;
using lievi::models::ConstantThetaPotential;
using lievi::noise::StreamKey;
using lievi::noise::WienerIncrements;
using lievi::test::beam::arc_pose;
using lievi::test::beam::momentum_map;
using lievi::test::beam::spatial;
using lievi::test::beam::table1;

namespace {

/// Phi = F . p: dPhi/dmu = 0; left-trivialised dPhi/dg = (0, R^T F) (g exp(eps eta) moves p by eps R v).
struct PositionPotential {
  Vec3 F;
  [[nodiscard]] Vec6 dphi_dmu(std::ptrdiff_t, const SE3&, const Vec6&) const { return Vec6::Zero(); }
  [[nodiscard]] Vec6 dphi_dg(std::ptrdiff_t, const SE3& g, const Vec6&) const {
    Vec6 d = Vec6::Zero();
    d.tail<3>() = g.rotation().transpose() * F;
    return d;
  }
  [[nodiscard]] Mat6 d2phi_dmu2(std::ptrdiff_t, const SE3&, const Vec6&) const { return Mat6::Zero(); }
  [[nodiscard]] Mat6 d2phi_dg_dmu(std::ptrdiff_t, const SE3&, const Vec6&) const { return Mat6::Zero(); }
};

/// Phi = c ½ <mu, K^{-1} mu> (one node's energy).
struct EnergyPotential {
  double c;
  Mat6 Kinv;
  [[nodiscard]] Vec6 dphi_dmu(std::ptrdiff_t, const SE3&, const Vec6& mu) const { return c * (Kinv * mu); }
  [[nodiscard]] Vec6 dphi_dg(std::ptrdiff_t, const SE3&, const Vec6&) const { return Vec6::Zero(); }
  [[nodiscard]] Mat6 d2phi_dmu2(std::ptrdiff_t, const SE3&, const Vec6&) const { return c * Kinv; }
  [[nodiscard]] Mat6 d2phi_dg_dmu(std::ptrdiff_t, const SE3&, const Vec6&) const { return Mat6::Zero(); }
};

/// Phi = <mu, Theta> (1 + eps F . p): dPhi/dmu = Theta (1 + eps F.p), dPhi/dg = eps <mu, Theta> (0, R^T F),
/// d2Phi/dmu2 = 0, d(dPhi/dg)/dmu = eps (0, R^T F) Theta^T.
struct CoupledPotential {
  Vec6 theta;
  Vec3 F;
  double eps;
  [[nodiscard]] Vec6 dir(const SE3& g) const {
    Vec6 d = Vec6::Zero();
    d.tail<3>() = g.rotation().transpose() * F;
    return d;
  }
  [[nodiscard]] Vec6 dphi_dmu(std::ptrdiff_t, const SE3& g, const Vec6&) const {
    return theta * (1.0 + eps * F.dot(g.translation()));
  }
  [[nodiscard]] Vec6 dphi_dg(std::ptrdiff_t, const SE3& g, const Vec6& mu) const { return eps * mu.dot(theta) * dir(g); }
  [[nodiscard]] Mat6 d2phi_dmu2(std::ptrdiff_t, const SE3&, const Vec6&) const { return Mat6::Zero(); }
  [[nodiscard]] Mat6 d2phi_dg_dmu(std::ptrdiff_t, const SE3& g, const Vec6&) const {
    return eps * dir(g) * theta.transpose();
  }
};

Grid arc_grid(long J) { return Grid(Layout::vertex, J, lievi::test::beam::kTable1Length, End::free, End::free); }

/// The bending example's arc (Table 1), free-free, with a smooth initial velocity; noise theta (the amplitude
/// for Type-I; Type-II steppers take theta only for the mode and draw one scalar per node or for all).
template <class St, class... Pot>
St arc(Variant v, long J, double dt, NoiseMode mode, const Vec6& theta, Pot... pot) {
  const Grid grid = arc_grid(J);
  typename St::Options o;
  o.dt = dt;
  o.variant = v;
  NoiseField<Vec6> nf(grid, mode, theta, {}, WienerIncrements(StreamKey{5, 0}, dt, 0));
  St st(Beam<>::uniform(table1(), grid.n_nodes(), grid.n_segments()), grid, o, std::move(nf), pot...);
  NodeField<SE3> g0(grid.n_nodes(), SE3());
  NodeField<Vec6> z0(grid.n_nodes(), Vec6::Zero());
  for (std::ptrdiff_t j = 0; j < grid.n_nodes(); ++j) {
    const double s = grid.s(NodeIndex{j});
    g0[NodeIndex{j}] = arc_pose(s);
    z0[NodeIndex{j}] << 0.5 * std::sin(3 * s), 0.2, -0.3 * s, 0.1 * std::cos(s), -0.2, 0.05 * s;
  }
  st.initialize(g0, z0);
  return st;
}

}  // namespace

TEST(BeamTypeII, ConstantThetaPotentialIsTypeI) {
  using S1 = StaggeredStepper<Beam<>>;
  using S2 = StaggeredStepper<Beam<>, TypeII<ConstantThetaPotential>>;
  Vec6 theta;
  theta << 0.02, -0.01, 0.015, 0.01, 0.005, -0.02;
  for (const Variant v : {Variant::exact, Variant::approx}) {
    for (const NoiseMode mode : {NoiseMode::common, NoiseMode::independent}) {
      S1 a = arc<S1>(v, 20, 1e-4, mode, theta);
      S2 b = arc<S2>(v, 20, 1e-4, mode, theta, TypeII<ConstantThetaPotential>{ConstantThetaPotential{theta}});
      double d = 0, scale = 0;
      for (int n = 0; n < 2000; ++n) {
        ASSERT_TRUE(a.step().ok) << n;
        ASSERT_TRUE(b.step().ok) << n;
      }
      for (std::ptrdiff_t j = 0; j < a.grid().n_nodes(); ++j) {
        const SE3 &ga = a.g()[NodeIndex{j}], &gb = b.g()[NodeIndex{j}];
        d = std::max(d, (ga.translation() - gb.translation()).cwiseAbs().maxCoeff());
        d = std::max(d, (ga.rotation() - gb.rotation()).cwiseAbs().maxCoeff());
        scale = std::max(scale, (a.pre_momentum()[NodeIndex{j}]).cwiseAbs().maxCoeff());
        d = std::max(d, (a.pre_momentum()[NodeIndex{j}] - b.pre_momentum()[NodeIndex{j}]).cwiseAbs().maxCoeff() / scale);
      }
      std::printf("Type-II <mu, Theta> vs Type-I, %s, %s noise, 2000 steps: max difference %.2e (Newton max %d / %d)\n",
                  v == Variant::exact ? "exact" : "approx", to_string(mode), d, a.newton_max(), b.newton_max());
      EXPECT_LT(d, 1e-10);
    }
  }
}

TEST(BeamTypeII, PositionPotentialIsARandomDeadForceWithExactImpulse) {
  using S = StaggeredStepper<Beam<>, TypeII<PositionPotential>>;
  const Vec3 F(3.0, -1.0, 2.0);
  Vec6 amp = Vec6::Ones();  // unused by Type-II except through the mode
  for (const NoiseMode mode : {NoiseMode::common, NoiseMode::independent}) {
    S st = arc<S>(Variant::exact, 20, 1e-4, mode, amp, TypeII<PositionPotential>{PositionPotential{F}});
    double err = 0, change = 0;
    Vec6 J = momentum_map(st);
    const Vec6 J0 = J;
    for (int n = 0; n < 2000; ++n) {
      std::vector<Vec3> p;
      for (std::ptrdiff_t j = 0; j < st.grid().n_nodes(); ++j) p.push_back(st.g()[NodeIndex{j}].translation());
      ASSERT_TRUE(st.step().ok) << n;
      Vec6 expect = J;
      for (std::ptrdiff_t j = 0; j < st.grid().n_nodes(); ++j) {
        const double dW = st.noise().dW(j);
        expect.head<3>() -= st.weight(j) * dW * p[static_cast<std::size_t>(j)].cross(F);
        expect.tail<3>() -= st.weight(j) * dW * F;
      }
      J = momentum_map(st);
      err = std::max(err, (J - expect).cwiseAbs().maxCoeff());
      change = std::max(change, (J - J0).cwiseAbs().maxCoeff());
    }
    std::printf("Phi = F.p, %s noise: momentum moved by %.3e, per-step impulse balance error %.2e\n", to_string(mode),
                change, err);
    EXPECT_GT(change, 0.05);
    EXPECT_LT(err, 1e-12 * (1.0 + J0.cwiseAbs().maxCoeff()));
  }
}

TEST(BeamTypeII, EnergyPotentialIsARandomTimeChange) {
  // Phi = c h: A = (dt + c dW) zeta with zeta solving the deterministic node equation for that step, so each
  // step is a deterministic step of length h_n = dt + c dW_n from the same pre-momentum.
  using S = StaggeredStepper<Beam<>, TypeII<EnergyPotential>>;
  using D = StaggeredStepper<Beam<>>;
  const double dt = 1e-3, c = 0.006;  // c dW has sd 1.9e-4: h_n > 0 (the one-step runs need dt > 0)
  const Grid grid(Layout::cell, 1, 1.0, End::free, End::free);
  const Beam<> b = lievi::test::beam::one_node_body();
  Vec6 z0;
  z0 << 1, 0.5, 0.2, 0.3, 0, 0.1;
  S::Options o;
  o.dt = dt;
  o.start = lievi::field::Start::full;
  NoiseField<Vec6> nf(grid, NoiseMode::common, Vec6::Ones(), {}, WienerIncrements(StreamKey{3, 1}, dt, 0));
  S st(b, grid, o, std::move(nf), TypeII<EnergyPotential>{EnergyPotential{c, b.K_node[0].inverse()}});
  st.initialize(NodeField<SE3>(1, SE3()), NodeField<Vec6>(1, z0));
  SE3 g;  // the reference chain
  Vec6 M = b.K_node[0] * z0;
  double err = 0, hmin = 1e300, hmax = -1e300;
  for (int n = 0; n < 500; ++n) {
    ASSERT_TRUE(st.step().ok) << n;
    const double h = dt + c * st.noise().dW(0);
    hmin = std::min(hmin, h), hmax = std::max(hmax, h);
    D::Options od;
    od.dt = h;
    od.start = lievi::field::Start::full;
    D one(b, grid, od);
    one.initialize(NodeField<SE3>(1, g), NodeField<Vec6>(1, Vec6(b.K_node[0].inverse() * M)));
    ASSERT_TRUE(one.step().ok) << n;
    g = one.g()[NodeIndex{0}];
    M = one.pre_momentum()[NodeIndex{0}];
    const SE3& gs = st.g()[NodeIndex{0}];
    err = std::max({err, (gs.translation() - g.translation()).cwiseAbs().maxCoeff(),
                    (gs.rotation() - g.rotation()).cwiseAbs().maxCoeff(),
                    (st.pre_momentum()[NodeIndex{0}] - M).cwiseAbs().maxCoeff()});
  }
  std::printf("Phi = c h: steps h_n in [%.3e, %.3e]; max difference to the chain of deterministic steps %.2e; Newton "
              "max %d\n",
              hmin, hmax, err, st.newton_max());
  EXPECT_GT(hmax - hmin, 0.5 * dt);  // the time change is far from uniform
  EXPECT_LT(err, 1e-12);
  EXPECT_LE(st.newton_max(), 5);
}

TEST(BeamTypeII, CoupledPotentialMomentumBalanceAndNewtonConvergence) {
  using S = StaggeredStepper<Beam<>, TypeII<CoupledPotential>>;
  Vec6 theta;
  theta << 0.02, -0.01, 0.015, 0.01, 0.005, -0.02;
  const CoupledPotential pot{theta, Vec3(0.5, -0.3, 0.8), 0.3};
  for (const NoiseMode mode : {NoiseMode::common, NoiseMode::independent}) {
    S st = arc<S>(Variant::exact, 20, 1e-4, mode, theta, TypeII<CoupledPotential>{pot});
    Vec6 J = momentum_map(st);
    double err = 0, change = 0;
    const Vec6 J0 = J;
    for (int n = 0; n < 2000; ++n) {
      std::vector<SE3> gn(st.g().data(), st.g().data() + st.grid().n_nodes());
      ASSERT_TRUE(st.step().ok) << n;
      Vec6 expect = J;
      for (std::ptrdiff_t j = 0; j < st.grid().n_nodes(); ++j) {
        const Vec6 mu = st.model().momentum(j, st.zeta()[NodeIndex{j}]);  // mu^{n+1/2}
        const SE3& g = gn[static_cast<std::size_t>(j)];
        expect -= st.weight(j) * st.noise().dW(j) * spatial(g, pot.dphi_dg(j, g, mu));
      }
      J = momentum_map(st);
      err = std::max(err, (J - expect).cwiseAbs().maxCoeff());
      change = std::max(change, (J - J0).cwiseAbs().maxCoeff());
    }
    std::printf("coupled Phi, %s noise: momentum moved by %.3e, balance error %.2e, Newton max %d, mean %.2f\n",
                to_string(mode), change, err, st.newton_max(),
                static_cast<double>(st.newton_total()) / (2000.0 * st.grid().n_nodes()));
    EXPECT_GT(change, 1e-4);
    EXPECT_LT(err, 1e-12 * (1.0 + J0.cwiseAbs().maxCoeff()));
    EXPECT_LE(st.newton_max(), 5);
  }
}
