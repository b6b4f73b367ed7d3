// The lie_group model (model.type = "lie_group", issue 29) end to end through the `lievi` program, against
// references independent of the run: the heavy top's Casimirs |Gamma|^2, Pi . Gamma and its vertical angular
// momentum e3 . R Pi kept to round-off by the DEL (initial values computed here from the scenario), RK4's drift of
// the same as the control; the free body with Moser-Veselov's discrete Lagrangian equal to model.type = "rigid_body"
// with method moser-veselov (integrators/moser_veselov.hpp, a separate implementation) at the same step; the 3D
// pendulum's energy error bounded without drift and of order 2 (halving dt divides it by 4); a Newton failure
// (exit 3, the last good rows kept, the hint naming integrator.dt); checkpoint and resume bit for bit; bad input
// (exit 2, file, key, value, nothing written); the floating body on SE(3): its Noether momenta (initial values
// computed here from the scenario) to round-off and a bounded energy.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <Eigen/Geometry>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "support/cli_process.hpp"

namespace fs = std::filesystem;
using lievi::test::CliResult;

namespace {

const fs::path kTmp = LIEVI_TEST_TMP_DIR;
const fs::path kExamples = fs::path(LIEVI_TEST_SOURCE_DIR) / "examples" / "lie_group";

CliResult lievi_cli(const fs::path& cwd, const std::vector<std::string>& args) {
  return lievi::test::run_program(LIEVI_CLI_PATH, cwd, args);
}

fs::path workdir(const std::string& name) { return lievi::test::fresh_dir(kTmp, name); }

struct Series {
  std::vector<std::string> header;
  std::map<std::string, std::vector<double>> col;
  [[nodiscard]] std::size_t rows() const { return col.at("t").size(); }
  [[nodiscard]] const std::vector<double>& operator[](const std::string& c) const { return col.at(c); }
};

Series read_series(const fs::path& p) {
  Series s;
  std::ifstream in(p);
  std::string line;
  std::getline(in, line);
  std::stringstream hs(line);
  for (std::string c; std::getline(hs, c, ',');) s.header.push_back(c);
  while (std::getline(in, line)) {
    std::stringstream ls(line);
    std::size_t i = 0;
    for (std::string c; std::getline(ls, c, ','); ++i) s.col[s.header.at(i)].push_back(std::stod(c));
  }
  return s;
}

nlohmann::json read_json(const fs::path& p) { return nlohmann::json::parse(lievi::test::read_file(p)); }

/// Run an example (plots off) with extra --set's into cwd/out.
CliResult run_example(const fs::path& cwd, const std::string& example, std::vector<std::string> sets,
                      const std::string& out = "out") {
  std::vector<std::string> args = {"run", (kExamples / example).string(), "--out", out};
  sets.emplace_back("output.plots=false");
  for (const auto& s : sets) args.insert(args.end(), {"--set", s});
  return lievi_cli(cwd, args);
}

void write(const fs::path& p, const std::string& text) { std::ofstream(p) << text; }

/// max_k |x_k - x0|
double max_dev(const std::vector<double>& x, double x0) {
  double m = 0.0;
  for (double v : x) m = std::max(m, std::abs(v - x0));
  return m;
}
double max_abs(const std::vector<double>& x) {
  double m = 0.0;
  for (double v : x) m = std::max(m, std::abs(v));
  return m;
}

}  // namespace

