/*
 * store.c — the SQLite store of runs; see store.h and docs/store.md.
 *
 * Design: one connection per handle, every statement prepared once at open
 * and reset after each use.  The sample insert is the bulk path: 32 rows
 * per multi-row INSERT inside the run's one transaction (about 3.5e5
 * samples/s; one row per statement was 2e5/s).  Every write that touches more
 * than one row runs inside BEGIN IMMEDIATE ... COMMIT: IMMEDIATE takes the
 * write lock up front, so with WAL and the busy timeout concurrent writers
 * queue instead of failing with SQLITE_BUSY on a read-to-write upgrade.  On
 * any failure the transaction is rolled back and the caller gets RS_EDB with
 * SQLite's message and the database path.
 *
 * The samples table is generated from result.h's X-macros, so the sampler,
 * the schema and the export can never disagree.  Sample integers are stored
 * as SQLite's signed 64-bit INTEGER (values above 2^63 would wrap; no byte
 * count gets there).  seed (uint64) is stored as its two's-complement int64.
 * NaN reals are stored as NULL (SQLite's own rule).  Timestamps come from
 * SQLite (UTC), so this file reads no clock.
 */
#include "store.h"

#include "../traces/trace.h"

#include <errno.h>
#include <inttypes.h>
#include <sqlite3.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#define SCHEMA_VERSION "6" /* 2: allocator-native sample columns; 3: tcmalloc caches;
                             * 4: plans, plan_evals (migrated from 3 by adding them);
                             * 5: nodes, node_members, node_samples, node_metrics
                             *    (migrated from 3 or 4 by adding the missing tables); claims (who
                             *    runs a sweep point) is created when missing;
                             * 6: runs.kind may be 'observed' (a daemon's own dumps,
                             *    `rssim observe import`): migrated from 3, 4 or 5 by
                             *    rebuilding runs (runs_rebuild), ids kept */
#define NOW "strftime('%Y-%m-%dT%H:%M:%fZ','now')"
#define BUSY_TIMEOUT_MS 60000

/* Column lists generated from result.h. */
#define COL_NAME(name) ", " #name
#define COL_QMARK(name) ",?"
#define SAMPLE_ROW "(?" RS_SAMPLE_INT_COLUMNS(COL_QMARK) RS_SAMPLE_REAL_COLUMNS(COL_QMARK) ")"
#define SAMPLE_ROWS_2 SAMPLE_ROW "," SAMPLE_ROW
#define SAMPLE_ROWS_4 SAMPLE_ROWS_2 "," SAMPLE_ROWS_2
#define SAMPLE_ROWS_8 SAMPLE_ROWS_4 "," SAMPLE_ROWS_4
#define SAMPLE_ROWS_16 SAMPLE_ROWS_8 "," SAMPLE_ROWS_8
#define SAMPLE_ROWS_32 SAMPLE_ROWS_16 "," SAMPLE_ROWS_16
#define SAMPLE_BATCH 32 /* rows per multi-row insert: 1.5x faster than one by one */
#define SAMPLE_INSERT_INTO \
    "INSERT INTO samples(run_id" RS_SAMPLE_INT_COLUMNS(COL_NAME) RS_SAMPLE_REAL_COLUMNS(COL_NAME) ") VALUES"
#define COL_INT_DEF(name) ", " #name " INTEGER NOT NULL DEFAULT 0"
#define COL_REAL_DEF(name) ", " #name " REAL"

/* The runs table's columns, shared by the schema and its rebuild. */
#define RUNS_COLUMNS \
    "(id INTEGER PRIMARY KEY," \
    " kind TEXT NOT NULL CHECK (kind IN ('predicted','measured','observed'))," \
    " status TEXT NOT NULL CHECK (status IN ('pending','running','done','failed'))," \
    " created_at TEXT NOT NULL, started_at TEXT, finished_at TEXT," \
    " version TEXT NOT NULL," \
    " trace_path TEXT, trace_sha256 TEXT, preset TEXT," \
    " seed INTEGER NOT NULL, param_hash TEXT," \
    " sweep_id INTEGER REFERENCES sweeps(id), point_index INTEGER," \
    " label TEXT, events INTEGER, wall_ns INTEGER, error TEXT)"
#define RUNS_COLUMN_NAMES \
    "id, kind, status, created_at, started_at, finished_at, version, trace_path," \
    " trace_sha256, preset, seed, param_hash, sweep_id, point_index, label, events, wall_ns," \
    " error"

/* Version 3, 4 or 5 to 6: the CHECK on runs.kind gains 'observed'.  SQLite
 * cannot alter a CHECK, so the table is rebuilt (its documented procedure,
 * "Making Other Kinds Of Table Schema Changes" of lang_altertable.html):
 * a new table, every row copied with its id, the old one dropped, the new
 * one renamed; the indexes come back from schema_sql.  Runs inside the
 * migration's transaction with foreign keys off (they cannot be switched
 * inside one), so dropping the old table does not cascade into samples. */
static const char runs_rebuild_sql[] =
    "CREATE TABLE runs_v6" RUNS_COLUMNS ";"
    "INSERT INTO runs_v6(" RUNS_COLUMN_NAMES ") SELECT " RUNS_COLUMN_NAMES " FROM runs;"
    "DROP TABLE runs;"
    "ALTER TABLE runs_v6 RENAME TO runs;";

static const char schema_sql[] =
    "CREATE TABLE IF NOT EXISTS meta("
    " key TEXT PRIMARY KEY, value TEXT NOT NULL);"
    "CREATE TABLE IF NOT EXISTS sweeps("
    " id INTEGER PRIMARY KEY,"
    " spec_hash TEXT NOT NULL UNIQUE,"
    " created_at TEXT NOT NULL,"
    " trace_path TEXT, trace_sha256 TEXT, preset TEXT, spec TEXT, varied_keys TEXT,"
    " points INTEGER, jobs INTEGER,"
    " status TEXT NOT NULL DEFAULT 'pending');"
    "CREATE TABLE IF NOT EXISTS runs" RUNS_COLUMNS ";"
    "CREATE UNIQUE INDEX IF NOT EXISTS runs_sweep_point ON runs(sweep_id, point_index)"
    " WHERE sweep_id IS NOT NULL;"
    "CREATE INDEX IF NOT EXISTS runs_status ON runs(status);"
    /* who runs a sweep point now (rs_store_point_claim): a point another
     * live process holds is skipped, not computed twice */
    "CREATE TABLE IF NOT EXISTS claims("
    " run_id INTEGER PRIMARY KEY REFERENCES runs(id) ON DELETE CASCADE,"
    " owner TEXT NOT NULL);"
    /* trace identities already computed (rs_store_trace_sha256): the file's
     * stat identity -> its SHA-256 */
    "CREATE TABLE IF NOT EXISTS trace_ids("
    " dev INTEGER NOT NULL, ino INTEGER NOT NULL, size INTEGER NOT NULL,"
    " mtime_ns INTEGER NOT NULL, ctime_ns INTEGER NOT NULL,"
    " sha256 TEXT NOT NULL, seen_at TEXT NOT NULL,"
    " PRIMARY KEY (dev, ino, size, mtime_ns, ctime_ns)) WITHOUT ROWID;"
    "CREATE TABLE IF NOT EXISTS params("
    " run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
    " key TEXT NOT NULL, value TEXT NOT NULL,"
    " PRIMARY KEY (run_id, key)) WITHOUT ROWID;"
    "CREATE TABLE IF NOT EXISTS samples("
    " run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE"
    RS_SAMPLE_INT_COLUMNS(COL_INT_DEF) RS_SAMPLE_REAL_COLUMNS(COL_REAL_DEF)
    ", PRIMARY KEY (run_id, t_ns)) WITHOUT ROWID;"
    "CREATE TABLE IF NOT EXISTS metrics("
    " run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
    " name TEXT NOT NULL, value REAL,"
    " PRIMARY KEY (run_id, name)) WITHOUT ROWID;"
    "CREATE TABLE IF NOT EXISTS plans("
    " id INTEGER PRIMARY KEY,"
    " created_at TEXT NOT NULL,"
    " status TEXT NOT NULL CHECK (status IN ('running','done','failed')),"
    " preset TEXT, workload TEXT, limit_key TEXT,"
    " ram_bytes INTEGER, daemons INTEGER, headroom REAL, quantile TEXT, seeds INTEGER,"
    " tol_rel REAL, rule_factor REAL,"
    " outcome TEXT, limit_bytes INTEGER, verdict TEXT);"
    "CREATE TABLE IF NOT EXISTS plan_evals("
    " plan_id INTEGER NOT NULL REFERENCES plans(id) ON DELETE CASCADE,"
    " run_id INTEGER NOT NULL REFERENCES runs(id),"
    " seed INTEGER NOT NULL, limit_bytes INTEGER NOT NULL, reused INTEGER NOT NULL,"
    " PRIMARY KEY (plan_id, run_id)) WITHOUT ROWID;"
    "CREATE TABLE IF NOT EXISTS nodes("
    " id INTEGER PRIMARY KEY,"
    " created_at TEXT NOT NULL,"
    " spec TEXT NOT NULL, ram_bytes INTEGER, headroom REAL, interval_ns INTEGER NOT NULL,"
    " end_ns INTEGER NOT NULL, steady_from_ns INTEGER NOT NULL, verdict TEXT);"
    "CREATE TABLE IF NOT EXISTS node_members("
    " node_id INTEGER NOT NULL REFERENCES nodes(id) ON DELETE CASCADE,"
    " member INTEGER NOT NULL, copy INTEGER NOT NULL,"
    " run_id INTEGER NOT NULL REFERENCES runs(id),"
    " offset_ns INTEGER NOT NULL, reused INTEGER NOT NULL,"
    " PRIMARY KEY (node_id, member, copy)) WITHOUT ROWID;"
    "CREATE TABLE IF NOT EXISTS node_samples("
    " node_id INTEGER NOT NULL REFERENCES nodes(id) ON DELETE CASCADE,"
    " t_ns INTEGER NOT NULL, rss_bytes INTEGER NOT NULL, accounted_bytes INTEGER NOT NULL,"
    " resident_bytes INTEGER NOT NULL, base_bytes INTEGER NOT NULL,"
    " PRIMARY KEY (node_id, t_ns)) WITHOUT ROWID;"
    "CREATE TABLE IF NOT EXISTS node_metrics("
    " node_id INTEGER NOT NULL REFERENCES nodes(id) ON DELETE CASCADE,"
    " name TEXT NOT NULL, value REAL,"
    " PRIMARY KEY (node_id, name)) WITHOUT ROWID;"
    "UPDATE meta SET value = '" SCHEMA_VERSION "' WHERE key = 'schema_version'"
    " AND value IN ('3', '4', '5');"
    "INSERT OR IGNORE INTO meta(key, value) VALUES('schema_version', '" SCHEMA_VERSION "');";

