/// @file src/io/output_dir.cpp
/// @brief Atomic output folders (write into DIR.tmp-<pid>, rename to DIR at the end), the `.lievi-output` marker
/// that lets --force replace only what lievi wrote, and `DIR.partial` after a signal.
#include "lievi/io/output_dir.hpp"

#include <unistd.h>

#include <algorithm>
#include <ctime>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "lievi/core/error.hpp"
#include "lievi/io/interrupt.hpp"
#include "lievi/version.hpp"

namespace lievi::io {
namespace fs = std::filesystem;

namespace {

/// A marker larger than this is not one lievi wrote (its entry list is a few bytes per file).
constexpr std::uintmax_t kMaxMarkerBytes = 64u << 20;

/// Absolute, normalised, without a trailing separator.
fs::path normalised(const fs::path& dir) {
  fs::path p = fs::absolute(dir).lexically_normal();
  if (!p.has_filename() && p.has_parent_path()) p = p.parent_path();
  return p;
}

fs::path sibling(const fs::path& dir, const std::string& suffix) {
  return dir.parent_path() / (dir.filename().string() + suffix + std::to_string(::getpid()));
}

/// At most ~80 characters of a user's value in a message.
std::string shorten(const std::string& s) { return s.size() <= 80 ? s : s.substr(0, 77) + "..."; }

/// The protected inputs, canonical (resolved when registered).
std::vector<fs::path>& protected_inputs() {
  static std::vector<fs::path> v;
  return v;
}

/// Whether `inner` is `outer` or lies below it (both canonical).
bool contains(const fs::path& outer, const fs::path& inner) {
  const fs::path rel = inner.lexically_relative(outer);
  return !rel.empty() && *rel.begin() != "..";
}

/// The protected input inside `dir`, if any.
std::optional<fs::path> protected_input_in(const fs::path& dir) {
  std::error_code ec;
  const fs::path d = fs::weakly_canonical(dir, ec);
  if (ec) return std::nullopt;
  for (const auto& p : protected_inputs())
    if (contains(d, p)) return p;
  return std::nullopt;
}

std::string utc_now() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  ::gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

/// Every entry below `dir` (not following symbolic links) as a relative generic path, sorted, without the marker.
std::vector<std::string> entries_below(const fs::path& dir, std::error_code& ec) {
  std::vector<std::string> v;
  for (auto it = fs::recursive_directory_iterator(dir, ec); !ec && it != fs::recursive_directory_iterator();
       it.increment(ec)) {
    const std::string rel = it->path().lexically_relative(dir).generic_string();
    // the marker itself, and the transient files lievi renames into place (a kill can leave them behind)
    if (rel != output_marker && rel != std::string(output_marker) + ".tmp" && rel != "checkpoint.h5.tmp")
      v.push_back(rel);
  }
  std::sort(v.begin(), v.end());
  return v;
}

/// The files a run in place may write after its last checkpoint's marker (docs/outputs.md): those of its end,
/// and an ensemble's per-path series (written batch by batch), statistics and a slice's files.
bool end_of_run_output(const std::string& rel) {
  if (rel.find('/') != std::string::npos) return false;
  static const std::set<std::string> names = {"summary.json",    "fields.xdmf",     "beam.pvd", "final_fields.csv",
                                              "plot.log",        "motion.gif",      "series_mean.csv",
                                              "series_std.csv",  "series_paths.npy", "slice.json"};
  if (names.count(rel)) return true;
  const auto ends = [&](const std::string& suffix) {
    return rel.size() >= suffix.size() && rel.compare(rel.size() - suffix.size(), suffix.size(), suffix) == 0;
  };
  const auto digits_between = [&](const std::string& head, const std::string& tail) {
    if (rel.size() <= head.size() + tail.size() || rel.rfind(head, 0) != 0 || !ends(tail)) return false;
    const std::string mid = rel.substr(head.size(), rel.size() - head.size() - tail.size());
    return mid.find_first_not_of("0123456789") == std::string::npos;
  };
  return ends(".png") || (rel.rfind("beam_", 0) == 0 && ends(".vtp")) || digits_between("series_path", ".csv");
}

}  // namespace

void protect_input(const fs::path& path) {
  std::error_code ec;
  const fs::path p = fs::weakly_canonical(path, ec);
  if (!ec) protected_inputs().push_back(p);
}

std::optional<std::string> why_not_replaceable(const fs::path& dir) {
  if (const auto input = protected_input_in(dir)) return "contains the scenario file '" + shorten(input->string()) + "'";
  std::error_code ec;
  const fs::path marker = dir / output_marker;
  const std::string no_marker = "has no " + std::string(output_marker) + " marker, so lievi did not write it";
  if (!fs::is_regular_file(fs::symlink_status(marker, ec))) return no_marker;
  const auto size = fs::file_size(marker, ec);
  if (ec || size > kMaxMarkerBytes) return no_marker;
  std::ifstream in(marker, std::ios::binary);
  const nlohmann::json j = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object() || j.value("program", "") != "lievi" || !j.contains("entries") ||
      !j["entries"].is_array())
    return "has a " + std::string(output_marker) + " that lievi did not write";
  std::set<std::string> listed;
  for (const auto& e : j["entries"])
    if (e.is_string()) listed.insert(e.get<std::string>());
  const std::vector<std::string> now = entries_below(dir, ec);
  if (ec) return "cannot be read (" + ec.message() + ")";
  // A run written in place that was killed while it wrote its end-of-run files (summary, plots, the ParaView
  // files) left them unlisted: its marker still says "running". Those names are lievi's own outputs.
  const bool killed_in_place = j.value("state", "") == "running";
  std::vector<std::string> extra;
  for (const auto& e : now)
    if (!listed.count(e) && !(killed_in_place && end_of_run_output(e))) extra.push_back(e);
  if (!extra.empty())
    return "holds '" + shorten(extra.front()) + "'" +
           (extra.size() > 1 ? " and " + std::to_string(extra.size() - 1) + " more entries" : "") +
           " that lievi did not write there (its " + output_marker + " lists what it wrote)";
  return std::nullopt;
}

