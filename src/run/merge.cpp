/// @file src/run/merge.cpp
/// @brief `lievi merge DIR... --out DIR` (run/models.hpp): slices of one ensemble, combined into the outputs of
/// the ensemble run whole, bit for bit.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <fstream>
#include <limits>
#include <optional>
#include <variant>

#include "ensemble.hpp"
#include "lievi/core/error.hpp"
#include "lievi/io/any_scenario.hpp"
#include "lievi/io/npy.hpp"
#include "lievi/io/output_dir.hpp"
#include "lievi/run/models.hpp"
#include "lievi/version.hpp"

namespace lievi::run {
namespace {

namespace fs = std::filesystem;
using detail::json;

struct Slice {
  fs::path dir;
  json j;
  long long begin = 0, end = 0;
};

std::string range_text(long long a, long long b) { return std::to_string(a) + ":" + std::to_string(b); }

/// slice.json of `dir`, checked on its own.
Slice read_slice(const fs::path& dir) {
  const fs::path file = dir / "slice.json";
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) throw invalid_argument(dir.string(), "", "no such folder");
  if (!fs::is_regular_file(file, ec) || fs::file_size(file, ec) > (64u << 20))
    throw invalid_argument(dir.string(), "",
                           "not an ensemble slice: no slice.json (lievi run FILE --paths N --path-range A:B "
                           "writes one)");
  std::ifstream in(file, std::ios::binary);
  Slice s{dir, json::parse(in, nullptr, /*allow_exceptions=*/false), 0, 0};
  const json& j = s.j;
  const auto bad = [&](const std::string& why) { throw invalid_argument(file.string(), "", why); };
  if (j.is_discarded() || !j.is_object() || j.value("format", "") != "lievi ensemble slice")
    bad("not a lievi ensemble slice");
  if (j.value("format_version", 0) != 1)
    bad("slice format version " + j.value("format_version", json(0)).dump() + "; this lievi reads version 1");
  if (j.value("lievi_version", "") != std::string(lievi::version))
    bad("written by lievi " + j.value("lievi_version", "?") + "; this is lievi " + std::string(lievi::version) +
        ": slices merge only with the version that ran them (bitwise statistics)");
  for (const char* k : {"model", "scenario_name", "scenario", "source"})
    if (!j.contains(k) || !j[k].is_string()) bad(std::string("no ") + k);
  for (const char* k : {"paths", "first_path", "rows", "steps", "newton_max", "paths_done"})
    if (!j.contains(k) || !j[k].is_number_integer()) bad(std::string("no ") + k);
  for (const char* k : {"t_final", "cfl_dt", "integrate_s"})
    if (!j.contains(k) || !j[k].is_number()) bad(std::string("no ") + k);
  if (!j.contains("range") || !j["range"].is_array() || j["range"].size() != 2 || !j["range"][0].is_number_integer() ||
      !j["range"][1].is_number_integer())
    bad("no range");
  if (!j.contains("first_phi") || !j["first_phi"].is_array() || !j.contains("first_notes") ||
      !j["first_notes"].is_array() || !j.contains("given_keys") || !j["given_keys"].is_array())
    bad("no first_phi, first_notes or given_keys");
  s.begin = j["range"][0].get<long long>();
  s.end = j["range"][1].get<long long>();
  if (!(0 <= s.begin && s.begin < s.end && s.end <= j["paths"].get<long long>())) bad("a bad range");
  if (!j.value("complete", false))
    throw invalid_argument(dir.string(), "",
                           "the slice " + range_text(s.begin, s.end) + " did not complete (" +
                               (j["failure"].is_string() ? j["failure"].get<std::string>() : std::string("stopped")) +
                               "): only complete slices merge; rerun it (or lievi resume it)");
  return s;
}

/// The first line where two texts differ.
std::string first_difference(const std::string& a, const std::string& b) {
  std::size_t i = 0, line = 0;
  while (i < a.size() && i < b.size() && a[i] == b[i]) {
    if (a[i] == '\n') line = i + 1;
    ++i;
  }
  const auto rest = [&](const std::string& s) { return s.substr(line, s.find('\n', line) - line); };
  return "'" + rest(a) + "' against '" + rest(b) + "'";
}

}  // namespace

