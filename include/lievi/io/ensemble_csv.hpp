#pragma once
/// @file lievi/io/ensemble_csv.hpp
/// @brief Ensemble statistics of the series of several noise paths: `series_mean.csv` and `series_std.csv`
/// (docs/outputs.md).
///
/// Every path contributes a table with the same columns, the first being the output time `t`; all paths
/// have the same number of rows and the same times. For every row and every column but `t`, the mean and
/// the sample standard deviation (ddof = 1) over the paths are accumulated by Welford's algorithm
///   n += 1;  d = x - mean;  mean += d / n;  M2 += d * (x - mean);   std = sqrt(M2 / (n - 1)),
/// in the order the paths are added. The caller adds the paths in path order (path 0, 1, 2, ...) whatever
/// order they were computed in, so the results are bitwise reproducible independently of the number of
/// threads. With a single path the standard deviation is written as 0 (not NaN). The `t` column is copied
/// from the first path into both files, not averaged.
#include <cstddef>
#include <filesystem>
#include <string>
#include <vector>

#include "lievi/core/state_io.hpp"

namespace lievi::io {

/// Running mean and sample standard deviation of the series of several paths.
class EnsembleSeries {
 public:
  /// `columns` are the column names, the first being the time `t`. Throws std::invalid_argument if empty.
  explicit EnsembleSeries(std::vector<std::string> columns);

  /// Add the series of the next path: rows[r][c] for column c of row r. Throws std::invalid_argument (and
  /// leaves the statistics unchanged) if a row does not have columns().size() values, or, for the second and
  /// later paths, if the number of rows or a time rows[r][0] differs from the first path's (compared with
  /// ==); the message names the path (0-based, in the order added) and the row (0-based).
  void add_path(const std::vector<std::vector<double>>& rows);

  /// Number of paths added.
  [[nodiscard]] std::size_t paths() const { return paths_; }
  /// Number of rows per path (0 before the first path).
  [[nodiscard]] std::size_t rows() const { return rows_; }
  /// The column names.
  [[nodiscard]] const std::vector<std::string>& columns() const { return columns_; }

  /// Mean over the paths at (row, col); for col 0 the time t. Throws std::out_of_range for a bad index or
  /// before the first path.
  [[nodiscard]] double mean(std::size_t row, std::size_t col) const;
  /// Sample standard deviation (ddof = 1) at (row, col), 0 with a single path; for col 0 the time t (as in
  /// series_std.csv). Throws std::out_of_range for a bad index or before the first path.
  [[nodiscard]] double stddev(std::size_t row, std::size_t col) const;

  /// Write the means to `mean_csv` and the standard deviations to `std_csv` (io::TableCsvWriter: same header,
  /// shortest round-trip numbers). Throws std::logic_error if no path was added, std::runtime_error on I/O
  /// failure.
  void write(const std::filesystem::path& mean_csv, const std::filesystem::path& std_csv) const;

  /// Save or restore the running statistics (paths added, rows, means, sums of squared deviations) for an
  /// ensemble's checkpoint: adding the next paths to the restored statistics gives the bits of the
  /// uninterrupted accumulation. A restore checks the column count (lievi::invalid_argument from the visitor).
  void checkpoint(StateIO& a);

 private:
  [[nodiscard]] std::size_t index(std::size_t row, std::size_t col) const;
  std::vector<std::string> columns_;
  std::size_t paths_ = 0, rows_ = 0;
  std::vector<double> mean_;  ///< rows_ x columns_ (column 0: t)
  std::vector<double> m2_;    ///< sum of squared deviations, rows_ x columns_ (column 0 unused)
};

}  // namespace lievi::io
