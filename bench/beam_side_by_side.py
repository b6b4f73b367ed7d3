#!/usr/bin/env python3
"""Side by side: lievi's exact-Cayley beam step (StaggeredStepper<Beam<Cayley<SE3>>>) vs PyElastica (issue 5).

The problem of bench/beam_bench.cpp: a clamped rod under gravity, length 1 m, square edge 0.01 m, rho = 1000,
E = 1e7, nu = 0.5 (G = E / 3), J elements (J + 1 nodes), node 0 clamped, free end, straight along x at rest,
gravity (0, 0, -9.81), dt = 0.5 of lievi's a-priori stability bound (the "dt" counter of the benchmark), the
same number of steps per J (steps(J) = max(10, 1e6 / J), the iteration count lievi_bench reports).

PyElastica: if `import elastica` works, the same rod (PyElastica rods have circular sections: radius
a / sqrt(pi), the same area; the cost of a step does not depend on the section), OneEndFixedBC at node 0,
GravityForces, PositionVerlet, the same J, dt and step count, timed with time.perf_counter after 3 warm-up
steps (median of --py-repeat runs). If it is not importable (or --baseline is given), the recorded baseline of
docs/performance.md is used instead: t(J) = 20 us + 290 ns * J per step on this class of machine (the figure
given in issue 5, not measured here).

Usage: /usr/bin/python3 bench/beam_side_by_side.py [LIEVI_BENCH] [--repetitions N] [--py-repeat N] [--baseline]
       (default build/release/bench/lievi_bench, N = 3 and 3)

lievi: `lievi_bench --benchmark_filter=^Beam/ --benchmark_format=json --benchmark_repetitions=N
--benchmark_report_aggregates_only=true`, medians, wall time (the benchmarks use UseRealTime). Ratio =
PyElastica time per step / lievi time per step on 1 thread (both have J elements: the per-element ratio).
2-thread efficiency = t1 / (2 t2).
"""
import json
import os
import platform
import re
import subprocess
import sys
import time
from datetime import datetime, timezone

import numpy as np

from pyelastica_step import position_verlet, timed_steps  # bench/, the script's own folder

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
JS = [20, 50, 100, 200, 500, 1000, 2000, 5000, 10_000, 20_000, 100_000]
LENGTH, EDGE, RHO, E, NU, GRAV = 1.0, 0.01, 1000.0, 1e7, 0.5, 9.81
BASELINE_PER_STEP_NS = 20_000.0     # recorded PyElastica baseline (issue 5): 20 us per step
BASELINE_PER_ELEMENT_NS = 290.0     # + 290 ns per element-step


