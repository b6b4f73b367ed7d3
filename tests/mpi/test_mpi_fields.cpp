/// @file tests/mpi/test_mpi_fields.cpp
/// @brief One wave or beam field split across MPI ranks (domain decomposition): `mpirun -np R lievi run FILE`
/// writes series.csv, fields.h5, the beam's ParaView files and summary.json (timing apart) bit for bit as the
/// run without MPI: the wave for R = 2, 3, 4 with free, clamped and periodic ends, every noise mode, Type-I and
/// Type-II and the approx variant, and a block boundary at every node of a small grid (LIEVI_TEST_DD_CUTS);
/// the beam for R = 2, 3 with every kind of end, variant, retraction, method and noise mode, damping and a
/// point load on a block boundary; a blow-up reported with the serial run's step and node on every rank; what
/// is not split refused (the rigid body, checkpoints).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "lievi/io/fields_h5.hpp"
#include "support/cli_process.hpp"
#include "support/ensemble_outputs.hpp"
#include "support/mpi_process.hpp"

namespace fs = std::filesystem;

namespace {

using Result = lievi::test::CliResult;
using lievi::test::read_file;

const std::string kExamples = std::string(LIEVI_TEST_SOURCE_DIR) + "/examples/";

using lievi::test::lievi_cli;

/// Under mpirun with one thread per rank.
Result mpirun(const fs::path& cwd, int ranks, const std::vector<std::string>& args, const std::string& env = "") {
  return lievi::test::mpirun(cwd, ranks, args, "OMP_NUM_THREADS=1 " + env);
}

using lievi::test::with;

/// series.csv byte for byte, summary.json apart from timing, every fields.h5 dataset bit for bit, and a
/// beam's ParaView files byte for byte.
void expect_same_run(const fs::path& a, const fs::path& b, const std::string& what) {
  ASSERT_TRUE(fs::exists(b / "summary.json")) << what;
  EXPECT_EQ(read_file(a / "series.csv"), read_file(b / "series.csv")) << what;
  EXPECT_EQ(lievi::test::summary_without_timing(a), lievi::test::summary_without_timing(b)) << what;
  for (const auto& e : fs::directory_iterator(a)) {
    const std::string f = e.path().filename().string();
    if (f == "beam.pvd" || (f.rfind("beam_", 0) == 0 && e.path().extension() == ".vtp")) {
      EXPECT_EQ(read_file(e.path()), read_file(b / f)) << what << " " << f;
    }
  }
  ASSERT_EQ(fs::exists(a / "fields.h5"), fs::exists(b / "fields.h5")) << what;
  if (!fs::exists(a / "fields.h5")) return;
  const bool beam = lievi::test::summary_without_timing(a)["scenario"]["model"]["type"] == "beam";
  const std::vector<const char*> names = beam ? std::vector<const char*>{"t", "s", "R", "p", "zeta", "gamma"}
                                              : std::vector<const char*>{"t", "s", "phi"};
  for (const char* name : names) {
    const lievi::io::H5Array x = lievi::io::read_h5_dataset(a / "fields.h5", name);
    const lievi::io::H5Array y = lievi::io::read_h5_dataset(b / "fields.h5", name);
    ASSERT_EQ(x.shape, y.shape) << what << " /" << name;
    EXPECT_EQ(0, std::memcmp(x.data.data(), y.data.data(), x.data.size() * sizeof(double))) << what << " /" << name;
  }
}

}  // namespace

