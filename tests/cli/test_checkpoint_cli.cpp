// Checkpoint and resume end to end (issue 27): a run stopped at a checkpoint (--stop-at) and resumed writes
// series.csv and summary.json (timing apart) equal byte for byte to the uninterrupted run's, for every
// rigid-body method and every Lagrangian system and method, at the first step, in the middle and at the last
// step; extending t_end equals the longer run from the start; a run killed with SIGKILL at random moments always
// leaves a checkpoint that resumes to the uninterrupted outputs; a changed scenario, a truncated or damaged
// checkpoint, another format or lievi version and a folder lievi did not write are refused with exit 2 and a
// message naming what is wrong.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "lievi/io/checkpoint.hpp"
#include "lievi/io/fields_h5.hpp"
#include "support/cli_process.hpp"
#include "support/ensemble_outputs.hpp"

namespace fs = std::filesystem;
using nlohmann::json;

extern char** environ;

namespace {

using Result = lievi::test::CliResult;
using lievi::test::read_file;

const std::string kExamples = std::string(LIEVI_TEST_SOURCE_DIR) + "/examples/";

const char* cli() {
  const char* p = std::getenv("LIEVI_TEST_CLI");
  return p && *p ? p : LIEVI_CLI_PATH;
}

fs::path workdir(const std::string& name) { return lievi::test::fresh_dir(LIEVI_TEST_TMP_DIR, "checkpoint_" + name); }

Result run_cli(const fs::path& cwd, const std::vector<std::string>& args) {
  return lievi::test::run_program(cli(), cwd, args);
}

using lievi::test::expect_same_ensemble;
using lievi::test::summary_without_timing;

/// The run in `full` and the stopped-and-resumed one in `part` wrote the same outputs: series.csv byte for
/// byte, summary.json apart from timing, and every fields.h5 dataset bit for bit.
void expect_same_outputs(const fs::path& full, const fs::path& part, const std::string& what) {
  ASSERT_TRUE(fs::exists(part / "summary.json")) << what;
  EXPECT_EQ(read_file(full / "series.csv"), read_file(part / "series.csv")) << what;
  EXPECT_EQ(summary_without_timing(full), summary_without_timing(part)) << what;
  EXPECT_EQ(fs::exists(full / "fields.h5"), fs::exists(part / "fields.h5")) << what;
  const bool beam = fs::exists(full / "fields.h5") && json::parse(read_file(full / "summary.json"))["scenario"]["model"]["type"] == "beam";
  if (fs::exists(full / "fields.h5")) {
    const std::vector<const char*> names =
        beam ? std::vector<const char*>{"t", "s", "R", "p", "zeta", "gamma"} : std::vector<const char*>{"t", "s", "phi"};
    for (const char* name : names) {
      const lievi::io::H5Array a = lievi::io::read_h5_dataset(full / "fields.h5", name);
      const lievi::io::H5Array b = lievi::io::read_h5_dataset(part / "fields.h5", name);
      EXPECT_EQ(a.shape, b.shape) << what << " fields.h5 /" << name;
      EXPECT_EQ(0, std::memcmp(a.data.data(), b.data.data(), std::min(a.data.size(), b.data.size()) * sizeof(double)))
          << what << " fields.h5 /" << name;
    }
    EXPECT_EQ(read_file(full / "fields.xdmf"), read_file(part / "fields.xdmf")) << what;
  }
  // the beam's ParaView series: beam.pvd and every beam_<k>.vtp byte for byte
  for (const auto& e : fs::directory_iterator(full)) {
    const std::string f = e.path().filename().string();
    if (f == "beam.pvd" || f.rfind("beam_", 0) == 0) {
      EXPECT_EQ(read_file(e.path()), read_file(part / f)) << what << " " << f;
    }
  }
}

using lievi::test::with;

/// Run `scenario` whole into d/full, then stopped at each of `stops` and resumed into d/stop<k>; compare.
void check_stops(const fs::path& d, const std::string& scenario, const std::vector<std::string>& sets,
                 const std::vector<long long>& stops, const std::string& what) {
  const std::vector<std::string> base = with({"run", scenario}, sets);
  auto args = base;
  args.insert(args.end(), {"--out", "full"});
  const Result full = run_cli(d, args);
  ASSERT_EQ(full.code, 0) << what << full.err;
  for (const long long k : stops) {
    const std::string out = "stop" + std::to_string(k);
    args = base;
    args.insert(args.end(), {"--out", out, "--stop-at", std::to_string(k)});
    const Result stop = run_cli(d, args);
    ASSERT_EQ(stop.code, 0) << what << " stop " << k << stop.err;
    ASSERT_NE(stop.out.find("stopped at step " + std::to_string(k)), std::string::npos) << stop.out;
    EXPECT_FALSE(fs::exists(d / out / "summary.json")) << "a stopped run is not presented as finished";
    EXPECT_NE(read_file(d / out / ".lievi-output").find("\"stopped\""), std::string::npos);
    const Result resume = run_cli(d, {"resume", out});
    ASSERT_EQ(resume.code, 0) << what << " resume at " << k << resume.err;
    expect_same_outputs(d / "full", d / out, what + ", stopped at step " + std::to_string(k));
  }
  // the last step: resuming a finished run from its final checkpoint writes the same outputs again
  const Result again = run_cli(d, {"resume", "full"});
  ASSERT_EQ(again.code, 0) << again.err;
  expect_same_outputs(d / ("stop" + std::to_string(stops.front())), d / "full", what + ", resumed at the last step");
}

std::string number(double x) {
  char b[32];
  std::snprintf(b, sizeof b, "%.17g", x);
  return b;
}

}  // namespace

