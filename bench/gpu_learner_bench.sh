#!/usr/bin/env bash
# Builds bench/learner_bench.cc against a CUDA-enabled LibTorch and runs it:
# model::Learner steps/s and samples/s for the `cpu` and `paper` presets on
# the GPU and on that machine's CPU (docs/benchmarks.md, "Learner on a GPU").
#
#   bench/gpu_learner_bench.sh prepare        # here, on Debian 12
#   bench/gpu_learner_bench.sh device [ARGS]  # on the GPU machine: build + run
#   bench/gpu_learner_bench.sh build          # on the GPU machine: build only
#
# The GPU machine (the workplace's 'cuda' image: Ubuntu, gcc, CUDA, PyTorch
# with CUDA in python3) has LibTorch's C++ headers and libraries inside its
# PyTorch (torch/include, torch/lib) but no Abseil or Protobuf for C++ and no
# package registry. So:
#
# prepare (here) downloads Debian 12's Abseil 20220623 and Protobuf 3.21.12
#   packages (the versions the project builds with; `apt-get download`, so
#   the exact .debs of scripts/install-deps), unpacks them with dpkg-deb -x
#   and keeps, in build-gpu-deps/ (ignored by .gitignore's /build*/): the
#   headers (include/), the shared libraries (lib/) and protoc with its
#   libprotoc (bin/, lib/): 15 MiB, which the device tool carries.
#
# build (GPU machine) needs no CMake configure of the whole project (gRPC,
#   prometheus-cpp, SQLite and GTest are not there): the learner needs only
#   mmapzero_proto's messages, common/ (less common/rpc/ and tests) and
#   common/model/. It
#   - checks that python3's torch was built with the CXX11 ABI
#     (torch._C._GLIBCXX_USE_CXX11_ABI), since Debian's Abseil and Protobuf
#     are; with the old ABI it stops (the libraries would not link);
#   - generates proto/*.pb.{h,cc} with the carried protoc (from the working
#     tree's proto/, so a proto change needs no new prepare);
#   - compiles proto/, common/ and common/model/ and bench/learner_bench.cc
#     with ${CXX:-g++} -std=c++20 -O3 -DNDEBUG -D_GLIBCXX_USE_CXX11_ABI=1
#     -include cstdint (Abseil 20220623's headers miss <cstdint> includes
#     that gcc 13's libstdc++ no longer pulls in; harmless elsewhere)
#     -isystem build-gpu-deps/include -isystem $TORCH/include
#     -isystem $TORCH/include/torch/csrc/api/include, in parallel (xargs);
#   - links learner_bench against those objects (one static archive), the
#     carried libprotobuf / libabsl_*.so, and torch/lib's libtorch,
#     libtorch_cpu, libtorch_cuda, libc10, libc10_cuda, with
#     -Wl,--no-as-needed around torch_cuda so that its CUDA hooks load
#     (else torch::cuda::is_available() is false), -rpath to both library
#     folders (as DT_RPATH, --disable-new-dtags: a RUNPATH would not serve
#     the carried libraries' own dependencies on each other, and
#     libabsl_city.so was not found at run time), -rpath-link to the pip nvidia-* folders that libtorch_cuda
#     needs and --allow-shlib-undefined (what those libraries take from the
#     driver is found at run time). No find_package(Torch): the pip wheel's CMake config wants a
#     CUDA toolkit layout of its own, and the flags above are all it sets.
#   Output: build-gpu/bin/learner_bench.
#
# device = build, then: nvidia-smi and the environment into the log, then
#   learner_bench for both presets on cuda, then on the CPU (ARGS, when
#   given, replace these runs with one `learner_bench ARGS`); the logs
#   (build.log, learner_bench.log) in $OUT when set (the device tool), else
#   in build-gpu/. With the device tool, after `prepare`:
#       run(command="bench/gpu_learner_bench.sh device",
#           carry=["build-gpu-deps"], timeout_s=600)
#
# Environment: TORCH_DIR (default: python3's torch package folder; its
# include/ and lib/ are used), TORCH_LIB (default: $TORCH_DIR/lib), CXX,
# JOBS (default: nproc), DEPS (default: build-gpu-deps), BUILD
# (default: build-gpu).
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
deps=$(realpath -m "${DEPS:-build-gpu-deps}")
build=$(realpath -m "${BUILD:-build-gpu}")
jobs=${JOBS:-$(nproc)}

# Debian 12 packages: headers and libraries of Abseil and Protobuf, protoc.
debs=(libabsl-dev libabsl20220623 libprotobuf-dev libprotobuf32
      libprotoc32 protobuf-compiler)

