#pragma once
/// @file lievi/integrators/avi/avi.hpp
/// @brief The asynchronous variational integrator (AVI) of Lew, Marsden, Ortiz and West, for a 1-D mesh of
/// lumped-mass nodes and segments with their own potentials and their own time steps (docs/theory/avi.md).
///
/// Segment e updates at its own times t_e^k = k h_e. Between its updates a node moves ballistically,
/// x_a(t) = x_a(t') + (t − t') p_a / m_a. The discrete Euler–Lagrange equations of the space-time action with
/// per-segment time sets (docs/theory/avi.md "Discrete Euler–Lagrange equations", the trapezoidal potential
/// rule per segment) are, at an update t = t_e^k of segment e with end nodes a, b:
///   p_a(t⁺) = p_a(t⁻) − w_e^k ∂V_e/∂x_a(x_a(t), x_b(t)),   p_b(t⁺) = p_b(t⁻) − w_e^k ∂V_e/∂x_b(...),
///   w_e^k = ½ (t_e^{k+1} − t_e^{k−1}) = h_e for k >= 1,  w_e^0 = h_e / 2 (the start: a velocity-Verlet half
///   kick, lievi's `start = "half"`),
/// and nothing else changes a node's momentum. Updates are taken in time order from a queue (queue.hpp); equal
/// times in segment order (heap) or level by level (calendar). With all h_e = h the updates of one time act
/// on positions that all sit at that time, and the scheme is lievi's synchronous staggered leapfrog
/// (field::StaggeredStepper on models::Wave, `exact` variant, `half` start), to round-off: the synchronous
/// stepper forms each node's kick as (Δt/w)(Π_r − Π_l) from the difference of its two stresses, the AVI adds the
/// two segments' impulses h Π_r and −h Π_l one at a time, so the operations differ and bitwise equality is not
/// possible (tests/avi/test_avi_wave.cpp measures the difference).
///
/// Time: when every step is h_max 2^{-k} (is_dyadic) the integrator counts time in integer ticks of
/// h_max 2^{-K}, so equal-time updates of different segments coincide exactly and every drift is an exact
/// multiple of the tick; otherwise update times are k h_e in floating point.
///
/// The event loop allocates nothing; the state is the node positions x_a (at each node's own last update
/// time), the momenta p_a and those times.
#include <Eigen/Core>
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <type_traits>
#include <vector>

#include "lievi/integrators/avi/mesh.hpp"
#include "lievi/integrators/avi/models.hpp"
#include "lievi/integrators/avi/queue.hpp"

namespace lievi::integrators::avi {

/// Scalar product of two points (double or Eigen vectors).
template <class P>
[[nodiscard]] inline double dot(const P& a, const P& b) {
  if constexpr (std::is_arithmetic_v<P>) return a * b;
  else return a.dot(b);
}
template <class P>
[[nodiscard]] inline P zero_point() {
  if constexpr (std::is_arithmetic_v<P>) return P(0);
  else return P::Zero();
}

template <class Model>
class Avi {
 public:
  using Point = typename Model::Point;

  struct Options {
    Queue queue = Queue::heap;  ///< `levels` needs dyadic steps
  };

  /// The integrator over `mesh` with segment potentials `model` and per-segment steps h (one per segment).
  Avi(Model model, Mesh mesh, std::vector<double> h, Options options = {})
      : model_(std::move(model)), mesh_(std::move(mesh)), h_(std::move(h)), opt_(options) {
    const std::ptrdiff_t ns = mesh_.n_segments(), nn = mesh_.n_nodes();
    if (static_cast<std::ptrdiff_t>(h_.size()) != ns || model_.n_segments() != ns)
      throw std::invalid_argument("avi::Avi: one step and one segment potential per mesh segment");
    if (static_cast<std::ptrdiff_t>(mesh_.fixed.size()) != nn)
      throw std::invalid_argument("avi::Avi: one fixed flag per node");
    for (double he : h_)
      if (!(he > 0.0) || !std::isfinite(he)) throw std::invalid_argument("avi::Avi: steps must be finite and > 0");
    inv_m_.resize(static_cast<std::size_t>(nn));
    for (std::ptrdiff_t a = 0; a < nn; ++a) {
      const auto s = static_cast<std::size_t>(a);
      if (!mesh_.fixed[s] && !(mesh_.m[s] > 0.0)) throw std::invalid_argument("avi::Avi: node masses must be > 0");
      inv_m_[s] = mesh_.fixed[s] ? 0.0 : 1.0 / mesh_.m[s];
    }
    int K = 0;
    dyadic_ = is_dyadic(h_, &K);
    if (opt_.queue == Queue::levels && !dyadic_)
      throw std::invalid_argument("avi::Avi: the level calendar needs steps h_max 2^-k (snap_dyadic)");
    if (dyadic_) {
      if (K > 52) throw std::invalid_argument("avi::Avi: more than 52 dyadic levels");
      const double hm = *std::max_element(h_.begin(), h_.end());
      tick_ = std::ldexp(hm, -K);
      period_.resize(h_.size());
      for (std::size_t e = 0; e < h_.size(); ++e) period_[e] = static_cast<std::int64_t>(std::llround(h_[e] / tick_));
    }
    x_.assign(static_cast<std::size_t>(nn), zero_point<Point>());
    p_ = x_;
    y_ = x_;
    t_.assign(static_cast<std::size_t>(nn), 0.0);
    n_.assign(static_cast<std::size_t>(nn), 0);
    k_.assign(static_cast<std::size_t>(ns), 1);
  }

