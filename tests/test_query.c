/*
 * test_query.c — the store's read side (sim/query.h) against a database
 * built only through the store's write API: a sweep of three points (two
 * done, one failed), a lone run, a measured run sharing some sample times
 * with a predicted one, and a pending point with nothing stored.  Every
 * query function is checked for its rows, their order and its errors (an
 * unknown run or sweep is RS_ENOTFOUND naming the id and the file), on a
 * read-only handle like the command line's.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "scratch.h"
#include "sim/base/config.h"
#include "sim/base/result.h"
#include "sim/query.h"
#include "sim/schema.h"
#include "sim/store.h"

static rs_config *make_cfg(const char *limit, const char *trim)
{
    rs_config *cfg = NULL;
    rs_err err;
    if (rs_config_new(&cfg, &err) != 0) {
        fprintf(stderr, "rs_config_new: %s\n", err.msg);
        exit(1);
    }
    rs_config_set(cfg, "kv_cache_limit", limit, &err);
    rs_config_set(cfg, "trim_interval", trim, &err);
    rs_config_set(cfg, "alloc", "jemalloc", &err);
    return cfg;
}

static rs_run_meta make_meta(const char *kind, const char *label)
{
    return (rs_run_meta){
        .kind = kind,
        .trace_path = "traces/t.bin",
        .trace_sha256 = "ab",
        .preset = "kv-small",
        .seed = UINT64_C(18446744073709551615), /* stored as -1: read back unsigned */
        .label = label,
        .sweep_id = 0,
        .point_index = -1,
    };
}

/* n samples 10 ms apart from t0_ms; tag shifts the values; two metrics. */
static void make_result(rs_result *res, size_t n, uint64_t t0_ms, uint64_t tag)
{
    rs_err err;
    rs_result_init(res);
    for (size_t i = 0; i < n; i++) {
        rs_sample s = { 0 };
        s.t_ns = (t0_ms + 10 * i) * 1000000u;
        s.accounted_bytes = 1000 * i + tag;
        s.resident_bytes = 2000 * i + tag;
        s.allocated_bytes = 1500 * i + tag;
        s.rss_bytes = 3000 * i + tag;
        s.limit_bytes = 1u << 20;
        s.x = i == 1 ? NAN : 0.25 * (double)i; /* NaN: stored as NULL */
        s.overshoot = (double)s.rss_bytes / (double)s.limit_bytes;
        rs_result_add_sample(res, &s, &err);
    }
    rs_result_set_metric(res, "rss_steady_bytes", 1048576.0 * (double)(tag + 1), &err);
    rs_result_set_metric(res, "overshoot_steady", 1.5 + (double)tag, &err);
    rs_result_set_metric(res, "x_nan", NAN, &err);
}

/* The database: sweep 1 points 0..3 are runs 1..4 (1, 3 done; 2 failed;
 * 4 pending), run 5 a lone done run, run 6 measured (samples at 20..60 ms,
 * run 5's at 0..40 ms). */
