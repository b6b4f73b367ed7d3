#pragma once
/// @file src/run/field_exchange.hpp
/// @brief field::FieldExchange on the job's ranks (domain decomposition of one field, docs/distributed.md).
#include <cstddef>
#include <vector>

#include "lievi/field/exchange.hpp"
#include "lievi/parallel/comm.hpp"
#include "lievi/run/checkpoint.hpp"

namespace lievi::run::detail {

class CommExchange final : public field::FieldExchange {
 public:
  /// The blocks of `n_nodes` nodes over the job's ranks: as equal as they can be (block r starts at
  /// floor(r n / R)), or at the cuts of LIEVI_TEST_DD_CUTS ("a,b,...": R - 1 increasing nodes, a test hook).
  /// Throws lievi::invalid_argument when there are fewer nodes than ranks or the hook's cuts are not usable.
  CommExchange(parallel::Comm& comm, std::ptrdiff_t n_nodes);
  [[nodiscard]] int rank() const override { return comm_.rank(); }
  [[nodiscard]] int size() const override { return comm_.size(); }
  [[nodiscard]] const std::vector<std::ptrdiff_t>& cuts() const override { return cuts_; }
  void halo_start(const double* to_left, double* from_right, const double* to_right, double* from_left,
                  std::size_t count, bool periodic) override;
  void halo_finish() override { comm_.finish_exchanges(); }
  [[nodiscard]] std::vector<double> all_gather(const std::vector<double>& mine) override;
  [[nodiscard]] std::vector<double> gather(const std::vector<double>& mine) override;
  void all_gather_fixed(const double* mine, std::size_t count, double* all) override {
    comm_.all_gather_fixed(mine, count * sizeof(double), all);
  }

 private:
  parallel::Comm& comm_;
  std::vector<std::ptrdiff_t> cuts_;
};

/// Whether the checkpoint of level k is due, the same answer on every rank of a split field (`exchange` not
/// null): the step rules give it everywhere; a wall-time rule is rank 0's clock, sent to the others.
inline bool checkpoint_due(const Checkpointer& c, long long k, field::FieldExchange* exchange) {
  const bool due = c.due(k);
  if (!exchange || !c.by_wall()) return due;
  thread_local std::vector<double> all;  // every level: sized once, no allocation per step
  all.resize(static_cast<std::size_t>(exchange->size()));
  const double mine = exchange->rank() == 0 && due ? 1.0 : 0.0;
  exchange->all_gather_fixed(&mine, 1, all.data());
  return all.front() != 0.0;
}

}  // namespace lievi::run::detail
