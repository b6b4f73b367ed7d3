// The reproducible noise streams (lievi/noise/, stream version 2): ns per standard normal of the scalar
// `stream_normal`, of the batch `stream_normals` over indices (count 10^3 and 10^5) and of
// `WienerIncrements::increments` at m = 0 (one normal per node per step), and of Random123's raw Philox4x32-10
// block for scale. Items per second = normals per second; the "time_per_normal" counter is its inverse (seconds,
// SI prefix). The batch runs on the instruction set of the batched kernels (the label names it; set
// LIEVI_BATCH_ISA = avx512 | avx2 | sse4 | neon | scalar to time another). BM_NoiseNormalsWithoutPhilox: the
// same batch kernel with its ten Philox rounds replaced by two multiplies, so that BM_NoiseBatchNormals minus it
// is the rounds' share of a normal. BM_NoiseFloorDivSqrt: one division and one square root per element on
// AVX-512 (the fixed Box-Muller has one of each per block, i.e. per two normals).
#include <benchmark/benchmark.h>

#include <Random123/philox.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <vector>

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#endif

#include "lievi/noise/philox.hpp"
#include "lievi/noise/stream_steps.hpp"
#include "lievi/noise/wiener.hpp"

namespace {

using namespace lievi::noise;

void set_rate(benchmark::State& state, std::int64_t normals_per_iteration) {
  const std::int64_t n = static_cast<std::int64_t>(state.iterations()) * normals_per_iteration;
  state.SetItemsProcessed(n);
  // Seconds (CPU) per normal, printed with an SI prefix (e.g. "8.1n" = 8.1 ns).
  state.counters["time_per_normal"] =
      benchmark::Counter(static_cast<double>(n), benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

/// Scalar: 1000 modes of one step per iteration, one call each.
void BM_NoiseScalarNormal(benchmark::State& state) {
  const StreamKey key{1, 2};
  std::uint64_t step = 0;
  for (auto _ : state) {
    double acc = 0.0;
    for (std::uint32_t k = 0; k < 1000; ++k) acc += stream_normal(key, step, kDefaultGroup, k);
    benchmark::DoNotOptimize(acc);
    ++step;
  }
  set_rate(state, 1000);
}
BENCHMARK(BM_NoiseScalarNormal);

/// Batch over indices (nodes), count = range(0).
void BM_NoiseBatchNormals(benchmark::State& state) {
  const StreamKey key{1, 2};
  const auto count = static_cast<std::size_t>(state.range(0));
  std::vector<double> out(count);
  std::uint64_t step = 0;
  for (auto _ : state) {
    stream_normals(key, step++, kDefaultGroup, 0, count, out.data());
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  set_rate(state, static_cast<std::int64_t>(count));
  state.SetLabel(detail::stream_normals_isa());
}
BENCHMARK(BM_NoiseBatchNormals)->Arg(1000)->Arg(100000);

/// One block's two normals at range(0) consecutive steps (stream_normals_steps: one step per lane), the
/// across-steps batch of a source with few normals per step; items = normals.
void BM_NoiseStepNormals(benchmark::State& state) {
  const StreamKey key{1, 2};
  const auto steps = static_cast<std::size_t>(state.range(0));
  std::vector<double> even(steps), odd(steps);
  std::uint64_t step = 0;
  for (auto _ : state) {
    stream_normals_steps(key, step, kDefaultGroup, 0, steps, even.data(), odd.data());
    step += steps;
    benchmark::DoNotOptimize(even.data());
    benchmark::DoNotOptimize(odd.data());
    benchmark::ClobberMemory();
  }
  set_rate(state, static_cast<std::int64_t>(2 * steps));
  state.SetLabel(detail::stream_normals_isa());
}
BENCHMARK(BM_NoiseStepNormals)->Arg(8)->Arg(64)->Arg(1000);

/// The batch kernel without the Philox rounds (not a stream: for the split of the cost), count = range(0) values.
void BM_NoiseNormalsWithoutPhilox(benchmark::State& state) {
  const auto count = static_cast<std::size_t>(state.range(0));
  std::vector<double> out(count);
  std::uint32_t block0 = 0;
  for (auto _ : state) {
    detail::stream_normals_without_philox(block0, count / 2, out.data());
    block0 += static_cast<std::uint32_t>(count / 2);
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  set_rate(state, static_cast<std::int64_t>(count));
  state.SetLabel(detail::stream_normals_isa());
}
BENCHMARK(BM_NoiseNormalsWithoutPhilox)->Arg(1000)->Arg(100000);

/// Wiener increments at m = 0 (dt = base_dt): one normal per node per step, count = range(0) nodes.
void BM_NoiseWienerIncrementsM0(benchmark::State& state) {
  const WienerIncrements w({1, 2}, 1e-3, 0);
  const auto count = static_cast<std::size_t>(state.range(0));
  std::vector<double> out(count);
  std::uint64_t n = 0;
  for (auto _ : state) {
    w.increments(n++, 0, count, out.data());
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  set_rate(state, static_cast<std::int64_t>(count));
  state.SetLabel(detail::stream_normals_isa());
}
BENCHMARK(BM_NoiseWienerIncrementsM0)->Arg(1000)->Arg(100000);

/// For scale: Random123's raw scalar Philox4x32-10 block (no uniforms, no Box-Muller), per block.
void BM_NoiseRawPhiloxBlock(benchmark::State& state) {
  r123::Philox4x32_R<10> philox;
  r123::Philox4x32_R<10>::ctr_type c = {{0, 0, 0, 0}};
  const r123::Philox4x32_R<10>::key_type k = {{1, 2}};
  for (auto _ : state) {
    std::uint32_t acc = 0;
    for (std::uint32_t i = 0; i < 1000; ++i) {
      c.v[2] = i;
      acc ^= philox(c, k).v[0];
    }
    benchmark::DoNotOptimize(acc);
    ++c.v[0];
  }
  set_rate(state, 1000);
}
BENCHMARK(BM_NoiseRawPhiloxBlock);

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
// --- The alternative transform, for the choice of stream version 2 ------------------------------------------
// The stream rule could turn each 53-bit uniform into a normal by an inverse normal CDF instead of Box-Muller.
// Any inverse CDF accurate to a few ulps has the shape of Wichura's AS241: a rational function of degree 7/7 in
// the centre (|u - 1/2| <= 0.425, one division) and, in the tails (15% of the normals), sqrt(-log(min(u, 1 - u)))
// fed to a second 7/7 rational (another division). Vectorised without branches every lane pays for both paths
// (a vector of 8 has a tail lane 73% of the time). BM_NoiseInverseCdfShape times only that arithmetic, per
// normal, on uniforms already in L1 (no Philox): if it costs more than the whole Box-Muller stream
// (BM_NoiseBatchNormals), the inverse CDF loses. The coefficients are placeholders of the right size (the
// cost does not depend on their values); the log is a branch-free kernel of the same cost class as lievi's.
namespace icdf {
__attribute__((always_inline)) inline double log_shape(double x) {
  const std::uint64_t b = std::bit_cast<std::uint64_t>(x);
  const double m = std::bit_cast<double>((b & 0x000fffffffffffffULL) | 0x3ff0000000000000ULL);  // [1, 2)
  const double e = std::bit_cast<double>(0x4330000000000000ULL | (b >> 52)) - (0x1.0p52 + 1023.0);  // exact
  const double f = (m - 1.0) / (m + 1.0), f2 = f * f;
  const double p = 2.0 + f2 * (0.6666666666666735 + f2 * (0.3999999999940942 + f2 * (0.2857142874366239 +
                   f2 * (0.2222219843214978 + f2 * (0.1818357216161805 + f2 * (0.1531383769920937 + f2 * 0.1479819860511659))))));
  return e * 0.6931471805599453 + f * p;
}
__attribute__((always_inline)) inline double rational77(double r, double c) {
  const double num = 1.0 + r * (c + r * (0.5 + r * (0.25 + r * (0.125 + r * (0.0625 + r * (0.03125 + r * 0.015625))))));
  const double den = 1.0 + r * (0.9 + r * (0.45 + r * (0.225 + r * (0.1125 + r * (0.05625 + r * (0.028125 + r * 0.0140625))))));
  return num / den;
}
__attribute__((target_clones("avx512f", "avx2", "default"))) void inverse_cdf_shape(const double* u, double* out,
                                                                                   std::size_t n) {
#pragma omp simd
  for (std::size_t i = 0; i < n; ++i) {
    const double q = u[i] - 0.5;
    const double central = q * rational77(0.180625 - q * q, 0.7);
    const double t = u[i] < 0.5 ? u[i] : 1.0 - u[i];
    const double r = __builtin_sqrt(-log_shape(t));  // this file has -fno-math-errno: vectorised
    const bool far = r > 5.0;
    const double tail = rational77(far ? r - 5.0 : r - 1.6, far ? 0.3 : 0.8);
    const double x = std::copysign(tail, q);
    out[i] = std::fabs(q) <= 0.425 ? central : x;
  }
}
}  // namespace icdf

void BM_NoiseInverseCdfShape(benchmark::State& state) {
  constexpr std::size_t n = 1024;  // L1-resident: the arithmetic, not the memory
  std::vector<double> u(n), out(n);
  for (std::size_t i = 0; i < n; ++i) u[i] = (static_cast<double>((i * 7919) % n) + 0.5) / static_cast<double>(n);
  for (auto _ : state) {
    icdf::inverse_cdf_shape(u.data(), out.data(), n);
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  set_rate(state, static_cast<std::int64_t>(n));
}
BENCHMARK(BM_NoiseInverseCdfShape);

/// The two operations of the fixed Box-Muller that no implementation avoids, eight lanes at a time: the
/// division s = f / (2 + f) of the log kernel and the square root of -2 log u1 (IEEE: vdivpd and vsqrtpd,
/// not pipelined on most cores). Per element = per normal of the independent-noise stream.
__attribute__((target("avx512f"))) void div_sqrt_avx512(const double* a, double* out, std::size_t n) {
  const __m512d two = _mm512_set1_pd(2.0);
  for (std::size_t i = 0; i + 8 <= n; i += 8) {
    const __m512d x = _mm512_loadu_pd(a + i);
    const __m512d s = _mm512_div_pd(x, _mm512_add_pd(two, x));
    _mm512_storeu_pd(out + i, _mm512_maskz_sqrt_pd(0xff, s));
  }
}
void BM_NoiseFloorDivSqrt(benchmark::State& state) {
  __builtin_cpu_init();
  if (!__builtin_cpu_supports("avx512f")) {
    state.SkipWithError("needs AVX-512F");
    return;
  }
  constexpr std::size_t n = 1024;  // L1-resident: the arithmetic, not the memory
  std::vector<double> a(n), out(n);
  for (std::size_t i = 0; i < n; ++i) a[i] = (static_cast<double>(i) + 0.5) / static_cast<double>(n);
  for (auto _ : state) {
    div_sqrt_avx512(a.data(), out.data(), n);
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  set_rate(state, static_cast<std::int64_t>(n));
}
BENCHMARK(BM_NoiseFloorDivSqrt);
#endif

}  // namespace
