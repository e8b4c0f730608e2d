# node_sampled: a node member with mds_sample_k=K runs sampled (its run
# stores the key and replays about 1/K of the records) and the node's
# answer says so with the sampling error, as replay does; the node sum of a
# sampled member is within the error measured for this trace of the full
# member's (docs/validation.md, "Sampled MDS runs": 6 % at K = 4 on
# tests/cli/sample.sh's trace).
. "$(dirname "$0")/lib.sh"

D="$T/n.db"
expect_status 0 "gen kernel-build" "$RSSIM" gen kernel-build --clients 8 --builds 1 --seed 1 \
  --events 300000 -o "$T/kb.bin"
total=$(( ($(stat -c %s "$T/kb.bin") - 16) / 32 ))
m="preset=mds-pacific,trace=$T/kb.bin,count=2,mds_cache_memory_limit=16M"

expect_status 0 "full node" "$RSSIM" node --member "$m" --db "$D"
check "a full node says nothing of sampling" test "$(grep -c sampled "$T/out")" = 0
expect_status 0 "sampled node" "$RSSIM" node --member "$m,mds_sample_k=4" --db "$D"
stdout_has "the member line says sampled" "^member 1: 2 x mds-pacific on .*kb.bin (run 2, replayed), sampled 1/4 of directories: "
stdout_has "the sampling error" "^sampled members: sampling error measured <= [0-9.]*% on RSS, x and overshoot at 8, 64 and 256 GiB for k <= 16 (docs/validation.md); their numbers, and the node's, are scaled to the whole namespace"
check "its run stores the key" test "$(sql "$D" "select value from params where run_id = 2 and key = 'mds_sample_k'")" = 4
ev=$(sql "$D" "select events from runs where id = 2")
check "and replayed about a quarter of the records ($ev of $total)" \
  awk -v e="$ev" -v n="$total" 'BEGIN { exit !(e > 0.15 * n && e < 0.35 * n) }'
met() { sql "$D" "select value from node_metrics where node_id = $1 and name = '$2'"; }
for name in rss_steady_bytes rss_p99_bytes; do
  a=$(met 1 $name) b=$(met 2 $name)
  check "node $name: sampled $b within 6% of full $a" awk -v a="$a" -v b="$b" \
    'BEGIN { d = (b - a) / a; if (d < 0) d = -d; exit !(a > 0 && d <= 0.06) }'
done
finish
