#!/bin/bash
# bounds.sh — nothing a user can type runs away or wraps (issue 17): the
# trace format's size limits (a MALLOC, a kv value) refused with FILE:LINE
# and exit 2 by replay and by gen, a model that runs out of its bounded heap
# naming the record, the sample count bounded, an import line that expands
# past its limit refused with its temporary file removed, and two identical
# sweeps on one database sharing the work.
# Run by ctest as: bash bounds.sh RSSIM_BINARY SOURCE_DIR
. "$(dirname "$0")/lib.sh"
cd "$T"

alloc_trace() { # alloc_trace FILE SIZE...: one MALLOC per size
  local f=$1 k=0; shift
  printf '#rssim-trace\tv1\tdaemon=alloc\nt_ns\top\tkey\tsize_bytes\tthread\taux\n' >"$f"
  for s in "$@"; do k=$((k + 1)); printf '%s\tMALLOC\t%s\t%s\t0\t0\n' "$k" "$k" "$s" >>"$f"; done
}

# 1. a MALLOC near 2^64 (tcmalloc's page count wrapped and the run was stored
#    done), at 2^63, and one byte past the format's limit: FILE:LINE, exit 2,
#    never a done run; at the limit itself every model places it
for alloc in tcmalloc jemalloc glibc ideal; do
  for size in 18446744073709551615 18446744073709551000 9223372036854775808 274877906945; do
    alloc_trace big.tsv 100 "$size"
    expect_status 2 "MALLOC of $size on $alloc" "$RSSIM" replay big.tsv --preset alloc-replay \
      --set alloc=$alloc --db a.db
    stderr_has "MALLOC of $size on $alloc" "big.tsv:4: size_bytes $size too large for MALLOC"
  done
  alloc_trace limit.tsv 274877906944
  expect_status 0 "MALLOC at the limit on $alloc" "$RSSIM" replay limit.tsv --preset alloc-replay \
    --set alloc=$alloc --db a.db
  alloc_trace limit.tsv 1 2147483648 4294967296
  expect_status 0 "MALLOC at the limit on $alloc" "$RSSIM" replay limit.tsv --preset alloc-replay \
    --set alloc=$alloc --db a.db
done
check "no failed MALLOC run is done" [ "$(sql a.db "SELECT count(*) FROM runs WHERE status = 'done'")" = 8 ]
# the heap is bounded: a second MALLOC at the limit cannot fit; the trace asked for more
# than rssim simulates (input: exit 2), and the error names the record
alloc_trace two.tsv 274877906944 274877906944
expect_status 2 "two MALLOCs at the limit" "$RSSIM" replay two.tsv --preset alloc-replay --set alloc=tcmalloc --db a.db
stderr_has "two MALLOCs at the limit" "two.tsv:4: allocator model 'tcmalloc' is out of simulated memory"

# a kv value: gen refuses what replay refuses, with the same limit
expect_status 2 "gen kv --size 5G" "$RSSIM" gen kv --size-dist fixed --size 5G --keys 4 --events 4 -o kv5g.tsv
stderr_has "gen kv --size 5G" "key 'size'"
check "gen kv --size 5G wrote nothing" [ ! -e kv5g.tsv ] && [ ! -e kv5g.tsv.tmp ]
expect_status 2 "gen kv --size-max 4G" "$RSSIM" gen kv --size-max 4G --keys 4 --events 4 -o kv4g.tsv
expect_status 0 "gen kv at the limit" "$RSSIM" gen kv --size-dist fixed --size 4294967294 --keys 2 --events 3 -o kvmax.tsv
expect_status 0 "replay of a kv value at the limit" "$RSSIM" replay kvmax.tsv --preset kv-small --db k.db
printf '#rssim-trace\tv1\tdaemon=kv\nt_ns\top\tkey\tsize_bytes\tthread\taux\n1\tSET\t1\t4294967295\t0\t0\n' >kvbig.tsv
expect_status 2 "replay of a kv value of 2^32 - 1" "$RSSIM" replay kvbig.tsv --preset kv-small --db k.db
stderr_has "kv value of 2^32 - 1" "kvbig.tsv:3: size_bytes 4294967295 too large for SET"

