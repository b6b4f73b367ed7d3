// DOP853 (lievi/integrators/ode/dop853.hpp): the coefficient table's order conditions, the measured order 8 of
// the fixed-step formula, the adaptive error against the long-double Taylor reference on Scenario A for
// rtol = atol in {1e-8, 1e-10, 1e-12}, agreement with SciPy's DOP853 (an independent implementation), the
// attitude's orthogonality, output-interval stepping (dense output and the landing mode), the 7th-order dense
// output (against SciPy's dense output and the Taylor reference), and failure reporting.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "lievi/integrators/ode/dop853.hpp"
#include "lievi/integrators/ode/rk4.hpp"
#include "lievi/integrators/rigid_body_stepper.hpp"
#include "lievi/reference/rigid_body_taylor.hpp"
#include "support/convergence.hpp"
#include "support/rigid_body_scenarios.hpp"

using namespace lievi;
using integrators::Dop853;
using models::Mat3;
using models::Vec3;

namespace {

/// Output times 1, 2, ..., T.
std::vector<double> unit_times(double T) {
  std::vector<double> t;
  for (int i = 1; i <= static_cast<int>(T); ++i) t.push_back(i);
  return t;
}

struct AdaptiveRun {
  double err = INFINITY;   ///< max_i ||M(t_i) - ref(t_i)||_inf
  double orth = INFINITY;  ///< max_i ||R^T R - I||_max
  long accepted = 0, rejected = 0;
  std::vector<Vec3> M;     ///< M at the output times
};

/// Adaptive DOP853 on `s` with rtol = atol = tol, output every H up to t_end, compared with ref at t = 1, 2, ....
/// Dense output (the default) unless `dense` is false (landing on every output time).
AdaptiveRun run_adaptive(const test::RigidBodyScenario& s, double tol, double H, const std::vector<Vec3>& ref,
                         bool dense = true) {
  integrators::Dop853Options o{tol, tol};
  o.dense_output = dense;
  Dop853 dop(s.body, o);
  models::RigidBodyState x;
  x.M = s.M0;
  dop.start(x, H);
  AdaptiveRun run;
  run.err = run.orth = 0.0;
  const long per_unit = std::lround(1.0 / H);
  for (const Vec3& r : ref) {
    for (long k = 0; k < per_unit; ++k) {
      const StepResult res = dop.step(x, H);
      if (!res.converged) {
        run.err = INFINITY;
        return run;
      }
    }
    run.M.push_back(x.M);
    run.err = std::max(run.err, (x.M - r).cwiseAbs().maxCoeff());
    run.orth = std::max(run.orth, (x.R.transpose() * x.R - Mat3::Identity()).cwiseAbs().maxCoeff());
  }
  run.accepted = dop.accepted_steps();
  run.rejected = dop.rejected_steps();
  return run;
}

}  // namespace

