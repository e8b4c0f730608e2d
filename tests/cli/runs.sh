# runs: list, show, export and init against a fixture database
# (tests/cli/store-fixture.sql loaded into the schema `rssim runs init` made),
# and the errors: no database (never created by reading), unknown ids, bad
# options (exit 2).
. "$(dirname "$0")/lib.sh"

DB="$T/sub/db"
FIX="$SRC/tests/cli/store-fixture.sql"

# help, usage errors
for sub in "" list show export init import-measured; do
  expect_status 0 "runs $sub -h" "$RSSIM" runs $sub -h
  stdout_has "runs $sub -h" "usage: rssim runs"
done
expect_status 2 "runs without subcommand" "$RSSIM" runs
expect_status 2 "unknown subcommand" "$RSSIM" runs frob
stderr_has "unknown subcommand named" "unknown subcommand 'frob'"

# reading never creates a database
for cmd in "list" "show 1" "export --csv --run 1"; do
  expect_status 2 "runs $cmd without database" "$RSSIM" runs $cmd --db "$DB"
  stderr_has "runs $cmd names the missing database" "no database '$DB'"
done
check "reading created no file" test ! -e "$DB"
check "reading created no folder" test ! -e "$T/sub"
printf 'not a database at all, just some text that is long enough\n' > "$T/junk.db"
expect_status 2 "list on a non-SQLite file (bad input)" "$RSSIM" runs list --db "$T/junk.db"
stderr_has "non-SQLite file named" "$T/junk.db"

# init: schema, WAL, idempotent; then the fixture
expect_status 0 "init" "$RSSIM" runs init --db "$DB"
check "init made the file" test -s "$DB"
check "init: WAL" test "$(sql "$DB" "pragma journal_mode")" = wal
check "init: schema version" test "$(sql "$DB" "select value from meta where key='schema_version'")" = 6
expect_status 0 "init again" "$RSSIM" runs init --db "$DB"
expect_status 0 "list of an empty database" "$RSSIM" runs list --db "$DB"
check "empty list is the header only" test "$(wc -l < "$T/out")" = 1
check "fixture loads into the schema init made" sqlite3 -bail "$DB" ".read $FIX"

# list
expect_status 0 "list" "$RSSIM" runs list --db "$DB"
check "list: header + 11 runs" test "$(wc -l < "$T/out")" = 12
stdout_has "list header" "^ *id  kind  *status  *sweep/point  *preset  *label  *seed  *rss_steady_MiB  *overshoot_steady  *x_steady$"
stdout_has "run 9 with its metrics" "^ *9  predicted  done  *-  *kv-small  *limit=64M  *7  *100.0  *1.500  *0.360$"
stdout_has "sweep point" "^ *3  predicted  done  *1/2  *kv-small  *kv_cache_limit=64M trim_interval=50ms "
stdout_has "running run without metrics" "^ *10  predicted  running  *-  *kv-small  *still going  *8  *-  *-  *-$"
# aligned: every line is as long as the header up to the end of 'x_steady'
check "list columns aligned" test "$(awk '{ print length($0) }' "$T/out" | sort -u | wc -l)" = 1
expect_status 0 "list --status done" "$RSSIM" runs list --db "$DB" --status done
check "8 done runs" test "$(tail -n +2 "$T/out" | wc -l)" = 8
check "only done runs" test "$(tail -n +2 "$T/out" | grep -vc ' done ')" = 0
expect_status 0 "list --sweep 1" "$RSSIM" runs list --db "$DB" --sweep 1
check "sweep 1 has 8 runs" test "$(tail -n +2 "$T/out" | wc -l)" = 8
check "sweep 1 in point order" test "$(tail -n +2 "$T/out" | awk '{ print $4 }' | tr '\n' ' ')" = "1/0 1/1 1/2 1/3 1/4 1/5 1/6 1/7 "
expect_status 0 "list --sweep 1 --status failed" "$RSSIM" runs list --db "$DB" --sweep 1 --status failed
check "one failed run" test "$(tail -n +2 "$T/out" | awk '{ print $1 }')" = 8
expect_status 2 "list unknown status" "$RSSIM" runs list --db "$DB" --status finished
stderr_has "unknown status named" "unknown status 'finished'"
expect_status 2 "list unknown sweep" "$RSSIM" runs list --db "$DB" --sweep 99
stderr_has "unknown sweep named" "no sweep 99 in '$DB'"
expect_status 2 "list bad sweep id" "$RSSIM" runs list --db "$DB" --sweep x1
expect_status 2 "list stray argument" "$RSSIM" runs list --db "$DB" extra

