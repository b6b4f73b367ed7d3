// `lievi run` of beam scenarios end to end: the flying spaghetti's impulse and outputs (series.csv, fields.h5,
// beam.pvd), momentum conservation of the free bending beam, thread-count independence of the files, and the
// stability refusal / blow-up exits.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
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

namespace {

/// The floppy damped rod of PyElastica's guide (docs/theory/beam.md "Stability bound"): clamped, L = 1 m,
/// r = 1 cm, rho = 1000, E = 1 MPa, nu = 0.499, damping 0.1/s on velocities and angular velocities, J segments,
/// straight along x at rest, swinging down under gravity; everything but [integrator].
constexpr int J20 = 20;
std::string floppy_rod(int J, int every = 20) {
  return R"([model]
type = "beam"
section = "circle"
rho = 1000.0
E = 1e6
nu = 0.499
r = 0.01
gravity = [0.0, 0.0, -9.81]
[grid]
J = )" + std::to_string(J) + R"(
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
every = )" + std::to_string(every) + R"(
plots = false
fields = false
vtk = false
)";
}
/// x with all the digits a double needs.
std::string num(double x) {
  char b[32];
  std::snprintf(b, sizeof b, "%.17g", x);
  return std::string(b);
}
/// [integrator] with dt = t_end / round(t_end / dt_max) <= ~dt_max.
std::string integrator(double dt_max, double t_end) {
  const double n = std::ceil(t_end / dt_max);
  return "[integrator]\ndt = " + num(t_end / n) + "\nt_end = " + num(t_end) + "\n";
}
/// The energy balance of a floppy-rod run (mass-proportional damping at 0.1/s): E_c(t) - E_c(0) + 2 c int_0^t
/// kinetic dt, by the trapezoid rule on series.csv; its largest size over [0, 1 s] (early) and [0, t_end] (whole),
/// and the energy dissipated by t_end.
struct Balance {
  double early = 0.0, whole = 0.0, dissipated = 0.0, t_end = 0.0;
};
Balance balance_of(const fs::path& series) {
  const auto t = lievi::io::read_csv_table(series);
  const std::size_t ct = column(t, "t"), ce = column(t, "E_c"), ck = column(t, "kinetic");
  Balance b;
  double diss = 0.0;
  for (std::size_t i = 0; i < t.rows.size(); ++i) {
    if (i > 0) diss += 0.2 * 0.5 * (t.rows[i][ck] + t.rows[i - 1][ck]) * (t.rows[i][ct] - t.rows[i - 1][ct]);
    const double res = std::abs(t.rows[i][ce] - t.rows[0][ce] + diss);
    if (t.rows[i][ct] <= 1.0) b.early = std::max(b.early, res);
    b.whole = std::max(b.whole, res);
  }
  b.dissipated = diss;
  b.t_end = t.rows.empty() ? 0.0 : t.rows.back()[ct];
  return b;
}

}  // namespace

