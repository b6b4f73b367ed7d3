/// @file tests/fuzz/fuzz_target.cpp
/// @brief The scenario fuzz target (fuzz_target.hpp) and its libFuzzer entry point.
#include "fuzz_target.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <new>
#include <set>
#include <stdexcept>
#include <variant>
#include <vector>

#include "lievi/io/any_scenario.hpp"
#include "lievi/run/models.hpp"
#include "lievi/core/error.hpp"
#include "lievi/io/beam_scenario.hpp"
#include "lievi/io/mechanics_scenario.hpp"
#include "lievi/io/scenario.hpp"
#include "lievi/io/wave_scenario.hpp"

namespace lievi::fuzz {
namespace {

/// The words of a message without its variable parts: letters only (numbers, quoted values and brackets
/// dropped), at most 8 words, so that two refusals of the same kind have the same digest.
std::string shape_of(const std::string& s) {
  std::string out, word;
  int words = 0;
  bool quoted = false;
  char quote = 0;
  for (char c : s) {
    if (quoted) {
      if (c == quote) quoted = false;
      continue;
    }
    if (c == '\'' || c == '"') {
      quoted = true, quote = c;
      continue;
    }
    if (std::isalpha(static_cast<unsigned char>(c)) || c == '.' || c == '_') {
      word += c;
      continue;
    }
    if (!word.empty()) {
      out += word + ' ';
      word.clear();
      if (++words == 8) return out;
    }
  }
  return out + word;
}

/// The resolved printout of any scenario: the entries in schema order, the notes, the TOML text.
struct Printout {
  std::vector<io::ResolvedEntry> entries;
  std::vector<std::string> notes;
  std::string toml;
  std::string model;
};

/// What `lievi validate` does after reading: the a-priori checks of the model's run (its registry entry), then
/// the printout. Generic over the model types, so that a new one is fuzzed as soon as it is registered.
Printout validate_and_print(const io::AnyScenario& any) {
  const run::ModelType& model = run::model_of(any);
  model.check(any);
  return std::visit(
      [&](const auto& s) {
        return Printout{io::resolved_entries(s), io::ignored_key_notes(s), io::to_toml(s), model.name};
      },
      any);
}

/// Resolved values compared exactly, except that two NaNs are equal (a value is read back, not recomputed).
bool same_value(const io::ScenarioValue& a, const io::ScenarioValue& b) {
  const auto same_double = [](double x, double y) { return x == y || (x != x && y != y); };
  if (a.index() != b.index()) return false;
  if (const auto* x = std::get_if<double>(&a)) return same_double(*x, std::get<double>(b));
  if (const auto* x = std::get_if<std::vector<double>>(&a)) {
    const auto& y = std::get<std::vector<double>>(b);
    if (x->size() != y.size()) return false;
    for (std::size_t i = 0; i < x->size(); ++i)
      if (!same_double((*x)[i], y[i])) return false;
    return true;
  }
  if (const auto* x = std::get_if<std::vector<std::vector<double>>>(&a)) {
    const auto& y = std::get<std::vector<std::vector<double>>>(b);
    if (x->size() != y.size()) return false;
    for (std::size_t i = 0; i < x->size(); ++i) {
      if ((*x)[i].size() != y[i].size()) return false;
      for (std::size_t j = 0; j < y[i].size(); ++j)
        if (!same_double((*x)[i][j], y[i][j])) return false;
    }
    return true;
  }
  return a == b;
}

/// Values equal within 4 units in the last place (|a - b| <= 4 eps max(|a|, |b|)), element by element.
bool within_ulps(const io::ScenarioValue& a, const io::ScenarioValue& b) {
  const auto near = [](double x, double y) {
    return std::abs(x - y) <= 4 * std::numeric_limits<double>::epsilon() * std::max(std::abs(x), std::abs(y));
  };
  if (a.index() != b.index()) return false;
  if (const auto* x = std::get_if<double>(&a)) return near(*x, std::get<double>(b));
  if (const auto* x = std::get_if<std::vector<double>>(&a)) {
    const auto& y = std::get<std::vector<double>>(b);
    if (x->size() != y.size()) return false;
    for (std::size_t i = 0; i < x->size(); ++i)
      if (!near((*x)[i], y[i])) return false;
    return true;
  }
  return false;
}

/// "" when the printout reads back to the same resolved entries, else what differs; `roundoff` is set when
/// every difference is within a few units in the last place (a normalisation that is not idempotent).
std::string read_back_mismatch(const Printout& p, bool& roundoff) {
  roundoff = false;
  Printout q;
  try {
    q = validate_and_print(io::parse_any_scenario(p.toml, "printout.toml", "fuzz"));
  } catch (const invalid_argument& e) {
    return "the resolved printout is refused when read back: " + e.issues().front().format();
  }
  if (q.entries.size() != p.entries.size()) {
    return "the resolved printout reads back with " + std::to_string(q.entries.size()) + " entries instead of " +
           std::to_string(p.entries.size());
  }
  std::string first;
  bool all_roundoff = true;
  for (std::size_t i = 0; i < p.entries.size(); ++i) {
    const auto& a = p.entries[i];
    const auto& b = q.entries[i];
    if (a.key == b.key && same_value(a.value, b.value)) continue;
    if (first.empty()) first = "the resolved printout reads back differently at key '" + a.key + "'";
    all_roundoff = all_roundoff && a.key == b.key && within_ulps(a.value, b.value);
  }
  roundoff = !first.empty() && all_roundoff;
  return first;
}

}  // namespace

Outcome run_one(const std::uint8_t* data, std::size_t size) {
  if (size > max_input_size) size = max_input_size;
  const std::string input(reinterpret_cast<const char*>(data), size);
  const auto nul = input.find('\0');
  const std::string text = input.substr(0, nul);
  std::vector<std::string> overrides;
  if (nul != std::string::npos) {
    std::size_t begin = nul + 1;
    while (begin <= input.size()) {
      auto end = input.find('\n', begin);
      if (end == std::string::npos) end = input.size();
      overrides.push_back(input.substr(begin, end - begin));
      begin = end + 1;
    }
  }

  Outcome o;
  try {
    const Printout p = validate_and_print(io::parse_any_scenario(text, "fuzz.toml", "fuzz", overrides));
    bool roundoff = false;
    const std::string mismatch = read_back_mismatch(p, roundoff);
    if (!mismatch.empty()) {
      o.kind = Outcome::Kind::finding;
      o.what = mismatch;
      o.signature = "readback " + shape_of(mismatch);
      return o;
    }
    o.kind = Outcome::Kind::accepted;
    std::set<std::string> given;
    for (const auto& e : p.entries)
      if (!e.is_default) given.insert(shape_of(e.key));
    o.signature = "accepted " + p.model;
    for (const auto& k : given) o.signature += ' ' + k;
    o.signature += " notes " + std::to_string(p.notes.size());
  } catch (const invalid_argument& e) {
    o.kind = Outcome::Kind::refused;
    o.what = e.issues().empty() ? std::string(e.what()) : e.issues().front().format();
    o.signature = "refused";
    for (const auto& i : e.issues()) o.signature += " | " + shape_of(i.key) + ": " + shape_of(i.message);
  } catch (const std::bad_alloc&) {
    o.kind = Outcome::Kind::memory_cap;
    o.what = "std::bad_alloc";
    o.signature = "bad_alloc";
  } catch (const std::length_error& e) {
    // A vector size beyond max_size() (before the grid.J bound and the memory estimate, a huge grid.J reached
    // one: tests/fuzz/crashes/wave_huge_J_length_error.toml, now refused): counted with the allocations over the
    // cap.
    o.kind = Outcome::Kind::memory_cap;
    o.what = std::string("std::length_error: ") + e.what();
    o.signature = "length_error";
  } catch (const std::exception& e) {
    o.kind = Outcome::Kind::finding;
    o.what = std::string("exception other than lievi::invalid_argument: ") + e.what();
    o.signature = "exception " + shape_of(e.what());
  } catch (...) {
    o.kind = Outcome::Kind::finding;
    o.what = "exception not derived from std::exception";
    o.signature = "unknown exception";
  }
  return o;
}

}  // namespace lievi::fuzz

/// libFuzzer's entry point (clang++ -fsanitize=fuzzer,address,undefined tests/fuzz/fuzz_target.cpp ...): a
/// finding aborts, so that libFuzzer saves the input as a crash.
extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const lievi::fuzz::Outcome o = lievi::fuzz::run_one(data, size);
  if (o.kind == lievi::fuzz::Outcome::Kind::finding) {
    std::fprintf(stderr, "lievi fuzz finding: %s\n", o.what.c_str());
    std::abort();
  }
  return 0;
}
