"""lievi from Python: structure-preserving simulation with variational integrators on Lie groups.

Scenarios are the TOML files of the command line, or the same tables as a dict::

    import lievi
    sc = lievi.load("examples/rigid_body/scenario_a.toml", set={"integrator.dt": 0.05})
    sc.validate()
    r = lievi.run(sc)              # in memory: nothing is left on disk
    r.series["energy"]             # numpy array, one entry per output row
    r.summary["status"]            # summary.json as a dict
    lievi.run(sc, out="runs/a")    # also writes exactly the files `lievi run` writes

    lievi.Scenario({"model": {"type": "rigid_body", ...}, "integrator": {...}})

A bad scenario raises :class:`InputError` (a ``ValueError``) listing every issue with its key, value and what
is allowed; a run that fails numerically raises :class:`NumericalFailure` with the step, node and hint, and
the outputs up to the last good state (``failure.result``). See docs/python.md.
"""
from __future__ import annotations

import csv
import json
import math
import os
import shutil
import tempfile
import tomllib
from typing import Any, Iterable, Mapping

import numpy as np

from . import _lievi
from ._lievi import InputError

__version__ = _lievi.__version__

__all__ = [
    "InputError",
    "Lagrangian",
    "NumericalFailure",
    "Result",
    "Scenario",
    "Simulation",
    "load",
    "merge",
    "methods",
    "model_types",
    "resume",
    "run",
    "run_paths",
    "EnsembleStats",
    "schema",
]


class NumericalFailure(RuntimeError):
    """A run stopped by a numerical failure (a Newton solve that did not converge, a non-finite state).

    Attributes: ``step`` (the failed step, 1-based), ``t`` (time of the last good state), ``node`` (-1 when the
    model has no nodes), ``residual``, ``message``, ``hint`` (what to change) and ``result`` (a :class:`Result`
    with the outputs up to the last good state).
    """

    @classmethod
    def refused(cls, steps: int) -> "NumericalFailure":
        """The error of a simulation asked to step after it failed (in step ``steps + 1``)."""
        return cls({"step": steps + 1, "t": float("nan"), "node": -1, "residual": float("nan"),
                    "message": "the simulation failed in this step before and cannot step on",
                    "hint": "start a new lievi.Simulation (with a smaller integrator.dt)"}, None)

    def __init__(self, failure: Mapping[str, Any], result: "Result | None"):
        self.step = int(failure["step"])
        self.t = float(failure["t"])
        self.node = int(failure["node"])
        self.residual = float(failure["residual"])
        self.message = str(failure["message"])
        self.hint = str(failure["hint"])
        self.result = result
        super().__init__(
            f"numerical failure in step {self.step} (from t = {self.t:g}): {self.message} "
            f"(residual {self.residual:g}); {self.hint}"
        )


def _toml_value(v: Any) -> str:
    """A Python value as TOML text (strings quoted, full float precision)."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, np.integer)):
        return str(int(v))
    if isinstance(v, (float, np.floating)):
        x = float(v)
        if math.isnan(x):
            return "nan"
        if math.isinf(x):
            return "inf" if x > 0 else "-inf"
        return repr(x)
    if isinstance(v, str):
        return json.dumps(v)  # a TOML basic string: quotes, backslashes and controls escaped
    if isinstance(v, np.ndarray):
        return _toml_value(v.tolist())
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(_toml_value(x) for x in v) + "]"
    if isinstance(v, Mapping):
        return "{" + ", ".join(f"{_toml_key(k)} = {_toml_value(x)}" for k, x in v.items()) + "}"
    raise InputError(f"<dict>: value {v!r} of type {type(v).__name__} is not a TOML value "
                     "(allowed: bool, int, float, str, lists of them, dicts)")


def _toml_key(k: Any) -> str:
    if not isinstance(k, str):
        raise InputError(f"<dict>: key {k!r} is not a string")
    bare = k and all(c.isalnum() or c in "-_" for c in k) and k.isascii()
    return k if bare else json.dumps(k)


def _to_toml(d: Mapping[str, Any], prefix: str = "") -> str:
    """A dict of tables (and arrays of tables: lists of dicts) as TOML text."""
    lines, tables = [], []
    for k, v in d.items():
        if isinstance(v, Mapping):
            tables.append((k, v))
        elif isinstance(v, (list, tuple)) and v and all(isinstance(x, Mapping) for x in v):
            tables.append((k, list(v)))
        else:
            lines.append(f"{_toml_key(k)} = {_toml_value(v)}")
    out = "\n".join(lines) + ("\n" if lines else "")
    for k, v in tables:
        name = prefix + _toml_key(k)
        if isinstance(v, list):
            for item in v:
                out += f"\n[[{name}]]\n" + _to_toml(item, name + ".")
        else:
            out += f"\n[{name}]\n" + _to_toml(v, name + ".")
    return out


def _overrides(set: Mapping[str, Any] | None) -> list[str]:
    """``{"integrator.dt": 0.01}`` as the command line's ``--set integrator.dt=0.01`` texts."""
    if not set:
        return []
    out = []
    for k, v in set.items():
        text = v if isinstance(v, str) else _toml_value(v)
        out.append(f"{k}={text}")
    return out


