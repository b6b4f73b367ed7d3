#!/usr/bin/env python3
"""lievi across MPI ranks on this machine (issue 28), three measurements, each configuration timed `--repeat`
times (best of) and its files checked to be the serial run's bit for bit:

1. Ensemble throughput: path-node-steps per second of `lievi run FILE --paths N` (whole process, MPI start-up
   included) as one process with 1 and 2 threads and under `mpirun -np R` with one thread per rank, R = 1, 2;
   efficiency against one process with one thread (R x its throughput is 100 %). The stochastic wave with
   independent noise (J = 100) and the stochastic bending beam (J = 20).
2. One wave field and one beam of 10^6 nodes split over 2 ranks (domain decomposition) against one process
   with 1 and 2 threads: the cost of a step from the difference of a short and a long run (summary.json
   timing.integrate_s, outputs at the first and last level only), and what is left (set-up, two output levels).
3. The cost of an output level of the split beam (a series row: sums and maxima reduced over the ranks; a
   fields.h5 snapshot: the field gathered on rank 0) against one process.
4. The cost of a step's exchanges (two halo exchanges and the failure agreement): a 16-node wave stepped 10^5
   times on R = 2 ranks against one process; the difference per step is the exchange, as the stepping of 16
   nodes costs next to nothing.

Usage: /usr/bin/python3 bench/mpi_scaling.py [LIEVI] [--paths 16] [--repeat 3] [--only ensembles|fields|levels|exchange]
       (default LIEVI = build/release/apps/lievi/lievi; needs mpirun, as root it passes --allow-run-as-root)
"""
import argparse
import filecmp
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CASES = [("wave, independent noise, J = 100", "wave/independent.toml", ["integrator.t_end=25", "output.every=1000"]),
         ("beam, common noise, J = 20", "beam/stochastic_bending.toml", ["integrator.t_end=10", "output.every=1000"])]


def timed(cmd, env):
    t0 = time.perf_counter()
    r = subprocess.run(cmd, capture_output=True, text=True, env=env)
    dt = time.perf_counter() - t0
    if r.returncode != 0:
        sys.exit(f"mpi_scaling.py: {' '.join(cmd)} exited {r.returncode}:\n{r.stdout}{r.stderr}")
    return dt


def same(a, b):
    names = sorted(f for f in os.listdir(a) if f.endswith(".csv"))
    return names and all(filecmp.cmp(os.path.join(a, f), os.path.join(b, f), shallow=False) for f in names)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("lievi", nargs="?", default=os.path.join(ROOT, "build", "release", "apps", "lievi", "lievi"))
    ap.add_argument("--paths", type=int, default=16)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--only", choices=("ensembles", "fields", "levels", "exchange"),
                    help="one part (levels: the output levels of the split beam alone)")
    a = ap.parse_args()
    mpirun = shutil.which("mpirun")
    if mpirun is None:
        print("mpi_scaling.py: no mpirun here (install openmpi-bin): skipped")
        return
    root = ["--allow-run-as-root"] if os.geteuid() == 0 else []
    work = tempfile.mkdtemp(prefix="lievi-mpi-bench-")
    try:
        if a.only in ("fields", "levels", "exchange"):
            field_scaling(a, mpirun, root, work)
            return
        print(f"| scenario | configuration | wall s (best of {a.repeat}) | path-node-steps/s | efficiency | "
              "stepping s (integrate_s) | its efficiency |")
        print("|---|---|---|---|---|---|---|")
        for label, scenario, sets in CASES:
            base = [a.lievi, "run", os.path.join(ROOT, "examples", scenario), "--paths", str(a.paths), "--force",
                    "--set", "output.plots=false"]
            for s in sets:
                base += ["--set", s]
            configs = [("1 process, 1 thread", [], "1"), ("1 process, 2 threads", [], "2"),
                       ("mpirun -np 1, 1 thread", [mpirun, *root, "-np", "1"], "1"),
                       ("mpirun -np 2, 1 thread each", [mpirun, *root, "--oversubscribe", "-np", "2"], "1")]
            work_units = None
            best1 = None
            step1 = None
            for name, prefix, threads in configs:
                out = os.path.join(work, name.replace(" ", "_").replace(",", ""))
                env = dict(os.environ, OMP_NUM_THREADS=threads)
                t, stepping = None, None
                for _ in range(a.repeat):
                    w = timed(prefix + base + ["--out", out], env)
                    st = json.load(open(os.path.join(out, "summary.json")))["timing"]["integrate_s"]
                    t = w if t is None else min(t, w)
                    stepping = st if stepping is None else min(stepping, st)
                if work_units is None:
                    s = json.load(open(os.path.join(out, "summary.json")))
                    work_units = s["steps"] * s["n_nodes"] * s["paths"]
                    ref = out
                elif not same(ref, out):
                    sys.exit(f"mpi_scaling.py: {name} wrote other files than the serial run")
                rate = work_units / t
                if best1 is None:
                    best1, step1 = rate, stepping
                ranks = 2 if ("2" in threads or "-np 2" in name) else 1
                print(f"| {label} | {name} | {t:.3f} | {rate:.3e} | {100 * rate / (ranks * best1):.0f} % | "
                      f"{stepping:.3f} | {100 * step1 / (ranks * stepping):.0f} % |", flush=True)
        if a.only != "ensembles":
            field_scaling(a, mpirun, root, work)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def summary(out):
    return json.load(open(os.path.join(out, "summary.json")))


