#pragma once
/// @file lievi/models/beam_batch.hpp
/// @brief Node- and segment-batched kernels of the beam step (variants `exact` and `approx`, retractions Cayley
/// and exp), vectorised across nodes (src/models/beam_batch.cpp): the three sweeps of field::StaggeredStepper
/// (stresses, node solve and reconstruction, strains) for beams whose inertia K_j and stiffness P_e are diagonal
/// (every section given by its constants), with or without mass-proportional damping, with gravity and Type-I
/// noise (none, common, independent or modes);
/// point-loaded nodes are left to the generic per-node body (Beam::point_load_nodes).
///
/// The exp retraction's functions of the rotation angle t (sin t / t, beta(t), the Q-matrix's c_1..c_3, ...) are
/// evaluated by their Taylor series in t², exact to round-off for t <= kExpSeriesAngle: the kernels use
/// +, -, *, / and sqrt only, so their bits do not depend on a libm. A segment or node whose angle is beyond
/// it is marked (NaN rows, a failed node) for the caller to compute with the generic code (Beam::Batch does
/// for the sweeps, the stepper for the nodes).
///
/// The same equations as Beam::post / Beam::pre, Beam::reduced_solve, Cayley<SE3>::tau,
/// Beam::transport and Beam::relative, written component-wise on packs of nodes with Highway's portable vectors
/// (src/models/beam_batch_kernels.inc), every fused multiply-add written out. Each lane's arithmetic does not
/// depend on how the nodes are grouped, so results are bitwise the same for any thread count. They differ from
/// the generic (Eigen) path only by round-off (another evaluation order of the same formulas, and the fused
/// products).
///
/// The kernels are compiled for every instruction set Highway targets on the architecture (x86-64: AVX-512,
/// AVX2 + FMA, SSE4 and scalar; AArch64: NEON and scalar) and run the one lievi/core/isa.hpp names
/// (simd::isa(): the widest the CPU supports, or LIEVI_BATCH_ISA, or simd::force_isa). The ones with FMA
/// (AVX-512, AVX2, NEON; simd::has_fma) give the same bits; the ones without (SSE4, scalar) give the same
/// bits as each other and differ from the first by round-off.
///
/// Arrays are the stepper's AoS storage seen as doubles: an SE(3) pose as 12 (R column-major, then p; see
/// lie::SE3::data), an algebra element as 6 (angular part first).
#include <cstddef>

