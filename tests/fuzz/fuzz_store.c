/*
 * fuzz_store.c — libFuzzer target over the store's readers.
 *
 * The input bytes are written as an SQLite database file (the seeds are
 * small real rssim databases: a replay, a sweep, a plan; scripts/fuzz) and
 * read the way the commands that take a database read it: opened read-only
 * (rs_store_open_ro: `runs`, `report`, `plot`), every run listed with
 * metrics and params (rs_query_runs, `runs list`), each run's row, params,
 * metrics, sample span and samples (`runs show`, `runs export`, `plot`),
 * its sweep (`report`), the plans and their evaluations, two runs' samples
 * joined (`compare`), and the file merged into a fresh database
 * (rs_store_merge, `db merge`).  Any outcome but success or a clean failure
 * (RS_EINPUT: not an rssim database or a malformed one; RS_EDB: another
 * schema version, or SQLite refusing; RS_ENOTFOUND: a row that is not
 * there) with a message is a finding, as is a crash, a leak or UB.
 * Build and run: scripts/fuzz (clang, -DRSSIM_FUZZ=ON).
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "sim/query.h"
#include "sim/store.h"

enum { MAX_RUNS = 64 };

typedef struct seen {
    int64_t ids[MAX_RUNS];
    int64_t sweeps[MAX_RUNS];
    size_t n;
    uint64_t rows;
} seen;

static void clean(int rc, const rs_err *err)
{
    if (rc == 0)
        return;
    if (rc != RS_EINPUT && rc != RS_EDB && rc != RS_ENOTFOUND)
        __builtin_trap(); /* not a clean failure */
    if (!err->msg[0])
        __builtin_trap(); /* a failure that says nothing */
}

static int on_run(void *ctx, const rs_query_run *run, const double *metrics,
                  const char *const *params, rs_err *err)
{
    seen *s = ctx;
    (void)metrics;
    (void)params;
    (void)err;
    if (s->n < MAX_RUNS) {
        s->ids[s->n] = run->id;
        s->sweeps[s->n] = run->has_sweep_id ? run->sweep_id : 0;
        s->n++;
    }
    return 0;
}

static int on_sample(void *ctx, int64_t run_id, const rs_sample *smp, rs_err *err)
{
    (void)run_id;
    (void)smp;
    (void)err;
    ((seen *)ctx)->rows++;
    return 0;
}

static int on_pair(void *ctx, const rs_sample *a, const rs_sample *b, rs_err *err)
{
    (void)a;
    (void)b;
    (void)err;
    ((seen *)ctx)->rows++;
    return 0;
}

static int on_metric(void *ctx, int64_t run_id, const char *name, double value, rs_err *err)
{
    (void)run_id;
    (void)value;
    (void)err;
    if (!name)
        __builtin_trap();
    ((seen *)ctx)->rows++;
    return 0;
}

static int on_param(void *ctx, const char *key, const char *value, rs_err *err)
{
    (void)value;
    (void)err;
    if (!key)
        __builtin_trap();
    ((seen *)ctx)->rows++;
    return 0;
}

static int on_eval(void *ctx, int64_t run_id, uint64_t seed, int64_t limit_bytes, int reused,
                   rs_err *err)
{
    (void)run_id;
    (void)seed;
    (void)limit_bytes;
    (void)reused;
    (void)err;
    ((seen *)ctx)->rows++;
    return 0;
}

static void read_all(const char *path)
{
    static const char *const metric_names[] = { "rss_steady_bytes", "overshoot_p99" };
    static const char *const param_keys[] = { "alloc", "kv_cache_limit" };
    static const char *const cols[] = { "t_ns", "rss_bytes", "x", "overshoot" };
    rs_query_runs_filter f = { .metrics = metric_names, .nmetrics = 2, .params = param_keys,
                               .nparams = 2 };
    rs_store *st;
    rs_err err = { 0 };
    seen s = { 0 };
    int rc;

    rc = rs_store_open_ro(&st, path, &err);
    clean(rc, &err);
    if (rc)
        return;
    clean(rs_query_runs(st, &f, on_run, &s, &err), &err);
    for (size_t i = 0; i < s.n; i++) {
        rs_query_run run;
        rs_query_scope one = { .run_id = s.ids[i] };
        int64_t count, first, last;
        memset(&err, 0, sizeof err);
        if (!(rc = rs_query_run_get(st, s.ids[i], &run, &err)))
            rs_query_run_release(&run);
        clean(rc, &err);
        clean(rs_query_params(st, s.ids[i], on_param, &s, &err), &err);
        clean(rs_query_metrics(st, &one, on_metric, &s, &err), &err);
        clean(rs_query_samples_span(st, s.ids[i], &count, &first, &last, &err), &err);
        clean(rs_query_samples(st, &one, NULL, 0, on_sample, &s, &err), &err);
        clean(rs_query_samples(st, &one, cols, 4, on_sample, &s, &err), &err);
        if (s.sweeps[i]) {
            rs_query_sweep sw;
            rs_query_scope sweep = { .sweep_id = s.sweeps[i] };
            rs_query_runs_filter fs = f;
            fs.sweep_id = s.sweeps[i];
            if (!(rc = rs_query_sweep_get(st, s.sweeps[i], &sw, &err)))
                rs_query_sweep_release(&sw);
            clean(rc, &err);
            clean(rs_query_metrics(st, &sweep, on_metric, &s, &err), &err);
            clean(rs_query_runs(st, &fs, on_run, &s, &err), &err);
        }
        if (i > 0)
            clean(rs_query_samples_join(st, s.ids[i - 1], s.ids[i], cols, 4, on_pair, &s, &err),
                  &err);
    }
    if (s.n)
        clean(rs_query_params_varying(st, s.ids, s.n, on_param, &s, &err), &err);
    int has = 0;
    clean(rs_query_has_plans(st, &has, &err), &err);
    for (int64_t id = 1; has && id <= 3; id++) {
        rs_query_plan plan;
        if (!(rc = rs_query_plan_get(st, id, &plan, &err)))
            rs_query_plan_release(&plan);
        clean(rc, &err);
        clean(rs_query_plan_evals(st, id, on_eval, &s, &err), &err);
    }
    rs_store_close(st);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char in[64], out[64], side[80];
    rs_store *st;
    rs_err err = { 0 };
    uint64_t copied = 0;

    /* on tmpfs when there is one: SQLite syncs every commit */
    const char *dir = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
    snprintf(in, sizeof in, "%s/rssim-fuzz-store-%ld.db", dir, (long)getpid());
    snprintf(out, sizeof out, "%s/rssim-fuzz-store-%ld-merged.db", dir, (long)getpid());
    FILE *fp = fopen(in, "wb");
    if (!fp || fwrite(data, 1, size, fp) != size || fclose(fp) != 0)
        __builtin_trap();
    read_all(in);
    /* db merge: the file as the source of a merge into a new database */
    unlink(out);
    if (rs_store_open(&st, out, &err))
        __builtin_trap();
    clean(rs_store_merge(st, in, &copied, &err), &err);
    rs_store_close(st);
    for (int k = 0; k < 2; k++) {
        const char *paths[2] = { in, out };
        unlink(paths[k]);
        snprintf(side, sizeof side, "%s-wal", paths[k]);
        unlink(side);
        snprintf(side, sizeof side, "%s-shm", paths[k]);
        unlink(side);
        snprintf(side, sizeof side, "%s-journal", paths[k]);
        unlink(side);
    }
    return 0;
}
