#pragma once
/// @file lievi/models/beam.hpp
/// @brief The geometrically exact (Simo-Reissner / Cosserat) beam on SE(3) as a field model for the staggered
/// integrator (docs/theory/beam.md): configuration g = (R, p) per node, left-trivialised
/// velocity zeta = (omega, v) and strain gamma = (kappa, Gamma) in se(3) (angular part first), Lagrangian
/// density ℓ = ½ <zeta, K zeta> − ½ <gamma − E, P (gamma − E)> per unit length.
///
/// Properties may vary along the beam: the stiffness P per segment, the inertia K per node (the weighted mean
/// of the adjacent segments' K, built by `BeamProperties`). The retraction is a template parameter (Cayley by
/// default, or Exp); the variant `exact` (docs/theory/beam.md "The two variants") uses T^-_x mu =
/// (dtau_x^{-1})^* mu and T^+_x mu = (dtau_{-x}^{-1})^* mu.
///
/// Loads: gravity (a body wrench (0, rho A R^T g) per unit length, i.e. w_j times that at node j) and a
/// time-dependent point-wrench hook `Beam::point_load` (on the nodes `point_load_nodes`, or on all), both in the
/// body frame, added to the momentum equation as the discrete Lagrange-d'Alembert force Delta t (F_j + w_j q_j).
///
/// Damping (off by default): linear viscous, mass-proportional, a body-frame force density -D_j zeta with
/// D_j = C^{1/2} K_j C^{1/2} and C = diag(c_ang, c_ang, c_ang, c_lin, c_lin, c_lin) (rates in 1/s; D_j = C K_j for a
/// diagonal K_j, and D_j is positive semi-definite for any K_j). It enters the DEL at level n as the discrete
/// Lagrange-d'Alembert force of the two adjacent steps, -(w_j / 2) D_j (zeta^{n-1/2} + zeta^{n+1/2}) (each step's
/// force split equally between its two end points; zeta is invariant under Ad_{tau(A)} of its own step, so both
/// halves are in the frame of g_j^n), which makes the local solve implicit in the damping.
///
/// Periodic grids: the last segment joins node J-1 to `closure` g_0 (g_{j+J} = closure g_j: the identity for a
/// ring, a translation by the period for an infinite straight beam).
///
/// Prescribed ends: `prescribed_pose(j, t)` gives the pose of a prescribed end node at time t.
#include <Eigen/Core>
#include <Eigen/Eigenvalues>
#include <Eigen/LU>
#include <type_traits>
#include <algorithm>
#include <cfloat>
#include <cmath>
#include <functional>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "lievi/core/attributes.hpp"
#include "lievi/lie/retraction/cayley.hpp"
#include "lievi/lie/retraction/exp.hpp"
#include "lievi/lie/se3.hpp"
#include "lievi/models/beam_batch.hpp"

namespace lievi::models {

using lie::Mat6;
using lie::SE3;
using lie::Vec6;

/// Constant cross-section and material data, giving K and P (docs/theory/beam.md "Section constants").
struct Section {
  double rho = 1.0, E = 1.0, G = 1.0;              ///< density, Young's and shear modulus
  double A = 1.0, J1 = 1.0, J2 = 1.0, J3 = 1.0;    ///< area, polar and bending second moments
  double shear_factor = 1.0;                       ///< k_s
  /// Square section of edge a: A = a², J2 = J3 = a⁴/12, J1 = J2 + J3; G = E / (2 (1 + nu)).
  static Section square(double rho, double E, double nu, double a) {
    Section s;
    s.rho = rho, s.E = E, s.G = E / (2.0 * (1.0 + nu)), s.A = a * a, s.J2 = s.J3 = a * a * a * a / 12.0;
    s.J1 = s.J2 + s.J3;
    return s;
  }
  /// K = diag(rho J1, rho J2, rho J3, rho A, rho A, rho A).
  [[nodiscard]] Mat6 K() const {
    Vec6 d;
    d << rho * J1, rho * J2, rho * J3, rho * A, rho * A, rho * A;
    return d.asDiagonal();
  }
  /// P = diag(G J1, E J2, E J3, E A, k_s G A, k_s G A).
  [[nodiscard]] Mat6 P() const {
    Vec6 d;
    d << G * J1, E * J2, E * J3, E * A, shear_factor * G * A, shear_factor * G * A;
    return d.asDiagonal();
  }
};

/// The straight, unsheared reference strain E6 = (0, 0, 0, 1, 0, 0) (first director along the axis).
[[nodiscard]] inline Vec6 straight_strain() {
  Vec6 e = Vec6::Zero();
  e[3] = 1.0;
  return e;
}

/// A-priori bound on the largest eigenfrequency of the linearised semi-discrete beam (docs/theory/beam.md
/// "Stability bound"): omega_max^2 <= 4 c_max^2 / ds^2 + omega_sh^2, with c_max^2 the largest eigenvalue of
/// K^{-1} P (the fastest of the torsion, bending, axial and shear waves, and of their combinations where P
/// couples the strains) and omega_sh^2 the largest of K_aa^{-1} T^T P_ll T, T theta = theta x e_1 (a node's
/// rotation shears its segments: (0, theta_3, -theta_2)). For diagonal K and P (every section given by its
/// constants) these are max_i P_ii / K_ii and max(P_44 / K_22, P_55 / K_11) (indices 0-based, angular first), by
/// division; otherwise by the symmetric generalised eigenproblems. The leapfrog-type scheme is stable for
/// dt < 2 / omega_max.
/// Whether X has no entry off its diagonal (exact zeros).
[[nodiscard]] inline bool is_diagonal(const Mat6& X) { return (X - Mat6(X.diagonal().asDiagonal())).isZero(0.0); }
/// Whether X (an inertia or damping matrix) has an isotropic translational block (x I) uncoupled from the angular
/// one; the angular block may be any (the reduced node solve and the batched sweeps take such matrices).
[[nodiscard]] inline bool translation_isotropic_uncoupled(const Mat6& X) {
  return X.template topRightCorner<3, 3>().isZero(0.0) && X.template bottomLeftCorner<3, 3>().isZero(0.0) &&
         X(3, 4) == 0.0 && X(3, 5) == 0.0 && X(4, 5) == 0.0 && X(4, 3) == 0.0 && X(5, 3) == 0.0 && X(5, 4) == 0.0 &&
         X(3, 3) == X(4, 4) && X(4, 4) == X(5, 5);
}

[[nodiscard]] inline double omega_max_bound(const Mat6& K, const Mat6& P, double ds) {
  double c2 = 0.0, sh2 = 0.0;
  if (is_diagonal(K) && is_diagonal(P)) {
    for (int i = 0; i < 6; ++i) c2 = std::max(c2, P(i, i) / K(i, i));
    sh2 = std::max(P(4, 4) / K(2, 2), P(5, 5) / K(1, 1));
  } else {
    using Mat3 = Eigen::Matrix3d;
    const Eigen::GeneralizedSelfAdjointEigenSolver<Mat6> all(P, K, Eigen::EigenvaluesOnly);
    c2 = all.eigenvalues().maxCoeff();
    Mat3 T = Mat3::Zero();  // theta -> theta x e_1
    T(1, 2) = 1.0;
    T(2, 1) = -1.0;
    const Mat3 S = T.transpose() * P.template bottomRightCorner<3, 3>() * T;
    const Eigen::GeneralizedSelfAdjointEigenSolver<Mat3> shear(S, K.template topLeftCorner<3, 3>(),
                                                                Eigen::EigenvaluesOnly);
    sh2 = shear.eigenvalues().maxCoeff();
  }
  return std::sqrt(4.0 * c2 / (ds * ds) + sh2);
}

/// The Type-II stochastic potential Phi(g, mu) = <mu, Theta> with a constant Theta in se(3)
/// (docs/theory/beam.md "Stochastic forms: Type-I and Type-II"):
/// dPhi/dmu = Theta, no g-dependence, so Type-II is Type-I with common or independent noise. As a potential for
/// field::TypeII on the beam; the general hook takes any type with the same four members.
struct ConstantThetaPotential {
  Vec6 theta = Vec6::Zero();
  [[nodiscard]] Vec6 dphi_dmu(std::ptrdiff_t, const SE3&, const Vec6&) const { return theta; }
  /// T*_e L_g dPhi/dg: the left-trivialised configuration derivative.
  [[nodiscard]] Vec6 dphi_dg(std::ptrdiff_t, const SE3&, const Vec6&) const { return Vec6::Zero(); }
  [[nodiscard]] Mat6 d2phi_dmu2(std::ptrdiff_t, const SE3&, const Vec6&) const { return Mat6::Zero(); }
  [[nodiscard]] Mat6 d2phi_dg_dmu(std::ptrdiff_t, const SE3&, const Vec6&) const { return Mat6::Zero(); }
};

/// Wrenches given by tables of time factors (the scenario's [[loads]] and [[distributed_loads]]): at node j and
/// time t, sum over its entries of f_k(t) W (W in the body frame for a follower entry; a dead entry's W has
/// spatial directions, its torque about the node, and enters as (R^T W_m, R^T W_f)). W is already lumped: a
/// point wrench, or a distributed density times the length of the node's cell. Unlike Beam::point_load, a hook
/// called per node, these are data, so that the batched node sweep applies them itself (Beam::Batch) and the
/// loaded nodes stay batched.
struct TabledLoads {
  struct Entry {
    std::size_t factor;  ///< index into factors
    bool body;           ///< follower (body frame); else dead (spatial directions)
    Vec6 wrench;         ///< (torque, force)
  };
  std::vector<std::function<double(double)>> factors;  ///< f_k(t), one per table
  std::vector<std::size_t> offset;  ///< per node j, its entries are entries[offset[j] .. offset[j + 1]) (n + 1 values)
  std::vector<Entry> entries;

