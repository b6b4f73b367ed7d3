/// @file python/module/lievi_module.cpp
/// @brief `lievi._lievi`, the compiled part of the Python package `lievi` (python/lievi/__init__.py): a thin
/// binding of the model layer — reading and checking scenarios (io::load_any_scenario, io::parse_any_scenario,
/// run::model_of(...).check and .resolved_toml), their schemas and methods, and whole runs through the model
/// registry (run::ModelType::run, the pipeline `lievi run` uses, so the files are the CLI's). The GIL is released
/// while a run steps. lievi::invalid_argument becomes lievi.InputError (a ValueError); every other C++ exception
/// becomes a Python exception, never a crash.
#include <omp.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>
#include <pybind11/stl/filesystem.h>

#include <array>
#include <cmath>
#include <string>
#include <tuple>
#include <variant>
#include <vector>

#include "lievi/core/error.hpp"
#include "lievi/io/any_scenario.hpp"
#include "lievi/io/memory_estimate.hpp"
#include "lievi/run/beam_sim.hpp"
#include "lievi/run/kirchhoff_sim.hpp"
#include "lievi/run/lie_group_sim.hpp"
#include "lievi/run/models.hpp"
#include "lievi/run/mechanics_sim.hpp"
#include "lievi/run/rigid_body_sim.hpp"
#include "lievi/run/wave_sim.hpp"
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

py::dict failure_dict(const lievi::run::RunFailure& f) {
  py::dict d;
  d["step"] = f.step;
  d["t"] = f.t;
  d["node"] = f.node;
  d["residual"] = f.residual;
  d["message"] = f.message;
  d["hint"] = f.hint;
  return d;
}

/// A read-only numpy view of lievi's memory at `data` with the given shape and strides (in doubles), kept alive by
/// `owner` (the simulation's Python object).
py::array view(py::handle owner, const double* data, std::vector<py::ssize_t> shape,
               std::vector<py::ssize_t> strides_in_doubles) {
  std::vector<py::ssize_t> strides;
  for (py::ssize_t s : strides_in_doubles) strides.push_back(s * static_cast<py::ssize_t>(sizeof(double)));
  py::array a(py::dtype::of<double>(), shape, strides, data, owner);
  a.attr("flags").attr("writeable") = false;
  return a;
}

/// The members every stepped simulation shares (BeamSimulation, WaveSimulation): step(n) with the GIL released
/// (a failure as a dict, else None), t, steps, dt, failed, n_nodes, energies().
template <class Sim, class Class>
void bind_steps(Class& c) {
  c.def(
       "step",
       [](Sim& s, long long n) -> py::object {
         if (n < 0) throw lievi::invalid_argument("", "n", "value " + std::to_string(n) + " must be >= 0");
         std::optional<lievi::run::RunFailure> f;
         {
           py::gil_scoped_release release;
           f = s.step(n);
         }
         if (f) return failure_dict(*f);
         return py::none();
       },
       py::arg("n"))
      .def_property_readonly("t", &Sim::t)
      .def_property_readonly("steps", &Sim::steps)
      .def_property_readonly("dt", &Sim::dt)
      .def_property_readonly("failed", &Sim::failed);
}
template <class Sim, class Class>
void bind_stepping(Class& c) {
  bind_steps<Sim>(c);
  c.def("set_noise_scale", &Sim::set_noise_scale, py::arg("scale"));
  c.def_property_readonly("n_nodes", &Sim::n_nodes)
      .def("energies", [](Sim& s) {
        const lievi::run::LevelEnergies e = s.energies();
        py::dict d;
        d["E_d"] = e.E_d;
        d["E_c"] = e.E_c;
        d["kinetic_before"] = e.kinetic_before;
        d["kinetic_after"] = e.kinetic_after;
        d["potential"] = e.potential;
        return d;
      });
}

py::dict run_outcome(const lievi::run::RunOutcome& r) {
  py::dict d;
  d["complete"] = r.complete;
  d["stopped"] = r.stopped;
  d["what"] = r.what;
  d["steps"] = r.steps;
  d["rows"] = r.rows;
  d["t_final"] = r.t_final;
  d["total_s"] = r.total_s;
  d["out_dir"] = r.out_dir.string();
  d["notes"] = r.notes;
  if (r.failure) {
    d["failure"] = failure_dict(*r.failure);
  } else {
    d["failure"] = py::none();
  }
  return d;
}

}  // namespace

