# plot_timeseries: `rssim plot timeseries` with several --run overlays them
# (fixture tests/cli/store-fixture.sql): a data block per run titled by its
# label, a PNG and an SVG whose key names every run and the three line
# styles; one --run still draws the single-run plot; refusals (a run not
# done, breakdown with two runs, --sweep).
. "$(dirname "$0")/lib.sh"

DB="$T/db"
"$RSSIM" runs init --db "$DB" > /dev/null
check "fixture loads" sqlite3 -bail "$DB" ".read $SRC/tests/cli/store-fixture.sql"
is_png() { # is_png FILE: PNG magic and more than 10 KB
  test "$(head -c 8 "$1" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a && test "$(wc -c < "$1")" -gt 10240
}

expect_status 0 "plot -h: timeseries takes several runs" "$RSSIM" plot -h
stdout_has "plot -h" "rssim plot timeseries --run ID \[--run ID ...\]"

expect_status 0 "3 runs png" "$RSSIM" plot timeseries --db "$DB" --run 3 --run 4 --run 9 -o "$T/o/ts.png"
check "png > 10 KB" is_png "$T/o/ts.png"
D="$T/o/ts.dat"
check "a block per run" test "$(grep -c '^"run ' "$D")" = 3
check "block titled by the run's label" grep -q '^"run 4: kv_cache_limit=64M trim_interval=200ms" t_ns accounted_bytes ' "$D"
check "lone run's label" grep -q '^"run 9: limit=64M" t_ns ' "$D"
check "every sample of each run" test "$(grep -c '^3 ' "$D") $(grep -c '^4 ' "$D") $(grep -c '^9 ' "$D")" = "3 3 600"
check "blocks separated by two blank lines" test "$(grep -c '^$' "$D")" = 4
expect_status 0 "3 runs svg" "$RSSIM" plot timeseries --db "$DB" --run 3 --run 4 --run 9 -o "$T/o/ts.svg"
check "svg key: run 3" grep -q 'run 3: kv_cache_limit=64M trim_interval=50ms' "$T/o/ts.svg"
check "svg key: run 9" grep -q 'run 9: limit=64M' "$T/o/ts.svg"
check "svg key: line styles" grep -q 'accounted_bytes (what the daemon counts)' "$T/o/ts.svg"
check "svg title" grep -q 'runs 3, 4, 9: rss_bytes (solid) and accounted_bytes (dashed)' "$T/o/ts.svg"

# one run: the single-run plot as before
expect_status 0 "1 run" "$RSSIM" plot timeseries --db "$DB" --run 9 -o "$T/o/one.svg"
check "1 run: its title" grep -q 'run 9: kv-small, limit=64M' "$T/o/one.svg"
check "1 run: data starts with run_id" grep -q '^run_id t_ns ' "$T/o/one.dat"

expect_status 2 "a failed run among them" "$RSSIM" plot timeseries --db "$DB" --run 3 --run 8 -o "$T/x.png"
stderr_has "failed run named" "run 8 in '$DB' is failed, not done"
expect_status 2 "breakdown takes one run" "$RSSIM" plot breakdown --db "$DB" --run 3 --run 4 -o "$T/x.png"
expect_status 2 "timeseries takes no sweep" "$RSSIM" plot timeseries --db "$DB" --sweep 1 -o "$T/x.png"
check "nothing drawn for refusals" test ! -e "$T/x.png"
finish
