// Scenario files: the schema, every bad input of issue 2 §6 (each reported with file, key, value and what is
// allowed; several at once), --set conversion by schema type, defaults, the resolved printout round trip, and
// docs/scenarios.md against the schema.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "lievi/io/any_scenario.hpp"
#include "lievi/core/error.hpp"
#include "lievi/io/scenario.hpp"
#include "lievi/io/wave_scenario.hpp"

using lievi::InputIssue;
using lievi::io::parse_scenario;
using lievi::io::RigidBodyScenario;

namespace {

// Scenario A of seed 002 with rk4 (registered from the start) and a short t_end.
const std::string kBase = R"(
[model]
type = "rigid_body"
inertia = [1.0, 1.3, 0.5]
alpha = 0.5
[initial]
omega = [0.0, 0.05, 1.0]
[integrator]
method = "rk4"
dt = 0.1
t_end = 1.0
)";

/// Replace the first line starting with `prefix` (after trimming) by `line` ("" deletes it).
std::string edit(std::string text, const std::string& prefix, const std::string& line) {
  std::istringstream in(text);
  std::string out, l;
  bool done = false;
  while (std::getline(in, l)) {
    if (!done && l.rfind(prefix, 0) == 0) {
      done = true;
      if (!line.empty()) out += line + "\n";
      continue;
    }
    out += l + "\n";
  }
  EXPECT_TRUE(done) << "no line starts with " << prefix;
  return out;
}

/// The issues of a scenario that must fail (fails the test if it parses).
std::vector<InputIssue> issues_of(const std::string& text, const std::vector<std::string>& sets = {}) {
  try {
    (void)parse_scenario(text, "s.toml", "s", sets);
  } catch (const lievi::invalid_argument& e) {
    return e.issues();
  }
  ADD_FAILURE() << "scenario was accepted:\n" << text;
  return {};
}

/// Exactly one issue, on `key`, whose message contains every fragment.
void expect_one(const std::vector<InputIssue>& is, const std::string& file, const std::string& key,
                const std::vector<std::string>& fragments) {
  ASSERT_EQ(is.size(), 1u) << (is.empty() ? std::string("none") : is[0].format() + " ...");
  EXPECT_EQ(is[0].file, file);
  EXPECT_EQ(is[0].key, key);
  for (const auto& f : fragments) EXPECT_NE(is[0].message.find(f), std::string::npos) << is[0].format();
}

}  // namespace

TEST(Scenario, BaseResolvesWithDefaults) {
  const RigidBodyScenario s = parse_scenario(kBase, "s.toml", "s");
  EXPECT_EQ(s.method, lievi::config::RigidBodyMethod::rk4);
  EXPECT_EQ(s.steps, 10);
  EXPECT_EQ(s.retraction, lievi::config::Retraction::cayley);
  EXPECT_EQ(s.dissipation_quadrature, lievi::config::DissipationQuadrature::midpoint);
  EXPECT_TRUE(s.symmetric_processing);
  EXPECT_EQ(s.every, 1);
  EXPECT_TRUE(s.plots);
  EXPECT_EQ(s.rtol, 1e-13);
  // M0 = I Omega0 exactly (products of short decimals with one nonzero factor each).
  EXPECT_EQ(s.M0, lievi::models::Vec3(0.0, 1.3 * 0.05, 0.5));
  EXPECT_EQ(s.K, 0.5 * lievi::models::Mat3::Identity());
  EXPECT_EQ(s.time_at(10), 1.0);
  EXPECT_TRUE(lievi::io::ignored_key_notes(s).empty());
}

