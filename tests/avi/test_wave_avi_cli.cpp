// The wave model with integrator.method = "avi" end to end through the `lievi` program, against things the
// AVI does not compute: the synchronous type-i run of the same scenario (all steps equal), d'Alembert's
// solution on a graded mesh (the order measured from three meshes), a fine synchronous type-i run, the AVI with
// every segment at the smallest step (the synchronous leapfrog on the graded mesh), the energy's bounds, and
// the refusals of the CLI contract (exit 2 naming the key, nothing written; exit 3 on a blow-up).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "support/cli_process.hpp"

namespace fs = std::filesystem;
using lievi::test::CliResult;

namespace {

const fs::path kTmp = LIEVI_TEST_TMP_DIR;
const fs::path kExamples = fs::path(LIEVI_TEST_SOURCE_DIR) / "examples" / "wave";

CliResult lievi_cli(const fs::path& cwd, const std::vector<std::string>& args) {
  return lievi::test::run_program(LIEVI_CLI_PATH, cwd, args);
}
fs::path workdir(const std::string& name) { return lievi::test::fresh_dir(kTmp, name); }
void write(const fs::path& p, const std::string& text) { std::ofstream(p) << text; }
nlohmann::json read_json(const fs::path& p) { return nlohmann::json::parse(lievi::test::read_file(p)); }

struct Table {
  std::vector<std::string> header;
  std::map<std::string, std::vector<double>> col;
  [[nodiscard]] std::size_t rows() const { return col.at(header.at(0)).size(); }
};
Table read_csv(const fs::path& p) {
  Table s;
  std::ifstream in(p);
  std::string line;
  std::getline(in, line);
  std::stringstream hs(line);
  for (std::string c; std::getline(hs, c, ',');) s.header.push_back(c);
  while (std::getline(in, line)) {
    std::stringstream ls(line);
    std::size_t i = 0;
    for (std::string c; std::getline(ls, c, ','); ++i) s.col[s.header.at(i)].push_back(std::stod(c));
  }
  return s;
}

/// A clamped string of length 1 (vertex layout, c = 1) with a gaussian pulse at 0.3, stepped by the AVI;
/// `extra` is appended (more keys as `[section]` text, [[regions]] tables).
std::string scenario(long long J, double dt, double t_end, const std::string& extra = "",
                     const std::string& method = "avi") {
  char buf[1024];
  std::snprintf(buf, sizeof buf,
                "[model]\ntype = \"wave\"\nc = 1.0\n[grid]\nJ = %lld\nlayout = \"vertex\"\n"
                "[bc]\nleft = \"clamped\"\nright = \"clamped\"\n"
                "[initial]\nshape = \"gaussian\"\ncenter = 0.3\nwidth = 0.08\n"
                // fraction 0.9 (the default is 0.3): these short runs are stable at it, and their step ladders
                // (levels 0 and 2 below) are chosen for it
                "[integrator]\nmethod = \"%s\"\ndt = %.17g\nt_end = %.17g\nfraction = 0.9\n"
                "[output]\nevery = 10\nfields = false\nfields_csv = true\nplots = false\n",
                J, method.c_str(), dt, t_end);
  return buf + extra;
}

/// Run `text` as d/name.toml into d/name; expects exit 0.
fs::path run_ok(const fs::path& d, const std::string& name, const std::string& text,
                const std::vector<std::string>& sets = {}) {
  write(d / (name + ".toml"), text);
  std::vector<std::string> args = {"run", name + ".toml", "--out", name};
  for (const auto& s : sets) args.insert(args.end(), {"--set", s});
  const CliResult r = lievi_cli(d, args);
  EXPECT_EQ(r.code, 0) << name << ": " << r.err;
  return d / name;
}

/// d'Alembert's solution of u_tt = u_ss on [0, 1] with clamped ends (the odd 2-periodic extension of u0).
double dalembert(double s, double t) {
  auto u0 = [](double x) { return std::exp(-std::pow((x - 0.3) / 0.08, 2)); };
  auto F = [&](double x) {
    x = std::fmod(x, 2.0);
    if (x < 0) x += 2.0;
    return x <= 1.0 ? u0(x) : -u0(2.0 - x);
  };
  return 0.5 * (F(s - t) + F(s + t));
}

/// max_j |phi_j - d'Alembert(s_j, t)| over a run's final_fields.csv.
double dalembert_error(const fs::path& out, double t) {
  const Table f = read_csv(out / "final_fields.csv");
  double err = 0;
  for (std::size_t j = 0; j < f.rows(); ++j)
    err = std::max(err, std::abs(f.col.at("phi")[j] - dalembert(f.col.at("s")[j], t)));
  return err;
}

/// A refined region [0.5, 0.75) (each segment split in `refine`) and its steps from integrator.fraction.
std::string refined(int refine, double from = 0.5, double to = 0.75) {
  char buf[256];
  std::snprintf(buf, sizeof buf, "[[regions]]\ns_range = [%.17g, %.17g]\nrefine = %d\n", from, to, refine);
  return buf;
}

}  // namespace

