#!/usr/bin/env python3
"""Ensemble throughput across MPI ranks (issue 28): path-node-steps per second of `lievi run FILE --paths N`
run whole, as one process with 1 and 2 threads, and under `mpirun -np R` (one thread per rank) for R = 1, 2,
and the efficiency against the one-process, one-thread run (R x the throughput of one rank is 100 %). Each
configuration is timed `--repeat` times (best of, whole process: MPI start-up included) and the outputs of
every run are checked to be the serial run's bit for bit.

Scenarios: the stochastic wave with independent noise (examples/wave/independent.toml, J = 100) and the
stochastic bending beam (examples/beam/stochastic_bending.toml, J = 20), both with per-path work of about a
second on one core by default.

Usage: /usr/bin/python3 bench/mpi_ensemble.py [LIEVI] [--paths 16] [--repeat 3]
       (default LIEVI = build/release/apps/lievi/lievi; needs mpirun, as root it passes --allow-run-as-root)
"""
import argparse
import filecmp
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CASES = [("wave, independent noise, J = 100", "wave/independent.toml", ["integrator.t_end=0.5"]),
         ("beam, common noise, J = 20", "beam/stochastic_bending.toml", ["integrator.t_end=0.2"])]


def timed(cmd, env):
    t0 = time.perf_counter()
    r = subprocess.run(cmd, capture_output=True, text=True, env=env)
    dt = time.perf_counter() - t0
    if r.returncode != 0:
        sys.exit(f"mpi_ensemble.py: {' '.join(cmd)} exited {r.returncode}:\n{r.stdout}{r.stderr}")
    return dt


def same(a, b):
    names = sorted(f for f in os.listdir(a) if f.endswith(".csv"))
    return names and all(filecmp.cmp(os.path.join(a, f), os.path.join(b, f), shallow=False) for f in names)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("lievi", nargs="?", default=os.path.join(ROOT, "build", "release", "apps", "lievi", "lievi"))
    ap.add_argument("--paths", type=int, default=16)
    ap.add_argument("--repeat", type=int, default=3)
    a = ap.parse_args()
    mpirun = shutil.which("mpirun")
    if mpirun is None:
        print("mpi_ensemble.py: no mpirun here (install openmpi-bin): skipped")
        return
    root = ["--allow-run-as-root"] if os.geteuid() == 0 else []
    work = tempfile.mkdtemp(prefix="lievi-mpi-bench-")
    try:
        print(f"| scenario | configuration | wall s (best of {a.repeat}) | path-node-steps/s | efficiency |")
        print("|---|---|---|---|---|")
        for label, scenario, sets in CASES:
            base = [a.lievi, "run", os.path.join(ROOT, "examples", scenario), "--paths", str(a.paths), "--force",
                    "--set", "output.plots=false"]
            for s in sets:
                base += ["--set", s]
            configs = [("1 process, 1 thread", [], "1"), ("1 process, 2 threads", [], "2"),
                       ("mpirun -np 1, 1 thread", [mpirun, *root, "-np", "1"], "1"),
                       ("mpirun -np 2, 1 thread each", [mpirun, *root, "--oversubscribe", "-np", "2"], "1")]
            work_units = None
            best1 = None
            for name, prefix, threads in configs:
                out = os.path.join(work, name.replace(" ", "_").replace(",", ""))
                env = dict(os.environ, OMP_NUM_THREADS=threads)
                t = min(timed(prefix + base + ["--out", out], env) for _ in range(a.repeat))
                if work_units is None:
                    s = json.load(open(os.path.join(out, "summary.json")))
                    work_units = s["steps"] * s["n_nodes"] * s["paths"]
                    ref = out
                elif not same(ref, out):
                    sys.exit(f"mpi_ensemble.py: {name} wrote other files than the serial run")
                rate = work_units / t
                if best1 is None:
                    best1 = rate
                ranks = 2 if ("2" in threads or "-np 2" in name) else 1
                print(f"| {label} | {name} | {t:.3f} | {rate:.3e} | {100 * rate / (ranks * best1):.0f} % |",
                      flush=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
