// The instruction-set choice of the portable SIMD kernels (lievi/core/isa.hpp): the sets compiled here
// (hwy_targets.hpp, the same for every family of kernels), the CPU's support for each, and the current
// choice.
//
// The detection is lievi's own (cpuid on x86-64, below), not Highway's, so that no Highway library is linked
// (Highway is used header-only): the CPU features tested for each set are the ones Highway compiles that
// target for (its target strings).
#include "lievi/core/isa.hpp"

#include <array>
#include <atomic>
#include <cstdlib>
#include <string_view>
#include <vector>

#include "hwy_targets.hpp"

#if HWY_ARCH_X86
#include <cpuid.h>
#endif

namespace lievi::simd {
namespace {

/// Every instruction set, narrowest first.
constexpr std::array kAll = {Isa::scalar, Isa::sse4, Isa::neon, Isa::avx2, Isa::avx512};

#if HWY_ARCH_X86
/// The CPU features Highway compiles each x86 target for (hwy/ops/set_macros-inl.h), from cpuid, with the
/// operating system's support for the AVX and AVX-512 register state (xgetbv).
bool cpu_supports(Isa want) {
  unsigned a = 0, b = 0, c = 0, d = 0;
  if (!__get_cpuid(1, &a, &b, &c, &d)) return want == Isa::scalar;
  const unsigned c1 = c;
  auto bit = [](unsigned reg, int i) { return ((reg >> i) & 1u) != 0; };
  const bool sse4 =
      bit(d, 26) && bit(c1, 0) && bit(c1, 9) && bit(c1, 19) && bit(c1, 20) && bit(c1, 1) && bit(c1, 25);
  if (want == Isa::scalar) return true;
  if (want == Isa::sse4) return sse4;
  if (!sse4 || !bit(c1, 27) || !bit(c1, 28) || !bit(c1, 12) || !bit(c1, 29))
    return false;  // OSXSAVE AVX FMA F16C
  unsigned xlo = 0, xhi = 0;
  __asm__("xgetbv" : "=a"(xlo), "=d"(xhi) : "c"(0));
  if ((xlo & 0x6u) != 0x6u) return false;  // SSE and AVX state
  if (!__get_cpuid_count(7, 0, &a, &b, &c, &d)) return false;
  const bool avx2 = bit(b, 5) && bit(b, 3) && bit(b, 8);  // AVX2 BMI1 BMI2
  if (want == Isa::avx2) return avx2;
  if (want != Isa::avx512) return false;
  const bool state = (xlo & 0xE6u) == 0xE6u;  // + opmask, upper ZMM, high ZMM
  return avx2 && state && bit(b, 16) && bit(b, 17) && bit(b, 30) && bit(b, 31);  // F DQ BW VL
}
#else
/// NEON is AArch64's baseline.
bool cpu_supports(Isa want) { return want == Isa::scalar || want == Isa::neon; }
#endif

bool usable(Isa i) { return detail::compiled(i) && cpu_supports(i); }
/// The widest compiled set the CPU supports.
Isa widest() {
  for (auto i = kAll.rbegin(); i != kAll.rend(); ++i)
    if (usable(*i)) return *i;
  return Isa::scalar;
}
/// The widest, or LIEVI_BATCH_ISA's choice when it is usable here.
Isa initial() {
  if (const char* env = std::getenv("LIEVI_BATCH_ISA")) {
    const std::string_view e(env);
    for (Isa i : kAll)
      if (e == isa_name(i) && usable(i)) return i;
  }
  return widest();
}
/// The current choice: constant-initialised to kUnset, then set by the first isa() (to initial()) or by
/// force_isa, so that a kernel run from another file's static initialiser sees the same choice as any later
/// one.
constexpr int kUnset = -1;
std::atomic<int> g_isa{kUnset};

}  // namespace

Isa isa() {
  int i = g_isa.load(std::memory_order_relaxed);
  if (i == kUnset) {  // first use: another thread may be here too; both compute the same, the first wins
    int expected = kUnset;
    i = static_cast<int>(initial());
    if (!g_isa.compare_exchange_strong(expected, i, std::memory_order_relaxed)) i = expected;
  }
  return static_cast<Isa>(i);
}
std::vector<Isa> usable_isas() {
  std::vector<Isa> r;
  for (Isa i : kAll)
    if (usable(i)) r.push_back(i);
  return r;
}
Isa force_isa(Isa want) {
  g_isa.store(static_cast<int>(usable(want) ? want : widest()), std::memory_order_relaxed);
  return isa();
}
const char* isa_name(Isa i) {
  switch (i) {
    case Isa::scalar:
      return "scalar";
    case Isa::sse4:
      return "sse4";
    case Isa::neon:
      return "neon";
    case Isa::avx2:
      return "avx2";
    case Isa::avx512:
      return "avx512";
  }
  return "?";
}
bool has_fma(Isa i) {
  return i == Isa::neon || i == Isa::avx2 || i == Isa::avx512;
}

}  // namespace lievi::simd