# 2. the samples of a run are bounded (RS_RUN_MAX_SAMPLES = 10^6): a trace at
#    an epoch in ns, run_tail=1000000000s and sample_interval=1ns grew the
#    sample array to the OOM killer; now refused before the clock runs
printf '#rssim-trace\tv1\tdaemon=kv\nt_ns\top\tkey\tsize_bytes\tthread\taux\n1700000000000000000\tSET\t1\t100\t0\t0\n' >epoch.tsv
expect_status 2 "a trace at an epoch" timeout 60 "$RSSIM" replay epoch.tsv --preset kv-small --db s.db
stderr_has "a trace at an epoch" "epoch.tsv:3: t_ns 1700000000000000000 is past the latest time a run may reach"
printf '#rssim-trace\tv1\tdaemon=kv\nt_ns\top\tkey\tsize_bytes\tthread\taux\n1000\tSET\t1\t100\t0\t0\n' >one.tsv
expect_status 2 "run_tail=1000000000s" timeout 60 "$RSSIM" replay one.tsv --preset kv-small --set run_tail=1000000000s --db s.db
stderr_has "run_tail=1000000000s" "key 'run_tail'"
"$RSSIM" gen kv --keys 100 --events 3000 --rate 1000 -o three.tsv 2>/dev/null
expect_status 2 "sample_interval=1ns" timeout 60 "$RSSIM" replay three.tsv --preset kv-small --set sample_interval=1ns --db s.db
stderr_has "sample_interval=1ns" "three.tsv:[0-9]*: t_ns [0-9]* is past the latest time a run may reach, t_ns 999998 (at most 1000000 samples of sample_interval=1ns"
# what else grows with virtual time: the allocator's clock and the trims,
# when a larger sample_interval lets the epoch trace in
expect_status 2 "epoch trace at sample_interval=1h" timeout 60 "$RSSIM" replay epoch.tsv --preset kv-small \
  --set sample_interval=1h --db s.db
stderr_has "epoch trace at sample_interval=1h" "epoch.tsv:3: .*ticks of alloc_tick_interval=100000000ns"
expect_status 2 "epoch trace at sample_interval=1h, no allocator clock" timeout 60 "$RSSIM" replay epoch.tsv \
  --preset kv-small --set sample_interval=1h --set alloc=ideal --db s.db
stderr_has "epoch trace, no allocator clock" "epoch.tsv:3: more than 200000000 periodic timer events"
check "no run of those is done" [ "$(sql s.db "SELECT count(*) FROM runs WHERE status = 'done'")" = 0 ]
# right at the bound: 10^6 samples fit
expect_status 0 "10^6 samples" timeout 120 "$RSSIM" replay one.tsv --preset kv-small --set sample_interval=1ns \
  --set run_tail=998998ns --db s.db
# one sample every ns from t 0 to the end, t 999998
check "999999 samples stored" [ "$(sql s.db "SELECT count(*) FROM samples WHERE run_id = (SELECT max(id) FROM runs)")" = 999999 ]

# 3. an import line that expands without bound (one line '0 18014398509481983'
#    wrote ~1 GB/s; an MSR Size of 2^62 the same): refused, nothing left
echo "0 18014398509481983" >huge.blocks
expect_status 2 "blocks line of 2^54 blocks" timeout 60 "$RSSIM" trace import --from blocks huge.blocks -o huge.bin
stderr_has "blocks line of 2^54 blocks" "huge.blocks:1: nblocks: .* more than 65536 records per line"
check "refused import left nothing" [ ! -e huge.bin ] && [ ! -e huge.bin.tmp ]
printf '128166372003061629,web,1,Read,0,4611686018427387904,10\n' >huge.csv
expect_status 2 "MSR Size of 2^62" timeout 60 "$RSSIM" trace import --from msr huge.csv -o huge.bin
stderr_has "MSR Size of 2^62" "huge.csv:1: Size: .* more than 65536 records per line"
check "refused import left nothing" [ ! -e huge.bin ] && [ ! -e huge.bin.tmp ]
# at the limit: 65536 objects of 4 MiB in 512-byte blocks
echo "0 536870912 W" >limit.blocks
expect_status 0 "blocks line at the limit" "$RSSIM" trace import --from blocks limit.blocks -o limit.bin
stdout_has "blocks line at the limit" "as 65536 records"
# a killed import or gen removes OUT.tmp (SIGTERM, SIGINT, SIGHUP)
yes '0 536870912' | head -n 20000 >long.blocks
for sig in TERM INT HUP; do
  "$RSSIM" trace import --from blocks long.blocks -o long.bin 2>/dev/null &
  pid=$!
  for _ in $(seq 50); do [ -s long.bin.tmp ] && break; sleep 0.1; done
  check "import is writing long.bin.tmp ($sig)" [ -s long.bin.tmp ]
  kill -$sig $pid; wait $pid
  check "import killed by SIG$sig left no long.bin.tmp" [ ! -e long.bin.tmp ] && [ ! -e long.bin ]
