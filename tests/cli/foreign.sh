# foreign: other tools' traces read by `rssim trace import --from NAME[:SPEC]`
# and `rssim replay --format NAME[:SPEC]` (docs/trace-format.md §7):
# libCacheSim oracleGeneral, csv and txt, glibc mtrace logs, block lists and
# MSR CSV as kv.  Each valid input's records, keys and bytes are checked
# against a count made here independently (od, awk, sort); each bad input
# exits 2 naming FILE:LINE (binary: the record and its byte offset) and the
# field, and leaves no OUT.
. "$(dirname "$0")/lib.sh"
cd "$T" || exit 1

# ---- oracleGeneral: 24-byte records u32 clock, u64 id, u32 size, i64 next
og() { # og CLOCK ID SIZE...: little-endian records on stdout
  while [ $# -ge 3 ]; do
    perl -e 'print pack("VQ<Vq<", $ARGV[0], $ARGV[1], $ARGV[2], -1)' "$1" "$2" "$3"
    shift 3
  done
}
og 0 5 100  0 6 200  1 5 100  2 7 0  2 18446744073709551615 4294967294  9 8 1 > t.og
expect_status 0 "oracleGeneral import" "$RSSIM" trace import --from oracleGeneral t.og -o og.tsv
# independent count: od's u32 words, 6 per record; word 4 is obj_size
od -An -v -tu4 -w24 t.og > og.words
want_recs=$(awk '$4 > 0' og.words | wc -l)
want_bytes=$(awk '$4 > 0 { s += $4 } END { printf "%.0f\n", s }' og.words)
check "og records" test "$want_recs" = 5
expect_status 0 "og stats" "$RSSIM" trace stats og.tsv
stat_is daemon kv
stat_is records "$want_recs"           # the zero-size request is skipped, as cachesim does
stat_is bytes_total "$want_bytes"
stat_is distinct_keys 4
stat_is op_GET "$want_recs"
stat_is t_last_ns 9000000000           # clock_time 9 in seconds
expect_status 0 "og stats in place" "$RSSIM" trace stats t.og --format oracleGeneral
stat_is records "$want_recs"
stat_is format oracleGeneral
check "og: a u64 id kept whole" grep -qP '^2000000000\tGET\t18446744073709551615\t4294967294\t' og.tsv
zstd -q -c t.og > t.og.zst
expect_status 0 "og zstd" "$RSSIM" trace import --from oracleGeneral t.og.zst -o og2.tsv
check "og zstd: same trace" cmp -s og.tsv og2.tsv
expect_status 0 "og time-unit" "$RSSIM" trace import --from oracleGeneral:time-unit=1ms t.og -o og3.tsv
check "og time-unit 1ms" grep -qP '^9000000\tGET\t8\t1\t' og3.tsv
# bad: zero size refused on demand, truncated record, time backwards, size past a value
expect_status 2 "og zero-size=error" "$RSSIM" trace import --from oracleGeneral:zero-size=error t.og -o x.tsv
stderr_has "og zero size named" "t.og:4: record 4 at byte 72: field obj_size: zero size"
check "og: no OUT left" test ! -e x.tsv -a ! -e x.tsv.tmp
head -c 60 t.og > trunc.og
expect_status 2 "og truncated" "$RSSIM" trace import --from oracleGeneral trunc.og -o x.tsv
stderr_has "og truncation at its byte" "trunc.og:3: record 3 at byte 48: truncated: 12 of 24 bytes"
og 5 1 10  4 2 10 > back.og
expect_status 2 "og time backwards" "$RSSIM" trace import --from oracleGeneral back.og -o x.tsv
stderr_has "og time backwards named" "back.og:2: record 2 at byte 24: field clock_time: time goes backwards: 4 after 5"
og 0 1 4294967295 > big.og
expect_status 2 "og size too large" "$RSSIM" trace import --from oracleGeneral big.og -o x.tsv
stderr_has "og size named" "big.og:1: record 1 at byte 0: field obj_size: 4294967295"
expect_status 2 "og time-unit 0" "$RSSIM" trace import --from oracleGeneral:time-unit=0s t.og -o x.tsv
stderr_has "og time-unit named" "field 'time-unit': must be > 0"
expect_status 2 "og unknown spec field" "$RSSIM" trace import --from oracleGeneral:foo=1 t.og -o x.tsv
stderr_has "og unknown field named" "unknown field 'foo' (known: time-unit, zero-size)"
expect_status 2 "og: an option it has no field for" "$RSSIM" trace import --from oracleGeneral --object-size 4K t.og -o x.tsv
stderr_has "og: --object-size refused" "unknown field 'object-size'"

# ---- csv: the column spec of cachesim -t
cat > t.csv <<'CSV'
time,id,size,op
1,a,100,get
2,17,4096,set
2,a,100,get
2.5,b,1,GET

5,b,1,del
CSV
spec='time-col=1,obj-id-col=2,obj-size-col=3,op-col=4,delimiter=,,has-header=true'
expect_status 0 "csv import" "$RSSIM" trace import --from "csv:$spec" t.csv -o csv.tsv
expect_status 0 "csv stats" "$RSSIM" trace stats csv.tsv
stat_is records "$(awk -F, 'NR > 1 && NF' t.csv | wc -l)"
stat_is distinct_keys "$(awk -F, 'NR > 1 && NF { print $2 }' t.csv | sort -u | wc -l)"
stat_is bytes_total "$(awk -F, 'NR > 1 && NF { s += $3 } END { print s }' t.csv)"  # DEL's size counts too
stat_is op_GET 3
stat_is op_SET 1
stat_is op_DEL 1
stat_is t_last_ns 5000000000
check "csv: fraction of a second" grep -qP '^2500000000\tGET\t' csv.tsv
check "csv: string ids hash the same" test "$(awk -F'\t' '$4 == 100 { print $3 }' csv.tsv | sort -u | wc -l)" = 1
# numeric ids kept with obj-id-is-num; a count column repeats; ; as delimiter; no time: interval
printf 'x\t1\n' > tab.csv
expect_status 0 "csv tab delimiter" "$RSSIM" trace import --from 'csv:obj-id-col=1, obj-size-col=2, delimiter=\t' tab.csv -o tab.tsv
check "csv tab: one record of 1 byte" grep -qP '^0\tGET\t\d+\t1\t' tab.tsv
printf '10;3;7\n11;1;8\n' > n.csv
expect_status 0 "csv numeric ids, cnt" "$RSSIM" trace import --from 'csv:obj-id-col=1,cnt-col=2,obj-size-col=3,delimiter=;,obj-id-is-num=true,interval=1ms' n.csv -o n.tsv
check "csv cnt: 4 records" test "$(grep -c -P '^\d' n.tsv)" = "$(awk -F';' '{ s += $2 } END { print s }' n.csv)"
check "csv: numeric id kept, repeats at one time" test "$(grep -c -P '^0\tGET\t10\t7\t' n.tsv)" = 3
check "csv: interval times" grep -qP '^3000000\tGET\t11\t8\t' n.tsv
# bad csv: each with FILE:LINE and field
printf '1,a,10\n2,b\n' > short.csv
expect_status 2 "csv short line" "$RSSIM" trace import --from 'csv:time-col=1,obj-id-col=2,obj-size-col=3' short.csv -o x.tsv
stderr_has "csv short line named" "short.csv:2: wrong field count: 2 fields, but obj-size-col=3 (obj_size)"
printf '1,a,10\n0,b,10\n' > back.csv
expect_status 2 "csv time backwards" "$RSSIM" trace import --from 'csv:time-col=1,obj-id-col=2,obj-size-col=3' back.csv -o x.tsv
stderr_has "csv time backwards named" "back.csv:2: field time: time goes backwards"
printf '1,a,10\n2,b,x\n' > nsize.csv
expect_status 2 "csv bad size" "$RSSIM" trace import --from 'csv:time-col=1,obj-id-col=2,obj-size-col=3' nsize.csv -o x.tsv
stderr_has "csv bad size named" "nsize.csv:2: field obj_size: 'x' is not a number"
printf '1,12a,10\n' > nid.csv
expect_status 2 "csv non-numeric id" "$RSSIM" trace import --from 'csv:obj-id-col=2,obj-id-is-num=true' nid.csv -o x.tsv
stderr_has "csv id named" "nid.csv:1: field obj_id: '12a' is not a number"
printf '1,a,0\n' > zero.csv
expect_status 2 "csv zero size" "$RSSIM" trace import --from 'csv:obj-id-col=2,obj-size-col=3' zero.csv -o x.tsv
stderr_has "csv zero size named" "zero.csv:1: field obj_size: zero size"
printf 'a,1,put\na,1,evict\n' > op.csv
expect_status 2 "csv bad op" "$RSSIM" trace import --from 'csv:obj-id-col=1,obj-size-col=2,op-col=3' op.csv -o x.tsv
stderr_has "csv op named" "op.csv:2: field op: unknown op 'evict'"
printf 'a,65537\n' > cnt.csv
expect_status 2 "csv count over the limit" "$RSSIM" trace import --from 'csv:obj-id-col=1,cnt-col=2' cnt.csv -o x.tsv
stderr_has "csv limit named" "cnt.csv:1: field cnt: 65537 requests on one line, more than 65536 records per line"
{ printf '1,a,1\n'; head -c 5000 /dev/zero | tr '\0' 'x'; printf '\n'; } > long.csv
expect_status 2 "csv long line" "$RSSIM" trace import --from 'csv:obj-id-col=2' long.csv -o x.tsv
stderr_has "csv long line named" "long.csv:2: line too long (more than 4095 bytes)"
expect_status 2 "csv spec without an id column" "$RSSIM" trace import --from 'csv:time-col=1' t.csv -o x.tsv
stderr_has "csv needs obj-id-col" "needs obj-id-col"
expect_status 2 "csv unknown spec field" "$RSSIM" trace import --from 'csv:obj-id-col=2,next-access-col=4' t.csv -o x.tsv
stderr_has "csv unknown field named" "unknown field 'next-access-col'"
expect_status 2 "csv field twice" "$RSSIM" trace import --from 'csv:obj-id-col=2,obj-id-col=3' t.csv -o x.tsv
stderr_has "csv twice named" "field 'obj-id-col' given twice"
check "csv: no OUT left" test ! -e x.tsv -a ! -e x.tsv.tmp

# ---- txt: one id per line
printf '1\n2\n1\n\n3\n1\n' > t.txt
expect_status 0 "txt import" "$RSSIM" trace import --from 'txt:obj-id-is-num=true,obj-size=4K' t.txt -o txt.tsv
expect_status 0 "txt stats" "$RSSIM" trace stats txt.tsv
stat_is records "$(grep -c . t.txt)"
stat_is distinct_keys "$(grep . t.txt | sort -u | wc -l)"
stat_is bytes_total "$(( $(grep -c . t.txt) * 4096 ))"
printf '1\nx\n' > bad.txt
expect_status 2 "txt non-numeric" "$RSSIM" trace import --from 'txt:obj-id-is-num=true' bad.txt -o x.tsv
stderr_has "txt named" "bad.txt:2: field obj_id: 'x' is not a number"

# ---- mtrace: glibc's log, realloc as < > pairs
cat > m.log <<'LOG'
= Start
@ ./prog:(main+0x1c)[0x401136] + 0x4052a0 0x10
@ ./prog:[0x401150] + 0x4052c0 0x20
@ ./prog:[0x40115a] < 0x4052a0
@ ./prog:[0x40115a] > 0x405300 0x40
@ ./prog:[0x401164] - 0x4052c0
@ [0x401170] ! 0x405300 0x100000
+ (nil) 0x1000000000
@ /lib/x86_64-linux-gnu/libc.so.6:(__libc_start_main+0xf3)[0x7f0] + 0x4052a0 0x0
- 0x405300
- 0x4052a0
= End
LOG
expect_status 0 "mtrace import" "$RSSIM" trace import --from mtrace m.log -o m.tsv
expect_status 0 "mtrace stats" "$RSSIM" trace stats m.tsv
# independent: allocations are the + and > lines with an address; frees the - and <
allocs=$(awk '{ for (i = 1; i < NF; i++) if (($i == "+" || $i == ">") && $(i+1) != "(nil)") n++ } END { print n }' m.log)
frees=$(awk '{ for (i = 1; i < NF; i++) if ($i == "-" || $i == "<") n++ } END { print n }' m.log)
stat_is daemon alloc
stat_is op_MALLOC "$allocs"
stat_is op_FREE "$frees"
stat_is distinct_keys "$allocs"        # a new handle per allocation, the address reused
# every block freed: each size counted at its MALLOC and its FREE; malloc(0) is 1 byte
sizes=0
for v in $(awk '{ for (i = 1; i < NF; i++) if (($i == "+" || $i == ">") && $(i+1) != "(nil)") print $(i+2) }' m.log); do
  sizes=$((sizes + (v ? v : 1)))
done
stat_is bytes_total "$((2 * sizes))"
check "mtrace: realloc frees its old handle" grep -qP '^2000\tFREE\t1\t16\t' m.tsv
expect_status 0 "mtrace replay" "$RSSIM" replay m.log --format mtrace --preset alloc-replay --db m.db
stdout_has "mtrace replay done" "done: $((allocs + frees)) events"
printf -- '+ 0x10 0x8\n- 0x20\n' > unk.log
expect_status 2 "mtrace unknown free" "$RSSIM" trace import --from mtrace unk.log -o x.tsv
stderr_has "mtrace unknown free named" "unk.log:2: field address: free of 0x20, not allocated in the log"
expect_status 0 "mtrace unknown-free=skip" "$RSSIM" trace import --from mtrace:unknown-free=skip unk.log -o unk.tsv
check "skip: one record" test "$(grep -c -P '^\d' unk.tsv)" = 1
printf -- '+ 0x10 0x8\n+ 0x10 0x8\n' > dbl.log
expect_status 2 "mtrace double malloc" "$RSSIM" trace import --from mtrace dbl.log -o x.tsv
stderr_has "mtrace double named" "dbl.log:2: field address: 0x10 allocated again without a free"
printf -- '@ [0x1] * 0x10\n' > op.log
expect_status 2 "mtrace bad op" "$RSSIM" trace import --from mtrace op.log -o x.tsv
stderr_has "mtrace op named" "op.log:1: field op: '\*' is not one of"
printf -- '+ 0x10\n' > few.log
expect_status 2 "mtrace missing size" "$RSSIM" trace import --from mtrace few.log -o x.tsv
stderr_has "mtrace count named" "few.log:1: wrong field count: '+' takes ADDR SIZE, got 1 field"
printf -- '+ 0x10 0x4000000001\n' > huge.log
expect_status 2 "mtrace size over the limit" "$RSSIM" trace import --from mtrace huge.log -o x.tsv
stderr_has "mtrace size limit named" "huge.log:1: field size: 274877906945 bytes, more than a MALLOC may be"

# ---- block lists and MSR CSV as kv: one object per page touched
printf '0 8\n16384 16 W\n7 3 R\n' > b.txt
expect_status 0 "blocks to kv" "$RSSIM" trace import --from blocks --to kv --object-size 4K b.txt -o bkv.tsv
expect_status 0 "blocks kv stats" "$RSSIM" trace stats bkv.tsv
# pages of 4096 touched by blocks [s, s+n) of 512 B: floor(s*512/4096) .. floor(((s+n)*512-1)/4096)
pages=$(awk '{ a = int($1 * 512 / 4096); b = int((($1 + $2) * 512 - 1) / 4096); n += b - a + 1 } END { print n }' b.txt)
stat_is daemon kv
stat_is records "$pages"
stat_is bytes_total "$((pages * 4096))"
stat_is op_SET 2
check "blocks kv: page 2048 written" grep -qP '^0\tSET\t2048\t4096\t' bkv.tsv
expect_status 0 "blocks as spec" "$RSSIM" trace import --from blocks:to=kv,object-size=4K b.txt -o bkv2.tsv
check "blocks spec = options" cmp -s bkv.tsv bkv2.tsv
printf '128166372003061629,hm,1,Read,4096,12288,1\n128166372003061630,hm,1,Write,0,1,1\n' > m.csv
expect_status 0 "msr to kv" "$RSSIM" trace import --from msr --to kv m.csv -o mkv.tsv
check "msr kv: 3 + 1 pages" test "$(grep -c -P '^\d' mkv.tsv)" = 4
expect_status 2 "msr kv: --block-size refused" "$RSSIM" trace import --from msr --to kv --block-size 1K m.csv -o x.tsv
printf '0 65537\n' > many.txt
expect_status 2 "blocks kv over the limit" "$RSSIM" trace import --from blocks --to kv --object-size 512 many.txt -o x.tsv
stderr_has "blocks limit named" "many.txt:1: nblocks: .* more than 65536 records per line"

# ---- replay --format reads them in place: the same run as the imported trace
expect_status 0 "replay csv in place" "$RSSIM" replay t.csv --format "csv:$spec" --preset kv-ideal --db r.db
expect_status 0 "replay imported csv" "$RSSIM" replay csv.tsv --preset kv-ideal --db r.db
check "same metrics both ways" test "$(sql r.db "select count(*) from (select name, value from metrics where run_id = 1 except select name, value from metrics where run_id = 2)")" = 0
# the format is the run's key trace_format: stored, in its param_hash, and
# usable by every command that takes --set (here a sweep)
check "format stored with the run" test "$(sql r.db "select value from params where run_id = 1 and key = 'trace_format'")" = "csv:$spec"
check "two readings, two param hashes" test "$(sql r.db "select count(distinct param_hash) from runs where id in (1, 2)")" = 2
expect_status 0 "sweep of a csv by --set trace_format" "$RSSIM" sweep t.csv --preset kv-ideal --set "trace_format=csv:$spec" --vary kv_cache_limit=64M,1G --db s.db
check "sweep point = replay" test "$(sql s.db "select value from metrics m join runs r on r.id = m.run_id where r.point_index = 0 and m.name = 'events_count'")" = "$(sql r.db "select value from metrics where run_id = 1 and name = 'events_count'")"
expect_status 2 "--format and --set trace_format" "$RSSIM" replay t.csv --format "csv:$spec" --set trace_format=txt --preset kv-ideal --db r.db
stderr_has "both named" "both say how to read the trace"
expect_status 0 "replay oracleGeneral zstd" "$RSSIM" replay t.og.zst --format oracleGeneral --preset kv-ideal --db r.db
stdout_has "og replay events" "done: 5 events"
runs=$(sql r.db "select count(*) from runs")
expect_status 2 "replay spec error" "$RSSIM" replay t.og --format oracleGeneral:zero-size=maybe --preset kv-ideal --db r.db
stderr_has "replay spec error named" "field 'zero-size': 'maybe' is not one of skip, error"
check "a bad spec stores no run" test "$(sql r.db "select count(*) from runs")" = "$runs"
expect_status 2 "replay unknown format" "$RSSIM" replay t.og --format lcs --preset kv-ideal --db r.db
stderr_has "replay unknown format named" "unknown foreign trace format 'lcs'"
expect_status 2 "replay bad line" "$RSSIM" replay short.csv --format 'csv:time-col=1,obj-id-col=2,obj-size-col=3' --preset kv-ideal --db r.db
stderr_has "replay bad line named" "short.csv:2: wrong field count"
expect_status 2 "replay daemon mismatch" "$RSSIM" replay m.log --format mtrace --preset kv-ideal --db r.db
stderr_has "replay mismatch named" "trace is for daemon 'alloc'"
finish
