/// @file tests/fuzz/fuzz_driver.cpp
/// @brief The GCC fuzz driver of the scenario reader and validator (docs/testing.md "Fuzzing").
///
///   fuzz_scenario [--seconds S] [--runs N] [--seed N] [--findings DIR] [--workdir DIR] [--hang S] PATH...
///
/// (a) Replays every input given: files, or folders searched recursively for `*.toml` and `*.fuzz` files
/// (the `*.csv` files found there are copied into the work folder, so that relative file keys resolve).
/// (b) Then, for S seconds or N inputs, mutates them (mutator.hpp) with a fixed seed: the same seed and N
/// give the same inputs. A mutant whose outcome digest is new joins the pool of inputs to mutate.
/// Each input goes through run_one (fuzz_target.hpp). A finding (an exception other than
/// lievi::invalid_argument, a printout that does not read back the same, an input running longer than the
/// hang limit, a crash, a sanitizer report) is saved to the findings folder; the driver exits 1 if there was
/// one. Inputs that would only spend the time budget (a grid above 10^6 nodes) are counted and not run
/// (`known_defect`).
///
/// Memory: a single allocation above 256 MiB throws std::bad_alloc here (operator new below), so an input
/// asking for a huge grid costs no time or memory; it counts as "over the memory cap", not as a finding
/// (the refusal with a memory estimate is checked by the bad-input corpus).
#include <fcntl.h>
#include <signal.h>
#include <sys/time.h>
#include <unistd.h>

#include <sys/resource.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <new>
#include <set>
#include <sstream>
#include <string>
#include <vector>

// Built with AddressSanitizer: GCC defines __SANITIZE_ADDRESS__, Clang answers __has_feature.
#if defined(__SANITIZE_ADDRESS__)
#define LIEVI_FUZZ_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define LIEVI_FUZZ_ASAN 1
#endif
#endif
#if defined(LIEVI_FUZZ_ASAN)
#include <sanitizer/common_interface_defs.h>
#endif

#include "fuzz_target.hpp"
#include "lievi/io/any_scenario.hpp"
#include "lievi/io/wave_scenario.hpp"
#include "mutator.hpp"

// ----------------------------------------------------------------------------------------------------------
// The memory cap: operator new refuses single allocations above 256 MiB with std::bad_alloc (under ASan too,
// whose own operator new would report a fatal out-of-memory instead of throwing).
// ----------------------------------------------------------------------------------------------------------
namespace {
constexpr std::size_t allocation_cap = std::size_t{256} << 20;
void* capped_alloc(std::size_t n) {
  if (n > allocation_cap) throw std::bad_alloc();
  if (void* p = std::malloc(n == 0 ? 1 : n)) return p;
  throw std::bad_alloc();
}
}  // namespace
void* operator new(std::size_t n) { return capped_alloc(n); }
void* operator new[](std::size_t n) { return capped_alloc(n); }
void* operator new(std::size_t n, const std::nothrow_t&) noexcept {
  return n > allocation_cap ? nullptr : std::malloc(n == 0 ? 1 : n);
}
void* operator new[](std::size_t n, const std::nothrow_t&) noexcept {
  return n > allocation_cap ? nullptr : std::malloc(n == 0 ? 1 : n);
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }

namespace {

using lievi::fuzz::Outcome;
namespace fs = std::filesystem;

// ----------------------------------------------------------------------------------------------------------
// Inputs not run (counted with their reason).
// ----------------------------------------------------------------------------------------------------------

/// True when some `J = <number>` (file, inline table or --set) in the input is above 10^6 nodes.
bool huge_grid(const std::string& s) {
  for (std::size_t p = s.find('J'); p != std::string::npos; p = s.find('J', p + 1)) {
    std::size_t i = p + 1;
    while (i < s.size() && (s[i] == ' ' || s[i] == '\t')) ++i;
    if (i >= s.size() || s[i] != '=') continue;
    const char* begin = s.c_str() + i + 1;
    char* end = nullptr;
    const double v = std::strtod(begin, &end);
    if (end != begin && !(v <= 1e6)) return true;
  }
  return false;
}

/// The reason an input is not run, or nullptr.
const char* known_defect(const std::string& input) {
  if (huge_grid(input))
    return "budget: a grid.J above 10^6 is valid up to the memory estimate and builds its per-node arrays for "
           "seconds; not run, so the time goes to other inputs";
  return nullptr;
}

// ----------------------------------------------------------------------------------------------------------
// Saving the current input when the process dies (signal, sanitizer report, hang).
// ----------------------------------------------------------------------------------------------------------
const std::string* g_current = nullptr;  // the input being run
char g_crash_path[4096] = "";            // where a dying process saves it
std::sig_atomic_t g_saved = 0;

void save_current() {
  if (g_saved || !g_current || !g_crash_path[0]) return;
  g_saved = 1;
  const int fd = ::open(g_crash_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) return;
  const char* p = g_current->data();
  std::size_t left = g_current->size();
  while (left > 0) {
    const ssize_t w = ::write(fd, p, left);
    if (w <= 0) break;
    p += w, left -= static_cast<std::size_t>(w);
  }
  ::close(fd);
  const char msg[] = "\nfuzz_scenario: the input being run is saved as ";
  (void)!::write(2, msg, sizeof msg - 1);
  (void)!::write(2, g_crash_path, std::strlen(g_crash_path));
  (void)!::write(2, "\n", 1);
}

extern "C" void on_fatal_signal(int sig) {
  if (sig == SIGALRM) {
    const char msg[] = "\nfuzz_scenario: finding: an input ran longer than the hang limit";
    (void)!::write(2, msg, sizeof msg - 1);
  }
  save_current();
  ::signal(sig, SIG_DFL);
  ::raise(sig);
}

void install_handlers() {
  static char alt_stack[1 << 16];  // stack overflows are reported from here
  stack_t ss{};
  ss.ss_sp = alt_stack;
  ss.ss_size = sizeof alt_stack;
  ::sigaltstack(&ss, nullptr);
  struct sigaction sa {};
  sa.sa_handler = on_fatal_signal;
  sa.sa_flags = SA_ONSTACK;
  ::sigemptyset(&sa.sa_mask);
  ::sigaction(SIGALRM, &sa, nullptr);
#if defined(LIEVI_FUZZ_ASAN)
  // ASan reports SEGV, stack overflow and the UBSan errors itself; it calls this before it exits.
  __sanitizer_set_death_callback([] { save_current(); });
#else
  for (int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT}) ::sigaction(sig, &sa, nullptr);
#endif
}

// ----------------------------------------------------------------------------------------------------------
// Inputs
// ----------------------------------------------------------------------------------------------------------
struct Options {
  double seconds = 0.0;
  long long runs = -1;  // mutated inputs; -1: as many as the seconds allow
  std::uint64_t seed = 1;
  fs::path findings = "fuzz-findings", workdir = "fuzz-work";
  unsigned hang_s = 30;
  std::vector<fs::path> inputs;
};

[[noreturn]] void usage(const char* why) {
  std::fprintf(stderr,
               "fuzz_scenario: %s\nusage: fuzz_scenario [--seconds S] [--runs N] [--seed N] [--findings DIR] "
               "[--workdir DIR] [--hang S] PATH...\n",
               why);
  std::exit(2);
}

Options parse_options(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const auto next = [&]() -> std::string {
      if (i + 1 >= argc) usage(("missing value after " + a).c_str());
      return argv[++i];
    };
    try {
      if (a == "--seconds") o.seconds = std::stod(next());
      else if (a == "--runs") o.runs = std::stoll(next());
      else if (a == "--seed") o.seed = std::stoull(next());
      else if (a == "--findings") o.findings = next();
      else if (a == "--workdir") o.workdir = next();
      else if (a == "--hang") o.hang_s = static_cast<unsigned>(std::stoul(next()));
      else if (a.rfind("--", 0) == 0) usage(("unknown option " + a).c_str());
      else o.inputs.emplace_back(a);
    } catch (const std::exception&) {
      usage(("bad value for " + a).c_str());
    }
  }
  if (o.inputs.empty()) usage("no corpus given");
  return o;
}

