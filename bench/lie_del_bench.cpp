// Lie-group DEL (issue 29, "Benchmark"): ns per step of the heavy top with integrators::lie_del::LieDel, Cayley
// and exp, full (R, p) and reduced (Pi, Gamma) forms, with ell differentiated by jets (the user writes ell and V
// only) and with analytic derivatives (`ell_derivatives`, `grad_V` members), against one RK4 step of the same
// system's continuous equations written here: dPi/dt = Pi × Omega + m g Gamma × chi, dGamma/dt = Gamma × Omega
// (reduced), and with the attitude dR/dt = R hat(Omega) (full).
//
// Names: LieDel/<form>/<retraction>/<derivatives>, RK4/<form>. One iteration = one step from the state the
// previous iteration left; counters "newton_per_step" and "ns_per_step".
// Heavy top: I = diag(1, 0.8, 0.4) with I_12 = 0.05, m = 1, g = 9.81, chi = (0.05, 0.02, 0.5); R_0 = exp(0.4, 0.1,
// 0), Omega_0 = (0.5, -0.3, 6); h = 0.01.
#include <benchmark/benchmark.h>

#include "lievi/integrators/lie_del/lie_del.hpp"
#include "lievi/lie/retraction/cayley.hpp"
#include "lievi/lie/retraction/exp.hpp"
#include "lievi/models/lie_mechanics.hpp"

