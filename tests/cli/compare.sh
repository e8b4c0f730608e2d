# compare: `rssim compare` on two runs differing in one key (trim_interval):
# the text output's changes (value and sign) against the stored metrics, the
# markdown table's shape, the JSON parsed back by python3 (values equal to
# the stored ones, the differing param named); two sweeps matched point by
# point (varied in another order, one point only in B); the osd's IOPS and
# latency rows from the plot_osd fixture; the refusals.
. "$(dirname "$0")/lib.sh"

DB="$T/c.db"
expect_status 0 "gen" "$RSSIM" gen kv --keys 3000 --events 20000 --rate 20000 --seed 5 -o "$T/t.bin"
expect_status 0 "run A" "$RSSIM" replay "$T/t.bin" --preset kv-small --set kv_cache_limit=1M --set trim_interval=50ms --db "$DB"
expect_status 0 "run B" "$RSSIM" replay "$T/t.bin" --preset kv-small --set kv_cache_limit=1M --set trim_interval=200ms --db "$DB"

metric() { sql "$DB" "SELECT printf('%.17g', value) FROM metrics WHERE run_id = $1 AND name = '$2'"; }
pct() { # pct NAME: the expected change of NAME from run 1 to run 2, as compare prints it
  awk -v a="$(metric 1 "$1")" -v b="$(metric 2 "$1")" 'BEGIN {
    p = (b - a) / (a < 0 ? -a : a) * 100
    if (p < 0.05 && p > -0.05) print "0.0 %"; else printf "%+.1f %%\n", p }'
}

expect_status 0 "compare -h" "$RSSIM" compare -h
stdout_has "compare -h" "usage: rssim compare"