class Scenario:
    """A scenario: read from a TOML file (:func:`load`), a TOML text, or a dict with the same tables.

    ``Scenario(dict)`` applies the same keys, defaults, checks and messages as the file; ``name`` names its
    default output folder and its plots. Relative paths in a dict scenario (``initial.file``, pose tables) are
    taken from the current directory.
    """

    def __init__(self, tables: Mapping[str, Any] | str, *, name: str = "scenario",
                 set: Mapping[str, Any] | None = None, _compiled: Any = None):
        if _compiled is not None:
            self._s, self._origin = _compiled
            return
        if isinstance(tables, str):
            text, label = tables, "<text>"
        elif isinstance(tables, Mapping):
            text, label = _to_toml(tables), "<dict>"
        else:
            raise InputError(f"lievi.Scenario: expected a dict of tables or a TOML text, got {type(tables).__name__}")
        self._s = _lievi.parse(text, label, name, _overrides(set))
        self._origin = ("text", text, label, name, dict(set or {}))

    def with_set(self, set: Mapping[str, Any]) -> "Scenario":
        """The same scenario with more keys overridden (as further ``--set``; later values win)."""
        kind, *rest = self._origin
        if kind == "file":
            path, sets = rest
            return load(path, set={**sets, **set})
        text, label, name, sets = rest
        return Scenario(text, name=name, set={**sets, **set})

    @property
    def name(self) -> str:
        """The scenario's name (a file's stem)."""
        return self._s.name

    @property
    def model_type(self) -> str:
        """``model.type``: rigid_body, wave, beam, lagrangian, kirchhoff, lie_group or string."""
        return self._s.model_type

    @property
    def source(self) -> str:
        """The file it was read from, or ``<dict>`` / ``<text>``."""
        return self._s.source

    def validate(self) -> "Scenario":
        """The checks ``lievi validate`` and ``lievi run`` make before a run (stability bounds, a method's
        conditions); raises :class:`InputError`. Returns the scenario."""
        self._s.check()
        return self

    def resolved(self) -> dict:
        """Every key with its value after defaults and derived values, as ``lievi validate`` prints it."""
        return tomllib.loads(self._s.resolved_toml())

    def resolved_toml(self) -> str:
        """:meth:`resolved` as TOML text."""
        return self._s.resolved_toml()

    def __repr__(self) -> str:
        return f"lievi.Scenario(name={self.name!r}, model_type={self.model_type!r}, source={self.source!r})"


def load(path: str | os.PathLike, set: Mapping[str, Any] | None = None) -> Scenario:
    """Read a scenario file; ``set`` overrides keys as ``lievi run --set key=value`` does."""
    return Scenario({}, _compiled=(_lievi.load(os.fspath(path), _overrides(set)),
                                   ("file", os.fspath(path), dict(set or {}))))


class Result:
    """The outputs of a run: ``series`` (column name -> numpy array, one entry per output row, the numbers of
    series.csv), ``summary`` (summary.json as a dict), ``fields`` (fields.h5's datasets as numpy arrays, when
    written and h5py is present), ``notes`` and ``out`` (the output folder, or None for an in-memory run). An
    ensemble (``paths``) has ``mean`` and ``std`` instead of ``series`` (series_mean.csv, series_std.csv)."""

    def __init__(self, series: dict, summary: dict, fields: dict, notes: list, out: str | None,
                 mean: dict | None = None, std: dict | None = None, paths: dict | None = None):
        self.mean = mean or {}
        self.std = std or {}
        self.paths = paths or {}  # path index -> its series (ensembles with per-path output)
        self.quantiles: dict = {}
        self.series = series
        self.summary = summary
        self.fields = fields
        self.notes = notes
        self.out = out

    @property
    def columns(self) -> list[str]:
        return list(self.series or self.mean)

    def __repr__(self) -> str:
        cols = self.series or self.mean
        rows = len(next(iter(cols.values()))) if cols else 0
        return f"lievi.Result(status={self.summary.get('status')!r}, rows={rows}, columns={len(self.series)})"


def _read_series(path: str) -> dict:
    if not os.path.exists(path):
        return {}
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    if not rows:
        return {}
    names, body = rows[0], rows[1:]
    # float() of the shortest round-trip text gives back the double lievi wrote
    data = np.array([[float(x) for x in r] for r in body], dtype=float).reshape(len(body), len(names))
    return {n: data[:, i].copy() for i, n in enumerate(names)}


def _read_paths(folder: str) -> dict:
    out = {}
    for name in os.listdir(folder) if os.path.isdir(folder) else []:
        if name.startswith("series_path") and name.endswith(".csv"):
            out[int(name[len("series_path"):-4])] = _read_series(os.path.join(folder, name))
    return dict(sorted(out.items()))


