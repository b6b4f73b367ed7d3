/// @file python/module/user_lagrangian.cpp
/// @brief User Lagrangians from Python (lievi.Lagrangian, python/lievi/__init__.py): a Lagrangian system on R^n,
/// n = 1 ... kMaxDim, whose derivatives come from a Python callable, integrated by the discrete mechanics
/// toolkit's own methods (integrators/del: midpoint, trapezoid, Lobatto IIIA-IIIB) through its analytic-
/// derivatives hook (`derivatives`, `force_derivatives`). The GIL is held: every evaluation calls Python.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "lievi/core/error.hpp"
#include "lievi/integrators/del/constraints.hpp"
#include "lievi/integrators/del/del_stepper.hpp"
#include "lievi/integrators/del/discrete_lagrangian.hpp"

namespace py = pybind11;
namespace del = lievi::integrators::del;

namespace {

constexpr int kMaxDim = 6;
/// Constrained systems: n <= kMaxConstrainedDim, 1 <= c < n constraints (each (n, c) is a compiled instance).
constexpr int kMaxConstrainedDim = 4;

/// The Python side: derivatives(q, v) -> (L, Lq, Lv, Lqq, Lqv, Lvv) of the total Lagrangian L - V, and
/// optionally force(q, v, t) -> (f, fq, fv).
struct Callbacks {
  py::object derivatives;
  py::object force;        ///< None: no force
  py::object constraints;  ///< None, or q -> (g (c,), G (c, n)): holonomic constraints g(q) = 0 and dg/dq
};

template <int n>
py::array_t<double> as_array(const del::Vec<n>& x) {
  py::array_t<double> a(n);
  for (int i = 0; i < n; ++i) a.mutable_at(i) = x[i];
  return a;
}

/// Entry k of a returned tuple as an n-vector or an n x n matrix, checked.
template <int n>
del::Vec<n> vec_of(const py::object& o, const char* what) {
  const auto a = py::array_t<double, py::array::c_style | py::array::forcecast>::ensure(o);
  if (!a || a.size() != n)
    throw lievi::invalid_argument("", what, "the callable returned a value that is not " + std::to_string(n) + " numbers");
  del::Vec<n> x;
  for (int i = 0; i < n; ++i) x[i] = a.data()[i];
  return x;
}
template <int n>
del::Mat<n> mat_of(const py::object& o, const char* what) {
  const auto a = py::array_t<double, py::array::c_style | py::array::forcecast>::ensure(o);
  if (!a || a.size() != n * n)
    throw lievi::invalid_argument("", what, "the callable returned a value that is not " + std::to_string(n) + " x " +
                                                std::to_string(n) + " numbers");
  del::Mat<n> x;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) x(i, j) = a.data()[i * n + j];
  return x;
}

/// A Lagrangian on R^n with derivatives from Python (a del::LagrangianModel with analytic derivatives and force).
template <int n>
struct PyLagrangian {
  static constexpr int dim = n;
  const Callbacks* cb = nullptr;

  [[nodiscard]] del::LagrangianDerivatives<n> derivatives(const del::Vec<n>& q, const del::Vec<n>& v) const {
    const py::tuple r = cb->derivatives(as_array<n>(q), as_array<n>(v));
    if (r.size() != 6)
      throw lievi::invalid_argument("", "derivatives", "must return (L, Lq, Lv, Lqq, Lqv, Lvv)");
    del::LagrangianDerivatives<n> d;
    d.L = r[0].cast<double>();
    d.Lq = vec_of<n>(r[1], "Lq");
    d.Lv = vec_of<n>(r[2], "Lv");
    d.Lqq = mat_of<n>(r[3], "Lqq");
    d.Lqv = mat_of<n>(r[4], "Lqv");
    d.Lvv = mat_of<n>(r[5], "Lvv");
    return d;
  }
  [[nodiscard]] double L(const del::Vec<n>& q, const del::Vec<n>& v) const { return derivatives(q, v).L; }
  [[nodiscard]] del::ForceDerivatives<n> force_derivatives(const del::Vec<n>& q, const del::Vec<n>& v,
                                                           double t) const {
    del::ForceDerivatives<n> f;
    if (cb->force.is_none()) return f;
    const py::tuple r = cb->force(as_array<n>(q), as_array<n>(v), t);
    if (r.size() != 3) throw lievi::invalid_argument("", "force", "must return (f, fq, fv)");
    f.f = vec_of<n>(r[0], "f");
    f.fq = mat_of<n>(r[1], "fq");
    f.fv = mat_of<n>(r[2], "fv");
    return f;
  }
};