TEST(CheckpointCli, EveryRigidBodyMethodResumesBitForBit) {
  const fs::path d = workdir("rigid_body");
  // 300 steps; checkpoints every 40 steps besides the requested stops; output every 7 steps (the last level
  // is an extra row)
  for (const char* method : {"ddb", "ddb-symmetric", "moser-veselov", "rk4", "lobatto-iiic", "dop853"}) {
    const fs::path m = d / method;
    fs::create_directories(m);
    check_stops(m, kExamples + "rigid_body/scenario_a.toml",
                {"output.plots=false", "output.checkpoint_every=40", "output.every=7",
                 std::string("integrator.method=\"") + method + "\""},
                {1, 123, 299}, method);
  }
}

TEST(CheckpointCli, EveryLagrangianSystemAndMethodResumesBitForBit) {
  const fs::path d = workdir("lagrangian");
  struct Case {
    const char* example;
    std::vector<const char*> methods;
  };
  const Case cases[] = {{"kepler", {"midpoint", "trapezoid", "lobatto-iiia-iiib", "rk4"}},
                        {"double_pendulum", {"midpoint", "lobatto-iiia-iiib"}},
                        {"spherical_pendulum", {"midpoint", "trapezoid"}},  // RATTLE
                        {"forced_oscillator", {"midpoint", "rk4"}},
                        {"pendulum", {"trapezoid"}},
                        {"chaplygin_sleigh", {"midpoint", "trapezoid"}},  // nonholonomic
                        {"rolling_disk", {"midpoint"}}};
  for (const Case& c : cases)
    for (const char* method : c.methods) {
      const fs::path m = d / (std::string(c.example) + "_" + method);
      fs::create_directories(m);
      const std::string scenario = kExamples + "mechanics/" + c.example + ".toml";
      // 400 steps of the example's dt (from its resolved scenario)
      const Result v = run_cli(m, {"validate", scenario});
      ASSERT_EQ(v.code, 0) << v.err;
      const auto at = v.out.find("\ndt = ");
      ASSERT_NE(at, std::string::npos) << v.out;
      const double dt = std::stod(v.out.substr(at + 6));
      check_stops(m, scenario,
                  {"output.plots=false", "output.checkpoint_every=64", "output.every=3",
                   std::string("integrator.method=\"") + method + "\"",
                   "integrator.t_end=" + number(400 * dt)},
                  {1, 200, 399}, std::string(c.example) + " " + method);
    }
}

