#pragma once
/// @file lievi/lie/concepts.hpp
/// @brief The `LieGroup` and `Retraction` concepts, and the operations derived from them once, generically.
///
/// Conventions (docs/conventions.md):
///  - A group G is a matrix group: `g.matrix()` is its embedding (3x3 for SO(3), 4x4 homogeneous for SE(3) and
///    R^n), `G::hat` maps the algebra coordinates (an Eigen vector of size `G::dof`) into the same matrix space,
///    `G::vee` is its inverse.
///  - `ad_x y = [x, y] = vee(hat(x) hat(y) - hat(y) hat(x))`, `Ad_g y = vee(g hat(y) g^{-1})`.
///  - Pairing `<mu, xi> = mu . xi` (Euclidean on the coordinates), so every dual map is the transpose:
///    `ad*_x = ad_x^T`, `Ad*_g = Ad_g^T`.
///  - Retractions are right-trivialised (docs/theory/ddb.md "Conventions", docs/theory/beam.md "SE(3) formulas"):
///    `d/de tau(x + e y)|_0 = hat(dtau_x y) tau(x)`; `dtau_star = dtau^T`, `dtau_inv_star = (dtau^{-1})^T`.
#include <Eigen/Core>
#include <concepts>

namespace lievi::lie {

/// A matrix Lie group with the minimal API; everything else is derived below.
///
/// Required: `G::Algebra` (= `Eigen::Matrix<double, G::dof, 1>`), `G::Matrix` (dof x dof: ad, Ad, Jacobians),
/// `G::Embedding` (the matrix of the embedding, also the type of `hat(x)`), `G::Point` (what `act` acts on),
/// `identity()`, `g * h`, `g.inverse()`, `g.Ad()`, `g.act(p)`, `g.matrix()`, and static `hat`, `vee`, `ad`,
/// `ad_star(x, mu)` (= ad_x^T mu).
template <class G>
concept LieGroup = requires(const G& g, const G& h, const typename G::Algebra& x, const typename G::Algebra& mu,
                            const typename G::Point& p, const typename G::Embedding& X) {
  typename G::Matrix;
  { G::dof } -> std::convertible_to<int>;
  requires std::same_as<typename G::Algebra, Eigen::Matrix<double, G::dof, 1>>;
  requires std::same_as<typename G::Matrix, Eigen::Matrix<double, G::dof, G::dof>>;
  { G::identity() } -> std::same_as<G>;
  { g * h } -> std::same_as<G>;
  { g.inverse() } -> std::same_as<G>;
  { g.Ad() } -> std::convertible_to<typename G::Matrix>;
  { g.act(p) } -> std::convertible_to<typename G::Point>;
  { g.matrix() } -> std::convertible_to<typename G::Embedding>;
  { G::hat(x) } -> std::convertible_to<typename G::Embedding>;
  { G::vee(X) } -> std::convertible_to<typename G::Algebra>;
  { G::ad(x) } -> std::convertible_to<typename G::Matrix>;
  { G::ad_star(x, mu) } -> std::convertible_to<typename G::Algebra>;
};

/// A retraction tau: g -> G with tau(0) = e, tau(-x) = tau(x)^{-1}, and its right-trivialised tangents.
///
/// Required: `R::Group` naming G (so that Eigen's permissive conversions between vector sizes cannot make a
/// retraction of one group pass for another's), and (all static) `tau(x) -> G`, `tau_inv(g) -> Algebra`,
/// `dtau(x)`, `dtau_inv(x)`, `dtau_star(x)`, `dtau_inv_star(x)` (each a `G::Matrix`), with
/// `T_x tau(y) = hat(dtau_x y) tau(x)` and the duals transposes.
template <class R, class G>
concept Retraction = LieGroup<G> && std::same_as<typename R::Group, G> &&
                     requires(const typename G::Algebra& x, const G& g) {
  { R::tau(x) } -> std::same_as<G>;
  { R::tau_inv(g) } -> std::convertible_to<typename G::Algebra>;
  { R::dtau(x) } -> std::convertible_to<typename G::Matrix>;
  { R::dtau_inv(x) } -> std::convertible_to<typename G::Matrix>;
  { R::dtau_star(x) } -> std::convertible_to<typename G::Matrix>;
  { R::dtau_inv_star(x) } -> std::convertible_to<typename G::Matrix>;
};

// --- operations derived once from the minimal API -----------------------------------------------

/// Relative element `between(a, b) = a^{-1} b` (e.g. `w_k = R_k^T R_{k+1}`, seed 002 Example 4.5).
template <LieGroup G>
G between(const G& a, const G& b) {
  return a.inverse() * b;
}

/// Co-adjoint action `Ad*_g mu = Ad_g^T mu`, the dual of `Ad_g` under `<mu, xi> = mu . xi`:
/// `<Ad*_g mu, xi> = <mu, Ad_g xi>`. (SO3 and SE3 have closed-form overloads of the same name.)
template <LieGroup G>
typename G::Algebra Ad_star(const G& g, const typename G::Algebra& mu) {
  return g.Ad().transpose() * mu;
}

/// Body-to-spatial momentum `Ad*_{g^{-1}} mu = (Ad_g^{-1})^T mu = (Ad_{g^{-1}})^T mu` (docs/theory/beam.md "SE(3) formulas").
template <LieGroup G>
typename G::Algebra Ad_star_inverse(const G& g, const typename G::Algebra& mu) {
  return g.inverse().Ad().transpose() * mu;
}

/// The matrix of `Ad*_g`: `Ad_g^T`.
template <LieGroup G>
typename G::Matrix Ad_star_matrix(const G& g) {
  return g.Ad().transpose();
}

/// The matrix of `ad*_x`: `ad_x^T`.
template <LieGroup G>
typename G::Matrix ad_star_matrix(const typename G::Algebra& x) {
  return G::ad(x).transpose();
}

/// Lie bracket `[x, y] = ad_x y` (= vee of the matrix commutator of hat(x), hat(y)).
template <LieGroup G>
typename G::Algebra bracket(const typename G::Algebra& x, const typename G::Algebra& y) {
  return G::ad(x) * y;
}

}  // namespace lievi::lie
