// The elastic string (model.type = "string") end to end through the `lievi` program, against what the runs do
// not compute themselves: a velocity-Verlet string written here (synchronous runs), the synchronous run (the
// AVI with equal steps, bit for bit), Noether's linear and angular momentum of a free string, the energy over
// the run, the time order on a graded mesh against a fine synchronous reference, and the cost of the AVI at the
// accuracy of the synchronous scheme on a mesh whose small region needs a 16x smaller step (against a finer
// mesh). Bad input is exit 2 naming the key, a blow-up exit 3 naming the key to change.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <Eigen/Core>
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
#include "support/convergence.hpp"

namespace fs = std::filesystem;
using lievi::test::CliResult;
using V3 = Eigen::Vector3d;

namespace {

const fs::path kTmp = LIEVI_TEST_TMP_DIR;

CliResult lievi_cli(const fs::path& cwd, const std::vector<std::string>& args) {
  return lievi::test::run_program(LIEVI_CLI_PATH, cwd, args);
}

struct Series {
  std::vector<std::string> header;
  std::map<std::string, std::vector<double>> col;
  [[nodiscard]] std::size_t rows() const { return col.at("t").size(); }
};

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
    for (std::string c; std::getline(ls, c, ','); ++i) s.col[s.header.at(i)].push_back(std::stod(c));
  }
  return s;
}

nlohmann::json read_json(const fs::path& p) { return nlohmann::json::parse(lievi::test::read_file(p)); }

/// A plucked string: J segments of [0, 1], clamped ends, rho = 1, EA = 1 except a stepped second half (EA = 3,
/// rho = 2), 10 % pre-stretch, apex 0.05 at s = 0.3; every node a probe. `extra` is appended (more keys).
std::string scenario(int J, double dt, double t_end, const std::string& method, const std::string& extra = "",
                     const std::string& bc = "clamped", std::string probes = "") {
  if (probes.empty()) {
    probes = "[";
    for (int a = 0; a <= J; ++a) probes += (a ? "," : "") + std::to_string(a);
    probes += "]";
  }
  char buf[2048];
  std::snprintf(buf, sizeof buf,
                "[model]\ntype = \"string\"\nrho = 1.0\nEA = 1.0\nprestretch = 0.1\n"
                "[grid]\nJ = %d\nlength = 1.0\n[bc]\nleft = \"%s\"\nright = \"%s\"\n"
                "[initial]\nshape = \"pluck\"\namplitude = 0.05\ncenter = 0.3\n"
                // fraction 0.9 (the default is 0.3): the equal-step and graded-mesh cases below are chosen for it
                // and stable at it over their short runs; the others set their own
                "[integrator]\nmethod = \"%s\"\ndt = %.17g\nt_end = %.17g\nfraction = 0.9\n"
                "[output]\nprobes = %s\nplots = false\nfields = false\n",
                J, bc.c_str(), bc.c_str(), method.c_str(), dt, t_end, probes.c_str());
  return std::string(buf) + extra;
}
const char* kStepped = "[[regions]]\ns_range = [0.5, 1.0]\nEA = 3.0\nrho = 2.0\n";

/// Write `text` as DIR/name.toml and run it into DIR/name; the result and the folder.
CliResult run_text(const fs::path& dir, const std::string& name, const std::string& text,
                   const std::vector<std::string>& sets = {}) {
  std::ofstream(dir / (name + ".toml")) << text;
  std::vector<std::string> args = {"run", name + ".toml", "--out", name};
  for (const auto& s : sets) args.insert(args.end(), {"--set", s});
  return lievi_cli(dir, args);
}

/// Node positions of row i (every node a probe).
std::vector<V3> positions(const Series& s, std::size_t i, int n_nodes) {
  std::vector<V3> x;
  for (int a = 0; a < n_nodes; ++a) {
    const std::string j = std::to_string(a);
    x.emplace_back(s.col.at("x" + j)[i], s.col.at("y" + j)[i], s.col.at("z" + j)[i]);
  }
  return x;
}

double max_diff(const std::vector<V3>& a, const std::vector<V3>& b) {
  double d = 0;
  for (std::size_t i = 0; i < a.size(); ++i) d = std::max(d, (a[i] - b[i]).cwiseAbs().maxCoeff());
  return d;
}

