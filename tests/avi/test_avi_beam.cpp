// The asynchronous variational integrator of the SE(3) beam (lievi/integrators/avi/beam_avi.hpp), against
// things it does not compute itself: lievi's synchronous staggered stepper on models::Beam (`exact`, `half`
// start) with all steps equal, the spatial momentum of a free beam (Noether: left invariance) with unequal
// steps, and the energy over many updates.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

#include "lievi/field/stepper.hpp"
#include "lievi/integrators/avi/beam_avi.hpp"
#include "lievi/models/beam.hpp"
#include "support/convergence.hpp"

using namespace lievi::integrators::avi;
using lievi::field::End;
using lievi::field::Grid;
using lievi::field::Layout;
using lievi::field::NodeField;
using lievi::field::NodeIndex;
using lievi::lie::SE3;
using lievi::lie::Vec6;
using Beam = lievi::models::Beam<>;

namespace {

const lievi::models::Section kSection = lievi::models::Section::square(1000.0, 1e7, 0.35, 0.1);

/// A straight beam along x, bent and twisted by its initial velocity (zero at s = 0).
Vec6 initial_velocity(double s) {
  Vec6 z;
  z << 0.3 * s, 0.1 * s, 0.5 * s, 0.05 * s, 0.8 * s, 0.2 * s * s;
  return z;
}

double pose_diff(const SE3& a, const SE3& b) {
  return std::max((a.rotation() - b.rotation()).cwiseAbs().maxCoeff(),
                  (a.translation() - b.translation()).cwiseAbs().maxCoeff());
}

}  // namespace

// All steps equal: the AVI is the synchronous stepper (field::StaggeredStepper<Beam>, exact, half start) on
// the same grid, to round-off and the two Newton tolerances, for a cantilever (clamped-free) and a free-free
// beam.
TEST(AviBeam, EqualStepsReproduceTheSynchronousStepper) {
  for (End left : {End::clamped, End::free}) {
    const Grid grid(Layout::vertex, 12, 1.0, left, End::free);
    Beam beam = Beam::uniform(kSection, grid.n_nodes(), grid.n_segments());
    const double dt = 0.5 * beam.stable_dt(grid.ds());
    lievi::field::StaggeredStepper<Beam>::Options o;
    o.dt = dt;
    lievi::field::StaggeredStepper<Beam> st(beam, grid, o);
    NodeField<SE3> g0(grid.n_nodes(), SE3());
    NodeField<Vec6> z0(grid.n_nodes());
    std::vector<SE3> g0v;
    std::vector<Vec6> z0v;
    for (long j = 0; j < grid.n_nodes(); ++j) {
      const double s = grid.s(NodeIndex{j});
      g0[NodeIndex{j}] = SE3(Eigen::Matrix3d::Identity(), Eigen::Vector3d(s, 0, 0));
      z0[NodeIndex{j}] = grid.clamped(NodeIndex{j}) ? Vec6(Vec6::Zero()) : initial_velocity(s + 0.1);
      g0v.push_back(g0[NodeIndex{j}]);
      z0v.push_back(z0[NodeIndex{j}]);
    }
    st.initialize(g0, z0);
    const Mesh mesh = Mesh::from_grid(grid, 1.0);  // m_j = w_j, the node weights
    BeamAvi<Beam> avi(beam, mesh, std::vector<double>(static_cast<std::size_t>(grid.n_segments()), grid.ds()),
                      std::vector<double>(static_cast<std::size_t>(grid.n_segments()), dt));
    avi.initialize(g0v, z0v);
    double d = 0;
    for (int n = 1; n <= 400; ++n) {
      ASSERT_TRUE(st.step().ok);
      ASSERT_TRUE(avi.advance(n * dt).ok);
      const auto& g = avi.configurations_at(n * dt);
      for (long j = 0; j < grid.n_nodes(); ++j)
        d = std::max(d, pose_diff(g[static_cast<std::size_t>(j)], st.g()[NodeIndex{j}]));
    }
    std::printf("%s-free: max pose difference AVI vs synchronous over 400 steps = %.2e (Newton its <= %d)\n",
                to_string(left), d, avi.newton_max());
    // both solve T^-_A(K zeta) = M to |F| <= 1e-13 |M| per node and step, from different iterations (the
    // stepper's reduced Cayley solve, the AVI's block Newton) and with the impulses added in another order;
    // over 400 steps of a mildly nonlinear motion these differences stay below 1e-9 of the O(1) poses
    // (measured ~1e-14)
    EXPECT_LT(d, 1e-9);
  }
}

