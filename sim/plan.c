/*
 * plan.c — the search behind `rssim plan` (see plan.h for the contract).
 *
 * 1. Bracket: the guess lo is halved (by 4) while it is unsafe, down to
 *    min_bytes (infeasible below); hi is doubled while it is safe, up to
 *    max_bytes, unless the cache at hi is not even filled (accounted peak
 *    below fill_ratio x hi): then the workload, not the limit, bounds RSS.
 * 2. Refine: GSL's Brent solver on g(u) = need(q(e^u)) / budget - 1, u the
 *    log of the limit (so the tolerance is relative, as the question is),
 *    q the rounding to whole quanta.  g is a step function of the limit
 *    where a trim moves across a sample; Brent keeps a sign change inside
 *    its bracket and falls back to bisection, so it still converges.  After
 *    every iteration the answer is read from the evaluations themselves:
 *    the smallest unsafe limit, and the largest safe one below it; the
 *    search stops when they are within max(tol_rel x safe, tol_min_bytes).
 * GSL cannot carry an error out of its callback: the wrapper keeps f's
 * error and returns 0, and the driver checks it after every step.
 */
#include <gsl/gsl_errno.h>
#include <gsl/gsl_roots.h>
#include <math.h>
#include <stdlib.h>

#include "plan.h"
#include "registry.h"
#include "schema.h"

typedef struct memo {
    rs_plan_fn f;
    void *ctx;
    const rs_plan_opts *o;
    rs_err *err;
    int rc;
    double *xs;
    rs_plan_eval *evs;
    int n, cap;
} memo;

static double quantize(const rs_plan_opts *o, double x)
{
    double q = round(x / o->quantum_bytes) * o->quantum_bytes;
    if (q < o->min_bytes)
        q = o->min_bytes;
    if (q > o->max_bytes)
        q = o->max_bytes;
    return q;
}

/* f at the quantized limit x, once per distinct x; 0 or the error. */
static int eval(memo *m, double x, rs_plan_eval *r_ev)
{
    for (int i = 0; i < m->n; i++)
        if (m->xs[i] == x) { /* quantized values: identity, not tolerance */
            *r_ev = m->evs[i];
            return 0;
        }
    if (m->n >= m->o->max_evals)
        return m->rc = rs_fail(m->err, RS_EINPUT, "no answer within %d evaluations",
                               m->o->max_evals);
    if (m->n == m->cap) {
        int cap = m->cap ? 2 * m->cap : 16;
        double *xs = realloc(m->xs, (size_t)cap * sizeof *xs);
        if (xs)
            m->xs = xs;
        rs_plan_eval *evs = xs ? realloc(m->evs, (size_t)cap * sizeof *evs) : NULL;
        if (!evs)
            return m->rc = rs_fail(m->err, RS_ENOMEM, "out of memory for the plan memo");
        m->evs = evs;
        m->cap = cap;
    }
    if ((m->rc = m->f(x, m->ctx, r_ev, m->err)))
        return m->rc;
    if (!isfinite(r_ev->need_bytes) || r_ev->need_bytes < 0)
        return m->rc = rs_fail(m->err, RS_EINTERNAL, "plan: need at limit %.0f is %g", x,
                               r_ev->need_bytes);
    m->xs[m->n] = x;
    m->evs[m->n++] = *r_ev;
    return 0;
}

static int safe(const memo *m, const rs_plan_eval *ev)
{
    return ev->need_bytes <= m->o->budget_bytes;
}

static double gsl_g(double u, void *p)
{
    memo *m = p;
    rs_plan_eval ev;
    if (m->rc || eval(m, quantize(m->o, exp(u)), &ev))
        return 0; /* ignored: m->rc is checked after every step */
    return ev.need_bytes / m->o->budget_bytes - 1.0;
}

static double tol_at(const rs_plan_opts *o, double x)
{
    double t = o->tol_rel * x;
    return t > o->tol_min_bytes ? t : o->tol_min_bytes;
}

/* From the evaluations: the smallest unsafe limit (0: none) and the largest
 * safe one below it (0: none). */
static void answer(const memo *m, double *r_safe, double *r_unsafe, rs_plan_eval *r_ev)
{
    double unsafe = 0, best = 0;
    for (int i = 0; i < m->n; i++)
        if (!safe(m, &m->evs[i]) && (unsafe == 0 || m->xs[i] < unsafe))
            unsafe = m->xs[i];
    for (int i = 0; i < m->n; i++)
        if (safe(m, &m->evs[i]) && (unsafe == 0 || m->xs[i] < unsafe) && m->xs[i] > best) {
            best = m->xs[i];
            *r_ev = m->evs[i];
        }
    *r_safe = best;
    *r_unsafe = unsafe;
}

static int check_opts(const rs_plan_opts *o, rs_err *err)
{
    if (!(o->budget_bytes > 0) || !isfinite(o->budget_bytes))
        return rs_fail(err, RS_EINPUT, "plan: budget must be > 0");
    if (!(o->quantum_bytes > 0) || !(o->min_bytes > 0) || !(o->min_bytes <= o->max_bytes) ||
        !isfinite(o->max_bytes))
        return rs_fail(err, RS_EINPUT, "plan: need 0 < min <= max and quantum > 0");
    if (!(o->lo_bytes < o->hi_bytes))
        return rs_fail(err, RS_EINPUT, "plan: empty first bracket [%.0f, %.0f]", o->lo_bytes,
                       o->hi_bytes);
    if (!(o->tol_rel >= 0) || !(o->tol_min_bytes >= 0) || o->tol_rel + o->tol_min_bytes <= 0)
        return rs_fail(err, RS_EINPUT, "plan: need a tolerance > 0");
    if (o->max_evals < 4)
        return rs_fail(err, RS_EINPUT, "plan: need at least 4 evaluations");
    return 0;
}

