# plan_jobs: `rssim plan` replays the runs of one search step side by side
# (--jobs) with the same answer, the same runs and the same run ids as one
# after another; an mds plan first searches coarsely with sampled runs
# (--coarse; on by default for mds traces of 256 MiB or more) and answers
# from full runs only; the
# refusals of options that would do nothing (exit 2, the option named).
. "$(dirname "$0")/lib.sh"

# 1. kv: --jobs 1 and --jobs 2 give the same plan, run for run
W=gen:kv:keys=20000,events=200000,rate=100000
kvplan() { "$RSSIM" plan --preset kv-small --workload "$W" --ram 256M --daemons 4 "$@"; }
# the plan's evaluations and every run's metrics, in run order
runs_of() {
  sql "$1" "select r.id, r.label, r.status, m.name, m.value from runs r join metrics m
    on m.run_id = r.id order by r.id, m.name"
}
expect_status 0 "kv plan, --jobs 1" kvplan --jobs 1 --db "$T/j1/p.db"
sed 's/plan 1 in .*//' "$T/out" > "$T/j1.txt"
expect_status 0 "kv plan, --jobs 2" kvplan --jobs 2 --db "$T/j2/p.db"
sed 's/plan 1 in .*//' "$T/out" > "$T/j2.txt"
check "same answer text with 1 and 2 jobs" cmp -s "$T/j1.txt" "$T/j2.txt"
runs_of "$T/j1/p.db" > "$T/r1.txt"
runs_of "$T/j2/p.db" > "$T/r2.txt"
check "same runs, ids and metrics with 1 and 2 jobs" cmp -s "$T/r1.txt" "$T/r2.txt"
check "every run done" test "$(sql "$T/j2/p.db" "select count(*) from runs where status != 'done'")" = 0
check "the first step was a pair: runs 1 and 2 at the first guesses" \
  test "$(sql "$T/j2/p.db" "select count(*) from plan_evals where run_id in (1, 2)")" = 2

# 2. mds: the coarse search, then the full runs from its answer
expect_status 0 "gen kernel-build" "$RSSIM" gen kernel-build --clients 8 --builds 1 --seed 1 \
  --events 300000 -o "$T/kb.bin"
D="$T/m/p.db"
mdsplan() { "$RSSIM" plan --preset mds-pacific --workload "$T/kb.bin" --ram 1G --db "$D" "$@"; }
expect_status 0 "mds plan, coarse" mdsplan --coarse 8 --json
cp "$T/out" "$T/coarse.json"
stderr_has "says it searches coarsely" "^plan: coarse search, every run sampled 1/8$"
python3 - "$T/coarse.json" > "$T/c.txt" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
c = d["coarse"]
print(d["outcome"], int(d["limit_bytes"]), c["mds_sample_k"], c["runs"], c["replayed"],
      d["mds_sample_k"] is None, len(d["evaluations"]))
PY
read -r outcome L ck cruns creplayed unsampled nfull < "$T/c.txt"
# the answer stands on full runs: the one at it fits, one at most the
# tolerance above it does not
python3 - "$T/coarse.json" > "$T/stand.txt" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
L, B = d["limit_bytes"], d["budget_bytes"]
ev = d["evaluations"]
safe = [e for e in ev if e["limit_bytes"] == L and e["rss_p99_bytes"] <= B]
above = [e for e in ev if L < e["limit_bytes"] <= L + max(0.01 * L, 1 << 20) and e["rss_p99_bytes"] > B]
print(len(safe), len(above))
PY
read -r nsafe nabove < "$T/stand.txt"
check "a full run at the answer fits" test "$nsafe" = 1
check "a full run within the tolerance above it does not" test "$nabove" -ge 1
check "coarse: found" test "$outcome" = found
check "coarse: k 8, several sampled runs ($cruns)" test "$ck" = 8 -a "$cruns" -ge 3 -a "$creplayed" = "$cruns"
check "the answer is not sampled" test "$unsampled" = True
check "JSON: the answer is within the tolerance (converged)" python3 -c '
import json, sys; sys.exit(json.load(open(sys.argv[1]))["converged"] is not True)' "$T/coarse.json"
P=$(sql "$D" "select max(id) from plans")
check "coarse runs: the plan's, sampled 1/8, done" test "$(sql "$D" \
  "select count(*) from plan_evals e join runs r on r.id = e.run_id join params p
   on p.run_id = r.id and p.key = 'mds_sample_k' and p.value = '8'
   where e.plan_id = $P and r.label like 'plan $P coarse %' and r.status = 'done'")" = "$cruns"
