# plot_fit: `rssim plot fit` draws an observed run's samples (rss against
# accounted), the least-squares line with its band and, given a predicted
# run, the simulator's samples; the refusals.  Real gnuplot, SVG read back.
. "$(dirname "$0")/lib.sh"

command -v gnuplot >/dev/null || { echo "skipped: no gnuplot"; finish; exit $?; }
DB=$T/f.db
"$RSSIM" observe import "$SRC/tests/observe/mds-pacific" -o "$DB" > /dev/null
# a predicted run with two samples, beside it
sql "$DB" "INSERT INTO runs(id, kind, status, created_at, version, seed) VALUES (5, 'predicted', 'done', 'now', 'x', 1);
           INSERT INTO samples(run_id, t_ns, accounted_bytes, rss_bytes) VALUES (5, 0, 104857600, 440401920), (5, 1, 209715200, 545259520)"
P=$T/p
expect_status 0 "plot fit of the observed run" "$RSSIM" plot fit --db "$DB" --run 1 -o "$P/fit.svg"
check "the svg exists" test -s "$P/fit.svg"
# the fixture's line: RSS = 300 MiB + 1 x accounted exactly (VmRSS = 307200 kB + accounted)
check "title says the fit" grep -qF "rss = 300.0 MiB (±0.0) + 1.000 × accounted (±0.000), 3 samples" "$P/fit.svg"
check "axes named" grep -qF "<text>RSS (MiB)</text>" "$P/fit.svg"
check "observed block: 3 samples" test "$(awk '/^run_id/ { b++ } b == 1 && /^1 / { n++ } END { print n }' "$P/fit.dat")" = 3
check "line block: 101 points" test "$(awk '/^accounted_bytes rss_bytes lo_bytes/ { b = 1; next } /^$/ { b = 0 } b { n++ } END { print n }' "$P/fit.dat")" = 101
check "line starts at the base" grep -q "^0 314572800 " "$P/fit.dat"
check "no predicted series" sh -c "! grep -q 'predicted (rssim replay)' '$P/fit.svg'"
expect_status 0 "plot fit with a predicted run" "$RSSIM" plot fit --db "$DB" --run 1 --run 5 -o "$P/fit2.svg"
check "predicted series drawn" grep -qF "predicted (rssim replay)" "$P/fit2.svg"
check "predicted block holds run 5" test "$(grep -c '^5 ' "$P/fit2.dat")" = 2
check "the prediction is not fitted" grep -qF "3 samples" "$P/fit2.svg"
expect_status 0 "plot fit as text" "$RSSIM" plot fit --db "$DB" --run 1 -o "$P/fit.txt"
check "text plot has the title" grep -qF "1.000 × accounted" "$P/fit.txt"
expect_status 2 "a predicted run alone is refused" "$RSSIM" plot fit --db "$DB" --run 5 -o "$P/x.svg"
stderr_has "says why" "no observed or measured run"
expect_status 2 "unknown run" "$RSSIM" plot fit --db "$DB" --run 9 -o "$P/x.svg"
expect_status 2 "a sweep is refused" "$RSSIM" plot fit --db "$DB" --sweep 1 -o "$P/x.svg"
check "nothing drawn for refusals" test ! -e "$P/x.svg"
finish