done
"$RSSIM" gen kv --keys 1000 --events 200000000 -o long.tsv 2>/dev/null &
pid=$!
for _ in $(seq 50); do [ -s long.tsv.tmp ] && break; sleep 0.1; done
kill -TERM $pid; wait $pid
check "gen killed by SIGTERM left no long.tsv.tmp" [ ! -e long.tsv.tmp ] && [ ! -e long.tsv ]

# 4. two identical sweeps at once on one database share the points (the
#    second exited 1 with "run N ... is already done"): both exit 0, every
#    point done once, the results those of a sweep run alone
"$RSSIM" gen kv --keys 20000 --events 300000 --rate 100000 -o sw.bin 2>/dev/null
sweep() { "$RSSIM" sweep sw.bin --preset kv-small --vary kv_cache_limit=8M,16M,32M,64M \
  --vary trim_interval=50ms,200ms --jobs 2 --db "$1"; }
sweep alone.db >/dev/null 2>&1
sweep two.db >one.out 2>one.err &
p1=$!
sweep two.db >two.out 2>two.err
s2=$?
wait $p1
s1=$?
check "first of two sweeps exits 0 ($(head -c 300 one.err))" [ "$s1" = 0 ]
check "second of two sweeps exits 0 ($(head -c 300 two.err))" [ "$s2" = 0 ]
check "8 runs, all done" [ "$(sql two.db "SELECT count(*) || ' ' || sum(status = 'done') FROM runs")" = "8 8" ]
metrics() { sql "$1" "SELECT r.point_index, m.name, m.value FROM metrics m JOIN runs r ON r.id = m.run_id
  WHERE m.name NOT LIKE 'wall%' ORDER BY 1, 2"; }
check "two sweeps at once give the results of one alone" [ "$(metrics two.db)" = "$(metrics alone.db)" ]

# 5. the smaller list
# a NUL byte in a preset was "line too long"; a key given twice was last-wins
cp "$SRC/models/presets/kv-small.conf" nul.conf
printf 'alloc=ideal\0junk\n' >>nul.conf
expect_status 2 "a NUL byte in a preset" "$RSSIM" replay one.tsv --preset ./nul.conf --db m.db
stderr_has "a NUL byte in a preset" "nul.conf:[0-9]*: NUL byte at column 12"
cp "$SRC/models/presets/kv-small.conf" dup.conf
first=$(grep -n '^ *kv_cache_limit' dup.conf | head -n 1 | cut -d: -f1)
echo "kv_cache_limit=1G" >>dup.conf
last=$(wc -l <dup.conf)
expect_status 2 "a key twice in a preset" "$RSSIM" replay one.tsv --preset ./dup.conf --db m.db
stderr_has "a key twice in a preset" "dup.conf:$last: key 'kv_cache_limit' given twice (first at ./dup.conf:$first)"
# validate without --preset names the trace's kind
expect_status 2 "validate a kv trace without --preset" "$RSSIM" validate one.tsv --alloc jemalloc --db m.db
stderr_has "validate a kv trace without --preset" "a 'kv' trace needs --preset"
# a sweep of a malformed trace exits 2, as replay does
printf '#rssim-trace\tv1\tdaemon=kv\nt_ns\top\tkey\tsize_bytes\tthread\taux\n1000\tSET\t1\t100\t0\t0\n5\tGET\t1\t100\t0\t0\n' >back.tsv
expect_status 2 "replay of a malformed trace" "$RSSIM" replay back.tsv --preset kv-small --db m.db
expect_status 2 "sweep of a malformed trace" "$RSSIM" sweep back.tsv --preset kv-small --vary kv_cache_limit=1M,2M --db m.db
stderr_has "sweep of a malformed trace" "back.tsv:4: time goes backwards"
# seed: -1 was accepted and stored as its own 2^64 - 1, which was refused; now both are
expect_status 2 "seed=-1" "$RSSIM" replay one.tsv --preset kv-small --set seed=-1 --db m.db
stderr_has "seed=-1" "key 'seed': must be >= 0"
expect_status 2 "seed=2^64-1" "$RSSIM" replay one.tsv --preset kv-small --set seed=18446744073709551615 --db m.db
expect_status 0 "seed=2^63-1" "$RSSIM" replay one.tsv --preset kv-small --set seed=9223372036854775807 --db m.db
check "seed 2^63-1 stored as itself" [ "$(sql m.db "SELECT seed FROM runs WHERE status = 'done' ORDER BY id DESC LIMIT 1")" = 9223372036854775807 ]
# a limit of 0: overshoot and (1-x)^-1 are not 0.000
expect_status 0 "kv_cache_limit=0" "$RSSIM" replay three.tsv --preset kv-small --set kv_cache_limit=0 --db m.db
stdout_has "kv_cache_limit=0" "overshoot  *n/a  *(the limit is 0"
if grep -q "overshoot  *0.000" "$T/out"; then bad "kv_cache_limit=0 printed overshoot 0.000"; else ok; fi
# a WAL database on a read-only mount is readable (list, show, export, plot)
mkdir -p rosrc romnt && sweep rosrc/ro.db >/dev/null 2>&1
if unshare -rm true 2>/dev/null; then
  unshare -rm bash -c 'mount --bind rosrc romnt && mount -o remount,bind,ro romnt &&
    ! touch romnt/probe 2>/dev/null &&
    "$0" runs list --db romnt/ro.db >ro.list && "$0" runs show 1 --db romnt/ro.db >ro.show &&
    "$0" runs export --csv --run 1 --db romnt/ro.db -o ro.csv &&
    "$0" plot timeseries --db romnt/ro.db --run 1 -o ro.svg >/dev/null' "$RSSIM" 2>ro.err
  check "a read-only WAL database is readable ($(head -c 300 ro.err))" [ $? = 0 ]
  check "read-only list shows 8 runs" [ "$(grep -c ' done ' ro.list)" = 8 ]
  check "read-only export wrote rows" [ "$(wc -l <ro.csv)" -gt 1 ]
else
  echo "SKIP: no user namespace (unshare -rm) to mount a folder read-only" >&2
fi

# 6. a command's whole output is bounded, not only each line's: an import of
#    many lines that each expand to 65536 records wrote until the disk was
#    full; now it stops at --max-records (default 2^28 records) naming the
#    limit and the input line, and leaves no OUT or OUT.tmp
yes '0 536870912' | head -n 40 >many.blocks
expect_status 2 "import past --max-records" timeout 60 "$RSSIM" trace import --from blocks many.blocks \
  -o many.bin --max-records 100000
stderr_has "import past --max-records" "many.blocks:2: many.bin: record 100001: more than 100000 records (--max-records 100000; --max-records N raises it)"
check "import past --max-records left nothing" [ ! -e many.bin ] && [ ! -e many.bin.tmp ]
expect_status 0 "import at --max-records" "$RSSIM" trace import --from blocks many.blocks -o many.bin \
  --max-records 2621440
stdout_has "import at --max-records" "as 2621440 records"
expect_status 2 "import --max-records 0" "$RSSIM" trace import --from blocks many.blocks -o many.bin --max-records 0
stderr_has "import --max-records 0" "bad --max-records '0'"
"$RSSIM" trace import -h >imp.help
check "import -h names the default limit" grep -q "max-records.*default 268435456" imp.help
# a generator: --events past the limit is refused before anything is written
expect_status 2 "gen kv --events 10^12" timeout 10 "$RSSIM" gen kv --events 1000000000000 -o big.bin
stderr_has "gen kv --events 10^12" "--events 1000000000000: more than 268435456 records (--max-records 268435456; --max-records N raises it)"
check "gen kv --events 10^12 wrote nothing" [ ! -e big.bin ] && [ ! -e big.bin.tmp ]
expect_status 2 "gen kv --events past --max-records" "$RSSIM" gen kv --events 1001 --max-records 1000 -o big.bin
expect_status 0 "gen kv --events at --max-records" "$RSSIM" gen kv --events 1000 --max-records 1000 -o big.bin
# a generator without an events option stops at the limit while writing
expect_status 2 "gen alloc past --max-records" "$RSSIM" gen alloc --max-records 1000 -o big2.bin
stderr_has "gen alloc past --max-records" "big2.bin: record 1001: more than 1000 records (--max-records 1000"
check "gen alloc past --max-records wrote nothing" [ ! -e big2.bin ] && [ ! -e big2.bin.tmp ]
# a sweep's grid: 16 keys of 20 values (20^16 points, past 2^63) wrapped the
# point count; 1001 x 1000 points were all stored before the first ran; now
# a grid of more than 10^6 points is refused naming the limit
vals() { seq -s, 1 "$1" | sed "s/[0-9][0-9]*/&$2/g"; }
expect_status 2 "a sweep of 1001 x 1000 points" timeout 60 "$RSSIM" sweep one.tsv --preset kv-small \
  --vary kv_cache_limit="$(vals 1001 M)" --vary trim_interval="$(vals 1000 ms)" --db g.db
stderr_has "a sweep of 1001 x 1000 points" "--vary trim_interval: the grid passes 1000000 points (a sweep has at most 1000000"
check "the refused sweep stored no point" [ "$(sql g.db "SELECT count(*) FROM runs" 2>/dev/null || echo 0)" = 0 ]

# 7. a file that is not a database, or a malformed one, is the user's input:
#    exit 2 (it was 1, a database error), from the readers and db merge
#    (found by scripts/soak)
echo "not a database" >junk.db
expect_status 2 "runs list of a non-database" "$RSSIM" runs list --db junk.db
stderr_has "runs list of a non-database" "junk.db': file is not a database"
expect_status 2 "db merge of a non-database" "$RSSIM" db merge --db merged.db junk.db
head -c 8192 two.db >trunc.db
expect_status 2 "db merge of a truncated database" "$RSSIM" db merge --db merged.db trunc.db
stderr_has "db merge of a truncated database" "trunc.db': database disk image is malformed"

# a source whose run has a NULL status (a damaged or hand-edited file: the
# schema says NOT NULL) crashed db merge (strcmp of NULL; found by
# fuzz_store); now it is refused with SQLite's word for it
cp two.db nul.db
sql nul.db "PRAGMA writable_schema=ON; UPDATE sqlite_schema SET sql = replace(sql,
  'status TEXT NOT NULL CHECK (status IN (''pending'',''running'',''done'',''failed''))', 'status TEXT')
  WHERE name = 'runs'" >/dev/null
