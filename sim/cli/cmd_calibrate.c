/*
 * cmd_calibrate.c — `rssim calibrate TRACE --preset P --param KEY --range LO,HI
 * --compare KEY2=A,B --metric NAME --target PCT`: fit one free parameter.
 *
 * Finds the value v of KEY in [LO, HI] at which the relative change of a run
 * metric from KEY2=A to KEY2=B, 100 (m_B - m_A) / m_A, equals PCT: the root
 * of f(v) = change(v) - PCT by GSL's bracketing Brent solver
 * (sim/calibrate.c).  Each evaluation replays TRACE twice in this process,
 * exactly as `rssim replay` would with the same settings.  The simulated
 * change is piecewise in v — it jumps (by up to about a point for the OSD's
 * trim cost) between neighbouring values, as events fall on one side of a
 * timer or the other — which a bracketing Brent tolerates: it keeps a sign
 * change inside its bracket and, when the change jumps over PCT rather than
 * crossing it, ends at the jump.  v is searched in KEY's base unit (ns,
 * bytes, or the number itself), rounded to a whole unit for integer types,
 * and printed in the largest unit that writes it exactly.
 *
 * With --target-value V instead of --compare and --target, the wanted
 * quantity is the metric itself: the root of f(v) = metric(v) - V, one
 * replay per evaluation (e.g. the base bytes that make rss_steady_bytes
 * what a daemon was observed at).
 */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../traces/trace.h"
#include "../calibrate.h"
#include "../base/config.h"
#include "../base/result.h"
#include "../base/vec.h"
#include "../run.h"
#include "../store.h"
#include "../schema.h"
#include "cli.h"

#define MAX_SETS 256
#define VALUE_CAP 64

static void usage(FILE *f)
{
    fprintf(f,
            "usage: rssim calibrate TRACE --preset P [--set key=value ...] --param KEY\n"
            "                       --range LO,HI --compare KEY2=A,B --metric NAME\n"
            "                       --target PCT [--tol X] [--max-iter N] [--db PATH]\n"
            "       rssim calibrate TRACE --preset P [--set key=value ...] --param KEY\n"
            "                       --range LO,HI --metric NAME --target-value V [...]\n\n"
            "Find the value of KEY in [LO, HI] at which the relative change of metric\n"
            "NAME from the run with KEY2=A to the run with KEY2=B, 100 (m_B - m_A) / m_A,\n"
            "equals PCT (GSL's Brent bracketing root finder; each evaluation replays\n"
            "TRACE twice).  Every evaluation is printed on stderr; stdout gets KEY=VALUE\n"
            "and the change achieved.  KEY must be a size, duration, integer or number;\n"
            "LO, HI and X are written like its values (e.g. 500us,14ms).\n\n"
            "  -p, --preset P      models/presets/P.conf, or a path to a .conf file\n"
            "  -s, --set K=V       fixed override (repeatable; see 'rssim list')\n"
            "  -k, --param KEY     the free parameter\n"
            "  -r, --range LO,HI   its bracket; the change minus PCT must differ in sign\n"
            "                      at LO and HI\n"
            "  -c, --compare K=A,B the two runs of each evaluation\n"
            "  -m, --metric NAME   a run metric (see 'rssim runs show')\n"
            "  -t, --target PCT    the wanted change in percent (e.g. -4.39)\n"
            "      --target-value V  instead of --compare and --target: the wanted value\n"
            "                      of the metric itself (its unit: bytes, ns, a ratio;\n"
            "                      one replay per evaluation)\n"
            "      --tol X         stop when the bracket is narrower than X (KEY's unit;\n"
            "                      default 1%% of the range)\n"
            "      --max-iter N    or after N iterations (default 30)\n"
            "      --db PATH       store every evaluated run there (default: none)\n"
            "  -h, --help          this help\n");
}

/* One evaluation, kept for the final report. */
typedef struct eval_rec {
    double v;      /* the value run (rounded to KEY's unit) */
    double m[2];   /* the metric with KEY2=A and KEY2=B */
    double change; /* percent */
} eval_rec;

typedef struct calib_ctx {
    const char *trace, *sha, *preset, *key, *key2, *ab[2], *metric;
    rs_ptype type;
    const rs_config *base;
    double target;
    int absolute; /* --target-value: the metric itself, no --compare */
    rs_store *st; /* NULL: the runs are not stored */
    eval_rec *evals;
    int nevals;
    size_t cap;
} calib_ctx;

/* ---- values in KEY's type ------------------------------------------- */

static int is_integral(rs_ptype t)
{
    return t == RS_PT_SIZE || t == RS_PT_DURATION || t == RS_PT_INT;
}

