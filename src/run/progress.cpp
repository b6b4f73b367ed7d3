/// @file src/run/progress.cpp
#include "lievi/run/progress.hpp"

#include <unistd.h>

#include <cstdio>

namespace lievi::run {

ProgressLine::ProgressLine(long long steps, double t_end, bool enabled)
    : steps_(steps), t_end_(t_end), enabled_(enabled && ::isatty(STDERR_FILENO) == 1) {
  start_ = last_ = std::chrono::steady_clock::now();
}

ProgressLine::~ProgressLine() {
  finish();
}

void ProgressLine::redraw(long long k, double t) {
  const auto now = std::chrono::steady_clock::now();
  if (now - last_ < std::chrono::milliseconds(200)) return;
  last_ = now;
  const double elapsed = std::chrono::duration<double>(now - start_).count();
  const double eta = k > 0 ? elapsed * static_cast<double>(steps_ - k) / static_cast<double>(k) : 0.0;
  std::fprintf(stderr, "\r  step %lld/%lld  t = %.6g/%.6g  %3.0f%%  ETA %.1f s   ", k, steps_, t, t_end_,
               100.0 * static_cast<double>(k) / static_cast<double>(steps_), eta);
  std::fflush(stderr);
  drawn_ = true;
}

void ProgressLine::finish() {
  if (drawn_) {
    std::fprintf(stderr, "\r%*s\r", 78, "");
    std::fflush(stderr);
    drawn_ = false;
  }
}

}  // namespace lievi::run
