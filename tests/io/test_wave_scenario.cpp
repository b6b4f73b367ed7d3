// The wave scenario (model.type = "wave"): defaults, every key's bad values (each issue names the key, the
// value and what is allowed; all issues of a file together), unknown keys, --set for every type, the
// resolved printout round trip, initial.file, node positions and initial data against the formulas, the
// base_dt power-of-two rule, and the dispatch of any scenario on model.type.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <numbers>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "lievi/io/any_scenario.hpp"
#include "lievi/core/error.hpp"
#include "lievi/io/wave_scenario.hpp"

using lievi::InputIssue;
using lievi::io::parse_wave_scenario;
using lievi::io::WaveScenario;
namespace fs = std::filesystem;

namespace {

using Changes = std::vector<std::pair<std::string, std::string>>;

/// A wave scenario: the base keys (J = 10, dt = 0.01, t_end = 0.1) with `changes` applied (key -> TOML value
/// text; "" deletes the key), written section by section.
std::string wave(const Changes& changes = {}) {
  std::vector<std::pair<std::string, std::string>> keys = {
      {"model.type", "\"wave\""}, {"grid.J", "10"}, {"integrator.dt", "0.01"}, {"integrator.t_end", "0.1"}};
  for (const auto& [k, v] : changes) {
    auto it = std::find_if(keys.begin(), keys.end(), [&key = k](const auto& e) { return e.first == key; });
    if (it != keys.end())
      it->second = v;
    else
      keys.emplace_back(k, v);
  }
  std::string text;
  for (const char* section : {"model", "grid", "bc", "initial", "integrator", "noise", "output", "loads"}) {
    std::string body;
    for (const auto& [k, v] : keys)
      if (!v.empty() && k.substr(0, k.find('.')) == section)
        body += k.substr(k.find('.') + 1) + " = " + v + "\n";
    if (!body.empty()) text += "[" + std::string(section) + "]\n" + body;
  }
  return text;
}

/// The issues of a parse that must fail (fails the test if `parse()` returns); `what` describes the input.
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
  return issues_from([&] { return parse_wave_scenario(text, "w.toml", "w", sets); }, text);
}

/// Exactly one issue, on `key` from `file`, whose message contains every fragment.
void expect_one(const std::vector<InputIssue>& is, const std::string& key,
                const std::vector<std::string>& fragments, const std::string& file = "w.toml") {
  ASSERT_EQ(is.size(), 1u) << (is.empty() ? std::string("none")
                                          : is[0].format() + " ... " + is.back().format());
  EXPECT_EQ(is[0].file, file);
  EXPECT_EQ(is[0].key, key);
  for (const auto& f : fragments) EXPECT_NE(is[0].message.find(f), std::string::npos) << is[0].format();
}

/// A fresh folder under the build tree's tmp/.
fs::path workdir(const std::string& name) {
  const fs::path d = fs::path(LIEVI_TEST_TMP_DIR) / ("wave_" + name);
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

void write(const fs::path& p, const std::string& text) {
  std::ofstream(p, std::ios::binary) << text;
}

/// The same keys and values (the is_default flags may differ once defaults are written out).
void expect_same_entries(const std::vector<lievi::io::ResolvedEntry>& a,
                         const std::vector<lievi::io::ResolvedEntry>& b) {
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t n = 0; n < a.size(); ++n) {
    EXPECT_EQ(a[n].key, b[n].key);
    EXPECT_TRUE(a[n].value == b[n].value) << a[n].key;
  }
}

const std::string kTen = "[1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0]";

}  // namespace

