#!/usr/bin/env python3
"""Imports every module of the real-program corpus and prints the table of
docs/hlo-import.md: instructions, buffers, loops (with trip counts),
warnings, peak live bytes against the fast memory, and whether the module
is held out of training.

Usage: bench/real_programs/corpus_table.py [--bin build/bin] [--hardware tpu-v4i]
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def read_modules():
    modules = []
    with open(os.path.join(HERE, "modules.tsv")) as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            name, trips = line.rstrip("\n").split("\t")
            modules.append((name, "" if trips == "-" else trips))
    return modules


def read_held_out():
    with open(os.path.join(HERE, "held_out.txt")) as f:
        return {l.strip() for l in f if l.strip() and not l.startswith("#")}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bin", default=os.path.join(ROOT, "build", "bin"))
    parser.add_argument("--hardware", default="tpu-v4i")
    args = parser.parse_args()
    held_out = read_held_out()
    print("| module | instructions | buffers | loops (trips) | alias groups "
          "| copies added | warnings | peak live / memory | held out |")
    print("| --- | ---: | ---: | --- | ---: | ---: | ---: | ---: | --- |")
    with tempfile.TemporaryDirectory() as tmp:
        for name, trips in read_modules():
            out = os.path.join(tmp, "w.json")
            command = [os.path.join(args.bin, "mmapctl"), "import",
                       os.path.join(ROOT, "testdata", "hlo", name),
                       "--hardware", args.hardware, "--out", out]
            if trips:
                command += ["--trip-counts", trips]
            run = subprocess.run(command, capture_output=True, text=True)
            if run.returncode != 0:
                print(f"{name}: import failed: {run.stderr}", file=sys.stderr)
                return 1
            summary = run.stdout.splitlines()[0]
            peak = summary.split("=")[-1].split("x memory")[0].strip()
            with open(out) as f:
                workload = json.load(f)
            p = workload["provenance"]
            # Each while (the one-trip loops of its body and of a
            # conditional's branch aside).
            loops = [l for l in workload.get("loops", [])
                     if not l["name"].endswith(("/body", "/branch"))]
            trip_counts = sorted({int(l["trip_count"]) for l in loops})
            loop_text = (f"{len(loops)} ({', '.join(map(str, trip_counts))})"
                         if loops else "0")
            copies = int(p.get("loop_copies", 0)) + int(p.get("in_place_copies", 0))
            print(f"| {name.removesuffix('.hlo')} | {p['instructions']} "
                  f"| {p['buffers']} | {loop_text} | {p['alias_groups']} "
                  f"| {copies} | {p['warnings']} | {peak}x "
                  f"| {'yes' if name in held_out else ''} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
