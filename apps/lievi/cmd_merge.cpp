/// @file apps/lievi/cmd_merge.cpp
/// @brief `lievi merge DIR... --out DIR`: combine the slices of an ensemble (lievi run --paths N --path-range
/// A:B) into the outputs of the ensemble run whole.
#include <exception>
#include <filesystem>

#include "commands.hpp"
#include "lievi/run/models.hpp"

namespace lievi::cli {

CLI::App* add_merge_command(CLI::App& app, MergeArgs& a) {
  CLI::App* c = app.add_subcommand(
      "merge", "Combine the slices of an ensemble (lievi run FILE --paths N --path-range A:B) into the outputs of "
               "the whole ensemble, bit for bit");
  c->add_option("DIR", a.dirs, "The slices' output folders, in any order")->required();
  c->add_option("--out", a.out, "The folder of the merged ensemble")->required();
  c->add_flag("--force", a.force, "Replace an existing output folder that lievi wrote (never a slice)");
  return c;
}

int merge_command(const MergeArgs& a) {
  try {
    run::RunOptions o;
    o.force = a.force;
    std::vector<std::filesystem::path> dirs(a.dirs.begin(), a.dirs.end());
    std::string name;
    const run::RunOutcome r = run::merge_slices(dirs, a.out, o, &name);
    return report_outcome(a.out, name, r);
  } catch (const invalid_argument& e) {
    return report(e);
  } catch (const std::exception& e) {
    return report_other(e.what());
  }
}

}  // namespace lievi::cli
