// Asynchronous variational integrator (lievi/integrators/avi, docs/theory/avi.md): the cost of a segment
// update against the synchronous stepper's cost per segment and step, the event queue's overhead (binary heap
// against the dyadic-level calendar, both with equal steps where either is the synchronous scheme), and the
// wall-clock speed-up on a graded mesh whose small region (1/64 of the string, refined 16x) needs a 16x
// smaller step. items_per_second counts segment updates (ns per update = 1e9 / items_per_second).
#include <benchmark/benchmark.h>

#include <cmath>
#include <vector>

#include "lievi/field/stepper.hpp"
#include "lievi/integrators/avi/avi.hpp"
#include "lievi/integrators/avi/beam_avi.hpp"
#include "lievi/models/beam.hpp"
#include "lievi/models/wave.hpp"

using namespace lievi::integrators::avi;

namespace {

double pulse(double s) {
  return std::exp(-std::pow((s - 0.3) / 0.05, 2));
}

/// A uniform vertex grid of J segments with clamped ends, steps 0.5 ds.
Avi<WaveSegments> uniform_avi(long J, Queue q) {
  const double ds = 1.0 / static_cast<double>(J);
  std::vector<double> rho_ds(static_cast<std::size_t>(J), ds);
  const Mesh mesh = Mesh::dual_cells(rho_ds, End::clamped, End::clamped);
  Avi<WaveSegments> avi(WaveSegments::uniform(J, ds, 1.0, 1.0), mesh,
                        std::vector<double>(static_cast<std::size_t>(J), 0.5 * ds), {q});
  std::vector<double> u0;
  for (long a = 0; a <= J; ++a) u0.push_back(pulse(static_cast<double>(a) * ds));
  avi.initialize(u0, std::vector<double>(u0.size(), 0.0));
  return avi;
}

/// The 16x-region mesh of tests/avi/test_avi_wave.cpp: N coarse cells of [0, 1], cells [N/2, N/2 + N/64)
/// split into 16; `equal`: every step h/16 (the synchronous scheme), else bulk h and region h/16 (h = 0.5 /
/// N).
Avi<WaveSegments> region_avi(int N, bool equal) {
  std::vector<double> s{0.0}, ds;
  for (int c = 0; c < N; ++c) {
    const int parts = (c >= N / 2 && c < N / 2 + N / 64) ? 16 : 1;
    for (int q = 0; q < parts; ++q) {
      const double b =
          static_cast<double>(c) / N + static_cast<double>(q + 1) / (static_cast<double>(N) * parts);
      ds.push_back(b - s.back());
      s.push_back(b);
    }
  }
  WaveSegments model(ds, std::vector<double>(ds.size(), 1.0), std::vector<double>(ds.size(), 1.0));
  const Mesh mesh = Mesh::dual_cells(segment_masses(model), End::clamped, End::clamped);
  const double h = 0.5 / N;
  std::vector<double> steps =
      equal ? std::vector<double>(ds.size(), h / 16) : stable_steps(model, model.n_segments(), 0.5, true, h);
  Avi<WaveSegments> avi(model, mesh, steps, {Queue::levels});
  std::vector<double> u0;
  for (double x : s) u0.push_back(pulse(x));
  avi.initialize(u0, std::vector<double>(u0.size(), 0.0));
  return avi;
}

}  // namespace

/// AVI, equal steps, a segment update per item; queue = 0 heap, 1 calendar.
static void BM_AviWaveUpdate(benchmark::State& state) {
  const long J = state.range(0);
  Avi<WaveSegments> avi = uniform_avi(J, state.range(1) == 0 ? Queue::heap : Queue::levels);
  const double h = 0.5 / static_cast<double>(J);
  double T = 0;
  long long updates = 0;
  for (auto _ : state) {
    T += 64 * h;
    updates += avi.advance(T);
    benchmark::DoNotOptimize(avi.momenta().data());
  }
  state.SetItemsProcessed(updates);
}
BENCHMARK(BM_AviWaveUpdate)->ArgsProduct({{1024, 65536}, {0, 1}})->ArgNames({"J", "calendar"});

/// lievi's synchronous stepper (Wave<1>, vertex, clamped) at the same step: a segment step per item.
static void BM_SyncWaveSegmentStep(benchmark::State& state) {
  const long J = state.range(0);
  const lievi::field::Grid grid(lievi::field::Layout::vertex, J, 1.0, lievi::field::End::clamped,
                                lievi::field::End::clamped);
  lievi::field::StaggeredStepper<lievi::models::Wave<1>>::Options o;
  o.dt = 0.5 * grid.ds();
  lievi::field::StaggeredStepper<lievi::models::Wave<1>> st(lievi::models::Wave<1>{}, grid, o);
  lievi::field::NodeField<double> g0(grid.n_nodes());
  for (long j = 1; j + 1 < grid.n_nodes(); ++j)
    g0[lievi::field::NodeIndex{j}] = pulse(grid.s(lievi::field::NodeIndex{j}));
  st.initialize(g0, lievi::field::NodeField<double>(grid.n_nodes(), 0.0));
  for (auto _ : state) benchmark::DoNotOptimize(st.step().ok);
  state.SetItemsProcessed(state.iterations() * grid.n_segments());
}
BENCHMARK(BM_SyncWaveSegmentStep)->Arg(1024)->Arg(65536)->ArgName("J");

