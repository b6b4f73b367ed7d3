// The batched (vectorised across nodes) sweeps of the beam step, Cayley and exp (lievi/models/beam_batch.hpp,
// src/models/beam_batch.cpp), against the generic per-node path of field::StaggeredStepper (Eigen, written
// separately: Beam::post/pre, Beam::reduced_solve, lie::Cayley/Exp<SE3>, Beam::transport, Beam::relative). Both
// evaluate the same equations in a different order, so they agree to round-off, amplified only by the
// dynamics: compared after a few hundred steps of large-rotation motion on every layout and noise mode the
// batch covers, on node counts that leave partial packs. Also: which models and options take the batch
// (anything else falls back to the generic path), and that failures inside a pack (Newton, a Cayley
// singularity) are reported with the node or segment as on the generic path.
#include <gtest/gtest.h>
#include <omp.h>

#include <Eigen/Geometry>

#include <cmath>
#include <functional>
#include <cstdint>
#include <numbers>
#include <string>
#include <vector>

#include "lievi/core/isa.hpp"
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
using lievi::lie::Mat3;
using lievi::lie::Mat6;
using lievi::lie::SE3;
using lievi::lie::Vec3;
using lievi::lie::Vec6;
using lievi::models::Beam;
using lievi::models::Section;
using lievi::test::beam::arc_pose;
using lievi::test::beam::momentum_map;
using lievi::test::beam::table1;

