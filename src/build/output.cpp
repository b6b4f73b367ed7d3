/// @file src/build/output.cpp
/// @brief Output cadences shared by the field models (build/output.hpp).
#include "lievi/build/output.hpp"

#include <algorithm>

namespace lievi::build {

long long default_fields_every(long long steps, long long every) {
  constexpr long long kMaxSnapshots = 1000;
  const auto snapshots = [&](long long f) { return steps / f + 1 + (steps % f != 0 ? 1 : 0); };
  long long m = std::max(1LL, steps / (kMaxSnapshots * every));
  while (snapshots(m * every) > kMaxSnapshots) ++m;
  return m * every;
}

}  // namespace lievi::build
