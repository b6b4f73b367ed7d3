#pragma once
/// @file lievi/io/wave_scenario.hpp
/// @brief The field scenario of the (stochastic) wave equation, `model.type = "wave"`, and the dispatch of a
/// scenario file on its `model.type` (rigid_body, wave, beam: io/beam_scenario.hpp, lagrangian:
/// io/mechanics_scenario.hpp).
///
/// One schema style with the rigid body's (io/scenario.hpp): the same TOML reading, `--set` conversion, all
/// issues of a file reported together, `lievi validate` printout and docs/scenarios.md key table. Keys follow
/// beam-integrators.md §8.4 and docs/interfaces.md; every key with type, default, unit and allowed values is
/// in `wave_schema()`.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "lievi/io/beam_scenario.hpp"
#include "lievi/io/mechanics_scenario.hpp"
#include "lievi/io/scenario.hpp"

namespace lievi::io {

/// A validated wave scenario, every default filled. ℓ = ½(ζ² − c²γ²) per unit length on s ∈ [0, S].
struct WaveScenario {
  std::string name;    ///< file stem (default output folder runs/<name>)
  std::string source;  ///< file it came from ("" for a string)

  // model
  double c = 1.0;  ///< model.c, wave speed (> 0)

  // grid
  long long J = 100;            ///< grid.J: number of cells (cell) / segments (vertex, periodic), >= 2
  std::string layout = "cell";  ///< grid.layout: "cell" (default for the wave) or "vertex"
  double length = 1.0;          ///< grid.length S (> 0)

  // bc
  std::string bc_left = "free", bc_right = "free";  ///< "free", "clamped" (vertex layout only), "periodic"
                                                    ///< (both ends); "prescribed" is refused for the wave

  // initial
  std::string shape = "cosine";  ///< initial.shape: "cosine", "sine", "gaussian", "zero", or "file"
  double amplitude = 1.0;        ///< initial.amplitude
  long long wavenumber = 1;    ///< initial.wavenumber k: cosine/sine are A cos(k pi s / S), A sin(k pi s / S)
  double center = 0.3;         ///< initial.center s0 of the gaussian A exp(-((s - s0)/w)^2)
  double width = 0.05;         ///< initial.width w of the gaussian (> 0)
  std::string file;            ///< initial.file: CSV with columns s,phi[,phi_t] at the node positions
  std::string file_path;       ///< initial.file resolved against the scenario file's folder (what was read)
  std::vector<double> phi0;    ///< resolved initial phi at the nodes (filled for every shape)
  std::vector<double> phi_t0;  ///< resolved initial phi_t at the nodes (zero unless the file gives it)

  // integrator
  std::string method = "type-i";  ///< "type-i" (stochastic kinematics) or "type-ii" (stochastic potential)
  std::string variant = "exact";  ///< "exact" or "approx" (they coincide on G = R; both are run)
  std::string start = "half";     ///< "half" (velocity-Verlet half kick) or "full"
  double dt = 0.0, t_end = 0.0;   ///< integrator.dt, integrator.t_end (t_end = steps dt within 1e-9)
  long long steps = 0;
  bool allow_unstable = false;  ///< integrator.allow_unstable: skip the CFL refusal

  // noise
  std::string noise_mode = "none";         ///< "none", "common", "independent", "modes"
  double theta = 0.0;                      ///< noise.theta (common, independent; cosine_modes amplitude)
  std::vector<std::vector<double>> modes;  ///< Theta_k(s_j), k = 0..K-1, j = 0..n_nodes-1 (mode "modes":
                                           ///< noise.modes as given, or built from noise.cosine_modes)
  long long cosine_modes = 0;              ///< noise.cosine_modes K: Theta_k(s) = theta cos(k pi s/S), k < K
  std::uint32_t seed = 1;                  ///< noise.seed (0 ... 2^32 - 1)
  std::uint32_t path = 0;                  ///< noise.path (0 ... 2^32 - 1)
  double base_dt = 0.0;                    ///< noise.base_dt (default dt); dt = 2^refine_log2 base_dt
  int refine_log2 = 0;
  bool truncate = false;  ///< noise.truncate (Milstein-Repin-Tretyakov, k = 2)

