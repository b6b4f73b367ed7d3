#pragma once
/// @file lievi/core/error.hpp
/// @brief Error types at the API and I/O boundary, and the result of one numerical step.
///
/// Conventions (docs/architecture.md): bad input throws `lievi::invalid_argument` (process exit 2);
/// numerical failure inside a step is *returned* as a `StepResult` (never thrown from a hot loop) and
/// turned into `lievi::numerical_failure` (exit 3) by the run loop.
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace lievi {

/// One problem with the input: where (file, key), what (value) and what is allowed.
struct InputIssue {
  std::string file;     ///< scenario file, or "--set", or "" for the C++ API
  std::string key;      ///< dotted key, e.g. "integrator.dt"
  std::string message;  ///< e.g. "value 0 must be > 0"

  /// `FILE: key 'integrator.dt': value 0 must be > 0`
  [[nodiscard]] std::string format() const {
    std::string s;
    if (!file.empty()) s += file + ": ";
    if (!key.empty()) s += "key '" + key + "': ";
    s += message;
    return s;
  }
};

/// Bad input (scenario, `--set`, command line, a-priori checks). Carries every issue found, not only the first.
class invalid_argument : public std::invalid_argument {
 public:
  explicit invalid_argument(std::vector<InputIssue> issues)
      : std::invalid_argument(join(issues)), issues_(std::move(issues)) {}
  invalid_argument(std::string file, std::string key, std::string message)
      : invalid_argument(std::vector<InputIssue>{{std::move(file), std::move(key), std::move(message)}}) {}
  [[nodiscard]] const std::vector<InputIssue>& issues() const noexcept { return issues_; }

 private:
  static std::string join(const std::vector<InputIssue>& issues) {
    std::string s;
    for (const auto& i : issues) {
      if (!s.empty()) s += '\n';
      s += i.format();
    }
    return s;
  }
  std::vector<InputIssue> issues_;
};

/// Result of one step of an implicit or explicit method. Numerical failure is returned, not thrown.
struct StepResult {
  bool converged = true;   ///< false: Newton did not converge, or a non-finite value appeared
  int iterations = 0;      ///< Newton iterations used (0 for explicit methods)
  double residual = 0.0;   ///< final residual (max-norm) of the implicit equation, 0 for explicit methods
  const char* message = "";  ///< static text explaining a failure, e.g. "Newton did not converge in step (a)"
  int node = -1;           ///< node index of the failure for field integrators, -1 otherwise
};

/// A run stopped by a numerical failure: where (step, time, node), the residual and what to change.
class numerical_failure : public std::runtime_error {
 public:
  numerical_failure(long step, double t, int node, double residual, const std::string& message)
      : std::runtime_error(message), step_(step), t_(t), node_(node), residual_(residual) {}
  [[nodiscard]] long step() const noexcept { return step_; }
  [[nodiscard]] double t() const noexcept { return t_; }
  [[nodiscard]] int node() const noexcept { return node_; }
  [[nodiscard]] double residual() const noexcept { return residual_; }

 private:
  long step_;
  double t_;
  int node_;
  double residual_;
};

/// Process exit codes (docs/outputs.md "Exit codes and messages").
enum class ExitCode : int { ok = 0, other = 1, bad_input = 2, numerical_failure = 3 };

}  // namespace lievi