TEST(MpiFields, AWaveSplitOverAnyNumberOfRanksIsTheSerialRun) {
  const fs::path d = lievi::test::fresh_dir(LIEVI_TEST_TMP_DIR, "mpi_fields");
  struct Case {
    const char* example;
    std::vector<std::string> sets;
  };
  const Case cases[] = {
      {"deterministic", {}},
      {"deterministic", {"bc.left=\"clamped\"", "bc.right=\"clamped\"", "grid.layout=\"vertex\""}},
      {"deterministic", {"bc.left=\"periodic\"", "bc.right=\"periodic\""}},
      {"theta_1e-2", {}},                                               // common noise
      {"independent", {}},                                              // independent noise
      {"independent", {"integrator.method=\"type-ii\""}},
      {"independent", {"bc.left=\"periodic\"", "bc.right=\"periodic\"", "integrator.variant=\"approx\""}},
      {"deterministic", {"noise.mode=\"modes\"", "noise.cosine_modes=4", "noise.theta=0.01"}},
      {"pulse", {}}};
  int i = 0;
  for (const Case& c : cases) {
    const fs::path m = d / std::to_string(i++);
    fs::create_directories(m);
    std::vector<std::string> sets = {"output.plots=false", "integrator.t_end=0.02", "output.every=7",
                                     "output.fields_every=11"};
    sets.insert(sets.end(), c.sets.begin(), c.sets.end());
    const std::string scenario = kExamples + "wave/" + c.example + ".toml";
    const Result serial = lievi_cli(m, with({"run", scenario, "--out", "serial"}, sets));
    ASSERT_EQ(serial.code, 0) << c.example << serial.err;
    for (const int ranks : {2, 3, 4}) {
      const std::string out = "r" + std::to_string(ranks);
      const Result r = mpirun(m, ranks, with({"run", scenario, "--out", out}, sets));
      ASSERT_EQ(r.code, 0) << c.example << " " << out << "\n" << r.out << r.err;
      EXPECT_NE(r.out.find("across " + std::to_string(ranks) + " ranks"), std::string::npos) << r.out;
      expect_same_run(m / "serial", m / out, std::string(c.example) + " case " + std::to_string(i - 1) + " " + out);
    }
  }
}

// A grid of 9 nodes: the boundary between two blocks at every node 1 ... 8, and three blocks cut at every
// pair, free and periodic ends, independent noise.
TEST(MpiFields, ABlockBoundaryAtEveryNodeOfASmallGrid) {
  const fs::path d = lievi::test::fresh_dir(LIEVI_TEST_TMP_DIR, "mpi_cuts");
  for (const char* ends : {"free", "periodic"}) {
    const std::vector<std::string> sets = {"output.plots=false", "grid.J=9", "integrator.dt=1e-3",
                                           "integrator.t_end=0.2", "output.every=3", "output.fields_every=5",
                                           std::string("bc.left=\"") + ends + "\"", std::string("bc.right=\"") + ends + "\""};
    const std::string scenario = kExamples + "wave/independent.toml";
    const fs::path m = d / ends;
    fs::create_directories(m);
    const Result serial = lievi_cli(m, with({"run", scenario, "--out", "serial"}, sets));
    ASSERT_EQ(serial.code, 0) << serial.err;
    for (int c = 1; c < 9; ++c) {
      const std::string out = "cut" + std::to_string(c);
      const Result r = mpirun(m, 2, with({"run", scenario, "--out", out}, sets), "LIEVI_TEST_DD_CUTS=" + std::to_string(c));
      ASSERT_EQ(r.code, 0) << out << r.err;
      expect_same_run(m / "serial", m / out, std::string(ends) + " " + out);
    }
    for (int a = 1; a < 8; a += 2)
      for (int b = a + 1; b < 9; b += 3) {
        const std::string out = "cut" + std::to_string(a) + "_" + std::to_string(b);
        const Result r = mpirun(m, 3, with({"run", scenario, "--out", out}, sets),
                                "LIEVI_TEST_DD_CUTS=" + std::to_string(a) + "," + std::to_string(b));
        ASSERT_EQ(r.code, 0) << out << r.err;
        expect_same_run(m / "serial", m / out, std::string(ends) + " " + out);
      }
  }
}

