/// @file src/reference/rigid_body_taylor.cpp
/// @brief The long-double Taylor-series reference (docs/theory/ddb.md "References used by the tests") (see the header for the formulas).
#include "lievi/reference/rigid_body_taylor.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "lievi/core/error.hpp"

namespace lievi::reference {
namespace {

using Mat3L = Eigen::Matrix<long double, 3, 3>;

long double inf_norm(const Vec3L& v) { return v.cwiseAbs().maxCoeff(); }

/// Cross product written out (Eigen's cross needs <Eigen/Geometry>, kept out of this translation unit).
Vec3L cross(const Vec3L& a, const Vec3L& b) {
  return Vec3L(a(1) * b(2) - a(2) * b(1), a(2) * b(0) - a(0) * b(2), a(0) * b(1) - a(1) * b(0));
}

/// Taylor coefficients m_0..m_N at the point M (the recurrence of the header). Workspaces are sized N+1 by the caller.
void coefficients(const Mat3L& I_inv, const Mat3L& K, const Vec3L& M, int N, std::vector<Vec3L>& m,
                  std::vector<Vec3L>& Omega, std::vector<Vec3L>& Ku) {
  m[0] = M;
  for (int n = 0; n < N; ++n) {
    Omega[n] = I_inv * m[n];
    Vec3L u_n = Vec3L::Zero();
    for (int j = 0; j <= n; ++j) u_n += cross(m[j], Omega[n - j]);
    Ku[n] = K * u_n;
    Vec3L v_n = Vec3L::Zero();
    for (int j = 0; j <= n; ++j) v_n += cross(m[j], Ku[n - j]);
    m[n + 1] = (u_n + v_n) / static_cast<long double>(n + 1);
  }
}

/// sum_n m_n s^n by Horner.
Vec3L horner(const std::vector<Vec3L>& m, int N, long double s) {
  Vec3L y = m[N];
  for (int n = N - 1; n >= 0; --n) y = m[n] + s * y;
  return y;
}

}  // namespace

std::vector<Vec3L> taylor_dense_ld(const models::RigidBody& model, const models::Vec3& M0,
                                   const std::vector<double>& times, const TaylorOptions& options) {
  for (std::size_t i = 0; i < times.size(); ++i) {
    if (!(times[i] >= 0.0) || (i > 0 && times[i] < times[i - 1]))
      throw invalid_argument("", "times", "output times must be >= 0 and non-decreasing");
  }
  const int N = std::max(options.order, 4);
  const Mat3L I_inv = model.I_inv.cast<long double>();
  const Mat3L K = model.K.cast<long double>();
  std::vector<Vec3L> m(N + 1), Omega(N + 1), Ku(N + 1), out;
  out.reserve(times.size());

  Vec3L M = M0.cast<long double>();
  long double t = 0.0L;
  std::size_t i = 0;
  while (i < times.size() && times[i] == 0.0) {
    out.push_back(M);
    ++i;
  }
  while (i < times.size()) {
    coefficients(I_inv, K, M, N, m, Omega, Ku);
    const long double eps = options.tol * std::max(inf_norm(M), 1e-300L);
    long double s = INFINITY;
    for (int n : {N - 1, N}) {
      const long double a = inf_norm(m[n]);
      if (a > 0) s = std::min(s, std::pow(eps / a, 1.0L / n));
    }
    if (!std::isfinite(s)) s = static_cast<long double>(times.back()) - t;  // M is an equilibrium
    const long double t_next = t + s;
    while (i < times.size() && static_cast<long double>(times[i]) <= t_next) {
      out.push_back(horner(m, N, static_cast<long double>(times[i]) - t));
      ++i;
    }
    M = horner(m, N, s);
    t = t_next;
  }
  return out;
}

std::vector<models::Vec3> taylor_dense(const models::RigidBody& model, const models::Vec3& M0,
                                       const std::vector<double>& times, const TaylorOptions& options) {
  const auto ld = taylor_dense_ld(model, M0, times, options);
  std::vector<models::Vec3> out;
  out.reserve(ld.size());
  for (const auto& v : ld) out.push_back(v.cast<double>());
  return out;
}

models::Vec3 taylor_reference(const models::RigidBody& model, const models::Vec3& M0, double t,
                              const TaylorOptions& options) {
  return taylor_dense(model, M0, {t}, options).front();
}

}  // namespace lievi::reference
