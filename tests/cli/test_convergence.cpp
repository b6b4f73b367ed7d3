// `lievi convergence` (docs/outputs.md "convergence"): the observed order computation against a synthetic
// error sequence e = C v^p; end to end on Scenario A (examples/rigid_body/scenario_a.toml, t_end shortened to
// 5) the printed orders match the methods' traits (rk4 ~ 4, ddb ~ 1 at small dt against the Taylor reference,
// and ddb ~ 2 at alpha = 0 against the Jacobi-elliptic solution); convergence.csv and summary.json; bad input
// is exit 2 with nothing written; a numerical failure at one value is exit 3 with the other values kept.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "lievi/integrators/rigid_body_stepper.hpp"
#include "support/cli_process.hpp"
#include "lievi/run/convergence.hpp"

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

using Result = lievi::test::CliResult;
using lievi::test::dir_entries;
using lievi::test::read_file;

std::string read(const fs::path& p) { return read_file(p); }

/// A fresh, empty working folder under the build tree.
fs::path workdir(const std::string& name) { return lievi::test::fresh_dir(LIEVI_TEST_TMP_DIR, "convergence-" + name); }

/// Run `lievi args...` in `cwd` (stderr is not a TTY here, so no progress line); `env` is prefixed.
Result run_cli(const fs::path& cwd, const std::vector<std::string>& args, const std::string& env = "") {
  return lievi::test::run_program(LIEVI_CLI_PATH, cwd, args, env);
}

std::vector<std::string> entries(const fs::path& d) { return dir_entries(d); }

const std::string kScenarioA = std::string(LIEVI_TEST_SOURCE_DIR) + "/examples/rigid_body/scenario_a.toml";

/// `convergence SCENARIO_A --param integrator.dt --values ... --set integrator.t_end=5 --set
/// output.plots=false` plus `extra`.
std::vector<std::string> study(const std::string& values, const std::vector<std::string>& extra = {}) {
  std::vector<std::string> a = {
      "convergence", kScenarioA,           "--param", "integrator.dt",     "--values", values,
      "--set",       "integrator.t_end=5", "--set",   "output.plots=false"};
  a.insert(a.end(), extra.begin(), extra.end());
  return a;
}

/// One row of the printed table: value, error, order (none for the first row).
struct PrintedRow {
  double value = 0, error = 0;
  std::optional<double> order;
};

/// The rows printed between the "value error order" header and the "fitted order" line.
std::vector<PrintedRow> printed_table(const std::string& out) {
  std::vector<PrintedRow> rows;
  std::istringstream in(out);
  bool inside = false;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("value", 0) == 0) {
      inside = true;
      continue;
    }
    if (!inside) continue;
    if (line.rfind("fitted order", 0) == 0) break;
    std::istringstream ls(line);
    PrintedRow r;
    std::string e, o;
    ls >> r.value >> e;
    r.error = e == "-" ? NAN : std::strtod(e.c_str(), nullptr);
    if (ls >> o) r.order = std::strtod(o.c_str(), nullptr);
    rows.push_back(r);
  }
  return rows;
}

struct Csv {
  std::string header;
  std::vector<std::vector<std::string>> rows;
};
Csv read_csv(const fs::path& p) {
  Csv c;
  std::ifstream in(p);
  std::getline(in, c.header);
  for (std::string line; std::getline(in, line);) {
    std::vector<std::string> cells;
    std::string cell;
    std::stringstream ss(line);
    while (std::getline(ss, cell, ',')) cells.push_back(cell);
    if (!line.empty() && line.back() == ',') cells.emplace_back();  // a trailing empty cell
    c.rows.push_back(cells);
  }
  return c;
}

int traits_order(const std::string& id) {
  lievi::integrators::RigidBodyMethodOptions o;
  o.method = id;
  return lievi::integrators::rigid_body_method_traits(o).order;
}