// The coefficient table through the method itself, on a problem with a closed-form solution: with M along a
// principal axis (f(M) = 0, Omega = (0, 0, 1) constant) the attitude equation dR/dt = R hat(Omega) is linear with
// constant coefficients, R(h) = a rotation by h about e3, and one step is R times the method's stability
// polynomial of h hat(Omega). Order 8 means it matches exp up to h^8, so the one-step error is O(h^9); a wrongly
// transcribed digit in a or b breaks a low-order condition and shows up far above these bounds.
TEST(Dop853, FixedStepOnLinearProblemMatchesRotation) {
  const auto b = models::RigidBody::principal({1.0, 1.3, 0.5}, 0.5);
  const Vec3 M(0.0, 0.0, 0.5);  // along e3: Omega = (0, 0, 1), M x Omega = 0
  double e_prev = 0.0;
  for (double h : {0.5, 0.25}) {
    models::RigidBodyState x;
    x.M = M;
    ASSERT_TRUE(Dop853::fixed_step(b, x, h).converged);
    Mat3 exact;
    exact << std::cos(h), -std::sin(h), 0.0, std::sin(h), std::cos(h), 0.0, 0.0, 0.0, 1.0;
    const double err = (x.R - exact).cwiseAbs().maxCoeff();
    std::printf("DOP853 one fixed step on the linear problem, h = %g: error %.3e\n", h, err);
    // Measured 1.2e-10 at h = 0.5 and 2.4e-13 at 0.25 (below the Taylor remainder h^9/9!: 5e-9, 1e-11); bounds
    // 1e-9 and 2e-12. An order-7 table would leave ~h^8/8! = 1e-7 at h = 0.5.
    EXPECT_LT(err, h > 0.3 ? 1e-9 : 2e-12) << "h = " << h;
    EXPECT_EQ(x.M, M);
    // The one-step error scales as h^9: log2 of the ratio between h = 0.5 and 0.25 in [8.5, 9.5] (measured 8.96).
    if (e_prev > 0.0) {
      EXPECT_GT(std::log2(e_prev / err), 8.5);
      EXPECT_LT(std::log2(e_prev / err), 9.5);
    }
    e_prev = err;
  }
}

// The fixed-step formula (no error control) on Scenario A: measured order 8 against the Taylor reference.
TEST(Dop853, FixedStepEighthOrderOnScenarioA) {
  const auto s = test::scenario_A();
  const auto t = unit_times(s.t_end);
  const auto ref = reference::taylor_dense(s.body, s.M0, t);
  // 1/h integer (so every output time is hit); errors 4e-11 .. 1e-13, above the round-off floor (~1e-15).
  const std::vector<double> h = {0.5, 1.0 / 3.0, 0.25};
  std::vector<double> e;
  for (double hh : h) {
    models::RigidBodyState x;
    x.M = s.M0;
    const long per_unit = std::lround(1.0 / hh);
    double err = 0;
    for (const Vec3& r : ref) {
      for (long k = 0; k < per_unit; ++k) ASSERT_TRUE(Dop853::fixed_step(s.body, x, hh).converged);
      err = std::max(err, (x.M - r).cwiseAbs().maxCoeff());
    }
    e.push_back(err);
  }
  std::printf("DOP853 fixed step, scenario A:\n%s", test::order_table(h, e).c_str());
  // Pairwise orders in [7.3, 8.7]: order 7 or 9 would fall outside; the smallest error stays well above the
  // ~1e-15 round-off floor (checked here too, so the fit is not polluted by it).
  for (double p : test::pairwise_orders(h, e)) {
    EXPECT_GT(p, 7.3) << test::order_table(h, e);
    EXPECT_LT(p, 8.7) << test::order_table(h, e);
  }
  EXPECT_GT(e.back(), 1e-13) << test::order_table(h, e);
}

// Adaptive DOP853 on Scenario A, output at t = 1..30, rtol = atol = tol: the global error is below a small multiple
// of tol and decreases with tol; R stays orthogonal to within the tolerance.
TEST(Dop853, AdaptiveErrorBelowToleranceOnScenarioA) {
  const auto s = test::scenario_A();
  const auto ref = reference::taylor_dense(s.body, s.M0, unit_times(s.t_end));
  double prev = INFINITY;
  for (double tol : {1e-8, 1e-10, 1e-12}) {
    const AdaptiveRun run = run_adaptive(s, tol, 1.0, ref);
    std::printf("DOP853 tol = %.0e: max error %.3e (%.2f tol), |R^T R - I| %.3e, steps %ld accepted, %ld rejected\n",
                tol, run.err, run.err / tol, run.orth, run.accepted, run.rejected);
    // The momentum error is below tol itself (measured 0.07-0.13 tol with the dense output, 0.03-0.04 tol landing on
    // the output times: the error norm also controls R, whose entries are ~1, and the flow contracts towards the
    // equilibrium); a wrong error estimate or controller breaks it.
    EXPECT_LT(run.err, tol);
    // R is part of the controlled state, returned as interpolated (no re-orthonormalisation): its orthogonality
    // defect is the dense output's error in R (measured 9-17 tol; at step ends, the landing mode, 0.6-1.4 tol);
    // 40 tol allows for the accumulation over 30 time units. A wrong attitude coefficient gives O(h^4) >> 40 tol.
    EXPECT_LT(run.orth, 40.0 * tol);
    // Error decreases with the tolerance (by at least 10x per 100x in tol: the 1/8 power of the controller
    // makes it close to proportional).
    EXPECT_LT(run.err, prev / 10.0);
    prev = run.err;
  }
}

