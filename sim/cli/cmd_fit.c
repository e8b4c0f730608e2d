/*
 * cmd_fit.c — `rssim fit RUN...`: RSS = base + k * accounted over the
 * samples of observed (or measured) runs, by least squares (sim/fit.h),
 * said as a sentence an operator can use (docs/observe.md, "Fitting").
 * With --trace and --param: the simulator's own unknowns (1 to 3 keys)
 * fitted so that a replay of the trace matches the observed run's series
 * (GSL Levenberg-Marquardt, sim/fit.h rs_fit_nl).
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../base/config.h"
#include "../base/result.h"
#include "../fit.h"
#include "../query.h"
#include "../run.h"
#include "../schema.h"
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
            "usage: rssim fit RUN... [--db PATH] [--at SIZE]\n"
            "       rssim fit RUN --trace T --preset P [--set K=V]... --param KEY=LO,HI[@START]...\n"
            "                 [--column rss_bytes] [--db PATH]\n\n"
            "Fit RSS = base + k x accounted to every sample of the runs (kind observed,\n"
            "from 'rssim observe import', or measured) by least squares (GSL), with 95 %%\n"
            "confidence intervals, the residual standard deviation and R^2, and say what\n"
            "it predicts at the cache limit (the runs' mds_cache_memory_limit or\n"
            "osd_memory_target, or --at).\n\n"
            "      --at SIZE    the accounted bytes to predict the RSS at (e.g. 16G)\n\n"
            "With --trace: fit 1 to 3 of the simulator's keys (--param, each in its range)\n"
            "so that replays of T under P match the observed run's --column series, both\n"
            "aligned by run fraction (GSL Levenberg-Marquardt, central differences of 2 %%\n"
            "of each range); prints each key with its 95 %% interval and the residual.\n"
            "      --trace T, --preset P, --set K=V   the replay, as 'rssim replay'\n"
            "      --param KEY=LO,HI[@START]  a key to fit (start: the middle)\n"
            "      --column C   the sample column compared (default rss_bytes)\n"
            "      --db PATH    SQLite database (default %s)\n"
            "  -h, --help       this help\n",
            rs_cli_default_db());
}

/* ---- the simulator's unknowns against an observed series ---- */

#define SIM_MAX_SETS 128

typedef struct sim_fit {
    const char *trace;
    const rs_config *base;
    size_t p;
    const rs_param *keys[RS_FIT_NL_MAX_PARAMS];
    const char *column;
    double *obs_frac, *obs_y; /* the observed series by run fraction */
    size_t n;
    int replays;
} sim_fit;

/* v (the key's base unit) as a config value */
static void key_value(const rs_param *k, double v, char *buf, size_t cap)
{
    switch (k->type) {
    case RS_PT_SIZE: snprintf(buf, cap, "%.0f", fmax(0, round(v))); break;
    case RS_PT_DURATION: snprintf(buf, cap, "%.0fns", fmax(0, round(v))); break;
    case RS_PT_INT: snprintf(buf, cap, "%.0f", round(v)); break;
    default: snprintf(buf, cap, "%.17g", v); break;
    }
}

static int sim_column(const rs_sample *smp, const char *col, double *r)
{
#define PICK(c) if (!strcmp(col, #c)) { *r = (double)smp->c; return 0; }
    RS_SAMPLE_INT_COLUMNS(PICK)
#undef PICK
    return -1;
}

