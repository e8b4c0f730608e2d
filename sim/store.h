/*
 * store.h — the SQLite store of runs (docs/store.md).
 *
 * One database file (default out/rssim.db) in WAL mode with a busy timeout,
 * so several worker processes may write to it at once.  Tables:
 *   meta(key, value)                      schema_version
 *   sweeps(id, spec_hash UNIQUE, created_at, trace_path, trace_sha256,
 *          preset, spec, varied_keys, points, jobs, status)
 *   runs(id, kind 'predicted'|'measured'|'observed', status pending|running|done|failed,
 *        created_at, started_at, finished_at, version, trace_path,
 *        trace_sha256, preset, seed, param_hash, sweep_id, point_index,
 *        label, events, wall_ns, error)
 *   params(run_id, key, value)            the run's full resolved config
 *   samples(run_id, <result.h columns>)   one row per sample time
 *   metrics(run_id, name, value)
 *   plans(id, created_at, status, preset, workload, limit_key, ram_bytes,
 *         daemons, headroom, quantile, seeds, tol_rel, rule_factor, outcome,
 *         limit_bytes, verdict)          one `rssim plan` (version 4)
 *   plan_evals(plan_id, run_id, seed, limit_bytes, reused)  its evaluations
 *   nodes(id, created_at, spec, ram_bytes, headroom, interval_ns, end_ns,
 *         steady_from_ns, verdict)       one `rssim node` (version 5)
 *   node_members(node_id, member, copy, run_id, offset_ns, reused)
 *   node_samples(node_id, t_ns, rss_bytes, accounted_bytes, resident_bytes,
 *                base_bytes)             the node's total on its clock
 *   node_metrics(node_id, name, value)
 * A run's samples, metrics and its status 'done' are written in ONE
 * transaction (rs_store_run_finish), so a killed process leaves a run
 * 'running' (or 'failed'), never a half-filled 'done'.  Prepared statements
 * are kept for the lifetime of the handle.  Timestamps are SQLite's
 * strftime('%Y-%m-%dT%H:%M:%fZ','now') (UTC).  This header is the write
 * side; reading is sim/query.h's.  Only store.c and query.c speak SQL: the
 * connection is not exported (query.c reaches it through rs_store_db,
 * declared in the store layer's .c files only).
 */
#ifndef RS_STORE_H
#define RS_STORE_H

#include <stdint.h>

#include "base/config.h"
#include "base/err.h"
#include "base/result.h"
#include "node.h"

typedef struct rs_store rs_store;

/* What identifies a run besides its params. */
typedef struct rs_run_meta {
    const char *kind;         /* "predicted" (rssim), "measured" (rssim-real, ceph-measure)
                               * or "observed" (a daemon's own dumps, rssim observe) */
    const char *trace_path;
    const char *trace_sha256; /* 64 hex */
    const char *preset;       /* preset name or path */
    uint64_t seed;
    const char *label;        /* free text, may be NULL (e.g. "limit=64M trim=...") */
    int64_t sweep_id;         /* 0 when not part of a sweep */
    int64_t point_index;      /* -1 when not part of a sweep */
} rs_run_meta;

/* Open (creating the file, its folder is the caller's) and migrate. */
int rs_store_open(rs_store **r_st, const char *path, rs_err *err);
/* Open an existing database for reading only (list, show, export, plot):
 * never creates the file.  RS_ENOTFOUND "no database 'path'" when it does
 * not exist, RS_EINPUT when it is not an rssim database, RS_EDB when its
 * schema version is not this rssim's.  Write functions on such a handle
 * return RS_EDB. */
int rs_store_open_ro(rs_store **r_st, const char *path, rs_err *err);
void rs_store_close(rs_store *st);
/* A database held in memory: a copy of the image data[0 .. size) (the
 * bytes of a database file; size 0: an empty database), named name in
 * messages.  Read-only (writable 0) it is checked as rs_store_open_ro
 * checks a file (RS_EINPUT when not an rssim database, RS_EDB for another
 * schema version); writable it is migrated as rs_store_open migrates a file
 * (an empty image gets the schema), and every write stays in memory until
 * rs_store_image copies it out.  An image of a WAL-mode file reads as its
 * main file alone (what a checkpoint left there).  The data is not kept:
 * the caller may free it on return. */
int rs_store_open_image(rs_store **r_st, const char *name, const void *data, size_t size,
                        int writable, rs_err *err);
/* The bytes of st's database as a file would hold them (*r_data malloc'd,
 * the caller frees it; NULL and 0 for an empty database). */
