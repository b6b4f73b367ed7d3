/// @file src/run/mechanics_run.cpp
/// @brief The lagrangian run pipeline: the catalogue system from the scenario, the step loop (DEL methods,
/// SHAKE/RATTLE for the constrained system, or the RK4 comparator), series.csv, summary.json, plots.
#include "lievi/run/mechanics_run.hpp"
#include "lievi/run/mechanics_sim.hpp"
#include "lievi/run/checkpoint.hpp"

#include <Eigen/LU>

#include <cmath>
#include <limits>
#include <memory>
#include <optional>
#include <stdexcept>
#include <variant>

#include "lievi/core/error.hpp"
#include "lievi/integrators/del/constraints.hpp"
#include "lievi/integrators/del/del_stepper.hpp"
#include "lievi/integrators/del/discrete_lagrangian.hpp"
#include "lievi/integrators/del/euler_lagrange_rk4.hpp"
#include "lievi/integrators/del/nonholonomic.hpp"
#include "lievi/models/mechanics.hpp"
#include "lievi/models/nonholonomic.hpp"
#include "lievi/run/plots.hpp"
#include "state_run.hpp"

namespace lievi::run {
namespace {

namespace fs = std::filesystem;
namespace del = integrators::del;
namespace mech = models::mechanics;
using namespace detail;  // the state-vector run pipeline (state_run.hpp)
constexpr double nan = std::numeric_limits<double>::quiet_NaN();

std::string file_of(const io::MechanicsScenario& s) { return s.source.empty() ? s.name : s.source; }

template <int n>
del::Vec<n> to_vec(const std::vector<double>& x) {
  del::Vec<n> v = del::Vec<n>::Zero();
  for (int i = 0; i < n && i < static_cast<int>(x.size()); ++i) v(i) = x[static_cast<std::size_t>(i)];
  return v;
}

template <int n>
std::vector<double> to_std(const del::Vec<n>& v) {
  return std::vector<double>(v.data(), v.data() + n);
}

/// Call f with the catalogue model of the scenario's system.
template <class F>
auto with_system(const io::MechanicsScenario& s, F&& f) {
  using config::MechanicalSystem;
  switch (s.system) {
    case MechanicalSystem::pendulum: return f(mech::Pendulum{s.mass, s.length, s.gravity});
    case MechanicalSystem::double_pendulum:
      return f(mech::DoublePendulum{s.masses[0], s.masses[1], s.lengths[0], s.lengths[1], s.gravity});
    case MechanicalSystem::kepler: return f(mech::Kepler{s.mass, s.mu});
    case MechanicalSystem::spherical_pendulum: return f(mech::SphericalPendulum{s.mass, s.length, s.gravity});
    case MechanicalSystem::chaplygin_sleigh:
      return f(models::nonholonomic::ChaplyginSleigh{s.mass, s.inertia, s.offset});
    case MechanicalSystem::vertical_disk: {
      const auto IJ = s.disk_inertias();
      return f(models::nonholonomic::VerticalRollingDisk{s.mass, s.radius, IJ[0], IJ[1]});
    }
    case MechanicalSystem::rolling_disk: {
      const auto IJ = s.disk_inertias();
      return f(models::nonholonomic::RollingDisk{s.mass, s.radius, IJ[0], IJ[1], s.gravity});
    }
    case MechanicalSystem::oscillator: break;
  }
  return f(mech::Oscillator{s.mass, s.stiffness, s.damping, s.force_amplitude, s.force_frequency});
}

std::string vector_text(const std::vector<double>& v) {
  std::string t = "[";
  for (std::size_t i = 0; i < v.size(); ++i) t += (i ? ", " : "") + io::format_number(v[i]);
  return t + "]";
}

using Method = config::MechanicsMethod;

inline constexpr const char* msg_rk4 =
    "RK4 step failed: d2L/dqdot2 singular or a non-finite value in the Euler-Lagrange ODE";
inline constexpr const char* msg_inverse_legendre =
    "inverse Legendre transform v = (dL/dqdot)^-1(q_k, p_k) did not converge (d2L/dqdot2 singular or a non-finite "
    "momentum)";

/// The failure message of a step in the scenario's words: the solver's diagnosis (up to its "; ", after
/// which the integrator library's messages advise on its C++ options) with the option names replaced by the
/// scenario keys that set them.
std::string scenario_message(const char* message) {
  std::string m = message;
  if (const auto cut = m.find("; "); cut != std::string::npos) m.resize(cut);
  const std::pair<const char*, const char*> keys[] = {
      {"ConstraintOptions::del.newton.max_iterations", "integrator.max_iterations"},
      {"DelOptions::newton.max_iterations", "integrator.max_iterations"},
      {"ConstraintOptions::drift_tol", "integrator.drift_tol"},
      {"the iteration limit", "integrator.max_iterations"}};
  for (const auto& [from, to] : keys)
    if (const auto at = m.find(from); at != std::string::npos) m.replace(at, std::string(from).size(), to);
  return m;
}

/// What to change, by scenario key: the step size always; the iteration limit, Newton tolerance or drift
/// tolerance when the message is about them; an implicit method when RK4 (explicit) failed.
std::string hint_of(const io::MechanicsScenario& s, const std::string& message) {
  std::string h = "the step failed at dt = " + io::format_number(s.dt) + "; try a smaller integrator.dt, e.g. " +
                  io::format_number(s.dt / 10.0) + " (dt/10 keeps t_end/dt an integer)";
  if (s.method == Method::rk4)
    h += ", or integrator.method = \"midpoint\" (implicit, stable for any dt on linear oscillations)";
  else if (message.find("converge") != std::string::npos)
    h += ", or raise integrator.max_iterations (now " + std::to_string(s.max_iterations) +
         ") or integrator.newton_tol (now " + io::format_number(s.newton_tol) + ")";
  if (s.constrained() && message.find("drift") != std::string::npos)
    h += ", or raise integrator.drift_tol (now " + io::format_number(s.drift_tol) + ")";
  return h;
}

/// Project the constrained system's start (throws invalid_argument on failure); notes how far it moved.
template <class M>
void project_start(const io::MechanicsScenario& s, const M& m, del::Vec<M::dim>& q, del::Vec<M::dim>& v,
                   std::vector<std::string>* notes) {
  if constexpr (del::ConstrainedModel<M>) {
    const del::Vec<M::dim> q_in = q, v_in = v;
    if (!del::project_initial(m, q, v))
      throw invalid_argument(file_of(s), "initial.q",
                             "value " + vector_text(s.q0) +
                                 " cannot be projected onto the constraint |q| = model.length (Gauss-Newton did "
                                 "not converge); give a start near the sphere");
    const double dq = (q - q_in).template lpNorm<Eigen::Infinity>(), dv = (v - v_in).template lpNorm<Eigen::Infinity>();
    if (notes && (dq > 1e-14 * (1.0 + q.template lpNorm<Eigen::Infinity>()) ||
                  dv > 1e-14 * (1.0 + v.template lpNorm<Eigen::Infinity>())))
      notes->push_back("the start was projected onto the constraint: initial.q moved by " + io::format_number(dq) +
                       " and initial.qdot by " + io::format_number(dv) + " (max-norm); the series starts at q = " +
                       vector_text(to_std<M::dim>(q)) + ", qdot = " + vector_text(to_std<M::dim>(v)));
  } else if constexpr (del::NonholonomicModel<M>) {
    const del::Vec<M::dim> v_in = v;
    if (!del::project_velocity(m, q, v))
      throw invalid_argument(file_of(s), "initial.qdot",
                             "value " + vector_text(s.qdot0) + " cannot be projected onto the constraints A(q) qdot = 0 "
                             "at initial.q (the constraint matrix is singular there)");
    const double dv = (v - v_in).template lpNorm<Eigen::Infinity>();
    if (notes && dv > 1e-14 * (1.0 + v.template lpNorm<Eigen::Infinity>()))
      notes->push_back("initial.qdot was projected onto the constraints A(q) qdot = 0 (it moved by " +
                       io::format_number(dv) + ", max-norm); the series starts at qdot = " +
                       vector_text(to_std<M::dim>(v)));
  } else {
    (void)s, (void)m, (void)q, (void)v, (void)notes;
  }
}

/// The step of a catalogue system from level k-1 to level k, shared by the run loop and MechanicsSimulation:
/// the state (q_k, p_k) with the velocity v_k of the inverse Legendre transform, the solver options from the
/// scenario, and the reported values of a level.
template <class M>
struct SystemStepper {
  static constexpr int n = M::dim;
  static constexpr bool constrained = del::ConstrainedModel<M>;
  static constexpr bool nonholonomic = del::NonholonomicModel<M>;
  /// The reported constraint: SHAKE/RATTLE's |g(q)|, or the discrete Lagrange-d'Alembert step's
  /// |A(q_mid)(q_k - q_{k-1})| / h.
  static constexpr bool has_constraint = constrained || nonholonomic;
  static constexpr bool symmetric = mech::HasSymmetry<M>;
  using V = del::Vec<n>;

