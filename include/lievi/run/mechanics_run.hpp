#pragma once
/// @file lievi/run/mechanics_run.hpp
/// @brief The run pipeline of the lagrangian model: scenario -> catalogue system (models/mechanics.hpp) ->
/// discrete-mechanics stepper (integrators/del: del_step, constrained_step) or the RK4 comparator -> series.csv,
/// summary.json, plots.
///
/// State and rows (docs/outputs.md): the variational methods step (q_k, p_k) with p_k the discrete momentum
/// (discrete Legendre transform); the velocity written at level k is v_k = (dL/dqdot)^-1(q_k, p_k), the inverse
/// continuous Legendre transform, and energy_k = E(q_k, v_k). RK4 integrates (q, v) of the Euler-Lagrange ODE
/// qddot = Lvv^-1 (Lq - Lqv^T qdot + f) written from the same L (AD derivatives) and writes p = dL/dqdot(q, v).
/// The spherical pendulum's start is projected onto g(q) = 0 and G(q) qdot = 0 (del::project_initial).
///
/// A step that fails (Newton, non-finite values, constraint drift, the inverse Legendre transform) or leaves a
/// non-finite reported value (energy, energy error, momentum, constraint residuals; checked after every step)
/// stops the run: the outputs up to the last good level are kept, status "failed" (exit 3 from the CLI); the
/// message and hint name scenario keys (integrator.dt, integrator.method, integrator.max_iterations,
/// integrator.newton_tol, integrator.drift_tol), never the library's C++ options.
#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "lievi/io/mechanics_scenario.hpp"
#include "lievi/run/checkpoint.hpp"
#include "lievi/run/result.hpp"
#include "lievi/run/rigid_body_run.hpp"

namespace lievi::run {

/// What a lagrangian run reports (summary.json is this struct written out).
struct MechanicsRunResult : RunReport {
  std::vector<double> q_final, v_final, p_final;
  double energy_initial = 0.0, energy_final = 0.0;
  NewtonStats newton;
  std::vector<double> q_start, qdot_start;  ///< the start actually used (after the constraint projection)
};

/// The series columns: t, q1..qn, v1..vn, p1..pn, energy, energy_error, [momentum], [constraint], newton.
[[nodiscard]] std::vector<std::string> mechanics_series_columns(const io::MechanicsScenario& s);

/// A-priori checks (before anything is written): the spherical pendulum's start can be projected onto the
/// constraint. Throws lievi::invalid_argument naming initial.q.
void check_mechanics(const io::MechanicsScenario& s);

/// Integrate in-process; the rows (as in series.csv) are appended to `rows` when given. Never throws for
/// numerical failure (see the result).
[[nodiscard]] MechanicsRunResult integrate_mechanics(const io::MechanicsScenario& s,
                                                     std::vector<std::vector<double>>* rows = nullptr,
                                                     Progress progress = Progress::never);

/// Run into `out_dir` atomically: series.csv, summary.json, plots (output.plots).
/// With output.checkpoint_every or output.checkpoint_wall the run is written in place with checkpoint.h5;
/// `resume` continues the run in `out_dir` from its checkpoint (run/checkpoint.hpp).
MechanicsRunResult run_mechanics(const io::MechanicsScenario& s, const std::filesystem::path& out_dir,
                                 const RunOptions& options = {}, const ResumeFrom* resume = nullptr);

/// Default output folder runs/<name>.
[[nodiscard]] std::filesystem::path default_output_dir(const io::MechanicsScenario& s);

}  // namespace lievi::run
