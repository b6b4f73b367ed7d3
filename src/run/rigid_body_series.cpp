/// @file src/run/rigid_body_series.cpp
/// @brief series.csv writer for the rigid body (round-trip decimal text via std::to_chars).
#include "lievi/run/rigid_body_series.hpp"

#include <cerrno>
#include <charconv>
#include <cstring>
#include <stdexcept>

#include <unistd.h>

#include "lievi/lie/so3.hpp"
#include "lievi/io/checkpoint.hpp"

namespace lievi::run {

RigidBodyRow rigid_body_row(const models::RigidBody& model, double t, const models::RigidBodyState& x) {
  const Eigen::Quaterniond q = lie::SO3(x.R).quaternion();  // Hamilton, body to spatial, normalised, qw >= 0
  return {{t, x.M.x(), x.M.y(), x.M.z(), model.energy(x.M), models::RigidBody::casimir(x.M), q.w(), q.x(),
           q.y(), q.z()}};
}

SeriesCsvWriter::SeriesCsvWriter(const std::filesystem::path& path) : path_(path) {
  f_ = std::fopen(path.c_str(), "wb");
  if (!f_) throw std::runtime_error("cannot create " + path.string() + ": " + std::strerror(errno));
  buf_.reserve(kFlushBytes + 1024);
  buf_ += rigid_body_series_header;
  buf_ += '\n';
  bytes_ = static_cast<long long>(buf_.size());
}

SeriesCsvWriter::SeriesCsvWriter(const std::filesystem::path& path, Resume) : path_(path) {
  buf_.reserve(kFlushBytes + 1024);
}

void SeriesCsvWriter::checkpoint(StateIO& a) {
  if (!a.restoring()) {
    flush();
    if (f_ && (std::fflush(f_) != 0 || ::fsync(::fileno(f_)) != 0)) failed_ = true;
    if (failed_) throw std::runtime_error("writing series.csv failed");
  }
  a("bytes", bytes_);
  if (a.restoring()) {
    io::truncate_output(path_, bytes_);
    f_ = std::fopen(path_.c_str(), "ab");
    if (!f_) throw std::runtime_error("cannot open " + path_.string() + ": " + std::strerror(errno));
  }
}

SeriesCsvWriter::~SeriesCsvWriter() {
  if (f_) std::fclose(f_);
}

void SeriesCsvWriter::begin(const models::RigidBody& model, const models::RigidBodyState&) {
  model_ = model;
}

void SeriesCsvWriter::output(long long, double t_k, const models::RigidBodyState& x_k) {
  const RigidBodyRow row = rigid_body_row(model_, t_k, x_k);
  char line[10 * 32];  // 10 values of at most 24 characters each (shortest round-trip double) plus separators
  char* p = line;
  for (int n = 0; n < 10; ++n) {
    if (n) *p++ = ',';
    p = std::to_chars(p, line + sizeof line, row.v[n]).ptr;
  }
  *p++ = '\n';
  buf_.append(line, p);
  bytes_ += p - line;
  if (buf_.size() >= kFlushBytes) flush();
}

void SeriesCsvWriter::flush() {
  if (!f_ || buf_.empty()) return;
  if (std::fwrite(buf_.data(), 1, buf_.size(), f_) != buf_.size()) failed_ = true;
  buf_.clear();  // keeps the capacity: no new allocation for the next block
}

void SeriesCsvWriter::close() {
  flush();
  if (f_) {
    if (std::fclose(f_) != 0) failed_ = true;
    f_ = nullptr;
  }
  if (failed_) throw std::runtime_error("writing series.csv failed");
}

}  // namespace lievi::run
