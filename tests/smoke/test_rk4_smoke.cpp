// RK4 on a torque-free symmetric body (I1 = I2): Omega_3 is constant and (Omega_1, Omega_2) rotates at the
// analytic rate lambda = (I3 - I1)/I1 * Omega_3 (Landau–Lifshitz §37). Checks the registry and the model.
#include <gtest/gtest.h>

#include <cmath>

#include "lievi/integrators/rigid_body_stepper.hpp"

using namespace lievi;

TEST(Smoke, RK4SymmetricTopMatchesAnalyticPrecession) {
  const double I1 = 2.0, I3 = 1.0, W3 = 0.7, W0 = 0.3;
  const auto body = models::RigidBody::principal({I1, I1, I3}, 0.0);
  models::RigidBodyState x;
  x.M = body.I * models::Vec3(W0, 0.0, W3);
  integrators::RigidBodyMethodOptions o;
  o.method = "rk4";
  auto s = integrators::make_rigid_body_stepper(body, o);
  const double h = 0.01, T = 5.0;
  s->start(x, h);
  for (int k = 0; k < 500; ++k) ASSERT_TRUE(s->step(x, h).converged);
  const double lambda = (I3 - I1) / I1 * W3;
  const models::Vec3 W = body.omega(x.M);
  // RK4 global error ~ C h^4 T: 1e-9 is ample margin at h = 0.01 over T = 5 for |Omega| ~ 1.
  EXPECT_NEAR(W.x(), W0 * std::cos(lambda * T), 1e-9);
  EXPECT_NEAR(W.y(), W0 * std::sin(lambda * T), 1e-9);
  EXPECT_NEAR(W.z(), W3, 1e-12);
}
