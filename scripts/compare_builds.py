#!/usr/bin/python3
"""Show that two builds of lievi give bitwise the same results (docs/testing.md "Comparing two builds").

    /usr/bin/python3 scripts/compare_builds.py OLD_LIEVI NEW_LIEVI [--examples examples] [--work DIR]
                                               [--quick] [--keep] [--bad-cases N|all] [--cases DIR]

Meant for a refactoring that must not change any number: build the code before and after, and give both
binaries. Every command below runs once with OLD and once with NEW, one at a time, in separate work folders
(WORK/old, WORK/new; WORK is a new folder under $TMPDIR unless --work, never inside the examples folder).
Both read one copy of the examples folder, WORK/examples, taken at the start and run as `examples/...` from
WORK, so an edit of the checkout while the script runs cannot give the two binaries different input.
Use /usr/bin/python3: it has numpy and h5py.

What runs
- Every scenario `EXAMPLES/**/*.toml`: `lievi validate FILE`, then `lievi run FILE --out DIR --force
  --set output.plots=false`. Files of the examples folder that are not `.toml` (README.md, the CSV side file
  whip_motion.csv that whip.toml reads) are not scenarios: they are listed as skipped. A `.toml` that OLD's
  `validate` refuses is not run (its validate output is still compared).
- Scenarios with noise (`noise.mode` other than "none" in OLD's resolved printout) also run as an ensemble,
  `--paths 3 --set output.per_path=true` (per_path adds each path's series_path<k>.csv to the comparison).
- Rigid-body scenarios also run `lievi convergence FILE --param integrator.dt --values dt,dt/2,dt/4` (the
  only model convergence accepts).
- `--quick` shortens every run and convergence to t_end = n dt with n = min(N, 20 * output.every) steps
  (dt, every and N from OLD's `validate` printout; t_end written as the exact decimal product and checked
  with `validate` to give n steps). The default is the full run of every example.
- CLI text: `--version`, `--help`, `CMD --help` for every command, `methods`, `schema` and `schema TYPE`
  for every model type (rigid_body, wave, beam, lagrangian, plus any other `### TYPE` heading of `schema`).
- Bad invocations: cases of tests/bad_input/cases/*.cases (format in tests/bad_input/test_bad_input.cpp),
  `--bad-cases N` of them (default 32: N // groups evenly spaced cases of every group, the remainder from
  cli.cases; `all` runs the whole corpus, about 1100 cases), known-defect cases left out. Each runs in a fresh
  folder holding the case's files, with LIEVI_PYTHON=/nonexistent/python3 and a 60 s limit, as the ctest
  runner does.

What is compared (OLD against NEW)
- Every command: the exit code, stdout and stderr. Before comparing, the text is normalised only for what
  differs from run to run by construction: the output folder, the work folder and the binary paths become
  <OUT>, <WORK>, <lievi>; the elapsed time of `run`'s summary line ("... in 0.129 s; wrote ...") becomes
  "in <elapsed> s"; a process id in DIR.tmp-<pid> / DIR.new-<pid> becomes <pid>.
- Output folders: the same set of file names, recursively, hidden files included, except the plots (*.png,
  *.gif: drawn by matplotlib from the files compared here, and off anyway with output.plots = false).
- `*.csv` (series.csv, series_mean.csv, series_std.csv, series_path<k>.csv, convergence.csv, any other):
  byte for byte.
- `*.h5` (fields.h5): with h5py, the same objects; for every group and dataset every attribute (name, dtype,
  value bytes; root attributes lievi_version and model included) and for every dataset dtype, shape, chunks,
  maxshape, compression and the data bit for bit (NaN payloads and the sign of zero included). The file bytes
  are not compared: HDF5 may lay out the same content differently.
- `summary.json`: every value equal, compared as parsed JSON with the key order, the JSON type (1 is not
  1.0) and the bits of every double; then also the text outside the excluded values. Excluded, because
  they are wall-clock measurements that differ between any two runs of the same binary (checked on the
  summaries of every example; nothing else in them names a path or a time):
      timing.integrate_s, timing.total_s, timing.ns_per_step (rigid body), timing.ns_per_node_step (wave,
      beam): the whole `timing` object of run summaries, whatever keys it holds;
      timing.total_s and rows[k].integrate_s of convergence summaries.
- `.lievi-output` (the output-folder marker): every value except `time` (the UTC time it was written).
- `*.vtp`, `*.pvd` and every other file: byte for byte, after replacing the output folder's absolute path
  (the current writer puts none in them; the pvd names its vtp files relatively).
- Bad invocations: exit code, stdout, stderr (the case folder becomes <case>) and the files in the case
  folder afterwards.

Output: one line per comparison, `same` or `DIFFERENT` with the first difference (file, dataset or JSON
key, line/row and column or index, both values in shortest round-trip form and their distance in ulps) and
how many more files differ; then "N runs compared, all bitwise equal" or the count of differences, and the
time spent in each binary. Exit 0 when everything is equal, 1 when anything differs (or a command timed out,
or a file could not be read), 2 on bad usage. WORK is deleted at the end unless --keep or a difference
was found (then its path is printed).
"""
import argparse
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import time
from decimal import Decimal
from pathlib import Path

