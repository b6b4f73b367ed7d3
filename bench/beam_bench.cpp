// The geometrically exact beam on SE(3) (issue 5, "Speed and memory"): ns per node-step of
// lievi::field::StaggeredStepper<Beam<Cayley<SE3>>> (variant `exact`, per-node 6x6 Newton) for J = 20 .. 1e5
// segments on 1 and 2 OpenMP threads; the same step with the exp retraction at two sizes; the heap bytes per
// node of a stepper (memory O(J)).
//
// Names: Beam/Cayley/J/threads, Beam/Exp/J/threads, Beam/Memory/J; the noisy and issue-6 variants of the same
// rod step: Beam/CayleyCommon, Beam/CayleyIndependent (Type-I noise), Beam/CayleyModes4 (noise.mode = modes,
// K = 4 cosine modes Theta cos(k pi s/L)), Beam/Approx, Beam/ApproxCommon, Beam/ApproxIndependent,
// Beam/ApproxModes4 (the `approx` variant, T-/+ = I -/+ ad*/2 and the linearised compatibility),
// Beam/TypeIIIndependent (Type-II, field::TypeII with the constant-Theta
// potential: the general-potential code path, Newton with the chain-rule Jacobian), all at J = 1e3, 1e4;
// Beam/CayleyGeneric/J/1 (J = 100, 1e3, 1e4): Beam/Cayley with Options::batched = false, the generic per-node
// path the batched sweeps (models/beam_batch.hpp) replace. Beam/CayleyDamped, Beam/CayleyDampedGeneric,
// Beam/CayleyDampedIndependent (J = 100, 1e3, 1e4, 1 thread): the rod with mass-proportional damping 0.1 / s
// (Beam::set_damping(0.1, 0.1)), batched, generic, and batched with independent noise. Beam/CayleyCoupled,
// Beam/CayleyCoupledGeneric (the same J): the rod with a stiffness P that couples twist and bend, twist and
// stretch and the two shears (RodCase::coupled), batched (all of P per segment) and generic.
// Beam/CayleyDistributed, Beam/CayleyDistributedGeneric (the same J): the rod with a dead side load of 0.5 N/m
// on every node (RodCase::distributed, Beam::tabled_loads), batched and generic. Beam/CayleyFullK,
// Beam/CayleyFullKGeneric: the rod with its angular inertia off the principal axes (RodCase::full_k), batched
// (all of K_a per node) and generic. Beam/Cayley runs the kernels of the widest ISA
// the CPU has; LIEVI_BATCH_ISA=avx2, sse4 or scalar in the environment measures the narrower ones.
// Items processed = node-steps (J + 1 nodes per step, vertex layout), so "items_per_second" is node-steps/s and
// "ns_per_node_step" its inverse; wall-clock times (UseRealTime: the sweeps are OpenMP loops).
// "newton_per_node_step" = Newton iterations (Jacobian solves) per node-step over the timed steps
// (stepper.newton_total(); the clamped node does no iteration and counts as a node-step).
//
// Problem: a clamped rod under gravity, the side-by-side problem of bench/beam_side_by_side.py: length 1 m,
// square section of edge 0.01 m, rho = 1000 kg/m^3, E = 1e7 Pa, nu = 0.5, k_s = 1; vertex layout, J segments,
// node 0 clamped, free end; straight along x at rest at t = 0, gravity (0, 0, -9.81) (a floppy rod:
// q L^3 / (E J2) = 118, it swings down through large rotations); dt = 0.5 of the a-priori stability bound
// Beam::stable_dt(ds) (docs/theory/beam.md "Stability bound"). The number of steps per run is fixed,
// steps(J) = max(10, 1e6 / J) (1e6 node-steps per run; e.g. J = 20: 5e4 steps = 2.3 s of simulated time), so
// each run starts from the same state and the side-by-side script can time the same step counts.
//
// Beam/Ensemble/J/threads (issue 6, ensemble throughput): N = 16 independent paths of the stochastic flying
// spaghetti (docs/theory/beam.md "Examples and linear checks": L = 10, EA = GA = 1e4, GJ1 = EJ2 = EJ3 = 500,
// rho A = 1, rho J = (20, 10, 10); vertex layout, J segments, free-free, straight from (6, 0, 0) to (0, 8, 0)
// at rest, the hat load at node 0 as a dead wrench (0, Mz/2, Mz, Mz/10, 0, 0), common noise
// Theta = 1e-2 (1, ..., 1), path p = Philox stream (7, p)); dt = min(1e-3, 0.5 Beam::stable_dt(ds)), 2000 steps per path. One
// iteration = the whole ensemble: the paths are distributed over the threads by `#pragma omp parallel for
// schedule(dynamic)`, each path its own stepper built and initialised inside the loop (as run_beam_ensemble
// in src/run/beam_run.cpp does with one run_beam per path; the stepper's own sweeps stay serial below 512
// nodes, so there is no nested parallelism). Only the stepping is timed, not the CLI's per-path CSV output
// and statistics. Counters: "path_node_steps_per_s" (paths x nodes x steps per wall second),
// "ns_per_path_node_step" (its inverse), "paths_per_s".
//
// Beam/Memory/J (one iteration): the heap bytes held by a stepper (model with its per-node K and per-segment
// P, E, and the stepper's fields and scratch) after construction, initialisation and one step, per node, from
// glibc's mallinfo2() (in-use bytes, arena + mmap) before and after; "state_bytes_per_node" is the count of
// the arrays known when this was written: per node g (SE3), zeta, A, M~ (Vec6), w, 1/w, Newton iterations and
// residual; per segment gamma, f-, f+ (Vec6); the model's K (Mat6) per node, P (Mat6) and E (Vec6) per
// segment, rho A per node; the batched sweeps' diagonal K (4 doubles) per node and diagonal P (6) per segment.
#include <Eigen/Geometry>
#include <benchmark/benchmark.h>
#include <malloc.h>