/* Parse s as a value of type t into its base unit (ns, bytes, number). */
static int parse_value(rs_ptype t, const char *s, double *r_v)
{
    uint64_t u;
    int64_t i;
    switch (t) {
    case RS_PT_SIZE:
        if (rs_parse_size(s, &u))
            return -1;
        *r_v = (double)u;
        return 0;
    case RS_PT_DURATION:
        if (rs_parse_duration(s, &u))
            return -1;
        *r_v = (double)u;
        return 0;
    case RS_PT_INT:
        if (rs_parse_int(s, &i))
            return -1;
        *r_v = (double)i;
        return 0;
    case RS_PT_DOUBLE: return rs_parse_double(s, r_v);
    default: return -1;
    }
}

/* The value a search point stands for: whole units for integer types. */
static double quantize(rs_ptype t, double x)
{
    return is_integral(t) ? (double)llround(x) : x;
}

/* Write v (already quantized) in the largest unit that holds at least one,
 * with the fewest decimals that parse back to v exactly. */
static void format_value(rs_ptype t, double v, char *buf, size_t cap)
{
    static const struct { const char *suffix; double mult; } durations[] = {
        { "s", 1e9 }, { "ms", 1e6 }, { "us", 1e3 }, { "ns", 1 },
    }, sizes[] = {
        { "T", 1099511627776.0 }, { "G", 1073741824.0 }, { "M", 1048576.0 }, { "K", 1024.0 }, { "", 1 },
    };
    const char *suffix = "";
    double mult = 1, back;
    int n = 0;

    if (t == RS_PT_INT) {
        snprintf(buf, cap, "%lld", (long long)v);
        return;
    }
    if (t == RS_PT_DOUBLE) {
        for (int p = 1; p <= 17; p++) {
            snprintf(buf, cap, "%.*g", p, v);
            if (!rs_parse_double(buf, &back) && back == v)
                return;
        }
        return;
    }
    for (; n < 5; n++) {
        suffix = t == RS_PT_DURATION ? durations[n].suffix : sizes[n].suffix;
        mult = t == RS_PT_DURATION ? durations[n].mult : sizes[n].mult;
        if (v >= mult || (t == RS_PT_DURATION && n == 3) || (t == RS_PT_SIZE && n == 4))
            break;
    }
    for (int d = 0; d <= 12; d++) { /* 9 (s) or 10 (K) decimals are always exact */
        snprintf(buf, cap, "%.*f%s", d, v / mult, suffix);
        if (!parse_value(t, buf, &back) && back == v)
            return;
    }
}

/* ---- one evaluation: two replays ------------------------------------ */

static int run_side(calib_ctx *cc, const char *value, int side, double *r_m, rs_err *err)
{
    rs_config *cfg = NULL;
    rs_result res;
    rs_run_stats stats;
    char label[512];
    int rc;

    rs_result_init(&res);
    if ((rc = rs_config_clone(cc->base, &cfg, err)) ||
        (rc = rs_config_set(cfg, cc->key, value, err)) ||
        (!cc->absolute && (rc = rs_config_set(cfg, cc->key2, cc->ab[side], err))) ||
        (rc = rs_schema_finish(cfg, NULL, NULL, err)))
        goto out;
    if (cc->st) {
        if (cc->absolute)
            snprintf(label, sizeof label, "calibrate %s=%s", cc->key, value);
        else
            snprintf(label, sizeof label, "calibrate %s=%s %s=%s", cc->key, value, cc->key2,
                     cc->ab[side]);
        rs_run_meta meta = {
            .kind = "predicted", .trace_path = cc->trace, .trace_sha256 = cc->sha,
            .preset = cc->preset, .seed = (uint64_t)rs_config_int(cfg, "seed"), .label = label,
            .sweep_id = 0, .point_index = -1,
        };
        int64_t id;
        if ((rc = rs_store_run_begin(cc->st, &meta, cfg, &id, err)) ||
            (rc = rs_cli_execute_run(cc->st, id, cc->trace, cfg, NULL, &res, NULL, NULL, err)))
            goto out;
    } else if ((rc = rs_run_execute(cc->trace, cfg, &res, &stats, err))) {
        goto out;
    }
    if (rs_result_metric(&res, cc->metric, r_m))
        rc = rs_fail(err, RS_EINPUT, "--metric: the run has no metric '%s' (see 'rssim runs show')",
                     cc->metric);
out:
    if (rc && cc->absolute)
        rs_err_prefix(err, "%s=%s", cc->key, value);
    else if (rc)
        rs_err_prefix(err, "%s=%s %s=%s", cc->key, value, cc->key2, cc->ab[side]);
    rs_result_release(&res);
    rs_config_free(cfg);
    return rc;
}

