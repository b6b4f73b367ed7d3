// Normals across ensemble paths (issue 25). An ensemble (`lievi run FILE --paths N`, src/run/ensemble.cpp)
// steps each path with its own stepper, and a path with `common` noise (one Brownian motion) or `modes` noise
// (K of them) draws one normal, or K, per step (noise.base_dt = dt; 2^m times as many for base_dt = dt / 2^m):
// too few to fill a vector across the modes. The noise field therefore draws them across steps, 64 fine steps
// at a time (K <= 8; noise/stream_steps.hpp); more modes come from the batch kernel across the modes. This file
// times that per-path draw and the whole path-step it belongs to, for the models that take noise with --paths
// (wave and beam), at small J:
//
//  - EnsembleNoise/Draw/K: NoiseField::draw of one step as a path's stepper calls it (one refill of the
//    buffer every 64 draws included); K = 1 is `common`, K > 1 `modes` with K modes;
//  - EnsembleNoise/Wave/K/J: one step of StaggeredStepper<Wave<1>, TypeI> (the problem of
//    bench/wave_bench.cpp, J cells), the draw included;
//  - EnsembleNoise/Beam/K/J: one step of StaggeredStepper<Beam<Cayley<SE3>>> (the clamped rod under gravity
//    of bench/beam_bench.cpp, J segments, exact variant, batched sweeps), the draw included.
//
// Noise: K = 1 `common` with Theta = 0.01 (beam: on all six components; wave: 0.1), K > 1 `modes` with the
// cosine modes (Theta / K) cos(k pi s / L), k < K, stream (7, 0), base_dt = dt. One iteration = one step (one
// draw); 1 thread. The steps time the stepper alone: the CLI's per-path observers and output make a path-step
// longer, so draw / step here is an upper bound of the draw's share. docs/performance.md, "Normals across
// ensemble paths", has the figures with the draws one step at a time and across steps.
#include <benchmark/benchmark.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <numbers>
#include <string>
#include <utility>
#include <vector>

#include "lievi/field/grid.hpp"
#include "lievi/field/noise_field.hpp"
#include "lievi/field/staggered.hpp"
#include "lievi/field/stepper.hpp"
#include "lievi/lie/retraction/cayley.hpp"
#include "lievi/lie/se3.hpp"
#include "lievi/models/beam.hpp"
#include "lievi/models/wave.hpp"
#include "lievi/noise/wiener.hpp"

#include "bench_support.hpp"

