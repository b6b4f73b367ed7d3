/// @file src/run/beam_run.cpp
/// @brief The beam run pipeline (variants exact and approx, Type-I noise: common, independent or spatial modes):
/// model and initial state from the scenario, the level loop, series.csv, fields.h5, the ParaView series,
/// summary.json, plots.
#include "lievi/run/beam_run.hpp"
#include "lievi/run/beam_sim.hpp"

#include <Eigen/Geometry>
#include <omp.h>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <functional>
#include <limits>
#include <memory>
#include <numbers>
#include <optional>
#include <variant>

#include "lievi/build/beam.hpp"
#include "lievi/core/error.hpp"
#include "lievi/field/stepper.hpp"
#include "lievi/io/ensemble_csv.hpp"
#include "lievi/io/fields_h5.hpp"
#include "lievi/io/fields_xdmf.hpp"
#include "lievi/io/output_dir.hpp"
#include "lievi/io/table_csv.hpp"
#include "lievi/io/vtk.hpp"
#include "lievi/models/beam.hpp"
#include "lievi/noise/wiener.hpp"
#include "lievi/run/health.hpp"
#include "lievi/run/plots.hpp"
#include "lievi/run/checkpoint.hpp"
#include "lievi/run/progress.hpp"
#include "ensemble.hpp"
#include "field_exchange.hpp"
#include "lievi/parallel/comm.hpp"
#include "field_summary.hpp"

namespace lievi::run {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;
using lie::Mat3;
using lie::Mat6;
using lie::SE3;
using lie::Vec3;
using lie::Vec6;
constexpr double nan = std::numeric_limits<double>::quiet_NaN();

std::string file_of(const io::BeamScenario& s) { return s.source.empty() ? s.name : s.source; }
double seconds(Clock::duration d) { return std::chrono::duration<double>(d).count(); }
/// The deterministic order in dt of the summary's method: 2 for exact, 1 for approx (the truncated compatibility
/// is not time-symmetric, docs/theory/beam.md "The two variants").
int method_order(const io::BeamScenario& s) { return s.variant == field::Variant::approx ? 1 : 2; }

field::Grid grid_of(const io::BeamScenario& s) { return build::grid(s); }

SE3 pose_se3(const std::array<double, 7>& q) {
  const Eigen::Quaterniond Q(q[3], q[4], q[5], q[6]);
  return SE3(Mat3(Q.normalized().toRotationMatrix()), Vec3(q[0], q[1], q[2]));
}

template <class Ret>
models::Beam<Ret> model_of(const io::BeamScenario& s, const field::Grid& grid) {
  return build::model<Ret>(s, grid);
}

/// Type-I (noise in the kinematics) or Type-II with the potential Phi = <mu, Theta> (the same scheme,
/// docs/theory/beam.md "Stochastic forms", through the general potential path of the local solve).
using TypeII = field::TypeII<models::ConstantThetaPotential>;
template <class Ret, class Noise = field::TypeI>
using Stepper = field::StaggeredStepper<models::Beam<Ret>, Noise>;
using AnyStepper = std::variant<Stepper<lie::Cayley<SE3>>, Stepper<lie::Exp<SE3>>, Stepper<lie::Cayley<SE3>, TypeII>,
                                Stepper<lie::Exp<SE3>, TypeII>>;

}  // namespace

namespace detail {
/// What the caller of a BeamSimulation sets between steps: poses of the prescribed ends (set_end_pose: when set,
/// the end takes it at every later level instead of its pose table's) and point wrenches at the nodes named
/// when the simulation was made (set_load), added to the scenario's loads.
struct SimulationControl {
  std::optional<SE3> pose[2];            ///< left (node 0), right (the last node)
  std::vector<std::ptrdiff_t> load_nodes;  ///< increasing
  std::vector<Vec6> wrench;                ///< per load node: (torque, force)
  std::vector<char> body;                  ///< per load node: 1 follower (body frame), 0 dead (spatial)
};
}  // namespace detail

