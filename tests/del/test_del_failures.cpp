// DEL toolkit, failure paths of del_step / integrate (returned StepResult, state unchanged; integrate throws
// lievi::numerical_failure with the step index and a message saying what to change), and an analytic-derivative
// model (`derivatives(q, qdot)` member) against AD on the double pendulum.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <string>

#include "lievi/integrators/del/del_stepper.hpp"
#include "support/del_models.hpp"

using namespace lievi::integrators::del;

namespace {

using Pendulum = lievi::test::del_models::Pendulum;

/// L = |v|^2/2 - V, V = -8 q1^2 + q2^2/2: with h = 0.5 the midpoint DEL Jacobian
/// D2 D1 Ld = (h/4) Lqq - Lvv/h = diag(0.125 * 16 - 2, -0.125 - 2) = diag(0, -2.125) is exactly singular
/// (Ld is not regular: the inverted oscillator with h^2 kappa = 4), although d2L/dqdot2 = I is regular.
struct InvertedAtResonance {
  static constexpr int dim = 2;
  template <class S>
  S L(const Eigen::Matrix<S, 2, 1>& q, const Eigen::Matrix<S, 2, 1>& v) const {
    return 0.5 * v.squaredNorm() + 8.0 * q(0) * q(0) - 0.5 * q(1) * q(1);
  }
};

/// L = qdot^2/2 + 0.1 sqrt(1 - q): NaN for q > 1 (sqrt of a negative number).
struct NanBeyondOne {
  static constexpr int dim = 1;
  template <class S>
  S L(const Eigen::Matrix<S, 1, 1>& q, const Eigen::Matrix<S, 1, 1>& v) const {
    using std::sqrt;
    return 0.5 * v(0) * v(0) + 0.1 * sqrt(1.0 - q(0));
  }
};

struct Degenerate {  // linear in qdot: d2L/dqdot2 = 0
  static constexpr int dim = 2;
  template <class S>
  S L(const Eigen::Matrix<S, 2, 1>& q, const Eigen::Matrix<S, 2, 1>& v) const {
    return q.dot(v) - 0.5 * q.squaredNorm();
  }
};

using DoublePendulumAD = lievi::test::del_models::DoublePendulum;
using DoublePendulumAnalytic = lievi::test::del_models::DoublePendulumAnalytic;

template <int n>
bool same_state(const DelState<n>& a, const DelState<n>& b) {
  return a.q == b.q && a.p == b.p && a.t == b.t;  // bitwise: a failed step must not touch the state
}

}  // namespace

TEST(DelFailures, IterationLimit) {
  // Large-amplitude pendulum, h = 0.5, p0 = 3: the Legendre start guess q0 + h p0 is far from q1, so one
  // Newton iteration cannot satisfy the step test ||dz|| <= step_tol (1 + ||z||).
  DelState<1> x;
  x.q(0) = 2.0;
  x.p(0) = 3.0;
  const DelState<1> x0 = x;
  DelOptions opt;
  opt.newton.max_iterations = 1;
  const auto r = del_step<Midpoint>(Pendulum{}, x, 0.5, opt);
  EXPECT_FALSE(r.converged);
  EXPECT_STREQ(r.message, msg_iterations);
  EXPECT_EQ(r.iterations, 1);
  EXPECT_GT(r.residual, 0.0);
  EXPECT_TRUE(same_state(x, x0));
  // default options: converges from the same state
  const auto r2 = del_step<Midpoint>(Pendulum{}, x, 0.5);
  std::printf("iteration limit: residual after 1 iteration %.2e; default options converge in %d\n", r.residual,
              r2.iterations);
  EXPECT_TRUE(r2.converged);
  // integrate turns it into numerical_failure at step 0 with the advice to raise the limit
  x = x0;
  try {
    integrate<LobattoIIIAIIIB>(Pendulum{}, x, 0.5, 10, [](long, const DelState<1>&) {}, opt);
    ADD_FAILURE() << "no throw";
  } catch (const lievi::numerical_failure& e) {
    EXPECT_EQ(e.step(), 0);
    EXPECT_NE(std::string(e.what()).find("raise DelOptions::newton.max_iterations"), std::string::npos) << e.what();
  }
}

