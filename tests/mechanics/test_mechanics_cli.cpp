// The lagrangian model end to end through the `lievi` program: bad input (exit 2, file/key/value), the
// documented series.csv columns and summary.json, and results against independent references written here:
// the pendulum period 4 K(sin(q0/2)) sqrt(l/g), the Kepler ellipse (Kepler's equation), the exact damped
// oscillator, the spherical pendulum's constraint and vertical angular momentum, RK4's energy drift against the
// midpoint rule's bounded error, and a Newton failure (exit 3, status failed).
#include <gtest/gtest.h>

#include <boost/math/special_functions/ellint_1.hpp>
#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <numbers>
#include <sstream>
#include <string>
#include <vector>

#include "support/cli_process.hpp"

namespace fs = std::filesystem;
using lievi::test::CliResult;

namespace {

const fs::path kTmp = LIEVI_TEST_TMP_DIR;
const fs::path kExamples = fs::path(LIEVI_TEST_SOURCE_DIR) / "examples" / "mechanics";

CliResult lievi_cli(const fs::path& cwd, const std::vector<std::string>& args) {
  return lievi::test::run_program(LIEVI_CLI_PATH, cwd, args);
}

fs::path workdir(const std::string& name) { return lievi::test::fresh_dir(kTmp, name); }

struct Series {
  std::vector<std::string> header;
  std::map<std::string, std::vector<double>> col;
  [[nodiscard]] std::size_t rows() const { return col.at("t").size(); }
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

/// Run an example (plots off unless asked) with extra --set's into cwd/out; returns the result.
CliResult run_example(const fs::path& cwd, const std::string& example, std::vector<std::string> sets,
                      bool plots = false) {
  std::vector<std::string> args = {"run", (kExamples / example).string(), "--out", "out"};
  if (!plots) sets.emplace_back("output.plots=false");
  for (const auto& s : sets) args.insert(args.end(), {"--set", s});
  return lievi_cli(cwd, args);
}

void write(const fs::path& p, const std::string& text) { std::ofstream(p) << text; }

}  // namespace

TEST(MechanicsCli, BadInputExit2NamesFileKeyValue) {
  const fs::path d = workdir("mech_bad");
  write(d / "bad.toml",
        "[model]\ntype = \"lagrangian\"\nsystem = \"pendulum\"\nbogus = 1\n[initial]\nq = [1.0, 2.0]\n"
        "[integrator]\ndt = 0\nt_end = 1.0\n");
  const CliResult r = lievi_cli(d, {"run", "bad.toml"});
  EXPECT_EQ(r.code, 2) << r.err;
  const auto lines = r.err_lines();
  ASSERT_EQ(lines.size(), 3u) << r.err;  // all issues of the file together
  EXPECT_NE(r.err.find("bad.toml: key 'model.bogus': unknown key"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("bad.toml: key 'initial.q': value [1.0, 2.0] has 2 numbers; expected 1"), std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("bad.toml: key 'integrator.dt': value 0"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(d / "runs"));  // nothing written

  const CliResult sys = lievi_cli(d, {"run", (kExamples / "pendulum.toml").string(), "--set", "model.system=rotor"});
  EXPECT_EQ(sys.code, 2);
  EXPECT_NE(sys.err.find("--set: key 'model.system': value \"rotor\""), std::string::npos) << sys.err;
  const CliResult lob = lievi_cli(d, {"validate", (kExamples / "spherical_pendulum.toml").string(), "--set",
                                      "integrator.method=lobatto-iiia-iiib"});
  EXPECT_EQ(lob.code, 2);
  EXPECT_NE(lob.err.find("key 'integrator.method': value \"lobatto-iiia-iiib\" is not available for the "
                         "constrained system spherical_pendulum"),
            std::string::npos)
      << lob.err;
  const CliResult paths = lievi_cli(d, {"run", (kExamples / "pendulum.toml").string(), "--paths", "4"});
  EXPECT_EQ(paths.code, 2);
  EXPECT_NE(paths.err.find("--paths"), std::string::npos) << paths.err;
  EXPECT_FALSE(fs::exists(d / "runs"));
}

TEST(MechanicsCli, ValidateSchemaMethods) {
  const fs::path d = workdir("mech_validate");
  const CliResult v = lievi_cli(d, {"validate", (kExamples / "pendulum.toml").string(), "--set", "model.mu=3"});
  ASSERT_EQ(v.code, 0) << v.err;
  EXPECT_NE(v.out.find("system = \"pendulum\""), std::string::npos) << v.out;
  EXPECT_NE(v.out.find("key 'model.mu' is ignored by system pendulum"), std::string::npos) << v.out;
  const CliResult s = lievi_cli(d, {"schema", "lagrangian"});
  ASSERT_EQ(s.code, 0);
  EXPECT_NE(s.out.find("`model.system`"), std::string::npos);
  const CliResult m = lievi_cli(d, {"methods"});
  ASSERT_EQ(m.code, 0);
  for (const char* id : {"midpoint", "trapezoid", "lobatto-iiia-iiib"}) EXPECT_NE(m.out.find(id), std::string::npos);
}

TEST(MechanicsCli, EveryExampleRunsWithDocumentedColumns) {
  const std::map<std::string, std::string> header = {
      {"pendulum", "t,q1,v1,p1,energy,energy_error,newton"},
      {"double_pendulum", "t,q1,q2,v1,v2,p1,p2,energy,energy_error,newton"},
      {"kepler", "t,q1,q2,v1,v2,p1,p2,energy,energy_error,momentum,newton"},
      {"spherical_pendulum", "t,q1,q2,q3,v1,v2,v3,p1,p2,p3,energy,energy_error,momentum,constraint,newton"},
      {"damped_oscillator", "t,q1,v1,p1,energy,energy_error,newton"},
      {"forced_oscillator", "t,q1,v1,p1,energy,energy_error,newton"},
      {"chaplygin_sleigh", "t,q1,q2,q3,v1,v2,v3,p1,p2,p3,energy,energy_error,constraint,newton"},
      {"vertical_disk", "t,q1,q2,q3,q4,v1,v2,v3,v4,p1,p2,p3,p4,energy,energy_error,constraint,newton"},
      {"rolling_disk", "t,q1,q2,q3,q4,q5,v1,v2,v3,v4,v5,p1,p2,p3,p4,p5,energy,energy_error,constraint,newton"},
  };
  for (const auto& [name, h] : header) {
    const fs::path d = workdir("mech_ex_" + name);
    const CliResult r = run_example(d, name + ".toml", {}, name == "kepler");
    ASSERT_EQ(r.code, 0) << name << ": " << r.err;
    const std::string csv = lievi::test::read_file(d / "out" / "series.csv");
    EXPECT_EQ(csv.substr(0, csv.find('\n')), h) << name;
    const auto j = read_json(d / "out" / "summary.json");
    EXPECT_EQ(j["status"], "complete");
    EXPECT_EQ(j["scenario"]["model"]["system"], name.find("oscillator") != std::string::npos ? "oscillator" : name);
    EXPECT_TRUE(j["method"].contains("order"));
    EXPECT_TRUE(j["diagnostics"].contains("energy_max_rel_error"));
    EXPECT_TRUE(j["newton"].contains("mean"));
    const Series s = read_series(d / "out" / "series.csv");
    EXPECT_DOUBLE_EQ(s.col.at("t").front(), 0.0);
    EXPECT_DOUBLE_EQ(s.col.at("t").back(), j["scenario"]["integrator"]["t_end"].get<double>()) << name;
    if (name == "kepler") {
      const std::string notes = j["notes"].dump();
      const bool plotted = fs::exists(d / "out" / "energy_error.png") && fs::exists(d / "out" / "phase.png") &&
                           fs::exists(d / "out" / "trajectory.png");
      EXPECT_TRUE(plotted || notes.find("plots skipped") != std::string::npos) << notes;
    }
  }
}

TEST(MechanicsCli, PendulumPeriodMatchesEllipticIntegral) {
  const fs::path d = workdir("mech_pendulum");
  const double q0 = 2.0, g = 9.81, l = 1.0;
  const CliResult r = run_example(d, "pendulum.toml", {"integrator.dt=0.001", "integrator.t_end=10"});
  ASSERT_EQ(r.code, 0) << r.err;
  const Series s = read_series(d / "out" / "series.csv");
  // upward zero crossings of q (linear interpolation): the period is their spacing
  std::vector<double> up;
  const auto& t = s.col.at("t");
  const auto& q = s.col.at("q1");
  for (std::size_t i = 1; i < s.rows(); ++i)
    if (q[i - 1] < 0.0 && q[i] >= 0.0) up.push_back(t[i - 1] + (t[i] - t[i - 1]) * (-q[i - 1]) / (q[i] - q[i - 1]));
  ASSERT_GE(up.size(), 2u);
  const double period = (up.back() - up.front()) / static_cast<double>(up.size() - 1);
  const double exact = 4.0 * boost::math::ellint_1(std::sin(q0 / 2.0)) * std::sqrt(l / g);
  std::printf("pendulum q0 = 2: period %.10f, exact %.10f, rel err %.3e\n", period, exact,
              std::abs(period - exact) / exact);
  EXPECT_LT(std::abs(period - exact) / exact, 1e-6);
  const auto j = read_json(d / "out" / "summary.json");
  EXPECT_LT(j["diagnostics"]["energy_max_rel_error"].get<double>(), 1e-5);
}

TEST(MechanicsCli, KeplerOrbitMatchesAnalyticEllipse) {
  const fs::path d = workdir("mech_kepler");
  const CliResult r = run_example(d, "kepler.toml",
                                  {"integrator.method=lobatto-iiia-iiib", "integrator.t_end=12.56", "output.every=1"});
  ASSERT_EQ(r.code, 0) << r.err;
  const Series s = read_series(d / "out" / "series.csv");
  // a = 1, e = 0.5, mu = 1, periapsis at t = 0: mean anomaly M = t, E - e sin E = M
  const double e = 0.5;
  double err = 0.0;
  for (std::size_t i = 0; i < s.rows(); ++i) {
    const double M = s.col.at("t")[i];
    double E = M;
    for (int it = 0; it < 60; ++it) E -= (E - e * std::sin(E) - M) / (1.0 - e * std::cos(E));
    const double x = std::cos(E) - e, y = std::sqrt(1.0 - e * e) * std::sin(E);
    err = std::max(err, std::hypot(s.col.at("q1")[i] - x, s.col.at("q2")[i] - y));
  }
  const auto j = read_json(d / "out" / "summary.json");
  const double jdrift = j["diagnostics"]["momentum_max_drift"].get<double>();
  std::printf("kepler lobatto dt = 0.01, 2 orbits: max position error %.3e, angular momentum drift %.3e\n", err, jdrift);
  EXPECT_LT(err, 1e-6);
  EXPECT_LT(jdrift, 1e-12);
}

TEST(MechanicsCli, DampedOscillatorMatchesExactSolution) {
  const fs::path d = workdir("mech_damped");
  const CliResult r = run_example(d, "damped_oscillator.toml", {"integrator.dt=0.005"});
  ASSERT_EQ(r.code, 0) << r.err;
  const Series s = read_series(d / "out" / "series.csv");
  // m = 1, k = 4, c = 0.2: gamma = 0.1, wd = sqrt(4 - 0.01); q(0) = 1, q'(0) = 0
  const double gam = 0.1, wd = std::sqrt(4.0 - gam * gam);
  double err = 0.0;
  for (std::size_t i = 0; i < s.rows(); ++i) {
    const double t = s.col.at("t")[i];
    const double x = std::exp(-gam * t) * (std::cos(wd * t) + gam / wd * std::sin(wd * t));
    err = std::max(err, std::abs(s.col.at("q1")[i] - x));
  }
  std::printf("damped oscillator midpoint dt = 0.005, t <= 30: max |q - q_exact| = %.3e\n", err);
  EXPECT_LT(err, 2e-4);
}

TEST(MechanicsCli, SphericalPendulumKeepsConstraintAndVerticalMomentum) {
  for (const char* proj : {"rattle", "shake"}) {
    const fs::path d = workdir(std::string("mech_sph_") + proj);
    const CliResult r = run_example(d, "spherical_pendulum.toml",
                                    {std::string("integrator.constraints=") + proj, "initial.q=[0.8,0,-0.8]"});
    ASSERT_EQ(r.code, 0) << r.err;
    const auto j = read_json(d / "out" / "summary.json");
    const double g = j["diagnostics"]["constraint_max"].get<double>();
    const double jd = j["diagnostics"]["momentum_max_drift"].get<double>();
    const double h = j["diagnostics"]["hidden_constraint_max"].get<double>();
    std::printf("spherical pendulum %s: max|g| %.3e, max|J_z - J_z0| %.3e (J_z0 = %.6f), max|q.v| %.3e, "
                "energy %.3e\n",
                proj, g, jd, j["diagnostics"]["momentum_initial"].get<double>(), h,
                j["diagnostics"]["energy_max_rel_error"].get<double>());
    EXPECT_LE(g, 1e-12);
    EXPECT_LE(jd, 1e-12);
    // the start |q| = 0.8 sqrt 2 was projected onto |q| = 1 and noted
    EXPECT_NE(j["notes"].dump().find("projected onto the constraint"), std::string::npos);
    const auto& q = j["start"]["q"];
    EXPECT_NEAR(std::hypot(q[0].get<double>(), q[2].get<double>()), 1.0, 1e-14);
    if (std::string(proj) == "rattle") {
      EXPECT_LE(h, 1e-12);  // the hidden constraint G(q) v = 0
    }
  }
}

TEST(MechanicsCli, Rk4DriftsWhileMidpointStaysBounded) {
  const fs::path d = workdir("mech_drift");
  double err[2][2];
  const char* methods[] = {"midpoint", "rk4"};
  for (int m = 0; m < 2; ++m) {
    for (int T = 0; T < 2; ++T) {
      const fs::path w = workdir(std::string("mech_drift_") + methods[m] + std::to_string(T));
      const CliResult r = run_example(w, "kepler.toml",
                                      {std::string("integrator.method=") + methods[m], "integrator.dt=0.05",
                                       T == 0 ? "integrator.t_end=6.25" : "integrator.t_end=625", "output.every=50"});
      ASSERT_EQ(r.code, 0) << r.err;
      err[m][T] = read_json(w / "out" / "summary.json")["diagnostics"]["energy_max_rel_error"].get<double>();
    }
  }
  std::printf("kepler dt = 0.05, max |dE/E0| over 1 and 100 orbits: midpoint %.3e -> %.3e, rk4 %.3e -> %.3e\n",
              err[0][0], err[0][1], err[1][0], err[1][1]);
  EXPECT_LT(err[0][1], 1.01 * err[0][0]);  // bounded: no growth over 100 orbits
  EXPECT_GT(err[1][1], 20.0 * err[1][0]);  // secular drift
}

TEST(MechanicsCli, NewtonFailureExit3KeepsOutputs) {
  const fs::path d = workdir("mech_fail");
  const CliResult r = run_example(d, "kepler.toml", {"integrator.dt=0.5", "integrator.t_end=50"});
  EXPECT_EQ(r.code, 3) << r.err;
  EXPECT_NE(r.err.find("numerical failure in step 1"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("integrator.dt"), std::string::npos) << r.err;
  const auto j = read_json(d / "out" / "summary.json");
  EXPECT_EQ(j["status"], "failed");
  EXPECT_EQ(j["failure"]["step"], 1);
  EXPECT_TRUE(j["failure"].contains("residual"));
  EXPECT_NE(j["failure"]["message"].get<std::string>().find("Newton"), std::string::npos);
  const Series s = read_series(d / "out" / "series.csv");
  EXPECT_EQ(s.rows(), 1u);  // the start is kept
  for (const auto& e : fs::directory_iterator(d))
    EXPECT_EQ(e.path().filename().string().find(".tmp-"), std::string::npos);
}

TEST(MechanicsCli, ForcedOscillatorMatchesExactSolution) {
  const fs::path d = workdir("mech_forced");
  const CliResult r = run_example(d, "forced_oscillator.toml", {});
  ASSERT_EQ(r.code, 0) << r.err;
  const Series s = read_series(d / "out" / "series.csv");
  // m = 1, k = 4, c = 0.1, F = 1, w = 1.9, q(0) = q'(0) = 0: steady A cos wt + B sin wt plus the transient
  const double m = 1.0, k = 4.0, c = 0.1, F = 1.0, w = 1.9;
  const double den = (k - m * w * w) * (k - m * w * w) + (c * w) * (c * w);
  const double A = F * (k - m * w * w) / den, B = F * c * w / den;
  const double gam = c / (2.0 * m), wd = std::sqrt(k / m - gam * gam), C = -A, D = (gam * C - B * w) / wd;
  double err = 0.0, amp = 0.0;
  for (std::size_t i = 0; i < s.rows(); ++i) {
    const double t = s.col.at("t")[i];
    const double x = A * std::cos(w * t) + B * std::sin(w * t) +
                     std::exp(-gam * t) * (C * std::cos(wd * t) + D * std::sin(wd * t));
    err = std::max(err, std::abs(s.col.at("q1")[i] - x));
    amp = std::max(amp, std::abs(x));
  }
  std::printf("forced oscillator trapezoid dt = 0.01, t <= 60: max |q - q_exact| = %.3e (amplitude %.3f)\n", err, amp);
  EXPECT_LT(err, 3e-3);
  const auto j = read_json(d / "out" / "summary.json");
  EXPECT_NE(j["notes"].dump().find("energy_error is absolute"), std::string::npos);
}

// The nonholonomic systems (discrete Lagrange-d'Alembert) from the command line. The Chaplygin sleigh against
// its closed form, derived here: with V^2 = 2E/m and mu = m a / (I + m a^2) the reduced equations
// v' = a omega^2, omega' = -mu v omega give v = V tanh(s), omega = omega0 cosh(s0) / cosh(s),
// s = mu V t + s0, s0 = atanh(v0 / V), so theta = theta0 + omega0 cosh(s0) (gd(s) - gd(s0)) / (mu V) with
// gd(s) = 2 atan(tanh(s / 2)); the order of the heading error measured over dt = 0.02, 0.01, 0.005. The
// constraints at round-off in every row; the vertical disk's energy exact; bad input refused.
TEST(MechanicsCli, NonholonomicSystemsMatchTheirClosedFormsAndKeepTheConstraints) {
  const double m = 1.0, I = 0.1, a = 0.5, theta0 = 0.3, v0 = 0.5, omega0 = 1.0, T = 4.0;
  const double E = 0.5 * m * v0 * v0 + 0.5 * (I + m * a * a) * omega0 * omega0;
  const double V = std::sqrt(2.0 * E / m), mu = m * a / (I + m * a * a), s0 = std::atanh(v0 / V);
  const auto gd = [](double s) { return 2.0 * std::atan(std::tanh(0.5 * s)); };
  const double theta_T = theta0 + omega0 * std::cosh(s0) * (gd(mu * V * T + s0) - gd(s0)) / (mu * V);
  std::vector<double> err;
  for (const char* dt : {"0.02", "0.01", "0.005"}) {
    const fs::path d = workdir(std::string("mech_sleigh_") + dt);
    const CliResult r = run_example(d, "chaplygin_sleigh.toml", {std::string("integrator.dt=") + dt, "integrator.t_end=4"});
    ASSERT_EQ(r.code, 0) << r.err;
    const Series s = read_series(d / "out" / "series.csv");
    err.push_back(std::abs(s.col.at("q3").back() - theta_T));
    // the discrete constraint |A(q_mid)(q_k - q_k-1)| / h: round-off of q ~ 10 m over h (2e-16 * 10 / 0.005)
    for (double c : s.col.at("constraint")) EXPECT_LE(c, 1e-12) << dt;
    const auto j = read_json(d / "out" / "summary.json");
    // the node projection puts the velocity on the constraint exactly (a few ulps of |v| ~ 1)
    EXPECT_LE(j["diagnostics"]["velocity_constraint_max"].get<double>(), 1e-14) << dt;
    // the example's qdot is on the constraint: not projected
    EXPECT_EQ(j["notes"].dump().find("projected"), std::string::npos) << j["notes"].dump();
  }
  const double order1 = std::log2(err[0] / err[1]), order2 = std::log2(err[1] / err[2]);
  std::printf("sleigh heading at t = 4: errors %.3e %.3e %.3e, orders %.3f %.3f\n", err[0], err[1], err[2], order1,
              order2);
  EXPECT_NEAR(order1, 2.0, 0.1);  // a second-order method in its asymptotic range (measured 2.00)
  EXPECT_NEAR(order2, 2.0, 0.1);
  EXPECT_LE(err[2], 1e-6);

  // the vertical disk: the projected velocity is exactly (Omega, omega), so the energy is kept to round-off
  {
    const fs::path d = workdir("mech_vertical_disk");
    const CliResult r = run_example(d, "vertical_disk.toml", {"integrator.t_end=20"});
    ASSERT_EQ(r.code, 0) << r.err;
    const auto j = read_json(d / "out" / "summary.json");
    EXPECT_LE(j["diagnostics"]["energy_max_rel_error"].get<double>(), 1e-12);  // ~ 2000 steps of round-off
    EXPECT_LE(j["diagnostics"]["constraint_max"].get<double>(), 1e-12);
  }
  // the disk free to tilt: a start off the constraints is projected onto them, with a note
  {
    const fs::path d = workdir("mech_rolling_disk");
    const CliResult r = run_example(d, "rolling_disk.toml", {"integrator.t_end=2", "initial.qdot=[0.1,0,0.3,0.5,5]"});
    ASSERT_EQ(r.code, 0) << r.err;
    const auto j = read_json(d / "out" / "summary.json");
    EXPECT_NE(j["notes"].dump().find("initial.qdot was projected onto the constraints"), std::string::npos)
        << j["notes"].dump();
    // (projected in the kinetic metric) onto xdot = R cos(phi) psidot, ydot = R sin(phi) psidot at phi = 0
    const auto& qd = j["start"]["qdot"];
    EXPECT_NEAR(qd[0].get<double>(), 0.5 * qd[4].get<double>(), 1e-14);
    EXPECT_NEAR(qd[1].get<double>(), 0.0, 1e-14);
    EXPECT_LE(j["diagnostics"]["constraint_max"].get<double>(), 1e-12);
    EXPECT_LE(j["diagnostics"]["velocity_constraint_max"].get<double>(), 1e-13);
  }
  // bad input: a method the nonholonomic step does not have, inertias that are not two positive numbers
  const fs::path d = workdir("mech_nonholonomic_bad");
  const CliResult rk4 = lievi_cli(d, {"validate", (kExamples / "chaplygin_sleigh.toml").string(), "--set",
                                      "integrator.method=rk4"});
  EXPECT_EQ(rk4.code, 2);
  EXPECT_NE(rk4.err.find("key 'integrator.method': value \"rk4\" is not available for the nonholonomic system "
                         "chaplygin_sleigh; allowed (discrete Lagrange-d'Alembert): midpoint, trapezoid"),
            std::string::npos)
      << rk4.err;
  const CliResult in = lievi_cli(d, {"validate", (kExamples / "vertical_disk.toml").string(), "--set",
                                     "model.inertias=[0.5, -1]"});
  EXPECT_EQ(in.code, 2);
  EXPECT_NE(in.err.find("key 'model.inertias': value [0.5, -1] must be 2 numbers > 0 (I about the axle, J about a "
                        "diameter)"),
            std::string::npos)
      << in.err;
}
