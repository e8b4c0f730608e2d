#!/bin/bash
# sizes.sh — struct sizes as run keys from the command line: `rssim replay`
# prints and stores RSS and accounted bytes per cached inode; raising
# mds_sizeof_CInode by 400 B raises the accounted bytes per inode by exactly
# 400 (nothing trimmed, so both runs cache the same inodes; the ideal
# allocator makes RSS follow byte for byte); a size of 0 or over 64K, and a
# size key of a layout the run did not choose, exit 2 naming the key.
# Run by ctest as: bash sizes.sh RSSIM_BINARY SOURCE_DIR
source "$(dirname "$0")/lib.sh"
DB="$T/r.db"

expect_status 0 "gen kernel-build" "$RSSIM" gen kernel-build --seed 7 --clients 2 --builds 1 \
  --events 20000 -o "$T/kb.bin"
for cinode in "" 2256; do
  expect_status 0 "replay CInode=${cinode:-default}" "$RSSIM" replay "$T/kb.bin" --preset mds-octopus \
    --set alloc=ideal --set mds_cache_memory_limit=4G ${cinode:+--set mds_sizeof_CInode=$cinode} --db "$DB"
  stdout_has "per-inode line" "per cached inode .* B rss .* B accounted"
done
m() { sql "$DB" "SELECT value FROM metrics WHERE run_id = $1 AND name = '$2'"; }
n1=$(m 1 mds_cached_inodes_count) n2=$(m 2 mds_cached_inodes_count)
check "same cached inodes ($n1, $n2)" [ "$n1" = "$n2" ]
check "no trims" [ "$(m 2 trimmed_items_count)" = 0.0 ]
# mds-octopus's CInode row is 1856: 2256 is 400 more per inode
d_acc=$(awk -v a="$(m 1 accounted_per_cached_inode_bytes)" -v b="$(m 2 accounted_per_cached_inode_bytes)" \
  'BEGIN { d = b - a; print (d > 399.999 && d < 400.001) ? "ok" : d }')
check "accounted per inode +400 ($d_acc)" [ "$d_acc" = ok ]
d_rss=$(awk -v a="$(m 1 rss_per_cached_inode_bytes)" -v b="$(m 2 rss_per_cached_inode_bytes)" \
  'BEGIN { d = b - a; print (d > 399.999 && d < 400.001) ? "ok" : d }')
check "rss per inode +400 with alloc=ideal ($d_rss)" [ "$d_rss" = ok ]
expect_status 0 "list layout" "$RSSIM" list layout
stdout_has "the octopus row is listed" "mds_sizeof_CInode  *1856"
stdout_has "the pacific row is listed" "mds_sizeof_CInode  *1328"
stdout_has "the reef row is its own" "mds_sizeof_CInode  *1344"
stdout_has "the reef inode_t is its own" "mds_sizeof_mempool_inode  *632"
# every preset one line in `rssim list presets`, the OSD ones with their sizeof lines
expect_status 0 "list presets" "$RSSIM" list presets
n_conf=$(ls "$SRC"/models/presets/*.conf | wc -l)
n_listed=$(grep -cE "^  [a-z0-9-]+ +[^ ]" "$T/out")
check "one line per preset ($n_listed of $n_conf)" [ "$n_listed" = "$n_conf" ]

expect_status 2 "CInode 0" "$RSSIM" replay "$T/kb.bin" --preset mds-octopus --set mds_sizeof_CInode=0 --db "$DB"
stderr_has "CInode 0 named" "key 'mds_sizeof_CInode': expected 1..64K"
expect_status 2 "CInode 1M" "$RSSIM" replay "$T/kb.bin" --preset mds-octopus --set mds_sizeof_CInode=1M --db "$DB"
stderr_has "CInode 1M named" "key 'mds_sizeof_CInode'"
expect_status 2 "DecayCounter on octopus" "$RSSIM" replay "$T/kb.bin" --preset mds-octopus \
  --set mds_sizeof_DecayCounter=40 --db "$DB"
stderr_has "DecayCounter named" "key 'mds_sizeof_DecayCounter' is not used by daemon mds"
expect_status 0 "DecayCounter on luminous" "$RSSIM" replay "$T/kb.bin" --preset mds-octopus \
  --set layout=mds-luminous --set mds_sizeof_DecayCounter=32 --db "$DB"
finish