// With every step equal to integrator.dt (dt <= fraction x each segment's limit) on a uniform grid, the AVI is
// the synchronous type-i scheme: series.csv (E_d, E_c, the probes) and final_fields.csv of the two runs agree
// to round-off on the cell, vertex and periodic layouts. The schemes add the same terms in another order (the
// AVI one segment impulse at a time), a few ulp per step, growing at most linearly in a neutrally stable linear
// scheme: 300 steps x ~10 ulp of O(1) values stay below 1e-12 (measured below 1e-14). The heap and the
// calendar take equal-time updates of one level in the same order: bitwise the same.
TEST(WaveAviCli, EqualStepsReproduceTypeI) {
  const fs::path d = workdir("wave_avi_equal");
  struct Case {
    const char* layout;
    const char* bc;
  };
  for (const Case c : {Case{"cell", "free"}, Case{"vertex", "clamped"}, Case{"vertex", "periodic"}}) {
    const std::string text = std::string("[model]\ntype = \"wave\"\nc = 1.3\n[grid]\nJ = 64\nlayout = \"") +
                             c.layout + "\"\n[bc]\nleft = \"" + c.bc + "\"\nright = \"" + c.bc +
                             "\"\n[initial]\nshape = \"cosine\"\nwavenumber = 2\n"
                             "[integrator]\ndt = 0.008\nt_end = 2.4\nfraction = 0.9\n"  // one level: 0.9 x 0.012 >= dt
                             "[output]\nevery = 7\nprobes = [0, 5, 31, 63]\nfields = false\nfields_csv = true\n"
                             "plots = false\n";
    const std::string tag = std::string(c.layout) + "_" + c.bc;
    const fs::path sync = run_ok(d, "sync_" + tag, text, {"integrator.method=type-i"});
    const fs::path cal = run_ok(d, "cal_" + tag, text, {"integrator.method=avi"});
    const fs::path heap = run_ok(d, "heap_" + tag, text, {"integrator.method=avi", "integrator.queue=heap"});
    const Table a = read_csv(sync / "series.csv"), b = read_csv(cal / "series.csv"), h = read_csv(heap / "series.csv");
    ASSERT_EQ(a.header, b.header);
    ASSERT_EQ(a.rows(), b.rows());
    double diff = 0;
    for (const auto& name : a.header)
      for (std::size_t i = 0; i < a.rows(); ++i) {
        diff = std::max(diff, std::abs(a.col.at(name)[i] - b.col.at(name)[i]));
        EXPECT_EQ(b.col.at(name)[i], h.col.at(name)[i]) << tag << " " << name << " row " << i;
      }
    const Table fa = read_csv(sync / "final_fields.csv"), fb = read_csv(cal / "final_fields.csv");
    ASSERT_EQ(fa.rows(), fb.rows());
    for (std::size_t j = 0; j < fa.rows(); ++j) {
      EXPECT_EQ(fa.col.at("s")[j], fb.col.at("s")[j]);
      diff = std::max(diff, std::abs(fa.col.at("phi")[j] - fb.col.at("phi")[j]));
    }
    EXPECT_LT(diff, 1e-12) << tag;
    std::printf("%s: max |avi - type-i| over series.csv and final_fields.csv = %.2e\n", tag.c_str(), diff);
    const auto j = read_json(cal / "summary.json");
    EXPECT_EQ(j["method"]["id"], "avi");
    const long long ns = j["avi"]["segments"].get<long long>();
    EXPECT_EQ(j["avi"]["levels"]["0"].get<long long>(), ns);  // every segment at k = 0
    EXPECT_EQ(j["avi"]["segment_updates"].get<long long>(), ns * (300 + 1));  // 300 steps and the start
  }
}