  const io::MechanicsScenario& s;
  M m;
  del::DelState<n> x;
  V v;
  del::DelOptions dopt;
  del::ConstraintOptions copt;
  del::NonholonomicOptions nopt;
  /// nonholonomic: the discrete constraint of the step into the current level (0 at the start)
  double step_constraint = 0.0;

  /// The start (projected onto the constraint for the constrained system; notes say how far it moved).
  SystemStepper(const io::MechanicsScenario& s_, const M& m_, std::vector<std::string>* notes) : s(s_), m(m_) {
    V q = to_vec<n>(s.q0);
    v = to_vec<n>(s.qdot0);
    project_start(s, m, q, v, notes);
    x.q = q;
    x.p = del::legendre(m, q, v);
    x.t = 0.0;
    dopt.newton.residual_tol = s.newton_tol;
    dopt.newton.max_iterations = static_cast<int>(s.max_iterations);
    copt.del = dopt;
    copt.projection = s.constraints == config::Projection::shake ? del::Projection::shake : del::Projection::rattle;
    copt.drift_tol = s.drift_tol;
    nopt.del = dopt;
  }

  /// Step k (level k-1 to level k): "" when it succeeded (x.t is then t_k), otherwise the failure message in
  /// the scenario's words, the state partly updated (the caller restores it). `res`: the solver's result.
  std::string advance(long long k, StepResult& res) {
    const Method method = s.method;
    const double h = s.dt;
    x.t = s.time_at(k - 1);
    res = StepResult{};
    if (method == Method::rk4) {
      V qq = x.q;
      if (del::rk4_step(m, qq, v, x.t, h)) {
        x.q = qq;
        x.p = del::legendre(m, x.q, v);
        x.t += h;
      } else {
        res.converged = false;
        res.message = msg_rk4;
      }
    } else if constexpr (constrained) {
      res = method == Method::trapezoid ? del::constrained_step<del::Trapezoid>(m, x, h, copt)
                                        : del::constrained_step<del::Midpoint>(m, x, h, copt);
    } else if constexpr (nonholonomic) {
      const V q0 = x.q;
      res = method == Method::trapezoid ? del::nonholonomic_step<del::Trapezoid>(m, x, h, nopt)
                                        : del::nonholonomic_step<del::Midpoint>(m, x, h, nopt);
      step_constraint = del::discrete_constraint_residual(m, q0, x.q) / h;
    } else {
      res = method == Method::trapezoid ? del::del_step<del::Trapezoid>(m, x, h, dopt)
            : method == Method::lobatto_iiia_iiib ? del::del_step<del::LobattoIIIAIIIB>(m, x, h, dopt)
                                        : del::del_step<del::Midpoint>(m, x, h, dopt);
    }
    std::string message;
    if (!res.converged)
      message = scenario_message(res.message && *res.message ? res.message : "the step did not converge");
    else if (!x.q.allFinite() || !x.p.allFinite())
      message = "non-finite state after the step: " + std::string(x.q.allFinite() ? "p = " : "q = ") +
                vector_text(to_std<n>(x.q.allFinite() ? x.p : x.q));
    else if (method != Method::rk4 && !del::velocity_from_momentum(m, x.q, x.p, v))
      message = msg_inverse_legendre;
    if (message.empty()) x.t = s.time_at(k);
    return message;
  }

