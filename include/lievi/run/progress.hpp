#pragma once
/// @file lievi/run/progress.hpp
/// @brief A one-line progress display on stderr (steps, simulated time, ETA), only on a terminal.
#include <chrono>

namespace lievi::run {

class ProgressLine {
 public:
  /// Enabled only if `enabled` and stderr is a TTY (isatty).
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

}  // namespace lievi::run
