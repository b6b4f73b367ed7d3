// Holonomic constraints (constraints.hpp), the other models and the failures: a non-quadratic Lagrangian (general
// inverse-Legendre projection), convergence at small steps, dependent constraints, a too-large step, drift and an
// inconsistent start, project_initial.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "constraint_models.hpp"
#include "support/convergence.hpp"

// ---------------------------------------------------------------------------------------------------------------
// Non-quadratic kinetic energy: RATTLE projects with the inverse Legendre transform. Checked with
// hidden_constraint_residual (velocity_from_momentum of lagrangian.hpp, an independent Newton): G v(q, p) = 0.
TEST(Constraints, NonQuadraticLagrangianHiddenConstraint) {
  const QuarticPendulum m;
  DelState<2> x, xs;
  x.q = Vec<2>(std::sin(1.0), -std::cos(1.0));
  const Vec<2> v0 = 1.5 * Vec<2>(std::cos(1.0), std::sin(1.0));
  x.p = legendre(m, x.q, v0);
  xs = x;
  double hid = 0, hid_s = 0, dq = 0, gmax = 0;
  for (int k = 0; k < 2000; ++k) {
    ASSERT_TRUE(constrained_step<Trapezoid>(m, x, 0.01).converged) << k;
    ASSERT_TRUE(constrained_step<Trapezoid>(m, xs, 0.01, with(Projection::shake)).converged) << k;
    hid = std::max(hid, hidden_constraint_residual(m, x.q, x.p));
    hid_s = std::max(hid_s, hidden_constraint_residual(m, xs.q, xs.p));
    dq = std::max(dq, (x.q - xs.q).cwiseAbs().maxCoeff());
    gmax = std::max(gmax, constraint_residual(m, x.q));
  }
  std::printf("quartic kinetic term, 2000 trapezoid steps: max |G v(q,p)| RATTLE %.2e (SHAKE %.2e), max |g| %.2e, "
              "max |q_S - q_R| %.2e\n", hid, hid_s, gmax, dq);
  EXPECT_LT(hid, 1e-12);
  EXPECT_GT(hid_s, 1e-4);
  EXPECT_LT(gmax, 1e-12);
  EXPECT_LT(dq, 1e-11);
}

