// The beam scenario (model.type = "beam"): defaults, section constants and K, P against the formulas of
// docs/theory/beam.md "Section constants", every bad value (each issue names the key, the value and what is
// allowed; all issues of a file together), the [[loads]] tables and factor(t), straight and arc frames,
// initial.file, the resolved printout round trip, and the dispatch of any scenario on model.type.
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <algorithm>
#include <array>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <numbers>
#include <sstream>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "lievi/io/any_scenario.hpp"
#include "lievi/core/error.hpp"
#include "lievi/io/beam_scenario.hpp"
#include "lievi/io/wave_scenario.hpp"

using lievi::InputIssue;
using lievi::io::BeamLoad;
using lievi::io::BeamScenario;
using lievi::io::parse_beam_scenario;
namespace fs = std::filesystem;

namespace {

using Changes = std::vector<std::pair<std::string, std::string>>;

/// A beam scenario: the base keys (square a = 0.1, J = 4, dt = 0.01, t_end = 0.1) with `changes` applied (key
/// -> TOML value text; "" deletes the key), written section by section; `tail` is appended (e.g. [[loads]]).
std::string beam(const Changes& changes = {}, const std::string& tail = "") {
  std::vector<std::pair<std::string, std::string>> keys = {{"model.type", "\"beam\""},
                                                           {"model.a", "0.1"},
                                                           {"grid.J", "4"},
                                                           {"integrator.dt", "0.01"},
                                                           {"integrator.t_end", "0.1"}};
  for (const auto& [k, v] : changes) {
    auto it = std::find_if(keys.begin(), keys.end(), [&key = k](const auto& e) { return e.first == key; });
    if (it != keys.end())
      it->second = v;
    else
      keys.emplace_back(k, v);
  }
  std::string text;
  for (const char* section : {"model", "grid", "bc", "initial", "damping", "integrator", "noise", "output"}) {
    std::string body;
    for (const auto& [k, v] : keys)
      if (!v.empty() && k.substr(0, k.find('.')) == section)
        body += k.substr(k.find('.') + 1) + " = " + v + "\n";
    if (!body.empty()) text += "[" + std::string(section) + "]\n" + body;
  }
  return text + tail;
}

template <class Parse>
std::vector<InputIssue> issues_from(Parse parse, const std::string& what) {
  try {
    (void)parse();
  } catch (const lievi::invalid_argument& e) {
    return e.issues();
  }
  ADD_FAILURE() << "accepted:\n" << what;
  return {};
}

std::vector<InputIssue> issues_of(const std::string& text, const std::vector<std::string>& sets = {}) {
  return issues_from([&] { return parse_beam_scenario(text, "b.toml", "b", sets); }, text);
}

/// Exactly one issue, on `key` from `file`, whose message contains every fragment.
void expect_one(const std::vector<InputIssue>& is, const std::string& key,
                const std::vector<std::string>& fragments, const std::string& file = "b.toml") {
  ASSERT_EQ(is.size(), 1u) << (is.empty() ? std::string("none")
                                          : is[0].format() + " ... " + is.back().format());
  EXPECT_EQ(is[0].file, file);
  EXPECT_EQ(is[0].key, key);
  for (const auto& f : fragments) EXPECT_NE(is[0].message.find(f), std::string::npos) << is[0].format();
}

fs::path workdir(const std::string& name) {
  const fs::path d = fs::path(LIEVI_TEST_TMP_DIR) / ("beam_" + name);
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

void write(const fs::path& p, const std::string& text) {
  std::ofstream(p, std::ios::binary) << text;
}

void expect_same_entries(const std::vector<lievi::io::ResolvedEntry>& a,
                         const std::vector<lievi::io::ResolvedEntry>& b) {
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t n = 0; n < a.size(); ++n) {
    EXPECT_EQ(a[n].key, b[n].key);
    EXPECT_TRUE(a[n].value == b[n].value) << a[n].key;
  }
}

Eigen::Vector3d position(const BeamScenario& s, long long j) {
  const auto& p = s.poses[static_cast<std::size_t>(j)];
  return {p[0], p[1], p[2]};
}

Eigen::Matrix3d rotation(const BeamScenario& s, long long j) {
  const auto& p = s.poses[static_cast<std::size_t>(j)];
  return Eigen::Quaterniond(p[3], p[4], p[5], p[6]).toRotationMatrix();
}

/// Every frame orthonormal and right-handed, qw >= 0, unit quaternions, and the first director tangent to the
/// centre line (second-order differences of the node positions: central, one-sided at the ends; n >= 3).
void expect_frames_fit_the_centre_line(const BeamScenario& s, double tangent_tol) {
  const long long n = s.n_nodes();
  ASSERT_EQ(static_cast<long long>(s.poses.size()), n);
  for (long long j = 0; j < n; ++j) {
    const auto& p = s.poses[static_cast<std::size_t>(j)];
    EXPECT_GE(p[3], 0.0) << j;
    EXPECT_NEAR(p[3] * p[3] + p[4] * p[4] + p[5] * p[5] + p[6] * p[6], 1.0, 1e-14) << j;
    const Eigen::Matrix3d R = rotation(s, j);
    EXPECT_LT((R.transpose() * R - Eigen::Matrix3d::Identity()).norm(), 1e-14) << j;
    EXPECT_NEAR(R.determinant(), 1.0, 1e-14) << j;
    EXPECT_LT((R.col(0).cross(R.col(1)) - R.col(2)).norm(), 1e-14) << j;
    const double ds = s.ds();
    Eigen::Vector3d t;
    if (j == 0)
      t = (-3.0 * position(s, 0) + 4.0 * position(s, 1) - position(s, 2)) / (2.0 * ds);
    else if (j == n - 1)
      t = (3.0 * position(s, j) - 4.0 * position(s, j - 1) + position(s, j - 2)) / (2.0 * ds);
    else
      t = (position(s, j + 1) - position(s, j - 1)) / (2.0 * ds);
    EXPECT_LT((t - R.col(0)).norm(), tangent_tol) << j;
  }
}

}  // namespace

