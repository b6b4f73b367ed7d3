/// @file noise/philox.cpp
/// @brief Philox4x32-10 blocks, the fixed Box-Muller (both outputs: stream version 2) and lievi's own log / cos /
/// sin kernels; the batch of normals on Highway's portable vectors (noise/normals_kernels.inc).
///
/// The scalar path (`stream_normal`, the reference) takes its block from Random123 (`r123::Philox4x32_R<10>`)
/// and evaluates the inline kernels below (`box_muller_radius2`, `cossin_2pi`, IEEE sqrt and product). The
/// batch path (`stream_normals`) runs the same rounds and the same operations lane-wise in
/// normals_kernels.inc, compiled once per instruction set (AVX-512, AVX2, SSE4 and the scalar fallback on
/// x86-64; NEON and the fallback on AArch64) and picked at run time by the instruction-set choice of
/// lievi/core/isa.hpp (simd::isa(): the widest the CPU has, or LIEVI_BATCH_ISA, or force_isa). Integer
/// arithmetic is exact and the floating-point steps are the same IEEE operations in the same order, so every
/// target gives the scalar path's doubles bit for bit; the tests check each target against the scalar path
/// and against the Random123 known-answer vectors.

// No contraction of a * b + c into an FMA anywhere in this file: GCC's default for C++ is -ffp-contract=fast,
// and the AVX2 / AVX-512 / NEON targets below, or a build with -march=native, have FMA, which would round
// differently from the scalar rule. (The library is also built with -ffp-contract=off; this holds without it.)
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("fp-contract=off")
#elif defined(__clang__)
#pragma clang fp contract(off)
#endif
// GCC notes that the ABI of 64-byte vector arguments changed in GCC 4.9 (-Wpsabi); the kernels' vectors never
// cross a call boundary (all inlined), so the note does not apply.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wpsabi"
#endif

#include <Random123/philox.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <stdexcept>

#include "lievi/core/isa.hpp"
#include "lievi/noise/philox.hpp"
#include "lievi/noise/stream_steps.hpp"

// The scalar kernels below are inlined into stream_normal and the block-by-block path.
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

/// out = z, scale z or out + scale z (Put), one IEEE operation each: the batch kernel's rule for one value.
inline void put_one(Put put, double scale, double z, double& out) {
  switch (put) {
    case Put::set:
      out = z;
      return;
    case Put::scale:
      out = scale * z;
      return;
    case Put::add_scaled:
      out = out + scale * z;
      return;
  }
}

/// Normals `first` .. `first + n - 1` (n <= 2, within one block) put into out by the scalar rule: the ends of a
/// batch that starts or stops in the middle of a block, and the batches of a few normals.
void block_normals(StreamKey key, std::uint64_t step, std::uint32_t group, std::uint64_t first, std::size_t n,
                   Put put, double scale, double* out) {
  const Block b = philox_block(key, step, group, static_cast<std::uint32_t>(first >> 1));
  const double rho = std::sqrt(box_muller_radius2(b.r[0], b.r[1]));
  double c, s;
  cossin_2pi(u01(b.r[2], b.r[3]), c, s);
  if ((first & 1u) == 0) {
    put_one(put, scale, rho * c, out[0]);
    if (n > 1) put_one(put, scale, rho * s, out[1]);
  } else {
    put_one(put, scale, rho * s, out[0]);
  }
}

}  // namespace
}  // namespace lievi::noise

// ---- the batch kernel, once per instruction set ------------------------------------------------------------
// The instruction sets of src/core/hwy_targets.hpp, the same as the batched beam kernels', so that the one
// lievi::simd::isa() names always has a noise kernel too.
#include "../core/hwy_targets.hpp"  // before any other Highway header
#undef HWY_TARGET_INCLUDE
// foreach_target.h includes this by name, found through src/ (this file's INCLUDE_DIRECTORIES in CMakeLists.txt).
#define HWY_TARGET_INCLUDE "noise/normals_kernels.inc"
#include <hwy/foreach_target.h>  // includes the kernels once per target but the static one

#include <hwy/highway.h>

#include "normals_kernels.inc"  // the static target's