  [[nodiscard]] bool empty() const { return entries.empty(); }
  /// From the entries of each node (by_node[j]).
  static TabledLoads from(std::vector<std::function<double(double)>> factors,
                          const std::vector<std::vector<Entry>>& by_node) {
    TabledLoads t;
    t.factors = std::move(factors);
    t.offset.push_back(0);
    for (const auto& list : by_node) {
      t.entries.insert(t.entries.end(), list.begin(), list.end());
      t.offset.push_back(t.entries.size());
    }
    return t;
  }
  /// These loads and more: the new factors after the present ones (the new entries' factor indices count from
  /// the first new factor), each node's new entries after its present ones. by_node has one list per node.
  [[nodiscard]] TabledLoads with(const std::vector<std::function<double(double)>>& more,
                                 const std::vector<std::vector<Entry>>& by_node) const {
    std::vector<std::function<double(double)>> f = factors;
    f.insert(f.end(), more.begin(), more.end());
    std::vector<std::vector<Entry>> all(by_node.size());
    for (std::size_t j = 0; j < by_node.size(); ++j) {
      if (j + 1 < offset.size()) all[j].assign(entries.begin() + static_cast<std::ptrdiff_t>(offset[j]),
                                              entries.begin() + static_cast<std::ptrdiff_t>(offset[j + 1]));
      for (Entry e : by_node[j]) {
        e.factor += factors.size();
        all[j].push_back(e);
      }
    }
    return from(std::move(f), all);
  }
  /// Adds node j's entries c_k W, in entry order, to its follower and dead sums (6 doubles each); c_k =
  /// factor(k). The one summation of both paths: wrench() here, and the batched node sweep with the factors
  /// evaluated once per step (Beam::Batch).
  template <class Factor>
  void accumulate(std::size_t j, const Factor& factor, double* follower, double* dead) const {
    if (j + 1 >= offset.size()) return;
    for (std::size_t i = offset[j]; i < offset[j + 1]; ++i) {
      const Entry& e = entries[i];
      const double c = factor(e.factor);
      if (c == 0.0) continue;
      double* out = e.body ? follower : dead;
      for (int k = 0; k < 6; ++k) out[k] += c * e.wrench[k];
    }
  }
  /// The wrench at node j with pose g at time t, in the body frame: follower + (R^T dead_m, R^T dead_f).
  [[nodiscard]] Vec6 wrench(std::size_t j, const SE3& g, double t) const {
    Vec6 follower = Vec6::Zero(), dead = Vec6::Zero();
    accumulate(j, [&](std::size_t k) { return factors[k](t); }, follower.data(), dead.data());
    follower.head<3>() += g.rotation().transpose() * dead.head<3>();
    follower.tail<3>() += g.rotation().transpose() * dead.tail<3>();
    return follower;
  }
};

/// Beam model over a retraction `R` (lie::Cayley<SE3> or lie::Exp<SE3>).
template <class Retraction = lie::Cayley<SE3>>
struct Beam {
  using Algebra = Vec6;
  using Matrix = Mat6;
  using Config = SE3;
  using Ret = Retraction;
  static constexpr bool is_abelian = false;
  static constexpr int dof = 6;

