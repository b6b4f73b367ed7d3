#!/usr/bin/python3
"""Regenerate the figures and numbers of docs/results/kirchhoff.md with lievi's command line.

Usage: /usr/bin/python3 scripts/kirchhoff_results.py [LIEVI_BINARY]   (default build/release/apps/lievi/lievi)

Every number comes from `lievi run` on examples/kirchhoff/*.toml (changed by --set only): the Casimirs |P|^2 and
P . Pi and the energy over 10^5 steps, the approach to the minimum-energy set (and Cayley's O(h^2) offset at a
screw equilibrium), the order of ddb and ddb-symmetric against a SciPy DOP853 solution of Kirchhoff's equations
with double-bracket dissipation written out here, and the bodies' paths in space. Writes
docs/results/img/kirchhoff_*.png and docs/results/kirchhoff_numbers.txt.
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
import scipy
from scipy.integrate import solve_ivp
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
IMG = os.path.join(ROOT, "docs", "results", "img")
NUMBERS = os.path.join(ROOT, "docs", "results", "kirchhoff_numbers.txt")
EX = os.path.join(ROOT, "examples", "kirchhoff")
EPS = np.finfo(float).eps
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


def mu_of(d, k=-1):
    return np.array([d["Pi1"][k], d["Pi2"][k], d["Pi3"][k], d["P1"][k], d["P2"][k], d["P3"][k]])


# The test body of conservative_symmetric.toml: J = I + I_added, D = m + m_added (diagonal, no coupling).
J = np.array([1.0, 1.4, 0.5]) + np.array([0.1, 0.2, 0.3])
D = 1.0 + np.array([0.2, 0.8, 1.5])
MU0 = np.array([0.3, 0.1, 0.8, 0.5, 0.4, 0.2])


def field(mu, a_rot, a_trans):
    """Kirchhoff's equations with the double bracket, in cross products (docs/theory/ddb.md "DDB on se(3)*"):
    (Omega, V) = (Pi / J, P / D), s = (Pi x Omega + P x V, P x Omega), (a, u) = (a_rot s1, a_trans s2),
    dPi/dt = Pi x (Omega + a) + P x (V + u), dP/dt = P x (Omega + a)."""
    Pi, P = mu[:3], mu[3:]
    Om, V = Pi / J, P / D
    s1 = np.cross(Pi, Om) + np.cross(P, V)
    s2 = np.cross(P, Om)
    a, u = a_rot * s1, a_trans * s2
    return np.concatenate([np.cross(Pi, Om + a) + np.cross(P, V + u), np.cross(P, Om + a)])


def reference(T, a_rot, a_trans):
    sol = solve_ivp(lambda t, y: field(y, a_rot, a_trans), (0.0, T), MU0, method="DOP853", rtol=1e-13, atol=1e-13)
    return sol.y[:, -1]


def invariants(lievi, tmp):
    say("## Casimirs and energy over 10^5 steps (test body, alpha_rot = alpha_trans = 0.05, dt = 0.01, t = 1000)")
    say("method        retraction  max|d|P|^2|/|P0|^2  max|d P.Pi|/(|P0||Pi0|)  max step rise of H/H0  "
        "H_end - min H   distance_min  ns/step  Newton mean")
    runs = {}
    for method, ret in (("ddb", "cayley"), ("ddb", "exp"), ("ddb-symmetric", "cayley"), ("ddb-symmetric", "exp")):
        out = os.path.join(tmp, f"inv_{method}_{ret}")
        d, j = run(lievi, "conservative_symmetric.toml", out, f"integrator.method={method}",
                   f"integrator.retraction={ret}", "model.alpha_rot=0.05", "model.alpha_trans=0.05",
                   "integrator.dt=0.01", "integrator.t_end=1000", "output.every=100")
        g = j["diagnostics"]
        ns = j["timing"]["integrate_s"] / j["steps"] * 1e9
        say(f"{method:13s} {ret:10s}  {g['casimir_P2_max_rel_drift'] / EPS:8.2f} eps          "
            f"{g['casimir_PPi_max_rel_drift'] / EPS:8.2f} eps               {g['energy_max_step_increase']:10.3g}"
            f"       {g['energy_above_min_final']:10.3g}   {g['distance_min_final']:10.3g}  {ns:7.0f}  "
            f"{j['newton']['mean']:.3f}")
        runs[(method, ret)] = (d, j)
    say()
    d, j = runs[("ddb", "cayley")]
    fig, ax = plt.subplots(1, 3, figsize=(15, 4))
    ax[0].plot(d["t"], d["casimir_P2_drift"] / d["casimir_P2"][0] / EPS, lw=0.8, label=r"$(|P|^2 - |P_0|^2)/|P_0|^2$")
    s2 = np.linalg.norm(MU0[3:]) * np.linalg.norm(MU0[:3])
    ax[0].plot(d["t"], d["casimir_PPi_drift"] / s2 / EPS, lw=0.8, label=r"$(P\cdot\Pi - P_0\cdot\Pi_0)/(|P_0||\Pi_0|)$")
    ax[0].set_ylabel("units of eps")
    ax[0].set_title("Casimirs, ddb (cayley), 10^5 steps (a row every 100)", fontsize=9)
    ax[0].legend(fontsize=8)
    ax[1].plot(d["t"], d["energy"], lw=0.8, label="H")
    hmin = j["minimum_energy_set"]["energy"]
    ax[1].axhline(hmin, color="k", ls=":", lw=0.8, label=f"min H on the orbit = {hmin:.6f}")
    ax[1].set_title("energy: decreases step by step to the minimum on the orbit", fontsize=9)
    ax[1].legend(fontsize=8)
    for (method, ret), (dd, _) in runs.items():
        v = np.where(dd["energy_above_min"] > 0, dd["energy_above_min"], np.nan)
        ax[2].semilogy(dd["t"], v, lw=0.8, label=f"{method} ({ret})")
    ax[2].set_title("H - min H (zero values not drawn)", fontsize=9)
    ax[2].legend(fontsize=8)
    for a in ax:
        a.set_xlabel("t")
    fig.tight_layout()
    fig.savefig(os.path.join(IMG, "kirchhoff_invariants.png"), dpi=DPI)
    plt.close(fig)


def equilibria(lievi, tmp):
    say("## Approach to the minimum-energy set (the examples)")
    fig, ax = plt.subplots(1, 2, figsize=(12, 4))
    for a, toml in zip(ax, ("ellipsoid_broadside.toml", "ellipsoid_screw.toml")):
        d, j = run(lievi, toml, os.path.join(tmp, "eq_" + toml), "output.every=1")
        g = j["diagnostics"]
        m = j["minimum_energy_set"]
        say(f"{toml}: {j['method']['id']} ({j['method']['retraction']}), dt = {j['scenario']['integrator']['dt']}, "
            f"t = {j['final']['t']}: H {g['energy_initial']:.12f} -> {g['energy_final']:.12f}, min H "
            f"{m['energy']:.12f} (s = {m['s']}), H_end - min H = {g['energy_above_min_final']:.3g}, distance "
            f"{g['distance_min_final']:.3g}, |ad*_xi mu| {g['equilibrium_residual_final']:.3g}; Casimir drifts "
            f"{g['casimir_P2_max_rel_drift'] / EPS:.2f} eps, {g['casimir_PPi_max_rel_drift'] / EPS:.2f} eps; "
            f"energy monotone: {g['energy_monotone']} (largest step rise {g['energy_max_step_increase']:.3g} H0); "
            f"final P = {j['final']['P']}, Pi = {j['final']['Pi']}")
        for name, label in (("energy_above_min", "H - min H"), ("distance_min", "distance to the minimisers"),
                            ("equilibrium_residual", r"$|ad^*_\xi\mu|_\infty$")):
            v = np.where(d[name] > 0, d[name], np.nan)
            a.semilogy(d["t"], v, lw=0.8, label=label)
        a.set_title(f"{toml[:-5]}: {j['method']['id']} ({j['method']['retraction']}), dt = "
                    f"{j['scenario']['integrator']['dt']}", fontsize=9)
        a.set_xlabel("t")
        a.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(os.path.join(IMG, "kirchhoff_equilibrium.png"), dpi=DPI)
    plt.close(fig)
    # Cayley at a screw equilibrium off a vertex (the edge minimum of docs/theory/ddb.md): an O(h^2) offset.
    say("Cayley vs exp at the edge minimum (test body, mu_0 = (0.1, 0.1, 0.5, 0.5, 0.4, 0.2), alpha = 0.5, t = 400):")
    res = {}
    for ret in ("cayley", "exp"):
        for h in (0.05, 0.025):
            _, j = run(lievi, "conservative_symmetric.toml", os.path.join(tmp, f"edge_{ret}_{h}"),
                       "integrator.method=ddb", f"integrator.retraction={ret}", "model.alpha_rot=0.5",
                       "model.alpha_trans=0.5", "initial.Pi=[0.1,0.1,0.5]", "initial.P=[0.5,0.4,0.2]",
                       f"integrator.dt={h}", "integrator.t_end=400", "output.every=1000")
            g = j["diagnostics"]
            res[(ret, h)] = g
            say(f"  {ret:6s} h = {h:5}: distance {g['distance_min_final']:.3g}, |ad*| "
                f"{g['equilibrium_residual_final']:.3g}, H - min H {g['energy_above_min_final']:.3g}")
    c1, c2 = res[("cayley", 0.05)], res[("cayley", 0.025)]
    say(f"  cayley slopes: distance {math.log2(c1['distance_min_final'] / c2['distance_min_final']):.3f}, |ad*| "
        f"{math.log2(c1['equilibrium_residual_final'] / c2['equilibrium_residual_final']):.3f}, H "
        f"{math.log2(c1['energy_above_min_final'] / c2['energy_above_min_final']):.3f}")
    say()


def orders(lievi, tmp):
    say("## Order against SciPy DOP853 (rtol = atol = 1e-13) on the equations written in the script")
    say("test body, mu_0 = (0.3, 0.1, 0.8, 0.5, 0.4, 0.2), error = max-norm of mu at t = 5")
    hs = [0.1, 0.05, 0.025, 0.0125, 0.00625]
    T = 5.0
    cases = [("ddb", "cayley", 0.5), ("ddb", "exp", 0.5), ("ddb-symmetric", "cayley", 0.5),
             ("ddb-symmetric", "exp", 0.5), ("ddb", "cayley", 0.0), ("ddb", "exp", 0.0)]
    refs = {a: reference(T, a, a) for a in (0.5, 0.0)}
    fig, ax = plt.subplots(figsize=(7, 5))
    for method, ret, alpha in cases:
        errs = []
        for h in hs:
            d, _ = run(lievi, "conservative_symmetric.toml", os.path.join(tmp, f"ord_{method}_{ret}_{alpha}_{h}"),
                       f"integrator.method={method}", f"integrator.retraction={ret}", f"model.alpha_rot={alpha}",
                       f"model.alpha_trans={alpha}", f"integrator.dt={h}", f"integrator.t_end={T}",
                       "output.every=1000000")
            errs.append(np.abs(mu_of(d) - refs[alpha]).max())
        p = [math.log2(errs[i] / errs[i + 1]) for i in range(len(errs) - 1)]
        fit = np.polyfit(np.log(hs), np.log(errs), 1)[0]
        say(f"{method:13s} {ret:6s} alpha = {alpha}: errors " + ", ".join(f"{e:.3g}" for e in errs) +
            "; pairwise orders " + ", ".join(f"{x:.3f}" for x in p) + f"; fitted {fit:.3f}")
        ax.loglog(hs, errs, "o-", ms=4, label=f"{method} ({ret}), alpha = {alpha}")
    hh = np.array(hs)
    ax.loglog(hh, 0.05 * hh, "k:", lw=0.8, label="h")
    ax.loglog(hh, 0.2 * hh ** 2, "k--", lw=0.8, label="h^2")
    ax.set_xlabel("dt")
    ax.set_ylabel("max |mu(5) - mu_ref(5)|")
    ax.set_title("order of the DDB on se(3)* (lievi run vs SciPy DOP853)", fontsize=9)
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(os.path.join(IMG, "kirchhoff_order.png"), dpi=DPI)
    plt.close(fig)
    say()


def paths(lievi, tmp):
    say("## The bodies' paths in space (g_{k+1} = g_k tau(h xi_k))")
    fig = plt.figure(figsize=(12, 5))
    for i, toml in enumerate(("ellipsoid_broadside.toml", "ellipsoid_screw.toml")):
        d, j = run(lievi, toml, os.path.join(tmp, "path_" + toml))
        a = fig.add_subplot(1, 2, i + 1, projection="3d")
        a.plot(d["x"], d["y"], d["z"], lw=0.8)
        a.scatter([d["x"][0]], [d["y"][0]], [d["z"][0]], color="g", s=12, label="start")
        a.scatter([d["x"][-1]], [d["y"][-1]], [d["z"][-1]], color="r", s=12, label="end")
        a.set_title(toml[:-5], fontsize=9)
        a.set_xlabel("x")
        a.set_ylabel("y")
        a.set_zlabel("z")
        a.legend(fontsize=8)
        say(f"{toml}: final position {np.round(j['final']['position'], 6).tolist()}, attitude "
            f"{np.round(j['final']['attitude'], 6).tolist()}")
    fig.tight_layout()
    fig.savefig(os.path.join(IMG, "kirchhoff_paths.png"), dpi=DPI)
    plt.close(fig)
    say()


def main():
    lievi = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "build", "release", "apps",
                                                                                "lievi", "lievi"))
    os.makedirs(IMG, exist_ok=True)
    ver = subprocess.run([lievi, "--version"], capture_output=True, text=True).stdout.strip()
    say(f"# docs/results/kirchhoff.md numbers, {datetime.now(timezone.utc):%Y-%m-%d %H:%M} UTC, {ver}, "
        f"{platform.machine()}, numpy {np.__version__}, scipy {scipy.__version__}")
    say()
    with tempfile.TemporaryDirectory() as tmp:
        invariants(lievi, tmp)
        equilibria(lievi, tmp)
        orders(lievi, tmp)
        paths(lievi, tmp)
    with open(NUMBERS, "w") as f:
        f.write("\n".join(LINES) + "\n")


if __name__ == "__main__":
    main()
