/// @file src/io/scenario_reader.cpp
/// @brief The model-independent scenario machinery (scenario_reader.hpp): TOML reading (toml++), `--set`
/// conversion, the Resolver, the step-count rule, the Markdown table and TOML printing; also the public
/// `type_name` and `format_number`.
#include "scenario_reader.hpp"

#include <toml++/toml.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <cerrno>
#include <cstring>
#include <set>
#include <sstream>
#include <string_view>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace lievi::io {

const char* type_name(ValueType t) {
  switch (t) {
    case ValueType::string:
      return "a string";
    case ValueType::number:
      return "a number";
    case ValueType::integer:
      return "an integer";
    case ValueType::boolean:
      return "a boolean (true or false)";
    case ValueType::vec3:
      return "an array of 3 numbers";
    case ValueType::mat3:
      return "a 3x3 matrix (array of 3 arrays of 3 numbers)";
    case ValueType::vec3_or_mat3:
      return "an array of 3 numbers or a 3x3 matrix";
    case ValueType::integer_array:
      return "an array of integers";
    case ValueType::number_array_array:
      return "an array of arrays of numbers";
    case ValueType::vec6:
      return "an array of 6 numbers";
    case ValueType::quaternion:
      return "a unit quaternion (array of 4 numbers qw, qx, qy, qz)";
    case ValueType::mat6:
      return "a 6x6 matrix (array of 6 arrays of 6 numbers)";
    case ValueType::number_array:
      return "an array of numbers";
    case ValueType::integer_or_string:
      return "an integer or a string";
  }
  return "?";
}

std::string format_number(double x, bool toml_float) {
  if (std::isnan(x)) return "nan";
  if (std::isinf(x)) return x > 0 ? "inf" : "-inf";
  char buf[64];
  const auto res = std::to_chars(buf, buf + sizeof buf, x);
  std::string s(buf, res.ptr);
  if (toml_float && s.find_first_of(".eE") == std::string::npos) s += ".0";
  return s;
}

namespace {
/// Characters are UTF-8 sequences: continuation bytes (10xxxxxx) are not counted and never split.
bool is_lead_byte(char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; }
}  // namespace

std::string detail::utf8_prefix(const std::string& text, std::size_t chars) {
  std::size_t count = 0;
  for (std::size_t n = 0; n < text.size(); ++n)
    if (is_lead_byte(text[n]) && count++ == chars) return text.substr(0, n);
  return text;
}

std::string shorten_text(const std::string& text) {
  const auto chars = static_cast<std::size_t>(std::count_if(text.begin(), text.end(), is_lead_byte));
  if (chars <= kMaxQuotedChars) return text;
  return detail::utf8_prefix(text, detail::kQuotedHead) + "\u2026 (" + std::to_string(chars) + " characters)";
}

}  // namespace lievi::io

namespace lievi::io::detail {

using models::Mat3;
using models::Vec3;

// ---------------------------------------------------------------------------------------------------------------
// RawValue, Schema, small helpers
// ---------------------------------------------------------------------------------------------------------------

namespace {
/// The whole TOML-like text of `v` (RawValue::text shortens it).
std::string full_text(const RawValue& v) {
  using Kind = RawValue::Kind;
  switch (v.kind) {
    case Kind::string:
      return "\"" + v.s + "\"";
    case Kind::integer:
      return std::to_string(v.i);
    case Kind::floating:
      return format_number(v.d, true);
    case Kind::boolean:
      return v.b ? "true" : "false";
    case Kind::array: {
      std::string t = "[";
      for (std::size_t n = 0; n < v.items.size(); ++n) {
        t += (n ? ", " : "") + full_text(v.items[n]);
        if (t.size() > 4 * kMaxQuotedChars && n + 1 < v.items.size()) {
          // enough to quote: the count is of the elements, not of the characters
          return detail::utf8_prefix(t, kQuotedHead) + "\u2026 (an array of " + std::to_string(v.items.size()) +
                 " elements)";
        }
      }
      return t + "]";
    }
    case Kind::table:
      return "(a table)";
    case Kind::other:
      break;
  }
  return "(a date/time)";
}
}  // namespace

std::string RawValue::text() const { return shorten_text(full_text(*this)); }

const char* RawValue::kind_name() const {
  switch (kind) {
    case Kind::string:
      return "string";
    case Kind::integer:
      return "integer";
    case Kind::floating:
      return "float";
    case Kind::boolean:
      return "boolean";
    case Kind::array:
      return "array";
    case Kind::table:
      return "table";
    case Kind::other:
      break;
  }
  return "date/time";
}

const RawValue* RawValue::member(const std::string& name) const {
  for (const auto& [k, v] : members)
    if (k == name) return &v;
  return nullptr;
}

const SchemaEntry* Schema::find(const std::string& key) const {
  for (const auto& e : *entries)
    if (e.key == key) return &e;
  return nullptr;
}

std::string Schema::canonical(const std::string& key) const {
  const auto* e = find(key);
  return (e && !e->alias_of.empty()) ? e->alias_of : key;
}

bool Schema::has_section(const std::string& section) const {
  return std::find(sections.begin(), sections.end(), section) != sections.end();
}

std::string join(const std::vector<std::string>& v, const char* sep) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : sep) + x;
  return s;
}

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t");
  if (b == std::string::npos) return "";
  const auto e = s.find_last_not_of(" \t");
  return s.substr(b, e - b + 1);
}

std::optional<double> parse_double(const std::string& t) {
  if (t.empty()) return std::nullopt;
  char* end = nullptr;
  const double v = std::strtod(t.c_str(), &end);
  if (end != t.c_str() + t.size()) return std::nullopt;
  return v;
}

namespace {

std::size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<std::size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j)
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] == b[j - 1] ? 0u : 1u)});
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

