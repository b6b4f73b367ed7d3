/// @file src/run/checkpoint.cpp
/// @brief The checkpoint schedule and the truncation of outputs on resume (lievi/run/checkpoint.hpp).
#include "lievi/run/checkpoint.hpp"

#include "lievi/io/output_dir.hpp"


namespace lievi::run {
namespace fs = std::filesystem;

Checkpointer::Checkpointer(fs::path dir, std::string model, std::string name, std::string scenario,
                           std::string source, std::string given_keys, long long steps, long long every, double wall)
    : dir_(std::move(dir)),
      model_(std::move(model)),
      name_(std::move(name)),
      scenario_(std::move(scenario)),
      source_(std::move(source)),
      given_keys_(std::move(given_keys)),
      steps_(steps),
      every_(every),
      wall_(wall),
      last_(std::chrono::steady_clock::now()) {}

bool Checkpointer::due(long long k) const {
  if (k == steps_ || (stop_at_ > 0 && k == stop_at_)) return true;
  if (every_ > 0 && k % every_ == 0) return true;
  return wall_ > 0.0 &&
         std::chrono::duration<double>(std::chrono::steady_clock::now() - last_).count() >= wall_;
}

bool Checkpointer::due_work(long long work) const {
  if (every_ > 0 && work >= every_) return true;
  return wall_ > 0.0 &&
         std::chrono::duration<double>(std::chrono::steady_clock::now() - last_).count() >= wall_;
}

io::CheckpointData Checkpointer::start(long long k, double t) const {
  io::CheckpointData d;
  d.model = model_;
  d.name = name_;
  d.scenario = scenario_;
  d.source = source_;
  d.given_keys = given_keys_;
  d.step = k;
  d.t = t;
  return d;
}

void Checkpointer::finish(io::CheckpointData& d) {
  io::write_checkpoint(dir_ / io::checkpoint_file, d);
  io::write_output_marker(dir_, "running");  // lists checkpoint.h5 and whatever appeared since
  last_ = std::chrono::steady_clock::now();
  ++written_;
}

}  // namespace lievi::run
