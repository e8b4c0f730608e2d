# osd: the BlueStore OSD daemon from the CLI — every osd preset replays a
# closed-loop fio trace and stores the service metrics; bad input is exit 2
# with the key, the value or FILE:LINE named.
. "$(dirname "$0")/lib.sh"

expect_status 0 "gen fio" "$RSSIM" gen fio --rw randrw --bs 8K --size 64M --numjobs 4 --number-ios 500 -o "$T/f.bin"
n=0
for p in osd-luminous-200ms osd-luminous-50ms osd-octopus osd-autotune; do
  n=$((n + 1))
  limit="--set bluestore_cache_size=8M"  # autotune sizes the caches from the target instead
  [ $p = osd-autotune ] && limit="--set osd_memory_target=1G"
  expect_status 0 "replay $p" "$RSSIM" replay "$T/f.bin" --preset $p --set client_iodepth=8 \
    $limit --db "$T/db"
  stdout_has "$p summary" "run $n done"
  check "$p iops > 0" test "$(sql "$T/db" "select value > 0 from metrics where run_id=$n and name='iops'")" = 1
  check "$p ops_count" test "$(sql "$T/db" "select cast(value as int) from metrics where run_id=$n and name='ops_count'")" = 2000
  check "$p p99.9 >= p50" test "$(sql "$T/db" "select (select value from metrics where run_id=$n and name='latency_p99.9_ns') >= (select value from metrics where run_id=$n and name='latency_p50_ns')")" = 1
  check "$p trim lock metric" test "$(sql "$T/db" "select count(*) from metrics where run_id=$n and name='trim_lock_ns'")" = 1
done
check "periodic 200 ms trims less often than 50 ms" \
  test "$(sql "$T/db" "select (select value from metrics where run_id=1 and name='trims_count') < (select value from metrics where run_id=2 and name='trims_count')")" = 1

# a record it cannot apply: counted, or with --strict an error at its line
{ printf '#rssim-trace\tv1\tdaemon=osd\nt_ns\top\tkey\tsize_bytes\tthread\taux\n'
  printf '0\tREAD\t1\t4096\t0\t0\n1000\tREAD\t8589934592\t4096\t0\t0\n'; } > "$T/big.tsv"
expect_status 0 "unappliable record counted" "$RSSIM" replay "$T/big.tsv" --preset osd-octopus --db "$T/db"
check "records_skipped_count" test "$(sql "$T/db" "select cast(value as int) from metrics where run_id=5 and name='records_skipped_count'")" = 1
expect_status 2 "strict" "$RSSIM" replay "$T/big.tsv" --preset osd-octopus --strict --db "$T/db"
stderr_has "strict names file:line" "big.tsv:4:"
expect_status 2 "trim policy the osd cannot use" "$RSSIM" replay "$T/f.bin" --preset osd-octopus --set trim=mds-tick --db "$T/db"
stderr_has "names the policy" "'mds-tick'"
expect_status 2 "generic periodic refused on the osd" "$RSSIM" replay "$T/f.bin" --preset osd-octopus --set trim=periodic --db "$T/db"
stderr_has "names the policies that fit" "policies that fit: bluestore-mempool"
expect_status 2 "a bluestore trim refused on kv" "$RSSIM" replay "$T/f.bin" --preset kv-small --set trim=bluestore-on-add --db "$T/db"
stderr_has "names the policy and the daemon" "daemon kv cannot use trim policy 'bluestore-on-add'"
expect_status 2 "autotune key with the Luminous trim" "$RSSIM" replay "$T/f.bin" --preset osd-luminous-50ms --set osd_memory_target=1G --db "$T/db"
stderr_has "names the key" "'osd_memory_target' is not used"
expect_status 2 "pass cost with trim-on-add" "$RSSIM" replay "$T/f.bin" --preset osd-octopus --set osd_trim_cost_fixed=1ms --db "$T/db"
stderr_has "names the key" "'osd_trim_cost_fixed' is not used"
expect_status 2 "a buffer layout of another shape" "$RSSIM" replay "$T/f.bin" --preset osd-octopus --set buffer_layout=kv-object --db "$T/db"
stderr_has "names the layout" "cannot use buffer layout 'kv-object'"
expect_status 2 "bad shard count" "$RSSIM" replay "$T/f.bin" --preset osd-octopus --set osd_op_num_shards=0 --db "$T/db"
stderr_has "names the key" "osd_op_num_shards"
finish
