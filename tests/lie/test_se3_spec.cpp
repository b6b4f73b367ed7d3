// The SE(3) Lie-group verification suite (the formulas of docs/theory/beam.md "SE(3) formulas" and
// docs/conventions.md), for Cayley<SE3>, Exp<SE3> and Exp2<SE3>. "Spec" in this file's names and printouts is
// the verification table of the independent prototype (docs/theory/beam.md, last paragraph): its sampling,
// 2000 x in se(3) with |x| log-uniform in [1e-6, 2.5] and a uniform direction in R^6 (the "spec" set), plus
// 2000 with |omega| and |v| drawn independently log-uniform in [1e-6, 2.5] (the "mixed" set: tiny rotation
// with O(1) translation and vice versa, which is where the small-angle branches of Q and J_l^{-1} meet large
// v).
//
// Every check compares the code against an independent definition written here, evaluated in long double (or in
// 100-digit binary floating point for the scalar coefficient functions):
//   - the 4x4 matrix Cayley (I - X/2)^{-1} (I + X/2) and its inverse 2 (G + I)^{-1} (G - I) by LU solves;
//   - the matrix exponential (Eigen's unsupported MatrixFunctions, Pade + scaling and squaring, in long double);
//   - ad_x and Ad_g built column by column from the matrix commutator and the conjugation g hat(y) g^{-1};
//   - dcay^{-1}_x y = vee((I - X/2) Y (I + X/2)) and dcay_x y = vee((I - X/2)^{-1} Y (I + X/2)^{-1});
//   - dexp_x = sum ad^k/(k+1)!, dexp^{-1}_x = sum b_k ad^k with b_k = B_k/k! from the recurrence
//     sum_{j<=k} b_j/(k+1-j)! = 0 evaluated in 50-digit arithmetic (independent of lievi/lie/bernoulli.hpp);
//   - central finite differences of tau(x + e y) tau(x)^{-1} and of tau^{-1}(tau(e y) tau(x));
//   - the pairings <ad*_x mu, y> = <mu, [x, y]>, <Ad*_g mu, y> = <mu, Ad_g y>, the Jacobi identity,
//     dtau^{-1}_{-x} = dtau^{-1}_x Ad_{tau(x)} and its dual, the first-order expansions
//     (docs/theory/beam.md);
//   - BCH: tau^{-1}(tau(a) tau(b)) - (a + b + ½[a, b]) = O(|a|^3) with the ratio bounded;
//   - the scalar coefficient functions against closed forms in 100-digit arithmetic for theta in [1e-8, 3];
//   - the Cayley singularity: cay^{-1} of a rotation by ~pi (docs/theory/beam.md: refused with a diagnostic
//     if 1 + tr R < 1e-8).
// Each check prints its worst error over both sets; the summary table at the end of the run lists them next to the
// prototype's measured values (double precision).
//
// Findings at the time of writing (details in the tests):
//   - CayleySingularity_*: Cayley<SO3>::tau_inv (and so Cayley<SE3>::tau_inv) has no guard for 1 + tr R < 1e-8 and
//     returns finite wrong values there (0, the identity, for an exactly symmetric rotation by pi). These two tests
//     fail until the guard of docs/theory/beam.md "SE(3) formulas" exists (a throw or a non-finite result
//     both satisfy them).
//   - Row11 prints the accuracy of the prototype's own small-angle recipe: its D (four-term series below 0.1,
//     direct form above) reaches 1.1e-13 just above 0.1, beyond the prototype's "<= 2e-14" claim; the code
//     does not follow that recipe (its thresholds are higher) and is within 3 ulps everywhere.
//
// Tolerances. Round-off checks: quantities are a few 4x4/6x6 products of entries O(1) (|x| <= 2.5, so rotations,
// translations and ad entries are O(1)); measured worst cases are a few 1e-15, and 1e-13 (the prototype's
// tolerance for its first row) is kept for all of them: a margin of > 20 over round-off and 1e10 below the
// O(1e-3..1) error of any wrong coefficient at the larger samples. Finite differences (eps = 1e-6): round-off
// eps_mach/eps ~ 1e-10, truncation eps^2 |f'''|/6 ~ 1e-12; the prototype's 1e-7 relative. Scalar
// coefficients: its 2e-14 relative.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <boost/multiprecision/cpp_bin_float.hpp>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <functional>
#include <limits>
#include <numbers>
#include <random>
#include <sstream>
#include <string>
#include <unsupported/Eigen/MatrixFunctions>
#include <utility>
#include <vector>

#include "lie_test_util.hpp"
#include "lievi/core/tolerances.hpp"
#include "lievi/lie/concepts.hpp"
#include "lievi/lie/retraction/cayley.hpp"
#include "lievi/lie/retraction/exp.hpp"
#include "lievi/lie/se3.hpp"
#include "lievi/lie/so3.hpp"

