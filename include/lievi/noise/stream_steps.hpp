#pragma once
/// @file lievi/noise/stream_steps.hpp
/// @brief The noise stream's normals across steps: one block's two normals at many consecutive steps in one
/// vectorised call, for the sources that need few normals per step (`common` noise, a few `modes`, and the fine
/// steps of `noise.base_dt` that one coarse increment sums).
///
/// `stream_normals` (philox.hpp) vectorises across the blocks of one step: a step that needs one block fills one
/// lane of a pack, and such a source pays the scalar rule's price per block (about 32 ns here against 5.5 ns per
/// block in a full pack; docs/performance.md, "Normals across ensemble paths"). The normals of a stream at
/// consecutive steps differ only in the counter's step words, so a pack can hold consecutive steps instead: the
/// same rule (philox.hpp), the same bits as `stream_normal`, on every instruction set. The Wiener increments
/// across steps (WienerIncrements::increments_steps) and the noise field's buffer of `common` and few-`modes`
/// noise use it.
#include <cstddef>
#include <cstdint>

#include "lievi/noise/philox.hpp"

namespace lievi::noise {

/// even[s] = stream_normal(key, step0 + s, group, 2 block) and odd[s] = stream_normal(key, step0 + s, group,
/// 2 block + 1) for s in [0, nsteps), bitwise; one step per lane of the instruction set lievi::simd::isa()
/// names. Throws std::out_of_range when step0 + nsteps - 1 exceeds 2^64 - 1. Allocates nothing.
void stream_normals_steps(StreamKey key, std::uint64_t step0, std::uint32_t group, std::uint32_t block,
                          std::size_t nsteps, double* even, double* odd);

}  // namespace lievi::noise
