/// @file src/run/field_exchange.cpp
/// @brief field::FieldExchange on the job's ranks (src/run/field_exchange.hpp).
#include "field_exchange.hpp"

#include <cstdlib>
#include <cstring>
#include <string>
#include <utility>

#include "lievi/core/error.hpp"

namespace lievi::run::detail {

CommExchange::CommExchange(parallel::Comm& comm, std::ptrdiff_t n_nodes) : comm_(comm) {
  const int R = comm.size();
  if (n_nodes < R)
    throw invalid_argument("mpirun", "",
                           std::to_string(R) + " ranks cannot share a field of " + std::to_string(n_nodes) +
                               " nodes: every rank steps at least one node; use fewer ranks");
  cuts_.push_back(0);
  if (const char* v = std::getenv("LIEVI_TEST_DD_CUTS"); v != nullptr && *v != '\0') {
    const std::string text = v;
    std::size_t at = 0;
    while (at <= text.size()) {
      const std::size_t comma = text.find(',', at);
      const std::string item = text.substr(at, comma == std::string::npos ? std::string::npos : comma - at);
      char* end = nullptr;
      const long long c = std::strtoll(item.c_str(), &end, 10);
      if (item.empty() || *end != '\0' || c <= cuts_.back() || c >= n_nodes)
        throw invalid_argument("LIEVI_TEST_DD_CUTS", "",
                               "value '" + text + "' must be " + std::to_string(R - 1) +
                                   " increasing nodes between 0 and " + std::to_string(n_nodes));
      cuts_.push_back(static_cast<std::ptrdiff_t>(c));
      if (comma == std::string::npos) break;
      at = comma + 1;
    }
    if (static_cast<int>(cuts_.size()) != R)
      throw invalid_argument("LIEVI_TEST_DD_CUTS", "", "value '" + text + "' must name " + std::to_string(R - 1) + " cuts");
  } else {
    for (int r = 1; r < R; ++r) cuts_.push_back(static_cast<std::ptrdiff_t>((static_cast<long long>(r) * n_nodes) / R));
  }
  cuts_.push_back(n_nodes);
}

namespace {
/// The ranks on the left and on the right of rank r of R (-1: none there).
std::pair<int, int> neighbours(int r, int R, bool periodic) {
  return {r > 0 ? r - 1 : (periodic ? R - 1 : -1), r + 1 < R ? r + 1 : (periodic ? 0 : -1)};
}
}  // namespace

void CommExchange::halo_start(const double* to_left, double* from_right, const double* to_right, double* from_left,
                              std::size_t count, bool periodic) {
  const auto [left, right] = neighbours(rank(), size(), periodic);
  const std::size_t bytes = count * sizeof(double);
  if (to_left) comm_.start_exchange(to_left, bytes, left, from_right, bytes, right);
  if (to_right) comm_.start_exchange(to_right, bytes, right, from_left, bytes, left);
}

std::vector<double> CommExchange::all_gather(const std::vector<double>& mine) {
  const std::vector<char> all = comm_.all_gather(mine.data(), mine.size() * sizeof(double));
  std::vector<double> out(all.size() / sizeof(double));
  std::memcpy(out.data(), all.data(), out.size() * sizeof(double));
  return out;
}

std::vector<double> CommExchange::gather(const std::vector<double>& mine) {
  if (rank() != 0) {  // one message to rank 0, which takes them in rank order
    std::vector<char> m(mine.size() * sizeof(double));
    std::memcpy(m.data(), mine.data(), m.size());
    comm_.send(m, 0);
    return {};
  }
  std::vector<double> out = mine;
  for (int r = 1; r < size(); ++r) {
    const std::vector<char> m = comm_.recv(r);
    const std::size_t at = out.size();
    out.resize(at + m.size() / sizeof(double));
    std::memcpy(out.data() + at, m.data(), m.size() / sizeof(double) * sizeof(double));
  }
  return out;
}

}  // namespace lievi::run::detail