/// Convert `n`, releasing toml++'s nodes as they are converted. (The peak is still about both trees: an
/// array's RawValue items are allocated at once; docs/scenarios.md "Limits" gives the measured peak.)
RawValue from_node(toml::node& n) {
  RawValue r;
  if (const auto* v = n.as_string()) {
    r.kind = RawValue::Kind::string;
    r.s = v->get();
  } else if (const auto* v = n.as_integer()) {
    r.kind = RawValue::Kind::integer;
    r.i = v->get();
  } else if (const auto* v = n.as_floating_point()) {
    r.kind = RawValue::Kind::floating;
    r.d = v->get();
  } else if (const auto* v = n.as_boolean()) {
    r.kind = RawValue::Kind::boolean;
    r.b = v->get();
  } else if (auto* a = n.as_array()) {
    r.kind = RawValue::Kind::array;
    r.items.resize(a->size());
    for (std::size_t k = a->size(); k-- > 0;) {  // from the back, so that each converted node is popped
      r.items[k] = from_node((*a)[k]);
      a->pop_back();
    }
  } else if (auto* t = n.as_table()) {
    r.kind = RawValue::Kind::table;
    for (auto it = t->begin(); it != t->end(); it = t->erase(it))
      r.members.push_back({std::string(it->first.str()), from_node(it->second)});
  }
  return r;
}

/// The deepest bracket nesting of a `--set` array text.
int bracket_depth(const std::string& t) {
  int depth = 0, deepest = 0;
  for (const char c : t) {
    if (c == '[') deepest = std::max(deepest, ++depth);
    if (c == ']') --depth;
  }
  return deepest;
}

/// `text` as TOML reads a number: an integer literal (within 64 bits) is an integer, other numbers are floats.
bool number_item(const std::string& text, RawValue& v) {
  const auto res = std::from_chars(text.data(), text.data() + text.size(), v.i);
  if (!text.empty() && res.ec == std::errc() && res.ptr == text.data() + text.size()) {
    v.kind = RawValue::Kind::integer;
    return true;
  }
  const auto d = parse_double(text);
  v.kind = RawValue::Kind::floating;
  v.d = d.value_or(0.0);
  return d.has_value();
}

/// Tiny array grammar for `--set`: '[' (item (',' item)*)? ']', item = number | array; an integer literal is an
/// integer item, as in a file. The nesting is checked (bracket_depth) before.
bool parse_array(const std::string& t, std::size_t& pos, RawValue& out) {
  auto skip = [&] {
    while (pos < t.size() && (t[pos] == ' ' || t[pos] == '\t')) ++pos;
  };
  skip();
  if (pos >= t.size() || t[pos] != '[') return false;
  ++pos;
  out.kind = RawValue::Kind::array;
  skip();
  if (pos < t.size() && t[pos] == ']') {
    ++pos;
    return true;
  }
  while (true) {
    skip();
    RawValue item;
    if (pos < t.size() && t[pos] == '[') {
      if (!parse_array(t, pos, item)) return false;
    } else {
      const auto stop = t.find_first_of(",]", pos);
      if (stop == std::string::npos) return false;
      if (!number_item(trim(t.substr(pos, stop - pos)), item)) return false;
      pos = stop;
    }
    out.items.push_back(std::move(item));
    skip();
    if (pos >= t.size()) return false;
    if (t[pos] == ']') {
      ++pos;
      return true;
    }
    if (t[pos] != ',') return false;
    ++pos;
  }
}

/// A `--set` string value, bare or quoted.
std::string unquote(const std::string& text) {
  if (text.size() >= 2 && (text.front() == '"' || text.front() == '\'') && text.back() == text.front())
    return text.substr(1, text.size() - 2);
  return text;
}

/// Convert the text of a `--set` by the schema type; false when it does not convert.
bool convert(const std::string& text, ValueType type, RawValue& v) {
  switch (type) {
    case ValueType::string:
      v.kind = RawValue::Kind::string;
      v.s = unquote(text);
      return true;
    case ValueType::boolean:
      v.kind = RawValue::Kind::boolean;
      v.b = text == "true";
      return text == "true" || text == "false";
    case ValueType::integer: {
      v.kind = RawValue::Kind::integer;
      const auto res = std::from_chars(text.data(), text.data() + text.size(), v.i);
      return res.ec == std::errc() && res.ptr == text.data() + text.size();
    }
    case ValueType::number:
      return number_item(text, v);
    case ValueType::integer_or_string: {
      const auto res = std::from_chars(text.data(), text.data() + text.size(), v.i);
      if (res.ec == std::errc() && res.ptr == text.data() + text.size()) {
        v.kind = RawValue::Kind::integer;
      } else {
        v.kind = RawValue::Kind::string;
        v.s = unquote(text);
      }
      return true;
    }
    case ValueType::vec3:
    case ValueType::mat3:
    case ValueType::vec3_or_mat3:
    case ValueType::integer_array:
    case ValueType::number_array_array:
    case ValueType::vec6:
    case ValueType::mat6:
    case ValueType::quaternion:
    case ValueType::number_array: {
      std::size_t pos = 0;
      return parse_array(text, pos, v) && trim(text.substr(pos)).empty();
    }
  }
  return false;
}

/// "loads[2].wrench" -> "loads.wrench" (the schema key of an array-of-tables member); other keys unchanged.
std::string strip_index(const std::string& key) {
  const auto open = key.find('['), close = key.find(']');
  if (open == std::string::npos || close == std::string::npos || close < open) return key;
  return key.substr(0, open) + key.substr(close + 1);
}

bool is_array_section(const Schema& schema, const std::string& section) {
  return std::find(schema.array_sections.begin(), schema.array_sections.end(), section) !=
         schema.array_sections.end();
}

/// The members of one table `node` of `section` (entry keys `prefix.leaf`, schema keys `section.leaf`).
void flatten_table(const Schema& schema, const std::string& section, const std::string& prefix,
                   const RawValue& node, const std::string& file, RawEntries& entries,
                   std::vector<InputIssue>& issues) {
  for (const auto& [leaf, value] : node.members) {
    const std::string key = prefix + "." + leaf;
    if (!schema.find(section + "." + leaf)) {
      issues.push_back({file, shorten_text(key), unknown_key_message(schema, section + "." + leaf)});
      continue;
    }
    entries[key] = {value, file};
  }
}

