#!/usr/bin/env bash
# bench/arms_bench.sh end to end at a 1-s budget, run by ctest:
#   arms_bench_test.sh MMAPCTL SOURCE_DIR
#  - two arms, two seeds on the generated mlp-300: four finished cases and
#    a table row per arm, each with its seeds, median and ratio to the
#    first arm (1.00000 for the first itself);
#  - a second run finds every case done and runs nothing;
#  - a malformed arm or one without an mmapctl is refused, naming it.
set -euo pipefail

mmapctl=${1:?usage: arms_bench_test.sh MMAPCTL SOURCE_DIR}
source_dir=${2:?source dir missing}
script=$source_dir/bench/arms_bench.sh
bin=$(dirname "$mmapctl")
work=$(mktemp -d "${TMPDIR:-/tmp}/arms_bench_test.XXXXXX")
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

run_arms() {
  bash "$script" --out "$work/a" --program mlp-300 --seeds "1 2" --budget 1 \
    --arm "plan=$bin:heuristic" --arm "es=$bin:es:population=16"
}
run_arms >"$work/out" 2>"$work/err" || { cat "$work/err"; fail "the arms failed"; }
cat "$work/err" "$work/out"
for c in plan.s1 plan.s2 es.s1 es.s2; do
  [[ -f $work/a/$c/done ]] || fail "case $c did not finish"
done
grep -qE '^\| plan \| [0-9.]+ ms \(1\.0000x, 0\.[0-9]+\) \| [0-9.]+ ms .* \| 1\.00000 \| – \| – \|$' \
  "$work/out" || fail "no row for the first arm"
grep -qE '^\| es \| [0-9.]+ ms \(' "$work/out" || fail "no row for ES"

run_arms >"$work/out2" 2>"$work/err2" || fail "the second run failed"
[[ $(grep -c "done before" "$work/err2") -eq 4 ]] ||
  fail "the second run did not skip the finished cases: $(cat "$work/err2")"
cmp -s "$work/out" "$work/out2" || fail "the table changed on a rerun"

if bash "$script" --out "$work/b" --arm "nocolon" 2>"$work/bad"; then
  fail "a malformed arm was accepted"
fi
grep -q "arm 'nocolon': expected NAME=BIN_DIR:SOLVER" "$work/bad" || fail "$(cat "$work/bad")"
if bash "$script" --out "$work/b" --arm "x=$work/nowhere:es" 2>"$work/bad"; then
  fail "an arm without mmapctl was accepted"
fi
grep -q "no mmapctl in $work/nowhere" "$work/bad" || fail "$(cat "$work/bad")"
echo PASS
