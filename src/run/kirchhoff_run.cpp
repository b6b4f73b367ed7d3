/// @file src/run/kirchhoff_run.cpp
/// @brief The kirchhoff run pipeline: the body from the scenario, the DDB on se(3)* (basic or symmetric, Cayley or
/// exp), the step loop with its health check, series.csv, summary.json, plots; and KirchhoffSimulation, the same
/// step taken by the caller.
#include "lievi/run/kirchhoff_run.hpp"
#include "lievi/run/kirchhoff_sim.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <stdexcept>
#include <variant>

#include "lievi/core/error.hpp"
#include "lievi/integrators/ddb_group.hpp"
#include "lievi/integrators/ddb_group_symmetric.hpp"
#include "lievi/lie/so3.hpp"
#include "lievi/run/health.hpp"
#include "lievi/run/plots.hpp"
#include "state_run.hpp"

namespace lievi::run {
namespace kirchhoff_detail {

using State = models::LiePoissonState<lie::SE3>;
using System = models::QuadraticLiePoisson<lie::SE3>;
using config::Retraction;
using config::RigidBodyMethod;
constexpr double nan = std::numeric_limits<double>::quiet_NaN();
/// H beyond this factor times its start is a blow-up (H is non-increasing under dissipation and bounded without).
constexpr double kBlowUpFactor = 1e8;
/// A step raising H by at most this many ulps of H_0 counts as decreasing (the evaluation of H rounds by a few
/// ulps; measured rises of the DDB on se(3)* are <= 1.8 eps, docs/theory/ddb.md).
constexpr double kMonotoneUlps = 4.0;

/// The method of a scenario: DDBGroup or DDBGroupSymmetric on SE(3) with Cayley or exp.
class Stepper {
 public:
  using DdbCay = integrators::DDBGroup<lie::SE3, lie::Cayley<lie::SE3>>;
  using DdbExp = integrators::DDBGroup<lie::SE3, lie::Exp<lie::SE3>>;
  using SymCay = integrators::DDBGroupSymmetric<lie::SE3, lie::Cayley<lie::SE3>>;
  using SymExp = integrators::DDBGroupSymmetric<lie::SE3, lie::Exp<lie::SE3>>;
  using Any = std::variant<DdbCay, DdbExp, SymCay, SymExp>;

  /// Built and started from x0 with the scenario's step (the symmetric DDB processes mu_0 here).
  Stepper(const io::KirchhoffScenario& s, const System& sys, const State& x0) : m_(make(s, sys)) {
    std::visit(
        [&](auto& m) {
          if constexpr (requires { m.start(x0, s.dt); }) m.start(x0, s.dt);
          else m.start();
        },
        m_);
  }
  StepResult step(State& x, double h) {
    return std::visit([&](auto& m) { return m.step(x, h); }, m_);
  }
  void state(StateIO& a) {
    std::visit([&](auto& m) { m.state(a); }, m_);
  }

 private:
  static Any make(const io::KirchhoffScenario& s, const System& sys) {
    solve::NewtonOptions n;
    n.residual_tol = s.newton_tol;
    n.max_iterations = static_cast<int>(s.max_iterations);
    const bool exp = s.retraction == Retraction::exp;
    if (s.method == RigidBodyMethod::ddb_symmetric)
      return exp ? Any(std::in_place_type<SymExp>, sys, s.symmetric_processing, n)
                 : Any(std::in_place_type<SymCay>, sys, s.symmetric_processing, n);
    return exp ? Any(std::in_place_type<DdbExp>, sys, n) : Any(std::in_place_type<DdbCay>, sys, n);
  }
  Any m_;
};

/// The reported values of a level (the columns after P3 of series.csv, before the pose).
struct Values {
  double H = nan, C1 = nan, C2 = nan, dC1 = nan, dC2 = nan, gap = nan, dist = nan, eq = nan;
};

/// The max-norm distance from mu to the nearest minimiser: mu_star with the signs of (Pi_i, P_i) flipped together
/// (the test's distance_to_minimisers, tests/kirchhoff/test_kirchhoff_equilibrium.cpp).
double distance_to_minimisers(const lie::Vec6& mu, const lie::Vec6& mu_star) {
  double d = std::numeric_limits<double>::infinity();
  for (int signs = 0; signs < 8; ++signs) {
    lie::Vec6 m = mu_star;
    for (int i = 0; i < 3; ++i)
      if (signs & (1 << i)) m(i) = -m(i), m(i + 3) = -m(i + 3);
    d = std::min(d, (mu - m).lpNorm<Eigen::Infinity>());
  }
  return d;
}

std::string vector_text(const double* v, int n) {
  std::string t = "[";
  for (int i = 0; i < n; ++i) t += (i ? ", " : "") + io::format_number(v[i]);
  return t + "]";
}

/// The step of a kirchhoff scenario from level k-1 to level k with the run's check, shared by the run loop and
/// KirchhoffSimulation: the body, the started method, the state and what the check carries.
struct Core {
  const io::KirchhoffScenario& s;
  models::Kirchhoff body;
  System sys;
  State x;
  Stepper stepper;
  bool has_min = false;
  models::KirchhoffMinimum min;
  double C1_0 = 0.0, C2_0 = 0.0, H0 = 0.0, H_scale = 0.0;
  bool dissipative = false;
  // carried by the check (saved in checkpoints)
  double H_min = 0.0, H_prev = 0.0, max_increase = -std::numeric_limits<double>::infinity();