namespace {

using namespace lievi;
using integrators::lie_del::AdvectedState;
using integrators::lie_del::KineticDerivatives;
using integrators::lie_del::LieDel;
using integrators::lie_del::LieDelState;
using lie::Mat3;
using lie::SO3;
using lie::Vec3;
using models::lie_mechanics::HeavyTop;

HeavyTop top() {
  HeavyTop m;
  m.I = Vec3(1.0, 0.8, 0.4).asDiagonal();
  m.I(0, 1) = m.I(1, 0) = 0.05;
  m.chi = Vec3(0.05, 0.02, 0.5);
  return m;
}

/// The heavy top with hand-written derivatives: mu = I Omega, ell'' = I, grad_V = m g chi × (R^T e3).
struct HeavyTopAnalytic : HeavyTop {
  [[nodiscard]] KineticDerivatives<3> ell_derivatives(const Vec3& Omega) const {
    KineticDerivatives<3> d;
    d.mu = I * Omega;
    d.ell = 0.5 * Omega.dot(d.mu);
    d.ell_xixi = I;
    return d;
  }
  [[nodiscard]] Vec3 grad_V(const SO3& R) const { return grad_V_reduced(R.matrix().row(2).transpose()); }
};

constexpr double h = 0.01;

LieDelState<SO3> start() {
  LieDelState<SO3> x;
  x.g = lie::Exp<SO3>::tau(Vec3(0.4, 0.1, 0.0));
  x.p = top().I * Vec3(0.5, -0.3, 6.0);
  return x;
}

template <class Model, class R>
void BM_full(benchmark::State& st) {
  Model m;
  static_cast<HeavyTop&>(m) = top();
  LieDel<Model, R> s(m);
  LieDelState<SO3> x = start();
  long newton = 0;
  for (auto _ : st) {
    const StepResult r = s.step(x, h);
    newton += r.iterations;
    if (!r.converged) st.SkipWithError(r.message);
    benchmark::DoNotOptimize(x.p.data());
  }
  st.counters["newton_per_step"] = benchmark::Counter(static_cast<double>(newton), benchmark::Counter::kAvgIterations);
  st.counters["ns_per_step"] = benchmark::Counter(static_cast<double>(st.iterations()) * 1e-9,
                                                  benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

template <class Model, class R>
void BM_reduced(benchmark::State& st) {
  Model m;
  static_cast<HeavyTop&>(m) = top();
  LieDel<Model, R> s(m);
  const LieDelState<SO3> x0 = start();
  AdvectedState y{x0.p, x0.g.matrix().transpose() * Vec3::UnitZ(), 0.0};
  long newton = 0;
  for (auto _ : st) {
    const StepResult r = s.advected_step(y, h);
    newton += r.iterations;
    if (!r.converged) st.SkipWithError(r.message);
    benchmark::DoNotOptimize(y.Pi.data());
  }
  st.counters["newton_per_step"] = benchmark::Counter(static_cast<double>(newton), benchmark::Counter::kAvgIterations);
  st.counters["ns_per_step"] = benchmark::Counter(static_cast<double>(st.iterations()) * 1e-9,
                                                  benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

/// RK4 of the reduced equations (Pi, Gamma), or of (Pi, Gamma, R) with dR/dt = R hat(Omega).
template <bool with_attitude>
void BM_rk4(benchmark::State& st) {
  const HeavyTop m = top();
  const Mat3 I_inv = m.I.inverse();
  const double mg = m.m * m.g;
  const LieDelState<SO3> x0 = start();
  Vec3 Pi = x0.p, Gamma = x0.g.matrix().transpose() * Vec3::UnitZ();
  Mat3 R = x0.g.matrix();
  const auto f = [&](const Vec3& P, const Vec3& G, const Mat3& Rm, Vec3& dP, Vec3& dG, Mat3& dR) {
    const Vec3 W = I_inv * P;
    dP = P.cross(W) + mg * G.cross(m.chi);
    dG = G.cross(W);
    if constexpr (with_attitude) dR = Rm * lie::hat(W);
  };
  for (auto _ : st) {
    Vec3 a1, b1, a2, b2, a3, b3, a4, b4;
    Mat3 c1, c2, c3, c4;
    f(Pi, Gamma, R, a1, b1, c1);
    f(Pi + 0.5 * h * a1, Gamma + 0.5 * h * b1, R + 0.5 * h * c1, a2, b2, c2);
    f(Pi + 0.5 * h * a2, Gamma + 0.5 * h * b2, R + 0.5 * h * c2, a3, b3, c3);
    f(Pi + h * a3, Gamma + h * b3, R + h * c3, a4, b4, c4);
    Pi += (h / 6) * (a1 + 2 * a2 + 2 * a3 + a4);
    Gamma += (h / 6) * (b1 + 2 * b2 + 2 * b3 + b4);
    if constexpr (with_attitude) R += (h / 6) * (c1 + 2 * c2 + 2 * c3 + c4);
    benchmark::DoNotOptimize(Pi.data());
    benchmark::DoNotOptimize(R.data());
  }
  st.counters["ns_per_step"] = benchmark::Counter(static_cast<double>(st.iterations()) * 1e-9,
                                                  benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

using Cay = lie::Cayley<SO3>;
using Ex = lie::Exp<SO3>;
BENCHMARK(BM_full<HeavyTop, Cay>)->Name("LieDel/full/cayley/jet");
BENCHMARK(BM_full<HeavyTop, Ex>)->Name("LieDel/full/exp/jet");
BENCHMARK(BM_full<HeavyTopAnalytic, Cay>)->Name("LieDel/full/cayley/analytic");
BENCHMARK(BM_full<HeavyTopAnalytic, Ex>)->Name("LieDel/full/exp/analytic");
BENCHMARK(BM_reduced<HeavyTop, Cay>)->Name("LieDel/reduced/cayley/jet");
BENCHMARK(BM_reduced<HeavyTop, Ex>)->Name("LieDel/reduced/exp/jet");
BENCHMARK(BM_reduced<HeavyTopAnalytic, Cay>)->Name("LieDel/reduced/cayley/analytic");
BENCHMARK(BM_reduced<HeavyTopAnalytic, Ex>)->Name("LieDel/reduced/exp/analytic");
BENCHMARK(BM_rk4<true>)->Name("RK4/full");
BENCHMARK(BM_rk4<false>)->Name("RK4/reduced");

}  // namespace