  /// The reported values of the current level: energy E(q, v), momentum map J = p . xi_Q(q) (NaN without
  /// symmetry), constraint residual |g(q)| and hidden constraint |G(q) v| (NaN and 0 without constraint);
  /// nonholonomic: the step's discrete constraint |A(q_mid)(q_k - q_{k-1})| / h and the velocity constraint
  /// |A(q) v| at the node.
  struct Values {
    double E = nan, J = nan, g = nan, hidden = 0.0;
  };
  [[nodiscard]] Values values() const {
    Values r;
    r.E = del::energy(m, x.q, v);
    if constexpr (symmetric) r.J = x.p.dot(m.xi_Q(x.q));
    if constexpr (constrained) {
      r.g = del::constraint_residual(m, x.q);
      const auto G = del::constraint_jacobian(m, x.q, static_cast<Eigen::Matrix<double, M::n_constraints, 1>*>(nullptr));
      r.hidden = (G * v).template lpNorm<Eigen::Infinity>();
    } else if constexpr (nonholonomic) {
      r.g = step_constraint;
      r.hidden = (m.A(x.q) * v).template lpNorm<Eigen::Infinity>();
    }
    return r;
  }

  /// Step k with the run's check, for the run loop and MechanicsSimulation alike: the step's own failure or a
  /// non-finite reported value (E0, escale: the reference of energy_error) puts the state back to level k-1 and
  /// is returned; otherwise `val` holds level k's values.
  std::optional<RunFailure> checked_step(long long k, double E0, double escale, StepResult& res, Values& val) {
    const del::DelState<n> x_prev = x;
    const V v_prev = v;
    const double c_prev = step_constraint;
    std::string message = advance(k, res);
    if (message.empty()) {
      val = values();
      if (const std::string bad = bad_value(val, (val.E - E0) / escale); !bad.empty())
        message = "non-finite value after the step: " + bad + " (overflow)";
    }
    if (message.empty()) return std::nullopt;
    x = x_prev;
    v = v_prev;
    step_constraint = c_prev;
    RunFailure f;
    f.step = k;
    f.t = s.time_at(k - 1);
    f.residual = res.residual;
    f.message = message;
    f.hint = hint_of(s, message);
    return f;
  }

