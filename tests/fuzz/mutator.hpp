#pragma once
/// @file tests/fuzz/mutator.hpp
/// @brief Reproducible mutations of scenario inputs for the GCC fuzz driver (docs/testing.md "Fuzzing").
///
/// Byte-level mutations (bit flip, byte set, insert, erase, duplicate, splice of two inputs) and TOML-aware
/// ones on the lines of the text (replace a value by a huge, negative, non-finite, empty, wrongly typed or
/// deeply nested one; insert a schema key with such a value; duplicate a table; swap two keys; delete or
/// duplicate a line; rename a section; append `--set` overrides after a NUL byte, fuzz_target.hpp). The
/// random numbers come from SplitMix64 with explicit modular reduction, so a seed gives the same sequence of
/// inputs with any standard library.
#include <cstdint>
#include <string>
#include <vector>

namespace lievi::fuzz {

/// SplitMix64 (Steele, Lea, Flood 2014): 64-bit state, full period, good enough to pick mutations.
class Rng {
 public:
  explicit Rng(std::uint64_t seed) : state_(seed) {}
  std::uint64_t next() {
    std::uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  /// Uniform enough in [0, n) for n much smaller than 2^64 (n > 0).
  std::size_t below(std::size_t n) { return static_cast<std::size_t>(next() % n); }
  bool chance(unsigned percent) { return below(100) < percent; }

 private:
  std::uint64_t state_;
};

class Mutator {
 public:
  /// `keys`: the dotted schema keys of every model type; `enum_values`: the allowed words of the schemas
  /// (method ids, shapes, ...), used as string values.
  Mutator(std::uint64_t seed, std::vector<std::string> keys, std::vector<std::string> enum_values);

  /// A mutant of `a` (1 to 4 stacked mutations); `b` is the partner of a splice. At most `max_size` bytes.
  std::string mutate(const std::string& a, const std::string& b, std::size_t max_size);

  Rng& rng() { return rng_; }

 private:
  std::string value();      ///< an interesting TOML value
  std::string key_leaf();   ///< a leaf name of a schema key ("dt", "J", ...)
  void mutate_once(std::string& s, const std::string& b);

  Rng rng_;
  std::vector<std::string> keys_, enum_values_, sections_;
};

}  // namespace lievi::fuzz