  explicit Core(const io::KirchhoffScenario& sc)
      : s(sc), body(sc.model()), sys(body.system()), x(sc.initial_state()), stepper(sc, sys, x) {
    has_min = body.coupling.isZero(0.0);
    if (has_min) min = body.minimum_energy(x.mu);
    C1_0 = models::Kirchhoff::casimir_P2(x.mu);
    C2_0 = models::Kirchhoff::casimir_PPi(x.mu);
    H0 = sys.energy(x.mu);
    H_scale = H0 > 0.0 ? H0 : std::numeric_limits<double>::min();
    H_min = H_prev = H0;
    dissipative = sys.K.cwiseAbs().maxCoeff() > 0.0;
  }

  [[nodiscard]] Values values() const {
    Values v;
    v.H = sys.energy(x.mu);
    v.C1 = models::Kirchhoff::casimir_P2(x.mu);
    v.C2 = models::Kirchhoff::casimir_PPi(x.mu);
    v.dC1 = v.C1 - C1_0;
    v.dC2 = v.C2 - C2_0;
    if (has_min) {
      v.gap = v.H - min.energy;
      v.dist = distance_to_minimisers(x.mu, min.mu);
    }
    v.eq = lie::SE3::ad_star(sys.xi(x.mu), x.mu).lpNorm<Eigen::Infinity>();
    return v;
  }

  /// "" when the reported values are finite, otherwise which is not.
  [[nodiscard]] static std::string bad_value(const Values& v) {
    if (!std::isfinite(v.H) || !std::isfinite(v.C1) || !std::isfinite(v.C2) || !std::isfinite(v.eq))
      return "energy = " + io::format_number(v.H) + ", casimir_P2 = " + io::format_number(v.C1) +
             ", casimir_PPi = " + io::format_number(v.C2) + ", equilibrium_residual = " + io::format_number(v.eq);
    return {};
  }

  [[nodiscard]] std::string smaller_dt() const {
    return "the step failed at dt = " + io::format_number(s.dt) + "; try a smaller integrator.dt, e.g. " +
           io::format_number(s.dt / 10.0) + " (dt/10 keeps t_end/dt an integer)";
  }

  /// Step k; a failure puts the state back to level k-1 and is returned; otherwise `val` holds level k's values.
  std::optional<RunFailure> checked_step(long long k, StepResult& res, Values& val) {
    const State before = x;
    res = stepper.step(x, s.dt);
    std::string message, hint = smaller_dt();
    const bool finite = x.mu.allFinite() && x.g.matrix().allFinite();
    if (!res.converged) {
      message = res.message && *res.message ? res.message : "the step did not converge";
      hint += ", or raise integrator.max_iterations (now " + std::to_string(s.max_iterations) +
              ") or integrator.newton_tol (now " + io::format_number(s.newton_tol) + ")";
    } else if (!finite) {
      message = std::string("non-finite state after the step: ") +
                (x.mu.allFinite() ? "pose x = " + vector_text(x.g.translation().data(), 3)
                                  : "mu = " + vector_text(x.mu.data(), 6));
    } else {
      val = values();
      if (const std::string bad = bad_value(val); !bad.empty()) {
        message = "non-finite value after the step: " + bad + " (overflow)";
      } else if (val.H > kBlowUpFactor * H_scale) {
        message = "blow-up: the energy H = " + io::format_number(val.H) + " grew to more than 1e8 times its start " +
                  io::format_number(H0);
      } else if (dissipative && val.H - H_min > health::dissipation_rise_tol(H_scale, k)) {
        message = "energy rise under dissipation: H = " + io::format_number(val.H) +
                  " exceeds its smallest earlier value " + io::format_number(H_min) + " by " +
                  io::format_number((val.H - H_min) / H_scale) + " of H0 (round-off allows " +
                  io::format_number(health::dissipation_rise_tol(H_scale, k) / H_scale) +
                  "); with model.alpha_rot or model.alpha_trans > 0 the exact flow never raises H";
        if (s.method != RigidBodyMethod::ddb)
          hint = "use integrator.method = \"ddb\" (dissipates H exactly) or a smaller integrator.dt, e.g. " +
                 io::format_number(s.dt / 10.0) + " (dt/10 keeps t_end/dt an integer)";
      }
    }
    if (message.empty()) {
      H_min = std::min(H_min, val.H);
      max_increase = std::max(max_increase, (val.H - H_prev) / H_scale);
      H_prev = val.H;
      return std::nullopt;
    }
    x = before;
    RunFailure f;
    f.step = k;
    f.t = s.time_at(k - 1);
    f.residual = res.residual;
    f.message = message;
    f.hint = hint;
    return f;
  }

