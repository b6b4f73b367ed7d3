// The lie_group scenario (model.type = "lie_group") read in-process: every example of examples/lie_group is a
// valid config for config::problems; the defaults of a minimal file are the documented ones (the table of
// docs/scenarios.md, checked there against `lievi schema`); the resolved TOML reads back to the same entries; a
// config built in C++ with invalid values is refused by the same checks, each problem naming its key; the rules
// between keys (initial.omega / initial.Pi, moser-veselov only for the free body, del only on SE(3)) hold.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "lievi/config/lie_group.hpp"
#include "lievi/core/error.hpp"
#include "lievi/io/lie_group_scenario.hpp"

namespace {

namespace fs = std::filesystem;
using lievi::InputIssue;
using lievi::io::LieGroupScenario;

std::string on(const std::vector<InputIssue>& issues, const std::string& key) {
  for (const auto& i : issues)
    if (i.key == key) return i.message;
  return "";
}

/// The message of parsing `text` (every issue, one per line), "" when it parses.
std::string parse_error(const std::string& text) {
  try {
    (void)lievi::io::parse_lie_group_scenario(text, "s.toml", "s");
  } catch (const lievi::invalid_argument& e) {
    return e.what();
  }
  return "";
}

const std::string kTop =
    "[model]\ntype = \"lie_group\"\nsystem = \"heavy_top\"\ninertia = [1.0, 1.0, 0.5]\n"
    "[initial]\nomega = [0.0, 0.0, 10.0]\n[integrator]\nmethod = \"del\"\ndt = 0.01\nt_end = 1.0\n";

}  // namespace

TEST(LieGroupScenario, EveryExampleIsAValidConfig) {
  int seen = 0;
  for (const auto& e : fs::directory_iterator(std::string(LIEVI_TEST_SOURCE_DIR) + "/examples/lie_group")) {
    if (e.path().extension() != ".toml") continue;
    const LieGroupScenario s = lievi::io::load_lie_group_scenario(e.path());
    EXPECT_TRUE(lievi::config::problems(s).empty()) << e.path();
    ++seen;
  }
  EXPECT_EQ(seen, 4);
}

TEST(LieGroupScenario, DefaultsAndDerivedMomentum) {
  const LieGroupScenario s = lievi::io::parse_lie_group_scenario(kTop, "s.toml", "s");
  EXPECT_EQ(s.retraction, lievi::config::LieRetraction::cayley);
  EXPECT_EQ(s.mass, 1.0);
  EXPECT_EQ(s.gravity, 9.81);
  EXPECT_EQ(s.chi[2], 1.0);
  EXPECT_EQ(s.attitude[0], 1.0);
  EXPECT_EQ(s.newton_tol, 1e-13);
  EXPECT_EQ(s.max_iterations, 50);
  EXPECT_EQ(s.steps, 100);
  EXPECT_TRUE(s.omega_given);
  EXPECT_EQ(s.Pi0(2), 5.0);  // Pi = I Omega, I3 = 0.5
  // initial.Pi gives Omega = I^-1 Pi
  const LieGroupScenario p = lievi::io::parse_lie_group_scenario(kTop, "s.toml", "s", {"initial.Pi=[1.0, 2.0, 3.0]"});
  EXPECT_FALSE(p.omega_given);
  EXPECT_DOUBLE_EQ(p.omega0(2), 6.0);
  EXPECT_DOUBLE_EQ(p.omega0(0), 1.0);
}

TEST(LieGroupScenario, ResolvedTomlReadsBack) {
  for (const char* system : {"heavy_top", "pendulum_3d", "free_body", "floating_body"}) {
    const LieGroupScenario a =
        lievi::io::parse_lie_group_scenario(kTop, "s.toml", "s", {std::string("model.system=") + system});
    const std::string text = lievi::io::to_toml(a);
    const LieGroupScenario b = lievi::io::parse_lie_group_scenario(text, "resolved.toml", "s");
    const auto ea = lievi::io::resolved_entries(a), eb = lievi::io::resolved_entries(b);
    ASSERT_EQ(ea.size(), eb.size()) << system << "\n" << text;
    for (std::size_t i = 0; i < ea.size(); ++i) {
      EXPECT_EQ(ea[i].key, eb[i].key) << system;
      EXPECT_EQ(ea[i].value, eb[i].value) << system << " " << ea[i].key;
    }
  }
}

