#!/usr/bin/python3
"""Plots of a lievi run of Kirchhoff's body in an ideal fluid (model.type = "kirchhoff", docs/outputs.md).

Usage: lievi_kirchhoff_plot.py RUN_DIR [--title TEXT]

From RUN_DIR/series.csv (t, Pi1..3, P1..3, energy, casimir_P2, casimir_PPi, their drifts, energy_above_min,
distance_min, equilibrium_residual, x, y, z, qw, qx, qy, qz, newton):
  kirchhoff_invariants.png  the Casimirs' deviations from their start (round-off), the energy H, and on a log scale
                            H - min H, the distance to the minimum-energy set and |ad*_xi mu| (the approach to the
                            equilibrium set);
  kirchhoff_motion.png      the impulses Pi and P in the body frame, and the path of the body's origin in space.
Matplotlib with the Agg backend. Exit status 0 on success.
"""
import argparse
import os

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

MAX_POINTS = 20000


def read(path):
    with open(path) as f:
        header = f.readline().strip().split(",")
    data = np.genfromtxt(path, delimiter=",", skip_header=1, ndmin=2)
    if data.shape[0] == 0:
        raise SystemExit(f"{os.path.basename(path)} has no rows")
    return {name: data[:, i] for i, name in enumerate(header)}


def thin(n):
    if n <= MAX_POINTS:
        return np.arange(n)
    return np.unique(np.linspace(0, n - 1, MAX_POINTS).round().astype(int))


def positive(v):
    """Values for a log axis: zeros and NaN dropped (an exact 0 is below every axis)."""
    return np.where(np.isfinite(v) & (v > 0), v, np.nan)


def invariants(c, run_dir, title):
    t = c["t"]
    k = thin(len(t))
    fig, ax = plt.subplots(1, 3, figsize=(15, 4))
    ax[0].plot(t[k], c["casimir_P2_drift"][k], lw=0.8, label=r"$|P|^2 - |P_0|^2$")
    ax[0].plot(t[k], c["casimir_PPi_drift"][k], lw=0.8, label=r"$P\cdot\Pi - P_0\cdot\Pi_0$")
    ax[0].set_title(f"Casimirs: |P|^2 = {c['casimir_P2'][0]:.6g}, P.Pi = {c['casimir_PPi'][0]:.6g}", fontsize=9)
    ax[0].ticklabel_format(axis="y", style="sci", scilimits=(-2, 2))
    ax[0].legend(fontsize=8)
    ax[1].plot(t[k], c["energy"][k], lw=0.8, label="H")
    if np.isfinite(c["energy_above_min"]).any():
        hmin = (c["energy"] - c["energy_above_min"])[0]
        ax[1].axhline(hmin, color="k", ls=":", lw=0.8, label=f"min H on the orbit = {hmin:.6g}")
    ax[1].set_title("energy", fontsize=9)
    ax[1].legend(fontsize=8)
    for name, label in (("energy_above_min", "H - min H"), ("distance_min", "distance to the minimum set"),
                        ("equilibrium_residual", r"$|ad^*_\xi\mu|_\infty$")):
        v = positive(c[name])
        if np.isfinite(v).any():
            ax[2].semilogy(t[k], v[k], lw=0.8, label=label)
    ax[2].set_title("approach to the equilibrium set", fontsize=9)
    ax[2].legend(fontsize=8)
    for a in ax:
        a.set_xlabel("t")
    fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(os.path.join(run_dir, "kirchhoff_invariants.png"), dpi=120)
    plt.close(fig)


def motion(c, run_dir, title):
    t = c["t"]
    k = thin(len(t))
    fig = plt.figure(figsize=(15, 4))
    a0 = fig.add_subplot(1, 3, 1)
    a1 = fig.add_subplot(1, 3, 2)
    a2 = fig.add_subplot(1, 3, 3, projection="3d")
    for i in (1, 2, 3):
        a0.plot(t[k], c[f"Pi{i}"][k], lw=0.8, label=f"Pi{i}")
        a1.plot(t[k], c[f"P{i}"][k], lw=0.8, label=f"P{i}")
    a0.set_title("impulse moment (body frame)", fontsize=9)
    a1.set_title("impulse (body frame)", fontsize=9)
    for a in (a0, a1):
        a.set_xlabel("t")
        a.legend(fontsize=8)
    a2.plot(c["x"][k], c["y"][k], c["z"][k], lw=0.8)
    a2.scatter([c["x"][0]], [c["y"][0]], [c["z"][0]], color="g", s=12, label="start")
    a2.scatter([c["x"][-1]], [c["y"][-1]], [c["z"][-1]], color="r", s=12, label="end")
    a2.set_title("path of the body's origin (spatial)", fontsize=9)
    a2.set_xlabel("x")
    a2.set_ylabel("y")
    a2.set_zlabel("z")
    a2.legend(fontsize=8)
    fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(os.path.join(run_dir, "kirchhoff_motion.png"), dpi=120)
    plt.close(fig)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("run_dir")
    ap.add_argument("--title", default="")
    a = ap.parse_args()
    c = read(os.path.join(a.run_dir, "series.csv"))
    invariants(c, a.run_dir, a.title)
    motion(c, a.run_dir, a.title)


if __name__ == "__main__":
    main()
