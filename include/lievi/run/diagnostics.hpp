#pragma once
/// @file lievi/run/diagnostics.hpp
/// @brief Per-step invariant diagnostics of a rigid-body run (summary.json `diagnostics`).
///
/// Over every accepted step k (seed 002 §3; docs/theory/ddb.md "Conventions", "One step, as implemented"):
///  - casimir_max_rel_drift     = max_k |C(M_k) - C(M_0)| / C(M_0),  C(M) = |M|^2 (Casimir, exact for DDB);
///  - energy_max_step_increase  = max_k (H(M_k) - H(M_{k-1})),  H = ½ M · 𝕀^{-1} M  (<= a few ulps in A–C);
///  - energy_max_step_increase_rel = the same divided by H(M_0);
///  - momentum_max_drift        = max_k |R_k M_k - R_0 M_0| / |M_0|  (spatial momentum, conserved at alpha =
///  0);
///  - orth_err_max              = max_k ||R_k^T R_k - Id||_max  (attitude off SO(3): round-off for DDB, drift
///    for RK4).
/// Relative quantities divide by 1 instead when the reference value is 0 (a body at rest).
#include <string>
#include <utility>
#include <vector>

#include "lievi/run/observer.hpp"

namespace lievi::run {

class RigidBodyDiagnostics final : public RigidBodyObserver {
 public:
  void begin(const models::RigidBody& model, const models::RigidBodyState& x0) override;
  void step(long long k, double t_k, const models::RigidBodyState& x_k) override;

  /// The diagnostics as (name, value) pairs, in the order above.
  [[nodiscard]] std::vector<std::pair<std::string, double>> values() const;
  void checkpoint(StateIO& a) override;

  double casimir_max_rel_drift = 0.0;
  double energy_max_step_increase = 0.0;
  double momentum_max_drift = 0.0;
  double orth_err_max = 0.0;

 private:
  models::Mat3 I_inv_ = models::Mat3::Identity();
  double C0_ = 1.0, C_ref_ = 0.0, H0_ = 1.0, H_prev_ = 0.0, M0_norm_ = 1.0;
  models::Vec3 m0_ = models::Vec3::Zero();  ///< spatial momentum R_0 M_0
  bool first_step_ = true;
};

}  // namespace lievi::run