namespace {

template <class Ret, class Noise = field::TypeI>
Stepper<Ret, Noise> make(const io::BeamScenario& s, const std::shared_ptr<detail::SimulationControl>& control = nullptr) {
  const field::Grid grid = grid_of(s);
  typename Stepper<Ret, Noise>::Options o;
  o.dt = s.dt;
  o.variant = s.variant;
  o.start = s.start;
  o.lie_tol = s.newton_tol;
  o.newton_maxit = static_cast<int>(s.newton_maxit);
  Vec6 theta;
  for (int c = 0; c < 6; ++c) theta[c] = s.theta[static_cast<std::size_t>(c)];
  const field::NoiseField<Vec6> nf = build::noise_field(s, grid);
  Noise policy{};
  if constexpr (Noise::is_type_ii) policy.phi.theta = theta;
  models::Beam<Ret> beam = model_of<Ret>(s, grid);
  if (control && beam.prescribed_pose)  // the caller's poses first, the tables' otherwise
    beam.prescribed_pose = [control, table = beam.prescribed_pose](std::ptrdiff_t j, double t) {
      const std::optional<SE3>& set = control->pose[j == 0 ? 0 : 1];
      return set ? *set : table(j, t);
    };
  if (control && !control->load_nodes.empty()) {
    // the caller's wrenches on top of the scenario's loads, as tabled loads whose factors read the control
    // block each step: per node one entry per component and frame with a unit wrench, the factor the set
    // component when that frame is the node's (so the sum of a node's entries is the set wrench exactly, as a
    // [[loads]] table's is), and the loaded nodes stay in the batched sweep
    using Entry = models::TabledLoads::Entry;
    std::vector<std::function<double(double)>> factors;
    std::vector<std::vector<Entry>> by_node(static_cast<std::size_t>(grid.n_nodes()));
    for (std::size_t k = 0; k < control->load_nodes.size(); ++k)
      for (const bool body : {true, false})
        for (int c = 0; c < 6; ++c) {
          by_node[static_cast<std::size_t>(control->load_nodes[k])].push_back(
              {factors.size(), body, Vec6(Vec6::Unit(c))});
          factors.emplace_back([control, k, c, body](double) {
            return (control->body[k] != 0) == body ? control->wrench[k][c] : 0.0;
          });
        }
    beam.tabled_loads = beam.tabled_loads.with(factors, by_node);
  }
  Stepper<Ret, Noise> st(std::move(beam), grid, o, nf, policy);
  field::NodeField<SE3> g0(grid.n_nodes(), SE3());
  field::NodeField<Vec6> z0(grid.n_nodes(), Vec6::Zero());
  for (std::ptrdiff_t j = 0; j < grid.n_nodes(); ++j) {
    g0[{j}] = pose_se3(s.poses.at(static_cast<std::size_t>(j)));
    if (!s.velocity.empty())
      for (int c = 0; c < 6; ++c) z0[{j}][c] = s.velocity.at(static_cast<std::size_t>(j))[static_cast<std::size_t>(c)];
  }
  if (s.reference == config::BeamReference::initial) {  // the initial configuration is stress-free: E_seg = gamma^0
    auto model = st.model();
    for (std::ptrdiff_t e = 0; e < grid.n_segments(); ++e) {
      const auto b2 = grid.second({e});
      const SE3 far = b2.j == 0 && grid.periodic() ? model.wrapped(g0[b2]) : g0[b2];
      model.E_seg[static_cast<std::size_t>(e)] = model.relative(g0[grid.first({e})], far) / grid.ds();
    }
    st = Stepper<Ret, Noise>(model, grid, o, nf, policy);
  }
  try {
    st.initialize(g0, z0);
  } catch (const std::invalid_argument& e) {
    throw invalid_argument(file_of(s), "initial.shape", e.what());
  }
  return st;
}

/// Diagnostics of level n from the current state (before the step n -> n+1).
struct Level {
  Vec6 J = Vec6::Zero();
  double orth = 0, strain = 0, gravity = 0;
  /// The largest rotation angle between neighbouring nodes' frames (rad) and its segment.
  double turn = 0;
  std::ptrdiff_t turn_segment = -1;
};

/// Sums in the fixed order of the energies and first maxima, the same bits for any thread count and, on a
/// field split across ranks, for any rank count (each rank evaluates its own nodes and segments).
template <class St>
Level level_of(St& st) {
  Level L;
  const auto& grid = st.grid();
  const auto& model = st.model();
  const double t = st.time(), half_dt = 0.5 * st.options().dt;
  using Vec7 = Eigen::Matrix<double, 7, 1>;
  const Vec7 sums = st.template level_sums<7>(grid.n_nodes(), [&](std::ptrdiff_t j) {
    const SE3& g = st.g()[{j}];
    const double w = st.weight(j);
    // the momentum of level n: the pre-momentum M~^n (that of step n-1, transported) plus half the external
    // load impulse of level n (half kick), so that J(0) is the initial momentum and a load's impulse is
    // the trapezoidal integral of its history; internal forces cancel in the sum (discrete Noether)
    Vec6 M = st.pre_momentum()[{j}];
    if (model.has_loads() && !grid.driven(field::NodeIndex{j})) M += (half_dt / w) * model.load(j, g, t, w);
    const Vec3 Rm = g.rotation() * M.head<3>(), Rn = g.rotation() * M.tail<3>();
    Vec7 v;
    v << w * (Rm + g.translation().cross(Rn)), w * Rn, w * model.gravity_density(j, g);
    return v;
  });
  L.J = sums.head<6>();
  L.gravity = sums(6);
  L.orth = st.template level_maxima<1>(grid.n_nodes(), [&](std::ptrdiff_t j) {
              const Mat3& R = st.g()[{j}].rotation();
              return Eigen::Matrix<double, 1, 1>((R.transpose() * R - Mat3::Identity()).cwiseAbs().maxCoeff());
            }).first(0);
  const auto [seg, at] = st.template level_maxima<2>(grid.n_segments(), [&](std::ptrdiff_t e) {
    const SE3& a = st.g()[grid.first({e})];
    const auto second = grid.second({e});
    // the last segment of a periodic beam ends at node 0 one period on
    const SE3 b = second.j == 0 ? model.wrapped(st.g()[second]) : st.g()[second];
    const Vec6 gam = model.relative(a, b) / grid.ds();
    const Mat3 Rr = a.rotation().transpose() * b.rotation();
    return Eigen::Vector2d((gam - st.gamma()[{e}]).cwiseAbs().maxCoeff(),
                           std::atan2(0.5 * lie::vee(Mat3(Rr - Rr.transpose())).norm(), 0.5 * (Rr.trace() - 1.0)));
  });
  L.strain = seg(0);
  L.turn = seg(1), L.turn_segment = at(1);
  return L;
}

struct Snapshot {
  std::vector<double> R, p, zeta, gamma;
};

template <class St>
void fill_snapshot(const St& st, Snapshot& sn, bool configuration) {
  const auto& grid = st.grid();
  if (configuration) {
    sn.R.clear(), sn.p.clear(), sn.gamma.clear();
    for (std::ptrdiff_t j = 0; j < grid.n_nodes(); ++j) {
      const SE3& g = st.g()[{j}];
      for (int r = 0; r < 3; ++r)
        for (int c = 0; c < 3; ++c) sn.R.push_back(g.rotation()(r, c));
      for (int c = 0; c < 3; ++c) sn.p.push_back(g.translation()[c]);
    }
    for (std::ptrdiff_t e = 0; e < grid.n_segments(); ++e)
      for (int c = 0; c < 6; ++c) sn.gamma.push_back(st.gamma()[{e}][c]);
  } else {
    sn.zeta.clear();
    for (std::ptrdiff_t j = 0; j < grid.n_nodes(); ++j)
      for (int c = 0; c < 6; ++c) sn.zeta.push_back(st.zeta()[{j}][c]);
  }
}

}  // namespace

double beam_stable_dt(const io::BeamScenario& s) {
  const field::Grid grid = grid_of(s);
  return model_of<lie::Cayley<SE3>>(s, grid).stable_dt(grid.ds());
}

void check_beam(const io::BeamScenario& s) {
  config::validate(s);  // a configuration built in C++ meets the rules a scenario file meets
  const double limit = beam_stable_dt(s);
  if (s.dt >= limit && !s.allow_unstable) {
    throw invalid_argument(file_of(s), "integrator.dt",
                           "value " + io::format_number(s.dt) + " is beyond the a-priori stability bound 2/omega_max = " +
                               io::format_number(limit) + " of the scheme (docs/theory/beam.md \"Stability bound\", ds = " +
                               io::format_number(s.ds()) + "); the largest stable dt is below " +
                               io::format_number(limit) + " (set integrator.allow_unstable = true to run anyway)");
  }
}

