#pragma once
/// @file lievi/field/stepper.hpp
/// @brief The space-time staggered stochastic variational integrator (docs/theory/beam.md; the sweeps as
/// built: docs/theory/staggered.md), Type-I and Type-II, generic over the field model and its Lie group.
///
/// One step n -> n+1 is the numerical updating scheme of the paper's Figure 4 in three sweeps, each touching
/// only adjacent states (so each is a parallel loop, bitwise the same for any thread count):
///  1. stresses on segments: Pi_{j+1/2} = P(gamma^n_{j+1/2} - E) and the operators T^-, T^+;
///  2. nodes: M_j = pre-momentum + (dt / w_j)(f^-_{j+1/2} - f^+_{j-1/2}); the local solve for
///     zeta_j^{n+1/2}; the increment A_j = dt zeta + theta_j (noise in the body frame, Stratonovich); the
///     reconstruction g_j^{n+1} = g_j^n tau(A_j);
///  3. strains on segments: `exact` gamma^{n+1} = tau^{-1}((g_j^{n+1})^{-1} g_{j+1}^{n+1}) / ds (from the
///     configurations), `approx` the linearised compatibility (55) from the increments (docs/theory/beam.md
///     "Discrete compatibility").
/// Free ends: the ghost segment has zero stress (contributes nothing). Clamped nodes are not solved (A = 0);
/// prescribed nodes (non-abelian models) are not solved either but moved to the model's prescribed pose.
/// Periodic grids close the last segment on the model's `wrapped(g_0)` (non-abelian models).
///
/// Start (docs/theory/beam.md "Start"): the state stores the pre-velocity zeta^{n-1/2}. At n = 0 it is set so
/// that the first step is the regular step: `half` (default) zeta^{-1/2} = zeta(0) - (dt/2) K^{-1} force^0
/// / w — the velocity-Verlet half kick, second-order initial momentum; `full` zeta^{-1/2} = zeta(0) (the
/// literal discrete Legendre transform of the left-rectangle action).
///
/// Type-I: the noise is in the kinematics, theta_j = sum_k Theta_k(s_j) Delta W^{k,n} (NoiseField).
/// Type-II: a stochastic potential Phi(g, mu) o dW_j (discrete Hamilton-Pontryagin): the increment is
/// A = dt zeta + dPhi/dmu(g_j^n, mu^{n+1/2}) dW_j and the momentum equation gains the force
/// -dPhi/dg(g_j^n, mu^{n+1/2}) dW_j, so the local solve is implicit when Phi depends on mu; for
/// Phi = <mu, Theta> the two types are the same scheme (the tests run both code paths). Type-II uses one scalar
/// Brownian motion per node (`common` or `independent` noise).
///
/// Abelian groups (the wave equation on R^N): T^- = T^+ = identity, the exact and approximate variants coincide
/// and the node update is explicit (Type-II: a scalar Newton). Non-abelian groups (the SE(3) beam of
/// models/beam.hpp): a local Newton solve per node; `exact` uses T^-_x = (dtau_x^{-1})^*, T^+_x = (dtau_{-x}^{-1})^*
/// and the strains from the configurations, `approx` uses T^-/+_x = I -/+ ½ ad*_x and the linearised
/// compatibility (55) (the two sound pairings of docs/theory/beam.md "The two variants"; the mixes are not
/// expressible). Type-II takes a
/// potential with Vec6-valued derivatives (dPhi/dg left-trivialised) and 6x6 second derivatives.
#include <algorithm>
#include <array>
#include <cfloat>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "lievi/core/attributes.hpp"
#include "lievi/core/tolerances.hpp"
#include "lievi/core/state_io.hpp"
#include "lievi/field/exchange.hpp"
#include "lievi/field/grid.hpp"
#include "lievi/field/model.hpp"
#include "lievi/field/noise_field.hpp"
#include "lievi/field/options.hpp"
#include "lievi/field/staggered.hpp"
#include "lievi/lie/retraction/cayley.hpp"
#include "lievi/lie/se3.hpp"

namespace lievi::field {

/// Run body(i) for i in [begin, end): as an OpenMP parallel loop when the range is long enough to pay for a
/// parallel region, else serially (an `if` clause would still enter the OpenMP runtime every sweep, which
/// dominates for small grids). Each i is computed the same way either way, so results do not depend on it.
template <class Body>
inline void parallel_range(std::ptrdiff_t begin, std::ptrdiff_t end, std::ptrdiff_t min_parallel, Body&& body) {
  if (end - begin >= min_parallel) {
#pragma omp parallel for schedule(static)
    for (std::ptrdiff_t i = begin; i < end; ++i) body(i);
  } else {
    for (std::ptrdiff_t i = begin; i < end; ++i) body(i);
  }
}

/// parallel_range for element-wise bodies that the compiler may vectorise (`omp simd`: no dependence between
/// iterations; each element's arithmetic is unchanged, so the bits are the same).
template <class Body>
inline void parallel_range_simd(std::ptrdiff_t begin, std::ptrdiff_t end, std::ptrdiff_t min_parallel,
                                Body&& body) {
  if (end - begin >= min_parallel) {
#pragma omp parallel for simd schedule(static)
    for (std::ptrdiff_t i = begin; i < end; ++i) body(i);
  } else {
#pragma omp simd
    for (std::ptrdiff_t i = begin; i < end; ++i) body(i);
  }
}

/// As parallel_any, vectorisable (see parallel_range_simd).
template <class Body>
[[nodiscard]] inline bool parallel_any_simd(std::ptrdiff_t begin, std::ptrdiff_t end, std::ptrdiff_t min_parallel,
                                            Body&& body) {
  int any = 0;
  if (end - begin >= min_parallel) {
#pragma omp parallel for simd schedule(static) reduction(| : any)
    for (std::ptrdiff_t i = begin; i < end; ++i) any |= static_cast<int>(body(i));
  } else {
#pragma omp simd reduction(| : any)
    for (std::ptrdiff_t i = begin; i < end; ++i) any |= static_cast<int>(body(i));
  }
  return any != 0;
}

/// As parallel_range for a body returning a flag; returns whether any call returned true (an OR reduction,
/// fused into the loop so that it costs no extra pass over memory).
template <class Body>
[[nodiscard]] inline bool parallel_any(std::ptrdiff_t begin, std::ptrdiff_t end, std::ptrdiff_t min_parallel,
                                       Body&& body) {
  int any = 0;
  if (end - begin >= min_parallel) {
#pragma omp parallel for schedule(static) reduction(| : any)
    for (std::ptrdiff_t i = begin; i < end; ++i) any |= static_cast<int>(body(i));
  } else {
    for (std::ptrdiff_t i = begin; i < end; ++i) any |= static_cast<int>(body(i));
  }
  return any != 0;
}
/// Run body(b, e) over [begin, end) split into chunks of `chunk` items: the chunks as an OpenMP parallel loop
/// when the range has at least min_parallel items, else body(begin, end) once (for bodies whose results do
/// not depend on how the range is split).
template <class Body>
inline void parallel_chunks(std::ptrdiff_t begin, std::ptrdiff_t end, std::ptrdiff_t min_parallel,
                            std::ptrdiff_t chunk, Body&& body) {
  if (end - begin >= min_parallel) {
    const std::ptrdiff_t nc = (end - begin + chunk - 1) / chunk;
#pragma omp parallel for schedule(static)
    for (std::ptrdiff_t c = 0; c < nc; ++c) body(begin + c * chunk, std::min(end, begin + (c + 1) * chunk));
  } else if (end > begin) {
    body(begin, end);
  }
}
/// As parallel_chunks for bodies returning a flag; returns whether any returned true.
template <class Body>
[[nodiscard]] inline bool parallel_chunks_any(std::ptrdiff_t begin, std::ptrdiff_t end, std::ptrdiff_t min_parallel,
                                              std::ptrdiff_t chunk, Body&& body) {
  int any = 0;
  if (end - begin >= min_parallel) {
    const std::ptrdiff_t nc = (end - begin + chunk - 1) / chunk;
#pragma omp parallel for schedule(static) reduction(| : any)
    for (std::ptrdiff_t c = 0; c < nc; ++c)
      any |= static_cast<int>(body(begin + c * chunk, std::min(end, begin + (c + 1) * chunk)));
  } else if (end > begin) {
    any = static_cast<int>(body(begin, end));
  }
  return any != 0;
}

/// Type-I noise (stochastic kinematics): theta_j from the NoiseField. The default.
struct TypeI {
  static constexpr bool is_type_ii = false;
};

/// Type-II noise: a stochastic potential Phi(g, mu) o dW_j given in C++. `Phi` provides at node j, for a scalar
/// field (Algebra = double) scalars, for the beam (Algebra = Vec6) Vec6 and Mat6 values:
///   dphi_dmu(j, g, mu), dphi_dg(j, g, mu)          -- the partial derivatives of Phi (dPhi/dg left-trivialised,
///                                                     T*_e L_g dPhi/dg, on a Lie group)
///   d2phi_dmu2(j, g, mu), d2phi_dg_dmu(j, g, mu)    -- their mu-derivatives (Newton)
/// Both are evaluated at (g_j^n, mu_j^{n+1/2}).
template <class Phi>
struct TypeII {
  static constexpr bool is_type_ii = true;
  Phi phi;
};

/// The potential Phi = Theta mu of Type-II that reproduces Type-I with a constant Theta.
struct LinearMomentumPotential {
  double theta = 0.0;
  [[nodiscard]] double dphi_dmu(std::ptrdiff_t, double, double) const { return theta; }
  [[nodiscard]] double dphi_dg(std::ptrdiff_t, double, double) const { return 0.0; }
  [[nodiscard]] double d2phi_dmu2(std::ptrdiff_t, double, double) const { return 0.0; }
  [[nodiscard]] double d2phi_dg_dmu(std::ptrdiff_t, double, double) const { return 0.0; }
};

/// Outcome of a step: numerical failure is returned, not thrown.
struct StepReport {
  bool ok = true;
  std::ptrdiff_t node = -1;  ///< first failing node
  double residual = 0.0;     ///< Newton residual (Type-II) at the failure
  int iterations = 0;        ///< largest Newton iteration count of the step (0 when explicit)
  std::string message;
};

/// Energies of time level n (docs/theory/beam.md "Energies and momentum map"): the paper's
/// E_d = K^{n+1/2} + V^n and the time-centred E_c = (K^{n-1/2} + K^{n+1/2}) / 2 + V^n.
struct LevelEnergy {
  double kinetic_before = 0.0;  ///< K^{n-1/2}
  double kinetic_after = 0.0;   ///< K^{n+1/2}
  double potential = 0.0;       ///< V^n
  [[nodiscard]] double E_d() const { return kinetic_after + potential; }
  [[nodiscard]] double E_c() const { return 0.5 * (kinetic_before + kinetic_after) + potential; }
};

/// The Batch type of a model with batched sweeps (an empty placeholder for the others).
template <class Model>
struct BatchOf {
  struct type {};
};
template <BatchedFieldModel Model>
struct BatchOf<Model> {
  using type = typename Model::Batch;
};

/// The stepper over a field model (lievi/field/model.hpp says what a model gives it). Its sweep policy
/// (Sweep: abelian, lie or batched) is chosen once, when it is built; the batched sweeps' caches (the model's
/// Batch) live in its workspace, not in the model.
template <FieldModel Model, class Noise = TypeI>
class StaggeredStepper {
 public:
  using Algebra = typename Model::Algebra;
  using Config = typename Model::Config;

