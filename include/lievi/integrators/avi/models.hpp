#pragma once
/// @file lievi/integrators/avi/models.hpp
/// @brief Segment potentials for the asynchronous variational integrator (docs/theory/avi.md "Models").
///
/// A segment model gives, for segment e with end positions x_a, x_b (type Point):
///   energy(e, x_a, x_b)      V_e(x_a, x_b)
///   force(e, x_a, x_b)       F_e = ∂V_e/∂x_b; every model here depends on x_b − x_a only (translation
///                            invariance), so ∂V_e/∂x_a = −F_e and the AVI's two impulses cancel exactly
///   step_limit(e)            the segment's own stability limit h*_e = Δs_e / c_e (the element CFL limit:
///                            the two-node element with the lumped element masses ρ_e Δs_e / 2 has
///                            ω_e = 2 c_e / Δs_e and leapfrog needs h ω <= 2)
///   mass(e)                  ρ_e Δs_e, the segment's mass (for Mesh::dual_cells)
#include <Eigen/Core>
#include <cmath>
#include <cstddef>
#include <stdexcept>
#include <vector>

namespace lievi::integrators::avi {

/// The scalar wave equation u_tt = (κ u_s)_s / ρ on a graded mesh: V_e = ½ κ_e (u_b − u_a)² / Δs_e, i.e.
/// Δs_e ½ κ_e γ_e² with the strain γ_e = (u_b − u_a) / Δs_e (lievi's Wave<1> density on segment e).
struct WaveSegments {
  using Point = double;
  std::vector<double> ds, kappa, rho;  ///< per segment: length Δs_e, stiffness κ_e, mass per length ρ_e
  std::vector<double> inv_ds;          ///< 1 / Δs_e (as the synchronous stepper forms the strain)

  WaveSegments(std::vector<double> ds_, std::vector<double> kappa_, std::vector<double> rho_)
      : ds(std::move(ds_)), kappa(std::move(kappa_)), rho(std::move(rho_)) {
    if (ds.size() != kappa.size() || ds.size() != rho.size())
      throw std::invalid_argument("avi::WaveSegments: one ds, kappa and rho per segment");
    for (std::size_t e = 0; e < ds.size(); ++e) {
      if (!(ds[e] > 0.0) || !(kappa[e] > 0.0) || !(rho[e] > 0.0))
        throw std::invalid_argument("avi::WaveSegments: ds, kappa and rho must be > 0");
      inv_ds.push_back(1.0 / ds[e]);
    }
  }
  /// n uniform segments of length ds (lievi's Wave<1>{rho, kappa} on a uniform grid).
  static WaveSegments uniform(std::ptrdiff_t n, double ds, double kappa, double rho) {
    const auto s = static_cast<std::size_t>(n);
    return WaveSegments(std::vector<double>(s, ds), std::vector<double>(s, kappa),
                        std::vector<double>(s, rho));
  }
  [[nodiscard]] std::ptrdiff_t n_segments() const { return static_cast<std::ptrdiff_t>(ds.size()); }

