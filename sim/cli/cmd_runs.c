/*
 * cmd_runs.c — `rssim runs list|show|export|init`: look at stored runs.
 *
 * list, show and export open the database read-only (rs_store_open_ro): a
 * mistyped --db is an error, never a new empty file.  init is the one
 * subcommand that creates a database (an empty, migrated schema: for
 * scripts and tests that fill it themselves).  Queries are plain SQL on the
 * store's handle; the sample columns come from result.h's X-macros, so the
 * CSV export follows the schema.  See docs/store.md.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../base/result.h"
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

static const runs_sub subs[] = {
    { .name = "list", .run = runs_list, .summary = "one line per run: status, preset, steady RSS" },
    { .name = "show", .run = runs_show, .summary = "one run: its row, params and metrics" },
    { .name = "export", .run = runs_export, .summary = "samples or metrics of a run or sweep as CSV" },
    { .name = "init", .run = runs_init, .summary = "create an empty database (schema only)" },
};

static void usage(FILE *f)
{
    fprintf(f, "usage: rssim runs <list|show|export|init> [options]   (rssim runs <sub> -h)\n\n");
    for (size_t i = 0; i < sizeof subs / sizeof subs[0]; i++)
        fprintf(f, "  %-7s %s\n", subs[i].name, subs[i].summary);
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

/* Report a SQLite failure on st's database; returns the exit status. */
static int report_db(rs_store *st, const char *what)
{
    rs_err err;
    rs_fail(&err, RS_EDB, "%s in '%s': %s", what, rs_store_path(st),
            sqlite3_errmsg(rs_store_db(st)));
    return rs_cli_report(&err);
}

