# sweep: the grid on 1 and 2 workers gives identical rows (timestamps
# aside); a point equals its replay; re-running resumes; a killed sweep never
# leaves an incomplete run marked done, and re-running completes it.
. "$(dirname "$0")/lib.sh"

expect_status 0 "gen kv" "$RSSIM" gen kv --keys 20000 --events 200000 --rate 40000 --seed 5 -o "$T/t.bin"
vary=(--vary kv_cache_limit=1M,4M,16M --vary trim_interval=50ms,200ms)
expect_status 0 "sweep jobs 1" "$RSSIM" sweep "$T/t.bin" --preset kv-small "${vary[@]}" --jobs 1 --db "$T/a.db"
stdout_has "sweep done" "sweep 1 done: 6 points"
expect_status 0 "sweep jobs 2" "$RSSIM" sweep "$T/t.bin" --preset kv-small "${vary[@]}" --jobs 2 --db "$T/b.db"
stderr_has "progress lines" "sweep: point"

dump() { # every row that must not depend on the number of workers
  sql "$1" "select id, kind, status, sweep_id, point_index, label, seed, param_hash, events, trace_sha256 from runs order by id"
  sql "$1" "select * from params order by run_id, key"
  sql "$1" "select * from samples order by run_id, t_ns"
  sql "$1" "select * from metrics order by run_id, name"
}
dump "$T/a.db" > "$T/a.txt"
dump "$T/b.db" > "$T/b.txt"
check "jobs 1 and jobs 2 give identical rows" cmp -s "$T/a.txt" "$T/b.txt"
check "6 runs done" test "$(sql "$T/a.db" "select count(*) from runs where status='done'")" = 6
check "labels name the point" test "$(sql "$T/a.db" "select label from runs where point_index=5")" = "kv_cache_limit=16M trim_interval=200ms"

# point 3 (4M, 200ms) replayed alone is the same run
expect_status 0 "replay of a point" "$RSSIM" replay "$T/t.bin" --preset kv-small --set kv_cache_limit=4M --set trim_interval=200ms --db "$T/a.db"
p3=$(sql "$T/a.db" "select id from runs where point_index=3")
check "point is 4M/200ms" test "$(sql "$T/a.db" "select label from runs where id=$p3")" = "kv_cache_limit=4M trim_interval=200ms"
sql "$T/a.db" "select t_ns, rss_bytes, accounted_bytes, resident_bytes, items_count from samples where run_id=$p3 order by t_ns" > "$T/p3"
sql "$T/a.db" "select t_ns, rss_bytes, accounted_bytes, resident_bytes, items_count from samples where run_id=7 order by t_ns" > "$T/r7"
check "replay equals its sweep point (samples)" cmp -s "$T/p3" "$T/r7"
sql "$T/a.db" "select name, value from metrics where run_id=$p3 order by name" > "$T/m3"
sql "$T/a.db" "select name, value from metrics where run_id=7 order by name" > "$T/m7"
check "replay equals its sweep point (metrics)" cmp -s "$T/m3" "$T/m7"

# resume: nothing left to do
expect_status 0 "sweep again" "$RSSIM" sweep "$T/t.bin" --preset kv-small "${vary[@]}" --jobs 2 --db "$T/a.db"
stderr_has "resumed with nothing to run" "resumed.*0 to run, 6 already done"

# kill a sweep mid-way (a slower trace), then check and resume: the kill
# comes as soon as the first point is done, with most of the grid to go
# (not after a fixed time, which a faster build outruns)
expect_status 0 "gen big" "$RSSIM" gen kv --keys 200000 --events 4000000 --rate 100000 --seed 6 -o "$T/big.bin"
big=(--vary kv_cache_limit=8M,16M,32M,64M --vary trim_interval=50ms,200ms)
setsid "$RSSIM" sweep "$T/big.bin" --preset kv-small "${big[@]}" --jobs 2 --db "$T/k.db" >/dev/null 2>&1 &
pid=$!
for _ in $(seq 600); do
  [ "$(sql "$T/k.db" "select count(*) from runs where status='done'" 2>/dev/null || echo 0)" -gt 0 ] && break
  sleep 0.05
