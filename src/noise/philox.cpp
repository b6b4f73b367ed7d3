/// @file noise/philox.cpp
/// @brief Philox4x32-10 blocks, the fixed Box-Muller (both outputs: stream version 2) and lievi's own log / cos /
/// sin kernels.
///
/// The scalar path (`stream_normal`) takes its block from Random123 (`r123::Philox4x32_R<10>`); the batch
/// path (`stream_normals`) runs the same ten Philox rounds written lane-wise on plain arrays so that GCC
/// vectorises them (32x32->64 multiplies map to SSE2 pmuludq). Integer arithmetic is exact, so both give the
/// same words; the tests check them against each other and against the Random123 known-answer vectors.
/// Both paths then evaluate the same inline kernels (`box_muller_radius2`, `box_muller_angle`, IEEE sqrt and
/// product), made only of IEEE operations, integer bit operations and bit selects, so the doubles are equal
/// bit for bit whether or not, and how wide, a loop was vectorised.

// No contraction of a * b + c into an FMA anywhere in this file: GCC's default for C++ is -ffp-contract=fast,
// which is harmless on the x86-64 baseline (no FMA) but would let the AVX2 / AVX-512 clones below, or a build
// with -march=native, round differently from the scalar path.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("fp-contract=off")
#elif defined(__clang__)
#pragma clang fp contract(off)
#endif

#include <Random123/philox.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>

#if defined(__x86_64__) || defined(__SSE2__)
#include <immintrin.h>
#endif

#include "lievi/noise/philox.hpp"

// The kernels below must be inlined into the batch loops for them to vectorise.
#if defined(__GNUC__)
#define LIEVI_NOISE_INLINE inline __attribute__((always_inline))
#else
#define LIEVI_NOISE_INLINE inline
#endif

