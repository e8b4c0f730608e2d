#!/bin/bash
# trace.sh — `rssim trace convert|stats` and `rssim gen`: help texts, the
# statistics of a known tiny trace, round trips through every encoding and
# compression (identical stats, identical re-encoded bytes), generator
# determinism, and usage errors.
# Run by ctest as: bash trace.sh RSSIM_BINARY SOURCE_DIR
set -euo pipefail
RSSIM=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
"$RSSIM" --version >/dev/null || { echo "FAIL: cannot run $1" >&2; exit 1; }
work=$(mktemp -d "${TMPDIR:-/tmp}/rssim-cli-trace.XXXXXX")
trap 'rm -rf "$work"' EXIT
cd "$work"

fail() { echo "FAIL: $*" >&2; exit 1; }
# stats without the lines that name the file and its encoding
core_stats() { "$RSSIM" trace stats "$1" | grep -Ev '^(file|format|compression) '; }

# ---- help ------------------------------------------------------------------
"$RSSIM" trace -h | grep -q 'usage: rssim trace convert IN OUT' || fail "trace -h"
"$RSSIM" trace convert -h | grep -q 'usage: rssim trace convert' || fail "trace convert -h"
"$RSSIM" trace stats -h | grep -q 'usage: rssim trace stats IN' || fail "trace stats -h"
"$RSSIM" gen -h | grep -q '^  kv ' || fail "gen -h lists kv"
"$RSSIM" gen kv -h > help.txt || fail "gen kv -h exit status"
for opt in seed keys events rate alpha size-dist size size-min size-max size-median \
           size-sigma get set del threads; do
    grep -q -- "--$opt " help.txt || fail "gen kv -h lacks --$opt"
done
grep -Eq -- '--keys INT +100000 ' help.txt || fail "gen kv -h shows defaults"

# ---- stats of a known tiny trace ---------------------------------------------
printf '#rssim-trace\tv1\tdaemon=kv\nt_ns\top\tkey\tsize_bytes\tthread\taux\n' > tiny.tsv
printf '# a comment\n' >> tiny.tsv
printf '1000\tGET\t7\t100\n' >> tiny.tsv
printf '1500\tSET\t7\t300\t1\t0\n' >> tiny.tsv
printf '2000\tGET\t9\t50\t2\t0\n' >> tiny.tsv
printf '2000\tDEL\t7\t0\n' >> tiny.tsv
printf '3000000123\tGET\t11\t8\n' >> tiny.tsv
cat > want.txt <<'EOF'
file            tiny.tsv
format          text
compression     none
daemon          kv
records         5
t_first_ns      1000
t_last_ns       3000000123
duration_s      2.999999123
op_GET          3
op_SET          1
op_DEL          1
distinct_keys   3
bytes_total     458
bytes_distinct  358
EOF
"$RSSIM" trace stats tiny.tsv > got.txt
diff -u want.txt got.txt || fail "stats of tiny.tsv"

# ---- round trips -------------------------------------------------------------
"$RSSIM" gen kv --keys 3000 --events 40000 --seed 5 --threads 3 -o a.bin
"$RSSIM" gen kv --keys 3000 --events 40000 --seed 5 --threads 3 -o a2.bin
cmp -s a.bin a2.bin || fail "gen is not byte-identical for the same seed"
"$RSSIM" gen kv --keys 3000 --events 40000 --seed 6 --threads 3 -o b.bin
cmp -s a.bin b.bin && fail "gen ignores the seed"
"$RSSIM" gen kv --keys 3000 --events 40000 --seed 5 --threads 3 -o a.tsv
[ "$(head -c 13 a.tsv)" = "#rssim-trace	" ] || fail "gen -o x.tsv should write text"
[ "$(head -c 8 a.bin)" = "RSSIMTRC" ] || fail "gen -o x.bin should write binary"

"$RSSIM" trace convert a.bin t1.tsv            # default: the other format
"$RSSIM" trace convert t1.tsv t2.bin.gz        # default: the other format
"$RSSIM" trace convert t2.bin.gz t3.tsv.zst
"$RSSIM" trace convert t3.tsv.zst t4.bin.zst
"$RSSIM" trace convert t4.bin.zst t5.tsv.gz
"$RSSIM" trace convert t5.tsv.gz t6.bin
"$RSSIM" trace convert t6.bin t7.tsv --format text
"$RSSIM" trace convert t7.tsv t8.tsv --format=text
"$RSSIM" trace convert t8.tsv t9.bin.gz --format binary
"$RSSIM" trace convert t9.bin.gz t10.bin.gz --format binary

