#pragma once
/// @file lievi/io/interrupt.hpp
/// @brief Clean stops on SIGINT, SIGTERM and SIGHUP: no stale temporary folder, no orphaned child process.
///
/// The `lievi` program calls install() first thing in main(), before any other thread exists: the signals are
/// then blocked in every thread (OpenMP's included, they inherit the mask) and one watcher thread takes them with
/// sigwait(). The run loops need no hook. What the watcher must clean up is registered here, under one mutex:
///   - the output folder being written (io::OutputDir registers `DIR.tmp-<pid>` and its final name DIR, and
///     commits under the same mutex, so a signal during the final renames waits for them);
///   - child processes (the plot scripts, each started in its own process group).
/// On a signal the watcher takes the mutex (and keeps it: anything else that needs it waits until the process
/// ends), kills the children's process groups and reaps them, moves the temporary folder to `DIR.partial` with a
/// `.lievi-output` marker saying "interrupted" (io::keep_partial_output), prints one line to stderr and ends the
/// process with _exit(128 + signal): 130 for SIGINT, 143 for SIGTERM, 129 for SIGHUP. A signal that arrives
/// after the output folder was committed lets the program finish normally (the run is complete); it ends the
/// process only if the program has not finished 5 s later.
///
/// Without install() (the C++ API in another program) the registry is kept but nothing watches it, and the
/// program's own signal handling applies.
#include <sys/types.h>

#include <filesystem>
#include <mutex>

namespace lievi::io::interrupt {

/// Block SIGINT, SIGTERM and SIGHUP in the calling thread and start the watcher thread. A signal that was
/// ignored when the program started (e.g. SIGINT of a background job, SIGHUP under nohup) stays ignored.
/// Call once, before any other thread is created.
void install();

/// Whether install() started the watcher.
[[nodiscard]] bool installed();

/// The registry's mutex. Hold it while registering and while doing file operations the watcher must see whole.
[[nodiscard]] std::unique_lock<std::mutex> lock();

/// With lock() held: the temporary folder being written and the final folder it will become.
void set_pending_output(const std::filesystem::path& tmp, const std::filesystem::path& dir);
/// With lock() held: `tmp` is gone; `committed` says whether it became the final folder.
void clear_pending_output(const std::filesystem::path& tmp, bool committed);

/// With lock() held: a child process that leads its own process group (killed with the group on a signal).
void add_child(pid_t pid);
/// With lock() held: the child has been reaped.
void remove_child(pid_t pid);

/// True once the watcher has taken a signal (the process is about to end).
[[nodiscard]] bool stopping();

/// If a signal is being handled, wait for the watcher to end the process (so that no error message or exit
/// status of the interrupted work escapes); otherwise return `code`.
int leave(int code);

}  // namespace lievi::io::interrupt
