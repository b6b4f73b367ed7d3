// The staggered wave update (issue 4, "Speed"): node-steps per second of
// lievi::field::StaggeredStepper<Wave<1>, TypeI> for the deterministic, common-noise and independent-noise
// (one normal per node per step) problems, J = 10^2 .. 10^6 nodes, on 1 and 2 OpenMP threads; and STREAM-like
// bandwidth references measured on this machine, so the memory-bandwidth bound of the step is a measurement.
//
// Names: Wave/<Deterministic|Common|Independent>/J/threads, Bandwidth/<Triad|Copy48>/N/threads,
//        Proto/<variant>/J/threads (prototypes of hot-loop changes, see below).
// Items processed = node-steps (Wave, Proto) or elements (Bandwidth), so "items_per_second" is node-steps/s;
// "ns_per_node_step" is its inverse. All times are wall-clock (UseRealTime): the step is an OpenMP loop.
// Bytes per second: Copy48 = 48 B per element (three arrays read and written once, the minimal traffic of one
// wave node-step: phi, zeta, gamma); Triad = 24 B per element (STREAM's count, a[i] = b[i] + s c[i]).
//
// Problem (tests/field/wave_support.hpp): Grid(cell, J, 1.0, free, free), c = 1, dt = 0.5 ds, phi0 a smooth
// bump, phi_t = 0, exact variant (the stepper's default); noise theta = 0.1, WienerIncrements(StreamKey{7, 0},
// dt, 0). The number of steps per run is fixed, steps(J) = max(10, 5e6 / J) (5e6 node-steps per run, 1e7 at
// J = 1e6), so that bench/wave_side_by_side.py runs NumPy for the same step counts. Bandwidth sizes: N = 1e2 ..
// 1e7 (1e7 = 240 MB for Copy48, beyond the L3: the DRAM figure).
#include <benchmark/benchmark.h>
#include <omp.h>

#include <algorithm>
#include <cmath>
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
#include "lievi/models/wave.hpp"
#include "lievi/noise/philox.hpp"
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
using Wave = lievi::models::Wave<1>;
using Stepper = lievi::field::StaggeredStepper<Wave, lievi::field::TypeI>;
template <class T>
using AlignedVector = std::vector<T, lievi::field::AlignedAllocator<T>>;

constexpr double kTheta = 0.1;
constexpr std::int64_t kNodeStepsPerRun = 5'000'000;

std::int64_t steps_for(std::int64_t J) { return std::max<std::int64_t>(10, kNodeStepsPerRun / J); }

using lievi::bench::ThreadScope;

void set_node_step_rate(benchmark::State& state, std::int64_t per_iteration) {
  const std::int64_t n = static_cast<std::int64_t>(state.iterations()) * per_iteration;
  state.SetItemsProcessed(n);
  state.counters["ns_per_node_step"] =
      benchmark::Counter(static_cast<double>(n) * 1e-9, benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
  state.counters["threads"] = static_cast<double>(state.range(1));
}

NodeField<double> bump(const Grid& grid) {
  NodeField<double> v(grid.n_nodes());
  for (std::ptrdiff_t j = 0; j < grid.n_nodes(); ++j) {
    const double s = grid.s(NodeIndex{j});
    v[NodeIndex{j}] = std::exp(-100.0 * (s - 0.5) * (s - 0.5));
  }
  return v;
}

Stepper make_stepper(std::ptrdiff_t J, NoiseMode mode) {
  const Grid grid(Layout::cell, J, 1.0, End::free, End::free);
  Stepper::Options o;
  o.dt = 0.5 * grid.ds();
  NoiseField<double> noise;
  if (mode != NoiseMode::none)
    noise = NoiseField<double>(grid, mode, kTheta, {}, lievi::noise::WienerIncrements({7, 0}, o.dt, 0));
  Stepper s(Wave::with_speed(1.0), grid, o, std::move(noise));
  s.initialize(bump(grid), NodeField<double>(grid.n_nodes(), 0.0));
  return s;
}

/// One iteration = one step of J nodes.
void BM_Wave(benchmark::State& state, NoiseMode mode) {
  const ThreadScope threads(static_cast<int>(state.range(1)));
  const std::ptrdiff_t J = state.range(0);
  Stepper s = make_stepper(J, mode);
  for (int k = 0; k < 3; ++k) (void)s.step();  // warm caches and the OpenMP pool
  bool ok = true;
  for (auto _ : state) {
    const auto r = s.step();
    ok = ok && r.ok;
    benchmark::DoNotOptimize(s.g().data());
  }
  if (!ok) state.SkipWithError("step failed (non-finite state)");
  set_node_step_rate(state, J);
}

// ---- bandwidth references ------------------------------------------------------------------------------

/// STREAM triad a = b + s c (24 B per element by STREAM's count; 32 B with the write-allocate of a).
void BM_Triad(benchmark::State& state) {
  const ThreadScope threads(static_cast<int>(state.range(1)));
  const std::ptrdiff_t n = state.range(0);
  AlignedVector<double> a(static_cast<std::size_t>(n), 0.0), b(static_cast<std::size_t>(n), 1.0),
      c(static_cast<std::size_t>(n), 2.0);
  double* pa = a.data();
  const double* pb = b.data();
  const double* pc = c.data();
  const double s = 0.5;
  for (auto _ : state) {
#pragma omp parallel for schedule(static) if (n > 16384)
    for (std::ptrdiff_t i = 0; i < n; ++i) pa[i] = pb[i] + s * pc[i];
    benchmark::DoNotOptimize(pa);
    benchmark::ClobberMemory();
  }
  set_node_step_rate(state, n);
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) * n * 24);
}