static int evaluate(double x, void *ctx, double *r_y, rs_err *err)
{
    calib_ctx *cc = ctx;
    eval_rec e = { .v = quantize(cc->type, x) };
    char value[VALUE_CAP];
    int rc;

    format_value(cc->type, e.v, value, sizeof value);
    if (cc->absolute) {
        if ((rc = run_side(cc, value, 0, &e.m[0], err)))
            return rc;
        e.m[1] = e.m[0];
        fprintf(stderr, "calibrate: %s=%-14s %s %.10g (target %.10g)\n", cc->key, value,
                cc->metric, e.m[0], cc->target);
        if (RS_VEC_RESERVE(cc->evals, cc->cap, (size_t)cc->nevals + 1, 32))
            return rs_fail(err, RS_ENOMEM, "out of memory for the evaluation log");
        cc->evals[cc->nevals++] = e;
        *r_y = e.m[0] - cc->target;
        return 0;
    }
    for (int side = 0; side < 2; side++)
        if ((rc = run_side(cc, value, side, &e.m[side], err)))
            return rc;
    if (e.m[0] == 0)
        return rs_fail(err, RS_EINPUT, "metric '%s' is 0 with %s=%s %s=%s: no relative change",
                       cc->metric, cc->key, value, cc->key2, cc->ab[0]);
    e.change = 100 * (e.m[1] - e.m[0]) / e.m[0];
    fprintf(stderr, "calibrate: %s=%-14s %s %.6g -> %.6g  change %+.4f %% (target %+.4f %%)\n",
            cc->key, value, cc->metric, e.m[0], e.m[1], e.change, cc->target);
    if (RS_VEC_RESERVE(cc->evals, cc->cap, (size_t)cc->nevals + 1, 32))
        return rs_fail(err, RS_ENOMEM, "out of memory for the evaluation log");
    cc->evals[cc->nevals++] = e;
    *r_y = e.change - cc->target;
    return 0;
}

static const eval_rec *find_eval(const calib_ctx *cc, double v)
{
    for (int i = cc->nevals - 1; i >= 0; i--)
        if (cc->evals[i].v == v) /* the same rounded value, evaluated before */
            return &cc->evals[i];
    return NULL;
}

/* ---- the command ---------------------------------------------------- */

/* Split buf, "A,B", in place at its only comma; -1 unless both are non-empty. */
static int split_pair(char *buf, const char **r_a, const char **r_b)
{
    char *comma = strchr(buf, ',');
    if (!comma || comma == buf || !comma[1] || strchr(comma + 1, ','))
        return -1;
    *comma = '\0';
    *r_a = buf;
    *r_b = comma + 1;
    return 0;
}

/* Options after getopt; the strings point into argv or the buffers. */
typedef struct calib_args {
    const char *preset, *key, *range, *compare, *metric, *target, *tol, *max_iter, *db;
    const char *target_value;
    char *sets[MAX_SETS];
    int nsets;
} calib_args;

