#!/usr/bin/env python3
"""The transfer benchmark's table and plot (bench/transfer_bench.sh OUT).
Standard library only.

Usage: bench/transfer_table.py OUT [--svg FILE]
       bench/transfer_table.py --compact RUN_DIR

--compact keeps of one finished program-seed (OUT/runs/PROGRAM.sSEED) what
the table reads: runs.csv, the solvers' JSON summaries and the convergence
rows where a best changed (with each solver's first and last); the logs,
workloads and clusters go. A compacted run is a few tens of kilobytes, so
the results of every session can be kept in the repository
(bench/results/transfer/).

Per held-out program (seed 1, or the median over seeds where several ran),
in simulated latency with normalised return beside it:
  (a) the zero-shot policy's speed-up over the heuristic and its seconds;
  (b) the agent from the pretrained network ("warm"), from a fresh network
      ("zero"), ES and BRKGA at 30, 150 and 600 s (each 600-s run's best so
      far at that time, from its progress lines);
  (c) when the warm agent first reached the zero agent's 600-s result (the
      median over seeds counts a seed that never did as later than any
      time);
  (d) both agents without learning (learn=0) at 150 s.
Then the counts against the transfer targets: the median over programs of
warm@150 against zero@600, the programs where warm@150 is at or above
max(ES, BRKGA)@150, and where the policy beats the heuristic within 5 s.
"""
import csv
import glob
import json
import math
import os
import shutil
import statistics
import sys

POINTS = (30, 150, 600)
AGENTS = {"warm": "muzero", "zero": "muzero:network=none"}
SEARCHES = ("es", "brkga")
NO_LEARNING = {"warm learn=0": "muzero:learn=0",
               "zero learn=0": "muzero:network=none,learn=0"}


def tag(solver):
    """agent_matrix.sh's file-name form of a solver spec."""
    return "".join("_" if c in ":=,/" else c for c in solver)


class Run:
    """One solver's run: its final summary and its best-so-far curve."""

    def __init__(self, summary, curve):
        self.summary = summary
        self.curve = curve  # [(seconds, best normalised return)]
        nr = summary["normalised_return"]
        # The game's latency = all-slow latency - return, return = nr * max
        # return. The simulated latency (what users read: loops and
        # branches of a real program counted) is known exactly only for
        # the final answer; points on the curve scale the game's latency by
        # the final answer's simulated / game ratio (1 where the program
        # has neither).
        self.max_return = summary["return_us"] / nr if nr > 0 else None
        game = summary.get("latency_us") or 0
        self.simulated_per_game = (summary["simulated_latency_us"] / game
                                   if game > 0 else 1.0)

    def latency_at(self, seconds):
        """The simulated latency of the best answer by `seconds` (exact at
        or past the run's end); None before the first."""
        if seconds >= self.summary["wall_seconds"] - 1:
            return self.summary["simulated_latency_us"]
        best = None
        for elapsed, nr in self.curve:
            if elapsed <= seconds:
                best = nr
        return None if best is None else self.latency_of(best)

    def latency_of(self, nr):
        """The simulated latency of an answer of normalised return `nr` on
        the curve (the game's latency, scaled)."""
        if self.max_return is None:
            return self.summary["simulated_latency_us"]
        game = self.summary["all_slow_latency_us"] - nr * self.max_return
        return game * self.simulated_per_game

    def first_reaching(self, latency_us):
        """When the run's best first got to `latency_us` or faster."""
        for elapsed, nr in self.curve:
            if self.latency_of(nr) <= latency_us * (1 + 1e-12):
                return elapsed
        if self.summary["simulated_latency_us"] <= latency_us * (1 + 1e-12):
            return self.summary["wall_seconds"]
        return None


def read_runs(out):
    """runs[(program, seed)][solver] = Run."""
    runs = {}
    for run_dir in sorted(glob.glob(os.path.join(out, "runs", "*"))):
        name = os.path.basename(run_dir)
        program, _, seed = name.rpartition(".s")
        curves = {}
        path = os.path.join(run_dir, "convergence.csv")
        if os.path.exists(path):
            with open(path) as f:
                for row in csv.DictReader(f):
                    solver = row["solver"].rsplit(" seed ", 1)[0]
                    curves.setdefault(solver, []).append(
                        (float(row["elapsed_seconds"]),
                         float(row["best_normalised_return"])))
        path = os.path.join(run_dir, "runs.csv")
        if not os.path.exists(path):
            continue
        with open(path) as f:
            for row in csv.DictReader(f):
                solver = row["solver"]
                summary_path = os.path.join(
                    run_dir, "logs",
                    f'{program}.b{row["budget_seconds"]}.s{seed}.{tag(solver)}.json')
                with open(summary_path) as s:
                    summary = json.load(s)
                runs.setdefault((program, int(seed)), {})[solver] = Run(
                    summary, curves.get(solver, []))
    return runs


