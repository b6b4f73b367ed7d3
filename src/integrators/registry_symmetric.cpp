/// @file src/integrators/registry_symmetric.cpp
/// @brief Registry entries of the symmetric DDB family (ddb-symmetric, moser-veselov). None yet.
#include "registry_entries.hpp"

namespace lievi::integrators::detail {
std::vector<MethodEntry> symmetric_entries() { return {}; }
}  // namespace lievi::integrators::detail
