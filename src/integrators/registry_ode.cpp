/// @file src/integrators/registry_ode.cpp
/// @brief Registry entries of the classical ODE comparators beyond RK4 (lobatto-iiic, dop853). None yet.
#include "registry_entries.hpp"

namespace lievi::integrators::detail {
std::vector<MethodEntry> ode_entries() { return {}; }
}  // namespace lievi::integrators::detail
