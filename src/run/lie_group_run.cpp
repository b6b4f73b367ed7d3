/// @file src/run/lie_group_run.cpp
/// @brief The lie_group run pipeline: the catalogue system from the scenario, the step loop (the Lie-group DEL in
/// (R, Pi), its reduced form in (Pi, Gamma), Moser-Veselov's discrete Lagrangian, or the RK4 comparator),
/// series.csv, summary.json, plots; and LieGroupSimulation, the same step taken by the caller (Python).
///
/// The steps are the library's (integrators/lie_del/lie_del.hpp (1)-(3), discrete_reduced.hpp (1)-(3)) written
/// on its public pieces (psi/solve_xi, grad_R) so that the Newton warm start — the library keeps it private — is
/// part of the run's state: a checkpoint saves it and a resumed run continues bit for bit.
#include "lievi/run/lie_group_run.hpp"

#include <Eigen/Cholesky>
#include <Eigen/LU>
#include <cmath>
#include <limits>
#include <memory>
#include <optional>
#include <stdexcept>

#include "lievi/core/error.hpp"
#include "lievi/integrators/lie_del/discrete_reduced.hpp"
#include "lievi/integrators/lie_del/lie_del.hpp"
#include "lievi/lie/retraction/cayley.hpp"
#include "lievi/lie/retraction/exp.hpp"
#include "lievi/models/lie_mechanics.hpp"
#include "lievi/run/lie_group_sim.hpp"
#include "lievi/run/plots.hpp"
#include "state_run.hpp"

namespace lievi::run {
namespace {

namespace fs = std::filesystem;
namespace ld = integrators::lie_del;
namespace lm = models::lie_mechanics;
using namespace detail;  // the state-vector run pipeline (state_run.hpp)
using lie::Mat3;
using lie::SO3;
using lie::Vec3;
using Method = config::LieMethod;
constexpr double nan = std::numeric_limits<double>::quiet_NaN();

Vec3 to_vec3(const std::array<double, 3>& a) { return Vec3(a[0], a[1], a[2]); }

/// Call f with the catalogue model of the scenario's system (parameters from the scenario).
template <class F>
auto with_system(const io::LieGroupScenario& s, F&& f) {
  switch (s.system) {
    case config::LieSystem::heavy_top: {
      lm::HeavyTop m;
      m.I = s.inertia, m.m = s.mass, m.g = s.gravity, m.chi = to_vec3(s.chi);
      return f(m);
    }
    case config::LieSystem::pendulum_3d: {
      lm::ThreeDPendulum m;
      m.J = s.inertia, m.m = s.mass, m.g = s.gravity, m.rho = to_vec3(s.chi);
      return f(m);
    }
    case config::LieSystem::floating_body: {
      lm::FloatingRigidBody m;
      m.I_c = s.inertia, m.m = s.mass, m.g = s.gravity, m.c = to_vec3(s.chi);
      m.k = s.spring_stiffness, m.a = to_vec3(s.spring_point);
      return f(m);
    }
    case config::LieSystem::free_body: break;
  }
  lm::FreeRigidBody m;
  m.I = s.inertia;
  return f(m);
}

/// Call f with the system's model and the retraction type on its group (Cayley for the methods that read none).
template <class F>
auto with_model(const io::LieGroupScenario& s, F&& f) {
  return with_system(s, [&](const auto& m) {
    using G = typename std::decay_t<decltype(m)>::Group;
    if (s.uses_retraction() && s.retraction == config::LieRetraction::exp) return f(m, lie::Exp<G>{});
    return f(m, lie::Cayley<G>{});
  });
}

/// What to change, by scenario key: the step size always; the iteration limit and tolerance after a Newton
/// failure; an implicit method when RK4 failed.
std::string hint_of(const io::LieGroupScenario& s, const std::string& message) {
  std::string h = "the step failed at dt = " + io::format_number(s.dt) + "; try a smaller integrator.dt, e.g. " +
                  io::format_number(s.dt / 10.0) + " (dt/10 keeps t_end/dt an integer)";
  if (s.method == Method::rk4)
    h += ", or integrator.method = \"del\" (variational: bounded energy)";
  else if (s.floating() && message.find("converge") == std::string::npos)
    h += " (a body falling freely speeds up without bound: a shorter integrator.t_end, or model.spring_stiffness > 0)";
  else if (message.find("converge") != std::string::npos)
    h += ", or raise integrator.max_iterations (now " + std::to_string(s.max_iterations) +
         ") or integrator.newton_tol (now " + io::format_number(s.newton_tol) + ")";
  return h;
}

/// The failure message of a solver in the scenario's words: its diagnosis up to "; " (after which the library
/// advises on its C++ options).
std::string scenario_message(const char* message) {
  std::string m = message && *message ? message : "Newton did not converge";
  if (const auto cut = m.find("; "); cut != std::string::npos) m.resize(cut);
  return m;
}

/// The step of a system from level k-1 to level k, shared by the run loop and LieGroupSimulation: the state, the
/// Newton warm start, and the reported values of a level.
template <class M, class Rt>
struct Stepper {
  static constexpr bool gravitating = ld::AdvectedSO3Model<M>;
  static constexpr bool free_body = std::is_same_v<M, lm::FreeRigidBody>;
  using Del = ld::LieDel<M, Rt>;
  using Mv = ld::DiscreteReducedDel<lm::MoserVeselovBody>;

