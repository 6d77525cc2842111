#!/usr/bin/env bash
# `mmapctl solve --solver muzero` through the local cluster, run by
# ctest:
#   solve_cluster_test.sh MMAPCTL SOURCE_DIR
#  - a 10 s solve starts the cluster in a new data dir, trains (learner
#    steps and games > 0), writes a solution that `mmapctl validate`
#    accepts and its SVG, and stops every service it started;
#  - a Ctrl-C (SIGINT) mid-job cancels the job, still writes its best so
#    far, exits 0 and leaves nothing running;
#  - a cluster already up in the data dir is used and left running, also
#    by a combined solve (seed_solver: a search first, the job from its
#    best);
#  - learn=0: the job's learner takes no step, its actors still play;
#  - network=FILE: a job starts from an earlier job's network;
#  - settings the cluster cannot honour are refused before anything starts.
# Exits 77 (skipped) unless every service binary is built next to mmapctl.
set -euo pipefail

mmapctl=${1:?usage: solve_cluster_test.sh MMAPCTL SOURCE_DIR}
source_dir=${2:?source dir missing}
bin_dir=$(dirname "$mmapctl")
example=$source_dir/examples/small.json

work=$(mktemp -d "${TMPDIR:-/tmp}/solve_cluster_test.XXXXXX")
cleanup() {
  for dir in "$work"/data-*; do
    [[ -d $dir ]] && "$mmapctl" local down --data-dir "$dir" >/dev/null 2>&1
  done
  rm -rf "$work"
}
trap cleanup EXIT
unset MMAPZERO_COORDINATOR MMAPZERO_DATA_DIR