bool has_method(const std::string& id) {
  for (const auto& t : lievi::integrators::rigid_body_methods())
    if (id == t.id) return true;
  return false;
}

}  // namespace

// The order computation on e = C v^p (C = 7, p = 3, computed here): every pairwise order and the fit are p up
// to rounding (the logs of exact powers carry ~1e-15 relative error; 1e-12 is far above that and far below
// any real deviation). Values need not be monotone. A failed run (NaN error) leaves both of its neighbouring
// orders empty and drops out of the fit, and the first order is always empty.
TEST(ConvergenceOrders, SyntheticPowerLaw) {
  const double C = 7.0, p = 3.0;
  const std::vector<double> v = {0.2, 0.1, 0.3, 0.05, 0.025};
  std::vector<double> e;
  for (double x : v) e.push_back(C * std::pow(x, p));
  const auto o = lievi::run::observed_orders(v, e);
  ASSERT_EQ(o.size(), v.size());
  EXPECT_FALSE(o[0].has_value());
  for (std::size_t i = 1; i < o.size(); ++i) {
    ASSERT_TRUE(o[i].has_value()) << i;
    EXPECT_NEAR(*o[i], p, 1e-12) << i;
  }
  EXPECT_NEAR(lievi::run::fitted_order(v, e), p, 1e-12);

  std::vector<double> e_failed = e;
  e_failed[2] = NAN;
  const auto of = lievi::run::observed_orders(v, e_failed);
  EXPECT_FALSE(of[2].has_value());
  EXPECT_FALSE(of[3].has_value());
  ASSERT_TRUE(of[1].has_value());
  ASSERT_TRUE(of[4].has_value());
  EXPECT_NEAR(lievi::run::fitted_order(v, e_failed), p, 1e-12);
  // A mixture e = v + v^2 is not a power law: the pairwise orders rise from 1 (small v) to 2 (large v), which
  // the formula must show (an implementation returning a constant or the fit would fail here).
  const std::vector<double> vm = {1e-3, 1e-2, 1e-1, 1.0, 10.0, 100.0};
  std::vector<double> em;
  for (double x : vm) em.push_back(x + x * x);
  const auto om = lievi::run::observed_orders(vm, em);
  EXPECT_NEAR(*om[1], 1.0, 0.01);  // log10(0.0101 / 0.001001) = 1.0039
  EXPECT_NEAR(*om[5], 2.0, 0.05);  // log10(10100 / 110) = 1.963
  for (std::size_t i = 2; i < om.size(); ++i) EXPECT_GT(*om[i], *om[i - 1]) << i;
}

