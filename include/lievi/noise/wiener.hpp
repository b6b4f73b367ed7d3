#pragma once
/// @file lievi/noise/wiener.hpp
/// @brief Wiener increments Delta W ~ N(0, dt) on a step dt = 2^m base_dt, as sums of the fine increments.
///
/// The finest grid is base_dt (scenario key noise.base_dt). The fine increment of fine step i and mode k is
/// sqrt(base_dt) * xi(seed, path, i, k) (normal k of group 0 at
/// fine step i, philox.hpp); the increment of coarse step n (dt = 2^m base_dt) is the sum of
/// its 2^m fine increments i = n 2^m ... n 2^m + 2^m - 1, added in increasing i (left to right, starting from
/// the first term, not from 0.0 + first). So one Brownian path can be run at several dt (strong convergence
/// studies), and a coarse increment equals the sum of its fine ones exactly (bitwise, with that order).
/// m = 0 gives sqrt(dt) * xi directly.
///
/// Optional truncation (Milstein, Repin & Tretyakov 2002, bounded increments for implicit schemes): with
/// `truncate` the normalised coarse increment Delta W / sqrt(dt) is clipped to [-A, A], A = sqrt(2 k |ln dt|)
/// with k = 2, i.e. Delta W is replaced by +-fl(A * sqrt(dt)) when |Delta W| > fl(A * sqrt(dt)). The clip is
/// applied after the fine increments are summed, so a clipped coarse increment is no longer the sum of its fine
/// ones (the unclipped ones still are); runs at several dt then share the Brownian path only up to the clipped
/// steps. Truncation needs dt < 1 (A > 0).
///
/// The fine step indices of coarse step n must fit in 64 bits: n < 2^(64 - m), else std::out_of_range. Cost:
/// 2^m normals per increment. The clip level is computed with lievi's own log (noise::detail::log_unit), so it
/// is the same on every libm too.
#include <cstddef>
#include <cstdint>
#include <limits>

#include "lievi/noise/philox.hpp"

namespace lievi::noise {

class WienerIncrements {
 public:
  WienerIncrements() = default;
  /// dt = 2^refine_log2 * base_dt. Throws std::invalid_argument if base_dt is not finite and > 0, if
  /// refine_log2 is not in [0, 40], or if truncate is set and dt >= 1.
  WienerIncrements(StreamKey key, double base_dt, int refine_log2, bool truncate = false);

  [[nodiscard]] StreamKey key() const { return key_; }
  [[nodiscard]] double base_dt() const { return base_dt_; }
  [[nodiscard]] int refine_log2() const { return m_; }
  /// The step dt = 2^m base_dt.
  [[nodiscard]] double dt() const { return dt_; }
  /// Whether coarse increments are clipped (constructor flag `truncate`).
  [[nodiscard]] bool truncates() const { return truncate_; }
  /// The bound A = sqrt(4 |ln dt|) on |Delta W| / sqrt(dt) when truncating; +infinity when not.
  [[nodiscard]] double truncation_bound() const { return bound_; }

  /// Delta W of coarse step n (from t_n to t_{n+1}) for mode k (normal index k), clipped if truncating.
  [[nodiscard]] double increment(std::uint64_t n, std::uint32_t mode) const;

  /// Batch: out[i] = increment(n, mode0 + i), i in [0, count); bitwise equal to the scalar calls. Uses
  /// `stream_normals` (vectorised); allocates nothing.
  void increments(std::uint64_t n, std::uint32_t mode0, std::size_t count, double* out) const;

  /// Across steps: out[s count + k] = increment(n0 + s, mode0 + k) for s in [0, nsteps), k in [0, count),
  /// bitwise; the fine normals of all the steps made one block at a time across the steps
  /// (stream_normals_steps), for sources with few modes (`common` noise, a few `modes`). `work` holds at least
  /// steps_work(nsteps) doubles (no allocation here). Throws std::out_of_range as increment() for the last step,
  /// std::length_error when steps_work(nsteps) would not fit in a size_t.
  void increments_steps(std::uint64_t n0, std::size_t nsteps, std::uint32_t mode0, std::size_t count, double* out,
                        double* work) const;
  /// The doubles of `work` that increments_steps needs for nsteps steps.
  [[nodiscard]] std::size_t steps_work(std::size_t nsteps) const { return 2 * (nsteps << m_); }

 private:
  StreamKey key_{};
  double base_dt_ = 1.0, sqrt_base_dt_ = 1.0, dt_ = 1.0;
  double bound_ = std::numeric_limits<double>::infinity();    // A, or +infinity without truncation
  double clip_dw_ = std::numeric_limits<double>::infinity();  // fl(A sqrt(dt)), the clip level of Delta W
  int m_ = 0;
  bool truncate_ = false;
};

}  // namespace lievi::noise
