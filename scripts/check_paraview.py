"""Open lievi's fields.xdmf in ParaView and check what it reads against fields.h5; render the beam as tubes.

Run by ParaView's Python (it needs an X display; Debian's ParaView has no off-screen build):

    pvpython scripts/check_paraview.py [--beam RUN_DIR [--segments S]] [--wave RUN_DIR] [--png FILE] [--levels N]

For each run folder, ParaView's legacy XDMF reader ("XDMF Reader", the one that reads XDMF 2) opens
RUN_DIR/fields.xdmf. Checked against RUN_DIR/fields.h5 (read with h5py; when pvpython cannot import it, by
`--h5-python`, default /usr/bin/python3, in a separate process): the time steps equal /t; at N snapshots
spread over the run (first and last included; all when there are at most N) the number of points and cells,
every point, every cell's two node ids (segment e joins node e and e+1), and every array, bit for bit:
beam d1, d2, d3 (the columns of /R), omega and v (the halves of /zeta), cell data kappa and Gamma (the halves of
/gamma), points /p; wave points (s, 0, 0) and phi. A beam folder's beam.pvd, when there, is read too (PVD
reader): its times and, at the same snapshots, the points and d1, d2, d3 of its .vtp files. With --png, the beam at up to six snapshots is drawn as
tubes (ParaView's Tube filter) coloured by |kappa| and saved as a PNG.

Prints one line per run folder; exits 1 on the first difference, 2 on bad usage.
"""
import argparse
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
from paraview import servermanager
from paraview import simple
from vtkmodules.util.numpy_support import vtk_to_numpy

DATASETS = {"beam": ["t", "s", "p", "R", "zeta", "gamma"], "wave": ["t", "s", "phi"]}


class Mismatch(Exception):
    pass


def read_h5(path, h5_python):
    """fields.h5's model attribute and datasets, as NumPy arrays."""
    try:
        import h5py
    except ImportError:
        h5py = None
    if h5py is not None:
        with h5py.File(path, "r") as f:
            model = f.attrs["model"]
            model = model.decode() if isinstance(model, bytes) else str(model)
            return model, {k: np.asarray(f[k][()]) for k in DATASETS[model]}
    # pvpython without h5py: the interpreter given dumps the datasets as bit patterns (exact) in JSON
    code = (
        "import h5py, json, sys, numpy as np\n"
        "f = h5py.File(sys.argv[1], 'r'); m = f.attrs['model']; m = m.decode() if isinstance(m, bytes) else str(m)\n"
        "names = {'beam': %r, 'wave': %r}[m]\n"
        "print(json.dumps({'model': m, 'data': {k: [list(f[k].shape), np.ascontiguousarray(f[k][()], '<f8')"
        ".view('<u8').ravel().tolist()] for k in names}}))\n" % (DATASETS["beam"], DATASETS["wave"]))
    out = subprocess.run([h5_python, "-c", code, str(path)], check=True, capture_output=True, text=True).stdout
    j = json.loads(out)
    return j["model"], {k: np.array(bits, dtype="<u8").view("<f8").reshape(shape)
                        for k, (shape, bits) in j["data"].items()}


def same(a, b):
    a, b = np.ascontiguousarray(a, dtype="<f8"), np.ascontiguousarray(b, dtype="<f8")
    return a.shape == b.shape and np.array_equal(a.view("<u8"), b.view("<u8"))


def levels_to_check(n_out, n):
    if n_out <= n:
        return list(range(n_out))
    return sorted({round(i * (n_out - 1) / (n - 1)) for i in range(n)})


def open_xdmf(folder):
    reader = simple.XDMFReader(registrationName=f"{folder.name}_fields", FileNames=[str(folder / "fields.xdmf")])
    reader.UpdatePipelineInformation()
    return reader


def fetch(reader, t):
    reader.UpdatePipeline(t)
    data = servermanager.Fetch(reader)
    if data.IsA("vtkMultiBlockDataSet"):
        data = data.GetBlock(0)
    if data is None or not data.IsA("vtkUnstructuredGrid"):
        raise Mismatch(f"at t = {t!r} the reader gave {None if data is None else data.GetClassName()}")
    return data