namespace {

using Stepper = StaggeredStepper<Beam<>>;
using ExpBeam = Beam<lievi::lie::Exp<SE3>>;

/// The problems the batch covers. `rod`: clamped-free vertex rod under gravity, floppy (the benchmark's rod);
/// `arc`: the prestressed arc of the bending example, free-free, with a large velocity field; `ring`: the
/// periodic straight beam (closure = translation by the period) with a transverse and torsional wave;
/// `tapered`: the rod with properties varying along it (stiffness, reference curvature, inertia and rho A per
/// segment and node), so that the batch loads them per item instead of broadcasting one item's.
/// `heavy_tip`: the rod with a heavier, stiffer last node (uniform interior), which the batch must leave to the
/// generic body while it broadcasts the interior values.
enum class Problem { rod, arc_cell, arc_vertex, ring, tapered, heavy_tip };

struct Case {
  Problem problem;
  long J;
  NoiseMode mode = NoiseMode::none;
  /// point loads (Beam::point_load_nodes) at the first node, an adjacent interior pair, one more interior node
  /// and the last node: dead forces and follower torques and forces with time-varying factors
  bool loaded = false;
  /// mass-proportional damping (Beam::set_damping) with rates large enough to matter over the 300 steps
  bool damped = false;
  /// the `approx` variant (T^-/+ = I -/+ ½ ad*, strains from the increments)
  bool approx = false;
  /// the exp retraction (make_as<ExpBeam>)
  bool exp = false;
  /// stiffnesses that couple the strains (a `matrix` section's P): twist-bend, twist-stretch and shear-shear
  /// entries off the diagonal, varying along the beam for `tapered` (the batch then loads all of P per segment)
  bool coupled = false;
  /// tabled loads (Beam::tabled_loads, what the scenario's [[loads]] and [[distributed_loads]] become): a dead
  /// distributed load on every node rising with t, a follower one on the second quarter oscillating, and a
  /// dead point wrench on one interior node; the batch applies them itself
  bool tabled = false;
  /// an angular inertia whose principal axes are not the frame's (a `matrix` section's K_a, and with damping
  /// D_a = c K_a): the batch then applies K_a, K_a^{-1} and D_a whole
  bool full_k = false;
};

template <class B = Beam<>>
StaggeredStepper<B> make_as(const Case& c, bool batched, typename StaggeredStepper<B>::Options o = {}) {
  const bool rodlike = c.problem == Problem::rod || c.problem == Problem::tapered || c.problem == Problem::heavy_tip;
  const double S = rodlike ? 1.0 : 2 * std::numbers::pi / 3;
  const Layout layout = c.problem == Problem::arc_cell ? Layout::cell : Layout::vertex;
  const End left = rodlike ? End::clamped : c.problem == Problem::ring ? End::periodic : End::free;
  const End right = c.problem == Problem::ring ? End::periodic : End::free;
  const Grid grid(layout, c.J, S, left, right);
  const long n = grid.n_nodes();
  const Section sec = rodlike ? Section::square(1000.0, 1e7, 0.5, 0.01) : table1();
  B b = B::uniform(sec, n, grid.n_segments());
  if (rodlike) b.gravity = Vec3(0, 0, -9.81);
  if (c.problem == Problem::tapered) {
    for (long e = 0; e < grid.n_segments(); ++e) {
      const auto i = static_cast<std::size_t>(e);
      b.P_seg[i] *= 1.0 + 0.8 * static_cast<double>(e) / static_cast<double>(grid.n_segments());
      b.E_seg[i][1] = 0.5 * std::sin(3.0 * static_cast<double>(e));  // a varying pre-curvature
    }
    for (long j = 0; j < n; ++j) {
      const auto i = static_cast<std::size_t>(j);
      const double f = 1.0 + 0.5 * std::cos(static_cast<double>(j));
      b.K_node[i] *= f;
      b.rhoA_node[i] *= f;
    }
  }
  if (c.full_k) {
    // K_a -> Q K_a Q^T, Q a rotation by 0.5 rad about (1, 2, 3) / |(1, 2, 3)| (K_a's eigenvalues kept)
    const Mat3 Q = Eigen::AngleAxisd(0.5, Vec3(1.0, 2.0, 3.0).normalized()).toRotationMatrix();
    for (Mat6& K : b.K_node) K.topLeftCorner<3, 3>() = Q * K.topLeftCorner<3, 3>() * Q.transpose();
  }
  if (c.coupled) {
    for (long e = 0; e < grid.n_segments(); ++e) {
      Mat6& P = b.P_seg[static_cast<std::size_t>(e)];
      const double f = c.problem == Problem::tapered ? 0.5 + 0.5 * std::cos(static_cast<double>(e)) : 1.0;
      // scaled by the diagonal: off-diagonal 0.4, 0.3 and 0.2 at most, each row's sum below 1: positive definite
      auto couple = [&](int i, int k, double r) { P(i, k) = P(k, i) = f * r * std::sqrt(P(i, i) * P(k, k)); };
      couple(0, 1, 0.4);
      couple(0, 3, -0.3);
      couple(4, 5, 0.2);
    }
  }
  if (c.problem == Problem::heavy_tip) {
    b.K_node.back() *= 1.5;
    b.rhoA_node.back() *= 1.5;
  }
  if (c.problem == Problem::ring) b.closure = SE3(Mat3::Identity(), Vec3(S, 0, 0));
  if (c.damped) b.set_damping(rodlike ? 40.0 : 4.0, rodlike ? 60.0 : 6.0);  // D_j = C K_j: per node like K_j
  o.batched = batched;
  if (c.approx) o.variant = lievi::field::Variant::approx;
  if (o.dt == 0.0) o.dt = 0.4 * b.stable_dt(grid.ds());
  if (!std::isfinite(o.dt)) o.dt = 1e-3;  // a single cell: no segment, no stability bound
  if (c.tabled) {
    const double F = rodlike ? 0.5 : 500.0, T = 0.1 * F, rate = 1.0 / (100 * o.dt);
    std::vector<std::function<double(double)>> factors = {[rate](double t) { return std::min(1.0, t * rate); },
                                                           [rate](double t) { return std::sin(3.0 * t * rate); }};
    using Entry = lievi::models::TabledLoads::Entry;
    std::vector<std::vector<Entry>> by_node(static_cast<std::size_t>(n));
    const double w = grid.ds();
    for (long j = 0; j < n; ++j) {
      Vec6 dead, follower;
      dead << 0.2 * T * w, 0.0, 0.0, 0.0, 0.3 * F * w, -F * w;
      follower << T * w, 0.0, 0.5 * T * w, 0.0, F * w, 0.0;
      by_node[static_cast<std::size_t>(j)].push_back({0, false, dead});
      if (4 * j >= n && 2 * j < n) by_node[static_cast<std::size_t>(j)].push_back({1, true, follower});
    }
    Vec6 point;
    point << 0.0, T, 0.0, F, 0.0, 0.0;
    by_node[static_cast<std::size_t>(n / 2)].push_back({1, false, point});
    b.tabled_loads = lievi::models::TabledLoads::from(std::move(factors), by_node);
  }
  if (c.loaded) {
    // sized to the nodes' momenta: over the 300 steps of a test the impulse of each load is O(1) of them
    const double F = rodlike ? 0.05 : 50.0, T = 0.1 * F, rate = 1.0 / (100 * o.dt);
    const long mid = n / 3, other = (2 * n) / 3;
    b.point_load_nodes = {0, mid, mid + 1, other, n - 1};
    b.point_load = [=](std::ptrdiff_t j, const SE3& g, double t) {
      Vec6 f = Vec6::Zero();
      const double up = std::min(1.0, t * rate), wave = std::sin(3.0 * t * rate);
      const Mat3 Rt = g.rotation().transpose();
      if (j == 0 || j == other) f.tail<3>() = Rt * Vec3(0.0, up * F, -0.5 * F);  // dead force
      if (j == mid) f.head<3>() = Vec3(wave * T, 0.0, T);                        // follower torque
      if (j == mid + 1) f << Rt * Vec3(0.0, 0.0, up * T), Vec3(F * wave, 0.0, 0.0);  // dead torque, follower force
      if (j == n - 1) f << Vec3(0.0, T, 0.0), Vec3(0.0, 0.0, -up * F);              // follower wrench
      return f;
    };
  }
  Vec6 theta;
  theta << 0.02, -0.01, 0.03, 0.01, 0.02, -0.015;
  // noise modes: two fields Theta_k(s) = Theta cos(k pi s / S) (k = 0, 1), varying along the beam
  std::vector<std::vector<Vec6>> modes;
  if (c.mode == NoiseMode::modes)
    for (int k = 0; k < 2; ++k) {
      modes.emplace_back();
      for (long j = 0; j < n; ++j) modes.back().push_back(theta * std::cos(k * std::numbers::pi * grid.s(NodeIndex{j}) / S));
    }
  NoiseField<Vec6> nf(grid, c.mode, theta, std::move(modes),
                      lievi::noise::WienerIncrements(lievi::noise::StreamKey{11, 3}, o.dt, 0));
  StaggeredStepper<B> st(std::move(b), grid, o, std::move(nf));
  NodeField<SE3> g0(n, SE3());
  NodeField<Vec6> z0(n);
  for (long j = 0; j < n; ++j) {
    const double s = grid.s(NodeIndex{j});
    if (rodlike) {
      g0[NodeIndex{j}] = SE3(Mat3::Identity(), Vec3(s, 0, 0));
    } else if (c.problem == Problem::ring) {
      g0[NodeIndex{j}] = SE3(Mat3::Identity(), Vec3(s, 0, 0));
      const double k = 2 * std::numbers::pi / S;
      z0[NodeIndex{j}] << 0.5 * std::sin(k * s), 0, 2 * std::cos(k * s), 0, 0.3 * std::sin(k * s), 0;
    } else {
      g0[NodeIndex{j}] = arc_pose(s);
      z0[NodeIndex{j}] << 1, -0.5 * s, 0.3, 0.1, 0.2 * s, -0.1;
    }
  }
  st.initialize(g0, z0);
  return st;
}
Stepper make(const Case& c, bool batched, Stepper::Options o = {}) { return make_as<Beam<>>(c, batched, o); }

/// max over nodes / segments of |a - b|_inf / max(|b|_inf over the field, floor).
template <class F, class Get>
double rel_diff(const F& a, const F& b, long count, Get get, double floor = 1e-300) {
  double scale = floor, d = 0;
  for (long i = 0; i < count; ++i) scale = std::max(scale, get(b, i).cwiseAbs().maxCoeff());
  for (long i = 0; i < count; ++i) d = std::max(d, (get(a, i) - get(b, i)).cwiseAbs().maxCoeff());
  return d / scale;
}

}  // namespace

