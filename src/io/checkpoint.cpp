/// @file src/io/checkpoint.cpp
/// @brief checkpoint.h5 (lievi/io/checkpoint.hpp): the checksum, the atomic write (temporary file, fsync,
/// rename, fsync of the folder), the verified read, and the saving and restoring visitors. The HDF5 part is in
/// lievi's HDF5 module (src/io/fields_h5_module.cpp).
#include "lievi/io/checkpoint.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <stdexcept>

#include "fields_h5_backend.hpp"
#include "lievi/core/error.hpp"
#include "lievi/version.hpp"

namespace lievi::io {
namespace fs = std::filesystem;

namespace {

/// FNV-1a over 64-bit words (bytes for the tail): fast over large states, sensitive to every bit.
class Hash {
 public:
  void bytes(const void* data, std::size_t n) {
    const auto* p = static_cast<const unsigned char*>(data);
    std::size_t i = 0;
    for (; i + 8 <= n; i += 8) {
      std::uint64_t w;
      std::memcpy(&w, p + i, 8);
      mix(w);
    }
    for (; i < n; ++i) mix(p[i]);
    mix(n);
  }
  void text(const std::string& s) { bytes(s.data(), s.size()); }
  template <class T>
  void value(T x) {
    bytes(&x, sizeof x);
  }
  [[nodiscard]] std::string hex() const {
    char out[17];
    std::snprintf(out, sizeof out, "%016llx", static_cast<unsigned long long>(h_));
    return out;
  }

 private:
  void mix(std::uint64_t w) {
    h_ ^= w;
    h_ *= 0x100000001b3ULL;
    h_ ^= h_ >> 29;
  }
  std::uint64_t h_ = 0xcbf29ce484222325ULL;
};

/// fsync a file or a folder; throws std::runtime_error naming it.
void sync(const fs::path& p, bool folder) {
  const int fd = ::open(p.c_str(), folder ? (O_RDONLY | O_DIRECTORY) : O_RDONLY);
  if (fd < 0) throw std::runtime_error("checkpoint: cannot open " + p.string() + " to flush it: " + std::strerror(errno));
  const int st = ::fsync(fd);
  const int err = errno;
  ::close(fd);
  if (st != 0) throw std::runtime_error("checkpoint: fsync of " + p.string() + " failed: " + std::strerror(err));
}

[[noreturn]] void refuse(const fs::path& path, const std::string& why) {
  throw invalid_argument(path.string(), "", why);
}

}  // namespace

std::string checkpoint_checksum(const CheckpointData& c) {
  Hash h;
  h.value(c.format_version);
  h.text(c.lievi_version);
  h.text(c.model);
  h.text(c.name);
  h.text(c.scenario);
  h.text(c.source);
  h.text(c.given_keys);
  h.value(c.step);
  h.value(c.t);
  for (const auto& [name, v] : c.reals) {
    h.text(name);
    h.bytes(v.data(), v.size() * sizeof(double));
  }
  for (const auto& [name, v] : c.integers) {
    h.text(name);
    h.bytes(v.data(), v.size() * sizeof(long long));
  }
  return h.hex();
}

void write_checkpoint(const fs::path& path, CheckpointData& c) {
  c.format_version = kCheckpointFormatVersion;
  c.lievi_version = lievi::version;
  c.checksum = checkpoint_checksum(c);
  const fs::path tmp = path.string() + ".tmp";
  std::error_code ec;
  try {
    detail::h5_write_checkpoint(tmp, c);
    sync(tmp, false);
    fs::rename(tmp, path);  // atomic: the old checkpoint or the new one, never a mix
    sync(path.parent_path().empty() ? fs::path(".") : path.parent_path(), true);
  } catch (...) {
    fs::remove(tmp, ec);
    throw;
  }
}

CheckpointData read_checkpoint(const fs::path& path) {
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) refuse(path, "no checkpoint here (a run writes one when output.checkpoint_every or output.checkpoint_wall is set)");
  CheckpointData c;
  try {
    c = detail::h5_read_checkpoint(path);
  } catch (const std::exception& e) {
    std::string why = e.what();
    if (const auto at = why.find(path.string() + ": "); at != std::string::npos)
      why = why.substr(at + path.string().size() + 2);
    refuse(path, "not a readable lievi checkpoint (truncated or damaged?): " + why);
  }
  if (c.format_version != kCheckpointFormatVersion)
    refuse(path, "checkpoint format version " + std::to_string(c.format_version) + " (written by lievi " +
                     c.lievi_version + "); this lievi reads version " + std::to_string(kCheckpointFormatVersion));
  if (c.lievi_version != lievi::version)
    refuse(path, "written by lievi " + c.lievi_version + "; this is lievi " + std::string(lievi::version) +
                     ": a checkpoint resumes only with the version that wrote it (bitwise continuation)");
  if (checkpoint_checksum(c) != c.checksum)
    refuse(path, "checksum mismatch: the checkpoint is damaged (stored " + c.checksum + ", computed " +
                     checkpoint_checksum(c) + ")");
  return c;
}

