// ns per step of the rigid-body methods on Scenario A (seed 002 §5; docs/theory/ddb.md "Comparators and
// scenarios"): DDB with cayley, exp, exp2, the symmetric DDB of Remark 4.10 (cayley, midpoint quadrature,
// with the start/output processing), Moser-Veselov and RK4, called through the templated cores (no virtual
// dispatch) and through the registry's type-erased stepper (what `lievi run` uses).
#include <benchmark/benchmark.h>

#include "lievi/integrators/ddb.hpp"
#include "lievi/integrators/ddb_symmetric.hpp"
#include "lievi/integrators/moser_veselov.hpp"
#include "lievi/integrators/ode/rk4.hpp"
#include "lievi/integrators/rigid_body_stepper.hpp"

namespace {

using namespace lievi;

struct ScenarioA {
  models::RigidBody body = models::RigidBody::principal({1.0, 1.3, 0.5}, 0.5);
  models::Vec3 M0 = body.I * models::Vec3(0.0, 0.05, 1.0);
};

/// Steps Scenario A from t = 0 with step h, restarting at M0 every 30/h steps (t in [0, 30]). `Core` is any
/// core with `Core(body)`, `start(x, h)` and `step(x, h)` returning the Newton iterations (DDB, DDBSymmetric,
/// MoserVeselov).
template <class Core>
void BM_DDB(benchmark::State& state) {
  const ScenarioA s;
  const double h = static_cast<double>(state.range(0)) * 1e-3;
  const long n_run = std::lround(30.0 / h);
  Core ddb(s.body);
  models::RigidBodyState x;
  x.M = s.M0;
  ddb.start(x, h);
  long k = 0, iterations = 0;
  for (auto _ : state) {
    const StepResult r = ddb.step(x, h);
    iterations += r.iterations;
    benchmark::DoNotOptimize(x);
    if (++k == n_run) {
      k = 0;
      x = models::RigidBodyState{};
      x.M = s.M0;
      ddb.start(x, h);
    }
  }
  state.counters["newton_it"] = benchmark::Counter(static_cast<double>(iterations) / state.iterations());
}

void BM_RK4(benchmark::State& state) {
  const ScenarioA s;
  const double h = static_cast<double>(state.range(0)) * 1e-3;
  const long n_run = std::lround(30.0 / h);
  models::RigidBodyState x;
  x.M = s.M0;
  long k = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(integrators::RK4::step(s.body, x, h));
    benchmark::DoNotOptimize(x);
    if (++k == n_run) {
      k = 0;
      x = models::RigidBodyState{};
      x.M = s.M0;
    }
  }
}

/// Through the type-erased registry stepper (virtual call per step).
void BM_Registry(benchmark::State& state, const char* method, const char* retraction) {
  const ScenarioA s;
  const double h = static_cast<double>(state.range(0)) * 1e-3;
  const long n_run = std::lround(30.0 / h);
  integrators::RigidBodyMethodOptions o;
  o.method = method;
  o.retraction = retraction;
  auto stepper = integrators::make_rigid_body_stepper(s.body, o);
  models::RigidBodyState x;
  x.M = s.M0;
  stepper->start(x, h);
  long k = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(stepper->step(x, h));
    benchmark::DoNotOptimize(x);
    if (++k == n_run) {
      k = 0;
      x = models::RigidBodyState{};
      x.M = s.M0;
      stepper->start(x, h);
    }
  }
}

/// ddb-symmetric as registered by default (a name without commas for the BENCHMARK_TEMPLATE macro).
using DDBSymmetricCayley =
    integrators::DDBSymmetric<lie::Cayley<lie::SO3>, integrators::DissipationQuadrature::midpoint>;

}  // namespace

// Step sizes in units of 1e-3: 100 (h = 0.1, the paper's) and 1 (h = 0.001, the Casimir test's).
BENCHMARK_TEMPLATE(BM_DDB, integrators::DDBCayley)->Arg(100)->Arg(1);
BENCHMARK_TEMPLATE(BM_DDB, integrators::DDBExp)->Arg(100)->Arg(1);
BENCHMARK_TEMPLATE(BM_DDB, integrators::DDBExp2)->Arg(100)->Arg(1);
// ddb-symmetric as registered by default: cayley, midpoint quadrature, symmetric processing on.
BENCHMARK_TEMPLATE(BM_DDB, DDBSymmetricCayley)->Arg(100)->Arg(1);
BENCHMARK_TEMPLATE(BM_DDB, integrators::MoserVeselov)->Arg(100)->Arg(1);
BENCHMARK(BM_RK4)->Arg(100)->Arg(1);
BENCHMARK_CAPTURE(BM_Registry, ddb_cayley, "ddb", "cayley")->Arg(100);
BENCHMARK_CAPTURE(BM_Registry, ddb_symmetric_cayley, "ddb-symmetric", "cayley")->Arg(100);
BENCHMARK_CAPTURE(BM_Registry, moser_veselov, "moser-veselov", "")->Arg(100);
BENCHMARK_CAPTURE(BM_Registry, rk4, "rk4", "")->Arg(100);