/// Three arrays read and written once in place (48 B per element, no write-allocate traffic): the minimal
/// traffic of a wave node-step (phi, zeta, gamma). Its elements/s is the bandwidth bound in node-steps/s.
void BM_Copy48(benchmark::State& state) {
  const ThreadScope threads(static_cast<int>(state.range(1)));
  const std::ptrdiff_t n = state.range(0);
  AlignedVector<double> x(static_cast<std::size_t>(n), 1.0), y(static_cast<std::size_t>(n), 2.0),
      z(static_cast<std::size_t>(n), 3.0);
  double* px = x.data();
  double* py = y.data();
  double* pz = z.data();
  const double s = 1e-9;
  for (auto _ : state) {
#pragma omp parallel for schedule(static) if (n > 16384)
    for (std::ptrdiff_t i = 0; i < n; ++i) {
      const double a = px[i], b = py[i], c = pz[i];
      px[i] = a + s * b;
      py[i] = b - s * c;
      pz[i] = c + s * a;
    }
    benchmark::DoNotOptimize(px);
    benchmark::ClobberMemory();
  }
  set_node_step_rate(state, n);
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) * n * 48);
}
// ---- prototypes of hot-loop changes (not the library's code path) ----------------------------------------
//
// The interior update of StaggeredStepper::node_sweep + strain_sweep (Type-I, abelian, exact variant, cell
// layout, free ends) written on raw arrays with the Wave formulas (momentum rho z, velocity mu / rho, stress
// kappa gamma) spelled out, so that they do not depend on the model's member-function signatures, to measure
// candidate changes of stepper.hpp. Each is checked to
// give bitwise the library's g, zeta, gamma after 10 steps (same operations in the same order), else the
// benchmark is skipped with an error.
//  - Proto/TwoSweeps: the library's structure: per-node 1/w array, model constants read through a reference,
//    the noise mode tested inside the node loop, the periodic wrap `e + 1 == n ? 0 : e + 1` in the strain
//    loop, two parallel loops; the check that the prototype reproduces the library's speed;
//  - Proto/Locals: the same two loops with rho, kappa, dt, 1/ds in locals (scalar 1/w: interior weights are all
//    ds), one loop per noise mode (no branch inside), `#pragma omp simd reduction(| : bad)` on the node loop,
//    no wrap in the strain loop (non-periodic grids): both loops vectorise;
//  - Proto/Fused: Locals strip-mined: per block of kProtoBlock nodes the node loop, then the strain loop of the
//    segments inside the block while the block is in L1/L2; the block-boundary segments after a barrier; one
//    parallel region per step. With noise, the block's normals are drawn inside the block into an L1 buffer
//    (WienerIncrements::increments on the block's modes; bitwise the same numbers) instead of a separate
//    parallel draw into a J-long array.
// The increments A are still stored by all (the stepper exposes them).
struct Arrays {
  AlignedVector<double> g, z, A, y, iw;
  double dt = 0.0, inv_ds = 0.0;
  Wave model = Wave::with_speed(1.0);
  explicit Arrays(std::ptrdiff_t J) {
    const Grid grid(Layout::cell, J, 1.0, End::free, End::free);
    const auto n = static_cast<std::size_t>(J);
    g.resize(n);
    z.assign(n, 0.0);
    A.assign(n, 0.0);
    y.assign(n - 1, 0.0);
    iw.assign(n, 1.0 / grid.ds());
    const auto b = bump(grid);
    for (std::size_t j = 0; j < n; ++j) g[j] = b[NodeIndex{static_cast<std::ptrdiff_t>(j)}];
    dt = 0.5 * grid.ds();
    inv_ds = 1.0 / grid.ds();
    for (std::size_t e = 0; e + 1 < n; ++e) y[e] = inv_ds * (g[e + 1] - g[e]);
  }
};

