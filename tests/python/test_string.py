"""The elastic string (model.type = "string") from Python: lievi.run goes through the model registry, so its
series.csv and fields.h5 are the CLI program's bit for bit (the program is run side by side here); the
momenta of the free example recomputed from its rows stay at their start to round-off; bad input raises
InputError, a blow-up NumericalFailure with the outputs up to the last good row.
"""
import csv
import os
import subprocess
import tempfile

import numpy as np
import pytest

import lievi

SRC = os.environ.get("LIEVI_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", ".."))
EX = os.path.join(SRC, "examples", "string")
CLI = os.environ.get("LIEVI_CLI")


def same_bits(a, b):
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    return a.shape == b.shape and np.array_equal(a.view(np.int64), b.view(np.int64))


def cli_run(example, sets):
    """series.csv and fields.h5 /x of `lievi run` (the program, not the module) with --set's."""
    if not CLI:
        pytest.skip("LIEVI_CLI not set")
    h5py = pytest.importorskip("h5py")
    with tempfile.TemporaryDirectory() as d:
        args = [CLI, "run", os.path.join(EX, example), "--out", os.path.join(d, "out")]
        for k, v in dict(sets, **{"output.plots": "false"}).items():
            args += ["--set", f"{k}={v}"]
        subprocess.run(args, check=True, capture_output=True)
        with open(os.path.join(d, "out", "series.csv")) as f:
            rows = list(csv.DictReader(f))
        with h5py.File(os.path.join(d, "out", "fields.h5"), "r") as f:
            x = f["x"][()]
    return {k: np.array([float(r[k]) for r in rows]) for k in rows[0]}, x


@pytest.mark.parametrize("example,sets", [
    ("free_spinning.toml", {"integrator.t_end": 5.0}),
    ("plucked_refined.toml", {"integrator.t_end": 0.5}),
    ("plucked_refined.toml", {"integrator.t_end": 0.5, "integrator.queue": "heap"}),
])
def test_lievi_run_equals_the_cli_run(example, sets):
    series, x = cli_run(example, sets)
    r = lievi.run(lievi.load(os.path.join(EX, example), set=dict(sets, **{"output.plots": False})))
    assert r.summary["status"] == "complete"
    assert r.summary["method"]["id"] == "avi"
    assert set(r.series) == set(series)
    for k in series:
        assert same_bits(r.series[k], series[k]), k
    assert same_bits(r.fields["x"], x)
    assert len(r.summary["step_levels"]) == 2  # unequal steps: two levels in both examples


def test_free_string_keeps_its_momenta():
    r = lievi.run(lievi.load(os.path.join(EX, "free_spinning.toml"), set={"output.plots": False}))
    s, d = r.series, r.summary["diagnostics"]
    P = np.stack([s[f"P_{c}"] for c in "xyz"], axis=1)
    L = np.stack([s[f"L_{c}"] for c in "xyz"], axis=1)
    # round-off: ~10^5 updates of ulp-sized errors in sums of scale sum|p| ~ 0.4 and sum|x||p| ~ 1.3
    assert np.abs(P - P[0]).max() < 1e-13 * d["linear_momentum_scale"]
    assert np.abs(L - L[0]).max() < 1e-13 * d["angular_momentum_scale"]
    # the free string's centre of mass moves uniformly: P(0) = (total mass) v_cm, from the initial velocity and
    # the rotation about the origin (nonzero)
    assert np.linalg.norm(P[0]) > 0.1


def test_bad_input_and_blow_up():
    with pytest.raises(lievi.InputError, match="regions\\[1\\].dt"):
        lievi.load(os.path.join(EX, "free_spinning.toml"), set={"integrator.dt": 0.03, "integrator.t_end": 3.0})
    s = lievi.load(os.path.join(EX, "plucked_refined.toml"),
                   set={"integrator.dt": 0.003125, "integrator.fraction": 0.9, "integrator.t_end": 2.0,
                        "output.every": 32, "output.plots": False, "output.fields": False})
    with pytest.raises(lievi.NumericalFailure) as e:
        lievi.run(s)
    f = e.value
    assert "integrator.fraction" in f.hint
    assert f.result.summary["status"] == "failed"
    assert f.result.series["t"][-1] == pytest.approx(f.t)
    assert np.isfinite(f.result.series["energy"]).all()