// The attitude against an independent code: RK4 at h = 1/320 (error ~1e-12 at t = 30, order 4 for (M, R)) and
// DOP853 at rtol = atol = 1e-12 agree on R(30).
TEST(Dop853, AttitudeMatchesRK4) {
  const auto s = test::scenario_A();
  models::RigidBodyState x, y;
  x.M = y.M = s.M0;
  Dop853 dop(s.body, integrators::Dop853Options{1e-12, 1e-12});
  dop.start(x, 1.0);
  for (int k = 0; k < 30; ++k) ASSERT_TRUE(dop.step(x, 1.0).converged);
  const double h = 1.0 / 320.0;
  for (int k = 0; k < 9600; ++k) ASSERT_TRUE(integrators::RK4::step(s.body, y, h).converged);
  const double dR = (x.R - y.R).cwiseAbs().maxCoeff();
  std::printf("DOP853 tol = 1e-12 vs RK4 h = 1/320: |R - R_rk4| = %.3e, |M - M_rk4| = %.3e\n", dR,
              (x.M - y.M).cwiseAbs().maxCoeff());
  // Measured 6.3e-12 with R(30) interpolated (3.3e-12, RK4's own error, when landing on t = 30); 3e-11 leaves a
  // 5x margin, while a wrong attitude equation or packing of R gives O(1).
  EXPECT_LT(dR, 3e-11);
}

// Rejections: a step size carried from a long, slow stretch (the approach to the equilibrium of Scenario B, where
// the steps grow) is far too large when the state jumps back to M0; the controller rejects and shrinks it, and the
// result still meets the tolerance.
TEST(Dop853, RejectsAndRecoversFromTooLargeCarriedStep) {
  const auto s = test::scenario_A();
  const double tol = 1e-10;
  Dop853 dop(s.body, integrators::Dop853Options{tol, tol});
  models::RigidBodyState x;
  x.M = s.M0;
  dop.start(x, 250.0);
  ASSERT_TRUE(dop.step(x, 250.0).converged);
  const double h_carried = dop.internal_step();
  x = models::RigidBodyState{};
  x.M = s.M0;
  const long rejected_before = dop.rejected_steps();
  ASSERT_TRUE(dop.step(x, 30.0).converged);
  const Vec3 ref = reference::taylor_reference(s.body, s.M0, 30.0);
  std::printf("DOP853 carried step %.3g: %ld rejections, error at t = 30: %.3e\n", h_carried,
              dop.rejected_steps() - rejected_before, (x.M - ref).cwiseAbs().maxCoeff());
  // Near the equilibrium the steps grow (measured 0.98; R still rotates, which bounds them) beyond the ~0.4 that
  // Scenario A needs at t = 0 at this tolerance (78 steps over 30).
  EXPECT_GT(h_carried, 0.6);
  EXPECT_GT(dop.rejected_steps(), rejected_before);
  // As in AdaptiveErrorBelowToleranceOnScenarioA: below tol.
  EXPECT_LT((x.M - ref).cwiseAbs().maxCoeff(), tol);
}

