/*
 * cmd_compare.c — `rssim compare`: two runs, or two sweeps point by point,
 * side by side with the change of each key metric (hyperfine-style).
 *
 * The metrics: steady and peak RSS, steady and peak overshoot (rss/limit),
 * x (the untracked share), trims, and for the osd IOPS and op latency p50
 * and p99 — each shown when either side has it.  The change is B against
 * A, (B − A) / A in percent with its sign ("+12.3 %"); "n/a" when A is 0
 * (or a side lacks the metric).  Two sweeps are matched point by point by
 * their values of the varied keys (both must vary the same keys); points of
 * one without a match in the other are listed.  Besides the values, the
 * output names the params that differ between A and B (for sweeps, between
 * the first matched pair), which is usually the point of comparing.
 *
 * Formats: text (aligned columns, sizes in KiB/MiB/GiB — GiB from 10 GiB,
 * one unit per row), markdown (one table), json (jansson; raw values:
 * bytes, ns, ratios; null when missing).
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../query.h"
#include "../store.h"
#include "cli.h"

#define MAX_KEYS 16

enum { C_RSS_STEADY, C_RSS_PEAK, C_OV_STEADY, C_OV_PEAK, C_X, C_TRIMS, C_MISS, C_IOPS, C_P50,
       C_P99, C_COUNT };

typedef enum { U_BYTES, U_RATIO, U_COUNT, U_NS } unit_kind;

static const struct {
    const char *name, *head;
    unit_kind unit;
} cmp_metrics[C_COUNT] = {
    [C_RSS_STEADY] = { "rss_steady_bytes", "steady RSS", U_BYTES },
    [C_RSS_PEAK] = { "rss_peak_bytes", "peak RSS", U_BYTES },
    [C_OV_STEADY] = { "overshoot_steady", "overshoot steady", U_RATIO },
    [C_OV_PEAK] = { "overshoot_max", "overshoot peak", U_RATIO },
    [C_X] = { "x_steady", "x steady", U_RATIO },
    [C_TRIMS] = { "trims_count", "trims", U_COUNT },
    [C_MISS] = { "miss_ratio", "miss ratio", U_RATIO },
    [C_IOPS] = { "iops", "IOPS", U_COUNT },
    [C_P50] = { "latency_p50_ns", "latency p50", U_NS },
    [C_P99] = { "latency_p99_ns", "latency p99", U_NS },
};

/* One compared pair: two runs, with their point's key values (sweeps). */
typedef struct cmp_row {
    char *point;            /* "k=v k=v" (sweeps) or NULL */
    int64_t a, b;           /* run ids; 0 on the side without a match */
    double ma[C_COUNT], mb[C_COUNT];
} cmp_row;

typedef struct cmp_diff {
    char *key, *a, *b;      /* a param that differs; a or b NULL when missing */
} cmp_diff;

typedef struct compare {
    rs_store *st;
    int sweeps;             /* 1: two sweeps, 0: two runs */
    int64_t id_a, id_b;
    cmp_row *rows;
    size_t nrows, cap;
    cmp_diff *diffs;
    size_t ndiffs, cap_diffs;
    int shown[C_COUNT];     /* a side of some row has the metric */
} compare;

static void compare_release(compare *c)
{
    for (size_t i = 0; i < c->nrows; i++)
        free(c->rows[i].point);
    free(c->rows);
    for (size_t i = 0; i < c->ndiffs; i++) {
        free(c->diffs[i].key);
        free(c->diffs[i].a);
        free(c->diffs[i].b);
    }
    free(c->diffs);
    rs_store_close(c->st);
}

static cmp_row *row_new(compare *c, rs_err *err)
{
    if (c->nrows == c->cap) {
        size_t ncap = c->cap ? 2 * c->cap : 16;
        cmp_row *nr = realloc(c->rows, ncap * sizeof *nr);
        if (!nr) {
            rs_fail(err, RS_ENOMEM, "out of memory");
            return NULL;
        }
        c->rows = nr;
        c->cap = ncap;
    }
    cmp_row *r = &c->rows[c->nrows++];
    memset(r, 0, sizeof *r);
    for (int m = 0; m < C_COUNT; m++)
        r->ma[m] = r->mb[m] = NAN;
    return r;
}