try:
    import tomllib
except ImportError:  # Python < 3.11: the resolved printout is read with regular expressions instead
    tomllib = None

try:
    import h5py
    import numpy as np
except ImportError:
    sys.stderr.write("compare_builds.py: needs numpy and h5py; run it with /usr/bin/python3\n")
    sys.exit(2)

ROOT = Path(__file__).resolve().parent.parent
MODEL_TYPES = ["rigid_body", "wave", "beam", "lagrangian"]
COMMANDS = ["run", "convergence", "validate", "methods", "schema"]
PLOT_SUFFIXES = (".png", ".gif")
QUICK_STEPS_PER_EVERY = 20
ENSEMBLE_PATHS = 3
BAD_CASE_TIMEOUT = 60
MARKER = ".compare_builds"  # marks a work folder this script made (a later --work may reuse it)

# Run-dependent values, as regular expressions on the JSON key path (see the docstring).
SUMMARY_EXCLUDED = [re.compile(r"^timing(\..*)?$"), re.compile(r"^rows\[\d+\]\.integrate_s$")]
MARKER_EXCLUDED = [re.compile(r"^time$")]
# The same keys in the text, for the check of the text outside the values.
SUMMARY_TEXT_MASK = re.compile(r'("(?:integrate_s|total_s|ns_per_step|ns_per_node_step)":\s*)[^,\n}\]]+')
MARKER_TEXT_MASK = re.compile(r'("time":\s*)"[^"]*"')


# ----------------------------------------------------------------------------------------------------------
# Numbers
# ----------------------------------------------------------------------------------------------------------
def fmt_token(tok):
    """A CSV/VTK token in shortest round-trip form (integers as written, non-numbers quoted)."""
    if re.fullmatch(r"[-+]?\d+", tok):
        return tok
    try:
        return repr(float(tok))
    except ValueError:
        return repr(tok[:60])


def fmt_value(v):
    if isinstance(v, (float, np.floating)):
        return repr(float(v))
    if isinstance(v, (bytes, np.bytes_)):
        return repr(bytes(v)[:80])
    if isinstance(v, str):
        return repr(v[:80])
    if isinstance(v, np.generic):
        return repr(v.item())
    return repr(v)


def _ordinal(x):
    i = struct.unpack("<q", struct.pack("<d", x))[0]
    return i if i >= 0 else -(i & 0x7FFFFFFFFFFFFFFF)


def ulp_note(a, b):
    """' (k ulp)' for two finite doubles, '' otherwise."""
    try:
        fa, fb = float(a), float(b)
    except (TypeError, ValueError):
        return ""
    if not (np.isfinite(fa) and np.isfinite(fb)):
        return ""
    d = abs(_ordinal(fa) - _ordinal(fb))
    if d == 0:
        return " (equal values, different bits)"
    return f" ({d} ulp)"


def float_bits_equal(a, b):
    return struct.pack("<d", a) == struct.pack("<d", b)


# ----------------------------------------------------------------------------------------------------------
# Comparing files
# ----------------------------------------------------------------------------------------------------------
def list_files(d):
    out = set()
    for dirpath, _dirs, files in os.walk(d):
        for f in files:
            rel = os.path.relpath(os.path.join(dirpath, f), d)
            if not rel.lower().endswith(PLOT_SUFFIXES):
                out.add(rel)
    return out


def file_order(name):
    base = os.path.basename(name)
    m = re.search(r"(\d+)", base)
    num = int(m.group(1)) if m else -1
    if base == "series.csv":
        rank = 0
    elif base.endswith(".csv"):
        rank = 1
    elif base.endswith(".h5"):
        rank = 2
    elif base == "summary.json":
        rank = 3
    elif base == ".lievi-output":
        rank = 4
    elif base.endswith(".pvd"):
        rank = 5
    elif base.endswith(".vtp"):
        rank = 6
    else:
        rank = 7
    return (rank, re.sub(r"\d+", "", name), num, name)


def first_line_diff(ta, tb):
    """(index, line_a, line_b) of the first differing line (None for a missing line), or None."""
    la, lb = ta.split("\n"), tb.split("\n")
    for i in range(max(len(la), len(lb))):
        x = la[i] if i < len(la) else None
        y = lb[i] if i < len(lb) else None
        if x != y:
            return i, x, y
    return None


def short(s, n=150):
    if s is None:
        return "<no line>"
    return repr(s if len(s) <= n else s[:n] + "...")


