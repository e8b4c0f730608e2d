# report: `rssim report` on a small sweep and on two runs: one self-contained
# index.html (no external URL, no script, every plot inline as SVG, text
# escaped — the trace's name and a run's label hold & < > '), the identity
# (trace sha256, rssim version), a row per point and the worst point's
# plots; the refusals (--plan on a database without plans, bad ids).  Then
# headless Chromium loads the page: no console message, every plot in the
# DOM, a screenshot (kept as report-screenshot.png in the working folder).
# Without chromium (scripts/setup installs it) that last part is skipped.
. "$(dirname "$0")/lib.sh"

TR="$T/a&b<c>'.bin"
DB="$T/r.db"
expect_status 0 "gen" "$RSSIM" gen kv --keys 3000 --events 20000 --rate 20000 --seed 5 -o "$TR"
expect_status 0 "sweep" "$RSSIM" sweep "$TR" --preset kv-small --vary kv_cache_limit=256K,1M,4M \
  --vary trim_interval=50ms,200ms --jobs 2 --db "$DB"

expect_status 0 "report -h" "$RSSIM" report -h
stdout_has "report -h" "usage: rssim report"
expect_status 0 "report sweep" "$RSSIM" report --db "$DB" --sweep 1 -o "$T/rep/"
P="$T/rep/index.html"
stdout_has "report says where" "wrote $T/rep/index.html (3 plots inline)"
check "page written" test -s "$P"
check "no temporary left" test ! -e "$T/rep/.index.html.tmp"
check "3 inline plots (overshoot, worst point's timeseries and breakdown)" test "$(grep -c '<svg' "$P")" = 3
check "no XML prologue inside the page" test "$(grep -c '<?xml' "$P")" = 0
check "no script" test "$(grep -ci '<script' "$P")" = 0
check "no external URL (src, href, CSS url or import)" \
  test "$(grep -Eci "(src|href)=[\"']?(https?:|//)|url\\((https?:|//)|@import" "$P")" = 0
check "ids unique across the inlined plots" \
  test "$(grep -o " id='[^']*'\| id=\"[^\"]*\"" "$P" | sort | uniq -d | wc -l)" = 0
check "trace path escaped" grep -qF "a&amp;b&lt;c&gt;&#39;.bin" "$P"
check "trace path never raw" test "$(grep -cF "a&b<c>" "$P")" = 0
sha=$(sha256sum "$TR" | cut -d' ' -f1)
check "trace sha256" grep -qF "$sha" "$P"
ver=$("$RSSIM" --version | cut -d' ' -f2)
check "rssim version" grep -qF "<th scope=\"row\">rssim (report)</th><td>$ver</td>" "$P"
check "creation time" grep -qE '<th scope="row">report made</th><td>[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:]{8}Z</td>' "$P"
check "a row per point" test "$(grep -c '<td>done</td>' "$P")" = 6
check "point table: the varied keys as columns" grep -qF '<th>kv_cache_limit</th><th>trim_interval</th>' "$P"
check "point table: sizes in KiB or MiB here" grep -qF 'steady RSS (MiB)' "$P"
worst=$(sql "$DB" "SELECT run_id FROM metrics WHERE name = 'overshoot_max' ORDER BY value DESC, run_id LIMIT 1")
check "worst point is the highest peak rss/limit (run $worst)" grep -qF "<h2>Worst point: run $worst (" "$P"
check "worst point highlighted" grep -qE "<tr class=\"worst\"><td class=\"n\">[0-9]+</td><td class=\"n\">$worst</td>" "$P"
check "common params listed" grep -qF '<th scope="row">alloc</th><td><code>jemalloc</code></td>' "$P"
SOURCE_DATE_EPOCH=0 expect_status 0 "SOURCE_DATE_EPOCH" "$RSSIM" report --db "$DB" --sweep 1 -o "$T/rep0"
check "SOURCE_DATE_EPOCH sets the time" grep -qF '1970-01-01T00:00:00Z' "$T/rep0/index.html"

# two runs, one labelled with markup
expect_status 0 "replay labelled" "$RSSIM" replay "$TR" --preset kv-small --set kv_cache_limit=1M \
  --label "<script>alert('x')</script> & co" --db "$DB"
expect_status 0 "report runs" "$RSSIM" report --db "$DB" --run 7 --run 3 -o "$T/runs"
R="$T/runs/index.html"
check "runs: 2 plots per run" test "$(grep -c '<svg' "$R")" = 4
check "runs: label escaped" grep -qF "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; co" "$R"
check "runs: no script" test "$(grep -ci '<script' "$R")" = 0
check "runs: the differing param as a column" grep -qF '<th>trim_interval</th>' "$R"
check "runs: all metrics" grep -qF '<th scope="row">trimmed_items_count</th>' "$R"

# refusals
expect_status 2 "no target" "$RSSIM" report --db "$DB" -o "$T/x"
expect_status 2 "two targets" "$RSSIM" report --db "$DB" --sweep 1 --run 1 -o "$T/x"
expect_status 2 "--plan without plans" "$RSSIM" report --db "$DB" --plan 1 -o "$T/x"
stderr_has "--plan message" "this database has no plans"
expect_status 2 "unknown sweep" "$RSSIM" report --db "$DB" --sweep 9 -o "$T/x"
stderr_has "unknown sweep message" "no sweep 9 in '$DB'"
expect_status 2 "unknown run" "$RSSIM" report --db "$DB" --run 99 -o "$T/x"
expect_status 2 "missing database" "$RSSIM" report --db "$T/none.db" --sweep 1 -o "$T/x"
check "nothing written for refusals" test ! -e "$T/x/index.html"

# the page in a browser
if ! command -v chromium > /dev/null; then
  echo "skipped: the headless Chromium check (chromium is not installed; scripts/setup installs it)"
  finish
  exit
fi
timeout 90 chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
  --disable-background-networking --disable-component-update --disable-sync \
  --user-data-dir="$(mktemp -d "$T/chr.XXXXXX")" --enable-logging=stderr --v=0 \
  --dump-dom --screenshot="$T/shot.png" --window-size=1280,2000 "file://$P" \
  > "$T/dom.html" 2> "$T/chromium.err"
check "chromium ran (exit $?)" test $? = 0
check "no console message or uncaught error" test "$(grep -ciE 'CONSOLE|Uncaught' "$T/chromium.err")" = 0
check "DOM: every plot (3 svg)" test "$(grep -o '<svg' "$T/dom.html" | wc -l)" = 3
check "DOM: the heading" grep -qF '<h1>rssim report: sweep 1 (kv-small)</h1>' "$T/dom.html"
check "screenshot is a PNG" test "$(head -c 8 "$T/shot.png" 2>/dev/null | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a
if [ -s "$T/shot.png" ]; then
  cp "$T/shot.png" report-screenshot.png && echo "screenshot: $PWD/report-screenshot.png"
fi
[ "$failed" = 0 ] || grep -iE 'CONSOLE|Uncaught' "$T/chromium.err" >&2
finish
