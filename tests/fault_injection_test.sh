#!/usr/bin/env bash
# Fault injection against a real local cluster, run by ctest:
#   fault_injection_test.sh MMAPCTL SOURCE_DIR
# `mmapctl local up` (every service), submit examples/small.json with a
# 10-minute budget and a config checkpointing the learner every 10 steps;
# once the learner has checkpointed and a best exists, SIGKILL in turn, each
# restarted with the command line `local up` gives it (cli/local_cluster.cc,
# ServiceArgs), appending to its log and rewriting its pid file:
#  - actor-0: the job stays running, the new actor takes the job at once
#    (actor leases are not exclusive) and games keep increasing;
#  - the learner: once the dead one's lease expires (10 s) the new learner
#    logs job_started resumed=true at a step >= the checkpointed step read
#    just before the kill, the coordinator shows it as the job's learner and
#    its step goes on from there;
#  - a partitioned learner (SIGSTOP for three lease TTLs) beside a second
#    learner on the same checkpoint folder: the second takes over, the
#    first's late save is fenced out (the checkpoint's step never goes
#    down, its lease epoch stays the second's);
#  - the replay: the new one finds the job's table at start and loads it
#    (table_loaded, its checkpoint) once the coordinator assigns it the job,
#    takes the replay lease over (its table changes again) and the learner
#    trains on it again;
#  - the coordinator, on the same data dir and port (workers keep dialing the
#    address they were given): the job is still running, its best is no worse
#    than before every kill, workers report again, and `best --out` passes
#    `mmapctl validate`.
# Then cancel and `local down`: no process of the cluster left, no pid file.
#
# The replay checkpoints every --checkpoint-seconds (60 s by default), so a
# replay killed in the first minute would have nothing to reload. `local up`
# passes no per-service flags, so it gets --bin-dir with wrappers that exec
# the real binaries, the replay's adding --checkpoint-seconds 1 (exec keeps
# the pid and argv[0] is the real mmapzero-<role>, as `local down` checks).
# Exits 77 (skipped) when a service binary is not built.
set -euo pipefail

mmapctl=${1:?usage: fault_injection_test.sh MMAPCTL SOURCE_DIR}
source_dir=${2:?source dir missing}
bin_dir=$(cd "$(dirname "$mmapctl")" && pwd)

work=$(mktemp -d "${TMPDIR:-/tmp}/fault_injection_test.XXXXXX")
data=$work/data
wrappers=$work/bin
all_pids=()
cleanup() {
  "$mmapctl" local down --data-dir "$data" >/dev/null 2>&1 || true
  # Restarted services whose pid file a failure left behind.
  for pid in "${all_pids[@]}"; do kill -9 "$pid" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT
unset MMAPZERO_COORDINATOR MMAPZERO_DATA_DIR

# shellcheck source=tests/mmapctl_test_lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/mmapctl_test_lib.sh"
skip_unless_services_built "$bin_dir"

# Status of $job as JSON in $work/status.json; field NAME reads one of it.
refresh_status() {
  "$mmapctl" status "$job" --json --data-dir "$data" >"$work/status.json" \
    2>"$work/status.err"
}
field() {
  sed -n "s/^ *\"$1\": \"\{0,1\}\([^\",]*\)\"\{0,1\},\{0,1\}\$/\1/p" \
    "$work/status.json"
}
# num NAME: a numeric field, 0 when absent (proto JSON omits zeros).
num() {
  local value
  value=$(field "$1")
  echo "${value:-0}"
}
at_least() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a >= b) }'; }
running() { [[ $(field state) == JOB_STATE_RUNNING ]]; }

