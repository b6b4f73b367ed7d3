/// @file src/run/wave_run.cpp
/// @brief The wave-equation run pipeline: stepper construction from the scenario, the level loop, writers,
/// ensembles, summary.json.
#include "lievi/run/wave_run.hpp"
#include "lievi/run/wave_sim.hpp"

#include <nlohmann/json.hpp>

#include <chrono>
#include <cmath>
#include <fstream>
#include <functional>
#include <limits>
#include <numbers>
#include <omp.h>
#include <stdexcept>
#include <variant>

#include "lievi/core/error.hpp"
#include "lievi/io/ensemble_csv.hpp"
#include "ensemble.hpp"
#include "field_exchange.hpp"
#include "lievi/parallel/comm.hpp"
#include "lievi/io/fields_h5.hpp"
#include "lievi/io/fields_xdmf.hpp"
#include "lievi/io/output_dir.hpp"
#include "lievi/io/table_csv.hpp"
#include "lievi/models/wave.hpp"
#include "lievi/noise/wiener.hpp"
#include "lievi/run/plots.hpp"
#include "lievi/run/checkpoint.hpp"
#include "lievi/run/progress.hpp"
#include "lievi/version.hpp"
#include "field_summary.hpp"
#include "wave_avi.hpp"

namespace lievi::run {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;
using W = models::Wave<1>;
using TypeIStepper = field::StaggeredStepper<W, field::TypeI>;
using TypeIIStepper = field::StaggeredStepper<W, field::TypeII<field::LinearMomentumPotential>>;
using AnyStepper = std::variant<TypeIStepper, TypeIIStepper>;
constexpr double nan = std::numeric_limits<double>::quiet_NaN();

std::string file_of(const io::WaveScenario& s) { return s.source.empty() ? s.name : s.source; }

field::Grid grid_of(const io::WaveScenario& s) { return field::Grid(s.layout, s.J, s.length, s.bc_left, s.bc_right); }

/// Theta_k(s_j) of the `modes` noise: the explicit list, or theta cos(k pi s / S), k < cosine_modes.
std::vector<std::vector<double>> mode_values(const io::WaveScenario& s, const field::Grid& grid) {
  if (!s.modes.empty()) return s.modes;
  std::vector<std::vector<double>> m(static_cast<std::size_t>(s.cosine_modes));
  for (long long k = 0; k < s.cosine_modes; ++k)
    for (std::ptrdiff_t j = 0; j < grid.n_nodes(); ++j)
      m[static_cast<std::size_t>(k)].push_back(
          s.theta * std::cos(static_cast<double>(k) * std::numbers::pi * grid.s({j}) / s.length));
  return m;
}

/// Type-II runs through the general potential code path with Phi = theta mu (one Brownian motion per node);
/// with `modes` noise it runs the Type-I path (for Phi = sum_k <mu, Theta_k> they are the same scheme).
bool uses_type_ii(const io::WaveScenario& s) {
  return s.method == config::FieldMethod::type_ii && s.noise_mode != field::NoiseMode::modes;
}

AnyStepper make_stepper(const io::WaveScenario& s, std::uint32_t path) {
  const field::Grid grid = grid_of(s);
  const field::NoiseMode mode = s.noise_mode;
  const noise::WienerIncrements inc(noise::StreamKey{s.seed, path}, s.base_dt > 0 ? s.base_dt : s.dt,
                                    s.refine_log2, s.truncate);
  field::StaggeredStepper<W>::Options o;
  o.dt = s.dt;
  o.variant = s.variant;
  o.start = s.start;
  const W model = W::with_speed(s.c);
  field::NodeField<double> phi0(grid.n_nodes()), phit0(grid.n_nodes());
  for (std::ptrdiff_t j = 0; j < grid.n_nodes(); ++j) {
    phi0[{j}] = s.phi0.at(static_cast<std::size_t>(j));
    phit0[{j}] = s.phi_t0.empty() ? 0.0 : s.phi_t0.at(static_cast<std::size_t>(j));
  }
  if (uses_type_ii(s)) {
    TypeIIStepper::Options o2;
    o2.dt = o.dt, o2.variant = o.variant, o2.start = o.start;
    // The potential carries theta; the node's raw increment dW_j is the noise field's (amplitude 1).
    field::NoiseField<double> nf(grid, mode, 1.0, {}, inc);
    TypeIIStepper st(model, grid, o2, std::move(nf), {{mode == field::NoiseMode::none ? 0.0 : s.theta}});
    st.initialize(phi0, phit0);
    return st;
  }
  field::NoiseField<double> nf(grid, mode, s.theta, mode == field::NoiseMode::modes ? mode_values(s, grid)
                                                                                    : std::vector<std::vector<double>>{},
                               inc);
  TypeIStepper st(model, grid, o, std::move(nf));
  st.initialize(phi0, phit0);
  return st;
}

bool output_level(const io::WaveScenario& s, long long n) { return n % s.every == 0 || n == s.steps; }
bool snapshot_level(const io::WaveScenario& s, long long n) {
  return s.fields && (n % s.fields_every == 0 || n == s.steps);
}

double seconds(Clock::duration d) { return std::chrono::duration<double>(d).count(); }

/// Min/max tracking of the energies for the summary diagnostics.
struct EnergyStats {
  double d_min = INFINITY, d_max = -INFINITY, c_min = INFINITY, c_max = -INFINITY, c0 = nan, c_last = nan;
  void add(const field::LevelEnergy& e) {
    if (!std::isfinite(e.E_c())) return;
    d_min = std::min(d_min, e.E_d()), d_max = std::max(d_max, e.E_d());
    c_min = std::min(c_min, e.E_c()), c_max = std::max(c_max, e.E_c());
    if (std::isnan(c0)) c0 = e.E_c();
    c_last = e.E_c();
  }
};

/// Checkpoints of a single run: where they go, where it resumes from, and the outputs' own state.
struct WaveCheckpoints {
  Checkpointer* checkpoints = nullptr;
  const ResumeFrom* resume = nullptr;
  std::function<void(StateIO&)> outputs;
  field::FieldExchange* exchange = nullptr;  ///< domain decomposition: this rank steps its block
};

/// The level loop for one path. A checkpoint of level n is taken at the top of level n, before its step and
/// row (run/checkpoint.hpp); a resumed run starts the loop there.
WaveRunResult integrate_path(const io::WaveScenario& s, std::uint32_t path, WaveObserver& obs, Progress progress,
                             const WaveCheckpoints& plan = {}) {
  WaveRunResult r;
  r.cfl_dt = wave_cfl_dt(s);
  AnyStepper any = make_stepper(s, path);
  const auto t0 = Clock::now();
  EnergyStats stats;
  std::visit(
      [&](auto& st) {
        using St = std::decay_t<decltype(st)>;
        const std::ptrdiff_t n_nodes = st.grid().n_nodes();
        if (plan.exchange) st.decompose(*plan.exchange);
        std::vector<std::ptrdiff_t> probe_nodes(s.probes.begin(), s.probes.end());
        // phi of this output level and of the last level written (the one kept when a level fails)
        std::vector<double> phi(static_cast<std::size_t>(n_nodes)), phi_written;
        double t_written = 0.0;
        auto state = [&](StateIO& a) {
          {
            StateIO::Scope scope(a, "stepper");
            st.checkpoint(a);
          }
          a("stats/d_min", stats.d_min);
          a("stats/d_max", stats.d_max);
          a("stats/c_min", stats.c_min);
          a("stats/c_max", stats.c_max);
          a("stats/c0", stats.c0);
          a("stats/c_last", stats.c_last);
          a("run/newton_max", r.newton_max);
          a("run/rows", r.rows);
          a("run/snapshots", r.snapshots);
          a("run/steps", r.steps);
          a("run/t_written", t_written);
          long long written = static_cast<long long>(phi_written.size());
          a("run/phi_written_size", written);
          phi_written.resize(static_cast<std::size_t>(written));
          a("run/phi_written", phi_written);
          if (plan.outputs) {
            StateIO::Scope scope(a, "outputs");
            plan.outputs(a);
          }
        };
        long long n0 = 0;
        if (plan.resume) {
          io::CheckpointLoader loader(plan.resume->data, plan.resume->file);
          state(loader);
          n0 = plan.resume->data.step;
        }
        ProgressLine line(s.steps, s.t_end, progress == Progress::automatic);
        for (long long n = n0; n <= s.steps; ++n) {
          if (plan.checkpoints && n > n0 && detail::checkpoint_due(*plan.checkpoints, n, plan.exchange)) {
            if (st.decomposed()) {  // a split field: its whole state and last written level, on rank 0
              st.gather(St::everything);
              const auto [a, b] = st.block();
              if (static_cast<std::ptrdiff_t>(phi_written.size()) == n_nodes) {
                std::vector<double> all = st.exchange().gather(std::vector<double>(phi_written.begin() + a, phi_written.begin() + b));
                if (st.writes_outputs()) phi_written = std::move(all);
              }
            }
            if (st.writes_outputs()) plan.checkpoints->write(n, s.time_at(n), state);
            if (plan.checkpoints->stops_at(n)) {  // level n is written by the resumed run
              r.stopped = true;
              break;
            }
          }
          const bool out = output_level(s, n);
          if (out) {
            // a split field: every rank keeps its own block of phi (a failure's last written level is
            // gathered from them); the probes' values come from their ranks, a snapshot's field to rank 0
            const bool whole = snapshot_level(s, n);
            if (whole) st.gather(St::configurations);
            const auto [a, b] = whole && st.writes_outputs() ? std::pair<std::ptrdiff_t, std::ptrdiff_t>{0, n_nodes}
                                                             : st.block();
            std::copy(st.g().data() + a, st.g().data() + b, phi.begin() + a);
            if (st.decomposed() && !probe_nodes.empty()) {
              const auto values = st.configurations_at(probe_nodes);
              for (std::size_t k = 0; k < probe_nodes.size(); ++k) phi[static_cast<std::size_t>(probe_nodes[k])] = values[k];
            }
          }
          field::LevelEnergy E;
          if (n == s.steps) {
            if (out) E = st.energy_now();
          } else {
            const field::StepReport rep = st.step(out ? &E : nullptr);
            r.newton_max = std::max(r.newton_max, rep.iterations);
            if (!rep.ok) {
              RunFailure f;
              f.step = n + 1;
              f.t = s.time_at(n);
              f.node = static_cast<int>(rep.node);
              f.residual = rep.residual;
              f.message = rep.message + " at node " + std::to_string(rep.node);
              f.hint = "dt = " + io::format_number(s.dt) + " (the CFL limit is ds/c = " +
                       io::format_number(r.cfl_dt) + (s.allow_unstable ? "; integrator.allow_unstable is set" : "") +
                       "); try a smaller integrator.dt";
              r.failure = f;
              if (out) {  // the level's position is good, its energy needs the failed velocity step
                obs.level(n, s.time_at(n), phi, field::LevelEnergy{nan, nan, nan}, snapshot_level(s, n));
                ++r.rows;
                r.t_final = s.time_at(n);
                r.phi_final = phi;
              }
              break;
            }
            r.steps = n + 1;
          }
          // Health of the level's reported values: phi and zeta are checked in every step (the node sweep);
          // the energies are sums of squares of zeta and of the strains gamma, so finite energies also mean
          // finite strains (whose sweep has no check of its own). A non-finite energy stops the run before
          // the level is written.
          if (out && !(std::isfinite(E.kinetic_before) && std::isfinite(E.kinetic_after) && std::isfinite(E.potential))) {
            RunFailure f;
            f.step = n;
            f.t = s.time_at(n > 0 ? n - 1 : 0);
            f.node = -1;
            f.message = "non-finite energy at level " + std::to_string(n) + " (t = " + io::format_number(s.time_at(n)) +
                        "): kinetic " + io::format_number(E.kinetic_before) + ", " +
                        io::format_number(E.kinetic_after) + ", potential " + io::format_number(E.potential);
            // where: the first segment with a non-finite strain, else (the sums overflowed) the largest |gamma|
            st.gather(St::strains);  // a split field: every block's strains on rank 0, which reports
            const auto& gam = st.gamma();
            std::ptrdiff_t worst = 0;
            for (std::ptrdiff_t e = 0; e < st.grid().n_segments(); ++e) {
              const double a = std::abs(gam[field::SegmentIndex{e}]);
              if (!std::isfinite(a)) {
                worst = e;
                break;
              }
              if (a > std::abs(gam[field::SegmentIndex{worst}])) worst = e;
            }
            f.node = static_cast<int>(worst);
            f.message += (std::isfinite(gam[field::SegmentIndex{worst}]) ? "; the sums overflow, largest strain gamma = "
                                                                         : "; strain gamma = ") +
                         io::format_number(gam[field::SegmentIndex{worst}]) + " on segment " + std::to_string(worst) +
                         " (between nodes " + std::to_string(worst) + " and " +
                         std::to_string(worst + 1 < n_nodes ? worst + 1 : 0) + ")";
            f.hint = "values beyond the double range: dt = " + io::format_number(s.dt) + " (the CFL limit is ds/c = " +
                     io::format_number(r.cfl_dt) + (s.allow_unstable ? "; integrator.allow_unstable is set" : "") +
                     "); try a smaller integrator.dt (within the CFL limit), or a smaller initial.amplitude or noise.theta";
            r.failure = f;
            r.steps = n > 0 ? n - 1 : 0;
            break;
          }
          if (out) {
            obs.level(n, s.time_at(n), phi, E, snapshot_level(s, n));
            phi_written.assign(phi.begin(), phi.end());
            t_written = s.time_at(n);
            stats.add(E);
            ++r.rows;
            if (snapshot_level(s, n)) ++r.snapshots;
          }
          line.update(n, s.time_at(n));
        }
        line.finish();
        if (r.stopped) {
          r.t_final = s.time_at(r.steps);
        } else if (!r.failure) {
          r.complete = true;
          r.t_final = s.t_end;
          st.gather(St::configurations);  // a split field: on rank 0
          r.phi_final.assign(st.g().data(), st.g().data() + n_nodes);
        } else {
          if (r.phi_final.empty()) {
            r.phi_final = phi_written;  // the last level written
            r.t_final = t_written;
          }
          if (st.decomposed() && static_cast<std::ptrdiff_t>(r.phi_final.size()) == n_nodes) {  // each rank holds its own block: the whole on rank 0
            const auto [a, b] = st.block();
            const std::vector<double> all = st.exchange().gather(std::vector<double>(r.phi_final.begin() + a, r.phi_final.begin() + b));
            if (st.writes_outputs()) r.phi_final = all;
          }
        }
      },
      any);
  r.integrate_s = seconds(Clock::now() - t0);
  // The fluctuations and the drift measure how well the scheme keeps the energy: only without noise is the
  // energy of the continuous problem conserved (noise pumps energy in, so there they would measure the
  // physics, not the method); the initial and final energies are written always.
  if (s.noise_mode == field::NoiseMode::none)
    r.diagnostics = {{"E_d_fluctuation", stats.d_max - stats.d_min},
                     {"E_c_fluctuation", stats.c_max - stats.c_min},
                     {"E_c_initial", stats.c0},
                     {"E_c_final", stats.c_last},
                     {"E_c_drift", stats.c_last - stats.c0}};
  else
    r.diagnostics = {{"E_c_initial", stats.c0}, {"E_c_final", stats.c_last}};
  if (s.method == config::FieldMethod::type_ii && s.noise_mode == field::NoiseMode::modes)
    r.notes.emplace_back(
        "type-ii with noise.mode = modes runs the Type-I code path: for Phi = sum_k <mu, Theta_k> the two are "
        "the same scheme (docs/theory/beam.md)");
  return r;
}

/// Collects the series rows (and optionally writes them, and fields).
class Recorder final : public WaveObserver {
 public:
  explicit Recorder(std::vector<long long> probes) : probes_(std::move(probes)) {}
  io::TableCsvWriter* csv = nullptr;
  io::FieldsH5Writer* h5 = nullptr;
  std::vector<std::vector<double>>* rows = nullptr;