def _read_fields(path: str) -> dict:
    if not os.path.exists(path):
        return {}
    try:
        import h5py
    except ImportError:
        return {}
    out = {}
    with h5py.File(path, "r") as f:
        f.visititems(lambda name, obj: out.__setitem__(name, obj[()]) if isinstance(obj, h5py.Dataset) else None)
    return out


def _read_quantiles(folder: str) -> dict:
    out = {}
    for name in os.listdir(folder) if os.path.isdir(folder) else []:
        if name.startswith("series_q") and name.endswith(".csv"):
            out[float(name[len("series_q"):-4])] = _read_series(os.path.join(folder, name))
    return dict(sorted(out.items()))


def _result_from(folder: str, outcome: dict, keep: bool) -> Result:
    with open(os.path.join(folder, "summary.json")) as f:
        summary = json.load(f)
    r = Result(_read_series(os.path.join(folder, "series.csv")), summary,
               _read_fields(os.path.join(folder, "fields.h5")), list(outcome["notes"]),
               folder if keep else None, _read_series(os.path.join(folder, "series_mean.csv")),
               _read_series(os.path.join(folder, "series_std.csv")), _read_paths(folder))
    r.quantiles = _read_quantiles(folder)  # output.quantiles: series_q<q>.csv
    return r


def _stop_at(stop_at, where: str) -> int:
    if stop_at is None:
        return 0
    if isinstance(stop_at, bool) or not isinstance(stop_at, (int, np.integer)) or stop_at < 1:
        raise InputError(f"{where}: stop_at = {stop_at!r} not allowed: a step number >= 1 (for an ensemble, "
                         "a number of paths)")
    return int(stop_at)


def run(scenario: Scenario, out: str | os.PathLike | None = None, *, force: bool = False,
        paths: int = 0, stop_at: int | None = None, path_range: tuple[int, int] | None = None) -> Result | None:
    """Run a scenario as ``lievi run`` does.

    ``out=None``: in memory (the outputs are read back from a temporary folder, which is then removed).
    ``out=DIR``: the folder keeps exactly the files ``lievi run --out DIR`` writes (``force=True`` replaces a
    folder lievi wrote before). ``paths=N`` runs an ensemble of N noise paths (as ``--paths N``). The GIL is
    released while the run steps. Raises :class:`InputError` for bad input, :class:`NumericalFailure` when the
    run fails (its ``result`` holds the outputs up to the last good state).

    A scenario with ``output.checkpoint_every`` or ``output.checkpoint_wall`` writes ``checkpoint.h5`` into
    ``out`` (the folder is then written in place); ``stop_at=k`` (with ``out``) writes a checkpoint at step k
    and stops there, returning None: :func:`resume` continues it. An ensemble is checkpointed between its
    paths: there ``stop_at=k`` stops after k paths.

    ``path_range=(a, b)`` with ``paths=N`` runs only the ensemble's paths a ... b - 1 (as ``--path-range a:b``):
    a slice, whose folder :func:`merge` combines with the other slices into the whole ensemble's outputs.
    """
    if not isinstance(scenario, Scenario):
        raise InputError(f"lievi.run: expected a lievi.Scenario, got {type(scenario).__name__}")
    if isinstance(paths, bool) or not isinstance(paths, (int, np.integer)) or paths < 0:
        raise InputError(f"lievi.run: paths = {paths!r} not allowed: the number of noise paths is an integer >= 0")
    stop = _stop_at(stop_at, "lievi.run")
    begin, end = 0, 0
    if path_range is not None:
        ok = (isinstance(path_range, (tuple, list)) and len(path_range) == 2
              and all(isinstance(x, (int, np.integer)) and not isinstance(x, bool) for x in path_range))
        if not ok:
            raise InputError(f"lievi.run: path_range = {path_range!r} not allowed: a pair (a, b) of integers")
        begin, end = int(path_range[0]), int(path_range[1])
        if out is None:
            raise InputError("lievi.run: path_range needs out= (the slice's folder, for lievi.merge)")
    if stop and out is None:
        raise InputError("lievi.run: stop_at needs out= (the folder to resume from)")
    tmp = None
    if out is None:
        tmp = tempfile.mkdtemp(prefix="lievi-")
        folder = os.path.join(tmp, "run")
    else:
        folder = os.fspath(out)
    try:
        outcome = _lievi.run(scenario._s, int(paths), folder, bool(force), stop, begin, end)
        if outcome["stopped"]:
            return None
        result = _result_from(outcome["out_dir"] or folder, outcome, keep=tmp is None)
    finally:
        if tmp is not None:
            shutil.rmtree(tmp, ignore_errors=True)
    if not outcome["complete"]:
        raise NumericalFailure(outcome["failure"], result)
    return result


