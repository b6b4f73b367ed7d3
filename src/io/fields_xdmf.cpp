/// @file src/io/fields_xdmf.cpp
/// @brief fields.xdmf: the XDMF 2 description of fields.h5 (lievi/io/fields_xdmf.hpp, docs/outputs.md).
#include "lievi/io/fields_xdmf.hpp"

#include <algorithm>
#include <fstream>
#include <set>
#include <stdexcept>
#include <string_view>

#include "lievi/io/fields_h5.hpp"
#include "lievi/io/scenario.hpp"

namespace lievi::io {

namespace {

std::string join(const std::vector<std::size_t>& v) {
  std::string s;
  for (std::size_t i = 0; i < v.size(); ++i) s += (i ? " " : "") + std::to_string(v[i]);
  return s;
}

/// Names go into XML attributes and XPath expressions unescaped, so they are kept to [A-Za-z0-9_].
void check_name(std::string_view what, const std::string& name) {
  if (name.empty()) throw std::invalid_argument("fields.xdmf: empty " + std::string(what) + " name");
  for (char c : name)
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_'))
      throw std::invalid_argument("fields.xdmf: " + std::string(what) + " name '" + name +
                                  "' has a character outside [A-Za-z0-9_]");
}

/// An HDF5 DataItem for the whole dataset `name` with dimensions `dims`.
std::string h5_item(const std::string& h5_name, const std::string& name,
                    const std::vector<std::size_t>& dims) {
  return "<DataItem Dimensions=\"" + join(dims) + "\" NumberType=\"Float\" Precision=\"8\" Format=\"HDF\">" +
         h5_name + ":/" + name + "</DataItem>";
}

/// A HyperSlab of the dataset `name` [n_out, shape...]: snapshot k, items [0, items), the component block
/// start/count; the result has the dimensions {items, product of count} (or {items} for one value). On one
/// line, with no text before the first child (see the note on the reader's cache in fields_xdmf_text). The
/// Format attribute means nothing to XDMF 2 here; ParaView's XDMF 3 readers abort the whole program on a
/// DataItem without one.
std::string slab(const std::string& h5_name, const std::string& name, std::size_t n_out,
                 const std::vector<std::size_t>& shape, std::size_t k, std::size_t items,
                 const std::vector<std::size_t>& start, const std::vector<std::size_t>& count) {
  std::vector<std::size_t> dims = {n_out}, st = {k, 0}, stride(shape.size() + 1, 1), cnt = {1, items};
  dims.insert(dims.end(), shape.begin(), shape.end());
  st.insert(st.end(), start.begin(), start.end());
  cnt.insert(cnt.end(), count.begin(), count.end());
  std::size_t values = 1;
  for (std::size_t c : count) values *= c;
  const std::vector<std::size_t> out =
      values == 1 ? std::vector<std::size_t>{items} : std::vector<std::size_t>{items, values};
  return "<DataItem ItemType=\"HyperSlab\" Format=\"XML\" Dimensions=\"" + join(out) +
         "\"><DataItem Dimensions=\"3 " + std::to_string(dims.size()) + "\" Format=\"XML\">" + join(st) +
         "  " + join(stride) + "  " + join(cnt) + "</DataItem>" + h5_item(h5_name, name, dims) +
         "</DataItem>";
}

void check_layout(const XdmfLayout& L, std::span<const double> times) {
  check_name("collection", L.name);
  if (L.n_nodes == 0) throw std::invalid_argument("fields.xdmf: no nodes");
  if (L.n_segments > L.n_nodes)
    throw std::invalid_argument("fields.xdmf: " + std::to_string(L.n_segments) + " segments for " +
                                std::to_string(L.n_nodes) + " nodes");
  if (times.empty()) throw std::invalid_argument("fields.xdmf: no snapshots (fields.h5's /t is empty)");
  if (!L.positions.empty()) check_name("positions dataset", L.positions);
  std::set<std::string> names;
  for (const XdmfArray& a : L.arrays) {
    check_name("array", a.name);
    check_name("dataset", a.dataset);
    if (!names.insert(a.name).second)
      throw std::invalid_argument("fields.xdmf: array " + a.name + " given twice");
    const std::string what = "fields.xdmf: array " + a.name + " (dataset " + a.dataset + ")";
    if (a.shape.empty() || a.start.size() + 1 != a.shape.size() || a.count.size() != a.start.size())
      throw std::invalid_argument(
          what + ": start and count need one entry per component axis of the shape {" + join(a.shape) + "}");
    const std::size_t items = a.on_segments ? L.n_segments : L.n_nodes;
    if (a.shape[0] < items)
      throw std::invalid_argument(what + ": " + std::to_string(a.shape[0]) + " items for " +
                                  std::to_string(items) + (a.on_segments ? " segments" : " nodes"));
    std::size_t values = 1;
    for (std::size_t i = 0; i < a.start.size(); ++i) {
      if (a.count[i] == 0 || a.start[i] + a.count[i] > a.shape[i + 1])
        throw std::invalid_argument(what + ": the block start {" + join(a.start) + "} count {" +
                                    join(a.count) + "} is outside the shape {" + join(a.shape) + "}");
      values *= a.count[i];
    }
    if (values != 1 && values != 3)
      throw std::invalid_argument(what + ": a block of " + std::to_string(values) +
                                  " values (1, a scalar, or 3, a vector)");
  }
}

}  // namespace

XdmfLayout beam_fields_xdmf(std::size_t n_nodes, std::size_t n_segments, bool closed) {
  XdmfLayout L;
  L.name = "beam";
  L.n_nodes = n_nodes;
  // a ring draws every segment; an open or shifted periodic beam the n_nodes - 1 between neighbours
  L.n_segments = closed ? n_segments : std::min(n_segments, n_nodes > 0 ? n_nodes - 1 : 0);
  L.positions = "p";
  const std::vector<std::size_t> frames = {n_nodes, 3, 3}, six = {n_nodes, 6}, seg = {n_segments, 6};
  for (std::size_t c = 0; c < 3; ++c)  // director d_c: column c of R_j
    L.arrays.push_back({"d" + std::to_string(c + 1), "R", frames, false, {0, c}, {3, 1}});
  L.arrays.push_back({"omega", "zeta", six, false, {0}, {3}});
  L.arrays.push_back({"v", "zeta", six, false, {3}, {3}});
  if (L.n_segments > 0) {
    L.arrays.push_back({"kappa", "gamma", seg, true, {0}, {3}});
    L.arrays.push_back({"Gamma", "gamma", seg, true, {3}, {3}});
  }
  return L;
}

XdmfLayout wave_fields_xdmf(std::size_t n_nodes) {
  XdmfLayout L;
  L.name = "wave";
  L.n_nodes = n_nodes;
  L.n_segments = n_nodes > 0 ? n_nodes - 1 : 0;
  L.arrays.push_back({"phi", "phi", {n_nodes}, false, {}, {}});
  return L;
}

std::string fields_xdmf_text(const XdmfLayout& L, const std::string& h5_name, std::span<const double> times) {
  check_layout(L, times);
  const std::size_t n_out = times.size(), n = L.n_nodes;
  std::string x =
      "<?xml version=\"1.0\" ?>\n<!DOCTYPE Xdmf SYSTEM \"Xdmf.dtd\" []>\n"
      "<Xdmf Version=\"2.0\" xmlns:xi=\"http://www.w3.org/2001/XInclude\">\n<Domain>\n";
  // Written once and included by every grid: the segments' node pairs, and for positions from /s the zeros of
  // y and z. By XInclude (xpointer) rather than XDMF 2's own Reference="XML": both readers of ParaView 5.11
  // resolve an XInclude while parsing, whereas the XDMF 3 readers abort the program on a Reference item.
  const auto include = [](const std::string& name) {
    return "<xi:include xpointer=\"xpointer(/Xdmf/Domain/DataItem[@Name='" + name + "'])\"/>";
  };
  if (L.n_segments > 0) {
    x += "  <DataItem Name=\"segments\" Dimensions=\"" + std::to_string(L.n_segments) +
         " 2\" NumberType=\"Int\" Format=\"XML\">";
    for (std::size_t e = 0; e < L.n_segments; ++e)
      x += (e ? " " : "") + std::to_string(e) + " " + std::to_string((e + 1) % n);
    x += "</DataItem>\n";
  }
  if (L.positions.empty()) {
    x += "  <DataItem Name=\"zeros\" Dimensions=\"" + std::to_string(n) +
         "\" NumberType=\"Float\" Format=\"XML\">";
    for (std::size_t j = 0; j < n; ++j) x += j ? " 0" : "0";
    x += "</DataItem>\n";
  }
  // ParaView's legacy reader keeps the points and cells of a grid and reuses them for the next time step when
  // the text of the first DataItem in its Topology and in its Geometry is the same as before (it takes that
  // text for a file name). Here those would be the same segments and the same HyperSlab at every step, and
  // the beam would not move. A Function "$0" around the included segments has no text before its child
  // element, which turns that reuse off (and without the error message a HyperSlab geometry alone gives).
  const std::string topology =
      L.n_segments > 0
          ? "<Topology TopologyType=\"Polyline\" NodesPerElement=\"2\" NumberOfElements=\"" +
                std::to_string(L.n_segments) +
                "\"><DataItem ItemType=\"Function\" Function=\"$0\" Format=\"XML\" Dimensions=\"" +
                std::to_string(L.n_segments) + " 2\">" + include("segments") + "</DataItem></Topology>"
          : "<Topology TopologyType=\"Polyvertex\" NodesPerElement=\"1\" NumberOfElements=\"" +
                std::to_string(n) + "\"/>";
  x += "  <Grid Name=\"" + L.name + "\" GridType=\"Collection\" CollectionType=\"Temporal\">\n";
  for (std::size_t k = 0; k < n_out; ++k) {
    x += "    <Grid Name=\"" + L.name + "_" + std::to_string(k) + "\" GridType=\"Uniform\">\n";
    x += "      <Time Value=\"" + format_number(times[k]) + "\"/>\n";
    x += "      " + topology + "\n";
    if (!L.positions.empty()) {
      x += "      <Geometry GeometryType=\"XYZ\">" +
           slab(h5_name, L.positions, n_out, {n, 3}, k, n, {0}, {3}) + "</Geometry>\n";
    } else {
      const std::string zeros = include("zeros");
      x += "      <Geometry GeometryType=\"X_Y_Z\">" + h5_item(h5_name, "s", {n}) + zeros + zeros +
           "</Geometry>\n";
    }
    for (const XdmfArray& a : L.arrays) {
      std::size_t values = 1;
      for (std::size_t c : a.count) values *= c;
      x += "      <Attribute Name=\"" + a.name + "\" AttributeType=\"" + (values == 1 ? "Scalar" : "Vector") +
           "\" Center=\"" + (a.on_segments ? "Cell" : "Node") + "\">" +
           slab(h5_name, a.dataset, n_out, a.shape, k, a.on_segments ? L.n_segments : n, a.start, a.count) +
           "</Attribute>\n";
    }
    x += "    </Grid>\n";
  }
  x += "  </Grid>\n</Domain>\n</Xdmf>\n";
  return x;
}

bool write_fields_xdmf(const std::filesystem::path& xdmf, const std::filesystem::path& h5,
                       const XdmfLayout& layout) {
  if (xdmf.parent_path().lexically_normal() != h5.parent_path().lexically_normal())
    throw std::invalid_argument(
        "fields.xdmf: " + xdmf.string() + " and " + h5.string() +
        " must be in the same folder (the XDMF file names the HDF5 file relative to itself)");
  const H5Array t = read_h5_dataset(h5, "t");
  if (t.data.empty()) return false;  // a run that failed before its first snapshot: nothing to show
  const std::string text = fields_xdmf_text(layout, h5.filename().string(), t.data);
  std::ofstream out(xdmf, std::ios::binary);
  out << text;
  out.close();
  if (!out) throw std::runtime_error("writing " + xdmf.string() + " failed");
  return true;
}

}  // namespace lievi::io
