#!/usr/bin/env python3
"""An ensemble of the stochastic wave equation split over worker processes and merged to the same bits as one
run: paths [0, N) in shards of --shard paths, each shard a `lievi.run_paths(range(a, b), per_path=True)` in a
multiprocessing pool, merged in path order by `lievi.EnsembleStats` (lievi's own Welford update), then checked
against `lievi.run_paths(N)` in one process. Any executor works the same way (a `dask.distributed` client's
`map` in place of the pool): the shards only need the scenario and their path range.

    PYTHONPATH=build/release/python /usr/bin/python3 examples/python/ensemble_shards.py [--paths 32] [--shard 8]
"""
import argparse
import multiprocessing
import os

import numpy as np

import lievi

here = os.path.dirname(os.path.abspath(__file__))
SCENARIO = os.path.join(here, "..", "wave", "independent.toml")
SETS = {"integrator.t_end": 0.2, "output.plots": False, "output.fields": False}


def shard(paths):
    # each worker reads the scenario itself: only the path range travels
    r = lievi.run_paths(lievi.load(SCENARIO, set=SETS), range(*paths), per_path=True, threads=1)
    return [r.paths[k] for k in range(*paths)]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--paths", type=int, default=32)
    ap.add_argument("--shard", type=int, default=8)
    ap.add_argument("--workers", type=int, default=2)
    args = ap.parse_args()
    ranges = [(a, min(a + args.shard, args.paths)) for a in range(0, args.paths, args.shard)]
    with multiprocessing.get_context("spawn").Pool(args.workers) as pool:
        shards = pool.map(shard, ranges)
    stats = lievi.EnsembleStats()
    for series_of_shard in shards:  # path order: shard by shard, path by path
        for series in series_of_shard:
            stats.add(series)
    whole = lievi.run_paths(lievi.load(SCENARIO, set=SETS), args.paths)
    same = all(np.array_equal(stats.mean[c], whole.mean[c]) and np.array_equal(stats.std[c], whole.std[c])
               for c in whole.mean)
    print(f"{args.paths} paths in {len(ranges)} shards on {args.workers} processes; merged mean and std equal "
          f"to one run bit for bit: {same}; E_c at t = {whole.mean['t'][-1]:g}: "
          f"{whole.mean['E_c'][-1]:.6f} +- {whole.std['E_c'][-1]:.6f}")
    return 0 if same else 1


if __name__ == "__main__":
    raise SystemExit(main())