TEST(BeamScenario, DefaultsResolved) {
  const BeamScenario s = parse_beam_scenario(beam(), "b.toml", "b");
  EXPECT_STREQ(lievi::config::id(s.section), "square");
  EXPECT_EQ(s.rho, 1.0);
  EXPECT_EQ(s.E, 1.0);
  EXPECT_EQ(s.nu, 0.0);
  EXPECT_EQ(s.G, 0.5);
  EXPECT_FALSE(s.G_given);
  EXPECT_EQ(s.shear_factor, 1.0);
  EXPECT_EQ(s.gravity, (std::array<double, 3>{0, 0, 0}));
  EXPECT_EQ(s.J, 4);
  EXPECT_STREQ(lievi::config::id(s.layout), "vertex");
  EXPECT_EQ(s.length, 1.0);
  EXPECT_EQ(s.n_nodes(), 5);
  EXPECT_STREQ(lievi::config::id(s.bc_left), "free");
  EXPECT_STREQ(lievi::config::id(s.bc_right), "free");
  EXPECT_STREQ(lievi::config::id(s.shape), "straight");
  EXPECT_EQ(s.direction, (std::array<double, 3>{1, 0, 0}));
  EXPECT_EQ(s.normal, (std::array<double, 3>{0, 0, 1}));
  EXPECT_TRUE(s.loads.empty());
  EXPECT_STREQ(lievi::config::id(s.method), "type-i");
  EXPECT_STREQ(lievi::config::id(s.variant), "exact");
  EXPECT_STREQ(lievi::config::id(s.retraction), "cayley");
  EXPECT_STREQ(lievi::config::id(s.start), "half");
  EXPECT_EQ(s.steps, 10);
  EXPECT_EQ(s.newton_tol, 1e-13);
  EXPECT_EQ(s.newton_maxit, 30);
  EXPECT_FALSE(s.allow_unstable);
  EXPECT_EQ(s.every, 1);
  EXPECT_EQ(s.probes, (std::vector<long long>{2}));
  EXPECT_TRUE(s.fields);
  EXPECT_EQ(s.fields_every, 1);
  EXPECT_TRUE(s.vtk);
  EXPECT_FALSE(s.fields_csv);
  EXPECT_TRUE(s.plots);
  ASSERT_EQ(s.poses.size(), 5u);
  ASSERT_EQ(s.velocity.size(), 5u);
  for (long long j = 0; j < 5; ++j) {
    EXPECT_EQ(s.s_of(j), 0.25 * static_cast<double>(j));
    const auto& p = s.poses[static_cast<std::size_t>(j)];
    EXPECT_EQ(p, (std::array<double, 7>{0.25 * static_cast<double>(j), 0, 0, 1, 0, 0, 0}));
    EXPECT_EQ(s.velocity[static_cast<std::size_t>(j)], (std::array<double, 6>{}));
  }
  // the cell layout: J nodes at (j + 1/2) ds
  const BeamScenario c = parse_beam_scenario(beam({{"grid.layout", "\"cell\""}}), "b.toml", "b");
  EXPECT_EQ(c.n_nodes(), 4);
  EXPECT_EQ(c.s_of(0), 0.125);
  EXPECT_EQ(c.s_of(3), 0.875);
  EXPECT_EQ(c.probes, (std::vector<long long>{2}));
  // at most 1000 snapshots by default
  const BeamScenario l =
      parse_beam_scenario(beam({{"integrator.dt", "1e-4"}, {"integrator.t_end", "2.0"}}), "b.toml", "b");
  EXPECT_EQ(l.fields_every, 21);  // 20 would give 1001 snapshots
}

TEST(BeamScenario, SectionConstantsAndKPFollowTheFormulas) {
  // square, Table 1 (docs/theory/beam.md): rho 1000, a 0.1, nu 0.35, E 1e7
  const BeamScenario s = parse_beam_scenario(
      beam({{"model.rho", "1000.0"}, {"model.E", "1e7"}, {"model.nu", "0.35"}, {"model.a", "0.1"}}), "b.toml",
      "b");
  const double a = 0.1, rho = 1000.0, E = 1e7, G = E / (2.0 * (1.0 + 0.35));
  EXPECT_DOUBLE_EQ(s.A, a * a);
  EXPECT_DOUBLE_EQ(s.J2, std::pow(a, 4) / 12.0);
  EXPECT_DOUBLE_EQ(s.J3, std::pow(a, 4) / 12.0);
  EXPECT_DOUBLE_EQ(s.J1, std::pow(a, 4) / 6.0);
  EXPECT_DOUBLE_EQ(s.G, G);
  const double K[6] = {rho * s.J1, rho * s.J2, rho * s.J3, rho * s.A, rho * s.A, rho * s.A};
  const double P[6] = {G * s.J1, E * s.J2, E * s.J3, E * s.A, G * s.A, G * s.A};
  for (std::size_t i = 0; i < 6; ++i)
    for (std::size_t j = 0; j < 6; ++j) {
      EXPECT_DOUBLE_EQ(s.K[i][j], i == j ? K[i] : 0.0) << i << j;
      EXPECT_DOUBLE_EQ(s.P[i][j], i == j ? P[i] : 0.0) << i << j;
    }
  // the derived values of Table 1 (docs/theory/beam.md)
  EXPECT_NEAR(s.K[0][0], 1.6667e-2, 1e-6);
  EXPECT_NEAR(s.K[3][3], 10.0, 1e-12);
  EXPECT_NEAR(s.P[0][0], 61.73, 1e-2);
  EXPECT_NEAR(s.P[1][1], 83.33, 1e-2);
  EXPECT_NEAR(s.P[4][4], 3.7037e4, 1.0);

  // circle with G and a shear factor
  const BeamScenario c = parse_beam_scenario(beam({{"model.section", "\"circle\""},
                                                   {"model.a", ""},
                                                   {"model.r", "0.2"},
                                                   {"model.G", "3.0"},
                                                   {"model.E", "8.0"},
                                                   {"model.shear_factor", "0.8"}}),
                                             "b.toml", "b");
  const double r = 0.2, pi = std::numbers::pi;
  EXPECT_DOUBLE_EQ(c.A, pi * r * r);
  EXPECT_DOUBLE_EQ(c.J2, pi * std::pow(r, 4) / 4.0);
  EXPECT_DOUBLE_EQ(c.J3, pi * std::pow(r, 4) / 4.0);
  EXPECT_DOUBLE_EQ(c.J1, pi * std::pow(r, 4) / 2.0);
  EXPECT_TRUE(c.G_given);
  EXPECT_DOUBLE_EQ(c.P[0][0], 3.0 * c.J1);
  EXPECT_DOUBLE_EQ(c.P[3][3], 8.0 * c.A);
  EXPECT_DOUBLE_EQ(c.P[5][5], 0.8 * 3.0 * c.A);

  // general
  const BeamScenario g = parse_beam_scenario(beam({{"model.section", "\"general\""},
                                                   {"model.a", ""},
                                                   {"model.A", "2.0"},
                                                   {"model.J1", "3.0"},
                                                   {"model.J2", "4.0"},
                                                   {"model.J3", "5.0"},
                                                   {"model.rho", "2.0"}}),
                                             "b.toml", "b");
  EXPECT_EQ(g.K[0][0], 6.0);
  EXPECT_EQ(g.K[2][2], 10.0);
  EXPECT_EQ(g.K[5][5], 4.0);
  EXPECT_EQ(g.P[2][2], 5.0);

  // matrix: the flying spaghetti's K and P as given, material keys noted as ignored
  const std::string Km =
      "[[20.0,0,0,0,0,0],[0,10.0,0,0,0,0],[0,0,10.0,0,0,0],[0,0,0,1.0,0,0],[0,0,0,0,1.0,0],"
      "[0,0,0,0,0,1.0]]";
  const std::string Pm =
      "[[500.0,0,0,0,0,0],[0,500.0,0,0,0,0],[0,0,500.0,0,0,0],[0,0,0,1e4,0,0],[0,0,0,0,1e4,0],"
      "[0,0,0,0,0,1e4]]";
  const BeamScenario m = parse_beam_scenario(
      beam({{"model.section", "\"matrix\""}, {"model.K", Km}, {"model.P", Pm}}), "b.toml", "b");
  EXPECT_EQ(m.K[0][0], 20.0);
  EXPECT_EQ(m.P[3][3], 1e4);
  const auto notes = lievi::io::ignored_key_notes(m);
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_NE(notes[0].find("'model.a' is ignored with model.section = \"matrix\""), std::string::npos);
}

