// The nonholonomic step itself (integrators/del/nonholonomic.hpp): equality with the sleigh's DLA step
// written out here in closed form (a scalar equation for lambda), the Newton Jacobian against central
// differences, time-reversibility of the symmetric scheme, the velocity projection, and failure reporting.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <limits>
#include <string>

#include "lievi/core/error.hpp"
#include "lievi/integrators/del/nonholonomic.hpp"
#include "lievi/models/nonholonomic.hpp"

using namespace lievi::integrators::del;
using lievi::models::nonholonomic::ChaplyginSleigh;
using lievi::models::nonholonomic::VerticalRollingDisk;

namespace {

const ChaplyginSleigh kSleigh{1.3, 0.2, 0.4};

/// The sleigh start: centre-of-mass velocity v e1 + a omega e2 (on the constraint).
DelState<3> sleigh_start(double theta0, double v, double omega) {
  const Vec<3> q(0.3, -0.2, theta0);
  const Vec<3> qd(v * std::cos(theta0) - kSleigh.a * omega * std::sin(theta0),
                  v * std::sin(theta0) + kSleigh.a * omega * std::cos(theta0), omega);
  return nonholonomic_state(kSleigh, q, qd);
}

/// One sleigh step written out independently of the library. With M = diag(m, m, I) and the midpoint Ld,
/// D1 Ld = -M dq / h, so p0 - M dq / h = lambda A(q0)^T gives dq(lambda) = h M^{-1} (p0 - lambda A(q0)^T),
/// and the discrete constraint is the scalar equation
///     g(lambda) = -sin(theta0 + dtheta/2) dx + cos(theta0 + dtheta/2) dy - a dtheta = 0,
/// solved by the secant method from lambda = 0, 1e-3. Then p1* = M dq / h and the node projection
/// p1 = p1* + mu A(q1)^T with A(q1) M^{-1} p1 = 0, i.e. mu = -A1 M^{-1} p1* / (A1 M^{-1} A1^T).
void sleigh_step_by_hand(const ChaplyginSleigh& s, Vec<3>& q, Vec<3>& p, double h) {
  const Vec<3> Minv(1.0 / s.m, 1.0 / s.m, 1.0 / s.I);
  const Vec<3> A0(-std::sin(q(2)), std::cos(q(2)), -s.a);
  auto dq_of = [&](double lambda) -> Vec<3> { return h * Minv.cwiseProduct(p - lambda * A0); };
  auto g = [&](double lambda) {
    const Vec<3> dq = dq_of(lambda);
    const double th = q(2) + 0.5 * dq(2);
    return -std::sin(th) * dq(0) + std::cos(th) * dq(1) - s.a * dq(2);
  };
  double l0 = 0.0, l1 = 1e-3, g0 = g(l0), g1 = g(l1);
  for (int it = 0; it < 100 && g1 != g0 && std::abs(l1 - l0) > 1e-17 * (1.0 + std::abs(l1)); ++it) {
    const double l2 = l1 - g1 * (l1 - l0) / (g1 - g0);
    l0 = l1;
    g0 = g1;
    l1 = l2;
    g1 = g(l1);
  }
  const Vec<3> dq = dq_of(l1);
  q += dq;
  const Vec<3> ps = dq.cwiseQuotient(h * Minv);
  const Vec<3> A1(-std::sin(q(2)), std::cos(q(2)), -s.a);
  const double mu = -A1.dot(Minv.cwiseProduct(ps)) / A1.dot(Minv.cwiseProduct(A1));
  p = ps + mu * A1;
}

/// The Jacobian of nonholonomic_residual against central differences of its F, at a state and a z off the
/// solution.
template <class Method, class M>
double jacobian_fd_error(const M& m, const DelState<M::dim>& x, const Vec<M::dim + M::n_constraints>& z,
                         double h) {
  constexpr int K = M::dim + M::n_constraints;
  Vec<K> F;
  Mat<K> J, Jfd;
  nonholonomic_residual<Method>(m, x.q, x.p, x.t, h, z, F, J);
  for (int j = 0; j < K; ++j) {
    const double d = 1e-6 * (1.0 + std::abs(z(j)));
    Vec<K> zp = z, zm = z, Fp, Fm;
    Mat<K> Jdummy;
    zp(j) += d;
    zm(j) -= d;
    nonholonomic_residual<Method>(m, x.q, x.p, x.t, h, zp, Fp, Jdummy);
    nonholonomic_residual<Method>(m, x.q, x.p, x.t, h, zm, Fm, Jdummy);
    Jfd.col(j) = (Fp - Fm) / (2.0 * d);
  }
  return (J - Jfd).cwiseAbs().maxCoeff() / J.cwiseAbs().maxCoeff();
}

/// The sleigh with the constraint row given twice (rank-deficient A).
struct DoubledSleigh : ChaplyginSleigh {
  static constexpr int n_constraints = 2;
  template <class S>
  Eigen::Matrix<S, 2, 3> A(const Eigen::Matrix<S, 3, 1>& q) const {
    const Eigen::Matrix<S, 1, 3> row = ChaplyginSleigh::A(q);
    Eigen::Matrix<S, 2, 3> r;
    r.row(0) = row;
    r.row(1) = row;
    return r;
  }
};

/// The sleigh without rotational inertia: L degenerate in thetadot.
struct DegenerateSleigh : ChaplyginSleigh {
  template <class S>
  S L(const Eigen::Matrix<S, 3, 1>&, const Eigen::Matrix<S, 3, 1>& v) const {
    return (0.5 * m) * (v(0) * v(0) + v(1) * v(1));
  }
};

}  // namespace

