#pragma once
/// @file lievi/field/options.hpp
/// @brief The choices of the staggered field stepper that configurations name (field/stepper.hpp uses them):
/// the variant of the discrete equations and the start rule (docs/theory/beam.md, docs/theory/staggered.md).

namespace lievi::field {

/// exact: the exact variations of the discrete action; approx: the first-order approximation (beams; on the
/// abelian wave they coincide).
enum class Variant { exact, approx };

/// half: the velocity-Verlet half kick from the initial velocity; full: a full first step.
enum class Start { half, full };

}  // namespace lievi::field
