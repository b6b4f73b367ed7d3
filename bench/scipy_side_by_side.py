#!/usr/bin/env python3
"""Side by side: SciPy's DOP853 (rtol = atol = 1e-10) and RK45 vs lievi's DDB-Cayley on Scenario A.

Scenario A of seed 002: I = diag(1, 1.3, 0.5), alpha = 0.5, Omega0 = (0, 0.05, 1), t in [0, 30],
output at h = 0.1 (SciPy via t_eval, 301 points).

Usage: /usr/bin/python3 bench/scipy_side_by_side.py [LIEVI_BINARY] [--repeat N]
       (default binary build/release/apps/lievi/lievi, N = 7)

lievi is timed by summary.json timing.integrate_s (stepping + per-step diagnostics, no I/O), median of N
runs; the wall time of the whole `lievi run` process (start-up, TOML, CSV/JSON writing, no plots) is
printed too. SciPy is timed by time.perf_counter() around solve_ivp, median of N runs.
"""
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timezone

import numpy as np
import scipy
from scipy.integrate import solve_ivp

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCENARIO = os.path.join(ROOT, "examples", "rigid_body", "scenario_a.toml")
I = np.array([1.0, 1.3, 0.5])
ALPHA = 0.5
M0 = I * np.array([0.0, 0.05, 1.0])
T_EVAL = np.linspace(0.0, 30.0, 301)


def f(_t, m):
    om = m / I
    u = np.cross(m, om)
    return u + ALPHA * np.cross(m, u)


def f_fast(_t, m):
    # the same field written out by hand (np.cross is slow on 3-vectors)
    m1, m2, m3 = m
    o1, o2, o3 = m1 / I[0], m2 / I[1], m3 / I[2]
    u1, u2, u3 = m2 * o3 - m3 * o2, m3 * o1 - m1 * o3, m1 * o2 - m2 * o1
    return np.array([u1 + ALPHA * (m2 * u3 - m3 * u2),
                     u2 + ALPHA * (m3 * u1 - m1 * u3),
                     u3 + ALPHA * (m1 * u2 - m2 * u1)])


def time_scipy(method, fun, repeat):
    ts, sol = [], None
    for _ in range(repeat):
        t0 = time.perf_counter()
        sol = solve_ivp(fun, (0.0, 30.0), M0, method=method, rtol=1e-10, atol=1e-10, t_eval=T_EVAL)
        ts.append(time.perf_counter() - t0)
    assert sol.success
    return float(np.median(ts)), sol


def main():
    args = [a for a in sys.argv[1:]]
    repeat = 7
    if "--repeat" in args:
        i = args.index("--repeat")
        repeat = int(args[i + 1])
        del args[i:i + 2]
    exe = os.path.abspath(args[0] if args else os.path.join(ROOT, "build", "release", "apps", "lievi", "lievi"))
    if not os.access(exe, os.X_OK):
        sys.exit(f"lievi binary not found: {exe}")

    # reference for the accuracy column: SciPy DOP853 at 1e-13
    ref = solve_ivp(f, (0.0, 30.0), M0, method="DOP853", rtol=1e-13, atol=1e-13).y[:, -1]

    rows = []
    for method in ("DOP853", "RK45"):
        for name, fun in (("np.cross field", f), ("hand-written field", f_fast)):
            t, sol = time_scipy(method, fun, repeat)
            err = np.linalg.norm(sol.y[:, -1] - ref)
            rows.append((f"SciPy {method} (rtol=atol=1e-10, {name})", t, None, sol.nfev, err))

    ts, walls, summ = [], [], None
    with tempfile.TemporaryDirectory(prefix="lievi_side_by_side_") as tmp:
        for k in range(repeat):
            d = os.path.join(tmp, f"r{k}")
            cmd = [exe, "run", SCENARIO, "--out", d, "--force", "--set", "output.plots=false",
                   "--set", "integrator.method=ddb", "--set", "integrator.retraction=cayley",
                   "--set", "integrator.dt=0.1"]
            t0 = time.perf_counter()
            subprocess.run(cmd, check=True, capture_output=True)
            walls.append(time.perf_counter() - t0)
            with open(os.path.join(d, "summary.json")) as fh:
                summ = json.load(fh)
            ts.append(summ["timing"]["integrate_s"])
    err = np.linalg.norm(np.array(summ["final"]["M"]) - ref)
    t_ddb = float(np.median(ts))
    w_ddb = float(np.median(walls))

    print(f"# bench/scipy_side_by_side.py  {datetime.now(timezone.utc):%Y-%m-%d %H:%M} UTC  "
          f"{platform.node()}  {os.cpu_count()} CPUs  python {platform.python_version()}  "
          f"numpy {np.__version__}  scipy {scipy.__version__}  median of {repeat}")
    print("# Scenario A, t in [0, 30], output every 0.1 (301 points); error = ||M(30) - M_ref(30)||_2 "
          "against SciPy DOP853 at 1e-13")
    print()
    print(f"| solver | time | field evals | error at t = 30 | DDB-Cayley (integrate_s) faster by |")
    print("|---|---|---|---|---|")
    for name, t, _, nfev, e in rows:
        print(f"| {name} | {t * 1e3:.2f} ms | {nfev} | {e:.1e} | {t / t_ddb:.0f}x |")
    print(f"| lievi ddb cayley, dt = 0.1 (300 steps), timing.integrate_s | {t_ddb * 1e6:.1f} us "
          f"({t_ddb / 300 * 1e9:.0f} ns/step) | - | {err:.1e} | 1x |")
    print(f"| lievi ddb cayley, wall time of the whole `lievi run` process | {w_ddb * 1e3:.2f} ms | - | "
          f"{err:.1e} | {w_ddb / t_ddb:.0f}x slower than its stepping |")
    print()
    dop = rows[0][1]
    print(f"DDB-Cayley vs SciPy DOP853 (np.cross field): stepping {dop / t_ddb:.0f}x, whole process "
          f"{dop / w_ddb:.1f}x  (target >= 600x, stretch 1000x: "
          f"{'met' if dop / t_ddb >= 600 else 'NOT met'}{', stretch met' if dop / t_ddb >= 1000 else ''})")


if __name__ == "__main__":
    main()