#include <algorithm>
#include <cmath>
#include <numbers>
#include <type_traits>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

#include "lievi/field/grid.hpp"
#include "lievi/field/noise_field.hpp"
#include "lievi/field/staggered.hpp"
#include "lievi/field/stepper.hpp"
#include "lievi/lie/retraction/cayley.hpp"
#include "lievi/lie/retraction/exp.hpp"
#include "lievi/lie/se3.hpp"
#include "lievi/models/beam.hpp"
#include "lievi/noise/wiener.hpp"

#include "bench_support.hpp"

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
using TypeIIConstant = lievi::field::TypeII<lievi::models::ConstantThetaPotential>;

constexpr double kLength = 1.0;        // m
constexpr double kEdge = 0.01;         // m, square section
constexpr double kRho = 1000.0;        // kg/m^3
constexpr double kE = 1e7;             // Pa
constexpr double kNu = 0.5;            // G = E / 3
constexpr double kGravity = 9.81;      // m/s^2, along -z
constexpr double kDtFraction = 0.5;    // dt = 0.5 Beam::stable_dt(ds)
constexpr std::int64_t kNodeStepsPerRun = 1'000'000;

std::int64_t steps_for(std::int64_t J) { return std::max<std::int64_t>(10, kNodeStepsPerRun / J); }

using lievi::bench::ThreadScope;

/// What a rod benchmark varies: the variant, the Type-I noise (none, common, independent, or K spatial modes
/// Theta cos(k pi s / L), k < K) and, for Type-II, the constant-Theta potential (common or independent).
struct RodCase {
  lievi::field::Variant variant = lievi::field::Variant::exact;
  lievi::field::NoiseMode mode = lievi::field::NoiseMode::none;
  int n_modes = 0;
  bool batched = true;  ///< Options::batched (false: the generic per-node path, for comparison)
  /// mass-proportional damping rate (Beam::set_damping(c, c), 1/s; 0: none)
  double damping = 0.0;
  /// a stiffness that couples the strains (a `matrix` section's P): twist-bend 0.4, twist-stretch -0.3 and
  /// shear-shear 0.2 of the geometric means of the diagonal entries
  bool coupled = false;
  /// a dead distributed force (N/m, along -y: a side wind) on the whole rod, as a scenario's
  /// [[distributed_loads]] table gives it (Beam::tabled_loads, every node loaded); 0: none
  double distributed = 0.0;
  /// the angular inertia off its principal axes (K_a -> Q K_a Q^T, Q a rotation by 0.5 rad about (1, 2, 3))
  bool full_k = false;
};

