#!/usr/bin/env python3
"""Independent check of a run folder's fields.xdmf (and beam.pvd) against its fields.h5 (xml.etree, h5py, NumPy).

  xdmf_check.py xdmf RUN_DIR --segments N [--pvd]
  xdmf_check.py vtp FILE

The XDMF file is parsed as XML and every DataItem is evaluated the way the XDMF 2 format defines it (HDF
items read with h5py, XML items parsed, HyperSlabs cut with their start/stride/count, the Function "$0") and
XInclude elements are replaced by the element their xpointer names; every HDF item must name an existing dataset of fields.h5 beside it with its
dimensions and float64 type. What each grid then shows is compared, value for value and bit for bit (NaN
equal to NaN), with what docs/outputs.md says fields.h5 holds at that snapshot:

  beam: points p[k]; point data d1, d2, d3 = the columns of R[k], omega = zeta[k][:, :3], v = zeta[k][:, 3:];
        cell data kappa = gamma[k][:N, :3], Gamma = gamma[k][:N, 3:]
  wave: points (s, 0, 0); point data phi = phi[k]

with N segments (given: N = n_nodes for a closed ring, n_nodes - 1 otherwise), segment e joining node e and
node (e + 1) mod n_nodes, one grid per /t entry with its time written exactly. With --pvd also the beam's
beam.pvd: one entry per /t entry (same time), each .vtp a single polyline through all nodes whose points and
d1, d2, d3 equal p[k] and the columns of R[k] bit for bit. Prints a JSON summary; exits 1 with the first
mismatch on stderr.

`vtp FILE` decodes one .vtp (ascii or inline binary: base64 of a UInt64 byte count and the little-endian
values, as the file's header says) and prints its arrays as JSON: name, components and the uint64 bit patterns.
"""
import argparse
import base64
import json
import re
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import h5py
import numpy as np


class Mismatch(Exception):
    pass


def dims_of(item):
    return tuple(int(d) for d in item.get("Dimensions").split())


XINCLUDE = "{http://www.w3.org/2001/XInclude}include"