  std::vector<Mat6> K_node;   ///< K_j per node (per unit length)
  std::vector<Mat6> P_seg;    ///< P per segment (per unit length)
  std::vector<Vec6> E_seg;    ///< reference strain per segment (E6 for a straight beam)
  std::vector<double> rhoA_node;  ///< rho A per node (gravity)
  Eigen::Vector3d gravity = Eigen::Vector3d::Zero();
  /// Point wrench at node j and time t in the body frame (torque about the node, force), given the node's
  /// configuration; empty = none. (Dead loads transform spatial wrenches with R^T here.)
  std::function<Vec6(std::ptrdiff_t j, const SE3& g, double t)> point_load;
  /// The nodes point_load acts on, strictly increasing (empty: every node). When given, point_load is called at
  /// these nodes only, on every path, and the batched node sweep solves the other nodes (batch_sweeps checks
  /// the list and throws std::invalid_argument if it is not increasing or names a node the beam does not have).
  std::vector<std::ptrdiff_t> point_load_nodes;
  /// Wrenches from tables of time factors (see TabledLoads), on top of gravity and point_load; the batched node
  /// sweep applies them itself.
  TabledLoads tabled_loads;
  double momentum_scale = 1.0;  ///< a momentum scale of the run (Newton's absolute floor, docs/theory/beam.md)
  /// Damping matrices D_j per node (empty = no damping); see the file comment and set_damping.
  std::vector<Mat6> D_node;
  /// Periodic grids: g_{j+J} = closure g_j.
  SE3 closure;
  /// Pose of a prescribed end node j at time t (needed when the grid has a prescribed end).
  std::function<SE3(std::ptrdiff_t j, double t)> prescribed_pose;

  /// The batched (vectorised across nodes) sweeps of models/beam_batch.hpp with the diagonal data they read,
  /// made by batch_sweeps() for one beam and kept by the stepper in its workspace; every call takes that beam.
  struct Batch {
    /// Per node K_11, K_22, K_33, K_44 (and with damping D_11 .. D_44 in d4, else empty); per segment the
    /// diagonal of P (p6), or, when a segment's P couples its strains (full_p), all of P row by row (p36).
    std::vector<double> k4, d4, p6, p36;
    bool full_p = false;
    /// When a node's angular inertia (or damping) is not diagonal (full_k): per node K_a, K_a^{-1} and D_a (with
    /// damping), 9 each, column by column.
    std::vector<double> ka9, kai9, da9;
    bool full_k = false;
    /// The interior nodes 1 .. n-2 have equal K and rho A (uniform_nodes), all segments equal P and E
    /// (uniform_segments): the kernels then broadcast one item's values instead of loading them per item.
    bool uniform_nodes = false, uniform_segments = false;
    /// The nodes the node sweep leaves to the generic body besides the ends: the point-loaded ones, increasing.
    std::vector<std::ptrdiff_t> generic_nodes;
    /// The beam has tabled loads (Beam::tabled_loads): prepare_loads(t) evaluates their factors once per step
    /// (load_f), and each node sweep fills its nodes' follower and dead wrenches (load_b, load_d: 6 per node)
    /// for the kernels. Written by the sweep of the nodes they belong to only, so chunks in parallel do not
    /// share them.
    bool tabled = false;
    mutable std::vector<double> load_f, load_b, load_d;

    /// The factors of the tabled loads at time t (before the node sweep of the step; not thread-safe).
    void prepare_loads(const Beam& b, double t) const {
      for (std::size_t k = 0; k < load_f.size(); ++k) load_f[k] = b.tabled_loads.factors[k](t);
    }

    /// Whether the retraction is exp (else Cayley): its kernels leave angles beyond batch::kExpSeriesAngle
    /// to the generic code (here for the sweeps; the stepper solves such nodes again).
    static constexpr bool exp = std::is_same_v<Ret, lie::Exp<SE3>>;