template <class B>
void compare_with_generic(const Case& c, typename StaggeredStepper<B>::Options o = {}) {
  {
    auto a = make_as<B>(c, true, o), b = make_as<B>(c, false, o);
    ASSERT_TRUE(a.batched());
    ASSERT_FALSE(b.batched());
    const int steps = 300;
    double e_d = 0;
    for (int n = 0; n < steps; ++n) {
      lievi::field::LevelEnergy ea, eb;
      const auto ra = a.step(&ea), rb = b.step(&eb);
      ASSERT_TRUE(ra.ok) << ra.message;
      ASSERT_TRUE(rb.ok) << rb.message;
      // exact: the same Newton iterations (the generic path's reduced solve has the same Jacobian to round-off;
      // a slightly wrong one converges in more). approx: the generic path solves the same equation by the full
      // 6x6 Newton, the batch by the reduced 3x3 one, so only the results are compared
      // exp: the generic path's 6x6 Newton has an approximate Jacobian (linear convergence)
      if (!c.approx && !c.exp) {
        EXPECT_EQ(ra.iterations, rb.iterations) << "step " << n;
      }
      e_d = std::max(e_d, std::abs(ea.E_d() - eb.E_d()) / std::max(1e-300, std::abs(eb.E_d())));
    }
    const long nn = a.grid().n_nodes(), ns = a.grid().n_segments();
    auto pose = [](const auto& st, long j) {
      const SE3& g = st.g()[NodeIndex{j}];
      Eigen::Matrix<double, 12, 1> x;
      x << Eigen::Map<const Eigen::Matrix<double, 9, 1>>(g.rotation().data()), g.translation();
      return x;
    };
    auto zeta = [](const auto& st, long j) { return st.zeta()[NodeIndex{j}]; };
    auto Mt = [](const auto& st, long j) { return st.pre_momentum()[NodeIndex{j}]; };
    auto gam = [](const auto& st, long e) { return st.gamma()[lievi::field::SegmentIndex{e}]; };
    const double dg = rel_diff(a, b, nn, pose), dz = rel_diff(a, b, nn, zeta), dm = rel_diff(a, b, nn, Mt),
                 dy = ns > 0 ? rel_diff(a, b, ns, gam) : 0.0;
    std::printf("problem %d J %ld mode %d loads %d damped %d approx %d exp %d coupled %d: poses %.2g, zeta %.2g, "
                "M~ %.2g, gamma %.2g, E_d %.2g (relative)%s%s\n",
                static_cast<int>(c.problem), c.J, static_cast<int>(c.mode), static_cast<int>(c.loaded),
                static_cast<int>(c.damped), static_cast<int>(c.approx), static_cast<int>(c.exp),
                static_cast<int>(c.coupled), dg, dz, dm, dy, e_d, c.tabled ? " tabled loads" : "",
                c.full_k ? " full K_a" : "");
    // round-off (1e-16) amplified by the cancellation in M = M~ + (dt / ds)(f^- - f^+) (stiff stresses against
    // small momenta: the floppy rod), the strains' 1 / ds and 300 steps of large-rotation motion: measured at
    // most 3e-13 (poses) and 2e-10 (M~, J = 300); a wrong formula, a lost lane or a wrong neighbour gives O(1e-3)
    EXPECT_LT(dg, 1e-10);
    EXPECT_LT(dz, 1e-9);
    EXPECT_LT(dm, 1e-9);
    EXPECT_LT(dy, 1e-9);
    EXPECT_LT(e_d, 1e-10);
  }
}

