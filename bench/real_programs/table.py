#!/usr/bin/env python3
"""The real-program benchmark's result files and table (bench/real_program_bench.sh).

  table.py OUT [--budget 60] [--plot FILE.svg] [--solvers "es brkga race muzero"]
      the table over every module's result file of that budget: per module
      the heuristic's simulated latency and each solver's speed-up over it
      (heuristic latency / solver latency), the gap to the optimality bound
      where it was computed; then per solver the geometric-mean speed-up,
      how many modules improve by at least 1 %, and the largest speed-up.
  table.py --write-result FILE --module M --budget B --threads T
      --workload-log LOG --bound BOUND.json --rows ROWS
      writes one module's result file from its runs' JSON summaries.
  table.py --describe FILE   one line about one module's result.

Standard library only.
"""
import argparse
import datetime
import glob
import json
import math
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
LABELS = {"heuristic": "heuristic", "es": "ES", "brkga": "BRKGA",
          "race": "race", "muzero": "mmapzero"}
COLORS = {"es": "#4e79a7", "brkga": "#59a14f", "race": "#76b7b2",
          "muzero": "#f28e2b"}


def held_out():
    with open(os.path.join(HERE, "held_out.txt")) as f:
        return {l.strip() for l in f if l.strip() and not l.startswith("#")}


def write_result(args):
    result = {
        "module": args.module,
        "budget_seconds": args.budget,
        "threads": args.threads,
        "cores": os.cpu_count(),
        "date": datetime.datetime.now(datetime.timezone.utc).strftime(
            "%Y-%m-%dT%H:%M:%SZ"),
        "held_out": args.module in held_out(),
        "solvers": {},
    }
    if os.path.exists(args.workload_log):
        # The import's summary line (warnings may come before it).
        with open(args.workload_log) as f:
            for line in f:
                m = re.search(r"(\d+) buffers, (\d+) instructions", line)
                if m:
                    result["buffers"] = int(m.group(1))
                    result["instructions"] = int(m.group(2))
                    break
    with open(args.rows) as f:
        for line in f:
            solver, path = line.split()
            if path == "FAILED":
                result["solvers"][solver] = {"failed": True}
                continue
            with open(path) as g:
                summary = json.loads(g.read().strip().splitlines()[-1])
            settings = summary.get("settings", {})
            row = {k: summary[k] for k in (
                "simulated_latency_us", "heuristic_latency_us",
                "speedup_over_heuristic", "normalised_return", "latency_us",
                "all_slow_latency_us", "wall_seconds") if k in summary}
            for key in ("evaluations", "found_by", "cluster_start_seconds",
                        "winner"):
                if key in settings:
                    row[key] = settings[key]
            result["solvers"][solver] = row
            result["heuristic_latency_us"] = summary["heuristic_latency_us"]
            result["all_slow_latency_us"] = summary["all_slow_latency_us"]
    try:
        with open(args.bound) as f:
            bound = json.load(f)
    except (OSError, ValueError):
        bound = {"failed": True}
    if not bound.get("failed") and "bound_return_us" in bound:
        result["bound"] = {
            "normalised_return": bound["bound_normalised_return"],
            "return_us": bound["bound_return_us"],
            "exact": bound["exact"],
            "seconds": bound["seconds"],
        }
        if "all_slow_latency_us" in result:
            # No valid solution's latency is below all-slow minus the bound.
            result["bound"]["latency_us"] = (
                result["all_slow_latency_us"] - bound["bound_return_us"])
    tmp = args.write_result + ".tmp"
    with open(tmp, "w") as f:
        json.dump(result, f, indent=1)
        f.write("\n")
    os.replace(tmp, args.write_result)


def speedup(result, solver):
    row = result["solvers"].get(solver, {})
    if row.get("failed") or not row.get("simulated_latency_us"):
        return None
    return result["heuristic_latency_us"] / row["simulated_latency_us"]


def fmt_latency(us):
    if us < 1e4:
        return f"{us:.1f} us"
    if us < 1e7:
        return f"{us / 1e3:.3f} ms"
    return f"{us / 1e6:.3f} s"


def describe(path):
    with open(path) as f:
        result = json.load(f)
    parts = [f"heuristic {fmt_latency(result.get('heuristic_latency_us', 0))}"]
    for solver in result["solvers"]:
        if solver == "heuristic":
            continue
        s = speedup(result, solver)
        parts.append(f"{LABELS.get(solver, solver)} "
                     + ("FAILED" if s is None else f"{s:.4f}x"))
    return ", ".join(parts)


def load(out, budget):
    results = []
    for path in sorted(glob.glob(os.path.join(out, "results",
                                              f"*.b{budget}.json"))):
        with open(path) as f:
            results.append(json.load(f))
    return results