  /// "" when the reported values are finite, otherwise which is not (a numerical failure: an energy that
  /// overflows while q and p are still finite).
  [[nodiscard]] static std::string bad_value(const Values& r, double err) {
    if (!std::isfinite(r.E) || !std::isfinite(err))
      return "energy = " + io::format_number(r.E) + ", energy_error = " + io::format_number(err);
    if (symmetric && !std::isfinite(r.J)) return "momentum = " + io::format_number(r.J);
    if (has_constraint && !(std::isfinite(r.g) && std::isfinite(r.hidden)))
      return "constraint = " + io::format_number(r.g) + ", hidden constraint G(q) qdot = " + io::format_number(r.hidden);
    return {};
  }
};

/// The levels of a lagrangian run (StateLevels, state_run.hpp): the stepper, the reference of energy_error, and
/// the largest drifts of the energy, the momentum map and the constraints over the run.
template <class M>
struct MechanicsLevels {
  using St = SystemStepper<M>;
  using Values = typename St::Values;
  static constexpr int n = M::dim;

  St& st;
  MechanicsRunResult& r;
  double E0, escale, J0;  ///< E(q_0, v_0); |E0| (1 when E0 = 0); the momentum map at the start (0 without symmetry)
  double emax = 0.0, jmax = 0.0, gmax = 0.0, hmax = 0.0;

