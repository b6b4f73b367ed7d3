// Safety of the `lievi` program's files and processes (issue 22): --force replaces only a folder lievi wrote
// (never one holding the scenario or anything else), output paths and --paths are checked before the run with
// exit 2, SIGINT/SIGTERM at random moments leave no temporary folder, no orphaned plot process and no folder
// presented as complete, plotting shows a progress line on a terminal, and every plot axis has a label with a
// unit.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <pty.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "lievi/io/memory_estimate.hpp"
#include "lievi/io/wave_scenario.hpp"
#include "support/cli_process.hpp"

namespace fs = std::filesystem;
using nlohmann::json;

extern char** environ;

namespace {

using Result = lievi::test::CliResult;
using lievi::test::dir_entries;
using lievi::test::read_file;

const std::string kExamples = std::string(LIEVI_TEST_SOURCE_DIR) + "/examples/";

/// The program under test; LIEVI_TEST_CLI overrides it (to check that these tests fail on an older build).
const char* cli() {
  const char* p = std::getenv("LIEVI_TEST_CLI");
  return p && *p ? p : LIEVI_CLI_PATH;
}

fs::path workdir(const std::string& name) { return lievi::test::fresh_dir(LIEVI_TEST_TMP_DIR, "safety_" + name); }

Result run_cli(const fs::path& cwd, const std::vector<std::string>& args, const std::string& env = "") {
  return lievi::test::run_program(cli(), cwd, args, env);
}

/// Every entry below `d` with its size and content hash: a folder "listed" before and after must be equal.
std::map<std::string, std::string> snapshot(const fs::path& d) {
  std::map<std::string, std::string> m;
  for (const auto& e : fs::recursive_directory_iterator(d)) {
    const std::string rel = e.path().lexically_relative(d).generic_string();
    if (e.is_regular_file() && !e.is_symlink())
      m[rel] = std::to_string(std::hash<std::string>{}(read_file(e.path())));
    else
      m[rel] = e.is_directory() ? "dir" : "other";
  }
  return m;
}

// A short rigid body run (rk4, 30 steps), no plots.
const std::string kRigidBody = R"([model]
type = "rigid_body"
inertia = [1.0, 1.3, 0.5]
[initial]
omega = [0.0, 0.05, 1.0]
[integrator]
method = "rk4"
dt = 0.1
t_end = 3.0
[output]
plots = false
)";

fs::path write(const fs::path& p, const std::string& text) {
  fs::create_directories(p.parent_path());
  std::ofstream(p) << text;
  return p;
}

}  // namespace