/// Flatten a TOML document into entries; records unknown sections/keys and non-table sections as issues.
/// An array section (`[[loads]]`) gives the entries `loads[i].leaf` and its length in `lengths`; a refused
/// section gives its one message and nothing else.
void flatten(const Schema& schema, const RawValue& root, const std::string& file, RawEntries& entries,
             std::map<std::string, std::size_t>& lengths, std::vector<InputIssue>& issues) {
  for (const auto& [section, node] : root.members) {
    if (const auto refused = schema.refused_sections.find(section);
        refused != schema.refused_sections.end()) {
      issues.push_back({file, section, refused->second});
      continue;
    }
    if (is_array_section(schema, section)) {
      const bool tables = node.kind == RawValue::Kind::array &&
                          std::all_of(node.items.begin(), node.items.end(),
                                      [](const RawValue& v) { return v.kind == RawValue::Kind::table; });
      if (!tables) {
        issues.push_back(
            {file, section,
             "must be an array of tables ([[" + section + "]] blocks); got " + node.kind_name()});
        continue;
      }
      lengths[section] = node.items.size();
      for (std::size_t i = 0; i < node.items.size(); ++i)
        flatten_table(schema, section, section + "[" + std::to_string(i) + "]", node.items[i], file, entries,
                      issues);
      continue;
    }
    if (node.kind != RawValue::Kind::table) {
      if (schema.has_section(section))
        issues.push_back({file, section, "must be a table ([" + section + "])"});
      else
        issues.push_back({file, shorten_text(section), unknown_key_message(schema, section)});
      continue;
    }
    flatten_table(schema, section, section, node, file, entries, issues);
    if (node.members.empty() && !schema.has_section(section))
      issues.push_back({file, shorten_text(section), unknown_key_message(schema, section)});
  }
}

/// Apply `--set key=value` overrides, converting by the key's schema type.
void apply_overrides(const Schema& schema, const std::vector<std::string>& overrides, RawEntries& entries,
                     std::vector<InputIssue>& issues) {
  const std::string origin = "--set";
  std::set<std::string> set_keys;
  for (const auto& o : overrides) {
    const auto eq = o.find('=');
    if (eq == std::string::npos) {
      issues.push_back({origin, "", "expected key=value, got '" + shorten_text(o) + "'"});
      continue;
    }
    const std::string key = trim(o.substr(0, eq)), text = trim(o.substr(eq + 1));
    const std::string key_text = shorten_text(key);
    const std::string section = key.substr(0, key.find_first_of(".["));
    if (const auto refused = schema.refused_sections.find(section);
        refused != schema.refused_sections.end()) {
      issues.push_back({origin, key_text, refused->second});
      continue;
    }
    if (is_array_section(schema, section)) {
      issues.push_back(
          {origin, key_text,
           "the [[" + section + "]] tables cannot be changed with --set; edit them in the file"});
      continue;
    }
    const SchemaEntry* e = schema.find(key);
    if (!e) {
      issues.push_back({origin, key_text, unknown_key_message(schema, key)});
      continue;
    }
    if (const int depth = bracket_depth(text); depth > kMaxNestingDepth) {
      issues.push_back({origin, key,
                        "value '" + shorten_text(text) + "' nests arrays " + std::to_string(depth) +
                            " deep, deeper than " + std::to_string(kMaxNestingDepth) + " levels; expected " +
                            type_name(e->type)});
      continue;
    }
    RawValue v;
    if (!convert(text, e->type, v)) {
      std::string why;
      if (e->type == ValueType::integer && parse_double(text))
        why = " (an integer is written without a decimal point or exponent, within [-9223372036854775808, "
              "9223372036854775807])";
      issues.push_back(
          {origin, key, "value '" + shorten_text(text) + "' does not convert to " + type_name(e->type) + why});
      continue;
    }
    // A --set of one member of an exclusive group replaces the file's other members (e.g. h replaces dt).
    for (const auto& group : schema.exclusive_groups) {
      if (std::find(group.begin(), group.end(), key) == group.end()) continue;
      for (const auto& other : group) {
        const auto it = entries.find(other);
        if (other != key && it != entries.end() && it->second.origin != origin) entries.erase(it);
      }
    }
    if (!set_keys.insert(key).second) {
      issues.push_back({origin, key, "given twice in --set"});
      continue;
    }
    entries[key] = {std::move(v), origin};
  }
}

}  // namespace

std::string unknown_key_message(const Schema& schema, const std::string& key) {
  const auto dot = key.find('.');
  const std::string section = dot == std::string::npos ? key : key.substr(0, dot);
  if (!schema.has_section(section) || dot == std::string::npos) {
    return "unknown key; " + schema.description + " has the sections [" + join(schema.sections, "], [") + "]";
  }
  std::vector<std::string> names;
  std::string best;
  std::size_t best_d = 3;  // suggest only close matches (edit distance <= 2)
  for (const auto& e : *schema.entries) {
    if (e.key.rfind(section + ".", 0) != 0) continue;
    const std::string leaf = e.key.substr(section.size() + 1);
    names.push_back(leaf);
    const std::string given = key.substr(dot + 1);
    // the distance is at least the difference of the lengths: skip (and never run on a huge key)
    if (given.size() > leaf.size() + 2 || leaf.size() > given.size() + 2) continue;
    const std::size_t d = edit_distance(leaf, given);
    if (d < best_d) best_d = d, best = leaf;
  }
  std::string m = "unknown key; allowed in [" + section + "]: " + join(names);
  if (!best.empty()) m += " (did you mean '" + best + "'?)";
  return m;
}

// ---------------------------------------------------------------------------------------------------------------
// Stage 1
// ---------------------------------------------------------------------------------------------------------------

