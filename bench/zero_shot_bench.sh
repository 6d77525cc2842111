#!/usr/bin/env bash
# The network's own play on the transfer benchmark's ten held-out
# programs: `solve --solver policy` greedily, and with games drawn from
# the policy within 5 s (`samples`, temperature 0.3), each as a speed-up
# over the heuristic's simulated latency. One line per program and
# network into OUT/NAME.txt:
#   NAME PROGRAM GREEDY_SPEEDUP GREEDY_SECONDS SAMPLED_SPEEDUP SAMPLED_SECONDS GAMES
# Usage:
#   bench/zero_shot_bench.sh --out DIR --network NAME=FILE|default [--bin build/bin]
#       [--greedy-only]
# --greedy-only skips the 5-s games (their three fields are "-"): greedy
# play is one deterministic game, so it may be measured on a busy machine,
# where a time budget would not be fair.
# A NAME already in OUT is skipped (resumable). The held-out programs and
# their workloads are the transfer benchmark's (bench/workloads.sh).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(dirname "$here")
source "$here/workloads.sh"  # transfer_programs, make_workload
bin=$root/build/bin
out=
network=
greedy_only=0
while [[ $# -gt 0 ]]; do
  case $1 in
    --out) out=${2:?}; shift 2 ;;
    --network) network=${2:?}; shift 2 ;;
    --bin) bin=${2:?}; shift 2 ;;
    --greedy-only) greedy_only=1; shift ;;
    *) echo "zero_shot_bench.sh: unknown argument '$1'" >&2; exit 2 ;;
  esac
done
[[ -n $out && $network == *=* ]] || {
  echo "usage: zero_shot_bench.sh --out DIR --network NAME=FILE|default" >&2
  exit 2
}
name=${network%%=*}
file=${network#*=}
mmapctl=$bin/mmapctl
mkdir -p "$out/programs"
rm -f "$out/$name.txt.part"  # what a stopped run left
[[ -f $out/$name.txt ]] && { echo "$out/$name.txt exists: skipped" >&2; exit 0; }
echo "zero-shot benchmark: $name, $(nproc) cores, $(date -u +%FT%TZ)" >&2
for program in $transfer_programs; do
  workload=$out/programs/$program.json
  [[ -f $workload ]] || make_workload "$program" "$workload"
  greedy=$("$mmapctl" solve "$workload" --solver policy --set "network=$file" \
    --threads 1 --json 2>/dev/null | python3 -c 'import json, sys
d = json.load(sys.stdin)
print("%.4f %.1f" % (d["speedup_over_heuristic"], d["wall_seconds"]))')
  sampled="- - -"
  ((greedy_only)) || sampled=$("$mmapctl" solve "$workload" --solver policy --set "network=$file" \
    --set samples=4096 --set temperature=0.3 --budget 5s --threads 1 --json \
    2>/dev/null | python3 -c 'import json, sys
d = json.load(sys.stdin)
print("%.4f %.1f %s" % (d["speedup_over_heuristic"], d["wall_seconds"],
                        d["settings"]["evaluations"]))')
  echo "$name $program $greedy $sampled" | tee -a "$out/$name.txt.part"
done
mv "$out/$name.txt.part" "$out/$name.txt"
