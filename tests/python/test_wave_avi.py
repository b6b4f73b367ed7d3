"""The wave with integrator.method = "avi" from Python: lievi.run goes through the model registry and writes the
same series.csv, summary counts and final field as ``lievi run`` (the program) bit for bit; the graded mesh's
node positions in fields.h5 are the refined mesh's; lievi.Simulation refuses the AVI (it has no common step)
naming the key.
"""
import csv
import os
import subprocess
import tempfile

import numpy as np
import pytest

import lievi

SRC = os.environ.get("LIEVI_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", ".."))
EXAMPLE = os.path.join(SRC, "examples", "wave", "avi_refined.toml")
CLI = os.environ.get("LIEVI_CLI")
SETS = {"output.plots": False, "integrator.t_end": 0.36, "grid.J": 100, "integrator.dt": 4.5e-3}


def same_bits(a, b):
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    return a.shape == b.shape and np.array_equal(a.view(np.int64), b.view(np.int64))


def test_lievi_run_of_the_avi_equals_the_cli_run():
    if not CLI:
        pytest.skip("LIEVI_CLI not set")
    r = lievi.run(lievi.load(EXAMPLE, set=SETS))
    assert r.summary["status"] == "complete" and r.summary["method"]["id"] == "avi"
    with tempfile.TemporaryDirectory() as d:
        args = [CLI, "run", EXAMPLE, "--out", os.path.join(d, "out")]
        for k, v in SETS.items():
            args += ["--set", f"{k}={str(v).lower() if isinstance(v, bool) else v}"]
        subprocess.run(args, check=True, capture_output=True)
        with open(os.path.join(d, "out", "series.csv")) as f:
            rows = list(csv.DictReader(f))
        import json
        with open(os.path.join(d, "out", "summary.json")) as f:
            summary = json.load(f)
        import h5py
        with h5py.File(os.path.join(d, "out", "fields.h5"), "r") as h:
            s = np.array(h["s"])
            phi = np.array(h["phi"])
    for k in rows[0]:
        assert same_bits(r.series[k], [float(x[k]) for x in rows]), k
    for k in ("segments", "segment_updates", "levels", "h_min", "h_max"):
        assert r.summary["avi"][k] == summary["avi"][k], k
    assert same_bits(r.summary["final"]["phi"], summary["final"]["phi"])
    # the graded mesh: 100 segments of 0.01, the two in [0.49, 0.51) split in 16 -> 131 nodes, ascending, and
    # fields.h5's last snapshot is the final field
    assert s.shape == (131,) and np.all(np.diff(s) > 0)
    assert np.allclose(np.diff(s)[49:81], 0.01 / 16) and np.allclose(np.diff(s)[:49], 0.01)
    assert same_bits(phi[-1], summary["final"]["phi"])
    assert summary["avi"]["levels"] == {"0": 98, "4": 32}


def test_a_simulation_refuses_the_avi():
    with pytest.raises(lievi.InputError, match="integrator.method"):
        lievi.Simulation(lievi.load(EXAMPLE, set=SETS))
