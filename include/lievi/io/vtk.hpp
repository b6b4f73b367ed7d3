#pragma once
/// @file lievi/io/vtk.hpp
/// @brief ParaView output of a beam: one `.vtp` polyline per snapshot (VTK XML PolyData, ASCII, Float64 with
/// round-trip numbers) with point data (e.g. the director frames d1, d2, d3), and the `beam.pvd` collection
/// that lists them with their times.
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

/// Write one polyline through `points` (n x 3, C order) with point data. Throws std::runtime_error on failure.
void write_vtp_polyline(const std::filesystem::path& path, std::span<const double> points,
                        const std::vector<VtkPointArray>& arrays);

/// Write the collection file: (time, file name relative to the .pvd) pairs.
void write_pvd(const std::filesystem::path& path, const std::vector<std::pair<double, std::string>>& entries);

}  // namespace lievi::io