def check_folder(folder, levels, h5_python, beam_segments=None):
    model, h5 = read_h5(folder / "fields.h5", h5_python)
    reader = open_xdmf(folder)
    times = np.array(reader.TimestepValues, dtype=float).ravel()
    if not same(times, h5["t"]):
        raise Mismatch(f"time steps {times[:4]}... ({times.size}) differ from /t ({h5['t'].size})")
    n = h5["s"].shape[0]
    checked = levels_to_check(times.size, levels)
    values = 0
    for k in checked:
        d = fetch(reader, times[k])
        where = f"{folder.name} level {k} (t = {times[k]!r})"
        pts = vtk_to_numpy(d.GetPoints().GetData())
        if model == "beam":
            want_pts = h5["p"][k]
            segments = beam_segments if beam_segments is not None else n - 1
            point = {f"d{c + 1}": h5["R"][k][:, :, c] for c in range(3)}
            point["omega"], point["v"] = h5["zeta"][k][:, :3], h5["zeta"][k][:, 3:]
            cell = {"kappa": h5["gamma"][k][:segments, :3], "Gamma": h5["gamma"][k][:segments, 3:]}
        else:
            want_pts = np.stack([h5["s"], np.zeros(n), np.zeros(n)], axis=1)
            segments = n - 1
            point, cell = {"phi": h5["phi"][k]}, {}
        if d.GetNumberOfPoints() != n or d.GetNumberOfCells() != segments:
            raise Mismatch(f"{where}: {d.GetNumberOfPoints()} points, {d.GetNumberOfCells()} cells; "
                           f"expected {n}, {segments}")
        if not same(pts, want_pts):
            raise Mismatch(f"{where}: points differ from fields.h5")
        for e in range(segments):
            ids = d.GetCell(e).GetPointIds()
            got = [ids.GetId(i) for i in range(ids.GetNumberOfIds())]
            if got != [e, (e + 1) % n]:
                raise Mismatch(f"{where}: cell {e} joins {got}, expected {[e, (e + 1) % n]}")
        for kind, want, arrays in (("point", point, d.GetPointData()), ("cell", cell, d.GetCellData())):
            names = sorted(arrays.GetArrayName(i) for i in range(arrays.GetNumberOfArrays()))
            if names != sorted(want):
                raise Mismatch(f"{where}: {kind} arrays {names}, expected {sorted(want)}")
            for name, v in want.items():
                got = vtk_to_numpy(arrays.GetArray(name))
                if not same(got, v):
                    raise Mismatch(f"{where}: {kind} array {name} differs from fields.h5")
                values += got.size
        values += pts.size
    print(f"check_paraview: {folder}: {model}, {times.size} time steps, {n} points, {segments} cells; "
          f"levels {checked}: {values} values equal to fields.h5 bit for bit")
    if model == "beam" and (folder / "beam.pvd").is_file():
        check_pvd(folder, h5, checked)
    return reader, times


def check_pvd(folder, h5, checked):
    """beam.pvd and its .vtp polylines (binary) hold the snapshots of fields.h5: points and d1, d2, d3."""
    reader = simple.PVDReader(registrationName=f"{folder.name}_pvd", FileName=str(folder / "beam.pvd"))
    reader.UpdatePipelineInformation()
    times = np.array(reader.TimestepValues, dtype=float).ravel()
    if not same(times, h5["t"]):
        raise Mismatch(f"beam.pvd: time steps differ from /t")
    values = 0
    for k in checked:
        reader.UpdatePipeline(times[k])
        d = servermanager.Fetch(reader)
        where = f"{folder.name}/beam.pvd level {k}"
        if not d.IsA("vtkPolyData") or d.GetNumberOfLines() != 1:
            raise Mismatch(f"{where}: {d.GetClassName()} with {d.GetNumberOfLines()} lines, expected one polyline")
        got = {"points": vtk_to_numpy(d.GetPoints().GetData())}
        got.update({f"d{c + 1}": vtk_to_numpy(d.GetPointData().GetArray(f"d{c + 1}")) for c in range(3)})
        want = {"points": h5["p"][k]}
        want.update({f"d{c + 1}": h5["R"][k][:, :, c] for c in range(3)})
        for name, v in want.items():
            if not same(got[name], v):
                raise Mismatch(f"{where}: {name} differs from fields.h5")
            values += v.size
    print(f"check_paraview: {folder}/beam.pvd: {times.size} time steps; levels {checked}: {values} values equal to "
          "fields.h5 bit for bit")


