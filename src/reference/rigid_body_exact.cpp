/// @file src/reference/rigid_body_exact.cpp
/// @brief The Landau–Lifshitz closed form of the torque-free rigid body (see the header for the formulas).
#include "lievi/reference/rigid_body_exact.hpp"

#include <algorithm>
#include <boost/math/special_functions/ellint_1.hpp>
#include <boost/math/special_functions/jacobi_elliptic.hpp>
#include <cmath>

#include "lievi/core/error.hpp"

namespace lievi::reference {
namespace {

/// +1 for an even permutation (a, m, p) of (0, 1, 2), -1 for an odd one.
int parity(int a, int m, int p) { return ((m - a + 3) % 3 == 1 && (p - m + 3) % 3 == 1) ? 1 : -1; }

}  // namespace

TorqueFreeExact::TorqueFreeExact(const models::RigidBody& model, const models::Vec3& M0) {
  if (!model.diagonal_inertia)
    throw invalid_argument("", "model.inertia", "the closed-form reference needs principal (diagonal) inertia");
  if (model.K.cwiseAbs().maxCoeff() != 0.0)
    throw invalid_argument("", "model.alpha", "the closed-form reference is the torque-free body: needs alpha = 0");
  for (int i = 0; i < 3; ++i) I_[i] = model.I(i, i);
  M0_ = M0.cast<long double>();

  const long double M2 = M0_.squaredNorm();
  long double twoE = 0;
  for (int i = 0; i < 3; ++i) twoE += M0_(i) * M0_(i) / I_[i];

  std::array<int, 3> idx{0, 1, 2};
  std::sort(idx.begin(), idx.end(), [&](int x, int y) { return I_[x] < I_[y]; });
  const int lo = idx[0], mid = idx[1], hi = idx[2];
  if (I_[lo] == I_[hi] || M2 == 0) {  // spherical body or rest: M constant
    kind_ = Kind::steady;
    return;
  }
  if (I_[lo] == I_[mid] || I_[mid] == I_[hi]) {
    // Symmetric top: p is the distinct axis, (a, m) the equal pair.
    kind_ = Kind::symmetric;
    p_ = (I_[lo] == I_[mid]) ? hi : lo;
    a_ = (p_ + 1) % 3;
    m_ = (p_ + 2) % 3;
    return;
  }
  kind_ = Kind::elliptic;
  p_ = (M2 > twoE * I_[mid]) ? hi : lo;
  a_ = (p_ == hi) ? lo : hi;
  m_ = mid;
  const long double Ia = I_[a_], Im = I_[m_], Ip = I_[p_];
  A_a_ = std::sqrt(std::max(0.0L, (twoE * Ip - M2) / (Ia * (Ip - Ia))));
  A_m_ = std::sqrt(std::max(0.0L, (twoE * Ip - M2) / (Im * (Ip - Im))));
  A_p_ = std::sqrt(std::max(0.0L, (M2 - twoE * Ia) / (Ip * (Ip - Ia))));
  const long double k2 = (Im - Ia) * (twoE * Ip - M2) / ((Ip - Im) * (M2 - twoE * Ia));
  k_ = std::sqrt(std::clamp(k2, 0.0L, 1.0L));
  const long double sgn = (Ip > Ia) ? 1.0L : -1.0L;
  lambda_ = parity(a_, m_, p_) * sgn * std::sqrt((Ip - Im) * (M2 - twoE * Ia) / (Ia * Im * Ip));
  const long double Om_a = M0_(a_) / Ia, Om_m = M0_(m_) / Im, Om_p = M0_(p_) / Ip;
  sigma_ = (Om_p < 0) ? -1.0L : 1.0L;
  if (A_a_ == 0 || A_m_ == 0) {  // steady rotation about the polar axis
    kind_ = Kind::steady;
    return;
  }
  const long double am0 = std::atan2(sigma_ * Om_m / A_m_, Om_a / A_a_);
  u0_ = boost::math::ellint_1(k_, am0);
}

Vec3L TorqueFreeExact::M_ld(double t) const {
  const long double tl = t;
  switch (kind_) {
    case Kind::steady:
      return M0_;
    case Kind::symmetric: {
      // I_a = I_m = I_e: Omega_p const; d/dt (Omega_a, Omega_m) = nu (-Omega_m, Omega_a) in the cyclic
      // frame with nu = (I_p - I_e) Omega_p / I_e (from I_e dOmega_a/dt = (I_e - I_p) Omega_m Omega_p).
      const long double Ie = I_[a_], Ip = I_[p_];
      const long double nu = (Ip - Ie) * (M0_(p_) / Ip) / Ie * parity(a_, m_, p_);
      const long double c = std::cos(nu * tl), s = std::sin(nu * tl);
      Vec3L M;
      M(p_) = M0_(p_);
      M(a_) = c * M0_(a_) - s * M0_(m_);
      M(m_) = s * M0_(a_) + c * M0_(m_);
      return M;
    }
    case Kind::elliptic: {
      const long double u = u0_ + lambda_ * tl;
      long double cn = 0, dn = 0;
      const long double sn = boost::math::jacobi_elliptic(k_, u, &cn, &dn);
      Vec3L M;
      M(a_) = I_[a_] * A_a_ * cn;
      M(m_) = I_[m_] * sigma_ * A_m_ * sn;
      M(p_) = I_[p_] * sigma_ * A_p_ * dn;
      return M;
    }
  }
  return M0_;
}

models::Vec3 TorqueFreeExact::M(double t) const { return M_ld(t).cast<double>(); }

}  // namespace lievi::reference