static int build(const char *path)
{
    rs_store *st = NULL;
    rs_err err = { 0 };
    rs_result res;
    int64_t sweep = 0, id = 0;
    int created = 0;
    static const char *const limits[] = { "1M", "1M", "4M", "4M" };
    static const char *const trims[] = { "50ms", "200ms", "50ms", "200ms" };

    if (rs_store_open(&st, path, &err) != 0) {
        fprintf(stderr, "open: %s\n", err.msg);
        return -1;
    }
    rs_sweep_meta sm = { .spec_hash = "q1", .trace_path = "traces/t.bin", .trace_sha256 = "ab",
                         .preset = "kv-small", .spec = "--vary kv_cache_limit=1M,4M",
                         .varied_keys = "kv_cache_limit,trim_interval", .points = 4, .jobs = 1 };
    CHECK(rs_store_sweep_open(st, &sm, &sweep, &created, &err) == 0 && sweep == 1);
    for (int p = 0; p < 4; p++) {
        rs_config *cfg = make_cfg(limits[p], trims[p]);
        rs_run_meta meta = make_meta("predicted", NULL);
        CHECK(rs_store_sweep_point(st, sweep, p, &meta, cfg, &id, &err) == 0 && id == p + 1);
        rs_config_free(cfg);
        if (p == 3)
            continue; /* left pending */
        CHECK(rs_store_run_claim(st, id, &err) == 0);
        if (p == 1) {
            CHECK(rs_store_run_fail(st, id, "injected", &err) == 0);
            continue;
        }
        make_result(&res, 4, 0, (uint64_t)p);
        CHECK(rs_store_run_finish(st, id, &res, 100, 2000, &err) == 0);
        rs_result_release(&res);
    }
    rs_config *cfg = make_cfg("8M", "50ms");
    rs_run_meta meta = make_meta("predicted", "lone, \"quoted\"");
    CHECK(rs_store_run_begin(st, &meta, cfg, &id, &err) == 0 && id == 5);
    make_result(&res, 5, 0, 7);
    CHECK(rs_store_run_finish(st, id, &res, 5, 6, &err) == 0);
    rs_result_release(&res);
    meta = make_meta("measured", "measured for 5");
    CHECK(rs_store_run_begin(st, &meta, NULL, &id, &err) == 0 && id == 6);
    make_result(&res, 5, 20, 9);
    CHECK(rs_store_run_finish(st, id, &res, 5, 6, &err) == 0);
    rs_result_release(&res);
    rs_config_free(cfg);

    /* the write validate uses: set, then replace */
    CHECK(rs_store_metric_set(st, 6, "predicted_run_id", 4, &err) == 0);
    CHECK_MSG(rs_store_metric_set(st, 6, "predicted_run_id", 5, &err) == 0, "%s", err.msg);
    CHECK(rs_store_metric_set(st, 99, "predicted_run_id", 5, &err) == RS_EDB);
    rs_store_close(st);
    return 0;
}

static void test_run_get(rs_store *st, const char *path)
{
    rs_query_run r;
    rs_err err = { 0 };
    char want[600];

    CHECK_MSG(rs_query_run_get(st, 3, &r, &err) == 0, "%s", err.msg);
    CHECK(r.id == 3 && !strcmp(r.kind, "predicted") && !strcmp(r.status, "done"));
    CHECK(!strcmp(r.preset, "kv-small") && !strcmp(r.trace_sha256, "ab"));
    CHECK(r.seed == UINT64_C(18446744073709551615));
    CHECK(r.has_sweep_id && r.sweep_id == 1 && r.has_point_index && r.point_index == 2);
    CHECK(r.has_events && r.events == 100 && r.has_wall_ns && r.wall_ns == 2000);
    CHECK(r.label == NULL && r.error == NULL && r.created_at && r.finished_at);
    CHECK(r.param_hash && strlen(r.param_hash) == 16);
    rs_query_run_release(&r);

    CHECK(rs_query_run_get(st, 2, &r, &err) == 0);
    CHECK(!strcmp(r.status, "failed") && r.error && !strcmp(r.error, "injected"));
    CHECK(!r.has_events && !r.has_wall_ns);
    rs_query_run_release(&r);

    CHECK(rs_query_run_get(st, 5, &r, &err) == 0);
    CHECK(!r.has_sweep_id && !r.has_point_index && !strcmp(r.label, "lone, \"quoted\""));
    rs_query_run_release(&r);

    /* the error case: a run that does not exist */
    CHECK(rs_query_run_get(st, 999, &r, &err) == RS_ENOTFOUND);
    snprintf(want, sizeof want, "no run 999 in '%s'", path);
    CHECK_MSG(err.code == RS_ENOTFOUND && !strcmp(err.msg, want), "%s", err.msg);
    CHECK(r.storage == NULL && r.kind == NULL);
    rs_query_run_release(&r); /* harmless on a failed get */
}

