/*
 * query.c — the store's read side: typed answers for the command line; see
 * query.h and docs/store.md.
 *
 * Design: every query prepares its statements on the store's connection
 * (store.c keeps the handle; rs_store_db is the store layer's private way
 * to it), binds, steps and finalizes before returning, so a read-only handle
 * needs nothing prepared at open.  Large results stream: one row is decoded
 * into a stack struct and handed to the caller's callback, and the next
 * step reuses it, so `runs export` of 10^4 runs x 10^3 samples holds one
 * sample at a time.  Sample columns come from result.h's X-macros, like the
 * schema in store.c; a caller's column names are checked against that list
 * before they go into SQL, so no text from outside reaches a statement
 * unbound.  Integers are read as SQLite's int64 and handed over as the
 * uint64 rs_sample holds (store.c writes them the other way round).
 */
#include "query.h"

#include <inttypes.h>
#include <math.h>
#include <sqlite3.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* store.c's connection; for the store layer only, so not in store.h. */
struct sqlite3 *rs_store_db(rs_store *st);

/* Fill err with RS_EDB: "<what> in '<path>': <sqlite message>". */
static int q_fail(rs_store *st, rs_err *err, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int q_fail(rs_store *st, rs_err *err, const char *fmt, ...)
{
    char what[512];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    return rs_fail(err, RS_EDB, "%s in '%s': %s", what, rs_store_path(st),
                   sqlite3_errmsg(rs_store_db(st)));
}

static int prepare(rs_store *st, const char *sql, sqlite3_stmt **r_s, rs_err *err,
                   const char *what)
{
    if (sqlite3_prepare_v2(rs_store_db(st), sql, -1, r_s, NULL) != SQLITE_OK) {
        *r_s = NULL;
        return q_fail(st, err, "cannot %s", what);
    }
    return 0;
}

static double real_or_nan(sqlite3_stmt *s, int col)
{
    return sqlite3_column_type(s, col) == SQLITE_NULL ? NAN : sqlite3_column_double(s, col);
}

static const char *text_or_null(sqlite3_stmt *s, int col)
{
    return (const char *)sqlite3_column_text(s, col);
}

/* 0 when run_id exists, RS_ENOTFOUND "no run N in 'path'" otherwise. */
static int run_check(rs_store *st, int64_t run_id, rs_err *err)
{
    sqlite3_stmt *s;
    int rc;

    if ((rc = prepare(st, "SELECT 1 FROM runs WHERE id = ?1", &s, err, "look up a run")))
        return rc;
    sqlite3_bind_int64(s, 1, run_id);
    rc = sqlite3_step(s);
    if (rc == SQLITE_ROW)
        rc = 0;
    else if (rc == SQLITE_DONE)
        rc = rs_fail(err, RS_ENOTFOUND, "no run %" PRId64 " in '%s'", run_id, rs_store_path(st));
    else
        rc = q_fail(st, err, "cannot look up run %" PRId64, run_id);
    sqlite3_finalize(s);
    return rc;
}

static int scope_check(rs_store *st, const rs_query_scope *scope, rs_err *err)
{
    if (!scope->run_id == !scope->sweep_id)
        return rs_fail(err, RS_EINTERNAL, "a query scope needs exactly one of a run and a sweep");
    return scope->run_id ? run_check(st, scope->run_id, err)
                         : rs_store_sweep_check(st, scope->sweep_id, err);
}

/* Copy the n text fields *fields[i] (pointing into a row) into one
 * allocation, repointing them there; *r_storage owns it. */
static int texts_own(const char **const *fields, size_t n, char **r_storage, rs_err *err)
{
    size_t total = 1;
    for (size_t i = 0; i < n; i++)
        total += *fields[i] ? strlen(*fields[i]) + 1 : 0;
    char *buf = malloc(total), *p = buf;
    if (!buf)
        return rs_fail(err, RS_ENOMEM, "out of memory reading the store");
    for (size_t i = 0; i < n; i++) {
        if (!*fields[i])
            continue;
        size_t len = strlen(*fields[i]) + 1;
        memcpy(p, *fields[i], len);
        *fields[i] = p;
        p += len;
    }
    *r_storage = buf;
    return 0;
}

/* ---- runs ---- */

#define RUN_COLUMNS                                                                      \
    "r.id, r.kind, r.status, r.created_at, r.started_at, r.finished_at, r.version,"    \
    " r.trace_path, r.trace_sha256, r.preset, r.seed, r.param_hash, r.sweep_id,"       \
    " r.point_index, r.label, r.events, r.wall_ns, r.error"
#define RUN_NCOLUMNS 18

/* The row's RUN_COLUMNS into *r (text pointing into the row).  Ids start at
 * 1 (a scope of run 0 or sweep 0 means "none"): a row with another id is a
 * damaged or hand-made database, refused as bad input. */
static int run_from_row(rs_store *st, sqlite3_stmt *s, rs_query_run *r, rs_err *err)
{
    memset(r, 0, sizeof *r);
    r->id = sqlite3_column_int64(s, 0);
    r->kind = text_or_null(s, 1);
    r->status = text_or_null(s, 2);
    r->created_at = text_or_null(s, 3);
    r->started_at = text_or_null(s, 4);
    r->finished_at = text_or_null(s, 5);
    r->version = text_or_null(s, 6);
    r->trace_path = text_or_null(s, 7);
    r->trace_sha256 = text_or_null(s, 8);
    r->preset = text_or_null(s, 9);
    r->seed = (uint64_t)sqlite3_column_int64(s, 10);
    r->param_hash = text_or_null(s, 11);
    if ((r->has_sweep_id = sqlite3_column_type(s, 12) != SQLITE_NULL))
        r->sweep_id = sqlite3_column_int64(s, 12);
    if ((r->has_point_index = sqlite3_column_type(s, 13) != SQLITE_NULL))
        r->point_index = sqlite3_column_int64(s, 13);
    r->label = text_or_null(s, 14);
    if ((r->has_events = sqlite3_column_type(s, 15) != SQLITE_NULL))
        r->events = sqlite3_column_int64(s, 15);
    if ((r->has_wall_ns = sqlite3_column_type(s, 16) != SQLITE_NULL))
        r->wall_ns = sqlite3_column_int64(s, 16);
    r->error = text_or_null(s, 17);
    if (r->id <= 0)
        return rs_fail(err, RS_EINPUT, "'%s' has a run of id %" PRId64 ": run ids start at 1 "
                       "(a damaged or hand-edited database)", rs_store_path(st), r->id);
    if (r->has_sweep_id && r->sweep_id <= 0)
        return rs_fail(err, RS_EINPUT, "'%s' has run %" PRId64 " in sweep %" PRId64 ": sweep ids "
                       "start at 1 (a damaged or hand-edited database)", rs_store_path(st), r->id,
                       r->sweep_id);
    return 0;
}

int rs_query_run_get(rs_store *st, int64_t run_id, rs_query_run *r_run, rs_err *err)
{
    sqlite3_stmt *s;
    int rc;

    memset(r_run, 0, sizeof *r_run);
    if ((rc = prepare(st, "SELECT " RUN_COLUMNS " FROM runs r WHERE r.id = ?1", &s, err,
                      "read a run")))
        return rc;
    sqlite3_bind_int64(s, 1, run_id);
    rc = sqlite3_step(s);
    if (rc == SQLITE_ROW) {
        const char **texts[] = { &r_run->kind, &r_run->status, &r_run->created_at,
                                 &r_run->started_at, &r_run->finished_at, &r_run->version,
                                 &r_run->trace_path, &r_run->trace_sha256, &r_run->preset,
                                 &r_run->param_hash, &r_run->label, &r_run->error };
        if (!(rc = run_from_row(st, s, r_run, err)))
            rc = texts_own(texts, sizeof texts / sizeof texts[0], &r_run->storage, err);
        if (rc)
            memset(r_run, 0, sizeof *r_run);
    } else if (rc == SQLITE_DONE) {
        rc = rs_fail(err, RS_ENOTFOUND, "no run %" PRId64 " in '%s'", run_id, rs_store_path(st));
    } else {
        rc = q_fail(st, err, "cannot read run %" PRId64, run_id);
    }
    sqlite3_finalize(s);
    return rc;
}

void rs_query_run_release(rs_query_run *run)
{
    if (!run)
        return;
    free(run->storage);
    memset(run, 0, sizeof *run);
}

int rs_query_sweep_get(rs_store *st, int64_t sweep_id, rs_query_sweep *r_sweep, rs_err *err)
{
    sqlite3_stmt *s;
    int rc;

    memset(r_sweep, 0, sizeof *r_sweep);
    if ((rc = prepare(st, "SELECT id, spec_hash, created_at, trace_path, trace_sha256, preset,"
                          " spec, varied_keys, status, points, jobs FROM sweeps WHERE id = ?1",
                      &s, err, "read a sweep")))
        return rc;
    sqlite3_bind_int64(s, 1, sweep_id);
    rc = sqlite3_step(s);
    if (rc == SQLITE_ROW) {
        rs_query_sweep *w = r_sweep;
        w->id = sqlite3_column_int64(s, 0);
        w->spec_hash = text_or_null(s, 1);
        w->created_at = text_or_null(s, 2);
        w->trace_path = text_or_null(s, 3);
        w->trace_sha256 = text_or_null(s, 4);
        w->preset = text_or_null(s, 5);
        w->spec = text_or_null(s, 6);
        w->varied_keys = text_or_null(s, 7);
        w->status = text_or_null(s, 8);
        w->points = sqlite3_column_int64(s, 9);
        w->jobs = sqlite3_column_int64(s, 10);
        const char **texts[] = { &w->spec_hash, &w->created_at, &w->trace_path, &w->trace_sha256,
                                 &w->preset, &w->spec, &w->varied_keys, &w->status };
        rc = texts_own(texts, sizeof texts / sizeof texts[0], &w->storage, err);
        if (rc)
            memset(w, 0, sizeof *w);
    } else if (rc == SQLITE_DONE) {
        rc = rs_fail(err, RS_ENOTFOUND, "no sweep %" PRId64 " in '%s'", sweep_id,
                     rs_store_path(st));
    } else {
        rc = q_fail(st, err, "cannot read sweep %" PRId64, sweep_id);
    }
    sqlite3_finalize(s);
    return rc;
}

void rs_query_sweep_release(rs_query_sweep *sw)
{
    if (!sw)
        return;
    free(sw->storage);
    memset(sw, 0, sizeof *sw);
}

int rs_query_runs(rs_store *st, const rs_query_runs_filter *f, rs_query_run_fn fn, void *ctx,
                  rs_err *err)
{
    sqlite3_stmt *s = NULL, *ms = NULL, *ps = NULL;
    double *metrics = NULL;
    char **params = NULL;
    int rc;

    if (f->sweep_id && (rc = rs_store_sweep_check(st, f->sweep_id, err)))
        return rc;
    if ((rc = prepare(st, "SELECT " RUN_COLUMNS " FROM runs r WHERE (?1 IS NULL OR r.sweep_id = ?1)"
                          " AND (?2 IS NULL OR r.status = ?2)"
                          " ORDER BY CASE WHEN ?1 IS NULL THEN r.id ELSE r.point_index END",
                      &s, err, "list runs")) ||
        (f->nmetrics && (rc = prepare(st, "SELECT value FROM metrics WHERE run_id = ?1 AND name = ?2",
                                      &ms, err, "read the metrics"))) ||
        (f->nparams && (rc = prepare(st, "SELECT value FROM params WHERE run_id = ?1 AND key = ?2",
                                     &ps, err, "read the params"))))
        goto out;
    if ((f->nmetrics && !(metrics = calloc(f->nmetrics, sizeof *metrics))) ||
        (f->nparams && !(params = calloc(f->nparams, sizeof *params)))) {
        rc = rs_fail(err, RS_ENOMEM, "out of memory listing runs");
        goto out;
    }
    if (f->sweep_id)
        sqlite3_bind_int64(s, 1, f->sweep_id);
    sqlite3_bind_text(s, 2, f->status, -1, SQLITE_STATIC);
    while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
        rs_query_run run;
        if ((rc = run_from_row(st, s, &run, err)))
            goto out;
        for (size_t i = 0; i < f->nmetrics; i++) {
            sqlite3_bind_int64(ms, 1, run.id);
            sqlite3_bind_text(ms, 2, f->metrics[i], -1, SQLITE_STATIC);
            int mrc = sqlite3_step(ms);
            metrics[i] = mrc == SQLITE_ROW ? real_or_nan(ms, 0) : NAN;
            sqlite3_reset(ms);
            if (mrc != SQLITE_ROW && mrc != SQLITE_DONE) {
                rc = q_fail(st, err, "cannot read metric '%s' of run %" PRId64, f->metrics[i], run.id);
                goto out;
            }
        }
        for (size_t i = 0; i < f->nparams; i++) {
            sqlite3_bind_int64(ps, 1, run.id);
            sqlite3_bind_text(ps, 2, f->params[i], -1, SQLITE_STATIC);
            int prc = sqlite3_step(ps);
            const char *v = prc == SQLITE_ROW ? text_or_null(ps, 0) : NULL;
            free(params[i]);
            params[i] = v ? strdup(v) : NULL;
            sqlite3_reset(ps);
            if (prc != SQLITE_ROW && prc != SQLITE_DONE) {
                rc = q_fail(st, err, "cannot read param '%s' of run %" PRId64, f->params[i], run.id);
                goto out;
            }
            if (v && !params[i]) {
                rc = rs_fail(err, RS_ENOMEM, "out of memory listing runs");
                goto out;
            }
        }
        if ((rc = fn(ctx, &run, metrics, (const char *const *)params, err)))
            goto out;
    }
    rc = rc == SQLITE_DONE ? 0 : q_fail(st, err, "cannot list runs");
out:
    for (size_t i = 0; params && i < f->nparams; i++)
        free(params[i]);
    free(params);
    free(metrics);
    sqlite3_finalize(s);
    sqlite3_finalize(ms);
    sqlite3_finalize(ps);
    return rc;
}

