# real: the ground-truth tools (docs/validation.md) — rssim-real replays an
# alloc trace with the real glibc, jemalloc and tcmalloc and stores measured
# runs; librssim-record.so records a real program into a trace that parses
# and replays; bad input is refused with FILE:LINE and exit 2.
. "$(dirname "$0")/lib.sh"

BIN=$(dirname "$RSSIM")
REAL=$BIN/rssim-real
REC=$BIN/librssim-record.so
WORK=$BIN/rssim-real-workload
check "rssim-real is built next to rssim" test -x "$REAL"
check "librssim-record.so is built next to rssim" test -f "$REC"
check "rssim-real-workload is built next to rssim" test -x "$WORK"
[ -x "$REAL" ] && [ -f "$REC" ] && [ -x "$WORK" ] || { finish; exit; }

# An AddressSanitizer build replaces malloc: nothing can be measured then.
ASAN=0
if ldd "$REAL" 2>/dev/null | grep -q libasan; then
  ASAN=1
  echo "skip: rssim-real is an AddressSanitizer build (malloc is ASan's): real replays are not checked here"
fi

hdr() { printf '#rssim-trace\tv1\tdaemon=alloc\nt_ns\top\tkey\tsize_bytes\tthread\taux\n'; }
col() { # col DB RUN COLUMN T_MS: one sample value
  sql "$1" "select $3 from samples where run_id=$2 and t_ns/1000000=$4"
}
MiB=1048576

# The hand-made trace: 2000 × 16 KiB at 50 ms (heap, below glibc's mmap
# threshold), 64 MiB at 100 ms (the same time as a sample: applied after
# it), freed at 250 ms, all but the last 16 KiB block freed at 350 ms (the
# last one pins glibc's top), RELEASE at 450 ms, the last FREE at 550 ms.
{ hdr
  for i in $(seq 1 2000); do printf '50000000\tMALLOC\t%d\t16384\t0\t0\n' "$i"; done
  printf '100000000\tMALLOC\t9999\t67108864\t1\t0\n'
  printf '250000000\tFREE\t9999\t67108864\t1\t0\n'
  for i in $(seq 1 1999); do printf '350000000\tFREE\t%d\t16384\t0\t0\n' "$i"; done
  printf '450000000\tRELEASE\t0\t0\t0\t0\n'
  printf '550000000\tFREE\t2000\t16384\t0\t0\n'; } > "$T/t.tsv"

