"""Kirchhoff's body in an ideal fluid (model.type = "kirchhoff") from Python: lievi.Simulation steps the same
DDB on se(3)* as ``lievi run`` (through the CLI program here), level by level, bit for bit; lievi.run goes
through the model registry; the Casimirs recomputed from the stepped impulses stay at their start to round-off;
a failed step raises NumericalFailure and keeps the last good state.
"""
import csv
import os
import subprocess
import tempfile

import numpy as np
import pytest

import lievi

SRC = os.environ.get("LIEVI_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", ".."))
EX = os.path.join(SRC, "examples", "kirchhoff")
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
    ("ellipsoid_broadside.toml", "ddb", "exp"),
    ("ellipsoid_screw.toml", "ddb", "cayley"),
    ("conservative_symmetric.toml", "ddb-symmetric", "cayley"),
    ("conservative_symmetric.toml", "ddb-symmetric", "exp"),
])
def test_a_kirchhoff_body_stepped_from_python_equals_the_cli_run(example, method, retraction):
    sets = {"integrator.method": method, "integrator.retraction": retraction, "integrator.t_end": 5.0,
            "output.every": 1, "model.alpha_rot": 0.5, "model.alpha_trans": 0.25}
    series = cli_series(example, sets)
    sim = lievi.Simulation(lievi.load(os.path.join(EX, example), set=dict(sets, **{"output.plots": False})))
    n = len(series["t"]) - 1
    assert n == 100
    for k in range(n + 1):
        if k > 0:
            sim.step()
        assert sim.steps == k
        assert same_bits(sim.Pi, [series[f"Pi{i}"][k] for i in (1, 2, 3)]), (k, sim.Pi)
        assert same_bits(sim.P, [series[f"P{i}"][k] for i in (1, 2, 3)]), (k, sim.P)
        assert same_bits(sim.position, [series[c][k] for c in "xyz"]), k
        e = sim.energies()
        for name in ("energy", "casimir_P2", "casimir_PPi", "energy_above_min", "distance_min",
                     "equilibrium_residual"):
            assert same_bits(e[name], series[name][k]), (k, name)
    R = sim.R
    assert R.shape == (3, 3) and not R.flags.writeable
    assert np.abs(R.T @ R - np.eye(3)).max() < 1e-14  # the pose is advanced on SE(3): R stays orthogonal


def test_lievi_run_goes_through_the_registry_and_keeps_the_casimirs():
    sc = lievi.load(os.path.join(EX, "ellipsoid_broadside.toml"),
                    set={"output.plots": False, "output.every": 1, "integrator.t_end": 20.0})
    r = lievi.run(sc)
    assert r.summary["status"] == "complete" and r.summary["method"]["id"] == "ddb"
    P = np.stack([r.series[f"P{i}"] for i in (1, 2, 3)], axis=1)
    Pi = np.stack([r.series[f"Pi{i}"] for i in (1, 2, 3)], axis=1)
    C1 = np.einsum("ij,ij->i", P, P)
    C2 = np.einsum("ij,ij->i", P, Pi)
    # recomputed here from the impulses: round-off of the coadjoint update (8 eps, as the library's test)
    assert np.abs(C1 - C1[0]).max() <= 8 * EPS * C1[0]
    assert np.abs(C2 - C2[0]).max() <= 8 * EPS * np.linalg.norm(P[0]) * np.linalg.norm(Pi[0])
    # the energy decreases step by step up to the round-off of evaluating it (4 eps)
    assert np.diff(r.series["energy"]).max() <= 4 * EPS * r.series["energy"][0]


def test_a_failed_kirchhoff_step_keeps_the_last_good_state():
    sc = lievi.load(os.path.join(EX, "ellipsoid_broadside.toml"),
                    set={"integrator.max_iterations": 1, "integrator.dt": 0.5, "output.plots": False})
    sim = lievi.Simulation(sc)
    Pi0, P0 = sim.Pi.copy(), sim.P.copy()
    with pytest.raises(lievi.NumericalFailure) as e:
        sim.step(3)
    assert e.value.step == 1 and sim.failed
    assert np.array_equal(sim.Pi, Pi0) and np.array_equal(sim.P, P0)
    with pytest.raises(lievi.NumericalFailure):
        sim.step()
