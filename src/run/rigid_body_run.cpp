/// @file src/run/rigid_body_run.cpp
/// @brief The rigid-body run loop and the run-with-outputs pipeline (series.csv, summary.json, plots).
#include "lievi/run/rigid_body_run.hpp"
#include "lievi/run/rigid_body_sim.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cmath>
#include <limits>

#include "lievi/core/error.hpp"
#include "lievi/io/output_dir.hpp"
#include "lievi/run/checkpoint.hpp"
#include "lievi/run/rigid_body_series.hpp"
#include "lievi/run/rigid_body_summary.hpp"
#include "lievi/run/diagnostics.hpp"
#include "lievi/run/health.hpp"
#include "lievi/run/plots.hpp"
#include "lievi/run/progress.hpp"

namespace lievi::run {
namespace {

using Clock = std::chrono::steady_clock;

/// A step whose |M|^2 exceeds this factor times |M_0|^2 is a blow-up (numerical failure, exit 3).
constexpr double kBlowUpFactor = 1e8;

double seconds(Clock::duration d) {
  return std::chrono::duration<double>(d).count();
}

/// Re-throw a registry/stepper error with the scenario's file filled in.
[[noreturn]] void rethrow_with_file(const invalid_argument& e, const io::RigidBodyScenario& s) {
  std::vector<InputIssue> issues = e.issues();
  for (auto& i : issues) {
    if (i.file.empty()) i.file = s.source.empty() ? s.name : s.source;
  }
  throw invalid_argument(std::move(issues));
}

std::string vector_text(const models::Vec3& v) {
  return "[" + io::format_number(v[0]) + ", " + io::format_number(v[1]) + ", " + io::format_number(v[2]) + "]";
}

/// "try a smaller integrator.dt, e.g. 0.01 (= dt/10, keep t_end/dt an integer)"
std::string smaller_dt_hint(const io::RigidBodyScenario& s) {
  return "the step failed at dt = " + io::format_number(s.dt) + "; try a smaller integrator.dt, e.g. " +
         io::format_number(s.dt / 10.0) + " (dt/10 keeps t_end/dt an integer)";
}

}  // namespace

PreparedRigidBodyRun prepare_rigid_body(const io::RigidBodyScenario& s) {
  PreparedRigidBodyRun p;
  p.model = s.model();
  p.x0 = s.initial_state();
  try {
    const auto options = s.method_options();
    integrators::check_rigid_body_step(p.model, options, p.x0.M, s.dt);
    p.stepper = integrators::make_rigid_body_stepper(p.model, options);
    p.stepper->start(p.x0, s.dt);
  } catch (const invalid_argument& e) {
    rethrow_with_file(e, s);
  }
  return p;
}

namespace {

/// The health check of one rigid-body step (the run loop's and RigidBodySimulation's): a step that did not
/// converge, a non-finite state or reported value, a blow-up of the Casimir |M|^2, or a rise of H under pure
/// dissipation beyond round-off (health::dissipation_rise_tol) is a failure, described with a hint.
class StepCheck {
 public:
  StepCheck(const io::RigidBodyScenario& s, const PreparedRigidBodyRun& p) : s_(s), model_(p.model) {
    // |M|^2 is a Casimir of the exact flow for every K: growth by 1e8 is a numerical blow-up whatever the method.
    C0_ = models::RigidBody::casimir(p.x0.M) > 0.0 ? models::RigidBody::casimir(p.x0.M)
                                                  : std::numeric_limits<double>::min();
    // Pure dissipation (K != 0; the model has no forcing): the exact flow and the ddb methods never raise
    // H = ½ M·I^{-1}M, so a rise above the smallest earlier H beyond round-off is a wrong result.
    dissipative_ = p.model.K.cwiseAbs().maxCoeff() > 0.0;
    const double H0 = p.model.energy(p.x0.M);
    H_scale_ = H0 > 0.0 ? H0 : std::numeric_limits<double>::min();
    H_min_ = H0;
  }
  /// The failure of step k (which left x), or nullopt (then H_min is updated).
  std::optional<RunFailure> operator()(const StepResult& res, const models::RigidBodyState& x, long long k) {
    const io::RigidBodyScenario& s = s_;
    const bool finite = x.M.allFinite() && x.R.allFinite();
    const double C = x.M.squaredNorm(), H = model_.energy(x.M);
    const bool blown_up = finite && C > kBlowUpFactor * C0_;
    // the reported values (H, |M|^2, R M) may overflow although M and R are finite
    const bool values_finite = std::isfinite(C) && std::isfinite(H);
    const bool rise = dissipative_ && finite && values_finite && H - H_min_ > health::dissipation_rise_tol(H_scale_, k);
    if (res.converged && finite && !blown_up && values_finite && !rise) {
      H_min_ = std::min(H_min_, H);
      return std::nullopt;
    }
    const double H_min = H_min_, H_scale = H_scale_;
    RunFailure f;
    f.step = k;
    f.t = s.time_at(k - 1);
    f.node = res.node;
    f.residual = res.residual;
    if (!res.converged && res.message && *res.message)
      f.message = res.message;
    else if (!finite)
      f.message = std::string("non-finite state after the step: ") + (x.M.allFinite() ? "R" : "M") + " = " +
                  vector_text(x.M.allFinite() ? models::Vec3(x.R.row(0).transpose()) : x.M) +
                  (x.M.allFinite() ? " (first row)" : "");
    else if (blown_up)
      f.message = "blow-up: |M|^2 grew to more than 1e8 times its initial value (a conserved quantity)";
    else if (!values_finite)
      f.message = "non-finite reported value after the step: energy H = " + io::format_number(H) +
                  ", casimir |M|^2 = " + io::format_number(C) + " (overflow)";
    else if (rise)
      f.message = "energy rise under pure dissipation: H = " + io::format_number(H) + " exceeds its smallest earlier value " +
                  io::format_number(H_min) + " by " + io::format_number((H - H_min) / H_scale) +
                  " of H0 (round-off allows " + io::format_number(health::dissipation_rise_tol(H_scale, k) / H_scale) +
                  "); with model.alpha > 0 (or model.K) the exact flow never raises H: the method's result is wrong";
    else
      f.message = "the step did not converge";
    f.hint = rise && s.method != config::RigidBodyMethod::ddb
                 ? "use integrator.method = \"ddb\" (dissipates H exactly) or a smaller integrator.dt, e.g. " +
                       io::format_number(s.dt / 10.0) + " (dt/10 keeps t_end/dt an integer)"
                 : smaller_dt_hint(s);
    return f;
  }
  void checkpoint(StateIO& a) { a("H_min", H_min_); }

