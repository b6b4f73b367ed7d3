// The stochastic beam (Type-I common noise, variant exact, Cayley), each check against something that does not
// come from the code under test (docs/theory/beam.md "Energy under noise", "Energies and momentum map",
// "Noise"):
//
//  1. Beam at rest, Stratonovich (a check the prototype also ran): the bending example's prestressed arc,
//     Table-1 section, `cell` layout with J = 20 nodes, free-free, released from rest, common noise
//     Theta = 0.005 (1, ..., 1), dt = 1e-4, 100 steps, 40 antithetic pairs (the same Brownian path with Theta
//     and -Theta: for common noise theta_j = Theta dW, so flipping Theta is flipping dW). The measured
//     quantity is the gain of the centred energy E_c^n = ½ (K^{n-1/2} + K^{n+1/2}) + V^n between levels 0 and
//     100, minus the deterministic run's gain of the same quantity (printed; it is the O(dt^2) discretisation
//     fluctuation of E_c, not noise). Why E_c and not E_d = K^{n+1/2} + V^n: E_c approximates h(t_n) to
//     O(dt^2), E_d carries a half-step offset ½ dt dK/dt, which for a beam accelerating from rest is not
//     small against the noise-induced gain; either way the deterministic gain is subtracted, so both are
//     consistent, but E_c has the smaller bias. (Both E_c^0 and E_c^100 contain K^{n+1/2}, which sees the
//     noise of step n: a one-step bias rate x dt = 1 % of the gain, far below the statistical error.)
//     Prediction: the mean growth rate of docs/theory/beam.md "Energy under noise" (one mode, constant Theta,
//     so d_s Theta = 0),
//       d/dt E h = ½ int ( <ad*_Th mu, [Th, zeta]> + <ad*_Th mu, K^{-1} ad*_Th mu>
//                          + <[gamma, Th], P [gamma, Th]> + <Pi, [[gamma, Th], Th]> ) ds,
//     i.e. ½ V(V h) for the noise vector field V(mu, gamma) = (ad*_Th mu, [gamma, Th]) (the Stratonovich
//     correction; the deterministic drift of h is zero), evaluated with the discrete sums (node weights w_j for
//     the mu terms, ds per stored segment for the gamma and Pi terms; the ghost segments carry no stress) at the
//     deterministic states along the run (gamma^n; zeta at level n: 0 at n = 0, the release from rest, and
//     ½ (zeta^{n-1/2} + zeta^{n+1/2}) after), integrated by the trapezoid rule over [0, 0.01]. The brackets,
//     ad* and pairings are written here, not taken from the library (checked against each other below).
//     Prototype: gain 3.66e-2 +- 0.39e-2 vs predicted 3.41e-2. Asserted: |mean - prediction| < 4 SE.
//     Measured here: 3.46e-2 +- 0.30e-2 (40 pairs) vs predicted 3.528e-2. The prototype's 3.41e-2 is the rate
//     of the initial state times T (3.414 J/s x 0.01 s, asserted): the beam is not quite still, its free ends
//     move 1.6 cm in 0.01 s, and the velocity terms raise the rate to 3.76 J/s at t = 0.01 (the strain terms
//     vary by +-5 % with the axial vibration), so the integral is 3.4 % above rate(0) T. With 4000 pairs (a
//     one-off run, 11 s) the gain is 3.638e-2 +- 0.041e-2, 2.7 SE above 3.528e-2: a weak discretisation error
//     of the stiff axial / shear modes that carry most of the injected energy (omega_max dt = 0.21), since at
//     dt = 5e-5 (200 steps, same T, 4000 pairs) the gain is 3.549e-2 +- 0.040e-2, 0.55 SE from the same
//     prediction (and the prototype, 3.66e-2 at dt = 1e-4, sees the same excess). The deterministic
//     E_c gain drops from 3.4e-3 to 0.81e-3 (order 2) with that halving.
//     Ito reading (only the two quadratic terms): the Stratonovich-only terms are <ad*_Th mu, [Th, zeta]>
//     (small: the velocities are small and the term is not positive) and <Pi, [[gamma, Th], Th]>, which for
//     the arc is -2 x 2.5e-5 x EJ3 per unit length, 0.1 % of the quadratic stiffness term: the Ito prediction
//     (3.532e-2) differs from the Stratonovich one by 4.6e-5, ~1e-2 of the statistical error of 40 pairs (and
//     0.1 of the 4000-pair error), so this case cannot tell Ito from Stratonovich and the Ito value is only
//     printed, not asserted against (the single-node case of tests/beam/test_beam_noise.cpp excludes Ito).
//
//  2. Structure over 1e5 noisy steps (issue requirement; prototype: round-off only, ~1e-14 after 1e5 steps):
//     max_j |R_j^T R_j - I| over the run, for a J = 4 `vertex` arc with common noise and for the single node
//     of the Stratonovich check (a free rigid body on SE(3) turning through ~100 rad under strong noise);
//     asserted <= 1e-13.
//
//  3. Damping under noise, the carry (models/beam.hpp, stepper nodes_lie): at level n the explicit half of the
//     Lagrange-d'Alembert force of the previous step, -(1/2) D zeta^{n-1/2}, must be in the frame of g^n;
//     zeta^{n-1/2} is a velocity in the frame of g^{n-1}, so it is carried by Ad_{tau(A^{n-1})^{-1}} (with
//     noise A = dt zeta + theta is not parallel to zeta; without noise the carry is the identity).
//     a) A single node (free rigid body, mass-proportional damping D = C K, strong noise) against a reference
//        step written here from the formulas of docs/theory/beam.md alone: the 4x4 matrix Cayley (I -
//        X/2)^{-1} (I + X/2), (dcay_x^{-1})^* from its matrix form dcay_x^{-1} y = ((I - X/2) Y (I +
//        X/2))^vee, Ad_h from its 6x6 matrix, and a Newton solve of T^-_A(K zeta) + (dt/2) D zeta = M~ -
//        (dt/2) D Ad_{tau(A^{n-1})^{-1}} zeta^{n-1/2} with a central-difference Jacobian; M~^{n+1} =
//        Ad*_{tau(A)} (the solve's target). Both inertia types (isotropic translational inertia: the model's
//        reduced solve; anisotropic: the 6x6 Newton) agree with the reference to ~1e-14 over 2000 steps
//        (asserted 1e-12), while the same reference without the carry differs from the stepper by ~3e-5
//        (printed, and asserted > 1e-6).
//     b) An exact physical law: a spherical body (K_a = k I) in pure rotation (no linear velocity or noise)
//        with D = c K. Then D Ad_{h^{-1}} = Ad*_h D for the step's h = tau(A) (pure rotation: Ad is
//        orthogonal), so the damping impulse of step n (the spatial torque -c k R^n omega^{n+1/2}, evaluated
//        in its start frame) is split equally between its end points, and the spatial momentum map obeys
//          J^{n+1} - J^n = -(dt/2) c k (R^{n-1} omega^{n-1/2} + R^n omega^{n+1/2}),   n >= 1,
//        which uses only the stepper's output poses and velocities (no carry in the formula): checked to
//        round-off under noise (measured 8e-16). The uncarried reference violates it by 3e-6 (printed, asserted).
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <random>
#include <vector>