/// A constrained one (del::ConstrainedModel): g from Python; at dual arguments the chain rule through G, so the
/// toolkit's AD of g (its constraint Jacobian) gets G itself.
template <int n, int c>
struct PyConstrained : PyLagrangian<n> {
  static constexpr int n_constraints = c;
  void eval(const del::Vec<n>& q, Eigen::Matrix<double, c, 1>& g, Eigen::Matrix<double, c, n>& G) const {
    const py::tuple r = this->cb->constraints(as_array<n>(q));
    if (r.size() != 2) throw lievi::invalid_argument("", "constraints", "must return (g, G)");
    const auto gv = py::array_t<double, py::array::c_style | py::array::forcecast>::ensure(r[0]);
    const auto Gv = py::array_t<double, py::array::c_style | py::array::forcecast>::ensure(r[1]);
    if (!gv || gv.size() != c || !Gv || Gv.size() != c * n)
      throw lievi::invalid_argument("", "constraints", "g must have " + std::to_string(c) + " entries and G " +
                                                           std::to_string(c) + " x " + std::to_string(n));
    for (int i = 0; i < c; ++i) {
      g[i] = gv.data()[i];
      for (int j = 0; j < n; ++j) G(i, j) = Gv.data()[i * n + j];
    }
  }
  [[nodiscard]] Eigen::Matrix<double, c, 1> g(const del::Vec<n>& q) const {
    Eigen::Matrix<double, c, 1> gv;
    Eigen::Matrix<double, c, n> G;
    eval(q, gv, G);
    return gv;
  }
  template <int N>
  [[nodiscard]] Eigen::Matrix<del::Dual<double, N>, c, 1> g(const Eigen::Matrix<del::Dual<double, N>, n, 1>& q) const {
    del::Vec<n> qv;
    for (int i = 0; i < n; ++i) qv[i] = q(i).v;
    Eigen::Matrix<double, c, 1> gv;
    Eigen::Matrix<double, c, n> G;
    eval(qv, gv, G);
    Eigen::Matrix<del::Dual<double, N>, c, 1> out;
    for (int i = 0; i < c; ++i) {
      out(i) = del::Dual<double, N>(gv[i]);
      for (int k = 0; k < N; ++k) {
        double d = 0.0;
        for (int j = 0; j < n; ++j) d += G(i, j) * q(j).d[static_cast<std::size_t>(k)];
        out(i).d[static_cast<std::size_t>(k)] = d;
      }
    }
    return out;
  }
};

/// Options of a constrained run: the projection (RATTLE or SHAKE) and the drift tolerance.
struct ConstraintSettings {
  bool rattle = true;
  double drift_tol = 1e-10;
};

