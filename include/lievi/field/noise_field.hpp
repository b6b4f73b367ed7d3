#pragma once
/// @file lievi/field/noise_field.hpp
/// @brief The noise of a staggered field: per step n the Wiener increments of every mode (noise/wiener.hpp)
/// and the body-frame group increment theta_j = sum_k Theta_k(s_j) Delta W^{k,n} of every node
/// (docs/theory/beam.md "Discrete increments and action", "Noise").
///
/// Modes (docs/scenarios.md "Streams"): `common` one Brownian motion for all nodes (mode 0);
/// `independent` one per node (mode k = node index, one scalar draw per step); `modes` a list of spatial
/// fields Theta_k(s), mode k = list index. theta_j = 0 at clamped and prescribed nodes. The increments are pure functions of
/// (seed, path, fine step, mode), so they do not depend on the thread count or the order of the sweep.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cmath>
#include <stdexcept>
#include <type_traits>
#include <vector>

#include "lievi/field/grid.hpp"
#include "lievi/field/staggered.hpp"
#include "lievi/noise/wiener.hpp"

namespace lievi::field {

enum class NoiseMode { none, common, independent, modes };

[[nodiscard]] inline const char* to_string(NoiseMode m) {
  switch (m) {
    case NoiseMode::none:
      return "none";
    case NoiseMode::common:
      return "common";
    case NoiseMode::independent:
      return "independent";
    case NoiseMode::modes:
      break;
  }
  return "modes";
}

template <class Algebra>
class NoiseField {
 public:
  NoiseField() = default;
  /// `theta`: the amplitude Theta for common / independent; `modes[k][j]` = Theta_k(s_j) for `modes`.
  NoiseField(const Grid& grid, NoiseMode mode, const Algebra& theta, std::vector<std::vector<Algebra>> modes,
             noise::WienerIncrements increments)
      : mode_(mode), theta_(theta), modes_(std::move(modes)), inc_(increments), n_nodes_(grid.n_nodes()) {
    clamped_first_ = grid.driven(NodeIndex{0});
    clamped_last_ = grid.driven(NodeIndex{n_nodes_ - 1});
    if (mode_ == NoiseMode::modes) {
      for (const auto& m : modes_)
        if (static_cast<std::ptrdiff_t>(m.size()) != n_nodes_)
          throw std::invalid_argument("field::NoiseField: a mode must give Theta_k at every node");
      dW_.assign(modes_.size(), 0.0);
    } else if (mode_ == NoiseMode::independent) {
      dW_.assign(static_cast<std::size_t>(n_nodes_), 0.0);
    } else {
      dW_.assign(1, 0.0);
    }
    // few normals a step: drawn kBufferFine fine steps at a time, across the steps (one step per SIMD lane)
    if ((mode_ == NoiseMode::common || (mode_ == NoiseMode::modes && dW_.size() <= kFewModes)) &&
        inc_.refine_log2() <= 6) {
      buffer_steps_ = std::size_t{kBufferFine} >> inc_.refine_log2();
      buffer_.assign(buffer_steps_ * dW_.size(), 0.0);
      work_.assign(inc_.steps_work(buffer_steps_), 0.0);
    }
  }

  [[nodiscard]] NoiseMode mode() const { return mode_; }
  [[nodiscard]] bool active() const { return mode_ != NoiseMode::none; }
  [[nodiscard]] const noise::WienerIncrements& increments() const { return inc_; }

  /// A factor on every increment drawn from now on (1: the scenario's noise; 0: none, the same stream): a
  /// noise switched on, off or scaled between steps (the stepped simulations). Throws std::invalid_argument
  /// for a factor that is not finite or negative.
  void set_scale(double s) {
    if (!(s >= 0.0) || !std::isfinite(s)) throw std::invalid_argument("field::NoiseField: the scale must be finite and >= 0");
    scale_ = s;
  }
  [[nodiscard]] double scale() const { return scale_; }
  /// Checkpoints: the scale (the increments of a step are drawn from its number alone).
  void checkpoint(StateIO& a) { a("scale", scale_); }

  /// Draw the increments of step n (from t_n to t_{n+1}). Parallel over chunks of nodes for `independent`.
  void draw(std::uint64_t n) { draw(n, 0, n_nodes_); }
  /// The same for the nodes [lo, hi) only (a block of a decomposed field): `independent` draws only theirs.
  void draw(std::uint64_t n, std::ptrdiff_t lo, std::ptrdiff_t hi) {
    draw_unscaled(n, lo, hi);
    if (scale_ != 1.0)
      for (double& w : dW_) w *= scale_;
  }

