# tests/cli/reproduce.sh — the two seed reproductions end to end, in their
# --quick form (small traces: the numbers are not the seed's, the plumbing
# is the one the full runs use): each writes its CSV with the documented
# columns, one row per figure, numbers where numbers belong, an error
# column that is what its own two columns give, and its plot.
. "$(dirname "$0")/lib.sh"

# csv_check FILE HEADER ROWS AWK-PROGRAM: the header, the row count, and an
# awk program that prints nothing for a good row (and what is wrong otherwise)
csv_check() {
  local f=$1 header=$2 rows=$3 prog=$4
  if [ ! -s "$f" ]; then bad "$f: missing"; return; fi
  check "$f header" [ "$(head -1 "$f")" = "$header" ]
  check "$f rows" [ "$(($(wc -l <"$f") - 1))" = "$rows" ]
  local errs
  errs=$(tail -n +2 "$f" | awk -F, "$prog")
  if [ -z "$errs" ]; then ok; else bad "$f: $errs"; fi
}

# --- CephFS MDS, PR 19954 ----------------------------------------------------
expect_status 0 "reproduce-mds-19954 --quick" \
  env RSSIM="$RSSIM" OUT="$T/mds" bash "$SRC/scripts/reproduce-mds-19954" --quick
stdout_has "mds table" "| x_35.8GB_pr19954 | 0.20 |"
# 12 figures with a seed, 6 rssim-only ones; x in (0, 1), overshoots above
# 1, RSS in GB > 0, error = (rssim - seed) / seed in percent to 0.1
csv_check "$T/mds/reproduce-mds-19954-quick.csv" "figure,seed,rssim,error_pct" 18 '
  $3 !~ /^-?[0-9.]+$/ { print $1 ": rssim \"" $3 "\""; next }
  $1 ~ /^x_/ && ($3 <= 0 || $3 >= 1) { print $1 ": x " $3 }
  $1 ~ /^overshoot_/ && $3 <= 1 { print $1 ": overshoot " $3 }
  $1 ~ /^rss_GB_/ && $3 <= 0 { print $1 ": rss " $3 }
  $2 != "" { e = ($3 - $2) / $2 * 100; if (e - $4 > 0.051 || $4 - e > 0.051) print $1 ": error " $4 " for " e }
  $2 == "" && $4 != "" { print $1 ": an error without a seed" }'
check "mds seed rows" [ "$(awk -F, 'NR > 1 && $2 != ""' "$T/mds/reproduce-mds-19954-quick.csv" | wc -l)" = 12 ]
check "mds plot" [ -s "$T/mds/reproduce-mds-19954-quick.png" ]
# the seed's own view: cache and RSS over time, master and PR, both limits
check "mds plot over time" [ -s "$T/mds/reproduce-mds-19954-quick-time.png" ]
SV="$T/mds/reproduce-mds-19954-quick-time.dat"
check "over time: master and PR at both limits" test "$(grep -c '^"mds-' "$SV" 2>/dev/null)" = 4
check "over time: the PR at the large limit" grep -q '^"mds-pr19954 at 1G (run [0-9]*)" cache_bytes rss_bytes$' "$SV"
check "over time: every sample of the four runs" test "$(grep -c '^[0-9]' "$SV" 2>/dev/null)" = \
  "$(sqlite3 "$T/mds/reproduce-mds-19954-quick/runs.db" "SELECT count(*) FROM samples s JOIN params p ON p.run_id = s.run_id AND p.key = 'layout' WHERE p.value IN ('mds-luminous', 'mds-pr19954')")"
stdout_has "mds: both plots named" "reproduce-mds-19954-quick-time.png (cache and RSS over time)"

# --- BlueStore, PR 20498 ------------------------------------------------------
expect_status 0 "reproduce-bluestore-20498 --quick" \
  env RSSIM="$RSSIM" OUT="$T/osd" bash "$SRC/scripts/reproduce-bluestore-20498" --quick
# the nine rows of the seed's table; error = rssim - seed in points
csv_check "$T/osd/reproduce-bluestore-20498.csv" "row,seed_change_pct,rssim_change_pct,error_points" 9 '
  $3 !~ /^[-+]?[0-9.]+$/ { print $1 ": rssim \"" $3 "\""; next }
  { e = $3 - $2; if (e - $4 > 0.011 || $4 - e > 0.011) print $1 ": error " $4 " for " e }'
check "osd rows are the seed's" [ "$(cut -d, -f1 "$T/osd/reproduce-bluestore-20498.csv" | tail -n +2 | tr '\n' ' ')" = \
  "1M_write 1M_read 1M_rw 8K_randwrite 8K_randread 8K_randrw 8K_write 8K_read 8K_rw " ]
check "osd sweep csv" [ -s "$T/osd/reproduce-bluestore-20498-sweep.csv" ]
check "osd sweep plot" [ -s "$T/osd/reproduce-bluestore-20498-sweep.png" ]

finish