  void level(long long, double t, std::span<const double> phi, const field::LevelEnergy& e, bool snapshot) override {
    row_.assign({t, e.E_d(), e.E_c()});
    for (long long j : probes_) row_.push_back(phi[static_cast<std::size_t>(j)]);
    if (csv) csv->row(row_);
    if (rows) rows->push_back(row_);
    if (h5 && snapshot) {
      const std::span<const double> f[] = {phi};
      h5->append(t, f);
    }
  }

 private:
  std::vector<long long> probes_;
  std::vector<double> row_;
};

void write_summary(const fs::path& path, const io::WaveScenario& s, const WaveRunResult& r,
                   const detail::SliceInfo* slice = nullptr) {
  detail::json j = detail::field_summary(io::resolved_entries(s), s.name, r, s.steps, s.n_nodes());
  detail::add_slice(j, slice);
  if (s.avi()) {
    j["method"] = {{"id", "avi"}, {"order", 2}, {"retraction", "identity (G = R)"},
                   {"code_path", "asynchronous variational integrator (lievi/integrators/avi)"}};
  } else {
    j["method"] = {{"id", config::id(s.method)},
                   {"variant", config::id(s.variant)},
                   {"order", 2},
                   {"retraction", "identity (G = R)"},
                   {"code_path", uses_type_ii(s) ? "type-ii potential" : "type-i kinematics"}};
  }
  j["cfl_dt"] = r.cfl_dt;
  if (r.avi) {
    const AviReport& a = *r.avi;
    detail::json levels = detail::json::object();
    for (const auto& [k, count] : a.levels) levels[std::to_string(k)] = count;
    j["avi"] = {{"queue", a.queue},
                {"fraction", a.fraction},
                {"segments", a.segments},
                {"segment_updates", a.updates},
                {"updates_per_unit_time", a.updates_per_time},
                {"ns_per_update", a.ns_per_update},
                {"h_min", a.h_min},
                {"h_max", a.h_max},
                {"levels", levels},
                {"synchronous_updates", a.synchronous_updates},
                {"update_fraction", a.update_fraction}};
  }
  detail::json phi = detail::json::array();
  for (double v : r.phi_final) phi.push_back(std::isfinite(v) ? detail::json(v) : detail::json(nullptr));
  j["final"] = {{"t", r.t_final}, {"phi", phi}};
  detail::write_json(path, j);
}

void write_final_fields_csv(const fs::path& path, const io::WaveScenario& s, const std::vector<double>& phi) {
  io::TableCsvWriter w(path, {"s", "phi"});
  for (std::size_t j = 0; j < phi.size(); ++j) {
    const double row[] = {s.s_of(static_cast<long long>(j)), phi[j]};
    w.row(row);
  }
  w.close();
}

std::vector<std::string> notes_of(const io::WaveScenario& s) { return io::ignored_key_notes(s); }

}  // namespace

