/// @file tests/output_writers/test_output_writers.cpp
/// @brief fields.h5 (FieldsH5Writer), numeric CSV tables (TableCsvWriter) and ensemble statistics
/// (EnsembleSeries): in-process round trips plus independent readers (h5py, Python float(), NumPy) run by
/// writers_check.py. Every test writes into its own fresh folder under temp_directory_path().
#include <gtest/gtest.h>
#include <unistd.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "lievi/io/ensemble_csv.hpp"
#include "lievi/io/fields_h5.hpp"
#include "lievi/io/table_csv.hpp"
#include "lievi/version.hpp"

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

std::uint64_t bits(double x) { return std::bit_cast<std::uint64_t>(x); }

std::string read_text(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

/// Single-quote for /bin/sh.
std::string sh(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

std::string python() {
  const char* env = std::getenv("LIEVI_TEST_PYTHON");
  return env && *env ? env : LIEVI_TEST_PYTHON;
}

/// Run writers_check.py with `args`, its stdout parsed as JSON; a failure (exit code, bad JSON) is reported
/// with its stderr. Output files go to `dir`.
json run_check(const fs::path& dir, const std::vector<std::string>& args) {
  const fs::path out = dir / "py.stdout", err = dir / "py.stderr";
  std::string cmd = sh(python()) + " " + sh(std::string(LIEVI_TEST_DIR) + "/writers_check.py");
  for (const auto& a : args) cmd += " " + sh(a);
  cmd += " > " + sh(out.string()) + " 2> " + sh(err.string());
  const int st = std::system(cmd.c_str());
  if (st != 0) {
    ADD_FAILURE() << cmd << "\nexit status " << st << "\n" << read_text(err);
    return json();
  }
  try {
    return json::parse(read_text(out));
  } catch (const std::exception& e) {
    ADD_FAILURE() << "bad JSON from " << cmd << ": " << e.what();
    return json();
  }
}

#define REQUIRE_PYTHON() \
  if (!fs::exists(python())) GTEST_SKIP() << python() << " not found"

/// A fresh folder per test, removed when the test passed.
class TmpDirTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::temp_directory_path() / ("lievi-output-writers-" + std::string(info->test_suite_name()) + "-" +
                                        info->name() + "-" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override {
    if (!HasFailure()) fs::remove_all(dir_);
  }
  fs::path dir_;
};

/// Doubles that stress a bitwise round trip: random bit patterns (any exponent, subnormals, some NaNs and
/// infinities), plain values, and the special cases.
std::vector<double> nasty_doubles(std::size_t n, std::uint64_t seed, bool allow_nan = true) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> normal;
  const std::vector<double> special = {0.0,
                                       -0.0,
                                       std::numeric_limits<double>::denorm_min(),
                                       -std::numeric_limits<double>::denorm_min(),
                                       std::numeric_limits<double>::min(),
                                       std::nextafter(std::numeric_limits<double>::min(), 0.0),
                                       std::numeric_limits<double>::max(),
                                       std::numeric_limits<double>::lowest(),
                                       1e308,
                                       -1e-308,
                                       0.1,
                                       1.0 / 3.0,
                                       9007199254740993.0,
                                       std::numeric_limits<double>::infinity(),
                                       -std::numeric_limits<double>::infinity()};
  std::vector<double> v;
  v.reserve(n);
  for (std::size_t i = 0; i < n; ++i) {
    double x;
    if (i < special.size()) {
      x = special[i];
    } else if (i % 2) {
      x = normal(rng) * std::pow(10.0, static_cast<int>(rng() % 40) - 20);
    } else {
      x = std::bit_cast<double>(rng());
      if (!allow_nan && std::isnan(x)) x = 1.5;
    }
    v.push_back(x);
  }
  if (allow_nan && n > special.size()) v[special.size()] = std::numeric_limits<double>::quiet_NaN();
  return v;
}

}  // namespace

// =====================================================================================================
// fields.h5
// =====================================================================================================
#ifndef LIEVI_TEST_NO_HDF5

namespace {

/// What write_sample wrote.
struct Sample {
  std::size_t n = 7;
  std::vector<double> s, t;
  std::vector<std::vector<double>> phi, R;  // per snapshot
  double phi_offset = 0.005, phi_scale = -0.0, R_offset = 0.0;
};

/// 4 snapshots of phi{n} and R{n,3,3}, with attributes; closed.
Sample write_sample(const fs::path& path) {
  Sample a;
  for (std::size_t i = 0; i < a.n; ++i) a.s.push_back(0.1 * static_cast<double>(i) - 0.3);
  lievi::io::FieldsH5Writer w(path, a.s,
                              {{"phi", {a.n}, {{"time_offset", a.phi_offset}, {"scale", a.phi_scale}}, "wave field"},
                               {"R", {a.n, 3, 3}, {{"time_offset", a.R_offset}}, "rotations, C order"}},
                              "wave");
  for (int k = 0; k < 4; ++k) {
    a.t.push_back(0.25 * k + 1.0 / 7.0);
    a.phi.push_back(nasty_doubles(a.n, 100 + k));
    a.R.push_back(nasty_doubles(a.n * 9, 200 + k));
    const std::span<const double> d[] = {a.phi.back(), a.R.back()};
    w.append(a.t.back(), d);
    EXPECT_EQ(w.size(), static_cast<std::size_t>(k + 1));
  }
  w.close();
  return a;
}

void expect_bits(const std::vector<double>& got, const std::vector<double>& want, const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (std::size_t i = 0; i < got.size(); ++i)
    ASSERT_EQ(bits(got[i]), bits(want[i])) << what << "[" << i << "] got " << got[i] << " want " << want[i];
}

std::vector<double> concat(const std::vector<std::vector<double>>& v) {
  std::vector<double> r;
  for (const auto& x : v) r.insert(r.end(), x.begin(), x.end());
  return r;
}

/// Bit patterns from a JSON list of uint64.
std::vector<double> from_bits(const json& j) {
  std::vector<double> r;
  for (const auto& b : j) r.push_back(std::bit_cast<double>(b.get<std::uint64_t>()));
  return r;
}

}  // namespace

