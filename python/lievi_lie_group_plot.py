#!/usr/bin/python3
"""Plots of a lievi lie_group run folder (docs/outputs.md).

Usage: lievi_lie_group_plot.py RUN_DIR [--title TEXT] [--system heavy_top|pendulum_3d|free_body|floating_body]

Reads RUN_DIR/series.csv (t, energy, energy_error, the Casimirs, the Noether momenta, qw..qz, Pi, Omega,
[Gamma], orth_err, newton) and writes
  invariants.png  |energy_error| and the drifts |C - C0| of the Casimirs and |J - J0| of the Noether momenta
                  vs time on a log scale (round-off shows as ~1e-16 .. 1e-13), with |R^T R - I|;
  attitude.png    the spatial direction of the body axis d3 = R e3 seen from above (heavy top, 3D pendulum:
                  precession and nutation), the body momentum (Pi1, Pi3) (free body) or the path of the body
                  origin (x, z) (floating body), and Pi vs time.
Matplotlib with the Agg backend (no display needed). Exit status 0 on success.
"""
import argparse
import os

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

MAX_POINTS = 20000  # enough to draw any curve; long runs are thinned evenly (first and last rows kept)
FLOOR = 1e-18       # drawn instead of an exact zero on the log axes


def read_series(path):
    with open(path) as f:
        header = f.readline().strip().split(",")
    data = np.loadtxt(path, delimiter=",", skiprows=1, ndmin=2)
    if data.shape[0] == 0:
        raise SystemExit("series.csv has no rows")
    if data.shape[0] > MAX_POINTS:
        idx = np.unique(np.r_[np.linspace(0, data.shape[0] - 1, MAX_POINTS).astype(int), data.shape[0] - 1])
        data = data[idx]
    return {name: data[:, i] for i, name in enumerate(header)}


def body_axis_d3(c):
    """Third column of R from the quaternion (w, x, y, z): the spatial direction of the body axis e3."""
    w, x, y, z = c["qw"], c["qx"], c["qy"], c["qz"]
    return np.stack([2 * (x * z + w * y), 2 * (y * z - w * x), 1 - 2 * (x * x + y * y)])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("run_dir")
    ap.add_argument("--title", default="")
    ap.add_argument("--system", default="heavy_top")
    a = ap.parse_args()
    c = read_series(os.path.join(a.run_dir, "series.csv"))
    t = c["t"]

    fig, ax = plt.subplots(figsize=(7, 4.2))
    ax.semilogy(t, np.maximum(np.abs(c["energy_error"]), FLOOR), label="|energy error| (relative)")
    for name in ("casimir_gamma", "casimir_pi_gamma", "casimir_pi"):
        if name in c:
            ax.semilogy(t, np.maximum(np.abs(c[name] - c[name][0]), FLOOR), label=f"|{name} - initial|")
    for name in ("momentum_x", "momentum_y", "momentum_z", "angular_z", "linear_x", "linear_y"):
        if name in c:
            ax.semilogy(t, np.maximum(np.abs(c[name] - c[name][0]), FLOOR), label=f"|{name} - initial|", lw=0.8)
    ax.semilogy(t, np.maximum(c["orth_err"], FLOOR), label="|R^T R - I|", lw=0.8, ls=":")
    ax.set_xlabel("t [s]")
    ax.set_ylabel("deviation")
    ax.set_title(a.title, fontsize=9)
    ax.legend(fontsize=7, loc="best")
    fig.tight_layout()
    fig.savefig(os.path.join(a.run_dir, "invariants.png"), dpi=120)
    plt.close(fig)

    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(9, 4.2))
    if a.system == "floating_body":
        ax1.plot(c["x"], c["z"], lw=0.6)
        ax1.set_xlabel("x [m]")
        ax1.set_ylabel("z [m]")
        ax1.set_title("body origin (x, z)", fontsize=9)
    elif a.system == "free_body":
        ax1.plot(c["Pi1"], c["Pi3"], lw=0.6)
        ax1.set_xlabel("Pi1")
        ax1.set_ylabel("Pi3")
        ax1.set_title("body momentum (Pi1, Pi3)", fontsize=9)
    else:
        d3 = body_axis_d3(c)
        ax1.plot(d3[0], d3[1], lw=0.6)
        ax1.plot(d3[0][:1], d3[1][:1], "o", ms=4)
        ax1.set_xlabel("x")
        ax1.set_ylabel("y")
        ax1.set_title("body axis d3 = R e3 seen from above", fontsize=9)
    ax1.set_aspect("equal", adjustable="datalim")
    for i in (1, 2, 3):
        ax2.plot(t, c[f"Pi{i}"], lw=0.8, label=f"Pi{i}")
    ax2.set_xlabel("t [s]")
    ax2.set_ylabel("Pi [kg m^2/s]")
    ax2.legend(fontsize=7)
    fig.suptitle(a.title, fontsize=9)
    fig.tight_layout()
    fig.savefig(os.path.join(a.run_dir, "attitude.png"), dpi=120)
    plt.close(fig)


if __name__ == "__main__":
    main()
