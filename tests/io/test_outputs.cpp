// In-process checks of the output side: the series row (quaternion convention), series.csv text round trip,
// atomic output folders, the run loop's output times and failure handling (with a scripted stepper), and the
// diagnostics observer against hand-computed values.
#include <gtest/gtest.h>

#include <Eigen/Geometry>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <numbers>
#include <sstream>

#include "lievi/core/error.hpp"
#include "lievi/io/output_dir.hpp"
#include "lievi/io/scenario.hpp"
#include "lievi/run/rigid_body_series.hpp"
#include "lievi/run/diagnostics.hpp"
#include "lievi/run/rigid_body_run.hpp"

namespace fs = std::filesystem;
using lievi::models::Mat3;
using lievi::models::RigidBodyState;
using lievi::models::Vec3;

namespace {

fs::path fresh_dir(const std::string& name) {
  const fs::path d = fs::path(LIEVI_TEST_TMP_DIR) / name;
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

/// Rodrigues: rotation by angle t about the unit axis n (independent of the library's SO(3) code).
Mat3 rotation(const Vec3& n, double t) {
  Mat3 N;
  N << 0, -n.z(), n.y(), n.z(), 0, -n.x(), -n.y(), n.x(), 0;
  return Mat3::Identity() + std::sin(t) * N + (1 - std::cos(t)) * N * N;
}

const std::string kScenario = R"(
[model]
type = "rigid_body"
inertia = [1.0, 1.3, 0.5]
alpha = 0.5
[initial]
omega = [0.0, 0.05, 1.0]
[integrator]
method = "rk4"
dt = 0.1
t_end = 1.0
)";

/// Test double: advances t only (M, R unchanged), fails at step `fail_at` (1-based) with a residual.
class ScriptedStepper final : public lievi::integrators::RigidBodyStepper {
 public:
  explicit ScriptedStepper(long long fail_at, bool nan = false) : fail_at_(fail_at), nan_(nan) {}
  [[nodiscard]] lievi::integrators::MethodTraits traits() const override { return {}; }
  [[nodiscard]] std::string retraction() const override { return ""; }
  void start(const RigidBodyState&, double) override { n_ = 0; }
  lievi::StepResult step(RigidBodyState& x, double) override {
    ++n_;
    lievi::StepResult r;
    r.iterations = static_cast<int>(n_ % 3) + 1;  // 2, 3, 1, 2, ...: known Newton statistics
    x.M *= 2.0;                                   // a visible change per step
    if (n_ == fail_at_) {
      if (nan_) {
        x.M.x() = std::nan("");  // converged but non-finite: the loop must catch it
      } else {
        r.converged = false;
        r.residual = 1e-3;
        r.message = "scripted failure";
      }
    }
    return r;
  }

 private:
  long long fail_at_, n_ = 0;
  bool nan_;
};

struct Recorder final : lievi::run::RigidBodyObserver {
  std::vector<long long> k;
  std::vector<double> t;
  std::vector<RigidBodyState> x;
  long long steps = 0;
  void step(long long, double, const RigidBodyState&) override { ++steps; }
  void output(long long kk, double tt, const RigidBodyState& xx) override {
    k.push_back(kk);
    t.push_back(tt);
    x.push_back(xx);
  }
};

lievi::run::RunResult scripted_run(long long fail_at, long long every, Recorder& rec, bool nan = false) {
  // alpha = 0: the scripted state doubles M every step, which under dissipation (alpha > 0) would be the run
  // loop's energy-rise failure at step 1 rather than the scripted one
  const auto s = lievi::io::parse_scenario(kScenario, "s.toml", "s",
                                           {"output.every=" + std::to_string(every), "model.alpha=0"});
  lievi::run::PreparedRigidBodyRun p;
  p.model = s.model();
  p.x0 = s.initial_state();
  p.stepper = std::make_unique<ScriptedStepper>(fail_at, nan);
  p.stepper->start(p.x0, s.dt);
  lievi::run::RigidBodyObserver* obs[] = {&rec};
  return lievi::run::integrate_rigid_body(s, p, obs);
}

}  // namespace

