#pragma once
/// @file lievi/noise/philox.hpp
/// @brief The counter-based noise streams of docs/scenarios.md "Streams" (stream version 2): Philox4x32-10
/// (Random123) keyed by (seed, path) with counter (step on the base_dt grid, mode group, block), uniforms by a
/// fixed rule and standard normals by a fixed Box-Muller written in lievi, both of its outputs used.
///
/// Every variate is a pure function of (seed, path, step, group, index): the same numbers for any thread count,
/// node order, batch split, output cadence or machine. The elementary functions of Box-Muller (log, cos, sin)
/// are lievi's own polynomial kernels (noise/philox.cpp, `detail::log_unit` etc. below), not libm, so the bits
/// do not depend on the C library or on the instruction set of the batch. Every step is a sequence of IEEE-754
/// double operations (+, -, *, /, sqrt), integer bit operations and bit selects, so the result is the same on
/// any IEEE machine and vector width. noise/philox.cpp and noise/wiener.cpp switch FMA contraction off
/// themselves (#pragma), so a build with FMA (-march=native) still gives the same bits. The batch
/// (`stream_normals`) is written on Highway's portable vectors and compiled for every instruction set of
/// lievi/core/isa.hpp (x86-64: AVX-512, AVX2, SSE4, scalar; AArch64: NEON, scalar), and uses the one chosen
/// there (lievi::simd::isa(): the widest the CPU has, or LIEVI_BATCH_ISA); every one gives the scalar
/// function's bits (checked by the tests on each). Do not build them with -ffast-math (it would allow
/// reassociation).
///
/// Fixed rules (changing any of them changes every stochastic result; then raise kStreamVersion):
///  - key   = {seed, path} (two 32-bit words);
///  - normal i of the stream (seed, path, group) at step n comes from the block with counter
///    {n & 0xffffffff, n >> 32, group, i / 2}, output i mod 2; i is a 32-bit index (the node for `independent`
///    noise, the mode for `modes`, 0 for `common`), so normals 2m and 2m + 1 share a block;
///  - one Philox block gives r0..r3; u1 = u01(r0, r1), u2 = u01(r2, r3), see `u01`: x = the top 53 bits of
///    the 64-bit word (hi:lo), u = fl(x + 1/2) * 2^-53 in (0, 1), with the single value that would round to
///    1 (x = 2^53 - 1) mapped to 1 - 2^-53;
///  - Box-Muller: rho = fl(sqrt(-2 log u1)), output 0 = rho * cos(2 pi u2), output 1 = rho * sin(2 pi u2).
///    cos/sin(2 pi u2) are evaluated by the exact reduction v = 4 u2, q = nearest integer to v (ties to
///    even), r = v - q in [-1/2, 1/2] (all exact), then quadrant q of cos/sin(pi r / 2).
///
/// Version 1 (lievi before 2026-12-05) drew one block per normal, counter {n lo, n hi, mode, 0}, and used only
/// the cosine output.
#include <bit>
#include <cstddef>
#include <cstdint>