  const io::LieGroupScenario& s;
  M m;
  solve::NewtonOptions nopt;
  Del del;
  std::optional<Mv> mv;
  Mat3 Iinv;
  // the state of level k: attitude, body momentum, advected vertical (del-reduced: its own; else R^T e3)
  Mat3 R = Mat3::Identity();
  Vec3 Pi = Vec3::Zero(), Gamma = Vec3::UnitZ();
  // the Newton warm start (as LieDel's: the last two xi; Moser-Veselov: the last Cayley coordinate z of F)
  Vec3 xi = Vec3::Zero(), xi_prev = Vec3::Zero();
  long long warm = 0;

  static solve::NewtonOptions newton_options(const io::LieGroupScenario& s) {
    solve::NewtonOptions o;
    o.residual_tol = s.newton_tol;
    o.max_iterations = static_cast<int>(s.max_iterations);
    return o;
  }

  Stepper(const io::LieGroupScenario& s_, const M& m_) : s(s_), m(m_), nopt(newton_options(s_)), del(m_, nopt) {
    Iinv = s.inertia.inverse();
    if constexpr (free_body) {
      lm::MoserVeselovBody b;
      b.I = s.inertia;
      if (s.method == Method::moser_veselov) mv.emplace(b, nopt);
    }
    R = Eigen::Quaterniond(s.attitude[0], s.attitude[1], s.attitude[2], s.attitude[3]).normalized().toRotationMatrix();
    Pi = s.Pi0;
    Gamma = R.transpose() * Vec3::UnitZ();
  }

  [[nodiscard]] Vec3 grad_V_reduced(const Vec3& G) const {
    if constexpr (gravitating) return m.grad_V_reduced(G);
    else return (void)G, Vec3::Zero();
  }

  /// Newton's start as LieDel's: 2 xi_{k-1} - xi_{k-2} after two steps, xi_{k-1} after one, else
  /// ell''(0)^{-1} (b - mu(0)).
  [[nodiscard]] Vec3 guess(const Vec3& b) const {
    if (warm >= 2) return 2.0 * xi - xi_prev;
    if (warm == 1) return xi;
    const auto d0 = ld::kinetic_derivatives(m, Vec3::Zero());
    return Eigen::PartialPivLU<Mat3>(d0.ell_xixi).solve(Vec3(b - d0.mu));
  }
  void remember(const Vec3& x) {
    xi_prev = xi;
    xi = x;
    warm = std::min<long long>(warm + 1, 2);
  }

  /// del: (1)-(3) of lie_del.hpp on (R, Pi), the potential's gradient through the model's V (LieDel::step).
  StepResult step_del(double h) {
    const SO3 g(R);
    const Vec3 b = Pi - (0.5 * h) * ld::grad_V(m, g);
    Vec3 x = guess(b);
    const double scale = std::max(Pi.lpNorm<Eigen::Infinity>(), b.lpNorm<Eigen::Infinity>());
    StepResult r = del.solve_xi(b, h, scale, x);
    if (!r.converged) return r;
    const SO3 g_kp1 = g * Rt::tau(h * x);
    const auto d = ld::kinetic_derivatives(m, x);
    const Vec3 p_kp1 = Rt::dtau_inv_star(-h * x) * d.mu - (0.5 * h) * ld::grad_V(m, g_kp1);
    R = g_kp1.matrix();
    Pi = p_kp1;
    Gamma = R.transpose() * Vec3::UnitZ();
    remember(x);
    return r;
  }

  /// del-reduced: LieDel::advected_step on (Pi, Gamma) (free body: reduced_step on Pi), and the reconstruction
  /// R_{k+1} = R_k tau(h xi).
  StepResult step_reduced(double h) {
    const Vec3 b = Pi - (0.5 * h) * grad_V_reduced(Gamma);
    Vec3 x = guess(b);
    StepResult r =
        del.solve_xi(b, h, std::max(Pi.lpNorm<Eigen::Infinity>(), b.lpNorm<Eigen::Infinity>()), x);
    if (!r.converged) return r;
    const Mat3 F = Rt::tau(h * x).matrix();
    const Vec3 Gamma_kp1 = F.transpose() * Gamma;
    const auto d = ld::kinetic_derivatives(m, x);
    Pi = Rt::dtau_inv_star(-h * x) * d.mu - (0.5 * h) * grad_V_reduced(Gamma_kp1);
    Gamma = Gamma_kp1;
    R = R * F;
    remember(x);
    return r;
  }

