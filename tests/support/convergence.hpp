#pragma once
/// @file tests/support/convergence.hpp
/// @brief Observed convergence orders from a sequence of step sizes and errors (log–log slopes).
///
/// For errors e_i at steps h_i the pairwise order is p_i = log(e_i / e_{i+1}) / log(h_i / h_{i+1}), and the
/// fitted order is the least-squares slope of log e against log h.
#include <cmath>
#include <cstddef>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

namespace lievi::test {

/// Pairwise orders p_i between consecutive (h_i, e_i), i = 0..n-2.
inline std::vector<double> pairwise_orders(const std::vector<double>& h, const std::vector<double>& e) {
  if (h.size() != e.size() || h.size() < 2) throw std::invalid_argument("pairwise_orders: need >= 2 pairs");
  std::vector<double> p;
  for (std::size_t i = 0; i + 1 < h.size(); ++i) p.push_back(std::log(e[i] / e[i + 1]) / std::log(h[i] / h[i + 1]));
  return p;
}

/// Least-squares slope of y against x.
inline double least_squares_slope(const std::vector<double>& x, const std::vector<double>& y) {
  if (x.size() != y.size() || x.size() < 2) throw std::invalid_argument("least_squares_slope: need >= 2 pairs");
  const double n = static_cast<double>(x.size());
  double sx = 0, sy = 0, sxx = 0, sxy = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    sx += x[i];
    sy += y[i];
    sxx += x[i] * x[i];
    sxy += x[i] * y[i];
  }
  return (n * sxy - sx * sy) / (n * sxx - sx * sx);
}

/// Least-squares slope of y_i against their index i (a drift per entry, e.g. of per-window maxima).
inline double slope_per_index(const std::vector<double>& y) {
  std::vector<double> x(y.size());
  for (std::size_t i = 0; i < y.size(); ++i) x[i] = static_cast<double>(i);
  return least_squares_slope(x, y);
}

/// Least-squares slope of log e against log h.
inline double fitted_order(const std::vector<double>& h, const std::vector<double>& e) {
  if (h.size() != e.size() || h.size() < 2) throw std::invalid_argument("fitted_order: need >= 2 pairs");
  std::vector<double> x, y;
  for (std::size_t i = 0; i < h.size(); ++i) x.push_back(std::log(h[i])), y.push_back(std::log(e[i]));
  return least_squares_slope(x, y);
}

/// "h=..: e=.. (p=..)" lines for failure messages and logs.
inline std::string order_table(const std::vector<double>& h, const std::vector<double>& e) {
  std::string s;
  char buf[128];
  for (std::size_t i = 0; i < h.size(); ++i) {
    if (i == 0)
      std::snprintf(buf, sizeof buf, "  h = %-10.6g error = %.3e\n", h[i], e[i]);
    else
      std::snprintf(buf, sizeof buf, "  h = %-10.6g error = %.3e  order = %.3f\n", h[i], e[i],
                    std::log(e[i - 1] / e[i]) / std::log(h[i - 1] / h[i]));
    s += buf;
  }
  return s;
}

}  // namespace lievi::test