// Unequal, non-dyadic steps (random fractions of each segment's own limit) on a free-free beam: the spatial
// momentum Σ w_j Ad*_{g_j^-1} M_j (each node at its own time) is kept to round-off.
TEST(AviBeam, SpatialMomentumKeptWithUnequalSteps) {
  const long J = 10;
  const double ds = 1.0 / J;
  Beam beam = Beam::uniform(kSection, J + 1, J);
  for (long e = J / 2; e < J; ++e) beam.P_seg[static_cast<std::size_t>(e)] *= 4.0;  // a stepped, stiffer half
  const std::vector<double> dsv(J, ds);
  std::vector<double> rho_ds(J, ds);
  const Mesh mesh = Mesh::dual_cells(rho_ds, End::free, End::free);  // weights w_j = dual cell lengths
  std::mt19937 rng(17);
  std::uniform_real_distribution<double> frac(0.2, 0.6);
  std::vector<double> h = beam_step_limits(beam, dsv);
  for (double& he : h) he *= frac(rng);
  BeamAvi<Beam> avi(beam, mesh, dsv, h);
  ASSERT_FALSE(avi.dyadic());
  std::vector<SE3> g0;
  std::vector<Vec6> z0;
  for (long j = 0; j <= J; ++j) {
    const double s = static_cast<double>(j) * ds;
    g0.push_back(SE3(Eigen::Matrix3d::Identity(), Eigen::Vector3d(s, 0, 0)));
    z0.push_back(initial_velocity(s) + Vec6(0.2, -0.1, 0.3, 0.1, 0.0, -0.2));
  }
  avi.initialize(g0, z0);
  const Vec6 J0 = avi.spatial_momentum();
  double dJ = 0;
  for (int i = 1; i <= 100; ++i) {
    ASSERT_TRUE(avi.advance(0.01 * i).ok);
    dJ = std::max(dJ, (avi.spatial_momentum() - J0).cwiseAbs().maxCoeff());
  }
  std::printf("updates %lld: max |J - J0| / |J0| = %.2e\n", avi.updates(), dJ / J0.cwiseAbs().maxCoeff());
  EXPECT_GT(avi.updates(), 20000);
  // the transport is exact (Ad* of the solve's target) and an update's two impulses cancel in J through
  // f+ = Ad*_{tau(B)} f-, so only round-off remains: ~1 ulp per update, random in sign (measured ~1e-14)
  EXPECT_LT(dJ, 1e-11 * J0.cwiseAbs().maxCoeff());
}

// Energy with unequal dyadic steps (0.3 of each limit, snapped; a stiffer half) over 2 10^5 segment updates:
// bounded and without drift (slope of the per-window maxima of |E - E0| over the run against the
// oscillation). E = kinetic energy of the steps ending at t plus V(t) (the paper's E_d: an O(h) oscillation).
TEST(AviBeam, EnergyBoundedWithoutDrift) {
  const long J = 8;
  const double ds = 1.0 / J;
  Beam beam = Beam::uniform(kSection, J + 1, J);
  for (long e = J / 2; e < J; ++e) beam.P_seg[static_cast<std::size_t>(e)] *= 4.0;
  const std::vector<double> dsv(J, ds);
  const Mesh mesh = Mesh::dual_cells(std::vector<double>(J, ds), End::clamped, End::free);
  std::vector<double> h = beam_step_limits(beam, dsv);
  const double hmax = 0.3 * *std::max_element(h.begin(), h.end());
  for (double& he : h) he = snap_dyadic(0.3 * he, hmax);
  BeamAvi<Beam> avi(beam, mesh, dsv, h, {Queue::levels});
  ASSERT_TRUE(avi.dyadic());
  std::vector<SE3> g0;
  std::vector<Vec6> z0;
  for (long j = 0; j <= J; ++j) {
    const double s = static_cast<double>(j) * ds;
    g0.push_back(SE3(Eigen::Matrix3d::Identity(), Eigen::Vector3d(s, 0, 0)));
    z0.push_back(j == 0 ? Vec6(Vec6::Zero()) : initial_velocity(s));
  }
  avi.initialize(g0, z0);
  const double E0 = avi.kinetic_at(0.0) + avi.potential_at(0.0);
  std::vector<double> window_max;
  double cur = 0;
  long long n = 0;
  while (avi.updates() < 200000) {
    const double T = static_cast<double>(++n) * hmax;
    ASSERT_TRUE(avi.advance(T).ok);
    cur = std::max(cur, std::abs(avi.kinetic_at(T) + avi.potential_at(T) - E0) / E0);
    if (n % 200 == 0) {
      window_max.push_back(cur);
      cur = 0;
    }
  }
  const double W = static_cast<double>(window_max.size());
  const double slope = lievi::test::slope_per_index(window_max);
  const double worst = *std::max_element(window_max.begin(), window_max.end());
  std::printf("updates %lld: max |E - E0|/E0 = %.3e, drift over the run = %.3e\n", avi.updates(), worst,
              slope * W);
  // bounded: E_d's O(h) oscillation at 0.3 of the limits stays below 10 % (measured 0.19 %)
  EXPECT_LT(worst, 0.1);
  // no drift: a tenth of the oscillation allows the scatter of the window maxima
  EXPECT_LT(std::abs(slope) * W, 0.1 * worst);
}

