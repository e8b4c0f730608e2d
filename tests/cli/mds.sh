#!/bin/bash
# mds.sh — daemon mds from the command line: a small kernel-build trace
# replays with both MDS presets and all three layouts; records the
# namespace cannot take (an op on an unknown inode, an unlink of a missing
# dentry, a close without an open) are counted in the run's metrics, and
# under --strict stop the run with exit status 2 and "FILE:LINE: what".
# Run by ctest as: bash mds.sh RSSIM_BINARY SOURCE_DIR
source "$(dirname "$0")/lib.sh"
DB="$T/r.db"

# a tiny generated workload: 2 clients, 1 build each, first 30000 records
expect_status 0 "gen kernel-build" "$RSSIM" gen kernel-build --clients 2 --builds 1 --events 30000 \
  --tree "$SRC/traces/linux-6.1-tree.tsv.zst" --outputs "$SRC/traces/linux-6.1-build-outputs.tsv.zst" \
  -o "$T/kb.bin"
for preset in mds-luminous mds-octopus; do
  for layout in mds-luminous mds-pr19954 mds-octopus; do
    expect_status 0 "replay $preset $layout" "$RSSIM" replay "$T/kb.bin" --preset $preset \
      --set layout=$layout --set mds_cache_memory_limit=16M --db "$DB"
    stdout_has "replay $preset $layout" "run [0-9]* done"
  done
done
n=$(sql "$DB" "SELECT count(*) FROM runs WHERE status = 'done'")
check "six done runs ($n)" [ "$n" = 6 ]
bad_total=$(sql "$DB" "SELECT sum(value) FROM metrics WHERE name = 'mds_bad_records_count'")
check "a generated trace has no bad records ($bad_total)" [ "$bad_total" = 0.0 ]

# a hand-written trace with one bad record of each kind
{
  printf '#rssim-trace\tv1\tdaemon=mds\nt_ns\top\tkey\tsize_bytes\tthread\taux\n'
  printf '10\tCREATE\t10\t1\t0\t3\n'
  printf '20\tGETATTR\t77\t0\t0\t0\n'
  printf '30\tUNLINK\t78\t1\t0\t3\n'
  printf '40\tCLOSE\t10\t0\t0\t0\n'
  printf '50\tUNLINK\t10\t1\t0\t3\n'
} > "$T/bad.tsv"
expect_status 0 "non-strict replay counts bad records" "$RSSIM" replay "$T/bad.tsv" \
  --preset mds-octopus --db "$DB"
id=$(sql "$DB" "SELECT max(id) FROM runs")
m() { sql "$DB" "SELECT value FROM metrics WHERE run_id = $id AND name = '$1'"; }
check "unknown inode counted" [ "$(m mds_bad_unknown_inode_count)" = 1.0 ]
check "missing dentry counted" [ "$(m mds_bad_missing_dentry_count)" = 1.0 ]
check "close without open counted" [ "$(m mds_bad_close_without_open_count)" = 1.0 ]
check "total" [ "$(m mds_bad_records_count)" = 3.0 ]

expect_status 2 "--strict: unknown inode" "$RSSIM" replay "$T/bad.tsv" --preset mds-octopus \
  --strict --db "$DB"
stderr_has "--strict names FILE:LINE" "^rssim: run [0-9]* failed: $T/bad.tsv:4: GETATTR of an unknown inode"

sed -i '/GETATTR/d' "$T/bad.tsv"
expect_status 2 "--strict: missing dentry" "$RSSIM" replay "$T/bad.tsv" --preset mds-octopus \
  --strict --db "$DB"
stderr_has "--strict missing dentry" "^rssim: run [0-9]* failed: $T/bad.tsv:4: UNLINK of a missing dentry"

sed -i '/UNLINK\t78/d' "$T/bad.tsv"
expect_status 2 "--strict: close without open" "$RSSIM" replay "$T/bad.tsv" --preset mds-octopus \
  --strict --db "$DB"
stderr_has "--strict close" "^rssim: run [0-9]* failed: $T/bad.tsv:4: CLOSE without an open"

# bad values of the daemon's keys name the key
expect_status 2 "bad mds_recall" "$RSSIM" replay "$T/bad.tsv" --preset mds-octopus \
  --set mds_recall=fast --db "$DB"
stderr_has "bad mds_recall" "mds_recall"
expect_status 2 "bad mds_loner_locks" "$RSSIM" replay "$T/bad.tsv" --preset mds-luminous \
  --set mds_loner_locks=5 --db "$DB"
stderr_has "bad mds_loner_locks" "bad value '5' for key 'mds_loner_locks': expected 0..4"
finish