  /// Set x_a(0), p_a(0) = m_a v_a(0) (0 at fixed nodes) and apply every segment's start update at t = 0 with
  /// weight h_e / 2; the next update of segment e is at h_e.
  void initialize(const std::vector<Point>& x0, const std::vector<Point>& v0) {
    const std::ptrdiff_t nn = mesh_.n_nodes(), ns = mesh_.n_segments();
    if (static_cast<std::ptrdiff_t>(x0.size()) != nn || static_cast<std::ptrdiff_t>(v0.size()) != nn)
      throw std::invalid_argument("avi::Avi::initialize: one position and one velocity per node");
    for (std::ptrdiff_t a = 0; a < nn; ++a) {
      const auto s = static_cast<std::size_t>(a);
      x_[s] = x0[s];
      p_[s] = mesh_.fixed[s] ? zero_point<Point>() : Point(mesh_.m[s] * v0[s]);
      t_[s] = 0.0;
      n_[s] = 0;
    }
    updates_ = 0;
    for (std::ptrdiff_t e = 0; e < ns; ++e) fire(e, 0.0, 0, 0.5 * h_[static_cast<std::size_t>(e)]);
    std::vector<double> keys(static_cast<std::size_t>(ns));
    for (std::ptrdiff_t e = 0; e < ns; ++e) {
      k_[static_cast<std::size_t>(e)] = 1;
      keys[static_cast<std::size_t>(e)] = update_time(e, 1);
    }
    if (opt_.queue == Queue::heap) heap_ = EventHeap(keys);
    else calendar_ = LevelCalendar(period_);
    tick_next_ = 1;
  }

  /// Take every update with time t < T, in time order. Returns the number of segment updates taken.
  long long advance(double T) {
    const long long before = updates_;
    if (opt_.queue == Queue::heap) {
      while (heap_.top_key() < T) {
        const std::ptrdiff_t e = heap_.top();
        const auto s = static_cast<std::size_t>(e);
        const std::int64_t k = k_[s];
        fire(e, heap_.top_key(), dyadic_ ? k * period_[s] : 0, h_[s]);
        k_[s] = k + 1;
        heap_.replace_top(update_time(e, k + 1));
      }
    } else {
      const auto& levels = calendar_.levels();
      const auto& segs = calendar_.segments();
      while (static_cast<double>(tick_next_) * tick_ < T) {
        const std::int64_t n = tick_next_;
        const double t = static_cast<double>(n) * tick_;
        for (const auto& lv : levels) {
          if (n % lv.period != 0) continue;
          for (std::size_t i = lv.begin; i < lv.end; ++i) {
            const std::ptrdiff_t e = segs[i];
            fire(e, t, n, h_[static_cast<std::size_t>(e)]);
            ++k_[static_cast<std::size_t>(e)];
          }
        }
        ++tick_next_;
      }
    }
    return updates_ - before;
  }