namespace lievi::models::batch {

/// Fixed-point steps that start the reduced node solve (Beam::fixed_point_start, and the kernels). One: a
/// second took a noisy node-step on the benchmark rod from 1.77 to 1.07 Newton updates at J = 10^3 but cost
/// more than it saved (docs/performance.md, "Newton under noise").
inline constexpr int kStartSweeps = 1;

/// The largest rotation angle (rad) of a strain ds gamma, an increment A or a relative pose the exp kernels take:
/// one radian between neighbouring nodes, or per step, is far beyond a resolved run, and keeps every series
/// short (at most 13 terms).
inline constexpr double kExpSeriesAngle = 1.0;

/// Sweep 1 on segments [e0, e1): Pi = P (gamma - E), B = ds gamma, f^- = (dtau_B^{-1})^* Pi,
/// f^+ = (dtau_{-B}^{-1})^* Pi (approx: f^-/+ = Pi -/+ ½ ad*_B Pi; exp: tau = exp, else Cayley). E: 6 per
/// segment; p: P per segment, its 6 diagonal entries, or (full_p) all 36 row by row. uniform: E and p hold one
/// segment's values, the same for all (a uniform beam: no per-segment loads). Returns whether a segment was
/// left to the caller (exp, an angle beyond kExpSeriesAngle or not finite: its rows of fm hold NaN).
bool stresses(std::ptrdiff_t e0, std::ptrdiff_t e1, double ds, const double* gamma, const double* E,
              const double* p, bool full_p, bool uniform, bool approx, bool exp, double* fm, double* fp);

/// Sweep 3 of the `approx` variant on segments [e0, e1) (segment e from node e to e + 1): the linearised
/// compatibility of Beam::approx_strain from the increments A (6 per node) and gamma (updated in place).
/// Returns whether any strain is not finite.
bool approx_strains(std::ptrdiff_t e0, std::ptrdiff_t e1, double ds, const double* A, double* gamma);

/// Sweep 3 on segments [e0, e1) (segment e from node e to node e + 1): gamma = tau^{-1}(g_e^{-1} g_{e+1}) / ds.
/// A segment whose relative rotation is within tol::cayley_margin of pi (1 + tr R_rel below the margin, or
/// not finite) gets NaN strains. Returns whether any segment's strain is not finite.
bool strains(std::ptrdiff_t e0, std::ptrdiff_t e1, double inv_ds, const double* g, double* gamma);

/// Sweep 3 with the exp retraction: gamma = log(g_e^{-1} g_{e+1}) / ds. A segment whose relative rotation is
/// beyond kExpSeriesAngle (or whose strain is not finite) gets NaN strains, for the caller to compute; returns
/// whether there is one.
bool exp_strains(std::ptrdiff_t e0, std::ptrdiff_t e1, double inv_ds, const double* g, double* gamma);

/// Inputs and outputs of the node sweep on nodes with a left segment j - 1 and a right segment j (a free end's
/// missing right segment is a zero row of fm), weight ds except at end_node.
struct NodeArgs {
  double* g = nullptr;          ///< 12 per node, updated to g_j^{n+1}
  double* zeta = nullptr;       ///< 6 per node: the warm start zeta^{n-1/2} in, zeta^{n+1/2} out
  double* A = nullptr;          ///< 6 per node: the increments A_j = dt zeta + theta (out); null: not stored
  double* Mt = nullptr;         ///< 6 per node: the transported pre-momentum M~_j^n in, M~_j^{n+1} out
  const double* fm = nullptr;   ///< 6 per segment: f^- of sweep 1
  const double* fp = nullptr;   ///< 6 per segment: f^+ of sweep 1
  const double* k4 = nullptr;   ///< 4 per node: K_11, K_22, K_33 and the isotropic translational K_44
  /// 4 per node: the damping D_11, D_22, D_33 and the isotropic translational D_44 (null: no damping). With
  /// damping and noise, A must hold the previous step's increments (the damping force of zeta^{n-1/2} is
  /// carried into the frame of g^n).
  const double* d4 = nullptr;
  /// A full angular inertia (null: K_a is the diagonal of k4): 9 per node each, column by column, K_a, its
  /// inverse, and with damping D_a (k4 and d4 still give the translational k and d_l)
  const double* ka9 = nullptr;
  const double* kai9 = nullptr;
  const double* da9 = nullptr;
  const double* rhoA = nullptr; ///< rho A per node (gravity); null: no gravity
  /// 6 per node each (null: none): a lumped wrench in the body frame (load_b) and one with spatial directions
  /// (load_d, entering as (R^T m, R^T f)); M gains (dt / w_j)(load_b + R^T load_d)
  const double* load_b = nullptr;
  const double* load_d = nullptr;
  bool uniform = false;         ///< k4, d4 and rhoA hold one node's values, the same for all nodes of the sweep
  /// The `approx` variant: T^-_A mu = mu - ½ ad*_A mu in the node equation, M~ <- T^+_A(mu); A must be given
  /// (its strains come from the increments).
  bool approx = false;
  /// The exp retraction (h = exp(A), and for `exact` the node equation with (dexp_A^{-1})^*); a node whose
  /// rotation angle leaves the series' range fails (its < 0) for the caller to solve with the generic code.
  bool exp = false;
  double gravity[3] = {0.0, 0.0, 0.0};
  const double* theta_common = nullptr;  ///< 6: the common-noise increment theta; null otherwise
  const double* theta_node = nullptr;    ///< 6 per node: theta_j (noise modes); null otherwise
  const double* dW = nullptr;            ///< independent noise: theta_j = amp dW_j (null otherwise)
  const double* amp = nullptr;           ///< 6: the amplitude Theta of independent noise
  double dt = 0.0;
  double dt_w = 0.0;            ///< dt / ds (interior nodes have weight ds)
  /// A solved end node in the range (the last node of a free end: its ghost segment's f^- row is zero) with
  /// its own weight: dt / w_end instead of dt_w for that node; -1: none.
  std::ptrdiff_t end_node = -1;
  double dt_w_end = 0.0;
  double lie_tol = 0.0;         ///< Newton: stop at residual <= lie_tol max(|M|_inf, momentum_scale)
  double momentum_scale = 0.0;
  int maxit = 0;
  int* its = nullptr;           ///< per node: Newton iterations, or -1 - iterations on failure
  double* res = nullptr;        ///< per node: the last residual
};

/// Sweep 2 on nodes [j0, j1): M = M~ + (dt / w_j)(f^-_j - f^+_{j-1} + load_b + R^T load_d) + dt rho A R^T g
/// - (dt/2) D zeta^{n-1/2}
/// (w_j = ds except at end_node; the damping term with d4, zeta^{n-1/2} carried into the frame of g^n when
/// there is noise), the reduced local solve of Beam::reduced_solve (Newton in R^3 on the rotation, the translation in
/// closed form, at least one update), A = dt zeta + theta, g <- g cay(A), M~ <- Ad*_{cay(A)} (M - (dt/2) D zeta).
/// A node whose
/// solve fails (its < 0) keeps its state.
void nodes(const NodeArgs& args, std::ptrdiff_t j0, std::ptrdiff_t j1);

}  // namespace lievi::models::batch
