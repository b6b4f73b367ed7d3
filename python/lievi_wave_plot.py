#!/usr/bin/python3
"""Plots of a lievi wave-equation run folder (docs/outputs.md).

Usage: lievi_wave_plot.py RUN_DIR [--title TEXT]

Single run (RUN_DIR/series.csv: t,E_d,E_c,phi_<j>...; RUN_DIR/fields.h5 when written):
  energy.png     E_d (the paper's energy) and E_c (time-centred) minus their initial values vs time,
                 as the paper's Figure 5 panels;
  spacetime.png  contour map of phi(s, t) from fields.h5 (the paper's Figure 5, left column);
  probes.png     phi at the probe nodes vs time.
Ensemble (RUN_DIR/series_mean.csv and series_std.csv):
  energy.png     mean E_c and E_d with a +-2 sigma band;  probes.png  mean phi +- 2 sigma at the probes.
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


def single(run_dir, title):
    cols, header = read(os.path.join(run_dir, "series.csv"))
    t = cols["t"]
    k = thin(len(t))
    fig, ax = plt.subplots(1, 2, figsize=(11, 3.8))
    for a, name, label in ((ax[0], "E_d", "paper's energy $E_d$"), (ax[1], "E_c", "centred energy $E_c$")):
        e = cols[name]
        ok = np.isfinite(e)
        e0 = e[ok][0] if ok.any() else 0.0
        a.plot(t[k], (e - e0)[k], lw=0.8)
        a.set_xlabel("t [s]")
        a.set_ylabel(f"{name} - {name}(0) [m/s^2]")
        a.set_title(f"{label}, E(0) = {e0:.6g}", fontsize=9)
        a.ticklabel_format(axis="y", style="sci", scilimits=(-2, 2))
    fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(os.path.join(run_dir, "energy.png"), dpi=120)
    plt.close(fig)

    probes = [h for h in header if h.startswith("phi_")]
    if probes:
        fig, a = plt.subplots(figsize=(7, 3.8))
        for p in probes:
            a.plot(t[k], cols[p][k], lw=0.8, label=p.replace("phi_", "node "))
        a.set_xlabel("t [s]")
        a.set_ylabel(r"$\phi$ [-]")
        a.legend(fontsize=8)
        a.set_title(title)
        fig.tight_layout()
        fig.savefig(os.path.join(run_dir, "probes.png"), dpi=120)
        plt.close(fig)

    h5 = os.path.join(run_dir, "fields.h5")
    if os.path.exists(h5):
        import h5py

        with h5py.File(h5, "r") as f:
            ts, s, phi = f["t"][:], f["s"][:], f["phi"][:]
        if len(ts) >= 2:
            fig, a = plt.subplots(figsize=(7, 4.2))
            cs = a.contourf(s, ts, phi, levels=40, cmap="RdBu_r")
            fig.colorbar(cs, ax=a, label=r"$\phi$ [-]")
            a.set_xlabel("s [m]")
            a.set_ylabel("t [s]")
            a.set_title(title + r": $\phi(s,t)$")
            fig.tight_layout()
            fig.savefig(os.path.join(run_dir, "spacetime.png"), dpi=120)
            plt.close(fig)


def ensemble(run_dir, title):
    mean, header = read(os.path.join(run_dir, "series_mean.csv"))
    std, _ = read(os.path.join(run_dir, "series_std.csv"))
    t = mean["t"]
    k = thin(len(t))
    fig, ax = plt.subplots(1, 2, figsize=(11, 3.8))
    for a, name in ((ax[0], "E_d"), (ax[1], "E_c")):
        m, s = mean[name], std[name]
        a.plot(t[k], m[k], lw=0.9, label="mean")
        a.fill_between(t[k], (m - 2 * s)[k], (m + 2 * s)[k], alpha=0.3, label=r"$\pm 2\sigma$")
        a.set_xlabel("t [s]")
        a.set_ylabel(name + " [m/s^2]")
        a.legend(fontsize=8)
    fig.suptitle(title + " (ensemble)")
    fig.tight_layout()
    fig.savefig(os.path.join(run_dir, "energy.png"), dpi=120)
    plt.close(fig)
    probes = [h for h in header if h.startswith("phi_")]
    if probes:
        fig, a = plt.subplots(figsize=(7, 3.8))
        for p in probes:
            line = a.plot(t[k], mean[p][k], lw=0.8, label=p.replace("phi_", "node "))[0]
            a.fill_between(t[k], (mean[p] - 2 * std[p])[k], (mean[p] + 2 * std[p])[k], alpha=0.2,
                           color=line.get_color())
        a.set_xlabel("t [s]")
        a.set_ylabel(r"$\phi$ [-] (mean $\pm 2\sigma$)")
        a.legend(fontsize=8)
        a.set_title(title)
        fig.tight_layout()
        fig.savefig(os.path.join(run_dir, "probes.png"), dpi=120)
        plt.close(fig)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("run_dir")
    p.add_argument("--title", default="")
    a = p.parse_args()
    if os.path.exists(os.path.join(a.run_dir, "series_mean.csv")):
        ensemble(a.run_dir, a.title)
    else:
        single(a.run_dir, a.title)


if __name__ == "__main__":
    main()
