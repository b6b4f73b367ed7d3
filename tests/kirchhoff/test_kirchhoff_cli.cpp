// Kirchhoff's body in an ideal fluid (model.type = "kirchhoff") end to end through the `lievi` program: the
// Casimirs |P|^2 and P . Pi over a run to round-off, the energy decreasing step by step, convergence to the
// minimum-energy set; the first steps equal to DDBGroup / DDBGroupSymmetric driven directly here from the
// example's parameters; a Newton failure (exit 3, the last good rows kept); a run stopped at a checkpoint and
// resumed equal to the uninterrupted run bit for bit; inconsistent keys refused (exit 2, nothing written).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "lievi/integrators/ddb_group.hpp"
#include "lievi/integrators/ddb_group_symmetric.hpp"
#include "lievi/io/kirchhoff_scenario.hpp"
#include "lievi/run/kirchhoff_run.hpp"
#include "lievi/models/kirchhoff.hpp"
#include "support/cli_process.hpp"

namespace fs = std::filesystem;
using lievi::test::CliResult;

namespace {

constexpr double eps = std::numeric_limits<double>::epsilon();
const fs::path kTmp = LIEVI_TEST_TMP_DIR;
const fs::path kExamples = fs::path(LIEVI_TEST_SOURCE_DIR) / "examples" / "kirchhoff";

CliResult lievi_cli(const fs::path& cwd, const std::vector<std::string>& args) {
  return lievi::test::run_program(LIEVI_CLI_PATH, cwd, args);
}

fs::path workdir(const std::string& name) { return lievi::test::fresh_dir(kTmp, name); }

struct Series {
  std::vector<std::string> header;
  std::map<std::string, std::vector<double>> col;
  [[nodiscard]] std::size_t rows() const { return col.at("t").size(); }
};

/// series.csv; an empty cell (NaN) is read as NaN.
Series read_series(const fs::path& p) {
  Series s;
  std::ifstream in(p);
  std::string line;
  std::getline(in, line);
  std::stringstream hs(line);
  for (std::string c; std::getline(hs, c, ',');) s.header.push_back(c);
  while (std::getline(in, line)) {
    std::stringstream ls(line);
    std::size_t i = 0;
    for (std::string c; std::getline(ls, c, ','); ++i)
      s.col[s.header.at(i)].push_back(c.empty() || c == "nan" ? std::nan("") : std::stod(c));
  }
  return s;
}

nlohmann::json read_json(const fs::path& p) { return nlohmann::json::parse(lievi::test::read_file(p)); }

/// Run an example with --set's (plots off) into cwd/out.
CliResult run_example(const fs::path& cwd, const std::string& example, std::vector<std::string> sets,
                      const std::string& out = "out", std::vector<std::string> extra = {}) {
  std::vector<std::string> args = {"run", (kExamples / example).string(), "--out", out};
  sets.emplace_back("output.plots=false");
  for (const auto& s : sets) args.insert(args.end(), {"--set", s});
  args.insert(args.end(), extra.begin(), extra.end());
  return lievi_cli(cwd, args);
}

void write(const fs::path& p, const std::string& text) { std::ofstream(p) << text; }

std::vector<std::string> entries(const fs::path& d) {
  std::vector<std::string> v;
  if (fs::exists(d))
    for (const auto& e : fs::directory_iterator(d)) v.push_back(e.path().filename().string());
  std::sort(v.begin(), v.end());
  return v;
}

/// The example bodies, written out here from the TOML files' numbers (not through lievi's reader).
lievi::models::Kirchhoff ellipsoid(double alpha) {
  return lievi::models::Kirchhoff::ellipsoid(lievi::lie::Vec3(2.0, 1.0, 0.8), 1.0, 1.0, alpha, alpha);
}
lievi::models::Kirchhoff test_body() {
  lievi::models::Kirchhoff k;
  k.inertia = lievi::lie::Vec3(1.0, 1.4, 0.5);
  k.mass = 1.0;
  k.added_inertia = lievi::lie::Vec3(0.1, 0.2, 0.3);
  k.added_mass = lievi::lie::Vec3(0.2, 0.8, 1.5);
  return k;
}

/// Rows 0..n of `s` against the states `mu[k]`, `x[k]` (every row, output.every = 1): bitwise (CSV round-trip).
void expect_rows_equal(const Series& s, const std::vector<lievi::lie::Vec6>& mu,
                       const std::vector<lievi::lie::Vec3>& x, const std::string& what) {
  const char* names[] = {"Pi1", "Pi2", "Pi3", "P1", "P2", "P3"};
  for (std::size_t k = 0; k < mu.size(); ++k) {
    for (int i = 0; i < 6; ++i) ASSERT_EQ(s.col.at(names[i])[k], mu[k](i)) << what << " row " << k << " " << names[i];
    for (int i = 0; i < 3; ++i)
      ASSERT_EQ(s.col.at(std::string(1, "xyz"[i]))[k], x[k](i)) << what << " row " << k << " position " << i;
  }
}

}  // namespace

