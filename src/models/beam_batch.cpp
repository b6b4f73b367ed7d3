// The beam sweeps (Cayley and exp retractions) on packs of nodes (see lievi/models/beam_batch.hpp for what they compute).
//
// The kernels (beam_batch_kernels.inc) are written once on Highway's portable vectors (Debian's libhwy-dev,
// used header-only) and compiled here once per instruction set Highway targets on this architecture: on
// x86-64 AVX-512 (8 doubles a pack), AVX2 + FMA (4), SSE4 (2) and the scalar fallback (1); on AArch64 NEON (2)
// and the scalar fallback. The sizeless SVE and RVV targets are not built (a pack of them cannot be a struct
// member, and the kernels keep packs in small structs); SSSE3 is not built either (a CPU with SSSE3 but not
// SSE4 takes the scalar kernels). The widest the CPU supports is used; the environment variable
// LIEVI_BATCH_ISA = scalar | sse4 | neon | avx2 | avx512 picks a narrower one at start-up, force_isa one
// for tests.
//
// The dispatch is lievi's own (cpuid on x86-64, below), not Highway's, so that no Highway library is linked:
// the CPU features tested for each target are the ones Highway compiles that target for (its target strings).
#include "lievi/models/beam_batch.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <cfloat>
#include <cstddef>
#include <cstdlib>
#include <limits>
#include <string_view>
#include <vector>

#include "lievi/core/tolerances.hpp"
#include "lievi/lie/bernoulli.hpp"
#include "lievi/lie/so3.hpp"

namespace lievi::models::batch::exp_series {
// Taylor coefficients in s = t² of the exponential retraction's functions of the rotation angle t, for the
// kernels' exp variants (valid for t <= kExpSeriesAngle = 1: each table is cut where its next term is below
// 1e-19 of its value there, so the series are exact to round-off; the generic code uses closed forms above
// its own small-angle thresholds, hence round-off differences).
using lie::so3_series::detail::alternating;
/// sin t / t
inline constexpr auto sinc = alternating<10>(0, 1, 1);
/// (1 - cos t) / t²
inline constexpr auto one_minus_cos = alternating<10>(0, 1, 2);
/// c1 = (t - sin t) / t³
inline constexpr auto c1 = alternating<9>(0, 1, 3);
/// c2 = (t² + 2 cos t - 2) / (2 t⁴)
inline constexpr auto c2 = alternating<9>(0, 1, 4);
/// c3 = (2t - 3 sin t + t cos t) / (2 t⁵)
inline constexpr auto c3 = alternating<9>(1, 1, 5);
/// beta = (1 - (t/2) cot(t/2)) / t² = sum_{n>=1} |B_2n| t^(2n-2) / (2n)!  (pole at 2 pi: 13 terms at t = 1)
inline constexpr auto beta = [] {
  std::array<double, 13> a{};
  for (std::size_t k = 0; k < a.size(); ++k) {
    const double b = lie::bernoulli::over_factorial[2 * (k + 1)];
    a[k] = b < 0 ? -b : b;
  }
  return a;
}();
/// gamma = beta'(t) / t = sum_{n>=2} (2n - 2) |B_2n| t^(2n-4) / (2n)!
inline constexpr auto gamma = [] {
  std::array<double, 13> a{};
  for (std::size_t k = 0; k < a.size(); ++k) {
    const int n = static_cast<int>(k) + 2;
    const double b = lie::bernoulli::over_factorial[2 * n];
    a[k] = (b < 0 ? -b : b) * (2.0 * n - 2.0);
  }
  return a;
}();
/// atan(x) / x = sum_k (-1)^k x^(2k) / (2k + 1), for |x| <= tan(1/8) (two halvings of tan(1/2))
inline constexpr auto atan_over = [] {
  std::array<double, 10> a{};
  for (std::size_t k = 0; k < a.size(); ++k) a[k] = (k % 2 == 0 ? 1.0 : -1.0) / (2.0 * static_cast<double>(k) + 1.0);
  return a;
}();
}  // namespace lievi::models::batch::exp_series

#if !defined(HWY_DISABLED_TARGETS)
#define HWY_DISABLED_TARGETS (HWY_SSSE3 | HWY_AVX3_DL | HWY_SVE | HWY_SVE2 | HWY_SVE_256 | HWY_SVE2_128 | HWY_RVV)
#endif
// every target the compiler can generate, the scalar fallback included (tests force each)
#define HWY_COMPILE_ALL_ATTAINABLE
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "models/beam_batch_kernels.inc"
#include <hwy/foreach_target.h>  // includes the kernels once per target but the static one

#include <hwy/highway.h>

#include "models/beam_batch_kernels.inc"  // the static target's

#if HWY_ONCE
#if HWY_ARCH_X86
#include <cpuid.h>
#endif

