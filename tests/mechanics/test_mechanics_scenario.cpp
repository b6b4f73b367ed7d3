// The lagrangian scenario (model.type = "lagrangian"): dispatch, defaults, every issue of a file reported
// together with file, key and value, ignored keys, the schema.
#include <gtest/gtest.h>

#include <string>
#include <variant>
#include <vector>

#include "lievi/io/any_scenario.hpp"
#include "lievi/core/error.hpp"
#include "lievi/io/wave_scenario.hpp"

namespace {

using lievi::InputIssue;
using lievi::io::MechanicsScenario;

const std::string kPendulum =
    "[model]\ntype = \"lagrangian\"\nsystem = \"pendulum\"\n[initial]\nq = [1.0]\n"
    "[integrator]\ndt = 0.01\nt_end = 1.0\n";

std::vector<InputIssue> issues_of(const std::string& text, const std::vector<std::string>& sets = {}) {
  try {
    (void)lievi::io::parse_any_scenario(text, "a.toml", "a", sets);
  } catch (const lievi::invalid_argument& e) {
    return e.issues();
  }
  return {};
}

const InputIssue* find(const std::vector<InputIssue>& v, const std::string& key) {
  for (const auto& i : v)
    if (i.key == key) return &i;
  return nullptr;
}

}  // namespace

TEST(MechanicsScenario, DispatchAndDefaults) {
  const auto any = lievi::io::parse_any_scenario(kPendulum, "a.toml", "a");
  ASSERT_TRUE(std::holds_alternative<MechanicsScenario>(any));
  const auto& s = std::get<MechanicsScenario>(any);
  EXPECT_STREQ(lievi::config::id(s.system), "pendulum");
  EXPECT_EQ(s.dim(), 1);
  EXPECT_STREQ(lievi::config::id(s.method), "midpoint");
  EXPECT_EQ(s.steps, 100);
  EXPECT_DOUBLE_EQ(s.gravity, 9.81);
  EXPECT_EQ(s.qdot0, std::vector<double>{0.0});
  EXPECT_TRUE(lievi::io::ignored_key_notes(s).empty());
  const auto types = lievi::io::model_types();
  EXPECT_NE(std::find(types.begin(), types.end(), "lagrangian"), types.end());
  EXPECT_FALSE(lievi::io::schema_markdown("lagrangian").empty());
}

TEST(MechanicsScenario, EveryIssueNamesKeyAndValue) {
  const std::string bad =
      "[model]\ntype = \"lagrangian\"\nsystem = \"kepler\"\nmu = -1\nbogus = 3\n[initial]\nq = [1.0, 0.0, 2.0]\n"
      "[integrator]\nmethod = \"euler\"\ndt = 0\nt_end = 1.0\n";
  const auto is = issues_of(bad);
  ASSERT_GE(is.size(), 5u);
  for (const auto& i : is) EXPECT_EQ(i.file, "a.toml") << i.format();
  ASSERT_TRUE(find(is, "model.mu"));
  EXPECT_NE(find(is, "model.mu")->message.find("-1"), std::string::npos);
  ASSERT_TRUE(find(is, "model.bogus"));
  EXPECT_NE(find(is, "model.bogus")->message.find("unknown key"), std::string::npos);
  ASSERT_TRUE(find(is, "initial.q"));
  EXPECT_NE(find(is, "initial.q")->message.find("[1.0, 0.0, 2.0]"), std::string::npos) << find(is, "initial.q")->message;
  EXPECT_NE(find(is, "initial.q")->message.find("expected 2"), std::string::npos);
  ASSERT_TRUE(find(is, "integrator.method"));
  EXPECT_NE(find(is, "integrator.method")->message.find("\"euler\""), std::string::npos);
  ASSERT_TRUE(find(is, "integrator.dt"));
  EXPECT_NE(find(is, "integrator.dt")->message.find("0"), std::string::npos);
}

TEST(MechanicsScenario, SystemAndConstraints) {
  const auto bad_system = issues_of(kPendulum, {"model.system=pendulumx"});
  ASSERT_TRUE(find(bad_system, "model.system"));
  EXPECT_NE(find(bad_system, "model.system")->message.find("\"pendulumx\""), std::string::npos);
  EXPECT_EQ(find(bad_system, "model.system")->file, "--set");
  const std::string sph =
      "[model]\ntype = \"lagrangian\"\nsystem = \"spherical_pendulum\"\n[initial]\nq = [0.0, 0.0, -1.0]\n"
      "[integrator]\ndt = 0.01\nt_end = 1.0\n";
  for (const char* m : {"lobatto-iiia-iiib", "rk4"}) {
    const auto is = issues_of(sph, {std::string("integrator.method=") + m});
    ASSERT_TRUE(find(is, "integrator.method")) << m;
    EXPECT_NE(find(is, "integrator.method")->message.find("constrained"), std::string::npos);
    EXPECT_NE(find(is, "integrator.method")->message.find(m), std::string::npos);
  }
  EXPECT_NE(find(issues_of(sph, {"integrator.constraints=lagrange"}), "integrator.constraints"), nullptr);
  EXPECT_NE(find(issues_of(sph, {"initial.q=[0,0,0]"}), "initial.q"), nullptr);
}

TEST(MechanicsScenario, IgnoredKeysAreNoted) {
  const auto s = std::get<MechanicsScenario>(lievi::io::parse_any_scenario(
      kPendulum, "a.toml", "a", {"model.mu=2", "integrator.method=rk4", "integrator.newton_tol=1e-10",
                                 "integrator.constraints=shake"}));
  const auto notes = lievi::io::ignored_key_notes(s);
  ASSERT_EQ(notes.size(), 3u);
  EXPECT_NE(notes[0].find("model.mu' is ignored by system pendulum"), std::string::npos) << notes[0];
  const std::string toml = lievi::io::to_toml(s);
  EXPECT_NE(toml.find("ignored by method rk4"), std::string::npos) << toml;
  // the printout loads again to the same scenario
  const auto again = std::get<MechanicsScenario>(lievi::io::parse_any_scenario(toml, "b.toml", "a"));
  EXPECT_STREQ(lievi::config::id(again.method), "rk4");
  EXPECT_EQ(again.steps, s.steps);
}
