# observe: `rssim observe import` on capture sets written from the shapes of
# Ceph's own dumps (tests/observe: a Pacific MDS with every capture, a Reef
# OSD), the column each quantity lands in, the fallbacks, and the refusals
# (exit 2, the file and the JSON path named, nothing stored).
. "$(dirname "$0")/lib.sh"

MDS=$SRC/tests/observe/mds-pacific
OSD=$SRC/tests/observe/osd-reef
DB=$T/o.db
imp() { "$RSSIM" observe import "$@"; }
col() { sql "$DB" "SELECT group_concat($2, ',') FROM (SELECT * FROM samples WHERE run_id = $1 ORDER BY t_ns)"; }
metric() { sql "$DB" "SELECT value FROM metrics WHERE run_id = $1 AND name = '$2'"; }
param() { sql "$DB" "SELECT value FROM params WHERE run_id = $1 AND key = '$2'"; }
KIB=1024 MIB=1048576

expect_status 0 "import mds pacific" imp "$MDS" -o "$DB" --label mds-fixture
stdout_has "summary" "^run 1 (observed): 3 samples from 24 files over 21.0 s"
check "kind observed, done" [ "$(sql "$DB" "SELECT kind || status || label FROM runs WHERE id = 1")" = observeddonemds-fixture ]
check "t_ns from the file names" [ "$(col 1 t_ns)" = "0,10500000000,21000000000" ]
# VmRSS (kB) of proc_status, preferred to ps and perf dump
check "rss from VmRSS" [ "$(col 1 rss_bytes)" = "$(( (307200 + 102400) * KIB )),$(( (307200 + 204800) * KIB )),$(( (307200 + 307200) * KIB ))" ]
check "accounted = mds_co bytes" [ "$(col 1 accounted_bytes)" = "$((100 * MIB)),$((200 * MIB)),$((300 * MIB))" ]
check "items = mds_mem.ino" [ "$(col 1 items_count)" = "120000,240000,360000" ]
check "limit from config get" [ "$(col 1 limit_bytes)" = "4294967296,4294967296,4294967296" ]
check "limit param" [ "$(param 1 mds_cache_memory_limit)" = 4294967296 ]
check "release param" [ "$(param 1 release)" = pacific ]
# tcmalloc: in use -> allocated, the freelists, unmapped, virtual -> heap
check "heap in use" [ "$(col 1 allocated_bytes)" = "$((250 * MIB)),$((350 * MIB)),$((450 * MIB))" ]
check "page heap free" [ "$(col 1 pageheap_free_bytes)" = "$((8 * MIB)),$((16 * MIB)),$((24 * MIB))" ]
check "central, transfer, thread" [ "$(sql "$DB" "SELECT central_cached_bytes || ' ' || transfer_cached_bytes || ' ' || thread_cached_bytes || ' ' || cached_bytes FROM samples WHERE run_id = 1 AND t_ns = 0")" = "$((3 * MIB)) $((1 * MIB)) $((2 * MIB)) $((6 * MIB))" ]
check "unmapped" [ "$(col 1 unmapped_bytes)" = "$((64 * MIB)),$((64 * MIB)),$((64 * MIB))" ]
check "virtual = actual + unmapped" [ "$(sql "$DB" "SELECT min(heap_bytes = mapped_bytes + unmapped_bytes) FROM samples WHERE run_id = 1")" = 1 ]
check "x = 1 - accounted/rss" [ "$(sql "$DB" "SELECT printf('%.4f', x) FROM samples WHERE run_id = 1 AND t_ns = 0")" = "$(awk 'BEGIN { printf "%.4f", 1 - 100 * 1024 / 409600 }')" ]
# session ls: caps of both clients, steady = the last two captures
check "caps steady" [ "$(metric 1 caps_steady)" = 4100.0 ]
check "caps peak" [ "$(metric 1 caps_peak)" = 5000.0 ]
check "sessions" [ "$(metric 1 sessions_steady)" = 2.0 ]
check "per-pool metric" [ "$(metric 1 mp_mds_co_peak)" = "$((300 * MIB)).0" ]
check "unused pool left out" [ -z "$(metric 1 mp_bloom_filter_peak)" ]
check "accounted steady" [ "$(metric 1 accounted_steady_bytes)" = "$((250 * MIB)).0" ]

