/*
 * cmd_runs.c — `rssim runs list|show|export|init`: look at stored runs.
 *
 * list, show and export open the database read-only (rs_store_open_ro): a
 * mistyped --db is an error, never a new empty file.  init is the one
 * subcommand that creates a database (an empty, migrated schema: for
 * scripts and tests that fill it themselves).  The rows come from the
 * store's query module (sim/query.h), one at a time; the sample columns come
 * from result.h's X-macros, so the CSV export follows the schema.  See
 * docs/store.md.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../traces/trace.h"
#include "../base/config.h"
#include "../base/result.h"
#include "../query.h"
#include "../sampler.h"
#include "../store.h"
#include "cli.h"

#define MIB 1048576.0

typedef struct runs_sub {
    const char *name;
    int (*run)(int argc, char **argv); /* argv[0] is the subcommand's name */
    const char *summary;
} runs_sub;

static int runs_list(int argc, char **argv);
static int runs_show(int argc, char **argv);
static int runs_export(int argc, char **argv);
static int runs_init(int argc, char **argv);
static int runs_import_measured(int argc, char **argv);

static const runs_sub subs[] = {
    { .name = "list", .run = runs_list, .summary = "one line per run: status, preset, steady RSS" },
    { .name = "show", .run = runs_show, .summary = "one run: its row, params and metrics" },
    { .name = "export", .run = runs_export, .summary = "samples or metrics of a run or sweep as CSV" },
    { .name = "init", .run = runs_init, .summary = "create an empty database (schema only)" },
    { .name = "import-measured", .run = runs_import_measured,
      .summary = "store samples measured on a real daemon (CSV) as a measured run" },
};

static void usage(FILE *f)
{
    fprintf(f, "usage: rssim runs <list|show|export|init|import-measured> [options]"
               "   (rssim runs <sub> -h)\n\n");
    for (size_t i = 0; i < sizeof subs / sizeof subs[0]; i++)
        fprintf(f, "  %-15s %s\n", subs[i].name, subs[i].summary);
    fprintf(f, "\nThe database is %s unless --db says otherwise; see docs/store.md.\n",
            rs_cli_default_db());
}

int cmd_runs(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
        usage(stdout);
        return 0;
    }
    for (size_t i = 0; i < sizeof subs / sizeof subs[0]; i++)
        if (!strcmp(argv[1], subs[i].name))
            return subs[i].run(argc - 1, argv + 1);
    return rs_cli_usage_error("runs", "unknown subcommand '%s'", argv[1]);
}

/* A metric value for humans: integers exactly, others with 6 digits. */
static void format_value(char *buf, size_t cap, double v)
{
    if (isfinite(v) && v == floor(v) && fabs(v) < 9007199254740992.0)
        snprintf(buf, cap, "%.0f", v);
    else
        snprintf(buf, cap, "%.6g", v);
}

/* ---- list ---- */

enum { L_ID, L_KIND, L_STATUS, L_POINT, L_PRESET, L_LABEL, L_SEED, L_RSS, L_OVER, L_X, L_NCOLS };

static const struct {
    const char *head;
    int right; /* right-aligned (numbers) */
} list_cols[L_NCOLS] = {
    [L_ID] = { "id", 1 },          [L_KIND] = { "kind", 0 },     [L_STATUS] = { "status", 0 },
    [L_POINT] = { "sweep/point", 0 }, [L_PRESET] = { "preset", 0 }, [L_LABEL] = { "label", 0 },
    [L_SEED] = { "seed", 1 },      [L_RSS] = { "rss_steady_MiB", 1 },
    [L_OVER] = { "overshoot_steady", 1 }, [L_X] = { "x_steady", 1 },
};

#define LIST_CELL 48 /* longer presets and labels are cut with "..." */

#define LIST_MAX_EXTRA 8 /* --metric columns */

typedef struct list_row {
    char cell[L_NCOLS + LIST_MAX_EXTRA][LIST_CELL];
} list_row;

static void cell_text(char *cell, const char *s)
{
    size_t n = s ? strlen(s) : 0;
    if (!s || !*s)
        snprintf(cell, LIST_CELL, "-");
    else if (n < LIST_CELL)
        snprintf(cell, LIST_CELL, "%s", s);
    else
        snprintf(cell, LIST_CELL, "%.*s...", LIST_CELL - 4, s);
}

/* A metric divided by scale with digits decimals, or "-" when missing. */
static void cell_real(char *cell, double v, double scale, int digits)
{
    if (isnan(v))
        snprintf(cell, LIST_CELL, "-");
    else
        snprintf(cell, LIST_CELL, "%.*f", digits, v / scale);
}

typedef struct list_rows {
    list_row *rows;
    size_t n, cap;
    int nextra; /* --metric columns, after the three fixed ones */
} list_rows;