TEST(SeriesRow, QuaternionIsHamiltonBodyToSpatialWithNonNegativeW) {
  const lievi::models::RigidBody body = lievi::models::RigidBody::principal({1.0, 2.0, 3.0}, 0.0);
  const Vec3 n = Vec3(1.0, -2.0, 0.5).normalized();
  for (double t : {0.0, 0.3, 2.0, 3.0, 4.0, 6.0}) {
    RigidBodyState x;
    x.M = Vec3(0.1, 0.2, 0.3);
    x.R = rotation(n, t);
    const auto row = lievi::run::rigid_body_row(body, 1.5, x);
    double w = std::cos(t / 2);
    Vec3 v = std::sin(t / 2) * n;
    if (w < 0) w = -w, v = -v;  // q and -q are the same rotation; the file uses qw >= 0
    // 1e-15: a few ulps of unit-size components (Shepperd's formula on an exactly orthogonal R).
    EXPECT_NEAR(row.v[6], w, 1e-15) << t;
    EXPECT_NEAR(row.v[7], v.x(), 1e-15) << t;
    EXPECT_NEAR(row.v[8], v.y(), 1e-15) << t;
    EXPECT_NEAR(row.v[9], v.z(), 1e-15) << t;
    // Body to spatial: the quaternion rotates body vectors into the spatial frame like R does.
    // Hamilton rotation of a vector: v' = v + 2 w (u x v) + 2 u x (u x v), u = (qx, qy, qz).
    const Vec3 u(row.v[7], row.v[8], row.v[9]);
    const Vec3 rotated = x.M + 2.0 * row.v[6] * u.cross(x.M) + 2.0 * u.cross(u.cross(x.M));
    EXPECT_LT((rotated - x.R * x.M).norm(), 1e-15) << t;
    EXPECT_EQ(row.v[0], 1.5);
    EXPECT_EQ(row.v[4], 0.5 * (0.01 / 1.0 + 0.04 / 2.0 + 0.09 / 3.0));
    EXPECT_EQ(row.v[5], x.M.squaredNorm());
  }
}

TEST(SeriesCsv, TextReadsBackBitwise) {
  const fs::path d = fresh_dir("csv");
  const lievi::models::RigidBody body = lievi::models::RigidBody::principal({1.0, 1.3, 0.5}, 0.5);
  std::vector<RigidBodyState> xs(50);
  for (std::size_t i = 0; i < xs.size(); ++i) {
    xs[i].M = Vec3(std::sin(1.0 + i), 1.0 / (3.0 + i), std::exp(-double(i))) * 1e-3 * double(i * i + 1);
    xs[i].R = rotation(Vec3(0.6, 0.0, 0.8), 0.37 * i);
  }
  {
    lievi::run::SeriesCsvWriter w(d / "series.csv");
    w.begin(body, xs[0]);
    for (std::size_t i = 0; i < xs.size(); ++i) w.output(i, 0.1 * i, xs[i]);
    w.close();
  }
  std::ifstream in(d / "series.csv");
  std::string line;
  std::getline(in, line);
  EXPECT_EQ(line, lievi::run::rigid_body_series_header);
  for (std::size_t i = 0; i < xs.size(); ++i) {
    ASSERT_TRUE(std::getline(in, line));
    const auto want = lievi::run::rigid_body_row(body, 0.1 * i, xs[i]);
    std::stringstream ss(line);
    std::string cell;
    for (int c = 0; c < 10; ++c) {
      ASSERT_TRUE(std::getline(ss, cell, ','));
      EXPECT_EQ(std::strtod(cell.c_str(), nullptr), want.v[c]) << "row " << i << " col " << c;  // bitwise
    }
  }
  EXPECT_FALSE(std::getline(in, line));
}

