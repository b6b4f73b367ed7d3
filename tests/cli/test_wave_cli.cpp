// `lievi run` of wave scenarios end to end: outputs and their columns, the discrete exact solution read back
// from fields.h5, ensembles (path k = single run with noise.path = k; mean and std from the per-path series),
// thread-count independence of the written files, Type-II = Type-I, and the bad-input / failure exits.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <cmath>
#include <numbers>
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

const fs::path tmp = fs::path(LIEVI_TEST_TMP_DIR) / "wave";
const std::string examples = std::string(LIEVI_TEST_SOURCE_DIR) + "/examples/wave/";

lievi::test::CliResult cli(const fs::path& cwd, std::vector<std::string> args, const std::string& env = "") {
  return run_program(LIEVI_CLI_PATH, cwd, args, env);
}

nlohmann::json summary(const fs::path& dir) { return nlohmann::json::parse(read_file(dir / "summary.json")); }

}  // namespace

TEST(WaveCli, DeterministicRunOutputsAndExactSolution) {
  const fs::path cwd = fresh_dir(tmp, "det");
  const auto r = cli(cwd, {"run", examples + "deterministic.toml", "--out", "out", "--set", "integrator.t_end=2",
                             "--set", "integrator.dt=1e-3", "--set", "output.every=10", "--set", "output.plots=false"});
  ASSERT_EQ(r.code, 0) << r.err;
  const fs::path out = cwd / "out";
  const auto series = lievi::io::read_csv_table(out / "series.csv");
  ASSERT_EQ(series.columns, (std::vector<std::string>{"t", "E_d", "E_c", "phi_0", "phi_50", "phi_99"}));
  ASSERT_EQ(series.rows.size(), 201u);
  EXPECT_EQ(series.rows.front()[0], 0.0);
  EXPECT_EQ(series.rows.back()[0], 2.0);
  // E_d fluctuates by (pi^3 / 4) dt (docs/theory/staggered.md "Energies"), E_c by O(dt^2)
  double dmin = 1e9, dmax = -1e9, cmin = 1e9, cmax = -1e9;
  for (const auto& row : series.rows) {
    dmin = std::min(dmin, row[1]), dmax = std::max(dmax, row[1]);
    cmin = std::min(cmin, row[2]), cmax = std::max(cmax, row[2]);
  }
  const double pi = std::numbers::pi;
  EXPECT_NEAR((dmax - dmin) / 1e-3, pi * pi * pi / 4, 0.05 * pi * pi * pi / 4);
  EXPECT_LT(cmax - cmin, 2e-5);
  // fields.h5: the discrete exact solution cos(pi s_j) cos(Omega t), sin(Omega dt/2) = (dt/ds) sin(pi ds/2)
  const auto t = lievi::io::read_h5_dataset(out / "fields.h5", "t");
  const auto s = lievi::io::read_h5_dataset(out / "fields.h5", "s");
  const auto phi = lievi::io::read_h5_dataset(out / "fields.h5", "phi");
  ASSERT_EQ(phi.shape.size(), 2u);
  ASSERT_EQ(phi.shape[1], 100u);
  ASSERT_EQ(phi.shape[0], t.data.size());
  EXPECT_EQ(t.data.back(), 2.0);
  const double ds = 0.01, dt = 1e-3, Omega = 2 / dt * std::asin(dt / ds * std::sin(pi * ds / 2));
  double err = 0;
  for (std::size_t k = 0; k < t.data.size(); ++k)
    for (std::size_t j = 0; j < 100; ++j) {
      EXPECT_NEAR(s.data[j], (j + 0.5) * ds, 1e-15);
      err = std::max(err, std::abs(phi.data[k * 100 + j] - std::cos(pi * s.data[j]) * std::cos(Omega * t.data[k])));
    }
  EXPECT_LT(err, 1e-12);
  const auto j = summary(out);
  EXPECT_EQ(j["status"], "complete");
  EXPECT_EQ(j["n_nodes"], 100);
  EXPECT_EQ(j["steps"], 2000);
  EXPECT_DOUBLE_EQ(j["cfl_dt"].get<double>(), 0.01);
}