std::vector<std::string> beam_series_columns(const io::BeamScenario& s) {
  std::vector<std::string> c = {"t",      "E_d",    "E_c",    "kinetic", "potential", "Jang_x",
                                "Jang_y", "Jang_z", "Jlin_x", "Jlin_y",  "Jlin_z",    "orth_err",
                                "strain_consistency", "newton_max", "end0_x", "end0_y", "end0_z",
                                "endL_x", "endL_y", "endL_z"};
  for (long long j : s.probes)
    for (const char* x : {"_x", "_y", "_z"}) {
      std::string name = "p";  // built in steps: GCC 12's -Wrestrict misfires on "p" + to_string(j) + x
      name += std::to_string(j);
      name += x;
      c.push_back(std::move(name));
    }
  return c;
}

fs::path default_output_dir(const io::BeamScenario& s) { return fs::path("runs") / s.name; }

namespace {

/// The centred energy of the last two series rows before a failure, to tell a blow-up of the motion (an
/// instability of the step) from a solve that fails on a tame state.
struct EnergyTrail {
  double first = nan, prev = nan, t_prev = nan, last = nan, t_last = nan;
  /// The largest turn over one segment (rad) in the rows so far, with its segment and time.
  double turn_max = 0, t_turn_max = nan;
  std::ptrdiff_t seg_turn_max = -1;
  void add_turn(double t, double turn, std::ptrdiff_t seg) {
    if (turn > turn_max) turn_max = turn, t_turn_max = t, seg_turn_max = seg;
  }
  void add(double t, double e) {
    if (!std::isfinite(first)) first = e;
    prev = last, t_prev = t_last;
    last = e, t_last = t;
  }
  /// "E_c went from ... to ... just before: ..." when it changed by more than half its size between the two
  /// rows; empty otherwise.
  [[nodiscard]] std::string blow_up() const {
    if (!std::isfinite(prev) || !std::isfinite(last)) return {};
    const double size = std::max(std::abs(prev), std::abs(first));
    if (!(std::abs(last - prev) > 0.5 * size) || size == 0.0) return {};
    return "E_c went from " + io::format_number(prev) + " (t = " + io::format_number(t_prev) + ") to " +
           io::format_number(last) + " (t = " + io::format_number(t_last) +
           ") just before: the motion was blowing up (an instability of the time step, not of the solve); ";
  }
};

/// Above this turn between neighbouring frames (rad, about 46 degrees) a run is noted as coarse for its motion:
/// on the floppy rod of docs/theory/beam.md "Stability bound" such bends (up to ~85 degrees at the clamp, J =
/// 20) raised the top frequency by up to 30% over the straight rod's.
constexpr double kCoarseTurn = 0.8;

/// What a failed beam run should try: the a-priori bound is that of small motion about the straight rod, and
/// large rotations and tension can lower the true limit (docs/theory/beam.md "Stability bound": a floppy rod
/// swinging through large rotations needed 0.8 of it), so above 0.7 of the bound the hint names 0.7 of it, and,
/// with the Cayley retraction, the exp one, which ran that rod at the bound.
std::string step_hint(const io::BeamScenario& s, double bound, const EnergyTrail& trail) {
  std::string h = trail.blow_up();
  const double frac = s.dt / bound;
  if (std::isfinite(frac) && frac > 0.7) {
    h += "dt = " + io::format_number(s.dt) + " is " + io::format_number(std::round(frac * 100) / 100) +
         " of the a-priori bound " + io::format_number(bound) +
         ", which holds for small motion (large rotations and tension can lower the limit): try integrator.dt = " +
         io::format_number(0.7 * bound) + " (0.7 of the bound) or smaller";
    if (s.retraction == config::Retraction::cayley)
      h += ", or integrator.retraction = \"exp\", whose strains do not stiffen in large bends as the Cayley "
           "ones do (it keeps the a-priori bound in large motion: docs/theory/beam.md \"Stability bound\")";
  } else {
    h += "dt = " + io::format_number(s.dt) + " (a-priori bound " + io::format_number(bound) +
         "); try a smaller integrator.dt or larger integrator.newton_maxit";
  }
  if (s.noise_mode != field::NoiseMode::none && !s.truncate)
    h += ", or noise.truncate = true (bounded increments) or a smaller noise.theta";
  if (trail.turn_max > kCoarseTurn)
    h += "; the grid is coarse for this motion: segment " + std::to_string(trail.seg_turn_max) + " turned by " +
         io::format_number(std::round(trail.turn_max * 180.0 / std::numbers::pi)) + " degrees (t = " +
         io::format_number(std::round(trail.t_turn_max * 1e4) / 1e4) +
         "), and such bends lower the step's stability limit below the a-priori bound: a larger grid.J helps too";
  return h;
}

/// One path: into the output folder `out_dir`, or, with `rows` given (the paths of an ensemble), without
/// any file, the series rows kept in `rows` (the numbers series.csv would hold). A single run with checkpoints
/// checkpoints at the top of a level (run/checkpoint.hpp); `resume` continues one.
WaveRunResult beam_path(const io::BeamScenario& s, const fs::path& out_dir, const RunOptions& options,
                        std::vector<std::vector<double>>* rows, const ResumeFrom* resume = nullptr,
                        field::FieldExchange* exchange = nullptr, const std::function<void()>& ready = {}) {
  const auto t0 = Clock::now();
  check_beam(s);
  const bool checkpointing = !rows && (s.checkpoints() || options.stop_at > 0 || resume);
  // a split field's other ranks (rows, no files) follow rank 0's checkpoint levels and read a resumed state
  const bool follows_checkpoints = exchange && rows && (s.checkpoints() || options.stop_at > 0 || resume);
  const bool exp = s.retraction == config::Retraction::exp, type_ii = s.method == config::FieldMethod::type_ii;
  AnyStepper any = type_ii ? (exp ? AnyStepper(make<lie::Exp<SE3>, TypeII>(s)) : AnyStepper(make<lie::Cayley<SE3>, TypeII>(s)))
                           : (exp ? AnyStepper(make<lie::Exp<SE3>>(s)) : AnyStepper(make<lie::Cayley<SE3>>(s)));
  std::optional<io::OutputDir> dir;
  if (resume && !rows)
    dir.emplace(io::OutputDir::reopen(out_dir));
  else if (checkpointing)
    dir.emplace(io::OutputDir::in_place(out_dir, options.force));
  else if (!rows)
    dir.emplace(out_dir, options.force);
  const auto tmp = [&] { return dir->tmp(); };
  WaveRunResult r;
  r.cfl_dt = beam_stable_dt(s);
  r.notes = io::ignored_key_notes(s);
  // warn when a noise increment is large, |theta_ang| > 0.5 rad per step at 4 sigma of dW
  // (docs/theory/beam.md "Stability bound")
  if (s.noise_mode != field::NoiseMode::none) {
    // modes: the largest standard deviation per sqrt(dt) of the angular increment over the nodes,
    // sqrt(sum_k |Theta_k,ang(s_j)|^2)
    double ang = std::sqrt(s.theta[0] * s.theta[0] + s.theta[1] * s.theta[1] + s.theta[2] * s.theta[2]);
    if (s.noise_mode == field::NoiseMode::modes) {
      ang = 0.0;
      for (std::size_t j = 0; j < static_cast<std::size_t>(s.n_nodes()); ++j) {
        double q = 0.0;
        for (const auto& m : s.noise_modes)
          if (j < m.at_nodes.size())
            for (std::size_t c = 0; c < 3; ++c) q += m.at_nodes[j][c] * m.at_nodes[j][c];
        ang = std::max(ang, std::sqrt(q));
      }
    }
    const double big = 4.0 * ang * std::sqrt(s.dt);
    if (big > 0.5)
      r.notes.push_back("large noise increments: |Theta_ang| 4 sqrt(dt) = " + io::format_number(big) +
                        " rad per step (> 0.5); the local Newton solve may fail: use a smaller integrator.dt or "
                        "noise.truncate = true");
  }
  double integrate_s = 0;
  double c_min = INFINITY, c_max = -INFINITY, J_drift = 0, orth_max = 0;
  EnergyTrail trail;
  // the momenta discrete Noether keeps: all six with free or ring ends and no external forces; with a
  // periodic translation (bc.shift) the linear momentum and the angular momentum about the shift's axis.
  // `approx` keeps them only approximately (docs/theory/beam.md "Energies and momentum map", ~1 %): its drift
  // is written under the same conditions, as an informative number
  const bool conserved = s.loads.empty() && s.distributed_loads.empty() && s.gravity == std::array<double, 3>{} &&
                         s.damping_angular == 0.0 && s.damping_linear == 0.0 &&
                         ((s.bc_left == field::End::free && s.bc_right == field::End::free) || s.periodic());
  const Vec3 shift = s.periodic() ? Vec3(s.shift[0], s.shift[1], s.shift[2]) : Vec3::Zero();
  const bool energy_conserved = s.loads.empty() && s.distributed_loads.empty() && s.damping_angular == 0.0 &&
                                s.damping_linear == 0.0 && s.noise_mode == field::NoiseMode::none && s.bc_left != field::End::prescribed &&
                                s.bc_right != field::End::prescribed;
  std::vector<std::pair<double, std::string>> pvd;
  std::visit(
      [&](auto& st) {
        using St = std::decay_t<decltype(st)>;
        const auto& grid = st.grid();
        const std::ptrdiff_t n_nodes = grid.n_nodes();
        // the nodes whose positions a row holds: the two ends, then the probes
        std::vector<std::ptrdiff_t> row_nodes = {0, n_nodes - 1};
        for (long long j : s.probes) row_nodes.push_back(static_cast<std::ptrdiff_t>(j));
        if (exchange) st.decompose(*exchange);  // this rank steps its block; the outputs gather the blocks
        std::optional<io::TableCsvWriter> csv;
        if (resume && !rows)
          csv.emplace(tmp() / "series.csv", beam_series_columns(s), io::TableCsvWriter::Resume{});
        else if (!rows)
          csv.emplace(tmp() / "series.csv", beam_series_columns(s));
        std::optional<io::FieldsH5Writer> h5;
        if (s.fields && !rows) {
          std::vector<double> pos;
          for (long long j = 0; j < n_nodes; ++j) pos.push_back(s.s_of(j));
          const std::size_t nn = static_cast<std::size_t>(n_nodes), ns = static_cast<std::size_t>(grid.n_segments());
          std::vector<io::FieldSpec> specs{
              {"R", {nn, 3, 3}, {}, "director frames R_j^n (columns d1, d2, d3; body to spatial)"},
              {"p", {nn, 3}, {}, "centre line p_j^n"},
              {"zeta", {nn, 6}, {{"time_offset", 0.5 * s.dt}}, "body velocity zeta_j^{n+1/2} = (omega, v)"},
              {"gamma", {ns, 6}, {}, "strain gamma_{j+1/2}^n = (kappa, Gamma) on the segments"}};
          if (resume)
            h5.emplace(tmp() / "fields.h5", std::move(specs), io::FieldsH5Writer::Resume{});
          else if (checkpointing)
            h5.emplace(tmp() / "fields.h5", pos, std::move(specs), "beam", io::FieldsH5Writer::CrashSafe{});
          else
            h5.emplace(tmp() / "fields.h5", pos, std::move(specs), "beam");
        }
        if (dir) dir->mark_running();
        if (ready) ready();  // a split field: rank 0 starts the others; they wait for it here
        ProgressLine line(s.steps, s.t_end, options.progress == Progress::automatic);
        const std::vector<std::string> columns = beam_series_columns(s);
        std::vector<double> row;
        if (rows) rows->reserve(static_cast<std::size_t>(s.steps / s.every + 2));  // the output levels
        Vec6 J0 = Vec6::Zero();
        Snapshot sn;
        long long k_vtk = 0;
        // Everything the next step and the outputs read (run/checkpoint.hpp), at the top of a level.
        auto state = [&](StateIO& a) {
          {
            StateIO::Scope scope(a, "stepper");
            st.checkpoint(a);
          }
          a("run/J0", J0);
          a("run/c_min", c_min);
          a("run/c_max", c_max);
          a("run/J_drift", J_drift);
          a("run/orth_max", orth_max);
          a("run/rows", r.rows);
          a("run/snapshots", r.snapshots);
          a("run/steps", r.steps);
          a("trail/first", trail.first);
          a("trail/prev", trail.prev);
          a("trail/t_prev", trail.t_prev);
          a("trail/last", trail.last);
          a("trail/t_last", trail.t_last);
          a("trail/turn_max", trail.turn_max);
          a("trail/t_turn_max", trail.t_turn_max);
          long long seg = trail.seg_turn_max;
          a("trail/seg_turn_max", seg);
          trail.seg_turn_max = static_cast<std::ptrdiff_t>(seg);
          // the .vtp files written so far, by their times (beam_<k>.vtp)
          a("vtk/count", k_vtk);
          std::vector<double> times(static_cast<std::size_t>(k_vtk));
          for (std::size_t i = 0; i < pvd.size() && i < times.size(); ++i) times[i] = pvd[i].first;
          a("vtk/times", times);
          if (a.restoring()) {
            pvd.clear();
            for (long long i = 0; i < k_vtk; ++i)
              pvd.emplace_back(times[static_cast<std::size_t>(i)], "beam_" + std::to_string(i) + ".vtp");
          }
          if (csv) {
            StateIO::Scope scope(a, "series");
            csv->checkpoint(a);
          }
          if (h5) {
            StateIO::Scope scope(a, "fields");
            h5->checkpoint(a);
          }
        };
        std::optional<Checkpointer> checkpoints;
        if (checkpointing || follows_checkpoints) {
          checkpoints.emplace(checkpointing ? tmp() : out_dir, s, checkpointing ? io::to_toml(s) : std::string());
          checkpoints->stop_at(options.stop_at);
        }
        long long n0 = 0;
        if (resume) {
          io::CheckpointLoader loader(resume->data, resume->file);
          state(loader);
          n0 = resume->data.step;
        }
        const auto tb = Clock::now();
        for (long long n = n0; n <= s.steps; ++n) {
          if (checkpoints && n > n0 && detail::checkpoint_due(*checkpoints, n, exchange)) {
            st.gather(St::everything);  // a split field: its whole state on rank 0, which writes
            if (checkpointing) checkpoints->write(n, s.time_at(n), state);
            if (checkpoints->stops_at(n)) {  // level n is written by the resumed run
              r.stopped = true;
              break;
            }
          }
          const bool out = n % s.every == 0 || n == s.steps;
          const bool snap_level = (s.fields || s.vtk) && (n % s.fields_every == 0 || n == s.steps);
          const bool snap = !rows && snap_level;
          Level L;
          row.clear();
          // a split field: the snapshot's nodes and segments on rank 0; the row's sums and maxima are
          // reduced over the ranks (every rank has the row)
          if (snap_level) st.gather(St::configurations | St::strains);
          if (out) L = level_of(st);
          if (n == 0) J0 = L.J;
          if (out) {
            row = {s.time_at(n)};
            row.resize(14, nan);
            for (int c = 0; c < 6; ++c) row[5 + static_cast<std::size_t>(c)] = L.J[c];
            row[11] = L.orth, row[12] = L.strain;
            for (const SE3& g : st.configurations_at(row_nodes))
              for (int c = 0; c < 3; ++c) row.push_back(g.translation()[c]);
            orth_max = std::max(orth_max, L.orth);
            if (conserved) {
              const Vec6 d = L.J - J0;
              J_drift = std::max(J_drift, shift.norm() == 0.0 ? d.cwiseAbs().maxCoeff()
                                                              : std::max(d.tail<3>().cwiseAbs().maxCoeff(),
                                                                         std::abs(d.head<3>().dot(shift.normalized()))));
            }
          }
          if (snap) fill_snapshot(st, sn, true);
          field::LevelEnergy E;
          int newton = 0;
          bool failed = false;
          if (n == s.steps) {
            if (out || snap) {
              const auto t_int = Clock::now();
              E = st.energy_now(&newton);
              integrate_s -= seconds(Clock::now() - t_int);  // diagnostics, not stepping
            }
          } else {
            const field::StepReport rep = st.step(out ? &E : nullptr);
            newton = rep.iterations;
            if (!rep.ok) {
              RunFailure f;
              f.step = n + 1;
              f.t = s.time_at(n);
              f.node = static_cast<int>(rep.node);
              f.residual = rep.residual;
              f.message = rep.message + (rep.message.find("segment") == std::string::npos
                                             ? " at node " + std::to_string(rep.node) : std::string());
              f.hint = step_hint(s, r.cfl_dt, trail);
              r.failure = f;
              failed = true;
              E = field::LevelEnergy{nan, nan, nan};
            } else {
              r.steps = n + 1;
            }
          }
          // Health of the level: poses, velocities and strains are checked in every step (the stepper's
          // sweeps); the row holds every reported value of the level (energies, whose finiteness also bounds
          // the strains' stresses, the momentum map of the momenta, orth_err, strain_consistency, positions).
          // A non-finite one stops the run before the level is written.
          bool level_bad = false;
          if (out) {
            const double Vg = L.gravity;
            row[1] = E.E_d() + Vg, row[2] = E.E_c() + Vg;
            row[3] = 0.5 * (E.kinetic_before + E.kinetic_after), row[4] = E.potential + Vg;
            row[13] = newton;
            if (const std::ptrdiff_t bad = failed ? -1 : health::first_non_finite(row); bad >= 0) {
              RunFailure f;
              f.step = n;
              f.t = s.time_at(n > 0 ? n - 1 : 0);
              f.message = "non-finite " + columns[static_cast<std::size_t>(bad)] + " = " +
                          io::format_number(row[static_cast<std::size_t>(bad)]) + " at level " + std::to_string(n) +
                          " (t = " + io::format_number(s.time_at(n)) + ")";
              f.hint = "values beyond the double range: " + step_hint(s, r.cfl_dt, trail) +
                       "; or check the loads and initial.velocity";
              r.failure = f;
              r.steps = n > 0 ? n - 1 : 0;
              failed = level_bad = true;
            } else {
              if (csv) csv->row(row);
              if (rows) rows->push_back(row);
              ++r.rows;
              if (std::isfinite(row[2])) c_min = std::min(c_min, row[2]), c_max = std::max(c_max, row[2]);
              trail.add(row[0], row[2]);
              trail.add_turn(row[0], L.turn, L.turn_segment);
            }
          }
          if (snap_level && !failed && n < s.steps) st.gather(St::velocities);  // of the step just taken
          if (snap && !failed) {
            if (n < s.steps) fill_snapshot(st, sn, false);  // zeta^{n+1/2} of the step just taken
            else sn.zeta.assign(static_cast<std::size_t>(n_nodes) * 6, nan);
          }
          if (snap && h5 && !level_bad) {
            if (sn.zeta.empty()) sn.zeta.assign(static_cast<std::size_t>(n_nodes) * 6, nan);
            const std::span<const double> f[] = {sn.R, sn.p, sn.zeta, sn.gamma};
            h5->append(s.time_at(n), f);
            ++r.snapshots;
          }
          if (snap && s.vtk && !level_bad) {
            std::vector<double> d[3];
            for (std::ptrdiff_t j = 0; j < n_nodes; ++j)
              for (int c = 0; c < 3; ++c)
                for (int r3 = 0; r3 < 3; ++r3) d[c].push_back(sn.R[static_cast<std::size_t>(j * 9 + r3 * 3 + c)]);
            const std::string name = "beam_" + std::to_string(k_vtk++) + ".vtp";
            io::write_vtp_polyline(tmp() / name, sn.p, {{"d1", 3, d[0]}, {"d2", 3, d[1]}, {"d3", 3, d[2]}});
            pvd.emplace_back(s.time_at(n), name);
          }
          if (failed) break;
          line.update(n, s.time_at(n));
        }
        line.finish();
        integrate_s += seconds(Clock::now() - tb);
        r.complete = !r.failure && !r.stopped;
        r.t_final = r.stopped ? s.time_at(r.steps) : r.complete ? s.t_end : r.failure->t;
        if (r.stopped) {
          if (csv) csv->close();
          if (h5) h5->close();
          return;
        }
        st.gather(St::configurations);  // a split field: the final state of every block, on rank 0
        r.newton_max = st.newton_max();
        // E_c_fluctuation measures how well the scheme keeps the energy, so it is written only when the
        // continuous problem conserves it: no loads, damping, noise or prescribed end motion (gravity is
        // part of E_c, clamped and free ends do no work).
        if (energy_conserved) r.diagnostics.emplace_back("E_c_fluctuation", c_max - c_min);
        r.diagnostics.insert(r.diagnostics.end(), {{"orth_err_max", orth_max},
                         {"newton_mean", r.steps > 0 ? static_cast<double>(st.newton_total()) /
                                                           (static_cast<double>(r.steps) * static_cast<double>(n_nodes))
                                                     : 0.0}});
        if (conserved) r.diagnostics.push_back({"momentum_max_drift", J_drift});
        if (csv) csv->close();
        if (h5) {
          h5->close();
          // ParaView's view of fields.h5; a ring (periodic without shift) closes the polyline
          io::write_fields_xdmf(tmp() / "fields.xdmf", tmp() / "fields.h5",
                                io::beam_fields_xdmf(static_cast<std::size_t>(n_nodes),
                                                     static_cast<std::size_t>(grid.n_segments()),
                                                     s.periodic() && s.shift == std::array<double, 3>{}));
        }
        if (s.fields_csv && !rows) {  // the last good state: s, position, Hamilton quaternion (qw >= 0)
          io::TableCsvWriter f(tmp() / "final_fields.csv", {"s", "x", "y", "z", "qw", "qx", "qy", "qz"});
          for (std::ptrdiff_t j = 0; j < n_nodes; ++j) {
            const SE3& g = st.g()[{j}];
            const Eigen::Quaterniond q = lie::SO3(g.rotation()).quaternion();
            const double row_f[] = {s.s_of(j), g.translation().x(), g.translation().y(), g.translation().z(),
                                    q.w(), q.x(), q.y(), q.z()};
            f.row(row_f);
          }
          f.close();
        }
      },
      any);
  r.integrate_s = integrate_s;
  if (r.stopped) {
    r.out_dir = out_dir;
    if (dir) dir->keep_for_resume();  // (not on a split field's other ranks)
    r.total_s = seconds(Clock::now() - t0);
    return r;
  }
  if (trail.turn_max > kCoarseTurn)
    r.notes.push_back("coarse grid for this motion: segment " + std::to_string(trail.seg_turn_max) + " turned by " +
                      io::format_number(std::round(trail.turn_max * 180.0 / std::numbers::pi)) +
                      " degrees relative to its neighbour (t = " +
                      io::format_number(std::round(trail.t_turn_max * 1e4) / 1e4) +
                      (s.retraction == config::Retraction::cayley
                           ? "); bends like this lower the stable step below the a-priori bound and cost accuracy: a "
                             "larger grid.J resolves them; the exp retraction's strains do not stiffen in them as the "
                             "Cayley ones do"
                           : "); bends like this cost accuracy (with the exp retraction they lower the stable step far "
                             "less than with Cayley): a larger grid.J resolves them"));
  if (rows) {
    r.total_s = seconds(Clock::now() - t0);
    return r;
  }
  if (s.vtk) io::write_pvd(tmp() / "beam.pvd", pvd);
  make_field_plots(tmp(), s.plots, "lievi_beam_plot.py", "LIEVI_BEAM_PLOT_SCRIPT", s.name, r.notes,
                   s.animation && s.fields ? std::vector<std::string>{"--animation"} : std::vector<std::string>{});
  r.out_dir = out_dir;
  r.total_s = seconds(Clock::now() - t0);
  detail::json j = detail::field_summary(io::resolved_entries(s), s.name, r, s.steps, s.n_nodes());
  j["method"] = {{"id", config::id(s.method)},
                 {"variant", config::id(s.variant)},
                 {"order", method_order(s)},
                 {"retraction", config::id(s.retraction)}};
  j["stable_dt_bound"] = r.cfl_dt;
  detail::write_json(tmp() / "summary.json", j);
  dir->commit();
  return r;
}

}  // namespace