namespace {

using lievi::field::End;
using lievi::field::Grid;
using lievi::field::Layout;
using lievi::field::NodeField;
using lievi::field::NodeIndex;
using lievi::field::NoiseField;
using lievi::field::NoiseMode;
using lievi::lie::Mat3;
using lievi::lie::SE3;
using lievi::lie::Vec3;
using lievi::lie::Vec6;
using Wave = lievi::models::Wave<1>;
using WaveStepper = lievi::field::StaggeredStepper<Wave, lievi::field::TypeI>;
using Beam = lievi::models::Beam<lievi::lie::Cayley<SE3>>;
using BeamStepper = lievi::field::StaggeredStepper<Beam>;

constexpr std::int64_t kSteps = 20000;   // iterations (steps or draws) of every benchmark here
constexpr std::int64_t kRestart = 2000;  // steps from the initial state (see BM_Step)
constexpr double kWaveTheta = 0.1;       // as bench/wave_bench.cpp
constexpr double kBeamTheta = 0.01;      // as bench/beam_bench.cpp

using lievi::bench::ThreadScope;

/// `common` noise (K = 1) with amplitude theta, or K cosine modes (theta / K) cos(k pi s / L), k < K (the sum
/// of the modes' amplitudes is theta: the beam's Newton solve fails within 0.05 s under 16 modes of amplitude
/// theta).
template <class Algebra>
NoiseField<Algebra> noise(const Grid& grid, int K, const Algebra& theta, double dt) {
  const lievi::noise::WienerIncrements inc(lievi::noise::StreamKey{7, 0}, dt, 0);
  if (K == 1) return NoiseField<Algebra>(grid, NoiseMode::common, theta, {}, inc);
  std::vector<std::vector<Algebra>> modes;
  for (int k = 0; k < K; ++k) {
    std::vector<Algebra> m;
    for (std::ptrdiff_t j = 0; j < grid.n_nodes(); ++j)
      m.push_back(
          Algebra(theta * (std::cos(k * std::numbers::pi * grid.s(NodeIndex{j}) / grid.length()) / K)));
    modes.push_back(std::move(m));
  }
  return NoiseField<Algebra>(grid, NoiseMode::modes, theta, std::move(modes), inc);
}

WaveStepper make_wave(std::ptrdiff_t J, int K) {
  const Grid grid(Layout::cell, J, 1.0, End::free, End::free);
  WaveStepper::Options o;
  o.dt = 0.5 * grid.ds();
  WaveStepper s(Wave::with_speed(1.0), grid, o, noise<double>(grid, K, kWaveTheta, o.dt));
  NodeField<double> phi0(grid.n_nodes());
  for (std::ptrdiff_t j = 0; j < grid.n_nodes(); ++j) {
    const double x = grid.s(NodeIndex{j});
    phi0[NodeIndex{j}] = std::exp(-100.0 * (x - 0.5) * (x - 0.5));
  }
  s.initialize(phi0, NodeField<double>(grid.n_nodes(), 0.0));
  return s;
}

BeamStepper make_beam(std::ptrdiff_t J, int K) {
  const Grid grid(Layout::vertex, J, 1.0, End::clamped, End::free);
  const std::ptrdiff_t n = grid.n_nodes();
  Beam beam = Beam::uniform(lievi::models::Section::square(1000.0, 1e7, 0.5, 0.01), n, grid.n_segments());
  beam.gravity = Vec3(0.0, 0.0, -9.81);
  BeamStepper::Options o;
  o.dt = 0.5 * beam.stable_dt(grid.ds());
  BeamStepper s(std::move(beam), grid, o, noise<Vec6>(grid, K, Vec6::Constant(kBeamTheta), o.dt));
  NodeField<SE3> g0(n, SE3());
  for (std::ptrdiff_t j = 0; j < n; ++j)
    g0[NodeIndex{j}] = SE3(Mat3::Identity(), Vec3(grid.s(NodeIndex{j}), 0, 0));
  s.initialize(g0, NodeField<Vec6>(n));
  return s;
}

void set_ns_per_step(benchmark::State& state) {
  state.counters["ns_per_step"] =
      benchmark::Counter(static_cast<double>(state.iterations()) * 1e-9,
                         benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

/// One iteration = the draw of one step, K = range(0) normals (1: common).
void BM_Draw(benchmark::State& state) {
  const int K = static_cast<int>(state.range(0));
  const Grid grid(Layout::cell, 10, 1.0, End::free, End::free);  // the draw does not depend on J for K modes
  NoiseField<double> nf = noise<double>(grid, K, kWaveTheta, 1e-3);
  std::uint64_t step = 0;
  for (auto _ : state) {
    nf.draw(step++);
    benchmark::DoNotOptimize(nf.raw().data());
    benchmark::ClobberMemory();
  }
  set_ns_per_step(state);
}

/// One iteration = one step; range(0) = K, range(1) = J. The stepper is built anew (untimed) every kRestart
/// steps: the floppy rod folds onto itself (a Cayley singularity) after about 0.47 s of simulated time at
/// J = 10, and 2000 steps there are 0.1 s (dt = 5e-5).
template <class Make>
void BM_Step(benchmark::State& state, Make make) {
  const ThreadScope threads(1);
  const std::ptrdiff_t J = state.range(1);
  const int K = static_cast<int>(state.range(0));
  auto s = make(J, K);
  for (int k = 0; k < 3; ++k) (void)s.step();
  std::string failure;
  std::int64_t since = 0;
  for (auto _ : state) {
    if (++since == kRestart) {
      state.PauseTiming();
      s = make(J, K);
      since = 0;
      state.ResumeTiming();
    }
    const auto r = s.step();
    if (!r.ok && failure.empty())
      failure = "step failed at t = " + std::to_string(s.time()) + ": " + r.message;
    benchmark::DoNotOptimize(s.g().data());
  }
  if (!failure.empty()) state.SkipWithError(failure.c_str());
  set_ns_per_step(state);
  state.counters["dt"] = s.options().dt;
}

const bool registered = [] {
  for (std::int64_t K : {1, 3, 4, 8, 16})
    benchmark::RegisterBenchmark("EnsembleNoise/Draw", BM_Draw)->Arg(K)->Iterations(10 * kSteps);
  for (std::int64_t K : {1, 3, 8})
    for (std::int64_t J : {10, 20, 100}) {
      benchmark::RegisterBenchmark("EnsembleNoise/Wave", BM_Step<decltype(&make_wave)>, &make_wave)
          ->Args({K, J})
          ->Iterations(kSteps);
      benchmark::RegisterBenchmark("EnsembleNoise/Beam", BM_Step<decltype(&make_beam)>, &make_beam)
          ->Args({K, J})
          ->Iterations(kSteps);
    }
  return true;
}();

}  // namespace
