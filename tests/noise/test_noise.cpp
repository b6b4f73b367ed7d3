// The noise streams (lievi/noise/philox.hpp, wiener.hpp) against things they do not compute themselves:
//  - Philox4x32-10 against the published Random123 known-answer vectors (kat_vectors) and against Random123's own
//    C++ and C implementations on random counters;
//  - the u01 rule against a long-double evaluation of its definition, at the extreme words;
//  - lievi's log / cos / sin kernels against libm (std::log, long-double std::cos/std::sin) and Boost.Math
//    cos_pi / sin_pi (exact argument reduction), <= 2 ulp;
//  - Box-Muller (stream version 2: both outputs of a block) against a long-double evaluation of the stated rule
//    from the raw Philox words;
//  - the normals against N(0, 1): moments, Kolmogorov-Smirnov, Anderson-Darling, chi-square, tails, lag-1
//    correlations (between the two outputs of one block too, and of their squares);
//  - the Wiener increments against sums of fine increments computed here, batch == scalar bitwise, OpenMP runs
//    with 1 and 2 threads == serial, path independence, and the truncation rule.
//
// Every statistical check uses a fixed seed, so the outcome is deterministic; the "false-alarm rate" quoted is
// the probability that a correct N(0, 1) generator would fail that check for a random seed. Bounds at 6 sigma
// (two-sided normal tail 2e-9) unless stated; correlations at 5/sqrt(n) (5.7e-7); KS and chi-square at 1e-6.
#include <gtest/gtest.h>
#include <omp.h>

#include <Random123/philox.h>

#include <algorithm>
#include <bit>
#include <boost/math/distributions/chi_squared.hpp>
#include <boost/math/special_functions/cos_pi.hpp>
#include <boost/math/special_functions/sin_pi.hpp>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <numeric>
#include <random>
#include <stdexcept>
#include <vector>

#include "lievi/core/isa.hpp"
#include "lievi/noise/philox.hpp"
#include "lievi/noise/stream_steps.hpp"
#include "lievi/noise/wiener.hpp"
#include "noise/frozen_stream.hpp"

namespace {

using namespace lievi::noise;
using LD = long double;

// --- helpers ---------------------------------------------------------------------------------------------

/// Distance in units in the last place between two finite doubles (0 for +0 vs -0).
std::uint64_t ulp_distance(double a, double b) {
  auto ordered = [](double x) {
    const auto b = std::bit_cast<std::int64_t>(x);
    return b < 0 ? std::numeric_limits<std::int64_t>::min() - b : b;  // monotone map of the doubles
  };
  const std::int64_t ia = ordered(a), ib = ordered(b);
  return ia > ib ? static_cast<std::uint64_t>(ia) - static_cast<std::uint64_t>(ib)
                 : static_cast<std::uint64_t>(ib) - static_cast<std::uint64_t>(ia);
}

/// |a - ref| in ulps of ref (the double spacing of the binade of ref; exact zero ref: 0 iff a == 0).
double ulp_error(double a, LD ref) {
  if (ref == 0.0L) return a == 0.0 ? 0.0 : std::numeric_limits<double>::infinity();
  int e = 0;
  std::frexp(static_cast<double>(ref), &e);  // ref = f 2^e, f in [0.5, 1)
  const LD ulp = std::ldexp(1.0L, e - 53);
  return static_cast<double>(std::fabs(static_cast<LD>(a) - ref) / ulp);
}

bool same_bits(double a, double b) { return std::bit_cast<std::uint64_t>(a) == std::bit_cast<std::uint64_t>(b); }

/// Independent u01: (x + 1/2) 2^-53 in long double (exact), one rounding to double, 1 -> 1 - 2^-53.
double u01_reference(std::uint32_t hi, std::uint32_t lo) {
  const std::uint64_t x = ((static_cast<std::uint64_t>(hi) << 32) | lo) >> 11;
  const double u = static_cast<double>((static_cast<LD>(x) + 0.5L) * 0x1.0p-53L);
  return u < 1.0 ? u : std::nextafter(1.0, 0.0);
}

/// Standard normal CDF.
double Phi(double x) { return 0.5 * std::erfc(-x / std::sqrt(2.0)); }

/// Pearson correlation of two equally long samples.
double correlation(const std::vector<double>& x, const std::vector<double>& y) {
  const std::size_t n = x.size();
  LD mx = 0, my = 0;
  for (std::size_t i = 0; i < n; ++i) {
    mx += x[i];
    my += y[i];
  }
  mx /= n;
  my /= n;
  LD sxy = 0, sxx = 0, syy = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const LD dx = x[i] - mx, dy = y[i] - my;
    sxy += dx * dy;
    sxx += dx * dx;
    syy += dy * dy;
  }
  return static_cast<double>(sxy / std::sqrt(sxx * syy));
}

/// steps x count normals (indices index0 ...) of one stream, row-major by step (batch path).
std::vector<double> normals_grid(StreamKey key, std::uint64_t step0, std::size_t steps, std::uint32_t index0,
                                 std::size_t count, std::uint32_t group = kDefaultGroup) {
  std::vector<double> z(steps * count);
  for (std::size_t s = 0; s < steps; ++s) stream_normals(key, step0 + s, group, index0, count, z.data() + s * count);
  return z;
}

// --- Philox ----------------------------------------------------------------------------------------------

TEST(Philox, KnownAnswerVectors) {
  // Random123 kat_vectors, "philox4x32 10": counter (4 words), key (2 words), expected output (4 words).
  struct Kat {
    std::uint32_t ctr[4], key[2], out[4];
  };
  const Kat kats[] = {
      {{0, 0, 0, 0}, {0, 0}, {0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8}},
      {{0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff},
       {0xffffffff, 0xffffffff},
       {0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd}},
      {{0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344},
       {0xa4093822, 0x299f31d0},
       {0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1}},
  };
  for (const Kat& k : kats) {
    // lievi's layout: counter = {step lo, step hi, group, block}, key = {seed, path}.
    const std::uint64_t step = (static_cast<std::uint64_t>(k.ctr[1]) << 32) | k.ctr[0];
    const Block b = philox_block(StreamKey{k.key[0], k.key[1]}, step, k.ctr[2], k.ctr[3]);
    // Random123's C interface, as a second implementation.
    const philox4x32_ctr_t c = {{k.ctr[0], k.ctr[1], k.ctr[2], k.ctr[3]}};
    const philox4x32_key_t kk = {{k.key[0], k.key[1]}};
    const philox4x32_ctr_t r = philox4x32_R(10, c, kk);
    for (int j = 0; j < 4; ++j) {
      EXPECT_EQ(b.r[j], k.out[j]) << "word " << j;
      EXPECT_EQ(r.v[j], k.out[j]) << "word " << j << " (Random123 C API)";
    }
  }
}