// --force on a folder without lievi's marker, with a file lievi did not write, or holding the scenario file (or an
// ancestor of it) is refused with exit 2, naming --out, the folder and why; nothing is deleted.
TEST(CliSafety, ForceReplacesOnlyAFolderLieviWrote) {
  const fs::path d = workdir("force");
  const fs::path scen = write(d / "scen.toml", kRigidBody);

  // A folder the user made.
  write(d / "mine" / "precious.txt", "keep me");
  auto before = snapshot(d);
  Result r = run_cli(d, {"run", scen.string(), "--out", "mine", "--force"});
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_NE(r.err.find("--out: 'mine'"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(".lievi-output"), std::string::npos) << r.err;
  EXPECT_EQ(snapshot(d), before);

  // The scenario's own folder, and an ancestor of it, even when they carry a marker that lists the scenario.
  const fs::path proj_scen = write(d / "a" / "proj" / "scen.toml", kRigidBody);
  write(d / "a" / "proj" / ".lievi-output", R"({"program": "lievi", "entries": ["scen.toml"]})");
  write(d / "a" / ".lievi-output", R"({"program": "lievi", "entries": ["proj", "proj/scen.toml", "proj/.lievi-output"]})");
  before = snapshot(d);
  for (const std::string out : {"a/proj", "a", "a/proj/"}) {
    r = run_cli(d, {"run", proj_scen.string(), "--out", out, "--force"});
    EXPECT_EQ(r.code, 2) << out << ": " << r.err;
    EXPECT_NE(r.err.find("--out: '" + out + "'"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("contains the scenario file"), std::string::npos) << r.err;
    EXPECT_EQ(snapshot(d), before) << out;
  }

  // A folder lievi wrote: replaced; with a file added by the user: refused until that file is gone.
  r = run_cli(d, {"run", scen.string(), "--out", "out"});
  ASSERT_EQ(r.code, 0) << r.err;
  const json marker = json::parse(read_file(d / "out" / ".lievi-output"));
  EXPECT_EQ(marker["program"], "lievi");
  EXPECT_EQ(marker["state"], "written");
  EXPECT_EQ(marker["entries"], json::array({"series.csv", "summary.json"}));
  write(d / "out" / "notes.txt", "my notes");
  before = snapshot(d);
  r = run_cli(d, {"run", scen.string(), "--out", "out", "--force"});
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_NE(r.err.find("'notes.txt'"), std::string::npos) << r.err;
  EXPECT_EQ(snapshot(d), before);
  fs::remove(d / "out" / "notes.txt");
  r = run_cli(d, {"run", scen.string(), "--out", "out", "--force", "--set", "integrator.t_end=2"});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(json::parse(read_file(d / "out" / "summary.json"))["final"]["t"], 2.0);
  // Without --force a lievi folder is refused with the hint to use it.
  r = run_cli(d, {"run", scen.string(), "--out", "out"});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("use --force"), std::string::npos) << r.err;
  EXPECT_EQ(dir_entries(d), (std::vector<std::string>{"a", "mine", "out", "scen.toml"}));  // no .tmp-/.old-
}

// Output paths are checked before the run: a folder that cannot be created, and an empty --out, are exit 2 naming
// --out, the folder and the reason; nothing is written.
TEST(CliSafety, OutputPathsCheckedBeforeTheRun) {
  const fs::path d = workdir("outpaths");
  const fs::path scen = write(d / "scen.toml", kRigidBody);
  for (const std::string out : {"/proc/x", "/proc/lievi-none/a/b"}) {
    const Result r = run_cli(d, {"run", scen.string(), "--out", out});
    EXPECT_EQ(r.code, 2) << out << ": " << r.err;
    ASSERT_EQ(r.err_lines().size(), 1u) << r.err;
    EXPECT_EQ(r.err.rfind("--out: '" + out + "': cannot create", 0), 0u) << r.err;
    EXPECT_FALSE(fs::exists("/proc/lievi-none"));
  }
  const Result e = run_cli(d, {"run", scen.string(), "--out", ""});
  EXPECT_EQ(e.code, 2) << e.err;
  EXPECT_NE(e.err.find("--out: '': empty output folder name"), std::string::npos) << e.err;
  const Result c = run_cli(d, {"convergence", scen.string(), "--param", "integrator.dt", "--values", "0.1,0.05",
                               "--out", ""});
  EXPECT_EQ(c.code, 2) << c.err;
  EXPECT_NE(c.err.find("--out: '': empty output folder name"), std::string::npos) << c.err;
  // A very long --out is quoted shortened (about 80 characters).
  const std::string long_out = "/proc/" + std::string(5000, 'x');
  const Result l = run_cli(d, {"run", scen.string(), "--out", long_out});
  EXPECT_EQ(l.code, 2);
  EXPECT_LT(l.err.size(), 400u) << l.err.substr(0, 400);
  EXPECT_EQ(dir_entries(d), std::vector<std::string>{"scen.toml"});
}

// --paths is an integer 1 ... 1000000, checked with a readable message naming the flag, the value and the range.
TEST(CliSafety, PathsHasADocumentedRange) {
  const fs::path d = workdir("paths");
  for (const std::string& v : std::vector<std::string>{"0", "-3", "4294967296", "1000001", "abc", "", "1e3", std::string(400, '9')}) {
    const Result r = run_cli(d, {"run", kExamples + "wave/independent.toml", "--paths", v, "--set", "noise.path=1"});
    EXPECT_EQ(r.code, 2) << v << ": " << r.err;
    ASSERT_EQ(r.err_lines().size(), 1u) << r.err.substr(0, 500);
    const std::string shown = v.size() > 80 ? v.substr(0, 77) + "..." : v;
    EXPECT_EQ(r.err_lines()[0], "--paths: value '" + shown +
                                    "' not allowed: the number of noise paths is an integer from 1 to 1000000")
        << v;
  }
  EXPECT_TRUE(dir_entries(d).empty());
}

// An ensemble that would need more memory than the machine has is refused before anything is allocated, naming
// the memory ($LIEVI_MEMORY_AVAILABLE stands in for MemAvailable): with two threads, two paths run at once, so an
// available memory between the single run's estimate and the two-path estimate admits the single run and refuses
// the ensemble.
TEST(CliSafety, EnsembleMemoryIsCheckedBeforeTheRun) {
  const fs::path d = workdir("paths_memory");
  const std::string scen = kExamples + "wave/independent.toml";
  const std::vector<std::string> set = {"noise.path=1", "output.plots=false", "grid.J=200000", "integrator.dt=2e-6"};
  const auto any = lievi::io::load_any_scenario(scen, set);
  const double one = lievi::io::estimate_memory(any, 1).bytes;
  const double two = lievi::io::estimate_memory(any, 4).bytes;  // 4 paths, 2 at once under OMP_NUM_THREADS=2
  if (!(two > 1.5 * one)) GTEST_SKIP() << "one thread here: an ensemble runs one path at a time";
  const std::string env = "OMP_NUM_THREADS=2 LIEVI_MEMORY_AVAILABLE=" + std::to_string(static_cast<long long>(0.5 * (one + two)));
  std::vector<std::string> args = {"validate", scen};
  for (const auto& kv : set) args.insert(args.end(), {"--set", kv});
  EXPECT_EQ(run_cli(d, args, env).code, 0);
  args[0] = "run";
  args.insert(args.end(), {"--out", "ens", "--paths", "4", "--set", "integrator.t_end=0.001"});
  const Result r = run_cli(d, args, env);
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_NE(r.err.find("memory"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("available"), std::string::npos) << r.err;
  EXPECT_TRUE(dir_entries(d).empty());
}

namespace {

/// A running `lievi` started with posix_spawn (its pid is known, unlike with std::system), tagged by an
/// environment variable that its children inherit.
struct Child {
  pid_t pid = -1;
  std::string tag;
};

Child start(const fs::path& cwd, const std::vector<std::string>& args, const std::string& tag,
            const fs::path& err) {
  std::vector<std::string> all = {cli()};
  all.insert(all.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& a : all) argv.push_back(a.data());
  argv.push_back(nullptr);
  std::vector<std::string> env_s;
  for (char** e = environ; *e; ++e) env_s.emplace_back(*e);
  env_s.push_back("LIEVI_KILL_TEST_TAG=" + tag);
  std::vector<char*> envp;
  for (auto& e : env_s) envp.push_back(e.data());
  envp.push_back(nullptr);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addchdir_np(&fa, cwd.c_str());
  posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&fa, 2, err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  Child c;
  c.tag = tag;
  const int rc = posix_spawn(&c.pid, cli(), &fa, nullptr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&fa);
  if (rc != 0) c.pid = -1;
  return c;
}

/// Live processes (not zombies) other than `except` whose environment carries LIEVI_KILL_TEST_TAG=`tag`.
std::vector<pid_t> tagged_processes(const std::string& tag, pid_t except) {
  std::vector<pid_t> v;
  const std::string needle = "LIEVI_KILL_TEST_TAG=" + tag;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator("/proc", ec)) {
    const std::string name = e.path().filename().string();
    if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos) continue;
    const pid_t pid = std::stoi(name);
    if (pid == except) continue;
    const std::string env = read_file(e.path() / "environ");  // empty for zombies
    for (std::size_t at = 0; at < env.size();) {
      const std::size_t end = env.find('\0', at);
      if (env.compare(at, (end == std::string::npos ? env.size() : end) - at, needle) == 0) v.push_back(pid);
      if (end == std::string::npos) break;
      at = end + 1;
    }
  }
  return v;
}

using Clock = std::chrono::steady_clock;

struct KillOutcome {
  int exit_code = -1;   ///< exit status, or -1 if ended by a signal
  int term_signal = 0;  ///< the signal that ended it, if any
  double seconds = 0;   ///< from start to exit
};

/// Start lievi, send `sig` after `delay_s` (or, with `at_plot`, `delay_s` after a plot process appeared), wait.
KillOutcome start_and_kill(const fs::path& cwd, const std::vector<std::string>& args, const std::string& tag,
                           int sig, double delay_s, bool at_plot, const fs::path& err) {
  const auto t0 = Clock::now();
  const Child c = start(cwd, args, tag, err);
  KillOutcome o;
  if (c.pid < 0) return o;
  int status = 0;
  bool done = false;
  if (at_plot) {  // wait for the plot script to start (its environment carries the tag)
    while (!done && tagged_processes(tag, c.pid).empty()) {
      done = waitpid(c.pid, &status, WNOHANG) == c.pid;
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
  }
  const auto t_kill = Clock::now() + std::chrono::microseconds(static_cast<long long>(delay_s * 1e6));
  while (!done && Clock::now() < t_kill) {
    done = waitpid(c.pid, &status, WNOHANG) == c.pid;
    if (!done) std::this_thread::sleep_for(std::chrono::microseconds(500));
  }
  if (!done) {
    kill(c.pid, sig);
    waitpid(c.pid, &status, 0);
  }
  o.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  if (WIFEXITED(status)) o.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) o.term_signal = WTERMSIG(status);
  return o;
}

std::vector<std::string> temporaries_below(const fs::path& d) {
  std::vector<std::string> v;
  for (const auto& e : fs::recursive_directory_iterator(d)) {
    const std::string n = e.path().filename().string();
    if (n.find(".tmp-") != std::string::npos || n.find(".old-") != std::string::npos ||
        n.find(".new-") != std::string::npos)
      v.push_back(e.path().string());
  }
  return v;
}

bool complete(const fs::path& out) {
  if (!fs::exists(out / "summary.json")) return false;
  const json j = json::parse(read_file(out / "summary.json"), nullptr, false);
  return !j.is_discarded() && j.value("status", "") == "complete";
}

}  // namespace

