/// @file src/run/plots.cpp
/// @brief Runs python/lievi_plot.py on a run folder (posix_spawn, no shell; output into plot.log).
#include "lievi/run/plots.hpp"

#include "lievi/io/interrupt.hpp"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <thread>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#ifndef LIEVI_PYTHON
#define LIEVI_PYTHON "/usr/bin/python3"
#endif
#ifndef LIEVI_SOURCE_DIR
#define LIEVI_SOURCE_DIR ""
#endif

extern char** environ;

namespace lievi::run {
namespace fs = std::filesystem;

namespace {

/// Wait for the plot process `pid` (polling every 20 ms); on a terminal, show "plotting NAME  <elapsed> s" on
/// stderr meanwhile (redrawn every 200 ms; erased at the end). False if waiting failed.
bool wait_with_progress(pid_t pid, const std::string& name, int& status) {
  using Clock = std::chrono::steady_clock;
  const bool tty = ::isatty(STDERR_FILENO) == 1;
  const auto t0 = Clock::now();
  auto last = t0 - std::chrono::seconds(1);
  bool drawn = false;
  bool ok = true;
  for (;;) {
    const pid_t w = ::waitpid(pid, &status, WNOHANG);
    if (w == pid) break;
    if (w < 0 && errno != EINTR) {
      ok = false;
      break;
    }
    const auto now = Clock::now();
    if (tty && now - last >= std::chrono::milliseconds(200)) {
      last = now;
      std::fprintf(stderr, "\r  plotting (%s)  %.1f s   ", name.c_str(),
                   std::chrono::duration<double>(now - t0).count());
      std::fflush(stderr);
      drawn = true;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  if (drawn) {
    std::fprintf(stderr, "\r%*s\r", 78, "");
    std::fflush(stderr);
  }
  return ok;
}

}  // namespace

fs::path find_python_script(const std::string& name, const char* env_override) {
  if (const char* env = env_override ? std::getenv(env_override) : nullptr; env && *env) return env;
  std::error_code ec;
  const fs::path src = fs::path(LIEVI_SOURCE_DIR) / "python" / name;
  if (!std::string(LIEVI_SOURCE_DIR).empty() && fs::exists(src, ec)) return src;
  // Installed layout: <prefix>/bin/lievi and <prefix>/share/lievi/<name>.
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    const fs::path installed = exe.parent_path().parent_path() / "share" / "lievi" / name;
    if (fs::exists(installed, ec)) return installed;
  }
  return {};
}

void make_field_plots(const fs::path& dir, bool enabled, const std::string& script, const char* env_override,
                      const std::string& title, std::vector<std::string>& notes,
                      const std::vector<std::string>& extra_args) {
  if (!enabled) {
    notes.emplace_back("plots not made: output.plots = false");
    return;
  }
  const fs::path path = find_python_script(script, env_override);
  if (path.empty()) {
    notes.push_back("plots skipped: plot script " + script + " not found (set " + env_override + ")");
    return;
  }
  std::vector<std::string> args = {dir.string(), "--title", title};
  args.insert(args.end(), extra_args.begin(), extra_args.end());
  if (const auto why = run_plot_script(path, dir, args))
    notes.push_back("plots skipped: " + *why);
}

fs::path plot_script_path() { return find_python_script("lievi_plot.py", "LIEVI_PLOT_SCRIPT"); }

std::optional<std::string> run_plot_script(const fs::path& script, const fs::path& dir,
                                           const std::vector<std::string>& script_args) {
  const char* env_py = std::getenv("LIEVI_PYTHON");
  const std::string python = env_py && *env_py ? env_py : LIEVI_PYTHON;
  const fs::path log = dir / "plot.log";
  int status = 0;

  std::vector<std::string> args = {python, script.string()};
  args.insert(args.end(), script_args.begin(), script_args.end());
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  // The child starts with no signal blocked (lievi blocks them for its watcher thread) and, under the watcher,
  // leads its own process group, so that an interrupted lievi ends it together with anything it starts.
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  sigset_t none;
  sigemptyset(&none);
  posix_spawnattr_setsigmask(&attr, &none);
  posix_spawnattr_setpgroup(&attr, 0);
  posix_spawnattr_setflags(&attr, io::interrupt::installed() ? POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETPGROUP
                                                             : POSIX_SPAWN_SETSIGMASK);
  pid_t pid = 0;
  int rc = 0;
  {
    const auto registry = io::interrupt::lock();  // a signal sees the child registered or not yet started
    rc = posix_spawnp(&pid, python.c_str(), &actions, &attr, argv.data(), environ);
    if (rc == 0) io::interrupt::add_child(pid);
  }
  posix_spawnattr_destroy(&attr);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) return "cannot start " + python + " (" + std::string(std::strerror(rc)) + ")";
  const bool reaped = wait_with_progress(pid, script.filename().string(), status);
  {
    const auto registry = io::interrupt::lock();
    io::interrupt::remove_child(pid);
  }
  if (!reaped) return std::string("waiting for the plot script failed");
  std::error_code ec;
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
    fs::remove(log, ec);
    return std::nullopt;
  }
  // Last non-empty line of the script's output says why (e.g. "ModuleNotFoundError: No module named ...").
  std::ifstream in(log);
  std::string line, last;
  while (std::getline(in, line))
    if (!line.empty()) last = line;
  const std::string how = WIFEXITED(status) ? "exited with status " + std::to_string(WEXITSTATUS(status))
                                            : "was killed by signal " + std::to_string(WTERMSIG(status));
  return python + " " + script.filename().string() + " " + how + (last.empty() ? "" : ": " + last) +
         " (see plot.log)";
}

std::optional<std::string> make_rigid_body_plots(const fs::path& dir, const std::string& title) {
  const fs::path script = plot_script_path();
  if (script.empty()) return std::string("plot script lievi_plot.py not found (set LIEVI_PLOT_SCRIPT)");
  return run_plot_script(script, dir, {dir.string(), "--title", title});
}

}  // namespace lievi::run
