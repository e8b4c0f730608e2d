/*
 * fit.c — ordinary least squares of a line with GSL (contract in fit.h).
 *
 * gsl_multifit_linear returns the covariance sigma^2 (X'X)^-1 with sigma^2 =
 * chisq / (n - p) (GSL manual, "Linear regression", multi-parameter), so
 * the 95 % interval of a coefficient is t(0.975, n - 2) * sqrt(cov_ii).
 */
#include "fit.h"

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_multifit.h>
#include <math.h>

int rs_fit_line_ls(const double *x, const double *y, size_t n, rs_fit_line *r, rs_err *err)
{
    if (n < 3)
        return rs_fail(err, RS_EINPUT, "%zu samples: a line with a confidence interval needs "
                       "at least 3", n);
    double xmin = x[0], xmax = x[0];
    for (size_t i = 0; i < n; i++) {
        if (!isfinite(x[i]) || !isfinite(y[i]))
            return rs_fail(err, RS_EINPUT, "sample %zu is not finite", i);
        xmin = fmin(xmin, x[i]);
        xmax = fmax(xmax, x[i]);
    }
    if (xmax <= xmin)
        return rs_fail(err, RS_EINPUT, "the accounted bytes are %.0f in every sample: the slope "
                       "cannot be told from the base", xmin);
    gsl_matrix *X = gsl_matrix_alloc(n, 2), *cov = gsl_matrix_alloc(2, 2);
    gsl_vector *Y = gsl_vector_alloc(n), *c = gsl_vector_alloc(2);
    gsl_multifit_linear_workspace *w = gsl_multifit_linear_alloc(n, 2);
    int rc = 0;
    double chisq = 0;
    if (!X || !cov || !Y || !c || !w) {
        rc = rs_fail(err, RS_ENOMEM, "out of memory for a fit of %zu samples", n);
        goto out;
    }
    double ymean = 0;
    for (size_t i = 0; i < n; i++) {
        gsl_matrix_set(X, i, 0, 1.0);
        gsl_matrix_set(X, i, 1, x[i]);
        gsl_vector_set(Y, i, y[i]);
        ymean += y[i] / (double)n;
    }
    if (gsl_multifit_linear(X, Y, c, cov, &chisq, w) != GSL_SUCCESS) {
        rc = rs_fail(err, RS_EINTERNAL, "gsl_multifit_linear failed on %zu samples", n);
        goto out;
    }
    double tss = 0;
    for (size_t i = 0; i < n; i++)
        tss += (y[i] - ymean) * (y[i] - ymean);
    *r = (rs_fit_line){ .n = n, .base = gsl_vector_get(c, 0), .k = gsl_vector_get(c, 1) };
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 2; j++)
            r->cov[i][j] = gsl_matrix_get(cov, (size_t)i, (size_t)j);
    r->sigma = sqrt(chisq / (double)(n - 2));
    r->r2 = tss > 0 ? 1.0 - chisq / tss : 1.0;
    r->t95 = gsl_cdf_tdist_Pinv(0.975, (double)(n - 2));
    r->base_ci = r->t95 * sqrt(r->cov[0][0]);
    r->k_ci = r->t95 * sqrt(r->cov[1][1]);
out:
    gsl_matrix_free(X);
    gsl_matrix_free(cov);
    gsl_vector_free(Y);
    gsl_vector_free(c);
    gsl_multifit_linear_free(w);
    return rc;
}

void rs_fit_line_at(const rs_fit_line *f, double x0, double *r_y, double *r_ci)
{
    *r_y = f->base + f->k * x0;
    double var = f->cov[0][0] + 2 * x0 * f->cov[0][1] + x0 * x0 * f->cov[1][1];
    *r_ci = f->t95 * sqrt(var > 0 ? var : 0);
}