// SIGINT and SIGTERM at random moments (start-up, the run, the plots) of a single wave run with plots and of a
// beam ensemble replacing an existing folder (--force): exit 130/143 (0 if the run finished first; killed by the
// signal itself only before lievi installed its handling, i.e. before main), no DIR.tmp-*, no orphaned plot
// process, DIR complete only after exit 0 (and an existing DIR untouched otherwise), a DIR.partial only with
// lievi's "interrupted" marker, and nothing else in the working folder touched. Moments are drawn from fixed
// seeds; about 30 s in all.
TEST(CliSafety, SignalsAtRandomMomentsStopCleanly) {
  const fs::path d = workdir("kill");
  const fs::path err = fs::path(LIEVI_TEST_TMP_DIR) / "safety_kill.stderr";
  // The single run: a wave with 20000 steps, fields.h5 and plots (about 0.5 s of run, 1-2 s of plotting).
  write(d / "wave.toml", read_file(kExamples + "wave/independent.toml"));
  const std::vector<std::string> single = {"run", "wave.toml", "--out", "single", "--set", "output.fields=true"};
  // The ensemble: 4 paths of the stochastic spaghetti (plots on: ensemble.png), over an existing folder.
  const std::vector<std::string> ensemble = {"run",   kExamples + "beam/stochastic_spaghetti.toml",
                                             "--out", "ens", "--paths", "4", "--force", "--set",
                                             "integrator.t_end=3"};
  // A complete folder to be replaced by the ensemble runs.
  Result first = run_cli(d, {"run", "wave.toml", "--out", "ens", "--set", "integrator.t_end=0.01",
                             "--set", "output.plots=false"});
  ASSERT_EQ(first.code, 0) << first.err;

  struct Case {
    const std::vector<std::string>* args;
    fs::path out;
    bool force;
  };
  const Case cases[] = {{&single, d / "single", false}, {&ensemble, d / "ens", true}};
  std::mt19937 rng(20261204);
  int runs = 0, interrupted = 0, at_plots = 0;
  for (const Case& k : cases) {
    // How long an undisturbed run takes bounds the random moments.
    const auto t0 = Clock::now();
    const Result full = run_cli(d, *k.args);
    ASSERT_EQ(full.code, 0) << full.err;
    const double t_full = std::chrono::duration<double>(Clock::now() - t0).count();
    ASSERT_TRUE(complete(k.out));
    for (int trial = 0; trial < 8; ++trial) {
      const int sig = trial % 2 == 0 ? SIGINT : SIGTERM;
      // trials 0-1 at start-up (0-20 ms), 2-3 once the plot script runs, the others anywhere in the run
      const bool at_plot = trial == 2 || trial == 3;
      const double delay = trial < 2 ? std::uniform_real_distribution<double>(0.0, 0.02)(rng)
                           : at_plot ? std::uniform_real_distribution<double>(0.0, 0.3)(rng)
                                     : std::uniform_real_distribution<double>(0.0, t_full)(rng);
      if (!k.force) fs::remove_all(k.out);
      fs::remove_all(k.out.string() + ".partial");
      const auto before = snapshot(d);
      const std::string tag = std::to_string(getpid()) + "-" + std::to_string(runs);
      const KillOutcome o = start_and_kill(d, *k.args, tag, sig, delay, at_plot, err);
      ++runs;
      const std::string what = k.out.filename().string() + " trial " + std::to_string(trial) + " signal " +
                               std::to_string(sig) + " after " + std::to_string(delay) + " s: exit " +
                               std::to_string(o.exit_code) + ", signal " + std::to_string(o.term_signal) +
                               "; stderr: " + read_file(err);
      const bool finished = o.exit_code == 0;
      if (!finished) ++interrupted;
      if (at_plot && !finished) ++at_plots;
      EXPECT_TRUE(finished || o.exit_code == 128 + sig || (o.exit_code == -1 && o.term_signal == sig)) << what;
      EXPECT_TRUE(tagged_processes(tag, -1).empty()) << "orphaned plot process; " << what;
      EXPECT_TRUE(temporaries_below(d).empty()) << what;
      // Nothing but DIR and DIR.partial changed.
      auto after = snapshot(d);
      auto strip = [&](std::map<std::string, std::string> m) {
        for (auto it = m.begin(); it != m.end();)
          it = it->first.rfind(k.out.filename().string(), 0) == 0 ? m.erase(it) : std::next(it);
        return m;
      };
      EXPECT_EQ(strip(after), strip(before)) << what;
      if (finished) {
        EXPECT_TRUE(complete(k.out)) << what;
      } else if (k.force) {
        // the existing complete folder is untouched
        auto inside = [](const std::map<std::string, std::string>& m) {
          std::map<std::string, std::string> v;
          for (const auto& [name, hash] : m)
            if (name == "ens" || name.rfind("ens/", 0) == 0) v[name] = hash;
          return v;
        };
        EXPECT_EQ(inside(after), inside(before)) << what;
      } else {
        EXPECT_FALSE(fs::exists(k.out)) << what;
      }
      const fs::path partial = k.out.string() + ".partial";
      if (fs::exists(partial)) {
        EXPECT_FALSE(finished) << what;
        const json m = json::parse(read_file(partial / ".lievi-output"));
        EXPECT_EQ(m["state"], "interrupted") << what;
        EXPECT_EQ(m["signal"], sig == SIGINT ? "SIGINT" : "SIGTERM") << what;
        EXPECT_NE(read_file(err).find("interrupted by"), std::string::npos) << what;
      }
    }
  }
  // The moments must have hit runs in progress, the plots included, for the test to mean anything.
  EXPECT_GE(interrupted, 8) << runs;
  EXPECT_GE(at_plots, 2);
  fs::remove(err);
}

