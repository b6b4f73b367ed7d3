// `lievi run` / `validate` of beam scenarios with the boundary conditions and loads of the scenario format
// (docs/scenarios.md), end to end through the TOML reader:
//  - periodic ends: an infinite straight beam (translation closure) keeps its linear momentum and the angular
//    momentum about its axis; a ring keeps all six components;
//  - distributed loads: a dead distributed force equal to rho A g on the whole beam gives the gravity run (the
//    lumping by cell lengths is the gravity's weighting w_j), to round-off;
//  - a prescribed end whose table holds the initial pose gives the clamped run, to round-off;
//  - damping: the centred energy of a released, prestressed arc decreases at every output row, and the run
//    without damping keeps it;
//  - regions: a stepped cantilever (E doubled on the outer half) under a tip force, settled by damping,
//    converges at order 2 in ds to the Timoshenko static deflection of a beam with piecewise EI and GA;
//  - model.reference = "initial": a released arc is stress-free and stays at rest;
//  - every example in examples/beam/ validates and runs end to end at reduced length;
//  - a cantilever's files are bitwise the same for 1 and 2 threads (601 nodes: the sweeps run in parallel);
//  - bad input: each refused with exit 2, the file, the key and what is allowed, and nothing written.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <regex>
#include <string>
#include <vector>

#include "lievi/io/table_csv.hpp"
#include "support/cli_process.hpp"

namespace fs = std::filesystem;
using lievi::test::fresh_dir;
using lievi::test::read_file;
using lievi::test::run_program;

namespace {

const fs::path tmp = fs::path(LIEVI_TEST_TMP_DIR) / "beam_bc";
const std::string examples = std::string(LIEVI_TEST_SOURCE_DIR) + "/examples/beam/";

lievi::test::CliResult cli(const fs::path& cwd, std::vector<std::string> args, const std::string& env = "") {
  return run_program(LIEVI_CLI_PATH, cwd, args, env);
}
std::string num(double x) {
  char b[32];
  std::snprintf(b, sizeof b, "%.17g", x);
  return b;
}
void write(const fs::path& p, const std::string& text) {
  std::ofstream(p) << text;
}
std::size_t column(const lievi::io::CsvTable& t, const std::string& name) {
  for (std::size_t c = 0; c < t.columns.size(); ++c)
    if (t.columns[c] == name) return c;
  ADD_FAILURE() << "no column " << name;
  return 0;
}
/// Largest |change| of a column over the run, relative to `scale`.
double drift(const lievi::io::CsvTable& t, const std::string& name, double scale) {
  const std::size_t c = column(t, name);
  double d = 0.0;
  for (const auto& row : t.rows) d = std::max(d, std::abs(row[c] - t.rows.front()[c]));
  return d / scale;
}

/// Table-1 material (docs/theory/beam.md "Examples and linear checks").
const std::string kTable1 = R"([model]
type = "beam"
rho = 1000.0
E = 1e7
nu = 0.35
a = 0.1
)";

}  // namespace

TEST(BeamCliBc, PeriodicStraightBeamKeepsAxialSymmetryMomenta) {
  const fs::path cwd = fresh_dir(tmp, "periodic_straight");
  write(cwd / "p.toml", kTable1 + R"(
[grid]
J = 16
length = 2.0
[bc]
left = "periodic"
right = "periodic"
[initial]
shape = "straight"
velocity = [0.3, 0.5, -0.2, 0.4, 0.8, -0.6]
[integrator]
dt = 1e-4
t_end = 0.2
[output]
every = 50
plots = false
fields = false
vtk = false
)");
  // a uniform body velocity of a straight beam is a rigid motion plus, through the spin, a nonlinear motion
  const auto r = cli(cwd, {"run", "p.toml", "--out", "out"});
  ASSERT_EQ(r.code, 0) << r.err;
  const auto s = lievi::io::read_csv_table(cwd / "out" / "series.csv");
  // momentum scale: |J_lin| = rho A |v| L = 10 * 1 * 2
  const double scale = 20.0;
  for (const char* c : {"Jlin_x", "Jlin_y", "Jlin_z", "Jang_x"}) EXPECT_LT(drift(s, c, scale), 1e-13) << c;
  EXPECT_LT(s.rows.back()[column(s, "strain_consistency")], 1e-12);
  EXPECT_LT(s.rows.back()[column(s, "orth_err")], 1e-13);
  // bc.shift defaults to grid.length * direction: resolved and printed back
  const auto j = nlohmann::json::parse(read_file(cwd / "out" / "summary.json"));
  EXPECT_EQ(j["status"], "complete");
  // summary: the drift of the kept momenta (linear and about the axis), absolute
  EXPECT_LT(j["diagnostics"]["momentum_max_drift"].get<double>(), 1e-12 * scale);
  const auto v = cli(cwd, {"validate", "p.toml"});
  EXPECT_NE(v.out.find("shift = [2.0, 0.0, 0.0]"), std::string::npos) << v.out;
}

