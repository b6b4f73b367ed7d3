// DEL toolkit, long-time energy behaviour: 10^6 midpoint steps of the pendulum (L = qdot^2/2 + cos q) and of
// Kepler (e = 0.5); the energy error H(q_k, p_k) - H(q_0, p_0) stays bounded without drift. The run is split
// into 100 windows, the per-window maxima of |H_k - H_0| are fitted by least squares against the window
// centre time, and the slope is required below
//     slope_tol = 0.01 * mean(window maxima) / T_total
// i.e. the fitted drift over the whole run is < 1% of the bounded oscillation (which is O(h^2)). Control: a
// classical RK4 of the same Hamiltonian at the same cost drifts, its slope is far above slope_tol.
// Same-cost equivalence: count evaluations of the force (grad V) per unit time. The trapezoid DEL is
// Stormer-Verlet for these separable L (test_del.cpp), one force evaluation per step in its explicit form; RK4
// costs four, so RK4 at H = 4h has the same force evaluations per unit time as the variational method in its
// cheapest form. As a second, stricter control RK4 is also run at H = h: the library's implicit midpoint spends
// ~3 Newton iterations per step (measured, printed), i.e. 6 derivative evaluations per step counting the
// start guess, the initial residual and the momentum update, so RK4 at H = h costs less than the midpoint run and still drifts.
// Kepler uses analytic derivatives (checked against AD below) to keep the 10^6 steps fast.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <vector>

#include "lievi/integrators/del/del_stepper.hpp"
#include "support/del_models.hpp"

using namespace lievi::integrators::del;

namespace {

using Pendulum = lievi::test::del_models::Pendulum;
using KeplerAD = lievi::test::del_models::Kepler;
using KeplerAnalytic = lievi::test::del_models::KeplerAnalytic;

struct Drift {
  double slope = 0, mean_max = 0, max_err = 0, T = 0;
  [[nodiscard]] double tol() const { return 0.01 * mean_max / T; }
};

/// Least-squares slope of the per-window maxima of |err| against the window centre times.
Drift fit_drift(const std::vector<double>& wmax, double T) {
  const int nw = static_cast<int>(wmax.size());
  double sx = 0, sy = 0, sxx = 0, sxy = 0;
  Drift d;
  d.T = T;
  for (int i = 0; i < nw; ++i) {
    const double t = (i + 0.5) * T / nw, y = wmax[static_cast<std::size_t>(i)];
    sx += t, sy += y, sxx += t * t, sxy += t * y;
    d.max_err = std::max(d.max_err, y);
  }
  d.slope = (nw * sxy - sx * sy) / (nw * sxx - sx * sx);
  d.mean_max = sy / nw;
  return d;
}

constexpr int kWindows = 100;

template <class Method, class Model, class H>
Drift del_drift(const Model& m, DelState<Model::dim> x, double h, long steps, H&& ham, double& seconds,
                double& its_per_step) {
  const double H0 = ham(x.q, x.p);
  std::vector<double> wmax(kWindows, 0.0);
  const long per = steps / kWindows;
  long its = 0;
  const auto t0 = std::chrono::steady_clock::now();
  for (long k = 0; k < steps; ++k) {
    const auto r = del_step<Method>(m, x, h);
    if (!r.converged) {
      ADD_FAILURE() << "step " << k << ": " << r.message;
      break;
    }
    its += r.iterations;
    auto& w = wmax[static_cast<std::size_t>(k / per)];
    w = std::max(w, std::abs(ham(x.q, x.p) - H0));
  }
  seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  its_per_step = static_cast<double>(its) / static_cast<double>(steps);
  return fit_drift(wmax, static_cast<double>(steps) * h);
}

/// Classical RK4 on z = (q, p), z' = (p, -grad V(q)), `steps` steps of size H.
template <int n, class GradV, class Ham>
Drift rk4_drift(Vec<n> q, Vec<n> p, double H, long steps, GradV&& gradV, Ham&& ham) {
  const double H0 = ham(q, p);
  std::vector<double> wmax(kWindows, 0.0);
  const long per = steps / kWindows;
  for (long k = 0; k < steps; ++k) {
    const Vec<n> k1q = p, k1p = -gradV(q);
    const Vec<n> k2q = p + 0.5 * H * k1p, k2p = -gradV(Vec<n>(q + 0.5 * H * k1q));
    const Vec<n> k3q = p + 0.5 * H * k2p, k3p = -gradV(Vec<n>(q + 0.5 * H * k2q));
    const Vec<n> k4q = p + H * k3p, k4p = -gradV(Vec<n>(q + H * k3q));
    q += H / 6 * (k1q + 2 * k2q + 2 * k3q + k4q);
    p += H / 6 * (k1p + 2 * k2p + 2 * k3p + k4p);
    auto& w = wmax[static_cast<std::size_t>(k / per)];
    w = std::max(w, std::abs(ham(q, p) - H0));
  }
  return fit_drift(wmax, static_cast<double>(steps) * H);
}

void report(const char* name, const Drift& d) {
  std::printf("  %-22s max |dH| %.3e, mean window max %.3e, slope %.3e /time, slope_tol %.3e, slope/tol %.3g\n",
              name, d.max_err, d.mean_max, d.slope, d.tol(), std::abs(d.slope) / d.tol());
}

}  // namespace