// A partial folder replaces an older DIR.partial only if that one carries lievi's marker; otherwise the partial
// outputs are removed and the user's folder is untouched.
TEST(CliSafety, PartialFolderNeverReplacesAUsersFolder) {
  const fs::path d = workdir("partial");
  const fs::path err = fs::path(LIEVI_TEST_TMP_DIR) / "safety_partial.stderr";
  write(d / "wave.toml", read_file(kExamples + "wave/independent.toml"));
  write(d / "single.partial" / "mine.txt", "mine");
  const auto before = snapshot(d / "single.partial");
  // Interrupt as soon as the plot script runs: the temporary folder exists then.
  const KillOutcome o = start_and_kill(d, {"run", "wave.toml", "--out", "single"}, "partial-" + std::to_string(getpid()),
                                       SIGINT, 0.0, true, err);
  EXPECT_EQ(o.exit_code, 130) << read_file(err);
  EXPECT_NE(read_file(err).find("removed"), std::string::npos) << read_file(err);
  EXPECT_EQ(snapshot(d / "single.partial"), before);
  EXPECT_EQ(dir_entries(d), (std::vector<std::string>{"single.partial", "wave.toml"}));
  fs::remove(err);
}

// On a terminal, plotting shows a progress line ("plotting (script)  <elapsed> s") on stderr; it is erased at
// the end. Not on a pipe (the other CLI tests check that stderr stays empty).
TEST(CliSafety, PlottingShowsProgressOnATerminal) {
  const fs::path d = workdir("tty");
  const fs::path scen = write(d / "scen.toml", kRigidBody);
  int master = -1, slave = -1;
  ASSERT_EQ(openpty(&master, &slave, nullptr, nullptr, nullptr), 0);
  std::vector<std::string> all = {cli(), "run", scen.string(), "--out", "out", "--set", "output.plots=true"};
  std::vector<char*> argv;
  for (auto& a : all) argv.push_back(a.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addchdir_np(&fa, d.c_str());
  posix_spawn_file_actions_adddup2(&fa, slave, 2);
  posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addclose(&fa, master);
  pid_t pid = -1;
  ASSERT_EQ(posix_spawn(&pid, cli(), &fa, nullptr, argv.data(), environ), 0);
  posix_spawn_file_actions_destroy(&fa);
  close(slave);
  std::string tty;
  char buf[4096];
  for (ssize_t n; (n = read(master, buf, sizeof buf)) > 0;) tty.append(buf, static_cast<std::size_t>(n));
  close(master);  // read() ends with EIO once lievi (the last holder of the terminal) has exited
  int status = 0;
  waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << tty;
  EXPECT_NE(tty.find("plotting (lievi_plot.py)"), std::string::npos) << tty;
  EXPECT_EQ(tty.substr(tty.size() - 1), "\r") << "the line is erased at the end: " << tty;
  EXPECT_TRUE(fs::exists(d / "out" / "trajectory.png"));
}

// Every axis of every plot the shipped scripts make has a label with a unit in brackets (colour bars: their
// label). Checked inside matplotlib: a sitecustomize module wraps Figure.savefig for the plot processes lievi
// starts and records each unlabelled axis.
TEST(CliSafety, EveryPlotAxisHasALabelWithAUnit) {
  const fs::path d = workdir("labels");
  const fs::path hook = d.parent_path() / "safety_labels_hook";
  fs::remove_all(hook);
  const fs::path found = d.parent_path() / "safety_labels_found.txt";
  fs::remove(found);
  write(hook / "sitecustomize.py", R"(import os
import matplotlib
matplotlib.use("Agg")
import matplotlib.figure

_save = matplotlib.figure.Figure.savefig


def _checked(fig, fname, *args, **kwargs):
    bad = ["checked " + os.path.basename(str(fname))]
    for i, ax in enumerate(fig.axes):
        if ax.get_label() == "<colorbar>":
            continue
        names = ["x", "y"] + (["z"] if hasattr(ax, "get_zlabel") else [])
        for n in names:
            text = getattr(ax, "get_" + n + "label")()
            if n == "x" and not text:  # a shared time axis is labelled once, on the lowest plot
                text = " ".join(a.get_xlabel() for a in ax.get_shared_x_axes().get_siblings(ax))
            if "[" not in text:
                bad.append(f"BAD {os.path.basename(str(fname))} axes {i} {n}: {text!r}")
    if True:
        with open(os.environ["LIEVI_LABEL_CHECK_OUT"], "a") as f:
            f.write("\n".join(bad) + "\n")
    return _save(fig, fname, *args, **kwargs)


matplotlib.figure.Figure.savefig = _checked
)");
  const std::string env = "PYTHONPATH=" + lievi::test::shell_quote(hook.string()) +
                          " LIEVI_LABEL_CHECK_OUT=" + lievi::test::shell_quote(found.string());
  const std::vector<std::vector<std::string>> runs = {
      {"run", kExamples + "rigid_body/scenario_a.toml", "--out", "rb", "--set", "integrator.t_end=2"},
      {"run", kExamples + "beam/bending.toml", "--out", "beam", "--set", "output.fields=true", "--set",
       "integrator.t_end=0.2"},
      {"run", kExamples + "beam/stochastic_spaghetti.toml", "--out", "beam_ens", "--paths", "2", "--set",
       "integrator.t_end=0.5"},
      {"run", kExamples + "wave/independent.toml", "--out", "wave", "--set", "output.fields=true", "--set",
       "output.probes=[3]", "--set", "integrator.t_end=0.2"},
      {"run", kExamples + "wave/independent.toml", "--out", "wave_ens", "--paths", "2", "--set",
       "output.probes=[3]", "--set", "integrator.t_end=0.2"},
      {"run", kExamples + "mechanics/double_pendulum.toml", "--out", "dp", "--set", "integrator.t_end=1"},
      {"run", kExamples + "mechanics/kepler.toml", "--out", "kepler", "--set", "integrator.t_end=1"},
      {"convergence", kExamples + "rigid_body/scenario_a.toml", "--param", "integrator.dt", "--values",
       "0.1,0.05", "--set", "integrator.t_end=2", "--out", "conv"},
  };
  for (const auto& args : runs) {
    const Result r = run_cli(d, args, env);
    EXPECT_EQ(r.code, 0) << args[2] << ": " << r.err;
    EXPECT_EQ(r.out.find("plots skipped"), std::string::npos) << r.out;
  }
  // the hook ran on every plot (the beam's snapshots.png, which had no axis labels, among them)
  const std::string log = read_file(found);
  for (const char* png : {"casimir_energy.png", "trajectory.png", "snapshots.png", "energy.png", "ends.png",
                          "ensemble.png", "probes.png", "spacetime.png", "energy_error.png", "phase.png",
                          "convergence.png"})
    EXPECT_NE(log.find(std::string("checked ") + png), std::string::npos) << png << "\n" << log;
  EXPECT_EQ(log.find("BAD"), std::string::npos) << log;
  fs::remove_all(hook);
  fs::remove(found);
}