namespace lievi::noise {

/// Key of one noise stream family: a user seed and the ensemble path index.
struct StreamKey {
  std::uint32_t seed = 0;
  std::uint32_t path = 0;
};

/// The version of the stream rules above, recorded in every noisy run's summary.json (`noise.stream`).
inline constexpr int kStreamVersion = 2;

/// The mode group of every noise source lievi has now (the third counter word). Other values are reserved for
/// further independent families of Brownian motions in one model.
inline constexpr std::uint32_t kDefaultGroup = 0;

/// Raw Philox4x32-10 block for counter {step_lo, step_hi, group, block} and key {seed, path}.
struct Block {
  std::uint32_t r[4];
};
[[nodiscard]] Block philox_block(StreamKey key, std::uint64_t step, std::uint32_t group, std::uint32_t block);

/// The fixed uniform rule: x = the top 53 bits of the 64-bit word (hi << 32 | lo), u = fl(x + 0.5) * 2^-53,
/// which lies in [2^-54, 1 - 2^-53] (never 0 or 1).
///
/// fl(x + 0.5) rounds to nearest-even once x >= 2^52, so x = 2^53 - 1 would give exactly 1; that single word
/// (probability 2^-53) is mapped to 1 - 2^-53 so that the documented range (0, 1) holds. The conversion of x
/// to double is written with the exact 2^52 bit trick (x = 2^21 hi' + lo', each part < 2^52 is exact); the
/// value is static_cast<double>(x), which the batch kernel computes with its target's exact conversion.
[[nodiscard]] inline double u01(std::uint32_t hi, std::uint32_t lo) {
  constexpr std::uint64_t kTwo52Bits = 0x4330000000000000ULL;  // the bits of 2^52
  const double h = std::bit_cast<double>(kTwo52Bits | hi) - 0x1.0p52;          // exactly hi
  const double l = std::bit_cast<double>(kTwo52Bits | (lo >> 11)) - 0x1.0p52;  // exactly lo >> 11
  const double x = h * 0x1.0p21 + l;                                             // exact, < 2^53
  const std::uint64_t ub = std::bit_cast<std::uint64_t>((x + 0.5) * 0x1.0p-53);  // in [2^-54, 1]
  // Branch-free u == 1 ? 1 - 2^-53 : u: only 1.0 (exponent field 0x3ff) carries into bit 62 when 2^52 is added.
  return std::bit_cast<double>(ub - ((ub + (1ULL << 52)) >> 62));
}

/// Standard normal number `index` of stream (key, group) at step `step`: block index / 2, output index mod 2.
[[nodiscard]] double stream_normal(StreamKey key, std::uint64_t step, std::uint32_t group, std::uint32_t index);

/// Batch over indices: out[k] = stream_normal(key, step, group, index0 + k) for k in [0, count) (index0 + k taken
/// modulo 2^32). Bitwise equal to the scalar function for every element, whatever count, index0 (odd or even)
/// and alignment (tests check it); each block is drawn once for its two normals. Vectorised across blocks, one
/// block per lane (no heap, no staging buffer: the normals are stored as they are made).
void stream_normals(StreamKey key, std::uint64_t step, std::uint32_t group, std::uint32_t index0, std::size_t count,
                    double* out);

/// How `put_stream_normals` stores normal z_k: out[k] = z_k (set), scale z_k (scale) or out[k] + scale z_k
/// (add_scaled), each product and sum one IEEE operation.
enum class Put { set, scale, add_scaled };

/// stream_normals with the normals put into out by `put` (no separate pass over out): the Wiener increments
/// (noise/wiener.hpp) take their fine increments sqrt(base_dt) z this way. Bitwise the same as the scalar
/// expressions on stream_normal (tests check it).
void put_stream_normals(StreamKey key, std::uint64_t step, std::uint32_t group, std::uint32_t index0,
                        std::size_t count, Put put, double scale, double* out);

/// lievi's own elementary kernels of Box-Muller, exposed for the accuracy tests (tests/noise/). They are the
/// functions the generators use (same code, out-of-line copies), accurate to <= 2 ulp against libm (measured
/// worst cases over 10^6 points: log 0.81 ulp, cos/sin 1.28 ulp against a correctly reduced reference).
namespace detail {
/// log(u) for finite normal u > 0 (Box-Muller uses u in [2^-54, 1 - 2^-53]); fdlibm's reduction
/// u = 2^k m, m in [sqrt(2)/2, sqrt(2)), and its degree-7 polynomial in s^2, s = (m - 1)/(m + 1), branch-free.
[[nodiscard]] double log_unit(double u);
/// cos(2 pi u) and sin(2 pi u) for u in [0, 1] with 4 u exact (every u01 value), by the exact quadrant
/// reduction of the file comment and Taylor polynomials of cos/sin(pi r / 2) on |r| <= 1/2.
[[nodiscard]] double cos_2pi(double u);
[[nodiscard]] double sin_2pi(double u);
/// The instruction set `stream_normals` uses now ("avx512", "avx2", "sse4", "neon" or "scalar", the names of
/// lievi::simd::isa_name): for the tests and benchmarks that force each.
[[nodiscard]] const char* stream_normals_isa();
/// For the benchmark that splits the cost of a normal (bench/noise_bench.cpp): the batch kernel of
/// `stream_normals` with its ten Philox rounds replaced by two multiplies of the block counter, 2 nblocks values
/// into out. Not a noise stream.
void stream_normals_without_philox(std::uint32_t block0, std::size_t nblocks, double* out);
}  // namespace detail

}  // namespace lievi::noise
