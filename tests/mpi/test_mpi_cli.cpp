/// @file tests/mpi/test_mpi_cli.cpp
/// @brief Ensembles across MPI ranks, end to end: `mpirun -np R lievi run FILE --paths N` for R = 1, 2, 3, 4
/// (oversubscribed: more ranks than cores) writes the files of the run without mpirun bit for bit, with one or
/// two threads per rank; slices run under MPI merge to the same; a NaN raised in a path computed by rank 2 of
/// 3 stops every rank with exit 3 and the path's diagnostic, the paths before it summarised as without MPI; a
/// single run of a model that is not split yet is refused on every rank (exit 2). Rank 0 alone writes.
#include <gtest/gtest.h>

#include <signal.h>
#include <sys/types.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "support/cli_process.hpp"
#include "support/ensemble_outputs.hpp"
#include "support/mpi_process.hpp"

namespace fs = std::filesystem;

namespace {

using Result = lievi::test::CliResult;
using lievi::test::read_file;

const std::string kExamples = std::string(LIEVI_TEST_SOURCE_DIR) + "/examples/";

using lievi::test::lievi_cli;
using lievi::test::mpirun;
using lievi::test::with;

}  // namespace

TEST(MpiEnsembles, AnyNumberOfRanksWritesTheFilesOfTheRunWithoutMpi) {
  const fs::path d = lievi::test::fresh_dir(LIEVI_TEST_TMP_DIR, "mpi_ranks");
  struct Case {
    std::string scenario;
    std::vector<std::string> sets;
    std::string paths;
  };
  const Case cases[] = {{kExamples + "wave/independent.toml", {"integrator.t_end=0.05"}, "9"},
                        {kExamples + "wave/theta_1e-2.toml", {"integrator.t_end=0.05"}, "5"},
                        {kExamples + "beam/stochastic_bending.toml", {"integrator.t_end=0.004"}, "6"}};
  int i = 0;
  for (const Case& c : cases) {
    const fs::path m = d / std::to_string(i++);
    fs::create_directories(m);
    std::vector<std::string> sets = {"output.plots=false", "output.per_path=true", "output.every=7"};
    sets.insert(sets.end(), c.sets.begin(), c.sets.end());
    const Result serial = lievi_cli(m, with({"run", c.scenario, "--paths", c.paths, "--out", "serial"}, sets));
    ASSERT_EQ(serial.code, 0) << serial.err;
    for (const int ranks : {1, 2, 3, 4})
      for (const char* threads : {"1", "2"}) {
        if (ranks > 2 && threads[0] == '2') continue;  // 8 threads on 2 cores add nothing but time
        const std::string out = "r" + std::to_string(ranks) + "t" + threads;
        const Result r = mpirun(m, ranks, with({"run", c.scenario, "--paths", c.paths, "--out", out}, sets),
                                std::string("OMP_NUM_THREADS=") + threads);
        ASSERT_EQ(r.code, 0) << out << "\n" << r.out << r.err;
        if (ranks > 1) {
          EXPECT_NE(r.out.find("across " + std::to_string(ranks) + " ranks"), std::string::npos) << r.out;
        }
        EXPECT_EQ(r.out.find("wrote"), r.out.rfind("wrote")) << "only rank 0 reports: " << r.out;
        lievi::test::expect_same_ensemble(m / "serial", m / out, c.scenario + " " + out);
      }
  }
}

TEST(MpiEnsembles, SlicesRunUnderMpiMergeToTheWholeEnsemble) {
  const fs::path d = lievi::test::fresh_dir(LIEVI_TEST_TMP_DIR, "mpi_slices");
  const std::string scenario = kExamples + "wave/independent.toml";
  const std::vector<std::string> sets = {"output.plots=false", "output.per_path=true", "integrator.t_end=0.03"};
  ASSERT_EQ(lievi_cli(d, with({"run", scenario, "--paths", "8", "--out", "whole"}, sets)).code, 0);
  ASSERT_EQ(mpirun(d, 3, with({"run", scenario, "--paths", "8", "--path-range", "3:8", "--out", "b"}, sets),
                   "OMP_NUM_THREADS=1")
                .code,
            0);
  ASSERT_EQ(mpirun(d, 2, with({"run", scenario, "--paths", "8", "--path-range", "0:3", "--out", "a"}, sets),
                   "OMP_NUM_THREADS=1")
                .code,
            0);
  const Result r = lievi_cli(d, {"merge", "b", "a", "--out", "merged"});
  ASSERT_EQ(r.code, 0) << r.err;
  lievi::test::expect_same_ensemble(d / "whole", d / "merged", "slices under MPI");
}