static int list_add(void *ctx, const rs_query_run *run, const double *metrics,
                    const char *const *params, rs_err *err)
{
    list_rows *l = ctx;
    (void)params;
    if (l->n == l->cap) {
        size_t ncap = l->cap ? 2 * l->cap : 64;
        list_row *p = realloc(l->rows, ncap * sizeof *p);
        if (!p)
            return rs_fail(err, RS_ENOMEM, "out of memory listing %zu runs", l->n);
        l->rows = p;
        l->cap = ncap;
    }
    list_row *r = &l->rows[l->n++];
    snprintf(r->cell[L_ID], LIST_CELL, "%lld", (long long)run->id);
    cell_text(r->cell[L_KIND], run->kind);
    cell_text(r->cell[L_STATUS], run->status);
    if (!run->has_sweep_id)
        snprintf(r->cell[L_POINT], LIST_CELL, "-");
    else
        snprintf(r->cell[L_POINT], LIST_CELL, "%lld/%lld", (long long)run->sweep_id,
                 (long long)run->point_index);
    cell_text(r->cell[L_PRESET], run->preset);
    cell_text(r->cell[L_LABEL], run->label);
    snprintf(r->cell[L_SEED], LIST_CELL, "%" PRIu64, run->seed);
    cell_real(r->cell[L_RSS], metrics[0], MIB, 1);
    cell_real(r->cell[L_OVER], metrics[1], 1.0, 3);
    cell_real(r->cell[L_X], metrics[2], 1.0, 3);
    for (int k = 0; k < l->nextra; k++) {
        if (isnan(metrics[3 + k]))
            snprintf(r->cell[L_NCOLS + k], LIST_CELL, "-");
        else
            snprintf(r->cell[L_NCOLS + k], LIST_CELL, "%.6g", metrics[3 + k]);
    }
    return 0;
}

static void list_usage(FILE *f)
{
    fprintf(f,
            "usage: rssim runs list [--db PATH] [--sweep ID] [--status S] [--metric NAME ...]\n\n"
            "One line per run, oldest first.  The last three columns are the run's\n"
            "metrics rss_steady_bytes (in MiB), overshoot_steady (rss/limit) and x_steady\n"
            "(untracked fraction), '-' until the run is done.\n\n"
            "      --db PATH     SQLite database (default %s)\n"
            "      --sweep ID    only the runs of this sweep, in point order\n"
            "      --status S    only runs with status S: pending, running, done, failed\n"
            "  -m, --metric NAME one more column: that metric of each run, '-' where it\n"
            "                    has none (e.g. miss_ratio; repeatable, at most %d;\n"
            "                    names in docs/store.md)\n"
            "  -h, --help        this help\n",
            rs_cli_default_db(), LIST_MAX_EXTRA);
}

static int runs_list(int argc, char **argv)
{
    static const struct option opts[] = {
        { "db", required_argument, NULL, 'd' }, { "sweep", required_argument, NULL, 'w' },
        { "status", required_argument, NULL, 's' }, { "help", no_argument, NULL, 'h' },
        { "metric", required_argument, NULL, 'm' },
        { NULL, 0, NULL, 0 },
    };
    const char *metric_names[3 + LIST_MAX_EXTRA] = { "rss_steady_bytes", "overshoot_steady",
                                                     "x_steady" };
    int nextra = 0;
    static const char *const statuses[] = { "pending", "running", "done", "failed" };
    const char *db = rs_cli_default_db(), *status = NULL;
    int64_t sweep = 0;
    int c, rc = 0;

    optind = 1;
    while ((c = getopt_long(argc, argv, "hm:", opts, NULL)) != -1) {
        switch (c) {
        case 'd': db = optarg; break;
        case 'w':
            if (!(sweep = rs_cli_parse_id(optarg)))
                return rs_cli_usage_error("runs list", "bad sweep id '%s'", optarg);
            break;
        case 'm':
            if (nextra == LIST_MAX_EXTRA)
                return rs_cli_usage_error("runs list", "more than %d --metric options", LIST_MAX_EXTRA);
            if (!*optarg || strlen(optarg) >= LIST_CELL)
                return rs_cli_usage_error("runs list", "bad metric name '%s'", optarg);
            metric_names[3 + nextra++] = optarg;
            break;
        case 's': status = optarg; break;
        case 'h': list_usage(stdout); return 0;
        default: list_usage(stderr); return 2;
        }
    }
    if (optind != argc)
        return rs_cli_usage_error("runs list", "unexpected argument '%s'", argv[optind]);
    if (status) {
        size_t i = 0;
        while (i < sizeof statuses / sizeof statuses[0] && strcmp(status, statuses[i]))
            i++;
        if (i == sizeof statuses / sizeof statuses[0])
            return rs_cli_usage_error("runs list", "unknown status '%s' (known: pending, "
                                      "running, done, failed)", status);
    }

    rs_err err = { 0 };
    rs_store *st = NULL;
    list_rows l = { .nextra = nextra };

    if (rs_store_open_ro(&st, db, &err))
        return rs_cli_report(&err);
    if ((rc = rs_query_runs(st, &(rs_query_runs_filter){ .sweep_id = sweep, .status = status,
                                                         .metrics = metric_names,
                                                         .nmetrics = 3 + (size_t)nextra },
                            list_add, &l, &err))) {
        rc = rs_cli_report(&err);
        goto out;
    }
    list_row *rows = l.rows;
    size_t n = l.n;
    int ncols = L_NCOLS + nextra, width[L_NCOLS + LIST_MAX_EXTRA];
    for (int k = 0; k < ncols; k++) {
        width[k] = (int)strlen(k < L_NCOLS ? list_cols[k].head : metric_names[3 + k - L_NCOLS]);
        for (size_t i = 0; i < n; i++)
            if ((int)strlen(rows[i].cell[k]) > width[k])
                width[k] = (int)strlen(rows[i].cell[k]);
    }
    for (size_t i = 0; i <= n; i++) {
        for (int k = 0; k < ncols; k++) {
            const char *head = k < L_NCOLS ? list_cols[k].head : metric_names[3 + k - L_NCOLS];
            const char *text = i == 0 ? head : rows[i - 1].cell[k];
            int last = k == ncols - 1;
            if (k >= L_NCOLS || list_cols[k].right)
                printf("%*s%s", width[k], text, last ? "" : "  ");
            else
                printf("%-*s%s", last ? 0 : width[k], text, last ? "" : "  ");
        }
        putchar('\n');
    }
    if (fflush(stdout) != 0) {
        rs_fail(&err, RS_EIO, "cannot write the list: %s", strerror(errno));
        rc = rs_cli_report(&err);
    }
out:
    free(l.rows);
    rs_store_close(st);
    return rc;
}

