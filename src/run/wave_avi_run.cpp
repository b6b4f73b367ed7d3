/// @file src/run/wave_avi_run.cpp
/// @brief The wave run with integrator.method = "avi": the asynchronous variational integrator
/// (lievi/integrators/avi, docs/theory/avi.md) on the scenario's mesh (build::wave_mesh: the uniform grid, or
/// the graded mesh and stepped section of its [[regions]]) with per-segment steps integrator.dt / 2^k
/// (build::avi_steps).
///
/// Levels: every segment updates at every multiple of integrator.dt, so level n is t_n = n dt as in the
/// synchronous runs. Its row takes the momenta just before the updates at t_n (K^{n-1/2}), the positions at
/// t_n (phi^n, V^n) and the momenta just after them (K^{n+1/2}): E_d = K^{n+1/2} + V^n and
/// E_c = (K^{n-1/2} + K^{n+1/2}) / 2 + V^n, the synchronous runs' energies. With every step equal to dt the
/// AVI is the synchronous type-i scheme (to round-off: the AVI adds a node's two segment impulses one at a
/// time, the staggered stepper their difference).
#include "wave_avi.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <map>

#include "lievi/build/wave.hpp"
#include "lievi/core/error.hpp"
#include "lievi/integrators/avi/avi.hpp"
#include "lievi/run/progress.hpp"

