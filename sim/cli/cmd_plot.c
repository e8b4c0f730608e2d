/*
 * cmd_plot.c — `rssim plot timeseries|overshoot`: stored runs to PNG or SVG.
 *
 * The C side only reads the store, writes plain data files next to the
 * output (NAME.dat: a header row of column names, then numbers; several
 * series are blocks separated by two blank lines, each with its own header
 * whose first name is the series' title) and runs gnuplot on the template
 * scripts/<kind>.gp, passing datafile, out, term, title (and nseries) with
 * -e.  Every drawing decision (units, colours, log axes, keys) is in the
 * template.  The terminal follows the output's suffix: .png -> pngcairo,
 * .svg -> svg.  Only runs with status 'done' are plotted.
 *
 * Env: RSSIM_GNUPLOT overrides the gnuplot found at build time,
 * RSSIM_SCRIPTS the templates' folder.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <spawn.h>
#include <sqlite3.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../result.h"
#include "../store.h"
#include "cli.h"

#define VARS_CAP 8192

typedef struct plot_kind {
    const char *name;
    int per_sweep;        /* 1: takes --sweep ID, 0: takes --run ID */
    const char *template; /* file in rs_cli_scripts_dir() */
    const char *summary;
    /* Write the data file(s) and append the kind's gnuplot variables. */
    int (*write)(rs_store *st, int64_t id, const char *dat, char *vars, rs_err *err);
} plot_kind;

static int timeseries_write(rs_store *st, int64_t id, const char *dat, char *vars, rs_err *err);
static int overshoot_write(rs_store *st, int64_t id, const char *dat, char *vars, rs_err *err);
static int validate_write(rs_store *st, int64_t id, const char *dat, char *vars, rs_err *err);

static const plot_kind kinds[] = {
    { .name = "timeseries", .per_sweep = 0, .template = "timeseries.gp",
      .summary = "one run: accounted, resident, rss and limit (MiB) over virtual time",
      .write = timeseries_write },
    { .name = "overshoot", .per_sweep = 1, .template = "overshoot.gp",
      .summary = "one sweep: steady rss/limit vs limit, with the (1-x)^-1 curve",
      .write = overshoot_write },
    { .name = "breakdown", .per_sweep = 0, .template = "breakdown.gp",
      .summary = "one run: rss split into accounted, untracked, rounding, caches, metadata,\n"
                 "              free-but-resident and base, stacked over virtual time",
      .write = timeseries_write },
    { .name = "validate", .per_sweep = 0, .template = "validate.gp",
      .summary = "one validation (--run the measured run): predicted and measured resident\n"
                 "              and allocated bytes over virtual time",
      .write = validate_write },
};

