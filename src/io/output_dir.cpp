/// @file src/io/output_dir.cpp
/// @brief Atomic output folders (write into DIR.tmp-<pid>, rename to DIR).
#include "lievi/io/output_dir.hpp"

#include <unistd.h>

#include <string>

#include "lievi/core/error.hpp"

namespace lievi::io {
namespace fs = std::filesystem;

namespace {

/// Absolute, normalised, without a trailing separator.
fs::path normalised(const fs::path& dir) {
  fs::path p = fs::absolute(dir).lexically_normal();
  if (!p.has_filename() && p.has_parent_path()) p = p.parent_path();
  return p;
}

fs::path sibling(const fs::path& dir, const std::string& suffix) {
  return dir.parent_path() / (dir.filename().string() + suffix + std::to_string(::getpid()));
}

}  // namespace

void check_output_dir(const fs::path& dir_in, bool force) {
  const std::string shown = dir_in.string();
  auto fail = [&](const std::string& why) { throw invalid_argument("--out", "", "'" + shown + "': " + why); };
  if (dir_in.empty()) fail("empty output folder name");
  const fs::path given_leaf = dir_in.has_filename() ? dir_in.filename() : dir_in.parent_path().filename();
  if (given_leaf == "." || given_leaf == "..") fail("must name a folder (not '.' or '..')");
  const fs::path dir = normalised(dir_in);
  const std::string leaf = dir.filename().string();
  if (leaf.empty() || dir == dir.root_path()) fail("must name a folder");
  // Replacing the working folder or one of its ancestors would delete the caller's own files.
  std::error_code ec;
  const fs::path cwd = fs::current_path(ec).lexically_normal();
  const auto rel = cwd.lexically_relative(dir);
  if (!ec && !rel.empty() && *rel.begin() != "..")
    fail("is the working folder or contains it; choose a folder below it");
  const auto st = fs::symlink_status(dir, ec);
  if (fs::exists(st)) {
    if (!fs::is_directory(fs::status(dir, ec))) fail("exists and is not a folder");
    if (!fs::is_empty(dir, ec) && !force) fail("folder exists and is not empty; use --force to replace it");
    if (ec) fail("cannot read the existing folder (" + ec.message() + ")");
  }
  // The nearest existing ancestor must be a folder we may create entries in.
  fs::path anc = dir.parent_path();
  while (!anc.empty() && !fs::exists(fs::symlink_status(anc, ec))) {
    if (anc == anc.parent_path()) break;
    anc = anc.parent_path();
  }
  if (!fs::is_directory(fs::status(anc, ec)))
    fail("cannot be created: '" + anc.string() + "' is not a folder");
  if (::access(anc.c_str(), W_OK | X_OK) != 0)
    fail("cannot be created: '" + anc.string() + "' is not writable");
}

OutputDir::OutputDir(fs::path dir, bool force) : force_(force) {
  check_output_dir(dir, force);
  dir_ = normalised(dir);
  fs::create_directories(dir_.parent_path());
  tmp_ = sibling(dir_, ".tmp-");
  fs::remove_all(tmp_);  // a leftover of an earlier process with the same pid
  fs::create_directory(tmp_);
}

OutputDir::~OutputDir() {
  if (!committed_ && !tmp_.empty()) {
    std::error_code ec;
    fs::remove_all(tmp_, ec);
  }
}

void OutputDir::commit() {
  std::error_code ec;
  if (fs::exists(fs::symlink_status(dir_, ec))) {
    if (fs::is_empty(dir_, ec)) {
      fs::remove(dir_);
    } else {
      if (!force_)
        throw fs::filesystem_error("output folder appeared during the run", dir_,
                                   std::make_error_code(std::errc::file_exists));
      // Replace only now that the new folder is complete: move the old one aside, move the new one in,
      // delete.
      const fs::path old = sibling(dir_, ".old-");
      fs::remove_all(old);
      fs::rename(dir_, old);
      fs::rename(tmp_, dir_);
      committed_ = true;
      fs::remove_all(old, ec);
      return;
    }
  }
  fs::rename(tmp_, dir_);
  committed_ = true;
}

}  // namespace lievi::io