/* ---- metrics and params ---- */

int rs_query_metric(rs_store *st, int64_t run_id, const char *name, double *r_value,
                    int *r_found, rs_err *err)
{
    sqlite3_stmt *s;
    int rc;

    *r_found = 0;
    *r_value = NAN;
    if ((rc = prepare(st, "SELECT value FROM metrics WHERE run_id = ?1 AND name = ?2", &s, err,
                      "read a metric")))
        return rc;
    sqlite3_bind_int64(s, 1, run_id);
    sqlite3_bind_text(s, 2, name, -1, SQLITE_STATIC);
    rc = sqlite3_step(s);
    if (rc == SQLITE_ROW) {
        *r_found = 1;
        *r_value = real_or_nan(s, 0);
        rc = 0;
    } else if (rc == SQLITE_DONE) {
        rc = 0;
    } else {
        rc = q_fail(st, err, "cannot read metric '%s' of run %" PRId64, name, run_id);
    }
    sqlite3_finalize(s);
    return rc;
}

int rs_query_metrics(rs_store *st, const rs_query_scope *scope, rs_query_metric_fn fn, void *ctx,
                     rs_err *err)
{
    sqlite3_stmt *s;
    int rc;

    if ((rc = scope_check(st, scope, err)) ||
        (rc = prepare(st, scope->run_id
                              ? "SELECT run_id, name, value FROM metrics WHERE run_id = ?1 ORDER BY name"
                              : "SELECT m.run_id, m.name, m.value FROM metrics m JOIN runs r"
                                " ON r.id = m.run_id WHERE r.sweep_id = ?1"
                                " ORDER BY r.point_index, m.name",
                      &s, err, "read the metrics")))
        return rc;
    sqlite3_bind_int64(s, 1, scope->run_id ? scope->run_id : scope->sweep_id);
    while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
        const char *name = text_or_null(s, 1);
        if (!name) { /* the schema says NOT NULL: only a damaged file has one */
            rc = rs_fail(err, RS_EINPUT, "'%s' has a metric of run %" PRId64 " with no name "
                         "(a damaged or hand-edited database)", rs_store_path(st), (int64_t)sqlite3_column_int64(s, 0));
            break;
        }
        if ((rc = fn(ctx, sqlite3_column_int64(s, 0), name, real_or_nan(s, 2), err)))
            break;
    }
    if (rc == SQLITE_DONE)
        rc = 0;
    else if (rc > 0)
        rc = q_fail(st, err, "cannot read the metrics");
    sqlite3_finalize(s);
    return rc;
}

