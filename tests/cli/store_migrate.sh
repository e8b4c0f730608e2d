# store_migrate: a version-5 database (tests/cli/store-v5.sql, made by the
# rssim of version 5) is migrated to version 6 by a writing command: runs
# rebuilt so that kind may be 'observed', every id and every row that
# references a run kept; a read-only command refuses it until then; a
# database whose rows reference a missing run is left as it was.
. "$(dirname "$0")/lib.sh"

DB=$T/v5.db
check "v5 fixture loads" sqlite3 -bail "$DB" ".read $SRC/tests/cli/store-v5.sql"
counts() { sql "$1" "SELECT (SELECT count(*) FROM runs), (SELECT count(*) FROM params),
  (SELECT count(*) FROM samples), (SELECT count(*) FROM metrics), (SELECT count(*) FROM plan_evals),
  (SELECT count(*) FROM node_members), (SELECT count(*) FROM claims)"; }
not_sql() { ! sql "$@" 2>/dev/null; }
before=$(counts "$DB")
check "fixture has rows" [ "$before" = "3|3|5|4|1|1|1" ]

expect_status 1 "read-only open of v5 refused" "$RSSIM" runs list --db "$DB"
stderr_has "names both versions" "schema version 5; this rssim reads version 6"
stderr_has "names the migrating command" "rssim runs init --db"

expect_status 0 "runs init migrates" "$RSSIM" runs init --db "$DB"
check "version 6" [ "$(sql "$DB" "SELECT value FROM meta WHERE key = 'schema_version'")" = 6 ]
check "every row kept" [ "$(counts "$DB")" = "$before" ]
check "ids and kinds kept" [ "$(sql "$DB" "SELECT group_concat(id || kind, ',') FROM (SELECT * FROM runs ORDER BY id)")" = "3predicted,5predicted,9measured" ]
check "sweep points kept" [ "$(sql "$DB" "SELECT group_concat(sweep_id || ':' || point_index) FROM runs WHERE sweep_id IS NOT NULL")" = "1:0,1:1" ]
check "samples still reach their run" [ "$(sql "$DB" "SELECT sum(s.rss_bytes) FROM samples s JOIN runs r ON r.id = s.run_id WHERE r.kind = 'measured'")" = 81000000 ]
check "no dangling reference" [ -z "$(sql "$DB" "PRAGMA foreign_key_check")" ]
check "integrity" [ "$(sql "$DB" "PRAGMA integrity_check")" = ok ]
check "indexes back" [ "$(sql "$DB" "SELECT count(*) FROM sqlite_schema WHERE type = 'index' AND name IN ('runs_sweep_point', 'runs_status')")" = 2 ]
check "no leftover table" [ -z "$(sql "$DB" "SELECT name FROM sqlite_schema WHERE name = 'runs_v6'")" ]
check "kind observed accepted" sql "$DB" "INSERT INTO runs(kind, status, created_at, version, seed) VALUES ('observed', 'done', 'now', 'x', 0)"
check "another kind still refused" not_sql "$DB" "INSERT INTO runs(kind, status, created_at, version, seed) VALUES ('guessed', 'done', 'now', 'x', 0)"
# foreign keys still enforced after the migration: deleting a run cascades
check "cascade" sql "$DB" "PRAGMA foreign_keys = ON; DELETE FROM claims; DELETE FROM plan_evals; DELETE FROM node_members; DELETE FROM runs WHERE id = 9"
check "cascade deleted the samples" [ "$(sql "$DB" "SELECT count(*) FROM samples WHERE run_id = 9")" = 0 ]
expect_status 0 "runs list reads it" "$RSSIM" runs list --db "$DB"
stdout_has "run 3 listed" "^ *3 *predicted"
expect_status 0 "a second init changes nothing" "$RSSIM" runs init --db "$DB"

# a database with a sample whose run is missing: the rebuild's check finds
# it and the file stays at version 5, untouched
BAD=$T/bad.db
sqlite3 -bail "$BAD" ".read $SRC/tests/cli/store-v5.sql" "INSERT INTO samples(run_id, t_ns) VALUES (77, 0)"
expect_status 1 "dangling reference refused" "$RSSIM" runs init --db "$BAD"
stderr_has "names the table" "table samples row .* references a missing runs row"
check "still version 5" [ "$(sql "$BAD" "SELECT value FROM meta WHERE key = 'schema_version'")" = 5 ]
check "runs untouched" [ "$(sql "$BAD" "SELECT sql LIKE '%observed%' FROM sqlite_schema WHERE name = 'runs'")" = 0 ]
finish
