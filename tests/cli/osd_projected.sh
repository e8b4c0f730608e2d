# osd_projected: the primary's projected log (osd_pg_projected_log) keeps a
# dup of every write, osd_pg_log_dups_tracked per PG, beside the log's own
# (models/daemon/osd_budget.c; docs/models.md "The OSD's whole budget").
. "$(dirname "$0")/lib.sh"

expect_status 0 "gen fio" "$RSSIM" gen fio --rw randwrite --bs 4K --size 256M --numjobs 2 \
  --runtime 30 --iops-hint 1000 -o "$T/w.bin"
n=0
run() { # run ARGS...
  n=$((n + 1))
  expect_status 0 "replay $n ($*)" "$RSSIM" replay "$T/w.bin" --preset osd-pacific \
    --set osd_memory_target=2G --set client_iodepth=16 --set osd_pg_num=16 \
    --set osd_target_pg_log_entries_per_osd=16000 --set osd_pg_log_dups_tracked=500 "$@" --db "$T/r$n.db"
}
m() { sql "$T/r$1.db" "select cast(value as integer) from metrics where run_id=1 and name='$2'"; }

run --set osd_pg_projected_log=false
run
writes=$(m 2 writes_count)
echo "osd_projected: $writes writes; dups $(m 1 pg_log_dups_count) without, log $(m 2 pg_log_dups_count)" \
  "+ projected $(m 2 pg_log_projected_dups_count) with; pg log $(m 1 pg_log_bytes) / $(m 2 pg_log_bytes) B"
check "enough writes to fill both dup lists" test "$writes" -gt 20000
check "the projected log keeps osd_pg_log_dups_tracked x PGs dups" \
  test "$(m 2 pg_log_projected_dups_count)" = 8000
check "the log's own entries and dups are the same" \
  test "$(m 2 pg_log_dups_count)" = "$(m 1 pg_log_dups_count)" -a \
  "$(m 2 pg_log_entries_count)" = "$(m 1 pg_log_entries_count)"
check "the projected dups are in the pg log's bytes (104 B each)" \
  test "$(m 2 pg_log_bytes)" = "$(( $(m 1 pg_log_bytes) + 8000 * 104 ))"
check "and in the budget's RSS" test "$(m 2 rss_peak_bytes)" -gt "$(m 1 rss_peak_bytes)"
check "no projected-dup metric without the projected log" \
  test -z "$(m 1 pg_log_projected_dups_count)"

expect_status 2 "a projected log keeping no dups" "$RSSIM" replay "$T/w.bin" --preset osd-pacific \
  --set osd_pg_log_dups_tracked=0
stderr_has "names osd_pg_projected_log" "osd_pg_projected_log' = true has no effect"
finish
