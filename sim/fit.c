/*
 * fit.c — ordinary least squares of a line with GSL (contract in fit.h).
 *
 * gsl_multifit_linear returns the covariance sigma^2 (X'X)^-1 with sigma^2 =
 * chisq / (n - p) (GSL manual, "Linear regression", multi-parameter), so
 * the 95 % interval of a coefficient is t(0.975, n - 2) * sqrt(cov_ii).
 * rs_fit_nl: gsl_multifit_nlinear_covar gives (J'J)^-1 at the solution, times
 * s^2 = chisq / (n - p) the covariance of the parameters (GSL manual,
 * "Nonlinear Least-Squares Fitting", covariance matrix of best fit parameters).
 */
#include "fit.h"

#include <gsl/gsl_blas.h>
#include <gsl/gsl_cdf.h>
#include <gsl/gsl_multifit.h>
#include <gsl/gsl_multifit_nlinear.h>
#include <math.h>
#include <stdlib.h>

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

/* ---- nonlinear: a model's unknowns against a series ---- */

typedef struct nl_ctx {
    rs_fit_nl_fn f;
    void *ctx;
    const rs_fit_nl_opts *o;
    rs_err *err;
    int rc;          /* the first error f returned */
    int evaluations;
    double *rtmp;    /* n residuals, for the differences */
} nl_ctx;

/* u in [0, 1] (clamped) to the parameter's own unit */
static void nl_unscale(const nl_ctx *c, const gsl_vector *u, double *x)
{
    for (size_t j = 0; j < c->o->p; j++) {
        double v = gsl_vector_get(u, j);
        v = v < 0 ? 0 : v > 1 ? 1 : v;
        x[j] = c->o->lo[j] + v * (c->o->hi[j] - c->o->lo[j]);
    }
}

static int nl_eval(nl_ctx *c, const double *x, double *r)
{
    if (c->rc)
        return GSL_EBADFUNC;
    c->evaluations++;
    if ((c->rc = c->f(x, r, c->ctx, c->err)))
        return GSL_EBADFUNC;
    for (size_t i = 0; i < c->o->n; i++)
        if (!isfinite(r[i])) {
            c->rc = rs_fail(c->err, RS_EINPUT, "residual %zu is not finite", i);
            return GSL_EBADFUNC;
        }
    return GSL_SUCCESS;
}

static int nl_f(const gsl_vector *u, void *params, gsl_vector *fv)
{
    nl_ctx *c = params;
    double x[RS_FIT_NL_MAX_PARAMS];
    nl_unscale(c, u, x);
    return nl_eval(c, x, fv->data); /* fv is contiguous: allocated by GSL with stride 1 */
}

static int nl_df(const gsl_vector *u, void *params, gsl_matrix *J)
{
    nl_ctx *c = params;
    const size_t n = c->o->n, p = c->o->p;
    double x[RS_FIT_NL_MAX_PARAMS];
    gsl_vector *v = gsl_vector_alloc(p), *plus = gsl_vector_alloc(n);
    int rc = (!v || !plus) ? GSL_ENOMEM : GSL_SUCCESS;
    for (size_t j = 0; j < p && rc == GSL_SUCCESS; j++) {
        gsl_vector_memcpy(v, u);
        double uj = gsl_vector_get(u, j), h = c->o->step;
        double a = uj + h > 1 ? 1 : uj + h, b = uj - h < 0 ? 0 : uj - h;
        if (a - b <= 0)
            a = b + h;
        gsl_vector_set(v, j, a);
        nl_unscale(c, v, x);
        if ((rc = nl_eval(c, x, plus->data)))
            break;
        gsl_vector_set(v, j, b);
        nl_unscale(c, v, x);
        if ((rc = nl_eval(c, x, c->rtmp)))
            break;
        for (size_t i = 0; i < n; i++)
            gsl_matrix_set(J, i, j, (gsl_vector_get(plus, i) - c->rtmp[i]) / (a - b));
    }
    gsl_vector_free(v);
    gsl_vector_free(plus);
    return rc;
}

