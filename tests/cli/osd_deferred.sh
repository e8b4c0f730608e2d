# osd_deferred: the whole model's deferred writes, WAL-full flushes and
# heap hooks (models/daemon/osd_budget.c, osd.c; docs/models.md "The OSD's
# whole budget").  Small memtables (16 MiB, WAL limit 64 MiB) so a 60 s
# 4 KiB random-write trace flushes many times.
. "$(dirname "$0")/lib.sh"

expect_status 0 "gen fio 4K" "$RSSIM" gen fio --rw randwrite --bs 4K --size 1G --numjobs 4 \
  --runtime 60 --iops-hint 2000 -o "$T/w4k.bin"
expect_status 0 "gen fio 64K" "$RSSIM" gen fio --rw randwrite --bs 64K --size 1G --numjobs 4 \
  --runtime 60 --iops-hint 2000 -o "$T/w64k.bin"
n=0
run() { # run TRACE ARGS...: a replay into its own db; prints nothing
  local trace=$1; shift
  n=$((n + 1))
  expect_status 0 "replay $n ($*)" "$RSSIM" replay "$trace" --preset osd-pacific \
    --set osd_memory_target=2G --set client_iodepth=16 --set osd_client_latency=32ms \
    --set write_buffer_size=16M --set max_total_wal_size=64M "$@" --db "$T/r$n.db"
}
m() { sql "$T/r$1.db" "select cast(value as integer) from metrics where run_id=1 and name='$2'"; }

# 1-3. deferred data in a family of its own (v16+ "L"): it fills and flushes by
# itself, the metadata families are flushed by the WAL limit
run "$T/w4k.bin" --set bluestore_prefer_deferred_size=64K
run "$T/w4k.bin" --set bluestore_prefer_deferred_size=64K --set rocksdb_deferred_cf=false
run "$T/w4k.bin" --set bluestore_prefer_deferred_size=64K --set max_total_wal_size=0
echo "osd_deferred: WAL-full flushes: deferred family $(m 1 memtable_wal_full_flushes_count)," \
  "in the object's $(m 2 memtable_wal_full_flushes_count), no WAL limit $(m 3 memtable_wal_full_flushes_count)"
check "the WAL limit flushes the metadata families when the deferred data has its own" \
  test "$(m 1 memtable_wal_full_flushes_count)" -gt 0
check "more flushes than WAL-full ones (the deferred family fills by itself)" \
  test "$(m 1 memtable_flushes_count)" -gt "$(m 1 memtable_wal_full_flushes_count)"
check "no WAL-full flush when every family fills with the data alike" \
  test "$(m 2 memtable_wal_full_flushes_count)" = 0
check "no WAL-full flush without max_total_wal_size" \
  test "$(m 3 memtable_wal_full_flushes_count)" = 0
check "the WAL limit bounds the memtables" \
  test "$(m 1 memtable_peak_bytes)" -lt "$(m 3 memtable_peak_bytes)"

# 4-6. deferred means smaller than bluestore_prefer_deferred_size: a 64 KiB
# write at 64K is not deferred (the 16.2.15 OSD: bluestore_write_big_deferred 0)
run "$T/w64k.bin" --set bluestore_prefer_deferred_size=0
run "$T/w64k.bin" --set bluestore_prefer_deferred_size=64K
run "$T/w64k.bin" --set bluestore_prefer_deferred_size=128K
check "64 KiB writes at prefer 64K: nothing deferred, the memtables as with 0" \
  test "$(m 5 memtable_flushes_count)" = "$(m 4 memtable_flushes_count)"
check "64 KiB writes at prefer 128K: deferred, their data flushed many times more" \
  test "$(m 6 memtable_flushes_count)" -gt "$(( $(m 4 memtable_flushes_count) * 10 ))"

# 7-8. heap hooks: without them (Debian's build) PriorityCache releases no free
# page, so the freed memtables stay resident, and reads no heap
run "$T/w4k.bin" --set bluestore_prefer_deferred_size=64K --set osd_heap_hooks=false
echo "osd_deferred: RSS steady with heap hooks $(m 1 rss_steady_bytes), without $(m 7 rss_steady_bytes)"
check "without heap hooks the freed memtables stay resident" \
  test "$(m 7 rss_steady_bytes)" -gt "$(m 1 rss_steady_bytes)"
check "without heap hooks the budget stays at its maximum (0.85 x 2 GiB - 768 MiB)" \
  test "$(m 7 autotune_tuned_bytes)" = "$(awk 'BEGIN { printf "%d", 0.85 * 2147483648 - 805306368 }')"

# 9. the per-PG log length divides the OSD's target by all its PGs
# (osd_num_pgs), but only the osd_pg_num PGs written fill their logs and dups
run "$T/w4k.bin" --set osd_pg_num=64 --set osd_num_pgs=177 --set osd_target_pg_log_entries_per_osd=30000 \
  --set osd_min_pg_log_entries=10 --set osd_pg_log_dups_tracked=100
check "PG log entries = 64 x (30000 / 177)" test "$(m 8 pg_log_entries_count)" = $((64 * (30000 / 177)))
check "PG log dups = 64 x 100" test "$(m 8 pg_log_dups_count)" = 6400
expect_status 2 "fewer PGs on the OSD than written" "$RSSIM" replay "$T/w4k.bin" --preset osd-pacific \
  --set osd_pg_num=64 --set osd_num_pgs=32 --db "$T/x.db"
stderr_has "names the key" "osd_num_pgs"

# refused: keys that would do nothing
expect_status 2 "deferred family without deferred writes" "$RSSIM" replay "$T/w4k.bin" \
  --preset osd-pacific --set rocksdb_deferred_cf=false --db "$T/x.db"
stderr_has "names the key" "rocksdb_deferred_cf"
expect_status 2 "heap hooks off on glibc" "$RSSIM" replay "$T/w4k.bin" --preset osd-pacific \
  --set alloc=glibc --set osd_heap_hooks=false --db "$T/x.db"
stderr_has "names the key" "osd_heap_hooks"
finish