  /// Node positions at time T (after advance(T), every node's last update is at or before T): the ballistic
  /// drift x_a + (T − t_a) p_a / m_a, computed as the next update would; the state is not changed.
  [[nodiscard]] const std::vector<Point>& positions_at(double T) const {
    for (std::ptrdiff_t a = 0; a < mesh_.n_nodes(); ++a) {
      const auto s = static_cast<std::size_t>(a);
      y_[s] = x_[s] + elapsed(a, T) * Point(p_[s] * inv_m_[s]);
    }
    return y_;
  }
  /// Kinetic energy of the current momenta, Σ_a |p_a|² / (2 m_a) (constant between updates).
  [[nodiscard]] double kinetic() const {
    double k = 0.0;
    for (std::size_t a = 0; a < p_.size(); ++a) k += 0.5 * inv_m_[a] * dot(p_[a], p_[a]);
    return k;
  }
  /// Potential energy at time T, Σ_e V_e(x_a(T), x_b(T)).
  [[nodiscard]] double potential(double T) const {
    const std::vector<Point>& y = positions_at(T);
    double v = 0.0;
    for (std::ptrdiff_t e = 0; e < mesh_.n_segments(); ++e)
      v += model_.energy(e, y[static_cast<std::size_t>(mesh_.first(e))], y[static_cast<std::size_t>(mesh_.second(e))]);
    return v;
  }
  /// E(T) = kinetic() + potential(T): with the momenta of the last updates before T.
  [[nodiscard]] double energy(double T) const { return kinetic() + potential(T); }
  /// Σ_a p_a (kept to round-off on a mesh without fixed nodes).
  [[nodiscard]] Point linear_momentum() const {
    Point P = zero_point<Point>();
    for (const Point& p : p_) P += p;
    return P;
  }
  /// Σ_a x_a(T) × p_a about the origin (points in R^3; kept to round-off on a free mesh with rotation-invariant
  /// potentials: an update's two impulses are along the chord x_b − x_a, and a drift keeps x × p).
  [[nodiscard]] Eigen::Vector3d angular_momentum(double T) const
    requires std::is_same_v<Point, Eigen::Vector3d>
  {
    const std::vector<Point>& y = positions_at(T);
    Eigen::Vector3d L = Eigen::Vector3d::Zero();
    for (std::size_t a = 0; a < p_.size(); ++a) L += y[a].cross(p_[a]);
    return L;
  }

  [[nodiscard]] const Model& model() const { return model_; }
  [[nodiscard]] const Mesh& mesh() const { return mesh_; }
  [[nodiscard]] const std::vector<double>& steps() const { return h_; }
  [[nodiscard]] const std::vector<Point>& momenta() const { return p_; }
  /// Positions at each node's own last update time node_time(a).
  [[nodiscard]] const std::vector<Point>& positions() const { return x_; }
  [[nodiscard]] double node_time(std::ptrdiff_t a) const { return t_[static_cast<std::size_t>(a)]; }
  /// Segment updates taken, the start updates included.
  [[nodiscard]] long long updates() const { return updates_; }
  /// Whether time is counted in exact ticks (all steps h_max 2^{-k}); the tick length.
  [[nodiscard]] bool dyadic() const { return dyadic_; }
  [[nodiscard]] double tick() const { return tick_; }

 private:
  /// t_e^k: k h_e (the same double as k period_e tick for dyadic steps).
  [[nodiscard]] double update_time(std::ptrdiff_t e, std::int64_t k) const {
    return static_cast<double>(k) * h_[static_cast<std::size_t>(e)];
  }
  /// T − t_a: exact in ticks for dyadic steps when T is a whole number of ticks.
  [[nodiscard]] double elapsed(std::ptrdiff_t a, double T) const {
    const auto s = static_cast<std::size_t>(a);
    if (dyadic_) {
      const double nT = T / tick_;
      if (nT == std::floor(nT) && std::abs(nT) < 9.0e15)
        return static_cast<double>(static_cast<std::int64_t>(nT) - n_[s]) * tick_;
    }
    return T - t_[s];
  }
  /// Move node a ballistically to the update time (t, tick n).
  void drift(std::size_t a, double t, std::int64_t n) {
    const double dt = dyadic_ ? static_cast<double>(n - n_[a]) * tick_ : t - t_[a];
    x_[a] += dt * Point(p_[a] * inv_m_[a]);
    t_[a] = t;
    n_[a] = n;
  }
  /// The update of segment e at time t (tick n) with weight w: both nodes to t, then the impulses
  /// −w ∂V_e/∂x_a = w F_e and −w ∂V_e/∂x_b = −w F_e (none at fixed nodes).
  void fire(std::ptrdiff_t e, double t, std::int64_t n, double w) {
    const auto a = static_cast<std::size_t>(mesh_.first(e)), b = static_cast<std::size_t>(mesh_.second(e));
    drift(a, t, n);
    drift(b, t, n);
    const Point I = w * model_.force(e, x_[a], x_[b]);
    if (!mesh_.fixed[a]) p_[a] += I;
    if (!mesh_.fixed[b]) p_[b] -= I;
    ++updates_;
  }

  Model model_;
  Mesh mesh_;
  std::vector<double> h_;
  Options opt_;
  std::vector<double> inv_m_;
  bool dyadic_ = false;
  double tick_ = 0.0;
  std::vector<std::int64_t> period_;
  std::vector<Point> x_, p_;
  mutable std::vector<Point> y_;
  std::vector<double> t_;
  std::vector<std::int64_t> n_;   ///< node times in ticks (dyadic steps)
  std::vector<std::int64_t> k_;   ///< index of each segment's next update
  EventHeap heap_;
  LevelCalendar calendar_;
  std::int64_t tick_next_ = 1;
  long long updates_ = 0;
};

}  // namespace lievi::integrators::avi
