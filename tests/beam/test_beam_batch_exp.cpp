// The exp retraction's batched kernels (lievi/models/beam_batch.hpp) on random states, one segment or node at a
// time, against lie::Exp<SE3>'s closed forms (written separately: Rodrigues' formula, atan2 logarithm, the
// Q-matrix of dexp): the strains gamma = log(g_a^{-1} g_b) / ds and the stresses (dexp_{+/-B}^{-1})^* Pi by the
// kernels' Taylor series agree to round-off for every angle up to kExpSeriesAngle; beyond it the kernels leave
// the segment (NaN rows) to the generic code, and Beam::Batch fills it in.
#include <gtest/gtest.h>

#include <Eigen/Geometry>

#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "lievi/lie/retraction/exp.hpp"
#include "lievi/models/beam.hpp"
#include "lievi/models/beam_batch.hpp"

namespace batch = lievi::models::batch;
using lievi::lie::Exp;
using lievi::lie::Mat3;
using lievi::lie::SE3;
using lievi::lie::Vec3;
using lievi::lie::Vec6;
using ExpBeam = lievi::models::Beam<Exp<SE3>>;

namespace {

Vec3 random_unit(std::mt19937_64& rng) {
  std::normal_distribution<double> n;
  Vec3 u(n(rng), n(rng), n(rng));
  return u.normalized();
}
/// A rotation by `angle` about a random axis, and a random translation of size ~ds.
SE3 random_step(std::mt19937_64& rng, double angle, double ds) {
  std::normal_distribution<double> n;
  const Mat3 R = Eigen::AngleAxisd(angle, random_unit(rng)).toRotationMatrix();
  return SE3(R, Vec3(ds * (1.0 + 0.1 * n(rng)), 0.1 * ds * n(rng), 0.1 * ds * n(rng)));
}
/// The angles tested: 0, tiny, and a sweep through (0, 1], plus values beyond the series' range.
std::vector<double> angles_in_range() {
  std::vector<double> a = {0.0, 1e-12, 1e-6, 1e-3};
  for (int i = 1; i <= 200; ++i) a.push_back((1.0 - 1e-9) * batch::kExpSeriesAngle * i / 200.0);  // (1: the edge may round out)
  return a;
}

}  // namespace

TEST(BeamBatchExp, StrainsAreTheLogarithmToRoundOff) {
  std::mt19937_64 rng(7);
  const double ds = 0.05, inv_ds = 1.0 / ds;
  const std::vector<double> angles = angles_in_range();
  // node poses: a random first pose, then each next one a random step from it
  std::vector<SE3> g = {SE3(Eigen::AngleAxisd(0.7, random_unit(rng)).toRotationMatrix(), Vec3(0.3, -1.0, 2.0))};
  for (double a : angles) g.push_back(g.back() * random_step(rng, a, ds));
  const long m = static_cast<long>(angles.size());
  std::vector<Vec6> gamma(static_cast<std::size_t>(m));
  EXPECT_FALSE(batch::exp_strains(0, m, inv_ds, g.data()->data(), gamma.data()->data()));
  double worst = 0;
  for (long e = 0; e < m; ++e) {
    const auto i = static_cast<std::size_t>(e);
    const Vec6 want = inv_ds * Exp<SE3>::tau_inv(g[i].inverse() * g[i + 1]);
    const double d = (gamma[i] - want).cwiseAbs().maxCoeff() / std::max(1.0, want.cwiseAbs().maxCoeff());
    worst = std::max(worst, d);
    EXPECT_LT(d, 1e-13) << "angle " << angles[i];
  }
  std::printf("strains: largest relative difference %.2g over %ld segments\n", worst, m);
  // beyond the range: NaN rows and the flag; the Batch wrapper computes them by Beam::relative
  std::vector<SE3> h = {SE3()};
  for (double a : {0.5, 1.2, 0.3, 2.5, 3.0}) h.push_back(h.back() * random_step(rng, a, ds));
  std::vector<Vec6> y(5);
  EXPECT_TRUE(batch::exp_strains(0, 5, inv_ds, h.data()->data(), y.data()->data()));
  for (int e = 0; e < 5; ++e) EXPECT_EQ(std::isnan(y[e][0]), e == 1 || e == 3 || e == 4) << e;
  const ExpBeam beam = ExpBeam::uniform(lievi::models::Section::square(1000.0, 1e7, 0.3, 0.01), 6, 5);
  const auto bt = beam.batch_sweeps();
  ASSERT_TRUE(bt);
  EXPECT_FALSE(bt->strains(0, 5, inv_ds, h.data(), y.data()));
  for (std::size_t e = 0; e < 5; ++e) {
    const Vec6 want = inv_ds * Exp<SE3>::tau_inv(h[e].inverse() * h[e + 1]);
    EXPECT_LT((y[e] - want).cwiseAbs().maxCoeff(), 1e-12 * want.cwiseAbs().maxCoeff()) << e;
  }
}