  /// moser-veselov: (1)-(3) of discrete_reduced.hpp with l_d(F) = tr((Id - F) J)/h, Newton in F = cay(z).
  StepResult step_mv(double h) {
    using Chart = lie::Cayley<SO3>;
    const Vec3 b = Pi;
    const double scale = Pi.lpNorm<Eigen::Infinity>();
    Mat3 Jc;
    const auto F = [&](const Vec3& z) -> Vec3 {
      Mat3 H;
      const Vec3 res = mv->grad_R(Chart::tau(z), h, &H) - b;
      Jc = H * Chart::dtau(z);
      return res;
    };
    const auto DF = [&](const Vec3&) -> Mat3 { return Jc; };
    Vec3 z = xi;
    if (warm == 0) {  // one Newton step from F = identity
      F(Vec3::Zero());
      z = Eigen::PartialPivLU<Mat3>(Jc).solve(b);
    }
    StepResult r = solve::newton<3>(F, DF, z, scale, nopt);
    if (!r.converged) return r;
    const SO3 Fk = Chart::tau(z);
    Pi = lie::Ad_star(Fk, mv->grad_R(Fk, h));
    R = R * Fk.matrix();
    Gamma = R.transpose() * Vec3::UnitZ();
    xi = z;
    warm = 1;
    return r;
  }

  /// rk4: classical RK4 on R' = R hat(Omega), Pi' = Pi x Omega - grad_V(R^T e3), Omega = I^-1 Pi.
  StepResult step_rk4(double h) {
    const auto f = [&](const Mat3& Rs, const Vec3& P, Mat3& dR, Vec3& dP) {
      const Vec3 Om = Iinv * P;
      dR = Rs * lie::hat(Om);
      dP = P.cross(Om) - grad_V_reduced(Rs.transpose() * Vec3::UnitZ());
    };
    Mat3 k1R, k2R, k3R, k4R;
    Vec3 k1P, k2P, k3P, k4P;
    f(R, Pi, k1R, k1P);
    f(R + (0.5 * h) * k1R, Pi + (0.5 * h) * k1P, k2R, k2P);
    f(R + (0.5 * h) * k2R, Pi + (0.5 * h) * k2P, k3R, k3P);
    f(R + h * k3R, Pi + h * k3P, k4R, k4P);
    R += (h / 6.0) * (k1R + 2.0 * k2R + 2.0 * k3R + k4R);
    Pi += (h / 6.0) * (k1P + 2.0 * k2P + 2.0 * k3P + k4P);
    Gamma = R.transpose() * Vec3::UnitZ();
    return StepResult{};
  }

  /// The reported values of the current level.
  struct Values {
    double E = nan;
    std::array<double, 2> C{nan, nan};  ///< Casimirs: (|Gamma|^2, Pi . Gamma), or (|Pi|^2, -) for the free body
    Vec3 J = Vec3::Constant(nan);       ///< Noether: e3 . R Pi in J(2) (gravitating), R Pi (free body)
    double orth = nan;
  };
  [[nodiscard]] Values values() const {
    Values v;
    if constexpr (gravitating) {
      v.E = m.energy(Pi, Gamma);
      v.C = M::casimirs(Pi, Gamma);
      v.J(2) = Vec3::UnitZ().dot(R * Pi);
    } else {
      v.E = 0.5 * Pi.dot(Iinv * Pi);
      v.C = {Pi.squaredNorm(), nan};
      v.J = R * Pi;
    }
    v.orth = (R.transpose() * R - Mat3::Identity()).cwiseAbs().maxCoeff();
    return v;
  }
  [[nodiscard]] static bool finite(const Values& v) {
    return std::isfinite(v.E) && std::isfinite(v.C[0]) && (free_body || std::isfinite(v.C[1])) &&
           (gravitating ? std::isfinite(v.J(2)) : v.J.allFinite()) && std::isfinite(v.orth);
  }