TEST(LieGroupCli, HeavyTopCasimirsAndVerticalMomentumToRoundOff) {
  const fs::path d = workdir("lie_heavy_top");
  // the example's start, computed here: Pi_0 = I Omega_0, Gamma_0 = R_0^T e3
  const Eigen::Matrix3d R0 = Eigen::Quaterniond(0.96592582628906831, 0.25881904510252074, 0.0, 0.0).toRotationMatrix();
  const Eigen::Vector3d Pi0 = Eigen::Vector3d(1.0, 1.0, 0.5).asDiagonal() * Eigen::Vector3d(0.0, 0.0, 30.0);
  const Eigen::Vector3d Gamma0 = R0.transpose() * Eigen::Vector3d::UnitZ();
  const double C2 = Pi0.dot(Gamma0);  // = e3 . R0 Pi0, the vertical angular momentum
  std::map<std::string, double> drift;
  for (const std::string method : {"del", "del-reduced", "rk4"}) {
    for (const std::string retraction : {"cayley", "exp"}) {
      if (method == "rk4" && retraction == "exp") continue;
      const std::string out = method + "_" + retraction;
      const CliResult r = run_example(
          d, "heavy_top.toml", {"integrator.method=" + method, "integrator.retraction=" + retraction, "integrator.t_end=10"},
          out);
      ASSERT_EQ(r.code, 0) << out << r.err;
      const Series s = read_series(d / out / "series.csv");
      ASSERT_EQ(s.rows(), 501u);  // 2000 steps, every 4, with t = 0
      EXPECT_NEAR(s["casimir_pi_gamma"][0], C2, 1e-14 * std::abs(C2));
      EXPECT_NEAR(s["momentum_z"][0], C2, 1e-14 * std::abs(C2));
      const double d1 = max_dev(s["casimir_gamma"], 1.0);
      const double d2 = std::max(max_dev(s["casimir_pi_gamma"], C2), max_dev(s["momentum_z"], C2)) / std::abs(C2);
      const double orth = max_abs(s["orth_err"]);
      const double energy = max_abs(s["energy_error"]);
      std::printf("[heavy top, %s] max |Gamma|^2 - 1| = %.2e, max rel |Pi.Gamma - C|, |J_z - C| = %.2e, "
                  "orth %.2e, energy %.2e\n", out.c_str(), d1, d2, orth, energy);
      drift[method] = std::max(drift[method], std::max(d1, d2));
      const auto j = read_json(d / out / "summary.json");
      EXPECT_EQ(j["status"], "complete");
      EXPECT_EQ(j["method"]["id"], method);
      if (method == "rk4") continue;
      // Gamma and R are moved by orthogonal matrices and Pi . Gamma is the discrete Noether momentum: each step
      // adds a few ulps (measured 3e-15 .. 8e-15 over 2000 steps); 1e-13 leaves a margin of 12.
      EXPECT_LE(d1, 1e-13) << out;
      EXPECT_LE(d2, 1e-13) << out;
      EXPECT_LE(orth, 1e-13) << out;
      // a second-order symplectic method: bounded energy error O(h^2) (measured 5e-7 with Cayley, 1.5e-9 with
      // exp, which follows the fast spin about the symmetry axis exactly)
      EXPECT_LE(energy, 5e-6) << out;
      EXPECT_LE(j["diagnostics"]["momentum_z_max_drift"].get<double>(), 1e-13 * std::abs(C2));
      EXPECT_GE(j["newton"]["max"].get<int>(), 1);
    }
  }
  // the control: RK4 keeps neither to round-off (fourth order, not symplectic)
  EXPECT_GE(drift["rk4"], 100.0 * std::max(drift["del"], drift["del-reduced"]));
}

TEST(LieGroupCli, FreeBodyMoserVeselovEqualsRigidBodyMoserVeselov) {
  const fs::path d = workdir("lie_free_mv");
  const std::string common = "[initial]\nomega = [0.3, 1.0, -0.4]\nattitude = [0.9, 0.3, -0.2, 0.24494897427831783]\n"
                             "[integrator]\nmethod = \"moser-veselov\"\ndt = 0.05\nt_end = 50.0\n[output]\nplots = false\n";
  write(d / "lie.toml", "[model]\ntype = \"lie_group\"\nsystem = \"free_body\"\ninertia = [[1.0, 0.1, -0.05], "
                        "[0.1, 2.0, 0.2], [-0.05, 0.2, 3.0]]\n" + common);
  write(d / "rb.toml", "[model]\ntype = \"rigid_body\"\ninertia = [[1.0, 0.1, -0.05], [0.1, 2.0, 0.2], "
                       "[-0.05, 0.2, 3.0]]\n" + common);
  ASSERT_EQ(lievi_cli(d, {"run", "lie.toml", "--out", "lie"}).code, 0);
  ASSERT_EQ(lievi_cli(d, {"run", "rb.toml", "--out", "rb"}).code, 0);
  const Series a = read_series(d / "lie" / "series.csv"), b = read_series(d / "rb" / "series.csv");
  ASSERT_EQ(a.rows(), 1001u);
  ASSERT_EQ(b.rows(), a.rows());
  double dM = 0.0, dq = 0.0;
  for (std::size_t k = 0; k < a.rows(); ++k) {
    for (int i = 1; i <= 3; ++i)
      dM = std::max(dM, std::abs(a["Pi" + std::to_string(i)][k] - b["M" + std::to_string(i)][k]));
    for (const char* c : {"qw", "qx", "qy", "qz"}) dq = std::max(dq, std::abs(a[c][k] - b[c][k]));
  }
  // two implementations of the same map (the generic discrete reduced DEL with jets, and the rigid body's own
  // Newton): a few ulps per step growing along the flow (measured 4e-12 after 1000 steps); 5e-11 leaves a margin
  // and is far below the O(h^2) ~ 1e-3 difference of any other second-order method.
  std::printf("[free body vs rigid_body moser-veselov] max |Pi - M| = %.2e, max |q - q_rb| = %.2e\n", dM, dq);
  EXPECT_LE(dM, 5e-11);
  EXPECT_LE(dq, 5e-11);
  // the control: the DEL with the Cayley retraction is another discrete Lagrangian (differs at O(h^2))
  ASSERT_EQ(lievi_cli(d, {"run", "lie.toml", "--out", "del", "--set", "integrator.method=del"}).code, 0);
  const Series c = read_series(d / "del" / "series.csv");
  EXPECT_GE(std::abs(c["Pi1"].back() - b["M1"].back()) + std::abs(c["Pi2"].back() - b["M2"].back()), 1e-6);
  // spatial angular momentum (three Noether momenta) and |Pi|^2 to round-off
  for (const char* m : {"momentum_x", "momentum_y", "momentum_z"}) EXPECT_LE(max_dev(a[m], a[m][0]), 1e-13) << m;
  EXPECT_LE(max_dev(a["casimir_pi"], a["casimir_pi"][0]), 1e-13 * a["casimir_pi"][0]);
}

