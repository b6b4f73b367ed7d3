/// @file src/io/ensemble_csv.cpp
/// @brief Welford mean / sample standard deviation over noise paths, written as series_mean.csv and
/// series_std.csv.
#include "lievi/io/ensemble_csv.hpp"

#include <cmath>
#include <stdexcept>

#include "lievi/io/table_csv.hpp"

namespace lievi::io {

EnsembleSeries::EnsembleSeries(std::vector<std::string> columns) : columns_(std::move(columns)) {
  if (columns_.empty()) throw std::invalid_argument("ensemble series: no columns");
}

void EnsembleSeries::add_path(const std::vector<std::vector<double>>& rows) {
  const std::size_t nc = columns_.size();
  const std::string who = "ensemble series: path " + std::to_string(paths_);
  if (paths_ > 0 && rows.size() != rows_)
    throw std::invalid_argument(who + " has " + std::to_string(rows.size()) + " rows, path 0 has " +
                                std::to_string(rows_));
  for (std::size_t r = 0; r < rows.size(); ++r) {
    if (rows[r].size() != nc)
      throw std::invalid_argument(who + " row " + std::to_string(r) + " has " + std::to_string(rows[r].size()) +
                                  " values, expected " + std::to_string(nc));
    if (paths_ > 0 && !(rows[r][0] == mean_[r * nc]))
      throw std::invalid_argument(who + " row " + std::to_string(r) + " has t = " + std::to_string(rows[r][0]) +
                                  ", path 0 has t = " + std::to_string(mean_[r * nc]));
  }
  if (paths_ == 0) {
    rows_ = rows.size();
    mean_.assign(rows_ * nc, 0.0);
    m2_.assign(rows_ * nc, 0.0);
    for (std::size_t r = 0; r < rows_; ++r) mean_[r * nc] = rows[r][0];
  }
  const double n = static_cast<double>(paths_ + 1);
  for (std::size_t r = 0; r < rows_; ++r)
    for (std::size_t c = 1; c < nc; ++c) {
      const double x = rows[r][c];
      double& m = mean_[r * nc + c];
      const double d = x - m;
      m += d / n;
      m2_[r * nc + c] += d * (x - m);
    }
  ++paths_;
}

std::size_t EnsembleSeries::index(std::size_t row, std::size_t col) const {
  if (paths_ == 0) throw std::out_of_range("ensemble series: no path added");
  if (row >= rows_ || col >= columns_.size())
    throw std::out_of_range("ensemble series: (" + std::to_string(row) + ", " + std::to_string(col) +
                            ") outside " + std::to_string(rows_) + " x " + std::to_string(columns_.size()));
  return row * columns_.size() + col;
}

double EnsembleSeries::mean(std::size_t row, std::size_t col) const { return mean_[index(row, col)]; }

double EnsembleSeries::stddev(std::size_t row, std::size_t col) const {
  const std::size_t i = index(row, col);
  if (col == 0) return mean_[i];
  if (paths_ < 2) return 0.0;
  return std::sqrt(m2_[i] / static_cast<double>(paths_ - 1));
}

void EnsembleSeries::write(const std::filesystem::path& mean_csv, const std::filesystem::path& std_csv) const {
  if (paths_ == 0) throw std::logic_error("ensemble series: write before any path was added");
  const std::size_t nc = columns_.size();
  TableCsvWriter wm(mean_csv, columns_), ws(std_csv, columns_);
  std::vector<double> line(nc);
  for (std::size_t r = 0; r < rows_; ++r) {
    wm.row(std::span<const double>(mean_.data() + r * nc, nc));
    for (std::size_t c = 0; c < nc; ++c) line[c] = stddev(r, c);
    ws.row(line);
  }
  wm.close();
  ws.close();
}

void EnsembleSeries::checkpoint(StateIO& a) {
  long long cols = static_cast<long long>(columns_.size());
  const long long cols_now = cols;
  a("columns", cols);
  if (cols != cols_now)
    throw std::invalid_argument("ensemble series: the checkpoint has " + std::to_string(cols) + " columns, the run " +
                                std::to_string(cols_now));
  long long paths = static_cast<long long>(paths_), rows = static_cast<long long>(rows_);
  a("paths", paths);
  a("rows", rows);
  if (paths < 0 || rows < 0)
    throw std::invalid_argument("ensemble series: a checkpoint with " + std::to_string(paths) + " paths and " +
                                std::to_string(rows) + " rows");
  paths_ = static_cast<std::size_t>(paths);
  rows_ = static_cast<std::size_t>(rows);
  mean_.resize(paths_ > 0 ? rows_ * columns_.size() : 0);
  m2_.resize(mean_.size());
  a("mean", mean_);
  a("m2", m2_);
}

}  // namespace lievi::io
