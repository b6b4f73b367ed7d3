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
#include <vector>

namespace lievi::run {

/// A script shipped with lievi: $`env_override` if set, else <source>/python/`name`, else
/// <prefix>/share/lievi/`name` next to the installed program; "" if none exists.
[[nodiscard]] std::filesystem::path find_python_script(const std::string& name, const char* env_override);

/// Run `python script args...` (no shell; stdin /dev/null; output into `dir`/plot.log, removed on success).
/// The interpreter is $LIEVI_PYTHON or the CMake-configured one. Returns nullopt on success, otherwise one line
/// saying why (the script's last output line, its exit status).
[[nodiscard]] std::optional<std::string> run_plot_script(const std::filesystem::path& script,
                                                         const std::filesystem::path& dir,
                                                         const std::vector<std::string>& args);

/// Make casimir_energy.png and trajectory.png from `dir`/series.csv. Returns nullopt on success, otherwise
/// why the plots were skipped (one line; the script's output is kept in `dir`/plot.log).
[[nodiscard]] std::optional<std::string> make_rigid_body_plots(const std::filesystem::path& dir,
                                                               const std::string& title);

/// Field runs: unless `enabled` is false, run the shipped `script` (found by find_python_script with
/// `env_override`) on `dir` with `--title title` and `extra_args`; a skipped or failed plot adds one line to
/// `notes`, as does `enabled = false` ("plots not made: output.plots = false").
void make_field_plots(const std::filesystem::path& dir, bool enabled, const std::string& script,
                      const char* env_override, const std::string& title, std::vector<std::string>& notes,
                      const std::vector<std::string>& extra_args = {});

/// The plot script that would be used ("" if none is found).
[[nodiscard]] std::filesystem::path plot_script_path();

}  // namespace lievi::run
