#!/usr/bin/python3
"""Plots of a lievi elastic-string run folder (model.type = "string", docs/outputs.md).

Usage: lievi_string_plot.py RUN_DIR [--title TEXT]

  energy.png    kinetic, potential and total energy vs time, and the total's deviation from E(0);
  momentum.png  |P - P(0)| and |L - L(0)| (linear and angular momentum) vs time;
  probes.png    the probe nodes' transverse coordinates y and z vs time;
  shape.png     the string in the (x, y) plane at a few output times (fields.h5), or the final configuration
                (final_positions.csv) when fields.h5 was not written.
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
    data = np.loadtxt(path, delimiter=",", skiprows=1, ndmin=2)
    if data.shape[0] == 0:
        raise SystemExit(f"{os.path.basename(path)} has no rows")
    return {name: data[:, i] for i, name in enumerate(header)}, header


def thin(n):
    if n <= MAX_POINTS:
        return np.arange(n)
    return np.unique(np.linspace(0, n - 1, MAX_POINTS).round().astype(int))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("run_dir")
    ap.add_argument("--title", default="")
    a = ap.parse_args()
    d, title = a.run_dir, a.title
    cols, header = read(os.path.join(d, "series.csv"))
    t = cols["t"]
    k = thin(len(t))

    fig, ax = plt.subplots(1, 2, figsize=(11, 3.8))
    for name in ("kinetic", "potential", "energy"):
        ax[0].plot(t[k], cols[name][k], lw=0.8, label=name)
    ax[0].set_xlabel("t [s]")
    ax[0].set_ylabel("energy [J]")
    ax[0].legend(fontsize=8)
    e = cols["energy"]
    ax[1].plot(t[k], (e - e[0])[k], lw=0.8)
    ax[1].set_xlabel("t [s]")
    ax[1].set_ylabel("E - E(0) [J]")
    ax[1].set_title(f"E(0) = {e[0]:.6g}", fontsize=9)
    ax[1].ticklabel_format(axis="y", style="sci", scilimits=(-2, 2))
    fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(os.path.join(d, "energy.png"), dpi=120)
    plt.close(fig)

    fig, ax = plt.subplots(1, 2, figsize=(11, 3.8))
    for a_, base, label in ((ax[0], "P", "linear momentum"), (ax[1], "L", "angular momentum")):
        v = np.stack([cols[f"{base}_{c}"] for c in "xyz"], axis=1)
        dev = np.linalg.norm(v - v[0], axis=1)
        a_.plot(t[k], dev[k], lw=0.8)
        a_.set_xlabel("t [s]")
        a_.set_ylabel(f"|{base} - {base}(0)|")
        a_.set_title(label, fontsize=9)
        a_.ticklabel_format(axis="y", style="sci", scilimits=(-2, 2))
    fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(os.path.join(d, "momentum.png"), dpi=120)
    plt.close(fig)

    probes = [h[1:] for h in header if h.startswith("y") and h[1:].isdigit()]
    if probes:
        fig, ax = plt.subplots(1, 2, figsize=(11, 3.8))
        for j in probes:
            ax[0].plot(t[k], cols[f"y{j}"][k], lw=0.8, label=f"node {j}")
            ax[1].plot(t[k], cols[f"z{j}"][k], lw=0.8, label=f"node {j}")
        for a_, c in ((ax[0], "y"), (ax[1], "z")):
            a_.set_xlabel("t [s]")
            a_.set_ylabel(f"{c} [m]")
            a_.legend(fontsize=8)
        fig.suptitle(title)
        fig.tight_layout()
        fig.savefig(os.path.join(d, "probes.png"), dpi=120)
        plt.close(fig)

    fig, ax = plt.subplots(figsize=(9, 3.8))
    h5 = os.path.join(d, "fields.h5")
    if os.path.exists(h5):
        import h5py
        with h5py.File(h5, "r") as f:
            ts = f["t"][:]
            x = f["x"]
            for i in np.unique(np.linspace(0, len(ts) - 1, 6).round().astype(int)):
                xi = x[i]
                ax.plot(xi[:, 0], xi[:, 1], lw=0.9, label=f"t = {ts[i]:.4g}")
    else:
        fin, _ = read(os.path.join(d, "final_positions.csv"))
        ax.plot(fin["x"], fin["y"], lw=0.9, label="final")
    ax.set_xlabel("x [m]")
    ax.set_ylabel("y [m]")
    ax.legend(fontsize=8)
    fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(os.path.join(d, "shape.png"), dpi=120)
    plt.close(fig)


if __name__ == "__main__":
    main()
