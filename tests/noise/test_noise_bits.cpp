// The noise stream's bits do not depend on the instruction set (docs/scenarios.md "Streams"): this file is
// built several times, each time with noise/philox.cpp and noise/wiener.cpp compiled into it for one
// instruction set and without the load-time dispatch (LIEVI_NOISE_NO_CLONES): the x86-64 baseline (SSE2), AVX2
// with FMA and AVX-512 (x86-64; -ffp-contract=off holds the FMA back, as the library's own build does), the
// AArch64 baseline (NEON). Each must reproduce the frozen hash of test_noise.cpp's BoxMuller.FrozenValues,
// which the library's dispatched build (the clones the CPU picks) also checks; together they cover every variant
// the dispatch can choose. The test skips itself on a CPU without the variant's instruction set
// (LIEVI_NOISE_BITS_NEEDS names it), before any code of that set runs.
#include <gtest/gtest.h>

#include <bit>
#include <cstdint>
#include <vector>

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
  EXPECT_EQ(lievi::test::stream_hash(), lievi::test::kFrozenStreamHash) << LIEVI_NOISE_BITS_VARIANT;
  // and the scalar function agrees with the batch element by element here too
  std::vector<double> b(301);
  stream_normals({3, 4}, 99, 0, 7, b.size(), b.data());
  for (std::uint32_t i = 0; i < b.size(); ++i)
    ASSERT_EQ(std::bit_cast<std::uint64_t>(b[i]), std::bit_cast<std::uint64_t>(stream_normal({3, 4}, 99, 0, 7 + i)))
        << LIEVI_NOISE_BITS_VARIANT << " " << i;
}

}  // namespace
