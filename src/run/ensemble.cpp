/// @file src/run/ensemble.cpp
/// @brief The ensemble driver of the field models (src/run/ensemble.hpp).
#include "ensemble.hpp"

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <span>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <stdexcept>

#include "lievi/core/error.hpp"
#include "lievi/parallel/comm.hpp"
#include "lievi/version.hpp"
#include "lievi/io/table_csv.hpp"
#include "lievi/io/scenario.hpp"
#include "lievi/run/progress.hpp"

namespace lievi::run::detail {
namespace {

namespace fs = std::filesystem;

double seconds(std::chrono::steady_clock::duration d) { return std::chrono::duration<double>(d).count(); }

/// A vector of doubles whose length is part of the state (saved before it, restored first).
void sized(StateIO& a, const std::string& name, std::vector<double>& v) {
  long long n = static_cast<long long>(v.size());
  a(name + "_size", n);
  if (n < 0) throw std::invalid_argument("checkpoint entry " + name + "_size is negative");
  v.resize(static_cast<std::size_t>(n));
  if (n > 0) a.doubles(name, v.data(), v.size());
}

/// Lines of text as integers (bytes, -1 ending each line).
void texts(StateIO& a, const std::string& name, std::vector<std::string>& lines) {
  std::vector<long long> code;
  for (const std::string& l : lines) {
    for (const char c : l) code.push_back(static_cast<unsigned char>(c));
    code.push_back(-1);
  }
  long long n = static_cast<long long>(code.size());
  a(name + "_size", n);
  if (n < 0) throw std::invalid_argument("checkpoint entry " + name + "_size is negative");
  code.resize(static_cast<std::size_t>(n));
  if (n > 0) a.integers(name, code.data(), code.size());
  if (!a.restoring()) return;
  lines.clear();
  std::string line;
  for (const long long c : code)
    if (c < 0) lines.push_back(std::exchange(line, {}));
    else line += static_cast<char>(c);
}

fs::path per_path_file(const fs::path& folder, long long k) {
  return folder / ("series_path" + std::to_string(k) + ".csv");
}

/// A path's run as bytes for another rank (and back): the result's counters, failure, first-path fields,
/// notes, the series rows and an error text.
class Bytes {
 public:
  std::vector<char> data;
  template <class T>
  void put(const T& x) {
    const char* p = reinterpret_cast<const char*>(&x);
    data.insert(data.end(), p, p + sizeof(T));
  }
  void put(const std::string& x) {
    put(static_cast<long long>(x.size()));
    data.insert(data.end(), x.begin(), x.end());
  }
  void put(const std::vector<double>& v) {
    put(static_cast<long long>(v.size()));
    const char* p = reinterpret_cast<const char*>(v.data());
    data.insert(data.end(), p, p + v.size() * sizeof(double));
  }
};

class Reader {
 public:
  explicit Reader(const std::vector<char>& d) : d_(d) {}
  template <class T>
  void get(T& x) {
    need(sizeof(T));
    std::memcpy(&x, d_.data() + at_, sizeof(T));
    at_ += sizeof(T);
  }
  void get(std::string& x) {
    long long n = 0;
    get(n);
    need(static_cast<std::size_t>(n));
    x.assign(d_.data() + at_, static_cast<std::size_t>(n));
    at_ += static_cast<std::size_t>(n);
  }
  void get(std::vector<double>& v) {
    long long n = 0;
    get(n);
    need(static_cast<std::size_t>(n) * sizeof(double));
    v.resize(static_cast<std::size_t>(n));
    std::memcpy(v.data(), d_.data() + at_, v.size() * sizeof(double));
    at_ += v.size() * sizeof(double);
  }

