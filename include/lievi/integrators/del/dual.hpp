#pragma once
/// @file lievi/integrators/del/dual.hpp
/// @brief Fixed-size forward-mode dual numbers `Dual<T, N>` (value + N tangents, std::array storage, no heap),
/// nestable (`Dual<Dual<double, N>, N>` carries second derivatives), with Eigen NumTraits, and helpers for the
/// gradient and Hessian of a scalar function of a fixed-size Eigen vector.
///
/// Convention: for x = (v, d), f(x) = (f(v), f'(v) d). Second derivatives: seed
/// x_i = ((x_i, e_i), (e_i, 0)); then f(x) = ((f, grad f), (grad f, Hess f)) and Hess f (i, j) = y.d[i].d[j].
#include <Eigen/Core>
#include <array>
#include <cmath>
#include <limits>
#include <type_traits>

namespace lievi::integrators::del {

/// Forward-mode dual number: value `v` and N tangents `d` (directional derivatives along the seeds).
template <class T, int N>
struct Dual {
  static_assert(N >= 1, "Dual needs at least one tangent");
  using value_type = T;
  static constexpr int size = N;
  T v{};
  std::array<T, N> d{};

  constexpr Dual() = default;
  /// A constant (zero tangents). Implicit so that constants mix with duals.
  constexpr Dual(const T& value) : v(value) {}  // NOLINT(google-explicit-constructor)
  template <class A>
    requires(std::is_arithmetic_v<A> && !std::is_same_v<A, T>)
  constexpr Dual(A value) : v(static_cast<T>(static_cast<double>(value))) {}  // NOLINT
  /// The independent variable number i: value `value`, tangent e_i.
  constexpr Dual(const T& value, int i) : v(value) { d[static_cast<std::size_t>(i)] = T(1.0); }

  constexpr Dual& operator+=(const Dual& b) {
    v += b.v;
    for (int i = 0; i < N; ++i) d[i] += b.d[i];
    return *this;
  }
  constexpr Dual& operator-=(const Dual& b) {
    v -= b.v;
    for (int i = 0; i < N; ++i) d[i] -= b.d[i];
    return *this;
  }
  constexpr Dual& operator*=(const Dual& b) {
    for (int i = 0; i < N; ++i) d[i] = d[i] * b.v + v * b.d[i];
    v *= b.v;
    return *this;
  }
  constexpr Dual& operator/=(const Dual& b) {
    const T inv = T(1.0) / b.v;
    v *= inv;
    for (int i = 0; i < N; ++i) d[i] = (d[i] - v * b.d[i]) * inv;
    return *this;
  }
  constexpr Dual& operator+=(double s) { v += s; return *this; }
  constexpr Dual& operator-=(double s) { v -= s; return *this; }
  constexpr Dual& operator*=(double s) {
    v *= s;
    for (auto& x : d) x *= s;
    return *this;
  }
  constexpr Dual& operator/=(double s) { return *this *= (1.0 / s); }

  friend constexpr Dual operator+(const Dual& a) { return a; }
  friend constexpr Dual operator-(const Dual& a) {
    Dual r;
    r.v = -a.v;
    for (int i = 0; i < N; ++i) r.d[i] = -a.d[i];
    return r;
  }
  friend constexpr Dual operator+(Dual a, const Dual& b) { return a += b; }
  friend constexpr Dual operator+(Dual a, double b) { return a += b; }
  friend constexpr Dual operator+(double a, Dual b) { return b += a; }
  friend constexpr Dual operator-(Dual a, const Dual& b) { return a -= b; }
  friend constexpr Dual operator-(Dual a, double b) { return a -= b; }
  friend constexpr Dual operator-(double a, const Dual& b) {
    Dual r = -b;
    r.v += a;
    return r;
  }
  friend constexpr Dual operator*(Dual a, const Dual& b) { return a *= b; }
  friend constexpr Dual operator*(Dual a, double b) { return a *= b; }
  friend constexpr Dual operator*(double a, Dual b) { return b *= a; }
  friend constexpr Dual operator/(Dual a, const Dual& b) { return a /= b; }
  friend constexpr Dual operator/(Dual a, double b) { return a /= b; }
  friend constexpr Dual operator/(double a, const Dual& b) {
    Dual r;
    r.v = a / b.v;
    const T g = -r.v / b.v;
    for (int i = 0; i < N; ++i) r.d[i] = g * b.d[i];
    return r;
  }

