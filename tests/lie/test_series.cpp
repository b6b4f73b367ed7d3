// Small-angle helpers and truncated series.
//  - Every series-switching scalar helper (so3_series, se3_series) against a long-double reference built from
//    the *original* definition (closed form in long double where its cancellation costs < 1e-17, otherwise an
//    independent series: Bernoulli numbers from their exact fractions), at 0, at 1e-8 and 1e-4, just below,
//    at and just above its threshold, and on a dense sweep of [0, t_max).
//  - The Bernoulli table against exact fractions and the defining recurrence.
//  - dexp_series / dexp_inv_series: order 2 is the paper's exp2; high orders converge to the closed forms.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "lie_test_util.hpp"
#include "lievi/lie/bernoulli.hpp"
#include "lievi/lie/retraction/exp.hpp"
#include "lievi/lie/retraction/series.hpp"

namespace {

using namespace lievi::lie;
using namespace lievi::lie::testing;
using LD = long double;

constexpr double kUlp = 2.220446049250313e-16;

// Relative accuracy asked of every helper: 8 ulps (~1.8e-15). Measured worst cases are <= 4 ulps over the
// sweeps; the forms this replaced were at 57 ulps (beta, just above 0.5) and ~1000 ulps (gamma, near 1).
constexpr double kHelperTol = 8 * kUlp;

// --- long-double references
// ---------------------------------------------------------------------------------

/// Exact even Bernoulli numbers B_2, ..., B_30 (independent of the header's table).
const LD kB2n[15] = {1.0L / 6,
                     -1.0L / 30,
                     1.0L / 42,
                     -1.0L / 30,
                     5.0L / 66,
                     -691.0L / 2730,
                     7.0L / 6,
                     -3617.0L / 510,
                     43867.0L / 798,
                     -174611.0L / 330,
                     854513.0L / 138,
                     -236364091.0L / 2730,
                     8553103.0L / 6,
                     -23749461029.0L / 870,
                     8615841276005.0L / 14322};

LD factorial(int n) {
  LD f = 1;
  for (int k = 2; k <= n; ++k) f *= k;
  return f;
}

/// sum_k (-1)^k (a k + b) t^{2k} / (2k + d)!, 40 terms (exact in long double for the t where it is used).
LD alternating_series(LD t, int a, int b, int d) {
  LD s = 0;
  for (int k = 39; k >= 0; --k)
    s = s * t * t + ((k % 2 == 0) ? 1 : -1) * LD(a * k + b) / factorial(2 * k + d);
  return s;
}

LD ref_sinc(LD t) {
  return t == 0 ? 1.0L : std::sin(t) / t;
}
// (1 - cos t)/t^2: closed form loses 2/t^2 ulps of long double (series below 0.3), and near its zero at 2 pi
// it loses everything, so 2 sin^2(t/2)/t^2 above 3.
LD ref_one_minus_cos(LD t) {
  if (t < 0.3L) return alternating_series(t, 0, 1, 2);
  if (t < 3.0L) return (1 - std::cos(t)) / (t * t);
  const LD s = std::sin(t / 2);
  return 2 * s * s / (t * t);
}
// (t - sin t)/t^3: closed form loses 6/t^2 long-double ulps (< 1e-17 for t >= 0.3).
LD ref_t_minus_sin(LD t) {
  return t < 0.3L ? alternating_series(t, 0, 1, 3) : (t - std::sin(t)) / (t * t * t);
}
// beta(t) = (1 - (t/2) cot(t/2))/t^2: closed form loses 12/t^2 long-double ulps; Bernoulli series below 0.3.
LD ref_beta(LD t) {
  if (t < 0.3L) {
    LD s = 0;
    for (int n = 1; n <= 15; ++n) s += std::fabs(kB2n[n - 1]) * std::pow(t, 2 * n - 2) / factorial(2 * n);
    return s;
  }
  const LD x = t / 2;
  return (1 - x * std::cos(x) / std::sin(x)) / (t * t);
}
// gamma(t) = beta'(t)/t = -2/t^4 + cot(t/2)/(2 t^3) + csc^2(t/2)/(4 t^2): loses ~720/t^4 long-double ulps, so
// the Bernoulli series (terms (t/2pi)^2n: 1e-20 after 14 terms at 1.2) below 1.2.
LD ref_gamma(LD t) {
  if (t < 1.2L) {
    LD s = 0;
    for (int n = 2; n <= 15; ++n)
      s += std::fabs(kB2n[n - 1]) * (2 * n - 2) * std::pow(t, 2 * n - 4) / factorial(2 * n);
    return s;
  }
  const LD x = t / 2, sx = std::sin(x);
  return -2 / (t * t * t * t) + std::cos(x) / sx / (2 * t * t * t) + 1 / (sx * sx) / (4 * t * t);
}
// (1 - cos t - (t/2) sin t)/t^4 = beta(t) sinc(t/2)^2 / 2 (an identity of the definitions).
LD ref_beta_numerator(LD t) {
  const LD s = ref_sinc(t / 2);
  return ref_beta(t) * s * s / 2;
}
// (t^2 + t sin t - 4 (1 - cos t))/t^6 = gamma(t) sinc(t/2)^2.
LD ref_gamma_numerator(LD t) {
  const LD s = ref_sinc(t / 2);
  return ref_gamma(t) * s * s;
}
// c_2 = (t^2 + 2 cos t - 2)/(2 t^4): closed form loses 12/t^2 long-double ulps; series below 0.3.
LD ref_c2(LD t) {
  return t < 0.3L ? alternating_series(t, 0, 1, 4) : (t * t + 2 * std::cos(t) - 2) / (2 * t * t * t * t);
}
// c_3 = (2t - 3 sin t + t cos t)/(2 t^5): closed form loses ~360/t^4 long-double ulps; series below 1.8.
LD ref_c3(LD t) {
  return t < 1.8L ? alternating_series(t, 1, 1, 5)
                  : (2 * t - 3 * std::sin(t) + t * std::cos(t)) / (2 * std::pow(t, 5));
}

struct Helper {
  std::string name;
  std::function<double(double)> f;
  std::function<LD(LD)> ref;
  double threshold;  // where the helper switches branch
  double t_max;      // sweep [0, t_max)
};

std::vector<Helper> helpers() {
  namespace s3 = so3_series;
  namespace s6 = se3_series;
  const double two_pi = 6.283185307179586;
  return {
      {"sinc", s3::sinc, ref_sinc, lievi::tol::small_angle, two_pi},
      {"one_minus_cos_over_t2", s3::one_minus_cos_over_t2, ref_one_minus_cos, 2 * lievi::tol::small_angle,
       two_pi},
      {"t_minus_sin_over_t3", s3::t_minus_sin_over_t3, ref_t_minus_sin, lievi::tol::small_angle_t_minus_sin,
       two_pi},
      {"one_minus_cos_minus_half_t_sin_over_t4", s3::one_minus_cos_minus_half_t_sin_over_t4,
       ref_beta_numerator, lievi::tol::small_angle_beta_numerator, two_pi},
      {"t2_plus_t_sin_minus_4_one_minus_cos_over_t6", s3::t2_plus_t_sin_minus_4_one_minus_cos_over_t6,
       ref_gamma_numerator, lievi::tol::small_angle_gamma_numerator, two_pi},
      // beta and gamma have a pole at 2 pi: sweep to 6 (|t - 2 pi| > 0.28).
      {"beta", s3::beta, ref_beta, lievi::tol::small_angle, 6.0},
      {"gamma", s3::gamma, ref_gamma, lievi::tol::small_angle_gamma, 6.0},
      {"se3_c2", s6::t2_plus_2cos_minus_2_over_2t4, ref_c2, lievi::tol::small_angle_se3_c2, two_pi},
      {"se3_c3", s6::two_t_minus_3sin_plus_t_cos_over_2t5, ref_c3, lievi::tol::small_angle_se3_c3, two_pi},
  };
}

double rel_err(const Helper& h, double t) {
  const LD r = h.ref(t);
  return static_cast<double>(std::fabs((static_cast<LD>(h.f(t)) - r) / r));
}

TEST(SmallAngleHelpers, AtBelowAndAboveTheirThreshold) {
  for (const auto& h : helpers()) {
    const double c = h.threshold;
    for (double t : {0.0, 1e-8, 1e-4, 0.1, c * (1 - 1e-12), std::nextafter(c, 0.0), c,
                     std::nextafter(c, 10.0), c * (1 + 1e-12), 0.5 * c, 1.5 * c}) {
      if (t >= h.t_max) continue;
      EXPECT_LT(rel_err(h, t), kHelperTol) << h.name << " at t = " << t << " (threshold " << c << ")";
    }
  }
}

TEST(SmallAngleHelpers, DenseSweep) {
  for (const auto& h : helpers()) {
    double worst = 0.0, at = 0.0;
    const int n = 20000;
    for (int i = 0; i < n; ++i) {
      const double t = h.t_max * i / n;
      const double e = rel_err(h, t);
      if (!(e <= worst)) {
        worst = e;
        at = t;
      }
    }
    EXPECT_LT(worst, kHelperTol) << h.name << ": worst relative error " << worst / kUlp
                                 << " ulps at t = " << at;
    RecordProperty(h.name + "_max_ulps", std::to_string(worst / kUlp));
  }
}

TEST(SmallAngleHelpers, ContinuousAcrossThresholds) {
  // The two branches agree at the switch to round-off: no jump larger than a few ulps of the value.
  for (const auto& h : helpers()) {
    const double c = h.threshold;
    const double below = h.f(std::nextafter(c, 0.0)), above = h.f(c);
    EXPECT_LT(std::abs(above - below), kHelperTol * std::abs(above)) << h.name;
  }
}

// --- Bernoulli table
// --------------------------------------------------------------------------------------------

TEST(Bernoulli, TableMatchesExactFractions) {
  EXPECT_EQ(bernoulli::over_factorial[0], 1.0);
  EXPECT_EQ(bernoulli::over_factorial[1], -0.5);
  for (int n = 1; n <= 15; ++n) {
    const LD exact = kB2n[n - 1] / factorial(2 * n);
    // One rounding from long double to double.
    EXPECT_LT(std::fabs((bernoulli::over_factorial[2 * n] - exact) / exact), 1.0 * kUlp) << "B_" << 2 * n;
    EXPECT_EQ(bernoulli::over_factorial[2 * n + 1], 0.0);
  }
}

TEST(Bernoulli, TableSatisfiesTheGeneratingFunction) {
  // sum_k b_k t^k = t/(e^t - 1) for |t| < 2 pi: at t = 1 and t = -3 the 64-term sum is exact to < 1e-19
  // (terms ~ (t/2pi)^k), so the tolerance is round-off of a sum of O(1) terms.
  for (LD t : {1.0L, -3.0L}) {
    LD s = 0, tk = 1;
    for (int k = 0; k <= bernoulli::max_order; ++k, tk *= t)
      s += static_cast<LD>(bernoulli::over_factorial[k]) * tk;
    const LD exact = t / (std::exp(t) - 1);
    EXPECT_LT(std::fabs(static_cast<double>((s - exact) / exact)), 1e-15) << "t = " << static_cast<double>(t);
  }
}

TEST(Bernoulli, LargeIndicesMatchTheRecurrence) {
  // sum_{j=0}^{k} b_j / (k + 1 - j)! = 0 for k >= 1 checks the zeta-based entries (k > 30) against the exact
  // ones: the sum's terms are up to ~|b_k| (2pi)^2 / 6 in size, so "0" means below ~1e-14 |b_k|.
  for (int k = 31; k <= bernoulli::max_order; k += 2) {
    LD s = 0, scale = 0;
    for (int j = 0; j <= k; ++j) {
      const LD term = static_cast<LD>(bernoulli::over_factorial[j]) / factorial(k + 1 - j);
      s += term;
      scale = std::max(scale, std::fabs(term));
    }
    EXPECT_LT(static_cast<double>(std::fabs(s) / scale), 1e-14) << "k = " << k;
  }
}

// --- dexp series
// ------------------------------------------------------------------------------------------------

template <class G>
std::vector<typename G::Algebra> series_samples() {
  std::vector<typename G::Algebra> out;
  for (const auto& s : algebra_samples<G>(20, 99)) out.push_back(s.x);
  return out;
}

TEST(DexpSeries, OrderTwoIsThePapersExp2) {
  // Same polynomial I - ½ ad + ad^2/12 evaluated in a different order: round-off only (entries O(10)).
  for (const auto& x : series_samples<SO3>())
    EXPECT_LT(max_abs(dexp_inv_series<SO3>(x, 2) - Exp2<SO3>::dtau_inv(x)), 1e-14) << x.transpose();
  for (const auto& x : series_samples<SE3>())
    EXPECT_LT(max_abs(dexp_inv_series<SE3>(x, 2) - Exp2<SE3>::dtau_inv(x)), 1e-13) << x.transpose();
}

TEST(DexpSeries, OrderZeroAndOne) {
  const Vec3 x(0.3, -0.2, 0.5);
  EXPECT_EQ(dexp_inv_series<SO3>(x, 0), Mat3::Identity());
  EXPECT_LT(max_abs(dexp_inv_series<SO3>(x, 1) - (Mat3::Identity() - 0.5 * hat(x))), 1e-16);
  EXPECT_LT(max_abs(dexp_series<SO3>(x, 1) - (Mat3::Identity() + 0.5 * hat(x))), 1e-16);
  EXPECT_THROW(dexp_inv_series<SO3>(x, -1), lievi::invalid_argument);
  EXPECT_THROW(dexp_inv_series<SO3>(x, bernoulli::max_order + 1), lievi::invalid_argument);
  EXPECT_THROW(dexp_series<SO3>(x, -1), lievi::invalid_argument);
}

template <class G>
void expect_series_converge_to_closed_forms() {
  for (const auto& x : series_samples<G>()) {
    // |omega| <= 3 < 2 pi: the dexp^{-1} series converges like (|omega|/2pi)^k (k = 64: < 1e-19), dexp's like
    // |ad|^k/(k+1)! (k = 40: < 1e-25). Round-off of the sums of O(10) terms: 1e-12 bounds it.
    const double e_inv = max_abs(dexp_inv_series<G>(x, bernoulli::max_order) - Exp<G>::dtau_inv(x));
    const double e_dir = max_abs(dexp_series<G>(x, 40) - Exp<G>::dtau(x));
    EXPECT_LT(e_inv, 1e-12) << x.transpose();
    EXPECT_LT(e_dir, 1e-12) << x.transpose();
    // The truncation error decreases with the order (measured, not assumed): orders 4 < 8 < 16 for |omega| >
    // 0.5.
    if (x.template head<3>().norm() > 0.5) {
      const double e4 = max_abs(dexp_inv_series<G>(x, 4) - Exp<G>::dtau_inv(x));
      const double e8 = max_abs(dexp_inv_series<G>(x, 8) - Exp<G>::dtau_inv(x));
      const double e16 = max_abs(dexp_inv_series<G>(x, 16) - Exp<G>::dtau_inv(x));
      EXPECT_LT(e8, e4) << x.transpose();
      EXPECT_LT(e16, e8) << x.transpose();
    }
  }
}

TEST(DexpSeries, HighOrdersConvergeToTheClosedFormsOnSO3) {
  expect_series_converge_to_closed_forms<SO3>();
}
TEST(DexpSeries, HighOrdersConvergeToTheClosedFormsOnSE3) {
  expect_series_converge_to_closed_forms<SE3>();
}

TEST(DexpSeries, SE3QMatrixIsTheLowerLeftBlockOfTheSeries) {
  // Q(omega, v) against the entire series sum ad^k/(k+1)! to order 40 (the Q closed form is independent of
  // it), also just below/above the c_2 and c_3 thresholds.
  std::mt19937_64 rng(3);
  std::normal_distribution<double> normal(0.0, 1.0);
  for (double t :
       {1e-6, 0.3, std::nextafter(lievi::tol::small_angle_se3_c2, 0.0), lievi::tol::small_angle_se3_c2,
        std::nextafter(lievi::tol::small_angle_se3_c3, 0.0), lievi::tol::small_angle_se3_c3, 3.1}) {
    Vec3 omega(normal(rng), normal(rng), normal(rng));
    omega *= t / omega.norm();
    const Vec3 v(normal(rng), normal(rng), normal(rng));
    const Mat6 S = dexp_series<SE3>(SE3::join(omega, v), 40);
    // Round-off of the series (terms up to |ad|^k/(k+1)! with |ad| ~ 5): 1e-13.
    EXPECT_LT(max_abs(Exp<SE3>::Q(omega, v) - S.bottomLeftCorner<3, 3>()), 1e-13) << "t = " << t;
  }
}

}  // namespace
