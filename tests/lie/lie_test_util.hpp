#pragma once
// Shared helpers of the Lie-group tests: fixed-seed samples of the algebra in named regimes, the independent
// matrix references (matrix exponential by Eigen's Pade scaling-and-squaring, matrix Cayley by an LU solve),
// and central finite differences.
#include <Eigen/Core>
#include <Eigen/LU>
#include <cmath>
#include <random>
#include <string>
#include <unsupported/Eigen/MatrixFunctions>
#include <vector>

#include "lievi/lie/concepts.hpp"
#include "lievi/lie/rn.hpp"
#include "lievi/lie/se3.hpp"
#include "lievi/lie/so3.hpp"

namespace lievi::lie::testing {

/// One algebra element with the regime it was drawn from (printed when a property fails).
template <class V>
struct Sample {
  std::string regime;
  V x;
};

/// Angular part in a regime: identity (0), near identity (|omega| ~ 1e-8), random (|omega| in [0.1, 1.5]),
/// large (|omega| in [2, 3], still < pi so that log and Cayley^{-1} are defined).
inline Vec3 angular_sample(std::mt19937_64& rng, const std::string& regime) {
  std::normal_distribution<double> normal(0.0, 1.0);
  std::uniform_real_distribution<double> uni(0.0, 1.0);
  Vec3 dir(normal(rng), normal(rng), normal(rng));
  dir.normalize();
  if (regime == "identity") return Vec3::Zero();
  if (regime == "near_identity") return 1e-8 * (0.5 + uni(rng)) * dir;
  if (regime == "random") return (0.1 + 1.4 * uni(rng)) * dir;
  return (2.0 + uni(rng)) * dir;  // "large"
}

/// Linear part: same scale as the angular part near the identity, components in [-2, 2] otherwise.
inline Vec3 linear_sample(std::mt19937_64& rng, const std::string& regime) {
  std::uniform_real_distribution<double> uni(-2.0, 2.0);
  const Vec3 v(uni(rng), uni(rng), uni(rng));
  if (regime == "identity") return Vec3::Zero();
  if (regime == "near_identity") return 1e-8 * v;
  return v;
}

template <class G>
struct Sampler;

template <>
struct Sampler<SO3> {
  static Vec3 draw(std::mt19937_64& rng, const std::string& regime) { return angular_sample(rng, regime); }
};
template <>
struct Sampler<SE3> {
  static Vec6 draw(std::mt19937_64& rng, const std::string& regime) {
    const Vec3 omega = angular_sample(rng, regime);
    return SE3::join(omega, linear_sample(rng, regime));
  }
};
template <int N>
struct Sampler<Rn<N>> {
  static typename Rn<N>::Algebra draw(std::mt19937_64& rng, const std::string& regime) {
    std::uniform_real_distribution<double> uni(-2.0, 2.0);
    typename Rn<N>::Algebra x;
    for (int i = 0; i < N; ++i) x(i) = uni(rng);
    if (regime == "identity") return Rn<N>::Algebra::Zero();
    if (regime == "near_identity") return 1e-8 * x;
    if (regime == "large") return 3.0 * x;
    return x;
  }
};

/// `per_regime` samples of each regime (identity once), from a fixed seed.
template <LieGroup G>
std::vector<Sample<typename G::Algebra>> algebra_samples(int per_regime = 50, unsigned long seed = 20261201) {
  std::mt19937_64 rng(seed);
  std::vector<Sample<typename G::Algebra>> out;
  out.push_back({"identity", G::Algebra::Zero()});
  for (const char* regime : {"near_identity", "random", "large"})
    for (int i = 0; i < per_regime; ++i) out.push_back({regime, Sampler<G>::draw(rng, regime)});
  return out;
}

/// A random unit-ish algebra direction (components normal(0, 1), normalised).
template <LieGroup G>
typename G::Algebra random_direction(std::mt19937_64& rng) {
  std::normal_distribution<double> normal(0.0, 1.0);
  typename G::Algebra y;
  for (int i = 0; i < G::dof; ++i) y(i) = normal(rng);
  return y.normalized();
}

/// Matrix exponential (Eigen unsupported MatrixFunctions: Pade approximant with scaling and squaring).
template <class M>
M expm(const M& A) {
  return A.exp();
}

/// Matrix Cayley transform (I - X/2)^{-1} (I + X/2) by an LU solve.
template <class M>
M matrix_cayley(const M& X) {
  const M I = M::Identity();
  return (I - 0.5 * X).partialPivLu().solve(I + 0.5 * X);
}

/// Largest absolute entry.
template <class Derived>
double max_abs(const Eigen::MatrixBase<Derived>& A) {
  return A.cwiseAbs().maxCoeff();
}

}  // namespace lievi::lie::testing
