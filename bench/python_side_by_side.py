#!/usr/bin/env python3
"""lievi driven from Python side by side with PyElastica on the same rod (issue 26): wall time per simulated
second at each code's own largest stable step and at equal tip accuracy, J = 50, 100, 200, undamped and damped.

The rod (as bench/damped_rod_side_by_side.py): length 1 m, circular section r = 1 cm, rho = 1000 kg/m^3,
E = 1 MPa, G = E / (2 (1 + nu)) with nu = 0.499 (PyElastica is given the same G), clamped at s = 0 (position and
frame), free at s = 1, straight along x at rest at t = 0 (normal z), gravity (0, 0, -9.81): it swings down through
large rotations. J elements (J + 1 nodes) in both codes. Damped cases: 0.1 / s on velocities and angular
velocities (lievi: [damping] linear = angular = 0.1; PyElastica: AnalyticalLinearDamper with
uniform_damping_constant = 0.1). lievi: lievi.Simulation (type-i, exact-Cayley, its defaults) stepped from Python;
PyElastica: PositionVerlet, stepped from Python (its own loop). Every step is dt = 1 / N (N steps per simulated
second), so every run lands on t = 1 s exactly. One thread each (OMP_NUM_THREADS = NUMBA_NUM_THREADS = 1; run the
script under `taskset -c CPU`).

Largest stable step, per code and case. A run at dt is "stable to T" when it reaches t = T with every node finite
and within 2 m of the clamp (checked every 0.05 s of simulated time) and, for lievi, without a NumericalFailure
(lievi is run with integrator.allow_unstable = true so it may go beyond its a-priori bound). Search over N: a
geometric ladder (factor 1.25 in dt) from a start (lievi: half its a-priori bound; PyElastica: its guide's
0.01 ds) up to the first failure (or down to the first pass), then bisection in log dt to 2 %, each trial to
t = --stab-t (default 10 s: runs just past either code's limit blow up late, 2.5-10 s in, so a shorter
horizon overstates the limit: by up to 37 % with 5 s); with --verify-t T longer than that, the result is also
run to T and reduced by 5 % until it passes. "Stable dt" is that step, and that is the step timed (no further
margin). Stability need not be monotone in dt; the search assumes it is. When the ladder goes down to a quarter
of its start (--floor) without a pass, the code has no step stable to that horizon (PyElastica at J = 200, with
and without damping, blows up at t = 4-5 s at every dt from its guide's step down to a quarter of it): the
search is then repeated to t = --fallback-t (2 s: the swing down and back) and the row is flagged.

Equal tip accuracy. The two codes discretise the rod differently (their J-element tips differ by the spatial
error, printed per case: about 1 cm here), which no step size controls, so each code's temporal error is measured
against its OWN converged solution at the same J: the tip at t = --acc-t (1 s) at N = 2^k steps per second up
to 2^K (K = --lv-finest, --pe-finest), the reference being the Richardson extrapolation of the two finest
levels with the order p measured from the three finest (p = log2 of the ratio of successive differences). The
error at a level is |x_tip(dt) - x_tip,ref|; the reference's uncertainty is the difference between the
Richardson values of levels (K-2, K-1) and (K-1, K), printed. The ladder starts at the code's stable step (also a
level). For a tolerance tol, the code's equal-accuracy step is the largest dt whose error is <= tol with every
finer level also <= tol: interpolated on log e - log dt between the bracketing levels (the finest level, which
defines the reference, is not used), or extrapolated along the last interval when the finest usable level is
still above tol (flagged "extrap."), or the stable step when that already meets tol (flagged "stable"). Then N =
ceil(1 / dt) is timed. lievi's tip error at the timed step is measured (the timed run goes to t = 1 s);
PyElastica's is measured when N <= --pe-full-max (the timed run continued to t = 1 s), else it is the
interpolated value (flagged).

Timing, after the searches and ladders of a case, each row's two codes in alternation (lievi step(N), lievi
step(1), PyElastica, and again, --repeat = 5 times) so that both see the same load; medians. lievi: a fresh
Simulation, sim.step(N) over [0, 1 s] (N steps in one call: the C++ loop), and a second figure with sim.step(1)
called N times from Python (what a control loop does); short runs are repeated within a repeat so that each
figure spans about 0.1 s. PyElastica: a fresh simulator, min(N, --pe-steps) steps after 3 warm-up steps (numba
compiles then); its cost per step does not depend on the state (explicit, no iterations), so a limited number of
steps stands for the second; lievi is timed over the whole second. Wall time (perf_counter) is the figure; CPU
time of the process (process_time) is taken alongside as a check against other load on the CPU. Wall per
simulated second = seconds per step / dt = seconds per step * N. Ratio = PyElastica / lievi.

PyElastica is not part of lievi: put a checkout's folder that holds `elastica/` on PYTHONPATH or pass
--pyelastica DIR (it needs python3-numba). Without it the script says it was skipped and prints lievi alone.

Usage:
    PYTHONPATH=build/release/python taskset -c 1 /usr/bin/python3 bench/python_side_by_side.py \\
        [--pyelastica DIR] [--js 50,100,200] [--damping 0,0.1] [--tols 1e-5,1e-6,1e-7,1e-8] [--stab-t 10]
        [--verify-t 0] [--floor 4] [--fallback-t 2] [--acc-t 1] [--lv-finest 19] [--pe-finest 20]
        [--pe-steps 20000] [--pe-full-max 200000] [--repeat 5] [--quick]
"""
import argparse
import math
import os
import platform
import statistics
import sys
import time
from datetime import datetime, timezone

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("NUMBA_NUM_THREADS", "1")