/* The key metrics of run id into m (NaN when missing). */
static int run_metrics(compare *c, int64_t id, double *m, rs_err *err)
{
    for (int k = 0; k < C_COUNT; k++) {
        int found = 0, rc;
        if ((rc = rs_query_metric(c->st, id, cmp_metrics[k].name, &m[k], &found, err)))
            return rc;
        if (!found)
            m[k] = NAN;
        c->shown[k] |= !isnan(m[k]);
    }
    return 0;
}

/* ---- the params that differ between two runs ---- */

static char *dup_or_null(const char *s)
{
    return s ? strdup(s) : NULL;
}

static int diffs_read(compare *c, int64_t a, int64_t b, rs_err *err)
{
    const int64_t ids[2] = { a, b };
    rs_cli_strs keys = { 0 }, pa = { 0 }, pb = { 0 };
    int rc;

    if ((rc = rs_query_params_varying(c->st, ids, 2, rs_cli_strs_param, &keys, err)) ||
        (rc = rs_query_params(c->st, a, rs_cli_strs_param, &pa, err)) ||
        (rc = rs_query_params(c->st, b, rs_cli_strs_param, &pb, err)))
        goto out;
    if (!(c->diffs = calloc(keys.n ? keys.n : 1, sizeof *c->diffs))) {
        rc = rs_fail(err, RS_ENOMEM, "out of memory");
        goto out;
    }
    for (size_t i = 0; i < keys.n; i++) {
        cmp_diff *d = &c->diffs[c->ndiffs++];
        d->key = strdup(keys.k[i]);
        d->a = dup_or_null(rs_cli_strs_get(&pa, keys.k[i]));
        d->b = dup_or_null(rs_cli_strs_get(&pb, keys.k[i]));
    }
out:
    rs_cli_strs_release(&keys);
    rs_cli_strs_release(&pa);
    rs_cli_strs_release(&pb);
    return rc;
}

/* ---- two runs ---- */

static int runs_read(compare *c, rs_err *err)
{
    char status[16];
    int rc;
    const int64_t ids[2] = { c->id_a, c->id_b };
    for (int i = 0; i < 2; i++) {
        if ((rc = rs_store_run_status(c->st, ids[i], status, err)))
            return rc;
        if (strcmp(status, "done") != 0)
            return rs_fail(err, RS_EINPUT, "run %" PRId64 " in '%s' is %s, not done: nothing to "
                           "compare", ids[i], rs_store_path(c->st), status);
    }
    cmp_row *r = row_new(c, err);
    if (!r)
        return RS_ENOMEM;
    r->a = c->id_a;
    r->b = c->id_b;
    if ((rc = run_metrics(c, r->a, r->ma, err)) || (rc = run_metrics(c, r->b, r->mb, err)))
        return rc;
    return diffs_read(c, r->a, r->b, err);
}

/* ---- two sweeps ---- */

typedef struct sweep_pts {
    int64_t *ids;
    char **point;   /* "k=v k=v" in the keys' order */
    size_t n, cap;
    char *const *keys;
    int nkeys;
} sweep_pts;

static int sweep_pt(void *ctx, const rs_query_run *run, const double *metrics,
                    const char *const *params, rs_err *err)
{
    sweep_pts *p = ctx;
    char buf[2048];
    size_t len = 0;
    (void)metrics;
    if (p->n == p->cap) {
        size_t ncap = p->cap ? 2 * p->cap : 32;
        int64_t *ni = realloc(p->ids, ncap * sizeof *ni);
        if (ni)
            p->ids = ni;
        char **np = ni ? realloc(p->point, ncap * sizeof *np) : NULL;
        if (!np)
            return rs_fail(err, RS_ENOMEM, "out of memory");
        p->point = np;
        p->cap = ncap;
    }
    buf[0] = '\0';
    for (int k = 0; k < p->nkeys && len < sizeof buf; k++)
        len += (size_t)snprintf(buf + len, sizeof buf - len, "%s%s=%s", k ? " " : "", p->keys[k],
                                params[k] ? params[k] : "?");
    p->ids[p->n] = run->id;
    if (!(p->point[p->n] = strdup(buf)))
        return rs_fail(err, RS_ENOMEM, "out of memory");
    p->n++;
    return 0;
}