void write_output_marker(const fs::path& dir, const std::string& state, const std::string& signal) {
  std::error_code ec;
  nlohmann::json j;
  j["program"] = "lievi";
  j["version"] = lievi::version;
  j["state"] = state;
  j["time"] = utc_now();
  if (!signal.empty()) j["signal"] = signal;
  j["entries"] = entries_below(dir, ec);
  // written aside and renamed, so that a kill never leaves a half-written marker
  const fs::path tmp = dir / (std::string(output_marker) + ".tmp");
  std::ofstream out(tmp, std::ios::binary);
  out << j.dump(1) << "\n";
  out.close();
  if (out && !ec) fs::rename(tmp, dir / output_marker, ec);
  if (!out || ec)
    throw fs::filesystem_error("cannot write the output marker", dir / output_marker,
                               ec ? ec : std::make_error_code(std::errc::io_error));
}

std::string keep_partial_output(const fs::path& tmp, const fs::path& dir, const std::string& signal) {
  std::error_code ec;
  if (tmp == dir) {  // a run written in place (checkpoints): the folder stays, resumable from its checkpoint
    try {
      write_output_marker(dir, "interrupted", signal);
    } catch (const std::exception&) {
    }
    return "the outputs so far are in '" + dir.string() + "'" +
           (fs::exists(dir / "checkpoint.h5", ec) ? "; continue with: lievi resume " + dir.string()
                                                  : " (no checkpoint was written yet)");
  }
  const fs::path partial = dir.string() + ".partial";
  auto drop = [&](const std::string& why) {
    fs::remove_all(tmp, ec);
    return "the partial outputs were removed (" + why + ")";
  };
  fs::path aside;
  if (fs::exists(fs::symlink_status(partial, ec))) {
    if (const auto why = why_not_replaceable(partial)) return drop("'" + partial.string() + "' " + *why);
    aside = sibling(partial, ".old-");
    fs::remove_all(aside, ec);
    fs::rename(partial, aside, ec);
    if (ec) return drop("cannot move the older '" + partial.string() + "' aside: " + ec.message());
  }
  fs::rename(tmp, partial, ec);
  if (ec) return drop("cannot rename it to '" + partial.string() + "': " + ec.message());
  if (!aside.empty()) fs::remove_all(aside, ec);
  try {
    write_output_marker(partial, "interrupted", signal);  // after the rename: nothing more can appear in it
  } catch (const std::exception&) {
    return "the partial outputs are in '" + partial.string() + "' (without a marker)";
  }
  return "the partial outputs are in '" + partial.string() + "'";
}

