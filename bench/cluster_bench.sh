#!/usr/bin/env bash
# bench/cluster: the cost of distribution. For each workload, self-play
# moves per second of
#   solve      `mmapctl solve W --solver muzero --in-process --threads 2`: one process,
#              one actor thread + one learner thread (the baseline);
#   cluster    `mmapctl local up --actors 1 --reanalyse R` and the same
#              workload submitted as a job (`cpu` preset, as solve's
#              default): coordinator, replay, learner, 1 actor and R
#              reanalysers, one torch thread each, on the same cores.
# Both with the same wall-time budget. Rates are self-play averages:
#   solve: the mean of the solver's 5 s log lines ("muzero N s: G games,
#          X moves/s"), i.e. its moves over its self-play time;
#   cluster: the job's moves counter (`mmapctl watch --json`, time-stamped
#          here) from its first reported move to the end, and the whole
#          job's moves / (finished - started).
# With --pin the cluster's actor gets CPU 0 to itself and every other
# service shares CPU 1 (taskset, all threads), as the solver's actor
# thread has a core of its own beside its learner thread: what is left of
# the gap is the actor's own cost of distribution (RPCs, serialisation,
# parameter fetches), not how the processes split the cores.
# Prints a Markdown table with the core count and load averages, for
# docs/benchmarks.md ("Distribution").
#   bench/cluster_bench.sh [--budget 60s] [--reanalyse "1 0"] [--pin]
#                          [WORKLOAD ...]
# Default workloads: examples/small.json examples/medium.json.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
mmapctl=${MMAPZERO_BUILD_DIR:-$root/build}/bin/mmapctl
budget=60s
reanalyse_counts="1 0"
pin=0
workloads=()
while [[ $# -gt 0 ]]; do
  case $1 in
    --budget) budget=${2:?--budget needs a value}; shift ;;
    --reanalyse) reanalyse_counts=${2:?--reanalyse needs counts}; shift ;;
    --pin) pin=1 ;;
    -*) echo "cluster_bench: unknown flag '$1'" >&2; exit 2 ;;
    *) workloads+=("$1") ;;
  esac
  shift
done
[[ ${#workloads[@]} -gt 0 ]] ||
  workloads=("$root/examples/small.json" "$root/examples/medium.json")
[[ -x $mmapctl ]] || { echo "cluster_bench: $mmapctl not built" >&2; exit 1; }

work=$(mktemp -d -t mmapzero-cluster-bench.XXXXXX)
data_dir=
cleanup() {
  [[ -z $data_dir ]] || "$mmapctl" local down --data-dir "$data_dir" \
    >/dev/null 2>&1 || true
}
trap cleanup EXIT
load() { cut -d' ' -f1-3 /proc/loadavg; }
rows=()

# solve WORKLOAD -> "moves/s games learner-steps" (mean of the 5 s log lines)
solve_rate() {
  local log
  log=$work/solve-$(basename "$1" .json).log
  "$mmapctl" solve "$1" --solver muzero --in-process --budget "$budget" \
    --threads 2 \
    >/dev/null 2>"$log"
  python3 - "$log" <<'EOF'
import re, sys
lines = [re.search(r"muzero +[\d.]+ s: (\d+) games, ([\d.]+) moves/s", l)
         for l in open(sys.argv[1])]
lines = [m for m in lines if m]
rates = [float(m.group(2)) for m in lines]
steps = re.findall(r"muzero: done: .*learner: step (\d+)", open(sys.argv[1]).read())
print(f"{sum(rates) / len(rates):.1f} {lines[-1].group(1)} "
      f"{steps[-1] if steps else '-'}")
EOF
}

# cluster WORKLOAD REANALYSE -> "steady moves/s, job moves/s, games,
# job seconds, state, learner steps"
cluster_rate() {
  local out job
  out=$work/watch-$(basename "$1" .json)-r$2.jsonl
  job=$("$mmapctl" submit "$1" --budget "$budget" --data-dir "$data_dir")
  "$mmapctl" watch "$job" --json --data-dir "$data_dir" |
    while IFS= read -r line; do echo "$(date +%s.%N) $line"; done >"$out"
  python3 - "$out" <<'EOF'
import json, sys
samples = []
for l in open(sys.argv[1]):
    t, j = l.split(" ", 1)
    samples.append((float(t), json.loads(j)["job"]))
job = samples[-1][1]
moves = lambda j: int(j.get("moves", 0))
moving = [s for s in samples if moves(s[1]) > 0]
t0, j0 = moving[0]
t1, j1 = moving[-1]
steady = (moves(j1) - moves(j0)) / max(t1 - t0, 1e-9)
seconds = (int(job["finished_unix_ms"]) - int(job["started_unix_ms"])) / 1e3
state = job.get("state", "").replace("JOB_STATE_", "").lower()
print(f"{steady:.1f} {moves(job) / seconds:.1f} {job.get('games', 0)} "
      f"{seconds:.1f} {state} {job.get('learner_step', 0)}")
EOF
}

# pin_cluster DIR: the actor on CPU 0, every other service on CPU 1.
pin_cluster() {
  local pidfile cpu
  for pidfile in "$1"/*.pid; do
    cpu=1
    [[ $(basename "$pidfile") == actor-* ]] && cpu=0
    taskset -a -cp "$cpu" "$(cat "$pidfile")" >/dev/null
  done
}

echo "cluster_bench: $(nproc) cores, budget $budget, pin $pin; logs in $work" >&2
declare -A solve_moves
for w in "${workloads[@]}"; do
  before=$(load)
  read -r rate games steps < <(solve_rate "$w")
  solve_moves[$w]=$rate
  rows+=("| $(basename "$w" .json) | solve --threads 2 | 2 threads (1 actor + learner) | $rate | – | $games | $steps | 1.00x | $before / $(load) |")
done
for r in $reanalyse_counts; do
  data_dir=$work/cluster-r$r
  "$mmapctl" local up --data-dir "$data_dir" --actors 1 --reanalyse "$r" \
    >/dev/null
  layout="$((4 + r)) processes"
  if [[ $pin -eq 1 ]]; then
    pin_cluster "$data_dir"
    layout="$layout, actor pinned to CPU 0, the rest to CPU 1"
  fi
  for w in "${workloads[@]}"; do
    before=$(load)
    read -r steady whole games seconds state steps < <(cluster_rate "$w" "$r")
    ratio=$(python3 -c "print(f'{$steady / ${solve_moves[$w]}:.2f}x')")
    rows+=("| $(basename "$w" .json) | local up, reanalyse $r | $layout | $steady | $whole ($seconds s, $state) | $games | $steps | $ratio | $before / $(load) |")
  done
  "$mmapctl" local down --data-dir "$data_dir" >/dev/null
  data_dir=
done

echo "| workload | run | threads | self-play moves/s | job moves/s (job wall) | games | learner steps | vs solve | load avg before / after |"
echo "| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | --- |"
printf '%s\n' "${rows[@]}"
