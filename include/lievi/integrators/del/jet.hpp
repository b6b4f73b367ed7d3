#pragma once
/// @file lievi/integrators/del/jet.hpp
/// @brief `Jet2<N>`: second-order truncated Taylor arithmetic in N variables (value, gradient, packed symmetric
/// Hessian; fixed size, no heap), the AD scalar with which the DEL toolkit differentiates a user Lagrangian.
///
/// A jet x = (v, g, H) stands for v + g.dx + dx.H.dx / 2. Its arithmetic is the chain rule to second order:
///   (a b).H = a.v b.H + b.v a.H + a.g b.g^T + b.g a.g^T,   f(a).H = f'(a.v) a.H + f''(a.v) a.g a.g^T,
/// with the Hessian stored as its N (N + 1) / 2 upper-triangle entries. Compared with the nested dual
/// Dual<Dual<double, N>, N> (dual.hpp), which carries (N + 1)^2 numbers including the gradient twice and the
/// Hessian in full, a product costs O(N^2 / 2) instead of O(N^3) flops (for N = 4: ~50 instead of ~400),
/// which brings the AD path of a DEL step close to hand-written derivatives (bench/del_bench.cpp).
/// User code writes L generically (`using std::sin; sin(x)`, plain doubles for constants); the math functions
/// below are found by ADL.
#include <Eigen/Core>
#include <array>
#include <cmath>
#include <limits>
#include <type_traits>
#include <utility>

// Full unrolling of the fixed-size loops lets the compiler fold the structural zeros of the seeds (a
// variable's gradient is e_i, its Hessian zero): at -O2 without it GCC keeps the loops and an evaluation of
// a small Lagrangian costs ~30x more (measured: 222 ns vs 7 ns per Kepler L with all derivatives).
#if defined(__clang__)
#define LIEVI_JET_UNROLL _Pragma("unroll")
#elif defined(__GNUC__)
#define LIEVI_JET_UNROLL _Pragma("GCC unroll 64")
#else
#define LIEVI_JET_UNROLL
#endif
// The jet operations are small once unrolled and folded into their caller; GCC's -O2 heuristics judge them
// by their unrolled size and keep products and math functions out of line (measured: ~35% of an AD DEL
// step in calls to operator*= and cos).
#if defined(__GNUC__) || defined(__clang__)
#define LIEVI_JET_INLINE [[gnu::always_inline]] inline
#else
#define LIEVI_JET_INLINE inline
#endif

namespace lievi::integrators::del {

template <int N>
struct Jet2 {
  static_assert(N >= 1, "Jet2 needs at least one variable");
  static constexpr int size = N;
  static constexpr int hsize = N * (N + 1) / 2;
  /// Row and column of packed Hessian entry k (row-major upper triangle: (0,0), (0,1), ..., (1,1), ...).
  static constexpr std::array<int, hsize> hi = [] {
    std::array<int, hsize> r{};
    int k = 0;
    for (int i = 0; i < N; ++i)
      for (int j = i; j < N; ++j) r[static_cast<std::size_t>(k++)] = i;
    return r;
  }();
  static constexpr std::array<int, hsize> hj = [] {
    std::array<int, hsize> r{};
    int k = 0;
    for (int i = 0; i < N; ++i)
      for (int j = i; j < N; ++j) r[static_cast<std::size_t>(k++)] = j;
    return r;
  }();
  /// The packed index of (i, j), any order.
  static constexpr int index(int i, int j) {
    if (i > j) std::swap(i, j);
    return i * N - i * (i - 1) / 2 + (j - i);
  }

  double v = 0.0;
  std::array<double, N> g{};
  std::array<double, hsize> H{};

  constexpr Jet2() = default;
  /// A constant. Implicit so that constants mix with jets.
  template <class A>
    requires std::is_arithmetic_v<A>
  constexpr Jet2(A value) : v(static_cast<double>(value)) {}  // NOLINT(google-explicit-constructor)
  /// The independent variable number i at `value`: gradient e_i, zero Hessian.
  constexpr Jet2(double value, int i) : v(value) { g[static_cast<std::size_t>(i)] = 1.0; }

  [[nodiscard]] constexpr double hessian(int i, int j) const { return H[static_cast<std::size_t>(index(i, j))]; }

