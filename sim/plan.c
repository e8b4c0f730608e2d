/*
 * plan.c — the search behind `rssim plan` (see plan.h for the contract).
 *
 * 1. Bracket: the first guesses lo and hi are evaluated together (one
 *    batch: the caller may replay them side by side).  While lo is unsafe
 *    it moves down, while hi is safe it moves up, the k-th step of a walk
 *    by min(cap, rho^(2^k)), rho = hi / lo of the first guess (cap 4 down,
 *    2 up): from a wide guess (hi = 8 lo) the walk quarters lo and doubles
 *    hi; from a narrow one (a coarse answer +-0.45 %) it starts with
 *    steps of the guess's own width and widens them.  Down to min_bytes
 *    (infeasible below); up to max_bytes, unless the cache at hi is not
 *    even filled (accounted peak below fill_ratio x hi): then the
 *    workload, not the limit, bounds RSS.
 * 2. Refine, two limits per step (one batch): around the limit where the
 *    line through the safe s and the unsafe u meets the budget (regula
 *    falsi), 0.45 x the tolerance on each side, so one step ends the search
 *    when the response is near linear there (RSS grows about linearly with
 *    the limit); the pair widens 4-fold after each step that misses, and
 *    becomes (s, u)'s thirds once it would cover half of it, so a response
 *    with steps (a trim on one side of a sample or the other) still
 *    converges.  After every step the answer is read from the evaluations
 *    themselves: the smallest unsafe limit, and the largest safe one below
 *    it; the search stops when they are within max(tol_rel x safe,
 *    tol_min_bytes) or a quantum, or when max_evals would be passed (then
 *    with the bracket it has, not converged; with one evaluation left, a
 *    step evaluates only its pair's lower limit, which when safe raises the
 *    answer).
 *    (Until 2026-12-03 this was GSL's Brent solver on log(limit): one limit
 *    per step, so nothing to evaluate side by side.)
 * The limits evaluated depend on f's values only, never on how the caller
 * runs a batch, so the answer is the same with any number of workers.
 */
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

static int memo_find(const memo *m, double x)
{
    for (int i = 0; i < m->n; i++)
        if (m->xs[i] == x) /* quantized values: identity, not tolerance */
            return i;
    return -1;
}

/* f at the n quantized limits xs (n <= 2), once per distinct limit: the
 * ones not yet known go to f as one batch; r_evs[i] is f at xs[i].  0 or
 * the error. */
static int eval_batch(memo *m, const double *xs, int n, rs_plan_eval *r_evs)
{
    double todo[2];
    rs_plan_eval got[2];
    int ntodo = 0;

    for (int i = 0; i < n; i++)
        if (memo_find(m, xs[i]) < 0 && !(ntodo == 1 && todo[0] == xs[i]))
            todo[ntodo++] = xs[i];
    if (m->n + ntodo > m->o->max_evals)
        return m->rc = rs_fail(m->err, RS_EINPUT, "no answer within %d evaluations (no safe and unsafe "
                               "limit around it yet)",
                               m->o->max_evals);
    if (m->n + ntodo > m->cap) {
        int cap = m->cap ? 2 * m->cap : 16;
        double *xs2 = realloc(m->xs, (size_t)cap * sizeof *xs2);
        if (xs2)
            m->xs = xs2;
        rs_plan_eval *evs = xs2 ? realloc(m->evs, (size_t)cap * sizeof *evs) : NULL;
        if (!evs)
            return m->rc = rs_fail(m->err, RS_ENOMEM, "out of memory for the plan memo");
        m->evs = evs;
        m->cap = cap;
    }
    if (ntodo && (m->rc = m->f(todo, ntodo, m->ctx, got, m->err)))
        return m->rc;
    for (int i = 0; i < ntodo; i++) {
        if (!isfinite(got[i].need_bytes) || got[i].need_bytes < 0)
            return m->rc = rs_fail(m->err, RS_EINTERNAL, "plan: need at limit %.0f is %g",
                                   todo[i], got[i].need_bytes);
        m->xs[m->n] = todo[i];
        m->evs[m->n++] = got[i];
    }
    for (int i = 0; i < n; i++)
        r_evs[i] = m->evs[memo_find(m, xs[i])];
    return 0;
}

static int eval(memo *m, double x, rs_plan_eval *r_ev)
{
    return eval_batch(m, &x, 1, r_ev);
}

