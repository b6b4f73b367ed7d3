#pragma once
/// @file lievi/field/model.hpp
/// @brief What a field model gives field::StaggeredStepper (docs/theory/staggered.md "Field models"): the
/// concepts the stepper is constrained by, and the optional hooks it looks for.
///
/// A field model describes a Lagrangian density ℓ(zeta, gamma) = ½ <zeta, K zeta> − ψ(gamma) on a Lie group G,
/// sampled at the nodes (configurations g_j in `Config`, velocities zeta_j and momenta in `Algebra`) and
/// segments (strains gamma_e and stresses in `Algebra`) of a field::Grid. The stepper owns the state and the
/// sweeps; the model gives only pointwise maps. Indices j (nodes) and e (segments) let a model vary along the
/// grid.
///
/// Every model (FieldModel):
///   Algebra, Config                        types of the algebra and of the configurations
///   is_abelian                             static bool: the group is a vector space (tau = identity)
///   zero()                                 the zero of the algebra (static)
///   momentum(j, zeta), velocity(j, mu)     mu = K_j zeta and its inverse (velocity: abelian models only)
///   stress(e, gamma)                       Pi = dψ/dgamma on segment e
///   kinetic_density(j, zeta)               ½ <zeta, K_j zeta>, per unit length
///   potential_density(e, gamma)            ψ(gamma) on segment e, per unit length
///   relative(g, h)                         tau^{-1}(g^{-1} h) (static)
/// Abelian models (AbelianFieldModel) add advance(g, A) = g + A (static). Their node update is explicit.
/// Optional hooks of abelian models:
///   load(j, g, t, w)                       an external force on node j (integrated over its weight w) at
///                                          time t, e.g. an on-site force −w V'(g) (a Klein–Gordon chain)
///   onsite_density(j, g)                   the on-site potential V(g_j) per unit length, added to the
///                                          potential energy with the node weights (give it with a
///                                          conservative `load`)
/// Non-abelian models (LieFieldModel) add the retraction and the operators of the discrete Euler–Poincaré
/// equations: `Ret` (tau, tau_inv), `Matrix` (Algebra x Algebra), inertia(j) (K_j as a Matrix),
/// advance(g, A) = g tau(A), post/pre (T^-_x, T^+_x of the exact variant), post_approx/pre_approx (the
/// approx variant), post_dmu/post_dx (their derivatives, for the reference Newton), transport(h, M)
/// (Ad*_h M), carry(A, v), approx_strain(gamma, A_a, A_b, ds), retraction_margin(g, h) (how far the relative
/// pose of a segment is from the retraction's singular set; the stepper refuses it below
/// tol::cayley_margin), wrapped(g_0) (the periodic closure), load(j, g, t, w) and has_loads(), damping
/// (has_damping(), damping_force(j, zeta), damping_matrix(j)), prescribed_pose (for prescribed ends) and
/// momentum_scale (the Newton solve's absolute floor).
///
/// The node solve of non-abelian models: the *reference* is the stepper's Newton iteration on the full
/// Jacobian post_dmu(A) K + post_dx(A, mu) dA/dzeta [+ damping], solved by LU (Options::reference_solve
/// forces it on every node). A model may offer faster solves of the same equation, each tested against the
/// reference on random states (tests/field/test_field_seam.cpp):
///   newton_correction(j, A, mu, dt, F)     the Newton step J^{-1} F by the block structure of J
///   has_reduced_solve(j), reduced_solve(...)   a solve by elimination of the translation
///   batch_sweeps()                         std::optional<Batch>: the three sweeps vectorised across nodes
///                                          (the stepper keeps the Batch, with its caches, in its workspace)
#include <concepts>
#include <cstddef>
#include <optional>

namespace lievi::field {

template <class M>
concept FieldModel = requires(const M m, std::ptrdiff_t j, const typename M::Algebra& x,
                              const typename M::Config& g) {
  typename M::Algebra;
  typename M::Config;
  { M::is_abelian } -> std::convertible_to<bool>;
  { M::zero() } -> std::convertible_to<typename M::Algebra>;
  { m.momentum(j, x) } -> std::convertible_to<typename M::Algebra>;
  { m.stress(j, x) } -> std::convertible_to<typename M::Algebra>;
  { m.kinetic_density(j, x) } -> std::convertible_to<double>;
  { m.potential_density(j, x) } -> std::convertible_to<double>;
  { M::relative(g, g) } -> std::convertible_to<typename M::Algebra>;
  { M::advance(g, x) } -> std::convertible_to<typename M::Config>;
};

template <class M>
concept AbelianFieldModel = FieldModel<M> && M::is_abelian &&
                            requires(const M m, std::ptrdiff_t j, const typename M::Algebra& x) {
                              { m.velocity(j, x) } -> std::convertible_to<typename M::Algebra>;
                            };

template <class M>
concept LieFieldModel =
    FieldModel<M> && !M::is_abelian &&
    requires(const M m, std::ptrdiff_t j, const typename M::Algebra& x, const typename M::Config& g, double t,
             bool approx) {
      typename M::Ret;
      typename M::Matrix;
      { m.inertia(j) } -> std::convertible_to<typename M::Matrix>;
      { M::post(x, x) } -> std::convertible_to<typename M::Algebra>;
      { M::pre(x, x) } -> std::convertible_to<typename M::Algebra>;
      { M::post_approx(x, x) } -> std::convertible_to<typename M::Algebra>;
      { M::pre_approx(x, x) } -> std::convertible_to<typename M::Algebra>;
      { M::post_dmu(x, approx) } -> std::convertible_to<typename M::Matrix>;
      { M::post_dx(x, x, approx) } -> std::convertible_to<typename M::Matrix>;
      { M::transport(g, x) } -> std::convertible_to<typename M::Algebra>;
      { M::carry(x, x) } -> std::convertible_to<typename M::Algebra>;
      { M::approx_strain(x, x, x, t) } -> std::convertible_to<typename M::Algebra>;
      { M::retraction_margin(g, g) } -> std::convertible_to<double>;
      { m.wrapped(g) } -> std::convertible_to<typename M::Config>;
      { m.load(j, g, t, t) } -> std::convertible_to<typename M::Algebra>;
      { m.has_loads() } -> std::convertible_to<bool>;
      { m.has_damping() } -> std::convertible_to<bool>;
      { m.damping_force(j, x) } -> std::convertible_to<typename M::Algebra>;
      { m.damping_matrix(j) } -> std::convertible_to<typename M::Matrix>;
      { m.momentum_scale } -> std::convertible_to<double>;
      m.prescribed_pose;
    };

/// A model with batched sweeps: batch_sweeps() gives them (with their caches) when they apply to it.
template <class M>
concept BatchedFieldModel = LieFieldModel<M> && requires(const M m) {
  typename M::Batch;
  { m.batch_sweeps() } -> std::same_as<std::optional<typename M::Batch>>;
};

/// How the stepper sweeps, chosen once when it is built: `abelian` (explicit node update on a vector space),
/// `lie` (per-node Newton on a Lie group, the generic path), `batched` (the model's vectorised sweeps).
enum class Sweep { abelian, lie, batched };

}  // namespace lievi::field