check "the plan's other evaluations are full runs, as many as the JSON lists" test "$(sql "$D" \
  "select count(*) from plan_evals e where e.plan_id = $P and not exists (select 1 from params p
   where p.run_id = e.run_id and p.key = 'mds_sample_k')")" = "$nfull"
# the capacity plot draws the coarse search as its own series
expect_status 0 "plot capacity of a coarse plan" "$RSSIM" plot capacity --plan "$P" --db "$D" \
  -o "$T/cap.txt"
check "plot: the coarse series in the key" grep -q "coarse search: p99, runs sampled 1/8" "$T/cap.txt"
expect_status 0 "plot capacity, data" "$RSSIM" plot capacity --plan "$P" --db "$D" -o "$T/cap.png"
check "plot: the PNG exists" test -s "$T/cap.png"
check "plot data: the coarse block, one row per coarse limit" test "$(awk '/^# the coarse search/ { c = 1; next }
  c && /^[0-9]/' "$T/cap.dat" | wc -l)" = "$cruns"
check "plot data: the first block, one row per full limit" test "$(awk '/^# the coarse search/ { exit }
  /^[0-9]/' "$T/cap.dat" | wc -l)" = "$nfull"
# the answer stands on full runs: safe at it, and a full run above it
# (within the tolerance) that is not
check "full runs on both sides of the answer ($nfull)" test "$nfull" -ge 2
expect_status 0 "mds plan, text" mdsplan --coarse 8
stdout_has "the evaluations line names the coarse search" \
  "^evaluations: [0-9]* runs (0 replayed, [0-9]* reused), after a coarse search of $cruns runs sampled 1/8 (0 replayed, $cruns reused); plan"
# by default a trace this small (9.6 MB) is not searched coarsely: a full
# run takes a second, and 1/8 of 8 clients' directories samples poorly
expect_status 0 "mds plan, small trace: no coarse search by default" mdsplan --json
check "default on a small trace: no coarse record" grep -q '"coarse": null' "$T/out"
check "default on a small trace: nothing sampled" test "$(grep -c 'coarse' "$T/err")" = 0
expect_status 0 "mds plan, --coarse 1" mdsplan --coarse 1 --json
check "--coarse 1: no coarse record" grep -q '"coarse": null' "$T/out"