TEST(BeamCliBc, RingKeepsAllMomentumComponents) {
  const fs::path cwd = fresh_dir(tmp, "ring");
  write(cwd / "ring.toml", kTable1 + R"(
[grid]
J = 24
length = 6.283185307179586
[bc]
left = "periodic"
right = "periodic"
[initial]
shape = "arc"
radius = 1.0
velocity = [0.2, -0.4, 0.5, 0.3, 0.1, -0.2]
[integrator]
dt = 1e-4
t_end = 0.2
[output]
every = 100
plots = false
fields = false
vtk = false
)");
  const auto r = cli(cwd, {"run", "ring.toml", "--out", "out"});
  ASSERT_EQ(r.code, 0) << r.err;
  const auto s = lievi::io::read_csv_table(cwd / "out" / "series.csv");
  for (const char* c : {"Jang_x", "Jang_y", "Jang_z", "Jlin_x", "Jlin_y", "Jlin_z"})
    EXPECT_LT(drift(s, c, 60.0), 1e-13) << c;
  const auto j = nlohmann::json::parse(read_file(cwd / "out" / "summary.json"));
  EXPECT_LT(j["diagnostics"]["momentum_max_drift"].get<double>(), 60.0 * 1e-13);
  // energy: the centred energy's O(dt^2) fluctuation (3.4e-5 relative measured at dt = 1e-4)
  EXPECT_LT(drift(s, "E_c", s.rows.front()[column(s, "E_c")]), 2e-4);
}

TEST(BeamCliBc, DistributedDeadForceEqualsGravity) {
  const fs::path cwd = fresh_dir(tmp, "distributed");
  const std::string base = kTable1 + R"(
[grid]
J = 10
length = 2.0
[bc]
left = "clamped"
[integrator]
dt = 1e-4
t_end = 0.05
[output]
every = 50
plots = false
fields = false
vtk = false
)";
  write(cwd / "g.toml", kTable1 + "gravity = [0.0, 0.0, -9.81]\n" + base.substr(kTable1.size()));
  // rho A = 1000 * 0.01 = 10 kg/m: the same weight as a dead force density (0, 0, -98.1) N/m
  write(cwd / "d.toml", base + R"(
[[distributed_loads]]
wrench = [0.0, 0.0, 0.0, 0.0, 0.0, -98.1]
)");
  ASSERT_EQ(cli(cwd, {"run", "g.toml", "--out", "g"}).code, 0);
  const auto rd = cli(cwd, {"run", "d.toml", "--out", "d"});
  ASSERT_EQ(rd.code, 0) << rd.err;
  const auto g = lievi::io::read_csv_table(cwd / "g" / "series.csv");
  const auto d = lievi::io::read_csv_table(cwd / "d" / "series.csv");
  // under loads the momentum is not a conserved quantity: no drift figure in the summary
  EXPECT_FALSE(nlohmann::json::parse(read_file(cwd / "d" / "summary.json"))["diagnostics"].contains("momentum_max_drift"));
  ASSERT_EQ(g.rows.size(), d.rows.size());
  const std::size_t z = column(g, "endL_z");
  EXPECT_LT(g.rows.back()[z], -1e-4);  // it sags
  for (std::size_t k = 0; k < g.rows.size(); ++k) EXPECT_NEAR(d.rows[k][z], g.rows[k][z], 1e-13 * 2.0) << k;
  // a free beam with the outer 0.7 m loaded (range ends inside cells, lumped by overlap): the linear
  // momentum is the load's impulse, -98.1 * 0.7 * t (the discrete Lagrange-d'Alembert force is exact for a
  // constant dead force)
  write(cwd / "h.toml", base.substr(0, base.find("[bc]")) + base.substr(base.find("[integrator]")) + R"(
[[distributed_loads]]
wrench = [0.0, 0.0, 0.0, 0.0, 0.0, -98.1]
s_range = [1.25, 1.95]
)");
  ASSERT_EQ(cli(cwd, {"run", "h.toml", "--out", "h"}).code, 0);
  const auto h = lievi::io::read_csv_table(cwd / "h" / "series.csv");
  for (const auto& row : h.rows) EXPECT_NEAR(row[column(h, "Jlin_z")], -98.1 * 0.7 * row[0], 1e-12) << row[0];
}

