#!/usr/bin/env python3
"""Plots of the scale sweep (issue 6 item 3), standard library only: reads scale.csv (written by
bench/results/scale.sh) and writes wall_vs_volume.svg and wall_vs_parallelism.svg next to it.

    python3 bench/results/plot.py [bench/results/scale.csv]

Each point is the median wall time over the repetitions of one row (P, MB/s, simulated seconds),
divided by the simulated minutes; where a (P, MB/s) was run for several simulated durations, the
longest one is plotted. Both axes are logarithmic. The dashed line is issue 6's
target, 5 min of wall time per simulated hour, i.e. 5 s per simulated minute.
"""
import csv
import math
import os
import statistics
import sys
from collections import defaultdict

W, H = 900, 500
LEFT, RIGHT, TOP, BOTTOM = 80, 240, 50, 86
COLORS = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd"]
TARGET_S_PER_MIN = 5.0
YLABEL = "wall s per simulated minute (= wall min per simulated hour)"


def load(path):
    """Median over repetitions per (P, MB/s, simulated seconds); then, per (P, MB/s), the row
    with the longest simulated time, normalised to one simulated minute."""
    groups = defaultdict(list)
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            key = (int(row["P"]), float(row["mb_per_s"]), int(row["sim_s"]))
            groups[key].append(row)
    points = {}
    for (p, rate, secs), rows in sorted(groups.items()):
        minutes = secs / 60.0
        points[(p, rate)] = {  # later (longer) sim_s replace shorter ones
            "sim_s": secs,
            "wall_per_min": statistics.median(float(r["wall_s"]) for r in rows) / minutes,
            "gb_per_min": float(rows[0]["source_gb"]) / minutes,
            "subtasks": int(rows[0]["subtasks"]),
            "reps": len(rows),
        }
    return points


def steps(lo, hi):
    """The range widened to the nearest 1-2-5 steps, so the data fills the plot."""
    grid = [m * 10.0 ** e for e in range(-6, 7) for m in (1, 2, 5)]
    return max(g for g in grid if g <= lo * 1.0001), min(g for g in grid if g >= hi * 0.9999)


def ticks(lo, hi):
    out = []
    e = math.floor(math.log10(lo))
    while 10.0 ** e <= hi * 1.0001:
        for m in (1, 2, 5):
            v = m * 10.0 ** e
            if lo * 0.9999 <= v <= hi * 1.0001:
                out.append(v)
        e += 1
    return out


def fmt(v):
    if v >= 1000:
        return f"{v:,.0f}"
    if v >= 1:
        return f"{v:g}"
    return f"{v:.2g}"


class Chart:
    def __init__(self, title, xlabel, ylabel, xr, yr):
        self.title, self.xlabel, self.ylabel = title, xlabel, ylabel
        self.x0, self.x1 = steps(*xr)
        self.y0, self.y1 = steps(*yr)
        self.parts = []

    def sx(self, x):
        f = (math.log10(x) - math.log10(self.x0)) / (math.log10(self.x1) - math.log10(self.x0))
        return LEFT + f * (W - LEFT - RIGHT)

    def sy(self, y):
        f = (math.log10(y) - math.log10(self.y0)) / (math.log10(self.y1) - math.log10(self.y0))
        return H - BOTTOM - f * (H - TOP - BOTTOM)

    def axes(self):
        p = self.parts
        x_l, x_r, y_t, y_b = LEFT, W - RIGHT, TOP, H - BOTTOM
        def grid(v):  # powers of ten get the darker grid line
            return "ccc" if abs(math.log10(v) - round(math.log10(v))) < 1e-9 else "eee"

        for v in ticks(self.x0, self.x1):
            x = self.sx(v)
            p.append(f'<line x1="{x:.1f}" y1="{y_t}" x2="{x:.1f}" y2="{y_b}" stroke="#{grid(v)}"/>')
            p.append(f'<text x="{x:.1f}" y="{y_b + 16}" text-anchor="middle">{fmt(v)}</text>')
        for v in ticks(self.y0, self.y1):
            y = self.sy(v)
            p.append(f'<line x1="{x_l}" y1="{y:.1f}" x2="{x_r}" y2="{y:.1f}" stroke="#{grid(v)}"/>')
            p.append(f'<text x="{x_l - 6}" y="{y + 4:.1f}" text-anchor="end">{fmt(v)}</text>')
        p.append(f'<rect x="{x_l}" y="{y_t}" width="{x_r - x_l}" height="{y_b - y_t}" '
                 'fill="none" stroke="#333"/>')
        p.append(f'<text x="{(x_l + x_r) / 2}" y="{y_b + 38}" text-anchor="middle">{self.xlabel}</text>')
        p.append(f'<text transform="translate(20,{(y_t + y_b) / 2}) rotate(-90)" '
                 f'text-anchor="middle">{self.ylabel}</text>')
        p.append(f'<text x="{W / 2}" y="24" text-anchor="middle" font-size="15" '
                 f'font-weight="bold">{self.title}</text>')

    def hline(self, y, label, color="#888"):
        yy = self.sy(y)
        self.parts.append(f'<line x1="{LEFT}" y1="{yy:.1f}" x2="{W - RIGHT}" y2="{yy:.1f}" '
                          f'stroke="{color}" stroke-dasharray="6,4"/>')
        self.parts.append(f'<text x="{W - RIGHT + 6}" y="{yy + 4:.1f}" fill="{color}">{label}</text>')

    def line(self, pts, color, dash=None, width=2):
        d = " ".join(f"{self.sx(x):.1f},{self.sy(y):.1f}" for x, y in pts)
        extra = f' stroke-dasharray="{dash}"' if dash else ""
        self.parts.append(f'<polyline points="{d}" fill="none" stroke="{color}" '
                          f'stroke-width="{width}"{extra}/>')

    def series(self, pts, color, labels=None):
        self.line(pts, color)
        for i, (x, y) in enumerate(pts):
            self.parts.append(f'<circle cx="{self.sx(x):.1f}" cy="{self.sy(y):.1f}" r="4" '
                              f'fill="{color}"/>')
            if labels:  # below right of the point, above left near the right edge
                right = self.sx(x) > W - RIGHT - 60
                self.parts.append(f'<text x="{self.sx(x) + (-8 if right else 6):.1f}" '
                                  f'y="{self.sy(y) + (-6 if right else 14):.1f}" font-size="10" '
                                  f'fill="{color}" text-anchor="{"end" if right else "start"}">'
                                  f'{labels[i]}</text>')

    def legend(self, entries):
        x, y = W - RIGHT + 10, TOP + 10
        for i, (label, color, dash) in enumerate(entries):
            yy = y + 20 * i
            extra = f' stroke-dasharray="{dash}"' if dash else ""
            self.parts.append(f'<line x1="{x}" y1="{yy}" x2="{x + 22}" y2="{yy}" stroke="{color}" '
                              f'stroke-width="2"{extra}/>')
            self.parts.append(f'<text x="{x + 28}" y="{yy + 4}">{label}</text>')

    def note(self, *lines):
        for i, text in enumerate(lines):
            self.parts.append(f'<text x="{LEFT}" y="{H - 26 + 14 * i}" font-size="10" '
                              f'fill="#555">{text}</text>')

    def write(self, path):
        with open(path, "w") as f:
            f.write(f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" '
                    f'viewBox="0 0 {W} {H}" font-family="sans-serif" font-size="12">\n')
            f.write(f'<rect width="{W}" height="{H}" fill="white"/>\n')
            for p in self.parts:
                f.write(p + "\n")
            f.write("</svg>\n")