int rs_store_image(rs_store *st, void **r_data, size_t *r_size, rs_err *err);
/* The path the handle was opened with (for messages). */
const char *rs_store_path(const rs_store *st);

/* The SHA-256 of the trace at path as 64 hex digits + NUL, from the
 * database when this file (device, inode, size, mtime, ctime) was hashed
 * before, else computed and remembered — unless it changed while read or
 * less than 2 s ago (a change within one timestamp tick would look the
 * same), or is not a regular file.  The most recently hashed 4096 files are
 * remembered. */
int rs_store_trace_sha256(rs_store *st, const char *path, char r_hex[65], rs_err *err);
/* Whether a sweep with this spec text (rs_grid_spec) exists, whatever its
 * trace: when none does, a sweep of this spec is new whatever the trace's
 * identity turns out to be (spec_hash covers the spec), so `rssim sweep`
 * may start its points before it has hashed the trace.  Works on a
 * read-only handle. */
int rs_store_sweep_spec_known(rs_store *st, const char *spec, int *r_known, rs_err *err);

/* Insert a run with status 'running' and its params, in one transaction. */
int rs_store_run_begin(rs_store *st, const rs_run_meta *meta, const rs_config *cfg,
                       int64_t *r_run_id, rs_err *err);
/* Write samples + metrics + events + wall_ns and mark 'done', atomically.
 * Any rows of an earlier attempt of this run are replaced. */
int rs_store_run_finish(rs_store *st, int64_t run_id, const rs_result *res,
                        uint64_t events, uint64_t wall_ns, rs_err *err);
/* Store a finished run in one go (a run measured elsewhere and imported,
 * `rssim runs import-measured`): the run row with meta and cfg's params,
 * its samples and metrics, events and wall_ns, status 'done', all in ONE
 * transaction, so a failure leaves no trace of it.  *r_run_id is its id. */
int rs_store_run_import(rs_store *st, const rs_run_meta *meta, const rs_config *cfg,
                        const rs_result *res, uint64_t events, uint64_t wall_ns,
                        int64_t *r_run_id, rs_err *err);
/* Mark 'failed' with a reason (its partial rows, if any, are deleted). */
int rs_store_run_fail(rs_store *st, int64_t run_id, const char *why, rs_err *err);

/* Sweeps.  spec_hash identifies the grid (trace sha + preset + overrides +
 * varied keys and values); the same hash finds the same sweep again, which
 * is what makes `rssim sweep` resumable. */
typedef struct rs_sweep_meta {
    const char *spec_hash;
    const char *trace_path, *trace_sha256, *preset;
    const char *spec;  /* human-readable "--vary ... --set ..." */
    const char *varied_keys; /* comma-separated keys the grid varies, in --vary order */
    int64_t points;
    int jobs;
} rs_sweep_meta;

/* Claim a sweep point's run for owner (a string naming this process: host,
 * pid and start time), in one write transaction.  *r_claim is
 * RS_CLAIM_TAKEN (now 'running' and owner's), RS_CLAIM_DONE (done already:
 * skip it) or RS_CLAIM_BUSY ('running' for another owner that alive(owner,
 * ctx) says still runs: skip it now, its result will come).  A claim by an
 * owner that is gone (a killed sweep) is taken over.  0 or RS_E*. */
enum { RS_CLAIM_TAKEN = 0, RS_CLAIM_DONE = 1, RS_CLAIM_BUSY = 2 };
typedef int (*rs_store_owner_alive_fn)(const char *owner, void *ctx);
int rs_store_point_claim(rs_store *st, int64_t run_id, const char *owner,
                         rs_store_owner_alive_fn alive, void *ctx, int *r_claim, rs_err *err);

/* Fail every run still 'running' under owner's claim (a worker that died
 * before finishing them) with why; *r_failed gets how many.  0 or RS_E*. */
int rs_store_claims_fail(rs_store *st, const char *owner, const char *why, int64_t *r_failed,
                         rs_err *err);

/* Find the sweep with meta->spec_hash or create it; *r_created says which. */
int rs_store_sweep_open(rs_store *st, const rs_sweep_meta *meta, int64_t *r_sweep_id,
                        int *r_created, rs_err *err);
/* Create the run row of point i with status 'pending' (params from cfg),
 * unless it already exists; returns its id either way. */
int rs_store_sweep_point(rs_store *st, int64_t sweep_id, int64_t point_index,
                         const rs_run_meta *meta, const rs_config *cfg,
                         int64_t *r_run_id, rs_err *err);
