# plot_read: the plots a user reads without help (tests/cli/plot_read-fixture.sql):
# sizes in GiB from 10 GiB and MiB below, the one varied key of a sweep on x
# as labelled categories, resident visible (and said equal) where rss is the
# same curve, the breakdown's key below the plot in the stack's order, the
# lone series named for what it is, at least three labelled ticks on a log
# axis (a linear one under a decade), and the validate plot: the baseline of
# rssim validate's table said on it, each run drawn to its own end, an error
# bounded by the 5 %-of-peak floor, and a measured run imported from a real
# daemon (wall time) aligned with its prediction by run fraction.
. "$(dirname "$0")/lib.sh"

DB="$T/db"
"$RSSIM" runs init --db "$DB" > /dev/null
check "fixture loads" sqlite3 -bail "$DB" ".read $SRC/tests/cli/plot_read-fixture.sql"
P="$T/p"

# svg_xy TEXT FILE: "x y" of the first <text>TEXT</text> gnuplot wrote
svg_xy() {
  awk -v t="<text>$1</text>" 'index($0, "translate(") { tr = $0 } index($0, t) { print tr; exit }' "$2" |
    sed 's/.*translate(\([0-9.]*\),\([0-9.]*\)).*/\1 \2/'
}
svg_line() { grep -n -m1 -F "<text>$1</text>" "$2" | cut -d: -f1; }

# 1. units: GiB from 10 GiB, MiB below
expect_status 0 "timeseries of a 24 GiB run" "$RSSIM" plot timeseries --db "$DB" --run 7 -o "$P/ts7.svg"
check "24 GiB run: y axis in GiB" grep -qF '<text>memory (GiB)</text>' "$P/ts7.svg"
check "24 GiB run: told the template its size" test "$(grep -c ' 25769803800 ' "$P/ts7.dat")" -gt 0
expect_status 0 "timeseries of a 300 MiB run" "$RSSIM" plot timeseries --db "$DB" --run 10 -o "$P/ts10.svg"
check "300 MiB run: y axis in MiB" grep -qF '<text>memory (MiB)</text>' "$P/ts10.svg"
expect_status 0 "breakdown of the 24 GiB run" "$RSSIM" plot breakdown --db "$DB" --run 7 -o "$P/bd7.svg"
check "breakdown: y axis in GiB" grep -qF '<text>memory (GiB)</text>' "$P/bd7.svg"
expect_status 0 "overshoot of 16G..64G" "$RSSIM" plot overshoot --db "$DB" --sweep 2 -o "$P/ov2.svg"
check "overshoot: limit axis in GiB" grep -qF '<text>cache limit (GiB)</text>' "$P/ov2.svg"
check "overshoot: GiB numbers on the axis (20 .. 60)" test "$(grep -cE '<text> ?[2-6]0</text>' "$P/ov2.svg")" -ge 3

expect_status 0 "capacity of a 96 GiB node" "$RSSIM" plot capacity --db "$DB" --plan 1 -o "$P/cap.svg"
check "capacity: GiB on both axes" grep -qF '<text>predicted RSS of one daemon (GiB)</text>' "$P/cap.svg"
check "capacity: limit axis in GiB" grep -qF '<text>kv_cache_limit (GiB)</text>' "$P/cap.svg"

# a cache that never filled is not joined to the others as an overshoot
check "64G never filled: marked in the data" grep -qE '^2 6 68719476736 .* 42949672960 0 ' "$P/ov2.dat"
check "filled ones marked too" test "$(grep -cE '^[01] [45] .* 1 [0-9]+ "' "$P/ov2.dat")" = 2
check "never filled: said in the key" grep -qF 'cache never filled (peak &lt; 85% of the limit)' "$P/ov2.svg"

# 2. a sweep of alloc= alone: alloc along x, its values as tick labels
expect_status 0 "overshoot of an alloc sweep" "$RSSIM" plot overshoot --db "$DB" --sweep 1 -o "$P/ov1.svg"
check "alloc sweep: all filled, no such key" test "$(grep -c "cache never filled" "$P/ov1.svg")" = 0
check "alloc sweep: x label names alloc" grep -qF 'alloc (the only key the sweep varies; limit 12 GiB)' "$P/ov1.svg"
for a in glibc jemalloc tcmalloc; do
  check "alloc sweep: tick label $a" grep -qF "<text>$a</text>" "$P/ov1.svg"