def describe_text_diff(label, ta, tb):
    d = first_line_diff(ta, tb)
    if d is None:
        return f"{label}: differ"
    i, x, y = d
    return f"{label} line {i + 1}: {short(x)} vs {short(y)}"


def describe_csv_diff(name, ba, bb):
    try:
        ta, tb = ba.decode("utf-8"), bb.decode("utf-8")
    except UnicodeDecodeError:
        return f"{name}: bytes differ (not UTF-8 text)"
    d = first_line_diff(ta, tb)
    if d is None:
        return f"{name}: bytes differ"
    i, x, y = d
    if x is None or y is None:
        na, nb = ta.count("\n"), tb.count("\n")
        return f"{name}: {na} lines vs {nb} lines (first extra line {i + 1}: {short(x if y is None else y)})"
    header = ta.split("\n", 1)[0].split(",")
    cx, cy = x.split(","), y.split(",")
    if i == 0:
        return f"{name} header: {short(x)} vs {short(y)}"
    for j in range(max(len(cx), len(cy))):
        vx = cx[j] if j < len(cx) else None
        vy = cy[j] if j < len(cy) else None
        if vx != vy:
            col = header[j] if j < len(header) else f"#{j + 1}"
            where = f"{name} line {i + 1} (row {i - 1}, {header[0]} = {fmt_token(cx[0])})"
            if vx is None or vy is None:
                return f"{where}: {len(cx)} columns vs {len(cy)}"
            return f"{where} column {col}: {fmt_token(vx)} vs {fmt_token(vy)}{ulp_note(vx, vy)}"
    return f"{name} line {i + 1}: {short(x)} vs {short(y)}"


def describe_token_diff(name, ba, bb):
    """First differing line and whitespace-separated token of a text file (vtp, pvd, ...)."""
    try:
        ta, tb = ba.decode("utf-8"), bb.decode("utf-8")
    except UnicodeDecodeError:
        n = next((k for k in range(min(len(ba), len(bb))) if ba[k] != bb[k]), min(len(ba), len(bb)))
        return f"{name}: bytes differ at offset {n} ({len(ba)} vs {len(bb)} bytes)"
    d = first_line_diff(ta, tb)
    if d is None:
        return f"{name}: bytes differ"
    i, x, y = d
    if x is None or y is None:
        return f"{name}: {ta.count(chr(10))} lines vs {tb.count(chr(10))} lines"
    tx, ty = x.split(), y.split()
    for j in range(min(len(tx), len(ty))):
        if tx[j] != ty[j]:
            return (f"{name} line {i + 1} token {j + 1}: {fmt_token(tx[j])} vs {fmt_token(ty[j])}"
                    f"{ulp_note(tx[j], ty[j])}")
    return f"{name} line {i + 1}: {short(x)} vs {short(y)}"


def json_path(path, key):
    return f"{path}.{key}" if path else str(key)


def json_diff(a, b, path, excluded, out):
    """Append the differences of two parsed JSON values to out (excluded: regexes of key paths)."""
    if any(r.search(path) for r in excluded):
        return
    if type(a) is not type(b):
        out.append(f"{path or '<root>'}: {fmt_value(a)} ({type(a).__name__}) vs {fmt_value(b)} ({type(b).__name__})")
    elif isinstance(a, dict):
        ka, kb = list(a), list(b)
        only_a = [k for k in ka if k not in b and not any(r.search(json_path(path, k)) for r in excluded)]
        only_b = [k for k in kb if k not in a and not any(r.search(json_path(path, k)) for r in excluded)]
        if only_a or only_b:
            out.append(f"{path or '<root>'}: keys only in OLD {only_a}, only in NEW {only_b}")
        common_a = [k for k in ka if k in b]
        common_b = [k for k in kb if k in a]
        if common_a != common_b:
            out.append(f"{path or '<root>'}: key order {common_a} vs {common_b}")
        for k in common_a:
            json_diff(a[k], b[k], json_path(path, k), excluded, out)
    elif isinstance(a, list):
        if len(a) != len(b):
            out.append(f"{path or '<root>'}: {len(a)} elements vs {len(b)}")
        for k in range(min(len(a), len(b))):
            json_diff(a[k], b[k], f"{path}[{k}]", excluded, out)
    elif isinstance(a, float):
        if not float_bits_equal(a, b):
            out.append(f"{path}: {fmt_value(a)} vs {fmt_value(b)}{ulp_note(a, b)}")
    elif a != b:
        out.append(f"{path}: {fmt_value(a)} vs {fmt_value(b)}")


