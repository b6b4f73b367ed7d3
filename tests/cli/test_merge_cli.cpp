/// @file tests/cli/test_merge_cli.cpp
/// @brief Ensemble slices (`lievi run FILE --paths N --path-range A:B`) and `lievi merge`: slices merged in any
/// order give the files of the ensemble run whole, byte for byte; a slice stopped and resumed too; merge refuses
/// slices of other scenarios or ensembles, overlapping, missing, failed or damaged ones (exit 2, naming them).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "support/cli_process.hpp"
#include "support/ensemble_outputs.hpp"

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

using Result = lievi::test::CliResult;
using lievi::test::read_file;

const std::string kExamples = std::string(LIEVI_TEST_SOURCE_DIR) + "/examples/";

const char* cli() {
  const char* p = std::getenv("LIEVI_TEST_CLI");
  return p && *p ? p : LIEVI_CLI_PATH;
}

Result run_cli(const fs::path& cwd, const std::vector<std::string>& args, const std::string& env = "") {
  return lievi::test::run_program(cli(), cwd, args, env);
}

using lievi::test::with;

using lievi::test::expect_same_ensemble;

/// The n-th row of a CSV's numbers.
std::vector<double> csv_row(const fs::path& file, std::size_t n) {
  std::ifstream in(file);
  std::string line;
  for (std::size_t i = 0; i <= n + 1 && std::getline(in, line); ++i) {
  }
  std::vector<double> v;
  std::size_t at = 0;
  while (at <= line.size()) {
    const auto comma = line.find(',', at);
    v.push_back(std::strtod(line.substr(at, comma - at).c_str(), nullptr));
    if (comma == std::string::npos) break;
    at = comma + 1;
  }
  return v;
}

}  // namespace

// Slices of 7 wave paths and of 4 beam paths, cut in two ways and merged in shuffled orders, with other thread
// counts than the whole run: the merged folder is the whole ensemble's, byte for byte. A slice's own statistics
// are those of its paths (checked against a slice's per-path series by a separate Welford pass here).
TEST(MergeCli, SlicesMergeToTheWholeEnsembleBitForBit) {
  const fs::path d = lievi::test::fresh_dir(LIEVI_TEST_TMP_DIR, "merge_slices");
  struct Case {
    std::string scenario;
    std::vector<std::string> sets;
    long long paths;
    std::vector<std::vector<std::string>> cuts;  // the ranges of one cut, in the order given to merge
  };
  const Case cases[] = {
      {kExamples + "wave/independent.toml",
       {"integrator.t_end=0.02"},
       7,
       {{"3:7", "0:3"}, {"6:7", "0:1", "2:6", "1:2"}}},
      {kExamples + "beam/stochastic_bending.toml", {"integrator.t_end=0.004"}, 4, {{"2:4", "0:2"}, {"0:1", "3:4", "1:3"}}}};
  int i = 0;
  for (const Case& c : cases) {
    const fs::path m = d / std::to_string(i++);
    fs::create_directories(m);
    std::vector<std::string> sets = {"output.plots=false", "output.per_path=true", "output.every=7"};
    sets.insert(sets.end(), c.sets.begin(), c.sets.end());
    const std::string paths = std::to_string(c.paths);
    const Result whole = run_cli(m, with({"run", c.scenario, "--paths", paths, "--out", "whole"}, sets));
    ASSERT_EQ(whole.code, 0) << whole.err;
    int cut_no = 0;
    for (const auto& cut : c.cuts) {
      std::vector<std::string> merge = {"merge"};
      int k = 0;
      for (const std::string& range : cut) {
        const std::string out = "cut" + std::to_string(cut_no) + "_" + std::to_string(k++);
        const Result r = run_cli(m, with({"run", c.scenario, "--paths", paths, "--path-range", range, "--out", out}, sets),
                                 k % 2 ? "OMP_NUM_THREADS=1" : "OMP_NUM_THREADS=3");
        ASSERT_EQ(r.code, 0) << r.err;
        EXPECT_TRUE(fs::exists(m / out / "slice.json"));
        EXPECT_TRUE(fs::exists(m / out / "series_paths.npy"));
        merge.push_back(out);
      }
      const std::string merged = "merged" + std::to_string(cut_no++);
      merge.insert(merge.end(), {"--out", merged});
      const Result r = run_cli(m, merge);
      ASSERT_EQ(r.code, 0) << r.err;
      EXPECT_NE(r.out.find("slices merged"), std::string::npos) << r.out;
      expect_same_ensemble(m / "whole", m / merged, c.scenario + " cut " + std::to_string(cut_no));
    }
    // a slice's own mean is that of its paths (Welford over its per-path series, written here)
    const fs::path slice = m / "cut0_0";
    const json sj = json::parse(read_file(slice / "slice.json"));
    const long long a = sj["range"][0], b = sj["range"][1];
    std::vector<double> mean;
    long long n = 0;
    for (long long p = a; p < b; ++p) {
      const std::vector<double> row = csv_row(slice / ("series_path" + std::to_string(p) + ".csv"), 3);
      if (mean.empty()) mean.assign(row.size(), 0.0);
      ++n;
      for (std::size_t col = 1; col < row.size(); ++col) mean[col] += (row[col] - mean[col]) / static_cast<double>(n);
    }
    const std::vector<double> got = csv_row(slice / "series_mean.csv", 3);
    ASSERT_EQ(got.size(), mean.size());
    for (std::size_t col = 1; col < got.size(); ++col)
      EXPECT_EQ(got[col], mean[col]) << "column " << col;
    EXPECT_EQ(json::parse(read_file(slice / "summary.json"))["slice"]["range"], json::array({a, b}));
  }
}