static int sim_residuals(const double *x, double *r, void *ctx, rs_err *err)
{
    sim_fit *sf = ctx;
    rs_config *cfg = NULL;
    rs_result res;
    rs_run_stats stats;
    char v[64];
    int rc;

    rs_result_init(&res);
    if ((rc = rs_config_clone(sf->base, &cfg, err)))
        goto out;
    for (size_t j = 0; j < sf->p && !rc; j++) {
        key_value(sf->keys[j], x[j], v, sizeof v);
        rc = rs_config_set(cfg, sf->keys[j]->key, v, err);
    }
    if (rc || (rc = rs_schema_finish(cfg, NULL, NULL, err)) ||
        (rc = rs_run_execute(sf->trace, cfg, &res, &stats, err)))
        goto out;
    sf->replays++;
    if (res.nsamples < 2) {
        rc = rs_fail(err, RS_EINPUT, "the replay of '%s' has %zu samples: too short to compare",
                     sf->trace, res.nsamples);
        goto out;
    }
    double end = (double)res.samples[res.nsamples - 1].t_ns;
    size_t k = 0;
    for (size_t i = 0; i < sf->n; i++) { /* the replay at the observed run fraction */
        double t = sf->obs_frac[i] * end, ya, yb;
        while (k + 2 < res.nsamples && (double)res.samples[k + 1].t_ns < t)
            k++;
        double ta = (double)res.samples[k].t_ns, tb = (double)res.samples[k + 1].t_ns;
        sim_column(&res.samples[k], sf->column, &ya);
        sim_column(&res.samples[k + 1], sf->column, &yb);
        double w = tb > ta ? (t - ta) / (tb - ta) : 0;
        w = w < 0 ? 0 : w > 1 ? 1 : w;
        r[i] = (ya + w * (yb - ya) - sf->obs_y[i]) / 1048576.0;
    }
out:
    if (rc) {
        char where[256] = "";
        for (size_t j = 0; j < sf->p; j++) {
            key_value(sf->keys[j], x[j], v, sizeof v);
            snprintf(where + strlen(where), sizeof where - strlen(where), "%s%s=%s", j ? " " : "",
                     sf->keys[j]->key, v);
        }
        rs_err_prefix(err, "%s", where);
    }
    rs_result_release(&res);
    rs_config_free(cfg);
    return rc;
}

typedef struct obs_series {
    double *t, *y;
    size_t n, cap;
    const char *column;
} obs_series;

static int obs_row(void *ctx, int64_t run_id, const rs_sample *smp, rs_err *err)
{
    obs_series *o = ctx;
    double y;
    (void)run_id;
    if (o->n == FIT_MAX_SAMPLES)
        return rs_fail(err, RS_EINPUT, "more than %d samples to fit", FIT_MAX_SAMPLES);
    if (o->n == o->cap) {
        size_t cap = o->cap ? 2 * o->cap : 1024;
        double *t = realloc(o->t, cap * sizeof *t);
        if (t)
            o->t = t;
        double *yy = t ? realloc(o->y, cap * sizeof *yy) : NULL;
        if (!t || !yy)
            return rs_fail(err, RS_ENOMEM, "out of memory");
        o->y = yy;
        o->cap = cap;
    }
    sim_column(smp, o->column, &y);
    o->t[o->n] = (double)smp->t_ns;
    o->y[o->n++] = y;
    return 0;
}

typedef struct sim_args {
    const char *trace, *preset, *column, *params[RS_FIT_NL_MAX_PARAMS];
    char *sets[SIM_MAX_SETS];
    int nsets, nparams;
} sim_args;

