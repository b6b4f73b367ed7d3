/// @file src/run/string_run.cpp
/// @brief The elastic-string run pipeline (run/string_run.hpp): the mesh and steps from the scenario, the
/// asynchronous variational integrator (integrators/avi/avi.hpp) or the synchronous leapfrog, the rows at
/// multiples of dt, series.csv, summary.json, fields.h5, plots.
#include "lievi/run/string_run.hpp"

#include <Eigen/Core>
#include <Eigen/Geometry>

#include <chrono>
#include <cmath>
#include <functional>
#include <map>
#include <optional>
#include <span>
#include <string>

#include "field_summary.hpp"
#include "lievi/core/error.hpp"
#include "lievi/integrators/avi/avi.hpp"
#include "lievi/io/fields_h5.hpp"
#include "lievi/io/output_dir.hpp"
#include "lievi/io/table_csv.hpp"
#include "lievi/run/plots.hpp"
#include "lievi/run/progress.hpp"
#include "lievi/version.hpp"

namespace lievi::run {
namespace {

namespace fs = std::filesystem;
namespace avi = integrators::avi;
using Clock = std::chrono::steady_clock;
using V3 = Eigen::Vector3d;
using config::StringMethod;
using config::StringShape;
using Row = std::vector<double>;

double seconds(Clock::duration d) { return std::chrono::duration<double>(d).count(); }

std::string file_of(const io::ElasticStringScenario& s) { return s.source.empty() ? s.name : s.source; }

std::string dyadic_text(int k) { return k == 0 ? std::string("dt") : "dt/2^" + std::to_string(k); }

/// The segment potentials of the mesh.
avi::ElasticString string_model(const config::StringMesh& m) { return avi::ElasticString(m.L, m.EA, m.rho); }

/// The nodes' lumped masses (dual cells) and the clamped ends.
avi::Mesh node_mesh(const io::ElasticStringScenario& s, const avi::ElasticString& model) {
  return avi::Mesh::dual_cells(avi::segment_masses(model), s.bc_left, s.bc_right);
}

/// x_a(0) and v_a(0): the file's, or the straight string along e1 stretched by the pre-stretch (or tension /
/// EA_e) with the shape's transverse displacement u(s_a) d; then the uniform velocity and the rotation
/// omega x x_a at every free node (zero at clamped nodes).
void initial_state(const io::ElasticStringScenario& s, const config::StringMesh& m, const avi::Mesh& mesh,
                   std::vector<V3>& x, std::vector<V3>& v) {
  const auto n = static_cast<std::size_t>(m.n_nodes());
  x.assign(n, V3::Zero());
  v.assign(n, V3::Zero());
  if (s.shape == StringShape::file) {
    for (std::size_t a = 0; a < n; ++a) {
      x[a] = V3(s.x0[3 * a], s.x0[3 * a + 1], s.x0[3 * a + 2]);
      v[a] = V3(s.v0[3 * a], s.v0[3 * a + 1], s.v0[3 * a + 2]);
    }
  } else {
    const V3 d = V3(s.direction[0], s.direction[1], s.direction[2]).normalized();
    const double S = s.length, s0 = s.center;
    double X = 0.0;
    for (std::size_t a = 0; a < n; ++a) {
      const double sa = m.s[a];
      double u = 0.0;
      if (s.shape == StringShape::pluck) u = s.amplitude * (sa <= s0 ? sa / s0 : (S - sa) / (S - s0));
      else if (s.shape == StringShape::gaussian) u = s.amplitude * std::exp(-std::pow((sa - s0) / s.width, 2));
      x[a] = X * V3::UnitX() + u * d;
      if (a + 1 < n) {
        const double strain = s.tension_given ? s.tension / m.EA[a] : s.prestretch;
        X += (1.0 + strain) * m.L[a];
      }
    }
  }
  const V3 v_uniform(s.velocity[0], s.velocity[1], s.velocity[2]), omega(s.omega[0], s.omega[1], s.omega[2]);
  for (std::size_t a = 0; a < n; ++a) {
    v[a] += v_uniform + omega.cross(x[a]);
    if (mesh.fixed[a]) v[a].setZero();
  }
}

/// The synchronous scheme: every segment at the one step dt, velocity Verlet written as the AVI's sweeps are
/// (integrators/avi/avi.hpp, fire_run): at t_n = n dt, drift every node by dt, the impulses dt F_e of every
/// segment to its second nodes, then to its first. With equal steps the AVI takes the same operations in the
/// same order, so the two agree bit for bit (tests/string). The state after advance(n): positions at
/// t_{n-1}, momenta after the kicks of t_{n-1}, as the AVI's after advance(t_n).
class SyncString {
 public:
  SyncString(avi::ElasticString model, const avi::Mesh& mesh, double dt) : model_(std::move(model)), dt_(dt) {
    const std::size_t nn = mesh.m.size();
    inv_m_.resize(nn);
    free_.resize(nn);
    for (std::size_t a = 0; a < nn; ++a) {
      inv_m_[a] = mesh.fixed[a] ? 0.0 : 1.0 / mesh.m[a];
      free_[a] = mesh.fixed[a] ? 0.0 : 1.0;
    }
    m_ = mesh.m;
    F_.assign(nn > 0 ? nn - 1 : 0, V3::Zero());
  }
  /// p_a = m_a v_a (0 at fixed nodes), then the start half kicks (dt/2) F_e in segment order.
  void initialize(const std::vector<V3>& x0, const std::vector<V3>& v0) {
    x_ = x0;
    p_.resize(x0.size());
    for (std::size_t a = 0; a < x0.size(); ++a) p_[a] = free_[a] == 0.0 ? V3::Zero() : V3(m_[a] * v0[a]);
    for (std::ptrdiff_t e = 0; e + 1 < static_cast<std::ptrdiff_t>(x_.size()); ++e) {
      const V3 I = (0.5 * dt_) * model_.force(e, x_[e], x_[e + 1]);
      if (free_[e] != 0.0) p_[e] += I;
      if (free_[e + 1] != 0.0) p_[e + 1] -= I;
    }
    n_ = 0;
    updates_ = static_cast<long long>(F_.size());
  }
  /// Take the steps at t_k = k dt for k < n.
  long long advance(long long n) {
    const std::ptrdiff_t nn = static_cast<std::ptrdiff_t>(x_.size()), ns = nn - 1;
    V3* x = x_.data();
    V3* p = p_.data();
    V3* F = F_.data();
    const double* im = inv_m_.data();
    const double* fr = free_.data();
    const double h = dt_;
    long long count = 0;
    for (; n_ + 1 < n; ++n_) {
      for (std::ptrdiff_t a = 0; a < nn; ++a) x[a] += h * V3(p[a] * im[a]);
      for (std::ptrdiff_t e = 0; e < ns; ++e) F[e] = V3(h * model_.force(e, x[e], x[e + 1]));
      for (std::ptrdiff_t e = 0; e < ns; ++e) p[e + 1] -= V3(fr[e + 1] * F[e]);
      for (std::ptrdiff_t e = 0; e < ns; ++e) p[e] += V3(fr[e] * F[e]);
      count += ns;
    }
    updates_ += count;
    return count;
  }
  /// Positions at t_n (after advance(n)): one drift from t_{n-1}.
  const std::vector<V3>& positions_at(long long n) const {
    y_.resize(x_.size());
    const double h = static_cast<double>(n - n_) * dt_;
    for (std::size_t a = 0; a < x_.size(); ++a) y_[a] = x_[a] + h * V3(p_[a] * inv_m_[a]);
    return y_;
  }
  [[nodiscard]] const std::vector<V3>& momenta() const { return p_; }
  [[nodiscard]] long long updates() const { return updates_; }

