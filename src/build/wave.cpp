/// @file src/build/wave.cpp
/// @brief The wave builders (build/wave.hpp).
#include "lievi/build/wave.hpp"
#include "lievi/build/output.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>

#include "lievi/core/error.hpp"
#include "lievi/io/scenario.hpp"

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

WaveMesh wave_mesh(const config::WaveConfig& c) {
  WaveMesh m;
  m.periodic = c.periodic();
  const long long nb = c.n_base_nodes(), n_base_segments = m.periodic ? nb : nb - 1;
  const double ds = c.ds();
  m.s.push_back(c.base_s_of(0));
  for (long long j = 0; j < n_base_segments; ++j) {
    const double a = c.base_s_of(j), mid = a + 0.5 * ds;
    long long g = -1;
    for (std::size_t i = 0; i < c.regions.size(); ++i)
      if (c.regions[i].s_from <= mid && mid < c.regions[i].s_to) g = static_cast<long long>(i);
    const config::WaveRegion* R = g >= 0 ? &c.regions[static_cast<std::size_t>(g)] : nullptr;
    const long long parts = R ? std::max(1LL, R->refine) : 1;
    const double rho = R && R->rho > 0 ? R->rho : 1.0, speed = R && R->c > 0 ? R->c : c.c;
    const double h = R ? R->dt : 0.0, d = ds / static_cast<double>(parts);
    for (long long q = 0; q < parts; ++q) {
      m.ds.push_back(d);
      m.c.push_back(speed);
      m.rho.push_back(rho);
      m.dt.push_back(h);
      m.region.push_back(g);
      if (q + 1 < parts) m.s.push_back(a + static_cast<double>(q + 1) * d);
    }
    if (j + 1 < nb) m.s.push_back(c.base_s_of(j + 1));
  }
  const std::size_t nn = m.s.size(), ns = m.ds.size();
  m.mass.assign(nn, 0.0);
  m.fixed.assign(nn, 0);
  for (std::size_t e = 0; e < ns; ++e) {
    const double half = 0.5 * (m.rho[e] * m.ds[e]);
    m.mass[e] += half;
    m.mass[e + 1 == nn ? 0 : e + 1] += half;
  }
  if (!m.periodic && c.layout == field::Layout::cell && ns > 0) {  // the half cells beyond the end nodes
    if (c.bc_left == field::End::free) m.mass.front() += 0.5 * (m.rho.front() * ds);
    if (c.bc_right == field::End::free) m.mass.back() += 0.5 * (m.rho.back() * ds);
  }
  if (c.bc_left == field::End::clamped) m.fixed.front() = 1;
  if (c.bc_right == field::End::clamped) m.fixed.back() = 1;
  return m;
}

void graded_nodes(config::WaveConfig& c) {
  c.node_s.clear();
  const bool refined =
      std::any_of(c.regions.begin(), c.regions.end(), [](const config::WaveRegion& g) { return g.refine > 1; });
  if (refined) c.node_s = wave_mesh(c).s;
}

AviSteps avi_steps(const config::WaveConfig& c, const WaveMesh& m) {
  AviSteps out;
  const std::size_t ns = m.ds.size();
  out.h.resize(ns);
  out.level.resize(ns);
  std::vector<char> reported(c.regions.size(), 0);
  bool deep = false;
  for (std::size_t e = 0; e < ns; ++e) {
    const double limit = m.ds[e] / m.c[e];
    int k = 0;
    double h = c.dt;
    if (m.dt[e] > 0.0) {
      const auto g = static_cast<std::size_t>(m.region[e]);
      const std::string key = "regions[" + std::to_string(g) + "].dt";
      while (h > m.dt[e] && k <= kMaxAviLevel) h = std::ldexp(c.dt, -++k);
      if (h != m.dt[e] || k > kMaxAviLevel) {
        if (!reported[g]++)
          out.problems.push_back(
              {"", key,
               "value " + io::format_number(m.dt[e]) + " must be integrator.dt / 2^k with k in 0 ... " +
                   std::to_string(kMaxAviLevel) + " (integrator.dt = " + io::format_number(c.dt) +
                   "): the AVI's steps are dyadic so that all segments meet at multiples of integrator.dt"});
        continue;
      }
      if (h > limit * (1.0 + 1e-12) && !c.allow_unstable && !reported[g]++)
        out.problems.push_back(
            {"", key,
             "value " + io::format_number(h) + " is beyond the stability limit ds_e / c_e = " +
                 io::format_number(limit) + " of segment " + std::to_string(e) +
                 " (set a smaller step, or integrator.allow_unstable = true to run anyway)"});
    } else {
      const double target = c.fraction * limit;
      while (h > target && k <= kMaxAviLevel) h = std::ldexp(c.dt, -++k);
      if (k > kMaxAviLevel && !deep) {
        deep = true;
        out.problems.push_back(
            {"", "integrator.dt",
             "value " + io::format_number(c.dt) + " is more than 2^" + std::to_string(kMaxAviLevel) +
                 " times the step integrator.fraction x ds_e / c_e = " + io::format_number(target) +
                 " of segment " + std::to_string(e) + "; give a smaller integrator.dt"});
      }
    }
    out.h[e] = h;
    out.level[e] = k;
  }
  return out;
}

void complete(config::WaveConfig& c) {
  if (c.node_s.empty()) graded_nodes(c);
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