def compare_json(name, ba, bb, excluded, mask):
    try:
        ja, jb = json.loads(ba), json.loads(bb)
    except ValueError as e:
        if ba == bb:
            return None
        return f"{name}: not JSON ({e})"
    diffs = []
    json_diff(ja, jb, "", excluded, diffs)
    if diffs:
        more = f" (and {len(diffs) - 1} more values)" if len(diffs) > 1 else ""
        return f"{name} {diffs[0]}{more}"
    ta = mask.sub(r"\1<run-dependent>", ba.decode("utf-8", "replace"))
    tb = mask.sub(r"\1<run-dependent>", bb.decode("utf-8", "replace"))
    if ta != tb:
        return describe_text_diff(f"{name} text (values equal, formatting differs)", ta, tb)
    return None


def _attr_bytes(v):
    arr = np.asarray(v)
    if arr.dtype.kind == "O":  # variable-length strings
        return repr(arr.tolist()).encode()
    return arr.dtype.str.encode() + b"|" + repr(arr.shape).encode() + b"|" + arr.tobytes()


def compare_attrs(name, where, oa, ob):
    ka, kb = sorted(oa.attrs.keys()), sorted(ob.attrs.keys())
    if ka != kb:
        return f"{name} {where} attributes {ka} vs {kb}"
    for k in ka:
        va, vb = oa.attrs[k], ob.attrs[k]
        if _attr_bytes(va) != _attr_bytes(vb):
            ulps = ulp_note(va, vb) if np.ndim(va) == 0 else ""
            return f"{name} {where} attribute {k}: {fmt_value(va)} vs {fmt_value(vb)}{ulps}"
    return None


def compare_h5(name, pa, pb):
    with h5py.File(pa, "r") as fa, h5py.File(pb, "r") as fb:
        objs_a, objs_b = {}, {}
        fa.visititems(lambda n, o: objs_a.__setitem__(n, o))
        fb.visititems(lambda n, o: objs_b.__setitem__(n, o))
        if sorted(objs_a) != sorted(objs_b):
            oa = sorted(set(objs_a) - set(objs_b))
            ob = sorted(set(objs_b) - set(objs_a))
            return f"{name}: objects only in OLD {oa}, only in NEW {ob}"
        r = compare_attrs(name, "/", fa, fb)
        if r:
            return r
        times = fa["t"][()] if "t" in fa and isinstance(fa["t"], h5py.Dataset) else None
        for n in sorted(objs_a):
            oa, ob = objs_a[n], objs_b[n]
            if type(oa) is not type(ob):
                return f"{name} /{n}: {type(oa).__name__} vs {type(ob).__name__}"
            r = compare_attrs(name, f"/{n}", oa, ob)
            if r:
                return r
            if not isinstance(oa, h5py.Dataset):
                continue
            for prop in ("dtype", "shape", "chunks", "maxshape", "compression"):
                va, vb = getattr(oa, prop), getattr(ob, prop)
                if va != vb:
                    return f"{name} /{n} {prop}: {va} vs {vb}"
            da, db = np.ascontiguousarray(oa[()]), np.ascontiguousarray(ob[()])
            if da.dtype.kind == "O":
                if da.tolist() != db.tolist():
                    return f"{name} /{n}: values differ"
                continue
            if da.tobytes() == db.tobytes():
                continue
            size = da.dtype.itemsize
            xa = np.frombuffer(da.tobytes(), dtype=np.uint8).reshape(-1, size)
            xb = np.frombuffer(db.tobytes(), dtype=np.uint8).reshape(-1, size)
            bad = np.flatnonzero(np.any(xa != xb, axis=1))
            flat = int(bad[0])
            idx = tuple(int(i) for i in np.unravel_index(flat, da.shape)) if da.shape else ()
            va, vb = da[idx], db[idx]
            where = f"/{n}{list(idx)}"
            if da.ndim >= 1:
                t = ""
                if times is not None and n != "t" and da.shape[0] == times.shape[0]:
                    t = f", t = {fmt_value(times[idx[0]])}"
                where += f" (row {idx[0]}{t}, column {list(idx[1:])})"
            return (f"{name} {where}: {fmt_value(va)} vs {fmt_value(vb)}{ulp_note(va, vb)}"
                    f" ({len(bad)} of {da.size} values differ)")
    return None


def compare_file(name, pa, pb, path_subs):
    """None when equal, else a description of the first difference."""
    base = os.path.basename(name)
    try:
        if base.endswith(".h5"):
            return compare_h5(name, pa, pb)
        ba, bb = Path(pa).read_bytes(), Path(pb).read_bytes()
        if base == "summary.json":
            return compare_json(name, ba, bb, SUMMARY_EXCLUDED, SUMMARY_TEXT_MASK)
        if base == ".lievi-output":
            return compare_json(name, ba, bb, MARKER_EXCLUDED, MARKER_TEXT_MASK)
        if base.endswith(".csv"):
            return None if ba == bb else describe_csv_diff(name, ba, bb)
        for sa, sb, rep in path_subs:  # absolute paths of the output folders, if a file names them
            ba = ba.replace(sa.encode(), rep.encode())
            bb = bb.replace(sb.encode(), rep.encode())
        return None if ba == bb else describe_token_diff(name, ba, bb)
    except Exception as e:  # an unreadable file is a difference, not a crash of the comparison
        return f"{name}: cannot compare ({type(e).__name__}: {e})"