 private:
  avi::ElasticString model_;
  double dt_;
  std::vector<double> m_, inv_m_, free_;
  std::vector<V3> x_, p_, F_;
  mutable std::vector<V3> y_;
  long long n_ = 0, updates_ = 0;
};

/// The AVI behind the same interface: positions and momenta at t_n = n dt. The steps are dyadic (dt / 2^k), so
/// time is counted in ticks of dt / 2^K; positions_at(n) drifts each node from its last update by a whole
/// number of ticks, as the AVI's own drifts do (Avi::positions_at(T) takes T - t_a in floating point when
/// fl(n dt) / tick is not an integer, which differs from the tick count in the last bit).
class AviString {
 public:
  AviString(avi::ElasticString model, avi::Mesh mesh, std::vector<double> h, avi::Queue q, double dt)
      : avi_(std::move(model), mesh, std::move(h), {q}), dt_(dt) {
    inv_m_.resize(mesh.m.size());
    for (std::size_t a = 0; a < inv_m_.size(); ++a) inv_m_[a] = mesh.fixed[a] ? 0.0 : 1.0 / mesh.m[a];
    ticks_per_dt_ = std::llround(dt_ / avi_.tick());
  }
  void initialize(const std::vector<V3>& x0, const std::vector<V3>& v0) { avi_.initialize(x0, v0); }
  long long advance(long long n) { return avi_.advance(static_cast<double>(n) * dt_); }
  const std::vector<V3>& positions_at(long long n) const {
    const std::vector<V3>& x = avi_.positions();
    const std::vector<V3>& p = avi_.momenta();
    const double tick = avi_.tick();
    y_.resize(x.size());
    for (std::size_t a = 0; a < x.size(); ++a) {
      const long long n_a = std::llround(avi_.node_time(static_cast<std::ptrdiff_t>(a)) / tick);
      const double elapsed = static_cast<double>(n * ticks_per_dt_ - n_a) * tick;
      y_[a] = x[a] + elapsed * V3(p[a] * inv_m_[a]);
    }
    return y_;
  }
  [[nodiscard]] const std::vector<V3>& momenta() const { return avi_.momenta(); }
  [[nodiscard]] long long updates() const { return avi_.updates(); }

