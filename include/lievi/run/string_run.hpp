#pragma once
/// @file lievi/run/string_run.hpp
/// @brief The run pipeline of the elastic string (`model.type = "string"`): scenario -> mesh (regions,
/// refinement) -> per-segment steps -> the asynchronous variational integrator (integrators/avi) or the
/// synchronous leapfrog -> series.csv, summary.json, fields.h5, plots.
///
/// Rows are written at t_n = n dt (every output.every steps): the node positions x_a(t_n) (each node drifted
/// from its last update to t_n), the momenta p_a of each node's last interval before t_n, the kinetic energy
/// sum |p_a|^2 / 2 m_a, the potential sum V_e(x(t_n)), the linear momentum sum p_a and the angular momentum
/// sum x_a(t_n) x p_a. The row at t = 0 holds the initial data (p_a = m_a v_a(0)).
///
/// The run is checked at every row: a non-finite position or momentum, or a total energy beyond 1000 times
/// the largest of the initial energy and kinetic-energy scale, stops it with the outputs up to the last good
/// row kept (status "failed", exit 3 from the CLI); the failure names the time, the node, its segment's
/// step and the key to change (integrator.fraction, regions[i].dt or integrator.dt).
#include <filesystem>
#include <utility>
#include <vector>

#include "lievi/io/string_scenario.hpp"
#include "lievi/run/result.hpp"
#include "lievi/run/rigid_body_run.hpp"

namespace lievi::run {

/// Each segment's step and level: h_e = dt / 2^level_e.
struct StringSteps {
  std::vector<double> h;
  std::vector<int> level;
  std::vector<double> limit;  ///< each segment's stability limit L_e / sqrt(EA_e / rho_e)
};

/// The steps of a scenario on its mesh: synchronous, dt for every segment; AVI, the region's dt where given,
/// else the largest dt / 2^k <= fraction x limit_e. Throws lievi::invalid_argument naming integrator.dt,
/// integrator.fraction or regions[i].dt when a step is beyond its segment's limit (unless
/// integrator.allow_unstable) or needs more than 52 levels.
[[nodiscard]] StringSteps string_steps(const io::ElasticStringScenario& s, const config::StringMesh& mesh);

/// What a string run reports (summary.json is this struct written out).
struct StringRunResult : RunReport {
  long long n_nodes = 0, n_segments = 0;
  long long updates = 0;        ///< segment updates, the start updates at t = 0 included
  double stepping_s = 0.0;      ///< wall time of the updates alone (rows and checks excluded)
  std::vector<std::pair<int, long long>> levels;  ///< k -> number of segments with step dt / 2^k
  double energy_initial = 0.0, energy_final = 0.0;
  std::vector<double> x_final;  ///< node positions at t_final, 3 per node
};

/// The series.csv columns: t, kinetic, potential, energy, P_x, P_y, P_z, L_x, L_y, L_z, then x<j>,y<j>,z<j>
/// for each probe node j.
[[nodiscard]] std::vector<std::string> string_series_columns(const io::ElasticStringScenario& s);

/// A-priori checks (before anything is written): config::validate and string_steps.
void check_string(const io::ElasticStringScenario& s);

/// Integrate in-process; the rows (as in series.csv) are appended to `rows` when given. Never throws for a
/// numerical failure (see the result).
[[nodiscard]] StringRunResult integrate_string(const io::ElasticStringScenario& s,
                                               std::vector<std::vector<double>>* rows = nullptr);

/// Run into `out_dir` atomically: series.csv, summary.json, fields.h5 (output.fields), plots (output.plots).
StringRunResult run_string(const io::ElasticStringScenario& s, const std::filesystem::path& out_dir,
                           const RunOptions& options = {});

/// Default output folder runs/<name>.
[[nodiscard]] std::filesystem::path default_output_dir(const io::ElasticStringScenario& s);

}  // namespace lievi::run