TEST(BeamScenario, EachBadValueNamesKeyValueAndAllowed) {
  struct Case {
    Changes changes;
    std::string key;
    std::vector<std::string> fragments;
  };
  const std::string notspd =
      "[[1.0,0,0,0,0,0],[0,1.0,0,0,0,0],[0,0,1.0,0,0,0],[0,0,0,1.0,0,0],[0,0,0,0,1.0,0],"
      "[0,0,0,0,0,-1.0]]";
  const std::string asym =
      "[[1.0,0.5,0,0,0,0],[0,1.0,0,0,0,0],[0,0,1.0,0,0,0],[0,0,0,1.0,0,0],[0,0,0,0,1.0,0],"
      "[0,0,0,0,0,1.0]]";
  const std::string eye =
      "[[1.0,0,0,0,0,0],[0,1.0,0,0,0,0],[0,0,1.0,0,0,0],[0,0,0,1.0,0,0],[0,0,0,0,1.0,0],"
      "[0,0,0,0,0,1.0]]";
  const std::vector<Case> cases = {
      {{{"model.type", "\"wave\""}}, "model.type", {"\"wave\"", "beam"}},
      {{{"model.section", "\"hexagon\""}},
       "model.section",
       {"\"hexagon\"", "square, circle, general, matrix"}},
      {{{"model.rho", "0.0"}}, "model.rho", {"value 0", "> 0"}},
      {{{"model.E", "-1.0"}}, "model.E", {"value -1", "> 0"}},
      {{{"model.nu", "0.5"}}, "model.nu", {"value 0.5", "(-1, 0.5)"}},
      {{{"model.nu", "-1.0"}}, "model.nu", {"value -1", "(-1, 0.5)"}},
      {{{"model.nu", "0.3"}, {"model.G", "1.0"}}, "model.G", {"both model.nu and model.G"}},
      {{{"model.G", "0.0"}}, "model.G", {"value 0", "> 0"}},
      {{{"model.a", "-0.1"}}, "model.a", {"value -0.1", "> 0"}},
      {{{"model.a", ""}}, "model.a", {"missing", "square"}},
      {{{"model.section", "\"circle\""}, {"model.a", ""}}, "model.r", {"missing", "circle"}},
      {{{"model.section", "\"circle\""}, {"model.r", "0.0"}}, "model.r", {"value 0", "> 0"}},
      {{{"model.shear_factor", "0.0"}}, "model.shear_factor", {"value 0", "> 0"}},
      {{{"model.section", "\"matrix\""}, {"model.K", notspd}, {"model.P", eye}},
       "model.K",
       {"not positive definite", "symmetric positive definite 6x6"}},
      {{{"model.section", "\"matrix\""}, {"model.K", eye}, {"model.P", asym}},
       "model.P",
       {"not symmetric", "symmetric positive definite"}},
      {{{"model.section", "\"matrix\""}, {"model.K", eye}}, "model.P", {"missing", "6x6"}},
      {{{"model.section", "\"matrix\""}, {"model.K", "[1.0, 2.0]"}, {"model.P", eye}},
       "model.K",
       {"[1.0, 2.0]", "6x6 matrix"}},
      {{{"model.gravity", "[0.0, -9.81]"}}, "model.gravity", {"[0.0, -9.81]", "3 finite numbers"}},
      {{{"grid.J", "0"}}, "grid.J", {"value 0", ">= 1"}},
      {{{"grid.layout", "\"mesh\""}}, "grid.layout", {"\"mesh\"", "vertex, cell"}},
      {{{"grid.length", "0.0"}}, "grid.length", {"value 0", "> 0"}},
      {{{"bc.left", "\"prescribed\""}}, "bc.left_motion", {"missing required key", "pose table", "t,x,y,z,qw,qx,qy,qz"}},
      {{{"bc.right", "\"periodic\""}}, "bc.left", {"\"periodic\" must be given for both ends"}},
      {{{"bc.left", "\"periodic\""}, {"bc.right", "\"periodic\""}, {"initial.shape", "\"arc\""}},
       "grid.length",
       {"must close into a ring", "2 pi initial.radius"}},
      {{{"damping.angular", "-0.5"}}, "damping.angular", {"-0.5", ">= 0"}},
      {{{"bc.right", "\"glued\""}}, "bc.right", {"\"glued\"", "free, clamped, prescribed, periodic"}},
      {{{"bc.left", "\"clamped\""}, {"grid.layout", "\"cell\""}}, "bc.left", {"\"clamped\"", "vertex"}},
      {{{"initial.shape", "\"helix\""}}, "initial.shape", {"\"helix\"", "straight, arc, file"}},
      {{{"initial.direction", "[0.0, 0.0, 0.0]"}}, "initial.direction", {"[0.0, 0.0, 0.0]", "non-zero"}},
      {{{"initial.normal", "[2.0, 0.0, 0.0]"}}, "initial.normal", {"[2.0, 0.0, 0.0]", "parallel"}},
      {{{"initial.origin", "[1.0, 2.0]"}}, "initial.origin", {"[1.0, 2.0]", "3 finite numbers"}},
      {{{"initial.shape", "\"arc\""}, {"initial.radius", "-1.0"}}, "initial.radius", {"value -1", "> 0"}},
      {{{"initial.velocity", "[1.0, 2.0, 3.0]"}},
       "initial.velocity",
       {"[1.0, 2.0, 3.0]", "6 finite numbers"}},
      {{{"initial.shape", "\"file\""}}, "initial.file", {"missing", "x,y,z,qw,qx,qy,qz"}},
      {{{"initial.file", "\"x.csv\""}, {"initial.shape", "\"arc\""}},
       "initial.file",
       {"initial.shape = \"arc\""}},
      {{{"integrator.method", "\"rk4\""}}, "integrator.method", {"\"rk4\"", "type-i, type-ii"}},
      {{{"integrator.variant", "\"approximate\""}}, "integrator.variant", {"\"approximate\"", "exact, approx"}},
      {{{"integrator.retraction", "\"quat\""}}, "integrator.retraction", {"\"quat\"", "cayley, exp"}},
      {{{"integrator.start", "\"zero\""}}, "integrator.start", {"\"zero\"", "half, full"}},
      {{{"integrator.dt", "0.03"}}, "integrator.dt", {"0.03", "integer number of steps"}},
      {{{"integrator.dt", ""}}, "integrator.dt", {"missing"}},
      {{{"integrator.newton_tol", "0.0"}}, "integrator.newton_tol", {"value 0", "> 0"}},
      {{{"integrator.newton_maxit", "0"}}, "integrator.newton_maxit", {"value 0", ">= 1"}},
      {{{"integrator.allow_unstable", "1"}}, "integrator.allow_unstable", {"1", "boolean"}},
      {{{"output.every", "0"}}, "output.every", {"value 0", ">= 1"}},
      {{{"output.probes", "[5]"}}, "output.probes", {"node 5", "[0, 5)"}},
      {{{"output.probes", "[1, 1]"}}, "output.probes", {"node 1 twice"}},
      {{{"output.fields_every", "0"}}, "output.fields_every", {"value 0", ">= 1"}},
      {{{"output.vtk", "\"yes\""}}, "output.vtk", {"\"yes\"", "boolean"}},
      {{{"noise.mode", "\"common\""}}, "noise.theta", {"missing required key", "Theta"}},
      {{{"noise.mode", "\"common\""}, {"noise.theta", "0.01"}}, "noise.theta", {"0.01", "not an array of 6 finite numbers"}},
      {{{"noise.mode", "\"common\""}, {"noise.theta", "[0, 0, 0, 0, 0, 0]"}}, "noise.theta", {"is zero"}},
      {{{"noise.mode", "\"spatial\""}}, "noise.mode", {"\"spatial\"", "none, common, independent, modes"}},
      {{{"noise.mode", "\"modes\""}}, "noise.modes", {"needs at least one [[noise.modes]] table"}},
      {{{"noise.mode", "\"common\""}, {"noise.theta", "[0.1, 0, 0, 0, 0, 0]"}, {"noise.base_dt", "0.003"}},
       "noise.base_dt",
       {"0.003", "2^m", "base_dt = 0.005"}},
      {{{"grid.bogus", "1"}}, "grid.bogus", {"unknown key", "J, layout, length"}},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.key);
    expect_one(issues_of(beam(c.changes)), c.key, c.fragments);
  }
}

