"""Lie-group systems (model.type = "lie_group") from Python: lievi.Simulation steps the same Lie-group DEL (or its
reduced form, Moser-Veselov's discrete Lagrangian, the RK4 comparator) as ``lievi run`` (through the CLI program
here), level by level, bit for bit; lievi.run goes through the model registry; the heavy top's Casimirs,
recomputed here from the stepped Pi and R, stay at their start to round-off; a failed step raises
NumericalFailure and keeps the last good state.
"""
import csv
import os
import subprocess
import tempfile

import numpy as np
import pytest

import lievi

SRC = os.environ.get("LIEVI_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", ".."))
EX = os.path.join(SRC, "examples", "lie_group")
CLI = os.environ.get("LIEVI_CLI")
EPS = np.finfo(float).eps


def same_bits(a, b):
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    return a.shape == b.shape and np.array_equal(a.view(np.int64), b.view(np.int64))


def cli_series(example, sets):
    """series.csv of `lievi run` (the program, not the module) with --set's."""
    if not CLI:
        pytest.skip("LIEVI_CLI not set")
    with tempfile.TemporaryDirectory() as d:
        args = [CLI, "run", os.path.join(EX, example), "--out", os.path.join(d, "out")]
        for k, v in dict(sets, **{"output.plots": "false"}).items():
            args += ["--set", f"{k}={v}"]
        subprocess.run(args, check=True, capture_output=True)
        with open(os.path.join(d, "out", "series.csv")) as f:
            rows = list(csv.DictReader(f))
    return {k: np.array([float(r[k]) for r in rows]) for k in rows[0]}


@pytest.mark.parametrize("example,method,retraction", [
    ("heavy_top.toml", "del", "cayley"),
    ("heavy_top.toml", "del-reduced", "exp"),
    ("pendulum_3d.toml", "del", "exp"),
    ("pendulum_3d.toml", "rk4", "cayley"),
    ("free_body.toml", "moser-veselov", "cayley"),
    ("free_body.toml", "del", "exp"),
    ("floating_body.toml", "del", "exp"),
])
def test_a_lie_group_system_stepped_from_python_equals_the_cli_run(example, method, retraction):
    sets = {"integrator.method": method, "integrator.retraction": retraction, "integrator.t_end": 0.5,
            "integrator.dt": 0.005, "output.every": 1}
    series = cli_series(example, sets)
    sim = lievi.Simulation(lievi.load(os.path.join(EX, example), set=dict(sets, **{"output.plots": False})))
    n = len(series["t"]) - 1
    assert n == 100
    for k in range(n + 1):
        if k > 0:
            sim.step()
        assert sim.steps == k
        assert same_bits(sim.Pi, [series[f"Pi{i}"][k] for i in (1, 2, 3)]), (k, sim.Pi)
        if "Gamma1" in series:
            assert same_bits(sim.Gamma, [series[f"Gamma{i}"][k] for i in (1, 2, 3)]), k
        if "P1" in series:
            assert same_bits(sim.P, [series[f"P{i}"][k] for i in (1, 2, 3)]), k
            assert same_bits(sim.position, [series[c][k] for c in "xyz"]), k
        e = sim.energies()
        for name, value in e.items():
            assert same_bits(value, series[name][k]), (k, name)
    R = sim.R
    assert R.shape == (3, 3) and not R.flags.writeable
    if method != "rk4":  # the group steps keep R orthogonal to round-off (RK4 drifts off SO(3))
        assert np.abs(R.T @ R - np.eye(3)).max() < 1e-14


def test_lievi_run_goes_through_the_registry_and_keeps_the_casimirs():
    sc = lievi.load(os.path.join(EX, "heavy_top.toml"),
                    set={"output.plots": False, "output.every": 1, "integrator.t_end": 5.0})
    r = lievi.run(sc)
    assert r.summary["status"] == "complete" and r.summary["method"]["id"] == "del"
    assert r.summary["method"]["retraction"] == "cayley"
    Pi = np.stack([r.series[f"Pi{i}"] for i in (1, 2, 3)], axis=1)
    q = np.stack([r.series[c] for c in ("qw", "qx", "qy", "qz")], axis=1)
    w, x, y, z = q.T
    # Gamma = R^T e3, the third row of R, recomputed here from the attitude quaternion
    Gamma = np.stack([2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)], axis=1)
    C = np.einsum("ij,ij->i", Pi, Gamma)
    # the quaternion is written with 17 digits and rounded from R: round-off of a few eps of |Pi| (|Gamma| = 1)
    assert np.abs(C - C[0]).max() <= 64 * EPS * np.linalg.norm(Pi[0])
    assert np.abs(np.einsum("ij,ij->i", Gamma, Gamma) - 1).max() <= 64 * EPS


def test_position_and_P_only_for_the_floating_body():
    sim = lievi.Simulation(lievi.load(os.path.join(EX, "heavy_top.toml"), set={"output.plots": False}))
    with pytest.raises(AttributeError):
        sim.position
    with pytest.raises(AttributeError):
        sim.P


def test_a_failed_lie_group_step_keeps_the_last_good_state():
    sc = lievi.load(os.path.join(EX, "heavy_top.toml"),
                    set={"integrator.max_iterations": 1, "integrator.dt": 0.05, "output.plots": False})
    sim = lievi.Simulation(sc)
    Pi0, R0 = sim.Pi.copy(), sim.R.copy()
    with pytest.raises(lievi.NumericalFailure) as e:
        sim.step(3)
    assert e.value.step == 1 and sim.failed
    assert np.array_equal(sim.Pi, Pi0) and np.array_equal(sim.R, R0)
    with pytest.raises(lievi.NumericalFailure):
        sim.step()
