#!/usr/bin/env bash
# Writes a training set for `mmapctl imitate` into DIR: the generator's
# transformer, cnn and mlp programs (the lstm family is held out) at 500,
# 1,000, 2,000, 3,000 and 5,000 buffers, on tpu-v4i and gpu-h100, seeds 101
# and 102 (the held-out programs use seed 1 and other sizes: 60 programs),
# and every real module of testdata/hlo that bench/real_programs/held_out.txt
# does not hold out, imported for tpu-v4i, up to --max-buffers buffers (22
# with the default). Files are named FAMILY-BUFFERS@PROFILE-sSEED.json and
# MODULE.json; one that exists is kept (resumable).
# Usage: bench/imitation_set.sh --out DIR [--bin build/bin] [--max-buffers 30000]
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
bin=$root/build/bin
out=
max_buffers=30000
while [[ $# -gt 0 ]]; do
  case $1 in
    --out) out=${2:?--out needs a folder}; shift 2 ;;
    --bin) bin=${2:?--bin needs a folder}; shift 2 ;;
    --max-buffers) max_buffers=${2:?--max-buffers needs a number}; shift 2 ;;
    *) echo "imitation_set.sh: unknown argument '$1'" >&2; exit 2 ;;
  esac
done
[[ -n $out ]] || { echo "usage: imitation_set.sh --out DIR [--bin build/bin] [--max-buffers N]" >&2; exit 2; }
mmapctl=$bin/mmapctl
mkdir -p "$out"
for family in transformer cnn mlp; do
  for buffers in 500 1000 2000 3000 5000; do
    for profile in tpu-v4i gpu-h100; do
      for seed in 101 102; do
        file=$out/$family-$buffers@$profile-s$seed.json
        [[ -f $file ]] || "$mmapctl" generate --family "$family" \
          --buffers "$buffers" --profile "$profile" --seed "$seed" \
          --mode training --out "$file" >/dev/null
      done
    done
  done
done
held_out=$root/bench/real_programs/held_out.txt
for module in "$root"/testdata/hlo/*.hlo; do
  name=$(basename "$module")
  grep -qx "$name" "$held_out" && continue
  file=$out/${name%.hlo}.json
  [[ -f $file || -f $file.large ]] && continue
  # From the source root, so the workload names its module by the same
  # relative path on every machine.
  (cd "$root" && "$mmapctl" import "testdata/hlo/$name" --hardware tpu-v4i \
      --out "$file" 2>/dev/null >/dev/null)
  if python3 -c 'import json, sys
sys.exit(len(json.load(open(sys.argv[1]))["buffers"]) > int(sys.argv[2]))' \
      "$file" "$max_buffers"; then
    :
  else
    rm "$file"
    : >"$file.large"  # remembered, so that a rerun does not import it again
  fi
done
echo "imitation_set.sh: $(ls "$out"/*.json | wc -l) workloads in $out" >&2