import numpy as np  # noqa: E402

import lievi  # noqa: E402
from pyelastica_step import clamped_rod  # noqa: E402  (bench/, the script's own folder)

L, R, RHO, E, NU, GRAV = 1.0, 0.01, 1000.0, 1e6, 0.499, 9.81
G = E / (2.0 * (1.0 + NU))
BOUND = 2.0  # m: a node farther than this from the clamp (or non-finite) is a blow-up
CHECK = 0.05  # s of simulated time between checks


def bounded(x):
    return bool(np.isfinite(x).all() and np.sqrt((x * x).sum(axis=-1)).max() < BOUND)


# ---------------------------------------------------------------------------------------------------- lievi
class Lievi:
    name = "lievi"

    def __init__(self, J, damp):
        self.J, self.damp = J, damp

    def scenario(self, N, T, allow_unstable=True):
        d = {"model": {"type": "beam", "section": "circle", "rho": RHO, "E": E, "nu": NU, "r": R,
                       "gravity": [0.0, 0.0, -GRAV]},
             "grid": {"J": self.J, "length": L},
             "bc": {"left": "clamped"},
             "initial": {"shape": "straight"},
             "integrator": {"dt": 1.0 / N, "t_end": float(T), "allow_unstable": allow_unstable},
             "output": {"plots": False, "fields": False, "vtk": False}}
        if self.damp > 0.0:
            d["damping"] = {"linear": self.damp, "angular": self.damp}
        return lievi.Scenario(d, name="rod")

    def bound(self):
        """The a-priori stability bound (summary's stable_dt_bound) from a 10-step run."""
        return lievi.run(self.scenario(100000, 1e-4, allow_unstable=False)).summary["stable_dt_bound"]

    def start_N(self):
        return math.ceil(1.0 / (0.5 * self.bound()))

    def stable(self, N, T):
        """(ok, t reached)."""
        sim = lievi.Simulation(self.scenario(N, T))
        total, chunk, done = round(T * N), max(1, round(CHECK * N)), 0
        try:
            while done < total:
                k = min(chunk, total - done)
                sim.step(k)
                done += k
                if not bounded(sim.positions):
                    return False, done / N
        except lievi.NumericalFailure:
            return False, sim.steps / N
        return True, done / N

    def tip(self, N, T):
        sim = lievi.Simulation(self.scenario(N, T))
        sim.step(round(T * N))
        return sim.positions[-1].copy()

    def timed_once(self, N, T, inner=1):
        """One repeat: (wall, cpu) seconds per step with sim.step(N T), the same with sim.step(1) called N T times,
        each the mean of `inner` fresh runs; and the tip at T."""
        n = round(T * N)
        loop, one = [0.0, 0.0], [0.0, 0.0]
        for _ in range(inner):
            sim = lievi.Simulation(self.scenario(N, T))
            w0, c0 = time.perf_counter(), time.process_time()
            sim.step(n)
            loop[0] += time.perf_counter() - w0
            loop[1] += time.process_time() - c0
            tip = sim.positions[-1].copy()
            sim = lievi.Simulation(self.scenario(N, T))
            step = sim.step
            w0, c0 = time.perf_counter(), time.process_time()
            for _ in range(n):
                step(1)
            one[0] += time.perf_counter() - w0
            one[1] += time.process_time() - c0
        return [x / (n * inner) for x in loop], [x / (n * inner) for x in one], tip


