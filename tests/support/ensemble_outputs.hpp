#pragma once
/// @file tests/support/ensemble_outputs.hpp
/// @brief Comparing two ensemble output folders (end-to-end tests of checkpoints, slices and merge).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "support/cli_process.hpp"

namespace lievi::test {

/// summary.json without its wall-clock figures (timing and the derived cost per step).
inline nlohmann::json summary_without_timing(const std::filesystem::path& dir) {
  nlohmann::json j = nlohmann::json::parse(read_file(dir / "summary.json"));
  j.erase("timing");
  return j;
}

/// `b` holds the files of `a` with the same bytes: every .csv, and summary.json apart from timing.
inline void expect_same_ensemble(const std::filesystem::path& a, const std::filesystem::path& b, const std::string& what) {
  ASSERT_TRUE(std::filesystem::exists(b / "summary.json")) << what;
  EXPECT_EQ(summary_without_timing(a), summary_without_timing(b)) << what;
  std::vector<std::string> fa, fb;
  for (const auto& e : std::filesystem::directory_iterator(a)) fa.push_back(e.path().filename().string());
  for (const auto& e : std::filesystem::directory_iterator(b)) fb.push_back(e.path().filename().string());
  std::sort(fa.begin(), fa.end());
  std::sort(fb.begin(), fb.end());
  EXPECT_EQ(fa, fb) << what;
  int csv = 0;
  for (const auto& f : fa)
    if (f.size() > 4 && f.substr(f.size() - 4) == ".csv") {
      EXPECT_EQ(read_file(a / f), read_file(b / f)) << what << " " << f;
      ++csv;
    }
  EXPECT_GE(csv, 2) << what;
}

}  // namespace lievi::test
