#pragma once
/// @file lievi/field/staggered.hpp
/// @brief Staggered field storage: node fields g_j^n at integer time levels, time-staggered node fields
/// zeta_j^{n+1/2}, and segment fields gamma_{j+1/2}^n, as distinct types (docs/theory/beam.md "Discrete
/// increments and action"; the paper's circles, squares and triangles).
///
/// Each is one contiguous, 64-byte aligned array (structure of arrays across fields: one array per
/// quantity), so sweeps over nodes vectorise. Node-type fields are indexed by `NodeIndex`, segment fields by
/// `SegmentIndex`: an index shift between the two staggered grids is a compile error, not a silent bug.
/// The hot loops use `data()` directly; the typed operator[] is for the code around them.
#include <cstddef>
#include <cstdlib>
#include <new>
#include <type_traits>
#include <string>
#include <vector>

#include "lievi/core/state_io.hpp"

#include "lievi/field/grid.hpp"

namespace lievi::field {

/// Minimal 64-byte aligned allocator (cache-line and AVX-512 friendly; std::allocator gives only 16).
template <class T>
struct AlignedAllocator {
  using value_type = T;
  static constexpr std::size_t alignment = 64;
  AlignedAllocator() = default;
  template <class U>
  AlignedAllocator(const AlignedAllocator<U>&) {}  // NOLINT: allocator rebind
  T* allocate(std::size_t n) {
    return static_cast<T*>(::operator new(n * sizeof(T), std::align_val_t(alignment)));
  }
  void deallocate(T* p, std::size_t) { ::operator delete(p, std::align_val_t(alignment)); }
  template <class U>
  bool operator==(const AlignedAllocator<U>&) const {
    return true;
  }
};

/// Zero of a field value type: 0 for arithmetic types, T::Zero() for Eigen vectors and matrices (whose
/// value-initialisation `T{}` leaves the entries uninitialised).
template <class T>
[[nodiscard]] T zero_value() {
  if constexpr (std::is_arithmetic_v<T>) return T(0);
  else return T::Zero();
}

/// Where a field lives on the space-time grid.
enum class Staggering { node, node_half_step, segment };

/// A field of values T at one family of grid points.
template <class T, Staggering S>
class Field {
 public:
  using value_type = T;
  using Index = std::conditional_t<S == Staggering::segment, SegmentIndex, NodeIndex>;
  static constexpr Staggering staggering = S;

  Field() = default;
  explicit Field(std::ptrdiff_t n, const T& value = zero_value<T>()) : v_(static_cast<std::size_t>(n), value) {}

  [[nodiscard]] T& operator[](Index i) { return v_[static_cast<std::size_t>(index(i))]; }
  [[nodiscard]] const T& operator[](Index i) const { return v_[static_cast<std::size_t>(index(i))]; }
  [[nodiscard]] T* data() { return v_.data(); }
  [[nodiscard]] const T* data() const { return v_.data(); }
  [[nodiscard]] std::ptrdiff_t size() const { return static_cast<std::ptrdiff_t>(v_.size()); }
  void assign(std::ptrdiff_t n, const T& value) { v_.assign(static_cast<std::size_t>(n), value); }
  /// Save or restore every value (checkpoints; the size is the field's own).
  void checkpoint(StateIO& a, const std::string& name) { a.values(name, v_.data(), v_.size()); }

 private:
  static std::ptrdiff_t index(NodeIndex i) { return i.j; }
  static std::ptrdiff_t index(SegmentIndex i) { return i.e; }
  std::vector<T, AlignedAllocator<T>> v_;
};

/// g_j^n: configurations at nodes, integer time levels.
template <class T>
using NodeField = Field<T, Staggering::node>;
/// zeta_j^{n+1/2}, A_j^n: node quantities of the time interval [t_n, t_{n+1}].
template <class T>
using HalfStepField = Field<T, Staggering::node_half_step>;
/// gamma_{j+1/2}^n: strains on segments, integer time levels.
template <class T>
using SegmentField = Field<T, Staggering::segment>;

}  // namespace lievi::field