static void sweep_pts_release(sweep_pts *p)
{
    for (size_t i = 0; i < p->n; i++)
        free(p->point[i]);
    free(p->point);
    free(p->ids);
}

/* Split "a,b" (spaces tolerated) into keys (pointing into buf), sorted so
 * that two sweeps varying the same keys in another order match. */
static int split_keys(char *buf, char **keys, int *r_n)
{
    int n = 0;
    for (char *k = buf; *k;) {
        char *end = k + strcspn(k, ", ");
        char sep = *end;
        *end = '\0';
        if (*k) {
            if (n == MAX_KEYS)
                return -1;
            keys[n++] = k;
        }
        k = sep ? end + 1 : end;
    }
    for (int i = 1; i < n; i++) /* insertion sort: a handful of keys */
        for (int j = i; j > 0 && strcmp(keys[j - 1], keys[j]) > 0; j--) {
            char *t = keys[j];
            keys[j] = keys[j - 1];
            keys[j - 1] = t;
        }
    *r_n = n;
    return 0;
}

static int sweeps_read(compare *c, rs_err *err)
{
    rs_query_sweep sw[2] = { 0 };
    char *buf[2] = { NULL, NULL }, *keys[2][MAX_KEYS];
    int nkeys[2] = { 0, 0 };
    sweep_pts pts[2] = { 0 };
    const int64_t ids[2] = { c->id_a, c->id_b };
    int rc = 0;

    for (int s = 0; s < 2 && !rc; s++) {
        if ((rc = rs_query_sweep_get(c->st, ids[s], &sw[s], err)))
            break;
        if (!(buf[s] = strdup(sw[s].varied_keys ? sw[s].varied_keys : "")))
            rc = rs_fail(err, RS_ENOMEM, "out of memory");
        else if (split_keys(buf[s], keys[s], &nkeys[s]))
            rc = rs_fail(err, RS_EINPUT, "sweep %" PRId64 " varies more than %d keys", ids[s],
                         MAX_KEYS);
    }
    if (rc)
        goto out;
    int same = nkeys[0] == nkeys[1];
    for (int k = 0; same && k < nkeys[0]; k++)
        same = !strcmp(keys[0][k], keys[1][k]);
    if (!same) {
        rc = rs_fail(err, RS_EINPUT, "sweeps %" PRId64 " and %" PRId64 " in '%s' vary different "
                     "keys ('%s' and '%s'): no point matches", ids[0], ids[1],
                     rs_store_path(c->st), sw[0].varied_keys ? sw[0].varied_keys : "",
                     sw[1].varied_keys ? sw[1].varied_keys : "");
        goto out;
    }
    for (int s = 0; s < 2 && !rc; s++) {
        pts[s].keys = keys[0];
        pts[s].nkeys = nkeys[0];
        rc = rs_query_runs(c->st, &(rs_query_runs_filter){ .sweep_id = ids[s], .status = "done",
                                                           .params = (const char *const *)keys[0],
                                                           .nparams = (size_t)nkeys[0] },
                           sweep_pt, &pts[s], err);
    }
    if (rc)
        goto out;
    if (!pts[0].n || !pts[1].n) {
        rc = rs_fail(err, RS_EINPUT, "sweep %" PRId64 " in '%s' has no done runs: nothing to "
                     "compare", ids[pts[0].n ? 1 : 0], rs_store_path(c->st));
        goto out;
    }
    /* A's points in its order, each with its match in B; then B's unmatched */
    char *matched = calloc(pts[1].n, 1);
    if (!matched) {
        rc = rs_fail(err, RS_ENOMEM, "out of memory");
        goto out;
    }
    int64_t first_a = 0, first_b = 0;
    for (size_t i = 0; i < pts[0].n && !rc; i++) {
        cmp_row *r = row_new(c, err);
        if (!r) {
            rc = RS_ENOMEM;
            break;
        }
        r->a = pts[0].ids[i];
        r->point = strdup(pts[0].point[i]);
        for (size_t j = 0; j < pts[1].n; j++)
            if (!matched[j] && !strcmp(pts[0].point[i], pts[1].point[j])) {
                matched[j] = 1;
                r->b = pts[1].ids[j];
                break;
            }
        if (r->b && !first_a) {
            first_a = r->a;
            first_b = r->b;
        }
        if (!r->point)
            rc = rs_fail(err, RS_ENOMEM, "out of memory");
        else if (!(rc = run_metrics(c, r->a, r->ma, err)) && r->b)
            rc = run_metrics(c, r->b, r->mb, err);
    }
    for (size_t j = 0; j < pts[1].n && !rc; j++) {
        if (matched[j])
            continue;
        cmp_row *r = row_new(c, err);
        if (!r) {
            rc = RS_ENOMEM;
            break;
        }
        r->b = pts[1].ids[j];
        if (!(r->point = strdup(pts[1].point[j])))
            rc = rs_fail(err, RS_ENOMEM, "out of memory");
        else
            rc = run_metrics(c, r->b, r->mb, err);
    }
    free(matched);
    if (!rc && first_a)
        rc = diffs_read(c, first_a, first_b, err);
out:
    for (int s = 0; s < 2; s++) {
        sweep_pts_release(&pts[s]);
        free(buf[s]);
        rs_query_sweep_release(&sw[s]);
    }
    return rc;
}