namespace lievi::noise {

namespace {

// --- Philox4x32 constants (Random123 philox.h) ------------------------------------------------------------
constexpr std::uint32_t kM0 = 0xD2511F53u;  // PHILOX_M4x32_0
constexpr std::uint32_t kM1 = 0xCD9E8D57u;  // PHILOX_M4x32_1
constexpr std::uint32_t kW0 = 0x9E3779B9u;  // PHILOX_W32_0 (golden ratio)
constexpr std::uint32_t kW1 = 0xBB67AE85u;  // PHILOX_W32_1 (sqrt(3) - 1)
constexpr int kRounds = 10;

// --- log -------------------------------------------------------------------------------------------------
// fdlibm e_log.c (Sun Microsystems, freely redistributable): log(1 + f) = f - (hfsq - s (hfsq + R(z))),
// s = f / (2 + f), z = s^2, R a degree-7 polynomial in z fitted on the reduced range (error < 2^-58.45).
constexpr double kLn2Hi = 6.93147180369123816490e-01;  // 0x3fe62e42 fee00000 (low bits zero: k * hi exact)
constexpr double kLn2Lo = 1.90821492927058770002e-10;  // 0x3dea39ef 35793c76
constexpr double kLg1 = 6.666666666666735130e-01;
constexpr double kLg2 = 3.999999999940941908e-01;
constexpr double kLg3 = 2.857142874366239149e-01;
constexpr double kLg4 = 2.222219843214978396e-01;
constexpr double kLg5 = 1.818357216161805012e-01;
constexpr double kLg6 = 1.531383769920937332e-01;
constexpr double kLg7 = 1.479819860511658591e-01;

/// log(x) for finite normal x > 0, branch-free (bit operations, one division, no libm).
LIEVI_NOISE_INLINE double log_kernel(double x) {
  const std::uint64_t b = std::bit_cast<std::uint64_t>(x);
  const std::uint64_t hx = (b >> 32) & 0x000fffffULL;  // top 20 mantissa bits
  // i = 2^20 if the mantissa 1.m >= sqrt(2) (then use m / 2 and exponent + 1), else 0.
  const std::uint64_t i = (hx + 0x95f64ULL) & 0x100000ULL;
  const double m = std::bit_cast<double>((b & 0x000fffffffffffffULL) | ((i ^ 0x3ff00000ULL) << 32));
  // k = biased exponent - 1023 + (i >> 20), converted exactly through the 2^52 trick (0 <= kb < 2^11).
  const std::uint64_t kb = (b >> 52) + (i >> 20);
  const double dk = std::bit_cast<double>(0x4330000000000000ULL | kb) - (0x1.0p52 + 1023.0);
  const double f = m - 1.0;  // exact, in [sqrt(2)/2 - 1, sqrt(2) - 1)
  const double s = f / (2.0 + f);
  const double z = s * s;
  const double w = z * z;
  const double t1 = w * (kLg2 + w * (kLg4 + w * kLg6));
  const double t2 = z * (kLg1 + w * (kLg3 + w * (kLg5 + w * kLg7)));
  const double r = t2 + t1;
  const double hfsq = 0.5 * f * f;
  return dk * kLn2Hi - ((hfsq - (s * (hfsq + r) + dk * kLn2Lo)) - f);
}

// --- cos / sin (pi r / 2), |r| <= 1/2 --------------------------------------------------------------------
// Taylor coefficients of sin(pi r / 2) = sum_k (-1)^k (pi/2)^(2k+1) r^(2k+1) / (2k+1)! (r, r^3, ..., r^17) and
// of cos(pi r / 2) = sum_k (-1)^k (pi/2)^(2k) r^(2k) / (2k)! (1, r^2, ..., r^18), as exact binary literals:
// the bits of the noise stream must not depend on the platform's long double (80-bit on x86-64, 128-bit on
// AArch64), in which they were first computed and rounded once (cos_2pi and sin_2pi are tested to <= 2 ulp
// against libm). On |pi r / 2| <= pi/4 the first omitted terms are < 1e-19 (sin) and < 4e-21 (cos).
constexpr std::array<double, 9> kSin = {0x1.921fb54442d18p+0,  -0x1.4abbce625be53p-1, 0x1.466bc6775aae2p-4,
                                        -0x1.32d2cce62bd86p-8, 0x1.50783487ee782p-13, -0x1.e3074fde8871fp-19,
                                        0x1.e8f434d018d63p-25, -0x1.6fadb9f155744p-31, 0x1.aaec32af93359p-38};
constexpr std::array<double, 10> kCos = {0x1p+0,                -0x1.3bd3cc9be45dep+0, 0x1.03c1f081b5ac4p-2,
                                         -0x1.55d3c7e3cbffap-6, 0x1.e1f506891babbp-11, -0x1.a6d1f2a204a8cp-16,
                                         0x1.f9d38a3763cc3p-22, -0x1.b6e24f44b128fp-28, 0x1.20c62c2f2d7f5p-34,
                                         -0x1.2a0c591af8314p-41};

/// c[K] + x (c[K+1] + x (... c[N-1])): Horner's rule written out at compile time (no inner loop, so that
/// the enclosing batch loop vectorises).
template <std::size_t N, std::size_t K = 0>
LIEVI_NOISE_INLINE double horner(const std::array<double, N>& c, double x) {
  if constexpr (K + 1 == N) {
    return c[K];
  } else {
    return c[K] + x * horner<N, K + 1>(c, x);
  }
}

constexpr auto kSinTail = [] {  // kSin[1..8]
  std::array<double, 8> t{};
  for (std::size_t k = 0; k < t.size(); ++k) t[k] = kSin[k + 1];
  return t;
}();
constexpr auto kCosTail = [] {  // kCos[1..9]
  std::array<double, 9> t{};
  for (std::size_t k = 0; k < t.size(); ++k) t[k] = kCos[k + 1];
  return t;
}();

// pi/2 = kHalfPiHi + kHalfPiLo with a 25-bit head, so rh * kHalfPiHi and rl * kHalfPiHi are exact for the
// 26-bit halves rh, rl of r (Veltkamp split). The tail is pi/2 - head rounded to double (~1.6e-8), so head +
// tail is pi/2 to about 2^-79 relative, far below the double rounding of the result.
constexpr double kHalfPiHi = 0x1.921fb5p+0;
constexpr double kHalfPiLo = 0x1.110b4611a6263p-26;

/// sin(pi r / 2) and cos(pi r / 2) for |r| <= 1/2.
///  - sin = x_hi + (x_lo + r (r^2 P(r^2))), where x_hi + x_lo = (pi/2) r to ~2^-64 relative (x_hi = rh * head
///    exact), so the leading product is not rounded and the only large rounding is the last addition.
///  - cos = 1 + r^2 Q(r^2), the last rounding on the leading 1.
LIEVI_NOISE_INLINE void sincos_half_pi(double r, double& s, double& c) {
  const double r2 = r * r;
  const double split = 134217729.0 * r;  // 2^27 + 1: Veltkamp split, exact without FMA
  const double rh = split - (split - r);
  const double rl = r - rh;
  const double x_hi = rh * kHalfPiHi;
  const double x_lo = rl * kHalfPiHi + r * kHalfPiLo;
  s = x_hi + (x_lo + r * (r2 * horner(kSinTail, r2)));
  c = 1.0 + r2 * horner(kCosTail, r2);
}

/// cos(2 pi u) and sin(2 pi u) for u in [0, 1] with 4 u exact.
///
/// Exact reduction: v = 4 u, t = v + 1.5 * 2^52 rounds v to the nearest integer q (ties to even) and holds q in
/// its low mantissa bits, q = t - 1.5 * 2^52 and r = v - q in [-1/2, 1/2] are exact (Sterbenz), and
/// 2 pi u = (pi / 2)(q + r). With S = sin(pi r / 2), C = cos(pi r / 2) and q mod 4 = 0, 1, 2, 3:
/// cos = C, -S, -C, S and sin = S, C, -S, -C. The quadrant selection is done on the bits (mask blend and sign
/// flip), so the function has no branch at all and the batch loop if-converts and vectorises.
LIEVI_NOISE_INLINE void cossin_2pi(double u, double& co, double& si) {
  const double v = 4.0 * u;
  const double t = v + 0x1.8p52;
  const std::uint64_t q = std::bit_cast<std::uint64_t>(t) & 3u;  // q mod 4 (q = 4 gives 0)
  const double r = v - (t - 0x1.8p52);
  double s, c;
  sincos_half_pi(r, s, c);
  const std::uint64_t sb = std::bit_cast<std::uint64_t>(s), cb = std::bit_cast<std::uint64_t>(c);
  const std::uint64_t swap = 0u - (q & 1u);  // all ones in the odd quadrants
  // cos: |.| = C (q even) or S (q odd), negative for q = 1, 2; sin: |.| = S or C, negative for q = 2, 3.
  const std::uint64_t cos_mag = (sb & swap) | (cb & ~swap);
  const std::uint64_t sin_mag = (cb & swap) | (sb & ~swap);
  co = std::bit_cast<double>(cos_mag ^ ((((q + 1u) >> 1) & 1u) << 63));
  si = std::bit_cast<double>(sin_mag ^ ((q >> 1) << 63));
}

/// -2 log u1 > 0 (u1 = u01(r0, r1) <= 1 - 2^-53): the square of the Box-Muller radius.
LIEVI_NOISE_INLINE double box_muller_radius2(std::uint32_t r0, std::uint32_t r1) { return -2.0 * log_kernel(u01(r0, r1)); }

constexpr std::size_t kChunk = 64;  // blocks per batch chunk = 128 normals (stack: 4 x 256 B words, 4 x 512 B doubles)

// x86-64 with GCC: the batch is also compiled for AVX2 and AVX-512F and the variant is picked at load time
// (function multiversioning through an ifunc): target_clones for the Box-Muller loops, and hand-picked bodies for
// the Philox rounds and the sqrt (below). All variants run the same IEEE operations on wider vectors, and
// contraction into FMA is off for this file (pragma at the top), so every variant gives the same bits as the
// SSE2 baseline and the scalar path (Normals.BatchEqualsScalarBitwise checks the variant of the machine the
// tests run on, Normals.SameBitsWithEveryBuildVariant the others). Define LIEVI_NOISE_NO_CLONES to build the
// baseline only.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && defined(__ELF__) && \
    !defined(LIEVI_NOISE_NO_CLONES)
#define LIEVI_NOISE_MULTIVERSION 1
#define LIEVI_NOISE_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#define LIEVI_NOISE_DEFAULT __attribute__((target("default")))
#else
#define LIEVI_NOISE_MULTIVERSION 0
#define LIEVI_NOISE_CLONES
#define LIEVI_NOISE_DEFAULT
#endif

/// Philox4x32-10 on kChunk lanes whose counters differ only in the fourth word (block0 + i); the words of lane i
/// go to w0..w3[i]. W is the lane integer: uint32_t (what GCC vectorises best with SSE2 / AVX2: 32x32->64
/// widening multiplies; the SSE2 and AVX2 builds use it). The AVX-512 variant below is written with intrinsics.
/// Integer arithmetic, so every form gives the same words.
template <class W>
LIEVI_NOISE_INLINE void philox_lanes_impl(StreamKey key, std::uint32_t step_lo, std::uint32_t step_hi,
                                          std::uint32_t group, std::uint32_t block0, std::uint32_t* w0,
                                          std::uint32_t* w1, std::uint32_t* w2, std::uint32_t* w3) {
  constexpr W kLow = 0xffffffffu;
#pragma omp simd
  for (std::size_t i = 0; i < kChunk; ++i) {
    W x0 = step_lo, x1 = step_hi, x2 = group, x3 = static_cast<std::uint32_t>(block0 + static_cast<std::uint32_t>(i));
    W k0 = key.seed, k1 = key.path;
#pragma GCC unroll 10
    for (int round = 0; round < kRounds; ++round) {
      const std::uint64_t p0 = static_cast<std::uint64_t>(x0 & kLow) * kM0;
      const std::uint64_t p1 = static_cast<std::uint64_t>(x2 & kLow) * kM1;
      x0 = static_cast<W>(p1 >> 32) ^ x1 ^ k0;
      x1 = static_cast<W>(p1);
      x2 = static_cast<W>(p0 >> 32) ^ x3 ^ k1;
      x3 = static_cast<W>(p0);
      k0 = (k0 + kW0) & kLow;
      k1 = (k1 + kW1) & kLow;
    }
    w0[i] = static_cast<std::uint32_t>(x0);
    w1[i] = static_cast<std::uint32_t>(x1);
    w2[i] = static_cast<std::uint32_t>(x2);
    w3[i] = static_cast<std::uint32_t>(x3);
  }
}

LIEVI_NOISE_DEFAULT void philox_lanes(StreamKey key, std::uint32_t step_lo, std::uint32_t step_hi,
                                      std::uint32_t group, std::uint32_t block0, std::uint32_t* w0,
                                      std::uint32_t* w1, std::uint32_t* w2, std::uint32_t* w3) {
  philox_lanes_impl<std::uint32_t>(key, step_lo, step_hi, group, block0, w0, w1, w2, w3);
}
#if LIEVI_NOISE_MULTIVERSION
// AVX-512F, written with intrinsics: eight lanes per register with the 32-bit words in the low halves of 64-bit
// lanes. vpmuludq reads only the low 32 bits, so no mask is needed before a multiply (the high halves may hold
// garbage, dropped by the final truncation); the key schedule is the same for every lane, so it stays scalar and
// is broadcast. Integer arithmetic: the same words.
__attribute__((target("avx512f"))) void philox_lanes(StreamKey key, std::uint32_t step_lo, std::uint32_t step_hi,
                                                     std::uint32_t group, std::uint32_t block0, std::uint32_t* w0,
                                                     std::uint32_t* w1, std::uint32_t* w2, std::uint32_t* w3) {
  static_assert(kChunk % 8 == 0);
  // maskz forms with a full mask: the plain ones trip GCC 12's -Wuninitialized (as in sqrt_lanes)
  const __m512i m0 = _mm512_set1_epi64(kM0), m1 = _mm512_set1_epi64(kM1);
  const __m512i lane = _mm512_set_epi64(7, 6, 5, 4, 3, 2, 1, 0);
  for (std::size_t i = 0; i < kChunk; i += 8) {
    __m512i x0 = _mm512_set1_epi64(step_lo), x1 = _mm512_set1_epi64(step_hi), x2 = _mm512_set1_epi64(group);
    // block0 + i + lane in the low 32 bits (a 64-bit add has the 32-bit wrap-around in its low half)
    __m512i x3 = _mm512_add_epi64(_mm512_set1_epi64(static_cast<std::uint32_t>(block0 + static_cast<std::uint32_t>(i))), lane);
    std::uint32_t k0 = key.seed, k1 = key.path;
    for (int round = 0; round < kRounds; ++round) {
      const __m512i p0 = _mm512_maskz_mul_epu32(0xff, x0, m0);
      const __m512i p1 = _mm512_maskz_mul_epu32(0xff, x2, m1);
      x0 = _mm512_xor_si512(_mm512_xor_si512(_mm512_maskz_srli_epi64(0xff, p1, 32), x1), _mm512_set1_epi64(k0));
      x1 = p1;
      x2 = _mm512_xor_si512(_mm512_xor_si512(_mm512_maskz_srli_epi64(0xff, p0, 32), x3), _mm512_set1_epi64(k1));
      x3 = p0;
      k0 += kW0;
      k1 += kW1;
    }
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(w0 + i), _mm512_maskz_cvtepi64_epi32(0xff, x0));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(w1 + i), _mm512_maskz_cvtepi64_epi32(0xff, x1));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(w2 + i), _mm512_maskz_cvtepi64_epi32(0xff, x2));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(w3 + i), _mm512_maskz_cvtepi64_epi32(0xff, x3));
  }
}
#endif

