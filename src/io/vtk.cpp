/// @file src/io/vtk.cpp
/// @brief VTK XML PolyData (.vtp) polylines and the .pvd collection. Arrays are base64 of their raw bytes
/// (VTK's inline "binary" format) by default, or decimal text with round-trip numbers.
#include "lievi/io/vtk.hpp"

#include <bit>
#include <cstdint>
#include <fstream>
#include <stdexcept>

#include "lievi/io/scenario.hpp"

namespace lievi::io {

namespace {
void check(std::ofstream& out, const std::filesystem::path& path) {
  out.close();
  if (!out) throw std::runtime_error("writing " + path.string() + " failed");
}

/// Appends the 8 little-endian bytes of `v` (whatever the host's byte order, as the file header says).
void put_u64(std::string& bytes, std::uint64_t v) {
  for (int i = 0; i < 8; ++i) bytes.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

/// RFC 4648 base64 with '=' padding.
std::string base64(const std::string& bytes) {
  static constexpr char digits[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  for (std::size_t i = 0; i < bytes.size(); i += 3) {
    const std::size_t n = std::min<std::size_t>(3, bytes.size() - i);
    std::uint32_t w = 0;
    for (std::size_t k = 0; k < 3; ++k) w = (w << 8) | (k < n ? static_cast<std::uint8_t>(bytes[i + k]) : 0u);
    for (std::size_t k = 0; k < 4; ++k) out.push_back(k <= n ? digits[(w >> (18 - 6 * k)) & 0x3f] : '=');
  }
  return out;
}

/// The text of one DataArray's values. Binary: VTK's inline format without compression, one base64 block of
/// the byte count (UInt64, the file's header_type) followed by the values' little-endian bytes, so the
/// numbers are stored bitwise. ASCII: `per_line` values to a line, shortest round-trip doubles.
std::string array_text(std::span<const double> v, std::size_t per_line, VtkEncoding enc) {
  if (enc == VtkEncoding::binary) {
    std::string bytes;
    bytes.reserve(8 + 8 * v.size());
    put_u64(bytes, 8 * v.size());
    for (double x : v) put_u64(bytes, std::bit_cast<std::uint64_t>(x));
    return base64(bytes) + "\n";
  }
  std::string s;
  for (std::size_t i = 0; i < v.size(); ++i)
    s += format_number(v[i]) + ((i % per_line == per_line - 1) ? "\n" : " ");
  return s;
}

std::string index_text(std::size_t first, std::size_t count, VtkEncoding enc) {
  if (enc == VtkEncoding::binary) {
    std::string bytes;
    put_u64(bytes, 8 * count);
    for (std::size_t i = 0; i < count; ++i) put_u64(bytes, static_cast<std::uint64_t>(first + i));
    return base64(bytes) + "\n";
  }
  std::string s;
  for (std::size_t i = 0; i < count; ++i) s += std::to_string(first + i) + (i + 1 == count ? "\n" : " ");
  return s;
}
}  // namespace

void write_vtp_polyline(const std::filesystem::path& path, std::span<const double> points,
                        const std::vector<VtkPointArray>& arrays, VtkEncoding encoding) {
  if (points.size() % 3 != 0) throw std::runtime_error(path.string() + ": points must be n x 3");
  const std::size_t n = points.size() / 3;
  for (const auto& a : arrays)
    if (a.components < 1 || a.values.size() != n * static_cast<std::size_t>(a.components))
      throw std::runtime_error(path.string() + ": point array " + a.name + " has the wrong size");
  const std::string format = encoding == VtkEncoding::binary ? "binary" : "ascii";
  std::ofstream out(path, std::ios::binary);
  out << "<?xml version=\"1.0\"?>\n<VTKFile type=\"PolyData\" version=\"1.0\" byte_order=\"LittleEndian\" "
      << "header_type=\"UInt64\">\n<PolyData>\n<Piece NumberOfPoints=\"" << n << "\" NumberOfVerts=\"0\" "
      << "NumberOfLines=\"1\" NumberOfStrips=\"0\" NumberOfPolys=\"0\">\n<Points>\n"
      << "<DataArray type=\"Float64\" NumberOfComponents=\"3\" format=\"" << format << "\">\n"
      << array_text(points, 3, encoding) << "</DataArray>\n</Points>\n<PointData>\n";
  for (const auto& a : arrays)
    out << "<DataArray type=\"Float64\" Name=\"" << a.name << "\" NumberOfComponents=\"" << a.components
        << "\" format=\"" << format << "\">\n"
        << array_text(a.values, static_cast<std::size_t>(a.components), encoding) << "</DataArray>\n";
  out << "</PointData>\n<Lines>\n<DataArray type=\"Int64\" Name=\"connectivity\" format=\"" << format
      << "\">\n"
      << index_text(0, n, encoding) << "</DataArray>\n<DataArray type=\"Int64\" Name=\"offsets\" format=\""
      << format << "\">\n"
      << index_text(n, 1, encoding) << "</DataArray>\n</Lines>\n</Piece>\n</PolyData>\n</VTKFile>\n";
  check(out, path);
}

void write_pvd(const std::filesystem::path& path,
               const std::vector<std::pair<double, std::string>>& entries) {
  std::ofstream out(path, std::ios::binary);
  out << "<?xml version=\"1.0\"?>\n<VTKFile type=\"Collection\" version=\"0.1\" "
         "byte_order=\"LittleEndian\">\n"
      << "<Collection>\n";
  for (const auto& [t, file] : entries)
    out << "<DataSet timestep=\"" << format_number(t) << "\" group=\"\" part=\"0\" file=\"" << file
        << "\"/>\n";
  out << "</Collection>\n</VTKFile>\n";
  check(out, path);
}

}  // namespace lievi::io