RunOutcome merge_slices(const std::vector<fs::path>& dirs, const fs::path& out, const RunOptions& options,
                        std::string* scenario_name) {
  const auto t0 = std::chrono::steady_clock::now();
  if (dirs.empty()) throw invalid_argument("DIR", "", "no slices given: lievi merge DIR... --out DIR");
  if (out.empty()) throw invalid_argument("--out", "", "needed: the folder of the merged ensemble");
  std::vector<Slice> slices;
  for (const fs::path& d : dirs) slices.push_back(read_slice(d));
  // one ensemble: the same model, scenario, path count and first path
  const Slice& ref = slices.front();
  for (const Slice& s : slices) {
    for (const char* k : {"model", "scenario_name", "source", "paths", "first_path"})
      if (s.j[k] != ref.j[k])
        throw invalid_argument(s.dir.string(), k,
                               "value " + s.j[k].dump() + " differs from " + ref.dir.string() + "'s " + ref.j[k].dump() +
                                   ": slices of different ensembles do not merge");
    if (s.j["scenario"] != ref.j["scenario"])
      throw invalid_argument(s.dir.string(), "scenario",
                             "differs from " + ref.dir.string() + "'s (" +
                                 first_difference(s.j["scenario"].get<std::string>(), ref.j["scenario"].get<std::string>()) +
                                 "): slices of different scenarios do not merge");
  }
  const long long paths = ref.j["paths"].get<long long>();
  // the slices in path order must cover 0 ... N - 1 once
  std::sort(slices.begin(), slices.end(), [](const Slice& a, const Slice& b) { return a.begin < b.begin; });
  long long next = 0;
  for (std::size_t i = 0; i < slices.size(); ++i) {
    const Slice& s = slices[i];
    if (s.begin < next)
      throw invalid_argument(s.dir.string(), "range",
                             "paths " + range_text(s.begin, s.end) + " overlap " + slices[i - 1].dir.string() +
                                 "'s " + range_text(slices[i - 1].begin, slices[i - 1].end) +
                                 ": every path must come from one slice");
    if (s.begin > next)
      throw invalid_argument(s.dir.string(), "range",
                             "paths " + range_text(next, s.begin) + " (counted from noise.path) are missing before its " +
                                 range_text(s.begin, s.end) + ": give the slice that ran them");
    next = s.end;
  }
  if (next < paths)
    throw invalid_argument(slices.back().dir.string(), "range",
                           "paths " + range_text(next, paths) + " of the " + std::to_string(paths) +
                               " are missing after its " + range_text(slices.back().begin, slices.back().end) +
                               ": give the slice that ran them");
  // the scenario, as the slices ran it (side files found from its source's folder)
  const std::string label = (ref.dir / "slice.json").string();
  io::AnyScenario any = io::parse_any_scenario(ref.j["scenario"].get<std::string>(), label,
                                               ref.j["scenario_name"].get<std::string>(), {},
                                               ref.j["source"].get<std::string>());
  std::visit(
      [&](auto& x) {
        x.given_keys = ref.j["given_keys"].get<std::vector<std::string>>();
        x.source = ref.j["source"].get<std::string>();
      },
      any);
  if (scenario_name) *scenario_name = ref.j["scenario_name"].get<std::string>();
  for (const Slice& s : slices) io::protect_input(s.dir / "slice.json");  // --out never replaces a slice
  io::OutputDir dir(out, options.force);
  const auto merge = [&](const auto& s, const detail::EnsembleModel& m) {
    detail::EnsembleRun e{WaveRunResult{}, io::EnsembleSeries(m.columns)};
    WaveRunResult& total = e.total;
    total.complete = true;
    double integrate_s = 0.0;
    std::optional<io::NpyWriter> all;  // the whole ensemble's series_paths.npy, with output.quantiles
    for (const Slice& sl : slices) {
      const fs::path npy = sl.dir / "series_paths.npy";
      const io::NpyArray a = io::read_npy(npy);
      const std::size_t count = static_cast<std::size_t>(sl.end - sl.begin), rows = static_cast<std::size_t>(sl.j["rows"].get<long long>());
      if (a.shape != std::vector<std::size_t>{count, rows, m.columns.size()})
        throw invalid_argument(npy.string(), "",
                               "its shape is not paths x rows x columns = " + std::to_string(count) + " x " +
                                   std::to_string(rows) + " x " + std::to_string(m.columns.size()) +
                                   " (the slice's slice.json)");
      if (!m.quantiles.empty()) {
        if (!all) all.emplace(dir.tmp() / "series_paths.npy", std::vector<std::size_t>{static_cast<std::size_t>(paths), rows, m.columns.size()});
        all->append(a.data);
      }
      std::vector<std::vector<double>> path_rows(rows, std::vector<double>(m.columns.size()));
      for (std::size_t p = 0; p < count; ++p) {
        for (std::size_t r = 0; r < rows; ++r)
          std::copy_n(a.data.begin() + static_cast<std::ptrdiff_t>((p * rows + r) * m.columns.size()), m.columns.size(),
                      path_rows[r].begin());
        try {
          e.stats.add_path(path_rows);
        } catch (const std::invalid_argument& x) {
          throw invalid_argument(npy.string(), "", std::string("does not fit the slices before it: ") + x.what());
        }
        if (s.per_path) {
          const std::string name = "series_path" + std::to_string(s.path + sl.begin + static_cast<long long>(p)) + ".csv";
          std::error_code ec;
          if (!fs::is_regular_file(sl.dir / name, ec))
            throw invalid_argument(sl.dir.string(), "", "has no " + name + " (output.per_path is set)");
          fs::copy_file(sl.dir / name, dir.tmp() / name, ec);
          if (ec) throw std::runtime_error("cannot copy " + (sl.dir / name).string() + ": " + ec.message());
        }
      }
      total.steps = sl.j["steps"].get<long long>();
      total.rows = sl.j["rows"].get<long long>();
      total.t_final = sl.j["t_final"].get<double>();
      total.cfl_dt = sl.j["cfl_dt"].get<double>();
      total.newton_max = std::max(total.newton_max, sl.j["newton_max"].get<int>());
      integrate_s += sl.j["integrate_s"].get<double>();
      if (sl.begin == 0) {
        for (const json& v : sl.j["first_phi"])
          total.phi_final.push_back(v.is_number() ? v.get<double>() : std::numeric_limits<double>::quiet_NaN());
        total.notes = sl.j["first_notes"].get<std::vector<std::string>>();
      }
    }
    if (all) all->close();
    total.paths = static_cast<long long>(e.stats.paths());
    total.integrate_s = integrate_s;
    total.out_dir = out;
    detail::finish_ensemble(e, m, s.path, paths, nullptr, dir.tmp(), t0);
    dir.commit();
    RunOutcome o;
    static_cast<RunReport&>(o) = total;
    o.what = std::to_string(slices.size()) + " slices merged: " + std::to_string(paths) + " paths of " +
             std::to_string(total.steps) + " steps";
    return o;
  };
  return std::visit(
      [&](const auto& s) -> RunOutcome {
        using S = std::decay_t<decltype(s)>;
        if constexpr (std::is_same_v<S, io::WaveScenario>) return merge(s, detail::wave_ensemble_model(s));
        else if constexpr (std::is_same_v<S, io::BeamScenario>) return merge(s, detail::beam_ensemble_model(s));
        else throw invalid_argument(label, "model.type", "has no ensembles to merge");
      },
      any);
}

}  // namespace lievi::run
