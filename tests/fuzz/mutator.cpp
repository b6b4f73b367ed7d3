/// @file tests/fuzz/mutator.cpp
/// @brief The mutations of the GCC fuzz driver (mutator.hpp).
#include "mutator.hpp"

#include <algorithm>
#include <set>
#include <utility>

namespace lievi::fuzz {
namespace {

/// Values that probe the bounds of the reader: integer and float extremes, non-finite numbers, wrong types,
/// empty and long strings, nested arrays, inline tables, dates, file names (the example CSV the driver copies
/// into its work folder, a folder, an empty file, a missing file).
const std::vector<std::string>& values() {
  static const std::vector<std::string> v = {
      "0", "-1", "1", "2", "3", "-0.0", "0.5", "1e-300", "5e-324", "1e300", "1.7976931348623157e308",
      "-1.7976931348623157e308", "inf", "-inf", "nan", "+nan", "9223372036854775807", "-9223372036854775808",
      "4294967296", "4294967295", "2147483648", "-2147483649", "1000000000", "1e9", "1e15", "1e16",
      "123456789012", "0.1", "1e-9", "\"\"", "\"x\"", "\"last\"", "\"none\"", "\"whip_motion.csv\"", "\"/\"",
      "\"/dev/null\"", "\"nonexistent.csv\"", "'literal'", "\"\"\"multi\nline\"\"\"", "true", "false", "[]",
      "[[]]", "[1,2,3]", "[0,0,0]", "[1e308,1e308,1e308]", "[1e300,1e300,1e300]", "[nan,0,0]", "[inf,0,0]",
      "[1,2]", "[1,2,3,4,5,6]", "[0,0,0,0,0,0]", "[1,0,0,0,0,0,0]", "[-1,2,3]", "[1,\"a\",3]", "[true]",
      "[[1,0,0],[0,1,0],[0,0,1]]", "[[1,2,3],[4,5,6]]", "[[1,2,3],[4,5,6],[7,8]]", "[[-1,0,0],[0,1,0],[0,0,1]]",
      "[[1e308,0,0],[0,1e308,0],[0,0,1e308]]", "[0, 5, 10]", "[10, 5, 0]", "[0, 0]", "[-5, 0]",
      "{}", "{a = 1}", "{ theta = [0,0,0,0,0,1] }", "1979-05-27", "07:32:00", "1979-05-27T07:32:00Z", "0x10",
      "0o17", "0b101", "1_000", "+1", "1e", "\"\\u0000\"", "\"\\n\"",
      "\"" + std::string(300, 'x') + "\"", "[" + std::string(40, '[') + std::string(40, ']') + "]"};
  return v;
}

/// Single characters and short pieces with a meaning in TOML.
const std::vector<std::string>& tokens() {
  static const std::vector<std::string> t = {"[", "]", "[[", "]]", "{", "}", "=", "\"", "'", ",", ".", "\n",
                                             "#", "-", "+", "_", "e", "0", "9", " ", "\t", "\\", "\r\n",
                                             "\"\"\"", "inf", "nan", "true", "\0"};
  return t;
}

/// [begin, end) of the line containing position p.
std::pair<std::size_t, std::size_t> line_at(const std::string& s, std::size_t p) {
  const auto b = p == 0 ? 0 : s.rfind('\n', p - 1);
  const std::size_t begin = b == std::string::npos ? 0 : (p == 0 ? 0 : b + 1);
  const auto e = s.find('\n', p);
  return {begin, e == std::string::npos ? s.size() : e};
}

/// The start offsets of every line.
std::vector<std::size_t> line_starts(const std::string& s) {
  std::vector<std::size_t> v{0};
  for (std::size_t i = 0; i < s.size(); ++i)
    if (s[i] == '\n' && i + 1 < s.size()) v.push_back(i + 1);
  return v;
}

/// The line starts of lines of the form `key = value` (a '=' before any '#').
std::vector<std::size_t> assignment_lines(const std::string& s) {
  std::vector<std::size_t> v;
  for (std::size_t b : line_starts(s)) {
    const auto [lb, le] = line_at(s, b);
    const std::string line = s.substr(lb, le - lb);
    const auto eq = line.find('='), hash = line.find('#');
    if (eq != std::string::npos && (hash == std::string::npos || eq < hash)) v.push_back(lb);
  }
  return v;
}

/// The line starts of table headers `[x]` and `[[x]]`.
std::vector<std::size_t> header_lines(const std::string& s) {
  std::vector<std::size_t> v;
  for (std::size_t b : line_starts(s)) {
    std::size_t i = b;
    while (i < s.size() && (s[i] == ' ' || s[i] == '\t')) ++i;
    if (i < s.size() && s[i] == '[') v.push_back(b);
  }
  return v;
}

}  // namespace

Mutator::Mutator(std::uint64_t seed, std::vector<std::string> keys, std::vector<std::string> enum_values)
    : rng_(seed), keys_(std::move(keys)), enum_values_(std::move(enum_values)) {
  std::set<std::string> sections;
  for (const auto& k : keys_) sections.insert(k.substr(0, k.find('.')));
  sections_.assign(sections.begin(), sections.end());
}

std::string Mutator::value() {
  if (!enum_values_.empty() && rng_.chance(20)) return "\"" + enum_values_[rng_.below(enum_values_.size())] + "\"";
  if (rng_.chance(5)) {  // a nested array or inline table of random depth (the reader's nesting limit)
    const std::size_t depth = 1 + rng_.below(rng_.chance(10) ? 300 : 40);
    const bool table = rng_.chance(30);
    std::string v;
    for (std::size_t i = 0; i < depth; ++i) v += table ? "{a=" : "[";
    v += "1";
    for (std::size_t i = 0; i < depth; ++i) v += table ? "}" : "]";
    return v;
  }
  return values()[rng_.below(values().size())];
}

std::string Mutator::key_leaf() {
  const std::string& k = keys_[rng_.below(keys_.size())];
  const auto dot = k.find('.');
  return dot == std::string::npos ? k : k.substr(dot + 1);
}

void Mutator::mutate_once(std::string& s, const std::string& b) {
  const auto pos = [&](std::size_t n) { return n == 0 ? 0 : rng_.below(n + 1); };  // in [0, n]
  switch (rng_.below(17)) {
    case 0:  // flip a bit
      if (!s.empty()) s[rng_.below(s.size())] ^= static_cast<char>(1u << rng_.below(8));
      break;
    case 1:  // set a byte to a TOML-significant character
      if (!s.empty()) {
        const std::string& t = tokens()[rng_.below(tokens().size())];
        s[rng_.below(s.size())] = t.empty() ? '\0' : t[0];
      }
      break;
    case 2: {  // insert a token, a value or a key name
      std::string ins = rng_.chance(50) ? tokens()[rng_.below(tokens().size())] : (rng_.chance(50) ? value() : key_leaf());
      if (ins.empty()) ins.assign(1, '\0');
      s.insert(pos(s.size()), ins);
      break;
    }
    case 3:  // erase a range
      if (!s.empty()) {
        const std::size_t p = rng_.below(s.size());
        s.erase(p, 1 + rng_.below(rng_.chance(50) ? 4 : 64));
      }
      break;
    case 4:  // duplicate a range in place
      if (!s.empty()) {
        const std::size_t p = rng_.below(s.size());
        const std::string piece = s.substr(p, 1 + rng_.below(64));
        s.insert(pos(s.size()), piece);
      }
      break;
    case 5: {  // splice: a head of s and a tail of b, cut at line starts
      const auto sa = line_starts(s), sb = line_starts(b);
      const std::size_t cut_a = sa[rng_.below(sa.size())], cut_b = sb[rng_.below(sb.size())];
      s = s.substr(0, cut_a) + b.substr(std::min(cut_b, b.size()));
      break;
    }
    case 6:
    case 7: {  // replace the value of a `key = value` line
      const auto lines = assignment_lines(s);
      if (lines.empty()) break;
      const auto [lb, le] = line_at(s, lines[rng_.below(lines.size())]);
      const auto eq = s.find('=', lb);
      s.replace(eq + 1, le - eq - 1, " " + value());
      break;
    }
    case 8: {  // insert a schema key with an interesting value: in its section, as a dotted key, or anywhere
      const std::string& k = keys_[rng_.below(keys_.size())];
      const auto dot = k.find('.');
      const std::string section = k.substr(0, dot), leaf = dot == std::string::npos ? k : k.substr(dot + 1);
      const std::string header = "[" + section + "]";
      const auto h = s.find(header);
      if (h != std::string::npos && rng_.chance(70)) {
        const auto e = s.find('\n', h);
        const std::string line = "\n" + leaf + " = " + value();
        s.insert(e == std::string::npos ? s.size() : e, line);
      } else if (rng_.chance(50)) {
        s.insert(0, k + " = " + value() + "\n");
      } else {
        const auto starts = line_starts(s);
        s.insert(starts[rng_.below(starts.size())], leaf + " = " + value() + "\n");
      }
      break;
    }
    case 9: {  // duplicate a table (header and its lines), next to itself or at the end
      const auto headers = header_lines(s);
      if (headers.empty()) break;
      const std::size_t i = rng_.below(headers.size());
      const std::size_t begin = headers[i], end = i + 1 < headers.size() ? headers[i + 1] : s.size();
      std::string block = s.substr(begin, end - begin);
      if (block.empty() || block.back() != '\n') block += '\n';
      s.insert(rng_.chance(50) ? end : s.size(), (s.empty() || s.back() == '\n' ? "" : "\n") + block);
      break;
    }
    case 10: {  // swap the keys of two assignment lines
      const auto lines = assignment_lines(s);
      if (lines.size() < 2) break;
      std::size_t i = lines[rng_.below(lines.size())], j = lines[rng_.below(lines.size())];
      if (i == j) break;
      if (i > j) std::swap(i, j);
      const auto ei = s.find('=', i), ej = s.find('=', j);
      const std::string ki = s.substr(i, ei - i), kj = s.substr(j, ej - j);
      s.replace(j, ej - j, ki);  // the later one first: the earlier offsets stay valid
      s.replace(i, ei - i, kj);
      break;
    }
    case 11: {  // delete a line
      const auto starts = line_starts(s);
      const auto [lb, le] = line_at(s, starts[rng_.below(starts.size())]);
      s.erase(lb, le - lb + (le < s.size() ? 1 : 0));
      break;
    }
    case 12: {  // duplicate a line
      const auto starts = line_starts(s);
      const auto [lb, le] = line_at(s, starts[rng_.below(starts.size())]);
      s.insert(le, "\n" + s.substr(lb, le - lb));
      break;
    }
    case 13: {  // rename a table header to another section, an array-of-tables form or nonsense
      const auto headers = header_lines(s);
      if (headers.empty()) break;
      const auto [lb, le] = line_at(s, headers[rng_.below(headers.size())]);
      const std::string& sec = sections_[rng_.below(sections_.size())];
      const std::string names[] = {"[" + sec + "]", "[[" + sec + "]]", "[" + sec + ".x]", "[" + sec + "." + key_leaf() + "]", "[x]", "[]"};
      s.replace(lb, le - lb, names[rng_.below(std::size(names))]);
      break;
    }
    case 14: {  // append a --set override (after the NUL byte that starts them)
      const std::string& k = keys_[rng_.below(keys_.size())];
      std::string v = value();
      if (rng_.chance(10)) v = std::string(1 + rng_.below(300), '[') + "1" + std::string(1 + rng_.below(300), ']');
      std::string line = rng_.chance(10) ? k : k + "=" + v;
      s += (s.find('\0') == std::string::npos ? std::string(1, '\0') : std::string("\n")) + line;
      break;
    }
    case 15: {  // a number in the text changed: negated, scaled by a power of ten, or made huge
      std::vector<std::size_t> digits;
      for (std::size_t i = 0; i < s.size(); ++i)
        if (s[i] >= '0' && s[i] <= '9' && (i == 0 || !(s[i - 1] >= '0' && s[i - 1] <= '9'))) digits.push_back(i);
      if (digits.empty()) break;
      const std::size_t p = digits[rng_.below(digits.size())];
      std::size_t e = p;
      while (e < s.size() && ((s[e] >= '0' && s[e] <= '9') || s[e] == '.' || s[e] == 'e' || s[e] == '_')) ++e;
      const std::string pieces[] = {"-", "0", "1e" + std::to_string(rng_.below(400)), "9999999999999999999",
                                    std::to_string(rng_.next() % 100000), "0.000001"};
      const std::string& r = pieces[rng_.below(std::size(pieces))];
      if (r == "-") s.insert(p, r);
      else s.replace(p, e - p, r);
      break;
    }
    case 16: {  // a dotted key of random depth (the reader's nesting limit)
      std::string k = sections_[rng_.below(sections_.size())];
      const std::size_t depth = 1 + rng_.below(rng_.chance(10) ? 400 : 20);
      for (std::size_t i = 0; i < depth; ++i) k += ".a";
      s.insert(0, k + " = 1\n");
      break;
    }
  }
}

std::string Mutator::mutate(const std::string& a, const std::string& b, std::size_t max_size) {
  std::string s = a;
  const std::size_t n = 1 + rng_.below(4);
  for (std::size_t i = 0; i < n; ++i) mutate_once(s, b);
  if (s.size() > max_size) s.resize(max_size);
  return s;
}

}  // namespace lievi::fuzz