/// Velocity Verlet for the string of `scenario` (uniform mesh of J segments, the stepped section when asked),
/// written with plain arrays: masses m_a = 1/2 sum of the adjacent segments' rho L, the tension EA (l/L - 1)
/// along each chord, v^{1/2} = v0 + (h/2) f/m, then x += h v, v += h f(x)/m per step; clamped end nodes fixed.
struct Verlet {
  int J;
  double h;
  std::vector<double> L, EA, m;
  std::vector<V3> x, v, f;
  Verlet(int J_, double h_, bool stepped) : J(J_), h(h_) {
    const double ds = 1.0 / J;
    m.assign(J + 1, 0.0);
    for (int e = 0; e < J; ++e) {
      const bool second = stepped && (e + 0.5) * ds >= 0.5;
      L.push_back(ds);
      EA.push_back(second ? 3.0 : 1.0);
      m[e] += 0.5 * (second ? 2.0 : 1.0) * ds;
      m[e + 1] += 0.5 * (second ? 2.0 : 1.0) * ds;
    }
    for (int a = 0; a <= J; ++a) {
      const double s = a * ds, u = 0.05 * (s <= 0.3 ? s / 0.3 : (1.0 - s) / 0.7);
      x.emplace_back(1.1 * s, u, 0.0);
      v.emplace_back(V3::Zero());
    }
    forces();
    for (int a = 1; a < J; ++a) v[a] += 0.5 * h / m[a] * f[a];
  }
  void forces() {
    f.assign(x.size(), V3::Zero());
    for (int e = 0; e < J; ++e) {
      const V3 d = x[e + 1] - x[e];
      const double l = d.norm();
      const V3 T = EA[e] * (l / L[e] - 1.0) * d / l;
      f[e] += T;
      f[e + 1] -= T;
    }
  }
  void step() {
    for (int a = 1; a < J; ++a) x[a] += h * v[a];
    forces();
    for (int a = 1; a < J; ++a) v[a] += h / m[a] * f[a];
  }
};

}  // namespace

// The synchronous run against velocity Verlet written here, on a stepped section: the node positions of every
// row to round-off.
TEST(StringCli, SynchronousIsVelocityVerlet) {
  const fs::path d = lievi::test::fresh_dir(kTmp, "string_sync");
  const int J = 24;
  const double dt = 0.004, T = 2.0;  // the stepped half's limit is (1/24) / sqrt(3/2) = 0.034
  const CliResult r = run_text(d, "sync", scenario(J, dt, T, "synchronous", kStepped));
  ASSERT_EQ(r.code, 0) << r.err;
  const Series s = read_series(d / "sync" / "series.csv");
  ASSERT_EQ(s.rows(), 501u);
  Verlet ref(J, dt, true);
  double err = max_diff(positions(s, 0, J + 1), ref.x);
  for (std::size_t i = 1; i < s.rows(); ++i) {
    ref.step();
    err = std::max(err, max_diff(positions(s, i, J + 1), ref.x));
  }
  std::printf("max |x_lievi - x_verlet| over %zu rows = %.2e\n", s.rows(), err);
  // round-off: the same arithmetic in another order (impulse by impulse, 17-digit CSV); O(0.1) positions over
  // 500 steps of a near-linear string (measured 3e-15)
  EXPECT_LT(err, 1e-13);
}

// With every segment's step equal (a uniform mesh where fraction x limit >= dt), the AVI is the synchronous
// scheme: series.csv bit for bit, with either queue.
TEST(StringCli, AviWithEqualStepsIsTheSynchronousScheme) {
  const fs::path d = lievi::test::fresh_dir(kTmp, "string_equal");
  const int J = 32;
  const double dt = 0.02;  // limit 1/32 = 0.03125; 0.9 x limit = 0.028 >= dt: one level
  ASSERT_EQ(run_text(d, "sync", scenario(J, dt, 4.0, "synchronous")).code, 0);
  for (const char* q : {"calendar", "heap"}) {
    const std::string name = std::string("avi_") + q;
    const CliResult r = run_text(d, name, scenario(J, dt, 4.0, "avi"), {std::string("integrator.queue=") + q});
    ASSERT_EQ(r.code, 0) << r.err;
    const nlohmann::json j = read_json(d / name / "summary.json");
    EXPECT_EQ(j["step_levels"].size(), 1u) << j["step_levels"].dump();
    EXPECT_EQ(lievi::test::read_file(d / name / "series.csv"), lievi::test::read_file(d / "sync" / "series.csv"))
        << q << ": series.csv differs from the synchronous run's";
    EXPECT_EQ(j["updates"]["total"], read_json(d / "sync" / "summary.json")["updates"]["total"]);
  }
}