TEST(LieGroupCli, Pendulum3dEnergyBoundedAndSecondOrder) {
  const fs::path d = workdir("lie_pendulum");
  double previous = 0.0;
  for (const std::string dt : {"0.004", "0.002", "0.001"}) {
    const CliResult r = run_example(d, "pendulum_3d.toml", {"integrator.dt=" + dt, "output.every=1"}, "dt" + dt);
    ASSERT_EQ(r.code, 0) << r.err;
    const Series s = read_series(d / ("dt" + dt) / "series.csv");
    const auto& e = s["energy_error"];
    // bounded, no drift: the largest error of the second half is not above the first half's (a drifting error
    // would grow ~linearly; measured ratio 0.99)
    const std::size_t n = e.size();
    double first = 0.0, second = 0.0;
    for (std::size_t k = 0; k < n; ++k) {
      double& half = k < n / 2 ? first : second;
      half = std::max(half, std::abs(e[k]));
    }
    std::printf("[3D pendulum, dt = %s] max |energy error| = %.3e (halves %.3e, %.3e), max |Pi.Gamma - C| = %.2e\n",
                dt.c_str(), std::max(first, second), first, second,
                max_dev(s["casimir_pi_gamma"], s["casimir_pi_gamma"][0]));
    EXPECT_LE(second, 1.5 * first) << dt;
    EXPECT_LE(max_dev(s["casimir_pi_gamma"], s["casimir_pi_gamma"][0]), 1e-12);
    EXPECT_LE(max_dev(s["casimir_gamma"], 1.0), 1e-12);
    const double emax = std::max(first, second);
    // order 2: halving dt divides the energy error by 4 (measured 4.00)
    if (previous > 0.0) {
      EXPECT_GE(previous / emax, 3.5) << dt;
      EXPECT_LE(previous / emax, 4.5) << dt;
    }
    previous = emax;
  }
}