// Past the CFL limit the field blows up: every rank stops at the serial run's step with its node (the first
// non-finite node in node order, agreed by all blocks), exit 3, the outputs up to the last good level kept.
TEST(MpiFields, ABlowUpStopsEveryRankWithTheSerialDiagnostic) {
  const fs::path d = lievi::test::fresh_dir(LIEVI_TEST_TMP_DIR, "mpi_blowup");
  const std::vector<std::string> sets = {"output.plots=false", "integrator.dt=0.0125", "integrator.allow_unstable=true",
                                         "integrator.t_end=40", "output.every=10"};
  const std::string scenario = kExamples + "wave/independent.toml";
  const Result serial = lievi_cli(d, with({"run", scenario, "--out", "serial"}, sets));
  ASSERT_EQ(serial.code, 3) << serial.out << serial.err;
  const Result r = mpirun(d, 3, with({"run", scenario, "--out", "mpi"}, sets));
  EXPECT_EQ(r.code, 3) << r.out << r.err;
  const auto line = [](const std::string& err) { return err.substr(0, err.find(". Outputs")); };
  EXPECT_EQ(line(serial.err), line(r.err).substr(0, line(serial.err).size()));
  expect_same_run(d / "serial", d / "mpi", "blow-up");
}

// A beam's local Newton solve failing (the whip at 8x its dt, four iterations allowed: it fails at node 1 in
// step 5): every rank stops with the serial run's step, node and residual, whether the node is inside block 0
// or the first node of block 1 (solved before the other nodes, while its configuration travels to block 0),
// and the blocks that did not fail still take part in the step's exchanges.
TEST(MpiFields, ANewtonFailureOnAnyBlockStopsEveryRankWithTheSerialDiagnostic) {
  const fs::path d = lievi::test::fresh_dir(LIEVI_TEST_TMP_DIR, "mpi_newton");
  const std::vector<std::string> sets = {"output.plots=false", "integrator.dt=0.0016", "integrator.allow_unstable=true",
                                         "integrator.newton_maxit=4", "output.every=2"};
  const std::string scenario = kExamples + "beam/whip.toml";
  const Result serial = lievi_cli(d, with({"run", scenario, "--out", "serial"}, sets));
  ASSERT_EQ(serial.code, 3) << serial.out << serial.err;
  ASSERT_NE(serial.err.find("did not converge in 4 iterations at node 1 "), std::string::npos) << serial.err;
  const auto line = [](const std::string& err) { return err.substr(0, err.find(". Outputs")); };
  for (const std::string cuts : {"", "1,5", "1,2"}) {
    std::string out = "mpi_" + cuts;
    std::replace(out.begin(), out.end(), ',', '_');
    const Result r = mpirun(d, 3, with({"run", scenario, "--out", out}, sets),
                            cuts.empty() ? "" : "LIEVI_TEST_DD_CUTS=" + cuts);
    EXPECT_EQ(r.code, 3) << cuts << r.out << r.err;
    EXPECT_EQ(line(serial.err), line(r.err).substr(0, line(serial.err).size())) << cuts;
    expect_same_run(d / "serial", d / out, "newton failure, cuts " + cuts);
  }
}

