/*
 * cmd_plan.c — `rssim plan --preset P --workload TRACE|gen:NAME:k=v,... --ram SIZE
 * [--daemons N] [--headroom 10%] [--quantile p50|0.99|peak] [--seeds K]`:
 * the largest value of the daemon's limit key (rs_daemon_ops.limit_key) at
 * which N daemons' predicted RSS fits in RAM less the headroom.
 *
 * The search is sim/plan.c's (bracket, then refine, two limits a step);
 * this file turns a step's limits into stored runs, replayed side by side
 * (--jobs: rs_cli_execute_runs), after a coarse search with sampled runs
 * for big mds traces (--coarse: coarse_search).  For each seed, the preset
 * + --set + limit config is hashed like the runs table's param_hash, and a
 * done run with the same trace sha256 and param_hash is reused rather than
 * replayed.
 * What a daemon needs at a limit is its RSS at the quantile — p50 or p99 of
 * the steady samples (overshoot_p50/p99 x limit_bytes), or rss_peak_bytes —
 * and the worst of the K seeds decides.  With a gen: workload the K traces
 * (generator seeds 1..K) are written once under <db folder>/traces, named
 * by the hash of the generator's options; with a trace file the K seeds are
 * the run's own seed (the models' random streams).
 *
 * The plan and each evaluation are stored (plans, plan_evals: docs/store.md;
 * a coarse search's runs too, told apart by their mds_sample_k)
 * for `rssim plot capacity --plan ID`.  The rules of thumb printed next to
 * the answer, and their sources:
 *   mds  RSS ~ 1.5 x mds_cache_memory_limit: Red Hat Ceph Storage 5 File
 *        System Guide 2.4, "This limit is approximately 66% of the desired
 *        maximum memory use of the MDS"
 *        (docs.redhat.com/.../red_hat_ceph_storage/5/html/file_system_guide/
 *        metadata-server-cache-size-limits_fs); Ceph's own MDS health warning
 *        fires at mds_health_cache_threshold = 150 % of the limit
 *        (docs.ceph.com/en/mimic/cephfs/cache-size-limits/).
 *   osd  RSS ~ osd_memory_target, "mapped memory is generally kept just under
 *        the target value while RSS memory may be anywhere from 0-15% over"
 *        (github.com/ceph/ceph/pull/22970, description); cgroup: the target
 *        defaults to osd_memory_target_cgroup_limit_ratio (0.8) x the cgroup
 *        limit (ceph commit 5c6b533697814af8, src/common/options.cc), and
 *        ocs-operator lowered it to 0.6 after OSDs were OOM-killed with 8 GiB
 *        pods (github.com/red-hat-storage/ocs-operator/pull/3887).
 */
#include <getopt.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../models/daemon/daemon.h"
#include "../../traces/gen/gen.h"
#include "../../traces/sample.h"
#include "../../traces/trace.h"
#include "../base/config.h"
#include "../base/result.h"
#include "../node.h"
#include "../plan.h"
#include "../query.h"
#include "../run.h"
#include "../registry.h"
#include "../schema.h"
#include "../store.h"
#include "cli.h"

#define MAX_SETS 256
#define MAX_SEEDS 64
/* The coarse search by default: sampled 1/8 (within 0.4 % of full runs at
 * 256 GiB, docs/validation.md), for traces of 256 MiB or more (about 8 M
 * binary records): below that a full plan takes a minute or less, and a
 * small namespace samples poorly (the 300 k-record test trace of
 * tests/cli/plan_jobs.sh: sampled p99 5 % off the full one). */
#define COARSE_K 8
#define COARSE_MIN_BYTES (256.0 * MiB)
#define MiB 1048576.0
#define GiB 1073741824.0

static void usage(FILE *f)
{
    fprintf(f,
            "usage: rssim plan --preset P --workload TRACE|gen:NAME[:k=v,...] --ram SIZE\n"
            "                  [--daemons N] [--headroom PCT] [--quantile p50|0.99|peak]\n"
            "                  [--seeds K] [--limit L | --cgroup-limit SIZE [--cgroup-ratio R]]\n"
            "                  [--tol PCT] [--max-evals N] [--set K=V ...] [--jobs N]\n"
            "                  [--coarse K]\n"
            "                  [--db PATH] [--json]\n\n"
            "Find the largest value of the daemon's memory limit (kv_cache_limit,\n"
            "mds_cache_memory_limit, osd_memory_target) at which N daemons' predicted RSS\n"
            "stays within RAM less the headroom.  Every evaluation is a stored run; a run\n"
            "with the same trace and params already done in the database is reused.\n\n"
            "  -p, --preset P        models/presets/P.conf, or a path to a .conf file\n"
            "  -w, --workload W      a trace file, or gen:NAME[:key=value,...] (a generator\n"
            "                        and its options, e.g. gen:kv:keys=300000,events=3000000);\n"
            "                        generated traces are kept under <db folder>/traces\n"
            "  -r, --ram SIZE        the node's memory (e.g. 64G)\n"
            "  -n, --daemons N       daemons of this kind on the node (default 1)\n"
            "      --headroom PCT    RAM kept free, e.g. 10%% or 0.1 (default 10%%)\n"
            "  -q, --quantile Q      RSS compared: p50 or 0.99 (of the steady samples) or\n"
            "                        peak (default 0.99)\n"
            "  -k, --seeds K         K seeds (generator seeds 1..K for gen:, else the run\n"
            "                        seed); the worst decides (default 1)\n"
            "  -l, --limit L         predict at L instead of searching: does it fit?\n"
            "      --cgroup-limit SIZE\n"
            "                        osd: the pod's memory limit; osd_memory_target is\n"
            "                        R x SIZE (Ceph's osd_memory_target_cgroup_limit_ratio)\n"
            "                        and each OSD's peak must stay under SIZE as well\n"
            "      --cgroup-ratio R  default 0.8 (Ceph's default)\n"
            "      --tol PCT         stop when the largest safe and the smallest unsafe\n"
            "                        limit are within PCT of the limit (default 1%%, at\n"
            "                        least 1 MiB)\n"
            "      --max-evals N     at most N limits evaluated by the search, 4..1000\n"
            "                        (default 40; a coarse search has N more).  A search\n"
            "                        that brackets the answer but runs out answers with\n"
            "                        its safe limit, marked NOT within the tolerance\n"
            "  -s, --set K=V         fixed override (repeatable)\n"
            "  -j, --jobs N          replay a search step's runs (2 limits x K seeds) side\n"
            "                        by side in up to N processes (default: one per core,\n"
            "                        at most 2 x K); each holds one run's memory.  The\n"
            "                        limits searched, and so the answer, do not depend on N\n"
            "      --coarse K        mds: search first with every run sampled 1/K\n"
            "                        (mds_sample_k), then confirm with full runs from that\n"
            "                        answer; 1: off.  Default 8 when every trace is 256 MiB\n"
            "                        or more, else off.  The answer is the full runs'\n"
            "      --db PATH         SQLite database (default %s)\n"
            "      --json            print the answer as JSON\n"
            "  -h, --help            this help\n\n"
            "Exit status: 0 an answer (or the --limit fits); 2 bad input, no limit fits\n"
            "(--ram too small) or the workload never fills the cache (the answer is\n"
            "bounded by the workload); 3 the --limit does not fit; 1 other failures.\n",
            rs_cli_default_db());
}

/* ---- one evaluation at one limit: K runs ---------------------------- */

typedef struct seed_eval {
    double limit, p50, p99, peak, acc_peak;
    double parts[4]; /* steady: accounted, untracked, allocator overhead, base */
    double rss_steady;
    int64_t run_id;
    uint64_t seed;
    int reused;
} seed_eval;

typedef enum { Q_P50, Q_P99, Q_PEAK } quantile;