static int fit_sim(const sim_args *a, const char *db, int64_t run_id)
{
    rs_err err = { 0 };
    rs_config *base = NULL;
    rs_store *st = NULL;
    obs_series obs = { .column = a->column };
    sim_fit sf = { .trace = a->trace, .column = a->column, .p = (size_t)a->nparams };
    rs_fit_nl_opts o = { .p = (size_t)a->nparams, .step = 0.02, .max_iter = 30 };
    rs_fit_nl_result fr = { 0 };
    char names[RS_FIT_NL_MAX_PARAMS][64];
    int rc;

    {
        double dummy;
        rs_sample z = { 0 };
        if (sim_column(&z, a->column, &dummy))
            return rs_cli_usage_error("fit", "--column: '%s' is not an integer sample column "
                                      "(docs/store.md)", a->column);
    }
    if ((rc = rs_cli_build_config(a->preset, a->sets, a->nsets, &base, &err)))
        goto report;
    sf.base = base;
    for (int j = 0; j < a->nparams; j++) {
        const char *eq = strchr(a->params[j], '=');
        char buf[256], *lo, *hi, *at;
        size_t kl = eq ? (size_t)(eq - a->params[j]) : 0;
        if (!eq || kl == 0 || kl >= sizeof names[j] ||
            (size_t)snprintf(buf, sizeof buf, "%s", eq + 1) >= sizeof buf) {
            rc = rs_cli_usage_error("fit", "--param: expected KEY=LO,HI[@START], got '%s'",
                                    a->params[j]);
            goto out;
        }
        memcpy(names[j], a->params[j], kl);
        names[j][kl] = '\0';
        const rs_param *k = rs_config_param(base, names[j]);
        if (!k) {
            rc = rs_cli_usage_error("fit", "--param: unknown key '%s' for preset '%s' (see "
                                    "'rssim list')", names[j], a->preset);
            goto out;
        }
        for (int i = 0; i < j; i++)
            if (sf.keys[i] == k) {
                rc = rs_cli_usage_error("fit", "--param: '%s' twice", names[j]);
                goto out;
            }
        if (k->type != RS_PT_SIZE && k->type != RS_PT_DURATION && k->type != RS_PT_INT &&
            k->type != RS_PT_DOUBLE) {
            rc = rs_cli_usage_error("fit", "--param: '%s' is a %s; a fit needs a size, "
                                    "duration, integer or number", names[j],
                                    rs_ptype_name(k->type));
            goto out;
        }
        sf.keys[j] = k;
        lo = buf;
        at = strchr(buf, '@');
        if (at)
            *at++ = '\0';
        hi = strchr(buf, ',');
        if (hi)
            *hi++ = '\0';
        uint64_t u;
        int64_t iv;
        double *dst[3] = { &o.lo[j], &o.hi[j], &o.x0[j] };
        const char *src[3] = { lo, hi, at };
        for (int q = 0; q < 3; q++) {
            if (!src[q])
                continue;
            int bad = k->type == RS_PT_SIZE ? rs_parse_size(src[q], &u)
                      : k->type == RS_PT_DURATION ? rs_parse_duration(src[q], &u)
                      : k->type == RS_PT_INT ? rs_parse_int(src[q], &iv)
                                             : rs_parse_double(src[q], dst[q]);
            if (!bad && (k->type == RS_PT_SIZE || k->type == RS_PT_DURATION))
                *dst[q] = (double)u;
            else if (!bad && k->type == RS_PT_INT)
                *dst[q] = (double)iv;
            if (bad) {
                rc = rs_cli_usage_error("fit", "--param: bad value '%s' of '%s' (a %s)", src[q],
                                        names[j], rs_ptype_name(k->type));
                goto out;
            }
        }
        if (!hi || !(o.lo[j] < o.hi[j])) {
            rc = rs_cli_usage_error("fit", "--param: expected %s=LO,HI with LO < HI, got '%s'",
                                    names[j], a->params[j]);
            goto out;
        }
        if (!at)
            o.x0[j] = (o.lo[j] + o.hi[j]) / 2;
        else if (!(o.x0[j] >= o.lo[j] && o.x0[j] <= o.hi[j])) {
            rc = rs_cli_usage_error("fit", "--param: the start of '%s' is outside its range",
                                    names[j]);
            goto out;
        }
    }
    if ((rc = rs_cli_check_input(a->trace, &err)) || (rc = rs_store_open_ro(&st, db, &err)))
        goto report;
    {
        rs_query_run run;
        if ((rc = rs_query_run_get(st, run_id, &run, &err)))
            goto report;
        if (strcmp(run.status, "done") != 0 || !run.kind || !strcmp(run.kind, "predicted"))
            rc = rs_fail(&err, RS_EINPUT, "run %lld is not a done observed or measured run",
                         (long long)run_id);
        rs_query_run_release(&run);
        const char *cols[] = { "t_ns", a->column };
        if (!rc)
            rc = rs_query_samples(st, &(rs_query_scope){ .run_id = run_id }, cols,
                                  strcmp(a->column, "t_ns") ? 2 : 1, obs_row, &obs, &err);
        if (rc)
            goto report;
    }
    if (obs.n < 2 || obs.t[obs.n - 1] <= 0) {
        rc = rs_fail(&err, RS_EINPUT, "run %lld has %zu samples: too few to fit to",
                     (long long)run_id, obs.n);
        goto report;
    }
    for (size_t i = 0; i < obs.n; i++)
        obs.t[i] /= obs.t[obs.n - 1]; /* run fraction */
    sf.obs_frac = obs.t;
    sf.obs_y = obs.y;
    sf.n = o.n = obs.n;
    if ((rc = rs_fit_nl(sim_residuals, &sf, &o, &fr, &err)))
        goto report;
    printf("fit of %d key%s to %zu samples of run %lld (%s, aligned by run fraction; "
           "Levenberg-Marquardt, 95 %% confidence):\n", a->nparams, a->nparams > 1 ? "s" : "",
           obs.n, (long long)run_id, a->column);
    for (int j = 0; j < a->nparams; j++) {
        char v[64], c[64];
        key_value(sf.keys[j], fr.x[j], v, sizeof v);
        if (sf.keys[j]->type == RS_PT_SIZE)
            printf("%s = %.2f MiB (±%.2f MiB)\n", names[j], fr.x[j] / 1048576.0,
                   fr.ci[j] / 1048576.0);
        else {
            snprintf(c, sizeof c, "%.6g", fr.ci[j]);
            printf("%s = %s (±%s)\n", names[j], v, c);
        }
    }
    printf("residual σ %.2f MiB (root mean square at the start %.2f MiB); %d iterations, %d "
           "replays, %s\n", fr.sigma, sqrt(fr.chisq0 / (double)obs.n), fr.iterations,
           sf.replays, fr.converged ? "converged" : "not converged (the iteration limit)");
    for (int j = 0; j < a->nparams; j++)
        printf("%s%s=%.17g %s_ci=%.6g", j ? " " : "", names[j], fr.x[j], names[j], fr.ci[j]);
    printf(" sigma_mib=%.6g n=%zu\n", fr.sigma, obs.n);
report:
    if (rc)
        rc = rs_cli_report(&err);
out:
    free(obs.t);
    free(obs.y);
    rs_store_close(st);
    rs_config_free(base);
    return rc;
}

