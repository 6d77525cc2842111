#!/usr/bin/env bash
# End-to-end test of the service commands against a real local cluster,
# run by ctest:
#   mmapctl_cluster_test.sh MMAPCTL SOURCE_DIR
# `mmapctl local up` in a temporary data dir (the whole cluster when every
# mmapzero-* binary is built next to mmapctl, else --only coordinator),
# then: status of the cluster; submit examples/small.json with a 10-minute
# budget that the test's cancel cuts short, so a slow machine cannot end
# the job first (the coordinator found through <data dir>/coordinator.addr); list;
# status; best --out (validated again by `mmapctl validate`) --svg; cancel;
# watch of the cancelled job ends at once; resume runs it again, extend
# gives it more time, and it is cancelled again; archive keeps it in one
# tar file (unpacked by tar, checked by sha256sum, its best validated);
# delete removes it; an unknown job id and a
# malformed workload or a missing --network file exit non-zero with a
# clear message and leave the job list unchanged; the whole cluster's
# learner starts the job from the shipped network; the job's network is
# registered (`networks import --from-job`), listed, shown, exported, a new
# job starts from it and it is deleted; a second `local up` is refused; a
# missing binary is named; after kill -9 of the coordinator, an actor and
# the replay server, `local up` starts those three again (the coordinator
# at its address, with its jobs and a config from --config-dir) and leaves
# the others running;
# `local down` leaves no process and no pid file behind. The cluster runs
# with mutual TLS: the worker certificate may not list jobs, a plaintext
# caller cannot connect, `certs` never replaces the cluster's CA, and the
# CA's key is kept in <data dir>/ca, apart from the services' files. A
# second client identity (`certs --client bob`) neither lists, reads nor
# cancels nor archives the first's job; an admin sees it. A workload without buffers is
# refused at submit, and a worker holding a client's certificate exits
# (78) at its first refusal.
set -euo pipefail

mmapctl=${1:?usage: mmapctl_cluster_test.sh MMAPCTL SOURCE_DIR}
source_dir=${2:?source dir missing}
bin_dir=$(dirname "$mmapctl")

# shellcheck source=tests/mmapctl_test_lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/mmapctl_test_lib.sh"
cluster_workdir mmapctl_cluster_test

only=(--only coordinator)
all_built=1
for role in coordinator replay learner actor reanalyse; do
  [[ -x $bin_dir/mmapzero-$role ]] || all_built=0
done
if [[ $all_built -eq 1 ]]; then only=(); fi
echo "services: ${only[*]:-all}"

# A missing binary is named before anything starts.
mkdir -p "$work/no_bin"
# Prometheus is --prometheus, not a role to pick.
expect_failure up_only_prometheus "unknown service 'prometheus'" local up \
  --data-dir "$data" --only coordinator,prometheus
expect_failure up_no_bin "mmapzero-coordinator" local up --data-dir "$data" \
  --bin-dir "$work/no_bin"
[[ ! -e $data/coordinator.pid ]] || fail "a failed 'local up' left a pid file"

run up local up --data-dir "$data" "${only[@]}" --wait 60s
coordinator_pid=$(cat "$data/coordinator.pid")
[[ -s $data/coordinator.addr ]] || fail "no coordinator.addr in $data"
[[ -f $data/coordinator.log ]] || fail "no coordinator.log in $data"
expect_failure up_twice "already runs" local up --data-dir "$data" \
  "${only[@]}"

run local_status local status --data-dir "$data"
grep -qE '^coordinator +[0-9]+ +yes +127\.0\.0\.1:[0-9]+ +127\.0\.0\.1:[0-9]+ +SERVING +[0-9]+\.[0-9] MB' \
  "$work/local_status.out" || fail "local status does not show a serving coordinator and its disk"
grep -qE "^disk: [0-9]+\.[0-9] MB in $data " "$work/local_status.out" ||
  fail "local status does not show the disk the cluster uses"

run list_empty list --data-dir "$data"

# The cluster runs with mutual TLS under its own CA (<data dir>/tls):
# mmapctl speaks as the client; the workers' certificate may not list jobs,
# and a caller without TLS cannot connect.
for file in ca.pem client.pem client.key worker.pem worker.key; do
  [[ -s $data/tls/$file ]] || fail "local up made no $data/tls/$file"