TEST(BeamCli, StabilityBoundOfACoupledMatrixSectionIsItsOwn) {
  // a matrix section whose P couples bending (kappa_2) and stretching (Gamma_1) with r = 0.9 between two equal
  // wave speeds (K = I, P = 100 I): c_max^2 = 100 (1 + r) = 190 instead of 100, so the bound of summary.json is
  // 2 / sqrt(4 c^2 / ds^2 + omega_sh^2) with omega_sh^2 = 100 (ds = 0.5), and a step the uncoupled rule admits
  // is refused (docs/theory/beam.md "Stability bound")
  const fs::path cwd = fresh_dir(tmp, "coupled_bound");
  auto beam = [](double p13) {
    const std::string c = num(p13);
    return "[model]\ntype = \"beam\"\nsection = \"matrix\"\n"
           "K = [[1, 0, 0, 0, 0, 0], [0, 1, 0, 0, 0, 0], [0, 0, 1, 0, 0, 0], [0, 0, 0, 1, 0, 0], [0, 0, 0, 0, 1, 0], "
           "[0, 0, 0, 0, 0, 1]]\n"
           "P = [[100, 0, 0, 0, 0, 0], [0, 100, 0, " + c + ", 0, 0], [0, 0, 100, 0, 0, 0], [0, " + c +
           ", 0, 100, 0, 0], [0, 0, 0, 0, 100, 0], [0, 0, 0, 0, 0, 100]]\n"
           "[grid]\nJ = 20\nlength = 10.0\n[initial]\nshape = \"straight\"\n"
           "[output]\nplots = false\nvtk = false\n";
  };
  std::ofstream(cwd / "coupled.toml") << beam(90.0) << "[integrator]\ndt = 1e-3\nt_end = 1e-2\n";
  std::ofstream(cwd / "diagonal.toml") << beam(0.0) << "[integrator]\ndt = 1e-3\nt_end = 1e-2\n";
  ASSERT_EQ(cli(cwd, {"run", "coupled.toml", "--out", "c"}).code, 0);
  ASSERT_EQ(cli(cwd, {"run", "diagonal.toml", "--out", "d"}).code, 0);
  const double bc = summary(cwd / "c")["stable_dt_bound"].get<double>(),
               bd = summary(cwd / "d")["stable_dt_bound"].get<double>();
  EXPECT_NEAR(bc, 2.0 / std::sqrt(4.0 * 190.0 / 0.25 + 100.0), 1e-12 * bc);
  EXPECT_NEAR(bd, 2.0 / std::sqrt(4.0 * 100.0 / 0.25 + 100.0), 1e-12 * bd);
  const std::string dt = "integrator.dt=" + num(0.95 * bd), t_end = "integrator.t_end=" + num(10 * 0.95 * bd);
  const auto ok = cli(cwd, {"validate", "diagonal.toml", "--set", dt, "--set", t_end});
  EXPECT_EQ(ok.code, 0) << ok.err;
  const auto r = cli(cwd, {"validate", "coupled.toml", "--set", dt, "--set", t_end});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("largest stable dt"), std::string::npos) << r.err;
}

TEST(BeamCli, BlowUpInLargeMotionIsNamedAndTheSuggestedStepRuns) {
  // The floppy damped rod of PyElastica's guide (docs/theory/beam.md "Stability bound"): clamped, L = 1 m,
  // r = 1 cm, rho = 1000, E = 1 MPa, nu = 0.499, damping 0.1/s, J = 20, swinging down under gravity. The
  // a-priori bound is that of small motion; at 0.97 of it the rod blows up when it is most curled (t ~ 0.7 s).
  // The failure must say that the energy was blowing up (not the solve) and name 0.7 of the bound; that step
  // must then run the rod to t = 10 s.
  const fs::path cwd = fresh_dir(tmp, "floppy");
  const std::string rod = floppy_rod(J20);
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
  // and that the clamp's segment had bent by far more than a resolved grid's (80 degrees at t = 0.7 s)
  EXPECT_NE(hint.find("the grid is coarse for this motion: segment 0 turned by"), std::string::npos) << hint;
  // the suggested step runs the rod to t = 10 s
  const long long n = static_cast<long long>(std::ceil(10.0 / suggested));
  std::ofstream(cwd / "safe.toml") << rod << "[integrator]\ndt = " << num(10.0 / n) << "\nt_end = 10.0\n";
  const auto ok = cli(cwd, {"run", "safe.toml", "--out", "safe"});
  EXPECT_EQ(ok.code, 0) << ok.err;
  const auto safe = summary(cwd / "safe");
  EXPECT_EQ(safe["status"], "complete");
  bool coarse = false;  // the same bend, noted in the run that completes
  for (const auto& note : safe["notes"])
    coarse = coarse || note.get<std::string>().find("coarse grid for this motion: segment 0") != std::string::npos;
  EXPECT_TRUE(coarse) << safe["notes"].dump();
}