  struct Options {
    Variant variant = Variant::exact;
    Start start = Start::half;
    double dt = 0.0;
    double newton_tol = 1e-14;  ///< Type-II (abelian): |F| <= tol max(|M|, 1); non-abelian: see below
    int newton_maxit = 30;
    /// Non-abelian local solve (docs/theory/beam.md "Local solve"): stop when
    /// |F|_inf <= lie_tol max(|M|_inf, model momentum scale).
    double lie_tol = 1e-13;
    /// Use the model's batched (vectorised across nodes) sweeps where they apply (Beam::batch_sweeps: the
    /// exact and approx variants with Type-I noise, damped or not). The same equations; results differ from the
    /// generic path by round-off only, and are bitwise the same for any thread count either way.
    bool batched = true;
    /// Non-abelian models: solve every node with the reference Newton iteration (the full Jacobian, LU), not
    /// the model's faster solves of the same equation (newton_correction, reduced_solve, the batched node
    /// sweep); for tests that check those against it, and to rule them out when a run looks wrong.
    bool reference_solve = false;
  };

  StaggeredStepper(Model model, Grid grid, Options options, NoiseField<Algebra> noise = {}, Noise potential = {})
      : model_(model), grid_(grid), opt_(options), noise_(std::move(noise)), pot_(std::move(potential)) {
    if (!(opt_.dt > 0.0)) throw std::invalid_argument("field::StaggeredStepper: dt must be > 0");
    if constexpr (Model::is_abelian) {
      if (grid_.left() == End::prescribed || grid_.right() == End::prescribed)
        throw std::invalid_argument("field::StaggeredStepper: prescribed ends need a model with prescribed poses (beams)");
    } else {
      if ((grid_.left() == End::prescribed || grid_.right() == End::prescribed) && !model_.prescribed_pose)
        throw std::invalid_argument("field::StaggeredStepper: a prescribed end needs the model's prescribed_pose");
    }
    if constexpr (Noise::is_type_ii) {
      if (noise_.mode() == NoiseMode::modes)
        throw std::invalid_argument(
            "field::StaggeredStepper: a Type-II potential uses one Brownian motion per node (common or "
            "independent noise)");
    }
    const std::ptrdiff_t n = grid_.n_nodes();
    if constexpr (Model::is_abelian) g_.assign(n, Model::zero());
    else g_.assign(n, Config());
    zeta_.assign(n, Model::zero());
    A_.assign(n, Model::zero());
    gamma_.assign(grid_.n_segments(), Model::zero());
    if constexpr (!Model::is_abelian) {
      Mt_.assign(n, Model::zero());
      // one row per node at least: a free last end's missing right segment is a zero f^- row (the batched node
      // sweep reads it; sweep 1 writes only the segments)
      fm_.assign(std::max(grid_.n_segments(), n), Model::zero());
      fp_.assign(grid_.n_segments(), Model::zero());
    }
    w_.resize(static_cast<std::size_t>(n));
    inv_w_.resize(static_cast<std::size_t>(n));
    for (std::ptrdiff_t j = 0; j < n; ++j) {
      w_[static_cast<std::size_t>(j)] = grid_.weight(NodeIndex{j});
      inv_w_[static_cast<std::size_t>(j)] = 1.0 / w_[static_cast<std::size_t>(j)];
    }
    partial_.resize(static_cast<std::size_t>((std::max(n, grid_.n_segments()) + kBlock - 1) / kBlock));
    hi_ = n;
    if constexpr (requires { model_.has_reduced_solve(std::ptrdiff_t{0}); }) {
      reduced_.resize(static_cast<std::size_t>(n));
      for (std::ptrdiff_t j = 0; j < n; ++j)
        reduced_[static_cast<std::size_t>(j)] = !opt_.reference_solve && model_.has_reduced_solve(j) ? 1 : 0;
    }
    sweep_ = Model::is_abelian ? Sweep::abelian : Sweep::lie;
    if constexpr (BatchedFieldModel<Model>) {
      if (opt_.batched && !opt_.reference_solve && !Noise::is_type_ii)
        batch_ = model_.batch_sweeps();
      else
        (void)model_.batch_sweeps();  // its checks of the model apply whichever sweep is used
      if (batch_) {
        sweep_ = Sweep::batched;
        if (noise_.mode() == NoiseMode::modes) theta_node_.assign(n, Model::zero());
        // the last node joins the batched node sweep when it is solved (a free or periodic end) and, if the
        // sweep broadcasts the interior values, has them
        batch_last_ = n > 2 && !grid_.driven(NodeIndex{n - 1}) &&
                      (!batch_->uniform_nodes || batch_->node_matches_interior(model_, static_cast<std::size_t>(n - 1)));
      }
    }
  }

  /// Set level 0: g^0, zeta(0); gamma^0 from the configurations, zeta^{-1/2} by the start rule.
  void initialize(const NodeField<Config>& g0, const NodeField<Algebra>& zeta0) {
    if (g0.size() != grid_.n_nodes() || zeta0.size() != grid_.n_nodes())
      throw std::invalid_argument("field::StaggeredStepper::initialize: one value per node is needed");
    g_ = g0;
    n_ = 0;
    if constexpr (!Model::is_abelian) {
      if (const StepReport r = strains_lie(); !r.ok) throw std::invalid_argument("initial configuration: " + r.message);
      stresses_lie();
      const double half = opt_.start == Start::half ? 0.5 * opt_.dt : 0.0;
      for (std::ptrdiff_t j = 0; j < grid_.n_nodes(); ++j) {
        const NodeIndex J{j};
        if (grid_.driven(J)) {
          // not solved: zero velocity when clamped; a prescribed node's first-step velocity estimate
          zeta_[J] = grid_.prescribed(J)
                         ? Algebra(Model::relative(g_[J], model_.prescribed_pose(j, opt_.dt)) / opt_.dt)
                         : Model::zero();
          Mt_[J] = model_.momentum(j, zeta_[J]);
          continue;
        }
        zeta_[J] = zeta0[J];
        // the half kick: M~^0 = K zeta(0) - (dt/2) (force^0 / w + damping force density at zeta(0))
        Algebra f = inv_w_[static_cast<std::size_t>(j)] *
                    (lie_force(J) + model_.load(j, g_[J], 0.0, w_[static_cast<std::size_t>(j)]));
        if constexpr (requires { model_.has_damping(); }) {
          if (model_.has_damping()) f += model_.damping_force(j, zeta_[J]);
        }
        Mt_[J] = model_.momentum(j, zeta_[J]) - half * f;
      }
    } else {
      strains_from_configurations();
      const double half = opt_.start == Start::half ? 0.5 * opt_.dt : 0.0;
      for (std::ptrdiff_t j = 0; j < grid_.n_nodes(); ++j) {
        const NodeIndex J{j};
        if (grid_.driven(J)) {
          zeta_[J] = Model::zero();
          continue;
        }
        Algebra f = force(J);
        if constexpr (kNodeLoad) f += model_.load(j, g_[J], 0.0, w_[static_cast<std::size_t>(j)]);
        zeta_[J] = zeta0[J] - model_.velocity(j, Algebra(half * inv_w_[static_cast<std::size_t>(j)] * f));
      }
    }
  }

  /// One step n -> n+1. With `energy`, also the energies of level n (K^{n-1/2}, V^n before the update,
  /// K^{n+1/2} after). On failure the state is left at the failed step's partial update: the caller keeps
  /// the last good level it already wrote.
  StepReport step(LevelEnergy* energy = nullptr) {
    if (energy) {
      energy->kinetic_before = kinetic();
      energy->potential = potential();
    }
    noise_.draw(static_cast<std::uint64_t>(n_), lo_, hi_);
    if (ex_) {
      StepReport r = step_block();
      if (!r.ok) return r;
      ++n_;
      if (energy) energy->kinetic_after = kinetic();
      return r;
    }
    if constexpr (!Model::is_abelian) {
      stresses_lie();
      StepReport r = nodes_lie();
      if (!r.ok) return r;
      StepReport rs = opt_.variant == Variant::approx ? strains_approx() : strains_lie();
      if (!rs.ok) return rs;
      ++n_;
      if (energy) energy->kinetic_after = kinetic();
      return r;
    } else {
      StepReport r = node_sweep();
      if (!r.ok) return r;
      strain_sweep();
      ++n_;
      if (energy) energy->kinetic_after = kinetic();
      return r;
    }
  }

