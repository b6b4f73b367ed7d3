#pragma once
/// @file lievi/config/lagrangian.hpp
/// @brief The typed configuration of a Lagrangian-mechanics run: one system of the catalogue
/// (models/mechanics.hpp) with its parameters, the initial state, a discrete-mechanics method (or the RK4
/// comparator) and the output, as enumerations and numbers. A scenario file (`model.type = "lagrangian"`) is
/// read into it; the keys, defaults and allowed values are those of docs/scenarios.md ("lagrangian"), and the
/// member initialisers are the defaults.
#include <vector>

#include "lievi/core/error.hpp"

namespace lievi::config {

/// model.system: the catalogue systems, of configuration dimension 1, 2, 2, 3, 1, and the nonholonomic ones
/// (models/nonholonomic.hpp) of dimension 3, 4 and 5.
enum class MechanicalSystem {
  pendulum,
  double_pendulum,
  kepler,
  spherical_pendulum,
  oscillator,
  chaplygin_sleigh,
  vertical_disk,
  rolling_disk
};
/// integrator.method: midpoint, trapezoid, lobatto-iiia-iiib (variational) or the rk4 comparator.
enum class MechanicsMethod { midpoint, trapezoid, lobatto_iiia_iiib, rk4 };
/// integrator.constraints of a constrained system: RATTLE (momentum projected onto the hidden constraint) or
/// SHAKE.
enum class Projection { rattle, shake };

[[nodiscard]] const char* id(MechanicalSystem s);
[[nodiscard]] const char* id(MechanicsMethod m);
[[nodiscard]] const char* id(Projection p);
/// The configuration dimension n of a system.
[[nodiscard]] int dimension(MechanicalSystem s);

struct LagrangianConfig {
  // model
  MechanicalSystem system = MechanicalSystem::pendulum;  ///< required in a scenario file
  double mass = 1.0;                      ///< pendulum, kepler, spherical_pendulum, oscillator (> 0)
  double length = 1.0;                    ///< pendulum, spherical_pendulum (> 0)
  double gravity = 9.81;                  ///< pendulums (>= 0)
  std::vector<double> masses{1.0, 1.0};   ///< double_pendulum: m1, m2 (> 0)
  std::vector<double> lengths{1.0, 1.0};  ///< double_pendulum: l1, l2 (> 0)
  double mu = 1.0;                        ///< kepler: G M (> 0)
  double stiffness = 1.0;                 ///< oscillator: k (>= 0)
  double damping = 0.0;                   ///< oscillator: c, force -c qdot (>= 0)
  double force_amplitude = 0.0;           ///< oscillator: F, force F cos(w t)
  double force_frequency = 1.0;           ///< oscillator: w, rad/s (>= 0)
  double inertia = 1.0;                   ///< chaplygin_sleigh: I about the centre of mass (> 0)
  double offset = 1.0;                    ///< chaplygin_sleigh: a, the blade behind the centre of mass (>= 0)
  double radius = 1.0;                    ///< vertical_disk, rolling_disk: R (> 0)
  std::vector<double> inertias;           ///< disks: [I about the axle, J about a diameter]; empty: uniform disk

  // initial
  std::vector<double> q0;     ///< q(0), dimension(system) numbers
  std::vector<double> qdot0;  ///< qdot(0), dimension(system) numbers (a scenario's default: zeros)

  // integrator
  MechanicsMethod method = MechanicsMethod::midpoint;
  Projection constraints = Projection::rattle;  ///< spherical_pendulum
  double dt = 0.0, t_end = 0.0;
  long long steps = 0;
  double newton_tol = 1e-13;      ///< relative residual tolerance of the implicit step
  long long max_iterations = 50;  ///< Newton iteration limit per step
  double drift_tol = 1e-10;       ///< |g(q)| beyond this is a failure (constrained)

  // output
  long long every = 1;
  bool plots = true;
  long long checkpoint_every = 0;  ///< checkpoint.h5 every so many steps (0: not by steps)
  double checkpoint_wall = 0.0;    ///< checkpoint.h5 after so many seconds of wall time (0: not by time)
  [[nodiscard]] bool checkpoints() const { return checkpoint_every > 0 || checkpoint_wall > 0.0; }

  [[nodiscard]] int dim() const { return dimension(system); }
  [[nodiscard]] bool constrained() const { return system == MechanicalSystem::spherical_pendulum; }
  /// A system with nonholonomic (velocity) constraints, stepped by the discrete Lagrange–d'Alembert principle.
  [[nodiscard]] bool nonholonomic() const {
    return system == MechanicalSystem::chaplygin_sleigh || system == MechanicalSystem::vertical_disk ||
           system == MechanicalSystem::rolling_disk;
  }
  /// The disks' moments of inertia [I, J]: `inertias`, or a uniform disk's [m R^2 / 2, m R^2 / 4].
  [[nodiscard]] std::vector<double> disk_inertias() const {
    return inertias.size() == 2 ? inertias : std::vector<double>{0.5 * mass * radius * radius, 0.25 * mass * radius * radius};
  }
  [[nodiscard]] bool has_momentum_map() const {
    return system == MechanicalSystem::kepler || system == MechanicalSystem::spherical_pendulum;
  }
  [[nodiscard]] double time_at(long long k) const { return k == steps ? t_end : static_cast<double>(k) * dt; }
};

/// Every problem of `c`, each naming the key, the value and what is allowed: the checks of the scenario keys,
/// the time grid, the initial state against the system's dimension. Empty when `c` is valid.
[[nodiscard]] std::vector<InputIssue> problems(const LagrangianConfig& c);
/// Throws lievi::invalid_argument carrying every problem of `c`.
void validate(const LagrangianConfig& c);

}  // namespace lievi::config