# ----------------------------------------------------------------------------------------------- PyElastica
class PyElastica:
    name = "PyElastica"

    def __init__(self, ea, J, damp):
        self.ea, self.J, self.damp = ea, J, damp

    def build(self, N):
        return clamped_rod(self.ea, self.J, 1.0 / N, length=L, radius=R, density=RHO, youngs_modulus=E,
                           shear_modulus=G, gravity=[0.0, 0.0, -GRAV], damping=self.damp)

    def start_N(self):
        return math.ceil(1.0 / (0.01 * L / self.J))

    def stable(self, N, T):
        rod, advance = self.build(N)
        total, chunk, done, t = round(T * N), max(1, round(CHECK * N)), 0, 0.0
        while done < total:
            k = min(chunk, total - done)
            for _ in range(k):
                t = advance(t)
            done += k
            if not bounded(rod.position_collection.T):
                return False, done / N
        return True, done / N

    def tip(self, N, T):
        rod, advance = self.build(N)
        t = 0.0
        for _ in range(round(T * N)):
            t = advance(t)
        return rod.position_collection[:, -1].copy()

    def timed_once(self, N, T, cap, full_max):
        """One repeat: (wall, cpu) seconds per step over min(N T, cap) steps after 3 warm-up ones (numba compiles
        then); the tip at T when N T <= full_max (the run continued), else None."""
        n = round(T * N)
        steps = max(1, min(n - 3, cap))
        rod, advance = self.build(N)
        t = 0.0
        for _ in range(3):
            t = advance(t)
        w0, c0 = time.perf_counter(), time.process_time()
        for _ in range(steps):
            t = advance(t)
        out = [(time.perf_counter() - w0) / steps, (time.process_time() - c0) / steps]
        tip = None
        if n <= full_max:
            for _ in range(n - 3 - steps):
                t = advance(t)
            tip = rod.position_collection[:, -1].copy()
        return out, tip


def time_row(lv, N_lv, pe, N_pe, a):
    """lievi at N_lv and PyElastica at N_pe (None: absent), timed in alternation (lievi step(N), lievi step(1),
    PyElastica, and again) so both see the same load: medians over --repeat repeats of wall and CPU seconds per
    step. lievi's short runs are repeated inside each repeat so that each figure spans about 0.1 s."""
    n = round(a.acc_t * N_lv)
    probe_loop, _, _ = lv.timed_once(N_lv, a.acc_t)
    inner = max(1, min(50, math.ceil(0.1 / (n * probe_loop[0]))))
    lv_loop, lv_one, pe_t, lv_tip, pe_tip = [], [], [], None, None
    for r in range(a.repeat):
        loop, one, tip = lv.timed_once(N_lv, a.acc_t, inner)
        lv_loop.append(loop)
        lv_one.append(one)
        lv_tip = tip
        if pe is not None:
            t, tip = pe.timed_once(N_pe, a.acc_t, a.pe_steps, a.pe_full_max if r == 0 else 0)
            pe_t.append(t)
            if r == 0:
                pe_tip = tip
    med = lambda xs, k: statistics.median(x[k] for x in xs)  # noqa: E731
    out = {"lv": {"step": med(lv_loop, 0), "step_cpu": med(lv_loop, 1), "step1": med(lv_one, 0),
                  "step1_cpu": med(lv_one, 1), "tip": lv_tip}}
    if pe is not None:
        out["pe"] = {"step": med(pe_t, 0), "step_cpu": med(pe_t, 1), "tip": pe_tip}
    return out