TEST(LieGroupScenario, RulesBetweenKeys) {
  EXPECT_EQ(parse_error(kTop), "");
  std::string e = parse_error(
      "[model]\ntype = \"lie_group\"\nsystem = \"heavy_top\"\ninertia = [1.0, 1.0, 0.5]\n[initial]\n"
      "omega = [0.0, 0.0, 1.0]\nPi = [0.0, 0.0, 1.0]\n[integrator]\nmethod = \"moser-veselov\"\ndt = 0.01\nt_end = 1.0\n");
  EXPECT_NE(e.find("key 'initial.Pi': both initial.omega and initial.Pi are given"), std::string::npos) << e;
  EXPECT_NE(e.find("key 'integrator.method': value \"moser-veselov\" is only for system free_body"), std::string::npos)
      << e;
  e = parse_error("[model]\ntype = \"lie_group\"\nsystem = \"floating_body\"\ninertia = [1.0, 1.0, 0.5]\n[initial]\n"
                  "Pi = [0.0, 0.0, 1.0]\n[integrator]\nmethod = \"del-reduced\"\ndt = 0.01\nt_end = 1.0\n");
  EXPECT_NE(e.find("key 'initial.Pi': is not taken by system floating_body"), std::string::npos) << e;
  EXPECT_NE(e.find("value \"del-reduced\" is not available for system floating_body"), std::string::npos) << e;
  e = parse_error("[model]\ntype = \"lie_group\"\nsystem = \"free_body\"\n[initial]\nomega = [1.0, 0.0, 0.0]\n"
                  "[integrator]\nmethod = \"del\"\ndt = 0.01\nt_end = 1.0\n");
  EXPECT_NE(e.find("key 'model.inertia': missing required key"), std::string::npos) << e;
  // keys a system or method does not read are accepted and noted
  const LieGroupScenario n = lievi::io::parse_lie_group_scenario(
      kTop, "s.toml", "s", {"model.system=free_body", "model.mass=2", "initial.position=[1, 2, 3]"});
  const auto notes = lievi::io::ignored_key_notes(n);
  ASSERT_EQ(notes.size(), 2u);
  EXPECT_EQ(notes[0], "key 'model.mass' is ignored by system free_body (no potential)");
  EXPECT_EQ(notes[1], "key 'initial.position' is ignored by system free_body (on SO(3))");
}

TEST(LieGroupScenario, ConfigBuiltInCppIsCheckedLikeAFile) {
  lievi::config::LieGroupConfig c;
  c.dt = 0.01, c.t_end = 1.0, c.steps = 100;
  EXPECT_TRUE(lievi::config::problems(c).empty());
  c.inertia(1, 1) = -1.0;
  c.mass = 0.0;
  c.gravity = -1.0;
  c.attitude = {2.0, 0.0, 0.0, 0.0};
  c.dt = 0.0;
  c.system = lievi::config::LieSystem::floating_body;
  c.method = lievi::config::LieMethod::rk4;
  const auto p = lievi::config::problems(c);
  EXPECT_NE(on(p, "model.inertia").find("principal moments > 0"), std::string::npos) << on(p, "model.inertia");
  EXPECT_NE(on(p, "model.mass").find("must be > 0"), std::string::npos);
  EXPECT_NE(on(p, "model.gravity").find("must be >= 0"), std::string::npos);
  EXPECT_FALSE(on(p, "initial.attitude").empty());
  EXPECT_NE(on(p, "integrator.dt").find("must be > 0"), std::string::npos);
  EXPECT_NE(on(p, "integrator.method").find("floating_body takes del only"), std::string::npos);
  EXPECT_THROW(lievi::config::validate(c), lievi::invalid_argument);
}