TEST(KirchhoffCli, CasimirsToRoundOffEnergyDecreasesAndEndsAtTheMinimum) {
  // The broadside ellipsoid (ddb, exp, h = 0.05, 2000 steps), every step a row.
  const fs::path d = workdir("kirchhoff_invariants");
  const CliResult r = run_example(d, "ellipsoid_broadside.toml", {"output.every=1"});
  ASSERT_EQ(r.code, 0) << r.err;
  const Series s = read_series(d / "out" / "series.csv");
  ASSERT_EQ(s.rows(), 2001u);
  const double C1 = s.col.at("casimir_P2")[0];
  const double scale2 = std::hypot(s.col.at("P1")[0], s.col.at("P2")[0], s.col.at("P3")[0]) *
                        std::hypot(s.col.at("Pi1")[0], s.col.at("Pi2")[0], s.col.at("Pi3")[0]);
  double d1 = 0.0, d2 = 0.0, rise = -1.0;
  for (std::size_t k = 0; k < s.rows(); ++k) {
    // the Casimirs recomputed here from the written impulses
    const double P1 = s.col.at("P1")[k], P2 = s.col.at("P2")[k], P3 = s.col.at("P3")[k];
    const double c1 = P1 * P1 + P2 * P2 + P3 * P3;
    const double c2 = P1 * s.col.at("Pi1")[k] + P2 * s.col.at("Pi2")[k] + P3 * s.col.at("Pi3")[k];
    d1 = std::max(d1, std::abs(c1 - C1) / C1);
    d2 = std::max(d2, std::abs(c2) / scale2);  // P . Pi = 0 at the start
    if (k > 0) rise = std::max(rise, (s.col.at("energy")[k] - s.col.at("energy")[k - 1]) / s.col.at("energy")[0]);
  }
  std::printf("[ measure ] broadside: max |d|P|^2|/|P0|^2 = %.3g eps, max |P.Pi|/(|P0||Pi0|) = %.3g eps, "
              "largest step rise of H = %.3g eps H0\n", d1 / eps, d2 / eps, rise / eps);
  // The coadjoint update keeps the orbit to round-off (library test over 1e5 steps: 1.7 eps); 8 eps as there.
  EXPECT_LE(d1, 8 * eps);
  EXPECT_LE(d2, 8 * eps);
  // H never rises by more than the round-off of evaluating it (library: <= 1.8 eps over 1e5 steps; 4 eps).
  EXPECT_LE(rise, 4 * eps);
  // The minimum of H on the orbit: Pi = 0, P = (0, 0, |P|) (the axis of the largest mass + added mass), H = min H
  // (library: 2 ulps at t = 100; 1e-14 bounds as there).
  const auto& last = [&](const char* c) { return s.col.at(c).back(); };
  EXPECT_LE(std::abs(last("Pi1")) + std::abs(last("Pi2")) + std::abs(last("Pi3")), 1e-14);
  EXPECT_NEAR(std::abs(last("P3")), std::sqrt(C1), 1e-14 * std::sqrt(C1));
  EXPECT_NEAR(last("energy_above_min"), 0.0, 1e-14);
  EXPECT_LE(last("distance_min"), 1e-14);
  EXPECT_LE(last("equilibrium_residual"), 1e-14);
  const auto j = read_json(d / "out" / "summary.json");
  EXPECT_EQ(j["status"], "complete");
  EXPECT_TRUE(j["diagnostics"]["energy_monotone"].get<bool>());
  EXPECT_DOUBLE_EQ(j["minimum_energy_set"]["energy"].get<double>(), last("energy") - last("energy_above_min"));
  EXPECT_LE(j["diagnostics"]["casimir_P2_max_rel_drift"].get<double>(), 8 * eps);
  EXPECT_EQ(j["method"]["order"], 1);
  EXPECT_GE(j["newton"]["total"].get<long long>(), 2000);
}