static void test_sweep_get(rs_store *st, const char *path)
{
    rs_query_sweep w;
    rs_err err = { 0 };
    char want[600];

    CHECK_MSG(rs_query_sweep_get(st, 1, &w, &err) == 0, "%s", err.msg);
    CHECK(w.id == 1 && !strcmp(w.spec_hash, "q1") && !strcmp(w.preset, "kv-small"));
    CHECK(!strcmp(w.varied_keys, "kv_cache_limit,trim_interval") && w.points == 4 && w.jobs == 1);
    CHECK(!strcmp(w.status, "pending"));
    rs_query_sweep_release(&w);
    CHECK(rs_query_sweep_get(st, 77, &w, &err) == RS_ENOTFOUND);
    snprintf(want, sizeof want, "no sweep 77 in '%s'", path);
    CHECK_MSG(!strcmp(err.msg, want), "%s", err.msg);
}

typedef struct seen_runs {
    int64_t ids[16];
    double m[16][2];
    char p[16][2][16];
    size_t n;
    size_t stop_at; /* fail on this row (1-based), 0: never */
} seen_runs;

static int run_seen(void *ctx, const rs_query_run *run, const double *metrics,
                    const char *const *params, rs_err *err)
{
    seen_runs *s = ctx;
    if (s->stop_at && s->n + 1 == s->stop_at)
        return rs_fail(err, RS_EIO, "stop at run %lld", (long long)run->id);
    s->ids[s->n] = run->id;
    for (int k = 0; k < 2; k++) {
        s->m[s->n][k] = metrics ? metrics[k] : -1;
        snprintf(s->p[s->n][k], sizeof s->p[s->n][k], "%s",
                 !params ? "-" : params[k] ? params[k] : "(null)");
    }
    s->n++;
    return 0;
}

static void test_runs(rs_store *st)
{
    static const char *const metrics[] = { "rss_steady_bytes", "x_nan" };
    static const char *const params[] = { "kv_cache_limit", "no_such_key" };
    rs_err err = { 0 };
    seen_runs s = { 0 };

    /* every run, by id */
    CHECK_MSG(rs_query_runs(st, &(rs_query_runs_filter){ 0 }, run_seen, &s, &err) == 0, "%s",
              err.msg);
    CHECK(s.n == 6);
    for (size_t i = 0; i < s.n; i++)
        CHECK(s.ids[i] == (int64_t)i + 1);
    CHECK(!strcmp(s.p[0][0], "-")); /* no params asked: params is NULL */

    /* the sweep's done runs, with metrics and params */
    memset(&s, 0, sizeof s);
    CHECK(rs_query_runs(st, &(rs_query_runs_filter){ .sweep_id = 1, .status = "done",
                                                     .metrics = metrics, .nmetrics = 2,
                                                     .params = params, .nparams = 2 },
                        run_seen, &s, &err) == 0);
    CHECK(s.n == 2 && s.ids[0] == 1 && s.ids[1] == 3);
    CHECK(s.m[0][0] == 1048576.0 && s.m[1][0] == 3 * 1048576.0);
    CHECK(isnan(s.m[0][1])); /* a NaN metric (NULL) */
    CHECK(!strcmp(s.p[0][0], "1M") && !strcmp(s.p[1][0], "4M"));
    CHECK(!strcmp(s.p[0][1], "(null)")); /* a param the run lacks */

    /* by status only; a metric a run lacks is NaN */
    memset(&s, 0, sizeof s);
    CHECK(rs_query_runs(st, &(rs_query_runs_filter){ .status = "failed", .metrics = metrics,
                                                     .nmetrics = 2 },
                        run_seen, &s, &err) == 0);
    CHECK(s.n == 1 && s.ids[0] == 2 && isnan(s.m[0][0]));

    /* an unknown sweep; a callback's error stops the listing */
    CHECK(rs_query_runs(st, &(rs_query_runs_filter){ .sweep_id = 9 }, run_seen, &s, &err) ==
          RS_ENOTFOUND);
    CHECK(strstr(err.msg, "no sweep 9") != NULL);
    memset(&s, 0, sizeof s);
    s.stop_at = 2;
    CHECK(rs_query_runs(st, &(rs_query_runs_filter){ 0 }, run_seen, &s, &err) == RS_EIO);
    CHECK(s.n == 1 && !strcmp(err.msg, "stop at run 2"));
}