# Serves pid $1 mmapzero-$2 (not a zombie)?
runs() {
  local stat
  stat=$(cat "/proc/$1/stat" 2>/dev/null) || return 1
  [[ ${stat##*) } != [ZX]* ]] || return 1
  [[ $(tr '\0' '\n' <"/proc/$1/cmdline" | head -n 1) == */mmapzero-$2 ]]
}
gone() { ! runs "$1" "$2"; }

# log_since NAME OFFSET NEEDLE: NEEDLE in <NAME>.log after OFFSET bytes.
log_since() {
  tail -c +"$(($2 + 1))" "$data/$1.log" | grep -q -- "$3"
}
log_size() { stat -c %s "$data/$1.log"; }

# kill_service NAME ROLE: SIGKILL, then wait until it is gone.
kill_service() {
  local pid
  pid=$(cat "$data/$1.pid")
  runs "$pid" "$2" || fail "$1 (pid $pid) does not run before the kill"
  echo "[$(elapsed)] SIGKILL $1 (pid $pid)"
  kill -9 "$pid"
  wait_until 10 "$1 (pid $pid) still runs after SIGKILL" gone "$pid" "$2"
}

# Every service of a local cluster runs with its mutual TLS certificate.
tls_args=(--tls-ca "$data/tls/ca.pem" --tls-cert "$data/tls/worker.pem"
  --tls-key "$data/tls/worker.key")

# restart NAME ROLE ARGS...: starts the service as `local up` does: its own
# session, stdin /dev/null, output appended to <NAME>.log, <NAME>.pid.
# Sets restart_offset (the log's size before) and restart_pid.
restart() {
  local name=$1 role=$2
  shift 2
  rm -f "$data/$name.addr"
  restart_offset=$(log_size "$name")
  setsid "$wrappers/mmapzero-$role" "$@" "${tls_args[@]}" \
    </dev/null >>"$data/$name.log" 2>&1 &
  restart_pid=$!
  all_pids+=("$restart_pid")
  echo "$restart_pid" >"$data/$name.pid"
  wait_until 20 "$name (pid $restart_pid) did not start" \
    runs "$restart_pid" "$role"
  wait_until 30 "$name did not register with the coordinator" \
    log_since "$name" "$restart_offset" "event=registered"
  echo "[$(elapsed)] restarted $name (pid $restart_pid)"
}

# grpc_args NAME: the flags cli/local_cluster.cc's ServiceArgs gives the
# replay or learner NAME, in $args.
grpc_args() {
  args=(--metrics-port 0 --listen 127.0.0.1:0 --address-file "$data/$1.addr"
    --data-dir "$data/$1" --coordinator "$coordinator" --name "$1")
}

mkdir -p "$wrappers"
for role in "${service_roles[@]}"; do
  extra=""
  [[ $role == replay ]] && extra="--checkpoint-seconds 1"
  printf '#!/bin/sh\nexec "%s" %s "$@"\n' "$bin_dir/mmapzero-$role" "$extra" \
    >"$wrappers/mmapzero-$role"
  chmod +x "$wrappers/mmapzero-$role"
done

sed 's/"checkpoint_interval": *[0-9]*/"checkpoint_interval": 10/' \
  "$source_dir/configs/cpu.json" >"$work/config.json"
grep -q '"checkpoint_interval": 10' "$work/config.json" ||
  fail "configs/cpu.json has no training.checkpoint_interval to override"

run up local up --data-dir "$data" --bin-dir "$wrappers" --wait 60s
coordinator=$(cat "$data/coordinator.addr")
for name in coordinator replay learner actor-0 reanalyse-0; do
  all_pids+=("$(cat "$data/$name.pid")")
done

run submit submit "$source_dir/examples/small.json" --budget 10m \
  --config "$work/config.json" --name faults --data-dir "$data"
job=$(cat "$work/submit.out")
[[ $job =~ ^job-[0-9]+$ ]] || fail "submit printed '$job', not a job id"
table=$data/replay/replay/$job/table.mzr

# The step of the learner's checkpoint, 0 when none; from <job>.old when a
# kill fell between the two renames of a save (learner_checkpoint.h), which
# is what the learner then loads.
checkpointed_step() {
  local dir step=""
  dir=$(learner_checkpoint_dir "$data" "$job")
  [[ -d $dir ]] || dir=$dir.old
  step=$(sed -n 's/^step \([0-9]*\)$/\1/p' "$dir/learner.txt" 2>/dev/null) ||
    true
  echo "${step:-0}"
}
trained() {
  refresh_status && running && (($(num learner_step) > 0)) &&
    at_least "$(num best_normalised_return)" 1e-9 &&
    (($(checkpointed_step) > 0)) && [[ -s $table ]]
}
wait_until 60 "no learner step, best, learner checkpoint and replay table" \
  trained
best=$(num best_normalised_return)
echo "[$(elapsed)] $job running: learner step $(num learner_step)," \
  "games $(num games), best $best, checkpoint step $(checkpointed_step)"

# --- actor-0: the job keeps its games coming from the new actor.
kill_service actor-0 actor
refresh_status || fail "no status of $job"
games=$(num games)
restart actor-0 actor --metrics-port 0 --coordinator "$coordinator" \
  --name actor-0 --seed 1
wait_until 30 "the new actor-0 did not take $job" \
  log_since actor-0 "$restart_offset" "event=job_started job=$job"
more_games() { refresh_status && running && (($(num games) > games)); }
wait_until 60 "games of $job stay at $games after the actor restart" more_games
echo "[$(elapsed)] games $games -> $(num games)"
at_least "$(num best_normalised_return)" "$best" || fail "best went down"
best=$(num best_normalised_return)

# --- learner: the new one resumes from the checkpoint, not from step 0.
kill_service learner learner
saved_step=$(checkpointed_step) # the last one written before the kill
grpc_args learner
restart learner learner "${args[@]}"
learner_id=$(tail -c +"$((restart_offset + 1))" "$data/learner.log" |
  sed -n 's/.*event=registered worker_id=\([^ ]*\).*/\1/p' | head -n 1)
[[ -n $learner_id ]] || fail "the new learner logged no worker id"
wait_until 45 "the new learner did not start $job" \
  log_since learner "$restart_offset" "event=job_started job=$job"
started=$(tail -c +"$((restart_offset + 1))" "$data/learner.log" |
  grep "event=job_started job=$job" | head -n 1)
echo "$started"
[[ $started == *" resumed=true "* ]] || fail "the learner did not resume $job"
resumed_step=$(sed -n 's/.* step=\([0-9]*\) .*/\1/p' <<<"$started")
((resumed_step > 0 && resumed_step >= saved_step)) ||
  fail "the learner resumed at step $resumed_step, checkpointed $saved_step"
learner_goes_on() {
  refresh_status && running && [[ $(field learner_worker_id) == "$learner_id" ]] &&
    (($(num learner_step) > resumed_step))
}
wait_until 60 "$job shows no step past $resumed_step from $learner_id" \
  learner_goes_on
echo "[$(elapsed)] learner resumed at $resumed_step (checkpoint $saved_step)," \
  "now at $(num learner_step)"
at_least "$(num best_normalised_return)" "$best" || fail "best went down"
best=$(num best_normalised_return)

# --- partition: the learner is paused (SIGSTOP) for three lease TTLs while
# a second learner shares its checkpoint folder (as learner pods share one
# ReadWriteMany volume). The coordinator gives the job to the second once
# the lease expires; the first, continued, finds its lease gone and stops
# the job. Throughout, the checkpointed step never goes down, the job never
# shows the first as its learner again, the first does not start the job
# again, and the checkpoint ends up the second's (its lease epoch). When
# the first was paused outside a save, the second starts at once and the
# first's final save is refused by the lease fence (event=fenced); when it
# was paused in the middle of one (holding the fence's lock), the second
# waits (event=job_start_deferred) until that save is done, then claims the
# folder, so the first's final save is refused all the same.
stale_pid=$(cat "$data/learner.pid")
touch "$data/learner-b.log"
grpc_args learner-b
args+=(--data-dir "$data/learner") # the shared checkpoint folder
restart learner-b learner "${args[@]}"
b_offset=$restart_offset
b_id=$(tail -c +"$((b_offset + 1))" "$data/learner-b.log" |
  sed -n 's/.*event=registered worker_id=\([^ ]*\).*/\1/p' | head -n 1)
[[ -n $b_id ]] || fail "the second learner logged no worker id"
checkpoint_epoch() {
  local epoch
  epoch=$(sed -n 's/^epoch \([0-9]*\)$/\1/p' \
    "$(learner_checkpoint_dir "$data" "$job")/learner.txt" 2>/dev/null) || true
  echo "${epoch:-0}"
}
stale_epoch=$(checkpoint_epoch)
((stale_epoch > 0)) || fail "the learner's checkpoint carries no lease epoch"
high=$(checkpointed_step)
# step_kept: the checkpointed step is at least the highest seen so far.
step_kept() {
  local now_step
  now_step=$(checkpointed_step)
  ((now_step >= high)) ||
    fail "the checkpointed step went down: $high -> $now_step"
  high=$now_step
}
b_holds() {
  refresh_status || fail "no status of $job"
  [[ $(field learner_worker_id) == "$b_id" ]]
}
echo "[$(elapsed)] SIGSTOP learner (pid $stale_pid), checkpoint epoch" \
  "$stale_epoch, step $high"
kill -STOP "$stale_pid"
stopped_at=$SECONDS
took_over=0
while ((SECONDS - stopped_at < 30)); do # three lease TTLs of 10 s
  step_kept
  if ((took_over)); then
    b_holds || fail "$job shows learner $(field learner_worker_id) after" \
      "$b_id took it"
  elif b_holds; then
    took_over=1
  fi
  sleep 1
done
((took_over)) || fail "the second learner ($b_id) never took $job over"
stale_offset=$(log_size learner)
echo "[$(elapsed)] SIGCONT learner (pid $stale_pid); the coordinator gives" \
  "$job to $b_id"
kill -CONT "$stale_pid"
wait_until 60 "the second learner did not start $job" \
  log_since learner-b "$b_offset" "event=job_started job=$job"
grep "event=job_started job=$job" <(tail -c +"$((b_offset + 1))" \
  "$data/learner-b.log") | grep -q " resumed=true " ||
  fail "the second learner did not resume $job from the checkpoint"
b_saved() {
  step_kept
  b_holds || fail "$job shows learner $(field learner_worker_id), not $b_id"
  (($(checkpoint_epoch) > stale_epoch))
}
wait_until 60 "no checkpoint of the second learner (epoch above $stale_epoch)" \
  b_saved
b_epoch=$(checkpoint_epoch)
for _ in $(seq 5); do
  step_kept
  b_holds || fail "$job shows learner $(field learner_worker_id), not $b_id"
  (($(checkpoint_epoch) >= b_epoch)) ||
    fail "the checkpoint's epoch went back from $b_epoch"
  sleep 1
done
log_since learner "$stale_offset" "event=job_started job=$job" &&
  fail "the continued learner started $job again"
how="the first had nothing left to save"
log_since learner "$stale_offset" "event=fenced job=$job" &&
  how="the first's final save was fenced out"
log_since learner-b "$b_offset" "event=job_start_deferred job=$job" &&
  how="$how; the second waited for the fence's lock"
echo "[$(elapsed)] partition over ($how): checkpoint step $high, epoch" \
  "$b_epoch"
# The first learner leaves; the second goes on with the job.
kill -TERM "$stale_pid"
wait_until 20 "learner (pid $stale_pid) did not stop on SIGTERM" \
  gone "$stale_pid" learner
mv "$data/learner-b.pid" "$data/learner.pid"

# --- replay: the new one loads its checkpointed table and serves the job.
kill_service replay replay
grpc_args replay
restart replay replay "${args[@]}"
touch "$work/replay_restarted"
log_since replay "$restart_offset" "tables_found=1" ||
  fail "the restarted replay did not report its table found"
# It reads the table whole once the coordinator assigns it the job.
table_loaded() { log_since replay "$restart_offset" "event=table_loaded job=$job"; }
wait_until 60 "the restarted replay did not load the table of $job" \
  table_loaded
# Its table changes (and is checkpointed again) once the lease has moved to
# it and the job's workers send to it; the learner, stalled since its
# prefetched batches (4) ran out, then trains well past that.
table_rewritten() { [[ $table -nt $work/replay_restarted ]]; }
wait_until 60 "the restarted replay never changed the table of $job" \
  table_rewritten
refresh_status || fail "no status of $job"
step=$(num learner_step)
replay_serves() {
  refresh_status && running && (($(num learner_step) > step + 20))
}
wait_until 60 "the learner of $job stays near step $step after the replay \
restart" replay_serves
echo "[$(elapsed)] learner step $step -> $(num learner_step) on the new replay"
at_least "$(num best_normalised_return)" "$best" || fail "best went down"
best=$(num best_normalised_return)

# --- coordinator: same data dir, same port; jobs, best and leases kept.
port=${coordinator##*:}
kill_service coordinator coordinator
restart_offset=$(log_size coordinator)
setsid "$wrappers/mmapzero-coordinator" --metrics-port 0 \
  --listen "127.0.0.1:$port" --address-file "$data/coordinator.addr" \
  --data-dir "$data/coordinator" "${tls_args[@]}" \
  </dev/null >>"$data/coordinator.log" 2>&1 &
coordinator_pid=$!
all_pids+=("$coordinator_pid")
echo "$coordinator_pid" >"$data/coordinator.pid"
coordinator_up() {
  # Exited (or a zombie): a failure. Still the wrapper's shell, before its
  # exec: not up yet.
  local stat
  stat=$(cat "/proc/$coordinator_pid/stat" 2>/dev/null) ||
    fail "the restarted coordinator exited (its port $port taken?)"
  [[ ${stat##*) } != [ZX]* ]] ||
    fail "the restarted coordinator exited (its port $port taken?)"
  runs "$coordinator_pid" coordinator && [[ -s $data/coordinator.addr ]]
}
wait_until 30 "the restarted coordinator wrote no address file" coordinator_up
[[ $(cat "$data/coordinator.addr") == "$coordinator" ]] ||
  fail "the coordinator came back at $(cat "$data/coordinator.addr")"
echo "[$(elapsed)] restarted coordinator (pid $coordinator_pid) at $coordinator"
refresh_status || fail "status of $job after the coordinator restart"
running || fail "$job is $(field state) after the coordinator restart"
at_least "$(num best_normalised_return)" "$best" ||
  fail "best $(num best_normalised_return) < $best after the restart"
games=$(num games)
step=$(num learner_step)
workers_report() {
  refresh_status && running && (($(num games) > games)) &&
    (($(num learner_step) > step))
}
wait_until 60 "no games or steps of $job after the coordinator restart" \
  workers_report
echo "[$(elapsed)] after the coordinator restart: games $games ->" \
  "$(num games), learner step $step -> $(num learner_step)"

run best best "$job" --out "$work/best.json" --data-dir "$data"
grep -q 'VALID' "$work/best.err" || fail "best did not validate the solution"
run validate validate "$source_dir/examples/small.json" "$work/best.json"
grep -qw 'VALID' "$work/validate.out" || fail "the best solution is not valid"
final=$(sed -n 's/^ *normalised return *\([0-9.]*\)$/\1/p' \
  "$work/validate.out")
[[ -n $final ]] || fail "validate printed no normalised return"
# validate prints 6 decimals.
at_least "$final" "$(awk -v b="$best" 'BEGIN { printf "%.7f", b - 1e-6 }')" ||
  fail "the best solution's normalised return $final < $best"

run cancel cancel "$job" --reason "test over" --data-dir "$data"
grep -q "$job cancelled" "$work/cancel.out" || fail "cancel did not cancel"
run down local down --data-dir "$data"
ls "$data"/*.pid >/dev/null 2>&1 && fail "local down left pid files"
for pid in "${all_pids[@]}"; do
  for role in "${service_roles[@]}"; do
    runs "$pid" "$role" && fail "mmapzero-$role (pid $pid) runs after down"
  done
done
echo "[$(elapsed)] PASS"
