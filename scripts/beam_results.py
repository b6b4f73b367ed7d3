#!/usr/bin/python3
"""Results page of the geometrically exact beam on SE(3) (seed 000, deterministic): docs/results/beam.md.

Usage: /usr/bin/python3 scripts/beam_results.py path/to/lievi [--keep]

Runs `lievi run` on examples/beam/*.toml (with --set overrides only: output cadence, dt refinement) into a
temporary folder, two at a time, writes docs/results/img/beam_*.png and docs/results/beam_numbers.txt (a copy of
what it prints). --keep leaves the temporary run folder in place (its path is printed).
"""
import concurrent.futures as cf
import json
import math
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import h5py  # noqa: E402
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
EX = ROOT / "examples" / "beam"
IMG = ROOT / "docs" / "results" / "img"
NUMBERS = ROOT / "docs" / "results" / "beam_numbers.txt"

_out = []


def say(*a):
    line = " ".join(str(x) for x in a)
    print(line, flush=True)
    _out.append(line)


def read_csv(path):
    with open(path) as f:
        head = f.readline().strip().split(",")
    data = np.loadtxt(path, delimiter=",", skiprows=1, ndmin=2)
    return {h: data[:, i] for i, h in enumerate(head)}


def read_fields(d):
    with h5py.File(d / "fields.h5", "r") as h:
        return {"t": h["t"][()], "s": h["s"][()], "p": h["p"][()], "R": h["R"][()]}


class Runner:
    def __init__(self, exe, tmp):
        self.exe, self.tmp = exe, Path(tmp)

    def run(self, name, toml, sets=()):
        out = self.tmp / name
        cmd = [self.exe, "run", str(EX / toml), "--out", str(out), "--set", "output.plots=false",
               "--set", "output.vtk=false"]
        for s in sets:
            cmd += ["--set", s]
        t0 = time.time()
        for _ in range(60):  # the binary may briefly be missing while someone relinks it
            if os.path.exists(self.exe):
                break
            time.sleep(2)
        p = subprocess.run(cmd, capture_output=True, text=True)
        if p.returncode != 0:
            raise RuntimeError(f"{' '.join(cmd)}\nexit {p.returncode}\n{p.stdout}\n{p.stderr}")
        summ = json.loads((out / "summary.json").read_text())
        return {"dir": out, "summary": summ, "wall": time.time() - t0, "cmd": cmd,
                "series": read_csv(out / "series.csv")}


def fluct(x):
    return float(np.max(x) - np.min(x))


def mom_cols():
    return ["Jang_x", "Jang_y", "Jang_z", "Jlin_x", "Jlin_y", "Jlin_z"]


def mom_drift(S, mask=None):
    m = np.ones_like(S["t"], bool) if mask is None else mask
    J = np.array([S[c][m] for c in mom_cols()])
    return float(np.max(np.abs(J - J[:, :1])))


