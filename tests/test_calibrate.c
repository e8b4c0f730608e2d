/* test_calibrate.c — the Brent driver on functions whose roots are known:
 * a smooth cubic, a step (a jump across zero, as simulated responses have),
 * ends of the same sign, an end that is a root, the iteration limit, bad
 * options and an error raised by f half-way.  Runs without
 * gsl_set_error_handler_off: the driver must never reach GSL's handler. */
#include <math.h>
#include <string.h>

#include "check.h"
#include "sim/calibrate.h"

typedef struct counter {
    int calls;     /* f calls (the driver memoises repeats) */
    int fail_at;   /* fail on this call (1-based); 0: never */
    double step_x; /* the step function's jump */
} counter;

static int cubic(double x, void *ctx, double *r_y, rs_err *err)
{
    counter *c = ctx;
    if (++c->calls == c->fail_at)
        return rs_fail(err, RS_EINPUT, "run %d failed", c->calls);
    *r_y = x * x * x - 2;
    return 0;
}

static int step(double x, void *ctx, double *r_y, rs_err *err)
{
    counter *c = ctx;
    (void)err;
    c->calls++;
    *r_y = x < c->step_x ? -1.0 : 0.5; /* no root: the jump is the answer */
    return 0;
}

static int flat(double x, void *ctx, double *r_y, rs_err *err)
{
    (void)ctx;
    (void)err;
    *r_y = 1 + x * 1e-3;
    return 0;
}

static void test_cubic(void)
{
    counter c = { 0 };
    rs_calibrate_opts o = { .lo = 0, .hi = 2, .tol_abs = 1e-9, .max_iter = 100 };
    rs_calibrate_result r;
    rs_err err = { 0 };

    CHECK(rs_calibrate_solve(cubic, &c, &o, &r, &err) == 0);
    CHECK_MSG(fabs(r.root - cbrt(2.0)) < 1e-9, "root %.12f", r.root);
    CHECK(r.converged && r.bracketed);
    CHECK(r.hi - r.lo < 1e-9 && r.lo <= r.root && r.root <= r.hi);
    CHECK(r.y_lo == -2 && r.y_hi == 6);
    CHECK_MSG(c.calls == r.evaluations, "%d calls, %d evaluations", c.calls, r.evaluations);
    CHECK_MSG(r.evaluations <= r.iterations + 2, "%d evaluations, %d iterations", r.evaluations,
              r.iterations);
    CHECK_MSG(r.iterations < 20, "%d iterations (bisection alone needs 31)", r.iterations);
}

static void test_step(void)
{
    counter c = { .step_x = 0.3 };
    rs_calibrate_opts o = { .lo = 0, .hi = 1, .tol_abs = 1e-4, .max_iter = 100 };
    rs_calibrate_result r;
    rs_err err = { 0 };

    CHECK(rs_calibrate_solve(step, &c, &o, &r, &err) == 0);
    CHECK(r.converged);
    CHECK_MSG(fabs(r.root - 0.3) <= 1e-4, "root %.6f", r.root);
    /* the side of the jump nearer zero: f = 0.5, not -1 */
    CHECK_MSG(r.y_root == 0.5 && r.root >= 0.3, "root %.6f f %g", r.root, r.y_root);
}

static void test_same_sign_and_exact_end(void)
{
    rs_calibrate_opts o = { .lo = 0, .hi = 1, .tol_abs = 0.01, .max_iter = 30 };
    rs_calibrate_result r;
    rs_err err = { 0 };
    counter c = { 0 };

    CHECK(rs_calibrate_solve(flat, NULL, &o, &r, &err) == RS_EINPUT);
    CHECK(!r.bracketed && r.y_lo == 1 && r.y_hi == 1.001 && r.evaluations == 2);
    CHECK_MSG(strstr(err.msg, "same sign") != NULL, "'%s'", err.msg);

    o.lo = cbrt(2.0) - 1;
    o.hi = cbrt(2.0);
    CHECK(rs_calibrate_solve(cubic, &c, &o, &r, &err) == 0); /* hi is a root (to rounding) */
    CHECK(r.converged && fabs(r.root - cbrt(2.0)) < 1e-12);
}

static void test_limits_and_errors(void)
{
    rs_calibrate_opts o = { .lo = 0, .hi = 2, .tol_abs = 1e-12, .max_iter = 2 };
    rs_calibrate_result r;
    rs_err err = { 0 };
    counter c = { 0 };

    CHECK(rs_calibrate_solve(cubic, &c, &o, &r, &err) == 0);
    CHECK(!r.converged && r.iterations == 2 && r.lo <= r.root && r.root <= r.hi);

    counter f3 = { .fail_at = 3 }; /* the first Brent step fails */
    o.max_iter = 30;
    CHECK(rs_calibrate_solve(cubic, &f3, &o, &r, &err) == RS_EINPUT);
    CHECK_MSG(strcmp(err.msg, "run 3 failed") == 0, "'%s'", err.msg);
    CHECK(f3.calls == 3);
    counter f1 = { .fail_at = 1 };
    CHECK(rs_calibrate_solve(cubic, &f1, &o, &r, &err) == RS_EINPUT && f1.calls == 1);

    rs_calibrate_opts bad[] = {
        { .lo = 1, .hi = 1, .tol_abs = 0.1, .max_iter = 5 },
        { .lo = 0, .hi = NAN, .tol_abs = 0.1, .max_iter = 5 },
        { .lo = 0, .hi = 1, .tol_abs = 0, .max_iter = 5 },
        { .lo = 0, .hi = 1, .tol_abs = 0.1, .max_iter = 0 },
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        counter n = { 0 };
        CHECK(rs_calibrate_solve(cubic, &n, &bad[i], &r, &err) == RS_EINPUT && n.calls == 0);
    }
}

int main(void)
{
    test_cubic();
    test_step();
    test_same_sign_and_exact_end();
    test_limits_and_errors();
    return check_done();
}
