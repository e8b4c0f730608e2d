/*
 * calibrate.c — the Brent root-finding driver behind `rssim calibrate`
 * (see calibrate.h for the contract).
 *
 * GSL calls a plain double(double, void *) function and has no way to carry
 * an error out of it, so the wrapper stores the caller's error in its
 * context and returns 0 (not NaN: GSL would report that through its error
 * handler, which aborts unless the program turned it off); the driver looks
 * at the stored error after every step.  The ends are evaluated and their
 * signs checked before GSL sees them, so GSL itself has nothing to report
 * for a well-formed bracket.  The memo is a short linear list (a search
 * makes tens of evaluations, each a simulation).
 */
#include <gsl/gsl_errno.h>
#include <gsl/gsl_roots.h>
#include <math.h>
#include <stdlib.h>

#include "calibrate.h"

typedef struct eval_ctx {
    rs_calibrate_fn f;
    void *ctx;
    rs_err *err;
    int rc;            /* first error of f, 0 while none */
    double *xs, *ys;   /* the memo: f(xs[i]) = ys[i] */
    int n, cap;
} eval_ctx;

static int memo_find(const eval_ctx *e, double x, double *r_y)
{
    for (int i = 0; i < e->n; i++)
        if (e->xs[i] == x) { /* identity of a point already asked for, not a tolerance */
            *r_y = e->ys[i];
            return 1;
        }
    return 0;
}

static double eval(double x, void *p)
{
    eval_ctx *e = p;
    double y;

    if (e->rc)
        return 0; /* ignored: e->rc is checked after every step */
    if (memo_find(e, x, &y))
        return y;
    if (e->n == e->cap) {
        int cap = e->cap ? 2 * e->cap : 16;
        double *xs = realloc(e->xs, (size_t)cap * sizeof *xs);
        if (xs)
            e->xs = xs;
        double *ys = xs ? realloc(e->ys, (size_t)cap * sizeof *ys) : NULL;
        if (!ys) {
            e->rc = rs_fail(e->err, RS_ENOMEM, "out of memory for the calibration memo");
            return 0;
        }
        e->ys = ys;
        e->cap = cap;
    }
    if ((e->rc = e->f(x, e->ctx, &y, e->err)))
        return 0;
    if (!isfinite(y)) {
        e->rc = rs_fail(e->err, RS_EINTERNAL, "calibration function is not finite at %g", x);
        return 0;
    }
    e->xs[e->n] = x;
    e->ys[e->n++] = y;
    return y;
}

static int check_opts(const rs_calibrate_opts *o, rs_err *err)
{
    if (!isfinite(o->lo) || !isfinite(o->hi) || !(o->lo < o->hi))
        return rs_fail(err, RS_EINPUT, "bad bracket [%g, %g]: need finite lo < hi", o->lo, o->hi);
    if (!isfinite(o->tol_abs) || !(o->tol_abs > 0))
        return rs_fail(err, RS_EINPUT, "bad tolerance %g: need > 0", o->tol_abs);
    if (o->max_iter < 1)
        return rs_fail(err, RS_EINPUT, "bad iteration limit %d: need >= 1", o->max_iter);
    return 0;
}

/* Brent from a checked bracket; fills root, bracket, iterations, converged. */
static int brent(eval_ctx *e, const rs_calibrate_opts *o, rs_calibrate_result *r, rs_err *err)
{
    gsl_function F = { .function = eval, .params = e };
    gsl_root_fsolver *s = gsl_root_fsolver_alloc(gsl_root_fsolver_brent);
    int status, rc = 0;

    if (!s)
        return rs_fail(err, RS_ENOMEM, "out of memory for the root solver");
    status = gsl_root_fsolver_set(s, &F, o->lo, o->hi);
    while (!status && !e->rc && r->iterations < o->max_iter) {
        status = gsl_root_fsolver_iterate(s);
        if (status || e->rc)
            break;
        r->iterations++;
        r->root = gsl_root_fsolver_root(s);
        r->lo = gsl_root_fsolver_x_lower(s);
        r->hi = gsl_root_fsolver_x_upper(s);
        if (gsl_root_test_interval(r->lo, r->hi, o->tol_abs, 0) == GSL_SUCCESS) {
            r->converged = 1;
            break;
        }
    }
    if (e->rc)
        rc = e->rc;
    else if (status)
        rc = rs_fail(err, RS_EINTERNAL, "root solver failed: %s", gsl_strerror(status));
    gsl_root_fsolver_free(s);
    return rc;
}

int rs_calibrate_solve(rs_calibrate_fn f, void *ctx, const rs_calibrate_opts *opts,
                       rs_calibrate_result *r_res, rs_err *err)
{
    eval_ctx e = { .f = f, .ctx = ctx, .err = err };
    rs_calibrate_result r = { .lo = opts->lo, .hi = opts->hi, .root = opts->lo };
    int rc;

    if ((rc = check_opts(opts, err))) {
        *r_res = r;
        return rc;
    }
    r.y_lo = eval(opts->lo, &e);
    if (!e.rc)
        r.y_hi = eval(opts->hi, &e);
    if ((rc = e.rc))
        goto out;
    r.bracketed = !((r.y_lo > 0 && r.y_hi > 0) || (r.y_lo < 0 && r.y_hi < 0));
    if (!r.bracketed) {
        rc = rs_fail(err, RS_EINPUT, "f(%g) = %g and f(%g) = %g have the same sign: no root between",
                     opts->lo, r.y_lo, opts->hi, r.y_hi);
        goto out;
    }
    if (r.y_lo == 0 || r.y_hi == 0) { /* an end is an exact root: nothing to search */
        r.root = r.y_lo == 0 ? opts->lo : opts->hi;
        r.converged = 1;
    } else if ((rc = brent(&e, opts, &r, err))) {
        goto out;
    }
    if (!memo_find(&e, r.root, &r.y_root)) { /* Brent's root is always evaluated; be safe */
        r.y_root = eval(r.root, &e);
        if ((rc = e.rc))
            goto out;
    }
    /* Brent's estimate is its newest point; where f jumps across zero the
     * other end of the final bracket may be closer to it: take that one. */
    const double ends[2] = { r.lo, r.hi };
    for (int i = 0; i < 2; i++) {
        double y;
        if (memo_find(&e, ends[i], &y) && fabs(y) < fabs(r.y_root)) {
            r.root = ends[i];
            r.y_root = y;
        }
    }
out:
    r.evaluations = e.n;
    *r_res = r;
    free(e.xs);
    free(e.ys);
    return rc;
}