double wave_cfl_dt(const io::WaveScenario& s) { return s.ds() / s.c; }

void check_wave(const io::WaveScenario& s) {
  config::validate(s);  // a configuration built in C++ meets the rules a scenario file meets
  if (s.avi()) return;  // its steps' checks are the configuration's (build::avi_steps)
  const double limit = wave_cfl_dt(s);
  if (s.dt > limit * (1.0 + 1e-12) && !s.allow_unstable) {
    throw invalid_argument(file_of(s), "integrator.dt",
                           "value " + io::format_number(s.dt) + " is beyond the stability (CFL) limit ds/c = " +
                               io::format_number(limit) + " of the staggered scheme (ds = " +
                               io::format_number(s.ds()) + ", c = " + io::format_number(s.c) +
                               "); the largest stable dt is " + io::format_number(limit) +
                               " (set integrator.allow_unstable = true to run anyway)");
  }
}

std::vector<std::string> wave_series_columns(const io::WaveScenario& s) {
  std::vector<std::string> c = {"t", "E_d", "E_c"};
  for (long long j : s.probes) c.push_back("phi_" + std::to_string(j));
  return c;
}

WaveRunResult integrate_wave(const io::WaveScenario& s, WaveObserver& observer, Progress progress) {
  check_wave(s);
  if (s.avi()) return detail::integrate_wave_avi(s, observer, progress);
  return integrate_path(s, s.path, observer, progress);
}

