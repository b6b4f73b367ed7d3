// Properties of every retraction (Cayley and exp on SO(3), SE(3) and R^3), over fixed-seed samples at the
// identity, near it (1e-8), at random and at large (|omega| in [2, 3]) algebra elements:
//   tau(x) tau(-x) = e,  tau_inv(tau(x)) = x,  tau matches its matrix definition (expm / matrix Cayley),
//   dtau dtau_inv = I,  duals are transposes,  the definition T_x tau(y) = hat(dtau_x y) tau(x) by central
//   finite differences,  the definition of dtau_inv through delta(tau_inv(g)) = dtau_inv(delta g g^{-1}),
//   and the identity dtau^{-1}_{-x} = dtau^{-1}_x Ad_{tau(x)} (docs/theory/beam.md "SE(3) formulas").
#include <gtest/gtest.h>

#include <numbers>
#include <random>
#include <sstream>

#include "lie_test_util.hpp"
#include "lievi/lie/retraction/cayley.hpp"
#include "lievi/lie/retraction/exp.hpp"

namespace {

using namespace lievi::lie;
using namespace lievi::lie::testing;

// Round-off tolerance: every quantity is a few small matrix products of entries O(1)-O(10) (translations up
// to ~5 and |omega| <= 3), so round-off is a few 1e-15 (measured worst: 1.8e-15, tau_inv(tau(x)) on SO(3)
// Cayley). 1e-13 leaves a margin of 50, while a wrong coefficient anywhere is an O(1e-3)..O(1) error on
// random/large x.
constexpr double kTol = 1e-13;

// Central differences with step eps = 1e-5: truncation error eps^2/6 |f'''| <= ~1e-10 (|f'''| = O(10) for the
// samples here), round-off eps_mach |f| / eps ~ 1e-11 (|f| = O(10)); measured worst 2.0e-10 (tau_inv on SE(3)
// Cayley, large angles). 1e-8 is 50x above that and 1e5 below any O(1e-3) formula error.
constexpr double kFdStep = 1e-5;
constexpr double kFdTol = 1e-8;

/// The retraction's independent matrix definition.
template <class R>
struct MatrixDefinition;
template <class G>
struct MatrixDefinition<Exp<G>> {
  static typename G::Embedding of(const typename G::Embedding& X) { return expm(X); }
};
template <class G>
struct MatrixDefinition<Cayley<G>> {
  static typename G::Embedding of(const typename G::Embedding& X) { return matrix_cayley(X); }
};

template <class Pair>
class RetractionProperties : public ::testing::Test {
 protected:
  using G = typename Pair::first_type;
  using R = typename Pair::second_type;
  using Algebra = typename G::Algebra;
  using Matrix = typename G::Matrix;
  using Embedding = typename G::Embedding;

  RetractionProperties() : samples_(algebra_samples<G>()) {}
  std::string where(std::size_t i) const {
    std::ostringstream os;
    os << "sample " << i << " (" << samples_[i].regime << "), x = " << samples_[i].x.transpose();
    return os.str();
  }
  std::size_t n() const { return samples_.size(); }

  /// Evaluates err(i) on every sample and expects the worst below tol (reporting the worst sample).
  template <class F>
  void expect_all_below(const F& err, double tol, int line) const {
    double worst = -1.0;
    std::size_t at = 0;
    for (std::size_t i = 0; i < n(); ++i) {
      const double e = err(i);
      if (!(e <= worst)) {  // also catches NaN
        worst = e;
        at = i;
      }
    }
    EXPECT_LT(worst, tol) << "check at line " << line << ", worst at " << where(at);
    std::ostringstream w;
    w << std::scientific << worst;
    ::testing::Test::RecordProperty("worst_line_" + std::to_string(line), w.str());
  }
  const Algebra& x(std::size_t i) const { return samples_[i].x; }

