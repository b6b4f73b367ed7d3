#pragma once
/// @file lievi/run/rigid_body_series.hpp
/// @brief `series.csv` of a rigid-body run: `t,M1,M2,M3,energy,casimir,qw,qx,qy,qz` (docs/outputs.md).
///
/// Numbers are written with the shortest decimal text that reads back to the same double (std::to_chars),
/// so a reader recovers every value bitwise. `energy` = H = ½ M · 𝕀^{-1} M, `casimir` = |M|^2, and
/// (qw, qx, qy, qz) is the Hamilton unit quaternion of the attitude R (body to spatial) with qw >= 0.
/// Rows are formatted into a buffer that is flushed in large blocks: no allocation per row once it has grown.
#include <cstdio>
#include <filesystem>
#include <string>

#include "lievi/run/observer.hpp"

namespace lievi::run {

/// Header line of the rigid-body series (without newline).
inline constexpr const char* rigid_body_series_header = "t,M1,M2,M3,energy,casimir,qw,qx,qy,qz";

/// The 10 values of one row: t, M, H(M), |M|^2, q(R) = (w, x, y, z), qw >= 0.
struct RigidBodyRow {
  double v[10];
};
/// Compute a row (the same function the writer uses, so in-process checks can compare bitwise).
[[nodiscard]] RigidBodyRow rigid_body_row(const models::RigidBody& model, double t,
                                          const models::RigidBodyState& x);

/// Observer writing series.csv at output times.
class SeriesCsvWriter final : public RigidBodyObserver {
 public:
  /// Opens `path` for writing (throws std::runtime_error on failure) and writes the header.
  explicit SeriesCsvWriter(const std::filesystem::path& path);
  /// For a resumed run: opens nothing; restoring its checkpoint cuts `path` back to the length it had then and
  /// appends from there.
  struct Resume {};
  SeriesCsvWriter(const std::filesystem::path& path, Resume);
  ~SeriesCsvWriter() override;
  SeriesCsvWriter(const SeriesCsvWriter&) = delete;
  SeriesCsvWriter& operator=(const SeriesCsvWriter&) = delete;

  void begin(const models::RigidBody& model, const models::RigidBodyState& x0) override;
  void output(long long k, double t_k, const models::RigidBodyState& x_k) override;
  /// Saving: the rows so far go to the file (flushed to disk) and their length is saved; restoring: see Resume.
  void checkpoint(StateIO& a) override;
  /// Flush and close; throws std::runtime_error if a write failed.
  void close();

 private:
  void flush();
  std::filesystem::path path_;
  long long bytes_ = 0;  ///< written so far, buffered ones included
  std::FILE* f_ = nullptr;
  std::string buf_;  ///< formatted rows, flushed when larger than kFlushBytes
  models::RigidBody model_;
  bool failed_ = false;
  static constexpr std::size_t kFlushBytes = 1 << 20;
};

}  // namespace lievi::run
