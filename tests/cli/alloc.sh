# alloc traces: the alloc generator, the alloc daemon on every allocator
# model, an emitted allocation trace that replays to the same memory, the
# breakdown plot, and bad alloc records refused with FILE:LINE.
. "$(dirname "$0")/lib.sh"

expect_status 0 "gen free-random" "$RSSIM" gen alloc --pattern free-random --count 1000000 -o "$T/fr.bin"
expect_status 0 "gen free-oldest" "$RSSIM" gen alloc --pattern free-oldest --count 1000000 -o "$T/fo.bin"
expect_status 0 "trace stats" "$RSSIM" trace stats "$T/fr.bin"
stdout_has "daemon alloc" "daemon *alloc"
stdout_has "mallocs" "op_MALLOC *1000000"
stdout_has "frees" "op_FREE *750000"
stdout_has "release" "op_RELEASE *1"

# the fragmentation experiment of docs/validation.md (1M allocations of
# 16..512 B, 75% freed): after
# freeing and releasing, random order must leave far more resident
# than age order, on every allocator that has a model of pages
last_resident() { sql "$T/a.db" "select resident_bytes from samples where run_id=$1 order by t_ns desc limit 1"; }
id=0
for a in jemalloc glibc tcmalloc; do
  expect_status 0 "replay fr $a" "$RSSIM" replay "$T/fr.bin" --preset kv-small --set daemon=alloc --set alloc=$a --db "$T/a.db"
  id=$((id + 1)); fr=$(last_resident $id)
  expect_status 0 "replay fo $a" "$RSSIM" replay "$T/fo.bin" --preset kv-small --set daemon=alloc --set alloc=$a --db "$T/a.db"
  id=$((id + 1)); fo=$(last_resident $id)
  check "$a: random-order frees leave > 2x the resident of age order ($fr vs $fo)" test "$fr" -gt $((2 * fo))
done
expect_status 0 "replay ideal" "$RSSIM" replay "$T/fr.bin" --preset kv-small --set daemon=alloc --set alloc=ideal --db "$T/a.db"
id=$((id + 1))
live=$(sql "$T/a.db" "select requested_bytes from samples where run_id=$id order by t_ns desc limit 1")
check "ideal: resident = live requested" test "$(last_resident $id)" = "$live"

# a kv run's allocator calls, emitted, replay to the same resident bytes
expect_status 0 "gen kv" "$RSSIM" gen kv --keys 5000 --events 50000 --seed 3 -o "$T/k.bin"
expect_status 0 "replay kv emitting" "$RSSIM" replay "$T/k.bin" --preset kv-small --set kv_cache_limit=1M \
  --emit-alloc-trace "$T/k.alloc.bin" --db "$T/e.db"
check "emitted trace exists" test -s "$T/k.alloc.bin"
expect_status 0 "emitted trace stats" "$RSSIM" trace stats "$T/k.alloc.bin"
stdout_has "emitted is an alloc trace" "daemon *alloc"
expect_status 0 "replay emitted" "$RSSIM" replay "$T/k.alloc.bin" --preset kv-small --set daemon=alloc --db "$T/e.db"
same=$(sql "$T/e.db" "select count(*) from samples a join samples b on a.t_ns = b.t_ns where a.run_id = 1 and b.run_id = 2 and a.resident_bytes = b.resident_bytes and a.allocated_bytes = b.allocated_bytes")
common=$(sql "$T/e.db" "select count(*) from samples a join samples b on a.t_ns = b.t_ns where a.run_id = 1 and b.run_id = 2")
check "emitted replay: every common sample equal ($same of $common)" test "$same" = "$common" -a "$common" -gt 3
expect_status 2 "emit into a missing folder fails as input" "$RSSIM" replay "$T/k.bin" --preset kv-small --emit-alloc-trace "$T/no/such/dir/x.bin" --db "$T/e.db"

# breakdown plot of the kv run
expect_status 0 "breakdown png" "$RSSIM" plot breakdown --db "$T/e.db" --run 1 -o "$T/bd.png"
check "breakdown png" test "$(wc -c < "$T/bd.png")" -gt 10240
expect_status 0 "breakdown txt" "$RSSIM" plot breakdown --db "$T/e.db" --run 1 -o "$T/bd.txt"
check "breakdown legend" grep -q "untracked containers" "$T/bd.txt"
for m in accounted untracked rounding caches metadata fragmentation base; do
  check "decomposition metric rss_${m}_bytes" test -n "$(sql "$T/e.db" "select value from metrics where run_id=1 and name='rss_${m}_bytes'")"
done

# bad alloc records: FILE:LINE, exit 2, run failed
hdr=$(printf '#rssim-trace\tv1\tdaemon=alloc\nt_ns\top\tkey\tsize_bytes\tthread\taux')
printf '%s\n0\tMALLOC\t1\t100\t0\t0\n5\tFREE\t2\t100\t0\t0\n' "$hdr" > "$T/b1.tsv"
expect_status 2 "free of unknown handle" "$RSSIM" replay "$T/b1.tsv" --preset kv-small --set daemon=alloc --db "$T/b.db"
stderr_has "file:line named" "b1.tsv:4: FREE of handle 2"
printf '%s\n0\tMALLOC\t1\t100\t0\t0\n5\tMALLOC\t1\t100\t0\t0\n' "$hdr" > "$T/b2.tsv"
expect_status 2 "handle allocated twice" "$RSSIM" replay "$T/b2.tsv" --preset kv-small --set daemon=alloc --db "$T/b.db"
stderr_has "twice named" "b2.tsv:4: MALLOC of handle 1"
printf '%s\n0\tMALLOC\t1\t100\t0\t0\n5\tFREE\t1\t64\t0\t0\n' "$hdr" > "$T/b3.tsv"
expect_status 2 "free with the wrong size" "$RSSIM" replay "$T/b3.tsv" --preset kv-small --set daemon=alloc --db "$T/b.db"
stderr_has "size named" "b3.tsv:4: FREE of handle 1 .*size_bytes 64, but it was allocated with 100"
check "bad runs are failed" test "$(sql "$T/b.db" "select count(*) from runs where status='failed'")" = 3
finish