WaveRunResult run_beam(const io::BeamScenario& s, const fs::path& out_dir, const RunOptions& options,
                       const ResumeFrom* resume) {
  if (!options.comm) return beam_path(s, out_dir, options, nullptr, resume);
  // Under mpirun: the beam's nodes in blocks over the ranks (domain decomposition); rank 0 writes, also the
  // checkpoints, which every rank reads on resume (any rank count).
  check_beam(s);
  detail::CommExchange exchange(*options.comm, s.n_nodes());
  parallel::Comm& comm = *options.comm;
  if (comm.rank() != 0) {
    // this rank's block, no files: built while rank 0 builds its own, stepped once rank 0 says so
    RunOptions o;
    o.progress = Progress::never;
    o.stop_at = options.stop_at;
    std::vector<std::vector<double>> rows;
    bool waited = false;
    try {
      return beam_path(s, out_dir, o, &rows, resume, &exchange, [&] {
        waited = true;
        parallel::wait_for_work(comm);
      });
    } catch (const parallel::JobEnded&) {
      throw;
    } catch (...) {
      // failed while building: rank 0 failed too (the same scenario) and ends the job, or it went on and
      // this failure is this rank's own
      if (!waited) parallel::wait_for_work(comm);
      throw;
    }
  }
  if (!resume) io::check_output_dir(out_dir, options.force);
  bool started = false;
  try {
    return beam_path(s, out_dir, options, nullptr, resume, &exchange, [&] {
      parallel::start_work(comm);
      started = true;
    });
  } catch (...) {
    if (started) comm.abort(1);  // the other ranks are inside the step's exchanges
    throw;
  }
}