namespace {

using namespace lievi::lie;
using lievi::lie::testing::max_abs;

using LD = long double;
using V3L = Eigen::Matrix<LD, 3, 1>;
using V6L = Eigen::Matrix<LD, 6, 1>;
using M3L = Eigen::Matrix<LD, 3, 3>;
using M4L = Eigen::Matrix<LD, 4, 4>;
using M6L = Eigen::Matrix<LD, 6, 6>;

constexpr double kTol = 1e-13;    // round-off checks (prototype: 1e-13 for the Cayley closed form)
constexpr double kFdStep = 1e-6;  // the prototype's epsilon
constexpr double kFdTol = 1e-7;   // the prototype's FD tolerance (relative)
constexpr double kCoefTol = 2e-14;  // prototype: small-angle coefficients <= 2e-14 relative
constexpr double kUlp = std::numeric_limits<double>::epsilon();

// --- summary of measured errors, printed at the end of the run ------------------------------------------

struct Row {
  std::string check, spec;
  double spec_set, mixed_set, tol;
};
std::vector<Row>& rows() {
  static std::vector<Row> r;
  return r;
}
void record(const std::string& check, const std::string& spec, double spec_set, double mixed_set, double tol) {
  rows().push_back({check, spec, spec_set, mixed_set, tol});
  std::printf("[ se3-spec ] %-62s spec-set %9.2e  mixed-set %9.2e  (spec: %s; tol %.0e)\n", check.c_str(),
              spec_set, mixed_set, spec.c_str(), tol);
  std::ostringstream w;
  w << std::scientific << std::max(spec_set, mixed_set);
  std::string key = check;
  std::replace_if(key.begin(), key.end(), [](char c) { return !std::isalnum(static_cast<unsigned char>(c)); }, '_');
  ::testing::Test::RecordProperty("max_err_" + key, w.str());
}
class Summary : public ::testing::Environment {
 public:
  void TearDown() override {
    if (rows().empty()) return;
    std::printf("\n=== SE(3): measured max errors (this build) vs the prototype's ===\n");
    std::printf("%-62s %10s %10s %10s   %s\n", "check", "spec-set", "mixed-set", "tol", "spec measured");
    for (const auto& r : rows())
      std::printf("%-62s %10.2e %10.2e %10.0e   %s\n", r.check.c_str(), r.spec_set, r.mixed_set, r.tol,
                  r.spec.c_str());
  }
};
[[maybe_unused]] ::testing::Environment* const kSummary = ::testing::AddGlobalTestEnvironment(new Summary);

// --- samples --------------------------------------------------------------------------------------------

/// One algebra element x with random companions (y, z directions/elements, mu a dual element), all fixed-seed.
struct Item {
  Vec6 x, y, z, mu;
};

Vec6 normal6(std::mt19937_64& rng) {
  std::normal_distribution<double> normal(0.0, 1.0);
  Vec6 v;
  for (int i = 0; i < 6; ++i) v(i) = normal(rng);
  return v;
}
Vec3 unit3(std::mt19937_64& rng) {
  std::normal_distribution<double> normal(0.0, 1.0);
  return Vec3(normal(rng), normal(rng), normal(rng)).normalized();
}
double log_uniform(std::mt19937_64& rng, double lo, double hi) {
  std::uniform_real_distribution<double> u(std::log(lo), std::log(hi));
  return std::exp(u(rng));
}

constexpr int kSamples = 2000;
constexpr double kMinMag = 1e-6, kMaxMag = 2.5;

/// The prototype's sampling: |x| log-uniform in [1e-6, 2.5], direction uniform on S^5.
const std::vector<Item>& spec_set() {
  static const std::vector<Item> s = [] {
    std::mt19937_64 rng(9101);
    std::vector<Item> out;
    for (int i = 0; i < kSamples; ++i) {
      Item it;
      it.x = log_uniform(rng, kMinMag, kMaxMag) * normal6(rng).normalized();
      it.y = normal6(rng);
      it.z = normal6(rng);
      it.mu = normal6(rng);
      out.push_back(it);
    }
    return out;
  }();
  return s;
}
/// |omega| and |v| independently log-uniform in [1e-6, 2.5].
const std::vector<Item>& mixed_set() {
  static const std::vector<Item> s = [] {
    std::mt19937_64 rng(9102);
    std::vector<Item> out;
    for (int i = 0; i < kSamples; ++i) {
      Item it;
      const double a = log_uniform(rng, kMinMag, kMaxMag), b = log_uniform(rng, kMinMag, kMaxMag);
      it.x = SE3::join(a * unit3(rng), b * unit3(rng));
      it.y = normal6(rng);
      it.z = normal6(rng);
      it.mu = normal6(rng);
      out.push_back(it);
    }
    return out;
  }();
  return s;
}

/// Worst error over a set, with the sample where it occurs (NaN counts as worst).
struct Worst {
  double err = -1.0;
  Vec6 at = Vec6::Zero();
  void add(double e, const Vec6& x) {
    if (!(e <= err)) {
      err = e;
      at = x;
    }
  }
};

/// Evaluates err(item) on both sets, expects the worst below tol, prints and records it.
template <class F>
void check(const std::string& name, const std::string& spec, double tol, const F& err) {
  Worst a, b;
  for (const auto& it : spec_set()) a.add(err(it), it.x);
  for (const auto& it : mixed_set()) b.add(err(it), it.x);
  EXPECT_LT(a.err, tol) << name << ": worst over the spec set at x = " << a.at.transpose();
  EXPECT_LT(b.err, tol) << name << ": worst over the mixed set at x = " << b.at.transpose();
  record(name, spec, a.err, b.err, tol);
}

// --- independent references (long double) ---------------------------------------------------------------

M3L hat3L(const V3L& w) {
  M3L W;
  W << 0, -w(2), w(1), w(2), 0, -w(0), -w(1), w(0), 0;
  return W;
}
M4L hat4L(const V6L& x) {
  M4L X = M4L::Zero();
  X.topLeftCorner<3, 3>() = hat3L(x.head<3>());
  X.topRightCorner<3, 1>() = x.tail<3>();
  return X;
}
/// vee of a 4x4 algebra matrix: skew part of the rotation block, last column.
V6L vee4L(const M4L& X) {
  V6L x;
  x << (X(2, 1) - X(1, 2)) / 2, (X(0, 2) - X(2, 0)) / 2, (X(1, 0) - X(0, 1)) / 2, X(0, 3), X(1, 3), X(2, 3);
  return x;
}
V6L L(const Vec6& x) { return x.cast<LD>(); }
M4L E(int j) { return hat4L(V6L::Unit(j)); }
const M4L I4 = M4L::Identity();
const M6L I6 = M6L::Identity();

template <class A, class B>
double diff(const Eigen::MatrixBase<A>& code, const Eigen::MatrixBase<B>& ref) {
  return static_cast<double>((code.template cast<LD>() - ref).cwiseAbs().maxCoeff());
}
template <class A>
double mabs(const Eigen::MatrixBase<A>& m) {
  return static_cast<double>(m.cwiseAbs().maxCoeff());
}

/// Matrix Cayley (I - X/2)^{-1} (I + X/2).
M4L cay_ref(const Vec6& x) {
  const M4L X = hat4L(L(x));
  return (I4 - X / 2).partialPivLu().solve(I4 + X / 2);
}
/// Inverse matrix Cayley 2 (G + I)^{-1} (G - I) (the factors commute).
V6L cay_inv_ref(const Mat4& G) {
  const M4L g = G.cast<LD>();
  return vee4L((g + I4).partialPivLu().solve(2 * (g - I4)));
}
/// Matrix exponential in long double.
M4L expm4(const Vec6& x) { return hat4L(L(x)).exp(); }
/// ad_x from the matrix commutator, column by column.
M6L ad_ref(const V6L& x) {
  const M4L X = hat4L(x);
  M6L A;
  for (int j = 0; j < 6; ++j) A.col(j) = vee4L(X * E(j) - E(j) * X);
  return A;
}
M6L ad_ref(const Vec6& x) { return ad_ref(L(x)); }
/// Ad_g from the conjugation g hat(y) g^{-1}, column by column.
M6L Ad_ref(const Mat4& G) {
  const M4L g = G.cast<LD>(), gi = g.inverse();
  M6L A;
  for (int j = 0; j < 6; ++j) A.col(j) = vee4L(g * E(j) * gi);
  return A;
}
/// dcay^{-1}_x y = vee((I - X/2) Y (I + X/2)) (matrix form).
M6L dcay_inv_ref(const V6L& x) {
  const M4L X = hat4L(x);
  M6L D;
  for (int j = 0; j < 6; ++j) D.col(j) = vee4L((I4 - X / 2) * E(j) * (I4 + X / 2));
  return D;
}
/// dcay_x y = vee((I - X/2)^{-1} Y (I + X/2)^{-1}): the derivative of the matrix Cayley, right-trivialised.
/// Derivation: d/de cay(X + eY) = ½ (I - X/2)^{-1} Y [(I - X/2)^{-1}(I + X/2) + I]; multiplying by
/// cay(X)^{-1} = (I + X/2)^{-1}(I - X/2) on the right and using that all functions of X commute gives
/// ½ (I - X/2)^{-1} Y (I + X/2)^{-1} [(I - X/2) + (I + X/2)] = (I - X/2)^{-1} Y (I + X/2)^{-1}.
M6L dcay_ref(const Vec6& x) {
  const M4L X = hat4L(L(x));
  const M4L P = (I4 - X / 2).inverse(), Q = (I4 + X / 2).inverse();
  M6L D;
  for (int j = 0; j < 6; ++j) D.col(j) = vee4L(P * E(j) * Q);
  return D;
}
/// sum_{k=0}^{50} ad^k/(k+1)!  (|ad_x| <= ~4 here: the omitted tail is < 1e-30).
M6L dexp_ref(const Vec6& x) {
  const M6L A = ad_ref(x);
  M6L term = I6, sum = I6;
  for (int k = 1; k <= 50; ++k) {
    term = (A * term) / static_cast<LD>(k + 1);
    sum += term;
  }
  return sum;
}

using BF50 = boost::multiprecision::cpp_bin_float_50;
using BF100 = boost::multiprecision::cpp_bin_float_100;

/// b_k = B_k/k! (B_1 = -1/2) from sum_{j=0}^{k} b_j/(k+1-j)! = 0, in 50 digits (the recurrence loses < 3 digits
/// per 10 steps to cancellation: far more than long double is left at k = 90).
constexpr int kBernoulliOrder = 90;
const std::array<LD, kBernoulliOrder + 1>& bernoulli_b() {
  static const auto b = [] {
    std::array<BF50, kBernoulliOrder + 2> fact{};
    fact[0] = 1;
    for (int k = 1; k <= kBernoulliOrder + 1; ++k) fact[k] = fact[k - 1] * k;
    std::array<BF50, kBernoulliOrder + 1> bb{};
    bb[0] = 1;
    for (int k = 1; k <= kBernoulliOrder; ++k) {
      BF50 s = 0;
      for (int j = 0; j < k; ++j) s += bb[j] / fact[k + 1 - j];
      bb[k] = -s;
    }
    std::array<LD, kBernoulliOrder + 1> out{};
    for (int k = 0; k <= kBernoulliOrder; ++k) out[k] = static_cast<LD>(bb[k]);
    return out;
  }();
  return b;
}
/// sum_{k=0}^{90} b_k ad_x^k (converges like k |v| (|omega|/2 pi)^k: < 1e-30 omitted for |omega| <= 3).
M6L dexp_inv_ref(const Vec6& x) {
  const auto& b = bernoulli_b();
  const M6L A = ad_ref(x);
  M6L power = I6, sum = I6;
  for (int k = 1; k <= kBernoulliOrder; ++k) {
    power = A * power;
    if (b[k] != 0) sum += b[k] * power;
  }
  return sum;
}

/// Central finite difference of the right-trivialised tangent: column j = vee((tau(x + e e_j) - tau(x - e e_j))
/// / (2 e) tau(x)^{-1}).
template <class R>
Mat6 fd_dtau(const Vec6& x) {
  const Mat4 gi = R::tau(x).inverse().matrix();
  Mat6 D;
  for (int j = 0; j < 6; ++j) {
    const Vec6 e = kFdStep * Vec6::Unit(j);
    const Mat4 dT = (R::tau(Vec6(x + e)).matrix() - R::tau(Vec6(x - e)).matrix()) / (2.0 * kFdStep);
    D.col(j) = SE3::vee(Mat4(dT * gi));
  }
  return D;
}
/// Central finite difference of delta(tau^{-1}(h)) for h(e) = tau(e y) tau(x) (delta h h^{-1} = dtau_0 y = y).
template <class R>
Mat6 fd_dtau_inv(const Vec6& x) {
  const SE3 g = R::tau(x);
  Mat6 D;
  for (int j = 0; j < 6; ++j) {
    const Vec6 e = kFdStep * Vec6::Unit(j);
    D.col(j) = (R::tau_inv(R::tau(e) * g) - R::tau_inv(R::tau(Vec6(-e)) * g)) / (2.0 * kFdStep);
  }
  return D;
}

// ================================================================================================================
// Row 1: Cayley closed form vs the 4x4 matrix Cayley.
TEST(SE3Spec, Row01_CayleyClosedFormIsTheMatrixCayley) {
  check("cay(x) closed form vs (I - X/2)^{-1}(I + X/2)", "1.8e-15 [1e-13]", kTol,
        [](const Item& s) { return diff(Cayley<SE3>::tau(s.x).matrix(), cay_ref(s.x)); });
  // It lands in SE(3): R^T R = I (a consequence, checked explicitly) and the last row is (0, 0, 0, 1).
  check("cay(x): R^T R - I", "-", kTol, [](const Item& s) {
    const Mat3 R = Cayley<SE3>::tau(s.x).rotation();
    return max_abs(R.transpose() * R - Mat3::Identity());
  });
}

// Row 2: cay(x) cay(-x) = e; cay^{-1}(cay(x)) = x (relative), and cay^{-1} vs the inverse matrix Cayley.
TEST(SE3Spec, Row02_CayleyInverse) {
  check("cay(x) cay(-x) - e", "1.8e-15", kTol, [](const Item& s) {
    return max_abs((Cayley<SE3>::tau(s.x) * Cayley<SE3>::tau(Vec6(-s.x))).matrix() - Mat4::Identity());
  });
  check("|cay^{-1}(cay(x)) - x| / |x|", "2.5e-15 rel.", kTol, [](const Item& s) {
    return (Cayley<SE3>::tau_inv(Cayley<SE3>::tau(s.x)) - s.x).norm() / s.x.norm();
  });
  check("cay^{-1}(g) vs 2 (G + I)^{-1}(G - I), relative", "-", kTol, [](const Item& s) {
    const SE3 g = Cayley<SE3>::tau(s.x);
    const V6L ref = cay_inv_ref(g.matrix());
    return static_cast<double>((L(Cayley<SE3>::tau_inv(g)) - ref).norm() / ref.norm());
  });
}

// Row 3: dcay dcay^{-1} = I; matrix forms of dcay^{-1} (and of dcay); duals are transposes.
TEST(SE3Spec, Row03_DcayAndItsInverse) {
  check("dcay_x dcay^{-1}_x - I", "1.4e-15", kTol, [](const Item& s) {
    return max_abs(Cayley<SE3>::dtau(s.x) * Cayley<SE3>::dtau_inv(s.x) - Mat6::Identity());
  });
  check("dcay^{-1}_x vs vee((I - X/2) Y (I + X/2))", "3.6e-15", kTol,
        [](const Item& s) { return diff(Cayley<SE3>::dtau_inv(s.x), dcay_inv_ref(L(s.x))); });
  check("dcay_x vs vee((I - X/2)^{-1} Y (I + X/2)^{-1})", "-", kTol,
        [](const Item& s) { return diff(Cayley<SE3>::dtau(s.x), dcay_ref(s.x)); });
  check("dcay*, (dcay^{-1})* are the transposes", "-", kTol, [](const Item& s) {
    return std::max(max_abs(Cayley<SE3>::dtau_star(s.x) - Cayley<SE3>::dtau(s.x).transpose()),
                    max_abs(Cayley<SE3>::dtau_inv_star(s.x) - Cayley<SE3>::dtau_inv(s.x).transpose()));
  });
}

// Row 4: dcay vs central FD of tau(x + e y) tau(x)^{-1} (e = 1e-6), relative; and dcay^{-1} as the tangent of
// cay^{-1}.
TEST(SE3Spec, Row04_DcayIsTheRightTrivialisedTangent) {
  check("dcay vs FD of tau(x+ey)tau(x)^{-1}, rel.", "1.1e-9 rel. [1e-7]", kFdTol, [](const Item& s) {
    const Mat6 D = Cayley<SE3>::dtau(s.x);
    return max_abs(fd_dtau<Cayley<SE3>>(s.x) - D) / max_abs(D);
  });
  check("dcay^{-1} vs FD of cay^{-1}(cay(ey) cay(x)), rel.", "-", kFdTol, [](const Item& s) {
    const Mat6 D = Cayley<SE3>::dtau_inv(s.x);
    return max_abs(fd_dtau_inv<Cayley<SE3>>(s.x) - D) / max_abs(D);
  });
}

// Row 5: closed-form (dcay^{-1}_x)^* mu; its Jacobian D(x, mu) vs FD.
TEST(SE3Spec, Row05_DcayInvStarAndItsJacobian) {
  check("(dcay^{-1}_x)^* mu closed form vs matrix form^T mu", "7e-15", kTol, [](const Item& s) {
    return diff(Cayley<SE3>::dtau_inv_star_apply(s.x, s.mu), V6L(dcay_inv_ref(L(s.x)).transpose() * L(s.mu)));
  });
  // The prototype's check: FD (double, e = 1e-6) of the code's closed form, relative to max|D|.
  check("D(x, mu) vs FD of (dcay^{-1}_x)^* mu, rel.", "2.2e-9 rel.", kFdTol, [](const Item& s) {
    const Mat6 D = Cayley<SE3>::J_dtau_inv_star_x(s.x, s.mu);
    Mat6 Dfd;
    for (int j = 0; j < 6; ++j) {
      const Vec6 e = kFdStep * Vec6::Unit(j);
      Dfd.col(j) = (Cayley<SE3>::dtau_inv_star_apply(Vec6(s.x + e), s.mu) -
                    Cayley<SE3>::dtau_inv_star_apply(Vec6(s.x - e), s.mu)) /
                   (2.0 * kFdStep);
    }
    return max_abs(D - Dfd) / max_abs(D);
  });
  // Independent and exact: x -> dcay^{-1}_x is quadratic in x (Y - ½[X, Y] - ¼ X Y X), so the central difference
  // of the long-double matrix form with any step h is its exact derivative (h = 1: no truncation, no
  // amplification of round-off).
  check("D(x, mu) vs exact central difference of the matrix form", "-", kTol, [](const Item& s) {
    const Mat6 D = Cayley<SE3>::J_dtau_inv_star_x(s.x, s.mu);
    M6L Dref;
    for (int j = 0; j < 6; ++j) {
      const V6L e = V6L::Unit(j);
      Dref.col(j) = (dcay_inv_ref(V6L(L(s.x) + e)).transpose() * L(s.mu) -
                     dcay_inv_ref(V6L(L(s.x) - e)).transpose() * L(s.mu)) /
                    2;
    }
    return diff(D, Dref);
  });
  // At x = 0, D(0, mu) = -½ C(mu) (the Newton approximation of docs/theory/beam.md is exact there), for every
  // mu in the sets.
  check("D(0, mu) + ½ C(mu)", "exact at x = 0", kTol, [](const Item& s) {
    return max_abs(Cayley<SE3>::J_dtau_inv_star_x(Vec6::Zero(), s.mu) + 0.5 * SE3::J_ad_star_x(s.mu));
  });
}

// Row 6: dtau^{-1}_{-x} = dtau^{-1}_x Ad_{tau(x)} and its dual, for Cayley and exp; the first-order
// expansions (dtau^{-1}_{±x})^* = I ∓ ½ ad*_x + O(|x|^2), Ad*_{tau(B)} = I + ad*_B + O(|B|^2) (ratios bounded).
template <class R>
void identities_of(const std::string& name) {
  check(name + ": dtau^{-1}_{-x} - dtau^{-1}_x Ad_{tau(x)}", "3.6e-15", kTol, [](const Item& s) {
    return max_abs(R::dtau_inv(Vec6(-s.x)) - R::dtau_inv(s.x) * R::tau(s.x).Ad());
  });
  check(name + ": (dtau^{-1}_{-x})^* - Ad*_{tau(x)} (dtau^{-1}_x)^*", "-", kTol, [](const Item& s) {
    return max_abs(R::dtau_inv_star(Vec6(-s.x)) - Ad_star_matrix(R::tau(s.x)) * R::dtau_inv_star(s.x));
  });
  // The inner-loop form: closed-form Ad* applied to the fused dual (no matrices).
  check(name + ": (dtau^{-1}_{-x})^* mu - Ad*_{tau(x)}((dtau^{-1}_x)^* mu)", "-", kTol, [](const Item& s) {
    return (R::dtau_inv_star_apply(Vec6(-s.x), s.mu) - Ad_star(R::tau(s.x), R::dtau_inv_star_apply(s.x, s.mu)))
        .cwiseAbs()
        .maxCoeff();
  });
  // Ratios |remainder| / |x|^2 in the asymptotic regime |x| <= 0.1 (elsewhere 0). The second-order terms have
  // coefficients <= ½ |ad_x|^2 / |x|^2 <= 1 (|ad_x| <= sqrt(2) |x|), so 2 bounds them while an O(|x|) error
  // (a wrong first-order coefficient) would give a ratio >= 5 at |x| = 0.1 and 5e5 at 1e-6.
  constexpr double kRatio = 2.0;
  auto small = [](const Item& s) { return s.x.norm() <= 0.1; };
  check(name + ": |(dtau^{-1}_x)^* - (I - ½ad*_x)| / |x|^2", "O(|x|^2)", kRatio, [&](const Item& s) {
    if (!small(s)) return 0.0;
    return diff(R::dtau_inv_star(s.x), M6L(I6 - ad_ref(s.x).transpose() / 2)) / s.x.squaredNorm();
  });
  check(name + ": |(dtau^{-1}_{-x})^* - (I + ½ad*_x)| / |x|^2", "O(|x|^2)", kRatio, [&](const Item& s) {
    if (!small(s)) return 0.0;
    return diff(R::dtau_inv_star(Vec6(-s.x)), M6L(I6 + ad_ref(s.x).transpose() / 2)) / s.x.squaredNorm();
  });
  check(name + ": |Ad*_{tau(x)} - (I + ad*_x)| / |x|^2", "O(|x|^2)", kRatio, [&](const Item& s) {
    if (!small(s)) return 0.0;
    return diff(Ad_star_matrix(R::tau(s.x)), M6L(I6 + ad_ref(s.x).transpose())) / s.x.squaredNorm();
  });
}
TEST(SE3Spec, Row06_DtauInvOfMinusX_Cayley) { identities_of<Cayley<SE3>>("cay"); }
TEST(SE3Spec, Row06_DtauInvOfMinusX_Exp) { identities_of<Exp<SE3>>("exp"); }

// Row 7: Ad_{exp x} = exp(ad_x); exp vs expm; log exp x = x (|omega| < 3).
TEST(SE3Spec, Row07_ExpAndLog) {
  check("Ad_{exp x} vs expm(ad_x)", "5e-15", kTol,
        [](const Item& s) { return diff(Exp<SE3>::tau(s.x).Ad(), M6L(ad_ref(s.x).exp())); });
  check("exp(x) vs expm(hat x)", "2e-15", kTol,
        [](const Item& s) { return diff(Exp<SE3>::tau(s.x).matrix(), expm4(s.x)); });
  check("log(exp x) - x", "1.2e-14", kTol,
        [](const Item& s) { return (Exp<SE3>::tau_inv(Exp<SE3>::tau(s.x)) - s.x).cwiseAbs().maxCoeff(); });
  check("|log(exp x) - x| / |x|", "-", kTol,
        [](const Item& s) { return (Exp<SE3>::tau_inv(Exp<SE3>::tau(s.x)) - s.x).norm() / s.x.norm(); });
  // |omega| up to 3 (beyond the sets' 2.5): 500 samples with |omega| uniform in [2.5, 3), |v| log-uniform.
  std::mt19937_64 rng(9103);
  std::uniform_real_distribution<double> u(2.5, 3.0);
  double worst = -1.0, worst_expm = -1.0;
  for (int i = 0; i < 500; ++i) {
    const Vec6 x = SE3::join(u(rng) * unit3(rng), log_uniform(rng, kMinMag, kMaxMag) * unit3(rng));
    worst = std::max(worst, (Exp<SE3>::tau_inv(Exp<SE3>::tau(x)) - x).cwiseAbs().maxCoeff());
    worst_expm = std::max(worst_expm, diff(Exp<SE3>::tau(x).matrix(), expm4(x)));
  }
  EXPECT_LT(worst, kTol);
  EXPECT_LT(worst_expm, kTol);
  record("log(exp x) - x, |omega| in [2.5, 3)  (both columns: same set)", "1.2e-14 (|w| < 3)", worst, worst, kTol);
  record("exp(x) vs expm, |omega| in [2.5, 3)  (both columns: same set)", "-", worst_expm, worst_expm, kTol);
}

// Row 8: dexp vs sum ad^k/(k+1)!; dexp^{-1} vs the Bernoulli series; dexp FD; plus dexp dexp^{-1} = I,
// dexp^{-1} as the tangent of log, the fused dual; Exp2<SE3> (the paper's order-2 truncation).
TEST(SE3Spec, Row08_Dexp) {
  check("dexp vs sum ad^k/(k+1)!", "4e-15", kTol, [](const Item& s) { return diff(Exp<SE3>::dtau(s.x), dexp_ref(s.x)); });
  check("dexp^{-1} vs Bernoulli series sum b_k ad^k", "4e-15", kTol,
        [](const Item& s) { return diff(Exp<SE3>::dtau_inv(s.x), dexp_inv_ref(s.x)); });
  check("dexp vs FD of exp(x+ey)exp(x)^{-1}, rel.", "9e-10 rel.", kFdTol, [](const Item& s) {
    const Mat6 D = Exp<SE3>::dtau(s.x);
    return max_abs(fd_dtau<Exp<SE3>>(s.x) - D) / max_abs(D);
  });
  check("dexp^{-1} vs FD of log(exp(ey) exp(x)), rel.", "-", kFdTol, [](const Item& s) {
    const Mat6 D = Exp<SE3>::dtau_inv(s.x);
    return max_abs(fd_dtau_inv<Exp<SE3>>(s.x) - D) / max_abs(D);
  });
  check("dexp_x dexp^{-1}_x - I", "-", kTol, [](const Item& s) {
    return max_abs(Exp<SE3>::dtau(s.x) * Exp<SE3>::dtau_inv(s.x) - Mat6::Identity());
  });
  check("(dexp^{-1}_x)^* mu fused vs Bernoulli series^T mu", "-", kTol, [](const Item& s) {
    return diff(Exp<SE3>::dtau_inv_star_apply(s.x, s.mu), V6L(dexp_inv_ref(s.x).transpose() * L(s.mu)));
  });
  check("dexp*, (dexp^{-1})* are the transposes", "-", kTol, [](const Item& s) {
    return std::max(max_abs(Exp<SE3>::dtau_star(s.x) - Exp<SE3>::dtau(s.x).transpose()),
                    max_abs(Exp<SE3>::dtau_inv_star(s.x) - Exp<SE3>::dtau_inv(s.x).transpose()));
  });
}

TEST(SE3Spec, Row08_Exp2) {
  // tau and tau_inv are exp and log, bit for bit.
  check("exp2: tau, tau_inv are Exp<SE3>'s (bitwise)", "-", 1e-300, [](const Item& s) {
    const SE3 g = Exp<SE3>::tau(s.x);
    return std::max(max_abs(Exp2<SE3>::tau(s.x).matrix() - g.matrix()),
                    (Exp2<SE3>::tau_inv(g) - Exp<SE3>::tau_inv(g)).cwiseAbs().maxCoeff());
  });
  check("exp2: dtau^{-1} vs I - ½ad + ad^2/12", "docs/theory/beam.md", kTol, [](const Item& s) {
    const M6L A = ad_ref(s.x);
    return diff(Exp2<SE3>::dtau_inv(s.x), M6L(I6 - A / 2 + A * A / 12));
  });
  check("exp2: dtau dtau^{-1} - I", "-", kTol, [](const Item& s) {
    return max_abs(Exp2<SE3>::dtau(s.x) * Exp2<SE3>::dtau_inv(s.x) - Mat6::Identity());
  });
  check("exp2: duals are the transposes", "-", kTol, [](const Item& s) {
    return std::max(max_abs(Exp2<SE3>::dtau_star(s.x) - Exp2<SE3>::dtau(s.x).transpose()),
                    max_abs(Exp2<SE3>::dtau_inv_star(s.x) - Exp2<SE3>::dtau_inv(s.x).transpose()));
  });
  // Truncation: dexp^{-1} - exp2's = -(b_4 ad^4 + b_6 ad^6 + ...), |b_4| = 1/720 and |ad_x| <= sqrt(2)|x|, so the
  // ratio to |x|^4 is <= 4/720 + O(|x|^2) ~ 0.006 (+ 0.002 at |x| = 2.5); a wrong ad^2 coefficient would give a ratio
  // ~ 1/|x|^2 (1e12 at 1e-6).
  // Evaluated for |x| >= 1e-2 (below, the round-off of ~1e-16 divided by |x|^4 dominates the ratio).
  check("exp2: |dtau^{-1} - dexp^{-1}| / |x|^4, |x| >= 1e-2", "O(|x|^4) (b_4 = -1/720)", 0.02, [](const Item& s) {
    if (s.x.norm() < 1e-2) return 0.0;
    return diff(Exp2<SE3>::dtau_inv(s.x), dexp_inv_ref(s.x)) / std::pow(s.x.norm(), 4);
  });
  // The identity dtau^{-1}_{-x} = dtau^{-1}_x Ad_{tau(x)} is claimed for Cayley and exp only; for exp2 it
  // fails at O(|x|^5): (I + ½A + A^2/12) - (I - ½A + A^2/12) e^A = -A^5/720 + O(A^6) (the A^3 and A^4 terms cancel).
  // Measured here (ratio to |x|^5, |x| <= 0.5) so that an integrator relying on it with exp2 knows the size.
  check("exp2: |dtau^{-1}_{-x} - dtau^{-1}_x Ad_{tau(x)}| / |x|^5, 1e-2<=|x|<=0.5", "not claimed (O(|x|^5)/720)", 0.02,
        [](const Item& s) {
          if (s.x.norm() > 0.5 || s.x.norm() < 1e-2) return 0.0;  // below 1e-2 round-off / |x|^5 dominates
          return max_abs(Exp2<SE3>::dtau_inv(Vec6(-s.x)) - Exp2<SE3>::dtau_inv(s.x) * Exp2<SE3>::tau(s.x).Ad()) /
                 std::pow(s.x.norm(), 5);
        });
}

// Row 9: pairings <ad*_x mu, y> = <mu, [x, y]>, <Ad*_g mu, y> = <mu, Ad_g y>; Jacobi; and the matrices ad,
// Ad, C(mu) and the derived operations of concepts.hpp against the independent definitions.
TEST(SE3Spec, Row09_PairingsAndJacobi) {
  auto bracket_ref = [](const Vec6& x, const Vec6& y) {
    const M4L X = hat4L(L(x)), Y = hat4L(L(y));
    return V6L(vee4L(X * Y - Y * X));
  };
  check("<ad*_x mu, y> - <mu, [x, y]>", "1e-14", kTol, [&](const Item& s) {
    return static_cast<double>(std::fabs(L(SE3::ad_star(s.x, s.mu)).dot(L(s.y)) - L(s.mu).dot(bracket_ref(s.x, s.y))));
  });
  check("<Ad*_g mu, y> - <mu, Ad_g y>, g = exp(x)", "7e-15", kTol, [](const Item& s) {
    const SE3 g = Exp<SE3>::tau(s.x);
    const M4L G = g.matrix().cast<LD>();
    const LD rhs = L(s.mu).dot(vee4L(G * hat4L(L(s.y)) * G.inverse()));
    return static_cast<double>(std::fabs(L(Ad_star(g, s.mu)).dot(L(s.y)) - rhs));
  });
  check("<Ad*_g mu, y> - <mu, Ad_g y>, g = exp(x) with |p| ~ 5", "-", kTol, [](const Item& s) {
    const SE3 g(Exp<SO3>::tau(s.x.head<3>()).matrix(), Vec3(2.0 * s.z.tail<3>()));
    const M4L G = g.matrix().cast<LD>();
    const LD rhs = L(s.mu).dot(vee4L(G * hat4L(L(s.y)) * G.inverse()));
    return static_cast<double>(std::fabs(L(Ad_star(g, s.mu)).dot(L(s.y)) - rhs));
  });
  check("Jacobi identity (code's bracket)", "1e-16", kTol, [](const Item& s) {
    const Vec6 &x = s.x, &y = s.y, &z = s.z;
    return (bracket<SE3>(x, bracket<SE3>(y, z)) + bracket<SE3>(y, bracket<SE3>(z, x)) +
            bracket<SE3>(z, bracket<SE3>(x, y)))
        .cwiseAbs()
        .maxCoeff();
  });
  check("ad_x vs matrix commutator; ad*_x mu = C(mu) x", "-", kTol, [](const Item& s) {
    return std::max(diff(SE3::ad(s.x), ad_ref(s.x)),
                    diff(SE3::J_ad_star_x(s.mu) * s.x, V6L(ad_ref(s.x).transpose() * L(s.mu))));
  });
  check("Ad_g vs conjugation; Ad*_g, Ad*_{g^-1} closed forms", "-", kTol, [](const Item& s) {
    const SE3 g = Cayley<SE3>::tau(s.x);
    const M6L A = Ad_ref(g.matrix()), Ai = Ad_ref(g.inverse().matrix());
    return std::max({diff(g.Ad(), A), diff(Ad_star(g, s.mu), V6L(A.transpose() * L(s.mu))),
                     diff(Ad_star_inverse(g, s.mu), V6L(Ai.transpose() * L(s.mu))),
                     diff(Ad_star_matrix(g), M6L(A.transpose()))});
  });
  check("between(a, b) = a^{-1} b, a = cay(x), b = exp(y)", "-", kTol, [](const Item& s) {
    const SE3 a = Cayley<SE3>::tau(s.x), b = Exp<SE3>::tau(s.y);
    return diff(between(a, b).matrix(), M4L(a.matrix().cast<LD>().inverse() * b.matrix().cast<LD>()));
  });
}

// Row 10: BCH, tau^{-1}(tau(a) tau(b)) - (a + b + ½[a, b]) = O(|a|^3) with the ratio bounded.
template <class R>
void bch_of(const std::string& name) {
  // 400 pairs of random directions, scaled to |a| = |b| = h for h = 1e-1 .. 1e-4 (the same directions at every h,
  // so the ratio converges to the third-order coefficient of each pair). Expected third-order terms: exp, the BCH
  // term (1/12)([a,[a,b]] + [b,[b,a]]); Cayley (cay(X) = exp(X + X^3/12 + ...)) in addition (a^3 + b^3 - (a+b)^3)/12
  // as matrices; both have ratios of order 1. Round-off at h = 1e-4: ~1e-16 / 1e-12 = 1e-4 in the ratio.
  std::mt19937_64 rng(9104);
  std::vector<std::pair<Vec6, Vec6>> dirs;
  for (int i = 0; i < 400; ++i) dirs.emplace_back(normal6(rng).normalized(), normal6(rng).normalized());
  std::vector<double> hs = {1e-1, 1e-2, 1e-3, 1e-4}, ratio, naive;
  for (double h : hs) {
    double r = 0.0, r0 = 0.0;
    for (const auto& [da, db] : dirs) {
      const Vec6 a = h * da, b = h * db;
      const Vec6 c = R::tau_inv(R::tau(a) * R::tau(b));
      const M4L A = hat4L(L(a)), B = hat4L(L(b));
      const V6L second = L(a) + L(b) + vee4L(A * B - B * A) / 2;
      r = std::max(r, static_cast<double>((L(c) - second).norm()) / (h * h * h));
      r0 = std::max(r0, (c - (a + b)).norm() / (h * h * h));
    }
    ratio.push_back(r);
    naive.push_back(r0);
    std::printf("[ se3-spec ] BCH %s: h = %.0e  max |res|/h^3 = %.4f   (without ½[a,b]: %.3e)\n", name.c_str(), h, r, r0);
  }
  for (std::size_t i = 0; i < hs.size(); ++i) {
    EXPECT_LT(ratio[i], 10.0) << name << " h = " << hs[i];  // bounded (prototype: 9.2 at |a| ~ 1e-3)
    EXPECT_GT(naive[i], 0.05 / hs[i]) << name << " h = " << hs[i];  // the check sees a missing ½[a, b]
  }
  // Not growing as h -> 0 (an O(h^2) residual would grow the ratio by 100 from 1e-2 to 1e-4).
  EXPECT_LT(ratio[3], 1.5 * ratio[1]) << name;
  EXPECT_GT(ratio[3], 0.5 * ratio[1]) << name;
  record("BCH " + name + ": max |res|/|a|^3 at |a| = 1e-3 (cols: 1e-3, 1e-4)", "9.2 at |a|~1e-3 (bounded)",
         ratio[2], ratio[3], 10.0);
}
TEST(SE3Spec, Row10_BCH_Cayley) { bch_of<Cayley<SE3>>("cay"); }
TEST(SE3Spec, Row10_BCH_Exp) { bch_of<Exp<SE3>>("exp"); }

// Row 11: the scalar coefficient functions vs closed forms in 100-digit arithmetic, theta in [1e-8, 3].
struct CoefRef {
  BF100 A, B, C, D, gamma, beta_num, gamma_num, c2, c3;
};
/// Closed forms of the definitions in 100 digits. The worst cancellation (gamma and its numerator, ~720/t^4 at
/// t = 1e-8) costs 35 digits, leaving > 60: 50-digit references at every t in [1e-8, 3].
CoefRef coef_ref(double td) {
  const BF100 t = td, s = sin(t), c = cos(t), sh = sin(t / 2), ch = cos(t / 2);
  const BF100 t2 = t * t, t4 = t2 * t2;
  CoefRef r;
  r.A = s / t;
  r.B = (1 - c) / t2;
  r.C = (t - s) / (t2 * t);
  r.D = (1 - (t / 2) * ch / sh) / t2;
  r.gamma = -2 / t4 + ch / sh / (2 * t2 * t) + 1 / (sh * sh) / (4 * t2);
  r.beta_num = (1 - c - (t / 2) * s) / t4;
  r.gamma_num = (t2 + t * s - 4 * (1 - c)) / (t4 * t2);
  r.c2 = (t2 + 2 * c - 2) / (2 * t4);
  r.c3 = (2 * t - 3 * s + t * c) / (2 * t4 * t);
  return r;
}
double rel(double code, const BF100& ref) { return static_cast<double>(abs((BF100(code) - ref) / ref)); }

/// The prototype's small-angle recipe itself ("for theta < 1, ten Taylor terms" of c_1, c_2, c_3; D's
/// four-term series for theta < 0.1; direct forms above), evaluated in double, to compare with its claim of
/// <= 2e-14.
double spec_series(double t, int a, int b, int d) {  // sum_{k<10} (-1)^k (a k + b) t^{2k}/(2k+d)!
  double s = 0.0;
  for (int k = 9; k >= 0; --k) {
    double f = 1.0;
    for (int i = 2; i <= 2 * k + d; ++i) f *= i;
    s = s * t * t + ((k % 2 == 0) ? 1.0 : -1.0) * (a * k + b) / f;
  }
  return s;
}
double spec_c1(double t) { return t < 1 ? spec_series(t, 0, 1, 3) : (t - std::sin(t)) / (t * t * t); }
double spec_c2(double t) {
  return t < 1 ? spec_series(t, 0, 1, 4) : (t * t + 2 * std::cos(t) - 2) / (2 * t * t * t * t);
}
double spec_c3(double t) {
  return t < 1 ? spec_series(t, 1, 1, 5) : (2 * t - 3 * std::sin(t) + t * std::cos(t)) / (2 * std::pow(t, 5));
}
double spec_D(double t) {
  const double t2 = t * t;
  if (t < 0.1) return 1.0 / 12 + t2 / 720 + t2 * t2 / 30240 + t2 * t2 * t2 / 1209600;
  return (1 - (t / 2) / std::tan(t / 2)) / t2;
}

TEST(SE3Spec, Row11_SmallAngleCoefficients) {
  // 2000 log-uniform theta in [1e-8, 3], plus both sides of every branch point (the code's thresholds and the
  // prototype's 1e-4, 0.1, 1) and the end points.
  std::mt19937_64 rng(9105);
  std::vector<double> ts;
  for (int i = 0; i < kSamples; ++i) ts.push_back(log_uniform(rng, 1e-8, 3.0));
  for (double c : {1e-8, 1e-4, 0.1, lievi::tol::small_angle, lievi::tol::small_angle_gamma,
                   lievi::tol::small_angle_t_minus_sin, lievi::tol::small_angle_beta_numerator,
                   lievi::tol::small_angle_gamma_numerator, lievi::tol::small_angle_se3_c2,
                   lievi::tol::small_angle_se3_c3}) {
    for (double t : {std::nextafter(c, 0.0), c, std::nextafter(c, 10.0)})
      if (t >= 1e-8 && t <= 3.0) ts.push_back(t);
  }
  namespace s3 = so3_series;
  namespace s6 = se3_series;
  struct Fn {
    const char* name;
    std::function<double(double)> f;
    BF100 CoefRef::*ref;
    std::function<double(double)> spec;  // the prototype's recipe, where it gives one
  };
  const std::vector<Fn> fns = {
      {"A = sin t/t", s3::sinc, &CoefRef::A, nullptr},
      {"B = (1-cos t)/t^2", s3::one_minus_cos_over_t2, &CoefRef::B, nullptr},
      {"C = c_1 = (t-sin t)/t^3", s3::t_minus_sin_over_t3, &CoefRef::C, spec_c1},
      {"D = beta = (1-(t/2)cot(t/2))/t^2", s3::beta, &CoefRef::D, spec_D},
      {"c_2 = (t^2+2cos t-2)/(2t^4)", s6::t2_plus_2cos_minus_2_over_2t4, &CoefRef::c2, spec_c2},
      {"c_3 = (2t-3sin t+t cos t)/(2t^5)", s6::two_t_minus_3sin_plus_t_cos_over_2t5, &CoefRef::c3, spec_c3},
      {"gamma = beta'(t)/t (code extra)", s3::gamma, &CoefRef::gamma, nullptr},
      {"(1-cos t-(t/2)sin t)/t^4 (code extra)", s3::one_minus_cos_minus_half_t_sin_over_t4, &CoefRef::beta_num,
       nullptr},
      {"(t^2+t sin t-4(1-cos t))/t^6 (code extra)", s3::t2_plus_t_sin_minus_4_one_minus_cos_over_t6,
       &CoefRef::gamma_num, nullptr},
  };
  std::vector<CoefRef> refs;
  refs.reserve(ts.size());
  for (double t : ts) refs.push_back(coef_ref(t));
  for (const auto& fn : fns) {
    double worst = -1.0, at = 0.0, worst_spec = -1.0, at_spec = 0.0;
    for (std::size_t i = 0; i < ts.size(); ++i) {
      const double e = rel(fn.f(ts[i]), refs[i].*fn.ref);
      if (!(e <= worst)) {
        worst = e;
        at = ts[i];
      }
      if (fn.spec) {
        const double es = rel(fn.spec(ts[i]), refs[i].*fn.ref);
        if (!(es <= worst_spec)) {
          worst_spec = es;
          at_spec = ts[i];
        }
      }
    }
    EXPECT_LT(worst, kCoefTol) << fn.name << ": worst relative error " << worst << " at t = " << at;
    record(std::string("coef ") + fn.name + " (cols: rel, ulps)", "<= 2e-14 rel.", worst, worst / kUlp, kCoefTol);
    if (fn.spec)
      std::printf("[ se3-spec ]   the prototype's recipe for %s: worst rel %.2e (%.0f ulps) at t = %.6g%s\n",
                  fn.name, worst_spec, worst_spec / kUlp, at_spec,
                  worst_spec > kCoefTol ? "  ** exceeds the spec's 2e-14 claim **" : "");
  }
  // The 100-digit reference is itself checked against the defining Taylor series at small t (where the closed forms
  // cancel most): c_3 at 1e-8 and 1e-3.
  for (double td : {1e-8, 1e-3}) {
    const BF100 t = td;
    BF100 s = 0, f = 120, sign = 1, tp = 1;  // sum (-1)^k (k+1) t^{2k}/(2k+5)!
    for (int k = 0; k < 20; ++k) {
      if (k > 0) f *= BF100((2 * k + 4) * (2 * k + 5));
      s += sign * (k + 1) * tp / f;
      sign = -sign;
      tp *= t * t;
    }
    EXPECT_LT(static_cast<double>(abs((coef_ref(td).c3 - s) / s)), 1e-40) << "reference c_3 at " << td;
  }
}

// Cayley singularity: cay^{-1}(R) = 2 vee(R - R^T)/(1 + tr R) has a pole at rotations by pi (|cay^{-1}| = 2 tan(theta/2)).
// docs/theory/beam.md "SE(3) formulas": a rotation with 1 + tr R < 1e-8 is refused. Required here: where 1 +
// tr R < 1e-8, tau_inv either throws or returns non-finite values (never finite wrong values); where 1 + tr R
// >= 1e-8, the result is accurate to the formula's inherent ~ few eps/(1 + tr R) relative (1 + tr R = 4
// sin^2(delta/2) ~ delta^2 for theta = pi - delta is computed with an absolute error of a few eps).
struct NearPi {
  double delta;
  Mat3 R;
  V3L exact;  // 2 tan(theta/2) n, in long double (not finite for delta = 0)
};
std::vector<NearPi> near_pi_rotations() {
  std::mt19937_64 rng(9106);
  std::vector<NearPi> out;
  for (double delta : {1e-1, 1e-2, 1e-3, 3e-4, 1e-4, 9e-5, 3e-5, 1e-5, 1e-6, 1e-8, 1e-10, 0.0}) {
    for (int rep = 0; rep < 4; ++rep) {
      const V3L n = unit3(rng).cast<LD>();
      const LD th = std::numbers::pi_v<LD> - static_cast<LD>(delta);
      const M3L N = hat3L(n);
      // Rodrigues in long double, rounded once.
      const M3L R = M3L::Identity() + std::sin(th) * N + (1 - std::cos(th)) * N * N;
      out.push_back({delta, R.cast<double>(), (delta == 0.0 ? LD(0) : 2 / std::tan(static_cast<LD>(delta) / 2)) * n});
    }
  }
  // Exactly symmetric rotations by pi: R = 2 n n^T - I (axis along a coordinate and a generic one), and exp(pi n).
  for (const Vec3& n : {Vec3(1, 0, 0), Vec3(Vec3(0.3, -0.5, 0.81).normalized())}) {
    out.push_back({0.0, Mat3(2.0 * n * n.transpose() - Mat3::Identity()), V3L::Zero()});
    out.push_back({0.0, Exp<SO3>::tau(std::numbers::pi * n).matrix(), V3L::Zero()});
  }
  return out;
}

template <class F>
void expect_guarded(const char* name, const F& tau_inv_rot) {
  int silent_wrong = 0, guarded = 0;
  double worst_ok = 0.0;
  std::ostringstream examples;  // silently wrong results, for one failure message
  double last_shown = -1.0;
  for (const auto& c : near_pi_rotations()) {
    const double one_plus_tr = 1.0 + c.R.trace();
    bool threw = false;
    Vec3 w = Vec3::Zero();
    try {
      w = tau_inv_rot(c.R);
    } catch (const std::exception&) {
      threw = true;
    }
    const bool finite = w.allFinite();
    const double rel_err = (c.delta > 0.0 && finite)
                               ? static_cast<double>((w.cast<LD>() - c.exact).norm() / c.exact.norm())
                               : std::numeric_limits<double>::infinity();
    if (one_plus_tr < 1e-8) {
      if (threw || !finite) {
        ++guarded;
      } else {
        // One example per delta (and every exact rotation by pi), so the message spans 1e-4 .. 0.
        const bool show = c.delta != last_shown || c.delta == 0.0;
        last_shown = c.delta;
        ++silent_wrong;
        if (show)
          examples << "\n  rotation by pi - " << c.delta << " (1 + tr R = " << one_plus_tr << "): returned "
                   << w.transpose() << " (|w| = " << w.norm() << ", exact |w| = "
                   << (c.delta > 0.0 ? std::to_string(static_cast<double>(c.exact.norm())) : std::string("inf"))
                   << ", relative error " << rel_err << ")";
      }
    } else {
      EXPECT_FALSE(threw) << name << ": threw for 1 + tr R = " << one_plus_tr << " >= 1e-8";
      const double bound = 50 * kUlp / one_plus_tr;
      EXPECT_LT(rel_err, bound) << name << ": delta = " << c.delta << " 1 + tr R = " << one_plus_tr;
      worst_ok = std::max(worst_ok, rel_err * one_plus_tr / kUlp);
    }
  }
  // FINDING (code, not the formulas): lievi/lie/retraction/cayley.hpp Cayley<SO3>::tau_inv has no guard for
  // 1 + tr R < 1e-8 (docs/theory/beam.md) and returns finite wrong values there (exactly 0, i.e. the
  // identity, for the symmetric rotation by pi 2 n n^T - I); Cayley<SE3>::tau_inv inherits it. Kept failing
  // until the guard exists.
  EXPECT_EQ(silent_wrong, 0) << name << ": " << silent_wrong << " of " << (guarded + silent_wrong)
                             << " rotations with 1 + tr R < 1e-8 returned finite values instead of the spec's "
                                "diagnostic (docs/theory/beam.md); examples:"
                             << examples.str();
  std::printf("[ se3-spec ] %s near pi: %d cases with 1 + tr R < 1e-8: %d guarded (throw or non-finite), %d silently "
              "finite; where 1 + tr R >= 1e-8, worst relative error = %.1f eps/(1 + tr R)\n",
              name, guarded + silent_wrong, guarded, silent_wrong, worst_ok);
}

TEST(SE3Spec, CayleySingularity_SO3TauInvNearPi) {
  expect_guarded("Cayley<SO3>::tau_inv", [](const Mat3& R) { return Cayley<SO3>::tau_inv(SO3(R)); });
}
TEST(SE3Spec, CayleySingularity_SE3TauInvNearPi) {
  expect_guarded("Cayley<SE3>::tau_inv",
                 [](const Mat3& R) { return Vec3(Cayley<SE3>::tau_inv(SE3(R, Vec3(0.3, -1.0, 2.0))).head<3>()); });
}

}  // namespace