    /// Sweep 1 on segments [e0, e1); approx: the `approx` variant's T^-/+ = I -/+ ½ ad*.
    void stresses(const Beam& b, bool approx, std::ptrdiff_t e0, std::ptrdiff_t e1, double ds, const Vec6* gamma,
                  Vec6* fm, Vec6* fp) const {
      if (!batch::stresses(e0, e1, ds, gamma->data(), b.E_seg.data()->data(), full_p ? p36.data() : p6.data(), full_p,
                           uniform_segments, approx, exp, fm->data(), fp->data()))
        return;
      for (std::ptrdiff_t e = e0; e < e1; ++e)  // the segments the exp kernel left (NaN rows)
        if (!(std::abs(fm[e][0]) <= DBL_MAX)) {
          const Vec6 Pi = b.stress(e, gamma[e]), B = ds * gamma[e];
          fm[e] = post(B, Pi);
          fp[e] = pre(B, Pi);
        }
    }
    /// Sweep 3 of the `approx` variant on segments [e0, e1) (from node e to e + 1): the linearised
    /// compatibility from the increments A; returns whether a strain is not finite.
    [[nodiscard]] bool approx_strains(std::ptrdiff_t e0, std::ptrdiff_t e1, double ds, const Vec6* A, Vec6* gamma) const {
      return batch::approx_strains(e0, e1, ds, A->data(), gamma->data());
    }
    /// Sweep 3 on segments [e0, e1) (segment e from node e to e + 1); returns whether a strain is not finite (a
    /// relative rotation near pi gives NaN).
    /// Exp: the segments the kernel left (beyond its angle) by Beam::relative.
    [[nodiscard]] bool strains(std::ptrdiff_t e0, std::ptrdiff_t e1, double inv_ds, const SE3* g, Vec6* gamma) const {
      if constexpr (!exp) {
        return batch::strains(e0, e1, inv_ds, g->data(), gamma->data());
      } else {
        if (!batch::exp_strains(e0, e1, inv_ds, g->data(), gamma->data())) return false;
        bool bad = false;
        for (std::ptrdiff_t e = e0; e < e1; ++e)
          if (!(gamma[e].cwiseAbs().sum() <= DBL_MAX)) {
            gamma[e] = inv_ds * relative(g[e], g[e + 1]);
            bad = bad || !(gamma[e].cwiseAbs().sum() <= DBL_MAX);
          }
        return bad;
      }
    }
    /// Whether node j has the values of the first interior node (K_j and rho A), so that it can join a node
    /// sweep that broadcasts them (uniform_nodes).
    [[nodiscard]] bool node_matches_interior(const Beam& b, std::size_t j) const {
      return j < b.rhoA_node.size() && b.rhoA_node.size() > 1 && b.rhoA_node[j] == b.rhoA_node[1] &&
             b.K_node[j] == b.K_node[1] && (b.D_node.empty() || b.D_node[j] == b.D_node[1]);
    }
    /// Sweep 2 on nodes [j0, j1) with both segments (weight ds, dt_w = dt / ds), and optionally the solved last
    /// node end_node of a free end (weight w_end, dt_w_end = dt / w_end; fm must hold a zero row for its
    /// missing right segment): see batch::nodes. Type-I noise: theta_common (common), theta_node per node
    /// (modes), dW with amplitude amp (independent), or none. A (the increments) may be null: not stored;
    /// with damping and noise it must hold the previous step's increments, and approx (the `approx` variant's
    /// node equation and transport) needs it.
    void nodes(const Beam& b, bool approx, std::ptrdiff_t j0, std::ptrdiff_t j1, SE3* g, Vec6* zeta, Vec6* A, Vec6* Mt,
               const Vec6* fm, const Vec6* fp, const Vec6* theta_common, const Vec6* theta_node, const double* dW,
               const Vec6& amp, double dt, double dt_w, double lie_tol, int maxit, int* its, double* res,
               std::ptrdiff_t end_node = -1, double dt_w_end = 0.0) const {
      batch::NodeArgs a;
      if (tabled) {  // the follower and dead wrenches of this range's nodes (the factors of prepare_loads)
        const double* f = load_f.data();
        double* lb = load_b.data();
        double* ld = load_d.data();
        std::fill(lb + 6 * j0, lb + 6 * j1, 0.0);
        std::fill(ld + 6 * j0, ld + 6 * j1, 0.0);
        for (std::ptrdiff_t j = j0; j < j1; ++j)
          b.tabled_loads.accumulate(static_cast<std::size_t>(j), [f](std::size_t k) { return f[k]; }, lb + 6 * j,
                                    ld + 6 * j);
        a.load_b = lb;
        a.load_d = ld;
      }
      a.g = g->data();
      a.zeta = zeta->data();
      a.A = A ? A->data() : nullptr;
      a.Mt = Mt->data();
      a.fm = fm->data();
      a.fp = fp->data();
      // uniform: the values of node 1 (the first interior node) for all
      a.uniform = uniform_nodes;
      a.k4 = k4.data() + (a.uniform ? 4 : 0);
      a.d4 = d4.empty() ? nullptr : d4.data() + (a.uniform ? 4 : 0);
      if (full_k) {
        a.ka9 = ka9.data() + (a.uniform ? 9 : 0);
        a.kai9 = kai9.data() + (a.uniform ? 9 : 0);
        a.da9 = da9.empty() ? nullptr : da9.data() + (a.uniform ? 9 : 0);
      }
      a.approx = approx;
      a.exp = exp;
      if (b.gravity.squaredNorm() > 0.0) {
        a.rhoA = b.rhoA_node.data() + (a.uniform ? 1 : 0);
        for (int i = 0; i < 3; ++i) a.gravity[i] = b.gravity[i];
      }
      a.theta_common = theta_common ? theta_common->data() : nullptr;
      a.theta_node = theta_node ? theta_node->data() : nullptr;
      a.dW = dW;
      a.amp = amp.data();
      a.dt = dt;
      a.dt_w = dt_w;
      a.end_node = end_node;
      a.dt_w_end = dt_w_end;
      a.lie_tol = lie_tol;
      a.momentum_scale = b.momentum_scale;
      a.maxit = maxit;
      a.its = its;
      a.res = res;
      batch::nodes(a, j0, j1);
    }
  };

  /// The batched sweeps (Batch) when they apply to this beam: the Cayley or exp retraction, every K_j with an
  /// isotropic translational inertia uncoupled from the angular one (which may be any: full_k when it is not
  /// diagonal), every D_j likewise (no damping, or the mass-proportional damping of set_damping), any P_e
  /// (diagonal, as every section given by its constants has, or coupled, as a `matrix` section may be), tabled
  /// loads, and point-load hooks only on the listed nodes point_load_nodes (gravity is allowed); std::nullopt
  /// otherwise.
  /// The Batch holds copies of K, D and P: later changes to K_node, P_seg, D_node, tabled_loads' shape,
  /// point_load or point_load_nodes need a new one (the stepper makes it once, when it is built). Throws
  /// std::invalid_argument if point_load_nodes is not strictly increasing or names a node the beam does not
  /// have.
  [[nodiscard]] std::optional<Batch> batch_sweeps() const {
    for (std::size_t i = 0; i < point_load_nodes.size(); ++i) {
      const std::ptrdiff_t j = point_load_nodes[i];
      if (j < 0 || j >= static_cast<std::ptrdiff_t>(K_node.size()) || (i > 0 && j <= point_load_nodes[i - 1]))
        throw std::invalid_argument("models::Beam: point_load_nodes must be strictly increasing node indices in [0, " +
                                    std::to_string(K_node.size()) + "); entry " + std::to_string(i) + " is " +
                                    std::to_string(j));
    }
    if constexpr (!std::is_same_v<Ret, lie::Cayley<SE3>> && !std::is_same_v<Ret, lie::Exp<SE3>>) {
      return std::nullopt;
    } else {
      if (point_load && point_load_nodes.empty()) return std::nullopt;
      // the translational block isotropic and uncoupled; the angular block any (full_k when not diagonal)
      bool full_k = false;
      for (const Mat6& K : K_node) {
        if (!translation_isotropic_uncoupled(K)) return std::nullopt;
        full_k = full_k || !is_diagonal(K);
      }
      for (const Mat6& Dj : D_node) {
        if (!translation_isotropic_uncoupled(Dj)) return std::nullopt;
        full_k = full_k || !is_diagonal(Dj);
      }
      if (E_seg.size() != P_seg.size() || rhoA_node.size() != K_node.size() ||
          (!D_node.empty() && D_node.size() != K_node.size()))
        return std::nullopt;
      Batch bt;
      bt.k4.reserve(4 * K_node.size());
      for (const Mat6& K : K_node) bt.k4.insert(bt.k4.end(), {K(0, 0), K(1, 1), K(2, 2), K(3, 3)});
      for (const Mat6& Dj : D_node) bt.d4.insert(bt.d4.end(), {Dj(0, 0), Dj(1, 1), Dj(2, 2), Dj(3, 3)});
      bt.full_k = full_k;
      if (full_k) {
        auto push = [](std::vector<double>& out, const Eigen::Matrix3d& X) {
          for (int c = 0; c < 3; ++c)
            for (int r = 0; r < 3; ++r) out.push_back(X(r, c));
        };
        for (const Mat6& K : K_node) {
          const Eigen::Matrix3d Ka = K.template topLeftCorner<3, 3>();
          push(bt.ka9, Ka);
          push(bt.kai9, Ka.inverse());
        }
        for (const Mat6& Dj : D_node) push(bt.da9, Dj.template topLeftCorner<3, 3>());
      }
      bt.full_p = !std::all_of(P_seg.begin(), P_seg.end(), is_diagonal);
      for (const Mat6& P : P_seg) {
        if (bt.full_p) {
          for (int i = 0; i < 6; ++i)
            for (int k = 0; k < 6; ++k) bt.p36.push_back(P(i, k));
        } else {
          for (int i = 0; i < 6; ++i) bt.p6.push_back(P(i, i));
        }
      }
      const std::size_t n = K_node.size(), m = P_seg.size();
      bt.uniform_nodes = true;
      for (std::size_t j = 2; j + 1 < n; ++j)
        bt.uniform_nodes = bt.uniform_nodes && rhoA_node[j] == rhoA_node[1] && K_node[j] == K_node[1] &&
                           (D_node.empty() || D_node[j] == D_node[1]);
      bt.uniform_segments = true;
      for (std::size_t e = 1; e < m; ++e)
        bt.uniform_segments = bt.uniform_segments && E_seg[e] == E_seg[0] && P_seg[e] == P_seg[0];
      if (point_load) bt.generic_nodes = point_load_nodes;
      if (!tabled_loads.empty()) {
        if (tabled_loads.offset.size() != n + 1)
          throw std::invalid_argument("models::Beam: tabled_loads.offset has " +
                                      std::to_string(tabled_loads.offset.size()) + " entries; a beam of " +
                                      std::to_string(n) + " nodes needs " + std::to_string(n + 1));
        bt.tabled = true;
        bt.load_f.assign(tabled_loads.factors.size(), 0.0);
        bt.load_b.assign(6 * n, 0.0);
        bt.load_d.assign(6 * n, 0.0);
      }
      return bt;
    }
  }