/* Step s, handing (column 0, column 1 or NULL) of each row to fn. */
static int params_each(rs_store *st, sqlite3_stmt *s, int with_value, rs_query_param_fn fn,
                       void *ctx, rs_err *err)
{
    int rc;

    while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
        const char *key = text_or_null(s, 0), *value = with_value ? text_or_null(s, 1) : NULL;
        /* NOT NULL in the schema: only a damaged file has either */
        if (!key)
            return rs_fail(err, RS_EINPUT, "'%s' has a param with no key (a damaged or hand-edited "
                           "database)", rs_store_path(st));
        if (with_value && !value)
            return rs_fail(err, RS_EINPUT, "'%s' has a param '%s' with no value (a damaged or "
                           "hand-edited database)", rs_store_path(st), key);
        if ((rc = fn(ctx, key, value, err)))
            return rc;
    }
    return rc == SQLITE_DONE ? 0 : q_fail(st, err, "cannot read the params");
}

int rs_query_params(rs_store *st, int64_t run_id, rs_query_param_fn fn, void *ctx, rs_err *err)
{
    sqlite3_stmt *s;
    int rc;

    if ((rc = run_check(st, run_id, err)) ||
        (rc = prepare(st, "SELECT key, value FROM params WHERE run_id = ?1 ORDER BY key", &s, err,
                      "read the params")))
        return rc;
    sqlite3_bind_int64(s, 1, run_id);
    rc = params_each(st, s, 1, fn, ctx, err);
    sqlite3_finalize(s);
    return rc;
}