typedef struct plan_ctx {
    const char *preset, *limit_key, *db;
    const rs_config *base;
    int nseeds, trace_seeds; /* trace_seeds: the K seeds are the run's seed key */
    char traces[MAX_SEEDS][4096], shas[MAX_SEEDS][65];
    double daemons, budget, cgroup_bytes;
    quantile q;
    int64_t plan_id;
    rs_store *st;
    seed_eval *evals;
    int nevals, cap, replayed, reused;
    long long sample_k; /* mds_sample_k of every evaluation; 0: not sampled */
    long long coarse;   /* > 1: the coarse search is on, its runs sampled 1/coarse */
    int jobs;           /* runs of a batch replayed side by side, at most */
} plan_ctx;

/* The coarse search's account, for the answer. */
typedef struct coarse_sum {
    long long k;                /* 0: none */
    int runs, replayed, reused;
    rs_plan_result res;
} coarse_sum;

static double q_of(quantile q, const seed_eval *e)
{
    return q == Q_P50 ? e->p50 : q == Q_P99 ? e->p99 : e->peak;
}

static const char *q_name(quantile q)
{
    return q == Q_P50 ? "p50" : q == Q_P99 ? "p99" : "peak";
}

static void fmt_bytes(double b, char *buf, size_t cap);

/* "55.8-56.3 MiB" (one unit, the larger's) */
static void fmt_range(double lo, double hi, char *buf, size_t cap)
{
    double u = fabs(hi) >= GiB ? GiB : MiB;
    snprintf(buf, cap, u == GiB ? "%.2f-%.2f GiB" : "%.1f-%.1f MiB", lo / u, hi / u);
}

static void fmt_bytes(double b, char *buf, size_t cap)
{
    if (fabs(b) >= GiB)
        snprintf(buf, cap, "%.2f GiB", b / GiB);
    else
        snprintf(buf, cap, "%.1f MiB", b / MiB);
}

/* The config value of a limit: whole MiB when it is, else bytes. */
static void limit_value(double bytes, char *buf, size_t cap)
{
    uint64_t b = (uint64_t)llround(bytes);
    if (b % 1048576 == 0)
        snprintf(buf, cap, "%lluM", (unsigned long long)(b / 1048576));
    else
        snprintf(buf, cap, "%llu", (unsigned long long)b);
}

static double metric_of(rs_store *st, int64_t id, const char *name, rs_err *err, int *rc)
{
    double v = NAN;
    int found = 0;
    if (!*rc)
        *rc = rs_query_metric(st, id, name, &v, &found, err);
    if (!*rc && !found)
        *rc = rs_fail(err, RS_EINTERNAL, "run %lld has no metric '%s'", (long long)id, name);
    return v;
}

/* One run of an evaluation: found done in the store, or begun and to be
 * replayed (cfg kept for that). */
typedef struct seed_run {
    rs_config *cfg;
    char value[64];
    int64_t id;
    int reused;
} seed_run;

/* The run of seed k at limit: reused when the store has it done, else
 * begun (status running) for rs_cli_execute_runs. */
static int seed_begin(plan_ctx *pc, double limit, int k, seed_run *r, rs_err *err)
{
    char hash[17], label[256], seedv[32];
    int rc;

    limit_value(limit, r->value, sizeof r->value);
    snprintf(seedv, sizeof seedv, "%d", k + 1);
    if ((rc = rs_config_clone(pc->base, &r->cfg, err)) ||
        (rc = rs_config_set(r->cfg, pc->limit_key, r->value, err)) ||
        (pc->trace_seeds && (rc = rs_config_set(r->cfg, "seed", seedv, err))) ||
        (rc = rs_schema_finish(r->cfg, NULL, NULL, err)))
        return rc;
    const int ti = pc->trace_seeds ? 0 : k;
    snprintf(hash, sizeof hash, "%016llx", (unsigned long long)rs_config_hash(r->cfg));
    if ((rc = rs_query_run_find_done(pc->st, pc->shas[ti], hash, &r->id, err)))
        return rc;
    r->reused = r->id != 0;
    if (r->reused)
        return 0;
    snprintf(label, sizeof label, "plan %lld %s%s=%s%s%s", (long long)pc->plan_id,
             pc->coarse ? "coarse " : "", pc->limit_key, r->value, pc->nseeds > 1 ? " seed " : "",
             pc->nseeds > 1 ? seedv : "");
    rs_run_meta meta = {
        .kind = "predicted", .trace_path = pc->traces[ti], .trace_sha256 = pc->shas[ti],
        .preset = pc->preset, .seed = (uint64_t)rs_config_int(r->cfg, "seed"), .label = label,
        .sweep_id = 0, .point_index = -1,
    };
    return rs_store_run_begin(pc->st, &meta, r->cfg, &r->id, err);
}

/* The done run of seed k at limit into *r, linked to the plan (a coarse
 * search's too: its runs say mds_sample_k). */
static int seed_collect(plan_ctx *pc, double limit, int k, const seed_run *sr, seed_eval *r,
                        rs_err *err)
{
    int rc = 0;
    const int64_t id = sr->id;

    r->reused = sr->reused;
    r->run_id = id;
    r->seed = (uint64_t)(k + 1); /* the generator's seed, or the run's (seed key k + 1) */
    r->limit = limit;
    double lim = metric_of(pc->st, id, "limit_bytes", err, &rc);
    r->p50 = metric_of(pc->st, id, "overshoot_p50", err, &rc) * lim;
    r->p99 = metric_of(pc->st, id, "overshoot_p99", err, &rc) * lim;
    r->peak = metric_of(pc->st, id, "rss_peak_bytes", err, &rc);
    r->acc_peak = metric_of(pc->st, id, "accounted_peak_bytes", err, &rc);
    r->rss_steady = metric_of(pc->st, id, "rss_steady_bytes", err, &rc);
    r->parts[0] = metric_of(pc->st, id, "rss_accounted_bytes", err, &rc);
    r->parts[1] = metric_of(pc->st, id, "rss_untracked_bytes", err, &rc);
    r->parts[2] = metric_of(pc->st, id, "rss_rounding_bytes", err, &rc) +
                  metric_of(pc->st, id, "rss_caches_bytes", err, &rc) +
                  metric_of(pc->st, id, "rss_metadata_bytes", err, &rc) +
                  metric_of(pc->st, id, "rss_fragmentation_bytes", err, &rc);
    r->parts[3] = metric_of(pc->st, id, "rss_base_bytes", err, &rc);
    if (!rc)
        rc = rs_store_plan_eval(pc->st, pc->plan_id, id, r->seed, (int64_t)llround(limit),
                                r->reused, err);
    if (rc)
        rs_err_prefix(err, "%s=%s", pc->limit_key, sr->value);
    return rc;
}

/* The K seeds at each of the n limits, appended to pc->evals (limit by
 * limit, seed by seed); the runs not in the store replayed side by side
 * with up to pc->jobs workers. */
