#!/usr/bin/python3
"""Plots of a lievi rigid-body or lagrangian run folder (docs/outputs.md).

Usage: lievi_plot.py RUN_DIR [--title TEXT] [--model lagrangian --system NAME [--lengths l1,l2]]

Reads RUN_DIR/series.csv (columns t,M1,M2,M3,energy,casimir,qw,qx,qy,qz) and writes
  casimir_energy.png  relative Casimir drift (C - C0)/C0, C = |M|^2, and energy H = 1/2 M.I^-1 M vs time;
  trajectory.png      M_k on its sphere |M| = |M0| in 3D with a faint wireframe, as seed 002's Figure 1.
With --model lagrangian it reads the columns t,q1..qn,v1..vn,p1..pn,energy,energy_error[,momentum][,constraint]
and writes
  energy_error.png    |energy_error| (relative to E0, absolute when E0 = 0) vs time on a log scale, with the
                      momentum-map drift |J - J0| and the constraint |g| when present;
  phase.png           phase portraits q_i vs p_i;
  trajectory.png      kepler: the orbit (q1, q2); double_pendulum: both bobs in the plane (--lengths l1,l2);
                      spherical_pendulum: the top view (q1, q2).
Matplotlib with the Agg backend (no display needed). Exit status 0 on success.
"""
import argparse
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

MAX_POINTS = 20000  # enough to draw any curve; long runs are thinned evenly (first and last rows kept)


def read_series(path):
    with open(path) as f:
        header = f.readline().strip().split(",")
    data = np.loadtxt(path, delimiter=",", skiprows=1, ndmin=2)
    if data.shape[0] == 0:
        raise SystemExit("series.csv has no rows")
    cols = {name: data[:, i] for i, name in enumerate(header)}
    for need in ("t", "M1", "M2", "M3", "energy", "casimir"):
        if need not in cols:
            raise SystemExit(f"series.csv lacks column {need}")
    return cols


def thin(n):
    if n <= MAX_POINTS:
        return np.arange(n)
    idx = np.linspace(0, n - 1, MAX_POINTS).round().astype(int)
    return np.unique(idx)


def plot_casimir_energy(c, out, title):
    i = thin(len(c["t"]))
    t = c["t"][i]
    C0 = c["casimir"][0] if c["casimir"][0] != 0 else 1.0
    drift = (c["casimir"][i] - c["casimir"][0]) / C0
    fig, (a1, a2) = plt.subplots(2, 1, sharex=True, figsize=(7.5, 6.0), constrained_layout=True)
    a1.plot(t, drift, lw=0.9, color="tab:blue")
    a1.set_ylabel(r"$(C - C_0)/C_0$ [-],  $C = |M|^2$")
    a1.axhline(0.0, color="0.6", lw=0.6)
    a1.ticklabel_format(axis="y", style="sci", scilimits=(-2, 2), useOffset=False)
    a1.set_title("Casimir drift" + (f" — {title}" if title else ""), fontsize=10)
    a1.grid(alpha=0.3)
    a2.plot(t, c["energy"][i], lw=0.9, color="tab:red")
    a2.set_ylabel(r"energy $H = \frac{1}{2} M \cdot \mathbb{I}^{-1} M$ [J]")
    a2.set_xlabel("t [s]")
    a2.grid(alpha=0.3)
    fig.savefig(out, dpi=120)
    plt.close(fig)


def plot_trajectory(c, out, title):
    i = thin(len(c["t"]))
    M = np.stack([c["M1"][i], c["M2"][i], c["M3"][i]], axis=1)
    r = np.sqrt(c["casimir"][0])
    fig = plt.figure(figsize=(6.5, 6.5), constrained_layout=True)
    ax = fig.add_subplot(projection="3d")
    u, v = np.meshgrid(np.linspace(0, 2 * np.pi, 37), np.linspace(0, np.pi, 19))
    ax.plot_wireframe(r * np.cos(u) * np.sin(v), r * np.sin(u) * np.sin(v), r * np.cos(v),
                      color="0.75", lw=0.4, alpha=0.5)
    ax.plot(M[:, 0], M[:, 1], M[:, 2], color="tab:blue", lw=1.0, label=r"$M_k$")
    ax.scatter(*M[0], color="tab:green", s=30, label="start", depthshade=False)
    ax.scatter(*M[-1], color="tab:red", s=30, label="end", depthshade=False)
    ax.set_xlabel(r"$M_1$ [kg m$^2$/s]")
    ax.set_ylabel(r"$M_2$ [kg m$^2$/s]")
    ax.set_zlabel(r"$M_3$ [kg m$^2$/s]")
    lim = 1.05 * r if r > 0 else 1.0
    ax.set_xlim(-lim, lim)
    ax.set_ylim(-lim, lim)
    ax.set_zlim(-lim, lim)
    try:
        ax.set_box_aspect((1, 1, 1))
    except AttributeError:
        pass
    ax.view_init(elev=20, azim=35)
    ax.legend(loc="upper left", fontsize=9)
    ax.set_title("M on the sphere |M| = |M0|" + (f"\n{title}" if title else ""), fontsize=10)
    fig.savefig(out, dpi=120)
    plt.close(fig)


def read_columns(path):
    with open(path) as f:
        header = f.readline().strip().split(",")
    data = np.loadtxt(path, delimiter=",", skiprows=1, ndmin=2)
    if data.shape[0] == 0:
        raise SystemExit("series.csv has no rows")
    return {name: data[:, i] for i, name in enumerate(header)}


