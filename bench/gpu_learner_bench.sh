#!/usr/bin/env bash
# model::Learner steps/s and samples/s for the `cpu` and `paper` presets on
# a GPU and on that machine's CPU (docs/benchmarks.md, "Learner on a GPU"),
# with learner_bench built against the machine's CUDA LibTorch by
# scripts/build-gpu (which says how and why):
#
#   scripts/build-gpu prepare               # here, on Debian 12
#   bench/gpu_learner_bench.sh [ARGS]       # on the GPU machine
#
# On the GPU machine, with build-gpu-deps/debs copied beside the checkout
# (scripts/build-gpu prepare made it), it builds learner_bench, writes nvidia-smi's view and the versions into
# the log, then runs learner_bench on cuda for both presets and on the CPU
# (ARGS, when given, replace these runs with one `learner_bench ARGS`). The
# logs (build.log, learner_bench.log) go to $OUT when set, else build-gpu/.
# Environment: as scripts/build-gpu (TORCH_DIR, DEPS, BUILD, JOBS).
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
build=$(realpath -m "${BUILD:-build-gpu}")
out=${OUT:-$build}
mkdir -p "$out"

scripts/build-gpu build --target learner_bench 2>&1 | tee "$out/build.log"

# One learner_bench run; a failure is logged and the next run goes on.
bench() {
  "$build/bin/learner_bench" "$@" || echo "== learner_bench $* exited $?"
}

{
  date -u
  nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv || true
  python3 -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda, "cudnn", torch.backends.cudnn.version())' || true
  lscpu | grep -E '^(Model name|CPU\(s\))' || true
  if [[ $# -gt 0 ]]; then
    bench "$@"
  else
    # The GPU rows, then the CPU's: `cpu` as usual, `paper` (seconds or
    # more a step on the CPU) as one warm-up and one timed Learner::Step.
    bench --devices=cuda
    bench --devices=cpu --networks=cpu
    bench --devices=cpu --networks=paper --warmup=1 --repeats=1 \
      --seconds=0 --passes=step
  fi
} 2>&1 | tee "$out/learner_bench.log"