// The wave equation: deterministic and with independent noise (Type-I and Type-II), fields.h5 cut back to the
// checkpoint's snapshots and continued.
TEST(CheckpointCli, TheWaveEquationResumesBitForBit) {
  const fs::path d = workdir("wave");
  struct Case {
    const char* example;
    std::vector<std::string> sets;
  };
  const Case cases[] = {{"deterministic", {}},
                        {"independent", {}},
                        {"independent", {"integrator.method=type-ii"}},
                        {"pulse", {"integrator.variant=approx"}}};
  int i = 0;
  for (const Case& c : cases) {
    const fs::path m = d / std::to_string(i++);
    fs::create_directories(m);
    std::vector<std::string> sets = {"output.plots=false", "output.checkpoint_every=70", "output.every=9",
                                     "output.fields_every=13"};
    sets.insert(sets.end(), c.sets.begin(), c.sets.end());
    const std::string scenario = kExamples + "wave/" + c.example + ".toml";
    const Result v = run_cli(m, with({"validate", scenario}, sets));
    ASSERT_EQ(v.code, 0) << v.err;
    const auto at = v.out.find("\ndt = ");
    ASSERT_NE(at, std::string::npos) << v.out;
    sets.push_back("integrator.t_end=" + number(300 * std::stod(v.out.substr(at + 6))));
    check_stops(m, scenario, sets, {1, 117, 299}, c.example);
  }
}

// The beam: exact and approx, Cayley and exp, clamped, free, periodic and prescribed ends (a pose table read
// from the scenario's folder, resumed from another working folder), noise (independent, modes), damping and
// gravity; fields.h5, fields.xdmf, beam.pvd and the .vtp files equal the uninterrupted run's.
TEST(CheckpointCli, TheBeamResumesBitForBit) {
  const fs::path d = workdir("beam");
  struct Case {
    const char* example;
    std::vector<std::string> sets;
  };
  const Case cases[] = {{"bending", {}},
                        {"whip", {}},
                        {"stochastic_bending", {}},
                        {"stochastic_bending_modes", {"integrator.retraction=exp"}},
                        {"damped_cantilever", {"integrator.variant=approx"}},
                        {"ring", {}},
                        {"flying_spaghetti", {"integrator.method=type-ii"}}};
  int i = 0;
  for (const Case& c : cases) {
    const fs::path m = d / std::to_string(i++);
    fs::create_directories(m);
    std::vector<std::string> sets = {"output.plots=false", "output.checkpoint_every=40", "output.every=7",
                                     "output.fields_every=9"};
    sets.insert(sets.end(), c.sets.begin(), c.sets.end());
    const std::string scenario = kExamples + "beam/" + c.example + ".toml";
    const Result v = run_cli(m, with({"validate", scenario}, sets));
    ASSERT_EQ(v.code, 0) << v.err;
    const auto at = v.out.find("\ndt = ");
    ASSERT_NE(at, std::string::npos) << v.out;
    sets.push_back("integrator.t_end=" + number(120 * std::stod(v.out.substr(at + 6))));
    check_stops(m, scenario, sets, {1, 61, 119}, c.example);
  }
}