#if HWY_ONCE
namespace lievi::noise {
namespace {

struct Target {
  simd::Isa isa;
  void (*blocks)(StreamKey, std::uint32_t, std::uint32_t, std::uint32_t, std::uint32_t, std::size_t, Put, double,
                 double*);
  void (*blocks_no_rounds)(std::uint32_t, std::size_t, double*);
  void (*steps)(StreamKey, std::uint64_t, std::uint32_t, std::uint32_t, std::size_t, double*, double*);
};
/// The compiled targets, narrowest first.
constexpr Target kTargets[] = {
#if HWY_TARGETS & HWY_SCALAR
    {simd::Isa::scalar, &N_SCALAR::blocks_isa, &N_SCALAR::blocks_no_rounds_isa, &N_SCALAR::steps_isa},
#elif HWY_TARGETS & HWY_EMU128
    {simd::Isa::scalar, &N_EMU128::blocks_isa, &N_EMU128::blocks_no_rounds_isa, &N_EMU128::steps_isa},
#endif
#if HWY_TARGETS & HWY_SSE4
    {simd::Isa::sse4, &N_SSE4::blocks_isa, &N_SSE4::blocks_no_rounds_isa, &N_SSE4::steps_isa},
#endif
#if HWY_TARGETS & HWY_NEON
    {simd::Isa::neon, &N_NEON::blocks_isa, &N_NEON::blocks_no_rounds_isa, &N_NEON::steps_isa},
#endif
#if HWY_TARGETS & HWY_AVX2
    {simd::Isa::avx2, &N_AVX2::blocks_isa, &N_AVX2::blocks_no_rounds_isa, &N_AVX2::steps_isa},
#endif
#if HWY_TARGETS & HWY_AVX3
    {simd::Isa::avx512, &N_AVX3::blocks_isa, &N_AVX3::blocks_no_rounds_isa, &N_AVX3::steps_isa},
#endif
};

static_assert(simd::detail::covers_compiled(kTargets), "a compiled instruction set without a noise kernel");

/// The kernel of the instruction set in use (simd::isa(); always compiled here, by the assertion above).
const Target& target() {
  const simd::Isa want = simd::isa();
  for (const Target& t : kTargets)
    if (t.isa == want) return t;
  return kTargets[0];
}

/// Up to this many normals are drawn block by block with the scalar rule rather than by the vector kernel (a
/// pack of 8 blocks on AVX-512 costs about as much as a few scalar blocks; `common` noise needs 1 normal a step).
constexpr std::size_t kFewNormals = 4;

/// Normals i0 .. i0 + n - 1 with i0 + n <= 2^32 (no wrap-around of the normal index), put into out.
void normals_range(StreamKey key, std::uint64_t step, std::uint32_t group, std::uint64_t i0, std::size_t n, Put put,
                   double scale, double* out) {
  const std::uint64_t end = i0 + n;
  if (n <= kFewNormals) {
    for (std::uint64_t k = i0; k < end; k += 2 - (k & 1u))
      block_normals(key, step, group, k, end - k, put, scale, out + (k - i0));
    return;
  }
  std::uint64_t k = i0;
  if ((k & 1u) != 0) {  // starts with the second normal of a block
    block_normals(key, step, group, k, 1, put, scale, out);
    ++k;
  }
  const std::size_t nblocks = static_cast<std::size_t>((end - k) >> 1);
  target().blocks(key, static_cast<std::uint32_t>(step), static_cast<std::uint32_t>(step >> 32), group,
                  static_cast<std::uint32_t>(k >> 1), nblocks, put, scale, out + (k - i0));
  k += 2 * nblocks;
  if (k < end) block_normals(key, step, group, k, 1, put, scale, out + (k - i0));  // ends with a block's first
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
  put_stream_normals(key, step, group, index0, count, Put::set, 1.0, out);
}

void put_stream_normals(StreamKey key, std::uint64_t step, std::uint32_t group, std::uint32_t index0,
                        std::size_t count, Put put, double scale, double* out) {
  constexpr std::uint64_t kWrap = std::uint64_t{1} << 32;
  std::uint64_t i0 = index0;
  while (count > 0) {  // split where the normal index wraps around 2^32
    const std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(count, kWrap - i0));
    normals_range(key, step, group, i0, n, put, scale, out);
    out += n;
    count -= n;
    i0 = 0;
  }
}

void stream_normals_steps(StreamKey key, std::uint64_t step0, std::uint32_t group, std::uint32_t block,
                          std::size_t nsteps, double* even, double* odd) {
  if (nsteps > 0 && nsteps - 1 > ~std::uint64_t{0} - step0)
    throw std::out_of_range("noise::stream_normals_steps: the steps go past 2^64 - 1");
  target().steps(key, step0, group, block, nsteps, even, odd);
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
const char* stream_normals_isa() { return simd::isa_name(target().isa); }
void stream_normals_without_philox(std::uint32_t block0, std::size_t nblocks, double* out) {
  target().blocks_no_rounds(block0, nblocks, out);
}
}  // namespace detail

}  // namespace lievi::noise
#endif  // HWY_ONCE
