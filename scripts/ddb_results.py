#!/usr/bin/env python3
"""Regenerate the figures and the runtime table of seed 002 (Figures 1-6, Table 1) with lievi.

Usage: /usr/bin/python3 scripts/ddb_results.py [LIEVI_BINARY]   (default build/release/apps/lievi/lievi)

Runs `lievi run` into a temporary folder for every method; Figure 3 (final error vs h) runs
`lievi convergence --param integrator.dt --reference taylor` per method, i.e. against lievi's long-double
Taylor-series reference (~1e-17); Figures 4-6 and Table 1 solve the SciPy DOP853 reference (rtol = atol = 1e-13)
in the script. Writes the PNGs into docs/results/img/ and prints the numbers (also saved to
docs/results/ddb_numbers.txt). See docs/results/ddb.md.
"""
import json
import math
import os
import platform
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timezone

import numpy as np
from scipy.integrate import solve_ivp
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
IMG = os.path.join(ROOT, "docs", "results", "img")
NUMBERS = os.path.join(ROOT, "docs", "results", "ddb_numbers.txt")
SCEN = {k: os.path.join(ROOT, "examples", "rigid_body", f"scenario_{k.lower()}.toml") for k in "ABC"}
DPI = 100

# label, --set overrides, matplotlib style
METHODS = [
    ("DDB-Cayley", ["integrator.method=ddb", "integrator.retraction=cayley"], dict(color="C0", marker="o")),
    ("DDB-exp", ["integrator.method=ddb", "integrator.retraction=exp"], dict(color="C1", marker="s")),
    ("DDB-symmetric", ["integrator.method=ddb-symmetric"], dict(color="C2", marker="^")),
    ("Moser-Veselov", ["integrator.method=moser-veselov"], dict(color="C3", marker="v")),
    ("RK4", ["integrator.method=rk4"], dict(color="C4", marker="D")),
    ("Lobatto IIIC", ["integrator.method=lobatto-iiic"], dict(color="C5", marker="P")),
    ("DOP853 (lievi)", ["integrator.method=dop853"], dict(color="C6", marker="X")),
]
# Figure 3 only: the paper's DDB(exp) retraction exp2 (truncated dexp^-1) for ddb and ddb-symmetric, and the
# symmetric variant exactly as printed in Remark 4.10 (no start/output processing: order 1).
FIG3_EXTRA = [
    ("DDB-exp2", ["integrator.method=ddb", "integrator.retraction=exp2"], dict(color="C7", marker="<")),
    ("DDB-sym. exp2", ["integrator.method=ddb-symmetric", "integrator.retraction=exp2"],
     dict(color="C8", marker=">")),
    ("DDB-sym. raw", ["integrator.method=ddb-symmetric", "integrator.symmetric_processing=false"],
     dict(color="C9", marker="*", ls="--")),
]
PAPER_TABLE1 = {"DOP853 (lievi)": 0.207, "RK4": 0.162, "Lobatto IIIC": 1.616, "DDB-exp": 0.107, "DDB-Cayley": 0.108}

# model (seed 002 §5)
I_A = np.array([1.0, 1.3, 0.5])
I_C = np.array([1.0, 1.0, 0.5])
ALPHA = 0.5
OMEGA0 = np.array([0.0, 0.05, 1.0])

LINES = []


def out(s=""):
    print(s, flush=True)
    LINES.append(s)


def rhs(inertia):
    def f(_t, m):
        om = m / inertia
        u = np.cross(m, om)
        return u + ALPHA * np.cross(m, u)
    return f


def reference(inertia, t_end, t_eval=None):
    m0 = inertia * OMEGA0
    sol = solve_ivp(rhs(inertia), (0.0, t_end), m0, method="DOP853", rtol=1e-13, atol=1e-13,
                    t_eval=t_eval)
    assert sol.success, sol.message
    return sol