/// rho[i] = sqrt(a[i]) for the kChunk elements of a (64-byte aligned, a[i] > 0). std::sqrt carries an errno
/// branch (a libm call on a negative argument) that stops GCC from vectorising the loop under the project's
/// -fmath-errno, so the vector sqrt is written with intrinsics. Every form is the IEEE sqrt: the same bits.
LIEVI_NOISE_DEFAULT void sqrt_lanes(const double* a, double* rho) {
  std::size_t i = 0;
#if defined(__SSE2__)
  for (; i + 2 <= kChunk; i += 2) _mm_store_pd(rho + i, _mm_sqrt_pd(_mm_load_pd(a + i)));
#endif
  for (; i < kChunk; ++i) rho[i] = std::sqrt(a[i]);
}
#if LIEVI_NOISE_MULTIVERSION
__attribute__((target("avx2"))) void sqrt_lanes(const double* a, double* rho) {
  for (std::size_t i = 0; i < kChunk; i += 4) _mm256_store_pd(rho + i, _mm256_sqrt_pd(_mm256_load_pd(a + i)));
}
__attribute__((target("avx512f"))) void sqrt_lanes(const double* a, double* rho) {
  for (std::size_t i = 0; i < kChunk; i += 8) {  // maskz form: the plain _mm512_sqrt_pd trips GCC 12's -Wuninitialized
    _mm512_store_pd(rho + i, _mm512_maskz_sqrt_pd(0xff, _mm512_load_pd(a + i)));
  }
}
#endif