run=0
for alloc in glibc jemalloc tcmalloc; do
  if [ "$ASAN" = 1 ]; then
    expect_status 1 "$alloc refused in an ASan build" "$REAL" "$T/t.tsv" --alloc "$alloc" --db "$T/db"
    continue
  fi
  case $alloc in
    jemalloc) lib=libjemalloc.so.2 pkg=libjemalloc2 ;;
    tcmalloc) lib=libtcmalloc_minimal.so.4 pkg=libtcmalloc-minimal4 ;;
    *) lib= pkg= ;;
  esac
  if [ -n "$lib" ] && ! /sbin/ldconfig -p 2>/dev/null | grep -q "$lib"; then
    echo "skip: $lib is not installed (Debian: apt-get install $pkg): --alloc $alloc not checked"
    expect_status 1 "missing $alloc refused" "$REAL" "$T/t.tsv" --alloc "$alloc" --db "$T/db"
    stderr_has "missing $alloc names the package" "$pkg"
    continue
  fi
  expect_status 0 "rssim-real --alloc $alloc" "$REAL" "$T/t.tsv" --alloc "$alloc" --db "$T/db" \
    --label "hand $alloc" --threads 2
  run=$((run + 1))
  stdout_has "$alloc summary" "run $run done (measured, $alloc, 2 threads)"
  check "$alloc run kind measured" test "$(sql "$T/db" "select kind from runs where id=$run")" = measured
  check "$alloc run done" test "$(sql "$T/db" "select status from runs where id=$run")" = done
  check "$alloc param alloc" test "$(sql "$T/db" "select value from params where run_id=$run and key='alloc'")" = "$alloc"
  check "$alloc param threads" test "$(sql "$T/db" "select value from params where run_id=$run and key='threads'")" = 2
  check "$alloc param label" test "$(sql "$T/db" "select value from params where run_id=$run and key='label'")" = "hand $alloc"
  check "$alloc trace sha256" test "$(sql "$T/db" "select trace_sha256 from runs where id=$run")" = "$(sha256sum "$T/t.tsv" | cut -d' ' -f1)"
  times=$(sql "$T/db" "select group_concat(t_ns/1000000, ' ') from (select t_ns from samples where run_id=$run order by t_ns)")
  check "$alloc sample times ($times)" test "$times" = "0 100 200 300 400 500 550"
  check "$alloc rss > 0 in every sample" test "$(sql "$T/db" "select count(*) from samples where run_id=$run and rss_bytes > 0")" = 7
  check "$alloc rss = resident + base" test "$(sql "$T/db" "select count(*) from samples where run_id=$run and (rss_bytes = resident_bytes + base_bytes or resident_bytes = 0)")" = 7
  # the 64 MiB block is applied after the 100 ms sample, before the 200 ms one
  check "$alloc requested at 100 ms" test "$(col "$T/db" $run requested_bytes 100)" = $((2000 * 16384))
  check "$alloc requested at 200 ms" test "$(col "$T/db" $run requested_bytes 200)" = $((2000 * 16384 + 64 * MiB))
  check "$alloc requested at 550 ms" test "$(col "$T/db" $run requested_bytes 550)" = 0
  check "$alloc allocated >= requested at 200 ms" test "$(col "$T/db" $run allocated_bytes 200)" -ge $((2000 * 16384 + 64 * MiB))
  r100=$(col "$T/db" $run resident_bytes 100) r200=$(col "$T/db" $run resident_bytes 200)
  r400=$(col "$T/db" $run resident_bytes 400) r500=$(col "$T/db" $run resident_bytes 500)
  check "$alloc 32 MiB resident at 100 ms ($r100)" test "$r100" -ge $((30 * MiB))
  check "$alloc rss rises with 64 MiB ($r100 -> $r200)" test "$r200" -ge $((r100 + 60 * MiB))
  check "$alloc RELEASE of freed memory lowers rss ($r400 -> $r500)" test "$r500" -le $((r400 - 25 * MiB))
  check "$alloc trims counted" test "$(col "$T/db" $run trims_count 500)" = 1
  check "$alloc metrics" test "$(sql "$T/db" "select count(*) from metrics where run_id=$run and name in ('rss_steady_bytes','rss_peak_bytes','resident_steady_bytes')")" = 3
  # a cold allocator: the replaying process has allocated next to nothing
  # before its baseline (warm, as when it had read the trace itself: glibc
  # 136 KiB allocated, tcmalloc 225 KB of cached free objects)
  ba=$(sql "$T/db" "select cast(value as integer) from metrics where run_id=$run and name='baseline_allocated_bytes'")
  bc=$(sql "$T/db" "select cast(value as integer) from metrics where run_id=$run and name='baseline_cached_bytes'")
  check "$alloc allocator state at baseline stored ($ba, $bc)" test -n "$ba" -a -n "$bc"
  case $alloc in
    glibc) check "glibc cold at baseline: $ba B allocated < 16 KiB" test "${ba:-999999}" -lt 16384 ;;
    jemalloc) check "jemalloc cold at baseline: $ba B allocated < 256 KiB" test "${ba:-999999}" -lt 262144 ;;
    tcmalloc) check "tcmalloc cold at baseline: $bc B cached < 96 KiB" test "${bc:-999999}" -lt 98304 ;;
  esac