TEST(BeamScenario, AllIssuesOfAFileAreReportedTogether) {
  const auto is = issues_of(beam({{"model.rho", "0.0"},
                                  {"grid.layout", "\"mesh\""},
                                  {"initial.shape", "\"helix\""},
                                  {"integrator.variant", "\"approximate\""},
                                  {"output.every", "0"},
                                  {"noise.mode", "\"common\""}},
                                 "[[loads]]\nnode = \"first\"\nwrench = [1.0]\n"));
  std::vector<std::string> keys;
  for (const auto& i : is) keys.push_back(i.key);
  EXPECT_EQ(keys,
            (std::vector<std::string>{"model.rho", "grid.layout", "initial.shape", "loads[0].node", "loads[0].wrench",
                                      "integrator.variant", "noise.theta", "output.every"}));
}

TEST(BeamScenario, LoadsAreReadFromArraysOfTables) {
  const std::string loads =
      "[[loads]]\nnode = 0\nwrench = [0.0, 100.0, 200.0, 20.0, 0.0, 0.0]\ntimes = [0.0, 2.5, 5.0]\n"
      "factors = [0.0, 1.0, 0.0]\n"
      "[[loads]]\nnode = \"last\"\nframe = \"body\"\nwrench = [0.0, 0.0, 0.0, 0.0, 0.0, -1.0]\n"
      "[[loads]]\nnode = 2\nwrench = [1.0, 0.0, 0.0, 0.0, 0.0, 0.0]\ntimes = [1.0, 2.0]\nfactors = [2.0, "
      "4.0]\n"
      "hold = true\n";
  const BeamScenario s = parse_beam_scenario(beam({}, loads), "b.toml", "b");
  ASSERT_EQ(s.loads.size(), 3u);
  const BeamLoad& hat = s.loads[0];
  EXPECT_EQ(hat.node, 0);
  EXPECT_STREQ(lievi::config::id(hat.frame), "spatial");
  EXPECT_EQ(hat.wrench, (std::array<double, 6>{0, 100, 200, 20, 0, 0}));
  EXPECT_FALSE(hat.hold);
  // the flying spaghetti's hat: 200 t/2.5 rising, 200 (2 - t/2.5) falling, 0 after
  for (const double t : {0.0, 0.3, 1.0, 2.5, 3.1, 4.99, 5.0})
    EXPECT_NEAR(200.0 * hat.factor(t), t <= 2.5 ? 200.0 * t / 2.5 : 200.0 * (2.0 - t / 2.5), 1e-12) << t;
  EXPECT_EQ(hat.factor(5.5), 0.0);
  EXPECT_EQ(hat.factor(-1.0), 0.0);
  const BeamLoad& end = s.loads[1];
  EXPECT_EQ(end.node, 4);
  EXPECT_TRUE(end.last);
  EXPECT_STREQ(lievi::config::id(end.frame), "body");
  EXPECT_EQ(end.factor(0.0), 1.0);
  EXPECT_EQ(end.factor(1e9), 1.0);
  const BeamLoad& held = s.loads[2];
  EXPECT_EQ(held.factor(0.0), 2.0);
  EXPECT_EQ(held.factor(1.5), 3.0);
  EXPECT_EQ(held.factor(2.0), 4.0);
  EXPECT_EQ(held.factor(9.0), 4.0);

  // bad loads: each issue names loads[i].key
  struct Case {
    std::string table, key;
    std::vector<std::string> fragments;
  };
  const std::string w = "wrench = [0.0, 0.0, 0.0, 0.0, 0.0, 1.0]\n";
  const std::vector<Case> cases = {
      {"node = 5\n" + w, "loads[1].node", {"value 5", "[0, 5)", "\"last\""}},
      {"node = -1\n" + w, "loads[1].node", {"value -1", "[0, 5)"}},
      {"node = \"first\"\n" + w, "loads[1].node", {"\"first\"", "\"last\""}},
      {w, "loads[1].node", {"missing", "\"last\""}},
      {"node = 1\n", "loads[1].wrench", {"missing", "wrench"}},
      {"node = 1\nwrench = [1.0, 2.0]\n", "loads[1].wrench", {"[1.0, 2.0]", "6 finite numbers"}},
      {"node = 1\nframe = \"world\"\n" + w, "loads[1].frame", {"\"world\"", "spatial, body"}},
      {"node = 1\ntimes = [0.0, 1.0]\n" + w, "loads[1].times", {"without loads[1].factors"}},
      {"node = 1\ntimes = [0.0, 0.0]\nfactors = [1.0, 2.0]\n" + w, "loads[1].times", {"strictly increasing"}},
      {"node = 1\ntimes = [0.0, 1.0]\nfactors = [1.0]\n" + w, "loads[1].factors", {"[1.0]", "one per time"}},
      {"node = 1\nhold = 1\n" + w, "loads[1].hold", {"1", "boolean"}},
      {"node = 1\nscale = 2.0\n" + w,
       "loads[1].scale",
       {"unknown key", "allowed in [loads]: node, frame, wrench"}},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.table);
    expect_one(issues_of(beam({}, "[[loads]]\nnode = 0\n" + w + "[[loads]]\n" + c.table)), c.key,
               c.fragments);
  }
  expect_one(issues_of(beam({}, "[loads]\nnode = 0\n")), "loads", {"array of tables", "[[loads]]"});
  expect_one(issues_of(beam(), {"loads[0].node=1"}), "loads[0].node", {"cannot be changed with --set"},
             "--set");
}