def resume(out: str | os.PathLike, set: Mapping[str, Any] | None = None, *,
           stop_at: int | None = None) -> Result | None:
    """Continue a run from the checkpoint in its folder, as ``lievi resume DIR`` does: the outputs are then
    those of the uninterrupted run, bit for bit. ``set={"integrator.t_end": T}`` extends it (any other key
    that differs from the checkpoint's scenario is refused; an ensemble cannot be extended); ``stop_at=k``
    stops again at step k, or after k paths of an ensemble (returns None). Raises :class:`InputError` for a folder, checkpoint or key it cannot resume, :class:`NumericalFailure`
    as :func:`run`."""
    folder = os.fspath(out)
    outcome = _lievi.resume(folder, _overrides(set), _stop_at(stop_at, "lievi.resume"))
    if outcome["stopped"]:
        return None
    result = _result_from(outcome["out_dir"] or folder, outcome, keep=True)
    if not outcome["complete"]:
        raise NumericalFailure(outcome["failure"], result)
    return result


def merge(slices: Iterable[str | os.PathLike], out: str | os.PathLike, *, force: bool = False) -> Result:
    """Combine the folders of an ensemble's slices (``run(..., paths=N, path_range=(a, b))`` or ``lievi run
    --path-range``), in any order, into ``out``: the outputs of the whole ensemble, bit for bit, as ``lievi
    merge`` does. Raises :class:`InputError` for slices of different scenarios or ensembles, overlapping or
    missing paths, a failed or unfinished slice."""
    dirs = [os.fspath(d) for d in slices]
    folder = os.fspath(out)
    outcome = _lievi.merge(dirs, folder, bool(force))
    return _result_from(outcome["out_dir"] or folder, outcome, keep=True)