fs::path default_output_dir(const io::WaveScenario& s) { return fs::path("runs") / s.name; }

WaveRunResult run_wave(const io::WaveScenario& s, const fs::path& out_dir, const RunOptions& options,
                       const ResumeFrom* resume) {
  const auto t0 = Clock::now();
  if (s.avi()) {  // deterministic and serial, not checkpointed
    if (options.comm)
      throw invalid_argument("mpirun", "",
                             std::to_string(options.comm->size()) + " ranks: integrator.method = \"avi\" runs on one "
                             "process (it is serial); run it without mpirun");
    if (resume || options.stop_at > 0)
      throw invalid_argument(resume ? "resume" : "--stop-at", "",
                             "integrator.method = \"avi\" runs are not checkpointed, so they cannot stop and resume");
  }
  // Under mpirun: the field's nodes in blocks over the ranks (domain decomposition); rank 0 writes.
  std::optional<detail::CommExchange> exchange;
  if (options.comm) {
    check_wave(s);
    exchange.emplace(*options.comm, s.n_nodes());
    if (options.comm->rank() != 0) {  // this rank's block, no outputs; rank 0 says when to start
      parallel::wait_for_work(*options.comm);
      Recorder none(s.probes);
      // the checkpoints' levels (rank 0 writes them) and a resumed run's state (every rank reads it)
      std::optional<Checkpointer> levels;
      if (s.checkpoints() || options.stop_at > 0 || resume) {
        levels.emplace(out_dir, s, std::string());
        levels->stop_at(options.stop_at);
      }
      WaveCheckpoints plan;
      plan.checkpoints = levels ? &*levels : nullptr;
      plan.resume = resume;
      plan.exchange = &*exchange;
      return integrate_path(s, s.path, none, Progress::never, plan);
    }
  }
  if (!resume) io::check_output_dir(out_dir, options.force);
  check_wave(s);
  const bool checkpointing = s.checkpoints() || options.stop_at > 0 || resume;
  io::OutputDir dir = resume          ? io::OutputDir::reopen(out_dir)
                      : checkpointing ? io::OutputDir::in_place(out_dir, options.force)
                                      : io::OutputDir(out_dir, options.force);
  WaveRunResult r;
  {
    std::optional<io::TableCsvWriter> csv;
    if (resume)
      csv.emplace(dir.tmp() / "series.csv", wave_series_columns(s), io::TableCsvWriter::Resume{});
    else
      csv.emplace(dir.tmp() / "series.csv", wave_series_columns(s));
    std::optional<io::FieldsH5Writer> h5;
    std::vector<std::string> pre_notes = notes_of(s);
    if (s.fields) {
      std::vector<double> pos;
      for (long long j = 0; j < s.n_nodes(); ++j) pos.push_back(s.s_of(j));
      std::vector<io::FieldSpec> specs{{"phi", {static_cast<std::size_t>(s.n_nodes())}, {}, "phi_j^n at the node positions /s"}};
      if (resume)
        h5.emplace(dir.tmp() / "fields.h5", std::move(specs), io::FieldsH5Writer::Resume{});
      else if (checkpointing)
        h5.emplace(dir.tmp() / "fields.h5", pos, std::move(specs), "wave", io::FieldsH5Writer::CrashSafe{});
      else
        h5.emplace(dir.tmp() / "fields.h5", pos, std::move(specs), "wave");
    }
    dir.mark_running();
    Recorder rec(s.probes);
    rec.csv = &*csv;
    rec.h5 = h5 ? &*h5 : nullptr;
    std::optional<Checkpointer> checkpoints;
    if (checkpointing) {
      checkpoints.emplace(dir.tmp(), s, io::to_toml(s));
      checkpoints->stop_at(options.stop_at);
    }
    const WaveCheckpoints plan{checkpoints ? &*checkpoints : nullptr, resume, [&](StateIO& a) {
                                 {
                                   StateIO::Scope scope(a, "series");
                                   csv->checkpoint(a);
                                 }
                                 if (h5) {
                                   StateIO::Scope scope(a, "fields");
                                   h5->checkpoint(a);
                                 }
                               },
                               exchange ? &*exchange : nullptr};
    if (exchange) parallel::start_work(*options.comm);
    try {
      r = s.avi() ? detail::integrate_wave_avi(s, rec, options.progress)
                  : integrate_path(s, s.path, rec, options.progress, plan);
    } catch (...) {
      if (exchange) options.comm->abort(1);  // the other ranks are inside the step's exchanges
      throw;
    }
    r.notes.insert(r.notes.begin(), pre_notes.begin(), pre_notes.end());
    if (r.stopped) {
      csv->close();
      if (h5) h5->close();
      r.out_dir = out_dir;
      dir.keep_for_resume();
      r.total_s = seconds(Clock::now() - t0);
      return r;
    }
    csv->close();
    if (h5) {
      h5->close();
      io::write_fields_xdmf(dir.tmp() / "fields.xdmf", dir.tmp() / "fields.h5",
                            io::wave_fields_xdmf(static_cast<std::size_t>(s.n_nodes())));  // ParaView's view
    }
  }
  if (s.fields_csv) write_final_fields_csv(dir.tmp() / "final_fields.csv", s, r.phi_final);
  make_field_plots(dir.tmp(), s.plots, "lievi_wave_plot.py", "LIEVI_WAVE_PLOT_SCRIPT", s.name, r.notes);
  r.out_dir = out_dir;
  r.total_s = seconds(Clock::now() - t0);
  write_summary(dir.tmp() / "summary.json", s, r);
  dir.commit();
  return r;
}