TEST(BeamBatch, UsedExactlyWhereItApplies) {
  const Case rod{Problem::rod, 20};
  EXPECT_TRUE(make(rod, true).batched());
  EXPECT_FALSE(make(rod, false).batched());
  EXPECT_TRUE(make({Problem::rod, 20, NoiseMode::common}, true).batched());
  EXPECT_TRUE(make({Problem::rod, 20, NoiseMode::independent}, true).batched());
  EXPECT_TRUE(make({Problem::rod, 20, NoiseMode::modes}, true).batched());
  Stepper::Options approx;
  approx.variant = lievi::field::Variant::approx;
  EXPECT_TRUE(make(rod, true, approx).batched());  // both variants
  approx.reference_solve = true;
  EXPECT_FALSE(make(rod, true, approx).batched());
  // what the batch covers and what it does not: a point-load hook on every node and a rotation coupled to
  // translation in K or D go to the generic path; a non-diagonal angular block, damping or stiffness does not
  Beam<> b = Beam<>::uniform(table1(), 5, 4);
  {
    const auto bt = b.batch_sweeps();
    ASSERT_TRUE(bt);
    EXPECT_TRUE(bt->uniform_nodes && bt->uniform_segments);
    EXPECT_TRUE(bt->node_matches_interior(b, 4));
  }
  {  // per-item data when the properties vary (end nodes may differ: node 0 is not batched, the last node joins
     // a broadcasting batch only if it matches the interior)
    Beam<> t = b;
    t.K_node[0] *= 2.0;
    t.rhoA_node[4] *= 2.0;
    auto bt = t.batch_sweeps();
    ASSERT_TRUE(bt);
    EXPECT_TRUE(bt->uniform_nodes);
    EXPECT_FALSE(bt->node_matches_interior(t, 4));
    EXPECT_TRUE(bt->node_matches_interior(t, 3));
    t.rhoA_node[2] *= 2.0;
    t.E_seg[3][1] = 0.1;
    bt = t.batch_sweeps();
    ASSERT_TRUE(bt);
    EXPECT_FALSE(bt->uniform_nodes);
    EXPECT_FALSE(bt->uniform_segments);
  }
  b.set_damping(0.1, 0.2);  // mass-proportional: D_j = C K_j, diagonal like K_j
  ASSERT_TRUE(b.batch_sweeps());
  EXPECT_EQ(b.batch_sweeps()->d4.size(), 4 * b.K_node.size());
  EXPECT_EQ(b.batch_sweeps()->d4[4 * 2 + 3], 0.2 * b.K_node[2](3, 3));
  b.D_node[2](0, 1) = b.D_node[2](1, 0) = 1e-3;  // an angular damping that is not diagonal: all of D_a
  ASSERT_TRUE(b.batch_sweeps());
  EXPECT_TRUE(b.batch_sweeps()->full_k);
  b.D_node[2](1, 4) = b.D_node[2](4, 1) = 1e-3;  // rotation coupled to translation: the generic path
  EXPECT_FALSE(b.batch_sweeps());
  b.set_damping(0, 0);
  EXPECT_TRUE(b.batch_sweeps()->d4.empty());
  b.point_load = [](std::ptrdiff_t, const SE3&, double) { return Vec6(Vec6::Zero()); };
  EXPECT_FALSE(b.batch_sweeps());  // point loads on every node
  b.point_load_nodes = {1, 3};     // on listed nodes only: those by the generic body, the rest batched
  ASSERT_TRUE(b.batch_sweeps());
  EXPECT_EQ(b.batch_sweeps()->generic_nodes, b.point_load_nodes);
  for (const std::vector<std::ptrdiff_t>& bad : {std::vector<std::ptrdiff_t>{3, 1}, {1, 1}, {-1}, {5}}) {
    b.point_load_nodes = bad;  // not increasing, repeated, not a node of the 5
    EXPECT_THROW((void)b.batch_sweeps(), std::invalid_argument);
  }
  b.point_load_nodes.clear();
  b.point_load = nullptr;
  {  // a stiffness that couples the strains: all of P per segment
    ASSERT_FALSE(b.batch_sweeps()->full_p);
    b.P_seg[2](0, 1) = b.P_seg[2](1, 0) = 1.0;
    const auto bt = b.batch_sweeps();
    ASSERT_TRUE(bt);
    EXPECT_TRUE(bt->full_p);
    EXPECT_EQ(bt->p36.size(), 36 * b.P_seg.size());
    EXPECT_EQ(bt->p36[36 * 2 + 1], 1.0);
    EXPECT_FALSE(bt->uniform_segments);
    for (Mat6& P : b.P_seg) P = b.P_seg[2];
    EXPECT_TRUE(b.batch_sweeps()->uniform_segments);
  }
  {  // an angular inertia that is not diagonal: all of K_a per node
    Beam<> t = b;
    ASSERT_FALSE(t.batch_sweeps()->full_k);
    t.K_node[2](0, 1) = t.K_node[2](1, 0) = 1e-4;
    const auto bt = t.batch_sweeps();
    ASSERT_TRUE(bt);
    EXPECT_TRUE(bt->full_k);
    EXPECT_EQ(bt->ka9.size(), 9 * t.K_node.size());
    EXPECT_EQ(bt->ka9[9 * 2 + 1], 1e-4);
    EXPECT_FALSE(bt->uniform_nodes);
  }
  b.K_node[2](0, 3) = b.K_node[2](3, 0) = 1e-4;  // rotation coupled to translation: the generic path
  EXPECT_FALSE(b.batch_sweeps());
  ExpBeam e = ExpBeam::uniform(table1(), 5, 4);  // the exp retraction has its own kernels
  EXPECT_TRUE(e.batch_sweeps());
  // the sweep policy is fixed when the stepper is built
  EXPECT_EQ(make(rod, true).sweep(), lievi::field::Sweep::batched);
  EXPECT_EQ(make(rod, false).sweep(), lievi::field::Sweep::lie);
  Stepper::Options ref;
  ref.reference_solve = true;
  EXPECT_EQ(make(rod, true, ref).sweep(), lievi::field::Sweep::lie);
}

TEST(BeamBatch, PointLoadsActOnTheListedNodesOnly) {
  // with point_load_nodes given, Beam::load calls point_load at those nodes only (on every path), so a hook
  // that returns a wrench everywhere acts on the listed nodes; without the list, on every node
  Beam<> b = Beam<>::uniform(table1(), 6, 5);
  b.point_load = [](std::ptrdiff_t j, const SE3&, double t) { return Vec6(Vec6::Constant(1.0 + j + t)); };
  const SE3 g;
  for (long j = 0; j < 6; ++j) EXPECT_EQ(b.load(j, g, 0.5, 0.2), Vec6(Vec6::Constant(1.5 + j))) << j;
  b.point_load_nodes = {2, 5};
  for (long j = 0; j < 6; ++j) {
    const Vec6 want = j == 2 || j == 5 ? Vec6(Vec6::Constant(1.5 + j)) : Vec6(Vec6::Zero());
    EXPECT_EQ(b.load(j, g, 0.5, 0.2), want) << j;
  }
}

TEST(BeamBatch, FullAngularInertiaKeepsNewtonQuadratic) {
  // the batched Jacobian with K_a off its principal axes, for each variant and retraction: from the fixed-point
  // start one update per node-step, as with a diagonal K_a (a wrong Jacobian column converges linearly and
  // takes more; the round-off agreement with the generic path is checked above)
  for (const bool approx : {false, true})
    for (const bool exp : {false, true}) {
      Case c{Problem::rod, 37, NoiseMode::none, false, false, approx, exp};
      c.full_k = true;
      auto run = [&](auto st) {
        EXPECT_TRUE(st.batched());
        EXPECT_TRUE(st.model().batch_sweeps()->full_k);
        const long long n0 = st.newton_total();
        for (int k = 0; k < 300; ++k) EXPECT_TRUE(st.step().ok);
        return static_cast<double>(st.newton_total() - n0) / (300.0 * static_cast<double>(st.grid().n_nodes() - 1));
      };
      const double per = exp ? run(make_as<ExpBeam>(c, true)) : run(make_as<Beam<>>(c, true));
      std::printf("full K_a, approx %d exp %d: %.3f Newton updates per node-step\n", approx, exp, per);
      EXPECT_LT(per, 1.05);
    }
}