/* The prepared statements of a read-write handle. */
enum {
    ST_BEGIN,
    ST_COMMIT,
    ST_RUN_INSERT,
    ST_PARAM_INSERT,
    ST_SAMPLE_INSERT,
    ST_SAMPLE_INSERT_BATCH,
    ST_METRIC_INSERT,
    ST_SAMPLES_DELETE,
    ST_METRICS_DELETE,
    ST_RUN_DONE,
    ST_RUN_FAIL,
    ST_RUN_STATUS,
    ST_RUN_CLAIM,
    ST_SWEEP_INSERT,
    ST_SWEEP_FIND,
    ST_POINT_FIND,
    ST_SWEEP_STATUS,
    ST_METRIC_SET,
    ST_PLAN_INSERT,
    ST_PLAN_EVAL_INSERT,
    ST_PLAN_FINISH,
    ST_COUNT
};

static const char *const stmt_sql[ST_COUNT] = {
    [ST_BEGIN] = "BEGIN IMMEDIATE",
    [ST_COMMIT] = "COMMIT",
    [ST_RUN_INSERT] =
        "INSERT INTO runs(kind, status, created_at, started_at, version, trace_path,"
        " trace_sha256, preset, seed, param_hash, sweep_id, point_index, label)"
        " VALUES(?1, ?2, " NOW ", CASE WHEN ?2 = 'running' THEN " NOW " END,"
        " ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)",
    [ST_PARAM_INSERT] = "INSERT INTO params(run_id, key, value) VALUES(?1, ?2, ?3)",
    [ST_SAMPLE_INSERT] = SAMPLE_INSERT_INTO SAMPLE_ROW,
    [ST_SAMPLE_INSERT_BATCH] = SAMPLE_INSERT_INTO SAMPLE_ROWS_32,
    [ST_METRIC_INSERT] = "INSERT INTO metrics(run_id, name, value) VALUES(?1, ?2, ?3)",
    [ST_SAMPLES_DELETE] = "DELETE FROM samples WHERE run_id = ?1",
    [ST_METRICS_DELETE] = "DELETE FROM metrics WHERE run_id = ?1",
    [ST_RUN_DONE] = "UPDATE runs SET status = 'done', finished_at = " NOW ","
                    " events = ?2, wall_ns = ?3, error = NULL WHERE id = ?1",
    [ST_RUN_FAIL] = "UPDATE runs SET status = 'failed', finished_at = " NOW ","
                    " error = ?2 WHERE id = ?1",
    [ST_RUN_STATUS] = "SELECT status FROM runs WHERE id = ?1",
    [ST_RUN_CLAIM] = "UPDATE runs SET status = 'running', started_at = " NOW ","
                     " finished_at = NULL, error = NULL WHERE id = ?1 AND status <> 'done'",
    [ST_SWEEP_INSERT] =
        "INSERT INTO sweeps(spec_hash, created_at, trace_path, trace_sha256, preset,"
        " spec, varied_keys, points, jobs)"
        " VALUES(?1, " NOW ", ?2, ?3, ?4, ?5, ?6, ?7, ?8)"
        " ON CONFLICT(spec_hash) DO NOTHING",
    [ST_SWEEP_FIND] = "SELECT id FROM sweeps WHERE spec_hash = ?1",
    [ST_POINT_FIND] = "SELECT id, param_hash FROM runs WHERE sweep_id = ?1 AND point_index = ?2",
    [ST_SWEEP_STATUS] = "UPDATE sweeps SET status = ?2 WHERE id = ?1",
    [ST_METRIC_SET] = "INSERT OR REPLACE INTO metrics(run_id, name, value) VALUES(?1, ?2, ?3)",
    [ST_PLAN_INSERT] =
        "INSERT INTO plans(created_at, status, preset, workload, limit_key, ram_bytes, daemons,"
        " headroom, quantile, seeds, tol_rel, rule_factor)"
        " VALUES(" NOW ", 'running', ?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
    [ST_PLAN_EVAL_INSERT] = "INSERT OR IGNORE INTO plan_evals(plan_id, run_id, seed, limit_bytes,"
                            " reused) VALUES(?1, ?2, ?3, ?4, ?5)",
    [ST_PLAN_FINISH] = "UPDATE plans SET status = ?2, outcome = ?3, limit_bytes = ?4, verdict = ?5"
                       " WHERE id = ?1",
};

struct rs_store {
    sqlite3 *db;
    char *path;                     /* as given, for messages */
    int readonly;                   /* opened by rs_store_open_ro: no statements */
    int batch;                      /* inside rs_store_batch_begin: writes join its transaction */
    sqlite3_stmt *stmt[ST_COUNT];   /* prepared once, reset after each use */
};

/* Fill err with RS_EDB: "<what> in '<path>': <sqlite message>"; a file
 * that is not a database or a malformed one is the user's input
 * (RS_EINPUT, exit 2), as a malformed trace is. */