  /// The largest drifts over the run: Casimirs C1, C2, the Noether momentum J, |R^T R - I|.
  using Maxima = std::array<double, 4>;
  void track(const Values& v, const Values& start, Maxima& mx) const {
    mx[0] = std::max(mx[0], std::abs(v.C[0] - start.C[0]));
    if constexpr (gravitating) {
      mx[1] = std::max(mx[1], std::abs(v.C[1] - start.C[1]));
      mx[2] = std::max(mx[2], std::abs(v.J(2) - start.J(2)));
    } else {
      mx[2] = std::max(mx[2], (v.J - start.J).template lpNorm<Eigen::Infinity>());
    }
    mx[3] = std::max(mx[3], v.orth);
  }
  /// The columns of a row between energy_error and newton (lie_group_series_columns).
  void append(Row& row, const Values& v) const {
    row.push_back(v.C[0]);
    if constexpr (gravitating) {
      row.push_back(v.C[1]);
      row.push_back(v.J(2));
    } else {
      for (int i = 0; i < 3; ++i) row.push_back(v.J(i));
    }
    const Eigen::Quaterniond q = SO3(R).quaternion();
    row.insert(row.end(), {q.w(), q.x(), q.y(), q.z()});
    const Vec3 Om = Iinv * Pi;
    for (int i = 0; i < 3; ++i) row.push_back(Pi(i));
    for (int i = 0; i < 3; ++i) row.push_back(Om(i));
    if constexpr (gravitating)
      for (int i = 0; i < 3; ++i) row.push_back(Gamma(i));
    row.push_back(v.orth);
  }
  /// The diagnostics after the energy's, and the final state.
  void report(const Values& start, const Maxima& mx, LieGroupRunResult& r) const {
    if constexpr (gravitating) {
      r.diagnostics.emplace_back("casimir_gamma_max_drift", mx[0]);
      r.diagnostics.emplace_back("casimir_pi_gamma_initial", start.C[1]);
      r.diagnostics.emplace_back("casimir_pi_gamma_max_drift", mx[1]);
      r.diagnostics.emplace_back("momentum_z_initial", start.J(2));
      r.diagnostics.emplace_back("momentum_z_max_drift", mx[2]);
    } else {
      r.diagnostics.emplace_back("casimir_pi_initial", start.C[0]);
      r.diagnostics.emplace_back("casimir_pi_max_drift", mx[0]);
      r.diagnostics.emplace_back("momentum_max_drift", mx[2]);
    }
    r.diagnostics.emplace_back("orth_err_max", mx[3]);
    const Eigen::Quaterniond q = SO3(R).quaternion();
    r.q_final = {q.w(), q.x(), q.y(), q.z()};
    const Vec3 Om = Iinv * Pi;
    r.Pi_final = {Pi(0), Pi(1), Pi(2)};
    r.Omega_final = {Om(0), Om(1), Om(2)};
  }
  /// The level's values under their series.csv names (Python's energies()).
  [[nodiscard]] std::vector<std::pair<std::string, double>> named(const Values& v) const {
    std::vector<std::pair<std::string, double>> n = {{"energy", v.E}};
    if constexpr (gravitating)
      n.insert(n.end(), {{"casimir_gamma", v.C[0]}, {"casimir_pi_gamma", v.C[1]}, {"momentum_z", v.J(2)}});
    else
      n.insert(n.end(), {{"casimir_pi", v.C[0]}, {"momentum_x", v.J(0)}, {"momentum_y", v.J(1)}, {"momentum_z", v.J(2)}});
    n.emplace_back("orth_err", v.orth);
    return n;
  }
  [[nodiscard]] const double* R_data() const { return R.data(); }
  [[nodiscard]] const double* Pi_data() const { return Pi.data(); }
  [[nodiscard]] const double* Gamma_data() const { return Gamma.data(); }
  [[nodiscard]] const double* position_data() const { return nullptr; }
  [[nodiscard]] const double* P_data() const { return nullptr; }

  /// Step k (level k-1 to level k) with the run's check: a failed solve or a non-finite state or reported value
  /// puts the state back and is returned; otherwise `val` holds level k's values.
  std::optional<RunFailure> checked_step(long long k, StepResult& res, Values& val) {
    const Mat3 R0 = R;
    const Vec3 Pi0 = Pi, G0 = Gamma, xi0 = xi, xp0 = xi_prev;
    const long long w0 = warm;
    const double h = s.dt;
    res = s.method == Method::del             ? step_del(h)
          : s.method == Method::del_reduced   ? step_reduced(h)
          : s.method == Method::moser_veselov ? step_mv(h)
                                              : step_rk4(h);
    std::string message;
    if (!res.converged) {
      message = "the implicit step failed: " + scenario_message(res.message);
    } else if (!R.allFinite() || !Pi.allFinite() || !Gamma.allFinite()) {
      message = "non-finite state after the step";
    } else {
      val = values();
      if (!finite(val)) message = "non-finite value after the step: energy = " + io::format_number(val.E) + " (overflow)";
    }
    if (message.empty()) return std::nullopt;
    R = R0, Pi = Pi0, Gamma = G0, xi = xi0, xi_prev = xp0, warm = w0;
    RunFailure f;
    f.step = k;
    f.t = s.time_at(k - 1);
    f.residual = res.residual;
    f.message = message;
    f.hint = hint_of(s, message);
    return f;
  }

