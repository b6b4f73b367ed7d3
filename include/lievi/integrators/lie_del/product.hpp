#pragma once
/// @file lievi/integrators/lie_del/product.hpp
/// @brief The direct product G × R^n as a lie::LieGroup, and the product of a retraction on G with the identity
/// chart of R^n, so that LieDel steps systems on G × R^n (a rigid body with extra Euclidean coordinates).
///
/// Conventions (docs/theory/lie-group-del.md "Products with R^n"): g = (h, x), algebra coordinates
/// xi = (xi_G, u) with xi_G first; (h1, x1)(h2, x2) = (h1 h2, x1 + x2); the embedding is block diagonal,
/// diag(h.matrix(), [[I, x], [0, 1]]) (size E + n + 1, E the size of G's embedding), and hat(xi) is block diagonal
/// the same way. ad, Ad and the retraction's tangents are block diagonal with the R^n blocks 0, I and I. A user V
/// reads h from the top-left E × E block and x from column E + n, rows E .. E + n - 1 (`group_block`,
/// `translation_block`). `act` acts on G's points only.
#include <Eigen/Core>

#include "lievi/integrators/lie_del/lie_del.hpp"
#include "lievi/lie/concepts.hpp"

namespace lievi::integrators::lie_del {

template <lie::LieGroup G, int n>
class ProductRn {
  static_assert(n >= 1, "ProductRn<G, n> needs n >= 1");
  static constexpr int EG = G::Embedding::RowsAtCompileTime;

 public:
  static constexpr int dof = G::dof + n;
  static constexpr int embedding_size = EG + n + 1;
  using Algebra = Eigen::Matrix<double, dof, 1>;
  using Matrix = Eigen::Matrix<double, dof, dof>;
  using Embedding = Eigen::Matrix<double, embedding_size, embedding_size>;
  using Point = typename G::Point;
  using Translation = Eigen::Matrix<double, n, 1>;
  using GroupPart = G;

  ProductRn() : h_(G::identity()), x_(Translation::Zero()) {}
  ProductRn(const G& h, const Translation& x) : h_(h), x_(x) {}

  static ProductRn identity() { return ProductRn(); }
  [[nodiscard]] const G& group() const { return h_; }
  [[nodiscard]] const Translation& translation() const { return x_; }

  /// (h1, x1)(h2, x2) = (h1 h2, x1 + x2).
  ProductRn operator*(const ProductRn& o) const { return ProductRn(h_ * o.h_, Translation(x_ + o.x_)); }
  [[nodiscard]] ProductRn inverse() const { return ProductRn(h_.inverse(), Translation(-x_)); }
  [[nodiscard]] Point act(const Point& p) const { return h_.act(p); }
  /// Ad = diag(Ad_h, I).
  [[nodiscard]] Matrix Ad() const {
    Matrix A = Matrix::Identity();
    A.template topLeftCorner<G::dof, G::dof>() = h_.Ad();
    return A;
  }
  /// diag(h.matrix(), [[I, x], [0, 1]]).
  [[nodiscard]] Embedding matrix() const {
    Embedding T = Embedding::Identity();
    T.template topLeftCorner<EG, EG>() = h_.matrix();
    T.template block<n, 1>(EG, EG + n) = x_;
    return T;
  }

  static Embedding hat(const Algebra& xi) {
    Embedding X = Embedding::Zero();
    X.template topLeftCorner<EG, EG>() = G::hat(xi.template head<G::dof>());
    X.template block<n, 1>(EG, EG + n) = xi.template tail<n>();
    return X;
  }
  static Algebra vee(const Embedding& X) {
    Algebra xi;
    xi.template head<G::dof>() = G::vee(typename G::Embedding(X.template topLeftCorner<EG, EG>()));
    xi.template tail<n>() = X.template block<n, 1>(EG, EG + n);
    return xi;
  }
  /// ad = diag(ad_G, 0).
  static Matrix ad(const Algebra& xi) {
    Matrix A = Matrix::Zero();
    A.template topLeftCorner<G::dof, G::dof>() = G::ad(xi.template head<G::dof>());
    return A;
  }
  static Algebra ad_star(const Algebra& xi, const Algebra& mu) {
    Algebra r = Algebra::Zero();
    r.template head<G::dof>() = G::ad_star(xi.template head<G::dof>(), mu.template head<G::dof>());
    return r;
  }

  /// The G block of an embedding matrix at any scalar (for user potentials).
  template <class Mat>
  static auto group_block(const Mat& T) {
    return T.template topLeftCorner<EG, EG>();
  }
  /// The R^n translation of an embedding matrix at any scalar.
  template <class Mat>
  static auto translation_block(const Mat& T) {
    return T.template block<n, 1>(EG, EG + n);
  }

 private:
  G h_;
  Translation x_;
};

/// The product retraction tau(xi_G, u) = (RG::tau(xi_G), u): tangents block diagonal with identity R^n blocks.
template <class RG, int n>
struct ProductRetraction {
  using G = typename RG::Group;
  using Group = ProductRn<G, n>;
  using Algebra = typename Group::Algebra;
  using Matrix = typename Group::Matrix;
  static constexpr const char* id = RG::id;

  static Group tau(const Algebra& x) {
    return Group(RG::tau(x.template head<G::dof>()), typename Group::Translation(x.template tail<n>()));
  }
  static Algebra tau_inv(const Group& g) {
    Algebra x;
    x.template head<G::dof>() = RG::tau_inv(g.group());
    x.template tail<n>() = g.translation();
    return x;
  }
  static Matrix dtau(const Algebra& x) { return diag(RG::dtau(x.template head<G::dof>())); }
  static Matrix dtau_inv(const Algebra& x) { return diag(RG::dtau_inv(x.template head<G::dof>())); }
  static Matrix dtau_star(const Algebra& x) { return diag(RG::dtau_star(x.template head<G::dof>())); }
  static Matrix dtau_inv_star(const Algebra& x) { return diag(RG::dtau_inv_star(x.template head<G::dof>())); }
  /// J_x[(dtau_x^{-1})^* mu] = diag(J of G's retraction at (x_G, mu_G), 0).
  static Matrix J_dtau_inv_star_x(const Algebra& x, const Algebra& mu) {
    Matrix J = Matrix::Zero();
    J.template topLeftCorner<G::dof, G::dof>() =
        lie_del::J_dtau_inv_star_x<G, RG>(x.template head<G::dof>(), mu.template head<G::dof>());
    return J;
  }

 private:
  static Matrix diag(const typename G::Matrix& A) {
    Matrix D = Matrix::Identity();
    D.template topLeftCorner<G::dof, G::dof>() = A;
    return D;
  }
};

}  // namespace lievi::integrators::lie_del
