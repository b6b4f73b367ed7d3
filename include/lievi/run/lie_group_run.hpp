#pragma once
/// @file lievi/run/lie_group_run.hpp
/// @brief The run pipeline of the lie_group model: scenario -> catalogue system (models/lie_mechanics.hpp) ->
/// Lie-group variational integrator (integrators/lie_del: the DEL in (R, Pi), its reduced form in (Pi, Gamma),
/// Moser-Veselov's discrete Lagrangian) or the RK4 comparator -> series.csv, summary.json, plots.
///
/// State and rows (docs/outputs.md): the variational methods step (R_k, Pi_k) with Pi_k the left-trivialised
/// discrete momentum (body frame); del-reduced steps (Pi_k, Gamma_k) with the advected Gamma = R^T e3 and
/// reconstructs R_{k+1} = R_k tau(h xi_k). A row holds the energy H(Pi, Gamma), the Casimirs of the reduced
/// (Lie-Poisson) form, the Noether momenta, the attitude, Pi, Omega = I^-1 Pi, |R^T R - I| and the Newton count.
///
/// A step that fails (Newton, a non-finite state or reported value) stops the run: the outputs up to the last
/// good level are kept, status "failed" (exit 3 from the CLI), the message and hint naming scenario keys
/// (integrator.dt, integrator.max_iterations, integrator.newton_tol).
#include <array>
#include <filesystem>
#include <string>
#include <vector>

#include "lievi/io/lie_group_scenario.hpp"
#include "lievi/run/checkpoint.hpp"
#include "lievi/run/result.hpp"
#include "lievi/run/rigid_body_run.hpp"

namespace lievi::run {

/// What a lie_group run reports (summary.json is this struct written out).
struct LieGroupRunResult : RunReport {
  std::array<double, 4> q_final{1.0, 0.0, 0.0, 0.0};  ///< attitude (w, x, y, z)
  std::array<double, 3> Pi_final{}, Omega_final{};
  std::array<double, 3> position_final{};  ///< floating body: the body origin
  double energy_initial = 0.0, energy_final = 0.0;
  NewtonStats newton;
};

/// The series columns (docs/outputs.md): t, energy, energy_error, the Casimirs, the Noether momenta, qw..qz,
/// Pi1..3, Omega1..3, [Gamma1..3], orth_err, newton.
[[nodiscard]] std::vector<std::string> lie_group_series_columns(const io::LieGroupScenario& s);

/// A-priori checks (before anything is written): the configuration's rules. Throws lievi::invalid_argument.
void check_lie_group(const io::LieGroupScenario& s);

/// Integrate in-process; the rows (as in series.csv) are appended to `rows` when given. Never throws for
/// numerical failure (see the result).
[[nodiscard]] LieGroupRunResult integrate_lie_group(const io::LieGroupScenario& s,
                                                    std::vector<std::vector<double>>* rows = nullptr,
                                                    Progress progress = Progress::never);

/// Run into `out_dir` atomically: series.csv, summary.json, plots (output.plots). With output.checkpoint_every
/// or output.checkpoint_wall the run is written in place with checkpoint.h5; `resume` continues the run in
/// `out_dir` from its checkpoint (run/checkpoint.hpp), bit for bit.
LieGroupRunResult run_lie_group(const io::LieGroupScenario& s, const std::filesystem::path& out_dir,
                                const RunOptions& options = {}, const ResumeFrom* resume = nullptr);

/// Default output folder runs/<name>.
[[nodiscard]] std::filesystem::path default_output_dir(const io::LieGroupScenario& s);

}  // namespace lievi::run