int rs_plan_search(rs_plan_fn f, void *ctx, const rs_plan_opts *o, rs_plan_result *r_res,
                   rs_err *err)
{
    memo m = { .f = f, .ctx = ctx, .o = o, .err = err };
    rs_plan_result r = { 0 };
    rs_plan_eval ev_lo, ev_hi, ev;
    double lo, hi, s, u;
    int rc;

    if ((rc = check_opts(o, err)))
        goto out;
    lo = quantize(o, o->lo_bytes);
    hi = quantize(o, o->hi_bytes);
    /* 1. bracket: a safe lo ... */
    for (;;) {
        if ((rc = eval(&m, lo, &ev_lo)))
            goto out;
        if (safe(&m, &ev_lo))
            break;
        hi = lo;
        ev_hi = ev_lo;
        if (lo <= o->min_bytes) {
            r.outcome = RS_PLAN_INFEASIBLE;
            r.need_bytes = ev_lo.need_bytes;
            goto out;
        }
        lo = quantize(o, lo / 4);
    }
    /* ... and an unsafe hi */
    while (hi > lo) {
        if ((rc = eval(&m, hi, &ev_hi)))
            goto out;
        if (!safe(&m, &ev_hi))
            break;
        lo = hi;
        ev_lo = ev_hi;
        if (ev_hi.accounted_peak_bytes < o->fill_ratio * hi) {
            r.outcome = RS_PLAN_WORKLOAD_BOUND;
            goto done;
        }
        if (hi >= o->max_bytes) {
            r.outcome = RS_PLAN_AT_MAX;
            goto done;
        }
        hi = quantize(o, hi * 2);
    }
    /* 2. refine between them */
    answer(&m, &s, &u, &ev);
    if (u > 0 && s > 0 && u - s > tol_at(o, s) && u - s > o->quantum_bytes) {
        gsl_function F = { .function = gsl_g, .params = &m };
        gsl_root_fsolver *solver = gsl_root_fsolver_alloc(gsl_root_fsolver_brent);
        int status;
        if (!solver) {
            rc = rs_fail(err, RS_ENOMEM, "out of memory for the root solver");
            goto out;
        }
        status = gsl_root_fsolver_set(solver, &F, log(s), log(u));
        while (!status && !m.rc) {
            status = gsl_root_fsolver_iterate(solver);
            if (status || m.rc)
                break;
            answer(&m, &s, &u, &ev);
            if (u - s <= tol_at(o, s) || u - s <= o->quantum_bytes)
                break;
            double a = gsl_root_fsolver_x_lower(solver), b = gsl_root_fsolver_x_upper(solver);
            if (exp(b) - exp(a) < o->quantum_bytes / 2)
                break; /* the solver's bracket is inside one quantum */
        }
        gsl_root_fsolver_free(solver);
        if ((rc = m.rc))
            goto out;
        if (status) {
            rc = rs_fail(err, RS_EINTERNAL, "root solver failed: %s", gsl_strerror(status));
            goto out;
        }
    }
    r.outcome = RS_PLAN_FOUND;
done:
    answer(&m, &s, &u, &ev);
    r.limit_bytes = s;
    r.unsafe_bytes = u;
    r.need_bytes = ev.need_bytes;
    r.tol_bytes = tol_at(o, s);
    r.converged = r.outcome == RS_PLAN_FOUND && u > 0 &&
                  (u - s <= r.tol_bytes || u - s <= o->quantum_bytes);
out:
    r.evaluations = m.n;
    *r_res = r;
    free(m.xs);
    free(m.evs);
    return rc;
}

int rs_plan_limit_key(const rs_config *cfg, const char **r_key, int *r_is_daemons, rs_err *err)
{
    rs_components c;
    int rc;

    *r_key = NULL;
    *r_is_daemons = 0;
    if ((rc = rs_schema_resolve(cfg, &c, err)))
        return rc;
    if (!c.daemon->limit_key)
        return rs_fail(err, RS_EINPUT, "daemon '%s' has no memory limit key to plan (plan needs "
                       "kv, mds or osd)", c.daemon->name);
    if (rs_schema_reads(&c, c.daemon->limit_key)) {
        *r_key = c.daemon->limit_key;
        *r_is_daemons = 1;
        return 0;
    }
    for (size_t i = 0; i < c.nparts; i++) {
        if (c.daemon->slots[i].kind != RS_COMPONENT_TRIM)
            continue;
        const rs_registry *reg = rs_registry_of_component(RS_COMPONENT_TRIM);
        for (size_t j = 0; j < reg->count; j++) {
            if (reg->entries[j] != c.parts[i])
                continue;
            for (const rs_param *p = rs_registry_params(reg, j); p && p->key; p++)
                if (p->type == RS_PT_SIZE && rs_schema_reads(&c, p->key)) {
                    *r_key = p->key;
                    return 0;
                }
        }
    }
    return rs_fail(err, RS_EINPUT, "daemon '%s': the run reads neither its limit key '%s' nor a "
                   "cache size of its trim policy: nothing to plan", c.daemon->name,
                   c.daemon->limit_key);
}