namespace detail {
EnsembleModel beam_ensemble_model(const io::BeamScenario& s) {
  EnsembleModel m;
  m.columns = beam_series_columns(s);
  m.quantiles = s.quantiles;
  // each path the single run of its path with the series kept in memory (inner loops serial: nested
  // parallelism is off), without files of its own
  m.run = [&s](std::uint32_t k) {
    io::BeamScenario sk = s;
    sk.path = k;
    sk.fields = sk.vtk = sk.plots = sk.fields_csv = false;
    sk.checkpoint_every = 0;
    sk.checkpoint_wall = 0.0;
    if (static_cast<long long>(k) == test_nan_path()) {
      const double nan = std::numeric_limits<double>::quiet_NaN();
      sk.theta.fill(nan);
      for (auto& mode : sk.noise_modes) {
        mode.theta.fill(nan);
        for (auto& w : mode.at_nodes) w.fill(nan);
      }
    }
    RunOptions o;
    o.force = true;
    o.progress = Progress::never;
    PathRun p;
    p.result = beam_path(sk, {}, o, &p.rows);
    return p;
  };
  m.finish = [&s](WaveRunResult& total, std::uint32_t first, long long count, const SliceInfo* slice,
                  const fs::path& folder, Clock::time_point t0) {
    total.cfl_dt = beam_stable_dt(s);
    // the first path's notes are the scenario's (ignored keys, large increments), not its output switches'
    std::erase_if(total.notes, [](const std::string& n) { return n.rfind("plots not made", 0) == 0; });
    total.notes.emplace_back("ensemble of " + std::to_string(count) + " paths from noise.path = " +
                             std::to_string(first) +
                             " (each the single run of its path); fields.h5 and the ParaView series are not "
                             "written for ensembles");
    make_field_plots(folder, s.plots, "lievi_beam_plot.py", "LIEVI_BEAM_PLOT_SCRIPT", s.name, total.notes);
    total.total_s = seconds(Clock::now() - t0);
    json j = field_summary(io::resolved_entries(s), s.name, total, s.steps, s.n_nodes());
    j["method"] = {{"id", config::id(s.method)},
                   {"variant", config::id(s.variant)},
                   {"order", method_order(s)},
                   {"retraction", config::id(s.retraction)}};
    j["stable_dt_bound"] = total.cfl_dt;
    add_slice(j, slice);
    write_json(folder / "summary.json", j);
  };
  return m;
}
}  // namespace detail

