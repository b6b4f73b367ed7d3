#pragma once
/// @file lievi/integrators/avi/beam_avi.hpp
/// @brief The asynchronous variational integrator of the SE(3) beam (docs/theory/avi.md "The SE(3) beam"):
/// the synchronous scheme's group increments, exact momentum transport and segment forces f⁻ = T⁻_B Π, f⁺ =
/// T⁺_B Π (docs/theory/beam.md, `exact` variant), with per-segment time steps.
///
/// Node j keeps its configuration g_j, its post-momentum M_j (per unit length) and its time t_j. An update of
/// segment e = (a, b) at time t with weight w (h_e, or h_e/2 at the start):
///  1. drifts a and b to t: the free step of length Δt = t − t_j, i.e. solve T⁻_{Δt ζ}(𝕂ζ) = M_j for ζ
///  (Newton,
///     the synchronous local solve with this node's own Δt), g_j ← g_j τ(Δt ζ), M_j ← Ad*_{τ(Δt ζ)} M_j (the
///     pre-momentum of the new time); a drift of length 0 does nothing;
///  2. B = τ⁻¹(g_a⁻¹ g_b), γ = B/Δs_e, Π = ℙ(γ − E), M_a += (w/w_a) T⁻_B Π, M_b −= (w/w_b) T⁺_B Π.
/// These are the discrete Euler–Poincaré equations of the action with per-segment time sets (derived in
/// docs/theory/avi.md). With all h_e = h it is the synchronous stepper (field::StaggeredStepper on
/// models::Beam, `exact`, `half` start) up to round-off and the Newton tolerance. The spatial momentum
/// Σ_j w_j Ad*_{g_j⁻¹} M_j is kept on a free beam (each node at its own time; a drift keeps its term).
///
/// Supported: free and clamped ends, no loads, no damping, no noise (the constructor refuses the others). The
/// `approx` variant has no AVI (docs/theory/avi.md).
#include <Eigen/LU>
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <vector>

#include "lievi/integrators/avi/mesh.hpp"
#include "lievi/integrators/avi/queue.hpp"
#include "lievi/models/beam.hpp"

namespace lievi::integrators::avi {

/// Per-segment stability limits of a beam with segment lengths ds[e]: h*_e = 2 / ω_e with ω_e the a-priori
/// bound of models::omega_max_bound for P_e paired with the inertia of each of its two nodes (the larger).
template <class Model>
[[nodiscard]] std::vector<double> beam_step_limits(const Model& model, const std::vector<double>& ds) {
  std::vector<double> h;
  for (std::size_t e = 0; e < ds.size(); ++e) {
    const double w = std::max(models::omega_max_bound(model.K_node[e], model.P_seg[e], ds[e]),
                              models::omega_max_bound(model.K_node[std::min(e + 1, model.K_node.size() - 1)],
                                                      model.P_seg[e], ds[e]));
    h.push_back(2.0 / w);
  }
  return h;
}

template <class Model>
class BeamAvi {
 public:
  using Algebra = typename Model::Algebra;
  using Config = typename Model::Config;

  struct Options {
    Queue queue = Queue::heap;
    double tol = 1e-13;  ///< Newton: |F|_inf <= tol max(|M|_inf, model.momentum_scale)
    int maxit = 30;
  };
  /// Outcome of advance(): numerical failure is returned, not thrown.
  struct Report {
    bool ok = true;
    std::ptrdiff_t node = -1;  ///< the first node whose free step did not converge
    double residual = 0.0;
    long long updates = 0;
  };

  /// The beam `model` (K per node, P and E per segment) on `mesh` (mesh.m holds the node weights w_j, the
  /// lengths they stand for), segment lengths ds, per-segment steps h.
  BeamAvi(Model model, Mesh mesh, std::vector<double> ds, std::vector<double> h, Options options = {})
      : model_(std::move(model)),
        mesh_(std::move(mesh)),
        ds_(std::move(ds)),
        clock_(std::move(h), options.queue),
        opt_(options) {
    const std::ptrdiff_t ns = mesh_.n_segments(), nn = mesh_.n_nodes();
    if (mesh_.periodic) throw std::invalid_argument("avi::BeamAvi: periodic beams are not supported");
    if (static_cast<std::ptrdiff_t>(ds_.size()) != ns ||
        static_cast<std::ptrdiff_t>(clock_.steps().size()) != ns)
      throw std::invalid_argument("avi::BeamAvi: one ds and one step per segment");
    if (static_cast<std::ptrdiff_t>(model_.K_node.size()) != nn ||
        static_cast<std::ptrdiff_t>(model_.P_seg.size()) != ns)
      throw std::invalid_argument("avi::BeamAvi: the model needs K per node and P per segment");
    if (model_.has_loads() || model_.has_damping())
      throw std::invalid_argument("avi::BeamAvi: loads and damping are not supported");
    for (double d : ds_)
      if (!(d > 0.0)) throw std::invalid_argument("avi::BeamAvi: ds must be > 0");
    g_.assign(static_cast<std::size_t>(nn), Config());
    M_.assign(static_cast<std::size_t>(nn), Algebra::Zero());
    zeta_ = M_;
    t_.assign(static_cast<std::size_t>(nn), 0.0);
    n_.assign(static_cast<std::size_t>(nn), 0);
    yg_ = g_;
    yz_ = zeta_;
    reduced_.assign(static_cast<std::size_t>(nn), 0);
    if constexpr (requires { model_.has_reduced_solve(std::ptrdiff_t{0}); }) {
      for (std::ptrdiff_t j = 0; j < nn; ++j)
        reduced_[static_cast<std::size_t>(j)] = model_.has_reduced_solve(j) ? 1 : 0;
    }
  }