class Lievi:
    def __init__(self, exe, tmp):
        self.exe, self.tmp, self.n = exe, tmp, 0

    def run(self, scen, sets, series=True):
        self.n += 1
        d = os.path.join(self.tmp, f"r{self.n}")
        cmd = [self.exe, "run", SCEN[scen], "--out", d, "--force", "--set", "output.plots=false"]
        for s in sets:
            cmd += ["--set", s]
        t0 = time.perf_counter()
        p = subprocess.run(cmd, capture_output=True, text=True)
        wall = time.perf_counter() - t0
        if p.returncode not in (0, 3):
            raise RuntimeError(f"{' '.join(cmd)}: exit {p.returncode}: {p.stderr.strip()}")
        with open(os.path.join(d, "summary.json")) as fh:
            summ = json.load(fh)
        data = None
        if series:
            data = np.loadtxt(os.path.join(d, "series.csv"), delimiter=",", skiprows=1, ndmin=2)
        return p.returncode, summ, data, wall

    def convergence(self, scen, sets, hs):
        """`lievi convergence` over integrator.dt = hs against the long-double Taylor reference: summary.json."""
        self.n += 1
        d = os.path.join(self.tmp, f"c{self.n}")
        cmd = [self.exe, "convergence", SCEN[scen], "--param", "integrator.dt",
               "--values", ",".join(repr(h) for h in hs), "--reference", "taylor", "--out", d, "--force",
               "--set", "output.plots=false"]
        for s in sets:
            cmd += ["--set", s]
        p = subprocess.run(cmd, capture_output=True, text=True)
        if p.returncode not in (0, 3):
            raise RuntimeError(f"{' '.join(cmd)}: exit {p.returncode}: {p.stderr.strip()}")
        with open(os.path.join(d, "summary.json")) as fh:
            return json.load(fh)


def h_values(t_end=30.0, n=8):
    hs = []
    for h in np.logspace(0, -3, n):
        N = max(1, round(t_end / h))
        hs.append(t_end / N)
    return hs


# Figure 3's fits use errors above this only: the methods' own round-off floor (a few 1e-15 at t = 30: lievi's
# DOP853 at rtol = atol = 1e-13, RK4 and Lobatto IIIC at h = 0.001) sits below it; the long-double Taylor
# reference itself is ~1e-17 accurate (so, unlike the former SciPy reference, it sets no floor of its own).
FIT_FLOOR = 1e-14


def fit_order(hs, es, lo, hi):
    pts = [(math.log(h), math.log(e)) for h, e in zip(hs, es)
           if e is not None and e > FIT_FLOOR and lo * 0.999 <= h <= hi * 1.001]
    if len(pts) < 2:
        return float("nan")
    x, y = np.array(pts).T
    return float(np.polyfit(x, y, 1)[0])


def savefig(fig, name):
    path = os.path.join(IMG, name)
    fig.savefig(path, dpi=DPI)
    plt.close(fig)
    out(f"  wrote {os.path.relpath(path, ROOT)} ({os.path.getsize(path) // 1024} kB)")


