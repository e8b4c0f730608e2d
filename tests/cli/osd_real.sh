# osd_real: osd-pacific against the real Pacific 16.2.15 OSD measured on
# tcmalloc (docs/validation.md, "What a real Pacific OSD's RSS is made of"):
# osd_memory_target 4 GiB, fio on RBD, 4 jobs x 3 GiB, 64 KiB randrw,
# iodepth 16, 420 s at 605 IOPS.  The real OSD's RSS was 2913.8 MiB steady
# (second half) and 2959.6 MiB at its peak: 0.711 and 0.723 x the target.
# The prediction, paced as the real OSD ran (64 ops in flight at 605 IOPS:
# 105.785 ms each), must land within 10 % of those ratios.
. "$(dirname "$0")/lib.sh"

expect_status 0 "gen fio" "$RSSIM" gen fio --rw randrw --bs 64K --size 3G --numjobs 4 \
  --runtime 420 --iops-hint 605 -o "$T/real.bin"
expect_status 0 "replay" "$RSSIM" replay "$T/real.bin" --preset osd-pacific \
  --set osd_memory_target=4G --set client_iodepth=16 --set osd_client_latency=105785us \
  --set osd_pg_num=81 --db "$T/db"
m() { sql "$T/db" "select value / 4294967296.0 from metrics where run_id=1 and name='$1'"; }
steady=$(m rss_steady_bytes)
peak=$(m rss_peak_bytes)
echo "osd_real: RSS/target steady $steady (real 0.711), peak $peak (real 0.723)"
# the band: the measured ratio +- 10 %
check "steady RSS/target within 10 % of the real 0.711" awk -v v="$steady" 'BEGIN { exit !(v >= 0.711 * 0.9 && v <= 0.711 * 1.1) }'
check "peak RSS/target within 10 % of the real 0.723" awk -v v="$peak" 'BEGIN { exit !(v >= 0.723 * 0.9 && v <= 0.723 * 1.1) }'
finish
