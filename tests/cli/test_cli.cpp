// End-to-end tests of the `lievi` program (docs/cli.md, docs/outputs.md): exit codes 0/2/3, series.csv and
// summary.json contents, bitwise agreement with an in-process run through the C++ API, --set conversion,
// every bad input of issue 2 §6 (one line per issue naming file/key/value, nothing written), atomic output
// folders, numerical failure mid-run, validate, methods, --version. Runs are short (t_end of a few time
// units) to keep this fast.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "lievi/integrators/rigid_body_stepper.hpp"
#include "support/cli_process.hpp"
#include "lievi/io/scenario.hpp"
#include "lievi/run/rigid_body_series.hpp"
#include "lievi/run/rigid_body_run.hpp"

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

using Result = lievi::test::CliResult;
using lievi::test::dir_entries;
using lievi::test::read_file;

std::string read(const fs::path& p) { return read_file(p); }

/// A fresh, empty working folder under the build tree.
fs::path workdir(const std::string& name) { return lievi::test::fresh_dir(LIEVI_TEST_TMP_DIR, name); }

/// Run `lievi args...` in `cwd` (stderr is not a TTY here, so no progress line); `env` is prefixed.
Result run_cli(const fs::path& cwd, const std::vector<std::string>& args, const std::string& env = "") {
  return lievi::test::run_program(LIEVI_CLI_PATH, cwd, args, env);
}

std::vector<std::string> entries(const fs::path& d) { return dir_entries(d); }

bool has_method(const std::string& id) {
  for (const auto& t : lievi::integrators::rigid_body_methods())
    if (id == t.id) return true;
  return false;
}

// Scenario A of seed 002 with rk4, a short interval and no plots (plots are tested separately).
const std::string kScenario = R"(# short Scenario A
[model]
type = "rigid_body"
inertia = [1.0, 1.3, 0.5]
alpha = 0.5
[initial]
omega = [0.0, 0.05, 1.0]
[integrator]
method = "rk4"
dt = 0.1
t_end = 3.0
[output]
every = 7
plots = false
)";

fs::path write_scenario(const fs::path& dir, const std::string& text, const std::string& name = "scen.toml") {
  const fs::path p = dir / name;
  std::ofstream(p) << text;
  return p;
}

struct Table {
  std::string header;
  std::vector<std::vector<double>> rows;
};
Table read_csv(const fs::path& p) {
  Table t;
  std::ifstream in(p);
  std::getline(in, t.header);
  for (std::string line; std::getline(in, line);) {
    std::vector<double> row;
    std::stringstream ss(line);
    for (std::string cell; std::getline(ss, cell, ',');) row.push_back(std::strtod(cell.c_str(), nullptr));
    t.rows.push_back(row);
  }
  return t;
}

/// The rows an in-process run through the C++ API produces (same function as the writer's row).
struct RowRecorder final : lievi::run::RigidBodyObserver {
  lievi::models::RigidBody model;
  std::vector<lievi::run::RigidBodyRow> rows;
  void begin(const lievi::models::RigidBody& m, const lievi::models::RigidBodyState&) override { model = m; }
  void output(long long, double t, const lievi::models::RigidBodyState& x) override {
    rows.push_back(lievi::run::rigid_body_row(model, t, x));
  }
};

