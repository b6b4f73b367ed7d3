#!/usr/bin/env python3
"""Seed 002, Figure 1 from Python: the momentum of the double-bracket-dissipative rigid body runs on the sphere
|M| = |M0| to its minimum-energy set — the point -|M0| e2 for Scenario B (I = diag(1, 1.3, 0.5)), the great circle
M3 = 0 for Scenario C (I = diag(1, 1, 0.5)) — with the Casimir |M|^2 kept to round-off by the DDB-Cayley step.

    PYTHONPATH=build/release/python /usr/bin/python3 examples/python/rigid_body_figure1.py [--out DIR] [--quick]
"""
import argparse
import os

import numpy as np

import lievi

here = os.path.dirname(os.path.abspath(__file__))
ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
ap.add_argument("--out", default="runs/python", help="folder for the figure (default runs/python)")
ap.add_argument("--quick", action="store_true", help="t = 25 instead of 250 (a check that it runs)")
args = ap.parse_args()
os.makedirs(args.out, exist_ok=True)

runs = {}
for name in ("scenario_b", "scenario_c"):
    sets = {"output.plots": False}
    if args.quick:
        sets["integrator.t_end"] = 25.0
    runs[name] = lievi.run(lievi.load(os.path.join(here, "..", "rigid_body", f"{name}.toml"), set=sets))

for name, r in runs.items():
    M = np.stack([r.series["M1"], r.series["M2"], r.series["M3"]], axis=1)
    C = r.series["casimir"]
    print(f"{name}: M(end) = {np.array2string(M[-1], precision=6)}, |M|^2 drift {np.abs(C - C[0]).max():.2e}, "
          f"energy {r.series['energy'][0]:.6f} -> {r.series['energy'][-1]:.6f}")

try:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
except ImportError:
    print("matplotlib not found: no figure")
else:
    fig = plt.figure(figsize=(10, 4.8))
    u, v = np.mgrid[0:2 * np.pi:40j, 0:np.pi:20j]
    for k, (name, r) in enumerate(runs.items()):
        ax = fig.add_subplot(1, 2, k + 1, projection="3d")
        m0 = np.sqrt(r.series["casimir"][0])
        ax.plot_wireframe(m0 * np.cos(u) * np.sin(v), m0 * np.sin(u) * np.sin(v), m0 * np.cos(v),
                          color="0.85", linewidth=0.4)
        ax.plot(r.series["M1"], r.series["M2"], r.series["M3"], lw=1.2)
        ax.set_title(f"{name.replace('_', ' ')}: M(t) on |M| = |M0|")
        ax.set_xlabel("M1"), ax.set_ylabel("M2"), ax.set_zlabel("M3")
    path = os.path.join(args.out, "rigid_body_figure1.png")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    print("wrote", path)
