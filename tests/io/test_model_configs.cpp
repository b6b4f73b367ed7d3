/// The typed configurations of the field and Lagrangian models (lievi/config/{wave,beam,lagrangian}.hpp): a
/// config read from any example file is valid for `problems`, and a config built or changed in C++ with an
/// invalid value is refused by the same checks, each problem naming the key (or member), the value and what
/// is allowed, all problems at once.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <variant>
#include <vector>

#include "lievi/config/beam.hpp"
#include "lievi/config/lagrangian.hpp"
#include "lievi/config/wave.hpp"
#include "lievi/core/error.hpp"
#include "lievi/io/any_scenario.hpp"

namespace {

namespace fs = std::filesystem;
using lievi::InputIssue;

/// The message on `key` among `issues`, or "" when there is none.
std::string on(const std::vector<InputIssue>& issues, const std::string& key) {
  for (const auto& i : issues)
    if (i.key == key) return i.message;
  return "";
}

std::string examples() { return std::string(LIEVI_TEST_SOURCE_DIR) + "/examples"; }

TEST(ModelConfigs, EveryExampleIsAValidConfig) {
  int seen = 0;
  for (const char* dir : {"wave", "beam", "mechanics", "kirchhoff", "string", "lie_group"})
    for (const auto& e : fs::directory_iterator(examples() + "/" + dir)) {
      if (e.path().extension() != ".toml") continue;
      const auto any = lievi::io::load_any_scenario(e.path());
      const auto problems = std::visit(
          [](const auto& s) -> std::vector<InputIssue> {
            using S = std::decay_t<decltype(s)>;
            if constexpr (std::is_same_v<S, lievi::io::RigidBodyScenario>)
              return lievi::config::problems(static_cast<const lievi::config::RigidBodyConfig&>(s));
            else if constexpr (std::is_same_v<S, lievi::io::WaveScenario>)
              return lievi::config::problems(static_cast<const lievi::config::WaveConfig&>(s));
            else if constexpr (std::is_same_v<S, lievi::io::BeamScenario>)
              return lievi::config::problems(static_cast<const lievi::config::BeamConfig&>(s));
            else if constexpr (std::is_same_v<S, lievi::io::KirchhoffScenario>)
              return lievi::config::problems(static_cast<const lievi::config::KirchhoffConfig&>(s));
            else if constexpr (std::is_same_v<S, lievi::io::ElasticStringScenario>)
              return lievi::config::problems(static_cast<const lievi::config::ElasticStringConfig&>(s));
            else if constexpr (std::is_same_v<S, lievi::io::LieGroupScenario>)
              return lievi::config::problems(static_cast<const lievi::config::LieGroupConfig&>(s));
            else
              return lievi::config::problems(static_cast<const lievi::config::LagrangianConfig&>(s));
          },
          any);
      EXPECT_TRUE(problems.empty()) << e.path() << ": " << (problems.empty() ? "" : problems.front().message);
      ++seen;
    }
  EXPECT_GE(seen, 20);
}

lievi::config::BeamConfig cantilever() {
  return lievi::io::load_beam_scenario(examples() + "/beam/cantilever.toml");
}

TEST(ModelConfigs, BeamValuesBuiltInCppAreNamedWithWhatIsAllowed) {
  using lievi::config::BeamConfig;
  ASSERT_TRUE(lievi::config::problems(cantilever()).empty());
  BeamConfig c = cantilever();
  c.rho = -1.0;  // (a square section: rho applies)
  EXPECT_EQ(on(lievi::config::problems(c), "model.rho"), "value -1 must be > 0");
  c = cantilever();
  c.section = static_cast<lievi::config::BeamSection>(42);
  EXPECT_EQ(on(lievi::config::problems(c), "model.section"),
            "value 42 is not a beam section; allowed: square, circle, general, matrix");
  c = cantilever();
  c.poses.resize(3);
  EXPECT_NE(on(lievi::config::problems(c), "poses").find("has 3 entries; expected " + std::to_string(c.n_nodes())),
            std::string::npos);
  c = cantilever();
  c.loads.push_back({});
  c.loads.back().node = c.n_nodes();
  EXPECT_NE(on(lievi::config::problems(c), "loads[" + std::to_string(c.loads.size() - 1) + "].node")
                .find("must be a node index in [0, " + std::to_string(c.n_nodes()) + ")"),
            std::string::npos);
  c = cantilever();
  c.distributed_loads.push_back({});
  c.distributed_loads.back().s_from = 0.5, c.distributed_loads.back().s_to = 0.25;
  EXPECT_NE(on(lievi::config::problems(c), "distributed_loads[0].s_range").find("0 <= s_from < s_to"),
            std::string::npos);
  c = cantilever();
  c.noise_mode = lievi::field::NoiseMode::independent;  // theta stays zero
  EXPECT_NE(on(lievi::config::problems(c), "noise.theta").find("is zero"), std::string::npos);
  c = cantilever();
  c.bc_right = lievi::field::End::prescribed;  // without a pose table
  EXPECT_NE(on(lievi::config::problems(c), "bc.right_motion").find("needs a pose table"), std::string::npos);
  // all at once, in one exception, nothing built
  c = cantilever();
  c.E = 0.0;
  c.dt = -1.0;
  c.every = 0;
  try {
    lievi::config::validate(c);
    ADD_FAILURE() << "validate accepted an invalid config";
  } catch (const lievi::invalid_argument& e) {
    EXPECT_EQ(on(e.issues(), "model.E"), "value 0 must be > 0");
    EXPECT_EQ(on(e.issues(), "integrator.dt"), "value -1 must be > 0");
    EXPECT_EQ(on(e.issues(), "output.every"), "value 0 must be >= 1");
  }
}

TEST(ModelConfigs, WaveValuesBuiltInCppAreNamedWithWhatIsAllowed) {
  const lievi::config::WaveConfig ok = lievi::io::load_wave_scenario(examples() + "/wave/deterministic.toml");
  ASSERT_TRUE(lievi::config::problems(ok).empty());
  auto c = ok;
  c.c = 0.0;
  EXPECT_EQ(on(lievi::config::problems(c), "model.c"), "value 0 must be > 0");
  c = ok;
  c.phi0.pop_back();
  EXPECT_NE(on(lievi::config::problems(c), "phi0").find("expected " + std::to_string(ok.n_nodes())),
            std::string::npos);
  c = ok;
  c.noise_mode = lievi::field::NoiseMode::common;
  c.theta = 0.0;
  EXPECT_NE(on(lievi::config::problems(c), "noise.theta").find("must be > 0"), std::string::npos);
  c = ok;
  c.bc_left = lievi::field::End::prescribed;  // an end of beams only
  EXPECT_NE(on(lievi::config::problems(c), "bc.left").find("is not a boundary condition; allowed: free, clamped, periodic"),
            std::string::npos);
  c = ok;
  c.layout = static_cast<lievi::field::Layout>(7);
  EXPECT_EQ(on(lievi::config::problems(c), "grid.layout"), "value 7 is not a grid layout; allowed: cell, vertex");
}

TEST(ModelConfigs, LagrangianValuesBuiltInCppAreNamedWithWhatIsAllowed) {
  lievi::config::LagrangianConfig c;
  c.system = lievi::config::MechanicalSystem::kepler;
  c.q0 = {1.0, 0.0};
  c.qdot0 = {0.0, 1.0};
  c.dt = 0.01, c.t_end = 1.0, c.steps = 100;
  ASSERT_TRUE(lievi::config::problems(c).empty()) << lievi::config::problems(c).front().message;
  auto d = c;
  d.q0 = {0.0, 0.0};
  EXPECT_EQ(on(lievi::config::problems(d), "initial.q"), "must not be the origin");
  d = c;
  d.qdot0 = {1.0, 2.0, 3.0};
  EXPECT_EQ(on(lievi::config::problems(d), "initial.qdot"),
            "has 3 entries; expected 2 (the dimension of system kepler)");
  d = c;
  d.mu = -2.0;
  EXPECT_EQ(on(lievi::config::problems(d), "model.mu"), "value -2 must be > 0");
  d = c;
  d.system = lievi::config::MechanicalSystem::double_pendulum;
  d.masses = {1.0, -1.0};
  EXPECT_EQ(on(lievi::config::problems(d), "model.masses"), "value [1.0, -1.0] must be 2 numbers > 0 (one per pendulum)");
  d = c;
  d.t_end = 1.005;  // not steps * dt
  EXPECT_NE(on(lievi::config::problems(d), "integrator.t_end").find("is not steps * dt"), std::string::npos);
}

}  // namespace