class Simulation:
    """A beam, a wave field, a rigid body or a catalogue Lagrangian system stepped from Python: the state
    ``lievi run`` would compute for the scenario, level by level, bit for bit. A wave: ``phi`` (nodes,) and
    ``velocities``. A rigid body: ``M`` (3,), ``R`` (3, 3), ``energies()`` = {energy, casimir}. A Lagrangian
    system (``model.type = "lagrangian"``): ``q``, ``p`` (the discrete momentum) and ``v``, each (n,);
    Kirchhoff's body (``model.type = "kirchhoff"``): ``Pi``, ``P`` (3,), ``R`` (3, 3), ``position`` (3,),
    ``energies()`` = {energy, casimir_P2, casimir_PPi, energy_above_min, distance_min, equilibrium_residual};
    ``energies()`` = {energy, and momentum (Kepler, spherical pendulum) and constraint (spherical pendulum; the
    nonholonomic systems: the step's discrete constraint)}.
    A Lie-group system (``model.type = "lie_group"``): ``R`` (3, 3), ``Pi`` (3,), ``Gamma`` (3,), ``energies()`` =
    {energy, the Casimirs and Noether momenta as series.csv names them, orth_err}.
    For these a failed step leaves the last good state. A beam: the arrays below.

    ``sim.step(n)`` takes n steps (the GIL released); ``sim.t``, ``sim.steps``, ``sim.dt``. The state as numpy
    arrays: ``positions`` (nodes, 3), ``frames`` (nodes, 3, 3; columns d1, d2, d3, body to spatial),
    ``velocities`` (nodes, 6: zeta^{n-1/2} = (omega, v) in the body frame, angular first), ``strains``
    (segments, 6: gamma = (kappa, Gamma)), ``pre_momenta`` (nodes, 6). They are read-only views of lievi's own
    memory, without copies: a view shows the current state, so a view taken before ``step()`` shows the new
    state after it (``.copy()`` keeps a level); a view keeps the simulation's memory alive. ``energies()``: the
    level's E_d, E_c, kinetic energies and potential (strain energy plus gravity), as series.csv has them.

    A step that fails raises :class:`NumericalFailure` (step, node, hint; ``result`` is None). A beam or wave
    simulation then holds the failed step's partly updated state, a rigid body or Lagrangian system its last
    good one; either refuses to step on (``failed`` is True).
    ``loads={node: wrench or (wrench, frame)}`` puts point wrenches (torque, force; frame "spatial", a dead
    load, or "body", a follower load) on those nodes from level 0 on, on top of the scenario's loads;
    ``set_load()`` changes them between steps (the batched sweeps leave loaded nodes to the per-node code:
    name only the ones needed). ``set_end_pose()`` drives a prescribed end.
    """

    def __init__(self, scenario: Scenario, loads: Mapping[int, Any] | None = None):
        if not isinstance(scenario, Scenario):
            raise InputError(f"lievi.Simulation: expected a lievi.Scenario, got {type(scenario).__name__}")
        entries = []
        for j, spec in (loads or {}).items():
            if isinstance(j, bool) or not isinstance(j, (int, np.integer)):
                raise InputError(f"lievi.Simulation: loads key {j!r} is not a node index (an integer)")
            wrench, frame = (spec, "spatial") if not isinstance(spec, tuple) else spec
            w = self._wrench(wrench)
            entries.append((int(j), [float(x) for x in w], self._frame_is_body(frame)))
        if scenario.model_type == "string":
            raise InputError("lievi.Simulation: model.type = \"string\" is run whole by lievi.run (its event-driven "
                             "AVI has no step-by-step interface)")
        if scenario.model_type in ("wave", "rigid_body", "lagrangian", "kirchhoff", "lie_group"):
            if entries:
                raise InputError("lievi.Simulation: loads are for beams")
            cls = {"wave": _lievi._WaveSimulation, "rigid_body": _lievi._RigidBodySimulation,
                   "lagrangian": _lievi._MechanicsSimulation,
                   "kirchhoff": _lievi._KirchhoffSimulation,
                   "lie_group": _lievi._LieGroupSimulation}[scenario.model_type]
            self._b = cls(scenario._s)
        else:
            self._b = _lievi._BeamSimulation(scenario._s, entries)
        self.scenario = scenario

    @staticmethod
    def _frame_is_body(frame: str) -> bool:
        if frame not in ("spatial", "body"):
            raise InputError(f"lievi.Simulation: load frame {frame!r} not allowed (spatial, body)")
        return frame == "body"

    @staticmethod
    def _wrench(wrench) -> np.ndarray:
        try:
            w = np.asarray(wrench, dtype=float)
        except (TypeError, ValueError) as e:
            raise InputError(f"lievi.Simulation: a wrench must be 6 numbers (torque, force): {e}") from None
        if w.shape != (6,):
            raise InputError(f"lievi.Simulation: a wrench must have shape (6,) (torque, force), not {w.shape}")
        if not np.isfinite(w).all():
            raise InputError("lievi.Simulation: a wrench must be finite")
        return w

    def step(self, n: int = 1) -> "Simulation":
        """Take n steps (default 1). Returns the simulation."""
        if isinstance(n, bool) or not isinstance(n, (int, np.integer)):
            raise InputError(f"lievi.Simulation.step: n = {n!r} must be an integer >= 0")
        if self._b.failed:
            raise NumericalFailure.refused(self._b.steps)
        failure = self._b.step(int(n))
        if failure is not None:
            raise NumericalFailure(failure, None)
        return self

    def set_noise(self, scale: float = 1.0) -> "Simulation":
        """Scale the noise from the next step on: 0 switches it off, 1 is the scenario's, any factor >= 0 scales
        the same Wiener increments (beam and wave simulations). Raises :class:`InputError` otherwise."""
        if self.scenario.model_type not in ("beam", "wave"):
            raise InputError("lievi.Simulation.set_noise: noise is for beams and the wave equation")
        if isinstance(scale, bool) or not isinstance(scale, (int, float, np.integer, np.floating)):
            raise InputError(f"lievi.Simulation.set_noise: scale {scale!r} must be a number >= 0")
        self._b.set_noise_scale(float(scale))
        return self

    def set_end_pose(self, end: str, position, quaternion=(1.0, 0.0, 0.0, 0.0)) -> "Simulation":
        """Drive a prescribed end (``"left"`` or ``"right"``; its ``bc.left``/``bc.right`` must be
        ``"prescribed"``): from the next step on the end takes this pose — ``position`` (3,) and the unit
        quaternion ``(w, x, y, z)`` of its frame, as in the pose tables — at every level until set again,
        instead of its pose table's. Raises :class:`InputError` for another end, a wrong shape, a non-finite
        value or a quaternion that is not unit (to 1e-6)."""
        if self.scenario.model_type != "beam":
            raise InputError("lievi.Simulation.set_end_pose: prescribed ends are for beams")
        ends = {"left": 0, "right": 1}
        if end not in ends:
            raise InputError(f"lievi.Simulation.set_end_pose: end {end!r} not allowed (left, right)")
        try:
            p = np.asarray(position, dtype=float)
            q = np.asarray(quaternion, dtype=float)
        except (TypeError, ValueError) as e:
            raise InputError(f"lievi.Simulation.set_end_pose: position and quaternion must be numbers: {e}") from None
        self._b.set_end_pose(ends[end], p, q)
        return self

    def set_load(self, node: int, wrench, frame: str = "spatial") -> "Simulation":
        """Put a point wrench ``(torque, force)`` (6,) on a node of ``loads`` (named when the simulation was
        made), from the next step on until set again, on top of the scenario's loads. ``frame="spatial"``: a dead
        load (fixed directions, torque about the node), as a ``[[loads]]`` table's; ``"body"``: a follower load
        in the node's frame. Raises :class:`InputError` for another node, frame, shape or a non-finite value."""
        if self.scenario.model_type != "beam":
            raise InputError("lievi.Simulation.set_load: point loads are for beams")
        body = self._frame_is_body(frame)
        if isinstance(node, bool) or not isinstance(node, (int, np.integer)):
            raise InputError(f"lievi.Simulation.set_load: node {node!r} is not a node index (an integer)")
        self._b.set_load(int(node), self._wrench(wrench), body)
        return self

    @property
    def t(self) -> float:
        return self._b.t

    @property
    def steps(self) -> int:
        return self._b.steps

    @property
    def dt(self) -> float:
        return self._b.dt

    @property
    def failed(self) -> bool:
        return self._b.failed

    def _state(self, name: str) -> np.ndarray:
        try:
            return getattr(self._b, name)
        except AttributeError:
            raise AttributeError(f"a {self.scenario.model_type} simulation has no {name}") from None

    @property
    def M(self) -> np.ndarray:
        """Rigid body: the body momentum M (3,)."""
        return self._state("M")

    @property
    def R(self) -> np.ndarray:
        """Rigid body, Kirchhoff's body: the attitude R (3, 3), body to spatial."""
        return self._state("R")

    @property
    def Pi(self) -> np.ndarray:
        """Kirchhoff's body: the impulse moment Pi (3,), body frame; Lie-group system: the body momentum Pi_k."""
        return self._state("Pi")

    @property
    def Gamma(self) -> np.ndarray:
        """Lie-group heavy top or 3D pendulum: Gamma = R^T e3 (3,) (del-reduced: the advected Gamma)."""
        return self._state("Gamma")

    @property
    def P(self) -> np.ndarray:
        """Kirchhoff's body: the impulse P (3,), body frame."""
        return self._state("P")

    @property
    def position(self) -> np.ndarray:
        """Kirchhoff's body: the position x (3,) of its origin, spatial frame."""
        return self._state("position")

    @property
    def q(self) -> np.ndarray:
        """Lagrangian system: the configuration q_k (n,)."""
        return self._state("q")

    @property
    def p(self) -> np.ndarray:
        """Lagrangian system: the discrete momentum p_k (n,) (the discrete Legendre transform)."""
        return self._state("p")

    @property
    def v(self) -> np.ndarray:
        """Lagrangian system: the velocity v_k (n,) of the inverse Legendre transform, as series.csv has it."""
        return self._state("v")

    @property
    def phi(self) -> np.ndarray:
        """Wave: the field phi^n at the nodes (nodes,)."""
        return self._state("phi")

    @property
    def positions(self) -> np.ndarray:
        return self._state("positions")

    @property
    def frames(self) -> np.ndarray:
        return self._state("frames")

    @property
    def velocities(self) -> np.ndarray:
        return self._b.velocities

    @property
    def strains(self) -> np.ndarray:
        return self._state("strains")

    @property
    def pre_momenta(self) -> np.ndarray:
        return self._state("pre_momenta")

    def energies(self) -> dict:
        return dict(self._b.energies())

    def __repr__(self) -> str:
        return f"lievi.Simulation({self.scenario.name!r}, {self.scenario.model_type}, t={self.t:g}, steps={self.steps})"