TEST(Scenario, EachBadInputNamesFileKeyValueAndAllowed) {
  expect_one(issues_of(kBase + "[grid]\nJ = 3\n"), "s.toml", "grid.J", {"unknown key", "[model]"});
  expect_one(issues_of(edit(kBase, "alpha", "alpah = 0.5")), "s.toml", "model.alpah",
             {"unknown key", "did you mean 'alpha'"});
  expect_one(issues_of(edit(kBase, "dt", "")), "s.toml", "integrator.dt", {"missing"});
  expect_one(issues_of(edit(kBase, "type", "")), "s.toml", "model.type", {"missing"});
  expect_one(issues_of(edit(kBase, "method", "")), "s.toml", "integrator.method", {"missing", "rk4"});
  expect_one(issues_of(edit(kBase, "dt", "dt = \"small\"")), "s.toml", "integrator.dt",
             {"\"small\"", "string", "a number"});
  expect_one(issues_of(edit(kBase, "inertia", "inertia = [1.0, 0.0, 0.5]")), "s.toml", "model.inertia",
             {"[1.0, 0.0, 0.5]", "> 0"});
  expect_one(issues_of(edit(kBase, "inertia", "inertia = [1.0, -1.3, 0.5]")), "s.toml", "model.inertia",
             {"-1.3", "> 0"});
  expect_one(
      issues_of(edit(kBase, "inertia", "inertia = [[1.0, 0.2, 0.0], [0.0, 1.3, 0.0], [0.0, 0.0, 0.5]]")),
      "s.toml", "model.inertia", {"not symmetric"});
  expect_one(
      issues_of(edit(kBase, "inertia", "inertia = [[1.0, 2.0, 0.0], [2.0, 1.3, 0.0], [0.0, 0.0, 0.5]]")),
      "s.toml", "model.inertia", {"not positive definite"});
  expect_one(issues_of(edit(kBase, "inertia", "inertia = [1.0, 1.3]")), "s.toml", "model.inertia",
             {"[1.0, 1.3]", "3x3"});
  expect_one(issues_of(edit(kBase, "alpha", "alpha = -0.5")), "s.toml", "model.alpha", {"-0.5", ">= 0"});
  expect_one(issues_of(edit(kBase, "alpha", "K = [[1.0, 0.0, 0.0], [0.0, -1.0, 0.0], [0.0, 0.0, 1.0]]")),
             "s.toml", "model.K", {"positive semi-definite", "-1"});
  expect_one(issues_of(edit(kBase, "alpha", "K = [[1.0, 0.5, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]")),
             "s.toml", "model.K", {"not symmetric"});
  expect_one(
      issues_of(edit(kBase, "alpha", "alpha = 0.5\nK = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]")),
      "s.toml", "model.K", {"both model.alpha and model.K"});
  expect_one(issues_of(edit(kBase, "dt", "dt = 0")), "s.toml", "integrator.dt", {"value 0 must be > 0"});
  expect_one(issues_of(edit(kBase, "dt", "dt = -0.1")), "s.toml", "integrator.dt", {"-0.1", "> 0"});
  expect_one(issues_of(edit(kBase, "t_end", "t_end = 0.0")), "s.toml", "integrator.t_end", {"0", "> 0"});
  expect_one(issues_of(edit(kBase, "method", "method = \"rk5\"")), "s.toml", "integrator.method",
             {"\"rk5\"", "allowed", "rk4"});
  expect_one(issues_of(kBase + "retraction = \"quat\"\n"), "s.toml", "integrator.retraction",
             {"\"quat\"", "cayley, exp, exp2"});
  expect_one(issues_of(edit(kBase, "omega", "omega = [0.0, 0.05, 1.0]\nM = [0.0, 0.065, 0.5]")), "s.toml",
             "initial.M", {"exactly one"});
  expect_one(issues_of(edit(kBase, "omega", "")), "s.toml", "initial.omega", {"missing", "initial.M"});
  expect_one(issues_of(edit(kBase, "dt", "dt = 0.1\nh = 0.1")), "s.toml", "integrator.h", {"alias"});
  expect_one(issues_of(edit(kBase, "dt", "dt = 0.3")), "s.toml", "integrator.dt",
             {"0.3", "integer number of steps", "dt = t_end/N", "N = 3", "N = 4"});
  expect_one(issues_of(kBase + "[output]\nevery = 0\n"), "s.toml", "output.every", {"value 0 must be >= 1"});
  expect_one(issues_of(kBase + "[output]\nevery = 1.5\n"), "s.toml", "output.every", {"an integer"});
  expect_one(issues_of(edit(kBase, "type", "type = \"beam\"")), "s.toml", "model.type",
             {"\"beam\"", "rigid_body"});
  expect_one(issues_of(edit(kBase, "dt", "dt = nan")), "s.toml", "integrator.dt", {"nan", "finite"});
  expect_one(issues_of(edit(kBase, "t_end", "t_end = inf")), "s.toml", "integrator.t_end", {"inf", "finite"});
  expect_one(issues_of(edit(kBase, "omega", "omega = [0.0, nan, 1.0]")), "s.toml", "initial.omega",
             {"finite"});
  expect_one(issues_of(kBase + "[output]\nplots = 1\n"), "s.toml", "output.plots", {"boolean"});
}

