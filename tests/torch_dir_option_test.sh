#!/usr/bin/env bash
# -DMMAPZERO_TORCH_DIR, the GPU variant's way to its LibTorch
# (scripts/build-gpu), tried with Debian's own LibTorch laid out as
# PyTorch's package lays it out (include/, lib/): a fresh tree configures
# without find_package(Torch), links deps_smoke_test against that folder's
# libraries and the test's LibTorch case passes; a folder without
# lib/libtorch.so is refused at configure, named. About a minute (one
# LibTorch translation unit); exits 77 (skipped) without Debian's LibTorch.
#   torch_dir_option_test.sh UNUSED SOURCE_DIR
set -uo pipefail
src="$2"
debian_lib=/usr/lib/x86_64-linux-gnu

[[ -e $debian_lib/libtorch.so && -d /usr/include/torch ]] ||
  { echo "skipped: no Debian LibTorch (libtorch-dev)"; exit 77; }

work=$(mktemp -d "${TMPDIR:-/tmp}/torch_dir_option_test.XXXXXX")
trap 'rm -rf "$work"' EXIT
fail() {
  echo "FAILED: $*"
  exit 1
}

torch="$work/libtorch"
mkdir -p "$torch/include" "$torch/lib" "$work/empty/lib"
for dir in ATen c10 caffe2 torch; do
  ln -s "/usr/include/$dir" "$torch/include/$dir"
done
for lib in torch torch_cpu c10; do
  ln -s "$debian_lib/lib$lib.so" "$torch/lib/lib$lib.so"
done

echo "== a folder without lib/libtorch.so"
if cmake -S "$src" -B "$work/refused" -G Ninja \
     -DMMAPZERO_TORCH_DIR="$work/empty" >"$work/refused.log" 2>&1; then
  fail "configure accepted MMAPZERO_TORCH_DIR=$work/empty"
fi
# (CMake wraps the message's lines.)
tr -s ' \n' ' ' <"$work/refused.log" |
  grep -qF "MMAPZERO_TORCH_DIR=$work/empty: no lib/libtorch.so" ||
  { cat "$work/refused.log"; fail "no error naming the folder"; }

echo "== configure and build deps_smoke_test against $torch"
# One LibTorch unit: a precompiled header would only add its own build.
cmake -S "$src" -B "$work/build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DMMAPZERO_TORCH_DIR="$torch" -DMMAPZERO_PRECOMPILED_HEADERS=OFF \
  >"$work/configure.log" 2>&1 ||
  { cat "$work/configure.log"; fail "configure"; }
! grep -q '^Torch_DIR:' "$work/build/CMakeCache.txt" ||
  fail "find_package(Torch) ran although MMAPZERO_TORCH_DIR was set"
cmake --build "$work/build" --target deps_smoke_test >"$work/build.log" 2>&1 ||
  { tail -40 "$work/build.log"; fail "build"; }
grep -q "$torch/lib/libtorch_cpu.so" "$work/build/build.ninja" ||
  fail "deps_smoke_test is not linked against $torch/lib"
"$work/build/bin/deps_smoke_test" \
  --gtest_filter='DepsSmokeTest.TorchMatmulOnCpuMatchesHandResult' ||
  fail "deps_smoke_test"
echo "PASSED"