WaveRunResult run_beam_ensemble(const io::BeamScenario& s, long long paths, const fs::path& out_dir,
                                const RunOptions& options, const ResumeFrom* resume) {
  detail::check_ensemble(s.noise_mode, s.path, paths, file_of(s));
  check_beam(s);
  return detail::run_field_ensemble(s, paths, out_dir, options, resume, detail::beam_ensemble_model(s));
}

// ---- BeamSimulation: the run's stepper, stepped by the caller ----

struct BeamSimulation::Impl {
  io::BeamScenario s;
  std::shared_ptr<detail::SimulationControl> control;
  AnyStepper st;
  long long steps = 0;
  bool failed = false;
  double bound = 0.0;
};

namespace {
AnyStepper make_any(const io::BeamScenario& s, const std::shared_ptr<detail::SimulationControl>& c) {
  const bool exp = s.retraction == config::Retraction::exp, type_ii = s.method == config::FieldMethod::type_ii;
  return type_ii ? (exp ? AnyStepper(make<lie::Exp<SE3>, TypeII>(s, c)) : AnyStepper(make<lie::Cayley<SE3>, TypeII>(s, c)))
                 : (exp ? AnyStepper(make<lie::Exp<SE3>>(s, c)) : AnyStepper(make<lie::Cayley<SE3>>(s, c)));
}
}  // namespace