namespace {

/// "16777216 bytes (16 MiB)"
std::string bytes_text(std::uintmax_t n) {
  std::string t = std::to_string(n) + " bytes";
  if (n % (std::uintmax_t{1} << 20) == 0) t += " (" + std::to_string(n >> 20) + " MiB)";
  return t;
}

/// What a file that is not a regular file is, for messages.
std::string file_kind(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISFIFO(mode)) return "a FIFO (named pipe)";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

/// A file descriptor closed on scope exit.
struct Fd {
  int fd = -1;
  Fd() = default;
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

/// Open `path` for reading if it is a regular file of at most `limit` bytes; else the reason ("it is a FIFO
/// (named pipe); a regular file is needed"). The kind is decided by stat() before opening, because opening a
/// FIFO blocks until a writer comes; the open is non-blocking and fstat() checks the opened file again, in case
/// the path changed in between. Symbolic links are followed.
std::string open_regular(const std::filesystem::path& path, std::uintmax_t limit, const char* what, Fd& out) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    const int err = errno;
    if (err == ENOENT) return "it does not exist";
    return std::string(std::strerror(err));
  }
  const auto check = [&](const struct stat& s) -> std::string {
    if (!S_ISREG(s.st_mode)) return "it is " + file_kind(s.st_mode) + "; a regular file is needed";
    if (static_cast<std::uintmax_t>(s.st_size) > limit)
      return "it has " + std::to_string(static_cast<std::uintmax_t>(s.st_size)) + " bytes, more than the limit of " +
             bytes_text(limit) + " for " + what;
    return "";
  };
  if (auto reason = check(st); !reason.empty()) return reason;
  out.fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (out.fd < 0) return std::string(std::strerror(errno));
  if (::fstat(out.fd, &st) != 0) return std::string(std::strerror(errno));
  return check(st);
}

/// Read up to `limit` + 1 bytes of `fd` into `chunk` calls of at most 64 KiB (`chunk` returns false to stop);
/// "" or the reason reading stopped.
template <class Chunk>
std::string read_bounded(int fd, std::uintmax_t limit, const char* what, Chunk chunk) {
  std::vector<char> buf(std::size_t{1} << 16);
  std::uintmax_t total = 0;
  while (true) {
    const ssize_t n = ::read(fd, buf.data(), buf.size());
    if (n < 0) {
      if (errno == EINTR || errno == EAGAIN) continue;
      return std::string(std::strerror(errno));
    }
    if (n == 0) return "";
    total += static_cast<std::uintmax_t>(n);
    if (total > limit)  // the file grew after it was checked
      return "it has more than the limit of " + bytes_text(limit) + " for " + what;
    if (!chunk(buf.data(), static_cast<std::size_t>(n))) return "";
  }
}

/// The line of the first place where `text` nests deeper than `limit` levels, or 0. A level is a table-header
/// segment, a dotted-key segment, an array or an inline table; strings and comments are skipped. toml++ (and the
/// conversion to RawValue) recurse once per level, so the limit bounds their stack. Malformed text is left to
/// toml++; this scan only counts.
long nesting_excess(std::string_view t, int limit) {
  enum class Ctx { start, header, key, value, rest } ctx = Ctx::start;
  struct Open {
    char c;
    int level;  ///< the level of the array or inline table itself
  };
  std::vector<Open> stack;
  int header_level = 0, key_base = 0, segs = 0, value_level = 0;
  long line = 1;
  const std::size_t n = t.size();
  std::size_t i = 0;
  const auto skip_string = [&] {
    const char q = t[i];
    if (i + 2 < n && t[i + 1] == q && t[i + 2] == q) {  // multi-line string
      i += 3;
      while (i < n) {
        if (q == '"' && t[i] == '\\') {
          if (i + 1 < n && t[i + 1] == '\n') ++line;
          i += 2;
          continue;
        }
        if (t[i] == '\n') ++line;
        if (t[i] == q && i + 2 < n && t[i + 1] == q && t[i + 2] == q) {
          i += 3;
          while (i < n && t[i] == q) ++i;  // up to two quotes may end the content
          return;
        }
        ++i;
      }
      return;
    }
    ++i;
    while (i < n && t[i] != q && t[i] != '\n') i += (q == '"' && t[i] == '\\') ? 2 : 1;
    if (i < n && t[i] == q) ++i;
  };
  while (i < n) {
    const char c = t[i];
    if (c == '\n') {
      ++line, ++i;
      if (stack.empty()) ctx = Ctx::start;
      continue;
    }
    if (c == ' ' || c == '\t' || c == '\r') {
      ++i;
      continue;
    }
    if (c == '#') {
      while (i < n && t[i] != '\n') ++i;
      continue;
    }
    if (ctx == Ctx::start) {
      if (c == '[') {
        ctx = Ctx::header;
        segs = 1;
        ++i;
        if (i < n && t[i] == '[') ++i;
        continue;
      }
      ctx = Ctx::key;
      key_base = header_level;
      segs = 1;
      if (key_base + segs > limit) return line;
    }
    if (c == '"' || c == '\'') {
      skip_string();
      continue;
    }
    ++i;
    switch (ctx) {
      case Ctx::header:
        if (c == '.' && ++segs > limit) return line;
        if (c == ']') header_level = segs, ctx = Ctx::rest;
        break;
      case Ctx::key:
        if (c == '.' && key_base + ++segs > limit) return line;
        if (c == '=') ctx = Ctx::value, value_level = key_base + segs;
        if (c == '}' && !stack.empty()) value_level = stack.back().level, stack.pop_back(), ctx = Ctx::value;
        break;
      case Ctx::value:
        if (c == '[' || c == '{') {
          stack.push_back({c, value_level});
          if (++value_level > limit) return line;
          if (c == '{') ctx = Ctx::key, key_base = stack.back().level, segs = 1;
        } else if (c == ',' && !stack.empty()) {
          if (stack.back().c == '{')
            ctx = Ctx::key, key_base = stack.back().level, segs = 1;
          else
            value_level = stack.back().level + 1;
        } else if ((c == ']' || c == '}') && !stack.empty()) {
          value_level = stack.back().level;
          stack.pop_back();
        }
        break;
      case Ctx::start:
      case Ctx::rest:
        break;
    }
  }
  return 0;
}

}  // namespace