  /// Everything the next step reads (checkpoints).
  void state(StateIO& a) {
    a("x/R", R);
    a("x/Pi", Pi);
    a("x/Gamma", Gamma);
    a("x/xi", xi);
    a("x/xi_prev", xi_prev);
    a("x/warm", warm);
  }
};

/// The rigid body in space on SE(3) (models/lie_mechanics.hpp FloatingRigidBody: gravity, an optional vertical
/// spring): the DEL (1)-(3) of lie_del.hpp on (g, p), g = (R, x) the pose of the body origin O, p = (Pi, P) the
/// body momentum (angular about O, linear), as LieDel::step with the run's own warm start (del only).
template <class Rt>
struct FloatStepper {
  using M = lm::FloatingRigidBody;
  using SE3 = lie::SE3;
  using Vec6 = lie::Vec6;
  using Mat6 = Eigen::Matrix<double, 6, 6>;
  using Del = ld::LieDel<M, Rt>;

  const io::LieGroupScenario& s;
  M m;
  solve::NewtonOptions nopt;
  Del del;
  Mat6 Minv;
  SE3 g;
  Vec6 p = Vec6::Zero();
  Vec6 xi = Vec6::Zero(), xi_prev = Vec6::Zero();
  long long warm = 0;
  Vec3 x_out = Vec3::Zero(), Pi_out = Vec3::Zero(), P_out = Vec3::Zero();  ///< the level's pieces for Python
  Mat3 R_out = Mat3::Identity();
  Vec3 Gamma_out = Vec3::UnitZ();

  FloatStepper(const io::LieGroupScenario& s_, const M& m_)
      : s(s_), m(m_), nopt(Stepper<lm::FreeRigidBody, lie::Cayley<SO3>>::newton_options(s_)), del(m_, nopt) {
    Minv = m.mass_matrix().inverse();
    const Mat3 R = Eigen::Quaterniond(s.attitude[0], s.attitude[1], s.attitude[2], s.attitude[3]).normalized().toRotationMatrix();
    g = SE3(R, to_vec3(s.position));
    // the body twist (Omega, v), v the velocity of O in the body frame; p = M xi
    p = m.mass_matrix() * SE3::join(s.omega0, to_vec3(s.velocity));
    sync();
  }
  void sync() {
    R_out = g.rotation(), x_out = g.translation(), Pi_out = p.head<3>(), P_out = p.tail<3>();
    Gamma_out = R_out.transpose() * Vec3::UnitZ();
  }

  [[nodiscard]] Vec6 guess(const Vec6& b) const {
    if (warm >= 2) return 2.0 * xi - xi_prev;
    if (warm == 1) return xi;
    const auto d0 = ld::kinetic_derivatives(m, Vec6::Zero());
    return Eigen::PartialPivLU<Mat6>(d0.ell_xixi).solve(Vec6(b - d0.mu));
  }

  StepResult step_del(double h) {
    const Vec6 b = p - (0.5 * h) * ld::grad_V(m, g);
    Vec6 x = guess(b);
    const double scale = std::max(p.lpNorm<Eigen::Infinity>(), b.lpNorm<Eigen::Infinity>());
    StepResult r = del.solve_xi(b, h, scale, x);
    if (!r.converged) return r;
    const SE3 g_kp1 = g * Rt::tau(h * x);
    const auto d = ld::kinetic_derivatives(m, x);
    const Vec6 p_kp1 = Rt::dtau_inv_star(-h * x) * d.mu - (0.5 * h) * ld::grad_V(m, g_kp1);
    g = g_kp1;
    p = p_kp1;
    xi_prev = xi;
    xi = x;
    warm = std::min<long long>(warm + 1, 2);
    return r;
  }

  /// The reported values: energy ½ p.M^-1 p + V(g); the Noether momenta of the symmetries of V (rotations about
  /// the vertical through the spatial origin, horizontal translations): J = <Ad*_{g^-1} p, zeta>; |R^T R - I|.
  struct Values {
    double E = nan;
    std::array<double, 3> J{nan, nan, nan};
    double orth = nan;
  };
  [[nodiscard]] Values values() const {
    Values v;
    v.E = 0.5 * p.dot(Minv * p) + ld::potential(m, g);
    const auto zeta = m.symmetries();
    for (std::size_t i = 0; i < 3; ++i) v.J[i] = ld::momentum_map(g, p, zeta[i]);
    v.orth = (g.rotation().transpose() * g.rotation() - Mat3::Identity()).cwiseAbs().maxCoeff();
    return v;
  }
  [[nodiscard]] static bool finite(const Values& v) {
    return std::isfinite(v.E) && std::isfinite(v.J[0]) && std::isfinite(v.J[1]) && std::isfinite(v.J[2]) &&
           std::isfinite(v.orth);
  }

