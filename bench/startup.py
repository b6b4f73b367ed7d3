#!/usr/bin/env python3
"""Whole-process time of a short `lievi run`: where the time before the first step goes.

Runs `lievi run examples/rigid_body/scenario_a.toml` for 10 steps (integrator.t_end = 1.0 at dt = 0.1, plots
off) N times and prints the median and minimum wall time of the whole process, with the parts that can be
told apart from outside:
  - `lievi --version` (loading the program and its shared libraries, static initialisers, no run);
  - the dynamic loader's own share (LD_DEBUG=statistics: "total startup time in dynamic loader", in cycles,
    converted with the CPU clock of /proc/cpuinfo when it is there);
  - the number of shared libraries the program loads (ldd);
  - summary.json's timing of the run itself (timing.integrate_s).
The floor of any C++ program on the machine is timed the same way: a "hello world" compiled here with
`c++ -O2` (libstdc++ and libgomp, as lievi), skipped when no compiler is found. A SciPy process doing the same 10 steps with solve_ivp (python3 -c, numpy and scipy imported) is timed the
same way, for comparison.

Usage: /usr/bin/python3 bench/startup.py [LIEVI_BINARY] [--repeat N]   (default build/release/apps/lievi/lievi,
N = 50). Timings are wall clock (time.perf_counter around subprocess.run); run on an idle machine.
"""
import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCENARIO = os.path.join(ROOT, "examples", "rigid_body", "scenario_a.toml")
SCIPY_10_STEPS = (
    "import numpy as np; from scipy.integrate import solve_ivp\n"
    "I = np.array([1.0, 1.3, 0.5]); a = 0.5\n"
    "def f(t, m):\n"
    "    om = m / I; u = np.cross(m, om); return u + a * np.cross(m, u)\n"
    "solve_ivp(f, (0.0, 1.0), I * np.array([0.0, 0.05, 1.0]), method='DOP853', rtol=1e-10, atol=1e-10,\n"
    "          t_eval=np.linspace(0.0, 1.0, 11))\n"
)


def timed(cmd, repeat, env=None):
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
        times.append(time.perf_counter() - t0)
    return statistics.median(times), min(times)


def cpu_hz():
    try:
        with open("/proc/cpuinfo") as f:
            m = re.search(r"cpu MHz\s*:\s*([0-9.]+)", f.read())
        return float(m.group(1)) * 1e6 if m else None
    except OSError:
        return None


def main():
    parser = argparse.ArgumentParser(description="whole-process time of a 10-step lievi run")
    parser.add_argument("binary", nargs="?", default=os.path.join(ROOT, "build", "release", "apps", "lievi", "lievi"))
    parser.add_argument("--repeat", type=int, default=50)
    a = parser.parse_args()
    binary, repeat = a.binary, a.repeat
    out = tempfile.mkdtemp(prefix="lievi-startup-")
    run = [binary, "run", SCENARIO, "--set", "integrator.t_end=1.0", "--set", "output.plots=false",
           "--out", os.path.join(out, "run"), "--force"]
    subprocess.run(run, check=True, stdout=subprocess.DEVNULL)  # warm the page cache
    with open(os.path.join(out, "run", "summary.json")) as f:
        integrate_s = json.load(f).get("timing", {}).get("integrate_s")
    med, lo = timed(run, repeat)
    vmed, vlo = timed([binary, "--version"], repeat)
    env = dict(os.environ, LD_DEBUG="statistics")
    p = subprocess.run([binary, "--version"], env=env, capture_output=True, text=True)
    m = re.search(r"total startup time in dynamic loader:\s*([0-9]+) cycles", p.stderr)
    hz = cpu_hz()
    libs = subprocess.run(["ldd", binary], capture_output=True, text=True).stdout.count("=>")
    print(f"lievi: {binary}")
    print(f"  10-step rigid-body run, whole process: median {med * 1e3:.2f} ms, min {lo * 1e3:.2f} ms ({repeat} runs)")
    print(f"  lievi --version, whole process:        median {vmed * 1e3:.2f} ms, min {vlo * 1e3:.2f} ms")
    if m:
        cycles = int(m.group(1))
        ms = f" = {cycles / hz * 1e3:.2f} ms at {hz / 1e9:.2f} GHz" if hz else ""
        print(f"  dynamic loader: {cycles} cycles{ms}; {libs} shared libraries")
    if integrate_s is not None:
        print(f"  the run itself (summary.json timing.integrate_s): {integrate_s * 1e3:.3f} ms")
    cxx = shutil.which("c++")
    if cxx:
        src, exe = os.path.join(out, "hello.cpp"), os.path.join(out, "hello")
        with open(src, "w") as f:
            f.write('#include <iostream>\n#include <omp.h>\n'
                    'int main() { std::cout << "hello " << omp_get_max_threads() << "\\n"; }\n')
        subprocess.run([cxx, "-O2", "-fopenmp", src, "-o", exe], check=True)
        hmed, hlo = timed([exe], repeat)
        print(f"floor: a C++ hello world (libstdc++, libgomp), whole process: median {hmed * 1e3:.2f} ms, "
              f"min {hlo * 1e3:.2f} ms")
    else:
        print("floor: skipped (no c++ compiler)")
    try:
        smed, slo = timed(["/usr/bin/python3", "-c", SCIPY_10_STEPS], max(5, repeat // 5))
        print(f"SciPy (python3 -c, numpy + scipy imported, solve_ivp DOP853, 10 output steps): median "
              f"{smed * 1e3:.1f} ms, min {slo * 1e3:.1f} ms")
    except (OSError, subprocess.CalledProcessError) as e:
        print(f"SciPy: skipped ({e})")


if __name__ == "__main__":
    main()
