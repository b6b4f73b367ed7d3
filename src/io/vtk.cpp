/// @file src/io/vtk.cpp
/// @brief VTK XML PolyData (.vtp) polylines and the .pvd collection (ASCII; numbers round-trip).
#include "lievi/io/vtk.hpp"

#include <fstream>
#include <stdexcept>

#include "lievi/io/scenario.hpp"

namespace lievi::io {

namespace {
void check(std::ofstream& out, const std::filesystem::path& path) {
  out.close();
  if (!out) throw std::runtime_error("writing " + path.string() + " failed");
}
}  // namespace

void write_vtp_polyline(const std::filesystem::path& path, std::span<const double> points,
                        const std::vector<VtkPointArray>& arrays) {
  if (points.size() % 3 != 0) throw std::runtime_error(path.string() + ": points must be n x 3");
  const std::size_t n = points.size() / 3;
  std::ofstream out(path, std::ios::binary);
  out << "<?xml version=\"1.0\"?>\n<VTKFile type=\"PolyData\" version=\"0.1\" byte_order=\"LittleEndian\">\n"
      << "<PolyData>\n<Piece NumberOfPoints=\"" << n << "\" NumberOfVerts=\"0\" NumberOfLines=\"1\" "
      << "NumberOfStrips=\"0\" NumberOfPolys=\"0\">\n<Points>\n"
      << "<DataArray type=\"Float64\" NumberOfComponents=\"3\" format=\"ascii\">\n";
  for (std::size_t i = 0; i < points.size(); ++i) out << format_number(points[i]) << ((i % 3 == 2) ? "\n" : " ");
  out << "</DataArray>\n</Points>\n<PointData>\n";
  for (const auto& a : arrays) {
    if (a.values.size() != n * static_cast<std::size_t>(a.components))
      throw std::runtime_error(path.string() + ": point array " + a.name + " has the wrong size");
    out << "<DataArray type=\"Float64\" Name=\"" << a.name << "\" NumberOfComponents=\"" << a.components
        << "\" format=\"ascii\">\n";
    for (std::size_t i = 0; i < a.values.size(); ++i)
      out << format_number(a.values[i]) << ((i % static_cast<std::size_t>(a.components) ==
                                               static_cast<std::size_t>(a.components) - 1)
                                                  ? "\n"
                                                  : " ");
    out << "</DataArray>\n";
  }
  out << "</PointData>\n<Lines>\n<DataArray type=\"Int64\" Name=\"connectivity\" format=\"ascii\">\n";
  for (std::size_t i = 0; i < n; ++i) out << i << (i + 1 == n ? "\n" : " ");
  out << "</DataArray>\n<DataArray type=\"Int64\" Name=\"offsets\" format=\"ascii\">\n" << n << "\n</DataArray>\n"
      << "</Lines>\n</Piece>\n</PolyData>\n</VTKFile>\n";
  check(out, path);
}

void write_pvd(const std::filesystem::path& path, const std::vector<std::pair<double, std::string>>& entries) {
  std::ofstream out(path, std::ios::binary);
  out << "<?xml version=\"1.0\"?>\n<VTKFile type=\"Collection\" version=\"0.1\" byte_order=\"LittleEndian\">\n"
      << "<Collection>\n";
  for (const auto& [t, file] : entries)
    out << "<DataSet timestep=\"" << format_number(t) << "\" group=\"\" part=\"0\" file=\"" << file << "\"/>\n";
  out << "</Collection>\n</VTKFile>\n";
  check(out, path);
}

}  // namespace lievi::io