constexpr std::ptrdiff_t kProtoBlock = 1024;
constexpr double kMax = 1.7976931348623157e308;

/// End nodes of a free cell grid (force from one segment only); as the library's end-node branch.
void end_nodes(Arrays& a, double dW0, double dW1, double amp) {
  const std::ptrdiff_t n = static_cast<std::ptrdiff_t>(a.g.size());
  for (std::ptrdiff_t j : {std::ptrdiff_t{0}, n - 1}) {
    double f = 0.0;
    if (j < n - 1) f += a.model.kappa * a.y[static_cast<std::size_t>(j)];
    if (j > 0) f -= a.model.kappa * a.y[static_cast<std::size_t>(j - 1)];
    const double zj = (a.model.rho * a.z[j] + a.iw[j] * a.dt * f) / a.model.rho;
    const double A = a.dt * zj + amp * (j == 0 ? dW0 : dW1);
    a.z[j] = zj;
    a.A[j] = A;
    a.g[j] = a.g[j] + A;
  }
}

void two_sweeps(Arrays& a, const Wave& model, NoiseMode mode, const double* dW, double amp) {
  const std::ptrdiff_t n = static_cast<std::ptrdiff_t>(a.g.size());
  double* g = a.g.data();
  double* z = a.z.data();
  double* A = a.A.data();
  double* y = a.y.data();
  const double* iw = a.iw.data();
  const double dt = a.dt;
  int bad = 0;
#pragma omp parallel for schedule(static) reduction(| : bad) if (n > 8 * 2048)
  for (std::ptrdiff_t j = 1; j < n - 1; ++j) {
    const double M = model.rho * z[j] + iw[j] * dt * (model.kappa * y[j] - model.kappa * y[j - 1]);
    const double zj = M / model.rho;
    double th;
    if (mode == NoiseMode::none) th = 0.0;
    else if (mode == NoiseMode::common) th = amp * dW[0];
    else th = amp * dW[j];
    const double aj = dt * zj + th;
    z[j] = zj;
    A[j] = aj;
    g[j] = g[j] + aj;
    bad |= !(std::abs(g[j]) <= kMax) | !(std::abs(zj) <= kMax);
  }
  const bool indep = mode == NoiseMode::independent;
  end_nodes(a, dW ? dW[0] : 0.0, dW ? dW[indep ? n - 1 : 0] : 0.0, dW ? amp : 0.0);
  const double inv_ds = a.inv_ds;
#pragma omp parallel for schedule(static) if (n - 1 > 8 * 2048)
  for (std::ptrdiff_t e = 0; e < n - 1; ++e) {
    const std::ptrdiff_t b = e + 1 == n ? 0 : e + 1;
    y[e] = inv_ds * (g[b] - g[e]);
  }
  benchmark::DoNotOptimize(bad);
}

/// Node loop over [lo, hi) with constants in locals; Independent: th = amp dW[j - off].
template <bool Independent>
int node_loop(double* g, double* z, double* A, const double* y, const double* dW, std::ptrdiff_t off,
              std::ptrdiff_t lo, std::ptrdiff_t hi, double rho, double kappa, double c, double dt, double amp) {
  int bad = 0;
  // `omp simd`: without it GCC 12 does not vectorise the loop (the int |-reduction of the finiteness test
  // blocks it: "no vectype for stmt"); element-wise, so the results are bitwise those of the scalar loop.
#pragma omp simd reduction(| : bad)
  for (std::ptrdiff_t j = lo; j < hi; ++j) {
    const double M = rho * z[j] + c * (kappa * y[j] - kappa * y[j - 1]);
    const double zj = M / rho;
    const double aj = Independent ? dt * zj + amp * dW[j - off] : dt * zj + 0.0;
    const double gj = g[j] + aj;
    z[j] = zj;
    A[j] = aj;
    g[j] = gj;
    bad |= !(std::abs(gj) <= kMax) | !(std::abs(zj) <= kMax);
  }
  return bad;
}

void strain_loop(const double* g, double* y, std::ptrdiff_t lo, std::ptrdiff_t hi, double inv_ds) {
  for (std::ptrdiff_t e = lo; e < hi; ++e) y[e] = inv_ds * (g[e + 1] - g[e]);
}

