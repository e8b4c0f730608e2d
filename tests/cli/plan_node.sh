# plan_node: `rssim plan --daemons N --seeds K --quantile peak` sizes the
# node by the peak of the N daemons' summed RSS (daemon i replays seed
# i mod K), not N x the worst seed's peak.  The number printed is checked
# against the two seed runs' stored samples summed here in SQL, and is at
# most N x the worst peak; with one seed the old rule (N x peak) stays.
. "$(dirname "$0")/lib.sh"

D="$T/o/p.db"
plan() { "$RSSIM" plan --preset kv-small --workload gen:kv:keys=20000,events=200000,rate=100000 \
  --ram 256M --daemons 4 --db "$D" "$@"; }

expect_status 0 "--seeds 2 --quantile peak --limit 32M" plan --seeds 2 --quantile peak --limit 32M
stderr_has "summed" "peak of 4 daemons' summed RSS (seed i mod 2 each) = [0-9.]* MiB, 4 x the worst seed's peak = [0-9.]* MiB"
# 2 x seed 1 + 2 x seed 2 at each instant of the longer run's clock, a run
# that has ended holding its last sample
L=$(sql "$D" "select run_id from samples order by t_ns desc limit 1")
held() { echo "(select rss_bytes from samples where run_id = $1 and t_ns <= n.t_ns order by t_ns desc limit 1)"; }
want=$(sql "$D" "select printf('%.1f', max(2 * $(held 1) + 2 * $(held 2)) / 1048576.0)
  from samples n where n.run_id = $L")
stdout_has "need = peak of the sum ($want MiB)" "^fits: 4 kv at kv_cache_limit=32.0 MiB need $want MiB (peak)"
worst=$(sql "$D" "select printf('%.1f', 4 * max(rss_bytes) / 1048576.0) from samples")
check "peak of the sum ($want) <= 4 x worst peak ($worst)" awk -v a="$want" -v b="$worst" 'BEGIN { exit !(a <= b) }'

# one seed: N x its peak, as before
expect_status 0 "--seeds 1" plan --quantile peak --limit 32M
stderr_has "one seed: N x peak" "kv_cache_limit=32.0 MiB: peak [0-9.]* MiB x 4 = "
finish