sql nul.db "UPDATE runs SET status = NULL WHERE id = 1" >/dev/null
expect_status 1 "db merge of a run with a NULL status" "$RSSIM" db merge --db merged2.db nul.db
stderr_has "db merge of a run with a NULL status" "NOT NULL constraint failed: runs.status"
# and plot of that run crashed the same way (the plot commands read it)
expect_status 2 "plot of a run with a NULL status" "$RSSIM" plot timeseries --run 1 --db nul.db -o nul.txt
stderr_has "plot of a run with a NULL status" "run 1 in 'nul.db' is of no status, not done"

# a run of id 0 (ids start at 1; a hand-edited file) was listed, but no
# command could address it, and the store's readers failed on it with an
# internal error (fuzz_store); now every reader of the runs refuses the file
cp two.db zero.db
sql zero.db "UPDATE runs SET id = 0 WHERE id = 1" >/dev/null
expect_status 2 "runs list of a run of id 0" "$RSSIM" runs list --db zero.db
stderr_has "runs list of a run of id 0" "'zero.db' has a run of id 0: run ids start at 1"

# a metric with no name (the schema says NOT NULL; a damaged file: found by
# fuzz_store) crashed runs show, report and runs export (a NULL name handed
# on); a param with no key or value likewise; now each is refused as bad
# input naming the file.  The tables are rebuilt without their NOT NULLs
# (the primary key of a WITHOUT ROWID table cannot be edited in place).
sqlite3 -batch two.db .dump | sed 's/ name TEXT NOT NULL, value REAL, PRIMARY KEY (run_id, name)) WITHOUT ROWID;/ name TEXT, value REAL);/' |
  sqlite3 -batch nometric.db >/dev/null
sql nometric.db "INSERT INTO metrics VALUES (1, NULL, 1.0)" >/dev/null
for c in "runs show 1" "report --run 1 -o nometric-report" "runs export --csv --run 1 --what metrics"; do
  expect_status 2 "$c of a metric with no name" "$RSSIM" $c --db nometric.db
  stderr_has "$c of a metric with no name" "'nometric.db' has a metric of run 1 with no name"
done
sqlite3 -batch two.db .dump | sed 's/ key TEXT NOT NULL, value TEXT NOT NULL, PRIMARY KEY (run_id, key)) WITHOUT ROWID;/ key TEXT, value TEXT);/' |
  sqlite3 -batch noparam.db >/dev/null
sql noparam.db "INSERT INTO params VALUES (1, 'zz_key', NULL)" >/dev/null
expect_status 2 "runs show of a param with no value" "$RSSIM" runs show 1 --db noparam.db
stderr_has "runs show of a param with no value" "'noparam.db' has a param 'zz_key' with no value"

finish