TEST(WaveScenario, DefaultsResolved) {
  const WaveScenario s = parse_wave_scenario(wave(), "w.toml", "w");
  EXPECT_EQ(s.name, "w");
  EXPECT_EQ(s.c, 1.0);
  EXPECT_EQ(s.J, 10);
  EXPECT_STREQ(lievi::config::id(s.layout), "cell");
  EXPECT_EQ(s.length, 1.0);
  EXPECT_STREQ(lievi::config::id(s.bc_left), "free");
  EXPECT_STREQ(lievi::config::id(s.bc_right), "free");
  EXPECT_STREQ(lievi::config::id(s.shape), "cosine");
  EXPECT_EQ(s.amplitude, 1.0);
  EXPECT_EQ(s.wavenumber, 1);
  EXPECT_EQ(s.center, 0.3);
  EXPECT_EQ(s.width, 0.05);
  EXPECT_STREQ(lievi::config::id(s.method), "type-i");
  EXPECT_STREQ(lievi::config::id(s.variant), "exact");
  EXPECT_STREQ(lievi::config::id(s.start), "half");
  EXPECT_EQ(s.steps, 10);
  EXPECT_EQ(s.time_at(10), 0.1);
  EXPECT_FALSE(s.allow_unstable);
  EXPECT_STREQ(lievi::config::id(s.noise_mode), "none");
  EXPECT_EQ(s.theta, 0.0);
  EXPECT_EQ(s.seed, 1u);
  EXPECT_EQ(s.path, 0u);
  EXPECT_EQ(s.base_dt, 0.01);
  EXPECT_EQ(s.refine_log2, 0);
  EXPECT_FALSE(s.truncate);
  EXPECT_EQ(s.every, 1);
  EXPECT_EQ(s.probes, (std::vector<long long>{0, 5, 9}));
  EXPECT_TRUE(s.fields);
  EXPECT_EQ(s.fields_every, 1);
  EXPECT_FALSE(s.fields_csv);
  EXPECT_FALSE(s.per_path);
  EXPECT_TRUE(s.plots);
  EXPECT_EQ(s.n_nodes(), 10);
  EXPECT_EQ(s.phi0.size(), 10u);
  EXPECT_EQ(s.phi_t0, std::vector<double>(10, 0.0));
  EXPECT_TRUE(lievi::io::ignored_key_notes(s).empty());

  // grid.J defaults to 100; probes are the first, middle and last node, deduplicated for 2 nodes.
  const WaveScenario d = parse_wave_scenario(wave({{"grid.J", ""}}), "w.toml", "w");
  EXPECT_EQ(d.J, 100);
  EXPECT_EQ(d.probes, (std::vector<long long>{0, 50, 99}));
  EXPECT_EQ(parse_wave_scenario(wave({{"grid.J", "2"}}), "w.toml", "w").probes,
            (std::vector<long long>{0, 1}));

  // Every default entry is marked as such; model.type, dt, t_end are given.
  for (const auto& e : lievi::io::resolved_entries(s)) {
    const bool given =
        e.key == "model.type" || e.key == "grid.J" || e.key == "integrator.dt" || e.key == "integrator.t_end";
    EXPECT_EQ(e.is_default, !given) << e.key;
  }
}

TEST(WaveScenario, FieldsEveryDefaultKeepsAtMost1000Snapshots) {
  // 10000 steps: every = 1 -> 11 (10 would give 1001 snapshots with t = 0); every = 3 -> 12, not 9.
  const Changes long_run = {{"integrator.dt", "1e-4"}, {"integrator.t_end", "1.0"}};
  EXPECT_EQ(parse_wave_scenario(wave(long_run), "w.toml", "w").fields_every, 11);
  Changes every3 = long_run;
  every3.emplace_back("output.every", "3");
  EXPECT_EQ(parse_wave_scenario(wave(every3), "w.toml", "w").fields_every, 12);
  every3.emplace_back("output.fields_every", "7");
  EXPECT_EQ(parse_wave_scenario(wave(every3), "w.toml", "w").fields_every, 7);  // given: kept
}