TEST(BeamScenario, StraightFramesAreOrthonormalRightHandedAndTangent) {
  // the flying spaghetti: from (6, 0, 0) towards (0, 8, 0), e3 = z
  const BeamScenario s = parse_beam_scenario(beam({{"grid.length", "10.0"},
                                                   {"grid.J", "20"},
                                                   {"initial.origin", "[6.0, 0.0, 0.0]"},
                                                   {"initial.direction", "[-6.0, 8.0, 0.0]"},
                                                   {"initial.normal", "[-0.6, 0.8, 2.0]"}}),
                                             "b.toml", "b");
  EXPECT_NEAR(s.direction[0], -0.6, 1e-15);
  EXPECT_NEAR(s.direction[1], 0.8, 1e-15);
  EXPECT_EQ(s.direction[2], 0.0);
  expect_frames_fit_the_centre_line(s, 1e-13);
  EXPECT_LT((position(s, 20) - Eigen::Vector3d(0.0, 8.0, 0.0)).norm(), 1e-13);
  const Eigen::Matrix3d R = rotation(s, 3);
  EXPECT_LT((R.col(2) - Eigen::Vector3d(0, 0, 1)).norm(), 1e-14);  // the normal was orthogonalised: z
  EXPECT_LT((R.col(1) - Eigen::Vector3d(-0.8, -0.6, 0.0)).norm(), 1e-14);
}

TEST(BeamScenario, ArcFramesFollowSection82) {
  const double S = 2.0 * std::numbers::pi / 3.0;
  const BeamScenario s = parse_beam_scenario(
      beam({{"initial.shape", "\"arc\""}, {"grid.length", "2.0943951023931953"}, {"grid.J", "200"}}),
      "b.toml", "b");
  expect_frames_fit_the_centre_line(s, 1e-4);
  for (const long long j : {0LL, 77LL, 200LL}) {
    const double u = std::numbers::pi / 6.0 + s.s_of(j);
    EXPECT_LT((position(s, j) - Eigen::Vector3d(0.0, std::cos(u), std::sin(u))).norm(), 1e-14);
    const Eigen::Matrix3d R = rotation(s, j);
    EXPECT_LT((R.col(0) - Eigen::Vector3d(0.0, -std::sin(u), std::cos(u))).norm(), 1e-14);
    EXPECT_LT((R.col(1) - Eigen::Vector3d(0.0, -std::cos(u), -std::sin(u))).norm(), 1e-14);
    EXPECT_LT((R.col(2) - Eigen::Vector3d(1.0, 0.0, 0.0)).norm(), 1e-14);
  }
  // symmetric about the z axis
  EXPECT_NEAR(position(s, 0)[1], -position(s, 200)[1], 1e-14);
  EXPECT_NEAR(s.s_of(200), S, 1e-14);
  // another radius and start, cell layout
  const BeamScenario c = parse_beam_scenario(beam({{"initial.shape", "\"arc\""},
                                                   {"initial.radius", "2.5"},
                                                   {"initial.arc_start", "0.0"},
                                                   {"grid.layout", "\"cell\""},
                                                   {"grid.J", "300"}}),
                                             "b.toml", "b");
  expect_frames_fit_the_centre_line(c, 1e-4);
  EXPECT_NEAR(position(c, 0).norm(), 2.5, 1e-14);
}

TEST(BeamScenario, InitialFileGoodAndBad) {
  const fs::path dir = workdir("file");
  std::string csv = "# a comment\nx,y,z,qw,qx,qy,qz,w1,w2,w3,v1,v2,v3\n";
  const double c = std::cos(0.25), sn = std::sin(0.25);
  const auto num = [](double x) { return lievi::io::format_number(x); };
  for (int j = 0; j < 5; ++j)
    csv += num(0.25 * j) + ",0,0," + num(-c) + ",0,0," + num(-sn) + ",0,0,1," + std::to_string(j) + ",0,0\n";
  write(dir / "init.csv", csv);
  write(dir / "s.toml", beam({{"initial.file", "\"init.csv\""}}));
  const BeamScenario s = lievi::io::load_beam_scenario(dir / "s.toml");
  EXPECT_STREQ(lievi::config::id(s.shape), "file");
  EXPECT_TRUE(s.file_velocity);
  ASSERT_EQ(s.poses.size(), 5u);
  EXPECT_GE(s.poses[1][3], 0.0);  // -q stored as q
  EXPECT_NEAR(s.poses[1][3], c, 1e-15);
  EXPECT_NEAR(s.poses[1][6], sn, 1e-15);
  EXPECT_EQ(s.velocity[3], (std::array<double, 6>{0, 0, 1, 3, 0, 0}));
  // without velocity columns initial.velocity applies
  write(dir / "pose.csv",
        "x,y,z,qw,qx,qy,qz\n0,0,0,1,0,0,0\n1,0,0,1,0,0,0\n2,0,0,1,0,0,0\n3,0,0,1,0,0,0\n"
        "4,0,0,1,0,0,0\n");
  write(dir / "p.toml", beam({{"initial.file", "\"pose.csv\""}, {"initial.velocity", "[1, 2, 3, 4, 5, 6]"}}));
  const BeamScenario p = lievi::io::load_beam_scenario(dir / "p.toml");
  EXPECT_EQ(p.velocity[4], (std::array<double, 6>{1, 2, 3, 4, 5, 6}));

  const auto file_issues = [&](const std::string& name, const std::string& text, const Changes& extra = {}) {
    write(dir / name, text);
    Changes ch = {{"initial.file", "\"" + name + "\""}};
    ch.insert(ch.end(), extra.begin(), extra.end());
    write(dir / "bad.toml", beam(ch));
    return issues_from([&] { return lievi::io::load_beam_scenario(dir / "bad.toml"); }, text);
  };
  const std::string head = "x,y,z,qw,qx,qy,qz\n", good = "0,0,0,1,0,0,0\n";
  const std::string f = (dir / "q.csv").string();
  expect_one(file_issues("q.csv", head + good + "0,0,0,1,0.001,0,0\n" + good + good + good), "initial.file",
             {"line 3", "norm", "1e-9"}, f);
  expect_one(file_issues("q.csv", head + good + good + "0,nan,0,1,0,0,0\n" + good + good), "initial.file",
             {"line 4, column 2", "not finite"}, f);
  expect_one(file_issues("q.csv", head + good + good + "0,a,0,1,0,0,0\n" + good + good), "initial.file",
             {"line 4, column 2", "'a' is not a number"}, f);
  expect_one(file_issues("q.csv", head + good + good), "initial.file", {"2 rows", "n_nodes = 5"}, f);
  expect_one(file_issues("q.csv", "x,y,z,qw,qx,qy\n" + good), "initial.file",
             {"line 1", "missing column 'qz'"}, f);
  expect_one(file_issues("q.csv", "x,y,z,qw,qx,qy,qz,w1\n"), "initial.file",
             {"line 1", "give all six or none"}, f);
  expect_one(file_issues("q.csv", head + good + "0,0,0\n" + good + good + good), "initial.file",
             {"line 3", "3 fields"}, f);
  expect_one(file_issues("init2.csv", csv, {{"initial.velocity", "[0, 0, 0, 0, 0, 1]"}}), "initial.velocity",
             {"velocity columns"}, (dir / "bad.toml").string());
  expect_one(file_issues("q.csv", head, {{"initial.file", "\"missing.csv\""}}), "initial.file",
             {"cannot read", "missing.csv"}, (dir / "bad.toml").string());
}

