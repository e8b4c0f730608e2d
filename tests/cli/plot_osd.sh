# plot_osd: `rssim plot latency` and `rssim plot interval` from a fixture
# database (tests/cli/plot_osd-fixture.sql, exact values): PNG, SVG and text
# outputs, the data files (quantiles in order, series split by the other
# varied key, rows sorted by interval), curve titles from labels or from
# the params that differ, the unit switch of the latency axis, and the
# refusals (exit 2).
. "$(dirname "$0")/lib.sh"

DB="$T/db"
"$RSSIM" runs init --db "$DB" > /dev/null
check "fixture loads" sqlite3 -bail "$DB" ".read $SRC/tests/cli/plot_osd-fixture.sql"

is_png() { # is_png FILE: PNG magic and more than 10 KB
  test "$(head -c 8 "$1" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a && test "$(wc -c < "$1")" -gt 10240
}
rows() { grep -c '^[0-9]' "$1"; }

expect_status 0 "plot -h" "$RSSIM" plot -h
stdout_has "plot -h lists latency" "rssim plot latency"
stdout_has "plot -h lists interval" "rssim plot interval"

# latency: two lone runs without labels, titled by the param that differs
expect_status 0 "latency png" "$RSSIM" plot latency --db "$DB" --run 9 --run 10 -o "$T/p/lat.png"
check "latency png is a PNG > 10 KB" is_png "$T/p/lat.png"
check "latency data: a block per run" test "$(grep -c '^"run ' "$T/p/lat.dat")" = 2
check "latency data: run 9 titled by its differing param" grep -q '^"run 9: alloc=jemalloc" run_id latency_ns$' "$T/p/lat.dat"
check "latency data: run 10 too" grep -q '^"run 10: alloc=tcmalloc"' "$T/p/lat.dat"
check "latency data: 17 quantiles each" test "$(rows "$T/p/lat.dat")" = 34
# 200000 x (1 + 50^2 / 400) = 1450000; quantiles sorted, 99.99 last
check "latency data: the median of run 9" grep -q '^50 9 1450000$' "$T/p/lat.dat"
check "latency data: sorted by q" test "$(grep '^[0-9][0-9.]* 9 ' "$T/p/lat.dat" | cut -d' ' -f1 | tr '\n' ' ')" = "0.1 1 5 10 20 30 40 50 60 70 80 90 95 99 99.5 99.9 99.99 "
expect_status 0 "latency svg" "$RSSIM" plot latency --db "$DB" --run 9 --run 10 -o "$T/p/lat.svg"
check "latency svg: a 30 ms tail is drawn in ms" grep -q 'op latency (ms, log scale)' "$T/p/lat.svg"
check "latency svg: y label" grep -q 'ops completed within the latency (%)' "$T/p/lat.svg"
expect_status 0 "latency txt, one run" "$RSSIM" plot latency --db "$DB" --run 9 -o "$T/p/lat9.txt"
check "latency txt: a 5 ms tail is drawn in µs" grep -q 'op latency (µs, log scale)' "$T/p/lat9.txt"
check "latency txt: a lone run is titled by its id" grep -q 'run 9' "$T/p/lat9.txt"
expect_status 0 "latency txt, two runs" "$RSSIM" plot latency --db "$DB" --run 9 --run 10 -o "$T/p/lat.txt"
check "latency txt: curve labels" grep -q 'run 10: alloc=tcmalloc' "$T/p/lat.txt"
# a sweep: every done run, titled by its label
expect_status 0 "latency of a sweep" "$RSSIM" plot latency --db "$DB" --sweep 1 -o "$T/p/lats.png"
check "latency sweep png" is_png "$T/p/lats.png"
check "latency sweep: 8 curves" test "$(grep -c '^"run ' "$T/p/lats.dat")" = 8
check "latency sweep: labels" grep -q '^"run 3: bluestore_cache_trim_interval=50ms bluestore_cache_size=1G"' "$T/p/lats.dat"

# interval: trim interval on x, one series per cache size
expect_status 0 "interval png" "$RSSIM" plot interval --db "$DB" --sweep 1 -o "$T/p/iv.png"
check "interval png is a PNG > 10 KB" is_png "$T/p/iv.png"
check "interval data: one series per cache size" test "$(grep -c '^"bluestore_cache_size=[12]G" run_id interval_ms overshoot_max excess_peak_bytes iops cache_peak_ratio$' "$T/p/iv.dat")" = 2
check "interval data: 8 runs" test "$(rows "$T/p/iv.dat")" = 8
# point 0: 25 ms, 1G: overshoot 1.1 + 0.002 x 25, iops 20000 x 25 / 35,
# peak cache / limit = 1 + excess / limit = 1 + 0.002 x 25
check "interval data: a point exact" grep -q '^0 1 25 1.15 53687091.2 14285.71429 1.05$' "$T/p/iv.dat"
check "interval data: sorted by interval" test "$(awk '/^"bluestore_cache_size=2G"/ { on = 1; next } on && /^[0-9]/ { printf "%s ", $3 }' "$T/p/iv.dat")" = "25 50 100 200 "
expect_status 0 "interval svg" "$RSSIM" plot interval --db "$DB" --sweep 1 -o "$T/p/iv.svg"
check "interval svg: x label" grep -q 'trim interval (ms)' "$T/p/iv.svg"
check "interval svg: y2 label" grep -q 'throughput (IOPS)' "$T/p/iv.svg"
check "interval svg: y1 label" grep -q 'peak cache/limit' "$T/p/iv.svg"
expect_status 0 "interval txt" "$RSSIM" plot interval --db "$DB" --sweep 1 -o "$T/p/iv.txt"
check "interval txt: series labels" grep -q 'bluestore_cache_size=2G' "$T/p/iv.txt"
check "interval txt: axis label" grep -q 'trim interval (ms)' "$T/p/iv.txt"

# refusals
expect_status 2 "latency without runs" "$RSSIM" plot latency --db "$DB" -o "$T/x.png"
stderr_has "latency usage named" "latency takes --run ID \[--run ID ...\] or --sweep ID"
expect_status 2 "latency with both" "$RSSIM" plot latency --db "$DB" --run 9 --sweep 1 -o "$T/x.png"
expect_status 2 "latency of a kv run" "$RSSIM" plot latency --db "$DB" --run 9 --run 11 -o "$T/x.png"
stderr_has "no latency metrics named" "run 11 in '$DB' has no latency_p<q>_ns metrics"
expect_status 2 "latency of an unknown run" "$RSSIM" plot latency --db "$DB" --run 42 -o "$T/x.png"
stderr_has "unknown run named" "no run 42"
expect_status 2 "interval with --run" "$RSSIM" plot interval --db "$DB" --run 9 -o "$T/x.png"
expect_status 2 "interval of a sweep not varying the key" "$RSSIM" plot interval --db "$DB" --sweep 2 -o "$T/x.png"
stderr_has "key not varied named" "does not vary 'bluestore_cache_trim_interval' (it varies: trim_interval)"
expect_status 2 "interval without iops" "$RSSIM" plot interval --db "$DB" --sweep 2 --key trim_interval -o "$T/x.png"
stderr_has "no iops named" "no done run has an 'iops' metric"
expect_status 2 "--key on latency" "$RSSIM" plot latency --db "$DB" --run 9 --key x -o "$T/x.png"
expect_status 2 "two runs for timeseries" "$RSSIM" plot timeseries --db "$DB" --run 9 --run 10 -o "$T/x.png"
check "no image from refused plots" test ! -e "$T/x.png"

finish