TEST(BeamBatch, TabledLoadsActOnBatchedNodesWithTheirImpulse) {
  // a free-free arc in space under a dead distributed force f (N/m) on all of it, switched on at t = 0, and a
  // dead point force P at one interior node: every node stays in the batch, and the spatial linear momentum
  // grows by the impulse n dt (S f + P) exactly (the discrete momentum balance of the exact variant)
  const Case c{Problem::arc_vertex, 37};
  auto st = make(c, true);
  const Grid& grid = st.grid();
  const long n = grid.n_nodes();
  const Vec3 f(0.0, 3.0, -2.0), P(40.0, 0.0, 10.0);
  using Entry = lievi::models::TabledLoads::Entry;
  std::vector<std::vector<Entry>> by_node(static_cast<std::size_t>(n));
  for (long j = 0; j < n; ++j) {
    Vec6 w = Vec6::Zero();
    w.tail<3>() = st.weight(j) * f;
    by_node[static_cast<std::size_t>(j)].push_back({0, false, w});
  }
  Vec6 point = Vec6::Zero();
  point.tail<3>() = P;
  by_node[static_cast<std::size_t>(n / 2)].push_back({0, false, point});
  Beam<> b = st.model();
  b.tabled_loads = lievi::models::TabledLoads::from({[](double) { return 1.0; }}, by_node);
  ASSERT_TRUE(b.batch_sweeps());
  EXPECT_TRUE(b.batch_sweeps()->tabled);
  EXPECT_TRUE(b.batch_sweeps()->generic_nodes.empty());
  Stepper::Options o = st.options();
  Stepper loaded(b, grid, o);
  NodeField<SE3> g0(n, SE3());
  NodeField<Vec6> z0(n);
  for (long j = 0; j < n; ++j) {
    g0[NodeIndex{j}] = arc_pose(grid.s(NodeIndex{j}));
    z0[NodeIndex{j}] << 1, -0.5 * grid.s(NodeIndex{j}), 0.3, 0.1, 0.2, -0.1;
  }
  loaded.initialize(g0, z0);
  ASSERT_TRUE(loaded.batched());
  const Vec6 J0 = momentum_map(loaded);
  const int steps = 400;
  for (int k = 0; k < steps; ++k) ASSERT_TRUE(loaded.step().ok) << k;
  double S = 0;
  for (long j = 0; j < n; ++j) S += loaded.weight(j);
  const Vec3 impulse = steps * o.dt * (S * f + P), got = (momentum_map(loaded) - J0).tail<3>();
  std::printf("tabled loads: impulse %.6g %.6g %.6g, momentum change %.6g %.6g %.6g\n", impulse.x(), impulse.y(),
              impulse.z(), got.x(), got.y(), got.z());
  EXPECT_LT((got - impulse).cwiseAbs().maxCoeff(), 1e-10 * impulse.norm());
}

TEST(BeamBatch, AgreesWithTheGenericPathToRoundOff) {
  // J chosen so that the interior node counts are not multiples of the pack width (8): 37 - 1, 21 - 2, ...;
  // the smallest grids have one interior node, none (the ends by the generic body) or no segment at all
  const std::vector<Case> cases = {
      {Problem::rod, 37},       {Problem::rod, 37, NoiseMode::common}, {Problem::rod, 37, NoiseMode::independent},
      {Problem::arc_cell, 21},  {Problem::arc_vertex, 13, NoiseMode::independent},
      {Problem::arc_vertex, 13, NoiseMode::modes},
      {Problem::ring, 19},      {Problem::ring, 19, NoiseMode::independent}, {Problem::rod, 2},
      {Problem::tapered, 37},   {Problem::tapered, 37, NoiseMode::independent}, {Problem::heavy_tip, 37},
      {Problem::rod, 300},  // one serial sweep (below kBlock / 4 = 512 nodes) over more than one chunk
      {Problem::arc_cell, 3},   {Problem::arc_cell, 2}, {Problem::arc_cell, 1},
      // point loads by the generic body inside the batched sweep: free last node (arc), periodic last node
      // (ring), clamped rod with noise; the batched ranges split around the loaded nodes, leaving partial packs
      {Problem::arc_vertex, 37, NoiseMode::none, true}, {Problem::ring, 19, NoiseMode::none, true},
      {Problem::rod, 37, NoiseMode::independent, true},
      // damped: the damping's explicit half (carried by the previous increment under noise) and implicit half
      {Problem::rod, 37, NoiseMode::none, false, true}, {Problem::rod, 37, NoiseMode::common, false, true},
      {Problem::rod, 37, NoiseMode::independent, false, true}, {Problem::arc_vertex, 13, NoiseMode::modes, false, true},
      {Problem::arc_cell, 21, NoiseMode::none, false, true}, {Problem::ring, 19, NoiseMode::independent, false, true},
      {Problem::tapered, 37, NoiseMode::independent, false, true}, {Problem::heavy_tip, 37, NoiseMode::none, false, true},
      {Problem::rod, 37, NoiseMode::independent, true, true},
      // approx: its own stresses, node equation (the reduced solve of T^-_A = I - ½ ad*_A), transport T^+ and
      // strains from the increments (the periodic closing segment by the generic body)
      {Problem::rod, 37, NoiseMode::none, false, false, true}, {Problem::rod, 37, NoiseMode::common, false, false, true},
      {Problem::rod, 37, NoiseMode::independent, false, true, true}, {Problem::arc_cell, 21, NoiseMode::none, false, false, true},
      {Problem::arc_vertex, 13, NoiseMode::modes, false, false, true}, {Problem::ring, 19, NoiseMode::independent, false, false, true},
      {Problem::tapered, 37, NoiseMode::independent, false, true, true}, {Problem::heavy_tip, 37, NoiseMode::none, false, false, true},
      {Problem::arc_vertex, 37, NoiseMode::none, true, false, true}, {Problem::rod, 300, NoiseMode::none, false, false, true},
      // coupled stiffness (all of P per segment, or broadcast): each variant, noise mode, damping, loads
      {Problem::rod, 37, NoiseMode::none, false, false, false, false, true},
      {Problem::tapered, 37, NoiseMode::independent, false, false, false, false, true},
      {Problem::tapered, 37, NoiseMode::none, true, true, true, false, true},
      {Problem::arc_vertex, 13, NoiseMode::modes, false, true, false, false, true},
      {Problem::ring, 19, NoiseMode::common, false, false, true, false, true},
      {Problem::arc_cell, 21, NoiseMode::independent, true, false, false, false, true},
      // tabled loads (every node loaded): with point-load hooks besides, damped, approx, every end
      {Problem::rod, 37, NoiseMode::none, false, false, false, false, false, true},
      {Problem::rod, 37, NoiseMode::independent, true, true, false, false, false, true},
      {Problem::arc_vertex, 37, NoiseMode::modes, false, false, true, false, false, true},
      {Problem::ring, 19, NoiseMode::common, false, true, false, false, true, true},
      {Problem::tapered, 37, NoiseMode::none, false, false, true, false, false, true},
      {Problem::arc_cell, 21, NoiseMode::none, false, false, false, false, false, true},
      // an angular inertia (and damping) off its principal axes: each variant, noise mode, damping, loads
      {Problem::rod, 37, NoiseMode::none, false, false, false, false, false, false, true},
      {Problem::rod, 37, NoiseMode::independent, true, true, false, false, false, false, true},
      {Problem::tapered, 37, NoiseMode::common, false, true, true, false, true, true, true},
      {Problem::arc_vertex, 13, NoiseMode::modes, false, false, true, false, false, false, true},
      {Problem::ring, 19, NoiseMode::independent, false, true, false, false, false, false, true},
      {Problem::arc_cell, 21, NoiseMode::none, true, false, false, false, true, false, true}};
  for (const Case& c : cases) {
    // approx with a full K_a: the generic path's 6x6 Newton and the batch's 3x3 one stop at different points
    // below the tolerance, and with damping, loads and a varying section the two runs part by up to 1e-10 in
    // E_d over the 300 steps at the default 1e-13; solved to 1e-15 they agree to the round-off of the others
    Stepper::Options o;
    if (c.approx && c.full_k) o.lie_tol = 1e-15;
    compare_with_generic<Beam<>>(c, o);
  }
}

