#!/usr/bin/env bash
# The transfer benchmark: does the pretrained network (networks/, made by
# scripts/pretrain) help on programs it never trained on? On each held-out
# program, in one invocation per program and seed, every solver through
# `mmapctl solve` with --threads 2:
#   policy                    the network's own play (zero-shot), no search
#   muzero                    the agent from the pretrained network, 600 s
#   muzero:network=none       the agent from a fresh network, 600 s
#   es, brkga                 the searches, 600 s
#   muzero:learn=0            the pretrained network without learning, 150 s
#   muzero:network=none,learn=0                                  ditto, 150 s
# A 600-s run's progress lines give its 30-s, 150-s and 600-s points
# (bench/transfer_table.py reads them), so one run per solver makes the
# anytime curve.
#
# Held-out programs (none is in scripts/pretrain's training set; a test
# checks the checksums): four of the lstm family, left out of training
# entirely; four real modules of bench/real_programs/held_out.txt; two
# generated programs of trained families at sizes and seeds never trained
# on. Seed 1 on every program; seeds 2 and 3 on the first four of
# --seeded (default: one lstm, two real, one generated).
#
# Resumable: each (program, seed) runs bench/agent_matrix.sh into
# OUT/runs/PROGRAM.sSEED/ and is marked done by OUT/results/PROGRAM.sSEED.done
# when its last solver ends; a marked one is skipped, so a run stopped
# part-way goes on where it stopped. A finished run is compacted to what the
# table reads (bench/transfer_table.py --compact: tens of kilobytes), so OUT
# can be bench/results/transfer, where the runs of every session are kept.
# The table and plot:
#   bench/transfer_table.py OUT
#
# Usage:
#   bench/transfer_bench.sh --out DIR [--programs "..."] [--seeds "1 2 3"]
#       [--seeded "..."] [--budget 600] [--short-budget 150] [--bin build/bin]
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
root="$(dirname "$here")"
out=""
source "$here/workloads.sh"  # transfer_programs
programs="$transfer_programs"
seeded="lstm-3000@tpu-v4i dlrm_jax_train_cpu.hlo llama31-70b-bf16_jax_train_gpu.hlo transformer-10000"
seeds="1 2 3"
budget=600
short_budget=150
bin="$root/build/bin"
while [[ $# -gt 0 ]]; do
  case "$1" in
    --out) out="$2"; shift 2 ;;
    --programs) programs="$2"; shift 2 ;;
    --seeded) seeded="$2"; shift 2 ;;
    --seeds) seeds="$2"; shift 2 ;;
    --budget) budget="$2"; shift 2 ;;
    --short-budget) short_budget="$2"; shift 2 ;;
    --bin) bin="$2"; shift 2 ;;
    *) echo "transfer_bench.sh: unknown argument '$1'" >&2; exit 2 ;;
  esac
done
if [[ -z "$out" ]]; then
  echo "transfer_bench.sh: --out DIR is required" >&2
  exit 2
fi
held_out="$root/bench/real_programs/held_out.txt"
for program in $programs; do
  if [[ "$program" == *.hlo ]] && ! grep -qx "$program" "$held_out"; then
    echo "transfer_bench.sh: $program is not held out ($held_out)" >&2
    exit 2
  fi
done
mkdir -p "$out/runs" "$out/results"
echo "transfer benchmark: $(nproc) cores, budget ${budget} s (${short_budget} s without learning), $(date -u +%FT%TZ)" >&2
for seed in $seeds; do
  for program in $programs; do
    if [[ "$seed" != 1 && " $seeded " != *" $program "* ]]; then continue; fi
    tag="$program.s$seed"
    [[ -f "$out/results/$tag.done" ]] && continue
    dir="$out/runs/$tag"
    rm -rf "$dir"
    echo "transfer benchmark: $program seed $seed" >&2
    matrix=("$here/agent_matrix.sh" --out "$dir" --workloads "$program"
            --seeds "$seed" --threads 2 --bin "$bin")
    "${matrix[@]}" --budget "$budget" --solvers "policy" >/dev/null
    "${matrix[@]}" --budget "$budget" \
        --solvers "muzero muzero:network=none es brkga" >/dev/null
    "${matrix[@]}" --budget "$short_budget" \
        --solvers "muzero:learn=0 muzero:network=none,learn=0" >/dev/null
    # Marked done only when all seven runs gave a result.
    rows=$(($(wc -l <"$dir/runs.csv") - 1))
    if [[ "$rows" -lt 7 ]]; then
      echo "transfer benchmark: $program seed $seed: $rows of 7 runs gave a result (see $dir/logs); not marked done" >&2
      continue
    fi
    python3 "$here/transfer_table.py" --compact "$dir"
    date -u +%FT%TZ >"$out/results/$tag.done"
  done
done
python3 "$here/transfer_table.py" "$out"