TEST(Scenario, AllIssuesOfAFileAreReportedTogether) {
  std::string t = edit(kBase, "dt", "dt = 0");
  t = edit(t, "t_end", "t_end = -1.0");
  t = edit(t, "alpha", "alpha = -2.0");
  t = edit(t, "method", "method = \"nope\"");
  t += "[output]\nevery = 0\nbogus = 1\n";
  const auto is = issues_of(t);
  std::vector<std::string> keys;
  for (const auto& i : is) keys.push_back(i.key);
  for (const char* k : {"integrator.dt", "integrator.t_end", "model.alpha", "integrator.method",
                        "output.every", "output.bogus"})
    EXPECT_NE(std::find(keys.begin(), keys.end(), k), keys.end()) << k;
  EXPECT_EQ(is.size(), 6u);
  // The exception text is one line per issue, in the format of docs/outputs.md ("Exit codes and messages").
  try {
    (void)parse_scenario(t, "s.toml", "s");
  } catch (const lievi::invalid_argument& e) {
    const std::string what = e.what();
    EXPECT_EQ(std::count(what.begin(), what.end(), '\n'), 5);
    EXPECT_NE(what.find("s.toml: key 'integrator.dt': value 0 must be > 0"), std::string::npos) << what;
  }
}

TEST(Scenario, SyntaxErrorIsBadInputWithPosition) {
  const auto is = issues_of("[model\ntype = 1\n");
  ASSERT_EQ(is.size(), 1u);
  EXPECT_NE(is[0].message.find("line 1"), std::string::npos) << is[0].format();
}

TEST(Scenario, SetConvertsBySchemaType) {
  const RigidBodyScenario s =
      parse_scenario(kBase, "s.toml", "s",
                     {"integrator.dt=0.05", "integrator.method=\"rk4\"", "integrator.retraction=exp",
                      "model.inertia=[2, 3, 4]", "initial.M=[.1, 0.2, 3e-1]", "output.plots=false",
                      "output.every=5", "model.K=[[1,0,0],[0,2,0],[0,0,3]]"});
  EXPECT_EQ(s.dt, 0.05);
  EXPECT_EQ(s.steps, 20);
  EXPECT_EQ(s.retraction, lievi::config::Retraction::exp);
  EXPECT_EQ(s.inertia.diagonal(), lievi::models::Vec3(2, 3, 4));
  EXPECT_FALSE(s.omega_given);  // --set initial.M replaces the file's initial.omega
  EXPECT_EQ(s.M0, lievi::models::Vec3(0.1, 0.2, 0.3));
  EXPECT_FALSE(s.plots);
  EXPECT_EQ(s.every, 5);
  EXPECT_TRUE(s.metric_given);  // --set model.K replaces the file's model.alpha
  EXPECT_EQ(s.K.diagonal(), lievi::models::Vec3(1, 2, 3));
  // rk4 has no retraction: the explicitly given key is noted as ignored.
  const auto notes = lievi::io::ignored_key_notes(s);
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_NE(notes[0].find("integrator.retraction"), std::string::npos);
  // integrator.h replaces integrator.dt.
  EXPECT_EQ(parse_scenario(kBase, "s.toml", "s", {"integrator.h=0.25"}).steps, 4);
}

TEST(Scenario, SetValueThatDoesNotConvertNamesTheKey) {
  expect_one(issues_of(kBase, {"integrator.dt=abc"}), "--set", "integrator.dt", {"'abc'", "a number"});
  expect_one(issues_of(kBase, {"output.plots=yes"}), "--set", "output.plots", {"'yes'", "boolean"});
  expect_one(issues_of(kBase, {"output.every=2.5"}), "--set", "output.every", {"'2.5'", "integer"});
  expect_one(issues_of(kBase, {"model.inertia=[1,2"}), "--set", "model.inertia", {"'[1,2'", "array"});
  expect_one(issues_of(kBase, {"integrator.dtt=1"}), "--set", "integrator.dtt", {"unknown key", "'dt'"});
  expect_one(issues_of(kBase, {"integrator.dt"}), "--set", "", {"key=value"});
  // A converted value is still validated, and the issue is attributed to --set.
  expect_one(issues_of(kBase, {"integrator.dt=-1"}), "--set", "integrator.dt", {"-1", "> 0"});
}