TEST(BeamBatch, ExpAgreesWithTheGenericPathToRoundOff) {
  // the exp retraction: its stresses (dexp^{-1})^*, node equation, exp reconstruction and log strains by the
  // kernels' series, against lie::Exp<SE3>'s closed forms on the generic path
  const std::vector<Case> cases = {
      {Problem::rod, 37},
      {Problem::rod, 37, NoiseMode::independent},
      {Problem::arc_cell, 21},
      {Problem::arc_vertex, 13, NoiseMode::modes},
      {Problem::ring, 19, NoiseMode::independent},
      {Problem::tapered, 37, NoiseMode::common},
      {Problem::heavy_tip, 37},
      {Problem::rod, 300},
      {Problem::arc_cell, 3},
      {Problem::arc_vertex, 37, NoiseMode::none, true},
      {Problem::rod, 37, NoiseMode::none, false, true},
      {Problem::rod, 37, NoiseMode::independent, false, true},
      {Problem::ring, 19, NoiseMode::independent, false, true},
      {Problem::arc_vertex, 13, NoiseMode::modes, false, true},
      {Problem::rod, 37, NoiseMode::none, false, false, true},
      {Problem::rod, 37, NoiseMode::independent, false, true, true},
      {Problem::ring, 19, NoiseMode::independent, false, false, true},
      // segments of 1.05 rad (beyond the kernels' series): their strains and stresses by the generic code
      {Problem::arc_vertex, 2},
      // coupled stiffness
      {Problem::rod, 37, NoiseMode::independent, false, false, false, false, true},
      // tabled loads
      {Problem::rod, 37, NoiseMode::none, false, true, false, false, false, true},
      // an angular inertia off its principal axes
      {Problem::rod, 37, NoiseMode::independent, false, true, false, false, false, false, true},
      {Problem::arc_vertex, 13, NoiseMode::none, false, false, true, false, true, false, true},
      {Problem::arc_vertex, 37, NoiseMode::independent, true, false, false, false, false, true},
      {Problem::tapered, 37, NoiseMode::none, false, true, false, false, true},
      {Problem::ring, 19, NoiseMode::common, false, false, true, false, true},
  };
  for (Case c : cases) {
    c.exp = true;
    // the generic exp solve is a 6x6 Newton with an approximate Jacobian that stops anywhere below the
    // tolerance (linear convergence); at the default 1e-13 the two paths then differ by up to 1e-10 after the
    // 300 steps, at 1e-15 by the round-off of the Cayley comparison above
    StaggeredStepper<ExpBeam>::Options o;
    o.lie_tol = 1e-15;
    compare_with_generic<ExpBeam>(c, o);
  }
}

TEST(BeamBatch, BitwiseIdenticalForOneAndTwoThreadsWithIndependentNoise) {
  for (int kind = 0; kind < 4; ++kind) {  // exact, exact damped, approx damped, exp damped
    const bool damped = kind > 0, approx = kind == 2, exp = kind == 3;
    auto run = [damped, approx, exp](int threads) {
      omp_set_num_threads(threads);
      // > 512 items: parallel chunks
      const Case c{Problem::rod, 1500, NoiseMode::independent, false, damped, approx, exp};
      std::vector<double> out;
      auto collect = [&](auto st) {
        EXPECT_TRUE(st.batched());
        for (int n = 0; n < 20; ++n) EXPECT_TRUE(st.step().ok);
        lievi::test::beam::append_poses(st, out);
        for (long j = 0; j < st.grid().n_nodes(); ++j)
          for (int i = 0; i < 6; ++i) out.push_back(st.pre_momentum()[NodeIndex{j}][i]);
      };
      if (exp) collect(make_as<ExpBeam>(c, true));
      else collect(make(c, true));
      return out;
    };
    const auto a = run(1), b = run(2);
    omp_set_num_threads(omp_get_num_procs());
    ASSERT_EQ(a.size(), b.size());
    long mismatches = 0;
    for (std::size_t i = 0; i < a.size(); ++i) mismatches += a[i] != b[i];
    EXPECT_EQ(mismatches, 0) << "damped " << damped << " approx " << approx << " exp " << exp;
  }
}