TEST(BeamScenario, ResolvedTomlLoadsBackToTheSameEntries) {
  const std::string loads =
      "[[loads]]\nnode = \"last\"\nframe = \"body\"\nwrench = [0.0, 0.0, 0.0, 0.0, 0.0, -1.0]\n"
      "[[loads]]\nnode = 0\nwrench = [0.0, 100.0, 200.0, 20.0, 0.0, 0.0]\n"
      "times = [0.0, 2.5, 5.0]\nfactors = [0.0, 1.0, 0.0]\nhold = true\n";
  const std::vector<std::string> texts = {
      beam(),
      beam({{"model.nu", "0.35"}, {"model.gravity", "[0.0, 0.0, -9.81]"}, {"bc.left", "\"clamped\""}}, loads),
      beam({{"model.section", "\"circle\""},
            {"model.r", "0.05"},
            {"model.G", "2.0"},
            {"initial.shape", "\"arc\""},
            {"initial.radius", "2.0"},
            {"grid.layout", "\"cell\""},
            {"integrator.retraction", "\"exp\""},
            {"output.probes", "[0, 3]"}}),
      beam({{"model.section", "\"matrix\""},
            {"model.K",
             "[[2.0,0.1,0,0,0,0],[0.1,1.0,0,0,0,0],[0,0,1.0,0,0,0],[0,0,0,1.0,0,0],[0,0,0,0,1.0,0],"
             "[0,0,0,0,0,1.0]]"},
            {"model.P",
             "[[1.0,0,0,0,0,0],[0,1.0,0,0,0,0],[0,0,1.0,0,0,0],[0,0,0,1.0,0,0],[0,0,0,0,1.0,0],"
             "[0,0,0,0,0,1.0]]"},
            {"initial.velocity", "[0.0, 0.0, 1.0, 0.0, 0.5, 0.0]"}}),
  };
  for (const auto& text : texts) {
    SCOPED_TRACE(text);
    const BeamScenario a = parse_beam_scenario(text, "b.toml", "b");
    const std::string printed = lievi::io::to_toml(a);
    const BeamScenario b = parse_beam_scenario(printed, "r.toml", "b");
    expect_same_entries(lievi::io::resolved_entries(a), lievi::io::resolved_entries(b));
    EXPECT_EQ(a.poses, b.poses);
    EXPECT_EQ(a.K, b.K);
    EXPECT_EQ(a.P, b.P);
    ASSERT_EQ(a.loads.size(), b.loads.size());
    for (std::size_t i = 0; i < a.loads.size(); ++i) {
      EXPECT_EQ(a.loads[i].node, b.loads[i].node);
      EXPECT_EQ(a.loads[i].wrench, b.loads[i].wrench);
      EXPECT_EQ(a.loads[i].times, b.loads[i].times);
      EXPECT_EQ(a.loads[i].hold, b.loads[i].hold);
    }
  }
  const BeamScenario s = parse_beam_scenario(texts[1], "b.toml", "b");
  const std::string printed = lievi::io::to_toml(s);
  EXPECT_NE(printed.find("# lievi: resolved beam scenario 'b'"), std::string::npos);
  EXPECT_NE(printed.find("# K = diag("), std::string::npos);
  EXPECT_NE(printed.find("[[loads]]"), std::string::npos);
  EXPECT_NE(printed.find("node = \"last\""), std::string::npos);
}

TEST(BeamScenario, SetConvertsTheNewTypes) {
  const BeamScenario s = parse_beam_scenario(beam(), "b.toml", "b",
                                             {"initial.velocity=[1,2,3,4,5,6]", "model.gravity=[0,0,-9.81]",
                                              "grid.J=6", "model.G=2", "integrator.newton_maxit=5"});
  EXPECT_EQ(s.initial_velocity, (std::array<double, 6>{1, 2, 3, 4, 5, 6}));
  EXPECT_EQ(s.gravity[2], -9.81);
  EXPECT_EQ(s.n_nodes(), 7);
  EXPECT_EQ(s.newton_maxit, 5);
  // nu and G exclusive: within --set both is an error
  expect_one(issues_of(beam(), {"model.G=2", "model.nu=0.3"}), "model.G", {"both"}, "--set");
  // but a --set of G replaces the file's nu
  const BeamScenario g = parse_beam_scenario(beam({{"model.nu", "0.3"}}), "b.toml", "b", {"model.G=2"});
  EXPECT_EQ(g.G, 2.0);
  expect_one(issues_of(beam(), {"initial.velocity=[1,2]"}), "initial.velocity", {"6 finite numbers"},
             "--set");
  expect_one(issues_of(beam(), {"model.K=[1"}), "model.K", {"does not convert", "6x6"}, "--set");
}

