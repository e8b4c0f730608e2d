/* test_plan.c — the plan search on synthetic responses whose answer is
 * known: a smooth monotone need (RSS = 1.3 x limit + base, 4 daemons), a
 * staircase (jumps, as simulated RSS has), an infeasible budget, a workload
 * that never fills the cache, the top of the range being safe, bad options
 * and an error raised by f half-way. */
#include <math.h>
#include <stdlib.h>

#include "check.h"
#include "sim/plan.h"

#define MiB 1048576.0
#define GiB 1073741824.0

typedef struct synth {
    double slope, base, daemons; /* need = daemons x (slope x limit + base) */
    double step;                 /* > 0: limit rounded up to a multiple of step first */
    double fill_cap;             /* > 0: accounted peak is min(limit, fill_cap) */
    int calls, fail_at;
    int batches, pairs, nfirst; /* calls of f, of them with two limits; first's size */
    double first[2];            /* the limits of the first call */
} synth;

static int need1(synth *s, double limit, rs_plan_eval *r_ev, rs_err *err)
{
    if (++s->calls == s->fail_at)
        return rs_fail(err, RS_EINPUT, "run %d failed", s->calls);
    double l = s->step > 0 ? ceil(limit / s->step) * s->step : limit;
    double acc = s->fill_cap > 0 && s->fill_cap < l ? s->fill_cap : l;
    r_ev->need_bytes = s->daemons * (s->slope * acc + s->base);
    r_ev->accounted_peak_bytes = acc;
    return 0;
}

static int need(const double *limits, int n, void *ctx, rs_plan_eval *r_evs, rs_err *err)
{
    synth *s = ctx;
    CHECK(n == 1 || (n == 2 && limits[0] != limits[1]));
    s->batches++;
    s->pairs += n == 2;
    if (s->nfirst == 0)
        for (int i = 0; i < n; i++)
            s->first[s->nfirst++] = limits[i];
    for (int i = 0; i < n; i++) {
        int rc = need1(s, limits[i], &r_evs[i], err);
        if (rc)
            return rc;
    }
    return 0;
}

static rs_plan_opts opts_for(double budget, double daemons)
{
    return (rs_plan_opts){
        .budget_bytes = budget, .lo_bytes = budget / daemons / 8, .hi_bytes = budget / daemons,
        .min_bytes = MiB, .max_bytes = 64 * budget, .tol_rel = 0.01, .tol_min_bytes = MiB,
        .quantum_bytes = MiB, .fill_ratio = 0.5, .max_evals = 60,
    };
}

static void test_smooth(void)
{
    synth s = { .slope = 1.3, .base = 256 * MiB, .daemons = 4 };
    rs_plan_opts o = opts_for(0.9 * 64 * GiB, 4);
    rs_plan_result r;
    rs_err err = { 0 };
    double exact = (o.budget_bytes / 4 - s.base) / 1.3;

    CHECK_MSG(rs_plan_search(need, &s, &o, &r, &err) == 0, "%s", err.msg);
    CHECK(r.outcome == RS_PLAN_FOUND && r.converged);
    CHECK_MSG(r.limit_bytes <= exact && exact - r.limit_bytes <= r.tol_bytes + MiB,
              "limit %.0f exact %.0f tol %.0f", r.limit_bytes, exact, r.tol_bytes);
    CHECK(r.unsafe_bytes > exact && r.unsafe_bytes - r.limit_bytes <= r.tol_bytes + MiB);
    CHECK(r.need_bytes <= o.budget_bytes);
    CHECK(fmod(r.limit_bytes, MiB) == 0);
    CHECK_MSG(r.evaluations == s.calls && r.evaluations <= 20, "%d evaluations", r.evaluations);
    /* the first guesses are one batch; on a linear response the line
     * through them meets the budget where the answer is, so the next batch,
     * a pair around that, ends the search: two steps */
    CHECK(s.nfirst == 2 && s.first[0] == round(o.lo_bytes / MiB) * MiB &&
          s.first[1] == round(o.hi_bytes / MiB) * MiB);
    CHECK_MSG(s.batches == 2 && s.pairs == 2 && s.calls == 4, "%d steps, %d evaluations",
              s.batches, s.calls);
}

/* A narrow first guess (a coarse answer +-0.45 %) that misses the answer:
 * the walk starts with steps of the guess's width and widens them, so a
 * miss by 3 % costs a few evaluations, not a doubling and a long refine. */
