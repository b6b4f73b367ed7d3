#!/usr/bin/python3
"""Backward error analysis shown with lievi's command line: the energy H and the modified energy
H~ = H + h^2 H3 of the midpoint and Stoermer-Verlet (trapezoid) DEL methods on the pendulum H = p^2/2 - cos q.

Usage: /usr/bin/python3 scripts/modified_energy_results.py [LIEVI_BINARY]   (default build/release/apps/lievi/lievi)

Runs `lievi run examples/mechanics/pendulum.toml` with m = l = g = 1, q0 = 1, p0 = 0.5 over t in [0, 200] for
four steps and both methods; H3 is the first correction derived in docs/theory/discrete-mechanics.md
("Backward error analysis"), evaluated here on lievi's (q_k, p_k). Writes docs/results/img/modified_energy.png and
docs/results/modified_energy_numbers.txt.
"""
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
NUMBERS = os.path.join(ROOT, "docs", "results", "modified_energy_numbers.txt")
HS = [0.2, 0.1, 0.05, 0.025]
T = 200.0


def h3(method, q, p):
    """First modified-energy correction for H = p^2/2 + V, V = -cos q (V'' = cos q, V' = sin q)."""
    if method == "midpoint":
        return -(np.cos(q) * p * p + np.sin(q) ** 2) / 24.0
    return np.cos(q) * p * p / 12.0 - np.sin(q) ** 2 / 24.0  # trapezoid: Stoermer-Verlet


def run(lievi, out, method, h):
    args = [lievi, "run", os.path.join(ROOT, "examples", "mechanics", "pendulum.toml"), "--out", out]
    for s in ["output.plots=false", "model.gravity=1", "initial.q=[1.0]", "initial.qdot=[0.5]",
              f"integrator.method={method}", f"integrator.dt={h}", f"integrator.t_end={T:g}"]:
        args += ["--set", s]
    r = subprocess.run(args, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"lievi run failed ({r.returncode}):\n{r.stderr}")
    return np.genfromtxt(os.path.join(out, "series.csv"), delimiter=",", names=True)


def main():
    lievi = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "build", "release", "apps",
                                                                                   "lievi", "lievi"))
    version = subprocess.run([lievi, "--version"], capture_output=True, text=True).stdout.strip()
    lines = [f"# modified energy: {datetime.now(timezone.utc):%Y-%m-%d %H:%M} UTC, {version}, {platform.machine()}",
             "", "| method | h | max |H - H0| | max |H~ - H~0| |", "|---|---|---|---|"]
    res = {}
    fig, ax = plt.subplots(1, 3, figsize=(16, 4.4))
    with tempfile.TemporaryDirectory() as tmp:
        for mi, method in enumerate(["midpoint", "trapezoid"]):
            for h in HS:
                d = run(lievi, os.path.join(tmp, f"{method}_{h}"), method, h)
                q, p = d["q1"], d["p1"]
                H = 0.5 * p * p - np.cos(q)
                Ht = H + h * h * h3(method, q, p)
                dH, dHt = np.abs(H - H[0]).max(), np.abs(Ht - Ht[0]).max()
                res[(method, h)] = (dH, dHt)
                lines.append(f"| {method} | {h:g} | {dH:.3e} | {dHt:.3e} |")
                if h == 0.1:
                    sel = d["t"] <= 20.0
                    ax[mi].plot(d["t"][sel], (H - H[0])[sel], "C0-", lw=1, label="H - H0")
                    ax[mi].plot(d["t"][sel], (Ht - Ht[0])[sel], "C3-", lw=1, label="H~ - H~0 (H~ = H + h^2 H3)")
                    ax[mi].set_title(f"{'midpoint' if method == 'midpoint' else 'Stoermer-Verlet (trapezoid)'}, "
                                     "h = 0.1")
                    ax[mi].set_xlabel("t")
                    ax[mi].legend(fontsize=8)
    lines.append("")
    for method, mk in [("midpoint", "o"), ("trapezoid", "s")]:
        a = np.array([res[(method, h)] for h in HS])
        s1 = np.polyfit(np.log(HS), np.log(a[:, 0]), 1)[0]
        s2 = np.polyfit(np.log(HS), np.log(a[:, 1]), 1)[0]
        lines.append(f"{method}: fitted slope of max |H - H0| {s1:.2f}, of max |H~ - H~0| {s2:.2f}")
        ax[2].loglog(HS, a[:, 0], f"C0{mk}-", label=f"{method}: H (slope {s1:.2f})")
        ax[2].loglog(HS, a[:, 1], f"C3{mk}--", label=f"{method}: H~ (slope {s2:.2f})")
    ax[2].set_xlabel("h")
    ax[2].set_ylabel("largest deviation over t in [0, 200]")
    ax[2].set_title("H is kept to O(h^2), H~ to O(h^4)")
    ax[2].legend(fontsize=8)
    fig.tight_layout()
    os.makedirs(IMG, exist_ok=True)
    fig.savefig(os.path.join(IMG, "modified_energy.png"), dpi=100)
    with open(NUMBERS, "w") as f:
        f.write("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
