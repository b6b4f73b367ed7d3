/// @file apps/lievi/cmd_convergence.cpp
/// @brief `lievi convergence FILE --param KEY --values v1,v2,... [--reference taylor|dop853|exact]
/// [--set k=v]... [--out DIR] [--force]`: final-time error and observed order per value
/// (run/convergence.hpp).
#include <cmath>
#include <cstdio>
#include <exception>

#include "commands.hpp"
#include "lievi/io/scenario.hpp"
#include "lievi/run/convergence.hpp"

namespace lievi::cli {

CLI::App* add_convergence_command(CLI::App& app, ConvergenceArgs& a) {
  CLI::App* c = app.add_subcommand(
      "convergence", "Final-time error against a reference and observed order for several values of a key");
  c->add_option("FILE", a.file, "Scenario file (TOML)")->required();
  c->add_option("--param", a.param, "Numeric scenario key to vary (e.g. integrator.dt)")->required();
  c->add_option("--values", a.values, "Its values, comma separated (at least 2, > 0, distinct)")
      ->required()
      ->delimiter(',')
      ->type_name("V1,V2,...");
  c->add_option("--reference", a.reference,
                "Reference solution: taylor (default), exact (alpha = 0), dop853");
  c->add_option("--set", a.set, "Override a scenario key: --set integrator.t_end=5 (repeatable)")
      ->type_name("KEY=VALUE")
      ->take_all()
      ->allow_extra_args(false);
  c->add_option("--out", a.out, "Output folder (default runs/<scenario name>-convergence)");
  c->add_flag("--force", a.force,
              "Replace a non-empty existing output folder (after the new one is complete)");
  return c;
}

namespace {

/// A table cell: printf `format` of x, or "-" when x is not finite (a failed run).
std::string cell(double x, const char* format) {
  if (!std::isfinite(x)) return "-";
  char buf[32];
  std::snprintf(buf, sizeof buf, format, x);
  return buf;
}

}  // namespace

int convergence_command(const ConvergenceArgs& a) {
  try {
    run::ConvergenceOptions o;
    o.param = a.param;
    o.values = a.values;
    o.overrides = a.set;
    o.reference = run::parse_reference(a.reference);
    const run::ConvergenceStudy st = run::prepare_convergence(a.file, o);
    const std::filesystem::path out =
        a.out.empty() ? run::default_convergence_dir(st) : std::filesystem::path(a.out);
    const run::ConvergenceResult r = run::run_convergence(st, out, a.force);

    const auto& s0 = st.scenarios.front();
    std::printf(
        "%s: %s%s, order %d, against the %s reference at t_end = %s; error = max_i |M_N,i - "
        "M_ref,i(t_end)|\n",
        st.name.c_str(), st.traits.id, st.retraction.empty() ? "" : (" (" + st.retraction + ")").c_str(),
        st.traits.order, run::reference_id(o.reference), io::format_number(s0.t_end).c_str());
    std::printf("%-16s %-14s %s\n", "value", "error", "order");
    for (const auto& row : r.rows) {
      std::printf("%-16s %-14s %s\n", io::format_number(row.value).c_str(), cell(row.error, "%.6e").c_str(),
                  row.order ? cell(*row.order, "%.4f").c_str() : "");
    }
    std::printf("fitted order (least-squares slope over all points): %s\n",
                cell(r.fitted_order, "%.4f").c_str());
    std::printf("wrote %s\n", r.out_dir.c_str());
    for (const auto& n : r.notes) std::printf("  note: %s\n", n.c_str());
    if (!r.complete) {
      for (const auto& row : r.rows) {
        if (!row.failure) continue;
        const auto& f = *row.failure;
        std::fprintf(
            stderr,
            "%s: numerical failure at %s = %s in step %lld (from t = %s): %s (residual %s); %s. Other "
            "values kept in %s (status \"incomplete\")\n",
            a.file.c_str(), o.param.c_str(), io::format_number(row.value).c_str(), f.step,
            io::format_number(f.t).c_str(), f.message.c_str(), io::format_number(f.residual).c_str(),
            f.hint.c_str(), r.out_dir.c_str());
      }
      return static_cast<int>(ExitCode::numerical_failure);
    }
    return static_cast<int>(ExitCode::ok);
  } catch (const invalid_argument& e) {
    return report(e);
  } catch (const std::exception& e) {
    return report_other(e.what());
  }
}

}  // namespace lievi::cli