TEST(BeamCliBc, PrescribedEndHeldAtItsPoseIsTheClampedRun) {
  const fs::path cwd = fresh_dir(tmp, "prescribed");
  const std::string tail = R"(
[grid]
J = 10
length = 2.0
[integrator]
dt = 1e-4
t_end = 0.05
[output]
every = 50
plots = false
fields = false
vtk = false
)";
  const std::string model = kTable1 + "gravity = [0.0, 0.0, -9.81]\n";
  write(cwd / "c.toml", model + tail + "[bc]\nleft = \"clamped\"\n");
  write(cwd / "hold.csv", "t,x,y,z,qw,qx,qy,qz\n0,0,0,0,1,0,0,0\n");
  write(cwd / "p.toml", model + tail + "[bc]\nleft = \"prescribed\"\nleft_motion = \"hold.csv\"\n");
  ASSERT_EQ(cli(cwd, {"run", "c.toml", "--out", "c"}).code, 0);
  const auto rp = cli(cwd, {"run", "p.toml", "--out", "p"});
  ASSERT_EQ(rp.code, 0) << rp.err;
  const auto c = lievi::io::read_csv_table(cwd / "c" / "series.csv");
  const auto p = lievi::io::read_csv_table(cwd / "p" / "series.csv");
  ASSERT_EQ(c.rows.size(), p.rows.size());
  for (const char* name : {"endL_x", "endL_z", "E_c"}) {
    const std::size_t k = column(c, name);
    for (std::size_t n = 0; n < c.rows.size(); ++n)
      EXPECT_NEAR(p.rows[n][k], c.rows[n][k], 1e-12 * (1.0 + std::abs(c.rows[n][k]))) << name << " row " << n;
  }
  // a moving end: lifting the end by 1 cm over 0.05 s and holding it there; with damping (5/s: the first
  // mode's amplitude falls by e^{-7.5} in 3 s) the beam settles straight at the new height, so the tip rises
  // by the same 1 cm (the motion is transmitted)
  write(cwd / "lift.csv", "t,x,y,z,qw,qx,qy,qz\n0,0,0,0,1,0,0,0\n0.05,0,0,0.01,1,0,0,0\n");
  write(cwd / "lift.toml", kTable1 + tail + "[bc]\nleft = \"prescribed\"\nleft_motion = \"lift.csv\"\n" +
                               "[damping]\nlinear = 5.0\nangular = 5.0\n");
  const auto rl = cli(cwd, {"run", "lift.toml", "--out", "lift", "--set", "integrator.t_end=3"});
  ASSERT_EQ(rl.code, 0) << rl.err;
  const auto l = lievi::io::read_csv_table(cwd / "lift" / "series.csv");
  EXPECT_NEAR(l.rows.back()[column(l, "end0_z")], 0.01, 1e-15);  // held at the last pose after the table
  EXPECT_NEAR(l.rows.back()[column(l, "endL_z")], 0.01, 1e-4);
}

