# faults: the simulator running out of memory and a replay killed mid-run
# must end as a failed or running run with no rows, never a crash or a
# half-filled done run.
. "$(dirname "$0")/lib.sh"

expect_status 0 "gen" "$RSSIM" gen kv --keys 3000000 --events 3000000 --alpha 0 --rate 1000000 \
  --size-median 256 --seed 9 -o "$T/big.bin"

# allocation failure: cap the address space (not under ASan, which needs
# terabytes of it for its shadow memory)
if ldd "$RSSIM" | grep -q asan; then
  echo "skip: address-space cap under AddressSanitizer"
else
  (ulimit -v 120000; "$RSSIM" replay "$T/big.bin" --preset kv-small --set kv_cache_limit=64G \
     --db "$T/oom.db" >"$T/out" 2>"$T/err"; echo $? > "$T/rc")
  check "out of memory exits 1" test "$(cat "$T/rc")" = 1
  stderr_has "out of memory said" "out of memory"
  check "the run is failed" test "$(sql "$T/oom.db" "select status from runs")" = failed
  check "the failed run says why" grep -q "out of memory" <(sql "$T/oom.db" "select error from runs")
  check "no rows of the failed run" test "$(sql "$T/oom.db" "select count(*) from samples")" = 0
fi

# a replay killed while it runs stays 'running' with no rows
"$RSSIM" replay "$T/big.bin" --preset kv-small --set kv_cache_limit=64G --db "$T/kill.db" >/dev/null 2>&1 &
pid=$!
for _ in $(seq 100); do
  [ "$(sql "$T/kill.db" "select count(*) from runs" 2>/dev/null)" = 1 ] && break
  sleep 0.05
done
kill -KILL "$pid" 2>/dev/null
wait "$pid" 2>/dev/null
status=$(sql "$T/kill.db" "select status from runs where id=1")
check "killed replay is not done ($status)" test "$status" != done
check "killed replay left no samples" test "$(sql "$T/kill.db" "select count(*) from samples")" = 0
finish
