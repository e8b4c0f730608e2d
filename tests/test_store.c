/*
 * test_store.c — the SQLite store: schema, one-transaction finish, a run
 * killed inside its finish, concurrent writers, sweep idempotence, failed
 * runs, a read-only file and a full disk (RLIMIT_FSIZE).
 *
 * Works in a fresh folder under $TMPDIR (or /tmp) and removes it at the end.
 * Checks that need another process fork; the children report through their
 * exit status (0 = as expected) and never touch the parent's handles.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "sim/schema.h"
#include "check.h"
#include "sim/base/config.h"
#include "sim/base/result.h"
#include "sim/store.h"

/* store.c's connection (the store layer's, not in store.h): the schema
 * and fault tests look at and poke the very connection the store uses. */
struct sqlite3 *rs_store_db(rs_store *st);

static char dir_path[4096];

static void path_in_dir(char *buf, size_t n, const char *name)
{
    snprintf(buf, n, "%s/%s", dir_path, name);
}

static double clock_s(clockid_t clk)
{
    struct timespec ts;
    clock_gettime(clk, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static double now_s(void)
{
    return clock_s(CLOCK_MONOTONIC);
}

/* One integer from a query on a fresh connection (the parent's view). */
static int64_t query_int(const char *db_path, const char *sql)
{
    sqlite3 *db = NULL;
    sqlite3_stmt *s = NULL;
    int64_t v = -1;

    if (sqlite3_open_v2(db_path, &db, SQLITE_OPEN_READWRITE, NULL) == SQLITE_OK &&
        sqlite3_busy_timeout(db, 60000) == SQLITE_OK &&
        sqlite3_prepare_v2(db, sql, -1, &s, NULL) == SQLITE_OK && sqlite3_step(s) == SQLITE_ROW)
        v = sqlite3_column_int64(s, 0);
    else
        fprintf(stderr, "query '%s' on '%s': %s\n", sql, db_path, sqlite3_errmsg(db));
    sqlite3_finalize(s);
    sqlite3_close(db);
    return v;
}

/* One text value (copied into buf) from a query; "" when no row. */
static const char *query_text(const char *db_path, const char *sql, char *buf, size_t n)
{
    sqlite3 *db = NULL;
    sqlite3_stmt *s = NULL;

    buf[0] = '\0';
    if (sqlite3_open_v2(db_path, &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK &&
        sqlite3_prepare_v2(db, sql, -1, &s, NULL) == SQLITE_OK && sqlite3_step(s) == SQLITE_ROW &&
        sqlite3_column_text(s, 0))
        snprintf(buf, n, "%s", (const char *)sqlite3_column_text(s, 0));
    sqlite3_finalize(s);
    sqlite3_close(db);
    return buf;
}

static int64_t count_rows(const char *db_path, const char *table, int64_t run_id)
{
    char sql[256];
    snprintf(sql, sizeof sql, "SELECT count(*) FROM %s WHERE run_id = %lld", table,
             (long long)run_id);
    return query_int(db_path, sql);
}

static const char *run_status(const char *db_path, int64_t run_id, char *buf, size_t n)
{
    char sql[128];
    snprintf(sql, sizeof sql, "SELECT status FROM runs WHERE id = %lld", (long long)run_id);
    return query_text(db_path, sql, buf, n);
}

static rs_config *make_cfg(const char *limit)
{
    rs_config *cfg = NULL;
    rs_err err;
    if (rs_config_new(&cfg, &err) != 0) {
        fprintf(stderr, "rs_config_new: %s\n", err.msg);
        exit(1);
    }
    rs_config_set(cfg, "mds_cache_memory_limit", limit, &err);
    rs_config_set(cfg, "alloc", "tcmalloc", &err);
    rs_config_set(cfg, "layout", "mds-pr19954", &err);
    return cfg;
}

static rs_run_meta make_meta(void)
{
    rs_run_meta m = {
        .kind = "predicted",
        .trace_path = "traces/tiny.tsv",
        .trace_sha256 = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
        .preset = "mds-octopus",
        .seed = 42,
        .label = "limit=64M",
        .sweep_id = 0,
        .point_index = -1,
    };
    return m;
}

/* A result with n samples (t_ns = i ms, a sawtooth of accounted bytes) and
 * nmetrics metrics; tag makes values differ between runs. */
static void make_result(rs_result *res, size_t n, size_t nmetrics, uint64_t tag)
{
    rs_err err;
    rs_result_init(res);
    for (size_t i = 0; i < n; i++) {
        rs_sample s = { 0 };
        s.t_ns = (uint64_t)i * 1000000u;
        s.accounted_bytes = (i % 1000) * 65536u + tag;
        s.resident_bytes = s.accounted_bytes * 3 / 2;
        s.base_bytes = 100u << 20;
        s.rss_bytes = s.resident_bytes + s.base_bytes;
        s.limit_bytes = 64u << 20;
        s.items_count = i;
        s.x = 1.0 - (double)s.accounted_bytes / (double)s.rss_bytes;
        s.overshoot = (double)s.rss_bytes / (double)s.limit_bytes;
        if (rs_result_add_sample(res, &s, &err) != 0) {
            fprintf(stderr, "rs_result_add_sample: %s\n", err.msg);
            exit(1);
        }
    }
    for (size_t i = 0; i < nmetrics; i++) {
        char name[48];
        snprintf(name, sizeof name, "metric_%zu", i);
        rs_result_set_metric(res, name, (double)(i + tag), &err);
    }
}

static void test_schema(void)
{
    char db[4200], buf[64];
    rs_store *st = NULL;
    rs_err err = { 0 };

    path_in_dir(db, sizeof db, "schema.db");
    CHECK_MSG(rs_store_open(&st, db, &err) == 0, "%s", err.msg);
    if (!st)
        return;
    sqlite3_stmt *s = NULL;
    sqlite3_prepare_v2(rs_store_db(st), "PRAGMA journal_mode", -1, &s, NULL);
    CHECK(sqlite3_step(s) == SQLITE_ROW && !strcmp((const char *)sqlite3_column_text(s, 0), "wal"));
    sqlite3_finalize(s);
    s = NULL;
    sqlite3_prepare_v2(rs_store_db(st), "PRAGMA foreign_keys", -1, &s, NULL);
    CHECK(sqlite3_step(s) == SQLITE_ROW && sqlite3_column_int(s, 0) == 1);
    sqlite3_finalize(s);
    CHECK(!strcmp(rs_store_path(st), db));
    rs_store_close(st);

    CHECK(!strcmp(query_text(db, "SELECT value FROM meta WHERE key='schema_version'", buf,
                             sizeof buf), "6"));
    CHECK_EQ_U64(query_int(db, "SELECT count(*) FROM sqlite_schema WHERE type='table' AND name"
                               " IN ('meta','sweeps','runs','params','samples','metrics')"), 6);
    /* one column per X-macro entry, plus run_id */
#define ONE(name) +1
    CHECK_EQ_U64(query_int(db, "SELECT count(*) FROM pragma_table_info('samples')"),
                 1 RS_SAMPLE_INT_COLUMNS(ONE) RS_SAMPLE_REAL_COLUMNS(ONE));
#undef ONE
    CHECK_EQ_U64(query_int(db, "SELECT count(*) FROM sqlite_schema WHERE type='index' AND"
                               " name='runs_sweep_point' AND sql LIKE '%UNIQUE%'"), 1);

    /* opening again migrates nothing and keeps one version row */
    CHECK_MSG(rs_store_open(&st, db, &err) == 0, "%s", err.msg);
    rs_store_close(st);
    CHECK_EQ_U64(query_int(db, "SELECT count(*) FROM meta"), 1);

    /* a newer schema is refused, not misread */
    sqlite3 *raw = NULL;
    sqlite3_open(db, &raw);
    sqlite3_exec(raw, "UPDATE meta SET value='99' WHERE key='schema_version'", NULL, NULL, NULL);
    sqlite3_close(raw);
    st = NULL;
    CHECK(rs_store_open(&st, db, &err) == RS_EDB && st == NULL);
    CHECK_MSG(strstr(err.msg, "schema version 99") != NULL, "%s", err.msg);
}

/* A version-3 database (no plans tables) is migrated to 6 by a writing
 * open, its runs kept; a read-only open of it names the way to migrate;
 * so is a version-4 one (no node tables). */
static void test_migrate_3_to_4(void)
{
    char db[4200];
    rs_store *st = NULL;
    rs_err err = { 0 };
    sqlite3 *raw = NULL;

    path_in_dir(db, sizeof db, "v3.db");
    CHECK_MSG(rs_store_open(&st, db, &err) == 0, "%s", err.msg);
    rs_store_close(st);
    sqlite3_open(db, &raw);
    sqlite3_exec(raw, "DROP TABLE plan_evals; DROP TABLE plans;"
                      "UPDATE meta SET value='3' WHERE key='schema_version'", NULL, NULL, NULL);
    sqlite3_close(raw);
    st = NULL;
    CHECK(rs_store_open_ro(&st, db, &err) == RS_EDB && st == NULL);
    CHECK_MSG(strstr(err.msg, "version 3") && strstr(err.msg, "migrates it"), "%s", err.msg);
    CHECK_MSG(rs_store_open(&st, db, &err) == 0, "%s", err.msg);
    rs_store_close(st);
    CHECK_EQ_U64(query_int(db, "SELECT value FROM meta WHERE key='schema_version'"), 6);
    CHECK_EQ_U64(query_int(db, "SELECT count(*) FROM sqlite_schema WHERE type='table' AND name"
                               " IN ('plans','plan_evals')"), 2);
    CHECK_EQ_U64(query_int(db, "SELECT count(*) FROM sqlite_schema WHERE type='table' AND name"
                               " IN ('nodes','node_members','node_samples','node_metrics')"), 4);

    /* a version-4 database (no node tables) is migrated to 6 the same way */
    sqlite3_open(db, &raw);
    sqlite3_exec(raw, "DROP TABLE node_metrics; DROP TABLE node_samples; DROP TABLE node_members;"
                      "DROP TABLE nodes; UPDATE meta SET value='4' WHERE key='schema_version'",
                 NULL, NULL, NULL);
    sqlite3_close(raw);
    st = NULL;
    CHECK(rs_store_open_ro(&st, db, &err) == RS_EDB && st == NULL);
    CHECK_MSG(strstr(err.msg, "version 4") && strstr(err.msg, "migrates it"), "%s", err.msg);
    CHECK_MSG(rs_store_open(&st, db, &err) == 0, "%s", err.msg);
    rs_store_close(st);
    CHECK_EQ_U64(query_int(db, "SELECT value FROM meta WHERE key='schema_version'"), 6);
    CHECK_EQ_U64(query_int(db, "SELECT count(*) FROM sqlite_schema WHERE type='table' AND name"
                               " IN ('nodes','node_members','node_samples','node_metrics')"), 4);
    CHECK_EQ_U64(query_int(db, "SELECT count(*) FROM plans"), 0);
}

static void test_open_ro(void)
{
    char db[4200], other[4200];
    rs_store *st = NULL;
    rs_err err = { 0 };
    struct stat sb;

    path_in_dir(db, sizeof db, "missing.db");
    CHECK(rs_store_open_ro(&st, db, &err) == RS_ENOTFOUND && st == NULL);
    CHECK_MSG(strstr(err.msg, "no database") && strstr(err.msg, db), "%s", err.msg);
    CHECK(stat(db, &sb) != 0); /* reading never creates the file */

    path_in_dir(other, sizeof other, "other.db");
    sqlite3 *raw = NULL;
    sqlite3_open(other, &raw);
    sqlite3_exec(raw, "CREATE TABLE t(a)", NULL, NULL, NULL);
    sqlite3_close(raw);
    CHECK(rs_store_open_ro(&st, other, &err) == RS_EINPUT && st == NULL);
    CHECK_MSG(strstr(err.msg, "not an rssim database") != NULL, "%s", err.msg);

    /* writes through a read-only handle fail cleanly */
    path_in_dir(db, sizeof db, "ro.db");
    CHECK(rs_store_open(&st, db, &err) == 0);
    rs_store_close(st);
    CHECK(rs_store_open_ro(&st, db, &err) == 0);
    if (st) {
        rs_run_meta m = make_meta();
        int64_t id = 0;
        CHECK(rs_store_run_begin(st, &m, NULL, &id, &err) == RS_EDB);
        CHECK_MSG(strstr(err.msg, "read-only") != NULL, "%s", err.msg);
        char status[16];
        CHECK(rs_store_run_status(st, 7, status, &err) == RS_ENOTFOUND);
        rs_store_close(st);
    }
}

static void test_begin_finish(void)
{
    char db[4200], buf[512];
    rs_store *st = NULL;
    rs_err err = { 0 };
    rs_config *cfg = make_cfg("64M");
    rs_run_meta meta = make_meta();
    rs_result res;
    int64_t id = 0;
    char status[16];

    path_in_dir(db, sizeof db, "runs.db");
    CHECK_MSG(rs_store_open(&st, db, &err) == 0, "%s", err.msg);
    if (!st)
        return;
    CHECK_MSG(rs_store_run_begin(st, &meta, cfg, &id, &err) == 0, "%s", err.msg);
    CHECK(id > 0);
    CHECK(rs_store_run_status(st, id, status, &err) == 0 && !strcmp(status, "running"));
    CHECK(!strcmp(run_status(db, id, buf, sizeof buf), "running"));
    CHECK_EQ_U64(count_rows(db, "params", id), rs_config_count(cfg));
    snprintf(buf, sizeof buf, "SELECT count(*) FROM runs WHERE id=%lld AND version='%s' AND"
             " started_at IS NOT NULL AND seed=42 AND sweep_id IS NULL AND point_index IS NULL"
             " AND length(param_hash)=16 AND kind='predicted'", (long long)id, RSSIM_VERSION);
    CHECK_EQ_U64(query_int(db, buf), 1);

    make_result(&res, 1000, 18, 1);
    CHECK_MSG(rs_store_run_finish(st, id, &res, 12345, 678, &err) == 0, "%s", err.msg);
    CHECK(!strcmp(run_status(db, id, buf, sizeof buf), "done"));
    CHECK_EQ_U64(count_rows(db, "samples", id), 1000);
    CHECK_EQ_U64(count_rows(db, "metrics", id), 18);
    snprintf(buf, sizeof buf, "SELECT events*1000+wall_ns FROM runs WHERE id=%lld AND"
             " finished_at IS NOT NULL AND error IS NULL", (long long)id);
    CHECK_EQ_U64(query_int(db, buf), 12345 * 1000 + 678);
    snprintf(buf, sizeof buf, "SELECT rss_bytes FROM samples WHERE run_id=%lld AND t_ns=5000000",
             (long long)id);
    CHECK_EQ_U64(query_int(db, buf), res.samples[5].rss_bytes);
    rs_result_release(&res);

    /* finishing again replaces the earlier attempt's rows */
    make_result(&res, 10, 3, 2);
    CHECK_MSG(rs_store_run_finish(st, id, &res, 1, 1, &err) == 0, "%s", err.msg);
    CHECK_EQ_U64(count_rows(db, "samples", id), 10);
    CHECK_EQ_U64(count_rows(db, "metrics", id), 3);

    /* an unknown run is not found and writes nothing */
    CHECK(rs_store_run_finish(st, 999999, &res, 1, 1, &err) == RS_ENOTFOUND);
    CHECK_MSG(strstr(err.msg, "no run 999999") != NULL, "%s", err.msg);
    CHECK_EQ_U64(count_rows(db, "samples", 999999), 0);
    rs_result_release(&res);

    /* a failing insert inside finish (duplicate t_ns) rolls everything back */
    make_result(&res, 100, 3, 3);
    res.samples[50].t_ns = res.samples[49].t_ns;
    CHECK(rs_store_run_finish(st, id, &res, 1, 1, &err) == RS_EDB);
    CHECK_MSG(strstr(err.msg, db) && strstr(err.msg, "UNIQUE"), "%s", err.msg);
    CHECK_EQ_U64(count_rows(db, "samples", id), 10); /* the previous attempt is intact */
    CHECK(rs_store_run_status(st, id, status, &err) == 0 && !strcmp(status, "done"));
    rs_result_release(&res);

    rs_store_close(st);
    rs_config_free(cfg);
}

/* The bulk-path bound: 10^5 samples in well under a second in a normal
 * build (about 0.3 s measured on an idle machine).  It is checked on the
 * process's CPU time, which other jobs of a parallel ctest do not inflate;
 * the wall time is printed too.  AddressSanitizer intercepts every one of
 * SQLite's mallocs and makes it ~4x slower, so it only gets a sanity bound. */
#ifdef __SANITIZE_ADDRESS__
#define BULK_LIMIT_S 5.0
#else
#define BULK_LIMIT_S 1.0
#endif

/* 10^5 samples, the bulk path; prints the measured rate. */
static void test_throughput(void)
{
    char db[4200];
    rs_store *st = NULL;
    rs_err err = { 0 };
    rs_run_meta meta = make_meta();
    rs_result res;
    int64_t id = 0;
    const size_t n = 100000;

    path_in_dir(db, sizeof db, "bulk.db");
    CHECK_MSG(rs_store_open(&st, db, &err) == 0, "%s", err.msg);
    if (!st)
        return;
    make_result(&res, n, 18, 0);
    CHECK(rs_store_run_begin(st, &meta, NULL, &id, &err) == 0);
    double t0 = now_s(), c0 = clock_s(CLOCK_PROCESS_CPUTIME_ID);
    CHECK_MSG(rs_store_run_finish(st, id, &res, 0, 0, &err) == 0, "%s", err.msg);
    double dt = now_s() - t0, dc = clock_s(CLOCK_PROCESS_CPUTIME_ID) - c0;
    printf("insert: %zu samples in %.3f s wall (%.0f samples/s), %.3f s cpu\n", n, dt,
           (double)n / dt, dc);
    CHECK_MSG(dc < BULK_LIMIT_S, "%zu samples took %.3f s cpu (limit %.1f s)", n, dc,
              BULK_LIMIT_S);
    CHECK_EQ_U64(count_rows(db, "samples", id), n);
    rs_result_release(&res);
    rs_store_close(st);
}

static off_t file_bytes(const char *path)
{
    struct stat sb;
    return stat(path, &sb) == 0 ? sb.st_size : 0;
}

/* A child begins a run and starts finishing 600k samples; the parent waits
 * until the child's transaction has spilled megabytes into the WAL (so the
 * child is inside rs_store_run_finish), kills it with SIGKILL, and checks
 * the run is still 'running' with no samples and no metrics.  Then the
 * parent finishes the same run itself, as a resumed sweep would. */
static void test_killed_finish(void)
{
    char db[4200], wal[4300], buf[64];
    int fds[2];
    int64_t id = 0;
    rs_err err = { 0 };
    rs_store *st = NULL;

    path_in_dir(db, sizeof db, "killed.db");
    snprintf(wal, sizeof wal, "%s-wal", db);
    CHECK(rs_store_open(&st, db, &err) == 0); /* create it before the race */
    rs_store_close(st);
    if (pipe(fds) != 0)
        return;
    pid_t pid = fork();
    if (pid == 0) {
        rs_result res;
        rs_run_meta meta = make_meta();
        close(fds[0]);
        make_result(&res, 600000, 18, 0);
        if (rs_store_open(&st, db, &err) || rs_store_run_begin(st, &meta, NULL, &id, &err))
            _exit(3);
        if (write(fds[1], &id, sizeof id) != (ssize_t)sizeof id)
            _exit(4);
        int rc = rs_store_run_finish(st, id, &res, 1, 1, &err);
        _exit(rc == 0 ? 0 : 5);
    }
    close(fds[1]);
    CHECK(read(fds[0], &id, sizeof id) == (ssize_t)sizeof id);
    close(fds[0]);
    off_t wal0 = file_bytes(wal);
    double t0 = now_s();
    int exited = 0, wstatus = 0;
    while (file_bytes(wal) < wal0 + (4 << 20) && now_s() - t0 < 60) {
        if (waitpid(pid, &wstatus, WNOHANG) == pid) {
            exited = 1;
            break;
        }
        usleep(1000);
    }
    if (!exited) {
        kill(pid, SIGKILL);
        waitpid(pid, &wstatus, 0);
    }
    CHECK_MSG(WIFSIGNALED(wstatus) && WTERMSIG(wstatus) == SIGKILL,
              "the child was not killed inside its finish (status %d)", wstatus);
    printf("killed: wal grew by %lld bytes before SIGKILL\n", (long long)(file_bytes(wal) - wal0));
    CHECK(id > 0);
    CHECK_MSG(!strcmp(run_status(db, id, buf, sizeof buf), "running"), "status '%s'", buf);
    CHECK_EQ_U64(count_rows(db, "samples", id), 0);
    CHECK_EQ_U64(count_rows(db, "metrics", id), 0);

    /* the database is usable and the run can be finished after the crash */
    rs_result res;
    make_result(&res, 100, 2, 0);
    CHECK(rs_store_open(&st, db, &err) == 0);
    if (st) {
        CHECK_MSG(rs_store_run_finish(st, id, &res, 1, 1, &err) == 0, "%s", err.msg);
        rs_store_close(st);
    }
    CHECK(!strcmp(run_status(db, id, buf, sizeof buf), "done"));
    CHECK_EQ_U64(count_rows(db, "samples", id), 100);
    rs_result_release(&res);
}

/* Four processes open a new file at the same moment (released together by
 * closing a pipe) and each write 12 runs; all must succeed. */
static void test_concurrent(void)
{
    enum { NPROC = 4, NRUNS = 12, NSAMPLES = 2000 };
    char db[4200];
    pid_t pids[NPROC];
    int gate[2];

    path_in_dir(db, sizeof db, "concurrent.db");
    if (pipe(gate) != 0)
        return;
    for (int p = 0; p < NPROC; p++) {
        pids[p] = fork();
        if (pids[p] == 0) {
            rs_store *st = NULL;
            rs_err err = { 0 };
            rs_result res;
            rs_config *cfg = make_cfg("1G");
            rs_run_meta meta = make_meta();
            char c;
            make_result(&res, NSAMPLES, 10, (uint64_t)p);
            close(gate[1]);
            if (read(gate[0], &c, 1) != 0) /* EOF when the parent closes it */
                _exit(2);
            if (rs_store_open(&st, db, &err)) {
                fprintf(stderr, "writer %d: %s\n", p, err.msg);
                _exit(1);
            }
            for (int r = 0; r < NRUNS; r++) {
                int64_t id;
                meta.seed = (uint64_t)(p * 1000 + r);
                if (rs_store_run_begin(st, &meta, cfg, &id, &err) ||
                    rs_store_run_finish(st, id, &res, 1, 1, &err)) {
                    fprintf(stderr, "writer %d: %s\n", p, err.msg);
                    _exit(1);
                }
            }
            rs_store_close(st);
            _exit(0);
        }
    }
    close(gate[0]);
    usleep(100000); /* let every child reach its read() */
    close(gate[1]);
    for (int p = 0; p < NPROC; p++) {
        int wstatus = 0;
        waitpid(pids[p], &wstatus, 0);
        CHECK_MSG(WIFEXITED(wstatus) && WEXITSTATUS(wstatus) == 0, "writer %d: status %d", p,
                  wstatus);
    }
    CHECK_EQ_U64(query_int(db, "SELECT count(*) FROM runs WHERE status='done'"), NPROC * NRUNS);
    CHECK_EQ_U64(query_int(db, "SELECT count(*) FROM samples"), NPROC * NRUNS * NSAMPLES);
    CHECK_EQ_U64(query_int(db, "SELECT count(DISTINCT seed) FROM runs"), NPROC * NRUNS);
}

static void test_sweep(void)
{
    char db[4200], buf[512];
    rs_store *st = NULL;
    rs_err err = { 0 };
    rs_config *cfg = make_cfg("128M");
    rs_run_meta meta = make_meta();
    rs_sweep_meta sm = {
        .spec_hash = "abc123",
        .trace_path = "traces/tiny.tsv",
        .trace_sha256 = meta.trace_sha256,
        .preset = "mds-octopus",
        .spec = "--vary mds_cache_memory_limit=64M,128M",
        .varied_keys = "mds_cache_memory_limit",
        .points = 2,
        .jobs = 2,
    };
    int64_t s1 = 0, s2 = 0, s3 = 0, r0 = 0, r0b = 0, r1 = 0;
    int created = -1;
    char status[16];

    path_in_dir(db, sizeof db, "sweeps.db");
    CHECK(rs_store_open(&st, db, &err) == 0);
    if (!st)
        return;
    CHECK_MSG(rs_store_sweep_open(st, &sm, &s1, &created, &err) == 0, "%s", err.msg);
    CHECK(s1 > 0 && created == 1);
    CHECK(rs_store_sweep_open(st, &sm, &s2, &created, &err) == 0);
    CHECK(s2 == s1 && created == 0);
    sm.spec_hash = "def456";
    CHECK(rs_store_sweep_open(st, &sm, &s3, &created, &err) == 0);
    CHECK(s3 != s1 && created == 1);
    CHECK_EQ_U64(query_int(db, "SELECT count(*) FROM sweeps"), 2);

    meta.label = "mds_cache_memory_limit=64M";
    CHECK_MSG(rs_store_sweep_point(st, s1, 0, &meta, cfg, &r0, &err) == 0, "%s", err.msg);
    CHECK(rs_store_sweep_point(st, s1, 0, &meta, cfg, &r0b, &err) == 0);
    CHECK(r0 > 0 && r0b == r0);
    { /* the same point with other params: another grid under this identity */
        rs_config *other = NULL;
        int64_t rx = 0;
        CHECK(rs_config_clone(cfg, &other, &err) == 0 &&
              rs_config_set(other, "seed", "424242", &err) == 0);
        CHECK(rs_store_sweep_point(st, s1, 0, &meta, other, &rx, &err) == RS_EINTERNAL);
        CHECK_MSG(strstr(err.msg, "with other params") != NULL, "%s", err.msg);
        rs_config_free(other);
    }
    CHECK(rs_store_sweep_point(st, s1, 1, &meta, cfg, &r1, &err) == 0);
    CHECK(r1 != r0);
    CHECK_EQ_U64(query_int(db, "SELECT count(*) FROM runs"), 2);
    CHECK_EQ_U64(count_rows(db, "params", r0), rs_config_count(cfg));
    snprintf(buf, sizeof buf, "SELECT count(*) FROM runs WHERE id=%lld AND sweep_id=%lld AND"
             " point_index=0 AND started_at IS NULL", (long long)r0, (long long)s1);
    CHECK_EQ_U64(query_int(db, buf), 1);
    CHECK(rs_store_run_status(st, r0, status, &err) == 0 && !strcmp(status, "pending"));

    CHECK_MSG(rs_store_run_claim(st, r0, &err) == 0, "%s", err.msg);
    CHECK(rs_store_run_status(st, r0, status, &err) == 0 && !strcmp(status, "running"));
    rs_result res;
    make_result(&res, 5, 2, 0);
    CHECK(rs_store_run_finish(st, r0, &res, 1, 1, &err) == 0);
    rs_result_release(&res);
    CHECK(rs_store_run_claim(st, r0, &err) == RS_EINPUT); /* done stays done */
    CHECK(rs_store_run_status(st, r0, status, &err) == 0 && !strcmp(status, "done"));
    CHECK(rs_store_run_claim(st, 424242, &err) == RS_ENOTFOUND);

    CHECK(rs_store_sweep_set_status(st, s1, "done", &err) == 0);
    snprintf(buf, sizeof buf, "SELECT count(*) FROM sweeps WHERE id=%lld AND status='done'",
             (long long)s1);
    CHECK_EQ_U64(query_int(db, buf), 1);
    CHECK(rs_store_sweep_set_status(st, 9999, "done", &err) == RS_ENOTFOUND);
    rs_store_close(st);
    rs_config_free(cfg);
}

static void test_fail(void)
{
    char db[4200], buf[512];
    rs_store *st = NULL;
    rs_err err = { 0 };
    rs_run_meta meta = make_meta();
    rs_result res;
    int64_t id = 0;

    path_in_dir(db, sizeof db, "fail.db");
    CHECK(rs_store_open(&st, db, &err) == 0);
    if (!st)
        return;
    make_result(&res, 50, 4, 0);
    CHECK(rs_store_run_begin(st, &meta, NULL, &id, &err) == 0);
    CHECK(rs_store_run_finish(st, id, &res, 1, 1, &err) == 0);
    CHECK(rs_store_run_claim(st, id, &err) == RS_EINPUT);
    /* rows left by some earlier attempt, then the run fails */
    snprintf(buf, sizeof buf, "UPDATE runs SET status='running' WHERE id=%lld", (long long)id);
    CHECK(sqlite3_exec(rs_store_db(st), buf, NULL, NULL, NULL) == SQLITE_OK);
    CHECK_EQ_U64(count_rows(db, "samples", id), 50);
    CHECK_MSG(rs_store_run_fail(st, id, "trace 'x.tsv':12: bad op", &err) == 0, "%s", err.msg);
    CHECK(!strcmp(run_status(db, id, buf, sizeof buf), "failed"));
    CHECK_EQ_U64(count_rows(db, "samples", id), 0);
    CHECK_EQ_U64(count_rows(db, "metrics", id), 0);
    snprintf(buf, sizeof buf, "SELECT count(*) FROM runs WHERE id=%lld AND"
             " error='trace ''x.tsv'':12: bad op' AND finished_at IS NOT NULL", (long long)id);
    CHECK_EQ_U64(query_int(db, buf), 1);
    CHECK(rs_store_run_fail(st, 31337, "x", &err) == RS_ENOTFOUND);
    /* a failed run may be claimed again, and its error is cleared */
    CHECK(rs_store_run_claim(st, id, &err) == 0);
    snprintf(buf, sizeof buf, "SELECT count(*) FROM runs WHERE id=%lld AND error IS NULL AND"
             " status='running'", (long long)id);
    CHECK_EQ_U64(query_int(db, buf), 1);
    rs_result_release(&res);
    rs_store_close(st);
}

/* Opening a file we may not write must give RS_EDB naming it, not a crash.
 * Root may write any file, so the child drops to nobody first. */
static void test_readonly_file(void)
{
    char db[4200];
    rs_store *st = NULL;
    rs_err err = { 0 };

    path_in_dir(db, sizeof db, "readonly.db");
    CHECK(rs_store_open(&st, db, &err) == 0);
    rs_store_close(st);
    CHECK(chmod(db, 0444) == 0 && chmod(dir_path, 0755) == 0);
    pid_t pid = fork();
    if (pid == 0) {
        if (geteuid() == 0 && (setgid(65534) != 0 || setuid(65534) != 0))
            _exit(3);
        int rc = rs_store_open(&st, db, &err);
        fprintf(stderr, "read-only file (expected error): %s\n", err.msg);
        _exit(rc == RS_EDB && st == NULL && strstr(err.msg, db) ? 0 : 1);
    }
    int wstatus = 0;
    waitpid(pid, &wstatus, 0);
    CHECK_MSG(WIFEXITED(wstatus) && WEXITSTATUS(wstatus) == 0, "child status %d", wstatus);
    chmod(dir_path, 0700);
}

/* A disk that fills during finish: RLIMIT_FSIZE makes write() fail with
 * EFBIG; finish must return RS_EDB, leave the run 'running' with no rows,
 * and the handle must still work (rs_store_run_fail succeeds). */
static void test_full_disk(void)
{
    char db[4200], buf[64];
    rs_store *st = NULL;
    rs_err err = { 0 };
    int fds[2];
    int64_t id = 0;

    path_in_dir(db, sizeof db, "full.db");
    CHECK(rs_store_open(&st, db, &err) == 0);
    rs_store_close(st);
    if (pipe(fds) != 0)
        return;
    pid_t pid = fork();
    if (pid == 0) {
        rs_result res;
        rs_run_meta meta = make_meta();
        struct rlimit rl = { .rlim_cur = 2 << 20, .rlim_max = RLIM_INFINITY };
        close(fds[0]);
        make_result(&res, 200000, 4, 0);
        signal(SIGXFSZ, SIG_IGN);
        if (rs_store_open(&st, db, &err) || rs_store_run_begin(st, &meta, NULL, &id, &err))
            _exit(3);
        if (write(fds[1], &id, sizeof id) != (ssize_t)sizeof id || setrlimit(RLIMIT_FSIZE, &rl))
            _exit(4);
        int rc = rs_store_run_finish(st, id, &res, 1, 1, &err);
        fprintf(stderr, "full disk (expected error): %s\n", err.msg);
        if (rc != RS_EDB || !strstr(err.msg, db))
            _exit(5);
        if (rs_store_run_fail(st, id, err.msg, &err)) {
            fprintf(stderr, "fail after full disk: %s\n", err.msg);
            _exit(6);
        }
        rs_store_close(st);
        _exit(0);
    }
    close(fds[1]);
    CHECK(read(fds[0], &id, sizeof id) == (ssize_t)sizeof id);
    close(fds[0]);
    int wstatus = 0;
    waitpid(pid, &wstatus, 0);
    CHECK_MSG(WIFEXITED(wstatus) && WEXITSTATUS(wstatus) == 0, "child status %d", wstatus);
    CHECK(!strcmp(run_status(db, id, buf, sizeof buf), "failed"));
    CHECK_EQ_U64(count_rows(db, "samples", id), 0);
}

static void remove_dir(void)
{
    char cmd[4200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir_path);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove '%s'\n", dir_path);
}

int main(void)
{
    const char *tmp = getenv("TMPDIR");
    snprintf(dir_path, sizeof dir_path, "%s/rssim-test-store-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(dir_path)) {
        perror("mkdtemp");
        return 1;
    }
    test_schema();
    test_migrate_3_to_4();
    test_open_ro();
    test_begin_finish();
    test_throughput();
    test_killed_finish();
    test_concurrent();
    test_sweep();
    test_fail();
    test_readonly_file();
    test_full_disk();
    remove_dir();
    return check_done();
}
