#pragma once
// The instruction sets lievi's Highway kernels are compiled for, included before any Highway header by every
// file that compiles kernels (src/models/beam_batch.cpp, src/noise/philox.cpp) and by the one that chooses
// among them (src/core/isa.cpp), so that the choice (lievi/core/isa.hpp) always names a set every family has.
//
// Every target the compiler can generate, the scalar fallback included (tests force each), but SSSE3 (a CPU
// with SSSE3 but not SSE4 takes the fallback), AVX3_DL (Isa::avx512 is one target) and the sizeless SVE and
// RVV targets (a pack of them cannot be a struct member, and the kernels keep packs in small structs).
#if !defined(HWY_DISABLED_TARGETS)
#define HWY_DISABLED_TARGETS \
  (HWY_SSSE3 | HWY_AVX3_DL | HWY_SVE | HWY_SVE2 | HWY_SVE_256 | HWY_SVE2_128 | HWY_RVV)
#endif
#define HWY_COMPILE_ALL_ATTAINABLE

#include <hwy/detect_targets.h>  // HWY_TARGETS

#include "lievi/core/isa.hpp"

namespace lievi::simd::detail {

/// Whether the kernels are compiled for `i` (in HWY_TARGETS); the scalar fallback is Highway's SCALAR or
/// EMU128.
constexpr bool compiled(Isa i) {
  switch (i) {
    case Isa::scalar:
      return (HWY_TARGETS & (HWY_SCALAR | HWY_EMU128)) != 0;
    case Isa::sse4:
      return (HWY_TARGETS & HWY_SSE4) != 0;
    case Isa::neon:
      return (HWY_TARGETS & HWY_NEON) != 0;
    case Isa::avx2:
      return (HWY_TARGETS & HWY_AVX2) != 0;
    case Isa::avx512:
      return (HWY_TARGETS & HWY_AVX3) != 0;
  }
  return false;
}

/// Whether a dispatch table (entries with a member `isa`) has an entry for every compiled instruction set:
/// each kernel file checks its own with a static_assert.
template <class Table>
constexpr bool covers_compiled(const Table& table) {
  for (Isa i : {Isa::scalar, Isa::sse4, Isa::neon, Isa::avx2, Isa::avx512}) {
    if (!compiled(i)) continue;
    bool found = false;
    for (const auto& t : table) found = found || t.isa == i;
    if (!found) return false;
  }
  return true;
}

}  // namespace lievi::simd::detail
