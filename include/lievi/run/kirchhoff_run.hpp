#pragma once
/// @file lievi/run/kirchhoff_run.hpp
/// @brief The run pipeline of Kirchhoff's body in an ideal fluid with double-bracket dissipation
/// (`model.type = "kirchhoff"`): scenario -> models::Kirchhoff -> DDB on se(3)* (DDBGroup or DDBGroupSymmetric on
/// SE(3), Cayley or exp) -> series.csv, summary.json, plots.
///
/// Levels and rows (docs/outputs.md "kirchhoff"): level k holds mu_k = (Pi_k, P_k) and the pose g_k = (R_k, x_k)
/// (g_{k+1} = g_k tau(h xi_k): the spatial motion reconstructed by the method). The Casimirs C1 = |P|^2 and
/// C2 = P . Pi are written with their deviations from level 0; the minimum-energy set of the orbit of mu_0
/// (Kirchhoff::minimum_energy, docs/theory/ddb.md "DDB on se(3)*") gives energy_above_min = H - min H and
/// distance_min = the max-norm distance to the nearest minimiser (the one computed, with the signs of (Pi_i, P_i)
/// flipped together); equilibrium_residual = |ad*_xi mu|_inf is zero exactly on the equilibrium set.
///
/// A step that does not converge (Newton), leaves a non-finite state or reported value, blows up (H beyond 1e8
/// times its start) or raises H under dissipation beyond round-off (health::dissipation_rise_tol) stops the run:
/// the outputs up to the last good level are kept, status "failed" (exit 3 from the CLI), the message and hint
/// naming the step and the scenario keys to change.
#include <filesystem>
#include <string>
#include <vector>

#include "lievi/io/kirchhoff_scenario.hpp"
#include "lievi/run/checkpoint.hpp"
#include "lievi/run/result.hpp"
#include "lievi/run/rigid_body_run.hpp"

namespace lievi::run {

/// What a kirchhoff run reports (summary.json is this struct written out).
struct KirchhoffRunResult : RunReport {
  lie::Vec6 mu_initial = lie::Vec6::Zero(), mu_final = lie::Vec6::Zero();
  lie::Mat4 pose_final = lie::Mat4::Identity();  ///< g at the last good level, homogeneous
  double energy_initial = 0.0, energy_final = 0.0;
  bool has_minimum = false;  ///< the minimum-energy set is known (zero coupling block)
  models::KirchhoffMinimum minimum;
  double energy_max_step_increase = 0.0;  ///< max over steps of (H_k - H_{k-1}) / |H_0| (<= 0: decreasing)
  NewtonStats newton;
};

/// The series columns: t, Pi1..3, P1..3, energy, casimir_P2, casimir_PPi, casimir_P2_drift, casimir_PPi_drift,
/// energy_above_min, distance_min, equilibrium_residual, x, y, z, qw, qx, qy, qz, newton.
[[nodiscard]] std::vector<std::string> kirchhoff_series_columns();

/// A-priori checks (before anything is written): config::validate. Throws lievi::invalid_argument.
void check_kirchhoff(const io::KirchhoffScenario& s);

/// Integrate in-process; the rows (as in series.csv) are appended to `rows` when given. Never throws for
/// numerical failure (see the result).
[[nodiscard]] KirchhoffRunResult integrate_kirchhoff(const io::KirchhoffScenario& s,
                                                     std::vector<std::vector<double>>* rows = nullptr,
                                                     Progress progress = Progress::never);

/// Run into `out_dir` atomically: series.csv, summary.json, plots (output.plots). With output.checkpoint_every
/// or output.checkpoint_wall the run is written in place with checkpoint.h5; `resume` continues the run in
/// `out_dir` from its checkpoint (run/checkpoint.hpp), bit for bit.
KirchhoffRunResult run_kirchhoff(const io::KirchhoffScenario& s, const std::filesystem::path& out_dir,
                                 const RunOptions& options = {}, const ResumeFrom* resume = nullptr);

/// Default output folder runs/<name>.
[[nodiscard]] std::filesystem::path default_output_dir(const io::KirchhoffScenario& s);

}  // namespace lievi::run