#include "lievi/field/noise_field.hpp"
#include "lievi/field/stepper.hpp"
#include "lievi/models/beam.hpp"
#include "lievi/noise/wiener.hpp"
#include "support/beam_support.hpp"

using lievi::field::End;
using lievi::field::Grid;
using lievi::field::Layout;
using lievi::field::LevelEnergy;
using lievi::field::NodeField;
using lievi::field::NodeIndex;
using lievi::field::NoiseField;
using lievi::field::NoiseMode;
using lievi::field::SegmentIndex;
using lievi::field::StaggeredStepper;
using lievi::lie::Mat3;
using lievi::lie::Mat6;
using lievi::lie::SE3;
using lievi::lie::Vec3;
using lievi::lie::Vec6;
using lievi::models::Beam;
using lievi::noise::StreamKey;
using lievi::noise::WienerIncrements;
using lievi::test::beam::arc_pose;
using lievi::test::beam::kTable1Length;
using lievi::test::beam::momentum_map;
using lievi::test::beam::orth_error;
using lievi::test::beam::spatial;
using lievi::test::beam::table1;
using Stepper = StaggeredStepper<Beam<>>;
using Mat4 = Eigen::Matrix4d;

namespace {

// ---- se(3) written out here (docs/theory/beam.md "SE(3) formulas"), independent of lievi::lie
// --------------
/// [x, y] = ad_x y = (w x a, w x u + v x a) for x = (w, v), y = (a, u).
Vec6 bracket(const Vec6& x, const Vec6& y) {
  const Vec3 w = x.head<3>(), v = x.tail<3>(), a = y.head<3>(), u = y.tail<3>();
  Vec6 r;
  r << w.cross(a), w.cross(u) + v.cross(a);
  return r;
}
/// ad*_x mu = ad_x^T mu = (m x w + n x v, n x w) for x = (w, v), mu = (m, n).
Vec6 ad_star(const Vec6& x, const Vec6& mu) {
  const Vec3 w = x.head<3>(), v = x.tail<3>(), m = mu.head<3>(), n = mu.tail<3>();
  Vec6 r;
  r << m.cross(w) + n.cross(v), n.cross(w);
  return r;
}
Mat3 skew(const Vec3& w) {
  Mat3 W;
  W << 0, -w[2], w[1], w[2], 0, -w[0], -w[1], w[0], 0;
  return W;
}
Mat4 hat4(const Vec6& x) {
  Mat4 X = Mat4::Zero();
  X.topLeftCorner<3, 3>() = skew(x.head<3>());
  X.topRightCorner<3, 1>() = x.tail<3>();
  return X;
}
Vec6 vee4(const Mat4& X) {
  Vec6 x;
  x << X(2, 1), X(0, 2), X(1, 0), X(0, 3), X(1, 3), X(2, 3);
  return x;
}
/// The matrix Cayley map (I - X/2)^{-1} (I + X/2).
Mat4 cay4(const Vec6& x) {
  const Mat4 X = hat4(x), I = Mat4::Identity();
  return (I - 0.5 * X).inverse() * (I + 0.5 * X);
}
/// dcay_x^{-1} as a 6x6 matrix from its matrix form y -> ((I - X/2) Y (I + X/2))^vee.
Mat6 dcay_inv(const Vec6& x) {
  const Mat4 X = hat4(x), I = Mat4::Identity();
  Mat6 D;
  for (int k = 0; k < 6; ++k) D.col(k) = vee4((I - 0.5 * X) * hat4(Vec6::Unit(k)) * (I + 0.5 * X));
  return D;
}
/// Ad_h = [[R, 0], [p^ R, R]] for the 4x4 h = (R, p).
Mat6 Ad(const Mat4& h) {
  const Mat3 R = h.topLeftCorner<3, 3>();
  const Vec3 p = h.topRightCorner<3, 1>();
  Mat6 A = Mat6::Zero();
  A.topLeftCorner<3, 3>() = R;
  A.bottomRightCorner<3, 3>() = R;
  A.bottomLeftCorner<3, 3>() = skew(p) * R;
  return A;
}

NoiseField<Vec6> common_noise(const Grid& grid, const Vec6& theta, double dt, std::uint32_t seed, std::uint32_t path) {
  return NoiseField<Vec6>(grid, NoiseMode::common, theta, {}, WienerIncrements(StreamKey{seed, path}, dt, 0));
}

// ---- 1. the beam at rest -------------------------------------------------------------------------------------
constexpr long kArcNodes = 20;
constexpr double kArcDt = 1e-4;
constexpr int kArcSteps = 100;

Stepper arc_at_rest(const Vec6& theta, std::uint32_t path, NoiseMode mode) {
  const Grid grid(Layout::cell, kArcNodes, kTable1Length, End::free, End::free);
  Stepper::Options o;
  o.dt = kArcDt;
  NoiseField<Vec6> nf(grid, mode, theta, {}, WienerIncrements(StreamKey{11, path}, kArcDt, 0));
  Stepper st(Beam<>::uniform(table1(), grid.n_nodes(), grid.n_segments()), grid, o, std::move(nf));
  NodeField<SE3> g0(grid.n_nodes(), SE3());
  for (std::ptrdiff_t j = 0; j < grid.n_nodes(); ++j) g0[NodeIndex{j}] = arc_pose(grid.s(NodeIndex{j}));
  st.initialize(g0, NodeField<Vec6>(grid.n_nodes(), Vec6::Zero()));
  return st;
}

/// E_c^N - E_c^0 of one run of kArcSteps steps.
double centred_gain(Stepper& st) {
  LevelEnergy E0;
  EXPECT_TRUE(st.step(&E0).ok);
  for (int n = 1; n < kArcSteps; ++n) EXPECT_TRUE(st.step().ok);
  return st.energy_now().E_c() - E0.E_c();
}

/// The rate of docs/theory/beam.md "Energy under noise" at one level: the Stratonovich value and its Ito part
/// (the two quadratic terms).
struct Rate {
  double strat = 0.0, ito = 0.0;
};
Rate energy_rate(const std::vector<Vec6>& zeta, const std::vector<double>& w, const std::vector<Vec6>& gamma, double ds,
                 const Vec6& Th, const Mat6& K, const Mat6& P) {
  const Mat6 Kinv = K.inverse();
  Vec6 E6 = Vec6::Zero();
  E6[3] = 1.0;
  Rate r;
  for (std::size_t j = 0; j < zeta.size(); ++j) {
    const Vec6 mu = K * zeta[j], a = ad_star(Th, mu);
    const double quad = a.dot(Kinv * a), cross = a.dot(bracket(Th, zeta[j]));
    r.strat += w[j] * 0.5 * (cross + quad);
    r.ito += w[j] * 0.5 * quad;
  }
  for (const Vec6& y : gamma) {
    const Vec6 Pi = P * (y - E6), b = bracket(y, Th);
    const double quad = b.dot(P * b), cross = Pi.dot(bracket(b, Th));
    r.strat += ds * 0.5 * (cross + quad);
    r.ito += ds * 0.5 * quad;
  }
  return r;
}

}  // namespace

