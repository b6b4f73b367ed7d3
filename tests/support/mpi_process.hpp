#pragma once
/// @file tests/support/mpi_process.hpp
/// @brief The tests of lievi under MPI (tests/mpi): the program alone and under `mpirun`. The test target
/// defines LIEVI_CLI_PATH and LIEVI_MPIRUN.
#include <filesystem>
#include <string>
#include <vector>

#include "support/cli_process.hpp"

namespace lievi::test {

/// `lievi args...` in `cwd`, without MPI.
inline CliResult lievi_cli(const std::filesystem::path& cwd, const std::vector<std::string>& args,
                           const std::string& env = "") {
  return run_program(LIEVI_CLI_PATH, cwd, args, env);
}

/// `mpirun -np ranks lievi args...` in `cwd`: as root too, with more ranks than cores, whose waiting ranks
/// yield the core.
inline CliResult mpirun(const std::filesystem::path& cwd, int ranks, const std::vector<std::string>& args,
                        const std::string& env = "") {
  std::vector<std::string> a = {"--allow-run-as-root", "--oversubscribe", "-np", std::to_string(ranks), LIEVI_CLI_PATH};
  a.insert(a.end(), args.begin(), args.end());
  return run_program(LIEVI_MPIRUN, cwd, a, "OMPI_MCA_mpi_yield_when_idle=1 " + env);
}

}  // namespace lievi::test
