/*
 * cli.h — shared helpers of the rssim program's subcommands.
 *
 * Only sim/cli turns errors into stderr text and exit statuses:
 *   0 success, 1 failure (I/O, database, internal), 2 bad input or usage.
 * Each subcommand lives in cmd_<name>.c and is listed in main.c's commands[].
 */
#ifndef RS_CLI_H
#define RS_CLI_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "../base/err.h"
#include "paths.h"

typedef struct rs_command {
    const char *name;
    int (*run)(int argc, char **argv); /* argv[0] is the subcommand's name */
    const char *summary;               /* one line for `rssim help` */
} rs_command;

/* Print "rssim: <msg>" to stderr and return the exit status for err. */
int rs_cli_report(const rs_err *err);
/* Print "rssim <cmd>: <printf message>" to stderr; returns 2 (usage). */
int rs_cli_usage_error(const char *cmd, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Exit status for an RS_E* code: 0, 1 or 2. */
int rs_cli_status(int code);
/* While a command writes OUT through OUT.tmp: on SIGINT, SIGTERM or SIGHUP
 * remove OUT.tmp, then die of the signal as before (cmd_trace.c).  One
 * output at a time; rs_cli_tmp_unguard when OUT is in place or abandoned. */
void rs_cli_tmp_guard(const char *out_path);
void rs_cli_tmp_unguard(void);
/* Default database path ("out/rssim.db"); the data folders are in paths.h. */
/* "10%" or "0.1" -> 0.1 in *r_v; -1 when s is neither (no range check). */
int rs_cli_parse_fraction(const char *s, double *r_v);
const char *rs_cli_default_db(void);
/* Make every missing folder of path's parent (like mkdir -p dirname). */
int rs_cli_mkdir_parent(const char *path, rs_err *err);
/* The trace format an output name asks for: "text" when it ends (before
 * any .gz/.zst) in .tsv or .txt, else "binary". */
const char *rs_cli_format_for_name(const char *path);
/* A positive decimal run or sweep id; 0 when s is not one. */
long long rs_cli_parse_id(const char *s);
/* The unit to show sizes up to max_bytes in: "GiB" from 10 GiB, "MiB" from
 * 1 MiB, else "KiB", and its size in bytes (report and compare share it). */
void rs_cli_size_unit(double max_bytes, const char **r_unit, double *r_scale);
/* The same for durations in ns: "s" from 1 s, "ms" from 1 ms, else "µs". */
void rs_cli_ns_unit(double max_ns, const char **r_unit, double *r_scale);
/* Monotonic wall-clock nanoseconds (the CLI may read clocks; the library may not). */
unsigned long long rs_cli_now_ns(void);

/* ---- help text ---- */
/* Help screens wrap their descriptions at this many columns (when the
 * description column leaves at least RS_CLI_HELP_MIN_TEXT for the text). */
#define RS_CLI_HELP_COLS 79
#define RS_CLI_HELP_MIN_TEXT 40
/* Print one row of a help table: "  " + each of the ncols cells left-aligned
 * in its width + two spaces, then text word-wrapped, continuation lines (and
 * the lines after a '\n' in text) indented to the text's column.  Callers
 * pass the same widths for every row of a screen, so its columns line up.
 * With ncols 0 it prints text alone as an unindented, wrapped paragraph. */
void rs_cli_help_row(FILE *f, const char *const *cells, const int *widths, int ncols,
                     const char *text);

/* ---- cmd_plot.c: a plot for another command (report) ---- */
/* Draw `rssim plot KIND` of the runs (nruns ids), the sweep or the plan
 * (0 when not given) from the database at db into out (.png, .svg or .txt; the data file beside it),
 * exactly as the command would, printing nothing.  A kind that does not
 * take what is given is RS_EINTERNAL (a caller's bug). */
int rs_cli_plot_draw(const char *db, const char *kind, const int64_t *runs, size_t nruns,
                     int64_t sweep, int64_t plan, const char *out, rs_err *err);

/* ---- runner.c: what replay and sweep share ---- */
struct rs_config;
struct rs_store;
struct rs_result;

/* The preset file for name: name itself when it is a path (has a '/' or
 * ends in .conf), else <presets folder>/<name>.conf (paths.h). */
int rs_cli_preset_path(const char *name, char *r_path, unsigned long cap, rs_err *err);
/* RS_EINPUT unless path names a readable regular file (a missing trace is
 * bad input, exit 2, not an I/O failure). */
int rs_cli_check_input(const char *path, rs_err *err);
/* Config = preset, then each "key=value" of sets in order, validated. */
int rs_cli_build_config(const char *preset, char *const *sets, int nsets,
                        struct rs_config **r_cfg, rs_err *err);
/* Run run_id (already begun/claimed in st) and store its result: 'done'
 * with samples and metrics, or 'failed' with the reason.  *r_wall_ns gets
 * the wall time of the simulation alone.  emit_alloc_trace (may be NULL):
 * write the run's allocator calls there (see sim/run.h). */
int rs_cli_execute_run(struct rs_store *st, long long run_id, const char *trace,
                       const struct rs_config *cfg, const char *emit_alloc_trace,
                       struct rs_result *r_res,
                       unsigned long long *r_events, unsigned long long *r_wall_ns, rs_err *err);
/* The same with the run's options (sim/run.h: rs_run_opts; NULL: none). */
struct rs_run_opts;
struct rs_run_stats;
/* Says on stderr that run run_id of trace was a burst (rs_run_stats:
 * every record at one time, not paced), and how to give it time; nothing
 * when it was not. */
void rs_cli_note_burst(long long run_id, const char *trace, const struct rs_run_stats *stats);
int rs_cli_execute_run_opts(struct rs_store *st, long long run_id, const char *trace,
                            const struct rs_config *cfg, const struct rs_run_opts *opts,
                            struct rs_result *r_res, unsigned long long *r_events,
                            unsigned long long *r_wall_ns, rs_err *err);

/* One stored run to execute (begun in the store, not done): its rc and,
 * on failure, why. */
typedef struct rs_cli_job {
    long long run_id;
    const char *trace;
    const struct rs_config *cfg;
    int rc;
    char msg[512];
} rs_cli_job;
/* Execute jobs[0..n) with up to `workers` processes side by side, each with
 * its own connection to the database db (SQLite WAL; *st, db's connection
 * here, is closed while they run and opened again), or one after another
 * in this process on *st when workers or n is 1.  Every job ends 'done' or
 * 'failed' (a worker killed by a signal fails its run here); after a
 * failure no further job starts (those running finish), and the jobs not
 * started are failed as such; the workers die with this process
 * (PR_SET_PDEATHSIG), leaving their runs not done.  Returns 0 when every
 * job succeeded, else the first failed job's rc with its message in err
 * (all workers have ended by then). */
int rs_cli_execute_runs(struct rs_store **st, const char *db, rs_cli_job *jobs, int n, int workers,
                        rs_err *err);

int cmd_gen(int argc, char **argv);
int cmd_trace(int argc, char **argv);
int cmd_replay(int argc, char **argv);
int cmd_sweep(int argc, char **argv);
int cmd_node(int argc, char **argv);
int cmd_calibrate(int argc, char **argv);
int cmd_observe(int argc, char **argv);
int cmd_fit(int argc, char **argv);
int cmd_runs(int argc, char **argv);
int cmd_plot(int argc, char **argv);
int cmd_list(int argc, char **argv);
int cmd_db(int argc, char **argv);
int cmd_validate(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_plan(int argc, char **argv);

/* ---- strs.c: key/value strings (params of a run, and the like) ---- */
typedef struct rs_cli_strs {
    char **k, **v; /* v[i] may be NULL */
    size_t n, cap;
} rs_cli_strs;
int rs_cli_strs_add(rs_cli_strs *s, const char *k, const char *v, rs_err *err);
/* rs_cli_strs_add as a query callback (ctx: the list). */
int rs_cli_strs_param(void *ctx, const char *key, const char *value, rs_err *err);
/* The value of the first k, or NULL. */
const char *rs_cli_strs_get(const rs_cli_strs *s, const char *k);
void rs_cli_strs_release(rs_cli_strs *s);

#endif