TEST(KirchhoffCli, EveryExampleRunsWithTheDocumentedColumns) {
  const fs::path d = workdir("kirchhoff_examples");
  const std::string header =
      "t,Pi1,Pi2,Pi3,P1,P2,P3,energy,casimir_P2,casimir_PPi,casimir_P2_drift,casimir_PPi_drift,energy_above_min,"
      "distance_min,equilibrium_residual,x,y,z,qw,qx,qy,qz,newton";
  for (const char* ex : {"ellipsoid_broadside.toml", "ellipsoid_screw.toml", "conservative_symmetric.toml"}) {
    const CliResult r = run_example(d, ex, {}, std::string("out_") + ex);
    ASSERT_EQ(r.code, 0) << ex << r.err;
    const fs::path out = d / (std::string("out_") + ex);
    const std::string csv = lievi::test::read_file(out / "series.csv");
    EXPECT_EQ(csv.substr(0, csv.find('\n')), header) << ex;
    const Series s = read_series(out / "series.csv");
    const auto j = read_json(out / "summary.json");
    EXPECT_EQ(j["status"], "complete") << ex;
    EXPECT_EQ(s.col.at("t").back(), j["final"]["t"].get<double>());
    // the quaternion is a unit one with qw >= 0
    for (std::size_t k = 0; k < s.rows(); ++k) {
      const double n = std::hypot(std::hypot(s.col.at("qw")[k], s.col.at("qx")[k]),
                                  std::hypot(s.col.at("qy")[k], s.col.at("qz")[k]));
      EXPECT_NEAR(n, 1.0, 1e-14);
      EXPECT_GE(s.col.at("qw")[k], 0.0);
    }
    std::printf("[ measure ] %s: Casimir drifts %.3g, %.3g; H %.12g -> %.12g; above min %.3g; distance %.3g\n", ex,
                j["diagnostics"]["casimir_P2_max_rel_drift"].get<double>(),
                j["diagnostics"]["casimir_PPi_max_rel_drift"].get<double>(),
                j["diagnostics"]["energy_initial"].get<double>(), j["diagnostics"]["energy_final"].get<double>(),
                j["diagnostics"]["energy_above_min_final"].get<double>(),
                j["diagnostics"]["distance_min_final"].get<double>());
  }
  // The screw example (Cayley, a vertex minimum): ends at the minimum-energy set (library: exact at a vertex).
  const auto screw = read_json(d / "out_ellipsoid_screw.toml" / "summary.json");
  EXPECT_TRUE(screw["diagnostics"]["energy_monotone"].get<bool>());
  EXPECT_LE(std::abs(screw["diagnostics"]["energy_above_min_final"].get<double>()), 1e-12);
  // The conservative example: H bounded (its energy error, second order at h = 0.05, is far below 1e-2 H0).
  const auto cons = read_json(d / "out_conservative_symmetric.toml" / "summary.json");
  EXPECT_NEAR(cons["diagnostics"]["energy_final"].get<double>(), cons["diagnostics"]["energy_initial"].get<double>(),
              1e-2 * cons["diagnostics"]["energy_initial"].get<double>());
  EXPECT_EQ(cons["method"]["order"], 2);
}

