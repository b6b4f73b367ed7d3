#pragma once
/// @file lievi/io/mechanics_scenario.hpp
/// @brief The Lagrangian-mechanics scenario, `model.type = "lagrangian"`: one of the catalogue systems of
/// models/mechanics.hpp (`model.system`), integrated by a discrete-mechanics method (integrators/del) or by the
/// RK4 comparator on the Euler-Lagrange ODE.
///
/// Same schema style as the other models (io/scenario.hpp): TOML reading, `--set` conversion, every issue of a
/// file reported together, `lievi validate` printout and the docs/scenarios.md key table (`mechanics_schema()`).
/// Keys a system or method does not read are accepted (their values are still checked) and noted as ignored.
#include <filesystem>
#include <string>
#include <vector>

#include "lievi/io/scenario.hpp"

namespace lievi::io {

/// One method of the lagrangian model, for `lievi methods` and the scenario's allowed values.
struct MechanicsMethodInfo {
  const char* id;
  int order;
  bool is_implicit;
  bool symplectic;   ///< variational (symplectic, discrete Noether)
  bool constraints;  ///< available for the constrained system (SHAKE / RATTLE)
  const char* summary;
};

/// midpoint, trapezoid, lobatto-iiia-iiib, rk4.
[[nodiscard]] const std::vector<MechanicsMethodInfo>& mechanics_methods();
/// pendulum, double_pendulum, kepler, spherical_pendulum, oscillator.
[[nodiscard]] const std::vector<std::string>& mechanics_systems();
/// Configuration dimension n of a system (0 for an unknown name).
[[nodiscard]] int mechanics_dim(const std::string& system);

/// A validated lagrangian scenario, every default filled.
struct MechanicsScenario {
  std::string name;    ///< file stem (default output folder runs/<name>)
  std::string source;  ///< file it came from ("" for a string)

  // model
  std::string system;                    ///< model.system
  double mass = 1.0;                     ///< model.mass (pendulum, kepler, spherical_pendulum, oscillator)
  double length = 1.0;                   ///< model.length (pendulum, spherical_pendulum)
  double gravity = 9.81;                 ///< model.gravity (pendulums)
  std::vector<double> masses{1.0, 1.0};  ///< model.masses (double_pendulum)
  std::vector<double> lengths{1.0, 1.0}; ///< model.lengths (double_pendulum)
  double mu = 1.0;                       ///< model.mu = G M (kepler)
  double stiffness = 1.0;                ///< model.stiffness k (oscillator)
  double damping = 0.0;                  ///< model.damping c (oscillator)
  double force_amplitude = 0.0;          ///< model.force_amplitude F (oscillator)
  double force_frequency = 1.0;          ///< model.force_frequency w (oscillator), rad/s

  // initial
  std::vector<double> q0;     ///< initial.q (length dim)
  std::vector<double> qdot0;  ///< initial.qdot (length dim; default zeros)

  // integrator
  std::string method = "midpoint";  ///< integrator.method
  std::string constraints = "rattle";  ///< integrator.constraints (spherical_pendulum): rattle | shake
  double dt = 0.0, t_end = 0.0;
  long long steps = 0;
  double newton_tol = 1e-13;         ///< integrator.newton_tol: relative residual tolerance of the step solve
  long long max_iterations = 50;     ///< integrator.max_iterations
  double drift_tol = 1e-10;          ///< integrator.drift_tol: |g(q)| beyond this is a failure (constrained)

  // output
  long long every = 1;
  bool plots = true;

  std::vector<std::string> given_keys;  ///< canonical keys present in the file or --set, sorted

  [[nodiscard]] int dim() const { return mechanics_dim(system); }
  [[nodiscard]] bool constrained() const { return system == "spherical_pendulum"; }
  [[nodiscard]] bool has_momentum_map() const { return system == "kepler" || system == "spherical_pendulum"; }
  [[nodiscard]] double time_at(long long k) const { return k == steps ? t_end : static_cast<double>(k) * dt; }
  [[nodiscard]] bool given(const std::string& key) const;
};

/// The lagrangian schema (sections model, initial, integrator, output), in documentation order.
[[nodiscard]] const std::vector<SchemaEntry>& mechanics_schema();

/// Load / parse a lagrangian scenario (model.type must be "lagrangian"); throws lievi::invalid_argument with
/// every issue.
[[nodiscard]] MechanicsScenario load_mechanics_scenario(const std::filesystem::path& path,
                                                        const std::vector<std::string>& overrides = {});
[[nodiscard]] MechanicsScenario parse_mechanics_scenario(const std::string& toml_text, const std::string& file_label,
                                                         const std::string& name,
                                                         const std::vector<std::string>& overrides = {});

/// The resolved keys in schema order: the keys the system and method read (defaults filled) and every key given.
[[nodiscard]] std::vector<ResolvedEntry> resolved_entries(const MechanicsScenario& s);
/// Keys given but not read by the system or the method, one note each.
[[nodiscard]] std::vector<std::string> ignored_key_notes(const MechanicsScenario& s);
/// The resolved scenario as TOML text, loadable again.
[[nodiscard]] std::string to_toml(const MechanicsScenario& s);

}  // namespace lievi::io
