#!/usr/bin/env bash
# The shipped pretrained network (networks/), run by ctest:
#   shipped_network_test.sh MMAPCTL SOURCE_DIR
#  - it ships: networks/default-cpu.pt of at most 5 MB, with the manifest of
#    the jobs that made it;
#  - nothing held out was trained on: no manifest workload is a module of
#    bench/real_programs/held_out.txt or of the lstm family, and no held-out
#    workload's checksum (the real held-out modules imported as
#    scripts/pretrain imports, the transfer benchmark's lstm programs
#    generated as it generates them) is in the manifest;
#  - `solve --solver policy` plays the compiled-in copy on the bundled
#    example: the result says network "default" and validates.
set -euo pipefail

mmapctl=${1:?usage: shipped_network_test.sh MMAPCTL SOURCE_DIR}
source_dir=${2:?source dir missing}
work=$(mktemp -d "${TMPDIR:-/tmp}/shipped_network_test.XXXXXX")
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

network=$source_dir/networks/default-cpu.pt
manifest=$source_dir/networks/default-cpu.manifest.tsv
[[ -f $network ]] || fail "no $network"
[[ -f $manifest ]] || fail "no $manifest"
size=$(stat -c %s "$network")
((size <= 5 * 1024 * 1024)) || fail "$network is $size bytes, over 5 MB"
jobs=$(($(wc -l <"$manifest") - 1))
((jobs > 0)) || fail "the manifest lists no job"

held_out=$source_dir/bench/real_programs/held_out.txt
trained=$(tail -n +2 "$manifest" | cut -f2 | sort -u)
trained_sums=$(tail -n +2 "$manifest" | cut -f3 | sort -u)
for module in $(grep -v '^#' "$held_out"); do
  grep -qx "$module" <<<"$trained" && fail "held-out $module was trained on"
  # As scripts/pretrain imports: from the source root, relative path.
  (cd "$source_dir" && "$mmapctl" import "testdata/hlo/$module" \
    --hardware tpu-v4i --out "$work/held.json" >/dev/null 2>"$work/err") ||
    fail "import $module: $(cat "$work/err")"
  sum=$(sha256sum "$work/held.json" | cut -d' ' -f1)
  grep -qx "$sum" <<<"$trained_sums" &&
    fail "held-out $module (sha256 $sum) is in the training set"
done
grep -q '^lstm-' <<<"$trained" && fail "the lstm family was trained on"
for spec in lstm-1000@tpu-v4i lstm-3000@tpu-v4i lstm-3000@gpu-h100 \
            lstm-10000@tpu-v4i; do
  program=${spec%@*}
  "$mmapctl" generate --family lstm --buffers "${program##*-}" \
    --profile "${spec#*@}" --seed 1 --mode training --out "$work/held.json" \
    >/dev/null
  sum=$(sha256sum "$work/held.json" | cut -d' ' -f1)
  grep -qx "$sum" <<<"$trained_sums" && fail "$spec is in the training set"
done
echo "$jobs jobs in the manifest; no held-out workload among them"

"$mmapctl" solve "$source_dir/examples/small.json" --solver policy --json \
  --out "$work/policy.json" >"$work/summary.json" 2>"$work/err" ||
  fail "solve --solver policy: $(cat "$work/err")"
python3 - "$work/summary.json" <<'EOF' || fail "the policy's result"
import json, sys
summary = json.load(open(sys.argv[1]))
network = summary["settings"]["network"]
assert network == "default", f"network {network!r}"
print(f"the shipped network plays the example: "
      f"{summary['speedup_over_heuristic']:.4f}x over the heuristic")
EOF
"$mmapctl" validate "$source_dir/examples/small.json" "$work/policy.json" \
  >/dev/null || fail "the policy's plan does not validate"
echo PASS
