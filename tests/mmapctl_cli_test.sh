#!/usr/bin/env bash
# End-to-end test of the built mmapctl binary, run by ctest:
#   mmapctl_cli_test.sh MMAPCTL SCENARIO SOURCE_DIR
# Scenarios:
#   pipeline        generate -> inspect -> play -> validate -> evaluate -> render,
#                   then solve -> validate, in a temporary directory; every
#                   step exits 0 and writes its file; generation is
#                   byte-for-byte deterministic; play, validate and evaluate
#                   report the same return and latency.
#   bad_input       a missing file, an unknown command and a missing argument
#                   exit non-zero, and the message names what was wrong.
#   readme_example  the README's main job: scripts/run-example (local
#                   cluster, submit examples/small.json, watch, best).
set -euo pipefail

mmapctl=${1:?usage: mmapctl_cli_test.sh MMAPCTL SCENARIO SOURCE_DIR}
scenario=${2:?scenario missing}
source_dir=${3:?source dir missing}

work=$(mktemp -d "${TMPDIR:-/tmp}/mmapctl_cli_test.XXXXXX")
trap 'rm -rf "$work"' EXIT

# shellcheck source=tests/mmapctl_test_lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/mmapctl_test_lib.sh"
fail() {
  echo "FAIL [$scenario]: $*" >&2
  exit 1
}

# json_number FILE KEY: the first number after "KEY": in FILE.
json_number() {
  sed -n "s/.*\"$2\": *\([-0-9.eE+]*\).*/\1/p" "$1" | head -n 1
}

# same_number NAME A B: A and B agree to 1e-6 relative.
same_number() {
  awk -v a="$2" -v b="$3" 'BEGIN {
    d = a - b; if (d < 0) d = -d; m = (a < 0 ? -a : a); if (m < 1) m = 1;
    exit !(a != "" && b != "" && d <= 1e-6 * m) }' ||
    fail "$1: $2 and $3 disagree"
}

# non_empty_file PATH NEEDLE: PATH exists, is non-empty and contains NEEDLE.
non_empty_file() {
  [[ -s $1 ]] || fail "$1 is missing or empty"
  grep -qF -- "$2" "$1" || fail "$1 does not contain '$2'"
}

case $scenario in
  pipeline)
    w=$work/w.json
    s=$work/s.json
    run generate generate --family mlp --buffers 300 --seed 1 --out "$w"
    non_empty_file "$w" '"buffers"'
    run generate_again generate --family mlp --buffers 300 --seed 1 \
      --out "$work/w_again.json"
    cmp -s "$w" "$work/w_again.json" ||
      fail "generate with the same seed wrote different bytes"
    run inspect inspect "$w"
    run play play "$w" --policy random --seed 1 --out "$s"
    non_empty_file "$s" '"decisions"'
    run validate validate "$w" "$s"
    run evaluate evaluate "$w" "$s"
    # The engine (play), the validator and evaluate agree on the figures.
    run play_json play "$w" --policy random --seed 1 --out "$s" --json
    run validate_json validate "$w" "$s" --json
    run evaluate_json evaluate "$w" "$s" --json
    for key in return_us normalised_return; do
      same_number "play vs validate $key" "$(json_number "$work/play_json.out" $key)" \
        "$(json_number "$work/validate_json.out" $key)"
      same_number "validate vs evaluate $key" \
        "$(json_number "$work/validate_json.out" $key)" \
        "$(json_number "$work/evaluate_json.out" $key)"
    done
    same_number "play latency vs evaluate modelled latency" \
      "$(json_number "$work/play_json.out" latency_us)" \
      "$(json_number "$work/evaluate_json.out" modelled_latency_us)"
    run render render "$w" "$s" --out "$work/layout.svg"
    non_empty_file "$work/layout.svg" '<svg'
    run solve solve "$w" --seconds 1 --out "$work/best.json"
    run validate_best validate "$w" "$work/best.json"
    # A binary workload (any name not ending in .json) plays the same game.
    run generate_binary generate --family mlp --buffers 300 --seed 1 \
      --out "$work/w.pb"
    run play_binary play "$work/w.pb" --policy drop-all --seed 1 \
      --out "$work/s.pb"
    run validate_binary validate "$work/w.pb" "$work/s.pb"
    ;;
  bad_input)
    missing=$work/no_such_workload.json
    expect_failure inspect_missing "$missing" inspect "$missing"
    expect_failure validate_missing "$missing" validate "$missing" "$work/s.json"
    expect_failure unknown_command "frobnicate" frobnicate
    expect_failure no_arguments "usage" validate
    ;;
  readme_example)
    example=$source_dir/examples/small.json
    [[ -f $example ]] || fail "$example is missing (the README's main job submits it)"
    rc=0
    (cd "$work" &&
      MMAPZERO_BUILD_DIR=$(dirname "$(dirname "$mmapctl")") \
        "$source_dir/scripts/run-example" --budget 10s \
        --data-dir "$work/cluster") >"$work/example.out" 2>&1 || rc=$?
    cat "$work/example.out"
    [[ $rc -eq 0 ]] || fail "scripts/run-example exited $rc"
    grep -q 'validated independently: VALID' "$work/example.out" ||
      fail "the best solution was not validated"
    [[ -s $work/example-best.json && -s $work/example-best.svg ]] ||
      fail "example-best.json / example-best.svg not written"
    ! ls "$work"/cluster/*.pid >/dev/null 2>&1 ||
      fail "pid files left behind: the cluster was not stopped"
    ;;
  *)
    fail "unknown scenario '$scenario'"
    ;;
esac
echo "PASS [$scenario]"
