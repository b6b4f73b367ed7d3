#!/usr/bin/env python3
"""A/B comparison of two lievi_bench binaries on a machine whose speed drifts (a shared VM).

Runs the two binaries alternately, ROUNDS times each, on the same benchmark filter, and prints per benchmark
the minimum and the median over the rounds of each binary's ns per item (from items_per_second, so
"ns per node-step" for the field benchmarks) and the ratio B / A of the minima. Alternating puts both
binaries under the same slow and fast phases of the machine; the minimum estimates what each can do, the
median how typical runs go. A difference smaller than the spread of the medians is not a measurement.

Both binaries run on the same CPU (--cpu, default 0; `all` for multi-threaded benchmarks): on the 2-core
measuring VM one virtual CPU has been 20-25% slower than the other, and the scheduler put the alternating runs
on alternate CPUs, which showed as a 20% "difference" between two binaries in either direction.

Usage: /usr/bin/python3 bench/ab_compare.py BIN_A BIN_B FILTER [--rounds N] [--cpu K|all]
Example: /usr/bin/python3 bench/ab_compare.py /tmp/old_bench build/bench-rel/bench/lievi_bench \
             '^Beam/Cayley/(1000|10000)/1/' --rounds 8
"""
import argparse
import csv
import io
import os
import statistics
import subprocess
import sys
from collections import defaultdict


def run(binary, flt):
    out = subprocess.run([binary, f"--benchmark_filter={flt}", "--benchmark_format=csv"], check=True,
                         capture_output=True, text=True).stdout
    rows = list(csv.DictReader(io.StringIO(out)))
    res = {}
    for r in rows:
        ips = r.get("items_per_second") or ""
        if ips:
            res[r["name"]] = 1e9 / float(ips)
    return res


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("a")
    ap.add_argument("b")
    ap.add_argument("filter")
    ap.add_argument("--rounds", type=int, default=6)
    ap.add_argument("--cpu", default="0", help="CPU to run both on (default 0), or 'all'")
    args = ap.parse_args()
    if args.cpu != "all":
        os.sched_setaffinity(0, {int(args.cpu)})  # inherited by the benchmark processes
    times = defaultdict(lambda: {"A": [], "B": []})
    for _ in range(args.rounds):
        for tag, binary in (("A", args.a), ("B", args.b)):
            for name, ns in run(binary, args.filter).items():
                times[name][tag].append(ns)
    if not times:
        sys.exit(f"no benchmark with items per second matches {args.filter!r}")
    print("| benchmark | A min | A median | B min | B median | B/A (min) |")
    print("|---|---|---|---|---|---|")
    for name in sorted(times):
        a, b = times[name]["A"], times[name]["B"]
        if not a or not b:
            continue
        print(f"| {name} | {min(a):.1f} | {statistics.median(a):.1f} | {min(b):.1f} | {statistics.median(b):.1f} "
              f"| {min(b) / min(a):.3f} |")


if __name__ == "__main__":
    main()