class Lagrangian:
    """A Lagrangian system on R^n (n = 1 ... 6) given in Python, integrated by lievi's discrete Euler-Lagrange
    methods (midpoint, trapezoid, Lobatto IIIA-IIIB; docs/theory/discrete-mechanics.md) with its derivatives
    called back into Python at every evaluation: slower than the C++ catalogue (docs/python.md gives the cost).

    From SymPy (Debian python3-sympy)::

        import sympy as sp
        q1, q2, v1, v2 = sp.symbols("q1 q2 v1 v2")
        kepler = lievi.Lagrangian([q1, q2], [v1, v2], L=(v1**2 + v2**2) / 2 + 1 / sp.sqrt(q1**2 + q2**2))

    ``L`` is the Lagrangian in the position symbols ``q`` and velocity symbols ``v``; ``V`` an optional potential
    (the total Lagrangian is L - V); ``force`` an optional list of n expressions in q, v and the symbol ``t``
    (a non-conservative generalised force, Lagrange-d'Alembert); ``constraints`` an optional list of c
    expressions g(q) = 0 (holonomic; 1 <= c < n <= 4), integrated with RATTLE (or SHAKE, ``projection``) on the
    midpoint or trapezoid discrete Lagrangian, the start projected onto the constraints. Their first and second derivatives are taken
    symbolically and turned into callables (``sympy.lambdify`` on ``math``).

    Or supply the derivatives: ``Lagrangian.from_callables(n, derivatives, force=None)`` with
    ``derivatives(q, v) -> (L, Lq, Lv, Lqq, Lqv, Lvv)`` (Lqv[i, j] = d2L/dq_i dv_j) and
    ``force(q, v, t) -> (f, fq, fv)``.
    """

    def __init__(self, q, v, L, V=None, force=None, t=None, constraints=None):
        import sympy as sp

        q, v = list(q), list(v)
        n = len(q)
        if n < 1 or len(v) != n or n > _lievi.max_user_dim:
            raise InputError(f"lievi.Lagrangian: q and v must be 1 ... {_lievi.max_user_dim} symbols each, "
                             f"the same number (got {len(q)} and {len(v)})")
        total = sp.sympify(L) - (sp.sympify(V) if V is not None else 0)
        t = t if t is not None else sp.Symbol("t")
        Lq = [sp.diff(total, a) for a in q]
        Lv = [sp.diff(total, a) for a in v]
        Lqq = [[sp.diff(d, b) for b in q] for d in Lq]
        Lqv = [[sp.diff(d, b) for b in v] for d in Lq]
        Lvv = [[sp.diff(d, b) for b in v] for d in Lv]
        f = sp.lambdify((q, v), [total, Lq, Lv, Lqq, Lqv, Lvv], modules="math")
        self._derivatives = lambda qq, vv: tuple(f(qq, vv))
        self._force = None
        if force is not None:
            force = [sp.sympify(e) for e in force]
            if len(force) != n:
                raise InputError(f"lievi.Lagrangian: force must have {n} components, not {len(force)}")
            fq = [[sp.diff(e, b) for b in q] for e in force]
            fv = [[sp.diff(e, b) for b in v] for e in force]
            g = sp.lambdify((q, v, t), [force, fq, fv], modules="math")
            self._force = lambda qq, vv, tt: tuple(g(qq, vv, tt))
        self._constraints, self.n_constraints = None, 0
        if constraints is not None:
            gs = [sp.sympify(e) for e in constraints]
            if not 1 <= len(gs) < n or n > _lievi.max_constrained_dim:
                raise InputError(f"lievi.Lagrangian: {len(gs)} constraints on {n} coordinates not available "
                                 f"(1 <= constraints < coordinates <= {_lievi.max_constrained_dim})")
            G = [[sp.diff(e, b) for b in q] for e in gs]
            h = sp.lambdify((q,), [gs, G], modules="math")
            self._constraints = lambda qq: tuple(h(qq))
            self.n_constraints = len(gs)
        self.dim = n
        self.expression = total

    @classmethod
    def from_callables(cls, n: int, derivatives, force=None) -> "Lagrangian":
        """A Lagrangian given by its derivatives: ``derivatives(q, v) -> (L, Lq, Lv, Lqq, Lqv, Lvv)`` of the total
        Lagrangian, ``force(q, v, t) -> (f, fq, fv)`` (optional)."""
        if not isinstance(n, (int, np.integer)) or not 1 <= n <= _lievi.max_user_dim:
            raise InputError(f"lievi.Lagrangian.from_callables: n = {n!r} must be 1 ... {_lievi.max_user_dim}")
        self = cls.__new__(cls)
        self._derivatives, self._force, self.dim, self.expression = derivatives, force, int(n), None
        self._constraints, self.n_constraints = None, 0
        return self

    def integrate(self, q0, v0, h: float, steps: int, *, method: str = "midpoint", every: int = 1,
                  t0: float = 0.0, max_iterations: int = 50, newton_tol: float = 1e-13,
                  projection: str = "rattle", drift_tol: float = 1e-10) -> dict:
        """``steps`` steps of size ``h`` from positions ``q0`` and velocities ``v0`` (p0 = dL/dv there).
        Returns a dict of numpy arrays, one row per ``every`` steps and the last: ``t``, ``q``, ``p`` (discrete
        momenta), ``v`` (velocities from p by the inverse Legendre transform), ``energy`` (E = Lv.v - L),
        ``newton`` (the most Newton iterations since the last row). A failed step raises
        :class:`NumericalFailure` whose ``result`` holds the rows before it."""
        q0 = np.asarray(q0, dtype=float).ravel()
        v0 = np.asarray(v0, dtype=float).ravel()
        if q0.shape != (self.dim,) or v0.shape != (self.dim,):
            raise InputError(f"lievi.Lagrangian.integrate: q0 and v0 must have {self.dim} entries")
        if not (np.isfinite(q0).all() and np.isfinite(v0).all()):
            raise InputError("lievi.Lagrangian.integrate: q0 and v0 must be finite")
        if isinstance(steps, bool) or not isinstance(steps, (int, np.integer)) or steps < 0:
            raise InputError(f"lievi.Lagrangian.integrate: steps = {steps!r} must be an integer >= 0")
        if not (isinstance(h, (int, float, np.floating)) and math.isfinite(h) and h > 0):
            raise InputError(f"lievi.Lagrangian.integrate: h = {h!r} must be a finite number > 0")
        if self._constraints is not None:
            if projection not in ("rattle", "shake"):
                raise InputError(f"lievi.Lagrangian.integrate: projection {projection!r} not allowed (rattle, shake)")
            out = _lievi.integrate_user_constrained(
                self._derivatives, self._force, self._constraints, self.n_constraints, q0.tolist(), v0.tolist(),
                float(t0), float(h), int(steps), int(every), method, int(max_iterations), float(newton_tol),
                projection == "rattle", float(drift_tol))
        else:
            out = _lievi.integrate_user(self._derivatives, self._force, q0.tolist(), v0.tolist(), float(t0),
                                        float(h), int(steps), int(every), method, int(max_iterations),
                                        float(newton_tol))
        failure = out.pop("failure")
        if failure is not None:
            raise NumericalFailure(failure, out)
        return out