def compare_dirs(da, db):
    """All differences between two output folders (list of descriptions, first difference first)."""
    fa, fb = list_files(da), list_files(db)
    diffs = []
    if fa != fb:
        diffs.append(f"file set: only in OLD {sorted(fa - fb)[:5]}, only in NEW {sorted(fb - fa)[:5]}")
    subs = [(str(Path(da).resolve()), str(Path(db).resolve()), "<OUT>"), (str(da), str(db), "<OUT>")]
    for name in sorted(fa & fb, key=file_order):
        r = compare_file(name, os.path.join(da, name), os.path.join(db, name), subs)
        if r:
            diffs.append(r)
    return diffs


# ----------------------------------------------------------------------------------------------------------
# Running commands
# ----------------------------------------------------------------------------------------------------------
class Outcome:
    def __init__(self, argv, rc, out, err, seconds):
        self.argv, self.rc, self.out, self.err, self.seconds = argv, rc, out, err, seconds


class Side:
    """One binary (OLD or NEW) with its work folder and the time spent in it."""

    def __init__(self, label, binary, work, cwd):
        self.label, self.binary, self.work, self.cwd, self.seconds = label, binary, work, cwd, 0.0

    def run(self, args, cwd=None, env=None, timeout=None):
        cwd = self.cwd if cwd is None else cwd
        argv = [self.binary] + args
        t0 = time.monotonic()
        try:
            p = subprocess.run(argv, cwd=cwd, env=env, stdin=subprocess.DEVNULL, capture_output=True,
                               timeout=timeout)
            rc, out, err = p.returncode, p.stdout, p.stderr
        except subprocess.TimeoutExpired as e:
            rc, out, err = f"timeout after {timeout} s", e.stdout or b"", e.stderr or b""
        dt = time.monotonic() - t0
        self.seconds += dt
        return Outcome(argv, rc, out.decode("utf-8", "replace"), err.decode("utf-8", "replace"), dt)


ELAPSED = re.compile(r"\bin [0-9]+(?:\.[0-9]+)?(?:e[-+]?[0-9]+)? s\b")
PIDS = re.compile(r"\.(tmp|new)-[0-9]+")


def normalize(text, subs):
    for s, rep in sorted(subs, key=lambda x: -len(x[0])):
        if s:
            text = text.replace(s, rep)
    text = ELAPSED.sub("in <elapsed> s", text)
    return PIDS.sub(r".\1-<pid>", text)


def compare_outcomes(a, b, subs_a, subs_b):
    diffs = []
    if isinstance(a.rc, str) or isinstance(b.rc, str):
        diffs.append(f"exit code: {a.rc} vs {b.rc}")
    elif a.rc != b.rc:
        err = f" (stderr: {short(a.err.strip(), 100)} vs {short(b.err.strip(), 100)})" if a.err or b.err else ""
        diffs.append(f"exit code: {a.rc} vs {b.rc}{err}")
    for label, x, y in (("stdout", a.out, b.out), ("stderr", a.err, b.err)):
        nx, ny = normalize(x, subs_a), normalize(y, subs_b)
        if nx != ny:
            diffs.append(describe_text_diff(label, nx, ny))
    return diffs


def side_subs(side, extra=()):
    # the full path only: lievi prints its own name ("lievi: --set: ...") whatever the binary is called
    return [(str(side.work), "<WORK>"), (side.binary, "<lievi>")] + list(extra)


# ----------------------------------------------------------------------------------------------------------
# Scenarios
# ----------------------------------------------------------------------------------------------------------
def parse_resolved(text):
    """dt, t_end, every, noise mode and step count N of a `validate` printout (None where absent)."""
    info = {"type": None, "dt": None, "t_end": None, "every": 1, "noise": "none", "steps": None}
    m = re.search(r"^# ([0-9]+) steps of dt", text, re.M)
    if m:
        info["steps"] = int(m.group(1))
    data = None
    if tomllib is not None:
        try:
            data = tomllib.loads(text)
        except tomllib.TOMLDecodeError:
            data = None
    if data is not None:
        integ, output, noise = data.get("integrator", {}), data.get("output", {}), data.get("noise", {})
        info["type"] = data.get("model", {}).get("type")
        info["dt"] = integ.get("dt", integ.get("h"))
        info["t_end"] = integ.get("t_end")
        info["every"] = output.get("every", 1)
        info["noise"] = noise.get("mode", "none") if isinstance(noise, dict) else "none"
        return info
    section = None
    for line in text.splitlines():
        line = line.split("#", 1)[0].strip()
        if line.startswith("["):
            section = line.strip("[] ")
        elif "=" in line:
            k, v = (s.strip() for s in line.split("=", 1))
            if section == "model" and k == "type":
                info["type"] = v.strip('"')
            elif section == "integrator" and k in ("dt", "h"):
                info["dt"] = float(v)
            elif section == "integrator" and k == "t_end":
                info["t_end"] = float(v)
            elif section == "output" and k == "every":
                info["every"] = int(v)
            elif section == "noise" and k == "mode":
                info["noise"] = v.strip('"')
    return info