/// The clamped rod under gravity with J segments (J + 1 nodes), straight along x and at rest.
template <class Ret, class Noise = lievi::field::TypeI>
lievi::field::StaggeredStepper<Beam<Ret>, Noise> make_rod(std::ptrdiff_t J, const RodCase& c = {}) {
  using B = Beam<Ret>;
  using S = lievi::field::StaggeredStepper<B, Noise>;
  const Grid grid(Layout::vertex, J, kLength, End::clamped, End::free);
  const std::ptrdiff_t n = grid.n_nodes();
  B beam = B::uniform(Section::square(kRho, kE, kNu, kEdge), n, grid.n_segments());
  beam.gravity = Vec3(0.0, 0.0, -kGravity);
  if (c.full_k) {
    const Mat3 Q = Eigen::AngleAxisd(0.5, Vec3(1.0, 2.0, 3.0).normalized()).toRotationMatrix();
    for (Mat6& K : beam.K_node) K.topLeftCorner<3, 3>() = Q * K.topLeftCorner<3, 3>() * Q.transpose();
  }
  if (c.damping > 0.0) beam.set_damping(c.damping, c.damping);
  if (c.distributed > 0.0) {
    using Entry = lievi::models::TabledLoads::Entry;
    std::vector<std::vector<Entry>> by_node(static_cast<std::size_t>(n));
    for (std::ptrdiff_t j = 0; j < n; ++j) {
      const double len = grid.weight(NodeIndex{j});  // the node's cell on the rod
      Vec6 w = Vec6::Zero();
      w[4] = -c.distributed * len;
      by_node[static_cast<std::size_t>(j)].push_back({0, false, w});
    }
    beam.tabled_loads = lievi::models::TabledLoads::from({[](double t) { return std::min(1.0, 10.0 * t); }}, by_node);
  }
  if (c.coupled)
    for (Mat6& P : beam.P_seg) {
      auto couple = [&](int i, int k, double r) { P(i, k) = P(k, i) = r * std::sqrt(P(i, i) * P(k, k)); };
      couple(0, 1, 0.4);
      couple(0, 3, -0.3);
      couple(4, 5, 0.2);
    }
  typename S::Options o;
  o.dt = kDtFraction * beam.stable_dt(grid.ds());
  o.variant = c.variant;
  o.batched = c.batched;
  // Noise (issue 6): Theta = 0.01 on all six components, one Brownian motion (common), one per node
  // (independent), or K cosine modes Theta cos(k pi s / L) with stream mode k
  const Vec6 theta = Vec6::Constant(0.01);
  std::vector<std::vector<Vec6>> modes;
  for (int k = 0; k < c.n_modes; ++k) {
    std::vector<Vec6> m(static_cast<std::size_t>(n));
    for (std::ptrdiff_t j = 0; j < n; ++j)
      m[static_cast<std::size_t>(j)] = theta * std::cos(k * std::numbers::pi * grid.s(NodeIndex{j}) / kLength);
    modes.push_back(std::move(m));
  }
  lievi::field::NoiseField<Vec6> nf(grid, c.mode, theta, std::move(modes),
                                    lievi::noise::WienerIncrements(lievi::noise::StreamKey{7, 0}, o.dt, 0));
  auto make = [&] {
    if constexpr (std::is_same_v<Noise, lievi::field::TypeI>)
      return S(std::move(beam), grid, o, std::move(nf));
    else
      return S(std::move(beam), grid, o, std::move(nf), Noise{lievi::models::ConstantThetaPotential{theta}});
  };
  S s = make();
  NodeField<SE3> g0(n, SE3());
  for (std::ptrdiff_t j = 0; j < n; ++j) g0[NodeIndex{j}] = SE3(Mat3::Identity(), Vec3(grid.s(NodeIndex{j}), 0, 0));
  s.initialize(g0, NodeField<Vec6>(n));
  return s;
}

