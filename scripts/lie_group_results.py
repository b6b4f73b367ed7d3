#!/usr/bin/python3
"""Regenerate the figures and numbers of docs/results/lie-group.md with lievi's command line.

Usage: /usr/bin/python3 scripts/lie_group_results.py [LIEVI_BINARY]   (default build/release/apps/lievi/lievi)

Every figure comes from `lievi run` on examples/lie_group/*.toml (changed by --set only): the heavy top's
precession and nutation, its Casimirs |Gamma|^2, Pi . Gamma and vertical angular momentum over 10^5 steps for
del (Cayley, exp), del-reduced and the RK4 comparator, the energy error bounded or drifting; the order of del,
del-reduced (both retractions) and rk4 measured against a SciPy DOP853 reference solved here on
R' = R hat(Omega), Pi' = Pi x Omega + m g Gamma x chi (rtol = atol = 1e-13); the 3D pendulum's energy; the free
body with Moser-Veselov's discrete Lagrangian against model.type = "rigid_body" with method moser-veselov; the
floating body on SE(3): its Noether momenta and energy over 5e4 steps.
Writes docs/results/img/lie-group_*.png and docs/results/lie_group_numbers.txt.
"""
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timezone

import numpy as np
from scipy.integrate import solve_ivp
from scipy.spatial.transform import Rotation
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
IMG = os.path.join(ROOT, "docs", "results", "img")
NUMBERS = os.path.join(ROOT, "docs", "results", "lie_group_numbers.txt")
EX = os.path.join(ROOT, "examples", "lie_group")
DPI = 100
LINES = []


def say(line=""):
    print(line)
    LINES.append(line)


def run(lievi, toml, out, *sets, path=None):
    args = [lievi, "run", path or os.path.join(EX, toml), "--out", out, "--set", "output.plots=false"]
    for s in sets:
        args += ["--set", s]
    r = subprocess.run(args, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"lievi run {toml} {sets} failed ({r.returncode}):\n{r.stderr}")
    data = np.genfromtxt(os.path.join(out, "series.csv"), delimiter=",", names=True)
    with open(os.path.join(out, "summary.json")) as f:
        return data, json.load(f)


def quat_to_R(w, x, y, z):
    return Rotation.from_quat([x, y, z, w]).as_matrix()


def heavy_top_reference(I, m, g, chi, R0, Pi0, T):
    """SciPy DOP853 on the heavy top's equations in (R, Pi), e3 up: R' = R hat(Omega),
    Pi' = Pi x Omega + m g Gamma x chi, Gamma = R^T e3."""
    Iinv = np.linalg.inv(I)

    def f(_, y):
        R = y[:9].reshape(3, 3)
        Pi = y[9:]
        Om = Iinv @ Pi
        hat = np.array([[0, -Om[2], Om[1]], [Om[2], 0, -Om[0]], [-Om[1], Om[0], 0]])
        Gamma = R.T @ np.array([0.0, 0.0, 1.0])
        return np.r_[(R @ hat).ravel(), np.cross(Pi, Om) + m * g * np.cross(Gamma, chi)]

    sol = solve_ivp(f, (0.0, T), np.r_[R0.ravel(), Pi0], method="DOP853", rtol=1e-13, atol=1e-13)
    y = sol.y[:, -1]
    return y[:9].reshape(3, 3), y[9:]


def slope(h, e):
    return np.polyfit(np.log(h), np.log(e), 1)[0]