namespace detail {
EnsembleModel wave_ensemble_model(const io::WaveScenario& s) {
  EnsembleModel m;
  m.columns = wave_series_columns(s);
  m.quantiles = s.quantiles;
  // each path the level loop of its own stepper with the series kept in memory (inner loops serial)
  m.run = [&s](std::uint32_t k) {
    PathRun p;
    Recorder rec(s.probes);
    rec.rows = &p.rows;
    if (static_cast<long long>(k) == test_nan_path()) {
      io::WaveScenario nan = s;
      nan.theta = std::numeric_limits<double>::quiet_NaN();
      p.result = integrate_path(nan, k, rec, Progress::never);
    } else {
      p.result = integrate_path(s, k, rec, Progress::never);
    }
    return p;
  };
  m.finish = [&s](WaveRunResult& total, std::uint32_t first, long long count, const SliceInfo* slice,
                  const fs::path& folder, Clock::time_point t0) {
    const auto pre = notes_of(s);
    total.notes.insert(total.notes.begin(), pre.begin(), pre.end());
    total.notes.emplace_back("ensemble of " + std::to_string(count) + " paths from noise.path = " +
                             std::to_string(first) + "; final.phi is path " + std::to_string(first) +
                             "'s; fields.h5 is not written for ensembles");
    make_field_plots(folder, s.plots, "lievi_wave_plot.py", "LIEVI_WAVE_PLOT_SCRIPT", s.name, total.notes);
    total.total_s = seconds(Clock::now() - t0);
    write_summary(folder / "summary.json", s, total, slice);
  };
  return m;
}
}  // namespace detail