TEST(BeamCliBc, DampingMakesTheCentredEnergyDecay) {
  const fs::path cwd = fresh_dir(tmp, "damping");
  for (const char* rate : {"0", "5"}) {
    const auto r = cli(cwd, {"run", examples + "bending.toml", "--out", std::string("c") + rate, "--set",
                             "integrator.t_end=0.2", "--set", "output.every=20", "--set", "output.plots=false",
                             "--set", "output.fields=false", "--set", "output.vtk=false", "--set",
                             std::string("damping.linear=") + rate, "--set", std::string("damping.angular=") + rate});
    ASSERT_EQ(r.code, 0) << r.err;
  }
  const auto u = lievi::io::read_csv_table(cwd / "c0" / "series.csv");
  const auto d = lievi::io::read_csv_table(cwd / "c5" / "series.csv");
  const std::size_t E = column(d, "E_c");
  for (std::size_t k = 1; k < d.rows.size(); ++k) EXPECT_LT(d.rows[k][E], d.rows[k - 1][E]) << "row " << k;
  // undamped: E_c kept to its O(dt^2) fluctuation; damped: a clear loss
  EXPECT_LT(drift(u, "E_c", u.rows.front()[E]), 2e-3);  // 6e-4 measured (prototype: 4e-4 in cell layout)
  EXPECT_LT(d.rows.back()[E], 0.99 * d.rows.front()[E]);
}

TEST(BeamCliBc, SteppedCantileverSettlesOnThePiecewiseStaticDeflection) {
  const fs::path cwd = fresh_dir(tmp, "regions");
  // E = 1e11 (linear: tip deflection / L = 1.5e-3), the outer half E = 2e11 (G follows E with nu = 0.35);
  // tip force 1000 N; damping 400/s (near critical for the first mode, omega_1 ~ 270/s) settles it in 0.1 s
  // to e^-20 of the initial transient.
  const double P = 1000.0, E1 = 1e11, E2 = 2e11, nu = 0.35, I = std::pow(0.1, 4) / 12.0, A = 0.01;
  const double G1 = E1 / (2 * (1 + nu)), G2 = E2 / (2 * (1 + nu));
  // Timoshenko (k_s = 1): int_0^L P (L - s)^2 / EI ds + int_0^L P / (G A) ds, L = 2, step at s = 1
  const double exact = P * (7.0 / 3.0 / (E1 * I) + 1.0 / 3.0 / (E2 * I)) + P * (1.0 / (G1 * A) + 1.0 / (G2 * A));
  std::vector<double> err;
  for (const int J : {10, 20}) {
    write(cwd / "step.toml", R"([model]
type = "beam"
rho = 1000.0
E = 1e11
nu = 0.35
a = 0.1
[[regions]]
s_range = [1.0, 2.0]
E = 2e11
[grid]
length = 2.0
[bc]
left = "clamped"
[[loads]]
node = "last"
wrench = [0, 0, 0, 0, 0, -1000.0]
[damping]
linear = 400.0
angular = 400.0
[integrator]
t_end = 0.1
[output]
every = 1000
plots = false
fields = false
vtk = false
)");
    const std::string out = "J" + std::to_string(J);
    const auto r = cli(cwd, {"run", "step.toml", "--out", out, "--set", "grid.J=" + std::to_string(J), "--set",
                             std::string("integrator.dt=") + (J == 10 ? "5e-6" : "2.5e-6")});
    ASSERT_EQ(r.code, 0) << r.err;
    const auto t = lievi::io::read_csv_table(cwd / out / "series.csv");
    const double tip = -t.rows.back()[column(t, "endL_z")];
    err.push_back(std::abs(tip - exact) / exact);
    std::printf("stepped cantilever J = %d: tip %.10e, exact %.10e, relative error %.3e\n", J, tip, exact, err.back());
  }
  EXPECT_LT(err[1], 1e-3);  // 5.0e-4 measured (2.0e-3 at J = 10)
  EXPECT_NEAR(std::log2(err[0] / err[1]), 2.0, 0.15);
}

TEST(BeamCliBc, InitialReferenceMakesTheArcStressFree) {
  const fs::path cwd = fresh_dir(tmp, "reference");
  const auto r = cli(cwd, {"run", examples + "bending.toml", "--out", "x", "--set", "model.reference=\"initial\"",
                           "--set", "integrator.t_end=0.05", "--set", "output.every=50", "--set", "output.plots=false",
                           "--set", "output.fields=false", "--set", "output.vtk=false"});
  ASSERT_EQ(r.code, 0) << r.err;
  const auto t = lievi::io::read_csv_table(cwd / "x" / "series.csv");
  // the prestressed arc holds 87.5 J with the straight reference; stress-free it stays at rest
  for (const auto& row : t.rows) EXPECT_LT(row[column(t, "E_c")], 1e-20) << row[0];
}

