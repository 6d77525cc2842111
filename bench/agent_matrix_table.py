#!/usr/bin/env python3
"""The learning benchmark's bookkeeping (bench/agent_matrix.sh). Standard
library only.

  --append-run RUNS.csv --convergence CONV.csv --workload W --budget B
      --seed S --solver SPEC --summary RUN.json --log RUN.log
      adds one run: its result from `mmapctl solve --json` (validated before
      it is printed) and its progress lines, as best return over time.
  --table RUNS.csv [--wide]
      prints, per workload and budget, each solver's median normalised
      return with its range over seeds, and the ratio of the median to the
      better median of ES and BRKGA (--wide: a column per solver, and
      mmapzero's best row against that).
"""
import argparse
import csv
import json
import re
import statistics
import sys

# `mmapctl solve` in process: "  12.0 s  3456 evaluations  best normalised
# return 0.7712  recent 0.7001".
IN_PROCESS = re.compile(
    r"^\s*([\d.]+) s\s+(\d+) evaluations\s+best normalised return ([\d.]+)"
    r"(?:\s+recent ([\d.]+))?")
# On the local cluster: "   12.3 s  running  step 5  games 812  moves/s ...
# best 15.471 ms, 1.0000x over the heuristic (return 0.7005) +" (before
# jobs reported latency: "... best 0.7712 +"). Group 4 or 5: the return.
CLUSTER = re.compile(
    r"^\s*([\d.]+) s\s+\w+\s+step (\d+)\s+games (\d+)\s+moves/s\s+[\d.]+"
    r"\s+best (?:[\d.]+ \w+, [\d.]+x over the heuristic \(return ([\d.]+)\)"
    r"|([\d.]+))")
# The cluster's last line: "... best 0.8074 (heuristic 0.7005), found by X"
# (then "; the agent's own: ..." since jobs report it).
FOUND_BY = re.compile(r"found by ([^;]+)")


def append_run(args):
    with open(args.summary) as f:
        summary = json.load(f)
    series, evaluations, found_by = [], "", ""
    # The combination's seed stage prints in-process lines before the job's:
    # the job's clock starts where the stage's ended, and its games add to
    # the stage's evaluations.
    stage_seconds, stage_evaluations = 0.0, 0
    with open(args.log) as f:
        for line in f:
            line = line.rstrip("\n")
            m = IN_PROCESS.match(line)
            if m:
                series.append((m[1], m[2], m[3], m[4] or ""))
                evaluations = m[2]
                stage_seconds, stage_evaluations = float(m[1]), int(m[2])
                continue
            m = CLUSTER.match(line)
            if m:
                # Complete games stand for evaluations on the cluster.
                evaluations = str(stage_evaluations + int(m[3]))
                series.append((f"{stage_seconds + float(m[1]):.1f}",
                               evaluations, m[4] or m[5], ""))
                continue
            m = FOUND_BY.search(line)
            if m:
                found_by = m[1]
    settings = summary.get("settings", {})
    if "seed_stage_best" in settings:  # the combination on the cluster
        found_by = (f'{settings["found_by"]}; {settings["seed_solver"]} '
                    f'stage {settings["seed_stage_best"]}')
    elif "self_play_best" in settings:
        # The in-process solver keeps its parts apart: `heuristic` is what
        # the seed solver (the heuristic, or BRKGA in the combination)
        # reached, `self_play_best` the agent's own games.
        seeded_by = settings.get("seed_solver", "heuristic")
        found_by = (f'{seeded_by} {settings.get("heuristic", "?")}, '
                    f'own games {settings["self_play_best"]}')
    with open(args.append_run, "a", newline="") as f:
        csv.writer(f).writerow([
            args.workload, summary["buffers"], args.budget, args.seed,
            args.solver, f'{summary["normalised_return"]:.6f}',
            f'{summary["wall_seconds"]:.1f}', evaluations, found_by])
    label = f"{args.solver} seed {args.seed}"
    with open(args.convergence, "a", newline="") as f:
        writer = csv.writer(f)
        for elapsed, evals, best, recent in series:
            writer.writerow([label, args.workload, elapsed, evals, best, recent])
    print(f"  {args.workload} seed {args.seed} {args.solver}: "
          f'{summary["normalised_return"]:.4f} ({evaluations or "-"} games'
          f'{", found by " + found_by if found_by else ""})')