/// Box-Muller on kChunk blocks, vectorised (branch-free kernels): rad2[i] = -2 log u1, c[i], s[i] = cos, sin
/// (2 pi u2).
LIEVI_NOISE_CLONES void box_muller_lanes(const std::uint32_t* w0, const std::uint32_t* w1, const std::uint32_t* w2,
                                         const std::uint32_t* w3, double* rad2, double* c, double* s) {
#pragma omp simd
  for (std::size_t i = 0; i < kChunk; ++i) rad2[i] = box_muller_radius2(w0[i], w1[i]);
#pragma omp simd
  for (std::size_t i = 0; i < kChunk; ++i) cossin_2pi(u01(w2[i], w3[i]), c[i], s[i]);
}

/// out[2i] = rho[i] c[i], out[2i + 1] = rho[i] s[i] for the kChunk blocks (the two normals of each block).
LIEVI_NOISE_CLONES void pair_products(const double* rho, const double* c, const double* s, double* out) {
#pragma omp simd
  for (std::size_t i = 0; i < kChunk; ++i) {
    out[2 * i] = rho[i] * c[i];
    out[2 * i + 1] = rho[i] * s[i];
  }
}

/// The 2 kChunk normals of blocks block0 .. block0 + kChunk - 1 (normal indices 2 block0 ...) into out.
void normals_chunk(StreamKey key, std::uint32_t step_lo, std::uint32_t step_hi, std::uint32_t group,
                   std::uint32_t block0, double* out) {
  alignas(64) std::uint32_t w0[kChunk], w1[kChunk], w2[kChunk], w3[kChunk];
  philox_lanes(key, step_lo, step_hi, group, block0, w0, w1, w2, w3);
  alignas(64) double rad2[kChunk], c[kChunk], s[kChunk], rho[kChunk];
  box_muller_lanes(w0, w1, w2, w3, rad2, c, s);
  sqrt_lanes(rad2, rho);
  pair_products(rho, c, s, out);
}

