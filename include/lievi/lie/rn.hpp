#pragma once
/// @file lievi/lie/rn.hpp
/// @brief R^n as the (abelian) translation group: compose = add, inverse = negate, trivial ad and Ad.
///
/// Conventions (docs/conventions.md): the algebra is R^n itself (Algebra = Eigen vector of size N); the group is
/// embedded as homogeneous (N+1)x(N+1) matrices [[I, x], [0, 1]], with hat(y) = [[0, y], [0, 0]], so that the
/// matrix exponential and the matrix Cayley of hat(y) are both [[I, y], [0, 1]]. ad = 0, Ad = I, ad* = 0, Ad* = I.
#include <Eigen/Core>

#include "lievi/lie/concepts.hpp"

namespace lievi::lie {

/// A translation x in R^N (N >= 1) as a group element.
template <int N>
class Rn {
  static_assert(N >= 1, "Rn<N> needs N >= 1");

 public:
  using Algebra = Eigen::Matrix<double, N, 1>;
  using Matrix = Eigen::Matrix<double, N, N>;
  using Embedding = Eigen::Matrix<double, N + 1, N + 1>;
  using Point = Algebra;
  static constexpr int dof = N;

  Rn() : x_(Algebra::Zero()) {}
  explicit Rn(const Algebra& x) : x_(x) {}

  static Rn identity() { return Rn(); }
  [[nodiscard]] const Algebra& translation() const { return x_; }
  /// [[I, x], [0, 1]].
  [[nodiscard]] Embedding matrix() const {
    Embedding T = Embedding::Identity();
    T.template topRightCorner<N, 1>() = x_;
    return T;
  }

  /// a b = a + b.
  Rn operator*(const Rn& o) const { return Rn(Algebra(x_ + o.x_)); }
  /// a^{-1} = -a.
  [[nodiscard]] Rn inverse() const { return Rn(Algebra(-x_)); }
  /// Action on a point: p + x.
  [[nodiscard]] Point act(const Point& p) const { return p + x_; }
  /// Ad = I (abelian group).
  [[nodiscard]] Matrix Ad() const { return Matrix::Identity(); }

  /// hat(y) = [[0, y], [0, 0]].
  static Embedding hat(const Algebra& y) {
    Embedding X = Embedding::Zero();
    X.template topRightCorner<N, 1>() = y;
    return X;
  }
  /// vee: reads the last column.
  static Algebra vee(const Embedding& X) { return X.template topRightCorner<N, 1>(); }
  /// ad_y = 0.
  static Matrix ad(const Algebra&) { return Matrix::Zero(); }
  /// ad*_y mu = 0.
  static Algebra ad_star(const Algebra&, const Algebra&) { return Algebra::Zero(); }

 private:
  Algebra x_;
};

static_assert(LieGroup<Rn<1>>);
static_assert(LieGroup<Rn<3>>);

}  // namespace lievi::lie
