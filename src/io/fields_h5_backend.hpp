#pragma once
/// @file src/io/fields_h5_backend.hpp
/// @brief What lievi's HDF5 module (liblievi_hdf5.so, built from src/io/fields_h5_module.cpp) gives the
/// library: the fields.h5 writer and readers behind a table of functions.
///
/// Why a module: the HDF5 library pulls in about thirty shared libraries (curl, TLS, Kerberos, LDAP, ...)
/// whose loading and relocation were most of lievi's start-up time. The library opens the module with
/// dlopen the first time a run writes or a caller reads fields.h5 (src/io/fields_h5.cpp), so a run without
/// fields.h5 never loads HDF5. Module and library come from the same build (same compiler and standard
/// library), so C++ types cross the boundary; `abi` guards against a module of another lievi version.
#include <cstddef>
#include <filesystem>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "lievi/io/checkpoint.hpp"
#include "lievi/io/fields_h5.hpp"

namespace lievi::io::detail {

/// One open fields.h5 file being written (the module's writer).
class H5FileWriter {
 public:
  virtual ~H5FileWriter() = default;
  virtual void append(double t, std::span<const std::span<const double>> data) = 0;
  [[nodiscard]] virtual std::size_t size() const = 0;
  virtual void close() = 0;
  /// Everything written to disk: HDF5 flush and fsync.
  virtual void flush() = 0;
};

struct H5Backend {
  /// kH5BackendAbi of the build that made the module; the library refuses any other value.
  int abi;
  /// The lievi version the module was built from (refused when it differs from the library's).
  const char* version;
  /// `crash_safe`: no metadata eviction between flushes (FieldsH5Writer::CrashSafe).
  std::unique_ptr<H5FileWriter> (*create)(const std::filesystem::path& path, std::span<const double> s,
                                          std::vector<FieldSpec> fields, const std::string& model, bool crash_safe);
  /// An existing file written by `create` with these fields, every dataset cut back to `snapshots` (crash safe).
  std::unique_ptr<H5FileWriter> (*reopen)(const std::filesystem::path& path, std::vector<FieldSpec> fields,
                                          std::size_t snapshots);
  H5Array (*read_dataset)(const std::filesystem::path& path, const std::string& name);
  double (*read_attribute)(const std::filesystem::path& path, const std::string& dataset,
                           const std::string& attribute);
  std::string (*read_string_attribute)(const std::filesystem::path& path, const std::string& dataset,
                                       const std::string& attribute);
  /// checkpoint.h5 (lievi/io/checkpoint.hpp): write `c` as it is to `path` (truncated), flushed and closed;
  /// read one back as stored (a file of another format version with only its root attributes). Both throw
  /// std::runtime_error naming the path and the HDF5 call.
  void (*write_checkpoint)(const std::filesystem::path& path, const CheckpointData& c);
  CheckpointData (*read_checkpoint)(const std::filesystem::path& path);
};

/// Raised whenever the table above changes.
inline constexpr int kH5BackendAbi = 3;

/// The module's checkpoint writer and reader, loading the module on first use (src/io/fields_h5.cpp).
void h5_write_checkpoint(const std::filesystem::path& path, const CheckpointData& c);
[[nodiscard]] CheckpointData h5_read_checkpoint(const std::filesystem::path& path);

}  // namespace lievi::io::detail

/// The module's one exported symbol.
extern "C" const lievi::io::detail::H5Backend* lievi_hdf5_backend();
