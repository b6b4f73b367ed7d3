#pragma once
/// @file src/io/scenario_reader.hpp
/// @brief Internal: the model-independent machinery of scenario files, parameterised by a schema.
///
/// Reading is split in three stages so that every issue of a file is found in one pass:
///  1. `parse_toml` turns the text into a tree of `RawValue`s; `read_entries` flattens it (and the `--set`
///  strings, converted by the key's schema type) into `key -> RawEntry`, recording unknown keys;
///  2. a model's resolver reads each key through a `Resolver` (typed getters, ranges, cross-key rules), which
///  collects every issue;
///  3. `throw_if_issues` throws one lievi::invalid_argument with all issues.
/// The rigid body (scenario.cpp), the wave (wave_scenario.cpp) and the beam (beam_scenario.cpp) are the
/// users.
#include <array>
#include <filesystem>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "lievi/core/error.hpp"
#include "lievi/io/scenario.hpp"
#include "lievi/models/rigid_body.hpp"

namespace lievi::io {

/// Limits of the scenario reader (docs/scenarios.md, "Limits"); each refusal is a lievi::invalid_argument.
/// A scenario file has at most this many bytes (16 MiB); checked before reading, and reading stops one byte
/// past it should the file grow.
inline constexpr std::uintmax_t kMaxScenarioFileBytes = std::uintmax_t{16} << 20;
/// A CSV side file of a scenario (initial.file, a prescribed motion's table) has at most this many bytes
/// (256 MiB: about a million rows of pose data).
inline constexpr std::uintmax_t kMaxSideFileBytes = std::uintmax_t{256} << 20;
/// Nesting of a scenario (table-header segments, dotted-key segments, arrays and inline tables together, and
/// arrays in `--set` values) is at most this many levels; the documented forms need at most 4.
inline constexpr int kMaxNestingDepth = 32;
/// A value (or key) quoted in a message has at most about this many characters.
inline constexpr std::size_t kMaxQuotedChars = 80;

/// `text` as quoted in a message: unchanged when it has at most kMaxQuotedChars characters, else its first 60
/// characters (whole UTF-8 sequences), "…" and the total count, e.g. `vvvv…vvvv… (52428800 characters)` for a 52428800-character text.
[[nodiscard]] std::string shorten_text(const std::string& text);

}  // namespace lievi::io

namespace lievi::io::detail {

/// A value as read, before its schema type is checked.
struct RawValue {
  struct Member;
  enum class Kind { string, integer, floating, boolean, array, table, other } kind = Kind::other;
  std::string s;
  long long i = 0;
  double d = 0.0;
  bool b = false;
  std::vector<RawValue> items;                            ///< array elements
  std::vector<Member> members;                            ///< table members, in document order

  [[nodiscard]] bool is_number() const { return kind == Kind::integer || kind == Kind::floating; }
  [[nodiscard]] double number() const { return kind == Kind::integer ? static_cast<double>(i) : d; }
  /// TOML-like text of the value, for messages ("0", "\"rk5\"", "[1, 2, 3]").
  [[nodiscard]] std::string text() const;
  /// The TOML type name, for "has type ..." messages.
  [[nodiscard]] const char* kind_name() const;
  /// The member `name` of a table, or nullptr.
  [[nodiscard]] const RawValue* member(const std::string& name) const;
};
/// A member of a table: its name and value (a struct, not a std::pair: a pair of the incomplete RawValue
/// inside RawValue is not allowed by libstdc++ under Clang).
struct RawValue::Member {
  std::string first;
  RawValue second;
};

/// A raw value and where it came from (file label, or "--set").
struct RawEntry {
  RawValue value;
  std::string origin;
};
using RawEntries = std::map<std::string, RawEntry>;

/// What the reader needs to know of a model's scenario format.
struct Schema {
  const std::vector<SchemaEntry>* entries = nullptr;       ///< the keys, in documentation order
  std::vector<std::string> sections;                       ///< the allowed sections
  std::string description;                                 ///< e.g. "a rigid-body scenario" (messages)
  std::vector<std::vector<std::string>> exclusive_groups;  ///< at most one of each; a --set replaces the rest
  /// Sections read as TOML arrays of tables (`[[loads]]`): member `leaf` of table i is the entry
  /// `section[i].leaf`, checked against the schema key `section.leaf`; not settable with `--set`.
  std::vector<std::string> array_sections = {};
  /// Sections refused with one message each (the section's keys are not looked at), e.g. a beam's [noise].
  std::map<std::string, std::string> refused_sections = {};