void bind_user_lagrangian(py::module_& m);  // user_lagrangian.cpp

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
      [](const Scenario& s, long long paths, const std::filesystem::path& out, bool force, long long stop_at,
         long long range_begin, long long range_end) {
        if (paths > 1) lievi::io::check_memory(s.any, paths);
        lievi::run::check_path_range(paths, range_begin, range_end, "path_range");
        lievi::run::check_stop_at(s.any, range_end > 0 ? range_end - range_begin : paths, stop_at, "stop_at");
        lievi::run::RunOptions o;
        o.force = force;
        o.stop_at = stop_at;
        o.range_begin = range_begin;
        o.range_end = range_end;
        o.progress = lievi::run::Progress::never;
        lievi::run::RunOutcome r;
        {
          py::gil_scoped_release release;
          r = lievi::run::model_of(s.any).run(s.any, paths, out, o);
        }
        return run_outcome(r);
      },
      py::arg("scenario"), py::arg("paths"), py::arg("out"), py::arg("force"), py::arg("stop_at"),
      py::arg("range_begin"), py::arg("range_end"));
  m.def(
      "merge",
      [](const std::vector<std::filesystem::path>& dirs, const std::filesystem::path& out, bool force) {
        lievi::run::RunOptions o;
        o.force = force;
        o.progress = lievi::run::Progress::never;
        lievi::run::RunOutcome r;
        {
          py::gil_scoped_release release;
          r = lievi::run::merge_slices(dirs, out, o);
        }
        return run_outcome(r);
      },
      py::arg("dirs"), py::arg("out"), py::arg("force"));
  m.def(
      "resume",
      [](const std::filesystem::path& dir, const std::vector<std::string>& overrides, long long stop_at) {
        lievi::run::RunOptions o;
        o.progress = lievi::run::Progress::never;
        o.stop_at = stop_at;
        lievi::run::RunOutcome r;
        {
          py::gil_scoped_release release;
          r = lievi::run::resume_run(dir, overrides, o);
        }
        return run_outcome(r);
      },
      py::arg("dir"), py::arg("overrides"), py::arg("stop_at"));
  using lievi::run::BeamSimulation;
  py::class_<BeamSimulation> beam_sim(m, "_BeamSimulation");
  bind_stepping<BeamSimulation>(beam_sim);
  beam_sim
      .def(py::init([](const Scenario& s, const std::vector<std::tuple<std::ptrdiff_t, std::array<double, 6>, bool>>& loads) {
             std::vector<BeamSimulation::PointLoad> pl;
             for (const auto& [node, w, body] : loads) pl.push_back({node, w, body});
             const auto* b = std::get_if<lievi::io::BeamScenario>(&s.any);
             if (!b)
               throw lievi::invalid_argument(s.source, "model.type", "not a beam scenario");
             return std::make_unique<BeamSimulation>(*b, pl);
           }),
           py::arg("scenario"), py::arg("loads"))
      .def(
          "set_load",
          [](BeamSimulation& b, std::ptrdiff_t node,
             py::array_t<double, py::array::c_style | py::array::forcecast> wrench, bool body) {
            if (wrench.ndim() != 1 || wrench.shape(0) != 6)
              throw lievi::invalid_argument("", "wrench", "must have shape (6,): torque then force");
            b.set_load(node, wrench.data(), body);
          },
          py::arg("node"), py::arg("wrench"), py::arg("body"))
      .def(
          "set_end_pose",
          [](BeamSimulation& b, int end, py::array_t<double, py::array::c_style | py::array::forcecast> position,
             py::array_t<double, py::array::c_style | py::array::forcecast> quaternion) {
            if (position.ndim() != 1 || position.shape(0) != 3)
              throw lievi::invalid_argument("", "position", "must have shape (3,)");
            if (quaternion.ndim() != 1 || quaternion.shape(0) != 4)
              throw lievi::invalid_argument("", "quaternion", "must have shape (4,): w, x, y, z");
            b.set_end_pose(end, position.data(), quaternion.data());
          },
          py::arg("end"), py::arg("position"), py::arg("quaternion"))
      .def_property_readonly("n_segments", &BeamSimulation::n_segments)
      .def_property_readonly("positions",
                             [](py::object self) {
                               const auto& b = self.cast<const BeamSimulation&>();
                               return view(self, b.poses() + 9, {b.n_nodes(), 3}, {12, 1});
                             })
      .def_property_readonly("frames",
                             [](py::object self) {
                               const auto& b = self.cast<const BeamSimulation&>();
                               return view(self, b.poses(), {b.n_nodes(), 3, 3}, {12, 1, 3});
                             })
      .def_property_readonly("velocities",
                             [](py::object self) {
                               const auto& b = self.cast<const BeamSimulation&>();
                               return view(self, b.velocities(), {b.n_nodes(), 6}, {6, 1});
                             })
      .def_property_readonly("strains",
                             [](py::object self) {
                               const auto& b = self.cast<const BeamSimulation&>();
                               return view(self, b.strains(), {b.n_segments(), 6}, {6, 1});
                             })
      .def_property_readonly("pre_momenta",
                             [](py::object self) {
                               const auto& b = self.cast<const BeamSimulation&>();
                               return view(self, b.pre_momenta(), {b.n_nodes(), 6}, {6, 1});
                             });

  using lievi::run::WaveSimulation;
  py::class_<WaveSimulation> wave_sim(m, "_WaveSimulation");
  bind_stepping<WaveSimulation>(wave_sim);
  wave_sim
      .def(py::init([](const Scenario& s) {
             const auto* w = std::get_if<lievi::io::WaveScenario>(&s.any);
             if (!w) throw lievi::invalid_argument(s.source, "model.type", "not a wave scenario");
             return std::make_unique<WaveSimulation>(*w);
           }),
           py::arg("scenario"))
      .def_property_readonly("phi",
                             [](py::object self) {
                               const auto& w = self.cast<const WaveSimulation&>();
                               return view(self, w.phi(), {w.n_nodes()}, {1});
                             })
      .def_property_readonly("velocities",
                             [](py::object self) {
                               const auto& w = self.cast<const WaveSimulation&>();
                               return view(self, w.velocities(), {w.n_nodes()}, {1});
                             });

  using lievi::run::RigidBodySimulation;
  py::class_<RigidBodySimulation> rb_sim(m, "_RigidBodySimulation");
  bind_steps<RigidBodySimulation>(rb_sim);
  rb_sim
      .def(py::init([](const Scenario& s) {
             const auto* r = std::get_if<lievi::io::RigidBodyScenario>(&s.any);
             if (!r) throw lievi::invalid_argument(s.source, "model.type", "not a rigid-body scenario");
             return std::make_unique<RigidBodySimulation>(*r);
           }),
           py::arg("scenario"))
      .def_property_readonly("M",
                             [](py::object self) {
                               const auto& r = self.cast<const RigidBodySimulation&>();
                               return view(self, r.M(), {3}, {1});
                             })
      .def_property_readonly("R",
                             [](py::object self) {
                               const auto& r = self.cast<const RigidBodySimulation&>();
                               return view(self, r.R(), {3, 3}, {1, 3});
                             })
      .def("energies", [](const RigidBodySimulation& r) {
        py::dict d;
        d["energy"] = r.energy();
        d["casimir"] = r.casimir();
        return d;
      });

  using lievi::run::MechanicsSimulation;
  py::class_<MechanicsSimulation> mech_sim(m, "_MechanicsSimulation");
  bind_steps<MechanicsSimulation>(mech_sim);
  mech_sim
      .def(py::init([](const Scenario& s) {
             const auto* l = std::get_if<lievi::io::MechanicsScenario>(&s.any);
             if (!l) throw lievi::invalid_argument(s.source, "model.type", "not a lagrangian scenario");
             return std::make_unique<MechanicsSimulation>(*l);
           }),
           py::arg("scenario"))
      .def_property_readonly("q",
                             [](py::object self) {
                               const auto& l = self.cast<const MechanicsSimulation&>();
                               return view(self, l.q(), {l.dim()}, {1});
                             })
      .def_property_readonly("p",
                             [](py::object self) {
                               const auto& l = self.cast<const MechanicsSimulation&>();
                               return view(self, l.p(), {l.dim()}, {1});
                             })
      .def_property_readonly("v",
                             [](py::object self) {
                               const auto& l = self.cast<const MechanicsSimulation&>();
                               return view(self, l.v(), {l.dim()}, {1});
                             })
      .def("energies", [](const MechanicsSimulation& l) {
        py::dict d;
        d["energy"] = l.energy();
        if (const double J = l.momentum(); !std::isnan(J)) d["momentum"] = J;
        if (const double g = l.constraint(); !std::isnan(g)) d["constraint"] = g;
        return d;
      });

  using lievi::run::KirchhoffSimulation;
  py::class_<KirchhoffSimulation> kirchhoff_sim(m, "_KirchhoffSimulation");
  bind_steps<KirchhoffSimulation>(kirchhoff_sim);
  kirchhoff_sim
      .def(py::init([](const Scenario& s) {
             const auto* k = std::get_if<lievi::io::KirchhoffScenario>(&s.any);
             if (!k) throw lievi::invalid_argument(s.source, "model.type", "not a kirchhoff scenario");
             return std::make_unique<KirchhoffSimulation>(*k);
           }),
           py::arg("scenario"))
      .def_property_readonly("Pi",
                             [](py::object self) {
                               const auto& k = self.cast<const KirchhoffSimulation&>();
                               return view(self, k.mu(), {3}, {1});
                             })
      .def_property_readonly("P",
                             [](py::object self) {
                               const auto& k = self.cast<const KirchhoffSimulation&>();
                               return view(self, k.mu() + 3, {3}, {1});
                             })
      .def_property_readonly("R",
                             [](py::object self) {
                               const auto& k = self.cast<const KirchhoffSimulation&>();
                               return view(self, k.R(), {3, 3}, {1, 3});
                             })
      .def_property_readonly("position",
                             [](py::object self) {
                               const auto& k = self.cast<const KirchhoffSimulation&>();
                               return view(self, k.x(), {3}, {1});
                             })
      .def("energies", [](const KirchhoffSimulation& k) {
        py::dict d;
        d["energy"] = k.energy();
        d["casimir_P2"] = k.casimir_P2();
        d["casimir_PPi"] = k.casimir_PPi();
        d["energy_above_min"] = k.energy_above_min();
        d["distance_min"] = k.distance_min();
        d["equilibrium_residual"] = k.equilibrium_residual();
        return d;
      });

  using lievi::run::LieGroupSimulation;
  py::class_<LieGroupSimulation> lie_sim(m, "_LieGroupSimulation");
  bind_steps<LieGroupSimulation>(lie_sim);
  lie_sim
      .def(py::init([](const Scenario& s) {
             const auto* l = std::get_if<lievi::io::LieGroupScenario>(&s.any);
             if (!l) throw lievi::invalid_argument(s.source, "model.type", "not a lie_group scenario");
             return std::make_unique<LieGroupSimulation>(*l);
           }),
           py::arg("scenario"))
      .def_property_readonly("R",
                             [](py::object self) {
                               const auto& l = self.cast<const LieGroupSimulation&>();
                               return view(self, l.R(), {3, 3}, {1, 3});
                             })
      .def_property_readonly("Pi",
                             [](py::object self) {
                               const auto& l = self.cast<const LieGroupSimulation&>();
                               return view(self, l.Pi(), {3}, {1});
                             })
      .def_property_readonly("Gamma",
                             [](py::object self) {
                               const auto& l = self.cast<const LieGroupSimulation&>();
                               return view(self, l.Gamma(), {3}, {1});
                             })
      .def_property_readonly("position",
                             [](py::object self) -> py::object {
                               const auto& l = self.cast<const LieGroupSimulation&>();
                               if (!l.position()) throw py::attribute_error("only a floating_body has a position");
                               return view(self, l.position(), {3}, {1});
                             })
      .def_property_readonly("P",
                             [](py::object self) -> py::object {
                               const auto& l = self.cast<const LieGroupSimulation&>();
                               if (!l.P()) throw py::attribute_error("only a floating_body has a linear momentum P");
                               return view(self, l.P(), {3}, {1});
                             })
      .def("energies", [](const LieGroupSimulation& l) {
        py::dict d;
        for (const auto& [name, value] : l.values()) d[py::str(name)] = value;
        return d;
      });

  bind_user_lagrangian(m);
  m.def(
      "set_threads",
      [](int n) {
        const int before = omp_get_max_threads();
        omp_set_num_threads(n);
        return before;
      },
      py::arg("n"), "Set the OpenMP threads of later runs; returns the previous number.");
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
