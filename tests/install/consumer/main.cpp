// A downstream program built against the *installed* lievi: one RK4 run of a torque-free symmetric top,
// checked against the analytic invariant Omega_3 = const (so a broken install or link fails loudly).
#include <cmath>
#include <cstdio>
#include <lievi/integrators/rigid_body_stepper.hpp>
#include <lievi/version.hpp>

int main() {
  const auto body = lievi::models::RigidBody::principal({2.0, 2.0, 1.0}, 0.0);
  lievi::models::RigidBodyState x;
  x.M = body.I * lievi::models::Vec3(0.3, 0.0, 0.7);
  lievi::integrators::RigidBodyMethodOptions o;
  o.method = "rk4";
  auto s = lievi::integrators::make_rigid_body_stepper(body, o);
  s->start(x, 0.01);
  for (int k = 0; k < 100; ++k) s->step(x, 0.01);
  const double w3 = body.omega(x.M).z();
  std::printf("lievi %s consumer: Omega_3 = %.15f\n", lievi::version, w3);
  return std::abs(w3 - 0.7) < 1e-12 ? 0 : 1;  // Omega_3 is conserved exactly by the flow; RK4 keeps it to ~1e-15
}
