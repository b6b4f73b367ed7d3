// `lievi run` / `validate` of beam scenarios with spatial noise modes (`noise.mode = "modes"`, the
// `[[noise.modes]]` tables of docs/scenarios.md) and the `approx` variant key, end to end through the TOML reader:
//  - one constant mode equal to theta is the `common` run byte for byte (both draw stream mode 0);
//  - two modes (a cos and a sin profile) keep the momentum map of a free-free beam without loads to round-off
//    (Type-I noise in the body frame is left-invariant, docs/theory/beam.md "Noise"); a cos mode with
//    wavenumber 1 gives another path than `common` with the same theta and stream;
//  - a clamped end gets no noise: its position stays exactly at its initial value;
//  - bad [[noise.modes]] input: exit 2, the file, the key and the value, and nothing written;
//  - integrator.variant = "approx" is accepted and summary.json says method.order = 1 (docs/theory/beam.md
//    "The two variants"); the numerics of approx are checked with the stepper, not here.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "lievi/io/table_csv.hpp"
#include "support/cli_process.hpp"

namespace fs = std::filesystem;
using lievi::test::fresh_dir;
using lievi::test::read_file;
using lievi::test::run_program;

namespace {

const fs::path tmp = fs::path(LIEVI_TEST_TMP_DIR) / "beam_noise";
const std::string examples = std::string(LIEVI_TEST_SOURCE_DIR) + "/examples/beam/";

lievi::test::CliResult cli(const fs::path& cwd, std::vector<std::string> args, const std::string& env = "") {
  return run_program(LIEVI_CLI_PATH, cwd, args, env);
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
/// Largest |change| of a column over the run.
double drift(const lievi::io::CsvTable& t, const std::string& name) {
  const std::size_t c = column(t, name);
  double d = 0.0;
  for (const auto& row : t.rows) d = std::max(d, std::abs(row[c] - t.rows.front()[c]));
  return d;
}

/// examples/beam/stochastic_bending.toml (Table 1's released arc, free-free, common noise Theta = 0.005, seed 11)
/// with its `mode = "common"` line replaced by `mode_line` and `tables` appended.
std::string stochastic_bending(const std::string& mode_line, const std::string& tables) {
  std::string text = read_file(examples + "stochastic_bending.toml");
  const std::string common = "mode = \"common\"";
  const auto at = text.find(common);
  if (at == std::string::npos) {
    ADD_FAILURE() << "stochastic_bending.toml has no line " << common;
    return text;
  }
  text.replace(at, common.size(), mode_line);
  return text + "\n" + tables;
}

/// Short runs without plots, fields or vtk (t_end = 0.02: 200 steps of 1e-4).
const std::vector<std::string> kShort = {"--set", "integrator.t_end=0.02", "--set", "output.every=10",
                                         "--set", "output.plots=false",   "--set", "output.fields=false",
                                         "--set", "output.vtk=false"};

lievi::test::CliResult run(const fs::path& cwd, const std::string& file, const std::string& out,
                           std::vector<std::string> extra = {}) {
  std::vector<std::string> args = {"run", file, "--out", out};
  args.insert(args.end(), kShort.begin(), kShort.end());
  args.insert(args.end(), extra.begin(), extra.end());
  return cli(cwd, args);
}

const std::string kTheta = "[0.005, 0.005, 0.005, 0.005, 0.005, 0.005]";

}  // namespace

TEST(BeamCliNoise, OneConstantModeIsTheCommonRunByteForByte) {
  const fs::path cwd = fresh_dir(tmp, "constant");
  write(cwd / "modes.toml",
        stochastic_bending("mode = \"modes\"", "[[noise.modes]]\ntheta = " + kTheta + "\nprofile = \"constant\"\n"));
  const auto m = run(cwd, "modes.toml", "modes");
  ASSERT_EQ(m.code, 0) << m.err;
  const auto c = run(cwd, examples + "stochastic_bending.toml", "common");
  ASSERT_EQ(c.code, 0) << c.err;
  const std::string sm = read_file(cwd / "modes" / "series.csv"), sc = read_file(cwd / "common" / "series.csv");
  EXPECT_FALSE(sm.empty());
  EXPECT_EQ(sm, sc);  // mode 0 draws the stream of common (docs/scenarios.md "Streams")
  // the noise moved the beam: the deterministic run differs
  const auto d = run(cwd, examples + "stochastic_bending.toml", "det", {"--set", "noise.mode=none"});
  ASSERT_EQ(d.code, 0) << d.err;
  EXPECT_NE(read_file(cwd / "det" / "series.csv"), sm);
  // summary: the mode tables in the resolved scenario, noise.theta noted as ignored
  const auto j = nlohmann::json::parse(read_file(cwd / "modes" / "summary.json"));
  EXPECT_EQ(j["status"], "complete");
  bool noted = false;
  for (const auto& n : j["notes"]) noted = noted || n.get<std::string>().find("'noise.theta' is ignored") != std::string::npos;
  EXPECT_TRUE(noted) << j["notes"].dump();
  // (the resolved keys are split at their first dot: noise -> "modes[0].theta")
  EXPECT_EQ(j["scenario"]["noise"]["mode"], "modes");
  // the stream rule is named in noisy runs only (docs/outputs.md)
  EXPECT_EQ(j["noise"]["stream"], 2) << j.dump();
  EXPECT_FALSE(nlohmann::json::parse(read_file(cwd / "det" / "summary.json")).contains("noise"));
  EXPECT_EQ(j["scenario"]["noise"]["modes[0].profile"], "constant") << j["scenario"].dump();
  EXPECT_EQ(j["scenario"]["noise"]["modes[0].theta"].size(), 6u) << j["scenario"].dump();
  // validate prints the tables back, and the printout runs to the same series
  const auto v = cli(cwd, {"validate", "modes.toml"});
  ASSERT_EQ(v.code, 0) << v.err;
  EXPECT_NE(v.out.find("[[noise.modes]]"), std::string::npos) << v.out;
  write(cwd / "printed.toml", v.out);
  const auto p = run(cwd, "printed.toml", "printed");
  ASSERT_EQ(p.code, 0) << p.err;
  EXPECT_EQ(read_file(cwd / "printed" / "series.csv"), sm);
}

TEST(BeamCliNoise, TwoModesKeepTheMomentumMapAndCosDiffersFromCommon) {
  const fs::path cwd = fresh_dir(tmp, "two");
  const std::vector<std::string> moving = {"--set", "initial.velocity=[0.3, 0.2, -0.1, 0.1, 0.0, 0.2]"};
  write(cwd / "two.toml", stochastic_bending("mode = \"modes\"",
                                             "[[noise.modes]]\ntheta = [0.0, 0.05, 0.02, 0.0, 0.0, 0.0]\n"
                                             "profile = \"cos\"\nwavenumber = 1\n"
                                             "[[noise.modes]]\ntheta = [0.01, 0.0, 0.0, 0.0, 0.05, 0.05]\n"
                                             "profile = \"sin\"\nwavenumber = 2\n"));
  auto r = run(cwd, "two.toml", "two", moving);
  ASSERT_EQ(r.code, 0) << r.err;
  const auto s = lievi::io::read_csv_table(cwd / "two" / "series.csv");
  // momentum scale: the initial momenta (|J_lin| = rho A |v| L ~ 5)
  double scale = 0.0;
  for (const char* c : {"Jang_x", "Jang_y", "Jang_z", "Jlin_x", "Jlin_y", "Jlin_z"})
    scale = std::max(scale, std::abs(s.rows.front()[column(s, c)]));
  ASSERT_GT(scale, 1.0);
  for (const char* c : {"Jang_x", "Jang_y", "Jang_z", "Jlin_x", "Jlin_y", "Jlin_z"})
    EXPECT_LT(drift(s, c), 1e-13 * scale) << c;
  const auto j = nlohmann::json::parse(read_file(cwd / "two" / "summary.json"));
  EXPECT_LT(j["diagnostics"]["momentum_max_drift"].get<double>(), 1e-13 * scale);
  EXPECT_LT(j["diagnostics"]["orth_err_max"].get<double>(), 1e-13);
  // the noise pumps energy in: the centred energy differs from the deterministic run's
  r = run(cwd, "two.toml", "det", {"--set", "noise.mode=none", moving[0], moving[1]});
  ASSERT_EQ(r.code, 0) << r.err;
  const auto d = lievi::io::read_csv_table(cwd / "det" / "series.csv");
  EXPECT_NE(s.rows.back()[column(s, "E_c")], d.rows.back()[column(d, "E_c")]);

  // a cos mode (wavenumber 1) with common's theta draws the same stream mode 0 but another spatial field: the
  // path differs from common's (the ends are driven with opposite signs)
  write(cwd / "cos.toml", stochastic_bending("mode = \"modes\"", "[[noise.modes]]\ntheta = " + kTheta +
                                                                     "\nprofile = \"cos\"\nwavenumber = 1\n"));
  r = run(cwd, "cos.toml", "cos");
  ASSERT_EQ(r.code, 0) << r.err;
  r = run(cwd, examples + "stochastic_bending.toml", "common");
  ASSERT_EQ(r.code, 0) << r.err;
  const auto sc = lievi::io::read_csv_table(cwd / "cos" / "series.csv");
  const auto sm = lievi::io::read_csv_table(cwd / "common" / "series.csv");
  double diff = 0.0;
  for (const char* c : {"end0_x", "end0_y", "end0_z", "endL_x", "endL_y", "endL_z"})
    diff = std::max(diff, std::abs(sc.rows.back()[column(sc, c)] - sm.rows.back()[column(sm, c)]));
  EXPECT_GT(diff, 1e-6);
  // and released from rest, the momentum map of the cos run stays zero to round-off
  for (const char* c : {"Jang_x", "Jang_y", "Jang_z", "Jlin_x", "Jlin_y", "Jlin_z"}) EXPECT_LT(drift(sc, c), 1e-13) << c;
}

TEST(BeamCliNoise, ClampedEndGetsNoNoiseAndStaysFixed) {
  const fs::path cwd = fresh_dir(tmp, "clamped");
  write(cwd / "c.toml", stochastic_bending("mode = \"modes\"",
                                           "[[noise.modes]]\ntheta = [0.05, 0.05, 0.05, 0.05, 0.05, 0.05]\n"
                                           "[[noise.modes]]\ntheta = [0.0, 0.0, 0.05, 0.0, 0.05, 0.0]\n"
                                           "profile = \"cos\"\nwavenumber = 2\n"));
  const auto r = run(cwd, "c.toml", "c", {"--set", "bc.left=clamped"});
  ASSERT_EQ(r.code, 0) << r.err;
  const auto s = lievi::io::read_csv_table(cwd / "c" / "series.csv");
  ASSERT_GT(s.rows.size(), 2u);
  for (const char* c : {"end0_x", "end0_y", "end0_z"}) EXPECT_EQ(drift(s, c), 0.0) << c;
  double moved = 0.0;
  for (const char* c : {"endL_x", "endL_y", "endL_z"}) moved = std::max(moved, drift(s, c));
  EXPECT_GT(moved, 1e-6);  // the free end moves (released arc and noise)
  const auto j = nlohmann::json::parse(read_file(cwd / "c" / "summary.json"));
  EXPECT_EQ(j["status"], "complete");
  EXPECT_FALSE(j["diagnostics"].contains("momentum_max_drift"));  // a clamped end takes momentum
}

TEST(BeamCliNoise, BadModesAreRefusedWithFileKeyAndValue) {
  const fs::path cwd = fresh_dir(tmp, "bad");
  struct Case {
    const char* name;
    std::string mode_line, tables;
    std::vector<std::string> expect;
  };
  const std::string modes = "mode = \"modes\"";
  const std::vector<Case> cases = {
      {"theta_length", modes, "[[noise.modes]]\ntheta = [0.1, 0.2]\n",
       {"s.toml", "noise.modes[0].theta", "[0.1, 0.2]", "6 finite numbers"}},
      {"theta_nan", modes, "[[noise.modes]]\ntheta = [0.1, nan, 0, 0, 0, 0]\n",
       {"s.toml", "noise.modes[0].theta", "nan", "finite"}},
      {"profile", modes, "[[noise.modes]]\ntheta = [0.1, 0, 0, 0, 0, 0]\nprofile = \"gauss\"\n",
       {"s.toml", "noise.modes[0].profile", "\"gauss\"", "constant, cos, sin"}},
      {"values", modes, "[[noise.modes]]\ntheta = [0.1, 0, 0, 0, 0, 0]\nvalues = [1.0, 2.0, 3.0]\n",
       {"s.toml", "noise.modes[0].values", "[1.0, 2.0, 3.0]", "one per node", "n_nodes = 21"}},
      {"no_theta", modes, "[[noise.modes]]\nprofile = \"sin\"\nwavenumber = 1\n",
       {"s.toml", "noise.modes[0].theta", "missing required key"}},
      {"sin_zero", modes, "[[noise.modes]]\ntheta = [0.1, 0, 0, 0, 0, 0]\nprofile = \"sin\"\nwavenumber = 0\n",
       {"s.toml", "noise.modes[0].wavenumber", "value 0", ">= 1"}},
      {"zero_mode", modes, "[[noise.modes]]\ntheta = [0, 0, 0, 0, 0, 0]\n",
       {"s.toml", "noise.modes[0].theta", "[0, 0, 0, 0, 0, 0]", "is zero"}},
      {"with_common", "mode = \"common\"", "[[noise.modes]]\ntheta = [0.1, 0, 0, 0, 0, 0]\n",
       {"s.toml", "noise.modes", "noise.mode = \"common\"", "only for noise.mode = \"modes\""}},
      {"empty", modes + "\nmodes = []", "", {"s.toml", "noise.modes", "value []", "no mode"}},
      {"none_given", modes, "", {"s.toml", "noise.modes", "at least one [[noise.modes]] table"}},
  };
  for (const auto& c : cases) {
    const fs::path dir = cwd / c.name;
    fs::create_directories(dir);
    write(dir / "s.toml", stochastic_bending(c.mode_line, c.tables));
    const auto r = cli(dir, {"run", "s.toml", "--out", "out"});
    EXPECT_EQ(r.code, 2) << c.name << ": " << r.err;
    for (const auto& e : c.expect) EXPECT_NE(r.err.find(e), std::string::npos) << c.name << ": " << r.err;
    EXPECT_FALSE(fs::exists(dir / "out")) << c.name;
  }
  // the tables cannot be set from the command line
  const fs::path dir = cwd / "set";
  fs::create_directories(dir);
  const auto r = cli(dir, {"run", examples + "stochastic_bending.toml", "--out", "out", "--set", "noise.mode=modes",
                           "--set", "noise.modes[0].theta=[1,0,0,0,0,0]"});
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_NE(r.err.find("--set: key 'noise.modes[0].theta'"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("cannot be changed with --set"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(dir / "out"));
}

TEST(BeamCliNoise, ApproxVariantIsAcceptedWithOrderOne) {
  const fs::path cwd = fresh_dir(tmp, "approx");
  for (const char* ret : {"cayley", "exp"}) {
    const std::string out = std::string("approx_") + ret;
    const auto r = run(cwd, examples + "stochastic_bending.toml", out,
                       {"--set", "integrator.variant=approx", "--set", std::string("integrator.retraction=") + ret});
    ASSERT_EQ(r.code, 0) << r.err;
    const auto j = nlohmann::json::parse(read_file(cwd / out / "summary.json"));
    EXPECT_EQ(j["status"], "complete");
    EXPECT_EQ(j["method"]["variant"], "approx");
    EXPECT_EQ(j["method"]["order"].get<int>(), 1);
    EXPECT_EQ(j["method"]["retraction"], ret);
    // free-free, no loads: the (only approximately kept) momentum drift is reported
    EXPECT_TRUE(j["diagnostics"].contains("momentum_max_drift"));
  }
  const auto e = run(cwd, examples + "stochastic_bending.toml", "exact");
  ASSERT_EQ(e.code, 0) << e.err;
  const auto j = nlohmann::json::parse(read_file(cwd / "exact" / "summary.json"));
  EXPECT_EQ(j["method"]["variant"], "exact");
  EXPECT_EQ(j["method"]["order"].get<int>(), 2);
  // an ensemble with approx and modes writes the same method object
  write(cwd / "m.toml", stochastic_bending("mode = \"modes\"", "[[noise.modes]]\ntheta = " + kTheta + "\n"));
  const auto en = run(cwd, "m.toml", "ens", {"--paths", "2", "--set", "integrator.variant=approx"});
  ASSERT_EQ(en.code, 0) << en.err;
  const auto je = nlohmann::json::parse(read_file(cwd / "ens" / "summary.json"));
  EXPECT_EQ(je["method"]["order"].get<int>(), 1);
  EXPECT_EQ(je["paths"].get<int>(), 2);
}

TEST(BeamCliNoise, TypeIIWithThetaPotentialIsTheTypeIRun) {
  // integrator.method = "type-ii": Phi = <mu, Theta> (then Type-II is Type-I, docs/theory/beam.md), through
  // the general potential path of the local solve; common and independent noise; the series agree to the
  // Newton tolerance.
  const fs::path cwd = fresh_dir(tmp, "type_ii");
  for (const char* mode : {"common", "independent"}) {
    const std::string m = std::string("noise.mode=") + mode;
    const auto a = run(cwd, examples + "stochastic_bending.toml", std::string("i_") + mode, {"--set", m});
    ASSERT_EQ(a.code, 0) << a.err;
    const auto b = run(cwd, examples + "stochastic_bending.toml", std::string("ii_") + mode,
                       {"--set", m, "--set", "integrator.method=type-ii"});
    ASSERT_EQ(b.code, 0) << b.err;
    const auto ta = lievi::io::read_csv_table(cwd / (std::string("i_") + mode) / "series.csv");
    const auto tb = lievi::io::read_csv_table(cwd / (std::string("ii_") + mode) / "series.csv");
    ASSERT_EQ(ta.rows.size(), tb.rows.size());
    double d = 0;
    for (const char* col : {"E_c", "endL_x", "endL_y", "endL_z", "end0_x", "Jang_x"}) {
      const std::size_t c = column(ta, col);
      for (std::size_t r = 0; r < ta.rows.size(); ++r) d = std::max(d, std::abs(ta.rows[r][c] - tb.rows[r][c]));
    }
    EXPECT_LT(d, 1e-9) << mode;
    EXPECT_GT(drift(tb, "endL_z"), 1e-6);  // it moved
    // every row's newton_max is the step's (the last row's from the trial sweep of the final level)
    for (const auto& row : tb.rows) EXPECT_GE(row[column(tb, "newton_max")], 1.0);
    const auto j = nlohmann::json::parse(read_file(cwd / (std::string("ii_") + mode) / "summary.json"));
    EXPECT_EQ(j["method"]["id"], "type-ii");
  }
  // spatial modes are Type-I only
  write(cwd / "m.toml", stochastic_bending("mode = \"modes\"", "[[noise.modes]]\ntheta = " + kTheta + "\n"));
  const auto bad = cli(cwd, {"validate", "m.toml", "--set", "integrator.method=type-ii"});
  EXPECT_EQ(bad.code, 2);
  EXPECT_NE(bad.err.find("noise.mode"), std::string::npos) << bad.err;
  EXPECT_NE(bad.err.find("type-ii"), std::string::npos) << bad.err;
}

namespace {
/// diagnostics.newton_mean of a run's summary.json.
double newton_mean(const fs::path& dir) {
  const auto j = nlohmann::json::parse(read_file(dir / "summary.json"));
  EXPECT_EQ(j["status"], "complete") << dir;
  return j["diagnostics"]["newton_mean"].get<double>();
}
}  // namespace

TEST(BeamCliNoise, NewtonUnderNoiseNeedsAboutAsManyIterationsAsWithout) {
  // The node solve starts from a fixed-point step that includes this step's noise increment theta
  // (Beam::fixed_point_start), so a noisy node-step should cost about the Newton updates of a deterministic one.
  // Without it the warm start zeta^{n-1/2} misses the O(sqrt(dt)) response to theta and every noisy node-step
  // took a second update (measured before: 2.0-2.35 per node-step noisy against 1.0 deterministic on the
  // benchmark rod). The papers' noise levels: the bending arc with Theta = 0.005 and 0.05 (common, and the
  // independent mode), the flying spaghetti (generic path: it has a point load) with Theta = 1e-2 and 5e-2.
  // Asserted (updates per node-step; at least one update is always made): noisy mean <= deterministic mean +
  // 0.15 for the bending arc at Theta = 0.005 and the spaghetti at both levels (measured: 1.00-1.10 against
  // 1.00). The arc at Theta = 0.05 is a different regime: the noise pumps its energy up 75-fold over the paper's
  // run, the velocities grow until dt |w| is no longer small, and both the fixed-point start and Newton's
  // quadratic phase lose their edge; asserted <= 2 there (measured 1.36 common, 1.92 independent over 0.1 s).
  const fs::path cwd = fresh_dir(tmp, "newton");
  // runs to t_end without plots, fields or vtk
  const auto go = [&](const std::string& file, const std::string& out, const std::string& t_end,
                      std::vector<std::string> sets) {
    std::vector<std::string> args = {"run", examples + file, "--out", out, "--set", "integrator.t_end=" + t_end,
                                     "--set", "output.plots=false", "--set", "output.fields=false",
                                     "--set", "output.vtk=false"};
    for (auto& x : sets) args.insert(args.end(), {"--set", x});
    return cli(cwd, args).code;
  };
  const auto th = [](const std::string& t) { return "noise.theta=[" + t + "," + t + "," + t + "," + t + "," + t + "," + t + "]"; };
  ASSERT_EQ(go("stochastic_bending.toml", "det", "0.1", {"noise.mode=none"}), 0);
  const double det = newton_mean(cwd / "det");
  std::printf("bending: deterministic %.3f\n", det);
  EXPECT_LE(det, 1.15);
  for (const std::string mode : {"common", "independent"}) {
    for (const std::string theta : {"0.005", "0.05"}) {
      const std::string out = mode + "_" + theta;
      ASSERT_EQ(go("stochastic_bending.toml", out, "0.1", {"noise.mode=" + mode, th(theta)}), 0);
      const double m = newton_mean(cwd / out);
      std::printf("bending: %s Theta = %s: %.3f\n", mode.c_str(), theta.c_str(), m);
      EXPECT_LE(m, theta == "0.005" ? det + 0.15 : 2.0) << out;
    }
  }
  ASSERT_EQ(go("stochastic_spaghetti.toml", "sdet", "1", {"noise.mode=none", "output.animation=false"}), 0);
  const double sdet = newton_mean(cwd / "sdet");
  std::printf("spaghetti: deterministic %.3f\n", sdet);
  for (const std::string theta : {"1e-2", "5e-2"}) {
    const std::string out = "s" + theta;
    ASSERT_EQ(go("stochastic_spaghetti.toml", out, "1", {th(theta), "output.animation=false"}), 0);
    const double m = newton_mean(cwd / out);
    std::printf("spaghetti: common Theta = %s: %.3f\n", theta.c_str(), m);
    EXPECT_LE(m, sdet + 0.15) << out;
  }
}