/* ---- numbers ---- */

/* The change of b against a in percent; NaN when a side is missing or a is 0. */
static double change_pct(double a, double b)
{
    if (isnan(a) || isnan(b) || a == 0)
        return NAN;
    return (b - a) / fabs(a) * 100.0;
}

static void format_change(char *buf, size_t cap, double a, double b)
{
    double pct = change_pct(a, b);
    if (isnan(pct))
        snprintf(buf, cap, "n/a");
    else if (fabs(pct) < 0.05)
        snprintf(buf, cap, "0.0 %%");
    else
        snprintf(buf, cap, "%+.1f %%", pct);
}

/* The unit of metric m on a row (from the larger side): "MiB" and its scale. */
static void row_unit(int m, double a, double b, const char **r_unit, double *r_scale)
{
    double max = fmax(isnan(a) ? 0 : fabs(a), isnan(b) ? 0 : fabs(b));
    *r_unit = NULL;
    *r_scale = 1;
    if (cmp_metrics[m].unit == U_BYTES)
        rs_cli_size_unit(max, r_unit, r_scale);
    else if (cmp_metrics[m].unit == U_NS)
        rs_cli_ns_unit(max, r_unit, r_scale);
}

static void format_value(char *buf, size_t cap, int m, double v, const char *unit, double scale)
{
    if (isnan(v))
        snprintf(buf, cap, "-");
    else if (cmp_metrics[m].unit == U_RATIO)
        snprintf(buf, cap, "%.3f", v);
    else if (cmp_metrics[m].unit == U_COUNT)
        snprintf(buf, cap, "%.0f", v);
    else
        snprintf(buf, cap, "%.2f %s", v / scale, unit);
}

/* "run 3" or "-" */
static void run_cell(char *buf, size_t cap, int64_t id)
{
    if (id)
        snprintf(buf, cap, "run %" PRId64, id);
    else
        snprintf(buf, cap, "-");
}

/* Display width of UTF-8 text (µ counts once). */
static int text_width(const char *s)
{
    int w = 0;
    for (; *s; s++)
        w += ((unsigned char)*s & 0xc0) != 0x80;
    return w;
}