TEST(BeamStochastic, OwnSe3AlgebraIsConsistent) {
  // the pairing <ad*_x mu, y> = <mu, [x, y]>, antisymmetry and Jacobi of the bracket written here; the matrix
  // Cayley is in SE(3) and dcay^{-1} at 0 is the identity (sanity of the reference formulas below)
  std::mt19937 rng(5);
  std::normal_distribution<double> N01;
  auto rnd = [&] {
    Vec6 v;
    for (int i = 0; i < 6; ++i) v[i] = N01(rng);
    return v;
  };
  for (int k = 0; k < 100; ++k) {
    const Vec6 x = rnd(), y = rnd(), z = rnd(), mu = rnd();
    EXPECT_NEAR(ad_star(x, mu).dot(y), mu.dot(bracket(x, y)), 1e-13);
    EXPECT_LT((bracket(x, y) + bracket(y, x)).norm(), 1e-14);
    EXPECT_LT((bracket(x, bracket(y, z)) + bracket(y, bracket(z, x)) + bracket(z, bracket(x, y))).norm(), 1e-13);
    EXPECT_LT((hat4(bracket(x, y)) - (hat4(x) * hat4(y) - hat4(y) * hat4(x))).norm(), 1e-13);
    const Mat4 h = cay4(0.3 * x);
    EXPECT_LT((h.topLeftCorner<3, 3>().transpose() * h.topLeftCorner<3, 3>() - Mat3::Identity()).norm(), 1e-14);
    for (int i = 0; i < 6; ++i)
      EXPECT_LT((vee4(h * hat4(Vec6::Unit(i)) * h.inverse()) - Ad(h).col(i)).norm(), 1e-13);
  }
  EXPECT_LT((dcay_inv(Vec6::Zero()) - Mat6::Identity()).norm(), 1e-15);
}