static int safe(const memo *m, const rs_plan_eval *ev)
{
    return ev->need_bytes <= m->o->budget_bytes;
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

/* The k-th step of a bracket walk from x, down (dir < 0) or up: by
 * min(cap, rho^(2^k)), cap 4 down and 2 up, rho_log = log(rho); at least
 * one quantum. */
static double step_from(const rs_plan_opts *o, double x, int dir, double rho_log, int k)
{
    double f = exp(ldexp(rho_log, k < 60 ? k : 60)), cap = dir < 0 ? 4 : 2;
    double y = quantize(o, dir < 0 ? x / (f < cap ? f : cap) : x * (f < cap ? f : cap));
    if (y == x)
        y = quantize(o, x + dir * o->quantum_bytes);
    return y;
}

/* f's need at the evaluated limit x. */
static double need_of(const memo *m, double x)
{
    return m->evs[memo_find(m, x)].need_bytes;
}

/* The next step's limits strictly between the safe s and the unsafe u:
 * the budget's crossing on the line through (s, need(s)) and (u, need(u))
 * (regula falsi), +- 0.45 x the tolerance there, so that when the line is
 * right the pair brackets the answer within the tolerance in one step.
 * After `misses` steps whose pair did not bracket it, the half-width is
 * 4^misses times that; once the pair would span half of (s, u) it is
 * (s, u)'s thirds instead, which shrinks it to a third at worst
 * (*r_thirds).  The number of limits (0 when no whole quantum lies between
 * s and u). */
static int refine_pair(const memo *m, double s, double u, int misses, double r_pair[2],
                       int *r_thirds)
{
    const rs_plan_opts *o = m->o;
    double gs = need_of(m, s) - o->budget_bytes, gu = need_of(m, u) - o->budget_bytes;
    double x = gu > gs ? s + (u - s) * (-gs / (gu - gs)) : (s + u) / 2;
    double d = 0.45 * tol_at(o, x) * ldexp(1, 2 * (misses < 20 ? misses : 20));
    double a, b;

    *r_thirds = 2 * d >= (u - s) / 2;
    if (*r_thirds) {
        a = s + (u - s) / 3;
        b = s + 2 * (u - s) / 3;
    } else {
        a = x - d;
        b = x + d;
    }
    a = quantize(o, a);
    b = quantize(o, b);
    if (a <= s)
        a = quantize(o, s + o->quantum_bytes);
    if (b >= u)
        b = quantize(o, u - o->quantum_bytes);
    if (a > b) { /* both moved off an end: keep them in order */
        double t = a;
        a = b;
        b = t;
    }
    int n = 0;
    if (a > s && a < u)
        r_pair[n++] = a;
    if (b > s && b < u && b != a)
        r_pair[n++] = b;
    return n;
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
    if (hi <= lo && lo < o->max_bytes) /* a guess narrower than a quantum */
        hi = quantize(o, lo + o->quantum_bytes);
    const double rho_log = log(hi / lo);
    int steps = 0;
    /* 1. bracket: the first guesses together, then a safe lo ... */
    {
        double both[2] = { lo, hi };
        rs_plan_eval evs[2];
        if ((rc = eval_batch(&m, both, lo < hi ? 2 : 1, evs)))
            goto out;
    }
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
        lo = step_from(o, lo, -1, rho_log, steps++);
    }
    /* ... and an unsafe hi */
    steps = 0;
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
        hi = step_from(o, hi, +1, rho_log, steps++);
    }
    /* 2. refine between them, a pair of limits per step; a pair that
     * brackets the answer ends the misses, thirds leave them as they are
     * (the response stepped: the pair would miss again), and a search out
     * of evaluations ends here, with the bracket it has (not converged) */
    int misses = 0;
    answer(&m, &s, &u, &ev);
    while (u > 0 && s > 0 && u - s > tol_at(o, s) && u - s > o->quantum_bytes) {
        double pair[2];
        int thirds, n = refine_pair(&m, s, u, misses, pair, &thirds);
        if (n == 2 && m.n + 2 > o->max_evals)
            n = 1; /* one evaluation left: the pair's lower limit, the likelier to be safe */
        if (!n || m.n + n > o->max_evals)
            break; /* no limit left between them (a quantum apart), or no evaluation */
        if ((rc = eval_batch(&m, pair, n, (rs_plan_eval[2]){ { 0 } })))
            goto out;
        answer(&m, &s, &u, &ev);
        if (!thirds)
            misses = n == 2 && s == pair[0] && u == pair[1] ? 0 : misses + 1;
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