// Extending t_end from a finished run (its last checkpoint) equals the run made with the longer t_end from the
// start: the former last level, written then with t = t_end and as an extra row, becomes an ordinary level.
TEST(CheckpointCli, ExtendingTEndEqualsTheLongerRun) {
  const fs::path d = workdir("extend");
  struct Case {
    std::string scenario, t1, t2;
    std::vector<std::string> sets;
  };
  const Case cases[] = {{kExamples + "rigid_body/scenario_a.toml", "12.3", "30", {}},
                        // fields_every given: its default depends on the number of steps
                        {kExamples + "wave/independent.toml", "0.0123", "0.03", {"output.fields_every=11"}},
                        {kExamples + "mechanics/kepler.toml", "3.14", "6.28", {}},
                        {kExamples + "beam/stochastic_bending.toml", "0.01", "0.02", {"output.fields_every=11"}},
                        {kExamples + "mechanics/spherical_pendulum.toml", "1.1", "2.2", {}}};
  int i = 0;
  for (const Case& c : cases) {
    const std::string tag = std::to_string(i++);
    std::vector<std::string> sets = {"output.plots=false", "output.checkpoint_every=50", "output.every=7"};
    sets.insert(sets.end(), c.sets.begin(), c.sets.end());
    auto args = with({"run", c.scenario, "--out", "short" + tag, "--set", "integrator.t_end=" + c.t1}, sets);
    ASSERT_EQ(run_cli(d, args).code, 0) << c.scenario;
    args = with({"run", c.scenario, "--out", "long" + tag, "--set", "integrator.t_end=" + c.t2}, sets);
    ASSERT_EQ(run_cli(d, args).code, 0) << c.scenario;
    const Result r = run_cli(d, {"resume", "short" + tag, "--set", "integrator.t_end=" + c.t2});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.out.find("resumed at step"), std::string::npos) << r.out;
    expect_same_outputs(d / ("long" + tag), d / ("short" + tag), c.scenario + " extended");
  }
}