TEST(BeamStochastic, BeamAtRestMeanEnergyGainMatchesTheStratonovichRate) {
  const auto t0 = std::chrono::steady_clock::now();
  const Vec6 Th = Vec6::Constant(0.005);
  // the prediction along the deterministic run
  double pred_s = 0.0, pred_i = 0.0, det_gain = 0.0, moved = 0.0, rate0 = 0.0;
  {
    Stepper st = arc_at_rest(Vec6::Zero(), 0, NoiseMode::none);
    const Grid& grid = st.grid();
    const std::ptrdiff_t n_nodes = grid.n_nodes(), n_seg = grid.n_segments();
    std::vector<double> w(static_cast<std::size_t>(n_nodes));
    for (std::ptrdiff_t j = 0; j < n_nodes; ++j) w[static_cast<std::size_t>(j)] = grid.weight(NodeIndex{j});
    const Mat6 K = table1().K(), P = table1().P();
    const std::vector<SE3> g0(st.g().data(), st.g().data() + n_nodes);
    double Ec0 = 0.0;
    for (int n = 0; n <= kArcSteps; ++n) {
      std::vector<Vec6> gam(static_cast<std::size_t>(n_seg)), zb(static_cast<std::size_t>(n_nodes));
      for (std::ptrdiff_t e = 0; e < n_seg; ++e) gam[static_cast<std::size_t>(e)] = st.gamma()[SegmentIndex{e}];
      for (std::ptrdiff_t j = 0; j < n_nodes; ++j) zb[static_cast<std::size_t>(j)] = st.zeta()[NodeIndex{j}];
      LevelEnergy E;
      ASSERT_TRUE(st.step(&E).ok);
      if (n == 0) Ec0 = E.E_c();
      if (n == kArcSteps) det_gain = E.E_c() - Ec0;
      for (std::ptrdiff_t j = 0; j < n_nodes; ++j) {
        Vec6& z = zb[static_cast<std::size_t>(j)];
        z = n == 0 ? Vec6::Zero() : Vec6(0.5 * (z + st.zeta()[NodeIndex{j}]));  // released from rest: zeta(0) = 0
      }
      const Rate r = energy_rate(zb, w, gam, grid.ds(), Th, K, P);
      const double tw = (n == 0 || n == kArcSteps) ? 0.5 : 1.0;
      pred_s += tw * kArcDt * r.strat;
      pred_i += tw * kArcDt * r.ito;
      if (n == 0) rate0 = r.strat;
      if (n == 0 || n == kArcSteps) {
        const Rate rg = energy_rate(std::vector<Vec6>(zb.size(), Vec6::Zero()), w, gam, grid.ds(), Th, K, P);
        std::printf("rate at level %d: Stratonovich %.5f J/s (strain and stress terms %.5f), Ito %.5f J/s\n", n,
                    r.strat, rg.strat, r.ito);
      }
    }
    for (std::ptrdiff_t j = 0; j < n_nodes; ++j)
      moved = std::max(moved, (st.g()[NodeIndex{j}].translation() - g0[static_cast<std::size_t>(j)].translation()).norm());
  }
  // the noisy antithetic pairs
  const int pairs = 40;
  double sum = 0.0, sum2 = 0.0;
  for (int p = 0; p < pairs; ++p) {
    double pair = 0.0;
    for (const double sign : {1.0, -1.0}) {
      Stepper st = arc_at_rest(Vec6(sign * Th), static_cast<std::uint32_t>(p), NoiseMode::common);
      pair += 0.5 * (centred_gain(st) - det_gain);
    }
    sum += pair;
    sum2 += pair * pair;
  }
  const double mean = sum / pairs, se = std::sqrt((sum2 / pairs - mean * mean) / (pairs - 1));
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("beam at rest (cell 20, Theta = 0.005, dt = 1e-4, 100 steps): deterministic E_c gain %.3e, max node "
              "displacement %.2e m\n",
              det_gain, moved);
  std::printf("mean noise-induced E_c gain %.4e +- %.2e (%d antithetic pairs); predicted Stratonovich %.4e, Ito %.4e "
              "(|mean - Strat| = %.2f SE, |mean - Ito| = %.2f SE, Strat - Ito = %.2e); spec 3.66e-2 +- 0.39e-2 vs "
              "3.41e-2; %.2f s\n",
              mean, se, pairs, pred_s, pred_i, std::abs(mean - pred_s) / se, std::abs(mean - pred_i) / se,
              pred_s - pred_i, secs);
  EXPECT_GT(se, 0.0);
  EXPECT_LT(std::abs(mean - pred_s), 4.0 * se);
  // the prototype's "predicted 3.41e-2" is the rate of the initial state times T (3.414 J/s x 0.01 s); the
  // integral along the moving beam is 3.4 % larger (file comment)
  EXPECT_NEAR(rate0 * kArcSteps * kArcDt, 3.41e-2, 0.005e-2);
  EXPECT_GT(pred_s, 1.02 * rate0 * kArcSteps * kArcDt);
  // Ito is not asserted against: it differs from the Stratonovich prediction by ~1e-2 SE here (file comment).
}

