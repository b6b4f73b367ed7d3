/// @file tests/io/test_npy.cpp
/// @brief The .npy writer and reader (lievi/io/npy.hpp): the header NumPy's format description asks for, values
/// round-tripped bit for bit, a file cut back and continued, and damaged files refused naming the file. (NumPy
/// itself loads such a file in tests/python/test_checkpoint.py.)
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <string>
#include <vector>

#include "lievi/core/error.hpp"
#include "lievi/io/npy.hpp"

namespace fs = std::filesystem;
using lievi::io::NpyWriter;

namespace {
fs::path tmp(const std::string& name) {
  const fs::path d = fs::path(LIEVI_TEST_TMP_DIR) / "npy";
  fs::create_directories(d);
  return d / name;
}
std::string bytes_of(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}
}  // namespace

TEST(Npy, HeaderIsNumpysVersionOneLayout) {
  const std::string h = lievi::io::npy_header({2, 3, 4});
  ASSERT_GE(h.size(), 10u);
  EXPECT_EQ(h.substr(0, 6), std::string("\x93NUMPY", 6));
  EXPECT_EQ(h[6], '\x01');
  EXPECT_EQ(h[7], '\x00');
  const std::size_t len = static_cast<unsigned char>(h[8]) | (static_cast<std::size_t>(static_cast<unsigned char>(h[9])) << 8);
  EXPECT_EQ(h.size(), 10 + len);
  EXPECT_EQ(h.size() % 64, 0u) << "the data start 64-byte aligned";
  EXPECT_EQ(h.back(), '\n');
  const std::string dict = h.substr(10);
  EXPECT_EQ(dict.rfind("{'descr': '<f8', 'fortran_order': False, 'shape': (2, 3, 4), }", 0), 0u) << dict;
  EXPECT_NE(lievi::io::npy_header({5}).find("'shape': (5,), }"), std::string::npos);
}

TEST(Npy, ValuesRoundTripBitForBitAndAFileContinuesAfterACut) {
  const fs::path p = tmp("a.npy");
  const std::vector<double> v = {0.1, -0.0, 1e-308, std::numeric_limits<double>::quiet_NaN(), 3.0, 1.0 / 3.0};
  {
    NpyWriter w(p, {2, 3});
    w.append(std::span<const double>(v.data(), 3));
    w.append(std::span<const double>(v.data() + 3, 3));
    w.close();
  }
  const auto a = lievi::io::read_npy(p);
  EXPECT_EQ(a.shape, (std::vector<std::size_t>{2, 3}));
  ASSERT_EQ(a.data.size(), v.size());
  EXPECT_EQ(0, std::memcmp(a.data.data(), v.data(), v.size() * sizeof(double)));
  // cut back after the first row (as a checkpoint recorded it) with garbage beyond, then continued
  const std::string whole = bytes_of(p);
  const long long first_row = static_cast<long long>(whole.size() - 3 * sizeof(double));
  {
    std::ofstream(p, std::ios::binary | std::ios::app) << "garbage";
    NpyWriter w(p, {2, 3}, first_row, NpyWriter::Resume{});
    EXPECT_EQ(w.bytes(), first_row);
    w.append(std::span<const double>(v.data() + 3, 3));
    w.close();
  }
  EXPECT_EQ(bytes_of(p), whole);
  // a writer closed early says how many values are missing; more values than the shape are refused
  {
    NpyWriter w(tmp("b.npy"), {2, 2});
    w.append(std::span<const double>(v.data(), 2));
    EXPECT_THROW(w.append(std::span<const double>(v.data(), 3)), std::runtime_error);
    EXPECT_THROW(w.close(), std::runtime_error);
  }
}

TEST(Npy, DamagedFilesAreRefusedNamingThem) {
  const fs::path p = tmp("c.npy");
  {
    NpyWriter w(p, {4});
    const double x[] = {1, 2, 3, 4};
    w.append(x);
    w.close();
  }
  const std::string good = bytes_of(p);
  auto expect_refused = [&](const std::string& content, const std::string& words) {
    std::ofstream(p, std::ios::binary | std::ios::trunc) << content;
    try {
      (void)lievi::io::read_npy(p);
      ADD_FAILURE() << "read: " << words;
    } catch (const lievi::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(p.string()), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
    }
  };
  expect_refused(good.substr(0, good.size() - 1), "truncated");
  expect_refused(good + "x", "longer");
  expect_refused("hello", "magic");
  std::string f4 = good;
  f4.replace(f4.find("<f8"), 3, "<f4");
  expect_refused(f4, "float64");
  std::string fortran = good;
  fortran.replace(fortran.find("False"), 5, "True ");
  expect_refused(fortran, "C order");
  EXPECT_THROW(NpyWriter(p, {5}, static_cast<long long>(good.size()), NpyWriter::Resume{}), lievi::invalid_argument);
}