BeamSimulation::BeamSimulation(const io::BeamScenario& s, const std::vector<PointLoad>& loads) {
  check_beam(s);
  auto control = std::make_shared<detail::SimulationControl>();
  for (const PointLoad& l : loads) {
    if (l.node < 0 || l.node >= s.n_nodes())
      throw invalid_argument("", "loads",
                             "node " + std::to_string(l.node) + " not allowed: the nodes are 0 to " +
                                 std::to_string(s.n_nodes() - 1));
    control->load_nodes.push_back(l.node);
  }
  std::sort(control->load_nodes.begin(), control->load_nodes.end());
  if (std::adjacent_find(control->load_nodes.begin(), control->load_nodes.end()) != control->load_nodes.end())
    throw invalid_argument("", "loads", "a node is named twice");
  control->wrench.assign(control->load_nodes.size(), Vec6::Zero());
  control->body.assign(control->load_nodes.size(), 0);
  // the initial wrenches act from level 0 (the start's half kick included)
  for (const PointLoad& l : loads) {
    const auto k = static_cast<std::size_t>(
        std::lower_bound(control->load_nodes.begin(), control->load_nodes.end(), l.node) - control->load_nodes.begin());
    for (int i = 0; i < 6; ++i) {
      if (!std::isfinite(l.wrench[static_cast<std::size_t>(i)]))
        throw invalid_argument("", "loads", "node " + std::to_string(l.node) + ": wrench component " +
                                                 std::to_string(i) + " is not finite");
      control->wrench[k][i] = l.wrench[static_cast<std::size_t>(i)];
    }
    control->body[k] = l.body ? 1 : 0;
  }
  impl_ = std::make_unique<Impl>(Impl{s, control, make_any(s, control), 0, false, beam_stable_dt(s)});
}
BeamSimulation::~BeamSimulation() = default;
BeamSimulation::BeamSimulation(BeamSimulation&&) noexcept = default;
BeamSimulation& BeamSimulation::operator=(BeamSimulation&&) noexcept = default;