static int prepare(rs_store *st, const char *sql, sqlite3_stmt **r_s)
{
    if (sqlite3_prepare_v2(rs_store_db(st), sql, -1, r_s, NULL) != SQLITE_OK)
        return report_db(st, "cannot query the database");
    return 0;
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

typedef struct list_row {
    char cell[L_NCOLS][LIST_CELL];
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

/* A metric divided by scale with digits decimals, or "-" when NULL. */
static void cell_real(char *cell, sqlite3_stmt *s, int col, double scale, int digits)
{
    if (sqlite3_column_type(s, col) == SQLITE_NULL)
        snprintf(cell, LIST_CELL, "-");
    else
        snprintf(cell, LIST_CELL, "%.*f", digits, sqlite3_column_double(s, col) / scale);
}

static void list_usage(FILE *f)
{
    fprintf(f,
            "usage: rssim runs list [--db PATH] [--sweep ID] [--status S]\n\n"
            "One line per run, oldest first.  The last three columns are the run's\n"
            "metrics rss_steady_bytes (in MiB), overshoot_steady (rss/limit) and x_steady\n"
            "(untracked fraction), '-' until the run is done.\n\n"
            "      --db PATH     SQLite database (default %s)\n"
            "      --sweep ID    only the runs of this sweep, in point order\n"
            "      --status S    only runs with status S: pending, running, done, failed\n"
            "  -h, --help        this help\n",
            rs_cli_default_db());
}

static int runs_list(int argc, char **argv)
{
    static const struct option opts[] = {
        { "db", required_argument, NULL, 'd' }, { "sweep", required_argument, NULL, 'w' },
        { "status", required_argument, NULL, 's' }, { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    static const char *const statuses[] = { "pending", "running", "done", "failed" };
    const char *db = rs_cli_default_db(), *status = NULL;
    int64_t sweep = 0;
    int c, rc = 0;

    optind = 1;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        switch (c) {
        case 'd': db = optarg; break;
        case 'w':
            if (!(sweep = rs_cli_parse_id(optarg)))
                return rs_cli_usage_error("runs list", "bad sweep id '%s'", optarg);
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
    sqlite3_stmt *s = NULL;
    list_row *rows = NULL;
    size_t n = 0, cap = 0;

    if (rs_store_open_ro(&st, db, &err))
        return rs_cli_report(&err);
    if (sweep && (rc = rs_store_sweep_check(st, sweep, &err))) {
        rc = rs_cli_report(&err);
        goto out;
    }
    if ((rc = prepare(st,
                      "SELECT r.id, r.kind, r.status, r.sweep_id, r.point_index, r.preset, r.label,"
                      " r.seed,"
                      " (SELECT value FROM metrics WHERE run_id = r.id AND name = 'rss_steady_bytes'),"
                      " (SELECT value FROM metrics WHERE run_id = r.id AND name = 'overshoot_steady'),"
                      " (SELECT value FROM metrics WHERE run_id = r.id AND name = 'x_steady')"
                      " FROM runs r WHERE (?1 IS NULL OR r.sweep_id = ?1)"
                      " AND (?2 IS NULL OR r.status = ?2)"
                      " ORDER BY CASE WHEN ?1 IS NULL THEN r.id ELSE r.point_index END",
                      &s)))
        goto out;
    if (sweep)
        sqlite3_bind_int64(s, 1, sweep);
    sqlite3_bind_text(s, 2, status, -1, SQLITE_STATIC);
    while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
        if (n == cap) {
            size_t ncap = cap ? 2 * cap : 64;
            list_row *p = realloc(rows, ncap * sizeof *p);
            if (!p) {
                rs_fail(&err, RS_ENOMEM, "out of memory listing %zu runs", n);
                rc = rs_cli_report(&err);
                goto out;
            }
            rows = p;
            cap = ncap;
        }
        list_row *r = &rows[n++];
        snprintf(r->cell[L_ID], LIST_CELL, "%lld", (long long)sqlite3_column_int64(s, 0));
        cell_text(r->cell[L_KIND], (const char *)sqlite3_column_text(s, 1));
        cell_text(r->cell[L_STATUS], (const char *)sqlite3_column_text(s, 2));
        if (sqlite3_column_type(s, 3) == SQLITE_NULL)
            snprintf(r->cell[L_POINT], LIST_CELL, "-");
        else
            snprintf(r->cell[L_POINT], LIST_CELL, "%lld/%lld",
                     (long long)sqlite3_column_int64(s, 3), (long long)sqlite3_column_int64(s, 4));
        cell_text(r->cell[L_PRESET], (const char *)sqlite3_column_text(s, 5));
        cell_text(r->cell[L_LABEL], (const char *)sqlite3_column_text(s, 6));
        snprintf(r->cell[L_SEED], LIST_CELL, "%" PRIu64, (uint64_t)sqlite3_column_int64(s, 7));
        cell_real(r->cell[L_RSS], s, 8, MIB, 1);
        cell_real(r->cell[L_OVER], s, 9, 1.0, 3);
        cell_real(r->cell[L_X], s, 10, 1.0, 3);
    }
    if (rc != SQLITE_DONE) {
        rc = report_db(st, "cannot list runs");
        goto out;
    }
    rc = 0;

    int width[L_NCOLS];
    for (int k = 0; k < L_NCOLS; k++) {
        width[k] = (int)strlen(list_cols[k].head);
        for (size_t i = 0; i < n; i++)
            if ((int)strlen(rows[i].cell[k]) > width[k])
                width[k] = (int)strlen(rows[i].cell[k]);
    }
    for (size_t i = 0; i <= n; i++) {
        for (int k = 0; k < L_NCOLS; k++) {
            const char *text = i == 0 ? list_cols[k].head : rows[i - 1].cell[k];
            int last = k == L_NCOLS - 1;
            if (list_cols[k].right)
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
    free(rows);
    sqlite3_finalize(s);
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
    sqlite3_stmt *s = NULL;
    char status[16];

    if (rs_store_open_ro(&st, db, &err) || rs_store_run_status(st, id, status, &err)) {
        rs_store_close(st);
        return rs_cli_report(&err);
    }
    /* the row, one column per line */
    if ((rc = prepare(st, "SELECT * FROM runs WHERE id = ?1", &s)))
        goto out;
    sqlite3_bind_int64(s, 1, id);
    if (sqlite3_step(s) != SQLITE_ROW) {
        rc = report_db(st, "cannot read the run");
        goto out;
    }
    printf("run %lld\n", (long long)id);
    for (int k = 0; k < sqlite3_column_count(s); k++) {
        const char *name = sqlite3_column_name(s, k);
        if (!strcmp(name, "id"))
            continue;
        if (sqlite3_column_type(s, k) == SQLITE_NULL)
            printf("  %-13s -\n", name);
        else if (!strcmp(name, "seed"))
            printf("  %-13s %" PRIu64 "\n", name, (uint64_t)sqlite3_column_int64(s, k));
        else
            printf("  %-13s %s\n", name, (const char *)sqlite3_column_text(s, k));
    }
    sqlite3_finalize(s);
    s = NULL;

    if ((rc = prepare(st, "SELECT count(*), min(t_ns), max(t_ns) FROM samples WHERE run_id = ?1",
                      &s)))
        goto out;
    sqlite3_bind_int64(s, 1, id);
    if (sqlite3_step(s) == SQLITE_ROW && sqlite3_column_int64(s, 0) > 0)
        printf("  %-13s %lld (t %.3f s .. %.3f s)\n", "samples",
               (long long)sqlite3_column_int64(s, 0), (double)sqlite3_column_int64(s, 1) / 1e9,
               (double)sqlite3_column_int64(s, 2) / 1e9);
    else
        printf("  %-13s 0\n", "samples");
    sqlite3_finalize(s);
    s = NULL;

    if ((rc = prepare(st, "SELECT key, value FROM params WHERE run_id = ?1 ORDER BY key", &s)))
        goto out;
    sqlite3_bind_int64(s, 1, id);
    printf("params\n");
    while ((rc = sqlite3_step(s)) == SQLITE_ROW)
        printf("  %s = %s\n", (const char *)sqlite3_column_text(s, 0),
               (const char *)sqlite3_column_text(s, 1));
    if (rc != SQLITE_DONE) {
        rc = report_db(st, "cannot read the params");
        goto out;
    }
    sqlite3_finalize(s);
    s = NULL;

    if ((rc = prepare(st, "SELECT name, value FROM metrics WHERE run_id = ?1 ORDER BY name", &s)))
        goto out;
    sqlite3_bind_int64(s, 1, id);
    printf("metrics\n");
    while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
        const char *name = (const char *)sqlite3_column_text(s, 0);
        char value[64];
        if (sqlite3_column_type(s, 1) == SQLITE_NULL) {
            printf("  %-24s NaN\n", name);
            continue;
        }
        double v = sqlite3_column_double(s, 1);
        format_value(value, sizeof value, v);
        size_t len = strlen(name);
        if (len > 6 && !strcmp(name + len - 6, "_bytes"))
            printf("  %-24s %-14.0f (%.1f MiB)\n", name, v, v / MIB);
        else
            printf("  %-24s %s\n", name, value);
    }
    if (rc != SQLITE_DONE) {
        rc = report_db(st, "cannot read the metrics");
        goto out;
    }
    rc = 0;
out:
    sqlite3_finalize(s);
    rs_store_close(st);
    return rc;
}

/* ---- export ---- */

#define COL_NAME(name) "," #name
#define COL_SEL(name) ", s." #name

static const char samples_header[] =
    "run_id" RS_SAMPLE_INT_COLUMNS(COL_NAME) RS_SAMPLE_REAL_COLUMNS(COL_NAME) "\n";
static const char samples_of_run[] =
    "SELECT s.run_id" RS_SAMPLE_INT_COLUMNS(COL_SEL) RS_SAMPLE_REAL_COLUMNS(COL_SEL)
    " FROM samples s WHERE s.run_id = ?1 ORDER BY s.t_ns";
static const char samples_of_sweep[] =
    "SELECT s.run_id" RS_SAMPLE_INT_COLUMNS(COL_SEL) RS_SAMPLE_REAL_COLUMNS(COL_SEL)
    " FROM samples s JOIN runs r ON r.id = s.run_id WHERE r.sweep_id = ?1"
    " ORDER BY r.point_index, s.t_ns";
static const char metrics_header[] = "run_id,name,value\n";
static const char metrics_of_run[] =
    "SELECT run_id, name, value FROM metrics WHERE run_id = ?1 ORDER BY name";
static const char metrics_of_sweep[] =
    "SELECT m.run_id, m.name, m.value FROM metrics m JOIN runs r ON r.id = m.run_id"
    " WHERE r.sweep_id = ?1 ORDER BY r.point_index, m.name";

/* One CSV field: integers exactly, reals round-trip (%.17g), NULL empty,
 * text quoted when it holds a comma, quote or newline. */
static void csv_field(FILE *f, sqlite3_stmt *s, int col)
{
    switch (sqlite3_column_type(s, col)) {
    case SQLITE_INTEGER: fprintf(f, "%lld", (long long)sqlite3_column_int64(s, col)); break;
    case SQLITE_FLOAT: fprintf(f, "%.17g", sqlite3_column_double(s, col)); break;
    case SQLITE_NULL: break;
    default: {
        const char *t = (const char *)sqlite3_column_text(s, col);
        if (!strpbrk(t, ",\"\n\r")) {
            fputs(t, f);
            break;
        }
        fputc('"', f);
        for (; *t; t++) {
            if (*t == '"')
                fputc('"', f);
            fputc(*t, f);
        }
        fputc('"', f);
    }
    }
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
    sqlite3_stmt *s = NULL;
    FILE *f = stdout;
    char status[16];
    long long nrows = 0;

    if (rs_store_open_ro(&st, db, &err) ||
        (run ? rs_store_run_status(st, run, status, &err) : rs_store_sweep_check(st, sweep, &err))) {
        rs_store_close(st);
        return rs_cli_report(&err);
    }
    const char *sql = samples ? (run ? samples_of_run : samples_of_sweep)
                              : (run ? metrics_of_run : metrics_of_sweep);
    if ((rc = prepare(st, sql, &s)))
        goto out;
    sqlite3_bind_int64(s, 1, run ? run : sweep);
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
    int ncols = sqlite3_column_count(s);
    while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
        for (int k = 0; k < ncols; k++) {
            if (k)
                fputc(',', f);
            csv_field(f, s, k);
        }
        fputc('\n', f);
        nrows++;
    }
    if (rc != SQLITE_DONE) {
        rc = report_db(st, "cannot read the rows to export");
        goto out;
    }
    rc = 0;
    if (ferror(f) || fflush(f) != 0) {
        rs_fail(&err, RS_EIO, "cannot write '%s': %s", out ? out : "(stdout)", strerror(errno));
        rc = rs_cli_report(&err);
    }
    if (out && !rc)
        fprintf(stderr, "rssim: wrote %lld rows to '%s'\n", nrows, out);
out:
    if (f != stdout && fclose(f) != 0 && !rc) {
        rs_fail(&err, RS_EIO, "cannot write '%s': %s", out, strerror(errno));
        rc = rs_cli_report(&err);
    }
    sqlite3_finalize(s);
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
