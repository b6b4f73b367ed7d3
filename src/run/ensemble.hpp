#pragma once
/// @file src/run/ensemble.hpp
/// @brief The ensemble driver of the field models (wave, beam): the paths run in batches across threads, each
/// batch's series are added to the statistics in path order (so the bits do not depend on the thread count),
/// per-path files are written on request, and between batches the progress is checkpointed.
///
/// An ensemble's checkpoint (checkpoint.h5 with `step` = the number of paths done and t = 0) holds which
/// paths are done and the running statistics (io::EnsembleSeries::checkpoint), the counters of the result and
/// the first path's final field and notes. A path is never checkpointed half-way: a resumed ensemble reruns
/// the paths after the checkpoint, whose per-path files are removed first. Checkpoints fall at the end of the
/// first batch after `output.checkpoint_every` path-steps (steps summed over the paths) or
/// `output.checkpoint_wall` seconds since the last one, and after the last path; RunOptions::stop_at counts
/// paths here (a batch is cut so that the run stops after exactly that many).
#include <cstdint>
#include <filesystem>
#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "lievi/io/ensemble_csv.hpp"
#include "lievi/parallel/comm.hpp"
#include "lievi/io/npy.hpp"
#include "lievi/io/output_dir.hpp"
#include "lievi/io/scenario.hpp"
#include "lievi/run/checkpoint.hpp"
#include "lievi/run/rigid_body_run.hpp"
#include "lievi/run/wave_run.hpp"
#include "lievi/io/beam_scenario.hpp"
#include "lievi/io/wave_scenario.hpp"
#include "field_summary.hpp"

