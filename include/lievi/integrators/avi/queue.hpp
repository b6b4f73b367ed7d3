#pragma once
/// @file lievi/integrators/avi/queue.hpp
/// @brief The event queues of the asynchronous variational integrator (docs/theory/avi.md "The event loop"):
/// a binary min-heap of segment update times (any steps), and a calendar by dyadic level (steps
/// h_max 2^{-k}). Both are allocation-free after construction.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <vector>

namespace lievi::integrators::avi {

/// Which event queue the integrator uses.
enum class Queue {
  heap,    ///< binary min-heap on (time, segment): O(log n) per update, any steps
  levels,  ///< calendar by dyadic level: every tick fires the levels whose period divides it; O(1) per update
};

/// A binary min-heap of the segments keyed by their next update time, ties broken by the segment index (so
/// equal-time updates run in index order, deterministically). The top's key only ever increases (the segment's
/// next update), so one sift-down per update keeps it a heap.
class EventHeap {
 public:
  EventHeap() = default;
  /// Build from the keys (one per segment).
  explicit EventHeap(const std::vector<double>& keys) : key_(keys) {
    heap_.resize(key_.size());
    for (std::size_t i = 0; i < heap_.size(); ++i) heap_[i] = static_cast<std::int32_t>(i);
    std::make_heap(heap_.begin(), heap_.end(), [this](std::int32_t a, std::int32_t b) { return before(b, a); });
  }
  [[nodiscard]] bool empty() const { return heap_.empty(); }
  /// The segment with the earliest update.
  [[nodiscard]] std::ptrdiff_t top() const { return heap_.front(); }
  [[nodiscard]] double top_key() const { return key_[static_cast<std::size_t>(heap_.front())]; }
  [[nodiscard]] double key(std::ptrdiff_t e) const { return key_[static_cast<std::size_t>(e)]; }
  /// Give the top segment its next (later) key and restore the heap.
  void replace_top(double later) {
    const std::int32_t e = heap_.front();
    key_[static_cast<std::size_t>(e)] = later;
    const std::size_t n = heap_.size();
    std::size_t i = 0;
    for (;;) {
      const std::size_t l = 2 * i + 1;
      if (l >= n) break;
      std::size_t c = l;
      if (l + 1 < n && before(heap_[l + 1], heap_[l])) c = l + 1;
      if (!before(heap_[c], e)) break;
      heap_[i] = heap_[c];
      i = c;
    }
    heap_[i] = e;
  }

 private:
  [[nodiscard]] bool before(std::int32_t a, std::int32_t b) const {
    const double ka = key_[static_cast<std::size_t>(a)], kb = key_[static_cast<std::size_t>(b)];
    return ka < kb || (ka == kb && a < b);
  }
  std::vector<double> key_;
  std::vector<std::int32_t> heap_;
};

/// Segments grouped by dyadic level: level k holds the segments of step h_max 2^{-k}, firing every 2^{K-k}
/// ticks (tick = h_max 2^{-K}, K the finest level). At a tick, the levels fire from the finest to the
/// coarsest, each in segment order.
class LevelCalendar {
 public:
  struct Level {
    std::int64_t period = 1;  ///< ticks between updates
    std::size_t begin = 0, end = 0;  ///< its segments in segments()
  };
  LevelCalendar() = default;
  /// periods[e]: segment e's period in ticks (a power of two).
  explicit LevelCalendar(const std::vector<std::int64_t>& periods) {
    std::vector<std::int64_t> distinct(periods);
    std::sort(distinct.begin(), distinct.end());
    distinct.erase(std::unique(distinct.begin(), distinct.end()), distinct.end());
    for (std::int64_t p : distinct) {
      Level lv;
      lv.period = p;
      lv.begin = segments_.size();
      for (std::size_t e = 0; e < periods.size(); ++e)
        if (periods[e] == p) segments_.push_back(static_cast<std::int32_t>(e));
      lv.end = segments_.size();
      levels_.push_back(lv);
    }
  }
  [[nodiscard]] const std::vector<Level>& levels() const { return levels_; }
  [[nodiscard]] const std::vector<std::int32_t>& segments() const { return segments_; }

 private:
  std::vector<Level> levels_;
  std::vector<std::int32_t> segments_;
};

}  // namespace lievi::integrators::avi