def main():
    exe = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "build", "release", "apps", "lievi", "lievi")
    exe = os.path.abspath(exe)
    if not os.access(exe, os.X_OK):
        sys.exit(f"lievi binary not found: {exe}")
    os.makedirs(IMG, exist_ok=True)
    t_start = time.perf_counter()
    ver = subprocess.run([exe, "--version"], capture_output=True, text=True).stdout.strip()
    out(f"# ddb_results.py  {datetime.now(timezone.utc):%Y-%m-%d %H:%M} UTC  {platform.node()}  "
        f"{os.cpu_count()} CPUs  lievi: {ver or exe}")
    out(f"# numpy {np.__version__}, scipy {__import__('scipy').__version__}, matplotlib {matplotlib.__version__}")

    with tempfile.TemporaryDirectory(prefix="lievi_ddb_results_") as tmp:
        lv = Lievi(exe, tmp)

        # ---------------- Figure 2: Casimir, Scenario A, h = 0.1 ----------------
        out("\n## Figure 2: Scenario A, h = 0.1, relative Casimir drift max_k |C_k - C_0| / C_0")
        fig, ax = plt.subplots(figsize=(7, 4.2))
        floor = 1e-18
        for lab, sets, sty in METHODS:
            rc, summ, d, _ = lv.run("A", sets + ["integrator.dt=0.1"])
            c = d[:, 5]  # columns t,M1,M2,M3,energy,casimir,...
            rel = np.abs(c - c[0]) / c[0]
            out(f"  {lab:16s} max drift {rel.max():.3e}   final {rel[-1]:.3e}")
            ax.semilogy(d[:, 0], np.maximum(np.maximum.accumulate(rel), floor), color=sty["color"], label=lab,
                        lw=1.2)
        ax.set_xlabel("t")
        ax.set_ylabel(r"$\max_{j\leq k} |C(M_j) - C(M_0)| / C(M_0)$")
        ax.set_title("Fig. 2 - Casimir $|M|^2$, running max drift, Scenario A, h = 0.1 (0 drawn at 1e-18)")
        ax.set_ylim(floor / 2, 1e-1)
        ax.grid(True, which="major", alpha=0.3)
        ax.legend(fontsize=8, ncol=2)
        fig.tight_layout()
        savefig(fig, "fig2_casimir_A.png")

        # ---------------- Figure 3: final error vs h, Scenario A ----------------
        out("\n## Figure 3: Scenario A, final error ||M_N - M_ref(30)||_2 vs h "
            "(reference: lievi's long-double Taylor series, `lievi convergence --reference taylor`)")
        hs = h_values()
        fig3 = METHODS + FIG3_EXTRA
        errs = {}
        fails = {}
        m_ref = None
        for lab, sets, sty in fig3:
            summ = lv.convergence("A", sets, hs)
            assert summ["reference"]["id"] == "taylor", summ["reference"]
            errs[lab], fails[lab] = [], []
            fmsg = {f["value"]: f.get("message", "") for f in summ.get("failures", [])}
            for h, row in zip(hs, summ["rows"]):
                assert abs(row["value"] - h) <= 1e-15 * h, (row["value"], h)
                if m_ref is None:
                    m_ref = np.array(row["M_ref"])
                if row["status"] != "complete" or row["error"] is None:
                    errs[lab].append(None)
                    fails[lab].append(f"h={h:.4g}: {fmsg.get(row['value'], '')}")
                else:
                    errs[lab].append(float(np.linalg.norm(np.array(row["M_final"]) - np.array(row["M_ref"]))))
        out(f"  reference M(30) = [{m_ref[0]:.15e}, {m_ref[1]:.15e}, {m_ref[2]:.15e}]")
        sp = reference(I_A, 30.0).y[:, -1]
        out(f"  (SciPy DOP853 rtol = atol = 1e-13, the former reference, differs from it by "
            f"{np.linalg.norm(sp - m_ref):.2e})")
        out("  h values: " + ", ".join(f"{h:.6g}" for h in hs))
        hdr = "  {:16s}".format("method") + "".join(f"{h:>10.3g}" for h in hs) + "   order[0.01,0.1]  order[1e-3,1e-2]"
        out(hdr)
        fig, ax = plt.subplots(figsize=(7.5, 5.5))
        for lab, sets, sty in fig3:
            e = errs[lab]
            p1 = fit_order(hs, e, 0.01, 0.1)
            p2 = fit_order(hs, e, 1e-3, 1.5e-2)
            out("  {:16s}".format(lab) + "".join(f"{x:>10.2e}" if x is not None else f"{'failed':>10s}" for x in e)
                + f"   {p1:8.2f}        {p2:8.2f}")
            hh = [h for h, x in zip(hs, e) if x is not None]
            ee = [max(x, 1e-17) for x in e if x is not None]
            ax.loglog(hh, ee, label=lab, lw=1.2, ms=5, **sty)
        for lab, fl in fails.items():
            for f in fl:
                out(f"  {lab} failed (exit 3, shown as missing): {f}")
        hr = np.array([1e-3, 1.0])
        for p, y0, ls in [(1, 3e-2, ":"), (2, 3e-3, "--"), (4, 1e-4, "-.")]:
            ax.loglog(hr, y0 * hr ** p, color="gray", ls=ls, lw=0.8)
            ax.text(1.05, y0, f"$h^{p}$", color="gray", fontsize=8, va="center")
        ax.axhspan(1e-17, FIT_FLOOR, color="0.85", alpha=0.6, zorder=0)
        ax.text(1.2e-3, 1.6 * FIT_FLOOR, "round-off floor (not fitted); reference: long-double Taylor series",
                fontsize=7.5)
        ax.set_ylim(1e-16, 10)
        ax.set_xlabel("h")
        ax.set_ylabel(r"$\|M_N - M^{ref}_N\|_2$")
        ax.set_title("Fig. 3 - final error at t = 30 vs h, Scenario A")
        ax.grid(True, which="major", alpha=0.3)
        ax.legend(fontsize=7.5, loc="upper left", ncol=2)
        fig.tight_layout()
        savefig(fig, "fig3_error_vs_h_A.png")

        # ---------------- Figures 4, 5: Scenario B, h = 0.1 ----------------
        out("\n## Figures 4, 5: Scenario B, h = 0.1, t in [0, 250]")
        tb = np.round(np.arange(0, 2501) * 0.1, 10)
        tb[-1] = 250.0
        ref_b = reference(I_A, 250.0, t_eval=tb)
        m0 = I_A * OMEGA0
        lim = np.array([0.0, -np.linalg.norm(m0), 0.0])
        runs_b = {}
        for lab, sets, sty in METHODS:
            rc, summ, d, _ = lv.run("B", sets + ["integrator.dt=0.1"])
            runs_b[lab] = d
        dref = np.linalg.norm(ref_b.y[:, -1] - lim)
        out(f"  limit point -|M0| e2 = {lim[1]:.15f} e2; reference (SciPy DOP853) distance at t=250: {dref:.3e}")
        out("  {:16s} {:>12s} {:>12s} {:>14s}".format("method", "|M_N+|M0|e2|", "|M_N-|M0|e2|", "|M_N-M_ref|"))
        d4, d5 = {}, {}
        for lab, _, _ in METHODS:
            d = runs_b[lab]
            mn = d[-1, 1:4]
            d4[lab] = np.linalg.norm(mn - lim)
            d5[lab] = np.linalg.norm(d[:, 1:4] - ref_b.y.T[: len(d)], axis=1)
            out(f"  {lab:16s} {d4[lab]:12.3e} {np.linalg.norm(mn + lim):12.3e} {d5[lab][-1]:14.3e}")
        fig, ax = plt.subplots(figsize=(7, 4.2))
        labs = [m[0] for m in METHODS]
        ax.bar(range(len(labs)), [max(d4[l], 1e-17) for l in labs], color=[m[2]["color"] for m in METHODS])
        ax.axhline(dref, color="k", ls="--", lw=0.8, label=f"SciPy DOP853 reference ({dref:.1e})")
        ax.set_yscale("log")
        ax.set_xticks(range(len(labs)))
        ax.set_xticklabels(labs, rotation=25, ha="right", fontsize=8)
        ax.set_ylabel(r"$\|M_N - (-|M_0|\,e_2)\|$")
        ax.set_title("Fig. 4 - Scenario B, distance of $M_N$ (t = 250) to the limit point, h = 0.1")
        ax.legend(fontsize=8)
        ax.grid(True, axis="y", alpha=0.3)
        fig.tight_layout()
        savefig(fig, "fig4_limit_B.png")

        fig, ax = plt.subplots(figsize=(7, 4.2))
        for lab, _, sty in METHODS:
            ax.semilogy(runs_b[lab][:, 0], np.maximum(d5[lab], 1e-17), color=sty["color"], label=lab, lw=1.1)
        ax.axhline(1e-12, color="k", lw=0.8, ls="--")
        ax.text(2, 1.6e-12, "reference accuracy ~1e-12", fontsize=7.5)
        ax.set_xlabel("t")
        ax.set_ylabel(r"$\|M_k - M^{ref}(t_k)\|$")
        ax.set_title("Fig. 5 - Scenario B, distance to the reference, h = 0.1")
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=8, ncol=2)
        fig.tight_layout()
        savefig(fig, "fig5_ref_distance_B.png")

        # ---------------- Figure 6: Scenario C ----------------
        out("\n## Figure 6: Scenario C, t in [0, 250], distance of M_N to the great circle "
            "{M3 = 0, |M| = |M0|} and to the plane M3 = 0")
        m0c = I_C * OMEGA0
        r0 = np.linalg.norm(m0c)

        def dist_circle(m):
            return np.hypot(m[..., 2], np.hypot(m[..., 0], m[..., 1]) - r0)

        runs_c = {}
        out("  h = 0.1:")
        out("  {:16s} {:>14s} {:>14s}".format("method", "d(circle)", "d(plane)"))
        for lab, sets, sty in METHODS:
            rc, summ, d, _ = lv.run("C", sets + ["integrator.dt=0.1"])
            runs_c[lab] = d
            mn = d[-1, 1:4]
            out(f"  {lab:16s} {dist_circle(mn):14.3e} {abs(mn[2]):14.3e}")
        ref_c = reference(I_C, 250.0)
        mc = ref_c.y[:, -1]
        out(f"  reference (SciPy DOP853) {dist_circle(mc):.3e} {abs(mc[2]):.3e}")
        hs_c = h_values(250.0, 8)
        out("  final distances vs h (circle / plane):  h = " + ", ".join(f"{h:.4g}" for h in hs_c))
        dc_h, dp_h = {}, {}
        for lab, sets, sty in METHODS:
            dc_h[lab], dp_h[lab] = [], []
            for h in hs_c:
                N = round(250.0 / h)
                rc, summ, d, _ = lv.run("C", sets + [f"integrator.dt={h!r}", f"output.every={N}"], series=False)
                if rc == 3 or summ.get("status") != "complete":
                    dc_h[lab].append(None)
                    dp_h[lab].append(None)
                else:
                    mn = np.array(summ["final"]["M"])
                    dc_h[lab].append(float(dist_circle(mn)))
                    dp_h[lab].append(float(abs(mn[2])))
            out("  {:16s}".format(lab) + "".join(
                f" {c:.1e}/{p:.1e}" if c is not None else "   failed        " for c, p in zip(dc_h[lab], dp_h[lab])))
        fig, axs = plt.subplots(2, 2, figsize=(10, 7))
        for lab, _, sty in METHODS:
            d = runs_c[lab]
            axs[0, 0].semilogy(d[:, 0], np.maximum(dist_circle(d[:, 1:4]), 1e-17), color=sty["color"], label=lab, lw=1)
            axs[0, 1].semilogy(d[:, 0], np.maximum(np.abs(d[:, 3]), 1e-17), color=sty["color"], label=lab, lw=1)
            for ax, vals in ((axs[1, 0], dc_h[lab]), (axs[1, 1], dp_h[lab])):
                hh = [h for h, v in zip(hs_c, vals) if v is not None]
                vv = [max(v, 1e-17) for v in vals if v is not None]
                ax.loglog(hh, vv, label=lab, lw=1, ms=4, **sty)
        axs[0, 0].set_title("distance to the great circle, h = 0.1", fontsize=9)
        axs[0, 1].set_title("distance to the (I1, I2) plane, h = 0.1", fontsize=9)
        axs[1, 0].set_title("at t = 250, vs h: great circle", fontsize=9)
        axs[1, 1].set_title("at t = 250, vs h: plane", fontsize=9)
        for ax in axs[0]:
            ax.set_xlabel("t")
        for ax in axs[1]:
            ax.set_xlabel("h")
        for ax in axs.flat:
            ax.grid(True, alpha=0.3)
        axs[0, 0].legend(fontsize=7, ncol=2)
        fig.suptitle("Fig. 6 - Scenario C (I = diag(1, 1, 0.5)): distance of M to the limit set")
        fig.tight_layout()
        savefig(fig, "fig6_circle_plane_C.png")

        # ---------------- Figure 1: trajectories on the sphere ----------------
        out("\n## Figure 1: trajectories on the sphere, DDB-Cayley, h = 0.1 (B and C)")
        rc, _, db, _ = lv.run("B", METHODS[0][1] + ["integrator.dt=0.1"])
        rc, _, dc, _ = lv.run("C", METHODS[0][1] + ["integrator.dt=0.1"])
        fig = plt.figure(figsize=(9, 4.3))
        u, v = np.mgrid[0:2 * np.pi:19j, 0:np.pi:10j]
        for k, (d, name) in enumerate(((db, "B: I2 > I1 > I3"), (dc, "C: I1 = I2 > I3"))):
            ax = fig.add_subplot(1, 2, k + 1, projection="3d")
            r = np.linalg.norm(d[0, 1:4])
            ax.plot_wireframe(r * np.cos(u) * np.sin(v), r * np.sin(u) * np.sin(v), r * np.cos(v),
                              color="0.8", lw=0.3)
            ax.plot(d[::2, 1], d[::2, 2], d[::2, 3], color="C0", lw=0.7)
            ax.scatter(*d[0, 1:4], color="g", s=15, label="start")
            ax.scatter(*d[-1, 1:4], color="r", s=15, label="t = 250")
            if k == 1:
                th = np.linspace(0, 2 * np.pi, 200)
                ax.plot(r * np.cos(th), r * np.sin(th), 0 * th, color="k", lw=0.8, ls="--", label="great circle")
            ax.set_xlabel("M1")
            ax.set_ylabel("M2")
            ax.set_zlabel("M3")
            ax.set_box_aspect((1, 1, 1))
            ax.set_title(f"Scenario {name}", fontsize=9)
            ax.legend(fontsize=7, loc="upper left")
        fig.suptitle("Fig. 1 - M_k on the sphere |M| = |M0|, DDB-Cayley, h = 0.1")
        fig.tight_layout()
        savefig(fig, "fig1_trajectories_BC.png")

        # ---------------- Table 1: runtime, Scenario A, h = 0.1 ----------------
        out("\n## Table 1: stepping time, Scenario A, h = 0.1 (300 steps), median of 5 runs "
            "(summary.json timing.integrate_s)")
        out("  {:16s} {:>14s} {:>10s} {:>13s} {:>16s} {:>10s}".format(
            "method", "integrate_s", "ns/step", "wall of run", "paper (Python)", "speed-up"))
        for lab, sets, sty in METHODS:
            ts, ws = [], []
            for _ in range(5):
                rc, summ, _, wall = lv.run("A", sets + ["integrator.dt=0.1"], series=False)
                ts.append(summ["timing"]["integrate_s"])
                ws.append(wall)
            t = float(np.median(ts))
            paper = PAPER_TABLE1.get(lab)
            ps = f"{paper:.3f} s" if paper else "-"
            sp = f"{paper / t:.0f}x" if paper and t > 0 else "-"
            out(f"  {lab:16s} {t * 1e6:11.1f} us {t / 300 * 1e9:10.0f} {np.median(ws) * 1e3:10.1f} ms "
                f"{ps:>16s} {sp:>10s}")
        ts = []
        for _ in range(5):
            t0 = time.perf_counter()
            solve_ivp(rhs(I_A), (0.0, 30.0), I_A * OMEGA0, method="DOP853", rtol=1e-13, atol=1e-13,
                      t_eval=np.linspace(0.0, 30.0, 301))
            ts.append(time.perf_counter() - t0)
        t = float(np.median(ts))
        out(f"  {'SciPy DOP853':16s} {t * 1e6:11.1f} us {'-':>10s} {'-':>13s} {0.207:>14.3f} s "
            f"{0.207 / t:>9.1f}x  (rtol = atol = 1e-13, t_eval at h = 0.1, this machine)")
        out("  (paper: DOP853 is SciPy's reference solve; our DOP853 row is lievi's own, rtol = atol = 1e-13;"
            " the paper's DDB(exp) is exp2)")

    out(f"\n# total runtime {time.perf_counter() - t_start:.1f} s")
    with open(NUMBERS, "w") as fh:
        fh.write("\n".join(LINES) + "\n")


if __name__ == "__main__":
    main()