  MechanicsLevels(St& st_, MechanicsRunResult& r_, const Values& start)
      : st(st_), r(r_), E0(start.E), escale(E0 != 0.0 ? std::abs(E0) : 1.0), J0(St::symmetric ? start.J : 0.0) {}

  [[nodiscard]] Values values() const { return st.values(); }
  std::optional<RunFailure> checked_step(long long k, StepResult& res, Values& val) {
    return st.checked_step(k, E0, escale, res, val);
  }
  /// A non-finite reported value is a numerical failure (bad_value names it).
  [[nodiscard]] std::string unusable(const Values& val) const {
    const std::string bad = St::bad_value(val, (val.E - E0) / escale);
    return bad.empty() ? bad : "has " + bad;
  }
  void observe(const Values& val) {
    const double err = (val.E - E0) / escale;
    emax = std::max(emax, std::abs(err));
    if constexpr (St::symmetric) jmax = std::max(jmax, std::abs(val.J - J0));
    if constexpr (St::has_constraint) gmax = std::max(gmax, val.g), hmax = std::max(hmax, val.hidden);
    r.energy_final = val.E;
  }
  /// q, v, p, energy, energy_error, [momentum], [constraint] (mechanics_series_columns).
  void columns(Row& row, const Values& val) const {
    for (int i = 0; i < n; ++i) row.push_back(st.x.q(i));
    for (int i = 0; i < n; ++i) row.push_back(st.v(i));
    for (int i = 0; i < n; ++i) row.push_back(st.x.p(i));
    row.push_back(val.E);
    row.push_back((val.E - E0) / escale);
    if constexpr (St::symmetric) row.push_back(val.J);
    if constexpr (St::has_constraint) row.push_back(val.g);
  }
  void save(StateIO& a) {
    a("x/q", st.x.q);
    a("x/p", st.x.p);
    a("x/v", st.v);
    if constexpr (St::nonholonomic) a("x/step_constraint", st.step_constraint);
    a("diagnostics/emax", emax);
    a("diagnostics/jmax", jmax);
    a("diagnostics/gmax", gmax);
    a("diagnostics/hmax", hmax);
    a("run/energy_final", r.energy_final);
  }
};

template <class M>
MechanicsRunResult integrate_system(const io::MechanicsScenario& s, const M& m, const Sink& sink, Progress progress,
                                    const StateCheckpoints& plan = {}) {
  using St = SystemStepper<M>;
  constexpr int n = M::dim;
  MechanicsRunResult r;
  St st(s, m, &r.notes);
  r.q_start = to_std<n>(st.x.q);
  r.qdot_start = to_std<n>(st.v);
  MechanicsLevels<M> levels(st, r, st.values());
  r.energy_initial = levels.E0;
  step_levels(s, levels, r, sink, progress, plan);
  r.q_final = to_std<n>(st.x.q);
  r.v_final = to_std<n>(st.v);
  r.p_final = to_std<n>(st.x.p);
  r.diagnostics.emplace_back("energy_initial", levels.E0);
  r.diagnostics.emplace_back("energy_max_rel_error", levels.emax);
  if constexpr (St::symmetric) {
    r.diagnostics.emplace_back("momentum_initial", levels.J0);
    r.diagnostics.emplace_back("momentum_max_drift", levels.jmax);
  }
  if constexpr (St::has_constraint) {
    r.diagnostics.emplace_back("constraint_max", levels.gmax);
    r.diagnostics.emplace_back(St::nonholonomic ? "velocity_constraint_max" : "hidden_constraint_max", levels.hmax);
  }
  if (levels.E0 == 0.0) r.notes.emplace_back("energy_error is absolute (E - E0): the initial energy E0 is 0");
  if (s.system == config::MechanicalSystem::oscillator && (s.damping != 0.0 || s.force_amplitude != 0.0))
    r.notes.emplace_back("the oscillator is damped or forced: energy_error is the physical energy change, not an "
                         "integration error");
  return r;
}

std::vector<double> lengths_of(const io::MechanicsScenario& s) {
  return s.system == config::MechanicalSystem::double_pendulum ? s.lengths : std::vector<double>{s.length};
}

/// The lagrangian run in its output folder (StatePipeline, state_run.hpp).
struct MechanicsPipeline {
  using Scenario = io::MechanicsScenario;
  using Result = MechanicsRunResult;

