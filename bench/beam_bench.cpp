// The geometrically exact beam on SE(3) (issue 5, "Speed and memory"): ns per node-step of
// lievi::field::StaggeredStepper<Beam<Cayley<SE3>>> (variant `exact`, per-node 6x6 Newton) for J = 20 .. 1e5
// segments on 1 and 2 OpenMP threads; the same step with the exp retraction at two sizes; the heap bytes per
// node of a stepper (memory O(J)).
//
// Names: Beam/Cayley/J/threads, Beam/Exp/J/threads, Beam/Memory/J.
// Items processed = node-steps (J + 1 nodes per step, vertex layout), so "items_per_second" is node-steps/s and
// "ns_per_node_step" its inverse; wall-clock times (UseRealTime: the sweeps are OpenMP loops).
// "newton_per_node_step" = Newton iterations (Jacobian solves) per node-step over the timed steps
// (stepper.newton_total(); the clamped node does no iteration and counts as a node-step).
//
// Problem: a clamped rod under gravity, the side-by-side problem of bench/beam_side_by_side.py: length 1 m,
// square section of edge 0.01 m, rho = 1000 kg/m^3, E = 1e7 Pa, nu = 0.5, k_s = 1; vertex layout, J segments,
// node 0 clamped, free end; straight along x at rest at t = 0, gravity (0, 0, -9.81) (a floppy rod:
// q L^3 / (E J2) = 118, it swings down through large rotations); dt = 0.5 of the a-priori stability bound
// Beam::stable_dt(ds) (§5.4). The number of steps per run is fixed, steps(J) = max(10, 1e6 / J) (1e6 node-steps
// per run; e.g. J = 20: 5e4 steps = 2.3 s of simulated time), so each run starts from the same state and
// the side-by-side script can time the same step counts.
//
// Beam/Memory/J (one iteration): the heap bytes held by a stepper (model with its per-node K and per-segment
// P, E, and the stepper's fields and scratch) after construction, initialisation and one step, per node, from
// glibc's mallinfo2() (in-use bytes, arena + mmap) before and after; "state_bytes_per_node" is the count of
// the arrays known when this was written: per node g (SE3), zeta, A, M~ (Vec6), w, 1/w, Newton iterations and
// residual; per segment gamma, f-, f+ (Vec6); the model's K (Mat6) per node, P (Mat6) and E (Vec6) per
// segment, rho A per node.
#include <benchmark/benchmark.h>
#include <malloc.h>
#include <omp.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <utility>

#include "lievi/field/grid.hpp"
#include "lievi/field/noise_field.hpp"
#include "lievi/field/staggered.hpp"
#include "lievi/field/stepper.hpp"
#include "lievi/lie/retraction/cayley.hpp"
#include "lievi/lie/retraction/exp.hpp"
#include "lievi/lie/se3.hpp"
#include "lievi/models/beam.hpp"
#include "lievi/noise/wiener.hpp"

namespace {

using lievi::field::End;
using lievi::field::Grid;
using lievi::field::Layout;
using lievi::field::NodeField;
using lievi::field::NodeIndex;
using lievi::lie::Mat3;
using lievi::lie::Mat6;
using lievi::lie::SE3;
using lievi::lie::Vec3;
using lievi::lie::Vec6;
using lievi::models::Section;
template <class Ret>
using Beam = lievi::models::Beam<Ret>;
template <class Ret>
using Stepper = lievi::field::StaggeredStepper<Beam<Ret>>;
using Cayley = lievi::lie::Cayley<SE3>;
using Exp = lievi::lie::Exp<SE3>;

constexpr double kLength = 1.0;        // m
constexpr double kEdge = 0.01;         // m, square section
constexpr double kRho = 1000.0;        // kg/m^3
constexpr double kE = 1e7;             // Pa
constexpr double kNu = 0.5;            // G = E / 3
constexpr double kGravity = 9.81;      // m/s^2, along -z
constexpr double kDtFraction = 0.5;    // dt = 0.5 Beam::stable_dt(ds)
constexpr std::int64_t kNodeStepsPerRun = 1'000'000;

std::int64_t steps_for(std::int64_t J) { return std::max<std::int64_t>(10, kNodeStepsPerRun / J); }

/// Sets the thread count for one benchmark and restores the previous one.
class ThreadScope {
 public:
  explicit ThreadScope(int threads) : saved_(omp_get_max_threads()) { omp_set_num_threads(threads); }
  ~ThreadScope() { omp_set_num_threads(saved_); }
  ThreadScope(const ThreadScope&) = delete;
  ThreadScope& operator=(const ThreadScope&) = delete;

