/*
 * cmd_report.c — `rssim report`: one self-contained HTML page about a sweep
 * or some runs, to attach to a ticket.
 *
 * The page (DIR/index.html) needs nothing else: no external URL, no script,
 * no stylesheet or image file.  Its plots are SVG drawn by gnuplot through
 * the same code as `rssim plot` (rs_cli_plot_draw: the same data files and
 * templates) into DIR/plots/, then copied inline with the XML prologue cut
 * and every id prefixed per plot (gnuplot names its point symbols gpPt0...
 * in every file; a page must not hold an id twice).  gnuplot escapes the
 * text it puts in SVG; everything this file writes goes through html_text.
 *
 * What a page holds: the identity of what it shows (database, trace path and
 * sha256, preset, spec, seeds, the rssim version that wrote the runs and the
 * one that made the page, when), the exact parameters (those shared by every
 * run once, then those that differ, per run), a table of the key metrics,
 * and plots: for a sweep the overshoot plot and the timeseries and breakdown
 * of its worst point (highest peak rss/limit); for runs the timeseries and
 * breakdown of each, and all their metrics.  Sizes are in KiB, MiB or GiB,
 * one unit per table column: GiB from 10 GiB up.
 *
 * The creation time is the wall clock's (UTC), or SOURCE_DATE_EPOCH when
 * set, for reproducible pages.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../query.h"
#include "../store.h"
#include "cli.h"

#define KIB 1024.0
#define GIB 1073741824.0
#define MAX_RUNS 64 /* --run, at most */
#define MAX_KEYS 16

/* The key metrics of every table, in column order. */
enum { K_LIMIT, K_RSS_STEADY, K_RSS_PEAK, K_OV_STEADY, K_OV_PEAK, K_X, K_TRIMS, K_MISS, K_IOPS,
       K_P50, K_P99, K_COUNT };

typedef enum { U_BYTES, U_RATIO, U_COUNT, U_NS } unit_kind;

static const struct {
    const char *name, *head;
    unit_kind unit;
    int optional; /* a column only when some run has it (the osd's, the kv and mds's lookups) */
} key_metrics[K_COUNT] = {
    [K_LIMIT] = { "limit_bytes", "limit", U_BYTES, 0 },
    [K_RSS_STEADY] = { "rss_steady_bytes", "steady RSS", U_BYTES, 0 },
    [K_RSS_PEAK] = { "rss_peak_bytes", "peak RSS", U_BYTES, 0 },
    [K_OV_STEADY] = { "overshoot_steady", "overshoot steady (rss/limit)", U_RATIO, 0 },
    [K_OV_PEAK] = { "overshoot_max", "overshoot peak", U_RATIO, 0 },
    [K_X] = { "x_steady", "x (untracked share)", U_RATIO, 0 },
    [K_TRIMS] = { "trims_count", "trims", U_COUNT, 0 },
    [K_MISS] = { "miss_ratio", "miss ratio", U_RATIO, 1 },
    [K_IOPS] = { "iops", "IOPS", U_COUNT, 1 },
    [K_P50] = { "latency_p50_ns", "latency p50", U_NS, 1 },
    [K_P99] = { "latency_p99_ns", "latency p99", U_NS, 1 },
};

/* One run on the page. */
typedef struct rep_run {
    rs_query_run row;           /* owned (rs_query_run_get) */
    double m[K_COUNT];          /* key metrics, NaN when missing */
    char *value[MAX_KEYS];      /* its value of each differing key (NULL: none) */
} rep_run;

/* A list of strings (keys, or key/value pairs in k and v). */
typedef rs_cli_strs strs;

typedef struct report {
    const char *db, *dir;
    rs_store *st;
    FILE *f;                    /* index.html being written */
    int nplots;                 /* plots inlined so far (their id prefix) */
    rep_run *runs;
    size_t nruns, cap_runs;
    char *keys[MAX_KEYS];       /* params whose value differs among the runs */
    int nkeys;
    strs common;                /* params the same in every run: key, value */
} report;

/* ---- strings ---- */


/* ---- HTML ---- */

/* s as HTML text or attribute value: & < > " ' escaped. */
static void html_text(FILE *f, const char *s)
{
    for (; s && *s; s++) {
        switch (*s) {
        case '&': fputs("&amp;", f); break;
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '"': fputs("&quot;", f); break;
        case '\'': fputs("&#39;", f); break;
        default: fputc(*s, f);
        }
    }
}