void check_output_dir(const fs::path& dir_in, bool force) {
  const std::string shown = shorten(dir_in.string());
  auto fail = [&](const std::string& why) { throw invalid_argument("--out", "", "'" + shown + "': " + why); };
  if (dir_in.empty()) fail("empty output folder name; leave --out out for the default folder");
  const fs::path given_leaf = dir_in.has_filename() ? dir_in.filename() : dir_in.parent_path().filename();
  if (given_leaf == "." || given_leaf == "..") fail("must name a folder (not '.' or '..')");
  const fs::path dir = normalised(dir_in);
  const std::string leaf = dir.filename().string();
  if (leaf.empty() || dir == dir.root_path()) fail("must name a folder");
  // Replacing the working folder or one of its ancestors would delete the caller's own files.
  std::error_code ec;
  const fs::path cwd = fs::current_path(ec).lexically_normal();
  if (!ec && contains(dir, cwd)) fail("is the working folder or contains it; choose a folder below it");
  const auto st = fs::symlink_status(dir, ec);
  if (fs::exists(st)) {
    if (!fs::is_directory(fs::status(dir, ec))) fail("exists and is not a folder");
    if (const auto input = protected_input_in(dir))
      fail("contains the scenario file '" + shorten(input->string()) + "'; choose another folder");
    const bool empty = fs::is_empty(dir, ec);
    if (ec) fail("cannot read the existing folder (" + ec.message() + ")");
    if (!empty) {
      const auto why = why_not_replaceable(dir);
      if (why) fail("folder exists and is not empty; --force replaces only a folder lievi wrote, and this one " +
                    *why + "; nothing deleted, choose another folder");
      // a run with checkpoints that did not finish: say how to continue it rather than only how to replace it
      const bool resumable = fs::is_regular_file(dir / "checkpoint.h5", ec) && !fs::exists(dir / "summary.json", ec);
      if (!force)
        fail(resumable ? "folder holds a run that did not finish, with a checkpoint; continue it with: lievi resume " +
                             shorten(dir_in.string()) + " (or use --force to replace it)"
                       : "folder exists and is not empty (a lievi output); use --force to replace it");
    }
  }
  // The nearest existing ancestor must be a folder we may create entries in.
  fs::path anc = dir.parent_path();
  while (!anc.empty() && !fs::exists(fs::symlink_status(anc, ec))) {
    if (anc == anc.parent_path()) break;
    anc = anc.parent_path();
  }
  if (!fs::is_directory(fs::status(anc, ec)))
    fail("cannot be created: '" + shorten(anc.string()) + "' is not a folder");
  if (::access(anc.c_str(), W_OK | X_OK) != 0)
    fail("cannot be created: '" + shorten(anc.string()) + "' is not writable");
}

OutputDir::OutputDir(fs::path dir_in, bool force) : force_(force) {
  check_output_dir(dir_in, force);
  dir_ = normalised(dir_in);
  // Everything below runs under the interrupt registry's lock: a signal being handled holds it, so a folder
  // being created here (an ensemble path's, inside the run's temporary folder) cannot re-create a parent that
  // the watcher has just moved to DIR.partial.
  const auto registry = interrupt::lock();
  // Create the missing parents top-down, remembering them: a failure removes them again (nothing written).
  std::vector<fs::path> missing;
  std::error_code ec;
  for (fs::path p = dir_.parent_path(); !fs::exists(fs::symlink_status(p, ec)) && p != p.parent_path();
       p = p.parent_path())
    missing.push_back(p);
  std::vector<fs::path> made;
  try {
    for (auto it = missing.rbegin(); it != missing.rend(); ++it) {
      fs::create_directory(*it);
      made.push_back(*it);
    }
    const fs::path tmp = sibling(dir_, ".tmp-");
    fs::remove_all(tmp);  // a leftover of an earlier process with the same pid
    fs::create_directory(tmp);
    tmp_ = tmp;
    interrupt::set_pending_output(tmp_, dir_);
  } catch (const fs::filesystem_error& e) {
    for (auto it = made.rbegin(); it != made.rend(); ++it) fs::remove(*it, ec);
    throw invalid_argument("--out", "",
                           "'" + shorten(dir_in.string()) + "': cannot create '" + shorten(e.path1().string()) +
                               "' (" + e.code().message() + ")");
  }
}