TEST(BeamCliBc, BadBoundariesAndLoadsAreRefusedWithKeyAndValue) {
  const fs::path cwd = fresh_dir(tmp, "bad");
  const std::string base = kTable1 + R"(
[grid]
J = 10
length = 2.0
[integrator]
dt = 1e-4
t_end = 0.01
[output]
plots = false
)";
  struct Case {
    const char* name;
    std::string extra;
    std::string csv;
    std::vector<std::string> expect;
  };
  const std::vector<Case> cases = {
      {"one_periodic", "[bc]\nleft = \"periodic\"\n", "", {"bc.right", "must be given for both ends"}},
      {"no_motion", "[bc]\nleft = \"prescribed\"\n", "", {"bc.left_motion", "pose table"}},
      {"cell_prescribed", "[bc]\nleft = \"prescribed\"\nleft_motion = \"m.csv\"\n",
       "t,x,y,z,qw,qx,qy,qz\n0,0,0,0,1,0,0,0\n", {"bc.left", "needs grid.layout = \"vertex\""}},
      {"bad_header", "[bc]\nleft = \"prescribed\"\nleft_motion = \"m.csv\"\n", "t,x,y,z,qx,qy,qz,qw\n0,0,0,0,0,0,0,1\n",
       {"m.csv", "bc.left_motion", "line 1", "expected t,x,y,z,qw,qx,qy,qz"}},
      {"bad_time", "[bc]\nleft = \"prescribed\"\nleft_motion = \"m.csv\"\n",
       "t,x,y,z,qw,qx,qy,qz\n0,0,0,0,1,0,0,0\n0.5,0,0,0,1,0,0,0\n0.5,0,0,0,1,0,0,0\n",
       {"m.csv", "line 4", "strictly increasing"}},
      {"bad_quat", "[bc]\nleft = \"prescribed\"\nleft_motion = \"m.csv\"\n", "t,x,y,z,qw,qx,qy,qz\n0,0,0,0,1,0,0,0.1\n",
       {"m.csv", "line 2", "norm"}},
      {"not_start", "[bc]\nleft = \"prescribed\"\nleft_motion = \"m.csv\"\n", "t,x,y,z,qw,qx,qy,qz\n0,0.5,0,0,1,0,0,0\n",
       {"m.csv", "differs from the initial pose of node 0"}},
      {"late_start", "[bc]\nleft = \"prescribed\"\nleft_motion = \"m.csv\"\n", "t,x,y,z,qw,qx,qy,qz\n0.1,0,0,0,1,0,0,0\n",
       {"m.csv", "start at t = 0"}},
      {"missing_file", "[bc]\nleft = \"prescribed\"\nleft_motion = \"nothere.csv\"\n", "", {"bc.left_motion", "nothere.csv"}},
      {"open_ring", "[bc]\nleft = \"periodic\"\nright = \"periodic\"\n[initial]\nshape = \"arc\"\nradius = 1.0\n", "",
       {"grid.length", "must close into a ring"}},
      {"range", "[[distributed_loads]]\nwrench = [0, 0, 0, 0, 0, 1]\ns_range = [1.0, 3.0]\n", "",
       {"distributed_loads[0].s_range", "0 <= s_from < s_to <= grid.length"}},
      {"no_wrench", "[[distributed_loads]]\nframe = \"body\"\n", "", {"distributed_loads[0].wrench"}},
      {"damping", "[damping]\nlinear = -1.0\n", "", {"damping.linear", "-1", ">= 0"}},
      {"node", "[[loads]]\nnode = 99\nwrench = [0, 0, 0, 0, 0, 1]\n", "", {"loads[0].node", "99", "[0, 11)"}},
      {"region_key", "[[regions]]\ns_range = [0.0, 1.0]\nr = 0.2\n", "", {"regions[0].r", "model.section = \"square\"", "model.a"}},
      {"region_range", "[[regions]]\ns_range = [1.0, 0.5]\nE = 1e8\n", "", {"regions[0].s_range", "s_from < s_to"}},
      {"region_E", "[[regions]]\ns_range = [0.0, 1.0]\nE = -1.0\n", "", {"regions[0].E", "> 0"}},
  };
  for (const auto& c : cases) {
    const fs::path dir = cwd / c.name;
    fs::create_directories(dir);
    std::string text = base + c.extra;
    if (std::string(c.name) == "cell_prescribed")  // the same grid in the cell layout
      text = kTable1 + "[grid]\nJ = 10\nlength = 2.0\nlayout = \"cell\"\n" + base.substr(base.find("[integrator]")) + c.extra;
    write(dir / "s.toml", text);
    if (!c.csv.empty()) write(dir / "m.csv", c.csv);
    const auto r = cli(dir, {"run", "s.toml", "--out", "out"});
    EXPECT_EQ(r.code, 2) << c.name << ": " << r.err;
    for (const auto& e : c.expect) EXPECT_NE(r.err.find(e), std::string::npos) << c.name << ": " << r.err;
    EXPECT_FALSE(fs::exists(dir / "out")) << c.name;
  }
}