/* printf, then escaped, into f. */
static void html_printf(FILE *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void html_printf(FILE *f, const char *fmt, ...)
{
    char buf[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    html_text(f, buf);
}

/* <tr><th>name</th><td>value</td></tr>, value "-" when NULL; code: monospace. */
static void html_kv(FILE *f, const char *name, const char *value, int code)
{
    fputs("<tr><th scope=\"row\">", f);
    html_text(f, name);
    fputs(code && value ? "</th><td><code>" : "</th><td>", f);
    html_text(f, value ? value : "-");
    fputs(code && value ? "</code></td></tr>\n" : "</td></tr>\n", f);
}

static const char page_style[] =
    "body{font-family:'DejaVu Sans',system-ui,sans-serif;font-size:15px;color:#1a1a1a;"
    "background:#fff;margin:0}\n"
    "main{max-width:1180px;margin:0 auto;padding:24px 32px 48px}\n"
    "h1{font-size:26px;margin:0 0 6px}\n"
    "h2{font-size:20px;margin:36px 0 10px;padding-bottom:4px;border-bottom:2px solid #d0d7de}\n"
    "h3{font-size:16px;margin:22px 0 8px}\n"
    ".lede{font-size:16px;margin:4px 0 18px;color:#333}\n"
    "table{border-collapse:collapse;margin:8px 0 16px;font-size:14px}\n"
    "th,td{border:1px solid #d0d7de;padding:4px 10px;vertical-align:top}\n"
    "thead th{background:#f0f3f6;text-align:center}\n"
    "th[scope=row]{background:#f6f8fa;text-align:left;font-weight:600;white-space:nowrap}\n"
    "td.n{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}\n"
    "tr.worst td{background:#fff3cd}\n"
    "code{font-family:'DejaVu Sans Mono',monospace;font-size:13px;word-break:break-all}\n"
    "figure{margin:12px 0 20px}\n"
    "figure svg{display:block;width:100%;max-width:1100px;height:auto;border:1px solid #e5e5e5}\n"
    "figcaption{font-size:13px;color:#444;margin-top:4px}\n"
    ".note{color:#8a4b00}\n"
    "footer{margin-top:40px;font-size:13px;color:#555;border-top:1px solid #d0d7de;"
    "padding-top:8px}\n";

/* ---- numbers ---- */

/* A column's unit and scale from its largest value (unit NULL: none). */
static void column_unit(unit_kind u, double max, const char **r_unit, double *r_scale)
{
    *r_unit = NULL;
    *r_scale = 1;
    if (u == U_BYTES)
        rs_cli_size_unit(max, r_unit, r_scale);
    else if (u == U_NS)
        rs_cli_ns_unit(max, r_unit, r_scale);
}

/* v in a column of kind u (scaled; decimals for sizes and times), "-"
 * when missing. */
static void format_cell(char *buf, size_t cap, unit_kind u, double v, double scale, int decimals)
{
    if (isnan(v))
        snprintf(buf, cap, "-");
    else if (u == U_RATIO)
        snprintf(buf, cap, "%.3f", v);
    else if (u == U_COUNT)
        snprintf(buf, cap, "%.0f", v);
    else
        snprintf(buf, cap, "%.*f", decimals, v / scale);
}

/* One value with its own unit, by its name's suffix (_bytes, _ns). */
static void format_metric(char *buf, size_t cap, const char *name, double v)
{
    size_t len = strlen(name);
    const char *unit;
    double scale;

    if (isnan(v)) {
        snprintf(buf, cap, "-");
    } else if (len > 6 && !strcmp(name + len - 6, "_bytes") && fabs(v) >= KIB) {
        rs_cli_size_unit(fabs(v), &unit, &scale);
        snprintf(buf, cap, scale == GIB ? "%.2f %s" : "%.1f %s", v / scale, unit);
    } else if (len > 3 && !strcmp(name + len - 3, "_ns") && fabs(v) >= 1e3) {
        rs_cli_ns_unit(fabs(v), &unit, &scale);
        snprintf(buf, cap, "%.3g %s", v / scale, unit);
    } else if (v == floor(v) && fabs(v) < 1e15) {
        snprintf(buf, cap, "%.0f", v);
    } else {
        snprintf(buf, cap, "%.4g", v);
    }
}

/* ---- reading ---- */

static void rep_run_release(rep_run *r)
{
    rs_query_run_release(&r->row);
    for (int k = 0; k < MAX_KEYS; k++)
        free(r->value[k]);
}

static void report_release(report *rp)
{
    for (size_t i = 0; i < rp->nruns; i++)
        rep_run_release(&rp->runs[i]);
    free(rp->runs);
    for (int k = 0; k < rp->nkeys; k++)
        free(rp->keys[k]);
    rs_cli_strs_release(&rp->common);
    rs_store_close(rp->st);
}

/* Add run id: its row and key metrics. */
static int report_add_run(report *rp, int64_t id, rs_err *err)
{
    if (rp->nruns == rp->cap_runs) {
        size_t ncap = rp->cap_runs ? 2 * rp->cap_runs : 16;
        rep_run *nr = realloc(rp->runs, ncap * sizeof *nr);
        if (!nr)
            return rs_fail(err, RS_ENOMEM, "out of memory");
        rp->runs = nr;
        rp->cap_runs = ncap;
    }
    rep_run *r = &rp->runs[rp->nruns];
    memset(r, 0, sizeof *r);
    int rc = rs_query_run_get(rp->st, id, &r->row, err);
    if (rc)
        return rc;
    rp->nruns++;
    for (int k = 0; k < K_COUNT; k++) {
        int found = 0;
        if ((rc = rs_query_metric(rp->st, id, key_metrics[k].name, &r->m[k], &found, err)))
            return rc;
        if (!found)
            r->m[k] = NAN;
    }
    return 0;
}

static int key_add(void *ctx, const char *key, const char *value, rs_err *err)
{
    report *rp = ctx;
    (void)value;
    if (rp->nkeys == MAX_KEYS)
        return 0; /* the rest stay in the per-run parameter lists */
    if (!(rp->keys[rp->nkeys] = strdup(key)))
        return rs_fail(err, RS_ENOMEM, "out of memory");
    rp->nkeys++;
    return 0;
}

/* The params: which differ among the runs (each run's value of them), and
 * the others with their one value.  first: keys to put first (a sweep's
 * varied keys, comma-separated, in --vary order), may be NULL. */
static int report_params(report *rp, const char *first, rs_err *err)
{
    int64_t *ids = malloc(rp->nruns * sizeof *ids);
    int rc = 0;

    if (!ids)
        return rs_fail(err, RS_ENOMEM, "out of memory");
    for (size_t i = 0; i < rp->nruns; i++)
        ids[i] = rp->runs[i].row.id;
    if (rp->nruns > 1 && (rc = rs_query_params_varying(rp->st, ids, rp->nruns, key_add, rp, err)))
        goto out;
    /* the sweep's varied keys first, in --vary order */
    int at = 0;
    for (const char *k = first; k && *k;) {
        size_t len = strcspn(k, ", ");
        for (int j = at; j < rp->nkeys; j++)
            if (strlen(rp->keys[j]) == len && !strncmp(rp->keys[j], k, len)) {
                char *t = rp->keys[j];
                memmove(&rp->keys[at + 1], &rp->keys[at], (size_t)(j - at) * sizeof *rp->keys);
                rp->keys[at++] = t;
                break;
            }
        k += len;
        k += strspn(k, ", ");
    }
    for (size_t i = 0; i < rp->nruns; i++) {
        strs p = { 0 };
        if ((rc = rs_query_params(rp->st, ids[i], rs_cli_strs_param, &p, err))) {
            rs_cli_strs_release(&p);
            goto out;
        }
        for (int k = 0; k < rp->nkeys; k++) {
            const char *v = rs_cli_strs_get(&p, rp->keys[k]);
            if (v && !(rp->runs[i].value[k] = strdup(v)))
                rc = rs_fail(err, RS_ENOMEM, "out of memory");
        }
        if (i == 0)
            for (size_t j = 0; j < p.n && !rc; j++) {
                int varies = 0;
                for (int k = 0; k < rp->nkeys; k++)
                    varies |= !strcmp(rp->keys[k], p.k[j]);
                if (!varies)
                    rc = rs_cli_strs_add(&rp->common, p.k[j], p.v[j], err);
            }
        rs_cli_strs_release(&p);
        if (rc)
            goto out;
    }
out:
    free(ids);
    return rc;
}

static int is_done(const rep_run *r)
{
    return r->row.status && !strcmp(r->row.status, "done");
}

/* The done run with the highest peak rss/limit (else steady, else peak
 * RSS); NULL when none is done. */
static const rep_run *worst_run(const report *rp)
{
    static const int order[] = { K_OV_PEAK, K_OV_STEADY, K_RSS_PEAK };
    for (size_t o = 0; o < sizeof order / sizeof order[0]; o++) {
        const rep_run *w = NULL;
        for (size_t i = 0; i < rp->nruns; i++) {
            const rep_run *r = &rp->runs[i];
            if (is_done(r) && !isnan(r->m[order[o]]) && (!w || r->m[order[o]] > w->m[order[o]]))
                w = r;
        }
        if (w)
            return w;
    }
    for (size_t i = 0; i < rp->nruns; i++)
        if (is_done(&rp->runs[i]))
            return &rp->runs[i];
    return NULL;
}

/* ---- plots ---- */

/* Copy svg (gnuplot's) into the page from its <svg, every id, #ref and
 * url(#ref) prefixed with p<n>-, and an id the file repeats suffixed -2,
 * -3 ... (only gnuplot's own mouse script would look those up). */
static int inline_svg(report *rp, const char *path, rs_err *err)
{
    FILE *in = fopen(path, "rb");
    if (!in)
        return rs_fail(err, RS_EIO, "cannot read '%s': %s", path, strerror(errno));
    fseek(in, 0, SEEK_END);
    long size = ftell(in);
    fseek(in, 0, SEEK_SET);
    char *buf = size > 0 ? malloc((size_t)size + 1) : NULL;
    if (!buf || fread(buf, 1, (size_t)size, in) != (size_t)size) {
        free(buf);
        fclose(in);
        return rs_fail(err, RS_EIO, "cannot read '%s'", path);
    }
    fclose(in);
    buf[size] = '\0';
    const char *s = strstr(buf, "<svg");
    if (!s) {
        free(buf);
        return rs_fail(err, RS_EINTERNAL, "'%s' is not an SVG image", path);
    }
    static const char *const refs[] = { " id='", " id=\"", "href='#", "href=\"#", "url(#" };
    strs ids = { 0 }; /* the ids so far, to make a repeated one unique */
    int rc = 0;
    char prefix[16];
    snprintf(prefix, sizeof prefix, "p%d-", ++rp->nplots);
    while (*s) {
        size_t r = 0, len = 0;
        for (; r < sizeof refs / sizeof refs[0]; r++)
            if (!strncmp(s, refs[r], len = strlen(refs[r])))
                break;
        if (r < sizeof refs / sizeof refs[0]) {
            fwrite(s, 1, len, rp->f);
            fputs(prefix, rp->f);
            s += len;
            if (r < 2) { /* an id: gnuplot repeats some (gnuplot_plot_1 in the key) */
                size_t n = strcspn(s, "'\"");
                int again = 0;
                for (size_t i = 0; i < ids.n; i++)
                    again += strlen(ids.k[i]) == n && !strncmp(ids.k[i], s, n);
                char name[256];
                snprintf(name, sizeof name, "%.*s", (int)n, s);
                if ((rc = rs_cli_strs_add(&ids, name, NULL, err)))
                    break;
                fwrite(s, 1, n, rp->f);
                if (again)
                    fprintf(rp->f, "-%d", again + 1);
                s += n;
            }
        } else if (!strncmp(s, "<title>Gnuplot</title>", 22)) {
            s += 22; /* the file's name for itself; the figure has a caption */
        } else {
            fputc(*s++, rp->f);
        }
    }
    rs_cli_strs_release(&ids);
    free(buf);
    return rc;
}

/* Draw kind (timeseries, breakdown: of run; overshoot: of sweep) into
 * DIR/plots/NAME.svg and inline it in a figure with caption. */
static int figure(report *rp, const char *kind, int64_t run, int64_t sweep, const char *caption,
                  rs_err *err)
{
    char path[4096];
    if (sweep)
        snprintf(path, sizeof path, "%s/plots/sweep-%" PRId64 "-%s.svg", rp->dir, sweep, kind);
    else
        snprintf(path, sizeof path, "%s/plots/run-%" PRId64 "-%s.svg", rp->dir, run, kind);
    int rc = rs_cli_plot_draw(rp->db, kind, sweep ? NULL : &run, sweep ? 0 : 1, sweep, 0, path, err);
    if (rc)
        return rc;
    fputs("<figure>\n", rp->f);
    if ((rc = inline_svg(rp, path, err)))
        return rc;
    fputs("<figcaption>", rp->f);
    html_text(rp->f, caption);
    fputs("</figcaption>\n</figure>\n", rp->f);
    return 0;
}

/* The timeseries and breakdown of run r, or why there are none. */
static int run_figures(report *rp, const rep_run *r, rs_err *err)
{
    int64_t id = r->row.id;
    int rc;
    if (!is_done(r)) {
        fputs("<p class=\"note\">", rp->f);
        html_printf(rp->f, "Run %" PRId64 " is %s: no samples to plot.", id,
                    r->row.status ? r->row.status : "?");
        if (r->row.error)
            html_printf(rp->f, " Its error: %s", r->row.error);
        fputs("</p>\n", rp->f);
        return 0;
    }
    if ((rc = figure(rp, "timeseries", id, 0,
                     "What the daemon counts (accounted_bytes), the heap pages it holds "
                     "(resident_bytes, dashed over the wide pale rss_bytes where the two are "
                     "equal) and what ps and the OOM killer see (rss_bytes = resident + base) "
                     "against the limit (dashed black), over virtual time.", err)))
        return rc;
    return figure(rp, "breakdown", id, 0,
                  "The same RSS stacked by cause, from the bottom: accounted, untracked "
                  "containers, size-class rounding, allocator caches, metadata, "
                  "free-but-resident pages, base (the key lists them from the top).", err);
}

/* ---- tables ---- */

/* Which key metric columns to show: the optional ones when a run has them. */
static void key_columns(const report *rp, int *r_show)
{
    for (int k = 0; k < K_COUNT; k++) {
        r_show[k] = !key_metrics[k].optional;
        for (size_t i = 0; i < rp->nruns && !r_show[k]; i++)
            r_show[k] = !isnan(rp->runs[i].m[k]);
    }
}

/* Runs (or a sweep's points) as rows: id, point, the differing params,
 * status, the key metrics; the worst run's row highlighted. */
static void metrics_table(report *rp, int sweep, const rep_run *worst)
{
    FILE *f = rp->f;
    int show[K_COUNT];
    const char *unit[K_COUNT];
    double scale[K_COUNT];
    int decimals[K_COUNT];
    char cell[64];

    key_columns(rp, show);
    for (int k = 0; k < K_COUNT; k++) {
        double max = 0;
        for (size_t i = 0; i < rp->nruns; i++)
            if (!isnan(rp->runs[i].m[k]) && fabs(rp->runs[i].m[k]) > max)
                max = fabs(rp->runs[i].m[k]);
        column_unit(key_metrics[k].unit, max, &unit[k], &scale[k]);
        /* one precision per column, so its numbers line up: 2 decimals below 100 */
        decimals[k] = max / scale[k] < 100 ? 2 : 1;
    }
    fputs("<table class=\"metrics\">\n<thead><tr>", f);
    fputs(sweep ? "<th>point</th><th>run</th>" : "<th>run</th>", f);
    for (int k = 0; k < rp->nkeys; k++) {
        fputs("<th>", f);
        html_text(f, rp->keys[k]);
        fputs("</th>", f);
    }
    fputs("<th>status</th>", f);
    for (int k = 0; k < K_COUNT; k++) {
        if (!show[k])
            continue;
        fputs("<th>", f);
        html_text(f, key_metrics[k].head);
        if (unit[k])
            html_printf(f, " (%s)", unit[k]);
        fputs("</th>", f);
    }
    fputs("</tr></thead>\n<tbody>\n", f);
    for (size_t i = 0; i < rp->nruns; i++) {
        const rep_run *r = &rp->runs[i];
        fputs(r == worst ? "<tr class=\"worst\">" : "<tr>", f);
        if (sweep)
            fprintf(f, "<td class=\"n\">%" PRId64 "</td>", r->row.point_index);
        fprintf(f, "<td class=\"n\">%" PRId64 "</td>", r->row.id);
        for (int k = 0; k < rp->nkeys; k++) {
            fputs("<td>", f);
            html_text(f, r->value[k] ? r->value[k] : "-");
            fputs("</td>", f);
        }
        fputs("<td>", f);
        html_text(f, r->row.status);
        fputs("</td>", f);
        for (int k = 0; k < K_COUNT; k++) {
            if (!show[k])
                continue;
            format_cell(cell, sizeof cell, key_metrics[k].unit, r->m[k], scale[k], decimals[k]);
            fprintf(f, "<td class=\"n\">%s</td>", cell);
        }
        fputs("</tr>\n", f);
    }
    fputs("</tbody>\n</table>\n", f);
}

/* The params shared by every run, as a key/value table. */
static void common_params_table(report *rp)
{
    fputs("<table class=\"params\">\n<thead><tr><th>key</th><th>value</th></tr></thead>\n"
          "<tbody>\n", rp->f);
    for (size_t i = 0; i < rp->common.n; i++)
        html_kv(rp->f, rp->common.k[i], rp->common.v[i], 1);
    fputs("</tbody>\n</table>\n", rp->f);
}

/* ---- all metrics of some runs (runs report) ---- */

typedef struct metric_grid {
    strs names;         /* metric names, first seen order */
    double *v;          /* names.cap x stride, NaN when missing */
    size_t stride;      /* the number of runs */
    size_t cap_v;
    size_t col;         /* the run being read */
    int rc;
} metric_grid;

static int grid_metric(void *ctx, int64_t run_id, const char *name, double value, rs_err *err)
{
    metric_grid *g = ctx;
    size_t i = 0;
    (void)run_id;
    while (i < g->names.n && strcmp(g->names.k[i], name))
        i++;
    if (i == g->names.n) {
        int rc = rs_cli_strs_add(&g->names, name, NULL, err);
        if (rc)
            return rc;
        if (g->names.n > g->cap_v) {
            size_t ncap = g->names.cap;
            double *nv = realloc(g->v, ncap * g->stride * sizeof *nv);
            if (!nv)
                return rs_fail(err, RS_ENOMEM, "out of memory");
            for (size_t j = g->cap_v * g->stride; j < ncap * g->stride; j++)
                nv[j] = NAN;
            g->v = nv;
            g->cap_v = ncap;
        }
    }
    g->v[i * g->stride + g->col] = value;
    return 0;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(**(char *const *const *)a, **(char *const *const *)b);
}

/* Every metric of every run: a row per name (sorted), a column per run. */
static int all_metrics_table(report *rp, rs_err *err)
{
    metric_grid g = { .stride = rp->nruns };
    char cell[64];
    int rc = 0;

    for (size_t c = 0; c < rp->nruns && !rc; c++) {
        g.col = c;
        rc = rs_query_metrics(rp->st, &(rs_query_scope){ .run_id = rp->runs[c].row.id },
                              grid_metric, &g, err);
    }
    if (rc || g.names.n == 0)
        goto out;
    size_t n = g.names.n;
    char ***order = malloc(n * sizeof *order);
    if (!order) {
        rc = rs_fail(err, RS_ENOMEM, "out of memory");
        goto out;
    }
    for (size_t i = 0; i < n; i++)
        order[i] = &g.names.k[i];
    qsort(order, n, sizeof *order, by_name);
    fputs("<table class=\"metrics\">\n<thead><tr><th>metric</th>", rp->f);
    for (size_t c = 0; c < rp->nruns; c++)
        fprintf(rp->f, "<th>run %" PRId64 "</th>", rp->runs[c].row.id);
    fputs("</tr></thead>\n<tbody>\n", rp->f);
    for (size_t o = 0; o < n; o++) {
        size_t i = (size_t)(order[o] - g.names.k);
        fputs("<tr><th scope=\"row\">", rp->f);
        html_text(rp->f, g.names.k[i]);
        fputs("</th>", rp->f);
        for (size_t c = 0; c < rp->nruns; c++) {
            format_metric(cell, sizeof cell, g.names.k[i], g.v[i * g.stride + c]);
            fputs("<td class=\"n\">", rp->f);
            html_text(rp->f, cell);
            fputs("</td>", rp->f);
        }
        fputs("</tr>\n", rp->f);
    }
    fputs("</tbody>\n</table>\n", rp->f);
    free(order);
out:
    rs_cli_strs_release(&g.names);
    free(g.v);
    return rc;
}

/* ---- the page ---- */

/* "2026-12-01T16:30:00Z": now, or SOURCE_DATE_EPOCH when set. */
static void created_at(char *buf, size_t cap)
{
    const char *sde = getenv("SOURCE_DATE_EPOCH");
    char *end;
    time_t t = time(NULL);
    if (sde && *sde) {
        long long v = strtoll(sde, &end, 10);
        if (*end == '\0' && v >= 0)
            t = (time_t)v;
    }
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(buf, cap, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

static void page_begin(report *rp, const char *title)
{
    fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
          "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
          "<link rel=\"icon\" href=\"data:,\">\n<title>", rp->f);
    html_text(rp->f, title);
    fprintf(rp->f, "</title>\n<style>\n%s</style>\n</head>\n<body>\n<main>\n<h1>", page_style);
    html_text(rp->f, title);
    fputs("</h1>\n", rp->f);
}

static void page_end(report *rp, int argc, char **argv)
{
    char when[32];
    created_at(when, sizeof when);
    fputs("<footer>Made by rssim ", rp->f);
    html_text(rp->f, RSSIM_VERSION);
    fputs(" on ", rp->f);
    html_text(rp->f, when);
    fputs(" with <code>rssim", rp->f);
    for (int i = 0; i < argc; i++) {
        fputc(' ', rp->f);
        html_text(rp->f, argv[i]);
    }
    fputs("</code>.  The plots' data and SVG files are in <code>plots/</code> beside this page; "
          "the page itself needs none of them.</footer>\n</main>\n</body>\n</html>\n", rp->f);
}

/* The identity rows every page starts with. */
static void identity_common(report *rp)
{
    char when[32];
    created_at(when, sizeof when);
    html_kv(rp->f, "report made", when, 0);
    html_kv(rp->f, "rssim (report)", RSSIM_VERSION, 0);
    html_kv(rp->f, "database", rp->db, 1);
}

/* The rssim versions that wrote the runs, "0.1.0" or "0.1.0, 0.2.0". */
static void run_versions(const report *rp, char *buf, size_t cap)
{
    size_t len = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < rp->nruns; i++) {
        const char *v = rp->runs[i].row.version;
        int seen = 0;
        for (size_t j = 0; j < i && v; j++)
            seen |= rp->runs[j].row.version && !strcmp(rp->runs[j].row.version, v);
        if (v && !seen && len < cap)
            len += (size_t)snprintf(buf + len, cap - len, "%s%s", len ? ", " : "", v);
    }
}

typedef struct id_vec {
    int64_t *ids;
    size_t n, cap;
} id_vec;

static int id_add(void *ctx, const rs_query_run *run, const double *metrics,
                  const char *const *params, rs_err *err)
{
    id_vec *v = ctx;
    (void)metrics;
    (void)params;
    if (v->n == v->cap) {
        size_t ncap = v->cap ? 2 * v->cap : 64;
        int64_t *ni = realloc(v->ids, ncap * sizeof *ni);
        if (!ni)
            return rs_fail(err, RS_ENOMEM, "out of memory");
        v->ids = ni;
        v->cap = ncap;
    }
    v->ids[v->n++] = run->id;
    return 0;
}

/* "12 done, 1 failed, 3 pending" of the page's runs. */
static void status_counts(const report *rp, char *buf, size_t cap)
{
    static const char *const statuses[] = { "done", "failed", "running", "pending" };
    size_t len = 0;
    buf[0] = '\0';
    for (size_t s = 0; s < sizeof statuses / sizeof statuses[0]; s++) {
        size_t n = 0;
        for (size_t i = 0; i < rp->nruns; i++)
            n += rp->runs[i].row.status && !strcmp(rp->runs[i].row.status, statuses[s]);
        if ((n || s == 0) && len < cap)
            len += (size_t)snprintf(buf + len, cap - len, "%s%zu %s", len ? ", " : "", n,
                                    statuses[s]);
    }
}

/* "run 7 (kv_cache_limit=256K trim_interval=200ms)" */
static void run_name(const rep_run *r, char *buf, size_t cap)
{
    int labelled = r->row.label && *r->row.label;
    snprintf(buf, cap, "run %" PRId64 "%s%s%s", r->row.id, labelled ? " (" : "",
             labelled ? r->row.label : "", labelled ? ")" : "");
}

/* One sentence on the worst run (what: "Worst point"; NULL: the page's only
 * run): its peak and steady RSS against the limit. */
static void worst_sentence(report *rp, const rep_run *w, const char *what)
{
    char name[512], peak[64], steady[64], limit[64];
    int has_peak = !isnan(w->m[K_RSS_PEAK]), has_steady = !isnan(w->m[K_RSS_STEADY]);
    run_name(w, name, sizeof name);
    format_metric(peak, sizeof peak, "rss_peak_bytes", w->m[K_RSS_PEAK]);
    format_metric(steady, sizeof steady, "rss_steady_bytes", w->m[K_RSS_STEADY]);
    format_metric(limit, sizeof limit, "limit_bytes", w->m[K_LIMIT]);
    if (what)
        html_printf(rp->f, "%s: %s", what, name);
    else /* the page's only run */
        html_printf(rp->f, "R%s", name + 1);
    if (has_peak) {
        html_printf(rp->f, ", RSS peaks at %s", peak);
        if (!isnan(w->m[K_OV_PEAK]) && !isnan(w->m[K_LIMIT]))
            html_printf(rp->f, " (%.2f × its limit of %s)", w->m[K_OV_PEAK], limit);
    }
    if (has_steady) {
        html_printf(rp->f, "%s %s in steady state", has_peak ? " and holds" : ", RSS holds",
                    steady);
        if (!isnan(w->m[K_OV_STEADY]))
            html_printf(rp->f, " (%.2f × the limit)", w->m[K_OV_STEADY]);
    }
    fputs(".", rp->f);
}

static int sweep_page(report *rp, int64_t sweep_id, int argc, char **argv, rs_err *err)
{
    FILE *f = rp->f;
    rs_query_sweep sw;
    id_vec v = { 0 };
    char title[512], buf[512];
    int rc;

    if ((rc = rs_query_sweep_get(rp->st, sweep_id, &sw, err)))
        return rc;
    if ((rc = rs_query_runs(rp->st, &(rs_query_runs_filter){ .sweep_id = sweep_id }, id_add, &v,
                            err)))
        goto out;
    for (size_t i = 0; i < v.n && !rc; i++)
        rc = report_add_run(rp, v.ids[i], err);
    if (rc || (rc = report_params(rp, sw.varied_keys, err)))
        goto out;
    const rep_run *worst = worst_run(rp);
    if (!worst) {
        rc = rs_fail(err, RS_EINPUT, "sweep %" PRId64 " in '%s' has no done runs: nothing to "
                     "report", sweep_id, rp->db);
        goto out;
    }

    snprintf(title, sizeof title, "rssim report: sweep %" PRId64 " (%s)", sweep_id,
             sw.preset ? sw.preset : "no preset");
    page_begin(rp, title);
    status_counts(rp, buf, sizeof buf);
    fputs("<p class=\"lede\">", f);
    html_printf(f, "%zu points (%s), varying ", rp->nruns, buf);
    for (int k = 0; k < rp->nkeys; k++)
        html_printf(f, "%s%s", k ? (k == rp->nkeys - 1 ? " and " : ", ") : "", rp->keys[k]);
    html_printf(f, "%s. ", rp->nkeys ? "" : "nothing");
    worst_sentence(rp, worst, "Worst point");
    fputs("</p>\n", f);

    fputs("<h2>Identity</h2>\n<table class=\"kv\">\n<tbody>\n", f);
    identity_common(rp);
    snprintf(buf, sizeof buf, "%" PRId64, sweep_id);
    html_kv(f, "sweep", buf, 0);
    html_kv(f, "sweep created", sw.created_at, 0);
    html_kv(f, "preset", sw.preset, 1);
    html_kv(f, "trace path", sw.trace_path, 1);
    html_kv(f, "trace sha256", sw.trace_sha256, 1);
    html_kv(f, "spec", sw.spec, 1);
    html_kv(f, "varied keys", sw.varied_keys, 1);
    snprintf(buf, sizeof buf, "%" PRId64 " (run %" PRId64 " to %" PRId64 ")", sw.points,
             rp->runs[0].row.id, rp->runs[rp->nruns - 1].row.id);
    html_kv(f, "points", buf, 0);
    snprintf(buf, sizeof buf, "%" PRIu64, rp->runs[0].row.seed);
    html_kv(f, "seed (point 0)", buf, 0);
    run_versions(rp, buf, sizeof buf);
    html_kv(f, "runs written by rssim", buf, 0);
    fputs("</tbody>\n</table>\n", f);

    fputs("<h2>Overshoot</h2>\n", f);
    if ((rc = figure(rp, "overshoot", 0, sweep_id,
                     "Steady rss/limit (filled) and peak (open circles) against the cache limit "
                     "(or, when no varied key is the limit, against the first varied key), one "
                     "series per value of the other varied keys; dashed or +: (1−x)⁻¹ from each "
                     "run's measured x. Where the steady point sits above it, the rest is "
                     "trim lag. A diamond: a cache that never reached 85 % of its limit (its "
                     "rss/limit is no overshoot).", err)))
        goto out;

    fputs("<h2>Points</h2>\n", f);
    metrics_table(rp, 1, worst);
    fputs("<p>Steady: from <code>steady_from_ns</code> to the end of the run; overshoot = "
          "rss/limit; x = 1 − accounted/rss. Highlighted: the worst point (highest peak "
          "rss/limit).</p>\n", f);
    for (size_t i = 0; i < rp->nruns; i++) {
        const rep_run *r = &rp->runs[i];
        if (is_done(r))
            continue;
        fputs("<p class=\"note\">", f);
        html_printf(f, "Point %" PRId64 " (run %" PRId64 ") is %s%s%s", r->row.point_index,
                    r->row.id, r->row.status ? r->row.status : "?", r->row.error ? ": " : ".",
                    r->row.error ? r->row.error : "");
        fputs("</p>\n", f);
    }

    fputs("<h2>Worst point: ", f);
    run_name(worst, buf, sizeof buf);
    html_text(f, buf);
    fputs("</h2>\n", f);
    if ((rc = run_figures(rp, worst, err)))
        goto out;

    fputs("<h2>Parameters</h2>\n<p>Every point ran with these values; each point's values of "
          "the varied keys are in the points table.</p>\n", f);
    common_params_table(rp);
    page_end(rp, argc, argv);
out:
    free(v.ids);
    rs_query_sweep_release(&sw);
    return rc;
}

/* A row of the runs' identity table: name, then one cell per run. */
static void identity_row(report *rp, const char *name, const char *const *cells, int code)
{
    fputs("<tr><th scope=\"row\">", rp->f);
    html_text(rp->f, name);
    fputs("</th>", rp->f);
    for (size_t i = 0; i < rp->nruns; i++) {
        fputs(code && cells[i] ? "<td><code>" : "<td>", rp->f);
        html_text(rp->f, cells[i] ? cells[i] : "-");
        fputs(code && cells[i] ? "</code></td>" : "</td>", rp->f);
    }
    fputs("</tr>\n", rp->f);
}

static int runs_page(report *rp, const int64_t *ids, size_t n, int argc, char **argv, rs_err *err)
{
    FILE *f = rp->f;
    char title[512], buf[512];
    int rc = 0;

    for (size_t i = 0; i < n && !rc; i++)
        rc = report_add_run(rp, ids[i], err);
    if (rc || (rc = report_params(rp, NULL, err)))
        return rc;
    const char **cells = calloc(rp->nruns, sizeof *cells);
    char (*num)[32] = calloc(rp->nruns, sizeof *num);
    if (!cells || !num) {
        rc = rs_fail(err, RS_ENOMEM, "out of memory");
        goto out;
    }

    size_t len = (size_t)snprintf(title, sizeof title, "rssim report: run%s", n > 1 ? "s" : "");
    for (size_t i = 0; i < n && len < sizeof title; i++)
        len += (size_t)snprintf(title + len, sizeof title - len, "%s %" PRId64, i ? "," : "",
                                ids[i]);
    page_begin(rp, title);
    status_counts(rp, buf, sizeof buf);
    fputs("<p class=\"lede\">", f);
    html_printf(f, "%zu run%s (%s). ", n, n > 1 ? "s" : "", buf);
    const rep_run *worst = worst_run(rp);
    if (worst)
        worst_sentence(rp, worst, n > 1 ? "Worst" : NULL);
    fputs("</p>\n", f);

    fputs("<h2>Identity</h2>\n<table class=\"kv\">\n<tbody>\n", f);
    identity_common(rp);
    fputs("</tbody>\n</table>\n<table class=\"kv\">\n<thead><tr><th></th>", f);
    for (size_t i = 0; i < rp->nruns; i++)
        fprintf(f, "<th>run %" PRId64 "</th>", rp->runs[i].row.id);
    fputs("</tr></thead>\n<tbody>\n", f);
#define ROW(name, field, code)                                                          \
    do {                                                                                \
        for (size_t i = 0; i < rp->nruns; i++)                                          \
            cells[i] = rp->runs[i].row.field;                                           \
        identity_row(rp, name, cells, code);                                            \
    } while (0)
    ROW("status", status, 0);
    ROW("kind", kind, 0);
    ROW("label", label, 0);
    ROW("preset", preset, 1);
    ROW("trace path", trace_path, 1);
    ROW("trace sha256", trace_sha256, 1);
    for (size_t i = 0; i < rp->nruns; i++) {
        snprintf(num[i], sizeof num[i], "%" PRIu64, rp->runs[i].row.seed);
        cells[i] = num[i];
    }
    identity_row(rp, "seed", cells, 0);
    for (size_t i = 0; i < rp->nruns; i++) {
        const rs_query_run *r = &rp->runs[i].row;
        if (r->has_sweep_id)
            snprintf(num[i], sizeof num[i], "%" PRId64 " / %" PRId64, r->sweep_id, r->point_index);
        cells[i] = r->has_sweep_id ? num[i] : NULL;
    }
    identity_row(rp, "sweep / point", cells, 0);
    ROW("param hash", param_hash, 1);
    ROW("written by rssim", version, 0);
    ROW("created", created_at, 0);
    ROW("finished", finished_at, 0);
    for (size_t i = 0; i < rp->nruns; i++) {
        const rs_query_run *r = &rp->runs[i].row;
        if (r->has_events)
            snprintf(num[i], sizeof num[i], "%" PRId64, r->events);
        cells[i] = r->has_events ? num[i] : NULL;
    }
    identity_row(rp, "trace records", cells, 0);
    for (size_t i = 0; i < rp->nruns; i++) {
        const rs_query_run *r = &rp->runs[i].row;
        if (r->has_wall_ns)
            snprintf(num[i], sizeof num[i], "%.3f s", (double)r->wall_ns / 1e9);
        cells[i] = r->has_wall_ns ? num[i] : NULL;
    }
    identity_row(rp, "simulation wall time", cells, 0);
    ROW("error", error, 0);
#undef ROW
    fputs("</tbody>\n</table>\n", f);

    fputs("<h2>Metrics</h2>\n", f);
    metrics_table(rp, 0, n > 1 ? worst : NULL);
    if (rp->nkeys)
        fputs("<p>The parameter columns are those whose value differs among the runs; the "
              "others are under Parameters.</p>\n", f);

    for (size_t i = 0; i < rp->nruns; i++) {
        fputs("<h2>", f);
        run_name(&rp->runs[i], buf, sizeof buf);
        html_text(f, buf);
        fputs("</h2>\n", f);
        if ((rc = run_figures(rp, &rp->runs[i], err)))
            goto out;
    }

    fputs("<h2>All metrics</h2>\n", f);
    if ((rc = all_metrics_table(rp, err)))
        goto out;

    fputs("<h2>Parameters</h2>\n", f);
    fputs(rp->nruns > 1 ? "<p>Every run ran with these values; the values that differ are in "
                          "the metrics table.</p>\n"
                        : "<p>The run's full resolved configuration.</p>\n", f);
    common_params_table(rp);
    page_end(rp, argc, argv);
out:
    free(cells);
    free(num);
    return rc;
}

/* One evaluation of a plan, for its table. */
typedef struct plan_eval {
    int64_t run_id, limit_bytes;
    uint64_t seed;
    int reused;
    uint32_t sample_k;
} plan_eval;

typedef struct plan_evals {
    plan_eval *v;
    size_t n, cap;
} plan_evals;

static int plan_eval_add(void *ctx, int64_t run_id, uint64_t seed, int64_t limit_bytes,
                         int reused, uint32_t sample_k, rs_err *err)
{
    plan_evals *e = ctx;
    if (e->n == e->cap) {
        size_t cap = e->cap ? 2 * e->cap : 32;
        plan_eval *p = realloc(e->v, cap * sizeof *p);
        if (!p)
            return rs_fail(err, RS_ENOMEM, "out of memory for a plan's evaluations");
        e->v = p;
        e->cap = cap;
    }
    e->v[e->n++] = (plan_eval){ .run_id = run_id, .limit_bytes = limit_bytes, .seed = seed,
                                .reused = reused, .sample_k = sample_k };
    return 0;
}

/* A plan of `rssim plan`: its question and verdict, the capacity plot, and
 * every evaluation (each a stored run) with its predicted RSS. */
static int plan_page(report *rp, int64_t plan_id, int argc, char **argv, rs_err *err)
{
    FILE *f = rp->f;
    rs_query_plan pl;
    plan_evals ev = { 0 };
    char title[512], buf[512];
    int has = 0, rc;

    if ((rc = rs_query_has_plans(rp->st, &has, err)))
        return rc;
    if (!has)
        return rs_fail(err, RS_EINPUT, "this database has no plans: '%s' (rssim plan makes "
                       "them)", rp->db);
    if ((rc = rs_query_plan_get(rp->st, plan_id, &pl, err)))
        return rc;
    if ((rc = rs_query_plan_evals(rp->st, plan_id, plan_eval_add, &ev, err)))
        goto out;
    snprintf(title, sizeof title, "rssim report: plan %" PRId64 " (%s)", plan_id,
             pl.preset ? pl.preset : "no preset");
    page_begin(rp, title);
    fputs("<p class=\"lede\">", f);
    html_text(f, pl.verdict ? pl.verdict : "(no verdict: the plan did not finish)");
    fputs("</p>\n", f);

    fputs("<h2>The question</h2>\n<table class=\"kv\">\n<tbody>\n", f);
    identity_common(rp);
    snprintf(buf, sizeof buf, "%" PRId64, plan_id);
    html_kv(f, "plan", buf, 0);
    html_kv(f, "created", pl.created_at, 0);
    html_kv(f, "status", pl.status, 0);
    html_kv(f, "preset", pl.preset, 1);
    html_kv(f, "workload", pl.workload, 1);
    format_metric(buf, sizeof buf, "ram_bytes", (double)pl.ram_bytes);
    html_kv(f, "node RAM", buf, 0);
    snprintf(buf, sizeof buf, "%" PRId64, pl.daemons);
    html_kv(f, "daemons", buf, 0);
    snprintf(buf, sizeof buf, "%.0f %%", 100 * pl.headroom);
    html_kv(f, "headroom", buf, 0);
    html_kv(f, "quantile", pl.quantile, 0);
    snprintf(buf, sizeof buf, "%" PRId64, pl.seeds);
    html_kv(f, "seeds", buf, 0);
    html_kv(f, "limit key", pl.limit_key, 1);
    html_kv(f, "outcome", pl.outcome, 0);
    if (pl.limit_bytes > 0) {
        format_metric(buf, sizeof buf, "limit_bytes", (double)pl.limit_bytes);
        html_kv(f, "largest safe limit", buf, 0);
    }
    fputs("</tbody>\n</table>\n", f);

    fputs("<h2>Capacity</h2>\n", f);
    char path[4096];
    snprintf(path, sizeof path, "%s/plots/plan-%" PRId64 "-capacity.svg", rp->dir, plan_id);
    if (ev.n && !strcmp(pl.status ? pl.status : "", "done")) {
        if ((rc = rs_cli_plot_draw(rp->db, "capacity", NULL, 0, 0, plan_id, path, err)))
            goto out;
        fputs("<figure>\n", f);
        if ((rc = inline_svg(rp, path, err)))
            goto out;
        fputs("<figcaption>", f);
        html_text(f, "Predicted RSS per daemon against the limit (bands over the seeds: p50, "
                     "p99, peak), the node's RAM divided by the daemons, the budget after "
                     "headroom, the safe region shaded, the rule of thumb where there is one, "
                     "and the chosen limit.");
        fputs("</figcaption>\n</figure>\n", f);
    } else {
        fputs("<p>No plot: the plan has no finished evaluations.</p>\n", f);
    }

    fputs("<h2>Evaluations</h2>\n<p>Each is a stored run; a reused one existed before the "
          "plan asked for it; a sampled one (1/K of the directories, scaled) is a coarse "
          "search's when the answer's runs are not sampled.</p>\n<table>\n<thead><tr>"
          "<th>limit</th><th>seed</th><th>run</th><th>reused</th><th>sampled</th>"
          "<th>steady RSS</th><th>peak RSS</th></tr></thead>\n<tbody>\n", f);
    for (size_t i = 0; i < ev.n && !rc; i++) {
        double steady = NAN, peak = NAN;
        int found;
        char lim[64], st[64], pk[64];
        if ((rc = rs_query_metric(rp->st, ev.v[i].run_id, "rss_steady_bytes", &steady, &found,
                                  err)) ||
            (rc = rs_query_metric(rp->st, ev.v[i].run_id, "rss_peak_bytes", &peak, &found, err)))
            break;
        format_metric(lim, sizeof lim, "limit_bytes", (double)ev.v[i].limit_bytes);
        format_metric(st, sizeof st, "rss_steady_bytes", steady);
        format_metric(pk, sizeof pk, "rss_peak_bytes", peak);
        /* numbers and fixed words only: nothing to escape */
        char smp[32] = "no";
        if (ev.v[i].sample_k > 1)
            snprintf(smp, sizeof smp, "1/%u", ev.v[i].sample_k);
        fprintf(f, "<tr><td class=\"num\">%s</td><td class=\"num\">%" PRIu64 "</td>"
                    "<td class=\"num\">%" PRId64 "</td><td>%s</td><td>%s</td>"
                    "<td class=\"num\">%s</td><td class=\"num\">%s</td></tr>\n", lim,
                    ev.v[i].seed, ev.v[i].run_id, ev.v[i].reused ? "yes" : "no", smp, st, pk);
    }
    fputs("</tbody>\n</table>\n", f);
    if (!rc)
        page_end(rp, argc, argv);
out:
    free(ev.v);
    rs_query_plan_release(&pl);
    return rc;
}

static void usage(FILE *f)
{
    fprintf(f,
            "usage: rssim report (--sweep ID | --run ID [--run ID ...] | --plan ID)\n"
            "                    [--db PATH] [-o DIR]\n\n"
            "Write one self-contained HTML page, DIR/index.html, to attach to a ticket: the\n"
            "identity of what it shows (trace path and sha256, preset, seeds, rssim\n"
            "versions, when), the exact parameters, a table of the key metrics and inline\n"
            "SVG plots (gnuplot).  A sweep: the overshoot plot, a row per point, and the\n"
            "timeseries and breakdown of the worst point (highest peak rss/limit).  Runs:\n"
            "the timeseries and breakdown of each, and all their metrics.  The plots' data\n"
            "and SVG files go to DIR/plots/; the page needs none of them.\n\n"
            "      --sweep ID    a sweep\n"
            "      --run ID      a run (repeat for up to %d)\n"
            "      --plan ID     a plan (rssim plan), when the database has plans\n"
            "      --db PATH     SQLite database (default %s)\n"
            "  -o, --output DIR  the page's folder (default out/report; created)\n"
            "  -h, --help        this help\n\n"
            "env: SOURCE_DATE_EPOCH (the page's creation time), RSSIM_GNUPLOT, RSSIM_SCRIPTS\n",
            MAX_RUNS, rs_cli_default_db());
}

int cmd_report(int argc, char **argv)
{
    static const struct option opts[] = {
        { "run", required_argument, NULL, 'r' },  { "sweep", required_argument, NULL, 'w' },
        { "plan", required_argument, NULL, 'p' }, { "db", required_argument, NULL, 'd' },
        { "output", required_argument, NULL, 'o' }, { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    const char *db = rs_cli_default_db(), *dir = "out/report";
    int64_t runs[MAX_RUNS], sweep = 0, plan = 0, id;
    size_t nruns = 0;
    int c;

    optind = 1;
    while ((c = getopt_long(argc, argv, "o:h", opts, NULL)) != -1) {
        switch (c) {
        case 'r':
            if (!(id = rs_cli_parse_id(optarg)))
                return rs_cli_usage_error("report", "bad run id '%s'", optarg);
            if (nruns == MAX_RUNS)
                return rs_cli_usage_error("report", "at most %d --run", MAX_RUNS);
            runs[nruns++] = id;
            break;
        case 'w':
            if (!(sweep = rs_cli_parse_id(optarg)))
                return rs_cli_usage_error("report", "bad sweep id '%s'", optarg);
            break;
        case 'p':
            if (!(plan = rs_cli_parse_id(optarg)))
                return rs_cli_usage_error("report", "bad plan id '%s'", optarg);
            break;
        case 'd': db = optarg; break;
        case 'o': dir = optarg; break;
        case 'h': usage(stdout); return 0;
        default: usage(stderr); return 2;
        }
    }
    if (optind != argc)
        return rs_cli_usage_error("report", "unexpected argument '%s'", argv[optind]);
    if ((nruns > 0) + (sweep > 0) + (plan > 0) != 1)
        return rs_cli_usage_error("report", "give one of --sweep ID, --run ID ... and --plan ID");
    for (size_t i = 0; i < nruns; i++)
        for (size_t j = 0; j < i; j++)
            if (runs[i] == runs[j])
                return rs_cli_usage_error("report", "run %" PRId64 " given twice", runs[i]);

    /* the folder without trailing slashes ("out/report/" -> "out/report") */
    char dirbuf[4096], page[4096 + 32], tmp[4096 + 32];
    size_t dlen = strlen(dir);
    while (dlen > 1 && dir[dlen - 1] == '/')
        dlen--;
    if (dlen == 0 || dlen >= sizeof dirbuf - 32)
        return rs_cli_usage_error("report", "bad output folder '%s'", dir);
    memcpy(dirbuf, dir, dlen);
    dirbuf[dlen] = '\0';
    snprintf(page, sizeof page, "%s/index.html", dirbuf);
    snprintf(tmp, sizeof tmp, "%s/.index.html.tmp", dirbuf);

    rs_err err = { 0 };
    report rp = { .db = db, .dir = dirbuf };
    int rc;

    if ((rc = rs_store_open_ro(&rp.st, db, &err)))
        goto done;
    if ((rc = rs_cli_mkdir_parent(page, &err)))
        goto done;
    if (!(rp.f = fopen(tmp, "w"))) {
        rc = rs_fail(&err, RS_EIO, "cannot write '%s': %s", tmp, strerror(errno));
        goto done;
    }
    rc = plan    ? plan_page(&rp, plan, argc, argv, &err)
         : sweep ? sweep_page(&rp, sweep, argc, argv, &err)
                 : runs_page(&rp, runs, nruns, argc, argv, &err);
    int bad = ferror(rp.f);
    if (fclose(rp.f) != 0 || bad) {
        if (!rc)
            rc = rs_fail(&err, RS_EIO, "cannot write '%s': %s", tmp, strerror(errno));
    }
    rp.f = NULL;
    if (!rc && rename(tmp, page) != 0)
        rc = rs_fail(&err, RS_EIO, "cannot write '%s': %s", page, strerror(errno));
    if (rc)
        unlink(tmp);
done:
    report_release(&rp);
    if (rc)
        return rs_cli_report(&err);
    printf("wrote %s (%d plot%s inline)\n", page, rp.nplots, rp.nplots == 1 ? "" : "s");
    return 0;
}