  void checkpoint(StateIO& a) {
    a("x/mu", x.mu);
    lie::Mat4 g = x.g.matrix();
    a("x/g", g);
    if (a.restoring()) x.g = lie::SE3(g);
    {
      StateIO::Scope scope(a, "stepper");
      stepper.state(a);
    }
    a("check/H_min", H_min);
    a("check/H_prev", H_prev);
    a("check/max_increase", max_increase);
  }
};

}  // namespace kirchhoff_detail

namespace {

namespace fs = std::filesystem;
using namespace kirchhoff_detail;
using namespace detail;  // the state-vector run pipeline (state_run.hpp)

/// The levels of a kirchhoff run (StateLevels, state_run.hpp): the core and the largest drifts of the Casimirs.
struct KirchhoffLevels {
  using Values = kirchhoff_detail::Values;

  Core& core;
  KirchhoffRunResult& r;
  double dC1max = 0.0, dC2max = 0.0;

  [[nodiscard]] Values values() const { return core.values(); }
  std::optional<RunFailure> checked_step(long long k, StepResult& res, Values& val) {
    return core.checked_step(k, res, val);
  }
  [[nodiscard]] std::string unusable(const Values& v) const {
    const std::string bad = Core::bad_value(v);
    return bad.empty() ? bad : "has " + bad;
  }
  void observe(const Values& v) {
    dC1max = std::max(dC1max, std::abs(v.dC1));
    dC2max = std::max(dC2max, std::abs(v.dC2));
    r.energy_final = v.H;
  }
  /// mu, the reported values, the pose (kirchhoff_series_columns).
  void columns(Row& row, const Values& v) const {
    const State& x = core.x;
    for (int i = 0; i < 6; ++i) row.push_back(x.mu(i));
    row.insert(row.end(), {v.H, v.C1, v.C2, v.dC1, v.dC2, v.gap, v.dist, v.eq});
    const lie::Vec3& p = x.g.translation();
    row.insert(row.end(), {p(0), p(1), p(2)});
    const Eigen::Quaterniond q = lie::SO3(x.g.rotation()).quaternion();  // Hamilton, body to spatial, qw >= 0
    row.insert(row.end(), {q.w(), q.x(), q.y(), q.z()});
  }
  void save(StateIO& a) {
    core.checkpoint(a);
    a("diagnostics/dC1max", dC1max);
    a("diagnostics/dC2max", dC2max);
    a("run/energy_final", r.energy_final);
  }
};

KirchhoffRunResult integrate_scenario(const io::KirchhoffScenario& s, const Sink& sink, Progress progress,
                                      const StateCheckpoints& plan) {
  KirchhoffRunResult r;
  Core core(s);
  State& x = core.x;
  r.mu_initial = x.mu;
  r.energy_initial = core.H0;
  r.has_minimum = core.has_min;
  r.minimum = core.min;
  KirchhoffLevels levels{core, r};
  step_levels(s, levels, r, sink, progress, plan);
  r.mu_final = x.mu;
  r.pose_final = x.g.matrix();
  r.energy_max_step_increase = core.max_increase;
  // Relative drifts: C1 against |P_0|^2, C2 against |P_0| |Pi_0| (the size of its products; C2 may be 0).
  const double s1 = core.C1_0, s2 = r.mu_initial.tail<3>().norm() * r.mu_initial.head<3>().norm();
  const double dC1max = levels.dC1max, dC2max = levels.dC2max;
  r.diagnostics.emplace_back("casimir_P2_initial", core.C1_0);
  r.diagnostics.emplace_back("casimir_PPi_initial", core.C2_0);
  r.diagnostics.emplace_back("casimir_P2_max_rel_drift", s1 > 0.0 ? dC1max / s1 : dC1max);
  r.diagnostics.emplace_back("casimir_PPi_max_rel_drift", s2 > 0.0 ? dC2max / s2 : dC2max);
  r.diagnostics.emplace_back("energy_initial", core.H0);
  r.diagnostics.emplace_back("energy_final", r.energy_final);
  r.diagnostics.emplace_back("energy_max_step_increase", r.steps > 0 ? core.max_increase : 0.0);
  const Values fin = core.values();
  r.diagnostics.emplace_back("energy_above_min_final", fin.gap);
  r.diagnostics.emplace_back("distance_min_final", fin.dist);
  r.diagnostics.emplace_back("equilibrium_residual_final", fin.eq);
  if (s1 == 0.0) r.notes.emplace_back("casimir_P2_max_rel_drift is absolute: |P_0| = 0");
  if (s2 == 0.0) r.notes.emplace_back("casimir_PPi_max_rel_drift is absolute: |P_0| |Pi_0| = 0");
  if (!core.has_min)
    r.notes.emplace_back("model.coupling is not zero: the minimum-energy set is not computed (energy_above_min and "
                         "distance_min are nan)");
  if (!core.dissipative)
    r.notes.emplace_back("no dissipation (model.alpha_rot = model.alpha_trans = 0): the energy is conserved up to "
                         "the method's bounded error, not decreasing");
  return r;
}

/// The kirchhoff run in its output folder (StatePipeline, state_run.hpp).
struct KirchhoffPipeline {
  using Scenario = io::KirchhoffScenario;
  using Result = KirchhoffRunResult;

