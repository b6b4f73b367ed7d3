/// @file apps/lievi/main.cpp
/// @brief The `lievi` command line (CLI11): run, convergence, validate, methods, schema; --version, --help.
/// A thin layer over the C++ API (lievi/io/scenario.hpp, lievi/run/rigid_body_run.hpp).
#include <cstdio>
#include <exception>

#include "commands.hpp"
#include "lievi/version.hpp"

namespace lievi::cli {

int report(const invalid_argument& e) {
  for (const auto& i : e.issues()) std::fprintf(stderr, "%s\n", i.format().c_str());
  return static_cast<int>(ExitCode::bad_input);
}

int report_other(const std::string& what) {
  std::fprintf(stderr, "lievi: error: %s\n", what.c_str());
  return static_cast<int>(ExitCode::other);
}

}  // namespace lievi::cli

int main(int argc, char** argv) {
  using namespace lievi::cli;
  CLI::App app{"lievi: structure-preserving variational integrators on Lie groups", "lievi"};
  app.set_version_flag("--version", std::string("lievi ") + lievi::version, "Print the version and exit");
  app.require_subcommand(1);
  RunArgs run_args;
  ValidateArgs validate_args;
  ConvergenceArgs convergence_args;
  CLI::App* run = add_run_command(app, run_args);
  CLI::App* convergence = add_convergence_command(app, convergence_args);
  CLI::App* validate = add_validate_command(app, validate_args);
  CLI::App* methods = add_methods_command(app);
  SchemaArgs schema_args;
  CLI::App* schema = add_schema_command(app, schema_args);
  try {
    app.parse(argc, argv);
  } catch (const CLI::Success& e) {
    return app.exit(e);  // --help, --version
  } catch (const CLI::ParseError& e) {
    std::fprintf(stderr, "lievi: %s (see lievi --help)\n", e.what());
    return static_cast<int>(lievi::ExitCode::bad_input);
  }
  try {
    if (run->parsed()) return run_command(run_args);
    if (convergence->parsed()) return convergence_command(convergence_args);
    if (validate->parsed()) return validate_command(validate_args);
    if (methods->parsed()) return methods_command();
    if (schema->parsed()) return schema_command(schema_args);
  } catch (const lievi::invalid_argument& e) {
    return report(e);
  } catch (const std::exception& e) {
    return report_other(e.what());
  }
  return static_cast<int>(lievi::ExitCode::other);
}