/// Checks a complete run folder against an in-process run of the same scenario and overrides.
void check_run_folder(const fs::path& scen, const std::vector<std::string>& sets, const fs::path& out) {
  const auto s = lievi::io::load_scenario(scen, sets);
  const Table t = read_csv(out / "series.csv");
  EXPECT_EQ(t.header, "t,M1,M2,M3,energy,casimir,qw,qx,qy,qz");
  ASSERT_FALSE(t.rows.empty());
  EXPECT_EQ(t.rows.front()[0], 0.0);
  EXPECT_EQ(t.rows.back()[0], s.t_end);
  // Rows: k = 0, every, 2 every, ..., and N if N is not a multiple of every.
  const long long n_rows = s.steps / s.every + 1 + (s.steps % s.every != 0 ? 1 : 0);
  EXPECT_EQ(static_cast<long long>(t.rows.size()), n_rows);

  RowRecorder rec;
  lievi::run::RigidBodyObserver* obs[] = {&rec};
  const auto r = lievi::run::integrate_rigid_body(s, obs);
  ASSERT_TRUE(r.complete);
  ASSERT_EQ(rec.rows.size(), t.rows.size());
  for (std::size_t i = 0; i < t.rows.size(); ++i) {
    ASSERT_EQ(t.rows[i].size(), 10u);
    for (int c = 0; c < 10; ++c) EXPECT_EQ(t.rows[i][c], rec.rows[i].v[c]) << "row " << i << " col " << c;
    const double C = t.rows[i][1] * t.rows[i][1] + t.rows[i][2] * t.rows[i][2] + t.rows[i][3] * t.rows[i][3];
    // casimir = |M|^2 of the same row, up to the summation order: each order of summing 3 squares is within
    // 2u C of the exact sum (u = 2^-53), so two orders differ by at most 4u C ~ 4.4e-16 C; 6e-16 leaves
    // margin.
    EXPECT_NEAR(t.rows[i][5], C, 6e-16 * C);
    const double qn = std::sqrt(t.rows[i][6] * t.rows[i][6] + t.rows[i][7] * t.rows[i][7] +
                                t.rows[i][8] * t.rows[i][8] + t.rows[i][9] * t.rows[i][9]);
    EXPECT_NEAR(qn, 1.0, 1e-15);  // normalised quaternion: |q| = 1 within a few ulps of 1
    EXPECT_GE(t.rows[i][6], 0.0);
  }

  const json j = json::parse(read(out / "summary.json"));
  for (const char* k : {"status", "scenario", "method", "steps", "n_nodes", "timing", "final", "diagnostics",
                        "newton", "notes", "version"})
    EXPECT_TRUE(j.contains(k)) << k;
  EXPECT_EQ(j["status"], "complete");
  EXPECT_FALSE(j.contains("failure"));
  EXPECT_EQ(j["steps"], s.steps);
  EXPECT_EQ(j["n_nodes"], 1);
  EXPECT_EQ(j["method"]["id"], std::string(lievi::config::id(s.method)));
  EXPECT_TRUE(j["method"].contains("order"));
  EXPECT_TRUE(j["method"].contains("retraction"));
  EXPECT_GE(j["timing"]["total_s"].get<double>(), j["timing"]["integrate_s"].get<double>());
  for (const char* k :
       {"casimir_max_rel_drift", "energy_max_step_increase", "momentum_max_drift", "orth_err_max"})
    EXPECT_TRUE(j["diagnostics"].contains(k)) << k;
  for (const char* k : {"max", "mean", "total"}) EXPECT_TRUE(j["newton"].contains(k)) << k;
  EXPECT_EQ(j["newton"]["total"], r.newton.total);
  EXPECT_EQ(j["version"], LIEVI_TEST_PROJECT_VERSION);
  // final state = last row, bitwise (JSON doubles are written round-trip)
  for (int c = 0; c < 3; ++c) EXPECT_EQ(j["final"]["M"][c].get<double>(), t.rows.back()[1 + c]);
  EXPECT_EQ(j["final"]["t"].get<double>(), s.t_end);
  // the resolved scenario, with defaults
  EXPECT_EQ(j["scenario"]["integrator"]["dt"].get<double>(), s.dt);
  EXPECT_EQ(j["scenario"]["output"]["every"], s.every);
  EXPECT_TRUE(j["scenario"]["integrator"].contains("retraction"));
}

}  // namespace

TEST(Cli, VersionAndHelp) {
  const fs::path d = workdir("version");
  const Result v = run_cli(d, {"--version"});
  EXPECT_EQ(v.code, 0);
  EXPECT_EQ(v.out, std::string("lievi ") + LIEVI_TEST_PROJECT_VERSION + "\n");
  const Result h = run_cli(d, {"--help"});
  EXPECT_EQ(h.code, 0);
  for (const char* c : {"run", "validate", "methods"}) EXPECT_NE(h.out.find(c), std::string::npos) << c;
  const Result rh = run_cli(d, {"run", "--help"});
  EXPECT_EQ(rh.code, 0);
  for (const char* c : {"--set", "--out", "--force"}) EXPECT_NE(rh.out.find(c), std::string::npos) << c;
  const Result bad = run_cli(d, {"run", "--no-such-flag", "x.toml"});
  EXPECT_EQ(bad.code, 2);
  EXPECT_EQ(bad.err_lines().size(), 1u) << bad.err;
  EXPECT_EQ(run_cli(d, {}).code, 2);  // a subcommand is required
}