class EnsembleStats:
    """Mean and sample standard deviation of series added path by path, with the arithmetic of lievi's
    ensembles (Welford's update in the order the paths are added: n += 1; d = x - mean; mean += d / n;
    M2 += d (x - mean); std = sqrt(M2 / (n - 1))), so that shards of an ensemble run anywhere and merged here
    in path order give the bits of one ``run_paths`` over all the paths. ``t`` is taken from the first path."""

    def __init__(self):
        self.n = 0
        self._mean: dict = {}
        self._m2: dict = {}

    def add(self, series: Mapping[str, np.ndarray]) -> "EnsembleStats":
        self.n += 1
        for col, x in series.items():
            x = np.asarray(x, dtype=float)
            if self.n == 1:
                self._mean[col] = x.copy()
                self._m2[col] = np.zeros_like(x)
                continue
            if col == "t":
                continue
            m = self._mean[col]
            d = x - m
            m += d / self.n  # elementwise: the same IEEE operations as the C++ loop
            self._m2[col] += d * (x - m)
        return self

    @property
    def mean(self) -> dict:
        return {c: m.copy() for c, m in self._mean.items()}

    @property
    def std(self) -> dict:
        out = {}
        for c, m2 in self._m2.items():
            out[c] = self._mean[c].copy() if c == "t" else (np.sqrt(m2 / (self.n - 1)) if self.n > 1 else np.zeros_like(m2))
        return out