TEST(WaveScenario, EachBadValueNamesKeyValueAndAllowed) {
  struct Case {
    Changes changes;
    std::string key;
    std::vector<std::string> fragments;
  };
  const std::string modes = "\"modes\"";
  const std::vector<Case> cases = {
      {{{"model.type", "\"rigid_body\""}}, "model.type", {"\"rigid_body\"", "allowed: wave"}},
      {{{"model.type", ""}}, "model.type", {"missing", "wave"}},
      {{{"model.c", "0"}}, "model.c", {"value 0 must be > 0"}},
      {{{"model.c", "\"fast\""}}, "model.c", {"\"fast\"", "string", "a number"}},
      {{{"grid.J", "1"}}, "grid.J", {"value 1 must be >= 2"}},
      {{{"grid.J", "2.5"}}, "grid.J", {"2.5", "an integer"}},
      {{{"grid.layout", "\"staggered\""}}, "grid.layout", {"\"staggered\"", "cell, vertex"}},
      {{{"grid.length", "-1.0"}}, "grid.length", {"-1", "> 0"}},
      {{{"bc.left", "\"prescribed\""}}, "bc.left", {"\"prescribed\"", "beams", "free, clamped, periodic"}},
      {{{"bc.right", "\"open\""}}, "bc.right", {"\"open\"", "free, clamped, periodic"}},
      {{{"bc.left", "\"periodic\""}}, "bc.right", {"\"free\"", "periodic must be on both ends"}},
      {{{"bc.right", "\"clamped\""}}, "bc.right", {"\"clamped\"", "grid.layout = \"vertex\"", "\"cell\""}},
      {{{"initial.shape", "\"square\""}},
       "initial.shape",
       {"\"square\"", "cosine, sine, gaussian, zero, file"}},
      {{{"initial.amplitude", "nan"}}, "initial.amplitude", {"nan", "finite"}},
      {{{"initial.wavenumber", "-1"}}, "initial.wavenumber", {"-1", ">= 0"}},
      {{{"initial.center", "\"x\""}}, "initial.center", {"\"x\"", "a number"}},
      {{{"initial.width", "0.0"}}, "initial.width", {"value 0 must be > 0"}},
      {{{"initial.shape", "\"file\""}}, "initial.file", {"missing", "s,phi"}},
      {{{"initial.shape", "\"sine\""}, {"initial.file", "\"x.csv\""}},
       "initial.file",
       {"initial.shape = \"sine\""}},
      {{{"initial.file", "\"no/such/file.csv\""}}, "initial.file", {"cannot read", "no/such/file.csv"}},
      {{{"initial.file", "3"}}, "initial.file", {"3", "a string"}},
      {{{"integrator.method", "\"type-iii\""}}, "integrator.method", {"\"type-iii\"", "type-i, type-ii"}},
      {{{"integrator.variant", "\"exactly\""}}, "integrator.variant", {"\"exactly\"", "exact, approx"}},
      {{{"integrator.start", "\"zero\""}}, "integrator.start", {"\"zero\"", "half, full"}},
      {{{"integrator.dt", ""}}, "integrator.dt", {"missing", "> 0"}},
      {{{"integrator.dt", "0.03"}},
       "integrator.dt",
       {"0.03", "integer number of steps", "dt = t_end/N", "N = 3", "N = 4"}},
      {{{"integrator.dt", "-0.01"}}, "integrator.dt", {"-0.01", "> 0"}},
      {{{"integrator.t_end", ""}}, "integrator.t_end", {"missing"}},
      {{{"integrator.t_end", "inf"}}, "integrator.t_end", {"inf", "finite"}},
      {{{"integrator.allow_unstable", "1"}}, "integrator.allow_unstable", {"1", "boolean"}},
      {{{"noise.mode", "\"white\""}}, "noise.mode", {"\"white\"", "none, common, independent, modes"}},
      {{{"noise.mode", "\"common\""}}, "noise.theta", {"missing", "noise.mode = \"common\""}},
      {{{"noise.mode", "\"independent\""}, {"noise.theta", "-1.0"}},
       "noise.theta",
       {"-1", "> 0", "\"independent\""}},
      {{{"noise.mode", modes}}, "noise.modes", {"missing", "noise.cosine_modes"}},
      {{{"noise.mode", modes}, {"noise.modes", "[[1.0, 2.0]]"}},
       "noise.modes",
       {"mode 0 has 2 values", "n_nodes = 10"}},
      {{{"noise.mode", modes}, {"noise.modes", "[1.0, 2.0]"}},
       "noise.modes",
       {"[1.0, 2.0]", "arrays of finite"}},
      {{{"noise.mode", modes},
        {"noise.modes", "[" + kTen + "]"},
        {"noise.cosine_modes", "2"},
        {"noise.theta", "1.0"}},
       "noise.cosine_modes",
       {"both"}},
      {{{"noise.mode", "\"common\""}, {"noise.theta", "1.0"}, {"noise.cosine_modes", "2"}},
       "noise.cosine_modes",
       {"only for noise.mode = \"modes\""}},
      {{{"noise.mode", modes}, {"noise.cosine_modes", "0"}, {"noise.theta", "1.0"}},
       "noise.cosine_modes",
       {"value 0 must be >= 1"}},
      {{{"noise.mode", modes}, {"noise.cosine_modes", "2"}}, "noise.theta", {"missing"}},
      {{{"noise.seed", "-1"}}, "noise.seed", {"-1", "[0, 4294967295]"}},
      {{{"noise.seed", "4294967296"}}, "noise.seed", {"4294967296", "[0, 4294967295]"}},
      {{{"noise.path", "\"a\""}}, "noise.path", {"\"a\"", "an integer"}},
      {{{"noise.base_dt", "0.003"}},
       "noise.base_dt",
       {"0.003", "2^m", "base_dt = 0.005", "base_dt = 0.0025"}},
      {{{"noise.base_dt", "0.02"}}, "noise.base_dt", {"0.02", "2^m", "base_dt = 0.01 (dt/2^0)"}},
      {{{"noise.base_dt", "0.0"}}, "noise.base_dt", {"value 0 must be > 0"}},
      {{{"noise.truncate", "\"yes\""}}, "noise.truncate", {"\"yes\"", "boolean"}},
      {{{"output.every", "0"}}, "output.every", {"value 0 must be >= 1"}},
      {{{"output.probes", "[0, 10]"}}, "output.probes", {"[0, 10]", "node 10 outside [0, 10)"}},
      {{{"output.probes", "[1, 1]"}}, "output.probes", {"[1, 1]", "twice"}},
      {{{"output.probes", "[0.5]"}}, "output.probes", {"[0.5]", "an array of integers"}},
      {{{"output.fields", "0"}}, "output.fields", {"0", "boolean"}},
      {{{"output.fields_every", "0"}}, "output.fields_every", {"value 0 must be >= 1"}},
      {{{"output.fields_csv", "\"no\""}}, "output.fields_csv", {"\"no\"", "boolean"}},
      {{{"output.per_path", "2"}}, "output.per_path", {"2", "boolean"}},
      {{{"output.plots", "\"x\""}}, "output.plots", {"\"x\"", "boolean"}},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.key + " <- " + (c.changes.empty() ? "" : c.changes[0].second));
    expect_one(issues_of(wave(c.changes)), c.key, c.fragments);
  }
  // Clamped is fine in the vertex layout; periodic on both ends in either layout.
  EXPECT_STREQ(lievi::config::id(
      parse_wave_scenario(wave({{"grid.layout", "\"vertex\""}, {"bc.left", "\"clamped\""}}), "w.toml", "w")
          .bc_left),
      "clamped");
  EXPECT_EQ(
      parse_wave_scenario(wave({{"bc.left", "\"periodic\""}, {"bc.right", "\"periodic\""}}), "w.toml", "w")
          .n_nodes(),
      10);
}

