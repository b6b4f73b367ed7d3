#pragma once
/// @file lievi/io/vtk.hpp
/// @brief ParaView output of a beam: one `.vtp` polyline per snapshot (VTK XML PolyData, Float64 stored
/// bitwise as base64 of the raw bytes, or as ASCII round-trip numbers) with point data (e.g. the director
/// frames d1, d2, d3), and the `beam.pvd` collection that lists them with their times.
#include <filesystem>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace lievi::io {

/// A point-data array: name, number of components, values (points x components, C order).
struct VtkPointArray {
  std::string name;
  int components = 3;
  std::span<const double> values;
};

/// How a .vtp stores its arrays. `binary`: VTK's inline "binary" format (header_type UInt64, no compression),
/// base64 of the little-endian bytes: the values bitwise, about half the size of `ascii`, which writes
/// decimal text (shortest round-trip numbers, readable by any text tool).
enum class VtkEncoding { binary, ascii };

/// Write one polyline through `points` (n x 3, C order) with point data. Throws std::runtime_error on failure
/// (and, before creating the file, when `points` is not n x 3 or an array is not n x components).
void write_vtp_polyline(const std::filesystem::path& path, std::span<const double> points,
                        const std::vector<VtkPointArray>& arrays, VtkEncoding encoding = VtkEncoding::binary);

/// Write the collection file: (time, file name relative to the .pvd) pairs.
void write_pvd(const std::filesystem::path& path, const std::vector<std::pair<double, std::string>>& entries);

}  // namespace lievi::io