// Ensembles are checkpointed between paths: stopped after 1, 2 or 4 of 5 paths (with one thread) and resumed
// (with three), the statistics and every per-path series equal the uninterrupted ensemble's bit for bit. A run
// killed after its checkpoint, with per-path files of later paths written, resumes to the same outputs.
TEST(CheckpointCli, EnsemblesResumeBitForBit) {
  const fs::path d = workdir("ensemble");
  struct Case {
    std::string scenario;
    std::vector<std::string> sets;
    long long paths;
    std::vector<long long> stops;
  };
  const Case cases[] = {{kExamples + "wave/independent.toml", {"integrator.t_end=0.02"}, 5, {1, 2, 4}},
                        {kExamples + "beam/stochastic_bending.toml", {"integrator.t_end=0.004"}, 3, {1, 2}}};
  int i = 0;
  for (const Case& c : cases) {
    const fs::path m = d / std::to_string(i++);
    fs::create_directories(m);
    std::vector<std::string> sets = {"output.plots=false", "output.per_path=true", "output.checkpoint_every=30",
                                     "output.every=7"};
    sets.insert(sets.end(), c.sets.begin(), c.sets.end());
    const std::string paths = std::to_string(c.paths);
    const Result full = run_cli(m, with({"run", c.scenario, "--paths", paths, "--out", "full"}, sets));
    ASSERT_EQ(full.code, 0) << full.err;
    EXPECT_TRUE(fs::exists(m / "full" / "checkpoint.h5"));
    // without checkpoint keys the same ensemble, written atomically, has the same outputs
    auto plain_sets = sets;
    plain_sets.erase(plain_sets.begin() + 2);
    const Result plain = run_cli(m, with({"run", c.scenario, "--paths", paths, "--out", "plain"}, plain_sets));
    ASSERT_EQ(plain.code, 0) << plain.err;
    EXPECT_FALSE(fs::exists(m / "plain" / "checkpoint.h5"));
    for (const auto& e : fs::directory_iterator(m / "plain"))
      if (e.path().extension() == ".csv") {
        EXPECT_EQ(read_file(e.path()), read_file(m / "full" / e.path().filename())) << e.path();
      }
    for (const long long k : c.stops) {
      const std::string out = "stop" + std::to_string(k);
      const Result stop = lievi::test::run_program(
          cli(), m, with({"run", c.scenario, "--paths", paths, "--out", out, "--stop-at", std::to_string(k)}, sets),
          "OMP_NUM_THREADS=1");
      ASSERT_EQ(stop.code, 0) << stop.err;
      EXPECT_NE(stop.out.find("stopped after " + std::to_string(k) + " of " + paths + " paths"), std::string::npos)
          << stop.out;
      EXPECT_FALSE(fs::exists(m / out / "summary.json"));
      EXPECT_FALSE(fs::exists(m / out / "series_mean.csv"));
      // a later resume may stop again: only after more paths than are done, fewer than all
      const Result early = run_cli(m, {"resume", out, "--stop-at", std::to_string(k)});
      EXPECT_EQ(early.code, 2) << early.out;
      EXPECT_NE(early.err.find("stop after a path count between them"), std::string::npos) << early.err;
      const Result resume = lievi::test::run_program(cli(), m, {"resume", out}, "OMP_NUM_THREADS=3");
      ASSERT_EQ(resume.code, 0) << resume.err;
      EXPECT_NE(resume.out.find("resumed at path " + std::to_string(k)), std::string::npos) << resume.out;
      expect_same_ensemble(m / "full", m / out, c.scenario + " stopped after " + std::to_string(k) + " paths");
    }
    // killed after the checkpoint of path 1 while later paths' files were being written (the marker says
    // "running", a half-written series of a later path is there): it resumes to the same outputs
    const Result stop =
        run_cli(m, with({"run", c.scenario, "--paths", paths, "--out", "killed", "--stop-at", "1"}, sets));
    ASSERT_EQ(stop.code, 0) << stop.err;
    std::string marker = read_file(m / "killed" / ".lievi-output");
    const auto at = marker.find("\"stopped\"");
    ASSERT_NE(at, std::string::npos);
    marker.replace(at, 9, "\"running\"");
    std::ofstream(m / "killed" / ".lievi-output") << marker;
    std::ofstream(m / "killed" / "series_path2.csv") << "t,E_d\n0,";
    const Result resumed = run_cli(m, {"resume", "killed"});
    ASSERT_EQ(resumed.code, 0) << resumed.err;
    expect_same_ensemble(m / "full", m / "killed", c.scenario + " killed");
    // a finished ensemble resumes to the same outputs again; it cannot be extended
    ASSERT_EQ(run_cli(m, {"resume", "full"}).code, 0);
    expect_same_ensemble(m / ("stop" + std::to_string(c.stops.front())), m / "full", c.scenario + " resumed when finished");
    const Result extend = run_cli(m, {"resume", "full", "--set", "integrator.t_end=1"});
    EXPECT_EQ(extend.code, 2) << extend.out;
    EXPECT_NE(extend.err.find("cannot be extended"), std::string::npos) << extend.err;
    const Result over = run_cli(m, with({"run", c.scenario, "--paths", paths, "--out", "x", "--stop-at", paths}, sets));
    EXPECT_EQ(over.code, 2);
    EXPECT_NE(over.err.find("the ensemble has " + paths + " paths"), std::string::npos) << over.err;
  }
}

namespace {

/// Set a root string attribute of an HDF5 file with h5py (Debian's python3-h5py).
void set_attribute(const fs::path& file, const std::string& name, const std::string& value) {
  const std::string cmd = "/usr/bin/python3 -c \"import h5py, numpy; f = h5py.File('" + file.string() +
                          "', 'r+'); f.attrs['" + name + "'] = numpy.bytes_('" + value + "'); f.close()\"";
  ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
}

/// Flip one bit of the stored value of the checkpoint entry `entry` (found by its bytes in the file).
void damage_entry(const fs::path& file, const std::string& entry) {
  const lievi::io::CheckpointData c = lievi::io::read_checkpoint(file);
  const std::vector<double>& v = c.reals.at(entry);
  std::string bytes = read_file(file);
  const std::string needle(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(double));
  const auto at = bytes.find(needle);
  ASSERT_NE(at, std::string::npos);
  bytes[at + 3] = static_cast<char>(bytes[at + 3] ^ 1);
  std::ofstream(file, std::ios::binary) << bytes;
}

}  // namespace