  static_assert(sizeof(Vec6) == 6 * sizeof(double), "the batched kernels read arrays of Vec6 as 6 doubles each");
  /// Whether node j is one of point_load_nodes.
  [[nodiscard]] bool has_point_load(std::ptrdiff_t j) const {
    return std::binary_search(point_load_nodes.begin(), point_load_nodes.end(), j);
  }

  /// Mass-proportional damping with rates c_ang (rotation) and c_lin (translation), 1/s, both >= 0:
  /// D_j = C^{1/2} K_j C^{1/2}. Both zero switches damping off.
  void set_damping(double c_ang, double c_lin) {
    if (!(c_ang >= 0.0) || !(c_lin >= 0.0)) throw std::invalid_argument("models::Beam: damping rates must be >= 0");
    D_node.clear();
    if (c_ang == 0.0 && c_lin == 0.0) return;
    Vec6 c;
    c << c_ang, c_ang, c_ang, c_lin, c_lin, c_lin;
    const Vec6 r = c.cwiseSqrt();
    for (const Mat6& K : K_node) D_node.push_back(r.asDiagonal() * K * r.asDiagonal());
  }
  [[nodiscard]] bool has_damping() const { return !D_node.empty(); }
  /// D_j (zero without damping).
  [[nodiscard]] Mat6 damping_matrix(std::ptrdiff_t j) const { return has_damping() ? D_node[idx(j)] : Mat6::Zero(); }
  /// Body-frame damping force density per unit length at node j for velocity zeta: -D_j zeta.
  [[nodiscard]] Algebra damping_force(std::ptrdiff_t j, const Algebra& zeta) const {
    return -(D_node[idx(j)] * zeta);
  }

  /// Uniform beam: n_nodes nodes, n_segments segments, one section, straight reference strain.
  static Beam uniform(const Section& s, std::ptrdiff_t n_nodes, std::ptrdiff_t n_segments) {
    Beam b;
    b.K_node.assign(static_cast<std::size_t>(n_nodes), s.K());
    b.P_seg.assign(static_cast<std::size_t>(n_segments), s.P());
    b.E_seg.assign(static_cast<std::size_t>(n_segments), straight_strain());
    b.rhoA_node.assign(static_cast<std::size_t>(n_nodes), s.rho * s.A);
    b.momentum_scale = 1e-12 * s.K().norm();
    return b;
  }

  [[nodiscard]] static Algebra zero() { return Algebra::Zero(); }
  [[nodiscard]] Algebra momentum(std::ptrdiff_t j, const Algebra& zeta) const { return K_node[idx(j)] * zeta; }
  /// K_j.
  [[nodiscard]] const Mat6& inertia(std::ptrdiff_t j) const { return K_node[idx(j)]; }
  [[nodiscard]] Algebra stress(std::ptrdiff_t e, const Algebra& gamma) const {
    return P_seg[idx(e)] * (gamma - E_seg[idx(e)]);
  }
  [[nodiscard]] double kinetic_density(std::ptrdiff_t j, const Algebra& zeta) const {
    return 0.5 * zeta.dot(K_node[idx(j)] * zeta);
  }
  [[nodiscard]] double potential_density(std::ptrdiff_t e, const Algebra& gamma) const {
    const Vec6 d = gamma - E_seg[idx(e)];
    return 0.5 * d.dot(P_seg[idx(e)] * d);
  }
  /// Gravity potential per unit length at node j: −rho A g · p.
  [[nodiscard]] double gravity_density(std::ptrdiff_t j, const SE3& g) const {
    return -rhoA_node[idx(j)] * gravity.dot(g.translation());
  }
  /// Total body wrench on node j at time t: F_j + w_j q_j (q = gravity).
  [[nodiscard]] Algebra load(std::ptrdiff_t j, const SE3& g, double t, double w) const {
    Vec6 f = Vec6::Zero();
    if (gravity.squaredNorm() > 0.0) f.tail<3>() = w * rhoA_node[idx(j)] * (g.rotation().transpose() * gravity);
    if (!tabled_loads.empty()) f += tabled_loads.wrench(static_cast<std::size_t>(j), g, t);
    if (point_load && (point_load_nodes.empty() || has_point_load(j))) f += point_load(j, g, t);
    return f;
  }
  /// The largest stable dt of the a-priori bound over all nodes / segments: 2 / omega_max. With
  /// per-node K and per-segment P the bound pairs each segment with its two nodes.
  [[nodiscard]] double stable_dt(double ds) const {
    double w = 0.0;
    for (std::size_t e = 0; e < P_seg.size(); ++e)
      for (std::size_t j : {e, std::min(e + 1, K_node.size() - 1)}) w = std::max(w, omega_max_bound(K_node[j], P_seg[e], ds));
    return w > 0.0 ? 2.0 / w : INFINITY;
  }
  [[nodiscard]] bool has_loads() const {
    return gravity.squaredNorm() > 0.0 || static_cast<bool>(point_load) || !tabled_loads.empty();
  }