def lagrangian_plots(run_dir, title, system, lengths):
    c = read_columns(os.path.join(run_dir, "series.csv"))
    n = sum(1 for k in c if k.startswith("q") and k[1:].isdigit())
    i = thin(len(c["t"]))
    t = c["t"][i]
    floor = 1e-17  # exact zeros (and values below round-off) are drawn at this floor

    def lg(x):
        return np.maximum(np.abs(x), floor)

    fig, ax = plt.subplots(figsize=(7.5, 4.5), constrained_layout=True)
    ax.semilogy(t, lg(c["energy_error"][i]), lw=0.9, color="tab:red", label="|energy error| [-] (relative)")
    if "momentum" in c:
        ax.semilogy(t, lg(c["momentum"][i] - c["momentum"][0]), lw=0.9, color="tab:blue",
                    label="|J - J0| (momentum map) [kg m^2/s]")
    rolling = system in ("chaplygin_sleigh", "vertical_disk", "rolling_disk")
    if "constraint" in c:
        ax.semilogy(t, lg(c["constraint"][i]), lw=0.9, color="tab:green",
                    label=("|A(q_mid)(q_k - q_k-1)| / h (discrete constraint) [m/s]" if rolling
                           else "|g(q)| (constraint) [m^2]"))
    ax.set_ylim(bottom=0.5 * floor)
    ax.set_xlabel("t [s]")
    ax.set_ylabel("error [units in the legend] (below 1e-17 drawn at 1e-17)")
    ax.grid(alpha=0.3, which="both")
    ax.legend(fontsize=9)
    ax.set_title("invariants" + (f" — {title}" if title else ""), fontsize=10)
    fig.savefig(os.path.join(run_dir, "energy_error.png"), dpi=120)
    plt.close(fig)

    # q is an angle for the pendulums (p an angular momentum), a position otherwise (docs/scenarios.md)
    angular = system in ("pendulum", "double_pendulum")  # (the sleigh's and disks' q mix lengths and angles)
    q_unit, p_unit = ("rad", "kg m^2/s") if angular else ("m", "kg m/s")
    fig, axes = plt.subplots(1, n, figsize=(4.0 * n, 4.0), constrained_layout=True, squeeze=False)
    for k in range(n):
        a = axes[0][k]
        a.plot(c[f"q{k + 1}"][i], c[f"p{k + 1}"][i], lw=0.7, color="tab:blue")
        a.set_xlabel(f"q{k + 1} [{q_unit}]")
        a.set_ylabel(f"p{k + 1} [{p_unit}]")
        a.grid(alpha=0.3)
    fig.suptitle("phase portraits" + (f" — {title}" if title else ""), fontsize=10)
    fig.savefig(os.path.join(run_dir, "phase.png"), dpi=120)
    plt.close(fig)

    if rolling:  # the path on the plane: the sleigh's centre of mass, the disk's contact point
        fig, ax = plt.subplots(figsize=(6.0, 6.0), constrained_layout=True)
        ax.plot(c["q1"][i], c["q2"][i], lw=0.8, color="tab:blue", label="path")
        ax.plot([c["q1"][0]], [c["q2"][0]], "ko", ms=4, label="start")
        ax.set_xlabel("x [m]")
        ax.set_ylabel("y [m]")
        ax.set_aspect("equal", adjustable="datalim")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=9)
        what = "centre of mass" if system == "chaplygin_sleigh" else "contact point"
        ax.set_title(f"path of the {what}" + (f" — {title}" if title else ""), fontsize=10)
        fig.savefig(os.path.join(run_dir, "trajectory.png"), dpi=120)
        plt.close(fig)
    if system in ("kepler", "double_pendulum", "spherical_pendulum"):
        fig, ax = plt.subplots(figsize=(6.0, 6.0), constrained_layout=True)
        if system == "double_pendulum":
            l1, l2 = (lengths + [1.0, 1.0])[:2]
            x1, y1 = l1 * np.sin(c["q1"][i]), -l1 * np.cos(c["q1"][i])
            x2, y2 = x1 + l2 * np.sin(c["q2"][i]), y1 - l2 * np.cos(c["q2"][i])
            ax.plot(x1, y1, lw=0.6, color="tab:blue", label="bob 1")
            ax.plot(x2, y2, lw=0.6, color="tab:orange", label="bob 2")
            ax.plot([0, x1[0], x2[0]], [0, y1[0], y2[0]], "k-o", ms=3, lw=1.0, label="start")
            ax.set_xlabel("x [m]")
            ax.set_ylabel("y [m]")
        else:
            ax.plot(c["q1"][i], c["q2"][i], lw=0.7, color="tab:blue", label="q(t)")
            ax.plot([0.0], [0.0], "k+", ms=8, label="centre" if system == "kepler" else "pivot")
            ax.set_xlabel("q1 [m]")
            ax.set_ylabel("q2 [m]")
        ax.set_aspect("equal", adjustable="datalim")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=9)
        what = {"kepler": "orbit", "double_pendulum": "trajectory", "spherical_pendulum": "top view"}[system]
        ax.set_title(what + (f" — {title}" if title else ""), fontsize=10)
        fig.savefig(os.path.join(run_dir, "trajectory.png"), dpi=120)
        plt.close(fig)
    return 0


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("run_dir")
    p.add_argument("--title", default="")
    p.add_argument("--model", default="rigid_body")
    p.add_argument("--system", default="")
    p.add_argument("--lengths", default="")
    a = p.parse_args(argv)
    if a.model == "lagrangian":
        lengths = [float(x) for x in a.lengths.split(",") if x]
        return lagrangian_plots(a.run_dir, a.title, a.system, lengths)
    c = read_series(os.path.join(a.run_dir, "series.csv"))
    plot_casimir_energy(c, os.path.join(a.run_dir, "casimir_energy.png"), a.title)
    plot_trajectory(c, os.path.join(a.run_dir, "trajectory.png"), a.title)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