def section(sc):
    m = sc["model"]
    a = m["a"]
    A, I = a * a, a ** 4 / 12
    G = m["E"] / (2 * (1 + m["nu"]))
    return A, I, G


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    exe = os.path.abspath(sys.argv[1])
    keep = "--keep" in sys.argv[2:]
    t_start = time.time()
    IMG.mkdir(parents=True, exist_ok=True)
    tmp = tempfile.mkdtemp(prefix="lievi_beam_")
    R = Runner(exe, tmp)
    ver = subprocess.run([exe, "--version"], capture_output=True, text=True).stdout.strip()
    cpu = "?"
    try:
        cpu = next(l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name"))
    except (OSError, StopIteration):
        pass
    say(f"beam_results.py: {ver} ({os.path.relpath(exe, ROOT)}); numpy {np.__version__}, matplotlib "
        f"{matplotlib.__version__}, h5py {h5py.__version__}; {platform.machine()} {cpu}, {os.cpu_count()} cores, "
        f"load average {os.getloadavg()[0]:.2f}")
    say(f"started {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; runs in {tmp}")

    # ---------------------------------------------------------------- the runs (2 at a time, longest first)
    jobs = {
        # bending: series.csv at every step (the fluctuation of E_d is a step-to-step effect; sampling every
        # 10 steps, as bending.toml does, misses part of it)
        "bend2.5e-5": ("bending.toml", ["integrator.dt=2.5e-5", "output.every=1", "output.fields=false"]),
        "bend5e-5": ("bending.toml", ["integrator.dt=5e-5", "output.every=1", "output.fields=false"]),
        "bend1e-4": ("bending.toml", ["output.every=1", "output.fields_every=100"]),
        "spaghetti": ("flying_spaghetti.toml", ["output.fields_every=100"]),
        "ring": ("ring.toml", []),
        "cantilever": ("cantilever.toml", []),
        "damped": ("damped_cantilever.toml", []),
        "whip": ("whip.toml", ["output.fields_every=50"]),
    }
    res = {}
    with cf.ThreadPoolExecutor(max_workers=2) as pool:
        fut = {pool.submit(R.run, k, *v): k for k, v in jobs.items()}
        for f in cf.as_completed(fut):
            res[fut[f]] = f.result()
    say("run times (wall, s; 2 runs at a time): " + ", ".join(f"{k} {res[k]['wall']:.2f}" for k in jobs))
    say("lievi integrate_s / ns per node-step: " + ", ".join(
        f"{k} {res[k]['summary']['timing']['integrate_s']:.2f}/{res[k]['summary']['timing']['ns_per_node_step']:.0f}"
        for k in jobs))
    say("a-priori stable dt bound (summary stable_dt_bound) vs dt: " + ", ".join(
        f"{k} {res[k]['summary']['stable_dt_bound']:.3e}/{res[k]['summary']['scenario']['integrator']['dt']:g}"
        for k in jobs))

    # ---------------------------------------------------------------- 1. bending beam
    say("\n== 1. Bending beam (Table 1; docs/theory/beam.md \"Examples and linear checks\"): vertex J = 20, "
        "free-free, prestressed arc released from rest, T = 2; series at every step")
    B = [("1e-4", "bend1e-4"), ("5e-5", "bend5e-5"), ("2.5e-5", "bend2.5e-5")]
    say(f"  {'dt':>7s} {'E_c(0)':>12s} {'E_d max-min':>12s} {'order':>6s} {'E_c max-min':>12s} {'order':>6s} "
        f"{'E_c(T)-E_c(0)':>14s} {'mom. drift':>10s} {'max orth_err':>12s} {'newton mean':>11s}")
    prev = None
    flucts = {}
    for dts, k in B:
        S = res[k]["series"]
        fd, fc = fluct(S["E_d"]), fluct(S["E_c"])
        flucts[dts] = (fd, fc)
        od = oc = ""
        if prev:
            od = f"{math.log(prev[0] / fd, 2):.2f}"
            oc = f"{math.log(prev[1] / fc, 2):.2f}"
        prev = (fd, fc)
        say(f"  {dts:>7s} {S['E_c'][0]:12.6f} {fd:12.4e} {od:>6s} {fc:12.4e} {oc:>6s} "
            f"{S['E_c'][-1] - S['E_c'][0]:14.3e} {mom_drift(S):10.2e} {S['orth_err'].max():12.2e} "
            f"{res[k]['summary']['diagnostics']['newton_mean']:11.3f}")
    S = res["bend1e-4"]["series"]
    say(f"  initial strain energy V(0) = {S['potential'][0]:.6f} J (dt-independent; E_c(0) adds the start's "
        f"half-kick kinetic energy)")
    say(f"  momentum map at t = 0 (dt = 1e-4): Jang = ({S['Jang_x'][0]:.3e}, {S['Jang_y'][0]:.3e}, "
        f"{S['Jang_z'][0]:.3e}), Jlin = ({S['Jlin_x'][0]:.3e}, {S['Jlin_y'][0]:.3e}, {S['Jlin_z'][0]:.3e})")
    z = S["p10_z"]
    say(f"  mid node (probe 10) z: from {z[0]:.4f} to min {z.min():.4f} at t = {S['t'][z.argmin()]:.3f}, "
        f"max {z.max():.4f} at t = {S['t'][z.argmax()]:.3f}")
    fig, ax = plt.subplots(1, 3, figsize=(15, 4.3), constrained_layout=True)
    for dts, k in B[:2]:
        S = res[k]["series"]
        ax[0].plot(S["t"], S["E_d"], lw=0.7, label=f"$E_d$, Δt = {dts}")
        ax[1].plot(S["t"], S["E_c"] - S["E_c"][0], lw=0.7, label=f"$E_c-E_c(0)$, Δt = {dts}")
    ax[0].set_xlabel("t")
    ax[0].set_ylabel("J")
    ax[0].set_title("paper's energy $E_d$ (K half a step after V)")
    ax[0].legend(fontsize=8)
    ax[1].set_xlabel("t")
    ax[1].set_title("time-centred energy $E_c - E_c(0)$")
    ax[1].legend(fontsize=8)
    d = np.array([1e-4, 5e-5, 2.5e-5])
    fd = np.array([flucts[x][0] for x in ["1e-4", "5e-5", "2.5e-5"]])
    fc = np.array([flucts[x][1] for x in ["1e-4", "5e-5", "2.5e-5"]])
    ax[2].loglog(d, fd, "o-", label="$E_d$ max−min")
    ax[2].loglog(d, fc, "s-", label="$E_c$ max−min")
    ax[2].loglog(d, fd[0] * d / d[0], "k:", lw=0.8, label="slope 1")
    ax[2].loglog(d, fc[0] * (d / d[0]) ** 2, "k--", lw=0.8, label="slope 2")
    ax[2].set_xlabel("Δt")
    ax[2].set_title("fluctuation over T = 2")
    ax[2].legend(fontsize=8)
    ax[2].grid(True, which="both", alpha=0.3)
    fig.suptitle("Bending beam (Table 1): energies")
    fig.savefig(IMG / "beam_bending_energy.png", dpi=110)
    plt.close(fig)

    F = read_fields(res["bend1e-4"]["dir"])
    times = np.arange(0, 0.501, 0.05)  # about one period of the arch's swing
    fig, ax = plt.subplots(1, 2, figsize=(12, 4.6), constrained_layout=True,
                           gridspec_kw={"width_ratios": [1.3, 1]})
    cmap = plt.get_cmap("viridis")
    for i, tt in enumerate(times):
        n = int(np.argmin(np.abs(F["t"] - tt)))
        P = F["p"][n]
        ax[0].plot(P[:, 1], P[:, 2], ".-", color=cmap(i / (len(times) - 1)), lw=1, ms=3, label=f"t = {F['t'][n]:.2f}")
    ax[0].set_aspect("equal")
    ax[0].set_xlabel("y")
    ax[0].set_ylabel("z")
    ax[0].set_title("centre line (fields.h5 /p), Δt = 1e-4 (x stays 0)")
    ax[0].legend(fontsize=7, ncol=2)
    S = res["bend1e-4"]["series"]
    ax[1].plot(S["t"], S["p10_z"], lw=0.8, label="mid node z")
    ax[1].plot(S["t"], S["end0_z"], lw=0.8, label="end node z")
    ax[1].set_xlabel("t")
    ax[1].legend(fontsize=8)
    ax[1].set_title("mid node and end node height")
    print_xmax = float(np.max(np.abs(F["p"][:, :, 0])))
    say(f"  max |x| of the centre line over all snapshots: {print_xmax:.2e} (planar motion)")
    fig.savefig(IMG / "beam_bending_snapshots.png", dpi=110)
    plt.close(fig)

    # ---------------------------------------------------------------- 2. flying spaghetti
    say("\n== 2. Flying spaghetti (docs/theory/beam.md \"Examples and linear checks\"): vertex J = 20, dt = 1e-3, "
        "dead hat wrench at node 0 until t = 5, T = 15")
    S = res["spaghetti"]["series"]
    t = S["t"]
    after = t >= 5.0 - 1e-12
    i5 = int(np.argmax(after))
    say(f"  linear momentum at t = {t[i5]:g}: ({S['Jlin_x'][i5]:.10f}, {S['Jlin_y'][i5]:.3e}, {S['Jlin_z'][i5]:.3e}) "
        f"vs (50, 0, 0): error {math.sqrt((S['Jlin_x'][i5] - 50) ** 2 + S['Jlin_y'][i5] ** 2 + S['Jlin_z'][i5] ** 2):.2e}")
    say(f"  angular momentum at t = 5: ({S['Jang_x'][i5]:.6f}, {S['Jang_y'][i5]:.6f}, {S['Jang_z'][i5]:.6f})")
    Jmax = max(float(np.max(np.abs(S[c][after]))) for c in mom_cols())
    say(f"  momentum-map drift over t in [5, 15] (free flight): {mom_drift(S, after):.2e} "
        f"(relative to the largest component {Jmax:.1f}: {mom_drift(S, after) / Jmax:.1e})")
    Ec = S["E_c"][after]
    say(f"  energy after the load: E_c(5) = {Ec[0]:.6f}, E_c(15) = {Ec[-1]:.6f}, mean {Ec.mean():.6f}, "
        f"max-min {fluct(Ec):.3e} (prototype: 871.52); E_d max-min over [5, 15] {fluct(S['E_d'][after]):.3e}")
    say(f"  end positions at T = {t[-1]:g}: node 0 ({S['end0_x'][-1]:.4f}, {S['end0_y'][-1]:.4f}, {S['end0_z'][-1]:.4f}), "
        f"node 20 ({S['endL_x'][-1]:.4f}, {S['endL_y'][-1]:.4f}, {S['endL_z'][-1]:.4f})")
    say(f"  max orth_err {S['orth_err'].max():.2e}, newton mean {res['spaghetti']['summary']['diagnostics']['newton_mean']:.3f}")
    F = read_fields(res["spaghetti"]["dir"])
    snap_t = np.concatenate([np.arange(0, 5.0, 0.5), np.arange(5, 15.01, 1.0)])
    fig = plt.figure(figsize=(14, 10), constrained_layout=True)
    gs = fig.add_gridspec(2, 3)
    a3 = fig.add_subplot(gs[0, :2], projection="3d")
    proj = [fig.add_subplot(gs[0, 2]), fig.add_subplot(gs[1, 0]), fig.add_subplot(gs[1, 1])]
    aE = fig.add_subplot(gs[1, 2])
    for i, tt in enumerate(snap_t):
        n = int(np.argmin(np.abs(F["t"] - tt)))
        P = F["p"][n]
        c = cmap(i / (len(snap_t) - 1))
        a3.plot(P[:, 0], P[:, 1], P[:, 2], color=c, lw=1.2)
        for a, (u, v) in zip(proj, [(0, 1), (0, 2), (1, 2)]):
            a.plot(P[:, u], P[:, v], color=c, lw=1)
    a3.set_xlabel("x")
    a3.set_ylabel("y")
    a3.set_zlabel("z")
    a3.set_title("centre line every 0.5 s up to t = 5, then every 1 s; t = 0 (purple) … 15 (yellow)")
    for a, (u, v) in zip(proj, [("x", "y"), ("x", "z"), ("y", "z")]):
        a.set_xlabel(u)
        a.set_ylabel(v)
        a.set_aspect("equal", adjustable="datalim")
        a.set_title(f"{u}–{v} projection")
    aE.plot(t, S["E_c"], lw=0.9, color="C0", label="$E_c$ (left)")
    aE.axhline(871.52, color="C0", ls=":", lw=0.8, label="871.52 J (prototype)")
    aE.set_ylabel("J")
    aM = aE.twinx()
    aM.plot(t, S["Jlin_x"], lw=0.9, color="C1", label="$J_{lin,x}$ (right)")
    aM.axhline(50, color="C1", ls=":", lw=0.8, label="50")
    aM.set_ylim(0, 60)
    aE.set_ylim(0, 1050)
    aE.axvline(5, color="r", lw=0.5)
    aE.set_xlabel("t")
    aE.legend(fontsize=8, loc="lower right")
    aM.legend(fontsize=8, loc="center right")
    aE.set_title("energy and linear momentum (load until t = 5)")
    fig.suptitle("Flying spaghetti (Simo & Vu-Quoc), lievi exact/Cayley, J = 20, Δt = 1e-3")
    fig.savefig(IMG / "beam_spaghetti.png", dpi=100)
    plt.close(fig)

    # ---------------------------------------------------------------- 3. cantilevers
    say("\n== 3. Cantilever under gravity (clamped at s = 0, Table-1 section with E = 1e11), vertex J = 10, dt = 5e-6, T = 0.2")
    sc = res["cantilever"]["summary"]["scenario"]
    A, I, G = section(sc)
    m = sc["model"]
    Lb = sc["grid"]["length"]
    q = m["rho"] * A * abs(m["gravity"][2])
    ks = m.get("shear_factor", 1.0)
    w_eb, w_sh = q * Lb ** 4 / (8 * m["E"] * I), q * Lb ** 2 / (2 * ks * G * A)
    st = w_eb + w_sh
    om1 = 1.87510407 ** 2 * math.sqrt(m["E"] * I / (m["rho"] * A)) / Lb ** 2
    say(f"  static tip deflection q L^4/(8EJ) + q L^2/(2 k_s G A) = {w_eb:.6e} + {w_sh:.6e} = {st:.6e} m "
        f"(q = {q:.4f} N/m); Euler-Bernoulli omega_1 = {om1:.2f} rad/s (period {2 * math.pi / om1 * 1e3:.2f} ms)")
    Su = res["cantilever"]["series"]
    zu = Su["endL_z"]
    tu = Su["t"]
    # estimate the measured first period from the upward zero crossings of z + st
    y = zu + st
    cr = tu[1:][(y[:-1] < 0) & (y[1:] >= 0)]
    Tm = float(np.mean(np.diff(cr))) if len(cr) > 2 else float("nan")
    say(f"  undamped: tip z in [{zu.min():.6e}, {zu.max():.6e}], midpoint {(zu.min() + zu.max()) / 2:.6e}, time mean "
        f"{zu.mean():.6e}; midpoint vs -static: rel. {((zu.min() + zu.max()) / 2 + st) / st:+.2e}; "
        f"measured period {Tm * 1e3:.3f} ms (omega {2 * math.pi / Tm:.1f} rad/s); E_c max-min "
        f"{fluct(Su['E_c']):.3e}")
    Sd = res["damped"]["series"]
    sd = res["damped"]["summary"]["scenario"]["damping"]
    zd, td = Sd["endL_z"], Sd["t"]
    rel = np.abs(zd + st) / st
    def settle(tol):
        bad = np.nonzero(rel > tol)[0]
        return td[bad[-1] + 1] if len(bad) and bad[-1] + 1 < len(td) else (td[0] if not len(bad) else float("nan"))
    say(f"  damped (linear = {sd['linear']:g}, angular = {sd['angular']:g} 1/s; 2 omega_1 = {2 * om1:.1f}): "
        f"tip z(T) = {zd[-1]:.9e}, rel. error to -static {(zd[-1] + st) / st:+.2e}; "
        f"min z {zd.min():.9e} (overshoot beyond -static {max(0.0, -(zd.min() + st)) / st:.2e} rel.)")
    say(f"  damped: |z - z(T)| / static at t = 50, 100, 150 ms: " + ", ".join(
        f"{np.abs(zd[np.argmin(np.abs(td - tt))] - zd[-1]) / st:.1e}" for tt in (0.05, 0.1, 0.15)))
    say("  settling: within 1e-2 of the static deflection from t = " + f"{settle(1e-2) * 1e3:.2f} ms, 1e-4 from "
        f"{settle(1e-4) * 1e3:.2f} ms, 1e-6 from {settle(1e-6) * 1e3:.2f} ms; kinetic(T) = {Sd['kinetic'][-1]:.3e} J")
    fig, ax = plt.subplots(1, 2, figsize=(13, 4.3), constrained_layout=True)
    ax[0].plot(tu * 1e3, zu * 1e3, lw=0.8, label="undamped (cantilever.toml)")
    ax[0].plot(td * 1e3, zd * 1e3, lw=1.2, label=f"damped, c = {sd['linear']:g} 1/s (damped_cantilever.toml)")
    ax[0].axhline(-st * 1e3, color="k", ls="--", lw=0.8, label="−(qL⁴/8EJ + qL²/2k_sGA)")
    ax[0].set_xlabel("t [ms]")
    ax[0].set_ylabel("tip z [mm]")
    ax[0].legend(fontsize=8)
    ax[0].set_title("tip deflection")
    ax[1].semilogy(td * 1e3, np.maximum(rel, 1e-16), lw=0.8, label="|z + static| / static")
    ax[1].semilogy(td * 1e3, np.maximum(np.abs(zd - zd[-1]) / st, 1e-16), lw=0.8,
                   label="|z − z(T)| / static (to the discrete equilibrium)")
    ax[1].semilogy(td * 1e3, np.exp(-sd["linear"] / 2 * td), "k:", lw=0.8, label="exp(−c t / 2)")
    ax[1].set_xlabel("t [ms]")
    ax[1].set_ylabel("relative distance")
    ax[1].set_title("damped: distance to the static deflection")
    ax[1].legend(fontsize=8)
    fig.suptitle("Cantilever under gravity: Table-1 section, E = 1e11, J = 10, Δt = 5e-6")
    fig.savefig(IMG / "beam_cantilever.png", dpi=110)
    plt.close(fig)

    # ---------------------------------------------------------------- 4. ring
    say("\n== 4. Ring (periodic, shift 0, model.reference = initial), J = 40, dt = 5e-4, T = 4")
    S = res["ring"]["series"]
    say(f"  initial velocity {res['ring']['summary']['scenario']['initial']['velocity']}; E_c(0) = {S['E_c'][0]:.6f}, "
        f"E_c max-min {fluct(S['E_c']):.3e}, E_c(T)-E_c(0) {S['E_c'][-1] - S['E_c'][0]:.2e}, "
        f"max potential {S['potential'].max():.4f} J")
    for c in mom_cols():
        say(f"  {c}: initial {S[c][0]: .15e}, max |J - J(0)| {np.max(np.abs(S[c] - S[c][0])):.2e}")
    say(f"  summary momentum_max_drift {res['ring']['summary']['diagnostics'].get('momentum_max_drift')}, "
        f"max orth_err {S['orth_err'].max():.2e}, stable dt bound {res['ring']['summary']['stable_dt_bound']:.3e}")
    Fr = read_fields(res["ring"]["dir"])
    rad = np.hypot(Fr["p"][:, :, 1], Fr["p"][:, :, 2])
    say(f"  centre-line radius in [{rad.min():.6f}, {rad.max():.6f}]; x spread over nodes "
        f"{np.max(np.ptp(Fr['p'][:, :, 0], axis=1)):.1e} (the motion stays axisymmetric); node 0 x(T) = "
        f"{S['end0_x'][-1]:.6f} (v3 T = {0.5 * S['t'][-1]:.3f})")
    fig, ax = plt.subplots(1, 2, figsize=(13, 4.3), constrained_layout=True)
    for c in mom_cols():
        ax[0].semilogy(S["t"], np.maximum(np.abs(S[c] - S[c][0]), 1e-17), lw=0.7, label=c)
    ax[0].set_xlabel("t")
    ax[0].set_ylabel("|J(t) − J(0)|")
    ax[0].set_title(f"momentum map drift (Jang_x(0) = {S['Jang_x'][0]:.3f}, Jlin_x(0) = {S['Jlin_x'][0]:.3f})")
    ax[0].legend(fontsize=8, ncol=2)
    ax[1].plot(S["t"], S["E_c"] - S["E_c"][0], lw=0.7, label="$E_c - E_c(0)$")
    ax[1].plot(S["t"], S["potential"], lw=0.7, label="potential")
    ax[1].set_xlabel("t")
    ax[1].legend(fontsize=8)
    ax[1].set_title("energy exchange")
    fig.suptitle("Spinning, wobbling stress-free ring (Table-1 section), J = 40, Δt = 5e-4")
    fig.savefig(IMG / "beam_ring.png", dpi=110)
    plt.close(fig)

    # ---------------------------------------------------------------- 5. whip
    say("\n== 5. Whip: straight beam, left end prescribed (raised-cosine lift 5 cm over 0.2 s), J = 40, dt = 2e-4, T = 0.6")
    S = res["whip"]["series"]
    F = read_fields(res["whip"]["dir"])
    say(f"  end 0 z max {S['end0_z'].max():.4f} at t = {S['t'][S['end0_z'].argmax()]:.3f}; tip z max "
        f"{S['endL_z'].max():.4f} at t = {S['t'][S['endL_z'].argmax()]:.3f}, min {S['endL_z'].min():.4f} at t = "
        f"{S['t'][S['endL_z'].argmin()]:.3f}; tip x min {S['endL_x'].min():.4f}")
    first = S["t"][np.argmax(np.abs(S["endL_z"]) > 1e-3)]
    say(f"  tip first moves by 1 mm at t = {first:.3f}; E_c(T) = {S['E_c'][-1]:.4f} J (work done by the end), "
        f"max orth_err {S['orth_err'].max():.2e}, newton mean {res['whip']['summary']['diagnostics']['newton_mean']:.3f}")
    fig, ax = plt.subplots(1, 2, figsize=(14, 4.6), constrained_layout=True, gridspec_kw={"width_ratios": [1.6, 1]})
    snap_t = np.arange(0, 0.601, 0.05)
    for i, tt in enumerate(snap_t):
        n = int(np.argmin(np.abs(F["t"] - tt)))
        P = F["p"][n]
        ax[0].plot(P[:, 0], P[:, 2] * 100, color=cmap(i / (len(snap_t) - 1)), lw=1, label=f"t = {F['t'][n]:.2f}")
    ax[0].set_xlabel("x [m]")
    ax[0].set_ylabel("z [cm]")
    ax[0].legend(fontsize=7, ncol=3)
    ax[0].set_title("centre line every 0.05 s")
    ax[1].plot(S["t"], S["end0_z"] * 100, lw=1, label="prescribed end (node 0)")
    ax[1].plot(S["t"], S["p20_z"] * 100, lw=0.8, label="middle (node 20)")
    ax[1].plot(S["t"], S["endL_z"] * 100, lw=0.8, label="free tip (node 40)")
    ax[1].set_xlabel("t [s]")
    ax[1].set_ylabel("z [cm]")
    ax[1].legend(fontsize=8)
    ax[1].set_title("heights")
    fig.suptitle("Whip: Table-1 section, L = 4 m, left end lifted 5 cm and back (whip_motion.csv)")
    fig.savefig(IMG / "beam_whip.png", dpi=110)
    plt.close(fig)

    # ---------------------------------------------------------------- done
    say(f"\nfigures: {', '.join(sorted(p.name for p in IMG.glob('beam_*.png')))}")
    say(f"script run time {time.time() - t_start:.1f} s (sum of run walls {sum(r['wall'] for r in res.values()):.1f} s)")
    NUMBERS.write_text("\n".join(_out) + "\n")
    if keep:
        print(f"kept {tmp}")
    else:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