# shellcheck source=tests/mmapctl_test_lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/mmapctl_test_lib.sh"
fail() {
  echo "FAIL: $*" >&2
  for log in "$work"/data-*/*.log; do
    [[ -f $log ]] && { echo "--- $log" >&2; tail -n 20 "$log" >&2; }
  done
  exit 1
}

skip_unless_services_built "$bin_dir"

# expect_stopped DIR LOG: no pid file is left in DIR and none of the
# services LOG says were started ("started NAME (pid N)") still runs.
expect_stopped() {
  local dir=$1 log=$2 pid
  ! ls "$dir"/*.pid >/dev/null 2>&1 || fail "pid files left in $dir"
  for pid in $(grep -oE '^started [a-z0-9-]+ \(pid [0-9]+\)' "$log" |
               grep -oE '[0-9]+\)$' | tr -d ')'); do
    # A zombie has stopped; whoever inherited it reaps it.
    [[ $(ps -o stat= -p "$pid" 2>/dev/null) != [^Z]* ]] ||
      fail "service pid $pid still runs: $(ps -o pid=,stat=,args= -p "$pid")"
  done
}

# Settings the cluster cannot honour: refused, and nothing is started.
expect_failure bad_setting "only with --in-process" solve "$example" \
  --solver muzero --set checkpoint=x --data-dir "$work/data-bad"
expect_failure bad_evaluations "--evaluations" solve "$example" \
  --solver muzero --evaluations 5 --data-dir "$work/data-bad"
expect_failure bad_key "reanalyse" solve "$example" --solver muzero \
  --set frobnicate=1 --data-dir "$work/data-bad"
expect_failure bad_seed_solver "no such solver to seed with: 'nope'" solve \
  "$example" --solver muzero --set seed_solver=nope --data-dir "$work/data-bad"
expect_failure bad_network "--set network: no network file" solve "$example" \
  --solver muzero --set network="$work/none.pt" --data-dir "$work/data-bad"
expect_failure in_process_other "only with --solver muzero" solve "$example" \
  --solver random --in-process
[[ ! -e $work/data-bad/coordinator.pid ]] || fail "a refused solve started services"

# A whole solve through the cluster it starts and stops.
run solve solve "$example" --solver muzero --budget "$(scaled 10)s" \
  --data-dir "$work/data-solve" --out "$work/solve.json" --svg "$work/solve.svg"
grep -q 'starting the local cluster' "$work/solve.err" ||
  fail "solve did not start the local cluster"
grep -qE 'job-[0-9]+ done: [1-9][0-9]* learner steps, [1-9][0-9]* games' \
  "$work/solve.err" || fail "the job did not train (no learner steps or games)"
grep -qE "the agent's own: [0-9]+\.[0-9]{4}x over its start \(heuristic, " \
  "$work/solve.err" || fail "the agent's own share over its start is missing"
grep -q 'validated independently: VALID' "$work/solve.err" ||
  fail "the solution was not validated"
[[ -s $work/solve.svg ]] || fail "no SVG written"
grep -qE '^wall time +[1-9][0-9]*\.[0-9]+ s' "$work/solve.out" ||
  fail "the summary gives no wall time for the job"
run validate validate "$example" "$work/solve.json"
expect_stopped "$work/data-solve" "$work/solve.err"

# Ctrl-C mid-job: the job is cancelled, its best is still written.
echo "+ mmapctl solve (5m budget, SIGINT once it runs)"
"$mmapctl" solve "$example" --solver muzero --budget 5m \
  --data-dir "$work/data-int" --out "$work/int.json" \
  >"$work/int.out" 2>"$work/int.err" &
solve_pid=$!
for _ in $(seq 1 600); do
  grep -qE '^ +[0-9.]+ s +running' "$work/int.err" && break
  kill -0 "$solve_pid" 2>/dev/null || break
  sleep 0.1
done
grep -qE '^ +[0-9.]+ s +running' "$work/int.err" ||
  { cat "$work/int.err"; fail "the interrupted job never ran"; }
kill -INT "$solve_pid"
rc=0
wait "$solve_pid" || rc=$?
cat "$work/int.err"
[[ $rc -eq 0 ]] || fail "an interrupted solve exited $rc"
grep -q 'interrupted: cancelling' "$work/int.err" || fail "no interrupt message"
grep -qE 'job-[0-9]+ cancelled' "$work/int.err" || fail "the job was not cancelled"
run validate_int validate "$example" "$work/int.json"
expect_stopped "$work/data-int" "$work/int.err"

# A cluster already up is used, and stays up.
run up local up --data-dir "$work/data-up" --reanalyse 0
run solve_up solve "$example" --solver muzero --budget 3s \
  --data-dir "$work/data-up" --out "$work/up.json"
grep -q 'already runs' "$work/solve_up.err" || fail "solve did not reuse the cluster"
# The combination: BRKGA first, here, for half the budget; the job starts
# from its best with the rest, and the result says which part found it.
run solve_combined solve "$example" --solver muzero --budget 4s \
  --set seed_solver=brkga --set seed_share=0.5 \
  --data-dir "$work/data-up" --out "$work/combined.json"
grep -q 'seed stage: brkga for 2s' "$work/solve_combined.err" ||
  fail "no seed stage before the job"
grep -qE "submitted job-[0-9]+: .*starting from brkga's 0\.[0-9]+" \
  "$work/solve_combined.err" || fail "the job did not start from the stage's best"
grep -qE "the agent's own: [0-9]+\.[0-9]{4}x over its start \(brkga, " \
  "$work/solve_combined.err" || fail "the job's start is not the seed stage's"
grep -q '"found_by"' "$work/combined.json" ||
  fail "the combined solution does not say which part found it"
run validate_combined validate "$example" "$work/combined.json"
# Its time is the stage's and the job's together.
python3 -c 'import json, sys
wall = json.load(open(sys.argv[1]))["solver"]["wall_seconds"]
sys.exit(0 if wall >= 2.5 else f"wall_seconds {wall} leaves out the stage")' \
  "$work/combined.json" || fail "the combined solve's time"
# learn=0, the Figure 7 ablation, through the service: the learner publishes
# the starting network and takes no step; the actors play with it. (10 s:
# a job's totals reach the coordinator with the workers' heartbeats, so a
# few seconds may end before any is counted; the 10-s job above learned.)
run solve_frozen solve "$example" --solver muzero --budget "$(scaled 10)s" \
  --set learn=0 --data-dir "$work/data-up" --out "$work/frozen.json"
grep -qE 'job-[0-9]+ done: 0 learner steps, [1-9][0-9]* games' \
  "$work/solve_frozen.err" || fail "learn=0: the learner stepped, or no games"
run validate_frozen validate "$example" "$work/frozen.json"
# A warm start: the first solve's network (its learner checkpoint, kept in
# its data dir) is the next job's starting network.
network=$(find "$work/data-solve/learner" -name network.pt -path '*job-*' \
  ! -path '*.old/*' | head -n 1)
[[ -s $network ]] || fail "the first solve left no learner checkpoint"
run solve_warm solve "$example" --solver muzero --budget 3s \
  --set network="$network" --data-dir "$work/data-up" --out "$work/warm.json"
run validate_warm validate "$example" "$work/warm.json"
grep -qF "$network" "$work/data-up/learner.log" ||
  fail "the learner does not say it started from $network"
run status_up local status --data-dir "$work/data-up"
grep -qE '^coordinator .* SERVING' "$work/status_up.out" ||
  fail "solve stopped a cluster it did not start"
run list_up list --data-dir "$work/data-up"
grep -qE '^job-[0-9]+ +small.json +done' "$work/list_up.out" ||
  fail "the solve's job is not listed as done"
run down local down --data-dir "$work/data-up"
expect_stopped "$work/data-up" "$work/up.out"
! grep -q SIGKILL "$work/down.out" ||
  fail "local down had to kill a service: $(grep SIGKILL "$work/down.out")"
# Every write of these runs carried its writer's lease ticket: nothing
# the workers sent was refused.
if grep -H "event=refused" "$work"/data-*/*.log; then
  fail "a worker's write was refused in an ordinary run"
fi
echo "PASS"