  std::vector<Sample<Algebra>> samples_;
};

using Pairs =
    ::testing::Types<std::pair<SO3, Cayley<SO3>>, std::pair<SO3, Exp<SO3>>, std::pair<SE3, Cayley<SE3>>,
                     std::pair<SE3, Exp<SE3>>, std::pair<Rn<3>, Cayley<Rn<3>>>, std::pair<Rn<3>, Exp<Rn<3>>>>;
class PairNames {
 public:
  template <class T>
  static std::string GetName(int) {
    using G = typename T::first_type;
    std::string g = std::is_same_v<G, SO3> ? "SO3" : std::is_same_v<G, SE3> ? "SE3" : "R3";
    return g + "_" + T::second_type::id;
  }
};
TYPED_TEST_SUITE(RetractionProperties, Pairs, PairNames);

TYPED_TEST(RetractionProperties, TauOfZeroIsIdentity) {
  using F = TestFixture;
  EXPECT_EQ(F::R::tau(F::Algebra::Zero()).matrix(), F::Embedding::Identity());
}

TYPED_TEST(RetractionProperties, TauOfMinusXIsTheInverse) {
  using F = TestFixture;
  this->expect_all_below(
      [&](std::size_t i) {
        return max_abs((F::R::tau(this->x(i)) * F::R::tau(typename F::Algebra(-this->x(i)))).matrix() -
                       F::Embedding::Identity());
      },
      kTol, __LINE__);
}

TYPED_TEST(RetractionProperties, TauInvInvertsTau) {
  using F = TestFixture;
  this->expect_all_below(
      [&](std::size_t i) {
        return (F::R::tau_inv(F::R::tau(this->x(i))) - this->x(i)).cwiseAbs().maxCoeff();
      },
      kTol, __LINE__);
}

TYPED_TEST(RetractionProperties, NearIdentityInversionIsRelativelyAccurate) {
  using F = TestFixture;
  // At |x| ~ 1e-8 the round trip must keep the relative accuracy (no cancellation): 1e-13 relative is ~500
  // ulps of margin over the ~1e-16 expected, and 1e5 below what an O(|x|) absolute error would give.
  this->expect_all_below(
      [&](std::size_t i) {
        return this->samples_[i].regime != "near_identity"
                   ? 0.0
                   : (F::R::tau_inv(F::R::tau(this->x(i))) - this->x(i)).norm() / this->x(i).norm();
      },
      1e-13, __LINE__);
}

TYPED_TEST(RetractionProperties, TauMatchesItsMatrixDefinition) {
  using F = TestFixture;
  using G = typename F::G;
  this->expect_all_below(
      [&](std::size_t i) {
        return max_abs(F::R::tau(this->x(i)).matrix() -
                       MatrixDefinition<typename F::R>::of(G::hat(this->x(i))));
      },
      kTol, __LINE__);
}

TYPED_TEST(RetractionProperties, DtauTimesDtauInvIsIdentity) {
  using F = TestFixture;
  this->expect_all_below(
      [&](std::size_t i) {
        return max_abs(F::R::dtau(this->x(i)) * F::R::dtau_inv(this->x(i)) - F::Matrix::Identity());
      },
      kTol, __LINE__);
  this->expect_all_below(
      [&](std::size_t i) {
        return max_abs(F::R::dtau_inv(this->x(i)) * F::R::dtau(this->x(i)) - F::Matrix::Identity());
      },
      kTol, __LINE__);
}

TYPED_TEST(RetractionProperties, DualsAreTransposes) {
  using F = TestFixture;
  // Same entries, only rearranged: the only rounding is in how each is assembled.
  this->expect_all_below(
      [&](std::size_t i) {
        return max_abs(F::R::dtau_star(this->x(i)) - F::R::dtau(this->x(i)).transpose());
      },
      kTol, __LINE__);
  this->expect_all_below(
      [&](std::size_t i) {
        return max_abs(F::R::dtau_inv_star(this->x(i)) - F::R::dtau_inv(this->x(i)).transpose());
      },
      kTol, __LINE__);
}

TYPED_TEST(RetractionProperties, DtauIsTheRightTrivialisedTangent) {
  using F = TestFixture;
  using G = typename F::G;
  // d/de tau(x + e y)|_0 tau(x)^{-1} = hat(dtau_x y), column by column (y = e_j), by central differences.
  this->expect_all_below(
      [&](std::size_t i) {
        return [&] {
          const auto& x = this->x(i);
          const typename F::Embedding g_inv = F::R::tau(x).inverse().matrix();
          const typename F::Matrix D = F::R::dtau(x);
          double err = 0.0;
          for (int j = 0; j < G::dof; ++j) {
            const typename F::Algebra e = kFdStep * F::Algebra::Unit(j);
            const typename F::Embedding dT = (F::R::tau(typename F::Algebra(x + e)).matrix() -
                                              F::R::tau(typename F::Algebra(x - e)).matrix()) /
                                             (2.0 * kFdStep);
            err = std::max(err, (G::vee(typename F::Embedding(dT * g_inv)) - D.col(j)).cwiseAbs().maxCoeff());
          }
          return err;
        }();
      },
      kFdTol, __LINE__);
}

TYPED_TEST(RetractionProperties, DtauInvIsTheTangentOfTauInv) {
  using F = TestFixture;
  using G = typename F::G;
  // d/de tau_inv(exp(e y) g)|_0 = dtau_inv_{tau_inv(g)} y: a left perturbation with delta g g^{-1} = hat(y).
  this->expect_all_below(
      [&](std::size_t i) {
        return [&] {
          const auto& x = this->x(i);
          const G g = F::R::tau(x);
          const typename F::Matrix D = F::R::dtau_inv(x);
          double err = 0.0;
          for (int j = 0; j < G::dof; ++j) {
            const typename F::Algebra e = kFdStep * F::Algebra::Unit(j);
            const typename F::Algebra d = (F::R::tau_inv(Exp<G>::tau(e) * g) -
                                           F::R::tau_inv(Exp<G>::tau(typename F::Algebra(-e)) * g)) /
                                          (2.0 * kFdStep);
            err = std::max(err, (d - D.col(j)).cwiseAbs().maxCoeff());
          }
          return err;
        }();
      },
      kFdTol, __LINE__);
}

TYPED_TEST(RetractionProperties, DtauInvOfMinusXIsDtauInvTimesAd) {
  using F = TestFixture;
  // dtau^{-1}_{-x} = dtau^{-1}_x Ad_{tau(x)} (docs/theory/beam.md; follows from tau(-x) = tau(x)^{-1}).
  this->expect_all_below(
      [&](std::size_t i) {
        return max_abs(F::R::dtau_inv(typename F::Algebra(-this->x(i))) -
                       F::R::dtau_inv(this->x(i)) * F::R::tau(this->x(i)).Ad());
      },
      kTol, __LINE__);
}

TYPED_TEST(RetractionProperties, DtauIsIdentityToFirstOrder) {
  using F = TestFixture;
  using G = typename F::G;
  // dtau^{-1}_x = I - ½ ad_x + O(|x|^2) for both retractions (docs/theory/beam.md): near the identity the
  // O(|x|^2) remainder is ~1e-16, so 1e-14 is a round-off bound.
  this->expect_all_below(
      [&](std::size_t i) {
        return this->samples_[i].regime != "near_identity"
                   ? 0.0
                   : max_abs(F::R::dtau_inv(this->x(i)) - F::Matrix::Identity() + 0.5 * G::ad(this->x(i)));
      },
      1e-14, __LINE__);
}

}  // namespace