TEST(KirchhoffCli, FirstStepsEqualTheLibraryStepperDrivenHere) {
  using namespace lievi;
  using State = models::LiePoissonState<lie::SE3>;
  const fs::path d = workdir("kirchhoff_first_steps");
  constexpr int n = 50;
  // (1) ddb, exp, the broadside ellipsoid from (Pi, P).
  {
    ASSERT_EQ(run_example(d, "ellipsoid_broadside.toml", {"output.every=1", "integrator.t_end=2.5"}, "a").code, 0);
    integrators::DDBGroup<lie::SE3, lie::Exp<lie::SE3>> ddb(ellipsoid(1.0).system());
    State x;
    x.mu << 1.0, -2.0, 3.0, 6.0, 3.0, 0.0;
    ddb.start();
    std::vector<lie::Vec6> mu{x.mu};
    std::vector<lie::Vec3> pos{x.g.translation()};
    for (int k = 0; k < n; ++k) {
      ASSERT_TRUE(ddb.step(x, 0.05).converged);
      mu.push_back(x.mu);
      pos.push_back(x.g.translation());
    }
    expect_rows_equal(read_series(d / "a" / "series.csv"), mu, pos, "ddb exp");
  }
  // (2) ddb, Cayley, the screw ellipsoid from velocities: mu_0 = A (Omega_0, V_0).
  {
    ASSERT_EQ(run_example(d, "ellipsoid_screw.toml", {"output.every=1", "integrator.t_end=2.5"}, "b").code, 0);
    const models::Kirchhoff body = ellipsoid(0.5);
    integrators::DDBGroup<lie::SE3, lie::Cayley<lie::SE3>> ddb(body.system());
    State x;
    lie::Vec6 xi;
    xi << 0.3, 0.4, 0.2, 0.2, 0.5, 0.1;
    x.mu = body.locked_inertia() * xi;
    ddb.start();
    std::vector<lie::Vec6> mu{x.mu};
    std::vector<lie::Vec3> pos{x.g.translation()};
    for (int k = 0; k < n; ++k) {
      ASSERT_TRUE(ddb.step(x, 0.05).converged);
      mu.push_back(x.mu);
      pos.push_back(x.g.translation());
    }
    expect_rows_equal(read_series(d / "b" / "series.csv"), mu, pos, "ddb cayley");
  }
  // (3) ddb-symmetric, Cayley, the test body with dissipation set on the command line.
  {
    ASSERT_EQ(run_example(d, "conservative_symmetric.toml",
                          {"output.every=1", "integrator.t_end=2.5", "model.alpha_rot=0.5", "model.alpha_trans=0.25"},
                          "c")
                  .code,
              0);
    models::Kirchhoff body = test_body();
    body.alpha_rot = 0.5;
    body.alpha_trans = 0.25;
    integrators::DDBGroupSymmetric<lie::SE3, lie::Cayley<lie::SE3>> sym(body.system());
    State x;
    x.mu << 0.3, 0.1, 0.8, 0.5, 0.4, 0.2;
    sym.start(x, 0.05);
    std::vector<lie::Vec6> mu{x.mu};
    std::vector<lie::Vec3> pos{x.g.translation()};
    for (int k = 0; k < n; ++k) {
      ASSERT_TRUE(sym.step(x, 0.05).converged);
      mu.push_back(x.mu);
      pos.push_back(x.g.translation());
    }
    expect_rows_equal(read_series(d / "c" / "series.csv"), mu, pos, "ddb-symmetric cayley");
  }
}

