#pragma once
/// @file lievi/config/kirchhoff.hpp
/// @brief The typed configuration of a run of Kirchhoff's rigid body in an ideal fluid with double-bracket
/// dissipation (`model.type = "kirchhoff"`): the body (models::Kirchhoff: principal moments, mass, added masses,
/// coupling block, or a solid ellipsoid with Lamb's added masses), the dissipation metric K = diag(alpha_rot Id,
/// alpha_trans Id), the initial impulses (or velocities) and pose, the DDB method on se(3)* and the output, as
/// enumerations and numbers. The keys, defaults, units and allowed values are those of docs/scenarios.md
/// ("kirchhoff"); the member initialisers are the defaults.
#include <Eigen/Geometry>
#include <array>
#include <vector>

#include "lievi/config/rigid_body.hpp"
#include "lievi/core/error.hpp"
#include "lievi/lie/se3.hpp"
#include "lievi/models/kirchhoff.hpp"

namespace lievi::config {

struct KirchhoffConfig {
  // model (a body given by its parameters, or an ellipsoid: then the five below are derived from it)
  models::Vec3 inertia = models::Vec3::Ones();         ///< I_i, body moments about the principal axes, > 0
  double mass = 1.0;                                   ///< m, > 0
  models::Vec3 added_inertia = models::Vec3::Zero();   ///< added moments of the fluid, >= 0
  models::Vec3 added_mass = models::Vec3::Zero();      ///< added masses along the principal axes, >= 0
  models::Mat3 coupling = models::Mat3::Zero();        ///< C, the lower-left block of A (zero by default)
  bool is_ellipsoid = false;                           ///< model.ellipsoid given
  models::Vec3 semi_axes = models::Vec3::Ones();       ///< model.ellipsoid: (a, b, c), > 0
  double density = 1000.0;                             ///< rho_body of the ellipsoid, > 0
  double fluid_density = 1000.0;                       ///< rho_fluid of the ellipsoid, >= 0
  double alpha_rot = 0.0;                              ///< K, rotational block alpha_rot Id, >= 0
  double alpha_trans = 0.0;                            ///< K, translational block alpha_trans Id, >= 0

  // initial
  models::Vec3 Pi0 = models::Vec3::Zero();     ///< initial impulse moment Pi_0 (body frame)
  models::Vec3 P0 = models::Vec3::Zero();      ///< initial impulse P_0 (body frame)
  models::Vec3 Omega0 = models::Vec3::Zero();  ///< initial angular velocity Omega_0 (body frame)
  models::Vec3 V0 = models::Vec3::Zero();      ///< initial velocity V_0 (body frame)
  bool velocity_given = false;                 ///< (Omega_0, V_0) given (else (Pi_0, P_0)); the other pair derived
  std::array<double, 4> attitude{1.0, 0.0, 0.0, 0.0};  ///< R_0, unit quaternion (qw, qx, qy, qz), body to spatial
  models::Vec3 position = models::Vec3::Zero();        ///< x_0, spatial

  // integrator
  RigidBodyMethod method = RigidBodyMethod::ddb;  ///< ddb or ddb_symmetric
  Retraction retraction = Retraction::cayley;     ///< cayley or exp
  bool symmetric_processing = true;               ///< ddb-symmetric start/output processing
  double dt = 0.0, t_end = 0.0;
  long long steps = 0;
  double newton_tol = 1e-13;      ///< relative residual tolerance of step (a)
  long long max_iterations = 50;  ///< Newton iteration limit per step

  // output
  long long every = 1;
  bool plots = true;
  long long checkpoint_every = 0;  ///< checkpoint.h5 every so many steps (0: not by steps)
  double checkpoint_wall = 0.0;    ///< checkpoint.h5 after so many seconds of wall time (0: not by time)
  [[nodiscard]] bool checkpoints() const { return checkpoint_every > 0 || checkpoint_wall > 0.0; }

  /// The body: Kirchhoff::ellipsoid(semi_axes, density, fluid_density, alpha_rot, alpha_trans), or the
  /// parameters as given.
  [[nodiscard]] models::Kirchhoff model() const {
    if (is_ellipsoid) return models::Kirchhoff::ellipsoid(semi_axes, density, fluid_density, alpha_rot, alpha_trans);
    models::Kirchhoff k;
    k.inertia = inertia;
    k.added_inertia = added_inertia;
    k.mass = mass;
    k.added_mass = added_mass;
    k.coupling = coupling;
    k.alpha_rot = alpha_rot;
    k.alpha_trans = alpha_trans;
    return k;
  }
  /// mu_0 = (Pi_0, P_0), or A (Omega_0, V_0) when the velocities were given.
  [[nodiscard]] lie::Vec6 mu0() const {
    lie::Vec6 mu;
    if (velocity_given) {
      lie::Vec6 xi;
      xi << Omega0, V0;
      mu = model().locked_inertia() * xi;
    } else {
      mu << Pi0, P0;
    }
    return mu;
  }
  /// The initial state (mu_0, g_0 = (R_0, x_0)).
  [[nodiscard]] models::LiePoissonState<lie::SE3> initial_state() const;
  [[nodiscard]] double time_at(long long k) const { return k == steps ? t_end : static_cast<double>(k) * dt; }
};

inline models::LiePoissonState<lie::SE3> KirchhoffConfig::initial_state() const {
  models::LiePoissonState<lie::SE3> x;
  x.mu = mu0();
  x.g = lie::SE3(Eigen::Quaterniond(attitude[0], attitude[1], attitude[2], attitude[3]).toRotationMatrix(), position);
  return x;
}

/// Every problem of `c`, each naming the key, the value and what is allowed (the messages of a scenario file):
/// ranges, a method or retraction the se(3)* DDB does not have, a locked inertia that is not positive definite
/// (a coupling block too large), a non-finite initial state, the time grid. Empty when `c` is valid.
[[nodiscard]] std::vector<InputIssue> problems(const KirchhoffConfig& c);
/// Throws lievi::invalid_argument carrying every problem of `c`.
void validate(const KirchhoffConfig& c);

}  // namespace lievi::config
