// ns per step of the DDB on se(3)* (Kirchhoff's body in an ideal fluid, integrators/ddb_group.hpp, and the symmetric
// DDB of ddb_group_symmetric.hpp) against the
// DDB on so(3)* (Scenario A of the rigid body, integrators/ddb.hpp and the generic DDBGroup<SO3>), Cayley and exp,
// h = 0.01. The Kirchhoff body is tests/kirchhoff/kirchhoff_support.hpp's (J = (1.1, 1.6, 0.8),
// D = (1.2, 1.8, 2.5), alpha = 0.5, mu_0 = (0.3, 0.1, 0.8, 0.5, 0.4, 0.2)); runs restart at mu_0 every t = 30.
#include <benchmark/benchmark.h>

#include <cmath>

#include "lievi/integrators/ddb.hpp"
#include "lievi/integrators/ddb_group.hpp"
#include "lievi/integrators/ddb_group_symmetric.hpp"
#include "lievi/models/kirchhoff.hpp"

namespace {

using namespace lievi;

models::Kirchhoff kirchhoff_body() {
  models::Kirchhoff k;
  k.inertia = lie::Vec3(1.0, 1.4, 0.5);
  k.added_inertia = lie::Vec3(0.1, 0.2, 0.3);
  k.mass = 1.0;
  k.added_mass = lie::Vec3(0.2, 0.8, 1.5);
  k.alpha_rot = k.alpha_trans = 0.5;
  return k;
}

constexpr double h = 0.01;
constexpr long n_run = 3000;  // t in [0, 30]

template <class Core, class State, class Model>
void run(benchmark::State& state, const Model& model, const State& x0) {
  Core ddb(model);
  State x = x0;
  ddb.start();
  long k = 0, iterations = 0;
  for (auto _ : state) {
    const StepResult r = ddb.step(x, h);
    iterations += r.iterations;
    benchmark::DoNotOptimize(x);
    if (++k == n_run) {
      k = 0;
      x = x0;
      ddb.start();
    }
  }
  state.counters["newton_it"] = benchmark::Counter(static_cast<double>(iterations) / state.iterations());
}

template <class R>
void BM_DDB_SE3(benchmark::State& state) {
  models::LiePoissonState<lie::SE3> x0;
  x0.mu << 0.3, 0.1, 0.8, 0.5, 0.4, 0.2;
  run<integrators::DDBGroup<lie::SE3, R>>(state, kirchhoff_body().system(), x0);
}

template <class R>
void BM_DDBSymmetric_SE3(benchmark::State& state) {
  using Core = integrators::DDBGroupSymmetric<lie::SE3, R>;
  models::LiePoissonState<lie::SE3> x0;
  x0.mu << 0.3, 0.1, 0.8, 0.5, 0.4, 0.2;
  Core ddb(kirchhoff_body().system());
  auto x = x0;
  ddb.start(x0, h);
  long k = 0, iterations = 0;
  for (auto _ : state) {
    const StepResult r = ddb.step(x, h);
    iterations += r.iterations;
    benchmark::DoNotOptimize(x);
    if (++k == n_run) {
      k = 0;
      x = x0;
      ddb.start(x0, h);
    }
  }
  state.counters["newton_it"] = benchmark::Counter(static_cast<double>(iterations) / state.iterations());
}

template <class R>
void BM_DDBGroup_SO3(benchmark::State& state) {
  const auto body = models::RigidBody::principal({1.0, 1.3, 0.5}, 0.5);
  models::LiePoissonState<lie::SO3> x0;
  x0.mu = body.I * lie::Vec3(0.0, 0.05, 1.0);
  run<integrators::DDBGroup<lie::SO3, R>>(state, models::QuadraticLiePoisson<lie::SO3>::make(body.I, body.K), x0);
}

template <class R>
void BM_DDB_SO3(benchmark::State& state) {
  const auto body = models::RigidBody::principal({1.0, 1.3, 0.5}, 0.5);
  integrators::DDB<R> ddb(body);
  models::RigidBodyState x0;
  x0.M = body.I * lie::Vec3(0.0, 0.05, 1.0);
  models::RigidBodyState x = x0;
  ddb.start(x, h);
  long k = 0, iterations = 0;
  for (auto _ : state) {
    const StepResult r = ddb.step(x, h);
    iterations += r.iterations;
    benchmark::DoNotOptimize(x);
    if (++k == n_run) {
      k = 0;
      x = x0;
      ddb.start(x, h);
    }
  }
  state.counters["newton_it"] = benchmark::Counter(static_cast<double>(iterations) / state.iterations());
}

BENCHMARK(BM_DDB_SE3<lie::Cayley<lie::SE3>>);
BENCHMARK(BM_DDB_SE3<lie::Exp<lie::SE3>>);
BENCHMARK(BM_DDBSymmetric_SE3<lie::Cayley<lie::SE3>>);
BENCHMARK(BM_DDBSymmetric_SE3<lie::Exp<lie::SE3>>);
BENCHMARK(BM_DDBGroup_SO3<lie::Cayley<lie::SO3>>);
BENCHMARK(BM_DDBGroup_SO3<lie::Exp<lie::SO3>>);
BENCHMARK(BM_DDB_SO3<lie::Cayley<lie::SO3>>);
BENCHMARK(BM_DDB_SO3<lie::Exp<lie::SO3>>);

}  // namespace