done
check "alloc sweep: three x positions" test "$(awk '/^[0-9]/ { print $10 }' "$P/ov1.dat" | sort -u | tr '\n' ' ')" = "0 1 2 "
x_glibc=$(svg_xy glibc "$P/ov1.svg" | cut -d' ' -f1); x_tc=$(svg_xy tcmalloc "$P/ov1.svg" | cut -d' ' -f1)
check "alloc sweep: categories apart on x ($x_glibc < $x_tc)" awk -v a="$x_glibc" -v b="$x_tc" 'BEGIN { exit !(b - a > 300) }'

# 3. resident not hidden under rss when base is 0
check "base 0: the plot says resident = rss" grep -qF 'resident_bytes = rss_bytes at every sample (base_bytes is 0)' "$P/ts7.svg"
check "base 0: key says equal" grep -qF 'resident_bytes (heap pages; equal to rss_bytes here)' "$P/ts7.svg"
rl=$(svg_line 'rss_bytes (what ps and the OOM killer see)' "$P/ts7.svg"); sl=$(svg_line 'resident_bytes (heap pages; equal to rss_bytes here)' "$P/ts7.svg")
check "base 0: resident drawn after (over) rss" test "${rl:-0}" -gt 0 -a "${sl:-0}" -gt "${rl:-0}"
check "rss differs from resident: no note" test "$(grep -c 'resident_bytes = rss_bytes' "$P/ts10.svg")" = 0

# 4. breakdown: key below the x axis label, entries in the stack's order
y_axis=$(svg_xy 'virtual time (s)' "$P/bd7.svg" | cut -d' ' -f2)
y_base=$(svg_xy base "$P/bd7.svg" | cut -d' ' -f2)
check "breakdown key below the plot ($y_base > $y_axis)" awk -v k="$y_base" -v a="$y_axis" 'BEGIN { exit !(k > a) }'
check "breakdown key inside the picture's width" awk -v w="$(grep -o 'width="[0-9]*"' "$P/bd7.svg" | head -1 | tr -dc 0-9)" \
  -v x="$(svg_xy 'accounted (mempool)' "$P/bd7.svg" | cut -d' ' -f1)" 'BEGIN { exit !(x + 200 < w) }'
order=""
for e in base 'free but resident (fragmentation)' 'allocator metadata' 'thread/central caches' \
         'size-class rounding' 'untracked containers' 'accounted (mempool)'; do
  order="$order $(svg_line "$e" "$P/bd7.svg")"
done
check "breakdown key: top of the stack first ($order)" test "$(echo $order | tr ' ' '\n' | sort -n | tr '\n' ' ')" = "$(echo $order | tr ' ' '\n' | tr '\n' ' ')"
check "breakdown key: says how to read it" grep -qF 'top of the stack first' "$P/bd7.svg"

# 5. a lone series says what it is
check "no 'all points' anywhere" test "$(cat "$P"/*.dat "$P"/*.svg | grep -c 'all points')" = 0
check "lone series of a limit sweep" grep -qF '"all 3 done runs (only kv_cache_limit varies)" run_id ' "$P/ov2.dat"
check "lone series of an alloc sweep" grep -qF '"all 3 done runs (only alloc varies)" run_id ' "$P/ov1.dat"
expect_status 0 "interval of a sweep of the interval alone" "$RSSIM" plot interval --db "$DB" --sweep 3 -o "$P/iv3.svg"
check "lone series of an interval sweep" grep -qF '"all 2 done runs (only bluestore_cache_trim_interval varies)" run_id ' "$P/iv3.dat"
check "interval key names it" grep -qF 'all 2 done runs (only bluestore_cache_trim_interval varies)' "$P/iv3.svg"
# a numeric key that is not the limit: numbers along x
expect_status 0 "overshoot of a threads sweep" "$RSSIM" plot overshoot --db "$DB" --sweep 4 -o "$P/ov4.svg"
check "threads sweep: x named" grep -qF 'threads (the only key the sweep varies; limit 1024 MiB)' "$P/ov4.svg"
check "threads sweep: x as numbers" test "$(awk '/^[0-9]/ { print $10 }' "$P/ov4.dat" | tr '\n' ' ')" = "1 2 4 "
check "threads sweep: a numeric axis" grep -qF '# varied keys: threads; limit key: (none); x: x_value (numeric)' "$P/ov4.dat"

# 6. latencies within a decade: a linear axis numbered, not one log tick
expect_status 0 "latency under a decade" "$RSSIM" plot latency --db "$DB" --run 8 -o "$P/lat8.svg"
check "under a decade: linear" grep -qF '<text>op latency (µs)</text>' "$P/lat8.svg"
check "under a decade: >= 3 numbered ticks" test "$(grep -cE '<text> ?[2-9]00</text>' "$P/lat8.svg")" -ge 3

