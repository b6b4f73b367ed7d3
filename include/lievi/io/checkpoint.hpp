#pragma once
/// @file lievi/io/checkpoint.hpp
/// @brief `checkpoint.h5` (docs/outputs.md "Checkpoints"): everything a run's next step reads, to resume it
/// bit for bit.
///
/// Contents: the format name and version, the lievi version that wrote it, the model type, the resolved
/// scenario (TOML text), the level n of the state and its time, and the named state: arrays of doubles and of
/// integers that the run's components save and restore through the one StateIO visitor (core/state_io.hpp),
/// and a checksum over all of it. In HDF5 (src/io/fields_h5_module.cpp): root attributes `format`,
/// `format_version`, `lievi_version`, `model`, `scenario_name`, `checksum`; datasets `/scenario`, `/source`, `/given_keys` (strings), `/step`, `/t`,
/// `/reals/<name>` (float64) and `/integers/<name>` (int64), names with '/' as groups.
///
/// Writing is atomic: the file is written as `checkpoint.h5.tmp`, flushed to disk (fsync), renamed over
/// `checkpoint.h5` and the folder flushed, so a kill at any moment leaves the previous checkpoint or the new
/// one. Reading verifies the format, the version, the lievi version and the checksum and throws
/// lievi::invalid_argument naming the file otherwise (a truncated or damaged file, another format version,
/// another lievi version: exit 2 from the CLI).
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "lievi/core/state_io.hpp"

namespace lievi::io {

/// Raised whenever the layout or the meaning of a checkpoint's entries changes.
inline constexpr long long kCheckpointFormatVersion = 1;
/// The file name inside the output folder.
inline constexpr const char* checkpoint_file = "checkpoint.h5";

struct CheckpointData {
  long long format_version = kCheckpointFormatVersion;
  std::string lievi_version;  ///< set by write_checkpoint
  std::string model;          ///< model.type
  std::string name;           ///< the scenario's name (its file's stem)
  std::string scenario;       ///< the resolved scenario (TOML) of the run
  std::string source;         ///< the file it was read from, absolute ("" for a string): files it names are
                              ///< found relative to its folder again
  std::string given_keys;     ///< the keys given in the file or by --set, one per line (notes, summary)
  long long step = 0;         ///< the level n of the state
  double t = 0.0;             ///< t_n
  std::map<std::string, std::vector<double>> reals;
  std::map<std::string, std::vector<long long>> integers;
  std::string checksum;  ///< set by write_checkpoint, verified by read_checkpoint
};

/// The checksum of everything but the checksum (64-bit, hex).
[[nodiscard]] std::string checkpoint_checksum(const CheckpointData& c);

/// Write `c` (its version and checksum filled in) atomically as `path` (see the file comment). Throws
/// std::runtime_error on an I/O error; the previous file at `path` is then untouched.
void write_checkpoint(const std::filesystem::path& path, CheckpointData& c);

/// Read and verify a checkpoint; lievi::invalid_argument (file `path`) when it is missing, unreadable,
/// truncated, damaged (checksum), of another format version or written by another lievi version.
[[nodiscard]] CheckpointData read_checkpoint(const std::filesystem::path& path);

/// Cut an output file back to the length a checkpoint recorded before appending to it again. Throws
/// lievi::invalid_argument naming the file when it is missing or shorter (the folder does not belong to the
/// checkpoint).
void truncate_output(const std::filesystem::path& file, long long bytes);

/// The saving visitor: copies the visited members into `data` (an entry visited twice is an error).
class CheckpointSaver final : public StateIO {
 public:
  explicit CheckpointSaver(CheckpointData& data) : data_(data) {}
  [[nodiscard]] bool restoring() const override { return false; }
  void doubles(const std::string& name, double* data, std::size_t n) override;
  void integers(const std::string& name, long long* data, std::size_t n) override;

 private:
  CheckpointData& data_;
};

/// The restoring visitor: copies the entries of `data` into the visited members; an entry missing or of
/// another size throws lievi::invalid_argument naming `file` and the entry (the checkpoint is not of this
/// run's model, grid or method). `unused()` lists the entries never visited.
class CheckpointLoader final : public StateIO {
 public:
  CheckpointLoader(const CheckpointData& data, std::filesystem::path file) : data_(data), file_(std::move(file)) {}
  [[nodiscard]] bool restoring() const override { return true; }
  void doubles(const std::string& name, double* data, std::size_t n) override;
  void integers(const std::string& name, long long* data, std::size_t n) override;
  [[nodiscard]] std::vector<std::string> unused() const;

 private:
  const CheckpointData& data_;
  std::filesystem::path file_;
  std::vector<std::string> visited_;
};

}  // namespace lievi::io
