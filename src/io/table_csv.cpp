/// @file src/io/table_csv.cpp
/// @brief Numeric CSV tables: shortest round-trip text (std::to_chars) out, std::from_chars in.
#include "lievi/io/table_csv.hpp"

#include <unistd.h>

#include "lievi/io/checkpoint.hpp"

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string_view>

namespace lievi::io {

namespace {

/// Longest shortest-round-trip double text is 24 characters ("-2.2250738585072014e-308"); room to spare.
constexpr std::size_t kMaxNumberChars = 32;

/// Append the text of x to `out` (no allocation when the capacity suffices).
void append_number(std::string& out, double x) {
  if (std::isnan(x)) {
    out += "nan";
    return;
  }
  if (std::isinf(x)) {
    out += x > 0 ? "inf" : "-inf";
    return;
  }
  const std::size_t old = out.size();
  out.resize(old + kMaxNumberChars);
  const auto res = std::to_chars(out.data() + old, out.data() + out.size(), x);
  out.resize(static_cast<std::size_t>(res.ptr - out.data()));
}

}  // namespace

TableCsvWriter::TableCsvWriter(const std::filesystem::path& path, std::vector<std::string> columns)
    : path_(path), columns_(std::move(columns)) {
  if (columns_.empty()) throw std::invalid_argument("table " + path_.string() + ": no columns");
  for (const std::string& c : columns_)
    if (c.empty() || c.find_first_of(",\"\r\n") != std::string::npos)
      throw std::invalid_argument("table " + path_.string() + ": invalid column name '" + c +
                                  "' (non-empty, no comma, quote or newline)");
  f_ = std::fopen(path_.c_str(), "wb");
  if (!f_) throw std::runtime_error("cannot create " + path_.string() + ": " + std::strerror(errno));
  buf_.reserve(kFlushBytes + 64 * 1024);
  for (std::size_t c = 0; c < columns_.size(); ++c) {
    if (c) buf_ += ',';
    buf_ += columns_[c];
  }
  buf_ += '\n';
  bytes_ = static_cast<long long>(buf_.size());
}

TableCsvWriter::TableCsvWriter(const std::filesystem::path& path, std::vector<std::string> columns, Resume)
    : path_(path), columns_(std::move(columns)) {
  buf_.reserve(kFlushBytes + 64 * 1024);
}

void TableCsvWriter::checkpoint(StateIO& a) {
  if (!a.restoring()) {
    flush();
    if (f_ && (std::fflush(f_) != 0 || ::fsync(::fileno(f_)) != 0))
      throw std::runtime_error("writing " + path_.string() + " failed: " + std::strerror(errno));
  }
  long long rows = static_cast<long long>(rows_);
  a("bytes", bytes_);
  a("rows", rows);
  if (a.restoring()) {
    rows_ = static_cast<std::size_t>(rows);
    truncate_output(path_, bytes_);
    f_ = std::fopen(path_.c_str(), "ab");
    if (!f_) throw std::runtime_error("cannot open " + path_.string() + ": " + std::strerror(errno));
  }
}

TableCsvWriter::~TableCsvWriter() {
  try {
    close();
  } catch (...) {  // NOLINT(bugprone-empty-catch): a destructor must not throw; close() reports errors
  }
}

void TableCsvWriter::row(std::span<const double> values) {
  if (closed_) throw std::runtime_error("table " + path_.string() + ": row after close()");
  if (values.size() != columns_.size())
    throw std::runtime_error("table " + path_.string() + ": row " + std::to_string(rows_ + 1) + " has " +
                             std::to_string(values.size()) + " values, expected " +
                             std::to_string(columns_.size()));
  const std::size_t before = buf_.size();
  for (std::size_t c = 0; c < values.size(); ++c) {
    if (c) buf_ += ',';
    append_number(buf_, values[c]);
  }
  buf_ += '\n';
  bytes_ += static_cast<long long>(buf_.size() - before);
  ++rows_;
  if (buf_.size() >= kFlushBytes) flush();
}

void TableCsvWriter::flush() {
  if (!f_ || buf_.empty()) return;
  errno = 0;
  const std::size_t want = buf_.size();
  const std::size_t n = std::fwrite(buf_.data(), 1, want, f_);
  const int err = errno;
  buf_.clear();  // keeps the capacity: no new allocation for the next block
  if (n != want) {
    std::fclose(f_);
    f_ = nullptr;
    closed_ = true;
    throw std::runtime_error("writing " + path_.string() + " failed: " +
                             (err ? std::strerror(err) : "I/O error"));
  }
}

void TableCsvWriter::close() {
  if (closed_) return;
  flush();  // may throw (and then marks the writer closed)
  closed_ = true;
  if (f_) {
    errno = 0;
    const bool flush_failed = std::fflush(f_) != 0 || std::ferror(f_);
    const int err = errno;
    const bool close_failed = std::fclose(f_) != 0;
    f_ = nullptr;
    if (flush_failed || close_failed)
      throw std::runtime_error("writing " + path_.string() + " failed: " +
                               (err ? std::strerror(err) : "I/O error"));
  }
}

CsvTable read_csv_table(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + path.string());
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string text = ss.str();
  CsvTable t;
  std::size_t pos = 0, line_no = 0;
  auto next_line = [&](std::string_view& line) {
    if (pos >= text.size()) return false;
    std::size_t e = text.find('\n', pos);
    if (e == std::string::npos) e = text.size();
    line = std::string_view(text).substr(pos, e - pos);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    pos = e + 1;
    ++line_no;
    return true;
  };
  auto where = [&] { return path.string() + ":" + std::to_string(line_no) + ": "; };
  std::string_view line;
  if (!next_line(line) || line.empty()) throw std::runtime_error(path.string() + ":1: no header line");
  for (std::size_t b = 0;;) {
    const std::size_t e = line.find(',', b);
    t.columns.emplace_back(line.substr(b, e == std::string_view::npos ? std::string_view::npos : e - b));
    if (e == std::string_view::npos) break;
    b = e + 1;
  }
  const std::size_t nc = t.columns.size();
  while (next_line(line)) {
    std::vector<double> r;
    r.reserve(nc);
    const char* p = line.data();
    const char* end = line.data() + line.size();
    for (;;) {
      const char* comma = static_cast<const char*>(std::memchr(p, ',', static_cast<std::size_t>(end - p)));
      const char* fe = comma ? comma : end;
      double v = 0;
      const auto res = std::from_chars(p, fe, v);
      if (res.ec != std::errc() || res.ptr != fe)
        throw std::runtime_error(where() + "field " + std::to_string(r.size() + 1) + " '" +
                                 std::string(p, fe) + "' is not a number");
      r.push_back(v);
      if (!comma) break;
      p = comma + 1;
    }
    if (r.size() != nc)
      throw std::runtime_error(where() + "row has " + std::to_string(r.size()) + " fields, expected " +
                               std::to_string(nc));
    t.rows.push_back(std::move(r));
  }
  return t;
}

}  // namespace lievi::io
