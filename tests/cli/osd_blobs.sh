# osd_blobs: an onode carries one blob per bluestore_max_blob_size of its
# object written (models/layout/bluestore.c, models/daemon/osd.c;
# docs/models.md "Cache"), and osd_object_prefill_bytes says the objects
# were written whole before the trace (scripts/ceph-measure --prefill).
. "$(dirname "$0")/lib.sh"

expect_status 0 "gen fio reads" "$RSSIM" gen fio --rw randread --bs 16K --size 256M --numjobs 2 \
  --runtime 20 --iops-hint 500 -o "$T/r.bin"
expect_status 0 "gen fio writes" "$RSSIM" gen fio --rw randwrite --bs 4K --size 256M --numjobs 2 \
  --runtime 20 --iops-hint 500 -o "$T/w.bin"
n=0
run() { # run TRACE ARGS...
  local trace=$1; shift
  n=$((n + 1))
  expect_status 0 "replay $n ($*)" "$RSSIM" replay "$trace" --preset osd-pacific \
    --set osd_memory_target=2G --set client_iodepth=16 "$@" --db "$T/r$n.db"
}
m() { sql "$T/r$1.db" "select cast(value as integer) from metrics where run_id=1 and name='$2'"; }
# a 64 KiB blob of 16.2.15: Extent 48 + Blob 112 + SharedBlob 112 + pextent 16
# + use tracker 16 x 4 + crc32c 16 x 4 = 416 B
blob=416

# 1-2. reads: a never-written object has no blob; a prefilled one 64
run "$T/r.bin"
run "$T/r.bin" --set osd_object_prefill_bytes=4M
echo "osd_blobs: reads: extras $(m 1 onode_extra_bytes) unwritten, $(m 2 onode_extra_bytes) prefilled," \
  "$(m 2 onodes_count) onodes"
check "reads of unwritten objects: no blob" test "$(m 1 onode_extra_bytes)" = 0
check "reads of prefilled 4 MiB objects: 64 blobs an onode" \
  test "$(m 2 onode_extra_bytes)" = "$(( $(m 2 onodes_count) * 64 * blob ))"
check "the blobs are in the caches' accounted bytes" \
  test "$(m 2 accounted_peak_bytes)" -ge "$(( $(m 1 accounted_peak_bytes) + $(m 2 onode_extra_bytes) ))"

# 3-4. writes grow what was written, at most to the object's 4 MiB
run "$T/w.bin"
run "$T/w.bin" --set osd_object_prefill_bytes=4M
check "random writes give blobs, no more than 64 an onode" \
  test "$(m 3 onode_extra_bytes)" -gt 0 -a "$(m 3 onode_extra_bytes)" -le "$(( $(m 3 onodes_count) * 64 * blob ))"
check "random writes over prefilled objects: 64 blobs an onode" \
  test "$(m 4 onode_extra_bytes)" = "$(( $(m 4 onodes_count) * 64 * blob ))"

# 5. a smaller max blob: more blobs
run "$T/r.bin" --set osd_object_prefill_bytes=4M --set bluestore_max_blob_size=32K
check "32 KiB blobs: 128 an onode, each with half the tracker and checksums" \
  test "$(m 5 onode_extra_bytes)" = "$(( $(m 5 onodes_count) * 128 * (blob - 64) ))"

# no key in vain
expect_status 2 "prefill without blobs" "$RSSIM" replay "$T/r.bin" --preset osd-autotune \
  --set osd_object_prefill_bytes=4M
stderr_has "names osd_object_prefill_bytes" "osd_object_prefill_bytes does nothing"
expect_status 2 "a blob key without blobs" "$RSSIM" replay "$T/r.bin" --preset osd-autotune \
  --set bluestore_min_alloc_size=16K
stderr_has "names bluestore_min_alloc_size" "bluestore_min_alloc_size does nothing"
expect_status 2 "the fixed extras beside blobs" "$RSSIM" replay "$T/r.bin" --preset osd-pacific \
  --set osd_onode_extra_bytes=272
stderr_has "names osd_onode_extra_bytes" "osd_onode_extra_bytes does nothing"
finish