  // Group operations through the retraction.
  /// g tau(A).
  [[nodiscard]] static Config advance(const Config& g, const Algebra& A) { return g * Ret::tau(A); }
  /// tau^{-1}(g^{-1} h).
  [[nodiscard]] static Algebra relative(const Config& g, const Config& h) { return Ret::tau_inv(g.inverse() * h); }
  /// Ad_{tau(A)^{-1}} v: a body-frame vector of the step with increment A (at g) in the frame of g tau(A),
  /// (R^T w, R^T (u - p x w)) for tau(A) = (R, p), v = (w, u). The identity when v is parallel to A.
  [[nodiscard]] static Algebra carry(const Algebra& A, const Algebra& v) {
    const Config h = Ret::tau(A);
    const Eigen::Matrix3d Rt = h.rotation().transpose();
    Algebra out;
    out.template head<3>() = Rt * v.template head<3>();
    out.template tail<3>() = Rt * (v.template tail<3>() - h.translation().cross(v.template head<3>()));
    return out;
  }
  /// The image of node 0 one period on, closure g_0 (the far end of a periodic grid's last segment).
  [[nodiscard]] Config wrapped(const Config& g0) const { return closure * g0; }
  /// T^-_x mu = (dtau_x^{-1})^* mu (exact variant).
  [[nodiscard]] static Algebra post(const Algebra& x, const Algebra& mu) { return Ret::dtau_inv_star_apply(x, mu); }
  /// T^+_x mu = (dtau_{-x}^{-1})^* mu.
  [[nodiscard]] static Algebra pre(const Algebra& x, const Algebra& mu) {
    return Ret::dtau_inv_star_apply(Algebra(-x), mu);
  }
  /// The `approx` variant's operators (paper's (44), truncation-then-variation): T^-_x mu = mu - ½ ad*_x mu.
  [[nodiscard]] static Algebra post_approx(const Algebra& x, const Algebra& mu) { return mu - 0.5 * SE3::ad_star(x, mu); }
  /// T^+_x mu = mu + ½ ad*_x mu (approx).
  [[nodiscard]] static Algebra pre_approx(const Algebra& x, const Algebra& mu) { return mu + 0.5 * SE3::ad_star(x, mu); }
  /// d/dmu of T^-_x mu: (dtau_x^{-1})^* (exact) or I - ½ ad_x^T (approx).
  [[nodiscard]] static Mat6 post_dmu(const Algebra& x, bool approx) {
    return approx ? Mat6(Mat6::Identity() - 0.5 * SE3::ad(x).transpose()) : Mat6(Ret::dtau_inv_star(x));
  }
  /// d/dx of T^-_x mu: the retraction's D(x, mu) (exact; for Exp the approximation -½ C(mu), see
  /// solve_jacobian) or -½ C(mu) (approx: ad*_x mu = C(mu) x).
  [[nodiscard]] static Mat6 post_dx(const Algebra& x, const Algebra& mu, bool approx) {
    if (!approx) {
      if constexpr (requires { Ret::J_dtau_inv_star_x(x, mu); }) return Ret::J_dtau_inv_star_x(x, mu);
    }
    return -0.5 * SE3::J_ad_star_x(mu);
  }
  /// The linearised compatibility of the `approx` variant (paper's (55)), solved for the new strain:
  ///   (I + ½ ad_{A_a}) ds gamma' = ds gamma + A_b - A_a + ½ [ds gamma, A_b]
  /// for the segment from node a (increment A_a) to node b (A_b). I + ½ ad_A is block lower triangular with
  /// diagonal blocks I + ½ hat(w) (A = (w, v)), inverted in closed form:
  /// (I + ½ hat(w))^{-1} y = (y - ½ w × y + ¼ (w·y) w) / (1 + ¼ |w|²).
  [[nodiscard]] static Algebra approx_strain(const Algebra& gamma, const Algebra& Aa, const Algebra& Ab, double ds) {
    const Algebra B = ds * gamma;
    const Algebra r = B + Ab - Aa + 0.5 * SE3::ad(B) * Ab;
    const lie::Vec3 w = Aa.template head<3>(), v = Aa.template tail<3>();
    const double den = 1.0 + 0.25 * w.squaredNorm();
    auto inv = [&](const lie::Vec3& y) { return lie::Vec3((y - 0.5 * w.cross(y) + 0.25 * w.dot(y) * w) / den); };
    const lie::Vec3 x1 = inv(r.template head<3>());
    const lie::Vec3 x2 = inv(lie::Vec3(r.template tail<3>() - 0.5 * v.cross(x1)));
    Algebra out;
    out << x1, x2;
    return out / ds;
  }
  /// Ad*_h M = (R^T (m - p x n), R^T n) for h = (R, p): the discrete Lie-Poisson transport of the post-momentum,
  /// M~^{n+1} = Ad*_{tau(A)} M^n (equal to T^+_A mu for the exact variant; docs/theory/beam.md).
  [[nodiscard]] static Algebra transport(const Config& h, const Algebra& M) {
    const Eigen::Matrix3d Rt = h.rotation().transpose();
    Vec6 out;
    out.head<3>() = Rt * (M.head<3>() - h.translation().cross(M.tail<3>()));
    out.tail<3>() = Rt * M.tail<3>();
    return out;
  }
  /// Newton Jacobian of zeta -> T^-_{dt zeta + theta}(K zeta) [+ (dt/2) D_j zeta with damping]:
  /// (dtau_A^{-1})^T K + dt D(A, K zeta) [+ (dt/2) D_j]; for Exp the approximation D ≈ −½ C(mu) (no short
  /// closed form; exact at A = 0; Newton then converges linearly).
  [[nodiscard]] Mat6 solve_jacobian(std::ptrdiff_t j, const Algebra& A, const Algebra& mu, double dt) const {
    Mat6 D;
    if constexpr (requires { Ret::J_dtau_inv_star_x(A, mu); }) {
      D = Ret::J_dtau_inv_star_x(A, mu);
    } else {
      D = -0.5 * SE3::J_ad_star_x(mu);
    }
    Mat6 Jac = Ret::dtau_inv_star(A) * K_node[idx(j)] + dt * D;
    if (has_damping()) Jac += (0.5 * dt) * D_node[idx(j)];
    return Jac;
  }
  /// The Newton correction J^{-1} F for the Jacobian of solve_jacobian. For Cayley with an inertia and damping
  /// that do not couple rotation and translation (K_j and D_j block diagonal: every section except a general
  /// "matrix" one) by the block structure, without forming the 6x6 Jacobian: with A = (w, v), W = hat(w),
  ///   J = [[(I + ½W + ¼ww^T) K_a + dt D_11 + (dt/2) D_a, ½ hat(v)(I + ½W) K_l + dt D_12],
  ///        [-(dt/2) hat(n), (I + ½W) K_l + (dt/2) D_l]]
  /// (D_11, D_12 the blocks of J_dtau_inv_star_x, n the linear part of mu), solved through the 3x3 Schur
  /// complement of the lower-right block. Otherwise the LU of the full Jacobian.
  [[nodiscard]] Algebra newton_correction(std::ptrdiff_t j, const Algebra& A, const Algebra& mu, double dt,
                                          const Algebra& F) const {
    const Mat6& K = K_node[idx(j)];
    if constexpr (std::is_same_v<Ret, lie::Cayley<SE3>>) {
      const bool block = K.template topRightCorner<3, 3>().isZero(0.0) && K.template bottomLeftCorner<3, 3>().isZero(0.0);
      if (block) {
        using lie::Mat3;
        using lie::Vec3;
        const Vec3 w = A.template head<3>(), v = A.template tail<3>(), m = mu.template head<3>(), n = mu.template tail<3>();
        const Mat3 W = lie::hat(w), N = lie::hat(n), Vh = lie::hat(v);
        const Mat3 Ip = Mat3::Identity() + 0.5 * W;
        const Mat3 Ka = K.template topLeftCorner<3, 3>(), Kl = K.template bottomRightCorner<3, 3>();
        Mat3 J11 = (Ip + 0.25 * w * w.transpose()) * Ka +
                   dt * (-0.5 * lie::hat(m) + 0.25 * (w.dot(m) * Mat3::Identity() + w * m.transpose()) - 0.25 * Vh * N);
        const Mat3 J12 = 0.5 * Vh * Ip * Kl + dt * (-0.5 * N - 0.25 * lie::hat(w.cross(n)));
        const Mat3 J21 = -0.5 * dt * N;
        Mat3 J22 = Ip * Kl;
        if (has_damping()) {
          const Mat6& Dj = D_node[idx(j)];
          J11 += (0.5 * dt) * Dj.template topLeftCorner<3, 3>();
          J22 += (0.5 * dt) * Dj.template bottomRightCorner<3, 3>();
        }
        const Mat3 J22i = J22.inverse();
        const Vec3 F1 = F.template head<3>(), F2 = F.template tail<3>();
        const Mat3 S = J11 - J12 * (J22i * J21);
        const Vec3 x1 = S.inverse() * (F1 - J12 * (J22i * F2));
        const Vec3 x2 = J22i * (F2 - J21 * x1);
        Algebra x;
        x << x1, x2;
        return x;
      }
    }
    return solve_jacobian(j, A, mu, dt).partialPivLu().solve(F);
  }