template <int n, class Method, class Model = PyLagrangian<n>>
py::dict integrate_n(const Callbacks& cb, const std::vector<double>& q0, const std::vector<double>& v0, double t0,
                     double h, long long steps, long long every, int maxit, double newton_tol,
                     const ConstraintSettings& cs = {}) {
  Model m;
  m.cb = &cb;
  constexpr bool constrained = del::ConstrainedModel<Model>;
  del::DelState<n> x;
  del::Vec<n> v;
  for (int i = 0; i < n; ++i) x.q[i] = q0[static_cast<std::size_t>(i)], v[i] = v0[static_cast<std::size_t>(i)];
  x.t = t0;
  if constexpr (constrained)  // the start onto the constraint and its tangent space, as the C++ runs do
    if (!del::project_initial(m, x.q, v))
      throw lievi::invalid_argument("", "q0", "cannot be projected onto the constraints (Gauss-Newton did not "
                                              "converge): give a start near them");
  x.p = del::legendre(m, x.q, v);  // the Legendre transform at t0
  del::DelOptions opt;
  opt.newton.max_iterations = maxit;
  opt.newton.residual_tol = newton_tol;
  del::ConstraintOptions copt;
  copt.del = opt;
  copt.projection = cs.rattle ? del::Projection::rattle : del::Projection::shake;
  copt.drift_tol = cs.drift_tol;
  std::vector<double> t, q, p, vel, E, its;
  auto record = [&](int iterations) {
    t.push_back(x.t);
    for (int i = 0; i < n; ++i) q.push_back(x.q[i]), p.push_back(x.p[i]), vel.push_back(v[i]);
    E.push_back(del::energy(m, x.q, v));
    its.push_back(iterations);
  };
  record(0);
  py::object failure = py::none();
  int worst = 0;
  for (long long k = 1; k <= steps; ++k) {
    x.t = t0 + static_cast<double>(k - 1) * h;  // the times of the C++ runs (no accumulated sum of h)
    lievi::StepResult r;
    if constexpr (constrained) r = del::constrained_step<Method>(m, x, h, copt);
    else r = del::del_step<Method>(m, x, h, opt);
    if (!r.converged) {
      py::dict f;
      f["step"] = k;
      f["t"] = t0 + static_cast<double>(k - 1) * h;
      f["node"] = -1;
      f["residual"] = r.residual;
      f["message"] = std::string(r.message);
      f["hint"] = "try a smaller h (a DEL step's Newton solve failed)";
      failure = f;
      break;
    }
    worst = std::max(worst, r.iterations);
    x.t = t0 + static_cast<double>(k) * h;
    if (k % every == 0 || k == steps) {
      if (!del::velocity_from_momentum(m, x.q, x.p, v)) v.setConstant(std::numeric_limits<double>::quiet_NaN());
      record(worst);
      worst = 0;
    }
  }
  const auto rows = static_cast<py::ssize_t>(t.size());
  auto matrix = [&](const std::vector<double>& a) {
    py::array_t<double> out({rows, static_cast<py::ssize_t>(n)});
    std::copy(a.begin(), a.end(), out.mutable_data());
    return out;
  };
  py::dict d;
  d["t"] = py::array_t<double>(rows, t.data());
  d["q"] = matrix(q);
  d["p"] = matrix(p);
  d["v"] = matrix(vel);
  d["energy"] = py::array_t<double>(rows, E.data());
  d["newton"] = py::array_t<double>(rows, its.data());
  d["failure"] = failure;
  return d;
}

template <int n>
py::dict integrate_dim(const std::string& method, const Callbacks& cb, const std::vector<double>& q0,
                       const std::vector<double>& v0, double t0, double h, long long steps, long long every, int maxit,
                       double tol) {
  if (method == "midpoint") return integrate_n<n, del::Midpoint>(cb, q0, v0, t0, h, steps, every, maxit, tol);
  if (method == "trapezoid") return integrate_n<n, del::Trapezoid>(cb, q0, v0, t0, h, steps, every, maxit, tol);
  if (method == "lobatto-iiia-iiib")
    return integrate_n<n, del::LobattoIIIAIIIB>(cb, q0, v0, t0, h, steps, every, maxit, tol);
  throw lievi::invalid_argument("", "method",
                                "value '" + method + "' not allowed: midpoint, trapezoid, lobatto-iiia-iiib");
}

template <int n, int c>
py::dict integrate_constrained(const std::string& method, const Callbacks& cb, const std::vector<double>& q0,
                               const std::vector<double>& v0, double t0, double h, long long steps, long long every,
                               int maxit, double tol, const ConstraintSettings& cs) {
  using M = PyConstrained<n, c>;
  if (method == "midpoint") return integrate_n<n, del::Midpoint, M>(cb, q0, v0, t0, h, steps, every, maxit, tol, cs);
  if (method == "trapezoid") return integrate_n<n, del::Trapezoid, M>(cb, q0, v0, t0, h, steps, every, maxit, tol, cs);
  throw lievi::invalid_argument("", "method",
                                "value '" + method + "' not allowed with constraints: midpoint, trapezoid (RATTLE/SHAKE)");
}