// On a graded mesh (segments 4x shorter in [0.5, 0.75), their steps dt/4 from integrator.fraction) the AVI
// converges to d'Alembert's solution at second order: the error at t = 0.6 (the pulse has crossed the
// refined region) from J = 40, 80, 160 falls by about 4 per halving (observed orders >= 1.8). The J = 200
// run is also within its own d'Alembert error of a fine synchronous type-i run (J = 1600, whose nodes include
// the graded mesh's).
TEST(WaveAviCli, GradedMeshSecondOrderToDAlembert) {
  const fs::path d = workdir("wave_avi_order");
  const double t_end = 0.6;
  std::vector<double> err;
  for (const long long J : {40LL, 80LL, 160LL}) {
    const double dt = 0.5 / static_cast<double>(J);
    const fs::path out = run_ok(d, "J" + std::to_string(J), scenario(J, dt, t_end, refined(4)));
    err.push_back(dalembert_error(out, t_end));
    const auto j = read_json(out / "summary.json");
    EXPECT_EQ(j["avi"]["levels"]["2"].get<long long>(), J);  // the J/4 refined segments split in 4, at dt / 4
    EXPECT_EQ(j["avi"]["levels"]["0"].get<long long>(), J - J / 4);
  }
  for (std::size_t i = 1; i < err.size(); ++i) {
    const double order = std::log2(err[i - 1] / err[i]);
    std::printf("graded mesh: error %.3e -> %.3e, observed order %.3f\n", err[i - 1], err[i], order);
    EXPECT_GT(order, 1.8);
    EXPECT_LT(order, 2.3);
  }
  // the heap takes the equal-time updates of different levels in segment order, the calendar finest level
  // first: the same updates, round-off apart
  const fs::path heap = run_ok(d, "heap", scenario(160, 0.5 / 160, t_end, refined(4)), {"integrator.queue=heap"});
  const Table fh = read_csv(heap / "final_fields.csv"), fc = read_csv(d / "J160" / "final_fields.csv");
  double queues = 0;
  for (std::size_t j = 0; j < fh.rows(); ++j) queues = std::max(queues, std::abs(fh.col.at("phi")[j] - fc.col.at("phi")[j]));
  EXPECT_LT(queues, 1e-12);
  std::printf("heap vs calendar on the graded mesh: %.2e\n", queues);
  // a fine synchronous reference
  const fs::path fine = run_ok(d, "fine", scenario(1280, 0.5 / 1280, t_end, "", "type-i"));
  const Table f = read_csv(fine / "final_fields.csv"), g = read_csv(d / "J160" / "final_fields.csv");
  std::map<long long, double> ref;
  for (std::size_t j = 0; j < f.rows(); ++j) ref[std::llround(f.col.at("s")[j] * 1280)] = f.col.at("phi")[j];
  double diff = 0;
  for (std::size_t j = 0; j < g.rows(); ++j) {
    const double x = g.col.at("s")[j] * 1280;
    ASSERT_NEAR(x, std::round(x), 1e-9);  // a node of the fine grid
    diff = std::max(diff, std::abs(g.col.at("phi")[j] - ref.at(std::llround(x))));
  }
  const double fine_err = dalembert_error(fine, t_end);
  std::printf("J = 160 graded vs fine type-i: %.3e (graded vs d'Alembert %.3e, fine vs d'Alembert %.3e)\n", diff,
              err.back(), fine_err);
  EXPECT_LT(fine_err, 0.1 * err.back());
  EXPECT_LT(diff, err.back() + fine_err);
  EXPECT_GT(diff, err.back() - fine_err);
}