 private:
  int saved_;
};

/// The clamped rod under gravity with J segments (J + 1 nodes), straight along x and at rest.
template <class Ret>
Stepper<Ret> make_rod(std::ptrdiff_t J, lievi::field::NoiseMode mode = lievi::field::NoiseMode::none) {
  const Grid grid(Layout::vertex, J, kLength, End::clamped, End::free);
  const std::ptrdiff_t n = grid.n_nodes();
  Beam<Ret> beam = Beam<Ret>::uniform(Section::square(kRho, kE, kNu, kEdge), n, grid.n_segments());
  beam.gravity = Vec3(0.0, 0.0, -kGravity);
  typename Stepper<Ret>::Options o;
  o.dt = kDtFraction * beam.stable_dt(grid.ds());
  // Type-I noise (issue 6): Theta = 0.01 on all six components, one Brownian motion (common) or one per node
  const Vec6 theta = Vec6::Constant(0.01);
  lievi::field::NoiseField<Vec6> nf(grid, mode, theta, {},
                                    lievi::noise::WienerIncrements(lievi::noise::StreamKey{7, 0}, o.dt, 0));
  Stepper<Ret> s(std::move(beam), grid, o, std::move(nf));
  NodeField<SE3> g0(n, SE3());
  for (std::ptrdiff_t j = 0; j < n; ++j) g0[NodeIndex{j}] = SE3(Mat3::Identity(), Vec3(grid.s(NodeIndex{j}), 0, 0));
  s.initialize(g0, NodeField<Vec6>(n));
  return s;
}

/// One iteration = one step of J + 1 nodes.
template <class Ret, lievi::field::NoiseMode Mode = lievi::field::NoiseMode::none>
void BM_Beam(benchmark::State& state) {
  const ThreadScope threads(static_cast<int>(state.range(1)));
  const std::ptrdiff_t J = state.range(0);
  Stepper<Ret> s = make_rod<Ret>(J, Mode);
  const std::int64_t nodes = s.grid().n_nodes();
  for (int k = 0; k < 3; ++k) (void)s.step();  // warm caches and the OpenMP pool
  const long long newton0 = s.newton_total();
  bool ok = true;
  std::string message;
  for (auto _ : state) {
    const auto r = s.step();
    if (!r.ok && ok) message = r.message;
    ok = ok && r.ok;
    benchmark::DoNotOptimize(s.g().data());
  }
  if (!ok) state.SkipWithError(("step failed: " + message).c_str());
  const std::int64_t n = static_cast<std::int64_t>(state.iterations()) * nodes;
  state.SetItemsProcessed(n);
  state.counters["ns_per_node_step"] =
      benchmark::Counter(static_cast<double>(n) * 1e-9, benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
  state.counters["threads"] = static_cast<double>(state.range(1));
  state.counters["newton_per_node_step"] =
      static_cast<double>(s.newton_total() - newton0) / static_cast<double>(std::max<std::int64_t>(n, 1));
  state.counters["dt"] = s.options().dt;
  state.counters["sim_time"] = s.time();
}

std::size_t heap_in_use() {
  const struct mallinfo2 m = mallinfo2();
  return m.uordblks + m.hblkhd;
}

/// Heap bytes per node of a stepper (see the file comment); one iteration.
void BM_Memory(benchmark::State& state) {
  const ThreadScope threads(1);
  const std::ptrdiff_t J = state.range(0);
  double measured = 0.0;
  for (auto _ : state) {
    const std::size_t before = heap_in_use();
    Stepper<Cayley> s = make_rod<Cayley>(J);
    (void)s.step();  // the Newton scratch (iterations, residuals) is sized by the first step
    const std::size_t after = heap_in_use();
    benchmark::DoNotOptimize(s.g().data());
    measured = static_cast<double>(after - before) / static_cast<double>(J + 1);
  }
  constexpr double per_node = sizeof(SE3) + 3 * sizeof(Vec6) + 2 * sizeof(double) + sizeof(int) + sizeof(double) +
                              sizeof(Mat6) + sizeof(double);
  constexpr double per_segment = 3 * sizeof(Vec6) + sizeof(Mat6) + sizeof(Vec6);
  state.counters["heap_bytes_per_node"] = measured;
  state.counters["state_bytes_per_node"] =
      (per_node * static_cast<double>(J + 1) + per_segment * static_cast<double>(J)) / static_cast<double>(J + 1);
}

const bool registered = [] {
  const auto J = {std::int64_t{20},   std::int64_t{50},   std::int64_t{100},   std::int64_t{200},
                  std::int64_t{500},  std::int64_t{1000}, std::int64_t{2000},  std::int64_t{5000},
                  std::int64_t{10000}, std::int64_t{20000}, std::int64_t{100000}};
  for (std::int64_t n : J)
    for (std::int64_t t : {1, 2})
      benchmark::RegisterBenchmark("Beam/Cayley", BM_Beam<Cayley>)
          ->Args({n, t})
          ->Iterations(steps_for(n))
          ->UseRealTime()
          ->Unit(benchmark::kMillisecond);
  for (std::int64_t n : {std::int64_t{100}, std::int64_t{10000}})
    benchmark::RegisterBenchmark("Beam/Exp", BM_Beam<Exp>)
        ->Args({n, 1})
        ->Iterations(steps_for(n))
        ->UseRealTime()
        ->Unit(benchmark::kMillisecond);
  using lievi::field::NoiseMode;
  for (std::int64_t n : {std::int64_t{1000}, std::int64_t{10000}})
    for (std::int64_t t : {1, 2}) {
      benchmark::RegisterBenchmark("Beam/CayleyCommon", BM_Beam<Cayley, NoiseMode::common>)
          ->Args({n, t})
          ->Iterations(steps_for(n))
          ->UseRealTime()
          ->Unit(benchmark::kMillisecond);
      benchmark::RegisterBenchmark("Beam/CayleyIndependent", BM_Beam<Cayley, NoiseMode::independent>)
          ->Args({n, t})
          ->Iterations(steps_for(n))
          ->UseRealTime()
          ->Unit(benchmark::kMillisecond);
    }
  for (std::int64_t n : {std::int64_t{1000}, std::int64_t{100000}})
    benchmark::RegisterBenchmark("Beam/Memory", BM_Memory)->Arg(n)->Iterations(1)->Unit(benchmark::kMillisecond);
  return true;
}();

}  // namespace
