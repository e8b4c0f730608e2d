# cache_exact: the exact presets from the command line: `rssim replay --preset
# kv-lru` prints and stores hits, misses, miss_ratio and byte_miss_ratio
# (hits + misses = the trace's GETs), `rssim list presets` says which presets
# are exact, and exact is checked (a timer trim under exact = lru is refused).
. "$(dirname "$0")/lib.sh"

expect_status 0 "gen kv" "$RSSIM" gen kv --keys 3000 --events 30000 --rate 30000 --seed 4 -o "$T/t.tsv"
gets=$(awk '$2 == "GET"' "$T/t.tsv" | wc -l)
check "the trace has GETs" test "$gets" -gt 1000
expect_status 0 "replay kv-lru" "$RSSIM" replay "$T/t.tsv" --preset kv-lru --set kv_cache_limit=1M --db "$T/db"
stdout_has "summary: hits and misses" "^  hits  *[0-9][0-9]*  *misses [0-9][0-9]*  miss_ratio 0\.[0-9]*  byte_miss_ratio 0\.[0-9]*$"
m() { sql "$T/db" "select value from metrics where run_id=$1 and name='$2'"; }
h=$(sql "$T/db" "select cast(value as integer) from metrics where run_id=1 and name='hits'")
mi=$(sql "$T/db" "select cast(value as integer) from metrics where run_id=1 and name='misses'")
check "stored: hits + misses = GETs ($h + $mi, $gets)" test "$(awk -v a="$h" -v b="$mi" 'BEGIN{print a+b}')" = "$gets"
check "stored: miss_ratio = misses / GETs" \
  awk -v r="$(m 1 miss_ratio)" -v a="$h" -v b="$mi" 'BEGIN{d = r - b/(a+b); exit !(d < 1e-12 && d > -1e-12 && b > 0)}'
check "stored: byte_miss_ratio" test -n "$(m 1 byte_miss_ratio)"
stdout_has "printed hits match the stored ones" "^  hits  *$h  *misses $mi "

# where metrics are shown: runs list --metric, report's key metrics
expect_status 0 "runs list --metric miss_ratio" "$RSSIM" runs list --db "$T/db" --metric miss_ratio --metric no_such
stdout_has "runs list: the column" "  miss_ratio  no_such$"
stdout_has "runs list: run 1's value" "^ *1  predicted  done  .*  $(m 1 miss_ratio | cut -c1-7)[0-9]*  *-$"
expect_status 0 "report" "$RSSIM" report --db "$T/db" --run 1 -o "$T/rep/"
check "report: a miss ratio column" grep -q "<th>miss ratio" "$T"/rep/*.html

# a count limit: the cache never holds more objects than it
expect_status 0 "replay kv-lru by objects" "$RSSIM" replay "$T/t.tsv" --preset kv-lru \
  --set kv_cache_limit=0 --set kv_cache_limit_objects=100 --db "$T/db"
check "at most 100 objects in every sample" test "$(sql "$T/db" "select max(items_count) from samples where run_id=2")" = 100
check "more misses with 100 objects than with 1 MiB" test "$(m 2 misses | cut -d. -f1)" -gt "$mi"

# the mds: a request on an existing inode (LOOKUP GETATTR OPEN CLOSE READDIR)
# is a hit when its dentry+inode is cached, else a miss that loads it
expect_status 0 "gen kernel-build" "$RSSIM" gen kernel-build --seed 7 --clients 1 --builds 1 --events 200000 -o "$T/m.tsv"
access=$(awk '$2 ~ /^(LOOKUP|GETATTR|OPEN|CLOSE|READDIR)$/' "$T/m.tsv" | wc -l)
expect_status 0 "replay mds-pacific" "$RSSIM" replay "$T/m.tsv" --preset mds-pacific --set mds_cache_memory_limit=4M --db "$T/db"
stdout_has "mds summary: hits" "^  hits  *[0-9]"
mi=$(sql "$T/db" "select max(id) from runs")
check "mds: hits + misses = requests on an inode ($access)" \
  test "$(awk -v a="$(m $mi hits)" -v b="$(m $mi misses)" 'BEGIN{print a+b}')" = "$access"
check "mds: misses = loads" awk -v a="$(m $mi misses)" -v b="$(m $mi mds_loads_count)" 'BEGIN{exit !(a == b)}'
check "mds: some of each" awk -v a="$(m $mi hits)" -v b="$(m $mi misses)" 'BEGIN{exit !(a > 0 && b > 0)}'

# the osd's three caches: every op looks its onode up, every READ its buffer,
# every onode miss its RocksDB block (osd_memory_model = whole)
expect_status 0 "gen fio" "$RSSIM" gen fio --seed 7 --rw randrw --bs 16K --size 32M --numjobs 2 --number-ios 3000 -o "$T/f.tsv"
expect_status 0 "replay osd-pacific" "$RSSIM" replay "$T/f.tsv" --preset osd-pacific --set osd_memory_target=1G --db "$T/db"
stdout_has "osd summary: onode" "^  onode hits  *[0-9]"
stdout_has "osd summary: buffer" "^  buffer hits  *[0-9]"
stdout_has "osd summary: rocksdb" "^  rocksdb hits  *[0-9]"
oi=$(sql "$T/db" "select max(id) from runs")
eq() { awk -v a="$1" -v b="$2" 'BEGIN{exit !(a == b)}'; }
sum() { awk -v a="$(m $oi "$1")" -v b="$(m $oi "$2")" 'BEGIN{print a+b}'; }
check "osd: onode lookups = ops" eq "$(sum onode_hits onode_misses)" "$(sum reads_count writes_count)"
check "osd: buffer lookups = reads" eq "$(sum buffer_hits buffer_misses)" "$(m $oi reads_count)"
check "osd: rocksdb lookups = onode misses" eq "$(sum rocksdb_hits rocksdb_misses)" "$(m $oi onode_misses)"
check "osd: buffer_miss_ratio = 1 - buffer_hit_ratio" \
  awk -v a="$(m $oi buffer_miss_ratio)" -v b="$(m $oi buffer_hit_ratio)" 'BEGIN{d = a + b - 1; exit !(d < 1e-9 && d > -1e-9)}'

# exact is a checked claim, and the listing says which presets make it
expect_status 2 "exact=lru with a timer trim" "$RSSIM" replay "$T/t.tsv" --preset kv-lru --set trim=periodic --db "$T/db"
stderr_has "names the key" "for key 'exact'"
stderr_has "names the fix" "trim=on-insert"
expect_status 2 "an object limit with autotune" "$RSSIM" replay "$T/t.tsv" --preset kv-small \
  --set trim=autotune --set kv_cache_limit_objects=10 --db "$T/db"
stderr_has "names the key" "kv_cache_limit_objects"
expect_status 0 "list presets" "$RSSIM" list presets
stdout_has "kv-lru is exact" "^  kv-lru  *exact=lru "
stdout_has "kv-fifo is exact" "^  kv-fifo  *exact=fifo "
stdout_has "kv-small is not" "^  kv-small  *exact=- "
# the shell completion takes the indented first words as preset names
check "list presets: the indented lines are the presets" test \
  "$(awk '/^  / { print $1 }' "$T/out" | sort | tr '\n' ' ')" = \
  "$(ls "$SRC/models/presets" | sed -n 's/\.conf$//p' | sort | tr '\n' ' ')"
finish
