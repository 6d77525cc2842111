# Helpers shared by the mmapctl end-to-end test scripts; source it after
# setting $mmapctl (the binary), $work (a scratch folder) and, for a test
# of a local cluster, $data (its data dir). A script may define its own
# fail after sourcing this.

# fail MESSAGE: prints it and the last lines of every service log in $data.
fail() {
  echo "FAIL: $*" >&2
  local log
  for log in "${data:-/nonexistent}"/*.log; do
    [[ -f $log ]] && { echo "--- $log" >&2; tail -n 25 "$log" >&2; }
  done
  exit 1
}

# cluster_workdir NAME: a scratch folder $work (removed at exit) holding a
# local cluster's data dir $data (its cluster stopped at exit); only that
# data dir, never a coordinator from the environment.
cluster_workdir() {
  work=$(mktemp -d "${TMPDIR:-/tmp}/$1.XXXXXX")
  data=$work/data
  trap '"$mmapctl" local down --data-dir "$data" >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
  unset MMAPZERO_COORDINATOR MMAPZERO_DATA_DIR
}

start_time=$(date +%s)
# Seconds since the script sourced this, e.g. "12s", for progress lines.
elapsed() { echo "$(($(date +%s) - start_time))s"; }

# scaled SECONDS: SECONDS times MMAPZERO_TEST_TIME_SCALE (tests/CMakeLists.txt:
# 3 for sanitized binaries, else 1), for a budget within which something
# must happen.
scaled() { echo $(($1 * ${MMAPZERO_TEST_TIME_SCALE:-1})); }

# wait_until SECONDS WHAT CMD...: polls CMD every 0.2 s until it succeeds,
# for `scaled SECONDS`. CMD may set `why` to what it last found missing,
# which the failure adds to WHAT.
wait_until() {
  local timeout
  timeout=$(scaled "$1")
  local what=$2
  shift 2
  why=""
  local deadline=$(($(date +%s) + timeout))
  until "$@"; do
    (($(date +%s) < deadline)) || fail "after ${timeout}s: $what${why:+: $why}"
    sleep 0.2
  done
}

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

# learner_checkpoint_dir DATA JOB: the folder of JOB's learner checkpoints
# in a local cluster's data dir, learner/<job id>-<job uid> (the learner
# names it by the job's identity too; its lease fence, .fence, is beside
# it); its live name also when only the .old or .tmp copy of a save exists; learner/<job id> when there is none.
learner_checkpoint_dir() {
  local dir
  for dir in "$1/learner/learner/$2"-*; do
    [[ -e $dir && $dir != *.fence ]] || continue
    dir=${dir%.old}
    echo "${dir%.tmp}"
    return
  done
  echo "$1/learner/learner/$2"
}

# The service roles, in `local up`'s start order.
service_roles=(coordinator replay learner actor reanalyse)

# skip_unless_services_built BIN_DIR: exits 77 (ctest's SKIP_RETURN_CODE)
# unless every mmapzero-<role> binary is in BIN_DIR.
skip_unless_services_built() {
  local role
  for role in "${service_roles[@]}"; do
    if [[ ! -x $1/mmapzero-$role ]]; then
      echo "SKIP: $1/mmapzero-$role is not built"
      exit 77
    fi
  done
}
