#!/usr/bin/env bash
# Compares "arms" (a solver with settings, from a build) on one program at
# equal wall time and threads, seeds interleaved: for each seed every arm
# runs once, in the order given, through bench/agent_matrix.sh (MuZero as
# a job on a fresh local cluster: the user's path). For changes whose
# effect is measured against the code before them (one arm from a build of
# the old commit) or against settings, with ES and BRKGA in the same run.
#
# Resumable: each finished case (arm, seed) is OUT/ARM.sSEED/ with a
# `done` marker; run the same command again to go on. Prints the table
# (bench/arms_table.py) at the end.
#
# Usage:
#   bench/arms_bench.sh --out DIR --arm NAME=BIN_DIR:SOLVER[:key=value,...]
#       [--arm ...] [--program transformer-10000] [--seeds "1 2 3"]
#       [--budget 150] [--threads 2]
# SOLVER[:settings] is an agent_matrix.sh solver spec, e.g. `muzero`,
# `muzero:search.temperature_decay_steps=8000`, `es`, `brkga`.
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
out=""
program="transformer-10000"
seeds="1 2 3"
budget=150
threads=2
arms=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --out) out="$2"; shift 2 ;;
    --arm) arms+=("$2"); shift 2 ;;
    --program) program="$2"; shift 2 ;;
    --seeds) seeds="$2"; shift 2 ;;
    --budget) budget="$2"; shift 2 ;;
    --threads) threads="$2"; shift 2 ;;
    *) echo "arms_bench.sh: unknown argument '$1'" >&2; exit 2 ;;
  esac
done
if [[ -z "$out" || ${#arms[@]} -eq 0 ]]; then
  echo "arms_bench.sh: --out DIR and at least one --arm NAME=BIN_DIR:SOLVER are required" >&2
  exit 2
fi
for arm in "${arms[@]}"; do
  name="${arm%%=*}" rest="${arm#*=}"
  bin="${rest%%:*}"
  if [[ "$arm" != *=*:* || -z "$name" || "$name" == */* ]]; then
    echo "arms_bench.sh: --arm '$arm': expected NAME=BIN_DIR:SOLVER[:settings]" >&2
    exit 2
  fi
  if [[ ! -x "$bin/mmapctl" ]]; then
    echo "arms_bench.sh: --arm '$arm': no mmapctl in $bin" >&2
    exit 2
  fi
done
mkdir -p "$out"

echo "arms benchmark: $program, budget $budget s, $threads threads, seeds [$seeds], $(nproc) cores, $(date -u +%FT%TZ)" >&2
for seed in $seeds; do
  for arm in "${arms[@]}"; do
    name="${arm%%=*}" rest="${arm#*=}"
    bin="${rest%%:*}" solver="${rest#*:}"
    case_dir="$out/$name.s$seed"
    if [[ -f "$case_dir/done" ]]; then
      echo "  $name seed $seed: done before" >&2
      continue
    fi
    rm -rf "$case_dir"
    "$here/agent_matrix.sh" --out "$case_dir" --bin "$bin" \
        --workloads "$program" --seeds "$seed" --solvers "$solver" \
        --budget "$budget" --threads "$threads" >/dev/null
    summary=$(ls "$case_dir"/logs/*.json 2>/dev/null | head -1 || true)
    if [[ ! -s $summary ]]; then
      echo "  $name seed $seed: FAILED (see $case_dir/logs)" >&2
      continue
    fi
    rm -rf "$case_dir/workloads"
    date -u +%FT%TZ >"$case_dir/done"
  done
done
python3 "$here/arms_table.py" "$out" --first "${arms[0]%%=*}"
