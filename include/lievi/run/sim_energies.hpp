#pragma once
/// @file lievi/run/sim_energies.hpp
/// @brief The energies of a level as a stepped simulation reports them (BeamSimulation, WaveSimulation): the
/// numbers of series.csv's energy columns at that level.
namespace lievi::run {

struct LevelEnergies {
  double E_d = 0.0;             ///< K^{n+1/2} + V^n
  double E_c = 0.0;             ///< (K^{n-1/2} + K^{n+1/2}) / 2 + V^n
  double kinetic_before = 0.0;  ///< K^{n-1/2}
  double kinetic_after = 0.0;   ///< K^{n+1/2}
  double potential = 0.0;       ///< V^n (beam: strain energy plus gravity)
};

}  // namespace lievi::run