TEST(WaveCli, EnsemblePathEqualsSingleRunAndStatistics) {
  const fs::path cwd = fresh_dir(tmp, "ens");
  const std::vector<std::string> common = {"--set", "integrator.t_end=0.2", "--set", "output.every=20",
                                           "--set", "output.plots=false"};
  auto args = std::vector<std::string>{"run", examples + "independent.toml", "--out", "ens", "--paths", "3",
                                       "--set", "output.per_path=true", "--set", "noise.path=5"};
  args.insert(args.end(), common.begin(), common.end());
  ASSERT_EQ(cli(cwd, args).code, 0);
  auto single = std::vector<std::string>{"run", examples + "independent.toml", "--out", "p6", "--set", "noise.path=6"};
  single.insert(single.end(), common.begin(), common.end());
  ASSERT_EQ(cli(cwd, single).code, 0);
  // path 6 of the ensemble (paths 5, 6, 7) is the single run with noise.path = 6, bitwise
  EXPECT_EQ(read_file(cwd / "ens" / "series_path6.csv"), read_file(cwd / "p6" / "series.csv"));
  // mean and sample std (ddof = 1) of the per-path series, computed here
  std::vector<lievi::io::CsvTable> p;
  for (int k : {5, 6, 7}) p.push_back(lievi::io::read_csv_table(cwd / "ens" / ("series_path" + std::to_string(k) + ".csv")));
  const auto mean = lievi::io::read_csv_table(cwd / "ens" / "series_mean.csv");
  const auto sd = lievi::io::read_csv_table(cwd / "ens" / "series_std.csv");
  ASSERT_EQ(mean.rows.size(), p[0].rows.size());
  ASSERT_EQ(mean.columns, p[0].columns);
  for (std::size_t r = 0; r < mean.rows.size(); ++r)
    for (std::size_t c = 1; c < mean.columns.size(); ++c) {
      const double a = p[0].rows[r][c], b = p[1].rows[r][c], d = p[2].rows[r][c], m = (a + b + d) / 3;
      const double v = ((a - m) * (a - m) + (b - m) * (b - m) + (d - m) * (d - m)) / 2;
      EXPECT_NEAR(mean.rows[r][c], m, 1e-14 * std::max(1.0, std::abs(m)));
      EXPECT_NEAR(sd.rows[r][c], std::sqrt(v), 1e-12 * std::max(1.0, std::abs(m)));
    }
  EXPECT_EQ(summary(cwd / "ens")["paths"], 3);
  EXPECT_EQ(summary(cwd / "ens")["noise"]["stream"], 2);  // the stream rule of noisy runs (docs/outputs.md)
}

TEST(WaveCli, SameFilesForOneAndTwoThreads) {
  const fs::path cwd = fresh_dir(tmp, "threads");
  const std::vector<std::string> set = {"--set", "grid.J=40000", "--set", "integrator.dt=1e-5", "--set",
                                        "integrator.t_end=3e-4", "--set", "output.plots=false", "--set",
                                        "output.probes=[0,123,20000,39999]"};
  for (const char* n : {"1", "2"}) {
    auto args = std::vector<std::string>{"run", examples + "independent.toml", "--out", std::string("t") + n};
    args.insert(args.end(), set.begin(), set.end());
    ASSERT_EQ(cli(cwd, args, std::string("OMP_NUM_THREADS=") + n).code, 0);
  }
  EXPECT_EQ(read_file(cwd / "t1" / "series.csv"), read_file(cwd / "t2" / "series.csv"));
  const auto a = lievi::io::read_h5_dataset(cwd / "t1" / "fields.h5", "phi");
  const auto b = lievi::io::read_h5_dataset(cwd / "t2" / "fields.h5", "phi");
  EXPECT_EQ(a.data, b.data);
}

TEST(WaveCli, TypeIIEqualsTypeI) {
  const fs::path cwd = fresh_dir(tmp, "type2");
  const std::vector<std::string> set = {"--set", "integrator.t_end=0.5", "--set", "output.plots=false",
                                        "--set", "output.every=50"};
  for (const char* m : {"type-i", "type-ii"}) {
    auto args = std::vector<std::string>{"run", examples + "theta_1e-2.toml", "--out", m, "--set",
                                         std::string("integrator.method=") + m};
    args.insert(args.end(), set.begin(), set.end());
    ASSERT_EQ(cli(cwd, args).code, 0);
  }
  const auto a = lievi::io::read_csv_table(cwd / "type-i" / "series.csv");
  const auto b = lievi::io::read_csv_table(cwd / "type-ii" / "series.csv");
  ASSERT_EQ(a.rows.size(), b.rows.size());
  for (std::size_t r = 0; r < a.rows.size(); ++r)
    for (std::size_t c = 0; c < a.columns.size(); ++c) EXPECT_NEAR(a.rows[r][c], b.rows[r][c], 1e-13);
  EXPECT_EQ(summary(cwd / "type-ii")["method"]["code_path"], "type-ii potential");
  // the method is named as in the scenario file (not the number of a C++ enumeration)
  EXPECT_EQ(summary(cwd / "type-ii")["method"]["id"], "type-ii");
  EXPECT_EQ(summary(cwd / "type-i")["method"]["id"], "type-i");
  EXPECT_EQ(summary(cwd / "type-i")["method"]["variant"], "exact");
}