def median_or_none(values):
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def per_program(runs):
    """rows[program] = figures, medians over the seeds that ran."""
    by_program = {}
    for (program, seed), solvers in runs.items():
        by_program.setdefault(program, []).append(solvers)
    rows = {}
    for program, seeds in by_program.items():
        row = {"seeds": len(seeds)}
        any_run = next(iter(seeds[0].values()))
        heuristic = any_run.summary["heuristic_latency_us"]
        row["heuristic_us"] = heuristic
        row["buffers"] = any_run.summary["buffers"]

        def latency(solver, seconds, runs_of_seed):
            run = runs_of_seed.get(solver)
            return None if run is None else run.latency_at(seconds)

        policy = [s.get("policy") for s in seeds]
        row["policy_us"] = median_or_none(
            [p.summary["simulated_latency_us"] for p in policy if p])
        row["policy_s"] = median_or_none(
            [p.summary["wall_seconds"] for p in policy if p])
        row["policy_nr"] = median_or_none(
            [p.summary["normalised_return"] for p in policy if p])
        for name, solver in list(AGENTS.items()) + [(s, s) for s in SEARCHES]:
            for t in POINTS:
                row[f"{name}@{t}"] = median_or_none(
                    [latency(solver, t, s) for s in seeds])
            row[f"{name}_nr"] = median_or_none(
                [s[solver].summary["normalised_return"]
                 for s in seeds if solver in s])
        for name, solver in NO_LEARNING.items():
            row[name] = median_or_none(
                [s[solver].summary["simulated_latency_us"]
                 for s in seeds if solver in s])
        reach = []
        for s in seeds:
            if "muzero" in s and AGENTS["zero"] in s:
                target = s[AGENTS["zero"]].summary["simulated_latency_us"]
                reach.append(s["muzero"].first_reaching(target))
        # A seed that never reaches it counts as later than any time, so
        # the median says "no" only when most seeds never do.
        reached = statistics.median(
            [math.inf if r is None else r for r in reach]) if reach else None
        row["reach_s"] = (None if reached is None or math.isinf(reached)
                          else reached)
        rows[program] = row
    return rows


def speedup(heuristic, latency):
    return None if latency is None else heuristic / latency


def cell(heuristic, latency):
    s = speedup(heuristic, latency)
    return "–" if s is None else f"{s:.4f}x"


def print_table(rows):
    print("| program | buffers | seeds | heuristic | policy (s) | "
          + " | ".join(f"{n}@{t}" for n in ("warm", "zero", "es", "brkga")
                        for t in POINTS)
          + " | warm reaches zero@600 | warm learn=0 | zero learn=0 |")
    print("|---|---:|---:|---:|---:|" + "---:|" * 12 + "---:|---:|---:|")
    for program, r in sorted(rows.items()):
        h = r["heuristic_us"]
        policy = (f'{cell(h, r["policy_us"])} ({r["policy_s"]:.1f} s)'
                  if r["policy_us"] else "–")
        cells = [cell(h, r[f"{n}@{t}"])
                 for n in ("warm", "zero", "es", "brkga") for t in POINTS]
        reach = f'{r["reach_s"]:.0f} s' if r["reach_s"] is not None else "no"
        print(f'| {program} | {r["buffers"]} | {r["seeds"]} | {h:.1f} us | '
              f'{policy} | ' + " | ".join(cells) +
              f' | {reach} | {cell(h, r["warm learn=0"])} | '
              f'{cell(h, r["zero learn=0"])} |')
    print()
    print("(speed-up over the heuristic's simulated latency; higher is "
          "better)")


def print_done_when(rows):
    ratios, at_or_above, policy_wins, counted = [], 0, 0, 0
    for r in rows.values():
        if r["warm@150"] is None or r["zero@600"] is None:
            continue
        counted += 1
        ratios.append(r["zero@600"] / r["warm@150"])
        searches = [r[f"{s}@150"] for s in SEARCHES if r[f"{s}@150"]]
        if searches and r["warm@150"] <= min(searches) * (1 + 1e-9):
            at_or_above += 1
        if (r["policy_us"] is not None and r["policy_s"] <= 5
                and r["policy_us"] < r["heuristic_us"]):
            policy_wins += 1
    if not counted:
        print("no complete program yet")
        return
    print(f"programs: {counted}")
    print(f"median over programs of zero@600 latency / warm@150 latency: "
          f"{statistics.median(ratios):.5f} (>= 1: warm at 150 s is at "
          f"least as fast as zero at 600 s)")
    print(f"warm@150 at or above max(ES, BRKGA)@150: {at_or_above} of "
          f"{counted}")
    print(f"zero-shot policy faster than the heuristic within 5 s: "
          f"{policy_wins} of {counted}")