  /// Step only the block [cuts[rank], cuts[rank + 1]) of the nodes (and the segments that start there),
  /// exchanging the block's edge values with the neighbouring blocks through `exchange` (domain
  /// decomposition, docs/distributed.md): the configuration (and increment) of the block's first node goes to
  /// the left block while the other nodes are solved, the strain of its last segment to the right block while
  /// the other strains are computed (non-blocking halos, overlapped with each sweep's interior), and one
  /// agreement per step settles the blocks' outcomes. Every
  /// block keeps arrays of the whole grid (only its own part and the halo are current; gather() makes the
  /// whole grid current on block 0, which writes the outputs and checkpoints);
  /// energies are summed in the fixed order of one process (the same bits), failures agreed by all blocks.
  /// Call after initialize(), which every block does whole.
  void decompose(FieldExchange& exchange) {
    {
      const auto& c = exchange.cuts();
      const std::ptrdiff_t n = grid_.n_nodes();
      if (static_cast<int>(c.size()) != exchange.size() + 1 || c.front() != 0 || c.back() != n)
        throw std::invalid_argument("field::StaggeredStepper::decompose: the cuts must go from 0 to the node count");
      for (std::size_t r = 0; r + 1 < c.size(); ++r)
        if (!(c[r] < c[r + 1])) throw std::invalid_argument("field::StaggeredStepper::decompose: an empty block");
      ex_ = &exchange;
      lo_ = c[static_cast<std::size_t>(exchange.rank())];
      hi_ = c[static_cast<std::size_t>(exchange.rank()) + 1];
    }
  }
  /// Whether the stepper steps one block of a decomposed field.
  [[nodiscard]] bool decomposed() const { return ex_ != nullptr; }
  /// The fields gather() collects (bit flags).
  enum Gathered : unsigned {
    configurations = 1u,  ///< g_j
    velocities = 2u,      ///< zeta_j^{n+1/2}
    pre_momenta = 4u,     ///< M~_j (non-abelian models)
    strains = 8u,         ///< gamma_{j+1/2}
    group_increments = 16u,  ///< A_j (where kept: increments())
    everything = 31u      ///< the state a checkpoint holds
  };
  /// Decomposed: make the chosen fields of every block current on block 0, the process that writes the
  /// outputs (the others keep their own blocks). Nothing to do for an undivided field.
  void gather(unsigned which = everything) {
    if (!ex_) return;
    constexpr std::size_t kc = StateDoubles<Config>::value, ka = StateDoubles<Algebra>::value;
    // per node: configurations, velocities, (non-abelian) pre-momenta; then per segment: strains
    std::vector<double*> nodes;
    std::vector<std::size_t> width;
    if (which & configurations) nodes.push_back(reinterpret_cast<double*>(g_.data())), width.push_back(kc);
    if (which & velocities) nodes.push_back(reinterpret_cast<double*>(zeta_.data())), width.push_back(ka);
    if constexpr (!Model::is_abelian)
      if (which & pre_momenta) nodes.push_back(reinterpret_cast<double*>(Mt_.data())), width.push_back(ka);
    if (which & group_increments) nodes.push_back(reinterpret_cast<double*>(A_.data())), width.push_back(ka);
    auto* y = (which & strains) ? reinterpret_cast<double*>(gamma_.data()) : nullptr;
    const auto [s0, s1] = owned(ex_->rank(), grid_.n_segments());
    std::vector<double> mine;
    for (std::size_t f = 0; f < nodes.size(); ++f)
      mine.insert(mine.end(), nodes[f] + static_cast<std::size_t>(lo_) * width[f], nodes[f] + static_cast<std::size_t>(hi_) * width[f]);
    if (y) mine.insert(mine.end(), y + static_cast<std::size_t>(s0) * ka, y + static_cast<std::size_t>(s1) * ka);
    const std::vector<double> all = ex_->gather(mine);
    if (ex_->rank() != 0) return;
    std::size_t at = 0;
    auto take = [&](double* to, std::ptrdiff_t from_item, std::ptrdiff_t items, std::size_t w) {
      std::copy_n(all.begin() + static_cast<std::ptrdiff_t>(at), items * static_cast<std::ptrdiff_t>(w),
                  to + from_item * static_cast<std::ptrdiff_t>(w));
      at += static_cast<std::size_t>(items) * w;
    };
    for (int r = 0; r < ex_->size(); ++r) {  // block r: its node fields, then its segments
      const auto [a, b] = owned(r, grid_.n_nodes());
      const auto [c, e] = owned(r, grid_.n_segments());
      for (std::size_t f = 0; f < nodes.size(); ++f) take(nodes[f], a, b - a, width[f]);
      if (y) take(y, c, e - c, ka);
    }
  }
  /// This process's nodes [lo, hi): all of them unless the field is decomposed.
  [[nodiscard]] std::pair<std::ptrdiff_t, std::ptrdiff_t> block() const { return {lo_, hi_}; }
  /// The exchange of a decomposed field (only then).
  [[nodiscard]] FieldExchange& exchange() const { return *ex_; }
  /// Whether this process writes the outputs: not a decomposed field, or its block 0.
  [[nodiscard]] bool writes_outputs() const { return !ex_ || ex_->rank() == 0; }

  /// sum_{i < count} f(i) of K-vectors (f returns Eigen::Matrix<double, K, 1>) in the fixed order of the
  /// energies (serial within blocks of kBlock items, then the block sums): the same bits for any thread
  /// count and, on a decomposed field (each block evaluating f on the items it owns), for any block count.
  /// Items are nodes or segments (segment e starts at node e). For the outputs of a level.
  template <int K, class F>
  [[nodiscard]] Eigen::Matrix<double, K, 1> level_sums(std::ptrdiff_t count, F&& f) {
    using V = Eigen::Matrix<double, K, 1>;
    const std::ptrdiff_t nb = (count + kBlock - 1) / kBlock;
    const auto [b0, e0] = ex_ ? owned(ex_->rank(), count) : std::pair<std::ptrdiff_t, std::ptrdiff_t>{0, count};
    // the sums of the kBlock-blocks this process owns whole; the terms of those it shares
    std::vector<double> mine;
    for (std::ptrdiff_t k = b0 / kBlock; k < nb && k * kBlock < e0; ++k) {
      const std::ptrdiff_t kb = k * kBlock, ke = std::min(count, kb + kBlock);
      if (b0 <= kb && ke <= e0) {
        V s = V::Zero();
        for (std::ptrdiff_t i = kb; i < ke; ++i) s += f(i);
        mine.insert(mine.end(), s.data(), s.data() + K);
      } else {
        for (std::ptrdiff_t i = std::max(kb, b0); i < std::min(ke, e0); ++i) {
          const V v = f(i);
          mine.insert(mine.end(), v.data(), v.data() + K);
        }
      }
    }
    const std::vector<double> all = ex_ ? ex_->all_gather(mine) : std::move(mine);
    V total = V::Zero();
    std::size_t at = 0;
    const int blocks = ex_ ? ex_->size() : 1;
    V s = V::Zero();
    std::ptrdiff_t open = -1;  // the kBlock-block whose sum s holds
    for (int r = 0; r < blocks; ++r) {
      const auto [b, e] = ex_ ? owned(r, count) : std::pair<std::ptrdiff_t, std::ptrdiff_t>{0, count};
      for (std::ptrdiff_t k = b / kBlock; k < nb && k * kBlock < e; ++k) {
        const std::ptrdiff_t kb = k * kBlock, ke = std::min(count, kb + kBlock);
        if (k != open) {
          if (open >= 0) total += s;
          s = V::Zero(), open = k;
        }
        const std::ptrdiff_t terms = (b <= kb && ke <= e) ? 1 : std::min(ke, e) - std::max(kb, b);
        for (std::ptrdiff_t i = 0; i < terms; ++i, at += K) s += Eigen::Map<const V>(all.data() + at);
      }
    }
    if (open >= 0) total += s;
    return total;
  }

  /// The largest f(i) over i < count and the first i where it is reached (f returns K-vectors: K maxima);
  /// values not above 0 (or NaN) are not counted: (0, -1) when none is. The same on a decomposed field.
  template <int K, class F>
  [[nodiscard]] std::pair<Eigen::Matrix<double, K, 1>, Eigen::Matrix<std::ptrdiff_t, K, 1>> level_maxima(
      std::ptrdiff_t count, F&& f) {
    Eigen::Matrix<double, K, 1> best = Eigen::Matrix<double, K, 1>::Zero();
    Eigen::Matrix<std::ptrdiff_t, K, 1> at = Eigen::Matrix<std::ptrdiff_t, K, 1>::Constant(-1);
    const auto [b0, e0] = ex_ ? owned(ex_->rank(), count) : std::pair<std::ptrdiff_t, std::ptrdiff_t>{0, count};
    for (std::ptrdiff_t i = b0; i < e0; ++i) {
      const Eigen::Matrix<double, K, 1> v = f(i);
      for (int c = 0; c < K; ++c)
        if (v[c] > best[c]) best[c] = v[c], at[c] = i;
    }
    if (!ex_) return {best, at};
    std::vector<double> mine(2 * K);
    for (int c = 0; c < K; ++c) mine[2 * c] = best[c], mine[2 * c + 1] = static_cast<double>(at[c]);
    const std::vector<double> all = ex_->all_gather(mine);
    best.setZero(), at.setConstant(-1);
    for (std::size_t r = 0; r < all.size(); r += 2 * K)  // block order is item order: the first maximum wins
      for (int c = 0; c < K; ++c)
        if (all[r + 2 * c] > best[c]) best[c] = all[r + 2 * c], at[c] = static_cast<std::ptrdiff_t>(all[r + 2 * c + 1]);
    return {best, at};
  }

