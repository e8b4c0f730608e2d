/*
 * calibrate.h — fit one free parameter: the x in [lo, hi] where a measured
 * quantity f(x) crosses zero, by GSL's bracketing Brent solver.
 *
 * The caller's f is usually "what a pair of simulated runs gives at x minus
 * the target" (rssim calibrate); this module knows nothing of runs, configs
 * or units: x is a plain double in whatever unit the caller uses (ns, bytes,
 * a number).  A bracketing solver is used because simulated responses are
 * piecewise: they jump between neighbouring parameter values (an event
 * that falls on one side of a timer or the other), so derivative-based or
 * secant-only methods can wander off, while Brent keeps a sign change
 * inside its bracket at every step and ends at a jump when the response
 * has no exact root (then the side of the jump nearer zero is returned).
 * Every f is evaluated at most once per distinct x (the solver's set-up
 * re-evaluates the ends; those come from a memo), and the result is a pure
 * function of f, lo, hi, tol and max_iter.
 */
#ifndef RS_CALIBRATE_H
#define RS_CALIBRATE_H

#include "base/err.h"

/* f(x) into *r_y; 0 or an RS_E* code (which aborts the search and is
 * returned as is).  *r_y must be finite. */
typedef int (*rs_calibrate_fn)(double x, void *ctx, double *r_y, rs_err *err);

typedef struct rs_calibrate_opts {
    double lo, hi;   /* the bracket to search, lo < hi, both finite */
    double tol_abs;  /* stop when the bracket is narrower than this (> 0; x's unit) */
    int max_iter;    /* or after this many Brent iterations (>= 1) */
} rs_calibrate_opts;

typedef struct rs_calibrate_result {
    double root;          /* the solver's estimate, or the end of the final bracket
                           * where |f| is smaller (an x where f was evaluated) */
    double y_root;        /* f(root) (not 0 when f jumps across zero there) */
    double lo, hi;        /* the final bracket */
    double y_lo, y_hi;    /* f at the initial ends (filled even when they fail) */
    int iterations;       /* Brent iterations done */
    int evaluations;      /* distinct x where f was evaluated */
    int bracketed;        /* 0: y_lo and y_hi have the same sign (RS_EINPUT) */
    int converged;        /* 1: bracket narrower than tol_abs; 0: max_iter reached */
} rs_calibrate_result;

/* Find the root of f on [opts->lo, opts->hi].  0 with *r_res filled (also
 * when max_iter ended the search: converged = 0); RS_EINPUT for bad opts or
 * when f(lo) and f(hi) have the same sign (bracketed = 0, y_lo/y_hi set);
 * f's own code when f fails; RS_EINTERNAL when GSL reports a failure. */
int rs_calibrate_solve(rs_calibrate_fn f, void *ctx, const rs_calibrate_opts *opts,
                       rs_calibrate_result *r_res, rs_err *err);

#endif