class OutputWritersFieldsH5 : public TmpDirTest {};

TEST_F(OutputWritersFieldsH5, WriteReadBackBitwise) {
  const fs::path p = dir_ / "fields.h5";
  const Sample a = write_sample(p);
  using lievi::io::read_h5_dataset;
  const auto t = read_h5_dataset(p, "t");
  EXPECT_EQ(t.shape, (std::vector<std::size_t>{4}));
  expect_bits(t.data, a.t, "/t");
  const auto s = read_h5_dataset(p, "/s");
  EXPECT_EQ(s.shape, (std::vector<std::size_t>{a.n}));
  expect_bits(s.data, a.s, "/s");
  const auto phi = read_h5_dataset(p, "phi");
  EXPECT_EQ(phi.shape, (std::vector<std::size_t>{4, a.n}));
  expect_bits(phi.data, concat(a.phi), "/phi");
  const auto R = read_h5_dataset(p, "/R");
  EXPECT_EQ(R.shape, (std::vector<std::size_t>{4, a.n, 3, 3}));
  expect_bits(R.data, concat(a.R), "/R");

  EXPECT_EQ(bits(lievi::io::read_h5_attribute(p, "phi", "time_offset")), bits(a.phi_offset));
  EXPECT_EQ(bits(lievi::io::read_h5_attribute(p, "/phi", "scale")), bits(-0.0));
  EXPECT_EQ(bits(lievi::io::read_h5_attribute(p, "R", "time_offset")), bits(a.R_offset));
  EXPECT_EQ(lievi::io::read_h5_string_attribute(p, "phi", "description"), "wave field");
  EXPECT_EQ(lievi::io::read_h5_string_attribute(p, "R", "description"), "rotations, C order");
  EXPECT_EQ(lievi::io::read_h5_string_attribute(p, "/", "lievi_version"), std::string(lievi::version));
  EXPECT_EQ(lievi::io::read_h5_string_attribute(p, "/", "model"), "wave");
  EXPECT_THROW((void)lievi::io::read_h5_attribute(p, "phi", "description"), std::runtime_error);  // a string
}