done
if [ "$ASAN" = 0 ]; then
  # glibc keeps freed heap pages resident until malloc_trim (the 400 ms sample)
  r300=$(col "$T/db" 1 resident_bytes 300) r400=$(col "$T/db" 1 resident_bytes 400)
  check "glibc keeps freed heap resident before RELEASE ($r300, $r400)" test "$r400" -ge $((r300 - MiB))
  # the simulator samples at the same virtual times
  printf 'daemon = alloc\nalloc = glibc\nsample_interval = 100ms\n' > "$T/alloc.conf"
  if "$RSSIM" replay "$T/t.tsv" --preset "$T/alloc.conf" --db "$T/sim.db" >/dev/null 2>"$T/err"; then
    q="select group_concat(t_ns) from (select t_ns from samples where run_id=1 order by t_ns)"
    check "rssim replay samples at the same times" test "$(sql "$T/sim.db" "$q")" = "$(sql "$T/db" "$q")"
  else
    echo "skip: rssim replay of the alloc trace failed ($(head -c 200 "$T/err")): sample times not compared"
  fi
  # --threads 1 (inline) and the default (highest thread + 1 = 2)
  expect_status 0 "one thread" "$REAL" "$T/t.tsv" --db "$T/db" --threads 1 --sample-interval 200ms
  stdout_has "one thread" "(measured, glibc, 1 thread)"
  expect_status 0 "default threads" "$REAL" "$T/t.tsv" --db "$T/db" --sample-interval 0.2
  stdout_has "default threads" "(measured, glibc, 2 threads)"
  last=$(sql "$T/db" "select max(id) from runs")
  check "200 ms sample times" test "$(sql "$T/db" "select group_concat(t_ns/1000000, ' ') from (select t_ns from samples where run_id=$last order by t_ns)")" = "0 200 400 550"
  # a foreign allocator in front is refused
  expect_status 1 "foreign LD_PRELOAD refused" env LD_PRELOAD=libtcmalloc_minimal.so.4 "$REAL" "$T/t.tsv" --db "$T/db"
  stderr_has "foreign allocator named" "the active allocator is not glibc"
fi

# ---- the recorder ---------------------------------------------------------
nruns=$(sql "$T/db" "select count(*) from runs" 2>/dev/null || echo 0)
expect_status 0 "record the workload (binary)" env RSSIM_RECORD="$T/w.bin" LD_PRELOAD="$REC" "$WORK" 3
stdout_has "workload ran" "done 3"
expect_status 0 "recorded trace parses" "$RSSIM" trace stats "$T/w.bin"
stdout_has "recorded daemon" "daemon *alloc"
stdout_has "recorded format" "format *binary"
stdout_has "recorded MALLOCs" "op_MALLOC"
stdout_has "recorded FREEs" "op_FREE"
nmalloc=$(awk '$1=="op_MALLOC"{print $2}' "$T/out")
check "recorded all the workload's allocations ($nmalloc)" test "${nmalloc:-0}" -ge $((3 * 2000))
check "the forked child recorded nothing (< 1000 extra)" test "${nmalloc:-0}" -lt $((3 * 2700 + 1000))
expect_status 0 "recorded trace converts" "$RSSIM" trace convert "$T/w.bin" "$T/w.tsv" --format text
threads=$(awk -F'\t' 'NR > 2 { t[$5] = 1 } END { print length(t) }' "$T/w.tsv")
check "records of 4 threads (main + 3) ($threads)" test "$threads" = 4
check "no rssim-record file for the child" test -z "$(ls "$T" | grep 'w.bin.')"

expect_status 0 "record python3 (text)" env RSSIM_RECORD="$T/py.tsv" LD_PRELOAD="$REC" \
  sh -c 'exec python3 -c "l = [bytes(2000) for i in range(3000)]; print(len(l))"'
stdout_has "python ran" "3000"
expect_status 0 "python trace parses" "$RSSIM" trace stats "$T/py.tsv"
stdout_has "python trace is text" "format *text"
stdout_has "python MALLOCs" "op_MALLOC"
stdout_has "python FREEs" "op_FREE"

