#!/usr/bin/env bash
# Two jobs train at once on one real local cluster, each its own agent,
# run by ctest:
#   concurrent_jobs_test.sh MMAPCTL SOURCE_DIR
# `mmapctl local up --actors 2` (every service), the learner with
# --capacity 2 (it trains one job by default, so a second job would wait
# queued: coordinator/lease_planner.h), the replay with
# --checkpoint-seconds 1 and --min-positions 200 (its tables reach disk,
# and training starts, within seconds). examples/small.json is submitted
# and runs; then a generated 40-buffer workload is submitted; both with
# the cpu preset and a learner checkpoint every 10 steps. Then, in one
# `list`: both running, each with learner steps > 0 and games > 0 of its
# own; each has an actor lease (the planner moved one of the two actors
# to the new job), the same learner, a learner checkpoint folder of its own
# (step > 0, the networks differ) and a replay table of its own; each job's
# best (`best --out`) names its own workload and passes `mmapctl
# validate`. Then cancel both and `local down`.
#
# `local up` passes no per-service flags, so, as fault_injection_test.sh
# does, --bin-dir names wrappers that exec the real binaries with the extra
# flags (exec keeps the pid, and argv[0] is the real mmapzero-<role>, as
# `local down` checks). Exits 77 (skipped) when a service binary is not
# built.
set -euo pipefail

mmapctl=${1:?usage: concurrent_jobs_test.sh MMAPCTL SOURCE_DIR}
source_dir=${2:?source dir missing}
bin_dir=$(cd "$(dirname "$mmapctl")" && pwd)

# shellcheck source=tests/mmapctl_test_lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/mmapctl_test_lib.sh"
skip_unless_services_built "$bin_dir"
cluster_workdir concurrent_jobs_test
wrappers=$work/bin

# Each mmapctl call loads LibTorch (one to three seconds on a busy
# machine), so the test polls one `list --json` for both jobs
# ($work/list.json); field JOB NAME reads a top-level field of the job
# there (proto JSON: int64 quoted, zeros omitted: "" then).
refresh_list() {
  "$mmapctl" list --json --data-dir "$data" >"$work/list.json" \
    2>"$work/list.err"
}
field() {
  awk -v job="$1" -v key="\"$2\":" '
    function unquote(v) { gsub(/^"|",?$|,$/, "", v); return v }
    $1 == "\"job_id\":" { current = unquote($2) }
    current == job && $1 == key { print unquote($2) }' "$work/list.json"
}
num() {
  local value
  value=$(field "$1" "$2")
  echo "${value:-0}"
}
running() { [[ $(field "$1" state) == JOB_STATE_RUNNING ]]; }

# checkpointed_step JOB: the step of its learner checkpoint, 0 when none.
checkpoint_dir() { learner_checkpoint_dir "$data" "$1"; }
checkpointed_step() {
  local step
  step=$(sed -n 's/^step \([0-9]*\)$/\1/p' \
    "$(checkpoint_dir "$1")/learner.txt" 2>/dev/null) || true
  echo "${step:-0}"
}
table() { echo "$data/replay/replay/$1/table.mzr"; }

mkdir -p "$wrappers"
for role in "${service_roles[@]}"; do
  extra=""
  [[ $role == learner ]] && extra="--capacity 2"
  [[ $role == replay ]] && extra="--checkpoint-seconds 1 --min-positions 200"
  printf '#!/bin/sh\nexec "%s" %s "$@"\n' "$bin_dir/mmapzero-$role" "$extra" \
    >"$wrappers/mmapzero-$role"
  chmod +x "$wrappers/mmapzero-$role"
done

sed 's/"checkpoint_interval": *[0-9]*/"checkpoint_interval": 10/' \
  "$source_dir/configs/cpu.json" >"$work/config.json"
grep -q '"checkpoint_interval": 10' "$work/config.json" ||
  fail "configs/cpu.json has no training.checkpoint_interval to override"