int rs_fit_nl(rs_fit_nl_fn f, void *ctx, const rs_fit_nl_opts *o, rs_fit_nl_result *r,
              rs_err *err)
{
    const size_t n = o->n, p = o->p;
    if (p < 1 || p > RS_FIT_NL_MAX_PARAMS)
        return rs_fail(err, RS_EINPUT, "%zu parameters: fit 1 to %d", p, RS_FIT_NL_MAX_PARAMS);
    if (n <= p)
        return rs_fail(err, RS_EINPUT, "%zu observations for %zu parameters: more are needed",
                       n, p);
    if (!(o->step > 0 && o->step <= 0.25) || o->max_iter < 1)
        return rs_fail(err, RS_EINPUT, "bad step or iteration limit");
    for (size_t j = 0; j < p; j++)
        if (!(o->lo[j] < o->hi[j]) || !(o->x0[j] >= o->lo[j] && o->x0[j] <= o->hi[j]))
            return rs_fail(err, RS_EINPUT, "parameter %zu: range or start is bad", j + 1);

    nl_ctx c = { .f = f, .ctx = ctx, .o = o, .err = err };
    gsl_multifit_nlinear_parameters fp = gsl_multifit_nlinear_default_parameters();
    gsl_multifit_nlinear_fdf fdf = { .f = nl_f, .df = nl_df, .n = n, .p = p, .params = &c };
    gsl_multifit_nlinear_workspace *w = gsl_multifit_nlinear_alloc(gsl_multifit_nlinear_trust,
                                                                   &fp, n, p);
    gsl_vector *u0 = gsl_vector_alloc(p);
    gsl_matrix *cov = gsl_matrix_alloc(p, p);
    c.rtmp = malloc(n * sizeof *c.rtmp);
    int rc = 0, info = 0;
    if (!w || !u0 || !cov || !c.rtmp) {
        rc = rs_fail(err, RS_ENOMEM, "out of memory for the fit");
        goto out;
    }
    for (size_t j = 0; j < p; j++)
        gsl_vector_set(u0, j, (o->x0[j] - o->lo[j]) / (o->hi[j] - o->lo[j]));
    int gs = gsl_multifit_nlinear_init(u0, &fdf, w);
    if (gs == GSL_SUCCESS) {
        gsl_vector *f0 = gsl_multifit_nlinear_residual(w);
        gsl_blas_ddot(f0, f0, &r->chisq0);
        gs = gsl_multifit_nlinear_driver((size_t)o->max_iter, 1e-6, 1e-6, 1e-8, NULL, NULL,
                                         &info, w);
    }
    if (c.rc) {
        rc = c.rc;
        goto out;
    }
    r->converged = gs == GSL_SUCCESS;
    if (gs != GSL_SUCCESS && gs != GSL_EMAXITER && gs != GSL_ENOPROG) {
        rc = rs_fail(err, RS_EINTERNAL, "the fit failed: %s", gsl_strerror(gs));
        goto out;
    }
    gsl_vector *res = gsl_multifit_nlinear_residual(w);
    gsl_blas_ddot(res, res, &r->chisq);
    gsl_matrix *J = gsl_multifit_nlinear_jac(w);
    gsl_multifit_nlinear_covar(J, 0.0, cov);
    nl_unscale(&c, gsl_multifit_nlinear_position(w), r->x);
    double s2 = r->chisq / (double)(n - p), t = gsl_cdf_tdist_Pinv(0.975, (double)(n - p));
    r->sigma = sqrt(s2);
    for (size_t j = 0; j < p; j++) {
        double var = gsl_matrix_get(cov, j, j) * s2;
        r->ci[j] = t * sqrt(var > 0 ? var : 0) * (o->hi[j] - o->lo[j]);
    }
    r->iterations = (int)gsl_multifit_nlinear_niter(w);
    r->evaluations = c.evaluations;
out:
    gsl_multifit_nlinear_free(w);
    gsl_vector_free(u0);
    gsl_matrix_free(cov);
    free(c.rtmp);
    return rc;
}