prepare() {
  local tmp
  tmp=$(mktemp -d)
  chmod 755 "$tmp"  # apt's download user writes there
  trap 'rm -rf "$tmp"' RETURN
  (cd "$tmp" && apt-get download "${debs[@]}")
  for deb in "$tmp"/*.deb; do dpkg-deb -x "$deb" "$tmp/root"; done
  rm -rf "$deps"
  mkdir -p "$deps/include" "$deps/lib" "$deps/bin"
  cp -a "$tmp/root/usr/include/absl" "$tmp/root/usr/include/google" \
    "$deps/include/"
  # Shared libraries only (and their .so links): the static archives would
  # quadruple the size.
  cp -a "$tmp"/root/usr/lib/x86_64-linux-gnu/lib{absl_,protobuf.,protoc.}*so* \
    "$deps/lib/"
  cp -a "$tmp/root/usr/bin/protoc" "$deps/bin/"
  (cd "$tmp" && ls -- *.deb) >"$deps/VERSIONS"
  echo "== $deps: $(du -sh "$deps" | cut -f1) ($(tr '\n' ' ' <"$deps/VERSIONS"))"
}

# Sources of the learner: common/ less rpc/ and tests, with common/model/.
learner_sources() {
  find common -name '*.cc' ! -name '*_test.cc' ! -path 'common/rpc/*' |
    sort
}

build() {
  [[ -x $deps/bin/protoc ]] || {
    echo "gpu_learner_bench: no $deps/bin/protoc: run 'prepare' on Debian 12 and carry $deps" >&2
    exit 1
  }
  local torch=${TORCH_DIR:-$(python3 -c \
    'import os, torch; print(os.path.dirname(torch.__file__))')}
  if [[ -z ${TORCH_DIR:-} ]]; then
    local abi
    abi=$(python3 -c 'import torch; print(int(torch._C._GLIBCXX_USE_CXX11_ABI))')
    if [[ $abi != 1 ]]; then
      echo "gpu_learner_bench: $torch uses the pre-CXX11 ABI; Debian's Abseil and Protobuf use the CXX11 ABI and cannot be linked with it" >&2
      exit 1
    fi
  fi
  local cxx=${CXX:-g++}
  echo "== build $build: $($cxx --version | head -1); torch $torch"
  mkdir -p "$build/gen/proto" "$build/obj" "$build/bin"
  LD_LIBRARY_PATH=$deps/lib "$deps/bin/protoc" --proto_path=proto \
    --cpp_out="$build/gen/proto" proto/*.proto

  local torch_lib=${TORCH_LIB:-$torch/lib}
  local flags=(-std=c++20 -O3 -DNDEBUG -D_GLIBCXX_USE_CXX11_ABI=1 -pthread
               -include cstdint -w -I. -I"$build/gen" -isystem "$deps/include")
  # (-isystem /usr/include, for a LibTorch installed there, would break
  # libstdc++'s #include_next.)
  [[ $torch/include != /usr/include ]] && flags+=(-isystem "$torch/include")
  flags+=(-isystem "$torch/include/torch/csrc/api/include")
  local start=$SECONDS
  {
    for f in "$build"/gen/proto/*.pb.cc; do echo "$f"; done
    learner_sources
    echo bench/learner_bench.cc
  } | CXX=$cxx OBJ=$build/obj xargs -P "$jobs" -I{} sh -c \
      'o="$OBJ/$(echo "{}" | tr / _).o"; $CXX "$@" -c "{}" -o "$o" || { echo "FAILED: {}" >&2; exit 255; }' \
      sh "${flags[@]}"
  echo "== compiled in $((SECONDS - start))s"

  rm -f "$build/libmmapzero_learner.a"
  ar rcs "$build/libmmapzero_learner.a" \
    $(ls "$build"/obj/*.o | grep -v bench_learner_bench)
  local absl_libs=()
  for lib in "$deps"/lib/libabsl_*.so; do
    absl_libs+=("-l$(basename "$lib" .so | sed 's/^lib//')")
  done
  local site nvidia_links=()
  site=$(dirname "$torch")
  while read -r dir; do
    nvidia_links+=("-Wl,-rpath-link,$dir")
  done < <(find "$site/nvidia" -name 'lib*.so*' -printf '%h\n' 2>/dev/null |
             sort -u)
  local torch_libs=(-ltorch -ltorch_cpu -lc10)
  [[ -e $torch_lib/libtorch_cuda.so ]] &&
    torch_libs=(-Wl,--no-as-needed -ltorch_cuda -lc10_cuda -Wl,--as-needed
                "${torch_libs[@]}")
  $cxx -o "$build/bin/learner_bench" "$build/obj/bench_learner_bench.cc.o" \
    "$build/libmmapzero_learner.a" \
    -L"$deps/lib" -Wl,-rpath,"$deps/lib" -lprotobuf "${absl_libs[@]}" \
    -L"$torch_lib" -Wl,-rpath,"$torch_lib" "${torch_libs[@]}" \
    "${nvidia_links[@]}" -Wl,--allow-shlib-undefined -Wl,--disable-new-dtags \
    -pthread -ldl
  echo "== built $build/bin/learner_bench in $((SECONDS - start))s"
}

# One learner_bench run; a failure is logged and the next run goes on.
bench() {
  "$build/bin/learner_bench" "$@" || echo "== learner_bench $* exited $?"
}

device() {
  local log=${OUT:-$build}/learner_bench.log
  mkdir -p "$build" "$(dirname "$log")"
  build 2>&1 | tee "${OUT:-$build}/build.log"
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
  } 2>&1 | tee "$log"
}

case ${1:-} in
  prepare) prepare ;;
  build) build ;;
  device) shift; device "$@" ;;
  *) echo "usage: $0 prepare | build | device [learner_bench args]" >&2; exit 2 ;;
esac
