#!/usr/bin/env bash
# The learning benchmark as a user runs it: every solver through
# `mmapctl solve`, at equal wall time and threads, on the generated and
# imported workloads, for several seeds. MuZero runs as a job on a fresh
# local cluster per run (the user's path); `muzero-in-process` and the
# combination run it inside mmapctl for comparison. Writes
#   OUT/runs.csv          one row per run (the validator-checked result)
#   OUT/convergence.csv   best normalised return over time, from the
#                         progress lines (bench/plot_convergence.py reads it)
#   OUT/logs/             each run's stdout (JSON summary) and stderr
# and prints the median and range table (bench/agent_matrix_table.py).
#
# Usage:
#   bench/agent_matrix.sh --out DIR [--budget 150] [--seeds "1 2 3"]
#       [--workloads "mlp-300 transformer-3000 ..."] [--solvers "es brkga ..."]
#       [--threads 2] [--bin build/bin]
# A solver is a name for `mmapctl solve --solver`, or `muzero-in-process`,
# optionally followed by `:key=value,key=value` settings (`--set`), e.g.
# `muzero-in-process:learn=0`. `combination` is `muzero:seed_solver=brkga`
# (BRKGA for seed_share of the budget, default half, then the cluster's job from its
# best) and `combination-in-process` the same inside mmapctl.
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
root="$(dirname "$here")"
out=""
budget=150
seeds="1"
threads=2
bin="$root/build/bin"
workloads="mlp-300 transformer-3000 cnn-3000 transformer-10000 cnn-16500 ssd_mobilenet llama"
solvers="heuristic es brkga random muzero combination muzero-in-process"

while [[ $# -gt 0 ]]; do
  case "$1" in
    --out) out="$2"; shift 2 ;;
    --budget) budget="$2"; shift 2 ;;
    --seeds) seeds="$2"; shift 2 ;;
    --threads) threads="$2"; shift 2 ;;
    --bin) bin="$2"; shift 2 ;;
    --workloads) workloads="$2"; shift 2 ;;
    --solvers) solvers="$2"; shift 2 ;;
    *) echo "agent_matrix.sh: unknown argument '$1'" >&2; exit 2 ;;
  esac
done
if [[ -z "$out" ]]; then
  echo "agent_matrix.sh: --out DIR is required" >&2
  exit 2
fi
if [[ ! -x "$bin/mmapctl" ]]; then
  echo "agent_matrix.sh: no mmapctl in $bin (build it: ninja -C build mmapctl)" >&2
  exit 2
fi
mkdir -p "$out/workloads" "$out/logs" "$out/clusters"
mmapctl="$bin/mmapctl"

# make_workload NAME PATH
source "$here/workloads.sh"

# The `mmapctl solve` arguments for solver spec $1 (a cluster's data
# directory $2).
solve_args() {
  local spec="$1"
  case "$spec" in
    combination) spec="muzero:seed_solver=brkga" ;;
    combination-in-process) spec="muzero-in-process:seed_solver=brkga" ;;
  esac
  local name="${spec%%:*}" settings=""
  [[ "$spec" == *:* ]] && settings="${spec#*:}"
  if [[ "$name" == muzero-in-process ]]; then
    echo -n "--solver muzero --in-process"
  elif [[ "$name" == muzero ]]; then
    echo -n "--solver muzero --data-dir $2"
  else
    echo -n "--solver $name"
  fi
  local kv
  IFS=',' read -ra kvs <<<"$settings"
  for kv in "${kvs[@]}"; do echo -n " --set $kv"; done
}

runs="$out/runs.csv"
[[ -f "$runs" ]] || echo "workload,buffers,budget_seconds,seed,solver,normalised_return,wall_seconds,evaluations,found_by" >"$runs"
convergence="$out/convergence.csv"
[[ -f "$convergence" ]] || echo "solver,workload,elapsed_seconds,evaluations,best_normalised_return,recent_normalised_return" >"$convergence"

echo "agent matrix: budget ${budget} s, ${threads} threads, seeds [$seeds], $(nproc) cores, $(date -u +%FT%TZ)" >&2
for workload in $workloads; do
  path="$out/workloads/$workload.json"
  [[ -f "$path" ]] || make_workload "$workload" "$path"
  for seed in $seeds; do
    for solver in $solvers; do
      tag="$workload.b$budget.s$seed.${solver//[:=,\/]/_}"
      cluster_dir="$out/clusters/$tag"
      rm -rf "$cluster_dir"
      # shellcheck disable=SC2046
      if ! "$mmapctl" solve "$path" $(solve_args "$solver" "$cluster_dir") \
            --budget "${budget}s" --threads "$threads" --seed "$seed" --json \
            >"$out/logs/$tag.json" 2>"$out/logs/$tag.log"; then
        echo "  $workload seed $seed $solver: FAILED (see $out/logs/$tag.log)" >&2
        continue
      fi
      python3 "$here/agent_matrix_table.py" --append-run "$runs" \
          --convergence "$convergence" --workload "$workload" \
          --budget "$budget" --seed "$seed" --solver "$solver" \
          --summary "$out/logs/$tag.json" --log "$out/logs/$tag.log" >&2
      # The cluster's logs and checkpoints are large; the run's own log and
      # the learner's (a few lines: its demonstrations) stay.
      if [[ -f "$cluster_dir/learner.log" ]]; then
        cp "$cluster_dir/learner.log" "$out/logs/$tag.learner.log"
      fi
      rm -rf "$cluster_dir"
    done
  done
done
python3 "$here/agent_matrix_table.py" --table "$runs"