  std::optional<RunFailure> checked_step(long long k, StepResult& res, Values& val) {
    const SE3 g0 = g;
    const Vec6 p0 = p, xi0 = xi, xp0 = xi_prev;
    const long long w0 = warm;
    res = step_del(s.dt);
    std::string message;
    if (!res.converged) {
      message = "the implicit step failed: " + scenario_message(res.message);
    } else if (!g.matrix().allFinite() || !p.allFinite()) {
      message = "non-finite state after the step";
    } else {
      val = values();
      if (!finite(val)) message = "non-finite value after the step: energy = " + io::format_number(val.E) + " (overflow)";
    }
    if (message.empty()) {
      sync();
      return std::nullopt;
    }
    g = g0, p = p0, xi = xi0, xi_prev = xp0, warm = w0;
    RunFailure f;
    f.step = k;
    f.t = s.time_at(k - 1);
    f.residual = res.residual;
    f.message = message;
    f.hint = hint_of(s, message);
    return f;
  }

  void state(StateIO& a) {
    Mat3 R = g.rotation();
    Vec3 x = g.translation();
    a("x/R", R);
    a("x/position", x);
    a("x/p", p);
    a("x/xi", xi);
    a("x/xi_prev", xi_prev);
    a("x/warm", warm);
    g = SE3(R, x);
    sync();
  }

  using Maxima = std::array<double, 4>;
  void track(const Values& v, const Values& start, Maxima& mx) const {
    for (std::size_t i = 0; i < 3; ++i) mx[i] = std::max(mx[i], std::abs(v.J[i] - start.J[i]));
    mx[3] = std::max(mx[3], v.orth);
  }
  void append(Row& row, const Values& v) const {
    for (double j : v.J) row.push_back(j);
    const Eigen::Quaterniond q = g.so3().quaternion();
    row.insert(row.end(), {q.w(), q.x(), q.y(), q.z()});
    for (int i = 0; i < 3; ++i) row.push_back(g.translation()(i));
    const Vec6 tw = Minv * p;
    for (int i = 0; i < 6; ++i) row.push_back(p(i));
    for (int i = 0; i < 6; ++i) row.push_back(tw(i));
    row.push_back(v.orth);
  }
  void report(const Values& start, const Maxima& mx, LieGroupRunResult& r) const {
    r.diagnostics.emplace_back("angular_z_initial", start.J[0]);
    r.diagnostics.emplace_back("angular_z_max_drift", mx[0]);
    r.diagnostics.emplace_back("linear_x_max_drift", mx[1]);
    r.diagnostics.emplace_back("linear_y_max_drift", mx[2]);
    r.diagnostics.emplace_back("orth_err_max", mx[3]);
    const Eigen::Quaterniond q = g.so3().quaternion();
    r.q_final = {q.w(), q.x(), q.y(), q.z()};
    const Vec6 tw = Minv * p;
    r.Pi_final = {p(0), p(1), p(2)};
    r.Omega_final = {tw(0), tw(1), tw(2)};
    r.position_final = {g.translation()(0), g.translation()(1), g.translation()(2)};
  }
  [[nodiscard]] std::vector<std::pair<std::string, double>> named(const Values& v) const {
    return {{"energy", v.E}, {"angular_z", v.J[0]}, {"linear_x", v.J[1]}, {"linear_y", v.J[2]}, {"orth_err", v.orth}};
  }
  [[nodiscard]] const double* R_data() const { return R_out.data(); }
  [[nodiscard]] const double* Pi_data() const { return Pi_out.data(); }
  [[nodiscard]] const double* Gamma_data() const { return Gamma_out.data(); }
  [[nodiscard]] const double* position_data() const { return x_out.data(); }
  [[nodiscard]] const double* P_data() const { return P_out.data(); }
};

/// The stepper of a model: FloatStepper on SE(3), Stepper on SO(3).
template <class M, class Rt>
using StepperOf = std::conditional_t<std::is_same_v<M, lm::FloatingRigidBody>, FloatStepper<Rt>, Stepper<M, Rt>>;

/// The levels of a lie_group run (StateLevels, state_run.hpp): the stepper, the start and the reference of
/// energy_error, and the largest drifts over the run (energy; the stepper's Casimirs, momenta, |R^T R - I|).
template <class St>
struct LieGroupLevels {
  using Values = typename St::Values;

  St& st;
  LieGroupRunResult& r;
  Values start;
  double E0, escale;  ///< the start's energy; |E0| (1 when E0 = 0)
  double emax = 0.0;
  typename St::Maxima mx{};