static void pad(int n)
{
    for (int i = 0; i < n; i++)
        putchar(' ');
}

/* ---- text ---- */

static void print_text(const compare *c)
{
    const char *what = c->sweeps ? "sweep" : "run";
    printf("A = %s %" PRId64 ", B = %s %" PRId64 "\n", what, c->id_a, what, c->id_b);
    if (c->ndiffs) {
        printf("%s:\n", c->sweeps ? "params that differ (first matched pair)" : "params that differ");
        for (size_t i = 0; i < c->ndiffs; i++)
            printf("  %s: %s -> %s\n", c->diffs[i].key, c->diffs[i].a ? c->diffs[i].a : "(none)",
                   c->diffs[i].b ? c->diffs[i].b : "(none)");
    } else {
        printf("no param differs\n");
    }
    for (size_t i = 0; i < c->nrows; i++) {
        const cmp_row *r = &c->rows[i];
        char ha[32], hb[32], cells[C_COUNT][3][48];
        int w[4] = { (int)strlen("metric"), 0, 0, (int)strlen("change") };
        run_cell(ha, sizeof ha, r->a);
        run_cell(hb, sizeof hb, r->b);
        w[1] = text_width(ha);
        w[2] = text_width(hb);
        for (int m = 0; m < C_COUNT; m++) {
            const char *unit;
            double scale;
            if (!c->shown[m])
                continue;
            row_unit(m, r->ma[m], r->mb[m], &unit, &scale);
            format_value(cells[m][0], sizeof cells[m][0], m, r->ma[m], unit, scale);
            format_value(cells[m][1], sizeof cells[m][1], m, r->mb[m], unit, scale);
            format_change(cells[m][2], sizeof cells[m][2], r->ma[m], r->mb[m]);
            if (text_width(cmp_metrics[m].head) > w[0])
                w[0] = text_width(cmp_metrics[m].head);
            for (int k = 0; k < 3; k++)
                if (text_width(cells[m][k]) > w[k + 1])
                    w[k + 1] = text_width(cells[m][k]);
        }
        putchar('\n');
        if (!r->a || !r->b) { /* a point without a match: one line */
            printf("point %s: only in %s (run %" PRId64 ")\n", r->point, r->a ? "A" : "B",
                   r->a ? r->a : r->b);
            continue;
        }
        if (r->point)
            printf("point %s\n", r->point);
        printf("  %-*s  ", w[0], "metric");
        pad(w[1] - text_width(ha));
        printf("%s  ", ha);
        pad(w[2] - text_width(hb));
        printf("%s  ", hb);
        pad(w[3] - 6);
        printf("change\n");
        for (int m = 0; m < C_COUNT; m++) {
            if (!c->shown[m])
                continue;
            printf("  %s", cmp_metrics[m].head);
            pad(w[0] - text_width(cmp_metrics[m].head));
            for (int k = 0; k < 3; k++) {
                printf("  ");
                pad(w[k + 1] - text_width(cells[m][k]));
                fputs(cells[m][k], stdout);
            }
            putchar('\n');
        }
    }
}

/* ---- markdown ---- */

/* Text for a table cell: '|' escaped. */
static void md_cell(const char *s)
{
    for (; *s; s++) {
        if (*s == '|')
            putchar('\\');
        putchar(*s);
    }
}

