#pragma once
/// @file lievi/models/kirchhoff.hpp
/// @brief Lie–Poisson systems with a quadratic Hamiltonian and double-bracket dissipation on any matrix Lie
/// group (`QuadraticLiePoisson<G>`), and Kirchhoff's rigid body in an ideal fluid on se(3)* (`Kirchhoff`)
/// (docs/theory/ddb.md "DDB on se(3)*: Kirchhoff's body").
///
/// Conventions (docs/conventions.md, lie/concepts.hpp): pairing <mu, xi> = mu · xi on R^dof, ad*_xi = ad_xi^T,
/// Ad*_g = Ad_g^T. On se(3): xi = (Omega, V) (angular velocity, velocity, body frame), mu = (Pi, P) (impulse
/// moment, impulse force), ad*_xi mu = (Pi × Omega + P × V, P × Omega).
///
///   H(mu) = ½ mu · A^{-1} mu,   xi = dH/dmu = A^{-1} mu,
///   phi(xi) = K ad*_xi (A xi)                         (Bloch–Krishnaprasad–Marsden–Ratiu double bracket;
///                                                      the DDB paper's eq. (3.5) with k^# = K),
///   dmu/dt = ad*_{xi + phi(xi)} mu.
/// Casimirs are conserved; dH/dt = -(ad*_xi mu) · K (ad*_xi mu) <= 0. On so(3)* with A = I this is the rigid
/// body of models/rigid_body.hpp (phi = K ((I xi) × xi)). On se(3)*, with A the locked inertia of a body in an
/// ideal fluid, it is Kirchhoff's equations
///   dPi/dt = Pi × Omega + P × V + (dissipation),   dP/dt = P × Omega + (dissipation),
/// with the Casimirs |P|^2 and P · Pi.
#include <Eigen/Core>
#include <Eigen/LU>
#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "lievi/lie/se3.hpp"
#include "lievi/lie/so3.hpp"

namespace lievi::models {

/// A quadratic Lie–Poisson Hamiltonian H = ½ mu · A^{-1} mu on g* with the double-bracket dissipation metric K.
/// Immutable parameters; build with `make`.
template <class G>
struct QuadraticLiePoisson {
  using Group = G;
  using Vec = typename G::Algebra;
  using Mat = typename G::Matrix;

  Mat A;      ///< locked inertia (symmetric positive definite): mu = A xi
  Mat A_inv;  ///< its inverse
  Mat K;      ///< dissipation metric k^# (symmetric positive semi-definite), alpha Id in the paper

  /// A symmetric positive definite, K symmetric positive semi-definite (validated by the caller).
  static QuadraticLiePoisson make(const Mat& inertia, const Mat& metric) {
    QuadraticLiePoisson q;
    q.A = inertia;
    q.A_inv = inertia.inverse();
    q.K = metric;
    return q;
  }

