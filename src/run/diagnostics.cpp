/// @file src/run/diagnostics.cpp
#include "lievi/run/diagnostics.hpp"

#include <algorithm>
#include <cmath>

namespace lievi::run {

void RigidBodyDiagnostics::begin(const models::RigidBody& model, const models::RigidBodyState& x0) {
  I_inv_ = model.I_inv;
  const double C0 = models::RigidBody::casimir(x0.M);
  C0_ = C0 > 0.0 ? C0 : 1.0;
  H_prev_ = model.energy(x0.M);
  H0_ = H_prev_ > 0.0 ? H_prev_ : 1.0;
  M0_norm_ = x0.M.norm() > 0.0 ? x0.M.norm() : 1.0;
  m0_ = x0.R * x0.M;
  casimir_max_rel_drift = energy_max_step_increase = momentum_max_drift = orth_err_max = 0.0;
  C_ref_ = C0;
  first_step_ = true;
}

void RigidBodyDiagnostics::step(long long, double, const models::RigidBodyState& x) {
  const double H = 0.5 * x.M.dot(I_inv_ * x.M);
  const double dH = H - H_prev_;
  energy_max_step_increase = first_step_ ? dH : std::max(energy_max_step_increase, dH);
  first_step_ = false;
  H_prev_ = H;
  casimir_max_rel_drift = std::max(casimir_max_rel_drift, std::abs(x.M.squaredNorm() - C_ref_) / C0_);
  momentum_max_drift = std::max(momentum_max_drift, (x.R * x.M - m0_).norm() / M0_norm_);
  orth_err_max =
      std::max(orth_err_max, (x.R.transpose() * x.R - models::Mat3::Identity()).cwiseAbs().maxCoeff());
}

void RigidBodyDiagnostics::checkpoint(StateIO& a) {
  a("casimir_max_rel_drift", casimir_max_rel_drift);
  a("energy_max_step_increase", energy_max_step_increase);
  a("momentum_max_drift", momentum_max_drift);
  a("orth_err_max", orth_err_max);
  a("H_prev", H_prev_);
  a("first_step", first_step_);
}

std::vector<std::pair<std::string, double>> RigidBodyDiagnostics::values() const {
  return {{"casimir_max_rel_drift", casimir_max_rel_drift},
          {"energy_max_step_increase", energy_max_step_increase},
          {"energy_max_step_increase_rel", energy_max_step_increase / H0_},
          {"momentum_max_drift", momentum_max_drift},
          {"orth_err_max", orth_err_max}};
}

}  // namespace lievi::run
