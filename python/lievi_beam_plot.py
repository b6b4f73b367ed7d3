#!/usr/bin/python3
"""Plots of a lievi beam run folder (docs/outputs.md).

Usage: lievi_beam_plot.py RUN_DIR [--title TEXT] [--animation]

Reads RUN_DIR/series.csv and, when present, RUN_DIR/fields.h5 (/t, /p[n_out, n_nodes, 3]) and writes
  snapshots.png  the centre line at up to 9 times: a 3-D view and the x-y, x-z, y-z projections;
  ensemble.png   (ensembles, --paths) mean +- 2 std of the end positions and of E_c;
  motion.gif     (--animation) the centre line over time, up to 60 frames of the fields.h5 snapshots;
  energy.png     E_d and E_c minus their initial values, and the spatial momentum map minus its initial value;
  ends.png       positions of the two end nodes vs time.
Matplotlib with the Agg backend. Exit status 0 on success.
"""
import argparse
import os

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402


def read(path):
    with open(path) as f:
        header = f.readline().strip().split(",")
    data = np.loadtxt(path, delimiter=",", skiprows=1, ndmin=2)
    return {name: data[:, i] for i, name in enumerate(header)}


def ensemble(d, title):
    """ensemble.png: mean +- 2 std over the paths of the end positions and of the centred energy."""
    m = read(os.path.join(d, "series_mean.csv"))
    sd = read(os.path.join(d, "series_std.csv"))
    t = m["t"]
    fig, ax = plt.subplots(1, 3, figsize=(14, 3.8))
    for k, end in enumerate(("end0", "endL")):
        for c in ("x", "y", "z"):
            y, e = m[f"{end}_{c}"], sd[f"{end}_{c}"]
            (line,) = ax[k].plot(t, y, lw=0.9, label=f"{end}_{c}")
            ax[k].fill_between(t, y - 2 * e, y + 2 * e, color=line.get_color(), alpha=0.25, lw=0)
        ax[k].set_title(f"{end}: mean +- 2 std", fontsize=9)
        ax[k].set_xlabel("t [s]")
        ax[k].set_ylabel("position [m]")
        ax[k].legend(fontsize=7)
    y, e = m["E_c"], sd["E_c"]
    ax[2].plot(t, y, lw=0.9, label="E_c")
    ax[2].fill_between(t, y - 2 * e, y + 2 * e, alpha=0.25, lw=0)
    ax[2].set_title("centred energy: mean +- 2 std", fontsize=9)
    ax[2].set_xlabel("t [s]")
    ax[2].set_ylabel("energy E_c [J]")
    fig.suptitle(title + " (ensemble)")
    fig.tight_layout()
    fig.savefig(os.path.join(d, "ensemble.png"), dpi=110)
    plt.close(fig)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("run_dir")
    ap.add_argument("--title", default="")
    ap.add_argument("--animation", action="store_true", help="also write motion.gif from fields.h5")
    a = ap.parse_args()
    d = a.run_dir
    if not os.path.exists(os.path.join(d, "series.csv")) and os.path.exists(os.path.join(d, "series_mean.csv")):
        ensemble(d, a.title)
        return
    s = read(os.path.join(d, "series.csv"))
    t = s["t"]

    fig, ax = plt.subplots(1, 3, figsize=(14, 3.8))
    for name in ("E_d", "E_c"):
        e = s[name]
        ok = np.isfinite(e)
        ax[0].plot(t[ok], e[ok] - e[ok][0], lw=0.8, label=f"{name} - {name}(0), {name}(0) = {e[ok][0]:.6g}")
    ax[0].set_xlabel("t [s]")
    ax[0].set_ylabel("energy change [J]")
    ax[0].legend(fontsize=7)
    for k, c in enumerate(("x", "y", "z")):
        ax[1].plot(t, s[f"Jang_{c}"] - s[f"Jang_{c}"][0], lw=0.8, label=f"Jang_{c}")
        ax[2].plot(t, s[f"Jlin_{c}"] - s[f"Jlin_{c}"][0], lw=0.8, label=f"Jlin_{c}")
    ax[1].set_title("angular momentum change", fontsize=9)
    ax[2].set_title("linear momentum change", fontsize=9)
    ax[1].set_ylabel("Jang - Jang(0) [kg m^2/s]")
    ax[2].set_ylabel("Jlin - Jlin(0) [kg m/s]")
    for x in ax[1:]:
        x.set_xlabel("t [s]")
        x.legend(fontsize=7)
    fig.suptitle(a.title)
    fig.tight_layout()
    fig.savefig(os.path.join(d, "energy.png"), dpi=110)
    plt.close(fig)

    fig, ax = plt.subplots(figsize=(7, 3.8))
    for end in ("end0", "endL"):
        for c in ("x", "y", "z"):
            ax.plot(t, s[f"{end}_{c}"], lw=0.8, label=f"{end}_{c}")
    ax.set_xlabel("t [s]")
    ax.set_ylabel("position [m]")
    ax.legend(fontsize=7, ncol=2)
    ax.set_title(a.title)
    fig.tight_layout()
    fig.savefig(os.path.join(d, "ends.png"), dpi=110)
    plt.close(fig)

    h5 = os.path.join(d, "fields.h5")
    if os.path.exists(h5):
        import h5py

        with h5py.File(h5, "r") as f:
            ts, p = f["t"][:], f["p"][:]
        idx = np.unique(np.linspace(0, len(ts) - 1, min(9, len(ts))).round().astype(int))
        fig = plt.figure(figsize=(14, 4))
        ax3 = fig.add_subplot(1, 4, 1, projection="3d")
        cmap = plt.get_cmap("viridis")
        for n, k in enumerate(idx):
            col = cmap(n / max(1, len(idx) - 1))
            ax3.plot(p[k, :, 0], p[k, :, 1], p[k, :, 2], color=col, lw=1)
        ax3.set_xlabel("x [m]")
        ax3.set_ylabel("y [m]")
        ax3.set_zlabel("z [m]")
        for m, (i, j, lab) in enumerate(((0, 1, "x-y"), (0, 2, "x-z"), (1, 2, "y-z"))):
            axp = fig.add_subplot(1, 4, m + 2)
            for n, k in enumerate(idx):
                col = cmap(n / max(1, len(idx) - 1))
                axp.plot(p[k, :, i], p[k, :, j], color=col, lw=1, label=f"t = {ts[k]:.3g}" if m == 2 else None)
            axp.set_aspect("equal", adjustable="datalim")
            axp.set_title(lab, fontsize=9)
            axp.set_xlabel("xyz"[i] + " [m]")
            axp.set_ylabel("xyz"[j] + " [m]")
            if m == 2:
                axp.legend(fontsize=6)
        fig.suptitle(a.title + ": centre line snapshots")
        fig.tight_layout()
        fig.savefig(os.path.join(d, "snapshots.png"), dpi=110)
        plt.close(fig)
        if a.animation:
            animate(d, ts, p, a.title)


