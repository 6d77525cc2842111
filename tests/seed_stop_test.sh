#!/usr/bin/env bash
# A seed solve stops when its job is cancelled and when the coordinator is
# told to stop: on a 200,000-buffer program one heuristic plan takes about
# 20 s on 2 cores, so both used to wait for it (`local down` then killed
# the coordinator after 10 s). Here the coordinator's CPU time stops
# growing within a second of the cancel, and `local down` stops it without
# SIGKILL while a second seed solve runs.
set -euo pipefail

mmapctl=${1:?usage: seed_stop_test.sh MMAPCTL SOURCE_DIR}

# shellcheck source=tests/mmapctl_test_lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/mmapctl_test_lib.sh"
cluster_workdir seed_stop_test

run generate generate --family transformer --buffers 200000 --seed 1 \
  --out "$work/big.json"
run up local up --data-dir "$data" --only coordinator --wait 60s
pid=$(cat "$data/coordinator.pid")

# cpu_ticks: the coordinator's user and system time, in clock ticks.
cpu_ticks() { awk '{print $14 + $15}' "/proc/$pid/stat"; }

# seeding_job: the id of a job that is seeding now ("" while none).
seeding_job() {
  "$mmapctl" list --data-dir "$data" --state seeding 2>/dev/null |
    awk '/^job-/ {print $1; exit}'
}

has_seeding_job() { [[ -n $(seeding_job) ]]; }
seed_solve_ran() { (($(cpu_ticks) - seeding_from >= 100)); }

submit_big() {
  "$mmapctl" submit "$work/big.json" --data-dir "$data" --name big \
    >"$work/submit.out" 2>&1 &
  wait_until 60 "the big job is seeding" has_seeding_job
  # The seed solve is under way once the coordinator has burnt a second of
  # CPU (however busy the machine is with other tests).
  seeding_from=$(cpu_ticks)
  wait_until 60 "the seed solve runs" seed_solve_ran
}

submit_big
job=$(seeding_job)
echo "$(elapsed) seeding $job; cancelling it"
run cancel cancel "$job" --data-dir "$data"
sleep 1
before=$(cpu_ticks)
sleep 2
spent=$(($(cpu_ticks) - before))
echo "$(elapsed) CPU ticks in the 2 s after the cancel settled: $spent"
((spent < 50)) || fail "the seed solve went on after its job was cancelled"
grep -q "event=job_cancelled job=$job" "$data/coordinator.log" ||
  fail "no job_cancelled line for $job"

submit_big
echo "$(elapsed) seeding $(seeding_job); stopping the coordinator"
run down local down --data-dir "$data"
grep -q "stopped coordinator" "$work/down.out" || fail "the coordinator did not stop"
if grep -q "SIGKILL" "$work/down.out"; then
  fail "the coordinator had to be killed while a seed solve ran"
fi
echo "PASS"