TEST(OutputDir, RefusesUnusableFoldersWithoutWriting) {
  const fs::path d = fresh_dir("outdir");
  std::ofstream(d / "a_file") << "x";
  EXPECT_THROW(lievi::io::check_output_dir(d / "a_file" / "sub", false), lievi::invalid_argument);
  EXPECT_THROW(lievi::io::check_output_dir(d / "a_file", true), lievi::invalid_argument);  // not a folder
  fs::create_directories(d / "full");
  std::ofstream(d / "full" / "keep.txt") << "old";
  EXPECT_THROW(lievi::io::check_output_dir(d / "full", false), lievi::invalid_argument);
  EXPECT_THROW(lievi::io::check_output_dir(d / "full", true), lievi::invalid_argument);  // not written by lievi
  std::ofstream(d / "full" / ".lievi-output") << R"({"program": "lievi", "entries": ["keep.txt"]})";
  EXPECT_NO_THROW(lievi::io::check_output_dir(d / "full", true));  // now it is (by its marker)
  EXPECT_NO_THROW(lievi::io::check_output_dir(d / "new" / "deeper", false));
  // Never the working folder or an ancestor of it, even with --force (it would delete the caller's files).
  EXPECT_THROW(lievi::io::check_output_dir(".", true), lievi::invalid_argument);
  EXPECT_THROW(lievi::io::check_output_dir("sub/..", true), lievi::invalid_argument);
  EXPECT_THROW(lievi::io::check_output_dir(fs::current_path(), true), lievi::invalid_argument);
  EXPECT_THROW(lievi::io::check_output_dir(fs::current_path().parent_path(), true), lievi::invalid_argument);
  EXPECT_FALSE(fs::exists(d / "new"));  // check creates nothing
  try {
    lievi::io::check_output_dir(d / "full", false);
  } catch (const lievi::invalid_argument& e) {
    EXPECT_EQ(e.issues().at(0).file, "--out");
    EXPECT_NE(e.issues()[0].message.find("--force"), std::string::npos);
  }
}

TEST(OutputDir, WritesIntoTmpAndReplacesOnlyOnCommit) {
  const fs::path d = fresh_dir("commit");
  fs::create_directories(d / "run");
  std::ofstream(d / "run" / "old.txt") << "old";
  std::ofstream(d / "run" / ".lievi-output") << R"({"program": "lievi", "entries": ["old.txt"]})";
  {
    lievi::io::OutputDir o(d / "run", true);
    EXPECT_EQ(o.tmp().parent_path(), fs::absolute(d));
    EXPECT_NE(o.tmp().filename().string().find("run.tmp-"), std::string::npos);
    std::ofstream(o.tmp() / "new.txt") << "new";
    EXPECT_TRUE(fs::exists(d / "run" / "old.txt"));  // untouched until commit
    o.commit();
  }
  EXPECT_TRUE(fs::exists(d / "run" / "new.txt"));
  EXPECT_FALSE(fs::exists(d / "run" / "old.txt"));
  {
    lievi::io::OutputDir o(d / "other", false);
    std::ofstream(o.tmp() / "x.txt") << "x";
  }  // not committed: the temporary folder is removed, nothing else appears
  EXPECT_FALSE(fs::exists(d / "other"));
  std::size_t n = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(d)) ++n;
  EXPECT_EQ(n, 1u);
}

TEST(RunLoop, OutputTimesFirstLastAndEvery) {
  for (long long every : {1, 3, 4, 10, 25}) {
    Recorder rec;
    const auto r = scripted_run(-1, every, rec);
    ASSERT_TRUE(r.complete);
    EXPECT_EQ(r.steps, 10);
    EXPECT_EQ(rec.steps, 10);
    std::vector<long long> want;
    for (long long k = 0; k <= 10; ++k)
      if (k % every == 0 || k == 10) want.push_back(k);
    EXPECT_EQ(rec.k, want) << "every = " << every;
    EXPECT_EQ(r.rows, static_cast<long long>(want.size()));
    for (std::size_t i = 0; i < rec.k.size(); ++i) EXPECT_EQ(rec.t[i], rec.k[i] == 10 ? 1.0 : rec.k[i] * 0.1);
    EXPECT_EQ(rec.x.back().M, std::pow(2.0, 10) * Vec3(0.0, 0.065, 0.5));
    // iterations of steps 1..10: (n % 3) + 1 = 2,3,1,2,3,1,2,3,1,2 -> total 20, max 3
    EXPECT_EQ(r.newton.total, 20);
    EXPECT_EQ(r.newton.max, 3);
    EXPECT_DOUBLE_EQ(r.newton.mean, 2.0);
  }
}