void CheckpointSaver::doubles(const std::string& name, double* data, std::size_t n) {
  const std::string key = full(name);
  if (data_.reals.count(key) || data_.integers.count(key))
    throw std::logic_error("checkpoint: entry '" + key + "' saved twice");
  data_.reals.emplace(key, std::vector<double>(data, data + n));
}

void CheckpointSaver::integers(const std::string& name, long long* data, std::size_t n) {
  const std::string key = full(name);
  if (data_.reals.count(key) || data_.integers.count(key))
    throw std::logic_error("checkpoint: entry '" + key + "' saved twice");
  data_.integers.emplace(key, std::vector<long long>(data, data + n));
}

namespace {
template <class Map, class T>
void restore(const Map& m, const std::string& key, T* data, std::size_t n, const fs::path& file, const char* kind) {
  const auto it = m.find(key);
  if (it == m.end())
    throw invalid_argument(file.string(), "", "the checkpoint has no " + std::string(kind) + " entry '" + key +
                                                  "': it is not a checkpoint of this model and method");
  if (it->second.size() != n)
    throw invalid_argument(file.string(), "",
                           "the checkpoint's entry '" + key + "' holds " + std::to_string(it->second.size()) +
                               " values where this run has " + std::to_string(n) +
                               ": it is not a checkpoint of this grid");
  std::copy(it->second.begin(), it->second.end(), data);
}
}  // namespace

void CheckpointLoader::doubles(const std::string& name, double* data, std::size_t n) {
  const std::string key = full(name);
  restore(data_.reals, key, data, n, file_, "real");
  visited_.push_back(key);
}

void CheckpointLoader::integers(const std::string& name, long long* data, std::size_t n) {
  const std::string key = full(name);
  restore(data_.integers, key, data, n, file_, "integer");
  visited_.push_back(key);
}

void truncate_output(const fs::path& file, long long bytes) {
  std::error_code ec;
  const auto size = fs::file_size(file, ec);
  if (ec)
    throw invalid_argument(file.string(), "", "missing or unreadable (" + ec.message() +
                                                  "): the folder does not hold the outputs of its checkpoint");
  if (static_cast<long long>(size) < bytes)
    throw invalid_argument(file.string(), "",
                           "holds " + std::to_string(size) + " bytes where the checkpoint wrote " +
                               std::to_string(bytes) + ": the folder does not hold the outputs of its checkpoint");
  fs::resize_file(file, static_cast<std::uintmax_t>(bytes), ec);
  if (ec) throw std::runtime_error("cannot cut " + file.string() + " back to its checkpoint: " + ec.message());
}

std::vector<std::string> CheckpointLoader::unused() const {
  std::vector<std::string> out;
  for (const auto& [k, v] : data_.reals)
    if (std::find(visited_.begin(), visited_.end(), k) == visited_.end()) out.push_back(k);
  for (const auto& [k, v] : data_.integers)
    if (std::find(visited_.begin(), visited_.end(), k) == visited_.end()) out.push_back(k);
  return out;
}

}  // namespace lievi::io
