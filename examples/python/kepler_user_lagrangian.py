#!/usr/bin/env python3
"""Seed 001 (Marsden-West) from Python with a user Lagrangian: the Kepler problem written in SymPy, integrated by
lievi's variational midpoint and Lobatto IIIA-IIIB steps. A variational integrator keeps the energy error bounded
(no drift) over many orbits and, since the discrete Lagrangian is invariant under rotations, conserves the
angular momentum q1 p2 - q2 p1 exactly (discrete Noether), to round-off.

    PYTHONPATH=build/release/python /usr/bin/python3 examples/python/kepler_user_lagrangian.py [--out DIR] [--quick]
"""
import argparse
import math
import os

import numpy as np
import sympy as sp

import lievi

ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
ap.add_argument("--out", default="runs/python", help="folder for the figure (default runs/python)")
ap.add_argument("--quick", action="store_true", help="5 orbits instead of 50")
args = ap.parse_args()
os.makedirs(args.out, exist_ok=True)

q1, q2, v1, v2 = sp.symbols("q1 q2 v1 v2")
kepler = lievi.Lagrangian([q1, q2], [v1, v2], L=(v1**2 + v2**2) / 2 + 1 / sp.sqrt(q1**2 + q2**2))
e = 0.5  # eccentricity; a = 1, mu = 1: period 2 pi, energy -1/2
q0, v0 = [1 - e, 0.0], [0.0, math.sqrt((1 + e) / (1 - e))]
orbits = 5 if args.quick else 50
h = 2 * math.pi / 400
steps = 400 * orbits
runs = {m: kepler.integrate(q0, v0, h=h, steps=steps, method=m, every=10) for m in ("midpoint", "lobatto-iiia-iiib")}
for m, out in runs.items():
    J = out["q"][:, 0] * out["p"][:, 1] - out["q"][:, 1] * out["p"][:, 0]
    dE = out["energy"] + 0.5
    print(f"{m}: {orbits} orbits, energy error max {np.abs(dE).max():.2e} (first orbit {np.abs(dE[:40]).max():.2e}), "
          f"angular momentum drift {np.abs(J - J[0]).max():.1e}")
try:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
except ImportError:
    print("matplotlib not found: no figure")
else:
    fig, ax = plt.subplots(1, 2, figsize=(10, 3.8))
    for m, out in runs.items():
        ax[0].semilogy(out["t"] / (2 * math.pi), np.abs(out["energy"] + 0.5) + 1e-18, lw=0.8, label=m)
        ax[1].plot(out["q"][:, 0], out["q"][:, 1], lw=0.5, label=m)
    ax[0].set_xlabel("orbits"), ax[0].set_ylabel("|E + 1/2|"), ax[0].legend(fontsize=8)
    ax[0].set_title("energy error: bounded, no drift")
    ax[1].set_aspect("equal"), ax[1].set_title("orbits (e = 0.5)")
    path = os.path.join(args.out, "kepler_user_lagrangian.png")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    print("wrote", path)