TEST(BeamScenario, AnyScenarioDispatchesToTheBeam) {
  const auto any = lievi::io::parse_any_scenario(beam(), "a.toml", "a");
  ASSERT_TRUE(std::holds_alternative<BeamScenario>(any));
  EXPECT_EQ(std::get<BeamScenario>(any).n_nodes(), 5);
  const auto is = issues_from(
      [&] {
        return lievi::io::parse_any_scenario(beam({{"grid.J", "0"}}), "a.toml", "a");
      },
      "J = 0");
  ASSERT_EQ(is.size(), 1u);
  EXPECT_EQ(is[0].key, "grid.J");
  // --set model.type=beam switches a wave file to the beam format
  const std::string wave = "[model]\ntype = \"wave\"\nc = 1.0\n[integrator]\ndt = 0.01\nt_end = 0.1\n";
  const auto switched = issues_from(
      [&] { return lievi::io::parse_any_scenario(wave, "a.toml", "a", {"model.type=beam"}); }, wave);
  ASSERT_FALSE(switched.empty());
  EXPECT_EQ(switched[0].key, "model.c");
  EXPECT_EQ(lievi::io::model_types(), (std::vector<std::string>{"rigid_body", "wave", "beam", "lagrangian", "kirchhoff", "string", "lie_group"}));
  std::vector<std::string> keys;
  for (const auto& e : lievi::io::schema_of("beam")) {
    EXPECT_FALSE(e.doc.empty()) << e.key;
    EXPECT_EQ(std::count(keys.begin(), keys.end(), e.key), 0) << e.key;
    keys.push_back(e.key);
    EXPECT_NE(lievi::io::schema_markdown("beam").find("| `" + e.key + "` |"), std::string::npos) << e.key;
  }
}

// The complete example of docs/scenarios.md (the first TOML block of the beam section) and the beam examples
// (examples/beam/*.toml, when present) are valid scenarios.
TEST(BeamScenario, DocsExampleAndExamplesValidate) {
  std::ifstream in(std::string(LIEVI_TEST_SOURCE_DIR) + "/docs/scenarios.md");
  ASSERT_TRUE(in);
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string doc = ss.str();
  const auto section = doc.find("## Geometrically exact beam");
  ASSERT_NE(section, std::string::npos);
  const auto b = doc.find("```toml\n", section), e = doc.find("\n```", b + 8);
  ASSERT_NE(b, std::string::npos);
  ASSERT_NE(e, std::string::npos);
  const BeamScenario s = parse_beam_scenario(doc.substr(b + 8, e - b - 8), "docs", "spaghetti");
  EXPECT_STREQ(lievi::config::id(s.section), "matrix");
  EXPECT_EQ(s.n_nodes(), 21);
  ASSERT_EQ(s.loads.size(), 1u);
  EXPECT_NEAR(200.0 * s.loads[0].factor(1.25), 100.0, 1e-12);
  const fs::path examples = fs::path(LIEVI_TEST_SOURCE_DIR) / "examples" / "beam";
  std::error_code ec;
  for (const auto& f : fs::directory_iterator(examples, ec)) {
    if (f.path().extension() != ".toml") continue;
    SCOPED_TRACE(f.path().string());
    EXPECT_NO_THROW((void)lievi::io::load_beam_scenario(f.path()));
  }
}

// integrator.variant = "approx" (docs/theory/beam.md "The two variants") is accepted with either retraction
// and printed back.
TEST(BeamScenario, ApproxVariantIsAccepted) {
  for (const char* ret : {"\"cayley\"", "\"exp\""}) {
    SCOPED_TRACE(ret);
    const BeamScenario s =
        parse_beam_scenario(beam({{"integrator.variant", "\"approx\""}, {"integrator.retraction", ret}}), "b.toml", "b");
    EXPECT_STREQ(lievi::config::id(s.variant), "approx");
    const BeamScenario b = parse_beam_scenario(lievi::io::to_toml(s), "r.toml", "b");
    EXPECT_STREQ(lievi::config::id(b.variant), "approx");
  }
  EXPECT_STREQ(lievi::config::id(parse_beam_scenario(beam(), "b.toml", "b", {"integrator.variant=approx"}).variant), "approx");
}

// [[noise.modes]]: Theta_k(s_j) = f_k(s_j) theta for the profiles constant, cos(k pi s / L), sin(k pi s / L)
// and given values; noise.theta is noted as ignored; the printout loads back to the same modes.
TEST(BeamScenario, NoiseModesAreReadFromArraysOfTables) {
  const std::string tables =
      "[[noise.modes]]\ntheta = [0.1, 0.0, 0.0, 0.0, 0.0, 0.2]\n"
      "[[noise.modes]]\ntheta = [0.0, 0.3, 0.0, 0.0, 0.0, 0.0]\nprofile = \"cos\"\nwavenumber = 1\n"
      "[[noise.modes]]\ntheta = [0.0, 0.0, 0.0, 0.5, 0.0, 0.0]\nprofile = \"sin\"\nwavenumber = 2\n"
      "[[noise.modes]]\ntheta = [0.0, 0.0, 1.0, 0.0, 0.0, 0.0]\nvalues = [1.0, -1.0, 0.5, 0.0, 2.0]\n";
  const Changes noise = {{"grid.length", "2.0"}, {"noise.mode", "\"modes\""}, {"noise.theta", "[1, 1, 1, 1, 1, 1]"}};
  const BeamScenario s = parse_beam_scenario(beam(noise, tables), "b.toml", "b");
  EXPECT_STREQ(lievi::config::id(s.noise_mode), "modes");
  ASSERT_EQ(s.noise_modes.size(), 4u);
  const double L = 2.0;
  const std::vector<double> values = {1.0, -1.0, 0.5, 0.0, 2.0};
  for (std::size_t k = 0; k < 4; ++k) {
    const auto& m = s.noise_modes[k];
    ASSERT_EQ(m.at_nodes.size(), 5u) << k;
    for (long long j = 0; j < 5; ++j) {
      const double sj = s.s_of(j);
      const double f = k == 0   ? 1.0
                       : k == 1 ? std::cos(std::numbers::pi * sj / L)
                       : k == 2 ? std::sin(2.0 * std::numbers::pi * sj / L)
                                : values[static_cast<std::size_t>(j)];
      for (std::size_t c = 0; c < 6; ++c) EXPECT_EQ(m.at_nodes[static_cast<std::size_t>(j)][c], f * m.theta[c]) << k << " " << j;
    }
  }
  EXPECT_STREQ(lievi::config::id(s.noise_modes[0].profile), "constant");
  EXPECT_STREQ(lievi::config::id(s.noise_modes[1].profile), "cos");
  EXPECT_EQ(s.noise_modes[1].wavenumber, 1);
  EXPECT_STREQ(lievi::config::id(s.noise_modes[3].profile), "values");
  EXPECT_EQ(s.noise_modes[3].values, values);
  // noise.theta is not read with modes (each table has its own theta): noted as ignored
  const auto notes = lievi::io::ignored_key_notes(s);
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_NE(notes[0].find("'noise.theta'"), std::string::npos) << notes[0];
  EXPECT_NE(notes[0].find("noise.mode = \"modes\""), std::string::npos) << notes[0];
  // the resolved entries name each table, and the printout loads back to the same entries and modes
  const auto entries = lievi::io::resolved_entries(s);
  const auto has = [&](const std::string& key) {
    return std::any_of(entries.begin(), entries.end(), [&](const auto& e) { return e.key == key; });
  };
  EXPECT_TRUE(has("noise.modes[0].theta"));
  EXPECT_TRUE(has("noise.modes[0].profile"));
  EXPECT_FALSE(has("noise.modes[0].wavenumber"));
  EXPECT_TRUE(has("noise.modes[2].wavenumber"));
  EXPECT_TRUE(has("noise.modes[3].values"));
  EXPECT_FALSE(has("noise.modes[3].profile"));
  const std::string printed = lievi::io::to_toml(s);
  EXPECT_NE(printed.find("[[noise.modes]]"), std::string::npos) << printed;
  const BeamScenario b = parse_beam_scenario(printed, "r.toml", "b");
  expect_same_entries(entries, lievi::io::resolved_entries(b));
  ASSERT_EQ(b.noise_modes.size(), 4u);
  for (std::size_t k = 0; k < 4; ++k) EXPECT_EQ(b.noise_modes[k].at_nodes, s.noise_modes[k].at_nodes) << k;
  // with noise.mode = "none" the tables are accepted and noted as ignored, one note per key
  const BeamScenario off = parse_beam_scenario(beam({{"noise.mode", "\"none\""}}, tables), "b.toml", "b");
  const auto off_notes = lievi::io::ignored_key_notes(off);
  EXPECT_EQ(off_notes.size(), 9u);
  EXPECT_NE(off_notes[0].find("'noise.modes[0].theta' is ignored with noise.mode = \"none\""), std::string::npos)
      << off_notes[0];
  // the cell layout: s_j = (j + 1/2) ds
  const BeamScenario cell = parse_beam_scenario(
      beam({{"grid.layout", "\"cell\""}, {"noise.mode", "\"modes\""}},
           "[[noise.modes]]\ntheta = [1.0, 0, 0, 0, 0, 0]\nprofile = \"cos\"\nwavenumber = 2\n"),
      "b.toml", "b");
  ASSERT_EQ(cell.noise_modes[0].at_nodes.size(), 4u);
  EXPECT_EQ(cell.noise_modes[0].at_nodes[1][0], std::cos(2.0 * std::numbers::pi * 0.375));
}