TEST(Philox, MatchesRandom123OnRandomCounters) {
  std::mt19937_64 rng(20240601);
  r123::Philox4x32_R<10> philox;
  for (int t = 0; t < 20000; ++t) {
    const std::uint64_t step = rng();
    const auto mode = static_cast<std::uint32_t>(rng()), block = static_cast<std::uint32_t>(rng());
    const StreamKey key{static_cast<std::uint32_t>(rng()), static_cast<std::uint32_t>(rng())};
    const r123::Philox4x32_R<10>::ctr_type c = {
        {static_cast<std::uint32_t>(step), static_cast<std::uint32_t>(step >> 32), mode, block}};
    const r123::Philox4x32_R<10>::key_type k = {{key.seed, key.path}};
    const auto r = philox(c, k);
    const Block b = philox_block(key, step, mode, block);
    for (int j = 0; j < 4; ++j) ASSERT_EQ(b.r[j], r.v[j]) << "trial " << t << " word " << j;
  }
}

// --- u01 -------------------------------------------------------------------------------------------------

TEST(U01, RangeAndRuleAtExtremeWords) {
  constexpr double kTop = 0x1.fffffffffffffp-1;  // 1 - 2^-53
  EXPECT_EQ(u01(0, 0), 0x1.0p-54);
  EXPECT_EQ(u01(0, 0x7ff), 0x1.0p-54);  // the 11 low bits of lo are dropped
  EXPECT_EQ(u01(0, 0x800), 1.5 * 0x1.0p-53);
  EXPECT_EQ(u01(0xffffffff, 0xffffffff), kTop);  // fl(2^53 - 1/2) = 2^53 would give exactly 1
  EXPECT_EQ(u01(0xffffffff, 0xfffff800), kTop);
  EXPECT_EQ(u01(0xffffffff, 0xfffff7ff), 0x1.ffffffffffffep-1);  // x = 2^53 - 2: fl(x + 1/2) = x (ties to even)
  EXPECT_EQ(u01(0x80000000, 0), 0.5);            // x = 2^52: fl(2^52 + 1/2) = 2^52
  const std::uint32_t words[] = {0u, 1u, 0x7ffu, 0x800u, 0x7fffffffu, 0x80000000u, 0xfffff7ffu, 0xfffff800u,
                                 0xfffffffeu, 0xffffffffu};
  for (std::uint32_t hi : words) {
    for (std::uint32_t lo : words) {
      const double u = u01(hi, lo);
      EXPECT_GT(u, 0.0);
      EXPECT_LT(u, 1.0);
      EXPECT_EQ(u, u01_reference(hi, lo)) << std::hex << hi << " " << lo;
    }
  }
  std::mt19937_64 rng(7);
  for (int t = 0; t < 200000; ++t) {
    const std::uint64_t w = rng();
    const auto hi = static_cast<std::uint32_t>(w >> 32), lo = static_cast<std::uint32_t>(w);
    ASSERT_EQ(u01(hi, lo), u01_reference(hi, lo)) << std::hex << hi << " " << lo;
  }
}

// --- elementary kernels ----------------------------------------------------------------------------------

/// 10^6 + extra arguments in (0, 1): u01 values, the same scaled down by 2^-j (j <= 53) to cover every binade
/// down to 2^-54, the neighbourhood of 1, and the extremes.
std::vector<double> kernel_arguments() {
  std::vector<double> u;
  u.reserve(1000000 + 4000);
  std::mt19937_64 rng(99);
  for (int t = 0; t < 1000000; ++t) {
    const std::uint64_t w = rng();
    double x = u01(static_cast<std::uint32_t>(w >> 32), static_cast<std::uint32_t>(w));
    if (t % 4 == 1) x = std::max(std::ldexp(x, -static_cast<int>(rng() % 54)), 0x1.0p-54);
    u.push_back(x);
  }
  for (int k = 1; k <= 1000; ++k) {
    u.push_back(1.0 - k * 0x1.0p-53);  // just below 1
    u.push_back(k * 0x1.0p-54);        // the smallest u01 values
    u.push_back(0.5 + k * 0x1.0p-53);  // around 1/2 (sin/cos zero crossing at 2 pi u = pi)
    u.push_back(0.25 - k * 0x1.0p-54);
  }
  u.push_back(0x1.0p-54);
  u.push_back(0x1.fffffffffffffp-1);
  return u;
}

TEST(Kernels, LogWithinTwoUlpOfLibm) {
  // Requirement <= 2 ulp against libm's std::log; also <= 1 ulp against the long-double log (measured 0.81).
  std::uint64_t worst_libm = 0;
  double worst_ld = 0.0;
  for (const double u : kernel_arguments()) {
    const double l = detail::log_unit(u);
    worst_libm = std::max(worst_libm, ulp_distance(l, std::log(u)));
    worst_ld = std::max(worst_ld, ulp_error(l, std::log(static_cast<LD>(u))));
  }
  EXPECT_LE(worst_libm, 2u);
  EXPECT_LE(worst_ld, 1.0);
  EXPECT_EQ(detail::log_unit(0x1.fffffffffffffp-1), -0x1.0p-53);  // log(1 - 2^-53) = -2^-53 (1 + 2^-54 ...)
  EXPECT_LE(ulp_distance(detail::log_unit(0x1.0p-54), std::log(0x1.0p-54)), 1u);
  EXPECT_EQ(detail::log_unit(1.0), 0.0);
  EXPECT_EQ(detail::log_unit(0.5), -std::log(2.0));
  // Beyond (0, 1): any normal positive argument (used for the truncation bound).
  for (double x : {2.0, 10.0, 1e10, 1e300, 0x1.0p-1022}) EXPECT_LE(ulp_distance(detail::log_unit(x), std::log(x)), 1u);
}

