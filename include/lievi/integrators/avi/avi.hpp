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
/// and nothing else changes a node's momentum. Updates are taken in time order from a queue (queue.hpp);
/// equal times in segment order (heap) or level by level (calendar). With all h_e = h the updates of one time
/// act on positions that all sit at that time, and the scheme is lievi's synchronous staggered leapfrog
/// (field::StaggeredStepper on models::Wave, `exact` variant, `half` start), to round-off: the synchronous
/// stepper forms each node's kick as (Δt/w)(Π_r − Π_l) from the difference of its two stresses, the AVI adds
/// the two segments' impulses h Π_r and −h Π_l one at a time, so the operations differ and bitwise equality
/// is not possible (tests/avi/test_avi_wave.cpp measures the difference).
///
/// Time: when every step is h_max 2^{-k} (is_dyadic) the integrator counts time in integer ticks of
/// h_max 2^{-K}, so equal-time updates of different segments coincide exactly and every drift is an exact
/// multiple of the tick; otherwise update times are k h_e in floating point.
///
/// The event loop allocates nothing; the state is the node positions x_a (at each node's own last update
/// time), the momenta p_a and those times.
#include <Eigen/Core>
#include <Eigen/Geometry>  // cross
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
  if constexpr (std::is_arithmetic_v<P>)
    return a * b;
  else
    return a.dot(b);
}
template <class P>
[[nodiscard]] inline P zero_point() {
  if constexpr (std::is_arithmetic_v<P>)
    return P(0);
  else
    return P::Zero();
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
      : model_(std::move(model)), mesh_(std::move(mesh)), clock_(std::move(h), options.queue) {
    const std::ptrdiff_t ns = mesh_.n_segments(), nn = mesh_.n_nodes();
    if (static_cast<std::ptrdiff_t>(clock_.steps().size()) != ns || model_.n_segments() != ns)
      throw std::invalid_argument("avi::Avi: one step and one segment potential per mesh segment");
    if (static_cast<std::ptrdiff_t>(mesh_.fixed.size()) != nn)
      throw std::invalid_argument("avi::Avi: one fixed flag per node");
    inv_m_.resize(static_cast<std::size_t>(nn));
    for (std::ptrdiff_t a = 0; a < nn; ++a) {
      const auto s = static_cast<std::size_t>(a);
      if (!mesh_.fixed[s] && !(mesh_.m[s] > 0.0))
        throw std::invalid_argument("avi::Avi: node masses must be > 0");
      inv_m_[s] = mesh_.fixed[s] ? 0.0 : 1.0 / mesh_.m[s];
    }
    x_.assign(static_cast<std::size_t>(nn), zero_point<Point>());
    p_ = x_;
    F_.assign(static_cast<std::size_t>(ns), zero_point<Point>());
    free_.resize(static_cast<std::size_t>(nn));
    for (std::size_t a = 0; a < free_.size(); ++a) free_[a] = mesh_.fixed[a] ? 0.0 : 1.0;
    y_ = x_;
    t_.assign(static_cast<std::size_t>(nn), 0.0);
    n_.assign(static_cast<std::size_t>(nn), 0);
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
    for (std::ptrdiff_t e = 0; e < ns; ++e)
      fire(e, 0.0, 0, 0.5 * clock_.steps()[static_cast<std::size_t>(e)]);
    clock_.start();
  }

  /// Take every update with time t < T, in time order. Returns the number of segment updates taken.
  long long advance(double T) {
    return clock_.advance(
        T, [this](std::ptrdiff_t e, double t, std::int64_t n, double w) { fire(e, t, n, w); },
        [this](std::ptrdiff_t e0, std::ptrdiff_t e1, double t, std::int64_t n, double w) {
          fire_run(e0, e1, t, n, w);
        });
  }

  /// Node positions at time T (after advance(T), every node's last update is at or before T): the ballistic
  /// drift x_a + (T − t_a) p_a / m_a, computed as the next update would; the state is not changed.
  [[nodiscard]] const std::vector<Point>& positions_at(double T) const {
    for (std::ptrdiff_t a = 0; a < mesh_.n_nodes(); ++a) {
      const auto s = static_cast<std::size_t>(a);
      y_[s] = x_[s] + clock_.elapsed(t_[s], n_[s], T) * Point(p_[s] * inv_m_[s]);
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
      v += model_.energy(e, y[static_cast<std::size_t>(mesh_.first(e))],
                         y[static_cast<std::size_t>(mesh_.second(e))]);
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
  /// Σ_a x_a(T) × p_a about the origin (points in R^3; kept to round-off on a free mesh with
  /// rotation-invariant potentials: an update's two impulses are along the chord x_b − x_a, and a drift keeps
  /// x × p).
  [[nodiscard]] Eigen::Vector3d angular_momentum(
      double T) const requires std::is_same_v<Point, Eigen::Vector3d> {
    const std::vector<Point>& y = positions_at(T);
    Eigen::Vector3d L = Eigen::Vector3d::Zero();
    for (std::size_t a = 0; a < p_.size(); ++a) L += y[a].cross(p_[a]);
    return L;
  }

  [[nodiscard]] const Model& model() const { return model_; }
  [[nodiscard]] const Mesh& mesh() const { return mesh_; }
  [[nodiscard]] const std::vector<double>& steps() const { return clock_.steps(); }
  [[nodiscard]] const std::vector<Point>& momenta() const { return p_; }
  /// Positions at each node's own last update time node_time(a).
  [[nodiscard]] const std::vector<Point>& positions() const { return x_; }
  [[nodiscard]] double node_time(std::ptrdiff_t a) const { return t_[static_cast<std::size_t>(a)]; }
  /// Segment updates taken, the start updates included.
  [[nodiscard]] long long updates() const { return updates_; }
  /// Whether time is counted in exact ticks (all steps h_max 2^{-k}); the tick length.
  [[nodiscard]] bool dyadic() const { return clock_.dyadic(); }
  [[nodiscard]] double tick() const { return clock_.tick(); }

 private:
  /// Move node a ballistically to the update time (t, tick n).
  void drift(std::size_t a, double t, std::int64_t n) {
    const double dt = clock_.interval(t_[a], n_[a], t, n);
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
  /// The equal-time updates (t, tick n, weight w) of the consecutive segments [e0, e1), as fire() for each in
  /// segment order, with the same operations in the same order (so bitwise the same), in three sweeps that
  /// vectorise: drift nodes e0 .. e1, the forces F_e, then the impulses −w F_e to the second nodes and +w F_e
  /// to the first (a node between two segments of the run gets −w F_{e-1} and then +w F_e, as in segment
  /// order).
  void fire_run(std::ptrdiff_t e0, std::ptrdiff_t e1, double t, std::int64_t n, double w) {
    if (mesh_.periodic && e1 == mesh_.n_segments()) {  // the closing segment wraps to node 0: on its own
      if (e1 - 1 > e0) fire_run(e0, e1 - 1, t, n, w);
      fire(e1 - 1, t, n, w);
      return;
    }
    Point* x = x_.data();
    Point* p = p_.data();
    Point* F = F_.data();
    const double* im = inv_m_.data();
    const double* free = free_.data();
    std::int64_t* nn = n_.data();
    double* tt = t_.data();
    for (std::ptrdiff_t a = e0; a <= e1; ++a) {
      const double dt = clock_.interval(tt[a], nn[a], t, n);
      x[a] += dt * Point(p[a] * im[a]);
      tt[a] = t;
      nn[a] = n;
    }
    for (std::ptrdiff_t e = e0; e < e1; ++e) F[e] = Point(w * model_.force(e, x[e], x[e + 1]));
    for (std::ptrdiff_t e = e0; e < e1; ++e) p[e + 1] -= Point(free[e + 1] * F[e]);
    for (std::ptrdiff_t e = e0; e < e1; ++e) p[e] += Point(free[e] * F[e]);
    updates_ += e1 - e0;
  }

  Model model_;
  Mesh mesh_;
  EventClock clock_;
  std::vector<double> inv_m_;
  std::vector<Point> x_, p_;
  std::vector<Point> F_;      ///< workspace of fire_run: w F_e
  std::vector<double> free_;  ///< 0 at fixed nodes, 1 elsewhere
  mutable std::vector<Point> y_;
  std::vector<double> t_;
  std::vector<std::int64_t> n_;  ///< node times in ticks (dyadic steps)
  long long updates_ = 0;
};

}  // namespace lievi::integrators::avi
