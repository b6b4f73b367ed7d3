/// @file tests/xdmf/test_fields_xdmf.cpp
/// @brief The files ParaView opens. fields.xdmf (lievi/io/fields_xdmf.hpp): the layouts and the text
/// in-process, the refusal of layouts that do not fit, and `lievi run` outputs of beams (open, ring, shifted
/// period) and waves checked by xdmf_check.py, which evaluates the XDMF description with xml.etree and h5py
/// and compares every value it selects with what fields.h5 holds at that snapshot (docs/outputs.md), bit for
/// bit. The .vtp polylines (lievi/io/vtk.hpp), binary and ASCII, decoded by the same script.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <limits>
#include <nlohmann/json.hpp>
#include <span>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "lievi/io/fields_h5.hpp"
#include "lievi/io/fields_xdmf.hpp"
#include "lievi/io/vtk.hpp"
#include "support/cli_process.hpp"

namespace fs = std::filesystem;
using lievi::io::XdmfLayout;
using lievi::test::fresh_dir;
using lievi::test::read_file;
using nlohmann::json;

namespace {

const fs::path tmp = fs::path(LIEVI_TEST_TMP_DIR) / "xdmf";
const std::string examples = std::string(LIEVI_TEST_SOURCE_DIR) + "/examples/";

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + what.size())) ++n;
  return n;
}