TEST(Kernels, CosSinTwoPiWithinTwoUlp) {
  // Reference 1 (all points): Boost.Math cos_pi / sin_pi in long double at 2u (exact), which reduces the argument
  // exactly; <= 2 ulp (measured 1.28). Reference 2 (|value| >= 1/16, where the rounding of the long-double
  // angle 2 pi u, <= 4e-19 absolute, is < 0.06 ulp): libm std::cos / std::sin in long double; <= 2 ulp.
  double worst_c = 0.0, worst_s = 0.0, worst_c_libm = 0.0, worst_s_libm = 0.0;
  const LD two_pi = 6.283185307179586476925286766559005768L;
  for (const double u : kernel_arguments()) {
    const double c = detail::cos_2pi(u), s = detail::sin_2pi(u);
    worst_c = std::max(worst_c, ulp_error(c, boost::math::cos_pi(2.0L * u)));
    worst_s = std::max(worst_s, ulp_error(s, boost::math::sin_pi(2.0L * u)));
    const LD rc = std::cos(two_pi * u), rs = std::sin(two_pi * u);
    if (std::fabs(rc) >= 0.0625L) worst_c_libm = std::max(worst_c_libm, ulp_error(c, rc));
    if (std::fabs(rs) >= 0.0625L) worst_s_libm = std::max(worst_s_libm, ulp_error(s, rs));
  }
  EXPECT_LE(worst_c, 2.0);
  EXPECT_LE(worst_s, 2.0);
  EXPECT_LE(worst_c_libm, 2.0);
  EXPECT_LE(worst_s_libm, 2.0);
  // Exact points of the quadrant reduction.
  EXPECT_EQ(detail::cos_2pi(0.5), -1.0);
  EXPECT_EQ(detail::sin_2pi(0.25), 1.0);
  EXPECT_EQ(detail::sin_2pi(0.75), -1.0);
  EXPECT_EQ(std::fabs(detail::cos_2pi(0.25)), 0.0);
  EXPECT_EQ(std::fabs(detail::sin_2pi(0.5)), 0.0);
  EXPECT_EQ(detail::cos_2pi(0x1.0p-54), 1.0);
  EXPECT_LE(ulp_error(detail::sin_2pi(0x1.0p-54), two_pi * 0x1.0p-54L), 1.0);
  EXPECT_LE(ulp_error(detail::sin_2pi(0x1.fffffffffffffp-1), -two_pi * 0x1.0p-53L), 1.0);
}

// --- Box-Muller ------------------------------------------------------------------------------------------

TEST(BoxMuller, FollowsTheStatedRule) {
  // Normal i from the raw block words by the stated rule (version 2), in long double with libm: counter
  // {step lo, step hi, group, i / 2}; rho = sqrt(-2 log u1); i even -> rho cos(2 pi u2), i odd -> rho sin(2 pi u2).
  // Tolerance 4 ulp of max(rho, 1) absolute (the kernels' relative errors times |z| <= rho).
  std::mt19937_64 rng(3);
  for (int t = 0; t < 100000; ++t) {
    const StreamKey key{static_cast<std::uint32_t>(rng()), static_cast<std::uint32_t>(rng())};
    const std::uint64_t step = (t % 2 == 0) ? rng() % 100000 : rng();
    const auto group = static_cast<std::uint32_t>(t % 3 == 0 ? 0 : rng());
    const auto index = static_cast<std::uint32_t>(t % 5 == 0 ? rng() % 16 : rng());
    const std::uint32_t ctr[4] = {static_cast<std::uint32_t>(step), static_cast<std::uint32_t>(step >> 32), group,
                                  index / 2};
    const philox4x32_ctr_t c = {{ctr[0], ctr[1], ctr[2], ctr[3]}};  // Random123's C API, not lievi's philox_block
    const philox4x32_ctr_t w = philox4x32_R(10, c, philox4x32_key_t{{key.seed, key.path}});
    const LD u1 = u01_reference(w.v[0], w.v[1]), u2 = u01_reference(w.v[2], w.v[3]);
    const LD rho = std::sqrt(-2.0L * std::log(u1));
    const LD ref = rho * (index % 2 == 0 ? boost::math::cos_pi(2.0L * u2) : boost::math::sin_pi(2.0L * u2));
    const double z = stream_normal(key, step, group, index);
    ASSERT_LE(std::fabs(static_cast<LD>(z) - ref), 4 * 0x1.0p-52L * std::max(rho, 1.0L))
        << "step " << step << " group " << group << " index " << index;
  }
}

TEST(BoxMuller, BatchEqualsScalarBitwise) {
  // Any count, index0 (odd and even, including wrap-around at 2^32), step, group and a misaligned output; the
  // element after the batch is left untouched.
  // (up to 8 normals are drawn block by block, from 9 on by chunks: both sides of that boundary)
  const std::size_t counts[] = {0, 1, 2, 3, 5, 8, 9, 10, 17, 63, 64, 65, 127, 128, 129, 130, 255, 256, 257, 1001};
  const std::uint32_t index0s[] = {0u, 1u, 2u, 7u, 63u, 127u, 128u, 1000u, 0xffffffffu - 40u, 0xffffffffu};
  const std::uint64_t steps[] = {0u, 1u, 12345u, (std::uint64_t{1} << 32) + 3u, ~std::uint64_t{0}};
  const StreamKey keys[] = {{0, 0}, {42, 7}, {0xffffffffu, 0xffffffffu}};
  std::vector<double> buf(1001 + 2);
  for (const StreamKey key : keys) {
    for (const std::uint64_t step : steps) {
      for (const std::uint32_t group : {0u, 1u, 0xffffffffu}) {
        for (const std::uint32_t index0 : index0s) {
          for (const std::size_t count : counts) {
            std::fill(buf.begin(), buf.end(), -12345.0);
            double* out = buf.data() + 1;  // 8-byte, not 16-byte, aligned
            stream_normals(key, step, group, index0, count, out);
            for (std::size_t i = 0; i < count; ++i) {
              const double s = stream_normal(key, step, group, index0 + static_cast<std::uint32_t>(i));
              ASSERT_TRUE(same_bits(out[i], s)) << "count " << count << " index0 " << index0 << " i " << i;
            }
            ASSERT_EQ(out[count], -12345.0);
            ASSERT_EQ(buf[0], -12345.0);
          }
        }
      }
    }
  }
  // Any batch split of the indices gives the same numbers (node order / decomposition independence), including
  // splits that cut a block between its two outputs.
  const std::size_t n = 3000;
  std::vector<double> whole(n), pieces(n);
  stream_normals({5, 6}, 77, 0, 0, n, whole.data());
  std::mt19937_64 rng(11);
  for (std::size_t done = 0; done < n;) {
    const std::size_t len = std::min<std::size_t>(n - done, 1 + rng() % 200);
    stream_normals({5, 6}, 77, 0, static_cast<std::uint32_t>(done), len, pieces.data() + done);
    done += len;
  }
  for (std::size_t i = 0; i < n; ++i) ASSERT_TRUE(same_bits(whole[i], pieces[i])) << i;
}