static int db_fail(rs_store *st, rs_err *err, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int db_fail(rs_store *st, rs_err *err, const char *fmt, ...)
{
    char what[512];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    if (!st->db)
        return rs_fail(err, RS_EDB, "%s in '%s': out of memory", what, st->path);
    int code = sqlite3_errcode(st->db) & 0xff, os_errno = sqlite3_system_errno(st->db);
    if (os_errno && (code == SQLITE_IOERR || code == SQLITE_FULL || code == SQLITE_CANTOPEN))
        return rs_fail(err, RS_EDB, "%s in '%s': %s (%s)", what, st->path,
                       sqlite3_errmsg(st->db), strerror(os_errno));
    return rs_fail(err, code == SQLITE_NOTADB || code == SQLITE_CORRUPT ? RS_EINPUT : RS_EDB,
                   "%s in '%s': %s", what, st->path, sqlite3_errmsg(st->db));
}

/* 1 when column col of s's row is the text v: NULL is no text (a damaged
 * or hand-edited file may hold one where the schema says NOT NULL). */
static int col_is(sqlite3_stmt *s, int col, const char *v)
{
    const char *t = (const char *)sqlite3_column_text(s, col);
    return t && !strcmp(t, v);
}

/* Step a statement that returns no row (or whose rows are ignored) and
 * reset it.  Returns the step's result code (SQLITE_DONE on success);
 * sqlite3_errmsg still describes a failure afterwards. */
static int step_reset(sqlite3_stmt *s)
{
    int rc = sqlite3_step(s);
    while (rc == SQLITE_ROW)
        rc = sqlite3_step(s);
    sqlite3_reset(s);
    return rc;
}

static int tx_begin(rs_store *st, rs_err *err, const char *what)
{
    if (st->batch)
        return 0; /* inside rs_store_batch_begin's transaction */
    if (step_reset(st->stmt[ST_BEGIN]) != SQLITE_DONE)
        return db_fail(st, err, "cannot start a transaction to %s", what);
    return 0;
}

static int tx_commit(rs_store *st, rs_err *err, const char *what)
{
    if (st->batch)
        return 0;
    if (step_reset(st->stmt[ST_COMMIT]) != SQLITE_DONE)
        return db_fail(st, err, "cannot commit %s", what);
    return 0;
}

/* Roll back the open transaction, if any; keeps the first error's message. */
static void tx_rollback(rs_store *st)
{
    st->batch = 0; /* a failure inside a batch undoes all of it */
    if (!sqlite3_get_autocommit(st->db))
        sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
}

static int check_writable(rs_store *st, rs_err *err)
{
    if (st->readonly)
        return rs_fail(err, RS_EDB, "database '%s' was opened read-only", st->path);
    return 0;
}

static void store_free(rs_store *st)
{
    if (!st)
        return;
    for (int i = 0; i < ST_COUNT; i++)
        sqlite3_finalize(st->stmt[i]);
    sqlite3_close_v2(st->db);
    free(st->path);
    free(st);
}

static int store_alloc(rs_store **r_st, const char *path, rs_err *err)
{
    rs_store *st = calloc(1, sizeof *st);
    if (!st || !(st->path = strdup(path))) {
        free(st);
        return rs_fail(err, RS_ENOMEM, "out of memory opening database '%s'", path);
    }
    *r_st = st;
    return 0;
}

/* Switch to WAL.  Two processes creating a new file at once can get
 * SQLITE_BUSY here without the busy handler being called (the switch needs
 * an exclusive lock), so retry for up to the busy timeout. */
static int wal_enable(rs_store *st, rs_err *err)
{
    static const char sql[] = "PRAGMA journal_mode = WAL";
    sqlite3_stmt *s = NULL;
    int rc;

    if (sqlite3_prepare_v2(st->db, sql, -1, &s, NULL) != SQLITE_OK)
        return db_fail(st, err, "cannot prepare '%s'", sql);
    for (int waited_ms = 0;; waited_ms += 10) {
        rc = sqlite3_step(s);
        if ((rc & 0xff) != SQLITE_BUSY || waited_ms >= BUSY_TIMEOUT_MS)
            break;
        sqlite3_reset(s);
        sqlite3_sleep(10);
    }
    if (rc == SQLITE_ROW) {
        const char *mode = (const char *)sqlite3_column_text(s, 0);
        if (!mode || strcmp(mode, "wal") != 0)
            rc = rs_fail(err, RS_EDB, "cannot use WAL mode in '%s': journal mode stays '%s'",
                         st->path, mode ? mode : "(null)");
        else
            rc = 0;
    } else {
        rc = db_fail(st, err, "cannot switch to WAL mode");
    }
    sqlite3_finalize(s);
    return rc;
}

/* The schema version stored in meta, checked against SCHEMA_VERSION. */
static int check_version(rs_store *st, rs_err *err)
{
    sqlite3_stmt *s = NULL;
    int rc;

    if (sqlite3_prepare_v2(st->db, "SELECT value FROM meta WHERE key = 'schema_version'", -1,
                           &s, NULL) != SQLITE_OK) {
        if (strstr(sqlite3_errmsg(st->db), "no such table"))
            return rs_fail(err, RS_EINPUT, "'%s' is not an rssim database (no meta table)",
                           st->path);
        return db_fail(st, err, "cannot read the schema version");
    }
    rc = sqlite3_step(s);
    if (rc != SQLITE_ROW) {
        if (rc == SQLITE_DONE)
            rs_fail(err, RS_EINPUT, "'%s' is not an rssim database (no schema_version)",
                    st->path);
        else
            db_fail(st, err, "cannot read the schema version");
        sqlite3_finalize(s);
        return err ? err->code : RS_EDB;
    }
    const char *v = (const char *)sqlite3_column_text(s, 0);
    if (!v || strcmp(v, SCHEMA_VERSION) != 0) {
        rs_fail(err, RS_EDB, "database '%s' has schema version %s; this rssim reads version %s%s",
                st->path, v ? v : "(null)", SCHEMA_VERSION,
                v && (!strcmp(v, "3") || !strcmp(v, "4") || !strcmp(v, "5"))
                    ? " (any writing command, e.g. 'rssim runs init --db', migrates it)" : "");
        sqlite3_finalize(s);
        return RS_EDB;
    }
    sqlite3_finalize(s);
    return 0;
}

static int store_connect(rs_store *st, int flags, rs_err *err)
{
    /* A handle belongs to one thread at a time: no per-call mutex. */
    if (sqlite3_open_v2(st->path, &st->db, flags | SQLITE_OPEN_NOMUTEX, NULL) != SQLITE_OK)
        return db_fail(st, err, "cannot open database");
    sqlite3_extended_result_codes(st->db, 1);
    if (sqlite3_busy_timeout(st->db, BUSY_TIMEOUT_MS) != SQLITE_OK)
        return db_fail(st, err, "cannot set the busy timeout");
    if (sqlite3_exec(st->db, "PRAGMA foreign_keys = ON", NULL, NULL, NULL) != SQLITE_OK)
        return db_fail(st, err, "cannot enable foreign keys");
    return 0;
}

static int stmts_prepare(rs_store *st, int first, int last, rs_err *err)
{
    for (int i = first; i <= last; i++)
        if (sqlite3_prepare_v3(st->db, stmt_sql[i], -1, SQLITE_PREPARE_PERSISTENT,
                               &st->stmt[i], NULL) != SQLITE_OK)
            return db_fail(st, err, "cannot prepare '%.60s'", stmt_sql[i]);
    return 0;
}

/* 1 when the runs table exists with a CHECK that refuses 'observed' (a
 * database of version 3 to 5), 0 when not, -1 when SQLite fails. */
static int runs_needs_rebuild(rs_store *st)
{
    sqlite3_stmt *s = NULL;
    int r = 0;
    if (sqlite3_prepare_v2(st->db, "SELECT sql FROM sqlite_schema WHERE type = 'table'"
                           " AND name = 'runs'", -1, &s, NULL) != SQLITE_OK)
        return -1;
    int rc = sqlite3_step(s);
    if (rc == SQLITE_ROW) {
        const char *sql = (const char *)sqlite3_column_text(s, 0);
        r = sql && !strstr(sql, "'observed'");
    } else if (rc != SQLITE_DONE) {
        r = -1;
    }
    sqlite3_finalize(s);
    return r;
}

/* Any row that references a run that is not there (after the rebuild). */
static int fk_check(rs_store *st, rs_err *err)
{
    sqlite3_stmt *s = NULL;
    if (sqlite3_prepare_v2(st->db, "PRAGMA foreign_key_check", -1, &s, NULL) != SQLITE_OK)
        return db_fail(st, err, "cannot check the foreign keys");
    int rc = sqlite3_step(s);
    if (rc == SQLITE_ROW) {
        rs_fail(err, RS_EDB, "database '%s': table %s row %lld references a missing %s row "
                "after the migration; nothing was changed", st->path,
                (const char *)sqlite3_column_text(s, 0), (long long)sqlite3_column_int64(s, 1),
                (const char *)sqlite3_column_text(s, 2));
        sqlite3_finalize(s);
        return RS_EDB;
    }
    sqlite3_finalize(s);
    return rc == SQLITE_DONE ? 0 : db_fail(st, err, "cannot check the foreign keys");
}

/* Create what is missing, migrate and check the version, in one
 * transaction, so that processes opening a new file at once do not race. */
static int schema_migrate(rs_store *st, rs_err *err)
{
    int rc, rebuild;

    /* off for the rebuild (DROP TABLE runs would cascade); not settable
     * inside a transaction */
    if (sqlite3_exec(st->db, "PRAGMA foreign_keys = OFF", NULL, NULL, NULL) != SQLITE_OK)
        return db_fail(st, err, "cannot disable foreign keys to migrate");
    if ((rc = tx_begin(st, err, "create the schema")))
        goto on;
    if ((rebuild = runs_needs_rebuild(st)) < 0)
        rc = db_fail(st, err, "cannot read the schema");
    else if (rebuild && sqlite3_exec(st->db, runs_rebuild_sql, NULL, NULL, NULL) != SQLITE_OK)
        rc = db_fail(st, err, "cannot rebuild the runs table to schema version " SCHEMA_VERSION);
    else if (sqlite3_exec(st->db, schema_sql, NULL, NULL, NULL) != SQLITE_OK)
        rc = db_fail(st, err, "cannot create the schema");
    else if (!(rc = check_version(st, err)) && !(rc = rebuild ? fk_check(st, err) : 0))
        rc = tx_commit(st, err, "the schema");
    if (rc)
        tx_rollback(st);
on:
    if (sqlite3_exec(st->db, "PRAGMA foreign_keys = ON", NULL, NULL, NULL) != SQLITE_OK && !rc)
        rc = db_fail(st, err, "cannot enable foreign keys");
    return rc;
}

int rs_store_open(rs_store **r_st, const char *path, rs_err *err)
{
    rs_store *st = NULL;
    int rc;

    *r_st = NULL;
    if ((rc = store_alloc(&st, path, err)))
        return rc;
    rc = store_connect(st, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, err);
    if (rc)
        goto fail;
    if (sqlite3_db_readonly(st->db, "main") == 1) {
        rc = rs_fail(err, RS_EDB, "cannot write to database '%s': the file is read-only", path);
        goto fail;
    }
    if ((rc = wal_enable(st, err)))
        goto fail;
    if (sqlite3_exec(st->db, "PRAGMA synchronous = NORMAL", NULL, NULL, NULL) != SQLITE_OK) {
        rc = db_fail(st, err, "cannot set synchronous = NORMAL");
        goto fail;
    }
    /* BEGIN and COMMIT first, to migrate; the others need the tables. */
    if ((rc = stmts_prepare(st, ST_BEGIN, ST_COMMIT, err)) || (rc = schema_migrate(st, err)) ||
        (rc = stmts_prepare(st, ST_COMMIT + 1, ST_COUNT - 1, err)))
        goto fail;
    *r_st = st;
    return 0;
fail:
    store_free(st);
    return rc;
}

/* 1 when path-wal exists and is not empty (commits not yet in the main file). */
static int wal_pending(const char *path)
{
    char wal[4200];
    struct stat sb;
    if ((size_t)snprintf(wal, sizeof wal, "%s-wal", path) >= sizeof wal)
        return 1;
    return stat(wal, &sb) == 0 && sb.st_size > 0;
}

/* Reopen st read-only as an immutable file ("file:PATH?immutable=1"). */
static int open_immutable(rs_store *st, rs_err *err)
{
    char uri[4200];
    size_t n = (size_t)snprintf(uri, sizeof uri, "file:");
    for (const unsigned char *p = (const unsigned char *)st->path; *p && n + 4 < sizeof uri; p++) {
        if (*p == '?' || *p == '#' || *p == '%' || *p < 0x20 || *p >= 0x7f)
            n += (size_t)snprintf(uri + n, sizeof uri - n, "%%%02X", *p);
        else
            uri[n++] = (char)*p;
    }
    if (n + 16 >= sizeof uri)
        return rs_fail(err, RS_EINPUT, "database path too long: '%s'", st->path);
    snprintf(uri + n, sizeof uri - n, "?immutable=1");
    if (st->db) {
        sqlite3_close_v2(st->db);
        st->db = NULL;
    }
    if (sqlite3_open_v2(uri, &st->db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI | SQLITE_OPEN_NOMUTEX,
                        NULL) != SQLITE_OK)
        return db_fail(st, err, "cannot open database");
    sqlite3_extended_result_codes(st->db, 1);
    return check_version(st, err);
}

int rs_store_open_ro(rs_store **r_st, const char *path, rs_err *err)
{
    struct stat sb;
    rs_store *st = NULL;
    int rc;

    *r_st = NULL;
    if (stat(path, &sb) != 0) {
        if (errno == ENOENT)
            return rs_fail(err, RS_ENOTFOUND, "no database '%s'", path);
        return rs_fail(err, RS_EIO, "cannot open database '%s': %s", path, strerror(errno));
    }
    if (!S_ISREG(sb.st_mode))
        return rs_fail(err, RS_EINPUT, "database '%s' is not a regular file", path);
    if ((rc = store_alloc(&st, path, err)))
        return rc;
    st->readonly = 1;
    if ((rc = store_connect(st, SQLITE_OPEN_READONLY, err)) || (rc = check_version(st, err))) {
        /* A WAL database on a read-only medium: SQLite cannot create the
         * -shm file to read it.  When there is no -wal file (or an empty
         * one) the main file holds every commit, and it can be read as
         * immutable (no locks, no -shm); with a -wal that has commits, the
         * first error stands. */
        if (!wal_pending(path) && (rc = open_immutable(st, err)) == 0)
            goto opened;
        store_free(st);
        return rc;
    }
opened:
    *r_st = st;
    return 0;
}

void rs_store_close(rs_store *st)
{
    store_free(st);
}

/* ---- database images in memory ----------------------------------------- */

/* Load a copy of the image data[0 .. size) into st's schema ("main", or an
 * attached one) as SQLite's in-memory file (memdb).  A file in WAL mode
 * (header bytes 18 and 19 both 2) is read as the legacy journal mode's
 * (both 1): memdb has no WAL, and the image is the main file, whose pages
 * are every commit that was checkpointed (what a reader of the file alone
 * sees, as open_immutable's). */
static int image_load(rs_store *st, const char *schema, const char *name, const void *data,
                      size_t size, int readonly, rs_err *err)
{
    if (size == 0)
        return 0; /* an empty image: an empty database, as an empty file is */
    if (size > (size_t)INT64_MAX / 2)
        return rs_fail(err, RS_EINPUT, "database image '%s' too large (%zu bytes)", name, size);
    unsigned char *copy = sqlite3_malloc64(size);
    if (!copy)
        return rs_fail(err, RS_ENOMEM, "out of memory loading database image '%s'", name);
    memcpy(copy, data, size);
    if (size >= 20 && copy[18] == 2 && copy[19] == 2)
        copy[18] = copy[19] = 1;
    /* on failure SQLite frees copy (FREEONCLOSE) */
    if (sqlite3_deserialize(st->db, schema, copy, (sqlite3_int64)size, (sqlite3_int64)size,
                            SQLITE_DESERIALIZE_FREEONCLOSE |
                                (readonly ? SQLITE_DESERIALIZE_READONLY
                                          : SQLITE_DESERIALIZE_RESIZEABLE)) != SQLITE_OK)
        return rs_fail(err, RS_EDB, "cannot load database image '%s': %s", name,
                       sqlite3_errmsg(st->db));
    return 0;
}

int rs_store_open_image(rs_store **r_st, const char *name, const void *data, size_t size,
                        int writable, rs_err *err)
{
    rs_store *st = NULL;
    int rc;

    *r_st = NULL;
    if ((rc = store_alloc(&st, name, err)))
        return rc;
    st->readonly = !writable;
    if (sqlite3_open_v2(":memory:", &st->db,
                        SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX,
                        NULL) != SQLITE_OK) {
        rc = db_fail(st, err, "cannot open database");
        goto fail;
    }
    sqlite3_extended_result_codes(st->db, 1);
    if (sqlite3_exec(st->db, "PRAGMA foreign_keys = ON", NULL, NULL, NULL) != SQLITE_OK) {
        rc = db_fail(st, err, "cannot enable foreign keys");
        goto fail;
    }
    if ((rc = image_load(st, "main", name, data, size, !writable, err)))
        goto fail;
    if (!writable)
        rc = check_version(st, err);
    else if (!(rc = stmts_prepare(st, ST_BEGIN, ST_COMMIT, err)) &&
             !(rc = schema_migrate(st, err)))
        rc = stmts_prepare(st, ST_COMMIT + 1, ST_COUNT - 1, err);
    if (rc)
        goto fail;
    *r_st = st;
    return 0;
fail:
    store_free(st);
    return rc;
}

int rs_store_image(rs_store *st, void **r_data, size_t *r_size, rs_err *err)
{
    sqlite3_int64 n = 0;
    unsigned char *img;

    *r_data = NULL;
    *r_size = 0;
    if (!(img = sqlite3_serialize(st->db, "main", &n, 0))) {
        if (n == 0 && sqlite3_errcode(st->db) == SQLITE_OK)
            return 0; /* an empty database */
        return db_fail(st, err, "cannot copy the database");
    }
    void *out = malloc(n > 0 ? (size_t)n : 1);
    if (!out) {
        sqlite3_free(img);
        return rs_fail(err, RS_ENOMEM, "out of memory copying database '%s'", st->path);
    }
    memcpy(out, img, (size_t)n);
    sqlite3_free(img);
    *r_data = out;
    *r_size = (size_t)n;
    return 0;
}

/* The connection, for query.c (the store layer's read side) only; not in
 * store.h, so nothing above the store layer can reach SQL. */
struct sqlite3 *rs_store_db(rs_store *st);

struct sqlite3 *rs_store_db(rs_store *st)
{
    return st->db;
}

const char *rs_store_path(const rs_store *st)
{
    return st->path;
}

/* Insert the run row (status 'running' or 'pending') and its params; inside
 * the caller's transaction. */
static int run_insert(rs_store *st, const rs_run_meta *meta, const rs_config *cfg,
                      const char *status, int64_t *r_run_id, rs_err *err)
{
    sqlite3_stmt *s = st->stmt[ST_RUN_INSERT];
    char hash[17];

    if (cfg)
        snprintf(hash, sizeof hash, "%016" PRIx64, rs_config_hash(cfg));
    sqlite3_bind_text(s, 1, meta->kind ? meta->kind : "predicted", -1, SQLITE_STATIC);
    sqlite3_bind_text(s, 2, status, -1, SQLITE_STATIC);
    sqlite3_bind_text(s, 3, RSSIM_VERSION, -1, SQLITE_STATIC);
    sqlite3_bind_text(s, 4, meta->trace_path, -1, SQLITE_STATIC);
    sqlite3_bind_text(s, 5, meta->trace_sha256, -1, SQLITE_STATIC);
    sqlite3_bind_text(s, 6, meta->preset, -1, SQLITE_STATIC);
    sqlite3_bind_int64(s, 7, (sqlite3_int64)meta->seed);
    if (cfg)
        sqlite3_bind_text(s, 8, hash, -1, SQLITE_STATIC);
    else
        sqlite3_bind_null(s, 8);
    if (meta->sweep_id > 0) {
        sqlite3_bind_int64(s, 9, meta->sweep_id);
        sqlite3_bind_int64(s, 10, meta->point_index);
    } else {
        sqlite3_bind_null(s, 9);
        sqlite3_bind_null(s, 10);
    }
    sqlite3_bind_text(s, 11, meta->label, -1, SQLITE_STATIC);
    if (step_reset(s) != SQLITE_DONE)
        return db_fail(st, err, "cannot insert a run");
    int64_t id = sqlite3_last_insert_rowid(st->db);

    s = st->stmt[ST_PARAM_INSERT];
    size_t n = cfg ? rs_config_count(cfg) : 0;
    for (size_t i = 0; i < n; i++) {
        const char *key, *value;
        rs_config_at(cfg, i, &key, &value);
        sqlite3_bind_int64(s, 1, id);
        sqlite3_bind_text(s, 2, key, -1, SQLITE_STATIC);
        sqlite3_bind_text(s, 3, value, -1, SQLITE_STATIC);
        if (step_reset(s) != SQLITE_DONE)
            return db_fail(st, err, "cannot insert param '%s' of run %" PRId64, key, id);
    }
    *r_run_id = id;
    return 0;
}

int rs_store_run_begin(rs_store *st, const rs_run_meta *meta, const rs_config *cfg,
                       int64_t *r_run_id, rs_err *err)
{
    int rc;

    if ((rc = check_writable(st, err)) || (rc = tx_begin(st, err, "begin a run")))
        return rc;
    if ((rc = run_insert(st, meta, cfg, "running", r_run_id, err)) ||
        (rc = tx_commit(st, err, "a new run"))) {
        tx_rollback(st);
        return rc;
    }
    return 0;
}

/* Delete the samples and metrics of run_id; inside the caller's transaction. */
static int rows_delete(rs_store *st, int64_t run_id, rs_err *err)
{
    for (int i = ST_SAMPLES_DELETE; i <= ST_METRICS_DELETE; i++) {
        sqlite3_bind_int64(st->stmt[i], 1, run_id);
        if (step_reset(st->stmt[i]) != SQLITE_DONE)
            return db_fail(st, err, "cannot delete old rows of run %" PRId64, run_id);
    }
    return 0;
}

/* Bind one sample's columns from *col on. */
static void sample_bind(sqlite3_stmt *s, int *col, int64_t run_id, const rs_sample *smp)
{
    sqlite3_bind_int64(s, (*col)++, run_id);
#define BIND_INT(name) sqlite3_bind_int64(s, (*col)++, (sqlite3_int64)smp->name);
#define BIND_REAL(name) sqlite3_bind_double(s, (*col)++, smp->name);
    RS_SAMPLE_INT_COLUMNS(BIND_INT)
    RS_SAMPLE_REAL_COLUMNS(BIND_REAL)
#undef BIND_INT
#undef BIND_REAL
}

/* SAMPLE_BATCH rows per statement, then the rest one by one. */
static int samples_insert(rs_store *st, int64_t run_id, const rs_result *res, rs_err *err)
{
    size_t i = 0;

    for (; i + SAMPLE_BATCH <= res->nsamples; i += SAMPLE_BATCH) {
        sqlite3_stmt *s = st->stmt[ST_SAMPLE_INSERT_BATCH];
        int col = 1;
        for (size_t k = 0; k < SAMPLE_BATCH; k++)
            sample_bind(s, &col, run_id, &res->samples[i + k]);
        if (step_reset(s) != SQLITE_DONE)
            return db_fail(st, err, "cannot insert samples %zu..%zu of run %" PRId64, i,
                           i + SAMPLE_BATCH - 1, run_id);
    }
    for (; i < res->nsamples; i++) {
        sqlite3_stmt *s = st->stmt[ST_SAMPLE_INSERT];
        int col = 1;
        sample_bind(s, &col, run_id, &res->samples[i]);
        if (step_reset(s) != SQLITE_DONE)
            return db_fail(st, err, "cannot insert sample %zu (t_ns %" PRIu64 ") of run %" PRId64,
                           i, res->samples[i].t_ns, run_id);
    }
    return 0;
}

static int metrics_insert(rs_store *st, int64_t run_id, const rs_result *res, rs_err *err)
{
    sqlite3_stmt *s = st->stmt[ST_METRIC_INSERT];

    for (size_t i = 0; i < res->nmetrics; i++) {
        sqlite3_bind_int64(s, 1, run_id);
        sqlite3_bind_text(s, 2, res->metrics[i].name, -1, SQLITE_STATIC);
        sqlite3_bind_double(s, 3, res->metrics[i].value);
        if (step_reset(s) != SQLITE_DONE)
            return db_fail(st, err, "cannot insert metric '%s' of run %" PRId64,
                           res->metrics[i].name, run_id);
    }
    return 0;
}

/* Inside a transaction: mark run_id done and write its samples and metrics
 * in place of any an earlier attempt left. */
static int finish_rows(rs_store *st, int64_t run_id, const rs_result *res, uint64_t events,
                       uint64_t wall_ns, rs_err *err)
{
    sqlite3_stmt *s = st->stmt[ST_RUN_DONE];
    int rc;

    sqlite3_bind_int64(s, 1, run_id);
    sqlite3_bind_int64(s, 2, (sqlite3_int64)events);
    sqlite3_bind_int64(s, 3, (sqlite3_int64)wall_ns);
    if (step_reset(s) != SQLITE_DONE)
        return db_fail(st, err, "cannot mark run %" PRId64 " done", run_id);
    if (sqlite3_changes(st->db) == 0)
        return rs_fail(err, RS_ENOTFOUND, "no run %" PRId64 " in '%s'", run_id, st->path);
    if ((rc = rows_delete(st, run_id, err)) || (rc = samples_insert(st, run_id, res, err)))
        return rc;
    return metrics_insert(st, run_id, res, err);
}

int rs_store_run_finish(rs_store *st, int64_t run_id, const rs_result *res,
                        uint64_t events, uint64_t wall_ns, rs_err *err)
{
    int rc;

    if ((rc = check_writable(st, err)) || (rc = tx_begin(st, err, "finish a run")))
        return rc;
    if ((rc = finish_rows(st, run_id, res, events, wall_ns, err)) ||
        (rc = tx_commit(st, err, "the run"))) {
        tx_rollback(st);
        return rc;
    }
    return 0;
}

int rs_store_run_import(rs_store *st, const rs_run_meta *meta, const rs_config *cfg,
                        const rs_result *res, uint64_t events, uint64_t wall_ns,
                        int64_t *r_run_id, rs_err *err)
{
    int64_t run_id = 0;
    int rc;

    if ((rc = check_writable(st, err)) || (rc = tx_begin(st, err, "import a run")))
        return rc;
    if ((rc = run_insert(st, meta, cfg, "running", &run_id, err)) ||
        (rc = finish_rows(st, run_id, res, events, wall_ns, err)) ||
        (rc = tx_commit(st, err, "the imported run"))) {
        tx_rollback(st);
        return rc;
    }
    *r_run_id = run_id;
    return 0;
}

int rs_store_run_fail(rs_store *st, int64_t run_id, const char *why, rs_err *err)
{
    sqlite3_stmt *s = st->stmt[ST_RUN_FAIL];
    int rc;

    if ((rc = check_writable(st, err)) || (rc = tx_begin(st, err, "fail a run")))
        return rc;
    sqlite3_bind_int64(s, 1, run_id);
    sqlite3_bind_text(s, 2, why ? why : "unknown error", -1, SQLITE_STATIC);
    if (step_reset(s) != SQLITE_DONE) {
        rc = db_fail(st, err, "cannot mark run %" PRId64 " failed", run_id);
        goto fail;
    }
    if (sqlite3_changes(st->db) == 0) {
        rc = rs_fail(err, RS_ENOTFOUND, "no run %" PRId64 " in '%s'", run_id, st->path);
        goto fail;
    }
    if ((rc = rows_delete(st, run_id, err)) || (rc = tx_commit(st, err, "the failed run")))
        goto fail;
    return 0;
fail:
    tx_rollback(st);
    return rc;
}

int rs_store_claims_fail(rs_store *st, const char *owner, const char *why, int64_t *r_failed,
                         rs_err *err)
{
    static const char sql[] = "SELECT c.run_id FROM claims c JOIN runs r ON r.id = c.run_id"
                              " WHERE c.owner = ?1 AND r.status = 'running' ORDER BY c.run_id";
    sqlite3_stmt *s = NULL;
    int64_t *ids = NULL, n = 0, cap = 0;
    int rc = 0, step;

    *r_failed = 0;
    if ((rc = check_writable(st, err)))
        return rc;
    if (sqlite3_prepare_v2(st->db, sql, -1, &s, NULL) != SQLITE_OK)
        return db_fail(st, err, "cannot read the claims of %s", owner);
    sqlite3_bind_text(s, 1, owner, -1, SQLITE_STATIC);
    while ((step = sqlite3_step(s)) == SQLITE_ROW) {
        if (n == cap) { /* at most the points one worker was given */
            int64_t *p = realloc(ids, (size_t)(cap = cap ? 2 * cap : 16) * sizeof *p);
            if (!p) {
                rc = rs_fail(err, RS_ENOMEM, "out of memory for the claims of %s", owner);
                break;
            }
            ids = p;
        }
        ids[n++] = sqlite3_column_int64(s, 0);
    }
    if (!rc && step != SQLITE_DONE)
        rc = db_fail(st, err, "cannot read the claims of %s", owner);
    sqlite3_finalize(s);
    for (int64_t i = 0; i < n && !rc; i++)
        if (!(rc = rs_store_run_fail(st, ids[i], why, err)))
            ++*r_failed;
    free(ids);
    return rc;
}

/* Step a one-column SELECT: 1 and *r_id when a row came, 0 when none,
 * negative RS_EDB on error.  Resets the statement. */
static int select_id(rs_store *st, sqlite3_stmt *s, int64_t *r_id, rs_err *err,
                     const char *what)
{
    int rc = sqlite3_step(s);
    if (rc == SQLITE_ROW) {
        *r_id = sqlite3_column_int64(s, 0);
        sqlite3_reset(s);
        return 1;
    }
    if (rc == SQLITE_DONE) {
        sqlite3_reset(s);
        return 0;
    }
    rc = db_fail(st, err, "cannot look up %s", what);
    sqlite3_reset(s);
    return rc;
}

int rs_store_sweep_open(rs_store *st, const rs_sweep_meta *meta, int64_t *r_sweep_id,
                        int *r_created, rs_err *err)
{
    sqlite3_stmt *s = st->stmt[ST_SWEEP_INSERT];
    int rc, created;

    if (!meta->spec_hash || !*meta->spec_hash)
        return rs_fail(err, RS_EINTERNAL, "sweep without a spec hash");
    if ((rc = check_writable(st, err)) || (rc = tx_begin(st, err, "open a sweep")))
        return rc;
    sqlite3_bind_text(s, 1, meta->spec_hash, -1, SQLITE_STATIC);
    sqlite3_bind_text(s, 2, meta->trace_path, -1, SQLITE_STATIC);
    sqlite3_bind_text(s, 3, meta->trace_sha256, -1, SQLITE_STATIC);
    sqlite3_bind_text(s, 4, meta->preset, -1, SQLITE_STATIC);
    sqlite3_bind_text(s, 5, meta->spec, -1, SQLITE_STATIC);
    sqlite3_bind_text(s, 6, meta->varied_keys, -1, SQLITE_STATIC);
    sqlite3_bind_int64(s, 7, meta->points);
    sqlite3_bind_int(s, 8, meta->jobs);
    if (step_reset(s) != SQLITE_DONE) {
        rc = db_fail(st, err, "cannot insert sweep '%s'", meta->spec_hash);
        goto fail;
    }
    created = sqlite3_changes(st->db) == 1;
    s = st->stmt[ST_SWEEP_FIND];
    sqlite3_bind_text(s, 1, meta->spec_hash, -1, SQLITE_STATIC);
    rc = select_id(st, s, r_sweep_id, err, "a sweep");
    if (rc == 0)
        rc = rs_fail(err, RS_EINTERNAL, "sweep '%s' vanished in '%s'", meta->spec_hash, st->path);
    if (rc < 0)
        goto fail;
    if ((rc = tx_commit(st, err, "the sweep")))
        goto fail;
    if (r_created)
        *r_created = created;
    return 0;
fail:
    tx_rollback(st);
    return rc;
}

int rs_store_sweep_point(rs_store *st, int64_t sweep_id, int64_t point_index,
                         const rs_run_meta *meta, const rs_config *cfg,
                         int64_t *r_run_id, rs_err *err)
{
    sqlite3_stmt *s = st->stmt[ST_POINT_FIND];
    rs_run_meta m = *meta;
    int rc;

    if (sweep_id <= 0 || point_index < 0)
        return rs_fail(err, RS_EINTERNAL, "bad sweep point %" PRId64 "/%" PRId64, sweep_id,
                       point_index);
    if ((rc = check_writable(st, err)) || (rc = tx_begin(st, err, "add a sweep point")))
        return rc;
    sqlite3_bind_int64(s, 1, sweep_id);
    sqlite3_bind_int64(s, 2, point_index);
    int step = sqlite3_step(s);
    if (step == SQLITE_ROW) { /* the point's run: it must be this point's params */
        char want[17];
        const char *had = (const char *)sqlite3_column_text(s, 1);
        *r_run_id = sqlite3_column_int64(s, 0);
        snprintf(want, sizeof want, "%016" PRIx64, cfg ? rs_config_hash(cfg) : 0);
        rc = cfg && (!had || strcmp(had, want) != 0)
                 ? rs_fail(err, RS_EINTERNAL, "sweep %" PRId64 " point %" PRId64 " is run %" PRId64
                           " with other params (param_hash %s, this point's %s): '%s' holds "
                           "another grid under this sweep's identity", sweep_id, point_index,
                           *r_run_id, had ? had : "none", want, st->path)
                 : 1;
    } else {
        rc = step == SQLITE_DONE ? 0 : db_fail(st, err, "cannot look up a sweep point");
    }
    sqlite3_reset(s);
    if (rc == 0) {
        m.sweep_id = sweep_id;
        m.point_index = point_index;
        rc = run_insert(st, &m, cfg, "pending", r_run_id, err);
    }
    if (rc < 0)
        goto fail;
    if ((rc = tx_commit(st, err, "the sweep point")))
        goto fail;
    return 0;
fail:
    tx_rollback(st);
    return rc;
}

int rs_store_run_status(rs_store *st, int64_t run_id, char r_status[16], rs_err *err)
{
    sqlite3_stmt *s = NULL;
    int rc;

    /* Usable on read-only handles too, so prepared here when needed. */
    if (st->readonly) {
        if (sqlite3_prepare_v2(st->db, stmt_sql[ST_RUN_STATUS], -1, &s, NULL) != SQLITE_OK)
            return db_fail(st, err, "cannot read the status of run %" PRId64, run_id);
    } else {
        s = st->stmt[ST_RUN_STATUS];
    }
    sqlite3_bind_int64(s, 1, run_id);
    rc = sqlite3_step(s);
    if (rc == SQLITE_ROW) {
        const char *t = (const char *)sqlite3_column_text(s, 0);
        snprintf(r_status, 16, "%s", t ? t : "");
        rc = 0;
    } else if (rc == SQLITE_DONE) {
        rc = rs_fail(err, RS_ENOTFOUND, "no run %" PRId64 " in '%s'", run_id, st->path);
    } else {
        rc = db_fail(st, err, "cannot read the status of run %" PRId64, run_id);
    }
    if (st->readonly)
        sqlite3_finalize(s);
    else
        sqlite3_reset(s);
    return rc;
}

int rs_store_run_claim(rs_store *st, int64_t run_id, rs_err *err)
{
    sqlite3_stmt *s = st->stmt[ST_RUN_CLAIM];
    char status[16];
    int rc;

    if ((rc = check_writable(st, err)))
        return rc;
    sqlite3_bind_int64(s, 1, run_id);
    if (step_reset(s) != SQLITE_DONE)
        return db_fail(st, err, "cannot claim run %" PRId64, run_id);
    if (sqlite3_changes(st->db) == 1)
        return 0;
    if ((rc = rs_store_run_status(st, run_id, status, err)))
        return rc;
    return rs_fail(err, RS_EINPUT, "run %" PRId64 " in '%s' is already %s", run_id, st->path,
                   status);
}

int rs_store_batch_begin(rs_store *st, rs_err *err)
{
    int rc;
    if ((rc = check_writable(st, err)))
        return rc;
    if (st->batch)
        return rs_fail(err, RS_EINTERNAL, "nested batch in '%s'", st->path);
    if ((rc = tx_begin(st, err, "start a batch")))
        return rc;
    st->batch = 1;
    return 0;
}

int rs_store_batch_commit(rs_store *st, rs_err *err)
{
    if (!st->batch)
        return rs_fail(err, RS_EINTERNAL, "no batch open in '%s' (a write in it failed and "
                       "undid it)", st->path);
    st->batch = 0;
    int rc = tx_commit(st, err, "the batch");
    if (rc)
        tx_rollback(st);
    return rc;
}

int rs_store_point_claim(rs_store *st, int64_t run_id, const char *owner,
                         rs_store_owner_alive_fn alive, void *ctx, int *r_claim, rs_err *err)
{
    static const char sel_sql[] = "SELECT r.status, c.owner FROM runs r LEFT JOIN claims c"
                                  " ON c.run_id = r.id WHERE r.id = ?1";
    static const char upd_sql[] = "UPDATE runs SET status = 'running', started_at = " NOW ","
                                  " finished_at = NULL, error = NULL WHERE id = ?1";
    static const char own_sql[] = "INSERT OR REPLACE INTO claims(run_id, owner) VALUES(?1, ?2)";
    sqlite3_stmt *sel = NULL, *upd = NULL, *own = NULL;
    int rc;

    if ((rc = check_writable(st, err)))
        return rc;
    /* one write transaction: of two processes claiming the same point, the
     * second sees the first's claim (BEGIN IMMEDIATE waits for the lock) */
    if ((rc = tx_begin(st, err, "claim a point")))
        return rc;
    if (sqlite3_prepare_v2(st->db, sel_sql, -1, &sel, NULL) != SQLITE_OK ||
        sqlite3_prepare_v2(st->db, upd_sql, -1, &upd, NULL) != SQLITE_OK ||
        sqlite3_prepare_v2(st->db, own_sql, -1, &own, NULL) != SQLITE_OK) {
        rc = db_fail(st, err, "cannot claim run %" PRId64, run_id);
        goto out;
    }
    sqlite3_bind_int64(sel, 1, run_id);
    int step = sqlite3_step(sel);
    if (step == SQLITE_DONE) {
        rc = rs_fail(err, RS_ENOTFOUND, "no run %" PRId64 " in '%s'", run_id, st->path);
        goto out;
    }
    if (step != SQLITE_ROW) {
        rc = db_fail(st, err, "cannot read the claim of run %" PRId64, run_id);
        goto out;
    }
    const char *status = (const char *)sqlite3_column_text(sel, 0);
    const char *holder = (const char *)sqlite3_column_text(sel, 1);
    if (status && !strcmp(status, "done")) {
        *r_claim = RS_CLAIM_DONE;
    } else if (status && !strcmp(status, "running") && holder && strcmp(holder, owner) != 0 &&
               alive && alive(holder, ctx)) {
        *r_claim = RS_CLAIM_BUSY;
    } else {
        sqlite3_bind_int64(upd, 1, run_id);
        sqlite3_bind_int64(own, 1, run_id);
        sqlite3_bind_text(own, 2, owner, -1, SQLITE_STATIC);
        if (sqlite3_step(upd) != SQLITE_DONE || sqlite3_step(own) != SQLITE_DONE) {
            rc = db_fail(st, err, "cannot claim run %" PRId64, run_id);
            goto out;
        }
        *r_claim = RS_CLAIM_TAKEN;
    }
    sqlite3_finalize(sel);
    sel = NULL;
    rc = tx_commit(st, err, "a point's claim");
out:
    sqlite3_finalize(sel);
    sqlite3_finalize(upd);
    sqlite3_finalize(own);
    if (rc)
        tx_rollback(st);
    return rc;
}

int rs_store_sweep_set_status(rs_store *st, int64_t sweep_id, const char *status, rs_err *err)
{
    sqlite3_stmt *s = st->stmt[ST_SWEEP_STATUS];
    int rc;

    if ((rc = check_writable(st, err)))
        return rc;
    sqlite3_bind_int64(s, 1, sweep_id);
    sqlite3_bind_text(s, 2, status, -1, SQLITE_STATIC);
    if (step_reset(s) != SQLITE_DONE)
        return db_fail(st, err, "cannot set the status of sweep %" PRId64, sweep_id);
    if (sqlite3_changes(st->db) == 0)
        return rs_fail(err, RS_ENOTFOUND, "no sweep %" PRId64 " in '%s'", sweep_id, st->path);
    return 0;
}

int rs_store_metric_set(rs_store *st, int64_t run_id, const char *name, double value,
                        rs_err *err)
{
    sqlite3_stmt *s = st->stmt[ST_METRIC_SET];
    int rc;

    if ((rc = check_writable(st, err)))
        return rc;
    sqlite3_bind_int64(s, 1, run_id);
    sqlite3_bind_text(s, 2, name, -1, SQLITE_STATIC);
    sqlite3_bind_double(s, 3, value);
    if (step_reset(s) != SQLITE_DONE)
        return db_fail(st, err, "cannot store metric '%s' of run %" PRId64, name, run_id);
    return 0;
}

int rs_store_sweep_check(rs_store *st, int64_t sweep_id, rs_err *err)
{
    sqlite3_stmt *s = NULL;
    int rc;

    if (sqlite3_prepare_v2(st->db, "SELECT 1 FROM sweeps WHERE id = ?1", -1, &s, NULL) != SQLITE_OK)
        return db_fail(st, err, "cannot look up sweep %" PRId64, sweep_id);
    sqlite3_bind_int64(s, 1, sweep_id);
    rc = sqlite3_step(s);
    if (rc == SQLITE_ROW)
        rc = 0;
    else if (rc == SQLITE_DONE)
        rc = rs_fail(err, RS_ENOTFOUND, "no sweep %" PRId64 " in '%s'", sweep_id, st->path);
    else
        rc = db_fail(st, err, "cannot look up sweep %" PRId64, sweep_id);
    sqlite3_finalize(s);
    return rc;
}

/* ---- plans ---------------------------------------------------------------- */

int rs_store_plan_begin(rs_store *st, const rs_plan_meta *m, int64_t *r_plan_id, rs_err *err)
{
    sqlite3_stmt *s = st->stmt[ST_PLAN_INSERT];
    int rc;

    if ((rc = check_writable(st, err)))
        return rc;
    sqlite3_bind_text(s, 1, m->preset, -1, SQLITE_STATIC);
    sqlite3_bind_text(s, 2, m->workload, -1, SQLITE_STATIC);
    sqlite3_bind_text(s, 3, m->limit_key, -1, SQLITE_STATIC);
    sqlite3_bind_int64(s, 4, m->ram_bytes);
    sqlite3_bind_int64(s, 5, m->daemons);
    sqlite3_bind_double(s, 6, m->headroom);
    sqlite3_bind_text(s, 7, m->quantile, -1, SQLITE_STATIC);
    sqlite3_bind_int64(s, 8, m->seeds);
    sqlite3_bind_double(s, 9, m->tol_rel);
    if (m->rule_factor > 0)
        sqlite3_bind_double(s, 10, m->rule_factor);
    else
        sqlite3_bind_null(s, 10);
    if (step_reset(s) != SQLITE_DONE)
        return db_fail(st, err, "cannot insert a plan");
    *r_plan_id = sqlite3_last_insert_rowid(st->db);
    return 0;
}

int rs_store_plan_eval(rs_store *st, int64_t plan_id, int64_t run_id, uint64_t seed,
                       int64_t limit_bytes, int reused, rs_err *err)
{
    sqlite3_stmt *s = st->stmt[ST_PLAN_EVAL_INSERT];
    int rc;

    if ((rc = check_writable(st, err)))
        return rc;
    sqlite3_bind_int64(s, 1, plan_id);
    sqlite3_bind_int64(s, 2, run_id);
    sqlite3_bind_int64(s, 3, (int64_t)seed);
    sqlite3_bind_int64(s, 4, limit_bytes);
    sqlite3_bind_int(s, 5, reused != 0);
    if (step_reset(s) != SQLITE_DONE)
        return db_fail(st, err, "cannot link run %" PRId64 " to plan %" PRId64, run_id, plan_id);
    return 0;
}

int rs_store_plan_finish(rs_store *st, int64_t plan_id, const char *status, const char *outcome,
                         int64_t limit_bytes, const char *verdict, rs_err *err)
{
    sqlite3_stmt *s = st->stmt[ST_PLAN_FINISH];
    int rc;

    if ((rc = check_writable(st, err)))
        return rc;
    sqlite3_bind_int64(s, 1, plan_id);
    sqlite3_bind_text(s, 2, status, -1, SQLITE_STATIC);
    sqlite3_bind_text(s, 3, outcome, -1, SQLITE_STATIC);
    sqlite3_bind_int64(s, 4, limit_bytes);
    sqlite3_bind_text(s, 5, verdict, -1, SQLITE_STATIC);
    if (step_reset(s) != SQLITE_DONE)
        return db_fail(st, err, "cannot finish plan %" PRId64, plan_id);
    if (sqlite3_changes(st->db) == 0)
        return rs_fail(err, RS_ENOTFOUND, "no plan %" PRId64 " in '%s'", plan_id, st->path);
    return 0;
}

/* ---- nodes ---------------------------------------------------------------- */

static int node_exec(rs_store *st, sqlite3_stmt *s, rs_err *err, const char *what)
{
    if (step_reset(s) != SQLITE_DONE)
        return db_fail(st, err, "cannot insert %s", what);
    return 0;
}

int rs_store_node_write(rs_store *st, const rs_store_node_meta *meta,
                        const rs_store_node_copy *copies, size_t ncopies,
                        const rs_node_result *res, const char *const *metric_names,
                        const double *metric_values, size_t nmetrics, int64_t *r_node_id,
                        rs_err *err)
{
    sqlite3_stmt *s = NULL;
    int rc;

    if ((rc = check_writable(st, err)) || (rc = tx_begin(st, err, "store a node")))
        return rc;
    if (sqlite3_prepare_v2(st->db, "INSERT INTO nodes(created_at, spec, ram_bytes, headroom,"
                                   " interval_ns, end_ns, steady_from_ns, verdict)"
                                   " VALUES(" NOW ", ?1, ?2, ?3, ?4, ?5, ?6, ?7)", -1, &s,
                           NULL) != SQLITE_OK) {
        rc = db_fail(st, err, "cannot prepare the node insert");
        goto fail;
    }
    sqlite3_bind_text(s, 1, meta->spec, -1, SQLITE_STATIC);
    if (meta->ram_bytes > 0)
        sqlite3_bind_int64(s, 2, meta->ram_bytes);
    sqlite3_bind_double(s, 3, meta->headroom);
    sqlite3_bind_int64(s, 4, (int64_t)res->interval_ns);
    sqlite3_bind_int64(s, 5, (int64_t)res->end_ns);
    sqlite3_bind_int64(s, 6, (int64_t)res->steady_from_ns);
    sqlite3_bind_text(s, 7, meta->verdict, -1, SQLITE_STATIC);
    if ((rc = node_exec(st, s, err, "a node")))
        goto fail;
    sqlite3_finalize(s);
    s = NULL;
    int64_t id = sqlite3_last_insert_rowid(st->db);
    if (sqlite3_prepare_v2(st->db, "INSERT INTO node_members(node_id, member, copy, run_id,"
                                   " offset_ns, reused) VALUES(?1, ?2, ?3, ?4, ?5, ?6)", -1, &s,
                           NULL) != SQLITE_OK) {
        rc = db_fail(st, err, "cannot prepare the node member insert");
        goto fail;
    }
    for (size_t i = 0; i < ncopies; i++) {
        sqlite3_bind_int64(s, 1, id);
        sqlite3_bind_int64(s, 2, copies[i].member);
        sqlite3_bind_int64(s, 3, copies[i].copy);
        sqlite3_bind_int64(s, 4, copies[i].run_id);
        sqlite3_bind_int64(s, 5, (int64_t)copies[i].offset_ns);
        sqlite3_bind_int(s, 6, copies[i].reused != 0);
        if ((rc = node_exec(st, s, err, "a node member")))
            goto fail;
    }
    sqlite3_finalize(s);
    s = NULL;
    if (sqlite3_prepare_v2(st->db, "INSERT INTO node_samples(node_id, t_ns, rss_bytes,"
                                   " accounted_bytes, resident_bytes, base_bytes)"
                                   " VALUES(?1, ?2, ?3, ?4, ?5, ?6)", -1, &s, NULL) != SQLITE_OK) {
        rc = db_fail(st, err, "cannot prepare the node sample insert");
        goto fail;
    }
    for (size_t i = 0; i < res->npts; i++) {
        const rs_node_point *p = &res->pts[i];
        if (p->t_ns > INT64_MAX || p->rss_bytes > INT64_MAX) {
            rc = rs_fail(err, RS_EINTERNAL, "node sample %zu does not fit SQLite's INTEGER", i);
            goto fail;
        }
        sqlite3_bind_int64(s, 1, id);
        sqlite3_bind_int64(s, 2, (int64_t)p->t_ns);
        sqlite3_bind_int64(s, 3, (int64_t)p->rss_bytes);
        sqlite3_bind_int64(s, 4, (int64_t)p->accounted_bytes);
        sqlite3_bind_int64(s, 5, (int64_t)p->resident_bytes);
        sqlite3_bind_int64(s, 6, (int64_t)p->base_bytes);
        if ((rc = node_exec(st, s, err, "a node sample")))
            goto fail;
    }
    sqlite3_finalize(s);
    s = NULL;
    if (sqlite3_prepare_v2(st->db, "INSERT INTO node_metrics(node_id, name, value)"
                                   " VALUES(?1, ?2, ?3)", -1, &s, NULL) != SQLITE_OK) {
        rc = db_fail(st, err, "cannot prepare the node metric insert");
        goto fail;
    }
    for (size_t i = 0; i < nmetrics; i++) {
        sqlite3_bind_int64(s, 1, id);
        sqlite3_bind_text(s, 2, metric_names[i], -1, SQLITE_STATIC);
        sqlite3_bind_double(s, 3, metric_values[i]);
        if ((rc = node_exec(st, s, err, "a node metric")))
            goto fail;
    }
    sqlite3_finalize(s);
    s = NULL;
    if ((rc = tx_commit(st, err, "the node")))
        goto fail;
    *r_node_id = id;
    return 0;
fail:
    sqlite3_finalize(s);
    tx_rollback(st);
    return rc;
}

/* ---- merge ---------------------------------------------------------------
 * Shards of one sweep (`rssim sweep --shard k/N`, each in its own database)
 * come back together here.  Every shard database holds the rows of all the
 * sweep's points, pending where another shard ran them, so merging creates
 * the points in point order (the same run ids as one unsharded sweep in a
 * fresh database) and then fills each point from the shard where it is done.
 * A point already done in the destination is kept.  Runs outside sweeps are
 * appended, unless the destination has a done run with the same kind,
 * creation time, trace, params, seed and label (so merging twice adds
 * nothing).  Every source run's destination id goes into temp.merge_map,
 * through which plans' evaluations are remapped (merge_plans).  One
 * transaction per source: all of it, or nothing. */

#define COL_LIST(name) ", " #name
#define SAMPLE_COLS RS_SAMPLE_INT_COLUMNS(COL_LIST) RS_SAMPLE_REAL_COLUMNS(COL_LIST)

static int exec_bound(rs_store *st, const char *sql, int64_t a, int64_t b, rs_err *err)
{
    sqlite3_stmt *s;
    if (sqlite3_prepare_v2(st->db, sql, -1, &s, NULL) != SQLITE_OK)
        return db_fail(st, err, "cannot prepare a merge statement");
    sqlite3_bind_int64(s, 1, a);
    if (sqlite3_bind_parameter_count(s) > 1)
        sqlite3_bind_int64(s, 2, b);
    int rc = sqlite3_step(s);
    sqlite3_finalize(s);
    return rc == SQLITE_DONE ? 0 : db_fail(st, err, "cannot merge run rows");
}

/* Copy params (and samples and metrics when with_rows) of src run a to dst run b. */
static int copy_rows(rs_store *st, int64_t src_id, int64_t dst_id, int with_rows, rs_err *err)
{
    int rc = exec_bound(st, "DELETE FROM main.params WHERE run_id = ?2 AND ?1 IS NOT NULL", src_id,
                        dst_id, err);
    if (!rc)
        rc = exec_bound(st, "INSERT INTO main.params(run_id, key, value)"
                            " SELECT ?2, key, value FROM src.params WHERE run_id = ?1", src_id, dst_id, err);
    if (!rc)
        rc = rows_delete(st, dst_id, err);
    if (!rc && with_rows)
        rc = exec_bound(st, "INSERT INTO main.samples(run_id" SAMPLE_COLS ") SELECT ?2" SAMPLE_COLS
                            " FROM src.samples WHERE run_id = ?1", src_id, dst_id, err);
    if (!rc && with_rows)
        rc = exec_bound(st, "INSERT INTO main.metrics(run_id, name, value)"
                            " SELECT ?2, name, value FROM src.metrics WHERE run_id = ?1", src_id, dst_id, err);
    return rc;
}

#define RUN_COLS "kind, status, created_at, started_at, finished_at, version, trace_path, " \
                 "trace_sha256, preset, seed, param_hash, label, events, wall_ns, error"

/* The run ids of the source mapped onto the destination's (temp.merge_map). */
static int map_add(rs_store *st, int64_t src_id, int64_t dst_id, rs_err *err)
{
    return exec_bound(st, "INSERT OR REPLACE INTO temp.merge_map(src, dst) VALUES(?1, ?2)",
                      src_id, dst_id, err);
}

/* A run outside any sweep that the destination already holds: the same
 * kind, creation time, trace, params, seed and label (merging a database
 * twice, or two databases that were copied from one).  *r_dst_id 0: none. */
static int run_find_same(rs_store *st, int64_t src_id, int64_t *r_dst_id, rs_err *err)
{
    sqlite3_stmt *q;
    int rc;

    *r_dst_id = 0;
    if (sqlite3_prepare_v2(st->db,
                           "SELECT m.id FROM main.runs m JOIN src.runs s ON s.id = ?1"
                           " WHERE m.sweep_id IS NULL AND m.status = 'done' AND s.status = 'done'"
                           " AND m.kind = s.kind AND m.created_at = s.created_at"
                           " AND m.trace_sha256 IS s.trace_sha256 AND m.param_hash IS s.param_hash"
                           " AND m.seed = s.seed AND m.label IS s.label ORDER BY m.id LIMIT 1",
                           -1, &q, NULL) != SQLITE_OK)
        return db_fail(st, err, "cannot look up a merged run");
    sqlite3_bind_int64(q, 1, src_id);
    rc = sqlite3_step(q);
    if (rc == SQLITE_ROW)
        *r_dst_id = sqlite3_column_int64(q, 0);
    sqlite3_finalize(q);
    return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : db_fail(st, err, "cannot look up a merged run");
}

/* Plans and their evaluations, with the run ids remapped.  A plan the
 * destination already has (same creation time and question) is not
 * copied again; an evaluation whose run did not come across (not done in
 * the source) is left out. */
#define PLAN_COLS "created_at, status, preset, workload, limit_key, ram_bytes, daemons, headroom, " \
                  "quantile, seeds, tol_rel, rule_factor, outcome, limit_bytes, verdict"
static int merge_plans(rs_store *st, rs_err *err)
{
    sqlite3_stmt *plans = NULL;
    int rc = 0;

    if (sqlite3_prepare_v2(st->db,
                           "SELECT s.id FROM src.plans s WHERE NOT EXISTS (SELECT 1 FROM main.plans m"
                           " WHERE m.created_at = s.created_at AND m.preset IS s.preset"
                           " AND m.workload IS s.workload AND m.limit_key IS s.limit_key"
                           " AND m.ram_bytes IS s.ram_bytes AND m.daemons IS s.daemons"
                           " AND m.quantile IS s.quantile AND m.seeds IS s.seeds) ORDER BY s.id",
                           -1, &plans, NULL) != SQLITE_OK)
        return db_fail(st, err, "cannot read the source's plans");
    int step = SQLITE_DONE; /* an error of the source's read is not its end */
    while (!rc && (step = sqlite3_step(plans)) == SQLITE_ROW) {
        int64_t src_plan = sqlite3_column_int64(plans, 0);
        rc = exec_bound(st, "INSERT INTO main.plans(" PLAN_COLS ") SELECT " PLAN_COLS
                            " FROM src.plans WHERE id = ?1", src_plan, 0, err);
        if (!rc)
            rc = exec_bound(st, "INSERT OR IGNORE INTO main.plan_evals(plan_id, run_id, seed,"
                                " limit_bytes, reused) SELECT ?2, m.dst, e.seed, e.limit_bytes, e.reused"
                                " FROM src.plan_evals e JOIN temp.merge_map m ON m.src = e.run_id"
                                " JOIN main.runs r ON r.id = m.dst AND r.status = 'done'"
                                " WHERE e.plan_id = ?1",
                            src_plan, sqlite3_last_insert_rowid(st->db), err);
    }
    if (!rc && step != SQLITE_DONE)
        rc = db_fail(st, err, "cannot read the source's plans");
    sqlite3_finalize(plans);
    return rc;
}

/* Nodes with their members (run ids remapped), samples and metrics.  A node
 * OUT already has (same creation time and spec) is not copied again; a node
 * one of whose runs did not come across (not done in the source) is left
 * out whole, since its total would name a run OUT lacks. */
static int merge_nodes(rs_store *st, rs_err *err)
{
    sqlite3_stmt *nodes = NULL;
    int rc = 0;

    if (sqlite3_prepare_v2(st->db,
                           "SELECT s.id FROM src.nodes s WHERE NOT EXISTS (SELECT 1 FROM main.nodes m"
                           " WHERE m.created_at = s.created_at AND m.spec = s.spec)"
                           " AND NOT EXISTS (SELECT 1 FROM src.node_members nm LEFT JOIN temp.merge_map mm"
                           " ON mm.src = nm.run_id LEFT JOIN main.runs r ON r.id = mm.dst"
                           " WHERE nm.node_id = s.id AND (r.id IS NULL OR r.status <> 'done'))"
                           " ORDER BY s.id", -1, &nodes, NULL) != SQLITE_OK)
        return db_fail(st, err, "cannot read the source's nodes");
    int step = SQLITE_DONE; /* an error of the source's read is not its end */
    while (!rc && (step = sqlite3_step(nodes)) == SQLITE_ROW) {
        int64_t src_node = sqlite3_column_int64(nodes, 0);
        rc = exec_bound(st, "INSERT INTO main.nodes(created_at, spec, ram_bytes, headroom, interval_ns,"
                            " end_ns, steady_from_ns, verdict) SELECT created_at, spec, ram_bytes, headroom,"
                            " interval_ns, end_ns, steady_from_ns, verdict FROM src.nodes WHERE id = ?1",
                        src_node, 0, err);
        int64_t dst_node = sqlite3_last_insert_rowid(st->db);
        if (!rc)
            rc = exec_bound(st, "INSERT INTO main.node_members(node_id, member, copy, run_id, offset_ns,"
                                " reused) SELECT ?2, n.member, n.copy, m.dst, n.offset_ns, n.reused"
                                " FROM src.node_members n JOIN temp.merge_map m ON m.src = n.run_id"
                                " WHERE n.node_id = ?1", src_node, dst_node, err);
        if (!rc)
            rc = exec_bound(st, "INSERT INTO main.node_samples(node_id, t_ns, rss_bytes, accounted_bytes,"
                                " resident_bytes, base_bytes) SELECT ?2, t_ns, rss_bytes, accounted_bytes,"
                                " resident_bytes, base_bytes FROM src.node_samples WHERE node_id = ?1",
                            src_node, dst_node, err);
        if (!rc)
            rc = exec_bound(st, "INSERT INTO main.node_metrics(node_id, name, value) SELECT ?2, name,"
                                " value FROM src.node_metrics WHERE node_id = ?1", src_node, dst_node, err);
    }
    if (!rc && step != SQLITE_DONE)
        rc = db_fail(st, err, "cannot read the source's nodes");
    sqlite3_finalize(nodes);
    return rc;
}

static int merge_source(rs_store *st, uint64_t *r_copied, rs_err *err)
{
    sqlite3_stmt *runs = NULL;
    int rc = 0;

    /* sweeps the destination does not know yet, in the source's order */
    if (sqlite3_exec(st->db,
                     "INSERT INTO main.sweeps(spec_hash, created_at, trace_path, trace_sha256, preset,"
                     " spec, varied_keys, points, jobs, status)"
                     " SELECT spec_hash, created_at, trace_path, trace_sha256, preset, spec, varied_keys,"
                     " points, jobs, status FROM src.sweeps s WHERE NOT EXISTS"
                     " (SELECT 1 FROM main.sweeps m WHERE m.spec_hash = s.spec_hash) ORDER BY s.id",
                     NULL, NULL, NULL) != SQLITE_OK)
        return db_fail(st, err, "cannot merge sweeps");
    if (sqlite3_prepare_v2(st->db,
                           "SELECT r.id, r.status, r.point_index, (SELECT m.id FROM main.sweeps m"
                           " JOIN src.sweeps s ON s.spec_hash = m.spec_hash WHERE s.id = r.sweep_id)"
                           " FROM src.runs r ORDER BY r.sweep_id IS NULL, r.sweep_id, r.point_index, r.id",
                           -1, &runs, NULL) != SQLITE_OK)
        return db_fail(st, err, "cannot read the source's runs");
    int step = SQLITE_DONE; /* an error of the source's read is not its end */
    while (!rc && (step = sqlite3_step(runs)) == SQLITE_ROW) {
        int64_t src_id = sqlite3_column_int64(runs, 0);
        int src_done = col_is(runs, 1, "done");
        int in_sweep = sqlite3_column_type(runs, 3) != SQLITE_NULL;
        int64_t point = sqlite3_column_int64(runs, 2), dst_sweep = sqlite3_column_int64(runs, 3);
        int64_t dst_id = 0;
        int dst_done = 0;

        if (in_sweep) {
            sqlite3_stmt *q;
            if (sqlite3_prepare_v2(st->db, "SELECT id, status FROM main.runs WHERE sweep_id = ?1"
                                           " AND point_index = ?2", -1, &q, NULL) != SQLITE_OK) {
                rc = db_fail(st, err, "cannot look up a sweep point");
                break;
            }
            sqlite3_bind_int64(q, 1, dst_sweep);
            sqlite3_bind_int64(q, 2, point);
            if (sqlite3_step(q) == SQLITE_ROW) {
                dst_id = sqlite3_column_int64(q, 0);
                dst_done = col_is(q, 1, "done");
            }
            sqlite3_finalize(q);
        }
        if (!in_sweep && (rc = run_find_same(st, src_id, &dst_id, err)))
            break;
        if (dst_id && (dst_done || !src_done || !in_sweep)) {
            rc = map_add(st, src_id, dst_id, err); /* the destination has it as good or better */
            continue;
        }
        if (!dst_id) {
            rc = exec_bound(st, "INSERT INTO main.runs(" RUN_COLS ", sweep_id, point_index)"
                                " SELECT " RUN_COLS ", CASE WHEN sweep_id IS NULL THEN NULL ELSE ?2 END,"
                                " point_index FROM src.runs WHERE id = ?1", src_id, dst_sweep, err);
            dst_id = sqlite3_last_insert_rowid(st->db);
        } else {
            rc = exec_bound(st, "UPDATE main.runs SET (" RUN_COLS ") = (SELECT " RUN_COLS
                                " FROM src.runs WHERE id = ?1) WHERE id = ?2", src_id, dst_id, err);
        }
        if (!rc)
            rc = copy_rows(st, src_id, dst_id, src_done, err);
        if (!rc)
            rc = map_add(st, src_id, dst_id, err);
        if (!rc && src_done)
            (*r_copied)++;
    }
    if (!rc && step != SQLITE_DONE)
        rc = db_fail(st, err, "cannot read the source's runs");
    sqlite3_finalize(runs);
    if (!rc)
        rc = merge_plans(st, err);
    if (!rc)
        rc = merge_nodes(st, err);
    if (!rc && sqlite3_exec(st->db,
                            "UPDATE main.sweeps SET status = 'done' WHERE status != 'done' AND points ="
                            " (SELECT count(*) FROM main.runs r WHERE r.sweep_id = main.sweeps.id"
                            " AND r.status = 'done')", NULL, NULL, NULL) != SQLITE_OK)
        rc = db_fail(st, err, "cannot update sweep statuses");
    return rc;
}

/* ATTACH file AS src: a path, or ":memory:" for an image. */
static int merge_attach(rs_store *st, const char *file, const char *name, rs_err *err)
{
    sqlite3_stmt *attach;
    int rc;

    if (sqlite3_prepare_v2(st->db, "ATTACH DATABASE ?1 AS src", -1, &attach, NULL) != SQLITE_OK)
        return db_fail(st, err, "cannot attach '%s'", name);
    sqlite3_bind_text(attach, 1, file, -1, SQLITE_TRANSIENT);
    rc = sqlite3_step(attach);
    sqlite3_finalize(attach);
    if (rc != SQLITE_DONE)
        return db_fail(st, err, "cannot attach '%s'", name);
    return 0;
}

static int merge_attached(rs_store *st, uint64_t *r_copied, rs_err *err);

int rs_store_merge(rs_store *st, const char *src_path, uint64_t *r_copied, rs_err *err)
{
    rs_store *src;
    int rc;

    *r_copied = 0;
    if ((rc = rs_store_open_ro(&src, src_path, err)))
        return rc; /* it exists and is an rssim database of this schema */
    rs_store_close(src);
    if ((rc = merge_attach(st, src_path, src_path, err)))
        return rc;
    return merge_attached(st, r_copied, err);
}

int rs_store_merge_image(rs_store *st, const char *name, const void *data, size_t size,
                         uint64_t *r_copied, rs_err *err)
{
    rs_store *src;
    int rc;

    *r_copied = 0;
    if ((rc = rs_store_open_image(&src, name, data, size, 0, err)))
        return rc; /* an rssim database of this schema */
    rs_store_close(src);
    if ((rc = merge_attach(st, ":memory:", name, err)))
        return rc;
    /* writable (the merge reads it only, and it is a copy): BEGIN IMMEDIATE
     * takes a write lock on every attached database, which a read-only
     * memdb refuses */
    if ((rc = image_load(st, "src", name, data, size, 0, err))) {
        sqlite3_exec(st->db, "DETACH DATABASE src", NULL, NULL, NULL);
        return rc;
    }
    return merge_attached(st, r_copied, err);
}

/* Merge the attached src into main, in one transaction, and detach it. */
static int merge_attached(rs_store *st, uint64_t *r_copied, rs_err *err)
{
    int rc;

    if (!(rc = tx_begin(st, err, "merge"))) {
        if (sqlite3_exec(st->db, "CREATE TEMP TABLE IF NOT EXISTS merge_map(src INTEGER PRIMARY KEY,"
                                 " dst INTEGER NOT NULL); DELETE FROM temp.merge_map;",
                         NULL, NULL, NULL) != SQLITE_OK)
            rc = db_fail(st, err, "cannot create the merge's run map");
        if (!rc)
            rc = merge_source(st, r_copied, err);
        if (!rc)
            rc = tx_commit(st, err, "the merge");
        if (rc)
            tx_rollback(st);
    }
    sqlite3_exec(st->db, "DETACH DATABASE src", NULL, NULL, NULL);
    return rc;
}

/* ---- trace identities ------------------------------------------------- */

/* 4096 rows kept (prune_sql): the most recently used */
#define TRACE_ID_SETTLED_NS 2000000000LL /* a file changed this recently is not cached */

static int64_t ts_ns(struct timespec t)
{
    return (int64_t)t.tv_sec * 1000000000LL + t.tv_nsec;
}

static int same_file_state(const struct stat *a, const struct stat *b)
{
    return a->st_dev == b->st_dev && a->st_ino == b->st_ino && a->st_size == b->st_size &&
           ts_ns(a->st_mtim) == ts_ns(b->st_mtim) && ts_ns(a->st_ctim) == ts_ns(b->st_ctim);
}

static void bind_file_state(sqlite3_stmt *s, const struct stat *sb)
{
    sqlite3_bind_int64(s, 1, (sqlite3_int64)sb->st_dev);
    sqlite3_bind_int64(s, 2, (sqlite3_int64)sb->st_ino);
    sqlite3_bind_int64(s, 3, (sqlite3_int64)sb->st_size);
    sqlite3_bind_int64(s, 4, ts_ns(sb->st_mtim));
    sqlite3_bind_int64(s, 5, ts_ns(sb->st_ctim));
}

int rs_store_trace_sha256(rs_store *st, const char *path, char r_hex[65], rs_err *err)
{
    static const char get_sql[] = "SELECT sha256 FROM trace_ids WHERE dev = ?1 AND ino = ?2"
                                  " AND size = ?3 AND mtime_ns = ?4 AND ctime_ns = ?5";
    static const char put_sql[] = "INSERT OR REPLACE INTO trace_ids(dev, ino, size, mtime_ns,"
                                  " ctime_ns, sha256, seen_at) VALUES(?1, ?2, ?3, ?4, ?5, ?6, " NOW ")";
    static const char prune_sql[] = "DELETE FROM trace_ids WHERE (dev, ino, size, mtime_ns, ctime_ns)"
                                    " NOT IN (SELECT dev, ino, size, mtime_ns, ctime_ns FROM trace_ids"
                                    " ORDER BY seen_at DESC LIMIT 4096)";
    struct stat before, after;
    sqlite3_stmt *s = NULL;
    int rc;

    if (stat(path, &before) != 0)
        return rs_fail(err, errno == ENOENT || errno == ENOTDIR ? RS_EINPUT : RS_EIO,
                       "cannot open '%s': %s", path, strerror(errno));
    int cacheable = S_ISREG(before.st_mode);
    if (cacheable && sqlite3_prepare_v2(st->db, get_sql, -1, &s, NULL) == SQLITE_OK) {
        bind_file_state(s, &before);
        int found = sqlite3_step(s) == SQLITE_ROW;
        const char *hex = found ? (const char *)sqlite3_column_text(s, 0) : NULL;
        if (hex && strlen(hex) == 64) {
            memcpy(r_hex, hex, 65);
            sqlite3_finalize(s);
            return 0;
        }
    }
    sqlite3_finalize(s); /* a database without the table (read-only, older): a miss */
    s = NULL;
    if ((rc = rs_file_sha256(path, r_hex, err)))
        return rc;
    /* Kept only if the file did not change while it was read, and (as git's
     * "racily clean" rule) was last changed long enough ago that a later
     * change of the same size within the same timestamp tick cannot be
     * mistaken for it. */
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    if (!cacheable || st->readonly || stat(path, &after) != 0 || !same_file_state(&before, &after) ||
        ts_ns(now) - ts_ns(after.st_ctim) < TRACE_ID_SETTLED_NS ||
        ts_ns(now) - ts_ns(after.st_mtim) < TRACE_ID_SETTLED_NS)
        return 0;
    if (sqlite3_prepare_v2(st->db, put_sql, -1, &s, NULL) != SQLITE_OK)
        return db_fail(st, err, "cannot remember the identity of '%s'", path);
    bind_file_state(s, &after);
    sqlite3_bind_text(s, 6, r_hex, 64, SQLITE_STATIC);
    rc = step_reset(s) == SQLITE_DONE &&
                 sqlite3_exec(st->db, prune_sql, NULL, NULL, NULL) == SQLITE_OK
             ? 0
             : db_fail(st, err, "cannot remember the identity of '%s'", path);
    sqlite3_finalize(s);
    return rc;
}

int rs_store_sweep_spec_known(rs_store *st, const char *spec, int *r_known, rs_err *err)
{
    sqlite3_stmt *s = NULL;
    if (sqlite3_prepare_v2(st->db, "SELECT 1 FROM sweeps WHERE spec = ?1 LIMIT 1", -1, &s, NULL) !=
        SQLITE_OK)
        return db_fail(st, err, "cannot look for a sweep");
    sqlite3_bind_text(s, 1, spec, -1, SQLITE_STATIC);
    int rc = sqlite3_step(s);
    *r_known = rc == SQLITE_ROW;
    sqlite3_finalize(s);
    return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : db_fail(st, err, "cannot look for a sweep");
}
