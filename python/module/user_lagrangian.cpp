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
#include "lievi/integrators/del/del_stepper.hpp"
#include "lievi/integrators/del/discrete_lagrangian.hpp"

namespace py = pybind11;
namespace del = lievi::integrators::del;

namespace {

constexpr int kMaxDim = 6;

/// The Python side: derivatives(q, v) -> (L, Lq, Lv, Lqq, Lqv, Lvv) of the total Lagrangian L - V, and
/// optionally force(q, v, t) -> (f, fq, fv).
struct Callbacks {
  py::object derivatives;
  py::object force;  ///< None: no force
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

template <int n, class Method>
py::dict integrate_n(const Callbacks& cb, const std::vector<double>& q0, const std::vector<double>& v0, double t0,
                     double h, long long steps, long long every, int maxit, double newton_tol) {
  const PyLagrangian<n> m{&cb};
  del::DelState<n> x;
  del::Vec<n> v;
  for (int i = 0; i < n; ++i) x.q[i] = q0[static_cast<std::size_t>(i)], v[i] = v0[static_cast<std::size_t>(i)];
  x.t = t0;
  x.p = del::legendre(m, x.q, v);  // the Legendre transform at t0
  del::DelOptions opt;
  opt.newton.max_iterations = maxit;
  opt.newton.residual_tol = newton_tol;
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
    const lievi::StepResult r = del::del_step<Method>(m, x, h, opt);
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
  m.def(
      "integrate_user",
      [](py::object derivatives, py::object force, const std::vector<double>& q0, const std::vector<double>& v0,
         double t0, double h, long long steps, long long every, const std::string& method, int maxit, double tol) {
        if (q0.size() != v0.size()) throw lievi::invalid_argument("", "v0", "must have as many entries as q0");
        if (!(h > 0.0) || !std::isfinite(h)) throw lievi::invalid_argument("", "h", "must be a finite number > 0");
        if (steps < 0) throw lievi::invalid_argument("", "steps", "must be >= 0");
        if (every < 1) throw lievi::invalid_argument("", "every", "must be >= 1");
        const Callbacks cb{std::move(derivatives), std::move(force)};
        return dispatch(std::make_integer_sequence<int, kMaxDim>{}, static_cast<int>(q0.size()), method, cb, q0, v0,
                        t0, h, steps, every, maxit, tol);
      },
      py::arg("derivatives"), py::arg("force"), py::arg("q0"), py::arg("v0"), py::arg("t0"), py::arg("h"),
      py::arg("steps"), py::arg("every"), py::arg("method"), py::arg("maxit"), py::arg("tol"));
}
