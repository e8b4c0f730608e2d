/*
 * test_store_batch.c — rs_store_batch_begin/commit: the points of a sweep
 * written in one transaction are all there after commit; a write that
 * fails inside the batch undoes every write of it, and the commit then
 * says so; writes after the batch are their own transactions again.
 */
#include <sqlite3.h>
#include <string.h>

#include "check.h"
#include "scratch.h"
#include "sim/schema.h"
#include "sim/store.h"

static long long count(const char *db, const char *sql)
{
    sqlite3 *raw = NULL;
    sqlite3_stmt *s = NULL;
    long long n = -1;
    sqlite3_open(db, &raw);
    if (sqlite3_prepare_v2(raw, sql, -1, &s, NULL) == SQLITE_OK && sqlite3_step(s) == SQLITE_ROW)
        n = sqlite3_column_int64(s, 0);
    sqlite3_finalize(s);
    sqlite3_close(raw);
    return n;
}

int main(void)
{
    rs_store *st = NULL;
    rs_config *cfg = NULL;
    rs_err err = { 0 };
    int64_t sweep_id = 0, id = 0;
    int created = 0;

    CHECK(scratch_dir("store-batch") == 0);
    const char *db = path_in("b.db");
    CHECK(rs_config_new(&cfg, &err) == 0);
    CHECK(rs_config_set(cfg, "sample_interval", "10ms", &err) == 0);
    CHECK_MSG(rs_store_open(&st, db, &err) == 0, "%s", err.msg);
    rs_sweep_meta sm = { .spec_hash = "h1", .trace_path = "t", .trace_sha256 = "s", .preset = "p",
                         .spec = "--vary x", .varied_keys = "x", .points = 3, .jobs = 1 };
    CHECK(rs_store_sweep_open(st, &sm, &sweep_id, &created, &err) == 0 && created);
    rs_run_meta m = { .kind = "predicted", .trace_path = "t", .trace_sha256 = "s", .preset = "p",
                      .seed = 1, .label = "x", .point_index = -1 };

    /* a batch of three points: one commit, all there */
    CHECK(rs_store_batch_begin(st, &err) == 0);
    CHECK(rs_store_batch_begin(st, &err) == RS_EINTERNAL); /* not nested */
    for (int p = 0; p < 3; p++)
        CHECK_MSG(rs_store_sweep_point(st, sweep_id, p, &m, cfg, &id, &err) == 0, "%s", err.msg);
    CHECK(count(db, "SELECT count(*) FROM runs") == 0); /* not committed yet */
    CHECK_MSG(rs_store_batch_commit(st, &err) == 0, "%s", err.msg);
    CHECK(count(db, "SELECT count(*) FROM runs") == 3);
    CHECK(count(db, "SELECT count(*) FROM params WHERE key = 'sample_interval'") == 3);

    /* a failing write inside a batch undoes the batch */
    sm.spec_hash = "h2";
    int64_t sweep2 = 0;
    CHECK(rs_store_sweep_open(st, &sm, &sweep2, &created, &err) == 0);
    CHECK(rs_store_batch_begin(st, &err) == 0);
    CHECK(rs_store_sweep_point(st, sweep2, 0, &m, cfg, &id, &err) == 0);
    CHECK(rs_store_sweep_point(st, 999, 0, &m, cfg, &id, &err) == RS_EDB); /* no sweep 999 */
    CHECK(rs_store_batch_commit(st, &err) == RS_EINTERNAL);
    CHECK_MSG(strstr(err.msg, "undid it") != NULL, "%s", err.msg);
    CHECK(count(db, "SELECT count(*) FROM runs WHERE sweep_id = 2") == 0);

    /* and the handle is usable, one transaction per write again */
    CHECK_MSG(rs_store_sweep_point(st, sweep2, 0, &m, cfg, &id, &err) == 0, "%s", err.msg);
    CHECK(count(db, "SELECT count(*) FROM runs WHERE sweep_id = 2") == 1);
    rs_store_close(st);
    rs_config_free(cfg);
    char cmd[400];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "cannot remove %s\n", dir);
    return check_done();
}
