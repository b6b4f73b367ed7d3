#pragma once
/// @file lievi/run/checkpoint.hpp
/// @brief When a run writes checkpoint.h5 and what it puts in it (docs/outputs.md "Checkpoints").
///
/// The rule of every run loop: a checkpoint of level n is taken after step n is accepted and before level n's
/// observers and outputs run. It holds the state of level n (and everything the next step reads), the
/// accumulators of the diagnostics and counters as they were before level n, and the lengths of the output
/// files before level n's rows. Resuming restores all of it, cuts the files back to those lengths, emits level
/// n again (its observers and outputs, under the resumed scenario: an extended t_end turns the former last
/// level into an ordinary one) and steps on from n + 1, so the outputs equal the uninterrupted run's bit for
/// bit. Checkpoints are taken every `output.checkpoint_every` steps, when `output.checkpoint_wall` seconds of
/// wall time have passed since the last one, and at the last step (for `lievi resume --set
/// integrator.t_end=...`).
#include <chrono>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "lievi/io/checkpoint.hpp"

namespace lievi::run {

class Checkpointer {
 public:
  /// Checkpoints into `dir`/checkpoint.h5 of a run of scenario `s` (its model type, name, resolved TOML,
  /// source and given keys; `toml` its resolved text): every `s.checkpoint_every` steps, after
  /// `s.checkpoint_wall` seconds, at the last step.
  template <class Scenario>
  Checkpointer(std::filesystem::path dir, const Scenario& s, std::string toml)
      : Checkpointer(std::move(dir), s.model_type, s.name, std::move(toml),
                     s.source.empty() ? std::string() : std::filesystem::absolute(s.source).string(),
                     lines(s.given_keys), s.steps, s.checkpoint_every, s.checkpoint_wall) {}
  Checkpointer(std::filesystem::path dir, std::string model, std::string name, std::string scenario,
               std::string source, std::string given_keys, long long steps, long long every, double wall);
  /// Whether level k (1 <= k <= N) gets a checkpoint.
  [[nodiscard]] bool due(long long k) const;
  /// Ensembles (checkpoints between batches of paths): whether one is due after a batch, `work` path-steps
  /// after the last one (`output.checkpoint_every` counts path-steps) or `output.checkpoint_wall` seconds.
  [[nodiscard]] bool due_work(long long work) const;
  /// Stop the run after the checkpoint of level k (0: never).
  void stop_at(long long k) { stop_at_ = k; }
  /// Whether the run stops after the checkpoint of level k.
  [[nodiscard]] bool stops_at(long long k) const { return stop_at_ > 0 && k == stop_at_; }
  /// Write the checkpoint of level k at t_k; `save(StateIO&)` saves every component.
  template <class Save>
  void write(long long k, double t, Save&& save) {
    io::CheckpointData d = start(k, t);
    io::CheckpointSaver saver(d);
    save(static_cast<StateIO&>(saver));
    finish(d);
  }
  [[nodiscard]] long long written() const { return written_; }
  /// Whether checkpoints are also due by wall time (output.checkpoint_wall).
  [[nodiscard]] bool by_wall() const { return wall_ > 0.0; }

 private:
  static std::string lines(const std::vector<std::string>& v) {
    std::string out;
    for (const auto& x : v) out += x + "\n";
    return out;
  }
  io::CheckpointData start(long long k, double t) const;
  void finish(io::CheckpointData& d);
  std::filesystem::path dir_;
  std::string model_, name_, scenario_, source_, given_keys_;
  long long steps_, every_;
  double wall_;
  std::chrono::steady_clock::time_point last_;
  long long written_ = 0;
  long long stop_at_ = 0;
};

/// A run to be continued from a checkpoint: the checkpoint and the file it came from.
struct ResumeFrom {
  io::CheckpointData data;
  std::filesystem::path file;
};

}  // namespace lievi::run