def table(results, solvers):
    lines = []
    head = ["module", "buffers", "heuristic latency"] + [
        LABELS.get(s, s) for s in solvers] + ["bound gap of the best"]
    lines.append("| " + " | ".join(head) + " |")
    lines.append("| --- | ---: | ---: | " + " | ".join(
        "---:" for _ in solvers) + " | ---: |")
    per_solver = {s: [] for s in solvers}
    for r in results:
        name = r["module"].removesuffix(".hlo") + (" (held out)"
                                                   if r.get("held_out") else "")
        cells = [name, str(r.get("buffers", "")),
                 fmt_latency(r.get("heuristic_latency_us", 0))]
        best_latency = None
        for s in solvers:
            x = speedup(r, s)
            if x is None:
                cells.append("failed" if s in r["solvers"] else "")
                continue
            per_solver[s].append(x)
            cells.append(f"{x:.4f}x")
            latency = r["solvers"][s]["simulated_latency_us"]
            best_latency = latency if best_latency is None else min(
                best_latency, latency)
        bound = r.get("bound", {})
        if best_latency and bound.get("latency_us", 0) > 0:
            cells.append(f"{best_latency / bound['latency_us'] - 1:.2%}")
        else:
            cells.append("-")
        lines.append("| " + " | ".join(cells) + " |")
    summary = [("geometric mean", lambda xs: f"{math.exp(sum(map(math.log, xs)) / len(xs)):.4f}x"),
               ("modules at least 1 % faster", lambda xs: f"{sum(x >= 1.01 for x in xs)} of {len(xs)}"),
               ("largest speed-up", lambda xs: f"{max(xs):.4f}x")]
    for label, f in summary:
        cells = [f"**{label}**", "", ""]
        for s in solvers:
            xs = per_solver[s]
            cells.append(f(xs) if xs else "")
        cells.append("")
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def plot(results, solvers, path):
    """Speed-up over the heuristic per module, a marker per solver, the
    modules sorted by mmapzero's speed-up (like the paper's Table 3)."""
    key = "muzero" if "muzero" in solvers else solvers[-1]
    rows = [r for r in results if speedup(r, key) is not None]
    rows.sort(key=lambda r: speedup(r, key))
    values = [speedup(r, s) for r in rows for s in solvers
              if speedup(r, s) is not None] or [1.0]
    lo = min(min(values), 1.0)
    hi = max(max(values), 1.0)
    lo, hi = lo - 0.02 * (hi - lo + 1e-9), hi + 0.02 * (hi - lo + 1e-9)
    w, h, left, right, top, bottom = 900, 460, 60, 20, 30, 150
    n = max(1, len(rows))
    def x(i):
        return left + (i + 0.5) * (w - left - right) / n
    def y(v):
        return top + (hi - v) / (hi - lo) * (h - top - bottom)
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" '
           'font-family="sans-serif" font-size="11">',
           f'<rect width="{w}" height="{h}" fill="white"/>',
           f'<line x1="{left}" x2="{w - right}" y1="{y(1):.1f}" y2="{y(1):.1f}" '
           'stroke="#999" stroke-dasharray="4 3"/>',
           f'<text x="{left - 6}" y="{y(1) + 4:.1f}" text-anchor="end">1.00x</text>',
           f'<text x="{left - 6}" y="{y(hi) + 10:.1f}" text-anchor="end">{hi:.2f}x</text>',
           f'<text x="{left - 6}" y="{y(lo):.1f}" text-anchor="end">{lo:.2f}x</text>',
           f'<text x="{left}" y="18" font-size="13">Speed-up of the simulated '
           'latency over the heuristic, per real module</text>']
    for i, r in enumerate(rows):
        name = r["module"].removesuffix(".hlo")
        out.append(f'<text transform="translate({x(i) + 3:.1f},{h - bottom + 8}) '
                   f'rotate(60)" font-size="10">{name}</text>')
        for s in solvers:
            v = speedup(r, s)
            if v is None:
                continue
            color = COLORS.get(s, "#555")
            if s == key:
                out.append(f'<rect x="{x(i) - 4:.1f}" y="{min(y(v), y(1)):.1f}" '
                           f'width="8" height="{abs(y(v) - y(1)):.1f}" '
                           f'fill="{color}" opacity="0.8"/>')
            else:
                out.append(f'<circle cx="{x(i):.1f}" cy="{y(v):.1f}" r="3" '
                           f'fill="none" stroke="{color}" stroke-width="1.5"/>')
    lx = w - right - 110
    for j, s in enumerate(solvers):
        color = COLORS.get(s, "#555")
        out.append(f'<circle cx="{lx}" cy="{top + 12 + 14 * j}" r="4" fill="{color}"/>'
                   f'<text x="{lx + 8}" y="{top + 16 + 14 * j}">{LABELS.get(s, s)}</text>')
    out.append("</svg>")
    with open(path, "w") as f:
        f.write("\n".join(out) + "\n")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("out", nargs="?")
    parser.add_argument("--budget", default="60")
    parser.add_argument("--solvers", default="es brkga race muzero")
    parser.add_argument("--plot")
    parser.add_argument("--write-result")
    parser.add_argument("--module")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--workload-log")
    parser.add_argument("--bound")
    parser.add_argument("--rows")
    parser.add_argument("--describe")
    args = parser.parse_args()
    if args.write_result:
        args.budget = int(args.budget)
        write_result(args)
        return 0
    if args.describe:
        print(describe(args.describe))
        return 0
    if not args.out:
        parser.error("OUT, --write-result or --describe")
    results = load(args.out, args.budget)
    solvers = args.solvers.split()
    if not results:
        print(f"no results for budget {args.budget} in {args.out}", file=sys.stderr)
        return 1
    print(table(results, solvers))
    if args.plot:
        plot(results, solvers, args.plot)
    return 0


if __name__ == "__main__":
    sys.exit(main())