  LieGroupLevels(St& st_, LieGroupRunResult& r_)
      : st(st_), r(r_), start(st_.values()), E0(start.E), escale(E0 != 0.0 ? std::abs(E0) : 1.0) {}

  [[nodiscard]] Values values() const { return st.values(); }
  std::optional<RunFailure> checked_step(long long k, StepResult& res, Values& val) {
    return st.checked_step(k, res, val);
  }
  [[nodiscard]] std::string unusable(const Values& v) const { return St::finite(v) ? "" : "is not finite"; }
  void observe(const Values& v) {
    emax = std::max(emax, std::abs((v.E - E0) / escale));
    st.track(v, start, mx);
    r.energy_final = v.E;
  }
  /// energy, energy_error and the stepper's columns (lie_group_series_columns).
  void columns(Row& row, const Values& v) const {
    row.insert(row.end(), {v.E, (v.E - E0) / escale});
    st.append(row, v);
  }
  void save(StateIO& a) {
    st.state(a);
    a("diagnostics/emax", emax);
    a("diagnostics/maxima", mx);
    a("run/energy_final", r.energy_final);
  }
};

template <class St>
LieGroupRunResult integrate_system(const io::LieGroupScenario& s, St& st, const Sink& sink, Progress progress,
                                   const StateCheckpoints& plan = {}) {
  LieGroupRunResult r;
  LieGroupLevels<St> levels(st, r);
  r.energy_initial = levels.E0;
  step_levels(s, levels, r, sink, progress, plan);
  r.diagnostics.emplace_back("energy_initial", levels.E0);
  r.diagnostics.emplace_back("energy_max_rel_error", levels.emax);
  st.report(levels.start, levels.mx, r);
  if (levels.E0 == 0.0) r.notes.emplace_back("energy_error is absolute (E - E0): the initial energy E0 is 0");
  return r;
}

/// Build the scenario's stepper and integrate.
LieGroupRunResult integrate_scenario(const io::LieGroupScenario& s, const Sink& sink, Progress progress,
                                     const StateCheckpoints& plan = {}) {
  return with_model(s, [&](const auto& m, auto rt) {
    StepperOf<std::decay_t<decltype(m)>, decltype(rt)> st(s, m);
    return integrate_system(s, st, sink, progress, plan);
  });
}

/// The lie_group run in its output folder (StatePipeline, state_run.hpp).
struct LieGroupPipeline {
  using Scenario = io::LieGroupScenario;
  using Result = LieGroupRunResult;

  static void check(const Scenario& s) { check_lie_group(s); }
  static std::vector<std::string> columns(const Scenario& s) { return lie_group_series_columns(s); }
  static Result integrate(const Scenario& s, const Sink& sink, Progress progress, const StateCheckpoints& plan) {
    return integrate_scenario(s, sink, progress, plan);
  }

  static void plot(const fs::path& dir, const Scenario& s, Result& r) {
    const std::string title = s.name + ": " + config::id(s.system) + ", " + config::id(s.method) +
                              (s.uses_retraction() ? std::string(" (") + config::id(s.retraction) + ")" : "") +
                              ", dt = " + io::format_number(s.dt) + (r.complete ? "" : " [failed]");
    make_field_plots(dir, s.plots, "lievi_lie_group_plot.py", "LIEVI_LIE_GROUP_PLOT_SCRIPT", title, r.notes,
                     {"--system", config::id(s.system)});
  }