WaveRunResult run_wave_ensemble(const io::WaveScenario& s, long long paths, const fs::path& out_dir,
                                const RunOptions& options, const ResumeFrom* resume) {
  if (s.avi())
    throw invalid_argument("--paths", "",
                           "value " + std::to_string(paths) + ": integrator.method = \"avi\" is deterministic (no "
                           "noise, one path); run it without --paths");
  detail::check_ensemble(s.noise_mode, s.path, paths, file_of(s));
  check_wave(s);
  return detail::run_field_ensemble(s, paths, out_dir, options, resume, detail::wave_ensemble_model(s));
}

// ---- WaveSimulation: the run's stepper (path noise.path), stepped by the caller ----

struct WaveSimulation::Impl {
  io::WaveScenario s;
  AnyStepper st;
  long long steps = 0;
  bool failed = false;
};

WaveSimulation::WaveSimulation(const io::WaveScenario& s) {
  check_wave(s);
  if (s.avi())
    throw invalid_argument(file_of(s), "integrator.method",
                           "value \"avi\" is not stepped by a Simulation (its segments have no common step); "
                           "run it whole (lievi.run / lievi run)");
  impl_ = std::make_unique<Impl>(Impl{s, make_stepper(s, s.path), 0, false});
}
WaveSimulation::~WaveSimulation() = default;
WaveSimulation::WaveSimulation(WaveSimulation&&) noexcept = default;
WaveSimulation& WaveSimulation::operator=(WaveSimulation&&) noexcept = default;