TEST(WaveScenario, AllIssuesOfAFileAreReportedTogether) {
  const auto is = issues_of(wave({{"model.c", "-1.0"},
                                  {"grid.layout", "\"staggered\""},
                                  {"integrator.dt", "0.0"},
                                  {"noise.mode", "\"common\""},
                                  {"output.every", "0"},
                                  {"output.bogus", "1"}}));
  std::vector<std::string> keys;
  for (const auto& i : is) keys.push_back(i.key);
  for (const char* k :
       {"model.c", "grid.layout", "integrator.dt", "noise.theta", "output.every", "output.bogus"})
    EXPECT_NE(std::find(keys.begin(), keys.end(), k), keys.end()) << k;
  EXPECT_EQ(is.size(), 6u);
}

TEST(WaveScenario, UnknownKeysWithDidYouMean) {
  expect_one(issues_of(wave({{"grid.j", "10"}})), "grid.j",
             {"unknown key", "allowed in [grid]", "did you mean 'J'"});
  expect_one(issues_of(wave({{"noise.tehta", "1.0"}})), "noise.tehta", {"did you mean 'theta'"});
  expect_one(issues_of(wave({{"loads.node", "1"}})), "loads.node",
             {"unknown key", "a wave scenario has the sections", "[noise]"});
  expect_one(issues_of(wave(), {"noise.sed=3"}), "noise.sed", {"unknown key", "did you mean 'seed'"},
             "--set");
  // A rigid-body key in a wave file is unknown too.
  expect_one(issues_of(wave({{"model.inertia", "[1.0, 2.0, 3.0]"}})), "model.inertia",
             {"unknown key", "allowed in [model]: type, c"});
}

