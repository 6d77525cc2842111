#!/usr/bin/env bash
# `mmapctl imitate` through the real binary, run by ctest:
#   imitate_test.sh MMAPCTL SOURCE_DIR
#  - bad input is refused naming what is wrong (no workload, no --out, a
#    missing workload file, --steps 0, --solutions not a folder, a given
#    solution that does not validate), exit non-zero, nothing written;
#  - two workloads imitated for a few steps: the network file is written
#    and the report gives each workload's agreement before and after;
#  - `solve --solver policy` plays that network, greedily and with drawn
#    games (`samples`), to plans that validate.
set -euo pipefail

mmapctl=${1:?usage: imitate_test.sh MMAPCTL SOURCE_DIR}
source_dir=${2:?source dir missing}
work=$(mktemp -d "${TMPDIR:-/tmp}/imitate_test.XXXXXX")
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

small=$source_dir/examples/small.json
"$mmapctl" generate --family transformer --buffers 300 --seed 7 \
  --out "$work/t300.json" >/dev/null

# refused CASE EXPECTED ARGS...: exits non-zero, stderr names EXPECTED,
# and no network was written.
refused() {
  local name=$1 expected=$2
  shift 2
  if "$mmapctl" imitate "$@" >"$work/out" 2>"$work/err"; then
    fail "$name: accepted"
  fi
  grep -qF -- "$expected" "$work/err" ||
    fail "$name: stderr does not say '$expected': $(cat "$work/err")"
  [[ ! -e $work/net.pt ]] || fail "$name: a network was written"
}
refused "no workload" "no workload given" --out "$work/net.pt"
refused "no --out" "--out" "$small"
refused "missing file" "$work/absent.json" "$work/absent.json" \
  --out "$work/net.pt"
refused "steps 0" "--steps: must be 1..10000000, got 0" "$small" \
  --out "$work/net.pt" --steps 0
refused "solutions not a folder" "--solutions: not a folder" "$small" \
  --out "$work/net.pt" --solutions "$small"
mkdir "$work/solutions"
echo '{"workload_name": "small", "decisions": [{"buffer_id": 0, "action": "DROP"}]}' \
  >"$work/solutions/small.json"
refused "invalid solution" "$work/solutions/small.json" "$small" \
  --out "$work/net.pt" --solutions "$work/solutions"
rm -r "$work/solutions"

"$mmapctl" imitate "$small" "$work/t300.json" --out "$work/net.pt" \
  --steps 40 --threads 1 >"$work/report" 2>"$work/err" ||
  fail "imitate: $(cat "$work/err")"
[[ -s $work/net.pt ]] || fail "no network written"
grep -q "^t300.json  *[0-9][0-9]*  *[0-9.]*  *[0-9.]*$" "$work/report" ||
  fail "no agreement line for t300.json: $(cat "$work/report")"
grep -q "greedy agreement with the imitated plans" "$work/report" ||
  fail "no summary line: $(cat "$work/report")"
grep -q "imitating heuristic" "$work/err" ||
  fail "does not say what it imitates: $(cat "$work/err")"

for settings in "" "samples=8 temperature=0.5"; do
  sets=(--set "network=$work/net.pt")
  for s in $settings; do sets+=(--set "$s"); done
  "$mmapctl" solve "$work/t300.json" --solver policy "${sets[@]}" \
    --out "$work/plan.json" >/dev/null 2>"$work/err" ||
    fail "policy ($settings): $(cat "$work/err")"
  "$mmapctl" validate "$work/t300.json" "$work/plan.json" >/dev/null ||
    fail "the policy's plan ($settings) does not validate"
done
echo PASS
