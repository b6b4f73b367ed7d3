/// The typed rigid-body configuration (lievi/config/rigid_body.hpp): a config built in C++ is checked by the
/// same rules as a scenario file, and a scenario read from a file is a valid config that runs as the file does.
#include <gtest/gtest.h>

#include <Eigen/Geometry>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "lievi/config/rigid_body.hpp"
#include "lievi/integrators/rigid_body_stepper.hpp"
#include "lievi/core/error.hpp"
#include "lievi/io/scenario.hpp"
#include "lievi/run/rigid_body_run.hpp"

namespace {

using lievi::config::RigidBodyConfig;
using lievi::config::RigidBodyMethod;

RigidBodyConfig valid() {
  RigidBodyConfig c;
  c.inertia = lievi::models::Vec3(1.0, 1.3, 0.5).asDiagonal();
  c.alpha = 0.5;
  c.K = c.alpha * lievi::models::Mat3::Identity();
  c.omega0 = lievi::models::Vec3(0.0, 0.05, 1.0);
  c.M0 = c.inertia * c.omega0;
  c.dt = 0.1;
  c.t_end = 1.0;
  c.steps = 10;
  return c;
}

/// The issue on `key` of `c`, or "" when there is none.
std::string problem_on(const RigidBodyConfig& c, const std::string& key) {
  for (const auto& i : lievi::config::problems(c))
    if (i.key == key) return i.message;
  return "";
}

TEST(RigidBodyConfig, ValidConfigHasNoProblem) {
  EXPECT_TRUE(lievi::config::problems(valid()).empty());
  EXPECT_NO_THROW(lievi::config::validate(valid()));
}

TEST(RigidBodyConfig, InvalidValuesAreNamedWithWhatIsAllowed) {
  RigidBodyConfig c = valid();
  c.alpha = -1.0;
  EXPECT_EQ(problem_on(c, "model.alpha"), "value -1 must be >= 0");
  c = valid();
  c.method = static_cast<RigidBodyMethod>(42);  // an enumeration value that names no method
  EXPECT_NE(problem_on(c, "integrator.method").find("value 42 is not a registered method; allowed: ddb, rk4"),
            std::string::npos);
  c = valid();
  c.every = 0;
  EXPECT_EQ(problem_on(c, "output.every"), "value 0 must be >= 1");
  c = valid();
  c.rtol = 0.0;
  EXPECT_EQ(problem_on(c, "integrator.rtol"), "value 0 must be > 0");
  c = valid();
  c.inertia(0, 0) = -1.0;
  EXPECT_EQ(problem_on(c, "model.inertia"), "value [-1.0, 1.3, 0.5] must have 3 principal moments > 0");
  c = valid();
  c.inertia(0, 1) = 0.2;  // a full tensor given without saying so would be printed as its diagonal
  EXPECT_NE(problem_on(c, "model.inertia").find("is not diagonal"), std::string::npos);
  c.inertia_is_matrix = true;
  EXPECT_NE(problem_on(c, "model.inertia").find("is not symmetric"), std::string::npos);
  c = valid();
  c.metric_given = true;
  c.K = lievi::models::Mat3::Identity();
  c.K(2, 2) = -1.0;
  EXPECT_NE(problem_on(c, "model.K").find("is not positive semi-definite (smallest eigenvalue -1)"),
            std::string::npos);
  c = valid();
  c.steps = 9;  // t_end = 1 is not 9 steps of 0.1
  EXPECT_NE(problem_on(c, "integrator.t_end").find("is not steps * dt"), std::string::npos);
  c = valid();
  c.dt = 0.0;
  EXPECT_EQ(problem_on(c, "integrator.dt"), "value 0 must be > 0");
}

TEST(RigidBodyConfig, ValidateThrowsEveryProblemAtOnce) {
  RigidBodyConfig c = valid();
  c.alpha = -1.0;
  c.every = 0;
  try {
    lievi::config::validate(c);
    FAIL() << "an invalid config was accepted";
  } catch (const lievi::invalid_argument& e) {
    ASSERT_EQ(e.issues().size(), 2u);
    EXPECT_EQ(e.issues()[0].key, "model.alpha");
    EXPECT_EQ(e.issues()[1].key, "output.every");
    EXPECT_TRUE(e.issues()[0].file.empty());  // a C++ config names the field, not a file
  }
}

/// Every rigid-body example read from its file is a valid config, and stepping the config built by hand
/// from the same numbers gives the same bits as stepping the one read from the file.
TEST(RigidBodyConfig, ExamplesAreValidConfigsAndStepAlike) {
  int seen = 0;
  for (const auto& e : std::filesystem::directory_iterator(std::string(LIEVI_TEST_SOURCE_DIR) + "/examples/rigid_body")) {
    if (e.path().extension() != ".toml") continue;
    const lievi::io::RigidBodyScenario s = lievi::io::load_scenario(e.path());
    const RigidBodyConfig& from_file = s;
    EXPECT_TRUE(lievi::config::problems(from_file).empty()) << e.path();
    RigidBodyConfig by_hand;
    by_hand.inertia = s.inertia;
    by_hand.inertia_is_matrix = s.inertia_is_matrix;
    by_hand.K = s.K;
    by_hand.metric_given = true;
    by_hand.M0 = s.M0;
    by_hand.method = s.method;
    by_hand.retraction = s.retraction;
    by_hand.dt = s.dt;
    by_hand.t_end = s.t_end;
    by_hand.steps = s.steps;
    EXPECT_TRUE(lievi::config::problems(by_hand).empty()) << e.path();
    auto a = lievi::integrators::make_rigid_body_stepper(from_file.model(), from_file.method_options());
    auto b = lievi::integrators::make_rigid_body_stepper(by_hand.model(), by_hand.method_options());
    auto xa = from_file.initial_state(), xb = by_hand.initial_state();
    a->start(xa, s.dt);
    b->start(xb, s.dt);
    for (int k = 0; k < 20; ++k) {
      (void)a->step(xa, s.dt);
      (void)b->step(xb, s.dt);
    }
    EXPECT_EQ(xa.M, xb.M) << e.path();
    EXPECT_EQ(xa.R, xb.R) << e.path();
    ++seen;
  }
  EXPECT_GE(seen, 3);
}

}  // namespace