TEST(WaveScenario, SetConvertsEveryType) {
  const WaveScenario s = parse_wave_scenario(
      wave({{"noise.mode", "\"modes\""}, {"noise.modes", "[" + kTen + "]"}}), "w.toml", "w",
      {"model.c=2.5", "grid.J=4", "grid.layout=\"vertex\"", "output.plots=false", "output.probes=[0, 2,4]",
       "noise.modes=[[1,2,3,4,5],[0,0,0,0,.5]]", "noise.seed=7", "integrator.dt=0.05", "integrator.t_end=1"});
  EXPECT_EQ(s.c, 2.5);
  EXPECT_EQ(s.J, 4);
  EXPECT_STREQ(lievi::config::id(s.layout), "vertex");
  EXPECT_FALSE(s.plots);
  EXPECT_EQ(s.probes, (std::vector<long long>{0, 2, 4}));
  ASSERT_EQ(s.modes.size(), 2u);
  EXPECT_EQ(s.modes[0], (std::vector<double>{1, 2, 3, 4, 5}));
  EXPECT_EQ(s.modes[1][4], 0.5);
  EXPECT_EQ(s.seed, 7u);
  EXPECT_EQ(s.steps, 20);
  // --set noise.cosine_modes replaces the file's noise.modes (at most one of them).
  const WaveScenario c =
      parse_wave_scenario(wave({{"noise.mode", "\"modes\""}, {"noise.modes", "[" + kTen + "]"}}), "w.toml",
                          "w", {"noise.cosine_modes=3", "noise.theta=0.5"});
  EXPECT_EQ(c.cosine_modes, 3);
  EXPECT_EQ(c.modes.size(), 3u);
  // Values that do not convert, or convert but are invalid, are --set issues naming the key.
  expect_one(issues_of(wave(), {"output.probes=[1,2"}), "output.probes", {"'[1,2'", "an array of integers"},
             "--set");
  expect_one(issues_of(wave(), {"noise.modes=[[1,2],x]"}), "noise.modes", {"an array of arrays of numbers"},
             "--set");
  expect_one(issues_of(wave(), {"grid.J=ten"}), "grid.J", {"'ten'", "an integer"}, "--set");
  expect_one(issues_of(wave(), {"output.probes=[0, 1.5]"}), "output.probes", {"[0, 1.5]", "integers"},
             "--set");
  expect_one(issues_of(wave(), {"grid.layout=hexagonal"}), "grid.layout", {"\"hexagonal\"", "cell, vertex"},
             "--set");
}

TEST(WaveScenario, ResolvedTomlLoadsBackToTheSameEntries) {
  for (const Changes& changes : std::vector<Changes>{
           {},
           {{"grid.layout", "\"vertex\""},
            {"bc.left", "\"clamped\""},
            {"initial.shape", "\"gaussian\""},
            {"initial.center", "0.5"},
            {"noise.mode", "\"modes\""},
            {"noise.cosine_modes", "2"},
            {"noise.theta", "0.001"},
            {"noise.base_dt", "0.00125"},
            {"output.probes", "[3, 1]"}},
           {{"noise.mode", "\"modes\""},
            {"noise.modes", "[" + kTen + ", " + kTen + "]"},
            {"noise.theta", "2.0"}},
           {{"noise.theta", "0.1"}, {"noise.seed", "5"}, {"initial.width", "0.2"}},  // ignored keys
       }) {
    const WaveScenario a = parse_wave_scenario(wave(changes), "w.toml", "w");
    const std::string printed = lievi::io::to_toml(a);
    SCOPED_TRACE(printed);
    EXPECT_NE(printed.find("# default"), std::string::npos);
    const WaveScenario b = parse_wave_scenario(printed, "printed.toml", "w");
    expect_same_entries(lievi::io::resolved_entries(a), lievi::io::resolved_entries(b));
    EXPECT_EQ(a.phi0, b.phi0);
    EXPECT_EQ(a.modes, b.modes);
    EXPECT_EQ(a.refine_log2, b.refine_log2);
    EXPECT_EQ(lievi::io::ignored_key_notes(a), lievi::io::ignored_key_notes(b));
  }
  // Ignored keys are printed with a note; keys that do not apply are left out.
  const WaveScenario n =
      parse_wave_scenario(wave({{"noise.theta", "0.1"}, {"initial.width", "0.2"}}), "w.toml", "w");
  const auto notes = lievi::io::ignored_key_notes(n);
  ASSERT_EQ(notes.size(), 2u);
  EXPECT_NE(notes[0].find("'initial.width'"), std::string::npos);
  EXPECT_NE(notes[0].find("initial.shape = \"cosine\""), std::string::npos);
  EXPECT_NE(notes[1].find("'noise.theta'"), std::string::npos);
  EXPECT_NE(notes[1].find("noise.mode = \"none\""), std::string::npos);
  const std::string printed = lievi::io::to_toml(n);
  EXPECT_NE(printed.find("# note: key 'noise.theta'"), std::string::npos) << printed;
  EXPECT_EQ(printed.find("seed"), std::string::npos) << printed;
  EXPECT_EQ(printed.find("center"), std::string::npos) << printed;
  // cosine modes are read with noise.mode = "modes" (no note, printed as given) and ignored with "none"
  const WaveScenario m = parse_wave_scenario(
      wave({{"noise.mode", "\"modes\""}, {"noise.cosine_modes", "3"}, {"noise.theta", "0.1"}}), "w.toml", "w");
  EXPECT_TRUE(lievi::io::ignored_key_notes(m).empty());
  EXPECT_NE(lievi::io::to_toml(m).find("cosine_modes = 3\n"), std::string::npos) << lievi::io::to_toml(m);
  EXPECT_EQ(lievi::io::to_toml(m).find("modes = [["), std::string::npos) << lievi::io::to_toml(m);
  const WaveScenario off = parse_wave_scenario(wave({{"noise.cosine_modes", "3"}}), "w.toml", "w");
  ASSERT_EQ(lievi::io::ignored_key_notes(off).size(), 1u);
  EXPECT_EQ(lievi::io::ignored_key_notes(off)[0], "key 'noise.cosine_modes' is ignored with noise.mode = \"none\"");
}