  /// The entry of `key`, or nullptr.
  [[nodiscard]] const SchemaEntry* find(const std::string& key) const;
  /// The key an alias stands for (integrator.h -> integrator.dt), else `key`.
  [[nodiscard]] std::string canonical(const std::string& key) const;
  [[nodiscard]] bool has_section(const std::string& section) const;
};

/// The first `chars` characters (UTF-8 sequences) of `text`, never splitting a sequence.
[[nodiscard]] std::string utf8_prefix(const std::string& text, std::size_t chars);
/// The characters kept of a shortened value (shorten_text): 60, then "…" and the count.
inline constexpr std::size_t kQuotedHead = 60;

/// Elements of `v` separated by `sep`.
[[nodiscard]] std::string join(const std::vector<std::string>& v, const char* sep = ", ");
/// `s` without leading and trailing blanks and tabs.
[[nodiscard]] std::string trim(const std::string& s);
/// A number as the command line writes it ("0.1", "1e-3", ".5", "-2"); nullopt unless the whole text
/// converts.
[[nodiscard]] std::optional<double> parse_double(const std::string& t);

/// "unknown key; allowed in [integrator]: method, dt, ... (did you mean 'dt'?)"
[[nodiscard]] std::string unknown_key_message(const Schema& schema, const std::string& key);

/// The text of a scenario file; throws lievi::invalid_argument when it cannot be read.
[[nodiscard]] std::string read_scenario_text(const std::filesystem::path& path);
/// The TOML document as a table of RawValues; throws lievi::invalid_argument on a syntax error (with line
/// and column).
[[nodiscard]] RawValue parse_toml(const std::string& text, const std::string& file);

/// Stage 1 output: the entries of the document and the `--set` strings, and the issues found so far.
struct RawInput {
  RawEntries entries;
  std::vector<InputIssue> issues;
  std::map<std::string, std::size_t> lengths;  ///< number of tables of each array section present
};
/// Flatten the document `root` (a table) against `schema`, then apply the `--set key=value` overrides.
[[nodiscard]] RawInput read_entries(const Schema& schema, const RawValue& root, const std::string& file,
                                    const std::vector<std::string>& overrides);

/// The value of `key` before any schema is known (for dispatch on model.type): the last `--set` of it (as a
/// string, unquoted) or the document's, with its origin; nullopt when absent.
[[nodiscard]] std::optional<RawEntry> peek_key(const RawValue& root, const std::string& file,
                                               const std::vector<std::string>& overrides,
                                               const std::string& key);

/// Stage 2: typed, checked access to the entries; every problem becomes an InputIssue.
class Resolver {
 public:
  Resolver(const Schema& schema, std::string file, RawInput input)
      : schema_(&schema),
        file_(std::move(file)),
        entries_(std::move(input.entries)),
        issues_(std::move(input.issues)),
        lengths_(std::move(input.lengths)) {}

  /// Record an issue on `key`, attributed to where the key came from (the file, or "--set").
  void issue(const std::string& key, std::string message);
  [[nodiscard]] const RawValue* get(const std::string& key) const;
  [[nodiscard]] bool has(const std::string& key) const { return entries_.count(key) != 0; }
  [[nodiscard]] std::vector<InputIssue>& issues() { return issues_; }
  [[nodiscard]] const RawEntries& entries() const { return entries_; }
  /// The number of tables of an array section in the file (0 when absent).
  [[nodiscard]] std::size_t array_length(const std::string& section) const;
  /// The canonical keys given (file or --set), sorted.
  [[nodiscard]] std::vector<std::string> given_keys() const;

  void type_error(const std::string& key, const RawValue& v, ValueType t);
  /// "missing required key; expected <type> (<allowed>): <what>"
  void missing(const std::string& key, const std::string& what);

  /// A finite number, or nullopt (absent, or an issue was recorded).
  std::optional<double> number(const std::string& key);
  /// A finite number > 0.
  std::optional<double> positive(const std::string& key);
  /// An integer (an exactly integral float, as `--set` gives, is accepted).
  std::optional<long long> integer(const std::string& key);
  /// An integer in [lo, hi] ("value 0 must be >= 1" when hi is the largest long long).
  std::optional<long long> integer_in(const std::string& key, long long lo, long long hi);
  std::optional<bool> boolean(const std::string& key);
  std::optional<std::string> string(const std::string& key);
  /// A string that must be one of `allowed`.
  std::optional<std::string> choice(const std::string& key, const std::vector<std::string>& allowed,
                                    const char* what);
  std::optional<models::Vec3> vec3(const std::string& key);
  std::optional<models::Mat3> mat3(const std::string& key);
  /// An array of integers (integral floats accepted).
  std::optional<std::vector<long long>> integer_array(const std::string& key);
  /// An array of arrays of finite numbers.
  std::optional<std::vector<std::vector<double>>> number_array_array(const std::string& key);
  /// An array of finite numbers (any length).
  std::optional<std::vector<double>> number_array(const std::string& key);
  /// Array of exactly 6 finite numbers.
  std::optional<std::array<double, 6>> vec6(const std::string& key);
  /// Array of 6 arrays of 6 finite numbers (row-major).
  std::optional<std::array<std::array<double, 6>, 6>> mat6(const std::string& key);