// RK4: the printed pairwise orders lie in [3.8, 4.2] around its traits order 4 (measured 3.989 .. 3.998 at
// dt = 0.1 .. 0.0125, t_end = 5, errors 3e-8 .. 7e-12, far above the Taylor reference's ~1e-17). The CSV has
// the header value,error,order and one row per value; its numbers are the printed ones, and summary.json's
// fitted order is the least-squares slope of the CSV rows computed here.
TEST(ConvergenceCli, Rk4OrderFourAgainstTaylor) {
  const fs::path d = workdir("rk4");
  const Result r =
      run_cli(d, study("0.1,0.05,0.025,0.0125", {"--set", "integrator.method=rk4", "--out", "out"}));
  ASSERT_EQ(r.code, 0) << r.err;
  ASSERT_EQ(traits_order("rk4"), 4);
  const auto rows = printed_table(r.out);
  ASSERT_EQ(rows.size(), 4u) << r.out;
  EXPECT_FALSE(rows[0].order.has_value());
  for (std::size_t i = 1; i < rows.size(); ++i) {
    ASSERT_TRUE(rows[i].order.has_value()) << r.out;
    EXPECT_NEAR(*rows[i].order, traits_order("rk4"), 0.2) << r.out;
  }

  EXPECT_EQ(entries(d / "out"), (std::vector<std::string>{".lievi-output", "convergence.csv", "summary.json"}));
  const Csv c = read_csv(d / "out" / "convergence.csv");
  EXPECT_EQ(c.header, "value,error,order");
  ASSERT_EQ(c.rows.size(), 4u);
  std::vector<double> v, e;
  for (std::size_t i = 0; i < c.rows.size(); ++i) {
    ASSERT_EQ(c.rows[i].size(), 3u) << i;
    v.push_back(std::strtod(c.rows[i][0].c_str(), nullptr));
    e.push_back(std::strtod(c.rows[i][1].c_str(), nullptr));
    EXPECT_EQ(v[i], rows[i].value);
    EXPECT_NEAR(e[i], rows[i].error, 1e-6 * e[i]);  // printed with 7 significant digits
    EXPECT_EQ(c.rows[i][2].empty(), i == 0);
  }
  EXPECT_EQ(v, (std::vector<double>{0.1, 0.05, 0.025, 0.0125}));
  // The least-squares slope, written out here independently of the library.
  double mx = 0, my = 0;
  for (std::size_t i = 0; i < v.size(); ++i) {
    mx += std::log(v[i]) / 4.0;
    my += std::log(e[i]) / 4.0;
  }
  double sxx = 0, sxy = 0;
  for (std::size_t i = 0; i < v.size(); ++i) {
    sxx += (std::log(v[i]) - mx) * (std::log(v[i]) - mx);
    sxy += (std::log(v[i]) - mx) * (std::log(e[i]) - my);
  }
  const json j = json::parse(read(d / "out" / "summary.json"));
  EXPECT_EQ(j["status"], "complete");
  EXPECT_EQ(j["method"]["id"], "rk4");
  EXPECT_EQ(j["method"]["order"], 4);
  EXPECT_EQ(j["reference"]["id"], "taylor");
  EXPECT_EQ(j["param"], "integrator.dt");
  EXPECT_NEAR(j["fitted_order"].get<double>(), sxy / sxx, 1e-12);  // same formula, different summation order
  ASSERT_EQ(j["pairwise_orders"].size(), 3u);
  for (std::size_t i = 0; i < 3; ++i)
    EXPECT_EQ(j["pairwise_orders"][i].get<double>(), std::strtod(c.rows[i + 1][2].c_str(), nullptr));
}

// DDB (cayley) against the Taylor reference: first order, as its traits say. At the larger steps the O(h^2)
// conservative error still shows (measured 1.27 at dt = 0.1 -> 0.05), so the check is on the two smallest
// pairs, in [0.9, 1.2] (the band of tests/rigid_body/test_ddb_convergence.cpp; measured 1.05 and 1.02).
TEST(ConvergenceCli, DdbOrderOneAgainstTaylor) {
  const fs::path d = workdir("ddb");
  const Result r = run_cli(d, study("0.025,0.0125,0.00625,0.003125", {"--out", "out"}));
  ASSERT_EQ(r.code, 0) << r.err;
  ASSERT_EQ(traits_order("ddb"), 1);
  const auto rows = printed_table(r.out);
  ASSERT_EQ(rows.size(), 4u) << r.out;
  for (std::size_t i = 2; i < rows.size(); ++i) {
    ASSERT_TRUE(rows[i].order.has_value()) << r.out;
    EXPECT_GT(*rows[i].order, 0.9) << r.out;
    EXPECT_LT(*rows[i].order, 1.2) << r.out;
  }
}