// A free string with unequal steps (a region refined 4x steps at dt/4), moving, spinning about e3 and
// swinging: the linear momentum sum p_a and the angular momentum sum x_a x p_a are kept to round-off.
TEST(StringCli, AviKeepsLinearAndAngularMomentumWithUnequalSteps) {
  const fs::path d = lievi::test::fresh_dir(kTmp, "string_momenta");
  const int J = 32;
  const std::string extra =
      "[[regions]]\ns_range = [0.25, 0.5]\nrefine = 4\n[[regions]]\ns_range = [0.5, 1.0]\nEA = 3.0\nrho = 2.0\n";
  std::string text = scenario(J, 0.01, 20.0, "avi", extra, "free", "[0, 16]");
  text.replace(text.find("center = 0.3\n"), 13, "center = 0.3\nvelocity = [0.1, -0.2, 0.05]\nomega = [0.2, 0.1, 0.5]\n");
  const CliResult r = run_text(d, "free", text, {"integrator.fraction=0.5"});
  ASSERT_EQ(r.code, 0) << r.err;
  const nlohmann::json j = read_json(d / "free" / "summary.json");
  EXPECT_GE(j["step_levels"].size(), 2u) << j["step_levels"].dump();
  const double dP = j["diagnostics"]["linear_momentum_max_deviation"], Ps = j["diagnostics"]["linear_momentum_scale"];
  const double dL = j["diagnostics"]["angular_momentum_max_deviation"], Ls = j["diagnostics"]["angular_momentum_scale"];
  const long long updates = j["updates"]["total"];
  std::printf("updates %lld: |P - P0| / sum|p| = %.2e, |L - L0| / sum|x||p| = %.2e\n", updates, dP / Ps, dL / Ls);
  EXPECT_GT(updates, 100000);
  // the series' own columns say the same (independently of the summary's bookkeeping)
  const Series s = read_series(d / "free" / "series.csv");
  double sP = 0, sL = 0;
  for (std::size_t i = 0; i < s.rows(); ++i)
    for (const char* c : {"x", "y", "z"}) {
      sP = std::max(sP, std::abs(s.col.at(std::string("P_") + c)[i] - s.col.at(std::string("P_") + c)[0]));
      sL = std::max(sL, std::abs(s.col.at(std::string("L_") + c)[i] - s.col.at(std::string("L_") + c)[0]));
    }
  // round-off: each update's two impulses cancel in the sums to ~1 ulp, a drift keeps x x p; 10^5 updates of
  // random-sign ulp errors stay well below 1e-12 of the scales (measured ~1e-15)
  EXPECT_LT(dP, 1e-12 * Ps);
  EXPECT_LT(dL, 1e-12 * Ls);
  EXPECT_LT(sP, 1e-12 * Ps);
  EXPECT_LT(sL, 1e-12 * Ls);
}

// The energy of an AVI run with unequal steps (a region refined 4x, fraction 0.5) over ~2 10^5 updates:
// bounded, and no drift (the first and last fifths of the run deviate alike).
TEST(StringCli, AviEnergyBoundedWithoutDrift) {
  const fs::path d = lievi::test::fresh_dir(kTmp, "string_energy");
  const std::string extra = "[[regions]]\ns_range = [0.4, 0.6]\nrefine = 4\n";
  const CliResult r = run_text(d, "e", scenario(32, 0.01, 100.0, "avi", extra), {"integrator.fraction=0.5"});
  ASSERT_EQ(r.code, 0) << r.err;
  const Series s = read_series(d / "e" / "series.csv");
  const auto& E = s.col.at("energy");
  const double E0 = E[0];
  const std::size_t n = E.size(), fifth = n / 5;
  double first = 0, last = 0, worst = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const double dev = std::abs(E[i] - E0) / E0;
    worst = std::max(worst, dev);
    if (i < fifth) first = std::max(first, dev);
    if (i >= n - fifth) last = std::max(last, dev);
  }
  const long long updates = read_json(d / "e" / "summary.json")["updates"]["total"];
  std::printf("updates %lld: max |E - E0|/E0 = %.3e (first fifth %.3e, last fifth %.3e)\n", updates, worst, first,
              last);
  EXPECT_GT(updates, 200000);
  // bounded: the staggered energy (kinetic half a step from the potential) oscillates by O(dt) per cent
  EXPECT_LT(worst, 0.05);
  // no drift: a secular growth would make the last fifth's deviation several times the first's
  EXPECT_LT(last, 2.0 * first);
}