def quick_t_end(side, scenario, info):
    """The --set value of integrator.t_end for --quick (None: keep the full run), checked with validate."""
    dt, every, steps = info["dt"], info["every"], info["steps"]
    if dt is None:
        return None, "no integrator.dt in the resolved printout: full run"
    if steps is None and info["t_end"] is not None:
        steps = round(info["t_end"] / dt)
    n = QUICK_STEPS_PER_EVERY * int(every)
    if steps is not None and n >= steps:
        return None, None
    value = format((Decimal(repr(float(dt))) * n).normalize(), "f")
    chk = side.run(["validate", scenario, "--set", f"integrator.t_end={value}"])
    m = re.search(r"^# ([0-9]+) steps of dt", chk.out, re.M)
    if chk.rc != 0 or not m or int(m.group(1)) != n:
        return None, f"t_end = {value} not accepted as {n} steps: full run"
    return value, None


def find_examples(examples):
    scenarios, skipped = [], []
    for p in sorted(Path(examples).rglob("*")):
        if not p.is_file():
            continue
        (scenarios if p.suffix == ".toml" else skipped).append(p)
    return scenarios, skipped


# ----------------------------------------------------------------------------------------------------------
# Bad-input cases (the format of tests/bad_input/test_bad_input.cpp)
# ----------------------------------------------------------------------------------------------------------
def read_cases(path):
    group = Path(path).stem
    cases, file = [], None
    lines = Path(path).read_text(encoding="utf-8", errors="surrogateescape").split("\n")
    if lines and lines[-1] == "":
        lines.pop()  # as std::getline: no empty line after the last newline
    for line in lines:
        if line.startswith("### case "):
            cases.append({"group": group, "name": line[9:].strip(), "args": "", "files": [], "known": "",
                          "exit": None})
            file = None
            continue
        if not cases:
            continue
        c = cases[-1]
        if file is not None:
            if line.startswith("file:"):
                file = None
            else:
                file[1].append(line)
                continue
        if not line.strip() or line.startswith("#") or ":" not in line:
            continue
        field, value = line.split(":", 1)
        value = value.strip(" \t\r")
        if field == "args":
            c["args"] = value
        elif field == "exit":
            c["exit"] = int(value)
        elif field == "known-defect":
            c["known"] = value
        elif field == "file":
            file = [value, []]
            c["files"].append(file)
    return cases


def split_args(s, src):
    out, cur, have, i = [], "", False, 0
    while i < len(s):
        c = s[i]
        if c in " \t":
            if have:
                out.append(cur)
                cur, have = "", False
        elif c == "'":
            e = s.find("'", i + 1)
            cur += s[i + 1:e] if e >= 0 else s[i + 1:]
            have = True
            i = len(s) if e < 0 else e
        elif c == '"':
            have = True
            i += 1
            while i < len(s) and s[i] != '"':
                if s[i] == "\\" and i + 1 < len(s):
                    i += 1
                cur += s[i]
                i += 1
        else:
            cur += c
            have = True
        i += 1
    if have:
        out.append(cur)
    return [a.replace("{src}", src) for a in out]


def expand(content):
    return re.sub(r"\{(.)\*([0-9]+)\}", lambda m: m.group(1) * int(m.group(2)), content)


