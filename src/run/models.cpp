/// @file src/run/models.cpp
/// @brief The model registry (run/models.hpp): each model type's checks, resolved printout, run, ensemble and
/// methods, behind one entry.
#include "lievi/run/models.hpp"

#include <cstdarg>
#include <cstdio>
#include <variant>

#include "lievi/core/error.hpp"
#include "lievi/integrators/rigid_body_stepper.hpp"
#include "lievi/io/mechanics_scenario.hpp"
#include "lievi/run/beam_run.hpp"
#include "lievi/run/mechanics_run.hpp"
#include "lievi/run/wave_run.hpp"

namespace lievi::run {
namespace {

namespace fs = std::filesystem;

/// printf into a string.
std::string format(const char* f, ...) {
  va_list a, b;
  va_start(a, f);
  va_copy(b, a);
  std::string out(static_cast<std::size_t>(std::vsnprintf(nullptr, 0, f, a)), '\0');
  std::vsnprintf(out.data(), out.size() + 1, f, b);
  va_end(a);
  va_end(b);
  return out;
}

/// The report of a model's result.
RunOutcome outcome_of(const RunReport& r) {
  RunOutcome o;
  static_cast<RunReport&>(o) = r;
  return o;
}

/// --paths on a model without noise.
void refuse_paths(long long paths, const char* model) {
  if (paths != 0)
    throw invalid_argument("--paths", "",
                           "value " + std::to_string(paths) + " not allowed: " + model +
                               " has no noise, so there is nothing to sample");
}

template <class S>
fs::path out_or_default(const S& s, const fs::path& out) {
  return out.empty() ? default_output_dir(s) : out;
}

const char* yes(bool b) { return b ? "yes" : "no"; }

ModelType rigid_body() {
  using S = io::RigidBodyScenario;
  return {"rigid_body", io::rigid_body_schema,
          [](const io::AnyScenario& s) { (void)prepare_rigid_body(std::get<S>(s)); },
          [](const io::AnyScenario& s) { return io::to_toml(std::get<S>(s)); },
          [](const io::AnyScenario& any, long long paths, const fs::path& out, const RunOptions& options) {
            refuse_paths(paths, "the rigid body");
            const S& s = std::get<S>(any);
            const RunResult r = run_rigid_body(s, out_or_default(s, out), options);
            RunOutcome o = outcome_of(r);
            o.what = format("%lld steps of %s%s", r.steps, config::id(s.method),
                            r.retraction.empty() ? "" : (" (" + r.retraction + ")").c_str());
            return o;
          },
          [] {
            std::string t = format("%-16s %5s  %-8s  %-9s  %-10s  %s\n", "id", "order", "implicit", "casimirs",
                                   "symplectic", "summary");
            for (const auto& m : integrators::rigid_body_methods())
              t += format("%-16s %5d  %-8s  %-9s  %-10s  %s\n", m.id, m.order, yes(m.is_implicit),
                          yes(m.preserves_casimirs), yes(m.symplectic), m.summary);
            std::string r;
            for (const auto& x : integrators::rigid_body_retractions()) r += (r.empty() ? "" : ", ") + x;
            return t + "\nretractions (integrator.retraction, DDB family): " + r + "\n";
          }};
}

ModelType wave() {
  using S = io::WaveScenario;
  return {"wave", io::wave_schema, [](const io::AnyScenario& s) { check_wave(std::get<S>(s)); },
          [](const io::AnyScenario& s) { return io::to_toml(std::get<S>(s)); },
          [](const io::AnyScenario& any, long long paths, const fs::path& out, const RunOptions& options) {
            const S& s = std::get<S>(any);
            const WaveRunResult r =
                paths > 0 ? run_wave_ensemble(s, paths, out_or_default(s, out), options)
                          : run_wave(s, out_or_default(s, out), options);
            RunOutcome o = outcome_of(r);
            o.what = format("%lld steps of %s (%s) on %lld nodes%s", r.steps, config::id(s.method),
                            config::id(s.variant), s.n_nodes(),
                            r.paths > 1 || paths > 0 ? (", " + std::to_string(r.paths) + " paths").c_str() : "");
            return o;
          },
          [] {
            const char* row = "%-16s %5d  %-8s  %-9s  %-10s  %s\n";
            return "\nfield methods (model.type = \"wave\"; integrator.variant = exact | approx coincide on G = R):\n" +
                   format(row, "type-i", 2, "no", "-", "yes",
                          "stochastic kinematics (discrete stochastic Hamilton principle): staggered leapfrog / 1-D "
                          "Yee, noise through the group increment (Stratonovich)") +
                   format(row, "type-ii", 2, "no", "-", "yes",
                          "stochastic potential Phi = <mu, Theta> (discrete Hamilton-Pontryagin): the "
                          "general-potential code path; the same scheme as type-i");
          }};
}

ModelType beam() {
  using S = io::BeamScenario;
  return {"beam", io::beam_schema, [](const io::AnyScenario& s) { check_beam(std::get<S>(s)); },
          [](const io::AnyScenario& s) { return io::to_toml(std::get<S>(s)); },
          [](const io::AnyScenario& any, long long paths, const fs::path& out, const RunOptions& options) {
            const S& s = std::get<S>(any);
            const WaveRunResult r = paths > 0 ? run_beam_ensemble(s, paths, out_or_default(s, out), options)
                                              : run_beam(s, out_or_default(s, out), options);
            RunOutcome o = outcome_of(r);
            o.what = format("%lld steps of the %s beam integrator (%s, %s) on %lld nodes%s", r.steps,
                            config::id(s.variant), config::id(s.method), config::id(s.retraction), s.n_nodes(),
                            paths > 0 ? (", " + std::to_string(r.paths) + " paths").c_str() : "");
            return o;
          },
          [] {
            const char* row = "%-16s %5d  %-8s  %-9s  %-10s  %s\n";
            return "\nbeam methods (model.type = \"beam\"; integrator.method, with integrator.variant and "
                   "integrator.retraction):\n" +
                   format("%-16s %5s  %-8s  %-9s  %-10s  %s\n", "id", "order", "implicit", "momentum", "symplectic",
                          "summary") +
                   format(row, "type-i", 2, "yes", "yes", "yes",
                          "stochastic kinematics on SE(3) (discrete stochastic Hamilton principle): staggered in "
                          "time, each node's implicit equation solved on its own (Newton), noise through the group "
                          "increment (Stratonovich)") +
                   format(row, "type-ii", 2, "yes", "yes", "yes",
                          "stochastic potential Phi = <mu, Theta> (discrete Hamilton-Pontryagin): the "
                          "general-potential code path; without noise the same scheme as type-i") +
                   "variants (integrator.variant): exact (exact Ad* and dtau^-1: order 2, the momentum map to "
                   "round-off; the default), approx (BCH-truncated operators: order 1 with strains, the momentum map "
                   "approximately)\n"
                   "retractions (integrator.retraction, beam): cayley (the default), exp\n";
          }};
}

ModelType lagrangian() {
  using S = io::MechanicsScenario;
  return {"lagrangian", io::mechanics_schema, [](const io::AnyScenario& s) { check_mechanics(std::get<S>(s)); },
          [](const io::AnyScenario& s) { return io::to_toml(std::get<S>(s)); },
          [](const io::AnyScenario& any, long long paths, const fs::path& out, const RunOptions& options) {
            refuse_paths(paths, "the lagrangian model");
            const S& s = std::get<S>(any);
            const MechanicsRunResult r = run_mechanics(s, out_or_default(s, out), options);
            RunOutcome o = outcome_of(r);
            o.what = format("%lld steps of %s on %s (n = %d)", r.steps, config::id(s.method), config::id(s.system),
                            s.dim());
            o.notes_first = true;
            return o;
          },
          [] {
            std::string t =
                "\nlagrangian methods (model.type = \"lagrangian\"; constraints: SHAKE/RATTLE for the spherical "
                "pendulum):\n" +
                format("%-18s %5s  %-8s  %-11s  %-11s  %s\n", "id", "order", "implicit", "symplectic", "constraints",
                       "summary");
            for (const auto& m : io::mechanics_methods())
              t += format("%-18s %5d  %-8s  %-11s  %-11s  %s\n", m.id(), m.order, yes(m.is_implicit),
                          yes(m.symplectic), yes(m.constraints), m.summary);
            return t;
          }};
}

}  // namespace

const std::vector<ModelType>& model_registry() {
  static const std::vector<ModelType> v = {rigid_body(), wave(), beam(), lagrangian()};
  return v;
}

const ModelType& model_of(const io::AnyScenario& s) {
  const std::string type = std::visit([](const auto& x) { return std::string(x.model_type); }, s);
  for (const auto& m : model_registry())
    if (m.name == type) return m;
  throw std::logic_error("a scenario type without a registry entry");
}

}  // namespace lievi::run