// The beam split over R = 2, 3 ranks: clamped, prescribed (a pose table), periodic and free ends, exact and
// approx, Cayley and exp, Type-I and Type-II, every noise mode, damping, a point load (flying spaghetti's, at
// node 0, with the boundary between two blocks right after it, and on a one-node last block).
TEST(MpiFields, ABeamSplitOverRanksIsTheSerialRun) {
  const fs::path d = lievi::test::fresh_dir(LIEVI_TEST_TMP_DIR, "mpi_beam");
  struct Case {
    const char* example;
    std::vector<std::string> sets;
    std::string cuts;  // for R = 2, "" for the even split
  };
  const Case cases[] = {{"bending", {}, ""},
                        {"whip", {}, ""},
                        {"ring", {}, ""},
                        {"stochastic_bending", {}, ""},
                        {"stochastic_bending", {"noise.mode=\"independent\""}, ""},
                        {"stochastic_bending_modes", {"integrator.retraction=\"exp\""}, ""},
                        {"damped_cantilever", {"integrator.variant=\"approx\""}, ""},
                        {"flying_spaghetti", {"integrator.method=\"type-ii\""}, "1"},
                        {"flying_spaghetti", {}, "20"}};
  int i = 0;
  for (const Case& c : cases) {
    const fs::path m = d / std::to_string(i++);
    fs::create_directories(m);
    const std::string scenario = kExamples + "beam/" + c.example + ".toml";
    std::vector<std::string> sets = {"output.plots=false", "output.every=7", "output.fields_every=9"};
    sets.insert(sets.end(), c.sets.begin(), c.sets.end());
    const Result v = lievi_cli(m, with({"validate", scenario}, sets));
    ASSERT_EQ(v.code, 0) << v.err;
    const auto at = v.out.find("\ndt = ");
    ASSERT_NE(at, std::string::npos) << v.out;
    char t_end[64];
    std::snprintf(t_end, sizeof t_end, "integrator.t_end=%.17g", 80 * std::stod(v.out.substr(at + 6)));
    sets.push_back(t_end);
    const Result serial = lievi_cli(m, with({"run", scenario, "--out", "serial"}, sets));
    ASSERT_EQ(serial.code, 0) << c.example << serial.err;
    for (const int ranks : {2, 3}) {
      if (!c.cuts.empty() && ranks != 2) continue;
      const std::string out = "r" + std::to_string(ranks);
      const Result r = mpirun(m, ranks, with({"run", scenario, "--out", out}, sets),
                              c.cuts.empty() ? std::string() : "LIEVI_TEST_DD_CUTS=" + c.cuts);
      ASSERT_EQ(r.code, 0) << c.example << " " << out << "\n" << r.out << r.err;
      EXPECT_NE(r.out.find("across " + std::to_string(ranks) + " ranks"), std::string::npos) << r.out;
      expect_same_run(m / "serial", m / out, std::string(c.example) + " case " + std::to_string(i - 1) + " " + out);
    }
  }
}