TEST(WaveCli, UnstableStepRefusedOrFailsWithNode) {
  const fs::path cwd = fresh_dir(tmp, "cfl");
  auto r = cli(cwd, {"run", examples + "deterministic.toml", "--out", "x", "--set", "integrator.dt=0.02"});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("integrator.dt"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("largest stable dt is 0.01"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(cwd / "x"));
  // allowed anyway: the run blows up, stops with step and node, keeps its rows, exit 3
  r = cli(cwd, {"run", examples + "deterministic.toml", "--out", "y", "--set", "integrator.dt=0.02", "--set",
                  "integrator.t_end=20", "--set", "integrator.allow_unstable=true", "--set", "output.every=1",
                  "--set", "output.plots=false"});
  EXPECT_EQ(r.code, 3) << r.err;
  EXPECT_NE(r.err.find("non-finite"), std::string::npos) << r.err;
  const auto j = summary(cwd / "y");
  EXPECT_EQ(j["status"], "failed");
  EXPECT_GE(j["failure"]["node"].get<int>(), 0);
  EXPECT_GT(j["failure"]["step"].get<int>(), 10);
  const auto series = lievi::io::read_csv_table(cwd / "y" / "series.csv");
  EXPECT_EQ(static_cast<long long>(series.rows.size()), j["failure"]["step"].get<long long>());
  // --paths without noise
  r = cli(cwd, {"run", examples + "deterministic.toml", "--out", "z", "--paths", "4"});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("noise"), std::string::npos);
  EXPECT_FALSE(fs::exists(cwd / "z"));
}

// fields.h5 is written by lievi's HDF5 module, opened only when a run writes it: without the module a run
// with output.fields = false succeeds, and one with fields.h5 stops (exit 1, nothing in --out) naming where
// it looked and what to do.
TEST(WaveCli, Hdf5ModuleIsNeededOnlyForFieldsH5) {
  const fs::path cwd = fresh_dir(tmp, "h5module");
  const std::string missing = "LIEVI_HDF5_MODULE=" + (cwd / "no-such-module.so").string();
  const std::vector<std::string> base = {"run", examples + "deterministic.toml", "--set", "integrator.t_end=0.01",
                                         "--set", "output.plots=false"};
  auto with = [&](std::vector<std::string> extra) {
    std::vector<std::string> a = base;
    a.insert(a.end(), extra.begin(), extra.end());
    return a;
  };
  const auto off = cli(cwd, with({"--out", "off", "--set", "output.fields=false"}), missing);
  EXPECT_EQ(off.code, 0) << off.err;
  EXPECT_TRUE(fs::exists(cwd / "off" / "series.csv"));
  EXPECT_FALSE(fs::exists(cwd / "off" / "fields.h5"));

  const auto on = cli(cwd, with({"--out", "on"}), missing);
  EXPECT_EQ(on.code, 1) << on.err;
  EXPECT_NE(on.err.find("HDF5 module"), std::string::npos) << on.err;
  EXPECT_NE(on.err.find("no-such-module.so (no such file)"), std::string::npos) << on.err;
  EXPECT_NE(on.err.find("LIEVI_HDF5_MODULE"), std::string::npos) << on.err;
  EXPECT_NE(on.err.find("output.fields = false"), std::string::npos) << on.err;
  EXPECT_FALSE(fs::exists(cwd / "on"));

  const auto found = cli(cwd, with({"--out", "found"}));  // the module of this build, found by itself
  EXPECT_EQ(found.code, 0) << found.err;
  EXPECT_EQ(lievi::io::read_h5_dataset(cwd / "found" / "fields.h5", "t").shape.size(), 1u);
}
