#!/usr/bin/env bash
# bench/agent_matrix.sh end to end at a tiny budget, run by ctest:
#   agent_matrix_test.sh MMAPCTL SOURCE_DIR
#  - two solvers, two seeds on the generated mlp-300: four rows in runs.csv,
#    each with a validated normalised return and its games;
#  - the convergence CSV has progress rows for ES; both tables print;
#  - a bad solver fails its run with the log named, and the rest goes on;
#  - an unknown workload or a missing --out is refused with a clear error.
set -euo pipefail

mmapctl=${1:?usage: agent_matrix_test.sh MMAPCTL SOURCE_DIR}
source_dir=${2:?source dir missing}
script=$source_dir/bench/agent_matrix.sh
work=$(mktemp -d "${TMPDIR:-/tmp}/agent_matrix_test.XXXXXX")
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

bash "$script" --bin "$(dirname "$mmapctl")" --out "$work/m" --budget 1 \
  --seeds "1 2" --workloads mlp-300 --solvers "heuristic es nonsense" \
  >"$work/out" 2>"$work/err" || { cat "$work/err"; fail "the matrix failed"; }
cat "$work/err"
rows=$(tail -n +2 "$work/m/runs.csv" | wc -l)
[[ $rows -eq 4 ]] || fail "expected 4 runs, got $rows: $(cat "$work/m/runs.csv")"
awk -F, 'NR > 1 && !($6 > 0.3 && $6 <= 1) { bad = 1 } END { exit bad }' \
  "$work/m/runs.csv" || fail "a run without a plausible return"
awk -F, 'NR > 1 && $5 == "es" && !($8 > 100) { bad = 1 } END { exit bad }' \
  "$work/m/runs.csv" || fail "an ES run without its games"
grep -q '^es seed 2,mlp-300,' "$work/m/convergence.csv" ||
  fail "no convergence rows for ES seed 2"
grep -q 'mlp-300 seed 1 nonsense: FAILED (see ' "$work/err" ||
  fail "a failed run is not reported"
grep -qE '^\| mlp-300 \| 299 \| 1 s \| es \| 0\.[0-9]+ \| 0\.[0-9]+–0\.[0-9]+ \| 2 \|' \
  "$work/out" || fail "no median and range row for ES: $(cat "$work/out")"
python3 "$source_dir/bench/agent_matrix_table.py" --table "$work/m/runs.csv" \
  --wide >"$work/wide"
# (ES's median depends on the machine's speed: only its form is checked.)
grep -qE '^\| mlp-300 \| 299 \| 1 s \| 0\.4459 \(0\.4459–0\.4459\) \| 0\.[0-9]+ \(' \
     "$work/wide" ||
  fail "no wide row: $(cat "$work/wide")"

if bash "$script" --bin "$(dirname "$mmapctl")" --out "$work/n" \
     --workloads nowhere-7 --solvers heuristic 2>"$work/bad"; then
  fail "an unknown workload was accepted"
fi
grep -q "unknown workload 'nowhere-7'" "$work/bad" || fail "$(cat "$work/bad")"
if bash "$script" 2>"$work/noout"; then fail "no --out was accepted"; fi
grep -q -- "--out DIR is required" "$work/noout" || fail "$(cat "$work/noout")"
echo PASS