TEST(BoxMuller, FrozenValues) {
  // Regression guard on the fixed rules of stream version 2 (key, counter layout, u01, Box-Muller with both
  // outputs, kernels, increment sums and clipping): values and an FNV-1a hash of 200140 normals and 19980
  // truncated m = 3 increments (noise/frozen_stream.hpp), recorded when version 2 was introduced (then with GCC 12
  // -O0 / -O2 / -O3 -march=native and clang 14 -O2 -march=native); this build's dispatch target here,
  // EveryInstructionSetEqualsScalarBitwise on every target, test_noise_bits_* with the library compiled for wider
  // baselines (FMA available, contraction off). The first three values are version 1's
  // too (that rule put the same two normals in the block of mode 0, draws 0 and 1). If this fails, every
  // stochastic result of lievi has changed: raise kStreamVersion.
  EXPECT_EQ(kStreamVersion, 2);
  EXPECT_TRUE(same_bits(stream_normal({0, 0}, 0, 0, 0), -0x1.f1bcd5498377fp-4));
  EXPECT_TRUE(same_bits(stream_normal({0, 0}, 0, 0, 1), -0x1.599bbd8a9eda8p+0));
  EXPECT_TRUE(same_bits(stream_normal({1, 2}, 3, 4, 5), -0x1.2ae6940916b8ap+0));
  EXPECT_EQ(lievi::test::stream_hash(), lievi::test::kFrozenStreamHash);
}

TEST(BoxMuller, EveryInstructionSetEqualsScalarBitwise) {
  // The batch kernel is compiled once per instruction set (noise/normals_kernels.inc) and follows the batched
  // kernels' choice (lievi::models::simd::force_isa). Each set this CPU supports (x86-64: scalar, SSE4, AVX2,
  // AVX-512; AArch64: scalar, NEON), forced in turn, against the scalar rule `stream_normal` (Random123's Philox
  // and the scalar kernels, not the batch code): every count 0..300 from odd and even index0 (the vector packs
  // start at every lane offset and end at every remainder; the block-by-block ends), outputs 8-byte but not
  // 16-byte aligned and 64-byte aligned, the doubles before and after untouched; and the frozen hash.
  namespace simd = lievi::simd;
  const simd::Isa start = simd::isa();
  const std::vector<simd::Isa> isas = simd::usable_isas();
  ASSERT_GE(isas.size(), 2u) << "the scalar fallback and at least one vector set";
  struct Stream {
    StreamKey key;
    std::uint64_t step;
    std::uint32_t group;
  };
  const Stream streams[] = {{{0, 0}, 0, 0}, {{2026, 3}, 123456789, 0}, {{0xffffffffu, 1}, ~std::uint64_t{0}, 7}};
  const std::uint32_t index0s[] = {0u, 1u, 2u, 7u, 1000u, 1001u, 0xffffffffu - 150u, 0xffffffffu};
  constexpr std::size_t kMax = 300;
  alignas(64) double buf[kMax + 16];
  for (const simd::Isa want : isas) {
    ASSERT_EQ(simd::force_isa(want), want);
    ASSERT_STREQ(detail::stream_normals_isa(), simd::isa_name(want));  // the noise kernel follows the choice
    for (const Stream& st : streams) {
      for (const std::uint32_t index0 : index0s) {
        std::vector<double> ref(kMax);  // index0 + i wraps around 2^32 for the last index0s
        for (std::uint32_t i = 0; i < kMax; ++i) ref[i] = stream_normal(st.key, st.step, st.group, index0 + i);
        for (const std::size_t offset : {std::size_t{1}, std::size_t{8}}) {
          for (std::size_t count = 0; count <= kMax; ++count) {
            std::fill(std::begin(buf), std::end(buf), -12345.0);
            double* out = buf + offset;
            stream_normals(st.key, st.step, st.group, index0, count, out);
            for (std::size_t i = 0; i < count; ++i)
              ASSERT_TRUE(same_bits(out[i], ref[i])) << simd::isa_name(want) << " index0 " << index0 << " count "
                                                     << count << " i " << i << " offset " << offset;
            ASSERT_EQ(out[count], -12345.0) << simd::isa_name(want) << " count " << count;
            ASSERT_EQ(out[-1], -12345.0) << simd::isa_name(want) << " count " << count;
          }
        }
      }
    }
    // the put rules of the Wiener sums: scale z and out + scale z, against the scalar expressions
    const double scale = 0.0316227766016838, before = 0.125;
    for (const std::uint32_t index0 : {0u, 3u}) {
      for (const std::size_t count : {std::size_t{3}, std::size_t{5}, std::size_t{40}, std::size_t{257}}) {
        std::vector<double> scaled(count), added(count, before);
        put_stream_normals({9, 1}, 77, 0, index0, count, Put::scale, scale, scaled.data());
        put_stream_normals({9, 1}, 77, 0, index0, count, Put::add_scaled, scale, added.data());
        for (std::uint32_t i = 0; i < count; ++i) {
          const double z = stream_normal({9, 1}, 77, 0, index0 + i);
          ASSERT_TRUE(same_bits(scaled[i], scale * z)) << simd::isa_name(want) << " " << count << " " << i;
          ASSERT_TRUE(same_bits(added[i], before + scale * z)) << simd::isa_name(want) << " " << count << " " << i;
        }
      }
    }
    EXPECT_EQ(lievi::test::stream_hash(), lievi::test::kFrozenStreamHash) << simd::isa_name(want);
  }
  simd::force_isa(start);
}