core_stats a.bin > s0.txt
for f in a.tsv t1.tsv t2.bin.gz t3.tsv.zst t4.bin.zst t5.tsv.gz t6.bin t7.tsv t8.tsv t9.bin.gz t10.bin.gz; do
    core_stats "$f" > s.txt
    diff -u s0.txt s.txt || fail "stats of $f differ from a.bin's"
done
"$RSSIM" trace stats t3.tsv.zst | grep -Eq '^compression +zstd$' || fail "zstd not detected"
"$RSSIM" trace stats t2.bin.gz | grep -Eq '^format +binary$' || fail "binary not detected"
"$RSSIM" trace stats t2.bin.gz | grep -Eq '^compression +gzip$' || fail "gzip not detected"

# re-encoded bytes are identical, plain and compressed
cmp -s a.bin t6.bin || fail "binary -> text -> ... -> binary changed the bytes"
cmp -s a.tsv t1.tsv || fail "gen text and converted text differ"
cmp -s t1.tsv t7.tsv || fail "text -> ... -> text changed the bytes"
cmp -s t7.tsv t8.tsv || fail "text -> text changed the bytes"
cmp -s t9.bin.gz t10.bin.gz || fail "gzip output is not reproducible"
cmp -s t2.bin.gz t9.bin.gz || fail "gzip output is not reproducible"
gzip -dc t2.bin.gz | cmp -s - a.bin || fail "gzip -d of .bin.gz differs"
zstd -qdc t4.bin.zst | cmp -s - a.bin || fail "zstd -d of .bin.zst differs"
zstd -qdc t3.tsv.zst | cmp -s - a.tsv || fail "zstd -d of .tsv.zst differs"
# files compressed by the standard tools are read too
zstd -q -19 -c a.tsv > ext.tsv.zst && gzip -9 -c a.bin > ext.bin.gz
core_stats ext.tsv.zst | diff -q s0.txt - >/dev/null || fail "stats of a zstd(1) file"
core_stats ext.bin.gz | diff -q s0.txt - >/dev/null || fail "stats of a gzip(1) file"
ls ./*.tmp >/dev/null 2>&1 && fail "temporary files left behind"

# ---- usage errors: exit 2 ----------------------------------------------------
set +e
"$RSSIM" trace convert a.bin 2>/dev/null; [ $? -eq 2 ] || fail "convert without OUT"
"$RSSIM" trace convert a.bin x.bin --format xml 2>err.txt; [ $? -eq 2 ] || fail "--format xml"
grep -q "unknown trace format 'xml'" err.txt || fail "--format xml message"
"$RSSIM" trace convert a.bin x.bin --format csv 2>err.txt; [ $? -eq 2 ] || fail "--format csv"
grep -q "cannot write the import-only trace format 'csv'" err.txt || fail "--format csv message"
"$RSSIM" trace frobnicate 2>/dev/null; [ $? -eq 2 ] || fail "unknown trace subcommand"
"$RSSIM" gen kv --keys 10 2>/dev/null; [ $? -eq 2 ] || fail "gen without -o"
"$RSSIM" gen kv --colour red -o x.bin 2>err.txt; [ $? -eq 2 ] || fail "gen unknown option"
grep -q "unknown option '--colour'" err.txt || fail "gen unknown option message"
"$RSSIM" gen kv --keys abc -o x.bin 2>err.txt; [ $? -eq 2 ] || fail "gen bad value"
grep -q "bad value 'abc' for key 'keys'" err.txt || fail "gen bad value message"
"$RSSIM" gen kv --keys 0 -o x.bin 2>err.txt; [ $? -eq 2 ] || fail "gen keys=0"
"$RSSIM" gen zipf -o x.bin 2>err.txt; [ $? -eq 2 ] || fail "gen unknown generator"
grep -q "unknown generator 'zipf'" err.txt || fail "gen unknown generator message"
"$RSSIM" trace stats missing.bin 2>err.txt; [ $? -eq 2 ] || fail "stats of a missing file"
grep -q "^rssim: cannot open 'missing.bin': No such file or directory" err.txt || fail "missing file message"
set -e
[ -e x.bin ] && fail "a failed gen left x.bin"
[ -e x.bin.tmp ] && fail "a failed gen left x.bin.tmp"
echo "trace.sh: ok"