workload_a=$source_dir/examples/small.json
workload_b=$work/tiny.json
run generate generate --family mlp --mode training --buffers 40 --seed 2 \
  --out "$workload_b"

run up local up --data-dir "$data" --bin-dir "$wrappers" --actors 2 \
  --wait 60s

run submit_a submit "$workload_a" --budget 10m --config "$work/config.json" \
  --name first --data-dir "$data"
a=$(cat "$work/submit_a.out")
[[ $a =~ ^job-[0-9]+$ ]] || fail "submit printed '$a', not a job id"
first_runs() { refresh_list && running "$a"; }
wait_until 30 "$a is not running" first_runs
echo "[$(elapsed)] $a running"

run submit_b submit "$workload_b" --budget 10m --config "$work/config.json" \
  --name second --data-dir "$data"
b=$(cat "$work/submit_b.out")
[[ $b =~ ^job-[0-9]+$ && $b != "$a" ]] || fail "second submit printed '$b'"

# trains JOB (in the latest listing): running with learner steps and games
# of its own, an actor, a learner checkpoint in its own folder and a replay
# table.
trains() {
  running "$1" && (($(num "$1" learner_step) > 0)) &&
    (($(num "$1" games) > 0)) && (($(num "$1" actors) >= 1)) &&
    (($(checkpointed_step "$1") > 0)) && [[ -s $(table "$1") ]]
}
# Both at the same moment, in one listing: the second did not wait for the
# first to end.
both_train() { refresh_list && trains "$a" && trains "$b"; }
wait_until 90 "$a and $b do not both train (running, steps, games, actor, \
checkpoint, replay table)" both_train
for job in "$a" "$b"; do
  echo "[$(elapsed)] $job $(field "$job" name): $(field "$job" state)," \
    "learner $(field "$job" learner_worker_id) step" \
    "$(num "$job" learner_step), games $(num "$job" games), actors" \
    "$(num "$job" actors), checkpoint step $(checkpointed_step "$job")"
done

# One learner trains both, each job with its own network.
learner_a=$(field "$a" learner_worker_id)
[[ -n $learner_a && $learner_a == "$(field "$b" learner_worker_id)" ]] ||
  fail "$a and $b are not trained by the one learner"
for job in "$a" "$b"; do
  grep -q "event=job_started job=$job" "$data/learner.log" ||
    fail "the learner logged no job_started for $job"
done
cmp -s "$(checkpoint_dir "$a")/network.pt" \
  "$(checkpoint_dir "$b")/network.pt" &&
  fail "$a and $b checkpointed the same network"
[[ $(field "$a" workload_name) != "$(field "$b" workload_name)" ]] ||
  fail "$a and $b show the same workload"

# Cancelled first: the rest of the test's mmapctl calls start faster on an
# idle cluster; best solutions are kept.
for job in "$a" "$b"; do
  run "cancel_$job" cancel "$job" --reason "test over" --data-dir "$data"
  grep -q "$job cancelled" "$work/cancel_$job.out" || fail "$job not cancelled"
done

# Each job's best is a solution of its own workload and validates.
for pair in "$a:$workload_a" "$b:$workload_b"; do
  IFS=: read -r job own <<<"$pair"
  run "best_$job" best "$job" --out "$work/best_$job.json" --data-dir "$data"
  grep -q 'VALID' "$work/best_$job.err" || fail "best of $job did not validate"
  grep -qF "\"workload_name\": \"$(field "$job" workload_name)\"" \
    "$work/best_$job.json" || fail "the best of $job names another workload"
  run "validate_$job" validate "$own" "$work/best_$job.json"
  grep -qw 'VALID' "$work/validate_$job.out" || fail "best of $job is not valid"
done

run down local down --data-dir "$data"
ls "$data"/*.pid >/dev/null 2>&1 && fail "local down left pid files"
echo "[$(elapsed)] PASS"