TEST(LieGroupCli, FloatingBodyNoetherMomentaToRoundOffEnergyBounded) {
  const fs::path d = workdir("lie_floating");
  // the example's start, computed here: p = (Pi, P) = M (omega, v) with M = [[I_O, m hat(c)], [-m hat(c), m Id]],
  // so the linear momentum P = m (v + omega x c); at R_0 = Id the horizontal linear momentum is (P_x, P_y) and the
  // vertical angular momentum about the origin e3 . (Pi + x_0 x P) (Pi = I_O omega + m c x v)
  const double m = 2.0;
  const Eigen::Vector3d omega(4.0, 1.0, -0.5), v(0.5, -1.0, 3.0), c(0.1, -0.05, 0.2), x0(0.0, 0.0, 0.5);
  const Eigen::Matrix3d I_c = Eigen::Vector3d(0.3, 0.5, 0.6).asDiagonal();
  const Eigen::Matrix3d I_O = I_c + m * (c.squaredNorm() * Eigen::Matrix3d::Identity() - c * c.transpose());
  const Eigen::Vector3d P = m * (v + omega.cross(c)), Pi = I_O * omega + m * c.cross(v);
  const double Jz = Pi(2) + x0.cross(P)(2);
  for (const std::string retraction : {"cayley", "exp"}) {
    const std::string out = "fb_" + retraction;
    const CliResult r = run_example(d, "floating_body.toml", {"integrator.retraction=" + retraction}, out);
    ASSERT_EQ(r.code, 0) << r.err;
    const Series s = read_series(d / out / "series.csv");
    ASSERT_EQ(s.rows(), 1001u);
    EXPECT_NEAR(s["linear_x"][0], P(0), 1e-15);
    EXPECT_NEAR(s["linear_y"][0], P(1), 1e-15);
    EXPECT_NEAR(s["angular_z"][0], Jz, 1e-15);
    const double dJ = max_dev(s["angular_z"], Jz), dx = max_dev(s["linear_x"], P(0)), dy = max_dev(s["linear_y"], P(1));
    const auto& e = s["energy_error"];
    double first = 0.0, second = 0.0;
    for (std::size_t k = 0; k < e.size(); ++k) {
      double& half = k < e.size() / 2 ? first : second;
      half = std::max(half, std::abs(e[k]));
    }
    std::printf("[floating body, %s] max |J_z - J0| = %.2e, |P_x - P0x| = %.2e, |P_y - P0y| = %.2e, orth %.2e, "
                "energy error halves %.2e %.2e\n", retraction.c_str(), dJ, dx, dy, max_abs(s["orth_err"]), first, second);
    // discrete Noether: round-off of the coadjoint action, growing with the lever arm |x| (up to ~20 m here):
    // measured 5e-13 (Cayley) and 1.5e-12 (exp) for J_z (|x| |P| ~ 80), up to 1.4e-13 for P; 5e-12 and 1e-12
    // leave a margin of 3 or more
    EXPECT_LE(dJ, 5e-12);
    EXPECT_LE(dx, 1e-12);
    EXPECT_LE(dy, 1e-12);
    EXPECT_LE(max_abs(s["orth_err"]), 1e-13);
    // bounded energy: the second half's largest error not above 1.5 times the first half's (measured 0.66, 1.02)
    EXPECT_LE(second, 1.5 * first);
    EXPECT_LE(std::max(first, second), 1e-3);
  }
  // only del on SE(3)
  const CliResult bad = lievi_cli(d, {"validate", (kExamples / "floating_body.toml").string(), "--set",
                                      "integrator.method=rk4"});
  EXPECT_EQ(bad.code, 2);
  EXPECT_NE(bad.err.find("key 'integrator.method': value \"rk4\" is not available for system floating_body"),
            std::string::npos)
      << bad.err;
}