// On a graded mesh (a region refined 4x at its own step dt/4, a stepped section), halving dt (and the
// region's step with it) converges at order 2 to a synchronous run with a 256x smaller step on the same mesh.
TEST(StringCli, AviSecondOrderOnAGradedMesh) {
  const fs::path d = lievi::test::fresh_dir(kTmp, "string_order");
  const int J = 16;
  const double dt0 = 0.04, T = 1.0;  // bulk limit 1/16 (0.051 in the stepped half); region 1/64 -> dt0/4 = 0.01
  const std::string extra =
      std::string(kStepped) + "[[regions]]\ns_range = [0.25, 0.5]\nrefine = 4\ndt = 0.01\n";
  const std::string text = scenario(J, dt0, T, "avi", extra, "clamped", "[4, 6, 8, 12, 16, 20, 24, 28]");
  char ref_dt[64];
  std::snprintf(ref_dt, sizeof ref_dt, "integrator.dt=%.17g", dt0 / 256);
  ASSERT_EQ(run_text(d, "ref", text, {"integrator.method=synchronous", ref_dt}).code, 0);
  const Series ref = read_series(d / "ref" / "series.csv");
  std::vector<double> hs, errs;
  for (int r : {1, 2, 4, 8}) {
    const double dt = dt0 / r;
    char set_dt[64], region_dt[64];
    std::snprintf(set_dt, 64, "integrator.dt=%.17g", dt);
    std::snprintf(region_dt, 64, "dt = %.17g", dt / 4);
    // (an array-of-tables key cannot be given with --set: the region's step is written into the file)
    std::string t = text;
    t.replace(t.find("dt = 0.01\n"), 9, region_dt);
    const std::string name = "avi" + std::to_string(r);
    const CliResult res = run_text(d, name, t, {set_dt});
    ASSERT_EQ(res.code, 0) << res.err;
    const Series s = read_series(d / name / "series.csv");
    double err = 0;
    for (const auto& c : s.header)
      if (c != "t" && (c[0] == 'x' || c[0] == 'y' || c[0] == 'z'))
        err = std::max(err, std::abs(s.col.at(c).back() - ref.col.at(c).back()));
    hs.push_back(dt);
    errs.push_back(err);
  }
  const double p = lievi::test::fitted_order(hs, errs);
  std::printf("%s  fitted order %.3f\n", lievi::test::order_table(hs, errs).c_str(), p);
  // second order within 0.2 (the reference's own error is (1/32)^2 ~ 1e-3 of the finest error)
  EXPECT_NEAR(p, 2.0, 0.2) << lievi::test::order_table(hs, errs);
}

// A region of 1/64 of the string refined 16x needs a 16x smaller step. Against a run on a 4x finer mesh (the
// reference), the AVI (bulk at dt, region at dt/16) reaches the accuracy of the synchronous scheme (dt/16
// everywhere) with a quarter of its segment updates.
TEST(StringCli, AviReachesTheSynchronousAccuracyAtAFractionOfTheCost) {
  const fs::path d = lievi::test::fresh_dir(kTmp, "string_cost");
  const double T = 0.5;
  const auto text = [&](int J, double dt, const std::string& method) {
    return scenario(J, dt, T, method, "[[regions]]\ns_range = [0.5, 0.515625]\nrefine = 16\n", "clamped", "[0]");
  };
  // J = 256: bulk limit 1/256, the region's (4 segments refined 16x) 1/4096; dt = 1/1024 (0.25 of the bulk
  // limit) and fraction 0.3 put the region at dt/16 (0.25 of its limit; at 0.4 and above this string's AVI
  // is unstable, docs/theory/avi.md "Stability")
  const double dt = 1.0 / 1024;
  ASSERT_EQ(run_text(d, "avi", text(256, dt, "avi"), {"output.every=128", "integrator.fraction=0.3"}).code, 0);
  ASSERT_EQ(run_text(d, "sync", text(256, dt / 16, "synchronous"), {"output.every=2048"}).code, 0);
  ASSERT_EQ(run_text(d, "ref", text(1024, dt / 64, "synchronous"), {"output.every=8192"}).code, 0);
  const nlohmann::json ja = read_json(d / "avi" / "summary.json"), js = read_json(d / "sync" / "summary.json");
  // the final positions: the reference mesh has 4x the nodes of the coarse one in the bulk and in the region
  const auto final_x = [&](const std::string& name) {
    std::vector<V3> x;
    std::ifstream in(d / name / "final_positions.csv");
    std::string line;
    std::getline(in, line);
    for (double a, b, c; std::getline(in, line);) {
      std::sscanf(line.c_str(), "%lf,%lf,%lf", &a, &b, &c);
      x.emplace_back(a, b, c);
    }
    return x;
  };
  const std::vector<V3> xa = final_x("avi"), xs = final_x("sync"), xr = final_x("ref");
  ASSERT_EQ(xa.size(), 256u - 4u + 4u * 16u + 1u);
  ASSERT_EQ(xr.size(), 1024u - 16u + 16u * 16u + 1u);
  // coarse node a <-> reference node: 4a before the region (nodes 0..32), then 4 per fine node in it, 4 per
  // coarse node after it
  const auto ref_index = [](std::size_t a) { return 4 * a; };
  double ea = 0, es = 0;
  for (std::size_t a = 0; a < xa.size(); ++a) {
    const V3& r = xr[ref_index(a)];
    ea = std::max(ea, (xa[a] - r).norm());
    es = std::max(es, (xs[a] - r).norm());
  }
  const double ua = ja["updates"]["total"], us = js["updates"]["total"];
  std::printf("error against the 4x finer mesh: AVI %.3e, synchronous %.3e; updates %.0f vs %.0f (%.3f); "
              "ns/update %.1f vs %.1f\n",
              ea, es, ua, us, ua / us, ja["updates"]["ns_per_update"].get<double>(),
              js["updates"]["ns_per_update"].get<double>());
  // the same accuracy: both are dominated by the mesh (measured below); within 20 %
  EXPECT_LT(ea, 1.2 * es);
  // the cost in segment updates: (252 + 64 x 16) / (316 x 16) = 0.25 of the synchronous scheme's
  EXPECT_LT(ua / us, 0.3);
}

