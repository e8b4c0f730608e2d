# keys: a key no plug-in of the run reads is refused (exit 2, the key, the
# daemon and the preset named), from --set, --vary and a preset alike; a
# preset's keys for a plug-in the user replaced are left out, with a note.
source "$(dirname "$0")/lib.sh"
expect_status 0 "gen kv" "$RSSIM" gen kv --events 2000 --keys 200 -o "$T/kv.bin"
expect_status 0 "gen mds" "$RSSIM" gen kernel-build --clients 1 --builds 1 --events 2000 -o "$T/mds.bin"

expect_status 2 "mds key on kv" "$RSSIM" replay "$T/kv.bin" --preset kv-small \
  --set mds_cache_memory_limit=16G --db "$T/db"
stderr_has "named" "key 'mds_cache_memory_limit' is not used by daemon kv (preset kv-small)"
expect_status 2 "cache= on mds" "$RSSIM" replay "$T/mds.bin" --preset mds-octopus --set cache=lru --db "$T/db"
stderr_has "cache named" "key 'cache' is not used by daemon mds (preset mds-octopus)"
expect_status 2 "sweep cache= on mds" "$RSSIM" sweep "$T/mds.bin" --preset mds-octopus \
  --vary cache=lru,lru-mid --db "$T/db"
stderr_has "sweep names the key" "key 'cache' is not used by daemon mds"
expect_status 2 "a trim's key with another trim" "$RSSIM" replay "$T/mds.bin" --preset mds-luminous \
  --set mds_cache_trim_interval=2s --db "$T/db"
stderr_has "trim named" "it is read by trim policy 'mds-upkeep'"
check "nothing was stored" test "$(sql "$T/db" "select count(*) from runs" 2>/dev/null || echo 0)" = 0

# a preset key for the allocator the user replaced: dropped with a note, not stored
expect_status 0 "alloc replaced" "$RSSIM" replay "$T/kv.bin" --preset kv-small --set alloc=glibc --db "$T/db"
stderr_has "note names the key" "key 'jemalloc_purge' is not read with the plug-ins chosen"
check "dropped key not stored" test "$(sql "$T/db" "select count(*) from params where key='jemalloc_purge'")" = 0
# ...but the same key typed by the user is refused
expect_status 2 "typed foreign alloc key" "$RSSIM" replay "$T/kv.bin" --preset kv-small \
  --set alloc=glibc --set jemalloc_purge=never --db "$T/db"
stderr_has "alloc key named" "key 'jemalloc_purge' is not used by daemon kv (preset kv-small) with alloc=glibc"
# a slot's choices are checked at config time: the MDS needs an MDS layout
expect_status 2 "kv layout on mds" "$RSSIM" replay "$T/mds.bin" --preset mds-octopus --set layout=kv-map --db "$T/db"
stderr_has "layout refused" "daemon mds cannot use layout 'kv-map' for key 'layout'"
# rssim list shows each daemon's components
expect_status 0 "list daemon" "$RSSIM" list daemon
stdout_has "kv components" "cache = lru (cache policy; lru|fifo|lru-mid|bluestore-onode-lru|bluestore-2q|rocksdb-lru)"
finish