/* Batch several writes into ONE transaction (the points of a new sweep:
 * one commit instead of one per point).  Between begin and commit every
 * write function joins it; the first that fails rolls the whole batch back
 * (and ends it: commit then returns RS_EINTERNAL).  Not nested. */
int rs_store_batch_begin(rs_store *st, rs_err *err);
int rs_store_batch_commit(rs_store *st, rs_err *err);
/* Status of a run: "pending", "running", "done", "failed". */
int rs_store_run_status(rs_store *st, int64_t run_id, char r_status[16], rs_err *err);
/* Mark a pending/failed/stale-running run 'running' (claim it).
 * RS_EINPUT when it is already done, RS_ENOTFOUND when there is no such run. */
int rs_store_run_claim(rs_store *st, int64_t run_id, rs_err *err);
int rs_store_sweep_set_status(rs_store *st, int64_t sweep_id, const char *status, rs_err *err);
/* 0 when sweep_id exists, RS_ENOTFOUND "no sweep N in 'path'" otherwise.
 * Works on read-only handles, as does rs_store_run_status. */
int rs_store_sweep_check(rs_store *st, int64_t sweep_id, rs_err *err);

/* Merge the database at src_path into st (see store.c: shards of a sweep
 * come together with the run ids one unsharded sweep would have; a run
 * outside sweeps that st already holds is not copied again; plans and
 * their evaluations come across with the run ids remapped).  One
 * transaction.  *r_copied counts the done runs taken from src. */
int rs_store_merge(rs_store *st, const char *src_path, uint64_t *r_copied, rs_err *err);
/* rs_store_merge of a database image held in memory (rs_store_open_image's
 * data, size and name): the same checks, the same merge. */
int rs_store_merge_image(rs_store *st, const char *name, const void *data, size_t size,
                         uint64_t *r_copied, rs_err *err);

/* Set metric name of run_id to value (NaN is stored as NULL), replacing
 * its old value: what `rssim validate` adds to a measured run.  RS_EDB
 * when there is no such run (foreign key) or SQLite fails. */
int rs_store_metric_set(rs_store *st, int64_t run_id, const char *name, double value,
                        rs_err *err);

/* Plans (`rssim plan`): the question asked, then each evaluation's run. */
typedef struct rs_plan_meta {
    const char *preset, *workload, *limit_key;
    const char *quantile;  /* "p50", "0.99", "peak" */
    int64_t ram_bytes, daemons, seeds;
    double headroom;       /* 0.1 = 10 % */
    double tol_rel;
    double rule_factor;    /* the rule of thumb's RSS / limit; <= 0: none */
} rs_plan_meta;

/* Insert a plan with status 'running'. */
int rs_store_plan_begin(rs_store *st, const rs_plan_meta *meta, int64_t *r_plan_id, rs_err *err);
/* Link a done run (run or reused) to the plan: it was evaluated at limit_bytes. */
int rs_store_plan_eval(rs_store *st, int64_t plan_id, int64_t run_id, uint64_t seed,
                       int64_t limit_bytes, int reused, rs_err *err);
/* status 'done' or 'failed'; outcome "found", "infeasible", "workload-bound",
 * "at-max", "fits", "does-not-fit" (may be NULL); limit_bytes the answer. */
int rs_store_plan_finish(rs_store *st, int64_t plan_id, const char *status, const char *outcome,
                         int64_t limit_bytes, const char *verdict, rs_err *err);

/* Nodes (`rssim node`): several daemons' runs summed on one clock. */
typedef struct rs_store_node_meta {
    const char *spec;     /* the --member options, as given */
    int64_t ram_bytes;    /* 0: not given */
    double headroom;
    const char *verdict;  /* the line `rssim node` printed, may be NULL */
} rs_store_node_meta;

typedef struct rs_store_node_copy {
    int64_t member, copy; /* 0-based */
    int64_t run_id;       /* a done run */
    uint64_t offset_ns;   /* where its run starts on the node's clock */
    int reused;           /* 1: the run existed already */
} rs_store_node_copy;

/* Store a node: its row, every daemon (copy) with its run, the node's
 * samples (res->pts) and the named metrics, in ONE transaction. */
int rs_store_node_write(rs_store *st, const rs_store_node_meta *meta,
                        const rs_store_node_copy *copies, size_t ncopies,
                        const rs_node_result *res, const char *const *metric_names,
                        const double *metric_values, size_t nmetrics, int64_t *r_node_id,
                        rs_err *err);

#endif
