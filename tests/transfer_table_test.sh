#!/usr/bin/env bash
# bench/transfer_table.py on a made-up result directory, run by ctest:
#   transfer_table_test.sh UNUSED SOURCE_DIR
# One program whose simulated latency is 10 % above the game's (a real
# program's loops): the 600-s cells are each run's simulated latency
# exactly, the 150-s cells the game's latency at that point scaled by the
# run's own simulated / game ratio, and the time to reach the zero agent's
# 600-s result is judged in simulated latency; over several seeds its
# median counts a seed that never reaches it as later than any time.
set -euo pipefail

source_dir=${2:?usage: transfer_table_test.sh UNUSED SOURCE_DIR}
work=$(mktemp -d "${TMPDIR:-/tmp}/transfer_table_test.XXXXXX")
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

# summary RUN_DIR PROGRAM SEED TAG NR GAME_LATENCY SIMULATED_LATENCY BUDGET
# WALL: all-slow latency 2000 us, max return 1000 us (return = nr * 1000),
# heuristic 1650 us simulated.
summary() {
  cat >"$1/logs/$2.b$8.s$3.$4.json" <<JSON
{"workload": "$2", "solver": "$4", "buffers": 10,
 "simulated_latency_us": $7, "heuristic_latency_us": 1650,
 "normalised_return": $5, "return_us": $(python3 -c "print($5 * 1000)"),
 "latency_us": $6, "all_slow_latency_us": 2000, "wall_seconds": $9}
JSON
}
# case PROGRAM SEED WARM_CURVE: one program-seed whose zero agent ends at
# nr 0.5 (game 1500, simulated 1575, ratio 1.05) and whose warm agent's
# best is WARM_CURVE ("SECONDS:NR ..."), ending at its last point with a
# simulated / game ratio of 1.1.
case_of() {
  local program=$1 seed=$2 curve=$3 run last
  run=$work/out/runs/$program.s$seed
  mkdir -p "$run/logs"
  last=${curve##*:}
  local game
  game=$(python3 -c "print(round(2000 - $last * 1000, 6))")
  summary "$run" "$program" "$seed" muzero "$last" "$game" \
      "$(python3 -c "print(round($game * 1.1, 6))")" 600 600.5
  summary "$run" "$program" "$seed" muzero_network_none 0.5 1500 1575 600 600.4
  cat >"$run/runs.csv" <<CSV
workload,buffers,budget_seconds,seed,solver,normalised_return,wall_seconds,evaluations,found_by
$program,10,600,$seed,muzero,$last,600.5,100,worker-1
$program,10,600,$seed,muzero:network=none,0.5,600.4,100,worker-1
CSV
  echo "solver,workload,elapsed_seconds,evaluations,best_normalised_return,recent_normalised_return" \
      >"$run/convergence.csv"
  local point
  for point in $curve; do
    echo "muzero seed $seed,$program,${point%%:*},10,${point##*:},${point##*:}" \
        >>"$run/convergence.csv"
  done
  echo "muzero:network=none seed $seed,$program,100,10,0.5,0.5" \
      >>"$run/convergence.csv"
}
# p: warm ends at nr 0.6 (game 1400 us, simulated 1540 us); nr 0.45 at
# 100 s (game 1550 -> 1705 simulated), 0.55 at 200 s (game 1450 -> 1595:
# not yet zero's 1575), 0.58 at 300 s (1420 -> 1562).
case_of p 1 "100:0.45 200:0.55 300:0.58 600:0.6"
# q, three seeds: the warm agent reaches the zero agent's result at 300 s,
# never (it ends at nr 0.45, 1705 us simulated), and at 100 s: the median
# counts "never" as later than any time, so 300 s.
case_of q 1 "100:0.45 200:0.55 300:0.58 600:0.6"
case_of q 2 "100:0.45"
case_of q 3 "100:0.58 600:0.6"
# r: two of three seeds never reach it, so neither does the median.
case_of r 1 "100:0.45 200:0.55 300:0.58 600:0.6"
case_of r 2 "100:0.45"
case_of r 3 "100:0.45"

python3 "$source_dir/bench/transfer_table.py" "$work/out" >"$work/table" ||
  fail "the table failed: $(cat "$work/table")"
cat "$work/table"
row=$(grep '^| p |' "$work/table") || fail "no row for p"
IFS='|' read -ra cells <<<"$row"
# Columns: 7 warm@150, 8 warm@600, 11 zero@600, 18 warm reaches zero@600.
[[ ${cells[7]} == " 0.9677x " ]] || fail "warm@150 '${cells[7]}' (1650 / 1705)"
[[ ${cells[8]} == " 1.0714x " ]] || fail "warm@600 '${cells[8]}' (1650 / 1540)"
[[ ${cells[11]} == " 1.0476x " ]] || fail "zero@600 '${cells[11]}' (1650 / 1575)"
[[ ${cells[18]} == " 300 s " ]] || fail "reach '${cells[18]}' (300 s, not 200 s)"
reach_of() {
  local row
  row=$(grep "^| $1 |" "$work/table") || fail "no row for $1"
  IFS='|' read -ra cells <<<"$row"
  echo "${cells[18]}"
}
[[ $(reach_of q) == " 300 s " ]] ||
  fail "q's reach '$(reach_of q)' (300 s, 'never' and 100 s, median 300 s)"
[[ $(reach_of r) == " no " ]] || fail "r's reach '$(reach_of r)' (no)"
echo PASS