TEST(Cli, MethodsListsEveryRegisteredId) {
  const Result r = run_cli(workdir("methods"), {"methods"});
  ASSERT_EQ(r.code, 0);
  // the rigid-body table is the first; other model types may list a method of the same name (lie_group's
  // moser-veselov on its own state), so the ids are looked up in that table only
  const std::string rigid = r.out.substr(0, r.out.find("\nfield methods"));
  for (const auto& t : lievi::integrators::rigid_body_methods()) {
    std::istringstream in(rigid);
    bool found = false;
    for (std::string l; std::getline(in, l);) {
      std::istringstream ls(l);
      std::string id;
      int order = 0;
      ls >> id >> order;
      if (id == t.id) {
        found = true;
        EXPECT_EQ(order, t.order) << l;
        EXPECT_NE(l.find(t.is_implicit ? "yes" : "no"), std::string::npos) << l;
      }
    }
    EXPECT_TRUE(found) << t.id << " missing from\n" << r.out;
  }
  EXPECT_NE(r.out.find("cayley, exp, exp2"), std::string::npos);
  // every model type's table, the beam's with its variants and retractions
  for (const char* line : {"field methods (model.type = \"wave\"", "beam methods (model.type = \"beam\"",
                           "lagrangian methods (model.type = \"lagrangian\"", "kirchhoff methods (model.type",
                           "string methods (model.type", "lie_group methods (model.type", "variants (integrator.variant): exact",
                           "retractions (integrator.retraction, beam): cayley (the default), exp"})
    EXPECT_NE(r.out.find(line), std::string::npos) << line << " missing from\n" << r.out;
}

