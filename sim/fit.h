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

#endif
