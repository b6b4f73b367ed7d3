#!/usr/bin/python3
"""The wave equation with the asynchronous variational integrator (integrator.method = "avi") through lievi's
command line, against d'Alembert's solution and the synchronous scheme.

Usage: /usr/bin/python3 scripts/wave_avi_results.py [LIEVI_BINARY]   (default build/release/apps/lievi/lievi)

1. examples/wave/avi_refined.toml (a clamped string, J = 500, segments 16x shorter in [0.49, 0.51)): the AVI
   (dt outside the region, dt/16 inside), the synchronous leapfrog on the same graded mesh (the AVI with
   integrator.dt = dt/16: every segment at one step, the type-i scheme), and type-i on a uniform grid as fine as
   the region (J = 8000, dt/16): error against d'Alembert at t_end, segment updates and the stepping time
   (summary.json timing.integrate_s, the best of 5 runs).
2. Second order on the graded mesh: J = 40 ... 320 with a region [0.5, 0.75) refined 4x.
3. The energy E_c(t) over t in [0, 50.32] on the example's mesh at integrator.fraction 0.3, 0.5 and 0.9.
Writes docs/results/img/wave-avi-*.png and docs/results/wave_avi_numbers.txt.
"""
import json
import os
import platform
import subprocess
import sys
import tempfile
from datetime import datetime, timezone

import numpy as np
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
IMG = os.path.join(ROOT, "docs", "results", "img")
NUMBERS = os.path.join(ROOT, "docs", "results", "wave_avi_numbers.txt")
EXAMPLE = os.path.join(ROOT, "examples", "wave", "avi_refined.toml")
REPEATS = 5


def run(lievi, out, sets, scenario=EXAMPLE, may_fail=False):
    """A run's summary, series and final field; with may_fail a numerical failure (exit 3) keeps its rows."""
    args = [lievi, "run", scenario, "--out", out, "--force", "--set", "output.plots=false"]
    for s in sets:
        args += ["--set", s]
    p = subprocess.run(args, capture_output=True, text=True)
    if p.returncode != 0 and not (may_fail and p.returncode == 3):
        raise RuntimeError(f"{' '.join(args)}: exit {p.returncode}: {p.stderr}")
    with open(os.path.join(out, "summary.json")) as f:
        summary = json.load(f)
    series = np.genfromtxt(os.path.join(out, "series.csv"), delimiter=",", names=True)
    fields = np.genfromtxt(os.path.join(out, "final_fields.csv"), delimiter=",", names=True) \
        if os.path.exists(os.path.join(out, "final_fields.csv")) else None
    return summary, series, fields


def dalembert(s, t, center=0.3, width=0.05):
    """u_tt = u_ss on [0, 1], clamped ends (the odd 2-periodic extension), from rest."""
    def F(x):
        x = np.mod(x, 2.0)
        u0 = lambda y: np.exp(-((y - center) / width) ** 2)  # noqa: E731
        return np.where(x <= 1.0, u0(x), -u0(2.0 - x))
    return 0.5 * (F(s - t) + F(s + t))


def best_time(lievi, out, sets):
    times, last = [], None
    for _ in range(REPEATS):
        last = run(lievi, out, sets)
        times.append(last[0]["timing"]["integrate_s"])
    return min(times), last