static void usage(FILE *f)
{
    fprintf(f,
            "usage: rssim plot timeseries --run ID   [--db PATH] -o out/NAME.png|.svg|.txt\n"
            "       rssim plot breakdown  --run ID   [--db PATH] -o out/NAME.png|.svg|.txt\n"
            "       rssim plot overshoot  --sweep ID [--db PATH] -o out/NAME.png|.svg|.txt\n"
            "       rssim plot validate   --run ID   [--db PATH] -o out/NAME.png|.svg|.txt\n\n");
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
        fprintf(f, "  %-11s %s\n", kinds[i].name, kinds[i].summary);
    fprintf(f,
            "\nOnly runs that are done are drawn.  The data goes to NAME.dat beside the\n"
            "output; the drawing is scripts/<kind>.gp (gnuplot; Debian package gnuplot-nox).\n\n"
            "      --run ID      the run (timeseries, breakdown; validate: the measured run)\n"
            "      --sweep ID    the sweep (overshoot)\n"
            "      --db PATH     SQLite database (default %s)\n"
            "  -o, --output F    the image: .png (pngcairo), .svg, or .txt (text, for a\n"
            "                    terminal or a README); its folder is created\n"
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

static int db_fail(rs_store *st, rs_err *err, const char *what)
{
    return rs_fail(err, RS_EDB, "%s in '%s': %s", what, rs_store_path(st),
                   sqlite3_errmsg(rs_store_db(st)));
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

/* Column col of a row for a data file (after a space). */
static void dat_value(FILE *f, sqlite3_stmt *s, int col)
{
    switch (sqlite3_column_type(s, col)) {
    case SQLITE_INTEGER: fprintf(f, " %lld", (long long)sqlite3_column_int64(s, col)); break;
    case SQLITE_FLOAT: dat_real(f, sqlite3_column_double(s, col)); break;
    default: fputs(" NaN", f); break;
    }
}

/* ---- timeseries ---- */

#define COL_NAME(name) " " #name
#define COL_SEL(name) ", " #name

static int timeseries_write(rs_store *st, int64_t id, const char *dat, char *vars, rs_err *err)
{
    static const char header[] =
        "run_id" RS_SAMPLE_INT_COLUMNS(COL_NAME) RS_SAMPLE_REAL_COLUMNS(COL_NAME);
    static const char select_sql[] =
        "SELECT run_id" RS_SAMPLE_INT_COLUMNS(COL_SEL) RS_SAMPLE_REAL_COLUMNS(COL_SEL)
        " FROM samples WHERE run_id = ?1 ORDER BY t_ns";
    char status[16], title[1024];
    sqlite3_stmt *s = NULL;
    FILE *f = NULL;
    int rc;
    long long n = 0;

    if ((rc = rs_store_run_status(st, id, status, err)))
        return rc;
    if (strcmp(status, "done") != 0)
        return rs_fail(err, RS_EINPUT, "run %" PRId64 " in '%s' is %s, not done: nothing to plot",
                       id, rs_store_path(st), status);

    if (sqlite3_prepare_v2(rs_store_db(st), "SELECT preset, label FROM runs WHERE id = ?1", -1,
                           &s, NULL) != SQLITE_OK)
        return db_fail(st, err, "cannot read the run");
    sqlite3_bind_int64(s, 1, id);
    if (sqlite3_step(s) != SQLITE_ROW) {
        rc = db_fail(st, err, "cannot read the run");
        sqlite3_finalize(s);
        return rc;
    }
    const char *preset = (const char *)sqlite3_column_text(s, 0);
    const char *label = (const char *)sqlite3_column_text(s, 1);
    snprintf(title, sizeof title, "run %" PRId64 ": %s%s%s", id, preset ? preset : "no preset",
             label && *label ? ", " : "", label && *label ? label : "");
    sqlite3_finalize(s);
    s = NULL;
    if ((rc = vars_add_string(vars, "title", title, err)))
        return rc;

    if (sqlite3_prepare_v2(rs_store_db(st), select_sql, -1, &s, NULL) != SQLITE_OK)
        return db_fail(st, err, "cannot read the samples");
    sqlite3_bind_int64(s, 1, id);
    if (!(f = fopen(dat, "w"))) {
        sqlite3_finalize(s);
        return rs_fail(err, RS_EIO, "cannot write '%s': %s", dat, strerror(errno));
    }
    fprintf(f, "# rssim plot timeseries: samples of run %" PRId64 " from '%s'\n", id,
            rs_store_path(st));
    fprintf(f, "%s\n", header);
    int ncols = sqlite3_column_count(s);
    while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
        fprintf(f, "%lld", (long long)sqlite3_column_int64(s, 0)); /* run_id */
        for (int k = 1; k < ncols; k++)
            dat_value(f, s, k);
        fputc('\n', f);
        n++;
    }
    if (rc != SQLITE_DONE)
        rc = db_fail(st, err, "cannot read the samples");
    else
        rc = 0;
    sqlite3_finalize(s);
    int crc = file_close(f, dat, err);
    if (rc || crc)
        return rc ? rc : crc;
    if (n == 0)
        return rs_fail(err, RS_EINPUT, "run %" PRId64 " in '%s' has no samples: nothing to plot",
                       id, rs_store_path(st));
    return 0;
}

/* ---- validate: a measured run and the predicted run it was made for ---- */

static int validate_write(rs_store *st, int64_t id, const char *dat, char *vars, rs_err *err)
{
    char title[512];
    sqlite3_stmt *s = NULL;
    FILE *f;
    int rc;
    long long n = 0;
    double pred = 0;

    if (sqlite3_prepare_v2(rs_store_db(st),
                           "SELECT m.value, r.label FROM metrics m JOIN runs r ON r.id = m.run_id"
                           " WHERE m.run_id = ?1 AND m.name = 'predicted_run_id' AND r.status = 'done'",
                           -1, &s, NULL) != SQLITE_OK)
        return db_fail(st, err, "cannot read the run");
    sqlite3_bind_int64(s, 1, id);
    if (sqlite3_step(s) != SQLITE_ROW) {
        sqlite3_finalize(s);
        return rs_fail(err, RS_EINPUT, "run %" PRId64 " in '%s' is not a done measured run of "
                       "'rssim validate'", id, rs_store_path(st));
    }
    pred = sqlite3_column_double(s, 0);
    snprintf(title, sizeof title, "run %" PRId64 " (measured) vs run %.0f (predicted): %s", id, pred,
             sqlite3_column_text(s, 1) ? (const char *)sqlite3_column_text(s, 1) : "");
    sqlite3_finalize(s);
    if ((rc = vars_add_string(vars, "title", title, err)))
        return rc;
    if (sqlite3_prepare_v2(rs_store_db(st),
                           "SELECT p.t_ns, p.resident_bytes, m.resident_bytes, p.allocated_bytes,"
                           " m.allocated_bytes FROM samples p JOIN samples m ON m.t_ns = p.t_ns"
                           " WHERE p.run_id = ?1 AND m.run_id = ?2 ORDER BY p.t_ns",
                           -1, &s, NULL) != SQLITE_OK)
        return db_fail(st, err, "cannot read the samples");
    sqlite3_bind_int64(s, 1, (int64_t)pred);
    sqlite3_bind_int64(s, 2, id);
    if (!(f = fopen(dat, "w"))) {
        sqlite3_finalize(s);
        return rs_fail(err, RS_EIO, "cannot write '%s': %s", dat, strerror(errno));
    }
    fprintf(f, "# rssim plot validate: run %" PRId64 " (measured) and run %.0f (predicted)\n", id, pred);
    fprintf(f, "t_ns predicted_resident_bytes measured_resident_bytes predicted_allocated_bytes"
               " measured_allocated_bytes\n");
    while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
        for (int k = 0; k < 5; k++)
            fprintf(f, k ? " %lld" : "%lld", (long long)sqlite3_column_int64(s, k));
        fputc('\n', f);
        n++;
    }
    rc = rc == SQLITE_DONE ? 0 : db_fail(st, err, "cannot read the samples");
    sqlite3_finalize(s);
    int crc = file_close(f, dat, err);
    if (rc || crc)
        return rc ? rc : crc;
    if (!n)
        return rs_fail(err, RS_EINPUT, "runs %" PRId64 " and %.0f in '%s' share no sample time",
                       id, pred, rs_store_path(st));
    return 0;
}

/* ---- overshoot ---- */

enum { M_LIMIT, M_STEADY, M_P99, M_MAX, M_X, M_COUNT };
static const char *const metric_names[M_COUNT] = {
    [M_LIMIT] = "limit_bytes",     [M_STEADY] = "overshoot_steady",
    [M_P99] = "overshoot_p99",     [M_MAX] = "overshoot_max",
    [M_X] = "x_steady",
};

#define MAX_KEYS 16

typedef struct point {
    int64_t run_id, point_index;
    double m[M_COUNT];       /* NaN when the run lacks the metric */
    char *value[MAX_KEYS];   /* the run's param value of each varied key */
    int series;
} point;

typedef struct sweep_data {
    char *keys_buf;          /* varied_keys, split in place */
    char *keys[MAX_KEYS];
    int nkeys;
    point *pts;
    size_t npts;
} sweep_data;

static void sweep_data_release(sweep_data *d)
{
    for (size_t i = 0; i < d->npts; i++)
        for (int k = 0; k < d->nkeys; k++)
            free(d->pts[i].value[k]);
    free(d->pts);
    free(d->keys_buf);
}

static int sweep_read(rs_store *st, int64_t id, sweep_data *d, char *title, size_t cap,
                      rs_err *err)
{
    sqlite3 *db = rs_store_db(st);
    sqlite3_stmt *s = NULL, *p = NULL;
    int rc;

    if ((rc = rs_store_sweep_check(st, id, err)))
        return rc;
    if (sqlite3_prepare_v2(db, "SELECT varied_keys, preset FROM sweeps WHERE id = ?1", -1, &s,
                           NULL) != SQLITE_OK)
        return db_fail(st, err, "cannot read the sweep");
    sqlite3_bind_int64(s, 1, id);
    if (sqlite3_step(s) != SQLITE_ROW) {
        rc = db_fail(st, err, "cannot read the sweep");
        sqlite3_finalize(s);
        return rc;
    }
    const char *keys = (const char *)sqlite3_column_text(s, 0);
    const char *preset = (const char *)sqlite3_column_text(s, 1);
    snprintf(title, cap, "sweep %" PRId64 " (%s): steady rss/limit; dashed: (1−x)⁻¹ from measured x",
             id, preset ? preset : "no preset");
    d->keys_buf = strdup(keys ? keys : "");
    sqlite3_finalize(s);
    s = NULL;
    if (!d->keys_buf)
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

    static const char runs_sql[] =
        "SELECT r.id, r.point_index,"
        " (SELECT value FROM metrics WHERE run_id = r.id AND name = ?2),"
        " (SELECT value FROM metrics WHERE run_id = r.id AND name = ?3),"
        " (SELECT value FROM metrics WHERE run_id = r.id AND name = ?4),"
        " (SELECT value FROM metrics WHERE run_id = r.id AND name = ?5),"
        " (SELECT value FROM metrics WHERE run_id = r.id AND name = ?6)"
        " FROM runs r WHERE r.sweep_id = ?1 AND r.status = 'done' ORDER BY r.point_index";
    if (sqlite3_prepare_v2(db, runs_sql, -1, &s, NULL) != SQLITE_OK ||
        sqlite3_prepare_v2(db, "SELECT value FROM params WHERE run_id = ?1 AND key = ?2", -1, &p,
                           NULL) != SQLITE_OK) {
        rc = db_fail(st, err, "cannot read the runs of the sweep");
        goto out;
    }
    sqlite3_bind_int64(s, 1, id);
    for (int m = 0; m < M_COUNT; m++)
        sqlite3_bind_text(s, 2 + m, metric_names[m], -1, SQLITE_STATIC);
    size_t cap_pts = 0;
    while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
        if (d->npts == cap_pts) {
            size_t ncap = cap_pts ? 2 * cap_pts : 64;
            point *np = realloc(d->pts, ncap * sizeof *np);
            if (!np) {
                rc = rs_fail(err, RS_ENOMEM, "out of memory reading sweep %" PRId64, id);
                goto out;
            }
            d->pts = np;
            cap_pts = ncap;
        }
        point *pt = &d->pts[d->npts];
        memset(pt, 0, sizeof *pt);
        pt->run_id = sqlite3_column_int64(s, 0);
        pt->point_index = sqlite3_column_int64(s, 1);
        for (int m = 0; m < M_COUNT; m++)
            pt->m[m] = sqlite3_column_type(s, 2 + m) == SQLITE_NULL
                           ? NAN : sqlite3_column_double(s, 2 + m);
        d->npts++;
        for (int k = 0; k < d->nkeys; k++) {
            sqlite3_bind_int64(p, 1, pt->run_id);
            sqlite3_bind_text(p, 2, d->keys[k], -1, SQLITE_STATIC);
            const char *v = sqlite3_step(p) == SQLITE_ROW ? (const char *)sqlite3_column_text(p, 0)
                                                          : NULL;
            pt->value[k] = strdup(v ? v : "?");
            sqlite3_reset(p);
            if (!pt->value[k]) {
                rc = rs_fail(err, RS_ENOMEM, "out of memory reading sweep %" PRId64, id);
                goto out;
            }
        }
    }
    if (rc != SQLITE_DONE) {
        rc = db_fail(st, err, "cannot read the runs of the sweep");
        goto out;
    }
    rc = 0;
    if (d->npts == 0)
        rc = rs_fail(err, RS_EINPUT, "sweep %" PRId64 " in '%s' has no done runs: nothing to plot",
                     id, rs_store_path(st));
out:
    sqlite3_finalize(s);
    sqlite3_finalize(p);
    return rc;
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

static int by_limit(const void *a, const void *b)
{
    const point *x = *(const point *const *)a, *y = *(const point *const *)b;
    if (x->m[M_LIMIT] < y->m[M_LIMIT])
        return -1;
    if (x->m[M_LIMIT] > y->m[M_LIMIT])
        return 1;
    return x->point_index < y->point_index ? -1 : x->point_index > y->point_index;
}

static int overshoot_write(rs_store *st, int64_t id, const char *dat, char *vars, rs_err *err)
{
    sweep_data d = { 0 };
    char title[1024];
    point **order = NULL;
    FILE *f = NULL;
    int rc, nseries = 0;

    if ((rc = sweep_read(st, id, &d, title, sizeof title, err)))
        goto out;
    int lk = limit_key(&d);
    /* series numbered by first appearance in point order */
    for (size_t i = 0; i < d.npts; i++) {
        d.pts[i].series = -1;
        for (size_t j = 0; j < i && d.pts[i].series < 0; j++)
            if (same_series(&d, &d.pts[i], &d.pts[j], lk))
                d.pts[i].series = d.pts[j].series;
        if (d.pts[i].series < 0)
            d.pts[i].series = nseries++;
    }
    if (!(order = malloc(d.npts * sizeof *order))) {
        rc = rs_fail(err, RS_ENOMEM, "out of memory plotting sweep %" PRId64, id);
        goto out;
    }
    for (size_t i = 0; i < d.npts; i++)
        order[i] = &d.pts[i];
    qsort(order, d.npts, sizeof *order, by_limit);

    if (!(f = fopen(dat, "w"))) {
        rc = rs_fail(err, RS_EIO, "cannot write '%s': %s", dat, strerror(errno));
        goto out;
    }
    fprintf(f, "# rssim plot overshoot: done runs of sweep %" PRId64 " from '%s'\n", id,
            rs_store_path(st));
    fputs("# varied keys:", f);
    for (int k = 0; k < d.nkeys; k++)
        fprintf(f, " %s", d.keys[k]);
    fprintf(f, "%s; limit key: %s\n", d.nkeys ? "" : " (none)", lk >= 0 ? d.keys[lk] : "(none)");
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
            if (k == lk)
                continue;
            fprintf(f, "%s%s=", nlabel++ ? ", " : "", d.keys[k]);
            for (const char *c = first->value[k]; *c; c++)
                fputc(*c == '"' ? '\'' : *c, f);
        }
        if (!nlabel)
            fputs("all points", f);
        fputs("\" run_id", f);
        for (int m = 0; m < M_COUNT; m++)
            fprintf(f, " %s", metric_names[m]);
        fputc('\n', f);
        for (size_t i = 0; i < d.npts; i++) {
            const point *pt = order[i];
            if (pt->series != sr)
                continue;
            fprintf(f, "%" PRId64 " %" PRId64, pt->point_index, pt->run_id);
            for (int m = 0; m < M_COUNT; m++)
                dat_real(f, pt->m[m]);
            fputc('\n', f);
        }
    }
    rc = file_close(f, dat, err);
    f = NULL;
    if (!rc)
        rc = vars_add_string(vars, "title", title, err);
    if (!rc)
        rc = vars_add(vars, err, "nseries=%d; ", nseries);
