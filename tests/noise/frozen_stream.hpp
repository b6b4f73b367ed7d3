#pragma once
// The regression hash of the noise stream's fixed rules (version 2), shared by test_noise.cpp (the dispatched
// library build) and test_noise_bits.cpp (one build per instruction set): an FNV-1a hash of 200140 normals of
// several steps, groups and start indices and of 19980 truncated m = 3 Wiener increments.
#include <bit>
#include <cstdint>
#include <vector>

#include "lievi/noise/philox.hpp"
#include "lievi/noise/wiener.hpp"

namespace lievi::test {

/// The hash recorded when stream version 2 was introduced.
inline constexpr std::uint64_t kFrozenStreamHash = 0xafb80b4b99e7d32bULL;

inline std::uint64_t stream_hash() {
  using namespace lievi::noise;
  std::uint64_t h = 1469598103934665603ULL;
  const auto mix = [&h](double x) {
    h ^= std::bit_cast<std::uint64_t>(x);
    h *= 1099511628211ULL;
  };
  std::vector<double> z(10007);
  for (std::uint64_t s = 0; s < 20; ++s) {
    stream_normals({2026, 1}, s * 1000003, static_cast<std::uint32_t>(s % 3), 5, z.size(), z.data());
    for (double x : z) mix(x);
  }
  const WienerIncrements w({7, 3}, 1e-3, 3, true);
  std::vector<double> d(999);
  for (std::uint64_t n = 0; n < 20; ++n) {
    w.increments(n, 11, d.size(), d.data());
    for (double x : d) mix(x);
  }
  return h;
}

}  // namespace lievi::test
