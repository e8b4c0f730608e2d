/*
 * query.h — typed answers to the questions the command line asks the run
 * store (docs/store.md, "Queries"): runs (filtered, with chosen metrics and
 * params), one run or sweep, a run's params and metrics, samples of a run
 * or a sweep (chosen columns), and the samples two runs share.
 *
 * query.c is the only reader of the database besides store.c: nothing
 * outside the store layer sees SQL.  Results that can be large (runs,
 * samples, metrics, params) come one row at a time through a callback, so
 * no query holds more than one row; the few bounded ones (one run, one
 * sweep, one metric) fill a struct.  A callback returns 0 to go on or a
 * negative RS_E* (with err filled) to stop: the query then returns that
 * code.  Strings handed to a callback live until it returns.
 *
 * Every function works on read-only handles (rs_store_open_ro) and fails
 * with RS_EDB ("<what> in '<path>': <sqlite message>") when SQLite does.
 * Functions about one run or one sweep fail with RS_ENOTFOUND "no run N in
 * '<path>'" ("no sweep N ...") when there is none, except where noted.
 * Metric values are doubles, NaN when the value is NULL (SQLite stores NaN
 * as NULL) or, for requested metrics, when the run has no such metric.
 */
#ifndef RS_QUERY_H
#define RS_QUERY_H

#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "base/result.h"
#include "store.h"

/* One row of the runs table (store.h).  Text is NULL where the column is. */
typedef struct rs_query_run {
    int64_t id;
    const char *kind;         /* "predicted", "measured" or "observed" */
    const char *status;       /* "pending", "running", "done", "failed" */
    const char *created_at, *started_at, *finished_at; /* UTC text */
    const char *version;      /* rssim's, of the writer */
    const char *trace_path, *trace_sha256, *preset;
    uint64_t seed;
    const char *param_hash;   /* 16 hex digits */
    int64_t sweep_id;         /* valid when has_sweep_id */
    int64_t point_index;      /* valid when has_point_index */
    const char *label;
    int64_t events;           /* valid when has_events */
    int64_t wall_ns;          /* valid when has_wall_ns */
    const char *error;        /* why a failed run failed */
    int has_sweep_id, has_point_index, has_events, has_wall_ns;
    char *storage;            /* owns the text of rs_query_run_get's result */
} rs_query_run;

/* One row of the sweeps table.  Text is NULL where the column is. */
typedef struct rs_query_sweep {
    int64_t id;
    const char *spec_hash, *created_at, *trace_path, *trace_sha256, *preset;
    const char *spec;         /* "--vary ... --set ..." */
    const char *varied_keys;  /* comma-separated, in --vary order */
    const char *status;
    int64_t points, jobs;     /* 0 when NULL */
    char *storage;            /* owns the text */
} rs_query_sweep;

/* Which runs rs_query_samples and rs_query_metrics read: exactly one of
 * run_id (that run) and sweep_id (every run of the sweep, in point order)
 * is non-zero. */
typedef struct rs_query_scope {
    int64_t run_id;
    int64_t sweep_id;
} rs_query_scope;

/* Which runs rs_query_runs reports, and what else it fetches per run. */
typedef struct rs_query_runs_filter {
    int64_t sweep_id;            /* 0: every run, by id; else the sweep's runs by point_index */
    const char *status;          /* NULL: any status */
    const char *const *metrics;  /* names of metrics to fetch per run (may be NULL) */
    size_t nmetrics;
    const char *const *params;   /* keys of params to fetch per run (may be NULL) */
    size_t nparams;
} rs_query_runs_filter;

/* A run of rs_query_runs: metrics[i] is filter->metrics[i]'s value (NaN
 * when missing), params[i] filter->params[i]'s value (NULL when missing). */
typedef int (*rs_query_run_fn)(void *ctx, const rs_query_run *run, const double *metrics,
                               const char *const *params, rs_err *err);
/* A sample row of run_id; only the selected columns are filled (the other
 * integers are 0, the other reals NaN); NULL reals are NaN. */
typedef int (*rs_query_sample_fn)(void *ctx, int64_t run_id, const rs_sample *smp, rs_err *err);
/* The samples of two runs at one common t_ns (selected columns filled). */
typedef int (*rs_query_pair_fn)(void *ctx, const rs_sample *a, const rs_sample *b, rs_err *err);
typedef int (*rs_query_metric_fn)(void *ctx, int64_t run_id, const char *name, double value,
                                  rs_err *err);
/* A param: key and value; rs_query_params_varying passes value NULL. */
typedef int (*rs_query_param_fn)(void *ctx, const char *key, const char *value, rs_err *err);