// DDB at alpha = 0 against the Jacobi-elliptic closed form: second order (the order of docs/theory/ddb.md at
// alpha = 0; the traits' summary says "2 at alpha = 0"). Pairwise orders in [1.9, 2.1] (measured 1.989 ..
// 1.9998).
TEST(ConvergenceCli, DdbOrderTwoAtAlphaZeroAgainstExact) {
  const fs::path d = workdir("exact");
  const Result r = run_cli(
      d, study("0.1,0.05,0.025,0.0125", {"--set", "model.alpha=0", "--reference", "exact", "--out", "out"}));
  ASSERT_EQ(r.code, 0) << r.err;
  const auto rows = printed_table(r.out);
  ASSERT_EQ(rows.size(), 4u) << r.out;
  for (std::size_t i = 1; i < rows.size(); ++i) {
    ASSERT_TRUE(rows[i].order.has_value()) << r.out;
    EXPECT_GT(*rows[i].order, 1.9) << r.out;
    EXPECT_LT(*rows[i].order, 2.1) << r.out;
  }
  const json j = json::parse(read(d / "out" / "summary.json"));
  EXPECT_EQ(j["reference"]["id"], "exact");
}

// Every registered fixed-step method (adaptive ones take `dt` as an initial step only, so it is not their
// step size): the last printed pairwise order, at dt = 0.0125 -> 0.00625, is the traits order within 0.15.
// Measured: ddb 1.049, rk4 3.9995, ddb-symmetric 1.9998, moser-veselov 0.970, lobatto-iiic 4.0002; the first-
// order methods still carry some O(h^2) conservative error at these steps, hence the band.
TEST(ConvergenceCli, EveryFixedStepMethodShowsItsTraitsOrder) {
  const fs::path d = workdir("all");
  int checked = 0;
  for (const auto& t : lievi::integrators::rigid_body_methods()) {
    if (t.adaptive) continue;
    const std::string id = t.id;
    const Result r =
        run_cli(d, study("0.05,0.025,0.0125,0.00625", {"--set", "integrator.method=" + id, "--out", id}));
    ASSERT_EQ(r.code, 0) << id << ": " << r.err;
    const auto rows = printed_table(r.out);
    ASSERT_EQ(rows.size(), 4u) << r.out;
    ASSERT_TRUE(rows.back().order.has_value()) << r.out;
    EXPECT_NEAR(*rows.back().order, t.order, 0.15) << id << "\n" << r.out;
    ++checked;
  }
  EXPECT_GE(checked, 2);  // at least ddb and rk4
}

// Bad input is exit 2 with one line naming the key (or --reference / --values) and nothing written: neither
// the --out folder nor the default runs/ folder nor a temporary folder appears.
TEST(ConvergenceCli, BadInputExitsTwoAndWritesNothing) {
  const fs::path d = workdir("bad");
  struct Case {
    std::vector<std::string> args;
    std::string expect;  ///< text the error line must contain
  };
  const std::vector<Case> cases = {
      {{"convergence", kScenarioA, "--param", "integrator.dtt", "--values", "0.1,0.05"}, "'integrator.dtt'"},
      {{"convergence", kScenarioA, "--param", "integrator.dt", "--values", "0.1,abc"}, "'abc'"},
      {{"convergence", kScenarioA, "--param", "integrator.dt", "--values", "0.1,0.05", "--reference",
        "exact"},
       "--reference"},
      {{"convergence", kScenarioA, "--param", "integrator.dt", "--values", "0.1"}, "at least 2 values"},
      {{"convergence", kScenarioA, "--param", "integrator.method", "--values", "1,2"}, "'integrator.method'"},
      {{"convergence", kScenarioA, "--param", "integrator.dt", "--values", "0.1,0.07"}, "'integrator.dt'"},
      {{"convergence", kScenarioA, "--param", "integrator.dt", "--values", "0.1,0.05", "--reference", "rk45"},
       "available references: taylor, exact"},
  };
  for (const auto& c : cases) {
    std::vector<std::string> args = c.args;
    for (const char* a : {"--set", "integrator.t_end=5", "--out", "out"}) args.emplace_back(a);
    const Result r = run_cli(d, args);
    std::string shown;
    for (const auto& a : c.args) shown += a + " ";
    EXPECT_EQ(r.code, 2) << shown << "\n" << r.out << r.err;
    ASSERT_EQ(r.err_lines().size(), 1u) << shown << "\n" << r.err;
    EXPECT_NE(r.err.find(c.expect), std::string::npos) << shown << "\n" << r.err;
    EXPECT_TRUE(entries(d).empty()) << shown;
  }
  // Without --out the default folder runs/scenario_a-convergence would be used: still nothing.
  const Result r = run_cli(d, {"convergence", kScenarioA, "--param", "integrator.dt", "--values", "0.1"});
  EXPECT_EQ(r.code, 2);
  EXPECT_TRUE(entries(d).empty());
}

