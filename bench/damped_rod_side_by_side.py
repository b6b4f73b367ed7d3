#!/usr/bin/env python3
"""Side by side with PyElastica on its guide's damped clamped rod (issue 25): wall time per simulated second.

The rod: length 1 m, circular section r = 1 cm, rho = 1000 kg/m^3, E = 1 MPa, G = E / (2 (1 + nu)) with nu = 0.499
(lievi takes nu < 1/2; PyElastica is given the same G), clamped at s = 0, free at s = 1, straight along x at rest at t = 0, gravity (0, 0, -9.81),
mass-proportional damping at 0.1 / s on velocities and angular velocities (lievi: [damping] linear = angular =
0.1; PyElastica: AnalyticalLinearDamper with damping constant 0.1). J elements (J + 1 nodes), one thread each.

Each code at its own step:
  - lievi at 0.8 of its a-priori stability bound (`stable_dt_bound` of summary.json), rounded down to three
    digits. The bound is linear; this floppy rod swinging down through large rotations needs the margin
    (docs/theory/beam.md "Stability bound": at J = 20, 0.8 of the bound runs to t = 10 s, 0.85 and 0.9 blow up
    at t = 2.5 s and 0.75 s). For J <= --check-j the step is run to t = --check-t (default 10 s) and must finish.
  - PyElastica (PositionVerlet) at the guide's dt = 0.01 ds; for J <= --check-j also at 2x, 4x and 8x that,
    run to t = --check-t: the largest multiple whose positions stay finite and within 2 m of the clamp is used.
Time per step: lievi's `timing.integrate_s` (stepping only) over its steps; PyElastica's perf_counter over
--py-steps steps after 3 warm-up steps (median of --py-repeat runs). Wall per simulated second = time per step /
dt. Ratio = PyElastica / lievi (the issue's target: >= 10 at every J).

PyElastica is not part of lievi: put a checkout's folder that holds `elastica/` on PYTHONPATH (or pass
--pyelastica DIR); it needs Debian's python3-numba (and python3-tqdm, python3-typing-extensions). Without it the
script says so and prints lievi's figures alone.

Usage: /usr/bin/python3 bench/damped_rod_side_by_side.py [LIEVI] [--js 20,100,1000,10000] [--pyelastica DIR]
           [--check-j 100] [--check-t 10] [--py-repeat 3] [--py-steps N]
       (default LIEVI = build/release/apps/lievi/lievi)
"""
import json
import math
import os
import platform
import statistics
import subprocess
import sys
import tempfile
from datetime import datetime, timezone

import numpy as np

from pyelastica_step import position_verlet, timed_steps  # bench/, the script's own folder

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
L, R, RHO, E, NU, GRAV, DAMP = 1.0, 0.01, 1000.0, 1e6, 0.499, 9.81, 0.1
G = E / (2.0 * (1.0 + NU))


def scenario(J, dt, t_end, every):
    return f"""[model]
type = "beam"
section = "circle"
rho = {RHO}
E = {E}
nu = {NU}
r = {R}
gravity = [0.0, 0.0, {-GRAV}]

[grid]
J = {J}
layout = "vertex"
length = {L}

[bc]
left = "clamped"

[initial]
shape = "straight"

[damping]
linear = {DAMP}
angular = {DAMP}

[integrator]
dt = {dt!r}
t_end = {t_end!r}

[output]
every = {every}
plots = false
fields = false
vtk = false
"""


