#!/usr/bin/python3
"""The elastic string's results page (docs/results/string.md): the AVI against the synchronous scheme on a mesh
whose small region needs a 16x smaller step, and the AVI's stability with unequal steps.

Usage: /usr/bin/python3 scripts/string_results.py [LIEVI_BINARY]   (default build/release/apps/lievi/lievi)

Runs examples/string/plucked_refined.toml with --set changes only, into a temporary folder:
  - the AVI (bulk at dt = 1/1024, the region refined 16x at dt/16), the synchronous scheme at dt/16 and at dt/8
    (0.25 and 0.5 of the region's limit), and a reference on a 4x finer mesh (synchronous, dt/64);
  - the errors of the final node positions against the reference (a coarse node a is reference node 4a), the
    segment updates and the stepping wall time from summary.json;
  - the AVI's energy over 40 s at integrator.fraction 0.3 and 0.5, and a run at 0.9 (exit 3).
Writes docs/results/img/string_*.png and docs/results/string_numbers.txt.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EXAMPLE = os.path.join(ROOT, "examples", "string", "plucked_refined.toml")
IMG = os.path.join(ROOT, "docs", "results", "img")
NUMBERS = os.path.join(ROOT, "docs", "results", "string_numbers.txt")
DT = 1.0 / 1024

lines = []


def say(s=""):
    print(s)
    lines.append(s)


def run(lievi, work, name, sets, expect=0):
    args = [lievi, "run", EXAMPLE, "--out", os.path.join(work, name), "--set", "output.plots=false"]
    for s in sets:
        args += ["--set", s]
    r = subprocess.run(args, capture_output=True, text=True)
    if r.returncode != expect:
        raise SystemExit(f"{name}: exit {r.returncode}\n{r.stderr}")
    return os.path.join(work, name), r


def summary(d):
    with open(os.path.join(d, "summary.json")) as f:
        return json.load(f)


def final_x(d):
    return np.loadtxt(os.path.join(d, "final_positions.csv"), delimiter=",", skiprows=1)


def series(d):
    return np.genfromtxt(os.path.join(d, "series.csv"), delimiter=",", names=True)


def main():
    lievi = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "build", "release", "apps", "lievi", "lievi")
    os.makedirs(IMG, exist_ok=True)
    work = tempfile.mkdtemp(prefix="lievi-string-")
    try:
        say("# string results (scripts/string_results.py)")
        avi, _ = run(lievi, work, "avi", [])
        s16, _ = run(lievi, work, "sync16", ["integrator.method=synchronous", f"integrator.dt={DT / 16!r}",
                                             "output.every=2048", "output.fields=false"])
        s8, _ = run(lievi, work, "sync8", ["integrator.method=synchronous", f"integrator.dt={DT / 8!r}",
                                           "output.every=1024", "output.fields=false"])
        ref, _ = run(lievi, work, "ref", ["integrator.method=synchronous", f"integrator.dt={DT / 64!r}",
                                          "grid.J=1024", "output.every=8192", "output.fields=false",
                                          "output.probes=[0]"])
        xr = final_x(ref)
        say("\n## AVI against the synchronous scheme (t = 4 s; errors of the final node positions against a 4x "
            "finer mesh)")
        say(f"{'run':<34} {'levels':<18} {'updates':>11} {'stepping s':>11} {'ns/update':>10} {'max error':>11}")
        rows = {}
        for name, d, what in (("avi", avi, "AVI, bulk dt, region dt/16"),
                              ("sync16", s16, "synchronous at dt/16"),
                              ("sync8", s8, "synchronous at dt/8")):
            j = summary(d)
            x = final_x(d)
            err = np.linalg.norm(x - xr[::4][: len(x)], axis=1).max()
            rows[name] = (j["updates"]["total"], j["timing"]["stepping_s"], err)
            say(f"{what:<34} {json.dumps(j['step_levels']):<18} {j['updates']['total']:>11} "
                f"{j['timing']['stepping_s']:>11.4f} {j['updates']['ns_per_update']:>10.2f} {err:>11.3e}")
        ua, ta, ea = rows["avi"]
        for name, what in (("sync16", "dt/16"), ("sync8", "dt/8")):
            u, t, e = rows[name]
            say(f"AVI / synchronous at {what}: updates {ua / u:.3f}, stepping time {ta / t:.3f}, error {ea / e:.3f}")
        jr = summary(ref)
        say(f"reference: {jr['n_segments']} segments, {jr['updates']['total']} updates")

        # shape snapshots of the AVI run
        import h5py
        with h5py.File(os.path.join(avi, "fields.h5"), "r") as f:
            ts, xs = f["t"][:], f["x"][:]
        fig, ax = plt.subplots(figsize=(9, 3.6))
        for i in np.unique(np.linspace(0, len(ts) - 1, 5).round().astype(int)):
            ax.plot(xs[i][:, 0], xs[i][:, 1], lw=0.9, label=f"t = {ts[i]:.3g} s")
        s_region = (0.5 * 1.1, 0.515625 * 1.1)
        ax.axvspan(*s_region, color="0.85", label="refined region (16x)")
        ax.set_xlabel("x [m]")
        ax.set_ylabel("y [m]")
        ax.legend(fontsize=8)
        ax.set_title("plucked string, AVI (bulk dt, refined region dt/16)", fontsize=10)
        fig.tight_layout()
        fig.savefig(os.path.join(IMG, "string_shapes.png"), dpi=120)
        plt.close(fig)

        # error against cost
        fig, ax = plt.subplots(figsize=(6, 4))
        for name, label, m in (("avi", "AVI", "o"), ("sync16", "synchronous dt/16", "s"),
                               ("sync8", "synchronous dt/8", "^")):
            u, t, e = rows[name]
            ax.loglog([u], [e], m, ms=9, label=f"{label}: {u:.3g} updates, {t:.3f} s")
        ax.set_xlabel("segment updates to t = 4 s")
        ax.set_ylabel("max |x - x_ref| at t = 4 s [m]")
        ax.legend(fontsize=8)
        fig.tight_layout()
        fig.savefig(os.path.join(IMG, "string_cost.png"), dpi=120)
        plt.close(fig)

        # stability with unequal steps
        say("\n## The AVI's energy with unequal steps (dt = 1/1024, t_end = 40 s)")
        fig, ax = plt.subplots(figsize=(9, 3.6))
        for f in (0.3, 0.5):
            d, _ = run(lievi, work, f"stab{f}", [f"integrator.fraction={f}", "integrator.t_end=40",
                                                 "output.every=256", "output.fields=false"])
            s = series(d)
            j = summary(d)
            dev = (s["energy"] - s["energy"][0]) / s["energy"][0]
            n = len(dev)
            say(f"fraction {f}: levels {json.dumps(j['step_levels'])}, max |E - E0|/E0 = {np.abs(dev).max():.3e} "
                f"(first fifth {np.abs(dev[: n // 5]).max():.3e}, last fifth {np.abs(dev[-n // 5:]).max():.3e})")
            ax.plot(s["t"], dev, lw=0.8, label=f"fraction {f}: levels {j['step_levels']}")
        d, r = run(lievi, work, "unstable", ["integrator.dt=0.003125", "integrator.fraction=0.9",
                                             "output.every=32", "output.fields=false"], expect=3)
        j = summary(d)
        s = series(d)
        # the message with the machine's folders made relative (the numbers file is tracked)
        msg = r.stderr.strip().replace(ROOT + os.sep, "").replace(work, "OUT")
        say(f"dt = 1/320, fraction 0.9: levels {json.dumps(j['step_levels'])}, exit 3: {msg}")
        ax.set_xlabel("t [s]")
        ax.set_ylabel("(E - E0) / E0")
        ax.legend(fontsize=8)
        fig.tight_layout()
        fig.savefig(os.path.join(IMG, "string_energy.png"), dpi=120)
        plt.close(fig)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    with open(NUMBERS, "w") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
