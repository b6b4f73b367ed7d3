/// @file python/module/lievi_module.cpp
/// @brief `lievi._lievi`, the compiled part of the Python package `lievi` (python/lievi/__init__.py): a thin
/// binding of the model layer — reading and checking scenarios (io::load_any_scenario, io::parse_any_scenario,
/// run::model_of(...).check and .resolved_toml), their schemas and methods, and whole runs through the model
/// registry (run::ModelType::run, the pipeline `lievi run` uses, so the files are the CLI's). The GIL is released
/// while a run steps. lievi::invalid_argument becomes lievi.InputError (a ValueError); every other C++ exception
/// becomes a Python exception, never a crash.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>
#include <pybind11/stl/filesystem.h>

#include <string>
#include <variant>
#include <vector>

#include "lievi/core/error.hpp"
#include "lievi/io/any_scenario.hpp"
#include "lievi/io/memory_estimate.hpp"
#include "lievi/run/models.hpp"
#include "lievi/version.hpp"

namespace py = pybind11;
using lievi::io::AnyScenario;

namespace {

/// A scenario read from a file or a TOML text, with where it came from (for messages and `resolved`).
struct Scenario {
  AnyScenario any;
  std::string source;  ///< the file, or the label of a text ("<dict>")
  [[nodiscard]] std::string name() const {
    return std::visit([](const auto& s) { return s.name; }, any);
  }
  [[nodiscard]] std::string model_type() const { return lievi::run::model_of(any).name; }
};

py::dict run_outcome(const lievi::run::RunOutcome& r) {
  py::dict d;
  d["complete"] = r.complete;
  d["what"] = r.what;
  d["steps"] = r.steps;
  d["rows"] = r.rows;
  d["t_final"] = r.t_final;
  d["total_s"] = r.total_s;
  d["out_dir"] = r.out_dir.string();
  d["notes"] = r.notes;
  if (r.failure) {
    py::dict f;
    f["step"] = r.failure->step;
    f["t"] = r.failure->t;
    f["node"] = r.failure->node;
    f["residual"] = r.failure->residual;
    f["message"] = r.failure->message;
    f["hint"] = r.failure->hint;
    d["failure"] = f;
  } else {
    d["failure"] = py::none();
  }
  return d;
}

}  // namespace

PYBIND11_MODULE(_lievi, m) {
  m.doc() = "The compiled core of the lievi package (use `import lievi`).";
  m.attr("__version__") = lievi::version;
  // lievi.InputError(ValueError): the joined message, and `issues`, a list of {file, key, message}
  static py::exception<lievi::invalid_argument> input_error(m, "InputError", PyExc_ValueError);
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const lievi::invalid_argument& e) {
      py::list issues;
      for (const lievi::InputIssue& i : e.issues()) {
        py::dict d;
        d["file"] = i.file;
        d["key"] = i.key;
        d["message"] = i.message;
        issues.append(d);
      }
      py::object exc = py::reinterpret_borrow<py::object>(input_error.ptr())(py::str(e.what()));
      exc.attr("issues") = issues;
      PyErr_SetObject(input_error.ptr(), exc.ptr());
    }
  });

  py::class_<Scenario>(m, "_Scenario")
      .def_property_readonly("name", &Scenario::name)
      .def_property_readonly("model_type", &Scenario::model_type)
      .def_readonly("source", &Scenario::source)
      .def("check", [](const Scenario& s) { lievi::run::model_of(s.any).check(s.any); })
      .def("resolved_toml", [](const Scenario& s) { return lievi::run::model_of(s.any).resolved_toml(s.any); });

  m.def(
      "load",
      [](const std::filesystem::path& path, const std::vector<std::string>& overrides) {
        return Scenario{lievi::io::load_any_scenario(path, overrides), path.string()};
      },
      py::arg("path"), py::arg("overrides"));
  m.def(
      "parse",
      [](const std::string& text, const std::string& label, const std::string& name,
         const std::vector<std::string>& overrides) {
        return Scenario{lievi::io::parse_any_scenario(text, label, name, overrides), label};
      },
      py::arg("text"), py::arg("label"), py::arg("name"), py::arg("overrides"));
  m.def(
      "run",
      [](const Scenario& s, long long paths, const std::filesystem::path& out, bool force) {
        if (paths > 1) lievi::io::check_memory(s.any, paths);
        lievi::run::RunOptions o;
        o.force = force;
        o.progress = lievi::run::Progress::never;
        lievi::run::RunOutcome r;
        {
          py::gil_scoped_release release;
          r = lievi::run::model_of(s.any).run(s.any, paths, out, o);
        }
        return run_outcome(r);
      },
      py::arg("scenario"), py::arg("paths"), py::arg("out"), py::arg("force"));
  m.def("model_types", &lievi::io::model_types);
  m.def("schema", [](const std::string& type) {
    py::list out;
    for (const lievi::io::SchemaEntry& e : lievi::io::schema_of(type)) {
      py::dict d;
      d["key"] = e.key;
      d["type"] = std::string(lievi::io::type_name(e.type));
      d["requirement"] = e.requirement;
      d["default"] = e.default_text;
      d["unit"] = e.unit;
      d["allowed"] = e.allowed;
      d["doc"] = e.doc;
      d["alias_of"] = e.alias_of;
      out.append(d);
    }
    return out;
  });
  m.def("methods_text", [](const std::string& type) {
    for (const lievi::run::ModelType& t : lievi::run::model_registry())
      if (t.name == type) return t.methods_text();
    throw lievi::invalid_argument("", "model.type", "unknown model type '" + type + "'");
  });
}