TEST(BeamBatchExp, StressesAreTheDualOfDexpInverseToRoundOff) {
  std::mt19937_64 rng(11);
  std::normal_distribution<double> n;
  const double ds = 0.05;
  const std::vector<double> angles = angles_in_range();
  const long m = static_cast<long>(angles.size());
  std::vector<Vec6> gamma(static_cast<std::size_t>(m)), E(static_cast<std::size_t>(m)), fm(gamma.size()), fp(gamma.size());
  std::vector<double> p6;
  for (long e = 0; e < m; ++e) {
    const auto i = static_cast<std::size_t>(e);
    gamma[i] << (angles[i] / ds) * random_unit(rng), 0.3 * n(rng), 0.3 * n(rng), 1.0 + 0.2 * n(rng);
    E[i] << 0.1 * n(rng), 0.1 * n(rng), 0.1 * n(rng), 0.0, 0.0, 1.0;
    for (double p : {2.0, 3.0, 3.0, 500.0, 200.0, 200.0}) p6.push_back(p * (1.0 + 0.3 * std::abs(n(rng))));
  }
  EXPECT_FALSE(batch::stresses(0, m, ds, gamma.data()->data(), E.data()->data(), p6.data(), false, false, false, true,
                               fm.data()->data(), fp.data()->data()));
  double worst = 0;
  for (long e = 0; e < m; ++e) {
    const auto i = static_cast<std::size_t>(e);
    const Vec6 Pi = Eigen::Map<const Vec6>(&p6[6 * i]).cwiseProduct(gamma[i] - E[i]);
    const Vec6 B = ds * gamma[i];
    const Vec6 wm = Exp<SE3>::dtau_inv_star_apply(B, Pi), wp = Exp<SE3>::dtau_inv_star_apply(Vec6(-B), Pi);
    const double scale = std::max(wm.cwiseAbs().maxCoeff(), wp.cwiseAbs().maxCoeff());
    const double d = std::max((fm[i] - wm).cwiseAbs().maxCoeff(), (fp[i] - wp).cwiseAbs().maxCoeff()) / scale;
    worst = std::max(worst, d);
    EXPECT_LT(d, 1e-13) << "angle " << angles[i];
  }
  std::printf("stresses: largest relative difference %.2g over %ld segments\n", worst, m);
  // beyond the range: NaN rows, flagged
  gamma[3].head<3>() = (1.5 / ds) * random_unit(rng);
  EXPECT_TRUE(batch::stresses(0, m, ds, gamma.data()->data(), E.data()->data(), p6.data(), false, false, false, true,
                              fm.data()->data(), fp.data()->data()));
  EXPECT_TRUE(std::isnan(fm[3][0]) && std::isnan(fp[3][0]));
  EXPECT_FALSE(std::isnan(fm[2][0]) || std::isnan(fm[4][0]));
}