  static void check(const Scenario& s) { check_mechanics(s); }
  static std::vector<std::string> columns(const Scenario& s) { return mechanics_series_columns(s); }
  static Result integrate(const Scenario& s, const Sink& sink, Progress progress, const StateCheckpoints& plan) {
    return with_system(s, [&](const auto& m) { return integrate_system(s, m, sink, progress, plan); });
  }

  static void plot(const fs::path& dir, const Scenario& s, Result& r) {
    std::string lengths;
    for (double l : lengths_of(s)) {
      if (!lengths.empty()) lengths += ',';
      lengths += io::format_number(l);
    }
    const std::string title = s.name + ": " + config::id(s.system) + ", " + config::id(s.method) +
                              (s.constrained() ? std::string(" (") + config::id(s.constraints) + ")" : "") +
                              ", dt = " + io::format_number(s.dt) + (r.complete ? "" : " [failed]");
    make_field_plots(dir, s.plots, "lievi_plot.py", "LIEVI_PLOT_SCRIPT", title, r.notes,
                     {"--model", "lagrangian", "--system", config::id(s.system), "--lengths", lengths});
  }

  static void write_summary(const fs::path& path, const Scenario& s, const Result& r) {
    json j = summary_opening(r, io::resolved_entries(s), s.name);
    j["system"] = config::id(s.system);
    j["dim"] = s.dim();
    const io::MechanicsMethodInfo& info = io::mechanics_method(s.method);
    j["method"] = {
        {"id", info.id()}, {"order", info.order}, {"variational", info.symplectic}, {"implicit", info.is_implicit}};
    if (s.constrained()) j["method"]["constraints"] = config::id(s.constraints);
    add_summary_counts(j, r, s.steps);
    j["start"] = {{"q", finite_array(r.q_start)}, {"qdot", finite_array(r.qdot_start)}};
    j["final"] = {{"t", r.t_final},
                  {"q", finite_array(r.q_final)},
                  {"v", finite_array(r.v_final)},
                  {"p", finite_array(r.p_final)},
                  {"energy", finite_or_null(r.energy_final)}};
    add_summary_closing(j, diagnostics_json(r), r, r.newton);
    write_json(path, j);
  }
};

}  // namespace

std::vector<std::string> mechanics_series_columns(const io::MechanicsScenario& s) {
  const int n = s.dim();
  std::vector<std::string> c = {"t"};
  for (const char* x : {"q", "v", "p"})
    for (int i = 1; i <= n; ++i) c.push_back(x + std::to_string(i));
  c.insert(c.end(), {"energy", "energy_error"});
  if (s.has_momentum_map()) c.emplace_back("momentum");
  if (s.constrained() || s.nonholonomic()) c.emplace_back("constraint");
  c.emplace_back("newton");
  return c;
}

void check_mechanics(const io::MechanicsScenario& s) {
  config::validate(s);  // a configuration built in C++ meets the rules a scenario file meets
  with_system(s, [&](const auto& m) {
    using M = std::decay_t<decltype(m)>;
    auto q = to_vec<M::dim>(s.q0);
    auto v = to_vec<M::dim>(s.qdot0);
    project_start(s, m, q, v, nullptr);
    return 0;
  });
}

MechanicsRunResult integrate_mechanics(const io::MechanicsScenario& s, std::vector<std::vector<double>>* rows,
                                       Progress progress) {
  const Sink sink = collect_rows(rows);
  MechanicsRunResult r = with_system(s, [&](const auto& m) { return integrate_system(s, m, sink, progress); });
  detail::prepend_ignored_key_notes(s, r);
  return r;
}

fs::path default_output_dir(const io::MechanicsScenario& s) { return fs::path("runs") / s.name; }

MechanicsRunResult run_mechanics(const io::MechanicsScenario& s, const fs::path& out_dir, const RunOptions& options,
                                 const ResumeFrom* resume) {
  return detail::run_in_folder<MechanicsPipeline>(s, out_dir, options, resume);
}

}  // namespace lievi::run

