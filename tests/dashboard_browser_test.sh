#!/usr/bin/env bash
# The coordinator's dashboard in a real headless browser (Debian's
# chromium), on a real local cluster:
#  - `mmapctl local up` gives every service its own metrics port and prints
#    the dashboard's address; each /healthz answers 200;
#  - with a job running, the page (its JavaScript run by chromium) lists
#    the job as running, draws its best-return chart as an SVG polyline and
#    the workers' parameter lag;
#  - every metric that the alert rules and the Grafana dashboard use is
#    exported by one of the running services; with Debian's prometheus
#    installed, `local up --prometheus` runs it on the cluster: it scrapes
#    every service, has the job's series and loaded the alert rules;
#  - a few seconds later the page shows more samples of the job: the
#    charts update.
# With MMAPZERO_DASHBOARD_SCREENSHOT=FILE it also saves a screenshot there
# (docs/img/dashboard.png). Exits 77 (skipped) without chromium or the
# service binaries.
#   dashboard_browser_test.sh MMAPCTL SOURCE_DIR
set -euo pipefail

mmapctl=${1:?usage: dashboard_browser_test.sh MMAPCTL SOURCE_DIR}
source_dir=${2:?source dir missing}
bin_dir=$(dirname "$mmapctl")
chromium=$(command -v chromium || command -v chromium-browser || true)
[[ -n $chromium ]] || { echo "SKIP: no chromium (apt-get install chromium)"; exit 77; }

# shellcheck source=tests/mmapctl_test_lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/mmapctl_test_lib.sh"
skip_unless_services_built "$bin_dir"
cluster_workdir dashboard_browser_test

# browse URL: the page's DOM after its scripts ran (chromium's virtual
# time lets the first fetches finish).
browse() {
  "$chromium" --headless --no-sandbox --disable-gpu --disable-dev-shm-usage \
    --user-data-dir="$work/chromium" --virtual-time-budget=4000 \
    --dump-dom "$1" 2>"$work/chromium.log"
}

# http_get PORT PATH: the raw reply of 127.0.0.1:PORT (bash's /dev/tcp).
http_get() {
  exec 3<>"/dev/tcp/127.0.0.1/$1" || return 1
  printf 'GET %s HTTP/1.0\r\n\r\n' "$2" >&3
  cat <&3
  exec 3<&-
}

# With Debian's prometheus installed, `up --prometheus` starts it too.
prometheus_flag=()
command -v prometheus >/dev/null && prometheus_flag=(--prometheus)
run up local up --data-dir "$data" "${prometheus_flag[@]}"
dashboard=$(grep -oE 'dashboard: http://127\.0\.0\.1:[0-9]+/' "$work/up.out" |
            cut -d' ' -f2)
[[ -n $dashboard ]] || fail "local up printed no dashboard address"
services=(coordinator replay learner actor-0 reanalyse-0)
for role in "${services[@]}"; do
  [[ -s $data/$role.metrics ]] || fail "no $data/$role.metrics"
  port=$(cut -d: -f2 "$data/$role.metrics")
  http_get "$port" /healthz >"$work/health.txt" || true
  head -n1 "$work/health.txt" | grep -q ' 200 ' ||
    fail "$role /healthz answered: $(cat "$work/health.txt")"
done
ports=$(for s in "${services[@]}"; do cat "$data/$s.metrics"; done | sort -u | wc -l)
[[ $ports == 5 ]] || fail "metrics ports are not distinct: $(cat "$data"/*.metrics)"

export MMAPZERO_DATA_DIR=$data
run submit submit "$source_dir/examples/small.json" --budget "$(scaled 120)s"
job=$(grep -oE 'job-[0-9]+' "$work/submit.out" | head -n1)
[[ -n $job ]] || fail "no job id from submit"
# Running, with a few history samples (one every 2 s).
wait_until 60 "$job running" \
  sh -c "\"$mmapctl\" status $job --data-dir \"$data\" 2>/dev/null | grep -q running"
sleep 7

browse "$dashboard" >"$work/dom1.html" || fail "chromium failed: $(tail -5 "$work/chromium.log")"
grep -q "data-job-id=\"$job\"" "$work/dom1.html" ||
  { head -c 3000 "$work/dom1.html"; fail "the page does not list $job"; }
grep -q 'class="text state-running">running<' "$work/dom1.html" ||
  fail "the page does not show $job running"
