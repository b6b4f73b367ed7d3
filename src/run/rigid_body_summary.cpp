/// @file src/run/rigid_body_summary.cpp
/// @brief summary.json of a rigid-body run (nlohmann_json; fields as docs/outputs.md lists them).
#include "lievi/run/rigid_body_summary.hpp"

#include <fstream>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "field_summary.hpp"
#include "lievi/run/rigid_body_series.hpp"
#include "lievi/version.hpp"

namespace lievi::run {
namespace {

using json = detail::json;

json vec(const models::Vec3& x) {
  return json::array({x[0], x[1], x[2]});
}

}  // namespace

std::string rigid_body_summary_json(const io::RigidBodyScenario& s, const RunResult& r) {
  json j;
  j["status"] = r.complete ? "complete" : "failed";
  if (r.failure) {
    const auto& f = *r.failure;
    j["failure"] = {{"step", f.step},       {"t", f.t},      {"node", f.node}, {"residual", f.residual},
                    {"message", f.message}, {"hint", f.hint}};
  }
  j["scenario"] = detail::scenario_json(io::resolved_entries(s));
  j["scenario_name"] = s.name;
  j["method"] = {{"id", r.traits.id},
                 {"order", r.traits.order},
                 {"retraction", r.retraction.empty() ? json(nullptr) : json(r.retraction)},
                 {"implicit", r.traits.is_implicit},
                 {"preserves_casimirs", r.traits.preserves_casimirs},
                 {"symplectic", r.traits.symplectic}};
  j["steps"] = r.steps;
  j["steps_planned"] = s.steps;
  j["rows"] = r.rows;
  j["n_nodes"] = 1;
  j["timing"] = {{"integrate_s", r.integrate_s},
                 {"total_s", r.total_s},
                 {"ns_per_step", r.steps > 0 ? 1e9 * r.integrate_s / static_cast<double>(r.steps) : 0.0}};
  const RigidBodyRow row = rigid_body_row(s.model(), r.t_final, r.final_state);
  json R = json::array();
  for (int i = 0; i < 3; ++i) R.push_back(vec(r.final_state.R.row(i).transpose()));
  j["final"] = {{"t", r.t_final},
                {"M", vec(r.final_state.M)},
                {"R", R},
                {"q", json::array({row.v[6], row.v[7], row.v[8], row.v[9]})},
                {"energy", row.v[4]},
                {"casimir", row.v[5]}};
  json d = json::object();
  for (const auto& [name, value] : r.diagnostics) d[name] = value;
  j["diagnostics"] = d;
  j["newton"] = {{"max", r.newton.max}, {"mean", r.newton.mean}, {"total", r.newton.total}};
  j["notes"] = r.notes;
  j["version"] = lievi::version;
  return j.dump(2) + "\n";
}

void write_rigid_body_summary(const std::filesystem::path& path, const io::RigidBodyScenario& s,
                              const RunResult& r) {
  std::ofstream out(path, std::ios::binary);
  out << rigid_body_summary_json(s, r);
  out.close();
  if (!out) throw std::runtime_error("writing " + path.string() + " failed");
}

}  // namespace lievi::run
