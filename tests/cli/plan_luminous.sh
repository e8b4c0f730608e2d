# plan_luminous: `rssim plan` on a Luminous OSD preset searches the key its
# trim policy enforces (bluestore_cache_size: bluestore-mempool has a fixed
# cache and never reads osd_memory_target), stores runs with that key set,
# says why the OSD's rule of thumb does not apply, and refuses a pod limit.
. "$(dirname "$0")/lib.sh"

DB="$T/o/p.db"
W=gen:fio:rw=randread,bs=64K,size=256M,numjobs=2,number-ios=4000
plan() { "$RSSIM" plan --preset osd-luminous-200ms --workload "$W" --ram 8G --daemons 2 --db "$DB" "$@"; }

expect_status 0 "--limit 1G on osd-luminous-200ms" plan --limit 1G
stdout_has "the key asked about" "^asked about bluestore_cache_size=1.00 GiB$"
stdout_has "fits" "^fits: 2 osd at bluestore_cache_size=1.00 GiB"
stdout_has "no osd_memory_target rule" "rule of thumb: none published for the osd daemon's bluestore_cache_size"
stdout_has "caveat" "^caveat: bluestore_cache_size is the trim policy's fixed cache size"
check "the run has bluestore_cache_size=1G" test "$(sql "$DB" "select value from params
  where run_id = 1 and key = 'bluestore_cache_size'")" = 1024M
check "the run has no osd_memory_target" test "$(sql "$DB" "select count(*) from params
  where key = 'osd_memory_target'")" = 0
check "plan row names the key" test "$(sql "$DB" "select limit_key from plans where id = 1")" = bluestore_cache_size
l1=$(sql "$DB" "select value from metrics where run_id = 1 and name = 'limit_bytes'")

expect_status 0 "--limit 2G" plan --limit 2G
l2=$(sql "$DB" "select value from metrics where run_id = 2 and name = 'limit_bytes'")
check "a larger bluestore_cache_size enforces a larger limit ($l1 < $l2)" \
  awk -v a="$l1" -v b="$l2" 'BEGIN { exit !(a > 0 && b > a) }'

# the search runs on the same key (here bounded by the workload: the
# 256 MiB x 2 jobs of data never fill a cache of GiBs)
expect_status 2 "search" plan
stderr_has "search on bluestore_cache_size" "at bluestore_cache_size=[0-9.]* GiB the cache never fills"
check "every run of the search set bluestore_cache_size" test "$(sql "$DB" "select count(*) from runs r
  where not exists (select 1 from params p where p.run_id = r.id and p.key = 'bluestore_cache_size')")" = 0

expect_status 2 "--cgroup-limit refused" plan --cgroup-limit 4G
stderr_has "cgroup refusal names the key" "\-\-cgroup-limit: preset 'osd-luminous-200ms' sizes its cache by bluestore_cache_size"
finish
