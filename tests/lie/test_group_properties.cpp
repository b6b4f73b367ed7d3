// Group, algebra and (co-)adjoint properties of every LieGroup (SO(3), SE(3), R^3), over fixed-seed samples
// at the identity, near it (1e-8), at random and at large (|omega| in [2, 3]) elements. Each property is
// checked against an independent definition (matrix products, matrix commutators, conjugation, the matrix
// exponential).
//
// Tolerances: group elements here have entries O(1) (rotations) and translations up to ~10 after composing
// three elements; each checked quantity is a handful of 3x3/4x4/6x6 products, so round-off is a few 1e-15
// (measured worst over all checks and groups: 4.0e-15, the Jacobi identity on SE(3)). `kTol = 1e-13` leaves a
// margin of 25 while any formula error is O(1e-2) or larger on the random and large samples.
#include <gtest/gtest.h>

#include <sstream>

#include "lie_test_util.hpp"
#include "lievi/lie/retraction/cayley.hpp"
#include "lievi/lie/retraction/exp.hpp"

namespace {

using namespace lievi::lie;
using namespace lievi::lie::testing;

constexpr double kTol = 1e-13;

// The concepts accept the groups and retractions (also asserted in the headers) and reject what is not one.
static_assert(LieGroup<SO3> && LieGroup<SE3> && LieGroup<Rn<1>> && LieGroup<Rn<6>>);
static_assert(!LieGroup<int> && !LieGroup<Vec3> && !LieGroup<Mat3>);
static_assert(Retraction<Cayley<SO3>, SO3> && Retraction<Exp<SE3>, SE3> && Retraction<Exp2<SE3>, SE3>);
static_assert(!Retraction<Cayley<SO3>, SE3> && !Retraction<Exp<SE3>, SO3> && !Retraction<Exp<Rn<3>>, Rn<2>>);
// For operations that involve no rounding at all (hat/vee copy entries; products with the identity).
constexpr double kExact = 1e-300;

template <class G>
class LieGroupProperties : public ::testing::Test {
 protected:
  using Algebra = typename G::Algebra;
  using Matrix = typename G::Matrix;
  using Embedding = typename G::Embedding;

  LieGroupProperties() : samples_(algebra_samples<G>()) {
    for (const auto& s : samples_) elements_.push_back(Exp<G>::tau(s.x));
  }
  /// Index of the worst sample, for the failure message.
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
  const G& g(std::size_t i) const { return elements_[i]; }
  static Embedding M(const G& a) { return a.matrix(); }

