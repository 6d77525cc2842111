#!/usr/bin/env bash
# scripts/check-deploy on the repository's deploy/ passes, and on copies
# broken the ways a change could break them it fails naming the fault: a
# renamed flag (caught by the binary's own parser), a container that may
# write its root filesystem, a learner checkpoint volume that only one pod
# can mount, a value of the wrong type. Exits 77 (skipped) when kubectl,
# node or deploy/check's packages are missing (scripts/install-deps --test).
# Usage: deploy_check_test.sh BIN_DIR SOURCE_DIR
set -uo pipefail
bin="$1"
src="$2"
check="$src/scripts/check-deploy"

"$check" --bin "$bin" >/tmp/deploy_check.$$.out 2>&1
rc=$?
cat /tmp/deploy_check.$$.out
rm -f /tmp/deploy_check.$$.out
[[ $rc == 77 ]] && exit 77
[[ $rc == 0 ]] || { echo "FAIL: check-deploy on deploy/ exited $rc"; exit 1; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0
# expect_finding NAME PATTERN SED_EXPRESSION FILE: breaks a fresh copy of
# deploy/ with SED_EXPRESSION on FILE; check-deploy must fail and print
# PATTERN.
expect_finding() {
  local name="$1" pattern="$2" expression="$3" file="$4"
  rm -rf "$tmp/deploy"
  cp -r "$src/deploy" "$tmp/deploy"
  rm -rf "$tmp/deploy/check"
  sed -i "$expression" "$tmp/deploy/$file"
  cmp -s "$src/deploy/$file" "$tmp/deploy/$file" &&
    { echo "FAIL: $name: the edit changed nothing"; failures=$((failures + 1)); return; }
  local out
  out=$("$check" --bin "$bin" --deploy "$tmp/deploy" 2>&1)
  if [[ $? == 0 ]]; then
    echo "FAIL: $name: check-deploy passed"; failures=$((failures + 1))
  elif ! grep -q -- "$pattern" <<<"$out"; then
    echo "FAIL: $name: no '$pattern' in:"; echo "$out"; failures=$((failures + 1))
  else
    echo "ok: $name: $(grep -m1 -- "$pattern" <<<"$out")"
  fi
}

expect_finding "renamed flag" "mmapzero-actor --check-flags.*metrics_prt" \
  's/--metrics-port=9090/--metrics-prt=9090/' k8s/base/actor.yaml
expect_finding "stray argument" "unexpected argument 'learner'" \
  's/- --data-dir=\/var\/lib\/mmapzero/- learner/' k8s/base/learner.yaml
expect_finding "bad flag value" "mmapzero-replay: --data-dir is required" \
  's/--data-dir=\/var\/lib\/mmapzero/--data-dir=/' k8s/base/replay.yaml
expect_finding "bad config file" "mmapzero-coordinator: --lease-ttl-ms: must be" \
  's/"lease_ttl_ms": 10000/"lease_ttl_ms": -5/' k8s/base/config/coordinator.json
expect_finding "unknown config field" "replay.json: invalid mmapzero.ReplayServiceConfig JSON" \
  's/"sampler"/"samplr"/' k8s/base/config/replay.json
expect_finding "writable root filesystem" "readOnlyRootFilesystem must be true" \
  's/readOnlyRootFilesystem: true/readOnlyRootFilesystem: false/' k8s/base/learner.yaml
expect_finding "root user" "runAsNonRoot must be true" \
  's/runAsNonRoot: true/runAsNonRoot: false/' k8s/base/coordinator.yaml
expect_finding "learner volume for one pod" "ReadWriteMany PersistentVolumeClaim" \
  's/accessModes: \["ReadWriteMany"\]/accessModes: ["ReadWriteOnce"]/' k8s/base/learner.yaml
expect_finding "wrong type" "schema: .*replicas must be integer" \
  's/value: 8/value: "8"/' k8s/overlays/gpu/actor-replicas.yaml
expect_finding "no default deny" "no default-deny NetworkPolicy" \
  's/policyTypes: \["Ingress", "Egress"\]/policyTypes: ["Ingress"]/' k8s/base/network-policy.yaml
expect_finding "liveness from a port that answers" "livenessProbe must be an httpGet of /healthz" \
  '/livenessProbe:/,/path:/ s|path: /healthz|path: /metrics|' k8s/base/replay.yaml
if command -v promtool >/dev/null; then
  expect_finding "broken alert rule" "FAILED" \
    's/expr: up{job="mmapzero"} == 0/expr: up{job="mmapzero" == 0/' prometheus/rules.yml
  expect_finding "broken Grafana query" "mmapzero.json does not parse" \
    's/"expr": "mmapzero_coordinator_jobs"/"expr": "sum(mmapzero_coordinator_jobs"/' \
    grafana/mmapzero.json
fi

((failures == 0)) || { echo "$failures failures"; exit 1; }
echo "PASS"