  /// The configurations of the nodes `js`, on every process of a decomposed field (from their blocks).
  [[nodiscard]] std::vector<Config> configurations_at(const std::vector<std::ptrdiff_t>& js) {
    std::vector<Config> out;
    out.reserve(js.size());
    if (!ex_) {
      for (const std::ptrdiff_t j : js) out.push_back(g_[NodeIndex{j}]);
      return out;
    }
    constexpr std::size_t kc = StateDoubles<Config>::value;
    std::vector<double> mine;
    for (std::size_t k = 0; k < js.size(); ++k)
      if (lo_ <= js[k] && js[k] < hi_) {
        mine.push_back(static_cast<double>(k));
        const auto* v = reinterpret_cast<const double*>(&g_[NodeIndex{js[k]}]);
        mine.insert(mine.end(), v, v + kc);
      }
    const std::vector<double> all = ex_->all_gather(mine);
    out.assign(js.size(), g_[NodeIndex{0}]);
    for (std::size_t at = 0; at < all.size(); at += kc + 1)  // (k, the configuration's doubles) per node
      std::copy_n(all.data() + at + 1, kc, reinterpret_cast<double*>(&out[static_cast<std::size_t>(all[at])]));
    return out;
  }

  /// Energies of the current level n without advancing: K^{n+1/2} from a trial node sweep (the noise of
  /// step n is drawn; nothing of the state changes). For the last output level.
  /// `iterations` (optional): the trial sweep's largest Newton iteration count (not added to newton_max /
  /// newton_total, which count the steps taken).
  [[nodiscard]] LevelEnergy energy_now(int* iterations = nullptr) {
    LevelEnergy e;
    e.kinetic_before = kinetic();
    e.potential = potential();
    const auto g = g_;
    const auto zeta = zeta_;
    const auto A = A_;
    noise_.draw(static_cast<std::uint64_t>(n_), lo_, hi_);
    if constexpr (!Model::is_abelian) {
      const auto Mt = Mt_;
      const int nmax = newton_max_;
      const long long ntotal = newton_total_;
      stresses_lie();
      StepReport r = nodes_lie();
      if (ex_) r = agree(r, 0);
      if (iterations) *iterations = r.iterations;
      e.kinetic_after = kinetic();
      Mt_ = Mt;
      newton_max_ = nmax;
      newton_total_ = ntotal;
    } else {
      (void)node_sweep();
      e.kinetic_after = kinetic();
    }
    g_ = g;
    zeta_ = zeta;
    A_ = A;
    return e;
  }

  /// Save or restore everything the next step reads (checkpoints, core/state_io.hpp): the level, the
  /// configurations, the half-step velocities and group increments, the strains (which the `approx` variant
  /// carries), the transported pre-momenta, the Newton counters and the noise scale. The rest is rebuilt by
  /// the next step from these (stresses, batched caches) or fixed by the model.
  void checkpoint(StateIO& a) {
    a("n", n_);
    g_.checkpoint(a, "g");
    zeta_.checkpoint(a, "zeta");
    A_.checkpoint(a, "A");
    gamma_.checkpoint(a, "gamma");
    if constexpr (!Model::is_abelian) Mt_.checkpoint(a, "Mt");
    a("newton_max", newton_max_);
    a("newton_total", newton_total_);
    StateIO::Scope scope(a, "noise");
    noise_.checkpoint(a);
  }

  [[nodiscard]] long long level() const { return n_; }
  [[nodiscard]] double time() const { return static_cast<double>(n_) * opt_.dt; }
  [[nodiscard]] const NodeField<Config>& g() const { return g_; }
  /// zeta^{n-1/2}: the velocity of the last step (at level 0, the start pre-velocity).
  [[nodiscard]] const HalfStepField<Algebra>& zeta() const { return zeta_; }
  /// A_j^{n-1}: the group increments of the last step (abelian models with the `exact` variant, and the
  /// batched beam sweeps (batched()), do not keep them at the nodes the batch solves — the interior ones and
  /// a free or periodic last node: their strains do not need them).
  [[nodiscard]] const HalfStepField<Algebra>& increments() const { return A_; }
  [[nodiscard]] const SegmentField<Algebra>& gamma() const { return gamma_; }
  /// How the steps sweep (chosen when the stepper was built).
  [[nodiscard]] Sweep sweep() const { return sweep_; }
  /// Whether the steps use the model's batched sweeps (Options::batched).
  [[nodiscard]] bool batched() const { return sweep_ == Sweep::batched; }
  /// Non-abelian models: the transported pre-momentum M~_j^n = T^+_{A^{n-1}} mu^{n-1/2} (docs/theory/beam.md,
  /// "Discrete Euler-Poincaré equations").
  [[nodiscard]] const NodeField<Algebra>& pre_momentum() const { return Mt_; }
  /// Mass weights w_j.
  [[nodiscard]] double weight(std::ptrdiff_t j) const { return w_[static_cast<std::size_t>(j)]; }
  /// Newton iterations: the largest and the total over the steps taken (non-abelian models).
  [[nodiscard]] int newton_max() const { return newton_max_; }
  [[nodiscard]] long long newton_total() const { return newton_total_; }
  [[nodiscard]] const Grid& grid() const { return grid_; }
  [[nodiscard]] const Model& model() const { return model_; }
  [[nodiscard]] const Options& options() const { return opt_; }
  [[nodiscard]] const NoiseField<Algebra>& noise() const { return noise_; }
  /// Scale the noise increments of later steps (NoiseField::set_scale: 0 switches the noise off, 1 restores it).
  void set_noise_scale(double s) { noise_.set_scale(s); }

  /// K^{n-1/2} = sum_j w_j ½ <zeta_j, K zeta_j>, summed in a fixed order (blocks of kBlock nodes).
  [[nodiscard]] double kinetic() {
    const Algebra* z = zeta_.data();
    return fixed_order_sum(grid_.n_nodes(), [&](std::ptrdiff_t j) {
      return w_[static_cast<std::size_t>(j)] * model_.kinetic_density(j, z[j]);
    }, true);
  }
  /// V^n = sum_segments ds ½ <gamma - E, P (gamma - E)> (ghost segments carry none), plus
  /// sum_nodes w_j V(g_j) for an abelian model with an on-site potential (onsite_density).
  [[nodiscard]] double potential() {
    const Algebra* y = gamma_.data();
    const double ds = grid_.ds();
    double v = fixed_order_sum(grid_.n_segments(), [&](std::ptrdiff_t e) { return ds * model_.potential_density(e, y[e]); },
                               true);
    if constexpr (Model::is_abelian && requires { model_.onsite_density(std::ptrdiff_t{0}, g_[NodeIndex{0}]); }) {
      const Config* g = g_.data();
      v += fixed_order_sum(grid_.n_nodes(), [&](std::ptrdiff_t j) {
        return w_[static_cast<std::size_t>(j)] * model_.onsite_density(j, g[j]);
      }, true);
    }
    return v;
  }

  /// An abelian model's optional external (e.g. on-site) force on the nodes, load(j, g, t, w).
  static constexpr bool kNodeLoad =
      Model::is_abelian && requires(const Model m, const Config& c) { m.load(std::ptrdiff_t{0}, c, 0.0, 0.0); };

  /// Nodes per block of the fixed-order sums and of the parallel loops' grain.
  static constexpr std::ptrdiff_t kBlock = 2048;
  /// Items per chunk of the batched sweeps' parallel loops (parallel from kBlock / 4 items on).
  static constexpr std::ptrdiff_t kBatchChunk = 256;

 private:
  /// Internal force of node j: f^-_{j+1/2} - f^+_{j-1/2} (abelian: T = identity, so both are the stress).
  [[nodiscard]] Algebra force(NodeIndex j) const {
    const SegmentIndex l = grid_.left_segment(j), r = grid_.right_segment(j);
    Algebra f = Model::zero();
    if (r.e >= 0) f += model_.stress(r.e, gamma_[r]);
    if (l.e >= 0) f -= model_.stress(l.e, gamma_[l]);
    return f;
  }