TEST(BoxMuller, AcrossStepsEveryInstructionSetEqualsScalarBitwise) {
  // stream_normals_steps: one block's two normals at consecutive steps, one step per lane, against the scalar
  // rule at each step, on every instruction set this CPU has: every count 0..80 (packs from every lane offset to
  // every remainder), steps that carry from the counter's low word into its high word, the last steps before
  // 2^64, blocks 0, 1 and the last, the doubles around the outputs untouched; and a range past 2^64 refused.
  namespace simd = lievi::simd;
  const simd::Isa start = simd::isa();
  struct Case {
    StreamKey key;
    std::uint64_t step0;
    std::uint32_t group, block;
  };
  const Case cases[] = {{{0, 0}, 0, 0, 0},
                        {{2026, 3}, 123456789, 0, 1},
                        {{7, 0xffffffffu}, 0xffffffffull - 40, 0, 0},  // the low word wraps inside the range
                        {{0xffffffffu, 1}, ~std::uint64_t{0} - 79, 5, 0x7fffffffu}};
  constexpr std::size_t kMax = 80;
  for (const simd::Isa want : simd::usable_isas()) {
    ASSERT_EQ(simd::force_isa(want), want);
    for (const Case& c : cases) {
      std::vector<double> ref_even(kMax), ref_odd(kMax);
      for (std::size_t s = 0; s < kMax; ++s) {
        ref_even[s] = stream_normal(c.key, c.step0 + s, c.group, 2 * c.block);
        ref_odd[s] = stream_normal(c.key, c.step0 + s, c.group, 2 * c.block + 1);
      }
      for (std::size_t count = 0; count <= kMax; ++count) {
        std::vector<double> even(count + 2, -12345.0), odd(count + 2, -12345.0);
        stream_normals_steps(c.key, c.step0, c.group, c.block, count, even.data() + 1, odd.data() + 1);
        for (std::size_t s = 0; s < count; ++s) {
          ASSERT_TRUE(same_bits(even[s + 1], ref_even[s])) << simd::isa_name(want) << " count " << count << " s " << s;
          ASSERT_TRUE(same_bits(odd[s + 1], ref_odd[s])) << simd::isa_name(want) << " count " << count << " s " << s;
        }
        ASSERT_EQ(even.front(), -12345.0);
        ASSERT_EQ(even.back(), -12345.0) << simd::isa_name(want) << " count " << count;
        ASSERT_EQ(odd.back(), -12345.0) << simd::isa_name(want) << " count " << count;
      }
    }
  }
  simd::force_isa(start);
  double e[2], o[2];
  EXPECT_THROW(stream_normals_steps({1, 2}, ~std::uint64_t{0}, 0, 0, 2, e, o), std::out_of_range);
  EXPECT_NO_THROW(stream_normals_steps({1, 2}, ~std::uint64_t{0}, 0, 0, 1, e, o));
  EXPECT_TRUE(same_bits(e[0], stream_normal({1, 2}, ~std::uint64_t{0}, 0, 0)));
}

// --- statistics of the normals ---------------------------------------------------------------------------

TEST(Normals, MomentsKsChiSquareTails) {
  // 10^6 normals: 1000 steps x indices 0 .. 999 (both outputs of 500 blocks) of one stream.
  const StreamKey key{2024, 3};
  const std::vector<double> z = normals_grid(key, 0, 1000, 0, 1000);
  const double n = static_cast<double>(z.size());
  LD s1 = 0, s2 = 0, s3 = 0, s4 = 0;
  std::size_t tail3 = 0, tail4 = 0;
  double zmax = 0.0;
  for (double x : z) {
    ASSERT_TRUE(std::isfinite(x));
    s1 += x;
    s2 += x * x;
    s3 += x * x * x;
    s4 += LD(x) * x * x * x;
    tail3 += std::fabs(x) > 3.0;
    tail4 += std::fabs(x) > 4.0;
    zmax = std::max(zmax, std::fabs(x));
  }
  const double mean = static_cast<double>(s1 / n), m2 = static_cast<double>(s2 / n);
  const double m3 = static_cast<double>(s3 / n), m4 = static_cast<double>(s4 / n);
  const double var = m2 - mean * mean;
  const double skew = (m3 - 3 * mean * m2 + 2 * mean * mean * mean) / std::pow(var, 1.5);
  const double kurt = (m4 - 4 * mean * m3 + 6 * mean * mean * m2 - 3 * mean * mean * mean * mean) / (var * var);
  // Standard errors under N(0, 1): mean 1/sqrt(n), variance sqrt(2/n), skewness sqrt(6/n), kurtosis sqrt(24/n).
  EXPECT_LT(std::fabs(mean), 6.0 / std::sqrt(n));
  EXPECT_LT(std::fabs(var - 1.0), 6.0 * std::sqrt(2.0 / n));
  EXPECT_LT(std::fabs(skew), 6.0 * std::sqrt(6.0 / n));
  EXPECT_LT(std::fabs(kurt - 3.0), 6.0 * std::sqrt(24.0 / n));
  // Largest possible |z| is sqrt(-2 log 2^-54) = 8.65.
  EXPECT_LE(zmax, 8.66);
  // Tail frequencies, binomial with p = erfc(a / sqrt 2), 6 sigma.
  for (const auto& [a, count] : {std::pair<double, std::size_t>{3.0, tail3}, {4.0, tail4}}) {
    const double p = std::erfc(a / std::sqrt(2.0));
    EXPECT_LT(std::fabs(count - n * p), 6.0 * std::sqrt(n * p * (1 - p))) << "|z| > " << a;
  }
  // Kolmogorov-Smirnov against Phi: P(sqrt(n) D > 2.69) ~ 2 exp(-2 * 2.69^2) = 1e-6.
  std::vector<double> sorted = z;
  std::sort(sorted.begin(), sorted.end());
  double d = 0.0;
  for (std::size_t i = 0; i < sorted.size(); ++i) {
    const double f = Phi(sorted[i]);
    d = std::max({d, f - i / n, (i + 1) / n - f});
  }
  EXPECT_LT(std::sqrt(n) * d, 2.69) << "KS D = " << d;
  // Anderson-Darling (weights the tails): A^2 = -n - (1/n) sum (2i - 1) [ln F(x_i) + ln(1 - F(x_{n+1-i}))],
  // with 1 - F(x) = Phi(-x) (no cancellation). P(A^2 > 11) ~ 4e-7 for a correct generator (asymptotic tail of
  // the A^2 distribution, exp(-1.2337 z) 2 / sqrt(pi z)).
  LD ad = 0;
  for (std::size_t i = 0; i < sorted.size(); ++i) {
    ad += (2.0L * i + 1) * (std::log(static_cast<LD>(Phi(sorted[i]))) +
                            std::log(static_cast<LD>(Phi(-sorted[sorted.size() - 1 - i]))));
  }
  const double a2 = static_cast<double>(-n - ad / n);
  EXPECT_LT(a2, 11.0) << "Anderson-Darling A^2 = " << a2;
  // Chi-square on 80 bins of width 0.1 in [-4, 4] plus two tails (81 degrees of freedom), at 1e-6.
  const int bins = 80;
  std::vector<double> observed(bins + 2, 0.0);
  for (double x : z) {
    const int b = x < -4.0 ? 0 : x >= 4.0 ? bins + 1 : 1 + std::min(bins - 1, static_cast<int>((x + 4.0) / 0.1));
    observed[static_cast<std::size_t>(b)] += 1.0;
  }
  double chi2 = 0.0;
  for (int b = 0; b < bins + 2; ++b) {
    const double lo = b == 0 ? -INFINITY : -4.0 + 0.1 * (b - 1);
    const double hi = b == bins + 1 ? INFINITY : -4.0 + 0.1 * b;
    const double p = (b == 0 ? Phi(-4.0) : b == bins + 1 ? Phi(-4.0) : Phi(hi) - Phi(lo));
    const double e = n * p;
    chi2 += (observed[static_cast<std::size_t>(b)] - e) * (observed[static_cast<std::size_t>(b)] - e) / e;
  }
  const boost::math::chi_squared dist(bins + 1);
  EXPECT_LT(chi2, boost::math::quantile(boost::math::complement(dist, 1e-6))) << "chi2 = " << chi2;
}

