#!/usr/bin/env python3
"""Side by side: a NumPy vectorised staggered leapfrog vs lievi's StaggeredStepper<Wave<1>, TypeI> (issue 4).

The problem of bench/wave_bench.cpp: J cells on [0, 1] (cell layout, free ends: ghost segments with zero
stress), c = 1, dt = 0.5 ds, phi0 a Gaussian bump, phi_t = 0; noise theta = 0.1, Delta W ~ N(0, dt): one normal
per node per step (independent) or one per step (common). Both sides run the same number of steps per J (the
iteration count lievi_bench reports, steps(J) = max(10, 5e6 / J)).

Usage: /usr/bin/python3 bench/wave_side_by_side.py [LIEVI_BENCH] [--repetitions N] [--numpy-repeat N] [--proto]
       (default build/release/bench/lievi_bench, N = 3 and 3; --proto also runs and prints Proto/*)

lievi: `lievi_bench --benchmark_filter=... --benchmark_format=json --benchmark_repetitions=N
--benchmark_report_aggregates_only=true`, medians, wall time (the benchmarks use UseRealTime). NumPy: the
median of N timed runs (time.perf_counter) after 3 warm-up steps; NumPy is single-threaded for these ufuncs.
Bandwidth bound: Bandwidth/Copy48/N (three arrays read and written in place, 48 B per element = the minimal
traffic of one node-step) at N = J and the same thread count; fraction = bound ns / lievi ns (>= 0.5 is
"within 2x of the bound").
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

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
JS = [100, 1000, 10_000, 100_000, 1_000_000]
CASES = ["Deterministic", "Common", "Independent"]
THETA = 0.1


def steps_for(J):
    return max(10, 5_000_000 // J)


def numpy_run(J, steps, case, seed=7):
    """Times `steps` steps of the vectorised leapfrog; returns seconds."""
    ds = 1.0 / J
    dt = 0.5 * ds
    c = dt / ds           # (dt / w_j) kappa / rho with w_j = ds, rho = kappa = 1
    inv_ds = 1.0 / ds
    s = (np.arange(J) + 0.5) * ds
    phi = np.exp(-100.0 * (s - 0.5) ** 2)
    gp = np.zeros(J + 1)  # strains with the two ghost segments (zero stress) at gp[0], gp[J]
    np.subtract(phi[1:], phi[:-1], out=gp[1:-1])
    gp[1:-1] *= inv_ds
    f = np.empty(J)
    zeta = -0.5 * c * (gp[1:] - gp[:-1])  # the half-kick start rule
    a = np.empty(J)
    xi = np.empty(J)
    rng = np.random.default_rng(seed)
    amp = THETA * np.sqrt(dt)

    def step():
        np.subtract(gp[1:], gp[:-1], out=f)       # force: stress right - stress left
        np.multiply(f, c, out=f)
        np.add(zeta, f, out=zeta)                 # zeta^{n+1/2}
        np.multiply(zeta, dt, out=a)              # A = dt zeta + theta dW
        if case == "Independent":
            rng.standard_normal(out=xi)
            np.multiply(xi, amp, out=xi)
            np.add(a, xi, out=a)
        elif case == "Common":
            np.add(a, amp * rng.standard_normal(), out=a)
        np.add(phi, a, out=phi)                   # phi^{n+1}
        np.subtract(phi[1:], phi[:-1], out=gp[1:-1])  # gamma^{n+1} from the configurations
        np.multiply(gp[1:-1], inv_ds, out=gp[1:-1])

    for _ in range(3):
        step()
    t0 = time.perf_counter()
    for _ in range(steps):
        step()
    t = time.perf_counter() - t0
    assert np.isfinite(phi).all()
    return t


def run_lievi(exe, repetitions, proto):
    pat = (r"^(Wave/(Deterministic|Common|Independent)|Bandwidth/(Triad|Copy48)"
           + (r"|Proto/[A-Za-z]+" if proto else "") + r")/")
    cmd = [exe, f"--benchmark_filter={pat}", "--benchmark_format=json",
           f"--benchmark_repetitions={repetitions}", "--benchmark_report_aggregates_only=true"]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    data = json.loads(out)
    res = {}
    for b in data["benchmarks"]:
        if b.get("aggregate_name", "median") != "median" or b.get("error_occurred"):
            continue
        m = re.match(r"^(\w+/\w+)/(\d+)/(\d+)/", b["run_name"] + "/")
        if not m:
            continue
        name, n, t = m.group(1), int(m.group(2)), int(m.group(3))
        it = re.search(r"/iterations:(\d+)", b["run_name"])  # an aggregate's "iterations" counts repetitions
        res[(name, n, t)] = {"ns": 1e9 / b["items_per_second"], "iterations": int(it.group(1)) if it else None,
                             "bytes_per_second": b.get("bytes_per_second")}
    return data["context"], res, " ".join(cmd)


def fmt(x, spec=".2f"):
    return "-" if x is None else format(x, spec)


def main():
    args = sys.argv[1:]
    opts = {"--repetitions": 3, "--numpy-repeat": 3}
    for k in list(opts):
        if k in args:
            i = args.index(k)
            opts[k] = int(args[i + 1])
            del args[i:i + 2]
    proto = "--proto" in args
    args = [a for a in args if a != "--proto"]
    exe = os.path.abspath(args[0] if args else os.path.join(ROOT, "build", "release", "bench", "lievi_bench"))
    if not os.access(exe, os.X_OK):
        sys.exit(f"lievi_bench not found: {exe}")

    t_start = time.perf_counter()
    ctx, lv, cmd = run_lievi(exe, opts["--repetitions"], proto)
    t_lievi = time.perf_counter() - t_start

    npy = {}
    for J in JS:
        steps = lv.get(("Wave/Deterministic", J, 1), {}).get("iterations") or steps_for(J)
        assert steps == steps_for(J), (J, steps)
        for case in CASES:
            ts = [numpy_run(J, steps, case) for _ in range(opts["--numpy-repeat"])]
            npy[(case, J)] = float(np.median(ts)) / (steps * J) * 1e9
    t_total = time.perf_counter() - t_start

    def ns(name, J, t):
        r = lv.get((name, J, t))
        return r["ns"] if r else None

    print(f"# bench/wave_side_by_side.py  {datetime.now(timezone.utc):%Y-%m-%d %H:%M} UTC  {platform.node()}  "
          f"{os.cpu_count()} CPUs  load average {os.getloadavg()[0]:.2f}  python {platform.python_version()}  "
          f"numpy {np.__version__}")
    print(f"# lievi_bench (Google Benchmark library build: {ctx.get('library_build_type', '?')}); "
          f"medians of {opts['--repetitions']}; NumPy medians of {opts['--numpy-repeat']}; "
          f"run time lievi {t_lievi:.0f} s, total {t_total:.0f} s")
    print(f"# {cmd}")
    print("# times in ns per node-step (wall); NumPy/lievi = NumPy ns / lievi 1-thread ns; 2-thread efficiency = "
          "t1 / (2 t2); stoch/det = this case / Deterministic at the same J and threads; bound = "
          "Copy48 ns/element at N = J (48 B), fraction = bound / lievi (1 thread, 2 threads)")
    print()
    print("| J | case | NumPy | lievi 1 thr | lievi 2 thr | NumPy/lievi | 2-thr eff. | stoch/det 1 thr | "
          "stoch/det 2 thr | bound 1 thr | bound 2 thr | fraction of bound 1 / 2 thr |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for J in JS:
        b1, b2 = ns("Bandwidth/Copy48", J, 1), ns("Bandwidth/Copy48", J, 2)
        for case in CASES:
            name = f"Wave/{case}"
            t1, t2 = ns(name, J, 1), ns(name, J, 2)
            d1, d2 = ns("Wave/Deterministic", J, 1), ns("Wave/Deterministic", J, 2)
            eff = t1 / (2 * t2) if t1 and t2 else None
            sd1 = t1 / d1 if case != "Deterministic" and t1 and d1 else None
            sd2 = t2 / d2 if case != "Deterministic" and t2 and d2 else None
            f1 = b1 / t1 if b1 and t1 else None
            f2 = b2 / t2 if b2 and t2 else None
            ratio = npy[(case, J)] / t1 if t1 else None
            print(f"| {J:.0e} | {case} | {npy[(case, J)]:.2f} | {fmt(t1)} | {fmt(t2)} | {fmt(ratio, '.1f')}x | "
                  f"{fmt(eff * 100 if eff else None, '.0f')}% | {fmt(sd1)} | {fmt(sd2)} | {fmt(b1, '.3f')} | "
                  f"{fmt(b2, '.3f')} | {fmt(f1)} / {fmt(f2)} |")
    print()
    print("| bandwidth reference | N | GB/s 1 thr | GB/s 2 thr |")
    print("|---|---|---|---|")
    for name in ("Bandwidth/Copy48", "Bandwidth/Triad"):
        for n in JS + [10_000_000]:
            r1, r2 = lv.get((name, n, 1)), lv.get((name, n, 2))
            g1 = r1["bytes_per_second"] / 1e9 if r1 and r1["bytes_per_second"] else None
            g2 = r2["bytes_per_second"] / 1e9 if r2 and r2["bytes_per_second"] else None
            print(f"| {name} | {n:.0e} | {fmt(g1, '.1f')} | {fmt(g2, '.1f')} |")
    if proto:
        print()
        print("| prototype (bench/wave_bench.cpp) | J | ns/node-step 1 thr | 2 thr | vs library 1 thr | 2 thr |")
        print("|---|---|---|---|---|---|")
        for name in sorted({k[0] for k in lv if k[0].startswith("Proto/")}):
            lib = "Wave/Independent" if name.endswith("Independent") else "Wave/Deterministic"
            for J in JS:
                p1, p2 = ns(name, J, 1), ns(name, J, 2)
                l1, l2 = ns(lib, J, 1), ns(lib, J, 2)
                print(f"| {name} | {J:.0e} | {fmt(p1)} | {fmt(p2)} | "
                      f"{fmt(l1 / p1 if l1 and p1 else None)}x | {fmt(l2 / p2 if l2 and p2 else None)}x |")


if __name__ == "__main__":
    main()
