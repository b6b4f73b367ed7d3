#!/usr/bin/env python3
"""Seed 000 from Python: the stochastic wave equation with independent noise gains energy on average at a constant
rate, (J - 1) Theta^2 / ds (docs/results/wave.md: 0.990 for examples/wave/independent.toml, J = 100, Theta = 1e-2);
an ensemble of paths with lievi.run_paths shows the mean energy growing linearly, its spread, and the fitted
rate against the predicted one.

    PYTHONPATH=build/release/python /usr/bin/python3 examples/python/wave_energy_growth.py [--out DIR] [--quick]
"""
import argparse
import os

import numpy as np

import lievi

here = os.path.dirname(os.path.abspath(__file__))
ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
ap.add_argument("--out", default="runs/python", help="folder for the figure (default runs/python)")
ap.add_argument("--quick", action="store_true", help="8 paths to t = 0.5 instead of 64 to t = 2")
args = ap.parse_args()
os.makedirs(args.out, exist_ok=True)

t_end, paths = (0.5, 8) if args.quick else (2.0, 64)
sc = lievi.load(os.path.join(here, "..", "wave", "independent.toml"),
                set={"integrator.t_end": t_end, "output.plots": False, "output.fields": False})
r = lievi.run_paths(sc, paths, quantiles=(0.1, 0.9))
t, E, s = r.mean["t"], r.mean["E_c"], r.std["E_c"]
rate, E0 = np.polyfit(t, E, 1)
res = sc.resolved()
J, theta, length = res["grid"]["J"], res["noise"]["theta"], res["grid"].get("length", 1.0)
predicted = (J - 1) * theta**2 / (length / J)
print(f"{paths} paths to t = {t_end}: mean E_c grows from {E[0]:.4f} to {E[-1]:.4f}, fitted rate {rate:.4f} per unit "
      f"time against the predicted {predicted:.4f} (standard error of the final mean {s[-1] / np.sqrt(paths):.4f})")
try:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
except ImportError:
    print("matplotlib not found: no figure")
else:
    fig, ax = plt.subplots(figsize=(6.5, 3.8))
    ax.fill_between(t, r.quantiles[0.1]["E_c"], r.quantiles[0.9]["E_c"], alpha=0.3, label="10-90% of the paths")
    ax.plot(t, E, label=f"mean of {paths} paths")
    ax.plot(t, E0 + rate * t, "--", label=f"fit: rate {rate:.3f}")
    ax.plot(t, E[0] + predicted * t, ":", label=f"predicted rate {predicted:.3f}")
    ax.set_xlabel("t"), ax.set_ylabel("E_c"), ax.legend(fontsize=8)
    path = os.path.join(args.out, "wave_energy_growth.png")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    print("wrote", path)
