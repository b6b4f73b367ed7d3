#pragma once
/// @file lievi/build/output.hpp
/// @brief Output cadences shared by the field models.

namespace lievi::build {

/// The default snapshot interval of fields.h5 (and the ParaView series) for a run of `steps` steps with a
/// series row every `every` steps: a multiple of `every`, the smallest one that writes at most 1000 snapshots
/// (k = 0, f, 2f, ... and the last step).
[[nodiscard]] long long default_fields_every(long long steps, long long every);

}  // namespace lievi::build
