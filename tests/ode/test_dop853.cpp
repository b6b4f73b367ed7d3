// DOP853 (lievi/integrators/ode/dop853.hpp): the coefficient table's order conditions, the measured order 8 of
// the fixed-step formula, the adaptive error against the long-double Taylor reference on Scenario A for
// rtol = atol in {1e-8, 1e-10, 1e-12}, agreement with SciPy's DOP853 (an independent implementation), the
// attitude's orthogonality, output-interval stepping and failure reporting.
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
AdaptiveRun run_adaptive(const test::RigidBodyScenario& s, double tol, double H, const std::vector<Vec3>& ref) {
  Dop853 dop(s.body, integrators::Dop853Options{tol, tol});
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
    // The momentum error is below tol itself (measured 0.03-0.04 tol: the error norm also controls R, whose entries
    // are ~1, and the flow contracts towards the equilibrium); a wrong error estimate or controller breaks it.
    EXPECT_LT(run.err, tol);
    // R is part of the controlled state: its orthogonality defect is a global error of size ~tol (measured
    // 0.6-1.4 tol); 5 tol allows for the accumulation over 30 time units.
    EXPECT_LT(run.orth, 5.0 * tol);
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
  // Measured 3.3e-12 (RK4's own error at this step); 3e-11 leaves a 10x margin, while a wrong attitude equation
  // or packing of R gives O(1).
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

// Output-interval stepping: output every 0.1 (the paper's dt) gives the same accuracy as output every 1, and every
// call lands exactly on its end time (no drift of the output grid: the last output equals the t = 30 reference).
TEST(Dop853, OutputIntervalsDoNotChangeAccuracy) {
  const auto s = test::scenario_A();
  const auto ref = reference::taylor_dense(s.body, s.M0, unit_times(s.t_end));
  const double tol = 1e-10;
  const AdaptiveRun coarse = run_adaptive(s, tol, 1.0, ref);
  const AdaptiveRun fine = run_adaptive(s, tol, 0.1, ref);
  std::printf("DOP853 tol = 1e-10: error %.3e (output every 1), %.3e (every 0.1); steps %ld vs %ld\n", coarse.err,
              fine.err, coarse.accepted, fine.accepted);
  // Landing on 300 output times only shortens steps: the error stays below tol (as above).
  EXPECT_LT(fine.err, tol);
  // Each call needs at least one step; the carried step size means not many more than one per call.
  EXPECT_GE(fine.accepted, 300);
  EXPECT_LT(fine.accepted, 2 * 300 + coarse.accepted);
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
  // error norm covers M only, and t_eval goes through its 7th-order dense output; lievi's norm also covers R, and it
  // lands on each output time): 1e-10 leaves a 14x margin, while a wrong coefficient gives >> 1e-10.
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
