// The classical ODE comparators on Scenario A (seed 002 §5; docs/theory/ddb.md "Comparators and scenarios"):
// ns per step of the 3-stage Lobatto IIIC (Newton on the stage values, attitude with the momentum), and the
// time of one whole run of the adaptive DOP853 over t in [0, 30] with rtol = atol = 1e-10 (output every 0.1,
// the paper's dt, and every 30: one call), with its dense output (the default: natural steps, outputs
// interpolated) and in the landing mode (dense_output = false: steps clamped to land on every output time),
// through the core and through the registry's stepper (what `lievi run` uses).
#include <benchmark/benchmark.h>

#include <cmath>

#include "lievi/integrators/ode/dop853.hpp"
#include "lievi/integrators/ode/lobatto_iiic.hpp"
#include "lievi/integrators/rigid_body_stepper.hpp"

namespace {

using namespace lievi;

struct ScenarioA {
  models::RigidBody body = models::RigidBody::principal({1.0, 1.3, 0.5}, 0.5);
  models::Vec3 M0 = body.I * models::Vec3(0.0, 0.05, 1.0);
  double t_end = 30.0;
};

/// Steps Scenario A from t = 0 with step h (units of 1e-3), restarting at M0 every 30/h steps.
void BM_LobattoIIIC(benchmark::State& state) {
  const ScenarioA s;
  const double h = static_cast<double>(state.range(0)) * 1e-3;
  const long n_run = std::lround(s.t_end / h);
  models::RigidBodyState x;
  x.M = s.M0;
  long k = 0, iterations = 0;
  for (auto _ : state) {
    const StepResult r = integrators::LobattoIIIC::step(s.body, x, h);
    iterations += r.iterations;
    benchmark::DoNotOptimize(x);
    if (++k == n_run) {
      k = 0;
      x = models::RigidBodyState{};
      x.M = s.M0;
    }
  }
  state.counters["newton_it"] = benchmark::Counter(static_cast<double>(iterations) / state.iterations());
}

/// One full run of DOP853 (rtol = atol = 1e-10) over [0, 30] with output interval H (units of 1e-3); dense output
/// (`dense` true, the default) or landing on every output time.
void BM_Dop853Run(benchmark::State& state, bool dense) {
  const ScenarioA s;
  const double H = static_cast<double>(state.range(0)) * 1e-3;
  const long n_out = std::lround(s.t_end / H);
  integrators::Dop853Options o{1e-10, 1e-10};
  o.dense_output = dense;
  integrators::Dop853 dop(s.body, o);
  long steps = 0;
  for (auto _ : state) {
    models::RigidBodyState x;
    x.M = s.M0;
    dop.start(x, H);
    for (long k = 0; k < n_out; ++k) benchmark::DoNotOptimize(dop.step(x, H));
    benchmark::DoNotOptimize(x);
    steps = dop.accepted_steps() + dop.rejected_steps();
  }
  state.counters["internal_steps"] = static_cast<double>(steps);
  state.counters["f_evals"] = static_cast<double>(dop.evaluations());
}

/// The same run through the type-erased registry stepper.
void BM_Dop853RunRegistry(benchmark::State& state) {
  const ScenarioA s;
  const double H = static_cast<double>(state.range(0)) * 1e-3;
  const long n_out = std::lround(s.t_end / H);
  integrators::RigidBodyMethodOptions o;
  o.method = "dop853";
  o.rtol = o.atol = 1e-10;
  auto stepper = integrators::make_rigid_body_stepper(s.body, o);
  for (auto _ : state) {
    models::RigidBodyState x;
    x.M = s.M0;
    stepper->start(x, H);
    for (long k = 0; k < n_out; ++k) benchmark::DoNotOptimize(stepper->step(x, H));
    benchmark::DoNotOptimize(x);
  }
}

}  // namespace

// Step sizes in units of 1e-3: 100 (h = 0.1, the paper's) and 1 (h = 0.001).
BENCHMARK(BM_LobattoIIIC)->Arg(100)->Arg(1);
// Output intervals in units of 1e-3: 10 (every 0.01), 100 (every 0.1, as `lievi run` with dt = 0.1) and 30000
// (one call).
BENCHMARK_CAPTURE(BM_Dop853Run, dense, true)->Arg(10)->Arg(100)->Arg(30000)->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_Dop853Run, landing, false)->Arg(10)->Arg(100)->Arg(30000)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_Dop853RunRegistry)->Arg(100)->Unit(benchmark::kMicrosecond);