TEST(StringCli, BadInputIsExit2NamingTheKey) {
  const fs::path d = lievi::test::fresh_dir(kTmp, "string_bad");
  // a region's step that is not dt / 2^k
  CliResult r = run_text(d, "a", scenario(16, 0.04, 1.0, "avi", "[[regions]]\ns_range = [0.2, 0.4]\ndt = 0.03\n"));
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("regions[0].dt"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("integrator.dt / 2^k"), std::string::npos) << r.err;
  // a synchronous step beyond the smallest segment limit (the refined region's)
  r = run_text(d, "b", scenario(16, 0.04, 1.0, "synchronous", "[[regions]]\ns_range = [0.2, 0.4]\nrefine = 4\n"));
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("integrator.dt"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("stability limit"), std::string::npos) << r.err;
  // a region's explicit step beyond its limit
  r = run_text(d, "c", scenario(16, 0.04, 1.0, "avi", "[[regions]]\ns_range = [0.2, 0.4]\nrefine = 4\ndt = 0.02\n"));
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("regions[0].dt"), std::string::npos) << r.err;
  // nothing written
  EXPECT_FALSE(fs::exists(d / "a"));
  EXPECT_FALSE(fs::exists(d / "b"));
  EXPECT_FALSE(fs::exists(d / "c"));
  // fraction out of range, a zero direction, a negative tension
  r = run_text(d, "e", scenario(16, 0.04, 1.0, "avi"), {"integrator.fraction=1.5", "initial.direction=[0,0,0]",
                                                         "model.tension=-0.1"});
  EXPECT_EQ(r.code, 2);
  for (const char* key : {"integrator.fraction", "initial.direction", "model.tension"})
    EXPECT_NE(r.err.find(key), std::string::npos) << key << "\n" << r.err;
}

TEST(StringCli, BlowUpIsExit3NamingTheKeyWithTheOutputsKept) {
  const fs::path d = lievi::test::fresh_dir(kTmp, "string_blowup");
  // the region's segments at twice their limit (allowed on request): the AVI blows up there
  const CliResult r = run_text(
      d, "u", scenario(16, 0.04, 20.0, "avi", "[[regions]]\ns_range = [0.4, 0.6]\nrefine = 4\ndt = 0.02\n"),
      {"integrator.allow_unstable=true"});
  EXPECT_EQ(r.code, 3) << r.err;
  EXPECT_NE(r.err.find("regions[0].dt"), std::string::npos) << r.err;
  const nlohmann::json j = read_json(d / "u" / "summary.json");
  EXPECT_EQ(j["status"], "failed");
  EXPECT_GE(j["failure"]["node"].get<int>(), 0);
  const Series s = read_series(d / "u" / "series.csv");
  EXPECT_GT(s.rows(), 1u);
  EXPECT_NEAR(s.col.at("t").back(), j["failure"]["t"].get<double>(), 1e-12);
  for (double e : s.col.at("energy")) EXPECT_TRUE(std::isfinite(e));
}