std::string read_scenario_text(const std::filesystem::path& path) {
  const auto refuse = [&](const std::string& reason) {
    throw invalid_argument(path.string(), "", "cannot read the scenario file: " + reason);
  };
  Fd fd;
  if (const auto reason = open_regular(path, kMaxScenarioFileBytes, "a scenario file", fd); !reason.empty())
    refuse(reason);
  std::string text;
  const auto reason = read_bounded(fd.fd, kMaxScenarioFileBytes, "a scenario file",
                                   [&](const char* p, std::size_t n) {
                                     text.append(p, n);
                                     return true;
                                   });
  if (!reason.empty()) refuse(reason);
  return text;
}

RawValue parse_toml(const std::string& text, const std::string& file) {
  if (text.size() > kMaxScenarioFileBytes)
    throw invalid_argument(file, "",
                           "the scenario has " + std::to_string(text.size()) + " bytes, more than the limit of " +
                               bytes_text(kMaxScenarioFileBytes) + " for a scenario file");
  if (const long line = nesting_excess(text, kMaxNestingDepth))
    throw invalid_argument(file, "",
                           "line " + std::to_string(line) + " nests deeper than " + std::to_string(kMaxNestingDepth) +
                               " levels (table-header and dotted-key segments, arrays and inline tables together); "
                               "lievi's documented forms need at most 4");
  toml::table root;
  try {
    root = toml::parse(text, file);
  } catch (const toml::parse_error& e) {
    const auto& b = e.source().begin;
    // toml++'s sentence is short unless it quotes the text; then it is cut.
    std::string description(e.description());
    if (description.size() > 4 * kMaxQuotedChars) description = utf8_prefix(description, 3 * kMaxQuotedChars) + "\u2026";
    throw invalid_argument(file, "",
                           "TOML syntax error at line " + std::to_string(b.line) + ", column " +
                               std::to_string(b.column) + ": " + description);
  }
  return from_node(root);
}

RawInput read_entries(const Schema& schema, const RawValue& root, const std::string& file,
                      const std::vector<std::string>& overrides) {
  RawInput in;
  flatten(schema, root, file, in.entries, in.lengths, in.issues);
  apply_overrides(schema, overrides, in.entries, in.issues);
  return in;
}

std::optional<RawEntry> peek_key(const RawValue& root, const std::string& file,
                                 const std::vector<std::string>& overrides, const std::string& key) {
  for (auto it = overrides.rbegin(); it != overrides.rend(); ++it) {
    const auto eq = it->find('=');
    if (eq == std::string::npos || trim(it->substr(0, eq)) != key) continue;
    RawEntry e{{}, "--set"};
    e.value.kind = RawValue::Kind::string;
    e.value.s = unquote(trim(it->substr(eq + 1)));
    return e;
  }
  const auto dot = key.find('.');
  const RawValue* section = root.member(key.substr(0, dot));
  const RawValue* v = section ? section->member(key.substr(dot + 1)) : nullptr;
  if (!v) return std::nullopt;
  return RawEntry{*v, file};
}

// ---------------------------------------------------------------------------------------------------------------
// Stage 2: the resolver
// ---------------------------------------------------------------------------------------------------------------

void Resolver::issue(const std::string& key, std::string message) {
  const auto it = entries_.find(key);
  issues_.push_back({it != entries_.end() ? it->second.origin : file_, key, std::move(message)});
}

const RawValue* Resolver::get(const std::string& key) const {
  const auto it = entries_.find(key);
  return it == entries_.end() ? nullptr : &it->second.value;
}

std::vector<std::string> Resolver::given_keys() const {
  std::vector<std::string> keys;
  for (const auto& [key, entry] : entries_) keys.push_back(schema_->canonical(key));
  std::sort(keys.begin(), keys.end());
  return keys;
}

void Resolver::type_error(const std::string& key, const RawValue& v, ValueType t) {
  issue(key, "value " + v.text() + " has type " + v.kind_name() + "; expected " + type_name(t));
}

std::size_t Resolver::array_length(const std::string& section) const {
  const auto it = lengths_.find(section);
  return it == lengths_.end() ? 0 : it->second;
}

void Resolver::missing(const std::string& key, const std::string& what) {
  const auto* e = schema_->find(strip_index(key));
  issues_.push_back({file_, key,
                     "missing required key; expected " + std::string(type_name(e->type)) +
                         (e->allowed.empty() ? "" : " (" + e->allowed + ")") + ": " + what});
}

std::optional<double> Resolver::number(const std::string& key) {
  const RawValue* v = get(key);
  if (!v) return std::nullopt;
  if (!v->is_number()) {
    type_error(key, *v, ValueType::number);
    return std::nullopt;
  }
  if (!std::isfinite(v->number())) {
    issue(key, "value " + v->text() + " must be a finite number");
    return std::nullopt;
  }
  return v->number();
}

std::optional<double> Resolver::positive(const std::string& key) {
  auto x = number(key);
  if (x && !(*x > 0.0)) {
    issue(key, "value " + format_number(*x) + " must be > 0");
    return std::nullopt;
  }
  return x;
}

namespace {
/// An integer: a TOML integer only. A float is refused even when integral (`every = 2.0`): the documents say
/// integer, and `--set` converts an integer key's text to an integer (or refuses it).
std::optional<long long> as_integer(const RawValue& v) {
  if (v.kind == RawValue::Kind::integer) return v.i;
  return std::nullopt;
}
}  // namespace

std::optional<long long> Resolver::integer(const std::string& key) {
  const RawValue* v = get(key);
  if (!v) return std::nullopt;
  const auto i = as_integer(*v);
  if (!i && v->kind == RawValue::Kind::floating && std::abs(v->d) < 9e18 && v->d == std::floor(v->d))
    issue(key, "must be an integer, got the float " + v->text() + " (write " +
                   std::to_string(static_cast<long long>(v->d)) + ")");
  else if (!i)
    type_error(key, *v, ValueType::integer);
  return i;
}