/* ---- show ---- */

static void show_usage(FILE *f)
{
    fprintf(f,
            "usage: rssim runs show ID [--db PATH]\n\n"
            "Print run ID: its row in the runs table, all its params (key = value) and\n"
            "all its metrics (name value; byte counts also in MiB).\n\n"
            "      --db PATH     SQLite database (default %s)\n"
            "  -h, --help        this help\n",
            rs_cli_default_db());
}

static void show_text(const char *name, const char *value)
{
    printf("  %-13s %s\n", name, value ? value : "-");
}

static void show_int(const char *name, int has, int64_t value)
{
    if (has)
        printf("  %-13s %lld\n", name, (long long)value);
    else
        printf("  %-13s -\n", name);
}

static int show_param(void *ctx, const char *key, const char *value, rs_err *err)
{
    (void)ctx;
    (void)err;
    printf("  %s = %s\n", key, value);
    return 0;
}

static int show_metric(void *ctx, int64_t run_id, const char *name, double v, rs_err *err)
{
    char value[64];
    size_t len = strlen(name);

    (void)ctx;
    (void)run_id;
    (void)err;
    if (isnan(v))
        printf("  %-24s NaN\n", name);
    else if (len > 6 && !strcmp(name + len - 6, "_bytes"))
        printf("  %-24s %-14.0f (%.1f MiB)\n", name, v, v / MIB);
    else {
        format_value(value, sizeof value, v);
        printf("  %-24s %s\n", name, value);
    }
    return 0;
}