// Landing mode (dense_output = false, the former behaviour): output every 0.1 (the paper's dt) gives the same
// accuracy as output every 1, and every call lands exactly on its end time (no drift of the output grid: the last
// output equals the t = 30 reference).
TEST(Dop853, LandingModeOutputIntervalsDoNotChangeAccuracy) {
  const auto s = test::scenario_A();
  const auto ref = reference::taylor_dense(s.body, s.M0, unit_times(s.t_end));
  const double tol = 1e-10;
  const AdaptiveRun coarse = run_adaptive(s, tol, 1.0, ref, false);
  const AdaptiveRun fine = run_adaptive(s, tol, 0.1, ref, false);
  std::printf("DOP853 landing, tol = 1e-10: error %.3e (output every 1), %.3e (every 0.1); steps %ld vs %ld\n",
              coarse.err, fine.err, coarse.accepted, fine.accepted);
  // Landing on 300 output times only shortens steps: the error stays below tol (as above).
  EXPECT_LT(fine.err, tol);
  // Each call needs at least one step; the carried step size means not many more than one per call.
  EXPECT_GE(fine.accepted, 300);
  EXPECT_LT(fine.accepted, 2 * 300 + coarse.accepted);
}

/// Dense-output DOP853 on `s` (rtol = atol = tol), n_out calls of step(x, H): the max error of M against the
/// Taylor reference over all n_out output times k H, and the step counts.
struct DenseRun {
  double err = INFINITY, orth = INFINITY;
  long accepted = 0, rejected = 0, evaluations = 0;
  models::RigidBodyState last;
  std::vector<Mat3> R;  ///< R at the output times
};
DenseRun run_dense(const test::RigidBodyScenario& s, const integrators::Dop853Options& o, double H, long n_out,
                   bool compare = true) {
  std::vector<double> t;
  for (long k = 1; k <= n_out; ++k) t.push_back(static_cast<double>(k) * H);
  const auto ref = compare ? reference::taylor_dense(s.body, s.M0, t) : std::vector<Vec3>{};
  Dop853 dop(s.body, o);
  models::RigidBodyState x;
  x.M = s.M0;
  dop.start(x, H);
  DenseRun run;
  run.err = run.orth = 0.0;
  for (long k = 0; k < n_out; ++k) {
    if (!dop.step(x, H).converged) {
      run.err = INFINITY;
      return run;
    }
    if (compare) run.err = std::max(run.err, (x.M - ref[static_cast<std::size_t>(k)]).cwiseAbs().maxCoeff());
    run.orth = std::max(run.orth, (x.R.transpose() * x.R - Mat3::Identity()).cwiseAbs().maxCoeff());
    run.R.push_back(x.R);
  }
  run.accepted = dop.accepted_steps();
  run.rejected = dop.rejected_steps();
  run.evaluations = dop.evaluations();
  run.last = x;
  return run;
}

