/*
 * cmd_plot.c — `rssim plot timeseries|overshoot|breakdown|validate|latency|
 * interval|capacity`: stored runs (capacity: a stored plan) to PNG or SVG.
 *
 * The C side only reads the store (through sim/query.h), writes plain data
 * files next to the
 * output (NAME.dat: a header row of column names, then numbers; several
 * series are blocks separated by two blank lines, each with its own header
 * whose first name is the series' title) and runs gnuplot on the template
 * scripts/<kind>.gp, passing datafile, out, term, title (and nseries) with
 * -e.  Every drawing decision (units, colours, log axes, keys) is in the
 * template; the C side passes facts about the data a template would need
 * a pass over it for (bytes_max, t_max_ns, whether rss ever differs from
 * resident) and, for overshoot, where each point sits on x (the limit, or
 * the one varied key when none is the limit).  Sizes are MiB, or GiB from
 * 10 GiB, in every template.  The terminal follows the output's suffix:
 * .png -> pngcairo, .svg -> svg, .txt -> dumb.  Only runs with status
 * 'done' are plotted.
 *
 * Env: RSSIM_GNUPLOT overrides the gnuplot found at build time,
 * RSSIM_SCRIPTS the templates' folder.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <spawn.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../base/config.h"
#include "../base/result.h"
#include "../fit.h"
#include "../query.h"
#include "../store.h"
#include "cli.h"

#define VARS_CAP 8192

/* What the command line named: the --run ids, the --sweep, the --key. */
typedef struct plot_args {
    const int64_t *runs;
    size_t nruns;
    int64_t sweep; /* 0 when not given */
    const char *key; /* NULL when not given */
    int64_t plan;    /* --plan ID; 0 when not given */
} plot_args;

typedef struct plot_kind {
    const char *name;
    int per_sweep;        /* 1: takes --sweep ID, 0: takes --run ID */
    const char *template; /* file in rs_cli_scripts_dir() */
    const char *summary;
    /* Write the data file(s) and append the kind's gnuplot variables. */
    int (*write)(rs_store *st, int64_t id, const char *dat, char *vars, rs_err *err);
    /* Instead of write, for kinds taking several runs or a --key: runs_or_sweep
     * 1 = --run ID (repeatable) or --sweep ID, 0 = --sweep ID only; takes_key:
     * --key is allowed. */
    int (*write_args)(rs_store *st, const plot_args *a, const char *dat, char *vars, rs_err *err);
    int runs_or_sweep, takes_key;
    int runs_many; /* --run may be repeated (and --sweep is refused) */
    int per_plan; /* 1: takes --plan ID (and nothing else), through write_args */
} plot_kind;

static int breakdown_write(rs_store *st, int64_t id, const char *dat, char *vars, rs_err *err);
static int timeseries_runs_write(rs_store *st, const plot_args *a, const char *dat, char *vars,
                                 rs_err *err);
static int overshoot_write(rs_store *st, int64_t id, const char *dat, char *vars, rs_err *err);
static int validate_write(rs_store *st, const plot_args *a, const char *dat, char *vars,
                          rs_err *err);
static int latency_write(rs_store *st, const plot_args *a, const char *dat, char *vars,
                         rs_err *err);
static int interval_write(rs_store *st, const plot_args *a, const char *dat, char *vars,
                          rs_err *err);
static int capacity_write(rs_store *st, const plot_args *a, const char *dat, char *vars,
                          rs_err *err);
static int fit_write(rs_store *st, const plot_args *a, const char *dat, char *vars, rs_err *err);

static const plot_kind kinds[] = {
    { .name = "timeseries", .per_sweep = 0, .template = "timeseries.gp",
      .summary = "one run: accounted, resident, rss and limit (MiB) over virtual time; "
                 "several --run: their rss (solid) and accounted (dashed) overlaid, a colour "
                 "per run",
      .write_args = timeseries_runs_write, .runs_many = 1 },
    { .name = "overshoot", .per_sweep = 1, .template = "overshoot.gp",
      .summary = "one sweep: steady rss/limit vs limit, with the (1-x)^-1 curve",
      .write = overshoot_write },
    { .name = "breakdown", .per_sweep = 0, .template = "breakdown.gp",
      .summary = "one run: rss split into accounted, untracked, rounding, caches, "
                 "metadata, free-but-resident and base, stacked over virtual time",
      .write = breakdown_write },
    { .name = "validate", .per_sweep = 0, .template = "validate.gp",
      .summary = "a measured run (--run M) against its predicted run (the one 'rssim "
                 "validate' made, or a second --run P): both to their last sample and the "
                 "error; 'rssim validate' runs by virtual time, imported ones (ceph-measure) "
                 "by run fraction",
      .write_args = validate_write, .runs_many = 1 },
    { .name = "latency", .per_sweep = 0, .template = "latency.gp",
      .summary = "runs or a sweep (osd): the op latency CDF of each run, from its "
                 "latency_p<q>_ns metrics",
      .write_args = latency_write, .runs_or_sweep = 1 },
    { .name = "interval", .per_sweep = 1, .template = "interval.gp",
      .summary = "one sweep (osd): peak rss/limit and IOPS against the trim interval "
                 "(--key, default bluestore_cache_trim_interval), one line per value of "
                 "the other varied keys",
      .write_args = interval_write, .takes_key = 1 },
    { .name = "capacity", .template = "capacity.gp",
      .summary = "one plan (--plan ID, from 'rssim plan'): predicted rss per daemon against "
                 "the limit (p50/p99/peak bands over seeds), RAM / daemons, the safe region, "
                 "the rule of thumb and the chosen limit",
      .write_args = capacity_write, .per_plan = 1 },
    { .name = "fit", .per_sweep = 0, .template = "fit.gp",
      .summary = "observed (or measured) runs: rss against accounted, each sample a point, "
                 "the least-squares line of 'rssim fit' with its 95 % band; predicted --run "
                 "drawn beside them as the simulator's points",
      .write_args = fit_write, .runs_many = 1 },
};

static void usage(FILE *f)
{
    fprintf(f,
            "usage: rssim plot timeseries --run ID [--run ID ...] [--db PATH]\n"
            "                             -o out/NAME.png|.svg|.txt\n"
            "       rssim plot breakdown  --run ID   [--db PATH] -o out/NAME.png|.svg|.txt\n"
            "       rssim plot overshoot  --sweep ID [--db PATH] -o out/NAME.png|.svg|.txt\n"
            "       rssim plot validate   --run MEASURED [--run PREDICTED] [--db PATH]\n"
            "                             -o out/NAME.png|.svg|.txt\n"
            "       rssim plot latency    --run ID [--run ID ...] | --sweep ID [--db PATH]\n"
            "                             -o out/NAME.png|.svg|.txt\n"
            "       rssim plot interval   --sweep ID [--key KEY] [--db PATH]\n"
            "                             -o out/NAME.png|.svg|.txt\n"
            "       rssim plot capacity   --plan ID  [--db PATH] -o out/NAME.png|.svg|.txt\n"
            "       rssim plot fit        --run OBSERVED [--run ID ...] [--db PATH]\n"
            "                             -o out/NAME.png|.svg|.txt\n\n");
    int w = 16; /* the option table's: descriptions start in column 20 */
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
        rs_cli_help_row(f, &kinds[i].name, &w, 1, kinds[i].summary);
    fprintf(f,
            "\nOnly runs that are done are drawn.  The data goes to NAME.dat beside the\n"
            "output; the drawing is scripts/<kind>.gp (gnuplot; Debian package gnuplot-nox).\n\n"
            "      --run ID      the run (timeseries, breakdown; validate: the measured run,\n"
            "                    then, for one imported from a real daemon, the predicted\n"
            "                    run of the same trace; timeseries, latency: repeat it to\n"
            "                    overlay several runs)\n"
            "      --sweep ID    the sweep (overshoot, interval; latency: its done runs)\n"
            "      --key KEY     interval: the swept trim interval key (a duration)\n"
            "      --plan ID     capacity: the plan ('rssim plan' prints its id)\n"
            "      --db PATH     SQLite database (default %s)\n"
            "  -o, --output F    the image: .png (pngcairo), .svg, or .txt: a text\n"
            "                    rendering (gnuplot's dumb terminal, 100 x 32 characters)\n"
            "                    to read in a terminal or paste into a README; the\n"
            "                    folder is created\n"
            "  -h, --help        this help\n\n"
            "env: RSSIM_GNUPLOT (gnuplot program), RSSIM_SCRIPTS (templates folder)\n",
            rs_cli_default_db());
}

