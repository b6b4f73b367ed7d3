#!/usr/bin/env python3
"""The cost of driving a beam from Python one step at a time (lievi.Simulation.step(1)) against the same steps
taken in one call (step(n): the C++ loop), per step, for a few grid sizes. The difference is the overhead of
the Python call (argument checks, the GIL release, the binding).

    PYTHONPATH=build/release/python /usr/bin/python3 bench/python_step_overhead.py
"""
import time

import lievi


def rod(J):
    return lievi.Scenario({
        "model": {"type": "beam", "section": "circle", "rho": 1000.0, "E": 1e6, "nu": 0.499, "r": 0.01,
                  "gravity": [0.0, 0.0, -9.81]},
        "grid": {"J": J, "length": 1.0},
        "bc": {"left": "clamped"},
        "damping": {"linear": 0.1, "angular": 0.1},
        "integrator": {"dt": 1e-5, "t_end": 1.0},
        "output": {"plots": False},
    }, name="rod")


def best(f, repeats=5):
    out = float("inf")
    for _ in range(repeats):
        t0 = time.perf_counter()
        f()
        out = min(out, time.perf_counter() - t0)
    return out


print(f"{'J':>6} {'step(n) per step':>18} {'step(1) per step':>18} {'overhead':>10}")
for J in (2, 20, 100, 1000):
    n = max(200, 200000 // J)
    sim = lievi.Simulation(rod(J))
    loop = best(lambda: sim.step(n)) / n
    one = best(lambda: [sim.step(1) for _ in range(n)]) / n
    print(f"{J:>6} {loop * 1e6:15.3f} us {one * 1e6:15.3f} us {(one - loop) * 1e6:7.3f} us")