std::optional<RunFailure> BeamSimulation::step(long long n) {
  Impl& m = *impl_;
  if (m.failed)
    throw std::logic_error("the simulation failed at step " + std::to_string(m.steps + 1) +
                           " and cannot step on (its state is that of the failed step)");
  return std::visit(
      [&](auto& st) -> std::optional<RunFailure> {
        for (long long k = 0; k < n; ++k) {
          const field::StepReport rep = st.step();
          if (!rep.ok) {
            RunFailure f;
            f.step = m.steps + 1;
            f.t = st.time();
            f.node = static_cast<int>(rep.node);
            f.residual = rep.residual;
            f.message = rep.message + (rep.message.find("segment") == std::string::npos
                                           ? " at node " + std::to_string(rep.node) : std::string());
            f.hint = step_hint(m.s, m.bound, EnergyTrail{});  // (no series rows: no energy trail)
            m.failed = true;
            return f;
          }
          ++m.steps;
        }
        return std::nullopt;
      },
      m.st);
}
void BeamSimulation::set_end_pose(int end, const double* position, const double* quaternion) {
  const field::End bc = end == 0 ? impl_->s.bc_left : impl_->s.bc_right;
  const char* key = end == 0 ? "bc.left" : "bc.right";
  if (end != 0 && end != 1) throw invalid_argument("", "end", "must be left (0) or right (1)");
  if (bc != field::End::prescribed)
    throw invalid_argument("", key,
                           "the end is not prescribed: set_end_pose drives an end whose " + std::string(key) +
                               " = \"prescribed\" (with a pose table for its start)");
  double q2 = 0.0;
  for (int i = 0; i < 4; ++i) q2 += quaternion[i] * quaternion[i];
  bool finite = std::isfinite(q2);
  for (int i = 0; i < 3; ++i) finite = finite && std::isfinite(position[i]);
  if (!finite || std::abs(std::sqrt(q2) - 1.0) > 1e-6)
    throw invalid_argument("", "quaternion",
                           "the pose needs a finite position and a unit quaternion (w, x, y, z), |q| within 1e-6 of 1");
  const Eigen::Quaterniond q(quaternion[0], quaternion[1], quaternion[2], quaternion[3]);
  impl_->control->pose[end] = SE3(Mat3(q.normalized().toRotationMatrix()), Vec3(position[0], position[1], position[2]));
}
void BeamSimulation::set_load(std::ptrdiff_t node, const double* wrench, bool body) {
  auto& c = *impl_->control;
  const auto it = std::lower_bound(c.load_nodes.begin(), c.load_nodes.end(), node);
  if (it == c.load_nodes.end() || *it != node) {
    std::string named;
    for (std::ptrdiff_t j : c.load_nodes) named += (named.empty() ? "" : ", ") + std::to_string(j);
    throw invalid_argument("", "node",
                           "node " + std::to_string(node) + " takes no load from the caller: the simulation was made "
                           "with load_nodes = [" + named + "]");
  }
  Vec6 w;
  for (int i = 0; i < 6; ++i) {
    if (!std::isfinite(wrench[i]))
      throw invalid_argument("", "wrench", "component " + std::to_string(i) + " is not finite");
    w[i] = wrench[i];
  }
  const auto k = static_cast<std::size_t>(it - c.load_nodes.begin());
  c.wrench[k] = w;
  c.body[k] = body ? 1 : 0;
}
void BeamSimulation::set_noise_scale(double s) {
  if (!(s >= 0.0) || !std::isfinite(s))
    throw invalid_argument("", "noise_scale", "value " + io::format_number(s) + " must be finite and >= 0");
  std::visit([s](auto& st) { st.set_noise_scale(s); }, impl_->st);
}
bool BeamSimulation::failed() const { return impl_->failed; }
double BeamSimulation::t() const { return std::visit([](const auto& st) { return st.time(); }, impl_->st); }
long long BeamSimulation::steps() const { return impl_->steps; }
double BeamSimulation::dt() const { return impl_->s.dt; }
std::ptrdiff_t BeamSimulation::n_nodes() const {
  return std::visit([](const auto& st) { return st.grid().n_nodes(); }, impl_->st);
}
std::ptrdiff_t BeamSimulation::n_segments() const {
  return std::visit([](const auto& st) { return st.grid().n_segments(); }, impl_->st);
}
const double* BeamSimulation::poses() const {
  return std::visit([](const auto& st) { return st.g().data()->data(); }, impl_->st);
}
const double* BeamSimulation::velocities() const {
  return std::visit([](const auto& st) { return st.zeta().data()->data(); }, impl_->st);
}
const double* BeamSimulation::strains() const {
  return std::visit([](const auto& st) { return st.gamma().data()->data(); }, impl_->st);
}
const double* BeamSimulation::pre_momenta() const {
  return std::visit([](const auto& st) { return st.pre_momentum().data()->data(); }, impl_->st);
}
BeamSimulation::Energies BeamSimulation::energies() {
  return std::visit(
      [](auto& st) {
        const Level L = level_of(st);
        const field::LevelEnergy E = st.energy_now();
        return Energies{E.E_d() + L.gravity, E.E_c() + L.gravity, E.kinetic_before, E.kinetic_after,
                        E.potential + L.gravity};
      },
      impl_->st);
}

}  // namespace lievi::run