static void print_markdown(const compare *c)
{
    const char *what = c->sweeps ? "sweep" : "run";
    printf("**A** = %s %" PRId64 ", **B** = %s %" PRId64 "\n\n", what, c->id_a, what, c->id_b);
    if (c->ndiffs) {
        for (size_t i = 0; i < c->ndiffs; i++) {
            printf("- `");
            md_cell(c->diffs[i].key);
            printf("`: ");
            md_cell(c->diffs[i].a ? c->diffs[i].a : "(none)");
            printf(" → ");
            md_cell(c->diffs[i].b ? c->diffs[i].b : "(none)");
            putchar('\n');
        }
        putchar('\n');
    }
    printf(c->sweeps ? "| point | metric | A | B | change |\n|---|---|---:|---:|---:|\n"
                     : "| metric | A (run %" PRId64 ") | B (run %" PRId64 ") | change |\n"
                       "|---|---:|---:|---:|\n", c->id_a, c->id_b);
    for (size_t i = 0; i < c->nrows; i++) {
        const cmp_row *r = &c->rows[i];
        for (int m = 0; m < C_COUNT && r->a && r->b; m++) {
            char va[48], vb[48], ch[32], ra[32], rb[32];
            const char *unit;
            double scale;
            if (!c->shown[m])
                continue;
            row_unit(m, r->ma[m], r->mb[m], &unit, &scale);
            format_value(va, sizeof va, m, r->ma[m], unit, scale);
            format_value(vb, sizeof vb, m, r->mb[m], unit, scale);
            format_change(ch, sizeof ch, r->ma[m], r->mb[m]);
            if (c->sweeps) {
                run_cell(ra, sizeof ra, r->a);
                run_cell(rb, sizeof rb, r->b);
                printf("| ");
                md_cell(r->point);
                printf(" | %s | %s (%s) | %s (%s) | %s |\n", cmp_metrics[m].head, va, ra, vb, rb,
                       ch);
            } else {
                printf("| %s | %s | %s | %s |\n", cmp_metrics[m].head, va, vb, ch);
            }
        }
    }
    for (size_t i = 0; i < c->nrows; i++) {
        const cmp_row *r = &c->rows[i];
        if (r->a && r->b)
            continue;
        printf("\nOnly in %s: ", r->a ? "A" : "B");
        md_cell(r->point);
        printf(" (run %" PRId64 ")\n", r->a ? r->a : r->b);
    }
}

/* ---- json ---- */

static json_t *json_num(double v)
{
    return isnan(v) || isinf(v) ? json_null() : json_real(v);
}

static json_t *json_str_or_null(const char *s)
{
    return s ? json_string(s) : json_null();
}

static int print_json(const compare *c, rs_err *err)
{
    json_t *root = json_object(), *rows = json_array(), *diffs = json_array();
    int rc = 0;

    if (!root || !rows || !diffs) {
        json_decref(root);
        json_decref(rows);
        json_decref(diffs);
        return rs_fail(err, RS_ENOMEM, "out of memory");
    }
    json_object_set_new(root, "kind", json_string(c->sweeps ? "sweeps" : "runs"));
    json_object_set_new(root, "a", json_integer(c->id_a));
    json_object_set_new(root, "b", json_integer(c->id_b));
    for (size_t i = 0; i < c->ndiffs; i++) {
        json_t *d = json_object();
        json_object_set_new(d, "key", json_string(c->diffs[i].key));
        json_object_set_new(d, "a", json_str_or_null(c->diffs[i].a));
        json_object_set_new(d, "b", json_str_or_null(c->diffs[i].b));
        json_array_append_new(diffs, d);
    }
    json_object_set_new(root, "params_differing", diffs);
    for (size_t i = 0; i < c->nrows; i++) {
        const cmp_row *r = &c->rows[i];
        json_t *row = json_object(), *ms = json_object();
        json_object_set_new(row, "point", json_str_or_null(r->point));
        json_object_set_new(row, "run_a", r->a ? json_integer(r->a) : json_null());
        json_object_set_new(row, "run_b", r->b ? json_integer(r->b) : json_null());
        for (int m = 0; m < C_COUNT; m++) {
            if (!c->shown[m])
                continue;
            json_t *o = json_object();
            json_object_set_new(o, "a", json_num(r->ma[m]));
            json_object_set_new(o, "b", json_num(r->mb[m]));
            json_object_set_new(o, "change_pct", json_num(change_pct(r->ma[m], r->mb[m])));
            json_object_set_new(ms, cmp_metrics[m].name, o);
        }
        json_object_set_new(row, "metrics", ms);
        json_array_append_new(rows, row);
    }
    json_object_set_new(root, "rows", rows);
    if (json_dumpf(root, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(17)) != 0)
        rc = rs_fail(err, RS_EIO, "cannot write the comparison: %s", strerror(errno));
    putchar('\n');
    json_decref(root);
    return rc;
}

