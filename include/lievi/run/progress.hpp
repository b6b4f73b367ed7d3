#pragma once
/// @file lievi/run/progress.hpp
/// @brief One-line progress displays on stderr, only on a terminal: a single run (steps, simulated time,
/// ETA) and an ensemble (paths done / total, rate, remaining time).
///
/// Shown when stderr is a TTY. The environment variable LIEVI_PROGRESS overrides that: "always" shows it
/// on any stderr (tests, logs), "never" hides it on a terminal too.
#include <chrono>

namespace lievi::run {

/// Whether a progress display is shown when the caller allows one: LIEVI_PROGRESS = always / never, else
/// whether stderr is a TTY.
[[nodiscard]] bool progress_wanted();

class ProgressLine {
 public:
  /// Enabled only if `enabled` and progress_wanted().
  ProgressLine(long long steps, double t_end, bool enabled);
  ~ProgressLine();
  ProgressLine(const ProgressLine&) = delete;
  ProgressLine& operator=(const ProgressLine&) = delete;

  /// Cheap on the hot path: looks at the clock only every 4096 steps, redraws at most 5 times a second.
  void update(long long k, double t) {
    if (!enabled_ || (k & 4095) != 0) return;
    redraw(k, t);
  }
  /// Clear the line.
  void finish();
  [[nodiscard]] bool enabled() const { return enabled_; }

 private:
  void redraw(long long k, double t);
  long long steps_;
  double t_end_;
  bool enabled_ = false, drawn_ = false;
  std::chrono::steady_clock::time_point start_, last_;
};

/// Progress of an ensemble: "paths 8/32  3.2 paths/s  ETA 7.5 s". Updated by the caller after each batch
/// of paths; draws the first update and then at most 5 times a second; cleared by finish().
class PathProgress {
 public:
  /// Enabled only if `enabled` and progress_wanted().
  PathProgress(long long paths, bool enabled);
  ~PathProgress();
  PathProgress(const PathProgress&) = delete;
  PathProgress& operator=(const PathProgress&) = delete;

  /// `done` paths of the total are finished.
  void update(long long done);
  /// Clear the line.
  void finish();
  [[nodiscard]] bool enabled() const { return enabled_; }

 private:
  long long paths_;
  bool enabled_ = false, drawn_ = false;
  std::chrono::steady_clock::time_point start_, last_;
};

}  // namespace lievi::run