TEST(CheckpointCli, RefusalsExitTwoNamingWhatIsWrong) {
  const fs::path d = workdir("refusals");
  const std::string scenario = kExamples + "mechanics/kepler.toml";
  auto make = [&](const std::string& out) {
    fs::remove_all(d / out);
    const Result r = run_cli(d, {"run", scenario, "--out", out, "--stop-at", "100", "--set", "output.plots=false",
                                 "--set", "integrator.t_end=6.28"});
    ASSERT_EQ(r.code, 0) << r.err;
  };
  auto refused = [&](const std::vector<std::string>& args, const std::vector<std::string>& words) {
    const Result r = run_cli(d, args);
    EXPECT_EQ(r.code, 2) << r.out << r.err;
    for (const auto& w : words) EXPECT_NE(r.err.find(w), std::string::npos) << "'" << w << "' not in: " << r.err;
  };
  make("a");
  const std::string before = read_file(d / "a" / "series.csv");
  // running into the stopped run's folder again says how to continue it
  refused({"run", scenario, "--out", "a", "--set", "output.plots=false"}, {"--out", "lievi resume a", "--force"});
  // a changed scenario: every differing key named; t_end only forward
  refused({"resume", "a", "--set", "model.mu=2", "--set", "model.mass=3"},
          {"model.mu", "model.mass", "differs from the checkpoint", "only integrator.t_end may change"});
  refused({"resume", "a", "--set", "integrator.t_end=0.5"}, {"integrator.t_end", "before the checkpoint"});
  refused({"resume", "a", "--stop-at", "50"}, {"--stop-at", "stop at a step between them"});
  EXPECT_EQ(read_file(d / "a" / "series.csv"), before) << "a refused resume leaves the folder as it was";
  // a damaged checkpoint (one bit of the state), a truncated one
  damage_entry(d / "a" / "checkpoint.h5", "x/q");
  refused({"resume", "a"}, {"checkpoint.h5", "checksum mismatch", "damaged"});
  make("b");
  fs::resize_file(d / "b" / "checkpoint.h5", fs::file_size(d / "b" / "checkpoint.h5") / 2);
  refused({"resume", "b"}, {"checkpoint.h5", "not a readable lievi checkpoint"});
  // another format version, another lievi version
  make("c");
  set_attribute(d / "c" / "checkpoint.h5", "format_version", "99");
  refused({"resume", "c"}, {"checkpoint format version 99", "this lievi reads version 1"});
  make("e");
  set_attribute(d / "e" / "checkpoint.h5", "lievi_version", "0.0.1");
  refused({"resume", "e"}, {"written by lievi 0.0.1", "resumes only with the version that wrote it"});
  // not a run's folder: no checkpoint; a checkpoint in a folder lievi did not write; no folder
  fs::create_directories(d / "empty");
  refused({"resume", "empty"}, {"no checkpoint here"});
  make("f");
  fs::create_directories(d / "mine");
  fs::copy_file(d / "f" / "checkpoint.h5", d / "mine" / "checkpoint.h5");
  std::ofstream(d / "mine" / "notes.txt") << "mine\n";
  refused({"resume", "mine"}, {"not a lievi output folder to resume"});
  EXPECT_EQ(read_file(d / "mine" / "notes.txt"), "mine\n");
  refused({"resume", "nowhere"}, {"no such folder"});
  // a run killed while writing its end-of-run files (marker still "running"): those files are lievi's, the
  // folder resumes; a file of the user's is still refused
  auto killed_at_end = [&](const std::string& out, const std::string& extra) {
    make(out);
    std::string marker = read_file(d / out / ".lievi-output");
    const auto at = marker.find("\"stopped\"");
    ASSERT_NE(at, std::string::npos);
    marker.replace(at, 9, "\"running\"");
    std::ofstream(d / out / ".lievi-output") << marker;
    std::ofstream(d / out / extra) << "x\n";
  };
  killed_at_end("h", "plot.log");
  EXPECT_EQ(run_cli(d, {"resume", "h"}).code, 0);
  killed_at_end("i", "notes.txt");
  refused({"resume", "i"}, {"not a lievi output folder to resume", "notes.txt"});
  // --stop-at out of range
  refused({"run", scenario, "--out", "g", "--stop-at", "100000"}, {"--stop-at", "steps"});
}