# show
expect_status 0 "show 9" "$RSSIM" runs show 9 --db "$DB"
stdout_has "show: header" "^run 9$"
stdout_has "show: status" "^  status  *done$"
stdout_has "show: seed" "^  seed  *7$"
stdout_has "show: samples" "^  samples  *600 (t 0.000 s .. 59.900 s)$"
stdout_has "show: params" "^params$"
stdout_has "show: a param" "^  kv_cache_limit = 64M$"
stdout_has "show: metrics" "^metrics$"
stdout_has "show: a metric" "^  overshoot_steady  *1.5$"
stdout_has "show: bytes in MiB" "^  rss_steady_bytes  *104857600  *(100.0 MiB)$"
expect_status 0 "show a failed run" "$RSSIM" runs show 8 --db "$DB"
stdout_has "show: error of a failed run" "^  error  *injected failure$"
expect_status 2 "show unknown run" "$RSSIM" runs show 42 --db "$DB"
stderr_has "unknown run message" "rssim: no run 42 in '$DB'"
expect_status 2 "show bad id" "$RSSIM" runs show 4x --db "$DB"
stderr_has "bad id named" "bad run id '4x'"
expect_status 2 "show without id" "$RSSIM" runs show --db "$DB"

# export
header="run_id,t_ns,accounted_bytes,untracked_bytes,requested_bytes,allocated_bytes,active_bytes,resident_bytes,mapped_bytes,metadata_bytes,cached_bytes,dirty_bytes,base_bytes,rss_bytes,limit_bytes,items_count,trims_count,trimmed_items_count,thread_cached_bytes,heap_bytes,unmapped_bytes,central_cached_bytes,transfer_cached_bytes,pageheap_free_bytes,x,overshoot"
expect_status 0 "export run samples" "$RSSIM" runs export --csv --run 9 --db "$DB"
check "samples header" test "$(head -1 "$T/out")" = "$header"
check "600 sample rows" test "$(tail -n +2 "$T/out" | wc -l)" = 600
check "first sample row" test "$(sed -n 2p "$T/out")" = "9,0,58720256,14680064,73400320,78293674,71303168,75497472,83886080,2097152,1048576,4194304,20971520,96468992,67108864,0,0,0,0,0,0,0,0,0,0.39130434782608692,1.4375"
check "samples in time order" test "$(tail -n +2 "$T/out" | cut -d, -f2 | sort -n -c && echo sorted)" = sorted
check "every row has every column" test "$(awk -F, '{ print NF }' "$T/out" | sort -u)" = 26
expect_status 0 "export run metrics" "$RSSIM" runs export --csv --run 9 --what metrics --db "$DB"
check "metrics header" test "$(head -1 "$T/out")" = "run_id,name,value"
check "7 metric rows" test "$(tail -n +2 "$T/out" | wc -l)" = 7
stdout_has "a metric row" "^9,overshoot_steady,1.5$"
expect_status 0 "export sweep samples" "$RSSIM" runs export --csv --sweep 1 --db "$DB"
check "sweep samples: 7 done runs x 3" test "$(tail -n +2 "$T/out" | wc -l)" = 21
check "sweep samples in point order" test "$(tail -n +2 "$T/out" | cut -d, -f1 | uniq | tr '\n' ' ')" = "1 2 3 4 5 6 7 "
expect_status 0 "export sweep metrics to a file" "$RSSIM" runs export --csv --sweep 1 --what metrics -o "$T/csv/m.csv" --db "$DB"
check "export -o writes nothing on stdout" test ! -s "$T/out"
check "export -o file: header + 7 runs x 6 metrics" test "$(wc -l < "$T/csv/m.csv")" = 43
expect_status 0 "export a run that has no rows" "$RSSIM" runs export --csv --run 10 --db "$DB"
check "header only" test "$(wc -l < "$T/out")" = 1
expect_status 2 "export unknown run" "$RSSIM" runs export --csv --run 42 --db "$DB"
stderr_has "export unknown run message" "no run 42 in '$DB'"
expect_status 2 "export unknown sweep" "$RSSIM" runs export --csv --sweep 42 --db "$DB"
stderr_has "export unknown sweep message" "no sweep 42 in '$DB'"
expect_status 2 "export without --csv" "$RSSIM" runs export --run 9 --db "$DB"
expect_status 2 "export run and sweep" "$RSSIM" runs export --csv --run 9 --sweep 1 --db "$DB"
expect_status 2 "export neither" "$RSSIM" runs export --csv --db "$DB"
expect_status 2 "export bad --what" "$RSSIM" runs export --csv --run 9 --what params --db "$DB"
stderr_has "bad --what named" "'params'"

