/*
 * fit.h — the ratio model RSS = base + k * accounted fitted to observed
 * samples by ordinary least squares (GSL gsl_multifit_linear), with 95 %
 * confidence intervals from Student's t (docs/observe.md, "Fitting").
 *
 * Knows nothing of runs or units: x and y are plain doubles.
 */
#ifndef RS_FIT_H
#define RS_FIT_H

#include <stddef.h>

#include "base/err.h"

typedef struct rs_fit_line {
    size_t n;                /* points fitted */
    double base, k;          /* y = base + k x */
    double base_ci, k_ci;    /* half-widths of their 95 % confidence intervals */
    double cov[2][2];        /* covariance of (base, k), scaled by the residual variance */
    double sigma;            /* residual standard deviation, sqrt(chisq / (n - 2)) */
    double r2;               /* coefficient of determination */
    double t95;              /* Student's t quantile 0.975 with n - 2 degrees of freedom */
} rs_fit_line;

/* Fit y = base + k x to n points.  RS_EINPUT when n < 3, a value is not
 * finite or x does not vary (no slope can be told from base);
 * RS_EINTERNAL when GSL fails. */
int rs_fit_line_ls(const double *x, const double *y, size_t n, rs_fit_line *r, rs_err *err);
/* The fitted y at x0 and the half-width of its 95 % confidence interval
 * (of the line, not of one new sample). */
void rs_fit_line_at(const rs_fit_line *f, double x0, double *r_y, double *r_ci);



/* ---- fitting a model's unknowns to a series (nonlinear least squares) ---- */

#define RS_FIT_NL_MAX_PARAMS 3

/* The n residuals (model - observation) at the parameters x[0..p-1] into r;
 * 0 or an RS_E* code, which stops the fit and is returned. */
typedef int (*rs_fit_nl_fn)(const double *x, double *r, void *ctx, rs_err *err);

typedef struct rs_fit_nl_opts {
    size_t p, n;                    /* parameters (1..3) and residuals (> p) */
    double lo[RS_FIT_NL_MAX_PARAMS], hi[RS_FIT_NL_MAX_PARAMS]; /* each one's range */
    double x0[RS_FIT_NL_MAX_PARAMS]; /* the start, inside the range */
    double step;                    /* finite-difference step, a fraction of each range */
    int max_iter;
} rs_fit_nl_opts;

typedef struct rs_fit_nl_result {
    double x[RS_FIT_NL_MAX_PARAMS];  /* the fitted values, clamped to their ranges */
    double ci[RS_FIT_NL_MAX_PARAMS]; /* 95 % half-widths (t with n - p dof times the
                                      * standard error from (J'J)^-1 s^2) */
    double sigma;                    /* residual standard deviation sqrt(chisq / (n - p)) */
    double chisq0, chisq;            /* sum of squared residuals at the start, at the end */
    int iterations, evaluations, converged;
} rs_fit_nl_result;

/* Minimise the sum of squared residuals over x within [lo, hi] by GSL's
 * trust-region Levenberg-Marquardt (gsl_multifit_nlinear), the Jacobian
 * by central differences of opts->step times each range (a simulated
 * response is piecewise, so the steps are wide, not GSL's sqrt(eps)).
 * Parameters are scaled to [0, 1] inside; a step outside the range is
 * evaluated at the range's end.  RS_EINPUT for bad options; f's code. */
int rs_fit_nl(rs_fit_nl_fn f, void *ctx, const rs_fit_nl_opts *opts, rs_fit_nl_result *r,
              rs_err *err);
#endif