  /// Whether node j has the reduced local solve (Cayley, 𝕂_j = blockdiag(𝕂_a, k I) with isotropic
  /// translational inertia, damping likewise): true for every section given by its constants.
  [[nodiscard]] bool has_reduced_solve(std::ptrdiff_t j) const {
    if constexpr (!std::is_same_v<Ret, lie::Cayley<SE3>>) {
      return false;
    } else {
      return translation_isotropic_uncoupled(K_node[idx(j)]) &&
             (!has_damping() || translation_isotropic_uncoupled(D_node[idx(j)]));
    }
  }

  /// The start of the reduced solve (docs/theory/beam.md "Start of the reduced solve"). The warm start
  /// w = zeta^{n-1/2} misses the response of the node to this step's change of momentum and, under noise, to the
  /// increment theta, which is O(|theta| |w|) (of order sqrt(dt), not dt), so Newton would need a second update.
  /// batch::kStartSweeps fixed-point steps with the new theta remove most of it: with a0 = dt w + theta_a, v0 the
  /// closed-form translation and b0 = dt v0 + theta_b, the angular equation is solved for m with a frozen at a0,
  ///   (I + ½ â0 + ¼ a0 a0^T) m = y,  y = M_a - ½ b0 × (M_l - h_l v0) - (dt/2) D_a w,
  /// whose inverse is (I - ½ â0) / (1 + ¼ |a0|²) (Sherman-Morrison on (I + ½ â0)^{-1}, which maps a0 to a0); then
  /// w = K_a^{-1} m. Each step leaves O(dt |w|) times the error before it. The batched kernel
  /// (models/beam_batch_kernels.inc) does the same operations.
  template <class LinvF>
  [[nodiscard]] static lie::Vec3 fixed_point_start(const lie::Mat3& Ka, const lie::Vec3& Ma, const lie::Vec3& Ml,
                                                   const lie::Vec3& ta, const lie::Vec3& tb, lie::Vec3 w, double dt,
                                                   double hl, const lie::Mat3& Da, const LinvF& Linv) {
    using lie::Vec3;
    const bool diagonal = Ka.isDiagonal(0.0);
    for (int sweep = 0; sweep < batch::kStartSweeps; ++sweep) {
      const Vec3 a = dt * w + ta;
      const Vec3 v = Linv(a, Ml);
      const Vec3 b = dt * v + tb;
      const Vec3 y = Ma - 0.5 * b.cross(Ml - hl * v) - 0.5 * dt * (Da * w);
      const Vec3 m = (y - 0.5 * a.cross(y)) / (1.0 + 0.25 * a.squaredNorm());
      w = diagonal ? Vec3(m.cwiseQuotient(Ka.diagonal())) : Vec3(Ka.partialPivLu().solve(m));
    }
    return w;
  }