def main():
    lievi = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "build", "release", "apps", "lievi", "lievi")
    os.makedirs(IMG, exist_ok=True)
    lines = [f"# scripts/wave_avi_results.py, {datetime.now(timezone.utc):%Y-%m-%d %H:%M} UTC, "
             f"{platform.machine()}, {os.cpu_count()} cores (shared, loaded machine), best of {REPEATS} runs"]
    with tempfile.TemporaryDirectory() as d:
        # 1. cost and accuracy
        dt, t_end = 9e-4, 2.016
        common = ["output.fields=false", "output.fields_csv=true", "output.every=160"]
        cases = {
            "AVI (dt outside, dt/16 in the region)": common,
            "synchronous, same graded mesh (every segment at dt/16)": common + [f"integrator.dt={dt / 16!r}"],
            "synchronous type-i, uniform J = 8000 (dt/16)": common + [
                "integrator.method=type-i", "grid.J=8000", f"integrator.dt={dt / 16!r}"],
        }
        results = {}
        for name, sets in cases.items():
            out = os.path.join(d, "c%d" % len(results))
            if "type-i" in name:  # no [[regions]] with type-i: the same scenario without them
                text = open(EXAMPLE).read().replace("[[regions]]\ns_range = [0.49, 0.51]\nrefine = 16\n", "")
                scen = os.path.join(d, "uniform.toml")
                open(scen, "w").write(text)
                times = []
                for _ in range(REPEATS):
                    res = run(lievi, out, sets, scen)
                    times.append(res[0]["timing"]["integrate_s"])
                t_best = min(times)
            else:
                t_best, res = best_time(lievi, out, sets)
            summary, series, fields = res
            err = np.abs(fields["phi"] - dalembert(fields["s"], t_end)).max()
            updates = summary["avi"]["segment_updates"] if "avi" in summary else \
                (summary["steps"] + 1) * (summary["n_nodes"] - 1)
            results[name] = (err, updates, t_best, fields)
        base = results["synchronous, same graded mesh (every segment at dt/16)"]
        lines.append("case | error vs d'Alembert | segment updates | integrate_s | cost vs synchronous same mesh")
        for name, (err, updates, t_best, _) in results.items():
            lines.append(f"{name} | {err:.3e} | {updates} | {t_best:.4f} | {t_best / base[2]:.3f}")
        fig, ax = plt.subplots(2, 1, figsize=(8, 6), sharex=True)
        for name, (err, updates, t_best, f) in results.items():
            ax[0].plot(f["s"], f["phi"], lw=1, label=name)
            ax[1].semilogy(f["s"], np.abs(f["phi"] - dalembert(f["s"], t_end)) + 1e-16, lw=0.8, label=name)
        s = np.linspace(0, 1, 4001)
        ax[0].plot(s, dalembert(s, t_end), "k:", lw=1, label="d'Alembert")
        for a in ax:
            a.axvspan(0.49, 0.51, color="0.85")
        ax[0].set_ylabel("phi(s, t_end)")
        ax[1].set_ylabel("|error|")
        ax[1].set_xlabel("s (grey: the region refined 16x)")
        ax[0].legend(fontsize=7)
        ax[0].set_title(f"examples/wave/avi_refined.toml at t = {t_end}")
        fig.tight_layout()
        fig.savefig(os.path.join(IMG, "wave-avi-accuracy.png"), dpi=120)
        plt.close(fig)

        # 2. order on a graded mesh
        Js, errs = [40, 80, 160, 320], []
        for J in Js:
            scen = os.path.join(d, "order.toml")
            open(scen, "w").write(
                "[model]\ntype = \"wave\"\n[[regions]]\ns_range = [0.5, 0.75]\nrefine = 4\n"
                f"[grid]\nJ = {J}\nlayout = \"vertex\"\n[bc]\nleft = \"clamped\"\nright = \"clamped\"\n"
                "[initial]\nshape = \"gaussian\"\ncenter = 0.3\nwidth = 0.08\n"
                f"[integrator]\nmethod = \"avi\"\ndt = {0.5 / J!r}\nt_end = 0.6\n"
                "[output]\nevery = 10\nfields = false\nfields_csv = true\n")
            summary, series, f = run(lievi, os.path.join(d, f"o{J}"), [], scen)
            errs.append(np.abs(f["phi"] - dalembert(f["s"], 0.6, width=0.08)).max())
        lines.append("graded mesh [0.5, 0.75) refined 4x, t = 0.6: J, error, observed order")
        for i, J in enumerate(Js):
            order = np.log2(errs[i - 1] / errs[i]) if i else float("nan")
            lines.append(f"{J} | {errs[i]:.3e} | {order:.3f}")
        fig, ax = plt.subplots(figsize=(5, 4))
        ds = 1.0 / np.array(Js)
        ax.loglog(ds, errs, "o-", label="AVI, graded mesh")
        ax.loglog(ds, errs[0] * (ds / ds[0]) ** 2, "k--", lw=0.8, label="slope 2")
        ax.set_xlabel("ds (bulk; the region has ds/4)")
        ax.set_ylabel("max error vs d'Alembert")
        ax.legend()
        fig.tight_layout()
        fig.savefig(os.path.join(IMG, "wave-avi-order.png"), dpi=120)
        plt.close(fig)

        # 3. the energy at three fractions
        fig, ax = plt.subplots(figsize=(8, 4))
        lines.append("energy over t in [0, 50.32] on the example's mesh: fraction, levels, max |E_c - E_c(0)| / E_c(0)")
        for frac in (0.3, 0.5, 0.9):
            summary, series, _ = run(lievi, os.path.join(d, f"e{frac}"),
                                     ["output.fields=false", f"integrator.fraction={frac}", "integrator.t_end=50.32",
                                      "integrator.dt=1.7e-3", "output.every=20"], may_fail=True)
            E = series["E_c"]
            rel = np.abs(E - E[0]) / E[0]
            status = "" if summary["status"] == "complete" else \
                f" ({summary['status']} at t = {summary['failure']['t']:.3f}: values beyond the double range)"
            lines.append(f"{frac} | {summary['avi']['levels']} | {rel.max():.3e}{status}")
            ax.semilogy(series["t"], np.minimum(rel, 1e3) + 1e-16, lw=0.8,
                        label=f"fraction {frac}: levels {summary['avi']['levels']}{status[:10]}")
        ax.set_ylim(1e-6, 1e3)
        ax.set_xlabel("t")
        ax.set_ylabel("|E_c - E_c(0)| / E_c(0)")
        ax.legend(fontsize=8)
        ax.set_title("integrator.dt = 1.7e-3 (0.85 ds): the steps are dt / 2^k <= fraction x ds_e / c")
        fig.tight_layout()
        fig.savefig(os.path.join(IMG, "wave-avi-energy.png"), dpi=120)
        plt.close(fig)
    open(NUMBERS, "w").write("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
