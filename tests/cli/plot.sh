# plot: timeseries and overshoot as PNG and SVG from a fixture database
# (tests/cli/store-fixture.sql), the data files beside them, the refusals
# (exit 2: unknown run or sweep, a run not done, a sweep with nothing done,
# a .jpg), a missing gnuplot (exit 1, naming gnuplot-nox), and one sweep
# made by the real `rssim sweep` drawn end to end.
. "$(dirname "$0")/lib.sh"

DB="$T/db"
"$RSSIM" runs init --db "$DB" > /dev/null
check "fixture loads" sqlite3 -bail "$DB" ".read $SRC/tests/cli/store-fixture.sql"

is_png() { # is_png FILE: PNG magic and more than 10 KB
  test "$(head -c 8 "$1" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a && test "$(wc -c < "$1")" -gt 10240
}

expect_status 0 "plot -h" "$RSSIM" plot -h
stdout_has "plot -h" "usage: rssim plot timeseries"
expect_status 2 "plot without kind" "$RSSIM" plot
expect_status 2 "unknown plot kind" "$RSSIM" plot pie --run 9 --db "$DB" -o "$T/p.png"
stderr_has "unknown kind named" "unknown plot 'pie'"

# timeseries
expect_status 0 "timeseries png" "$RSSIM" plot timeseries --db "$DB" --run 9 -o "$T/plots/ts.png"
check "timeseries png is a PNG > 10 KB" is_png "$T/plots/ts.png"
check "timeseries data beside it" test -s "$T/plots/ts.dat"
check "timeseries data: header names the columns" grep -q '^run_id t_ns accounted_bytes .* rss_bytes limit_bytes ' "$T/plots/ts.dat"
check "timeseries data: 600 samples" test "$(grep -c '^9 ' "$T/plots/ts.dat")" = 600
expect_status 0 "timeseries svg" "$RSSIM" plot timeseries --db "$DB" --run 9 -o "$T/plots/ts.svg"
check "timeseries svg" grep -q '<svg' "$T/plots/ts.svg"
check "svg axis label" grep -q 'virtual time (s)' "$T/plots/ts.svg"
check "svg title names the run" grep -q 'run 9: kv-small, limit=64M' "$T/plots/ts.svg"

# overshoot
expect_status 0 "overshoot png" "$RSSIM" plot overshoot --db "$DB" --sweep 1 -o "$T/plots/ov.png"
check "overshoot png is a PNG > 10 KB" is_png "$T/plots/ov.png"
check "overshoot data: limit key found" grep -q 'limit key: kv_cache_limit; x: limit_bytes$' "$T/plots/ov.dat"
check "overshoot data: one series per trim interval" test "$(grep -c '^"trim_interval=' "$T/plots/ov.dat")" = 2
check "overshoot data: the 7 done runs only" test "$(grep -c '^[0-9]' "$T/plots/ov.dat")" = 7
check "overshoot data: failed point left out" test "$(grep -c '^7 8 ' "$T/plots/ov.dat")" = 0
check "overshoot data: limits exact" grep -q '^6 7 1073741824 ' "$T/plots/ov.dat"
expect_status 0 "overshoot svg" "$RSSIM" plot overshoot --db "$DB" --sweep 1 -o "$T/plots/ov.svg"
check "overshoot svg" grep -q '<svg' "$T/plots/ov.svg"
check "overshoot svg: series title" grep -q 'trim_interval=200ms' "$T/plots/ov.svg"
check "overshoot svg: (1-x)^-1 curve named" grep -q '(1−x)⁻¹' "$T/plots/ov.svg"
check "overshoot svg: y label" grep -q 'RAM per byte of limit (rss/limit)' "$T/plots/ov.svg"

# text (gnuplot's dumb terminal), as the README shows
expect_status 0 "overshoot txt" "$RSSIM" plot overshoot --db "$DB" --sweep 1 -o "$T/plots/ov.txt"
check "overshoot txt: axis label (16M to 1G: a log axis)" grep -q 'cache limit (MiB, log scale)' "$T/plots/ov.txt"
check "overshoot txt: drawn points" grep -q 'trim_interval=200ms' "$T/plots/ov.txt"
expect_status 0 "timeseries txt" "$RSSIM" plot timeseries --db "$DB" --run 9 -o "$T/plots/ts.txt"
check "timeseries txt: axis label" grep -q 'virtual time (s)' "$T/plots/ts.txt"