std::string read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

/// The inputs (sorted by path, for a reproducible order) and the CSV files beside them.
void collect(const std::vector<fs::path>& roots, std::vector<std::pair<std::string, std::string>>& inputs,
             std::vector<fs::path>& csv) {
  std::vector<fs::path> files;
  for (const auto& r : roots) {
    if (fs::is_directory(r)) {
      for (const auto& e : fs::recursive_directory_iterator(r)) {
        if (!e.is_regular_file()) continue;
        const auto ext = e.path().extension();
        if (ext == ".toml" || ext == ".fuzz") files.push_back(e.path());
        if (ext == ".csv") csv.push_back(fs::absolute(e.path()));
      }
    } else if (fs::is_regular_file(r)) {
      files.push_back(r);
    } else {
      usage(("no such file or folder: " + r.string()).c_str());
    }
  }
  std::sort(files.begin(), files.end());
  for (const auto& f : files) inputs.emplace_back(f.string(), read_file(f));
}

/// Schema keys and allowed words of every model type, for the mutator.
void schema_words(std::vector<std::string>& keys, std::vector<std::string>& words) {
  std::set<std::string> k, w;
  for (const auto& type : lievi::io::model_types()) {
    w.insert(type);
    for (const auto& e : lievi::io::schema_of(type)) {
      k.insert(e.key);
      std::string word;
      for (char c : e.allowed + ",") {
        if (std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-') {
          word += c;
        } else {
          if (word.size() > 1 && std::isalpha(static_cast<unsigned char>(word[0]))) w.insert(word);
          word.clear();
        }
      }
    }
  }
  keys.assign(k.begin(), k.end());
  words.assign(w.begin(), w.end());
}

std::string hex(std::uint64_t h) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return buf;
}

/// FNV-1a, for file names of findings.
std::uint64_t fnv(const std::string& s) {
  std::uint64_t h = 1469598103934665603ULL;
  for (unsigned char c : s) h = (h ^ c) * 1099511628211ULL;
  return h;
}

struct Stats {
  long long replayed = 0, mutated = 0, refused = 0, accepted = 0, memory_cap = 0, skipped = 0, findings = 0,
            slow = 0, known_after_run = 0;
  std::map<std::string, long long> skipped_by_reason;
  std::set<std::string> finding_signatures;
};

}  // namespace