TEST(Cli, RunWritesCompleteRoundTripOutputs) {
  const fs::path d = workdir("run");
  const fs::path scen = write_scenario(d, kScenario);
  const Result r = run_cli(d, {"run", scen.string(), "--out", "out"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.err, "");  // not a TTY: no progress line
  EXPECT_EQ(entries(d / "out"), (std::vector<std::string>{".lievi-output", "series.csv", "summary.json"}));
  check_run_folder(scen, {}, d / "out");
  EXPECT_EQ(entries(d), (std::vector<std::string>{"out", "scen.toml"}));  // no DIR.tmp-* left
}

TEST(Cli, RunDdbRoundTripsWithNewtonStatistics) {
  if (!has_method("ddb")) GTEST_SKIP() << "ddb not registered";
  const fs::path d = workdir("run_ddb");
  const fs::path scen = write_scenario(d, kScenario);
  for (const char* tau : {"cayley", "exp", "exp2"}) {
    const std::vector<std::string> sets = {"integrator.method=ddb",
                                           std::string("integrator.retraction=") + tau, "output.every=1"};
    std::vector<std::string> args = {"run", scen.string(), "--out", std::string("out_") + tau};
    for (const auto& s : sets) args.insert(args.end(), {"--set", s});
    const Result r = run_cli(d, args);
    ASSERT_EQ(r.code, 0) << r.err;
    check_run_folder(scen, sets, d / (std::string("out_") + tau));
    const json j = json::parse(read(d / (std::string("out_") + tau) / "summary.json"));
    EXPECT_EQ(j["method"]["retraction"], tau);
    EXPECT_GE(j["newton"]["max"].get<int>(), 1);  // implicit step (a) takes Newton iterations
    // DDB keeps |M|^2 to round-off (docs/theory/ddb.md): a few ulps over 30 steps.
    EXPECT_LE(j["diagnostics"]["casimir_max_rel_drift"].get<double>(), 1e-15);
  }
}

TEST(Cli, DefaultOutputFolderIsRunsSlashStem) {
  const fs::path d = workdir("default_out");
  const fs::path scen = write_scenario(d, kScenario, "my_case.toml");
  const Result r = run_cli(d, {"run", "my_case.toml"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(fs::exists(d / "runs" / "my_case" / "series.csv"));
  EXPECT_TRUE(fs::exists(d / "runs" / "my_case" / "summary.json"));
}

TEST(Cli, SetOverridesNumbersStringsArraysBooleans) {
  const fs::path d = workdir("set");
  const fs::path scen = write_scenario(d, kScenario);
  const std::vector<std::string> sets = {
      "integrator.dt=0.05", "integrator.method=rk4", "initial.omega=[0.1,0.2,0.3]",
      "output.plots=false", "output.every=4",        "model.inertia=[2, 1, 3]"};
  std::vector<std::string> args = {"run", scen.string(), "--out", "out"};
  for (const auto& s : sets) args.insert(args.end(), {"--set", s});
  const Result r = run_cli(d, args);
  ASSERT_EQ(r.code, 0) << r.err;
  const json j = json::parse(read(d / "out" / "summary.json"));
  EXPECT_EQ(j["scenario"]["integrator"]["dt"].get<double>(), 0.05);
  EXPECT_EQ(j["steps"], 60);
  EXPECT_EQ(j["scenario"]["initial"]["omega"], json::array({0.1, 0.2, 0.3}));
  EXPECT_EQ(j["scenario"]["model"]["inertia"], json::array({2.0, 1.0, 3.0}));
  EXPECT_EQ(j["scenario"]["output"]["every"], 4);
  EXPECT_EQ(j["scenario"]["output"]["plots"], false);
  check_run_folder(scen, sets, d / "out");

  // A value that does not convert: exit 2, one line naming the key, nothing written.
  const Result bad = run_cli(d, {"run", scen.string(), "--out", "out2", "--set", "integrator.dt=fast"});
  EXPECT_EQ(bad.code, 2);
  ASSERT_EQ(bad.err_lines().size(), 1u) << bad.err;
  EXPECT_EQ(bad.err_lines()[0], "--set: key 'integrator.dt': value 'fast' does not convert to a number");
  EXPECT_FALSE(fs::exists(d / "out2"));
}

// Issue 2 §6: each bad input -> exit 2, a one-line message naming file, key, value and what is allowed, and
// nothing written (neither DIR nor DIR.tmp-*).
TEST(Cli, EachBadInputExitsTwoAndWritesNothing) {
  const fs::path d = workdir("bad");
  struct Case {
    std::string name, from, to, key, fragment;
  };
  const std::vector<Case> cases = {
      {"unknown_key", "[output]", "[output]\nspeed = 3", "output.speed", "unknown key"},
      {"missing_key", "t_end = 3.0", "", "integrator.t_end", "missing"},
      {"wrong_type", "dt = 0.1", "dt = \"0.1\"", "integrator.dt", "expected a number"},
      {"zero_inertia", "inertia = [1.0, 1.3, 0.5]", "inertia = [1.0, 0.0, 0.5]", "model.inertia", "> 0"},
      {"negative_alpha", "alpha = 0.5", "alpha = -0.5", "model.alpha", "value -0.5 must be >= 0"},
      {"zero_dt", "dt = 0.1", "dt = 0", "integrator.dt", "value 0 must be > 0"},
      {"negative_dt", "dt = 0.1", "dt = -0.1", "integrator.dt", "value -0.1 must be > 0"},
      {"zero_t_end", "t_end = 3.0", "t_end = 0.0", "integrator.t_end", "value 0 must be > 0"},
      {"unknown_method", "method = \"rk4\"", "method = \"euler\"", "integrator.method", "\"euler\""},
      {"unknown_retraction", "method = \"rk4\"", "method = \"rk4\"\nretraction = \"quat\"",
       "integrator.retraction", "allowed: cayley, exp, exp2"},
      {"not_a_multiple", "dt = 0.1", "dt = 0.7", "integrator.dt", "dt = t_end/N"},
  };
  for (const auto& c : cases) {
    std::string text = kScenario;
    const auto pos = text.find(c.from);
    ASSERT_NE(pos, std::string::npos) << c.name;
    text.replace(pos, c.from.size(), c.to);
    const fs::path case_dir = workdir("bad/" + c.name);
    const fs::path scen = write_scenario(case_dir, text);
    const Result r = run_cli(case_dir, {"run", scen.string(), "--out", "out"});
    EXPECT_EQ(r.code, 2) << c.name << ": " << r.err;
    const auto lines = r.err_lines();
    ASSERT_EQ(lines.size(), 1u) << c.name << ": " << r.err;
    EXPECT_EQ(lines[0].rfind(scen.string() + ": key '" + c.key + "': ", 0), 0u) << c.name << ": " << lines[0];
    EXPECT_NE(lines[0].find(c.fragment), std::string::npos) << c.name << ": " << lines[0];
    EXPECT_EQ(entries(case_dir), std::vector<std::string>{"scen.toml"}) << c.name;  // nothing written
    EXPECT_EQ(r.out, "") << c.name;
  }

  // Unwritable --out (its parent is a regular file): bad input, detected before running.
  const fs::path u = workdir("bad/unwritable");
  const fs::path scen = write_scenario(u, kScenario);
  std::ofstream(u / "a_file") << "x";
  const Result r = run_cli(u, {"run", scen.string(), "--out", (u / "a_file" / "out").string()});
  EXPECT_EQ(r.code, 2) << r.err;
  ASSERT_EQ(r.err_lines().size(), 1u) << r.err;
  EXPECT_EQ(r.err_lines()[0].rfind("--out: ", 0), 0u) << r.err;
  EXPECT_EQ(entries(u), (std::vector<std::string>{"a_file", "scen.toml"}));

  // A missing scenario file, and --paths (no noise for the rigid body).
  const Result missing = run_cli(u, {"run", "nope.toml"});
  EXPECT_EQ(missing.code, 2);
  EXPECT_EQ(missing.err_lines().size(), 1u);
  const Result paths = run_cli(u, {"run", scen.string(), "--paths", "4"});
  EXPECT_EQ(paths.code, 2);
  ASSERT_EQ(paths.err_lines().size(), 1u);
  EXPECT_NE(paths.err_lines()[0].find("noise"), std::string::npos) << paths.err;
  EXPECT_EQ(entries(u), (std::vector<std::string>{"a_file", "scen.toml"}));
}

TEST(Cli, APrioriStepCheckIsBadInput) {
  if (!has_method("ddb")) GTEST_SKIP() << "ddb not registered";
  // DDB-exp: step (a) has a pole at h|xi| = 2 pi; |M0| / I_min = |(0, 0.065, 0.5)| / 0.5 ~ 1.008, so dt = 7.5
  // (h |M0| / I_min ~ 7.6 > 2 pi) must be refused before anything is written.
  const fs::path d = workdir("apriori");
  const fs::path scen = write_scenario(d, kScenario);
  const Result r =
      run_cli(d, {"run", scen.string(), "--out", "out", "--set", "integrator.method=ddb", "--set",
                  "integrator.retraction=exp", "--set", "integrator.dt=7.5", "--set", "integrator.t_end=15"});
  EXPECT_EQ(r.code, 2) << r.err;
  ASSERT_EQ(r.err_lines().size(), 1u) << r.err;
  EXPECT_NE(r.err_lines()[0].find("integrator.dt"), std::string::npos) << r.err;
  EXPECT_EQ(entries(d), std::vector<std::string>{"scen.toml"});
}

TEST(Cli, SeveralErrorsAreReportedTogether) {
  const fs::path d = workdir("several");
  std::string text = kScenario;
  text.replace(text.find("dt = 0.1"), 8, "dt = 0");
  text.replace(text.find("alpha = 0.5"), 11, "alpha = -1.0");
  text += "colour = \"red\"\n";
  const fs::path scen = write_scenario(d, text);
  const Result r = run_cli(d, {"run", scen.string(), "--set", "output.every=0"});
  EXPECT_EQ(r.code, 2);
  const auto lines = r.err_lines();
  ASSERT_EQ(lines.size(), 4u) << r.err;
  std::string all = r.err;
  for (const char* k : {"'integrator.dt'", "'model.alpha'", "'output.colour'", "'output.every'"})
    EXPECT_NE(all.find(k), std::string::npos) << k << "\n" << all;
  EXPECT_NE(all.find("--set: key 'output.every': value 0 must be >= 1"), std::string::npos) << all;
  EXPECT_EQ(entries(d), std::vector<std::string>{"scen.toml"});
}

// --force replaces only a folder lievi wrote (tests/cli/test_cli_safety.cpp has the other refusals).
TEST(Cli, ExistingFolderRefusedWithoutForceAndReplacedWithForce) {
  const fs::path d = workdir("force");
  const fs::path scen = write_scenario(d, kScenario);
  fs::create_directories(d / "out");
  std::ofstream(d / "out" / "precious.txt") << "keep me";
  const Result r = run_cli(d, {"run", scen.string(), "--out", "out"});
  EXPECT_EQ(r.code, 2);
  ASSERT_EQ(r.err_lines().size(), 1u) << r.err;
  EXPECT_NE(r.err.find("--force"), std::string::npos);
  EXPECT_EQ(entries(d / "out"), std::vector<std::string>{"precious.txt"});
  EXPECT_EQ(read(d / "out" / "precious.txt"), "keep me");
  EXPECT_EQ(entries(d), (std::vector<std::string>{"out", "scen.toml"}));

  const Result refused = run_cli(d, {"run", scen.string(), "--out", "out", "--force"});  // not lievi's folder
  EXPECT_EQ(refused.code, 2);
  EXPECT_EQ(entries(d / "out"), std::vector<std::string>{"precious.txt"});
  fs::remove(d / "out" / "precious.txt");
  ASSERT_EQ(run_cli(d, {"run", scen.string(), "--out", "out"}).code, 0);
  const Result f = run_cli(d, {"run", scen.string(), "--out", "out", "--force"});
  ASSERT_EQ(f.code, 0) << f.err;
  EXPECT_EQ(entries(d / "out"), (std::vector<std::string>{".lievi-output", "series.csv", "summary.json"}));
  EXPECT_EQ(entries(d), (std::vector<std::string>{"out", "scen.toml"}));  // no .tmp-/.old- leftovers

  fs::create_directories(d / "empty");  // an existing empty folder is fine without --force
  EXPECT_EQ(run_cli(d, {"run", scen.string(), "--out", "empty"}).code, 0);
}

TEST(Cli, NumericalFailureExitsThreeAndKeepsGoodRows) {
  // RK4 on Scenario A at dt = 10 blows up within a few steps (|M| grows by a large factor per step once
  // h |Omega| >> 1); measured: step 2 fails. Without dissipation (alpha = 0): at alpha = 0.5 the rise of H in
  // step 1 is already the failure (energy rise under pure dissipation, tests/health).
  const fs::path d = workdir("failure");
  const fs::path scen = write_scenario(d, kScenario);
  const Result r = run_cli(d, {"run", scen.string(), "--out", "out", "--set", "integrator.dt=10", "--set",
                               "integrator.t_end=1000", "--set", "output.every=1", "--set", "model.alpha=0"});
  EXPECT_EQ(r.code, 3) << r.err;
  ASSERT_EQ(r.err_lines().size(), 1u) << r.err;
  EXPECT_NE(r.err.find("numerical failure"), std::string::npos);
  EXPECT_NE(r.err.find("smaller integrator.dt"), std::string::npos);
  EXPECT_EQ(entries(d), (std::vector<std::string>{"out", "scen.toml"}));
  const json j = json::parse(read(d / "out" / "summary.json"));
  EXPECT_EQ(j["status"], "failed");
  ASSERT_TRUE(j.contains("failure"));
  for (const char* k : {"step", "t", "node", "residual", "message"})
    EXPECT_TRUE(j["failure"].contains(k)) << k;
  const long long failed = j["failure"]["step"];
  EXPECT_GE(failed, 2);
  EXPECT_EQ(j["steps"], failed - 1);
  const Table t = read_csv(d / "out" / "series.csv");
  ASSERT_EQ(static_cast<long long>(t.rows.size()), failed);  // rows k = 0 .. failed - 1 (every = 1)
  for (std::size_t i = 0; i < t.rows.size(); ++i) {
    EXPECT_EQ(t.rows[i][0], 10.0 * static_cast<double>(i));
    for (double v : t.rows[i]) EXPECT_TRUE(std::isfinite(v)) << "row " << i;
  }
  EXPECT_EQ(j["failure"]["t"].get<double>(), t.rows.back()[0]);
  EXPECT_EQ(j["final"]["t"].get<double>(), t.rows.back()[0]);
  EXPECT_LT(t.rows.back()[0], 1000.0);

  // Finite but exploding: one RK4 step of dt = 1000 takes |M|^2 from 0.25 to ~1e104 (measured), beyond the
  // blow-up bound of 1e8 |M0|^2 on the conserved Casimir: exit 3 at step 1 with only the t = 0 row kept.
  const Result b = run_cli(d, {"run", scen.string(), "--out", "out_blowup", "--set", "integrator.dt=1000",
                               "--set", "integrator.t_end=2000"});
  EXPECT_EQ(b.code, 3) << b.err;
  const json jb = json::parse(read(d / "out_blowup" / "summary.json"));
  EXPECT_EQ(jb["status"], "failed");
  EXPECT_EQ(jb["failure"]["step"], 1);
  EXPECT_NE(jb["failure"]["message"].get<std::string>().find("blow-up"), std::string::npos);
  EXPECT_EQ(read_csv(d / "out_blowup" / "series.csv").rows.size(), 1u);
}

TEST(Cli, ValidatePrintsResolvedScenarioAndWritesNothing) {
  const fs::path d = workdir("validate");
  std::string text = kScenario;
  text.replace(text.find("every = 7\n"), 10, "");  // let output.every default
  const fs::path scen = write_scenario(d, text);
  const Result r = run_cli(d, {"validate", scen.string(), "--set", "integrator.h=0.05"});
  ASSERT_EQ(r.code, 0) << r.err;
  for (const char* s : {"[model]", "[initial]", "[integrator]", "[output]", "dt = 0.05",
                        "retraction = \"cayley\"", "every = 1", "# default", "60 steps"})
    EXPECT_NE(r.out.find(s), std::string::npos) << s << "\n" << r.out;
  EXPECT_EQ(r.out.find("h = "), std::string::npos) << r.out;  // the alias resolves to dt
  EXPECT_EQ(entries(d), std::vector<std::string>{"scen.toml"});
  // The printout is a scenario again (same values).
  const fs::path again = write_scenario(d, r.out, "again.toml");
  const Result r2 = run_cli(d, {"validate", again.string()});
  EXPECT_EQ(r2.code, 0) << r2.err;
  const Result bad = run_cli(d, {"validate", scen.string(), "--set", "integrator.dt=-1"});
  EXPECT_EQ(bad.code, 2);
}

TEST(Cli, PlotsAreMadeOrSkippedWithANote) {
  const fs::path d = workdir("plots");
  std::string text = kScenario;
  text.replace(text.find("plots = false"), 13, "plots = true");
  const fs::path scen = write_scenario(d, text);
  const Result r = run_cli(d, {"run", scen.string(), "--out", "out"});
  ASSERT_EQ(r.code, 0) << r.err;
  for (const char* png : {"casimir_energy.png", "trajectory.png"}) {
    const std::string bytes = read(d / "out" / png);
    ASSERT_GT(bytes.size(), 1000u) << png;
    EXPECT_EQ(bytes.substr(1, 3), "PNG") << png;  // PNG signature \x89 P N G
  }
  json j = json::parse(read(d / "out" / "summary.json"));
  for (const auto& n : j["notes"]) EXPECT_EQ(n.get<std::string>().find("plot"), std::string::npos) << n;

  // A broken plot script: the run still succeeds and notes say why.
  const Result s =
      run_cli(d, {"run", scen.string(), "--out", "out2"}, "LIEVI_PLOT_SCRIPT=/nonexistent/plot.py");
  ASSERT_EQ(s.code, 0) << s.err;
  EXPECT_FALSE(fs::exists(d / "out2" / "trajectory.png"));
  j = json::parse(read(d / "out2" / "summary.json"));
  bool noted = false;
  for (const auto& n : j["notes"])
    noted = noted || n.get<std::string>().find("plots skipped") != std::string::npos;
  EXPECT_TRUE(noted) << j["notes"].dump();
}