static int eval_limits(plan_ctx *pc, const double *limits, int n, rs_err *err)
{
    const int m = n * pc->nseeds;
    seed_run runs[2 * MAX_SEEDS] = { { 0 } };
    rs_cli_job jobs[2 * MAX_SEEDS];
    int job_run[2 * MAX_SEEDS], njobs = 0, rc = 0;

    if (n > 2)
        return rs_fail(err, RS_EINTERNAL, "plan: %d limits at once", n);
    if (pc->nevals + m > pc->cap) {
        int cap = pc->cap ? 2 * pc->cap : 64;
        while (cap < pc->nevals + m)
            cap *= 2;
        seed_eval *e = realloc(pc->evals, (size_t)cap * sizeof *e);
        if (!e)
            return rs_fail(err, RS_ENOMEM, "out of memory for the evaluations");
        pc->evals = e;
        pc->cap = cap;
    }
    for (int j = 0; j < m && !rc; j++) {
        const int k = j % pc->nseeds;
        if ((rc = seed_begin(pc, limits[j / pc->nseeds], k, &runs[j], err))) {
            limit_value(limits[j / pc->nseeds], runs[j].value, sizeof runs[j].value);
            rs_err_prefix(err, "%s=%s", pc->limit_key, runs[j].value);
            rs_err ignored = { 0 };
            for (int i = 0; i < njobs; i++) /* begun, never to run */
                rs_store_run_fail(pc->st, jobs[i].run_id, "not started: another run of its "
                                  "step could not be begun", &ignored);
            break;
        }
        if (!runs[j].reused) {
            job_run[njobs] = j;
            jobs[njobs++] = (rs_cli_job){ .run_id = runs[j].id,
                                          .trace = pc->traces[pc->trace_seeds ? 0 : k],
                                          .cfg = runs[j].cfg };
        }
    }
    if (!rc && njobs && (rc = rs_cli_execute_runs(&pc->st, pc->db, jobs, njobs, pc->jobs, err)))
        for (int i = 0; i < njobs; i++)
            if (jobs[i].rc) {
                rs_err_prefix(err, "%s=%s", pc->limit_key, runs[job_run[i]].value);
                break;
            }
    for (int j = 0; j < m && !rc; j++) {
        if ((rc = seed_collect(pc, limits[j / pc->nseeds], j % pc->nseeds, &runs[j],
                               &pc->evals[pc->nevals], err)))
            break;
        pc->nevals++;
        if (runs[j].reused)
            pc->reused++;
        else
            pc->replayed++;
    }
    for (int j = 0; j < m; j++)
        rs_config_free(runs[j].cfg);
    return rc;
}

/* min, max and worst (index) of the quantile over the K seeds from first. */
static void spread(const plan_ctx *pc, int first, quantile q, double *r_min, double *r_max,
                   int *r_worst)
{
    *r_min = INFINITY;
    *r_max = -INFINITY;
    *r_worst = first;
    for (int i = first; i < first + pc->nseeds; i++) {
        double v = q_of(q, &pc->evals[i]);
        if (v < *r_min)
            *r_min = v;
        if (v > *r_max) {
            *r_max = v;
            *r_worst = i;
        }
    }
}

typedef struct series {
    rs_node_point *pts;
    size_t n, cap;
} series;

static int series_add(void *ctx, int64_t run_id, const rs_sample *smp, rs_err *err)
{
    series *sr = ctx;
    if (sr->n == sr->cap) {
        size_t cap = sr->cap ? 2 * sr->cap : 1024;
        rs_node_point *p = realloc(sr->pts, cap * sizeof *p);
        if (!p)
            return rs_fail(err, RS_ENOMEM, "out of memory reading run %lld", (long long)run_id);
        sr->pts = p;
        sr->cap = cap;
    }
    sr->pts[sr->n++] = (rs_node_point){ .t_ns = smp->t_ns, .rss_bytes = smp->rss_bytes };
    return 0;
}

/* The peak of N daemons' RSS summed at each instant (sim/node.h), daemon i
 * replaying the run of seed i mod K: the node's peak when the daemons'
 * peaks do not coincide, where N x the worst seed's peak assumes they do. */
static int node_peak(plan_ctx *pc, int first, double *r_peak, rs_err *err)
{
    static const char *const cols[] = { "t_ns", "rss_bytes" };
    series sr[MAX_SEEDS] = { { 0 } };
    rs_node_member m[MAX_SEEDS];
    rs_node_result nr;
    uint64_t n = (uint64_t)pc->daemons, k = (uint64_t)pc->nseeds, interval = UINT64_MAX;
    int rc = 0;

    for (uint64_t i = 0; i < k && !rc; i++) {
        rs_query_scope scope = { .run_id = pc->evals[first + (int)i].run_id };
        rc = rs_query_samples(pc->st, &scope, cols, 2, series_add, &sr[i], err);
        m[i] = (rs_node_member){ .pts = sr[i].pts, .npts = sr[i].n,
                                 .count = (uint32_t)(n / k + (i < n % k)) };
        for (size_t j = 1; j < sr[i].n; j++)
            if (sr[i].pts[j].t_ns - sr[i].pts[j - 1].t_ns < interval)
                interval = sr[i].pts[j].t_ns - sr[i].pts[j - 1].t_ns;
    }
    if (!rc && (rc = rs_node_sum(m, (size_t)k, interval == UINT64_MAX ? 1 : interval,
                                 0, &nr, err)) == 0) {
        *r_peak = (double)nr.rss_peak_bytes;
        rs_node_result_release(&nr);
    }
    for (uint64_t i = 0; i < k; i++)
        free(sr[i].pts);
    return rc;
}

/* What the daemons need at limit, from its K evaluations at pc->evals[first]. */
static int need_at(plan_ctx *pc, double limit, int first, rs_plan_eval *r_ev, rs_err *err)
{
    int worst, rc, summed = 0;
    double lo, hi;
    char a[32], b[32], c[32];

    spread(pc, first, pc->q, &lo, &hi, &worst);
    r_ev->need_bytes = pc->daemons * hi;
    /* peak, several daemons on several seeds: the peak of their sum */
    if (pc->q == Q_PEAK && pc->nseeds > 1 && pc->daemons >= pc->nseeds) {
        double node;
        if ((rc = node_peak(pc, first, &node, err)))
            return rc;
        if (node > r_ev->need_bytes)
            return rs_fail(err, RS_EINTERNAL, "node peak %.0f above %g x the worst peak %.0f",
                           node, pc->daemons, hi);
        fmt_bytes(limit, a, sizeof a);
        fmt_bytes(r_ev->need_bytes, b, sizeof b);
        fmt_bytes(node, c, sizeof c);
        r_ev->need_bytes = node;
        summed = 1;
        fprintf(stderr, "plan: %s=%s: peak of %g daemons' summed RSS (seed i mod %d each) = %s, "
                "%g x the worst seed's peak = %s: %s%s\n", pc->limit_key, a, pc->daemons,
                pc->nseeds, c, pc->daemons, b, node <= pc->budget ? "fits" : "too much",
                pc->coarse ? " (coarse, sampled)" : pc->sample_k ? " (sampled)" : "");
    }
    r_ev->accounted_peak_bytes = 0;
    for (int i = first; i < first + pc->nseeds; i++)
        if (pc->evals[i].acc_peak > r_ev->accounted_peak_bytes)
            r_ev->accounted_peak_bytes = pc->evals[i].acc_peak;
    if (summed)
        return 0;
    fmt_bytes(limit, a, sizeof a);
    fmt_bytes(hi, b, sizeof b);
    fmt_bytes(r_ev->need_bytes, c, sizeof c);
    char sampled[48] = "";
    if (pc->coarse)
        snprintf(sampled, sizeof sampled, ", coarse: sampled 1/%lld", pc->coarse);
    else if (pc->sample_k)
        snprintf(sampled, sizeof sampled, ", sampled 1/%lld", pc->sample_k);
    fprintf(stderr, "plan: %s=%s: %s %s x %g = %s: %s (run %lld%s%s)\n", pc->limit_key, a,
            q_name(pc->q), b, pc->daemons, c, r_ev->need_bytes <= pc->budget ? "fits" : "too much",
            (long long)pc->evals[worst].run_id, pc->evals[worst].reused ? ", reused" : "", sampled);
    return 0;
}

/* rs_plan_fn: the n limits' evaluations as one batch (their runs side by
 * side), then what the daemons need at each. */
static int plan_fn(const double *limits, int n, void *ctx, rs_plan_eval *r_evs, rs_err *err)
{
    plan_ctx *pc = ctx;
    int first = pc->nevals, rc;

    if ((rc = eval_limits(pc, limits, n, err)))
        return rc;
    for (int i = 0; i < n; i++)
        if ((rc = need_at(pc, limits[i], first + i * pc->nseeds, &r_evs[i], err)))
            return rc;
    return 0;
}

