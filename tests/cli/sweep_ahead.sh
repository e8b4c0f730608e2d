# sweep_ahead: the workers of a new sweep replay their first point while
# the parent is still taking the trace's identity and writing the rows
# (sim/cli/cmd_sweep.c).  With the database's write lock held by another
# process the parent waits for it, yet each worker reads the whole trace
# meanwhile; once the lock goes, every point is stored and equals the same
# sweep run on one worker.  A sweep whose spec the database already has
# (a resume) is not run ahead: its points may be done.
. "$(dirname "$0")/lib.sh"

expect_status 0 "gen kv" "$RSSIM" gen kv --keys 20000 --events 300000 --rate 100000 --seed 7 -o "$T/t.bin"
size=$(stat -c %s "$T/t.bin")
vary=(--vary kv_cache_limit=2M,8M,32M)
expect_status 0 "runs init" "$RSSIM" runs init --db "$T/L.db"

locked() { ! sqlite3 -batch -cmd ".timeout 0" "$1" "BEGIN IMMEDIATE; ROLLBACK;" >/dev/null 2>&1; }
lock() { # hold the write lock of $1 until unlock
  rm -f "$T/lockin"
  mkfifo "$T/lockin"
  # with a busy timeout: its BEGIN IMMEDIATE may meet a probe of locked()
  # holding the lock for a moment; without one it failed at once and the
  # lock was never taken (seen once under load)
  sqlite3 -batch -cmd ".timeout 10000" "$1" < "$T/lockin" >/dev/null 2>&1 &
  locker=$!
  exec 7>"$T/lockin"
  echo "BEGIN IMMEDIATE;" >&7
  for _ in $(seq 200); do locked "$1" && return 0; sleep 0.05; done
  return 1
}
unlock() { echo "ROLLBACK;" >&7; exec 7>&-; wait "$locker"; }
# the bytes each child of $1 has read, one line per child
child_reads() {
  local c
  for c in $(pgrep -P "$1"); do awk '$1 == "rchar:" { print $2 }' "/proc/$c/io" 2>/dev/null; done
}
all_read() { # every one of $2 children of $1 read at least $3 bytes
  [ "$(child_reads "$1" | awk -v n="$3" '$1 >= n { k++ } END { print k + 0 }')" = "$2" ]
}

check "lock held" lock "$T/L.db"
"$RSSIM" sweep "$T/t.bin" --preset kv-small "${vary[@]}" --jobs 2 --db "$T/L.db" >"$T/s.out" 2>"$T/s.err" &
sweep=$!
ahead=0
end=$((SECONDS + 50)) # within the parent's 60 s wait for the lock
while [ "$SECONDS" -lt "$end" ]; do
  if all_read "$sweep" 2 "$size"; then ahead=1; break; fi
  sleep 0.05
done
check "both workers read the whole trace while the parent waited for the lock" test "$ahead" = 1
check "and nothing was stored yet" test "$(sql "$T/L.db" "select count(*) from runs")" = 0
unlock
wait "$sweep"
check "the sweep ends well" test $? = 0
check "3 points done" test "$(sql "$T/L.db" "select count(*) from runs where status = 'done'")" = 3

expect_status 0 "the same sweep on one worker" "$RSSIM" sweep "$T/t.bin" --preset kv-small "${vary[@]}" --jobs 1 --db "$T/one.db"
dump() {
  sql "$1" "select point_index, label, seed, param_hash, events, trace_sha256 from runs order by point_index"
  sql "$1" "select r.point_index, m.name, m.value from metrics m join runs r on r.id = m.run_id order by 1, 2"
  sql "$1" "select r.point_index, s.* from samples s join runs r on r.id = s.run_id order by 1, s.t_ns"
}
dump "$T/L.db" > "$T/L.txt"
dump "$T/one.db" > "$T/one.txt"
check "points run ahead equal the points run in order" cmp -s "$T/L.txt" "$T/one.txt"
check "the trace's identity is its sha" test "$(sql "$T/L.db" "select distinct trace_sha256 from runs")" = "$(sha256sum "$T/t.bin" | cut -d' ' -f1)"

# a resume: the database has this spec, so the workers wait for their points
check "lock held again" lock "$T/L.db"
"$RSSIM" sweep "$T/t.bin" --preset kv-small "${vary[@]}" --jobs 2 --db "$T/L.db" >"$T/s.out" 2>"$T/s.err" &
sweep=$!
sleep 3
check "a resume's workers do not read the trace ahead" test "$(child_reads "$sweep" | awk -v n="$size" '$1 >= n / 2 { k++ } END { print k + 0 }')" = 0
unlock
wait "$sweep"
check "the resume ends well" test $? = 0
check "with nothing to run" grep -q "resumed.*0 to run, 3 already done" "$T/s.err"

# a worker that dies before it is given its points: the other takes them
# all (its own, the next ones, and the one the dead worker had replayed
# ahead), the sweep ends done and names the dead worker; its parent is not
# killed by SIGPIPE when it hands the points over
expect_status 0 "runs init" "$RSSIM" runs init --db "$T/K.db"
check "lock held for the kill" lock "$T/K.db"
"$RSSIM" sweep "$T/t.bin" --preset kv-small "${vary[@]}" --jobs 2 --db "$T/K.db" >"$T/s.out" 2>"$T/s.err" &
sweep=$!
end=$((SECONDS + 50))
while [ "$SECONDS" -lt "$end" ] && [ "$(pgrep -P "$sweep" | wc -l)" -lt 2 ]; do sleep 0.05; done
victim=$(pgrep -P "$sweep" | head -1)
check "a worker to kill" test -n "$victim"
kill -KILL "$victim"
unlock
wait "$sweep"
st=$?
check "the sweep ends well, not by a signal (got $st)" test "$st" = 0
check "naming the worker and the signal" grep -q "worker [01] (pid $victim) was killed by signal 9.*; 0 points it held failed" "$T/s.err"
check "every point done by the other" test "$(sql "$T/K.db" "select count(*) from runs where status = 'done'")" = 3
finish