TEST(DelFailures, SingularJacobian) {
  DelState<2> x;
  x.q = Vec<2>(0.3, 0.2);
  x.p = Vec<2>(0.1, -0.4);
  const DelState<2> x0 = x;
  const auto r = del_step<Midpoint>(InvertedAtResonance{}, x, 0.5);
  EXPECT_FALSE(r.converged);
  EXPECT_STREQ(r.message, msg_singular);
  EXPECT_TRUE(same_state(x, x0));
  // away from the resonant step it is regular and converges
  EXPECT_TRUE(del_step<Midpoint>(InvertedAtResonance{}, x, 0.4).converged);
}

TEST(DelFailures, NonFinite) {
  DelState<1> x;
  x.q(0) = 0.9;
  x.p(0) = 1.0;  // start guess q0 + h p0 = 1.1 > 1: L is NaN there
  const DelState<1> x0 = x;
  const auto r = del_step<Midpoint>(NanBeyondOne{}, x, 0.2);
  EXPECT_FALSE(r.converged);
  EXPECT_STREQ(r.message, msg_nonfinite);
  EXPECT_TRUE(same_state(x, x0));

  // integrate from q = 0 moving towards q = 1: find the failing step by hand, then check the exception
  DelState<1> y;
  y.p(0) = 1.0;
  long k_fail = -1;
  double t_fail = 0;
  for (long k = 0; k < 100; ++k) {
    const DelState<1> before = y;
    if (!del_step<Trapezoid>(NanBeyondOne{}, y, 0.2).converged) {
      EXPECT_TRUE(same_state(y, before));
      k_fail = k;
      t_fail = y.t;
      break;
    }
  }
  ASSERT_GT(k_fail, 0);
  DelState<1> z;
  z.p(0) = 1.0;
  long observed = 0;
  try {
    integrate<Trapezoid>(NanBeyondOne{}, z, 0.2, 100, [&](long k, const DelState<1>&) { observed = k; });
    ADD_FAILURE() << "no throw";
  } catch (const lievi::numerical_failure& e) {
    std::printf("integrate: %s\n", e.what());
    EXPECT_EQ(e.step(), k_fail);
    EXPECT_EQ(observed, k_fail);  // every successful step was observed
    EXPECT_DOUBLE_EQ(e.t(), t_fail);
    const std::string w = e.what();
    EXPECT_NE(w.find("DEL step " + std::to_string(k_fail)), std::string::npos) << w;
    EXPECT_NE(w.find("reduce h or check L, V, f"), std::string::npos) << w;
  }
}

TEST(DelFailures, DegenerateAllMethods) {
  DelState<2> x;
  x.q = Vec<2>(1.0, 0.0);
  const DelState<2> x0 = x;
  EXPECT_STREQ(del_step<Midpoint>(Degenerate{}, x, 0.1).message, msg_degenerate);
  EXPECT_STREQ(del_step<Trapezoid>(Degenerate{}, x, 0.1).message, msg_degenerate);
  EXPECT_STREQ(del_step<LobattoIIIAIIIB>(Degenerate{}, x, 0.1).message, msg_degenerate);
  EXPECT_TRUE(same_state(x, x0));
  // With the a-priori check off: the trapezoid DEL Jacobian Lqv(0)/2 - Lqv(1)^T/2 - (Lvv(0) + Lvv(1))/(2h) = 0
  // is singular and is reported as such. The midpoint one is (h/4) Lqq + (Lqv - Lqv^T)/2 - Lvv/h = -(h/4) I,
  // regular: its DEL p0 - (h/2 + 1) q_mid = 0 has a unique solution although the continuous Euler-Lagrange
  // equation of this L is the algebraic constraint q = 0, not an ODE. A solvable DEL does not make a
  // degenerate L meaningful; this is why the check on d2L/dqdot2 is made a priori and is on by default.
  DelOptions opt;
  opt.check_regularity = false;
  EXPECT_STREQ(del_step<Trapezoid>(Degenerate{}, x, 0.1, opt).message, msg_singular);
  EXPECT_TRUE(same_state(x, x0));
  DelState<2> xm = x;
  EXPECT_TRUE(del_step<Midpoint>(Degenerate{}, xm, 0.1, opt).converged);
  try {
    integrate<Midpoint>(Degenerate{}, x, 0.1, 3, [](long, const DelState<2>&) {});
    ADD_FAILURE() << "no throw";
  } catch (const lievi::numerical_failure& e) {
    EXPECT_EQ(e.step(), 0);
    EXPECT_NE(std::string(e.what()).find("give L a kinetic term positive definite"), std::string::npos);
  }
}

