# floor: scripts/bench's bare exact-LRU floor (tests/bench_lru_floor.c) and
# rssim's kv-lru count the same misses on the same trace — the floor is
# only a fair reference if it simulates the same cache.
. "$(dirname "$0")/lib.sh"

FLOOR=$(dirname "$RSSIM")/bench_lru_floor
check "bench_lru_floor is built next to rssim" test -x "$FLOOR"
expect_status 0 "gen kv" "$RSSIM" gen kv --keys 20000 --events 200000 --alpha 0.9 --size-dist lognormal --size-median 2K --size-sigma 2.0 --seed 5 -o "$T/t.bin"
for cap in 65536 1048576 16777216; do
  expect_status 0 "floor at $cap" "$FLOOR" "$T/t.bin" $cap
  want=$(awk '{ for (i = 1; i < NF; i++) if ($i == "misses") print $(i + 1) }' "$T/out")
  expect_status 0 "kv-lru at $cap" "$RSSIM" replay "$T/t.bin" --preset kv-lru --set kv_cache_limit=$cap --db "$T/db"
  id=$(sed -n 's/^run \([0-9]*\) done.*/\1/p' "$T/out")
  got=$(sql "$T/db" "select cast(value as integer) from metrics where run_id=$id and name='misses'")
  check "misses at $cap: kv-lru $got = floor $want" test -n "$want" -a "$got" = "$want"
done
finish
