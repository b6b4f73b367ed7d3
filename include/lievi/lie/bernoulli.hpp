#pragma once
/// @file lievi/lie/bernoulli.hpp
/// @brief The coefficients b_k = B_k / k! of dexp^{-1}_x = sum_k b_k ad_x^k, as a compile-time table.
///
/// Convention: B_1 = -1/2 (so dexp^{-1}_x = I - ½ ad_x + (1/12) ad_x^2 - ...), B_{2n+1} = 0 for n >= 1.
/// Generating function: t / (e^t - 1) = sum_k B_k t^k / k!.
/// For 2 <= k <= 30 the table is built from the exact fractions B_k = num/den; beyond, from
/// B_{2n}/(2n)! = (-1)^{n+1} 2 zeta(2n) / (2 pi)^{2n}, with zeta(2n) summed to 12 terms (the omitted tail is
/// < 13^{-32}, far below the rounding of a double). Everything is evaluated in long double and rounded once.
#include <array>

namespace lievi::lie::bernoulli {

/// Largest k in the table (dexp_inv_series accepts orders up to this).
inline constexpr int max_order = 64;

namespace detail {

/// Exact even Bernoulli numbers B_{2n} = num/den, n = 1..15.
struct Fraction {
  long double num, den;
};
inline constexpr Fraction even_B[15] = {
    {1.0L, 6.0L},
    {-1.0L, 30.0L},
    {1.0L, 42.0L},
    {-1.0L, 30.0L},
    {5.0L, 66.0L},
    {-691.0L, 2730.0L},
    {7.0L, 6.0L},
    {-3617.0L, 510.0L},
    {43867.0L, 798.0L},
    {-174611.0L, 330.0L},
    {854513.0L, 138.0L},
    {-236364091.0L, 2730.0L},
    {8553103.0L, 6.0L},
    {-23749461029.0L, 870.0L},
    {8615841276005.0L, 14322.0L},
};

constexpr std::array<double, max_order + 1> make_table() {
  std::array<double, max_order + 1> b{};
  b[0] = 1.0;
  b[1] = -0.5;
  constexpr long double two_pi = 6.283185307179586476925286766559005768L;
  long double fact = 1.0L;      // k!
  long double two_pi_k = 1.0L;  // (2 pi)^k
  for (int k = 1; k <= max_order; ++k) {
    fact *= static_cast<long double>(k);
    two_pi_k *= two_pi;
    if (k < 2 || k % 2 == 1) continue;  // b_1 set above; odd k >= 3 vanish
    const int n = k / 2;
    if (n <= 15) {
      b[k] = static_cast<double>(even_B[n - 1].num / (even_B[n - 1].den * fact));
    } else {
      long double zeta = 0.0L;
      for (int m = 1; m <= 12; ++m) {
        long double pm = 1.0L;
        for (int j = 0; j < k; ++j) pm /= static_cast<long double>(m);
        zeta += pm;
      }
      const long double sign = (n % 2 == 1) ? 1.0L : -1.0L;
      b[k] = static_cast<double>(sign * 2.0L * zeta / two_pi_k);
    }
  }
  return b;
}

}  // namespace detail

/// b_k = B_k / k!, k = 0..max_order (B_1 = -1/2).
inline constexpr std::array<double, max_order + 1> over_factorial = detail::make_table();

}  // namespace lievi::lie::bernoulli