/* Everything checked before the first run: exit 2 naming option and value. */
static int check_args(const calib_args *a, const rs_config *base, calib_ctx *cc,
                      rs_calibrate_opts *o, char rangebuf[256], char cmpbuf[512])
{
    const rs_param *p = rs_config_param(base, a->key);
    const char *lo, *hi;
    char *end;

    if (!p)
        return rs_cli_usage_error("calibrate", "--param: unknown key '%s' (see 'rssim list')", a->key);
    cc->key = p->key;
    cc->type = p->type;
    if (p->type != RS_PT_SIZE && p->type != RS_PT_DURATION && p->type != RS_PT_INT &&
        p->type != RS_PT_DOUBLE)
        return rs_cli_usage_error("calibrate", "--param: '%s' is a %s; calibrate needs a size, "
                                  "duration, integer or number", a->key, rs_ptype_name(p->type));
    if ((size_t)snprintf(rangebuf, 256, "%s", a->range) >= 256 || split_pair(rangebuf, &lo, &hi) ||
        parse_value(p->type, lo, &o->lo) ||
        parse_value(p->type, hi, &o->hi) || !(o->lo < o->hi))
        return rs_cli_usage_error("calibrate", "--range: expected LO,HI with LO < HI, each a %s "
                                  "value of '%s', got '%s'", rs_ptype_name(p->type), a->key, a->range);
    if (a->target_value) {
        if (a->compare || a->target)
            return rs_cli_usage_error("calibrate", "--target-value fits the metric itself: give "
                                      "it without --compare and --target");
        if (rs_parse_double(a->target_value, &cc->target) || !isfinite(cc->target))
            return rs_cli_usage_error("calibrate", "--target-value: expected a number, got '%s'",
                                      a->target_value);
        cc->absolute = 1;
    } else {
    char *eq = (size_t)snprintf(cmpbuf, 512, "%s", a->compare) < 512 ? strchr(cmpbuf, '=') : NULL;
    if (!eq || eq == cmpbuf || split_pair(eq + 1, &cc->ab[0], &cc->ab[1]) ||
        !strcmp(cc->ab[0], cc->ab[1]))
        return rs_cli_usage_error("calibrate", "--compare: expected KEY=A,B with A != B, got '%s'",
                                  a->compare);
    *eq = '\0';
    cc->key2 = cmpbuf;
    if (!rs_config_param(base, cc->key2))
        return rs_cli_usage_error("calibrate", "--compare: unknown key '%s' (see 'rssim list')", cc->key2);
    if (!strcmp(cc->key2, cc->key))
        return rs_cli_usage_error("calibrate", "--compare: '%s' is also the --param", cc->key2);
    }
    if (!*a->metric || strlen(a->metric) >= sizeof ((rs_metric *)0)->name)
        return rs_cli_usage_error("calibrate", "--metric: bad name '%s'", a->metric);
    cc->metric = a->metric;
    if (!cc->absolute && rs_parse_double(a->target, &cc->target))
        return rs_cli_usage_error("calibrate", "--target: expected a number (percent), got '%s'", a->target);
    o->tol_abs = (o->hi - o->lo) / 100;
    if (a->tol && (parse_value(p->type, a->tol, &o->tol_abs) || !(o->tol_abs > 0)))
        return rs_cli_usage_error("calibrate", "--tol: expected a %s value of '%s' > 0, got '%s'",
                                  rs_ptype_name(p->type), a->key, a->tol);
    o->max_iter = 30;
    if (a->max_iter) {
        long n = strtol(a->max_iter, &end, 10);
        if (*end || !*a->max_iter || n < 1 || n > 1000)
            return rs_cli_usage_error("calibrate", "--max-iter: expected 1..1000, got '%s'", a->max_iter);
        o->max_iter = (int)n;
    }
    return 0;
}

/* Every corner of the search must be a valid config before anything runs. */
static int check_corners(const calib_ctx *cc, const rs_calibrate_opts *o, rs_err *err)
{
    for (int i = 0; i < 4; i++) {
        char value[VALUE_CAP];
        rs_config *cfg = NULL;
        int rc;
        format_value(cc->type, quantize(cc->type, i < 2 ? o->lo : o->hi), value, sizeof value);
        if ((rc = rs_config_clone(cc->base, &cfg, err)) ||
            (rc = rs_config_set(cfg, cc->key, value, err)) ||
            (!cc->absolute && (rc = rs_config_set(cfg, cc->key2, cc->ab[i % 2], err))) ||
            (rc = rs_schema_finish(cfg, NULL, NULL, err))) {
            rs_config_free(cfg);
            return rc;
        }
        rs_config_free(cfg);
    }
    return 0;
}

static void report(const calib_ctx *cc, const rs_calibrate_result *r)
{
    char value[VALUE_CAP], lo[VALUE_CAP], hi[VALUE_CAP];
    double v = quantize(cc->type, r->root);
    const eval_rec *e = find_eval(cc, v);

    format_value(cc->type, v, value, sizeof value);
    format_value(cc->type, quantize(cc->type, r->lo), lo, sizeof lo);
    format_value(cc->type, quantize(cc->type, r->hi), hi, sizeof hi);
    if (!r->converged)
        fprintf(stderr, "calibrate: not converged after %d iterations: bracket [%s, %s] is still "
                "wider than --tol\n", r->iterations, lo, hi);
    printf("%s=%s\n", cc->key, value);
    if (e && cc->absolute)
        printf("%s %.10g (target %.10g); %d evaluations, bracket [%s, %s], %s\n", cc->metric,
               e->m[0], cc->target, cc->nevals, lo, hi, r->converged ? "converged" : "not converged");
    else if (e)
        printf("change %+.4f %% (target %+.4f %%): %s %.6g -> %.6g from %s=%s to %s; "
               "%d evaluations, bracket [%s, %s], %s\n", e->change, cc->target, cc->metric,
               e->m[0], e->m[1], cc->key2, cc->ab[0], cc->ab[1], cc->nevals, lo, hi,
               r->converged ? "converged" : "not converged");
}