// Dense output (the default): the interpolated M at every output time is below the tolerance against the Taylor
// reference, for rtol = atol = 1e-8 and 1e-10, with output every 0.1 (300 outputs) and every 0.0371 (808 outputs,
// off any grid of the natural steps, so almost every output is interpolated inside a step).
TEST(Dop853, DenseOutputErrorBelowToleranceAtEveryOutput) {
  const auto s = test::scenario_A();
  for (double tol : {1e-8, 1e-10}) {
    for (double H : {0.1, 0.0371}) {
      const long n_out = static_cast<long>(s.t_end / H);
      const DenseRun run = run_dense(s, integrators::Dop853Options{tol, tol}, H, n_out);
      // R reference (the Taylor reference has M only): the landing mode at 1e-4 tol, each output a step end.
      integrators::Dop853Options fine{1e-4 * tol, 1e-4 * tol};
      fine.dense_output = false;
      const DenseRun ref = run_dense(s, fine, H, n_out, false);
      double errR = 0.0;
      for (std::size_t i = 0; i < run.R.size(); ++i)
        errR = std::max(errR, (run.R[i] - ref.R[i]).cwiseAbs().maxCoeff());
      std::printf("DOP853 dense, tol = %.0e, output every %g (%ld outputs): max error of M %.3e (%.3f tol), of R "
                  "%.3e (%.2f tol), |R^T R - I| %.3e (%.2f tol), %ld accepted, %ld rejected steps\n",
                  tol, H, n_out, run.err, run.err / tol, errR, errR / tol, run.orth, run.orth / tol, run.accepted,
                  run.rejected);
      // The 7th-order interpolant's error is of the size of the step's local error (Hairer et al. II.6), so the
      // interpolated values meet the tolerance like the step ends do (AdaptiveErrorBelowToleranceOnScenarioA); a
      // wrong dense-output coefficient gives errors of O(h^4) ~ 1e-4 at these steps.
      EXPECT_LT(run.err, tol) << "tol " << tol << ", H " << H;
      // R is interpolated like M but not re-orthonormalised (as the landing mode returns it as integrated): its
      // error against the landing mode at 1e-4 tol is measured 6.8-8.5 tol, its orthogonality defect 16-18 tol
      // (the interpolant's error constant for the rotating attitude is larger than for M): bounds 20 and 40 tol.
      EXPECT_LT(errR, 20.0 * tol) << "tol " << tol << ", H " << H;
      EXPECT_LT(run.orth, 40.0 * tol) << "tol " << tol << ", H " << H;
      // Natural steps: far fewer than outputs (they are not shortened to land on the output times).
      EXPECT_LT(run.accepted + run.rejected, n_out / 2) << "tol " << tol << ", H " << H;
    }
  }
}

// The number of natural steps does not depend on the output cadence: output every 0.01, 0.1, 1 and once at 30 take
// the same accepted and rejected steps (the step sequence is the controller's alone); only the dense-output stages
// (3 per step that contains an output time) differ in the evaluation count. With t_end = 30 set, the final state
// comes from a step landing on t = 30 and is bitwise the same for every cadence, and below the tolerance.
TEST(Dop853, NaturalStepCountIndependentOfOutputCadence) {
  const auto s = test::scenario_A();
  const double tol = 1e-10;
  const Vec3 ref30 = reference::taylor_reference(s.body, s.M0, s.t_end);
  struct Cadence {
    double H;
    long n;
  };
  const std::vector<Cadence> cadences = {{0.01, 3000}, {0.1, 300}, {1.0, 30}, {30.0, 1}};
  for (bool bounded : {false, true}) {
    integrators::Dop853Options o{tol, tol};
    if (bounded) o.t_end = s.t_end;
    std::vector<DenseRun> runs;
    for (const Cadence& c : cadences) {
      runs.push_back(run_dense(s, o, c.H, c.n, false));
      std::printf("DOP853 dense, tol = 1e-10, t_end %s, output every %g: %ld accepted, %ld rejected, %ld f evals, "
                  "error at t = 30 %.3e\n",
                  bounded ? "set" : "unset", c.H, runs.back().accepted, runs.back().rejected,
                  runs.back().evaluations, (runs.back().last.M - ref30).cwiseAbs().maxCoeff());
    }
    for (std::size_t i = 0; i < runs.size(); ++i) {
      EXPECT_EQ(runs[i].accepted, runs[0].accepted) << "H = " << cadences[i].H;
      EXPECT_EQ(runs[i].rejected, runs[0].rejected) << "H = " << cadences[i].H;
      EXPECT_LT((runs[i].last.M - ref30).cwiseAbs().maxCoeff(), tol) << "H = " << cadences[i].H;
      if (bounded) {
        // The same landing step gives the final state; no interpolation at t_end.
        EXPECT_EQ(runs[i].last.M, runs[0].last.M) << "H = " << cadences[i].H;
        EXPECT_EQ(runs[i].last.R, runs[0].last.R) << "H = " << cadences[i].H;
      }
    }
    // One output at 30 needs no dense-output stages with t_end set (the last step lands on it): 12 per accepted
    // and rejected step, plus FSAL/hinit; output every 0.01 adds 3 per accepted step.
    if (bounded) {
      EXPECT_EQ(runs[0].evaluations - runs.back().evaluations, 3 * runs[0].accepted)
          << "every accepted step contains an output time at H = 0.01";
    }
  }
}