// A small refined region (segments 16x shorter in [0.45, 0.55)) needs a 16x smaller step there. The AVI (steps
// from integrator.fraction: dt outside, dt/16 inside) and the synchronous leapfrog on the same mesh (the AVI with
// integrator.dt = the smallest step: every segment at one step, shown above to be type-i) reach the same
// accuracy against d'Alembert's solution; the AVI takes a stated fraction of the updates (the timings are in
// docs/results/wave-avi.md).
TEST(WaveAviCli, SixteenTimesSmallerStepSameAccuracy) {
  const fs::path d = workdir("wave_avi_16");
  const long long J = 100;
  const double dt = 0.45 / static_cast<double>(J), t_end = 0.63;  // 140 steps of dt
  const std::string region = refined(16, 0.45, 0.55);
  const fs::path a = run_ok(d, "avi", scenario(J, dt, t_end, region), {"integrator.fraction=0.5"});
  const fs::path s = run_ok(d, "sync", scenario(J, dt / 16, t_end, region), {"integrator.fraction=0.5", "output.every=160"});
  const auto ja = read_json(a / "summary.json"), js = read_json(s / "summary.json");
  EXPECT_EQ(ja["avi"]["levels"]["0"].get<long long>(), 90);
  EXPECT_EQ(ja["avi"]["levels"]["4"].get<long long>(), 160);
  EXPECT_EQ(js["avi"]["levels"]["0"].get<long long>(), 250);
  EXPECT_DOUBLE_EQ(ja["avi"]["h_min"].get<double>(), js["avi"]["h_min"].get<double>());
  const double ea = dalembert_error(a, t_end), es = dalembert_error(s, t_end);
  const long long ua = ja["avi"]["segment_updates"].get<long long>(), us = js["avi"]["segment_updates"].get<long long>();
  std::printf("16x region: error avi %.3e, synchronous %.3e; updates %lld vs %lld (%.3f)\n", ea, es, ua, us,
              static_cast<double>(ua) / static_cast<double>(us));
  EXPECT_LT(ea, 1.1 * es);
  // per dt: 90 coarse updates + 160 x 16 fine ones, against 250 x 16
  EXPECT_EQ(ua, 250 + 140LL * (90 + 160 * 16));
  EXPECT_EQ(us, 250 + 140LL * 16 * 250);
  EXPECT_DOUBLE_EQ(ja["avi"]["synchronous_updates"].get<double>(), static_cast<double>(us));
}

// The energy of an AVI run on a graded, stepped mesh (free ends, a region 4x refined with c = 2 and rho = 3,
// another with an explicit step; integrator.fraction = 0.3, as docs/theory/avi.md "Stability" advises for
// unequal steps) stays bounded over 100 wave transits with no drift: |E_c - E_c(0)| <= 1e-2 E_c(0) (the
// modified-energy oscillation; measured 1.3e-3), and the least-squares slope of E_c over the run times t_end
// is below 1e-4 E_c(0) (measured 5e-7). (At fraction 0.5 this mesh is resonantly unstable: the energy grows
// by 10^6 over the run; docs/results/wave-avi.md.)
TEST(WaveAviCli, EnergyBoundedNoDrift) {
  const fs::path d = workdir("wave_avi_energy");
  const std::string text =
      "[model]\ntype = \"wave\"\nc = 1.0\n[grid]\nJ = 80\n[initial]\nshape = \"gaussian\"\ncenter = 0.3\n"
      "width = 0.08\n[integrator]\nmethod = \"avi\"\ndt = 0.005\nt_end = 100.0\nfraction = 0.3\n"
      "[output]\nevery = 10\nfields = false\nplots = false\n"
      "[[regions]]\ns_range = [0.5, 0.7]\nrefine = 4\nc = 2.0\nrho = 3.0\n"
      "[[regions]]\ns_range = [0.8, 0.9]\ndt = 0.0025\n";
  const fs::path out = run_ok(d, "run", text);
  const Table s = read_csv(out / "series.csv");
  const auto& t = s.col.at("t");
  const auto& E = s.col.at("E_c");
  const double E0 = E.front();
  double dev = 0, tm = 0, Em = 0;
  for (std::size_t i = 0; i < E.size(); ++i) dev = std::max(dev, std::abs(E[i] - E0)), tm += t[i], Em += E[i];
  tm /= static_cast<double>(E.size()), Em /= static_cast<double>(E.size());
  double num = 0, den = 0;
  for (std::size_t i = 0; i < E.size(); ++i) num += (t[i] - tm) * (E[i] - Em), den += (t[i] - tm) * (t[i] - tm);
  const double slope = num / den;
  std::printf("energy: max |E_c - E_c(0)| / E_c(0) = %.3e, drift slope x t_end / E_c(0) = %.3e\n", dev / E0,
              std::abs(slope) * t.back() / E0);
  EXPECT_LT(dev, 1e-2 * E0);
  EXPECT_LT(std::abs(slope) * t.back(), 1e-4 * E0);
  const auto j = read_json(out / "summary.json");
  EXPECT_EQ(j["status"], "complete");
}