  static void write_summary(const fs::path& path, const Scenario& s, const Result& r) {
    json j = summary_opening(r, io::resolved_entries(s), s.name);
    j["system"] = config::id(s.system);
    const io::LieGroupMethodInfo& info = io::lie_group_method(s.method);
    j["method"] = {
        {"id", info.id()}, {"order", info.order}, {"variational", info.symplectic}, {"implicit", info.is_implicit}};
    if (s.uses_retraction()) j["method"]["retraction"] = config::id(s.retraction);
    add_summary_counts(j, r, s.steps);
    j["final"] = {{"t", r.t_final},
                  {"attitude", finite_array(r.q_final)},
                  {"Pi", finite_array(r.Pi_final)},
                  {"Omega", finite_array(r.Omega_final)},
                  {"energy", finite_or_null(r.energy_final)}};
    if (s.floating()) j["final"]["position"] = finite_array(r.position_final);
    add_summary_closing(j, diagnostics_json(r), r, r.newton);
    write_json(path, j);
  }
};

}  // namespace

std::vector<std::string> lie_group_series_columns(const io::LieGroupScenario& s) {
  std::vector<std::string> c = {"t", "energy", "energy_error"};
  if (s.floating()) {
    c.insert(c.end(), {"angular_z", "linear_x", "linear_y", "qw", "qx", "qy", "qz", "x", "y", "z", "Pi1", "Pi2", "Pi3",
                       "P1", "P2", "P3", "Omega1", "Omega2", "Omega3", "v1", "v2", "v3", "orth_err", "newton"});
    return c;
  }
  if (s.gravitating())
    c.insert(c.end(), {"casimir_gamma", "casimir_pi_gamma", "momentum_z"});
  else
    c.insert(c.end(), {"casimir_pi", "momentum_x", "momentum_y", "momentum_z"});
  c.insert(c.end(), {"qw", "qx", "qy", "qz", "Pi1", "Pi2", "Pi3", "Omega1", "Omega2", "Omega3"});
  if (s.gravitating()) c.insert(c.end(), {"Gamma1", "Gamma2", "Gamma3"});
  c.insert(c.end(), {"orth_err", "newton"});
  return c;
}

void check_lie_group(const io::LieGroupScenario& s) { config::validate(s); }

LieGroupRunResult integrate_lie_group(const io::LieGroupScenario& s, std::vector<std::vector<double>>* rows,
                                      Progress progress) {
  check_lie_group(s);
  const Sink sink = collect_rows(rows);
  LieGroupRunResult r = integrate_scenario(s, sink, progress);
  detail::prepend_ignored_key_notes(s, r);
  return r;
}

fs::path default_output_dir(const io::LieGroupScenario& s) { return fs::path("runs") / s.name; }

LieGroupRunResult run_lie_group(const io::LieGroupScenario& s, const fs::path& out_dir, const RunOptions& options,
                                const ResumeFrom* resume) {
  return detail::run_in_folder<LieGroupPipeline>(s, out_dir, options, resume);
}

// ---- LieGroupSimulation: the run's step, taken by the caller ----

struct LieGroupSimulation::Impl {
  virtual ~Impl() = default;
  virtual std::optional<RunFailure> step(long long n) = 0;
  virtual const double* R() const = 0;
  virtual const double* Pi() const = 0;
  virtual const double* Gamma() const = 0;
  virtual const double* position() const = 0;
  virtual const double* P() const = 0;
  virtual std::vector<std::pair<std::string, double>> values() const = 0;
  long long steps = 0;
  bool failed = false;
  double dt = 0.0;
};

namespace {

template <class St, class M>
struct SimImpl final : LieGroupSimulation::Impl {
  io::LieGroupScenario s;
  St st;
  SimImpl(const io::LieGroupScenario& sc, const M& m) : s(sc), st(s, m) { dt = s.dt; }
  std::optional<RunFailure> step(long long n) override {
    for (long long i = 0; i < n; ++i) {
      StepResult res;
      typename St::Values val;
      if (std::optional<RunFailure> f = st.checked_step(steps + 1, res, val)) {
        failed = true;
        return f;
      }
      ++steps;
    }
    return std::nullopt;
  }
  const double* R() const override { return st.R_data(); }
  const double* Pi() const override { return st.Pi_data(); }
  const double* Gamma() const override { return st.Gamma_data(); }
  const double* position() const override { return st.position_data(); }
  const double* P() const override { return st.P_data(); }
  std::vector<std::pair<std::string, double>> values() const override { return st.named(st.values()); }
};

}  // namespace

LieGroupSimulation::LieGroupSimulation(const io::LieGroupScenario& s) {
  check_lie_group(s);
  impl_ = with_model(s, [&](const auto& m, auto rt) -> std::unique_ptr<Impl> {
    using M = std::decay_t<decltype(m)>;
    return std::make_unique<SimImpl<StepperOf<M, decltype(rt)>, M>>(s, m);
  });
}
LieGroupSimulation::~LieGroupSimulation() = default;

std::optional<RunFailure> LieGroupSimulation::step(long long n) {
  if (impl_->failed) throw std::logic_error("the simulation failed and cannot step on");
  return impl_->step(n);
}
bool LieGroupSimulation::failed() const { return impl_->failed; }
double LieGroupSimulation::t() const { return static_cast<double>(impl_->steps) * dt(); }
long long LieGroupSimulation::steps() const { return impl_->steps; }
double LieGroupSimulation::dt() const { return impl_->dt; }
const double* LieGroupSimulation::R() const { return impl_->R(); }
const double* LieGroupSimulation::Pi() const { return impl_->Pi(); }
const double* LieGroupSimulation::Gamma() const { return impl_->Gamma(); }
const double* LieGroupSimulation::position() const { return impl_->position(); }
const double* LieGroupSimulation::P() const { return impl_->P(); }
std::vector<std::pair<std::string, double>> LieGroupSimulation::values() const { return impl_->values(); }

}  // namespace lievi::run