// On a fixed mesh, dividing every step of an unequal dyadic ladder (1 : 1/2 : 1/4 along a cantilever with a
// stiffer half) by two makes the beam AVI converge at second order to the motion of the semi-discrete beam:
// errors against the synchronous stepper with a step 64 times smaller than the AVI's finest, log-log slope.
TEST(AviBeam, SecondOrderInTimeWithUnequalSteps) {
  const long J = 8;
  const Grid grid(Layout::vertex, J, 1.0, End::clamped, End::free);
  Beam beam = Beam::uniform(kSection, J + 1, J);
  for (long e = J / 2; e < J; ++e) beam.P_seg[static_cast<std::size_t>(e)] *= 4.0;
  const double ds = grid.ds(), lim = beam.stable_dt(ds), T = 0.05;
  const double hmin =
      T / std::ceil(T / (0.1 * lim));  // the ladder's coarsest step, 4 hmin, is 0.4 of the limit
  std::vector<double> base;
  for (long e = 0; e < J; ++e) base.push_back(hmin * (e < 3 ? 4.0 : e < 6 ? 2.0 : 1.0));
  NodeField<SE3> g0(grid.n_nodes(), SE3());
  NodeField<Vec6> z0(grid.n_nodes());
  std::vector<SE3> g0v;
  std::vector<Vec6> z0v;
  for (long j = 0; j <= J; ++j) {
    const double s = grid.s(NodeIndex{j});
    g0[NodeIndex{j}] = SE3(Eigen::Matrix3d::Identity(), Eigen::Vector3d(s, 0, 0));
    z0[NodeIndex{j}] = j == 0 ? Vec6(Vec6::Zero()) : Vec6(20.0 * initial_velocity(s));
    g0v.push_back(g0[NodeIndex{j}]);
    z0v.push_back(z0[NodeIndex{j}]);
  }
  lievi::field::StaggeredStepper<Beam>::Options o;
  o.dt = hmin / 64;
  lievi::field::StaggeredStepper<Beam> ref(beam, grid, o);
  ref.initialize(g0, z0);
  for (long n = 0, steps = std::lround(T / o.dt); n < steps; ++n) ASSERT_TRUE(ref.step().ok);
  const Mesh mesh = Mesh::from_grid(grid, 1.0);
  std::vector<double> hs, errs;
  for (int r : {1, 2, 4, 8}) {
    std::vector<double> h = base;
    for (double& he : h) he /= r;
    BeamAvi<Beam> avi(beam, mesh, std::vector<double>(J, ds), h);
    avi.initialize(g0v, z0v);
    ASSERT_TRUE(avi.advance(T).ok);
    const auto& g = avi.configurations_at(T);
    double err = 0;
    for (long j = 0; j <= J; ++j)
      err = std::max(err, pose_diff(g[static_cast<std::size_t>(j)], ref.g()[NodeIndex{j}]));
    hs.push_back(4.0 * hmin / r);
    errs.push_back(err);
  }
  const double p = lievi::test::fitted_order(hs, errs);
  std::printf("%s  fitted order %.3f\n", lievi::test::order_table(hs, errs).c_str(), p);
  // second order within 0.2 (the reference's own error is (1/256)^2 of the coarsest step's)
  EXPECT_NEAR(p, 2.0, 0.2) << lievi::test::order_table(hs, errs);
}