TEST(BeamBatch, NewtonFailureInAPackNamesTheNode) {
  // maxit = 0: the solve needs at least one update, so every solved node fails at iteration 0; the first is
  // node 1 (node 0 is clamped), inside the first pack
  Stepper::Options o;
  o.newton_maxit = 0;
  for (bool batched : {true, false}) {
    Stepper st = make({Problem::rod, 30}, batched, o);
    const auto r = st.step();
    EXPECT_FALSE(r.ok);
    EXPECT_EQ(r.node, 1) << "batched " << batched;
    EXPECT_EQ(r.iterations, 0);
    EXPECT_NE(r.message.find("did not converge"), std::string::npos) << r.message;
  }
}

TEST(BeamBatch, CayleySingularityNamesTheSegment) {
  // node 13 of 21 turned by pi about the axis: segments 12 and 13 have relative rotations by pi
  for (bool batched : {true, false}) {
    const Grid grid(Layout::vertex, 20, 1.0, End::free, End::free);
    Stepper::Options o;
    o.dt = 1e-5;
    o.batched = batched;
    Stepper st(Beam<>::uniform(table1(), grid.n_nodes(), grid.n_segments()), grid, o);
    EXPECT_EQ(st.batched(), batched);
    NodeField<SE3> g0(grid.n_nodes(), SE3());
    for (long j = 0; j < grid.n_nodes(); ++j) {
      Mat3 R = Mat3::Identity();
      if (j == 13) R = Eigen::AngleAxisd(std::numbers::pi, Vec3::UnitX()).toRotationMatrix();
      g0[NodeIndex{j}] = SE3(R, Vec3(grid.s(NodeIndex{j}), 0, 0));
    }
    try {
      st.initialize(g0, NodeField<Vec6>(grid.n_nodes()));
      ADD_FAILURE() << "a relative rotation by pi was accepted";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("segment 12 (nodes 12, 13)"), std::string::npos) << e.what();
    }
  }
}

TEST(BeamBatch, SameBitsWithinFmaAndNonFmaInstructionSetsRoundOffBetween) {
  // Every instruction set the dispatch can pick on this CPU, each forced: scalar (1 lane), SSE4 or NEON (2),
  // AVX2 (4), AVX-512 (8). The kernels write every fused multiply-add out, so a lane's arithmetic is one IEEE
  // sequence on all the sets with FMA, whatever the pack width and whether the node falls in a full or a
  // partial pack: those runs agree bitwise; the sets without FMA evaluate the same products unfused, one
  // sequence for them, so they agree bitwise with each other; across the two groups, to round-off.
  namespace simd = lievi::simd;
  const simd::Isa start = simd::isa();
  struct Run {
    simd::Isa isa;
    std::vector<double> field[3];  // poses, M~, zeta
  };
  std::vector<Run> runs;
  for (simd::Isa want : simd::usable_isas()) {
    ASSERT_EQ(simd::force_isa(want), want) << simd::isa_name(want);
    Run run{want, {}};
    for (const Case& c : {Case{Problem::rod, 37, NoiseMode::independent}, Case{Problem::ring, 19, NoiseMode::common},
                          Case{Problem::rod, 37, NoiseMode::independent, false, true},
                          Case{Problem::arc_vertex, 13, NoiseMode::modes, false, true, true},
                          Case{Problem::rod, 37, NoiseMode::independent, false, true, false, true},
                          Case{Problem::arc_vertex, 13, NoiseMode::common, false, false, false, true}}) {
      auto collect = [&](auto st) {
        for (int n = 0; n < 200; ++n) ASSERT_TRUE(st.step().ok);
        lievi::test::beam::append_poses(st, run.field[0]);
        for (long j = 0; j < st.grid().n_nodes(); ++j)
          for (int i = 0; i < 6; ++i) {
            run.field[1].push_back(st.pre_momentum()[NodeIndex{j}][i]);
            run.field[2].push_back(st.zeta()[NodeIndex{j}][i]);
          }
      };
      if (c.exp) collect(make_as<ExpBeam>(c, true));
      else collect(make(c, true));
    }
    runs.push_back(std::move(run));
  }
  simd::force_isa(start);
  ASSERT_GE(runs.size(), 2u) << "the scalar kernels and at least one vector set";
  std::printf("compared instruction sets:");
  for (const auto& r : runs) std::printf(" %s", simd::isa_name(r.isa));
  std::printf("\n");
  int bitwise_pairs = 0;
  for (std::size_t r = 0; r < runs.size(); ++r)
    for (std::size_t q = r + 1; q < runs.size(); ++q) {
      const bool same_group = simd::has_fma(runs[r].isa) == simd::has_fma(runs[q].isa);
      bitwise_pairs += same_group;
      for (int f = 0; f < 3; ++f) {
        const auto &a = runs[q].field[f], &b = runs[r].field[f];
        ASSERT_EQ(a.size(), b.size());
        long mismatches = 0;
        double scale = 1e-300, d = 0;
        for (std::size_t i = 0; i < a.size(); ++i) {
          mismatches += a[i] != b[i];
          scale = std::max(scale, std::abs(b[i]));
          d = std::max(d, std::abs(a[i] - b[i]));
        }
        std::printf("%s vs %s, field %d: %ld of %zu differ, max relative %.2g\n", simd::isa_name(runs[q].isa),
                    simd::isa_name(runs[r].isa), f, mismatches, a.size(), d / scale);
        if (same_group) {
          EXPECT_EQ(mismatches, 0) << simd::isa_name(runs[q].isa) << " vs " << simd::isa_name(runs[r].isa);
        } else {
          EXPECT_LT(d / scale, 1e-9) << simd::isa_name(runs[q].isa) << " vs " << simd::isa_name(runs[r].isa);
          EXPECT_GT(mismatches, 0) << "FMA and unfused runs agree bitwise: the fused products are not fused";
        }
      }
    }
  std::printf("%d pairs compared bitwise\n", bitwise_pairs);
}