# 7. validate (rssim validate's pair: by virtual time)
expect_status 0 "validate" "$RSSIM" plot validate --db "$DB" --run 10 -o "$P/v.svg"
V="$P/v.dat"
check "validate: the table's baseline said" grep -qF "relative to each run's first sample (t = 0), the baseline of the table rssim validate prints" "$P/v.svg"
check "validate: aligned by virtual time" grep -qF '# aligned by virtual time' "$V"
block_last() { awk -v b="$1" '/^"/ { cur = $1 } cur == b && /^ [0-9]/ { x = $1 } END { print x }' "$2"; }
check "validate: predicted drawn to its end (20 s)" test "$(block_last '"predicted"' "$V")" = 20
check "validate: measured drawn to its end (30 s), past the prediction" test "$(block_last '"measured"' "$V")" = 30
check "validate: measured relative to its start" grep -qE '^ 30 346030080 ' "$V"
# at t = 5 s the measured resident is 1 KiB above its start; the prediction
# 50 MiB; the floor 5 % of the largest measured change up to 20 s (220 MiB)
want=$(awk 'BEGIN { printf "%.4f", 100 * (50 * 1048576 - 1024) / (0.05 * 220 * 1048576) }')
got=$(awk '/^"error"/ { on = 1; next } on && $1 == 5 { printf "%.4f", $2 }' "$V")
check "validate: near-zero measured value, error on the floor ($got = $want %)" test "$got" = "$want"
check "validate: every error bounded by the floor" \
  awk '/^"error"/ { on = 1; next } on && /^ [0-9]/ && ($2 > 500 || $3 > 500) { bad = 1 } END { exit bad }' "$V"
check "validate: no error past the prediction's end" test "$(block_last '"error"' "$V")" = 20
check "validate: the floor said on the plot" grep -qF 'floor = 5% of the largest measured change' "$P/v.svg"
expect_status 2 "validate of a predicted run" "$RSSIM" plot validate --db "$DB" --run 9 -o "$T/x.png"
stderr_has "predicted run refused" "not a done measured"
expect_status 2 "validate with three runs" "$RSSIM" plot validate --db "$DB" --run 10 --run 9 --run 7 -o "$T/x.png"

# 9. a measured run imported from a real daemon: wall time, 3x the virtual
# time, aligned by run fraction with a second --run
expect_status 0 "gen" "$RSSIM" gen kv --keys 3000 --events 20000 --rate 20000 --seed 5 -o "$T/t.bin"
expect_status 0 "predicted run" "$RSSIM" replay "$T/t.bin" --preset kv-small --set kv_cache_limit=1M --db "$T/c.db"
awk 'BEGIN { print "t_ns,rss_bytes,accounted_bytes,limit_bytes"
             for (i = 0; i <= 30; i++) printf "%.0f,%.0f,%.0f,1048576\n", i * 300000000, (4 + 4 * i / 30) * 1048576, 3 * 1048576 }' > "$T/m.csv"
expect_status 0 "import measured" "$RSSIM" runs import-measured --trace "$T/t.bin" --preset kv-small --events 20000 --db "$T/c.db" "$T/m.csv"
expect_status 2 "imported run alone" "$RSSIM" plot validate --db "$T/c.db" --run 2 -o "$T/x.png"
stderr_has "imported run: asks for the predicted run" "give the predicted run of the same trace as a second --run"
expect_status 0 "imported vs predicted" "$RSSIM" plot validate --db "$T/c.db" --run 2 --run 1 -o "$P/c.svg"
C="$P/c.dat"
check "imported: aligned by run fraction" grep -qF '# aligned by run fraction' "$C"
check "imported: said on the plot" grep -qF 'aligned by run fraction' "$P/c.svg"
check "imported: x label says what x is" grep -qF "share of each run done (%)" "$P/c.svg"
check "imported: predicted ends at fraction 1" test "$(block_last '"predicted"' "$C")" = 1
check "imported: measured ends at fraction 1" test "$(block_last '"measured"' "$C")" = 1
check "imported: 4.5 s of 9 s is half way" grep -qE '^ 0.5 6291456 3145728$' "$C"
check "imported: rss and accounted, absolute" grep -qF '"measured" rss_bytes accounted_bytes' "$C"
check "imported: an error per measured sample" test "$(awk '/^"error"/ { on = 1; next } on && /^ [0-9]/' "$C" | wc -l)" = 31
check "nothing drawn for refusals" test ! -e "$T/x.png"
finish
