/// @file src/run/progress.cpp
#include "lievi/run/progress.hpp"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace lievi::run {

bool progress_wanted() {
  if (const char* v = std::getenv("LIEVI_PROGRESS")) {
    if (std::strcmp(v, "always") == 0) return true;
    if (std::strcmp(v, "never") == 0) return false;
  }
  return ::isatty(STDERR_FILENO) == 1;
}

namespace {

void clear_line(bool& drawn) {
  if (drawn) {
    std::fprintf(stderr, "\r%*s\r", 78, "");
    std::fflush(stderr);
    drawn = false;
  }
}

}  // namespace

ProgressLine::ProgressLine(long long steps, double t_end, bool enabled)
    : steps_(steps), t_end_(t_end), enabled_(enabled && progress_wanted()) {
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
  clear_line(drawn_);
}

PathProgress::PathProgress(long long paths, bool enabled) : paths_(paths), enabled_(enabled && progress_wanted()) {
  start_ = last_ = std::chrono::steady_clock::now();
}

PathProgress::~PathProgress() {
  finish();
}

void PathProgress::update(long long done) {
  if (!enabled_) return;
  const auto now = std::chrono::steady_clock::now();
  if (drawn_ && now - last_ < std::chrono::milliseconds(200)) return;
  last_ = now;
  const double elapsed = std::chrono::duration<double>(now - start_).count();
  const double rate = elapsed > 0.0 ? static_cast<double>(done) / elapsed : 0.0;
  const double eta = rate > 0.0 ? static_cast<double>(paths_ - done) / rate : 0.0;
  std::fprintf(stderr, "\r  paths %lld/%lld  %.3g paths/s  ETA %.1f s   ", done, paths_, rate, eta);
  std::fflush(stderr);
  drawn_ = true;
}

void PathProgress::finish() {
  clear_line(drawn_);
}

}  // namespace lievi::run