template <bool Independent>
void locals(Arrays& a, const double* dW, double amp) {
  const std::ptrdiff_t n = static_cast<std::ptrdiff_t>(a.g.size());
  double* g = a.g.data();
  double* z = a.z.data();
  double* A = a.A.data();
  double* y = a.y.data();
  const double dt = a.dt, inv_ds = a.inv_ds, c = a.iw[1] * a.dt;  // iw[j] * dt, interior weights all ds
  const double rho = a.model.rho, kappa = a.model.kappa;
  const std::ptrdiff_t nb = (n + 8 * 2048 - 1) / (8 * 2048);
  int bad = 0;
  end_nodes(a, Independent ? dW[0] : 0.0, Independent ? dW[n - 1] : 0.0, Independent ? amp : 0.0);
  // the end nodes do not write y, and nodes 1 and n-2 read the old y[0], y[n-2]: order as in the library
#pragma omp parallel reduction(| : bad) if (nb > 1)
  {
#pragma omp for schedule(static)
    for (std::ptrdiff_t b = 0; b < 2 * omp_get_num_threads(); ++b) {
      const std::ptrdiff_t per = (n - 2 + 2 * omp_get_num_threads() - 1) / (2 * omp_get_num_threads());
      const std::ptrdiff_t lo = 1 + b * per, hi = std::min(n - 1, lo + per);
      if (lo < hi) bad |= node_loop<Independent>(g, z, A, y, dW, 0, lo, hi, rho, kappa, c, dt, amp);
    }
#pragma omp for schedule(static)
    for (std::ptrdiff_t b = 0; b < 2 * omp_get_num_threads(); ++b) {
      const std::ptrdiff_t per = (n - 1 + 2 * omp_get_num_threads() - 1) / (2 * omp_get_num_threads());
      const std::ptrdiff_t lo = b * per, hi = std::min(n - 1, lo + per);
      if (lo < hi) strain_loop(g, y, lo, hi, inv_ds);
    }
  }
  benchmark::DoNotOptimize(bad);
}

template <bool Independent>
void fused(Arrays& a, const lievi::noise::WienerIncrements* inc, std::uint64_t step, double amp) {
  const std::ptrdiff_t n = static_cast<std::ptrdiff_t>(a.g.size());
  double* g = a.g.data();
  double* z = a.z.data();
  double* A = a.A.data();
  double* y = a.y.data();
  const double dt = a.dt, inv_ds = a.inv_ds, c = a.iw[1] * a.dt;
  const double rho = a.model.rho, kappa = a.model.kappa;
  const std::ptrdiff_t nb = (n - 2 + kProtoBlock - 1) / kProtoBlock;  // blocks of interior nodes 1 .. n-2
  int bad = 0;
  if constexpr (Independent)
    end_nodes(a, inc->increment(step, 0), inc->increment(step, static_cast<std::uint32_t>(n - 1)), amp);
  else
    end_nodes(a, 0.0, 0.0, 0.0);
#pragma omp parallel reduction(| : bad) if (n > 8 * 2048)
  {
    alignas(64) double buf[kProtoBlock];
#pragma omp for schedule(static)
    for (std::ptrdiff_t b = 0; b < nb; ++b) {
      const std::ptrdiff_t lo = 1 + b * kProtoBlock, hi = std::min(n - 1, lo + kProtoBlock);
      if constexpr (Independent)
        inc->increments(step, static_cast<std::uint32_t>(lo), static_cast<std::size_t>(hi - lo), buf);
      bad |= node_loop<Independent>(g, z, A, y, buf, lo, lo, hi, rho, kappa, c, dt, amp);
      strain_loop(g, y, lo, hi - 1, inv_ds);  // segments with both nodes in the block (old values used)
    }
    // (implicit barrier) segments lo - 1 left of each block, and the last one, n - 2
#pragma omp for schedule(static)
    for (std::ptrdiff_t b = 0; b <= nb; ++b) {
      const std::ptrdiff_t e = b < nb ? b * kProtoBlock : n - 2;
      y[e] = inv_ds * (g[e + 1] - g[e]);
    }
  }
  benchmark::DoNotOptimize(bad);
}

enum class Proto { two_sweeps, locals, fused };

/// One prototype step; for two_sweeps / locals the noise is drawn by the library's NoiseField::draw.
void proto_step(Proto kind, bool noise, Arrays& a, NoiseField<double>& nf, std::uint64_t step) {
  const double* dW = nullptr;
  if (noise && kind != Proto::fused) {
    nf.draw(step);
    dW = nf.raw().data();
  }
  switch (kind) {
    case Proto::two_sweeps:
      two_sweeps(a, a.model, noise ? NoiseMode::independent : NoiseMode::none, dW, kTheta);
      return;
    case Proto::locals:
      if (noise) locals<true>(a, dW, kTheta);
      else locals<false>(a, nullptr, 0.0);
      return;
    case Proto::fused:
      if (noise) fused<true>(a, &nf.increments(), step, kTheta);
      else fused<false>(a, nullptr, step, 0.0);
      return;
  }
}

