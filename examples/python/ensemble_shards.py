#!/usr/bin/env python3
"""An ensemble of the stochastic wave equation split over worker processes and merged to the same bits as one
run: paths [0, N) in shards of --shard paths, each shard a `lievi.run_paths(range(a, b), per_path=True)` on a
worker process, merged in path order by `lievi.EnsembleStats` (lievi's own Welford update), then checked
against `lievi.run_paths(N)` in one process. The workers are a `dask.distributed` cluster (Debian's
python3-distributed; a local one here, a scheduler's address with --scheduler) or a `multiprocessing` pool
(--executor multiprocessing, or when dask is not installed): the shards only need the scenario and their path
range, and the merge does not depend on where or in which order they ran.

    PYTHONPATH=build/release/python /usr/bin/python3 examples/python/ensemble_shards.py [--paths 32] [--shard 8]
        [--workers 2] [--executor dask|multiprocessing] [--scheduler tcp://host:8786]
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


def dask_available():
    try:
        import dask.distributed  # noqa: F401
    except ImportError:
        return False
    return True


def run_on_dask(ranges, workers, scheduler):
    from dask.distributed import Client, LocalCluster
    if scheduler:
        with Client(scheduler) as client:
            return client.gather(client.map(shard, ranges))
    # worker processes, one thread each, no dashboard (nothing listens beyond localhost)
    with LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None,
                      host="127.0.0.1") as cluster, Client(cluster) as client:
        return client.gather(client.map(shard, ranges))  # gather keeps the order of `ranges`


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--paths", type=int, default=32)
    ap.add_argument("--shard", type=int, default=8)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--executor", choices=("dask", "multiprocessing"), default=None,
                    help="default: dask when dask.distributed is importable, else multiprocessing")
    ap.add_argument("--scheduler", default=None, help="a running dask scheduler's address (default: a local cluster)")
    args = ap.parse_args()
    ranges = [(a, min(a + args.shard, args.paths)) for a in range(0, args.paths, args.shard)]
    executor = args.executor or ("dask" if dask_available() else "multiprocessing")
    if executor == "dask":
        shards = run_on_dask(ranges, args.workers, args.scheduler)
    else:
        with multiprocessing.get_context("spawn").Pool(args.workers) as pool:
            shards = pool.map(shard, ranges)
    stats = lievi.EnsembleStats()
    for series_of_shard in shards:  # path order: shard by shard, path by path
        for series in series_of_shard:
            stats.add(series)
    whole = lievi.run_paths(lievi.load(SCENARIO, set=SETS), args.paths)
    same = all(np.array_equal(stats.mean[c], whole.mean[c]) and np.array_equal(stats.std[c], whole.std[c])
               for c in whole.mean)
    print(f"{args.paths} paths in {len(ranges)} shards on {args.workers} {executor} processes; merged mean and std equal "
          f"to one run bit for bit: {same}; E_c at t = {whole.mean['t'][-1]:g}: "
          f"{whole.mean['E_c'][-1]:.6f} +- {whole.std['E_c'][-1]:.6f}")
    return 0 if same else 1


if __name__ == "__main__":
    raise SystemExit(main())