  static void check(const Scenario& s) { check_kirchhoff(s); }
  static std::vector<std::string> columns(const Scenario&) { return kirchhoff_series_columns(); }
  static Result integrate(const Scenario& s, const Sink& sink, Progress progress, const StateCheckpoints& plan) {
    return integrate_scenario(s, sink, progress, plan);
  }

  static void plot(const fs::path& dir, const Scenario& s, Result& r) {
    const std::string title = s.name + ": " + config::id(s.method) + " (" + config::id(s.retraction) +
                              "), dt = " + io::format_number(s.dt) + (r.complete ? "" : " [failed]");
    make_field_plots(dir, s.plots, "lievi_kirchhoff_plot.py", "LIEVI_KIRCHHOFF_PLOT_SCRIPT", title, r.notes);
  }

  static void write_summary(const fs::path& path, const Scenario& s, const Result& r) {
    json j = summary_opening(r, io::resolved_entries(s), s.name);
    const bool sym = s.method == config::RigidBodyMethod::ddb_symmetric;
    const bool alpha = s.alpha_rot != 0.0 || s.alpha_trans != 0.0;
    j["method"] = {{"id", config::id(s.method)},
                   {"order", sym || !alpha ? 2 : 1},
                   {"retraction", config::id(s.retraction)},
                   {"implicit", true},
                   {"preserves_casimirs", true}};
    if (sym) j["method"]["symmetric_processing"] = s.symmetric_processing;
    const models::Kirchhoff b = s.model();
    const lie::Mat6 A = b.locked_inertia();
    j["body"] = {{"mass", b.mass},
                 {"inertia", finite_array(b.inertia)},
                 {"added_inertia", finite_array(b.added_inertia)},
                 {"added_mass", finite_array(b.added_mass)},
                 {"locked_inertia_diagonal", finite_array(lie::Vec6(A.diagonal()))}};
    add_summary_counts(j, r, s.steps);
    j["start"] = {{"Pi", finite_array(r.mu_initial.data(), 3)}, {"P", finite_array(r.mu_initial.data() + 3, 3)}};
    const lie::Mat3 R = r.pose_final.topLeftCorner<3, 3>();
    const Eigen::Quaterniond q = lie::SO3(R).quaternion();
    j["final"] = {{"t", r.t_final},
                  {"Pi", finite_array(r.mu_final.data(), 3)},
                  {"P", finite_array(r.mu_final.data() + 3, 3)},
                  {"position", finite_array({r.pose_final(0, 3), r.pose_final(1, 3), r.pose_final(2, 3)})},
                  {"attitude", finite_array({q.w(), q.x(), q.y(), q.z()})},
                  {"energy", finite_or_null(r.energy_final)}};
    if (r.has_minimum)
      j["minimum_energy_set"] = {{"energy", r.minimum.energy},
                                 {"Pi", finite_array(r.minimum.mu.data(), 3)},
                                 {"P", finite_array(r.minimum.mu.data() + 3, 3)},
                                 {"s", finite_array(r.minimum.s)}};
    json d = diagnostics_json(r);
    d["energy_monotone"] =
        r.energy_max_step_increase <= kMonotoneUlps * std::numeric_limits<double>::epsilon() || r.steps == 0;
    add_summary_closing(j, std::move(d), r, r.newton);
    write_json(path, j);
  }
};

}  // namespace

std::vector<std::string> kirchhoff_series_columns() {
  return {"t",           "Pi1",           "Pi2",         "Pi3",
          "P1",          "P2",            "P3",          "energy",
          "casimir_P2",  "casimir_PPi",   "casimir_P2_drift", "casimir_PPi_drift",
          "energy_above_min", "distance_min", "equilibrium_residual", "x",
          "y",           "z",             "qw",          "qx",
          "qy",          "qz",            "newton"};
}

void check_kirchhoff(const io::KirchhoffScenario& s) {
  try {
    config::validate(s);  // a configuration built in C++ meets the rules a scenario file meets
  } catch (const invalid_argument& e) {
    std::vector<InputIssue> issues = e.issues();
    for (auto& i : issues)
      if (i.file.empty()) i.file = s.source.empty() ? s.name : s.source;
    throw invalid_argument(std::move(issues));
  }
}

KirchhoffRunResult integrate_kirchhoff(const io::KirchhoffScenario& s, std::vector<std::vector<double>>* rows,
                                       Progress progress) {
  check_kirchhoff(s);
  const Sink sink = collect_rows(rows);
  KirchhoffRunResult r = integrate_scenario(s, sink, progress, {});
  detail::prepend_ignored_key_notes(s, r);
  return r;
}

fs::path default_output_dir(const io::KirchhoffScenario& s) { return fs::path("runs") / s.name; }

KirchhoffRunResult run_kirchhoff(const io::KirchhoffScenario& s, const fs::path& out_dir, const RunOptions& options,
                                 const ResumeFrom* resume) {
  return detail::run_in_folder<KirchhoffPipeline>(s, out_dir, options, resume);
}

// ---- KirchhoffSimulation: the run's step, taken by the caller ----

struct KirchhoffSimulation::Impl {
  io::KirchhoffScenario s;
  kirchhoff_detail::Core core;
  long long steps = 0;
  bool failed = false;
  explicit Impl(const io::KirchhoffScenario& sc) : s(sc), core(s) {}
  [[nodiscard]] kirchhoff_detail::Values values() const { return core.values(); }
};

KirchhoffSimulation::KirchhoffSimulation(const io::KirchhoffScenario& s) {
  check_kirchhoff(s);
  impl_ = std::make_unique<Impl>(s);
}
KirchhoffSimulation::~KirchhoffSimulation() = default;

std::optional<RunFailure> KirchhoffSimulation::step(long long n) {
  Impl& m = *impl_;
  if (m.failed) throw std::logic_error("the simulation failed and cannot step on");
  for (long long i = 0; i < n; ++i) {
    StepResult res;
    kirchhoff_detail::Values v;
    if (std::optional<RunFailure> f = m.core.checked_step(m.steps + 1, res, v)) {
      m.failed = true;
      return f;
    }
    ++m.steps;
  }
  return std::nullopt;
}
bool KirchhoffSimulation::failed() const { return impl_->failed; }
double KirchhoffSimulation::t() const { return impl_->s.time_at(impl_->steps); }
long long KirchhoffSimulation::steps() const { return impl_->steps; }
double KirchhoffSimulation::dt() const { return impl_->s.dt; }
const double* KirchhoffSimulation::mu() const { return impl_->core.x.mu.data(); }
const double* KirchhoffSimulation::R() const { return impl_->core.x.g.rotation().data(); }
const double* KirchhoffSimulation::x() const { return impl_->core.x.g.translation().data(); }
double KirchhoffSimulation::energy() const { return impl_->values().H; }
double KirchhoffSimulation::casimir_P2() const { return impl_->values().C1; }
double KirchhoffSimulation::casimir_PPi() const { return impl_->values().C2; }
double KirchhoffSimulation::energy_above_min() const { return impl_->values().gap; }
double KirchhoffSimulation::distance_min() const { return impl_->values().dist; }
double KirchhoffSimulation::equilibrium_residual() const { return impl_->values().eq; }

}  // namespace lievi::run