// Bad input: exit 2, one line naming the file or flag and the key, and nothing written.
TEST(WaveAviCli, BadInputExit2) {
  const fs::path d = workdir("wave_avi_bad");
  struct Case {
    std::string name, extra;
    std::vector<std::string> args;
    std::string key;
  };
  const std::vector<Case> cases = {
      {"noise", "[noise]\nmode = \"common\"\ntheta = 0.1\n", {}, "noise.mode"},
      {"backwards", "[[regions]]\ns_range = [0.6, 0.4]\nrefine = 2\n", {}, "regions[0].s_range"},
      {"outside", "[[regions]]\ns_range = [2.0, 3.0]\nrefine = 2\n", {}, "regions[0].s_range"},
      {"not_dyadic", "[[regions]]\ns_range = [0.4, 0.6]\ndt = 0.003\n", {}, "regions[0].dt"},
      {"unstable", "[[regions]]\ns_range = [0.4, 0.6]\nrefine = 4\ndt = 0.005\n", {}, "regions[0].dt"},
      {"refine0", "[[regions]]\ns_range = [0.4, 0.6]\nrefine = 0\n", {}, "regions[0].refine"},
      {"speed", "[[regions]]\ns_range = [0.4, 0.6]\nc = -1\n", {}, "regions[0].c"},
      {"fraction", "", {"--set", "integrator.fraction=1.5"}, "integrator.fraction"},
      {"queue", "", {"--set", "integrator.queue=fifo"}, "integrator.queue"},
      {"sync_regions", "[[regions]]\ns_range = [0.4, 0.6]\nrefine = 2\n", {"--set", "integrator.method=type-i"},
       "regions[0].s_range"},
      {"checkpoint", "", {"--set", "output.checkpoint_every=10"}, "output.checkpoint_every"},
      {"paths", "", {"--paths", "2"}, "--paths"},
  };
  for (const auto& c : cases) {
    write(d / (c.name + ".toml"), scenario(100, 0.005, 0.1, c.extra));
    std::vector<std::string> args = {"run", c.name + ".toml", "--out", c.name};
    args.insert(args.end(), c.args.begin(), c.args.end());
    const CliResult r = lievi_cli(d, args);
    EXPECT_EQ(r.code, 2) << c.name << ": " << r.err;
    EXPECT_NE(r.err.find(c.key), std::string::npos) << c.name << ": " << r.err;
    EXPECT_FALSE(fs::exists(d / c.name)) << c.name;
  }
}

// A region's explicit step twice its segments' limit with integrator.allow_unstable = true blows up: exit 3,
// status failed (as the synchronous wave's failures), the failure names a segment of the region and the key to change, and the rows before
// it are kept.
TEST(WaveAviCli, UnstableRegionExit3) {
  const fs::path d = workdir("wave_avi_blowup");
  write(d / "s.toml", scenario(100, 0.005, 20.0,
                               "[[regions]]\ns_range = [0.4, 0.6]\nrefine = 4\ndt = 0.005\n"));
  const CliResult r = lievi_cli(d, {"run", "s.toml", "--out", "out", "--set", "integrator.allow_unstable=true"});
  EXPECT_EQ(r.code, 3) << r.err;
  const auto j = read_json(d / "out" / "summary.json");
  EXPECT_EQ(j["status"], "failed");
  const int seg = j["failure"]["node"].get<int>();
  EXPECT_GE(seg, 40);       // the region's segments: base segments 40 ... 59, refined into 80
  EXPECT_LT(seg, 40 + 80);
  EXPECT_NE(r.err.find("regions[0].dt"), std::string::npos) << r.err;
  const Table s = read_csv(d / "out" / "series.csv");
  EXPECT_GT(s.rows(), 1u);
  for (double e : s.col.at("E_c")) EXPECT_TRUE(std::isfinite(e));
}