  /// γ_e = (u_b − u_a) / Δs_e.
  [[nodiscard]] double strain(std::ptrdiff_t e, double xa, double xb) const {
    return inv_ds[static_cast<std::size_t>(e)] * (xb - xa);
  }
  /// V_e = Δs_e ½ κ_e γ_e².
  [[nodiscard]] double energy(std::ptrdiff_t e, double xa, double xb) const {
    const double g = strain(e, xa, xb);
    return ds[static_cast<std::size_t>(e)] * (0.5 * kappa[static_cast<std::size_t>(e)] * g * g);
  }
  /// F_e = ∂V_e/∂u_b = κ_e γ_e (the stress Π_e).
  [[nodiscard]] double force(std::ptrdiff_t e, double xa, double xb) const {
    return kappa[static_cast<std::size_t>(e)] * strain(e, xa, xb);
  }
  /// c_e = sqrt(κ_e / ρ_e).
  [[nodiscard]] double speed(std::ptrdiff_t e) const {
    return std::sqrt(kappa[static_cast<std::size_t>(e)] / rho[static_cast<std::size_t>(e)]);
  }
  /// h*_e = Δs_e / c_e.
  [[nodiscard]] double step_limit(std::ptrdiff_t e) const {
    return ds[static_cast<std::size_t>(e)] / speed(e);
  }
  /// ρ_e Δs_e.
  [[nodiscard]] double mass(std::ptrdiff_t e) const {
    return rho[static_cast<std::size_t>(e)] * ds[static_cast<std::size_t>(e)];
  }
};

/// A geometrically nonlinear elastic string in R^3: nodes x_a in R^3, segment e of rest length L_e, axial
/// stiffness k_e (EA, a force) and mass per rest length ρ_e, with the stretching energy
///   V_e = ½ k_e (l_e − L_e)² / L_e,   l_e = |x_b − x_a|,
/// (a linear spring of stiffness k_e / L_e in the segment's length: the string's Δs_e ½ k_e ε_e² with the
/// engineering strain ε_e = (l_e − L_e) / L_e). Invariant under translations and rotations of R^3.
struct ElasticString {
  using Point = Eigen::Vector3d;
  std::vector<double> L, k, rho;  ///< per segment: rest length, axial stiffness, mass per rest length

  ElasticString(std::vector<double> L_, std::vector<double> k_, std::vector<double> rho_)
      : L(std::move(L_)), k(std::move(k_)), rho(std::move(rho_)) {
    if (L.size() != k.size() || L.size() != rho.size())
      throw std::invalid_argument("avi::ElasticString: one L, k and rho per segment");
    for (std::size_t e = 0; e < L.size(); ++e)
      if (!(L[e] > 0.0) || !(k[e] > 0.0) || !(rho[e] > 0.0))
        throw std::invalid_argument("avi::ElasticString: L, k and rho must be > 0");
  }
  [[nodiscard]] std::ptrdiff_t n_segments() const { return static_cast<std::ptrdiff_t>(L.size()); }

  /// V_e = ½ k_e (l − L_e)² / L_e.
  [[nodiscard]] double energy(std::ptrdiff_t e, const Point& xa, const Point& xb) const {
    const auto s = static_cast<std::size_t>(e);
    const double d = (xb - xa).norm() - L[s];
    return 0.5 * k[s] * d * d / L[s];
  }
  /// F_e = ∂V_e/∂x_b = k_e (l − L_e) / (L_e l) (x_b − x_a): the tension k_e ε_e along the unit chord.
  [[nodiscard]] Point force(std::ptrdiff_t e, const Point& xa, const Point& xb) const {
    const auto s = static_cast<std::size_t>(e);
    const Point d = xb - xa;
    const double l = d.norm();
    return (k[s] * (l - L[s]) / (L[s] * l)) * d;
  }
  /// The axial wave speed c_e = sqrt(k_e / ρ_e) (the tangent stiffness along the chord is k_e / L_e for every
  /// stretch, across it the smaller k_e (l − L_e) / (L_e l) when stretched).
  [[nodiscard]] double speed(std::ptrdiff_t e) const {
    return std::sqrt(k[static_cast<std::size_t>(e)] / rho[static_cast<std::size_t>(e)]);
  }
  /// h*_e = L_e / c_e.
  [[nodiscard]] double step_limit(std::ptrdiff_t e) const {
    return L[static_cast<std::size_t>(e)] / speed(e);
  }
  /// ρ_e L_e.
  [[nodiscard]] double mass(std::ptrdiff_t e) const {
    return rho[static_cast<std::size_t>(e)] * L[static_cast<std::size_t>(e)];
  }
};

/// The segment masses ρ_e Δs_e of a model (for Mesh::dual_cells).
template <class Model>
[[nodiscard]] std::vector<double> segment_masses(const Model& model) {
  std::vector<double> m;
  for (std::ptrdiff_t e = 0; e < model.n_segments(); ++e) m.push_back(model.mass(e));
  return m;
}

}  // namespace lievi::integrators::avi