TEST(Scenario, ResolvedTomlLoadsBackToTheSameScenario) {
  const std::string text =
      edit(kBase, "inertia", "inertia = [[1.0, 0.1, 0.0], [0.1, 1.3, 0.0], [0.0, 0.0, 0.5]]") +
      "retraction = \"exp2\"\n[output]\nevery = 3\n";
  const RigidBodyScenario a = parse_scenario(text, "s.toml", "s");
  const std::string printed = lievi::io::to_toml(a);
  EXPECT_NE(printed.find("every = 3"), std::string::npos) << printed;
  EXPECT_NE(printed.find("plots = true"), std::string::npos) << printed;  // defaults are printed
  EXPECT_NE(printed.find("# default"), std::string::npos) << printed;
  EXPECT_NE(printed.find("ignored by rk4"), std::string::npos) << printed;
  const RigidBodyScenario b = parse_scenario(printed, "printed.toml", "s");
  EXPECT_EQ(a.inertia, b.inertia);  // shortest round-trip text: bitwise equal
  EXPECT_EQ(a.K, b.K);
  EXPECT_EQ(a.M0, b.M0);
  EXPECT_EQ(a.dt, b.dt);
  EXPECT_EQ(a.t_end, b.t_end);
  EXPECT_EQ(a.steps, b.steps);
  EXPECT_EQ(a.every, b.every);
  EXPECT_EQ(a.retraction, b.retraction);
}

TEST(Scenario, FormatNumberRoundTrips) {
  for (double x : {0.1, 1.0 / 3.0, 250.0, 1e-300, -2.5e17, 6.02214076e23, 5e-324}) {
    const std::string s = lievi::io::format_number(x, true);
    EXPECT_EQ(std::strtod(s.c_str(), nullptr), x) << s;        // strtod: std::stod throws on subnormals
    EXPECT_NE(s.find_first_of(".e"), std::string::npos) << s;  // reads back as a TOML float
  }
}

TEST(Scenario, ExampleFilesValidate) {
  for (const char* f : {"scenario_a.toml", "scenario_b.toml", "scenario_c.toml"}) {
    const std::string path = std::string(LIEVI_TEST_SOURCE_DIR) + "/examples/rigid_body/" + f;
    bool has_ddb = false;
    for (const auto& t : lievi::integrators::rigid_body_methods())
      has_ddb = has_ddb || std::string(t.id) == "ddb";
    if (!has_ddb) GTEST_SKIP() << "ddb not registered yet";
    const RigidBodyScenario s = lievi::io::load_scenario(path);
    EXPECT_EQ(s.method, lievi::config::RigidBodyMethod::ddb);
    EXPECT_EQ(s.dt, 0.1);
  }
}

// docs/scenarios.md carries each model's schema table verbatim between its markers; regenerate them with
// `lievi schema TYPE`.
TEST(Scenario, DocsTableMatchesSchema) {
  std::ifstream in(std::string(LIEVI_TEST_SOURCE_DIR) + "/docs/scenarios.md");
  ASSERT_TRUE(in) << "docs/scenarios.md missing";
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string doc = ss.str();
  for (const std::string& type : lievi::io::model_types()) {
    const std::string begin = "<!-- schema:begin " + type + " -->\n",
                      end = "<!-- schema:end " + type + " -->";
    const auto b = doc.find(begin), e = doc.find(end);
    ASSERT_NE(b, std::string::npos) << begin;
    ASSERT_NE(e, std::string::npos) << end;
    EXPECT_EQ(doc.substr(b + begin.size(), e - b - begin.size()), lievi::io::schema_markdown(type))
        << "docs/scenarios.md is stale: paste the output of `lievi schema " << type
        << "` between the markers";
  }
  EXPECT_EQ(lievi::io::schema_markdown("rigid_body"), lievi::io::schema_markdown());
}