/* Append printf text to vars (capacity VARS_CAP); RS_EINPUT when full. */
static int vars_add(char *vars, rs_err *err, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int vars_add(char *vars, rs_err *err, const char *fmt, ...)
{
    size_t n = strlen(vars);
    va_list ap;

    va_start(ap, fmt);
    int m = vsnprintf(vars + n, VARS_CAP - n, fmt, ap);
    va_end(ap);
    if (m < 0 || (size_t)m >= VARS_CAP - n)
        return rs_fail(err, RS_EINPUT, "plot arguments too long");
    return 0;
}

/* Append name='value' as a gnuplot single-quoted string ('' is a quote). */
static int vars_add_string(char *vars, const char *name, const char *value, rs_err *err)
{
    int rc = vars_add(vars, err, "%s='", name);
    for (const char *p = value; !rc && *p; p++)
        rc = *p == '\'' ? vars_add(vars, err, "''") : vars_add(vars, err, "%c", *p);
    return rc ? rc : vars_add(vars, err, "'; ");
}

/* The variables every multi-series template reads: its title and how many
 * series the data file holds. */
static int vars_add_series(char *vars, const char *title, long nseries, rs_err *err)
{
    int rc = vars_add_string(vars, "title", title, err);
    return rc ? rc : vars_add(vars, err, "nseries=%ld; ", nseries);
}

static int file_close(FILE *f, const char *path, rs_err *err)
{
    int bad = ferror(f);
    if (fclose(f) != 0 || bad)
        return rs_fail(err, RS_EIO, "cannot write '%s': %s", path, strerror(errno));
    return 0;
}

/* A real for a data file: byte counts exactly, others to 10 digits, NaN
 * (which gnuplot skips) for a missing value. */
static void dat_real(FILE *f, double v)
{
    if (isnan(v))
        fputs(" NaN", f);
    else if (v == floor(v) && fabs(v) < 9007199254740992.0)
        fprintf(f, " %.0f", v);
    else
        fprintf(f, " %.10g", v);
}

/* Write s into a data file's double-quoted title (a '"' becomes '\''). */
static void dat_title(FILE *f, const char *s);

/* ---- timeseries ---- */

#define COL_NAME(name) " " #name

/* Where a sample's integer columns are, by name (the data file's columns
 * are read through this table, so a plot writes only what it draws). */
static const struct {
    const char *name;
    size_t offset;
} int_columns[] = {
#define INT_AT(name) { #name, offsetof(rs_sample, name) },
    RS_SAMPLE_INT_COLUMNS(INT_AT)
#undef INT_AT
};

static uint64_t sample_int(const rs_sample *smp, size_t k)
{
    uint64_t v;
    memcpy(&v, (const char *)smp + int_columns[k].offset, sizeof v);
    return v;
}

/* What timeseries.gp draws (and breakdown.gp: every column). */
static const char *const timeseries_columns[] = { "t_ns", "accounted_bytes", "resident_bytes",
                                                  "rss_bytes", "limit_bytes", "base_bytes" };
#define TS_NCOLUMNS (sizeof timeseries_columns / sizeof timeseries_columns[0])

typedef struct dat_out {
    FILE *f;
    long long n; /* rows written */
    int narrow;  /* 1: timeseries_columns only; 0: every column */
    size_t at[TS_NCOLUMNS]; /* narrow: the int_columns index of each */
    double bytes_max;       /* the largest accounted, resident, rss or limit */
    double rss_resident_max; /* the largest rss - resident (base): 0 when rss hides resident */
    double t_max_ns;         /* the last sample's time */
} dat_out;

/* A sample row: run_id, then the columns (integers exactly); keeps the
 * numbers the templates choose units and notes by. */
static int timeseries_row(void *ctx, int64_t run_id, const rs_sample *smp, rs_err *err)
{
    dat_out *o = ctx;
    (void)err;
    fprintf(o->f, "%lld", (long long)run_id);
    if (o->narrow) {
        for (size_t k = 0; k < TS_NCOLUMNS; k++)
            fprintf(o->f, " %lld", (long long)(int64_t)sample_int(smp, o->at[k]));
    } else {
#define DAT_INT(name) fprintf(o->f, " %lld", (long long)(int64_t)smp->name);
#define DAT_REAL(name) dat_real(o->f, smp->name);
        RS_SAMPLE_INT_COLUMNS(DAT_INT)
        RS_SAMPLE_REAL_COLUMNS(DAT_REAL)
#undef DAT_INT
#undef DAT_REAL
    }
    fputc('\n', o->f);
    double big = fmax(fmax((double)(int64_t)smp->accounted_bytes,
                           (double)(int64_t)smp->resident_bytes),
                      fmax((double)(int64_t)smp->rss_bytes, (double)(int64_t)smp->limit_bytes));
    o->bytes_max = fmax(o->bytes_max, big);
    o->t_max_ns = fmax(o->t_max_ns, (double)(int64_t)smp->t_ns);
    o->rss_resident_max = fmax(o->rss_resident_max,
                               fabs((double)(int64_t)smp->rss_bytes -
                                    (double)(int64_t)smp->resident_bytes));
    o->n++;
    return 0;
}

/* Narrow o to timeseries_columns; writes their header names after run_id. */
static void dat_narrow(dat_out *o, FILE *f)
{
    o->narrow = 1;
    for (size_t k = 0; k < TS_NCOLUMNS; k++) {
        for (size_t j = 0; j < sizeof int_columns / sizeof int_columns[0]; j++)
            if (!strcmp(int_columns[j].name, timeseries_columns[k]))
                o->at[k] = j;
        fprintf(f, " %s", timeseries_columns[k]);
    }
    fputc('\n', f);
}

/* The template variables about the data: bytes_max (the unit: GiB from
 * 10 GiB, MiB below), rss_resident_max (0: rss and resident coincide) and
 * t_max_ns: with them timeseries.gp sets its ranges and labelled ticks
 * without a pass over the data, and draws raw columns (no expression per
 * point: gnuplot makes three system calls per evaluated expression). */
static int vars_add_bytes(char *vars, const dat_out *o, rs_err *err)
{
    return vars_add(vars, err, "bytes_max=%.17g; rss_resident_max=%.17g; t_max_ns=%.17g; ",
                    o->bytes_max, o->rss_resident_max, o->t_max_ns);
}

/* A sampled run's key (mds_sample_k > 1): its value in *k (0: not sampled). */
static int sample_k_of(void *ctx, const char *key, const char *value, rs_err *err)
{
    (void)err;
    if (!strcmp(key, "mds_sample_k") && value)
        *(long *)ctx = strtol(value, NULL, 10);
    return 0;
}

/* Append ", sampled 1/k of directories" to title when run id was sampled:
 * a sampled result is said to be one wherever it is shown. */
static int title_sampled(rs_store *st, int64_t id, char *title, size_t cap, rs_err *err)
{
    long k = 0;
    int rc = rs_query_params(st, id, sample_k_of, &k, err);
    size_t n = strlen(title);
    if (!rc && k > 1 && n < cap)
        snprintf(title + n, cap - n, ", sampled 1/%ld of directories", k);
    return rc;
}

/* One run's samples: every column (breakdown) or the timeseries' (narrow). */
static int samples_write(rs_store *st, int64_t id, const char *dat, char *vars, int narrow,
                         rs_err *err)
{
    static const char header[] =
        "run_id" RS_SAMPLE_INT_COLUMNS(COL_NAME) RS_SAMPLE_REAL_COLUMNS(COL_NAME);
    char title[1024];
    rs_query_run run;
    dat_out o = { 0 };
    int rc;

    if ((rc = rs_query_run_get(st, id, &run, err)))
        return rc;
    if (!run.status || strcmp(run.status, "done") != 0) { /* NULL: a damaged file */
        rc = rs_fail(err, RS_EINPUT, "run %" PRId64 " in '%s' is %s, not done: nothing to plot",
                     id, rs_store_path(st), run.status ? run.status : "of no status");
        rs_query_run_release(&run);
        return rc;
    }
    snprintf(title, sizeof title, "run %" PRId64 ": %s%s%s", id,
             run.preset ? run.preset : "no preset", run.label && *run.label ? ", " : "",
             run.label && *run.label ? run.label : "");
    rs_query_run_release(&run);
    if ((rc = title_sampled(st, id, title, sizeof title, err)) ||
        (rc = vars_add_string(vars, "title", title, err)))
        return rc;

    if (!(o.f = fopen(dat, "w")))
        return rs_fail(err, RS_EIO, "cannot write '%s': %s", dat, strerror(errno));
    fprintf(o.f, "# rssim plot %s: samples of run %" PRId64 " from '%s'\n",
            narrow ? "timeseries" : "breakdown", id, rs_store_path(st));
    if (narrow) {
        fputs("run_id", o.f);
        dat_narrow(&o, o.f);
    } else {
        fprintf(o.f, "%s\n", header);
    }
    rc = rs_query_samples(st, &(rs_query_scope){ .run_id = id }, narrow ? timeseries_columns : NULL,
                          narrow ? TS_NCOLUMNS : 0, timeseries_row, &o, err);
    int crc = file_close(o.f, dat, err);
    if (rc || crc)
        return rc ? rc : crc;
    if (o.n == 0)
        return rs_fail(err, RS_EINPUT, "run %" PRId64 " in '%s' has no samples: nothing to plot",
                       id, rs_store_path(st));
    return vars_add_bytes(vars, &o, err);
}

static int timeseries_write(rs_store *st, int64_t id, const char *dat, char *vars, rs_err *err)
{
    return samples_write(st, id, dat, vars, 1, err);
}

static int breakdown_write(rs_store *st, int64_t id, const char *dat, char *vars, rs_err *err)
{
    return samples_write(st, id, dat, vars, 0, err);
}

/* ---- validate: a measured run against the predicted run of the same trace ----
 *
 * Two ways to put the runs on one x axis, chosen by what the store holds:
 *  - time: a measured run of `rssim validate` (it has the metric
 *    predicted_run_id) was sampled at the predicted run's virtual times, so
 *    x is virtual time; its columns are resident_bytes and allocated_bytes,
 *    both taken relative to the run's first sample (t = 0), the baseline of
 *    the table `rssim validate` prints;
 *  - fraction: a run imported from a real daemon (`rssim runs
 *    import-measured`, scripts/ceph-measure) is sampled in wall time since
 *    the workload started, which runs several times slower than virtual
 *    time and not in proportion; neither run stores how many trace records
 *    had been replayed at a sample, only the total, so x is the fraction of
 *    each run's span (t / its last sample's t) — both replayed the same
 *    records in the same order, so equal fractions are equal progress
 *    where the op rate is steady.  Its columns are rss_bytes and
 *    accounted_bytes, absolute (what the comparison in docs/validation.md
 *    compares).
 * Each run is drawn to its own last sample.  The error at each measured
 * sample is |predicted - measured| / max(measured, 5 % of the measured
 * column's largest change), the predicted value interpolated linearly at the measured x (none
 * beyond the predicted run's end): the floor `rssim validate` uses, so a
 * near-zero measured value cannot blow the error up. */

#define VAL_FLOOR_SHARE 0.05
#define VAL_MAX_SAMPLES 10000000 /* per run: 240 MB of doubles */

typedef struct val_series {
    double *x, *a, *b; /* x (s or fraction), then the two columns */
    size_t n, cap;
} val_series;

static void val_series_release(val_series *v)
{
    free(v->x);
    free(v->a);
    free(v->b);
}

typedef struct val_read {
    val_series *v;
    size_t ka, kb; /* int_columns index of the two columns */
} val_read;

static int val_row(void *ctx, int64_t run_id, const rs_sample *smp, rs_err *err)
{
    val_read *r = ctx;
    val_series *v = r->v;
    if (v->n == VAL_MAX_SAMPLES)
        return rs_fail(err, RS_EINPUT, "run %" PRId64 " has more than %d samples: too many to "
                       "compare", run_id, VAL_MAX_SAMPLES);
    if (v->n == v->cap) {
        size_t cap = v->cap ? 2 * v->cap : 256;
        double *x = realloc(v->x, cap * sizeof *x);
        if (x)
            v->x = x;
        double *a = x ? realloc(v->a, cap * sizeof *a) : NULL;
        if (a)
            v->a = a;
        double *b = a ? realloc(v->b, cap * sizeof *b) : NULL;
        if (!b)
            return rs_fail(err, RS_ENOMEM, "out of memory reading samples");
        v->b = b;
        v->cap = cap;
    }
    v->x[v->n] = (double)(int64_t)smp->t_ns;
    v->a[v->n] = (double)(int64_t)sample_int(smp, r->ka);
    v->b[v->n] = (double)(int64_t)sample_int(smp, r->kb);
    v->n++;
    return 0;
}

static size_t int_column_index(const char *name)
{
    for (size_t j = 0; j < sizeof int_columns / sizeof int_columns[0]; j++)
        if (!strcmp(int_columns[j].name, name))
            return j;
    return 0;
}

/* Read run id's t_ns and columns ca, cb; then x: seconds (by_fraction 0) or
 * t / last t (1), and the columns less their first sample (relative 1). */
static int val_load(rs_store *st, int64_t id, const char *ca, const char *cb, int by_fraction,
                    int relative, val_series *v, rs_err *err)
{
    const char *cols[3] = { "t_ns", ca, cb };
    val_read r = { .v = v, .ka = int_column_index(ca), .kb = int_column_index(cb) };
    int rc = rs_query_samples(st, &(rs_query_scope){ .run_id = id }, cols, 3, val_row, &r, err);
    if (rc)
        return rc;
    if (!v->n)
        return rs_fail(err, RS_EINPUT, "run %" PRId64 " in '%s' has no samples: nothing to plot",
                       id, rs_store_path(st));
    double t0 = v->x[0], span = v->x[v->n - 1] - t0, a0 = v->a[0], b0 = v->b[0];
    for (size_t i = 0; i < v->n; i++) {
        v->x[i] = by_fraction ? (span > 0 ? (v->x[i] - t0) / span : 0) : v->x[i] / 1e9;
        if (relative) {
            v->a[i] -= a0;
            v->b[i] -= b0;
        }
    }
    return 0;
}

/* col (a: 0, b: 1) of v at x, linearly between samples; NaN outside. */
static double val_at(const val_series *v, int col, double x)
{
    const double *y = col ? v->b : v->a;
    if (!v->n || x < v->x[0] || x > v->x[v->n - 1])
        return NAN;
    size_t lo = 0, hi = v->n - 1;
    while (hi - lo > 1) {
        size_t mid = (lo + hi) / 2;
        if (v->x[mid] <= x)
            lo = mid;
        else
            hi = mid;
    }
    if (v->x[lo] == x || hi == lo)
        return y[lo];
    if (v->x[hi] == x)
        return y[hi];
    return y[lo] + (y[hi] - y[lo]) * (x - v->x[lo]) / (v->x[hi] - v->x[lo]);
}

static void val_block(FILE *f, const char *title, const char *ca, const char *cb,
                      const val_series *v)
{
    dat_title(f, title);
    fprintf(f, " %s %s\n", ca, cb);
    for (size_t i = 0; i < v->n; i++) {
        dat_real(f, v->x[i]);
        dat_real(f, v->a[i]);
        dat_real(f, v->b[i]);
        fputc('\n', f);
    }
}

static int validate_write(rs_store *st, const plot_args *a, const char *dat, char *vars,
                          rs_err *err)
{
    int64_t id = a->runs[0], pid = a->nruns > 1 ? a->runs[1] : 0;
    char title[1024];
    rs_query_run run, prun;
    val_series p = { 0 }, m = { 0 };
    FILE *f = NULL;
    int rc, found = 0, have_run = 0, have_prun = 0;
    double pred = NAN;

    if ((rc = rs_query_run_get(st, id, &run, err)))
        return rc;
    have_run = 1;
    if (strcmp(run.status ? run.status : "", "done") != 0 ||
        strcmp(run.kind ? run.kind : "", "measured") != 0) {
        rc = rs_fail(err, RS_EINPUT, "run %" PRId64 " in '%s' is a %s %s run, not a done measured "
                     "one (from 'rssim validate' or 'rssim runs import-measured')", id,
                     rs_store_path(st), run.status ? run.status : "?", run.kind ? run.kind : "?");
        goto out;
    }
    if ((rc = rs_query_metric(st, id, "predicted_run_id", &pred, &found, err)))
        goto out;
    /* time alignment only for the pair rssim validate made */
    int by_time = found && !isnan(pred) && (!pid || (double)pid == pred);
    if (!pid) {
        if (!found || isnan(pred)) {
            rc = rs_fail(err, RS_EINPUT, "run %" PRId64 " in '%s' names no predicted run (a run "
                         "imported with 'rssim runs import-measured'): give the predicted run of "
                         "the same trace as a second --run", id, rs_store_path(st));
            goto out;
        }
        pid = (int64_t)pred;
    }
    if ((rc = rs_query_run_get(st, pid, &prun, err)))
        goto out;
    have_prun = 1;
    if (strcmp(prun.status ? prun.status : "", "done") != 0 ||
        strcmp(prun.kind ? prun.kind : "", "predicted") != 0) {
        rc = rs_fail(err, RS_EINPUT, "run %" PRId64 " in '%s' is a %s %s run, not a done predicted "
                     "one", pid, rs_store_path(st), prun.status ? prun.status : "?",
                     prun.kind ? prun.kind : "?");
        goto out;
    }
    if (prun.trace_sha256 && run.trace_sha256 && strcmp(prun.trace_sha256, run.trace_sha256)) {
        rc = rs_fail(err, RS_EINPUT, "runs %" PRId64 " and %" PRId64 " in '%s' replayed different "
                     "traces (sha256 %.12s... and %.12s...): nothing to compare", id, pid,
                     rs_store_path(st), run.trace_sha256, prun.trace_sha256);
        goto out;
    }
    const char *ca = by_time ? "resident_bytes" : "rss_bytes";
    const char *cb = by_time ? "allocated_bytes" : "accounted_bytes";
    if ((rc = val_load(st, pid, ca, cb, !by_time, by_time, &p, err)) ||
        (rc = val_load(st, id, ca, cb, !by_time, by_time, &m, err)))
        goto out;

    /* the floors: 5 % of the measured column's largest change (its peak,
     * unless it only fell from its start) where both runs have samples */
    double peak[2] = { 0, 0 }, xend = p.x[p.n - 1];
    for (size_t i = 0; i < m.n; i++)
        if (m.x[i] <= xend) {
            peak[0] = fmax(peak[0], fabs(m.a[i]));
            peak[1] = fmax(peak[1], fabs(m.b[i]));
        }
    double floor_b[2] = { fmax(VAL_FLOOR_SHARE * peak[0], 1.0),
                          fmax(VAL_FLOOR_SHARE * peak[1], 1.0) };

    if (!(f = fopen(dat, "w"))) {
        rc = rs_fail(err, RS_EIO, "cannot write '%s': %s", dat, strerror(errno));
        goto out;
    }
    fprintf(f, "# rssim plot validate: run %" PRId64 " (measured) against run %" PRId64
            " (predicted) from '%s'\n# aligned by %s; %s\n# error floor: %.0f and %.0f bytes "
            "(5 %% of the largest measured change of each column)\n", id, pid, rs_store_path(st),
            by_time ? "virtual time (x: s)" : "run fraction (x: t / the run's last t)",
            by_time ? "bytes relative to each run's first sample" : "absolute bytes",
            floor_b[0], floor_b[1]);
    val_block(f, "predicted", ca, cb, &p);
    fputs("\n\n", f);
    val_block(f, "measured", ca, cb, &m);
    fputs("\n\n", f);
    dat_title(f, "error");
    fprintf(f, " %s_error_pct %s_error_pct\n", ca, cb);
    double worst[2] = { 0, 0 };
    for (size_t i = 0; i < m.n; i++) {
        double pa = val_at(&p, 0, m.x[i]), pb = val_at(&p, 1, m.x[i]);
        if (isnan(pa))
            continue;
        double ea = 100.0 * fabs(pa - m.a[i]) / fmax(m.a[i], floor_b[0]);
        double eb = 100.0 * fabs(pb - m.b[i]) / fmax(m.b[i], floor_b[1]);
        worst[0] = fmax(worst[0], ea);
        worst[1] = fmax(worst[1], eb);
        dat_real(f, m.x[i]);
        dat_real(f, ea);
        dat_real(f, eb);
        fputc('\n', f);
    }
    rc = file_close(f, dat, err);
    f = NULL;
    if (rc)
        goto out;
    snprintf(title, sizeof title, "run %" PRId64 " (measured%s%s) vs run %" PRId64
             " (predicted, %s)", id, run.label && *run.label ? ": " : "",
             run.label && *run.label ? run.label : "", pid, prun.preset ? prun.preset : "no preset");
    char note[256] = "";
    if (!by_time && run.has_events && prun.has_events && run.events != prun.events)
        snprintf(note, sizeof note, "; the measured run issued %" PRId64 " records, the predicted "
                 "one %" PRId64 ": equal fractions are not equal progress", run.events, prun.events);
    if ((rc = vars_add_string(vars, "title", title, err)) ||
        (rc = vars_add_string(vars, "events_note", note, err)) ||
        (rc = vars_add_string(vars, "col_a", ca, err)) ||
        (rc = vars_add_string(vars, "col_b", cb, err)) ||
        (rc = vars_add(vars, err, "by_time=%d; floor_a=%.17g; floor_b=%.17g; worst_a=%.17g; "
                       "worst_b=%.17g; ", by_time, floor_b[0], floor_b[1], worst[0], worst[1])))
        goto out;
    double big = 0;
    for (size_t i = 0; i < p.n; i++)
        big = fmax(big, fmax(p.a[i], p.b[i]));
    for (size_t i = 0; i < m.n; i++)
        big = fmax(big, fmax(m.a[i], m.b[i]));
    rc = vars_add(vars, err, "bytes_max=%.17g; ", big);
out:
    if (f)
        fclose(f);
    val_series_release(&p);
    val_series_release(&m);
    if (have_prun)
        rs_query_run_release(&prun);
    if (have_run)
        rs_query_run_release(&run);
    return rc;
}

/* ---- overshoot ---- */

enum { M_LIMIT, M_STEADY, M_P99, M_MAX, M_X, M_ACC_PEAK, M_COUNT };
static const char *const metric_names[M_COUNT] = {
    [M_LIMIT] = "limit_bytes",     [M_STEADY] = "overshoot_steady",
    [M_P99] = "overshoot_p99",     [M_MAX] = "overshoot_max",
    [M_X] = "x_steady",             [M_ACC_PEAK] = "accounted_peak_bytes",
};

/* A cache whose peak stays under this share of its limit never filled: its
 * rss/limit says how much of the limit went unused, not an overshoot (the
 * share scripts/reproduce-mds-19954 calls "full"). */
#define FILLED_SHARE 0.85

#define MAX_KEYS 16
#define MAX_METRICS 12

typedef struct point {
    int64_t run_id, point_index;
    double m[MAX_METRICS];   /* the metrics sweep_read was asked for; NaN when missing */
    char *value[MAX_KEYS];   /* the run's param value of each varied key */
    int series;
} point;

typedef struct sweep_data {
    rs_query_sweep sweep;    /* its row */
    char *keys_buf;          /* varied_keys, split in place */
    char *keys[MAX_KEYS];
    int nkeys;
    size_t nmetrics;         /* per point, in pts[i].m */
    point *pts;
    size_t npts, cap_pts;
} sweep_data;

static void sweep_data_release(sweep_data *d)
{
    for (size_t i = 0; i < d->npts; i++)
        for (int k = 0; k < d->nkeys; k++)
            free(d->pts[i].value[k]);
    free(d->pts);
    free(d->keys_buf);
    rs_query_sweep_release(&d->sweep);
}

/* A done run of the sweep: its point, with metrics and varied keys' values. */
static int sweep_point(void *ctx, const rs_query_run *run, const double *metrics,
                       const char *const *params, rs_err *err)
{
    sweep_data *d = ctx;

    if (d->npts == d->cap_pts) {
        size_t ncap = d->cap_pts ? 2 * d->cap_pts : 64;
        point *np = realloc(d->pts, ncap * sizeof *np);
        if (!np)
            return rs_fail(err, RS_ENOMEM, "out of memory reading sweep %" PRId64, d->sweep.id);
        d->pts = np;
        d->cap_pts = ncap;
    }
    point *pt = &d->pts[d->npts];
    memset(pt, 0, sizeof *pt);
    pt->run_id = run->id;
    pt->point_index = run->point_index;
    for (size_t m = 0; m < d->nmetrics; m++)
        pt->m[m] = metrics[m];
    d->npts++;
    for (int k = 0; k < d->nkeys; k++)
        if (!(pt->value[k] = strdup(params[k] ? params[k] : "?")))
            return rs_fail(err, RS_ENOMEM, "out of memory reading sweep %" PRId64, d->sweep.id);
    return 0;
}

/* The done runs of sweep id, in point order, each with the metrics named
 * (at most MAX_METRICS) and its values of the sweep's varied keys. */
static int sweep_read(rs_store *st, int64_t id, const char *const *metrics, size_t nmetrics,
                      sweep_data *d, char *title, size_t cap, rs_err *err)
{
    int rc;

    if ((rc = rs_query_sweep_get(st, id, &d->sweep, err)))
        return rc;
    const char *keys = d->sweep.varied_keys, *preset = d->sweep.preset;
    snprintf(title, cap, "sweep %" PRId64 " (%s): steady rss/limit and (1−x)⁻¹ from measured x",
             id, preset ? preset : "no preset");
    if (!(d->keys_buf = strdup(keys ? keys : "")))
        return rs_fail(err, RS_ENOMEM, "out of memory reading sweep %" PRId64, id);
    /* "key,key2" (spaces tolerated) split in place */
    for (char *k = d->keys_buf; *k;) {
        char *end = k + strcspn(k, ", ");
        char sep = *end;
        *end = '\0';
        if (*k) {
            if (d->nkeys == MAX_KEYS)
                return rs_fail(err, RS_EINPUT, "sweep %" PRId64 " varies more than %d keys", id,
                               MAX_KEYS);
            d->keys[d->nkeys++] = k;
        }
        k = sep ? end + 1 : end;
    }

    d->nmetrics = nmetrics;
    if ((rc = rs_query_runs(st, &(rs_query_runs_filter){ .sweep_id = id, .status = "done",
                                                         .metrics = metrics, .nmetrics = nmetrics,
                                                         .params = (const char *const *)d->keys,
                                                         .nparams = (size_t)d->nkeys },
                            sweep_point, d, err)))
        return rc;
    if (d->npts == 0)
        return rs_fail(err, RS_EINPUT, "sweep %" PRId64 " in '%s' has no done runs: nothing to plot",
                       id, rs_store_path(st));
    return 0;
}

static int same_bytes(double a, double b)
{
    return fabs(a - b) < 0.5;
}

/* The varied key whose values map one-to-one onto limit_bytes (the limit
 * the sweep varies), or -1.  The first such key in --vary order wins. */
static int limit_key(const sweep_data *d)
{
    for (int k = 0; k < d->nkeys; k++) {
        int ok = 1;
        for (size_t i = 0; ok && i < d->npts; i++)
            for (size_t j = i + 1; ok && j < d->npts; j++)
                ok = (strcmp(d->pts[i].value[k], d->pts[j].value[k]) == 0) ==
                     same_bytes(d->pts[i].m[M_LIMIT], d->pts[j].m[M_LIMIT]);
        if (ok)
            return k;
    }
    return -1;
}

/* Do points a and b have the same values of every key except skip? */
static int same_series(const sweep_data *d, const point *a, const point *b, int skip)
{
    for (int k = 0; k < d->nkeys; k++)
        if (k != skip && strcmp(a->value[k], b->value[k]) != 0)
            return 0;
    return 1;
}

/* A point's position on a non-limit x axis (overshoot when no varied key
 * is the limit): the value as a number when every value is one, else the
 * category's index in order of first appearance. */
typedef struct xpos {
    point *pt;
    double x;
} xpos;

static int by_x(const void *a, const void *b)
{
    const xpos *x = a, *y = b;
    int xn = isnan(x->x), yn = isnan(y->x); /* a missing limit sorts last */
    if (xn != yn)
        return xn - yn;
    if (!xn && x->x != y->x)
        return x->x < y->x ? -1 : 1;
    return x->pt->point_index < y->pt->point_index ? -1 : x->pt->point_index > y->pt->point_index;
}

/* Place every point on key xk's axis; *r_numeric 1 when every value is a
 * plain number (a numeric axis), else 0 (categories, x = 0, 1, ...). */
static void x_place(const sweep_data *d, int xk, xpos *xp, int *r_numeric)
{
    int numeric = 1;
    for (size_t i = 0; i < d->npts; i++) {
        char *end;
        const char *v = d->pts[i].value[xk];
        double x = strtod(v, &end);
        if (end == v || *end || !isfinite(x))
            numeric = 0;
        xp[i] = (xpos){ .pt = &d->pts[i], .x = x };
    }
    if (!numeric)
        for (size_t i = 0; i < d->npts; i++) {
            size_t j = 0;
            double cat = 0;
            for (; j < i; j++)
                if (!strcmp(d->pts[j].value[xk], d->pts[i].value[xk]))
                    break;
            if (j < i) {
                xp[i].x = xp[j].x;
                continue;
            }
            for (size_t k = 0; k < i; k++) /* categories seen before this one */
                cat = fmax(cat, xp[k].x + 1);
            xp[i].x = cat;
        }
    *r_numeric = numeric;
}

static int overshoot_write(rs_store *st, int64_t id, const char *dat, char *vars, rs_err *err)
{
    sweep_data d = { 0 };
    char title[1024], what[512];
    xpos *xp = NULL;
    FILE *f = NULL;
    int rc, nseries = 0, numeric = 1;

    if ((rc = sweep_read(st, id, metric_names, M_COUNT, &d, title, sizeof title, err)) ||
        (d.npts && (rc = title_sampled(st, d.pts[0].run_id, title, sizeof title, err))))
        goto out;
    /* x: the limit when a varied key maps onto it; else (a sweep of alloc=,
     * say, at one limit) the first varied key, its values as labels */
    int lk = limit_key(&d);
    int xk = lk >= 0 ? lk : d.nkeys ? 0 : -1;
    /* series numbered by first appearance in point order */
    for (size_t i = 0; i < d.npts; i++) {
        d.pts[i].series = -1;
        for (size_t j = 0; j < i && d.pts[i].series < 0; j++)
            if (same_series(&d, &d.pts[i], &d.pts[j], xk))
                d.pts[i].series = d.pts[j].series;
        if (d.pts[i].series < 0)
            d.pts[i].series = nseries++;
    }
    if (!(xp = malloc(d.npts * sizeof *xp))) {
        rc = rs_fail(err, RS_ENOMEM, "out of memory plotting sweep %" PRId64, id);
        goto out;
    }
    if (lk >= 0 || xk < 0) {
        for (size_t i = 0; i < d.npts; i++)
            xp[i] = (xpos){ .pt = &d.pts[i], .x = d.pts[i].m[M_LIMIT] };
    } else {
        x_place(&d, xk, xp, &numeric);
    }
    qsort(xp, d.npts, sizeof *xp, by_x);

    if (!(f = fopen(dat, "w"))) {
        rc = rs_fail(err, RS_EIO, "cannot write '%s': %s", dat, strerror(errno));
        goto out;
    }
    fprintf(f, "# rssim plot overshoot: done runs of sweep %" PRId64 " from '%s'\n", id,
            rs_store_path(st));
    fputs("# varied keys:", f);
    for (int k = 0; k < d.nkeys; k++)
        fprintf(f, " %s", d.keys[k]);
    fprintf(f, "%s; limit key: %s; x: %s\n", d.nkeys ? "" : " (none)",
            lk >= 0 ? d.keys[lk] : "(none)",
            lk >= 0 || xk < 0 ? "limit_bytes" : numeric ? "x_value (numeric)"
                                                        : "x_value (categories)");
    /* a lone series is every done run: say which key varies along x */
    if (xk >= 0)
        snprintf(what, sizeof what, "all %zu done runs (only %s varies)", d.npts, d.keys[xk]);
    else
        snprintf(what, sizeof what, "all %zu done runs (the sweep varies no key)", d.npts);
    for (int sr = 0; sr < nseries; sr++) {
        const point *first = NULL;
        for (size_t i = 0; i < d.npts && !first; i++)
            if (d.pts[i].series == sr)
                first = &d.pts[i];
        /* the block's header: the first column (point_index) is named by
         * the series' title, for gnuplot's columnheader(1) */
        fprintf(f, "%s\"", sr ? "\n\n" : "");
        int nlabel = 0;
        for (int k = 0; k < d.nkeys; k++) {
            if (k == xk)
                continue;
            fprintf(f, "%s%s=", nlabel++ ? ", " : "", d.keys[k]);
            for (const char *c = first->value[k]; *c; c++)
                fputc(*c == '"' ? '\'' : *c, f);
        }
        if (!nlabel)
            fputs(what, f);
        fputs("\" run_id", f);
        for (int m = 0; m < M_COUNT; m++)
            fprintf(f, " %s", metric_names[m]);
        fputs(" filled x_value x_label\n", f);
        for (size_t i = 0; i < d.npts; i++) {
            const point *pt = xp[i].pt;
            if (pt->series != sr)
                continue;
            fprintf(f, "%" PRId64 " %" PRId64, pt->point_index, pt->run_id);
            for (int m = 0; m < M_COUNT; m++)
                dat_real(f, pt->m[m]);
            /* unknown (no accounted_peak_bytes): drawn as filled */
            fprintf(f, " %d", !(pt->m[M_ACC_PEAK] < FILLED_SHARE * pt->m[M_LIMIT]));
            dat_real(f, xp[i].x);
            fputc(' ', f);
            dat_title(f, xk >= 0 ? pt->value[xk] : "-");
            fputc('\n', f);
        }
    }
    rc = file_close(f, dat, err);
    f = NULL;
    if (!rc)
        rc = vars_add_series(vars, title, nseries, err);
    /* x_key: '' for the limit axis, else the key along x; x_numeric 0 for
     * categories */
    if (!rc)
        rc = vars_add_string(vars, "x_key", lk >= 0 || xk < 0 ? "" : d.keys[xk], err);
    if (!rc)
        rc = vars_add(vars, err, "x_numeric=%d; ", numeric);
out:
    if (f)
        fclose(f);
    free(xp);
    sweep_data_release(&d);
    return rc;
}

/* ---- latency: the op latency CDF of runs, from their latency_p<q>_ns ---- */

typedef struct id_list {
    int64_t *ids;
    size_t n, cap;
} id_list;

static int id_add(void *ctx, const rs_query_run *run, const double *metrics,
                  const char *const *params, rs_err *err)
{
    id_list *l = ctx;
    (void)metrics;
    (void)params;
    if (l->n == l->cap) {
        int64_t *more = realloc(l->ids, 2 * l->cap * sizeof *l->ids);
        if (!more)
            return rs_fail(err, RS_ENOMEM, "out of memory");
        l->ids = more;
        l->cap *= 2;
    }
    l->ids[l->n++] = run->id;
    return 0;
}

/* The done runs to draw: the --run ids (each must be done) or the done
 * runs of --sweep in point order.  *r_ids is malloc'd. */
static int runs_of(rs_store *st, const plot_args *a, int64_t **r_ids, size_t *r_n, rs_err *err)
{
    id_list l = { .cap = a->nruns ? a->nruns : 16 };
    char status[16];
    int rc = 0;

    if (!(l.ids = malloc(l.cap * sizeof *l.ids)))
        return rs_fail(err, RS_ENOMEM, "out of memory");
    for (size_t i = 0; i < a->nruns; i++) {
        if ((rc = rs_store_run_status(st, a->runs[i], status, err)))
            goto out;
        if (strcmp(status, "done") != 0) {
            rc = rs_fail(err, RS_EINPUT, "run %" PRId64 " in '%s' is %s, not done: nothing to plot",
                         a->runs[i], rs_store_path(st), status);
            goto out;
        }
        l.ids[l.n++] = a->runs[i];
    }
    if (a->sweep) {
        rc = rs_query_runs(st, &(rs_query_runs_filter){ .sweep_id = a->sweep, .status = "done" },
                           id_add, &l, err);
        if (!rc && l.n == 0)
            rc = rs_fail(err, RS_EINPUT, "sweep %" PRId64 " in '%s' has no done runs: nothing to "
                         "plot", a->sweep, rs_store_path(st));
    }
out:
    if (rc) {
        free(l.ids);
        return rc;
    }
    *r_ids = l.ids;
    *r_n = l.n;
    return 0;
}

/* The param keys whose values differ among the runs drawn, sorted
 * (strcmp, the store's order), read once for all the curves' titles. */
typedef struct key_set {
    char **keys;
    size_t n, cap;
} key_set;

static int key_add(void *ctx, const char *key, const char *value, rs_err *err)
{
    key_set *ks = ctx;
    (void)value;
    if (ks->n == ks->cap) {
        size_t ncap = ks->cap ? 2 * ks->cap : 32;
        char **more = realloc(ks->keys, ncap * sizeof *more);
        if (!more)
            return rs_fail(err, RS_ENOMEM, "out of memory");
        ks->keys = more;
        ks->cap = ncap;
    }
    if (!(ks->keys[ks->n] = strdup(key)))
        return rs_fail(err, RS_ENOMEM, "out of memory");
    ks->n++;
    return 0;
}

static void key_set_release(key_set *ks)
{
    for (size_t i = 0; i < ks->n; i++)
        free(ks->keys[i]);
    free(ks->keys);
}

static int by_key(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* A title being extended with ": key=value, key=value" (cut at cap). */
typedef struct title_params {
    const key_set *varying;
    char *title;
    size_t cap, len;
    int k;
} title_params;

static int title_param(void *ctx, const char *key, const char *value, rs_err *err)
{
    title_params *t = ctx;
    (void)err;
    if (!bsearch(&key, t->varying->keys, t->varying->n, sizeof *t->varying->keys, by_key))
        return 0;
    if (t->len < t->cap)
        t->len += (size_t)snprintf(t->title + t->len, t->cap - t->len, "%s%s=%s",
                                   t->k ? ", " : ": ", key, value);
    t->k++;
    return 0;
}

/* A curve's title: "run N: LABEL" when the run has a label, else "run N:"
 * and the params whose values differ among the n runs (*varying, read on
 * first need), else "run N". */
static int run_title(rs_store *st, int64_t id, const int64_t *ids, size_t n, key_set *varying,
                     int *have_varying, char *title, size_t cap, rs_err *err)
{
    rs_query_run run;
    int rc;

    if ((rc = rs_query_run_get(st, id, &run, err)))
        return rc;
    int labelled = run.label && *run.label;
    snprintf(title, cap, "run %" PRId64 "%s%s", id, labelled ? ": " : "",
             labelled ? run.label : "");
    rs_query_run_release(&run);
    if (labelled || n < 2)
        return 0;
    if (!*have_varying) {
        if ((rc = rs_query_params_varying(st, ids, n, key_add, varying, err)))
            return rc;
        *have_varying = 1;
    }
    title_params t = { .varying = varying, .title = title, .cap = cap, .len = strlen(title) };
    return rs_query_params(st, id, title_param, &t, err);
}

typedef struct quantile {
    double q_pct, latency_ns;
} quantile;

static int by_q(const void *a, const void *b)
{
    const quantile *x = a, *y = b;
    return x->q_pct < y->q_pct ? -1 : x->q_pct > y->q_pct;
}

/* Quantiles being collected from a run's metrics. */
typedef struct quantiles {
    quantile *q;
    size_t n, cap;
} quantiles;

/* A metric named latency_p<q>_ns (the prefix and suffix in any case, as
 * SQL's LIKE matched them; then q a number in (0, 100] and "_ns" exactly). */
static int quantile_add(void *ctx, int64_t run_id, const char *name, double value, rs_err *err)
{
    quantiles *qs = ctx;
    size_t len = strlen(name);
    char *end;

    (void)run_id;
    (void)err;
    if (qs->n == qs->cap || len < strlen("latency_p_ns") || strncasecmp(name, "latency_p", 9) ||
        strcasecmp(name + len - 3, "_ns"))
        return 0;
    double v = strtod(name + 9, &end);
    if (end != name + 9 && !strcmp(end, "_ns") && v > 0 && v <= 100 && !isnan(value))
        qs->q[qs->n++] = (quantile){ .q_pct = v, .latency_ns = value };
    return 0;
}

/* Run id's latency_p<q>_ns metrics, sorted by q (at most cap). */
static int run_quantiles(rs_store *st, int64_t id, quantile *q, size_t cap, size_t *r_n,
                         rs_err *err)
{
    quantiles qs = { .q = q, .cap = cap };
    int rc;

    if ((rc = rs_query_metrics(st, &(rs_query_scope){ .run_id = id }, quantile_add, &qs, err)))
        return rc;
    if (qs.n == 0)
        return rs_fail(err, RS_EINPUT, "run %" PRId64 " in '%s' has no latency_p<q>_ns metrics "
                       "(an osd run has them): nothing to plot", id, rs_store_path(st));
    qsort(q, qs.n, sizeof *q, by_q);
    *r_n = qs.n;
    return 0;
}

/* Write s into a data file's double-quoted title (a '"' becomes '\''). */
static void dat_title(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++)
        fputc(*s == '"' ? '\'' : *s, f);
    fputc('"', f);
}

static int latency_write(rs_store *st, const plot_args *a, const char *dat, char *vars,
                         rs_err *err)
{
    int64_t *ids = NULL;
    size_t n = 0;
    quantile q[64];
    char title[1024];
    key_set varying = { 0 };
    int have_varying = 0;
    FILE *f = NULL;
    int rc;

    if ((rc = runs_of(st, a, &ids, &n, err)))
        return rc;
    if (!(f = fopen(dat, "w"))) {
        rc = rs_fail(err, RS_EIO, "cannot write '%s': %s", dat, strerror(errno));
        goto out;
    }
    fprintf(f, "# rssim plot latency: the latency_p<q>_ns metrics of %zu done run%s from '%s'\n",
            n, n == 1 ? "" : "s", rs_store_path(st));
    for (size_t i = 0; i < n; i++) {
        size_t nq = 0;
        if ((rc = run_quantiles(st, ids[i], q, sizeof q / sizeof q[0], &nq, err)) ||
            (rc = run_title(st, ids[i], ids, n, &varying, &have_varying, title, sizeof title,
                            err)))
            goto out;
        /* the block's header: the first column (q) is named by the curve's
         * title, for gnuplot's columnheader(1) */
        fputs(i ? "\n\n" : "", f);
        dat_title(f, title);
        fputs(" run_id latency_ns\n", f);
        for (size_t k = 0; k < nq; k++) {
            fprintf(f, "%.10g %" PRId64, q[k].q_pct, ids[i]);
            dat_real(f, q[k].latency_ns);
            fputc('\n', f);
        }
    }
    rc = file_close(f, dat, err);
    f = NULL;
    if (a->sweep)
        snprintf(title, sizeof title, "sweep %" PRId64 ": op latency CDF", a->sweep);
    else
        snprintf(title, sizeof title, "op latency CDF, run%s %" PRId64 "%s", n > 1 ? "s" : "",
                 ids[0], n > 2 ? " ..." : "");
    if (!a->sweep && n == 2)
        snprintf(title + strlen(title), sizeof title - strlen(title), " and %" PRId64, ids[1]);
    if (!rc)
        rc = vars_add_series(vars, title, (long)n, err);
out:
    if (f)
        fclose(f);
    free(ids);
    key_set_release(&varying);
    return rc;
}

/* ---- timeseries of several runs, overlaid ---- */

/* One --run: timeseries_write.  Several: a block per run (its header's
 * first column named by the run's title: its label, or the params that
 * differ among the runs), nseries for the template's overlay. */
static int timeseries_runs_write(rs_store *st, const plot_args *a, const char *dat, char *vars,
                                 rs_err *err)
{
    int64_t *ids = NULL;
    size_t n = 0;
    char title[1024];
    key_set varying = { 0 };
    int have_varying = 0, rc;
    dat_out o = { 0 };

    if (a->nruns == 1)
        return timeseries_write(st, a->runs[0], dat, vars, err);
    if ((rc = runs_of(st, a, &ids, &n, err)))
        return rc;
    if (!(o.f = fopen(dat, "w"))) {
        rc = rs_fail(err, RS_EIO, "cannot write '%s': %s", dat, strerror(errno));
        goto out;
    }
    fprintf(o.f, "# rssim plot timeseries: samples of %zu runs from '%s', a block each\n", n,
            rs_store_path(st));
    for (size_t i = 0; i < n && !rc; i++) {
        long long before = o.n;
        if ((rc = run_title(st, ids[i], ids, n, &varying, &have_varying, title, sizeof title, err)))
            break;
        fputs(i ? "\n\n" : "", o.f);
        dat_title(o.f, title);
        dat_narrow(&o, o.f);
        rc = rs_query_samples(st, &(rs_query_scope){ .run_id = ids[i] }, timeseries_columns,
                              TS_NCOLUMNS, timeseries_row, &o, err);
        if (!rc && o.n == before)
            rc = rs_fail(err, RS_EINPUT, "run %" PRId64 " in '%s' has no samples: nothing to plot",
                         ids[i], rs_store_path(st));
    }
    int crc = file_close(o.f, dat, err);
    if (rc || (rc = crc))
        goto out;
    size_t len = (size_t)snprintf(title, sizeof title, "runs");
    for (size_t i = 0; i < n && len < sizeof title; i++)
        len += (size_t)snprintf(title + len, sizeof title - len, "%s %" PRId64, i ? "," : "",
                                ids[i]);
    if (len < sizeof title)
        snprintf(title + len, sizeof title - len, ": rss_bytes (solid) and accounted_bytes (dashed)");
    if (!(rc = vars_add_series(vars, title, (long)n, err)))
        rc = vars_add_bytes(vars, &o, err);
out:
    free(ids);
    key_set_release(&varying);
    return rc;
}

/* ---- interval: peak overshoot and IOPS against the trim interval ---- */

enum { I_IOPS, I_EXCESS, I_LIMIT, I_COUNT };
static const char *const interval_metrics[I_COUNT] = {
    [I_IOPS] = "iops", [I_EXCESS] = "excess_peak_bytes", [I_LIMIT] = "limit_bytes",
};

typedef struct ipoint {
    const point *pt;
    double interval_ms;
    double m[I_COUNT]; /* NaN when missing */
} ipoint;

static int by_interval(const void *a, const void *b)
{
    const ipoint *x = a, *y = b;
    if (x->pt->series != y->pt->series)
        return x->pt->series - y->pt->series;
    return x->interval_ms < y->interval_ms ? -1 : x->interval_ms > y->interval_ms;
}

static int interval_write(rs_store *st, const plot_args *a, const char *dat, char *vars,
                          rs_err *err)
{
    /* the overshoot metrics (M_*), then the interval's (M_COUNT + I_*) */
    const char *metrics[M_COUNT + I_COUNT];
    const char *key = a->key ? a->key : "bluestore_cache_trim_interval";
    sweep_data d = { 0 };
    ipoint *ip = NULL;
    char title[1024];
    FILE *f = NULL;
    int rc, kx = -1, nseries = 0, have_iops = 0;

    for (int m = 0; m < M_COUNT; m++)
        metrics[m] = metric_names[m];
    for (int m = 0; m < I_COUNT; m++)
        metrics[M_COUNT + m] = interval_metrics[m];
    if ((rc = sweep_read(st, a->sweep, metrics, M_COUNT + I_COUNT, &d, title, sizeof title, err)))
        goto out;
    for (int k = 0; k < d.nkeys; k++)
        if (!strcmp(d.keys[k], key))
            kx = k;
    if (kx < 0) {
        char list[512];
        size_t len = 0;
        list[0] = '\0';
        for (int k = 0; k < d.nkeys && len < sizeof list; k++)
            len += (size_t)snprintf(list + len, sizeof list - len, "%s%s", k ? ", " : "",
                                    d.keys[k]);
        rc = rs_fail(err, RS_EINPUT, "sweep %" PRId64 " in '%s' does not vary '%s' (it varies: "
                     "%s); name the interval key with --key", a->sweep, rs_store_path(st), key,
                     d.nkeys ? list : "nothing");
        goto out;
    }
    if (!(ip = calloc(d.npts, sizeof *ip))) {
        rc = rs_fail(err, RS_ENOMEM, "out of memory plotting sweep %" PRId64, a->sweep);
        goto out;
    }
    for (size_t i = 0; i < d.npts; i++) {
        point *pt = &d.pts[i];
        uint64_t ns;
        /* series: the runs sharing every other varied key's value */
        pt->series = -1;
        for (size_t j = 0; j < i && pt->series < 0; j++)
            if (same_series(&d, pt, &d.pts[j], kx))
                pt->series = d.pts[j].series;
        if (pt->series < 0)
            pt->series = nseries++;
        ip[i].pt = pt;
        if (rs_parse_duration(pt->value[kx], &ns) != 0) {
            rc = rs_fail(err, RS_EINPUT, "run %" PRId64 ": %s = '%s' is not a duration",
                         pt->run_id, key, pt->value[kx]);
            goto out;
        }
        ip[i].interval_ms = (double)ns / 1e6;
        for (int m = 0; m < I_COUNT; m++)
            ip[i].m[m] = pt->m[M_COUNT + m];
        have_iops += !isnan(ip[i].m[I_IOPS]);
    }
    if (!have_iops) {
        rc = rs_fail(err, RS_EINPUT, "sweep %" PRId64 " in '%s': no done run has an 'iops' metric "
                     "(osd runs have one): nothing to plot", a->sweep, rs_store_path(st));
        goto out;
    }
    qsort(ip, d.npts, sizeof *ip, by_interval);
    if (!(f = fopen(dat, "w"))) {
        rc = rs_fail(err, RS_EIO, "cannot write '%s': %s", dat, strerror(errno));
        goto out;
    }
    fprintf(f, "# rssim plot interval: done runs of sweep %" PRId64 " from '%s'\n# interval key: "
            "%s\n", a->sweep, rs_store_path(st), key);
    for (size_t i = 0; i < d.npts; i++) {
        const point *pt = ip[i].pt;
        if (i == 0 || pt->series != ip[i - 1].pt->series) {
            /* a new block: its header's first column is the series' title */
            char label[1024];
            size_t len = 0;
            label[0] = '\0';
            for (int k = 0; k < d.nkeys; k++)
                if (k != kx && len < sizeof label)
                    len += (size_t)snprintf(label + len, sizeof label - len, "%s%s=%s",
                                            len ? ", " : "", d.keys[k], pt->value[k]);
            fputs(i ? "\n\n" : "", f);
            if (!len) /* a lone series: every done run, along the interval */
                snprintf(label, sizeof label, "all %zu done runs (only %s varies)", d.npts, key);
            dat_title(f, label);
            fputs(" run_id interval_ms overshoot_max excess_peak_bytes iops cache_peak_ratio\n", f);
        }
        fprintf(f, "%" PRId64 " %" PRId64, pt->point_index, pt->run_id);
        dat_real(f, ip[i].interval_ms);
        dat_real(f, pt->m[M_MAX]);
        dat_real(f, ip[i].m[I_EXCESS]);
        dat_real(f, ip[i].m[I_IOPS]);
        /* the cache's own overshoot: peak accounted bytes over the limit (an
         * OSD's rss/limit also holds its memtables and base) */
        dat_real(f, ip[i].m[I_LIMIT] > 0 ? 1 + ip[i].m[I_EXCESS] / ip[i].m[I_LIMIT] : NAN);
        fputc('\n', f);
    }
    rc = file_close(f, dat, err);
    f = NULL;
    const char *preset = d.sweep.preset;
    snprintf(title, sizeof title, "sweep %" PRId64 " (%s): peak cache/limit and IOPS vs %s",
             a->sweep, preset ? preset : "no preset", key);
    if (!rc)
        rc = vars_add_series(vars, title, nseries, err);
out:
    if (f)
        fclose(f);
    free(ip);
    sweep_data_release(&d);
    return rc;
}

/* ---- running gnuplot ---- */

/* ---- capacity: one plan of `rssim plan` ---- */

typedef struct cap_eval {
    int64_t run_id, limit_bytes;
    uint32_t sample_k;
} cap_eval;

typedef struct cap_list {
    cap_eval *e;
    size_t n, cap;
} cap_list;

static int capacity_eval(void *ctx, int64_t run_id, uint64_t seed, int64_t limit_bytes,
                         int reused, uint32_t sample_k, rs_err *err)
{
    cap_list *l = ctx;
    (void)seed;
    (void)reused;
    if (l->n == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 64;
        cap_eval *e = realloc(l->e, cap * sizeof *e);
        if (!e)
            return rs_fail(err, RS_ENOMEM, "out of memory for a plan's evaluations");
        l->e = e;
        l->cap = cap;
    }
    l->e[l->n++] = (cap_eval){ .run_id = run_id, .limit_bytes = limit_bytes, .sample_k = sample_k };
    return 0;
}

/* The rows of the evaluations in l whose sample k is (coarse 0) or is not
 * (coarse 1) main_k: one per evaluated limit (ascending), the min and max
 * over the seeds of the run's p50 and p99 rss (overshoot_p50/p99 x
 * limit_bytes) and its peak, after a header. */
static int capacity_block(rs_store *st, FILE *f, const cap_list *l, uint32_t main_k, int coarse,
                          rs_err *err)
{
    int rc = 0;
    fprintf(f, "limit_bytes p50_min p50_max p99_min p99_max peak_min peak_max seeds\n");
    for (size_t i = 0; i < l->n && !rc;) {
        double lo[3] = { INFINITY, INFINITY, INFINITY }, hi[3] = { -INFINITY, -INFINITY, -INFINITY };
        size_t j = i, nseeds = 0;
        for (; j < l->n && l->e[j].limit_bytes == l->e[i].limit_bytes && !rc; j++) {
            static const char *const names[4] = { "overshoot_p50", "overshoot_p99",
                                                  "rss_peak_bytes", "limit_bytes" };
            double m[4];
            if ((l->e[j].sample_k != main_k) != coarse)
                continue;
            for (int k = 0; k < 4 && !rc; k++) {
                int found = 0;
                rc = rs_query_metric(st, l->e[j].run_id, names[k], &m[k], &found, err);
                if (!rc && !found)
                    m[k] = NAN;
            }
            double v[3] = { m[0] * m[3], m[1] * m[3], m[2] };
            for (int k = 0; k < 3; k++) {
                if (v[k] < lo[k])
                    lo[k] = v[k];
                if (v[k] > hi[k])
                    hi[k] = v[k];
            }
            nseeds++;
        }
        if (nseeds) {
            fprintf(f, "%lld", (long long)l->e[i].limit_bytes);
            for (int k = 0; k < 3; k++) {
                dat_real(f, lo[k]);
                dat_real(f, hi[k]);
            }
            fprintf(f, " %zu\n", nseeds);
        }
        i = j;
    }
    return rc;
}

/* Block 0: the plan's evaluations at its answer's sampling (the least
 * sampled: full runs unless every run was sampled); block 1, when there
 * are any, a coarse search's (`rssim plan --coarse`).  The plan's numbers
 * go to gnuplot as variables. */
static int capacity_write(rs_store *st, const plot_args *a, const char *dat, char *vars,
                          rs_err *err)
{
    rs_query_plan plan;
    cap_list l = { 0 };
    FILE *f = NULL;
    char title[1024];
    int rc;

    if ((rc = rs_query_plan_get(st, a->plan, &plan, err)))
        return rc;
    if (!plan.status || strcmp(plan.status, "done") != 0) { /* NULL: a damaged file */
        rc = rs_fail(err, RS_EINPUT, "plan %" PRId64 " in '%s' is %s, not done: nothing to plot",
                     a->plan, rs_store_path(st), plan.status ? plan.status : "of no status");
        goto out;
    }
    if ((rc = rs_query_plan_evals(st, a->plan, capacity_eval, &l, err)))
        goto out;
    if (!l.n) {
        rc = rs_fail(err, RS_EINPUT, "plan %" PRId64 " in '%s' has no evaluations: nothing to plot",
                     a->plan, rs_store_path(st));
        goto out;
    }
    if (!(f = fopen(dat, "w"))) {
        rc = rs_fail(err, RS_EIO, "cannot write '%s': %s", dat, strerror(errno));
        goto out;
    }
    fprintf(f, "# rssim plot capacity: plan %" PRId64 " from '%s'\n", a->plan, rs_store_path(st));
    uint32_t main_k = UINT32_MAX, coarse_k = 0;
    for (size_t i = 0; i < l.n; i++)
        main_k = l.e[i].sample_k < main_k ? l.e[i].sample_k : main_k;
    for (size_t i = 0; i < l.n; i++)
        if (l.e[i].sample_k != main_k)
            coarse_k = l.e[i].sample_k;
    rc = capacity_block(st, f, &l, main_k, 0, err);
    if (!rc && coarse_k) {
        fprintf(f, "\n\n# the coarse search (runs sampled 1/%u)\n", coarse_k);
        rc = capacity_block(st, f, &l, main_k, 1, err);
    }
    int crc = file_close(f, dat, err);
    if (rc || (rc = crc))
        goto out;
    snprintf(title, sizeof title, "plan %" PRId64 ": %s, %s", a->plan,
             plan.preset ? plan.preset : "", plan.workload ? plan.workload : "");
    if ((rc = vars_add_string(vars, "title", title, err)) ||
        (rc = vars_add_string(vars, "limit_key", plan.limit_key ? plan.limit_key : "limit", err)) ||
        (rc = vars_add_string(vars, "quantile", plan.quantile ? plan.quantile : "", err)) ||
        (rc = vars_add_string(vars, "outcome", plan.outcome ? plan.outcome : "", err)) ||
        (rc = vars_add(vars, err, "ram_per_daemon=%.17g; budget_per_daemon=%.17g; chosen=%.17g; "
                       "rule_factor=%.17g; daemons=%lld; headroom=%.17g; seeds=%lld; "
                       "coarse_k=%u; ",
                       (double)plan.ram_bytes / (double)plan.daemons,
                       (double)plan.ram_bytes * (1 - plan.headroom) / (double)plan.daemons,
                       (double)plan.limit_bytes, isnan(plan.rule_factor) ? 0 : plan.rule_factor,
                       (long long)plan.daemons, plan.headroom, (long long)plan.seeds,
                       coarse_k)))
        goto out;
out:
    free(l.e);
    rs_query_plan_release(&plan);
    return rc;
}

/* ---- fit: rss against accounted, observed points and the fitted line ---- */

typedef struct fit_acc {
    FILE *f;
    double *x, *y; /* the observed samples, for the fit */
    size_t n, cap;
    int keep;      /* 1: an observed run (fitted); 0: a predicted one (drawn only) */
    double xmax, ymax;
} fit_acc;

static int fit_row(void *ctx, int64_t run_id, const rs_sample *smp, rs_err *err)
{
    fit_acc *a = ctx;
    double x = (double)smp->accounted_bytes, y = (double)smp->rss_bytes;
    fprintf(a->f, "%" PRId64 " %.0f %.0f\n", run_id, x, y);
    a->xmax = fmax(a->xmax, x);
    a->ymax = fmax(a->ymax, y);
    if (!a->keep)
        return 0;
    if (a->n == a->cap) {
        size_t cap = a->cap ? 2 * a->cap : 1024;
        double *nx = realloc(a->x, cap * sizeof *nx);
        if (nx)
            a->x = nx;
        double *ny = nx ? realloc(a->y, cap * sizeof *ny) : NULL;
        if (!nx || !ny)
            return rs_fail(err, RS_ENOMEM, "out of memory");
        a->y = ny;
        a->cap = cap;
    }
    a->x[a->n] = x;
    a->y[a->n++] = y;
    return 0;
}

/* Blocks: 0 the observed samples (run_id accounted_bytes rss_bytes), 1 the
 * fitted line and its 95 % band at 101 points from 0 to the largest
 * accounted (accounted_bytes rss_bytes lo_bytes hi_bytes), 2 (when a
 * predicted --run is given) the predicted runs' samples. */
static int fit_write(rs_store *st, const plot_args *a, const char *dat, char *vars, rs_err *err)
{
    static const char *const cols[] = { "accounted_bytes", "rss_bytes" };
    fit_acc acc = { 0 };
    int64_t *ids = NULL;
    size_t n = 0, nobs = 0, npred = 0;
    char title[512];
    int rc;

    if ((rc = runs_of(st, a, &ids, &n, err)))
        return rc;
    if (!(acc.f = fopen(dat, "w"))) {
        rc = rs_fail(err, RS_EIO, "cannot write '%s': %s", dat, strerror(errno));
        goto out;
    }
    fprintf(acc.f, "# rssim plot fit: rss against accounted of %zu runs from '%s'\n", n,
            rs_store_path(st));
    for (int pass = 1; pass >= 0 && !rc; pass--) { /* observed first, then predicted */
        int any = 0;
        for (size_t i = 0; i < n && !rc; i++) {
            rs_query_run run;
            if ((rc = rs_query_run_get(st, ids[i], &run, err)))
                break;
            int observed = run.kind && strcmp(run.kind, "predicted") != 0;
            rs_query_run_release(&run);
            if (observed != pass)
                continue;
            if (!any)
                fputs(pass ? "run_id accounted_bytes rss_bytes\n"
                           : "\n\nrun_id accounted_bytes rss_bytes\n", acc.f);
            any = 1;
            acc.keep = pass;
            *(pass ? &nobs : &npred) += 1;
            rc = rs_query_samples(st, &(rs_query_scope){ .run_id = ids[i] }, cols, 2, fit_row,
                                  &acc, err);
        }
        if (!rc && pass && !nobs)
            rc = rs_fail(err, RS_EINPUT, "no observed or measured run among the --run ids: "
                         "'plot fit' fits those (rssim observe import)");
        if (!rc && pass) { /* the line, as block 1 */
            rs_fit_line fl;
            if ((rc = rs_fit_line_ls(acc.x, acc.y, acc.n, &fl, err)))
                break;
            fputs("\n\naccounted_bytes rss_bytes lo_bytes hi_bytes\n", acc.f);
            for (int k = 0; k <= 100; k++) {
                double x0 = acc.xmax * 1.05 * k / 100.0, y0, ci;
                rs_fit_line_at(&fl, x0, &y0, &ci);
                fprintf(acc.f, "%.0f %.0f %.0f %.0f\n", x0, y0, y0 - ci, y0 + ci);
                acc.ymax = fmax(acc.ymax, y0 + ci);
            }
            snprintf(title, sizeof title, "rss = %.1f MiB (±%.1f) + %.3f × accounted (±%.3f), "
                     "%zu samples, residual σ %.1f MiB", fl.base / 1048576.0,
                     fl.base_ci / 1048576.0, fl.k, fl.k_ci, fl.n, fl.sigma / 1048576.0);
        }
    }
    int crc = file_close(acc.f, dat, err);
    if (rc || (rc = crc))
        goto out;
    if (!(rc = vars_add_string(vars, "title", title, err)))
        rc = vars_add(vars, err, "npred=%zu; bytes_max=%.0f; ", npred,
                      fmax(acc.xmax * 1.05, acc.ymax));
out:
    free(ids);
    free(acc.x);
    free(acc.y);
    return rc;
}

static int gnuplot_run(const char *template_path, const char *vars, const char *out, rs_err *err)
{
    const char *gp = getenv("RSSIM_GNUPLOT");
    struct stat sb;
    pid_t pid;
    int wstatus = 0;

    if (!gp || !*gp)
        gp = RSSIM_GNUPLOT;
    if (access(template_path, R_OK) != 0)
        return rs_fail(err, RS_EIO, "cannot read gnuplot template '%s': %s (set RSSIM_SCRIPTS "
                       "to the scripts folder)", template_path, strerror(errno));
    char *argv[] = { (char *)gp, (char *)"-e", (char *)vars, (char *)template_path, NULL };
    int rc = posix_spawnp(&pid, gp, NULL, NULL, argv, environ);
    if (rc != 0)
        return rs_fail(err, RS_EINTERNAL, "cannot run gnuplot '%s': %s (install the package "
                       "gnuplot-nox)", gp, strerror(rc));
    while (waitpid(pid, &wstatus, 0) < 0)
        if (errno != EINTR)
            return rs_fail(err, RS_EINTERNAL, "cannot wait for gnuplot: %s", strerror(errno));
    if (WIFEXITED(wstatus) && WEXITSTATUS(wstatus) == 127)
        return rs_fail(err, RS_EINTERNAL, "cannot run gnuplot '%s' (install the package "
                       "gnuplot-nox)", gp);
    if (!WIFEXITED(wstatus) || WEXITSTATUS(wstatus) != 0)
        return rs_fail(err, RS_EINTERNAL, "gnuplot failed on '%s' (%s %d)", template_path,
                       WIFEXITED(wstatus) ? "exit status" : "signal",
                       WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : WTERMSIG(wstatus));
    if (stat(out, &sb) != 0 || sb.st_size == 0)
        return rs_fail(err, RS_EINTERNAL, "gnuplot wrote no image to '%s'", out);
    return 0;
}

/* The gnuplot terminal for an output name: pngcairo, svg or dumb (.txt), or
 * NULL for any other suffix. */
static const char *plot_term(const char *out)
{
    const char *dot = strrchr(out, '.');
    if (!dot || strchr(dot, '/'))
        return NULL;
    if (!strcasecmp(dot, ".png"))
        return "pngcairo";
    if (!strcasecmp(dot, ".svg"))
        return "svg";
    if (!strcasecmp(dot, ".txt"))
        return "dumb";
    return NULL;
}

/* Draw kind from database db into out (terminal term): the data file
 * beside it, then gnuplot.  What cmd_plot and rs_cli_plot_draw share. */
static int plot_draw(const plot_kind *kind, const char *db, const plot_args *a, const char *out,
                     const char *term, rs_err *err)
{
    const char *dot = strrchr(out, '.');
    rs_store *st = NULL;
    char dat[4096], tmpl[4096], *vars = NULL;
    int rc;

    snprintf(dat, sizeof dat, "%.*s.dat", (int)(dot - out), out);
    snprintf(tmpl, sizeof tmpl, "%s/%s", rs_cli_scripts_dir(), kind->template);
    if (!(vars = calloc(1, VARS_CAP)))
        return rs_fail(err, RS_ENOMEM, "out of memory");
    if ((rc = rs_store_open_ro(&st, db, err)) || (rc = rs_cli_mkdir_parent(out, err)) ||
        (rc = vars_add_string(vars, "datafile", dat, err)) ||
        (rc = vars_add_string(vars, "out", out, err)) ||
        (rc = vars_add_string(vars, "term", term, err)) ||
        (rc = kind->write_args ? kind->write_args(st, a, dat, vars, err)
                               : kind->write(st, kind->per_sweep ? a->sweep : a->runs[0], dat,
                                             vars, err)))
        goto done;
    rs_store_close(st);
    st = NULL;
    if (unlink(out) != 0 && errno != ENOENT) {
        rc = rs_fail(err, RS_EIO, "cannot replace '%s': %s", out, strerror(errno));
        goto done;
    }
    rc = gnuplot_run(tmpl, vars, out, err);
done:
    free(vars);
    rs_store_close(st);
    return rc;
}

int cmd_plot(int argc, char **argv)
{
    static const struct option opts[] = {
        { "run", required_argument, NULL, 'r' },   { "sweep", required_argument, NULL, 'w' },
        { "db", required_argument, NULL, 'd' },    { "output", required_argument, NULL, 'o' },
        { "help", no_argument, NULL, 'h' },        { "key", required_argument, NULL, 'k' },
        { "plan", required_argument, NULL, 'P' },
        { NULL, 0, NULL, 0 },
    };
    const char *db = rs_cli_default_db(), *out = NULL, *key = NULL;
    int64_t run = 0, sweep = 0, runs[64], plan = 0;
    size_t nruns = 0;
    int c;

    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
        usage(stdout);
        return 0;
    }
    const plot_kind *kind = NULL;
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
        if (!strcmp(argv[1], kinds[i].name))
            kind = &kinds[i];
    if (!kind)
        return rs_cli_usage_error("plot", "unknown plot '%s' (known: timeseries, overshoot, "
                                  "breakdown, validate, latency, interval, capacity)", argv[1]);
    argc--;
    argv++;
    optind = 1;
    while ((c = getopt_long(argc, argv, "o:h", opts, NULL)) != -1) {
        switch (c) {
        case 'r':
            if (!(run = rs_cli_parse_id(optarg)))
                return rs_cli_usage_error("plot", "bad run id '%s'", optarg);
            if (nruns == sizeof runs / sizeof runs[0])
                return rs_cli_usage_error("plot", "at most %zu --run", nruns);
            runs[nruns++] = run;
            break;
        case 'w':
            if (!(sweep = rs_cli_parse_id(optarg)))
                return rs_cli_usage_error("plot", "bad sweep id '%s'", optarg);
            break;
        case 'k': key = optarg; break;
        case 'P':
            if (!(plan = rs_cli_parse_id(optarg)))
                return rs_cli_usage_error("plot", "bad plan id '%s'", optarg);
            break;
        case 'd': db = optarg; break;
        case 'o': out = optarg; break;
        case 'h': usage(stdout); return 0;
        default: usage(stderr); return 2;
        }
    }
    if (optind != argc)
        return rs_cli_usage_error("plot", "unexpected argument '%s'", argv[optind]);
    if (kind->per_plan ? !plan || nruns || sweep
                       : plan ? 1
                       : kind->runs_or_sweep ? !nruns == !sweep
                       : kind->per_sweep ? !sweep || run : !run || sweep)
        return rs_cli_usage_error("plot", "%s takes %s", kind->name,
                                  kind->per_plan ? "--plan ID"
                                  : kind->runs_or_sweep ? "--run ID [--run ID ...] or --sweep ID"
                                  : kind->per_sweep   ? "--sweep ID" : "--run ID");
    if (nruns > 1 && !kind->runs_or_sweep && !kind->runs_many)
        return rs_cli_usage_error("plot", "%s takes one --run ID", kind->name);
    if (nruns > 2 && kind->write_args == validate_write)
        return rs_cli_usage_error("plot", "validate takes --run MEASURED [--run PREDICTED]");
    if (key && !kind->takes_key)
        return rs_cli_usage_error("plot", "--key is for plot interval, not %s", kind->name);
    if (!out)
        return rs_cli_usage_error("plot", "-o out/NAME.png, .svg or .txt is required");
    const char *term = plot_term(out);
    if (!term)
        return rs_cli_usage_error("plot", "output '%s' must end in .png, .svg or .txt", out);

    rs_err err = { 0 };
    int rc = plot_draw(kind, db, &(plot_args){ .runs = runs, .nruns = nruns, .sweep = sweep,
                                                .key = key, .plan = plan },
                       out, term, &err);
    if (rc)
        return rs_cli_report(&err);
    printf("wrote %s (data %.*s.dat)\n", out, (int)(strrchr(out, '.') - out), out);
    return 0;
}

int rs_cli_plot_draw(const char *db, const char *kind_name, const int64_t *runs, size_t nruns,
                     int64_t sweep, int64_t plan, const char *out, rs_err *err)
{
    const plot_kind *kind = NULL;
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
        if (!strcmp(kind_name, kinds[i].name))
            kind = &kinds[i];
    if (!kind)
        return rs_fail(err, RS_EINTERNAL, "unknown plot '%s'", kind_name);
    const char *term = plot_term(out);
    if (!term)
        return rs_fail(err, RS_EINTERNAL, "plot output '%s' must end in .png, .svg or .txt", out);
    if (kind->per_plan ? !plan || nruns || sweep
        : plan             ? 1
        : kind->runs_or_sweep ? !nruns == !sweep
        : kind->per_sweep   ? !sweep || nruns
                            : !nruns || sweep || (nruns > 1 && !kind->runs_many))
        return rs_fail(err, RS_EINTERNAL, "plot %s: wrong runs or sweep", kind->name);
    return plot_draw(kind, db, &(plot_args){ .runs = runs, .nruns = nruns, .sweep = sweep, .plan = plan },
                     out, term, err);
}