TEST(RunLoop, FailureStopsAndKeepsTheLastGoodStep) {
  for (bool nan : {false, true}) {
    Recorder rec;
    const auto r = scripted_run(7, 4, rec, nan);
    EXPECT_FALSE(r.complete);
    ASSERT_TRUE(r.failure.has_value());
    EXPECT_EQ(r.failure->step, 7);
    EXPECT_EQ(r.failure->t, 0.6000000000000001);  // t_6 = 6 * 0.1 (computed as k dt, not accumulated)
    EXPECT_EQ(r.steps, 6);
    EXPECT_EQ(rec.k, (std::vector<long long>{0, 4, 6}));  // outputs 0, 4, then the last good step 6
    EXPECT_EQ(r.final_state.M, std::pow(2.0, 6) * Vec3(0.0, 0.065, 0.5));
    EXPECT_TRUE(r.final_state.M.allFinite());
    EXPECT_NE(r.failure->hint.find("smaller integrator.dt"), std::string::npos);
    if (!nan) {
      EXPECT_EQ(r.failure->residual, 1e-3);
      EXPECT_EQ(r.failure->message, "scripted failure");
    }
  }
}

TEST(Diagnostics, MatchHandComputedValues) {
  const lievi::models::RigidBody body = lievi::models::RigidBody::principal({1.0, 2.0, 4.0}, 0.0);
  RigidBodyState x0;
  x0.M = Vec3(1.0, 0.0, 0.0);  // C0 = 1, H0 = 0.5
  lievi::run::RigidBodyDiagnostics d;
  d.begin(body, x0);
  RigidBodyState x1;  // |M|^2 = 1.25 -> drift 0.25; H = 0.5*(1 + 0.25/2) = 0.5625 -> increase 0.0625
  x1.M = Vec3(1.0, 0.5, 0.0);
  x1.R = rotation(Vec3(0, 0, 1), 0.5 * std::numbers::pi);  // R M = (-0.5, 1, 0): |R M - M0| = sqrt(2.25 + 1)
  d.step(1, 0.1, x1);
  RigidBodyState x2;  // H = 0.5 * (0.25/2) = 0.0625: a decrease; R scaled: orth error 0.21 (1.1^2 - 1)
  x2.M = Vec3(0.0, 0.5, 0.0);
  x2.R = 1.1 * Mat3::Identity();
  d.step(2, 0.2, x2);
  EXPECT_DOUBLE_EQ(d.casimir_max_rel_drift, 0.75);          // |0.25 - 1| / 1 at step 2
  EXPECT_DOUBLE_EQ(d.energy_max_step_increase, 0.0625);     // step 1
  EXPECT_DOUBLE_EQ(d.momentum_max_drift, std::sqrt(3.25));  // step 1 (step 2: |(0,0.55,0)-(1,0,0)|)
  EXPECT_NEAR(d.orth_err_max, 0.21, 1e-15);                 // 1.1^2 - 1 in floating point
}

// The C++ API without the CLI: run_rigid_body writes the folder atomically; bad --out throws before writing.
TEST(RunApi, RunRigidBodyWritesFolderAndRefusesBadOut) {
  const fs::path d = fresh_dir("api");
  const auto s =
      lievi::io::parse_scenario(kScenario, "s.toml", "s", {"output.plots=false", "output.every=4"});
  lievi::run::RunOptions o;
  o.progress = lievi::run::Progress::never;
  const auto r = lievi::run::run_rigid_body(s, d / "out", o);
  EXPECT_TRUE(r.complete);
  EXPECT_EQ(r.steps, 10);
  EXPECT_EQ(r.rows, 4);  // k = 0, 4, 8, 10
  EXPECT_TRUE(fs::exists(d / "out" / "series.csv"));
  EXPECT_TRUE(fs::exists(d / "out" / "summary.json"));
  ASSERT_EQ(r.diagnostics.size(), 5u);
  EXPECT_EQ(r.diagnostics[0].first, "casimir_max_rel_drift");
  EXPECT_GT(r.diagnostics[0].second, 0.0);  // RK4 does not keep |M|^2 exactly (reported, not zero)
  EXPECT_THROW((void)lievi::run::run_rigid_body(s, d / "out", o), lievi::invalid_argument);  // not empty
  std::ofstream(d / "file") << "x";
  EXPECT_THROW((void)lievi::run::run_rigid_body(s, d / "file" / "out", o), lievi::invalid_argument);
  std::size_t n = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(d)) ++n;
  EXPECT_EQ(n, 2u);  // out and file: no temporary folders left
}