std::optional<long long> Resolver::integer_in(const std::string& key, long long lo, long long hi) {
  auto i = integer(key);
  if (!i || (*i >= lo && *i <= hi)) return i;
  if (hi == std::numeric_limits<long long>::max())
    issue(key, "value " + std::to_string(*i) + " must be >= " + std::to_string(lo));
  else
    issue(key, "value " + std::to_string(*i) + " must be in [" + std::to_string(lo) + ", " +
                   std::to_string(hi) + "]");
  return std::nullopt;
}

std::optional<bool> Resolver::boolean(const std::string& key) {
  const RawValue* v = get(key);
  if (!v) return std::nullopt;
  if (v->kind != RawValue::Kind::boolean) {
    type_error(key, *v, ValueType::boolean);
    return std::nullopt;
  }
  return v->b;
}

std::optional<std::string> Resolver::string(const std::string& key) {
  const RawValue* v = get(key);
  if (!v) return std::nullopt;
  if (v->kind != RawValue::Kind::string) {
    type_error(key, *v, ValueType::string);
    return std::nullopt;
  }
  return v->s;
}

std::optional<std::string> Resolver::choice(const std::string& key, const std::vector<std::string>& allowed,
                                            const char* what) {
  auto s = string(key);
  if (!s) return std::nullopt;
  if (std::find(allowed.begin(), allowed.end(), *s) == allowed.end()) {
    issue(key, "value " + shorten_text(toml_string(*s)) + " is not " + what + "; allowed: " + join(allowed));
    return std::nullopt;
  }
  return s;
}

bool Resolver::as_vec3(const RawValue& v, Vec3& out) {
  if (v.kind != RawValue::Kind::array || v.items.size() != 3) return false;
  for (int n = 0; n < 3; ++n) {
    if (!v.items[n].is_number() || !std::isfinite(v.items[n].number())) return false;
    out[n] = v.items[n].number();
  }
  return true;
}

bool Resolver::as_mat3(const RawValue& v, Mat3& out) {
  if (v.kind != RawValue::Kind::array || v.items.size() != 3) return false;
  for (int r = 0; r < 3; ++r) {
    Vec3 row;
    if (!as_vec3(v.items[r], row)) return false;
    out.row(r) = row.transpose();
  }
  return true;
}

namespace {

/// A value that `parse` converts, or nullopt (absent, or "value <text><what>" was recorded).
template <class T, class Parse>
std::optional<T> parsed(Resolver& r, const std::string& key, Parse parse, const char* what) {
  const RawValue* v = r.get(key);
  if (!v) return std::nullopt;
  T x{};
  if (!parse(*v, x)) {
    r.issue(key, "value " + v->text() + what);
    return std::nullopt;
  }
  return x;
}

bool as_integer_array(const RawValue& v, std::vector<long long>& out) {
  if (v.kind != RawValue::Kind::array) return false;
  for (const auto& item : v.items) {
    const auto i = as_integer(item);
    if (!i) return false;
    out.push_back(*i);
  }
  return true;
}

bool as_number_array_array(const RawValue& v, std::vector<std::vector<double>>& out) {
  if (v.kind != RawValue::Kind::array) return false;
  for (const auto& row : v.items) {
    if (row.kind != RawValue::Kind::array) return false;
    out.emplace_back();
    for (const auto& x : row.items) {
      if (!x.is_number() || !std::isfinite(x.number())) return false;
      out.back().push_back(x.number());
    }
  }
  return true;
}

}  // namespace

std::optional<Vec3> Resolver::vec3(const std::string& key) {
  return parsed<Vec3>(*this, key, as_vec3, " is not an array of 3 finite numbers");
}

std::optional<Mat3> Resolver::mat3(const std::string& key) {
  return parsed<Mat3>(*this, key, as_mat3, " is not a 3x3 matrix (an array of 3 arrays of 3 finite numbers)");
}

std::optional<std::vector<long long>> Resolver::integer_array(const std::string& key) {
  return parsed<std::vector<long long>>(*this, key, as_integer_array, " is not an array of integers");
}

std::optional<std::vector<std::vector<double>>> Resolver::number_array_array(const std::string& key) {
  return parsed<std::vector<std::vector<double>>>(*this, key, as_number_array_array,
                                                  " is not an array of arrays of finite numbers");
}

namespace {

bool as_number_array(const RawValue& v, std::vector<double>& out) {
  if (v.kind != RawValue::Kind::array) return false;
  for (const auto& x : v.items) {
    if (!x.is_number() || !std::isfinite(x.number())) return false;
    out.push_back(x.number());
  }
  return true;
}

bool as_vec6(const RawValue& v, std::array<double, 6>& out) {
  std::vector<double> x;
  if (!as_number_array(v, x) || x.size() != 6) return false;
  std::copy(x.begin(), x.end(), out.begin());
  return true;
}

bool as_mat6(const RawValue& v, std::array<std::array<double, 6>, 6>& out) {
  if (v.kind != RawValue::Kind::array || v.items.size() != 6) return false;
  for (std::size_t r = 0; r < 6; ++r)
    if (!as_vec6(v.items[r], out[r])) return false;
  return true;
}

}  // namespace

std::optional<std::vector<double>> Resolver::number_array(const std::string& key) {
  return parsed<std::vector<double>>(*this, key, as_number_array, " is not an array of finite numbers");
}

std::optional<std::array<double, 6>> Resolver::vec6(const std::string& key) {
  return parsed<std::array<double, 6>>(*this, key, as_vec6, " is not an array of 6 finite numbers");
}

std::optional<std::array<std::array<double, 6>, 6>> Resolver::mat6(const std::string& key) {
  return parsed<std::array<std::array<double, 6>, 6>>(
      *this, key, as_mat6, " is not a 6x6 matrix (an array of 6 arrays of 6 finite numbers)");
}