TEST(DelAnalyticDerivatives, DoublePendulumMatchesAD) {
  static_assert(HasAnalyticDerivatives<DoublePendulumAnalytic>);
  static_assert(!HasAnalyticDerivatives<DoublePendulumAD>);
  // derivatives at generic points: AD is exact to round-off, entries O(1): 1e-14
  for (const auto& [q, v] : {std::pair{Vec<2>(0.4, -1.1), Vec<2>(0.7, 0.3)},
                             std::pair{Vec<2>(2.5, 0.2), Vec<2>(-1.3, 2.1)}}) {
    const auto a = lagrangian_derivatives(DoublePendulumAD{}, q, v);
    const auto b = lagrangian_derivatives(DoublePendulumAnalytic{}, q, v);
    EXPECT_NEAR(a.L, b.L, 1e-14);
    EXPECT_LT((a.Lq - b.Lq).cwiseAbs().maxCoeff(), 1e-14);
    EXPECT_LT((a.Lv - b.Lv).cwiseAbs().maxCoeff(), 1e-14);
    EXPECT_LT((a.Lqq - b.Lqq).cwiseAbs().maxCoeff(), 1e-14);
    EXPECT_LT((a.Lqv - b.Lqv).cwiseAbs().maxCoeff(), 1e-14);
    EXPECT_LT((a.Lvv - b.Lvv).cwiseAbs().maxCoeff(), 1e-14);
  }
  // one step and 200 steps (chaotic regime: q = (2, -1)), all methods. One step: both Newton solves stop at
  // ||dz|| <= 1e-14-ish on the same equation, so the steps agree to ~1e-14 (bound 1e-13 absolute on O(1)
  // states). The 200-step trajectories: round-off amplified by the chaotic flow, bound 1e-10.
  auto compare = [](auto tag, const char* name) {
    using Method = decltype(tag);
    DelState<2> a, b;
    a.q = b.q = Vec<2>(2.0, -1.0);
    a.p = b.p = Vec<2>(0.5, 0.3);
    ASSERT_TRUE(del_step<Method>(DoublePendulumAD{}, a, 0.05).converged);
    ASSERT_TRUE(del_step<Method>(DoublePendulumAnalytic{}, b, 0.05).converged);
    const double d1 = std::max((a.q - b.q).cwiseAbs().maxCoeff(), (a.p - b.p).cwiseAbs().maxCoeff());
    double d = d1;
    for (int k = 1; k < 200; ++k) {
      ASSERT_TRUE(del_step<Method>(DoublePendulumAD{}, a, 0.05).converged);
      ASSERT_TRUE(del_step<Method>(DoublePendulumAnalytic{}, b, 0.05).converged);
      d = std::max({d, (a.q - b.q).cwiseAbs().maxCoeff(), (a.p - b.p).cwiseAbs().maxCoeff()});
    }
    std::printf("double pendulum %s: analytic vs AD, one step %.2e, 200 steps %.2e\n", name, d1, d);
    EXPECT_LT(d1, 1e-13);
    EXPECT_LT(d, 1e-10);
  };
  compare(Midpoint{}, "midpoint");
  compare(Trapezoid{}, "trapezoid");
  compare(LobattoIIIAIIIB{}, "lobatto");
}
