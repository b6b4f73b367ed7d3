#pragma once
// Shared pieces of the AVI tests, written independently of lievi/integrators/avi: graded meshes of [0, 1], a
// plain-array synchronous leapfrog (velocity Verlet) for the graded wave, d'Alembert's solution.
#include <cmath>
#include <cstddef>
#include <vector>

namespace avi_test {

/// A graded mesh of [0, 1]: N segments of length 1/N per unit length outside [r0, r1), R times shorter inside
/// (r0, r1 multiples of 1/N); per-segment density and stiffness from functions of the segment midpoint.
struct GradedMesh {
  std::vector<double> s;               ///< node positions
  std::vector<double> ds, rho, kappa;  ///< per segment
};
template <class Rho, class Kappa>
GradedMesh graded(int N, double r0, double r1, int R, Rho&& rho, Kappa&& kappa) {
  GradedMesh g;
  g.s.push_back(0.0);
  const int n0 = static_cast<int>(std::lround(r0 * N)), n1 = static_cast<int>(std::lround(r1 * N));
  for (int c = 0; c < N; ++c) {
    const int parts = (c >= n0 && c < n1) ? R : 1;
    for (int q = 0; q < parts; ++q) {
      const double a = static_cast<double>(c) / N + static_cast<double>(q) / (static_cast<double>(N) * parts);
      const double b =
          static_cast<double>(c) / N + static_cast<double>(q + 1) / (static_cast<double>(N) * parts);
      g.s.push_back(b);
      g.ds.push_back(b - a);
      g.rho.push_back(rho(0.5 * (a + b)));
      g.kappa.push_back(kappa(0.5 * (a + b)));
    }
  }
  return g;
}

/// Synchronous leapfrog on a graded chain with lumped dual-cell masses: kick by h/2, then (drift h, kick h)
/// per step, the last kick's second half folded into the next: the textbook velocity-Verlet / Yee update with
/// node velocities at half steps. Fixed nodes (clamped ends) never move.
struct SyncLeapfrog {
  std::vector<double> u, v, m, ds, kappa, f;
  std::vector<char> fixed;
  double h;
  long long segment_updates = 0;  ///< one per segment and step
  SyncLeapfrog(const GradedMesh& g, std::vector<double> u0, std::vector<double> v0, double h_, bool clamped)
      : u(std::move(u0)), v(std::move(v0)), ds(g.ds), kappa(g.kappa), h(h_) {
    m.assign(u.size(), 0.0);
    for (std::size_t e = 0; e < ds.size(); ++e) {
      m[e] += 0.5 * g.rho[e] * ds[e];
      m[e + 1] += 0.5 * g.rho[e] * ds[e];
    }
    fixed.assign(u.size(), 0);
    if (clamped) fixed.front() = fixed.back() = 1;
    forces();
    for (std::size_t a = 0; a < u.size(); ++a) v[a] = fixed[a] ? 0.0 : v[a] + 0.5 * h * f[a] / m[a];
  }
  void forces() {
    f.assign(u.size(), 0.0);
    for (std::size_t e = 0; e < ds.size(); ++e) {
      const double stress = kappa[e] * (u[e + 1] - u[e]) / ds[e];
      f[e] += stress;
      f[e + 1] -= stress;
    }
  }
  /// u^{n+1} = u^n + h v^{n+1/2}; v^{n+3/2} = v^{n+1/2} + h f(u^{n+1}) / m.
  void step() {
    for (std::size_t a = 0; a < u.size(); ++a) u[a] += h * v[a];
    forces();
    for (std::size_t a = 0; a < u.size(); ++a)
      if (!fixed[a]) v[a] += h * f[a] / m[a];
    segment_updates += static_cast<long long>(ds.size());
  }
};

/// d'Alembert's solution of u_tt = u_ss on [0, 1] from u(s, 0) = u0(s), u_t = 0: (F(s − t) + F(s + t)) / 2, F
/// the 2-periodic extension of u0, even (free ends, u_s = 0) or odd (clamped ends, u = 0).
template <class U0>
double dalembert(double s, double t, U0&& u0, bool odd) {
  auto F = [&](double x) {
    x = std::fmod(x, 2.0);
    if (x < 0) x += 2.0;
    if (x <= 1.0) return u0(x);
    return odd ? -u0(2.0 - x) : u0(2.0 - x);
  };
  return 0.5 * (F(s - t) + F(s + t));
}

}  // namespace avi_test