def render_beam(reader, times, png):
    """Tubes through the centre line at up to six snapshots, coloured by |kappa|."""
    view = simple.CreateView("RenderView")
    view.ViewSize = [1200, 800]
    view.UseColorPaletteForBackground = 0
    view.Background = [1, 1, 1]
    view.OrientationAxesVisibility = 1
    view.OrientationAxesLabelColor = [0, 0, 0]
    shown = levels_to_check(times.size, 6)
    bounds, tubes = None, []
    for k in shown:
        at = simple.ForceTime(Input=reader, IgnorePipelineTime=1, ForcedTime=times[k])
        surface = simple.ExtractSurface(Input=at)
        surface.UpdatePipeline()
        b = surface.GetDataInformation().GetBounds()
        bounds = b if bounds is None else [min(bounds[i], b[i]) if i % 2 == 0 else max(bounds[i], b[i])
                                           for i in range(6)]
        tube = simple.Tube(Input=surface)
        tube.NumberofSides = 24
        tube.Capping = 1
        display = simple.Show(tube, view)
        simple.ColorBy(display, ("CELLS", "kappa", "Magnitude"))
        tubes.append((tube, display))
    # the radius from the extent of all snapshots drawn
    diag = float(np.linalg.norm([bounds[1] - bounds[0], bounds[3] - bounds[2], bounds[5] - bounds[4]]))
    for i, (tube, display) in enumerate(tubes):
        tube.Radius = 0.006 * diag
        display.RescaleTransferFunctionToDataRange(i > 0, False)  # the colour range over every snapshot drawn
    tubes[-1][1].SetScalarBarVisibility(view, True)
    lut = simple.GetColorTransferFunction("kappa")
    bar = simple.GetScalarBar(lut, view)
    bar.Title = "|kappa|"
    bar.ComponentTitle = ""
    bar.TitleColor = bar.LabelColor = [0, 0, 0]
    simple.ResetCamera(view)
    view.CameraPosition = [view.CameraFocalPoint[0] + 0.3 * diag, view.CameraFocalPoint[1] - 0.6 * diag,
                           view.CameraFocalPoint[2] + 0.9 * diag]
    view.CameraViewUp = [0, 0, 1]
    simple.ResetCamera(view)
    simple.Render(view)
    simple.SaveScreenshot(str(png), view, ImageResolution=[1200, 800])
    if not Path(png).is_file() or Path(png).stat().st_size == 0:
        raise Mismatch(f"{png} was not written")
    print(f"check_paraview: wrote {png} (beam at t = {[float(times[k]) for k in shown]})")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--beam", type=Path, help="a beam run folder (fields.xdmf, fields.h5)")
    ap.add_argument("--wave", type=Path, help="a wave run folder (fields.xdmf, fields.h5)")
    ap.add_argument("--segments", type=int,
                    help="the beam's segments shown (default n_nodes - 1; n_nodes for a closed ring)")
    ap.add_argument("--png", type=Path, help="render the beam as tubes to this PNG file (needs --beam)")
    ap.add_argument("--levels", type=int, default=12, help="snapshots compared per run (default 12)")
    ap.add_argument("--h5-python", default="/usr/bin/python3",
                    help="Python with h5py, used when pvpython cannot import h5py")
    a = ap.parse_args()
    if not (a.beam or a.wave) or (a.png and not a.beam) or a.levels < 2:
        ap.print_usage(sys.stderr)
        sys.stderr.write("check_paraview.py: give --beam and/or --wave (--png needs --beam; --levels >= 2)\n")
        sys.exit(2)
    for folder in (a.beam, a.wave):
        if folder and not ((folder / "fields.xdmf").is_file() and (folder / "fields.h5").is_file()):
            sys.stderr.write(f"check_paraview.py: {folder} has no fields.xdmf and fields.h5\n")
            sys.exit(2)
    try:
        if a.wave:
            check_folder(a.wave, a.levels, a.h5_python)
        if a.beam:
            reader, times = check_folder(a.beam, a.levels, a.h5_python, a.segments)
            if a.png:
                render_beam(reader, times, a.png)
    except Mismatch as e:
        sys.stderr.write(f"check_paraview.py: {e}\n")
        sys.exit(1)


if __name__ == "__main__":
    main()
