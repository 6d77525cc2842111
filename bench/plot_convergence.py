#!/usr/bin/env python3
"""Draws an SVG from `quality_bench --convergence OUT.csv`: best normalised
return over wall time for ES, BRKGA, random play and MuZero on one workload,
like Figure 5 of Wang et al. (2023). MuZero's recent return (mean of its last
self-play games) is drawn dotted in its colour. Standard library only.

Usage: build/bin/quality_bench --convergence /tmp/convergence.csv
       bench/plot_convergence.py /tmp/convergence.csv docs/img/convergence.svg [WORKLOAD [Y_MIN]]
(WORKLOAD: which workload of the CSV to draw; default: the only one.
Y_MIN: the lowest return on the axis, to see the end of close runs; points
below it are drawn on the axis.)
"""
import csv
import math
import sys

COLORS = {"es": "#4e79a7", "brkga": "#59a14f", "random": "#e15759",
          "muzero": "#f28e2b", "muzero:heuristic=0": "#b07aa1",
          "muzero:actors=2": "#9c755f",
          "combination (BRKGA stage)": "#76b7b2",
          "combination (ES stage)": "#edc948"}
LABELS = {"es": "ES", "brkga": "BRKGA", "random": "random play",
          "muzero": "MuZero", "muzero:heuristic=0": "MuZero, own games only",
          "muzero:actors=2": "MuZero, 2 actors"}
# agent_matrix.sh's names for the two combinations.
ALIASES = {"combination": "combination (BRKGA stage)",
           "muzero:seed_solver=brkga": "combination (BRKGA stage)",
           "muzero:seed_solver=es": "combination (ES stage)"}
# Series of no colour above, in order of appearance.
SPARE_COLORS = ["#9c755f", "#ff9da7", "#bab0ac", "#b07aa1", "#17becf",
                "#bcbd22", "#7f7f7f", "#8c564b"]


def style(solver, spare):
    """(colour, label) of a series; agent_matrix.sh's " seed N" suffix
    stays in the label but not in the lookup."""
    base, _, seed = solver.partition(" seed ")
    base = ALIASES.get(base, base)
    label = LABELS.get(base, base) + (f", seed {seed}" if seed else "")
    if base not in COLORS:
        spare.setdefault(base, SPARE_COLORS[len(spare) % len(SPARE_COLORS)])
        return spare[base], label
    return COLORS[base], label


def read_series(path, wanted=None):
    """({solver: [(elapsed, best, evaluations), ...]}, {solver: [(elapsed,
    recent), ...]}, workload), sorted by time, for one workload."""
    series, recent, workloads = {}, {}, []
    with open(path) as f:
        for row in csv.DictReader(f):
            if row["workload"] not in workloads:
                workloads.append(row["workload"])
            if wanted is not None and row["workload"] != wanted:
                continue
            t = float(row["elapsed_seconds"])
            series.setdefault(row["solver"], []).append(
                (t, float(row["best_normalised_return"]), int(row["evaluations"])))
            if row.get("recent_normalised_return"):
                recent.setdefault(row["solver"], []).append(
                    (t, float(row["recent_normalised_return"])))
    if wanted is None and len(workloads) > 1:
        sys.exit(f"{path} holds several workloads ({', '.join(workloads)}): name one")
    if wanted is not None and wanted not in workloads:
        sys.exit(f"{path}: no points for workload '{wanted}'")
    for points in list(series.values()) + list(recent.values()):
        points.sort()
    return series, recent, wanted or (workloads[0] if workloads else "")


def nice_range(lo, hi):
    """Axis bounds and tick step covering [lo, hi] with round numbers."""
    if hi - lo < 1e-9:
        lo, hi = lo - 0.01, hi + 0.01
    raw = (hi - lo) / 5
    step = 10 ** math.floor(math.log10(raw))
    for mult in (1, 2, 5, 10):
        if raw <= mult * step:
            step *= mult
            break
    return math.floor(lo / step) * step, math.ceil(hi / step) * step, step


