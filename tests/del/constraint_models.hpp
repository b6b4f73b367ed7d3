#pragma once
// The constrained models and helpers shared by test_del_constraints.cpp, test_del_constraints_order.cpp and
// test_del_constraints_models.cpp (three files, so that none takes the time and memory of the whole: the
// constrained steppers instantiate heavily).
#include <gtest/gtest.h>
#include <Eigen/Geometry>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "lievi/integrators/del/constraints.hpp"
#include "support/convergence.hpp"

using namespace lievi::integrators::del;
using lievi::StepResult;

namespace {

constexpr double eps = 2.220446049250313e-16;

/// Spherical pendulum, q in R^3: L = 1/2 mass |v|^2 - mass grav z - (k/2)(x^2 + y^2) (an axisymmetric spring, so
/// that V is not linear and midpoint differs from trapezoid), g(q) = (|q|^2 - l^2)/2.
struct SphericalPendulum {
  static constexpr int dim = 3;
  static constexpr int n_constraints = 1;
  double mass = 1.3, grav = 9.81, l = 1.0, k = 3.0;
  template <class S>
  S L(const Eigen::Matrix<S, 3, 1>& q, const Eigen::Matrix<S, 3, 1>& v) const {
    return 0.5 * mass * v.squaredNorm() - mass * grav * q(2) - 0.5 * k * (q(0) * q(0) + q(1) * q(1));
  }
  Vec<3> gradV(const Vec<3>& q) const { return Vec<3>(k * q(0), k * q(1), mass * grav); }
  template <class S>
  Eigen::Matrix<S, 1, 1> g(const Eigen::Matrix<S, 3, 1>& q) const {
    Eigen::Matrix<S, 1, 1> r;
    r(0) = 0.5 * (q.squaredNorm() - l * l);
    return r;
  }
};

/// Planar pendulum with a horizontal spring, q in R^2 (y up): L = 1/2 mass |v|^2, V = mass grav y + (k/2) x^2,
/// optional damping f = -c v (DampedPlanarPendulum).
struct PlanarPendulum {
  static constexpr int dim = 2;
  static constexpr int n_constraints = 1;
  double mass = 0.7, grav = 9.81, l = 1.2, k = 2.0;
  template <class S>
  S L(const Eigen::Matrix<S, 2, 1>&, const Eigen::Matrix<S, 2, 1>& v) const {
    return 0.5 * mass * v.squaredNorm();
  }
  template <class S>
  S V(const Eigen::Matrix<S, 2, 1>& q) const {
    return mass * grav * q(1) + 0.5 * k * q(0) * q(0);
  }
  template <class S>
  Eigen::Matrix<S, 1, 1> g(const Eigen::Matrix<S, 2, 1>& q) const {
    Eigen::Matrix<S, 1, 1> r;
    r(0) = 0.5 * (q.squaredNorm() - l * l);
    return r;
  }
};

struct DampedPlanarPendulum : PlanarPendulum {
  double c = 0.3;
  template <class S>
  Eigen::Matrix<S, 2, 1> f(const Eigen::Matrix<S, 2, 1>&, const Eigen::Matrix<S, 2, 1>& v, double) const {
    return -c * v;
  }
};

/// Non-quadratic kinetic term L = 1/2 |v|^2 + (eps4/4) |v|^4 - grav y on the circle: p = (1 + eps4 |v|^2) v.
struct QuarticPendulum {
  static constexpr int dim = 2;
  static constexpr int n_constraints = 1;
  double eps4 = 0.2, grav = 9.81, l = 1.0;
  template <class S>
  S L(const Eigen::Matrix<S, 2, 1>& q, const Eigen::Matrix<S, 2, 1>& v) const {
    const S v2 = v.squaredNorm();
    return 0.5 * v2 + 0.25 * eps4 * v2 * v2 - grav * q(1);
  }
  template <class S>
  Eigen::Matrix<S, 1, 1> g(const Eigen::Matrix<S, 2, 1>& q) const {
    Eigen::Matrix<S, 1, 1> r;
    r(0) = 0.5 * (q.squaredNorm() - l * l);
    return r;
  }
};

/// The same constraint twice: G has rank 1 < 2.
struct DuplicateConstraint : SphericalPendulum {
  static constexpr int n_constraints = 2;
  template <class S>
  Eigen::Matrix<S, 2, 1> g(const Eigen::Matrix<S, 3, 1>& q) const {
    Eigen::Matrix<S, 2, 1> r;
    r(0) = 0.5 * (q.squaredNorm() - l * l);
    r(1) = r(0);
    return r;
  }
};

/// Anisotropic mass diag(1, 2, 3) on the unit sphere (for the kinetic-metric projection).
struct AnisotropicSphere {
  static constexpr int dim = 3;
  static constexpr int n_constraints = 1;
  template <class S>
  S L(const Eigen::Matrix<S, 3, 1>&, const Eigen::Matrix<S, 3, 1>& v) const {
    return 0.5 * (v(0) * v(0) + 2.0 * v(1) * v(1) + 3.0 * v(2) * v(2));
  }
  template <class S>
  Eigen::Matrix<S, 1, 1> g(const Eigen::Matrix<S, 3, 1>& q) const {
    Eigen::Matrix<S, 1, 1> r;
    r(0) = 0.5 * (q.squaredNorm() - 1.0);
    return r;
  }
};

static_assert(ConstrainedModel<SphericalPendulum>);
static_assert(ConstrainedModel<DampedPlanarPendulum>);
static_assert(ConstrainedModel<DuplicateConstraint>);
static_assert(!ConstrainedModel<DelState<3>>);

struct NotConstrained {  // a LagrangianModel without g
  static constexpr int dim = 2;
  template <class S>
  S L(const Eigen::Matrix<S, 2, 1>&, const Eigen::Matrix<S, 2, 1>& v) const {
    return 0.5 * v.squaredNorm();
  }
};
static_assert(LagrangianModel<NotConstrained> && !ConstrainedModel<NotConstrained>);

/// Spherical pendulum start: polar angle theta0 from the downward vertical, azimuthal speed w (tangent).
DelState<3> spherical_start(const SphericalPendulum& m, double theta0, double w, double thetadot0 = 0.0) {
  DelState<3> x;
  x.q = m.l * Vec<3>(std::sin(theta0), 0.0, -std::cos(theta0));
  const Vec<3> v = m.l * Vec<3>(std::cos(theta0) * thetadot0, std::sin(theta0) * w, std::sin(theta0) * thetadot0);
  x.p = m.mass * v;
  return x;
}

ConstraintOptions with(Projection pr) {
  ConstraintOptions o;
  o.projection = pr;
  return o;
}

inline double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

/// Classical RK4 of y' = f(y) on a fixed-size vector, N steps of size h.
template <class Y, class F>
Y rk4(Y y, double h, long N, F&& f) {
  for (long k = 0; k < N; ++k) {
    const Y k1 = f(y), k2 = f(Y(y + 0.5 * h * k1)), k3 = f(Y(y + 0.5 * h * k2)), k4 = f(Y(y + h * k3));
    y += h / 6.0 * (k1 + 2.0 * k2 + 2.0 * k3 + k4);
  }
  return y;
}

}  // namespace
