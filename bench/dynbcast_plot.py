#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""dynbcast_plot.py CSV SVG: the paper's Figure 2 from bench/dynbcast_simgrid.sh's results:
gain of dynamic broadcasts over point-to-point (GFlop/s improvement, %) against the matrix
size, one curve per node count, with axes, ticks, a zero line, a legend and a title."""
import csv
import sys
from html import escape

COLOURS = ["#1b9e77", "#d95f02", "#7570b3", "#e7298a", "#66a61e", "#e6ab02"]
W, H, LEFT, RIGHT, TOP, BOTTOM = 720, 440, 70, 150, 50, 60


def nice_ticks(lo, hi, count=6):
    span = hi - lo or 1.0
    raw = span / count
    step = min((s * 10 ** e for e in range(-3, 7) for s in (1, 2, 5) if s * 10 ** e >= raw))
    first = int(lo // step) * step
    ticks, t = [], first
    while t <= hi + step * 1e-9:
        if t >= lo - step * 1e-9:
            ticks.append(round(t, 10))
        t += step
    return ticks


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: dynbcast_plot.py RESULTS.csv OUT.svg")
    rows = list(csv.DictReader(open(sys.argv[1])))
    if not rows:
        sys.exit(f"dynbcast_plot.py: {sys.argv[1]} has no results")
    curves = {}
    for r in rows:
        curves.setdefault(int(r["nodes"]), []).append((int(r["n"]), float(r["gain_percent"])))
    xs = [x for c in curves.values() for x, _ in c]
    ys = [y for c in curves.values() for _, y in c] + [0.0]
    x_lo, x_hi = min(xs), max(xs)
    if x_lo == x_hi:
        x_lo, x_hi = x_lo * 0.9, x_hi * 1.1
    y_lo, y_hi = min(ys), max(ys)
    pad = (y_hi - y_lo) * 0.08 or 1.0
    y_lo, y_hi = y_lo - pad, y_hi + pad
    pw, ph = W - LEFT - RIGHT, H - TOP - BOTTOM

    def px(x):
        return LEFT + (x - x_lo) / (x_hi - x_lo) * pw

    def py(y):
        return TOP + (y_hi - y) / (y_hi - y_lo) * ph

    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" '
           f'font-family="sans-serif" font-size="12">',
           f'<rect width="{W}" height="{H}" fill="white"/>',
           f'<text x="{LEFT + pw / 2}" y="24" text-anchor="middle" font-size="15">'
           f'{escape("Cholesky: dynamic broadcasts against point-to-point (simulated)")}</text>']
    for t in nice_ticks(y_lo, y_hi):
        out.append(f'<line x1="{LEFT}" x2="{LEFT + pw}" y1="{py(t):.1f}" y2="{py(t):.1f}" '
                   f'stroke="{"#444" if t == 0 else "#ddd"}"/>')
        out.append(f'<text x="{LEFT - 6}" y="{py(t) + 4:.1f}" text-anchor="end">{t:g}</text>')
    for t in sorted(set(xs)):
        out.append(f'<line x1="{px(t):.1f}" x2="{px(t):.1f}" y1="{TOP + ph}" y2="{TOP + ph + 5}" '
                   f'stroke="#444"/>')
        out.append(f'<text x="{px(t):.1f}" y="{TOP + ph + 18}" text-anchor="middle">{t}</text>')
    out.append(f'<rect x="{LEFT}" y="{TOP}" width="{pw}" height="{ph}" fill="none" stroke="#444"/>')
    out.append(f'<text x="{LEFT + pw / 2}" y="{H - 18}" text-anchor="middle">'
               f'matrix size n (tile {escape(rows[0]["b"])})</text>')
    out.append(f'<text transform="translate(18 {TOP + ph / 2}) rotate(-90)" text-anchor="middle">'
               f'gain in GFlop/s over point-to-point (%)</text>')
    for i, (nodes, points) in enumerate(sorted(curves.items())):
        colour = COLOURS[i % len(COLOURS)]
        points.sort()
        path = " ".join(f"{px(x):.1f},{py(y):.1f}" for x, y in points)
        out.append(f'<polyline points="{path}" fill="none" stroke="{colour}" stroke-width="2"/>')
        for x, y in points:
            out.append(f'<circle cx="{px(x):.1f}" cy="{py(y):.1f}" r="3.5" fill="{colour}">'
                       f'<title>{nodes} nodes, n={x}: {y:+.1f} %</title></circle>')
        ly = TOP + 10 + 20 * i
        out.append(f'<line x1="{LEFT + pw + 15}" x2="{LEFT + pw + 40}" y1="{ly}" y2="{ly}" '
                   f'stroke="{colour}" stroke-width="2"/>')
        out.append(f'<text x="{LEFT + pw + 46}" y="{ly + 4}">{nodes} nodes</text>')
    out.append("</svg>")
    with open(sys.argv[2], "w") as f:
        f.write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