def main():
    lievi = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "build", "release", "apps", "lievi", "lievi")
    os.makedirs(IMG, exist_ok=True)
    t_start = time.time()
    say(f"lie_group results, {datetime.now(timezone.utc):%Y-%m-%d %H:%M} UTC, {platform.machine()}, "
        f"numpy {np.__version__}; lievi: {lievi}")
    with tempfile.TemporaryDirectory() as d:
        # --- the heavy top: precession and nutation, invariants over 1e5 steps -------------------------------
        say()
        say("Heavy top (examples/lie_group/heavy_top.toml: I = diag(1, 1, 0.5), m = 1, g = 9.81, chi = 0.3 e3, "
            "30 deg tilt, Omega3 = 30), h = 0.005, T = 500 (1e5 steps)")
        runs = {}
        for name, sets in [("del (cayley)", ["integrator.method=del", "integrator.retraction=cayley"]),
                           ("del (exp)", ["integrator.method=del", "integrator.retraction=exp"]),
                           ("del-reduced (cayley)", ["integrator.method=del-reduced", "integrator.retraction=cayley"]),
                           ("rk4", ["integrator.method=rk4"])]:
            out = os.path.join(d, "top_" + name.replace(" ", "_").replace("(", "").replace(")", ""))
            data, summary = run(lievi, "heavy_top.toml", out, "integrator.t_end=500", "output.every=20", *sets)
            runs[name] = data
            dg = summary["diagnostics"]
            C0 = dg["casimir_pi_gamma_initial"]
            say(f"  {name:22s} max |energy error| {dg['energy_max_rel_error']:.2e}  "
                f"max ||Gamma|^2 - 1| {dg['casimir_gamma_max_drift']:.2e}  "
                f"max |Pi.Gamma - C0|/|C0| {dg['casimir_pi_gamma_max_drift'] / abs(C0):.2e}  "
                f"max |J_z - J0|/|J0| {dg['momentum_z_max_drift'] / abs(C0):.2e}  "
                f"orth {dg['orth_err_max']:.2e}  Newton mean {summary['newton']['mean']:.2f}  "
                f"stepping {summary['timing']['integrate_s']:.3f} s")
        # energy: per-window maxima (10 windows) of the del run: a drift would grow window by window
        e = np.abs(runs["del (cayley)"]["energy_error"])
        w = np.array([c.max() for c in np.array_split(e, 10)])
        say("  del (cayley) energy error, max per tenth of the run: " + " ".join(f"{x:.3e}" for x in w))
        e4 = np.abs(runs["rk4"]["energy_error"])
        w4 = np.array([c.max() for c in np.array_split(e4, 10)])
        say("  rk4 energy error, max per tenth of the run:          " + " ".join(f"{x:.3e}" for x in w4))

        fig, axes = plt.subplots(1, 2, figsize=(11, 5.4))
        top = runs["del (cayley)"]
        first = top["t"] <= 40.0
        q = np.stack([top["qw"], top["qx"], top["qy"], top["qz"]], axis=1)[first]
        d3 = np.array([quat_to_R(*qq)[:, 2] for qq in q])
        axes[0].plot(d3[:, 0], d3[:, 1], lw=0.6)
        axes[0].plot(d3[:1, 0], d3[:1, 1], "o", ms=4)
        axes[0].set_aspect("equal")
        axes[0].set_xlabel("x")
        axes[0].set_ylabel("y")
        axes[0].set_title("body axis R e3 seen from above, 0 <= t <= 40 s (del, Cayley)", fontsize=9)
        for name, style in [("del (cayley)", "-"), ("del (exp)", "-"), ("del-reduced (cayley)", "--"), ("rk4", "-")]:
            r = runs[name]
            C = r["casimir_pi_gamma"]
            axes[1].semilogy(r["t"], np.maximum(np.abs(C - C[0]) / abs(C[0]), 1e-18), style, lw=0.7,
                             label=f"{name}: |Pi.Gamma - C0|/|C0|")
        axes[1].semilogy(runs["rk4"]["t"], np.maximum(np.abs(runs["rk4"]["casimir_gamma"] - 1), 1e-18), ":",
                         lw=0.7, label="rk4: ||Gamma|^2 - 1|")
        axes[1].semilogy(top["t"], np.maximum(np.abs(top["energy_error"]), 1e-18), lw=0.5, color="0.6",
                         label="del (cayley): |energy error|")
        axes[1].set_xlabel("t [s]")
        axes[1].set_title("invariants over 1e5 steps, h = 0.005", fontsize=9)
        axes[1].legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.14), ncol=2)
        fig.tight_layout()
        fig.savefig(os.path.join(IMG, "lie-group_heavy_top.png"), dpi=DPI)
        plt.close(fig)

        # --- order against a SciPy reference ---------------------------------------------------------------
        say()
        T = 1.0
        I = np.diag([1.0, 1.0, 0.5])
        R0 = quat_to_R(0.96592582628906831, 0.25881904510252074, 0.0, 0.0)
        Pi0 = I @ np.array([0.0, 0.0, 30.0])
        R_ref, Pi_ref = heavy_top_reference(I, 1.0, 9.81, np.array([0.0, 0.0, 0.3]), R0, Pi0, T)
        say(f"Order: heavy top to T = {T}, error max(|R - R_ref|, |Pi - Pi_ref| / |Pi0|) at T against SciPy DOP853 "
            "(rtol = atol = 1e-13)")
        hs = np.array([0.02, 0.01, 0.005, 0.0025, 0.00125])
        order_fig = {}
        for name, sets in [("del (cayley)", ["integrator.method=del", "integrator.retraction=cayley"]),
                           ("del (exp)", ["integrator.method=del", "integrator.retraction=exp"]),
                           ("del-reduced (cayley)", ["integrator.method=del-reduced", "integrator.retraction=cayley"]),
                           ("del-reduced (exp)", ["integrator.method=del-reduced", "integrator.retraction=exp"]),
                           ("rk4", ["integrator.method=rk4"])]:
            errs = []
            for h in hs:
                out = os.path.join(d, f"order_{len(order_fig)}_{h}")
                data, _ = run(lievi, "heavy_top.toml", out, f"integrator.t_end={T}", f"integrator.dt={h}",
                              "output.every=1000000", *sets)
                R = quat_to_R(data["qw"][-1], data["qx"][-1], data["qy"][-1], data["qz"][-1])
                Pi = np.array([data["Pi1"][-1], data["Pi2"][-1], data["Pi3"][-1]])
                errs.append(max(np.abs(R - R_ref).max(), np.abs(Pi - Pi_ref).max() / np.linalg.norm(Pi0)))
            errs = np.array(errs)
            order_fig[name] = errs
            fit = slice(0, len(hs)) if name != "rk4" else slice(0, 3)  # rk4 reaches the reference's accuracy
            local = np.log(errs[:-1] / errs[1:]) / np.log(2.0)
            say(f"  {name:22s} errors " + " ".join(f"{x:.3e}" for x in errs) +
                f"   observed orders " + " ".join(f"{x:.2f}" for x in local) +
                f"   fitted slope {slope(hs[fit], errs[fit]):.2f}")
        fig, ax = plt.subplots(figsize=(6, 4.4))
        for name, errs in order_fig.items():
            ax.loglog(hs, errs, "o-", label=name, ms=4)
        ax.loglog(hs, 0.5 * order_fig["del (cayley)"][0] * (hs / hs[0]) ** 2, "k:", lw=0.8, label="slope 2")
        ax.set_xlabel("h [s]")
        ax.set_ylabel("error at T = 1 s")
        ax.set_title("heavy top: error against SciPy DOP853", fontsize=9)
        ax.legend(fontsize=7)
        fig.tight_layout()
        fig.savefig(os.path.join(IMG, "lie-group_order.png"), dpi=DPI)
        plt.close(fig)

        # --- the 3D pendulum ------------------------------------------------------------------------------
        say()
        say("3D pendulum (examples/lie_group/pendulum_3d.toml, general J, rho off the principal axes), T = 200")
        fig, ax = plt.subplots(figsize=(7, 4.2))
        for h in (0.004, 0.002):
            for method in ("del", "rk4"):
                out = os.path.join(d, f"pend_{method}_{h}")
                data, summary = run(lievi, "pendulum_3d.toml", out, f"integrator.dt={h}", "integrator.t_end=200",
                                    f"integrator.method={method}", "output.every=5")
                dg = summary["diagnostics"]
                e = np.abs(data["energy_error"])
                w = np.array([c.max() for c in np.array_split(e, 10)])
                say(f"  {method:4s} h = {h}: max |energy error| {dg['energy_max_rel_error']:.3e} (first tenth "
                    f"{w[0]:.3e}, last tenth {w[-1]:.3e}); max |Pi.Gamma - C0| {dg['casimir_pi_gamma_max_drift']:.2e}, "
                    f"max ||Gamma|^2 - 1| {dg['casimir_gamma_max_drift']:.2e}, orth {dg['orth_err_max']:.2e}")
                ax.semilogy(data["t"], np.maximum(e, 1e-18), lw=0.5, label=f"{method}, h = {h}")
        ax.set_xlabel("t [s]")
        ax.set_ylabel("|energy error| (relative)")
        ax.set_title("3D pendulum: energy error (del bounded, rk4 growing linearly)", fontsize=9)
        ax.legend(fontsize=7)
        fig.tight_layout()
        fig.savefig(os.path.join(IMG, "lie-group_pendulum.png"), dpi=DPI)
        plt.close(fig)

        # --- the floating body on SE(3) -----------------------------------------------------------------
        say()
        say("Floating body on SE(3) (examples/lie_group/floating_body.toml: m = 2, on a vertical spring k = 50 acting "
            "off the centre of mass), h = 0.002, T = 100 (5e4 steps)")
        for retraction in ("cayley", "exp"):
            data, summary = run(lievi, "floating_body.toml", os.path.join(d, f"float_{retraction}"),
                                "integrator.t_end=100", "output.every=10", f"integrator.retraction={retraction}")
            dg = summary["diagnostics"]
            e = np.abs(data["energy_error"])
            w = np.array([c.max() for c in np.array_split(e, 10)])
            reach = np.hypot(data["x"], data["y"]).max()
            say(f"  del ({retraction}): max |J_z - J0| {dg['angular_z_max_drift']:.2e} (horizontal reach {reach:.1f} m), "
                f"max |P_x - P0x| {dg['linear_x_max_drift']:.2e}, max |P_y - P0y| {dg['linear_y_max_drift']:.2e}, "
                f"orth {dg['orth_err_max']:.2e}; energy error max {dg['energy_max_rel_error']:.3e} (first tenth "
                f"{w[0]:.3e}, last tenth {w[-1]:.3e}); stepping {summary['timing']['integrate_s']:.3f} s")

        # --- the free body: Moser-Veselov against the rigid body's ---------------------------------------
        say()
        common = ("[initial]\nomega = [0.3, 1.0, -0.4]\nattitude = [0.9, 0.3, -0.2, 0.24494897427831783]\n"
                  "[integrator]\nmethod = \"moser-veselov\"\ndt = 0.05\nt_end = 500.0\n[output]\nplots = false\n")
        inertia = "inertia = [[1.0, 0.1, -0.05], [0.1, 2.0, 0.2], [-0.05, 0.2, 3.0]]\n"
        with open(os.path.join(d, "lie.toml"), "w") as f:
            f.write("[model]\ntype = \"lie_group\"\nsystem = \"free_body\"\n" + inertia + common)
        with open(os.path.join(d, "rb.toml"), "w") as f:
            f.write("[model]\ntype = \"rigid_body\"\n" + inertia + common)
        a, sa = run(lievi, None, os.path.join(d, "mv_lie"), path=os.path.join(d, "lie.toml"))
        b, _ = run(lievi, None, os.path.join(d, "mv_rb"), path=os.path.join(d, "rb.toml"))
        dM = max(np.abs(a[f"Pi{i}"] - b[f"M{i}"]).max() for i in (1, 2, 3))
        dq = max(np.abs(a[c] - b[c]).max() for c in ("qw", "qx", "qy", "qz"))
        dg = sa["diagnostics"]
        say(f"Free body, general inertia, h = 0.05, 1e4 steps: lie_group moser-veselov vs rigid_body moser-veselov: "
            f"max |Pi - M| {dM:.2e}, max |q - q_rb| {dq:.2e}; |Pi|^2 drift {dg['casimir_pi_max_drift']:.2e}, "
            f"spatial momentum drift {dg['momentum_max_drift']:.2e}")
    say()
    say(f"script time {time.time() - t_start:.1f} s")
    with open(NUMBERS, "w") as f:
        f.write("\n".join(LINES) + "\n")


if __name__ == "__main__":
    main()
