#pragma once
/// @file lievi/integrators/avi/queue.hpp
/// @brief The event queues of the asynchronous variational integrator (docs/theory/avi.md "The event loop"):
/// a binary min-heap of segment update times (any steps), and a calendar by dyadic level (steps
/// h_max 2^{-k}); and the clock (EventClock) that runs either. Both are allocation-free after construction.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <vector>

#include "lievi/integrators/avi/mesh.hpp"

namespace lievi::integrators::avi {

/// Which event queue the integrator uses.
enum class Queue {
  heap,    ///< binary min-heap on (time, segment): O(log n) per update, any steps
  levels,  ///< calendar by dyadic level: every tick fires the levels whose period divides it; O(1) per update
};

/// A binary min-heap of the segments keyed by their next update time, ties broken by the segment index (so
/// equal-time updates run in index order, deterministically). The top's key only ever increases (the
/// segment's next update), so one sift-down per update keeps it a heap. Entries hold their key (no
/// indirection).
class EventHeap {
 public:
  struct Entry {
    double t;        ///< next update time
    std::int32_t e;  ///< segment
  };
  EventHeap() = default;
  /// Build from the keys (one per segment).
  explicit EventHeap(const std::vector<double>& keys) {
    heap_.resize(keys.size());
    for (std::size_t i = 0; i < heap_.size(); ++i) heap_[i] = Entry{keys[i], static_cast<std::int32_t>(i)};
    std::make_heap(heap_.begin(), heap_.end(), [](const Entry& a, const Entry& b) { return before(b, a); });
  }
  [[nodiscard]] bool empty() const { return heap_.empty(); }
  /// The segment with the earliest update.
  [[nodiscard]] std::ptrdiff_t top() const { return heap_.front().e; }
  [[nodiscard]] double top_key() const { return heap_.front().t; }
  /// Give the top segment its next (later) key and restore the heap.
  void replace_top(double later) {
    const Entry x{later, heap_.front().e};
    const std::size_t n = heap_.size();
    std::size_t i = 0;
    for (;;) {
      const std::size_t l = 2 * i + 1;
      if (l >= n) break;
      std::size_t c = l;
      if (l + 1 < n && before(heap_[l + 1], heap_[l])) c = l + 1;
      if (!before(heap_[c], x)) break;
      heap_[i] = heap_[c];
      i = c;
    }
    heap_[i] = x;
  }

 private:
  [[nodiscard]] static bool before(const Entry& a, const Entry& b) {
    return a.t < b.t || (a.t == b.t && a.e < b.e);
  }
  std::vector<Entry> heap_;
};

/// Segments grouped by dyadic level: level k holds the segments of step h_max 2^{-k}, firing every 2^{K-k}
/// ticks (tick = h_max 2^{-K}, K the finest level), as runs of consecutive segment indices. At a tick, the
/// levels fire from the finest to the coarsest, each run by run in segment order.
class LevelCalendar {
 public:
  struct Run {
    std::ptrdiff_t begin = 0, end = 0;  ///< segments [begin, end)
  };
  struct Level {
    std::int64_t period = 1;         ///< ticks between updates
    std::size_t begin = 0, end = 0;  ///< its runs in runs()
  };
  LevelCalendar() = default;
  /// periods[e]: segment e's period in ticks (a power of two).
  explicit LevelCalendar(const std::vector<std::int64_t>& periods) {
    std::vector<std::int64_t> distinct(periods);
    std::sort(distinct.begin(), distinct.end());
    distinct.erase(std::unique(distinct.begin(), distinct.end()), distinct.end());
    const auto ns = static_cast<std::ptrdiff_t>(periods.size());
    for (std::int64_t p : distinct) {
      Level lv;
      lv.period = p;
      lv.begin = runs_.size();
      for (std::ptrdiff_t e = 0; e < ns;) {
        if (periods[static_cast<std::size_t>(e)] != p) {
          ++e;
          continue;
        }
        Run r{e, e};
        while (r.end < ns && periods[static_cast<std::size_t>(r.end)] == p) ++r.end;
        runs_.push_back(r);
        e = r.end;
      }
      lv.end = runs_.size();
      levels_.push_back(lv);
    }
  }
  [[nodiscard]] const std::vector<Level>& levels() const { return levels_; }
  [[nodiscard]] const std::vector<Run>& runs() const { return runs_; }