  // Comparisons look at the value only (branches in user Lagrangians).
  friend constexpr bool operator==(const Dual& a, const Dual& b) { return a.v == b.v; }
  friend constexpr bool operator==(const Dual& a, double b) { return a.v == b; }
  friend constexpr bool operator<(const Dual& a, const Dual& b) { return a.v < b.v; }
  friend constexpr bool operator<(const Dual& a, double b) { return a.v < b; }
  friend constexpr bool operator<(double a, const Dual& b) { return a < b.v; }
  friend constexpr bool operator>(const Dual& a, const Dual& b) { return a.v > b.v; }
  friend constexpr bool operator>(const Dual& a, double b) { return a.v > b; }
  friend constexpr bool operator>(double a, const Dual& b) { return a > b.v; }
  friend constexpr bool operator<=(const Dual& a, const Dual& b) { return a.v <= b.v; }
  friend constexpr bool operator<=(const Dual& a, double b) { return a.v <= b; }
  friend constexpr bool operator<=(double a, const Dual& b) { return a <= b.v; }
  friend constexpr bool operator>=(const Dual& a, const Dual& b) { return a.v >= b.v; }
  friend constexpr bool operator>=(const Dual& a, double b) { return a.v >= b; }
  friend constexpr bool operator>=(double a, const Dual& b) { return a >= b.v; }
};

/// The innermost real value of a (possibly nested) dual or a double.
inline double value_of(double x) { return x; }
template <class T, int N>
double value_of(const Dual<T, N>& x) {
  return value_of(x.v);
}

/// Chain rule: (f(a.v), df * a.d).
template <class T, int N>
Dual<T, N> chain(const Dual<T, N>& a, const T& f, const T& df) {
  Dual<T, N> r(f);
  for (int i = 0; i < N; ++i) r.d[i] = df * a.d[i];
  return r;
}

// Math functions (found by ADL; each is the chain rule with the closed-form derivative).
template <class T, int N> Dual<T, N> sin(const Dual<T, N>& a) { using std::cos; using std::sin; return chain(a, sin(a.v), cos(a.v)); }
template <class T, int N> Dual<T, N> cos(const Dual<T, N>& a) { using std::cos; using std::sin; return chain(a, cos(a.v), T(-sin(a.v))); }
template <class T, int N> Dual<T, N> tan(const Dual<T, N>& a) {
  using std::tan;
  const T t = tan(a.v);
  return chain(a, t, T(1.0 + t * t));
}
template <class T, int N> Dual<T, N> exp(const Dual<T, N>& a) { using std::exp; const T e = exp(a.v); return chain(a, e, e); }
template <class T, int N> Dual<T, N> log(const Dual<T, N>& a) { using std::log; return chain(a, log(a.v), T(1.0 / a.v)); }
template <class T, int N> Dual<T, N> sqrt(const Dual<T, N>& a) {
  using std::sqrt;
  const T s = sqrt(a.v);
  return chain(a, s, T(0.5 / s));
}
/// x^e for a constant exponent e.
template <class T, int N> Dual<T, N> pow(const Dual<T, N>& a, double e) {
  using std::pow;
  return chain(a, pow(a.v, e), T(e * pow(a.v, e - 1.0)));
}
/// a^b = exp(b log a) (a > 0).
template <class T, int N> Dual<T, N> pow(const Dual<T, N>& a, const Dual<T, N>& b) { return exp(b * log(a)); }
template <class T, int N> Dual<T, N> abs(const Dual<T, N>& a) { return a.v < 0.0 ? -a : a; }
template <class T, int N> Dual<T, N> fabs(const Dual<T, N>& a) { return abs(a); }
template <class T, int N> Dual<T, N> sinh(const Dual<T, N>& a) { using std::cosh; using std::sinh; return chain(a, sinh(a.v), cosh(a.v)); }
template <class T, int N> Dual<T, N> cosh(const Dual<T, N>& a) { using std::cosh; using std::sinh; return chain(a, cosh(a.v), sinh(a.v)); }
template <class T, int N> Dual<T, N> tanh(const Dual<T, N>& a) {
  using std::tanh;
  const T t = tanh(a.v);
  return chain(a, t, T(1.0 - t * t));
}
template <class T, int N> Dual<T, N> atan(const Dual<T, N>& a) { using std::atan; return chain(a, atan(a.v), T(1.0 / (1.0 + a.v * a.v))); }
template <class T, int N> Dual<T, N> asin(const Dual<T, N>& a) {
  using std::asin; using std::sqrt;
  return chain(a, asin(a.v), T(1.0 / sqrt(1.0 - a.v * a.v)));
}
template <class T, int N> Dual<T, N> acos(const Dual<T, N>& a) {
  using std::acos; using std::sqrt;
  return chain(a, acos(a.v), T(-1.0 / sqrt(1.0 - a.v * a.v)));
}
/// atan2(y, x): d = (x dy - y dx) / (x^2 + y^2).
template <class T, int N> Dual<T, N> atan2(const Dual<T, N>& y, const Dual<T, N>& x) {
  using std::atan2;
  Dual<T, N> r(atan2(y.v, x.v));
  const T inv = T(1.0) / (x.v * x.v + y.v * y.v);
  for (int i = 0; i < N; ++i) r.d[i] = (x.v * y.d[i] - y.v * x.d[i]) * inv;
  return r;
}
template <class T, int N> bool isfinite(const Dual<T, N>& a) {
  using std::isfinite;
  if (!isfinite(a.v)) return false;
  for (const auto& x : a.d) if (!isfinite(x)) return false;
  return true;
}
template <class T, int N> bool isnan(const Dual<T, N>& a) { using std::isnan; return isnan(a.v); }
template <class T, int N> bool isinf(const Dual<T, N>& a) { using std::isinf; return isinf(a.v); }

/// Value and gradient of a scalar function.
template <int N>
struct ValueGradient {
  double value = 0.0;
  Eigen::Matrix<double, N, 1> gradient;
};

/// Value, gradient and Hessian of a scalar function.
template <int N>
struct ValueGradientHessian {
  double value = 0.0;
  Eigen::Matrix<double, N, 1> gradient;
  Eigen::Matrix<double, N, N> hessian;
};

/// First-order seeds: x_i -> (x_i, e_i).
template <int N>
Eigen::Matrix<Dual<double, N>, N, 1> seed_first(const Eigen::Matrix<double, N, 1>& x) {
  Eigen::Matrix<Dual<double, N>, N, 1> y;
  for (int i = 0; i < N; ++i) y(i) = Dual<double, N>(x(i), i);
  return y;
}

/// Second-order seeds: x_i -> ((x_i, e_i), (e_i, 0)).
template <int N>
Eigen::Matrix<Dual<Dual<double, N>, N>, N, 1> seed_second(const Eigen::Matrix<double, N, 1>& x) {
  using D1 = Dual<double, N>;
  Eigen::Matrix<Dual<D1, N>, N, 1> y;
  for (int i = 0; i < N; ++i) {
    y(i) = Dual<D1, N>(D1(x(i), i));
    y(i).d[static_cast<std::size_t>(i)] = D1(1.0);
  }
  return y;
}

/// Value and gradient of f: R^N -> R at x (f is called once with `Eigen::Matrix<Dual<double, N>, N, 1>`).
template <int N, class F>
ValueGradient<N> gradient(F&& f, const Eigen::Matrix<double, N, 1>& x) {
  const Dual<double, N> y = f(seed_first<N>(x));
  ValueGradient<N> r;
  r.value = y.v;
  for (int i = 0; i < N; ++i) r.gradient(i) = y.d[i];
  return r;
}

/// Value, gradient and Hessian of f: R^N -> R at x (one call with nested duals Dual<Dual<double, N>, N>).
template <int N, class F>
ValueGradientHessian<N> hessian(F&& f, const Eigen::Matrix<double, N, 1>& x) {
  const Dual<Dual<double, N>, N> y = f(seed_second<N>(x));
  ValueGradientHessian<N> r;
  r.value = y.v.v;
  for (int i = 0; i < N; ++i) {
    r.gradient(i) = y.v.d[i];
    for (int j = 0; j < N; ++j) r.hessian(i, j) = y.d[i].d[j];
  }
  return r;
}

/// Jacobian of f: R^N -> R^M at x (f returns Eigen::Matrix<Dual<double, N>, M, 1>).
template <int M, int N, class F>
Eigen::Matrix<double, M, N> jacobian(F&& f, const Eigen::Matrix<double, N, 1>& x,
                                     Eigen::Matrix<double, M, 1>* value = nullptr) {
  const Eigen::Matrix<Dual<double, N>, M, 1> y = f(seed_first<N>(x));
  Eigen::Matrix<double, M, N> J;
  for (int i = 0; i < M; ++i) {
    if (value) (*value)(i) = y(i).v;
    for (int j = 0; j < N; ++j) J(i, j) = y(i).d[j];
  }
  return J;
}

}  // namespace lievi::integrators::del

