#pragma once
/// @file tests/support/del_models.hpp
/// @brief Lagrangian models shared by the DEL tests (tests/del/): unit pendulum, unit Kepler problem and unit
/// double pendulum, each with AD derivatives and (Kepler, double pendulum) with hand-written ones, which the
/// tests compare against AD.
#include <cmath>

#include "lievi/integrators/del/lagrangian.hpp"

namespace lievi::test::del_models {

using integrators::del::LagrangianDerivatives;
using integrators::del::Mat;
using integrators::del::Vec;

/// L = qdot^2/2 + cos q (AD derivatives).
struct Pendulum {
  static constexpr int dim = 1;
  template <class S>
  S L(const Eigen::Matrix<S, 1, 1>& q, const Eigen::Matrix<S, 1, 1>& v) const {
    using std::cos;
    return 0.5 * v(0) * v(0) + cos(q(0));
  }
};

/// L = |qdot|^2/2 + 1/|q| (AD derivatives).
struct Kepler {
  static constexpr int dim = 2;
  template <class S>
  S L(const Eigen::Matrix<S, 2, 1>& q, const Eigen::Matrix<S, 2, 1>& v) const {
    using std::sqrt;
    return 0.5 * v.squaredNorm() + 1.0 / sqrt(q.squaredNorm());
  }
};

/// Kepler with analytic derivatives: Lq = -q/r^3, Lqq = -I/r^3 + 3 q q^T / r^5, Lv = v, Lvv = I, Lqv = 0.
struct KeplerAnalytic : Kepler {
  LagrangianDerivatives<2> derivatives(const Vec<2>& q, const Vec<2>& v) const {
    LagrangianDerivatives<2> d;
    const double r2 = q.squaredNorm(), r = std::sqrt(r2), r3 = r2 * r;
    d.L = 0.5 * v.squaredNorm() + 1.0 / r;
    d.Lq = -q / r3;
    d.Lv = v;
    d.Lqq = -Mat<2>::Identity() / r3 + 3.0 * q * q.transpose() / (r3 * r2);
    d.Lvv = Mat<2>::Identity();
    return d;
  }
};

/// Double pendulum, unit masses and lengths, g = 1 (AD):
/// L = v1^2 + v2^2/2 + v1 v2 cos(q1 - q2) + 2 cos q1 + cos q2.
struct DoublePendulum {
  static constexpr int dim = 2;
  template <class S>
  S L(const Eigen::Matrix<S, 2, 1>& q, const Eigen::Matrix<S, 2, 1>& v) const {
    using std::cos;
    return v(0) * v(0) + 0.5 * v(1) * v(1) + v(0) * v(1) * cos(q(0) - q(1)) + 2.0 * cos(q(0)) + cos(q(1));
  }
};

/// The same with hand-written derivatives (D = q1 - q2, c = cos D, s = sin D):
/// Lq = (-v1 v2 s - 2 sin q1, v1 v2 s - sin q2), Lv = (2 v1 + v2 c, v2 + v1 c),
/// Lqq = [[-v1 v2 c - 2 cos q1, v1 v2 c], [v1 v2 c, -v1 v2 c - cos q2]],
/// Lqv(i, j) = d2L/dq_i dv_j = [[-v2 s, -v1 s], [v2 s, v1 s]], Lvv = [[2, c], [c, 1]].
struct DoublePendulumAnalytic : DoublePendulum {
  LagrangianDerivatives<2> derivatives(const Vec<2>& q, const Vec<2>& v) const {
    const double D = q(0) - q(1), c = std::cos(D), s = std::sin(D), w = v(0) * v(1);
    LagrangianDerivatives<2> d;
    d.L = L(q, v);
    d.Lq << -w * s - 2.0 * std::sin(q(0)), w * s - std::sin(q(1));
    d.Lv << 2.0 * v(0) + v(1) * c, v(1) + v(0) * c;
    d.Lqq << -w * c - 2.0 * std::cos(q(0)), w * c, w * c, -w * c - std::cos(q(1));
    d.Lqv << -v(1) * s, -v(0) * s, v(1) * s, v(0) * s;
    d.Lvv << 2.0, c, c, 1.0;
    return d;
  }
};

}  // namespace lievi::test::del_models
