// Bounds of every model's scenario keys (issue 22): an empty pose table of a prescribed end, the ranges of the
// integer keys, the memory estimate refused before allocation, vectors that are huge, tiny or non-finite after
// normalisation, [[regions]] resolved in linear time with the same K and P as the per-segment rule, repeated
// problems of one list reported a bounded number of times, and `lievi convergence` refusing other models.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "lievi/io/any_scenario.hpp"
#include "lievi/core/error.hpp"
#include "lievi/io/beam_scenario.hpp"
#include "lievi/io/mechanics_scenario.hpp"
#include "lievi/io/memory_estimate.hpp"
#include "lievi/io/scenario.hpp"
#include "lievi/io/wave_scenario.hpp"
#include "lievi/run/convergence.hpp"

using lievi::InputIssue;
using lievi::io::BeamScenario;
namespace fs = std::filesystem;

namespace {

const std::string kBeam =
    "[model]\ntype = \"beam\"\na = 0.1\n[grid]\nJ = 4\n[integrator]\ndt = 0.01\nt_end = 0.1\n";
const std::string kWave = "[model]\ntype = \"wave\"\n[grid]\nJ = 10\n[integrator]\ndt = 0.01\nt_end = 0.1\n";

/// The issues of a parse that must fail (fails the test when it is accepted).
template <class Parse>
std::vector<InputIssue> issues_from(Parse parse, const std::string& what) {
  try {
    (void)parse();
  } catch (const lievi::invalid_argument& e) {
    return e.issues();
  }
  ADD_FAILURE() << "accepted: " << what;
  return {};
}

std::vector<InputIssue> beam_issues(const std::string& text, const std::vector<std::string>& sets = {}) {
  return issues_from([&] { return lievi::io::parse_beam_scenario(text, "b.toml", "b", sets); }, text);
}

std::vector<InputIssue> wave_issues(const std::string& text, const std::vector<std::string>& sets = {}) {
  return issues_from([&] { return lievi::io::parse_wave_scenario(text, "w.toml", "w", sets); }, text);
}

/// Exactly one issue, on `key`, whose message contains every fragment.
void expect_one(const std::vector<InputIssue>& is, const std::string& key, const std::vector<std::string>& fragments) {
  ASSERT_EQ(is.size(), 1u) << (is.empty() ? std::string("none") : is[0].format() + " ... " + is.back().format());
  EXPECT_EQ(is[0].key, key) << is[0].format();
  for (const auto& f : fragments) EXPECT_NE(is[0].message.find(f), std::string::npos) << is[0].format();
}

fs::path workdir(const std::string& name) {
  const fs::path d = fs::path(LIEVI_TEST_TMP_DIR) / ("bounds_" + name);
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

/// Sets $LIEVI_MEMORY_AVAILABLE for the scope of the object (the estimate then compares against it).
struct AvailableMemory {
  explicit AvailableMemory(const char* bytes) { setenv("LIEVI_MEMORY_AVAILABLE", bytes, 1); }
  ~AvailableMemory() { unsetenv("LIEVI_MEMORY_AVAILABLE"); }
  AvailableMemory(const AvailableMemory&) = delete;
  AvailableMemory& operator=(const AvailableMemory&) = delete;
};

// ---------------------------------------------------------------------------------------------------------------
// 1. the pose table of a prescribed end
// ---------------------------------------------------------------------------------------------------------------

TEST(ModelBounds, EmptyMotionFileNameIsRefused) {
  // before: accepted, and the run dereferenced the empty table (SIGSEGV)
  expect_one(beam_issues(kBeam + "[bc]\nleft = \"prescribed\"\nleft_motion = \"\"\n"), "bc.left_motion",
             {"empty file name", "bc.left"});
  expect_one(beam_issues(kBeam, {"bc.right=prescribed", "bc.right_motion="}), "bc.right_motion",
             {"empty file name", "bc.right"});
  // an empty name for an end that is not prescribed is not read (noted as ignored), as before
  EXPECT_NO_THROW((void)lievi::io::parse_beam_scenario(kBeam + "[bc]\nleft_motion = \"\"\n", "b.toml", "b"));
}

TEST(ModelBounds, PoseTableWithoutRowsIsRefused) {
  const fs::path d = workdir("motion");
  for (const std::string& body : {std::string(""), std::string("# only a comment\n"), std::string("t,x,y,z,qw,qx,qy,qz\n")}) {
    std::ofstream(d / "m.csv") << body;
    std::ofstream(d / "b.toml") << kBeam << "[bc]\nleft = \"prescribed\"\nleft_motion = \"m.csv\"\n";
    const auto is = issues_from([&] { return lievi::io::load_beam_scenario(d / "b.toml"); }, body);
    ASSERT_EQ(is.size(), 1u);
    EXPECT_EQ(is[0].key, "bc.left_motion");
    EXPECT_NE(is[0].message.find("no rows"), std::string::npos) << is[0].format();
  }
}

// ---------------------------------------------------------------------------------------------------------------
// 2. integer bounds
// ---------------------------------------------------------------------------------------------------------------

TEST(ModelBounds, IntegerKeysHaveUpperBounds) {
  // before: accepted (grid.J = 10^12 then overflowed or failed to allocate; every = 10^13 overflowed 1000 every)
  expect_one(beam_issues(kBeam, {"grid.J=1000000000000"}), "grid.J", {"value 1000000000000 must be in [1, 100000000]"});
  expect_one(wave_issues(kWave, {"grid.J=100000001"}), "grid.J", {"must be in [2, 100000000]"});
  for (const char* key : {"output.every", "output.fields_every"}) {
    expect_one(beam_issues(kBeam, {std::string(key) + "=10000000000000"}), key, {"must be in [1, 1000000000000]"});
    expect_one(wave_issues(kWave, {std::string(key) + "=10000000000000"}), key, {"must be in [1, 1000000000000]"});
  }
  expect_one(beam_issues(kBeam, {"integrator.newton_maxit=1001"}), "integrator.newton_maxit", {"must be in [1, 1000]"});
  expect_one(wave_issues(kWave, {"initial.wavenumber=1000000001"}), "initial.wavenumber",
             {"must be in [0, 1000000000]"});
  expect_one(wave_issues(kWave, {"noise.mode=modes", "noise.theta=1", "noise.cosine_modes=100001"}),
             "noise.cosine_modes", {"must be in [1, 100000]"});
  const auto rb = issues_from(
      [] {
        return lievi::io::parse_scenario(
            "[model]\ntype = \"rigid_body\"\ninertia = [1, 2, 3]\n[initial]\nomega = [1, 0, 0]\n[integrator]\n"
            "method = \"rk4\"\ndt = 0.1\nt_end = 1\n[output]\nevery = 9000000000000000000\n",
            "r.toml", "r");
      },
      "rigid body every");
  expect_one(rb, "output.every", {"must be in [1, 1000000000000]"});
  const auto mech = issues_from(
      [] {
        return lievi::io::parse_mechanics_scenario(
            "[model]\ntype = \"lagrangian\"\nsystem = \"pendulum\"\n[initial]\nq = [0.1]\n[integrator]\ndt = 0.1\n"
            "t_end = 1\n[output]\nevery = 1000000000001\n",
            "m.toml", "m");
      },
      "lagrangian every");
  expect_one(mech, "output.every", {"must be in [1, 1000000000000]"});
  // the lower bounds keep their wording
  expect_one(beam_issues(kBeam, {"output.every=0"}), "output.every", {"value 0 must be >= 1"});
  // the bounds themselves are accepted
  const BeamScenario s = lievi::io::parse_beam_scenario(kBeam, "b.toml", "b",
                                                        {"output.every=1000000000000", "integrator.newton_maxit=1000"});
  EXPECT_EQ(s.every, 1000000000000LL);
  EXPECT_EQ(s.fields_every, 1000000000000LL);  // the default: every, raised to <= 1000 snapshots
}

TEST(ModelBounds, ModeWavenumberIsBounded) {
  const std::string modes = "[noise]\nmode = \"modes\"\n[[noise.modes]]\ntheta = [1, 0, 0, 0, 0, 0]\n"
                            "profile = \"cos\"\nwavenumber = 9000000000000000000\n";
  expect_one(beam_issues(kBeam + modes), "noise.modes[0].wavenumber", {"must be <= 1000000000"});
}

// ---------------------------------------------------------------------------------------------------------------
// 3. memory estimate
// ---------------------------------------------------------------------------------------------------------------

TEST(ModelBounds, HugeGridIsRefusedForItsMemory) {
  const AvailableMemory mem("1000000000");  // 1 GB
  // before: accepted by validate; the run ended in std::bad_alloc
  const auto is = beam_issues(kBeam, {"grid.J=100000000"});
  ASSERT_EQ(is.size(), 1u) << is[0].format();
  EXPECT_EQ(is[0].key, "grid.J");
  for (const char* f : {"needs about", "GB", "100000001 nodes", "1.0 GB available", "use a smaller grid.J"})
    EXPECT_NE(is[0].message.find(f), std::string::npos) << is[0].format();
  expect_one(wave_issues(kWave, {"grid.J=100000000"}), "grid.J", {"needs about", "available (MemAvailable)"});
  // the usual scenarios fit
  EXPECT_NO_THROW((void)lievi::io::parse_beam_scenario(kBeam, "b.toml", "b", {"grid.J=1000"}));
  EXPECT_NO_THROW((void)lievi::io::parse_wave_scenario(kWave, "w.toml", "w", {"grid.J=1000"}));
}

TEST(ModelBounds, CheckMemoryNamesTheDominatingKey) {
  const AvailableMemory mem("1000000000");
  const lievi::io::AnyScenario beam = lievi::io::parse_beam_scenario(kBeam, "b.toml", "b");
  EXPECT_NO_THROW(lievi::io::check_memory(beam, 1));
  // an ensemble keeps the mean and variance of every series row: 10^9 steps with every = 1 do not fit in 1 GB
  // (about 24 columns x 24 bytes x 10^9 rows); they would with every = 10^6
  const lievi::io::AnyScenario long_run = lievi::io::parse_beam_scenario(
      kBeam, "b.toml", "b", {"integrator.t_end=10000000", "output.fields=false"});
  try {
    lievi::io::check_memory(long_run, 8);
    ADD_FAILURE() << "accepted";
  } catch (const lievi::invalid_argument& e) {
    ASSERT_EQ(e.issues().size(), 1u);
    EXPECT_EQ(e.issues()[0].key, "output.every") << e.issues()[0].format();
    EXPECT_NE(e.issues()[0].message.find("series statistics"), std::string::npos) << e.issues()[0].format();
  }
  EXPECT_NO_THROW(lievi::io::check_memory(long_run, 1));  // a single run streams its rows to series.csv
  // the rigid body and the lagrangian systems need a few vectors: not counted
  EXPECT_EQ(lievi::io::estimate_memory(lievi::io::AnyScenario(lievi::io::MechanicsScenario{}), 1).bytes, 0.0);
}

TEST(ModelBounds, MemoryEstimateScalesWithNodesAndPaths) {
  const BeamScenario a = lievi::io::parse_beam_scenario(kBeam, "b.toml", "b", {"grid.J=999"});
  const BeamScenario b = lievi::io::parse_beam_scenario(kBeam, "b.toml", "b", {"grid.J=1999"});
  const double ea = lievi::io::estimate_memory(a, 1).bytes, eb = lievi::io::estimate_memory(b, 1).bytes;
  EXPECT_DOUBLE_EQ(eb / ea, 2.0);  // per node: 1000 and 2000 nodes
  // bytes per node of the documented arrays: between the scenario's own (~700 B) and 10 kB
  EXPECT_GT(ea / 1000.0, 700.0);
  EXPECT_LT(ea / 1000.0, 10000.0);
}

// ---------------------------------------------------------------------------------------------------------------
// 4. vectors
// ---------------------------------------------------------------------------------------------------------------

TEST(ModelBounds, HugeAndTinyDirectionsNormalise) {
  // before: [1e308, 1e308, 0] had |d| = inf and became [0, 0, 0]; [1e-170, 0, 0] had |d| = 0 and was refused
  const BeamScenario s =
      lievi::io::parse_beam_scenario(kBeam + "[initial]\ndirection = [1e308, 1e308, 0]\nnormal = [0, 0, 1e-170]\n",
                                     "b.toml", "b");
  const double h = std::sqrt(0.5);
  // tolerance: a few ulps of the scaled normalisation
  EXPECT_NEAR(s.direction[0], h, 1e-15);
  EXPECT_NEAR(s.direction[1], h, 1e-15);
  EXPECT_EQ(s.direction[2], 0.0);
  EXPECT_EQ(s.normal[2], 1.0);
  const BeamScenario t =
      lievi::io::parse_beam_scenario(kBeam + "[initial]\ndirection = [1e-170, 0, 0]\n", "b.toml", "b");
  EXPECT_EQ(t.direction[0], 1.0);
  // the node positions follow: the last node at grid.length along the diagonal (tolerance: round-off of 4 steps)
  const auto& p = s.poses.back();
  EXPECT_NEAR(p[0], h, 1e-15);
  EXPECT_NEAR(p[1], h, 1e-15);
}

TEST(ModelBounds, DegenerateFramesAreRefused) {
  expect_one(beam_issues(kBeam + "[initial]\ndirection = [0, 0, 0]\n"), "initial.direction", {"zero vector"});
  expect_one(beam_issues(kBeam + "[initial]\ndirection = [1e308, 1e308, 0]\nnormal = [-1e308, -1e308, 0]\n"),
             "initial.normal", {"parallel"});
  expect_one(beam_issues(kBeam + "[initial]\nnormal = [1e-170, 0, 0]\n"), "initial.normal", {"parallel"});
}

TEST(ModelBounds, NonFiniteInitialMomentumIsRefused) {
  // before: accepted with M_0 = [inf, 0, 0]
  const std::string rb = "[model]\ntype = \"rigid_body\"\ninertia = [1e200, 1e200, 1e200]\n[integrator]\n"
                         "method = \"rk4\"\ndt = 0.1\nt_end = 1\n";
  const auto is = issues_from([&] { return lievi::io::parse_scenario(rb + "[initial]\nomega = [1e200, 0, 0]\n", "r.toml", "r"); },
                              "omega");
  expect_one(is, "initial.omega", {"not finite"});
  const std::string tiny = "[model]\ntype = \"rigid_body\"\ninertia = [1e-200, 1, 1]\n[integrator]\n"
                           "method = \"rk4\"\ndt = 0.1\nt_end = 1\n[initial]\nM = [1e200, 0, 0]\n";
  expect_one(issues_from([&] { return lievi::io::parse_scenario(tiny, "r.toml", "r"); }, "M"), "initial.M",
             {"not finite"});
}

TEST(ModelBounds, HugeSymmetricMatricesAreChecked) {
  // a positive definite inertia with entries near the largest double: before, (A + A^T) / 2 overflowed and it was
  // refused as "not positive definite (smallest eigenvalue nan)"; now accepted
  const std::string rb = "[model]\ntype = \"rigid_body\"\ninertia = [[1e308, 5e307, 0], [5e307, 1e308, 0], [0, 0, 1e308]]\n"
                         "[initial]\nM = [1, 0, 0]\n[integrator]\nmethod = \"rk4\"\ndt = 0.1\nt_end = 1\n";
  EXPECT_NO_THROW((void)lievi::io::parse_scenario(rb, "r.toml", "r"));
  // a beam's K: symmetric positive definite at 1e300 (accepted), and not positive definite (refused)
  std::string K = "[", P = "[";
  for (int i = 0; i < 6; ++i) {
    K += std::string(i ? ", " : "") + "[";
    P += std::string(i ? ", " : "") + "[";
    for (int j = 0; j < 6; ++j) {
      K += std::string(j ? ", " : "") + (i == j ? "1e300" : "0");
      P += std::string(j ? ", " : "") + (i == j ? (i == 5 ? "-1e300" : "1e300") : "0");
    }
    K += "]", P += "]";
  }
  K += "]", P += "]";
  const std::string matrix = "[model]\ntype = \"beam\"\nsection = \"matrix\"\nK = " + K + "\nP = " + K +
                             "\n[grid]\nJ = 4\n[integrator]\ndt = 0.01\nt_end = 0.1\n";
  EXPECT_NO_THROW((void)lievi::io::parse_beam_scenario(matrix, "b.toml", "b"));
  expect_one(beam_issues(matrix, {"model.P=" + P}), "model.P", {"not positive definite"});
}

TEST(ModelBounds, TinyKeplerStartIsNotTheOrigin) {
  // before: |q|^2 underflowed to 0 and [1e-200, 0] was refused as the attracting centre
  const std::string text = "[model]\ntype = \"lagrangian\"\nsystem = \"kepler\"\n[initial]\nq = [1e-200, 0]\n"
                           "qdot = [0, 1]\n[integrator]\ndt = 0.1\nt_end = 1\n";
  EXPECT_NO_THROW((void)lievi::io::parse_mechanics_scenario(text, "m.toml", "m"));
  const auto is = issues_from(
      [] {
        return lievi::io::parse_mechanics_scenario(
            "[model]\ntype = \"lagrangian\"\nsystem = \"kepler\"\n[initial]\nq = [0, 0]\n[integrator]\ndt = 0.1\n"
            "t_end = 1\n",
            "m.toml", "m");
      },
      "origin");
  expect_one(is, "initial.q", {"must not be the origin"});
}

// ---------------------------------------------------------------------------------------------------------------
// 5. regions
// ---------------------------------------------------------------------------------------------------------------

/// K and P of every segment by the rule of docs/scenarios.md, segment by segment: the base section, then every
/// region covering the segment's midpoint in file order (E or nu changed: G follows unless G was given).
std::vector<std::pair<std::array<double, 6>, std::array<double, 6>>> reference_segments(const BeamScenario& s) {
  std::vector<std::pair<std::array<double, 6>, std::array<double, 6>>> out;
  for (long long e = 0; e < s.n_segments(); ++e) {
    const bool cell = s.layout == lievi::field::Layout::cell && !s.periodic();
    const double mid = (static_cast<double>(e) + (cell ? 1.0 : 0.5)) * s.ds();
    double rho = s.rho, E = s.E, nu = s.nu, G = s.G, a = s.a;
    bool G_given = s.G_given;
    for (const auto& g : s.regions) {
      if (!(mid >= g.s_from && mid < g.s_to)) continue;
      bool region_G = false;
      using lievi::config::RegionConstant;
      if (auto v = g.value(RegionConstant::rho)) rho = *v;
      if (auto v = g.value(RegionConstant::E)) E = *v;
      if (auto v = g.value(RegionConstant::nu)) nu = *v, G_given = false;
      if (auto v = g.value(RegionConstant::G)) G = *v, G_given = true, region_G = true;
      if (auto v = g.value(RegionConstant::a)) a = *v;
      if (!region_G && !G_given) G = E / (2.0 * (1.0 + nu));
    }
    const double A = a * a, J2 = std::pow(a, 4) / 12.0, J1 = J2 + J2;
    out.push_back({{rho * J1, rho * J2, rho * J2, rho * A, rho * A, rho * A},
                   {G * J1, E * J2, E * J2, E * A, s.shear_factor * G * A, s.shear_factor * G * A}});
  }
  return out;
}

TEST(ModelBounds, RegionsGiveTheSegmentRuleExactly) {
  std::mt19937 rng(22);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  for (const char* layout : {"vertex", "cell"}) {
    std::string text = "[model]\ntype = \"beam\"\na = 0.1\nE = 2.0\nnu = 0.25\n[grid]\nJ = 50\nlayout = \"" +
                       std::string(layout) + "\"\n[integrator]\ndt = 0.01\nt_end = 0.1\n";
    for (int i = 0; i < 40; ++i) {
      double x = u(rng), y = u(rng);
      if (x > y) std::swap(x, y);
      char buf[256];
      std::snprintf(buf, sizeof buf, "[[regions]]\ns_range = [%.17g, %.17g]\n", x, y + 1e-3);
      text += buf;
      const int pick = static_cast<int>(u(rng) * 6);  // rho, E, nu, G, a, or none
      const char* leaves[] = {"rho", "E", "nu", "G", "a"};
      if (pick < 5) {
        std::snprintf(buf, sizeof buf, "%s = %.17g\n", leaves[pick], pick == 2 ? 0.4 * u(rng) : 0.5 + u(rng));
        text += buf;
      }
      if (pick != 1 && u(rng) < 0.3) text += "E = 3.5\n";  // two values in one table
    }
    const BeamScenario s = lievi::io::parse_beam_scenario(text, "b.toml", "b");
    const auto ref = reference_segments(s);
    ASSERT_EQ(s.segment_K.size(), ref.size());
    for (std::size_t e = 0; e < ref.size(); ++e)
      for (std::size_t c = 0; c < 6; ++c) {  // bitwise: the same operations on the same values
        EXPECT_EQ(s.segment_K[e][c][c], ref[e].first[c]) << layout << " segment " << e << " K " << c;
        EXPECT_EQ(s.segment_P[e][c][c], ref[e].second[c]) << layout << " segment " << e << " P " << c;
      }
  }
}

TEST(ModelBounds, ManyRegionsResolveInLinearTime) {
  // one region per segment at J = 20000 (before: quadratic, minutes); the guard is the ctest timeout
  const long long J = 20000;
  std::string text = "[model]\ntype = \"beam\"\na = 0.1\n[grid]\nJ = 20000\n[integrator]\ndt = 0.01\nt_end = 0.01\n";
  for (long long e = 0; e < J; ++e)
    text += "[[regions]]\ns_range = [" + std::to_string(static_cast<double>(e) / J) + ", " +
            std::to_string(static_cast<double>(e + 1) / J) + "]\nE = " + std::to_string(1.0 + static_cast<double>(e % 7)) +
            "\n";
  const BeamScenario s = lievi::io::parse_beam_scenario(text, "b.toml", "b", {"output.fields=false"});
  ASSERT_EQ(s.segment_P.size(), static_cast<std::size_t>(J));
  const auto ref = reference_segments(s);
  for (std::size_t e = 0; e < ref.size(); e += 997) EXPECT_EQ(s.segment_P[e][3][3], ref[e].second[3]) << e;
}

// ---------------------------------------------------------------------------------------------------------------
// 6. repeated problems of one list
// ---------------------------------------------------------------------------------------------------------------

TEST(ModelBounds, RepeatedProbeProblemsAreCounted) {
  // before: one issue per entry, each quoting the whole list (400 MB of messages for a large list)
  std::string probes = "[";
  for (int k = 0; k < 5000; ++k) probes += std::string(k ? ", " : "") + std::to_string(k % 3);  // 0, 1, 2 repeated
  for (int k = 0; k < 3000; ++k) probes += ", " + std::to_string(100 + k);                     // outside [0, 5)
  probes += "]";
  const auto is = beam_issues(kBeam + "[output]\nprobes = " + probes + "\n");
  // 3 repeated nodes (each once), 5 nodes outside listed, then one count line
  ASSERT_EQ(is.size(), 3u + 5u + 1u) << is[0].format();
  for (const auto& i : is) {
    EXPECT_EQ(i.key, "output.probes");
    EXPECT_LE(i.message.size(), 300u) << i.format();  // the list quoted shortened
  }
  EXPECT_NE(is.back().message.find("... and 2995 more nodes outside [0, 5)"), std::string::npos) << is.back().format();
  // a wave probe list: the same rule
  const auto w = wave_issues(kWave + "[output]\nprobes = [1, 1, 1, 1, 2, 2]\n");
  ASSERT_EQ(w.size(), 2u);
  EXPECT_NE(w[0].message.find("lists node 1 twice"), std::string::npos) << w[0].format();
  EXPECT_NE(w[1].message.find("lists node 2 twice"), std::string::npos) << w[1].format();
}

TEST(ModelBounds, RepeatedNotesAreCounted) {
  // before: one note per key of every [[noise.modes]] table ignored with noise.mode = "none"
  std::string text = kBeam + "[noise]\nmode = \"none\"\n";
  for (int k = 0; k < 30; ++k) text += "[[noise.modes]]\ntheta = [1, 0, 0, 0, 0, 0]\nprofile = \"constant\"\n";
  const auto notes = lievi::io::ignored_key_notes(lievi::io::parse_beam_scenario(text, "b.toml", "b"));
  ASSERT_EQ(notes.size(), 21u);  // 20 of the 60 notes, then the count
  EXPECT_NE(notes[0].find("key 'noise.modes[0].theta' is ignored"), std::string::npos) << notes[0];
  EXPECT_EQ(notes[20], "... and 40 more keys of [[noise.modes]] tables are ignored with noise.mode = \"none\"");
}

TEST(ModelBounds, ProbeCountIsBounded) {
  std::string probes = "[";
  for (int k = 0; k < 10001; ++k) probes += std::string(k ? ", " : "") + std::to_string(k);
  expect_one(beam_issues(kBeam + "[output]\nprobes = " + probes + "]\n", {"grid.J=20000"}), "output.probes",
             {"has 10001 nodes; at most 10000"});
}

// ---------------------------------------------------------------------------------------------------------------
// 7. lievi convergence on another model
// ---------------------------------------------------------------------------------------------------------------

TEST(ModelBounds, ConvergenceRefusesOtherModelsByName) {
  const fs::path d = workdir("convergence");
  std::ofstream(d / "beam.toml") << kBeam;
  lievi::run::ConvergenceOptions o;
  o.values = {"0.01", "0.005"};
  try {
    (void)lievi::run::prepare_convergence(d / "beam.toml", o);
    ADD_FAILURE() << "accepted";
  } catch (const lievi::invalid_argument& e) {
    ASSERT_EQ(e.issues().size(), 1u) << e.what();
    EXPECT_EQ(e.issues()[0].key, "model.type");
    EXPECT_NE(e.issues()[0].message.find("lievi convergence supports model.type = \"rigid_body\""), std::string::npos)
        << e.what();
    EXPECT_NE(e.issues()[0].message.find("has model.type = \"beam\""), std::string::npos) << e.what();
  }
  // a --set of model.type counts too
  std::ofstream(d / "rb.toml") << "[model]\ntype = \"rigid_body\"\ninertia = [1, 2, 3]\n[initial]\nomega = [1, 0, 0]\n"
                                  "[integrator]\nmethod = \"rk4\"\ndt = 0.1\nt_end = 1\n";
  o.overrides = {"model.type=wave"};
  const auto is = issues_from([&] { return lievi::run::prepare_convergence(d / "rb.toml", o); }, "--set model.type");
  ASSERT_EQ(is.size(), 1u);
  EXPECT_NE(is[0].message.find("has model.type = \"wave\""), std::string::npos) << is[0].format();
}

}  // namespace