// Small steps: the residual test includes the round-off |dF/dq1| |q1| eps of the velocity (q1 - q0)/h, so Newton
// still converges for h = 1e-5 (a scale without it fails for h <~ 1e-3, see the report on del_step).
TEST(Constraints, SmallStepsConverge) {
  const SphericalPendulum m;
  for (double h : {1e-3, 1e-4, 1e-5}) {
    DelState<3> xt = spherical_start(m, 1.0, 2.0, 0.5), xm = xt;
    int it_max = 0;
    for (int k = 0; k < 300; ++k) {
      const StepResult rt = constrained_step<Trapezoid>(m, xt, h), rm = constrained_step<Midpoint>(m, xm, h);
      ASSERT_TRUE(rt.converged) << h << " " << k << " " << rt.message;
      ASSERT_TRUE(rm.converged) << h << " " << k << " " << rm.message;
      it_max = std::max({it_max, rt.iterations, rm.iterations});
    }
    std::printf("h = %.0e: 300 steps, max Newton iterations %d, |g| %.1e\n", h, it_max, constraint_residual(m, xt.q));
    EXPECT_LT(constraint_residual(m, xt.q), 1e-12);
    EXPECT_LT(constraint_residual(m, xm.q), 1e-12);
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Diagnostics.
TEST(ConstraintsFailure, DependentConstraints) {
  const DuplicateConstraint m;
  DelState<3> x = spherical_start(m, 1.0, 1.0);
  const DelState<3> x0 = x;
  for (Projection pr : {Projection::shake, Projection::rattle}) {
    const StepResult r = constrained_step<Trapezoid>(m, x, 0.01, with(pr));
    EXPECT_FALSE(r.converged);
    EXPECT_STREQ(r.message, msg_dependent_constraints);
    EXPECT_EQ(x.q, x0.q);
    EXPECT_EQ(x.p, x0.p);
    EXPECT_EQ(x.t, x0.t);
  }
  try {
    integrate_constrained<Midpoint>(m, x, 0.01, 10, [](long, const DelState<3>&) {});
    ADD_FAILURE() << "no throw";
  } catch (const lievi::numerical_failure& e) {
    std::printf("dependent constraints: %s\n", e.what());
    EXPECT_EQ(e.step(), 0);
    EXPECT_NE(std::string(e.what()).find("rank deficient"), std::string::npos);
  }
  Vec<3> q = x.q, v = Vec<3>(0.1, 0.2, 0.3);
  EXPECT_FALSE(project_initial(m, q, v));
}

TEST(ConstraintsFailure, TooLargeStep) {
  // Released from rest at 1 rad: with h = 0.3 the sphere |q_n + h (p_n - h/2 grad V)/m - c q_n| = l stops being
  // reachable as the speed grows (the quadratic for the multiplier has no real root), and Newton fails there
  // (at step 4; h <= 0.25 runs).
  const SphericalPendulum m;
  const double h = 0.3;
  const DelState<3> x0 = spherical_start(m, 1.0, 0.0);
  long first_fail = -1;
  const char* msg = "";
  {
    DelState<3> x = x0;
    for (long k = 0; k < 100 && first_fail < 0; ++k) {
      const DelState<3> before = x;
      const StepResult r = constrained_step<Trapezoid>(m, x, h);
      if (!r.converged) {
        first_fail = k;
        msg = r.message;
        EXPECT_EQ(x.q, before.q);  // unchanged on failure
      }
    }
  }
  ASSERT_GT(first_fail, 0) << "expected a failure after at least one successful step";
  std::printf("too large h = %.2f: first failing step %ld (%s)\n", h, first_fail, msg);
  DelState<3> x = x0;
  long observed = 0;
  try {
    integrate_constrained<Trapezoid>(m, x, h, 100, [&](long k, const DelState<3>&) { observed = k; });
    ADD_FAILURE() << "no throw";
  } catch (const lievi::numerical_failure& e) {
    std::printf("  numerical_failure: %s\n", e.what());
    EXPECT_EQ(e.step(), first_fail);
    EXPECT_EQ(observed, first_fail);
    EXPECT_NEAR(e.t(), first_fail * h, 1e-12);
    EXPECT_NE(std::string(e.what()).find("step " + std::to_string(first_fail)), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("reduce h"), std::string::npos);
  }
}

TEST(ConstraintsFailure, DriftAndInconsistentStart) {
  const SphericalPendulum m;
  DelState<3> x = spherical_start(m, 1.0, 1.0);
  ConstraintOptions o;
  o.drift_tol = -1.0;  // every converged step "drifts": exercises the drift path
  const StepResult r = constrained_step<Trapezoid>(m, x, 0.01, o);
  EXPECT_FALSE(r.converged);
  EXPECT_STREQ(r.message, msg_constraint_drift);
  x.q *= 1.01;  // off the manifold
  EXPECT_THROW(integrate_constrained<Trapezoid>(m, x, 0.01, 3, [](long, const DelState<3>&) {}),
               lievi::invalid_argument);
}

TEST(Constraints, ProjectInitial) {
  {  // sphere, isotropic mass: the closed-form nearest point l q/|q| and the tangential part of qdot
    const SphericalPendulum m;
    const Vec<3> q0(0.5, -0.6, -0.9), v0(0.3, 1.1, -0.4);  // |q0| = 1.18..
    Vec<3> q = q0, v = v0;
    ASSERT_TRUE(project_initial(m, q, v));
    const Vec<3> qe = m.l * q0.normalized();
    const Vec<3> ve = v0 - v0.dot(qe) * qe / qe.squaredNorm();
    std::printf("project_initial: |g| %.1e, |q - l q0/|q0|| %.1e, |qdot - tangential part| %.1e\n",
                constraint_residual(m, q), (q - qe).cwiseAbs().maxCoeff(), (v - ve).cwiseAbs().maxCoeff());
    EXPECT_LT(constraint_residual(m, q), 1e-15);
    EXPECT_LT((q - qe).cwiseAbs().maxCoeff(), 1e-15);
    EXPECT_LT((v - ve).cwiseAbs().maxCoeff(), 1e-15);
    // and a projected start integrates
    DelState<3> x;
    x.q = q;
    x.p = legendre(m, q, v);
    EXPECT_NO_THROW(integrate_constrained<Trapezoid>(m, x, 0.01, 10, [](long, const DelState<3>&) {}));
  }
  {  // anisotropic mass W = diag(1, 2, 3): KKT of min (v - v0).W(v - v0), G v = 0: W (v - v0) parallel to q
    const AnisotropicSphere m;
    Vec<3> q(1.0, 0.2, -0.3), v(0.5, -0.7, 0.9);
    const Vec<3> v0 = v;
    ASSERT_TRUE(project_initial(m, q, v));
    const Vec<3> Wdv = Eigen::Vector3d(1, 2, 3).cwiseProduct(v - v0);
    EXPECT_LT(std::abs(q.dot(v)), 1e-15);
    EXPECT_LT(Wdv.cross(q).norm(), 1e-15);
    EXPECT_LT(constraint_residual(m, q), 1e-15);
  }
  {  // q = 0: G = 0, nothing to project along
    const SphericalPendulum m;
    Vec<3> q = Vec<3>::Zero(), v = Vec<3>::Ones();
    EXPECT_FALSE(project_initial(m, q, v));
  }
}