void throw_if_issues(Resolver& r) {
  auto& issues = r.issues();
  if (issues.empty()) return;
  // A file of a million unknown keys is one screen of messages, not a million lines.
  constexpr std::size_t kListed = 100;
  if (issues.size() > kListed) {
    const std::size_t more = issues.size() - kListed;
    const std::string file = issues.front().file;
    issues.resize(kListed);
    issues.push_back({file, "", "and " + std::to_string(more) + " more issues (the first " +
                                    std::to_string(kListed) + " are listed)"});
  }
  throw invalid_argument(std::move(issues));
}

void read_noise_stream(Resolver& r, double dt, bool dt_ok, std::uint32_t& seed, std::uint32_t& path, double& base_dt,
                       int& refine_log2, bool& truncate) {
  constexpr long long kMaxU32 = 4294967295LL;
  if (auto v = r.integer_in("noise.seed", 0, kMaxU32)) seed = static_cast<std::uint32_t>(*v);
  if (auto v = r.integer_in("noise.path", 0, kMaxU32)) path = static_cast<std::uint32_t>(*v);
  if (auto v = r.boolean("noise.truncate")) truncate = *v;
  read_base_dt(r, dt, dt_ok, base_dt, refine_log2);
}

std::vector<SchemaEntry> noise_stream_entries() {
  const std::string opt = "optional", u32 = "0 ... 4294967295";
  return {
      {"noise.seed", ValueType::integer, opt, "1", "", u32, "Philox key, first word", ""},
      {"noise.path", ValueType::integer, opt, "0", "", u32,
       "Philox key, second word: the path (--paths N runs path ... path + N - 1)", ""},
      {"noise.base_dt", ValueType::number, opt, "integrator.dt", "s",
       "> 0, dt / base_dt = 2^m for an integer m in [0, 40]",
       "finest step on which increments are drawn; a step's increment sums its 2^m fine ones", ""},
      {"noise.truncate", ValueType::boolean, opt, "false", "", "true, false",
       "truncated increments (Milstein-Repin-Tretyakov, k = 2)", ""},
  };
}

void read_base_dt(Resolver& r, double dt, bool dt_ok, double& base_dt, int& refine_log2) {
  constexpr int kMaxRefineLog2 = 40;
  base_dt = dt;
  const auto b = r.positive("noise.base_dt");
  if (!b) return;
  base_dt = *b;
  if (!dt_ok) return;
  const double ratio = dt / *b, lg = std::log2(ratio);
  const double m = std::round(lg);
  if (m >= 0 && m <= kMaxRefineLog2 && std::abs(std::ldexp(*b, static_cast<int>(m)) - dt) <= 1e-9 * dt) {
    refine_log2 = static_cast<int>(m);
    return;
  }
  const auto clamped = [](double e) {
    return static_cast<int>(std::clamp(e, 0.0, static_cast<double>(kMaxRefineLog2)));
  };
  const auto suggest = [&](int k) {
    return "base_dt = " + format_number(std::ldexp(dt, -k)) + " (dt/2^" + std::to_string(k) + ")";
  };
  const int lo = clamped(std::floor(lg)), hi = clamped(std::ceil(lg));
  std::string hint = suggest(lo);
  if (hi != lo) hint += " or " + suggest(hi);
  r.issue("noise.base_dt", "value " + format_number(*b) + " gives dt / base_dt = " + format_number(ratio) +
                               " with integrator.dt = " + format_number(dt) +
                               ", which is not 2^m for an integer m in [0, 40] (within 1e-9 relative); use " +
                               hint);
}

TimeGrid read_time_grid(Resolver& r, const std::string& dt_key, const std::string& dt_what, bool read_dt) {
  TimeGrid g;
  bool dt_ok = false, t_end_ok = false;
  if (!read_dt) {
    // an issue on the step was recorded by the caller
  } else if (!r.has(dt_key)) {
    r.missing(dt_key, dt_what);
  } else if (const auto v = r.number(dt_key)) {
    g.dt = *v;
    dt_ok = g.dt > 0.0;
    if (!dt_ok) r.issue(dt_key, "value " + format_number(g.dt) + " must be > 0");
  }
  if (!r.has("integrator.t_end")) {
    r.missing("integrator.t_end", "the final time");
  } else if (const auto v = r.number("integrator.t_end")) {
    g.t_end = *v;
    t_end_ok = g.t_end > 0.0;
    if (!t_end_ok) r.issue("integrator.t_end", "value " + format_number(g.t_end) + " must be > 0");
  }
  if (!dt_ok || !t_end_ok) return g;
  const double dt = g.dt, t_end = g.t_end, ratio = t_end / dt;
  // Our choice (docs/scenarios.md): t_end must be N dt within 1e-9 relative, so that t_N = t_end and no
  // shortened last step changes the method.
  const double N = std::round(ratio);
  if (!(ratio < 1e12)) {
    r.issue(dt_key, "value " + format_number(dt) + " gives " + format_number(ratio) +
                        " steps to t_end = " + format_number(t_end) + "; at most 1e12 steps are allowed");
  } else if (N < 1.0 || std::abs(N * dt - t_end) > 1e-9 * t_end) {
    const double n_lo = std::max(1.0, std::floor(ratio)), n_hi = std::max(1.0, std::ceil(ratio));
    std::string suggestion = "dt = " + format_number(t_end / n_lo) + " (N = " + format_number(n_lo) + ")";
    if (n_hi != n_lo)
      suggestion += " or dt = " + format_number(t_end / n_hi) + " (N = " + format_number(n_hi) + ")";
    r.issue(dt_key, "value " + format_number(dt) + " does not divide t_end = " + format_number(t_end) +
                        " into an integer number of steps (within 1e-9 relative); use dt = t_end/N, e.g. " +
                        suggestion);
  } else {
    g.steps = static_cast<long long>(N);
    g.ok = true;
  }
  return g;
}

