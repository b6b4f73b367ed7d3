#pragma once
/// @file lievi/io/npy.hpp
/// @brief NumPy's `.npy` format (version 1.0) for float64 arrays in C order: a writer that appends the values
/// in order (so that a file can be cut back to a checkpoint's length and continued) and a reader. `numpy.load`
/// reads the files; lievi writes them for an ensemble slice's per-path series (`series_paths.npy`, read back by
/// `lievi merge`).
///
/// The layout: the magic `\x93NUMPY`, version 1.0, a little-endian 16-bit header length, the header (a Python
/// dict literal `{'descr': '<f8', 'fortran_order': False, 'shape': (a, b, c), }` padded with spaces and ended
/// by a newline so that the data start at a multiple of 64 bytes), then the values as little-endian doubles.
#include <cstddef>
#include <cstdio>
#include <filesystem>
#include <span>
#include <vector>

namespace lievi::io {

class NpyWriter {
 public:
  /// Create `path` (replacing it) for an array of `shape`; the values follow by append(). Throws
  /// std::runtime_error naming the file when it cannot be written.
  NpyWriter(std::filesystem::path path, std::vector<std::size_t> shape);
  struct Resume {};
  /// Continue the array of `shape` in `path` after its first `bytes` bytes (header included): the file is cut
  /// back to them. Throws lievi::invalid_argument naming the file when it is shorter or its header differs.
  NpyWriter(std::filesystem::path path, std::vector<std::size_t> shape, long long bytes, Resume);
  ~NpyWriter();
  NpyWriter(const NpyWriter&) = delete;
  NpyWriter& operator=(const NpyWriter&) = delete;

  /// Append values (C order). Throws std::runtime_error on an I/O error or beyond the shape's size.
  void append(std::span<const double> values);
  /// Bytes written so far, header included (what a checkpoint records).
  [[nodiscard]] long long bytes() const { return bytes_; }
  /// Flush to the operating system (before a checkpoint records bytes()).
  void flush();
  /// Close; throws std::runtime_error if fewer values than the shape holds were appended.
  void close();

 private:
  std::filesystem::path path_;
  std::size_t size_ = 1, written_ = 0;
  long long header_ = 0, bytes_ = 0;
  std::FILE* f_ = nullptr;
};

/// An array read from a `.npy` file.
struct NpyArray {
  std::vector<std::size_t> shape;
  std::vector<double> data;  ///< C order
};

/// Read a float64 `.npy` file written in C order (little-endian, format version 1 or 2). Throws
/// lievi::invalid_argument naming the file when it is missing, not such a file, or shorter or longer than its
/// header says.
[[nodiscard]] NpyArray read_npy(const std::filesystem::path& path);

/// The header (magic to newline) of a float64 C-order array of `shape`.
[[nodiscard]] std::string npy_header(const std::vector<std::size_t>& shape);

}  // namespace lievi::io
