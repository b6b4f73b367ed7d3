#pragma once
/// @file lievi/build/wave.hpp
/// @brief The wave builders: what a scenario file's reader derives from a configuration (config/wave.hpp),
/// for a configuration filled in C++.
#include "lievi/config/wave.hpp"

namespace lievi::build {

/// phi(0, s_j) of a built-in shape at every node (A cos(k pi s/S), A sin(k pi s/S), A exp(-((s - s0)/w)^2),
/// 0) and phi_t(0, s_j) = 0. Not for shape `file` (the file gives phi0, phi_t0).
void initial_data(config::WaveConfig& c);
/// noise.cosine_modes = K: the modes Theta_k(s_j) = theta cos(k pi s_j / S), k = 0 ... K-1.
void cosine_modes(config::WaveConfig& c);
/// Everything a scenario file's reader derives: the initial data (unless given), the cosine modes (when
/// cosine_modes > 0 and no modes are given), the default probes (first, middle, last node) and fields
/// interval (every, raised to <= 1000 snapshots). Then `config::validate(c)` passes for a valid configuration.
void complete(config::WaveConfig& c);

}  // namespace lievi::build
