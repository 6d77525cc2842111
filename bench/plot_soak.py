#!/usr/bin/env python3
"""Reads bench/soak.sh's CSV (elapsed_s, service, pid, rss_kib, open_files),
draws resident memory over time per service as an SVG, and prints a
Markdown table: per service, RSS and open files after the warm-up and at
the end, and the growth in between. Standard library only.

Usage: bench/plot_soak.py soak.csv soak.svg [--warmup-seconds 600]
"""
import argparse
import csv
import os

COLORS = ["#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2", "#edc948",
          "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac"]


def read(path):
    """{service: [(elapsed_s, rss_kib, open_files), ...]} sorted by time."""
    series = {}
    with open(path) as f:
        for row in csv.DictReader(f):
            series.setdefault(row["service"], []).append(
                (int(row["elapsed_s"]), int(row["rss_kib"]),
                 int(row["open_files"])))
    for points in series.values():
        points.sort()
    return series


def at_or_after(points, t):
    for point in points:
        if point[0] >= t:
            return point
    return points[-1]


def summary(series, warmup):
    lines = ["| service | RSS after warm-up (MiB) | RSS at end (MiB) | growth "
             "| open files after warm-up | at end |",
             "|---|---:|---:|---:|---:|---:|"]
    for name in sorted(series):
        points = series[name]
        first, last = at_or_after(points, warmup), points[-1]
        growth = (last[1] - first[1]) / first[1] if first[1] else 0.0
        lines.append(f"| {name} | {first[1] / 1024:.0f} | {last[1] / 1024:.0f} "
                     f"| {growth:+.1%} | {first[2]} | {last[2]} |")
    return "\n".join(lines)


def svg(series, path):
    width, height, left, bottom, top, right = 720, 400, 70, 40, 20, 170
    t_max = max(p[0] for points in series.values() for p in points) or 1
    r_max = max(p[1] for points in series.values() for p in points) / 1024
    r_max = r_max * 1.1 or 1
    x = lambda t: left + (width - left - right) * t / t_max
    y = lambda r: height - bottom - (height - bottom - top) * r / r_max
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" '
           f'height="{height}" font-family="sans-serif" font-size="12">',
           f'<rect width="{width}" height="{height}" fill="white"/>',
           f'<line x1="{left}" y1="{y(0)}" x2="{width - right}" y2="{y(0)}" '
           'stroke="black"/>',
           f'<line x1="{left}" y1="{y(0)}" x2="{left}" y2="{top}" '
           'stroke="black"/>',
           f'<text x="{(left + width - right) / 2}" y="{height - 8}" '
           'text-anchor="middle">minutes</text>',
           f'<text x="14" y="{top + (height - bottom - top) / 2}" '
           f'transform="rotate(-90 14 {top + (height - bottom - top) / 2})" '
           'text-anchor="middle">RSS (MiB)</text>']
    for i in range(5):
        t = t_max * i / 4
        r = r_max * i / 4
        out.append(f'<text x="{x(t)}" y="{y(0) + 16}" text-anchor="middle">'
                   f'{t / 60:.0f}</text>')
        out.append(f'<text x="{left - 6}" y="{y(r) + 4}" text-anchor="end">'
                   f'{r:.0f}</text>')
    for i, name in enumerate(sorted(series)):
        color = COLORS[i % len(COLORS)]
        points = " ".join(f"{x(t):.1f},{y(r / 1024):.1f}"
                          for t, r, _ in series[name])
        out.append(f'<polyline points="{points}" fill="none" '
                   f'stroke="{color}" stroke-width="2"/>')
        ly = top + 16 * i + 10
        out.append(f'<line x1="{width - right + 10}" y1="{ly}" '
                   f'x2="{width - right + 30}" y2="{ly}" stroke="{color}" '
                   'stroke-width="2"/>')
        out.append(f'<text x="{width - right + 36}" y="{ly + 4}">{name}</text>')
    out.append("</svg>")
    with open(path, "w") as f:
        f.write("\n".join(out) + "\n")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("csv")
    parser.add_argument("svg")
    parser.add_argument("--warmup-seconds", type=int, default=600)
    args = parser.parse_args()
    series = read(args.csv)
    if not series:
        raise SystemExit(f"{args.csv}: no samples")
    svg(series, args.svg)
    print(f"Machine: {os.cpu_count()} cores. Samples every interval; "
          f"warm-up {args.warmup_seconds} s.\n")
    print(summary(series, args.warmup_seconds))


if __name__ == "__main__":
    main()
