#!/usr/bin/python3
"""Regenerate the figures and numbers of docs/results/nonholonomic.md with lievi's command line.

Usage: /usr/bin/python3 scripts/nonholonomic_results.py [LIEVI_BINARY]   (default build/release/apps/lievi/lievi)

Every figure comes from `lievi run` on the catalogue's nonholonomic systems (examples/mechanics/*.toml, changed
by --set only): the Chaplygin sleigh against its closed form (solved here, the position by SciPy quadrature),
its order measured over four steps, the constraint residual and the energy over 10^5 steps of the sleigh, the
vertical disk and the disk free to tilt, and the tilting disk's contact path and nutation. Writes
docs/results/img/nonholonomic_*.png and docs/results/nonholonomic_numbers.txt.
"""
import json
import math
import os
import platform
import subprocess
import sys
import tempfile
from datetime import datetime, timezone

import numpy as np
from scipy.integrate import quad
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
IMG = os.path.join(ROOT, "docs", "results", "img")
NUMBERS = os.path.join(ROOT, "docs", "results", "nonholonomic_numbers.txt")
EX = os.path.join(ROOT, "examples", "mechanics")
DPI = 100
LINES = []


def say(line=""):
    print(line)
    LINES.append(line)


def run(lievi, toml, out, *sets):
    args = [lievi, "run", os.path.join(EX, toml), "--out", out, "--set", "output.plots=false"]
    for s in sets:
        args += ["--set", s]
    r = subprocess.run(args, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"lievi run {toml} {sets} failed ({r.returncode}):\n{r.stderr}")
    data = np.genfromtxt(os.path.join(out, "series.csv"), delimiter=",", names=True)
    with open(os.path.join(out, "summary.json")) as f:
        return data, json.load(f)


class Sleigh:
    """The Chaplygin sleigh's closed form (m, I, a; start q0, v0, w0), as docs/theory/nonholonomic.md derives it."""

    def __init__(self, m, inertia, a, q0, v0, w0):
        self.m, self.a, self.q0 = m, a, np.asarray(q0, float)
        J = inertia + m * a * a
        E = 0.5 * m * v0 * v0 + 0.5 * J * w0 * w0
        self.vinf = math.sqrt(2.0 * E / m)
        self.k = a * m * self.vinf / J
        self.c = math.atanh(v0 / self.vinf)
        self.w0, self.E = w0, E

    def theta(self, t):
        kc = self.k * t + self.c
        return self.q0[2] + self.w0 * math.cosh(self.c) / self.k * (np.arctan(np.sinh(kc)) - math.atan(math.sinh(self.c)))

    def v(self, t):
        return self.vinf * np.tanh(self.k * t + self.c)

    def omega(self, t):
        return self.w0 * math.cosh(self.c) / np.cosh(self.k * t + self.c)

    def xy(self, t):
        """Centre of mass: (x0, y0) + int_0^t v e1 ds + a (e1(t) - e1(0))."""
        ix = quad(lambda s: self.v(s) * math.cos(self.theta(s)), 0.0, t, epsabs=1e-13, epsrel=1e-12, limit=400)[0]
        iy = quad(lambda s: self.v(s) * math.sin(self.theta(s)), 0.0, t, epsabs=1e-13, epsrel=1e-12, limit=400)[0]
        th0, th = self.q0[2], self.theta(t)
        return np.array([self.q0[0] + ix + self.a * (math.cos(th) - math.cos(th0)),
                         self.q0[1] + iy + self.a * (math.sin(th) - math.sin(th0))])


def sleigh_of_example():
    """The sleigh of examples/mechanics/chaplygin_sleigh.toml: m = 1, I = 0.1, a = 0.5, theta0 = 0.3, v0 = 0.5,
    omega0 = 1 (its qdot is v0 e1 + a omega0 e2, thetadot = omega0)."""
    return Sleigh(1.0, 0.1, 0.5, [0.0, 0.0, 0.3], 0.5, 1.0)