TEST(BeamCli, FloppyRodClosesItsEnergyBalanceAtOrderTwo) {
  // The floppy rod above swinging down from rest (gravity is part of E_c, docs/outputs.md): with mass-
  // proportional damping at one rate c for rotation and translation, D = c K and the dissipated power is
  // <zeta, D zeta> = 2 c (kinetic energy), so E_c(t) - E_c(0) + 2 c int_0^t kinetic dt = 0 for the continuous
  // rod. The residual of the runs (series.csv every 10 steps, trapezoid rule) must vanish at the scheme's order:
  //  - J = 20 at 0.8, 0.4, 0.2 of the a-priori bound, all to t = 10 s without a failure;
  //  - over [0, 1 s] (the first swing), residual ratios 4.0 per halving of dt (asserted in [3.3, 4.7]), and below
  //    1e-4 J at 0.8 of the bound (the energy moved is ~0.4 J by then);
  //  - over [0, 10 s], through the rod's most curled moments, the residual at 0.2 of the bound below 1% of the
  //    energy dissipated (measured 0.7%); at 0.8 the run completes but is 33% off (measured: 0.31 J of 0.93 J),
  //    so runs through large motion near the bound are stable, not accurate: printed, not asserted.
  //  - J = 50 and 100 at 0.8 of the bound run to t = 10 s.
  const fs::path cwd = fresh_dir(tmp, "floppy_balance");
  std::map<int, double> bounds;
  const auto bound_of = [&](int J) {
    if (!bounds.count(J)) {
      const std::string probe = "probe" + std::to_string(J);
      std::ofstream(cwd / (probe + ".toml")) << floppy_rod(J) << "[integrator]\ndt = 1e-6\nt_end = 1e-5\n";
      EXPECT_EQ(cli(cwd, {"run", probe + ".toml", "--out", probe}).code, 0);
      bounds[J] = summary(cwd / probe)["stable_dt_bound"].get<double>();
    }
    return bounds[J];
  };
  const auto run_balance = [&](int J, double frac, const std::string& out) {
    std::ofstream(cwd / (out + ".toml")) << floppy_rod(J, 10) << integrator(frac * bound_of(J), 10.0);
    const auto r = cli(cwd, {"run", out + ".toml", "--out", out});
    EXPECT_EQ(r.code, 0) << out << ": " << r.err;
    const Balance b = balance_of(cwd / out / "series.csv");
    EXPECT_NEAR(b.t_end, 10.0, 1e-9) << out;
    const double diss = b.dissipated;
    std::printf("J = %d, %.1f of the bound: balance residual %.3e J on [0, 1], %.3e J on [0, 10]; dissipated %.4f J\n",
                J, frac, b.early, b.whole, diss);
    return b;
  };
  const Balance b8 = run_balance(J20, 0.8, "b8"), b4 = run_balance(J20, 0.4, "b4"), b2 = run_balance(J20, 0.2, "b2");
  EXPECT_LT(b8.early, 1e-4);
  for (const double ratio : {b8.early / b4.early, b4.early / b2.early}) {
    EXPECT_GT(ratio, 3.3);
    EXPECT_LT(ratio, 4.7);
  }
  EXPECT_LT(b2.whole, 0.01 * b2.dissipated);
  for (const int J : {50, 100}) run_balance(J, 0.8, "J" + std::to_string(J));
}

