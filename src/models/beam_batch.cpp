// The beam sweeps (Cayley and exp retractions) on packs of nodes (see lievi/models/beam_batch.hpp for what they compute).
//
// The kernels (beam_batch_kernels.inc) are written once on Highway's portable vectors (Debian's libhwy-dev,
// used header-only) and compiled here once per instruction set of src/core/hwy_targets.hpp: on x86-64
// AVX-512 (8 doubles a pack), AVX2 + FMA (4), SSE4 (2) and the scalar fallback (1); on AArch64 NEON (2) and
// the scalar fallback. Each call runs the kernels of the instruction set lievi/core/isa.hpp names now
// (simd::isa(): the widest the CPU supports, or LIEVI_BATCH_ISA's, or force_isa's), looked up in this file's
// table.
#include "lievi/models/beam_batch.hpp"

#include <algorithm>
#include <array>
#include <cfloat>
#include <cstddef>
#include <limits>
#include <vector>

#include "lievi/core/isa.hpp"
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

#include "../core/hwy_targets.hpp"  // the instruction sets, before any other Highway header
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "models/beam_batch_kernels.inc"
#include <hwy/foreach_target.h>  // includes the kernels once per target but the static one

#include <hwy/highway.h>

#include "models/beam_batch_kernels.inc"  // the static target's

#if HWY_ONCE
namespace lievi::models::batch {
namespace {

/// The compiled targets, narrowest first, with their entry points.
struct Target {
  simd::Isa isa;
  bool (*stresses)(std::ptrdiff_t, std::ptrdiff_t, double, const double*, const double*, const double*, bool, bool,
                   bool, bool, double*, double*);
  bool (*strains)(std::ptrdiff_t, std::ptrdiff_t, double, const double*, double*);
  bool (*exp_strains)(std::ptrdiff_t, std::ptrdiff_t, double, const double*, double*);
  bool (*approx_strains)(std::ptrdiff_t, std::ptrdiff_t, double, const double*, double*);
  void (*nodes)(const NodeArgs&, std::ptrdiff_t, std::ptrdiff_t);
};
#define LIEVI_BATCH_TARGET(isa, ns)                                                   \
  Target{simd::Isa::isa, &ns::stresses_isa, &ns::strains_isa, &ns::exp_strains_isa, \
         &ns::approx_strains_isa, &ns::nodes_isa}
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
static_assert(simd::detail::covers_compiled(kTargets), "a compiled instruction set without beam kernels");

/// The kernels of the instruction set in use (simd::isa(); always compiled here, by the assertion above).
const Target& target() {
  const simd::Isa want = simd::isa();
  for (const Target& t : kTargets)
    if (t.isa == want) return t;
  return kTargets[0];
}

}  // namespace

bool stresses(std::ptrdiff_t e0, std::ptrdiff_t e1, double ds, const double* gamma, const double* E,
              const double* p, bool full_p, bool uniform, bool approx, bool exp, double* fm, double* fp) {
  return e1 > e0 && target().stresses(e0, e1, ds, gamma, E, p, full_p, uniform, approx, exp, fm, fp);
}
bool approx_strains(std::ptrdiff_t e0, std::ptrdiff_t e1, double ds, const double* A, double* gamma) {
  return e1 > e0 && target().approx_strains(e0, e1, ds, A, gamma);
}
bool strains(std::ptrdiff_t e0, std::ptrdiff_t e1, double inv_ds, const double* g, double* gamma) {
  return e1 > e0 && target().strains(e0, e1, inv_ds, g, gamma);
}
bool exp_strains(std::ptrdiff_t e0, std::ptrdiff_t e1, double inv_ds, const double* g, double* gamma) {
  return e1 > e0 && target().exp_strains(e0, e1, inv_ds, g, gamma);
}
void nodes(const NodeArgs& args, std::ptrdiff_t j0, std::ptrdiff_t j1) {
  if (j1 > j0) target().nodes(args, j0, j1);
}

}  // namespace lievi::models::batch
#endif  // HWY_ONCE
