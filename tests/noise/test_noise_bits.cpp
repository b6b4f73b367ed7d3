// The noise stream's bits do not depend on the flags the library is compiled with (docs/scenarios.md
// "Streams"): this file is built several times, each time with noise/philox.cpp and noise/wiener.cpp compiled
// into it with one baseline instruction set: the x86-64 baseline (SSE2), AVX2 with FMA, AVX-512 (x86-64;
// -ffp-contract=off holds the FMA back, as the library's own build does), the AArch64 baseline (NEON). The
// baseline changes the code of the scalar reference (`stream_normal`, the Wiener sums) and Highway's static
// target; the batch kernel is still compiled for every target and follows lievi::models::simd::isa(). Each
// build must reproduce the frozen hash of test_noise.cpp's BoxMuller.FrozenValues with every target this CPU
// supports, and the batch must equal the scalar function element by element. The test skips itself on a CPU
// without the baseline's instruction set (LIEVI_NOISE_BITS_NEEDS names it), before any code of that set runs.
#include <gtest/gtest.h>

#include <bit>
#include <cstdint>
#include <vector>

#include "lievi/core/isa.hpp"
#include "lievi/noise/philox.hpp"
#include "lievi/noise/wiener.hpp"
#include "noise/frozen_stream.hpp"

namespace {

using namespace lievi::noise;

bool cpu_has_variant() {
#if defined(LIEVI_NOISE_BITS_NEEDS_AVX2)
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
#elif defined(LIEVI_NOISE_BITS_NEEDS_AVX512)
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") &&
         __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("fma");
#else
  return true;
#endif
}

TEST(NoiseBits, FrozenHashForThisInstructionSet) {
  if (!cpu_has_variant()) GTEST_SKIP() << "this CPU lacks the instruction set of " << LIEVI_NOISE_BITS_VARIANT;
  namespace simd = lievi::simd;
  const simd::Isa start = simd::isa();
  for (const simd::Isa want : simd::usable_isas()) {
    ASSERT_EQ(simd::force_isa(want), want);
    ASSERT_STREQ(detail::stream_normals_isa(), simd::isa_name(want));
    EXPECT_EQ(lievi::test::stream_hash(), lievi::test::kFrozenStreamHash)
        << LIEVI_NOISE_BITS_VARIANT << " " << simd::isa_name(want);
    // and the scalar function agrees with the batch element by element here too
    std::vector<double> b(301);
    stream_normals({3, 4}, 99, 0, 7, b.size(), b.data());
    for (std::uint32_t i = 0; i < b.size(); ++i)
      ASSERT_EQ(std::bit_cast<std::uint64_t>(b[i]), std::bit_cast<std::uint64_t>(stream_normal({3, 4}, 99, 0, 7 + i)))
          << LIEVI_NOISE_BITS_VARIANT << " " << simd::isa_name(want) << " " << i;
  }
  simd::force_isa(start);
}

}  // namespace