typedef struct seen_metrics {
    int64_t run[32];
    char name[32][48];
    double value[32];
    size_t n;
} seen_metrics;

static int metric_seen(void *ctx, int64_t run_id, const char *name, double value, rs_err *err)
{
    seen_metrics *s = ctx;
    (void)err;
    if (s->n < 32) {
        s->run[s->n] = run_id;
        snprintf(s->name[s->n], sizeof s->name[s->n], "%s", name);
        s->value[s->n] = value;
    }
    s->n++;
    return 0;
}

static void test_metrics(rs_store *st)
{
    rs_err err = { 0 };
    seen_metrics s = { 0 };
    double v = 0;
    int found = -1;

    CHECK(rs_query_metric(st, 6, "predicted_run_id", &v, &found, &err) == 0 && found && v == 5);
    CHECK(rs_query_metric(st, 3, "x_nan", &v, &found, &err) == 0 && found && isnan(v));
    CHECK(rs_query_metric(st, 3, "nope", &v, &found, &err) == 0 && !found && isnan(v));
    CHECK(rs_query_metric(st, 999, "nope", &v, &found, &err) == 0 && !found);

    /* one run, by name */
    CHECK_MSG(rs_query_metrics(st, &(rs_query_scope){ .run_id = 3 }, metric_seen, &s, &err) == 0,
              "%s", err.msg);
    CHECK(s.n == 3 && !strcmp(s.name[0], "overshoot_steady") &&
          !strcmp(s.name[1], "rss_steady_bytes") && !strcmp(s.name[2], "x_nan"));
    CHECK(s.value[0] == 3.5 && isnan(s.value[2]) && s.run[0] == 3);

    /* a sweep: its runs in point order (run 2 failed: none) */
    memset(&s, 0, sizeof s);
    CHECK(rs_query_metrics(st, &(rs_query_scope){ .sweep_id = 1 }, metric_seen, &s, &err) == 0);
    CHECK(s.n == 6 && s.run[0] == 1 && s.run[2] == 1 && s.run[3] == 3 && s.run[5] == 3);

    CHECK(rs_query_metrics(st, &(rs_query_scope){ .run_id = 42 }, metric_seen, &s, &err) ==
          RS_ENOTFOUND);
    CHECK(strstr(err.msg, "no run 42 in '") != NULL);
    CHECK(rs_query_metrics(st, &(rs_query_scope){ .sweep_id = 42 }, metric_seen, &s, &err) ==
          RS_ENOTFOUND);
    CHECK(rs_query_metrics(st, &(rs_query_scope){ 0 }, metric_seen, &s, &err) == RS_EINTERNAL);
}

typedef struct seen_params {
    char text[512];
    size_t n;
} seen_params;

static int param_seen(void *ctx, const char *key, const char *value, rs_err *err)
{
    seen_params *s = ctx;
    size_t len = strlen(s->text);
    (void)err;
    snprintf(s->text + len, sizeof s->text - len, "%s=%s;", key, value ? value : "NULL");
    s->n++;
    return 0;
}