namespace lievi::run::detail {

/// One path of an ensemble: its result and its series rows (the columns of the ensemble).
struct PathRun {
  WaveRunResult result;
  std::vector<std::vector<double>> rows;
  std::string error;  ///< what the path threw (it then failed the ensemble)
};

/// A rank other than 0 in an ensemble across ranks: runs the paths rank 0 hands out (path b of each batch
/// when b mod R is this rank) and sends their results to it, until rank 0 ends the ensemble. Throws
/// parallel::JobEnded when rank 0 ends the job instead.
void ensemble_worker(parallel::Comm& comm, const std::function<PathRun(std::uint32_t)>& run);

/// The paths first, first + 1, ..., first + paths - 1 of one scenario.
struct EnsembleSpec {
  std::vector<std::string> columns;  ///< the series columns, t first
  std::uint32_t first = 0;           ///< noise.path of the first path
  long long paths = 0;
  long long whole = 0, begin = 0;  ///< a slice's ensemble: its N paths, the slice's first (paths = B - A)
  long long steps = 0;    ///< steps of one path (output.checkpoint_every counts path-steps)
  bool per_path = false;  ///< write series_path<k>.csv for every path k
  /// A slice (`--path-range`): every path's rows also go to this `.npy` file (paths x rows x columns), in
  /// path order, for `lievi merge`; empty: none.
  std::filesystem::path rows_file;
  /// Runs path k; called from several threads at once; an exception fails the ensemble (rethrown naming k).
  std::function<PathRun(std::uint32_t k)> run;
};

/// What an ensemble gives: the counters of its paths (steps, rows, t_final, cfl_dt and newton_max as a path
/// reports them, the largest newton_max, the batches' wall time as integrate_s, paths = paths added), the
/// first path's final field and notes, and the statistics; `stopped` after a requested stop, `complete`
/// false with `failure` (naming the path) when a path failed (the paths before it are in the statistics).
struct EnsembleRun {
  WaveRunResult total;
  io::EnsembleSeries stats;
};

/// Run `spec` writing per-path files into `folder`; checkpoints through `checkpoints` (null: none), resuming
/// from `resume` (null: from the start); options.stop_at (> 0) stops after that many paths with a checkpoint.
[[nodiscard]] EnsembleRun run_ensemble(const EnsembleSpec& spec, const std::filesystem::path& folder,
                                       Checkpointer* checkpoints, const ResumeFrom* resume,
                                       const RunOptions& options);

/// A test hook for the failure paths of distributed ensembles: LIEVI_TEST_NAN_PATH=k makes the noise amplitude
/// of path k NaN, so that its first step fails in the run's own health check (docs/testing.md); -1 when unset.
[[nodiscard]] long long test_nan_path();

/// Whether a checkpoint is an ensemble's (it holds ensemble/paths), and its N paths (0: not an ensemble's).
[[nodiscard]] long long ensemble_paths_of(const io::CheckpointData& c);
/// The run options that continue an ensemble's checkpoint: `options` with the slice it ran (range A:B).
[[nodiscard]] RunOptions ensemble_options_of(const io::CheckpointData& c, RunOptions options);

/// What identifies an ensemble and one slice of it (slice.json, `lievi merge`).
struct SliceInfo {
  std::string model, name, scenario, source;  ///< model type, scenario name, resolved TOML, absolute source
  std::vector<std::string> given_keys;
  long long paths = 0;      ///< N: the whole ensemble's paths
  std::uint32_t first = 0;  ///< noise.path: path 0 of the ensemble
  long long begin = 0, end = 0;  ///< the slice: the ensemble's paths begin ... end - 1
};

/// The parts of an ensemble that differ between the wave and the beam.
struct EnsembleModel {
  std::vector<std::string> columns;
  std::vector<double> quantiles;  ///< output.quantiles: series_q<q>.csv from series_paths.npy
  /// Runs path k (thread-safe).
  std::function<PathRun(std::uint32_t k)> run;
  /// The model's end-of-run outputs for `count` paths from noise path `first` (its note, plots and
  /// summary.json, with `slice` for a slice) into `folder`; the statistics and diagnostics are written already.
  std::function<void(WaveRunResult& total, std::uint32_t first, long long count, const SliceInfo* slice,
                     const std::filesystem::path& folder, std::chrono::steady_clock::time_point t0)>
      finish;
};

/// The end of an ensemble or slice run, or of a merge: series_mean.csv and series_std.csv, the mean and
/// spread diagnostics, the quantiles (series_q<q>.csv, from `folder`/series_paths.npy), the slice's note,
/// then the model's finish (which writes summary.json).
void finish_ensemble(EnsembleRun& e, const EnsembleModel& m, std::uint32_t first, long long count,
                     const SliceInfo* slice, const std::filesystem::path& folder,
                     std::chrono::steady_clock::time_point t0);

/// summary.json's `slice` object of a slice: {"paths": N, "first_path": noise.path, "range": [A, B]}.
void add_slice(json& summary, const SliceInfo* slice);

/// The q-quantile of `x` (sorted, no NaN) as numpy.quantile's default ('linear') computes it, bit for bit:
/// h = (n - 1) q, a = x[floor h], b = the next value (the last beyond it), g = h - floor h; a + (b - a) g, or
/// b - (b - a)(1 - g) when g >= 1/2.
[[nodiscard]] double quantile_linear(const std::vector<double>& x, double q);

/// The file name of quantile q: series_q<q>.csv with q's shortest text (series_q0.05.csv).
[[nodiscard]] std::string quantile_file(double q);

/// Write slice.json: the slice's identity and the counters of its result (before finish_ensemble's notes).
void write_slice_json(const std::filesystem::path& file, const SliceInfo& slice, const EnsembleRun& e);

/// An ensemble (or with options.range_end > 0 a slice) of scenario `s` into `out_dir`: written atomically,
/// or in place with checkpoints (the scenario's keys, options.stop_at, `resume`).
template <class S>
WaveRunResult run_field_ensemble(const S& s, long long paths, const std::filesystem::path& out_dir,
                                 const RunOptions& options, const ResumeFrom* resume, const EnsembleModel& m);

/// The slice of `s` that `options` asks for, or none (nullopt) for the whole ensemble.
template <class S>
std::optional<SliceInfo> slice_of(const S& s, long long paths, const RunOptions& options) {
  if (options.range_end <= 0) return std::nullopt;
  SliceInfo i;
  i.model = s.model_type;
  i.name = s.name;
  i.scenario = io::to_toml(s);
  i.source = s.source.empty() ? std::string() : std::filesystem::absolute(s.source).string();
  i.given_keys = s.given_keys;
  i.paths = paths;
  i.first = s.path;
  i.begin = options.range_begin;
  i.end = options.range_end;
  return i;
}

/// The wave's and the beam's parts (src/run/wave_run.cpp, beam_run.cpp); they refer to `s`, which must outlive
/// them.
[[nodiscard]] EnsembleModel wave_ensemble_model(const io::WaveScenario& s);
[[nodiscard]] EnsembleModel beam_ensemble_model(const io::BeamScenario& s);

/// The shared part of run_field_ensemble (not a template).
WaveRunResult run_ensemble_in(io::OutputDir& dir, Checkpointer* checkpoints, const std::filesystem::path& out_dir,
                              std::uint32_t first, long long paths, long long steps, bool per_path,
                              const std::optional<SliceInfo>& slice, const RunOptions& options,
                              const ResumeFrom* resume, const EnsembleModel& m);

template <class S>
WaveRunResult run_field_ensemble(const S& s, long long paths, const std::filesystem::path& out_dir,
                                 const RunOptions& options, const ResumeFrom* resume, const EnsembleModel& m) {
  if (options.comm && options.comm->rank() != 0) {  // rank 0 writes; this rank computes its share of the paths
    ensemble_worker(*options.comm, m.run);
    WaveRunResult r;
    r.complete = true;
    return r;
  }
  if (!resume) io::check_output_dir(out_dir, options.force);
  const bool checkpointing = s.checkpoints() || options.stop_at > 0 || resume;
  io::OutputDir dir = resume          ? io::OutputDir::reopen(out_dir)
                      : checkpointing ? io::OutputDir::in_place(out_dir, options.force)
                                      : io::OutputDir(out_dir, options.force);
  std::optional<Checkpointer> checkpoints;
  if (checkpointing) {
    dir.mark_running();
    checkpoints.emplace(dir.tmp(), s, io::to_toml(s));
  }
  return run_ensemble_in(dir, checkpoints ? &*checkpoints : nullptr, out_dir, s.path, paths, s.steps, s.per_path,
                         slice_of(s, paths, options), options, resume, m);
}

}  // namespace lievi::run::detail
