# trace_id: a trace's identity (SHA-256) is remembered in the database by
# its file's stat identity, read back instead of re-hashing, and never
# trusted once the file changes (docs/store.md, trace_ids).
. "$(dirname "$0")/lib.sh"

expect_status 0 "gen kv" "$RSSIM" gen kv --keys 500 --events 5000 --seed 3 -o "$T/t.bin"
real=$(sha256sum "$T/t.bin" | cut -d' ' -f1)
expect_status 0 "replay of a fresh file" "$RSSIM" replay "$T/t.bin" --preset kv-small --db "$T/db"
check "its sha is the file's" test "$(sql "$T/db" "select trace_sha256 from runs where id=1")" = "$real"
check "a file changed under 2 s ago is not remembered" test "$(sql "$T/db" "select count(*) from trace_ids")" = 0

sleep 2.2
expect_status 0 "replay of a settled file" "$RSSIM" replay "$T/t.bin" --preset kv-small --db "$T/db"
check "remembered" test "$(sql "$T/db" "select sha256 from trace_ids")" = "$real"
check "run 2 has the file's sha" test "$(sql "$T/db" "select trace_sha256 from runs where id=2")" = "$real"

# the remembered identity is what the next run uses (no re-hash): a planted
# value shows through while the file is unchanged...
fake=$(printf 'f%.0s' $(seq 64))
sql "$T/db" "update trace_ids set sha256='$fake'"
expect_status 0 "replay, identity from the database" "$RSSIM" replay "$T/t.bin" --preset kv-small --db "$T/db"
check "read back, not re-hashed" test "$(sql "$T/db" "select trace_sha256 from runs where id=3")" = "$fake"
expect_status 0 "sweep, identity from the database" "$RSSIM" sweep "$T/t.bin" --preset kv-small --vary kv_cache_limit=1M,2M --db "$T/db"
check "the sweep's too" test "$(sql "$T/db" "select trace_sha256 from sweeps")" = "$fake"

# ...and not once the file changes in place (same size, same inode)
size=$(stat -c %s "$T/t.bin")
printf '\377' | dd of="$T/t.bin" bs=1 seek=$((size - 1)) conv=notrunc status=none
check "same size" test "$(stat -c %s "$T/t.bin")" = "$size"
changed=$(sha256sum "$T/t.bin" | cut -d' ' -f1)
"$RSSIM" replay "$T/t.bin" --preset kv-small --db "$T/db" >/dev/null 2>&1
check "changed file re-hashed" test "$(sql "$T/db" "select trace_sha256 from runs order by id desc limit 1")" = "$changed"
check "and not the stale identity" test "$changed" != "$fake"

# same size and the old mtime put back (touch -d): the ctime still moved
sleep 2.2
"$RSSIM" replay "$T/t.bin" --preset kv-small --db "$T/db" >/dev/null 2>&1
check "the changed file is remembered once settled" test "$(sql "$T/db" "select count(*) from trace_ids where sha256 = '$changed'")" = 1
mtime=$(stat -c %y "$T/t.bin")
printf '\376' | dd of="$T/t.bin" bs=1 seek=$((size - 1)) conv=notrunc status=none
touch -d "$mtime" "$T/t.bin"
check "same mtime" test "$(stat -c %y "$T/t.bin")" = "$mtime"
again=$(sha256sum "$T/t.bin" | cut -d' ' -f1)
"$RSSIM" replay "$T/t.bin" --preset kv-small --db "$T/db" >/dev/null 2>&1
check "same size and mtime, new content: re-hashed" test "$(sql "$T/db" "select trace_sha256 from runs order by id desc limit 1")" = "$again"
check "not the remembered identity" test "$again" != "$changed"

# a copy (another inode) is hashed on its own
cp "$T/t.bin" "$T/u.bin"
"$RSSIM" replay "$T/u.bin" --preset kv-small --db "$T/db" >/dev/null 2>&1
check "a copy has its real sha" test "$(sql "$T/db" "select trace_sha256 from runs order by id desc limit 1")" = "$(sha256sum "$T/u.bin" | cut -d' ' -f1)"
finish