  /// Sweep 2 (momentum, solve, reconstruction) for all nodes; the interior is a tight parallel loop.
  StepReport node_sweep() {
    const std::ptrdiff_t n = grid_.n_nodes();
    const double dt = opt_.dt;
    Config* g = g_.data();
    Algebra* z = zeta_.data();
    Algebra* A = A_.data();
    const Algebra* y = gamma_.data();
    const double* iw = inv_w_.data();
    StepReport report;
    if constexpr (!Noise::is_type_ii) {
      // Interior nodes 1 .. n-2: left segment j-1, right segment j.
      const NoiseMode mode = noise_.mode();
      const Algebra theta_common = mode == NoiseMode::common ? noise_.theta(1) : Model::zero();
      const double* dW = noise_.raw().data();
      const Algebra amp = noise_.amplitude();
      // Interior nodes have weight ds (every layout); one loop per noise mode keeps the loop body free of
      // control flow so that it vectorises.
      const double dt_ds = dt * iw[1 < n - 1 ? 1 : 0];
      // The exact variant's strains come from the configurations, so the increments A are stored only for
      // `approx` (one write stream less per node-step; increments() is then not kept up to date).
      const bool keep_A = opt_.variant == Variant::approx;
      [[maybe_unused]] const double t = static_cast<double>(n_) * dt, w_in = w_[1 < n - 1 ? 1 : 0];
      auto sweep = [&](auto theta_of) {
        return parallel_any_simd(std::max<std::ptrdiff_t>(1, lo_), std::min(n - 1, hi_), 8 * kBlock, [&](std::ptrdiff_t j) {
          Algebra M = model_.momentum(j, z[j]) + dt_ds * (model_.stress(j, y[j]) - model_.stress(j - 1, y[j - 1]));
          if constexpr (kNodeLoad) M += dt_ds * model_.load(j, g[j], t, w_in);
          const Algebra zj = model_.velocity(j, M);
          const Algebra a = Algebra(dt * zj + theta_of(j));
          z[j] = zj;
          if (keep_A) A[j] = a;
          g[j] = Model::advance(g[j], a);
          return static_cast<int>(!finite(g[j])) | static_cast<int>(!finite(zj));  // no branch
        });
      };
      bool any_bad = false;
      bool done = false;
      if constexpr (std::is_same_v<Algebra, double> && !kNodeLoad) {
        // the scalar field (the wave equation): a dedicated loop that GCC vectorises, same arithmetic
        if (mode != NoiseMode::modes && n > 2) {
          const double* dw = mode == NoiseMode::independent ? dW : nullptr;
          const double theta_c = mode == NoiseMode::common ? theta_common : 0.0;
          double* Ak = keep_A ? A : nullptr;
          const std::ptrdiff_t b = std::max<std::ptrdiff_t>(1, lo_), e = std::min(n - 1, hi_);
          const std::ptrdiff_t len = e - b, chunk = 8 * kBlock;
          double probe = 0.0;
          if (len >= chunk) {
            const std::ptrdiff_t nc = (len + chunk - 1) / chunk;
#pragma omp parallel for schedule(static) reduction(+ : probe)
            for (std::ptrdiff_t c = 0; c < nc; ++c)
              probe += scalar_interior(b + c * chunk, std::min(e, b + (c + 1) * chunk), model_, dt, dt_ds, g, z, Ak,
                                       y, dw, amp, theta_c);
          } else if (len > 0) {
            probe = scalar_interior(b, e, model_, dt, dt_ds, g, z, Ak, y, dw, amp, theta_c);
          }
          any_bad = probe != 0.0;  // NaN != 0
          done = true;
        }
      }
      if (!done) switch (mode) {
        case NoiseMode::none:
          any_bad = sweep([](std::ptrdiff_t) { return Model::zero(); });
          break;
        case NoiseMode::common:
          any_bad = sweep([theta_common](std::ptrdiff_t) { return theta_common; });
          break;
        case NoiseMode::independent:
          any_bad = sweep([amp, dW](std::ptrdiff_t j) { return Algebra(amp * dW[j]); });
          break;
        case NoiseMode::modes:
          any_bad = sweep([&](std::ptrdiff_t j) { return noise_.theta(j); });
          break;
      }
      int bad = any_bad ? 1 : 0;
      for (std::ptrdiff_t j : {std::ptrdiff_t{0}, n - 1}) {
        if (j == n - 1 && n == 1) break;  // a single node is both ends
        if (j < lo_ || j >= hi_) continue;  // another block's
        const NodeIndex J{j};
        if (grid_.driven(J)) {
          z[j] = Model::zero();
          A[j] = Model::zero();
          continue;
        }
        Algebra f = force(J);
        if constexpr (kNodeLoad) f += model_.load(j, g[j], t, w_[static_cast<std::size_t>(j)]);
        const Algebra M = model_.momentum(j, z[j]) + iw[j] * dt * f;
        const Algebra zj = model_.velocity(j, M);
        const Algebra a = Algebra(dt * zj + noise_.theta(j));
        z[j] = zj;
        A[j] = a;
        g[j] = Model::advance(g[j], a);
        bad |= static_cast<int>(!finite(g[j])) | static_cast<int>(!finite(zj));
      }
      if (bad) return first_non_finite();
    } else {
      // Type-II: per-node scalar Newton for zeta in K zeta - M + dPhi/dg(g, K zeta) dW = 0.
      int bad = 0, worst_it = 0;
      std::ptrdiff_t fail_node = -1;
      double fail_res = 0.0;
      for (std::ptrdiff_t j = lo_; j < hi_; ++j) {
        const NodeIndex J{j};
        if (grid_.driven(J)) {
          z[j] = 0.0;
          A[j] = 0.0;
          continue;
        }
        double f = force(J);
        if constexpr (kNodeLoad) f += model_.load(j, g[j], static_cast<double>(n_) * dt, w_[static_cast<std::size_t>(j)]);
        const double M = model_.momentum(j, z[j]) + iw[j] * dt * f;
        const double dW = noise_.dW(j), K = model_.momentum(j, 1.0);
        double zj = model_.velocity(j, M), res = 0.0;
        int it = 0;
        for (;; ++it) {
          const double mu = K * zj;
          const double F = mu - M + pot_.phi.dphi_dg(j, g[j], mu) * dW;
          res = std::abs(F);
          if (res <= opt_.newton_tol * std::max(std::abs(M), 1.0)) break;
          if (it == opt_.newton_maxit || !std::isfinite(F)) {
            fail_node = j;
            fail_res = res;
            break;
          }
          zj -= F / (K + pot_.phi.d2phi_dg_dmu(j, g[j], mu) * K * dW);
        }
        if (fail_node >= 0) break;
        worst_it = std::max(worst_it, it);
        const double a = dt * zj + pot_.phi.dphi_dmu(j, g[j], K * zj) * dW;
        z[j] = zj;
        A[j] = a;
        g[j] = Model::advance(g[j], a);
        bad |= static_cast<int>(!finite(g[j])) | static_cast<int>(!finite(zj));
      }
      report.iterations = worst_it;
      if (fail_node >= 0) {
        report.ok = false;
        report.node = fail_node;
        report.residual = fail_res;
        report.message = "the Type-II local Newton solve did not converge in " +
                         std::to_string(opt_.newton_maxit) + " iterations";
        return report;
      }
      if (bad) return first_non_finite();
    }
    return report;
  }

  // ---- non-abelian groups (SE(3) beams), variant `exact` (docs/theory/beam.md) ----------------------------

