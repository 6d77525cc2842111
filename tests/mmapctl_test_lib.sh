# Helpers shared by the mmapctl end-to-end test scripts; source it after
# setting $mmapctl (the binary) and $work (a scratch folder) and defining
# fail MESSAGE (prints and exits non-zero).

# run NAME CMD...: runs mmapctl with CMD, shows its output, fails on non-zero.
run() {
  local name=$1
  shift
  echo "+ mmapctl $*"
  local rc=0
  "$mmapctl" "$@" >"$work/$name.out" 2>"$work/$name.err" || rc=$?
  cat "$work/$name.out" "$work/$name.err"
  [[ $rc -eq 0 ]] || fail "'mmapctl $*' exited $rc"
}

# expect_failure NAME NEEDLE CMD...: mmapctl must exit non-zero and its stderr
# must contain NEEDLE.
expect_failure() {
  local name=$1 needle=$2
  shift 2
  echo "+ mmapctl $* (must fail)"
  local rc=0
  "$mmapctl" "$@" >"$work/$name.out" 2>"$work/$name.err" || rc=$?
  cat "$work/$name.err"
  [[ $rc -ne 0 ]] || fail "'mmapctl $*' exited 0"
  grep -qF -- "$needle" "$work/$name.err" ||
    fail "stderr of 'mmapctl $*' does not mention '$needle'"
}
