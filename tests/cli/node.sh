# node: `rssim node` sums several daemons on one clock.  The stored node
# series is checked against the members' own stored samples, summed here in
# SQL with the step hold the design states (a daemon's latest sample; its
# first before it starts, its last after it ends); the peak of the sum
# against the sum of peaks; reuse; --jobs 2 gives the same rows; phase;
# the verdict and exit 3; refusals (exit 2, the key named); db merge.
. "$(dirname "$0")/lib.sh"

D="$T/n.db"
"$RSSIM" gen kv --keys 20000 --events 60000 --rate 20000 --seed 1 -o "$T/k1.bin" 2>/dev/null
"$RSSIM" gen kv --keys 5000 --events 30000 --rate 10000 --seed 2 -o "$T/k2.bin" 2>/dev/null
node() { "$RSSIM" node --member "preset=kv-small,trace=$T/k1.bin,count=3" \
  --member "preset=kv-small,trace=$T/k2.bin,kv_cache_limit=8M" "$@"; }

expect_status 0 "node of 4 kv daemons" node --ram 1G --db "$D"
stdout_has "header" "^node 1: 4 daemons, 2 members"
stdout_has "member 1 share" "^member 1: 3 x kv-small on .*k1.bin (run 1, replayed): .* at the node's peak"
stdout_has "node line" "^node RSS: steady .* p50 .* p99 .* peak .* at "
stdout_has "sum of peaks" "^sum of the daemons' own peaks: "
stdout_has "verdict" "^fits: 4 daemons peak at .* within 921.6 MiB (RAM 1.00 GiB less 10% headroom)"
check "two runs" test "$(sql "$D" "select count(*) from runs where status = 'done'")" = 2
check "member 2 has its own key" test "$(sql "$D" "select value from params where run_id = 2
  and key = 'kv_cache_limit'")" = 8M
check "four daemons" test "$(sql "$D" "select count(*) from node_members where node_id = 1")" = 4
# the node's total, recomputed from the runs' samples (step hold)
held() { echo "(select $2 from samples where run_id = $1 and t_ns <= n.t_ns order by t_ns desc limit 1)"; }
bad_rows=$(sql "$D" "select count(*) from node_samples n where node_id = 1 and
  (rss_bytes <> 3 * $(held 1 rss_bytes) + $(held 2 rss_bytes)
   or accounted_bytes <> 3 * $(held 1 accounted_bytes) + $(held 2 accounted_bytes))")
check "node total = 3 x run 1 + run 2 at every instant ($bad_rows rows differ)" test "$bad_rows" = 0
check "the clock covers the longer run" test "$(sql "$D" "select max(t_ns) from node_samples where node_id = 1")" = \
  "$(sql "$D" "select max(t_ns) from samples")"
check "peak = max of the series" test "$(sql "$D" "select cast(value as integer) from node_metrics where node_id = 1
  and name = 'rss_peak_bytes'")" = "$(sql "$D" "select max(rss_bytes) from node_samples where node_id = 1")"
check "sum of peaks = 3 x peak 1 + peak 2" test "$(sql "$D" "select cast(value as integer) from node_metrics
  where node_id = 1 and name = 'sum_of_peaks_bytes'")" = "$(sql "$D" "select 3 * (select max(rss_bytes) from samples
  where run_id = 1) + (select max(rss_bytes) from samples where run_id = 2)")"
check "peak of the sum <= sum of peaks" test "$(sql "$D" "select (select value from node_metrics where node_id = 1
  and name = 'rss_peak_bytes') <= (select value from node_metrics where node_id = 1 and name = 'sum_of_peaks_bytes')")" = 1

# the same node again: both runs reused, the same series
expect_status 0 "again" node --db "$D"
stdout_has "reused" "(run 1, reused)"
check "no new run" test "$(sql "$D" "select count(*) from runs")" = 2
check "same series" test "$(sql "$D" "select count(*) from node_samples a join node_samples b on a.t_ns = b.t_ns
  and b.node_id = 2 where a.node_id = 1 and a.rss_bytes <> b.rss_bytes")" = 0

# --jobs 2 in a fresh database: the same run ids and rows
expect_status 0 "--jobs 2" node --jobs 2 --db "$T/j2.db"
check "--jobs 2: same samples" test "$(sql "$T/j2.db" "select * from samples order by run_id, t_ns" | sha256sum)" = \
  "$(sql "$D" "select * from samples order by run_id, t_ns" | sha256sum)"
check "--jobs 2: same node series" test "$(sql "$T/j2.db" "select t_ns, rss_bytes from node_samples order by t_ns" | sha256sum)" = \
  "$(sql "$D" "select t_ns, rss_bytes from node_samples where node_id = 1 order by t_ns" | sha256sum)"

# out of phase: copy 1 starts 1 s later; before then it holds its first sample
expect_status 0 "phase" "$RSSIM" node --member "preset=kv-small,trace=$T/k1.bin,count=2,phase=1s" --db "$D"
N=$(sql "$D" "select max(id) from nodes")
shifted() { echo "coalesce((select rss_bytes from samples where run_id = 1 and t_ns <= n.t_ns - 1000000000
  order by t_ns desc limit 1), (select rss_bytes from samples where run_id = 1 order by t_ns limit 1))"; }