  /// Sweep 1: Pi = P(gamma - E); f^- = T^-_B Pi (to the first node), f^+ = T^+_B Pi (to the second), B = ds gamma.
  void stresses_lie() {
    const double ds = grid_.ds();
    const Algebra* y = gamma_.data();
    Algebra* fm = fm_.data();
    Algebra* fp = fp_.data();
    const bool approx = opt_.variant == Variant::approx;
    // decomposed: the block's segments and the one on its left (the halo), on a periodic grid the closing one
    const std::ptrdiff_t m = grid_.n_segments();
    const std::ptrdiff_t s0 = std::min(lo_ > 0 ? lo_ - 1 : 0, m), s1 = std::min(hi_, m);
    const bool wrap = ex_ && lo_ == 0 && grid_.periodic() && s1 < m;
    if constexpr (BatchedFieldModel<Model>) {
      if (sweep_ == Sweep::batched) {
        parallel_chunks(s0, s1, kBlock / 4, kBatchChunk,
                        [&](std::ptrdiff_t b, std::ptrdiff_t e) { batch_->stresses(model_, approx, b, e, ds, y, fm, fp); });
        if (wrap) batch_->stresses(model_, approx, m - 1, m, ds, y, fm, fp);
        return;
      }
    }
    auto one = [&](std::ptrdiff_t e) LIEVI_FLATTEN {
      const Algebra Pi = model_.stress(e, y[e]);
      const Algebra B = ds * y[e];
      if (approx) {
        fm[e] = Model::post_approx(B, Pi);
        fp[e] = Model::pre_approx(B, Pi);
      } else {
        fm[e] = Model::post(B, Pi);
        fp[e] = Model::pre(B, Pi);
      }
    };
    parallel_range(s0, s1, kBlock / 4, one);
    if (wrap) one(m - 1);
  }
  /// Internal force of node j: f^-_{j+1/2} - f^+_{j-1/2} (a missing segment contributes nothing).
  [[nodiscard]] Algebra lie_force(NodeIndex j) const {
    const SegmentIndex l = grid_.left_segment(j), r = grid_.right_segment(j);
    Algebra f = Model::zero();
    if (r.e >= 0) f += fm_[r];
    if (l.e >= 0) f -= fp_[l];
    return f;
  }
  /// Sweep 2: momentum, local Newton solve, reconstruction, per node (independent across nodes).
  ///
  /// The local equation for zeta = zeta_j^{n+1/2} (mu = K zeta, docs/theory/beam.md "Local solve"):
  ///   T^-_A(mu) [+ dW psi(g, mu)] [+ (dt/2) D zeta] = M,  A = dt zeta + theta,
  /// theta the Type-I increment, or theta = dW dPhi/dmu(g_j^n, mu) and psi = T*_e L_g dPhi/dg(g_j^n, mu) for a
  /// Type-II potential. Exact Type-I on Cayley with block inertia uses the reduced solve (Beam::reduced_solve)
  /// or the block Newton correction; the approx variant and Type-II the full 6x6 Jacobian
  ///   post_dmu(A) K + post_dx(A, mu) dA/dzeta [+ dW dpsi/dmu K] [+ (dt/2) D],
  ///   dA/dzeta = dt I [+ dW d2Phi/dmu2 K].
  /// The transported pre-momentum: exact M~^{n+1} = Ad*_{tau(A)} (target of T^-_A), approx T^+_A(mu).
  StepReport nodes_lie() {
    const std::ptrdiff_t n = grid_.n_nodes();
    const double dt = opt_.dt, t = static_cast<double>(n_) * dt;
    Config* g = g_.data();
    Algebra* z = zeta_.data();
    Algebra* A = A_.data();
    Algebra* Mt = Mt_.data();
    const bool loads = model_.has_loads();
    const bool approx = opt_.variant == Variant::approx;
    // per-node outcome: iterations (>= 0) or -1 - iterations on failure; residual of a failure
    std::vector<int>& its = its_;
    its.resize(static_cast<std::size_t>(n));  // sized once
    res_.resize(static_cast<std::size_t>(n));
    std::fill(its.begin() + lo_, its.begin() + hi_, 0);  // only the nodes this sweep steps and reads back
    std::fill(res_.begin() + lo_, res_.begin() + hi_, 0.0);
    const bool damped = model_.has_damping(), noisy = noise_.mode() != NoiseMode::none;
    auto post = [approx](const Algebra& x, const Algebra& mu) {
      return approx ? Model::post_approx(x, mu) : Model::post(x, mu);
    };
    auto node = [&](std::ptrdiff_t j) LIEVI_FLATTEN {
      const NodeIndex J{j};
      if (grid_.driven(J)) {
        if (grid_.prescribed(J)) {  // moved as given: A = tau^{-1}(g^{-1} g_given(t + dt))
          const Config next = model_.prescribed_pose(j, t + dt);
          const Algebra a = Model::relative(g[j], next);
          A[j] = a;
          z[j] = a / dt;
          g[j] = next;
          const Algebra mu = model_.momentum(j, z[j]);
          Mt[j] = approx ? Model::pre_approx(a, mu) : Model::pre(a, mu);
        } else {
          z[j] = Model::zero();
          A[j] = Model::zero();
        }
        return;
      }
      const double w = w_[static_cast<std::size_t>(j)];
      Algebra M = Mt[j] + (dt / w) * lie_force(J);
      if (loads) M += (dt / w) * model_.load(j, g[j], t, w);
      // damping: the previous step's half of the Lagrange-d'Alembert force is explicit, this step's half is
      // implicit (in the residual and the Jacobian)
      // (with noise A = dt zeta + theta is not parallel to zeta: carry zeta^{n-1/2} into the frame of g^n)
      if (damped) M += (0.5 * dt) * model_.damping_force(j, noisy ? Model::carry(A[j], z[j]) : z[j]);
      // Type-I: theta fixed; Type-II: theta(mu) = dW dPhi/dmu and the force dW psi(mu)
      Algebra theta = Model::zero();
      double dW = 0.0;
      if constexpr (Noise::is_type_ii) dW = noise_.dW(j);
      else theta = noise_.theta(j);
      auto increment = [&](const Algebra& zeta, const Algebra& mu) {
        if constexpr (Noise::is_type_ii) return Algebra(dt * zeta + dW * pot_.phi.dphi_dmu(j, g[j], mu));
        else return Algebra(dt * zeta + theta);
      };
      Algebra zeta = z[j];
      const double scale = opt_.lie_tol * std::max(M.cwiseAbs().maxCoeff(), model_.momentum_scale);
      int it = 0;
      double res = 0.0;
      bool ok = false;
      bool reduced = false;
      if constexpr (!Noise::is_type_ii && requires { model_.has_reduced_solve(j); }) {
        if (reduced_[static_cast<std::size_t>(j)] && !approx) {
          reduced = true;
          ok = model_.reduced_solve(j, M, theta, zeta, dt, scale, opt_.newton_maxit, it, res);
        }
      }
      for (; !reduced && it <= opt_.newton_maxit; ++it) {
        const Algebra mu = model_.momentum(j, zeta);
        const Algebra a = increment(zeta, mu);
        Algebra F = post(a, mu) - M;
        if constexpr (Noise::is_type_ii) F += dW * pot_.phi.dphi_dg(j, g[j], mu);
        if (damped) F -= (0.5 * dt) * model_.damping_force(j, zeta);
        res = F.cwiseAbs().maxCoeff();
        if (!(res <= 1e300)) break;  // non-finite
        if (res <= scale) {
          ok = true;
          break;
        }
        if (it == opt_.newton_maxit) break;
        if constexpr (!Noise::is_type_ii && requires { model_.newton_correction(j, a, mu, dt, F); }) {
          if (!approx && !opt_.reference_solve) {
            zeta -= model_.newton_correction(j, a, mu, dt, F);
            continue;
          }
        }
        // the reference: Newton on the full Jacobian, by LU
        const auto& K = model_.inertia(j);  // a reference for Beam (a temporary kept alive otherwise)
        typename Model::Matrix dA = Model::Matrix::Identity() * dt;
        typename Model::Matrix Jac = Model::post_dmu(a, approx) * K;
        if constexpr (Noise::is_type_ii) {
          dA += dW * (pot_.phi.d2phi_dmu2(j, g[j], mu) * K);
          Jac += dW * (pot_.phi.d2phi_dg_dmu(j, g[j], mu) * K);
        }
        Jac += Model::post_dx(a, mu, approx) * dA;
        if (damped) Jac += (0.5 * dt) * model_.damping_matrix(j);
        zeta -= Jac.partialPivLu().solve(F);
      }
      if (!ok) {
        its[static_cast<std::size_t>(j)] = -1 - it;
        res_[static_cast<std::size_t>(j)] = res;
        return;
      }
      its[static_cast<std::size_t>(j)] = it;
      const Algebra mu = model_.momentum(j, zeta);
      const Algebra a = increment(zeta, mu);
      const Config h = Model::Ret::tau(a);
      if (damped) M += (0.5 * dt) * model_.damping_force(j, zeta);  // the target of T^-_A(K zeta)
      if constexpr (Noise::is_type_ii) M -= dW * pot_.phi.dphi_dg(j, g[j], mu);
      z[j] = zeta;
      A[j] = a;
      g[j] = g[j] * h;
      // exact: M~^{n+1} = Ad*_{tau(A)} M (the target of the solve, not T^+_A(K zeta)): equal up to the solver
      // tolerance, but this way the momentum map telescopes exactly whatever the Newton residual
      // (docs/theory/beam.md "Energies and momentum map").
      // approx: T^+_A(K zeta) = K zeta + ½ ad*_A K zeta (no exact transport).
      Mt[j] = approx ? Model::pre_approx(a, mu) : Model::transport(h, M);
    };
    bool batched = false;
    if constexpr (BatchedFieldModel<Model>) {
      if (sweep_ == Sweep::batched && n > 2) {
        // interior nodes 1 .. n-2 (weight ds, never driven) batched, and the last node when it is solved
        // (batch_last_, with its own weight); node 0 and a driven last node by the generic body
        const NoiseMode mode = noise_.mode();
        // the time factors of the model's tabled loads, once for the step (the chunks read them)
        if constexpr (requires { batch_->prepare_loads(model_, t); }) batch_->prepare_loads(model_, t);
        const Algebra theta_c = mode == NoiseMode::common ? noise_.theta(1) : Model::zero();
        const double* dW = mode == NoiseMode::independent ? noise_.raw().data() : nullptr;
        const Algebra amp = noise_.amplitude();
        const double dt_w = dt / w_[1];
        int* itp = its.data();
        double* rp = res_.data();
        Algebra* tn = mode == NoiseMode::modes ? theta_node_.data() : nullptr;
        const std::ptrdiff_t end = batch_last_ ? n - 1 : -1;
        const double dt_w_end = batch_last_ ? dt / w_[static_cast<std::size_t>(n - 1)] : 0.0;
        // point-loaded nodes (increasing) by the generic body, where they fall in a chunk
        const std::vector<std::ptrdiff_t>& loaded = batch_->generic_nodes;
        parallel_chunks(std::max<std::ptrdiff_t>(1, lo_), std::min(batch_last_ ? n : n - 1, hi_), kBlock / 4, kBatchChunk,
                        [&](std::ptrdiff_t b, std::ptrdiff_t e) {
          if (tn)  // theta_j = sum_k Theta_k(s_j) dW_k, as the generic body gets it
            for (std::ptrdiff_t j = b; j < e; ++j) tn[j] = noise_.theta(j);
          // A is not stored at the batched nodes (the exact variant's strains come from the configurations),
          // except with damping and noise (the next step carries zeta^{n+1/2} by it) and for `approx` (its
          // strains come from the increments)
          auto batch = [&](std::ptrdiff_t j0, std::ptrdiff_t j1) {
            if (j0 >= j1) return;
            batch_->nodes(model_, approx, j0, j1, g, z, (damped && noisy) || approx ? A : nullptr, Mt, fm_.data(), fp_.data(),
                          mode == NoiseMode::common ? &theta_c : nullptr, tn, dW, amp, dt, dt_w, opt_.lie_tol,
                          opt_.newton_maxit, itp, rp, end, dt_w_end);
            // the exp kernels leave nodes beyond their series' angle (failed, state kept) to the generic body,
            // which also gets a second try at a node whose batched Newton failed
            using BatchT = typename BatchOf<Model>::type;
            if constexpr (requires { BatchT::exp; }) {
              if constexpr (BatchT::exp)
                for (std::ptrdiff_t j = j0; j < j1; ++j)
                  if (itp[j] < 0) node(j);
            }
          };
          std::ptrdiff_t from = b;
          for (auto l = std::lower_bound(loaded.begin(), loaded.end(), b); l != loaded.end() && *l < e; ++l) {
            batch(from, *l);
            node(*l);
            from = *l + 1;
          }
          batch(from, e);
        });
        if (lo_ == 0) node(0);
        if (!batch_last_ && hi_ == n) node(n - 1);
        batched = true;
      }
    }
    if (!batched) parallel_range(lo_, hi_, kBlock / 4, node);
    // the outcome: the largest and total iteration counts in one branch-free pass (local accumulators: a
    // member's would be a memory round trip per node); a failure (its < 0) is looked up after it
    StepReport r;
    int lo = 0, hi = 0;
    long long total = 0;
    const int* ip = its.data();
    for (std::ptrdiff_t j = lo_; j < hi_; ++j) {
      lo = std::min(lo, ip[j]);
      hi = std::max(hi, ip[j]);
      total += ip[j];
    }
    for (std::ptrdiff_t j = lo_; lo < 0 && j < hi_; ++j) {
      const int it = its[static_cast<std::size_t>(j)];
      if (it < 0) {
        r.ok = false;
        r.node = j;
        r.residual = res_[static_cast<std::size_t>(j)];
        r.iterations = -1 - it;
        r.message = std::isfinite(r.residual)
                        ? "the local Newton solve did not converge in " + std::to_string(opt_.newton_maxit) +
                              " iterations"
                        : "non-finite momentum or velocity in the local solve";
        return r;
      }
      newton_total_ += it;  // the nodes before the failing one, as the step counted them before
    }
    r.iterations = hi;
    newton_total_ += total;
    newton_max_ = std::max(newton_max_, r.iterations);
    return r;
  }
  /// A strain sweep over the segments; returns whether a strain is not finite. Batched: kernel(batch, b, e)
  /// on the segments [b, e) from node e to e + 1, and a periodic grid's closing segment by one(e); otherwise
  /// one(e) on every segment.
  template <class Kernel, class One>
  bool segment_sweep(Kernel&& kernel, One&& one) {
    const std::ptrdiff_t m = grid_.n_segments(), n = grid_.n_nodes();
    const std::ptrdiff_t s0 = std::min(lo_, m), s1 = std::min(hi_, m);  // the block's segments
    if constexpr (BatchedFieldModel<Model>) {
      if (sweep_ == Sweep::batched) {
        const std::ptrdiff_t inner = std::min(m, n - 1);
        bool bad = parallel_chunks_any(std::min(s0, inner), std::min(s1, inner), kBlock / 4, kBatchChunk,
                                       [&](std::ptrdiff_t b, std::ptrdiff_t e) { return kernel(*batch_, b, e); });
        for (std::ptrdiff_t e = std::max(inner, s0); e < s1; ++e) bad |= one(e);
        return bad;
      }
    }
    return parallel_any(s0, s1, kBlock / 4, one);
  }
  /// Sweep 3 (`exact`): gamma = tau^{-1}(g_j^{-1} g_{j+1}) / ds; a relative rotation near pi (Cayley's
  /// singularity, 1 + tr R_rel < 1e-8) is reported with its segment.
  StepReport strains_lie() {
    const std::ptrdiff_t m = grid_.n_segments(), n = grid_.n_nodes();
    const double inv_ds = 1.0 / grid_.ds();
    const Config* g = g_.data();
    Algebra* y = gamma_.data();
    // the far end of segment e: node e + 1, or for the last segment of a periodic grid closure g_0
    auto far = [&](std::ptrdiff_t e) { return e + 1 == n ? model_.wrapped(g[0]) : g[e + 1]; };
    auto one = [&](std::ptrdiff_t e) LIEVI_FLATTEN {
      const Config h = far(e);
      if (!(Model::retraction_margin(g[e], h) >= tol::cayley_margin)) return true;
      y[e] = inv_ds * Model::relative(g[e], h);
      return !finite(y[e]);
    };
    const bool bad = segment_sweep(
        [&](const auto& bt, std::ptrdiff_t b, std::ptrdiff_t e) { return bt.strains(b, e, inv_ds, g, y); }, one);
    StepReport r;
    if (!bad) return r;
    r.ok = false;
    for (std::ptrdiff_t e = std::min(lo_, m); e < std::min(hi_, m); ++e) {
      const std::ptrdiff_t b = e + 1 == n ? 0 : e + 1;
      const double margin = Model::retraction_margin(g[e], far(e));
      if (!(margin >= tol::cayley_margin) || !finite(y[e])) {
        r.node = e;
        r.message = !(margin >= tol::cayley_margin) ? "segment " + std::to_string(e) + " (nodes " + std::to_string(e) + ", " +
                                            std::to_string(b) +
                                            "): relative rotation near pi, where the Cayley retraction is "
                                            "singular (1 + tr R_rel = " + std::to_string(margin) + ")"
                                      : "non-finite strain on segment " + std::to_string(e);
        break;
      }
    }
    return r;
  }

