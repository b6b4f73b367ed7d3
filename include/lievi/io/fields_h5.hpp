#pragma once
/// @file lievi/io/fields_h5.hpp
/// @brief `fields.h5` (docs/outputs.md): snapshots of node and segment fields at output times, in HDF5.
///
/// Layout: `/t[n_out]`, `/s[n_nodes]` (node positions), then one dataset per field, shape
/// [n_out, n_items, comp...] (e.g. wave `/phi[n_out, n_nodes]`; beam `/R[n_out, n_nodes, 3, 3]`), float64,
/// chunked and extendible along the first axis so snapshots are appended as the run goes (no knowledge of
/// the number of outputs needed). Field attributes (e.g. `time_offset = +dt/2` for half-step velocities) are
/// set at creation. Root attributes: `lievi_version`, `model`. The file is closed (and flushed) by `close()`
/// or the destructor; the run writes it inside its temporary output folder, so a reader never sees a
/// half-written file in the final folder.
///
/// Details of the implementation (src/io/fields_h5.cpp):
/// - every dataset is IEEE float64 little-endian (`H5T_IEEE_F64LE`); `/s` is contiguous, fixed size;
///   `/t` and the fields have maximum extent `H5S_UNLIMITED` along the first axis;
/// - chunks: a field whose snapshot is at least 64 KiB gets one snapshot per chunk, split along the items
///   axis when a snapshot is larger than 1 MiB; smaller fields get several snapshots per chunk (about
///   64 KiB); `/t` has chunks of 1024 values. No compression, so the values are stored bitwise;
/// - strings (`description`, `lievi_version`, `model`) are scalar fixed-length UTF-8 strings;
/// - `/t` carries `description = "output times"`, `/s` `description = "node positions"`;
/// - `append` writes the fields first and then `/t`, so `/t` never lists a snapshot that is not stored.
///
/// Errors: HDF5's automatic error printing is turned off (H5Eset_auto2) and every failure throws
/// std::runtime_error naming the file, the dataset and the HDF5 call, plus HDF5's innermost message.
///
/// This header does not include HDF5: the implementation (src/io/fields_h5.cpp) does.
#include <cstddef>
#include <filesystem>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "lievi/core/state_io.hpp"

namespace lievi::io {

/// One field dataset: name, per-snapshot shape (items, components...), optional double attributes.
struct FieldSpec {
  std::string name;                  ///< dataset name without '/', e.g. "phi"; not "t" or "s", unique
  std::vector<std::size_t> shape;    ///< per-snapshot shape, e.g. {n_nodes} or {n_nodes, 3, 3}; no zero extent
  std::vector<std::pair<std::string, double>> attributes;  ///< e.g. {{"time_offset", dt / 2}}
  std::string doc;                   ///< stored as the string attribute "description"
};

class FieldsH5Writer {
 public:
  /// Create `path` (truncate), write `/s` and the root attributes and create the (empty) datasets. Throws
  /// std::runtime_error naming the path and the HDF5 call on failure, and also (before touching the file)
  /// for an invalid spec: empty, duplicate, "t"/"s" or '/'-containing name, zero extent in a shape, empty or
  /// duplicate attribute name, an attribute named "description".
  FieldsH5Writer(const std::filesystem::path& path, std::span<const double> s, std::vector<FieldSpec> fields,
                 const std::string& model);
  /// Closes the file if close() was not called; errors are swallowed here (call close() to see them).
  ~FieldsH5Writer();
  FieldsH5Writer(const FieldsH5Writer&) = delete;
  FieldsH5Writer& operator=(const FieldsH5Writer&) = delete;

  /// Append one snapshot at time t: data[f] holds the values of field f in C order (size = product of its
  /// shape). Throws std::runtime_error on a size mismatch (checked for every field before anything is
  /// written, so the file is unchanged), after close(), or on an HDF5 error.
  void append(double t, std::span<const std::span<const double>> data);
  /// Number of snapshots written.
  [[nodiscard]] std::size_t size() const;
  /// Flush and close; throws std::runtime_error on failure. Idempotent.
  void close();

  /// For runs with checkpoints (run/checkpoint.hpp): the writer keeps HDF5's metadata in memory between
  /// checkpoints (no metadata eviction), so that what is on disk is the file as of the last checkpoint plus
  /// raw snapshot data beyond it; a kill at any moment leaves a file that reopens at the checkpoint's count.
  struct CrashSafe {};
  FieldsH5Writer(const std::filesystem::path& path, std::span<const double> s, std::vector<FieldSpec> fields,
                 const std::string& model, CrashSafe);
  /// For a resumed run: opens nothing until its checkpoint is restored, which reopens `path` and cuts every
  /// dataset back to the snapshots written at the checkpoint.
  struct Resume {};
  FieldsH5Writer(const std::filesystem::path& path, std::vector<FieldSpec> fields, Resume);
  /// Saving: everything written goes to disk (HDF5 flush, fsync) and the snapshot count is saved; restoring:
  /// see Resume (lievi::invalid_argument naming the file when it does not hold that many snapshots).
  void checkpoint(StateIO& a);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// Read back a whole dataset as doubles (C order) with its shape; for tests and tools. Throws
/// std::runtime_error if the file or dataset is missing. `name` may omit the leading '/'.
struct H5Array {
  std::vector<std::size_t> shape;  ///< the dataset's current extent (empty for a scalar dataset)
  std::vector<double> data;        ///< product of shape values, C order
};
[[nodiscard]] H5Array read_h5_dataset(const std::filesystem::path& path, const std::string& name);
/// Read a double attribute of a dataset (or of the root when dataset is "/"). Throws std::runtime_error if
/// the file, the object or the attribute is missing or the attribute is not a single number.
[[nodiscard]] double read_h5_attribute(const std::filesystem::path& path, const std::string& dataset,
                                       const std::string& attribute);
/// Read a string attribute (fixed-length or variable-length) of a dataset or of the root ("/"), trailing NUL
/// padding removed. Throws std::runtime_error as read_h5_attribute, or if the attribute is not a string.
[[nodiscard]] std::string read_h5_string_attribute(const std::filesystem::path& path, const std::string& dataset,
                                                   const std::string& attribute);

}  // namespace lievi::io