TEST(Normals, NoLagOneCorrelation) {
  // Lag-1 correlations between neighbouring steps, the two outputs of one block (indices 2m, 2m + 1),
  // neighbouring blocks (2m + 1, 2m + 2), neighbouring paths, seeds and groups: |r| < 5 / sqrt(n) each (false
  // alarm 5.7e-7 each). Squares too (a dependence in |z| that leaves the plain correlation at 0: for Box-Muller
  // the two outputs share the radius, yet z0^2 and z1^2 are independent).
  const std::size_t steps = 400, count = 2002;
  const StreamKey key{77, 10};
  const std::vector<double> z = normals_grid(key, 0, steps + 1, 0, count);
  std::vector<double> a, b_step, pair_a, pair_b, next_a, next_b;
  for (std::size_t s = 0; s < steps; ++s) {
    for (std::size_t k = 0; k + 2 < count; k += 2) {
      a.push_back(z[s * count + k]);
      b_step.push_back(z[(s + 1) * count + k]);
      pair_a.push_back(z[s * count + k]);
      pair_b.push_back(z[s * count + k + 1]);
      next_a.push_back(z[s * count + k + 1]);
      next_b.push_back(z[s * count + k + 2]);
    }
  }
  const double bound = 5.0 / std::sqrt(static_cast<double>(a.size()));
  EXPECT_LT(std::fabs(correlation(a, b_step)), bound) << "across steps";
  EXPECT_LT(std::fabs(correlation(pair_a, pair_b)), bound) << "the two outputs of one block";
  EXPECT_LT(std::fabs(correlation(next_a, next_b)), bound) << "neighbouring blocks";
  const auto squares = [](std::vector<double> v) {
    for (double& x : v) x *= x;
    return v;
  };
  EXPECT_LT(std::fabs(correlation(squares(pair_a), squares(pair_b))), bound) << "squares of one block's outputs";
  EXPECT_LT(std::fabs(correlation(squares(next_a), squares(next_b))), bound) << "squares across blocks";
  const std::vector<double> base = normals_grid(key, 0, steps, 0, count);
  const double bound_all = 5.0 / std::sqrt(static_cast<double>(base.size()));
  EXPECT_LT(std::fabs(correlation(base, normals_grid(StreamKey{77, 11}, 0, steps, 0, count))), bound_all)
      << "across paths";
  EXPECT_LT(std::fabs(correlation(base, normals_grid(StreamKey{78, 10}, 0, steps, 0, count))), bound_all)
      << "across seeds";
  EXPECT_LT(std::fabs(correlation(base, normals_grid(key, 0, steps, 0, count, 1))), bound_all) << "across groups";
}

// --- Wiener increments -----------------------------------------------------------------------------------

TEST(Wiener, ConstructionAndAccessors) {
  const WienerIncrements w({1, 2}, 1e-3, 3);
  EXPECT_EQ(w.dt(), 8e-3);
  EXPECT_EQ(w.base_dt(), 1e-3);
  EXPECT_EQ(w.refine_log2(), 3);
  EXPECT_EQ(w.key().seed, 1u);
  EXPECT_EQ(w.key().path, 2u);
  EXPECT_FALSE(w.truncates());
  EXPECT_EQ(w.truncation_bound(), std::numeric_limits<double>::infinity());
  EXPECT_THROW(WienerIncrements({1, 2}, 0.0, 0), std::invalid_argument);
  EXPECT_THROW(WienerIncrements({1, 2}, -1.0, 0), std::invalid_argument);
  EXPECT_THROW(WienerIncrements({1, 2}, std::nan(""), 0), std::invalid_argument);
  EXPECT_THROW(WienerIncrements({1, 2}, 1e-3, -1), std::invalid_argument);
  EXPECT_THROW(WienerIncrements({1, 2}, 1e-3, 41), std::invalid_argument);
  EXPECT_THROW(WienerIncrements({1, 2}, 0.5, 1, true), std::invalid_argument);  // dt = 1: A = 0
  EXPECT_NO_THROW(WienerIncrements({1, 2}, 1e-3, 40));
  const WienerIncrements w40({1, 2}, 1e-3, 40);
  EXPECT_THROW((void)w40.increment(std::uint64_t{1} << 24, 0), std::out_of_range);
  // m = 0 is sqrt(dt) xi.
  const WienerIncrements w0({1, 2}, 2e-3, 0);
  EXPECT_TRUE(same_bits(w0.increment(5, 9), std::sqrt(2e-3) * stream_normal({1, 2}, 5, kDefaultGroup, 9)));
}

