#!/usr/bin/env python3
"""The cost of a checkpoint against the cost of a step (issue 27): a beam of J elements (10^4 and 10^6 by
default; the bending arc of examples/beam/bending.toml with its grid refined and dt at 0.5 of the a-priori
bound) run for a few steps three ways: without checkpoints or fields, with a checkpoint at every step
(--set output.checkpoint_every=1), and with a fields.h5 snapshot at every step. Per J: the step's wall time,
the checkpoint's (difference per step), its file size, and the fields.h5 snapshot's time and size per level.

Usage: /usr/bin/python3 bench/checkpoint_cost.py [LIEVI] [--js 10000,1000000] [--steps 20]
       (default LIEVI = build/release/apps/lievi/lievi; one thread: OMP_NUM_THREADS=1)
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def run(exe, work, name, J, steps, sets):
    out = os.path.join(work, name)
    # dt at half the a-priori bound (stable_dt_bound of summary.json): taken from a one-step run
    probe = os.path.join(work, name + "-probe")
    subprocess.run([exe, "run", os.path.join(ROOT, "examples", "beam", "bending.toml"), "--out", probe, "--force",
                    "--set", f"grid.J={J}", "--set", "integrator.t_end=1e-12", "--set", "integrator.dt=1e-12",
                    "--set", "output.plots=false", "--set", "output.fields=false", "--set", "output.vtk=false"],
                   check=True, capture_output=True, env=dict(os.environ, OMP_NUM_THREADS="1"))
    bound = json.load(open(os.path.join(probe, "summary.json")))["stable_dt_bound"]
    dt = float(f"{0.5 * bound:.3g}")
    args = [exe, "run", os.path.join(ROOT, "examples", "beam", "bending.toml"), "--out", out, "--force",
            "--set", f"grid.J={J}", "--set", f"integrator.dt={dt}", "--set", f"integrator.t_end={dt * steps!r}",
            "--set", "output.plots=false", "--set", "output.vtk=false", "--set", "output.every=1"]
    for s in sets:
        args += ["--set", s]
    subprocess.run(args, check=True, capture_output=True, env=dict(os.environ, OMP_NUM_THREADS="1"))
    summary = json.load(open(os.path.join(out, "summary.json")))
    size = lambda f: os.path.getsize(os.path.join(out, f)) if os.path.exists(os.path.join(out, f)) else 0
    return summary["timing"]["integrate_s"], summary["timing"]["total_s"], size("checkpoint.h5"), size("fields.h5")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("lievi", nargs="?", default=os.path.join(ROOT, "build", "release", "apps", "lievi", "lievi"))
    ap.add_argument("--js", default="10000,1000000")
    ap.add_argument("--steps", type=int, default=20)
    a = ap.parse_args()
    print("| J | step (s) | checkpoint (s) | checkpoint (MB) | fields.h5 snapshot (s) | fields.h5 per level (MB) |")
    print("|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory(prefix="lievi-ckpt-") as work:
        for J in (int(x) for x in a.js.split(",")):
            n = a.steps
            step_s, base, _, _ = run(a.lievi, work, f"base{J}", J, n, ["output.fields=false"])
            _, ckpt, ck_bytes, _ = run(a.lievi, work, f"ckpt{J}", J, n,
                                       ["output.fields=false", "output.checkpoint_every=1"])
            _, fields, _, f_bytes = run(a.lievi, work, f"fields{J}", J, n,
                                        ["output.fields=true", "output.fields_every=1"])
            step = step_s / n
            print(f"| {J} | {step:.3g} | {(ckpt - base) / n:.3g} | {ck_bytes / 1e6:.3g} | "
                  f"{(fields - base) / (n + 1):.3g} | {f_bytes / 1e6 / (n + 1):.3g} |")
            sys.stdout.flush()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