// Each bad [[noise.modes]] input is one issue naming the key (noise.modes[i].leaf), the value and what is allowed.
TEST(BeamScenario, BadNoiseModesNameKeyValueAndAllowed) {
  struct Case {
    std::string tables, key;
    std::vector<std::string> fragments;
    Changes changes = {{"noise.mode", "\"modes\""}};
  };
  const std::string ok = "[[noise.modes]]\ntheta = [0.1, 0, 0, 0, 0, 0]\n";
  const std::vector<Case> cases = {
      {ok + "[[noise.modes]]\ntheta = [1.0, 2.0]\n", "noise.modes[1].theta", {"[1.0, 2.0]", "6 finite numbers"}},
      {"[[noise.modes]]\ntheta = [nan, 0, 0, 0, 0, 0]\n", "noise.modes[0].theta", {"nan", "6 finite numbers"}},
      {"[[noise.modes]]\nprofile = \"cos\"\nwavenumber = 1\n", "noise.modes[0].theta", {"missing required key", "mode"}},
      {"[[noise.modes]]\ntheta = [0, 0, 0, 0, 0, 0]\n", "noise.modes[0].theta", {"[0, 0, 0, 0, 0, 0]", "is zero"}},
      {ok + "profile = \"square\"\n", "noise.modes[0].profile", {"\"square\"", "constant, cos, sin"}},
      {ok + "profile = \"cos\"\n", "noise.modes[0].wavenumber", {"missing required key", "cos(k pi s / L)"}},
      {ok + "profile = \"sin\"\nwavenumber = 0\n", "noise.modes[0].wavenumber", {"value 0", ">= 1", "sin"}},
      {ok + "profile = \"cos\"\nwavenumber = -1\n", "noise.modes[0].wavenumber", {"value -1", ">= 0"}},
      {ok + "profile = \"cos\"\nwavenumber = 1.5\n", "noise.modes[0].wavenumber", {"1.5", "integer"}},
      {ok + "wavenumber = 2\n", "noise.modes[0].wavenumber", {"profile = \"constant\"", "\"cos\" and \"sin\""}},
      // sin(4 pi j / 4) is zero at every vertex node of J = 4
      {ok + "profile = \"sin\"\nwavenumber = 4\n", "noise.modes[0].wavenumber", {"value 4", "zero at every node"}},
      {ok + "values = [1.0, 2.0]\n", "noise.modes[0].values", {"[1.0, 2.0]", "2 entries", "one per node", "n_nodes = 5"}},
      {ok + "values = [1.0, 2.0, inf, 0.0, 1.0]\n", "noise.modes[0].values", {"inf", "finite numbers"}},
      {ok + "values = [0.0, 0.0, 0.0, 0.0, 0.0]\n", "noise.modes[0].values", {"zero at every node"}},
      {ok + "profile = \"cos\"\nvalues = [1.0, 1.0, 1.0, 1.0, 1.0]\n", "noise.modes[0].values", {"both", "give one"}},
      {ok + "amplitude = 2.0\n", "noise.modes[0].amplitude", {"unknown key", "modes.theta"}},
      {"", "noise.modes", {"noise.mode = \"modes\"", "at least one [[noise.modes]] table"}},
      {"", "noise.modes", {"value []", "no mode"}, {{"noise.mode", "\"modes\""}, {"noise.modes", "[]"}}},
      {"", "noise.modes", {"array of tables", "[[noise.modes]]", "integer"}, {{"noise.mode", "\"modes\""}, {"noise.modes", "3"}}},
      {ok, "noise.modes", {"noise.mode = \"common\"", "only for noise.mode = \"modes\""},
       {{"noise.mode", "\"common\""}, {"noise.theta", "[0.1, 0, 0, 0, 0, 0]"}}},
      {ok, "noise.modes", {"noise.mode is not", "noise.mode = \"modes\""}, {}},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.tables + " | " + c.key);
    expect_one(issues_of(beam(c.changes, c.tables)), c.key, c.fragments);
  }
  // the tables cannot be changed with --set
  for (const char* set : {"noise.modes[0].theta=[1,0,0,0,0,0]", "noise.modes.theta=[1,0,0,0,0,0]", "noise.modes=[]"}) {
    SCOPED_TRACE(set);
    expect_one(issues_of(beam({{"noise.mode", "\"modes\""}}, ok), {set}),
               std::string(set).substr(0, std::string(set).find('=')), {"cannot be changed with --set"}, "--set");
  }
  // all issues of the tables together, in table order
  const auto is = issues_of(beam({{"noise.mode", "\"modes\""}},
                                 "[[noise.modes]]\ntheta = [1.0]\n[[noise.modes]]\ntheta = [1, 0, 0, 0, 0, 0]\n"
                                 "profile = \"tri\"\n"));
  std::vector<std::string> keys;
  for (const auto& i : is) keys.push_back(i.key);
  EXPECT_EQ(keys, (std::vector<std::string>{"noise.modes[0].theta", "noise.modes[1].profile"}));
}