/// One iteration = one step of J + 1 nodes.
template <class Ret, class Noise = lievi::field::TypeI>
void BM_Rod(benchmark::State& state, RodCase c) {
  const ThreadScope threads(static_cast<int>(state.range(1)));
  const std::ptrdiff_t J = state.range(0);
  auto s = make_rod<Ret, Noise>(J, c);
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
  // + the batched sweeps' diagonal copies: K_11 .. K_44 per node, diag P per segment (Beam::batch_sweeps)
  constexpr double per_node = sizeof(SE3) + 3 * sizeof(Vec6) + 2 * sizeof(double) + sizeof(int) + sizeof(double) +
                              sizeof(Mat6) + sizeof(double) + 4 * sizeof(double);
  constexpr double per_segment = 3 * sizeof(Vec6) + sizeof(Mat6) + sizeof(Vec6) + 6 * sizeof(double);
  state.counters["heap_bytes_per_node"] = measured;
  state.counters["state_bytes_per_node"] =
      (per_node * static_cast<double>(J + 1) + per_segment * static_cast<double>(J)) / static_cast<double>(J + 1);
}

// ---- ensemble throughput (issue 6) ----------------------------------------------------------------------------
constexpr int kEnsemblePaths = 16;
constexpr std::int64_t kEnsembleSteps = 2000;

/// The stochastic flying spaghetti (docs/theory/beam.md) with J segments, common noise on path `path` (see
/// the file comment).
Stepper<Cayley> make_spaghetti(std::ptrdiff_t J, std::uint32_t path) {
  const Grid grid(Layout::vertex, J, 10.0, End::free, End::free);
  const std::ptrdiff_t n = grid.n_nodes();
  Beam<Cayley> beam = Beam<Cayley>::uniform(Section{}, n, grid.n_segments());
  Vec6 k, p;
  k << 20, 10, 10, 1, 1, 1;
  p << 500, 500, 500, 1e4, 1e4, 1e4;
  beam.K_node.assign(static_cast<std::size_t>(n), k.asDiagonal());
  beam.P_seg.assign(static_cast<std::size_t>(grid.n_segments()), p.asDiagonal());
  beam.rhoA_node.assign(static_cast<std::size_t>(n), 1.0);
  beam.momentum_scale = 1e-12 * Mat6(k.asDiagonal()).norm();
  beam.point_load = [](std::ptrdiff_t j, const SE3& g, double t) {
    Vec6 f = Vec6::Zero();
    if (j != 0) return f;
    const double Mz = t <= 2.5 ? 200.0 * t / 2.5 : t <= 5.0 ? 200.0 * (2.0 - t / 2.5) : 0.0;
    const Mat3 Rt = g.rotation().transpose();  // dead load: spatial directions
    f.head<3>() = Rt * Vec3(0.0, 0.5 * Mz, Mz);
    f.tail<3>() = Rt * Vec3(0.1 * Mz, 0.0, 0.0);
    return f;
  };
  beam.point_load_nodes = {0};
  typename Stepper<Cayley>::Options o;
  o.dt = std::min(1e-3, 0.5 * beam.stable_dt(grid.ds()));
  lievi::field::NoiseField<Vec6> nf(grid, lievi::field::NoiseMode::common, Vec6::Constant(1e-2), {},
                                    lievi::noise::WienerIncrements(lievi::noise::StreamKey{7, path}, o.dt, 0));
  Stepper<Cayley> s(std::move(beam), grid, o, std::move(nf));
  const Vec3 a(6.0, 0.0, 0.0), d(-0.6, 0.8, 0.0), e3(0.0, 0.0, 1.0);  // body e1 along the beam from the loaded end
  Mat3 R;
  R << d, e3.cross(d), e3;
  NodeField<SE3> g0(n, SE3());
  for (std::ptrdiff_t j = 0; j < n; ++j) g0[NodeIndex{j}] = SE3(R, Vec3(a + grid.s(NodeIndex{j}) * d));
  s.initialize(g0, NodeField<Vec6>(n));
  return s;
}

