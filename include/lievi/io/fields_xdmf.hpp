#pragma once
/// @file lievi/io/fields_xdmf.hpp
/// @brief `fields.xdmf` (docs/outputs.md): an XDMF 2 description of `fields.h5` that ParaView's "XDMF Reader"
/// opens directly, without a copy of the data.
///
/// The file is a temporal collection with one grid per snapshot (`<Time Value="t_k"/>` from fields.h5's
/// `/t`). Every grid is a polyline: the nodes are its points and the segments between neighbouring nodes its
/// cells (topology `Polyline` with two nodes per element; `Polyvertex` when there are no segments). The node
/// positions and every array are HDF5 DataItems (`fields.h5:/name`) cut to one snapshot by an XDMF HyperSlab,
/// so the XDMF file holds only the layout: its size grows with the number of snapshots and arrays, not with
/// the number of nodes (apart from the segment list, written once and included by every grid with XInclude).
///
/// Why XDMF 2 and HyperSlabs: ParaView 5.11 (Debian 12) reads XDMF 2 through its legacy reader, which reads
/// the points of such a file; its XDMF 3 readers read none. A HyperSlab selects level k of a [n_out, items,
/// comp...] dataset (start k, count 1 along the first axis) and, for the frames R[n_out, n_nodes, 3, 3], one
/// column (a director d_c: start c, count 1 along the last axis).
#include <cstddef>
#include <filesystem>
#include <span>
#include <string>
#include <vector>

namespace lievi::io {

/// One array of the grids: a block of one fields.h5 dataset, the same block at every node (or segment).
struct XdmfArray {
  std::string name;                ///< the array's name in ParaView, e.g. "d1"
  std::string dataset;             ///< the fields.h5 dataset, without '/', e.g. "R"
  std::vector<std::size_t> shape;  ///< the dataset's per-snapshot shape {items, comp...}, as its FieldSpec
  bool on_segments = false;        ///< cell data on the segments (else point data on the nodes)
  std::vector<std::size_t> start;  ///< the block's offset in the component axes, e.g. {0, 1} for d2
  std::vector<std::size_t> count;  ///< extent of the block there, e.g. {3, 1}; 1 value (Scalar) or 3 (Vector)
};

/// What fields.xdmf shows of a fields.h5 file.
struct XdmfLayout {
  std::string name;            ///< the collection's name ("beam", "wave")
  std::size_t n_nodes = 0;     ///< the points of every grid (nodes 0 .. n_nodes-1)
  std::size_t n_segments = 0;  ///< the cells: segment e joins node e and node e+1 (mod n_nodes)
  /// The dataset [n_out, n_nodes, 3] of node positions (the beam's "p"); empty: node j sits at (s_j, 0, 0),
  /// s_j from fields.h5's `/s` (the wave).
  std::string positions;
  std::vector<XdmfArray> arrays;
};

/// The layout of a beam's fields.h5 (/R, /p, /zeta, /gamma): positions p; point data d1, d2, d3 (the columns
/// of R), omega and v (zeta's two halves, the velocity of the step after the snapshot, time_offset dt/2);
/// cell data kappa and Gamma (gamma's halves). `closed`: a ring (periodic without shift), whose last segment
/// joins the last node to the first; a periodic beam with a shift leaves that segment (and its strain) out,
/// since its ends lie a shift apart. `n_segments` is fields.h5's segment count (n_nodes - 1, or n_nodes when
/// periodic).
[[nodiscard]] XdmfLayout beam_fields_xdmf(std::size_t n_nodes, std::size_t n_segments, bool closed);
/// The layout of a wave's fields.h5 (/phi): node j at (s_j, 0, 0), point data phi; the n_nodes - 1 segments
/// between neighbours (also for a periodic wave, drawn open).
[[nodiscard]] XdmfLayout wave_fields_xdmf(std::size_t n_nodes);

/// The text of fields.xdmf for `layout` over the snapshots at `times` (fields.h5's /t), with the HDF5 file
/// named `h5_name` (relative to the XDMF file's folder). Throws std::invalid_argument for a layout that does
/// not fit (no nodes, more segments than nodes, a block outside its dataset's shape, an array whose item
/// count is below the nodes or segments it covers, a block of other than 1 or 3 values, an empty or duplicate
/// name, a name with characters outside [A-Za-z0-9_]) or no times.
[[nodiscard]] std::string fields_xdmf_text(const XdmfLayout& layout, const std::string& h5_name,
                                           std::span<const double> times);

/// Write `xdmf` for the fields.h5 file `h5` (in the same folder): reads /t from `h5` (lievi's HDF5 module),
/// then writes fields_xdmf_text. Returns false, writing nothing, when /t is empty (a run that failed before
/// its first snapshot). Throws std::runtime_error when reading or writing fails, std::invalid_argument for
/// files in different folders and as fields_xdmf_text.
bool write_fields_xdmf(const std::filesystem::path& xdmf, const std::filesystem::path& h5,
                       const XdmfLayout& layout);

}  // namespace lievi::io