 private:
  void need(std::size_t n) const {
    if (n > d_.size() - at_) throw std::runtime_error("a path's message from another rank is cut short");
  }
  const std::vector<char>& d_;
  std::size_t at_ = 0;
};

std::vector<char> encode(const PathRun& p) {
  Bytes b;
  const WaveRunResult& r = p.result;
  b.put(static_cast<char>(r.complete));
  b.put(r.steps), b.put(r.rows), b.put(r.snapshots), b.put(r.newton_max);
  b.put(r.t_final), b.put(r.cfl_dt), b.put(r.integrate_s);
  b.put(static_cast<char>(r.failure.has_value()));
  if (r.failure) {
    b.put(r.failure->step), b.put(r.failure->t), b.put(r.failure->node), b.put(r.failure->residual);
    b.put(r.failure->message), b.put(r.failure->hint);
  }
  b.put(r.phi_final);
  b.put(static_cast<long long>(r.notes.size()));
  for (const auto& n : r.notes) b.put(n);
  b.put(static_cast<long long>(p.rows.size()));
  for (const auto& row : p.rows) b.put(row);
  b.put(p.error);
  return std::move(b.data);
}

PathRun decode(const std::vector<char>& data) {
  Reader in(data);
  PathRun p;
  WaveRunResult& r = p.result;
  char flag = 0;
  in.get(flag);
  r.complete = flag != 0;
  in.get(r.steps), in.get(r.rows), in.get(r.snapshots), in.get(r.newton_max);
  in.get(r.t_final), in.get(r.cfl_dt), in.get(r.integrate_s);
  in.get(flag);
  if (flag) {
    RunFailure f;
    in.get(f.step), in.get(f.t), in.get(f.node), in.get(f.residual);
    in.get(f.message), in.get(f.hint);
    r.failure = f;
  }
  in.get(r.phi_final);
  long long n = 0;
  in.get(n);
  r.notes.resize(static_cast<std::size_t>(n));
  for (auto& note : r.notes) in.get(note);
  in.get(n);
  p.rows.resize(static_cast<std::size_t>(n));
  for (auto& row : p.rows) in.get(row);
  in.get(p.error);
  return p;
}

/// The paths b = rank, rank + R, ... of a batch of `count` from path `first`, across this rank's threads.
void compute_owned(const std::function<PathRun(std::uint32_t)>& run, long long first, long long count, int rank,
                   int ranks, std::vector<PathRun>& res) {
  std::vector<long long> mine;
  for (long long b = rank; b < count; b += ranks) mine.push_back(b);
  if (mine.empty()) return;
  const int threads = static_cast<int>(std::min<long long>(static_cast<long long>(mine.size()), omp_get_max_threads()));
#pragma omp parallel for schedule(dynamic) num_threads(threads)
  for (std::size_t i = 0; i < mine.size(); ++i) {
    PathRun& p = res[static_cast<std::size_t>(mine[i])];
    try {
      p = run(static_cast<std::uint32_t>(first + mine[i]));
    } catch (const std::exception& x) {
      p.error = x.what();
      if (p.error.empty()) p.error = "error";
    }
  }
}

}  // namespace

void ensemble_worker(parallel::Comm& comm, const std::function<PathRun(std::uint32_t)>& run) {
  for (;;) {
    long long order[3] = {0, 0, 0};
    comm.bcast(order, sizeof order, 0);
    if (order[0] == parallel::Command::end) return;
    if (order[0] == parallel::Command::exit) throw parallel::JobEnded{static_cast<int>(order[1])};
    std::vector<PathRun> res(static_cast<std::size_t>(order[2]));
    compute_owned(run, order[1], order[2], comm.rank(), comm.size(), res);
    for (long long b = comm.rank(); b < order[2]; b += comm.size()) comm.send(encode(res[static_cast<std::size_t>(b)]), 0);
  }
}

long long test_nan_path() {
  static const long long k = [] {
    const char* v = std::getenv("LIEVI_TEST_NAN_PATH");
    if (v == nullptr || *v == '\0') return -1LL;
    char* end = nullptr;
    const long long n = std::strtoll(v, &end, 10);
    return end != v && *end == '\0' && n >= 0 ? n : -1LL;
  }();
  return k;
}

long long ensemble_paths_of(const io::CheckpointData& c) {
  const auto it = c.integers.find("ensemble/paths");
  return it == c.integers.end() || it->second.size() != 1 ? 0 : it->second[0];
}

RunOptions ensemble_options_of(const io::CheckpointData& c, RunOptions options) {
  const auto it = c.integers.find("ensemble/range");
  const long long n = ensemble_paths_of(c);
  if (it != c.integers.end() && it->second.size() == 2 && !(it->second[0] == 0 && it->second[1] == n)) {
    options.range_begin = it->second[0];
    options.range_end = it->second[1];
  }
  return options;
}

EnsembleRun run_ensemble(const EnsembleSpec& spec, const fs::path& folder, Checkpointer* checkpoints,
                         const ResumeFrom* resume, const RunOptions& options) {
  EnsembleRun e{WaveRunResult{}, io::EnsembleSeries(spec.columns)};
  WaveRunResult& total = e.total;
  total.complete = true;
  long long done = 0;  // paths added to the statistics
  double integrate_s = 0.0;
  std::optional<io::NpyWriter> npy;  // a slice's rows, opened with the first path
  long long npy_bytes = 0;
  const auto npy_shape = [&] {
    return std::vector<std::size_t>{static_cast<std::size_t>(spec.paths), e.stats.rows(), spec.columns.size()};
  };
  auto state = [&](StateIO& a) {
    long long paths = spec.whole, first = spec.first - spec.begin;
    long long range[2] = {spec.begin, spec.begin + spec.paths};
    a("ensemble/paths", paths);
    a("ensemble/first", first);
    a.integers("ensemble/range", range, 2);
    if (paths != spec.whole || first != static_cast<long long>(spec.first) - spec.begin || range[0] != spec.begin ||
        range[1] != spec.begin + spec.paths)
      throw invalid_argument(resume ? resume->file.string() : std::string(), "",
                             "the checkpoint is of paths " + std::to_string(range[0]) + ":" + std::to_string(range[1]) +
                                 " of an ensemble of " + std::to_string(paths) + " paths from noise path " +
                                 std::to_string(first) + ", not of this run's");
    a("ensemble/done", done);
    {
      StateIO::Scope scope(a, "ensemble/stats");
      e.stats.checkpoint(a);
    }
    a("ensemble/steps", total.steps);
    a("ensemble/rows", total.rows);
    a("ensemble/t_final", total.t_final);
    a("ensemble/cfl_dt", total.cfl_dt);
    a("ensemble/newton_max", total.newton_max);
    a("ensemble/integrate_s", integrate_s);
    sized(a, "ensemble/first_phi", total.phi_final);
    texts(a, "ensemble/first_notes", total.notes);
    if (!spec.rows_file.empty()) {
      if (npy && !a.restoring()) {
        npy->flush();
        npy_bytes = npy->bytes();
      }
      a("ensemble/rows_bytes", npy_bytes);
    }
  };
  if (resume) {
    io::CheckpointLoader loader(resume->data, resume->file);
    state(loader);
    if (done < 0 || done > spec.paths || static_cast<long long>(e.stats.paths()) != done)
      throw invalid_argument(resume->file.string(), "ensemble/done",
                             "value " + std::to_string(done) + " does not match the ensemble's " +
                                 std::to_string(e.stats.paths()) + " paths in its statistics");
    if (npy_bytes > 0) npy.emplace(spec.rows_file, npy_shape(), npy_bytes, io::NpyWriter::Resume{});
    // the paths after the checkpoint run again: files a killed run wrote for them go first
    if (spec.per_path)
      for (long long k = done; k < spec.paths; ++k) {
        std::error_code ec;
        fs::remove(per_path_file(folder, static_cast<long long>(spec.first) + k), ec);
      }
  }
  parallel::Comm* comm = options.comm;
  const int ranks = comm ? comm->size() : 1;
  // the other ranks end their part of the ensemble when this one does, however it ends
  struct EndOrder {
    parallel::Comm* comm;
    ~EndOrder() {
      if (!comm) return;
      long long order[3] = {parallel::Command::end, 0, 0};
      try {
        comm->bcast(order, sizeof order, 0);
      } catch (const std::exception&) {
        comm->abort(1);
      }
    }
  } end_order{comm};
  const long long batch = static_cast<long long>(std::max(1, omp_get_max_threads())) * ranks;
  PathProgress progress(spec.paths, options.progress == Progress::automatic);
  long long work = 0;  // path-steps since the last checkpoint
  while (done < spec.paths && total.complete) {
    long long nb = std::min(batch, spec.paths - done);
    if (options.stop_at > done) nb = std::min(nb, options.stop_at - done);
    std::vector<PathRun> res(static_cast<std::size_t>(nb));
    const auto tb = std::chrono::steady_clock::now();
    const long long p0 = done;
    const long long first = static_cast<long long>(spec.first) + p0;
    if (comm) {  // path b of the batch on rank b mod R; this rank receives the others' in path order
      long long order[3] = {parallel::Command::batch, first, nb};
      comm->bcast(order, sizeof order, 0);
    }
    compute_owned(spec.run, first, nb, 0, ranks, res);
    for (long long b = 0; b < nb; ++b)
      if (b % ranks != 0) res[static_cast<std::size_t>(b)] = decode(comm->recv(static_cast<int>(b % ranks)));
    integrate_s += seconds(std::chrono::steady_clock::now() - tb);
    for (long long b = 0; b < nb; ++b) {
      const auto i = static_cast<std::size_t>(b);
      const long long k = static_cast<long long>(spec.first) + p0 + b;
      if (!res[i].error.empty()) throw std::runtime_error("path " + std::to_string(k) + ": " + res[i].error);
      const WaveRunResult& rb = res[i].result;
      if (!rb.complete) {
        total.complete = false;
        total.failure = rb.failure;
        total.failure->message = "path " + std::to_string(k) + ": " + total.failure->message;
        total.t_final = rb.t_final;
        break;
      }
      if (spec.per_path) {
        io::TableCsvWriter w(per_path_file(folder, k), spec.columns);
        for (const auto& row : res[i].rows) w.row(row);
        w.close();
      }
      e.stats.add_path(res[i].rows);
      if (!spec.rows_file.empty()) {
        if (!npy) npy.emplace(spec.rows_file, npy_shape());
        for (const auto& row : res[i].rows) npy->append(row);
      }
      total.steps = rb.steps, total.rows = rb.rows, total.t_final = rb.t_final, total.cfl_dt = rb.cfl_dt;
      total.newton_max = std::max(total.newton_max, rb.newton_max);
      if (done == 0) {
        total.phi_final = rb.phi_final;
        total.notes = rb.notes;
      }
      ++done;
      work += spec.steps;
    }
    progress.update(done);
    if (!total.complete || !checkpoints) continue;
    const bool stop = options.stop_at > 0 && done == options.stop_at && done < spec.paths;
    if (stop || done == spec.paths || checkpoints->due_work(work)) {
      checkpoints->write(done, 0.0, state);
      work = 0;
    }
    if (stop) {
      total.stopped = true;
      break;
    }
  }
  progress.finish();
  if (npy && done == spec.paths) npy->close();
  total.paths = static_cast<long long>(e.stats.paths());
  total.integrate_s = integrate_s;
  return e;
}

void add_slice(json& summary, const SliceInfo* slice) {
  if (!slice) return;
  summary["slice"] = {{"paths", slice->paths},
                      {"first_path", slice->first},
                      {"range", json::array({slice->begin, slice->end})}};
}

double quantile_linear(const std::vector<double>& x, double q) {
  const std::size_t n = x.size();
  const double h = static_cast<double>(n - 1) * q;
  if (h >= static_cast<double>(n - 1)) return x[n - 1];
  const double lo = std::floor(h);
  const auto i = static_cast<std::size_t>(lo);
  const double a = x[i], b = x[i + 1], g = h - lo, d = b - a;
  return g >= 0.5 ? b - d * (1.0 - g) : a + d * g;
}

std::string quantile_file(double q) { return "series_q" + io::format_number(q) + ".csv"; }

namespace {

/// series_q<q>.csv for every q: the quantiles across the paths of every cell but t, from series_paths.npy.
void write_quantiles(const fs::path& folder, const std::vector<std::string>& columns, const std::vector<double>& qs) {
  const io::NpyArray a = io::read_npy(folder / "series_paths.npy");
  if (a.shape.size() != 3 || a.shape[2] != columns.size() || a.shape[0] == 0)
    throw std::runtime_error((folder / "series_paths.npy").string() + ": not the ensemble's series");
  const std::size_t paths = a.shape[0], rows = a.shape[1], cols = a.shape[2];
  std::vector<std::vector<double>> out(qs.size(), std::vector<double>(rows * cols));
  std::vector<double> x(paths);
  for (std::size_t r = 0; r < rows; ++r)
    for (std::size_t c = 0; c < cols; ++c) {
      for (std::size_t p = 0; p < paths; ++p) x[p] = a.data[(p * rows + r) * cols + c];
      const bool nan = std::any_of(x.begin(), x.end(), [](double v) { return std::isnan(v); });
      std::sort(x.begin(), x.end());
      for (std::size_t k = 0; k < qs.size(); ++k)
        out[k][r * cols + c] = c == 0 ? a.data[r * cols]  // t of the first path
                               : nan  ? std::numeric_limits<double>::quiet_NaN()
                                      : quantile_linear(x, qs[k]);
    }
  for (std::size_t k = 0; k < qs.size(); ++k) {
    io::TableCsvWriter w(folder / quantile_file(qs[k]), columns);
    for (std::size_t r = 0; r < rows; ++r) w.row(std::span<const double>(out[k].data() + r * cols, cols));
    w.close();
  }
}

}  // namespace

void finish_ensemble(EnsembleRun& e, const EnsembleModel& m, std::uint32_t first, long long count,
                     const SliceInfo* slice, const fs::path& folder, std::chrono::steady_clock::time_point t0) {
  WaveRunResult& total = e.total;
  if (e.stats.paths() > 0) {
    e.stats.write(folder / "series_mean.csv", folder / "series_std.csv");
    const std::size_t last = e.stats.rows() - 1;
    total.diagnostics = {{"E_c_mean_initial", e.stats.mean(0, 2)},
                         {"E_c_mean_final", e.stats.mean(last, 2)},
                         {"E_c_std_final", e.stats.stddev(last, 2)}};
  }
  if (!m.quantiles.empty()) {
    if (total.complete && e.stats.paths() > 0)
      write_quantiles(folder, m.columns, m.quantiles);
    else
      total.notes.emplace_back("quantiles not written: the ensemble did not complete");
  }
  if (slice)
    total.notes.emplace_back("slice " + std::to_string(slice->begin) + ":" + std::to_string(slice->end) + " of an ensemble of " +
                             std::to_string(slice->paths) + " paths from noise.path = " + std::to_string(slice->first) +
                             "; series_paths.npy and slice.json are for lievi merge");
  m.finish(total, first, count, slice, folder, t0);
}

void write_slice_json(const fs::path& file, const SliceInfo& slice, const EnsembleRun& e) {
  const WaveRunResult& r = e.total;
  json phi = json::array();
  for (const double v : r.phi_final) phi.push_back(std::isfinite(v) ? json(v) : json(nullptr));
  json j;
  j["format"] = "lievi ensemble slice";
  j["format_version"] = 1;
  j["lievi_version"] = lievi::version;
  j["model"] = slice.model;
  j["scenario_name"] = slice.name;
  j["scenario"] = slice.scenario;
  j["source"] = slice.source;
  j["given_keys"] = slice.given_keys;
  j["paths"] = slice.paths;
  j["first_path"] = slice.first;
  j["range"] = json::array({slice.begin, slice.end});
  j["complete"] = r.complete;
  j["failure"] = r.failure ? json(r.failure->message) : json(nullptr);
  j["paths_done"] = e.stats.paths();
  j["rows"] = r.rows;
  j["steps"] = r.steps;
  j["t_final"] = r.t_final;
  j["cfl_dt"] = r.cfl_dt;
  j["newton_max"] = r.newton_max;
  j["integrate_s"] = r.integrate_s;
  j["first_phi"] = phi;
  j["first_notes"] = r.notes;
  write_json(file, j);
}

WaveRunResult run_ensemble_in(io::OutputDir& dir, Checkpointer* checkpoints, const fs::path& out_dir,
                              std::uint32_t first, long long paths, long long steps, bool per_path,
                              const std::optional<SliceInfo>& slice, const RunOptions& options,
                              const ResumeFrom* resume, const EnsembleModel& m) {
  const auto t0 = std::chrono::steady_clock::now();
  EnsembleSpec spec{m.columns,
                    static_cast<std::uint32_t>(first + (slice ? slice->begin : 0)),
                    slice ? slice->end - slice->begin : paths,
                    paths,
                    slice ? slice->begin : 0,
                    steps,
                    per_path,
                    slice || !m.quantiles.empty() ? dir.tmp() / "series_paths.npy" : fs::path(),
                    m.run};
  EnsembleRun e = run_ensemble(spec, dir.tmp(), checkpoints, resume, options);
  WaveRunResult& total = e.total;
  total.out_dir = out_dir;
  if (total.stopped) {
    dir.keep_for_resume();
    total.total_s = seconds(std::chrono::steady_clock::now() - t0);
    return total;
  }
  if (slice) write_slice_json(dir.tmp() / "slice.json", *slice, e);
  finish_ensemble(e, m, spec.first, spec.paths, slice ? &*slice : nullptr, dir.tmp(), t0);
  dir.commit();
  return total;
}

}  // namespace lievi::run::detail