// The continuous extension against SciPy's DOP853 dense output (scipy.integrate.solve_ivp, dense_output=True; an
// independent transcription of dop853.f's dense output): one step of h = 0.3 from M0 of Scenario A, evaluated at
// theta in (0, 1]. The M equations do not involve R, so both codes compute the same stages and polynomial: they
// agree to round-off.
TEST(Dop853, DenseInterpolantMatchesScipy) {
  const char* python = "/usr/bin/python3";
  if (!std::filesystem::exists(python)) GTEST_SKIP() << "/usr/bin/python3 not found";
  const auto s = test::scenario_A();
  const double h = 0.3;
  const std::vector<double> thetas = {0.1, 0.25, 0.5, 0.75, 0.9, 1.0};
  std::ostringstream cmd;
  cmd.precision(17);
  cmd << python << " " << LIEVI_TEST_DIR << "/scipy_dop853_dense.py";
  for (int i = 0; i < 3; ++i) cmd << " " << s.body.I(i, i);
  cmd << " " << 0.5;
  for (int i = 0; i < 3; ++i) cmd << " " << s.M0(i);
  cmd << " " << h;
  for (double th : thetas) cmd << " " << th;
  FILE* pipe = popen(cmd.str().c_str(), "r");
  ASSERT_NE(pipe, nullptr);
  std::string out;
  char buf[512];
  while (std::fgets(buf, sizeof buf, pipe)) out += buf;
  const int status = pclose(pipe);
  if (WIFEXITED(status) && WEXITSTATUS(status) == 77) GTEST_SKIP() << "SciPy not available";
  ASSERT_EQ(status, 0) << cmd.str();
  std::istringstream in(out);
  double max_diff = 0.0;
  for (double th : thetas) {
    double t_read, m1, m2, m3;
    ASSERT_TRUE(in >> t_read >> m1 >> m2 >> m3) << out;
    EXPECT_DOUBLE_EQ(t_read, th);
    models::RigidBodyState x;
    x.M = s.M0;
    ASSERT_TRUE(Dop853::fixed_step_dense(s.body, x, h, th).converged);
    max_diff = std::max(max_diff, (x.M - Vec3(m1, m2, m3)).cwiseAbs().maxCoeff());
  }
  std::printf("DOP853 dense output, one step h = 0.3: max |M_lievi - M_scipy| over theta = %.3e\n", max_diff);
  // Same formula in a different summation order: a few ulps of |M| ~ 0.5 (1e-16 each). A wrong digit in any
  // dense-output coefficient (weights of size up to 5e2) shows far above 1e-14.
  EXPECT_LT(max_diff, 1e-14);
}

// The continuous extension has order 7: its error at theta = 0.5 of one step from M0 (the local error of the
// interpolant, O(h^8)) against the Taylor reference falls by 2^8 per halving of h; the end point theta = 1 is the
// 8th-order step itself (O(h^9)).
TEST(Dop853, DenseInterpolantOrderSeven) {
  const auto s = test::scenario_A();
  const std::vector<double> h = {0.8, 0.4, 0.2};
  std::vector<double> e;
  for (double hh : h) {
    double err = 0.0;
    for (double th : {0.3, 0.5, 0.7}) {
      models::RigidBodyState x;
      x.M = s.M0;
      ASSERT_TRUE(Dop853::fixed_step_dense(s.body, x, hh, th).converged);
      err = std::max(err, (x.M - reference::taylor_reference(s.body, s.M0, th * hh)).cwiseAbs().maxCoeff());
    }
    e.push_back(err);
  }
  std::printf("DOP853 dense output, one step, max over theta in {0.3, 0.5, 0.7}:\n%s",
              test::order_table(h, e).c_str());
  // Local error exponent 8 (order 7): pairwise slopes in [7.3, 8.7]; 7 (a 6th-order interpolant) or 9 fall
  // outside. The smallest error stays above the ~1e-16 round-off floor.
  for (double p : test::pairwise_orders(h, e)) {
    EXPECT_GT(p, 7.3) << test::order_table(h, e);
    EXPECT_LT(p, 8.7) << test::order_table(h, e);
  }
  EXPECT_GT(e.back(), 1e-15) << test::order_table(h, e);
  // theta = 1 is the step: bitwise equal to fixed_step (F0 = y_{n+1} - y_n added back to y_n may round: 1 ulp).
  models::RigidBodyState x, y;
  x.M = y.M = s.M0;
  ASSERT_TRUE(Dop853::fixed_step_dense(s.body, x, 0.4, 1.0).converged);
  ASSERT_TRUE(Dop853::fixed_step(s.body, y, 0.4).converged);
  EXPECT_LT((x.M - y.M).cwiseAbs().maxCoeff(), 1e-16);
}