TEST(DelEnergy, PendulumMidpointNoDrift) {
  const double h = 0.05;
  const long N = 1000000;  // T = 5e4 (about 6000 periods of the amplitude-2 pendulum)
  DelState<1> x;
  x.q(0) = 2.0;  // large amplitude: strongly nonlinear
  auto ham = [](const Vec<1>& q, const Vec<1>& p) { return 0.5 * p(0) * p(0) - std::cos(q(0)); };
  double sec = 0, its = 0;
  const Drift dm = del_drift<Midpoint>(Pendulum{}, x, h, N, ham, sec, its);
  const Drift dr = rk4_drift<1>(x.q, x.p, 4 * h, N / 4, [](const Vec<1>& q) { return Vec<1>(std::sin(q(0))); }, ham);
  std::printf("pendulum q0 = 2, h = %.3g, %ld steps (%.2f s, %.2f Newton its/step), RK4 H = 4h:\n", h, N, sec, its);
  report("midpoint (AD)", dm);
  report("RK4", dr);
  std::printf("  RK4 slope / midpoint slope_tol = %.3g\n", std::abs(dr.slope) / dm.tol());
  const Drift dr1 = rk4_drift<1>(x.q, x.p, h, N, [](const Vec<1>& q) { return Vec<1>(std::sin(q(0))); }, ham);
  report("RK4, H = h", dr1);
  std::printf("  RK4 (H = h) slope / midpoint slope_tol = %.3g\n", std::abs(dr1.slope) / dm.tol());
  EXPECT_LT(std::abs(dm.slope), dm.tol());
  // the control fails the same criterion by a wide margin (stated: > 100x the midpoint tolerance at H = 4h,
  // > 1x at H = h, where RK4's energy error is 4^4 = 256 times smaller)
  EXPECT_GT(std::abs(dr.slope), 100 * dm.tol());
  EXPECT_GT(std::abs(dr1.slope), dm.tol());
}

TEST(DelEnergy, KeplerAnalyticDerivativesMatchAD) {
  // analytic Kepler derivatives vs AD at generic points (AD is exact to round-off; terms of size ~1/r^3 ~ 10)
  for (const Vec<2>& q : {Vec<2>(0.5, 0.1), Vec<2>(-1.2, 0.7), Vec<2>(0.3, -1.4)}) {
    const Vec<2> v(0.4, -1.1);
    const auto a = lagrangian_derivatives(KeplerAD{}, q, v), b = lagrangian_derivatives(KeplerAnalytic{}, q, v);
    EXPECT_NEAR(a.L, b.L, 1e-14);
    EXPECT_LT((a.Lq - b.Lq).cwiseAbs().maxCoeff(), 1e-13);
    EXPECT_LT((a.Lqq - b.Lqq).cwiseAbs().maxCoeff(), 1e-13);
    EXPECT_LT((a.Lv - b.Lv).cwiseAbs().maxCoeff(), 1e-15);
    EXPECT_LT((a.Lqv - b.Lqv).cwiseAbs().maxCoeff(), 1e-15);
    EXPECT_LT((a.Lvv - b.Lvv).cwiseAbs().maxCoeff(), 1e-15);
  }
}