# the default database is out/rssim.db relative to the working folder
mkdir -p "$T/cwd/out" && cp "$DB" "$T/cwd/out/rssim.db"
abs="$(cd "$(dirname "$RSSIM")" && pwd)/$(basename "$RSSIM")"
(cd "$T/cwd" && "$abs" runs show 9 > "$T/out" 2> "$T/err")
check "default --db is out/rssim.db" grep -q '^run 9$' "$T/out"

# import-measured: samples of a real daemon (scripts/ceph-measure's CSV) become a
# measured run whose metrics are computed as the simulator's are
"$RSSIM" gen kernel-build --clients 1 --builds 1 --events 200 -o "$T/kb.tsv" >/dev/null 2>&1
cat > "$T/m.csv" <<'CSV'
t_ns,rss_bytes,accounted_bytes,limit_bytes,items_count,mp_mds_co,mp_osd_pglog
0,100,50,100,1,50,0
1000000000,200,100,100,2,100,0
2000000000,300,150,100,3,150,0
3000000000,400,100,100,2,100,0
CSV
MDB=$T/m.db
expect_status 0 "import-measured" "$RSSIM" runs import-measured --db "$MDB" --trace "$T/kb.tsv" \
  --preset mds-octopus --label real --events 200 --set daemon=mds --set mds_cache_memory_limit=100 "$T/m.csv"
stdout_has "import-measured says what it stored" "run 1 (measured): 4 samples over 3.0 s"
check "a done measured run" test "$(sql "$MDB" "select kind||' '||status||' '||events||' '||wall_ns from runs")" = "measured done 200 3000000000"
check "4 samples" test "$(sql "$MDB" "select count(*) from samples")" = 4
check "x and overshoot per sample" test "$(sql "$MDB" "select x||' '||overshoot from samples where t_ns = 3000000000")" = "0.75 4.0"
# steady = t >= 1.5 s: (300 + 400) / 2
check "rss_steady as the sampler's" test "$(sql "$MDB" "select value from metrics where name = 'rss_steady_bytes'")" = 350.0
check "rss_peak" test "$(sql "$MDB" "select value from metrics where name = 'rss_peak_bytes'")" = 400.0
check "accounted_peak from the samples" test "$(sql "$MDB" "select value from metrics where name = 'accounted_peak_bytes'")" = 150.0
check "x_steady" test "$(sql "$MDB" "select round(value, 4) from metrics where name = 'x_steady'")" = 0.6429
check "an extra column's steady mean" test "$(sql "$MDB" "select value from metrics where name = 'mp_mds_co_steady'")" = 125.0
check "an all-zero column is left out" test "$(sql "$MDB" "select count(*) from metrics where name like 'mp_osd_pglog%'")" = 0
check "params stored" test "$(sql "$MDB" "select value from params where key = 'daemon'")" = mds
expect_status 0 "runs list shows it" "$RSSIM" runs list --db "$MDB"
stdout_has "listed as measured" "measured  done"
expect_status 2 "import-measured: unknown key" "$RSSIM" runs import-measured --db "$MDB" --trace "$T/kb.tsv" --preset p --set nope=1 "$T/m.csv"
stderr_has "unknown key named" "unknown key 'nope'"
expect_status 2 "import-measured: bad choice" "$RSSIM" runs import-measured --db "$MDB" --trace "$T/kb.tsv" --preset p --set daemon=rgw "$T/m.csv"
printf 't_ns,accounted_bytes\n0,1\n' > "$T/bad1.csv"
expect_status 2 "import-measured: no rss column" "$RSSIM" runs import-measured --db "$MDB" --trace "$T/kb.tsv" --preset p "$T/bad1.csv"
stderr_has "missing column named" "no 'rss_bytes' column"
printf 't_ns,rss_bytes\n0,1\n0,2\n' > "$T/bad2.csv"
expect_status 2 "import-measured: time not increasing" "$RSSIM" runs import-measured --db "$MDB" --trace "$T/kb.tsv" --preset p "$T/bad2.csv"
stderr_has "file:line" "bad2.csv:3: t_ns 0 not after 0"
printf 't_ns,rss_bytes\n0,abc\n' > "$T/bad3.csv"
expect_status 2 "import-measured: not a number" "$RSSIM" runs import-measured --db "$MDB" --trace "$T/kb.tsv" --preset p "$T/bad3.csv"
stderr_has "bad value named" "bad3.csv:2: bad value 'abc' in column 'rss_bytes'"
check "failed imports store nothing" test "$(sql "$MDB" "select count(*) from runs")" = 1

finish
