#pragma once
/// @file src/run/wave_avi.hpp
/// @brief The level loop of a wave run with integrator.method = "avi" (src/run/wave_avi_run.cpp): the
/// asynchronous variational integrator (lievi/integrators/avi) on the scenario's mesh, observed at the
/// multiples of integrator.dt where every segment updates.
#include "lievi/run/wave_run.hpp"

namespace lievi::run::detail {

/// Integrate an AVI scenario (noise none, no checkpoints: the reader refuses them), calling `observer` at the
/// output levels n dt. Never throws for numerical failure (see the result); `r.avi` holds the AVI's counts.
[[nodiscard]] WaveRunResult integrate_wave_avi(const io::WaveScenario& s, WaveObserver& observer, Progress progress);

}  // namespace lievi::run::detail