int main(int argc, char** argv) {
  Options opt = parse_options(argc, argv);
  std::vector<std::pair<std::string, std::string>> corpus;  // (label, bytes)
  std::vector<fs::path> csv;
  for (auto& p : opt.inputs) p = fs::absolute(p);
  collect(opt.inputs, corpus, csv);
  if (corpus.empty()) usage("the corpus has no *.toml or *.fuzz file");
  opt.findings = fs::absolute(opt.findings);
  fs::create_directories(opt.findings);
  fs::create_directories(opt.workdir);
  for (const auto& c : csv) fs::copy_file(c, opt.workdir / c.filename(), fs::copy_options::overwrite_existing);
  fs::current_path(opt.workdir);  // relative file keys resolve here (io::parse_* reads from the current folder)
  const std::string crash = (opt.findings / "crash.fuzz").string();
  std::snprintf(g_crash_path, sizeof g_crash_path, "%s", crash.c_str());
  install_handlers();
#if !defined(LIEVI_FUZZ_ASAN)
  // Eigen allocates with malloc, not operator new: the address space is capped too (4 GiB), so that a huge
  // grid fails its allocation at once (ASan reserves terabytes of shadow, so there ASAN_OPTIONS set
  // max_allocation_size_mb and allocator_may_return_null instead, tests/fuzz/CMakeLists.txt).
  rlimit as{};
  as.rlim_cur = as.rlim_max = rlim_t{4} << 30;
  ::setrlimit(RLIMIT_AS, &as);
#endif

  std::vector<std::string> keys, words;
  schema_words(keys, words);
  lievi::fuzz::Mutator mutator(opt.seed, keys, words);

  Stats st;
  std::set<std::string> seen;  // outcome digests
  std::vector<std::string> pool;
  const auto t0 = std::chrono::steady_clock::now();
  const auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(); };

  // Run one input; returns its outcome digest ("" when not run).
  const auto execute = [&](const std::string& input, const std::string& label) -> std::string {
    if (const char* why = known_defect(input)) {
      ++st.skipped;
      ++st.skipped_by_reason[why];
      return "";
    }
    g_current = &input;
    ::alarm(opt.hang_s);
    const auto t = std::chrono::steady_clock::now();
    const Outcome o = lievi::fuzz::run_one(reinterpret_cast<const std::uint8_t*>(input.data()), input.size());
    const double dt = std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
    ::alarm(0);
    g_current = nullptr;
    if (dt > 1.0) {
      ++st.slow;
      const fs::path p = opt.findings / ("slow-" + hex(fnv(input)) + ".fuzz");
      std::ofstream(p, std::ios::binary) << input;
      std::fprintf(stderr, "fuzz_scenario: slow input (%.1f s, not a finding below the hang limit %u s): %s\n", dt,
                   opt.hang_s, p.c_str());
    }
    switch (o.kind) {
      case Outcome::Kind::refused: ++st.refused; break;
      case Outcome::Kind::accepted: ++st.accepted; break;
      case Outcome::Kind::memory_cap: ++st.memory_cap; break;
      case Outcome::Kind::known: ++st.skipped_by_reason[o.what]; ++st.known_after_run; break;
      case Outcome::Kind::finding: {
        ++st.findings;
        if (st.finding_signatures.insert(o.signature).second) {
          const fs::path p = opt.findings / ("finding-" + hex(fnv(input)) + ".fuzz");
          std::ofstream(p, std::ios::binary) << input;
          std::fprintf(stderr, "fuzz_scenario: finding in %s: %s\n  saved as %s\n", label.c_str(), o.what.c_str(),
                       p.c_str());
        }
        break;
      }
    }
    return o.signature;
  };

  for (const auto& [label, bytes] : corpus) {
    std::string in = bytes.substr(0, lievi::fuzz::max_input_size);
    ++st.replayed;
    const std::string sig = execute(in, label);
    seen.insert(sig);
    pool.push_back(std::move(in));
  }
  const double replay_s = elapsed();

  constexpr std::size_t pool_cap = 4096;  // the oldest mutants beyond it are replaced at random
  while ((opt.runs < 0 && elapsed() < opt.seconds) || (opt.runs >= 0 && st.mutated < opt.runs)) {
    const std::string& a = pool[mutator.rng().below(pool.size())];
    const std::string& b = pool[mutator.rng().below(pool.size())];
    std::string m = mutator.mutate(a, b, lievi::fuzz::max_input_size);
    ++st.mutated;
    const std::string sig = execute(m, "mutant " + std::to_string(st.mutated));
    if (!sig.empty() && seen.insert(sig).second) {
      if (pool.size() < pool_cap) pool.push_back(std::move(m));
      else if (corpus.size() < pool_cap) pool[corpus.size() + mutator.rng().below(pool_cap - corpus.size())] = std::move(m);
    }
  }

  std::printf(
      "fuzz_scenario: %lld inputs executed (%lld replayed in %.1f s, %lld mutated, seed %llu) in %.1f s: "
      "%lld refused, %lld accepted, %lld over the memory cap, %lld known defects, %lld slow, %lld findings (%zu distinct); "
      "%zu distinct outcomes, pool %zu\n",
      st.replayed + st.mutated - st.skipped, st.replayed, replay_s, st.mutated,
      static_cast<unsigned long long>(opt.seed), elapsed(), st.refused, st.accepted, st.memory_cap,
      st.known_after_run, st.slow,
      st.findings, st.finding_signatures.size(), seen.size(), pool.size());
  for (const auto& [why, n] : st.skipped_by_reason) std::printf("  known defect: %lld x %s\n", n, why.c_str());
  return st.findings > 0 ? 1 : 0;
}