/// One iteration = kEnsemblePaths paths of kEnsembleSteps steps, paths over state.range(1) threads.
void BM_Ensemble(benchmark::State& state) {
  const int threads = static_cast<int>(state.range(1));
  const std::ptrdiff_t J = state.range(0);
  const std::int64_t nodes = J + 1;
  std::vector<int> failed(kEnsemblePaths, 0);
  std::vector<double> sink(kEnsemblePaths, 0.0);
  double dt = 0.0;
  for (auto _ : state) {
#pragma omp parallel for schedule(dynamic) num_threads(threads)
    for (int p = 0; p < kEnsemblePaths; ++p) {
      Stepper<Cayley> s = make_spaghetti(J, static_cast<std::uint32_t>(p));
      for (std::int64_t n = 0; n < kEnsembleSteps; ++n)
        if (!s.step().ok) {
          failed[static_cast<std::size_t>(p)] = 1;
          break;
        }
      sink[static_cast<std::size_t>(p)] = s.g()[NodeIndex{0}].translation().x();
    }
    benchmark::DoNotOptimize(sink.data());
  }
  dt = make_spaghetti(J, 0).options().dt;
  if (std::find(failed.begin(), failed.end(), 1) != failed.end()) state.SkipWithError("a path failed");
  const double it = static_cast<double>(state.iterations());
  const double work = it * kEnsemblePaths * static_cast<double>(nodes) * static_cast<double>(kEnsembleSteps);
  state.SetItemsProcessed(static_cast<std::int64_t>(work));
  state.counters["path_node_steps_per_s"] = benchmark::Counter(work, benchmark::Counter::kIsRate);
  state.counters["ns_per_path_node_step"] =
      benchmark::Counter(work * 1e-9, benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
  state.counters["paths_per_s"] = benchmark::Counter(it * kEnsemblePaths, benchmark::Counter::kIsRate);
  state.counters["threads"] = threads;
  state.counters["paths"] = kEnsemblePaths;
  state.counters["steps"] = static_cast<double>(kEnsembleSteps);
  state.counters["dt"] = dt;
}

const bool registered = [] {
  const auto J = {std::int64_t{20},   std::int64_t{50},   std::int64_t{100},   std::int64_t{200},
                  std::int64_t{500},  std::int64_t{1000}, std::int64_t{2000},  std::int64_t{5000},
                  std::int64_t{10000}, std::int64_t{20000}, std::int64_t{100000}};
  using lievi::field::NoiseMode;
  using lievi::field::Variant;
  const auto add = [](const char* name, auto fn, RodCase c, std::int64_t n, std::int64_t t) {
    benchmark::RegisterBenchmark(name, fn, c)
        ->Args({n, t})
        ->Iterations(steps_for(n))
        ->UseRealTime()
        ->Unit(benchmark::kMillisecond);
  };
  for (std::int64_t n : J)
    for (std::int64_t t : {1, 2}) add("Beam/Cayley", BM_Rod<Cayley>, {}, n, t);
  for (std::int64_t n : {std::int64_t{100}, std::int64_t{1000}, std::int64_t{10000}}) {
    add("Beam/Exp", BM_Rod<Exp>, {}, n, 1);
    add("Beam/ExpGeneric", BM_Rod<Exp>, {Variant::exact, NoiseMode::none, 0, false}, n, 1);
    add("Beam/ExpDamped", BM_Rod<Exp>, {Variant::exact, NoiseMode::none, 0, true, 0.1}, n, 1);
  }
  // the same step through the generic per-node (Eigen) path: what the batched sweeps replace
  for (std::int64_t n : {std::int64_t{100}, std::int64_t{1000}, std::int64_t{10000}}) {
    add("Beam/CayleyGeneric", BM_Rod<Cayley>, {Variant::exact, NoiseMode::none, 0, false}, n, 1);
    // mass-proportional damping 0.1 / s (the PyElastica guide's rod): batched, and the generic path
    add("Beam/CayleyDamped", BM_Rod<Cayley>, {Variant::exact, NoiseMode::none, 0, true, 0.1}, n, 1);
    add("Beam/CayleyDampedGeneric", BM_Rod<Cayley>, {Variant::exact, NoiseMode::none, 0, false, 0.1}, n, 1);
    add("Beam/CayleyDampedIndependent", BM_Rod<Cayley>, {Variant::exact, NoiseMode::independent, 0, true, 0.1}, n, 1);
    // a coupled stiffness (all of P per segment): batched, and the generic path
    add("Beam/CayleyCoupled", BM_Rod<Cayley>, {Variant::exact, NoiseMode::none, 0, true, 0.0, true}, n, 1);
    add("Beam/CayleyCoupledGeneric", BM_Rod<Cayley>, {Variant::exact, NoiseMode::none, 0, false, 0.0, true}, n, 1);
    // a distributed load on every node (a [[distributed_loads]] table): batched, and the generic path it took
    add("Beam/CayleyDistributed", BM_Rod<Cayley>, {Variant::exact, NoiseMode::none, 0, true, 0.0, false, 0.5}, n, 1);
    add("Beam/CayleyDistributedGeneric", BM_Rod<Cayley>, {Variant::exact, NoiseMode::none, 0, false, 0.0, false, 0.5}, n,
        1);
    // an angular inertia off its principal axes (all of K_a per node): batched, and the generic path
    add("Beam/CayleyFullK", BM_Rod<Cayley>, {Variant::exact, NoiseMode::none, 0, true, 0.0, false, 0.0, true}, n, 1);
    add("Beam/CayleyFullKGeneric", BM_Rod<Cayley>, {Variant::exact, NoiseMode::none, 0, false, 0.0, false, 0.0, true}, n,
        1);
  }
  for (std::int64_t n : {std::int64_t{1000}, std::int64_t{10000}})
    for (std::int64_t t : {1, 2}) {
      add("Beam/CayleyCommon", BM_Rod<Cayley>, {Variant::exact, NoiseMode::common, 0}, n, t);
      add("Beam/CayleyIndependent", BM_Rod<Cayley>, {Variant::exact, NoiseMode::independent, 0}, n, t);
      // issue 6: the approx variant, K = 4 spatial modes, Type-II with the constant-Theta potential
      add("Beam/Approx", BM_Rod<Cayley>, {Variant::approx, NoiseMode::none, 0}, n, t);
      add("Beam/ApproxCommon", BM_Rod<Cayley>, {Variant::approx, NoiseMode::common, 0}, n, t);
      add("Beam/ApproxIndependent", BM_Rod<Cayley>, {Variant::approx, NoiseMode::independent, 0}, n, t);
      add("Beam/ApproxModes4", BM_Rod<Cayley>, {Variant::approx, NoiseMode::modes, 4}, n, t);
      add("Beam/CayleyModes4", BM_Rod<Cayley>, {Variant::exact, NoiseMode::modes, 4}, n, t);
      add("Beam/TypeIIIndependent", BM_Rod<Cayley, TypeIIConstant>, {Variant::exact, NoiseMode::independent, 0}, n,
          t);
    }
  for (std::int64_t n : {std::int64_t{20}, std::int64_t{50}, std::int64_t{100}})
    for (std::int64_t t : {1, 2})
      benchmark::RegisterBenchmark("Beam/Ensemble", BM_Ensemble)
          ->Args({n, t})
          ->UseRealTime()
          ->Unit(benchmark::kMillisecond);
  for (std::int64_t n : {std::int64_t{1000}, std::int64_t{100000}})
    benchmark::RegisterBenchmark("Beam/Memory", BM_Memory)->Arg(n)->Iterations(1)->Unit(benchmark::kMillisecond);
  return true;
}();

}  // namespace
