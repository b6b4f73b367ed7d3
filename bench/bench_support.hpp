#pragma once
// What several benchmark files share: the thread count of one benchmark.
#include <omp.h>

namespace lievi::bench {

/// Sets the thread count for one benchmark and restores the previous one.
class ThreadScope {
 public:
  explicit ThreadScope(int threads) : saved_(omp_get_max_threads()) { omp_set_num_threads(threads); }
  ~ThreadScope() { omp_set_num_threads(saved_); }
  ThreadScope(const ThreadScope&) = delete;
  ThreadScope& operator=(const ThreadScope&) = delete;

 private:
  int saved_;
};

}  // namespace lievi::bench