TEST(BeamStochastic, FramesStayOrthonormalOverOneHundredThousandNoisySteps) {
  const auto t0 = std::chrono::steady_clock::now();
  constexpr int kSteps = 100000;
  // Cayley keeps R orthogonal exactly; what remains is round-off, which adds up like a random walk,
  // ~ sqrt(steps) eps = 7e-14 here (GCC gives 8e-14, Clang 1.0e-13). A drift (~ steps eps = 2e-11) would
  // exceed 4 sqrt(steps) eps = 2.8e-13.
  const double bound = 4.0 * std::sqrt(static_cast<double>(kSteps)) * std::numeric_limits<double>::epsilon();
  // a J = 4 vertex arc (Table 1), released from rest, common noise Theta = 0.005 on all components
  {
    const Grid grid(Layout::vertex, 4, kTable1Length, End::free, End::free);
    Stepper::Options o;
    o.dt = 1e-4;
    Stepper st(Beam<>::uniform(table1(), grid.n_nodes(), grid.n_segments()), grid, o,
               common_noise(grid, Vec6::Constant(0.005), o.dt, 3, 0));
    NodeField<SE3> g0(grid.n_nodes(), SE3());
    for (std::ptrdiff_t j = 0; j < grid.n_nodes(); ++j) g0[NodeIndex{j}] = arc_pose(grid.s(NodeIndex{j}));
    st.initialize(g0, NodeField<Vec6>(grid.n_nodes(), Vec6::Zero()));
    const Vec6 J0 = momentum_map(st);
    double worst = 0.0, turn = 0.0;
    const Mat3 R0 = st.g()[NodeIndex{0}].rotation();
    for (int n = 0; n < kSteps; ++n) {
      ASSERT_TRUE(st.step().ok) << n;
      if (n % 100 == 99) {
        worst = std::max(worst, orth_error(st));
        const Mat3 Rr = R0.transpose() * st.g()[NodeIndex{0}].rotation();
        turn = std::max(turn, std::acos(std::clamp(0.5 * (Rr.trace() - 1.0), -1.0, 1.0)));
      }
    }
    const double drift = (momentum_map(st) - J0).cwiseAbs().maxCoeff();
    std::printf("vertex J = 4 arc, 1e5 noisy steps (T = 10 s): max |R^T R - I| = %.2e (final %.2e); end node "
                "turned up to %.3f rad; momentum map drift %.2e\n",
                worst, orth_error(st), turn, drift);
    EXPECT_LE(worst, bound);
    EXPECT_LE(orth_error(st), bound);
  }
  // the single node of the Stratonovich check (K = diag(1, 2, 3, 1, 1, 1)), strong noise, dt = 1e-3: T = 100
  {
    const Grid grid(Layout::cell, 1, 1.0, End::free, End::free);
    Beam<> b;
    Vec6 k, th, z0;
    k << 1, 2, 3, 1, 1, 1;
    th << 0.3, 0.2, 0.1, 0.1, 0, 0;
    z0 << 1, 0.5, 0.2, 0.3, 0, 0.1;
    b.K_node = {k.asDiagonal()};
    b.rhoA_node = {1.0};
    b.momentum_scale = 1e-12;
    Stepper::Options o;
    o.dt = 1e-3;
    Stepper st(b, grid, o, common_noise(grid, th, o.dt, 3, 1));
    st.initialize(NodeField<SE3>(1, SE3()), NodeField<Vec6>(1, z0));
    double worst = 0.0, path_angle = 0.0;
    for (int n = 0; n < kSteps; ++n) {
      ASSERT_TRUE(st.step().ok) << n;
      path_angle += st.increments()[NodeIndex{0}].head<3>().norm();  // |cay^{-1}| ~ 2 tan(angle / 2)
      if (n % 100 == 99) worst = std::max(worst, orth_error(st));
    }
    std::printf("single node, 1e5 noisy steps (T = 100): max |R^T R - I| = %.2e (final %.2e), turned through "
                "~%.0f rad\n",
                worst, orth_error(st), path_angle);
    EXPECT_GT(path_angle, 50.0);
    EXPECT_LE(worst, bound);
  }
  std::printf("%.2f s\n", std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
}

namespace {

/// One free node (w = 1) stepped by the reference scheme of the file comment, 3a.
struct ReferenceNode {
  Mat6 K, D;
  Vec6 Theta;
  double dt = 0.0;
  bool carry = true;
  WienerIncrements inc;
  Mat4 g = Mat4::Identity();
  Vec6 z, A = Vec6::Zero(), Mt;
  long n = 0;

  ReferenceNode(const Mat6& K_, const Mat6& D_, const Vec6& Theta_, double dt_, bool carry_, WienerIncrements inc_,
                const Vec6& z0)
      : K(K_), D(D_), Theta(Theta_), dt(dt_), carry(carry_), inc(inc_), z(z0) {
    Mt = K * z0 + 0.5 * dt * (D * z0);  // half-kick start: M~^0 = K zeta(0) - (dt/2)(-D zeta(0))
  }
  [[nodiscard]] Vec6 residual(const Vec6& zeta, const Vec6& theta, const Vec6& M) const {
    const Vec6 a = dt * zeta + theta;
    return Vec6(dcay_inv(a).transpose() * (K * zeta) + 0.5 * dt * (D * zeta) - M);
  }
  void step() {
    const Vec6 theta = Theta * inc.increment(static_cast<std::uint64_t>(n), 0);
    // the explicit half of the previous step's damping force, in the frame of g^n
    const Vec6 zc = carry ? Vec6(Ad(cay4(A).inverse()) * z) : z;
    const Vec6 M = Mt - 0.5 * dt * (D * zc);
    Vec6 zeta = z;
    double res = residual(zeta, theta, M).cwiseAbs().maxCoeff();
    for (int it = 0; it < 30 && res > 2e-16 * std::max(1.0, M.cwiseAbs().maxCoeff()); ++it) {
      Mat6 Jac;
      for (int k = 0; k < 6; ++k) {
        const double h = 1e-6 * std::max(1.0, std::abs(zeta[k]));
        Vec6 zp = zeta, zm = zeta;
        zp[k] += h, zm[k] -= h;
        Jac.col(k) = (residual(zp, theta, M) - residual(zm, theta, M)) / (2.0 * h);
      }
      const Vec6 next = zeta - Jac.partialPivLu().solve(residual(zeta, theta, M));
      const double r2 = residual(next, theta, M).cwiseAbs().maxCoeff();
      if (!(r2 < res)) break;  // at round-off
      zeta = next, res = r2;
    }
    A = dt * zeta + theta;
    const Mat4 h = cay4(A);
    g = g * h;
    Mt = Ad(h).transpose() * Vec6(M - 0.5 * dt * (D * zeta));  // Ad*_h of T^-_A(K zeta)
    z = zeta;
    ++n;
  }
};

Stepper damped_node(const Mat6& K, double c_ang, double c_lin, const Vec6& theta, double dt, const Vec6& z0,
                    std::uint32_t path) {
  const Grid grid(Layout::cell, 1, 1.0, End::free, End::free);
  Beam<> b;
  b.K_node = {K};
  b.rhoA_node = {K(3, 3)};
  b.momentum_scale = 1e-12 * K.norm();
  b.set_damping(c_ang, c_lin);
  Stepper::Options o;
  o.dt = dt;
  Stepper st(b, grid, o, common_noise(grid, theta, dt, 77, path));
  st.initialize(NodeField<SE3>(1, SE3()), NodeField<Vec6>(1, z0));
  return st;
}

}  // namespace

TEST(BeamStochastic, DampingUnderNoiseCarriesTheExplicitHalfIntoTheNewFrame) {
  const double dt = 1e-3, c_ang = 0.8, c_lin = 0.5;
  constexpr int kSteps = 2000;
  Vec6 theta, z0, Cd;
  theta << 0.3, 0.2, 0.1, 0.2, 0.1, 0.15;
  z0 << 1, 0.5, 0.2, 0.3, 0, 0.1;
  Cd << c_ang, c_ang, c_ang, c_lin, c_lin, c_lin;
  Vec6 k_iso, k_aniso;
  k_iso << 1, 2, 3, 1, 1, 1;      // isotropic translational inertia: the model's reduced local solve
  k_aniso << 1, 2, 3, 2, 1, 1.5;  // the full 6x6 Newton
  for (const Vec6& kd : {k_iso, k_aniso}) {
    const Mat6 K = kd.asDiagonal(), D = Cd.cwiseProduct(kd).asDiagonal();  // D = C K (diagonal K)
    Stepper st = damped_node(K, c_ang, c_lin, theta, dt, z0, 4);
    ASSERT_EQ(st.model().has_reduced_solve(0), kd == k_iso);
    const WienerIncrements inc(StreamKey{77, 4}, dt, 0);
    ReferenceNode ref(K, D, theta, dt, true, inc, z0), raw(K, D, theta, dt, false, inc, z0);
    double e_ref = 0.0, e_raw = 0.0, e_M = 0.0;
    for (int n = 0; n < kSteps; ++n) {
      ASSERT_TRUE(st.step().ok) << n;
      ref.step();
      raw.step();
      const SE3& g = st.g()[NodeIndex{0}];
      Mat4 G = Mat4::Identity();
      G.topLeftCorner<3, 3>() = g.rotation();
      G.topRightCorner<3, 1>() = g.translation();
      const Vec6 z = st.zeta()[NodeIndex{0}];
      e_ref = std::max({e_ref, (G - ref.g).cwiseAbs().maxCoeff(), (z - ref.z).cwiseAbs().maxCoeff()});
      e_M = std::max(e_M, (st.pre_momentum()[NodeIndex{0}] - ref.Mt).cwiseAbs().maxCoeff());
      e_raw = std::max({e_raw, (G - raw.g).cwiseAbs().maxCoeff(), (z - raw.z).cwiseAbs().maxCoeff()});
    }
    const Vec6 zf = st.zeta()[NodeIndex{0}];
    std::printf("%s K, damping (%.1f, %.1f), noise, %d steps: |zeta| %.3f -> %.3f; stepper vs reference with carry "
                "%.2e (pre-momentum %.2e), vs reference without carry %.2e\n",
                kd == k_iso ? "isotropic-translation" : "anisotropic", c_ang, c_lin, kSteps, z0.norm(), zf.norm(),
                e_ref, e_M, e_raw);
    EXPECT_LT(e_ref, 1e-12);
    EXPECT_LT(e_M, 1e-12);
    EXPECT_GT(e_raw, 1e-6);  // the check would fail without the carry
  }
}

TEST(BeamStochastic, DampedSphereBalancesItsSpatialMomentumStepByStep) {
  const double dt = 1e-3, c = 0.7, kr = 2.0;
  constexpr int kSteps = 2000;
  Vec6 kd, theta, z0;
  kd << kr, kr, kr, 1, 1, 1;
  theta << 0.3, 0.2, 0.1, 0, 0, 0;  // pure rotation: no linear velocity or noise
  z0 << 1, 0.5, 0.2, 0, 0, 0;
  const Mat6 K = kd.asDiagonal(), D = c * K;
  // the law's residual from poses and velocities g^{n-1}, g^n, zeta^{n-1/2}, zeta^{n+1/2} and J^n, J^{n+1}
  auto law = [&](const Mat3& Rm, const Mat3& R, const Vec3& wm, const Vec3& w, const Vec3& Jn, const Vec3& Jn1) {
    return (Jn1 - Jn + 0.5 * dt * c * kr * (Rm * wm + R * w)).cwiseAbs().maxCoeff();
  };
  // the stepper
  double worst = 0.0, Jmax = 0.0, Jlin = 0.0;
  {
    Stepper st = damped_node(K, c, c, theta, dt, z0, 9);
    Mat3 Rm = st.g()[NodeIndex{0}].rotation(), R = Rm;
    Vec3 wm = z0.head<3>();
    Vec6 J = momentum_map(st);
    for (int n = 0; n < kSteps; ++n) {
      ASSERT_TRUE(st.step().ok);
      const Vec6 J1 = momentum_map(st);
      const Vec3 w = st.zeta()[NodeIndex{0}].head<3>();
      worst = std::max(worst, law(Rm, R, wm, w, J.head<3>(), J1.head<3>()));
      Jmax = std::max(Jmax, J1.head<3>().norm());
      Jlin = std::max(Jlin, J1.tail<3>().cwiseAbs().maxCoeff());
      Rm = R, R = st.g()[NodeIndex{0}].rotation(), wm = w, J = J1;
    }
    std::printf("damped sphere under noise: |J| %.4f -> %.4f; balance residual %.2e (linear part %.1e)\n",
                kr * z0.head<3>().norm(), J.head<3>().norm(), worst, Jlin);
  }
  // the reference without the carry, measured by the same law
  double worst_raw = 0.0;
  {
    ReferenceNode raw(K, D, theta, dt, false, WienerIncrements(StreamKey{77, 9}, dt, 0), z0);
    auto Jof = [&](const ReferenceNode& r) { return Vec3(r.g.topLeftCorner<3, 3>() * r.Mt.head<3>()); };
    Mat3 Rm = raw.g.topLeftCorner<3, 3>(), R = Rm;
    Vec3 wm = z0.head<3>(), J = Jof(raw);
    for (int n = 0; n < kSteps; ++n) {
      raw.step();
      const Vec3 J1 = Jof(raw), w = raw.z.head<3>();
      worst_raw = std::max(worst_raw, law(Rm, R, wm, w, J, J1));
      Rm = R, R = raw.g.topLeftCorner<3, 3>(), wm = w, J = J1;
    }
  }
  std::printf("  the same law for the reference without the carry: residual %.2e\n", worst_raw);
  EXPECT_LT(worst, 1e-14 * std::max(1.0, Jmax) * 10);
  EXPECT_LT(Jlin, 1e-14);
  EXPECT_GT(worst_raw, 1e-8);
}
