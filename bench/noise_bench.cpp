// The reproducible noise streams (lievi/noise/): ns per standard normal of the scalar `standard_normal`, of the
// batch `standard_normals` over modes (count 10^3 and 10^5) and of `WienerIncrements::increments` at m = 0 (one
// normal per node per step), and of Random123's raw Philox4x32-10 block for scale. Items per second = normals
// per second; the "time_per_normal" counter is its inverse (seconds, SI prefix). BM_NoiseFloorDivSqrt: a lower
// bound of any implementation of the fixed Box-Muller of docs/scenarios.md "Streams" on AVX-512 (its one
// division and one square root per normal, nothing else).
#include <benchmark/benchmark.h>

#include <Random123/philox.h>

#include <cstdint>
#include <vector>

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#endif

#include "lievi/noise/philox.hpp"
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
    for (std::uint32_t k = 0; k < 1000; ++k) acc += standard_normal(key, step, k, 0);
    benchmark::DoNotOptimize(acc);
    ++step;
  }
  set_rate(state, 1000);
}
BENCHMARK(BM_NoiseScalarNormal);

/// Batch over modes, count = range(0).
void BM_NoiseBatchNormals(benchmark::State& state) {
  const StreamKey key{1, 2};
  const auto count = static_cast<std::size_t>(state.range(0));
  std::vector<double> out(count);
  std::uint64_t step = 0;
  for (auto _ : state) {
    standard_normals(key, step++, 0, count, 0, out.data());
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  set_rate(state, static_cast<std::int64_t>(count));
}
BENCHMARK(BM_NoiseBatchNormals)->Arg(1000)->Arg(100000);

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
