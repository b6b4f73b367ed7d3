#pragma once
/// @file lievi/io/output_dir.hpp
/// @brief Atomic output folders: everything is written into `DIR.tmp-<pid>` and renamed to DIR at the end.
///
/// Rules (docs/cli.md "Output folders"):
///   - a non-empty existing DIR is refused unless `force`;
///   - `force` replaces only a folder lievi wrote: it carries the marker file `.lievi-output` (JSON: program,
///     version, state, time, and the list of every entry lievi wrote there), holds nothing that list does not
///     name, and contains no protected input (the scenario file); the old DIR is replaced only after the new one
///     is complete;
///   - never the working folder or one of its ancestors;
///   - an unusable DIR (its nearest existing ancestor is not a writable folder, DIR is a file, the folder cannot
///     be created, ...) is bad input (lievi::invalid_argument, file "--out") found before anything is written.
/// The temporary folder is registered with io::interrupt, so a signal turns it into `DIR.partial`.
#include <filesystem>
#include <optional>
#include <string>

namespace lievi::io {

/// The marker file lievi writes into every output folder.
inline constexpr const char* output_marker = ".lievi-output";

/// Mark `path` (a scenario file) as input: no output folder that contains it is ever used or replaced.
void protect_input(const std::filesystem::path& path);

/// Why `dir` may not be replaced by lievi (no marker, entries the marker does not list, a protected input
/// inside, ...), or nullopt when it may.
[[nodiscard]] std::optional<std::string> why_not_replaceable(const std::filesystem::path& dir);

/// Write `dir`/.lievi-output listing every entry now in `dir`; `state` is "written" or "interrupted",
/// `signal` the signal's name for "interrupted".
void write_output_marker(const std::filesystem::path& dir, const std::string& state,
                         const std::string& signal = "");

/// For the signal watcher: move the temporary folder `tmp` of the final folder `dir` to `DIR.partial` (replacing
/// an older one only if lievi may replace it) with a marker saying "interrupted", or remove it when that is not
/// possible. Never throws; returns one line saying what was done.
std::string keep_partial_output(const std::filesystem::path& tmp, const std::filesystem::path& dir,
                                const std::string& signal);

/// Throws lievi::invalid_argument (file "--out") when `dir` cannot be used; creates nothing.
void check_output_dir(const std::filesystem::path& dir, bool force);

/// A temporary folder next to the final one; removed on destruction unless committed.
class OutputDir {
 public:
  /// Checks `dir` (check_output_dir), creates its missing parents and `DIR.tmp-<pid>`. Throws
  /// lievi::invalid_argument when they cannot be created (what was created is removed again).
  OutputDir(std::filesystem::path dir, bool force);
  /// A run written in place (a run with checkpoints, which must survive a kill): the same checks, then DIR
  /// itself is created and written into, with a marker saying "running" (rewritten by mark_running() as files
  /// appear). A forced replacement moves the old DIR to `DIR.old-<pid>`, removed by commit(). On a signal or
  /// an error the folder stays, marked "interrupted", for `lievi resume`.
  static OutputDir in_place(std::filesystem::path dir, bool force);
  /// An existing output folder continued in place (`lievi resume`): it must be one lievi may replace
  /// (why_not_replaceable; lievi::invalid_argument naming it otherwise). Marked "running" again.
  static OutputDir reopen(std::filesystem::path dir);
  ~OutputDir();
  OutputDir(OutputDir&&) noexcept;
  OutputDir(const OutputDir&) = delete;
  OutputDir& operator=(const OutputDir&) = delete;
  /// In place: rewrite the marker (state "running") listing what the folder now holds; nothing otherwise.
  void mark_running() const;
  /// In place: the run stopped on request after a checkpoint; the folder stays, marked "stopped", for
  /// `lievi resume` (an older folder moved aside by a forced replacement is removed now).
  void keep_for_resume();
  [[nodiscard]] bool in_place() const { return in_place_; }

  /// The folder to write into now.
  [[nodiscard]] const std::filesystem::path& tmp() const { return tmp_; }
  /// The final folder.
  [[nodiscard]] const std::filesystem::path& dir() const { return dir_; }
  /// Write the marker and rename tmp() to dir() (replacing an existing dir() when forced and still
  /// replaceable). Throws filesystem_error on failure; if dir() changed during the run so that it may no longer
  /// be replaced, the new outputs are kept in `DIR.new-<pid>` and the error says so.
  void commit();

 private:
  OutputDir() = default;
  std::filesystem::path dir_, tmp_, old_;
  bool force_ = false, committed_ = false, in_place_ = false;
};

}  // namespace lievi::io