  /// Sweep 3 (`approx`): the linearised compatibility (55) per segment from the stored increments A_j (zero at
  /// clamped nodes; a periodic grid's last segment runs from node J-1 to node 0, whose body-frame increment the
  /// closure leaves unchanged). gamma is then a state variable of its own (docs/theory/beam.md
  /// "Discrete compatibility").
  StepReport strains_approx() {
    const std::ptrdiff_t m = grid_.n_segments(), n = grid_.n_nodes();
    const double ds = grid_.ds();
    const Algebra* A = A_.data();
    Algebra* y = gamma_.data();
    auto one = [&](std::ptrdiff_t e) LIEVI_FLATTEN {
      const std::ptrdiff_t b = e + 1 == n ? 0 : e + 1;
      y[e] = Model::approx_strain(y[e], A[e], A[b], ds);
      return !finite(y[e]);
    };
    const bool bad = segment_sweep(
        [&](const auto& bt, std::ptrdiff_t b, std::ptrdiff_t e) { return bt.approx_strains(b, e, ds, A, y); }, one);
    StepReport r;
    if (!bad) return r;
    r.ok = false;
    for (std::ptrdiff_t e = std::min(lo_, m); e < std::min(hi_, m); ++e) {
      if (!finite(y[e])) {
        r.node = e;
        r.message = "non-finite strain on segment " + std::to_string(e);
        break;
      }
    }
    return r;
  }

  /// Sweep 3: strains of level n+1.
  void strain_sweep() {
    if (opt_.variant == Variant::exact) {
      strains_from_configurations();
      return;
    }
    // approx (55) on an abelian group: Delta s gamma^{n+1} = Delta s gamma^n + A_{j+1} - A_j.
    const std::ptrdiff_t m = grid_.n_segments(), n = grid_.n_nodes();
    const double inv_ds = 1.0 / grid_.ds();
    const Algebra* A = A_.data();
    Algebra* y = gamma_.data();
    const std::ptrdiff_t inner = std::min(m, n - 1);  // segments e -> e + 1; a periodic grid adds n-1 -> 0
    parallel_range_simd(std::min(lo_, inner), std::min(hi_, inner), 8 * kBlock,
                        [&](std::ptrdiff_t e) { y[e] = Algebra(y[e] + inv_ds * (A[e + 1] - A[e])); });
    if (m > inner && lo_ <= m - 1 && m - 1 < hi_) y[m - 1] = Algebra(y[m - 1] + inv_ds * (A[0] - A[m - 1]));
  }

  void strains_from_configurations() {
    const std::ptrdiff_t m = grid_.n_segments(), n = grid_.n_nodes();
    const double inv_ds = 1.0 / grid_.ds();
    const Config* g = g_.data();
    Algebra* y = gamma_.data();
    const std::ptrdiff_t inner = std::min(m, n - 1);  // segments e -> e + 1; a periodic grid adds n-1 -> 0
    parallel_range_simd(std::min(lo_, inner), std::min(hi_, inner), 8 * kBlock,
                        [&](std::ptrdiff_t e) { y[e] = Algebra(inv_ds * Model::relative(g[e], g[e + 1])); });
    if (m > inner && lo_ <= m - 1 && m - 1 < hi_) y[m - 1] = Algebra(inv_ds * Model::relative(g[m - 1], g[0]));
  }

  /// The interior node loop of a scalar (double) field, nodes [b, e): the arithmetic of node_sweep's generic
  /// loop, written with local restrict pointers and values so that it vectorises. theta = amp dW[j] (dW
  /// non-null: independent) or theta_c (common; 0 without noise). A is written when non-null. Returns the sum
  /// of the non-finite probes (0, or NaN if a configuration or velocity is not finite).
  static double scalar_interior(std::ptrdiff_t b, std::ptrdiff_t e, const Model mdl, const double dt,
                                const double dt_ds, double* __restrict g, double* __restrict z,
                                double* __restrict A, const double* __restrict y, const double* __restrict dW,
                                const double amp, const double theta_c) {
    double probe = 0.0;
    auto loop = [&](auto with_A, auto independent) {
#pragma omp simd reduction(+ : probe)
      for (std::ptrdiff_t j = b; j < e; ++j) {
        const double M = mdl.momentum(j, z[j]) + dt_ds * (mdl.stress(j, y[j]) - mdl.stress(j - 1, y[j - 1]));
        const double zj = mdl.velocity(j, M);
        double th;
        if constexpr (decltype(independent)::value) th = amp * dW[j];
        else th = theta_c;
        const double a = dt * zj + th;
        const double gj = Model::advance(g[j], a);
        z[j] = zj;
        if constexpr (decltype(with_A)::value) A[j] = a;
        g[j] = gj;
        probe += (gj - gj) + (zj - zj);
      }
    };
    const bool ind = dW != nullptr;
    if (A) ind ? loop(std::true_type{}, std::true_type{}) : loop(std::true_type{}, std::false_type{});
    else ind ? loop(std::false_type{}, std::true_type{}) : loop(std::false_type{}, std::false_type{});
    return probe;
  }

  [[nodiscard]] static bool finite(const Algebra& x) {
    if constexpr (std::is_same_v<Algebra, double>) return std::abs(x) <= DBL_MAX;
    else return x.cwiseAbs().maxCoeff() <= DBL_MAX;
  }

  StepReport first_non_finite() const {
    StepReport r;
    r.ok = false;
    for (std::ptrdiff_t j = lo_; j < hi_; ++j) {
      if (!finite(g_[NodeIndex{j}]) || !finite(zeta_[NodeIndex{j}])) {
        r.node = j;
        break;
      }
    }
    r.message = "non-finite configuration or velocity";
    return r;
  }

  /// sum_{i < count} f(i) in a fixed order: serial within blocks of kBlock, blocks in parallel, then the
  /// block sums serially — the same bits for any thread count.
  template <class F>
  double fixed_order_sum(std::ptrdiff_t count, F&& f, bool owned = false) {
    if (owned && ex_) return decomposed_sum(count, f);
    const std::ptrdiff_t nb = (count + kBlock - 1) / kBlock;
    parallel_range(0, nb, 8, [&](std::ptrdiff_t b) {
      double s = 0.0;
      const std::ptrdiff_t e = std::min(count, (b + 1) * kBlock);
      for (std::ptrdiff_t i = b * kBlock; i < e; ++i) s += f(i);
      partial_[static_cast<std::size_t>(b)] = s;
    });
    double s = 0.0;
    for (std::ptrdiff_t b = 0; b < nb; ++b) s += partial_[static_cast<std::size_t>(b)];
    return s;
  }

  /// The items [0, count) (nodes, or segments: segment e starts at node e) that block r owns.
  [[nodiscard]] std::pair<std::ptrdiff_t, std::ptrdiff_t> owned(int r, std::ptrdiff_t count) const {
    const auto& c = ex_->cuts();
    return {std::min(c[static_cast<std::size_t>(r)], count), std::min(c[static_cast<std::size_t>(r) + 1], count)};
  }

  /// fixed_order_sum over the blocks of a decomposed field (level_sums: the same bits as one process).
  template <class F>
  double decomposed_sum(std::ptrdiff_t count, F& f) {
    return level_sums<1>(count, [&](std::ptrdiff_t i) { return Eigen::Matrix<double, 1, 1>(f(i)); })(0);
  }

