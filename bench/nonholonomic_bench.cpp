// Nonholonomic variational integrators (issue 29, "Nonholonomic systems"): ns per step of the discrete
// Lagrange–d'Alembert step (lievi::integrators::del::nonholonomic_step, midpoint discrete constraint) on the
// Chaplygin sleigh (n = 3, m = 1), the vertical rolling disk (n = 4, m = 2) and the rolling disk free to
// tilt (n = 5, m = 2, q-dependent L with gravity), midpoint Ld, with and without the node momentum
// projection (NonholonomicOptions::project_momentum). L and A(q) are differentiated by AD (the user writes
// L and A only).
//
// Names: Nonholonomic/<system>/<projection>. One iteration = one step from the state the previous iteration
// left; counters "ns_per_step" and "newton_per_step". The state is reset every 1000 steps (the sleigh settles
// on a straight line after ~10 time units; the reset keeps its turning phase in the timing). h = 0.01.
// Sleigh m = 1, I = 0.1, a = 0.5 from theta = 0.3, v = 0.5, omega = 1; vertical disk m = 1.3, R = 0.7,
// uniform (I = m R^2/2, J = m R^2/4), Omega = 2, omega = 0.8; tilting disk below (tilting_start).
#include <benchmark/benchmark.h>

#include <cmath>

#include "lievi/integrators/del/nonholonomic.hpp"
#include "lievi/models/nonholonomic.hpp"

namespace {

using namespace lievi::integrators::del;
using lievi::models::nonholonomic::ChaplyginSleigh;
using lievi::models::nonholonomic::RollingDisk;
using lievi::models::nonholonomic::VerticalRollingDisk;

template <class Model>
void run(benchmark::State& state, const Model& model, const DelState<Model::dim>& start, bool project) {
  NonholonomicOptions opt;
  opt.project_momentum = project;
  const double h = 0.01;
  DelState<Model::dim> x = start;
  long newton = 0, steps = 0;
  for (auto _ : state) {
    if (steps % 1000 == 0) x = start;
    const auto r = nonholonomic_step<Midpoint>(model, x, h, opt);
    if (!r.converged) {
      state.SkipWithError(r.message);
      break;
    }
    newton += r.iterations;
    ++steps;
    benchmark::DoNotOptimize(x);
  }
  state.counters["newton_per_step"] = steps ? static_cast<double>(newton) / static_cast<double>(steps) : 0.0;
  state.counters["ns_per_step"] = benchmark::Counter(
      static_cast<double>(steps) * 1e-9, benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

DelState<3> sleigh_start(const ChaplyginSleigh& s) {
  const double th = 0.3, v = 0.5, w = 1.0;
  return nonholonomic_state(
      s, Vec<3>(0.0, 0.0, th),
      Vec<3>(v * std::cos(th) - s.a * w * std::sin(th), v * std::sin(th) + s.a * w * std::cos(th), w));
}

VerticalRollingDisk make_disk() {
  VerticalRollingDisk d;
  d.m = 1.3;
  d.R = 0.7;
  d.I = 0.5 * d.m * d.R * d.R;
  d.J = 0.25 * d.m * d.R * d.R;
  return d;
}

DelState<4> disk_start(const VerticalRollingDisk& d) {
  const double phi = 0.2, Omega = 2.0, omega = 0.8;
  return nonholonomic_state(d, Vec<4>(0.1, 0.2, 0.0, phi),
                            Vec<4>(d.R * Omega * std::cos(phi), d.R * Omega * std::sin(phi), Omega, omega));
}

/// Uniform disk m = 1, R = 0.5, steady tilted rolling theta0 = 0.2, Omega = 0.5 (spin from the steady-motion
/// condition in models/nonholonomic.hpp), nutating with thetadot0 = 0.3.
DelState<5> tilting_start(const RollingDisk& d) {
  const double th = 0.2, Om = 0.5, phi = 0.1, s = std::sin(th), c = std::cos(th);
  const double w =
      Om * s + (d.m * d.g * d.R * s - d.J * Om * Om * s * c) / ((d.I + d.m * d.R * d.R) * Om * c);
  return nonholonomic_state(d, Vec<5>(0.0, 0.0, th, phi, 0.0),
                            Vec<5>(d.R * std::cos(phi) * w, d.R * std::sin(phi) * w, 0.3, Om, w));
}

void BM_Tilting(benchmark::State& state, bool project) {
  RollingDisk d;
  d.m = 1.0;
  d.R = 0.5;
  d.I = 0.5 * d.m * d.R * d.R;
  d.J = 0.25 * d.m * d.R * d.R;
  run(state, d, tilting_start(d), project);
}

void BM_Sleigh(benchmark::State& state, bool project) {
  const ChaplyginSleigh s{1.0, 0.1, 0.5};
  run(state, s, sleigh_start(s), project);
}

void BM_Disk(benchmark::State& state, bool project) {
  const VerticalRollingDisk d = make_disk();
  run(state, d, disk_start(d), project);
}

BENCHMARK_CAPTURE(BM_Sleigh, projected, true)->Name("Nonholonomic/chaplygin-sleigh/projected");
BENCHMARK_CAPTURE(BM_Sleigh, one_sided, false)->Name("Nonholonomic/chaplygin-sleigh/one-sided");
BENCHMARK_CAPTURE(BM_Disk, projected, true)->Name("Nonholonomic/vertical-disk/projected");
BENCHMARK_CAPTURE(BM_Disk, one_sided, false)->Name("Nonholonomic/vertical-disk/one-sided");
BENCHMARK_CAPTURE(BM_Tilting, projected, true)->Name("Nonholonomic/rolling-disk/projected");
BENCHMARK_CAPTURE(BM_Tilting, one_sided, false)->Name("Nonholonomic/rolling-disk/one-sided");

}  // namespace