TEST(MpiEnsembles, AFailedPathOnRankTwoStopsEveryRankWithItsDiagnostic) {
  const fs::path d = lievi::test::fresh_dir(LIEVI_TEST_TMP_DIR, "mpi_failure");
  const std::string scenario = kExamples + "wave/independent.toml";
  const std::vector<std::string> sets = {"output.plots=false", "integrator.t_end=0.03"};
  // one thread per rank: path 2 of the first batch (paths 0, 1, 2) is computed by rank 2 of 3
  const Result serial = lievi_cli(d, with({"run", scenario, "--paths", "6", "--out", "serial"}, sets),
                                  "LIEVI_TEST_NAN_PATH=2");
  ASSERT_EQ(serial.code, 3) << serial.err;
  const Result r = mpirun(d, 3, with({"run", scenario, "--paths", "6", "--out", "mpi"}, sets),
                          "OMP_NUM_THREADS=1 LIEVI_TEST_NAN_PATH=2");
  EXPECT_EQ(r.code, 3) << r.out << r.err;
  EXPECT_NE(r.err.find("numerical failure in step 1"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("path 2: non-finite"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("at node"), std::string::npos) << r.err;
  const auto summary = lievi::test::summary_without_timing(d / "mpi");
  EXPECT_EQ(summary["status"], "failed");
  EXPECT_EQ(summary["paths"], 2) << "paths 0 and 1 are summarised";
  lievi::test::expect_same_ensemble(d / "serial", d / "mpi", "failed ensemble");
}

TEST(MpiEnsembles, ASingleRunUnderMpirunIsRefusedOnEveryRank) {
  const fs::path d = lievi::test::fresh_dir(LIEVI_TEST_TMP_DIR, "mpi_single");
  const Result r = mpirun(d, 2, {"run", kExamples + "rigid_body/scenario_a.toml", "--out", "x"});
  EXPECT_EQ(r.code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("run is not split across ranks"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(d / "x"));
  // the commands that are rank 0's alone run once
  const Result v = mpirun(d, 2, {"validate", kExamples + "wave/independent.toml"});
  EXPECT_EQ(v.code, 0) << v.err;
  ASSERT_NE(v.out.find("[model]"), std::string::npos) << v.out;
  EXPECT_EQ(v.out.find("[model]"), v.out.rfind("[model]")) << "printed once: " << v.out;
}

// Checkpoints of an ensemble across ranks: stopped under 3 ranks and resumed under 2, stopped under 2 and
// resumed without MPI: the files of the uninterrupted run.
TEST(MpiEnsembles, AStoppedEnsembleResumesWithAnyNumberOfRanks) {
  const fs::path d = lievi::test::fresh_dir(LIEVI_TEST_TMP_DIR, "mpi_resume");
  const std::string scenario = kExamples + "wave/independent.toml";
  const std::vector<std::string> sets = {"output.plots=false", "output.per_path=true", "integrator.t_end=0.02",
                                         "output.checkpoint_every=1000"};
  ASSERT_EQ(lievi_cli(d, with({"run", scenario, "--paths", "7", "--out", "whole"}, sets)).code, 0);
  const Result a = mpirun(d, 3, with({"run", scenario, "--paths", "7", "--out", "a", "--stop-at", "3"}, sets),
                          "OMP_NUM_THREADS=1");
  ASSERT_EQ(a.code, 0) << a.err;
  EXPECT_NE(a.out.find("stopped after 3 of 7 paths"), std::string::npos) << a.out;
  const Result ra = mpirun(d, 2, {"resume", "a"}, "OMP_NUM_THREADS=1");
  ASSERT_EQ(ra.code, 0) << ra.err;
  lievi::test::expect_same_ensemble(d / "whole", d / "a", "stopped on 3 ranks, resumed on 2");
  ASSERT_EQ(mpirun(d, 2, with({"run", scenario, "--paths", "7", "--out", "b", "--stop-at", "4"}, sets),
                   "OMP_NUM_THREADS=1")
                .code,
            0);
  ASSERT_EQ(lievi_cli(d, {"resume", "b"}).code, 0);
  lievi::test::expect_same_ensemble(d / "whole", d / "b", "stopped on 2 ranks, resumed without MPI");
}

namespace {

/// The pid of the running lievi process of MPI rank `rank` whose working folder is `cwd` (0 when none).
pid_t rank_process(const fs::path& cwd, int rank) {
  const std::string want = "OMPI_COMM_WORLD_RANK=" + std::to_string(rank);
  for (const auto& e : fs::directory_iterator("/proc")) {
    const std::string name = e.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::error_code ec;
    if (fs::read_symlink(e.path() / "cwd", ec) != cwd || ec) continue;
    const std::string env = read_file(e.path() / "environ");
    std::size_t at = 0;
    while (at < env.size()) {
      const std::size_t end = env.find('\0', at);
      if (env.compare(at, (end == std::string::npos ? env.size() : end) - at, want) == 0) return std::stoi(name);
      if (end == std::string::npos) break;
      at = end + 1;
    }
  }
  return 0;
}

}  // namespace

// A rank killed in the middle of an ensemble ends the job (mpirun stops the others) and leaves no folder
// presented as complete: the atomic run's folder does not exist, only its temporary one.
TEST(MpiEnsembles, ARankKilledMidRunLeavesNoFolderPresentedAsComplete) {
  const fs::path d = lievi::test::fresh_dir(LIEVI_TEST_TMP_DIR, "mpi_kill");
  const std::string cmd = std::string("cd '") + d.string() + "' && OMP_NUM_THREADS=1 '" + LIEVI_MPIRUN +
                          "' --allow-run-as-root --oversubscribe -np 3 '" + LIEVI_CLI_PATH + "' run '" + kExamples +
                          "wave/independent.toml' --paths 400 --set integrator.t_end=2 --set output.plots=false "
                          "--out killed > mpirun.log 2>&1; echo $? > mpirun.code";
  std::thread job([&] { (void)std::system(cmd.c_str()); });
  pid_t victim = 0;
  for (int i = 0; i < 400 && victim == 0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(25));
    victim = rank_process(d, 1);
  }
  ASSERT_NE(victim, 0) << "rank 1 never ran";
  std::this_thread::sleep_for(std::chrono::milliseconds(300));  // inside the ensemble
  ::kill(victim, SIGKILL);
  job.join();
  const int code = std::stoi(read_file(d / "mpirun.code"));
  EXPECT_NE(code, 0) << read_file(d / "mpirun.log");
  EXPECT_FALSE(fs::exists(d / "killed")) << "a folder presented as complete";
  EXPECT_FALSE(fs::exists(d / "killed" / "summary.json"));
  EXPECT_EQ(rank_process(d, 0), 0) << "rank 0 still runs";
}