static void usage(FILE *f)
{
    fprintf(f,
            "usage: rssim compare (--run A --run B | --sweep A --sweep B) [--db PATH]\n"
            "                     [--format text|markdown|json]\n\n"
            "Two runs, or two sweeps matched point by point by their values of the varied\n"
            "keys, side by side: steady and peak RSS, steady and peak overshoot (rss/limit),\n"
            "x, trims and, for the osd, IOPS and op latency p50/p99 (whichever exist), each\n"
            "with its change from A to B in percent (+12.3 %% is B larger).  The params\n"
            "that differ between A and B are listed first.\n\n"
            "      --run ID      a run (twice: A, then B)\n"
            "      --sweep ID    a sweep (twice: A, then B)\n"
            "      --format F    text (default), markdown (one table) or json (raw values:\n"
            "                    bytes, ns, ratios; null when missing)\n"
            "      --db PATH     SQLite database (default %s)\n"
            "  -h, --help        this help\n",
            rs_cli_default_db());
}

int cmd_compare(int argc, char **argv)
{
    static const struct option opts[] = {
        { "run", required_argument, NULL, 'r' },    { "sweep", required_argument, NULL, 'w' },
        { "format", required_argument, NULL, 'f' }, { "db", required_argument, NULL, 'd' },
        { "help", no_argument, NULL, 'h' },         { NULL, 0, NULL, 0 },
    };
    const char *db = rs_cli_default_db(), *format = "text";
    int64_t runs[2], sweeps[2], id;
    int nruns = 0, nsweeps = 0, c;

    optind = 1;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        switch (c) {
        case 'r':
        case 'w':
            if (!(id = rs_cli_parse_id(optarg)))
                return rs_cli_usage_error("compare", "bad %s id '%s'", c == 'r' ? "run" : "sweep",
                                          optarg);
            if ((c == 'r' ? nruns : nsweeps) == 2)
                return rs_cli_usage_error("compare", "give exactly two --run or two --sweep");
            if (c == 'r')
                runs[nruns++] = id;
            else
                sweeps[nsweeps++] = id;
            break;
        case 'f': format = optarg; break;
        case 'd': db = optarg; break;
        case 'h': usage(stdout); return 0;
        default: usage(stderr); return 2;
        }
    }
    if (optind != argc)
        return rs_cli_usage_error("compare", "unexpected argument '%s'", argv[optind]);
    if (!((nruns == 2 && !nsweeps) || (nsweeps == 2 && !nruns)))
        return rs_cli_usage_error("compare", "give exactly two --run or two --sweep");
    if (strcmp(format, "text") && strcmp(format, "markdown") && strcmp(format, "json"))
        return rs_cli_usage_error("compare", "--format must be text, markdown or json, not '%s'",
                                  format);

    rs_err err = { 0 };
    compare cmp = { .sweeps = nsweeps == 2 };
    cmp.id_a = cmp.sweeps ? sweeps[0] : runs[0];
    cmp.id_b = cmp.sweeps ? sweeps[1] : runs[1];
    int rc = rs_store_open_ro(&cmp.st, db, &err);
    if (!rc)
        rc = cmp.sweeps ? sweeps_read(&cmp, &err) : runs_read(&cmp, &err);
    if (!rc) {
        if (!strcmp(format, "json"))
            rc = print_json(&cmp, &err);
        else if (!strcmp(format, "markdown"))
            print_markdown(&cmp);
        else
            print_text(&cmp);
    }
    if (!rc && fflush(stdout) != 0)
        rc = rs_fail(&err, RS_EIO, "cannot write the comparison: %s", strerror(errno));
    compare_release(&cmp);
    return rc ? rs_cli_report(&err) : 0;
}
