"""The Python examples (examples/python) run to the end in their quick mode and write their figures."""
import os
import subprocess
import sys

import pytest

SRC = os.environ.get("LIEVI_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", ".."))
EXAMPLES = ["rigid_body_figure1.py", "whip_control.py", "kepler_user_lagrangian.py", "wave_energy_growth.py",
            "spaghetti.py"]


@pytest.mark.parametrize("executor", ["dask", "multiprocessing"])
def test_sharded_ensemble_merges_to_the_same_bits(executor):
    if executor == "dask":
        pytest.importorskip("dask.distributed")  # Debian's python3-distributed, installed by make test
    r = subprocess.run([sys.executable, os.path.join(SRC, "examples", "python", "ensemble_shards.py"), "--paths", "8",
                        "--shard", "3", "--executor", executor], capture_output=True, text=True, timeout=240)
    assert r.returncode == 0, r.stdout + r.stderr
    assert f"{executor} processes" in r.stdout and "bit for bit: True" in r.stdout


@pytest.mark.parametrize("script", EXAMPLES)
def test_example_runs(script, tmp_path):
    pytest.importorskip("matplotlib")
    env = dict(os.environ, MPLBACKEND="Agg")
    r = subprocess.run([sys.executable, os.path.join(SRC, "examples", "python", script), "--quick",
                        "--out", str(tmp_path)], capture_output=True, text=True, env=env, timeout=240)
    assert r.returncode == 0, r.stderr
    assert os.path.exists(tmp_path / script.replace(".py", ".png")), r.stdout
