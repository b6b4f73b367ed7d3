/// @file src/io/npy.cpp
/// @brief NumPy `.npy` float64 arrays (lievi/io/npy.hpp).
#include "lievi/io/npy.hpp"

#include <unistd.h>

#include <bit>
#include <cstring>
#include <fstream>
#include <stdexcept>
#include <string>

#include "lievi/core/error.hpp"

namespace lievi::io {
namespace fs = std::filesystem;

static_assert(std::endian::native == std::endian::little, "the .npy files are written as little-endian doubles");

namespace {

constexpr char kMagic[] = "\x93NUMPY";
constexpr std::size_t kMagicLength = 6;

std::size_t product(const std::vector<std::size_t>& shape) {
  std::size_t n = 1;
  for (const std::size_t d : shape) n *= d;
  return n;
}

[[noreturn]] void bad(const fs::path& path, const std::string& why) {
  throw invalid_argument(path.string(), "", "not a lievi .npy array: " + why);
}

}  // namespace

std::string npy_header(const std::vector<std::size_t>& shape) {
  std::string tuple;  // Python's repr of the shape: (3,), (3, 4, 5)
  for (std::size_t i = 0; i < shape.size(); ++i) tuple += (i ? ", " : "") + std::to_string(shape[i]);
  if (shape.size() == 1) tuple += ",";
  std::string dict = "{'descr': '<f8', 'fortran_order': False, 'shape': (" + tuple + "), }";
  // magic (6) + version (2) + length (2) + dict + padding + '\n', a multiple of 64
  std::size_t total = kMagicLength + 4 + dict.size() + 1;
  const std::size_t padded = (total + 63) / 64 * 64;
  dict.append(padded - total, ' ');
  dict += '\n';
  const auto len = static_cast<unsigned>(dict.size());
  std::string h(kMagic, kMagicLength);
  h += '\x01';
  h += '\x00';
  h += static_cast<char>(len & 0xff);
  h += static_cast<char>((len >> 8) & 0xff);
  return h + dict;
}

NpyWriter::NpyWriter(fs::path path, std::vector<std::size_t> shape) : path_(std::move(path)), size_(product(shape)) {
  f_ = std::fopen(path_.c_str(), "wb");
  if (!f_) throw std::runtime_error("cannot write " + path_.string() + ": " + std::strerror(errno));
  const std::string h = npy_header(shape);
  if (std::fwrite(h.data(), 1, h.size(), f_) != h.size())
    throw std::runtime_error("cannot write " + path_.string() + ": " + std::strerror(errno));
  header_ = bytes_ = static_cast<long long>(h.size());
}

NpyWriter::NpyWriter(fs::path path, std::vector<std::size_t> shape, long long bytes, Resume)
    : path_(std::move(path)), size_(product(shape)) {
  const std::string h = npy_header(shape);
  header_ = static_cast<long long>(h.size());
  std::error_code ec;
  const auto size = fs::file_size(path_, ec);
  if (ec || static_cast<long long>(size) < bytes || bytes < header_ ||
      (bytes - header_) % static_cast<long long>(sizeof(double)) != 0)
    throw invalid_argument(path_.string(), "",
                           "shorter than its checkpoint's " + std::to_string(bytes) +
                               " bytes, or missing: the folder does not belong to the checkpoint");
  {
    std::ifstream in(path_, std::ios::binary);
    std::string got(h.size(), '\0');
    in.read(got.data(), static_cast<std::streamsize>(got.size()));
    if (!in || got != h)
      throw invalid_argument(path_.string(), "", "its header is not the one of the checkpoint's array");
  }
  fs::resize_file(path_, static_cast<std::uintmax_t>(bytes), ec);
  if (ec) throw std::runtime_error("cannot cut back " + path_.string() + ": " + ec.message());
  f_ = std::fopen(path_.c_str(), "ab");
  if (!f_) throw std::runtime_error("cannot write " + path_.string() + ": " + std::strerror(errno));
  bytes_ = bytes;
  written_ = static_cast<std::size_t>((bytes - header_) / static_cast<long long>(sizeof(double)));
}

NpyWriter::~NpyWriter() {
  if (f_) std::fclose(f_);
}

void NpyWriter::append(std::span<const double> values) {
  if (written_ + values.size() > size_)
    throw std::runtime_error(path_.string() + ": more values than the array's shape holds");
  if (std::fwrite(values.data(), sizeof(double), values.size(), f_) != values.size())
    throw std::runtime_error("cannot write " + path_.string() + ": " + std::strerror(errno));
  written_ += values.size();
  bytes_ += static_cast<long long>(values.size() * sizeof(double));
}

void NpyWriter::flush() {
  if (f_ && (std::fflush(f_) != 0 || ::fsync(::fileno(f_)) != 0))
    throw std::runtime_error("cannot write " + path_.string() + ": " + std::strerror(errno));
}

void NpyWriter::close() {
  if (!f_) return;
  const bool failed = std::fflush(f_) != 0 || std::ferror(f_);
  const bool closed = std::fclose(f_) == 0;
  f_ = nullptr;
  if (failed || !closed) throw std::runtime_error("cannot write " + path_.string() + ": " + std::strerror(errno));
  if (written_ != size_)
    throw std::runtime_error(path_.string() + ": " + std::to_string(written_) + " of its " + std::to_string(size_) +
                             " values written");
}

NpyArray read_npy(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw invalid_argument(path.string(), "", "cannot be read (missing?)");
  char head[10];
  in.read(head, 10);
  if (!in || std::memcmp(head, kMagic, kMagicLength) != 0) bad(path, "no .npy magic");
  const int major = static_cast<unsigned char>(head[6]);
  std::size_t len = static_cast<unsigned char>(head[8]) | (static_cast<std::size_t>(static_cast<unsigned char>(head[9])) << 8);
  std::size_t start = 10;
  if (major == 2) {
    char more[2];
    in.read(more, 2);
    if (!in) bad(path, "truncated header");
    len |= (static_cast<std::size_t>(static_cast<unsigned char>(more[0])) << 16) |
           (static_cast<std::size_t>(static_cast<unsigned char>(more[1])) << 24);
    start = 12;
  } else if (major != 1) {
    bad(path, "format version " + std::to_string(major));
  }
  if (len > (1u << 20)) bad(path, "a header of " + std::to_string(len) + " bytes");
  std::string dict(len, '\0');
  in.read(dict.data(), static_cast<std::streamsize>(len));
  if (!in) bad(path, "truncated header");
  const auto squeeze = [](std::string s) {
    std::string out;
    for (const char c : s)
      if (c != ' ' && c != '\n') out += c;
    return out;
  };
  const std::string d = squeeze(dict);
  if (d.find("'descr':'<f8'") == std::string::npos) bad(path, "not float64 little-endian ('<f8')");
  if (d.find("'fortran_order':False") == std::string::npos) bad(path, "not in C order");
  const auto at = d.find("'shape':(");
  if (at == std::string::npos) bad(path, "no shape");
  const auto end = d.find(')', at);
  if (end == std::string::npos) bad(path, "no shape");
  NpyArray a;
  std::string num;
  for (std::size_t i = at + 9; i <= end; ++i) {
    const char c = d[i];
    if (c >= '0' && c <= '9') {
      num += c;
    } else if (c == ',' || c == ')') {
      if (num.empty()) {
        if (c == ')') break;
        bad(path, "a bad shape");
      }
      if (num.size() > 15) bad(path, "a bad shape");
      a.shape.push_back(static_cast<std::size_t>(std::stoull(num)));
      num.clear();
    } else {
      bad(path, "a bad shape");
    }
  }
  std::size_t n = 1;
  for (const std::size_t s : a.shape) {
    if (s != 0 && n > (std::size_t{1} << 40) / s) bad(path, "a shape too large");
    n *= s;
  }
  std::error_code ec;
  const auto size = fs::file_size(path, ec);
  if (ec || size != start + len + n * sizeof(double))
    bad(path, "its size is not that of its shape (" + std::to_string(start + len + n * sizeof(double)) +
                  " bytes; truncated or longer?)");
  a.data.resize(n);
  in.read(reinterpret_cast<char*>(a.data.data()), static_cast<std::streamsize>(n * sizeof(double)));
  if (!in) bad(path, "truncated data");
  return a;
}

}  // namespace lievi::io