done
# The CA's key is kept apart from what the services are given.
[[ ! -e $data/tls/ca.key ]] || fail "the CA's key is in $data/tls, beside the services' files"
[[ -s $data/ca/ca.key ]] || fail "local up made no $data/ca/ca.key"
[[ $(stat -c %a "$data/ca") == 700 && $(stat -c %a "$data/ca/ca.key") == 600 ]] ||
  fail "$data/ca is not private (folder 700, key 600)"
if grep -q -- "$data/ca" /proc/"$coordinator_pid"/cmdline; then
  fail "the coordinator was given the CA's folder"
fi
[[ $(stat -c %a "$data/tls/worker.key") == 600 ]] || fail "worker.key is not mode 600"
expect_failure list_as_worker "role 'worker' may not call ListJobs" list \
  --data-dir "$data" --tls-ca "$data/tls/ca.pem" \
  --tls-cert "$data/tls/worker.pem" --tls-key "$data/tls/worker.key"
expect_failure list_plaintext "if it takes TLS" list \
  --coordinator "$(cat "$data/coordinator.addr")" --data-dir "$work/elsewhere"
expect_failure certs_twice "already has a CA" certs --out "$data/tls"
grep -q 'no jobs' "$work/list_empty.out" || fail "a new cluster lists jobs"

run submit submit "$source_dir/examples/small.json" --budget 10m \
  --name smoke --data-dir "$data"
job=$(cat "$work/submit.out")
[[ $job =~ ^job-[0-9]+$ ]] || fail "submit printed '$job', not a job id"

run list list --data-dir "$data"
grep -qE "^$job +smoke +(queued|running) " "$work/list.out" ||
  fail "list does not show $job queued or running"
jobs_before=$(grep -c '^job-' "$work/list.out")

run status status "$job" --data-dir "$data"
grep -qE '^state +(queued|running)$' "$work/status.out" ||
  fail "status does not show $job queued or running"
grep -qE '^budget +10m$' "$work/status.out" || fail "status lost the budget"
grep -qE '^owner +.*CN=mmapzero-client' "$work/status.out" ||
  fail "status does not show the local client as $job's owner"

# Jobs belong to who submitted them: a second client identity sees none of
# the first's, and an admin sees all.
run certs_bob certs --out "$data/tls" --client bob
[[ $(stat -c %a "$data/tls/bob.key") == 600 ]] || fail "bob.key is not mode 600"
expect_failure certs_bob_twice "has a certificate already" certs \
  --out "$data/tls" --client bob
as_bob=(--data-dir "$data" --tls-ca "$data/tls/ca.pem"
        --tls-cert "$data/tls/bob.pem" --tls-key "$data/tls/bob.key")
run list_bob list "${as_bob[@]}"
grep -q "^$job " "$work/list_bob.out" && fail "bob lists the client's $job"
expect_failure status_bob "belongs to another identity" status "$job" \
  "${as_bob[@]}"
expect_failure cancel_bob "belongs to another identity" cancel "$job" \
  "${as_bob[@]}"
expect_failure archive_bob "belongs to another identity" archive "$job" \
  --out "$work/bob.tar" "${as_bob[@]}"
[[ ! -e "$work/bob.tar" ]] || fail "bob's refused archive left a file"
run list_admin list --data-dir "$data" --tls-ca "$data/tls/ca.pem" \
  --tls-cert "$data/tls/admin.pem" --tls-key "$data/tls/admin.key"
grep -qE "^$job +smoke +(queued|running) " "$work/list_admin.out" ||
  fail "the admin does not see $job (still queued or running)"
grep -q "event=refused method=CancelJob caller=.*bob.* job=$job" \
  "$data/coordinator.log" || fail "the coordinator did not log bob's refusal"

# A worker with a client's certificate is refused for good: it says what to
# fix and exits 78 instead of retrying forever.
if [[ -x $bin_dir/mmapzero-actor ]]; then
  rc=0
  timeout 60 "$bin_dir/mmapzero-actor" \
    --coordinator "$(cat "$data/coordinator.addr")" --metrics-port 0 \
    --tls-ca "$data/tls/ca.pem" --tls-cert "$data/tls/client.pem" \
    --tls-key "$data/tls/client.key" >"$work/actor_as_client.log" 2>&1 ||
    rc=$?
  cat "$work/actor_as_client.log"
  [[ $rc -eq 78 ]] ||
    fail "an actor with a client's certificate exited $rc, not 78"
  grep -q "event=refused_for_good .*role 'client' may not call Register" \
    "$work/actor_as_client.log" ||
    fail "the refused actor did not say why it stopped"