  LIEVI_JET_INLINE constexpr Jet2& operator+=(const Jet2& b) {
    v += b.v;
    LIEVI_JET_UNROLL
    for (int i = 0; i < N; ++i) g[i] += b.g[i];
    LIEVI_JET_UNROLL
    for (int k = 0; k < hsize; ++k) H[k] += b.H[k];
    return *this;
  }
  LIEVI_JET_INLINE constexpr Jet2& operator-=(const Jet2& b) {
    v -= b.v;
    LIEVI_JET_UNROLL
    for (int i = 0; i < N; ++i) g[i] -= b.g[i];
    LIEVI_JET_UNROLL
    for (int k = 0; k < hsize; ++k) H[k] -= b.H[k];
    return *this;
  }
  LIEVI_JET_INLINE constexpr Jet2& operator*=(const Jet2& b) {
    LIEVI_JET_UNROLL
    for (int k = 0; k < hsize; ++k)
      H[k] = v * b.H[k] + b.v * H[k] + g[hi[k]] * b.g[hj[k]] + g[hj[k]] * b.g[hi[k]];
    LIEVI_JET_UNROLL
    for (int i = 0; i < N; ++i) g[i] = v * b.g[i] + b.v * g[i];
    v *= b.v;
    return *this;
  }
  LIEVI_JET_INLINE constexpr Jet2& operator/=(const Jet2& b) { return *this *= reciprocal(b); }
  LIEVI_JET_INLINE constexpr Jet2& operator+=(double s) {
    v += s;
    return *this;
  }
  LIEVI_JET_INLINE constexpr Jet2& operator-=(double s) {
    v -= s;
    return *this;
  }
  LIEVI_JET_INLINE constexpr Jet2& operator*=(double s) {
    v *= s;
    LIEVI_JET_UNROLL
    for (auto& x : g) x *= s;
    LIEVI_JET_UNROLL
    for (auto& x : H) x *= s;
    return *this;
  }
  LIEVI_JET_INLINE constexpr Jet2& operator/=(double s) { return *this *= (1.0 / s); }

  /// f(a) from f = f(a.v), d1 = f'(a.v), d2 = f''(a.v).
  LIEVI_JET_INLINE static constexpr Jet2 chain(const Jet2& a, double f, double d1, double d2) {
    Jet2 r;
    r.v = f;
    LIEVI_JET_UNROLL
    for (int k = 0; k < hsize; ++k) r.H[k] = d1 * a.H[k] + d2 * a.g[hi[k]] * a.g[hj[k]];
    LIEVI_JET_UNROLL
    for (int i = 0; i < N; ++i) r.g[i] = d1 * a.g[i];
    return r;
  }
  /// a^2 (half the products of a * a).
  LIEVI_JET_INLINE static constexpr Jet2 square(const Jet2& a) {
    Jet2 r;
    r.v = a.v * a.v;
    LIEVI_JET_UNROLL
    for (int k = 0; k < hsize; ++k) r.H[k] = 2.0 * (a.v * a.H[k] + a.g[hi[k]] * a.g[hj[k]]);
    LIEVI_JET_UNROLL
    for (int i = 0; i < N; ++i) r.g[i] = 2.0 * a.v * a.g[i];
    return r;
  }
  LIEVI_JET_INLINE static constexpr Jet2 reciprocal(const Jet2& b) {
    const double r = 1.0 / b.v;
    return chain(b, r, -r * r, 2.0 * r * r * r);
  }

  LIEVI_JET_INLINE friend constexpr Jet2 operator+(const Jet2& a) { return a; }
  LIEVI_JET_INLINE friend constexpr Jet2 operator-(Jet2 a) { return a *= -1.0; }
  LIEVI_JET_INLINE friend constexpr Jet2 operator+(Jet2 a, const Jet2& b) { return a += b; }
  LIEVI_JET_INLINE friend constexpr Jet2 operator+(Jet2 a, double b) { return a += b; }
  LIEVI_JET_INLINE friend constexpr Jet2 operator+(double a, Jet2 b) { return b += a; }
  LIEVI_JET_INLINE friend constexpr Jet2 operator-(Jet2 a, const Jet2& b) { return a -= b; }
  LIEVI_JET_INLINE friend constexpr Jet2 operator-(Jet2 a, double b) { return a -= b; }
  LIEVI_JET_INLINE friend constexpr Jet2 operator-(double a, const Jet2& b) { return -b + a; }
  LIEVI_JET_INLINE friend constexpr Jet2 operator*(Jet2 a, const Jet2& b) { return a *= b; }
  LIEVI_JET_INLINE friend constexpr Jet2 operator*(Jet2 a, double b) { return a *= b; }
  LIEVI_JET_INLINE friend constexpr Jet2 operator*(double a, Jet2 b) { return b *= a; }
  LIEVI_JET_INLINE friend constexpr Jet2 operator/(Jet2 a, const Jet2& b) { return a /= b; }
  LIEVI_JET_INLINE friend constexpr Jet2 operator/(Jet2 a, double b) { return a /= b; }
  LIEVI_JET_INLINE friend constexpr Jet2 operator/(double a, const Jet2& b) { return reciprocal(b) *= a; }