static void test_params(rs_store *st)
{
    rs_err err = { 0 };
    seen_params s = { 0 };

    CHECK_MSG(rs_query_params(st, 1, param_seen, &s, &err) == 0, "%s", err.msg);
    CHECK(s.n >= 3 && strstr(s.text, "alloc=jemalloc;") && strstr(s.text, "kv_cache_limit=1M;"));
    /* by key: alloc before kv_cache_limit before trim_interval */
    CHECK(strstr(s.text, "alloc=") < strstr(s.text, "kv_cache_limit=") &&
          strstr(s.text, "kv_cache_limit=") < strstr(s.text, "trim_interval="));
    CHECK(rs_query_params(st, 1234, param_seen, &s, &err) == RS_ENOTFOUND);
    CHECK(strstr(err.msg, "no run 1234") != NULL);

    /* the keys that vary: among runs 1 and 3 the limit (1M, 4M) */
    const int64_t ids13[] = { 1, 3 }, ids12[] = { 1, 2 }, ids11[] = { 1, 1 }, ids16[] = { 1, 6 };
    memset(&s, 0, sizeof s);
    CHECK(rs_query_params_varying(st, ids13, 2, param_seen, &s, &err) == 0);
    CHECK_MSG(!strcmp(s.text, "kv_cache_limit=NULL;"), "%s", s.text);
    memset(&s, 0, sizeof s);
    CHECK(rs_query_params_varying(st, ids12, 2, param_seen, &s, &err) == 0);
    CHECK_MSG(!strcmp(s.text, "trim_interval=NULL;"), "%s", s.text);
    /* run 6 has no params: every key of run 1 is missing there */
    memset(&s, 0, sizeof s);
    CHECK(rs_query_params_varying(st, ids16, 2, param_seen, &s, &err) == 0);
    CHECK(strstr(s.text, "alloc=NULL;") && strstr(s.text, "trim_interval=NULL;"));
    /* a run listed twice: documented, every key then varies */
    size_t nkeys = s.n;
    memset(&s, 0, sizeof s);
    CHECK(rs_query_params_varying(st, ids11, 2, param_seen, &s, &err) == 0 && s.n == nkeys);
    memset(&s, 0, sizeof s);
    CHECK(rs_query_params_varying(st, ids13, 0, param_seen, &s, &err) == 0 && s.n == 0);
}

typedef struct seen_samples {
    int64_t run[32];
    rs_sample smp[32];
    size_t n;
} seen_samples;

static int sample_seen(void *ctx, int64_t run_id, const rs_sample *smp, rs_err *err)
{
    seen_samples *s = ctx;
    (void)err;
    if (s->n < 32) {
        s->run[s->n] = run_id;
        s->smp[s->n] = *smp;
    }
    s->n++;
    return 0;
}

static void test_samples(rs_store *st)
{
    static const char *const two[] = { "t_ns", "rss_bytes" };
    static const char *const bad[] = { "t_ns", "rss_bytes; DROP TABLE runs" };
    rs_err err = { 0 };
    seen_samples s = { 0 };
    int64_t count = -1, first = -1, last = -1;

    CHECK(rs_query_samples_span(st, 5, &count, &first, &last, &err) == 0);
    CHECK(count == 5 && first == 0 && last == 40000000);
    CHECK(rs_query_samples_span(st, 4, &count, &first, &last, &err) == 0); /* pending */
    CHECK(count == 0 && first == 0 && last == 0);
    CHECK(rs_query_samples_span(st, 404, &count, &first, &last, &err) == RS_ENOTFOUND);
    CHECK(strstr(err.msg, "no run 404") != NULL);

    /* every column, as written */
    CHECK_MSG(rs_query_samples(st, &(rs_query_scope){ .run_id = 5 }, NULL, 0, sample_seen, &s,
                               &err) == 0, "%s", err.msg);
    CHECK(s.n == 5 && s.run[0] == 5);
    CHECK(s.smp[2].t_ns == 20000000 && s.smp[2].accounted_bytes == 2007 &&
          s.smp[2].resident_bytes == 4007 && s.smp[2].rss_bytes == 6007 &&
          s.smp[2].limit_bytes == 1u << 20);
    CHECK(s.smp[2].x == 0.5 && isnan(s.smp[1].x)); /* NULL real: NaN */
    CHECK(s.smp[2].overshoot == 6007.0 / 1048576.0);

    /* chosen columns: the others left 0 / NaN */
    memset(&s, 0, sizeof s);
    CHECK(rs_query_samples(st, &(rs_query_scope){ .run_id = 5 }, two, 2, sample_seen, &s, &err) == 0);
    CHECK(s.n == 5 && s.smp[4].t_ns == 40000000 && s.smp[4].rss_bytes == 12007);
    CHECK(s.smp[4].accounted_bytes == 0 && isnan(s.smp[4].x) && isnan(s.smp[4].overshoot));
    CHECK(rs_query_samples(st, &(rs_query_scope){ .run_id = 5 }, bad, 2, sample_seen, &s, &err) ==
          RS_EINPUT);
    CHECK_MSG(!strcmp(err.msg, "unknown sample column 'rss_bytes; DROP TABLE runs'"), "%s", err.msg);

    /* a sweep: runs in point order, each by time */
    memset(&s, 0, sizeof s);
    CHECK(rs_query_samples(st, &(rs_query_scope){ .sweep_id = 1 }, two, 2, sample_seen, &s, &err) == 0);
    CHECK(s.n == 8 && s.run[0] == 1 && s.run[3] == 1 && s.run[4] == 3 && s.run[7] == 3);
    CHECK(s.smp[3].t_ns == 30000000 && s.smp[4].t_ns == 0);
    CHECK(rs_query_samples(st, &(rs_query_scope){ .run_id = 31337 }, NULL, 0, sample_seen, &s,
                           &err) == RS_ENOTFOUND);
    CHECK(strstr(err.msg, "no run 31337") != NULL);
}

