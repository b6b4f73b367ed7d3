/// @file apps/lievi/main.cpp
/// @brief The `lievi` command line (CLI11): run, convergence, validate, methods, schema; --version, --help.
/// A thin layer over the C++ API (lievi/io/scenario.hpp, lievi/run/rigid_body_run.hpp).
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <vector>

#include "commands.hpp"
#include "lievi/io/interrupt.hpp"
#include "lievi/io/output_dir.hpp"
#include "lievi/parallel/comm.hpp"
#include "lievi/version.hpp"

namespace lievi::cli {

std::string shorten(const std::string& s) { return s.size() <= 80 ? s : s.substr(0, 77) + "..."; }

int report(const invalid_argument& e) {
  io::interrupt::leave(0);  // a signal is being handled: its line, not this one, is the last word
  for (const auto& i : e.issues()) std::fprintf(stderr, "%s\n", i.format().c_str());
  return static_cast<int>(ExitCode::bad_input);
}

int report_other(const std::string& what) {
  io::interrupt::leave(0);
  std::fprintf(stderr, "lievi: error: %s\n", what.c_str());
  return static_cast<int>(ExitCode::other);
}

namespace {

/// `--out ""` is refused (it used to mean the default folder silently).
void check_out_given(CLI::App* cmd, const std::string& out) {
  if (cmd->get_option("--out")->count() > 0 && out.empty())
    throw invalid_argument("--out", "", "'': empty output folder name; leave --out out for the default folder");
}

/// CLI11's message, with any long value the user typed cut (it may quote the whole argument).
std::string shorten_message(const std::string& s) { return s.size() <= 200 ? s : s.substr(0, 197) + "..."; }

}  // namespace

}  // namespace lievi::cli

int main(int argc, char** argv) {
  using namespace lievi::cli;
  // First, before any thread exists: SIGINT/SIGTERM/SIGHUP go to the watcher thread (clean stop, exit 128+sig).
  lievi::io::interrupt::install();
  CLI::App app{"lievi: structure-preserving variational integrators on Lie groups", "lievi"};
  app.set_version_flag("--version", std::string("lievi ") + lievi::version, "Print the version and exit");
  app.require_subcommand(1);
  RunArgs run_args;
  ValidateArgs validate_args;
  ConvergenceArgs convergence_args;
  CLI::App* run = add_run_command(app, run_args);
  ResumeArgs resume_args;
  CLI::App* resume = add_resume_command(app, resume_args);
  MergeArgs merge_args;
  CLI::App* merge = add_merge_command(app, merge_args);
  CLI::App* convergence = add_convergence_command(app, convergence_args);
  CLI::App* validate = add_validate_command(app, validate_args);
  CLI::App* methods = add_methods_command(app);
  SchemaArgs schema_args;
  CLI::App* schema = add_schema_command(app, schema_args);
  // The first word names a command or a top-level flag; CLI11 would only say "A subcommand is required" for an
  // unknown one, without naming it.
  if (argc > 1) {
    const std::string first = argv[1];
    const bool flag = !first.empty() && first[0] == '-';
    const std::vector<CLI::App*> subs = app.get_subcommands({});
    const bool known = flag ? (first == "--help" || first == "-h" || first == "--version")
                            : std::any_of(subs.begin(), subs.end(), [&](const CLI::App* sub) { return sub->get_name() == first; });
    if (!known) {
      std::string allowed;
      for (const CLI::App* sub : subs) allowed += (allowed.empty() ? "" : ", ") + sub->get_name();
      std::fprintf(stderr, "lievi: %s '%s'; allowed: %s (see lievi --help)\n",
                   flag ? "unknown option" : "unknown command", shorten_message(first).c_str(),
                   flag ? "--help, --version, or a command" : allowed.c_str());
      return static_cast<int>(lievi::ExitCode::bad_input);
    }
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::Success& e) {
    return app.exit(e);  // --help, --version
  } catch (const CLI::ParseError& e) {
    std::fprintf(stderr, "lievi: %s (see lievi --help)\n", shorten_message(e.what()).c_str());
    return static_cast<int>(lievi::ExitCode::bad_input);
  }
  int code = static_cast<int>(lievi::ExitCode::other);
  // Under `mpirun -np R` (R > 1): every rank parses the same command; rank 0 writes and prints, the others
  // compute their share of an ensemble's paths and are silent (LIEVI_MPI_ALL_OUTPUT=1 keeps their output);
  // every rank ends with rank 0's exit code.
  lievi::parallel::Comm* comm = nullptr;
  bool ended = false;
  try {
    comm = lievi::parallel::world();
    const bool worker = comm && comm->rank() != 0;
    if (worker && std::getenv("LIEVI_MPI_ALL_OUTPUT") == nullptr) {
      std::FILE* out = std::freopen("/dev/null", "w", stdout);
      std::FILE* err = std::freopen("/dev/null", "w", stderr);
      (void)out, (void)err;
    }
    if (worker && !run->parsed() && !resume->parsed()) {
      code = 0;  // the other commands are rank 0's alone
    } else if (run->parsed()) {
      check_out_given(run, run_args.out);
      run_args.paths_given = run->get_option("--paths")->count() > 0;
      lievi::io::protect_input(run_args.file);  // no output folder may contain the scenario
      code = run_command(run_args);
    } else if (resume->parsed()) {
      code = resume_command(resume_args);
    } else if (merge->parsed()) {
      code = merge_command(merge_args);
    } else if (convergence->parsed()) {
      check_out_given(convergence, convergence_args.out);
      lievi::io::protect_input(convergence_args.file);
      code = convergence_command(convergence_args);
    } else if (validate->parsed()) {
      code = validate_command(validate_args);
    } else if (methods->parsed()) {
      code = methods_command();
    } else if (schema->parsed()) {
      code = schema_command(schema_args);
    }
  } catch (const lievi::parallel::JobEnded& e) {
    code = e.code;  // rank 0 ended the job before this rank's part of it
    ended = true;
  } catch (const lievi::invalid_argument& e) {
    code = report(e);
  } catch (const std::exception& e) {
    code = report_other(e.what());
    // a rank other than 0 that fails on its own would leave rank 0 waiting for it: end the job
    if (comm && comm->rank() != 0) comm->abort(code);
  }
  if (comm && !ended) {
    try {
      code = lievi::parallel::end_job(*comm, code);
    } catch (const std::exception& e) {
      code = report_other(e.what());
    }
  }
  lievi::parallel::finalize();
  return lievi::io::interrupt::leave(code);
}