  /// g_j(0), ζ_j(0) (zero at fixed nodes): M_j = 𝕂_j ζ_j(0), then every segment's start update (weight
  /// h_e/2).
  void initialize(const std::vector<Config>& g0, const std::vector<Algebra>& zeta0) {
    const std::ptrdiff_t nn = mesh_.n_nodes();
    if (static_cast<std::ptrdiff_t>(g0.size()) != nn || static_cast<std::ptrdiff_t>(zeta0.size()) != nn)
      throw std::invalid_argument("avi::BeamAvi::initialize: one pose and one velocity per node");
    for (std::size_t a = 0; a < g0.size(); ++a) {
      g_[a] = g0[a];
      zeta_[a] = mesh_.fixed[a] ? Algebra(Algebra::Zero()) : zeta0[a];
      M_[a] = model_.momentum(static_cast<std::ptrdiff_t>(a), zeta_[a]);
      t_[a] = 0.0;
      n_[a] = 0;
    }
    report_ = Report{};
    for (std::ptrdiff_t e = 0; e < mesh_.n_segments(); ++e)
      fire(e, 0.0, 0, 0.5 * clock_.steps()[static_cast<std::size_t>(e)]);
    clock_.start();
  }

  /// Take every update with time t < T in time order; stops at the first node solve that fails.
  Report advance(double T) {
    auto one = [this](std::ptrdiff_t e, double t, std::int64_t n, double w) {
      if (report_.ok) fire(e, t, n, w);
    };
    clock_.advance(T, one, [&](std::ptrdiff_t e0, std::ptrdiff_t e1, double t, std::int64_t n, double w) {
      for (std::ptrdiff_t e = e0; e < e1; ++e) one(e, t, n, w);
    });
    return report_;
  }

  /// Every node's pose at time T (after advance(T)): the free step from its own time to T, on copies.
  [[nodiscard]] const std::vector<Config>& configurations_at(double T) const {
    probe(T);
    return yg_;
  }
  /// Kinetic energy Σ_j w_j ½⟨ζ, 𝕂ζ⟩ of the velocities of the steps that end at T.
  [[nodiscard]] double kinetic_at(double T) const {
    probe(T);
    double k = 0.0;
    for (std::size_t a = 0; a < yz_.size(); ++a)
      k += mesh_.m[a] * model_.kinetic_density(static_cast<std::ptrdiff_t>(a), yz_[a]);
    return k;
  }
  /// Potential energy Σ_e Δs_e ψ_e(γ_e(T)).
  [[nodiscard]] double potential_at(double T) const {
    probe(T);
    double v = 0.0;
    for (std::ptrdiff_t e = 0; e < mesh_.n_segments(); ++e) {
      const auto s = static_cast<std::size_t>(e);
      const Algebra gamma = Model::relative(yg_[s], yg_[s + 1]) / ds_[s];
      v += ds_[s] * model_.potential_density(e, gamma);
    }
    return v;
  }
  /// Spatial momentum J = Σ_j w_j Ad*_{g_j⁻¹} M_j (each node at its own time; kept on a free beam).
  [[nodiscard]] Algebra spatial_momentum() const {
    Algebra J = Algebra::Zero();
    for (std::size_t a = 0; a < g_.size(); ++a) J += mesh_.m[a] * Model::transport(g_[a].inverse(), M_[a]);
    return J;
  }
  [[nodiscard]] const std::vector<Config>& configurations() const { return g_; }
  [[nodiscard]] const std::vector<Algebra>& post_momenta() const { return M_; }
  [[nodiscard]] double node_time(std::ptrdiff_t a) const { return t_[static_cast<std::size_t>(a)]; }
  [[nodiscard]] const std::vector<double>& steps() const { return clock_.steps(); }
  [[nodiscard]] long long updates() const { return report_.updates; }
  [[nodiscard]] int newton_max() const { return newton_max_; }
  [[nodiscard]] bool dyadic() const { return clock_.dyadic(); }