def sleigh_figures(lievi, tmp):
    S = sleigh_of_example()
    d, _ = run(lievi, "chaplygin_sleigh.toml", os.path.join(tmp, "sleigh"))
    t = d["t"]
    th_ref = S.theta(t)
    step = 10
    ts = t[::step]
    xy_ref = np.array([S.xy(x) for x in ts])
    e_th = np.abs(d["q3"] - th_ref)
    e_xy = np.hypot(d["q1"][::step] - xy_ref[:, 0], d["q2"][::step] - xy_ref[:, 1])
    say("## Chaplygin sleigh (examples/mechanics/chaplygin_sleigh.toml: m = 1, I = 0.1, a = 0.5, midpoint, h = 0.01, T = 20)")
    say(f"closed form: v_inf = {S.vinf:.6f} m/s, k = {S.k:.6f} 1/s, E = {S.E:.6f} J")
    say(f"largest |theta - closed form| over [0, 20]: {e_th.max():.3e} rad; |(x, y) - closed form|: {e_xy.max():.3e} m")
    say(f"final heading {d['q3'][-1]:.12f} (closed form {th_ref[-1]:.12f})")
    say(f"largest |constraint| (the step's discrete constraint / h): {np.abs(d['constraint']).max():.3e} m/s")
    say(f"largest |energy error|: {np.abs(d['energy_error']).max():.3e} J (E0 = {d['energy'][0]:.6f} J)")
    say()

    fig, ax = plt.subplots(1, 3, figsize=(15, 4.2))
    early = t <= 6.0  # the turn; afterwards the sleigh runs straight at v_inf
    ax[0].plot(xy_ref[ts <= 6.0, 0], xy_ref[ts <= 6.0, 1], "k-", lw=3, alpha=0.3, label="closed form")
    ax[0].plot(d["q1"][early], d["q2"][early], "C0-", lw=1, label="lievi (midpoint, h = 0.01)")
    # the blade: a short segment at the contact point every 0.5 s
    for k in range(0, int(early.sum()), 50):
        th = d["q3"][k]
        cx, cy = d["q1"][k] - 0.5 * math.cos(th), d["q2"][k] - 0.5 * math.sin(th)
        ax[0].plot([cx - 0.15 * math.cos(th), cx + 0.15 * math.cos(th)],
                   [cy - 0.15 * math.sin(th), cy + 0.15 * math.sin(th)], "C3-", lw=2)
        ax[0].plot([cx, d["q1"][k]], [cy, d["q2"][k]], "C3:", lw=1)
    ax[0].set_aspect("equal")
    ax[0].set_xlabel("x [m]")
    ax[0].set_ylabel("y [m]")
    ax[0].set_title("centre of mass, t <= 6 s (blade in red every 0.5 s)")
    ax[0].legend(fontsize=8)
    v = d["v1"] * np.cos(d["q3"]) + d["v2"] * np.sin(d["q3"])
    ax[1].plot(t, v, "C0-", label="v = e1 . (xdot, ydot)")
    ax[1].plot(t, d["v3"], "C1-", label="omega = thetadot")
    ax[1].plot(t, S.v(t), "k--", lw=1, label="closed form")
    ax[1].plot(t, S.omega(t), "k--", lw=1)
    ax[1].axhline(S.vinf, color="gray", lw=0.5)
    ax[1].set_xlabel("t [s]")
    ax[1].set_title("forward speed and spin")
    ax[1].legend(fontsize=8)
    ax[2].semilogy(t[1:], e_th[1:], "C0-", label="|theta - closed form| [rad]")
    ax[2].semilogy(ts[1:], e_xy[1:], "C2-", label="|(x, y) - closed form| [m]")
    ax[2].semilogy(t[1:], np.abs(d["energy_error"][1:]) + 1e-18, "C1-", label="|E - E0| [J]")
    ax[2].semilogy(t[1:], np.abs(d["constraint"][1:]) + 1e-18, "C3-", lw=0.5, label="|discrete constraint| / h [m/s]")
    ax[2].set_xlabel("t [s]")
    ax[2].set_title("errors against the closed form")
    ax[2].legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(os.path.join(IMG, "nonholonomic_sleigh.png"), dpi=DPI)
    plt.close(fig)


def order_figure(lievi, tmp):
    S = sleigh_of_example()
    T = 4.0
    hs = [0.04, 0.02, 0.01, 0.005]
    xy_T = S.xy(T)
    rows = []
    for h in hs:
        d, _ = run(lievi, "chaplygin_sleigh.toml", os.path.join(tmp, f"order_{h}"), f"integrator.dt={h}",
                   f"integrator.t_end={T}")
        th, x, y = d["q3"][-1], d["q1"][-1], d["q2"][-1]
        v = d["v1"][-1] * math.cos(th) + d["v2"][-1] * math.sin(th)
        rows.append((h, abs(th - S.theta(T)), math.hypot(x - xy_T[0], y - xy_T[1]), abs(v - S.v(T)),
                     abs(d["v3"][-1] - S.omega(T)), np.abs(d["energy_error"]).max()))
    rows = np.array(rows)
    names = ["theta", "(x, y)", "v", "omega", "max |E - E0|"]
    say(f"## Sleigh: errors at T = {T} against the closed form (midpoint)")
    say("| h | " + " | ".join(names) + " |")
    say("|---|" + "---|" * len(names))
    for r in rows:
        say(f"| {r[0]:g} | " + " | ".join(f"{x:.3e}" for x in r[1:]) + " |")
    slopes = [np.polyfit(np.log(rows[:, 0]), np.log(rows[:, i]), 1)[0] for i in range(1, 6)]
    say("| fitted order | " + " | ".join(f"{s:.2f}" for s in slopes) + " |")
    say()
    fig, ax = plt.subplots(figsize=(6, 4.5))
    for i, (n, mk) in enumerate(zip(names, "osD^v")):
        ax.loglog(rows[:, 0], rows[:, i + 1], marker=mk, label=f"{n} (slope {slopes[i]:.2f})")
    ax.loglog(rows[:, 0], rows[0, 2] * (rows[:, 0] / rows[0, 0]) ** 2, "k:", label="h^2")
    ax.set_xlabel("h [s]")
    ax.set_ylabel(f"error at T = {T:g} s")
    ax.set_title("Chaplygin sleigh: order of the discrete Lagrange-d'Alembert step")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(os.path.join(IMG, "nonholonomic_order.png"), dpi=DPI)
    plt.close(fig)