TEST(BeamBatch, ReadingTheStateBetweenStepsDoesNotChangeTheRun) {
  // energy_now() takes a trial node sweep and restores g, zeta, A, M~ and the Newton counters; initialize()
  // replaces the whole state (the strains and stresses of level 0 included). A batched run that reads
  // everything between its steps and takes trial sweeps, and one re-initialised after steps, must give the
  // same bits as a run that only steps.
  for (const Case& c : {Case{Problem::rod, 37, NoiseMode::independent}, Case{Problem::ring, 19},
                        Case{Problem::arc_vertex, 13, NoiseMode::modes}}) {
    Stepper quiet = make(c, true), busy = make(c, true);
    ASSERT_TRUE(busy.batched());
    const long nn = busy.grid().n_nodes();
    for (int n = 0; n < 40; ++n) ASSERT_TRUE(busy.step().ok);
    double sink = 0;
    for (int n = 0; n < 120; ++n) {
      lievi::field::LevelEnergy e;
      ASSERT_TRUE(quiet.step().ok);
      ASSERT_TRUE(busy.step(n % 3 == 0 ? &e : nullptr).ok);
      sink += e.E_d() + busy.g()[NodeIndex{nn / 2}].translation().norm() + busy.zeta()[NodeIndex{0}].norm();
      if (n % 7 == 0) sink += busy.energy_now().E_c();
      if (n % 11 == 0) sink += busy.gamma()[lievi::field::SegmentIndex{0}].norm() + busy.pre_momentum()[NodeIndex{1}].norm();
    }
    EXPECT_TRUE(std::isfinite(sink));
    // quiet has taken 120 steps from level 0, busy 160: step quiet 40 more and compare
    for (int n = 0; n < 40; ++n) ASSERT_TRUE(quiet.step().ok);
    std::vector<double> a, b;
    lievi::test::beam::append_poses(quiet, a);
    lievi::test::beam::append_poses(busy, b);
    for (long j = 0; j < nn; ++j)
      for (int i = 0; i < 6; ++i) {
        a.push_back(quiet.pre_momentum()[NodeIndex{j}][i]);
        b.push_back(busy.pre_momentum()[NodeIndex{j}][i]);
        a.push_back(quiet.zeta()[NodeIndex{j}][i]);
        b.push_back(busy.zeta()[NodeIndex{j}][i]);
      }
    ASSERT_EQ(a.size(), b.size());
    long mismatches = 0;
    for (std::size_t i = 0; i < a.size(); ++i) mismatches += a[i] != b[i];
    EXPECT_EQ(mismatches, 0) << "problem " << static_cast<int>(c.problem);
  }
  // initialize() after batched steps starts again from the given state: the rod at rest, straight
  Stepper again = make({Problem::rod, 37}, true), fresh = make({Problem::rod, 37}, true);
  const long nn = again.grid().n_nodes();
  NodeField<SE3> g0(nn, SE3());
  for (long j = 0; j < nn; ++j) g0[NodeIndex{j}] = SE3(Mat3::Identity(), Vec3(again.grid().s(NodeIndex{j}), 0, 0));
  for (int n = 0; n < 30; ++n) ASSERT_TRUE(again.step().ok);
  again.initialize(g0, NodeField<Vec6>(nn));
  for (int n = 0; n < 50; ++n) {
    ASSERT_TRUE(again.step().ok);
    ASSERT_TRUE(fresh.step().ok);
  }
  std::vector<double> a, b;
  lievi::test::beam::append_poses(again, a);
  lievi::test::beam::append_poses(fresh, b);
  long mismatches = 0;
  for (std::size_t i = 0; i < a.size(); ++i) mismatches += a[i] != b[i];
  EXPECT_EQ(mismatches, 0);
}



TEST(BeamBatch, ExpNodesBeyondTheSeriesAngleAreSolvedByTheGenericBody) {
  // one node of the ring spun so fast that it turns by 1.5 rad per step, beyond kExpSeriesAngle: the batched node
  // sweep fails it with its state kept and the stepper solves it by the generic body (as the segments around
  // it, bent beyond the range, by Beam::Batch); the run equals the generic one to round-off. (At 2 rad per step
  // the generic exp Newton, with its approximate Jacobian, no longer converges on either path.)
  const Case c{Problem::ring, 19, NoiseMode::none, false, false, false, true};
  StaggeredStepper<ExpBeam>::Options o;
  o.lie_tol = 1e-15;
  o.newton_maxit = 200;  // the generic exp Newton converges linearly at such angles
  auto a = make_as<ExpBeam>(c, true, o), b = make_as<ExpBeam>(c, false, o);
  ASSERT_TRUE(a.batched());
  const double dt = a.options().dt;
  for (auto* st : {&a, &b}) {
    NodeField<Vec6> z(st->grid().n_nodes());
    for (long j = 0; j < st->grid().n_nodes(); ++j) z[NodeIndex{j}] = st->zeta()[NodeIndex{j}];
    z[NodeIndex{5}].head<3>() += Vec3(0.0, 1.5 / dt, 0.0);
    st->initialize(st->g(), z);
  }
  double worst = 0;
  for (int n = 0; n < 3; ++n) {
    const auto ra = a.step(), rb = b.step();
    ASSERT_TRUE(ra.ok) << ra.message;
    ASSERT_TRUE(rb.ok) << rb.message;
  }
  for (long j = 0; j < a.grid().n_nodes(); ++j) {
    const double d = (a.zeta()[NodeIndex{j}] - b.zeta()[NodeIndex{j}]).cwiseAbs().maxCoeff() /
                     b.zeta()[NodeIndex{j}].cwiseAbs().maxCoeff();
    worst = std::max(worst, d);
  }
  const double turn = (a.g()[NodeIndex{5}].rotation().transpose() * b.g()[NodeIndex{5}].rotation() - Mat3::Identity()).norm();
  std::printf("zeta: largest relative difference %.2g; node 5's frames differ by %.2g\n", worst, turn);
  EXPECT_LT(worst, 1e-11);
  EXPECT_LT(turn, 1e-12);
}