std::optional<RunFailure> WaveSimulation::step(long long n) {
  Impl& m = *impl_;
  if (m.failed)
    throw std::logic_error("the simulation failed at step " + std::to_string(m.steps + 1) + " and cannot step on");
  return std::visit(
      [&](auto& st) -> std::optional<RunFailure> {
        for (long long k = 0; k < n; ++k) {
          const field::StepReport rep = st.step();
          bool finite = rep.ok;
          for (std::ptrdiff_t j = 0; finite && j < st.grid().n_nodes(); ++j) finite = std::isfinite(st.g()[{j}]);
          if (!finite) {
            RunFailure f;
            f.step = m.steps + 1;
            f.t = static_cast<double>(m.steps) * m.s.dt;
            f.node = static_cast<int>(rep.node);
            f.residual = rep.residual;
            f.message = rep.ok ? "non-finite field" : rep.message + " at node " + std::to_string(rep.node);
            f.hint = "try a smaller integrator.dt (the CFL bound is " + io::format_number(wave_cfl_dt(m.s)) + ")";
            m.failed = true;
            return f;
          }
          ++m.steps;
        }
        return std::nullopt;
      },
      m.st);
}
void WaveSimulation::set_noise_scale(double s) {
  if (!(s >= 0.0) || !std::isfinite(s))
    throw invalid_argument("", "noise_scale", "value " + io::format_number(s) + " must be finite and >= 0");
  std::visit([s](auto& st) { st.set_noise_scale(s); }, impl_->st);
}
bool WaveSimulation::failed() const { return impl_->failed; }
double WaveSimulation::t() const { return std::visit([](const auto& st) { return st.time(); }, impl_->st); }
long long WaveSimulation::steps() const { return impl_->steps; }
double WaveSimulation::dt() const { return impl_->s.dt; }
std::ptrdiff_t WaveSimulation::n_nodes() const {
  return std::visit([](const auto& st) { return st.grid().n_nodes(); }, impl_->st);
}
const double* WaveSimulation::phi() const {
  return std::visit([](const auto& st) { return st.g().data(); }, impl_->st);
}
const double* WaveSimulation::velocities() const {
  return std::visit([](const auto& st) { return st.zeta().data(); }, impl_->st);
}
WaveSimulation::Energies WaveSimulation::energies() {
  return std::visit(
      [](auto& st) {
        const field::LevelEnergy E = st.energy_now();
        return Energies{E.E_d(), E.E_c(), E.kinetic_before, E.kinetic_after, E.potential};
      },
      impl_->st);
}

}  // namespace lievi::run