done
kill -KILL -- -"$pid" 2>/dev/null || kill -KILL "$pid"
wait "$pid" 2>/dev/null
sleep 0.2
incomplete=$(sql "$T/k.db" "select count(*) from runs r where status='done' and ((select count(*) from samples s where s.run_id=r.id) = 0 or (select count(*) from metrics m where m.run_id=r.id) < 18)")
check "no done run is incomplete after a kill" test "$incomplete" = 0
check "the kill left work undone" test "$(sql "$T/k.db" "select count(*) from runs where status!='done'")" -gt 0
expect_status 0 "resume after kill" "$RSSIM" sweep "$T/big.bin" --preset kv-small "${big[@]}" --jobs 2 --db "$T/k.db"
stderr_has "resumed" "resumed"
check "all 8 done after resume" test "$(sql "$T/k.db" "select count(*) from runs where status='done'")" = 8
expect_status 0 "fresh sweep to compare" "$RSSIM" sweep "$T/big.bin" --preset kv-small "${big[@]}" --jobs 2 --db "$T/f.db"
sql "$T/k.db" "select * from metrics order by run_id, name" > "$T/k.m"
sql "$T/f.db" "select * from metrics order by run_id, name" > "$T/f.m"
check "resumed sweep equals a fresh one" cmp -s "$T/k.m" "$T/f.m"