  /// A count a model's reader keeps between its rules (e.g. the issues before the grid was read); 0 until set.
  [[nodiscard]] std::size_t& mark(const std::string& name) { return marks_[name]; }
  /// The folder relative side files (initial.file, pose tables) are read from: the scenario file's.
  std::filesystem::path folder;

  /// Array of exactly 3 finite numbers.
  static bool as_vec3(const RawValue& v, models::Vec3& out);
  /// Array of 3 arrays of 3 finite numbers.
  static bool as_mat3(const RawValue& v, models::Mat3& out);

 private:
  const Schema* schema_;
  std::string file_;
  RawEntries entries_;
  std::vector<InputIssue> issues_;
  std::map<std::string, std::size_t> lengths_;
  std::map<std::string, std::size_t> marks_;
};

/// Stage 3: throw one lievi::invalid_argument carrying every issue, if there are any.
void throw_if_issues(Resolver& r);

/// The time grid: dt > 0, t_end > 0, and t_end = N dt within 1e-9 relative (else a message suggesting
/// dt = t_end/N for the two nearest N).
struct TimeGrid {
  double dt = 0.0, t_end = 0.0;
  long long steps = 0;
  bool ok = false;  ///< dt, t_end and steps are valid
};
/// Read integrator.t_end and the time step from `dt_key` (integrator.dt, or an alias); `dt_what` completes
/// the missing-key message; with `read_dt` false the step is not read (an issue was already recorded).
/// The noise stream keys shared by the field scenarios: noise.seed, noise.path (0 ... 2^32 - 1),
/// noise.truncate, and noise.base_dt (read_base_dt).
void read_noise_stream(Resolver& r, double dt, bool dt_ok, std::uint32_t& seed, std::uint32_t& path, double& base_dt,
                       int& refine_log2, bool& truncate);
/// Their schema entries (noise.seed, noise.path, noise.base_dt, noise.truncate), in documentation order.
[[nodiscard]] std::vector<SchemaEntry> noise_stream_entries();
/// noise.base_dt (the finest noise step): dt / base_dt = 2^m for an integer m in [0, 40] within 1e-9 relative,
/// else an issue suggesting the nearest valid values; base_dt = dt when not given, refine_log2 = m.
void read_base_dt(Resolver& r, double dt, bool dt_ok, double& base_dt, int& refine_log2);
TimeGrid read_time_grid(Resolver& r, const std::string& dt_key, const std::string& dt_what,
                        bool read_dt = true);

/// Markdown table of a schema (docs/scenarios.md, between the schema markers).
[[nodiscard]] std::string schema_markdown(const std::vector<SchemaEntry>& schema);

/// A TOML basic string.
[[nodiscard]] std::string toml_string(const std::string& s);
/// A resolved value as TOML text (shortest round-trip numbers).
[[nodiscard]] std::string value_toml(const ScenarioValue& v);
/// The comment lines heading a resolved scenario: "# lievi: resolved <what> '<name>' from <source>", the
/// step count (then `extra`), and one "# note: ..." line per note.
[[nodiscard]] std::string toml_header(const std::string& what, const std::string& name,
                                      const std::string& source, long long steps, double dt, double t_end,
                                      const std::string& extra, const std::vector<std::string>& notes);
/// The `[section]` blocks of the resolved entries as TOML; `comments(e)` gives extra comments of an entry
/// (joined with "; " after "default" for a default value).
[[nodiscard]] std::string entries_toml(
    const std::vector<ResolvedEntry>& entries,
    const std::function<std::vector<std::string>(const ResolvedEntry&)>& comments);

/// Read a CSV side file of a scenario (e.g. initial.file) named by `key`: a relative `file` is taken relative to
/// `base` (the scenario file's folder) and the path used is stored in `resolved`. Blank lines and lines
/// starting with '#' are skipped; fields are split at commas and trimmed. `header(fields, line)` sees the first
/// remaining line (returning false stops the reading), `row(fields, line)` every later one. Returns the number of
/// lines read, -1 when the file cannot be read (an issue on `key` is recorded), and sets `had_header`.
long read_csv_side_file(Resolver& r, const std::string& key, const std::string& file,
                        const std::filesystem::path& base, std::string& resolved, bool& had_header,
                        const std::function<bool(const std::vector<std::string>&, long)>& header,
                        const std::function<void(const std::vector<std::string>&, long)>& row);

}  // namespace lievi::io::detail