/* The coarse search: the same search with every run sampled 1/pc->coarse
 * (an eighth of a full run's time) and half the tolerance; its
 * answer, when it found one, becomes the full search's first guess, a pair
 * of limits 0.9 x tol apart around it, so that the full runs usually need
 * only that pair (one batch).  Its runs are the plan's evaluations too
 * (plan_evals; their mds_sample_k tells them apart), but the answer is
 * always the full runs'. */
static int coarse_search(plan_ctx *pc, rs_plan_opts *po, double tol, coarse_sum *r_cs,
                         rs_err *err)
{
    const rs_config *full = pc->base;
    rs_config *cfg = NULL;
    rs_plan_opts co = *po;
    char k[32], a[32], b[32];
    int rc;

    snprintf(k, sizeof k, "%lld", pc->coarse);
    if ((rc = rs_config_clone(full, &cfg, err)) ||
        (rc = rs_config_set(cfg, "mds_sample_k", k, err)) ||
        (rc = rs_schema_finish(cfg, NULL, NULL, err))) {
        rs_config_free(cfg);
        return rc;
    }
    fprintf(stderr, "plan: coarse search, every run sampled 1/%lld\n", pc->coarse);
    pc->base = cfg;
    co.tol_rel = tol / 2;
    rc = rs_plan_search(plan_fn, pc, &co, &r_cs->res, err);
    pc->base = full;
    rs_config_free(cfg);
    r_cs->k = pc->coarse;
    r_cs->runs = pc->nevals;
    r_cs->replayed = pc->replayed;
    r_cs->reused = pc->reused;
    free(pc->evals);
    pc->evals = NULL;
    pc->nevals = pc->cap = pc->replayed = pc->reused = 0;
    pc->coarse = 0;
    if (rc)
        return rc;
    const rs_plan_result *cr = &r_cs->res;
    if (cr->outcome != RS_PLAN_FOUND || !(cr->unsafe_bytes > cr->limit_bytes)) {
        fprintf(stderr, "plan: the coarse search found no limit between a safe and an unsafe "
                "one; the full search starts from the whole range\n");
        return 0;
    }
    double c = (cr->limit_bytes + cr->unsafe_bytes) / 2, h = 0.45 * tol * c;
    if (h < po->quantum_bytes)
        h = po->quantum_bytes;
    po->lo_bytes = c - h > po->min_bytes ? c - h : po->min_bytes;
    po->hi_bytes = c + h;
    fmt_bytes(po->lo_bytes, a, sizeof a);
    fmt_bytes(po->hi_bytes, b, sizeof b);
    fprintf(stderr, "plan: the full search starts from the coarse answer: %s and %s\n", a, b);
    return 0;
}

/* ---- the workload: a trace file or gen:NAME:k=v,... ------------------ */

/* Generate (or find) the K traces of a gen: spec next to the database. */
static int gen_traces(plan_ctx *pc, const char *spec, rs_err *err)
{
    char name[64], opts[2048];
    const char *rest = spec + 4, *colon = strchr(rest, ':');
    size_t nlen = colon ? (size_t)(colon - rest) : strlen(rest);
    const void *ops;
    const rs_gen_ops *g;
    int rc = 0, has_seed = 0;

    if (!nlen || nlen >= sizeof name)
        return rs_fail(err, RS_EINPUT, "--workload '%s': expected gen:NAME[:key=value,...]", spec);
    memcpy(name, rest, nlen);
    name[nlen] = '\0';
    if (snprintf(opts, sizeof opts, "%s", colon ? colon + 1 : "") >= (int)sizeof opts)
        return rs_fail(err, RS_EINPUT, "--workload: options too long");
    if ((rc = rs_registry_get(&rs_reg_gen, name, &ops, err))) {
        rs_err_prefix(err, "--workload");
        return rc;
    }
    g = ops;
    char dir[4096];
    if ((size_t)snprintf(dir, sizeof dir, "%s", pc->db) >= sizeof dir)
        return rs_fail(err, RS_EINPUT, "--db: path longer than %zu bytes", sizeof dir - 1);
    char *slash = strrchr(dir, '/');
    if (slash)
        slash[1] = '\0';
    else
        dir[0] = '\0';
    for (int k = 0; k < pc->nseeds && !rc; k++) {
        rs_config *cfg = NULL;
        char kv[2100], seedkv[64], copy[2048];
        if ((size_t)snprintf(copy, sizeof copy, "%s", opts) >= sizeof copy) {
            rc = rs_fail(err, RS_EINPUT, "--workload: options longer than %zu bytes", sizeof copy - 1);
            break;
        }
        if ((rc = rs_config_new_with(&cfg, g->params, err)))
            break;
        for (char *tok = copy, *next; tok && *tok && !rc; tok = next) {
            next = strchr(tok, ',');
            if (next)
                *next++ = '\0';
            char *eq = strchr(tok, '=');
            if (!eq || eq == tok) {
                rc = rs_fail(err, RS_EINPUT, "--workload: expected key=value, got '%s'", tok);
                break;
            }
            *eq = '\0';
            if (!rs_config_param(cfg, tok)) {
                rc = rs_fail(err, RS_EINPUT, "--workload: generator '%s' has no option '%s' "
                             "(see 'rssim gen %s -h')", name, tok, name);
                break;
            }
            if (!strcmp(tok, "seed"))
                has_seed = 1;
            snprintf(kv, sizeof kv, "%s=%s", tok, eq + 1);
            rc = rs_config_set_kv(cfg, kv, "--workload", err);
        }
        if (!rc && has_seed && pc->nseeds > 1)
            rc = rs_fail(err, RS_EINPUT, "--workload: seed= and --seeds %d: give one or the other",
                         pc->nseeds);
        if (!rc && !has_seed && rs_config_param(cfg, "seed")) {
            snprintf(seedkv, sizeof seedkv, "seed=%d", k + 1);
            rc = rs_config_set_kv(cfg, seedkv, "--seeds", err);
        }
        if (!rc)
            rc = rs_config_validate(cfg, err);
        if (!rc) {
            char *path = pc->traces[k];
            if ((size_t)snprintf(path, sizeof pc->traces[k], "%straces/%s-%016llx.bin", dir, name,
                                 (unsigned long long)rs_config_hash(cfg)) >= sizeof pc->traces[k])
                rc = rs_fail(err, RS_EINPUT, "--db: the generated trace's path (%straces/...) would be "
                             "longer than %zu bytes", dir, sizeof pc->traces[k] - 1);
            else if (access(path, R_OK) != 0) {
                char tmp[4200], summary[512];
                snprintf(tmp, sizeof tmp, "%s.tmp%ld", path, (long)getpid());
                if (!(rc = rs_cli_mkdir_parent(tmp, err)) &&
                    !(rc = rs_gen_to_file(g, cfg, rs_cli_data_dir(RS_CLI_TRACES), tmp, "binary", 0, summary,
                                                sizeof summary, err))) {
                    if (rename(tmp, path) != 0)
                        rc = rs_fail(err, RS_EIO, "cannot rename '%s' to '%s'", tmp, path);
                    else
                        fprintf(stderr, "plan: generated %s%s%s%s\n", path,
                                summary[0] ? " (" : "", summary, summary[0] ? ")" : "");
                }
                if (rc)
                    unlink(tmp);
            } else {
                fprintf(stderr, "plan: reusing %s\n", path);
            }
        }
        if (!rc)
            rc = rs_store_trace_sha256(pc->st, pc->traces[k], pc->shas[k], err);
        rs_config_free(cfg);
    }
    return rc;
}

/* ---- input ------------------------------------------------------------ */

static int parse_quantile(const char *s, quantile *r_q)
{
    if (!strcmp(s, "p50") || !strcmp(s, "0.5") || !strcmp(s, "0.50"))
        *r_q = Q_P50;
    else if (!strcmp(s, "p99") || !strcmp(s, "0.99"))
        *r_q = Q_P99;
    else if (!strcmp(s, "peak") || !strcmp(s, "max") || !strcmp(s, "1"))
        *r_q = Q_PEAK;
    else
        return -1;
    return 0;
}

