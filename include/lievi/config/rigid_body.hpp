#pragma once
/// @file lievi/config/rigid_body.hpp
/// @brief The typed configuration of a rigid-body run: the model, the initial state, the method and the
/// output, as enumerations and numbers. A scenario file (`model.type = "rigid_body"`) is read into it; a C++
/// user fills it directly and checks it with `validate`.
///
/// The keys, defaults, units and allowed values are those of docs/scenarios.md ("rigid_body"); the member
/// initialisers are the defaults.
#include <Eigen/Geometry>
#include <array>
#include <string>
#include <vector>

#include "lievi/core/error.hpp"
#include "lievi/integrators/rigid_body_stepper.hpp"
#include "lievi/models/rigid_body.hpp"

namespace lievi::config {

/// integrator.method: the registered rigid-body methods (`lievi methods`).
enum class RigidBodyMethod { ddb, rk4, ddb_symmetric, moser_veselov, lobatto_iiic, dop853 };
/// integrator.retraction of the DDB family: Cayley, exponential, exponential with dexp^-1 to order 2.
enum class Retraction { cayley, exp, exp2 };
/// integrator.dissipation_quadrature of ddb-symmetric.
enum class DissipationQuadrature { midpoint, trapezoid };

/// The scenario-file name of each value ("ddb-symmetric", "exp2", "trapezoid").
[[nodiscard]] const char* id(RigidBodyMethod m);
[[nodiscard]] const char* id(Retraction r);
[[nodiscard]] const char* id(DissipationQuadrature q);

/// A rigid-body run: dM/dt = M x Omega + alpha-type dissipation, Omega = I^-1 M, R' = R hat(Omega).
struct RigidBodyConfig {
  // model
  models::Mat3 inertia = models::Mat3::Identity();  ///< I, symmetric positive definite (body frame)
  bool inertia_is_matrix = false;                   ///< given as a 3x3 matrix (else 3 principal moments)
  double alpha = 0.0;                               ///< K = alpha Id unless `metric_given`, >= 0
  models::Mat3 K = models::Mat3::Zero();            ///< dissipation metric, symmetric PSD (resolved)
  bool metric_given = false;                        ///< K given (then alpha is unused)

  // initial
  models::Vec3 M0 = models::Vec3::Zero();      ///< initial body momentum M_0 = I Omega_0
  models::Vec3 omega0 = models::Vec3::Zero();  ///< initial body angular velocity Omega_0 = I^-1 M_0
  bool omega_given = true;                     ///< Omega_0 given (else M_0)
  /// R_0, the initial attitude (body to spatial) as a unit quaternion (qw, qx, qy, qz)
  std::array<double, 4> attitude{1.0, 0.0, 0.0, 0.0};

  // integrator
  RigidBodyMethod method = RigidBodyMethod::ddb;
  Retraction retraction = Retraction::cayley;
  DissipationQuadrature dissipation_quadrature = DissipationQuadrature::midpoint;
  bool symmetric_processing = true;  ///< ddb-symmetric start/output correction
  double dt = 0.0;                   ///< h, the time step (> 0)
  double t_end = 0.0;                ///< final time; t_end = steps dt within 1e-9 relative
  long long steps = 0;               ///< N = round(t_end / dt)
  double rtol = 1e-13, atol = 1e-13;  ///< adaptive methods (dop853), > 0

  // output
  long long every = 1;  ///< a row of series.csv every `every` steps (first and last rows always)
  bool plots = true;    ///< the PNG plots (python3 + matplotlib)
  long long checkpoint_every = 0;  ///< checkpoint.h5 every so many steps (0: not by steps)
  double checkpoint_wall = 0.0;    ///< checkpoint.h5 after so many seconds of wall time (0: not by time)
  [[nodiscard]] bool checkpoints() const { return checkpoint_every > 0 || checkpoint_wall > 0.0; }

  /// The model: RigidBody::general(inertia, K).
  [[nodiscard]] models::RigidBody model() const { return models::RigidBody::general(inertia, K); }
  /// The options of the integrator registry (integrators/rigid_body_stepper.hpp).
  [[nodiscard]] integrators::RigidBodyMethodOptions method_options() const;
  /// Initial state (M_0, R_0).
  [[nodiscard]] models::RigidBodyState initial_state() const {
    models::RigidBodyState x;
    x.M = M0;
    x.R = Eigen::Quaterniond(attitude[0], attitude[1], attitude[2], attitude[3]).toRotationMatrix();
    return x;
  }
  /// t_k = k dt, except t_N = t_end exactly (they agree within 1e-9 relative by validation).
  [[nodiscard]] double time_at(long long k) const { return k == steps ? t_end : static_cast<double>(k) * dt; }
};

/// Every problem of `c`, each naming the key, the value and what is allowed (the messages of a scenario file):
/// ranges, an enumeration value out of range, a non-symmetric or indefinite inertia, a non-PSD metric, a
/// non-finite initial state, a time grid whose t_end is not a whole number of steps. Empty when `c` is valid.
[[nodiscard]] std::vector<InputIssue> problems(const RigidBodyConfig& c);
/// Throws lievi::invalid_argument carrying every problem of `c` (nothing is built from an invalid config).
void validate(const RigidBodyConfig& c);

}  // namespace lievi::config