namespace lievi::run::detail {
namespace {

using Clock = std::chrono::steady_clock;
namespace avi = integrators::avi;
constexpr double nan = std::numeric_limits<double>::quiet_NaN();

}  // namespace

WaveRunResult integrate_wave_avi(const io::WaveScenario& s, WaveObserver& obs, Progress progress) {
  WaveRunResult r;
  const build::WaveMesh wm = build::wave_mesh(s);
  const build::AviSteps steps = build::avi_steps(s, wm);
  if (!steps.problems.empty()) throw invalid_argument(std::vector<InputIssue>(steps.problems));
  const std::size_t ns = wm.ds.size(), nn = wm.s.size();
  std::vector<double> kappa(ns);
  r.cfl_dt = std::numeric_limits<double>::infinity();
  for (std::size_t e = 0; e < ns; ++e) {
    kappa[e] = wm.rho[e] * (wm.c[e] * wm.c[e]);
    r.cfl_dt = std::min(r.cfl_dt, wm.ds[e] / wm.c[e]);
  }
  avi::Mesh mesh;
  mesh.m = wm.mass;
  mesh.fixed = wm.fixed;
  mesh.periodic = wm.periodic;
  avi::Avi<avi::WaveSegments> a(avi::WaveSegments(wm.ds, kappa, wm.rho), std::move(mesh), steps.h,
                                {s.queue == config::AviQueue::calendar ? avi::Queue::levels : avi::Queue::heap});
  const std::vector<double> v0 = s.phi_t0.empty() ? std::vector<double>(nn, 0.0) : s.phi_t0;

  const auto t0 = Clock::now();
  a.initialize(s.phi0, v0);
  const double tick = a.tick();
  std::vector<double> phi(nn), phi_written;
  double t_written = 0.0;
  double d_min = INFINITY, d_max = -INFINITY, c_min = INFINITY, c_max = -INFINITY, c0 = nan, c_last = nan;
  ProgressLine line(s.steps, s.t_end, progress == Progress::automatic);
  for (long long n = 0; n <= s.steps; ++n) {
    const double T = static_cast<double>(n) * s.dt;  // a multiple of the tick: every segment updates at T
    a.advance(T);                                      // the updates before T
    const bool out = n % s.every == 0 || n == s.steps;
    const bool snapshot = s.fields && (n % s.fields_every == 0 || n == s.steps);
    if (out) {
      field::LevelEnergy E;
      E.kinetic_before = a.kinetic();
      const auto& x = a.positions_at(T);
      std::copy(x.begin(), x.end(), phi.begin());
      E.potential = a.potential(T);
      a.advance(T + 0.5 * tick);  // the updates at T
      E.kinetic_after = a.kinetic();
      bool finite = std::isfinite(E.kinetic_before) && std::isfinite(E.kinetic_after) && std::isfinite(E.potential);
      for (std::size_t j = 0; finite && j < nn; ++j) finite = std::isfinite(phi[j]);
      if (!finite) {
        // where: the first segment with a non-finite strain, else the largest |strain|
        std::size_t worst = 0;
        double worst_strain = 0.0;
        for (std::size_t e = 0; e < ns; ++e) {
          const double g = std::abs((phi[e + 1 == nn ? 0 : e + 1] - phi[e]) / wm.ds[e]);
          if (!std::isfinite(g)) {
            worst = e, worst_strain = g;
            break;
          }
          if (g > worst_strain) worst = e, worst_strain = g;
        }
        RunFailure f;
        f.step = n;
        f.t = t_written;
        f.node = static_cast<int>(worst);
        const double limit = wm.ds[worst] / wm.c[worst];
        f.message = "non-finite value at t = " + io::format_number(s.time_at(n)) + " (level " + std::to_string(n) +
                    "): strain " + io::format_number(worst_strain) + " on segment " + std::to_string(worst) +
                    " (s = " + io::format_number(wm.s[worst]) + " ... " +
                    io::format_number(worst + 1 < nn ? wm.s[worst + 1] : s.length) + ", step " +
                    io::format_number(steps.h[worst]) + ", its limit ds_e / c_e = " + io::format_number(limit) + ")";
        const long long g = wm.region[worst];
        f.hint = g >= 0 && wm.dt[worst] > 0.0
                     ? "regions[" + std::to_string(g) + "].dt = " + io::format_number(wm.dt[worst]) +
                           " is beyond the segment's limit" +
                           (s.allow_unstable ? " (integrator.allow_unstable is set)" : "") +
                           "; give a step <= " + io::format_number(limit) + " or leave regions[" + std::to_string(g) +
                           "].dt out (integrator.fraction then picks a stable one)"
                     : "try a smaller integrator.fraction or integrator.dt";
        r.failure = f;
        break;
      }
      obs.level(n, s.time_at(n), phi, E, snapshot);
      phi_written = phi;
      t_written = s.time_at(n);
      d_min = std::min(d_min, E.E_d()), d_max = std::max(d_max, E.E_d());
      c_min = std::min(c_min, E.E_c()), c_max = std::max(c_max, E.E_c());
      if (std::isnan(c0)) c0 = E.E_c();
      c_last = E.E_c();
      ++r.rows;
      if (snapshot) ++r.snapshots;
    }
    r.steps = n;
    line.update(n, s.time_at(n));
  }
  line.finish();
  r.integrate_s = std::chrono::duration<double>(Clock::now() - t0).count();
  r.phi_final = phi_written;
  r.t_final = t_written;
  r.complete = !r.failure;
  r.diagnostics = {{"E_d_fluctuation", d_max - d_min},
                   {"E_c_fluctuation", c_max - c_min},
                   {"E_c_initial", c0},
                   {"E_c_final", c_last},
                   {"E_c_drift", c_last - c0}};

  AviReport rep;
  rep.queue = config::id(s.queue);
  rep.fraction = s.fraction;
  rep.segments = static_cast<long long>(ns);
  rep.updates = a.updates();
  const double t_run = r.failure ? t_written : s.t_end;
  rep.updates_per_time = t_run > 0 ? static_cast<double>(rep.updates) / t_run : 0.0;
  rep.ns_per_update = rep.updates > 0 ? 1e9 * r.integrate_s / static_cast<double>(rep.updates) : 0.0;
  rep.h_min = *std::min_element(steps.h.begin(), steps.h.end());
  rep.h_max = *std::max_element(steps.h.begin(), steps.h.end());
  std::map<int, long long> levels;
  for (int k : steps.level) ++levels[k];
  rep.levels.assign(levels.begin(), levels.end());
  rep.synchronous_updates = static_cast<double>(ns) * (1.0 + std::round(t_run / rep.h_min));
  rep.update_fraction = static_cast<double>(rep.updates) / rep.synchronous_updates;
  r.avi = rep;
  if (rep.levels.size() > 1 && s.fraction > 0.3)
    r.notes.push_back("unequal steps with integrator.fraction = " + io::format_number(s.fraction) +
                      " > 0.3 (the default): AVIs are linearly unstable through resonances between the segments' update "
                      "frequencies, slowly for steps well below their limits (docs/theory/avi.md, \"Stability\"); "
                      "watch the energy or use fraction <= 0.3");
  return r;
}

}  // namespace lievi::run::detail
