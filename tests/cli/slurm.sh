# slurm: a sweep run as a real Slurm job array (a private one-node cluster
# from scripts/slurm-local) and merged gives the same rows as the sweep run
# in one place.  Skipped, saying why, without root or Slurm's packages.
. "$(dirname "$0")/lib.sh"

if [ "$(id -u)" -ne 0 ] || ! command -v slurmctld >/dev/null || ! command -v munged >/dev/null; then
  echo "skip: needs root and Debian's munge, slurmctld, slurmd, slurm-client (scripts/setup installs them)"
  finish
  exit $?
fi
chmod 755 "$T" # slurmctld runs as user slurm and keeps its state in here
mkdir "$T/w" && cd "$T/w"
trap '"$SRC/scripts/slurm-local" stop "$T/cluster"; rm -rf "$T"' EXIT
if ! timeout 120 "$SRC/scripts/slurm-local" start "$T/cluster" >"$T/up.log" 2>&1; then
  bad "one-node cluster did not start: $(tail -3 "$T/up.log")"
  tail -20 "$T"/cluster/log/*.log >&2 2>/dev/null
  finish
  exit 1
fi
ok
export SLURM_CONF=$T/cluster/slurm.conf RSSIM_SLURM_TIMEOUT=300

expect_status 0 "gen" "$RSSIM" gen kv --keys 20000 --events 100000 --rate 40000 --seed 7 -o t.bin
sweep=(t.bin --preset kv-small --vary kv_cache_limit=1M,4M,16M --vary trim_interval=50ms,200ms)
expect_status 0 "slurm sweep, 3 tasks" "$SRC/scripts/slurm-sweep" --tasks 3 --db slurm.db --rssim "$RSSIM" -- "${sweep[@]}"
stdout_has "merged every shard" "merged .*shard-2.db: 2 done runs"
expect_status 0 "local sweep" "$RSSIM" sweep "${sweep[@]}" --db local.db
dump() {
  sql "$1" "select id, status, point_index, label, events from runs order by id"
  sql "$1" "select * from samples order by run_id, t_ns"
  sql "$1" "select * from metrics order by run_id, name"
}
dump slurm.db > s.txt
dump local.db > l.txt
check "job array + merge = one sweep" cmp -s s.txt l.txt
check "6 runs done" test "$(sql slurm.db "select count(*) from runs where status='done'")" = 6
check "sweep done" test "$(sql slurm.db "select status from sweeps")" = done

# a re-run resumes: nothing to submit when every shard is done
expect_status 0 "re-run, all done" "$SRC/scripts/slurm-sweep" --tasks 3 --db again.db --rssim "$RSSIM" -- "${sweep[@]}"
stderr_has "nothing resubmitted" "every shard is done already"
dump again.db > a.txt
check "re-run merges the same rows" cmp -s a.txt l.txt
# a task that did not finish is the only one submitted again
work=$(dirname "$(ls out/slurm/*/task.sh | head -1)")
sed -i '/^sweep .* done/d' "$work/task-1.log"
expect_status 0 "resume one task" "$SRC/scripts/slurm-sweep" --tasks 3 --db resumed.db --rssim "$RSSIM" \
  --time 5 --sbatch --job-name=rssim-resume -- "${sweep[@]}"
stderr_has "only task 1" "1 of 3 tasks to run (1)"
dump resumed.db > r.txt
check "resumed = one sweep" cmp -s r.txt l.txt
# options slurm-sweep sets itself are refused
expect_status 2 "own option refused" "$SRC/scripts/slurm-sweep" --tasks 3 --sbatch --array=0-9 -- "${sweep[@]}"
stderr_has "names it" "'--array=0-9' is set by slurm-sweep itself"
# submit, return, collect later
sweep2=(t.bin --preset kv-small --vary kv_cache_limit=2M,8M)
expect_status 0 "submit only" "$SRC/scripts/slurm-sweep" --tasks 2 --submit-only --db sub.db --rssim "$RSSIM" -- "${sweep2[@]}"
stdout_has "job id and how to collect" "submitted job [0-9]*; when it is done"
collected=1
for _ in $(seq 120); do
  if "$SRC/scripts/slurm-sweep" --tasks 2 --collect --db sub.db --rssim "$RSSIM" -- "${sweep2[@]}" >/dev/null 2>&1; then
    collected=0; break; fi
  sleep 1
done
check "collected after the job" test "$collected" = 0
check "2 runs collected" test "$(sql sub.db "select count(*) from runs where status='done'")" = 2
finish