// initial.attitude (R_0): the equations of M do not involve R, and R' = R hat(Omega) is left-invariant, so a
// run from R_0 is the run from Id turned by R_0: the same M to the bit and R_k = R_0 R_k^Id to round-off.
TEST(RigidBodyConfig, InitialAttitudeTurnsTheRunFromIdentity) {
  const std::string base =
      "[model]\ntype = \"rigid_body\"\ninertia = [1.0, 1.3, 0.5]\nalpha = 0.2\n[initial]\nomega = [0.3, 0.05, 1.0]\n"
      "[integrator]\ndt = 0.05\nt_end = 2.0\n";
  // q = (cos 1, sin 1 n), n = (1, 2, 2)/3: the turn by 2 rad about n; the file gives -q (the same rotation)
  const double a = 1.0, c = std::cos(a), s = std::sin(a);
  char q_text[160];
  std::snprintf(q_text, sizeof q_text, "[%.17g, %.17g, %.17g, %.17g]", -c, -s / 3.0, -2.0 * s / 3.0, -2.0 * s / 3.0);
  const Eigen::Quaterniond q(c, s / 3.0, 2.0 * s / 3.0, 2.0 * s / 3.0);
  for (const char* method : {"ddb", "rk4", "moser-veselov"}) {
    const std::vector<std::string> set = {std::string("integrator.method=") + method};
    const auto id = lievi::io::parse_scenario(base, "a.toml", "a", set);
    auto turned_set = set;
    turned_set.push_back(std::string("initial.attitude=") + q_text);  // -q: the same rotation
    const auto turned = lievi::io::parse_scenario(base, "a.toml", "a", turned_set);
    EXPECT_GE(turned.attitude[0], 0.0);  // stored with qw >= 0
    const auto r_id = lievi::run::integrate_rigid_body(id, {});
    const auto r_turned = lievi::run::integrate_rigid_body(turned, {});
    ASSERT_TRUE(r_id.complete && r_turned.complete) << method;
    EXPECT_EQ(r_turned.final_state.M, r_id.final_state.M) << method;
    const lievi::models::Mat3 expected = q.toRotationMatrix() * r_id.final_state.R;
    EXPECT_LT((r_turned.final_state.R - expected).cwiseAbs().maxCoeff(), 1e-14) << method;
    EXPECT_GT((r_turned.final_state.R - r_id.final_state.R).cwiseAbs().maxCoeff(), 0.1) << method;
  }
}

TEST(RigidBodyConfig, InitialAttitudeMustBeAUnitQuaternion) {
  const std::string base =
      "[model]\ntype = \"rigid_body\"\ninertia = [1.0, 1.3, 0.5]\n[initial]\nomega = [0.3, 0.05, 1.0]\n"
      "[integrator]\nmethod = \"ddb\"\ndt = 0.05\nt_end = 1.0\n";
  const auto refusal = [&](const std::string& value) {
    try {
      (void)lievi::io::parse_scenario(base, "a.toml", "a", {"initial.attitude=" + value});
    } catch (const lievi::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_NE(refusal("[1.0, 0.0, 0.0, 0.1]").find("initial.attitude': value [1.0, 0.0, 0.0, 0.1] has norm 1.0049875"),
            std::string::npos)
      << refusal("[1.0, 0.0, 0.0, 0.1]");
  EXPECT_NE(refusal("[1.0, 0.0, 0.0]").find("has 3 numbers; expected 4 (qw, qx, qy, qz)"), std::string::npos);
  RigidBodyConfig cfg = valid();
  cfg.attitude = {0.0, 0.0, 0.0, 0.0};
  EXPECT_NE(problem_on(cfg, "initial.attitude").find("has norm 0; expected a unit quaternion"), std::string::npos);
}
