/// @file src/run/state_run.cpp
/// @brief The parts of summary.json that the state-vector runs (mechanics, lie_group, kirchhoff) share.
#include "state_run.hpp"

#include <cmath>

#include "lievi/version.hpp"

namespace lievi::run::detail {

json finite_or_null(double x) { return std::isfinite(x) ? json(x) : json(nullptr); }

json finite_array(const double* v, std::size_t n) {
  json a = json::array();
  for (std::size_t i = 0; i < n; ++i) a.push_back(finite_or_null(v[i]));
  return a;
}

json summary_opening(const RunReport& r, const std::vector<io::ResolvedEntry>& entries, const std::string& name) {
  json j;
  j["status"] = r.complete ? "complete" : "failed";
  if (r.failure) {
    const auto& f = *r.failure;
    j["failure"] = {{"step", f.step},
                    {"t", f.t},
                    {"residual", finite_or_null(f.residual)},
                    {"message", f.message},
                    {"hint", f.hint}};
  }
  j["scenario"] = scenario_json(entries);
  j["scenario_name"] = name;
  return j;
}

void add_summary_counts(json& j, const RunReport& r, long long steps_planned) {
  j["steps"] = r.steps;
  j["steps_planned"] = steps_planned;
  j["rows"] = r.rows;
  j["timing"] = {{"integrate_s", r.integrate_s}, {"total_s", r.total_s}};
}

json diagnostics_json(const RunReport& r) {
  json d = json::object();
  for (const auto& [key, value] : r.diagnostics) d[key] = finite_or_null(value);
  return d;
}

void add_summary_closing(json& j, json d, const RunReport& r, const NewtonStats& newton) {
  j["diagnostics"] = std::move(d);
  j["newton"] = {{"max", newton.max}, {"mean", newton.mean}, {"total", newton.total}};
  j["notes"] = r.notes;
  j["version"] = lievi::version;
}

}  // namespace lievi::run::detail