TEST(WaveScenario, InitialFileGood) {
  const fs::path d = workdir("file_good");
  // vertex, J = 4, length 2: nodes at 0, 0.5, ..., 2; CRLF line endings, a comment and a blank line.
  write(d / "init.csv",
        "# initial data\r\ns,phi,phi_t\r\n0,1,0.5\r\n0.5,2,0\r\n1.0,3,0\r\n\r\n1.5,4,0\r\n2,5,-1\r\n");
  write(d / "w.toml", wave({{"grid.J", "4"},
                            {"grid.layout", "\"vertex\""},
                            {"grid.length", "2.0"},
                            {"initial.file", "\"init.csv\""}}));
  const WaveScenario s = lievi::io::load_wave_scenario(d / "w.toml");
  EXPECT_STREQ(lievi::config::id(s.shape), "file");  // initial.file alone means shape "file"
  EXPECT_EQ(s.file_path, (d / "init.csv").string());
  EXPECT_EQ(s.phi0, (std::vector<double>{1, 2, 3, 4, 5}));
  EXPECT_EQ(s.phi_t0, (std::vector<double>{0.5, 0, 0, 0, -1}));
  // The printout keeps the relative path and loads again from the same folder; columns in any order.
  write(d / "again.toml", lievi::io::to_toml(s));
  expect_same_entries(lievi::io::resolved_entries(s),
                      lievi::io::resolved_entries(lievi::io::load_wave_scenario(d / "again.toml")));
  write(d / "init.csv", "phi,s\n1,0\n2,0.5\n3,1\n4,1.5\n5,2.0000000001\n");
  const WaveScenario t = lievi::io::load_wave_scenario(d / "w.toml");
  EXPECT_EQ(t.phi0, (std::vector<double>{1, 2, 3, 4, 5}));
  EXPECT_EQ(t.phi_t0, std::vector<double>(5, 0.0));
}

TEST(WaveScenario, InitialFileBadReportsFileLineAndColumn) {
  const fs::path d = workdir("file_bad");
  write(d / "w.toml", wave({{"grid.J", "4"},
                            {"grid.layout", "\"vertex\""},
                            {"initial.shape", "\"file\""},
                            {"initial.file", "\"init.csv\""}}));
  const std::string csv = (d / "init.csv").string();
  const auto issues = [&](const std::string& text) {
    write(d / "init.csv", text);
    return issues_from([&] { return lievi::io::load_wave_scenario(d / "w.toml"); }, text);
  };
  // wrong count
  expect_one(issues("s,phi\n0,1\n0.25,1\n0.5,1\n0.75,1\n"), "initial.file",
             {"line 5", "4 data rows", "n_nodes = 5 (grid.J = 4, layout vertex)"}, csv);
  // wrong s
  expect_one(issues("s,phi\n0,1\n0.3,1\n0.5,1\n0.75,1\n1,1\n"), "initial.file",
             {"line 3, column 1", "s = 0.3", "node 1", "0.25"}, csv);
  // non-finite and not a number, both reported
  const auto two = issues("s,phi,phi_t\n0,1,0\n0.25,nan,0\n0.5,1,0\n0.75,1,abc\n1,1,0\n");
  ASSERT_EQ(two.size(), 2u);
  EXPECT_EQ(two[0].file, csv);
  EXPECT_NE(two[0].message.find("line 3, column 2: value nan is not finite"), std::string::npos)
      << two[0].format();
  EXPECT_NE(two[1].message.find("line 5, column 3: value 'abc' is not a number"), std::string::npos)
      << two[1].format();
  // missing column, unknown column
  expect_one(issues("s,phi_t\n0,1\n0.25,1\n0.5,1\n0.75,1\n1,1\n"), "initial.file",
             {"line 1", "missing column 'phi'", "s,phi[,phi_t]"}, csv);
  const auto psi = issues("s,psi\n0,1\n");
  ASSERT_EQ(psi.size(), 2u);
  EXPECT_NE(psi[0].message.find("line 1, column 2: unknown column 'psi'"), std::string::npos)
      << psi[0].format();
  EXPECT_NE(psi[1].message.find("missing column 'phi'"), std::string::npos) << psi[1].format();
  // a short row
  expect_one(issues("s,phi\n0,1\n0.25\n0.5,1\n0.75,1\n1,1\n"), "initial.file", {"line 3", "has 1 fields"},
             csv);
}