int rs_query_params_varying(rs_store *st, const int64_t *run_ids, size_t n, rs_query_param_fn fn,
                            void *ctx, rs_err *err)
{
    /* "1,2,3": ids are integers, so the IN list needs no binding */
    static const char head[] = "SELECT key FROM params WHERE run_id IN (",
                      tail[] = ") GROUP BY key HAVING COUNT(DISTINCT value) > 1 OR COUNT(*) < ?1"
                               " ORDER BY key";
    sqlite3_stmt *s = NULL;
    size_t cap = sizeof head + n * 22 + sizeof tail, len;
    char *sql;
    int rc;

    if (n == 0)
        return 0;
    if (!(sql = malloc(cap)))
        return rs_fail(err, RS_ENOMEM, "out of memory reading the params of %zu runs", n);
    len = (size_t)snprintf(sql, cap, "%s", head);
    for (size_t i = 0; i < n; i++)
        len += (size_t)snprintf(sql + len, cap - len, "%s%" PRId64, i ? "," : "", run_ids[i]);
    snprintf(sql + len, cap - len, "%s", tail);
    if (!(rc = prepare(st, sql, &s, err, "read the params"))) {
        sqlite3_bind_int64(s, 1, (sqlite3_int64)n);
        rc = params_each(st, s, 0, fn, ctx, err);
    }
    sqlite3_finalize(s);
    free(sql);
    return rc;
}