# 3. refusals: an option that would do nothing is an error that names it
expect_status 2 "--coarse on kv" kvplan --coarse 8 --db "$T/j1/p.db"
stderr_has "names --coarse and the daemon" "coarse 8: preset 'kv-small' (daemon kv) cannot sample"
expect_status 2 "--coarse with --limit" mdsplan --coarse 8 --limit 16M
stderr_has "names --coarse and --limit" "coarse: only for a search; --limit predicts at one limit"
expect_status 2 "--coarse with mds_sample_k" mdsplan --coarse 4 --set mds_sample_k=4
stderr_has "names both" "coarse 4: every run is sampled already (mds_sample_k=4)"
expect_status 2 "--jobs 2 with --limit and one seed" mdsplan --jobs 2 --limit 16M
stderr_has "names --jobs" "jobs 2: --limit with one seed is one run"
expect_status 2 "--jobs 0" mdsplan --jobs 0
stderr_has "names --jobs' range" "jobs: expected 1..64, got '0'"
expect_status 0 "--limit, JSON" kvplan --limit 40M --json --db "$T/j1/p.db"
check "JSON: no search, converged is null" python3 -c '
import json, sys; sys.exit(json.load(open(sys.argv[1]))["converged"] is not None)' "$T/out"
# a search out of evaluations answers with the safe limit it has, says it
# is not within the tolerance, and evaluated no more limits than allowed
expect_status 0 "--max-evals 4: an answer" kvplan --max-evals 4 --json --db "$T/j1/p.db"
check "--max-evals 4: safe, not converged, 4 limits evaluated" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
ls = {e["limit_bytes"] for e in d["evaluations"]}
sys.exit(not (d["outcome"] == "found" and d["converged"] is False and len(ls) == 4))' "$T/out"
expect_status 0 "--max-evals 4, text" kvplan --max-evals 4 --db "$T/j1/p.db"
stdout_has "the verdict says so and names the bound" \
  "NOT within the tolerance: the search ended after 4 evaluations (--max-evals 4)"
expect_status 2 "--max-evals 3" kvplan --max-evals 3 --db "$T/j1/p.db"
stderr_has "names --max-evals' range" "max-evals: expected 4..1000, got '3'"
expect_status 2 "--max-evals with --limit" kvplan --max-evals 8 --limit 40M --db "$T/j1/p.db"
stderr_has "names --max-evals and --limit" "max-evals: only for a search; --limit predicts at one limit"
expect_status 2 "--ram past 2^50" kvplan --ram 16000000T --db "$T/j1/p.db"
stderr_has "names --ram and its bound" "ram 16000000T: at most 1024T (2^50 bytes)"
# 4. a run that fails in a worker fails as it does in this process: the
# same exit status and message (a truncated trace is bad input, 2), the
# reason kept on the failed run, nothing left running
expect_status 0 "gen kv" "$RSSIM" gen kv --keys 20000 --events 200000 --rate 100000 -o "$T/kv.bin"
head -c $(( $(stat -c %s "$T/kv.bin") / 2 + 3 )) "$T/kv.bin" > "$T/cut.bin"
cutplan() { "$RSSIM" plan --preset kv-small --workload "$T/cut.bin" --ram 256M --daemons 4 "$@"; }
for j in 1 2; do
  expect_status 2 "truncated trace, --jobs $j: bad input" cutplan --jobs $j --db "$T/cut$j/p.db"
  stderr_has "--jobs $j names the file, record and field" "cut.bin:[0-9]*: record [0-9]*: truncated record"
  sed 's/^[^:]*: //' "$T/err" > "$T/cut$j.err"
  check "--jobs $j: the failed runs keep the reader's reason" test "$(sql "$T/cut$j/p.db" \
    "select count(*) from runs where status = 'failed' and error like '%truncated record%'")" -ge 1
  check "--jobs $j: no run left running or marked done" test "$(sql "$T/cut$j/p.db" \
    "select count(*) from runs where status != 'failed'")" = 0
done
check "the same message with 1 and 2 jobs" cmp -s "$T/cut1.err" "$T/cut2.err"
# 5. started with SIGCHLD ignored (inherited across exec), the workers are
# still waited for: the same plan, not a hang
expect_status 0 "SIGCHLD ignored by the caller, --jobs 2" timeout 120 python3 -c '
import os, signal, sys
signal.signal(signal.SIGCHLD, signal.SIG_IGN)
os.execv(sys.argv[1], sys.argv[1:])' "$RSSIM" plan --preset kv-small --workload "$W" --ram 256M \
  --daemons 4 --jobs 2 --db "$T/ign/p.db"
sed 's/plan 1 in .*//' "$T/out" > "$T/ign.txt"
check "SIGCHLD ignored: the same answer" cmp -s "$T/j1.txt" "$T/ign.txt"
finish
