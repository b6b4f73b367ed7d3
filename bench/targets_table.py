#!/usr/bin/env python3
"""The speed targets of the beam variants and of the noise, side by side in one run.

Runs one lievi_bench binary ROUNDS times over the benchmarks below, on one CPU (the 2-core measuring VMs have
had one virtual CPU 20-25% slower than the other), all benchmarks in every round, so that the ratios compare
steps measured under the same phases of a shared machine. Prints, per benchmark, the minimum and the median ns
per item over the rounds (ns per node-step for the field benchmarks, ns per normal for the noise batch), and
each ratio the targets name, from the medians:

  - the beam's damped, coupled-stiffness, distributed-load, full-inertia, `approx` and `exp` steps against the undamped exact-Cayley step at the
    same J;
  - the beam with independent noise against its deterministic step (exact and approx);
  - the wave with independent noise against its deterministic step.

Usage: /usr/bin/python3 bench/targets_table.py build/release/bench/lievi_bench [--rounds 5] [--cpu 0]
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
from collections import defaultdict

BEAM_J = (1000, 10000)
WAVE_J = (1000, 10000, 100000)
BEAM = ("Cayley", "CayleyDamped", "CayleyCoupled", "CayleyDistributed", "CayleyFullK", "Approx", "Exp", "ExpDamped", "CayleyIndependent",
        "ApproxIndependent")
FILTER = ("^(Beam/(" + "|".join(BEAM) + ")/(" + "|".join(map(str, BEAM_J)) + ")/1/"
          "|Wave/(Deterministic|Independent)/(" + "|".join(map(str, WAVE_J)) + ")/1/"
          "|BM_NoiseBatchNormals/)")


def short(name):
    """Beam/Cayley/1000/1/iterations:1000/real_time -> Beam/Cayley/1000."""
    parts = name.split("/")
    return "/".join(parts[:3]) if parts[0] in ("Beam", "Wave") else "/".join(parts[:2])


def run(binary):
    out = subprocess.run([binary, f"--benchmark_filter={FILTER}", "--benchmark_format=json"], check=True,
                         capture_output=True, text=True).stdout
    res = {}
    for b in json.loads(out)["benchmarks"]:
        ips = b.get("items_per_second")
        if ips:
            res[short(b["name"])] = 1e9 / float(ips)
    return res


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("bench")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--cpu", type=int, default=0)
    args = ap.parse_args()
    if not os.access(args.bench, os.X_OK):
        sys.exit(f"{args.bench}: not an executable lievi_bench (build it: cmake --build build/release --target lievi_bench)")
    os.sched_setaffinity(0, {args.cpu})  # inherited by the benchmark processes
    times = defaultdict(list)
    for _ in range(args.rounds):
        for name, ns in run(args.bench).items():
            times[name].append(ns)
    if not times:
        sys.exit("no benchmark matched: " + FILTER)
    med = {n: statistics.median(v) for n, v in times.items()}
    print(f"{args.rounds} rounds on CPU {args.cpu}; ns per item")
    print("| benchmark | min | median |")
    print("|---|---|---|")
    for n in sorted(times):
        print(f"| {n} | {min(times[n]):.2f} | {med[n]:.2f} |")

    def ratio(a, b):
        return f"{med[a] / med[b]:.2f}x" if a in med and b in med else "-"

    print()
    print("| ratio (medians) | " + " | ".join(f"J = {j}" for j in BEAM_J) + " |")
    print("|---|" + "---|" * len(BEAM_J))
    for num, den, label in (("CayleyDamped", "Cayley", "damped / undamped (Cayley)"),
                            ("CayleyCoupled", "Cayley", "coupled P / diagonal P (Cayley)"),
                            ("CayleyDistributed", "Cayley", "distributed load on every node / none (Cayley)"),
                            ("CayleyFullK", "Cayley", "angular inertia off its axes / diagonal (Cayley)"),
                            ("Approx", "Cayley", "approx / exact"),
                            ("Exp", "Cayley", "exp / Cayley"),
                            ("ExpDamped", "Cayley", "exp damped / Cayley undamped"),
                            ("CayleyIndependent", "Cayley", "exact: independent noise / deterministic"),
                            ("ApproxIndependent", "Approx", "approx: independent noise / deterministic")):
        print(f"| {label} | " + " | ".join(ratio(f"Beam/{num}/{j}", f"Beam/{den}/{j}") for j in BEAM_J) + " |")
    print()
    print("| wave: independent noise / deterministic | " + " | ".join(
        f"J = {j}: " + ratio(f"Wave/Independent/{j}", f"Wave/Deterministic/{j}") for j in WAVE_J) + " |")


if __name__ == "__main__":
    main()