TEST(WaveScenario, PositionsAndInitialDataMatchTheFormulas) {
  const double pi = std::numbers::pi;
  struct Layout {
    Changes changes;
    long long n;
    std::function<double(long long)> s;
  };
  const double ds = 2.0 / 8.0;
  const std::vector<Layout> layouts = {
      {{{"grid.layout", "\"cell\""}}, 8, [&](long long j) { return (static_cast<double>(j) + 0.5) * ds; }},
      {{{"grid.layout", "\"vertex\""}}, 9, [&](long long j) { return static_cast<double>(j) * ds; }},
      {{{"bc.left", "\"periodic\""}, {"bc.right", "\"periodic\""}},
       8,
       [&](long long j) { return static_cast<double>(j) * ds; }},
      {{{"grid.layout", "\"vertex\""}, {"bc.left", "\"periodic\""}, {"bc.right", "\"periodic\""}},
       8,
       [&](long long j) { return static_cast<double>(j) * ds; }},
  };
  const std::vector<std::pair<Changes, std::function<double(double)>>> shapes = {
      {{{"initial.shape", "\"cosine\""}, {"initial.amplitude", "0.5"}, {"initial.wavenumber", "3"}},
       [&](double x) { return 0.5 * std::cos(3 * pi * x / 2.0); }},
      {{{"initial.shape", "\"sine\""}, {"initial.wavenumber", "2"}},
       [&](double x) { return std::sin(2 * pi * x / 2.0); }},
      {{{"initial.shape", "\"gaussian\""},
        {"initial.amplitude", "2.0"},
        {"initial.center", "0.7"},
        {"initial.width", "0.3"}},
       [&](double x) { return 2.0 * std::exp(-((x - 0.7) / 0.3) * ((x - 0.7) / 0.3)); }},
      {{{"initial.shape", "\"zero\""}}, [](double) { return 0.0; }},
  };
  for (const auto& layout : layouts) {
    for (const auto& [shape, phi] : shapes) {
      Changes c = {{"grid.J", "8"}, {"grid.length", "2.0"}};
      c.insert(c.end(), layout.changes.begin(), layout.changes.end());
      c.insert(c.end(), shape.begin(), shape.end());
      const WaveScenario s = parse_wave_scenario(wave(c), "w.toml", "w");
      SCOPED_TRACE(lievi::io::to_toml(s));
      ASSERT_EQ(s.n_nodes(), layout.n);
      ASSERT_EQ(s.phi0.size(), static_cast<std::size_t>(layout.n));
      EXPECT_EQ(s.ds(), ds);
      for (long long j = 0; j < layout.n; ++j) {
        EXPECT_NEAR(s.s_of(j), layout.s(j), 1e-15) << j;
        EXPECT_NEAR(s.phi0[static_cast<std::size_t>(j)], phi(layout.s(j)), 1e-14) << j;
      }
      EXPECT_EQ(s.phi_t0, std::vector<double>(static_cast<std::size_t>(layout.n), 0.0));
    }
  }
  // Cosine noise modes: Theta_k(s_j) = theta cos(k pi s_j / S).
  const WaveScenario m = parse_wave_scenario(wave({{"grid.J", "8"},
                                                   {"grid.length", "2.0"},
                                                   {"noise.mode", "\"modes\""},
                                                   {"noise.cosine_modes", "3"},
                                                   {"noise.theta", "0.25"}}),
                                             "w.toml", "w");
  ASSERT_EQ(m.modes.size(), 3u);
  for (std::size_t k = 0; k < 3; ++k) {
    ASSERT_EQ(m.modes[k].size(), 8u);
    for (long long j = 0; j < 8; ++j)
      EXPECT_NEAR(m.modes[k][static_cast<std::size_t>(j)],
                  0.25 * std::cos(static_cast<double>(k) * pi * layouts[0].s(j) / 2.0), 1e-15);
  }
}