# refusals
expect_status 2 "unknown run" "$RSSIM" plot timeseries --db "$DB" --run 42 -o "$T/x.png"
stderr_has "unknown run message" "no run 42 in '$DB'"
expect_status 2 "run not done" "$RSSIM" plot timeseries --db "$DB" --run 10 -o "$T/x.png"
stderr_has "not done message" "run 10 in '$DB' is running, not done"
expect_status 2 "failed run" "$RSSIM" plot timeseries --db "$DB" --run 8 -o "$T/x.png"
expect_status 2 "jpg" "$RSSIM" plot timeseries --db "$DB" --run 9 -o "$T/x.jpg"
stderr_has "jpg message" "must end in .png, .svg or .txt"
expect_status 2 "no suffix" "$RSSIM" plot timeseries --db "$DB" --run 9 -o "$T/x"
expect_status 2 "no -o" "$RSSIM" plot timeseries --db "$DB" --run 9
expect_status 2 "timeseries with --sweep" "$RSSIM" plot timeseries --db "$DB" --sweep 1 -o "$T/x.png"
expect_status 2 "overshoot with --run" "$RSSIM" plot overshoot --db "$DB" --run 9 -o "$T/x.png"
expect_status 2 "sweep with no done runs" "$RSSIM" plot overshoot --db "$DB" --sweep 2 -o "$T/x.png"
stderr_has "no done runs message" "sweep 2 in '$DB' has no done runs"
expect_status 2 "unknown sweep" "$RSSIM" plot overshoot --db "$DB" --sweep 9 -o "$T/x.png"
stderr_has "unknown sweep message" "no sweep 9 in '$DB'"
expect_status 2 "missing database" "$RSSIM" plot timeseries --db "$T/none.db" --run 9 -o "$T/x.png"
stderr_has "missing database message" "no database '$T/none.db'"
check "no image for refused plots" test ! -e "$T/x.png"

# gnuplot missing, or failing on a broken template: exit 1 with a reason
RSSIM_GNUPLOT="$T/no/gnuplot" expect_status 1 "missing gnuplot" "$RSSIM" plot timeseries --db "$DB" --run 9 -o "$T/g.png"
stderr_has "missing gnuplot names the package" "gnuplot-nox"
mkdir -p "$T/badgp" && echo 'plot no_such_function(x)' > "$T/badgp/timeseries.gp"
RSSIM_SCRIPTS="$T/badgp" expect_status 1 "broken template" "$RSSIM" plot timeseries --db "$DB" --run 9 -o "$T/g.png"
stderr_has "broken template reported" "gnuplot failed"
RSSIM_SCRIPTS="$T/nowhere" expect_status 1 "missing template" "$RSSIM" plot timeseries --db "$DB" --run 9 -o "$T/g.png"
stderr_has "missing template named" "$T/nowhere/timeseries.gp"

# end to end: a real sweep (the metric names the run writer produces)
expect_status 0 "gen" "$RSSIM" gen kv --keys 3000 --events 40000 --rate 20000 --seed 5 -o "$T/t.bin"
expect_status 0 "sweep" "$RSSIM" sweep "$T/t.bin" --preset kv-small --vary kv_cache_limit=256K,1M,4M --vary trim_interval=50ms,200ms --db "$T/real.db"
expect_status 0 "real overshoot" "$RSSIM" plot overshoot --db "$T/real.db" --sweep 1 -o "$T/real/ov.png"
check "real overshoot png" is_png "$T/real/ov.png"
check "real overshoot: 6 points, no missing metric" test "$(grep '^[0-9]' "$T/real/ov.dat" | grep -c -v NaN)" = 6
expect_status 0 "real timeseries" "$RSSIM" plot timeseries --db "$T/real.db" --run 1 -o "$T/real/ts.svg"
check "real timeseries svg" grep -q '<svg' "$T/real/ts.svg"

finish
