#!/usr/bin/env bash
# scripts/pretrain with its imitation stage, through the real binaries and
# a real local cluster, run by ctest:
#   pretrain_test.sh MMAPCTL SOURCE_DIR
#  - a bad --imitate-steps is refused naming it, exit 2;
#  - --imitate-steps 20 on two small workloads: the imitated network is
#    registered as NAME-imitated, the chain's first job starts from it
#    (the manifest's network_from), the next from the job before, and the
#    last job's network is exported;
#  - run again with the same --work: nothing is imitated or trained again.
set -euo pipefail

mmapctl=${1:?usage: pretrain_test.sh MMAPCTL SOURCE_DIR}
source_dir=${2:?source dir missing}
bin=$(dirname "$mmapctl")
work=$(mktemp -d "${TMPDIR:-/tmp}/pretrain_test.XXXXXX")
cleanup() {
  "$mmapctl" local down --data-dir "$work/chain/cluster" >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

if "$source_dir/scripts/pretrain" --bin "$bin" --work "$work/bad" \
    --imitate-steps x >/dev/null 2>"$work/err"; then
  fail "--imitate-steps x accepted"
fi
grep -qF -- "--imitate-steps: 'x' is not a whole number" "$work/err" ||
  fail "stderr does not name --imitate-steps: $(cat "$work/err")"

"$mmapctl" generate --family transformer --buffers 300 --seed 7 \
  --out "$work/t300.json" >/dev/null
pretrain() {
  "$source_dir/scripts/pretrain" --bin "$bin" --work "$work/chain" \
    --out "$work/net.pt" --name chain --minutes 1 --job-seconds 5 \
    --threads 1 --imitate-steps 20 \
    --workloads "$source_dir/examples/small.json $work/t300.json"
}
pretrain 2>"$work/first.log" || fail "pretrain: $(tail -5 "$work/first.log")"
grep -q "imitating the heuristic on 2 workloads, 20 steps" "$work/first.log" ||
  fail "no imitation stage: $(cat "$work/first.log")"
grep -q "registered chain-imitated" "$work/first.log" ||
  fail "chain-imitated was not registered: $(cat "$work/first.log")"
manifest=$work/net.manifest.tsv
[[ -s $work/net.pt && -f $manifest ]] || fail "no network or manifest written"
jobs=$(($(wc -l <"$manifest") - 1))
((jobs >= 2)) || fail "$jobs jobs in a minute of 5-s jobs"
[[ $(awk -F'\t' 'NR == 2 { print $7 }' "$manifest") == chain-imitated ]] ||
  fail "the first job did not start from chain-imitated: $(sed -n 2p "$manifest")"
[[ $(awk -F'\t' 'NR == 3 { print $7 }' "$manifest") == \
   $(awk -F'\t' 'NR == 2 { print $8 }' "$manifest") ]] ||
  fail "the second job did not start from the first: $(sed -n 3p "$manifest")"

pretrain 2>"$work/again.log" || fail "pretrain again: $(tail -5 "$work/again.log")"
if grep -q "imitating" "$work/again.log"; then
  fail "imitated again on resume"
fi
(($(wc -l <"$manifest") - 1 == jobs)) || fail "trained again on resume"
echo "pretrain_test: passed ($jobs jobs)"
