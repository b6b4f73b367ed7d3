#pragma once
/// @file lievi/run/convergence.hpp
/// @brief Convergence studies: run one scenario for several values of a numeric key (typically
/// `integrator.dt`), measure the final-time error against an independent reference and the observed order.
///
/// For values v_0, ..., v_{n-1} of the key, the run with v_i ends in M_N^{(i)} at t_end and
///   e_i = || M_N^{(i)} - M_ref(t_end) ||_inf   (max-norm of the final-time error, seed 002 Figure 3),
///   p_i = log(e_i / e_{i-1}) / log(v_i / v_{i-1})   (observed order, i >= 1; none for the first value),
/// and the fitted order is the least-squares slope of log e against log v over all (finite, positive) points.
/// References (docs/outputs.md "convergence"), all independent of the method under study:
///  - `taylor`: the long-double Taylor series (reference/rigid_body_taylor.hpp, ~1e-17),
///  - `exact`:  the Jacobi-elliptic closed form (reference/rigid_body_exact.hpp), only without dissipation,
///  - `dop853`: the registry method `dop853` with rtol = atol = 1e-13 (only if that method is registered).
/// Bad input (key, values, reference, output folder) is found before any run and before any file is written.
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "lievi/io/scenario.hpp"
#include "lievi/run/result.hpp"

namespace lievi::run {

/// The reference solutions a convergence study can measure against.
enum class ConvergenceReference { taylor, exact, dop853 };

/// "taylor", "exact", "dop853".
[[nodiscard]] const char* reference_id(ConvergenceReference r);

/// The references usable in this build: taylor, exact, and dop853 when the method `dop853` is registered.
[[nodiscard]] std::vector<std::string> available_references();

/// Parse a `--reference` name. Throws lievi::invalid_argument (file "--reference") for an unknown name, or
/// for `dop853` when the method is not registered, listing the available references.
[[nodiscard]] ConvergenceReference parse_reference(const std::string& name);

/// What to study.
struct ConvergenceOptions {
  std::string param = "integrator.dt";  ///< dotted scenario key of type number or integer
  std::vector<std::string> values;      ///< its values as text, converted like `--set param=value`
  ConvergenceReference reference = ConvergenceReference::taylor;
  std::vector<std::string> overrides;  ///< further `--set key=value` (must not include `param`)
  bool plots = true;  ///< make convergence.png (run_convergence only; also needs output.plots = true)
};

/// A checked study: one resolved scenario per value.
struct ConvergenceStudy {
  ConvergenceOptions options;
  std::string name;                              ///< scenario name (default folder runs/<name>-convergence)
  std::vector<double> values;                    ///< numeric values of `param`, in the order given
  std::vector<io::RigidBodyScenario> scenarios;  ///< scenario with param = values[i]
  integrators::MethodTraits traits;              ///< of the method under study (first scenario)
  std::string retraction;                        ///< "" for methods without one
};

/// Load `file` once per value (with `overrides` and `param=value`), run the method's a-priori checks and the
/// reference's applicability checks (exact: no dissipation and diagonal inertia). Throws
/// lievi::invalid_argument with every issue (one line each, naming the key): unknown or non-numeric `param`,
/// a value that is not a number, not > 0 or repeated, fewer than 2 values, `param` also in `overrides`, or a
/// scenario issue.
[[nodiscard]] ConvergenceStudy prepare_convergence(const std::filesystem::path& file,
                                                   const ConvergenceOptions& options);

/// One value of the study.
struct ConvergenceRow {
  double value = 0.0;
  std::string value_text;             ///< as given on the command line
  double error = 0.0;                 ///< e_i (NaN when the run failed)
  std::optional<double> order;        ///< p_i (none for the first row, after a failed row, or if undefined)
  bool complete = false;              ///< the run reached t_end
  std::optional<RunFailure> failure;  ///< numerical failure of this value's run (or of its dop853 reference)
  long long steps = 0;                ///< steps taken
  double integrate_s = 0.0;           ///< wall time of the stepping
  models::Vec3 M_final = models::Vec3::Zero();  ///< M_N (last good state)
  models::Vec3 M_ref = models::Vec3::Zero();    ///< M_ref(t_end)
};

/// Outcome of a study.
struct ConvergenceResult {
  std::vector<ConvergenceRow> rows;
  double fitted_order = 0.0;  ///< least-squares slope (NaN with fewer than 2 usable points)
  bool complete = false;      ///< every value's run reached t_end
  std::vector<std::string> notes;
  std::filesystem::path out_dir;  ///< "" for in-process studies
  double total_s = 0.0;
};

/// Observed orders p_i = log(e_i / e_{i-1}) / log(v_i / v_{i-1}), i >= 1; entry 0 is empty, and so is any
/// entry whose two errors or values are not finite and > 0 (e.g. a failed run, an exact zero error).
[[nodiscard]] std::vector<std::optional<double>> observed_orders(const std::vector<double>& values,
                                                                 const std::vector<double>& errors);

/// Least-squares slope of log e against log v over the points with finite e > 0 and v > 0; NaN if there are
/// fewer than 2 such points (or all their values are equal).
[[nodiscard]] double fitted_order(const std::vector<double>& values, const std::vector<double>& errors);

/// Run every value in-process (no files). A numerical failure of one value is recorded in its row and the
/// other values still run; `result.complete` is then false.
[[nodiscard]] ConvergenceResult compute_convergence(const ConvergenceStudy& study);

/// The default output folder: runs/<scenario name>-convergence.
[[nodiscard]] std::filesystem::path default_convergence_dir(const ConvergenceStudy& study);

/// `convergence.csv`: header `value,error,order`, one row per value, round-trip numbers; empty cells for a
/// missing order or the error of a failed run.
[[nodiscard]] std::string convergence_csv(const ConvergenceStudy& study, const ConvergenceResult& result);

/// `summary.json` of a study (docs/outputs.md "convergence").
[[nodiscard]] std::string convergence_summary_json(const ConvergenceStudy& study,
                                                   const ConvergenceResult& result);

/// compute_convergence, then write convergence.csv, summary.json and (if options.plots and the scenario's
/// output.plots) convergence.png
/// atomically into `out_dir` (io/output_dir.hpp). An unusable `out_dir` throws lievi::invalid_argument before
/// any run; after a numerical failure the folder is still written (summary status "incomplete"). A failing
/// plot script does not fail the study: `notes` says why.
ConvergenceResult run_convergence(const ConvergenceStudy& study, const std::filesystem::path& out_dir,
                                  bool force = false);

}  // namespace lievi::run