// A split field checkpoints (rank 0 gathers the whole state and writes it) and resumes on any rank count, or
// without mpirun: stopped on R ranks and resumed on R' (1 = without mpirun), the outputs are those of the
// uninterrupted run without mpirun, bit for bit; so are those of an uninterrupted split run with checkpoints
// (by steps, and by wall time: rank 0's clock decides for every rank).
TEST(MpiFields, ASplitFieldResumesFromItsCheckpointOnAnyRankCount) {
  const fs::path d = lievi::test::fresh_dir(LIEVI_TEST_TMP_DIR, "mpi_checkpoints");
  struct Case {
    std::string scenario;
    std::vector<std::string> sets;
    long long steps;
  };
  const Case cases[] = {
      {kExamples + "wave/independent.toml", {"integrator.t_end=0.02", "output.every=7", "output.fields_every=11"}, 0},
      {kExamples + "beam/stochastic_bending.toml", {"noise.mode=\"independent\"", "output.every=7", "output.fields_every=9"}, 80},
      {kExamples + "beam/damped_cantilever.toml", {"integrator.variant=\"approx\"", "output.every=7", "output.fields_every=9"}, 80}};
  int i = 0;
  for (const Case& c : cases) {
    const fs::path m = d / std::to_string(i++);
    fs::create_directories(m);
    std::vector<std::string> sets = {"output.plots=false", "output.checkpoint_every=13"};
    sets.insert(sets.end(), c.sets.begin(), c.sets.end());
    long long steps = 0;
    {
      const Result v = lievi_cli(m, with({"validate", c.scenario}, sets));
      ASSERT_EQ(v.code, 0) << v.err;
      const auto at = v.out.find("\ndt = ");
      ASSERT_NE(at, std::string::npos) << v.out;
      if (c.steps > 0) {
        char t_end[64];
        std::snprintf(t_end, sizeof t_end, "integrator.t_end=%.17g", static_cast<double>(c.steps) * std::stod(v.out.substr(at + 6)));
        sets.push_back(t_end);
      }
      const Result v2 = lievi_cli(m, with({"validate", c.scenario}, sets));
      ASSERT_EQ(v2.out.find("\n# "), v2.out.find('\n')) << v2.out;  // "# N steps of dt = ..."
      steps = std::stoll(v2.out.substr(v2.out.find('\n') + 3));
    }
    ASSERT_GT(steps, 40) << c.scenario;
    const Result serial = lievi_cli(m, with({"run", c.scenario, "--out", "serial"}, sets));
    ASSERT_EQ(serial.code, 0) << serial.err;
    const auto run = [&](int ranks, const std::vector<std::string>& args) {
      return ranks == 1 ? lievi_cli(m, args) : mpirun(m, ranks, args);
    };
    const Result whole = run(2, with({"run", c.scenario, "--out", "whole"}, sets));
    ASSERT_EQ(whole.code, 0) << whole.err;
    expect_same_run(m / "serial", m / "whole", c.scenario + " uninterrupted on 2 ranks with checkpoints");
    auto by_wall = sets;
    by_wall.push_back("output.checkpoint_wall=1e-9");  // a checkpoint at every level, by rank 0's clock
    const Result wall = run(3, with({"run", c.scenario, "--out", "wall"}, by_wall));
    ASSERT_EQ(wall.code, 0) << wall.err;
    const Result serial_wall = lievi_cli(m, with({"run", c.scenario, "--out", "serial_wall"}, by_wall));
    ASSERT_EQ(serial_wall.code, 0) << serial_wall.err;
    expect_same_run(m / "serial_wall", m / "wall", c.scenario + " checkpoints by wall time on 3 ranks");
    const struct {
      int stop, resume;
      long long at;
    } pairs[] = {{2, 3, steps / 3}, {3, 1, steps / 2}, {1, 2, 2 * steps / 3}, {2, 2, steps - 1}};
    for (const auto& p : pairs) {
      const std::string out = "stop" + std::to_string(p.stop) + "_" + std::to_string(p.resume);
      const Result stop = run(p.stop, with({"run", c.scenario, "--out", out, "--stop-at", std::to_string(p.at)}, sets));
      ASSERT_EQ(stop.code, 0) << out << stop.err;
      ASSERT_NE(stop.out.find("stopped at step " + std::to_string(p.at)), std::string::npos) << stop.out;
      const Result resume = run(p.resume, {"resume", out});
      ASSERT_EQ(resume.code, 0) << out << resume.out << resume.err;
      expect_same_run(m / "serial", m / out, c.scenario + " " + out + " at step " + std::to_string(p.at));
    }
  }
}

TEST(MpiFields, WhatIsNotSplitYetIsRefused) {
  const fs::path d = lievi::test::fresh_dir(LIEVI_TEST_TMP_DIR, "mpi_refused");
  const Result body = mpirun(d, 2, {"run", kExamples + "rigid_body/scenario_a.toml", "--out", "b"});
  EXPECT_EQ(body.code, 2) << body.err;
  EXPECT_NE(body.err.find("run is not split across ranks"), std::string::npos) << body.err;
  const Result tiny = mpirun(d, 3, {"run", kExamples + "wave/independent.toml", "--out", "t", "--set", "grid.J=2"});
  EXPECT_EQ(tiny.code, 2) << tiny.err;
  EXPECT_NE(tiny.err.find("cannot share a field of 2 nodes"), std::string::npos) << tiny.err;
  EXPECT_FALSE(fs::exists(d / "b") || fs::exists(d / "t"));
}
