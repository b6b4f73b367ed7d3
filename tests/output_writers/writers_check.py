#!/usr/bin/env python3
"""Independent readers for tests/output_writers (h5py, float(), NumPy); each prints one JSON document.

  writers_check.py h5dump FILE          datasets (shape, maxshape, chunks, dtype, values as uint64 bit
                                        patterns, attributes) and root attributes of an HDF5 file
  writers_check.py csvbits FILE         header and the bit patterns of float(field) of every CSV row
  writers_check.py ensemble CSV...      numpy.mean and numpy.std(ddof=1) over the given path tables (the
                                        first column t is copied from the first table)
"""
import json
import struct
import sys


def bits(x):
    return struct.unpack("<Q", struct.pack("<d", float(x)))[0]


def attr_value(v):
    import numpy as np

    if isinstance(v, bytes):
        return {"kind": "str", "value": v.decode("utf-8")}
    if isinstance(v, str):
        return {"kind": "str", "value": v}
    a = np.asarray(v)
    if a.dtype.kind == "f" and a.size == 1:
        return {"kind": "float", "dtype": a.dtype.str, "bits": bits(a.reshape(()).item())}
    return {"kind": "other", "repr": repr(v)}


def h5dump(path):
    import h5py
    import numpy as np

    out = {"root_attrs": {}, "datasets": {}}
    with h5py.File(path, "r") as f:
        for k, v in f.attrs.items():
            out["root_attrs"][k] = attr_value(v)
        for name, ds in f.items():
            if not isinstance(ds, h5py.Dataset):
                continue
            a = np.ascontiguousarray(ds[()], dtype="<f8")
            out["datasets"][name] = {
                "shape": list(ds.shape),
                "maxshape": [None if m is None else int(m) for m in ds.maxshape],
                "chunks": None if ds.chunks is None else list(ds.chunks),
                "dtype": ds.dtype.str,
                "compression": ds.compression,
                "bits": a.view("<u8").ravel().tolist(),
                "attrs": {k: attr_value(v) for k, v in ds.attrs.items()},
            }
    return out


def csvbits(path):
    with open(path, "r", newline="") as f:
        lines = f.read().split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return {"columns": lines[0].split(","), "rows": [[bits(float(x)) for x in l.split(",")] for l in lines[1:]]}


def ensemble(paths):
    import numpy as np

    data = np.stack([np.loadtxt(p, delimiter=",", skiprows=1, ndmin=2) for p in paths])  # [path, row, col]
    mean = np.mean(data, axis=0)
    std = np.std(data, axis=0, ddof=1)
    mean[:, 0] = data[0, :, 0]
    std[:, 0] = data[0, :, 0]
    return {"mean": mean.tolist(), "std": std.tolist()}


def main():
    cmd, args = sys.argv[1], sys.argv[2:]
    if cmd == "h5dump":
        r = h5dump(args[0])
    elif cmd == "csvbits":
        r = csvbits(args[0])
    elif cmd == "ensemble":
        r = ensemble(args)
    else:
        sys.exit("unknown command " + cmd)
    json.dump(r, sys.stdout, allow_nan=False)


if __name__ == "__main__":
    main()
