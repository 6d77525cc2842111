#!/usr/bin/env python3
"""The table of bench/arms_bench.sh: per arm and seed the simulated latency
(speed-up over the heuristic, normalised return), the arm's median latency
and its ratio to the first arm's (same run), and for MuZero arms the
learner's steps and its mean loss over a window of steps (the learner logs
one line per checkpoint with the mean loss since the previous one).

  bench/arms_table.py OUT [--loss-step 2000]
"""

import argparse
import glob
import json
import os
import re
import statistics
import sys

CASE = re.compile(r"^(?P<arm>.+)\.s(?P<seed>\d+)$")
FIELD = re.compile(r'(\w+)=("[^"]*"|\S+)')


def learner_figures(log_path, loss_step):
    """(last step, mean loss of the window ending at loss_step) or Nones."""
    if not os.path.exists(log_path):
        return None, None
    last_step, loss = None, None
    with open(log_path, encoding="utf-8") as f:
        for line in f:
            fields = dict(FIELD.findall(line))
            if "step" not in fields:
                continue
            step = int(fields["step"])
            if fields.get("event") == "job_stopped":
                last_step = step
            if (fields.get("event") == "training_progress" and
                    step == loss_step and "loss" in fields):
                loss = float(fields["loss"])
    return last_step, loss


def read_cases(out, loss_step):
    """{arm: {seed: figures}} in the order the arms first appear on disk."""
    arms = {}
    for case_dir in sorted(glob.glob(os.path.join(out, "*.s*"))):
        match = CASE.match(os.path.basename(case_dir))
        if not match or not os.path.exists(os.path.join(case_dir, "done")):
            continue
        summaries = glob.glob(os.path.join(case_dir, "logs", "*.json"))
        if not summaries:
            continue
        with open(summaries[0], encoding="utf-8") as f:
            summary = json.load(f)
        stem = summaries[0][:-len(".json")]
        steps, loss = learner_figures(stem + ".learner.log", loss_step)
        arms.setdefault(match["arm"], {})[int(match["seed"])] = {
            "latency_us": summary["simulated_latency_us"],
            "speedup": summary["speedup_over_heuristic"],
            "normalised_return": summary["normalised_return"],
            "steps": steps,
            "loss": loss,
        }
    return arms


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out")
    parser.add_argument("--loss-step", type=int, default=2000)
    parser.add_argument("--first", help="the arm the ratios are against "
                        "(default: the first in name order)")
    args = parser.parse_args()
    arms = read_cases(args.out, args.loss_step)
    if not arms:
        print(f"arms_table.py: no finished case in {args.out}", file=sys.stderr)
        return 1
    seeds = sorted({s for cases in arms.values() for s in cases})
    first = args.first or next(iter(arms))
    if first not in arms:
        print(f"arms_table.py: no arm '{first}' in {args.out}", file=sys.stderr)
        return 1
    base = statistics.median(c["latency_us"] for c in arms[first].values())
    print(f"| arm | {' | '.join(f'seed {s}' for s in seeds)} | median latency"
          f" | / {first} | learner steps | loss at step {args.loss_step} |")
    print("|---|" + "---|" * len(seeds) + "---:|---:|---|---|")
    order = [first] + [a for a in arms if a != first]
    for arm in order:
        cases = arms[arm]
        cells = []
        for s in seeds:
            c = cases.get(s)
            cells.append("–" if c is None else
                         f"{c['latency_us'] / 1000:.3f} ms ({c['speedup']:.4f}x,"
                         f" {c['normalised_return']:.6f})")
        median = statistics.median(c["latency_us"] for c in cases.values())
        steps = [str(c["steps"]) for c in cases.values() if c["steps"]]
        losses = [f"{c['loss']:.3f}" for c in cases.values() if c["loss"]]
        print(f"| {arm} | {' | '.join(cells)} | {median / 1000:.3f} ms"
              f" | {median / base:.5f} | {', '.join(steps) or '–'}"
              f" | {' / '.join(losses) or '–'} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