# fallbacks: without proc_status the RSS is ps's, without both perf dump's
# mds_mem.rss; without dump_mempools the accounted bytes are cache status's
S=$T/set; mkdir "$S"
cp "$MDS"/*-ps_rss.txt "$MDS"/*-cache_status.json "$MDS"/*-perf_dump.json "$S"/
expect_status 0 "import without proc_status, mempools" imp "$S" -o "$DB"
check "rss from ps" [ "$(col 2 rss_bytes)" = "$(( (409600 + 8) * KIB )),$(( (512000 + 8) * KIB )),$(( (614400 + 8) * KIB ))" ]
check "accounted from cache status" [ "$(col 2 accounted_bytes)" = "$((100 * MIB)),$((200 * MIB)),$((300 * MIB))" ]
check "no limit captured" [ "$(param 2 mds_cache_memory_limit)" = 0 ]
rm "$S"/*-ps_rss.txt
expect_status 0 "import with perf dump's rss" imp "$S"/* -o "$DB"
check "rss from mds_mem.rss" [ "$(col 3 rss_bytes)" = "$(( (409600 - 4) * KIB )),$(( (512000 - 4) * KIB )),$(( (614400 - 4) * KIB ))" ]

# OSD, Reef: its pool names, the BlueStore cache pools summed
expect_status 0 "import osd reef" imp "$OSD" -o "$DB" --daemon osd --release reef
acc0=$(( (50 << 20) + 20000 * 616 + (3 << 20) + (1 << 20) + 9600 + 30000 * 104 + 20000 * 112 + 100 * 96 ))
check "osd accounted" [ "$(col 4 accounted_bytes)" = "$acc0,$((acc0 + (10 << 20)))" ]
check "osd rss from ps without header" [ "$(col 4 rss_bytes)" = "$((900000 * KIB)),$((920000 * KIB))" ]
check "osd limit = meta + data committed" [ "$(col 4 limit_bytes)" = "$(( (2 << 30) + (256 << 20) )),$(( (2 << 30) + (256 << 20) ))" ]
check "osd items = onodes" [ "$(col 4 items_count)" = "20000,20001" ]
check "osd_pglog not accounted, but a metric" [ "$(metric 4 mp_osd_pglog_peak)" = "$((180 * MIB)).0" ]
expect_status 0 "runs list" "$RSSIM" runs list --db "$DB"
check "4 observed runs listed" [ "$(grep -c ' observed ' "$T/out")" = 4 ]

# ---- refusals: exit 2, the file named, nothing stored
runs_before=$(sql "$DB" "SELECT count(*) FROM runs")
refuse() { # refuse "what" pattern args...
  local what=$1 pat=$2; shift 2
  expect_status 2 "$what" imp "$@" -o "$DB"
  stderr_has "$what" "$pat"
}
refuse "reef osd read as pacific" "1764700000-dump_mempools.json: no field 'mempool.by_pool.bluestore_Buffer.bytes'.*--release" "$OSD" --daemon osd --release pacific
refuse "unknown release" "unknown release 'argonaut'" "$MDS" --release argonaut
refuse "unknown daemon" "unknown daemon 'mon'" "$MDS" --daemon mon
refuse "cache status of an osd" "cache_status is the MDS's" "$MDS" --daemon osd
B=$T/bad; mkdir "$B"
cp "$MDS/1764620000-proc_status.txt" "$MDS/1764620000-dump_mempools.json" "$B"/
cp "$MDS/1764620000-proc_status.txt" "$B/capture.txt"
refuse "name without T" "capture.txt: the name is not T-WHAT" "$B"
rm "$B/capture.txt"; cp "$MDS/1764620000-proc_status.txt" "$B/1764620000-vmstat.txt"
refuse "unknown WHAT" "unknown capture 'vmstat'" "$B"
rm "$B/1764620000-vmstat.txt"
sed 's/"rss"/"rss_kb"/' "$MDS/1764620000-perf_dump.json" > "$B/1764620000-perf_dump.json"
refuse "missing field named by path" "1764620000-perf_dump.json: no field 'mds_mem.rss'" "$B"
sed 's/"ino": 120000/"ino": "many"/' "$MDS/1764620000-perf_dump.json" > "$B/1764620000-perf_dump.json"
refuse "mistyped field" "field 'mds_mem.ino' is not a count" "$B"
head -c 300 "$MDS/1764620000-perf_dump.json" > "$B/1764620000-perf_dump.json"
refuse "truncated JSON: file, line, column" "1764620000-perf_dump.json:[0-9]*:[0-9]*: not JSON" "$B"
rm "$B/1764620000-perf_dump.json"
printf 'ERROR: (95) Operation not supported\nnot using tcmalloc\n' > "$B/1764620000-heap_stats.txt"
refuse "heap stats without tcmalloc" "Bytes in use by application.*not using tcmalloc" "$B"
rm "$B/1764620000-heap_stats.txt"
echo '{"sessions": []}' > "$B/1764620000-session_ls.json"
refuse "session ls not an array" "not a JSON array of sessions" "$B"
sed 's/"num_caps": [0-9]*/"num_caps": -1/' "$MDS/1764620000-session_ls.json" > "$B/1764620000-session_ls.json"
refuse "session without caps" "'\[0\].num_caps'" "$B"
rm "$B/1764620000-session_ls.json"
refuse "the same capture twice" "a second proc_status at the same time" "$B" "$MDS/1764620000-proc_status.txt"
cp "$MDS/1764620010.5-dump_mempools.json" "$B"/
refuse "a sample without RSS" "capture at 1764620010.500000000 .*no RSS" "$B"
rm "$B"/1764620010.5-*
truncate -s 65M "$B/1764620000-cache_status.json"
refuse "file too large" "1764620000-cache_status.json: 68157440 bytes, more than the 64 MiB" "$B"
rm "$B/1764620000-cache_status.json"
echo 'VmSize: 100 kB' > "$B/1764620000-proc_status.txt"
refuse "proc status without VmRSS" "no 'VmRSS: N kB' line" "$B"
printf '  RSS\n12 34\n' > "$B/1764620000-ps_rss.txt"
refuse "ps with two numbers" "is not one RSS in KiB" "$B/1764620000-ps_rss.txt"
refuse "missing file" "cannot open '$T/nothere'" "$T/nothere"
mkdir "$T/empty"
refuse "empty folder" "no capture files" "$T/empty"
expect_status 2 "no file" imp -o "$DB"
check "nothing stored by the refusals" [ "$(sql "$DB" "SELECT count(*) FROM runs")" = "$runs_before" ]
finish
