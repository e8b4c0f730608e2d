# replay: one run end to end, and bad input that must be refused (exit 2)
# without anything stored as done.
. "$(dirname "$0")/lib.sh"

expect_status 0 "gen kv" "$RSSIM" gen kv --keys 5000 --events 60000 --rate 20000 --seed 3 -o "$T/t.bin"
expect_status 0 "replay" "$RSSIM" replay "$T/t.bin" --preset kv-small --set kv_cache_limit=2M --db "$T/db"
stdout_has "replay summary" "run 1 done"
stdout_has "replay summary" "overshoot"
check "run 1 is done" test "$(sql "$T/db" "select status from runs where id=1")" = done
check "run 1 has samples" test "$(sql "$T/db" "select count(*) from samples where run_id=1")" -gt 10
check "run 1 has metrics" test "$(sql "$T/db" "select count(*) from metrics where run_id=1")" -ge 18
check "params stored" test "$(sql "$T/db" "select value from params where run_id=1 and key='kv_cache_limit'")" = 2M
check "WAL mode" test "$(sql "$T/db" "pragma journal_mode")" = wal

# bad values and keys: refused before anything is stored
expect_status 2 "bad value" "$RSSIM" replay "$T/t.bin" --preset kv-small --set kv_cache_limit=lots --db "$T/db"
stderr_has "bad value named" "'lots'"
stderr_has "bad key named" "'kv_cache_limit'"
expect_status 2 "unknown key" "$RSSIM" replay "$T/t.bin" --preset kv-small --set no_such=1 --db "$T/db"
stderr_has "unknown key named" "unknown key 'no_such'"
expect_status 2 "unknown allocator" "$RSSIM" replay "$T/t.bin" --preset kv-small --set alloc=nope --db "$T/db"
stderr_has "unknown allocator named" "unknown allocator 'nope'"
expect_status 2 "unknown preset" "$RSSIM" replay "$T/t.bin" --preset no-such-preset --db "$T/db"
expect_status 2 "no preset" "$RSSIM" replay "$T/t.bin" --db "$T/db"
printf 'kv_cache_limit = 1G\ntrim_interval = soon\n' > "$T/bad.conf"
expect_status 2 "bad preset value" "$RSSIM" replay "$T/t.bin" --preset "$T/bad.conf" --db "$T/db"
stderr_has "preset file:line" "bad.conf:2: bad value 'soon' for key 'trim_interval'"
sql "$T/db" "select id, status, error from runs" >&2
check "no run stored for refused input" test "$(sql "$T/db" "select count(*) from runs")" = 1

# a trace that goes wrong half-way: the run is failed, never done
{ printf '#rssim-trace\tv1\tdaemon=kv\nt_ns\top\tkey\tsize_bytes\tthread\taux\n'
  for i in $(seq 1 200); do printf '%d\tSET\t%d\t100\n' $((i * 1000)) "$i"; done
  printf '5\tSET\t1\t100\n'; } > "$T/back.tsv"
expect_status 2 "time going backwards" "$RSSIM" replay "$T/back.tsv" --preset kv-small --db "$T/db"
stderr_has "file:line of the bad record" "back.tsv:203:"
check "failed run is marked failed" test "$(sql "$T/db" "select status from runs where id=2")" = failed
check "failed run has no samples" test "$(sql "$T/db" "select count(*) from samples where run_id=2")" = 0

# a trace of another daemon kind
printf '#rssim-trace\tv1\tdaemon=alloc\nt_ns\top\tkey\tsize_bytes\tthread\taux\n0\tMALLOC\t1\t100\n' > "$T/alloc.tsv"
expect_status 2 "wrong daemon kind" "$RSSIM" replay "$T/alloc.tsv" --preset kv-small --db "$T/db"
stderr_has "daemon kind named" "daemon 'alloc'"
expect_status 2 "missing trace" "$RSSIM" replay "$T/nope.bin" --preset kv-small --db "$T/db"

# the help of every subcommand
for c in gen trace replay sweep runs plot list; do
  expect_status 0 "$c -h" "$RSSIM" "$c" -h
done
expect_status 2 "unknown command" "$RSSIM" frobnicate
finish
