#!/usr/bin/env python3
"""Plots of issue 17's hybrid network, standard library only: reads hybrid.csv (written by
bench/results/hybrid.sh) and writes hybrid_vs_parallelism.svg and hybrid_vs_volume.svg next to it.

    python3 bench/results/plot_hybrid.py [bench/results/hybrid.csv]

Each point is one run of the production shape (bench/shapes.hpp): wall seconds per simulated
minute, exact and hybrid side by side (one process ran both). Both axes are logarithmic; the
charts are drawn with plot.py's Chart.
"""
import csv
import os
import sys
from collections import defaultdict

from plot import Chart, COLORS

MODES = (("exact", COLORS[1]), ("hybrid", COLORS[0]))
YLABEL = "wall s per simulated minute"


def load(path):
    """Per (P, records/s), per mode, the last row (the newest run), normalised to a minute."""
    points = defaultdict(dict)
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            minutes = int(row["sim_s"]) / 60.0
            points[(int(row["P"]), int(row["rate"]))][row["network"]] = {
                "wall_per_min": float(row["wall_s"]) / minutes,
                "gb_per_min": float(row["source_gb"]) / minutes,
                "skipped": float(row["skipped_s"]) / float(row["sim_s"]),
                "commit": row["commit"],
            }
    return points


def chart(points, out, title, xlabel, select, x_of, label_of, note):
    rows = sorted((k, v) for k, v in points.items() if select(k) and len(v) == 2)
    if len(rows) < 2:
        return False
    xs = [x_of(k, v) for k, v in rows]
    ys = [v[m]["wall_per_min"] for _, v in rows for m, _ in MODES]
    c = Chart(title, xlabel, YLABEL, (min(xs), max(xs)), (min(ys), max(ys)))
    c.axes()
    for mode, color in MODES:
        pts = [(x_of(k, v), v[mode]["wall_per_min"]) for k, v in rows]
        labels = None
        if mode == "hybrid":  # how much of the run hybrid skipped
            labels = [f"{label_of(k)}, {v['hybrid']['skipped']:.0%} skipped" for k, v in rows]
        c.series(pts, color, labels)
    c.legend([(mode, color, None) for mode, color in MODES])
    commits = sorted({v[m]["commit"] for _, v in rows for m, _ in MODES})
    c.note(note, f"One run per point and mode, side by side in one process, pinned to one core "
                 f"of a shared 2-vCPU VM; ckptsim {', '.join(commits)}; see bench/README.md.")
    c.write(out)
    return True


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    path = sys.argv[1] if len(sys.argv) > 1 else os.path.join(here, "hybrid.csv")
    points = load(path)
    outdir = os.path.dirname(os.path.abspath(path))
    made = {
        "hybrid_vs_parallelism.svg": chart(
            points, os.path.join(outdir, "hybrid_vs_parallelism.svg"),
            "Production shape: wall time against parallelism (5,000 records/s per source)",
            "subtasks (3 x P)", lambda k: k[1] == 5000, lambda k, v: 3 * k[0],
            lambda k: f"P={k[0]}",
            "Source(P) -hash-> Aggregate(P) -rebalance-> Sink(P), 2 P\u00b2 channels, a checkpoint "
            "a minute."),
        "hybrid_vs_volume.svg": chart(
            points, os.path.join(outdir, "hybrid_vs_volume.svg"),
            "Production shape: wall time against data volume (P = 32)",
            "data read by the sources per simulated minute (GB)", lambda k: k[0] == 32,
            lambda k, v: v["exact"]["gb_per_min"], lambda k: f"{k[1]:,}/s",
            "Labels: records/s of 500 B per source subtask. Hybrid stops skipping where channels "
            "fill buffers before the 100 ms flush (lumps)."),
    }
    for name, ok in made.items():
        print(("wrote " if ok else "not enough rows for ") + os.path.join(outdir, name))


if __name__ == "__main__":
    main()
