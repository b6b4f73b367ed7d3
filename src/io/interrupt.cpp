/// @file src/io/interrupt.cpp
/// @brief The signal watcher thread and the registry of what it cleans up (lievi/io/interrupt.hpp).
#include "lievi/io/interrupt.hpp"

#include <pthread.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "lievi/io/output_dir.hpp"

namespace lievi::io::interrupt {
namespace fs = std::filesystem;

namespace {

struct Registry {
  std::vector<std::pair<fs::path, fs::path>> pending;  ///< (DIR.tmp-<pid>, DIR) being written
  bool committed = false;                              ///< some output folder became final
  std::vector<pid_t> children;                         ///< process-group leaders to kill
};

std::mutex& registry_mutex() {
  static std::mutex m;
  return m;
}
Registry& registry() {
  static Registry r;
  return r;
}
std::atomic<bool> g_stopping{false};
std::atomic<bool> g_installed{false};
sigset_t g_watched;

const char* signal_name(int sig) {
  switch (sig) {
    case SIGINT: return "SIGINT";
    case SIGTERM: return "SIGTERM";
    case SIGHUP: return "SIGHUP";
    default: return "a signal";
  }
}

/// What the watcher does with a signal. Runs on the watcher thread; ends the process.
[[noreturn]] void stop(int sig) {
  std::unique_lock<std::mutex> held(registry_mutex());  // kept until _exit: registrations wait
  Registry& r = registry();
  const char* name = signal_name(sig);
  const char* newline = ::isatty(STDERR_FILENO) == 1 ? "\n" : "";  // below a progress line
  if (r.pending.empty() && r.committed) {
    // The output folder is final: the run is complete, let the program finish (and report) normally.
    held.unlock();
    std::this_thread::sleep_for(std::chrono::seconds(5));
    std::fprintf(stderr, "%slievi: %s after the outputs were complete; stopped\n", newline, name);
    ::_exit(128 + sig);
  }
  g_stopping = true;
  for (const pid_t pid : r.children) {
    ::killpg(pid, SIGKILL);  // the plot script and anything it started
    while (::waitpid(pid, nullptr, 0) < 0 && errno == EINTR) {
    }
  }
  // Innermost first (an output folder may be written inside another's temporary folder): each becomes a
  // DIR.partial where it was, the outermost last; its line is the one printed.
  std::string what = "nothing written";
  for (auto it = r.pending.rbegin(); it != r.pending.rend(); ++it) what = keep_partial_output(it->first, it->second, name);
  std::fprintf(stderr, "%slievi: interrupted by %s; the run is not complete: %s\n", newline, name, what.c_str());
  ::_exit(128 + sig);
}

}  // namespace

void install() {
  sigemptyset(&g_watched);
  for (const int sig : {SIGINT, SIGTERM, SIGHUP}) {
    struct sigaction old {};
    if (::sigaction(sig, nullptr, &old) == 0 && old.sa_handler != SIG_IGN) sigaddset(&g_watched, sig);
  }
  if (sigisemptyset(&g_watched)) return;
  ::pthread_sigmask(SIG_BLOCK, &g_watched, nullptr);  // inherited by every thread created from now on
  g_installed = true;
  std::thread([] {
    for (;;) {
      int sig = 0;
      if (::sigwait(&g_watched, &sig) == 0) stop(sig);
    }
  }).detach();
}

bool installed() { return g_installed; }

std::unique_lock<std::mutex> lock() { return std::unique_lock<std::mutex>(registry_mutex()); }

void set_pending_output(const fs::path& tmp, const fs::path& dir) { registry().pending.emplace_back(tmp, dir); }

void clear_pending_output(const fs::path& tmp, bool committed) {
  auto& p = registry().pending;
  p.erase(std::remove_if(p.begin(), p.end(), [&](const auto& e) { return e.first == tmp; }), p.end());
  if (committed) registry().committed = true;
}

void add_child(pid_t pid) { registry().children.push_back(pid); }

void remove_child(pid_t pid) {
  auto& c = registry().children;
  c.erase(std::remove(c.begin(), c.end(), pid), c.end());
}

bool stopping() { return g_stopping; }

int leave(int code) {
  if (g_stopping) {
    const auto wait_for_the_watcher = lock();  // never granted: the watcher holds it until _exit
  }
  return code;
}

}  // namespace lievi::io::interrupt
