#!/usr/bin/env bash
# The image's root filesystem holds everything the binaries need: builds it
# with scripts/build-image --rootfs-only (mmdebstrap, Debian packages only),
# then, inside it with chroot and as the image's user (uid 10001, never
# root), runs `mmapctl solve --solver muzero` on the local cluster that
# solve starts (every service with mutual TLS), and checks that the job
# trained and that its best validates with `mmapctl validate` there too.
# Needs root (chroot, mounts), mmdebstrap and the Debian mirror; exits 77
# (skipped) without them. A few minutes (downloads the runtime packages).
#   image_chroot_test.sh BIN_DIR SOURCE_DIR
set -uo pipefail
bin="$1"
src="$2"

[[ $(id -u) == 0 ]] || { echo "skipped: needs root for chroot"; exit 77; }
command -v mmdebstrap >/dev/null ||
  { echo "skipped: no mmdebstrap (apt-get install mmdebstrap)"; exit 77; }

work=$(mktemp -d "${TMPDIR:-/tmp}/image_chroot_test.XXXXXX")
rootfs="$work/rootfs"
cleanup() {
  # Whatever the job left running inside, then the mounts, then the files.
  [[ -x $rootfs/usr/local/bin/mmapctl ]] &&
    chroot --userspec=10001:10001 "$rootfs" /usr/local/bin/mmapctl local down \
      --data-dir /var/lib/mmapzero/cluster >/dev/null 2>&1
  for mount in proc dev/pts dev; do
    mountpoint -q "$rootfs/$mount" && umount -l "$rootfs/$mount"
  done
  rm -rf "$work"
}
trap cleanup EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

if ! "$src/scripts/build-image" --bin "$bin" --rootfs-only "$rootfs" \
     >"$work/build.log" 2>&1; then
  tail -n 30 "$work/build.log"
  # No network to the Debian mirror is an environment limit, not a fault.
  grep -qiE "could not resolve|failed to fetch|temporary failure" \
    "$work/build.log" && { echo "skipped: the Debian mirror is unreachable"; exit 77; }
  fail "scripts/build-image --rootfs-only failed"
fi
echo "root filesystem: $(du -sh "$rootfs" | cut -f1), $(cat "$rootfs/etc/mmapzero-version")"

# Nothing from the build machine: the binaries' libraries all resolve
# inside the root filesystem.
for binary in "$rootfs"/usr/local/bin/*; do
  missing=$(chroot "$rootfs" /usr/bin/ldd "/usr/local/bin/$(basename "$binary")" |
            grep "not found" || true)
  [[ -z $missing ]] || fail "$(basename "$binary") lacks: $missing"
done
[[ $(stat -c %u "$rootfs/var/lib/mmapzero") == 10001 ]] ||
  fail "the image user's home is not its own"

mount -t proc proc "$rootfs/proc"
mount --bind /dev "$rootfs/dev"
cp "$src/examples/small.json" "$rootfs/var/lib/mmapzero/small.json"
chown 10001:10001 "$rootfs/var/lib/mmapzero/small.json"
as_user() {
  chroot --userspec=10001:10001 "$rootfs" /usr/bin/env -i \
    HOME=/var/lib/mmapzero PATH=/usr/local/bin:/usr/bin:/bin "$@"
}
as_user sh -c 'cd /var/lib/mmapzero && mmapctl solve small.json \
  --solver muzero --budget 15s --data-dir /var/lib/mmapzero/cluster \
  --out best.json' >"$work/solve.out" 2>"$work/solve.err"
rc=$?
cat "$work/solve.err"
[[ $rc == 0 ]] || fail "mmapctl solve inside the root filesystem exited $rc"
grep -qE 'job-[0-9]+ done: [1-9][0-9]* learner steps, [1-9][0-9]* games' \
  "$work/solve.err" || fail "the job did not train inside the image"
grep -q 'validated independently: VALID' "$work/solve.err" ||
  fail "the solution was not validated"
as_user mmapctl validate /var/lib/mmapzero/small.json \
  /var/lib/mmapzero/best.json >"$work/validate.out" 2>&1 ||
  { cat "$work/validate.out"; fail "mmapctl validate rejects the best"; }
grep -q "VALID" "$work/validate.out" || fail "validate said: $(cat "$work/validate.out")"
# Every file the services wrote belongs to the image's user.
owned_by_others=$(find "$rootfs/var/lib/mmapzero" ! -uid 10001 | head -3)
[[ -z $owned_by_others ]] || fail "files not owned by uid 10001: $owned_by_others"
echo "PASS: trained and validated inside the image's root filesystem as uid 10001"
