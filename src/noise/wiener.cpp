/// @file noise/wiener.cpp
/// @brief Wiener increments as left-to-right sums of the fine increments sqrt(base_dt) xi, optional clipping.
// No FMA contraction of w += s * xi (GCC's C++ default is -ffp-contract=fast; it matters only with FMA, e.g.
// -march=native): the batch and scalar sums and the documented "sum of the fine increments" must round alike.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("fp-contract=off")
#elif defined(__clang__)
#pragma clang fp contract(off)
#endif

#include "lievi/noise/wiener.hpp"

#include <algorithm>
#include <cfloat>
#include <charconv>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "lievi/noise/stream_steps.hpp"

namespace lievi::noise {

namespace {

constexpr std::size_t kChunk = 256;  // modes per chunk: all fine steps of a chunk summed while it is in L1

/// The clip of a coarse increment to [-c, c] (c = +infinity: identity). One function for scalar and batch.
inline double clip(double w, double c) { return std::min(std::max(w, -c), c); }

/// x in the shortest form that reads back to the same double.
std::string shortest(double x) {
  char buf[32];
  const auto r = std::to_chars(buf, buf + sizeof buf, x);
  return std::string(buf, r.ptr);
}

}  // namespace

WienerIncrements::WienerIncrements(StreamKey key, double base_dt, int refine_log2, bool truncate)
    : key_(key), m_(refine_log2), truncate_(truncate) {
  if (!(base_dt > 0.0) || !std::isfinite(base_dt)) {
    throw std::invalid_argument("WienerIncrements: base_dt must be finite and > 0, got " + shortest(base_dt));
  }
  if (refine_log2 < 0 || refine_log2 > 40) {
    throw std::invalid_argument("WienerIncrements: refine_log2 must be in [0, 40], got " +
                                std::to_string(refine_log2));
  }
  base_dt_ = base_dt;
  sqrt_base_dt_ = std::sqrt(base_dt);
  dt_ = std::ldexp(base_dt, refine_log2);  // exact (power of two)
  if (!std::isfinite(dt_)) throw std::invalid_argument("WienerIncrements: dt = 2^m base_dt overflows");
  if (truncate) {
    if (!(dt_ < 1.0) || dt_ < DBL_MIN) {
      throw std::invalid_argument("WienerIncrements: truncation needs a normal dt < 1, got dt = " +
                                  std::to_string(dt_));
    }
    bound_ = std::sqrt(-4.0 * detail::log_unit(dt_));  // A = sqrt(2 k |ln dt|), k = 2
    clip_dw_ = bound_ * std::sqrt(dt_);
  }
}

double WienerIncrements::increment(std::uint64_t n, std::uint32_t mode) const {
  if (m_ > 0 && (n >> (64 - m_)) != 0) throw std::out_of_range("WienerIncrements: coarse step index too large");
  const std::uint64_t first = n << m_;
  const std::uint64_t fine = std::uint64_t{1} << m_;
  double w = sqrt_base_dt_ * stream_normal(key_, first, kDefaultGroup, mode);
  for (std::uint64_t i = 1; i < fine; ++i) w += sqrt_base_dt_ * stream_normal(key_, first + i, kDefaultGroup, mode);
  return truncate_ ? clip(w, clip_dw_) : w;
}

void WienerIncrements::increments(std::uint64_t n, std::uint32_t mode0, std::size_t count, double* out) const {
  if (m_ > 0 && (n >> (64 - m_)) != 0) throw std::out_of_range("WienerIncrements: coarse step index too large");
  const std::uint64_t first = n << m_;
  const std::uint64_t fine = std::uint64_t{1} << m_;
  const double s = sqrt_base_dt_;
  const std::size_t chunk = fine == 1 ? std::max<std::size_t>(count, 1) : kChunk;  // m = 0: one pass, one call
  for (std::size_t done = 0; done < count; done += chunk) {
    const std::size_t len = std::min(chunk, count - done);
    const std::uint32_t m0 = mode0 + static_cast<std::uint32_t>(done);
    double* o = out + done;
    // Same operations, in the same order, as the scalar sum: w = s xi_0, then w = w + s xi_i for i = 1, 2, ...,
    // done by the batch kernel as it makes the normals (no pass over o of its own)
    put_stream_normals(key_, first, kDefaultGroup, m0, len, Put::scale, s, o);
    for (std::uint64_t i = 1; i < fine; ++i) put_stream_normals(key_, first + i, kDefaultGroup, m0, len, Put::add_scaled, s, o);
    if (truncate_) {
      for (std::size_t j = 0; j < len; ++j) o[j] = clip(o[j], clip_dw_);
    }
  }
}

void WienerIncrements::increments_steps(std::uint64_t n0, std::size_t nsteps, std::uint32_t mode0, std::size_t count,
                                        double* out, double* work) const {
  if (nsteps == 0 || count == 0) return;
  const std::uint64_t last = n0 + (nsteps - 1);
  if (last < n0 || (m_ > 0 && (last >> (64 - m_)) != 0))
    throw std::out_of_range("WienerIncrements: coarse step index too large");
  if (count > (std::uint64_t{1} << 32) - mode0)
    throw std::out_of_range("WienerIncrements: the modes go past 2^32 - 1");
  if (nsteps > (SIZE_MAX >> m_) / 2) throw std::length_error("WienerIncrements: too many fine steps for one call");
  const std::uint64_t fine = std::uint64_t{1} << m_;
  const std::size_t nfine = nsteps << m_;
  const double s = sqrt_base_dt_;
  double* even = work;
  double* odd = work + nfine;
  // each block of the modes once, across all the fine steps; then each mode's coarse sums in the scalar order
  for (std::uint64_t k = mode0; k < std::uint64_t{mode0} + count;) {
    const auto block = static_cast<std::uint32_t>(k >> 1);
    stream_normals_steps(key_, n0 << m_, kDefaultGroup, block, nfine, even, odd);
    const std::uint64_t block_end = (std::uint64_t{block} + 1) << 1;
    for (; k < block_end && k < std::uint64_t{mode0} + count; ++k) {
      const double* z = (k & 1u) != 0 ? odd : even;
      const std::size_t col = static_cast<std::size_t>(k - mode0);
      for (std::size_t c = 0; c < nsteps; ++c) {
        const double* zc = z + (c << m_);
        double w = s * zc[0];
        for (std::uint64_t i = 1; i < fine; ++i) w += s * zc[i];
        out[c * count + col] = truncate_ ? clip(w, clip_dw_) : w;
      }
    }
  }
}

}  // namespace lievi::noise