# a worker killed while it replays a point: that point's run is failed with
# the signal (not left 'running'), the sweep fails naming the worker, and a
# re-run completes it.  The sweep is a resume (its rows are there from a
# first shard), so the workers claim their points before replaying them.
w4=(--vary kv_cache_limit=4M,8M,16M,32M)
expect_status 0 "the first shard" "$RSSIM" sweep "$T/big.bin" --preset kv-small "${w4[@]}" --shard 0/2 --db "$T/w.db"
"$RSSIM" sweep "$T/big.bin" --preset kv-small "${w4[@]}" --jobs 2 --db "$T/w.db" >"$T/w.out" 2>"$T/w.err" &
sweep=$!
held=
for _ in $(seq 600); do
  held=$(sql "$T/w.db" "select r.id || ' ' || c.owner from claims c join runs r on r.id = c.run_id
    where r.status = 'running' order by r.id limit 1" 2>/dev/null)
  [ -n "$held" ] && break
  sleep 0.05
done
id=${held%% *}
victim=$(echo "${held#* }" | awk -F: '{ print $(NF - 1) }')
check "a worker holds a point ($held)" test -n "$victim"
kill -KILL "$victim"
wait "$sweep"
st=$?
check "the sweep fails with status 1 (got $st)" test "$st" = 1
check "the point's run failed with the signal" test "$(sql "$T/w.db" "select status || ' ' ||
  (error like '%worker (pid $victim) was killed by signal 9%') from runs where id = $id")" = "failed 1"
check "no run left running" test "$(sql "$T/w.db" "select count(*) from runs where status = 'running'")" = 0
check "the message names the worker and the signal" grep -q "(pid $victim) was killed by signal 9" "$T/w.err"
expect_status 0 "the re-run" "$RSSIM" sweep "$T/big.bin" --preset kv-small "${w4[@]}" --jobs 2 --db "$T/w.db"
check "completes it" test "$(sql "$T/w.db" "select count(*) from runs where status = 'done'")" = 4

# a claim held by a zombie (a worker killed with its sweep, never reaped: a
# container's PID 1 that does not reap) is taken over, not awaited for ever
w5=(--vary kv_cache_limit=5M,6M,7M,9M)
expect_status 0 "the first shard, again" "$RSSIM" sweep "$T/big.bin" --preset kv-small "${w5[@]}" --shard 0/2 --db "$T/z.db"
python3 -c '
import ctypes, subprocess, sys, time
ctypes.CDLL(None).prctl(36, 1, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER: its orphans come here, unreaped
p = subprocess.Popen(sys.argv[2:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
open(sys.argv[1], "w").write("%d\n" % p.pid)
time.sleep(600)' "$T/z.pid" "$RSSIM" sweep "$T/big.bin" --preset kv-small "${w5[@]}" --jobs 2 --db "$T/z.db" &
reaper=$!
for _ in $(seq 600); do
  [ -s "$T/z.pid" ] && [ "$(sql "$T/z.db" "select count(*) from runs where status = 'running'" 2>/dev/null)" = 2 ] && break
  sleep 0.05
done
kill -KILL "$(cat "$T/z.pid")"
zombies=0
for _ in $(seq 100); do
  zombies=$(ps -o stat= --ppid "$reaper" | grep -c '^Z' || true)
  [ "$zombies" -ge 3 ] && break
  sleep 0.05
done
check "the sweep and its workers are zombies holding two points ($zombies)" test "$zombies" -ge 3 -a \
  "$(sql "$T/z.db" "select count(*) from runs where status = 'running'")" = 2
expect_status 0 "the resume takes their points over" timeout 120 "$RSSIM" sweep "$T/big.bin" --preset kv-small \
  "${w5[@]}" --jobs 2 --db "$T/z.db"
check "every point done" test "$(sql "$T/z.db" "select count(*) from runs where status = 'done'")" = 4
kill "$reaper" 2>/dev/null
wait "$reaper" 2>/dev/null

# bad grids
expect_status 2 "vary unknown key" "$RSSIM" sweep "$T/t.bin" --preset kv-small --vary nope=1,2 --db "$T/x.db"
stderr_has "unknown key named" "unknown key 'nope'"
expect_status 2 "vary bad value" "$RSSIM" sweep "$T/t.bin" --preset kv-small --vary kv_cache_limit=1M,big --db "$T/x.db"
stderr_has "bad value named" "bad value 'big' for key 'kv_cache_limit'"
expect_status 2 "no vary" "$RSSIM" sweep "$T/t.bin" --preset kv-small --db "$T/x.db"
expect_status 2 "bad jobs" "$RSSIM" sweep "$T/t.bin" --preset kv-small --vary kv_cache_limit=1M --jobs 0 --db "$T/x.db"
# a grid is known by its whole spec: two grids that differ only past 8 KiB
# of values are two sweeps, each point run with its own params
Z=$(printf '0%.0s' $(seq 8200))
expect_status 0 "long grid 1" "$RSSIM" sweep "$T/t.bin" --preset kv-small --vary "kv_cache_limit=${Z}1M,4M" --db "$T/long.db"
expect_status 0 "long grid 2, differing at its end" "$RSSIM" sweep "$T/t.bin" --preset kv-small \
  --vary "kv_cache_limit=${Z}1M,16M" --db "$T/long.db"
stderr_has "a new sweep, not the first resumed" "^sweep 2 (new): 2 points, 2 to run"
check "its 16M point ran at 16M" test "$(sql "$T/long.db" "select p.value from runs r join params p
  on p.run_id = r.id and p.key = 'kv_cache_limit' where r.sweep_id = 2 and r.point_index = 1")" = 16M
check "the spec is stored whole" test "$(sql "$T/long.db" "select length(spec) from sweeps where id = 2")" -gt 8200
Y=$(printf '0%.0s' $(seq 66000))
expect_status 2 "a grid's values past 64 KiB" "$RSSIM" sweep "$T/t.bin" --preset kv-small --vary "kv_cache_limit=${Y}1M,2M" --db "$T/long.db"
stderr_has "names --vary and the bound" "vary: the grid's values take 660[0-9]* characters, at most 65536"
finish