// SciPy's DOP853 (scipy.integrate.solve_ivp, an independent implementation of the same pair) with
// rtol = atol = 1e-12 on Scenario A: the two agree to ~1e-10 (both are ~1e-12 accurate; their step sequences
// differ, lievi's also controls R).
TEST(Dop853, AgreesWithScipyDop853OnScenarioA) {
  const char* python = "/usr/bin/python3";
  if (!std::filesystem::exists(python)) GTEST_SKIP() << "/usr/bin/python3 not found";
  const auto s = test::scenario_A();
  const std::vector<double> t = unit_times(s.t_end);
  std::ostringstream cmd;
  cmd.precision(17);
  cmd << python << " " << LIEVI_TEST_DIR << "/../rigid_body/scipy_dop853.py --tol " << 1e-12;
  for (int i = 0; i < 3; ++i) cmd << " " << s.body.I(i, i);
  cmd << " " << 0.5;
  for (int i = 0; i < 3; ++i) cmd << " " << s.M0(i);
  for (double ti : t) cmd << " " << ti;
  FILE* pipe = popen(cmd.str().c_str(), "r");
  ASSERT_NE(pipe, nullptr);
  std::string out;
  char buf[512];
  while (std::fgets(buf, sizeof buf, pipe)) out += buf;
  const int status = pclose(pipe);
  if (WIFEXITED(status) && WEXITSTATUS(status) == 77) GTEST_SKIP() << "SciPy not available";
  ASSERT_EQ(status, 0) << cmd.str();
  const auto ref = reference::taylor_dense(s.body, s.M0, t);
  const AdaptiveRun run = run_adaptive(s, 1e-12, 1.0, ref);
  ASSERT_EQ(run.M.size(), t.size());
  std::istringstream in(out);
  double max_diff = 0, scipy_err = 0;
  for (std::size_t i = 0; i < t.size(); ++i) {
    double ti, m1, m2, m3;
    ASSERT_TRUE(in >> ti >> m1 >> m2 >> m3) << out;
    EXPECT_DOUBLE_EQ(ti, t[i]);
    max_diff = std::max(max_diff, (run.M[i] - Vec3(m1, m2, m3)).cwiseAbs().maxCoeff());
    scipy_err = std::max(scipy_err, (ref[i] - Vec3(m1, m2, m3)).cwiseAbs().maxCoeff());
  }
  std::printf("DOP853 tol = 1e-12: lievi vs SciPy %.3e; errors vs Taylor: lievi %.3e, SciPy %.3e\n", max_diff,
              run.err, scipy_err);
  // ~1e-10 requested by the issue. Measured 7e-12, which is SciPy's own error against the Taylor reference (its
  // error norm covers M only; both evaluate the outputs by the 7th-order dense output; lievi's norm also covers R):
  // 1e-10 leaves a 14x margin, while a wrong coefficient gives >> 1e-10.
  EXPECT_LT(max_diff, 1e-10);
  // lievi's error is below its tolerance (as in AdaptiveErrorBelowToleranceOnScenarioA).
  EXPECT_LT(run.err, 1e-12);
}