typedef struct seen_pairs {
    rs_sample a[16], b[16];
    size_t n;
} seen_pairs;

static int pair_seen(void *ctx, const rs_sample *a, const rs_sample *b, rs_err *err)
{
    seen_pairs *s = ctx;
    (void)err;
    if (s->n < 16) {
        s->a[s->n] = *a;
        s->b[s->n] = *b;
    }
    s->n++;
    return 0;
}

static void test_join(rs_store *st)
{
    static const char *const cols[] = { "resident_bytes", "allocated_bytes" };
    rs_err err = { 0 };
    seen_pairs s = { 0 };

    /* run 5 at 0..40 ms, run 6 at 20..60 ms: 20, 30, 40 in common */
    CHECK_MSG(rs_query_samples_join(st, 5, 6, cols, 2, pair_seen, &s, &err) == 0, "%s", err.msg);
    CHECK(s.n == 3);
    CHECK(s.a[0].t_ns == 20000000 && s.b[0].t_ns == 20000000 && s.a[2].t_ns == 40000000);
    CHECK(s.a[0].resident_bytes == 4007 && s.b[0].resident_bytes == 9); /* run 6's first sample */
    CHECK(s.a[0].allocated_bytes == 3007 && s.b[1].allocated_bytes == 1509);
    CHECK(s.a[0].rss_bytes == 0 && isnan(s.b[0].x)); /* not selected */
    /* no such run: no common samples, no error */
    memset(&s, 0, sizeof s);
    CHECK(rs_query_samples_join(st, 5, 777, cols, 2, pair_seen, &s, &err) == 0 && s.n == 0);
}

/* No plans table in this schema: "no plans", not an error. */
static void test_plans(rs_store *st)
{
    rs_err err = { 0 };
    int has = -1;
    CHECK(rs_query_has_plans(st, &has, &err) == 0 && has == 0);
}

int main(void)
{
    rs_store *st = NULL;
    rs_err err = { 0 };

    if (scratch_dir("query") != 0)
        return 1;
    const char *path = path_in("q.db");
    if (build(path) != 0)
        return 1;
    CHECK_MSG(rs_store_open_ro(&st, path, &err) == 0, "%s", err.msg);
    if (st) {
        test_run_get(st, path);
        test_sweep_get(st, path);
        test_runs(st);
        test_metrics(st);
        test_params(st);
        test_samples(st);
        test_join(st);
        test_plans(st);
        rs_store_close(st);
    }
    /* a read-write handle answers too */
    CHECK(rs_store_open(&st, path, &err) == 0);
    if (st) {
        rs_query_run r;
        CHECK(rs_query_run_get(st, 6, &r, &err) == 0 && !strcmp(r.kind, "measured"));
        rs_query_run_release(&r);
        rs_store_close(st);
    }
    unlink(path_in("q.db-wal"));
    unlink(path_in("q.db-shm"));
    unlink(path);
    rmdir(dir);
    return check_done();
}