TEST(WaveScenario, BaseDtMustBeAPowerOfTwoBelowDt) {
  const auto refine = [](const std::string& base_dt) {
    return parse_wave_scenario(wave({{"noise.base_dt", base_dt}}), "w.toml", "w").refine_log2;
  };
  EXPECT_EQ(refine("0.01"), 0);
  EXPECT_EQ(refine("0.00125"), 3);
  EXPECT_EQ(refine("0.0025000000001"), 2);  // within 1e-9 relative
  EXPECT_EQ(refine(lievi::io::format_number(std::ldexp(0.01, -40), true)), 40);
  expect_one(issues_of(wave({{"noise.base_dt", lievi::io::format_number(std::ldexp(0.01, -41), true)}})),
             "noise.base_dt", {"2^m", "[0, 40]", "(dt/2^40)"});
  expect_one(issues_of(wave({{"noise.base_dt", "0.0025001"}})), "noise.base_dt",
             {"base_dt = 0.0025 (dt/2^2)"});
  // The default is dt itself, also after --set integrator.dt.
  EXPECT_EQ(parse_wave_scenario(wave(), "w.toml", "w", {"integrator.dt=0.005"}).base_dt, 0.005);
}

TEST(WaveScenario, AnyScenarioDispatchesOnModelType) {
  using lievi::io::parse_any_scenario;
  const auto any_issues = [](const std::string& text, const std::vector<std::string>& sets = {}) {
    return issues_from([&] { return parse_any_scenario(text, "a.toml", "a", sets); }, text);
  };
  const std::string rigid =
      "[model]\ntype = \"rigid_body\"\ninertia = [1.0, 1.3, 0.5]\n[initial]\nomega = [0.0, 0.05, 1.0]\n"
      "[integrator]\nmethod = \"rk4\"\ndt = 0.1\nt_end = 1.0\n";
  EXPECT_TRUE(std::holds_alternative<WaveScenario>(parse_any_scenario(wave(), "a.toml", "a")));
  EXPECT_TRUE(std::holds_alternative<lievi::io::RigidBodyScenario>(parse_any_scenario(rigid, "a.toml", "a")));
  expect_one(any_issues(wave({{"model.type", ""}})), "model.type", {"missing", "rigid_body, wave, beam"},
             "a.toml");
  expect_one(any_issues(wave({{"model.type", "\"rod\""}})), "model.type",
             {"\"rod\"", "rigid_body, wave, beam"}, "a.toml");
  expect_one(any_issues(wave({{"model.type", "2"}})), "model.type", {"2", "rigid_body, wave, beam"},
             "a.toml");
  expect_one(any_issues(wave(), {"model.type=rod"}), "model.type", {"\"rod\"", "rigid_body, wave, beam"},
             "--set");
  // --set model.type switches the format: the rigid-body keys are then unknown to the wave.
  const auto switched = any_issues(rigid, {"model.type=wave"});
  const auto inertia = std::find_if(switched.begin(), switched.end(),
                                    [](const InputIssue& i) { return i.key == "model.inertia"; });
  ASSERT_NE(inertia, switched.end());
  EXPECT_NE(inertia->message.find("unknown key; allowed in [model]: type, c"), std::string::npos);
  // The rigid-body path gives exactly the messages of parse_scenario.
  const std::string bad_rigid = rigid + "retraction = \"quat\"\nbogus = 1\n[grid]\nJ = 3\n";
  std::vector<std::string> via_any, direct;
  for (const auto& i : any_issues(bad_rigid)) via_any.push_back(i.format());
  try {
    (void)lievi::io::parse_scenario(bad_rigid, "a.toml", "a");
  } catch (const lievi::invalid_argument& e) {
    for (const auto& i : e.issues()) direct.push_back(i.format());
  }
  EXPECT_EQ(via_any, direct);
  EXPECT_EQ(via_any.size(), 3u);
}

TEST(WaveScenario, SchemaListsEveryKeyOnce) {
  EXPECT_EQ(lievi::io::model_types(), (std::vector<std::string>{"rigid_body", "wave", "beam", "lagrangian", "kirchhoff", "string", "lie_group"}));
  std::vector<std::string> keys;
  for (const auto& e : lievi::io::schema_of("wave")) {
    EXPECT_FALSE(e.doc.empty()) << e.key;
    EXPECT_FALSE(e.requirement.empty()) << e.key;
    EXPECT_EQ(std::count(keys.begin(), keys.end(), e.key), 0) << e.key;
    keys.push_back(e.key);
    EXPECT_NE(lievi::io::schema_markdown("wave").find("| `" + e.key + "` |"), std::string::npos) << e.key;
  }
  EXPECT_EQ(keys.size(), 44u);  // with the AVI's integrator.fraction, integrator.queue and five regions.* keys
  EXPECT_THROW((void)lievi::io::schema_of("rod"), lievi::invalid_argument);
}
