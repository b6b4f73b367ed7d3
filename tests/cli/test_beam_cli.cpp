// `lievi run` of beam scenarios end to end: the flying spaghetti's impulse and outputs (series.csv, fields.h5,
// beam.pvd), momentum conservation of the free bending beam, thread-count independence of the files, and the
// stability refusal / blow-up exits.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "lievi/io/fields_h5.hpp"
#include "lievi/io/table_csv.hpp"
#include "support/cli_process.hpp"

namespace fs = std::filesystem;
using lievi::test::fresh_dir;
using lievi::test::read_file;
using lievi::test::run_program;

namespace {

const fs::path tmp = fs::path(LIEVI_TEST_TMP_DIR) / "beam";
const std::string examples = std::string(LIEVI_TEST_SOURCE_DIR) + "/examples/beam/";

lievi::test::CliResult cli(const fs::path& cwd, std::vector<std::string> args, const std::string& env = "") {
  return run_program(LIEVI_CLI_PATH, cwd, args, env);
}
nlohmann::json summary(const fs::path& dir) { return nlohmann::json::parse(read_file(dir / "summary.json")); }
std::size_t column(const lievi::io::CsvTable& t, const std::string& name) {
  for (std::size_t c = 0; c < t.columns.size(); ++c)
    if (t.columns[c] == name) return c;
  ADD_FAILURE() << "no column " << name;
  return 0;
}

}  // namespace

TEST(BeamCli, FlyingSpaghettiImpulseAndOutputs) {
  const fs::path cwd = fresh_dir(tmp, "spaghetti");
  const auto r = cli(cwd, {"run", examples + "flying_spaghetti.toml", "--out", "out", "--set", "integrator.t_end=6",
                           "--set", "output.every=100", "--set", "output.plots=false",
                           "--set", "output.fields_csv=true"});
  ASSERT_EQ(r.code, 0) << r.err;
  const fs::path out = cwd / "out";
  const auto s = lievi::io::read_csv_table(out / "series.csv");
  EXPECT_EQ(s.columns[0], "t");
  EXPECT_EQ(s.rows.back()[0], 6.0);
  // the dead force's impulse: (50, 0, 0) after the load (t > 5)
  EXPECT_NEAR(s.rows.back()[column(s, "Jlin_x")], 50.0, 1e-9);
  EXPECT_NEAR(s.rows.back()[column(s, "Jlin_y")], 0.0, 1e-9);
  EXPECT_LT(s.rows.back()[column(s, "orth_err")], 1e-13);
  // exact variant: the strains are the configurations' (round-off: the batched sweeps evaluate tau^{-1} in
  // another order than the diagnostic; measured 7.8e-15)
  EXPECT_LT(s.rows.back()[column(s, "strain_consistency")], 1e-12);
  EXPECT_NEAR(s.rows.back()[column(s, "E_c")], 871.52, 0.01);
  const auto R = lievi::io::read_h5_dataset(out / "fields.h5", "R");
  ASSERT_EQ(R.shape.size(), 4u);
  EXPECT_EQ(R.shape[1], 21u);
  EXPECT_EQ(R.shape[2], 3u);
  const auto p = lievi::io::read_h5_dataset(out / "fields.h5", "p");
  // the first snapshot is the initial straight beam from (6, 0, 0) towards (0, 8, 0)
  EXPECT_NEAR(p.data[0], 6.0, 1e-14);
  EXPECT_NEAR(p.data[20 * 3 + 0], 0.0, 1e-13);
  EXPECT_NEAR(p.data[20 * 3 + 1], 8.0, 1e-13);
  EXPECT_NEAR(lievi::io::read_h5_attribute(out / "fields.h5", "zeta", "time_offset"), 0.5e-3, 1e-18);
  // final_fields.csv: the last snapshot's poses, equal to fields.h5's last /p row and unit quaternions
  const auto fin = lievi::io::read_csv_table(out / "final_fields.csv");
  ASSERT_EQ(fin.rows.size(), 21u);
  const std::size_t last = (p.shape[0] - 1) * 21 * 3;
  for (std::size_t j = 0; j < 21; ++j) {
    for (std::size_t c = 0; c < 3; ++c) EXPECT_EQ(fin.rows[j][1 + c], p.data[last + j * 3 + c]);
    double q2 = 0;
    for (std::size_t c = 4; c < 8; ++c) q2 += fin.rows[j][c] * fin.rows[j][c];
    EXPECT_NEAR(q2, 1.0, 1e-14);
    EXPECT_GE(fin.rows[j][4], 0.0);
  }
  const std::string pvd = read_file(out / "beam.pvd");
  EXPECT_NE(pvd.find("beam_0.vtp"), std::string::npos);
  EXPECT_TRUE(fs::exists(out / "beam_0.vtp"));
  EXPECT_EQ(summary(out)["status"], "complete");
}