/* ---- samples ---- */

static const struct sample_column {
    const char *name;
    int real;      /* REAL (double) rather than INTEGER (uint64_t) */
    size_t offset; /* in rs_sample */
} sample_columns[] = {
#define INT_COL(c) { .name = #c, .real = 0, .offset = offsetof(rs_sample, c) },
#define REAL_COL(c) { .name = #c, .real = 1, .offset = offsetof(rs_sample, c) },
    RS_SAMPLE_INT_COLUMNS(INT_COL) RS_SAMPLE_REAL_COLUMNS(REAL_COL)
#undef INT_COL
#undef REAL_COL
};
#define NSAMPLE_COLUMNS (sizeof sample_columns / sizeof sample_columns[0])
#define SELECT_CAP 4096

/* A sample with nothing read: integers 0, reals NaN. */
static void sample_blank(rs_sample *smp)
{
    memset(smp, 0, sizeof *smp);
#define NAN_COL(c) smp->c = NAN;
    RS_SAMPLE_REAL_COLUMNS(NAN_COL)
#undef NAN_COL
}

/* Which sample columns a query reads: indexes into sample_columns. */
typedef struct colset {
    size_t idx[64]; /* SELECT_CAP holds 64 ", x.<name>" */
    size_t n;
} colset;

/* The caller's names (all columns when names is NULL) as a colset. */
static int colset_make(colset *cs, const char *const *names, size_t n, rs_err *err)
{
    cs->n = 0;
    if (!names) {
        for (size_t k = 0; k < NSAMPLE_COLUMNS; k++)
            cs->idx[cs->n++] = k;
        return 0;
    }
    if (n > sizeof cs->idx / sizeof cs->idx[0])
        return rs_fail(err, RS_EINPUT, "too many sample columns (%zu)", n);
    for (size_t i = 0; i < n; i++) {
        size_t k = 0;
        while (k < NSAMPLE_COLUMNS && strcmp(sample_columns[k].name, names[i]) != 0)
            k++;
        if (k == NSAMPLE_COLUMNS)
            return rs_fail(err, RS_EINPUT, "unknown sample column '%s'", names[i]);
        cs->idx[cs->n++] = k;
    }
    return 0;
}

