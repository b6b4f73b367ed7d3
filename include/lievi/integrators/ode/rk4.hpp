#pragma once
/// @file lievi/integrators/ode/rk4.hpp
/// @brief Classical fourth-order Runge–Kutta for the rigid body, integrating the attitude with the momentum:
///   dM/dt = f(M) (models/rigid_body.hpp),  dR/dt = R hat(Omega),  Omega = I^{-1} M.
/// The comparator of seed 002: it drifts off the Casimir sphere and R drifts off SO(3).
#include "lievi/core/error.hpp"
#include "lievi/integrators/rigid_body_stepper.hpp"
#include "lievi/lie/so3.hpp"
#include "lievi/models/rigid_body.hpp"

namespace lievi::integrators {

struct RK4 {
  static constexpr MethodTraits traits{"rk4", 4, false, false, false, false,
                                       "classical Runge-Kutta 4 (comparator; M and R together)"};

  /// One RK4 step of (M, R). Returns converged = false if the new state is not finite.
  static StepResult step(const models::RigidBody& b, models::RigidBodyState& x, double h) {
    using lie::hat;
    using models::Mat3;
    using models::Vec3;
    const auto fR = [&](const Mat3& R, const Vec3& M) -> Mat3 { return R * hat(b.omega(M)); };
    const Vec3 k1 = b.field(x.M);
    const Mat3 l1 = fR(x.R, x.M);
    const Vec3 M2 = x.M + 0.5 * h * k1;
    const Mat3 R2 = x.R + 0.5 * h * l1;
    const Vec3 k2 = b.field(M2);
    const Mat3 l2 = fR(R2, M2);
    const Vec3 M3 = x.M + 0.5 * h * k2;
    const Mat3 R3 = x.R + 0.5 * h * l2;
    const Vec3 k3 = b.field(M3);
    const Mat3 l3 = fR(R3, M3);
    const Vec3 M4 = x.M + h * k3;
    const Mat3 R4 = x.R + h * l3;
    const Vec3 k4 = b.field(M4);
    const Mat3 l4 = fR(R4, M4);
    x.M += (h / 6.0) * (k1 + 2.0 * k2 + 2.0 * k3 + k4);
    x.R += (h / 6.0) * (l1 + 2.0 * l2 + 2.0 * l3 + l4);
    StepResult r;
    if (!x.M.allFinite() || !x.R.allFinite()) {
      r.converged = false;
      r.message = "non-finite state after an RK4 step";
    }
    return r;
  }
};

}  // namespace lievi::integrators
