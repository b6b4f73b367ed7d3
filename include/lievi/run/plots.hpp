#pragma once
/// @file lievi/run/plots.hpp
/// @brief PNG plots of a run folder by the Python script python/lievi_plot.py (matplotlib, Agg backend).
///
/// The interpreter is LIEVI_PYTHON (CMake: /usr/bin/python3) unless the environment variable LIEVI_PYTHON
/// overrides it; the script is $LIEVI_PLOT_SCRIPT, else <source>/python/lievi_plot.py, else
/// <prefix>/share/lievi/lievi_plot.py next to the installed program.
#include <filesystem>
#include <optional>
#include <string>

namespace lievi::run {

/// Make casimir_energy.png and trajectory.png from `dir`/series.csv. Returns nullopt on success, otherwise
/// why the plots were skipped (one line; the script's output is kept in `dir`/plot.log).
[[nodiscard]] std::optional<std::string> make_rigid_body_plots(const std::filesystem::path& dir,
                                                               const std::string& title);

/// The plot script that would be used ("" if none is found).
[[nodiscard]] std::filesystem::path plot_script_path();

}  // namespace lievi::run