int cmd_calibrate(int argc, char **argv)
{
    static const struct option opts[] = {
        { "preset", required_argument, NULL, 'p' },  { "set", required_argument, NULL, 's' },
        { "param", required_argument, NULL, 'k' },   { "range", required_argument, NULL, 'r' },
        { "compare", required_argument, NULL, 'c' }, { "metric", required_argument, NULL, 'm' },
        { "target", required_argument, NULL, 't' },  { "tol", required_argument, NULL, 'T' },
        { "max-iter", required_argument, NULL, 'M' }, { "db", required_argument, NULL, 'd' },
        { "target-value", required_argument, NULL, 'V' },
        { "help", no_argument, NULL, 'h' },          { NULL, 0, NULL, 0 },
    };
    calib_args a = { 0 };
    int c, rc;

    optind = 1;
    while ((c = getopt_long(argc, argv, "p:s:k:r:c:m:t:h", opts, NULL)) != -1) {
        switch (c) {
        case 'p': a.preset = optarg; break;
        case 's':
            if (a.nsets == MAX_SETS)
                return rs_cli_usage_error("calibrate", "more than %d --set options", MAX_SETS);
            a.sets[a.nsets++] = optarg;
            break;
        case 'k': a.key = optarg; break;
        case 'r': a.range = optarg; break;
        case 'c': a.compare = optarg; break;
        case 'm': a.metric = optarg; break;
        case 't': a.target = optarg; break;
        case 'T': a.tol = optarg; break;
        case 'M': a.max_iter = optarg; break;
        case 'd': a.db = optarg; break;
        case 'V': a.target_value = optarg; break;
        case 'h': usage(stdout); return 0;
        default: usage(stderr); return 2;
        }
    }
    if (optind != argc - 1)
        return rs_cli_usage_error("calibrate", "expected exactly one TRACE");
    if (!a.preset || !a.key || !a.range || !a.metric ||
        (!a.target_value && (!a.compare || !a.target)))
        return rs_cli_usage_error("calibrate", "--preset, --param, --range, --metric and either "
                                  "--compare with --target or --target-value are required");

    rs_err err = { 0 };
    rs_config *base = NULL;
    calib_ctx cc = { .trace = argv[optind], .preset = a.preset };
    rs_calibrate_opts o = { 0 };
    rs_calibrate_result r = { 0 };
    char sha[65], rangebuf[256], cmpbuf[512];

    if ((rc = rs_cli_build_config(a.preset, a.sets, a.nsets, &base, &err)))
        goto out;
    cc.base = base;
    if ((rc = check_args(&a, base, &cc, &o, rangebuf, cmpbuf))) {
        rs_config_free(base);
        return rc;
    }
    if ((rc = check_corners(&cc, &o, &err)) || (rc = rs_cli_check_input(cc.trace, &err)))
        goto out;
    if (a.db && ((rc = rs_cli_mkdir_parent(a.db, &err)) || (rc = rs_store_open(&cc.st, a.db, &err)) ||
                 (rc = rs_store_trace_sha256(cc.st, cc.trace, sha, &err))))
        goto out;
    cc.sha = sha;
    rc = rs_calibrate_solve(evaluate, &cc, &o, &r, &err);
    if (rc && cc.absolute && !r.bracketed && r.evaluations == 2 && cc.nevals == 2) {
        char lo[VALUE_CAP], hi[VALUE_CAP];
        format_value(cc.type, cc.evals[0].v, lo, sizeof lo);
        format_value(cc.type, cc.evals[1].v, hi, sizeof hi);
        rs_fail(&err, RS_EINPUT, "no sign change: %s=%s gives %s %.6g and %s=%s gives %.6g, "
                "both on the same side of --target-value %.6g; widen --range", cc.key, lo,
                cc.metric, cc.evals[0].m[0], cc.key, hi, cc.evals[1].m[0], cc.target);
    } else if (rc && !r.bracketed && r.evaluations == 2 && cc.nevals == 2) {
        /* Name both ends in KEY's unit, with the changes they gave. */
        char lo[VALUE_CAP], hi[VALUE_CAP];
        format_value(cc.type, cc.evals[0].v, lo, sizeof lo);
        format_value(cc.type, cc.evals[1].v, hi, sizeof hi);
        rs_fail(&err, RS_EINPUT, "no sign change: %s=%s gives %+.4f %% and %s=%s gives %+.4f %%, "
                "both on the same side of --target %+.4f %%; widen --range", cc.key, lo,
                cc.evals[0].change, cc.key, hi, cc.evals[1].change, cc.target);
    }
    if (!rc)
        report(&cc, &r);
out:
    free(cc.evals);
    rs_store_close(cc.st);
    rs_config_free(base);
    return rc ? rs_cli_report(&err) : 0;
}