def field_scaling(a, mpirun, root, work):
    wave = os.path.join(ROOT, "examples", "wave", "independent.toml")
    configs = [("1 process, 1 thread", [], "1", 1), ("1 process, 2 threads", [], "2", 2),
               ("mpirun -np 2, 1 thread each", [mpirun, *root, "-np", "2"], "1", 2)]

    def per_step(scenario, sets_of, short, long, label):
        """ms per step from the difference of a short and a long run (outputs at their first and last level
        only), and what is left (set-up and the two output levels), in s."""
        print(f"\n| {label} | ms per step ({long} - {short} steps, best of {a.repeat}) | speed-up | efficiency | "
              "the rest: set-up and two output levels, s |")
        print("|---|---|---|---|---|")
        base = None
        for name, prefix, threads, workers in configs:
            times = {}
            for steps in (short, long):
                out = os.path.join(work, f"{label[:4]}_{steps}_" + name.replace(" ", "_").replace(",", ""))
                best = None
                for _ in range(a.repeat):
                    timed(prefix + [a.lievi, "run", scenario, *sets_of(steps), "--force", "--out", out],
                          dict(os.environ, OMP_NUM_THREADS=threads))
                    t = summary(out)["timing"]["integrate_s"]
                    best = t if best is None else min(best, t)
                times[steps] = best
            step = (times[long] - times[short]) / (long - short)
            rest = times[short] - short * step
            base = step if base is None else base
            print(f"| {name} | {1e3 * step:.2f} | {base / step:.2f}x | {100 * base / step / workers:.0f} % | "
                  f"{rest:.2f} |", flush=True)

    if a.only == "exchange":
        return exchange_cost(a, mpirun, root, work, wave)
    wave_dt = 5e-7
    levels_only = a.only == "levels"
    if not levels_only:
        per_step(wave, lambda steps: ["--set", "grid.J=1000000", "--set", f"integrator.dt={wave_dt}", "--set",
                                      f"integrator.t_end={steps * wave_dt!r}", "--set", "output.plots=false",
                                      "--set", "output.fields=false", "--set", "output.every=100000"],
                 100, 900, "one wave field, J = 10^6, independent noise")
    # the beam: the bending arc of examples/beam/bending.toml refined to 10^6 elements, dt at half its a-priori bound
    bending = os.path.join(ROOT, "examples", "beam", "bending.toml")
    probe = os.path.join(work, "beam_probe")
    quiet = ["--set", "output.plots=false", "--set", "output.fields=false", "--set", "output.vtk=false"]
    timed([a.lievi, "run", bending, "--set", "grid.J=1000000", "--set", "integrator.t_end=1e-12", "--set",
           "integrator.dt=1e-12", *quiet, "--force", "--out", probe], dict(os.environ, OMP_NUM_THREADS="1"))
    dt = float(f"{0.5 * summary(probe)['stable_dt_bound']:.3g}")
    if not levels_only:
        per_step(bending, lambda steps: ["--set", "grid.J=1000000", "--set", f"integrator.dt={dt}", "--set",
                                         f"integrator.t_end={steps * dt!r}", "--set", "output.every=100000", *quiet],
                 20, 140, "one beam, J = 10^6, the bending arc")
    per_level(a, configs, bending, dt, quiet, work)
    if levels_only:
        return
    exchange_cost(a, mpirun, root, work, wave)


