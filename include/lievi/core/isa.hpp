#pragma once
/// @file lievi/core/isa.hpp
/// @brief The instruction set of lievi's portable SIMD kernels (src/core/isa.cpp): one process-wide choice
/// that every family of kernels written on Highway's vectors follows, each through its own dispatch table
/// (the batched beam sweeps, src/models/beam_batch.cpp; the noise stream's batch of normals,
/// src/noise/philox.cpp).
///
/// Every family is compiled for the same instruction sets (src/core/hwy_targets.hpp): on x86-64 AVX-512 (8
/// doubles a pack), AVX2 + FMA (4), SSE4 (2) and the scalar fallback (1); on AArch64 NEON (2) and the scalar
/// fallback. At start the choice is the widest the CPU supports, or the one the environment variable
/// LIEVI_BATCH_ISA = scalar | sse4 | neon | avx2 | avx512 names when the build and the CPU have it; force_isa
/// changes it for all families at once.
///
/// Namespace lievi::simd, not lievi::core: like lievi::tol in core/tolerances.hpp, the namespace names what
/// the header is about, so that a call reads `simd::force_isa(simd::Isa::avx2)`.
#include <vector>

namespace lievi::simd {

/// Instruction sets of the kernels (lanes of a pack of doubles): the scalar fallback (1), SSE4 (2, x86-64),
/// NEON (2, AArch64), AVX2 with FMA (4), AVX-512 (8).
enum class Isa { scalar, sse4, neon, avx2, avx512 };
/// The instruction set the kernels use now (at start: the widest the CPU supports, or the one the environment
/// variable LIEVI_BATCH_ISA = scalar | sse4 | neon | avx2 | avx512 names when the build and the CPU have it).
[[nodiscard]] Isa isa();
/// The instruction sets built for this architecture that this CPU supports, narrowest first.
[[nodiscard]] std::vector<Isa> usable_isas();
/// Use `want`, or the widest usable one if `want` is not built or not supported; returns the one in use.
/// Every family of kernels follows (the beam and the noise kernels). For tests and benchmarks; not
/// thread-safe against running kernels.
Isa force_isa(Isa want);
/// "scalar", "sse4", "neon", "avx2" or "avx512" (the values LIEVI_BATCH_ISA takes).
[[nodiscard]] const char* isa_name(Isa i);
/// Whether the instruction set has fused multiply-add (AVX-512, AVX2, NEON): kernels that fuse give the same
/// bits on those, and other bits (by round-off) on the others.
[[nodiscard]] bool has_fma(Isa i);

}  // namespace lievi::simd
