// The discrete mechanics toolkit (issue 7, "Speed"): ns per step of the position-momentum DEL stepper
// (lievi::integrators::del::del_step) for the Kepler problem and the double pendulum, midpoint (order 2),
// trapezoid (order 2) and Lobatto IIIA-IIIB (order 4), each with the derivatives of L from the nested AD duals
// (the user writes L only) and from hand-written analytic derivatives (`derivatives` member), against explicit
// schemes of the same problem written here: Stormer-Verlet (Kepler: separable, explicit) and RK4 on the
// Euler-Lagrange ODE qdd = Lvv^-1 (Lq - Lqv^T qd) with the analytic derivatives. The double pendulum has a
// configuration-dependent mass matrix, so its Stormer-Verlet is implicit: that is the trapezoid DEL row.
//
// Names: DEL/<problem>/<method>/<derivatives>, Explicit/<problem>/<scheme>. One iteration = one step from the
// state the previous iteration left (the orbit continues); counters "newton_per_step" (Newton iterations per
// step) and "ns_per_step" (= the time per iteration). Before timing, each analytic model is checked against AD
// at the start state (all blocks to 1e-12 relative) and the benchmark is skipped with an error if it disagrees.
//
// Problems: Kepler L = |qd|^2/2 + 1/|q| from (1 - e, 0), (0, sqrt((1 + e)/(1 - e))), e = 0.5, h = 0.01;
// double pendulum m1 = m2 = 1, l1 = l2 = 1, g = 9.81 (angles from the downward vertical), from
// (q, qd) = ((1, 0.5), (0, 0)), h = 0.005.
#include <benchmark/benchmark.h>

#include <cmath>
#include <string>

#include "lievi/integrators/del/del_stepper.hpp"