# ------------------------------------------------------------------------------------------------ searches
def largest_stable(code, stab_t, verify_t, log, floor=4.0):
    """Largest verified-stable N (smallest N = largest dt) and the trials [(N, ok, t reached, horizon)]; N is None
    when no step down to the start's dt / floor is stable to stab_t."""
    trials = []

    def run(N, T):
        ok, t = code.stable(N, T)
        trials.append((N, ok, t, T))
        return ok

    N = code.start_N()
    if run(N, stab_t):
        pass_N = N
        while True:
            M = math.floor(pass_N / 1.25)
            if M < 2:
                fail_N = 1
                break
            if run(M, stab_t):
                pass_N = M
            else:
                fail_N = M
                break
    else:
        fail_N = N
        while True:
            M = math.ceil(fail_N * 1.25)
            if M > floor * N:
                log(f"    {code.name}: no step stable to t = {stab_t:g} s down to dt = {1.0 / fail_N:.3g} s; trials "
                    "(dt, stable, t reached): "
                    + ", ".join(f"{1.0 / n:.3g} {'ok' if ok else 'FAIL'} {t:g}" for n, ok, t, _ in trials))
                return None, trials
            if run(M, stab_t):
                pass_N = M
                break
            fail_N = M
    while pass_N / fail_N > 1.02:
        mid = round(math.sqrt(pass_N * fail_N))
        if mid in (pass_N, fail_N):
            break
        if run(mid, stab_t):
            pass_N = mid
        else:
            fail_N = mid
    for _ in range(20 if verify_t > stab_t else 0):
        if run(pass_N, verify_t):
            break
        pass_N = math.ceil(pass_N * 1.05)
    log(f"    {code.name}: largest dt stable to t = {max(stab_t, verify_t):g} s: 1/{pass_N} = {1.0 / pass_N:.4g} s; "
        "trials (dt, stable, t reached): "
        + ", ".join(f"{1.0 / n:.3g} {'ok' if ok else 'FAIL'} {t:g}" for n, ok, t, _ in trials))
    return pass_N, trials


def accuracy_ladder(code, N_stable, finest, acc_t):
    """Tips at t = acc_t at N_stable and N = 2^k (2^k > N_stable, k <= finest); the Richardson reference."""
    levels = [N_stable] + [2 ** k for k in range(1, finest + 1) if 2 ** k > N_stable]
    if len(levels) < 4:
        raise RuntimeError(f"{code.name}: the ladder needs more levels (raise the finest)")
    tips = {N: code.tip(N, acc_t) for N in levels}
    a, b, c = levels[-3:]
    d1, d2 = np.linalg.norm(tips[a] - tips[b]), np.linalg.norm(tips[b] - tips[c])
    p = math.log2(d1 / d2)
    p_use = min(max(p, 0.5), 4.0)
    rich = lambda lo, hi: tips[hi] + (tips[hi] - tips[lo]) / ((hi / lo) ** p_use - 1.0)  # noqa: E731
    ref = rich(b, c)
    unc = float(np.linalg.norm(ref - rich(a, b)))
    errs = [(N, float(np.linalg.norm(tips[N] - ref))) for N in levels[:-1]]  # the finest defines the reference
    return {"levels": levels, "errs": errs, "p": p, "ref": ref, "ref_unc": unc, "tips": tips}


