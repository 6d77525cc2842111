#!/usr/bin/env bash
# The real-program benchmark, the project's headline table: on every module
# of the corpus (bench/real_programs/modules.tsv, testdata/hlo), in one
# invocation per module, every solver through `mmapctl solve` at the same
# wall-time budget and threads, judged by the program's simulated latency
# and its speed-up over the heuristic; and the optimality bound where it
# finishes within --bound-limit seconds.
#
# Resumable: one result file per module and budget,
#   OUT/results/MODULE.bBUDGET.json
# written when the module's last solver ends; a module with a result file
# is skipped, so a run stopped part-way (Ctrl-C, a lost session) goes on
# where it stopped when started again with the same --out. Each run's
# stdout (JSON summary) and stderr stay in OUT/logs/. The table and plot:
#   bench/real_programs/table.py OUT [--budget 60]
#
# MuZero runs as a job on a local cluster of its own per module (the
# user's path, `solve --solver muzero` with its defaults); the cluster's
# start-up is outside the job's budget and is reported beside it.
#
# Usage:
#   bench/real_program_bench.sh --out DIR [--budget 60]
#       [--modules "resnet50_jax_infer_cpu.hlo ..."]
#       [--solvers "heuristic es brkga race muzero"] [--threads 2]
#       [--bound-limit 60] [--bin build/bin]
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
root="$(dirname "$here")"
out=""
budget=60
modules=""
solvers="heuristic es brkga race muzero"
threads=2
bound_limit=60
bin="$root/build/bin"
while [[ $# -gt 0 ]]; do
  case "$1" in
    --out) out="$2"; shift 2 ;;
    --budget) budget="$2"; shift 2 ;;
    --modules) modules="$2"; shift 2 ;;
    --solvers) solvers="$2"; shift 2 ;;
    --threads) threads="$2"; shift 2 ;;
    --bound-limit) bound_limit="$2"; shift 2 ;;
    --bin) bin="$2"; shift 2 ;;
    *) echo "real_program_bench.sh: unknown argument '$1'" >&2; exit 2 ;;
  esac
done
if [[ -z "$out" ]]; then
  echo "real_program_bench.sh: --out DIR is required" >&2
  exit 2
fi
mmapctl="$bin/mmapctl"
if [[ ! -x "$mmapctl" ]]; then
  echo "real_program_bench.sh: no mmapctl in $bin (build it: scripts/build)" >&2
  exit 2
fi
mkdir -p "$out/workloads" "$out/logs" "$out/results"

# The module's --trip-counts from modules.tsv, or nothing.
trip_counts_of() {
  awk -F'\t' -v m="$1" '$1 == m && $2 != "-" { print $2 }' \
    "$here/real_programs/modules.tsv"
}
if [[ -z "$modules" ]]; then
  modules=$(awk -F'\t' '!/^#/ && NF >= 2 { print $1 }' \
    "$here/real_programs/modules.tsv")
fi

count=$(wc -w <<<"$modules")
echo "real-program benchmark: ${count} modules, budget ${budget} s, ${threads} threads, solvers [${solvers}], $(nproc) cores, $(date -u +%FT%TZ)" >&2
index=0
for module in $modules; do
  index=$((index + 1))
  name="${module%.hlo}"
  result="$out/results/$name.b$budget.json"
  if [[ -f "$result" ]]; then
    echo "[$index/$count] $name: done before ($result)" >&2
    continue
  fi
  workload="$out/workloads/$name.pb"
  if [[ ! -f "$workload" ]]; then
    trips=$(trip_counts_of "$module")
    "$mmapctl" import "$root/testdata/hlo/$module" --hardware tpu-v4i \
      --out "$workload" ${trips:+--trip-counts "$trips"} \
      >"$out/logs/$name.import.log" 2>&1 || {
        echo "[$index/$count] $name: import FAILED (see $out/logs/$name.import.log)" >&2
        continue
      }
  fi
  rows="$out/logs/$name.b$budget.rows"
  : >"$rows"
  # The bound, when it finishes in time (an LP on large programs does not).
  bound_log="$out/logs/$name.bound.json"
  if [[ ! -f "$bound_log" ]]; then
    timeout $((bound_limit + 30)) "$mmapctl" bound "$workload" --json \
      --time-limit "$bound_limit" >"$bound_log" 2>"$out/logs/$name.bound.log" ||
      echo '{"failed": true}' >"$bound_log"
  fi
  for solver in $solvers; do
    tag="$name.b$budget.$solver"
    args=(--solver "$solver")
    cluster_dir="$out/clusters/$name"
    [[ "$solver" == muzero ]] && { rm -rf "$cluster_dir"; args+=(--data-dir "$cluster_dir"); }
    echo "[$index/$count] $name: $solver, ${budget} s" >&2
    if "$mmapctl" solve "$workload" "${args[@]}" --budget "${budget}s" \
        --threads "$threads" --seed 1 --json \
        >"$out/logs/$tag.json" 2>"$out/logs/$tag.log"; then
      echo "$solver $out/logs/$tag.json" >>"$rows"
    else
      echo "  $name $solver: FAILED (see $out/logs/$tag.log)" >&2
      echo "$solver FAILED" >>"$rows"
    fi
    rm -rf "$cluster_dir"
  done
  python3 "$here/real_programs/table.py" --write-result "$result" \
    --module "$module" --budget "$budget" --threads "$threads" \
    --workload-log "$out/logs/$name.import.log" --bound "$bound_log" \
    --rows "$rows"
  echo "[$index/$count] $name: $(python3 "$here/real_programs/table.py" --describe "$result")" >&2
done
python3 "$here/real_programs/table.py" "$out" --budget "$budget"