  /// xi = dH/dmu = A^{-1} mu.
  [[nodiscard]] Vec xi(const Vec& mu) const { return A_inv * mu; }
  /// H = ½ mu · A^{-1} mu.
  [[nodiscard]] double energy(const Vec& mu) const { return 0.5 * mu.dot(A_inv * mu); }
  /// phi(xi) = K ad*_xi (A xi)  (DDB paper eq. (3.5); on so(3): K ((I xi) × xi)).
  [[nodiscard]] Vec phi(const Vec& xi) const { return K * G::ad_star(xi, A * xi); }
  /// dH/dt = -(ad*_xi mu) · K (ad*_xi mu) at mu, xi = A^{-1} mu (Proposition 3.3 with eq. (3.5)).
  [[nodiscard]] double energy_rate(const Vec& mu) const {
    const Vec s = G::ad_star(xi(mu), mu);
    return -s.dot(K * s);
  }
  /// The continuous vector field dmu/dt = ad*_{xi + phi(xi)} mu, xi = A^{-1} mu (DDB paper eq. (3.4)).
  [[nodiscard]] Vec field(const Vec& mu) const {
    const Vec x = xi(mu);
    return G::ad_star(x + phi(x), mu);
  }
};

/// State of a run on a group G: the body momentum mu in g* and the configuration g (body to spatial).
template <class G>
struct LiePoissonState {
  typename G::Algebra mu = G::Algebra::Zero();
  G g = G::identity();
};

/// A point of the minimum-energy set of Kirchhoff's body on one coadjoint orbit (see `Kirchhoff::minimum_energy`).
struct KirchhoffMinimum {
  double energy = 0.0;            ///< min H on the orbit
  lie::Vec6 mu = lie::Vec6::Zero();  ///< one minimiser (the others: sign flips of the components of P, with Pi)
  lie::Vec3 s = lie::Vec3::Zero();   ///< P_i^2 / |P|^2 at the minimiser (the weights on the principal axes)
};

namespace detail {

/// Carlson's symmetric elliptic integral R_D(x, y, z) = (3/2) int_0^inf dt / ((t+x)^{1/2} (t+y)^{1/2} (t+z)^{3/2})
/// (x, y >= 0 not both 0, z > 0) by the duplication theorem, stopped when the relative spread of the arguments is
/// below 1.5e-3 and finished with the fifth-order series (B. C. Carlson, "Numerical computation of real or
/// complex elliptic integrals", Numer. Algorithms 10 (1995), algorithm for R_D; truncation error ~ spread^6).
inline double carlson_rd(double x, double y, double z) {
  constexpr double c1 = 3.0 / 14.0, c2 = 1.0 / 6.0, c3 = 9.0 / 22.0, c4 = 3.0 / 26.0, c5 = 0.25 * c3, c6 = 1.5 * c4;
  double sum = 0.0, fac = 1.0, ave, dx, dy, dz;
  for (;;) {
    const double sx = std::sqrt(x), sy = std::sqrt(y), sz = std::sqrt(z);
    const double lambda = sx * (sy + sz) + sy * sz;
    sum += fac / (sz * (z + lambda));
    fac *= 0.25;
    x = 0.25 * (x + lambda);
    y = 0.25 * (y + lambda);
    z = 0.25 * (z + lambda);
    ave = 0.2 * (x + y + 3.0 * z);
    dx = (ave - x) / ave;
    dy = (ave - y) / ave;
    dz = (ave - z) / ave;
    if (std::max({std::abs(dx), std::abs(dy), std::abs(dz)}) <= 1.5e-3) break;
  }
  const double ea = dx * dy, eb = dz * dz, ec = ea - eb, ed = ea - 6.0 * eb, ee = ed + ec + ec;
  return 3.0 * sum + fac * (1.0 + ed * (-c1 + c5 * ed - c6 * dz * ee) + dz * (c2 * ee + dz * (-c3 * ec + dz * c4 * ea))) /
                         (ave * std::sqrt(ave));
}

}  // namespace detail

/// Kirchhoff's rigid body in an ideal fluid, body frame, principal axes of the locked inertia.
///
/// Locked inertia A = [[J, C^T], [C, D]]: J = diag(I_body + I_added) (rotation), D = diag(m + m_added)
/// (translation), C the rotation–translation coupling (zero for a body with three planes of symmetry, e.g. an
/// ellipsoid). Dissipation metric K = diag(alpha_rot Id_3, alpha_trans Id_3).
struct Kirchhoff {
  lie::Vec3 inertia = lie::Vec3(1.0, 1.0, 1.0);       ///< body moments of inertia I_i (principal axes)
  lie::Vec3 added_inertia = lie::Vec3::Zero();        ///< added moments of inertia of the fluid
  double mass = 1.0;                                  ///< body mass m
  lie::Vec3 added_mass = lie::Vec3::Zero();           ///< added masses along the principal axes
  lie::Mat3 coupling = lie::Mat3::Zero();             ///< C (lower-left block of A), zero by default
  double alpha_rot = 0.0;                             ///< K, rotational block: alpha_rot Id
  double alpha_trans = 0.0;                           ///< K, translational block: alpha_trans Id