/* Append ", <alias>.<column>" for every column of cs to sql. */
static void colset_select(const colset *cs, const char *alias, char *sql, size_t cap)
{
    size_t len = strlen(sql);
    for (size_t i = 0; i < cs->n && len < cap; i++)
        len += (size_t)snprintf(sql + len, cap - len, ", %s.%s", alias,
                                sample_columns[cs->idx[i]].name);
}

/* Decode the columns of cs, starting at result column col, into smp. */
static void colset_read(const colset *cs, sqlite3_stmt *s, int col, rs_sample *smp)
{
    for (size_t i = 0; i < cs->n; i++, col++) {
        const struct sample_column *c = &sample_columns[cs->idx[i]];
        char *field = (char *)smp + c->offset;
        if (c->real) {
            double v = real_or_nan(s, col);
            memcpy(field, &v, sizeof v);
        } else {
            uint64_t v = (uint64_t)sqlite3_column_int64(s, col);
            memcpy(field, &v, sizeof v);
        }
    }
}

int rs_query_samples_span(rs_store *st, int64_t run_id, int64_t *r_count, int64_t *r_first_t_ns,
                          int64_t *r_last_t_ns, rs_err *err)
{
    sqlite3_stmt *s;
    int rc;

    *r_count = *r_first_t_ns = *r_last_t_ns = 0;
    if ((rc = run_check(st, run_id, err)) ||
        (rc = prepare(st, "SELECT count(*), min(t_ns), max(t_ns) FROM samples WHERE run_id = ?1",
                      &s, err, "count the samples")))
        return rc;
    sqlite3_bind_int64(s, 1, run_id);
    if (sqlite3_step(s) == SQLITE_ROW) {
        *r_count = sqlite3_column_int64(s, 0);
        *r_first_t_ns = sqlite3_column_int64(s, 1);
        *r_last_t_ns = sqlite3_column_int64(s, 2);
        rc = 0;
    } else {
        rc = q_fail(st, err, "cannot count the samples of run %" PRId64, run_id);
    }
    sqlite3_finalize(s);
    return rc;
}

int rs_query_samples(rs_store *st, const rs_query_scope *scope, const char *const *columns,
                     size_t ncolumns, rs_query_sample_fn fn, void *ctx, rs_err *err)
{
    char sql[SELECT_CAP] = "SELECT s.run_id";
    sqlite3_stmt *s;
    colset cs;
    int rc;

    if ((rc = colset_make(&cs, columns, ncolumns, err)) || (rc = scope_check(st, scope, err)))
        return rc;
    colset_select(&cs, "s", sql, sizeof sql);
    snprintf(sql + strlen(sql), sizeof sql - strlen(sql), "%s",
             scope->run_id ? " FROM samples s WHERE s.run_id = ?1 ORDER BY s.t_ns"
                           : " FROM samples s JOIN runs r ON r.id = s.run_id WHERE r.sweep_id = ?1"
                             " ORDER BY r.point_index, s.t_ns");
    if ((rc = prepare(st, sql, &s, err, "read the samples")))
        return rc;
    sqlite3_bind_int64(s, 1, scope->run_id ? scope->run_id : scope->sweep_id);
    while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
        rs_sample smp;
        sample_blank(&smp);
        colset_read(&cs, s, 1, &smp);
        if ((rc = fn(ctx, sqlite3_column_int64(s, 0), &smp, err)))
            break;
    }
    if (rc == SQLITE_DONE)
        rc = 0;
    else if (rc > 0)
        rc = q_fail(st, err, "cannot read the samples");
    sqlite3_finalize(s);
    return rc;
}