  /// Sweeps 1-3 of a block of a decomposed field, with the halos overlapped (see decompose()). Every block
  /// takes part in every exchange whatever its outcome; one agreement at the end gives every block the
  /// outcome one process would have had.
  StepReport step_block() {
    const std::ptrdiff_t lo = lo_, hi = hi_;
    const long long total0 = newton_total_;
    const int max0 = newton_max_;
    // the sweeps on a part [b, e) of the block: as on a block of its own (lo_, hi_ say what a sweep steps)
    auto on = [this](std::ptrdiff_t b, std::ptrdiff_t e, auto&& sweep) -> StepReport {
      if (b >= e) return {};
      const std::ptrdiff_t l = lo_, h = hi_;
      lo_ = b, hi_ = e;
      StepReport r = sweep();
      lo_ = l, hi_ = h;
      return r;
    };
    auto nodes = [this]() -> StepReport {
      if constexpr (Model::is_abelian) return node_sweep();
      else return nodes_lie();
    };
    auto strains = [this]() -> StepReport {
      if constexpr (Model::is_abelian) {
        strain_sweep();
        return {};
      } else {
        return opt_.variant == Variant::approx ? strains_approx() : strains_lie();
      }
    };
    if constexpr (!Model::is_abelian) stresses_lie();  // the block's segments and the one on its left
    // the first node, which the left block needs, then its halo under the others
    StepReport rn = on(lo, lo + 1, nodes);
    halo_nodes_start();
    if (rn.ok) {
      const int edge = rn.iterations;
      rn = on(lo + 1, hi, nodes);
      if (rn.ok) rn.iterations = std::max(rn.iterations, edge);
    }
    halo_nodes_finish();
    // the last segment, which the right block needs (it ends at the node just received), then its halo under
    // the others; the first failure in segment order is the interior's
    StepReport rs;
    if (rn.ok) rs = on(hi - 1, hi, strains);
    halo_segments_start();
    if (rn.ok) {
      StepReport inner = on(lo, hi - 1, strains);
      if (!inner.ok) rs = inner;
    }
    halo_segments_finish();
    StepReport r = agree(rn, newton_total_ - total0, rs);
    newton_total_ = total0 + agreed_total_;
    newton_max_ = std::max(max0, agreed_max_);
    return r;
  }

  /// A step's outcome agreed by every block: the first node-sweep failure in block order, i.e. node order
  /// (its node, residual, iterations and message), else the first strain failure, else the largest Newton
  /// iteration count. `total` is this block's Newton iterations of the node sweep; their sum over the blocks
  /// (up to the one whose node failed, as one process counts them) is left in agreed_total_, the largest
  /// count of a node sweep without failure in agreed_max_.
  StepReport agree(const StepReport& nodes, long long total, const StepReport& strains = {}) {
    // one fixed-size all-gather of every block's outcome; the failure messages only when a block failed
    const std::size_t R = static_cast<std::size_t>(ex_->size());
    agree_all_.resize(kAgree * R);  // sized once: no allocation after the first step
    const StepReport& mine_r = !nodes.ok ? nodes : strains;
    const double stage = !nodes.ok ? 1.0 : (!strains.ok ? 2.0 : 0.0);
    const double mine[kAgree] = {stage, static_cast<double>(mine_r.node), mine_r.residual,
                                 static_cast<double>(mine_r.iterations), static_cast<double>(total),
                                 static_cast<double>(nodes.iterations)};
    ex_->all_gather_fixed(mine, kAgree, agree_all_.data());
    double worst = 0.0;  // the failed stage that counts: the node sweep's before the strains'
    for (std::size_t b = 0; b < R; ++b) {
      const double st = agree_all_[kAgree * b];
      if (st != 0.0 && (worst == 0.0 || st < worst)) worst = st;
    }
    StepReport out;
    std::size_t failed = R;
    for (std::size_t b = 0; b < R && failed == R; ++b)
      if (worst != 0.0 && agree_all_[kAgree * b] == worst) failed = b;
    agreed_total_ = 0;
    agreed_max_ = 0;
    for (std::size_t b = 0; b < R; ++b) {
      const double* a = agree_all_.data() + kAgree * b;
      if (worst == 1.0 && b > failed) break;  // one process stops counting at the failing node
      agreed_total_ += static_cast<long long>(a[4]);
      if (worst != 1.0) agreed_max_ = std::max(agreed_max_, static_cast<int>(a[5]));
    }
    if (failed == R) {
      out.iterations = agreed_max_;
      return out;
    }
    const double* a = agree_all_.data() + kAgree * failed;
    out.ok = false;
    out.node = static_cast<std::ptrdiff_t>(a[1]);
    out.residual = a[2];
    out.iterations = static_cast<int>(a[3]);
    // the failing block's message (every block takes part; the others send none)
    std::vector<double> text;
    if (static_cast<std::size_t>(ex_->rank()) == failed)
      for (const char c : mine_r.message) text.push_back(static_cast<double>(static_cast<unsigned char>(c)));
    for (const double c : ex_->all_gather(text)) out.message += static_cast<char>(static_cast<unsigned char>(c));
    return out;
  }

  /// Start sending the block's first node's configuration (and increment, for `approx`) to the left block
  /// and receiving the right block's first node; halo_nodes_finish() waits for it and puts it at position hi
  /// (mod n on a periodic grid).
  void halo_nodes_start() {
    constexpr std::size_t kc = StateDoubles<Config>::value, ka = StateDoubles<Algebra>::value;
    const bool with_A = opt_.variant == Variant::approx;
    const std::size_t count = kc + (with_A ? ka : 0);
    double* send = node_halo_.data();
    std::copy_n(reinterpret_cast<const double*>(&g_[NodeIndex{lo_}]), kc, send);
    if (with_A) std::copy_n(reinterpret_cast<const double*>(&A_[NodeIndex{lo_}]), ka, send + kc);
    ex_->halo_start(send, send + count, nullptr, nullptr, count, grid_.periodic());
  }
  void halo_nodes_finish() {
    ex_->halo_finish();
    constexpr std::size_t kc = StateDoubles<Config>::value, ka = StateDoubles<Algebra>::value;
    const std::ptrdiff_t n = grid_.n_nodes();
    if (!grid_.periodic() && hi_ == n) return;  // the last block has no right neighbour
    const bool with_A = opt_.variant == Variant::approx;
    const double* recv = node_halo_.data() + kc + (with_A ? ka : 0);
    const NodeIndex to{hi_ % n};
    std::copy_n(recv, kc, reinterpret_cast<double*>(&g_[to]));
    if (with_A) std::copy_n(recv + kc, ka, reinterpret_cast<double*>(&A_[to]));
  }

  /// Start sending the block's last segment's strain to the right block and receiving the left block's;
  /// halo_segments_finish() waits for it and puts it at position lo - 1 (mod the segment count on a periodic
  /// grid).
  void halo_segments_start() {
    constexpr std::size_t ka = StateDoubles<Algebra>::value;
    const std::ptrdiff_t m = grid_.n_segments();
    const std::ptrdiff_t last = std::min(hi_, m) - 1;
    if (last >= lo_) std::copy_n(reinterpret_cast<const double*>(&gamma_[SegmentIndex{last}]), ka, segment_halo_.data());
    ex_->halo_start(nullptr, nullptr, segment_halo_.data(), segment_halo_.data() + ka, ka, grid_.periodic());
  }
  void halo_segments_finish() {
    ex_->halo_finish();
    constexpr std::size_t ka = StateDoubles<Algebra>::value;
    const std::ptrdiff_t m = grid_.n_segments();
    if (!grid_.periodic() && lo_ == 0) return;  // the first block has no left neighbour
    std::copy_n(segment_halo_.data() + ka, ka, reinterpret_cast<double*>(&gamma_[SegmentIndex{(lo_ - 1 + m) % m}]));
  }

  Model model_;
  Grid grid_;
  Options opt_;
  NoiseField<Algebra> noise_;
  Noise pot_;
  long long n_ = 0;
  NodeField<Config> g_;
  HalfStepField<Algebra> zeta_, A_;
  SegmentField<Algebra> gamma_;
  std::vector<double> w_, inv_w_, partial_;
  // non-abelian state and scratch
  NodeField<Algebra> Mt_;
  SegmentField<Algebra> fm_, fp_;
  std::vector<int> its_;
  std::vector<char> reduced_;  ///< per node: the model's reduced local solve applies (fixed by the model)
  Sweep sweep_ = Sweep::lie;   ///< chosen by the constructor
  /// The model's batched sweeps with their caches, when sweep_ is Sweep::batched.
  std::optional<typename BatchOf<Model>::type> batch_;
  bool batch_last_ = false;    ///< the last node is solved in the batched node sweep (see the constructor)
  NodeField<Algebra> theta_node_;  ///< batched sweeps with noise modes: theta_j of the step
  std::vector<double> res_;
  int newton_max_ = 0;
  long long newton_total_ = 0;
  FieldExchange* ex_ = nullptr;       ///< decomposed: the other blocks
  long long agreed_total_ = 0;        ///< agree(): the Newton iterations of the sweep over all blocks
  int agreed_max_ = 0;                ///< agree(): the largest Newton iteration count of the sweep
  /// agree(): the failed sweep (0 none, 1 nodes, 2 strains), node, residual, iterations, Newton total, the
  /// node sweep's largest iteration count
  static constexpr std::size_t kAgree = 6;
  /// The halos' buffers (sent and received values stay here until the exchange finishes)
  std::array<double, 2 * (StateDoubles<Config>::value + StateDoubles<Algebra>::value)> node_halo_{};
  std::array<double, 2 * StateDoubles<Algebra>::value> segment_halo_{};
  std::vector<double> agree_all_;          ///< agree(): every block's outcome
  std::ptrdiff_t lo_ = 0, hi_ = 0;    ///< the nodes this stepper steps (all of them unless decomposed)
};

}  // namespace lievi::field