// ---------------------------------------------------------------------------------------------------------------
// Printing
// ---------------------------------------------------------------------------------------------------------------

std::string schema_markdown(const std::vector<SchemaEntry>& schema) {
  auto cell = [](const std::string& s) {
    std::string t;
    for (const char c : s) t += c == '|' ? std::string("\\|") : std::string(1, c);
    return t.empty() ? std::string("—") : t;
  };
  std::string md = "| key | type | required | default | unit | allowed | meaning |\n";
  md += "|---|---|---|---|---|---|---|\n";
  for (const auto& e : schema) {
    md += "| `" + e.key + "` | " + cell(type_name(e.type)) + " | " + cell(e.requirement) + " | " +
          (e.default_text.empty() ? std::string("—") : "`" + e.default_text + "`") + " | " + cell(e.unit) +
          " | " + cell(e.allowed) + " | " + cell(e.doc) + " |\n";
  }
  return md;
}

std::string toml_string(const std::string& s) {
  std::string t = "\"";
  for (const char c : s) {
    if (c == '"' || c == '\\') t += '\\';
    t += c;
  }
  return t + "\"";
}

std::string value_toml(const ScenarioValue& v) {
  struct V {
    std::string operator()(const std::string& s) const { return toml_string(s); }
    std::string operator()(double x) const { return format_number(x, true); }
    std::string operator()(long long i) const { return std::to_string(i); }
    std::string operator()(bool b) const { return b ? "true" : "false"; }
    std::string operator()(const std::vector<long long>& x) const {
      std::string t = "[";
      for (std::size_t n = 0; n < x.size(); ++n) t += (n ? ", " : "") + std::to_string(x[n]);
      return t + "]";
    }
    std::string operator()(const std::vector<double>& x) const {
      std::string t = "[";
      for (std::size_t n = 0; n < x.size(); ++n) t += (n ? ", " : "") + format_number(x[n], true);
      return t + "]";
    }
    std::string operator()(const std::vector<std::vector<double>>& A) const {
      std::string t = "[";
      for (std::size_t n = 0; n < A.size(); ++n) t += (n ? ", " : "") + (*this)(A[n]);
      return t + "]";
    }
  };
  return std::visit(V{}, v);
}

std::string toml_header(const std::string& what, const std::string& name, const std::string& source,
                        long long steps, double dt, double t_end, const std::string& extra,
                        const std::vector<std::string>& notes) {
  std::string t = "# lievi: resolved " + what + " '" + name + "'" +
                  (source.empty() ? "" : " from " + source) + "\n# " + std::to_string(steps) +
                  " steps of dt = " + format_number(dt) + " from t = 0 to t_end = " + format_number(t_end) +
                  extra + "\n";
  for (const auto& n : notes) t += "# note: " + n + "\n";
  return t;
}

std::string entries_toml(const std::vector<ResolvedEntry>& entries,
                         const std::function<std::vector<std::string>(const ResolvedEntry&)>& comments) {
  std::string t, section;
  for (const auto& e : entries) {
    const auto dot = e.key.find('.');
    const std::string sec = e.key.substr(0, dot), leaf = e.key.substr(dot + 1);
    if (sec != section) {
      t += "\n[" + sec + "]\n";
      section = sec;
    }
    std::string line = leaf + " = " + value_toml(e.value);
    std::vector<std::string> parts;
    if (e.is_default) parts.emplace_back("default");
    for (auto& c : comments(e)) parts.push_back(std::move(c));
    if (!parts.empty()) {
      if (line.size() < 40) line.resize(40, ' ');
      line += "  # " + join(parts, "; ");
    }
    t += line + "\n";
  }
  return t;
}

namespace {
std::vector<std::string> csv_fields(std::string line) {
  if (!line.empty() && line.back() == '\r') line.pop_back();
  std::vector<std::string> out;
  std::stringstream ss(line);
  std::string f;
  while (std::getline(ss, f, ',')) out.push_back(trim(f));
  if (!line.empty() && line.back() == ',') out.emplace_back();
  return out;
}
}  // namespace

long read_csv_side_file(Resolver& r, const std::string& key, const std::string& file,
                        const std::filesystem::path& base, std::string& resolved, bool& had_header,
                        const std::function<bool(const std::vector<std::string>&, long)>& header,
                        const std::function<void(const std::vector<std::string>&, long)>& row) {
  std::filesystem::path p(file);
  if (p.is_relative() && !base.empty()) p = base / p;
  resolved = p.string();
  had_header = false;
  const auto refuse = [&](const std::string& reason) {
    r.issue(key, "cannot read \"" + resolved + "\": " + reason +
                     " (a relative path is relative to the scenario file's folder)");
    return -1L;
  };
  Fd fd;
  if (const auto reason = open_regular(p, kMaxSideFileBytes, "a side file", fd); !reason.empty())
    return refuse(reason);
  // Lines are handed on as they complete; a header that stops the reading stops it here too.
  long ln = 0;
  bool stopped = false;
  std::string line;
  const auto take = [&] {
    ++ln;
    const auto fields = csv_fields(line);
    line.clear();
    if (fields.empty() || (fields.size() == 1 && fields[0].empty()) || fields[0].rfind('#', 0) == 0) return;
    if (!had_header) {
      had_header = true;
      stopped = !header(fields, ln);
      return;
    }
    row(fields, ln);
  };
  const auto reason = read_bounded(fd.fd, kMaxSideFileBytes, "a side file", [&](const char* b, std::size_t n) {
    for (const char* e = b + n; b < e && !stopped;) {
      const char* nl = static_cast<const char*>(std::memchr(b, '\n', static_cast<std::size_t>(e - b)));
      line.append(b, nl ? nl : e);
      if (!nl) break;
      take();
      b = nl + 1;
    }
    return !stopped;
  });
  if (stopped) return ln;
  if (!reason.empty()) return refuse(reason);
  if (!line.empty()) take();
  return ln;
}

}  // namespace lievi::io::detail
