/* test_fit.c — the least-squares line on synthetic observations: exact
 * recovery without noise; with Gaussian noise the 95 % intervals cover the
 * true base and slope in about 95 % of 400 independent data sets (between
 * 91 % and 98.5 %: a binomial(400, 0.95) falls outside that with
 * probability < 0.3 %, and the seed is fixed), the residual deviation
 * estimates the noise, and the refusals. */
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <string.h>

#include "check.h"
#include "sim/fit.h"

#define MIB 1048576.0
#define N 120

static void test_exact(void)
{
    double x[5], y[5];
    rs_fit_line f;
    rs_err err = { 0 };
    for (int i = 0; i < 5; i++) {
        x[i] = (i + 1) * 100 * MIB;
        y[i] = 300 * MIB + 1.25 * x[i];
    }
    CHECK_MSG(rs_fit_line_ls(x, y, 5, &f, &err) == 0, "%s", err.msg);
    CHECK_MSG(fabs(f.base - 300 * MIB) < 1e-3 && fabs(f.k - 1.25) < 1e-12, "%g %g", f.base, f.k);
    CHECK(f.sigma < 1e-3 && f.r2 > 1 - 1e-12 && f.n == 5);
    double yy, ci;
    rs_fit_line_at(&f, 16384 * MIB, &yy, &ci);
    CHECK(fabs(yy - (300 * MIB + 1.25 * 16384 * MIB)) < 1);
}

static void test_coverage(void)
{
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    const double base = 310 * MIB, k = 1.48, sd = 20 * MIB;
    int cover_b = 0, cover_k = 0, cover_at = 0, reps = 400;
    double sigma_sum = 0;
    gsl_rng_set(rng, 20261201);
    for (int r = 0; r < reps; r++) {
        double x[N], y[N];
        rs_fit_line f;
        rs_err err = { 0 };
        for (int i = 0; i < N; i++) {
            x[i] = 256 * MIB + gsl_rng_uniform(rng) * 4096 * MIB;
            y[i] = base + k * x[i] + gsl_ran_gaussian(rng, sd);
        }
        CHECK_MSG(rs_fit_line_ls(x, y, N, &f, &err) == 0, "%s", err.msg);
        cover_b += fabs(f.base - base) <= f.base_ci;
        cover_k += fabs(f.k - k) <= f.k_ci;
        double yy, ci, x0 = 8192 * MIB;
        rs_fit_line_at(&f, x0, &yy, &ci);
        cover_at += fabs(yy - (base + k * x0)) <= ci;
        sigma_sum += f.sigma;
        CHECK(f.base_ci > 0 && f.k_ci > 0 && f.k_ci < 0.05);
    }
    CHECK_MSG(cover_b >= 364 && cover_b <= 394, "base covered %d / %d", cover_b, reps);
    CHECK_MSG(cover_k >= 364 && cover_k <= 394, "slope covered %d / %d", cover_k, reps);
    CHECK_MSG(cover_at >= 364 && cover_at <= 394, "prediction covered %d / %d", cover_at, reps);
    CHECK_MSG(fabs(sigma_sum / reps - sd) < 0.03 * sd, "sigma %g vs %g", sigma_sum / reps, sd);
    gsl_rng_free(rng);
}

static void test_refusals(void)
{
    double x[3] = { 1, 1, 1 }, y[3] = { 1, 2, 3 };
    rs_fit_line f;
    rs_err err = { 0 };
    CHECK(rs_fit_line_ls(x, y, 2, &f, &err) == RS_EINPUT && strstr(err.msg, "at least 3"));
    CHECK(rs_fit_line_ls(x, y, 3, &f, &err) == RS_EINPUT && strstr(err.msg, "cannot be told"));
    x[1] = 2;
    y[2] = NAN;
    CHECK(rs_fit_line_ls(x, y, 3, &f, &err) == RS_EINPUT && strstr(err.msg, "not finite"));
}

int main(void)
{
    test_exact();
    test_coverage();
    test_refusals();
    return check_done();
}
