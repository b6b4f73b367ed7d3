#pragma once
/// @file lievi/run/beam_run.hpp
/// @brief The run pipeline of a geometrically exact beam (variants `exact` and `approx`, Type-I or Type-II noise
/// with Phi = <mu, Theta>, `--paths` ensembles): scenario -> model,
/// grid and initial state -> staggered stepper -> level loop -> series.csv, fields.h5, beam.pvd + .vtp,
/// summary.json, plots.
///
/// Series columns (docs/outputs.md): t, E_d, E_c, kinetic (time-centred, (K^{n-1/2} + K^{n+1/2})/2),
/// potential (V^n: strain energy plus gravity), Jang_x..z, Jlin_x..z (the spatial momentum map at t_n: the
/// pre-momentum plus half a step of load, sum_j Ad*_{g_j^{-1}} (w_j M~_j^n + (dt/2) F_j^n), F_j^n the
/// external wrench on node j, not added at driven nodes; docs/theory/beam.md "Energies and momentum map";
/// conserved to round-off with free ends and no loads, variant exact),
/// orth_err (max_j |R_j^T R_j - I|), strain_consistency (max |gamma - tau^{-1}(g_j^{-1} g_{j+1})/ds|: 0 for
/// `exact` on the generic path, round-off on the batched sweeps, which evaluate tau^{-1} in another order;
/// O(ds^2) for `approx`), newton_max (of the step n -> n+1), end0_*, endL_* (positions of the first and last node), then
/// p<j>_* for each probe node.
///
/// A-priori check: dt >= the stability bound 2/omega_max of docs/theory/beam.md "Stability bound" is refused
/// as bad input naming the largest stable dt, unless integrator.allow_unstable = true. Newton failure, a
/// non-finite value or a relative rotation near pi between neighbours (Cayley) stop the run with step, node /
/// segment and residual.
#include <filesystem>

#include "lievi/io/beam_scenario.hpp"
#include "lievi/run/wave_run.hpp"

namespace lievi::run {

/// The largest stable dt of the a-priori bound (docs/theory/beam.md "Stability bound").
[[nodiscard]] double beam_stable_dt(const io::BeamScenario& s);
/// Throws lievi::invalid_argument with every problem of the configuration (config::validate), then naming
/// integrator.dt when dt is beyond the bound (unless allowed).
void check_beam(const io::BeamScenario& s);

/// The series columns of a beam run.
[[nodiscard]] std::vector<std::string> beam_series_columns(const io::BeamScenario& s);

/// Run into `out_dir` atomically (as run_wave).
/// With checkpoints (output.checkpoint_every / checkpoint_wall, RunOptions::stop_at) the run is written in
/// place with crash-safe fields.h5; `resume` continues it from its checkpoint (run/checkpoint.hpp).
WaveRunResult run_beam(const io::BeamScenario& s, const std::filesystem::path& out_dir, const RunOptions& options = {},
                       const ResumeFrom* resume = nullptr);

/// An ensemble of noise paths noise.path ... noise.path + paths - 1 (`--paths N`): each path is the single
/// run of that path (so path k equals `noise.path = k` bit for bit), without fields, vtk or plots; their
/// series go into series_mean.csv and series_std.csv (docs/outputs.md), summed in path order whatever the
/// thread count (paths run in parallel, their inner loops serially); series_path<k>.csv with
/// output.per_path; the plots add ensemble.png (mean +- 2 std of the end positions). Throws
/// lievi::invalid_argument for a scenario without noise or a bad path count; a failed path stops the
/// ensemble (exit 3) with the paths before it summarised. Checkpoints and `resume` as run_wave_ensemble.
WaveRunResult run_beam_ensemble(const io::BeamScenario& s, long long paths, const std::filesystem::path& out_dir,
                                const RunOptions& options = {}, const ResumeFrom* resume = nullptr);

[[nodiscard]] std::filesystem::path default_output_dir(const io::BeamScenario& s);

}  // namespace lievi::run