def steps_for(J):
    return max(10, 1_000_000 // J)


def baseline_ns_per_step(J):
    return BASELINE_PER_STEP_NS + BASELINE_PER_ELEMENT_NS * J


def pyelastica_available():
    try:
        import elastica  # noqa: F401
    except Exception as e:  # ImportError, or a broken install (numba etc.)
        return None, f"{type(e).__name__}: {e}"
    return elastica, None


def pyelastica_run(ea, J, dt, steps):
    """Times `steps` PositionVerlet steps of the clamped rod under gravity; returns seconds (or None)."""

    class Sim(ea.BaseSystemCollection, ea.Constraints, ea.Forcing):
        pass

    sim = Sim()
    radius = EDGE / np.sqrt(np.pi)  # circular section of the same area
    G = E / (2.0 * (1.0 + NU))
    geometry = (J, np.zeros(3), np.array([1.0, 0.0, 0.0]), np.array([0.0, 0.0, 1.0]), LENGTH, radius, RHO)
    try:
        rod = ea.CosseratRod.straight_rod(*geometry, youngs_modulus=E, shear_modulus=G)
    except TypeError:  # PyElastica < 0.3: a positional internal damping coefficient before E
        rod = ea.CosseratRod.straight_rod(*geometry, 0.0, E, shear_modulus=G)
    sim.append(rod)
    sim.constrain(rod).using(ea.OneEndFixedBC, constrained_position_idx=(0,), constrained_director_idx=(0,))
    sim.add_forcing_to(rod).using(ea.GravityForces, acc_gravity=np.array([0.0, 0.0, -GRAV]))
    sim.finalize()
    elapsed = timed_steps(position_verlet(ea, sim, dt), steps)
    finite = bool(np.isfinite(rod.position_collection).all())
    return elapsed, finite


def run_lievi(exe, repetitions):
    cmd = [exe, "--benchmark_filter=^Beam/", "--benchmark_format=json",
           f"--benchmark_repetitions={repetitions}", "--benchmark_report_aggregates_only=true"]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    data = json.loads(out)
    res, mem, errors = {}, {}, []
    for b in data["benchmarks"]:
        if b.get("error_occurred"):
            errors.append(f"{b['name']}: {b.get('error_message', '?')}")
            continue
        if b.get("aggregate_name", "median") != "median":
            continue
        it = re.search(r"/iterations:(\d+)", b["run_name"])  # an aggregate's "iterations" counts repetitions
        m = re.match(r"^Beam/(Cayley|Exp)/(\d+)/(\d+)/", b["run_name"] + "/")
        if m:
            res[(m.group(1), int(m.group(2)), int(m.group(3)))] = {
                "ns": b["ns_per_node_step"], "newton": b.get("newton_per_node_step"), "dt": b.get("dt"),
                "step_ns": b["ns_per_node_step"] * (int(m.group(2)) + 1),  # J + 1 nodes per step
                "iterations": int(it.group(1)) if it else None}
            continue
        m = re.match(r"^Beam/Memory/(\d+)/", b["run_name"] + "/")
        if m:
            mem[int(m.group(1))] = (b.get("heap_bytes_per_node"), b.get("state_bytes_per_node"))
    return data["context"], res, mem, errors, " ".join(cmd)


def fmt(x, spec=".1f"):
    return "-" if x is None else format(x, spec)


def main():
    args = sys.argv[1:]
    opts = {"--repetitions": 3, "--py-repeat": 3}
    for k in list(opts):
        if k in args:
            i = args.index(k)
            opts[k] = int(args[i + 1])
            del args[i:i + 2]
    force_baseline = "--baseline" in args
    args = [a for a in args if a != "--baseline"]
    exe = os.path.abspath(args[0] if args else os.path.join(ROOT, "build", "release", "bench", "lievi_bench"))
    if not os.access(exe, os.X_OK):
        sys.exit(f"lievi_bench not found: {exe}")

    load0 = os.getloadavg()[0]
    t_start = time.perf_counter()
    ctx, lv, mem, errors, cmd = run_lievi(exe, opts["--repetitions"])
    t_lievi = time.perf_counter() - t_start

    ea, why = (None, "--baseline given") if force_baseline else pyelastica_available()
    py = {}  # J -> (ns per step, measured?, finite)
    for J in JS:
        r = lv.get(("Cayley", J, 1))
        if ea is not None and r:
            steps = r["iterations"] or steps_for(J)
            runs = [pyelastica_run(ea, J, r["dt"], steps) for _ in range(opts["--py-repeat"])]
            py[J] = (float(np.median([s for s, _ in runs])) / steps * 1e9, True, all(f for _, f in runs))
        else:
            py[J] = (baseline_ns_per_step(J), False, True)
    t_total = time.perf_counter() - t_start

    print(f"# bench/beam_side_by_side.py  {datetime.now(timezone.utc):%Y-%m-%d %H:%M} UTC  {platform.node()}  "
          f"{os.cpu_count()} CPUs  load average {load0:.2f} -> {os.getloadavg()[0]:.2f}  "
          f"python {platform.python_version()}  numpy {np.__version__}")
    print(f"# lievi_bench (Google Benchmark library build: {ctx.get('library_build_type', '?')}); "
          f"medians of {opts['--repetitions']}; run time lievi {t_lievi:.0f} s, total {t_total:.0f} s")
    print(f"# {cmd}")
    if ea is not None:
        print(f"# PyElastica {getattr(ea, '__version__', '?')}: measured, PositionVerlet, same J, dt and steps, "
              f"medians of {opts['--py-repeat']}")
    else:
        print(f"# PyElastica not importable ({why}): using the recorded baseline of docs/performance.md, "
              f"t(J) = {BASELINE_PER_STEP_NS / 1e3:.0f} us + {BASELINE_PER_ELEMENT_NS:.0f} ns * J per step "
              "(issue 5's figure for this class of machine, not measured here)")
    for e in errors:
        print(f"# ERROR {e}")
    print("# lievi: ns per node-step (J + 1 nodes), wall; PyElastica: ns per element-step (J elements); "
          "ratio = PyElastica us/step / lievi us/step (1 thread); 2-thr eff. = t1 / (2 t2)")
    print()
    src = "measured" if ea is not None else "baseline"
    print(f"| J | lievi ns/node-step 1 thr | 2 thr | 2-thr eff. | Newton it./node-step | lievi us/step 1 thr | "
          f"PyElastica ({src}) us/step | PyElastica ns/element-step | PyElastica/lievi |")
    print("|---|---|---|---|---|---|---|---|---|")
    for J in JS:
        r1, r2 = lv.get(("Cayley", J, 1)), lv.get(("Cayley", J, 2))
        t1 = r1["ns"] if r1 else None
        t2 = r2["ns"] if r2 else None
        eff = t1 / (2 * t2) if t1 and t2 else None
        s1 = r1["step_ns"] if r1 else None
        p, _, finite = py[J]
        flag = "" if finite else " (non-finite)"
        print(f"| {J} | {fmt(t1)} | {fmt(t2)} | {fmt(eff * 100 if eff else None, '.0f')}% | "
              f"{fmt(r1['newton'] if r1 else None, '.2f')} | {fmt(s1 / 1e3 if s1 else None, '.2f')} | "
              f"{p / 1e3:.2f}{flag} | {p / J:.0f} | {fmt(p / s1 if s1 else None, '.2f')}x |")
    print()
    print("| exp retraction | J | ns/node-step 1 thr | Newton it./node-step | vs Cayley |")
    print("|---|---|---|---|---|")
    for (kind, J, t), r in sorted(lv.items()):
        if kind == "Exp":
            c = lv.get(("Cayley", J, t))
            print(f"| Beam/Exp | {J} | {r['ns']:.1f} | {fmt(r['newton'], '.2f')} | "
                  f"{fmt(r['ns'] / c['ns'] if c else None, '.2f')}x |")
    print()
    print("| memory | J | heap bytes per node (mallinfo2) | bytes per node (array count) |")
    print("|---|---|---|---|")
    for J, (h, s) in sorted(mem.items()):
        print(f"| Beam/Memory | {J} | {fmt(h, '.0f')} | {fmt(s, '.0f')} |")

    print()
    big = [J for J in JS if J >= 1000 and lv.get(("Cayley", J, 1))]
    worst = max((lv[("Cayley", J, 1)]["ns"] for J in big), default=None)
    effs = [lv[("Cayley", J, 1)]["ns"] / (2 * lv[("Cayley", J, 2)]["ns"]) for J in JS
            if J >= 10_000 and lv.get(("Cayley", J, 1)) and lv.get(("Cayley", J, 2))]

    def verdict(ok):
        return "-" if ok is None else ("met" if ok else "not met")

    print(f"# target <= 100 ns/node-step, 1 thread, J >= 1000: worst {fmt(worst)} ns: "
          f"{verdict(worst <= 100 if worst else None)}; stretch <= 40 ns: {verdict(worst <= 40 if worst else None)}")
    print(f"# target 2-thread efficiency >= 70% at J >= 1e4: "
          f"{', '.join(f'{e * 100:.0f}%' for e in effs) or '-'}: {verdict(min(effs) >= 0.7 if effs else None)}")
    r100 = lv.get(("Cayley", 100, 1))
    ratio100 = py[100][0] / r100["step_ns"] if r100 else None
    ratios = [py[J][0] / lv[("Cayley", J, 1)]["step_ns"] for J in big]
    print(f"# target >= 5x PyElastica ({src}) at 100 elements: {fmt(ratio100, '.2f')}x: "
          f"{verdict(ratio100 >= 5 if ratio100 else None)}; ~3x per element at J >= 1000: "
          f"{fmt(min(ratios) if ratios else None, '.2f')}x - {fmt(max(ratios) if ratios else None, '.2f')}x")
    if len(mem) >= 2:
        hs = [h for h, _ in mem.values() if h]
        print(f"# memory O(J): heap bytes per node {min(hs):.0f} - {max(hs):.0f} over J = "
              f"{', '.join(str(J) for J in sorted(mem))}: {verdict(max(hs) <= 1.1 * min(hs))}")


if __name__ == "__main__":
    main()