TEST(Wiener, MeanAndVarianceAtM0AndM3) {
  // 10^6 increments each (1000 steps x 1000 modes); Delta W / sqrt(dt) ~ N(0, 1): mean within 6/sqrt(n),
  // variance within 6 sqrt(2/n) (false alarm 2e-9 each).
  for (const int m : {0, 3}) {
    const WienerIncrements w({31, 4}, 1e-4, m);
    const std::size_t steps = 1000, modes = 1000;
    std::vector<double> dw(modes);
    LD s1 = 0, s2 = 0;
    for (std::uint64_t n = 0; n < steps; ++n) {
      w.increments(n, 0, modes, dw.data());
      for (double x : dw) {
        s1 += x;
        s2 += LD(x) * x;
      }
    }
    const double cnt = static_cast<double>(steps * modes);
    const double mean = static_cast<double>(s1 / cnt) / std::sqrt(w.dt());
    const double var = static_cast<double>(s2 / cnt) / w.dt() - mean * mean;
    EXPECT_LT(std::fabs(mean), 6.0 / std::sqrt(cnt)) << "m = " << m;
    EXPECT_LT(std::fabs(var - 1.0), 6.0 * std::sqrt(2.0 / cnt)) << "m = " << m;
  }
}

TEST(Wiener, CoarseIsTheSumOfItsFineIncrementsBitwise) {
  // Fine increments from an m = 0 stream on base_dt, summed here left to right from the first term.
  const StreamKey key{9, 1};
  const double base_dt = 1.0 / 1024;
  const WienerIncrements fine(key, base_dt, 0);
  for (const int m : {1, 3, 5}) {
    const WienerIncrements coarse(key, base_dt, m);
    const std::size_t modes = 131;
    std::vector<double> batch(modes);
    for (std::uint64_t n : {std::uint64_t{0}, std::uint64_t{1}, std::uint64_t{17}, std::uint64_t{100000}}) {
      coarse.increments(n, 3, modes, batch.data());
      for (std::uint32_t k = 0; k < modes; ++k) {
        const std::uint64_t first = n << m;
        double sum = fine.increment(first, 3 + k);
        for (std::uint64_t i = 1; i < (std::uint64_t{1} << m); ++i) sum += fine.increment(first + i, 3 + k);
        ASSERT_TRUE(same_bits(coarse.increment(n, 3 + k), sum)) << "m " << m << " n " << n << " k " << k;
        ASSERT_TRUE(same_bits(batch[k], sum)) << "batch, m " << m << " n " << n << " k " << k;
      }
    }
  }
}

TEST(Wiener, BatchEqualsScalarBitwise) {
  std::vector<double> buf(700);
  for (const bool truncate : {false, true}) {
    for (const int m : {0, 2, 3}) {
      const WienerIncrements w({123, 456}, 0.01 / 8, m, truncate);
      for (const std::size_t count : {std::size_t{1}, std::size_t{3}, std::size_t{255}, std::size_t{256},
                                      std::size_t{257}, std::size_t{613}}) {
        for (const std::uint32_t mode0 : {0u, 5u, 0xffffffffu - 100u}) {
          double* out = buf.data() + 1;
          out[count] = -7.0;
          w.increments(42, mode0, count, out);
          for (std::size_t i = 0; i < count; ++i) {
            ASSERT_TRUE(same_bits(out[i], w.increment(42, mode0 + static_cast<std::uint32_t>(i))))
                << "m " << m << " count " << count << " i " << i << " truncate " << truncate;
          }
          ASSERT_EQ(out[count], -7.0);
        }
      }
    }
  }
}

TEST(Wiener, AcrossStepsEqualsOneStepAtATimeBitwise) {
  // increments_steps (the fine normals made one block at a time across the steps) against increment() of each
  // step and mode: m = 0, 2 and 6, with and without truncation, modes from an odd and an even first mode, the
  // last steps the counter holds, and a range past them refused.
  for (const int m : {0, 2, 6}) {
    for (const bool truncate : {false, true}) {
      const WienerIncrements w({17, 5}, 1e-3, m, truncate);
      for (const std::uint32_t mode0 : {0u, 3u}) {
        for (const std::size_t count : {std::size_t{1}, std::size_t{2}, std::size_t{5}}) {
          for (const std::uint64_t n0 : {std::uint64_t{0}, std::uint64_t{12345}}) {
            const std::size_t steps = 19;
            std::vector<double> out(steps * count), work(w.steps_work(steps));
            w.increments_steps(n0, steps, mode0, count, out.data(), work.data());
            for (std::size_t c = 0; c < steps; ++c)
              for (std::size_t k = 0; k < count; ++k)
                ASSERT_TRUE(same_bits(out[c * count + k], w.increment(n0 + c, mode0 + static_cast<std::uint32_t>(k))))
                    << "m " << m << " truncate " << truncate << " mode0 " << mode0 << " step " << c << " mode " << k;
          }
        }
      }
    }
  }
  const WienerIncrements w({1, 1}, 1e-3, 2);
  const std::uint64_t top = ~std::uint64_t{0} >> 2;  // the last coarse step of m = 2
  std::vector<double> out(4), work(w.steps_work(4));
  w.increments_steps(top - 3, 4, 0, 1, out.data(), work.data());
  EXPECT_TRUE(same_bits(out[3], w.increment(top, 0)));
  EXPECT_THROW(w.increments_steps(top - 2, 4, 0, 1, out.data(), work.data()), std::out_of_range);
  const WienerIncrements w40({1, 1}, 1e-15, 40);  // 2^40 fine steps a step: the workspace's size overflows
  EXPECT_THROW(w40.increments_steps(0, SIZE_MAX >> 40, 0, 1, nullptr, nullptr), std::length_error);
}

