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

# a count limit: the cache never holds more objects than it
expect_status 0 "replay kv-lru by objects" "$RSSIM" replay "$T/t.tsv" --preset kv-lru \
  --set kv_cache_limit=0 --set kv_cache_limit_objects=100 --db "$T/db"
check "at most 100 objects in every sample" test "$(sql "$T/db" "select max(items_count) from samples where run_id=2")" = 100
check "more misses with 100 objects than with 1 MiB" test "$(m 2 misses | cut -d. -f1)" -gt "$mi"

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
finish