namespace {

using namespace lievi::lie;

TEST(ExpLog, AccurateUpToAnglePi) {
  // log recovers the axis from the symmetric part of R near pi (where sin t -> 0): the round trip stays at
  // round-off for angles pi - delta down to delta = 1e-10 (measured worst 9e-16 on SO(3), 2.2e-15 on SE(3));
  // 1e-14 is a margin of ~5, and a naive (t / (2 sin t)) vee(R - R^T) would lose ~eps/delta there.
  std::mt19937_64 rng(21);
  std::normal_distribution<double> normal(0.0, 1.0);
  for (double delta : {1e-1, 1e-3, 1e-6, 1e-10}) {
    for (int i = 0; i < 200; ++i) {
      Vec3 a(normal(rng), normal(rng), normal(rng));
      const Vec3 x = (std::numbers::pi - delta) * a.normalized();
      EXPECT_LT((Exp<SO3>::tau_inv(Exp<SO3>::tau(x)) - x).cwiseAbs().maxCoeff(), 1e-14) << "delta " << delta;
      const Vec6 X = SE3::join(x, Vec3(normal(rng), normal(rng), normal(rng)));
      EXPECT_LT((Exp<SE3>::tau_inv(Exp<SE3>::tau(X)) - X).cwiseAbs().maxCoeff(), 1e-14) << "delta " << delta;
    }
  }
}

}  // namespace
