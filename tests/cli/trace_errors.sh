#!/bin/bash
# trace_errors.sh — one bad trace per validation rule.  Each must make
# `rssim trace convert` (and `trace stats`) exit 2 with a stderr message
# starting "rssim: FILE:LINE:", and a failed convert must leave no output
# (neither OUT nor OUT.tmp).  docs/trace-format.md lists the messages.
# Run by ctest as: bash trace_errors.sh RSSIM_BINARY SOURCE_DIR
set -uo pipefail
RSSIM=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
"$RSSIM" --version >/dev/null || { echo "FAIL: cannot run $1" >&2; exit 1; }
work=$(mktemp -d "${TMPDIR:-/tmp}/rssim-cli-trace-errors.XXXXXX")
trap 'rm -rf "$work"' EXIT
cd "$work"

failures=0
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }

header() { printf '#rssim-trace\tv1\tdaemon=kv\nt_ns\top\tkey\tsize_bytes\tthread\taux\n'; }

# expect FILE LINE MESSAGE: both commands fail as described
expect() {
    local file=$1 line=$2 msg=$3 status
    for out in out.bin out.tsv.gz; do
        "$RSSIM" trace convert "$file" "$out" 2>err.txt >/dev/null
        status=$?
        [ "$status" -eq 2 ] || fail "$file: convert exit status $status, want 2"
        head -n 1 err.txt | grep -q "^rssim: $file:$line: " ||
            fail "$file: convert stderr '$(head -n 1 err.txt)' does not start with 'rssim: $file:$line: '"
        grep -qF -- "$msg" err.txt || fail "$file: convert stderr lacks '$msg': $(cat err.txt)"
        [ -e "$out" ] && fail "$file: failed convert left $out"
        [ -e "$out.tmp" ] && fail "$file: failed convert left $out.tmp"
    done
    "$RSSIM" trace stats "$file" 2>err.txt >/dev/null
    status=$?
    [ "$status" -eq 2 ] || fail "$file: stats exit status $status, want 2"
    head -n 1 err.txt | grep -q "^rssim: $file:$line: " || fail "$file: stats stderr '$(cat err.txt)'"
}

# wrong field count
{ header; printf '10\tGET\t1\t100\n20\tGET\t2\n'; } > field_count.tsv
expect field_count.tsv 4 "wrong field count: 3 fields, expected 4"

# non-numeric field
{ header; printf '10\tGET\tkey1\t100\n'; } > non_numeric.tsv
expect non_numeric.tsv 3 "non-numeric key 'key1'"

# negative size
{ header; printf '10\tSET\t1\t-5\n'; } > negative.tsv
expect negative.tsv 3 "negative size_bytes '-5'"

# time going backwards (after two good records: convert has already written some)
{ header; printf '10\tGET\t1\t100\n# comment\n20\tGET\t1\t100\n15\tGET\t1\t100\n'; } > backwards.tsv
expect backwards.tsv 6 "time goes backwards: t_ns 15 after 20"

# truncated binary record: 2 good records, then 20 of 32 bytes
{ header; printf '10\tGET\t1\t100\n20\tGET\t2\t100\n30\tGET\t3\t100\n'; } > good.tsv
"$RSSIM" trace convert good.tsv good.bin || fail "convert good.tsv"
head -c $((16 + 32 * 2 + 20)) good.bin > truncated.bin
expect truncated.bin 4 "record 3: truncated record (20 of 32 bytes)"

# wrong header
{ printf '#rssim-trace v1 daemon=kv\n'; printf 't_ns\top\tkey\tsize_bytes\tthread\taux\n'; } > header.tsv
expect header.tsv 1 "wrong header"

# wrong version
{ printf '#rssim-trace\tv9\tdaemon=kv\n'; printf 't_ns\top\tkey\tsize_bytes\tthread\taux\n'; } > version.tsv
expect version.tsv 1 "unsupported version 'v9'"

# unknown op
{ header; printf '10\tGET\t1\t100\n20\tPUT\t1\t100\n'; } > op.tsv
expect op.tsv 4 "unknown op 'PUT'"

if [ "$failures" -ne 0 ]; then
    echo "trace_errors.sh: $failures failure(s)" >&2
    exit 1
fi
echo "trace_errors.sh: ok"