// ---- MechanicsSimulation: the run's step, taken by the caller ----

namespace lievi::run {

struct MechanicsSimulation::Impl {
  virtual ~Impl() = default;
  virtual std::optional<RunFailure> step(long long n) = 0;
  virtual const double* q() const = 0;
  virtual const double* p() const = 0;
  virtual const double* v() const = 0;
  virtual double value(int which) const = 0;  // 0 energy, 1 momentum, 2 constraint
  long long steps = 0;
  bool failed = false;
  double dt = 0.0;
  int dim = 0;
};

namespace {

template <class M>
struct MechanicsSimImpl final : MechanicsSimulation::Impl {
  io::MechanicsScenario s;
  SystemStepper<M> st;
  double E0, escale;
  MechanicsSimImpl(const io::MechanicsScenario& sc, const M& m)
      : s(sc), st(s, m, nullptr), E0(st.values().E), escale(E0 != 0.0 ? std::abs(E0) : 1.0) {
    dt = s.dt;
    dim = M::dim;
  }

  std::optional<RunFailure> step(long long n) override {
    for (long long i = 0; i < n; ++i) {
      StepResult res;
      typename SystemStepper<M>::Values val;
      if (std::optional<RunFailure> f = st.checked_step(steps + 1, E0, escale, res, val)) {
        failed = true;
        return f;
      }
      ++steps;
    }
    return std::nullopt;
  }
  const double* q() const override { return st.x.q.data(); }
  const double* p() const override { return st.x.p.data(); }
  const double* v() const override { return st.v.data(); }
  double value(int which) const override {
    const auto val = st.values();
    return which == 0 ? val.E : which == 1 ? val.J : val.g;
  }
};

}  // namespace

MechanicsSimulation::MechanicsSimulation(const io::MechanicsScenario& s) {
  check_mechanics(s);
  impl_ = with_system(s, [&](const auto& m) -> std::unique_ptr<Impl> {
    return std::make_unique<MechanicsSimImpl<std::decay_t<decltype(m)>>>(s, m);
  });
}
MechanicsSimulation::~MechanicsSimulation() = default;

std::optional<RunFailure> MechanicsSimulation::step(long long n) {
  if (impl_->failed) throw std::logic_error("the simulation failed and cannot step on");
  return impl_->step(n);
}
bool MechanicsSimulation::failed() const { return impl_->failed; }
double MechanicsSimulation::t() const { return static_cast<double>(impl_->steps) * dt(); }
long long MechanicsSimulation::steps() const { return impl_->steps; }
double MechanicsSimulation::dt() const { return impl_->dt; }
int MechanicsSimulation::dim() const { return impl_->dim; }
const double* MechanicsSimulation::q() const { return impl_->q(); }
const double* MechanicsSimulation::p() const { return impl_->p(); }
const double* MechanicsSimulation::v() const { return impl_->v(); }
double MechanicsSimulation::energy() const { return impl_->value(0); }
double MechanicsSimulation::momentum() const { return impl_->value(1); }
double MechanicsSimulation::constraint() const { return impl_->value(2); }

}  // namespace lievi::run