static void test_narrow_guess(void)
{
    synth s = { .slope = 1.25, .base = 700 * MiB, .daemons = 1 };
    rs_plan_opts o = opts_for(0.9 * 24 * GiB, 1);
    rs_plan_result r;
    rs_err err = { 0 };
    double exact = (o.budget_bytes - s.base) / 1.25;

    for (int side = -1; side <= 1; side += 2) {
        double c = exact * (1 + side * 0.03);
        s.calls = s.batches = s.pairs = s.nfirst = 0;
        o.lo_bytes = c * (1 - 0.0045);
        o.hi_bytes = c * (1 + 0.0045);
        CHECK_MSG(rs_plan_search(need, &s, &o, &r, &err) == 0, "%s", err.msg);
        CHECK(r.outcome == RS_PLAN_FOUND && r.converged);
        CHECK_MSG(r.limit_bytes <= exact && exact - r.limit_bytes <= r.tol_bytes + MiB,
                  "side %d: limit %.0f exact %.0f", side, r.limit_bytes, exact);
        CHECK_MSG(r.evaluations <= 8, "side %d: %d evaluations from a guess 3%% off", side,
                  r.evaluations);
    }
    /* a guess that holds the answer: the two first evaluations are the answer */
    s.calls = s.batches = s.pairs = s.nfirst = 0;
    o.lo_bytes = exact * (1 - 0.004);
    o.hi_bytes = exact * (1 + 0.004);
    CHECK(rs_plan_search(need, &s, &o, &r, &err) == 0);
    CHECK_MSG(r.outcome == RS_PLAN_FOUND && r.converged && r.evaluations == 2 && s.batches == 1,
              "%d evaluations in %d calls", r.evaluations, s.batches);
}

static void test_staircase(void)
{
    synth s = { .slope = 1.5, .base = 0, .daemons = 1, .step = 100 * MiB };
    rs_plan_opts o = opts_for(1000 * MiB, 1);
    rs_plan_result r;
    rs_err err = { 0 };

    /* need = 1.5 x ceil(l / 100M) x 100M <= 1000M: l <= 600M exactly */
    CHECK_MSG(rs_plan_search(need, &s, &o, &r, &err) == 0, "%s", err.msg);
    CHECK(r.outcome == RS_PLAN_FOUND && r.converged);
    CHECK_MSG(r.limit_bytes <= 600 * MiB && 600 * MiB - r.limit_bytes <= r.tol_bytes,
              "limit %.0f MiB", r.limit_bytes / MiB);
}

static void test_infeasible_and_workload_bound(void)
{
    synth s = { .slope = 1.2, .base = 2 * GiB, .daemons = 8 };
    rs_plan_opts o = opts_for(8 * GiB, 8); /* base alone needs 16 GiB */
    rs_plan_result r;
    rs_err err = { 0 };

    CHECK(rs_plan_search(need, &s, &o, &r, &err) == 0);
    CHECK(r.outcome == RS_PLAN_INFEASIBLE && r.limit_bytes == 0);
    CHECK(r.need_bytes > o.budget_bytes && r.need_bytes >= 16 * GiB);

    synth w = { .slope = 1.2, .base = 0, .daemons = 2, .fill_cap = 100 * MiB };
    o = opts_for(16 * GiB, 2);
    CHECK(rs_plan_search(need, &w, &o, &r, &err) == 0);
    CHECK(r.outcome == RS_PLAN_WORKLOAD_BOUND && r.limit_bytes >= 100 * MiB);
    CHECK(r.need_bytes <= o.budget_bytes);

    synth t = { .slope = 0.5, .base = 0, .daemons = 1 };
    o = opts_for(GiB, 1);
    o.max_bytes = 2 * GiB; /* 2 GiB x 0.5 fits exactly */
    CHECK(rs_plan_search(need, &t, &o, &r, &err) == 0);
    CHECK(r.outcome == RS_PLAN_AT_MAX && r.limit_bytes == 2 * GiB);
}

static void test_errors(void)
{
    synth s = { .slope = 1.3, .base = 0, .daemons = 1, .fail_at = 3 };
    rs_plan_opts o = opts_for(GiB, 1);
    rs_plan_result r;
    rs_err err = { 0 };

    CHECK(rs_plan_search(need, &s, &o, &r, &err) == RS_EINPUT);
    CHECK(s.calls == 3 && r.evaluations == 2);
    o.hi_bytes = o.lo_bytes;
    CHECK(rs_plan_search(need, &s, &o, &r, &err) == RS_EINPUT);
    o = opts_for(GiB, 1);
    o.budget_bytes = 0;
    CHECK(rs_plan_search(need, &s, &o, &r, &err) == RS_EINPUT);
    /* out of evaluations while walking to a bracket: no answer */
    o = opts_for(GiB, 1);
    o.lo_bytes = MiB;
    o.hi_bytes = 2 * MiB;
    o.max_evals = 4; /* the walk up doubles from 2 MiB to past 768 MiB */
    synth w = { .slope = 1.3, .daemons = 1 };
    CHECK(rs_plan_search(need, &w, &o, &r, &err) == RS_EINPUT);
    CHECK(w.calls <= 4);
}

/* Out of evaluations while refining: the bracket found so far is the
 * answer, safe and said not to be within the tolerance. */
