/// @file src/integrators/rigid_body_registry.cpp
/// @brief Maps the method ids (`lievi methods`, docs/cli.md) to type-erased steppers over the templated
/// cores.
#include <Eigen/Eigenvalues>
#include <charconv>
#include <cmath>
#include <numbers>
#include <sstream>
#include <string>

#include "lievi/integrators/ddb.hpp"
#include "lievi/integrators/ode/rk4.hpp"
#include "lievi/integrators/rigid_body_stepper.hpp"
#include "registry_entries.hpp"

namespace lievi::integrators {
namespace {

/// x in the shortest form that reads back to the same double ("0.1", not "0.10000000000000001").
std::string shortest(double x) {
  char buf[32];
  const auto r = std::to_chars(buf, buf + sizeof buf, x);
  return std::string(buf, r.ptr);
}

/// Adapter for stateless explicit methods with `static StepResult step(model, state, h)`.
template <class Method>
class StatelessStepper final : public RigidBodyStepper {
 public:
  explicit StatelessStepper(const models::RigidBody& b) : b_(b) {}
  [[nodiscard]] MethodTraits traits() const override { return Method::traits; }
  [[nodiscard]] std::string retraction() const override { return ""; }
  void start(const models::RigidBodyState&, double) override {}
  StepResult step(models::RigidBodyState& x, double h) override { return Method::step(b_, x, h); }

 private:
  models::RigidBody b_;
};

/// Adapter for the DDB family: the core carries the Kahan residue; `start` runs the a-priori check.
template <class Core>
class DDBStepper final : public RigidBodyStepper {
 public:
  DDBStepper(const models::RigidBody& b, const RigidBodyMethodOptions& o) : core_(b), options_(o) {}
  [[nodiscard]] MethodTraits traits() const override { return Core::traits; }
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

std::string join(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& e : v) s += (s.empty() ? "" : ", ") + e;
  return s;
}

std::string allowed_methods() {
  std::vector<std::string> ids;
  for (const auto& t : rigid_body_methods()) ids.emplace_back(t.id);
  return join(ids);
}

template <class Core>
std::unique_ptr<RigidBodyStepper> make_ddb(const models::RigidBody& model, const RigidBodyMethodOptions& o) {
  return std::make_unique<DDBStepper<Core>>(model, o);
}

std::unique_ptr<RigidBodyStepper> make_ddb_any(const models::RigidBody& model, const RigidBodyMethodOptions& o) {
  if (o.retraction == "cayley") return make_ddb<DDBCayley>(model, o);
  if (o.retraction == "exp") return make_ddb<DDBExp>(model, o);
  if (o.retraction == "exp2") return make_ddb<DDBExp2>(model, o);
  throw invalid_argument({detail::unknown_retraction(o.retraction)});
}

MethodTraits ddb_traits(const RigidBodyMethodOptions& o) {
  if (o.retraction == "cayley") return DDBCayley::traits;
  if (o.retraction == "exp") return DDBExp::traits;
  if (o.retraction == "exp2") return DDBExp2::traits;
  throw invalid_argument({detail::unknown_retraction(o.retraction)});
}

std::unique_ptr<RigidBodyStepper> make_rk4(const models::RigidBody& model, const RigidBodyMethodOptions&) {
  return std::make_unique<StatelessStepper<RK4>>(model);
}
MethodTraits rk4_traits(const RigidBodyMethodOptions&) { return RK4::traits; }

/// Every entry, in listing order.
const std::vector<detail::MethodEntry>& entries() {
  static const std::vector<detail::MethodEntry> all = [] {
    std::vector<detail::MethodEntry> v = detail::basic_entries();
    for (auto& e : detail::symmetric_entries()) v.push_back(e);
    for (auto& e : detail::ode_entries()) v.push_back(e);
    return v;
  }();
  return all;
}

const detail::MethodEntry* find_entry(const std::string& id) {
  for (const auto& e : entries())
    if (id == e.traits.id) return &e;
  return nullptr;
}

[[noreturn]] void throw_unknown_method(const std::string& id) {
  throw invalid_argument("", "integrator.method", "unknown method '" + id + "'; allowed: " + allowed_methods());
}

}  // namespace

namespace detail {
InputIssue unknown_retraction(const std::string& r) {
  return {"", "integrator.retraction", "unknown retraction '" + r + "'; allowed: " + join(rigid_body_retractions())};
}

std::vector<MethodEntry> basic_entries() {
  return {{DDBCayley::traits, true, &make_ddb_any, &ddb_traits}, {RK4::traits, false, &make_rk4, &rk4_traits}};
}
}  // namespace detail

std::unique_ptr<RigidBodyStepper> make_rigid_body_stepper(const models::RigidBody& model,
                                                          const RigidBodyMethodOptions& options) {
  const auto* e = find_entry(options.method);
  if (!e) throw_unknown_method(options.method);
  return e->make(model, options);
}

MethodTraits rigid_body_method_traits(const RigidBodyMethodOptions& options) {
  const auto* e = find_entry(options.method);
  if (!e) throw_unknown_method(options.method);
  return e->traits_for(options);
}

std::vector<MethodTraits> rigid_body_methods() {
  std::vector<MethodTraits> v;
  for (const auto& e : entries()) v.push_back(e.traits);
  return v;
}

std::vector<std::string> rigid_body_retractions() { return {"cayley", "exp", "exp2"}; }

void check_rigid_body_step(const models::RigidBody& model, const RigidBodyMethodOptions& options,
                           const models::Vec3& M0, double dt) {
  std::vector<InputIssue> issues;
  const auto* entry = find_entry(options.method);
  const bool uses_retraction = entry && entry->uses_retraction;
  if (!entry)
    issues.push_back({"", "integrator.method", "unknown method '" + options.method + "'; allowed: " + allowed_methods()});
  bool known_retraction = false;
  for (const auto& r : rigid_body_retractions()) known_retraction = known_retraction || options.retraction == r;
  if (uses_retraction && !known_retraction) issues.push_back(detail::unknown_retraction(options.retraction));

  if (!(std::isfinite(dt) && dt > 0.0)) {
    issues.push_back({"", "integrator.dt", "value " + shortest(dt) + " must be finite and > 0"});
  } else if (uses_retraction && options.retraction == "exp") {
    // I_min: smallest eigenvalue of the symmetric inertia.
    const double I_min = Eigen::SelfAdjointEigenSolver<models::Mat3>(model.I, Eigen::EigenvaluesOnly).eigenvalues()(0);
    const double bound = dt * M0.norm() / I_min;
    if (!(bound < 2.0 * std::numbers::pi)) {
      issues.push_back({"", "integrator.dt",
                        "value " + shortest(dt) + " too large for retraction 'exp': dt |M0| / I_min = " +
                            shortest(bound) + " must be < 2 pi (pole of psi_exp at h|xi| = 2 pi); use dt < " +
                            shortest(2.0 * std::numbers::pi * I_min / M0.norm()) + " or retraction 'cayley'"});
    }
  }
  if (!issues.empty()) throw invalid_argument(std::move(issues));
}

}  // namespace lievi::integrators