grep -qE '<svg id="chart-best"[^>]*>.*<polyline points="[0-9.]+,[0-9.]+ [0-9.]+,' \
  "$work/dom1.html" || fail "the best-return chart has no line"
grep -q '>actor<' "$work/dom1.html" || fail "the workers table lists no actor"
samples1=$(grep -oE "$job \(running, [0-9]+ samples\)" "$work/dom1.html" |
           grep -oE '[0-9]+ samples' | cut -d' ' -f1)
[[ -n $samples1 ]] || fail "no sample count for $job on the page"
echo "first view: $job running, $samples1 samples"

# Every metric the alert rules and the Grafana dashboard use is exported
# by a service of this running cluster (a renamed metric fails here). A
# job's series appear with its first event (a reanalysed trajectory, say),
# so the services are scraped again until all are there.
all_exported() {
  : >"$work/metrics.txt"
  for file in "$data"/*.metrics; do
    http_get "$(cut -d: -f2 "$file")" /metrics >>"$work/metrics.txt" || true
  done
  for name in $(grep -ohE 'mmapzero_[a-z0-9_]+' \
                  "$source_dir/deploy/prometheus/rules.yml" \
                  "$source_dir/deploy/grafana/mmapzero.json" | sort -u); do
    grep -qE "^$name(\{| )" "$work/metrics.txt" || { why=$name; return 1; }
  done
}
wait_until 30 "a metric of deploy/prometheus/rules.yml or deploy/grafana/mmapzero.json is not exported" \
  all_exported
echo "every metric of the alert rules and the Grafana dashboard is exported"

if ((${#prometheus_flag[@]})); then
  # Prometheus scrapes all five services (up == 1 for each) and has the job's
  # series; its rules loaded without error.
  port=$(cut -d: -f2 "$data/prometheus.metrics")
  scraped() {
    http_get "$port" '/api/v1/query?query=sum(up)' |
      grep -q '"value":\[[0-9.]*,"5"\]'
  }
  wait_until 30 "Prometheus scrapes the five services" scraped
  has_learner_step() {
    http_get "$port" '/api/v1/query?query=mmapzero_job_learner_step' |
      grep -q "\"job\":\"$job\""
  }
  wait_until 30 "Prometheus has no learner step of $job" has_learner_step
  http_get "$port" /api/v1/rules | grep -q '"name":"MMapZeroJobWithoutLearner"' ||
    fail "Prometheus did not load the alert rules"
  # Every Grafana panel's query ($job as .*) runs on it (node reads the
  # dashboard's JSON; scripts/install-deps --test installs it).
  empty=()
  command -v node >/dev/null || fail "no node to read the Grafana dashboard"
  while IFS= read -r expr; do
    query=$(node -e 'console.log(encodeURIComponent(JSON.parse(process.argv[1])))' "$expr")
    reply=$(http_get "$port" "/api/v1/query?query=$query")
    grep -q '"status":"success"' <<<"$reply" || fail "Grafana query $expr: $reply"
    grep -q '"result":\[\]' <<<"$reply" && empty+=("$expr")
  done < <(node "$source_dir/deploy/check/grafana-exprs.js" \
             "$source_dir/deploy/grafana/mmapzero.json")
  echo "prometheus: scrapes every service, has $job's series and the alert rules;" \
       "every Grafana query runs (${#empty[@]} without data yet: rates need two scrapes)"
fi

sleep 6
browse "$dashboard" >"$work/dom2.html" || fail "chromium failed again"
samples2=$(grep -oE "$job \([a-z]+, [0-9]+ samples\)" "$work/dom2.html" |
           grep -oE '[0-9]+ samples' | cut -d' ' -f1)
echo "second view: $samples2 samples"
((samples2 > samples1)) || fail "the charts did not update ($samples1 -> $samples2 samples)"

if [[ -n ${MMAPZERO_DASHBOARD_SCREENSHOT:-} ]]; then
  "$chromium" --headless --no-sandbox --disable-gpu --disable-dev-shm-usage \
    --user-data-dir="$work/chromium" --virtual-time-budget=4000 \
    --hide-scrollbars --window-size=1280,860 \
    --screenshot="$MMAPZERO_DASHBOARD_SCREENSHOT" "$dashboard" 2>>"$work/chromium.log"
  echo "screenshot: $MMAPZERO_DASHBOARD_SCREENSHOT"
fi
run cancel cancel "$job"
echo "PASS"
