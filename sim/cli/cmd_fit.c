/*
 * cmd_fit.c — `rssim fit RUN...`: RSS = base + k * accounted over the
 * samples of observed (or measured) runs, by least squares (sim/fit.h),
 * said as a sentence an operator can use (docs/observe.md, "Fitting").
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../base/config.h"
#include "../fit.h"
#include "../query.h"
#include "../store.h"
#include "cli.h"

#define FIT_MAX_RUNS 64
#define FIT_MAX_SAMPLES 10000000 /* 160 MB of doubles */

typedef struct fit_pts {
    double *x, *y;
    size_t n, cap;
} fit_pts;

static int fit_sample(void *ctx, int64_t run_id, const rs_sample *smp, rs_err *err)
{
    fit_pts *p = ctx;
    (void)run_id;
    if (p->n == FIT_MAX_SAMPLES)
        return rs_fail(err, RS_EINPUT, "more than %d samples to fit", FIT_MAX_SAMPLES);
    if (p->n == p->cap) {
        size_t cap = p->cap ? p->cap * 2 : 1024;
        double *x = realloc(p->x, cap * sizeof *x);
        if (x)
            p->x = x;
        double *y = x ? realloc(p->y, cap * sizeof *y) : NULL;
        if (!x || !y)
            return rs_fail(err, RS_ENOMEM, "out of memory");
        p->y = y;
        p->cap = cap;
    }
    p->x[p->n] = (double)smp->accounted_bytes;
    p->y[p->n++] = (double)smp->rss_bytes;
    return 0;
}

typedef struct fit_limit {
    char key[32];
    uint64_t bytes;
} fit_limit;

static int fit_param(void *ctx, const char *key, const char *value, rs_err *err)
{
    fit_limit *l = ctx;
    uint64_t b;
    (void)err;
    if ((!strcmp(key, "mds_cache_memory_limit") || !strcmp(key, "osd_memory_target")) &&
        !rs_parse_size(value, &b) && b > 0 && !l->bytes) {
        snprintf(l->key, sizeof l->key, "%s", key);
        l->bytes = b;
    }
    return 0;
}

/* A size in MiB, or GiB from 10 GiB on (the reports' rule). */
static void size_text(double b, char *buf, size_t n)
{
    if (fabs(b) >= 10.0 * 1073741824.0)
        snprintf(buf, n, "%.2f GiB", b / 1073741824.0);
    else
        snprintf(buf, n, "%.1f MiB", b / 1048576.0);
}

static void fit_usage(FILE *f)
{
    fprintf(f,
            "usage: rssim fit RUN... [--db PATH] [--at SIZE]\n\n"
            "Fit RSS = base + k x accounted to every sample of the runs (kind observed,\n"
            "from 'rssim observe import', or measured) by least squares (GSL), with 95 %%\n"
            "confidence intervals, the residual standard deviation and R^2, and say what\n"
            "it predicts at the cache limit (the runs' mds_cache_memory_limit or\n"
            "osd_memory_target, or --at).\n\n"
            "      --at SIZE    the accounted bytes to predict the RSS at (e.g. 16G)\n"
            "      --db PATH    SQLite database (default %s)\n"
            "  -h, --help       this help\n",
            rs_cli_default_db());
}

