// The exact-Cayley beam sweeps on packs of nodes (see lievi/models/beam_batch.hpp for what they compute).
//
// Every function below is an elementwise computation on GCC/Clang vector-extension packs of W doubles: +, -, *, /
// and comparisons only (Cayley is rational: no transcendental function), compiled with -ffp-contract=fast
// under GCC and =on under Clang (CMakeLists.txt): where the ISA has FMA, the compiler fuses the multiply-adds,
// and it fuses the same products in every instance, so a lane's result is the same IEEE sequence whatever the
// pack width, whether the pack is full or partial and whatever the other lanes hold (AVX-512 and AVX2 + FMA give
// the same bits: tested; SSE2, without FMA, differs from them by round-off). On x86-64 each kernel is compiled
// three times, for AVX-512 (W = 8), AVX2 + FMA (W = 4) and baseline x86-64 (SSE2, W = 2), and the widest the
// CPU supports is used (the environment variable LIEVI_BATCH_ISA = sse2 or avx2 caps it at start-up; force_isa
// sets it, for tests); elsewhere only the baseline W = 2 instance exists (NEON on AArch64). A partial pack at
// the end of a range repeats its last node in the unused lanes and stores only the valid ones. Full packs move
// each item's components in 16-byte pairs and transpose them in registers (load_block, store_block): the arrays
// are the stepper's AoS storage, and element-by-element gathers and scatters cost more than the arithmetic.
#include "lievi/models/beam_batch.hpp"

#include <algorithm>
#include <atomic>
#include <cfloat>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <string_view>

#include "lievi/core/tolerances.hpp"

// The pack helpers are always inlined into the per-ISA kernels, so no pack crosses a call boundary between
// code of different ISAs (GCC's -Wpsabi note about AVX-512 vector arguments does not apply).
#pragma GCC diagnostic ignored "-Wpsabi"

namespace lievi::models::batch {
namespace {

#define LIEVI_LANE inline __attribute__((always_inline))
#define LIEVI_LANE_LAMBDA __attribute__((always_inline))


// One instance of the kernels per ISA, at the width its registers hold (8 doubles for AVX-512, 4 for AVX2, 2
// for SSE2), each compiled for that target as a whole (see beam_batch_kernels.inc): on x86-64 with GCC through
// `#pragma GCC target`, with Clang through `#pragma clang attribute` (the same target on every function of the
// region). Elsewhere (AArch64: NEON holds 2 doubles) only the baseline instance is built, for the compiler's
// default target, and it is the one in use.
#if defined(__x86_64__) || defined(__i386__)
#define LIEVI_BATCH_X86 1
#else
#define LIEVI_BATCH_X86 0
#endif

#if LIEVI_BATCH_X86
#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("avx512f"))), apply_to = function)
#else
#pragma GCC push_options
#pragma GCC target("avx512f")
#endif
namespace isa_avx512 {
#define LIEVI_BATCH_W 8
#include "beam_batch_kernels.inc"
#undef LIEVI_BATCH_W
}  // namespace isa_avx512
#if defined(__clang__)
#pragma clang attribute pop
#pragma clang attribute push(__attribute__((target("avx2,fma"))), apply_to = function)
#else
#pragma GCC pop_options
#pragma GCC push_options
#pragma GCC target("avx2,fma")
#endif
namespace isa_avx2 {
#define LIEVI_BATCH_W 4
#include "beam_batch_kernels.inc"
#undef LIEVI_BATCH_W
}  // namespace isa_avx2
#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif
#endif  // LIEVI_BATCH_X86
namespace isa_sse2 {
#define LIEVI_BATCH_W 2
#include "beam_batch_kernels.inc"
#undef LIEVI_BATCH_W
}  // namespace isa_sse2

Isa widest() {
#if LIEVI_BATCH_X86
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f")) return Isa::avx512;
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return Isa::avx2;
#endif
  return Isa::sse2;
}
Isa narrower(Isa a, Isa b) { return static_cast<int>(a) < static_cast<int>(b) ? a : b; }
/// The widest supported, or LIEVI_BATCH_ISA = sse2 | avx2 | avx512 if set (capped at the widest supported).
Isa initial() {
  const Isa best = widest();
  const char* env = std::getenv("LIEVI_BATCH_ISA");
  if (!env) return best;
  const std::string_view e(env);
  if (e == "sse2") return Isa::sse2;
  if (e == "avx2") return narrower(Isa::avx2, best);
  return best;
}
std::atomic<Isa> g_isa{initial()};

}  // namespace

Isa isa() { return g_isa.load(std::memory_order_relaxed); }
Isa force_isa(Isa want) {
  const Isa use = narrower(want, widest());
  g_isa.store(use, std::memory_order_relaxed);
  return use;
}
const char* isa_name(Isa i) {
  switch (i) {
    case Isa::avx512:
      return "avx512";
    case Isa::avx2:
      return "avx2";
    case Isa::sse2:
      break;
  }
  return LIEVI_BATCH_X86 ? "sse2" : "baseline";
}

void stresses(std::ptrdiff_t e0, std::ptrdiff_t e1, double ds, const double* gamma, const double* E,
              const double* p6, bool uniform, double* fm, double* fp) {
  if (e1 <= e0) return;
  switch (isa()) {
#if LIEVI_BATCH_X86
    case Isa::avx512:
      return isa_avx512::stresses_isa(e0, e1, ds, gamma, E, p6, uniform, fm, fp);
    case Isa::avx2:
      return isa_avx2::stresses_isa(e0, e1, ds, gamma, E, p6, uniform, fm, fp);
#else
    case Isa::avx512:
    case Isa::avx2:
#endif
    case Isa::sse2:
      break;
  }
  isa_sse2::stresses_isa(e0, e1, ds, gamma, E, p6, uniform, fm, fp);
}
bool strains(std::ptrdiff_t e0, std::ptrdiff_t e1, double inv_ds, const double* g, double* gamma) {
  if (e1 <= e0) return false;
  switch (isa()) {
#if LIEVI_BATCH_X86
    case Isa::avx512:
      return isa_avx512::strains_isa(e0, e1, inv_ds, g, gamma);
    case Isa::avx2:
      return isa_avx2::strains_isa(e0, e1, inv_ds, g, gamma);
#else
    case Isa::avx512:
    case Isa::avx2:
#endif
    case Isa::sse2:
      break;
  }
  return isa_sse2::strains_isa(e0, e1, inv_ds, g, gamma);
}
void nodes(const NodeArgs& args, std::ptrdiff_t j0, std::ptrdiff_t j1) {
  if (j1 <= j0) return;
  switch (isa()) {
#if LIEVI_BATCH_X86
    case Isa::avx512:
      return isa_avx512::nodes_isa(args, j0, j1);
    case Isa::avx2:
      return isa_avx2::nodes_isa(args, j0, j1);
#else
    case Isa::avx512:
    case Isa::avx2:
#endif
    case Isa::sse2:
      break;
  }
  isa_sse2::nodes_isa(args, j0, j1);
}

}  // namespace lievi::models::batch
