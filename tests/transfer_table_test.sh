#!/usr/bin/env bash
# bench/transfer_table.py on a made-up result directory, run by ctest:
#   transfer_table_test.sh UNUSED SOURCE_DIR
# One program whose simulated latency is 10 % above the game's (a real
# program's loops): the 600-s cells are each run's simulated latency
# exactly, the 150-s cells the game's latency at that point scaled by the
# run's own simulated / game ratio, and the time to reach the zero agent's
# 600-s result is judged in simulated latency.
set -euo pipefail

source_dir=${2:?usage: transfer_table_test.sh UNUSED SOURCE_DIR}
work=$(mktemp -d "${TMPDIR:-/tmp}/transfer_table_test.XXXXXX")
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

run=$work/out/runs/p.s1
mkdir -p "$run/logs"
# summary TAG NR GAME_LATENCY SIMULATED_LATENCY: all-slow latency 2000 us,
# max return 1000 us (return = nr * 1000), heuristic 1650 us simulated.
summary() {
  cat >"$run/logs/p.b$5.s1.$1.json" <<JSON
{"workload": "p", "solver": "$1", "buffers": 10,
 "simulated_latency_us": $4, "heuristic_latency_us": 1650,
 "normalised_return": $2, "return_us": $(python3 -c "print($2 * 1000)"),
 "latency_us": $3, "all_slow_latency_us": 2000, "wall_seconds": $6}
JSON
}
# warm ends at nr 0.6 (game 1400 us, simulated 1540 us, ratio 1.1); zero
# at nr 0.5 (game 1500, simulated 1575, ratio 1.05).
summary muzero 0.6 1400 1540 600 600.5
summary muzero_network_none 0.5 1500 1575 600 600.4
cat >"$run/runs.csv" <<CSV
workload,buffers,budget_seconds,seed,solver,normalised_return,wall_seconds,evaluations,found_by
p,10,600,1,muzero,0.6,600.5,100,worker-1
p,10,600,1,muzero:network=none,0.5,600.4,100,worker-1
CSV
# warm: nr 0.45 at 100 s (game 1550 -> 1705 simulated), 0.55 at 200 s
# (game 1450 -> 1595: not yet zero's 1575), 0.58 at 300 s (1420 -> 1562).
cat >"$run/convergence.csv" <<CSV
solver,workload,elapsed_seconds,evaluations,best_normalised_return,recent_normalised_return
muzero seed 1,p,100,10,0.45,0.45
muzero seed 1,p,200,20,0.55,0.55
muzero seed 1,p,300,30,0.58,0.58
muzero:network=none seed 1,p,100,10,0.5,0.5
CSV

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
echo PASS
