#pragma once
/// @file lievi/io/table_csv.hpp
/// @brief Generic numeric CSV tables (e.g. `series_mean.csv`, docs/outputs.md): a header line of column
/// names, then one line per row of comma-separated numbers.
///
/// Numbers are written with the shortest decimal text that reads back to the same double (std::to_chars,
/// as io::format_number), so a reader recovers every finite value bitwise (including -0 and subnormals);
/// non-finite values are written `nan`, `inf`, `-inf` (the sign and payload of a NaN are not kept). Lines
/// end with '\n'. Rows are formatted into a buffer flushed in blocks of about 1 MiB: no allocation per row
/// once the buffer has grown.
#include <cstddef>
#include <cstdio>
#include <filesystem>
#include <span>
#include <string>
#include <vector>

#include "lievi/core/state_io.hpp"

namespace lievi::io {

/// Streaming writer of a numeric CSV table.
class TableCsvWriter {
 public:
  /// Create (truncate) `path` and buffer the header line. Throws std::invalid_argument if `columns` is empty or
  /// a name is empty or contains ',', '"', '\r' or '\n'; std::runtime_error (with the path and the system's
  /// message) if the file cannot be created.
  explicit TableCsvWriter(const std::filesystem::path& path, std::vector<std::string> columns);
  /// For a resumed run: opens nothing; restoring its checkpoint (checkpoint()) cuts `path` back to the length it
  /// had then and appends from there.
  struct Resume {};
  TableCsvWriter(const std::filesystem::path& path, std::vector<std::string> columns, Resume);
  /// Closes the file if close() was not called; errors are swallowed here (call close() to see them).
  ~TableCsvWriter();
  TableCsvWriter(const TableCsvWriter&) = delete;
  TableCsvWriter& operator=(const TableCsvWriter&) = delete;

  /// Append one row. Throws std::runtime_error if values.size() != number of columns (nothing is written),
  /// after close(), or if flushing the buffer to the file fails.
  void row(std::span<const double> values);
  /// Flush and close; throws std::runtime_error (naming the file) if any write or the close failed.
  /// Idempotent: later calls do nothing.
  void close();

  /// The column names.
  [[nodiscard]] const std::vector<std::string>& columns() const { return columns_; }
  /// Number of rows written (or buffered) so far.
  [[nodiscard]] std::size_t rows() const { return rows_; }
  /// Checkpoints (core/state_io.hpp): saving sends the rows so far to disk (fsync) and saves their length and
  /// count; restoring cuts the file back to that length and opens it for appending.
  void checkpoint(StateIO& a);

 private:
  void flush();
  std::filesystem::path path_;
  std::vector<std::string> columns_;
  std::FILE* f_ = nullptr;
  std::string buf_;  ///< formatted lines, flushed when larger than kFlushBytes
  std::size_t rows_ = 0;
  long long bytes_ = 0;  ///< written so far, buffered ones included
  bool closed_ = false;
  static constexpr std::size_t kFlushBytes = std::size_t{1} << 20;
};

/// A numeric CSV table read back (for tests and tools).
struct CsvTable {
  std::vector<std::string> columns;        ///< header names
  std::vector<std::vector<double>> rows;   ///< rows[r][c]
};

/// Read a table as written by TableCsvWriter: header line, then rows of exactly columns.size() numbers
/// (std::from_chars, so shortest round-trip text reads back bitwise; `nan`, `inf`, `-inf` accepted). A final
/// newline is optional and '\r' before '\n' is ignored. Throws std::runtime_error "FILE:LINE: ..." on a
/// malformed row (wrong number of fields, a field that is not entirely a number), and if the file cannot be
/// read or has no header.
[[nodiscard]] CsvTable read_csv_table(const std::filesystem::path& path);

}  // namespace lievi::io