fi

# A workload without buffers: the game would have nothing to decide.
cat >"$work/no_buffers.json" <<'JSON'
{"name": "empty", "memory_size": 1024, "instructions": [{"supply_us": 1}],
 "buffers": []}
JSON
expect_failure submit_no_buffers "at least one buffer" submit \
  "$work/no_buffers.json" --data-dir "$data"

run best best "$job" --out "$work/best.json" --svg "$work/best.svg" \
  --data-dir "$data" --bound
grep -q 'VALID' "$work/best.err" || fail "best did not validate the solution"
grep -qE '^bound +<= [0-9.]+ \(LP relaxation\); at most [0-9.]+ below' \
  "$work/best.out" || fail "best --bound printed no bound: $(cat "$work/best.out")"
[[ -s $work/best.svg ]] || fail "best --svg wrote no picture"
run validate validate "$source_dir/examples/small.json" "$work/best.json"
grep -qw 'VALID' "$work/validate.out" || fail "the best solution is not valid"

# Unknown jobs, by a well-formed and a malformed id.
expect_failure status_unknown "no job 'job-999999'" status job-999999 \
  --data-dir "$data"
expect_failure best_unknown "no job 'nope'" best nope --out "$work/x.json" \
  --data-dir "$data"
[[ ! -e $work/x.json ]] || fail "best of an unknown job wrote a file"
expect_failure cancel_unknown "no job 'job-999999'" cancel job-999999 \
  --data-dir "$data"

# A malformed workload is refused before anything is sent.
echo '{"name": "broken", "buffers": [' >"$work/broken.json"
expect_failure submit_malformed "broken.json" submit "$work/broken.json" \
  --data-dir "$data"
echo '{"name": "bad", "memory_size": -5}' >"$work/bad_fields.json"
expect_failure submit_bad_fields "bad_fields.json" submit \
  "$work/bad_fields.json" --data-dir "$data"
expect_failure submit_bad_budget "--budget" submit \
  "$source_dir/examples/small.json" --budget 25h --data-dir "$data"
expect_failure submit_bad_network "--network: no network file" submit \
  "$source_dir/examples/small.json" --network "$work/no_such.pt" \
  --data-dir "$data"
# A job of the cpu preset starts from the network mmapzero ships.
if [[ $all_built -eq 1 ]]; then
  wait_until 60 "the learner starts $job from the shipped network" \
    grep -q "event=job_started job=$job .*initial_network=default" \
    "$data/learner.log"
fi
run list_after list --data-dir "$data"
[[ $(grep -c '^job-' "$work/list_after.out") -eq $jobs_before ]] ||
  fail "a refused submit changed the job list"

run cancel cancel "$job" --reason "test over" --data-dir "$data"
grep -q "$job cancelled" "$work/cancel.out" || fail "cancel did not cancel"
# The learner's last save is the job's network; registered, a new job
# starts from it, and the registry's copy outlives its name's deletion
# nowhere but in the jobs that use it.
if [[ $all_built -eq 1 ]]; then
  has_network() {
    "$mmapctl" status "$job" --json --data-dir "$data" | grep -q network_sha256
  }
  wait_until 60 "$job reports a network" has_network
  expect_failure networks_bad_name "is not a network name" networks import \
    --from-job "$job" --name "../x" --data-dir "$data"
  run networks_import networks import --from-job "$job" --name warm-small \
    --description "from the smoke job" --data-dir "$data"
  run networks_list networks list --data-dir "$data"
  grep -qE "^warm-small +[0-9]+ bytes .* $job .*OU=client" \
    "$work/networks_list.out" ||
    fail "networks list does not show warm-small from $job owned by the client"
  run networks_show networks show warm-small --data-dir "$data"
  grep -qE "^  mlp-training-300-seed1 +tpu-v4i +$job " \
    "$work/networks_show.out" ||
    fail "networks show does not list the workload $job trained on"
  run networks_export networks export warm-small --out "$work/warm.pt" \
    --data-dir "$data"
  expect_failure networks_taken "exists" networks import "$work/warm.pt" \
    --name warm-small --data-dir "$data"
  expect_failure networks_not_a_network "broken.json" networks import \
    "$work/broken.json" --name junk --data-dir "$data"
  run submit_warm submit "$source_dir/examples/small.json" --budget 10m \
    --network warm-small --data-dir "$data"
  warm_job=$(cat "$work/submit_warm.out")
  wait_until 60 "the learner starts $warm_job from warm-small's copy" \
    grep -q "event=job_started job=$warm_job .*initial_network=sha256:" \
    "$data/learner.log"
  run status_warm status "$warm_job" --data-dir "$data"
  grep -qE '^started from +warm-small$' "$work/status_warm.out" ||
    fail "status does not say $warm_job started from warm-small"
  run cancel_warm cancel "$warm_job" --data-dir "$data"
  # The network's own play here, fetched from the coordinator by name.
  run policy_named solve "$source_dir/examples/small.json" --solver policy \
    --set network=warm-small --data-dir "$data"
  grep -q "network warm-small .* from the coordinator" \
    "$work/policy_named.err" || fail "solve did not fetch warm-small"
  grep -q 'VALID' "$work/policy_named.err" ||
    fail "the named network's play did not validate"
  run networks_show_job networks show "$job" --data-dir "$data"
  grep -qE "^source: +$job$" "$work/networks_show_job.out" ||
    fail "networks show $job does not show the job's own network"
  run networks_delete networks delete warm-small --data-dir "$data"
  expect_failure networks_deleted "no network named 'warm-small'" networks \
    show warm-small --data-dir "$data"
  expect_failure submit_deleted "no network named 'warm-small'" submit \
    "$source_dir/examples/small.json" --network warm-small --data-dir "$data"