 private:
  const io::RigidBodyScenario& s_;
  const models::RigidBody& model_;
  double C0_ = 0.0, H_scale_ = 0.0, H_min_ = 0.0;
  bool dissipative_ = false;
};

}  // namespace

RunResult integrate_rigid_body(const io::RigidBodyScenario& s, PreparedRigidBodyRun& p,
                               std::span<RigidBodyObserver* const> observers, Progress progress,
                               const CheckpointPlan& plan) {
  RunResult r;
  r.traits = integrators::rigid_body_method_traits(s.method_options());
  r.retraction = p.stepper->retraction();
  r.notes = io::ignored_key_notes(s);

  const double h = s.dt;
  const long long N = s.steps, every = s.every;
  models::RigidBodyState x = p.x0, x_prev = p.x0;
  StepCheck check(s, p);
  long long last_output = 0;
  Clock::duration in_output{0};

  // Everything the next step and the outputs read, for checkpoints (run/checkpoint.hpp): saved after step k
  // is accepted and before level k's observers run; restored in the same place.
  auto state = [&](StateIO& a) {
    a("x/M", x.M);
    a("x/R", x.R);
    {
      StateIO::Scope scope(a, "stepper");
      p.stepper->checkpoint(a);
    }
    {
      StateIO::Scope scope(a, "check");
      check.checkpoint(a);
    }
    for (std::size_t i = 0; i < observers.size(); ++i) {
      StateIO::Scope scope(a, "observer" + std::to_string(i));
      observers[i]->checkpoint(a);
    }
    a("run/newton_total", r.newton.total);
    a("run/newton_max", r.newton.max);
    a("run/rows", r.rows);
    a("run/last_output", last_output);
  };
  // Level k's observers and outputs.
  auto emit = [&](long long k, double t_k) {
    for (auto* o : observers) o->step(k, t_k, x);
    if (k % every == 0 || k == N) {
      const auto t_out = Clock::now();
      for (auto* o : observers) o->output(k, t_k, x);
      ++r.rows;
      last_output = k;
      in_output += Clock::now() - t_out;
    }
  };

  ProgressLine line(N, s.t_end, progress == Progress::automatic);
  const auto t0 = Clock::now();
  for (auto* o : observers) o->begin(p.model, x);
  long long k = 1;
  if (plan.resume) {
    io::CheckpointLoader loader(plan.resume->data, plan.resume->file);
    state(loader);
    const long long n = plan.resume->data.step;
    x_prev = x;
    emit(n, s.time_at(n));
    k = n + 1;
  } else {
    for (auto* o : observers) o->output(0, 0.0, x);
    r.rows = 1;
  }

  for (; k <= N; ++k) {
    const StepResult res = p.stepper->step(x, h);
    r.newton.total += res.iterations;
    r.newton.max = std::max(r.newton.max, res.iterations);
    if (std::optional<RunFailure> f = check(res, x, k)) {
      r.failure = std::move(f);
      x = x_prev;
      break;
    }
    const double t_k = s.time_at(k);
    if (plan.checkpoints && plan.checkpoints->due(k)) {
      plan.checkpoints->write(k, t_k, state);
      if (plan.checkpoints->stops_at(k)) {  // level k is emitted by the resumed run
        r.stopped = true;
        break;
      }
    }
    emit(k, t_k);
    x_prev = x;
    line.update(k, t_k);
  }
  r.steps = r.stopped ? k : k - 1;
  r.complete = !r.failure.has_value() && !r.stopped;
  r.t_final = s.time_at(r.steps);
  r.final_state = x;
  if (r.failure && last_output != r.steps) {
    // Keep the last good step as the final row even if it was not an output time.
    for (auto* o : observers) o->output(r.steps, r.t_final, x);
    ++r.rows;
  }
  r.integrate_s = seconds(Clock::now() - t0 - in_output);
  r.newton.mean = r.steps > 0 ? static_cast<double>(r.newton.total) / static_cast<double>(r.steps) : 0.0;
  line.finish();
  return r;
}

RunResult integrate_rigid_body(const io::RigidBodyScenario& s,
                               std::span<RigidBodyObserver* const> observers) {
  PreparedRigidBodyRun p = prepare_rigid_body(s);
  return integrate_rigid_body(s, p, observers, Progress::never);
}

std::filesystem::path default_output_dir(const io::RigidBodyScenario& s) {
  return std::filesystem::path("runs") / s.name;
}

RunResult run_rigid_body(const io::RigidBodyScenario& s, const std::filesystem::path& out_dir,
                         const RunOptions& options, const ResumeFrom* resume) {
  const auto t0 = Clock::now();
  // Everything that can be bad input is checked before the first file is created.
  if (!resume) io::check_output_dir(out_dir, options.force);
  PreparedRigidBodyRun p = prepare_rigid_body(s);

  io::OutputDir dir = resume ? io::OutputDir::reopen(out_dir)
                      : s.checkpoints() || options.stop_at > 0 ? io::OutputDir::in_place(out_dir, options.force)
                                        : io::OutputDir(out_dir, options.force);
  RunResult r;
  {
    std::optional<run::SeriesCsvWriter> csv;
    if (resume)
      csv.emplace(dir.tmp() / "series.csv", run::SeriesCsvWriter::Resume{});
    else
      csv.emplace(dir.tmp() / "series.csv");
    dir.mark_running();
    RigidBodyDiagnostics diag;
    RigidBodyObserver* observers[] = {&*csv, &diag};
    std::optional<Checkpointer> checkpoints;
    if (s.checkpoints() || options.stop_at > 0 || resume) {  // a resumed run checkpoints its last step
      checkpoints.emplace(dir.tmp(), s, io::to_toml(s));
      checkpoints->stop_at(options.stop_at);
    }
    r = integrate_rigid_body(s, p, observers, options.progress, {checkpoints ? &*checkpoints : nullptr, resume});
    csv->close();
    r.diagnostics = diag.values();
  }
  r.out_dir = dir.dir();
  if (r.stopped) {
    dir.keep_for_resume();
    r.total_s = seconds(Clock::now() - t0);
    return r;
  }
  if (s.plots) {
    const std::string title = s.name + ": " + config::id(s.method) +
                              (r.retraction.empty() ? "" : " (" + r.retraction + ")") +
                              ", dt = " + io::format_number(s.dt) + (r.complete ? "" : " [failed]");
    if (const auto why = make_rigid_body_plots(dir.tmp(), title)) r.notes.push_back("plots skipped: " + *why);
  } else {
    r.notes.emplace_back("plots not made: output.plots = false");
  }
  r.out_dir = dir.dir();
  r.total_s = seconds(Clock::now() - t0);
  run::write_rigid_body_summary(dir.tmp() / "summary.json", s, r);
  dir.commit();
  return r;
}

// ---- RigidBodySimulation: the run's stepper, stepped by the caller ----

struct RigidBodySimulation::Impl {
  io::RigidBodyScenario s;
  PreparedRigidBodyRun p;
  models::RigidBodyState x;
  StepCheck check;
  long long steps = 0;
  bool failed = false;
  Impl(const io::RigidBodyScenario& sc, PreparedRigidBodyRun prepared)
      : s(sc), p(std::move(prepared)), x(p.x0), check(s, p) {}
};

RigidBodySimulation::RigidBodySimulation(const io::RigidBodyScenario& s)
    : impl_(std::make_unique<Impl>(s, prepare_rigid_body(s))) {}
RigidBodySimulation::~RigidBodySimulation() = default;

std::optional<RunFailure> RigidBodySimulation::step(long long n) {
  Impl& m = *impl_;
  if (m.failed) throw std::logic_error("the simulation failed and cannot step on");
  for (long long k = 0; k < n; ++k) {
    const models::RigidBodyState before = m.x;
    const StepResult res = m.p.stepper->step(m.x, m.s.dt);
    if (std::optional<RunFailure> f = m.check(res, m.x, m.steps + 1)) {
      m.x = before;  // the last good state
      m.failed = true;
      return f;
    }
    ++m.steps;
  }
  return std::nullopt;
}
bool RigidBodySimulation::failed() const { return impl_->failed; }
double RigidBodySimulation::t() const { return static_cast<double>(impl_->steps) * impl_->s.dt; }
long long RigidBodySimulation::steps() const { return impl_->steps; }
double RigidBodySimulation::dt() const { return impl_->s.dt; }
const double* RigidBodySimulation::M() const { return impl_->x.M.data(); }
const double* RigidBodySimulation::R() const { return impl_->x.R.data(); }
double RigidBodySimulation::energy() const { return impl_->p.model.energy(impl_->x.M); }
double RigidBodySimulation::casimir() const { return models::RigidBody::casimir(impl_->x.M); }

}  // namespace lievi::run
