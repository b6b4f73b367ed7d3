/// @file apps/lievi/cmd_methods.cpp
/// @brief `lievi methods`: every registered method id with its traits (order, implicit, Casimirs,
/// symplectic).
#include <cstdio>

#include "commands.hpp"
#include "lievi/integrators/rigid_body_stepper.hpp"
#include "lievi/io/mechanics_scenario.hpp"

namespace lievi::cli {

CLI::App* add_methods_command(CLI::App& app) {
  return app.add_subcommand("methods", "List the method ids with their traits");
}

int methods_command() {
  const auto yes = [](bool b) { return b ? "yes" : "no"; };
  std::printf("%-16s %5s  %-8s  %-9s  %-10s  %s\n", "id", "order", "implicit", "casimirs", "symplectic",
              "summary");
  for (const auto& t : integrators::rigid_body_methods()) {
    std::printf("%-16s %5d  %-8s  %-9s  %-10s  %s\n", t.id, t.order, yes(t.is_implicit),
                yes(t.preserves_casimirs), yes(t.symplectic), t.summary);
  }
  std::string r;
  for (const auto& x : integrators::rigid_body_retractions()) r += (r.empty() ? "" : ", ") + x;
  std::printf("\nretractions (integrator.retraction, DDB family): %s\n", r.c_str());
  // Field models (model.type = "wave"): the space-time staggered stochastic variational integrators.
  std::printf("\nfield methods (model.type = \"wave\"; integrator.variant = exact | approx coincide on G = R):\n");
  std::printf("%-16s %5d  %-8s  %-9s  %-10s  %s\n", "type-i", 2, "no", "-", "yes",
              "stochastic kinematics (discrete stochastic Hamilton principle): staggered leapfrog / 1-D Yee, noise "
              "through the group increment (Stratonovich)");
  std::printf("%-16s %5d  %-8s  %-9s  %-10s  %s\n", "type-ii", 2, "no", "-", "yes",
              "stochastic potential Phi = <mu, Theta> (discrete Hamilton-Pontryagin): the general-potential code "
              "path; the same scheme as type-i");
  // Lagrangian systems (model.type = "lagrangian"): the discrete mechanics toolkit (integrators/del).
  std::printf("\nlagrangian methods (model.type = \"lagrangian\"; constraints: SHAKE/RATTLE for the "
              "spherical pendulum):\n");
  std::printf("%-18s %5s  %-8s  %-11s  %-11s  %s\n", "id", "order", "implicit", "symplectic", "constraints",
              "summary");
  for (const auto& m : io::mechanics_methods())
    std::printf("%-18s %5d  %-8s  %-11s  %-11s  %s\n", m.id(), m.order, yes(m.is_implicit), yes(m.symplectic),
                yes(m.constraints), m.summary);
  return static_cast<int>(ExitCode::ok);
}

}  // namespace lievi::cli