int rs_query_samples_join(rs_store *st, int64_t run_a, int64_t run_b, const char *const *columns,
                          size_t ncolumns, rs_query_pair_fn fn, void *ctx, rs_err *err)
{
    char sql[2 * SELECT_CAP] = "SELECT a.t_ns";
    sqlite3_stmt *s;
    colset cs;
    int rc;

    if ((rc = colset_make(&cs, columns, ncolumns, err)))
        return rc;
    colset_select(&cs, "a", sql, sizeof sql);
    colset_select(&cs, "b", sql, sizeof sql);
    snprintf(sql + strlen(sql), sizeof sql - strlen(sql), "%s",
             " FROM samples a JOIN samples b ON b.t_ns = a.t_ns"
             " WHERE a.run_id = ?1 AND b.run_id = ?2 ORDER BY a.t_ns");
    if ((rc = prepare(st, sql, &s, err, "read the samples")))
        return rc;
    sqlite3_bind_int64(s, 1, run_a);
    sqlite3_bind_int64(s, 2, run_b);
    while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
        rs_sample a, b;
        sample_blank(&a);
        sample_blank(&b);
        a.t_ns = b.t_ns = (uint64_t)sqlite3_column_int64(s, 0);
        colset_read(&cs, s, 1, &a);
        colset_read(&cs, s, 1 + (int)cs.n, &b);
        if ((rc = fn(ctx, &a, &b, err)))
            break;
    }
    if (rc == SQLITE_DONE)
        rc = 0;
    else if (rc > 0)
        rc = q_fail(st, err, "cannot read the samples of runs %" PRId64 " and %" PRId64, run_a,
                    run_b);
    sqlite3_finalize(s);
    return rc;
}

/* ---- plans ---------------------------------------------------------------- */

int rs_query_run_find_done(rs_store *st, const char *trace_sha256, const char *param_hash,
                           int64_t *r_run_id, rs_err *err)
{
    sqlite3_stmt *s;
    int rc;

    *r_run_id = 0;
    if ((rc = prepare(st, "SELECT id FROM runs WHERE status = 'done' AND kind = 'predicted'"
                          " AND trace_sha256 = ?1 AND param_hash = ?2 ORDER BY id DESC LIMIT 1",
                      &s, err, "find a done run")))
        return rc;
    sqlite3_bind_text(s, 1, trace_sha256, -1, SQLITE_STATIC);
    sqlite3_bind_text(s, 2, param_hash, -1, SQLITE_STATIC);
    rc = sqlite3_step(s);
    if (rc == SQLITE_ROW) {
        *r_run_id = sqlite3_column_int64(s, 0);
        rc = 0;
    } else if (rc == SQLITE_DONE) {
        rc = 0;
    } else {
        rc = q_fail(st, err, "cannot look up a run with param_hash %s", param_hash);
    }
    sqlite3_finalize(s);
    return rc;
}