def write_svg(rows, path):
    """Small multiples: speed-up over the heuristic at 30, 150 and 600 s,
    one panel per program, a line per solver."""
    colors = {"warm": "#f28e2b", "zero": "#b07aa1", "es": "#4e79a7",
              "brkga": "#59a14f"}
    programs = sorted(rows)
    cols = 5
    panel_w, panel_h, pad = 200, 150, 40
    n_rows = math.ceil(len(programs) / cols)
    width = cols * (panel_w + pad) + pad
    height = n_rows * (panel_h + pad * 2) + pad * 2
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" '
             f'height="{height}" font-family="sans-serif" font-size="10">',
             f'<rect width="{width}" height="{height}" fill="white"/>']
    xs = {t: i / (len(POINTS) - 1) for i, t in enumerate(POINTS)}
    for k, program in enumerate(programs):
        r = rows[program]
        x0 = pad + (k % cols) * (panel_w + pad)
        y0 = pad + (k // cols) * (panel_h + pad * 2)
        series = {n: [speedup(r["heuristic_us"], r[f"{n}@{t}"])
                      for t in POINTS] for n in colors}
        values = [v for s in series.values() for v in s if v] or [1.0]
        lo, hi = min(values + [1.0]), max(values)
        hi = hi if hi > lo else lo + 1e-3
        def y(v):
            return y0 + panel_h - (v - lo) / (hi - lo) * panel_h
        parts.append(f'<rect x="{x0}" y="{y0}" width="{panel_w}" '
                     f'height="{panel_h}" fill="none" stroke="#ccc"/>')
        parts.append(f'<text x="{x0}" y="{y0 - 6}">{program[:34]}</text>')
        parts.append(f'<text x="{x0 - 4}" y="{y0 + 8}" text-anchor="end">'
                     f'{hi:.3f}x</text>')
        parts.append(f'<text x="{x0 - 4}" y="{y0 + panel_h}" '
                     f'text-anchor="end">{lo:.3f}x</text>')
        for t in POINTS:
            parts.append(f'<text x="{x0 + xs[t] * panel_w}" '
                         f'y="{y0 + panel_h + 12}" text-anchor="middle">'
                         f'{t} s</text>')
        for name, values in series.items():
            points = [f"{x0 + xs[t] * panel_w:.1f},{y(v):.1f}"
                      for t, v in zip(POINTS, values) if v]
            if points:
                parts.append(f'<polyline points="{" ".join(points)}" '
                             f'fill="none" stroke="{colors[name]}" '
                             f'stroke-width="2"/>')
    legend_y = height - pad
    for i, (name, color) in enumerate(colors.items()):
        label = {"warm": "agent, pretrained start", "zero":
                 "agent, fresh network", "es": "ES", "brkga": "BRKGA"}[name]
        parts.append(f'<rect x="{pad + i * 170}" y="{legend_y}" width="12" '
                     f'height="12" fill="{color}"/>')
        parts.append(f'<text x="{pad + i * 170 + 16}" y="{legend_y + 10}">'
                     f'{label}</text>')
    parts.append("</svg>")
    with open(path, "w") as f:
        f.write("\n".join(parts) + "\n")


def compact(run_dir):
    """Reduces a finished run directory to what read_runs needs."""
    path = os.path.join(run_dir, "convergence.csv")
    if os.path.exists(path):
        with open(path) as f:
            reader = csv.DictReader(f)
            fields, rows = reader.fieldnames, list(reader)
        kept, last_best, last_row = [], {}, {}
        for row in rows:
            solver = row["solver"]
            if last_best.get(solver) != row["best_normalised_return"]:
                kept.append(row)
                last_best[solver] = row["best_normalised_return"]
            last_row[solver] = row
        for row in last_row.values():
            if row not in kept:
                kept.append(row)
        kept.sort(key=lambda r: (r["solver"], float(r["elapsed_seconds"])))
        with open(path, "w", newline="") as f:
            writer = csv.DictWriter(f, fieldnames=fields)
            writer.writeheader()
            writer.writerows(kept)
    for sub in ("workloads", "clusters"):
        shutil.rmtree(os.path.join(run_dir, sub), ignore_errors=True)
    for log in glob.glob(os.path.join(run_dir, "logs", "*.log")):
        os.remove(log)


def main():
    args = sys.argv[1:]
    if len(args) == 2 and args[0] == "--compact":
        compact(args[1])
        return
    if not args or args[0].startswith("-"):
        sys.exit(__doc__)
    out = args[0]
    rows = per_program(read_runs(out))
    print_table(rows)
    print()
    print_done_when(rows)
    if "--svg" in args:
        write_svg(rows, args[args.index("--svg") + 1])


if __name__ == "__main__":
    main()