 private:
  avi::Avi<avi::ElasticString> avi_;
  double dt_;
  std::vector<double> inv_m_;
  long long ticks_per_dt_ = 1;
  mutable std::vector<V3> y_;
};

/// The reported values of a row: energies and momenta from positions y and momenta p.
struct Values {
  double K = 0.0, V = 0.0;
  V3 P = V3::Zero(), L = V3::Zero();
  double p_scale = 0.0, l_scale = 0.0;  ///< sum |p_a| and sum |x_a| |p_a|, the momenta's scales
  [[nodiscard]] double E() const { return K + V; }
};
Values values_of(const avi::ElasticString& model, const std::vector<double>& inv_m, const std::vector<V3>& y,
                 const std::vector<V3>& p) {
  Values r;
  for (std::size_t a = 0; a < y.size(); ++a) {
    r.K += 0.5 * inv_m[a] * p[a].squaredNorm();
    r.P += p[a];
    r.L += y[a].cross(p[a]);
    r.p_scale += p[a].norm();
    r.l_scale += y[a].norm() * p[a].norm();
  }
  for (std::ptrdiff_t e = 0; e + 1 < static_cast<std::ptrdiff_t>(y.size()); ++e)
    r.V += model.energy(e, y[static_cast<std::size_t>(e)], y[static_cast<std::size_t>(e + 1)]);
  return r;
}

/// Where the outputs go (rows, snapshots), for the run and in-process integration alike.
struct Sinks {
  std::function<void(const Row&)> row;
  std::function<void(double, const std::vector<V3>&, const std::vector<V3>&)> snapshot;  ///< t, x, v
};

template <class Stepper>
StringRunResult integrate_with(const io::ElasticStringScenario& s, const config::StringMesh& m,
                               const StringSteps& steps, Stepper& st, const avi::ElasticString& model,
                               const avi::Mesh& mesh, const Sinks& sinks, Progress progress) {
  StringRunResult r;
  r.n_nodes = m.n_nodes();
  r.n_segments = m.n_segments();
  std::vector<double> inv_m(mesh.m.size());
  for (std::size_t a = 0; a < inv_m.size(); ++a) inv_m[a] = mesh.fixed[a] ? 0.0 : 1.0 / mesh.m[a];
  std::vector<V3> x0, v0;
  initial_state(s, m, mesh, x0, v0);
  std::vector<V3> p0(x0.size()), v(x0.size());
  for (std::size_t a = 0; a < x0.size(); ++a) p0[a] = mesh.fixed[a] ? V3::Zero() : V3(mesh.m[a] * v0[a]);
  st.initialize(x0, v0);

  const Values start = values_of(model, inv_m, x0, p0);
  const double E0 = start.E();
  r.energy_initial = E0;
  double e_dev = 0.0, p_dev = 0.0, l_dev = 0.0, p_scale = start.p_scale, l_scale = start.l_scale;
  Row row;
  const auto emit = [&](double t, const std::vector<V3>& y, const Values& val) {
    e_dev = std::max(e_dev, std::abs(val.E() - E0));
    p_dev = std::max(p_dev, (val.P - start.P).norm());
    l_dev = std::max(l_dev, (val.L - start.L).norm());
    p_scale = std::max(p_scale, val.p_scale);
    l_scale = std::max(l_scale, val.l_scale);
    r.energy_final = val.E();
    row.assign({t, val.K, val.V, val.E(), val.P.x(), val.P.y(), val.P.z(), val.L.x(), val.L.y(), val.L.z()});
    for (const long long j : s.probes)
      for (int c = 0; c < 3; ++c) row.push_back(y[static_cast<std::size_t>(j)](c));
    if (sinks.row) sinks.row(row);
    ++r.rows;
  };
  const auto snapshot = [&](double t, const std::vector<V3>& y, const std::vector<V3>& p) {
    if (!sinks.snapshot) return;
    for (std::size_t a = 0; a < p.size(); ++a) v[a] = inv_m[a] * p[a];
    sinks.snapshot(t, y, v);
  };
  r.x_final.resize(3 * x0.size());
  for (std::size_t a = 0; a < x0.size(); ++a)
    for (int c = 0; c < 3; ++c) r.x_final[3 * a + static_cast<std::size_t>(c)] = x0[a](c);
  emit(0.0, x0, start);
  snapshot(0.0, x0, p0);

  const long long N = s.steps;
  const auto is_row = [&](long long n) { return n % s.every == 0 || n == N; };
  const auto is_snap = [&](long long n) { return s.fields && (n % s.fields_every == 0 || n == N); };
  // A blow-up: the energy beyond 1000 times the initial energy (a stable run keeps it within a few per cent).
  const double blowup = 1000.0 * std::abs(E0);
  ProgressLine line(N, s.t_end, progress == Progress::automatic);
  long long last_good = 0;
  const auto t0 = Clock::now();
  Clock::duration stepping{};
  for (long long n = 1; n <= N; ++n) {
    line.update(n, static_cast<double>(n) * s.dt);
    if (!is_row(n) && !is_snap(n)) continue;
    const auto a0 = Clock::now();
    st.advance(n);
    stepping += Clock::now() - a0;
    const std::vector<V3>& y = st.positions_at(n);
    const std::vector<V3>& p = st.momenta();
    const Values val = values_of(model, inv_m, y, p);
    const bool finite = std::isfinite(val.E()) && val.P.allFinite() && val.L.allFinite();
    if (!finite || (E0 != 0.0 && std::abs(val.E()) > blowup)) {
      // the node: the first non-finite one, else the fastest
      std::ptrdiff_t node = 0;
      double vmax = -1.0;
      for (std::size_t a = 0; a < y.size(); ++a) {
        const bool bad = !y[a].allFinite() || !p[a].allFinite();
        const double speed = bad ? INFINITY : inv_m[a] * p[a].norm();
        if (speed > vmax) vmax = speed, node = static_cast<std::ptrdiff_t>(a);
        if (bad) break;
      }
      // its segment with the larger step relative to its limit
      std::ptrdiff_t seg = node == 0 ? 0 : node - 1;
      if (node > 0 && node < static_cast<std::ptrdiff_t>(m.L.size()) &&
          steps.h[static_cast<std::size_t>(node)] / steps.limit[static_cast<std::size_t>(node)] >
              steps.h[static_cast<std::size_t>(seg)] / steps.limit[static_cast<std::size_t>(seg)])
        seg = node;
      const auto e = static_cast<std::size_t>(seg);
      RunFailure f;
      f.step = n;
      f.t = s.time_at(last_good);
      f.node = static_cast<int>(node);
      f.message = std::string(finite ? "blow-up: the energy " + io::format_number(val.E()) +
                                           " exceeds 1000 times the initial energy " + io::format_number(E0)
                                     : "non-finite positions or momenta") +
                  " at t = " + io::format_number(static_cast<double>(n) * s.dt) + " (last good row t = " +
                  io::format_number(f.t) + "), near node " + std::to_string(node) + " (s = " +
                  io::format_number(m.s[static_cast<std::size_t>(node)]) + "), segment " + std::to_string(seg) +
                  " with step " + dyadic_text(steps.level[e]) + " = " + io::format_number(steps.h[e]) +
                  " against its stability limit " + io::format_number(steps.limit[e]);
      if (s.method == StringMethod::synchronous)
        f.hint = "use a smaller integrator.dt (now " + io::format_number(s.dt) + ")";
      else if (m.region_dt[e] > 0.0)
        f.hint = "use a smaller regions[" + std::to_string(m.region[e]) + "].dt (now " +
                 io::format_number(m.region_dt[e]) + "), or a smaller integrator.fraction (now " +
                 io::format_number(s.fraction) + ") for the other segments";
      else
        f.hint = "use a smaller integrator.fraction (now " + io::format_number(s.fraction) +
                 "; unequal steps excite the AVI's resonances, 0.3-0.5 is safer), or give the region a smaller "
                 "regions[i].dt";
      r.failure = std::move(f);
      break;
    }
    if (is_row(n)) emit(s.time_at(n), y, val);
    if (is_snap(n)) snapshot(s.time_at(n), y, p);
    last_good = n;
    for (std::size_t a = 0; a < y.size(); ++a)
      for (int c = 0; c < 3; ++c) r.x_final[3 * a + static_cast<std::size_t>(c)] = y[a](c);
  }
  line.finish();
  r.integrate_s = seconds(Clock::now() - t0);
  r.stepping_s = seconds(stepping);
  r.steps = last_good;
  r.complete = !r.failure.has_value();
  r.t_final = s.time_at(last_good);
  r.updates = st.updates();
  std::map<int, long long> lv;
  for (int k : steps.level) ++lv[k];
  r.levels.assign(lv.begin(), lv.end());
  r.diagnostics.emplace_back("energy_initial", E0);
  r.diagnostics.emplace_back("energy_max_abs_deviation", e_dev);
  r.diagnostics.emplace_back("energy_max_rel_deviation", E0 != 0.0 ? e_dev / std::abs(E0) : e_dev);
  r.diagnostics.emplace_back("linear_momentum_max_deviation", p_dev);
  r.diagnostics.emplace_back("linear_momentum_scale", p_scale);
  r.diagnostics.emplace_back("angular_momentum_max_deviation", l_dev);
  r.diagnostics.emplace_back("angular_momentum_scale", l_scale);
  if (s.bc_left == field::End::clamped || s.bc_right == field::End::clamped)
    r.notes.emplace_back("a clamped end exerts forces: the linear and angular momenta are conserved only with both "
                         "ends free");
  return r;
}

/// Build the stepper of the scenario and integrate.
StringRunResult integrate(const io::ElasticStringScenario& s, const Sinks& sinks, Progress progress) {
  const config::StringMesh m = config::string_mesh(s);
  const StringSteps steps = string_steps(s, m);
  const avi::ElasticString model = string_model(m);
  const avi::Mesh mesh = node_mesh(s, model);
  if (s.method == StringMethod::synchronous) {
    SyncString st(model, mesh, s.dt);
    return integrate_with(s, m, steps, st, model, mesh, sinks, progress);
  }
  AviString st(model, mesh, steps.h, s.queue == config::StringQueue::heap ? avi::Queue::heap : avi::Queue::levels,
               s.dt);
  return integrate_with(s, m, steps, st, model, mesh, sinks, progress);
}

void write_summary(const fs::path& path, const io::ElasticStringScenario& s, const StringRunResult& r) {
  using detail::json;
  const auto fin = [](double x) { return std::isfinite(x) ? json(x) : json(nullptr); };
  json j;
  j["status"] = r.complete ? "complete" : "failed";
  if (r.failure) {
    const auto& f = *r.failure;
    j["failure"] = {{"step", f.step}, {"t", f.t}, {"node", f.node}, {"message", f.message}, {"hint", f.hint}};
  }
  j["scenario"] = detail::scenario_json(io::resolved_entries(s));
  j["scenario_name"] = s.name;
  j["method"] = {{"id", config::id(s.method)}};
  if (s.method == StringMethod::avi) j["method"]["queue"] = config::id(s.queue);
  j["steps"] = r.steps;
  j["steps_planned"] = s.steps;
  j["rows"] = r.rows;
  j["n_nodes"] = r.n_nodes;
  j["n_segments"] = r.n_segments;
  json levels = json::object();
  for (const auto& [k, count] : r.levels) levels[std::to_string(k)] = count;
  const double T = r.t_final;
  j["step_levels"] = levels;
  j["updates"] = {{"total", r.updates},
                  {"per_unit_time", T > 0.0 ? fin(static_cast<double>(r.updates) / T) : json(nullptr)},
                  {"ns_per_update", r.updates > 0 ? fin(1e9 * r.stepping_s / static_cast<double>(r.updates))
                                                  : json(nullptr)}};
  j["timing"] = {{"stepping_s", r.stepping_s}, {"integrate_s", r.integrate_s}, {"total_s", r.total_s}};
  j["final"] = {{"t", r.t_final}, {"energy", fin(r.energy_final)}};
  json d = json::object();
  for (const auto& [key, value] : r.diagnostics) d[key] = fin(value);
  j["diagnostics"] = d;
  j["notes"] = r.notes;
  j["version"] = lievi::version;
  detail::write_json(path, j);
}

}  // namespace

StringSteps string_steps(const io::ElasticStringScenario& s, const config::StringMesh& m) {
  StringSteps st;
  const std::size_t ns = m.L.size();
  st.h.resize(ns);
  st.level.resize(ns);
  st.limit.resize(ns);
  const std::string file = file_of(s);
  std::vector<InputIssue> issues;
  for (std::size_t e = 0; e < ns; ++e) st.limit[e] = m.L[e] / std::sqrt(m.EA[e] / m.rho[e]);
  if (s.method == StringMethod::synchronous) {
    std::size_t worst = 0;
    for (std::size_t e = 0; e < ns; ++e) {
      st.h[e] = s.dt, st.level[e] = 0;
      if (st.limit[e] < st.limit[worst]) worst = e;
    }
    if (ns > 0 && s.dt > st.limit[worst] && !s.allow_unstable)
      issues.push_back({file, "integrator.dt",
                        "value " + io::format_number(s.dt) + " is beyond the stability limit " +
                            io::format_number(st.limit[worst]) + " = L_e / sqrt(EA_e / rho_e) of segment " +
                            std::to_string(worst) + " (s = " + io::format_number(m.s[worst]) +
                            "); every segment steps at dt with integrator.method = \"synchronous\": use dt <= " +
                            io::format_number(st.limit[worst]) + " (or integrator.allow_unstable = true)"});
  } else {
    std::vector<char> reported(s.regions.size(), 0);
    bool fraction_reported = false;
    for (std::size_t e = 0; e < ns; ++e) {
      if (m.region_dt[e] > 0.0) {
        st.h[e] = m.region_dt[e];
        st.level[e] = static_cast<int>(std::lround(std::log2(s.dt / st.h[e])));
        const auto i = static_cast<std::size_t>(m.region[e]);
        if (st.h[e] > st.limit[e] && !s.allow_unstable && !reported[i]) {
          reported[i] = 1;
          issues.push_back({file, "regions[" + std::to_string(i) + "].dt",
                            "value " + io::format_number(st.h[e]) + " is beyond the stability limit " +
                                io::format_number(st.limit[e]) + " = L_e / sqrt(EA_e / rho_e) of segment " +
                                std::to_string(e) + " (s = " + io::format_number(m.s[e]) +
                                ") in the region; use dt/2^k <= it (or integrator.allow_unstable = true)"});
        }
        continue;
      }
      const double target = s.fraction * st.limit[e];
      int k = 0;
      double h = s.dt;
      while (h > target && k <= 52) h *= 0.5, ++k;
      if (k > 52) {
        if (!fraction_reported)
          issues.push_back({file, "integrator.dt",
                            "value " + io::format_number(s.dt) + " needs more than 52 halvings to reach " +
                                io::format_number(target) + " = integrator.fraction x the limit of segment " +
                                std::to_string(e) + "; use a smaller integrator.dt"});
        fraction_reported = true;
        h = target, k = 52;
      }
      st.h[e] = h, st.level[e] = k;
    }
  }
  if (!issues.empty()) throw invalid_argument(std::move(issues));
  return st;
}

std::vector<std::string> string_series_columns(const io::ElasticStringScenario& s) {
  std::vector<std::string> c = {"t", "kinetic", "potential", "energy", "P_x", "P_y", "P_z", "L_x", "L_y", "L_z"};
  for (const long long j : s.probes)
    for (const char* a : {"x", "y", "z"}) c.push_back(a + std::to_string(j));
  return c;
}

void check_string(const io::ElasticStringScenario& s) {
  config::validate(s);
  (void)string_steps(s, config::string_mesh(s));
}

StringRunResult integrate_string(const io::ElasticStringScenario& s, std::vector<std::vector<double>>* rows) {
  check_string(s);
  Sinks sinks;
  sinks.row = [&](const Row& row) {
    if (rows) rows->push_back(row);
  };
  StringRunResult r = integrate(s, sinks, Progress::never);
  const auto pre = io::ignored_key_notes(s);
  r.notes.insert(r.notes.begin(), pre.begin(), pre.end());
  return r;
}

fs::path default_output_dir(const io::ElasticStringScenario& s) { return fs::path("runs") / s.name; }

StringRunResult run_string(const io::ElasticStringScenario& s, const fs::path& out_dir, const RunOptions& options) {
  const auto t0 = Clock::now();
  io::check_output_dir(out_dir, options.force);
  check_string(s);
  io::OutputDir dir(out_dir, options.force);
  StringRunResult r;
  {
    io::TableCsvWriter csv(dir.tmp() / "series.csv", string_series_columns(s));
    const config::StringMesh m = config::string_mesh(s);
    const auto nn = static_cast<std::size_t>(m.n_nodes());
    std::optional<io::FieldsH5Writer> h5;
    if (s.fields)
      h5.emplace(dir.tmp() / "fields.h5", m.s,
                 std::vector<io::FieldSpec>{
                     {"x", {nn, 3}, {}, "node positions x_a(t)"},
                     {"v", {nn, 3}, {}, "node velocities p_a / m_a of each node's last interval before t"}},
                 "string");
    std::vector<double> xs(3 * nn), vs(3 * nn);
    Sinks sinks;
    sinks.row = [&](const Row& row) { csv.row(row); };
    if (h5)
      sinks.snapshot = [&](double t, const std::vector<V3>& x, const std::vector<V3>& v) {
        for (std::size_t a = 0; a < nn; ++a)
          for (int c = 0; c < 3; ++c) xs[3 * a + c] = x[a](c), vs[3 * a + c] = v[a](c);
        const std::span<const double> data[] = {xs, vs};
        h5->append(t, data);
      };
    r = integrate(s, sinks, options.progress);
    csv.close();
    if (h5) h5->close();
  }
  // the final configuration as a CSV (x, y, z per node), readable as initial.file
  {
    io::TableCsvWriter fin(dir.tmp() / "final_positions.csv", {"x", "y", "z"});
    for (std::size_t a = 0; 3 * a + 2 < r.x_final.size(); ++a)
      fin.row(std::vector<double>{r.x_final[3 * a], r.x_final[3 * a + 1], r.x_final[3 * a + 2]});
    fin.close();
  }
  const auto pre = io::ignored_key_notes(s);
  r.notes.insert(r.notes.begin(), pre.begin(), pre.end());
  const std::string title = s.name + ": string, " + config::id(s.method) + ", dt = " + io::format_number(s.dt) +
                            (r.complete ? "" : " [incomplete]");
  make_field_plots(dir.tmp(), s.plots, "lievi_string_plot.py", "LIEVI_STRING_PLOT_SCRIPT", title, r.notes);
  r.out_dir = out_dir;
  r.total_s = seconds(Clock::now() - t0);
  write_summary(dir.tmp() / "summary.json", s, r);
  dir.commit();
  return r;
}

}  // namespace lievi::run