// Five steps equal to the hand-written step (1e-14: a few roundings of terms of size 1, per step).
TEST(NonholonomicStep, EqualsHandWrittenSleighStep) {
  for (const double h : {0.1, 0.01}) {
    DelState<3> x = sleigh_start(0.7, 0.3, 1.5);
    Vec<3> q = x.q, p = x.p;
    for (int k = 0; k < 5; ++k) {
      const auto r = nonholonomic_step<Midpoint>(kSleigh, x, h);
      ASSERT_TRUE(r.converged) << r.message;
      sleigh_step_by_hand(kSleigh, q, p, h);
      EXPECT_LT((x.q - q).lpNorm<Eigen::Infinity>(), 1e-14) << "h " << h << " step " << k;
      EXPECT_LT((x.p - p).lpNorm<Eigen::Infinity>(), 1e-14) << "h " << h << " step " << k;
    }
  }
}

// The Newton Jacobian against central differences (relative 1e-7: the O(d^2) truncation and eps/d round-off
// of central differences with d = 1e-6 are ~1e-10 .. 1e-9 relative to |J|, and J ~ M/h is large), for both
// systems and both discrete Lagrangians, at a z off the solution (lambda != 0, q1 != the root).
TEST(NonholonomicStep, JacobianMatchesFiniteDifferences) {
  const DelState<3> xs = sleigh_start(0.4, -0.6, 2.0);
  Vec<4> zs;
  zs << xs.q + Vec<3>(0.03, -0.02, 0.11), 0.2;
  for (const double h : {0.1, 0.01}) {
    EXPECT_LT(jacobian_fd_error<Midpoint>(kSleigh, xs, zs, h), 1e-7);
    EXPECT_LT(jacobian_fd_error<Trapezoid>(kSleigh, xs, zs, h), 1e-7);
  }
  const VerticalRollingDisk d{1.1, 0.6, 0.2, 0.1};
  const DelState<4> xd = nonholonomic_state(d, Vec<4>(0.1, 0.2, 0.3, 0.9),
                                            Vec<4>(0.6 * std::cos(0.9), 0.6 * std::sin(0.9), 1.0, -0.7));
  Vec<6> zd;
  zd << xd.q + Vec<4>(0.01, 0.02, 0.05, -0.07), 0.3, -0.1;
  for (const double h : {0.1, 0.01}) {
    EXPECT_LT(jacobian_fd_error<Midpoint>(d, xd, zd, h), 1e-7);
    EXPECT_LT(jacobian_fd_error<Trapezoid>(d, xd, zd, h), 1e-7);
  }
}

// Time-reversibility: N steps, flip p, N steps, flip p returns to the start. It holds because Ld(q0, q1) =
// Ld(q1, q0) (L even in qdot), D_d is symmetric, and the node projection makes p_k the same from either side
// (docs/theory/nonholonomic.md). Short run (T = 2): forward, the sleigh is attracted to straight-line motion
// (rate k = a m v_inf / J = 1.8 here), so backward the round-off grows like exp(k t) (x 36 at T = 2, but 1e15
// at T = 20). 1e-12: 2 x 40 steps of Newton round-off on terms of size ~1, times that growth.
TEST(NonholonomicStep, TimeReversible) {
  const double h = 0.05;
  DelState<3> x = sleigh_start(0.2, 0.1, 2.5);
  const DelState<3> start = x;
  for (int k = 0; k < 40; ++k) ASSERT_TRUE(nonholonomic_step<Midpoint>(kSleigh, x, h).converged);
  EXPECT_GT((x.q - start.q).norm(), 0.5);  // it has gone somewhere
  x.p = -x.p;
  for (int k = 0; k < 40; ++k) ASSERT_TRUE(nonholonomic_step<Midpoint>(kSleigh, x, h).converged);
  x.p = -x.p;
  std::printf("sleigh forward-backward, 2 x 40 steps: |dq| %.2e, |dp| %.2e\n",
              (x.q - start.q).lpNorm<Eigen::Infinity>(), (x.p - start.p).lpNorm<Eigen::Infinity>());
  EXPECT_LT((x.q - start.q).lpNorm<Eigen::Infinity>(), 1e-12);
  EXPECT_LT((x.p - start.p).lpNorm<Eigen::Infinity>(), 1e-12);
}

