#!/usr/bin/env python3
"""Seed 000 from Python: the flying spaghetti, deterministic and stochastic. A 10 m beam is pushed at one end by a
ramped wrench (t <= 5 s) and flies off tumbling. Deterministic: `lievi.Simulation` steps it and keeps snapshots of
the centre line every second. Stochastic (common noise, Theta = 0.01 in every component): an ensemble with
`lievi.run_paths` gives the mean and the spread of the far end's path, and the quantiles across the paths.

    PYTHONPATH=build/release/python /usr/bin/python3 examples/python/spaghetti.py [--out DIR] [--quick]
"""
import argparse
import os

import numpy as np

import lievi

here = os.path.dirname(os.path.abspath(__file__))
ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
ap.add_argument("--out", default="runs/python", help="folder for the figure (default runs/python)")
ap.add_argument("--quick", action="store_true", help="to t = 3 s with 4 paths instead of 15 s with 32")
args = ap.parse_args()
os.makedirs(args.out, exist_ok=True)

t_end, paths = (3.0, 4) if args.quick else (15.0, 32)
sets = {"integrator.t_end": t_end, "output.plots": False, "output.animation": False, "output.fields": False,
        "output.vtk": False}
det = lievi.load(os.path.join(here, "..", "beam", "flying_spaghetti.toml"), set=sets)
sim = lievi.Simulation(det)
snapshots = [(0.0, sim.positions.copy())]
per_second = round(1.0 / sim.dt)
while sim.t < t_end - 1e-9:
    sim.step(per_second)
    snapshots.append((sim.t, sim.positions.copy()))
e = sim.energies()
print(f"deterministic: t = {sim.t:g}, E_c = {e['E_c']:.4f} J, tip at {np.array2string(sim.positions[-1], precision=3)}")

sto = lievi.load(os.path.join(here, "..", "beam", "stochastic_spaghetti.toml"), set=sets)
r = lievi.run_paths(sto, paths, quantiles=(0.1, 0.9))
tip = np.stack([r.mean[f"endL_{c}"] for c in "xyz"], axis=1)
spread = np.stack([r.std[f"endL_{c}"] for c in "xyz"], axis=1)
print(f"stochastic, {paths} paths: far end at t = {r.mean['t'][-1]:g}: mean {np.array2string(tip[-1], precision=3)}, "
      f"std {np.array2string(spread[-1], precision=3)}")
try:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
except ImportError:
    print("matplotlib not found: no figure")
else:
    fig, ax = plt.subplots(1, 2, figsize=(11, 4.2))
    for t, p in snapshots:
        ax[0].plot(p[:, 0], p[:, 1], lw=1.0, label=f"t = {t:g} s" if round(t) % 3 == 0 else None)
    ax[0].set_aspect("equal"), ax[0].set_xlabel("x (m)"), ax[0].set_ylabel("y (m)")
    ax[0].set_title("deterministic: centre line every second (top view)"), ax[0].legend(fontsize=6, loc="upper right")
    t = r.mean["t"]
    for k, c in enumerate("xyz"):
        ax[1].fill_between(t, r.quantiles[0.1][f"endL_{c}"], r.quantiles[0.9][f"endL_{c}"], alpha=0.3)
        ax[1].plot(t, tip[:, k], label=f"far end {c}: mean, 10-90%")
    ax[1].set_xlabel("t (s)"), ax[1].set_ylabel("m"), ax[1].legend(fontsize=7)
    ax[1].set_title(f"stochastic (common noise), {paths} paths")
    path = os.path.join(args.out, "spaghetti.png")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    print("wrote", path)