// Registry: traits, rtol/atol from the options, and bad tolerances rejected naming the key.
TEST(Dop853, Registry) {
  const auto s = test::scenario_A();
  integrators::RigidBodyMethodOptions o;
  o.method = "dop853";
  const auto traits = integrators::rigid_body_method_traits(o);
  EXPECT_STREQ(traits.id, "dop853");
  EXPECT_EQ(traits.order, 8);
  EXPECT_FALSE(traits.is_implicit);
  EXPECT_TRUE(traits.adaptive);
  o.rtol = o.atol = 1e-10;
  auto stepper = integrators::make_rigid_body_stepper(s.body, o);
  models::RigidBodyState x, y;
  x.M = y.M = s.M0;
  stepper->start(x, 0.1);
  Dop853 core(s.body, integrators::Dop853Options{1e-10, 1e-10});
  core.start(y, 0.1);
  for (int k = 0; k < 20; ++k) {
    ASSERT_TRUE(stepper->step(x, 0.1).converged);
    ASSERT_TRUE(core.step(y, 0.1).converged);
  }
  EXPECT_EQ(x.M, y.M);  // same tolerances, same code: bitwise equal
  o.rtol = 0.0;
  try {
    (void)integrators::make_rigid_body_stepper(s.body, o);
    FAIL() << "rtol = 0 accepted";
  } catch (const lievi::invalid_argument& e) {
    ASSERT_EQ(e.issues().size(), 1u);
    EXPECT_EQ(e.issues()[0].key, "integrator.rtol");
  }
}

// Failures are returned with the state kept: too few internal steps allowed, a non-finite state, a bad interval.
TEST(Dop853, ReportsFailure) {
  const auto s = test::scenario_A();
  models::RigidBodyState x;
  x.M = s.M0;
  Dop853 limited(s.body, integrators::Dop853Options{1e-12, 1e-12, 5});
  limited.start(x, 30.0);
  const StepResult r = limited.step(x, 30.0);  // needs hundreds of steps at 1e-12
  EXPECT_FALSE(r.converged);
  EXPECT_EQ(x.M, s.M0);
  Dop853 dop(s.body);
  dop.start(x, 1.0);
  EXPECT_FALSE(dop.step(x, -1.0).converged);
  x.M(0) = INFINITY;
  EXPECT_FALSE(dop.step(x, 1.0).converged);
  // A finite state whose field overflows (f ~ |M|^3 = 1e330): reported at once, the state kept.
  x.M = Vec3(1e110, 1e110, 1e110);
  Dop853 blowup(s.body);
  blowup.start(x, 1.0);
  const StepResult r_blowup = blowup.step(x, 1.0);
  EXPECT_FALSE(r_blowup.converged);
  EXPECT_NE(std::string(r_blowup.message).find("non-finite"), std::string::npos) << r_blowup.message;
  EXPECT_EQ(x.M, Vec3(1e110, 1e110, 1e110));
  // A large but finite field (|M| = 1e20, f ~ 1e60): rotation at rate ~1e20, so 1e6 internal steps cannot cover
  // an interval of 1: the step-count bound reports failure.
  x.M = Vec3(0.0, 1e18, 1e20);
  Dop853 fast(s.body, integrators::Dop853Options{1e-10, 1e-10, 1000});
  fast.start(x, 1.0);
  const StepResult r_fast = fast.step(x, 1.0);
  EXPECT_FALSE(r_fast.converged);
  EXPECT_NE(std::string(r_fast.message).find("max_steps"), std::string::npos) << r_fast.message;
  EXPECT_EQ(x.M, Vec3(0.0, 1e18, 1e20));
  EXPECT_LE(fast.accepted_steps() + fast.rejected_steps(), 1000);
}