// project_velocity: the result is in ker A(q) and differs from the input by W^{-1} A^T (something), i.e. the
// correction is M-orthogonal to ker A (for the sleigh W = M = diag(m, m, I)).
TEST(NonholonomicStep, ProjectVelocityOntoKernelInKineticMetric) {
  const Vec<3> q(0.0, 0.0, 0.8);
  const Vec<3> v0(0.3, -1.1, 0.7);
  Vec<3> v = v0;
  ASSERT_TRUE(project_velocity(kSleigh, q, v));
  const Eigen::Matrix<double, 1, 3> A = kSleigh.A(q);
  // 1e-15: one rounding of terms of size |A| |v| ~ 1
  EXPECT_LT(std::abs((A * v)(0)), 1e-15);
  const Vec<3> dv = v0 - v;
  const Vec<3> Mdv(kSleigh.m * dv(0), kSleigh.m * dv(1), kSleigh.I * dv(2));
  // M dv must be parallel to A^T: its component orthogonal to A^T vanishes (to round-off of size |M dv|)
  const Vec<3> At = A.transpose();
  EXPECT_LT((Mdv - At * (At.dot(Mdv) / At.squaredNorm())).norm(), 1e-15 * (1.0 + Mdv.norm()));
}

TEST(NonholonomicStep, FailuresAreReportedNotThrown) {
  // dependent constraints: A with a repeated row
  {
    const DoubledSleigh s{};
    DelState<3> x;
    x.q = Vec<3>(0.0, 0.0, 0.5);
    x.p = Vec<3>(0.1, 0.2, 0.3);
    const auto r = nonholonomic_step<Midpoint>(s, x, 0.01);
    EXPECT_FALSE(r.converged);
    EXPECT_EQ(std::string(r.message), msg_nonholonomic_dependent);
  }
  // degenerate Lagrangian: no thetadot term
  {
    const DegenerateSleigh s{};
    DelState<3> x;
    const auto r = nonholonomic_step<Midpoint>(s, x, 0.01);
    EXPECT_FALSE(r.converged);
    EXPECT_EQ(std::string(r.message), msg_degenerate);
  }
  // non-finite momentum
  {
    DelState<3> x = sleigh_start(0.1, 0.2, 0.3);
    const DelState<3> before = x;
    x.p(1) = std::numeric_limits<double>::quiet_NaN();
    const auto r = nonholonomic_step<Midpoint>(kSleigh, x, 0.01);
    EXPECT_FALSE(r.converged);
    EXPECT_EQ(std::string(r.message), msg_nonholonomic_nonfinite);
    EXPECT_EQ(x.q, before.q);  // state untouched
  }
  // iteration limit
  {
    DelState<3> x = sleigh_start(0.1, 0.5, 3.0);
    NonholonomicOptions opt;
    opt.del.newton.max_iterations = 1;
    const auto r = nonholonomic_step<Midpoint>(kSleigh, x, 0.2, opt);
    EXPECT_FALSE(r.converged);
    EXPECT_EQ(std::string(r.message), msg_nonholonomic_iterations);
    EXPECT_NE(describe_nonholonomic_failure(r, 7, 1.4).find("step 7"), std::string::npos);
  }
}

TEST(NonholonomicStep, IntegrateChecksStartAndThrowsOnFailure) {
  // a start velocity off the constraint is refused with a message naming the fix
  const Vec<3> q(0.0, 0.0, 0.3);
  Vec<3> qd(1.0, 0.5, 0.2);
  DelState<3> x = nonholonomic_state(kSleigh, q, qd);
  long seen = 0;
  auto count = [&](long k, const DelState<3>&) { seen = k; };
  try {
    integrate_nonholonomic<Midpoint>(kSleigh, x, 0.01, 10, count);
    FAIL() << "expected lievi::invalid_argument";
  } catch (const lievi::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("project_velocity"), std::string::npos) << e.what();
  }
  EXPECT_EQ(seen, 0);
  // projected, it runs
  ASSERT_TRUE(project_velocity(kSleigh, q, qd));
  x = nonholonomic_state(kSleigh, q, qd);
  integrate_nonholonomic<Midpoint>(kSleigh, x, 0.01, 10, count);
  EXPECT_EQ(seen, 10);
  // a failing step becomes lievi::numerical_failure with the step index
  NonholonomicOptions opt;
  opt.del.newton.max_iterations = 1;
  x = nonholonomic_state(kSleigh, q, qd);
  EXPECT_THROW(integrate_nonholonomic<Midpoint>(kSleigh, x, 0.3, 10, count, opt), lievi::numerical_failure);
}