/* ---- output ----------------------------------------------------------- */

typedef struct report {
    const char *outcome; /* found, infeasible, workload-bound, at-max, fits, does-not-fit */
    double limit;        /* the answer (or the limit asked about) */
    int first;           /* its evaluations in pc->evals */
    double rule_factor;  /* RSS / limit by the rule of thumb; 0: none */
    const char *rule;    /* its text */
    double rule_hi;      /* osd: the top of the reported range (1.15) */
    int converged;       /* a search's answer within the tolerance: 1, 0; -1: no search answer */
    char verdict[512];
    char caveat[512];
} report;

/* The daemon's published rule of thumb and the model's known gap, if any. */
static void rule_for(const rs_daemon_ops *daemon, report *rp)
{
    if (!daemon->rule)
        return;
    rp->rule_factor = daemon->rule->factor;
    rp->rule_hi = daemon->rule->factor_hi;
    rp->rule = daemon->rule->text;
    if (daemon->rule->caveat)
        snprintf(rp->caveat, sizeof rp->caveat, "caveat: %s", daemon->rule->caveat);
}

static const char *outcome_name(rs_plan_outcome o)
{
    return o == RS_PLAN_FOUND ? "found" : o == RS_PLAN_INFEASIBLE ? "infeasible"
         : o == RS_PLAN_WORKLOAD_BOUND ? "workload-bound" : "at-max";
}

/* What replay prints with a sampled result, for every answer of a sampled plan. */
static void print_sampled(const plan_ctx *pc)
{
    if (pc->sample_k)
        printf("sampled 1/%lld of directories at every evaluation; %s; every number above is "
               "scaled to the whole namespace\n", pc->sample_k, RS_SAMPLE_ERROR_NOTE);
}

static void print_text(const plan_ctx *pc, const coarse_sum *cs, const report *rp, double ram,
                       double headroom, const char *daemon)
{
    char a[32], b[32], c[32], d[32], f[32];
    double lo, hi;
    int worst;
    const seed_eval *w;

    fmt_bytes(ram, a, sizeof a);
    fmt_bytes(pc->budget, b, sizeof b);
    fmt_bytes(pc->budget / pc->daemons, c, sizeof c);
    printf("node: %s RAM, %.0f %s daemon%s, headroom %.0f%%: budget %s, %s %s RSS per daemon\n",
           a, pc->daemons, daemon, pc->daemons > 1 ? "s" : "", headroom * 100, b, c, q_name(pc->q));
    if (rp->first < 0) {
        printf("%s\n", rp->verdict);
        if (rp->caveat[0])
            printf("%s\n", rp->caveat);
        print_sampled(pc);
        return;
    }
    fmt_bytes(rp->limit, a, sizeof a);
    if (!strcmp(rp->outcome, "workload-bound"))
        printf("bounded by the workload: %s=%s and any larger value is safe\n", pc->limit_key, a);
    else
        printf("%s %s=%s\n", !strcmp(rp->outcome, "fits") || !strcmp(rp->outcome, "does-not-fit")
                                 ? "asked about" : "largest safe",
               pc->limit_key, a);
    char r50[48], r99[48], rpk[48];
    spread(pc, rp->first, Q_P50, &lo, &hi, &worst);
    fmt_range(lo, hi, r50, sizeof r50);
    fmt_bytes(hi, b, sizeof b);
    spread(pc, rp->first, Q_P99, &lo, &hi, &worst);
    fmt_range(lo, hi, r99, sizeof r99);
    fmt_bytes(hi, d, sizeof d);
    spread(pc, rp->first, Q_PEAK, &lo, &hi, &worst);
    fmt_range(lo, hi, rpk, sizeof rpk);
    fmt_bytes(hi, f, sizeof f);
    if (pc->nseeds > 1)
        printf("predicted RSS per daemon (min-max over %d seeds): p50 %s  p99 %s  peak %s\n",
               pc->nseeds, r50, r99, rpk);
    else
        printf("predicted RSS per daemon: p50 %s  p99 %s  peak %s\n", b, d, f);
    spread(pc, rp->first, pc->q, &lo, &hi, &worst);
    w = &pc->evals[worst];
    fmt_bytes(w->rss_steady, a, sizeof a);
    printf("steady RSS %s (run %lld, seed %llu) = ", a, (long long)w->run_id,
           (unsigned long long)w->seed);
    static const char *const part_names[4] = { "accounted", "untracked", "allocator overhead",
                                               "base" };
    for (int i = 0; i < 4; i++) {
        fmt_bytes(w->parts[i], a, sizeof a);
        printf("%s%s %s", i ? " + " : "", a, part_names[i]);
    }
    printf("\n");
    printf("%s RSS / limit at it: %.2f\n", q_name(pc->q), hi / rp->limit);
    if (rp->rule_factor > 0) {
        double rl = pc->budget / pc->daemons / rp->rule_factor;
        fmt_bytes(rl, a, sizeof a);
        printf("rule of thumb: %s\n  gives %s=%s", rp->rule, pc->limit_key, a);
        if (rp->rule_hi > 0) {
            fmt_bytes(pc->budget / pc->daemons / rp->rule_hi, b, sizeof b);
            printf(" (%s with 15%% over)", b);
        }
        if (!strcmp(rp->outcome, "found") || !strcmp(rp->outcome, "at-max"))
            printf("; rssim's answer is %+.0f%% from it\n", 100 * (rp->limit / rl - 1));
        else
            printf("\n");
    } else {
        printf("rule of thumb: none published for the %s daemon's %s\n", daemon, pc->limit_key);
    }
    printf("%s\n", rp->verdict);
    if (rp->caveat[0])
        printf("%s\n", rp->caveat);
    print_sampled(pc);
    printf("evaluations: %d runs (%d replayed, %d reused)", pc->nevals, pc->replayed, pc->reused);
    if (cs->k)
        printf(", after a coarse search of %d runs sampled 1/%lld (%d replayed, %d reused)",
               cs->runs, cs->k, cs->replayed, cs->reused);
    printf("; plan %lld in %s\n", (long long)pc->plan_id, pc->db);
}

static json_t *bytes_spread(const plan_ctx *pc, int first, quantile q)
{
    double lo, hi;
    int worst;
    spread(pc, first, q, &lo, &hi, &worst);
    return json_pack("{s:f,s:f}", "min_bytes", lo, "max_bytes", hi);
}