 private:
  void draw_unscaled(std::uint64_t n, std::ptrdiff_t lo, std::ptrdiff_t hi) {
    switch (mode_) {
      case NoiseMode::none:
        return;
      case NoiseMode::common:
        if (buffer_steps_ > 0) return from_buffer(n);
        dW_[0] = inc_.increment(n, 0);
        return;
      case NoiseMode::modes:
        if (buffer_steps_ > 0) return from_buffer(n);
        inc_.increments(n, 0, dW_.size(), dW_.data());
        return;
      case NoiseMode::independent: {
        const std::ptrdiff_t chunk = 4096, n_chunks = (hi - lo + chunk - 1) / chunk;
#pragma omp parallel for schedule(static) if (n_chunks > 1)
        for (std::ptrdiff_t c = 0; c < n_chunks; ++c) {
          const std::ptrdiff_t b = lo + c * chunk, e = std::min(hi, b + chunk);
          inc_.increments(n, static_cast<std::uint32_t>(b), static_cast<std::size_t>(e - b), dW_.data() + b);
        }
        return;
      }
    }
  }

 public:
  /// The scalar increment that drives node j (common: the one Brownian motion; independent: node j's own).
  /// Not defined for `modes` (a node sees several). Zero at clamped nodes.
  [[nodiscard]] double dW(std::ptrdiff_t j) const {
    if (is_clamped(j) || mode_ == NoiseMode::none) return 0.0;
    return mode_ == NoiseMode::independent ? dW_[static_cast<std::size_t>(j)] : dW_[0];
  }

  /// theta_j = sum_k Theta_k(s_j) Delta W^{k,n} for the step drawn last (zero at clamped nodes).
  [[nodiscard]] Algebra theta(std::ptrdiff_t j) const {
    switch (mode_) {
      case NoiseMode::none:
        break;
      case NoiseMode::common:
      case NoiseMode::independent:
        if (!is_clamped(j)) return Algebra(theta_ * dW(j));
        break;
      case NoiseMode::modes: {
        if (is_clamped(j)) break;
        Algebra t = modes_[0][static_cast<std::size_t>(j)] * dW_[0];
        for (std::size_t k = 1; k < modes_.size(); ++k) t += modes_[k][static_cast<std::size_t>(j)] * dW_[k];
        return t;
      }
    }
    return zero();
  }

  /// The raw increments of the last draw (one per mode; one in total for common).
  [[nodiscard]] const std::vector<double>& raw() const { return dW_; }
  /// The amplitude of common / independent noise.
  [[nodiscard]] const Algebra& amplitude() const { return theta_; }

 private:
  /// The increments of step n from the buffer of steps [buffered_, buffered_ + filled_), refilled from step n
  /// when n is not there (the steps taken in order, a resumed run, a repeated draw): the same bits as drawn
  /// one step at a time (WienerIncrements::increments_steps), so the buffer is not part of the state.
  void from_buffer(std::uint64_t n) {
    if (!(filled_ > 0 && n >= buffered_ && n - buffered_ < filled_)) refill(n);
    const std::size_t K = dW_.size();
    std::copy_n(buffer_.data() + (n - buffered_) * K, K, dW_.data());
  }
  /// The buffer from step n on (out of line: once every buffer_steps_ steps, and kept out of the step's code).
  [[gnu::noinline]] void refill(std::uint64_t n) {
    // no step beyond the last the counter holds (2^64 - 1 fine steps): there increments_steps throws for n
    const int m = inc_.refine_log2();
    const std::uint64_t top = m == 0 ? ~std::uint64_t{0} : (~std::uint64_t{0} >> m);
    const std::uint64_t room = n <= top ? top - n : 0;
    const std::size_t steps = room < buffer_steps_ - 1 ? static_cast<std::size_t>(room) + 1 : buffer_steps_;
    inc_.increments_steps(n, steps, 0, dW_.size(), buffer_.data(), work_.data());
    buffered_ = n;
    filled_ = steps;
  }

  [[nodiscard]] bool is_clamped(std::ptrdiff_t j) const {
    return (j == 0 && clamped_first_) || (j == n_nodes_ - 1 && clamped_last_);
  }
  [[nodiscard]] static Algebra zero() { return zero_value<Algebra>(); }

  NoiseMode mode_ = NoiseMode::none;
  Algebra theta_ = zero();
  std::vector<std::vector<Algebra>> modes_;
  noise::WienerIncrements inc_;
  std::ptrdiff_t n_nodes_ = 0;
  bool clamped_first_ = false, clamped_last_ = false;
  std::vector<double> dW_;
  double scale_ = 1.0;
  /// The across-steps buffer of `common` and few-`modes` noise (see from_buffer): fine steps per refill, the
  /// largest mode count buffered, the steps a refill holds, and the buffer (steps x modes) with its workspace.
  static constexpr unsigned kBufferFine = 64;
  static constexpr std::size_t kFewModes = 8;
  std::size_t buffer_steps_ = 0, filled_ = 0;
  std::uint64_t buffered_ = 0;
  std::vector<double> buffer_, work_;
};

}  // namespace lievi::field
