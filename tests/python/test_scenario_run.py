"""lievi from Python: scenarios (files, overrides, dicts), whole runs against the command line, errors.

The reference is the `lievi` program itself (LIEVI_CLI), run on the same scenario: a Python run must give the
same numbers bit for bit (series and fields), and a dict scenario the same as its TOML twin.
"""
import json
import math
import os
import subprocess
import tomllib

import numpy as np
import pytest

import lievi

SRC = os.environ.get("LIEVI_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", ".."))
CLI = os.environ.get("LIEVI_CLI", "lievi")
EXAMPLES = {
    "rigid_body": os.path.join(SRC, "examples", "rigid_body", "scenario_a.toml"),
    "wave": os.path.join(SRC, "examples", "wave", "independent.toml"),
    "beam": os.path.join(SRC, "examples", "beam", "bending.toml"),
    "lagrangian": os.path.join(SRC, "examples", "mechanics", "kepler.toml"),
    "kirchhoff": os.path.join(SRC, "examples", "kirchhoff", "ellipsoid_screw.toml"),
}
# short runs of each: the files' own settings shortened where they are long
SHORT = {
    "rigid_body": {"integrator.t_end": 5.0},
    "wave": {"integrator.t_end": 0.5, "output.plots": False},
    "beam": {"integrator.t_end": 0.02, "output.plots": False},
    "lagrangian": {"integrator.t_end": 10.0, "output.plots": False},
    "kirchhoff": {"integrator.t_end": 10.0, "output.plots": False},
}