TEST(DelEnergy, KeplerMidpointNoDrift) {
  // h = 0.02 so that the RK4 control at H = 4h = 0.08 still resolves the periapsis (r = 0.5, local time scale
  // r^{3/2} = 0.35); at H = 0.2 RK4 is merely wrong, not drifting.
  const double h = 0.02;
  const long N = 1000000;  // T = 2e4, about 3200 orbits of the a = 1, e = 0.5 ellipse
  DelState<2> x;
  x.q = Vec<2>(0.5, 0.0);
  x.p = Vec<2>(0.0, std::sqrt(3.0));
  auto ham = [](const Vec<2>& q, const Vec<2>& p) { return 0.5 * p.squaredNorm() - 1.0 / q.norm(); };
  double sec = 0, its = 0;
  const Drift dm = del_drift<Midpoint>(KeplerAnalytic{}, x, h, N, ham, sec, its);
  const Drift dr = rk4_drift<2>(
      x.q, x.p, 4 * h, N / 4, [](const Vec<2>& q) { return Vec<2>(q / std::pow(q.squaredNorm(), 1.5)); }, ham);
  std::printf("Kepler e = 0.5, h = %.3g, %ld steps (%.2f s, %.2f Newton its/step), RK4 H = 4h:\n", h, N, sec, its);
  report("midpoint (analytic)", dm);
  report("RK4", dr);
  std::printf("  RK4 slope / midpoint slope_tol = %.3g\n", std::abs(dr.slope) / dm.tol());
  const Drift dr1 = rk4_drift<2>(
      x.q, x.p, h, N, [](const Vec<2>& q) { return Vec<2>(q / std::pow(q.squaredNorm(), 1.5)); }, ham);
  report("RK4, H = h", dr1);
  std::printf("  RK4 (H = h) slope / midpoint slope_tol = %.3g\n", std::abs(dr1.slope) / dm.tol());
  EXPECT_LT(std::abs(dm.slope), dm.tol());
  EXPECT_GT(std::abs(dr.slope), 100 * dm.tol());
  EXPECT_GT(std::abs(dr1.slope), dm.tol());
}

TEST(DelEnergy, KeplerTrapezoidAndLobattoNoDrift) {
  // Trapezoid 10^6 steps (h = 0.02, T = 2e4), Lobatto 2*10^5 steps (h = 0.1, T = 2e4); same criterion.
  DelState<2> x;
  x.q = Vec<2>(0.5, 0.0);
  x.p = Vec<2>(0.0, std::sqrt(3.0));
  auto ham = [](const Vec<2>& q, const Vec<2>& p) { return 0.5 * p.squaredNorm() - 1.0 / q.norm(); };
  double sec = 0, its = 0;
  const Drift dt = del_drift<Trapezoid>(KeplerAnalytic{}, x, 0.02, 1000000, ham, sec, its);
  std::printf("Kepler trapezoid h = 0.02, 1e6 steps (%.2f s, %.2f its/step):\n", sec, its);
  report("trapezoid", dt);
  EXPECT_LT(std::abs(dt.slope), dt.tol());
  const Drift dl = del_drift<LobattoIIIAIIIB>(KeplerAnalytic{}, x, 0.1, 200000, ham, sec, its);
  std::printf("Kepler lobatto h = 0.1, 2e5 steps (%.2f s, %.2f its/step):\n", sec, its);
  report("lobatto", dl);
  EXPECT_LT(std::abs(dl.slope), dl.tol());
}