TEST(LieGroupCli, NewtonFailureIsExit3WithLastGoodRows) {
  const fs::path d = workdir("lie_fail");
  // one Newton iteration cannot solve the Cayley DEL of a spinning top (the equation is nonlinear in xi)
  const CliResult r = run_example(d, "heavy_top.toml", {"integrator.max_iterations=1", "integrator.dt=0.05"});
  ASSERT_EQ(r.code, 3) << r.out << r.err;
  EXPECT_NE(r.err.find("integrator.dt"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("integrator.max_iterations"), std::string::npos) << r.err;
  const auto j = read_json(d / "out" / "summary.json");
  EXPECT_EQ(j["status"], "failed");
  const long long step = j["failure"]["step"].get<long long>();
  EXPECT_GE(step, 1);
  const Series s = read_series(d / "out" / "series.csv");
  ASSERT_GE(s.rows(), 1u);
  EXPECT_DOUBLE_EQ(s["t"].back(), j["failure"]["t"].get<double>());  // the last good level is the last row

  // RK4 at a step far beyond its stability bound: the state overflows to non-finite values after a few steps
  const CliResult nan = run_example(d, "heavy_top.toml",
                                    {"integrator.method=rk4", "integrator.dt=0.5", "integrator.t_end=1000"}, "rk4");
  ASSERT_EQ(nan.code, 3) << nan.err;
  EXPECT_NE(nan.err.find("non-finite"), std::string::npos) << nan.err;
  EXPECT_NE(nan.err.find("integrator.dt"), std::string::npos) << nan.err;
  const auto jr = read_json(d / "rk4" / "summary.json");
  EXPECT_EQ(jr["status"], "failed");
  const Series sr = read_series(d / "rk4" / "series.csv");
  for (const auto& [name, values] : sr.col)
    for (double v : values) EXPECT_TRUE(std::isfinite(v)) << name;  // only good levels were written
  EXPECT_DOUBLE_EQ(sr["t"].back(), jr["failure"]["t"].get<double>());
}

TEST(LieGroupCli, ResumeIsBitForBit) {
  for (const std::string example : {"heavy_top.toml", "free_body.toml", "floating_body.toml"}) {
    for (const std::string method : {"del", "del-reduced", "moser-veselov", "rk4"}) {
      if (method == "moser-veselov" && example != "free_body.toml") continue;
      if (method != "del" && example == "floating_body.toml") continue;
      const fs::path d = workdir("lie_resume_" + method + "_" + example.substr(0, 4));
      const std::vector<std::string> sets = {"integrator.method=" + method, "integrator.t_end=3",
                                             "output.checkpoint_every=40", "output.every=7"};
      ASSERT_EQ(run_example(d, example, sets, "full").code, 0);
      std::vector<std::string> args = {"run", (kExamples / example).string(), "--out", "part", "--stop-at", "123"};
      for (const auto& s : sets) args.insert(args.end(), {"--set", s});
      args.insert(args.end(), {"--set", "output.plots=false"});
      const CliResult stop = lievi_cli(d, args);
      ASSERT_EQ(stop.code, 0) << stop.err;
      const CliResult resume = lievi_cli(d, {"resume", "part"});
      ASSERT_EQ(resume.code, 0) << resume.err;
      EXPECT_EQ(lievi::test::read_file(d / "full" / "series.csv"), lievi::test::read_file(d / "part" / "series.csv"))
          << example << " " << method;
      const auto a = read_json(d / "full" / "summary.json"), b = read_json(d / "part" / "summary.json");
      EXPECT_EQ(a["diagnostics"], b["diagnostics"]) << method;
      EXPECT_EQ(a["final"], b["final"]) << method;
    }
  }
}

TEST(LieGroupCli, BadInputExit2NamesFileKeyValue) {
  const fs::path d = workdir("lie_bad");
  write(d / "bad.toml",
        "[model]\ntype = \"lie_group\"\nsystem = \"heavy_top\"\ninertia = [[1.0, 0.0, 0.0], [0.0, -1.0, 0.0], "
        "[0.0, 0.0, 1.0]]\n[initial]\nomega = [1.0, 0.0, 0.0]\nPi = [1.0, 0.0, 0.0]\n"
        "[integrator]\nmethod = \"moser-veselov\"\ndt = 0.1\nt_end = 1.0\n");
  const CliResult r = lievi_cli(d, {"run", "bad.toml"});
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_EQ(r.err_lines().size(), 3u) << r.err;  // every issue of the file together
  EXPECT_NE(r.err.find("bad.toml: key 'model.inertia': value"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("not positive definite"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("key 'initial.Pi': both initial.omega and initial.Pi are given"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("key 'integrator.method': value \"moser-veselov\" is only for system free_body"),
            std::string::npos)
      << r.err;
  EXPECT_FALSE(fs::exists(d / "runs"));
  const CliResult ret = lievi_cli(d, {"run", (kExamples / "heavy_top.toml").string(), "--set",
                                      "integrator.retraction=exp2"});
  EXPECT_EQ(ret.code, 2);
  EXPECT_NE(ret.err.find("--set: key 'integrator.retraction': value \"exp2\""), std::string::npos) << ret.err;
  const CliResult paths = lievi_cli(d, {"run", (kExamples / "heavy_top.toml").string(), "--paths", "2"});
  EXPECT_EQ(paths.code, 2);
  EXPECT_NE(paths.err.find("--paths"), std::string::npos) << paths.err;
  // keys a system does not read are accepted and noted
  const CliResult v = lievi_cli(d, {"validate", (kExamples / "free_body.toml").string(), "--set", "model.mass=2"});
  ASSERT_EQ(v.code, 0) << v.err;
  EXPECT_NE(v.out.find("key 'model.mass' is ignored by system free_body"), std::string::npos) << v.out;
  EXPECT_FALSE(fs::exists(d / "runs"));
}