TEST(BeamCli, FreeBeamKeepsMomentumAndThreadsGiveTheSameFiles) {
  const fs::path cwd = fresh_dir(tmp, "bending");
  for (const char* n : {"1", "2"}) {
    const auto r = cli(cwd, {"run", examples + "bending.toml", "--out", std::string("t") + n, "--set", "grid.J=600",
                             "--set", "integrator.dt=2e-6", "--set", "integrator.t_end=1e-4", "--set", "output.every=5",
                             "--set", "output.plots=false", "--set", "initial.velocity=[1,2,0.5,0.1,-0.2,0.3]"},
                       std::string("OMP_NUM_THREADS=") + n);
    ASSERT_EQ(r.code, 0) << r.err;
  }
  EXPECT_EQ(read_file(cwd / "t1" / "series.csv"), read_file(cwd / "t2" / "series.csv"));
  const auto j = summary(cwd / "t1");
  EXPECT_LT(j["diagnostics"]["momentum_max_drift"].get<double>(), 1e-11);
}

TEST(BeamCli, StabilityBoundRefusedOrBlowUpStopsWithNode) {
  const fs::path cwd = fresh_dir(tmp, "unstable");
  auto r = cli(cwd, {"run", examples + "bending.toml", "--out", "x", "--set", "integrator.dt=1e-3"});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("integrator.dt"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("largest stable dt"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(cwd / "x"));
  // validate makes the same a-priori check
  r = cli(cwd, {"validate", examples + "bending.toml", "--set", "integrator.dt=1e-3"});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("largest stable dt"), std::string::npos) << r.err;
  r = cli(cwd, {"run", examples + "bending.toml", "--out", "y", "--set", "integrator.dt=1.25e-3", "--set",
                "integrator.allow_unstable=true", "--set", "output.every=1", "--set", "output.plots=false"});
  EXPECT_EQ(r.code, 3) << r.err;
  const auto j = summary(cwd / "y");
  EXPECT_EQ(j["status"], "failed");
  EXPECT_GE(j["failure"]["node"].get<int>(), 0);
}

TEST(BeamCli, BlowUpInLargeMotionIsNamedAndTheSuggestedStepRuns) {
  // The floppy damped rod of PyElastica's guide (docs/theory/beam.md "Stability bound"): clamped, L = 1 m,
  // r = 1 cm, rho = 1000, E = 1 MPa, nu = 0.499, damping 0.1/s, J = 20, swinging down under gravity. The
  // a-priori bound is that of small motion; at 0.97 of it the rod blows up when it is most curled (t ~ 0.7 s).
  // The failure must say that the energy was blowing up (not the solve) and name 0.7 of the bound; that step
  // must then run the rod to t = 10 s.
  const fs::path cwd = fresh_dir(tmp, "floppy");
  const std::string rod = R"([model]
type = "beam"
section = "circle"
rho = 1000.0
E = 1e6
nu = 0.499
r = 0.01
gravity = [0.0, 0.0, -9.81]
[grid]
J = 20
layout = "vertex"
length = 1.0
[bc]
left = "clamped"
[initial]
shape = "straight"
[damping]
linear = 0.1
angular = 0.1
[output]
every = 20
plots = false
fields = false
vtk = false
)";
  const auto num = [](double x) {
    char b[32];
    std::snprintf(b, sizeof b, "%.17g", x);
    return std::string(b);
  };
  std::ofstream(cwd / "rod.toml") << rod << "[integrator]\ndt = 1e-5\nt_end = 1e-4\n";
  ASSERT_EQ(cli(cwd, {"run", "rod.toml", "--out", "probe"}).code, 0);
  const double bound = summary(cwd / "probe")["stable_dt_bound"].get<double>();
  EXPECT_NEAR(bound, 5.17e-4, 0.01e-4);
  const double dt = 0.97 * bound;
  const long long steps = std::llround(1.5 / dt);
  std::ofstream(cwd / "fast.toml") << rod << "[integrator]\ndt = " << num(dt) << "\nt_end = " << num(steps * dt) << "\n";
  const auto r = cli(cwd, {"run", "fast.toml", "--out", "fast"});
  ASSERT_EQ(r.code, 3) << r.err;
  const auto f = summary(cwd / "fast")["failure"];
  const std::string hint = f["hint"].get<std::string>();
  EXPECT_NE(hint.find("blowing up"), std::string::npos) << hint;
  EXPECT_NE(hint.find("0.97 of the a-priori bound"), std::string::npos) << hint;
  const auto at = hint.find("try integrator.dt = ");
  ASSERT_NE(at, std::string::npos) << hint;
  const double suggested = std::stod(hint.substr(at + 20));
  EXPECT_NEAR(suggested, 0.7 * bound, 1e-6 * bound) << hint;
  EXPECT_NE(r.err.find("blowing up"), std::string::npos) << r.err;  // the terminal says it too
  // the suggested step runs the rod to t = 10 s
  const long long n = static_cast<long long>(std::ceil(10.0 / suggested));
  std::ofstream(cwd / "safe.toml") << rod << "[integrator]\ndt = " << num(10.0 / n) << "\nt_end = 10.0\n";
  const auto ok = cli(cwd, {"run", "safe.toml", "--out", "safe"});
  EXPECT_EQ(ok.code, 0) << ok.err;
  EXPECT_EQ(summary(cwd / "safe")["status"], "complete");
}