def dt_for(errs, tol):
    """(dt, how, predicted error) for the tolerance, from [(N, error)] coarsest first (the first is the stable
    step)."""
    if all(e <= tol for _, e in errs):
        return 1.0 / errs[0][0], "stable", errs[0][1]
    i = max(k for k, (_, e) in enumerate(errs) if e > tol)  # the finest level above tol
    if i + 1 < len(errs):
        (Na, ea_), (Nb, eb) = errs[i], errs[i + 1]
        how = "interp."
    else:
        (Na, ea_), (Nb, eb) = errs[i - 1], errs[i]
        how = "extrap."
    p = math.log(ea_ / eb) / math.log(Nb / Na)
    dt_b = 1.0 / Nb
    return dt_b * (tol / eb) ** (1.0 / p), how, tol


def interp_err(errs, N):
    """The error at N by log-log interpolation (or extrapolation along the last interval) of the ladder."""
    pts = sorted(errs)
    for (Na, ea_), (Nb, eb) in zip(pts, pts[1:]):
        if Na <= N <= Nb:
            break
    p = math.log(ea_ / eb) / math.log(Nb / Na)
    return eb * (Nb / N) ** p


# --------------------------------------------------------------------------------------------------- main
def pyelastica_import(path):
    if path:
        sys.path.insert(0, os.path.abspath(path))
    try:
        import elastica
        return elastica, None
    except Exception as e:  # ImportError, or numba missing
        return None, f"{type(e).__name__}: {e}"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--pyelastica", default="")
    ap.add_argument("--js", default="50,100,200")
    ap.add_argument("--damping", default="0,0.1")
    ap.add_argument("--tols", default="1e-5,1e-6,1e-7,1e-8")
    ap.add_argument("--stab-t", type=float, default=10.0)
    ap.add_argument("--verify-t", type=float, default=0.0)
    ap.add_argument("--floor", type=float, default=4.0)
    ap.add_argument("--fallback-t", type=float, default=2.0)
    ap.add_argument("--acc-t", type=float, default=1.0)
    ap.add_argument("--lv-finest", type=int, default=19)
    ap.add_argument("--pe-finest", type=int, default=20)
    ap.add_argument("--pe-steps", type=int, default=20000)
    ap.add_argument("--pe-full-max", type=int, default=200000)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--quick", action="store_true", help="a smoke test: J = 20, short horizons, short ladders")
    a = ap.parse_args()
    if a.quick:
        a.js, a.stab_t, a.lv_finest, a.pe_finest, a.tols = "20", 2.0, 15, 15, "1e-5,1e-6"
        a.pe_steps, a.repeat = 2000, 3
    js = [int(x) for x in a.js.split(",")]
    damps = [float(x) for x in a.damping.split(",")]
    tols = [float(x) for x in a.tols.split(",")]
    ea, why = pyelastica_import(a.pyelastica)
    started = time.perf_counter()
    aff = sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else "?"
    print(f"python_side_by_side.py, {datetime.now(timezone.utc):%Y-%m-%d %H:%M} UTC, {platform.machine()}, "
          f"{os.cpu_count()} CPUs (this process on {aff}), load {os.getloadavg()[0]:.2f}")
    so = lievi._lievi.__file__
    built = datetime.fromtimestamp(os.path.getmtime(so), timezone.utc)
    print(f"lievi {lievi.__version__}: {so} (built {built:%Y-%m-%d %H:%M} UTC)")
    print("PyElastica: " + (f"{os.path.dirname(ea.__file__)}" if ea else f"skipped ({why})"))
    print(f"numpy {np.__version__}; OMP_NUM_THREADS={os.environ['OMP_NUM_THREADS']}, "
          f"NUMBA_NUM_THREADS={os.environ['NUMBA_NUM_THREADS']}")
    print(f"stability: trials to t = {a.stab_t:g} s" + (f", verified to t = {a.verify_t:g} s" if a.verify_t > a.stab_t
                                                         else "") + "; accuracy: tip at t = "
          f"{a.acc_t:g} s, ladders to 2^{a.lv_finest} (lievi) and 2^{a.pe_finest} (PyElastica) steps per second; "
          f"tolerances {', '.join(f'{t:g}' for t in tols)} m", flush=True)

    def log(s):
        print(s, flush=True)

    results = []
    for damp in damps:
        for J in js:
            log(f"\nJ = {J}, damping {damp:g}/s")
            lv = Lievi(J, damp)
            pe = PyElastica(ea, J, damp) if ea else None
            case = {"J": J, "damp": damp, "codes": {}}
            c0 = time.perf_counter()
            for code in [lv] + ([pe] if pe else []):
                info = {}
                if code is lv:
                    info["bound"] = code.bound()
                N_st, trials = largest_stable(code, a.stab_t, a.verify_t, log, a.floor)
                info["horizon"] = max(a.stab_t, a.verify_t)
                if N_st is None:
                    N_st, more = largest_stable(code, a.fallback_t, 0.0, log, a.floor)
                    info["horizon"], trials = a.fallback_t, trials + more
                    if N_st is None:
                        sys.exit(f"{code.name}: no stable step at J = {J}, damping {damp:g}")
                info["N_stable"], info["trials"] = N_st, trials
                lad = accuracy_ladder(code, N_st, a.lv_finest if code is lv else a.pe_finest, a.acc_t)
                info["ladder"] = lad
                log(f"    {code.name}: order p = {lad['p']:.3f} (three finest levels), reference uncertainty "
                    f"{lad['ref_unc']:.1e} m; errors: " + ", ".join(f"dt 1/{N} {e:.2e}" for N, e in lad["errs"]))
                targets = [("stable", 1.0 / N_st, "stable")]
                for tol in tols:
                    dt, how, _ = dt_for(lad["errs"], tol)
                    targets.append((tol, dt, how))
                info["rows"] = [{"label": label, "N": math.ceil(1.0 / dt - 1e-9), "how": how}
                                for label, dt, how in targets]
                for r in info["rows"]:
                    r["dt"] = 1.0 / r["N"]
                case["codes"][code.name] = info
            log(f"    (searches and ladders {time.perf_counter() - c0:.0f} s; timing, load "
                f"{os.getloadavg()[0]:.2f})")
            c0 = time.perf_counter()
            for i, r in enumerate(case["codes"]["lievi"]["rows"]):
                what = "stable" if r["label"] == "stable" else f"tol {r['label']:g}"
                q = case["codes"]["PyElastica"]["rows"][i] if pe else None
                tm = time_row(lv, r["N"], pe, q["N"] if q else None, a)
                for row, code, key in ((r, lv, "lv"), (q, pe, "pe")):
                    if row is None:
                        continue
                    t = tm[key]
                    ref = case["codes"][code.name]["ladder"]
                    row.update({k: t.get(k) for k in ("step", "step_cpu", "step1", "step1_cpu")})
                    if t["tip"] is not None:
                        row["err"], row["err_how"] = float(np.linalg.norm(t["tip"] - ref["ref"])), "measured"
                    else:
                        row["err"], row["err_how"] = interp_err(ref["errs"], row["N"]), "interp."
                    log(f"    {code.name} {what}: "
                        f"dt 1/{row['N']} ({row['how']}), {row['step'] * 1e6:.2f} us/step"
                        + (f", step(1) {row['step1'] * 1e6:.2f} us/step" if row["step1"] else "")
                        + f" (CPU {row['step_cpu'] * 1e6:.2f}), {row['step'] * row['N']:.3g} s per simulated s, "
                        f"tip error {row['err']:.2e} m ({row['err_how']})")
            log(f"    (timing {time.perf_counter() - c0:.0f} s, load {os.getloadavg()[0]:.2f})")
            results.append(case)

    # ------------------------------------------------------------------------------------------ tables
    print(f"\nTotal {time.perf_counter() - started:.0f} s.\n")
    has_pe = ea is not None
    worst = {"stable": math.inf}
    for case in results:
        lv = case["codes"]["lievi"]
        pe = case["codes"].get("PyElastica")
        print(f"#### J = {case['J']}, " + ("undamped" if case["damp"] == 0 else f"damping {case['damp']:g}/s"))
        print()
        s = f"lievi: a-priori bound {lv['bound']:.3g} s, largest dt stable to t = {lv['horizon']:g} s: " \
            f"{1.0 / lv['N_stable']:.3g} s " \
            f"({1.0 / (lv['N_stable'] * lv['bound']):.2f} of the bound); " \
            f"measured order {lv['ladder']['p']:.2f}, reference uncertainty {lv['ladder']['ref_unc']:.0e} m."
        if pe:
            none = pe["horizon"] < a.stab_t
            s += (f" PyElastica: no step stable to t = {a.stab_t:g} s (the trials above); its" if none
                  else " PyElastica:") + \
                 f" largest dt stable to t = {pe['horizon']:g} s: {1.0 / pe['N_stable']:.3g} s " \
                 f"({1.0 / pe['N_stable'] * case['J'] / L:.4f} ds); measured order {pe['ladder']['p']:.2f}, " \
                 f"reference uncertainty {pe['ladder']['ref_unc']:.0e} m. The two references' tips at t = " \
                 f"{a.acc_t:g} s differ by {np.linalg.norm(lv['ladder']['ref'] - pe['ladder']['ref']):.1e} m " \
                 f"(the codes' different spatial discretisations)."
        print(s)
        print()
        head = "| step | lievi dt | lievi µs/step, step(n) / step(1) | lievi s per sim. s, step(n) / step(1) | " \
               "lievi tip error (m) |"
        sep = "|---|---|---|---|---|"
        if has_pe:
            head += " PyElastica dt | PyElastica µs/step | PyElastica s per sim. s | PyElastica tip error (m) | " \
                    "**ratio**, step(n) / step(1) | ratio by CPU time, step(n) |"
            sep += "---|---|---|---|---|---|"
        print(head)
        print(sep)
        for i, r in enumerate(lv["rows"]):
            label = "largest stable" if r["label"] == "stable" else f"tip error ≤ {r['label']:g} m"
            if r["label"] == "stable" and pe and pe["horizon"] != lv["horizon"]:
                label += f" (PyElastica: to t = {pe['horizon']:g} s only)"
            flag = lambda row: "" if row["how"] == "interp." or row["label"] == "stable" else f" ({row['how']})"  # noqa
            cells = [label, f"{r['dt']:.3g}{flag(r)}", f"{r['step'] * 1e6:.2f} / {r['step1'] * 1e6:.2f}",
                     f"{r['step'] / r['dt']:.3g} / {r['step1'] / r['dt']:.3g}", f"{r['err']:.1e}"]
            if has_pe:
                q = pe["rows"][i]
                sec_pe = q["step"] / q["dt"]
                r_n, r_1 = sec_pe / (r["step"] / r["dt"]), sec_pe / (r["step1"] / r["dt"])
                r_cpu = (q["step_cpu"] / q["dt"]) / (r["step_cpu"] / r["dt"])
                x = lambda v: f"{v:.0f}x" if v >= 10 else f"{v:.1f}x"  # noqa: E731
                cells += [f"{q['dt']:.3g}{flag(q)}", f"{q['step'] * 1e6:.1f}", f"{sec_pe:.3g}",
                          f"{q['err']:.1e}" + (" (interp.)" if q["err_how"] == "interp." else ""),
                          f"**{x(r_n)}** / {x(r_1)}", x(r_cpu)]
                worst[r["label"]] = min(worst.get(r["label"], math.inf), r_n)
            print("| " + " | ".join(cells) + " |")
        print()
    if has_pe:
        print("Smallest ratio (step(n)) over the cases: "
              + "; ".join(f"{'largest stable' if k == 'stable' else f'tol {k:g} m'} {v:.1f}x"
                          for k, v in worst.items()))


if __name__ == "__main__":
    main()