def select_cases(cases_dir, count):
    groups = []
    for f in sorted(Path(cases_dir).glob("*.cases")):
        cs = [c for c in read_cases(f) if not c["known"]]
        if cs:
            groups.append(cs)
    if count == "all":
        return [c for g in groups for c in g]
    if not groups:
        return []
    quota = {id(g): count // len(groups) for g in groups}
    rest = count - sum(quota.values())
    cli = next((g for g in groups if g[0]["group"] == "cli"), groups[0])
    quota[id(cli)] += rest
    chosen = []
    for g in groups:
        q = min(quota[id(g)], len(g))
        chosen += [g[int((k + 0.5) * len(g) / q)] for k in range(q)] if q else []
    return chosen


def listing(d):
    return sorted(os.path.relpath(os.path.join(dp, f), d) for dp, ds, fs in os.walk(d) for f in fs + ds)


def run_case(side, case, src):
    d = side.work / "bad" / re.sub(r"[^A-Za-z0-9]", "_", case["group"] + "." + case["name"])
    if d.exists():
        shutil.rmtree(d)
    d.mkdir(parents=True)
    for name, lines in case["files"]:
        p = d / name
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(expand("".join(line + "\n" for line in lines)).encode("utf-8", "surrogateescape"))
    env = dict(os.environ, LIEVI_PYTHON="/nonexistent/python3")
    o = side.run(split_args(case["args"], src), cwd=d, env=env, timeout=BAD_CASE_TIMEOUT)
    return o, d, listing(d)


# ----------------------------------------------------------------------------------------------------------
# Main
# ----------------------------------------------------------------------------------------------------------
class Table:
    def __init__(self):
        self.rows, self.width = [], 58

    def add(self, name, diffs, note=""):
        self.rows.append((name, diffs))
        if diffs:
            more = f"  (+{len(diffs) - 1} more)" if len(diffs) > 1 else ""
            result = f"DIFFERENT {diffs[0]}{more}"
        else:
            result = "same"
        if note:
            result += f"  (note: {note})"
        print(f"{name:<{self.width}} {result}", flush=True)

    def note(self, name, text):
        print(f"{name:<{self.width}} {text}", flush=True)

    @property
    def n_diff(self):
        return sum(1 for _n, d in self.rows if d)


def usage_error(msg):
    sys.stderr.write(f"compare_builds.py: {msg}\n")
    sys.exit(2)


def is_inside(p, root):
    p, root = Path(p).resolve(), Path(root).resolve()
    return p == root or root in p.parents


def main(argv=None):
    ap = argparse.ArgumentParser(description="Compare the outputs of two lievi builds bit for bit.")
    ap.add_argument("old", help="the lievi binary before the change")
    ap.add_argument("new", help="the lievi binary after the change")
    ap.add_argument("--examples", default="examples", help="folder of example scenarios (default: examples)")
    ap.add_argument("--work", help="work folder (default: a new folder under $TMPDIR)")
    ap.add_argument("--quick", action="store_true", help=f"runs of min(N, {QUICK_STEPS_PER_EVERY} * every) steps")
    ap.add_argument("--keep", action="store_true", help="keep the work folder")
    ap.add_argument("--bad-cases", default="32", help="number of bad-input cases, or 'all' (default 32)")
    ap.add_argument("--cases", default=str(ROOT / "tests" / "bad_input" / "cases"),
                    help="folder of the *.cases files (default: tests/bad_input/cases of this checkout)")
    ap.add_argument("--timeout", type=float, default=3600.0, help="limit per lievi command in s (default 3600)")
    a = ap.parse_args(argv)

    binaries = []
    for b in (a.old, a.new):
        p = shutil.which(b) if os.sep not in b else b
        if not p or not os.path.isfile(p) or not os.access(p, os.X_OK):
            usage_error(f"'{b}' is not an executable file")
        binaries.append(os.path.abspath(p))
    examples = Path(a.examples)
    if not examples.is_dir():
        usage_error(f"--examples '{a.examples}' is not a folder")
    if a.bad_cases != "all":
        if not re.fullmatch(r"[0-9]+", a.bad_cases):
            usage_error(f"--bad-cases '{a.bad_cases}': a number or 'all'")
        a.bad_cases = int(a.bad_cases)
    if a.bad_cases and not Path(a.cases).is_dir():
        usage_error(f"--cases '{a.cases}' is not a folder (use --bad-cases 0 to leave the bad input out)")
    created = False
    if a.work:
        work = Path(a.work).resolve()
        if is_inside(work, examples) or is_inside(examples, work):
            usage_error(f"--work '{a.work}' must not be inside the examples folder or contain it")
        if work.exists():
            if not work.is_dir():
                usage_error(f"--work '{a.work}' is not a folder")
            content = [x for x in work.iterdir() if x.name != MARKER]
            if content and not (work / MARKER).exists():
                usage_error(f"--work '{a.work}' is not empty and was not made by this script")
            for x in content:
                shutil.rmtree(x) if x.is_dir() and not x.is_symlink() else x.unlink()
        else:
            work.mkdir(parents=True)
            created = True
    else:
        work = Path(tempfile.mkdtemp(prefix="lievi-compare-")).resolve()
        created = True
    (work / MARKER).write_text("work folder of scripts/compare_builds.py\n")
    # Both binaries read one snapshot of the examples (WORK/examples, run from WORK under the same relative
    # path), so that an edit of the checkout while the script runs cannot make OLD and NEW see different input.
    snapshot = work / "examples"
    shutil.copytree(examples, snapshot, symlinks=True)
    old = Side("OLD", binaries[0], work / "old", work)
    new = Side("NEW", binaries[1], work / "new", work)
    for s in (old, new):
        s.work.mkdir()
        try:
            s.run(["--version"])
        except OSError as e:
            usage_error(f"cannot start '{s.binary}': {e}")

    t_start = time.monotonic()
    table = Table()
    print(f"OLD {old.binary}\nNEW {new.binary}\nwork folder {work}; mode {'quick' if a.quick else 'full'}\n")
    print(f"{'run':<{table.width}} result", flush=True)

    def both(args):
        oa, ob = old.run(args, timeout=a.timeout), new.run(args, timeout=a.timeout)
        diffs = compare_outcomes(oa, ob, side_subs(old), side_subs(new))
        return oa, ob, diffs

    # CLI text
    schema_all = old.run(["schema"]).out
    types = MODEL_TYPES + [t for t in re.findall(r"^### (\S+)", schema_all, re.M) if t not in MODEL_TYPES]
    for args in (["--version"], ["--help"], *[[c, "--help"] for c in COMMANDS], ["methods"], ["schema"],
                 *[["schema", t] for t in types]):
        table.add("lievi " + " ".join(args), both(args)[2])

    # Example scenarios
    scenarios, skipped = find_examples(snapshot)
    for p in skipped:
        table.note(f"skip {Path(a.examples) / p.relative_to(snapshot)}", "not a scenario (not .toml)")

    for scen in scenarios:
        sname = str(scen.relative_to(work))  # examples/<rel>.toml, relative to the working folder WORK
        rel = scen.relative_to(snapshot).with_suffix("")
        key = str(rel).replace(os.sep, "__")
        va, vb, vdiffs = both(["validate", sname])
        table.add(f"validate {rel}", vdiffs)
        if va.rc != 0:
            table.note(f"skip run {rel}", f"OLD validate exit {va.rc}: not run")
            continue
        info = parse_resolved(va.out)
        quick_set = []
        if a.quick:
            value, why = quick_t_end(old, sname, info)
            if why:
                table.note(f"  quick {rel}", why)
            if value:
                quick_set = ["--set", f"integrator.t_end={value}"]
        runs = [(f"run {rel}", ["run", sname], key)]
        if info["noise"] not in (None, "none"):
            runs.append((f"run {rel} --paths {ENSEMBLE_PATHS}",
                         ["run", sname, "--paths", str(ENSEMBLE_PATHS), "--set", "output.per_path=true"],
                         key + "__paths"))
        if info["type"] == "rigid_body" and info["dt"]:
            dt = float(info["dt"])
            vals = ",".join(repr(dt / k) for k in (1, 2, 4))
            runs.append((f"convergence {rel}",
                         ["convergence", sname, "--param", "integrator.dt", "--values", vals], key + "__conv"))
        for label, args, sub in runs:
            da, db = old.work / "out" / sub, new.work / "out" / sub
            full = args + ["--out", None, "--force", "--set", "output.plots=false"] + quick_set
            oa = old.run([str(da) if x is None else x for x in full], timeout=a.timeout)
            ob = new.run([str(db) if x is None else x for x in full], timeout=a.timeout)
            diffs = compare_outcomes(oa, ob, side_subs(old, [(str(da), "<OUT>")]), side_subs(new, [(str(db), "<OUT>")]))
            if da.is_dir() or db.is_dir():
                if da.is_dir() and db.is_dir():
                    diffs += compare_dirs(str(da), str(db))
                else:
                    diffs.append(f"output folder written only by {'OLD' if da.is_dir() else 'NEW'}")
            table.add(label, diffs)

    # Bad invocations
    if a.bad_cases:
        src = str(Path(a.cases).resolve().parent.parent.parent)
        for case in select_cases(a.cases, a.bad_cases):
            oa, da, la = run_case(old, case, src)
            ob, db, lb = run_case(new, case, src)
            diffs = compare_outcomes(oa, ob, side_subs(old, [(str(da), "<case>")]),
                                     side_subs(new, [(str(db), "<case>")]))
            if la != lb:
                diffs.append(f"files after the case: {la[:6]} vs {lb[:6]}")
            note = ""
            if case["exit"] is not None and oa.rc != case["exit"]:
                note = f"OLD exit {oa.rc}, the case expects {case['exit']}"
            table.add(f"bad {case['name']}", diffs, note)

    total = time.monotonic() - t_start
    n, k = len(table.rows), table.n_diff
    print()
    if k == 0:
        print(f"{n} runs compared, all bitwise equal")
    else:
        print(f"{n} runs compared, {k} DIFFERENT:")
        for name, d in table.rows:
            if d:
                print(f"  {name}:")
                for x in d[:8]:
                    print(f"      {x}")
                if len(d) > 8:
                    print(f"      ... and {len(d) - 8} more")
    print(f"mode {'quick' if a.quick else 'full'}: {old.seconds:.1f} s in OLD, {new.seconds:.1f} s in NEW, "
          f"{total:.1f} s in all")
    if a.keep or k:
        print(f"work folder kept: {work}")
    else:
        for d in (old.work, new.work, snapshot):
            shutil.rmtree(d, ignore_errors=True)
        (work / MARKER).unlink(missing_ok=True)
        if created:
            shutil.rmtree(work, ignore_errors=True)
    return 0 if k == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