namespace {

/// Start lievi with stdout and stderr to files; its pid.
pid_t start(const fs::path& cwd, const std::vector<std::string>& args) {
  std::vector<std::string> all = {cli()};
  all.insert(all.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& a : all) argv.push_back(a.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addchdir_np(&fa, cwd.c_str());
  posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
  pid_t pid = -1;
  if (posix_spawn(&pid, cli(), &fa, nullptr, argv.data(), environ) != 0) pid = -1;
  posix_spawn_file_actions_destroy(&fa);
  return pid;
}

}  // namespace

// SIGKILL at random moments (fixed seed) of a run that checkpoints every 1000 steps: the folder then holds the
// previous good checkpoint or the new one (never a damaged one: resume succeeds), and resuming gives the
// uninterrupted outputs. A kill can also hit a resumed run; it resumes again.
TEST(CheckpointCli, KilledAtRandomMomentsAlwaysResumesToTheSameOutputs) {
  const fs::path d = workdir("kill");
  // the wave with independent noise and fields.h5 (a snapshot every 20 steps, crash-safe HDF5)
  const std::string scenario = kExamples + "wave/independent.toml";
  const std::vector<std::string> sets = {"output.plots=false", "output.checkpoint_every=500", "output.every=5",
                                         "output.fields_every=20", "integrator.t_end=0.6"};
  const auto t0 = std::chrono::steady_clock::now();
  ASSERT_EQ(run_cli(d, with({"run", scenario, "--out", "full"}, sets)).code, 0);
  const double run_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::mt19937 rng(20261205);
  int resumed = 0;
  for (int trial = 0; trial < 6; ++trial) {
    const std::string out = "killed" + std::to_string(trial);
    std::uniform_real_distribution<double> when(0.0, 0.8 * run_s);
    bool finished = false;
    // the first kill hits the run, later ones may hit `lievi resume` itself
    for (int kill_no = 0; kill_no < 2 && !finished; ++kill_no) {
      const pid_t pid = kill_no == 0 ? start(d, with({"run", scenario, "--out", out}, sets)) : start(d, {"resume", out});
      ASSERT_GT(pid, 0);
      // the kill lands at a random moment after the folder's first checkpoint (before it there is nothing to
      // resume): while stepping, appending rows and snapshots, or writing the next checkpoint
      int status = 0;
      bool ended = false;
      for (int wait = 0; wait < 20000 && !fs::exists(d / out / "checkpoint.h5"); ++wait) {
        if (waitpid(pid, &status, WNOHANG) == pid) {
          ended = true;
          break;
        }
        std::this_thread::sleep_for(std::chrono::microseconds(200));
      }
      if (!ended) {
        std::this_thread::sleep_for(std::chrono::duration<double>(when(rng)));
        kill(pid, SIGKILL);
        waitpid(pid, &status, 0);
      }
      finished = WIFEXITED(status) && WEXITSTATUS(status) == 0;
      if (!fs::exists(d / out / "checkpoint.h5")) break;  // killed before its first checkpoint
    }
    if (!fs::exists(d / out / "checkpoint.h5")) continue;
    const Result r = run_cli(d, {"resume", out});
    ASSERT_EQ(r.code, 0) << "trial " << trial << ": " << r.err;
    expect_same_outputs(d / "full", d / out, "killed run " + std::to_string(trial));
    ++resumed;
  }
  EXPECT_GE(resumed, 5) << "too few kills landed during the run to test anything";
}