def long_runs(lievi, tmp):
    """10^5 steps of each system: the constraint at round-off, the energy bounded."""
    cases = [("Chaplygin sleigh", "chaplygin_sleigh.toml", 0.01),
             ("vertical disk", "vertical_disk.toml", 0.01),
             ("disk free to tilt", "rolling_disk.toml", 0.005)]
    say("## 10^5 steps (midpoint; a row every 100 steps)")
    say("| system | h | T | max discrete constraint / h | max node velocity constraint | max |E - E0| / E0 | "
        "|E - E0| / E0, first half max | second half max | lievi run time |")
    say("|---|---|---|---|---|---|---|---|---|")
    fig, ax = plt.subplots(1, 2, figsize=(13, 4.2))
    for i, (name, toml, h) in enumerate(cases):
        T = 1e5 * h
        d, s = run(lievi, toml, os.path.join(tmp, f"long_{i}"), f"integrator.dt={h}", f"integrator.t_end={T:g}",
                   "output.every=100")
        t = d["t"]
        rel = np.abs(d["energy_error"]) / abs(d["energy"][0])
        half = len(t) // 2
        vc = s["diagnostics"].get("velocity_constraint_max", float("nan"))
        say(f"| {name} | {h:g} | {T:g} | {np.abs(d['constraint']).max():.2e} | {vc:.2e} | {rel.max():.2e} | "
            f"{rel[:half].max():.2e} | {rel[half:].max():.2e} | {s['timing']['integrate_s']:.2f} s |")
        qn = np.sqrt(sum(d[f"q{j}"] ** 2 for j in range(1, 6) if f"q{j}" in d.dtype.names))
        ax[0].semilogy(t[1:], np.abs(d["constraint"][1:]) * h / qn[1:] + 1e-22, lw=0.7, label=name)
        ax[1].semilogy(t[1:], rel[1:] + 1e-20, lw=0.7, label=name)
    say()
    ax[0].set_title("|discrete constraint| relative to |q_k| / h, over 10^5 steps")
    ax[0].set_xlabel("t [s]")
    ax[1].set_title("|E - E0| / E0 over 10^5 steps (bounded, no drift)")
    ax[1].set_xlabel("t [s]")
    for a in ax:
        a.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(os.path.join(IMG, "nonholonomic_long.png"), dpi=DPI)
    plt.close(fig)


def disk_figure(lievi, tmp):
    d, _ = run(lievi, "rolling_disk.toml", os.path.join(tmp, "disk"))
    t = d["t"]
    say("## Disk free to tilt (examples/mechanics/rolling_disk.toml: R = 0.5, steady tilt 0.2 rad plus a tilt rate of "
        "0.3 rad/s; midpoint, h = 0.005, T = 20)")
    say(f"tilt range [{d['q3'].min():.6f}, {d['q3'].max():.6f}] rad; largest |E - E0| {np.abs(d['energy_error']).max():.3e} J")
    say()
    fig, ax = plt.subplots(1, 2, figsize=(12, 4.5))
    ax[0].plot(d["q1"], d["q2"], "C0-", lw=0.8)
    ax[0].set_aspect("equal")
    ax[0].set_xlabel("x [m]")
    ax[0].set_ylabel("y [m]")
    ax[0].set_title("contact point path (nutating about the steady circle)")
    ax[1].plot(t, d["q3"], "C0-", lw=0.8, label="tilt theta [rad]")
    ax[1].set_xlabel("t [s]")
    ax1 = ax[1].twinx()
    ax1.plot(t, d["energy_error"], "C1-", lw=0.6, label="E - E0 [J]")
    ax1.set_ylabel("E - E0 [J]", color="C1")
    ax[1].set_title("tilt and energy error")
    ax[1].legend(loc="upper left", fontsize=8)
    ax1.legend(loc="upper right", fontsize=8)
    fig.tight_layout()
    fig.savefig(os.path.join(IMG, "nonholonomic_disk.png"), dpi=DPI)
    plt.close(fig)


def main():
    lievi = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "build", "release", "apps",
                                                                                   "lievi", "lievi"))
    version = subprocess.run([lievi, "--version"], capture_output=True, text=True).stdout.strip()
    say(f"# nonholonomic results: {datetime.now(timezone.utc):%Y-%m-%d %H:%M} UTC, {version}, "
        f"{platform.machine()}, numpy {np.__version__}")
    say()
    os.makedirs(IMG, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        sleigh_figures(lievi, tmp)
        order_figure(lievi, tmp)
        long_runs(lievi, tmp)
        disk_figure(lievi, tmp)
    with open(NUMBERS, "w") as f:
        f.write("\n".join(LINES) + "\n")


if __name__ == "__main__":
    main()