  /// A solid ellipsoid with semi-axes (a, b, c) along the body axes, density rho_body, in an ideal fluid of density
  /// rho_fluid (Lamb, Hydrodynamics, 6th ed., §§114, 373): with m_f = rho_fluid (4/3) pi a b c and
  ///   alpha_0 = a b c int_0^inf dl / ((a^2 + l) Delta),  Delta = sqrt((a^2+l)(b^2+l)(c^2+l)),
  /// (= (2/3) a b c R_D(b^2, c^2, a^2), Carlson), beta_0, gamma_0 likewise (alpha_0 + beta_0 + gamma_0 = 2):
  ///   added mass along x:   m_f alpha_0 / (2 - alpha_0),
  ///   added moment about x: (m_f / 5) (b^2 - c^2)^2 (gamma_0 - beta_0) / (2 (b^2 - c^2) + (b^2 + c^2)(beta_0 - gamma_0))
  ///                         (0 when b = c), and cyclically;
  /// body: m = rho_body (4/3) pi a b c, I_x = m (b^2 + c^2) / 5. No coupling (three planes of symmetry).
  static Kirchhoff ellipsoid(const lie::Vec3& semi_axes, double rho_body, double rho_fluid, double alpha_rot,
                             double alpha_trans) {
    const double a = semi_axes(0), b = semi_axes(1), c = semi_axes(2);
    const double volume = 4.0 / 3.0 * 3.14159265358979323846 * a * b * c;
    const lie::Vec3 sq = semi_axes.cwiseProduct(semi_axes);
    lie::Vec3 coef;  // alpha_0, beta_0, gamma_0
    for (int i = 0; i < 3; ++i)
      coef(i) = 2.0 / 3.0 * a * b * c * detail::carlson_rd(sq((i + 1) % 3), sq((i + 2) % 3), sq(i));
    const double m_f = rho_fluid * volume;
    Kirchhoff k;
    k.mass = rho_body * volume;
    for (int i = 0; i < 3; ++i) {
      const int j = (i + 1) % 3, l = (i + 2) % 3;
      k.inertia(i) = k.mass * (sq(j) + sq(l)) / 5.0;
      k.added_mass(i) = m_f * coef(i) / (2.0 - coef(i));
      const double d = sq(j) - sq(l);
      k.added_inertia(i) =
          d == 0.0 ? 0.0 : m_f / 5.0 * d * d * (coef(l) - coef(j)) / (2.0 * d + (sq(j) + sq(l)) * (coef(j) - coef(l)));
    }
    k.alpha_rot = alpha_rot;
    k.alpha_trans = alpha_trans;
    return k;
  }

  /// The locked inertia A = [[J, C^T], [C, D]].
  [[nodiscard]] lie::Mat6 locked_inertia() const {
    lie::Mat6 A = lie::Mat6::Zero();
    A.topLeftCorner<3, 3>() = (inertia + added_inertia).asDiagonal();
    A.bottomRightCorner<3, 3>() = (mass * lie::Vec3::Ones() + added_mass).asDiagonal();
    A.bottomLeftCorner<3, 3>() = coupling;
    A.topRightCorner<3, 3>() = coupling.transpose();
    return A;
  }
  /// K = diag(alpha_rot Id, alpha_trans Id).
  [[nodiscard]] lie::Mat6 metric() const {
    lie::Vec6 k;
    k << alpha_rot, alpha_rot, alpha_rot, alpha_trans, alpha_trans, alpha_trans;
    return k.asDiagonal();
  }
  /// The Lie–Poisson system on se(3)* that the integrators step.
  [[nodiscard]] QuadraticLiePoisson<lie::SE3> system() const {
    return QuadraticLiePoisson<lie::SE3>::make(locked_inertia(), metric());
  }