# text
expect_status 0 "text" "$RSSIM" compare --db "$DB" --run 1 --run 2
stdout_has "text: the differing param" "trim_interval: 50ms -> 200ms"
stdout_has "text: header" "metric  *run 1  *run 2  *change"
for m in "steady RSS:rss_steady_bytes" "peak RSS:rss_peak_bytes" "overshoot steady:overshoot_steady" \
         "overshoot peak:overshoot_max" "x steady:x_steady" "trims:trims_count" \
         "miss ratio:miss_ratio"; do
  head=${m%%:*} name=${m#*:} want=$(pct "$name")
  got=$(grep "^  $head  " "$T/out" | awk '{ print $(NF - 1), $NF }')
  check "text: $head change is $want (got '$got')" test "$got" = "$want"
done
# a longer trim interval: fewer trims, more RSS — the signs say so
check "text: fewer trims (-)" grep -q '^  trims .* -[0-9.]* %$' "$T/out"
check "text: more steady RSS (+)" grep -q '^  steady RSS .* +[0-9.]* %$' "$T/out"
check "text: no osd rows for a kv run" test "$(grep -c 'IOPS\|latency' "$T/out")" = 0

# markdown
expect_status 0 "markdown" "$RSSIM" compare --db "$DB" --run 1 --run 2 --format markdown
check "markdown: header row" grep -qx '| metric | A (run 1) | B (run 2) | change |' "$T/out"
check "markdown: alignment row" grep -qx '|---|---:|---:|---:|' "$T/out"
check "markdown: 7 metric rows of 4 cells" test "$(grep -c '^| [a-zA-Z][a-zA-Z ]* | [^|]* | [^|]* | [^|]* |$' "$T/out")" = 8
check "markdown: the change" grep -qF "| steady RSS |" "$T/out"
check "markdown: differing param" grep -qF -e '- `trim_interval`: 50ms → 200ms' "$T/out"

# json, parsed back
expect_status 0 "json" "$RSSIM" compare --db "$DB" --run 1 --run 2 --format json
cp "$T/out" "$T/c.json"
sqlite3 -json "$DB" "SELECT run_id, name, value FROM metrics WHERE run_id IN (1, 2)" > "$T/m.json"
check "json: parses and matches the stored metrics" python3 - "$T/c.json" "$T/m.json" <<'EOF'
import json, math, sys
c = json.load(open(sys.argv[1]))
stored = {(r["run_id"], r["name"]): r["value"] for r in json.load(open(sys.argv[2]))}
assert c["kind"] == "runs" and c["a"] == 1 and c["b"] == 2, c
assert c["params_differing"] == [{"key": "trim_interval", "a": "50ms", "b": "200ms"}], c["params_differing"]
assert len(c["rows"]) == 1
row = c["rows"][0]
assert row["run_a"] == 1 and row["run_b"] == 2 and row["point"] is None
ms = row["metrics"]
assert set(ms) == {"rss_steady_bytes", "rss_peak_bytes", "overshoot_steady", "overshoot_max",
                   "x_steady", "trims_count", "miss_ratio"}, set(ms)
for name, m in ms.items():
    a, b = stored[(1, name)], stored[(2, name)]
    assert math.isclose(m["a"], a, rel_tol=1e-12) and math.isclose(m["b"], b, rel_tol=1e-12), (name, m, a, b)
    assert math.isclose(m["change_pct"], (b - a) / abs(a) * 100, rel_tol=1e-9), (name, m)
assert ms["trims_count"]["change_pct"] < 0 and ms["rss_steady_bytes"]["change_pct"] > 0
EOF

# two sweeps: the same grid varied in the other order, another allocator, one more point in B
expect_status 0 "sweep A" "$RSSIM" sweep "$T/t.bin" --preset kv-small --vary kv_cache_limit=1M,4M --vary trim_interval=50ms --db "$DB"
expect_status 0 "sweep B" "$RSSIM" sweep "$T/t.bin" --preset kv-small --vary trim_interval=50ms --vary kv_cache_limit=1M,4M,16M --set alloc=glibc --db "$DB"
expect_status 0 "sweeps text" "$RSSIM" compare --db "$DB" --sweep 1 --sweep 2
stdout_has "sweeps: the allocator differs" "alloc: jemalloc -> glibc"
stdout_has "sweeps: a matched point" "^point kv_cache_limit=1M trim_interval=50ms$"
stdout_has "sweeps: B's extra point" "point kv_cache_limit=16M trim_interval=50ms: only in B"
expect_status 0 "sweeps json" "$RSSIM" compare --db "$DB" --sweep 1 --sweep 2 --format json
check "sweeps json: 2 matched pairs, 1 only in B" python3 -c '
import json, sys
rows = json.load(open(sys.argv[1]))["rows"]
assert sum(1 for r in rows if r["run_a"] and r["run_b"]) == 2, rows
assert [r["point"] for r in rows if not r["run_a"]] == ["kv_cache_limit=16M trim_interval=50ms"], rows
' "$T/out"
expect_status 0 "sweeps markdown" "$RSSIM" compare --db "$DB" --sweep 1 --sweep 2 --format markdown
check "sweeps markdown: 2 points x 7 metrics" test "$(grep -c '^| kv_cache_limit=' "$T/out")" = 14

# osd metrics (fixture): IOPS and latency rows when the runs have them
ODB="$T/osd.db"
"$RSSIM" runs init --db "$ODB" > /dev/null
check "osd fixture loads" sqlite3 -bail "$ODB" ".read $SRC/tests/cli/plot_osd-fixture.sql"
expect_status 0 "osd runs" "$RSSIM" compare --db "$ODB" --run 1 --run 2
stdout_has "osd: IOPS +25 %" "^  IOPS  *14286  *17857  *+25.0 %$"
stdout_has "osd: latency p99" "^  latency p99 "

# refusals
expect_status 2 "one run" "$RSSIM" compare --db "$DB" --run 1
expect_status 2 "run and sweep" "$RSSIM" compare --db "$DB" --run 1 --sweep 1
expect_status 2 "three runs" "$RSSIM" compare --db "$DB" --run 1 --run 2 --run 3
expect_status 2 "bad format" "$RSSIM" compare --db "$DB" --run 1 --run 2 --format xml
expect_status 2 "unknown run" "$RSSIM" compare --db "$DB" --run 1 --run 42
stderr_has "unknown run message" "no run 42 in '$DB'"
expect_status 0 "sweep C: other keys" "$RSSIM" sweep "$T/t.bin" --preset kv-small --vary kv_cache_limit=1M,4M --db "$DB"
expect_status 2 "sweeps varying other keys" "$RSSIM" compare --db "$DB" --sweep 1 --sweep 3
stderr_has "other keys message" "vary different keys"

finish
