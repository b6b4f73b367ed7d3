#!/usr/bin/python3
"""Results page of the stochastic wave equation (seed 000, §6, Figure 5): docs/results/wave.md.

Usage: /usr/bin/python3 scripts/wave_results.py path/to/lievi [--keep]

Runs `lievi run` on examples/wave/*.toml (with --set overrides only) into a temporary folder, writes
docs/results/img/wave_*.png and docs/results/wave_numbers.txt (a copy of what it prints).
--keep leaves the temporary run folder in place (its path is printed).
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
EX = ROOT / "examples" / "wave"
IMG = ROOT / "docs" / "results" / "img"
NUMBERS = ROOT / "docs" / "results" / "wave_numbers.txt"

THETAS = ["5e-4", "1e-3", "5e-3", "1e-2"]
PROTO_EC = {"1e-3": 1.22e-5, "1e-4": 1.22e-7, "1e-5": 1.22e-9, "1e-6": 1.23e-11}  # the prototype's E_c max-min
PAPER = {"1e-4": "O(1e-3)", "1e-5": "O(1e-4)", "1e-6": "O(1e-5)"}  # §8.1
N_PATHS = 100        # independent-noise ensemble
T_IND = 20.0         # its final time (the paper's T; ~70 s on 2 cores)
J_SCAN = [50, 100, 200]
J_SCAN_PATHS = 20
T_SCAN = 2.0

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


class Runner:
    def __init__(self, exe, tmp):
        self.exe, self.tmp = exe, Path(tmp)

    def run(self, name, toml, sets=(), paths=None):
        out = self.tmp / name
        cmd = [self.exe, "run", str(EX / toml), "--out", str(out), "--set", "output.plots=false"]
        for s in sets:
            cmd += ["--set", s]
        if paths:
            cmd += ["--paths", str(paths)]
        t0 = time.time()
        for attempt in range(30):  # the binary may briefly be missing while someone relinks it
            if os.path.exists(self.exe):
                break
            time.sleep(2)
        p = subprocess.run(cmd, capture_output=True, text=True)
        if p.returncode != 0:
            raise RuntimeError(f"{' '.join(cmd)}\nexit {p.returncode}\n{p.stdout}\n{p.stderr}")
        summ = json.loads((out / "summary.json").read_text())
        return {"dir": out, "summary": summ, "wall": time.time() - t0, "cmd": cmd}


def fluct(x):
    return float(np.max(x) - np.min(x))


def slope(dts, ys):
    return float(np.polyfit(np.log10(dts), np.log10(ys), 1)[0])


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    exe = os.path.abspath(sys.argv[1])
    keep = "--keep" in sys.argv[2:]
    t_start = time.time()
    IMG.mkdir(parents=True, exist_ok=True)
    tmp = tempfile.mkdtemp(prefix="lievi_wave_")
    R = Runner(exe, tmp)
    ver = subprocess.run([exe, "--version"], capture_output=True, text=True).stdout.strip()
    say(f"wave_results.py: {ver} ({os.path.relpath(exe)}); numpy {np.__version__}, matplotlib {matplotlib.__version__}, "
        f"h5py {h5py.__version__}; {platform.machine()}, {os.cpu_count()} cores")
    say(f"started {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; runs in {tmp}")

    # ---------------------------------------------------------------- the runs (2 at a time, longest first)
    fig5_sets = ["output.every=10", "output.fields_every=100"]  # series every 1e-3 s, fields every 1e-2 s
    jobs = {
        "ind": ("independent.toml", [f"integrator.t_end={T_IND:g}", "output.per_path=true", "output.every=100"],
                N_PATHS),
        "dt1e-6": ("deterministic.toml", ["integrator.dt=1e-6", "output.every=1000", "output.fields=false"], None),
        "dt1e-6_T2": ("deterministic.toml", ["integrator.dt=1e-6", "integrator.t_end=2", "output.every=1000",
                                             "output.fields=false"], None),
        "dt1e-5": ("deterministic.toml", ["integrator.dt=1e-5", "output.every=100", "output.fields=false"], None),
        "det": ("deterministic.toml", fig5_sets, None),
        **{f"theta{th}": (f"theta_{th}.toml", fig5_sets, None) for th in THETAS},
        "dt1e-3": ("deterministic.toml", ["integrator.dt=1e-3", "output.every=1", "output.fields=false"], None),
        **{f"J{J}": ("independent.toml", [f"grid.J={J}", f"integrator.t_end={T_SCAN:g}", "output.per_path=true",
                                          "output.every=100"], J_SCAN_PATHS) for J in J_SCAN},
    }
    res = {}
    with cf.ThreadPoolExecutor(max_workers=2) as pool:
        fut = {pool.submit(R.run, k, *v): k for k, v in jobs.items()}
        for f in cf.as_completed(fut):
            res[fut[f]] = f.result()
    say("run times (wall, s; 2 runs at a time): " +
        ", ".join(f"{k} {res[k]['wall']:.1f}" for k in jobs))
    say("ns per node-step (lievi timing): " +
        ", ".join(f"{k} {res[k]['summary']['timing']['ns_per_node_step']:.1f}" for k in jobs))

    # ---------------------------------------------------------------- 1. Figure 5
    say("\n== 1. Figure 5: cell J = 100, free ends, phi0 = cos(pi s), dt = 1e-4, T = 20, common noise, seed 2026")
    rows = [("deterministic", "det")] + [(f"Θ = {th}", f"theta{th}") for th in THETAS]
    ser, fld = {}, {}
    for _, k in rows:
        ser[k] = read_csv(res[k]["dir"] / "series.csv")
        with h5py.File(res[k]["dir"] / "fields.h5", "r") as h:
            fld[k] = {"t": h["t"][()], "s": h["s"][()], "phi": h["phi"][()]}
    fig, ax = plt.subplots(5, 3, figsize=(13, 13), constrained_layout=True,
                           gridspec_kw={"width_ratios": [1.4, 1, 1]})
    levels = np.linspace(-1.05, 1.05, 22)
    for i, (label, k) in enumerate(rows):
        F, S = fld[k], ser[k]
        cs = ax[i, 0].contourf(F["t"], F["s"], F["phi"].T, levels=levels, cmap="RdBu_r")
        ax[i, 0].set_ylabel(f"{label}\ns")
        ax[i, 1].plot(S["t"], S["E_d"] - S["E_d"][0], lw=0.5)
        ax[i, 2].plot(S["t"], S["E_c"] - S["E_c"][0], lw=0.5, color="C1")
        ax[i, 1].set_ylabel(r"$E_d-E_d(0)$")
        ax[i, 2].set_ylabel(r"$E_c-E_c(0)$")
        say(f"  {label:14s} E_d(0) = {S['E_d'][0]:.10f}  max-min E_d = {fluct(S['E_d']):.4e}  "
            f"max-min E_c = {fluct(S['E_c']):.4e}  E_c(T)-E_c(0) = {S['E_c'][-1] - S['E_c'][0]:.2e}  "
            f"phi range [{F['phi'].min():.4f}, {F['phi'].max():.4f}]")
    fig.colorbar(cs, ax=ax[:, 0], location="left", shrink=0.35, aspect=30, label="φ (left column)")
    ax[0, 0].set_title("φ(s, t)", pad=14)
    ax[0, 1].set_title("paper's energy $E_d$ (K half a step after V)", pad=14)
    ax[0, 2].set_title("time-centred energy $E_c$", pad=14)
    for a in ax[-1]:
        a.set_xlabel("t")
    fig.suptitle("Figure 5 (seed 000): cell J = 100, free ends, Δt = 1e-4, common noise (seed 2026)")
    fig.savefig(IMG / "wave_fig5.png", dpi=110)
    plt.close(fig)
    say(f"  discrete E(0) = {ser['det']['E_c'][0]:.10f} vs pi^2/4 = {math.pi ** 2 / 4:.10f} "
        f"(difference {ser['det']['E_c'][0] - math.pi ** 2 / 4:.3e}, the cell-grid discretisation of cos(pi s))")

    # ---------------------------------------------------------------- 2. energy-fluctuation table
    say("\n== 2. Energy fluctuation (deterministic, J = 100, cos(pi s)), from series.csv sampled every 1e-3 s")
    table = [("1e-3", "dt1e-3", 20), ("1e-4", "det", 20), ("1e-5", "dt1e-5", 20), ("1e-6", "dt1e-6", 20),
             ("1e-6", "dt1e-6_T2", 2)]
    say(f"  {'dt':>5s} {'T':>3s} {'E_d max-min':>12s} {'7.75 dt':>9s} {'/(pi^3/4 dt)':>12s} {'E_c max-min':>12s} "
        f"{'prototype':>9s} {'/(pi^4/8 dt^2)':>14s} {'E_c drift':>10s} {'paper':>8s}  run s")
    fl = {}
    for dts, k, T in table:
        S = ser.get(k) or read_csv(res[k]["dir"] / "series.csv")
        dt = float(dts)
        fd, fc = fluct(S["E_d"]), fluct(S["E_c"])
        fl[(dts, T)] = (fd, fc)
        say(f"  {dts:>5s} {T:3d} {fd:12.4e} {7.75 * dt:9.2e} {fd / (math.pi ** 3 / 4 * dt):12.6f} {fc:12.4e} "
            f"{PROTO_EC[dts]:9.2e} {fc / (math.pi ** 4 / 8 * dt ** 2):14.5f} {S['E_c'][-1] - S['E_c'][0]:10.2e} "
            f"{PAPER.get(dts, '-'):>8s}  {res[k]['wall']:.1f}")
    dts = [1e-3, 1e-4, 1e-5, 1e-6]
    fd = [fl[(d, 20)][0] for d in ["1e-3", "1e-4", "1e-5", "1e-6"]]
    fc = [fl[(d, 20)][1] for d in ["1e-3", "1e-4", "1e-5", "1e-6"]]
    say(f"  fitted slopes (T = 20, dt = 1e-3..1e-6): E_d {slope(dts, fd):.4f}, E_c {slope(dts, fc):.4f}; "
        f"E_c over 1e-3..1e-5: {slope(dts[:3], fc[:3]):.4f}")
    fig, a = plt.subplots(figsize=(6, 4.5), constrained_layout=True)
    a.loglog(dts, fd, "o-", label="$E_d$ max−min (lievi)")
    a.loglog(dts, fc, "s-", label="$E_c$ max−min (lievi)")
    d = np.array(dts)
    a.loglog(d, 7.75 * d, "k:", label="(π³/4) Δt = 7.75 Δt")
    a.loglog(d, [PROTO_EC[x] for x in ["1e-3", "1e-4", "1e-5", "1e-6"]], "kx", ms=9, label="prototype: $E_c$")
    a.loglog([1e-4, 1e-5, 1e-6], [1e-3, 1e-4, 1e-5], "r^", ms=8, mfc="none", label="paper: O(1e-3, 1e-4, 1e-5)")
    a.set_xlabel("Δt")
    a.set_ylabel("max − min over T = 20")
    a.legend(fontsize=8)
    a.grid(True, which="both", alpha=0.3)
    a.set_title("Energy fluctuation, deterministic wave (J = 100)")
    fig.savefig(IMG / "wave_fluctuation.png", dpi=110)
    plt.close(fig)

    # ---------------------------------------------------------------- 3. common noise is a Casimir
    say("\n== 3. Common noise is a Casimir (dt = 1e-4, T = 20; fields.h5 every 1e-2 s, 2001 snapshots x 100 nodes)")
    D = fld["det"]
    say(f"  {'Theta':>6s} {'max|E_c-E_c,det|':>17s} {'max|E_d-E_d,det|':>17s} {'max|phi-phi_det-shift|':>23s} "
        f"{'max|shift|':>10s} {'shift(T)':>10s} {'[shift/Theta]^2 QV':>18s}")
    W = {}
    fig, a = plt.subplots(1, 2, figsize=(11, 3.8), constrained_layout=True)
    for th in THETAS:
        k = f"theta{th}"
        F, S = fld[k], ser[k]
        assert np.array_equal(F["t"], D["t"]) and np.array_equal(S["t"], ser["det"]["t"])
        dEc = np.max(np.abs(S["E_c"] - ser["det"]["E_c"]))
        dEd = np.max(np.abs(S["E_d"] - ser["det"]["E_d"]))
        diff = F["phi"] - D["phi"]              # [n_out, n_nodes]
        shift = diff.mean(axis=1)               # the uniform shift Theta W_t
        resid = np.max(np.abs(diff - shift[:, None]))
        W[th] = shift / float(th)
        qv = float(np.sum(np.diff(W[th]) ** 2))  # quadratic variation of W over [0, 20]: ~ 20 +- 0.63
        say(f"  {th:>6s} {dEc:17.3e} {dEd:17.3e} {resid:23.3e} {np.max(np.abs(shift)):10.4e} {shift[-1]:10.3e} "
            f"{qv:18.3f}")
        a[1].plot(F["t"], np.max(np.abs(diff - shift[:, None]), axis=1), lw=0.6, label=f"Θ = {th}")
    ref = W["1e-2"]
    say("  W_t = shift/Theta is the same Brownian path for all four Theta (same seed): max |W(Theta) - W(1e-2)| = " +
        ", ".join(f"{th}: {np.max(np.abs(W[th] - ref)):.2e}" for th in THETAS[:-1]) +
        f"; max |W| = {np.max(np.abs(ref)):.3f}, W(20) = {ref[-1]:.4f}")
    a[0].plot(D["t"], ref, lw=0.8, color="k")
    a[0].set_xlabel("t")
    a[0].set_ylabel(r"$(\varphi-\varphi_{det})/\Theta$ (node mean)")
    a[0].set_title("the shift / Θ: one Brownian path $W_t$ (all four Θ)")
    a[1].set_yscale("log")
    a[1].set_xlabel("t")
    a[1].set_ylabel(r"$\max_j|\varphi_j-\varphi_{det,j}-\mathrm{shift}|$")
    a[1].set_title("non-uniform part of the shift (round-off)")
    a[1].legend(fontsize=8)
    fig.savefig(IMG / "wave_casimir.png", dpi=110)
    plt.close(fig)

    # ---------------------------------------------------------------- 4. independent noise
    def ensemble(k):
        s = res[k]["summary"]
        n = s["paths"]
        P = [read_csv(res[k]["dir"] / f"series_path{p}.csv") for p in range(n)]
        t = P[0]["t"]
        Ec = np.array([p["E_c"] for p in P])
        Ed = np.array([p["E_d"] for p in P])
        return t, Ec, Ed, n, s

    sc = res["ind"]["summary"]["scenario"]
    theta = sc["noise"]["theta"]
    say(f"\n== 4. Independent noise (one Brownian motion per node), Theta = {theta:g}, dt = {sc['integrator']['dt']:g}, "
        f"cell J = {sc['grid']['J']}, {N_PATHS} paths, T = {T_IND:g}")
    t, Ec, Ed, n, s = ensemble("ind")
    J = sc["grid"]["J"]
    ds = sc["grid"]["length"] / J
    rate = (J - 1) * theta ** 2 / ds
    gc, gd = Ec[:, -1] - Ec[:, :1].ravel(), Ed[:, -1] - Ed[:, :1].ravel()
    se = lambda g: g.std(ddof=1) / math.sqrt(len(g))  # noqa: E731
    mean_c = Ec.mean(axis=0) - Ec[0, 0]
    fit_rate = float(np.sum(mean_c * t) / np.sum(t * t))  # least-squares rate through the origin
    say(f"  predicted gain (J-1) Theta^2 T / ds = {rate * T_IND:.4f}  (rate {rate:.4f} per unit time)")
    say(f"  mean E_c gain {gc.mean():.4f} +- {se(gc):.4f} (standard error; path std {gc.std(ddof=1):.4f}); "
        f"(mean - predicted)/SE = {(gc.mean() - rate * T_IND) / se(gc):+.2f}; ratio {gc.mean() / (rate * T_IND):.4f}")
    say(f"  mean E_d gain {gd.mean():.4f} +- {se(gd):.4f}")
    say(f"  mean-curve rate (LSQ through 0 over [0, {T_IND:g}]) {fit_rate:.4f} vs {rate:.4f}; "
        f"CLI summary: E_c_mean_final {s['diagnostics']['E_c_mean_final']:.4f}, "
        f"E_c_std_final {s['diagnostics']['E_c_std_final']:.4f}")
    say(f"  path 0 alone: gain {gc[0]:.3f}; paths' gains range [{gc.min():.2f}, {gc.max():.2f}]")
    sig = Ec.std(axis=0, ddof=1)
    fig, a = plt.subplots(1, 2, figsize=(12, 4.2), constrained_layout=True)
    a[0].fill_between(t, Ec.mean(0) - 2 * sig, Ec.mean(0) + 2 * sig, alpha=0.2, color="C0",
                      label="mean ± 2σ (spread of paths)")
    a[0].fill_between(t, Ec.mean(0) - 2 * sig / math.sqrt(n), Ec.mean(0) + 2 * sig / math.sqrt(n), alpha=0.5,
                      color="C0", label="mean ± 2σ/√N (standard error)")
    a[0].plot(t, Ec.mean(0), color="C0", lw=1, label=f"mean $E_c$, {n} paths")
    a[0].plot(t, Ec[0, 0] + rate * t, "k--", lw=1, label=f"$E(0)$ + (J−1)Θ²t/Δs, rate {rate:.2f}")
    a[0].set_xlabel("t")
    a[0].set_ylabel("$E_c$")
    a[0].set_title(f"independent noise, Θ = {theta:g}, J = {J}, Δt = {sc['integrator']['dt']:g}")
    a[0].legend(fontsize=8)

    # J scan
    say(f"\n  rate grows with J (Theta = {theta:g}, T = {T_SCAN:g}, {J_SCAN_PATHS} paths each, dt = 1e-4):")
    say(f"  {'J':>5s} {'ds':>7s} {'predicted':>10s} {'mean E_c gain':>14s} {'SE':>7s} {'ratio':>7s} {'(m-p)/SE':>9s}")
    jp, jm, js = [], [], []
    for Jv in J_SCAN:
        t2, Ec2, _, n2, s2 = ensemble(f"J{Jv}")
        ds2 = s2["scenario"]["grid"]["length"] / Jv
        pred = (Jv - 1) * theta ** 2 * T_SCAN / ds2
        g = Ec2[:, -1] - Ec2[:, 0]
        jp.append(pred), jm.append(g.mean()), js.append(se(g))
        say(f"  {Jv:5d} {ds2:7.4f} {pred:10.4f} {g.mean():14.4f} {se(g):7.4f} {g.mean() / pred:7.3f} "
            f"{(g.mean() - pred) / se(g):+9.2f}")
    a[1].errorbar(J_SCAN, jm, yerr=2 * np.array(js), fmt="o", capsize=3, label=f"mean $E_c$ gain ± 2 SE, T = {T_SCAN:g}")
    Jf = np.linspace(40, 210, 50)
    a[1].plot(Jf, (Jf - 1) * Jf * theta ** 2 * T_SCAN, "k--", label="(J−1)Θ²T/Δs, Δs = 1/J")
    a[1].set_xlabel("J")
    a[1].set_ylabel("energy gain")
    a[1].set_title(f"gain grows like J² ({J_SCAN_PATHS} paths per J)")
    a[1].legend(fontsize=8)
    fig.savefig(IMG / "wave_independent.png", dpi=110)
    plt.close(fig)

    # ---------------------------------------------------------------- done
    say(f"\nfigures: {', '.join(sorted(p.name for p in IMG.glob('wave_*.png')))}")
    say(f"script run time {time.time() - t_start:.1f} s (sum of run walls {sum(r['wall'] for r in res.values()):.1f} s)")
    NUMBERS.write_text("\n".join(_out) + "\n")
    if keep:
        print(f"kept {tmp}")
    else:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
