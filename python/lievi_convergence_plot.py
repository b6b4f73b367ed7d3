#!/usr/bin/python3
"""Log-log plot of a lievi convergence folder (docs/outputs.md, "convergence").

Usage: lievi_convergence_plot.py DIR [--title TEXT] [--xlabel KEY] [--fitted SLOPE]

Reads DIR/convergence.csv (columns value,error,order; empty cells for failed runs and missing orders) and
writes DIR/convergence.png: the error
against the value on log-log axes, with dashed reference slopes of orders 1, 2 and 4 through the data point
with the largest value. Matplotlib with the Agg backend (no display needed). Exit status 0 on success.
"""
import argparse
import csv
import math
import os

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

SLOPES = (1, 2, 4)  # reference orders drawn as dashed lines


def read_points(path):
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    if not rows or set(rows[0].keys()) != {"value", "error", "order"}:
        raise SystemExit("convergence.csv must have the columns value,error,order and at least one row")
    pts = []
    for r in rows:
        if r["error"] == "":
            continue  # a failed run
        v, e = float(r["value"]), float(r["error"])
        if v > 0 and e > 0 and math.isfinite(v) and math.isfinite(e):
            pts.append((v, e))
    if not pts:
        raise SystemExit("convergence.csv has no positive finite errors to plot")
    return sorted(pts)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dir")
    ap.add_argument("--title", default="")
    ap.add_argument("--xlabel", default="value", help="the varied scenario key")
    ap.add_argument("--fitted", type=float, default=None, help="least-squares slope, shown in the legend")
    a = ap.parse_args()
    pts = read_points(os.path.join(a.dir, "convergence.csv"))
    fitted = a.fitted if a.fitted is not None and math.isfinite(a.fitted) else None

    v = [p[0] for p in pts]
    e = [p[1] for p in pts]
    fig, ax = plt.subplots(figsize=(6.5, 5.0), constrained_layout=True)
    label = "error" + (f" (fitted slope {fitted:.2f})" if fitted is not None else "")
    ax.loglog(v, e, "o-", color="tab:blue", lw=1.2, label=label)
    v_anchor, e_anchor = v[-1], e[-1]
    lo, hi = min(v), max(v)
    span = [lo, hi] if lo < hi else [lo / 2, hi * 2]
    for p, style in zip(SLOPES, ("0.35", "0.55", "0.75")):
        ax.loglog(span, [e_anchor * (x / v_anchor) ** p for x in span], "--", color=style, lw=1.0,
                  label=f"order {p}")
    # Keep the axes on the data: steep reference lines may leave the window.
    ax.set_ylim(min(e) / 10, max(e) * 10)
    # the varied key's unit, for the keys a convergence study usually varies (docs/scenarios.md)
    units = {"integrator.dt": "s", "integrator.h": "s", "integrator.t_end": "s"}
    ax.set_xlabel(a.xlabel + (f" [{units[a.xlabel]}]" if a.xlabel in units else ""))
    ax.set_ylabel(r"$\max_i |M_{N,i} - M_{\mathrm{ref},i}(t_{\mathrm{end}})|$ [kg m$^2$/s]")
    ax.set_title(a.title or "convergence", fontsize=10)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=9)
    fig.savefig(os.path.join(a.dir, "convergence.png"), dpi=120)
    plt.close(fig)


if __name__ == "__main__":
    main()