static int runs_show(int argc, char **argv)
{
    static const struct option opts[] = {
        { "db", required_argument, NULL, 'd' }, { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    const char *db = rs_cli_default_db();
    int64_t id;
    int c, rc;

    optind = 1;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        switch (c) {
        case 'd': db = optarg; break;
        case 'h': show_usage(stdout); return 0;
        default: show_usage(stderr); return 2;
        }
    }
    if (optind != argc - 1)
        return rs_cli_usage_error("runs show", "expected exactly one run ID");
    if (!(id = rs_cli_parse_id(argv[optind])))
        return rs_cli_usage_error("runs show", "bad run id '%s'", argv[optind]);

    rs_err err = { 0 };
    rs_store *st = NULL;
    rs_query_run run;
    int64_t nsamples, first_ns, last_ns;

    if (rs_store_open_ro(&st, db, &err) || rs_query_run_get(st, id, &run, &err)) {
        rs_store_close(st);
        return rs_cli_report(&err);
    }
    /* the row, one column per line, in the table's order */
    printf("run %lld\n", (long long)id);
    show_text("kind", run.kind);
    show_text("status", run.status);
    show_text("created_at", run.created_at);
    show_text("started_at", run.started_at);
    show_text("finished_at", run.finished_at);
    show_text("version", run.version);
    show_text("trace_path", run.trace_path);
    show_text("trace_sha256", run.trace_sha256);
    show_text("preset", run.preset);
    printf("  %-13s %" PRIu64 "\n", "seed", run.seed);
    show_text("param_hash", run.param_hash);
    show_int("sweep_id", run.has_sweep_id, run.sweep_id);
    show_int("point_index", run.has_point_index, run.point_index);
    show_text("label", run.label);
    show_int("events", run.has_events, run.events);
    show_int("wall_ns", run.has_wall_ns, run.wall_ns);
    show_text("error", run.error);
    rs_query_run_release(&run);

    if ((rc = rs_query_samples_span(st, id, &nsamples, &first_ns, &last_ns, &err)))
        goto out;
    if (nsamples > 0)
        printf("  %-13s %lld (t %.3f s .. %.3f s)\n", "samples", (long long)nsamples,
               (double)first_ns / 1e9, (double)last_ns / 1e9);
    else
        printf("  %-13s 0\n", "samples");

    printf("params\n");
    if ((rc = rs_query_params(st, id, show_param, NULL, &err)))
        goto out;
    printf("metrics\n");
    rc = rs_query_metrics(st, &(rs_query_scope){ .run_id = id }, show_metric, NULL, &err);
out:
    rs_store_close(st);
    return rc ? rs_cli_report(&err) : 0;
}

/* ---- export ---- */

#define COL_NAME(name) "," #name

static const char samples_header[] =
    "run_id" RS_SAMPLE_INT_COLUMNS(COL_NAME) RS_SAMPLE_REAL_COLUMNS(COL_NAME) "\n";
static const char metrics_header[] = "run_id,name,value\n";

/* CSV fields: integers exactly, reals round-trip (%.17g), NaN (NULL in the
 * store) empty, text quoted when it holds a comma, quote or newline. */
static void csv_real(FILE *f, double v)
{
    if (!isnan(v))
        fprintf(f, "%.17g", v);
}

static void csv_text(FILE *f, const char *t)
{
    if (!strpbrk(t, ",\"\n\r")) {
        fputs(t, f);
        return;
    }
    fputc('"', f);
    for (; *t; t++) {
        if (*t == '"')
            fputc('"', f);
        fputc(*t, f);
    }
    fputc('"', f);
}

typedef struct export_out {
    FILE *f;
    long long nrows;
} export_out;

static int export_sample(void *ctx, int64_t run_id, const rs_sample *smp, rs_err *err)
{
    export_out *o = ctx;
    (void)err;
    fprintf(o->f, "%lld", (long long)run_id);
#define CSV_INT(name) fprintf(o->f, ",%lld", (long long)(int64_t)smp->name);
#define CSV_REAL(name) fputc(',', o->f), csv_real(o->f, smp->name);
    RS_SAMPLE_INT_COLUMNS(CSV_INT)
    RS_SAMPLE_REAL_COLUMNS(CSV_REAL)
#undef CSV_INT
#undef CSV_REAL
    fputc('\n', o->f);
    o->nrows++;
    return 0;
}

static int export_metric(void *ctx, int64_t run_id, const char *name, double value, rs_err *err)
{
    export_out *o = ctx;
    (void)err;
    fprintf(o->f, "%lld,", (long long)run_id);
    csv_text(o->f, name);
    fputc(',', o->f);
    csv_real(o->f, value);
    fputc('\n', o->f);
    o->nrows++;
    return 0;
}

static void export_usage(FILE *f)
{
    fprintf(f,
            "usage: rssim runs export --csv (--run ID | --sweep ID) [--what samples|metrics]\n"
            "                         [--db PATH] [-o FILE]\n\n"
            "Write a run's (or all of a sweep's runs', in point order) samples or metrics\n"
            "as CSV with a header row.  samples: run_id and every sample column (each\n"
            "described in docs/store.md); metrics: run_id,name,value.  Runs that are not\n"
            "done have no rows.\n\n"
            "      --csv         the format (the only one)\n"
            "      --run ID      one run\n"
            "      --sweep ID    every run of a sweep\n"
            "      --what W      samples (default) or metrics\n"
            "      --db PATH     SQLite database (default %s)\n"
            "  -o, --output FILE write to FILE (its folder is created) instead of stdout\n"
            "  -h, --help        this help\n",
            rs_cli_default_db());
}

static int runs_export(int argc, char **argv)
{
    static const struct option opts[] = {
        { "csv", no_argument, NULL, 'c' },        { "run", required_argument, NULL, 'r' },
        { "sweep", required_argument, NULL, 'w' }, { "what", required_argument, NULL, 'W' },
        { "db", required_argument, NULL, 'd' },   { "output", required_argument, NULL, 'o' },
        { "help", no_argument, NULL, 'h' },       { NULL, 0, NULL, 0 },
    };
    const char *db = rs_cli_default_db(), *what = "samples", *out = NULL;
    int64_t run = 0, sweep = 0;
    int c, csv = 0, rc;

    optind = 1;
    while ((c = getopt_long(argc, argv, "o:h", opts, NULL)) != -1) {
        switch (c) {
        case 'c': csv = 1; break;
        case 'r':
            if (!(run = rs_cli_parse_id(optarg)))
                return rs_cli_usage_error("runs export", "bad run id '%s'", optarg);
            break;
        case 'w':
            if (!(sweep = rs_cli_parse_id(optarg)))
                return rs_cli_usage_error("runs export", "bad sweep id '%s'", optarg);
            break;
        case 'W': what = optarg; break;
        case 'd': db = optarg; break;
        case 'o': out = optarg; break;
        case 'h': export_usage(stdout); return 0;
        default: export_usage(stderr); return 2;
        }
    }
    if (optind != argc)
        return rs_cli_usage_error("runs export", "unexpected argument '%s'", argv[optind]);
    if (!csv)
        return rs_cli_usage_error("runs export", "--csv is required (the only format)");
    if (!run == !sweep)
        return rs_cli_usage_error("runs export", "give exactly one of --run ID and --sweep ID");
    int samples = !strcmp(what, "samples");
    if (!samples && strcmp(what, "metrics"))
        return rs_cli_usage_error("runs export", "--what must be samples or metrics, not '%s'",
                                  what);

    rs_err err = { 0 };
    rs_store *st = NULL;
    FILE *f = stdout;
    char status[16];
    const rs_query_scope scope = { .run_id = run, .sweep_id = sweep };
    export_out o = { 0 };

    if (rs_store_open_ro(&st, db, &err) ||
        (run ? rs_store_run_status(st, run, status, &err) : rs_store_sweep_check(st, sweep, &err))) {
        rs_store_close(st);
        return rs_cli_report(&err);
    }
    rc = 0;
    if (out) {
        if (rs_cli_mkdir_parent(out, &err)) {
            rc = rs_cli_report(&err);
            goto out;
        }
        if (!(f = fopen(out, "w"))) {
            rs_fail(&err, RS_EIO, "cannot write '%s': %s", out, strerror(errno));
            rc = rs_cli_report(&err);
            goto out;
        }
    }
    fputs(samples ? samples_header : metrics_header, f);
    o.f = f;
    if ((rc = samples ? rs_query_samples(st, &scope, NULL, 0, export_sample, &o, &err)
                      : rs_query_metrics(st, &scope, export_metric, &o, &err))) {
        rc = rs_cli_report(&err);
        goto out;
    }
    if (ferror(f) || fflush(f) != 0) {
        rs_fail(&err, RS_EIO, "cannot write '%s': %s", out ? out : "(stdout)", strerror(errno));
        rc = rs_cli_report(&err);
    }
    if (out && !rc)
        fprintf(stderr, "rssim: wrote %lld rows to '%s'\n", o.nrows, out);
out:
    if (f && f != stdout && fclose(f) != 0 && !rc) {
        rs_fail(&err, RS_EIO, "cannot write '%s': %s", out, strerror(errno));
        rc = rs_cli_report(&err);
    }
    rs_store_close(st);
    return rc;
}

/* ---- init ---- */

static void init_usage(FILE *f)
{
    fprintf(f,
            "usage: rssim runs init [--db PATH]\n\n"
            "Create the database (and its folder) with an empty, current schema, or\n"
            "check that an existing one has it.  replay and sweep do this themselves;\n"
            "init is for scripts and tests that fill a database with other tools.\n\n"
            "      --db PATH     SQLite database (default %s)\n"
            "  -h, --help        this help\n",
            rs_cli_default_db());
}

static int runs_init(int argc, char **argv)
{
    static const struct option opts[] = {
        { "db", required_argument, NULL, 'd' }, { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    const char *db = rs_cli_default_db();
    int c;

    optind = 1;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        switch (c) {
        case 'd': db = optarg; break;
        case 'h': init_usage(stdout); return 0;
        default: init_usage(stderr); return 2;
        }
    }
    if (optind != argc)
        return rs_cli_usage_error("runs init", "unexpected argument '%s'", argv[optind]);

    rs_err err = { 0 };
    rs_store *st = NULL;
    if (rs_cli_mkdir_parent(db, &err) || rs_store_open(&st, db, &err))
        return rs_cli_report(&err);
    rs_store_close(st);
    printf("database '%s' ready\n", db);
    return 0;
}

/* ---- import-measured ---- */

/* The params of an imported measured run (--set KEY=VALUE), checked with the
 * config machinery.  The limit keys are Ceph's option names. */
static const rs_param import_params[] = {
    { .key = "daemon", .type = RS_PT_STRING, .def = "mds", .choices = "mds|osd",
      .doc = "the measured daemon" },
    { .key = "alloc", .type = RS_PT_STRING, .def = "glibc", .choices = "glibc|tcmalloc",
      .doc = "the daemon's allocator (tcmalloc: LD_PRELOAD into a build without it)" },
    { .key = "build", .type = RS_PT_STRING, .def = "unknown",
      .doc = "which Ceph build ran, e.g. 'debian 16.2.15+ds-0+deb12u2'" },
    { .key = "mds_cache_memory_limit", .type = RS_PT_SIZE, .def = "0",
      .doc = "the MDS's cache limit (bytes; 0: not set)" },
    { .key = "osd_memory_target", .type = RS_PT_SIZE, .def = "0",
      .doc = "the OSD's memory target (bytes; 0: not set)" },
    { .key = "bluestore_cache_autotune", .type = RS_PT_BOOL, .def = "true",
      .doc = "the OSD's cache autotuner" },
    { .key = "sample_interval", .type = RS_PT_DURATION, .def = "1s",
      .doc = "wall-clock time between samples" },
    { .key = "workload", .type = RS_PT_STRING, .def = "unknown", .doc = "what drove the daemon" },
    { .key = "steady_from", .type = RS_PT_DOUBLE, .def = "0.5", .range = "[0, 1)",
      .doc = "steady state from this fraction of the run on (as rssim's presets)" },
    { .key = NULL },
};

#define IMPORT_MAX_COLS 128
#define IMPORT_LINE_BYTES 65536

/* Where each CSV column goes: a sample column (by offset), or an extra
 * numeric column whose steady mean and peak become metrics. */
typedef struct import_col {
    char name[48];
    int sample_int;  /* index into the int columns, -1: not one */
    double sum, peak; /* extra columns: over the steady samples / all */
    size_t n;
} import_col;

static const char *const sample_int_names[] = {
#define NAME(c) #c,
    RS_SAMPLE_INT_COLUMNS(NAME)
#undef NAME
};
enum {
#define IDX(c) SI_##c,
    RS_SAMPLE_INT_COLUMNS(IDX)
#undef IDX
    SI_COUNT
};

static uint64_t *sample_int_at(rs_sample *smp, int i)
{
    switch (i) {
#define CASE(c) case SI_##c: return &smp->c;
    RS_SAMPLE_INT_COLUMNS(CASE)
#undef CASE
    default: return NULL;
    }
}

static void import_usage(FILE *f)
{
    fprintf(f,
            "usage: rssim runs import-measured --trace T --preset P [--label L] [--db PATH]\n"
            "                                  [--set KEY=VALUE]... SAMPLES.csv\n\n"
            "Store samples taken on a real daemon (scripts/ceph-measure) as a run of kind\n"
            "'measured', next to the predicted runs of the same trace.  SAMPLES.csv has a\n"
            "header row; columns named like sample columns (docs/store.md: t_ns,\n"
            "rss_bytes, accounted_bytes, limit_bytes, heap_bytes, unmapped_bytes,\n"
            "items_count ...) fill them, t_ns and rss_bytes are required, an empty cell is 0.\n"
            "x and overshoot are computed per sample; a missing limit_bytes column is the\n"
            "daemon's limit param; the limit_bytes metric is the last sample's.  Every\n"
            "other column must be numeric: its steady mean and peak become metrics\n"
            "NAME_steady and NAME_peak (e.g. mempool bytes per pool; an always-zero\n"
            "column is left out).  wall_ns is the last sample's t_ns.\n"
            "The run metrics are computed as rssim's sampler computes them.\n\n"
            "      --trace T        the trace the workload followed (its sha256 is stored)\n"
            "      --preset P       the preset a prediction of it uses (stored as is)\n"
            "      --label L        free text\n"
            "      --events N       the trace records the workload issued (stored as events)\n"
            "      --set KEY=VALUE  a param of the run:\n");
    for (const rs_param *p = import_params; p->key; p++)
        fprintf(f, "                         %s (default '%s'%s%s): %s\n", p->key, p->def,
                p->choices ? ", " : "", p->choices ? p->choices : "", p->doc);
    fprintf(f,
            "      --db PATH        SQLite database (default %s)\n"
            "  -h, --help           this help\n",
            rs_cli_default_db());
}

/* Split line at commas in place into at most cap fields; returns the count. */
static int csv_split(char *line, char **fields, int cap)
{
    int n = 0;
    char *p = line;
    line[strcspn(line, "\r\n")] = '\0';
    while (n < cap) {
        fields[n++] = p;
        char *comma = strchr(p, ',');
        if (!comma)
            break;
        *comma = '\0';
        p = comma + 1;
    }
    return n;
}

static int parse_cell(const char *path, long line, const char *col, const char *cell,
                      double *r_v, rs_err *err)
{
    char *end;
    if (!*cell) {
        *r_v = 0;
        return 0;
    }
    errno = 0;
    double v = strtod(cell, &end);
    if (*end || errno == ERANGE || !isfinite(v) || v < 0)
        return rs_fail(err, RS_EINPUT, "%s:%ld: bad value '%.40s' in column '%s' "
                       "(a number >= 0 expected)", path, line, cell, col);
    *r_v = v;
    return 0;
}

/* Read the CSV into res (samples) and cols (extras); checks time order. */
static int import_read(const char *path, rs_result *res, import_col *cols, int *r_ncols,
                       uint64_t default_limit, rs_err *err)
{
    FILE *f = fopen(path, "r");
    char *line = NULL, *fields[IMPORT_MAX_COLS];
    long lineno = 1;
    int rc = 0, ncols, have_t = 0, have_rss = 0;

    if (!f)
        return rs_fail(err, errno == ENOENT ? RS_EINPUT : RS_EIO, "cannot open '%s': %s",
                       path, strerror(errno));
    if (!(line = malloc(IMPORT_LINE_BYTES))) {
        fclose(f);
        return rs_fail(err, RS_ENOMEM, "out of memory reading '%s'", path);
    }
    if (!fgets(line, IMPORT_LINE_BYTES, f)) {
        rc = rs_fail(err, RS_EINPUT, "%s:1: empty file (a CSV header row expected)", path);
        goto out;
    }
    ncols = csv_split(line, fields, IMPORT_MAX_COLS);
    for (int k = 0; k < ncols; k++) {
        import_col *c = &cols[k];
        *c = (import_col){ .sample_int = -1 };
        if (!*fields[k] || strlen(fields[k]) >= sizeof c->name - 6) {
            rc = rs_fail(err, RS_EINPUT, "%s:1: column %d: empty or too long a name", path, k + 1);
            goto out;
        }
        snprintf(c->name, sizeof c->name, "%s", fields[k]);
        for (int i = 0; i < SI_COUNT; i++)
            if (!strcmp(fields[k], sample_int_names[i]))
                c->sample_int = i;
        for (int j = 0; j < k; j++)
            if (!strcmp(cols[j].name, c->name)) {
                rc = rs_fail(err, RS_EINPUT, "%s:1: column '%s' twice", path, c->name);
                goto out;
            }
        have_t |= c->sample_int == SI_t_ns;
        have_rss |= c->sample_int == SI_rss_bytes;
    }
    if (!have_t || !have_rss) {
        rc = rs_fail(err, RS_EINPUT, "%s:1: no '%s' column (t_ns and rss_bytes are required)",
                     path, have_t ? "rss_bytes" : "t_ns");
        goto out;
    }
    while (fgets(line, IMPORT_LINE_BYTES, f)) {
        lineno++;
        if (line[0] == '\n' || line[0] == '\r' || line[0] == '#')
            continue;
        int n = csv_split(line, fields, IMPORT_MAX_COLS);
        if (n != ncols) {
            rc = rs_fail(err, RS_EINPUT, "%s:%ld: %d fields, the header has %d", path, lineno, n,
                         ncols);
            goto out;
        }
        rs_sample smp = { .limit_bytes = default_limit };
        for (int k = 0; k < ncols; k++) {
            double v = 0;
            if ((rc = parse_cell(path, lineno, cols[k].name, fields[k], &v, err)))
                goto out;
            if (cols[k].sample_int >= 0)
                *sample_int_at(&smp, cols[k].sample_int) = (uint64_t)llround(v);
        }
        if (res->nsamples && smp.t_ns <= res->samples[res->nsamples - 1].t_ns) {
            rc = rs_fail(err, RS_EINPUT, "%s:%ld: t_ns %" PRIu64 " not after %" PRIu64, path,
                         lineno, smp.t_ns, res->samples[res->nsamples - 1].t_ns);
            goto out;
        }
        smp.x = smp.rss_bytes ? 1.0 - (double)smp.accounted_bytes / (double)smp.rss_bytes : 0.0;
        smp.overshoot = smp.limit_bytes ? (double)smp.rss_bytes / (double)smp.limit_bytes : 0.0;
        if ((rc = rs_result_add_sample(res, &smp, err)))
            goto out;
    }
    if (ferror(f)) {
        rc = rs_fail(err, RS_EIO, "cannot read '%s': %s", path, strerror(errno));
        goto out;
    }
    if (!res->nsamples) {
        rc = rs_fail(err, RS_EINPUT, "%s: no samples", path);
        goto out;
    }
    *r_ncols = ncols;
out:
    free(line);
    fclose(f);
    return rc;
}

/* Second pass over the CSV for the extra columns' steady means and peaks. */
static int import_extras(const char *path, import_col *cols, int ncols, uint64_t from_ns,
                         rs_err *err)
{
    FILE *f = fopen(path, "r");
    char *line = malloc(IMPORT_LINE_BYTES), *fields[IMPORT_MAX_COLS];
    int t_col = 0, rc = 0;
    long lineno = 1;

    if (!f || !line) {
        rc = f ? rs_fail(err, RS_ENOMEM, "out of memory reading '%s'", path)
               : rs_fail(err, RS_EIO, "cannot open '%s': %s", path, strerror(errno));
        goto out;
    }
    for (int k = 0; k < ncols; k++)
        if (cols[k].sample_int == SI_t_ns)
            t_col = k;
    if (!fgets(line, IMPORT_LINE_BYTES, f))
        goto out;
    while (fgets(line, IMPORT_LINE_BYTES, f)) {
        lineno++;
        if (line[0] == '\n' || line[0] == '\r' || line[0] == '#')
            continue;
        csv_split(line, fields, IMPORT_MAX_COLS);
        double t = 0, v = 0;
        if ((rc = parse_cell(path, lineno, cols[t_col].name, fields[t_col], &t, err)))
            goto out;
        for (int k = 0; k < ncols; k++) {
            if (cols[k].sample_int >= 0 || !*fields[k])
                continue;
            if ((rc = parse_cell(path, lineno, cols[k].name, fields[k], &v, err)))
                goto out;
            if (v > cols[k].peak)
                cols[k].peak = v;
            if ((uint64_t)llround(t) >= from_ns) {
                cols[k].sum += v;
                cols[k].n++;
            }
        }
    }
out:
    free(line);
    if (f)
        fclose(f);
    return rc;
}

static int runs_import_measured(int argc, char **argv)
{
    static const struct option opts[] = {
        { "db", required_argument, NULL, 'd' },    { "trace", required_argument, NULL, 't' },
        { "preset", required_argument, NULL, 'p' }, { "label", required_argument, NULL, 'l' },
        { "set", required_argument, NULL, 's' },   { "events", required_argument, NULL, 'e' },
        { "help", no_argument, NULL, 'h' },        { NULL, 0, NULL, 0 },
    };
    const char *db = rs_cli_default_db(), *trace = NULL, *preset = NULL, *label = NULL;
    long long events = -1;
    rs_err err = { 0 };
    rs_config *cfg = NULL;
    rs_store *st = NULL;
    rs_result res;
    import_col *cols = NULL;
    int c, rc = 0, ncols = 0;

    rs_result_init(&res);
    if (rs_config_new_with(&cfg, import_params, &err))
        return rs_cli_report(&err);
    optind = 1;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        switch (c) {
        case 'd': db = optarg; break;
        case 't': trace = optarg; break;
        case 'p': preset = optarg; break;
        case 'l': label = optarg; break;
        case 'e': {
            char *end;
            errno = 0;
            events = strtoll(optarg, &end, 10);
            if (*end || !*optarg || errno || events < 0) {
                rs_config_free(cfg);
                return rs_cli_usage_error("runs import-measured", "bad --events '%s'", optarg);
            }
            break;
        }
        case 's':
            if (strchr(optarg, '=')) {
                char key[64];
                size_t klen = (size_t)(strchr(optarg, '=') - optarg);
                snprintf(key, sizeof key, "%.*s", (int)(klen < 63 ? klen : 63), optarg);
                if (!rs_param_find(import_params, key)) {
                    rs_config_free(cfg);
                    return rs_cli_usage_error("runs import-measured", "unknown key '%s' "
                                              "(see rssim runs import-measured -h)", key);
                }
                if (rs_config_set(cfg, key, strchr(optarg, '=') + 1, &err)) {
                    rs_config_free(cfg);
                    return rs_cli_report(&err);
                }
                break;
            }
            rs_config_free(cfg);
            return rs_cli_usage_error("runs import-measured", "bad --set '%s' (KEY=VALUE)", optarg);
        case 'h': import_usage(stdout); rs_config_free(cfg); return 0;
        default: import_usage(stderr); rs_config_free(cfg); return 2;
        }
    }
    if (optind != argc - 1 || !trace || !preset) {
        rs_config_free(cfg);
        return rs_cli_usage_error("runs import-measured", "%s",
                                  optind >= argc ? "no SAMPLES.csv given"
                                  : optind < argc - 1 ? "more than one SAMPLES.csv"
                                  : "--trace and --preset are required");
    }
    const char *csv = argv[optind];
    /* the defaults count as set: every param of the run is stored */
    for (const rs_param *p = import_params; p->key; p++)
        if (!rs_config_raw(cfg, p->key) && (rc = rs_config_set(cfg, p->key, p->def, &err)))
            goto report;
    if ((rc = rs_config_validate(cfg, &err)))
        goto report;
    int is_mds = rs_config_choice(cfg, "daemon") == 0;
    uint64_t limit = rs_config_size(cfg, is_mds ? "mds_cache_memory_limit" : "osd_memory_target");
    double steady_from = rs_config_double(cfg, "steady_from");
    char sha[65];
    if (!(cols = calloc(IMPORT_MAX_COLS, sizeof *cols))) {
        rc = rs_fail(&err, RS_ENOMEM, "out of memory");
        goto report;
    }
    if ((rc = rs_file_sha256(trace, sha, &err)) ||
        (rc = import_read(csv, &res, cols, &ncols, limit, &err)))
        goto report;

    uint64_t end_ns = res.samples[res.nsamples - 1].t_ns;
    /* the limit at the end, as a simulated daemon reports it (the OSD's
     * moves with its autotuner); the param when the CSV has no column */
    rs_run_totals tot = { .limit_bytes = res.samples[res.nsamples - 1].limit_bytes };
    for (size_t i = 0; i < res.nsamples; i++) {
        const rs_sample *smp = &res.samples[i];
        if (smp->accounted_bytes > tot.accounted_peak_bytes)
            tot.accounted_peak_bytes = smp->accounted_bytes;
        if (smp->items_count > tot.items_peak_count)
            tot.items_peak_count = smp->items_count;
    }
    tot.trims_count = res.samples[res.nsamples - 1].trims_count;
    tot.trimmed_items_count = res.samples[res.nsamples - 1].trimmed_items_count;
    uint64_t from_ns = (uint64_t)((double)end_ns * steady_from);
    uint64_t nevents = events >= 0 ? (uint64_t)events : 0;
    if ((rc = rs_result_metrics(&res, &tot, end_ns, steady_from, nevents, &err)) ||
        (rc = import_extras(csv, cols, ncols, from_ns, &err)))
        goto report;
    for (int k = 0; k < ncols && !rc; k++) {
        char name[64];
        if (cols[k].sample_int >= 0 || cols[k].peak == 0)
            continue; /* an always-zero column (an unused mempool) says nothing */
        snprintf(name, sizeof name, "%s_steady", cols[k].name);
        rc = rs_result_set_metric(&res, name, cols[k].n ? cols[k].sum / (double)cols[k].n : NAN,
                                  &err);
        snprintf(name, sizeof name, "%s_peak", cols[k].name);
        if (!rc)
            rc = rs_result_set_metric(&res, name, cols[k].peak, &err);
    }
    if (rc)
        goto report;

    int64_t run_id = 0;
    rs_run_meta meta = { .kind = "measured", .trace_path = trace, .trace_sha256 = sha,
                         .preset = preset, .seed = 0, .label = label, .sweep_id = 0,
                         .point_index = -1 };
    if ((rc = rs_cli_mkdir_parent(db, &err)) || (rc = rs_store_open(&st, db, &err)) ||
        (rc = rs_store_run_import(st, &meta, cfg, &res, nevents, end_ns, &run_id, &err)))
        goto report;
    double v_steady = NAN, v_peak = NAN, v_x = NAN;
    rs_result_metric(&res, "rss_steady_bytes", &v_steady);
    rs_result_metric(&res, "rss_peak_bytes", &v_peak);
    rs_result_metric(&res, "x_steady", &v_x);
    printf("run %lld (measured): %zu samples over %.1f s, rss steady %.1f MiB, peak %.1f MiB, "
           "x_steady %.3f\n", (long long)run_id, res.nsamples, (double)end_ns / 1e9,
           v_steady / MIB, v_peak / MIB, v_x);
report:
    if (rc)
        rc = rs_cli_report(&err);
    free(cols);
    rs_result_release(&res);
    rs_store_close(st);
    rs_config_free(cfg);
    return rc;
}