TEST_F(OutputWritersFieldsH5, H5pyReadsSameLayoutValuesAndAttributes) {
  REQUIRE_PYTHON();
  const fs::path p = dir_ / "fields.h5";
  const Sample a = write_sample(p);
  const json j = run_check(dir_, {"h5dump", p.string()});
  ASSERT_FALSE(j.is_null());

  const json& root = j["root_attrs"];
  ASSERT_EQ(root.size(), 2u) << root.dump();
  EXPECT_EQ(root["lievi_version"]["kind"], "str");
  EXPECT_EQ(root["lievi_version"]["value"], lievi::version);
  EXPECT_EQ(root["model"]["value"], "wave");

  const json& ds = j["datasets"];
  ASSERT_EQ(ds.size(), 4u) << "datasets: " << ds.dump().substr(0, 200);
  for (const char* name : {"t", "s", "phi", "R"}) {
    ASSERT_TRUE(ds.contains(name)) << name;
    EXPECT_EQ(ds[name]["dtype"], "<f8") << name;
    EXPECT_TRUE(ds[name]["compression"].is_null()) << name;
  }
  EXPECT_EQ(ds["t"]["shape"], json::array({4}));
  EXPECT_EQ(ds["s"]["shape"], json::array({a.n}));
  EXPECT_EQ(ds["phi"]["shape"], json::array({4, a.n}));
  EXPECT_EQ(ds["R"]["shape"], json::array({4, a.n, 3, 3}));
  // extendible along the first axis only; /s is fixed
  EXPECT_EQ(ds["t"]["maxshape"], json::array({nullptr}));
  EXPECT_EQ(ds["phi"]["maxshape"], json::array({nullptr, a.n}));
  EXPECT_EQ(ds["R"]["maxshape"], json::array({nullptr, a.n, 3, 3}));
  EXPECT_EQ(ds["s"]["maxshape"], json::array({a.n}));
  // chunked: whole snapshots (small fields: several per chunk), at most 1 MiB
  for (const char* name : {"t", "phi", "R"}) {
    const json& c = ds[name]["chunks"];
    ASSERT_TRUE(c.is_array()) << name;
    std::size_t bytes = 8;
    for (std::size_t d = 0; d < c.size(); ++d) {
      bytes *= c[d].get<std::size_t>();
      if (d > 0) {
        EXPECT_EQ(c[d], ds[name]["shape"][d]) << name << " chunk axis " << d;
      }
    }
    EXPECT_GE(c[0].get<std::size_t>(), 1u) << name;
    EXPECT_LE(bytes, std::size_t{1} << 20) << name;
  }

  expect_bits(from_bits(ds["t"]["bits"]), a.t, "h5py /t");
  expect_bits(from_bits(ds["s"]["bits"]), a.s, "h5py /s");
  expect_bits(from_bits(ds["phi"]["bits"]), concat(a.phi), "h5py /phi");
  expect_bits(from_bits(ds["R"]["bits"]), concat(a.R), "h5py /R");

  const json& pa = ds["phi"]["attrs"];
  ASSERT_EQ(pa.size(), 3u) << pa.dump();
  EXPECT_EQ(pa["time_offset"]["kind"], "float");
  EXPECT_EQ(pa["time_offset"]["dtype"], "<f8");
  EXPECT_EQ(pa["time_offset"]["bits"].get<std::uint64_t>(), bits(a.phi_offset));
  EXPECT_EQ(pa["scale"]["bits"].get<std::uint64_t>(), bits(-0.0));
  EXPECT_EQ(pa["description"]["value"], "wave field");
  const json& ra = ds["R"]["attrs"];
  ASSERT_EQ(ra.size(), 2u) << ra.dump();
  EXPECT_EQ(ra["time_offset"]["bits"].get<std::uint64_t>(), bits(a.R_offset));
  EXPECT_EQ(ra["description"]["value"], "rotations, C order");
  EXPECT_EQ(ds["t"]["attrs"]["description"]["value"], "output times");
  EXPECT_EQ(ds["s"]["attrs"]["description"]["value"], "node positions");
}

TEST_F(OutputWritersFieldsH5, ThousandAppendsExtendTheDatasets) {
  const fs::path p = dir_ / "many.h5";
  const std::vector<double> s = {0.0, 1.0};
  std::vector<double> want_t, want_u;
  {
    lievi::io::FieldsH5Writer w(p, s, {{"u", {2}, {}, ""}}, "test");
    for (int k = 0; k < 1000; ++k) {
      const double t = 1e-3 * k, u[2] = {std::sin(t), -static_cast<double>(k)};
      const std::span<const double> d[] = {u};
      w.append(t, d);
      want_t.push_back(t);
      want_u.insert(want_u.end(), u, u + 2);
    }
    EXPECT_EQ(w.size(), 1000u);
    w.close();
  }
  const auto t = lievi::io::read_h5_dataset(p, "t");
  const auto u = lievi::io::read_h5_dataset(p, "u");
  EXPECT_EQ(t.shape, (std::vector<std::size_t>{1000}));
  EXPECT_EQ(u.shape, (std::vector<std::size_t>{1000, 2}));
  expect_bits(t.data, want_t, "/t");
  expect_bits(u.data, want_u, "/u");
  EXPECT_EQ(lievi::io::read_h5_string_attribute(p, "u", "description"), "");
  if (fs::exists(python())) {
    const json j = run_check(dir_, {"h5dump", p.string()});
    ASSERT_FALSE(j.is_null());
    EXPECT_EQ(j["datasets"]["u"]["shape"], json::array({1000, 2}));
    expect_bits(from_bits(j["datasets"]["u"]["bits"]), want_u, "h5py /u");
    expect_bits(from_bits(j["datasets"]["t"]["bits"]), want_t, "h5py /t");
  }
}