TEST(BeamCliBc, NewtonFailureNamesStepNodeAndResidual) {
  const fs::path cwd = fresh_dir(tmp, "newton");
  // one Newton iteration allowed and a tolerance no iterate can meet: the local solve fails at the first step
  const auto r = cli(cwd, {"run", examples + "bending.toml", "--out", "x", "--set", "integrator.newton_maxit=1",
                           "--set", "integrator.newton_tol=1e-30", "--set", "output.plots=false"});
  EXPECT_EQ(r.code, 3) << r.err;
  EXPECT_NE(r.err.find("step"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("node"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("residual"), std::string::npos) << r.err;
  const auto j = nlohmann::json::parse(read_file(cwd / "x" / "summary.json"));
  EXPECT_EQ(j["status"], "failed");
  EXPECT_EQ(j["failure"]["step"].get<int>(), 1);  // the step being taken, counted from 1
  EXPECT_GE(j["failure"]["node"].get<int>(), 0);
  EXPECT_GT(j["failure"]["residual"].get<double>(), 0.0);
}

TEST(BeamCliBc, EveryExampleRunsAtReducedLength) {
  const fs::path cwd = fresh_dir(tmp, "examples");
  int count = 0;
  for (const auto& entry : fs::directory_iterator(examples)) {
    if (entry.path().extension() != ".toml") continue;
    ++count;
    const std::string text = read_file(entry.path());
    std::smatch m;
    ASSERT_TRUE(std::regex_search(text, m, std::regex(R"(\ndt\s*=\s*([0-9.eE+-]+))"))) << entry.path();
    const double dt = std::stod(m[1]);
    const std::string name = entry.path().stem().string();
    auto r = cli(cwd, {"validate", entry.path().string()});
    EXPECT_EQ(r.code, 0) << name << ": " << r.err;
    // 20 steps, every output written (plots included when matplotlib is there; their absence is a note)
    r = cli(cwd, {"run", entry.path().string(), "--out", name, "--set", "integrator.t_end=" + num(20 * dt),
                  "--set", "output.every=5"});
    EXPECT_EQ(r.code, 0) << name << ": " << r.err;
    const auto j = nlohmann::json::parse(read_file(cwd / name / "summary.json"));
    EXPECT_EQ(j["status"], "complete") << name;
    EXPECT_EQ(j["steps"].get<int>(), 20) << name;
    // with the plots made (matplotlib present), output.animation adds motion.gif
    if (fs::exists(cwd / name / "snapshots.png") && text.find("\nanimation = true") != std::string::npos) {
      EXPECT_TRUE(fs::exists(cwd / name / "motion.gif")) << name;
    }
  }
  EXPECT_GE(count, 3);
}

TEST(BeamCliBc, CantileverIsBitwiseTheSameForOneAndTwoThreads) {
  const fs::path cwd = fresh_dir(tmp, "threads");
  for (const char* n : {"1", "2"}) {
    const auto r = cli(cwd, {"run", examples + "cantilever.toml", "--out", std::string("t") + n, "--set", "grid.J=600",
                             "--set", "integrator.dt=1e-7", "--set", "integrator.t_end=1e-5", "--set", "output.every=10",
                             "--set", "output.plots=false", "--set", "output.fields_csv=true", "--set", "output.vtk=false",
                             "--set", "output.fields=false"},
                       std::string("OMP_NUM_THREADS=") + n);
    ASSERT_EQ(r.code, 0) << r.err;
  }
  EXPECT_EQ(read_file(cwd / "t1" / "series.csv"), read_file(cwd / "t2" / "series.csv"));
  EXPECT_EQ(read_file(cwd / "t1" / "final_fields.csv"), read_file(cwd / "t2" / "final_fields.csv"));
  const auto t = lievi::io::read_csv_table(cwd / "t1" / "series.csv");
  EXPECT_LT(t.rows.back()[column(t, "endL_z")], 0.0);  // it has started to sag
}

TEST(BeamCliBc, NeighboursRotatedByPiAreRefusedNamingTheSegment) {
  const fs::path cwd = fresh_dir(tmp, "pi");
  // three nodes on the x axis; node 2 turned by pi about z relative to node 1 (Cayley's singularity)
  write(cwd / "init.csv", "x,y,z,qw,qx,qy,qz\n0,0,0,1,0,0,0\n0.5,0,0,1,0,0,0\n1,0,0,0,0,0,1\n");
  write(cwd / "s.toml", kTable1 + R"(
[grid]
J = 2
length = 1.0
[initial]
file = "init.csv"
[integrator]
dt = 1e-4
t_end = 1e-3
)");
  const auto r = cli(cwd, {"run", "s.toml", "--out", "x"});
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_NE(r.err.find("segment 1 (nodes 1, 2)"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("near pi"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(cwd / "x"));
}

TEST(BeamCliBc, NoisyRunsAreReproducibleAndKeepTheMomentumMap) {
  const fs::path cwd = fresh_dir(tmp, "noise");
  const std::vector<std::string> common = {"--set", "integrator.t_end=0.05", "--set", "output.every=10", "--set",
                                           "output.plots=false", "--set", "output.fields=false", "--set",
                                           "output.vtk=false", "--set", "noise.mode=\"independent\"", "--set",
                                           "noise.theta=[0.05, 0.05, 0.05, 0.05, 0.05, 0.05]", "--set",
                                           "initial.velocity=[0.3, 0.2, -0.1, 0.1, 0.0, 0.2]"};
  auto run = [&](const std::string& out, const std::vector<std::string>& extra) {
    std::vector<std::string> args = {"run", examples + "bending.toml", "--out", out};
    args.insert(args.end(), common.begin(), common.end());
    args.insert(args.end(), extra.begin(), extra.end());
    return cli(cwd, args);
  };
  for (const auto& [out, extra] : std::vector<std::pair<std::string, std::vector<std::string>>>{
           {"a", {}}, {"b", {}}, {"p1", {"--set", "noise.path=1"}}}) {
    const auto r = run(out, extra);
    ASSERT_EQ(r.code, 0) << r.err;
  }
  EXPECT_EQ(read_file(cwd / "a" / "series.csv"), read_file(cwd / "b" / "series.csv"));  // same seed and path
  EXPECT_NE(read_file(cwd / "a" / "series.csv"), read_file(cwd / "p1" / "series.csv"));  // another path
  const auto j = nlohmann::json::parse(read_file(cwd / "a" / "summary.json"));
  EXPECT_LT(j["diagnostics"]["momentum_max_drift"].get<double>(), 1e-12);  // |J| ~ 1: noise keeps it
  EXPECT_LT(j["diagnostics"]["orth_err_max"].get<double>(), 1e-13);
  // the noise moves the beam: the energy of path 0 differs from the deterministic run's
  const auto det = cli(cwd, {"run", examples + "bending.toml", "--out", "det", "--set", "integrator.t_end=0.05", "--set",
                             "output.every=10", "--set", "output.plots=false", "--set", "output.fields=false", "--set",
                             "output.vtk=false", "--set", "initial.velocity=[0.3, 0.2, -0.1, 0.1, 0.0, 0.2]"});
  ASSERT_EQ(det.code, 0) << det.err;
  const auto sa = lievi::io::read_csv_table(cwd / "a" / "series.csv");
  const auto sd = lievi::io::read_csv_table(cwd / "det" / "series.csv");
  EXPECT_GT(std::abs(sa.rows.back()[column(sa, "E_c")] - sd.rows.back()[column(sd, "E_c")]), 1e-3);
}

TEST(BeamCliBc, EnsembleMeansAndPathsMatchSingleRuns) {
  const fs::path cwd = fresh_dir(tmp, "ensemble");
  const std::vector<std::string> base = {"--set", "integrator.t_end=2", "--set", "output.every=100", "--set",
                                         "output.plots=false", "--set", "output.fields=false", "--set", "output.vtk=false"};
  auto run = [&](std::vector<std::string> args) {
    args.insert(args.begin(), {"run", examples + "stochastic_spaghetti.toml"});
    args.insert(args.end(), base.begin(), base.end());
    return cli(cwd, args);
  };
  auto r = run({"--out", "ens", "--paths", "5", "--set", "noise.path=3", "--set", "output.per_path=true"});
  ASSERT_EQ(r.code, 0) << r.err;
  // path k of the ensemble is the single run of noise.path = k, byte for byte; the mean is their mean
  std::vector<lievi::io::CsvTable> single;
  for (int k = 3; k < 8; ++k) {
    const std::string out = "p" + std::to_string(k);
    ASSERT_EQ(run({"--out", out, "--set", "noise.path=" + std::to_string(k)}).code, 0);
    EXPECT_EQ(read_file(cwd / "ens" / ("series_path" + std::to_string(k) + ".csv")), read_file(cwd / out / "series.csv"));
    single.push_back(lievi::io::read_csv_table(cwd / out / "series.csv"));
  }
  const auto mean = lievi::io::read_csv_table(cwd / "ens" / "series_mean.csv");
  const auto sd = lievi::io::read_csv_table(cwd / "ens" / "series_std.csv");
  const std::size_t x = column(mean, "endL_x");
  for (std::size_t row = 0; row < mean.rows.size(); ++row) {
    double m = 0, q = 0;
    for (const auto& t : single) m += t.rows[row][x];
    m /= 5.0;
    for (const auto& t : single) q += (t.rows[row][x] - m) * (t.rows[row][x] - m);
    EXPECT_NEAR(mean.rows[row][x], m, 1e-12 * (1 + std::abs(m)));
    EXPECT_NEAR(sd.rows[row][x], std::sqrt(q / 4.0), 1e-10 * (1 + std::abs(m)));
  }
  EXPECT_GT(sd.rows.back()[x], 0.0);  // the paths differ
  const auto j = nlohmann::json::parse(read_file(cwd / "ens" / "summary.json"));
  EXPECT_EQ(j["paths"].get<int>(), 5);
  EXPECT_EQ(j["status"], "complete");
  // --paths without noise is bad input
  r = cli(cwd, {"run", examples + "bending.toml", "--out", "bad", "--paths", "4"});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("needs a noisy scenario"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(cwd / "bad"));
}

TEST(BeamCliBc, NoiseTooLargeForNewtonStopsWithStepNodeAndTheTruncationHint) {
  const fs::path cwd = fresh_dir(tmp, "bignoise");
  // Theta = 50 rad/sqrt(s) on one node in ten steps of 1e-4: rotation increments of ~0.5 rad, and a Newton
  // limit of 2 iterations: the local solve fails, the message names step and node and suggests the remedies
  const auto r = cli(cwd, {"run", examples + "bending.toml", "--out", "x", "--set", "noise.mode=\"independent\"",
                           "--set", "noise.theta=[50, 50, 50, 0, 0, 0]", "--set", "integrator.newton_maxit=2",
                           "--set", "integrator.t_end=0.01", "--set", "output.plots=false"});
  EXPECT_EQ(r.code, 3) << r.err;
  EXPECT_NE(r.err.find("node"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("noise.truncate"), std::string::npos) << r.err;
  const auto j = nlohmann::json::parse(read_file(cwd / "x" / "summary.json"));
  EXPECT_EQ(j["status"], "failed");
  EXPECT_GE(j["failure"]["step"].get<int>(), 1);
  // and the summary warned about the large increments
  bool warned = false;
  for (const auto& n : j["notes"]) warned = warned || n.get<std::string>().find("large noise increments") != std::string::npos;
  EXPECT_TRUE(warned);
}