/// `what()` of the std::invalid_argument that `f` throws ("" when it throws none).
template <class F>
std::string refusal(F&& f) {
  try {
    f();
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

std::string python() {
  const char* env = std::getenv("LIEVI_TEST_PYTHON");
  return env && *env ? env : LIEVI_TEST_PYTHON;
}

#define REQUIRE_PYTHON() \
  if (!fs::exists(python())) GTEST_SKIP() << python() << " not found"

/// `lievi run SCENARIO --out cwd/out --set output.plots=false [--set ...]`; expects exit 0.
fs::path run(const fs::path& cwd, const std::string& scenario, const std::vector<std::string>& set) {
  std::vector<std::string> args = {"run", examples + scenario, "--out", "out", "--set", "output.plots=false"};
  for (const auto& s : set) args.insert(args.end(), {"--set", s});
  const auto r = lievi::test::run_program(LIEVI_CLI_PATH, cwd, args);
  EXPECT_EQ(r.code, 0) << r.err;
  return cwd / "out";
}

/// xdmf_check.py with `args`, run beside `dir`; its JSON output (null after a failure, which is reported).
json script(const fs::path& dir, std::vector<std::string> args) {
  args.insert(args.begin(), std::string(LIEVI_TEST_DIR) + "/xdmf_check.py");
  const auto r = lievi::test::run_program(python(), dir.parent_path(), args);
  if (r.code != 0) {
    ADD_FAILURE() << "xdmf_check.py " << dir << " exited " << r.code << "\n" << r.err;
    return json();
  }
  return json::parse(r.out);
}

/// The check of a run folder's fields.xdmf (and with `pvd` its beam.pvd) against its fields.h5.
json check(const fs::path& dir, std::size_t segments, bool pvd = false) {
  std::vector<std::string> args = {"xdmf", dir.string(), "--segments", std::to_string(segments)};
  if (pvd) args.push_back("--pvd");
  return script(dir, args);
}

}  // namespace

TEST(FieldsXdmf, BeamLayout) {
  const XdmfLayout open = lievi::io::beam_fields_xdmf(5, 4, false);
  EXPECT_EQ(open.n_nodes, 5u);
  EXPECT_EQ(open.n_segments, 4u);
  EXPECT_EQ(open.positions, "p");
  std::vector<std::string> names;
  for (const auto& a : open.arrays) names.push_back(a.name);
  EXPECT_EQ(names, (std::vector<std::string>{"d1", "d2", "d3", "omega", "v", "kappa", "Gamma"}));
  EXPECT_EQ(open.arrays[1].start, (std::vector<std::size_t>{0, 1}));  // d2: column 1 of R_j
  EXPECT_EQ(open.arrays[1].count, (std::vector<std::size_t>{3, 1}));
  EXPECT_TRUE(open.arrays[5].on_segments);
  // periodic: a ring draws all its segments, a shifted period leaves the last one (its ends are a shift
  // apart)
  EXPECT_EQ(lievi::io::beam_fields_xdmf(5, 5, true).n_segments, 5u);
  EXPECT_EQ(lievi::io::beam_fields_xdmf(5, 5, false).n_segments, 4u);
  // one node (a single cell): no segments, no strains
  const XdmfLayout one = lievi::io::beam_fields_xdmf(1, 0, false);
  EXPECT_EQ(one.n_segments, 0u);
  EXPECT_EQ(one.arrays.size(), 5u);
  const XdmfLayout wave = lievi::io::wave_fields_xdmf(7);
  EXPECT_TRUE(wave.positions.empty());
  EXPECT_EQ(wave.n_segments, 6u);
  ASSERT_EQ(wave.arrays.size(), 1u);
  EXPECT_EQ(wave.arrays[0].name, "phi");
}

TEST(FieldsXdmf, TextOfARing) {
  const std::vector<double> t = {0.0, 0.1, 1.0 / 3.0};
  const std::string x = lievi::io::fields_xdmf_text(lievi::io::beam_fields_xdmf(4, 4, true), "fields.h5", t);
  EXPECT_EQ(x.rfind("<?xml version=\"1.0\" ?>\n", 0), 0u);
  EXPECT_NE(x.find("<Xdmf Version=\"2.0\" xmlns:xi=\"http://www.w3.org/2001/XInclude\">"), std::string::npos);
  EXPECT_EQ(count(x, "<Grid Name=\"beam_"), 3u);
  EXPECT_EQ(count(x, "CollectionType=\"Temporal\""), 1u);
  // times in shortest round-trip form
  EXPECT_NE(x.find("<Time Value=\"0.1\"/>"), std::string::npos);
  EXPECT_NE(x.find("<Time Value=\"0.3333333333333333\"/>"), std::string::npos);
  EXPECT_EQ(std::strtod("0.3333333333333333", nullptr), 1.0 / 3.0);
  // the ring's segments, once, the last joining node 3 to node 0; every grid includes them (XInclude: the
  // XDMF 3 readers abort on XDMF 2's Reference items)
  EXPECT_NE(x.find("Dimensions=\"4 2\" NumberType=\"Int\" Format=\"XML\">0 1 1 2 2 3 3 0</DataItem>"),
            std::string::npos);
  EXPECT_EQ(
      count(x,
            "<DataItem ItemType=\"Function\" Function=\"$0\" Format=\"XML\" Dimensions=\"4 2\"><xi:include "
            "xpointer=\"xpointer(/Xdmf/Domain/DataItem[@Name='segments'])\"/></DataItem>"),
      3u);
  EXPECT_EQ(x.find("Reference"), std::string::npos);
  // d2 of snapshot 2: start (2, 0, 0, 1), count (1, 4, 3, 1) in R[3, 4, 3, 3]
  EXPECT_NE(
      x.find(
          "<Attribute Name=\"d2\" AttributeType=\"Vector\" Center=\"Node\"><DataItem ItemType=\"HyperSlab\" "
          "Format=\"XML\" Dimensions=\"4 3\"><DataItem Dimensions=\"3 4\" Format=\"XML\">2 0 0 1  1 1 1 1  1 "
          "4 3 1</DataItem>"
          "<DataItem Dimensions=\"3 4 3 3\" NumberType=\"Float\" Precision=\"8\" Format=\"HDF\">fields.h5:/R"
          "</DataItem></DataItem></Attribute>"),
      std::string::npos);
  // Gamma of snapshot 0: cell data, components 3..5 of gamma[3, 4, 6]
  EXPECT_NE(x.find("<Attribute Name=\"Gamma\" AttributeType=\"Vector\" Center=\"Cell\"><DataItem "
                   "ItemType=\"HyperSlab\" "
                   "Format=\"XML\" Dimensions=\"4 3\"><DataItem Dimensions=\"3 3\" Format=\"XML\">0 0 3  1 1 "
                   "1  1 4 3</DataItem>"),
            std::string::npos);
  // no text between a HyperSlab or Function and its first child: ParaView's legacy reader would take the text
  // for a file name and reuse the first snapshot's points at every time step. 3 grids x (p, d1..3, omega, v,
  // kappa, Gamma) HyperSlabs, every one followed by its selection.
  EXPECT_EQ(
      count(x,
            "<DataItem ItemType=\"HyperSlab\" Format=\"XML\" Dimensions=\"4 3\"><DataItem Dimensions=\"3 "),
      24u);
  EXPECT_EQ(count(x, "<DataItem ItemType=\"HyperSlab\""), 24u);
}

TEST(FieldsXdmf, TextOfAWaveAndOfNoSegments) {
  const std::vector<double> t = {0.0, 0.5};
  const std::string w = lievi::io::fields_xdmf_text(lievi::io::wave_fields_xdmf(3), "f.h5", t);
  EXPECT_NE(
      w.find(
          "<Geometry GeometryType=\"X_Y_Z\"><DataItem Dimensions=\"3\" NumberType=\"Float\" Precision=\"8\" "
          "Format=\"HDF\">f.h5:/s</DataItem>"),
      std::string::npos);
  EXPECT_EQ(count(w, "<xi:include xpointer=\"xpointer(/Xdmf/Domain/DataItem[@Name='zeros'])\"/>"), 4u);
  EXPECT_NE(
      w.find(
          "<DataItem Name=\"zeros\" Dimensions=\"3\" NumberType=\"Float\" Format=\"XML\">0 0 0</DataItem>"),
      std::string::npos);
  EXPECT_NE(
      w.find(
          "<Attribute Name=\"phi\" AttributeType=\"Scalar\" Center=\"Node\"><DataItem ItemType=\"HyperSlab\" "
          "Format=\"XML\" Dimensions=\"3\"><DataItem Dimensions=\"3 2\" Format=\"XML\">1 0  1 1  1 "
          "3</DataItem>"),
      std::string::npos);
  const std::string one =
      lievi::io::fields_xdmf_text(lievi::io::beam_fields_xdmf(1, 0, false), "fields.h5", t);
  EXPECT_EQ(
      count(one, "<Topology TopologyType=\"Polyvertex\" NodesPerElement=\"1\" NumberOfElements=\"1\"/>"), 2u);
  EXPECT_EQ(one.find("segments"), std::string::npos);
  EXPECT_EQ(one.find("kappa"), std::string::npos);
}

TEST(FieldsXdmf, LayoutsThatDoNotFitAreRefused) {
  const std::vector<double> t = {0.0};
  auto text = [&](const XdmfLayout& L) { return lievi::io::fields_xdmf_text(L, "fields.h5", t); };
  const XdmfLayout good = lievi::io::beam_fields_xdmf(4, 3, false);
  EXPECT_EQ(refusal([&] { (void)text(good); }), "");
  EXPECT_NE(refusal([&] { (void)lievi::io::fields_xdmf_text(good, "fields.h5", {}); }).find("no snapshots"),
            std::string::npos);
  XdmfLayout L = good;
  L.n_nodes = 0;
  EXPECT_NE(refusal([&] { (void)text(L); }).find("no nodes"), std::string::npos);
  L = good;
  L.n_segments = 5;
  EXPECT_NE(refusal([&] { (void)text(L); }).find("5 segments for 4 nodes"), std::string::npos);
  L = good;
  L.arrays[0].start = {1, 0};  // rows 1..3 of a 3-row frame
  EXPECT_NE(refusal([&] {
              (void)text(L);
            }).find("array d1 (dataset R): the block start {1 0} count {3 1} is outside"),
            std::string::npos);
  L = good;
  L.arrays[0].count = {3, 2};
  EXPECT_NE(refusal([&] { (void)text(L); }).find("a block of 6 values"), std::string::npos);
  L = good;
  L.arrays[0].start = {0};
  EXPECT_NE(refusal([&] { (void)text(L); }).find("one entry per component axis"), std::string::npos);
  L = good;
  L.arrays[5].shape = {2, 6};  // kappa: 2 items for 3 segments
  EXPECT_NE(refusal([&] { (void)text(L); }).find("2 items for 3 segments"), std::string::npos);
  L = good;
  L.arrays[1].name = "d1";
  EXPECT_NE(refusal([&] { (void)text(L); }).find("array d1 given twice"), std::string::npos);
  L = good;
  L.arrays[0].dataset = "R\"/>";
  EXPECT_NE(refusal([&] { (void)text(L); }).find("outside [A-Za-z0-9_]"), std::string::npos);
  L = good;
  L.positions = "";
  L.name = "";
  EXPECT_NE(refusal([&] { (void)text(L); }).find("empty collection name"), std::string::npos);
}

// write_fields_xdmf reads /t from fields.h5: nothing is written for a file without snapshots, and the XDMF
// file must sit beside the HDF5 file it names relatively.
TEST(FieldsXdmf, WriteReadsTheTimesOfFieldsH5) {
  const fs::path dir = fresh_dir(tmp, "write");
  const std::vector<double> s = {0.0, 0.5, 1.0};
  const XdmfLayout L = lievi::io::wave_fields_xdmf(3);
  {
    lievi::io::FieldsH5Writer w(dir / "empty.h5", s, {{"phi", {3}, {}, "phi"}}, "wave");
    w.close();
  }
  EXPECT_FALSE(lievi::io::write_fields_xdmf(dir / "empty.xdmf", dir / "empty.h5", L));
  EXPECT_FALSE(fs::exists(dir / "empty.xdmf"));
  {
    lievi::io::FieldsH5Writer w(dir / "two.h5", s, {{"phi", {3}, {}, "phi"}}, "wave");
    const std::vector<double> phi = {1, 2, 3};
    const std::span<const double> f[] = {phi};
    w.append(0.25, f);
    w.append(0.1 + 0.2, f);
    w.close();
  }
  ASSERT_TRUE(lievi::io::write_fields_xdmf(dir / "two.xdmf", dir / "two.h5", L));
  const std::string x = read_file(dir / "two.xdmf");
  EXPECT_NE(x.find("<Time Value=\"0.25\"/>"), std::string::npos);
  EXPECT_NE(x.find("<Time Value=\"0.30000000000000004\"/>"), std::string::npos);
  EXPECT_NE(x.find(">two.h5:/phi</DataItem>"), std::string::npos);
  fs::create_directories(dir / "sub");
  EXPECT_NE(refusal([&] {
              (void)lievi::io::write_fields_xdmf(dir / "sub" / "x.xdmf", dir / "two.h5", L);
            }).find("must be in the same folder"),
            std::string::npos);
  EXPECT_THROW((void)lievi::io::write_fields_xdmf(dir / "x.xdmf", dir / "missing.h5", L), std::runtime_error);
}

// The flying spaghetti: fields.xdmf beside fields.h5, listed in the folder's marker, every value it selects
// equal to fields.h5's; without fields.h5 there is none (and beam.pvd stays).
TEST(XdmfRuns, Beam) {
  REQUIRE_PYTHON();
  const fs::path cwd = fresh_dir(tmp, "beam");
  const fs::path out =
      run(cwd, "beam/flying_spaghetti.toml", {"integrator.t_end=0.5", "output.fields_every=50"});
  ASSERT_TRUE(fs::exists(out / "fields.xdmf"));
  const json j = check(out, 20, true);
  EXPECT_EQ(j["model"], "beam");
  EXPECT_EQ(j["pvd_files"], 11);  // beam.pvd and its .vtp files (binary) hold the same snapshots
  EXPECT_EQ(j["vtp_format"], "binary");
  EXPECT_EQ(j["grids"], 11);
  EXPECT_EQ(j["nodes"], 21);
  EXPECT_EQ(j["arrays"], json::array({"Gamma", "d1", "d2", "d3", "kappa", "omega", "v"}));
  EXPECT_EQ(j["hdf_items"], 11 * 8);
  const json marker = json::parse(read_file(out / ".lievi-output"));
  EXPECT_NE(std::find(marker["entries"].begin(), marker["entries"].end(), "fields.xdmf"),
            marker["entries"].end())
      << marker.dump();
  EXPECT_TRUE(fs::exists(out / "beam.pvd"));

  const fs::path none = run(fresh_dir(tmp, "beam-no-fields"), "beam/flying_spaghetti.toml",
                            {"integrator.t_end=0.01", "output.fields=false"});
  EXPECT_FALSE(fs::exists(none / "fields.h5"));
  EXPECT_FALSE(fs::exists(none / "fields.xdmf"));
  EXPECT_TRUE(fs::exists(none / "beam.pvd"));
}

// Periodic beams: the ring (bc.shift = 0) is a closed polyline of J segments; the straight periodic beam
// (shift = its length along it) shows J - 1, without the segment that would join its ends across the period.
TEST(XdmfRuns, PeriodicBeams) {
  REQUIRE_PYTHON();
  const json ring = check(run(fresh_dir(tmp, "ring"), "beam/ring.toml", {"integrator.t_end=0.01"}), 40);
  EXPECT_EQ(ring["nodes"], 40);
  EXPECT_EQ(ring["segments"], 40);
  const json shifted = check(run(fresh_dir(tmp, "shifted"), "beam/flying_spaghetti.toml",
                                 {"integrator.t_end=0.02", "bc.left=periodic", "bc.right=periodic"}),
                             19);
  EXPECT_EQ(shifted["nodes"], 20);
  EXPECT_EQ(shifted["arrays"], json::array({"Gamma", "d1", "d2", "d3", "kappa", "omega", "v"}));
}

// The wave: nodes at (s, 0, 0), phi as point data, one grid per snapshot.
TEST(XdmfRuns, Wave) {
  REQUIRE_PYTHON();
  const fs::path out = run(fresh_dir(tmp, "wave"), "wave/deterministic.toml", {"integrator.t_end=0.5"});
  const json j = check(out, 99);
  EXPECT_EQ(j["model"], "wave");
  EXPECT_EQ(j["grids"], 51);
  EXPECT_EQ(j["nodes"], 100);
  EXPECT_EQ(j["arrays"], json::array({"phi"}));
}

// Ensembles write no fields.h5, so no fields.xdmf either.
TEST(XdmfRuns, EnsemblesWriteNone) {
  for (const auto& [scenario, name] :
       {std::pair<std::string, std::string>{"beam/stochastic_spaghetti.toml", "beam-paths"},
        {"wave/theta_1e-2.toml", "wave-paths"}}) {
    const fs::path cwd = fresh_dir(tmp, name);
    const auto r =
        lievi::test::run_program(LIEVI_CLI_PATH, cwd,
                                 {"run", examples + scenario, "--out", "out", "--paths", "2", "--set",
                                  "output.plots=false", "--set", "integrator.t_end=0.05"});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_FALSE(fs::exists(cwd / "out" / "fields.h5")) << scenario;
    EXPECT_FALSE(fs::exists(cwd / "out" / "fields.xdmf")) << scenario;
  }
}

// A .vtp polyline holds its numbers bitwise in both encodings (decoded by xdmf_check.py: base64 and the
// UInt64 byte count for binary, NumPy's text parsing for ASCII): zeros, subnormals, infinities, a NaN, the
// largest doubles.
TEST(Vtk, BinaryAndAsciiHoldTheValuesBitwise) {
  REQUIRE_PYTHON();
  const fs::path dir = fresh_dir(tmp, "vtp");
  const double inf = std::numeric_limits<double>::infinity();
  const std::vector<double> points = {0.0,
                                      -0.0,
                                      0.1,
                                      1.0 / 3.0,
                                      1e308,
                                      -2.5e-310,
                                      std::numeric_limits<double>::denorm_min(),
                                      inf,
                                      -inf,
                                      6.02214076e23,
                                      std::nextafter(1.0, 2.0),
                                      -7.0};
  const std::vector<double> d = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12.5};
  const std::vector<double> nan = {std::numeric_limits<double>::quiet_NaN(), 0, 0, 0};
  for (auto enc : {lievi::io::VtkEncoding::binary, lievi::io::VtkEncoding::ascii}) {
    const std::string name = enc == lievi::io::VtkEncoding::binary ? "binary" : "ascii";
    lievi::io::write_vtp_polyline(dir / (name + ".vtp"), points, {{"d1", 3, d}, {"phi", 1, nan}}, enc);
    const json j = script(dir, {"vtp", (dir / (name + ".vtp")).string()});
    auto bits = [](const std::vector<double>& v) {
      std::vector<std::uint64_t> b;
      for (double x : v) b.push_back(std::bit_cast<std::uint64_t>(x));
      return b;
    };
    EXPECT_EQ(j["Points"]["components"], 3) << name;
    EXPECT_EQ(j["Points"]["bits"].get<std::vector<std::uint64_t>>(), bits(points)) << name;
    EXPECT_EQ(j["d1"]["bits"].get<std::vector<std::uint64_t>>(), bits(d)) << name;
    EXPECT_EQ(j["phi"]["components"], 1) << name;
    EXPECT_EQ(j["phi"]["bits"].get<std::vector<std::uint64_t>>(), bits(nan)) << name;
    EXPECT_EQ(j["connectivity"]["bits"].get<std::vector<std::uint64_t>>(),
              (std::vector<std::uint64_t>{0, 1, 2, 3}))
        << name;
    EXPECT_EQ(j["offsets"]["bits"].get<std::vector<std::uint64_t>>(), (std::vector<std::uint64_t>{4}))
        << name;
  }
  EXPECT_THROW(lievi::io::write_vtp_polyline(dir / "bad.vtp", points, {{"d1", 3, nan}}), std::runtime_error);
  EXPECT_FALSE(fs::exists(dir / "bad.vtp"));
}
