#pragma once
/// @file lievi/field/grid.hpp
/// @brief The space grid of a staggered field (docs/theory/staggered.md "Grid and fields"): nodes j carry the
/// configurations g_j and the velocities zeta_j, segments e (between nodes e and e+1) the strains
/// gamma_{e+1/2}.
///
/// Layouts (`grid.J` counts cells or segments, ds = S / J):
///  - `cell`: J nodes at s_j = (j + 1/2) ds, weights w_j = ds; the J - 1 segments between neighbours are
///    stored; a free end is a ghost segment with zero stress (strain equal to the reference strain) and is not
///    stored. The paper's wave example.
///  - `vertex`: J + 1 nodes at s_j = j ds, weights ds/2 at the two end nodes and ds inside; J segments.
///  - periodic (both ends): J nodes at s_j = j ds (either layout), weights ds, J segments, the last segment
///    joining node J - 1 to node 0.
/// A clamped end (vertex layout only) is an end node held fixed: it has no equation and no noise; its
/// segment is active. A prescribed end (vertex layout only) is the same with the node's motion given in time
/// (the model supplies it); both are "driven" nodes.
#include <cstddef>
#include <stdexcept>
#include <string>

namespace lievi::field {

enum class Layout { cell, vertex };
enum class End { free, clamped, periodic, prescribed };

/// Node and segment indices are distinct types, so that a node field cannot be indexed by a segment.
struct NodeIndex {
  std::ptrdiff_t j;
};
struct SegmentIndex {
  std::ptrdiff_t e;
};

class Grid {
 public:
  /// Throws std::invalid_argument for J < 2 (J = 1 is allowed for a free cell layout: one node), length <= 0, periodic on one end only, or a
  /// clamped end in the cell layout.
  Grid(Layout layout, std::ptrdiff_t J, double length, End left, End right)
      : layout_(layout), J_(J), length_(length), left_(left), right_(right) {
    if (!(length > 0.0)) throw std::invalid_argument("field::Grid: length must be > 0");
    if ((left == End::periodic) != (right == End::periodic))
      throw std::invalid_argument("field::Grid: periodic must be given for both ends");
    // cell layout with J = 1 is a single node without segments: a free rigid body (on SE(3) for beams).
    if (J < (layout == Layout::cell && left != End::periodic ? 1 : 2))
      throw std::invalid_argument("field::Grid: J must be >= 2 (>= 1 for a single cell)");
    auto driven_end = [](End e) { return e == End::clamped || e == End::prescribed; };
    if (layout == Layout::cell && (driven_end(left) || driven_end(right)))
      throw std::invalid_argument("field::Grid: clamped or prescribed ends need the vertex layout");
    ds_ = length / static_cast<double>(J);
    periodic_ = left == End::periodic;
    n_nodes_ = (periodic_ || layout == Layout::cell) ? J : J + 1;
    n_segments_ = periodic_ ? J : n_nodes_ - 1;
  }

  [[nodiscard]] Layout layout() const { return layout_; }
  [[nodiscard]] End left() const { return left_; }
  [[nodiscard]] End right() const { return right_; }
  [[nodiscard]] bool periodic() const { return periodic_; }
  [[nodiscard]] std::ptrdiff_t J() const { return J_; }
  [[nodiscard]] double length() const { return length_; }
  [[nodiscard]] double ds() const { return ds_; }
  [[nodiscard]] std::ptrdiff_t n_nodes() const { return n_nodes_; }
  /// Stored (active) segments; ghost segments of free cell-layout ends are not counted.
  [[nodiscard]] std::ptrdiff_t n_segments() const { return n_segments_; }

  /// Position s_j of node j.
  [[nodiscard]] double s(NodeIndex n) const {
    const double j = static_cast<double>(n.j);
    return (layout_ == Layout::cell && !periodic_) ? (j + 0.5) * ds_ : j * ds_;
  }
  /// Mass weight w_j (length of field the node represents).
  [[nodiscard]] double weight(NodeIndex n) const {
    if (layout_ == Layout::vertex && !periodic_ && (n.j == 0 || n.j == n_nodes_ - 1)) return 0.5 * ds_;
    return ds_;
  }
  /// Whether node j is held fixed (a clamped end node).
  [[nodiscard]] bool clamped(NodeIndex n) const {
    return (n.j == 0 && left_ == End::clamped) || (n.j == n_nodes_ - 1 && right_ == End::clamped);
  }
  /// Whether node j moves as prescribed (a prescribed end node).
  [[nodiscard]] bool prescribed(NodeIndex n) const {
    return (n.j == 0 && left_ == End::prescribed) || (n.j == n_nodes_ - 1 && right_ == End::prescribed);
  }
  /// Whether node j has no equation of motion (clamped or prescribed): it is not solved and gets no noise.
  [[nodiscard]] bool driven(NodeIndex n) const { return clamped(n) || prescribed(n); }
  /// The segment to the left / right of node j; e < 0 when there is none (free end, or the ghost segment).
  [[nodiscard]] SegmentIndex left_segment(NodeIndex n) const {
    if (n.j > 0) return {n.j - 1};
    return {periodic_ ? n_segments_ - 1 : -1};
  }
  [[nodiscard]] SegmentIndex right_segment(NodeIndex n) const {
    if (n.j < n_nodes_ - 1) return {n.j};
    return {periodic_ ? n_segments_ - 1 : -1};
  }
  /// The nodes at the two ends of segment e: e and e + 1 (mod n_nodes when periodic).
  [[nodiscard]] NodeIndex first(SegmentIndex s) const { return {s.e}; }
  [[nodiscard]] NodeIndex second(SegmentIndex s) const { return {s.e + 1 == n_nodes_ ? 0 : s.e + 1}; }

 private:
  Layout layout_;
  std::ptrdiff_t J_;
  double length_, ds_ = 0.0;
  End left_, right_;
  bool periodic_ = false;
  std::ptrdiff_t n_nodes_ = 0, n_segments_ = 0;
};

[[nodiscard]] inline const char* to_string(Layout l) { return l == Layout::cell ? "cell" : "vertex"; }
[[nodiscard]] inline const char* to_string(End e) {
  switch (e) {
    case End::free: return "free";
    case End::clamped: return "clamped";
    case End::periodic: return "periodic";
    case End::prescribed: return "prescribed";
  }
  return "?";
}

}  // namespace lievi::field