/// (n, c) with 1 <= c < n <= kMaxConstrainedDim.
py::dict dispatch_constrained(int n, int c, const std::string& method, const Callbacks& cb,
                              const std::vector<double>& q0, const std::vector<double>& v0, double t0, double h,
                              long long steps, long long every, int maxit, double tol, const ConstraintSettings& cs) {
#define LIEVI_NC(N, C) \
  if (n == N && c == C) return integrate_constrained<N, C>(method, cb, q0, v0, t0, h, steps, every, maxit, tol, cs);
  LIEVI_NC(2, 1) LIEVI_NC(3, 1) LIEVI_NC(3, 2) LIEVI_NC(4, 1) LIEVI_NC(4, 2) LIEVI_NC(4, 3)
#undef LIEVI_NC
  throw lievi::invalid_argument("", "constraints",
                                std::to_string(c) + " constraints on " + std::to_string(n) +
                                    " coordinates not available: 1 <= constraints < coordinates <= " +
                                    std::to_string(kMaxConstrainedDim));
}

template <int... N>
py::dict dispatch(std::integer_sequence<int, N...>, int n, const std::string& method, const Callbacks& cb,
                  const std::vector<double>& q0, const std::vector<double>& v0, double t0, double h, long long steps,
                  long long every, int maxit, double tol) {
  py::dict out;
  bool done = false;
  ((n == N + 1 ? (out = integrate_dim<N + 1>(method, cb, q0, v0, t0, h, steps, every, maxit, tol), done = true)
               : false),
   ...);
  if (!done) throw lievi::invalid_argument("", "q", "dimension " + std::to_string(n) + " not in 1 ... " +
                                                        std::to_string(kMaxDim));
  return out;
}

}  // namespace

void bind_user_lagrangian(py::module_& m) {
  m.attr("max_user_dim") = kMaxDim;
  m.attr("max_constrained_dim") = kMaxConstrainedDim;
  m.def(
      "integrate_user_constrained",
      [](py::object derivatives, py::object force, py::object constraints, int n_constraints,
         const std::vector<double>& q0, const std::vector<double>& v0, double t0, double h, long long steps,
         long long every, const std::string& method, int maxit, double tol, bool rattle, double drift_tol) {
        if (q0.size() != v0.size()) throw lievi::invalid_argument("", "v0", "must have as many entries as q0");
        if (!(h > 0.0) || !std::isfinite(h)) throw lievi::invalid_argument("", "h", "must be a finite number > 0");
        if (steps < 0) throw lievi::invalid_argument("", "steps", "must be >= 0");
        if (every < 1) throw lievi::invalid_argument("", "every", "must be >= 1");
        if (!(drift_tol > 0.0)) throw lievi::invalid_argument("", "drift_tol", "must be > 0");
        const Callbacks cb{std::move(derivatives), std::move(force), std::move(constraints)};
        return dispatch_constrained(static_cast<int>(q0.size()), n_constraints, method, cb, q0, v0, t0, h, steps,
                                    every, maxit, tol, ConstraintSettings{rattle, drift_tol});
      },
      py::arg("derivatives"), py::arg("force"), py::arg("constraints"), py::arg("n_constraints"), py::arg("q0"),
      py::arg("v0"), py::arg("t0"), py::arg("h"), py::arg("steps"), py::arg("every"), py::arg("method"),
      py::arg("maxit"), py::arg("tol"), py::arg("rattle"), py::arg("drift_tol"));
  m.def(
      "integrate_user",
      [](py::object derivatives, py::object force, const std::vector<double>& q0, const std::vector<double>& v0,
         double t0, double h, long long steps, long long every, const std::string& method, int maxit, double tol) {
        if (q0.size() != v0.size()) throw lievi::invalid_argument("", "v0", "must have as many entries as q0");
        if (!(h > 0.0) || !std::isfinite(h)) throw lievi::invalid_argument("", "h", "must be a finite number > 0");
        if (steps < 0) throw lievi::invalid_argument("", "steps", "must be >= 0");
        if (every < 1) throw lievi::invalid_argument("", "every", "must be >= 1");
        const Callbacks cb{std::move(derivatives), std::move(force), py::none()};
        return dispatch(std::make_integer_sequence<int, kMaxDim>{}, static_cast<int>(q0.size()), method, cb, q0, v0,
                        t0, h, steps, every, maxit, tol);
      },
      py::arg("derivatives"), py::arg("force"), py::arg("q0"), py::arg("v0"), py::arg("t0"), py::arg("h"),
      py::arg("steps"), py::arg("every"), py::arg("method"), py::arg("maxit"), py::arg("tol"));
}