TEST(KirchhoffCli, NewtonFailureIsExit3WithTheLastGoodRows) {
  // One Newton iteration per step with a tight tolerance cannot solve step (a) at this step: the run stops at
  // step 1 naming the step and the keys to change; the start row is kept.
  const fs::path d = workdir("kirchhoff_fail");
  const CliResult r =
      run_example(d, "ellipsoid_broadside.toml", {"integrator.max_iterations=1", "integrator.dt=0.5"});
  ASSERT_EQ(r.code, 3) << r.out << r.err;
  EXPECT_NE(r.err.find("step 1"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("integrator.max_iterations"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("integrator.dt"), std::string::npos) << r.err;
  const auto j = read_json(d / "out" / "summary.json");
  EXPECT_EQ(j["status"], "failed");
  EXPECT_EQ(j["failure"]["step"], 1);
  const Series s = read_series(d / "out" / "series.csv");
  ASSERT_EQ(s.rows(), 1u);
  EXPECT_EQ(s.col.at("t")[0], 0.0);
  EXPECT_EQ(s.col.at("Pi1")[0], 1.0);
}

TEST(KirchhoffCli, StoppedAtACheckpointAndResumedEqualsTheWholeRunBitForBit) {
  const fs::path d = workdir("kirchhoff_resume");
  for (const std::string method : {"ddb", "ddb-symmetric"}) {
    const std::vector<std::string> sets = {"integrator.method=" + method, "integrator.t_end=20",
                                           "output.checkpoint_every=50", "output.every=7"};
    ASSERT_EQ(run_example(d, "ellipsoid_screw.toml", sets, "full_" + method).code, 0);
    const CliResult stop = run_example(d, "ellipsoid_screw.toml", sets, "part_" + method, {"--stop-at", "123"});
    ASSERT_EQ(stop.code, 0) << stop.err;
    EXPECT_FALSE(fs::exists(d / ("part_" + method) / "summary.json"));
    const CliResult res = lievi_cli(d, {"resume", "part_" + method});
    ASSERT_EQ(res.code, 0) << res.err;
    EXPECT_EQ(lievi::test::read_file(d / ("full_" + method) / "series.csv"),
              lievi::test::read_file(d / ("part_" + method) / "series.csv"))
        << method;
    auto a = read_json(d / ("full_" + method) / "summary.json"), b = read_json(d / ("part_" + method) / "summary.json");
    for (auto* j : {&a, &b}) (*j).erase("timing");
    EXPECT_EQ(a["diagnostics"], b["diagnostics"]) << method;
    EXPECT_EQ(a["final"], b["final"]) << method;
    // extended: resuming the finished run to t = 30 equals a run to t = 30 from the start
    const CliResult ext = lievi_cli(d, {"resume", "full_" + method, "--set", "integrator.t_end=30"});
    ASSERT_EQ(ext.code, 0) << ext.err;
    auto long_sets = sets;
    long_sets[1] = "integrator.t_end=30";
    ASSERT_EQ(run_example(d, "ellipsoid_screw.toml", long_sets, "long_" + method).code, 0);
    EXPECT_EQ(lievi::test::read_file(d / ("full_" + method) / "series.csv"),
              lievi::test::read_file(d / ("long_" + method) / "series.csv"))
        << method;
  }
}

TEST(KirchhoffCli, InconsistentKeysAreExit2AndWriteNothing) {
  const fs::path d = workdir("kirchhoff_bad");
  const std::string head = "[model]\ntype = \"kirchhoff\"\n";
  const std::string body = "inertia = [1.0, 1.4, 0.5]\nmass = 1.0\n";
  const std::string rest = "[integrator]\nmethod = \"ddb\"\ndt = 0.1\nt_end = 1.0\n";
  struct Case {
    std::string name, toml;
    std::vector<std::string> expect;
  };
  const std::vector<Case> cases = {
      {"ellipsoid_and_inertia",
       head + "ellipsoid = [2.0, 1.0, 0.8]\ninertia = [1.0, 1.0, 1.0]\n[initial]\nPi = [1.0, 0.0, 0.0]\n"
              "P = [0.0, 1.0, 0.0]\n" + rest,
       {"key 'model.inertia'", "not allowed with model.ellipsoid"}},
      {"impulse_and_velocity",
       head + body + "[initial]\nPi = [1.0, 0.0, 0.0]\nP = [0.0, 1.0, 0.0]\nOmega = [1.0, 0.0, 0.0]\n" + rest,
       {"key 'initial.Omega'", "give one pair"}},
      {"Pi_without_P", head + body + "[initial]\nPi = [1.0, 0.0, 0.0]\n" + rest,
       {"key 'initial.P'", "missing required key", "initial.Pi"}},
      {"no_body", head + "[initial]\nPi = [1.0, 0.0, 0.0]\nP = [0.0, 1.0, 0.0]\n" + rest,
       {"key 'model.inertia'", "key 'model.mass'", "or give model.ellipsoid"}},
      {"coupling_indefinite",
       head + body + "coupling = [[5.0, 0.0, 0.0], [0.0, 0.0, 0.0], [0.0, 0.0, 0.0]]\n[initial]\n"
                     "Pi = [1.0, 0.0, 0.0]\nP = [0.0, 1.0, 0.0]\n" + rest,
       {"key 'model.coupling'", "not positive definite"}},
      {"retraction_exp2",
       head + body + "[initial]\nPi = [1.0, 0.0, 0.0]\nP = [0.0, 1.0, 0.0]\n" + rest + "retraction = \"exp2\"\n",
       {"key 'integrator.retraction'", "cayley, exp"}},
      {"method_rk4",
       head + body + "[initial]\nPi = [1.0, 0.0, 0.0]\nP = [0.0, 1.0, 0.0]\n[integrator]\nmethod = \"rk4\"\n"
                     "dt = 0.1\nt_end = 1.0\n",
       {"key 'integrator.method'", "ddb, ddb-symmetric"}},
  };
  for (const auto& c : cases) {
    const fs::path w = d / c.name;
    fs::create_directories(w);
    write(w / "s.toml", c.toml);
    const auto before = entries(w);
    const CliResult r = lievi_cli(w, {"run", "s.toml"});
    EXPECT_EQ(r.code, 2) << c.name << ": " << r.err;
    for (const auto& e : c.expect) EXPECT_NE(r.err.find(e), std::string::npos) << c.name << ": " << r.err;
    EXPECT_EQ(r.out, "") << c.name;
    EXPECT_EQ(entries(w), before) << c.name << ": something was written";
  }
  // --paths: no noise to sample
  const CliResult p = lievi_cli(d, {"run", (kExamples / "ellipsoid_broadside.toml").string(), "--paths", "2"});
  EXPECT_EQ(p.code, 2);
  EXPECT_NE(p.err.find("--paths"), std::string::npos) << p.err;
  // validate notes the keys the method or body does not read
  const CliResult v = lievi_cli(d, {"validate", (kExamples / "conservative_symmetric.toml").string(), "--set",
                                    "integrator.method=ddb", "--set", "integrator.symmetric_processing=false"});
  ASSERT_EQ(v.code, 0) << v.err;
  EXPECT_NE(v.out.find("key 'integrator.symmetric_processing' is ignored by method ddb"), std::string::npos) << v.out;
}

TEST(KirchhoffConfig, AConfigBuiltInCxxIsCheckedAndRunsAsTheFileDoes) {
  using namespace lievi;
  // Bad values of a config filled in C++: every problem named by its scenario key, nothing else.
  config::KirchhoffConfig bad;
  bad.inertia = lie::Vec3(1.0, -1.0, 1.0);
  bad.alpha_rot = -1.0;
  bad.method = config::RigidBodyMethod::rk4;
  bad.retraction = config::Retraction::exp2;
  bad.dt = 0.1, bad.t_end = 1.0, bad.steps = 10;
  std::vector<std::string> keys;
  for (const auto& i : config::problems(bad)) keys.push_back(i.key);
  std::sort(keys.begin(), keys.end());
  EXPECT_EQ(keys, (std::vector<std::string>{"integrator.method", "integrator.retraction", "model.alpha_rot",
                                            "model.inertia"}));
  EXPECT_THROW(config::validate(bad), invalid_argument);
  // The conservative example's body written as a config: the in-process run equals the file's run row by row.
  io::KirchhoffScenario s;
  s.inertia = lie::Vec3(1.0, 1.4, 0.5);
  s.added_inertia = lie::Vec3(0.1, 0.2, 0.3);
  s.added_mass = lie::Vec3(0.2, 0.8, 1.5);
  s.Pi0 = lie::Vec3(0.3, 0.1, 0.8);
  s.P0 = lie::Vec3(0.5, 0.4, 0.2);
  s.method = config::RigidBodyMethod::ddb_symmetric;
  s.dt = 0.05, s.t_end = 2.5, s.steps = 50;
  s.name = "cxx";
  EXPECT_TRUE(config::problems(s).empty());
  std::vector<std::vector<double>> rows;
  const run::KirchhoffRunResult r = run::integrate_kirchhoff(s, &rows);
  ASSERT_TRUE(r.complete);
  ASSERT_EQ(rows.size(), 51u);
  const fs::path d = workdir("kirchhoff_cxx");
  ASSERT_EQ(run_example(d, "conservative_symmetric.toml", {"integrator.t_end=2.5", "output.every=1"}).code, 0);
  const Series f = read_series(d / "out" / "series.csv");
  ASSERT_EQ(f.rows(), 51u);
  for (std::size_t k = 0; k < rows.size(); ++k)
    for (std::size_t c = 0; c < f.header.size(); ++c) {
      const double a = rows[k][c], b = f.col.at(f.header[c])[k];
      EXPECT_TRUE(a == b || (std::isnan(a) && std::isnan(b))) << "row " << k << " " << f.header[c];
    }
}