def lievi_run(exe, work, name, J, dt, t_end):
    """Runs lievi; returns its summary.json."""
    d = os.path.join(work, name)
    toml = d + ".toml"
    steps = round(t_end / dt)
    with open(toml, "w") as f:
        f.write(scenario(J, dt, t_end, max(1, steps // 10)))
    env = dict(os.environ, OMP_NUM_THREADS="1")
    p = subprocess.run([exe, "run", toml, "--out", d], capture_output=True, text=True, env=env)
    if p.returncode not in (0, 3):
        sys.exit(f"lievi failed on {toml}: {p.stderr.strip()[:400]}")
    with open(os.path.join(d, "summary.json")) as f:
        return json.load(f)


def lievi_step(exe, work, J):
    """The bound and 0.8 of it."""
    probe = lievi_run(exe, work, f"probe{J}", J, 1e-7, 1e-6)
    bound = probe["stable_dt_bound"]
    return bound, 0.8 * bound


def with_steps(dt_max, steps):
    """(dt, t_end): dt = dt_max rounded down to three significant digits, t_end = steps * dt."""
    unit = 10.0 ** (math.floor(math.log10(dt_max)) - 2)
    dt = math.floor(dt_max / unit) * unit
    return dt, steps * dt


def pyelastica_import(path):
    if path:
        sys.path.insert(0, path)
    try:
        import elastica  # noqa: F401
        return elastica, None
    except Exception as e:  # ImportError, or numba missing
        return None, f"{type(e).__name__}: {e}"


def pyelastica_sim(ea, J, dt):
    class Sim(ea.BaseSystemCollection, ea.Constraints, ea.Forcing, ea.Damping):
        pass

    sim = Sim()
    rod = ea.CosseratRod.straight_rod(J, np.zeros(3), np.array([1.0, 0.0, 0.0]), np.array([0.0, 0.0, 1.0]), L, R,
                                      RHO, youngs_modulus=E, shear_modulus=G)
    sim.append(rod)
    sim.constrain(rod).using(ea.OneEndFixedBC, constrained_position_idx=(0,), constrained_director_idx=(0,))
    sim.add_forcing_to(rod).using(ea.GravityForces, acc_gravity=np.array([0.0, 0.0, -GRAV]))
    try:
        sim.dampen(rod).using(ea.AnalyticalLinearDamper, uniform_damping_constant=DAMP, time_step=dt)
    except TypeError:  # older PyElastica
        sim.dampen(rod).using(ea.AnalyticalLinearDamper, damping_constant=DAMP, time_step=dt)
    sim.finalize()
    advance = position_verlet(ea, sim, dt)
    return rod, advance


def pyelastica_stable(ea, J, dt, t_end):
    rod, advance = pyelastica_sim(ea, J, dt)
    t = 0.0
    for _ in range(int(round(t_end / dt))):
        t = advance(t)
    x = rod.position_collection
    return bool(np.isfinite(x).all() and np.abs(x).max() < 2.0 * L)


def pyelastica_time(ea, J, dt, steps, repeat):
    times = []
    for _ in range(repeat):
        rod, advance = pyelastica_sim(ea, J, dt)
        times.append(timed_steps(advance, steps) / steps)
        if not np.isfinite(rod.position_collection).all():
            return None
    return statistics.median(times)


def main():
    args = sys.argv[1:]
    opts = {"--js": "20,100,1000,10000", "--pyelastica": "", "--check-j": "100", "--check-t": "10",
            "--py-repeat": "3", "--py-steps": ""}
    for k in list(opts):
        if k in args:
            i = args.index(k)
            opts[k] = args[i + 1]
            del args[i:i + 2]
    exe = os.path.abspath(args[0] if args else os.path.join(ROOT, "build", "release", "apps", "lievi", "lievi"))
    if not os.access(exe, os.X_OK):
        sys.exit(f"lievi not found: {exe}")
    js = [int(x) for x in opts["--js"].split(",")]
    check_j, check_t = int(opts["--check-j"]), float(opts["--check-t"])
    ea, why = pyelastica_import(opts["--pyelastica"])
    print(f"damped_rod_side_by_side.py, {datetime.now(timezone.utc):%Y-%m-%d %H:%M} UTC, {platform.machine()}, "
          f"{os.cpu_count()} CPUs, load {os.getloadavg()[0]:.2f}")
    print(f"lievi: {exe}")
    print("PyElastica: " + (f"{os.path.dirname(ea.__file__)}" if ea else f"skipped ({why})"))
    rows = []
    with tempfile.TemporaryDirectory(prefix="lievi_damped_") as work:
        for J in js:
            bound, dt_max = lievi_step(exe, work, J)
            steps = max(200, 2_000_000 // J)
            dt, t_end = with_steps(dt_max, steps)
            s = lievi_run(exe, work, f"time{J}", J, dt, t_end)
            if s["status"] != "complete":
                sys.exit(f"J = {J}: lievi's timing run failed at dt = {dt:g}: {s.get('failure')}")
            lv_step = s["timing"]["integrate_s"] / s["steps"]
            lv_ok = "-"
            if J <= check_j:
                n = math.ceil(check_t / dt)
                c = lievi_run(exe, work, f"check{J}", J, check_t / n, check_t)
                lv_ok = "yes" if c["status"] == "complete" else f"no (step {c['failure']['step']})"
            row = {"J": J, "bound": bound, "lv_dt": dt, "lv_step": lv_step, "lv_ok": lv_ok,
                   "lv_sec": lv_step / dt, "newton": s["diagnostics"].get("newton_mean")}
            if ea:
                ds = L / J
                guide = 0.01 * ds
                mult = 1
                if J <= check_j:
                    for m in (2, 4, 8):
                        if pyelastica_stable(ea, J, m * guide, check_t):
                            mult = m
                        else:
                            break
                py_dt = mult * guide
                py_steps = int(opts["--py-steps"]) if opts["--py-steps"] else max(50, 200_000 // J)
                py_step = pyelastica_time(ea, J, py_dt, py_steps, int(opts["--py-repeat"]))
                row.update({"py_dt": py_dt, "py_mult": mult, "py_step": py_step,
                            "py_sec": None if py_step is None else py_step / py_dt})
            rows.append(row)
            print(f"  J = {J}: lievi dt {dt:.3g} ({dt / bound:.2f} of the bound), {lv_step * 1e6:.1f} us per step"
                  + (f"; PyElastica dt {row['py_dt']:.3g} ({row['py_mult']}x the guide's), "
                     f"{row['py_step'] * 1e6:.1f} us per step" if ea and row.get("py_step") else ""), flush=True)
    print()
    print("| J | lievi dt | lievi us/step | lievi s per simulated s | runs to t = %g s | PyElastica dt | "
          "PyElastica us/step | PyElastica s per simulated s | ratio per step | ratio per simulated s |" % check_t)
    print("|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        py = r.get("py_step")
        cells = [str(r["J"]), f"{r['lv_dt']:.3g}", f"{r['lv_step'] * 1e6:.1f}", f"{r['lv_sec']:.3g}", r["lv_ok"]]
        if py:
            cells += [f"{r['py_dt']:.3g}" + (f" ({r['py_mult']}x guide)" if r["py_mult"] > 1 else ""),
                      f"{py * 1e6:.1f}", f"{r['py_sec']:.3g}", f"{py / r['lv_step']:.1f}",
                      f"{r['py_sec'] / r['lv_sec']:.0f}"]
        else:
            cells += ["-"] * 5
        print("| " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