int rs_query_plan_get(rs_store *st, int64_t plan_id, rs_query_plan *r_plan, rs_err *err)
{
    sqlite3_stmt *s;
    int rc;

    memset(r_plan, 0, sizeof *r_plan);
    if ((rc = prepare(st, "SELECT id, created_at, status, preset, workload, limit_key, quantile,"
                          " outcome, verdict, ram_bytes, daemons, seeds, limit_bytes, headroom,"
                          " tol_rel, rule_factor FROM plans WHERE id = ?1",
                      &s, err, "read a plan")))
        return rc;
    sqlite3_bind_int64(s, 1, plan_id);
    rc = sqlite3_step(s);
    if (rc == SQLITE_ROW) {
        rs_query_plan *p = r_plan;
        p->id = sqlite3_column_int64(s, 0);
        p->created_at = text_or_null(s, 1);
        p->status = text_or_null(s, 2);
        p->preset = text_or_null(s, 3);
        p->workload = text_or_null(s, 4);
        p->limit_key = text_or_null(s, 5);
        p->quantile = text_or_null(s, 6);
        p->outcome = text_or_null(s, 7);
        p->verdict = text_or_null(s, 8);
        p->ram_bytes = sqlite3_column_int64(s, 9);
        p->daemons = sqlite3_column_int64(s, 10);
        p->seeds = sqlite3_column_int64(s, 11);
        p->limit_bytes = sqlite3_column_int64(s, 12);
        p->headroom = real_or_nan(s, 13);
        p->tol_rel = real_or_nan(s, 14);
        p->rule_factor = real_or_nan(s, 15);
        const char **texts[] = { &p->created_at, &p->status, &p->preset, &p->workload,
                                 &p->limit_key, &p->quantile, &p->outcome, &p->verdict };
        rc = texts_own(texts, sizeof texts / sizeof texts[0], &p->storage, err);
        if (rc)
            memset(p, 0, sizeof *p);
    } else if (rc == SQLITE_DONE) {
        rc = rs_fail(err, RS_ENOTFOUND, "no plan %" PRId64 " in '%s'", plan_id, rs_store_path(st));
    } else {
        rc = q_fail(st, err, "cannot read plan %" PRId64, plan_id);
    }
    sqlite3_finalize(s);
    return rc;
}

void rs_query_plan_release(rs_query_plan *plan)
{
    if (!plan)
        return;
    free(plan->storage);
    memset(plan, 0, sizeof *plan);
}

int rs_query_plan_evals(rs_store *st, int64_t plan_id, rs_query_plan_eval_fn fn, void *ctx,
                        rs_err *err)
{
    sqlite3_stmt *s;
    int rc;

    if ((rc = prepare(st, "SELECT e.run_id, e.seed, e.limit_bytes, e.reused,"
                          " coalesce(cast(p.value AS INTEGER), 1) FROM plan_evals e"
                          " LEFT JOIN params p ON p.run_id = e.run_id AND p.key = 'mds_sample_k'"
                          " WHERE e.plan_id = ?1 ORDER BY e.limit_bytes, e.seed, e.run_id",
                      &s, err, "read a plan's evaluations")))
        return rc;
    sqlite3_bind_int64(s, 1, plan_id);
    while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
        int64_t k = sqlite3_column_int64(s, 4);
        if ((rc = fn(ctx, sqlite3_column_int64(s, 0), (uint64_t)sqlite3_column_int64(s, 1),
                     sqlite3_column_int64(s, 2), sqlite3_column_int(s, 3),
                     k >= 1 && k <= UINT32_MAX ? (uint32_t)k : 1, err)))
            break;
    }
    if (rc == SQLITE_DONE)
        rc = 0;
    else if (rc > 0)
        rc = q_fail(st, err, "cannot read the evaluations of plan %" PRId64, plan_id);
    sqlite3_finalize(s);
    return rc;
}

int rs_query_has_plans(rs_store *st, int *r_has, rs_err *err)
{
    sqlite3_stmt *s;
    int rc;

    *r_has = 0;
    if ((rc = prepare(st, "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'plans'",
                      &s, err, "look for plans")))
        return rc;
    rc = sqlite3_step(s);
    if (rc == SQLITE_ROW || rc == SQLITE_DONE) {
        *r_has = rc == SQLITE_ROW;
        rc = 0;
    } else {
        rc = q_fail(st, err, "cannot look for plans");
    }
    sqlite3_finalize(s);
    if (rc || !*r_has)
        return rc;
    /* the table is in every database of schema 4; does it hold a plan? */
    if ((rc = prepare(st, "SELECT 1 FROM plans LIMIT 1", &s, err, "look for plans")))
        return rc;
    rc = sqlite3_step(s);
    if (rc == SQLITE_ROW || rc == SQLITE_DONE) {
        *r_has = rc == SQLITE_ROW;
        rc = 0;
    } else {
        rc = q_fail(st, err, "cannot look for plans");
    }
    sqlite3_finalize(s);
    return rc;
}