bad_rows=$(sql "$D" "select count(*) from node_samples n where node_id = $N and
  rss_bytes <> $(held 1 rss_bytes) + $(shifted)")
check "phase: node total = copy 0 + copy 1 shifted by 1 s ($bad_rows rows differ)" test "$bad_rows" = 0
check "phase: the clock ends 1 s after the run" test "$(sql "$D" "select max(t_ns) from node_samples where node_id = $N")" = \
  "$(sql "$D" "select max(t_ns) + 1000000000 from samples where run_id = 1")"
check "phase: offsets stored" test "$(sql "$D" "select group_concat(offset_ns) from node_members where node_id = $N")" = "0,1000000000"

# two identical members share one run (replayed once), each counted
expect_status 0 "identical members" "$RSSIM" node --member "preset=kv-small,trace=$T/k2.bin,kv_cache_limit=3M" \
  --member "preset=kv-small,trace=$T/k2.bin,kv_cache_limit=3M" --db "$D"
stdout_has "shared" "^member 2: 1 x kv-small on .*k2.bin (run 3, as an earlier member)"
check "one new run" test "$(sql "$D" "select count(*) from runs")" = 3
N=$(sql "$D" "select max(id) from nodes")
check "node = 2 x the run" test "$(sql "$D" "select count(*) from node_samples n where node_id = $N
  and rss_bytes <> 2 * $(held 3 rss_bytes)")" = 0

# does not fit: exit 3
expect_status 3 "--ram too small" node --ram 64M --db "$D"
stdout_has "does not fit" "^does NOT fit: 4 daemons peak at .* over 57.6 MiB"

# refusals
expect_status 2 "no trace" "$RSSIM" node --member preset=kv-small --db "$D"
stderr_has "trace named" "\-\-member 1: needs preset= and trace="
expect_status 2 "unknown key" "$RSSIM" node --member "preset=kv-small,trace=$T/k1.bin,bogus=1" --db "$D"
stderr_has "key named" "\-\-member 1.*unknown key 'bogus'"
expect_status 2 "count 0" "$RSSIM" node --member "preset=kv-small,trace=$T/k1.bin,count=0" --db "$D"
stderr_has "count named" "count: expected 1..1024"
expect_status 2 "wrong daemon" "$RSSIM" node --member "preset=mds-octopus,trace=$T/k1.bin" --db "$D"
stderr_has "daemon named" "\-\-member 1: .*trace is for daemon 'kv' but preset 'mds-octopus' replays 'mds' traces"
expect_status 2 "no member" "$RSSIM" node --db "$D"
expect_status 2 "bad ram" node --ram lots --db "$D"
stderr_has "ram named" "\-\-ram: expected a size"
check "refusals stored nothing" test "$(sql "$D" "select count(*) from runs")" = 3

# db merge brings the nodes, their run ids remapped
"$RSSIM" replay "$T/k2.bin" --preset kv-small --set kv_cache_limit=2M --db "$T/m.db" >/dev/null 2>&1
expect_status 0 "merge" "$RSSIM" db merge --db "$T/m.db" "$D"
check "nodes merged" test "$(sql "$T/m.db" "select count(*) from nodes")" = "$(sql "$D" "select count(*) from nodes")"
check "members point at the same runs" test "$(sql "$T/m.db" "select count(*) from node_members nm join runs r
  on r.id = nm.run_id where r.label like 'node member%'")" = "$(sql "$D" "select count(*) from node_members")"
check "node samples merged" test "$(sql "$T/m.db" "select count(*) from node_samples")" = "$(sql "$D" "select count(*) from node_samples")"

# a member's run that fails is bad input as in `rssim replay` (exit 2, the
# file, record and field), named by its member, with the reason on its run;
# after it no further member starts, with 1 or 2 jobs
head -c $(( $(stat -c %s "$T/k1.bin") - 7 )) "$T/k1.bin" > "$T/cut.bin"
for j in 1 2; do
  expect_status 2 "--jobs $j: a truncated member" "$RSSIM" node --member "preset=kv-small,trace=$T/cut.bin" \
    --member "preset=kv-small,trace=$T/k2.bin,count=2" --jobs $j --db "$T/cut$j.db"
  stderr_has "--jobs $j: the member, the file, the record" "member 1 (run 1): .*cut.bin:[0-9]*: record [0-9]*: truncated record"
  check "--jobs $j: the member's run failed with the reader's reason" test "$(sql "$T/cut$j.db" \
    "select status || ' ' || (error like '%truncated record%') from runs where id = 1")" = "failed 1"
  check "--jobs $j: no run left running" test "$(sql "$T/cut$j.db" \
    "select count(*) from runs where status = 'running'")" = 0
  check "--jobs $j: no node stored" test "$(sql "$T/cut$j.db" "select count(*) from nodes")" = 0
done
check "--jobs 1: the next member not started, said so" test "$(sql "$T/cut1.db" \
  "select status || ': ' || error from runs where id = 2")" = "failed: not started: its batch stopped at a failure"

expect_status 0 "help" "$RSSIM" node -h
stdout_has "usage" "usage: rssim node"
finish
