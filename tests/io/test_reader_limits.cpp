// The scenario reader's limits (docs/scenarios.md "Limits"): regular files only (directories, devices, FIFOs,
// sockets refused before opening), the size limits of scenario and side files, the nesting depth of files and
// of --set values, values and keys quoted at most ~80 characters, numbers shortest round-trip, integer keys
// refusing floats. Each refusal is a lievi::invalid_argument (exit 2) naming the file or "--set".
#include <gtest/gtest.h>

#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "lievi/io/any_scenario.hpp"
#include "lievi/core/error.hpp"
#include "lievi/io/scenario.hpp"
#include "../../src/io/scenario_reader.hpp"  // the reader's limits and shorten_text
#include "lievi/io/wave_scenario.hpp"

namespace fs = std::filesystem;
using lievi::InputIssue;

namespace {

/// A valid rigid-body scenario (100 steps).
const std::string kRigid =
    "[model]\ntype = \"rigid_body\"\ninertia = [1.0, 2.0, 3.0]\nalpha = 0.1\n"
    "[initial]\nomega = [1.0, 0.0, 0.5]\n"
    "[integrator]\nmethod = \"ddb\"\ndt = 0.01\nt_end = 1.0\n";

/// A valid wave scenario (J = 10, 10 steps).
const std::string kWave =
    "[model]\ntype = \"wave\"\n[grid]\nJ = 10\n[integrator]\ndt = 0.01\nt_end = 0.1\n";

fs::path tmp_dir() {
  const fs::path d = fs::path(LIEVI_TEST_TMP_DIR) / "reader_limits";
  fs::create_directories(d);
  return d;
}

fs::path write(const std::string& name, const std::string& text) {
  const fs::path p = tmp_dir() / name;
  std::ofstream(p, std::ios::binary) << text;
  return p;
}

/// The issues of a load that must fail (the test fails if it returns or throws anything else).
template <class F>
std::vector<InputIssue> refusal(F f, const std::string& what) {
  try {
    (void)f();
  } catch (const lievi::invalid_argument& e) {
    return e.issues();
  }
  ADD_FAILURE() << what << ": accepted";
  return {};
}

std::vector<InputIssue> refusal_of_file(const fs::path& p, const std::vector<std::string>& set = {}) {
  return refusal([&] { return lievi::io::load_any_scenario(p, set); }, p.string());
}

std::vector<InputIssue> refusal_of_text(const std::string& text, const std::vector<std::string>& set = {}) {
  return refusal([&] { return lievi::io::parse_any_scenario(text, "s.toml", "s", set); }, "text");
}

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

/// One issue whose formatted line contains every fragment and has at most `max_len` characters.
void expect_one(const std::vector<InputIssue>& issues, const std::vector<std::string>& fragments,
                std::size_t max_len = 400) {
  ASSERT_EQ(issues.size(), 1u);
  const std::string line = issues[0].format();
  for (const auto& f : fragments) EXPECT_TRUE(contains(line, f)) << "missing '" << f << "' in: " << line.substr(0, 500);
  EXPECT_LE(line.size(), max_len) << line.substr(0, 500);
  EXPECT_EQ(line.find('\n'), std::string::npos);
}

}  // namespace

// ---------------------------------------------------------------------------------------------------------------
// 1. Regular files only
// ---------------------------------------------------------------------------------------------------------------

TEST(ReaderLimits, DirectoryIsRefused) {
  const fs::path d = tmp_dir() / "a_folder.toml";
  fs::create_directories(d);
  expect_one(refusal_of_file(d), {d.string(), "is a directory", "a regular file is needed"});
}

TEST(ReaderLimits, CharacterDeviceIsRefusedWithoutReading) {
  // /dev/zero would read forever; the refusal comes from stat() before any read.
  expect_one(refusal_of_file("/dev/zero"), {"/dev/zero", "is a character device", "a regular file is needed"});
}