  // output
  long long every = 1;            ///< output.every
  std::vector<long long> probes;  ///< output.probes: node indices (default first, middle, last)
  bool fields = true;             ///< output.fields: write fields.h5
  long long fields_every = 0;     ///< output.fields_every (default: every, raised so <= 1000 snapshots)
  bool fields_csv = false;        ///< output.fields_csv: final_fields.csv
  bool per_path = false;          ///< output.per_path: per-path series in ensembles
  bool plots = true;              ///< output.plots

  std::vector<std::string> given_keys;  ///< canonical keys present in the file or --set, sorted

  [[nodiscard]] long long n_nodes() const;  ///< J (cell, periodic) or J + 1 (vertex, not periodic)
  [[nodiscard]] double ds() const { return length / static_cast<double>(J); }
  [[nodiscard]] double s_of(long long j) const;  ///< node position s_j
  [[nodiscard]] double time_at(long long k) const { return k == steps ? t_end : static_cast<double>(k) * dt; }
  [[nodiscard]] bool given(const std::string& key) const;
};

/// The wave schema (sections model, grid, bc, initial, integrator, noise, output), in documentation order.
[[nodiscard]] const std::vector<SchemaEntry>& wave_schema();

/// Load / parse a wave scenario (model.type must be "wave"); throws lievi::invalid_argument with every issue.
/// A relative initial.file is relative to the scenario file's folder (`load_*`) or to the current directory
/// (`parse_*`, which has no folder).
[[nodiscard]] WaveScenario load_wave_scenario(const std::filesystem::path& path,
                                              const std::vector<std::string>& overrides = {});
[[nodiscard]] WaveScenario parse_wave_scenario(const std::string& toml_text, const std::string& file_label,
                                               const std::string& name,
                                               const std::vector<std::string>& overrides = {});

/// The resolved keys in schema order (validate printout, summary.json): every key that applies (with its
/// default when not given) and every key given. Keys that do not apply are left out unless given: the other
/// noise keys with noise.mode = "none", initial parameters the shape does not read, noise.theta with explicit
/// noise.modes.
[[nodiscard]] std::vector<ResolvedEntry> resolved_entries(const WaveScenario& s);
/// Keys given but not used (noise keys with noise.mode = "none", initial parameters of another shape,
/// noise.theta with explicit modes), one note each (summary.json `notes`, `lievi validate`).
[[nodiscard]] std::vector<std::string> ignored_key_notes(const WaveScenario& s);
/// The resolved scenario as TOML text, loadable again (the same resolved entries); defaults are marked
/// `# default`, ignored keys `# ignored: ...`.
[[nodiscard]] std::string to_toml(const WaveScenario& s);

/// Any scenario: dispatched on `model.type` (also after `--set model.type=...`). A missing or unknown
/// model.type is one issue listing the model types; otherwise the model's own reader gives its messages.
using AnyScenario = std::variant<RigidBodyScenario, WaveScenario, BeamScenario, MechanicsScenario>;
[[nodiscard]] AnyScenario load_any_scenario(const std::filesystem::path& path,
                                            const std::vector<std::string>& overrides = {});
[[nodiscard]] AnyScenario parse_any_scenario(const std::string& toml_text, const std::string& file_label,
                                             const std::string& name,
                                             const std::vector<std::string>& overrides = {});

/// The model.type of a scenario file (after the `--set` overrides) without reading the rest: its string, the
/// TOML text of a value that is not a string, or nullopt when absent. Throws lievi::invalid_argument when the
/// file cannot be read or is not TOML.
[[nodiscard]] std::optional<std::string> scenario_model_type(const std::filesystem::path& path,
                                                             const std::vector<std::string>& overrides = {});

/// The model types and their schemas, for `lievi schema [TYPE]` and docs/scenarios.md.
[[nodiscard]] std::vector<std::string> model_types();  ///< {"rigid_body", "wave", "beam", "lagrangian"}
[[nodiscard]] const std::vector<SchemaEntry>& schema_of(const std::string& model_type);
[[nodiscard]] std::string schema_markdown(const std::string& model_type);

}  // namespace lievi::io