  std::vector<Sample<Algebra>> samples_;
  std::vector<G> elements_;
};

using Groups = ::testing::Types<SO3, SE3, Rn<3>>;
class GroupNames {
 public:
  template <class T>
  static std::string GetName(int) {
    if constexpr (std::is_same_v<T, SO3>) return "SO3";
    if constexpr (std::is_same_v<T, SE3>) return "SE3";
    return "R3";
  }
};
TYPED_TEST_SUITE(LieGroupProperties, Groups, GroupNames);

TYPED_TEST(LieGroupProperties, CompositionIsAssociative) {
  const std::size_t N = this->n();
  this->expect_all_below(
      [&](std::size_t i) {
        return max_abs(this->M((this->g(i) * this->g((i + 1) % N)) * this->g((i + 2) % N)) -
                       this->M(this->g(i) * (this->g((i + 1) % N) * this->g((i + 2) % N))));
      },
      kTol, __LINE__);
}

TYPED_TEST(LieGroupProperties, CompositionIsTheMatrixProduct) {
  const std::size_t N = this->n();
  this->expect_all_below(
      [&](std::size_t i) {
        return max_abs(this->M(this->g(i) * this->g((i + 1) % N)) -
                       this->M(this->g(i)) * this->M(this->g((i + 1) % N)));
      },
      kTol, __LINE__);
}

TYPED_TEST(LieGroupProperties, InverseAndIdentity) {
  using G = TypeParam;
  const auto I = TestFixture::Embedding::Identity();
  this->expect_all_below(
      [&](std::size_t i) { return max_abs(this->M(this->g(i) * this->g(i).inverse()) - I); }, kTol, __LINE__);
  this->expect_all_below(
      [&](std::size_t i) { return max_abs(this->M(this->g(i).inverse() * this->g(i)) - I); }, kTol, __LINE__);
  this->expect_all_below(
      [&](std::size_t i) { return max_abs(this->M(this->g(i).inverse()) - this->M(this->g(i)).inverse()); },
      kTol, __LINE__);
  this->expect_all_below(
      [&](std::size_t i) { return max_abs(this->M(G::identity() * this->g(i)) - this->M(this->g(i))); },
      kExact, __LINE__);
  EXPECT_EQ(this->M(G::identity()), I);
}

TYPED_TEST(LieGroupProperties, BetweenIsRelativeElement) {
  const std::size_t N = this->n();
  this->expect_all_below(
      [&](std::size_t i) {
        return max_abs(this->M(this->g(i) * between(this->g(i), this->g((i + 1) % N))) -
                       this->M(this->g((i + 1) % N)));
      },
      kTol, __LINE__);
}

TYPED_TEST(LieGroupProperties, ActionIsAHomomorphismAndMatchesTheMatrix) {
  using G = TypeParam;
  using Point = typename G::Point;
  const std::size_t N = this->n();
  std::mt19937_64 rng(7);
  std::vector<Point> p(N);
  for (auto& q : p) q = 2.0 * random_direction<G>(rng).template head<Point::RowsAtCompileTime>();
  this->expect_all_below(
      [&](std::size_t i) {
        return ((this->g(i) * this->g((i + 1) % N)).act(p[i]) -
                this->g(i).act(this->g((i + 1) % N).act(p[i])))
            .cwiseAbs()
            .maxCoeff();
      },
      kTol, __LINE__);
  this->expect_all_below(
      [&](std::size_t i) {
        return (this->g(i).inverse().act(this->g(i).act(p[i])) - p[i]).cwiseAbs().maxCoeff();
      },
      kTol, __LINE__);
  // Independent: the embedding acts on p directly (SO(3)) or on homogeneous coordinates (SE(3), R^n).
  constexpr int E = TestFixture::Embedding::RowsAtCompileTime, P = Point::RowsAtCompileTime;
  auto by_matrix = [&](std::size_t i) -> Point {
    if constexpr (E == P) {
      return this->M(this->g(i)) * p[i];
    } else {
      Eigen::Matrix<double, E, 1> ph = Eigen::Matrix<double, E, 1>::Ones();
      ph.template head<P>() = p[i];
      return (this->M(this->g(i)) * ph).template head<P>();
    }
  };
  this->expect_all_below(
      [&](std::size_t i) { return (this->g(i).act(p[i]) - by_matrix(i)).cwiseAbs().maxCoeff(); }, kTol,
      __LINE__);
}

TYPED_TEST(LieGroupProperties, HatAndVeeAreInverse) {
  using G = TypeParam;
  this->expect_all_below(
      [&](std::size_t i) { return (G::vee(G::hat(this->x(i))) - this->x(i)).cwiseAbs().maxCoeff(); }, kExact,
      __LINE__);
  // hat is linear: hat(a x + y) = a hat(x) + hat(y) (exact up to one rounding of a x + y).
  const std::size_t N = this->n();
  this->expect_all_below(
      [&](std::size_t i) {
        return max_abs(G::hat(typename G::Algebra(2.5 * this->x(i) + this->x((i + 1) % N))) -
                       (2.5 * G::hat(this->x(i)) + G::hat(this->x((i + 1) % N))));
      },
      kTol, __LINE__);
}

TYPED_TEST(LieGroupProperties, AdIsTheMatrixCommutator) {
  using G = TypeParam;
  const std::size_t N = this->n();
  this->expect_all_below(
      [&](std::size_t i) {
        return [&] {
          const auto& a = this->x(i);
          const auto& b = this->x((i + 1) % N);
          const auto X = G::hat(a), Y = G::hat(b);
          return (G::ad(a) * b - G::vee(typename G::Embedding(X * Y - Y * X))).cwiseAbs().maxCoeff();
        }();
      },
      kTol, __LINE__);
  // Antisymmetry [x, y] = -[y, x].
  this->expect_all_below(
      [&](std::size_t i) {
        return (bracket<G>(this->x(i), this->x((i + 1) % N)) + bracket<G>(this->x((i + 1) % N), this->x(i)))
            .cwiseAbs()
            .maxCoeff();
      },
      kTol, __LINE__);
}

TYPED_TEST(LieGroupProperties, JacobiIdentity) {
  using G = TypeParam;
  const std::size_t N = this->n();
  this->expect_all_below(
      [&](std::size_t i) {
        return [&] {
          const auto &x = this->x(i), &y = this->x((i + 1) % N), &z = this->x((i + 2) % N);
          return (bracket<G>(x, bracket<G>(y, z)) + bracket<G>(y, bracket<G>(z, x)) +
                  bracket<G>(z, bracket<G>(x, y)))
              .cwiseAbs()
              .maxCoeff();
        }();
      },
      kTol, __LINE__);
}

TYPED_TEST(LieGroupProperties, AdStarIsTheDualOfAd) {
  using G = TypeParam;
  const std::size_t N = this->n();
  // <ad*_x mu, y> = <mu, ad_x y>, and ad_star(x, mu) = ad_x^T mu.
  this->expect_all_below(
      [&](std::size_t i) {
        return [&] {
          const auto &x = this->x(i), &mu = this->x((i + 1) % N), &y = this->x((i + 2) % N);
          return std::abs(G::ad_star(x, mu).dot(y) - mu.dot(G::ad(x) * y));
        }();
      },
      kTol, __LINE__);
  this->expect_all_below(
      [&](std::size_t i) {
        return (G::ad_star(this->x(i), this->x((i + 1) % N)) -
                ad_star_matrix<G>(this->x(i)) * this->x((i + 1) % N))
            .cwiseAbs()
            .maxCoeff();
      },
      kTol, __LINE__);
}

TYPED_TEST(LieGroupProperties, AdIsConjugation) {
  using G = TypeParam;
  const std::size_t N = this->n();
  // Ad_g y = vee(g hat(y) g^{-1}).
  this->expect_all_below(
      [&](std::size_t i) {
        return [&] {
          const auto& y = this->x((i + 1) % N);
          const typename G::Embedding C = this->M(this->g(i)) * G::hat(y) * this->M(this->g(i).inverse());
          return (this->g(i).Ad() * y - G::vee(C)).cwiseAbs().maxCoeff();
        }();
      },
      kTol, __LINE__);
}

TYPED_TEST(LieGroupProperties, AdIsAHomomorphism) {
  const std::size_t N = this->n();
  const auto I = TestFixture::Matrix::Identity();
  this->expect_all_below(
      [&](std::size_t i) {
        return max_abs((this->g(i) * this->g((i + 1) % N)).Ad() -
                       this->g(i).Ad() * this->g((i + 1) % N).Ad());
      },
      kTol, __LINE__);
  this->expect_all_below(
      [&](std::size_t i) { return max_abs(this->g(i).inverse().Ad() * this->g(i).Ad() - I); }, kTol,
      __LINE__);
}

TYPED_TEST(LieGroupProperties, AdOfExpIsExpOfAd) {
  using G = TypeParam;
  // Ad_{exp x} = exp(ad_x), the matrix exponential computed independently (Pade, scaling and squaring).
  this->expect_all_below(
      [&](std::size_t i) {
        return max_abs(Exp<G>::tau(this->x(i)).Ad() - expm(typename G::Matrix(G::ad(this->x(i)))));
      },
      kTol, __LINE__);
}

TYPED_TEST(LieGroupProperties, AdIsNatural) {
  using G = TypeParam;
  const std::size_t N = this->n();
  // Ad_g ad_y Ad_g^{-1} = ad_{Ad_g y}.
  this->expect_all_below(
      [&](std::size_t i) {
        return [&] {
          const auto& y = this->x((i + 1) % N);
          const typename G::Matrix A = this->g(i).Ad();
          return max_abs(A * G::ad(y) * this->g(i).inverse().Ad() - G::ad(typename G::Algebra(A * y)));
        }();
      },
      kTol, __LINE__);
}

TYPED_TEST(LieGroupProperties, CoadjointIsTheDualOfAdjoint) {
  const std::size_t N = this->n();
  // <Ad*_g mu, xi> = <mu, Ad_g xi> for the (closed-form where provided) Ad_star overload.
  this->expect_all_below(
      [&](std::size_t i) {
        return [&] {
          const auto &mu = this->x((i + 1) % N), &xi = this->x((i + 2) % N);
          return std::abs(Ad_star(this->g(i), mu).dot(xi) - mu.dot(this->g(i).Ad() * xi));
        }();
      },
      kTol, __LINE__);
  this->expect_all_below(
      [&](std::size_t i) {
        return (Ad_star_inverse(this->g(i), this->x((i + 1) % N)) -
                Ad_star(this->g(i).inverse(), this->x((i + 1) % N)))
            .cwiseAbs()
            .maxCoeff();
      },
      kTol, __LINE__);
  this->expect_all_below(
      [&](std::size_t i) {
        return (Ad_star_matrix(this->g(i)) * this->x((i + 1) % N) - Ad_star(this->g(i), this->x((i + 1) % N)))
            .cwiseAbs()
            .maxCoeff();
      },
      kTol, __LINE__);
}

TYPED_TEST(LieGroupProperties, ExpIsTheMatrixExponentialOfHat) {
  using G = TypeParam;
  this->expect_all_below(
      [&](std::size_t i) {
        return max_abs(this->M(Exp<G>::tau(this->x(i))) - expm(typename G::Embedding(G::hat(this->x(i)))));
      },
      kTol, __LINE__);
}

}  // namespace