def exchange_cost(a, mpirun, root, work, wave):
    """The exchanges of a step: a 16-node wave (nothing to overlap them with) on 2 ranks against one process."""
    tiny = ["--set", "grid.J=16", "--set", "integrator.dt=1e-3", "--set", "integrator.t_end=100",
            "--set", "output.plots=false", "--set", "output.fields=false", "--set", "output.every=100000"]
    per_step = {}
    for name, prefix in (("1 process", []), ("mpirun -np 2", [mpirun, *root, "-np", "2"])):
        out = os.path.join(work, "tiny_" + name.replace(" ", "_"))
        best = None
        for _ in range(a.repeat):
            timed(prefix + [a.lievi, "run", wave, *tiny, "--force", "--out", out], dict(os.environ, OMP_NUM_THREADS="1"))
            s = summary(out)
            t = s["timing"]["integrate_s"] / s["steps"]
            best = t if best is None else min(best, t)
        per_step[name] = best
    exchange = per_step["mpirun -np 2"] - per_step["1 process"]
    print(f"\n16-node wave, 10^5 steps: {1e6 * per_step['1 process']:.2f} us per step in one process, "
          f"{1e6 * per_step['mpirun -np 2']:.2f} us on 2 ranks: the exchanges of a step cost {1e6 * exchange:.2f} us")


def per_level(a, configs, bending, dt, quiet, work, steps=6):
    """The cost of an output level of the 10^6-node beam: a run of `steps` steps with a row at every level
    (output.every = 1), and with a fields.h5 snapshot too (output.fields_every = 1), against the run with rows
    at its first and last level only; the difference over the steps - 1 extra levels, in s per level."""
    print(f"\n| one beam, J = 10^6: an output level | series row, s per level | row and fields.h5 snapshot, "
          f"s per level |")
    print("|---|---|---|")
    base_sets = ["--set", "grid.J=1000000", "--set", f"integrator.dt={dt}", "--set",
                 f"integrator.t_end={steps * dt!r}", "--set", "output.plots=false", "--set", "output.vtk=false"]
    variants = {"none": ["--set", "output.every=100000", "--set", "output.fields=false"],
                "rows": ["--set", "output.every=1", "--set", "output.fields=false"],
                "fields": ["--set", "output.every=1", "--set", "output.fields=true", "--set", "output.fields_every=1"]}
    for name, prefix, threads, _ in configs:
        if threads != "1":
            continue
        t = {}
        for v, sets in variants.items():
            out = os.path.join(work, "level_" + v + "_" + name.replace(" ", "_").replace(",", ""))
            best = None
            for _ in range(a.repeat):
                timed(prefix + [a.lievi, "run", bending, *base_sets, *sets, "--force", "--out", out],
                      dict(os.environ, OMP_NUM_THREADS=threads))
                x = summary(out)["timing"]["integrate_s"]
                best = x if best is None else min(best, x)
            t[v] = best
        print(f"| {name} | {(t['rows'] - t['none']) / (steps - 1):.3f} | {(t['fields'] - t['none']) / (steps - 1):.3f} |",
              flush=True)


if __name__ == "__main__":
    main()