def run_paths(scenario: Scenario, paths: "int | range", *, threads: int | None = None, per_path: bool = False,
              quantiles: Iterable[float] = ()) -> Result:
    """An ensemble of noise paths, as ``lievi run --paths``: ``paths`` is a count N (paths noise.path ...
    noise.path + N - 1) or a ``range(a, b)`` of path indices (step 1). The result's ``mean`` and ``std`` are the
    command line's series_mean/std (bit for bit); with ``per_path=True`` (or quantiles) ``paths`` maps each path
    index to its series (each equal to the single run of that path); ``quantiles`` (numbers in [0, 1]) adds
    ``result.quantiles[q][column]`` across the paths. ``threads``: OpenMP threads for this run (the numbers do
    not depend on it)."""
    if isinstance(paths, range):
        if paths.step != 1 or len(paths) < 1 or paths.start < 0:
            raise InputError(f"lievi.run_paths: paths = {paths!r} must be a non-empty range of path indices >= 0 with step 1")
        first, count = paths.start, len(paths)
    elif isinstance(paths, (int, np.integer)) and not isinstance(paths, bool) and paths >= 1:
        first, count = None, int(paths)
    else:
        raise InputError(f"lievi.run_paths: paths = {paths!r} must be a count >= 1 or a range of path indices")
    qs = [float(q) for q in quantiles]
    if any(not 0.0 <= q <= 1.0 for q in qs):
        raise InputError(f"lievi.run_paths: quantiles {qs} must lie in [0, 1]")
    sets = {}
    if first is not None:
        sets["noise.path"] = first
    if per_path or qs:
        sets["output.per_path"] = True
    sc = scenario.with_set(sets) if sets else scenario
    previous = None
    if threads is not None:
        if isinstance(threads, bool) or not isinstance(threads, (int, np.integer)) or threads < 1:
            raise InputError(f"lievi.run_paths: threads = {threads!r} must be an integer >= 1")
        previous = _lievi.set_threads(int(threads))
    try:
        r = run(sc, paths=count)
    finally:
        if previous is not None:
            _lievi.set_threads(previous)
    if qs and r.paths:
        cols = list(next(iter(r.paths.values())))
        stack = {c: np.stack([s[c] for s in r.paths.values()]) for c in cols}
        r.quantiles = {q: {c: np.quantile(a, q, axis=0) for c, a in stack.items()} for q in qs}
    if not per_path and qs:
        r.paths = {}
    return r


def model_types() -> list[str]:
    """The model types: rigid_body, wave, beam, lagrangian, kirchhoff, lie_group, string."""
    return list(_lievi.model_types())


def schema(model_type: str) -> list[dict]:
    """The scenario keys of a model type, in documentation order: key, type, requirement, default, unit,
    allowed, doc, alias_of (as ``lievi schema TYPE``)."""
    if model_type not in model_types():
        raise InputError(f"lievi.schema: model type {model_type!r} unknown (allowed: {', '.join(model_types())})")
    return list(_lievi.schema(model_type))


def methods(model_type: str | None = None) -> dict[str, str] | str:
    """The integrators of each model type as ``lievi methods`` lists them (one type: its text)."""
    if model_type is not None:
        return _lievi.methods_text(model_type)
    return {t: _lievi.methods_text(t) for t in model_types()}