fi
run watch watch "$job" --for 20s --data-dir "$data"
grep -q 'cancelled' "$work/watch.out" || fail "watch did not show the end"
run list_json list --json --state cancelled --data-dir "$data"
grep -q "\"job_id\": \"$job\"" "$work/list_json.out" ||
  fail "list --state cancelled --json misses $job"
# Cancelled, it runs again with `resume` (its best kept), gets more time
# with `extend` within the 24-h maximum, and is cancelled again; the audit
# log names both changes.
run resume resume "$job" --budget 10m --data-dir "$data"
grep -qE "^$job (queued|running) again with a budget of 10m" "$work/resume.out" ||
  fail "resume did not queue $job again with its new budget"
expect_failure resume_running "extend gives this one more time" resume "$job" \
  --budget 10m --data-dir "$data"
expect_failure resume_no_budget "--budget" resume "$job" --data-dir "$data"
run extend extend "$job" --budget 5m --data-dir "$data"
grep -q "budget now 15m" "$work/extend.out" || fail "extend did not add 5m"
expect_failure extend_past_a_day "24-h" extend "$job" --budget 24h \
  --data-dir "$data"
run cancel_resumed cancel "$job" --data-dir "$data"
for event in job_resumed job_extended; do
  grep -q "\"event\":\"$event\"" "$data/coordinator/audit.jsonl" ||
    fail "the audit log has no $event line"
done
expect_failure extend_ended "resume runs a done or cancelled one again" \
  extend "$job" --budget 5m --data-dir "$data"
# Archived before it is deleted: one tar file that system tar unpacks, whose
# checksums hold, whose best validates against its workload, with the
# settings, the history and (whole cluster) the network.
run archive archive "$job" --out "$work/$job.tar" --data-dir "$data"
grep -qE "^archived $job \(cancelled\) to $work/$job.tar: [0-9]+ bytes" \
  "$work/archive.out" || fail "archive did not say what it wrote"
mkdir -p "$work/unpacked"
tar -xf "$work/$job.tar" -C "$work/unpacked" ||
  fail "tar cannot read the archive"
(cd "$work/unpacked/$job" && sha256sum --quiet -c SHA256SUMS) ||
  fail "the archive's checksums do not hold"
run validate_archived validate "$work/unpacked/$job/workload.json" \
  "$work/unpacked/$job/best.json"
for member in status.json config.json history.csv; do
  [[ -s "$work/unpacked/$job/$member" ]] || fail "the archive has no $member"
done
head -1 "$work/unpacked/$job/history.csv" | grep -q '^unix_ms,best_normalised_return' ||
  fail "history.csv has no header"
grep -q '"state": "JOB_STATE_CANCELLED"' "$work/unpacked/$job/status.json" ||
  fail "status.json does not say the job was cancelled"
