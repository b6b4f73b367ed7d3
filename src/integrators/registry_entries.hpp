#pragma once
/// @file src/integrators/registry_entries.hpp  (internal)
/// @brief One registry entry per method id; each method family contributes its entries from its own file,
/// and `rigid_body_registry.cpp` concatenates them (the order here is the order `lievi methods` lists).
#include <memory>
#include <string>
#include <vector>

#include "lievi/core/error.hpp"
#include "lievi/integrators/rigid_body_stepper.hpp"

namespace lievi::integrators::detail {

struct MethodEntry {
  MethodTraits traits;       ///< traits with the default options (listed by `lievi methods`)
  bool uses_retraction;      ///< reads `integrator.retraction` (cayley | exp | exp2)
  /// A stepper for these options (options.method == traits.id); throws lievi::invalid_argument for bad variants.
  std::unique_ptr<RigidBodyStepper> (*make)(const models::RigidBody&, const RigidBodyMethodOptions&);
  /// Traits for these options (e.g. a retraction or quadrature changes them); throws like `make`.
  MethodTraits (*traits_for)(const RigidBodyMethodOptions&);
};

/// The `integrator.retraction` issue for an unknown retraction name.
InputIssue unknown_retraction(const std::string& retraction);

/// ddb and rk4 (src/integrators/rigid_body_registry.cpp).
std::vector<MethodEntry> basic_entries();
/// ddb-symmetric and moser-veselov (src/integrators/registry_symmetric.cpp).
std::vector<MethodEntry> symmetric_entries();
/// lobatto-iiic and dop853 (src/integrators/registry_ode.cpp).
std::vector<MethodEntry> ode_entries();

}  // namespace lievi::integrators::detail
