/*
 * plan.h — "which limit is safe on this node?": the largest value of a
 * daemon's memory limit at which N daemons' predicted RSS stays within a
 * budget (RAM x (1 - headroom)), found by bracketing and refining, two
 * limits at a time (a batch the caller may evaluate side by side).
 *
 * This module knows nothing of runs, traces or the store: the caller's
 * evaluation function turns a limit (bytes) into what N daemons need at it
 * (bytes; usually N x the predicted RSS at a quantile, the worst seed) and
 * the daemon's accounted peak (to tell a cache the workload never fills).
 * The response is assumed to grow with the limit on the part searched; it
 * may jump (a trim lands on one side of a sample or the other), which a
 * bracketing solver tolerates.  Limits are rounded to whole quanta, every
 * distinct limit is evaluated once (memo), and the result is a pure
 * function of f and the options.
 */
#ifndef RS_PLAN_H
#define RS_PLAN_H

#include "base/config.h"
#include "base/err.h"

/* What N daemons need at one limit. */
typedef struct rs_plan_eval {
    double need_bytes;           /* compared with the budget */
    double accounted_peak_bytes; /* one daemon's highest accounted bytes */
} rs_plan_eval;

/* f at each of the n (1 or 2) distinct limits into r_evs[i]; 0 or an RS_E*
 * code (which ends the search and is returned as is).  need_bytes must be
 * finite and >= 0.  The limits of one call do not depend on each other's
 * values: the caller may evaluate them side by side. */
typedef int (*rs_plan_fn)(const double *limits_bytes, int n, void *ctx, rs_plan_eval *r_evs,
                          rs_err *err);

typedef struct rs_plan_opts {
    double budget_bytes;     /* what N daemons may need at most (> 0) */
    double lo_bytes, hi_bytes; /* the first bracket guess, lo < hi; a walk out of
                              * it starts with steps of hi / lo (see plan.c) */
    double min_bytes, max_bytes; /* never evaluate outside [min, max] */
    double tol_rel;          /* stop when unsafe - safe <= max(tol_rel x safe, tol_min_bytes) */
    double tol_min_bytes;
    double quantum_bytes;    /* limits are whole multiples of this (> 0) */
    double fill_ratio;       /* at a safe top of the bracket, accounted peak below
                              * fill_ratio x limit: bounded by the workload */
    int max_evals;           /* at most this many distinct limits (>= 4) */
} rs_plan_opts;

typedef enum rs_plan_outcome {
    RS_PLAN_FOUND = 0,          /* limit_bytes is safe, unsafe_bytes is not */
    RS_PLAN_INFEASIBLE = 1,     /* even min_bytes needs more than the budget */
    RS_PLAN_WORKLOAD_BOUND = 2, /* safe up to limit_bytes, where the cache is not
                                 * filled: any larger limit changes nothing */
    RS_PLAN_AT_MAX = 3,         /* max_bytes itself is safe */
} rs_plan_outcome;

typedef struct rs_plan_result {
    rs_plan_outcome outcome;
    double limit_bytes;   /* the largest safe limit found (0 when infeasible) */
    double unsafe_bytes;  /* the smallest unsafe limit above it (0: none seen) */
    double need_bytes;    /* f at limit_bytes (at min_bytes when infeasible) */
    double tol_bytes;     /* the tolerance at limit_bytes */
    int evaluations;      /* distinct limits evaluated */
    int converged;        /* FOUND with unsafe - safe <= tol_bytes */
} rs_plan_result;

/* Search.  0 with *r_res filled for every outcome (FOUND with converged 0
 * when max_evals ran out while refining: the bracket so far, its safe limit
 * evaluated safe); RS_EINPUT for bad options or when max_evals ran out
 * before a bracket; f's own code when f fails. */
int rs_plan_search(rs_plan_fn f, void *ctx, const rs_plan_opts *opts, rs_plan_result *r_res,
                   rs_err *err);

/* The size key that limits the memory of the run cfg describes, i.e. what
 * `rssim plan` searches: the daemon's limit key (rs_daemon_ops.limit_key)
 * when the run reads it; otherwise (a trim policy with a fixed cache size,
 * such as Luminous BlueStore's bluestore-mempool, which never reads
 * osd_memory_target) the first size parameter the chosen trim policy
 * declares, which is its cache size.  *r_key is static text; *r_is_daemons
 * says whether it is the daemon's own key (its rule of thumb applies).
 * RS_EINPUT, naming the daemon, when neither exists. */
int rs_plan_limit_key(const rs_config *cfg, const char **r_key, int *r_is_daemons, rs_err *err);

#endif
