/// @file src/integrators/registry_symmetric.cpp
/// @brief Registry entries of the symmetric DDB family: `ddb-symmetric` (docs/theory/ddb.md; retraction
/// cayley | exp | exp2, dissipation quadrature midpoint | trapezoid, symmetric processing on/off) and
/// `moser-veselov` (docs/theory/ddb.md).
#include <memory>
#include <string>

#include "lievi/integrators/ddb_symmetric.hpp"
#include "lievi/integrators/moser_veselov.hpp"
#include "registry_entries.hpp"

namespace lievi::integrators::detail {
namespace {

/// Adapter for ddb-symmetric: `start` runs the a-priori check (exp step bound) and prepares the processing.
template <class Core>
class SymmetricStepper final : public RigidBodyStepper {
 public:
  SymmetricStepper(const models::RigidBody& b, const RigidBodyMethodOptions& o)
      : core_(b, o.symmetric_processing), options_(o) {}
  [[nodiscard]] MethodTraits traits() const override { return core_.traits(); }
  [[nodiscard]] std::string retraction() const override { return Core::R::id; }
  void start(const models::RigidBodyState& x0, double h) override {
    check_rigid_body_step(core_.model(), options_, x0.M, h);
    core_.start(x0, h);
  }
  StepResult step(models::RigidBodyState& x, double h) override { return core_.step(x, h); }
  void checkpoint(StateIO& a) override { core_.state(a); }

 private:
  Core core_;
  RigidBodyMethodOptions options_;
};

/// Adapter for moser-veselov (no retraction option: w = cay(h xi) by construction).
class MoserVeselovStepper final : public RigidBodyStepper {
 public:
  MoserVeselovStepper(const models::RigidBody& b, const RigidBodyMethodOptions& o) : core_(b), options_(o) {}
  [[nodiscard]] MethodTraits traits() const override { return MoserVeselov::traits; }
  [[nodiscard]] std::string retraction() const override { return ""; }
  void start(const models::RigidBodyState& x0, double h) override {
    check_rigid_body_step(core_.model(), options_, x0.M, h);
    core_.start(x0, h);
  }
  StepResult step(models::RigidBodyState& x, double h) override { return core_.step(x, h); }
  void checkpoint(StateIO& a) override { core_.state(a); }

 private:
  MoserVeselov core_;
  RigidBodyMethodOptions options_;
};

[[noreturn]] void throw_unknown_quadrature(const std::string& q) {
  throw invalid_argument("", "integrator.dissipation_quadrature",
                         "unknown dissipation quadrature '" + q + "'; allowed: midpoint, trapezoid");
}

template <class R>
std::unique_ptr<RigidBodyStepper> make_symmetric_r(const models::RigidBody& model, const RigidBodyMethodOptions& o) {
  if (o.dissipation_quadrature == "midpoint")
    return std::make_unique<SymmetricStepper<DDBSymmetric<R, DissipationQuadrature::midpoint>>>(model, o);
  if (o.dissipation_quadrature == "trapezoid")
    return std::make_unique<SymmetricStepper<DDBSymmetric<R, DissipationQuadrature::trapezoid>>>(model, o);
  throw_unknown_quadrature(o.dissipation_quadrature);
}

std::unique_ptr<RigidBodyStepper> make_symmetric(const models::RigidBody& model, const RigidBodyMethodOptions& o) {
  if (o.retraction == "cayley") return make_symmetric_r<lie::Cayley<lie::SO3>>(model, o);
  if (o.retraction == "exp") return make_symmetric_r<lie::Exp<lie::SO3>>(model, o);
  if (o.retraction == "exp2") return make_symmetric_r<lie::Exp2<lie::SO3>>(model, o);
  throw invalid_argument({unknown_retraction(o.retraction)});
}

MethodTraits symmetric_traits(const RigidBodyMethodOptions& o) {
  if (o.dissipation_quadrature != "midpoint" && o.dissipation_quadrature != "trapezoid")
    throw_unknown_quadrature(o.dissipation_quadrature);
  if (o.retraction == "cayley") return ddb_symmetric_traits<lie::Cayley<lie::SO3>>(o.symmetric_processing);
  if (o.retraction == "exp") return ddb_symmetric_traits<lie::Exp<lie::SO3>>(o.symmetric_processing);
  if (o.retraction == "exp2") return ddb_symmetric_traits<lie::Exp2<lie::SO3>>(o.symmetric_processing);
  throw invalid_argument({unknown_retraction(o.retraction)});
}

std::unique_ptr<RigidBodyStepper> make_moser_veselov(const models::RigidBody& model,
                                                     const RigidBodyMethodOptions& o) {
  return std::make_unique<MoserVeselovStepper>(model, o);
}
MethodTraits moser_veselov_traits(const RigidBodyMethodOptions&) { return MoserVeselov::traits; }

}  // namespace

std::vector<MethodEntry> symmetric_entries() {
  return {{ddb_symmetric_traits<lie::Cayley<lie::SO3>>(true), true, &make_symmetric, &symmetric_traits},
          {MoserVeselov::traits, false, &make_moser_veselov, &moser_veselov_traits}};
}

}  // namespace lievi::integrators::detail