int cmd_fit(int argc, char **argv)
{
    static const struct option opts[] = {
        { "db", required_argument, NULL, 'd' }, { "at", required_argument, NULL, 'a' },
        { "help", no_argument, NULL, 'h' },     { NULL, 0, NULL, 0 },
    };
    const char *db = rs_cli_default_db();
    uint64_t at = 0;
    int64_t runs[FIT_MAX_RUNS];
    size_t nruns = 0;
    int c, rc = 0;
    rs_err err = { 0 };
    rs_store *st = NULL;
    fit_pts pts = { 0 };
    fit_limit lim = { .key = "", .bytes = 0 };

    optind = 1;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        switch (c) {
        case 'd': db = optarg; break;
        case 'a':
            if (rs_parse_size(optarg, &at) || !at)
                return rs_cli_usage_error("fit", "bad --at '%s' (a size > 0, e.g. 16G)", optarg);
            break;
        case 'h': fit_usage(stdout); return 0;
        default: fit_usage(stderr); return 2;
        }
    }
    if (optind >= argc)
        return rs_cli_usage_error("fit", "no RUN given");
    for (int i = optind; i < argc; i++) {
        char *end;
        errno = 0;
        long long id = strtoll(argv[i], &end, 10);
        if (*end || !*argv[i] || errno || id <= 0)
            return rs_cli_usage_error("fit", "bad run id '%s'", argv[i]);
        if (nruns == FIT_MAX_RUNS)
            return rs_cli_usage_error("fit", "more than %d runs", FIT_MAX_RUNS);
        runs[nruns++] = id;
    }
    if ((rc = rs_store_open_ro(&st, db, &err)))
        goto report;
    for (size_t i = 0; i < nruns && !rc; i++) {
        rs_query_run run;
        if ((rc = rs_query_run_get(st, runs[i], &run, &err)))
            break;
        if (strcmp(run.status, "done") != 0)
            rc = rs_fail(&err, RS_EINPUT, "run %lld is %s, not done", (long long)runs[i],
                         run.status);
        else if (!run.kind || !strcmp(run.kind, "predicted"))
            rc = rs_fail(&err, RS_EINPUT, "run %lld is a prediction: fit observed runs ('rssim "
                         "observe import') or measured ones", (long long)runs[i]);
        rs_query_run_release(&run);
        if (rc)
            break;
        static const char *const cols[] = { "accounted_bytes", "rss_bytes" };
        rs_query_scope scope = { .run_id = runs[i] };
        if (!(rc = rs_query_samples(st, &scope, cols, 2, fit_sample, &pts, &err)))
            rc = rs_query_params(st, runs[i], fit_param, &lim, &err);
    }
    if (rc)
        goto report;
    rs_fit_line f;
    if ((rc = rs_fit_line_ls(pts.x, pts.y, pts.n, &f, &err)))
        goto report;
    char base[32], base_ci[32], sigma[32];
    size_text(f.base, base, sizeof base);
    size_text(f.base_ci, base_ci, sizeof base_ci);
    size_text(f.sigma, sigma, sizeof sigma);
    printf("fit of %zu samples of run%s", f.n, nruns > 1 ? "s" : "");
    for (size_t i = 0; i < nruns; i++)
        printf("%s%lld", i ? ", " : " ", (long long)runs[i]);
    printf(" (least squares, 95 %% confidence):\n");
    printf("RSS = %s (±%s) + %.3f × accounted (±%.3f); residual σ %s, R² %.4f\n", base,
           base_ci, f.k, f.k_ci, sigma, f.r2);
    const char *at_key = at ? "accounted" : lim.bytes ? lim.key : NULL;
    double x0 = at ? (double)at : (double)lim.bytes;
    if (at_key) {
        double y, ci;
        char xs[32], ys[32], cis[32];
        rs_fit_line_at(&f, x0, &y, &ci);
        size_text(x0, xs, sizeof xs);
        size_text(y, ys, sizeof ys);
        size_text(ci, cis, sizeof cis);
        printf("at %s %s: RSS ≈ %s (±%s)", at_key, xs, ys, cis);
        double xmax = 0;
        for (size_t i = 0; i < pts.n; i++)
            xmax = fmax(xmax, pts.x[i]);
        if (x0 > 1.5 * xmax) {
            char ms[32];
            size_text(xmax, ms, sizeof ms);
            printf(", %.1f× beyond the largest accounted observed (%s): an extrapolation",
                   x0 / xmax, ms);
        }
        printf("\n");
    }
    printf("base_bytes=%.0f base_ci_bytes=%.0f k=%.6f k_ci=%.6f sigma_bytes=%.0f r2=%.6f n=%zu\n",
           f.base, f.base_ci, f.k, f.k_ci, f.sigma, f.r2, f.n);
report:
    if (rc)
        rc = rs_cli_report(&err);
    free(pts.x);
    free(pts.y);
    rs_store_close(st);
    return rc;
}