class Evaluator:
    def __init__(self, root, folder, h5):
        self.root, self.folder, self.h5 = root, folder, h5
        self.hdf_items = 0

    def include(self, element):
        """The DataItem an <xi:include xpointer="xpointer(/Xdmf/Domain/DataItem[@Name='x'])"/> stands for."""
        if element.get("href") is not None or len(element):
            raise Mismatch(f"unsupported XInclude {element.attrib}")
        m = re.fullmatch(r"xpointer\(/Xdmf/Domain/DataItem\[@Name='([A-Za-z0-9_]+)'\]\)", element.get("xpointer", ""))
        if not m:
            raise Mismatch(f"unsupported xpointer {element.get('xpointer')!r}")
        found = [e for e in self.root.find("Domain").findall("DataItem") if e.get("Name") == m.group(1)]
        if len(found) != 1:
            raise Mismatch(f"xpointer {element.get('xpointer')!r} matches {len(found)} DataItems")
        return found[0]

    def eval(self, item):
        if item.tag == XINCLUDE:
            return self.eval(self.include(item))
        if item.tag != "DataItem":
            raise Mismatch(f"expected a DataItem, found <{item.tag}>")
        if item.get("Reference") is not None:
            raise Mismatch("a Reference DataItem (ParaView's XDMF 3 readers abort on one)")
        kind = item.get("ItemType", "Uniform")
        if item.get("Format") is None:
            raise Mismatch(f"a {kind} DataItem without Format (ParaView's XDMF 3 readers abort on one)")
        children = list(item)
        if kind == "HyperSlab":
            if len(children) != 2:
                raise Mismatch("a HyperSlab needs two children")
            sel = self.eval(children[0]).astype(np.int64)
            data = self.eval(children[1])
            if sel.shape != (3, data.ndim):
                raise Mismatch(f"HyperSlab selection of shape {sel.shape} for a rank-{data.ndim} item")
            start, stride, count = sel
            if np.any(count < 1) or np.any(stride < 1) or np.any(start < 0):
                raise Mismatch(f"HyperSlab {sel.tolist()}")
            if np.any(start + (count - 1) * stride >= data.shape):
                raise Mismatch(f"HyperSlab {sel.tolist()} outside the shape {data.shape}")
            cut = data[tuple(slice(a, a + (c - 1) * s + 1, s) for a, s, c in zip(start, stride, count))]
            out = dims_of(item)
            if int(np.prod(out)) != cut.size:
                raise Mismatch(f"HyperSlab of {cut.size} values with Dimensions {out}")
            return cut.reshape(out)
        if kind == "Function":
            if item.get("Function") != "$0" or len(children) != 1:
                raise Mismatch(f"unsupported Function {item.get('Function')!r}")
            v = self.eval(children[0])
            if v.shape != dims_of(item):
                raise Mismatch(f"Function Dimensions {dims_of(item)} for a {v.shape} argument")
            return v
        if kind != "Uniform" or children:
            raise Mismatch(f"unsupported DataItem ItemType={kind!r}")
        fmt, text = item.get("Format", "XML"), (item.text or "").strip()
        if fmt == "XML":
            number = item.get("NumberType", "Float")
            v = np.array(text.split(), dtype=np.int64 if number == "Int" else np.float64)
            if v.size != int(np.prod(dims_of(item))):
                raise Mismatch(f"XML DataItem with {v.size} values for Dimensions {dims_of(item)}")
            return v.reshape(dims_of(item))
        if fmt == "HDF":
            file, _, name = text.partition(":")
            if file != "fields.h5" or not name.startswith("/"):
                raise Mismatch(f"HDF item {text!r}: expected fields.h5:/<dataset>")
            if name[1:] not in self.h5:
                raise Mismatch(f"HDF item {text!r}: fields.h5 has no dataset {name}")
            ds = self.h5[name[1:]]
            if ds.shape != dims_of(item):
                raise Mismatch(f"HDF item {text!r}: Dimensions {dims_of(item)}, dataset shape {ds.shape}")
            if ds.dtype != np.dtype("<f8") or item.get("NumberType") != "Float" or item.get("Precision") != "8":
                raise Mismatch(f"HDF item {text!r}: {item.get('NumberType')}/{item.get('Precision')} for {ds.dtype}")
            self.hdf_items += 1
            return np.asarray(ds[()])
        raise Mismatch(f"unsupported Format {fmt!r}")


def same(a, b):
    return a.shape == b.shape and np.array_equal(
        np.ascontiguousarray(a, dtype="<f8").view("<u8"), np.ascontiguousarray(b, dtype="<f8").view("<u8"))


