#pragma once
/// @file lievi/config/lie_group.hpp
/// @brief The typed configuration of a Lie-group run (`model.type = "lie_group"`): one rigid-body system of the
/// catalogue models/lie_mechanics.hpp (the heavy top, the 3D pendulum, the free rigid body) with its parameters,
/// the initial attitude and angular velocity, a Lie-group variational integrator (integrators/lie_del) or the RK4
/// comparator, and the output. A scenario file is read into it; the keys, defaults and allowed values are those of
/// docs/scenarios.md ("lie_group"), and the member initialisers are the defaults.
#include <Eigen/Core>
#include <array>
#include <vector>

#include "lievi/core/error.hpp"

namespace lievi::config {

/// model.system: the heavy top (fixed point, gravity -g e3 with e3 up), the 3D pendulum of Lee, Leok &
/// McClamroch (pivot, gravity +g e3 with e3 down), the free rigid body on SO(3), and the rigid body in space on
/// SE(3) (gravity -g e3, optionally on a vertical spring).
enum class LieSystem { heavy_top, pendulum_3d, free_body, floating_body };
/// integrator.method: the DEL on SO(3) in position-momentum form (R_k, Pi_k); its reduced form on (Pi, Gamma)
/// (Euler-Poincare with the advected vector Gamma = R^T e3; the attitude reconstructed alongside); Moser-Veselov's
/// discrete Lagrangian (free body only); the RK4 comparator on (R, Pi).
enum class LieMethod { del, del_reduced, moser_veselov, rk4 };
/// integrator.retraction of del and del-reduced.
enum class LieRetraction { cayley, exp };

[[nodiscard]] const char* id(LieSystem s);
[[nodiscard]] const char* id(LieMethod m);
[[nodiscard]] const char* id(LieRetraction r);

struct LieGroupConfig {
  using Mat3 = Eigen::Matrix3d;
  using Vec3 = Eigen::Vector3d;
  // model
  LieSystem system = LieSystem::heavy_top;       ///< required in a scenario file
  Mat3 inertia = Mat3::Identity();               ///< about the fixed point / pivot (free body: centre of mass); required
  bool inertia_is_matrix = false;                ///< given as a 3x3 matrix (else 3 principal moments)
  double mass = 1.0;                             ///< m, kg (> 0; heavy_top, pendulum_3d)
  double gravity = 9.81;                         ///< g, m/s^2 (>= 0; heavy_top, pendulum_3d)
  std::array<double, 3> chi{0.0, 0.0, 1.0};      ///< centre of mass from the fixed point / pivot / body origin, m
  double spring_stiffness = 0.0;                 ///< k, N/m (>= 0; floating_body)
  std::array<double, 3> spring_point{0.0, 0.0, 0.0};  ///< where the spring acts, from the body origin, body frame, m

  // initial
  std::array<double, 4> attitude{1.0, 0.0, 0.0, 0.0};  ///< R_0 as a unit quaternion (w, x, y, z), body to spatial
  Vec3 omega0 = Vec3::Zero();                          ///< Omega_0, body angular velocity
  Vec3 Pi0 = Vec3::Zero();                             ///< Pi_0 = I Omega_0, body angular momentum
  bool omega_given = true;                             ///< initial.omega given (else initial.Pi)
  std::array<double, 3> position{0.0, 0.0, 0.0};       ///< floating_body: x_0 of the body origin, spatial, m
  std::array<double, 3> velocity{0.0, 0.0, 0.0};       ///< floating_body: v_0 of the body origin, body frame, m/s

  // integrator
  LieMethod method = LieMethod::del;
  LieRetraction retraction = LieRetraction::cayley;
  double dt = 0.0, t_end = 0.0;
  long long steps = 0;
  double newton_tol = 1e-13;      ///< relative residual tolerance of the implicit step
  long long max_iterations = 50;  ///< Newton iteration limit per step

  // output
  long long every = 1;
  bool plots = true;
  long long checkpoint_every = 0;  ///< checkpoint.h5 every so many steps (0: not by steps)
  double checkpoint_wall = 0.0;    ///< checkpoint.h5 after so many seconds of wall time (0: not by time)
  [[nodiscard]] bool checkpoints() const { return checkpoint_every > 0 || checkpoint_wall > 0.0; }

  /// A system under gravity (its potential depends on the attitude through Gamma = R^T e3).
  [[nodiscard]] bool gravitating() const { return system != LieSystem::free_body; }
  /// The body in space on SE(3).
  [[nodiscard]] bool floating() const { return system == LieSystem::floating_body; }
  /// The method is implicit (Newton): every method but rk4.
  [[nodiscard]] bool implicit() const { return method != LieMethod::rk4; }
  /// The method reads integrator.retraction.
  [[nodiscard]] bool uses_retraction() const { return method == LieMethod::del || method == LieMethod::del_reduced; }
  [[nodiscard]] double time_at(long long k) const { return k == steps ? t_end : static_cast<double>(k) * dt; }
};

/// Every problem of `c`, each naming the key, the value and what is allowed. Empty when `c` is valid.
[[nodiscard]] std::vector<InputIssue> problems(const LieGroupConfig& c);
/// Throws lievi::invalid_argument carrying every problem of `c`.
void validate(const LieGroupConfig& c);

}  // namespace lievi::config
