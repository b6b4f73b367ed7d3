#!/usr/bin/env python3
"""A/B comparison of two `lievi` programs on whole runs: the cost of what the run loop adds to the steps.

`bench/ab_compare.py` compares the stepping kernels (lievi_bench); the run loop around them (output levels,
diagnostics, the numerical-health checks) is measured here. Each scenario is run with binary A, then B,
alternately, ROUNDS times each, with plots and field files off, and the `timing.ns_per_step` of summary.json
(`ns_per_node_step` for the field models; stepping plus the per-step diagnostics and checks, without
writing) is collected. Printed per scenario: the
minimum and median of each binary and the ratio B / A of the minima. Alternating puts both binaries under the
same slow and fast phases of a shared machine; a difference smaller than the spread of the medians is not a
measurement.

Usage: /usr/bin/python3 bench/ab_runs.py [--rounds N] LIEVI_A LIEVI_B [SCENARIO[:key=value,...] ...]
Default scenarios: a wave and two beams, each with a row of series.csv every step (the most checks per step)
and with the example's own output cadence.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
DEFAULT = [
    "examples/wave/independent.toml:output.every=1,integrator.t_end=4",
    "examples/wave/independent.toml:integrator.t_end=4",
    "examples/beam/flying_spaghetti.toml:output.every=1",
    "examples/beam/flying_spaghetti.toml",
    "examples/beam/stochastic_spaghetti.toml:output.every=1",
    "examples/beam/stochastic_spaghetti.toml",
]


def run(binary, scenario, sets, out):
    base = [binary, "run", scenario, "--out", out, "--force", "--set", "output.plots=false"]
    for s in sets:
        base += ["--set", s]
    p = subprocess.run(base + ["--set", "output.fields=false"], capture_output=True, text=True)
    if p.returncode != 0:  # a model without output.fields (the rigid body, the lagrangian)
        p = subprocess.run(base, capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f"{binary} {scenario}: exit {p.returncode}\n{p.stderr}")
    with open(os.path.join(out, "summary.json")) as f:
        timing = json.load(f)["timing"]
    return timing.get("ns_per_step", timing.get("ns_per_node_step"))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("a")
    ap.add_argument("b")
    ap.add_argument("scenarios", nargs="*", default=DEFAULT)
    ap.add_argument("--rounds", type=int, default=6)
    args = ap.parse_args()
    print("| scenario | A min | A median | B min | B median | B/A (min) |")
    print("|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory(prefix="lievi-ab-") as tmp:
        for spec in args.scenarios:
            path, _, sets = spec.partition(":")
            sets = [s for s in sets.split(",") if s]
            scenario = path if os.path.isabs(path) else os.path.join(ROOT, path)
            times = {"A": [], "B": []}
            for _ in range(args.rounds):
                for tag, binary in (("A", args.a), ("B", args.b)):
                    times[tag].append(run(binary, scenario, sets, os.path.join(tmp, tag)))
            a, b = times["A"], times["B"]
            print(f"| {spec} | {min(a):.0f} | {statistics.median(a):.0f} | {min(b):.0f} | {statistics.median(b):.0f} "
                  f"| {min(b) / min(a):.3f} |", flush=True)


if __name__ == "__main__":
    main()