  /// The local solve of node j by elimination of the translation (Cayley; see has_reduced_solve): find zeta =
  /// (w, v) with T^-_A(K zeta) + (dt/2) D zeta = M, A = (a, b) = dt zeta + theta. The linear part,
  /// (I + ½â) k v + h_l v = M_l (h_l = dt d_l / 2), is linear in v for given a and solved in closed form,
  ///   (alpha I + beta â)^{-1} y = (alpha² y - alpha beta a × y + beta² (a·y) a) / (alpha (alpha² + beta² |a|²)),
  /// alpha = k + h_l, beta = k/2; then T^-_A's linear part is n~ = M_l - h_l v and the angular equation
  ///   R(w) = m + ½ a × m + ¼ (a·m) a + ½ b × (M_l - h_l v) + (dt/2) D_a w - M_a = 0,  m = K_a w,
  /// is solved by Newton in R³ with the Jacobian (I + ½â + ¼aa^T) K_a + dt(-½ m̂ + ¼((a·m) I + a m^T)) + (dt/2) D_a
  /// + (-½ dt M̂_l - ½ h_l θ̂_b) dv/dw, dv/dw = beta dt (alpha I + beta â)^{-1} v̂. The same solution as the 6x6
  /// Newton (tests/beam), at about a third of the arithmetic. `zeta` is the warm start and the result; stops at
  /// max(|R|_inf, linear residual) <= scale after at least one Newton update; returns false after maxit
  /// iterations or a non-finite value, with `iterations` and `residual` set either way.
  LIEVI_FLATTEN bool reduced_solve(std::ptrdiff_t j, const Algebra& M, const Algebra& theta, Algebra& zeta, double dt, double scale,
                     int maxit, int& iterations, double& residual) const {
    using lie::Mat3;
    using lie::Vec3;
    const Mat6& K = K_node[idx(j)];
    const Mat3 Ka = K.template topLeftCorner<3, 3>();
    const double k = K(3, 3);
    Mat3 Da = Mat3::Zero();
    double dl = 0.0;
    if (has_damping()) {
      Da = D_node[idx(j)].template topLeftCorner<3, 3>();
      dl = D_node[idx(j)](3, 3);
    }
    const double hl = 0.5 * dt * dl, alpha = k + hl, beta = 0.5 * k;
    const Vec3 Ma = M.template head<3>(), Ml = M.template tail<3>(), ta = theta.template head<3>(), tb = theta.template tail<3>();
    Vec3 w = zeta.template head<3>();
    auto Linv = [&](const Vec3& a, const Vec3& y) {
      return Vec3((alpha * alpha * y - alpha * beta * a.cross(y) + beta * beta * a.dot(y) * a) /
                  (alpha * (alpha * alpha + beta * beta * a.squaredNorm())));
    };
    w = fixed_point_start(Ka, Ma, Ml, ta, tb, w, dt, hl, Da, Linv);
    for (int it = 0;; ++it) {
      const Vec3 a = dt * w + ta;
      const Vec3 v = Linv(a, Ml);
      const Vec3 b = dt * v + tb;
      const Vec3 m = Ka * w;
      const Vec3 R = m + 0.5 * a.cross(m) + 0.25 * a.dot(m) * a + 0.5 * b.cross(Ml - hl * v) + 0.5 * dt * (Da * w) - Ma;
      // the linear equation's residual, k (v + ½ a × v) + h_l v - M_l: round-off of the closed form
      const Vec3 Rl = k * (v + 0.5 * a.cross(v)) + hl * v - Ml;
      residual = std::max(R.cwiseAbs().maxCoeff(), Rl.cwiseAbs().maxCoeff());
      iterations = it;
      if (!(residual <= 1e300)) return false;
      // at least one Newton update: the tolerance mixes the angular and linear momenta, and
      // the warm start's angular residual can already be below it for a slowly turning node, whose torque
      // would then be dropped (an O(tol) error per step, dominant for fine grids at small dt)
      if (residual <= scale && it > 0) {
        zeta << w, v;
        return true;
      }
      if (it == maxit) return false;
      // the Jacobian column by column (no 3x3 temporaries): with y = K_a e_k,
      //   col_k = y + ½ a × y + ¼ (a·y) a + dt (-½ m × e_k + ¼ ((a·m) e_k + m_k a)) + (dt/2) D_a e_k
      //           + beta dt c × L^{-1}(v × e_k),   c = -½ dt M_l - ½ h_l theta_b   (hat is linear)
      const Vec3 c = -0.5 * dt * Ml - 0.5 * hl * tb;
      const double am = a.dot(m);
      Vec3 col[3];
      for (int q = 0; q < 3; ++q) {
        const Vec3 e = Vec3::Unit(q);
        const Vec3 y = Ka.col(q);
        col[q] = y + 0.5 * a.cross(y) + 0.25 * a.dot(y) * a +
                 dt * (-0.5 * m.cross(e) + 0.25 * (am * e + m[q] * a)) + 0.5 * dt * Da.col(q) +
                 (beta * dt) * c.cross(Linv(a, v.cross(e)));
      }
      // Cramer's rule: x_1 = R·(c2 × c3) / det, x_2 = c1·(R × c3) / det, x_3 = c1·(c2 × R) / det
      const Vec3 c23 = col[1].cross(col[2]);
      const double det = col[0].dot(c23);
      w -= Vec3(R.dot(c23), col[0].dot(R.cross(col[2])), col[0].dot(col[1].cross(R))) / det;
    }
  }

  /// Cayley: 1 + tr of the relative rotation (the retraction is singular at rotations by pi; the stepper
  /// refuses margins below tol::cayley_margin). Exp: +inf (its inverse, the logarithm, is taken whatever the
  /// rotation).
  [[nodiscard]] static double retraction_margin(const Config& g, const Config& h) {
    if constexpr (std::is_same_v<Ret, lie::Cayley<SE3>>) return 1.0 + (g.rotation().transpose() * h.rotation()).trace();
    else return std::numeric_limits<double>::infinity();
  }

 private:
  static std::size_t idx(std::ptrdiff_t i) { return static_cast<std::size_t>(i); }
};

}  // namespace lievi::models