NoiseField<double> proto_noise(std::ptrdiff_t J, double dt, bool noise) {
  if (!noise) return {};
  const Grid grid(Layout::cell, J, 1.0, End::free, End::free);
  return NoiseField<double>(grid, NoiseMode::independent, kTheta, {}, lievi::noise::WienerIncrements({7, 0}, dt, 0));
}

/// Whether the prototype gives bitwise the library's state after `steps` steps.
bool matches_library(Proto kind, bool noise, std::ptrdiff_t J, int steps) {
  Stepper s = make_stepper(J, noise ? NoiseMode::independent : NoiseMode::none);
  Arrays a(J);
  NoiseField<double> nf = proto_noise(J, a.dt, noise);
  // the library's start rule (Start::half) on the prototype's arrays
  for (std::ptrdiff_t j = 0; j < J; ++j) a.z[static_cast<std::size_t>(j)] = s.zeta()[NodeIndex{j}];
  for (int k = 0; k < steps; ++k) {
    (void)s.step();
    proto_step(kind, noise, a, nf, static_cast<std::uint64_t>(k));
  }
  for (std::ptrdiff_t j = 0; j < J; ++j) {
    const auto u = static_cast<std::size_t>(j);
    if (a.g[u] != s.g()[NodeIndex{j}] || a.z[u] != s.zeta()[NodeIndex{j}]) return false;
    if (a.A[u] != s.increments()[NodeIndex{j}]) return false;
    if (j + 1 < J && a.y[u] != s.gamma()[lievi::field::SegmentIndex{j}]) return false;
  }
  return true;
}

void BM_Proto(benchmark::State& state, Proto kind, bool noise) {
  const ThreadScope threads(static_cast<int>(state.range(1)));
  const std::ptrdiff_t J = state.range(0);
  if (!matches_library(kind, noise, J, 10)) {
    state.SkipWithError("prototype differs from the library");
    return;
  }
  Arrays a(J);
  NoiseField<double> nf = proto_noise(J, a.dt, noise);
  std::uint64_t step = 0;
  for (int k = 0; k < 3; ++k) proto_step(kind, noise, a, nf, step++);
  for (auto _ : state) {
    proto_step(kind, noise, a, nf, step++);
    benchmark::DoNotOptimize(a.g.data());
  }
  set_node_step_rate(state, J);
}

/// Registers fn under `name` for each size (with its fixed step count) and thread count 1, 2.
template <class F>
void register_sizes(const char* name, F fn, std::initializer_list<std::int64_t> sizes) {
  for (std::int64_t n : sizes)
    for (std::int64_t t : {1, 2})
      benchmark::RegisterBenchmark(name, fn)
          ->Args({n, t})
          ->Iterations(steps_for(n))
          ->UseRealTime()
          ->Unit(benchmark::kMillisecond);
}

const bool registered = [] {
  const auto J = {std::int64_t{100}, std::int64_t{1000}, std::int64_t{10000}, std::int64_t{100000},
                  std::int64_t{1000000}};
  const auto N = {std::int64_t{100}, std::int64_t{1000},    std::int64_t{10000},
                  std::int64_t{100000}, std::int64_t{1000000}, std::int64_t{10000000}};
  register_sizes("Wave/Deterministic", [](benchmark::State& s) { BM_Wave(s, NoiseMode::none); }, J);
  register_sizes("Wave/Common", [](benchmark::State& s) { BM_Wave(s, NoiseMode::common); }, J);
  register_sizes("Wave/Independent", [](benchmark::State& s) { BM_Wave(s, NoiseMode::independent); }, J);
  register_sizes("Bandwidth/Triad", BM_Triad, N);
  register_sizes("Bandwidth/Copy48", BM_Copy48, N);
  for (const bool noise : {false, true}) {
    for (const auto& [kind, base] : {std::pair{Proto::two_sweeps, "Proto/TwoSweeps"},
                                     std::pair{Proto::locals, "Proto/Locals"},
                                     std::pair{Proto::fused, "Proto/Fused"}}) {
      static std::vector<std::string> names;  // RegisterBenchmark copies the name; kept for clarity
      names.push_back(std::string(base) + (noise ? "Independent" : ""));
      register_sizes(names.back().c_str(), [kind = kind, noise](benchmark::State& s) { BM_Proto(s, kind, noise); },
                     J);
    }
  }
  return true;
}();

}  // namespace
