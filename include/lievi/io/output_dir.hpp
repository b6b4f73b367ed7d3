#pragma once
/// @file lievi/io/output_dir.hpp
/// @brief Atomic output folders: everything is written into `DIR.tmp-<pid>` and renamed to DIR at the end.
///
/// Rules (docs/interfaces.md "Output folder"): a non-empty existing DIR is refused unless `force`; with
/// `force` the old DIR is replaced only after the new one is complete; an unusable DIR (its nearest existing
/// ancestor is not a writable folder, DIR is a file, ...) is bad input found by `check` before anything is
/// written.
#include <filesystem>

namespace lievi::io {

/// Throws lievi::invalid_argument (file "--out") when `dir` cannot be used; creates nothing.
void check_output_dir(const std::filesystem::path& dir, bool force);

/// A temporary folder next to the final one; removed on destruction unless committed.
class OutputDir {
 public:
  /// Checks `dir` (check_output_dir), creates its missing parents and `DIR.tmp-<pid>`. Throws
  /// lievi::invalid_argument for bad input, std::filesystem::filesystem_error for I/O errors.
  OutputDir(std::filesystem::path dir, bool force);
  ~OutputDir();
  OutputDir(const OutputDir&) = delete;
  OutputDir& operator=(const OutputDir&) = delete;

  /// The folder to write into now.
  [[nodiscard]] const std::filesystem::path& tmp() const { return tmp_; }
  /// The final folder.
  [[nodiscard]] const std::filesystem::path& dir() const { return dir_; }
  /// Rename tmp() to dir() (replacing an existing dir() when forced). Throws filesystem_error on failure.
  void commit();

 private:
  std::filesystem::path dir_, tmp_;
  bool force_ = false, committed_ = false;
};

}  // namespace lievi::io
