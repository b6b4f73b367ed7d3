#pragma once
/// @file apps/lievi/commands.hpp
/// @brief The subcommands of the `lievi` program (one file each) and the shared error reporting.
///
/// Exit codes (docs/cli.md): 0 success, 1 anything else (I/O error), 2 bad input (nothing written),
/// 3 numerical failure during the run (outputs kept up to the last good step, status "failed"),
/// 128 + signal when stopped by SIGINT (130), SIGTERM (143) or SIGHUP (129) (lievi/io/interrupt.hpp).
#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "lievi/core/error.hpp"
#include "lievi/run/models.hpp"

namespace lievi::cli {

/// Print every issue of a bad-input error, one line each, to stderr; returns ExitCode::bad_input.
int report(const invalid_argument& e);
/// Print "lievi: error: <what>" to stderr; returns ExitCode::other.
int report_other(const std::string& what);

/// --paths N: the number of noise paths of an ensemble run is 1 ... kMaxPaths (docs/cli.md).
inline constexpr long long kMaxPaths = 1000000;

/// At most ~80 characters of a user's value in a message ("..." marks the cut).
[[nodiscard]] std::string shorten(const std::string& s);

struct RunArgs {
  std::string file;
  std::vector<std::string> set;
  std::string out;
  bool force = false;
  std::string paths_text;    ///< --paths as given; checked by run_command
  bool paths_given = false;  ///< --paths was on the command line (set by main after parsing)
  long long paths = 0;       ///< --paths as a number, 0 = not given
  long long stop_at = 0;     ///< --stop-at STEP (0 = not given)
  std::string path_range;    ///< --path-range A:B as given ("" = the whole ensemble)
};
CLI::App* add_run_command(CLI::App& app, RunArgs& args);
int run_command(const RunArgs& args);

struct ResumeArgs {
  std::string dir;
  std::vector<std::string> set;
  long long stop_at = 0;  ///< --stop-at STEP (0 = not given)
};

/// What a run or resume prints (its notes; the summary line, a stop by --stop-at with how to continue, or the
/// numerical failure under `label`) and its exit code.
int report_outcome(const std::string& label, const std::string& name, const run::RunOutcome& r);
CLI::App* add_resume_command(CLI::App& app, ResumeArgs& args);
int resume_command(const ResumeArgs& args);

struct MergeArgs {
  std::vector<std::string> dirs;
  std::string out;
  bool force = false;
};
CLI::App* add_merge_command(CLI::App& app, MergeArgs& args);
int merge_command(const MergeArgs& args);

struct ValidateArgs {
  std::string file;
  std::vector<std::string> set;
};
CLI::App* add_validate_command(CLI::App& app, ValidateArgs& args);
int validate_command(const ValidateArgs& args);

struct ConvergenceArgs {
  std::string file;
  std::string param;
  std::vector<std::string> values;
  std::string reference = "taylor";
  std::vector<std::string> set;
  std::string out;
  bool force = false;
};
CLI::App* add_convergence_command(CLI::App& app, ConvergenceArgs& args);
int convergence_command(const ConvergenceArgs& args);

CLI::App* add_methods_command(CLI::App& app);
int methods_command();

struct SchemaArgs {
  std::string type;  ///< model type ("" = every type)
};
CLI::App* add_schema_command(CLI::App& app, SchemaArgs& args);
int schema_command(const SchemaArgs& args);

}  // namespace lievi::cli