static void test_out_of_evaluations(void)
{
    synth u = { .slope = 1.5, .daemons = 1, .step = 100 * MiB };
    rs_plan_opts o = opts_for(GiB, 1);
    rs_plan_result r;
    rs_err err = { 0 };

    o.max_evals = 4; /* not enough for 1 % of 1 GiB from [128M, 1G] on steps */
    CHECK_MSG(rs_plan_search(need, &u, &o, &r, &err) == 0, "%s", err.msg);
    CHECK_MSG(r.outcome == RS_PLAN_FOUND && !r.converged && r.evaluations == 4 && u.calls == 4,
              "outcome %d converged %d, %d evaluations", r.outcome, r.converged, r.evaluations);
    /* need = 1.5 x ceil(l / 100M) x 100M <= 1 GiB: l <= 682.67M, safe at 600M */
    CHECK_MSG(r.limit_bytes <= 600 * MiB && r.unsafe_bytes > 600 * MiB &&
              r.unsafe_bytes - r.limit_bytes > r.tol_bytes,
              "limit %.0f unsafe %.0f MiB", r.limit_bytes / MiB, r.unsafe_bytes / MiB);
    CHECK(r.need_bytes <= o.budget_bytes);
    /* every evaluation allowed is used: with one left, a step evaluates one
     * limit instead of stopping short of its pair */
    for (int k = 5; k <= 7; k++) {
        u.calls = 0;
        o.max_evals = k;
        CHECK_MSG(rs_plan_search(need, &u, &o, &r, &err) == 0, "%s", err.msg);
        CHECK_MSG(r.converged || (r.evaluations == k && u.calls == k),
                  "max_evals %d: converged %d after %d evaluations", k, r.converged, r.evaluations);
        CHECK(r.need_bytes <= o.budget_bytes);
    }
}

/* 50 000 staircases (steps of 1 to 200 MiB, 1 to 8 daemons, half of them
 * from a narrow first guess as after a coarse search) at a fine tolerance,
 * 0.1 %, with the plan's 40 evaluations: every one converges.  Thirds keep
 * going once the pair has missed (resetting the misses after a thirds step
 * that brackets the answer took up to 37 evaluations here; this takes 35). */
static void test_fine_staircases(void)
{
    int worst = 0, found = 0;
    srand48(7);
    for (int i = 0; i < 50000; i++) {
        synth s = { .slope = 1.0 + drand48(), .base = drand48() * 500 * MiB,
                    .daemons = 1 + lrand48() % 8, .step = (1 + lrand48() % 200) * MiB };
        double budget = (1 + drand48() * 60) * GiB, exact = (budget / s.daemons - s.base) / s.slope;
        rs_plan_opts o = opts_for(budget, s.daemons);
        o.tol_rel = 0.001;
        o.max_evals = 40;
        if (lrand48() % 2 && exact > 64 * MiB) {
            double c = exact * (0.5 + drand48());
            o.lo_bytes = c * (1 - 0.0045);
            o.hi_bytes = c * (1 + 0.0045);
        }
        rs_plan_result r;
        rs_err err = { 0 };
        CHECK_MSG(rs_plan_search(need, &s, &o, &r, &err) == 0, "case %d: %s", i, err.msg);
        if (r.outcome != RS_PLAN_FOUND) /* base alone over the budget */
            continue;
        found++;
        CHECK_MSG(r.converged && r.need_bytes <= budget, "case %d: not converged, %d evaluations",
                  i, r.evaluations);
        if (r.evaluations > worst)
            worst = r.evaluations;
    }
    CHECK_MSG(found > 45000 && worst <= 35, "%d found, %d evaluations at worst", found, worst);
}

/* A first guess narrower than a quantum (a coarse answer of a small limit
 * +-0.45 %) still walks up to an unsafe limit: the answer has one above it. */
static void test_guess_within_a_quantum(void)
{
    synth s = { .slope = 1.3, .base = 0, .daemons = 1 };
    rs_plan_opts o = opts_for(100 * MiB, 1);
    rs_plan_result r;
    rs_err err = { 0 };

    o.lo_bytes = 60 * MiB * (1 - 0.0045);
    o.hi_bytes = 60 * MiB * (1 + 0.0045); /* both round to 60 MiB */
    CHECK_MSG(rs_plan_search(need, &s, &o, &r, &err) == 0, "%s", err.msg);
    CHECK_MSG(r.outcome == RS_PLAN_FOUND && r.converged && r.unsafe_bytes > r.limit_bytes &&
              r.limit_bytes == 76 * MiB, "outcome %d: safe %.0f MiB, unsafe %.0f MiB",
              r.outcome, r.limit_bytes / MiB, r.unsafe_bytes / MiB);
}

int main(void)
{
    test_smooth();
    test_staircase();
    test_narrow_guess();
    test_infeasible_and_workload_bound();
    test_errors();
    test_out_of_evaluations();
    test_fine_staircases();
    test_guess_within_a_quantum();
    return check_done();
}