  // Comparisons look at the value only (branches in user Lagrangians).
  friend constexpr bool operator==(const Jet2& a, const Jet2& b) { return a.v == b.v; }
  friend constexpr bool operator==(const Jet2& a, double b) { return a.v == b; }
  friend constexpr bool operator<(const Jet2& a, const Jet2& b) { return a.v < b.v; }
  friend constexpr bool operator<(const Jet2& a, double b) { return a.v < b; }
  friend constexpr bool operator<(double a, const Jet2& b) { return a < b.v; }
  friend constexpr bool operator>(const Jet2& a, const Jet2& b) { return a.v > b.v; }
  friend constexpr bool operator>(const Jet2& a, double b) { return a.v > b; }
  friend constexpr bool operator>(double a, const Jet2& b) { return a > b.v; }
  friend constexpr bool operator<=(const Jet2& a, const Jet2& b) { return a.v <= b.v; }
  friend constexpr bool operator<=(const Jet2& a, double b) { return a.v <= b; }
  friend constexpr bool operator<=(double a, const Jet2& b) { return a <= b.v; }
  friend constexpr bool operator>=(const Jet2& a, const Jet2& b) { return a.v >= b.v; }
  friend constexpr bool operator>=(const Jet2& a, double b) { return a.v >= b; }
  friend constexpr bool operator>=(double a, const Jet2& b) { return a >= b.v; }
};

inline double value_of_jet(double x) { return x; }
template <int N>
double value_of_jet(const Jet2<N>& x) {
  return x.v;
}

// Math functions (found by ADL): the chain rule with the closed-form first and second derivatives.
template <int N> LIEVI_JET_INLINE Jet2<N> sin(const Jet2<N>& a) {
  const double s = std::sin(a.v), c = std::cos(a.v);
  return Jet2<N>::chain(a, s, c, -s);
}
template <int N> LIEVI_JET_INLINE Jet2<N> cos(const Jet2<N>& a) {
  const double s = std::sin(a.v), c = std::cos(a.v);
  return Jet2<N>::chain(a, c, -s, -c);
}
template <int N> LIEVI_JET_INLINE Jet2<N> tan(const Jet2<N>& a) {
  const double t = std::tan(a.v), d = 1.0 + t * t;
  return Jet2<N>::chain(a, t, d, 2.0 * t * d);
}
template <int N> LIEVI_JET_INLINE Jet2<N> exp(const Jet2<N>& a) {
  const double e = std::exp(a.v);
  return Jet2<N>::chain(a, e, e, e);
}
template <int N> LIEVI_JET_INLINE Jet2<N> log(const Jet2<N>& a) {
  const double r = 1.0 / a.v;
  return Jet2<N>::chain(a, std::log(a.v), r, -r * r);
}
template <int N> LIEVI_JET_INLINE Jet2<N> sqrt(const Jet2<N>& a) {
  const double s = std::sqrt(a.v), d = 0.5 / s;
  return Jet2<N>::chain(a, s, d, -0.5 * d / a.v);
}
/// x^e for a constant exponent e.
template <int N> LIEVI_JET_INLINE Jet2<N> pow(const Jet2<N>& a, double e) {
  const double p2 = std::pow(a.v, e - 2.0);
  return Jet2<N>::chain(a, p2 * a.v * a.v, e * p2 * a.v, e * (e - 1.0) * p2);
}
/// a^b = exp(b log a) (a > 0).
template <int N> LIEVI_JET_INLINE Jet2<N> pow(const Jet2<N>& a, const Jet2<N>& b) { return exp(b * log(a)); }
template <int N> LIEVI_JET_INLINE Jet2<N> abs(const Jet2<N>& a) { return a.v < 0.0 ? -a : a; }
template <int N> LIEVI_JET_INLINE Jet2<N> fabs(const Jet2<N>& a) { return abs(a); }
template <int N> LIEVI_JET_INLINE Jet2<N> sinh(const Jet2<N>& a) {
  const double s = std::sinh(a.v), c = std::cosh(a.v);
  return Jet2<N>::chain(a, s, c, s);
}
template <int N> LIEVI_JET_INLINE Jet2<N> cosh(const Jet2<N>& a) {
  const double s = std::sinh(a.v), c = std::cosh(a.v);
  return Jet2<N>::chain(a, c, s, c);
}
template <int N> LIEVI_JET_INLINE Jet2<N> tanh(const Jet2<N>& a) {
  const double t = std::tanh(a.v), d = 1.0 - t * t;
  return Jet2<N>::chain(a, t, d, -2.0 * t * d);
}
template <int N> LIEVI_JET_INLINE Jet2<N> atan(const Jet2<N>& a) {
  const double d = 1.0 / (1.0 + a.v * a.v);
  return Jet2<N>::chain(a, std::atan(a.v), d, -2.0 * a.v * d * d);
}
template <int N> LIEVI_JET_INLINE Jet2<N> asin(const Jet2<N>& a) {
  const double w = 1.0 - a.v * a.v, d = 1.0 / std::sqrt(w);
  return Jet2<N>::chain(a, std::asin(a.v), d, a.v * d / w);
}
template <int N> LIEVI_JET_INLINE Jet2<N> acos(const Jet2<N>& a) {
  const double w = 1.0 - a.v * a.v, d = 1.0 / std::sqrt(w);
  return Jet2<N>::chain(a, std::acos(a.v), -d, -a.v * d / w);
}
/// atan2(y, x): the value from std::atan2, the derivatives d = (x dy - y dx) / (x^2 + y^2) and their
/// differentials from atan(y / x) where |x| >= |y| and from -atan(x / y) elsewhere (same derivatives, no
/// division by a small number).
template <int N> LIEVI_JET_INLINE Jet2<N> atan2(const Jet2<N>& y, const Jet2<N>& x) {
  Jet2<N> t = std::abs(x.v) >= std::abs(y.v) ? atan(y / x) : -atan(x / y);
  t.v = std::atan2(y.v, x.v);
  return t;
}
template <int N> bool isfinite(const Jet2<N>& a) {
  if (!std::isfinite(a.v)) return false;
  LIEVI_JET_UNROLL
  for (double x : a.g)
    if (!std::isfinite(x)) return false;
  LIEVI_JET_UNROLL
  for (double x : a.H)
    if (!std::isfinite(x)) return false;
  return true;
}
template <int N> bool isnan(const Jet2<N>& a) { return std::isnan(a.v); }
template <int N> bool isinf(const Jet2<N>& a) { return std::isinf(a.v); }

/// Seeds x_i -> (x_i, e_i, 0).
template <int N>
Eigen::Matrix<Jet2<N>, N, 1> seed_jet(const Eigen::Matrix<double, N, 1>& x) {
  Eigen::Matrix<Jet2<N>, N, 1> y;
  LIEVI_JET_UNROLL
  for (int i = 0; i < N; ++i) y(i) = Jet2<N>(x(i), i);
  return y;
}

}  // namespace lievi::integrators::del