namespace {

using namespace lievi::integrators::del;

// ---- models -----------------------------------------------------------------------------------------------

struct Kepler {
  static constexpr int dim = 2;
  template <class S>
  S L(const Eigen::Matrix<S, 2, 1>& q, const Eigen::Matrix<S, 2, 1>& v) const {
    using std::sqrt;
    return 0.5 * v.squaredNorm() + 1.0 / sqrt(q.squaredNorm());
  }
};

struct KeplerAnalytic : Kepler {
  [[nodiscard]] LagrangianDerivatives<2> derivatives(const Vec<2>& q, const Vec<2>& v) const {
    const double r2 = q.squaredNorm(), r = std::sqrt(r2), r3 = r2 * r;
    LagrangianDerivatives<2> d;
    d.L = 0.5 * v.squaredNorm() + 1.0 / r;
    d.Lq = -q / r3;
    d.Lv = v;
    d.Lqq = -(Mat<2>::Identity() / r3 - (3.0 / (r3 * r2)) * q * q.transpose());
    d.Lvv = Mat<2>::Identity();
    return d;
  }
};

constexpr double kM1 = 1.0, kM2 = 1.0, kL1 = 1.0, kL2 = 1.0, kG = 9.81;

struct DoublePendulum {
  static constexpr int dim = 2;
  template <class S>
  S L(const Eigen::Matrix<S, 2, 1>& q, const Eigen::Matrix<S, 2, 1>& v) const {
    using std::cos;
    return 0.5 * (kM1 + kM2) * kL1 * kL1 * v(0) * v(0) + 0.5 * kM2 * kL2 * kL2 * v(1) * v(1) +
           kM2 * kL1 * kL2 * v(0) * v(1) * cos(q(0) - q(1)) + (kM1 + kM2) * kG * kL1 * cos(q(0)) +
           kM2 * kG * kL2 * cos(q(1));
  }
};

struct DoublePendulumAnalytic : DoublePendulum {
  [[nodiscard]] LagrangianDerivatives<2> derivatives(const Vec<2>& q, const Vec<2>& v) const {
    const double c = std::cos(q(0) - q(1)), s = std::sin(q(0) - q(1)), k = kM2 * kL1 * kL2;
    const double ca = std::cos(q(0)), sa = std::sin(q(0)), cb = std::cos(q(1)), sb = std::sin(q(1));
    const double a1 = (kM1 + kM2) * kL1 * kL1, a2 = kM2 * kL2 * kL2, ga = (kM1 + kM2) * kG * kL1, gb = kM2 * kG * kL2;
    LagrangianDerivatives<2> d;
    d.L = 0.5 * a1 * v(0) * v(0) + 0.5 * a2 * v(1) * v(1) + k * v(0) * v(1) * c + ga * ca + gb * cb;
    d.Lq << -k * v(0) * v(1) * s - ga * sa, k * v(0) * v(1) * s - gb * sb;
    d.Lv << a1 * v(0) + k * v(1) * c, a2 * v(1) + k * v(0) * c;
    const double w = k * v(0) * v(1) * c;
    d.Lqq << -w - ga * ca, w, w, -w - gb * cb;
    d.Lqv << -k * v(1) * s, -k * v(0) * s, k * v(1) * s, k * v(0) * s;  // d2L / dq_i dv_j
    d.Lvv << a1, k * c, k * c, a2;
    return d;
  }
};

template <class P>
struct Problem;
template <>
struct Problem<Kepler> {
  static constexpr double h = 0.01;
  static DelState<2> start() {
    constexpr double e = 0.5;
    DelState<2> x;
    x.q << 1.0 - e, 0.0;
    x.p << 0.0, std::sqrt((1.0 + e) / (1.0 - e));  // p = qd for Kepler
    return x;
  }
};
template <>
struct Problem<DoublePendulum> {
  static constexpr double h = 0.005;
  static DelState<2> start() {
    DelState<2> x;
    x.q << 1.0, 0.5;
    x.p = legendre(DoublePendulum{}, x.q, Vec<2>::Zero());
    return x;
  }
};
template <>
struct Problem<KeplerAnalytic> : Problem<Kepler> {};
template <>
struct Problem<DoublePendulumAnalytic> : Problem<DoublePendulum> {};

/// The analytic derivatives agree with AD at the start state (relative 1e-12, every block).
template <class Analytic, class Plain>
bool analytic_matches_ad() {
  const DelState<2> x = Problem<Plain>::start();
  const Vec<2> v(0.3, -0.7);
  const auto a = Analytic{}.derivatives(x.q, v);
  const auto b = lagrangian_derivatives(Plain{}, x.q, v);
  const auto close = [](const auto& u, const auto& w) {
    return (u - w).norm() <= 1e-12 * (1.0 + w.norm());
  };
  return std::abs(a.L - b.L) <= 1e-12 * (1.0 + std::abs(b.L)) && close(a.Lq, b.Lq) && close(a.Lv, b.Lv) &&
         close(a.Lqq, b.Lqq) && close(a.Lqv, b.Lqv) && close(a.Lvv, b.Lvv);
}

template <class Method, class Model, class Plain = Model>
void BM_Del(benchmark::State& state) {
  if constexpr (HasAnalyticDerivatives<Model>) {
    if (!analytic_matches_ad<Model, Plain>()) {
      state.SkipWithError("analytic derivatives disagree with AD");
      return;
    }
  }
  const Model m{};
  DelState<2> x = Problem<Model>::start();
  const double h = Problem<Model>::h;
  long long newton = 0;
  bool ok = true;
  for (auto _ : state) {
    const lievi::StepResult r = del_step<Method>(m, x, h);
    ok = ok && r.converged;
    newton += r.iterations;
    benchmark::DoNotOptimize(x.q.data());
  }
  if (!ok) state.SkipWithError("a DEL step failed");
  const double it = static_cast<double>(state.iterations());
  state.counters["newton_per_step"] = static_cast<double>(newton) / it;
  state.counters["ns_per_step"] = benchmark::Counter(it * 1e-9, benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

// ---- explicit comparators ---------------------------------------------------------------------------------

/// Stormer-Verlet (velocity Verlet) for Kepler, qdd = -q / |q|^3: one force evaluation per step.
void BM_KeplerVerlet(benchmark::State& state) {
  DelState<2> x = Problem<Kepler>::start();
  const double h = Problem<Kepler>::h;
  const auto acc = [](const Vec<2>& q) -> Vec<2> {
    const double r2 = q.squaredNorm();
    return -q / (r2 * std::sqrt(r2));
  };
  Vec<2> a = acc(x.q);
  for (auto _ : state) {
    const Vec<2> ph = x.p + 0.5 * h * a;
    x.q += h * ph;
    a = acc(x.q);
    x.p = ph + 0.5 * h * a;
    benchmark::DoNotOptimize(x.q.data());
  }
  const double it = static_cast<double>(state.iterations());
  state.counters["ns_per_step"] = benchmark::Counter(it * 1e-9, benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

/// Classical RK4 on (q, qd) with qdd = Lvv^-1 (Lq - Lqv^T qd) from the analytic derivatives.
template <class Analytic>
void BM_Rk4(benchmark::State& state) {
  const Analytic m{};
  const DelState<2> x0 = Problem<Analytic>::start();
  const double h = Problem<Analytic>::h;
  Vec<2> q = x0.q, v;
  v = Vec<2>::Zero();
  (void)velocity_from_momentum(m, x0.q, x0.p, v);
  const auto rhs = [&](const Vec<2>& qq, const Vec<2>& vv) -> Vec<2> {
    const auto d = m.derivatives(qq, vv);
    return d.Lvv.inverse() * (d.Lq - d.Lqv.transpose() * vv);  // 2x2: closed-form inverse
  };
  for (auto _ : state) {
    const Vec<2> k1q = v, k1v = rhs(q, v);
    const Vec<2> k2q = v + 0.5 * h * k1v, k2v = rhs(q + 0.5 * h * k1q, k2q);
    const Vec<2> k3q = v + 0.5 * h * k2v, k3v = rhs(q + 0.5 * h * k2q, k3q);
    const Vec<2> k4q = v + h * k3v, k4v = rhs(q + h * k3q, k4q);
    q += (h / 6.0) * (k1q + 2.0 * k2q + 2.0 * k3q + k4q);
    v += (h / 6.0) * (k1v + 2.0 * k2v + 2.0 * k3v + k4v);
    benchmark::DoNotOptimize(q.data());
  }
  const double it = static_cast<double>(state.iterations());
  state.counters["ns_per_step"] = benchmark::Counter(it * 1e-9, benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

BENCHMARK(BM_Del<Midpoint, Kepler>)->Name("DEL/Kepler/midpoint/AD");
BENCHMARK(BM_Del<Midpoint, KeplerAnalytic, Kepler>)->Name("DEL/Kepler/midpoint/analytic");
BENCHMARK(BM_Del<Trapezoid, Kepler>)->Name("DEL/Kepler/trapezoid/AD");
BENCHMARK(BM_Del<Trapezoid, KeplerAnalytic, Kepler>)->Name("DEL/Kepler/trapezoid/analytic");
BENCHMARK(BM_Del<LobattoIIIAIIIB, Kepler>)->Name("DEL/Kepler/lobatto-iiia-iiib/AD");
BENCHMARK(BM_Del<LobattoIIIAIIIB, KeplerAnalytic, Kepler>)->Name("DEL/Kepler/lobatto-iiia-iiib/analytic");
BENCHMARK(BM_KeplerVerlet)->Name("Explicit/Kepler/stormer-verlet");
BENCHMARK(BM_Rk4<KeplerAnalytic>)->Name("Explicit/Kepler/rk4");
BENCHMARK(BM_Del<Midpoint, DoublePendulum>)->Name("DEL/DoublePendulum/midpoint/AD");
BENCHMARK(BM_Del<Midpoint, DoublePendulumAnalytic, DoublePendulum>)->Name("DEL/DoublePendulum/midpoint/analytic");
BENCHMARK(BM_Del<Trapezoid, DoublePendulum>)->Name("DEL/DoublePendulum/trapezoid/AD");
BENCHMARK(BM_Del<Trapezoid, DoublePendulumAnalytic, DoublePendulum>)->Name("DEL/DoublePendulum/trapezoid/analytic");
BENCHMARK(BM_Del<LobattoIIIAIIIB, DoublePendulum>)->Name("DEL/DoublePendulum/lobatto-iiia-iiib/AD");
BENCHMARK(BM_Del<LobattoIIIAIIIB, DoublePendulumAnalytic, DoublePendulum>)
    ->Name("DEL/DoublePendulum/lobatto-iiia-iiib/analytic");
BENCHMARK(BM_Rk4<DoublePendulumAnalytic>)->Name("Explicit/DoublePendulum/rk4");

}  // namespace