def cli_run(path, out, sets):
    args = [CLI, "run", path, "--out", str(out), "--force"]
    for k, v in sets.items():
        args += ["--set", f"{k}={lievi._toml_value(v) if not isinstance(v, str) else v}"]
    r = subprocess.run(args, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    return out


def read_csv(path):
    with open(path) as f:
        names = f.readline().strip().split(",")
        rows = [[float(x) for x in line.strip().split(",")] for line in f if line.strip()]
    return names, np.array(rows)


def same_bits(a, b):
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    return a.shape == b.shape and np.array_equal(a.view(np.int64), b.view(np.int64))


@pytest.fixture(params=sorted(EXAMPLES))
def example(request):
    path = EXAMPLES[request.param]
    if not os.path.exists(path):
        pytest.skip(f"example {path} not found")
    return request.param, path


def test_run_equals_the_command_line_bitwise(example, tmp_path):
    kind, path = example
    sets = dict(SHORT[kind])
    ref = cli_run(path, tmp_path / "cli", sets)
    names, table = read_csv(ref / "series.csv")
    sc = lievi.load(path, set=sets)
    assert sc.model_type == kind
    r = lievi.run(sc)  # in memory
    assert r.out is None
    assert r.columns == names
    for i, n in enumerate(names):
        assert same_bits(r.series[n], table[:, i]), n
    assert r.summary["status"] == "complete"
    # with out=: the same files as the CLI (summary.json differs only in timings and paths)
    r2 = lievi.run(sc, out=tmp_path / "py")
    assert r2.out == str(tmp_path / "py")
    assert sorted(os.listdir(tmp_path / "py")) == sorted(os.listdir(ref))
    assert (tmp_path / "py" / "series.csv").read_bytes() == (ref / "series.csv").read_bytes()
    a = json.loads((tmp_path / "py" / "summary.json").read_text())
    b = json.loads((ref / "summary.json").read_text())
    for k in ("status", "steps", "diagnostics", "newton"):
        if k in b:
            assert a[k] == b[k], k
    if (ref / "fields.h5").exists():
        h5py = pytest.importorskip("h5py")
        with h5py.File(ref / "fields.h5") as f:
            for name, arr in r.fields.items():
                assert same_bits(arr, f[name][()]), name


def test_dict_scenario_equals_its_toml_twin(example):
    kind, path = example
    with open(path, "rb") as f:
        tables = tomllib.load(f)
    for key, value in SHORT[kind].items():  # the same overrides, written into the tables
        section, name = key.split(".")
        tables.setdefault(section, {})[name] = value
    if "file" in tables.get("initial", {}):
        pytest.skip("relative data file")
    stem = os.path.splitext(os.path.basename(path))[0]
    a = lievi.run(lievi.Scenario(tables, name=stem))
    b = lievi.run(lievi.load(path, set=SHORT[kind]))
    assert a.columns == b.columns
    for n in b.columns:
        assert same_bits(a.series[n], b.series[n]), n
    assert lievi.Scenario(tables, name=stem).resolved() == lievi.load(path, set=SHORT[kind]).resolved()


def test_set_overrides_and_resolved():
    sc = lievi.load(EXAMPLES["rigid_body"], set={"integrator.dt": 0.025, "integrator.retraction": "exp"})
    res = sc.resolved()
    assert res["integrator"]["dt"] == 0.025
    assert res["integrator"]["retraction"] == "exp"
    assert sc.validate() is sc


def test_input_errors_name_the_key_and_what_is_allowed(tmp_path):
    with pytest.raises(lievi.InputError) as e:
        lievi.load(EXAMPLES["rigid_body"], set={"integrator.dt": -0.1})
    assert isinstance(e.value, ValueError)
    assert "integrator.dt" in str(e.value)
    assert any(i["key"] == "integrator.dt" for i in e.value.issues)
    with pytest.raises(lievi.InputError) as e:
        lievi.load(EXAMPLES["rigid_body"], set={"integrator.no_such_key": 1})
    assert "no_such_key" in str(e.value)
    with pytest.raises(lievi.InputError) as e:
        lievi.load(tmp_path / "missing.toml")
    assert "missing.toml" in str(e.value)
    with pytest.raises(lievi.InputError):
        lievi.Scenario({"model": {"type": "rigid_body"}, "integrator": {"dt": float("nan")}})
    with pytest.raises(lievi.InputError) as e:
        lievi.Scenario({"model": {"type": "no_such_model"}})
    assert "rigid_body" in str(e.value)  # the allowed types are listed
    with pytest.raises(lievi.InputError):
        lievi.Scenario({"model": {"type": "beam", "E": object()}})
    with pytest.raises(lievi.InputError):
        lievi.Scenario(42)
    with pytest.raises(lievi.InputError):
        lievi.run("not a scenario")
    with pytest.raises(lievi.InputError):
        lievi.schema("no_such_model")


def test_numerical_failure_raises_with_step_and_keeps_the_outputs(tmp_path):
    # the floppy damped rod far above its stability bound (allowed explicitly) blows up
    tables = {
        "model": {"type": "beam", "section": "circle", "rho": 1000.0, "E": 1e6, "nu": 0.499, "r": 0.01,
                  "gravity": [0.0, 0.0, -9.81]},
        "grid": {"J": 20, "layout": "vertex", "length": 1.0},
        "bc": {"left": "clamped"},
        "initial": {"shape": "straight"},
        "damping": {"linear": 0.1, "angular": 0.1},
        "integrator": {"dt": 1e-3, "t_end": 1.0, "allow_unstable": True},
        "output": {"every": 10, "plots": False, "fields": False, "vtk": False},
    }
    with pytest.raises(lievi.NumericalFailure) as e:
        lievi.run(lievi.Scenario(tables, name="rod"), out=tmp_path / "rod")
    f = e.value
    assert f.step > 0 and f.node >= 0
    assert f.hint
    assert f.result.summary["status"] == "failed"
    assert f.result.out == str(tmp_path / "rod")
    assert os.path.exists(tmp_path / "rod" / "series.csv")
    t = f.result.series["t"]
    assert len(t) > 0 and t[-1] <= f.t + 1e-12


def test_schema_methods_and_types():
    assert lievi.model_types() == ["rigid_body", "wave", "beam", "lagrangian", "kirchhoff", "string", "lie_group"]
    keys = [e["key"] for e in lievi.schema("beam")]
    assert "integrator.dt" in keys and "grid.J" in keys
    m = lievi.methods()
    assert set(m) == set(lievi.model_types())
    assert "ddb" in m["rigid_body"]
    assert lievi.__version__


def test_ensemble_equals_the_command_lines_paths(tmp_path):
    sets = {"integrator.t_end": 0.05, "output.plots": False}
    args = [CLI, "run", EXAMPLES["wave"], "--out", str(tmp_path / "cli"), "--paths", "3",
            "--set", "integrator.t_end=0.05", "--set", "output.plots=false"]
    assert subprocess.run(args, capture_output=True, text=True).returncode == 0
    r = lievi.run(lievi.load(EXAMPLES["wave"], set=sets), paths=3)
    assert r.series == {}
    for name, attr in (("series_mean.csv", r.mean), ("series_std.csv", r.std)):
        names, table = read_csv(tmp_path / "cli" / name)
        assert list(attr) == names
        for i, n in enumerate(names):
            assert same_bits(attr[n], table[:, i]), (name, n)
    assert r.summary["paths"] == 3
    with pytest.raises(lievi.InputError):
        lievi.run(lievi.load(EXAMPLES["wave"], set=sets), paths=-1)
    with pytest.raises(lievi.InputError) as e:  # a model without noise refuses paths, naming --paths
        lievi.run(lievi.load(EXAMPLES["rigid_body"]), paths=2)
    assert "paths" in str(e.value)


def test_run_paths_per_path_quantiles_and_sharded_merge():
    sets = {"integrator.t_end": 0.05, "output.plots": False, "output.fields": False}
    sc = lievi.load(EXAMPLES["wave"], set=sets)
    whole = lievi.run_paths(sc, 6, per_path=True, quantiles=(0.1, 0.5, 0.9), threads=2)
    assert sorted(whole.paths) == list(range(6))
    # each path is the single run of that path, bit for bit
    single = lievi.run(sc.with_set({"noise.path": 4}))
    for c in single.columns:
        assert same_bits(whole.paths[4][c], single.series[c]), c
    # quantiles across the paths, ordered
    q = whole.quantiles
    assert np.all(q[0.1]["E_c"] <= q[0.5]["E_c"]) and np.all(q[0.5]["E_c"] <= q[0.9]["E_c"])
    # shards [0, 2), [2, 6) merged in path order equal the whole ensemble bit for bit, for any thread count
    stats = lievi.EnsembleStats()
    for rng in (range(0, 2), range(2, 6)):
        part = lievi.run_paths(sc, rng, per_path=True, threads=1)
        for k in rng:
            stats.add(part.paths[k])
    for c in whole.mean:
        assert same_bits(stats.mean[c], whole.mean[c]), c
        assert same_bits(stats.std[c], whole.std[c]), c
    with pytest.raises(lievi.InputError):
        lievi.run_paths(sc, range(3, 1))
    with pytest.raises(lievi.InputError):
        lievi.run_paths(sc, 4, quantiles=(1.5,))