// The dop853 reference (rtol = atol = 1e-13) when that method is registered: the RK4 errors against it agree
// with those against the Taylor reference to 1e-12 (DOP853 at 1e-13 is accurate to ~1e-12 here,
// docs/theory/ddb.md; measured 6e-17 at t_end = 5; the RK4 errors are >= 1e-10). Without dop853 the reference
// is refused, exit 2, naming the available ones.
TEST(ConvergenceCli, Dop853ReferenceAgreesWithTaylorOrIsRefused) {
  const fs::path d = workdir("dop853");
  const auto rk4 = std::vector<std::string>{"--set", "integrator.method=rk4"};
  auto with = [&](std::vector<std::string> extra) {
    std::vector<std::string> x = rk4;
    x.insert(x.end(), extra.begin(), extra.end());
    return x;
  };
  const Result dop = run_cli(d, study("0.05,0.025", with({"--reference", "dop853", "--out", "dop"})));
  if (!has_method("dop853")) {
    EXPECT_EQ(dop.code, 2) << dop.err;
    EXPECT_NE(dop.err.find("available references: taylor, exact"), std::string::npos) << dop.err;
    EXPECT_FALSE(fs::exists(d / "dop"));
    return;
  }
  ASSERT_EQ(dop.code, 0) << dop.err;
  const Result tay = run_cli(d, study("0.05,0.025", with({"--out", "taylor"})));
  ASSERT_EQ(tay.code, 0) << tay.err;
  const json jd = json::parse(read(d / "dop" / "summary.json"));
  const json jt = json::parse(read(d / "taylor" / "summary.json"));
  EXPECT_EQ(jd["reference"]["id"], "dop853");
  EXPECT_EQ(jd["reference"]["rtol"].get<double>(), 1e-13);
  for (std::size_t i = 0; i < 2; ++i) {
    EXPECT_GT(jt["rows"][i]["error"].get<double>(), 1e-10);
    EXPECT_NEAR(jd["rows"][i]["error"].get<double>(), jt["rows"][i]["error"].get<double>(), 1e-12) << i;
  }
}