 private:
  std::vector<Level> levels_;
  std::vector<Run> runs_;
};

/// The update times of the segments and the queue that orders them (docs/theory/avi.md "The event loop"):
/// segment e updates at t_e^k = k h_e. When every step is h_max 2^{-k} (is_dyadic) time is also counted in
/// integer ticks of h_max 2^{-K} (K the finest level): equal-time updates of different segments then coincide
/// exactly, and the length of an interval between two update times is an exact multiple of the tick
/// (`interval`).
class EventClock {
 public:
  EventClock() = default;
  EventClock(std::vector<double> h, Queue queue) : h_(std::move(h)), queue_(queue) {
    for (double he : h_)
      if (!(he > 0.0) || !std::isfinite(he)) throw std::invalid_argument("avi: steps must be finite and > 0");
    int K = 0;
    dyadic_ = is_dyadic(h_, &K);
    if (queue_ == Queue::levels && !dyadic_)
      throw std::invalid_argument("avi: the level calendar needs steps h_max 2^-k (snap_dyadic)");
    if (dyadic_) {
      if (K > 52) throw std::invalid_argument("avi: more than 52 dyadic levels");
      const double hm = *std::max_element(h_.begin(), h_.end());
      tick_ = std::ldexp(hm, -K);
      period_.resize(h_.size());
      for (std::size_t e = 0; e < h_.size(); ++e)
        period_[e] = static_cast<std::int64_t>(std::llround(h_[e] / tick_));
    }
    k_.assign(h_.size(), 1);
  }
  [[nodiscard]] const std::vector<double>& steps() const { return h_; }
  [[nodiscard]] bool dyadic() const { return dyadic_; }
  [[nodiscard]] double tick() const { return tick_; }

  /// Schedule every segment's first regular update, t_e^1 = h_e (the start updates at t = 0 are the
  /// caller's).
  void start() {
    std::vector<double> keys(h_.size());
    for (std::size_t e = 0; e < h_.size(); ++e) {
      k_[e] = 1;
      keys[e] = h_[e];
    }
    if (queue_ == Queue::heap)
      heap_ = EventHeap(keys);
    else
      calendar_ = LevelCalendar(period_);
    tick_next_ = 1;
  }
  /// Call fire(e, t, n, w) for every update with t < T in time order (n: the tick of t for dyadic steps, else
  /// 0; w = h_e, the update's weight); the calendar calls fire_run(e0, e1, t, n, w) instead for the
  /// equal-time updates of a run of consecutive segments [e0, e1) (the same as fire for each in segment
  /// order). Returns the number of updates.
  template <class Fire, class FireRun>
  long long advance(double T, Fire&& fire, FireRun&& fire_run) {
    long long count = 0;
    if (queue_ == Queue::heap) {
      while (!heap_.empty() && heap_.top_key() < T) {
        const std::ptrdiff_t e = heap_.top();
        const auto s = static_cast<std::size_t>(e);
        const std::int64_t k = k_[s];
        fire(e, heap_.top_key(), dyadic_ ? k * period_[s] : std::int64_t{0}, h_[s]);
        k_[s] = k + 1;
        heap_.replace_top(static_cast<double>(k + 1) * h_[s]);
        ++count;
      }
    } else {
      const auto& levels = calendar_.levels();
      const auto& runs = calendar_.runs();
      while (static_cast<double>(tick_next_) * tick_ < T) {
        const std::int64_t n = tick_next_;
        const double t = static_cast<double>(n) * tick_;
        for (const auto& lv : levels) {
          if (n % lv.period != 0) continue;
          for (std::size_t i = lv.begin; i < lv.end; ++i) {
            const auto& r = runs[i];
            fire_run(r.begin, r.end, t, n, h_[static_cast<std::size_t>(r.begin)]);
            count += r.end - r.begin;
          }
        }
        ++tick_next_;
      }
    }
    return count;
  }
  /// t_new − t_old for two update times (ticks n_old, n_new): exact in ticks for dyadic steps.
  [[nodiscard]] double interval(double t_old, std::int64_t n_old, double t_new, std::int64_t n_new) const {
    return dyadic_ ? static_cast<double>(n_new - n_old) * tick_ : t_new - t_old;
  }
  /// T − t_old for any time T: in ticks when T is a whole number of them (dyadic steps).
  [[nodiscard]] double elapsed(double t_old, std::int64_t n_old, double T) const {
    if (dyadic_) {
      const double nT = T / tick_;
      if (nT == std::floor(nT) && std::abs(nT) < 9.0e15)
        return static_cast<double>(static_cast<std::int64_t>(nT) - n_old) * tick_;
    }
    return T - t_old;
  }

 private:
  std::vector<double> h_;
  Queue queue_ = Queue::heap;
  bool dyadic_ = false;
  double tick_ = 0.0;
  std::vector<std::int64_t> period_;
  std::vector<std::int64_t> k_;  ///< index of each segment's next update
  EventHeap heap_;
  LevelCalendar calendar_;
  std::int64_t tick_next_ = 1;
};

}  // namespace lievi::integrators::avi