TEST(Wiener, SameNumbersForAnyThreadCountAndSplit) {
  // A steps x modes field of increments, serial, then in OpenMP loops with 1 and 2 threads, each thread taking
  // interleaved, odd-sized blocks of modes (dynamic schedule): bitwise identical.
  const WienerIncrements w({2, 8}, 1e-3, 2);
  const std::size_t steps = 40, modes = 2001, block = 37;
  std::vector<double> serial(steps * modes);
  for (std::size_t s = 0; s < steps; ++s) w.increments(s, 0, modes, serial.data() + s * modes);
  const int saved = omp_get_max_threads();
  for (const int threads : {1, 2}) {
    omp_set_num_threads(threads);
    std::vector<double> par(steps * modes, 0.0);
    const auto nblocks = static_cast<long>((modes + block - 1) / block);
#pragma omp parallel for schedule(dynamic, 3) collapse(2)
    for (long s = 0; s < static_cast<long>(steps); ++s) {
      for (long b = 0; b < nblocks; ++b) {
        const std::size_t k0 = static_cast<std::size_t>(b) * block;
        const std::size_t len = std::min(block, modes - k0);
        if (b % 2 == 0) {
          w.increments(static_cast<std::uint64_t>(s), static_cast<std::uint32_t>(k0), len,
                       par.data() + static_cast<std::size_t>(s) * modes + k0);
        } else {  // scalar calls, in reverse node order
          for (std::size_t i = len; i-- > 0;) {
            par[static_cast<std::size_t>(s) * modes + k0 + i] =
                w.increment(static_cast<std::uint64_t>(s), static_cast<std::uint32_t>(k0 + i));
          }
        }
      }
    }
    for (std::size_t i = 0; i < serial.size(); ++i) ASSERT_TRUE(same_bits(serial[i], par[i])) << threads << " " << i;
  }
  omp_set_num_threads(saved);
}

TEST(Wiener, DifferentPathsAreDifferentAndUncorrelated) {
  // Paths 0 and 1 of one seed: no equal value among 10^5 (a coincidence has probability ~1e-5 even for 15-digit
  // rounding), correlation < 5/sqrt(n) (false alarm 5.7e-7).
  const WienerIncrements p0({5, 0}, 1e-3, 1), p1({5, 1}, 1e-3, 1);
  const std::size_t steps = 100, modes = 1000;
  std::vector<double> a(steps * modes), b(steps * modes);
  for (std::size_t s = 0; s < steps; ++s) {
    p0.increments(s, 0, modes, a.data() + s * modes);
    p1.increments(s, 0, modes, b.data() + s * modes);
  }
  std::size_t equal = 0;
  for (std::size_t i = 0; i < a.size(); ++i) equal += a[i] == b[i];
  EXPECT_EQ(equal, 0u);
  EXPECT_LT(std::fabs(correlation(a, b)), 5.0 / std::sqrt(static_cast<double>(a.size())));
}

// --- truncation ------------------------------------------------------------------------------------------

TEST(Truncation, BoundClipAndNoClipWhenOff) {
  // dt = 0.1 = 8 x 0.0125: A = sqrt(4 |ln 0.1|) = 3.0349; P(|xi| > A) = 2.4e-3, so ~240 of 10^5 are clipped.
  const StreamKey key{17, 2};
  const WienerIncrements off(key, 0.1 / 8, 3), on(key, 0.1 / 8, 3, true);
  const double A = std::sqrt(4.0 * std::fabs(std::log(0.1)));
  EXPECT_TRUE(on.truncates());
  EXPECT_LE(ulp_distance(on.truncation_bound(), A), 2u);
  EXPECT_NEAR(on.truncation_bound(), 3.03485425877029, 1e-13);
  const double level = on.truncation_bound() * std::sqrt(on.dt());  // the clip level of Delta W
  const std::size_t steps = 100, modes = 1000;
  std::vector<double> raw(modes), cut(modes);
  std::size_t clipped = 0, beyond = 0;
  bool checked_not_sum = false;
  const WienerIncrements fine(key, 0.1 / 8, 0);
  for (std::uint64_t n = 0; n < steps; ++n) {
    off.increments(n, 0, modes, raw.data());
    on.increments(n, 0, modes, cut.data());
    for (std::size_t k = 0; k < modes; ++k) {
      // Independent clip of the untruncated value.
      const double expect = raw[k] > level ? level : raw[k] < -level ? -level : raw[k];
      ASSERT_TRUE(same_bits(cut[k], expect)) << n << " " << k;
      ASSERT_LE(std::fabs(cut[k]), level);
      ASSERT_LE(std::fabs(cut[k]) / std::sqrt(on.dt()), A * (1 + 4e-16));
      if (std::fabs(raw[k]) > level) {
        ++beyond;
        if (!checked_not_sum) {  // the clipped coarse increment is not the sum of its fine ones
          double sum = fine.increment(8 * n, static_cast<std::uint32_t>(k));
          for (std::uint64_t i = 1; i < 8; ++i) sum += fine.increment(8 * n + i, static_cast<std::uint32_t>(k));
          EXPECT_TRUE(same_bits(sum, raw[k]));
          EXPECT_NE(sum, cut[k]);
          checked_not_sum = true;
        }
      }
      clipped += std::fabs(cut[k]) == level;
    }
  }
  // truncate = false clips nothing: the raw values exceed the level with the N(0, 1) frequency (6 sigma).
  const double cnt = static_cast<double>(steps * modes), p = std::erfc(A / std::sqrt(2.0));
  EXPECT_LT(std::fabs(beyond - cnt * p), 6.0 * std::sqrt(cnt * p * (1 - p)));
  EXPECT_GT(beyond, 0u);
  EXPECT_EQ(clipped, beyond);
  EXPECT_EQ(off.truncation_bound(), std::numeric_limits<double>::infinity());
  // m = 0, dt = 1e-2: A = sqrt(4 ln 100) = 4.2919.
  const WienerIncrements on0(key, 1e-2, 0, true);
  EXPECT_NEAR(on0.truncation_bound(), std::sqrt(4.0 * std::log(100.0)), 1e-14);
}

}  // namespace