 private:
  /// The free step of node a over dt from post-momentum M: ζ with T⁻_{dt ζ}(𝕂ζ) = M, from z: the model's
  /// reduced solve where it has one (Cayley, isotropic translational inertia), else Newton with its block
  /// correction (the synchronous stepper's solves). Returns false if it does not converge.
  bool solve(std::size_t a, const Algebra& M, double dt, Algebra& z, int& its, double& res) const {
    const auto j = static_cast<std::ptrdiff_t>(a);
    const double scale = opt_.tol * std::max(M.cwiseAbs().maxCoeff(), model_.momentum_scale);
    if constexpr (requires { model_.has_reduced_solve(j); }) {
      if (reduced_[a]) return model_.reduced_solve(j, M, Algebra::Zero(), z, dt, scale, opt_.maxit, its, res);
    }
    for (its = 0; its <= opt_.maxit; ++its) {
      const Algebra mu = model_.momentum(j, z);
      const Algebra A = dt * z;
      const Algebra F = Model::post(A, mu) - M;
      res = F.cwiseAbs().maxCoeff();
      if (!(res <= 1e300)) return false;
      if (res <= scale) return true;
      if (its == opt_.maxit) return false;
      z -= model_.newton_correction(j, A, mu, dt, F);
    }
    return false;
  }
  /// Drift node a to time t (tick n).
  void drift(std::size_t a, double t, std::int64_t n) {
    const double dt = clock_.interval(t_[a], n_[a], t, n);
    t_[a] = t;
    n_[a] = n;
    if (dt == 0.0 || mesh_.fixed[a]) return;
    int its = 0;
    double res = 0.0;
    Algebra z = zeta_[a];
    if (!solve(a, M_[a], dt, z, its, res)) {
      if (report_.ok) {
        report_.ok = false;
        report_.node = static_cast<std::ptrdiff_t>(a);
        report_.residual = res;
      }
      return;
    }
    newton_max_ = std::max(newton_max_, its);
    const Config h = Model::Ret::tau(Algebra(dt * z));
    zeta_[a] = z;
    g_[a] = g_[a] * h;
    M_[a] = Model::transport(h, M_[a]);
  }
  /// The update of segment e at (t, n) with weight w.
  void fire(std::ptrdiff_t e, double t, std::int64_t n, double w) {
    const auto a = static_cast<std::size_t>(mesh_.first(e)), b = static_cast<std::size_t>(mesh_.second(e));
    drift(a, t, n);
    drift(b, t, n);
    const auto s = static_cast<std::size_t>(e);
    const Algebra gamma = Algebra((1.0 / ds_[s]) * Model::relative(g_[a], g_[b]));
    const Algebra Pi = model_.stress(e, gamma);
    const Algebra B = ds_[s] * gamma;
    if (!mesh_.fixed[a]) M_[a] += (w / mesh_.m[a]) * Model::post(B, Pi);
    if (!mesh_.fixed[b]) M_[b] -= (w / mesh_.m[b]) * Model::pre(B, Pi);
    ++report_.updates;
  }
  /// Poses and velocities of every node at T (copies).
  void probe(double T) const {
    for (std::size_t a = 0; a < g_.size(); ++a) {
      const double dt = clock_.elapsed(t_[a], n_[a], T);
      yg_[a] = g_[a];
      yz_[a] = zeta_[a];
      if (dt == 0.0 || mesh_.fixed[a]) continue;
      int its = 0;
      double res = 0.0;
      Algebra z = zeta_[a];
      if (!solve(a, M_[a], dt, z, its, res))
        throw std::runtime_error("avi::BeamAvi: a probe's free step did not converge");
      yz_[a] = z;
      yg_[a] = g_[a] * Model::Ret::tau(Algebra(dt * z));
    }
  }

  Model model_;
  Mesh mesh_;
  std::vector<double> ds_;
  EventClock clock_;
  Options opt_;
  std::vector<Config> g_;
  std::vector<Algebra> M_, zeta_;
  std::vector<double> t_;
  std::vector<std::int64_t> n_;
  mutable std::vector<Config> yg_;
  mutable std::vector<Algebra> yz_;
  std::vector<char> reduced_;  ///< nodes solved by the model's reduced solve
  Report report_;
  int newton_max_ = 0;
};

}  // namespace lievi::integrators::avi
