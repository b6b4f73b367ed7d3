#pragma once
// Shared set-up of the wave-stepper tests: grids, initial data, and the runs they compare.
#include <cmath>
#include <numbers>
#include <vector>

#include "lievi/field/stepper.hpp"
#include "lievi/models/wave.hpp"

namespace wave_test {

using lievi::field::End;
using lievi::field::Grid;
using lievi::field::Layout;
using lievi::field::NodeField;
using lievi::field::NodeIndex;
using Wave = lievi::models::Wave<1>;
template <class Noise = lievi::field::TypeI>
using Stepper = lievi::field::StaggeredStepper<Wave, Noise>;

inline Grid cell_free(long J, double S = 1.0) { return Grid(Layout::cell, J, S, End::free, End::free); }

/// phi0(s_j) on the grid, phi_t = 0.
template <class F>
NodeField<double> sample(const Grid& grid, F&& f) {
  NodeField<double> v(grid.n_nodes());
  for (long j = 0; j < grid.n_nodes(); ++j) v[NodeIndex{j}] = f(grid.s(NodeIndex{j}));
  return v;
}

inline NodeField<double> zeros(const Grid& grid) { return NodeField<double>(grid.n_nodes(), 0.0); }

template <class Noise = lievi::field::TypeI>
Stepper<Noise> make(const Grid& grid, double dt, lievi::field::Variant v = lievi::field::Variant::exact,
                    lievi::field::NoiseField<double> noise = {}, Noise pot = {}) {
  typename Stepper<Noise>::Options o;
  o.dt = dt;
  o.variant = v;
  return Stepper<Noise>(Wave::with_speed(1.0), grid, o, std::move(noise), pot);
}

}  // namespace wave_test
