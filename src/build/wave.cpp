/// @file src/build/wave.cpp
/// @brief The wave builders (build/wave.hpp).
#include "lievi/build/wave.hpp"
#include "lievi/build/output.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>

#include "lievi/core/error.hpp"

namespace lievi::build {

void initial_data(config::WaveConfig& s) {
  using config::WaveShape;
  if (s.shape == WaveShape::file)
    throw invalid_argument("", "initial.shape", "the initial data of shape \"file\" are the file's; give phi0");
  const long long n = s.n_nodes();
  const double k = static_cast<double>(s.wavenumber) * std::numbers::pi / s.length;
  s.phi0.resize(static_cast<std::size_t>(n));
  s.phi_t0.assign(static_cast<std::size_t>(n), 0.0);
  for (long long j = 0; j < n; ++j) {
    const double x = s.s_of(j);
    double phi = 0.0;
    if (s.shape == WaveShape::cosine) {
      phi = s.amplitude * std::cos(k * x);
    } else if (s.shape == WaveShape::sine) {
      phi = s.amplitude * std::sin(k * x);
    } else if (s.shape == WaveShape::gaussian) {
      const double z = (x - s.center) / s.width;
      phi = s.amplitude * std::exp(-z * z);
    }
    s.phi0[static_cast<std::size_t>(j)] = phi;
  }
}

void cosine_modes(config::WaveConfig& s) {
  const long long n = s.n_nodes();
  s.modes.assign(static_cast<std::size_t>(s.cosine_modes), std::vector<double>(static_cast<std::size_t>(n)));
  for (long long k = 0; k < s.cosine_modes; ++k)
    for (long long j = 0; j < n; ++j)
      s.modes[static_cast<std::size_t>(k)][static_cast<std::size_t>(j)] =
          s.theta * std::cos(static_cast<double>(k) * std::numbers::pi * s.s_of(j) / s.length);
}

void complete(config::WaveConfig& c) {
  if (c.phi0.empty() && c.shape != config::WaveShape::file) initial_data(c);
  if (c.phi_t0.empty()) c.phi_t0.assign(c.phi0.size(), 0.0);
  if (c.noise_mode == field::NoiseMode::modes && c.modes.empty() && c.cosine_modes > 0) cosine_modes(c);
  const long long n = c.n_nodes();
  if (c.probes.empty())
    for (const long long j : {0LL, n / 2, n - 1})
      if (std::find(c.probes.begin(), c.probes.end(), j) == c.probes.end()) c.probes.push_back(j);
  if (c.fields_every == 0 && c.steps > 0 && c.every > 0) c.fields_every = default_fields_every(c.steps, c.every);
}

}  // namespace lievi::build