TEST_F(OutputWritersFieldsH5, SizeMismatchThrowsAndWritesNothing) {
  const fs::path p = dir_ / "fields.h5";
  const std::vector<double> s(3, 0.0), a(3, 1.0), b(27, 2.0), short_b(26, 2.0);
  lievi::io::FieldsH5Writer w(p, s, {{"a", {3}, {}, ""}, {"b", {3, 3, 3}, {}, ""}}, "m");
  const std::span<const double> good[] = {a, b};
  w.append(0.5, good);
  const std::span<const double> bad[] = {a, short_b};
  try {
    w.append(1.0, bad);
    FAIL() << "no throw";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("/b"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("26"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find(p.string()), std::string::npos) << e.what();
  }
  const std::span<const double> one[] = {a};
  EXPECT_THROW(w.append(1.0, one), std::runtime_error);  // wrong number of fields
  EXPECT_EQ(w.size(), 1u);
  w.append(2.0, good);  // still usable
  w.close();
  EXPECT_EQ(lievi::io::read_h5_dataset(p, "t").data, (std::vector<double>{0.5, 2.0}));
  EXPECT_EQ(lievi::io::read_h5_dataset(p, "b").shape, (std::vector<std::size_t>{2, 3, 3, 3}));
  EXPECT_EQ(lievi::io::read_h5_dataset(p, "a").shape, (std::vector<std::size_t>{2, 3}));
}

TEST_F(OutputWritersFieldsH5, UnwritablePathThrowsWithPath) {
  const std::vector<double> s(2, 0.0);
  for (const fs::path& p : {dir_ / "no_such_folder" / "fields.h5", dir_}) {  // missing parent; a folder
    try {
      lievi::io::FieldsH5Writer w(p, s, {{"a", {2}, {}, ""}}, "m");
      FAIL() << "no throw for " << p;
    } catch (const std::runtime_error& e) {
      const std::string m = e.what();
      EXPECT_NE(m.find(p.string()), std::string::npos) << m;
      EXPECT_NE(m.find("H5Fcreate"), std::string::npos) << m;
    }
  }
  EXPECT_FALSE(fs::exists(dir_ / "no_such_folder"));
}

TEST_F(OutputWritersFieldsH5, CloseIsIdempotentAndAppendAfterCloseThrows) {
  const fs::path p = dir_ / "fields.h5";
  const std::vector<double> s(2, 0.0), a = {1.0, 2.0};
  lievi::io::FieldsH5Writer w(p, s, {{"a", {2}, {}, ""}}, "m");
  const std::span<const double> d[] = {a};
  w.append(0.0, d);
  w.close();
  EXPECT_NO_THROW(w.close());
  EXPECT_THROW(w.append(1.0, d), std::runtime_error);
  EXPECT_EQ(w.size(), 1u);
  EXPECT_EQ(lievi::io::read_h5_dataset(p, "a").data, a);
}

TEST_F(OutputWritersFieldsH5, ValidAfterDestructionWithoutClose) {
  const fs::path p = dir_ / "fields.h5";
  const std::vector<double> s = {0.0, 0.5, 1.0}, a = {3.0, -4.0, 5.0};
  {
    lievi::io::FieldsH5Writer w(p, s, {{"a", {3}, {{"k", 2.0}}, "doc"}}, "beam");
    const std::span<const double> d[] = {a};
    w.append(0.0, d);
    w.append(0.1, d);
  }  // no close()
  const auto r = lievi::io::read_h5_dataset(p, "a");
  EXPECT_EQ(r.shape, (std::vector<std::size_t>{2, 3}));
  EXPECT_EQ(lievi::io::read_h5_attribute(p, "a", "k"), 2.0);
  EXPECT_EQ(lievi::io::read_h5_string_attribute(p, "/", "model"), "beam");
  if (fs::exists(python())) {
    const json j = run_check(dir_, {"h5dump", p.string()});
    ASSERT_FALSE(j.is_null());
    EXPECT_EQ(j["datasets"]["a"]["shape"], json::array({2, 3}));
    EXPECT_EQ(j["datasets"]["t"]["shape"], json::array({2}));
    expect_bits(from_bits(j["datasets"]["a"]["bits"]), {3.0, -4.0, 5.0, 3.0, -4.0, 5.0}, "h5py /a");
  }
}

TEST_F(OutputWritersFieldsH5, LargeSnapshotIsSplitIntoChunksOfAtMostOneMiB) {
  REQUIRE_PYTHON();
  const fs::path p = dir_ / "big.h5";
  const std::size_t n = 100000;  // 100000 x 3 doubles = 2.4 MB per snapshot
  std::vector<double> s(n), x(3 * n), y(3 * n);
  for (std::size_t i = 0; i < n; ++i) s[i] = static_cast<double>(i);
  for (std::size_t i = 0; i < 3 * n; ++i) {
    x[i] = 0.5 * static_cast<double>(i);
    y[i] = -static_cast<double>(i);
  }
  {
    lievi::io::FieldsH5Writer w(p, s, {{"x", {n, 3}, {}, "positions"}}, "beam");
    const std::span<const double> d1[] = {x}, d2[] = {y};
    w.append(0.0, d1);
    w.append(1.0, d2);
    w.close();
  }
  const json j = run_check(dir_, {"h5dump", p.string()});
  ASSERT_FALSE(j.is_null());
  const json& c = j["datasets"]["x"]["chunks"];
  ASSERT_EQ(c.size(), 3u);
  EXPECT_EQ(c[0], 1);
  EXPECT_EQ(c[2], 3);
  EXPECT_LE(8 * c[0].get<std::size_t>() * c[1].get<std::size_t>() * c[2].get<std::size_t>(),
            std::size_t{1} << 20);
  EXPECT_GE(8 * c[1].get<std::size_t>() * 3, std::size_t{256} << 10) << "chunks needlessly small";
  std::vector<double> want = x;
  want.insert(want.end(), y.begin(), y.end());
  expect_bits(from_bits(j["datasets"]["x"]["bits"]), want, "h5py /x");
  expect_bits(lievi::io::read_h5_dataset(p, "x").data, want, "/x");
}

TEST_F(OutputWritersFieldsH5, InvalidSpecsThrowBeforeCreatingTheFile) {
  const fs::path p = dir_ / "fields.h5";
  const std::vector<double> s(2, 0.0);
  using Specs = std::vector<lievi::io::FieldSpec>;
  const std::vector<Specs> bad = {
      {{"", {2}, {}, ""}},
      {{"a/b", {2}, {}, ""}},
      {{"t", {2}, {}, ""}},
      {{"s", {2}, {}, ""}},
      {{"a", {2}, {}, ""}, {"a", {3}, {}, ""}},
      {{"a", {2, 0}, {}, ""}},
      {{"a", {2}, {{"x", 1.0}, {"x", 2.0}}, ""}},
      {{"a", {2}, {{"description", 1.0}}, ""}},
  };
  for (const Specs& spec : bad) {
    EXPECT_THROW(lievi::io::FieldsH5Writer(p, s, spec, "m"), std::runtime_error) << spec.front().name;
    EXPECT_FALSE(fs::exists(p)) << spec.front().name;
  }
}

TEST_F(OutputWritersFieldsH5, ReadingMissingFileDatasetOrAttributeThrows) {
  const fs::path p = dir_ / "fields.h5";
  (void)write_sample(p);
  auto expect_msg = [](auto&& f, const std::string& needle) {
    try {
      f();
      ADD_FAILURE() << "no throw, expected " << needle;
    } catch (const std::runtime_error& e) {
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    }
  };
  expect_msg([&] { (void)lievi::io::read_h5_dataset(dir_ / "none.h5", "t"); }, "H5Fopen");
  expect_msg([&] { (void)lievi::io::read_h5_dataset(p, "nope"); }, "/nope");
  expect_msg([&] { (void)lievi::io::read_h5_attribute(p, "phi", "nope"); }, "nope");
  expect_msg([&] { (void)lievi::io::read_h5_attribute(p, "nope", "time_offset"); }, "/nope");
  expect_msg([&] { (void)lievi::io::read_h5_string_attribute(p, "phi", "time_offset"); }, "not a string");
}

namespace {
/// Whether a shared object whose file name contains `name` is mapped into this process.
bool mapped(const std::string& name) {
  std::ifstream maps("/proc/self/maps");
  std::string line;
  while (std::getline(maps, line))
    if (line.find(name) != std::string::npos) return true;
  return false;
}
}  // namespace

// HDF5 is loaded with lievi's module the first time fields.h5 is used, not when the program starts (the
// start-up cost of its thirty libraries, docs/performance.md). Each TEST runs in a process of its own under
// ctest (gtest_discover_tests), so nothing has touched fields.h5 before this one.
TEST_F(OutputWritersFieldsH5, Hdf5IsLoadedOnlyWhenFieldsH5IsUsed) {
  if (!std::ifstream("/proc/self/maps")) GTEST_SKIP() << "no /proc/self/maps";
  if (::testing::UnitTest::GetInstance()->test_to_run_count() != 1)
    GTEST_SKIP() << "needs a process of its own (run it alone, as ctest does)";
  ASSERT_FALSE(mapped("libhdf5")) << "HDF5 is linked into the program";
  ASSERT_FALSE(mapped("liblievi_hdf5"));
  const fs::path p = dir_ / "fields.h5";
  const Sample a = write_sample(p);
  EXPECT_TRUE(mapped("liblievi_hdf5"));
  EXPECT_TRUE(mapped("libhdf5"));
  expect_bits(lievi::io::read_h5_dataset(p, "t").data, a.t, "t");
}

#else  // built without HDF5: the stub throws

TEST(OutputWritersFieldsH5, WithoutHdf5EveryEntryPointThrows) {
  const std::vector<double> s(2, 0.0);
  EXPECT_THROW(lievi::io::FieldsH5Writer("x.h5", s, {}, "m"), std::runtime_error);
  EXPECT_THROW((void)lievi::io::read_h5_dataset("x.h5", "t"), std::runtime_error);
}

#endif

// =====================================================================================================
// CSV tables
// =====================================================================================================

class OutputWritersTableCsv : public TmpDirTest {};

namespace {

/// rows x cols nasty doubles, written to `p`; returns them.
std::vector<std::vector<double>> write_nasty_table(const fs::path& p, std::size_t rows, std::size_t cols) {
  const std::vector<double> v = nasty_doubles(rows * cols, 7);
  std::vector<std::string> names;
  for (std::size_t c = 0; c < cols; ++c) names.push_back("c" + std::to_string(c));
  lievi::io::TableCsvWriter w(p, names);
  std::vector<std::vector<double>> r;
  for (std::size_t i = 0; i < rows; ++i) {
    r.emplace_back(v.begin() + static_cast<std::ptrdiff_t>(i * cols),
                   v.begin() + static_cast<std::ptrdiff_t>((i + 1) * cols));
    w.row(r.back());
  }
  EXPECT_EQ(w.rows(), rows);
  w.close();
  return r;
}

/// Bitwise, except that any NaN matches any NaN (the text "nan" keeps neither sign nor payload).
void expect_same(double got, double want, const std::string& where) {
  if (std::isnan(want)) {
    EXPECT_TRUE(std::isnan(got)) << where;
  } else {
    EXPECT_EQ(bits(got), bits(want)) << where << " got " << got << " want " << want;
  }
}

}  // namespace

TEST_F(OutputWritersTableCsv, RoundTripBitwiseThroughReadCsvTable) {
  const fs::path p = dir_ / "table.csv";
  const auto want = write_nasty_table(p, 40000, 3);  // ~2.5 MB: several flushes of the 1 MiB buffer
  ASSERT_GT(fs::file_size(p), std::uintmax_t{2} << 20);
  const lievi::io::CsvTable t = lievi::io::read_csv_table(p);
  EXPECT_EQ(t.columns, (std::vector<std::string>{"c0", "c1", "c2"}));
  ASSERT_EQ(t.rows.size(), want.size());
  for (std::size_t r = 0; r < want.size(); ++r) {
    ASSERT_EQ(t.rows[r].size(), 3u);
    for (std::size_t c = 0; c < 3; ++c) expect_same(t.rows[r][c], want[r][c], std::to_string(r) + "," + std::to_string(c));
  }
}

TEST_F(OutputWritersTableCsv, PythonFloatParsesTheSameBits) {
  REQUIRE_PYTHON();
  const fs::path p = dir_ / "table.csv";
  const auto want = write_nasty_table(p, 2000, 4);
  const json j = run_check(dir_, {"csvbits", p.string()});
  ASSERT_FALSE(j.is_null());
  EXPECT_EQ(j["columns"], json::array({"c0", "c1", "c2", "c3"}));
  ASSERT_EQ(j["rows"].size(), want.size());
  for (std::size_t r = 0; r < want.size(); ++r) {
    ASSERT_EQ(j["rows"][r].size(), 4u);
    for (std::size_t c = 0; c < 4; ++c)
      expect_same(std::bit_cast<double>(j["rows"][r][c].get<std::uint64_t>()), want[r][c],
                  std::to_string(r) + "," + std::to_string(c));
  }
}

TEST_F(OutputWritersTableCsv, ExactText) {
  const fs::path p = dir_ / "t.csv";
  lievi::io::TableCsvWriter w(p, {"t", "x"});
  const double inf = std::numeric_limits<double>::infinity(), nan = std::numeric_limits<double>::quiet_NaN();
  for (const auto& r : std::vector<std::vector<double>>{
           {0.0, -0.0}, {0.1, 1e300}, {5e-324, inf}, {-nan, -inf}, {1.0, 2.5}, {123456789.0, -1.25e-7}})
    w.row(r);
  w.close();
  EXPECT_EQ(read_text(p), "t,x\n0,-0\n0.1,1e+300\n5e-324,inf\nnan,-inf\n1,2.5\n123456789,-1.25e-07\n");
}

TEST_F(OutputWritersTableCsv, WrongRowLengthThrowsAndWritesNothing) {
  const fs::path p = dir_ / "t.csv";
  lievi::io::TableCsvWriter w(p, {"a", "b", "c"});
  w.row(std::vector<double>{1, 2, 3});
  try {
    w.row(std::vector<double>{1, 2});
    FAIL() << "no throw";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("expected 3"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find(p.string()), std::string::npos) << e.what();
  }
  EXPECT_THROW(w.row(std::vector<double>{1, 2, 3, 4}), std::runtime_error);
  EXPECT_THROW(w.row(std::vector<double>{}), std::runtime_error);
  w.close();
  EXPECT_EQ(read_text(p), "a,b,c\n1,2,3\n");
}

TEST_F(OutputWritersTableCsv, IoFailuresThrowWithThePath) {
  try {
    lievi::io::TableCsvWriter w(dir_ / "missing" / "t.csv", {"a"});
    FAIL() << "no throw";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find((dir_ / "missing" / "t.csv").string()), std::string::npos) << e.what();
  }
  if (!fs::exists("/dev/full")) GTEST_SKIP() << "no /dev/full";
  {  // small table: the failure shows at close()
    lievi::io::TableCsvWriter w("/dev/full", {"a"});
    w.row(std::vector<double>{1.0});
    try {
      w.close();
      FAIL() << "no throw";
    } catch (const std::runtime_error& e) {
      EXPECT_NE(std::string(e.what()).find("/dev/full"), std::string::npos) << e.what();
    }
    EXPECT_NO_THROW(w.close());
  }
  {  // large table: the failure shows at a flush inside row()
    lievi::io::TableCsvWriter w("/dev/full", {"a", "b"});
    bool threw = false;
    const std::vector<double> r = {0.123456789012345678, 1e-300};
    try {
      for (int i = 0; i < 200000; ++i) w.row(r);
    } catch (const std::runtime_error& e) {
      threw = true;
      EXPECT_NE(std::string(e.what()).find("/dev/full"), std::string::npos) << e.what();
    }
    EXPECT_TRUE(threw);
    EXPECT_THROW(w.row(r), std::runtime_error);  // closed after the failure
  }
}