// A slice stopped after one of its paths and resumed equals the slice run whole.
TEST(MergeCli, ASliceStoppedAndResumedEqualsTheSliceRunWhole) {
  const fs::path d = lievi::test::fresh_dir(LIEVI_TEST_TMP_DIR, "merge_resume");
  const std::string scenario = kExamples + "wave/independent.toml";
  const std::vector<std::string> sets = {"output.plots=false", "output.per_path=true", "integrator.t_end=0.02",
                                         "output.checkpoint_every=100"};
  ASSERT_EQ(run_cli(d, with({"run", scenario, "--paths", "6", "--path-range", "2:5", "--out", "whole"}, sets)).code, 0);
  const Result stop =
      run_cli(d, with({"run", scenario, "--paths", "6", "--path-range", "2:5", "--out", "part", "--stop-at", "1"}, sets));
  ASSERT_EQ(stop.code, 0) << stop.err;
  EXPECT_NE(stop.out.find("stopped after 1 of 3 paths"), std::string::npos) << stop.out;
  const Result resume = run_cli(d, {"resume", "part"});
  ASSERT_EQ(resume.code, 0) << resume.err;
  expect_same_ensemble(d / "whole", d / "part", "resumed slice");
  EXPECT_EQ(read_file(d / "whole" / "series_paths.npy"), read_file(d / "part" / "series_paths.npy"));
}