namespace Eigen {

template <int N>
struct NumTraits<lievi::integrators::del::Jet2<N>> {
  using Real = lievi::integrators::del::Jet2<N>;
  using NonInteger = Real;
  using Literal = Real;
  using Nested = Real;
  enum {
    IsComplex = 0,
    IsInteger = 0,
    IsSigned = 1,
    RequireInitialization = 1,
    // Nominal costs, deliberately those of a few doubles: Eigen unrolls fixed-size expressions (dot,
    // squaredNorm, small products) only below EIGEN_UNROLLING_LIMIT, and the true flop counts of a jet
    // (~2 N^2 per product) would keep the small reductions of a user Lagrangian as out-of-line loops
    // (measured: 30% of an AD DEL step in a non-inlined squaredNorm).
    ReadCost = 1,
    AddCost = 2,
    MulCost = 4
  };
  static inline Real epsilon() { return Real(NumTraits<double>::epsilon()); }
  static inline Real dummy_precision() { return Real(NumTraits<double>::dummy_precision()); }
  static inline Real highest() { return Real(NumTraits<double>::highest()); }
  static inline Real lowest() { return Real(NumTraits<double>::lowest()); }
  static inline Real infinity() { return Real(NumTraits<double>::infinity()); }
  static inline Real quiet_NaN() { return Real(NumTraits<double>::quiet_NaN()); }
  static inline int digits10() { return NumTraits<double>::digits10(); }
};

namespace internal {
/// |x|^2 of a real jet is x * x (Eigen's squaredNorm, norm, dot with itself); specialised so that it is the
/// inlined square rather than Eigen's out-of-line default (measured: 20% of an AD DEL step at -O3).
template <int N>
struct abs2_impl<lievi::integrators::del::Jet2<N>> {
  LIEVI_JET_INLINE static lievi::integrators::del::Jet2<N> run(const lievi::integrators::del::Jet2<N>& x) {
    return lievi::integrators::del::Jet2<N>::square(x);
  }
};
}  // namespace internal

/// double (x) Jet2 -> Jet2, so that `h * v` and `M * qdot` (M a double matrix) work on jet vectors.
template <int N, class BinaryOp>
struct ScalarBinaryOpTraits<lievi::integrators::del::Jet2<N>, double, BinaryOp> {
  using ReturnType = lievi::integrators::del::Jet2<N>;
};
template <int N, class BinaryOp>
struct ScalarBinaryOpTraits<double, lievi::integrators::del::Jet2<N>, BinaryOp> {
  using ReturnType = lievi::integrators::del::Jet2<N>;
};

}  // namespace Eigen
