# tests/cli/lib.sh — sourced by the CLI tests: $RSSIM, $SRC, a scratch
# folder $T (removed on exit), and small assertion helpers that count.
set -u
RSSIM=$(realpath "$1")
SRC=$(cd "$2" && pwd)
T=$(mktemp -d "${TMPDIR:-/tmp}/rssim-cli.XXXXXX")
trap 'rm -rf "$T"' EXIT
export RSSIM_PRESETS="$SRC/models/presets" RSSIM_SCRIPTS="$SRC/scripts"
passed=0
failed=0

ok() { passed=$((passed + 1)); }
bad() { failed=$((failed + 1)); echo "FAIL: $*" >&2; }
check() { # check "what" command...
  local what=$1; shift
  if "$@"; then ok; else bad "$what"; fi
}
# expect_status CODE "what" command... (stdout/stderr kept in $T/out, $T/err)
expect_status() {
  local want=$1 what=$2; shift 2
  "$@" >"$T/out" 2>"$T/err"
  local got=$?
  if [ "$got" = "$want" ]; then ok; else bad "$what: exit $got, want $want; stderr: $(head -c 400 "$T/err")"; fi
}
stderr_has() { # stderr_has "what" pattern
  if grep -q -- "$2" "$T/err"; then ok; else bad "$1: stderr lacks '$2': $(head -c 400 "$T/err")"; fi
}
stdout_has() {
  if grep -q -- "$2" "$T/out"; then ok; else bad "$1: stdout lacks '$2': $(head -c 400 "$T/out")"; fi
}
sql() { sqlite3 -batch -noheader "$1" "$2"; }
stat_is() { # stat_is NAME VALUE: a field of `rssim trace stats` output saved in $T/out
  local got
  got=$(awk -v k="$1" '$1 == k { print $2 }' "$T/out")
  if [ "$got" = "$2" ]; then ok; else bad "stats $1 = '$got', want '$2'"; fi
}
finish() {
  echo "$passed passed, $failed failed"
  [ "$failed" = 0 ]
}
