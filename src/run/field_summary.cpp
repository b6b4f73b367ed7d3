/// @file src/run/field_summary.cpp
/// @brief The shared part of the summary.json of field runs.
#include "field_summary.hpp"

#include "lievi/core/error.hpp"

#include <cmath>
#include <fstream>
#include <stdexcept>
#include <variant>

#include "lievi/noise/philox.hpp"
#include "lievi/version.hpp"

namespace lievi::run::detail {

json scenario_json(const std::vector<io::ResolvedEntry>& entries) {
  json sc = json::object();
  for (const auto& e : entries) {
    const auto dot = e.key.find('.');
    sc[e.key.substr(0, dot)][e.key.substr(dot + 1)] = std::visit([](const auto& x) { return json(x); }, e.value);
  }
  return sc;
}

json field_summary(const std::vector<io::ResolvedEntry>& entries, const std::string& name, const WaveRunResult& r,
                   long long steps_planned, long long n_nodes) {
  json j;
  j["status"] = r.complete ? "complete" : "failed";
  if (r.failure) {
    const auto& f = *r.failure;
    j["failure"] = {{"step", f.step},       {"t", f.t},      {"node", f.node}, {"residual", f.residual},
                    {"message", f.message}, {"hint", f.hint}};
  }
  j["scenario"] = scenario_json(entries);
  j["scenario_name"] = name;
  j["steps"] = r.steps;
  j["steps_planned"] = steps_planned;
  j["rows"] = r.rows;
  j["snapshots"] = r.snapshots;
  j["n_nodes"] = n_nodes;
  j["paths"] = r.paths;
  const double node_steps =
      static_cast<double>(r.steps) * static_cast<double>(n_nodes) * static_cast<double>(r.paths);
  j["timing"] = {{"integrate_s", r.integrate_s},
                 {"total_s", r.total_s},
                 {"ns_per_node_step", node_steps > 0 ? 1e9 * r.integrate_s / node_steps : 0.0}};
  json d = json::object();
  for (const auto& [key, value] : r.diagnostics) d[key] = std::isfinite(value) ? json(value) : json(nullptr);
  j["diagnostics"] = d;
  j["newton"] = {{"max", r.newton_max}};
  j["notes"] = r.notes;
  // Noisy runs name the rule their Brownian increments were drawn by (noise/philox.hpp), so a result can be
  // matched with the lievi versions that reproduce it.
  const json& sc = j["scenario"];
  if (sc.contains("noise") && sc["noise"].contains("mode") && sc["noise"]["mode"] != "none") {
    j["noise"] = {{"stream", noise::kStreamVersion}};
  }
  j["version"] = lievi::version;
  return j;
}

void write_json(const std::filesystem::path& path, const json& j) {
  std::ofstream out(path, std::ios::binary);
  out << j.dump(2) << "\n";
  out.close();
  if (!out) throw std::runtime_error("writing " + path.string() + " failed");
}

void check_ensemble(field::NoiseMode noise_mode, std::uint32_t first_path, long long paths, const std::string& file) {
  if (noise_mode == field::NoiseMode::none)
    throw invalid_argument("--paths", "",
                           "value " + std::to_string(paths) + " needs a noisy scenario; " + file +
                               " has noise.mode = \"none\" (set noise.mode and noise.theta)");
  if (paths < 1 || static_cast<double>(first_path) + static_cast<double>(paths) - 1.0 > 4294967295.0)
    throw invalid_argument("--paths", "",
                           "value " + std::to_string(paths) + " must be >= 1 with noise.path + paths - 1 <= 4294967295");
}

}  // namespace lievi::run::detail