// A numerical failure at one value (RK4 at dt = 10 on Scenario A raises the energy in step 1 although alpha > 0
// only dissipates it: the energy-rise failure, see tests/health):
// exit 3, one stderr line naming the value and the step, and the folder still written with the other values'
// errors, bitwise equal to a study without the failing value.
TEST(ConvergenceCli, NumericalFailureAtOneValueExitsThreeAndKeepsTheOthers) {
  const fs::path d = workdir("failure");
  const std::vector<std::string> base = {"convergence", kScenarioA,
                                         "--param",     "integrator.dt",
                                         "--set",       "integrator.t_end=40",
                                         "--set",       "integrator.method=rk4",
                                         "--set",       "output.plots=false"};
  auto args = [&](const std::string& values, const std::string& out) {
    std::vector<std::string> a = base;
    for (const auto& x : {std::string("--values"), values, std::string("--out"), out}) a.push_back(x);
    return a;
  };
  const Result r = run_cli(d, args("10,0.5,0.25", "out"));
  EXPECT_EQ(r.code, 3) << r.out << r.err;
  ASSERT_EQ(r.err_lines().size(), 1u) << r.err;
  EXPECT_NE(r.err.find("numerical failure at integrator.dt = 10 in step"), std::string::npos) << r.err;
  const json j = json::parse(read(d / "out" / "summary.json"));
  EXPECT_EQ(j["status"], "incomplete");
  ASSERT_EQ(j["failures"].size(), 1u);
  EXPECT_EQ(j["failures"][0]["value"].get<double>(), 10.0);
  EXPECT_EQ(j["failures"][0]["step"].get<long long>(), 1);
  EXPECT_NE(j["failures"][0]["message"].get<std::string>().find("energy rise"), std::string::npos);
  EXPECT_TRUE(j["rows"][0]["error"].is_null());
  const Csv c = read_csv(d / "out" / "convergence.csv");
  ASSERT_EQ(c.rows.size(), 3u);
  EXPECT_EQ(c.rows[0][1], "");  // no error for the failed value
  EXPECT_EQ(c.rows[1][2], "");  // no order next to it
  EXPECT_NE(c.rows[2][2], "");

  const Result ok = run_cli(d, args("0.5,0.25", "ok"));
  ASSERT_EQ(ok.code, 0) << ok.err;
  const Csv c_ok = read_csv(d / "ok" / "convergence.csv");
  ASSERT_EQ(c_ok.rows.size(), 2u);
  EXPECT_EQ(c.rows[1][1], c_ok.rows[0][1]);
  EXPECT_EQ(c.rows[2], c_ok.rows[1]);
}

// The default folder is runs/<scenario>-convergence; a second study there is refused without --force (exit 2,
// folder untouched) and replaces it with --force, with the plot made. A plot failure (no interpreter) does
// not fail the study: exit 0 and summary.json notes say why.
TEST(ConvergenceCli, DefaultFolderForceAndPlotFailure) {
  const fs::path d = workdir("default");
  const std::vector<std::string> plots_on = {"convergence", kScenarioA, "--param", "integrator.dt",
                                             "--values",    "0.1,0.05", "--set",   "integrator.t_end=5"};
  const Result r = run_cli(d, plots_on, "LIEVI_PYTHON=/nonexistent/python3");
  ASSERT_EQ(r.code, 0) << r.err;
  const fs::path out = d / "runs" / "scenario_a-convergence";
  ASSERT_TRUE(fs::exists(out / "convergence.csv"));
  EXPECT_FALSE(fs::exists(out / "convergence.png"));
  const json j = json::parse(read(out / "summary.json"));
  bool noted = false;
  for (const auto& n : j["notes"])
    noted = noted || n.get<std::string>().find("plot skipped") != std::string::npos;
  EXPECT_TRUE(noted) << j["notes"].dump();

  const std::string before = read(out / "convergence.csv");
  const Result again = run_cli(d, study("0.1,0.025"));
  EXPECT_EQ(again.code, 2);
  EXPECT_NE(again.err.find("--force"), std::string::npos) << again.err;
  EXPECT_EQ(read(out / "convergence.csv"), before);

  // Forced, and with plots (/usr/bin/python3 + matplotlib, a documented dependency): a real PNG appears.
  std::vector<std::string> forced = plots_on;
  forced[5] = "0.1,0.025";
  forced.emplace_back("--force");
  const Result f = run_cli(d, forced);
  ASSERT_EQ(f.code, 0) << f.err;
  EXPECT_EQ(read_csv(out / "convergence.csv").rows.size(), 2u);
  EXPECT_EQ(std::strtod(read_csv(out / "convergence.csv").rows[1][0].c_str(), nullptr), 0.025);
  const std::string png = read(out / "convergence.png");
  ASSERT_GT(png.size(), 1000u) << f.out;
  EXPECT_EQ(png.substr(1, 3), "PNG");  // PNG signature \x89 P N G
  EXPECT_EQ(entries(out),
            (std::vector<std::string>{".lievi-output", "convergence.csv", "convergence.png", "summary.json"}));
  EXPECT_EQ(entries(d / "runs"), std::vector<std::string>{"scenario_a-convergence"});  // no leftovers
}