def main():
    series, recent, workload = read_series(
        sys.argv[1], sys.argv[3] if len(sys.argv) > 3 else None)
    # The legend has two entries a row, below the plot.
    legend_rows = max(2, (len(series) + 1) // 2)
    width, height = 760, 400 + 20 * legend_rows
    left, right, top, bottom = 80, 30, 50, 60 + 20 * legend_rows
    plot_w, plot_h = width - left - right, height - top - bottom
    values = ([b for pts in series.values() for _, b, _ in pts] +
              [r for pts in recent.values() for _, r in pts]) or [0.0, 1.0]
    if len(sys.argv) > 4:
        y_min = float(sys.argv[4])
        values = [v for v in values if v >= y_min] + [y_min]
    t_max = max([t for pts in series.values() for t, _, _ in pts] + [1.0])
    y_lo, y_hi, y_step = nice_range(min(values), max(values))
    # Solvers stop a little after the budget: do not open a new tick for it.
    x_lo, x_hi, x_step = nice_range(0.0, t_max / 1.02)
    x_lo = 0.0

    def x(t):
        return left + plot_w * (t - x_lo) / (x_hi - x_lo)

    def y(v):
        v = min(max(v, y_lo), y_hi)
        return top + plot_h * (1 - (v - y_lo) / (y_hi - y_lo))

    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
           'font-family="sans-serif" font-size="12">',
           f'<rect width="{width}" height="{height}" fill="white"/>',
           f'<text x="{width / 2}" y="24" text-anchor="middle" font-size="15">'
           f'Best normalised return over time on {workload}</text>']
    v = y_lo
    while v <= y_hi + y_step / 2:
        yy = y(v)
        out.append(f'<line x1="{left}" x2="{width - right}" y1="{yy:.1f}" y2="{yy:.1f}" '
                   'stroke="#ddd"/>')
        out.append(f'<text x="{left - 8}" y="{yy + 4:.1f}" text-anchor="end">{v:.3g}</text>')
        v += y_step
    t = x_lo
    while t <= x_hi + x_step / 2:
        xx = x(t)
        out.append(f'<line x1="{xx:.1f}" x2="{xx:.1f}" y1="{top}" y2="{top + plot_h}" '
                   'stroke="#eee"/>')
        out.append(f'<text x="{xx:.1f}" y="{top + plot_h + 18}" text-anchor="middle">'
                   f'{t:g}</text>')
        t += x_step
    out.append(f'<text x="{left + plot_w / 2}" y="{top + plot_h + 40}" '
               'text-anchor="middle">wall time (s)</text>')
    out.append(f'<text x="20" y="{top + plot_h / 2}" text-anchor="middle" '
               f'transform="rotate(-90 20 {top + plot_h / 2})">best normalised return</text>')
    if "heuristic" in series:
        # One game, not a search: a dashed reference line across the plot.
        ref = series.pop("heuristic")[-1][1]
        out.append(f'<line x1="{left}" x2="{width - right}" y1="{y(ref):.1f}" '
                   f'y2="{y(ref):.1f}" stroke="#333" stroke-dasharray="6 4"/>')
        out.append(f'<text x="{width - right - 4}" y="{y(ref) - 6:.1f}" text-anchor="end" '
                   f'fill="#333">heuristic: {ref:.3f}</text>')
    first = ("es", "brkga", "random")  # then the rest by name
    order = sorted(series, key=lambda s: (
        first.index(s.partition(" seed ")[0]) if s.partition(" seed ")[0] in first
        else len(first), s))
    spare = {}
    styles = {solver: style(solver, spare) for solver in order}
    for solver in order:
        color, label = styles[solver]
        # A step line: the best so far holds until the next report.
        path, last = [], None
        for t_i, b, _ in series[solver]:
            if last is not None:
                path.append(f"L{x(t_i):.1f},{y(last):.1f}")
            path.append(("M" if last is None else "L") + f"{x(t_i):.1f},{y(b):.1f}")
            last = b
        out.append(f'<path d="{" ".join(path)}" fill="none" stroke="{color}" '
                   'stroke-width="2"/>')
        for t_i, b, _ in series[solver]:
            out.append(f'<circle cx="{x(t_i):.1f}" cy="{y(b):.1f}" r="2.5" fill="{color}"/>')
        if recent.get(solver):
            dots = " ".join(("M" if i == 0 else "L") + f"{x(t_i):.1f},{y(r):.1f}"
                            for i, (t_i, r) in enumerate(recent[solver]))
            out.append(f'<path d="{dots}" fill="none" stroke="{color}" '
                       'stroke-width="1.5" stroke-dasharray="2 3"/>')
            out.append(f'<text x="{x(recent[solver][-1][0]) - 4:.1f}" '
                       f'y="{y(recent[solver][-1][1]) + 14:.1f}" text-anchor="end" '
                       f'fill="{color}">{label}, recent games</text>')
    for j, solver in enumerate(order):
        color, label = styles[solver]
        lx = left + (j % 2) * 330
        ly = height - 6 - 20 * legend_rows + (j // 2) * 20
        evals = series[solver][-1][2]
        out.append(f'<rect x="{lx}" y="{ly}" width="12" height="12" '
                   f'fill="{color}"/>')
        out.append(f'<text x="{lx + 18}" y="{ly + 10}">'
                   f'{label} ({evals:,} games)</text>')
    out.append('</svg>')
    with open(sys.argv[2], "w") as f:
        f.write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