def check(folder, segments):
    folder = Path(folder)
    root = ET.parse(folder / "fields.xdmf").getroot()
    if root.tag != "Xdmf" or root.get("Version") != "2.0":
        raise Mismatch(f"root <{root.tag} Version={root.get('Version')!r}>, expected <Xdmf Version='2.0'>")
    with h5py.File(folder / "fields.h5", "r") as h5:
        model = h5.attrs["model"]
        model = model.decode() if isinstance(model, bytes) else str(model)
        ev = Evaluator(root, folder, h5)
        t = h5["t"][()]
        n = h5["s"].shape[0]
        collections = root.find("Domain").findall("Grid")
        if len(collections) != 1 or collections[0].get("GridType") != "Collection" or \
                collections[0].get("CollectionType") != "Temporal":
            raise Mismatch("expected one temporal collection in the Domain")
        grids = collections[0].findall("Grid")
        if len(grids) != len(t):
            raise Mismatch(f"{len(grids)} grids for {len(t)} snapshots")
        pairs = np.array([[e, (e + 1) % n] for e in range(segments)], dtype=np.int64).reshape(segments, 2)
        values = 0
        for k, g in enumerate(grids):
            where = f"grid {k}"
            if float(g.find("Time").get("Value")) != t[k]:
                raise Mismatch(f"{where}: Time {g.find('Time').get('Value')} != /t[{k}] = {t[k]!r}")
            topo = g.find("Topology")
            if segments > 0:
                if topo.get("TopologyType") != "Polyline" or topo.get("NodesPerElement") != "2" or \
                        int(topo.get("NumberOfElements")) != segments:
                    raise Mismatch(f"{where}: topology {topo.attrib}")
                conn = ev.eval(topo.find("DataItem"))
                if topo.find("DataItem").get("ItemType") != "Function" or topo.find("DataItem").text:
                    # ParaView's legacy reader would reuse the first snapshot's points (its cache, keyed on text)
                    raise Mismatch(f"{where}: the topology's DataItem must be a Function with no text before its child")
                if not np.array_equal(conn, pairs):
                    raise Mismatch(f"{where}: segments {conn.tolist()} != {pairs.tolist()}")
            elif topo.get("TopologyType") != "Polyvertex" or int(topo.get("NumberOfElements")) != n:
                raise Mismatch(f"{where}: topology {topo.attrib}")
            geo = g.find("Geometry")
            items = [ev.eval(d) for d in geo if d.tag in ("DataItem", XINCLUDE)]
            if geo.get("GeometryType") == "XYZ" and len(items) == 1:
                points = items[0]
            elif geo.get("GeometryType") == "X_Y_Z" and len(items) == 3:
                points = np.stack(items, axis=1)
            else:
                raise Mismatch(f"{where}: geometry {geo.attrib} with {len(items)} items")
            shown = {}
            for a in g.findall("Attribute"):
                if a.get("Name") in shown:
                    raise Mismatch(f"{where}: attribute {a.get('Name')} twice")
                shown[a.get("Name")] = (a.get("Center"), a.get("AttributeType"), ev.eval(a.find("DataItem")))
            # what fields.h5 holds at snapshot k (docs/outputs.md), independent of the XDMF description
            if model == "beam":
                R, zeta, gamma = h5["R"][k], h5["zeta"][k], h5["gamma"][k]
                want_points = h5["p"][k]
                want = {f"d{c + 1}": ("Node", "Vector", R[:, :, c]) for c in range(3)}
                want["omega"] = ("Node", "Vector", zeta[:, :3])
                want["v"] = ("Node", "Vector", zeta[:, 3:])
                if segments > 0:
                    want["kappa"] = ("Cell", "Vector", gamma[:segments, :3])
                    want["Gamma"] = ("Cell", "Vector", gamma[:segments, 3:])
            elif model == "wave":
                want_points = np.stack([h5["s"][()], np.zeros(n), np.zeros(n)], axis=1)
                want = {"phi": ("Node", "Scalar", h5["phi"][k])}
            else:
                raise Mismatch(f"unknown model {model!r}")
            if not same(points, want_points):
                raise Mismatch(f"{where}: points differ from fields.h5")
            if set(shown) != set(want):
                raise Mismatch(f"{where}: attributes {sorted(shown)}, expected {sorted(want)}")
            for name, (center, kind, v) in want.items():
                got = shown[name]
                if got[:2] != (center, kind):
                    raise Mismatch(f"{where}: {name} is {got[:2]}, expected {(center, kind)}")
                if not same(got[2], np.asarray(v)):
                    raise Mismatch(f"{where}: {name} differs from fields.h5")
                values += got[2].size
            values += points.size
        return {"dir": str(folder), "model": model, "grids": len(grids), "nodes": int(n), "segments": segments,
                "arrays": sorted(shown), "hdf_items": ev.hdf_items, "values": int(values)}


