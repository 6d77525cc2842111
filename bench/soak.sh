#!/usr/bin/env bash
# bench/soak: does any service of the local cluster grow without bound?
# `mmapctl local up` with several actors and a learner that trains every
# job at once, N jobs submitted (generated transformer programs, `cpu`
# preset) with a budget longer than the run, then every --interval the
# resident memory (VmRSS) and open file descriptors of every service
# process are sampled from /proc into a CSV. At the end the jobs are
# cancelled, the cluster stopped, and a table says, per service, the
# figures after the warm-up (--warmup) and at the end and how much they
# grew; an SVG plots RSS over time (bench/plot_soak.py).
#   bench/soak.sh [--minutes 60] [--jobs 4] [--actors 3] [--interval 60]
#                 [--warmup 10] [--buffers 3000] [--out DIR] [--bin DIR]
# Not a CI test: the point is an hour of running. Writes DIR/soak.csv
# (elapsed_s, service, pid, rss_kib, open_files), DIR/soak.svg and
# DIR/summary.md; the cluster's logs stay in DIR/data.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
bin=${MMAPZERO_BUILD_DIR:-$root/build}/bin
minutes=60
jobs=4
actors=3
interval=60
warmup=10
buffers=3000
out=
while [[ $# -gt 0 ]]; do
  case $1 in
    --minutes) minutes=${2:?--minutes needs a value}; shift ;;
    --jobs) jobs=${2:?--jobs needs a value}; shift ;;
    --actors) actors=${2:?--actors needs a value}; shift ;;
    --interval) interval=${2:?--interval needs seconds}; shift ;;
    --warmup) warmup=${2:?--warmup needs minutes}; shift ;;
    --buffers) buffers=${2:?--buffers needs a value}; shift ;;
    --out) out=${2:?--out needs a folder}; shift ;;
    --bin) bin=${2:?--bin needs a folder}; shift ;;
    *) echo "soak: unknown argument '$1'" >&2; exit 2 ;;
  esac
  shift
done
for n in minutes jobs actors interval warmup buffers; do
  [[ ${!n} =~ ^[0-9]+$ && ${!n} -gt 0 ]] ||
    { echo "soak: --$n must be a positive integer, got '${!n}'" >&2; exit 2; }
done
mmapctl=$bin/mmapctl
[[ -x $mmapctl ]] || { echo "soak: no mmapctl in $bin (build it)" >&2; exit 1; }
[[ -n $out ]] || out=$(mktemp -d -t mmapzero-soak.XXXXXX)
mkdir -p "$out"
data=$out/data
csv=$out/soak.csv

cleanup() { "$mmapctl" local down --data-dir "$data" >/dev/null 2>&1 || true; }
trap cleanup EXIT

echo "soak: $(nproc) cores, $minutes min, $jobs jobs of $buffers buffers," \
  "$actors actors; output in $out" >&2
"$mmapctl" local up --data-dir "$data" --actors "$actors" \
  --learner-jobs "$jobs" --wait 120s >&2
ids=()
for ((j = 1; j <= jobs; j++)); do
  workload=$out/transformer-$j.json
  "$mmapctl" generate --family transformer --buffers "$buffers" --seed "$j" \
    --mode training --out "$workload" >/dev/null
  ids+=("$("$mmapctl" submit "$workload" --budget "$((minutes + 10))m" \
    --name "soak-$j" --data-dir "$data")")
done
echo "soak: submitted ${ids[*]}" >&2

echo "elapsed_s,service,pid,rss_kib,open_files" >"$csv"
sample() {
  local elapsed=$1 pidfile name pid rss files
  for pidfile in "$data"/*.pid; do
    name=$(basename "$pidfile" .pid)
    pid=$(cat "$pidfile")
    rss=$(sed -n 's/^VmRSS:[[:space:]]*\([0-9]*\) kB$/\1/p' "/proc/$pid/status" \
      2>/dev/null) || true
    [[ -n $rss ]] || { echo "soak: $name (pid $pid) is gone" >&2; exit 1; }
    files=$(find "/proc/$pid/fd" -mindepth 1 -maxdepth 1 2>/dev/null | wc -l)
    echo "$elapsed,$name,$pid,$rss,$files" >>"$csv"
  done
}
start=$SECONDS
while true; do
  elapsed=$((SECONDS - start))
  sample "$elapsed"
  ((elapsed < minutes * 60)) || break
  sleep "$((interval < minutes * 60 - elapsed ? interval : minutes * 60 - elapsed))"
done
for id in "${ids[@]}"; do
  "$mmapctl" status "$id" --data-dir "$data" >>"$out/jobs.txt" 2>&1 || true
  "$mmapctl" cancel "$id" --reason "soak over" --data-dir "$data" >/dev/null
done
cleanup

python3 "$root/bench/plot_soak.py" "$csv" "$out/soak.svg" \
  --warmup-seconds "$((warmup * 60))" >"$out/summary.md"
cat "$out/summary.md"
echo "soak: plot $out/soak.svg" >&2