TEST(ReaderLimits, FifoIsRefusedWithoutOpening) {
  // Opening a FIFO for reading blocks until a writer comes: a hang here is the defect.
  const fs::path f = tmp_dir() / "fifo.toml";
  fs::remove(f);
  ASSERT_EQ(::mkfifo(f.c_str(), 0600), 0);
  expect_one(refusal_of_file(f), {f.string(), "is a FIFO", "a regular file is needed"});
}

TEST(ReaderLimits, SocketIsRefused) {
  const fs::path f = tmp_dir() / "sock.toml";
  fs::remove(f);
  const int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
  ASSERT_GE(fd, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  ASSERT_LT(f.string().size(), sizeof addr.sun_path);
  std::snprintf(addr.sun_path, sizeof addr.sun_path, "%s", f.c_str());
  ASSERT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  expect_one(refusal_of_file(f), {f.string(), "is a socket", "a regular file is needed"});
  ::close(fd);
  fs::remove(f);
}

TEST(ReaderLimits, MissingFileIsRefusedAndSymlinkToRegularFileIsRead) {
  const fs::path missing = tmp_dir() / "no_such.toml";
  fs::remove(missing);
  expect_one(refusal_of_file(missing), {missing.string(), "cannot read the scenario file", "does not exist"});
  const fs::path target = write("target.toml", kRigid), link = tmp_dir() / "link.toml";
  fs::remove(link);
  fs::create_symlink(target, link);
  EXPECT_NO_THROW((void)lievi::io::load_any_scenario(link));
}

TEST(ReaderLimits, SideFileFifoAndDeviceAreRefused) {
  const fs::path f = tmp_dir() / "side_fifo.csv";
  fs::remove(f);
  ASSERT_EQ(::mkfifo(f.c_str(), 0600), 0);
  for (const std::string& side : {f.string(), std::string("/dev/zero"), tmp_dir().string()}) {
    const std::string text = kWave + "[initial]\nshape = \"file\"\nfile = \"" + side + "\"\n";
    const auto issues = refusal_of_text(text);
    ASSERT_EQ(issues.size(), 1u) << side;
    EXPECT_EQ(issues[0].key, "initial.file");
    EXPECT_TRUE(contains(issues[0].message, side)) << issues[0].message;
    EXPECT_TRUE(contains(issues[0].message, "a regular file is needed")) << issues[0].message;
  }
}

// ---------------------------------------------------------------------------------------------------------------
// 2. Size limits
// ---------------------------------------------------------------------------------------------------------------

TEST(ReaderLimits, ScenarioFileOverTheLimitIsRefusedBeforeParsing) {
  // A valid scenario padded with comments to one byte over the limit: refused for its size alone.
  std::string text = kRigid;
  const std::string comment = "# " + std::string(1000, 'x') + "\n";
  while (text.size() + comment.size() <= lievi::io::kMaxScenarioFileBytes) text += comment;
  const fs::path at_limit = write("at_limit.toml", text + std::string(lievi::io::kMaxScenarioFileBytes - text.size() - 1, '#') + "\n");
  ASSERT_EQ(fs::file_size(at_limit), lievi::io::kMaxScenarioFileBytes);
  EXPECT_NO_THROW((void)lievi::io::load_any_scenario(at_limit));
  const fs::path over = write("over_limit.toml", text + std::string(lievi::io::kMaxScenarioFileBytes - text.size(), '#') + "\n");
  ASSERT_EQ(fs::file_size(over), lievi::io::kMaxScenarioFileBytes + 1);
  expect_one(refusal_of_file(over), {over.string(), "16777217 bytes", "limit of 16777216 bytes (16 MiB)"});
  fs::remove(at_limit);
  fs::remove(over);
}

TEST(ReaderLimits, SideFileOverTheLimitIsRefused) {
  // A sparse file of limit + 1 bytes (no disk used): refused by its size before any row is read.
  const fs::path big = tmp_dir() / "big.csv";
  {
    std::ofstream(big, std::ios::binary) << "";
  }
  fs::resize_file(big, lievi::io::kMaxSideFileBytes + 1);
  const auto issues = refusal_of_text(kWave + "[initial]\nshape = \"file\"\nfile = \"" + big.string() + "\"\n");
  ASSERT_EQ(issues.size(), 1u);
  EXPECT_EQ(issues[0].key, "initial.file");
  EXPECT_TRUE(contains(issues[0].message, "268435457 bytes")) << issues[0].message;
  EXPECT_TRUE(contains(issues[0].message, "limit of 268435456 bytes (256 MiB)")) << issues[0].message;
  fs::remove(big);
}

// ---------------------------------------------------------------------------------------------------------------
// 3. Nesting depth
// ---------------------------------------------------------------------------------------------------------------

TEST(ReaderLimits, DeepDottedKeyInFileIsRefusedNotAStackOverflow) {
  std::string key = "model";
  for (int n = 0; n < 100000; ++n) key += ".a";
  expect_one(refusal_of_text(kRigid + key + " = 1\n"), {"s.toml", "line 11", "deeper than 32 levels"});
}

TEST(ReaderLimits, DeepTableHeaderIsRefused) {
  std::string header = "[model";
  for (int n = 0; n < 100000; ++n) header += ".a";
  expect_one(refusal_of_text(kRigid + header + "]\nx = 1\n"), {"s.toml", "line 11", "deeper than 32 levels"});
}

TEST(ReaderLimits, DeepArraysAndInlineTablesInFileAreRefused) {
  const std::string arrays = "x = " + std::string(100000, '[') + std::string(100000, ']') + "\n";
  expect_one(refusal_of_text("[model]\n" + arrays), {"s.toml", "line 2", "deeper than 32 levels"});
  std::string tables = "x = ";
  for (int n = 0; n < 100000; ++n) tables += "{a = ";
  tables += "1" + std::string(100000, '}') + "\n";
  expect_one(refusal_of_text("[model]\n" + tables), {"s.toml", "line 2", "deeper than 32 levels"});
}

TEST(ReaderLimits, DeepArrayInSetIsRefused) {
  const std::string deep = std::string(100000, '[') + std::string(100000, ']');
  const auto issues = refusal_of_text(kRigid, {"model.inertia=" + deep});
  expect_one(issues, {"--set", "model.inertia", "deeper than 32 levels"});
}

TEST(ReaderLimits, NestingAtTheLimitIsParsedAndBracketsInStringsAndCommentsAreNotCounted) {
  // 32 levels: [output] (1) + key x (2) + 30 arrays; the unknown key is then refused by the schema, not the
  // nesting rule. Brackets inside strings and comments do not count.
  const std::string at_limit = "[output]\nx = " + std::string(30, '[') + std::string(30, ']') + "\n";
  const auto issues = refusal_of_text(kRigid + at_limit);
  ASSERT_EQ(issues.size(), 1u);
  EXPECT_TRUE(contains(issues[0].message, "unknown key")) << issues[0].message;
  const std::string quoted = "# " + std::string(100, '[') + "\n" + kRigid + "[output]\nevery = 1 # " +
                             std::string(100, '{') + "\n";
  EXPECT_NO_THROW((void)lievi::io::parse_any_scenario(quoted, "s.toml", "s"));
  const auto str = refusal_of_text(kRigid + "[output]\nplots = \"" + std::string(100, '[') + "\"\n");
  ASSERT_EQ(str.size(), 1u);
  EXPECT_EQ(str[0].key, "output.plots");
}

// ---------------------------------------------------------------------------------------------------------------
// 4. Quoted values and keys are shortened
// ---------------------------------------------------------------------------------------------------------------

TEST(ReaderLimits, HugeStringValueIsQuotedShort) {
  // 10 MB: under the file limit, so the value itself reaches the type check
  const std::string value(10'000'000, 'v');
  const auto issues = refusal_of_text(kRigid + "[output]\nplots = \"" + value + "\"\n");
  expect_one(issues, {"s.toml", "output.plots", "10000002 characters", "boolean"}, 200);
}

TEST(ReaderLimits, HugeUnknownKeyIsQuotedShort) {
  const std::string key(1'000'000, 'k');
  expect_one(refusal_of_text(kRigid + "[output]\n" + key + " = 1\n"), {"s.toml", "1000007 characters", "unknown key"},
             400);
  expect_one(refusal_of_text(kRigid, {"output." + key + "=1"}), {"--set", "1000007 characters", "unknown key"}, 400);
}

TEST(ReaderLimits, HugeSetValueIsQuotedShort) {
  const std::string value(1'000'000, '9');
  expect_one(refusal_of_text(kRigid, {"integrator.dt=x" + value}), {"--set", "1000001 characters", "a number"},
             250);
  expect_one(refusal_of_text(kRigid, {"integrator.method=" + value}), {"--set", "1000002 characters"}, 600);  // the quotes count
}

TEST(ReaderLimits, ShortenTextKeepsShortTextAndCountsUtf8Characters) {
  EXPECT_EQ(lievi::io::shorten_text(std::string(80, 'a')), std::string(80, 'a'));
  EXPECT_EQ(lievi::io::shorten_text(std::string(81, 'a')), std::string(60, 'a') + "\u2026 (81 characters)");
  // 81 two-byte characters: 60 kept whole, 81 counted
  std::string e;
  for (int n = 0; n < 81; ++n) e += "\u00e9";
  std::string kept;
  for (int n = 0; n < 60; ++n) kept += "\u00e9";
  EXPECT_EQ(lievi::io::shorten_text(e), kept + "\u2026 (81 characters)");
}

// ---------------------------------------------------------------------------------------------------------------
// 5. Numbers shortest round-trip
// ---------------------------------------------------------------------------------------------------------------

TEST(ReaderLimits, NumbersInMessagesAreShortestRoundTrip) {
  EXPECT_EQ(lievi::io::format_number(0.1), "0.1");
  EXPECT_EQ(lievi::io::format_number(0.1 + 0.2), "0.30000000000000004");  // the shortest text of that double
  EXPECT_EQ(lievi::io::format_number(2.0, true), "2.0");
  // dt = 0.07 does not divide t_end = 0.3: the message prints 0.07 and 0.3 as written
  const auto issues = refusal_of_text(kRigid, {"integrator.dt=0.07", "integrator.t_end=0.3"});
  expect_one(issues, {"value 0.07 does not divide t_end = 0.3 into"});
}

// ---------------------------------------------------------------------------------------------------------------
// 6. Integer keys
// ---------------------------------------------------------------------------------------------------------------

TEST(ReaderLimits, IntegerKeyRefusesAFloatInTheFile) {
  expect_one(refusal_of_text(kRigid + "[output]\nevery = 2.0\n"),
             {"s.toml", "output.every", "must be an integer, got the float 2.0"});
  expect_one(refusal_of_text(kWave + "[noise]\nseed = 1e3\n"),
             {"s.toml", "noise.seed", "must be an integer, got the float 1000.0"});
}

TEST(ReaderLimits, IntegerKeyInSet) {
  for (const std::string bad : {"2.0", "2e3", "99999999999999999999", "-99999999999999999999"})
    expect_one(refusal_of_text(kRigid, {"output.every=" + bad}), {"--set", "output.every", bad, "an integer"});
  const auto s = lievi::io::parse_any_scenario(kRigid, "s.toml", "s", {"output.every=2"});
  EXPECT_EQ(std::get<lievi::io::RigidBodyScenario>(s).every, 2);
}

TEST(ReaderLimits, ManyIssuesAreListedFirstHundredThenCounted) {
  std::string text = kRigid;
  for (int n = 0; n < 1000; ++n) text += "[unknown" + std::to_string(n) + "]\nk = 1\n";
  const auto issues = refusal_of_text(text);
  ASSERT_EQ(issues.size(), 101u);
  EXPECT_EQ(issues.back().message, "and 900 more issues (the first 100 are listed)");
}