TEST_F(OutputWritersTableCsv, CloseIsIdempotentAndRowAfterCloseThrows) {
  const fs::path p = dir_ / "t.csv";
  lievi::io::TableCsvWriter w(p, {"a"});
  w.row(std::vector<double>{4.0});
  w.close();
  EXPECT_NO_THROW(w.close());
  EXPECT_THROW(w.row(std::vector<double>{5.0}), std::runtime_error);
  EXPECT_EQ(read_text(p), "a\n4\n");
  {
    lievi::io::TableCsvWriter w2(dir_ / "u.csv", {"a", "b"});
    w2.row(std::vector<double>{1.0, 2.0});
  }  // destructor flushes
  EXPECT_EQ(read_text(dir_ / "u.csv"), "a,b\n1,2\n");
}

TEST_F(OutputWritersTableCsv, InvalidColumnNamesThrow) {
  for (const auto& cols : std::vector<std::vector<std::string>>{{}, {""}, {"a,b"}, {"a", "b\n"}, {"\"q\""}})
    EXPECT_THROW(lievi::io::TableCsvWriter(dir_ / "t.csv", cols), std::invalid_argument);
}

TEST_F(OutputWritersTableCsv, ReaderRejectsMalformedRowsWithFileAndLine) {
  const fs::path p = dir_ / "bad.csv";
  auto expect_error = [&](const std::string& text, const std::string& needle) {
    std::ofstream(p, std::ios::binary) << text;
    try {
      (void)lievi::io::read_csv_table(p);
      ADD_FAILURE() << "no throw for " << text;
    } catch (const std::runtime_error& e) {
      const std::string m = e.what();
      EXPECT_NE(m.find(p.string() + needle), std::string::npos) << m;
    }
  };
  expect_error("a,b\n1,2\n3\n", ":3:");
  expect_error("a,b\n1,x\n", ":2:");
  expect_error("a,b\n1,2,3\n", ":2:");
  expect_error("a,b\n1,2 \n", ":2:");
  expect_error("a,b\n1,2\n\n3,4\n", ":3:");
  expect_error("a,b\n,2\n", ":2:");
  expect_error("", ":1:");
  EXPECT_THROW((void)lievi::io::read_csv_table(dir_ / "none.csv"), std::runtime_error);
  // accepted: no final newline, CRLF
  std::ofstream(p, std::ios::binary) << "a,b\r\n1,-2.5e-3\r\n-inf,nan";
  const auto t = lievi::io::read_csv_table(p);
  ASSERT_EQ(t.rows.size(), 2u);
  EXPECT_EQ(t.columns, (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(t.rows[0], (std::vector<double>{1.0, -2.5e-3}));
  EXPECT_EQ(t.rows[1][0], -std::numeric_limits<double>::infinity());
  EXPECT_TRUE(std::isnan(t.rows[1][1]));
}

// =====================================================================================================
// Ensemble statistics
// =====================================================================================================

class OutputWritersEnsemble : public TmpDirTest {};

namespace {

using Table = std::vector<std::vector<double>>;

/// `paths` tables of `rows` rows: t, then columns of different scales and offsets.
std::vector<Table> random_paths(std::size_t paths, std::size_t rows, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> n01;
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  std::vector<Table> out(paths);
  for (auto& tab : out)
    for (std::size_t r = 0; r < rows; ++r)
      tab.push_back({0.02 * static_cast<double>(r), n01(rng), 3.0 + 0.5 * n01(rng), 1e100 * u(rng),
                     1e-100 * n01(rng)});
  return out;
}

const std::vector<std::string> kCols = {"t", "a", "b", "c", "d"};

}  // namespace

TEST_F(OutputWritersEnsemble, MatchesNumPyMeanAndStdDdof1) {
  REQUIRE_PYTHON();
  const auto paths = random_paths(7, 50, 42);
  lievi::io::EnsembleSeries e(kCols);
  std::vector<std::string> args = {"ensemble"};
  for (std::size_t k = 0; k < paths.size(); ++k) {
    const fs::path p = dir_ / ("path_" + std::to_string(k) + ".csv");
    lievi::io::TableCsvWriter w(p, kCols);
    for (const auto& r : paths[k]) w.row(r);
    w.close();
    args.push_back(p.string());
    e.add_path(paths[k]);
  }
  EXPECT_EQ(e.paths(), 7u);
  EXPECT_EQ(e.rows(), 50u);
  e.write(dir_ / "series_mean.csv", dir_ / "series_std.csv");
  const json j = run_check(dir_, args);
  ASSERT_FALSE(j.is_null());
  const auto fm = lievi::io::read_csv_table(dir_ / "series_mean.csv");
  const auto fsd = lievi::io::read_csv_table(dir_ / "series_std.csv");
  EXPECT_EQ(fm.columns, kCols);
  EXPECT_EQ(fsd.columns, kCols);
  ASSERT_EQ(fm.rows.size(), 50u);
  ASSERT_EQ(fsd.rows.size(), 50u);
  ASSERT_EQ(j["mean"].size(), 50u);
  for (std::size_t r = 0; r < 50; ++r)
    for (std::size_t c = 0; c < kCols.size(); ++c) {
      const std::string at = "row " + std::to_string(r) + " col " + std::to_string(c);
      // the files hold exactly the accessors' values
      EXPECT_EQ(bits(fm.rows[r][c]), bits(e.mean(r, c))) << at;
      EXPECT_EQ(bits(fsd.rows[r][c]), bits(e.stddev(r, c))) << at;
      const double m = j["mean"][r][c].get<double>(), s = j["std"][r][c].get<double>();
      if (c == 0) {  // t copied, bitwise
        EXPECT_EQ(bits(e.mean(r, 0)), bits(paths[0][r][0])) << at;
        EXPECT_EQ(bits(e.stddev(r, 0)), bits(paths[0][r][0])) << at;
        continue;
      }
      // mean: relative to the mean of |x| (the scale of the sum; the mean itself may be near 0)
      double scale = 0;
      for (const auto& p : paths) scale += std::abs(p[r][c]) / 7.0;
      EXPECT_LE(std::abs(e.mean(r, c) - m), 1e-14 * scale) << at << " mean " << e.mean(r, c) << " numpy " << m;
      EXPECT_LE(std::abs(e.stddev(r, c) - s), 1e-14 * s) << at << " std " << e.stddev(r, c) << " numpy " << s;
      EXPECT_GT(s, 0.0) << at;
    }
}

TEST_F(OutputWritersEnsemble, HandComputedExample) {
  lievi::io::EnsembleSeries e({"t", "x"});
  for (double x : {1.0, 2.0, 4.0}) e.add_path({{0.5, x}, {1.5, -x}});
  EXPECT_DOUBLE_EQ(e.mean(0, 1), 7.0 / 3.0);
  EXPECT_DOUBLE_EQ(e.mean(1, 1), -7.0 / 3.0);
  EXPECT_DOUBLE_EQ(e.stddev(0, 1), std::sqrt(7.0 / 3.0));  // sum of squares 42/9, over n - 1 = 2
  EXPECT_DOUBLE_EQ(e.stddev(1, 1), std::sqrt(7.0 / 3.0));
  EXPECT_EQ(e.mean(1, 0), 1.5);
  EXPECT_THROW((void)e.mean(2, 0), std::out_of_range);
  EXPECT_THROW((void)e.stddev(0, 2), std::out_of_range);
}

TEST_F(OutputWritersEnsemble, SinglePathHasZeroStd) {
  lievi::io::EnsembleSeries e({"t", "x", "y"});
  EXPECT_THROW((void)e.mean(0, 0), std::out_of_range);
  EXPECT_THROW(e.write(dir_ / "m.csv", dir_ / "s.csv"), std::logic_error);
  e.add_path({{0.0, 1.25, -3.0}, {0.1, 2.0, 7.0}});
  EXPECT_EQ(e.paths(), 1u);
  e.write(dir_ / "m.csv", dir_ / "s.csv");
  EXPECT_EQ(read_text(dir_ / "m.csv"), "t,x,y\n0,1.25,-3\n0.1,2,7\n");
  EXPECT_EQ(read_text(dir_ / "s.csv"), "t,x,y\n0,0,0\n0.1,0,0\n");
}

TEST_F(OutputWritersEnsemble, BitwiseDeterministic) {
  const auto paths = random_paths(7, 50, 9);
  for (int rep = 0; rep < 2; ++rep) {
    lievi::io::EnsembleSeries e(kCols);
    for (const auto& p : paths) e.add_path(p);
    const std::string k = std::to_string(rep);
    e.write(dir_ / ("m" + k + ".csv"), dir_ / ("s" + k + ".csv"));
  }
  EXPECT_EQ(read_text(dir_ / "m0.csv"), read_text(dir_ / "m1.csv"));
  EXPECT_EQ(read_text(dir_ / "s0.csv"), read_text(dir_ / "s1.csv"));
  EXPECT_GT(read_text(dir_ / "s0.csv").size(), 1000u);
}

TEST_F(OutputWritersEnsemble, MismatchedTimesRowCountsOrWidthsThrow) {
  auto paths = random_paths(4, 10, 3);
  lievi::io::EnsembleSeries e(kCols);
  e.add_path(paths[0]);
  e.add_path(paths[1]);
  const double m_before = e.mean(5, 1);
  auto expect_invalid = [&](const Table& t, std::vector<std::string> needles) {
    try {
      e.add_path(t);
      ADD_FAILURE() << "no throw";
    } catch (const std::invalid_argument& ex) {
      for (const auto& n : needles) EXPECT_NE(std::string(ex.what()).find(n), std::string::npos) << ex.what();
    }
    EXPECT_EQ(e.paths(), 2u);
    EXPECT_EQ(bits(e.mean(5, 1)), bits(m_before));  // unchanged
  };
  Table bad_t = paths[2];
  bad_t[5][0] += 1e-12;
  expect_invalid(bad_t, {"path 2", "row 5"});
  Table short_t(paths[2].begin(), paths[2].end() - 1);
  expect_invalid(short_t, {"path 2", "9 rows", "10"});
  Table narrow = paths[2];
  narrow[3].pop_back();
  expect_invalid(narrow, {"path 2", "row 3"});
  e.add_path(paths[2]);  // a good path is still accepted
  EXPECT_EQ(e.paths(), 3u);
  EXPECT_THROW(lievi::io::EnsembleSeries(std::vector<std::string>{}), std::invalid_argument);
}