/// The 16x-region mesh to T = 0.5: asynchronous steps (arg 0) against every segment at the small step (arg 1,
/// the synchronous scheme through the same code); the wall time per run is the speed-up's measure.
static void BM_AviRegion16x(benchmark::State& state) {
  const int N = 1024;
  long long updates = 0;
  for (auto _ : state) {
    state.PauseTiming();
    Avi<WaveSegments> avi = region_avi(N, state.range(0) == 1);
    state.ResumeTiming();
    updates += avi.advance(0.5);
    benchmark::DoNotOptimize(avi.momenta().data());
  }
  state.SetItemsProcessed(updates);
}
BENCHMARK(BM_AviRegion16x)->Arg(0)->Arg(1)->ArgName("synchronous")->Unit(benchmark::kMillisecond);

namespace {
const lievi::models::Section kBeamSection = lievi::models::Section::square(1000.0, 1e7, 0.35, 0.1);
}  // namespace

/// The SE(3) beam AVI (beam_avi.hpp), equal steps 0.5 of the limit on a cantilever of J segments: a segment
/// update per item (with its two node free steps, one of which is of length 0 at equal steps).
static void BM_AviBeamUpdate(benchmark::State& state) {
  using Beam = lievi::models::Beam<>;
  const long J = state.range(0);
  const double ds = 1.0 / static_cast<double>(J);
  Beam beam = Beam::uniform(kBeamSection, J + 1, J);
  const double dt = 0.5 * beam.stable_dt(ds);
  const Mesh mesh =
      Mesh::dual_cells(std::vector<double>(static_cast<std::size_t>(J), ds), End::clamped, End::free);
  BeamAvi<Beam> avi(beam, mesh, std::vector<double>(static_cast<std::size_t>(J), ds),
                    std::vector<double>(static_cast<std::size_t>(J), dt), {Queue::levels});
  std::vector<lievi::lie::SE3> g0;
  std::vector<lievi::lie::Vec6> z0;
  for (long j = 0; j <= J; ++j) {
    const double s = static_cast<double>(j) * ds;
    g0.emplace_back(Eigen::Matrix3d::Identity(), Eigen::Vector3d(s, 0, 0));
    lievi::lie::Vec6 z;
    z << 0.3 * s, 0.1 * s, 0.5 * s, 0.05 * s, 0.8 * s, 0.2 * s;
    z0.push_back(z);
  }
  avi.initialize(g0, z0);
  double T = 0;
  const long long before = avi.updates();
  for (auto _ : state) {
    T += 16 * dt;
    benchmark::DoNotOptimize(avi.advance(T).ok);
  }
  state.SetItemsProcessed(avi.updates() - before);
}
BENCHMARK(BM_AviBeamUpdate)->Arg(64)->ArgName("J");

/// lievi's synchronous beam stepper on the same cantilever (generic and batched sweeps): a segment step per
/// item.
static void BM_SyncBeamSegmentStep(benchmark::State& state) {
  using Beam = lievi::models::Beam<>;
  const long J = state.range(0);
  const lievi::field::Grid grid(lievi::field::Layout::vertex, J, 1.0, lievi::field::End::clamped,
                                lievi::field::End::free);
  Beam beam = Beam::uniform(kBeamSection, grid.n_nodes(), grid.n_segments());
  lievi::field::StaggeredStepper<Beam>::Options o;
  o.dt = 0.5 * beam.stable_dt(grid.ds());
  o.batched = state.range(1) == 1;
  lievi::field::StaggeredStepper<Beam> st(beam, grid, o);
  lievi::field::NodeField<lievi::lie::SE3> g0(grid.n_nodes(), lievi::lie::SE3());
  lievi::field::NodeField<lievi::lie::Vec6> z0(grid.n_nodes());
  for (long j = 0; j < grid.n_nodes(); ++j) {
    const double s = grid.s(lievi::field::NodeIndex{j});
    g0[lievi::field::NodeIndex{j}] = lievi::lie::SE3(Eigen::Matrix3d::Identity(), Eigen::Vector3d(s, 0, 0));
    lievi::lie::Vec6 z;
    z << 0.3 * s, 0.1 * s, 0.5 * s, 0.05 * s, 0.8 * s, 0.2 * s;
    z0[lievi::field::NodeIndex{j}] = z;
  }
  st.initialize(g0, z0);
  for (auto _ : state) benchmark::DoNotOptimize(st.step().ok);
  state.SetItemsProcessed(state.iterations() * grid.n_segments());
}
BENCHMARK(BM_SyncBeamSegmentStep)->Args({64, 0})->Args({64, 1})->ArgNames({"J", "batched"});