def read_runs(path):
    """(results, buffers, solvers): results[(workload, budget)][solver] is
    the list of normalised returns over seeds, buffers[workload] its buffer
    count, solvers the solver names in first-seen order."""
    results, buffers, solvers = {}, {}, []
    with open(path) as f:
        for row in csv.DictReader(f):
            key = (row["workload"], int(row["budget_seconds"]))
            buffers[row["workload"]] = row["buffers"]
            if row["solver"] not in solvers:
                solvers.append(row["solver"])
            results.setdefault(key, {}).setdefault(row["solver"], []).append(
                float(row["normalised_return"]))
    return results, buffers, solvers


def best_search(medians):
    """The better median of ES and BRKGA, or None when neither ran."""
    search = [medians[s] for s in ("es", "brkga") if s in medians]
    return max(search) if search else None


def table(path):
    results, buffers, _ = read_runs(path)
    print("| workload | buffers | budget | solver | median | range | runs | vs best of ES, BRKGA |")
    print("|---|---:|---:|---|---:|---:|---:|---:|")
    for (workload, budget), by_solver in results.items():
        medians = {s: statistics.median(v) for s, v in by_solver.items()}
        baseline = best_search(medians)
        for solver, values in by_solver.items():
            ratio = (f"{medians[solver] / baseline:.3f}x"
                     if baseline else "–")
            spread = (f"{min(values):.4f}–{max(values):.4f}"
                      if len(values) > 1 else "–")
            print(f"| {workload} | {buffers[workload]} | {budget} s | {solver} "
                  f"| {medians[solver]:.4f} | {spread} | {len(values)} | {ratio} |")


def wide_table(path):
    """One row per workload and budget, a column per solver (median, and
    the range when there are several seeds), then mmapzero's best median
    (any muzero or combination row) against the better of ES and BRKGA."""
    results, buffers, solvers = read_runs(path)
    print("| workload | buffers | budget | " + " | ".join(solvers) +
          " | mmapzero vs best of ES, BRKGA |")
    print("|---|---:|---:|" + "---:|" * len(solvers) + "---:|")
    for (workload, budget), by_solver in results.items():
        medians = {s: statistics.median(v) for s, v in by_solver.items()}
        cells = []
        for solver in solvers:
            values = by_solver.get(solver)
            if not values:
                cells.append("–")
            elif len(values) > 1:
                cells.append(f"{medians[solver]:.4f} ({min(values):.4f}–"
                             f"{max(values):.4f})")
            else:
                cells.append(f"{medians[solver]:.4f}")
        baseline = best_search(medians)
        ours = [m for s, m in medians.items()
                if s.startswith("muzero") or s.startswith("combination")]
        # Five places: a loss by 3e-5 must not print as 1.0000x.
        ratio = (f"{max(ours) / baseline:.5f}x"
                 if baseline and ours else "–")
        print(f"| {workload} | {buffers[workload]} | {budget} s | " +
              " | ".join(cells) + f" | {ratio} |")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--append-run")
    parser.add_argument("--convergence")
    parser.add_argument("--workload")
    parser.add_argument("--budget")
    parser.add_argument("--seed")
    parser.add_argument("--solver")
    parser.add_argument("--summary")
    parser.add_argument("--log")
    parser.add_argument("--table")
    parser.add_argument("--wide", action="store_true",
                        help="with --table: a column per solver")
    args = parser.parse_args()
    if args.table and args.wide:
        wide_table(args.table)
    elif args.table:
        table(args.table)
    elif args.append_run:
        append_run(args)
    else:
        sys.exit("agent_matrix_table.py: give --append-run or --table")


if __name__ == "__main__":
    main()