def volume_chart(points, out):
    series = defaultdict(list)
    for (p, rate), v in points.items():
        series[p].append((v["gb_per_min"], v["wall_per_min"], rate, v["sim_s"]))
    series = {p: sorted(s) for p, s in series.items() if len(s) >= 2}
    if not series:
        return False
    xs = [x for s in series.values() for x, _, _, _ in s]
    ys = [y for s in series.values() for _, y, _, _ in s] + [TARGET_S_PER_MIN]
    c = Chart("Wall time against simulated data volume (4 stages, rebalance)",
              "data read by the sources per simulated minute (GB)",
              YLABEL, (min(xs), max(xs)), (min(ys), max(ys)))
    c.axes()
    entries = []
    for i, (p, s) in enumerate(sorted(series.items())):
        color = COLORS[i % len(COLORS)]
        c.series([(x, y) for x, y, _, _ in s], color, [f"{r:g} MB/s" for _, _, r, _ in s])
        secs = sorted({t for _, _, _, t in s})
        entries.append((f"4 x {p} = {4 * p} subtasks", color, None))
        entries.append((f"  ({'/'.join(str(t) for t in secs)} s simulated)", "none", None))
    c.hline(TARGET_S_PER_MIN, "target: 5 min/h", "#e08000")
    c.legend(entries)
    c.note("Labels: MB/s per source subtask (100 B records). Median of the repetitions in "
           "scale.csv, normalised to one simulated minute;",
           "the longest simulated duration of each point is used. One core of a shared 2-vCPU "
           "VM; see bench/README.md, Scale.")
    c.write(out)
    return True


def parallelism_chart(points, out):
    s = sorted((v["subtasks"], v["wall_per_min"]) for (p, rate), v in points.items()
               if rate == 10.0)
    if len(s) < 2:
        return False
    xs = [x for x, _ in s]
    ys = [y for _, y in s] + [TARGET_S_PER_MIN]
    # Reference slopes through the smallest point: linear and quadratic in the subtasks.
    x0, y0 = s[0]
    lin = [(x, y0 * x / x0) for x in xs]
    quad = [(x, y0 * (x / x0) ** 2) for x in xs]
    ys += [y for _, y in quad] + [y for _, y in lin]
    c = Chart("Wall time against parallelism (4 stages, rebalance, 10 MB/s per source)",
              "subtasks (4 x P)", YLABEL,
              (min(xs), max(xs)), (min(ys), max(ys)))
    c.axes()
    c.line(lin, "#999", "3,3", 1)
    c.line(quad, "#555", "8,4", 1)
    c.series(s, COLORS[0], [f"P={x // 4}" for x, _ in s])
    c.hline(TARGET_S_PER_MIN, "target: 5 min/h", "#e08000")
    c.legend([("measured", COLORS[0], None), ("~ subtasks", "#999", "3,3"),
              ("~ subtasks\u00b2", "#555", "8,4")])
    c.note("Rebalance is all-to-all: 3 P\u00b2 channels. Dotted and dashed lines: linear and "
           "quadratic growth from the smallest point.",
           "Median of the repetitions in scale.csv, normalised to one simulated minute. One core "
           "of a shared 2-vCPU VM; see bench/README.md, Scale.")
    c.write(out)
    return True


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    path = sys.argv[1] if len(sys.argv) > 1 else os.path.join(here, "scale.csv")
    points = load(path)
    outdir = os.path.dirname(os.path.abspath(path))
    for name, fn in (("wall_vs_volume.svg", volume_chart),
                     ("wall_vs_parallelism.svg", parallelism_chart)):
        out = os.path.join(outdir, name)
        print(("wrote " if fn(points, out) else "not enough rows for ") + out)


if __name__ == "__main__":
    main()