/// Up to this many normals are drawn block by block (stream_normal's arithmetic) rather than by a 64-block chunk:
/// a chunk costs about as much as 100 single normals, and `common` noise or a few `modes` need 1 to 8.
constexpr std::size_t kFewNormals = 8;

/// Normals i0 .. i0 + n - 1 with i0 + n <= 2^32 (no wrap-around of the normal index).
void normals_range(StreamKey key, std::uint32_t step_lo, std::uint32_t step_hi, std::uint32_t group,
                   std::uint64_t i0, std::size_t n, double* out) {
  const std::uint64_t end = i0 + n;
  if (n <= kFewNormals) {  // a few (common noise, a few modes): block by block, not a whole chunk
    const std::uint64_t step = (std::uint64_t{step_hi} << 32) | step_lo;
    for (std::uint64_t k = i0; k < end;) {
      const Block b = philox_block(key, step, group, static_cast<std::uint32_t>(k >> 1));
      const double rho = std::sqrt(box_muller_radius2(b.r[0], b.r[1]));
      double c, s;
      cossin_2pi(u01(b.r[2], b.r[3]), c, s);
      if ((k & 1u) == 0) out[k++ - i0] = rho * c;
      if (k < end) out[k++ - i0] = rho * s;
    }
    return;
  }
  alignas(64) double tmp[2 * kChunk];
  for (std::uint64_t first = i0 & ~std::uint64_t{1}; first < end; first += 2 * kChunk) {
    const auto block0 = static_cast<std::uint32_t>(first >> 1);
    if (first >= i0 && first + 2 * kChunk <= end) {  // the whole chunk is wanted: straight into out
      normals_chunk(key, step_lo, step_hi, group, block0, out + (first - i0));
      continue;
    }
    normals_chunk(key, step_lo, step_hi, group, block0, tmp);
    const std::uint64_t lo = std::max(first, i0), hi = std::min(first + 2 * kChunk, end);
    std::copy(tmp + (lo - first), tmp + (hi - first), out + (lo - i0));
  }
}

}  // namespace