if [[ $all_built -eq 1 ]]; then
  [[ -s "$work/unpacked/$job/network.pt" ]] || fail "the archive has no network"
fi
expect_failure archive_unwritable "$work/no_such_dir/x.tar" archive "$job" \
  --out "$work/no_such_dir/x.tar" --data-dir "$data"
# Deleted, it is gone from the list and the coordinator says what it freed.
run delete delete "$job" --data-dir "$data"
grep -qE "^deleted $job: freed [1-9][0-9]* bytes \(workload" "$work/delete.out" ||
  fail "delete did not say what it freed"
run list_after_delete list --data-dir "$data"
! grep -q "^$job " "$work/list_after_delete.out" ||
  fail "$job is still listed after delete"
expect_failure delete_again "no job '$job'" delete "$job" --data-dir "$data"
grep -q '"event":"job_deleted"' "$data/coordinator/audit.jsonl" ||
  fail "the audit log has no job_deleted line"

# Services that died are started again by a second `local up`, beside the
# ones still running, each on the address it had, so that they still reach
# it; the restarted coordinator keeps its jobs.
coordinator_address=$(cat "$data/coordinator.addr")
run list_before_kill list --data-dir "$data"
victims=(coordinator)
[[ $all_built -eq 1 ]] && victims+=(replay actor-0)  # in start order
victim_pids=()
for victim in "${victims[@]}"; do victim_pids+=("$(cat "$data/$victim.pid")"); done
kill -9 "${victim_pids[@]}"
all_dead() {
  local pid
  for pid in "${victim_pids[@]}"; do
    kill -0 "$pid" 2>/dev/null &&
      ! grep -q '^Z' <(awk '{print $3}' "/proc/$pid/stat" 2>/dev/null) &&
      return 1
  done
  return 0
}
wait_until 10 "a service outlived kill -9 (pids ${victim_pids[*]})" all_dead
expect_failure status_dead "not running or not serving" local status \
  --data-dir "$data"
# The second `up` takes the coordinator's config from a folder of the
# operator's (--config-dir); a folder that is not there is refused first.
expect_failure up_bad_config_dir "is not a folder" local up --data-dir "$data" \
  --config-dir "$work/no_such_configs"
mkdir -p "$work/configs"
sed 's/"max_finished_jobs": 0/"max_finished_jobs": 50/' \
  "$source_dir/deploy/k8s/base/config/coordinator.json" \
  >"$work/configs/coordinator.json"
run up_again local up --data-dir "$data" "${only[@]}" --wait 60s \
  --config-dir "$work/configs"
grep -q '"max_finished_jobs": 50' "$data/config/coordinator.json" ||
  fail "local up did not use the coordinator.json of --config-dir"
grep -q "starting what is not running: $(IFS=,; echo "${victims[*]}" | sed 's/,/, /g')$" \
  "$work/up_again.out" || fail "local up did not say what it starts again"
grep -qE "^restarted coordinator \(pid [0-9]+\) at $coordinator_address$" \
  "$work/up_again.out" || fail "the coordinator did not come back at $coordinator_address"
for victim in "${victims[@]:1}"; do
  grep -q "^restarted $victim (pid" "$work/up_again.out" ||
    fail "local up did not restart $victim"
done
coordinator_pid=$(cat "$data/coordinator.pid")
run status_again local status --data-dir "$data"
run list_after_restart list --data-dir "$data"
diff <(awk '{print $1}' "$work/list_before_kill.out") \
  <(awk '{print $1}' "$work/list_after_restart.out") ||
  fail "the restarted coordinator lists other jobs"
expect_failure up_thrice "already runs" local up --data-dir "$data" \
  "${only[@]}"

run down local down --data-dir "$data"
# Every service stops on SIGTERM within local down's 10 s.
if grep -q SIGKILL "$work/down.out"; then
  fail "local down had to kill a service: $(grep SIGKILL "$work/down.out")"
fi
if kill -0 "$coordinator_pid" 2>/dev/null &&
  ! grep -q '^Z' <(awk '{print $3}' "/proc/$coordinator_pid/stat" 2>/dev/null); then
  fail "the coordinator (pid $coordinator_pid) still runs after local down"
fi
ls "$data"/*.pid >/dev/null 2>&1 && fail "local down left pid files"
run status_down local status --data-dir "$data"
grep -q 'no local cluster' "$work/status_down.out" ||
  fail "local status after down shows services"
echo "PASS"
