# db_merge: `rssim db merge` brings plans across: a plan made in one
# database, merged into another, keeps its evaluations (run ids remapped
# onto the destination's), `rssim report --plan` renders it there, the same
# question asked of the merged database replays nothing, and merging the
# same database again adds neither runs nor plans.
. "$(dirname "$0")/lib.sh"

W=gen:kv:keys=20000,events=200000,rate=100000
plan() { "$RSSIM" plan --preset kv-small --workload "$W" --ram 256M --daemons 4 "$@"; }
mkdir -p "$T/a" "$T/b"

# the destination already holds runs of its own, so ids must be remapped
expect_status 0 "gen" "$RSSIM" gen kv --keys 5000 --events 20000 --rate 100000 --seed 3 -o "$T/k.bin"
expect_status 0 "replay into b" "$RSSIM" replay "$T/k.bin" --preset kv-small --db "$T/b/b.db"
expect_status 0 "replay into b again" "$RSSIM" replay "$T/k.bin" --preset kv-small \
  --set kv_cache_limit=2M --db "$T/b/b.db"
expect_status 0 "plan in a" plan --db "$T/a/a.db"
answer=$(grep '^largest safe' "$T/out")
check "plan answered ($answer)" test -n "$answer"
na=$(sql "$T/a/a.db" "select count(*) from plan_evals where plan_id = 1")
check "plan has evaluations ($na)" test "$na" -ge 3

expect_status 0 "merge" "$RSSIM" db merge --db "$T/b/b.db" "$T/a/a.db"
check "one plan in b" test "$(sql "$T/b/b.db" "select count(*) from plans")" = 1
check "every evaluation came across" \
  test "$(sql "$T/b/b.db" "select count(*) from plan_evals where plan_id = 1")" = "$na"
# each evaluation points at the run with the same trace, params and limit as in a
sql "$T/a/a.db" "select e.limit_bytes, r.trace_sha256, r.param_hash, r.seed from plan_evals e
  join runs r on r.id = e.run_id order by 1, 2, 3" > "$T/ea.txt"
sql "$T/b/b.db" "select e.limit_bytes, r.trace_sha256, r.param_hash, r.seed from plan_evals e
  join runs r on r.id = e.run_id order by 1, 2, 3" > "$T/eb.txt"
check "evaluations point at the same runs" cmp -s "$T/ea.txt" "$T/eb.txt"
check "run ids were remapped (b's own runs come first)" \
  test "$(sql "$T/b/b.db" "select min(run_id) from plan_evals")" -gt 2
check "evaluated runs are done with samples" test "$(sql "$T/b/b.db" "select count(*) from plan_evals e
  where not exists (select 1 from samples s where s.run_id = e.run_id)")" = 0
sql "$T/a/a.db" "select outcome, limit_bytes, verdict from plans" > "$T/pa.txt"
sql "$T/b/b.db" "select outcome, limit_bytes, verdict from plans" > "$T/pb.txt"
check "the plan row is the same" cmp -s "$T/pa.txt" "$T/pb.txt"

expect_status 0 "report --plan on the merged database" "$RSSIM" report --db "$T/b/b.db" --plan 1 -o "$T/rep"
check "report written" test -s "$T/rep/index.html"
before=$(sql "$T/b/b.db" "select count(*) from runs")
expect_status 0 "the same plan on the merged database" plan --db "$T/b/b.db"
stdout_has "nothing replayed" "(0 replayed, [0-9]* reused)"
check "same answer" grep -qF "$answer" "$T/out"
check "no new run" test "$(sql "$T/b/b.db" "select count(*) from runs")" = "$before"

# merging a again changes nothing
runs_b=$(sql "$T/b/b.db" "select count(*) from runs")
plans_b=$(sql "$T/b/b.db" "select count(*) from plans")
expect_status 0 "merge again" "$RSSIM" db merge --db "$T/b/b.db" "$T/a/a.db"
check "no run duplicated" test "$(sql "$T/b/b.db" "select count(*) from runs")" = "$runs_b"
check "no plan duplicated" test "$(sql "$T/b/b.db" "select count(*) from plans")" = "$plans_b"
finish