int cmd_fit(int argc, char **argv)
{
    static const struct option opts[] = {
        { "db", required_argument, NULL, 'd' }, { "at", required_argument, NULL, 'a' },
        { "trace", required_argument, NULL, 't' }, { "preset", required_argument, NULL, 'p' },
        { "set", required_argument, NULL, 's' }, { "param", required_argument, NULL, 'k' },
        { "column", required_argument, NULL, 'c' },
        { "help", no_argument, NULL, 'h' },     { NULL, 0, NULL, 0 },
    };
    sim_args sa = { .column = "rss_bytes" };
    int column_given = 0;
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
        case 't': sa.trace = optarg; break;
        case 'p': sa.preset = optarg; break;
        case 's':
            if (sa.nsets == SIM_MAX_SETS)
                return rs_cli_usage_error("fit", "more than %d --set", SIM_MAX_SETS);
            sa.sets[sa.nsets++] = optarg;
            break;
        case 'k':
            if (sa.nparams == RS_FIT_NL_MAX_PARAMS)
                return rs_cli_usage_error("fit", "more than %d --param: fit 1 to %d keys",
                                          RS_FIT_NL_MAX_PARAMS, RS_FIT_NL_MAX_PARAMS);
            sa.params[sa.nparams++] = optarg;
            break;
        case 'c': sa.column = optarg; column_given = 1; break;
        case 'h': fit_usage(stdout); return 0;
        default: fit_usage(stderr); return 2;
        }
    }
    if (sa.trace || sa.preset || sa.nparams || sa.nsets || column_given) {
        if (!sa.trace || !sa.preset || !sa.nparams)
            return rs_cli_usage_error("fit", "fitting the simulator needs --trace, --preset and "
                                      "at least one --param (--set and --column only with them)");
        if (at)
            return rs_cli_usage_error("fit", "--at belongs to the line fit, not to --trace");
        if (optind != argc - 1)
            return rs_cli_usage_error("fit", "with --trace, give exactly one observed RUN");
        char *end;
        errno = 0;
        long long id = strtoll(argv[optind], &end, 10);
        if (*end || !*argv[optind] || errno || id <= 0)
            return rs_cli_usage_error("fit", "bad run id '%s'", argv[optind]);
        return fit_sim(&sa, db, id);
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