expect_status 0 "record sort" env RSSIM_RECORD="$T/sort.bin" LD_PRELOAD="$REC" sort -n -o "$T/sorted" "$T/t.tsv"
expect_status 0 "sort trace parses" "$RSSIM" trace stats "$T/sort.bin"
stdout_has "sort MALLOCs" "op_MALLOC"

if [ "$ASAN" = 0 ]; then
  expect_status 0 "recorded workload replays" "$REAL" "$T/w.bin" --db "$T/db" --sample-interval 1ms
  stdout_has "recorded workload replays with 4 threads" "glibc, 4 threads"
  expect_status 0 "recorded python replays" "$REAL" "$T/py.tsv" --db "$T/db" --sample-interval 10ms --alloc tcmalloc
  check "recorded runs done" test "$(sql "$T/db" "select count(*) from runs where status='done'")" = $((nruns + 2))
fi

# ---- bad input: FILE:LINE, exit 2, nothing stored -------------------------
{ hdr; printf '0\tMALLOC\t1\t10\t0\t0\n# a comment\n5\tFREE\t2\t10\t0\t0\n'; } > "$T/unknown.tsv"
expect_status 2 "free of an unknown handle" "$REAL" "$T/unknown.tsv" --db "$T/bad.db"
stderr_has "unknown handle at FILE:LINE" "unknown.tsv:5: FREE of handle 2: no such live handle"
{ hdr; printf '0\tMALLOC\t1\t10\t0\t0\n5\tMALLOC\t1\t20\t0\t0\n'; } > "$T/twice.tsv"
expect_status 2 "handle allocated twice" "$REAL" "$T/twice.tsv" --db "$T/bad.db"
stderr_has "twice at FILE:LINE" "twice.tsv:4: MALLOC of handle 1: handle already live"
{ hdr; printf '0\tMALLOC\t1\t10\t0\t0\n5\tFREE\t1\t11\t0\t0\n'; } > "$T/size.tsv"
expect_status 2 "FREE with another size" "$REAL" "$T/size.tsv" --db "$T/bad.db"
stderr_has "size at FILE:LINE" "size.tsv:4: FREE of handle 1: size_bytes 11, but it was allocated with 10"
"$RSSIM" trace convert "$T/unknown.tsv" "$T/unknown.bin" --format binary >/dev/null 2>&1
expect_status 2 "binary: free of an unknown handle" "$REAL" "$T/unknown.bin" --db "$T/bad.db"
stderr_has "binary FILE:LINE: record N" "unknown.bin:3: record 2: FREE of handle 2"
printf '#rssim-trace\tv1\tdaemon=kv\nt_ns\top\tkey\tsize_bytes\tthread\taux\n1\tGET\t1\t5\n' > "$T/kv.tsv"
expect_status 2 "wrong daemon kind" "$REAL" "$T/kv.tsv" --db "$T/bad.db"
stderr_has "wrong daemon named" "kv.tsv:1: trace is for daemon 'kv'"
expect_status 2 "missing trace" "$REAL" "$T/none.tsv" --db "$T/bad.db"
expect_status 2 "unknown allocator" "$REAL" "$T/t.tsv" --alloc mimalloc --db "$T/bad.db"
stderr_has "unknown allocator named" "unknown allocator 'mimalloc'"
expect_status 2 "zero interval" "$REAL" "$T/t.tsv" --sample-interval 0 --db "$T/bad.db"
expect_status 2 "bad interval" "$REAL" "$T/t.tsv" --sample-interval soon --db "$T/bad.db"
expect_status 2 "bad threads" "$REAL" "$T/t.tsv" --threads 0 --db "$T/bad.db"
check "nothing stored for bad input" test ! -e "$T/bad.db"
expect_status 0 "--help" "$REAL" --help
stdout_has "help" "usage: rssim-real TRACE"

finish
