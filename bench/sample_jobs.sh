#!/usr/bin/env bash
# Samples, every --every seconds until stopped, the counters of job-000001
# on every local cluster under --clusters (the folders bench/agent_matrix.sh
# makes per run), one CSV row per cluster and sample: the unix time, the
# cluster's folder name, the job's state, games, moves, how its games used
# the best game (best_starts, followed_moves, rejoined, unchanged,
# best_start_window), its best simulated latency and learner step. Run it
# beside agent_matrix.sh to see how these move during a run, not only at
# its end:
#   bench/sample_jobs.sh --clusters OUT/clusters --out OUT/samples.csv &
#   bench/agent_matrix.sh --out OUT ...; kill %1
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
root="$(dirname "$here")"
clusters=""
out=""
every=10
bin="$root/build/bin"
while [[ $# -gt 0 ]]; do
  case "$1" in
    --clusters) clusters="$2"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    --every) every="$2"; shift 2 ;;
    --bin) bin="$2"; shift 2 ;;
    *) echo "sample_jobs.sh: unknown argument '$1'" >&2; exit 2 ;;
  esac
done
if [[ -z "$clusters" || -z "$out" ]]; then
  echo "sample_jobs.sh: --clusters DIR and --out FILE are required" >&2
  exit 2
fi
if [[ ! -x "$bin/mmapctl" ]]; then
  echo "sample_jobs.sh: no mmapctl in $bin" >&2
  exit 2
fi
[[ -f "$out" ]] || echo "unix_seconds,cluster,state,games,moves,best_starts,followed_moves,rejoined,unchanged,best_start_window,best_latency_us,learner_step" >"$out"
while sleep "$every"; do
  for dir in "$clusters"/*/; do
    [[ -d "$dir" ]] || continue
    # A cluster that is starting or gone answers nothing: no row.
    "$bin/mmapctl" status job-000001 --data-dir "$dir" --json 2>/dev/null |
      python3 -c '
import json, sys, time
try:
    job = json.load(sys.stdin)
except ValueError:
    sys.exit(0)
keys = ("state", "games", "moves", "best_starts", "followed_moves",
        "rejoined", "unchanged", "best_start_window", "best_latency_us",
        "learner_step")
print(",".join([str(int(time.time())), sys.argv[1]] +
               [str(job.get(key, 0)) for key in keys]))
' "$(basename "$dir")" >>"$out" || true
  done
done