TEST(MergeCli, BadSlicesAndRangesAreRefusedNamingThem) {
  const fs::path d = lievi::test::fresh_dir(LIEVI_TEST_TMP_DIR, "merge_refusals");
  const std::string scenario = kExamples + "wave/independent.toml";
  const std::vector<std::string> sets = {"output.plots=false", "integrator.t_end=0.01"};
  auto slice = [&](const std::string& range, const std::string& out, std::vector<std::string> more = {},
                   const std::string& paths = "6") {
    more.insert(more.begin(), sets.begin(), sets.end());
    const Result r = run_cli(d, with({"run", scenario, "--paths", paths, "--path-range", range, "--out", out}, more));
    ASSERT_EQ(r.code, 0) << r.err;
  };
  auto refused = [&](const std::vector<std::string>& args, const std::vector<std::string>& words) {
    const Result r = run_cli(d, args);
    EXPECT_EQ(r.code, 2) << r.out << r.err;
    for (const auto& w : words) EXPECT_NE(r.err.find(w), std::string::npos) << "'" << w << "' not in: " << r.err;
  };
  slice("0:2", "a");
  slice("2:4", "b");
  slice("4:6", "c");
  slice("3:5", "overlap");
  slice("4:6", "other", {"noise.theta=0.02"});
  slice("4:6", "n7", {}, "7");
  refused({"merge", "a", "c", "--out", "m"}, {"b", "paths 2:4", "missing"});
  refused({"merge", "a", "b", "--out", "m"}, {"paths 4:6 of the 6 are missing"});
  refused({"merge", "b", "c", "--out", "m"}, {"paths 0:2", "missing"});
  refused({"merge", "a", "b", "overlap", "c", "--out", "m"}, {"overlap"});
  refused({"merge", "a", "b", "other", "--out", "m"}, {"other", "scenario", "theta", "different scenarios"});
  refused({"merge", "a", "b", "n7", "--out", "m"}, {"n7", "paths", "different ensembles"});
  refused({"merge", "a", "b", "nowhere", "--out", "m"}, {"nowhere", "no such folder"});
  fs::create_directories(d / "plain");
  refused({"merge", "a", "b", "plain", "--out", "m"}, {"plain", "not an ensemble slice"});
  EXPECT_FALSE(fs::exists(d / "m")) << "a refused merge writes nothing";
  // --out may not replace a slice, even with --force
  refused({"merge", "a", "b", "c", "--out", "a", "--force"}, {"a"});
  EXPECT_TRUE(fs::exists(d / "a" / "slice.json"));
  // a damaged series_paths.npy: cut short
  fs::copy(d / "c", d / "short", fs::copy_options::recursive);
  fs::resize_file(d / "short" / "series_paths.npy", fs::file_size(d / "short" / "series_paths.npy") - 8);
  refused({"merge", "a", "b", "short", "--out", "m"}, {"series_paths.npy", "truncated"});
  // a slice of a failed run, a stopped slice
  const Result failed = run_cli(d, with({"run", scenario, "--paths", "6", "--path-range", "4:6", "--out", "failed",
                                         "--set", "integrator.dt=0.05", "--set", "integrator.allow_unstable=true",
                                         "--set", "integrator.t_end=20"},
                                        {"output.plots=false"}));
  EXPECT_EQ(failed.code, 3) << failed.out << failed.err;
  if (fs::exists(d / "failed" / "slice.json")) refused({"merge", "a", "b", "failed", "--out", "m"}, {"did not complete"});
  const Result stopped = run_cli(d, with({"run", scenario, "--paths", "6", "--path-range", "4:6", "--out", "stopped",
                                          "--stop-at", "1"},
                                         sets));
  ASSERT_EQ(stopped.code, 0) << stopped.err;
  refused({"merge", "a", "b", "stopped", "--out", "m"}, {"stopped", "not an ensemble slice"});
  // bad ranges on the command line
  refused(with({"run", scenario, "--path-range", "0:2", "--out", "x"}, sets), {"--path-range", "needs --paths"});
  refused(with({"run", scenario, "--paths", "6", "--path-range", "4:7", "--out", "x"}, sets),
          {"--path-range", "4:7", "0 <= A < B <= 6"});
  refused(with({"run", scenario, "--paths", "6", "--path-range", "3:3", "--out", "x"}, sets), {"--path-range"});
  refused(with({"run", scenario, "--paths", "6", "--path-range", "two", "--out", "x"}, sets),
          {"--path-range", "'two'", "A:B"});
  // the merge of good slices still works after all that
  ASSERT_EQ(run_cli(d, {"merge", "c", "a", "b", "--out", "m"}).code, 0);
}
