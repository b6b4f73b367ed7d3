#pragma once
/// @file lievi/field/exchange.hpp
/// @brief What a stepper that steps one block of a decomposed field needs from the processes stepping the
/// others (domain decomposition, docs/distributed.md): the blocks, the values at the blocks' edges, and
/// gathers in block order. No MPI here: lievi/run implements it on lievi::parallel::Comm.
#include <cstddef>
#include <vector>

namespace lievi::field {

class FieldExchange {
 public:
  virtual ~FieldExchange() = default;
  /// This process's block and the number of blocks.
  [[nodiscard]] virtual int rank() const = 0;
  [[nodiscard]] virtual int size() const = 0;
  /// The first node of every block and the node count at the end (size() + 1 values): block r steps the
  /// nodes [cuts[r], cuts[r + 1]) and the segments that start at them.
  [[nodiscard]] virtual const std::vector<std::ptrdiff_t>& cuts() const = 0;
  /// The halo, started here and overlapped with computation: `count` doubles at `to_left` go to the block on
  /// the left and arrive at its `from_right`; `to_right` to the block on the right, arriving at its
  /// `from_left`. On a periodic grid the first and the last block are neighbours (with one block, itself);
  /// otherwise the ends have no neighbour there and the pointers that way are not used. Either pair may be null
  /// (that direction is not exchanged). Returns at once: the values have arrived, and the buffers may be
  /// touched again, when halo_finish() returns. One halo at a time.
  virtual void halo_start(const double* to_left, double* from_right, const double* to_right, double* from_left,
                          std::size_t count, bool periodic) = 0;
  virtual void halo_finish() = 0;
  /// Every block's `mine`, concatenated in block order, on every block.
  [[nodiscard]] virtual std::vector<double> all_gather(const std::vector<double>& mine) = 0;
  /// Every block's `count` doubles at `mine` (the same count on every block) into `all` (size() x count), in
  /// block order, on every block; allocates nothing (the exchanges of a step).
  virtual void all_gather_fixed(const double* mine, std::size_t count, double* all) = 0;
  /// Every block's `mine`, concatenated in block order, on block 0 (the process that writes the outputs);
  /// empty on the others.
  [[nodiscard]] virtual std::vector<double> gather(const std::vector<double>& mine) = 0;
};

}  // namespace lievi::field