static int print_json(const plan_ctx *pc, const coarse_sum *cs, const report *rp, double ram,
                      double headroom, const char *daemon, const char *preset,
                      const char *workload)
{
    json_t *o = json_pack("{s:I,s:s,s:s,s:s,s:s,s:f,s:f,s:f,s:s,s:i,s:s,s:s}", "plan_id",
                          (json_int_t)pc->plan_id, "preset", preset, "workload", workload,
                          "daemon", daemon, "limit_key", pc->limit_key, "ram_bytes", ram,
                          "daemons", pc->daemons, "headroom", headroom, "quantile",
                          q_name(pc->q), "seeds", pc->nseeds, "outcome", rp->outcome, "verdict",
                          rp->verdict);
    if (!o)
        return -1;
    json_object_set_new(o, "budget_bytes", json_real(pc->budget));
    json_object_set_new(o, "converged", rp->converged < 0 ? json_null()
                                                          : json_boolean(rp->converged));
    if (rp->first >= 0) {
        double lo, hi;
        int worst;
        json_object_set_new(o, "limit_bytes", json_real(rp->limit));
        json_t *rss = json_pack("{s:o,s:o,s:o}", "p50", bytes_spread(pc, rp->first, Q_P50), "p99",
                                bytes_spread(pc, rp->first, Q_P99), "peak",
                                bytes_spread(pc, rp->first, Q_PEAK));
        json_object_set_new(o, "rss_per_daemon", rss);
        spread(pc, rp->first, pc->q, &lo, &hi, &worst);
        const seed_eval *w = &pc->evals[worst];
        json_object_set_new(o, "parts", json_pack("{s:I,s:I,s:f,s:f,s:f,s:f,s:f}", "run_id",
                                                  (json_int_t)w->run_id, "seed",
                                                  (json_int_t)w->seed, "rss_steady_bytes",
                                                  w->rss_steady, "accounted_bytes", w->parts[0],
                                                  "untracked_bytes", w->parts[1],
                                                  "allocator_overhead_bytes", w->parts[2],
                                                  "base_bytes", w->parts[3]));
        json_object_set_new(o, "rss_over_limit", json_real(hi / rp->limit));
    } else {
        json_object_set_new(o, "limit_bytes", json_null());
    }
    if (rp->rule_factor > 0)
        json_object_set_new(o, "rule_of_thumb",
                            json_pack("{s:s,s:f,s:f}", "text", rp->rule, "rss_over_limit",
                                      rp->rule_factor, "limit_bytes",
                                      pc->budget / pc->daemons / rp->rule_factor));
    else
        json_object_set_new(o, "rule_of_thumb", json_null());
    json_object_set_new(o, "caveat", rp->caveat[0] ? json_string(rp->caveat) : json_null());
    json_object_set_new(o, "mds_sample_k", pc->sample_k ? json_integer(pc->sample_k) : json_null());
    json_object_set_new(o, "sampling_error",
                        pc->sample_k ? json_string(RS_SAMPLE_ERROR_NOTE) : json_null());
    json_t *evs = json_array();
    for (int i = 0; i < pc->nevals; i++) {
        const seed_eval *e = &pc->evals[i];
        json_array_append_new(evs, json_pack("{s:f,s:I,s:I,s:b,s:f,s:f,s:f}", "limit_bytes",
                                             e->limit, "seed", (json_int_t)e->seed, "run_id",
                                             (json_int_t)e->run_id, "reused", e->reused,
                                             "rss_p50_bytes", e->p50, "rss_p99_bytes", e->p99,
                                             "rss_peak_bytes", e->peak));
    }
    json_object_set_new(o, "evaluations", evs);
    json_object_set_new(o, "replayed", json_integer(pc->replayed));
    json_object_set_new(o, "reused", json_integer(pc->reused));
    json_object_set_new(o, "coarse",
                        !cs->k ? json_null()
                               : json_pack("{s:I,s:s,s:f,s:f,s:i,s:i,s:i}", "mds_sample_k",
                                           (json_int_t)cs->k, "outcome",
                                           outcome_name(cs->res.outcome),
                                           "limit_bytes", cs->res.limit_bytes, "unsafe_bytes",
                                           cs->res.unsafe_bytes, "runs", cs->runs, "replayed",
                                           cs->replayed, "reused", cs->reused));
    int rc = json_dumpf(o, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
    fputc('\n', stdout);
    json_decref(o);
    return rc;
}

/* ---- the command -------------------------------------------------------- */

int cmd_plan(int argc, char **argv)
{
    static const struct option opts[] = {
        { "preset", required_argument, NULL, 'p' },   { "workload", required_argument, NULL, 'w' },
        { "ram", required_argument, NULL, 'r' },      { "daemons", required_argument, NULL, 'n' },
        { "headroom", required_argument, NULL, 'H' }, { "quantile", required_argument, NULL, 'q' },
        { "seeds", required_argument, NULL, 'k' },    { "limit", required_argument, NULL, 'l' },
        { "cgroup-limit", required_argument, NULL, 'C' },
        { "cgroup-ratio", required_argument, NULL, 'R' },
        { "tol", required_argument, NULL, 't' },      { "set", required_argument, NULL, 's' },
        { "db", required_argument, NULL, 'd' },       { "json", no_argument, NULL, 'J' },
        { "jobs", required_argument, NULL, 'j' },     { "coarse", required_argument, NULL, 'K' },
        { "max-evals", required_argument, NULL, 'E' },
        { "help", no_argument, NULL, 'h' },           { NULL, 0, NULL, 0 },
    };
    const char *preset = NULL, *workload = NULL, *ram_s = NULL, *limit_s = NULL, *cg_s = NULL;
    char *sets[MAX_SETS];
    int nsets = 0, c, json = 0, status = 0, rc = 0;
    double headroom = 0.10, tol = 0.01, cg_ratio = 0.8;
    int64_t daemons = 1, seeds = 1, jobs = 0, coarse = -1, max_evals = 0; /* 0, -1: not given */
    quantile q = Q_P99;
    coarse_sum cs = { 0 };
    static plan_ctx pc; /* large (the K trace paths): not on the stack */

    memset(&pc, 0, sizeof pc);
    optind = 1;
    while ((c = getopt_long(argc, argv, "p:w:r:n:q:k:l:s:j:h", opts, NULL)) != -1) {
        switch (c) {
        case 'p': preset = optarg; break;
        case 'w': workload = optarg; break;
        case 'r': ram_s = optarg; break;
        case 'n':
            if (rs_parse_int(optarg, &daemons) || daemons < 1 || daemons > 100000)
                return rs_cli_usage_error("plan", "--daemons: expected 1..100000, got '%s'", optarg);
            break;
        case 'H':
            if (rs_cli_parse_fraction(optarg, &headroom) || headroom < 0 || headroom >= 1)
                return rs_cli_usage_error("plan", "--headroom: expected 0%% .. below 100%%, got '%s'",
                                          optarg);
            break;
        case 'q':
            if (parse_quantile(optarg, &q))
                return rs_cli_usage_error("plan", "--quantile: expected p50, 0.99 or peak, got '%s'",
                                          optarg);
            break;
        case 'k':
            if (rs_parse_int(optarg, &seeds) || seeds < 1 || seeds > MAX_SEEDS)
                return rs_cli_usage_error("plan", "--seeds: expected 1..%d, got '%s'", MAX_SEEDS,
                                          optarg);
            break;
        case 'l': limit_s = optarg; break;
        case 'C': cg_s = optarg; break;
        case 'R':
            if (rs_cli_parse_fraction(optarg, &cg_ratio) || !(cg_ratio > 0) || cg_ratio > 1)
                return rs_cli_usage_error("plan", "--cgroup-ratio: expected 0 < R <= 1, got '%s'",
                                          optarg);
            break;
        case 't':
            if (rs_cli_parse_fraction(optarg, &tol) || !(tol > 0) || tol >= 1)
                return rs_cli_usage_error("plan", "--tol: expected 0%% < PCT < 100%%, got '%s'",
                                          optarg);
            break;
        case 's':
            if (nsets == MAX_SETS)
                return rs_cli_usage_error("plan", "more than %d --set options", MAX_SETS);
            sets[nsets++] = optarg;
            break;
        case 'd': pc.db = optarg; break;
        case 'J': json = 1; break;
        case 'j':
            if (rs_parse_int(optarg, &jobs) || jobs < 1 || jobs > 64)
                return rs_cli_usage_error("plan", "--jobs: expected 1..64, got '%s'", optarg);
            break;
        case 'K':
            if (rs_parse_int(optarg, &coarse) || coarse < 1 || coarse > 64)
                return rs_cli_usage_error("plan", "--coarse: expected 1 (off) .. 64, got '%s'",
                                          optarg);
            break;
        case 'E':
            if (rs_parse_int(optarg, &max_evals) || max_evals < 4 || max_evals > 1000)
                return rs_cli_usage_error("plan", "--max-evals: expected 4..1000, got '%s'", optarg);
            break;
        case 'h': usage(stdout); return 0;
        default: usage(stderr); return 2;
        }
    }
    if (optind != argc)
        return rs_cli_usage_error("plan", "unexpected argument '%s'", argv[optind]);
    if (!preset || !workload || !ram_s)
        return rs_cli_usage_error("plan", "--preset, --workload and --ram are required");
    uint64_t ram = 0, limit_asked = 0, cg = 0;
    if (rs_parse_size(ram_s, &ram) || ram == 0)
        return rs_cli_usage_error("plan", "--ram: expected a size such as 64G, got '%s'", ram_s);
    if (limit_s && (rs_parse_size(limit_s, &limit_asked) || limit_asked == 0))
        return rs_cli_usage_error("plan", "--limit: expected a size such as 4G, got '%s'", limit_s);
    if (cg_s && (rs_parse_size(cg_s, &cg) || cg == 0))
        return rs_cli_usage_error("plan", "--cgroup-limit: expected a size such as 8G, got '%s'",
                                  cg_s);
    /* a node's memory, and a limit searched up to 4x its share, well inside
     * int64_t (the store) and exact in a double */
    const struct { const char *name, *text; uint64_t bytes; } sizes[] = {
        { "ram", ram_s, ram }, { "limit", limit_s, limit_asked }, { "cgroup-limit", cg_s, cg },
    };
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
        if (sizes[i].bytes > 1ull << 50)
            return rs_cli_usage_error("plan", "--%s %s: at most 1024T (2^50 bytes)",
                                      sizes[i].name, sizes[i].text);
    if (limit_s && cg_s)
        return rs_cli_usage_error("plan", "--limit and --cgroup-limit: give one (the cgroup limit "
                                  "sets the limit)");
    if ((limit_s || cg_s) && coarse >= 0)
        return rs_cli_usage_error("plan", "--coarse: only for a search; %s predicts at one limit",
                                  limit_s ? "--limit" : "--cgroup-limit");
    if ((limit_s || cg_s) && max_evals)
        return rs_cli_usage_error("plan", "--max-evals: only for a search; %s predicts at one limit",
                                  limit_s ? "--limit" : "--cgroup-limit");
    if ((limit_s || cg_s) && jobs > 1 && seeds == 1)
        return rs_cli_usage_error("plan", "--jobs %lld: %s with one seed is one run; nothing runs "
                                  "side by side", (long long)jobs, limit_s ? "--limit" : "--cgroup-limit");
    if (!jobs) { /* the batch: 2 limits x K seeds, at most one per core */
        long cpus = sysconf(_SC_NPROCESSORS_ONLN);
        jobs = cpus < 1 ? 1 : cpus < 2 * seeds ? cpus : 2 * seeds;
    }
    pc.jobs = (int)jobs;
    if (!pc.db)
        pc.db = rs_cli_default_db();

    rs_err err = { 0 };
    rs_config *base = NULL;
    const void *dops;
    const rs_daemon_ops *daemon;
    int daemons_key = 0;
    report rp = { .first = -1, .converged = -1 };

    if ((rc = rs_cli_build_config(preset, sets, nsets, &base, &err)))
        goto fail;
    if ((rc = rs_registry_get(&rs_reg_daemon, rs_config_string(base, "daemon"), &dops, &err)))
        goto fail;
    daemon = dops;
    /* the key the run enforces: the daemon's, or its trim policy's cache size */
    if ((rc = rs_plan_limit_key(base, &pc.limit_key, &daemons_key, &err))) {
        rs_err_prefix(&err, "--preset '%s'", preset);
        goto fail;
    }
    if (cg_s && (!daemon->limit_from_cgroup || !daemons_key)) {
        if (daemon->limit_from_cgroup) {
            rc = rs_fail(&err, RS_EINPUT, "--cgroup-limit: preset '%s' sizes its cache by %s, not "
                         "%s, so a pod limit does not set it", preset, pc.limit_key,
                         daemon->limit_key);
            goto fail;
        }
        rc = rs_fail(&err, RS_EINPUT, "--cgroup-limit: only for osd (osd_memory_target_cgroup_"
                     "limit_ratio); preset '%s' is daemon '%s'", preset, daemon->name);
        goto fail;
    }
    double per_daemon = (double)ram / (double)daemons;
    if (per_daemon < 2 * MiB) {
        rc = rs_fail(&err, RS_EINPUT, "--ram %s / --daemons %lld: %.2f MiB per daemon leaves no "
                     "range of limits to search", ram_s, (long long)daemons, per_daemon / MiB);
        goto fail;
    }
    pc.preset = preset;
    pc.base = base;
    if (rs_run_sample_k(base) > 1)
        pc.sample_k = rs_run_sample_k(base);
    /* the coarse search: --coarse K only where runs can be sampled (mds), in
     * a search, and when the user samples nothing themselves; by default on
     * there for traces of COARSE_MIN_BYTES or more (decided below) */
    {
        rs_components comp;
        if ((rc = rs_schema_resolve(base, &comp, &err)))
            goto fail;
        const int can = rs_schema_reads(&comp, "mds_sample_k");
        if (coarse > 1 && !can) {
            rc = rs_fail(&err, RS_EINPUT, "--coarse %lld: preset '%s' (daemon %s) cannot sample "
                         "its runs (mds_sample_k is an mds key)", (long long)coarse, preset,
                         daemon->name);
            goto fail;
        }
        if (coarse > 1 && pc.sample_k) {
            rc = rs_fail(&err, RS_EINPUT, "--coarse %lld: every run is sampled already "
                         "(mds_sample_k=%lld): give one or the other", (long long)coarse,
                         pc.sample_k);
            goto fail;
        }
        if (coarse < 0 && (!can || pc.sample_k || limit_s || cg_s))
            coarse = 1; /* no default to decide: nothing can or may be sampled */
    }
    pc.nseeds = (int)seeds;
    pc.daemons = (double)daemons;
    pc.budget = (double)ram * (1 - headroom);
    pc.q = q;
    pc.cgroup_bytes = (double)cg;
    /* open first: a trace's identity is remembered in the store */
    if ((rc = rs_cli_mkdir_parent(pc.db, &err)) || (rc = rs_store_open(&pc.st, pc.db, &err)))
        goto fail;
    if (!strncmp(workload, "gen:", 4)) {
        if ((rc = gen_traces(&pc, workload, &err)))
            goto fail;
    } else {
        pc.trace_seeds = 1;
        if ((size_t)snprintf(pc.traces[0], sizeof pc.traces[0], "%s", workload) >= sizeof pc.traces[0]) {
            rc = rs_fail(&err, RS_EINPUT, "--workload: path longer than %zu bytes", sizeof pc.traces[0] - 1);
            goto fail;
        }
        if ((rc = rs_cli_check_input(workload, &err)) ||
            (rc = rs_store_trace_sha256(pc.st, workload, pc.shas[0], &err))) {
            rs_err_prefix(&err, "--workload");
            goto fail;
        }
    }
    if (coarse < 0) { /* the default, now that the traces are known: their size */
        double smallest = INFINITY;
        for (int k = 0; k < (pc.trace_seeds ? 1 : pc.nseeds); k++) {
            struct stat sb;
            double sz = stat(pc.traces[k], &sb) == 0 ? (double)sb.st_size : 0;
            smallest = sz < smallest ? sz : smallest;
        }
        coarse = smallest >= COARSE_MIN_BYTES ? COARSE_K : 1;
    }
    pc.coarse = coarse > 1 ? coarse : 0;
    if (daemons_key)
        rule_for(daemon, &rp); /* the daemon's rule is about its own key */
    else
        snprintf(rp.caveat, sizeof rp.caveat, "caveat: %s is the trim policy's fixed cache size "
                 "(daemon %s's %s is not read by this preset): RSS outside the cache is not "
                 "bounded by it", pc.limit_key, daemon->name, daemon->limit_key);
    rs_plan_meta pm = {
        .preset = preset, .workload = workload, .limit_key = pc.limit_key, .quantile = q_name(q),
        .ram_bytes = (int64_t)ram, .daemons = daemons, .seeds = seeds, .headroom = headroom,
        .tol_rel = tol, .rule_factor = rp.rule_factor,
    };
    if ((rc = rs_store_plan_begin(pc.st, &pm, &pc.plan_id, &err)))
        goto fail;

    char a[32], b[32], c2[32];
    if (limit_s || cg_s) {
        /* predict at one limit */
        double L = limit_s ? (double)limit_asked : floor(cg_ratio * (double)cg);
        rs_plan_eval ev;
        if ((rc = plan_fn(&L, 1, &pc, &ev, &err)))
            goto fail;
        rp.first = pc.nevals - pc.nseeds;
        rp.limit = L;
        double lo, hi, plo, phi;
        int worst, pw;
        spread(&pc, rp.first, q, &lo, &hi, &worst);
        spread(&pc, rp.first, Q_PEAK, &plo, &phi, &pw);
        int fits = ev.need_bytes <= pc.budget && (!cg || phi <= (double)cg);
        rp.outcome = fits ? "fits" : "does-not-fit";
        fmt_bytes(L, a, sizeof a);
        fmt_bytes(ev.need_bytes, b, sizeof b);
        fmt_bytes((double)ram, c2, sizeof c2);
        int n = snprintf(rp.verdict, sizeof rp.verdict, "%s: %lld %s at %s=%s need %s (%s) of %s "
                         "with %.0f%% headroom", fits ? "fits" : "does NOT fit", (long long)daemons,
                         daemon->name, pc.limit_key, a, b, q_name(q), c2, headroom * 100);
        if (cg && n > 0 && (size_t)n < sizeof rp.verdict) {
            fmt_bytes((double)cg, a, sizeof a);
            fmt_bytes(phi, b, sizeof b);
            snprintf(rp.verdict + n, sizeof rp.verdict - (size_t)n,
                     "; target = %.2f x cgroup limit %s; peak %s %s it%s", cg_ratio, a, b,
                     phi <= (double)cg ? "stays under" : "EXCEEDS",
                     phi <= (double)cg ? "" : " (the pod would be OOM-killed)");
        }
        status = fits ? 0 : 3;
    } else {
        rs_plan_opts po = {
            .budget_bytes = pc.budget, .lo_bytes = per_daemon / 8, .hi_bytes = per_daemon,
            .min_bytes = MiB, .max_bytes = 4 * per_daemon, .tol_rel = tol, .tol_min_bytes = MiB,
            .quantum_bytes = MiB, .fill_ratio = 0.5, .max_evals = max_evals ? (int)max_evals : 40,
        };
        if (po.lo_bytes < po.min_bytes)
            po.lo_bytes = po.min_bytes;
        if (pc.coarse && (rc = coarse_search(&pc, &po, tol, &cs, &err)))
            goto fail;
        rs_plan_result pr;
        if ((rc = rs_plan_search(plan_fn, &pc, &po, &pr, &err)))
            goto fail;
        fmt_bytes((double)ram, c2, sizeof c2);
        if (pr.outcome == RS_PLAN_INFEASIBLE) {
            double smallest = INFINITY;
            for (int i = 0; i < pc.nevals; i++)
                if (q_of(q, &pc.evals[i]) < smallest)
                    smallest = q_of(q, &pc.evals[i]);
            fmt_bytes(MiB, a, sizeof a);
            fmt_bytes(smallest, b, sizeof b);
            rp.outcome = outcome_name(pr.outcome);
            snprintf(rp.verdict, sizeof rp.verdict,
                     "--ram %s: too small: even %s=%s needs more than the budget; the smallest "
                     "%s RSS found is %s per daemon, x %lld = %.1f MiB", ram_s, pc.limit_key, a,
                     q_name(q), b, (long long)daemons, smallest * (double)daemons / MiB);
            status = 2;
        } else {
            /* the evaluations at the answer */
            for (int i = 0; i < pc.nevals; i++)
                if (pc.evals[i].limit == pr.limit_bytes) {
                    rp.first = i;
                    break;
                }
            rp.limit = pr.limit_bytes;
            double lo, hi;
            int worst;
            spread(&pc, rp.first, q, &lo, &hi, &worst);
            fmt_bytes(rp.limit, a, sizeof a);
            fmt_bytes(pr.need_bytes, b, sizeof b); /* daemons x hi, or their node's peak */
            if (pr.outcome == RS_PLAN_WORKLOAD_BOUND) {
                rp.outcome = outcome_name(pr.outcome);
                fmt_bytes(pc.evals[worst].acc_peak, c2, sizeof c2);
                snprintf(rp.verdict, sizeof rp.verdict,
                         "--workload: the answer is bounded by the workload, not the limit: at "
                         "%s=%s the cache never fills (accounted peak %s); %lld %s need %s (%s) "
                         "whatever the limit above that", pc.limit_key, a, c2, (long long)daemons,
                         daemon->name, b, q_name(q));
                status = 2;
            } else {
                rp.outcome = outcome_name(pr.outcome);
                char t[32], u[32], r2[32];
                fmt_bytes(pr.tol_bytes, t, sizeof t);
                fmt_bytes(pr.unsafe_bytes, u, sizeof u);
                if (strcmp(a, u) == 0) { /* a step inside the last digit: say it in MiB */
                    snprintf(a, sizeof a, "%.0f MiB", pr.limit_bytes / MiB);
                    snprintf(u, sizeof u, "%.0f MiB", pr.unsafe_bytes / MiB);
                }
                fmt_bytes((double)ram, r2, sizeof r2);
                snprintf(rp.verdict, sizeof rp.verdict,
                         "safe: %lld %s at %s=%s, %s %s of %s (%.0f%% headroom)%s%s%s%s",
                         (long long)daemons, daemon->name, pc.limit_key, a, q_name(q), b, r2,
                         headroom * 100,
                         pr.outcome == RS_PLAN_AT_MAX ? "; the top of the searched range" : "; ",
                         pr.outcome == RS_PLAN_AT_MAX ? "" : u,
                         pr.outcome == RS_PLAN_AT_MAX ? "" : " is not (tolerance ",
                         pr.outcome == RS_PLAN_AT_MAX ? "" : t);
                size_t n = strlen(rp.verdict);
                if (pr.outcome != RS_PLAN_AT_MAX && n + 2 < sizeof rp.verdict)
                    snprintf(rp.verdict + n, sizeof rp.verdict - n, ")");
                if (pr.outcome == RS_PLAN_FOUND)
                    rp.converged = pr.converged;
                if (rp.converged == 0) {
                    n = strlen(rp.verdict);
                    snprintf(rp.verdict + n, sizeof rp.verdict - n,
                             "; NOT within the tolerance: the search ended after %d "
                             "evaluations (--max-evals %d) with the two %.0f MiB apart (the "
                             "answer is safe; a larger --tol ends sooner, a larger --max-evals "
                             "goes on)", pr.evaluations, po.max_evals,
                             (pr.unsafe_bytes - pr.limit_bytes) / MiB);
                }
            }
        }
    }
    if ((rc = rs_store_plan_finish(pc.st, pc.plan_id, "done", rp.outcome,
                                   (int64_t)llround(rp.limit), rp.verdict, &err)))
        goto fail;
    if (json) {
        if (print_json(&pc, &cs, &rp, (double)ram, headroom, daemon->name, preset, workload)) {
            rc = rs_fail(&err, RS_EIO, "cannot write JSON");
            goto fail;
        }
    } else {
        print_text(&pc, &cs, &rp, (double)ram, headroom, daemon->name);
    }
    if (status == 2)
        fprintf(stderr, "rssim plan: %s\n", rp.verdict);
    goto out;
fail:
    if (pc.st && pc.plan_id) {
        rs_err ignored = { 0 };
        rs_store_plan_finish(pc.st, pc.plan_id, "failed", NULL, 0, err.msg, &ignored);
    }
    status = rs_cli_report(&err);
out:
    free(pc.evals);
    rs_store_close(pc.st);
    rs_config_free(base);
    return status;
}