out:
    if (f)
        fclose(f);
    free(order);
    sweep_data_release(&d);
    return rc;
}

/* ---- running gnuplot ---- */

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

int cmd_plot(int argc, char **argv)
{
    static const struct option opts[] = {
        { "run", required_argument, NULL, 'r' },   { "sweep", required_argument, NULL, 'w' },
        { "db", required_argument, NULL, 'd' },    { "output", required_argument, NULL, 'o' },
        { "help", no_argument, NULL, 'h' },        { NULL, 0, NULL, 0 },
    };
    const char *db = rs_cli_default_db(), *out = NULL;
    int64_t run = 0, sweep = 0;
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
        return rs_cli_usage_error("plot", "unknown plot '%s' (known: timeseries, overshoot)",
                                  argv[1]);
    argc--;
    argv++;
    optind = 1;
    while ((c = getopt_long(argc, argv, "o:h", opts, NULL)) != -1) {
        switch (c) {
        case 'r':
            if (!(run = rs_cli_parse_id(optarg)))
                return rs_cli_usage_error("plot", "bad run id '%s'", optarg);
            break;
        case 'w':
            if (!(sweep = rs_cli_parse_id(optarg)))
                return rs_cli_usage_error("plot", "bad sweep id '%s'", optarg);
            break;
        case 'd': db = optarg; break;
        case 'o': out = optarg; break;
        case 'h': usage(stdout); return 0;
        default: usage(stderr); return 2;
        }
    }
    if (optind != argc)
        return rs_cli_usage_error("plot", "unexpected argument '%s'", argv[optind]);
    if (kind->per_sweep ? !sweep || run : !run || sweep)
        return rs_cli_usage_error("plot", "%s takes %s", kind->name,
                                  kind->per_sweep ? "--sweep ID" : "--run ID");
    if (!out)
        return rs_cli_usage_error("plot", "-o out/NAME.png or .svg is required");
    const char *dot = strrchr(out, '.');
    const char *term = NULL;
    if (dot && !strchr(dot, '/') && !strcasecmp(dot, ".png"))
        term = "pngcairo";
    else if (dot && !strchr(dot, '/') && !strcasecmp(dot, ".svg"))
        term = "svg";
    else if (dot && !strchr(dot, '/') && !strcasecmp(dot, ".txt"))
        term = "dumb";
    else
        return rs_cli_usage_error("plot", "output '%s' must end in .png, .svg or .txt", out);

    rs_err err = { 0 };
    rs_store *st = NULL;
    char dat[4096], tmpl[4096], *vars = NULL;
    int rc;

    snprintf(dat, sizeof dat, "%.*s.dat", (int)(dot - out), out);
    snprintf(tmpl, sizeof tmpl, "%s/%s", rs_cli_scripts_dir(), kind->template);
    if (!(vars = calloc(1, VARS_CAP))) {
        rs_fail(&err, RS_ENOMEM, "out of memory");
        return rs_cli_report(&err);
    }
    if ((rc = rs_store_open_ro(&st, db, &err)) || (rc = rs_cli_mkdir_parent(out, &err)) ||
        (rc = vars_add_string(vars, "datafile", dat, &err)) ||
        (rc = vars_add_string(vars, "out", out, &err)) ||
        (rc = vars_add_string(vars, "term", term, &err)) ||
        (rc = kind->write(st, kind->per_sweep ? sweep : run, dat, vars, &err)))
        goto done;
    rs_store_close(st);
    st = NULL;
    if (unlink(out) != 0 && errno != ENOENT) {
        rc = rs_fail(&err, RS_EIO, "cannot replace '%s': %s", out, strerror(errno));
        goto done;
    }
    if ((rc = gnuplot_run(tmpl, vars, out, &err)))
        goto done;
    printf("wrote %s (data %s)\n", out, dat);
done:
    free(vars);
    rs_store_close(st);
    return rc ? rs_cli_report(&err) : 0;
}