/* Run run_id's row into *r_run (rs_query_run_release frees its text). */
int rs_query_run_get(rs_store *st, int64_t run_id, rs_query_run *r_run, rs_err *err);
void rs_query_run_release(rs_query_run *run);
/* Sweep sweep_id's row into *r_sweep (rs_query_sweep_release frees it). */
int rs_query_sweep_get(rs_store *st, int64_t sweep_id, rs_query_sweep *r_sweep, rs_err *err);
void rs_query_sweep_release(rs_query_sweep *sw);

/* Every run matching f, each with the metrics and params f names.
 * RS_ENOTFOUND when f->sweep_id names no sweep.  Cost: one indexed lookup
 * per run and requested metric or param. */
int rs_query_runs(rs_store *st, const rs_query_runs_filter *f, rs_query_run_fn fn, void *ctx,
                  rs_err *err);

/* Metric name of run_id: *r_found 1 and *r_value (NaN for NULL), or
 * *r_found 0 when the run has no such metric (also when there is no run). */
int rs_query_metric(rs_store *st, int64_t run_id, const char *name, double *r_value,
                    int *r_found, rs_err *err);
/* The metrics of the scope's runs: by name, a sweep's runs in point order. */
int rs_query_metrics(rs_store *st, const rs_query_scope *scope, rs_query_metric_fn fn, void *ctx,
                     rs_err *err);

/* Run run_id's params, by key. */
int rs_query_params(rs_store *st, int64_t run_id, rs_query_param_fn fn, void *ctx, rs_err *err);
/* The param keys, by key, whose value is not the same in every one of the
 * n runs (it differs, or some run lacks the key); fn gets value NULL.
 * A run listed twice counts twice (so every key then "varies"). */
int rs_query_params_varying(rs_store *st, const int64_t *run_ids, size_t n, rs_query_param_fn fn,
                            void *ctx, rs_err *err);

/* How many samples run_id has, and its first and last t_ns (0 when none). */
int rs_query_samples_span(rs_store *st, int64_t run_id, int64_t *r_count, int64_t *r_first_t_ns,
                          int64_t *r_last_t_ns, rs_err *err);
/* The samples of the scope's runs, by t_ns (a sweep's runs in point
 * order), streamed.  columns names the sample columns (result.h) to fill;
 * NULL means all.  RS_EINPUT "unknown sample column 'c'" for a bad name. */
int rs_query_samples(rs_store *st, const rs_query_scope *scope, const char *const *columns,
                     size_t ncolumns, rs_query_sample_fn fn, void *ctx, rs_err *err);
/* The samples of runs a and b at the times both have, by t_ns, streamed
 * (t_ns is always filled).  No existence check: a run that does not exist
 * has no samples, so fn is never called. */
int rs_query_samples_join(rs_store *st, int64_t run_a, int64_t run_b, const char *const *columns,
                          size_t ncolumns, rs_query_pair_fn fn, void *ctx, rs_err *err);

/* Whether the database holds a plan (`rssim plan`): *r_has 1 when its
 * plans table has a row, 0 when it has none or no such table (a database of
 * an older schema).  Never RS_ENOTFOUND. */
int rs_query_has_plans(rs_store *st, int *r_has, rs_err *err);

/* ---- plans (`rssim plan`) ---- */

/* The id of a 'done' run of the same inputs: trace_sha256 and param_hash
 * (the hash of its full resolved config, seed included) — the newest one;
 * *r_run_id 0 when there is none. */
int rs_query_run_find_done(rs_store *st, const char *trace_sha256, const char *param_hash,
                           int64_t *r_run_id, rs_err *err);

/* One row of the plans table (store.h).  Text is NULL where the column is;
 * numbers are NaN (reals) or 0 (integers) where NULL. */
typedef struct rs_query_plan {
    int64_t id;
    const char *created_at, *status, *preset, *workload, *limit_key, *quantile, *outcome,
        *verdict;
    int64_t ram_bytes, daemons, seeds, limit_bytes;
    double headroom, tol_rel, rule_factor;
    char *storage; /* owns the text */
} rs_query_plan;

/* Plan plan_id's row; RS_ENOTFOUND "no plan N in 'path'". */
int rs_query_plan_get(rs_store *st, int64_t plan_id, rs_query_plan *r_plan, rs_err *err);
void rs_query_plan_release(rs_query_plan *plan);
/* An evaluation of a plan: its run, seed and limit; reused 1 when the run
 * existed before the plan asked for it; sample_k the run's mds_sample_k (1:
 * not sampled; a coarse search's runs, `rssim plan --coarse`, are > 1 where
 * the answer's are 1). */
typedef int (*rs_query_plan_eval_fn)(void *ctx, int64_t run_id, uint64_t seed,
                                     int64_t limit_bytes, int reused, uint32_t sample_k,
                                     rs_err *err);
/* The plan's evaluations by limit, then seed. */
int rs_query_plan_evals(rs_store *st, int64_t plan_id, rs_query_plan_eval_fn fn, void *ctx,
                        rs_err *err);

#endif
