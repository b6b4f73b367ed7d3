/// @file tests/kirchhoff/test_kirchhoff_ellipsoid.cpp
/// @brief Kirchhoff::ellipsoid (Lamb's added masses and moments of a solid ellipsoid): Carlson's R_D against
/// Boost.Math, and the added masses against closed forms independent of the code: the sphere, the prolate
/// spheroid, and the thin circular disk.
#include <gtest/gtest.h>

#include <boost/math/special_functions/ellint_rd.hpp>
#include <cmath>
#include <random>

#include "lievi/models/kirchhoff.hpp"

namespace {

using namespace lievi;
using models::Kirchhoff;
constexpr double pi = 3.14159265358979323846;

TEST(KirchhoffEllipsoid, CarlsonRDMatchesBoost) {
  std::mt19937_64 rng(1);
  std::uniform_real_distribution<double> u(-3.0, 3.0);
  for (int i = 0; i < 200; ++i) {
    const double x = std::pow(10.0, u(rng)), y = std::pow(10.0, u(rng)), z = std::pow(10.0, u(rng));
    const double ref = boost::math::ellint_rd(x, y, z);
    // Truncation of the series at spread 1.5e-3 is ~1e-17 relative; rounding of ~10 duplication steps ~1e-15.
    EXPECT_NEAR(models::detail::carlson_rd(x, y, z), ref, 4e-15 * ref) << x << " " << y << " " << z;
  }
}

TEST(KirchhoffEllipsoid, SphereHasHalfTheDisplacedMassAndNoAddedMoment) {
  const double a = 0.7, rho_f = 1000.0;
  const Kirchhoff k = Kirchhoff::ellipsoid(lie::Vec3(a, a, a), 500.0, rho_f, 0.0, 0.0);
  const double m_f = rho_f * 4.0 / 3.0 * pi * a * a * a;
  for (int i = 0; i < 3; ++i) {
    EXPECT_NEAR(k.added_mass(i), 0.5 * m_f, 1e-14 * m_f);  // alpha_0 = 2/3 exactly; R_D to ~1e-15
    EXPECT_EQ(k.added_inertia(i), 0.0);
    EXPECT_NEAR(k.inertia(i), 0.4 * k.mass * a * a, 1e-15 * k.mass);
  }
}

TEST(KirchhoffEllipsoid, ProlateSpheroidMatchesClosedForm) {
  // a > b = c, e^2 = 1 - b^2/a^2, L = ln((1+e)/(1-e)) (Lamb §373):
  //   alpha_0 = 2 (1 - e^2)/e^3 (L/2 - e),   beta_0 = gamma_0 = 1/e^2 - (1 - e^2)/(2 e^3) L.
  const double a = 2.0, b = 0.8, rho_f = 1.3;
  const double e = std::sqrt(1.0 - b * b / (a * a)), L = std::log((1 + e) / (1 - e));
  const double alpha0 = 2.0 * (1 - e * e) / (e * e * e) * (0.5 * L - e);
  const double beta0 = 1.0 / (e * e) - (1 - e * e) / (2 * e * e * e) * L;
  EXPECT_NEAR(alpha0 + 2 * beta0, 2.0, 1e-14);  // the identity alpha_0 + beta_0 + gamma_0 = 2
  const double m_f = rho_f * 4.0 / 3.0 * pi * a * b * b;
  const Kirchhoff k = Kirchhoff::ellipsoid(lie::Vec3(a, b, b), 1.0, rho_f, 0.0, 0.0);
  // Closed form and R_D evaluation agree to rounding (~1e-15 relative, the L and e cancellations ~10x that).
  EXPECT_NEAR(k.added_mass(0), m_f * alpha0 / (2 - alpha0), 1e-13 * m_f);
  EXPECT_NEAR(k.added_mass(1), m_f * beta0 / (2 - beta0), 1e-13 * m_f);
  EXPECT_NEAR(k.added_mass(2), k.added_mass(1), 1e-13 * m_f);
  EXPECT_EQ(k.added_inertia(0), 0.0);  // no added moment about the symmetry axis
  // About a transverse axis: (m_f/5) (a^2 - b^2)^2 (beta_0 - alpha_0) / (2 (b^2 - a^2) + (a^2 + b^2)(alpha_0 - beta_0))
  // for rotation about y (Lamb's formula with (b, c) -> (c, a) = (b, a)).
  const double d = b * b - a * a;
  const double Iy = m_f / 5.0 * d * d * (alpha0 - beta0) / (2 * d + (a * a + b * b) * (beta0 - alpha0));
  EXPECT_NEAR(k.added_inertia(1), Iy, 1e-13 * m_f * a * a);
  EXPECT_GT(k.added_inertia(1), 0.0);
}

TEST(KirchhoffEllipsoid, ThinDiskLimit) {
  // A circular disk of radius a (c -> 0): added mass broadside (8/3) rho a^3, added moment about a diameter
  // (16/45) rho a^5, none edgewise (classical results, e.g. Lamb §§102, 373). With c = 1e-6 a the ellipsoid
  // differs from the disk by O(c/a) relative: tolerance 1e-5.
  const double a = 1.5, rho = 1000.0;
  const Kirchhoff k = Kirchhoff::ellipsoid(lie::Vec3(a, a, 1e-6 * a), 0.0, rho, 0.0, 0.0);
  EXPECT_NEAR(k.added_mass(2), 8.0 / 3.0 * rho * a * a * a, 1e-5 * rho * a * a * a);
  EXPECT_NEAR(k.added_inertia(0), 16.0 / 45.0 * rho * std::pow(a, 5), 1e-5 * rho * std::pow(a, 5));
  EXPECT_NEAR(k.added_inertia(1), 16.0 / 45.0 * rho * std::pow(a, 5), 1e-5 * rho * std::pow(a, 5));
  EXPECT_LT(k.added_mass(0), 1e-5 * rho * a * a * a);
}

}  // namespace