def read_vtp(path):
    """The arrays of a .vtp: {name: (components, float64 or int64 values)}; points under "Points"."""
    root = ET.parse(path).getroot()
    if root.get("type") != "PolyData" or root.get("byte_order") != "LittleEndian":
        raise Mismatch(f"{path}: not little-endian PolyData")
    header = {"UInt64": "<u8", "UInt32": "<u4", None: "<u4"}[root.get("header_type")]
    out = {}
    for parent in root.iter():
        for da in parent.findall("DataArray"):
            name = "Points" if parent.tag == "Points" else da.get("Name")
            dtype = {"Float64": "<f8", "Int64": "<i8"}[da.get("type")]
            text = (da.text or "").strip()
            if da.get("format") == "ascii":
                v = np.array(text.split(), dtype=np.float64 if dtype == "<f8" else np.int64)
            elif da.get("format") == "binary":
                raw = base64.b64decode(text, validate=True)
                size = np.frombuffer(raw[:np.dtype(header).itemsize], dtype=header)[0]
                body = raw[np.dtype(header).itemsize:]
                if size != len(body):
                    raise Mismatch(f"{path}: {name}: header says {size} bytes, {len(body)} follow")
                v = np.frombuffer(body, dtype=dtype)
            else:
                raise Mismatch(f"{path}: {name}: format {da.get('format')!r}")
            out[name] = (int(da.get("NumberOfComponents", "1")), v)
    return root, out


def check_pvd(folder):
    folder = Path(folder)
    with h5py.File(folder / "fields.h5", "r") as h5:
        t, n = h5["t"][()], h5["s"].shape[0]
        entries = ET.parse(folder / "beam.pvd").getroot().find("Collection").findall("DataSet")
        if len(entries) != len(t):
            raise Mismatch(f"beam.pvd lists {len(entries)} files for {len(t)} snapshots")
        for k, e in enumerate(entries):
            if float(e.get("timestep")) != t[k]:
                raise Mismatch(f"beam.pvd entry {k}: timestep {e.get('timestep')} != /t[{k}] = {t[k]!r}")
            root, arrays = read_vtp(folder / e.get("file"))
            piece = root.find("PolyData/Piece")
            if piece.get("NumberOfPoints") != str(n) or piece.get("NumberOfLines") != "1":
                raise Mismatch(f"{e.get('file')}: {piece.attrib}")
            if not (np.array_equal(arrays["connectivity"][1], np.arange(n)) and
                    np.array_equal(arrays["offsets"][1], [n])):
                raise Mismatch(f"{e.get('file')}: not one polyline through nodes 0 .. {n - 1}")
            want = {"Points": h5["p"][k]}
            want.update({f"d{c + 1}": h5["R"][k][:, :, c] for c in range(3)})
            for name, v in want.items():
                comps, got = arrays[name]
                if comps != 3 or not same(got.reshape(-1, 3), v):
                    raise Mismatch(f"{e.get('file')}: {name} differs from fields.h5 at snapshot {k}")
        return {"pvd_files": len(entries), "vtp_format": root.find(".//DataArray").get("format")}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="what", required=True)
    x = sub.add_parser("xdmf", help="check RUN_DIR/fields.xdmf (and with --pvd beam.pvd) against fields.h5")
    x.add_argument("run_dir")
    x.add_argument("--segments", type=int, required=True, help="segments (cells) the grids must have")
    x.add_argument("--pvd", action="store_true", help="also beam.pvd and its .vtp files")
    v = sub.add_parser("vtp", help="print the arrays of a .vtp file as bit patterns (JSON)")
    v.add_argument("file")
    a = ap.parse_args()
    try:
        if a.what == "vtp":
            _, arrays = read_vtp(a.file)
            print(json.dumps({name: {"components": c, "bits": np.ascontiguousarray(v).view("<u8").tolist()}
                              for name, (c, v) in arrays.items()}))
            return
        summary = check(a.run_dir, a.segments)
        if a.pvd:
            summary.update(check_pvd(a.run_dir))
        print(json.dumps(summary))
    except Mismatch as e:
        sys.stderr.write(f"xdmf_check.py: {getattr(a, 'run_dir', None) or a.file}: {e}\n")
        sys.exit(1)


if __name__ == "__main__":
    main()