def animate(d, ts, p, title):
    """motion.gif: the centre line in 3-D, up to 60 frames (Pillow writer). The view follows the beam: a cube of
    fixed size (the largest extent of the beam over the run) centred on each frame's centroid."""
    from matplotlib.animation import FuncAnimation, PillowWriter

    idx = np.unique(np.linspace(0, len(ts) - 1, min(60, len(ts))).round().astype(int))
    half = 0.55 * max(float((p.max(axis=1) - p.min(axis=1)).max()), 1e-9)
    fig = plt.figure(figsize=(5, 4.5))
    ax = fig.add_subplot(projection="3d")
    (line,) = ax.plot([], [], [], lw=2)
    ax.set_xlabel("x [m]")
    ax.set_ylabel("y [m]")
    ax.set_zlabel("z [m]")
    label = ax.set_title("")

    def frame(k):
        c = p[k].mean(axis=0)
        ax.set_xlim(c[0] - half, c[0] + half)
        ax.set_ylim(c[1] - half, c[1] + half)
        ax.set_zlim(c[2] - half, c[2] + half)
        line.set_data(p[k, :, 0], p[k, :, 1])
        line.set_3d_properties(p[k, :, 2])
        label.set_text(f"{title}  t = {ts[k]:.3g}")
        return (line,)

    FuncAnimation(fig, frame, frames=list(idx), blit=False).save(os.path.join(d, "motion.gif"), writer=PillowWriter(fps=12))
    plt.close(fig)


if __name__ == "__main__":
    main()