OutputDir OutputDir::in_place(fs::path dir_in, bool force) {
  check_output_dir(dir_in, force);
  OutputDir d;
  d.force_ = force;
  d.in_place_ = true;
  d.dir_ = normalised(dir_in);
  const auto registry = interrupt::lock();
  std::error_code ec;
  try {
    if (fs::exists(fs::symlink_status(d.dir_, ec)) && !fs::is_empty(d.dir_, ec)) {
      // forced and replaceable (check_output_dir): moved aside now, removed once the new run is complete
      d.old_ = sibling(d.dir_, ".old-");
      fs::remove_all(d.old_);
      fs::rename(d.dir_, d.old_);
    }
    fs::create_directories(d.dir_);
  } catch (const fs::filesystem_error& e) {
    throw invalid_argument("--out", "",
                           "'" + shorten(dir_in.string()) + "': cannot create '" + shorten(e.path1().string()) +
                               "' (" + e.code().message() + ")");
  }
  d.tmp_ = d.dir_;
  write_output_marker(d.dir_, "running");
  interrupt::set_pending_output(d.tmp_, d.dir_);
  return d;
}

OutputDir OutputDir::reopen(fs::path dir_in) {
  OutputDir d;
  d.in_place_ = true;
  d.dir_ = normalised(dir_in);
  if (const auto why = why_not_replaceable(d.dir_))
    throw invalid_argument(dir_in.string(), "", "not a lievi output folder to resume: it " + *why);
  const auto registry = interrupt::lock();
  d.tmp_ = d.dir_;
  write_output_marker(d.dir_, "running");
  interrupt::set_pending_output(d.tmp_, d.dir_);
  return d;
}

OutputDir::OutputDir(OutputDir&& o) noexcept
    : dir_(std::move(o.dir_)), tmp_(std::move(o.tmp_)), old_(std::move(o.old_)), force_(o.force_),
      committed_(o.committed_), in_place_(o.in_place_) {
  o.tmp_.clear();
  o.committed_ = true;
}

void OutputDir::mark_running() const {
  if (in_place_) write_output_marker(dir_, "running");
}

void OutputDir::keep_for_resume() {
  if (!in_place_) return;
  const auto registry = interrupt::lock();
  write_output_marker(dir_, "stopped");
  committed_ = true;
  interrupt::clear_pending_output(tmp_, true);
  std::error_code ec;
  if (!old_.empty()) fs::remove_all(old_, ec);
}

OutputDir::~OutputDir() {
  const auto registry = interrupt::lock();  // waits forever if a signal is being handled: the watcher ends it
  if (in_place_) {
    if (!committed_ && !tmp_.empty()) {  // stopped by an error: the folder stays, resumable from its checkpoint
      try {
        write_output_marker(dir_, "interrupted");
      } catch (const std::exception&) {
      }
      interrupt::clear_pending_output(tmp_, false);
    }
    return;
  }
  if (!committed_ && !tmp_.empty()) {
    std::error_code ec;
    fs::remove_all(tmp_, ec);
    interrupt::clear_pending_output(tmp_, false);
  }
}

void OutputDir::commit() {
  if (in_place_) {
    const auto registry = interrupt::lock();
    write_output_marker(dir_, "written");
    committed_ = true;
    interrupt::clear_pending_output(tmp_, true);
    std::error_code ec;
    if (!old_.empty()) fs::remove_all(old_, ec);
    return;
  }
  write_output_marker(tmp_, "written");
  const auto registry = interrupt::lock();  // a signal now waits until the folder is final
  std::error_code ec;
  if (fs::exists(fs::symlink_status(dir_, ec))) {
    if (fs::is_empty(dir_, ec)) {
      fs::remove(dir_);
    } else {
      std::optional<std::string> why = why_not_replaceable(dir_);
      if (!force_) why = "appeared during the run";
      if (why) {
        // The folder changed while we ran: keep both, say where the new outputs are.
        const fs::path kept = sibling(dir_, ".new-");
        fs::rename(tmp_, kept);
        committed_ = true;
        interrupt::clear_pending_output(tmp_, false);
        throw fs::filesystem_error("output folder not replaced: it " + *why + "; the new outputs are in " +
                                       kept.string(),
                                   dir_, std::make_error_code(std::errc::file_exists));
      }
      // Replace only now that the new folder is complete: move the old one aside, move the new one in,
      // delete.
      const fs::path old = sibling(dir_, ".old-");
      fs::remove_all(old);
      fs::rename(dir_, old);
      fs::rename(tmp_, dir_);
      committed_ = true;
      interrupt::clear_pending_output(tmp_, true);
      fs::remove_all(old, ec);
      return;
    }
  }
  fs::rename(tmp_, dir_);
  committed_ = true;
  interrupt::clear_pending_output(tmp_, true);
}

}  // namespace lievi::io