namespace lievi::models::batch {
namespace {

/// The compiled targets, narrowest first, with their entry points.
struct Target {
  Isa isa;
  bool (*stresses)(std::ptrdiff_t, std::ptrdiff_t, double, const double*, const double*, const double*, bool, bool,
                   bool, double*, double*);
  bool (*strains)(std::ptrdiff_t, std::ptrdiff_t, double, const double*, double*);
  bool (*exp_strains)(std::ptrdiff_t, std::ptrdiff_t, double, const double*, double*);
  bool (*approx_strains)(std::ptrdiff_t, std::ptrdiff_t, double, const double*, double*);
  void (*nodes)(const NodeArgs&, std::ptrdiff_t, std::ptrdiff_t);
};
#define LIEVI_BATCH_TARGET(isa, ns) \
  Target{Isa::isa, &ns::stresses_isa, &ns::strains_isa, &ns::exp_strains_isa, &ns::approx_strains_isa, &ns::nodes_isa}
constexpr Target kTargets[] = {
#if HWY_TARGETS & HWY_SCALAR
    LIEVI_BATCH_TARGET(scalar, N_SCALAR),
#elif HWY_TARGETS & HWY_EMU128
    LIEVI_BATCH_TARGET(scalar, N_EMU128),
#endif
#if HWY_TARGETS & HWY_SSE4
    LIEVI_BATCH_TARGET(sse4, N_SSE4),
#endif
#if HWY_TARGETS & HWY_NEON
    LIEVI_BATCH_TARGET(neon, N_NEON),
#endif
#if HWY_TARGETS & HWY_AVX2
    LIEVI_BATCH_TARGET(avx2, N_AVX2),
#endif
#if HWY_TARGETS & HWY_AVX3
    LIEVI_BATCH_TARGET(avx512, N_AVX3),
#endif
};
#undef LIEVI_BATCH_TARGET

#if HWY_ARCH_X86
/// The CPU features Highway compiles each x86 target for (hwy/ops/set_macros-inl.h), from cpuid, with the
/// operating system's support for the AVX and AVX-512 register state (xgetbv).
bool cpu_supports(Isa want) {
  unsigned a = 0, b = 0, c = 0, d = 0;
  if (!__get_cpuid(1, &a, &b, &c, &d)) return want == Isa::scalar;
  const unsigned c1 = c;
  auto bit = [](unsigned reg, int i) { return ((reg >> i) & 1u) != 0; };
  const bool sse4 = bit(d, 26) && bit(c1, 0) && bit(c1, 9) && bit(c1, 19) && bit(c1, 20) && bit(c1, 1) && bit(c1, 25);
  if (want == Isa::scalar) return true;
  if (want == Isa::sse4) return sse4;
  if (!sse4 || !bit(c1, 27) || !bit(c1, 28) || !bit(c1, 12) || !bit(c1, 29)) return false;  // OSXSAVE AVX FMA F16C
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
bool cpu_supports(Isa want) { return want == Isa::scalar || want == Isa::neon; }  // NEON: AArch64's baseline
#endif

const Target* find(Isa i) {
  for (const Target& t : kTargets)
    if (t.isa == i) return &t;
  return nullptr;
}
bool usable(Isa i) { return find(i) != nullptr && cpu_supports(i); }
/// The widest compiled target the CPU supports.
const Target* widest() {
  for (auto t = std::rbegin(kTargets); t != std::rend(kTargets); ++t)
    if (cpu_supports(t->isa)) return &*t;
  return &kTargets[0];
}
/// The widest, or LIEVI_BATCH_ISA's choice when it is usable here.
const Target* initial() {
  const char* env = std::getenv("LIEVI_BATCH_ISA");
  if (env) {
    const std::string_view e(env);
    for (const Target& t : kTargets)
      if (e == isa_name(t.isa) && cpu_supports(t.isa)) return &t;
  }
  return widest();
}
std::atomic<const Target*> g_target{initial()};

}  // namespace

Isa isa() { return g_target.load(std::memory_order_relaxed)->isa; }
std::vector<Isa> usable_isas() {
  std::vector<Isa> r;
  for (const Target& t : kTargets)
    if (cpu_supports(t.isa)) r.push_back(t.isa);
  return r;
}
Isa force_isa(Isa want) {
  g_target.store(usable(want) ? find(want) : widest(), std::memory_order_relaxed);
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
bool has_fma(Isa i) { return i == Isa::neon || i == Isa::avx2 || i == Isa::avx512; }

bool stresses(std::ptrdiff_t e0, std::ptrdiff_t e1, double ds, const double* gamma, const double* E,
              const double* p6, bool uniform, bool approx, bool exp, double* fm, double* fp) {
  return e1 > e0 &&
         g_target.load(std::memory_order_relaxed)->stresses(e0, e1, ds, gamma, E, p6, uniform, approx, exp, fm, fp);
}
bool approx_strains(std::ptrdiff_t e0, std::ptrdiff_t e1, double ds, const double* A, double* gamma) {
  return e1 > e0 && g_target.load(std::memory_order_relaxed)->approx_strains(e0, e1, ds, A, gamma);
}
bool strains(std::ptrdiff_t e0, std::ptrdiff_t e1, double inv_ds, const double* g, double* gamma) {
  return e1 > e0 && g_target.load(std::memory_order_relaxed)->strains(e0, e1, inv_ds, g, gamma);
}
bool exp_strains(std::ptrdiff_t e0, std::ptrdiff_t e1, double inv_ds, const double* g, double* gamma) {
  return e1 > e0 && g_target.load(std::memory_order_relaxed)->exp_strains(e0, e1, inv_ds, g, gamma);
}
void nodes(const NodeArgs& args, std::ptrdiff_t j0, std::ptrdiff_t j1) {
  if (j1 > j0) g_target.load(std::memory_order_relaxed)->nodes(args, j0, j1);
}

}  // namespace lievi::models::batch
#endif  // HWY_ONCE