Block philox_block(StreamKey key, std::uint64_t step, std::uint32_t group, std::uint32_t block) {
  using Philox = r123::Philox4x32_R<kRounds>;
  const Philox::ctr_type ctr = {
      {static_cast<std::uint32_t>(step), static_cast<std::uint32_t>(step >> 32), group, block}};
  const Philox::key_type k = {{key.seed, key.path}};
  const Philox::ctr_type r = Philox{}(ctr, k);
  return Block{{r.v[0], r.v[1], r.v[2], r.v[3]}};
}

double stream_normal(StreamKey key, std::uint64_t step, std::uint32_t group, std::uint32_t index) {
  const Block b = philox_block(key, step, group, index >> 1);
  const double rho = std::sqrt(box_muller_radius2(b.r[0], b.r[1]));
  double c, s;
  cossin_2pi(u01(b.r[2], b.r[3]), c, s);
  return rho * ((index & 1u) != 0 ? s : c);
}

void stream_normals(StreamKey key, std::uint64_t step, std::uint32_t group, std::uint32_t index0, std::size_t count,
                    double* out) {
  const auto lo = static_cast<std::uint32_t>(step);
  const auto hi = static_cast<std::uint32_t>(step >> 32);
  constexpr std::uint64_t kWrap = std::uint64_t{1} << 32;
  std::uint64_t i0 = index0;
  while (count > 0) {  // split where the normal index wraps around 2^32
    const std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(count, kWrap - i0));
    normals_range(key, lo, hi, group, i0, n, out);
    out += n;
    count -= n;
    i0 = 0;
  }
}

namespace detail {
double log_unit(double u) { return log_kernel(u); }
double cos_2pi(double u) {
  double c, s;
  cossin_2pi(u, c, s);
  return c;
}
double sin_2pi(double u) {
  double c, s;
  cossin_2pi(u, c, s);
  return s;
}
}  // namespace detail

}  // namespace lievi::noise