namespace Eigen {

/// Eigen scalar traits of the dual numbers (not vectorised; costs scale with the number of tangents).
template <class T, int N>
struct NumTraits<lievi::integrators::del::Dual<T, N>> {
  using Real = lievi::integrators::del::Dual<T, N>;
  using NonInteger = Real;
  using Literal = Real;
  using Nested = Real;
  enum {
    IsComplex = 0,
    IsInteger = 0,
    IsSigned = 1,
    RequireInitialization = 1,
    ReadCost = (N + 1) * NumTraits<T>::ReadCost,
    AddCost = (N + 1) * NumTraits<T>::AddCost,
    MulCost = (2 * N + 1) * NumTraits<T>::MulCost + N * NumTraits<T>::AddCost
  };
  static inline Real epsilon() { return Real(NumTraits<T>::epsilon()); }
  static inline Real dummy_precision() { return Real(NumTraits<T>::dummy_precision()); }
  static inline Real highest() { return Real(NumTraits<T>::highest()); }
  static inline Real lowest() { return Real(NumTraits<T>::lowest()); }
  static inline Real infinity() { return Real(NumTraits<T>::infinity()); }
  static inline Real quiet_NaN() { return Real(NumTraits<T>::quiet_NaN()); }
  static inline int digits10() { return NumTraits<T>::digits10(); }
};

/// double (x) Dual -> Dual, so that `h * v` and `M * qdot` (M a double matrix) work on Dual vectors.
template <class T, int N, class BinaryOp>
struct ScalarBinaryOpTraits<lievi::integrators::del::Dual<T, N>, double, BinaryOp> {
  using ReturnType = lievi::integrators::del::Dual<T, N>;
};
template <class T, int N, class BinaryOp>
struct ScalarBinaryOpTraits<double, lievi::integrators::del::Dual<T, N>, BinaryOp> {
  using ReturnType = lievi::integrators::del::Dual<T, N>;
};

}  // namespace Eigen