  /// The Casimirs of se(3)*: C_1 = |P|^2, C_2 = P · Pi  (mu = (Pi, P)).
  [[nodiscard]] static double casimir_P2(const lie::Vec6& mu) { return mu.tail<3>().squaredNorm(); }
  [[nodiscard]] static double casimir_PPi(const lie::Vec6& mu) { return mu.tail<3>().dot(mu.head<3>()); }

  /// The minimum of H on the coadjoint orbit of mu, for a zero coupling block (docs/theory/ddb.md "DDB on se(3)*"):
  /// with J_i, D_i the diagonals of A, p = |P|, c = P · Pi and s_i = P_i^2 / p^2 on the simplex,
  ///   min over Pi with P · Pi = c of ½ Pi · J^{-1} Pi  is  c^2 / (2 P · J P), at Pi = c J P / (P · J P),
  /// so min H = min_s g(s),  g(s) = c^2 / (2 p^2 J·s) + (p^2/2) D^{-1}·s, which is convex on the simplex: its
  /// minimum lies at a vertex (P along a principal axis, Pi ∥ P: steady screw motion along that axis) or at
  /// the stationary point of an edge (P in a principal plane); an interior minimiser exists only when J, D^{-1}
  /// and (1, 1, 1) are linearly dependent, and then g takes the same value on an edge. p = 0: the orbit is the
  /// sphere |Pi| = const, min H = |Pi|^2 / (2 J_max). Requires coupling = 0 (throws std::logic_error otherwise).
  [[nodiscard]] KirchhoffMinimum minimum_energy(const lie::Vec6& mu) const;
};

inline KirchhoffMinimum Kirchhoff::minimum_energy(const lie::Vec6& mu) const {
  if (!coupling.isZero(0.0)) throw std::logic_error("Kirchhoff::minimum_energy: needs a zero coupling block");
  const lie::Vec3 J = inertia + added_inertia;
  const lie::Vec3 Dinv = (mass * lie::Vec3::Ones() + added_mass).cwiseInverse();
  const double p2 = casimir_P2(mu), c = casimir_PPi(mu);
  KirchhoffMinimum best;
  best.energy = std::numeric_limits<double>::infinity();
  if (p2 == 0.0) {
    int j = 0;
    J.maxCoeff(&j);
    const double pi = mu.head<3>().norm();
    best.energy = 0.5 * pi * pi / J(j);
    best.mu(j) = pi;
    best.s(j) = 1.0;
    return best;
  }
  const double a = 0.5 * c * c / p2, b = 0.5 * p2;
  const auto g = [&](const lie::Vec3& s) { return a / J.dot(s) + b * Dinv.dot(s); };
  const auto consider = [&](const lie::Vec3& s) {
    const double e = g(s);
    if (e < best.energy) {
      best.energy = e;
      best.s = s;
    }
  };
  for (int i = 0; i < 3; ++i) consider(lie::Vec3::Unit(i));
  // Edge s = t e_i + (1 - t) e_j: g' = 0 at (J_j + t dJ)^2 = a dJ / (b dD), dJ = J_i - J_j, dD = D_i^{-1} - D_j^{-1}.
  for (int i = 0; i < 3; ++i) {
    for (int j = i + 1; j < 3; ++j) {
      const double dJ = J(i) - J(j), dD = Dinv(i) - Dinv(j);
      if (dJ == 0.0 || dD == 0.0) continue;
      const double q = a * dJ / (b * dD);
      if (!(q > 0.0)) continue;
      const double t = (std::sqrt(q) - J(j)) / dJ;
      if (!(t > 0.0 && t < 1.0)) continue;
      lie::Vec3 s = lie::Vec3::Zero();
      s(i) = t;
      s(j) = 1.0 - t;
      consider(s);
    }
  }
  const double p = std::sqrt(p2);
  const lie::Vec3 P = p * best.s.cwiseSqrt();
  best.mu.tail<3>() = P;
  best.mu.head<3>() = (c / P.dot(J.cwiseProduct(P))) * J.cwiseProduct(P);
  return best;
}

}  // namespace lievi::models
