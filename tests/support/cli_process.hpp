#pragma once
/// @file tests/support/cli_process.hpp
/// @brief Running the built `lievi` program from end-to-end tests: capture exit code, stdout and stderr.
#include <sys/wait.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace lievi::test {

struct CliResult {
  int code = -1;
  std::string out, err;
  /// The non-empty lines of stderr.
  [[nodiscard]] std::vector<std::string> err_lines() const {
    std::vector<std::string> v;
    std::istringstream in(err);
    for (std::string l; std::getline(in, l);)
      if (!l.empty()) v.push_back(l);
    return v;
  }
};

inline std::string read_file(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

/// Single-quote `s` for /bin/sh.
inline std::string shell_quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

/// Run `program args...` in `cwd` with `env` prefixed (e.g. "LIEVI_PYTHON=/nonexistent"). The captured output
/// goes to files beside `cwd` (not inside), so `cwd` stays as the program left it. stderr is not a TTY here.
inline CliResult run_program(const std::string& program, const std::filesystem::path& cwd,
                             const std::vector<std::string>& args, const std::string& env = "") {
  const std::filesystem::path o = cwd.string() + ".stdout", e = cwd.string() + ".stderr";
  std::string cmd = "cd " + shell_quote(cwd.string()) + " && " + env + " " + shell_quote(program);
  for (const auto& a : args) cmd += " " + shell_quote(a);
  cmd += " > " + shell_quote(o.string()) + " 2> " + shell_quote(e.string());
  const int st = std::system(cmd.c_str());
  CliResult r;
  r.code = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  r.out = read_file(o);
  r.err = read_file(e);
  std::filesystem::remove(o);
  std::filesystem::remove(e);
  return r;
}

/// A fresh, empty folder `root`/`name`.
inline std::filesystem::path fresh_dir(const std::filesystem::path& root, const std::string& name) {
  const std::filesystem::path d = root / name;
  std::filesystem::remove_all(d);
  std::filesystem::create_directories(d);
  return d;
}

/// The sorted names of the entries of folder `d`.
inline std::vector<std::string> dir_entries(const std::filesystem::path& d) {
  std::vector<std::string> v;
  for (const auto& e : std::filesystem::directory_iterator(d)) v.push_back(e.path().filename().string());
  std::sort(v.begin(), v.end());
  return v;
}

/// `args` followed by `--set S` for each S of `sets`.
inline std::vector<std::string> with(std::vector<std::string> args, const std::vector<std::string>& sets) {
  for (const auto& s : sets) {
    args.push_back("--set");
    args.push_back(s);
  }
  return args;
}

}  // namespace lievi::test