TEST(BeamCli, ExpRetractionRunsTheFloppyRodAtTheBound) {
  // The floppy rod above with the exp retraction (docs/theory/beam.md "Stability bound", "Large bends and the
  // retraction"): a node rotation of a segment bent by b changes its axial strain by (b/12) per radian with the
  // logarithm, against (b/4) with the Cayley map, so large bends raise the top frequency about 9 times less.
  //  - J = 20, 50, 100 at 0.95 of the a-priori bound run to t = 10 s (the issue's robustness case); the energy
  //    balance over the first swing is below 5e-5 J (measured 1.6e-5, 1.0e-5, 4.3e-6 J) and, at J = 20, falls
  //    as dt^2 (0.95 against 0.475 of the bound: ratio 4, asserted in [3.3, 4.7]);
  //  - Newton takes fewer than 3.5 updates per node-step on average (measured 2.3-2.9): the exp node kernel's
  //    Jacobian couples through the translation by its leading term, and converges linearly in this motion
  //    (docs/theory/staggered.md "The exp retraction on the batched path");
  //  - with the Cayley retraction the same step blows up at J = 20 (it runs to 0.8 of the bound), and the failure
  //    names the exp retraction.
  const fs::path cwd = fresh_dir(tmp, "floppy_exp");
  const auto bound_of = [&](int J) {
    const std::string probe = "probe" + std::to_string(J);
    std::ofstream(cwd / (probe + ".toml")) << floppy_rod(J) << "[integrator]\ndt = 1e-6\nt_end = 1e-5\n";
    EXPECT_EQ(cli(cwd, {"run", probe + ".toml", "--out", probe}).code, 0);
    return summary(cwd / probe)["stable_dt_bound"].get<double>();
  };
  const auto rod = [&](int J, double dt, const char* retraction) {
    return floppy_rod(J, 10) + integrator(dt, 10.0) + "retraction = \"" + retraction + "\"\n";
  };
  std::map<int, Balance> at95;
  double bound20 = 0.0;
  for (const int J : {J20, 50, 100}) {
    const double bound = bound_of(J);
    if (J == J20) bound20 = bound;
    const std::string out = "exp" + std::to_string(J);
    std::ofstream(cwd / (out + ".toml")) << rod(J, 0.95 * bound, "exp");
    const auto r = cli(cwd, {"run", out + ".toml", "--out", out});
    ASSERT_EQ(r.code, 0) << out << ": " << r.err;
    const auto sum = summary(cwd / out);
    EXPECT_EQ(sum["status"], "complete") << out;
    EXPECT_LT(sum["diagnostics"]["newton_mean"].get<double>(), 3.5) << out;
    if (J == J20) {  // the clamp's segment bends by about 95 degrees: noted, in the exp retraction's words
      bool noted = false;
      for (const auto& note : sum["notes"]) {
        const std::string n = note.get<std::string>();
        noted = noted || (n.find("coarse grid for this motion") != std::string::npos &&
                          n.find("lower the stable step far less than with Cayley") != std::string::npos);
      }
      EXPECT_TRUE(noted) << sum["notes"].dump();
    }
    const Balance b = balance_of(cwd / out / "series.csv");
    EXPECT_NEAR(b.t_end, 10.0, 1e-9) << out;
    EXPECT_LT(b.early, 5e-5) << out;
    std::printf("exp, J = %d, 0.95 of the bound: balance residual %.3e J on [0, 1], %.3e J on [0, 10]; dissipated "
                "%.4f J\n", J, b.early, b.whole, b.dissipated);
    at95[J] = b;
  }
  std::ofstream(cwd / "half.toml") << rod(J20, 0.475 * bound20, "exp");
  ASSERT_EQ(cli(cwd, {"run", "half.toml", "--out", "half"}).code, 0);
  const double ratio = at95[J20].early / balance_of(cwd / "half" / "series.csv").early;
  EXPECT_GT(ratio, 3.3);
  EXPECT_LT(ratio, 4.7);
  std::ofstream(cwd / "cayley.toml") << rod(J20, 0.95 * bound20, "cayley");
  const auto c = cli(cwd, {"run", "cayley.toml", "--out", "cayley"});
  ASSERT_EQ(c.code, 3) << c.err;
  const std::string hint = summary(cwd / "cayley")["failure"]["hint"].get<std::string>();
  EXPECT_NE(hint.find("blowing up"), std::string::npos) << hint;
  EXPECT_NE(hint.find("integrator.retraction = \"exp\""), std::string::npos) << hint;
}
