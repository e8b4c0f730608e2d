/* sampler.c — samples and metrics; see sampler.h. */
#include "sampler.h"

#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include <stdlib.h>

/* A sampled run's sample, scaled to the whole namespace (docs/models.md,
 * "Sampled MDS runs"): what grows with the cache times k; what a process
 * has whatever its cache — base_bytes, the allocator's memory before its
 * first allocation (fixed), its thread and transfer caches (bounded per
 * thread and per size class, not per byte of heap) — as it is; the trim
 * passes (one per interval) as they are. */
static void scale_sample(rs_sample *r, const rs_sample *fixed, uint64_t k)
{
#define SCALE(f) r->f = r->f > fixed->f ? (r->f - fixed->f) * k + fixed->f : r->f
    uint64_t keep = r->thread_cached_bytes + r->transfer_cached_bytes;
    SCALE(accounted_bytes);
    SCALE(untracked_bytes);
    SCALE(requested_bytes);
    SCALE(allocated_bytes);
    SCALE(active_bytes);
    SCALE(metadata_bytes);
    SCALE(dirty_bytes);
    SCALE(limit_bytes);
    SCALE(items_count);
    SCALE(trimmed_items_count);
    SCALE(central_cached_bytes);
    SCALE(pageheap_free_bytes);
    SCALE(unmapped_bytes);
    r->resident_bytes -= keep;
    r->mapped_bytes -= keep;
    r->heap_bytes -= r->heap_bytes >= keep ? keep : r->heap_bytes;
    r->cached_bytes -= keep;
    SCALE(resident_bytes);
    SCALE(mapped_bytes);
    SCALE(heap_bytes);
    SCALE(cached_bytes);
    r->resident_bytes += keep;
    r->mapped_bytes += keep;
    r->heap_bytes += r->heap_bytes ? keep : 0;
    r->cached_bytes += keep;
#undef SCALE
    r->rss_bytes = r->resident_bytes + r->base_bytes;
}

int rs_sampler_read(const rs_sampler *s, uint64_t now_ns, rs_sample *r, rs_err *err)
{
    rs_daemon_stats d;
    rs_alloc_stats a;

    s->daemon->stats(s->daemon_state, &d);
    s->alloc->ops->stats(s->alloc->state, &a);
    /* the allocator's ordering, in every build (a few compares a sample): a
     * wrapped counter fails the run instead of being stored done */
    if (__builtin_expect(!rs_alloc_stats_ordered(&a), 0))
        return rs_fail(err, RS_EINTERNAL, "allocator model '%s' broke its stats' ordering at t_ns "
                       "%llu: requested %llu allocated %llu active %llu resident %llu mapped %llu",
                       s->alloc->ops->name, (unsigned long long)now_ns,
                       (unsigned long long)a.requested_bytes, (unsigned long long)a.allocated_bytes,
                       (unsigned long long)a.active_bytes, (unsigned long long)a.resident_bytes,
                       (unsigned long long)a.mapped_bytes);
    *r = (rs_sample){
        .t_ns = now_ns,
        .accounted_bytes = d.accounted_bytes,
        .untracked_bytes = d.untracked_bytes,
        .requested_bytes = a.requested_bytes,
        .allocated_bytes = a.allocated_bytes,
        .active_bytes = a.active_bytes,
        .resident_bytes = a.resident_bytes,
        .mapped_bytes = a.mapped_bytes,
        .metadata_bytes = a.metadata_bytes,
        .cached_bytes = a.cached_bytes,
        .dirty_bytes = a.dirty_bytes,
        .base_bytes = d.base_bytes,
        .rss_bytes = a.resident_bytes + d.base_bytes,
        .limit_bytes = d.limit_bytes,
        .items_count = d.items_count,
        .trims_count = d.trim.trims_count,
        .trimmed_items_count = d.trim.trimmed_items_count,
        .thread_cached_bytes = a.thread_cached_bytes,
        .heap_bytes = a.heap_bytes,
        .unmapped_bytes = a.unmapped_bytes,
        .central_cached_bytes = a.central_cached_bytes,
        .transfer_cached_bytes = a.transfer_cached_bytes,
        .pageheap_free_bytes = a.pageheap_free_bytes,
    };
    if (s->scale > 1)
        scale_sample(r, &s->fixed, s->scale);
    r->x = r->rss_bytes ? 1.0 - (double)r->accounted_bytes / (double)r->rss_bytes : 0.0;
    r->overshoot = r->limit_bytes ? (double)r->rss_bytes / (double)r->limit_bytes : 0.0;
    return 0;
}

void rs_sampler_fix(rs_sampler *s)
{
    rs_alloc_stats a;
    s->alloc->ops->stats(s->alloc->state, &a);
    s->fixed = (rs_sample){
        .requested_bytes = a.requested_bytes, .allocated_bytes = a.allocated_bytes,
        .active_bytes = a.active_bytes, .resident_bytes = a.resident_bytes,
        .mapped_bytes = a.mapped_bytes, .metadata_bytes = a.metadata_bytes,
        .cached_bytes = a.cached_bytes, .dirty_bytes = a.dirty_bytes, .heap_bytes = a.heap_bytes,
        .unmapped_bytes = a.unmapped_bytes, .central_cached_bytes = a.central_cached_bytes,
        .pageheap_free_bytes = a.pageheap_free_bytes,
    };
}

void rs_sampler_fire(void *ctx, uint64_t now_ns)
{
    rs_sampler *s = ctx;
    rs_sample smp;
    rs_err err;

    if (s->result->nsamples >= RS_RUN_MAX_SAMPLES) { /* a backstop: the engine's horizon comes first */
        rs_fail(&err, RS_EINPUT, "more than %llu samples at t_ns %llu: a longer run needs a larger "
                "sample_interval", (unsigned long long)RS_RUN_MAX_SAMPLES, (unsigned long long)now_ns);
        rs_engine_abort(s->engine, &err);
        return;
    }
    if (rs_sampler_read(s, now_ns, &smp, &err) || rs_result_add_sample(s->result, &smp, &err))
        rs_engine_abort(s->engine, &err);
    s->last_t_ns = now_ns;
}

int rs_sampler_metrics(rs_sampler *s, uint64_t end_ns, double steady_from, uint64_t events,
                       rs_err *err)
{
    rs_daemon_stats d;

    s->daemon->stats(s->daemon_state, &d);
    const uint64_t k = s->scale > 1 ? s->scale : 1;
    const rs_run_totals tot = {
        .limit_bytes = d.limit_bytes * k,
        .accounted_peak_bytes = d.accounted_peak_bytes * k,
        .items_peak_count = d.items_peak_count * k,
        .trims_count = d.trim.trims_count,
        .trimmed_items_count = d.trim.trimmed_items_count * k,
        .trimmed_bytes = d.trim.trimmed_bytes * k,
    };
    return rs_result_metrics(s->result, &tot, end_ns, steady_from, events, err);
}

int rs_result_metrics(rs_result *res, const rs_run_totals *tot, uint64_t end_ns,
                      double steady_from, uint64_t events, rs_err *err)
{
    uint64_t from_ns = (uint64_t)((double)end_ns * steady_from);
    double rss_sum = 0, acc_sum = 0, rss_peak = 0;
    /* steady means of the decomposition of rss (see docs/models.md) */
    double unt_sum = 0, rnd_sum = 0, cch_sum = 0, met_sum = 0, frg_sum = 0, bas_sum = 0;
    size_t n = 0, first = res->nsamples;
    int rc = 0;

    for (size_t i = 0; i < res->nsamples; i++) {
        const rs_sample *smp = &res->samples[i];
        if ((double)smp->rss_bytes > rss_peak)
            rss_peak = (double)smp->rss_bytes;
        if (smp->t_ns >= from_ns) {
            if (first == res->nsamples)
                first = i;
            rss_sum += (double)smp->rss_bytes;
            acc_sum += (double)smp->accounted_bytes;
            unt_sum += (double)smp->untracked_bytes;
            rnd_sum += (double)smp->allocated_bytes - (double)smp->requested_bytes;
            cch_sum += (double)smp->cached_bytes;
            met_sum += (double)smp->metadata_bytes;
            frg_sum += (double)smp->resident_bytes - (double)smp->allocated_bytes -
                       (double)smp->cached_bytes - (double)smp->metadata_bytes;
            bas_sum += (double)smp->base_bytes;
            n++;
        }
    }
    double rss_steady = n ? rss_sum / (double)n : 0, acc_steady = n ? acc_sum / (double)n : 0;
    double limit = (double)tot->limit_bytes;
    double p50 = 0, p99 = 0, pmax = 0;
    if (n) {
        double *ov = malloc(n * sizeof *ov);
        if (!ov)
            return rs_fail(err, RS_ENOMEM, "out of memory for %zu samples", n);
        for (size_t i = 0; i < n; i++)
            ov[i] = res->samples[first + i].overshoot;
        gsl_sort(ov, 1, n);
        p50 = gsl_stats_quantile_from_sorted_data(ov, 1, n, 0.50);
        p99 = gsl_stats_quantile_from_sorted_data(ov, 1, n, 0.99);
        pmax = ov[n - 1];
        free(ov);
    }
    const struct { const char *name; double value; } m[] = {
        { "limit_bytes", limit },
        { "rss_steady_bytes", rss_steady },
        { "rss_peak_bytes", rss_peak },
        { "accounted_steady_bytes", acc_steady },
        { "accounted_peak_bytes", (double)tot->accounted_peak_bytes },
        { "excess_peak_bytes", tot->accounted_peak_bytes > tot->limit_bytes
                                   ? (double)(tot->accounted_peak_bytes - tot->limit_bytes) : 0.0 },
        { "x_steady", rss_steady > 0 ? 1.0 - acc_steady / rss_steady : 0.0 },
        { "overshoot_steady", limit > 0 ? rss_steady / limit : 0.0 },
        { "overshoot_p50", p50 },
        { "overshoot_p99", p99 },
        { "overshoot_max", pmax },
        { "trims_count", (double)tot->trims_count },
        { "trimmed_items_count", (double)tot->trimmed_items_count },
        { "trimmed_bytes", (double)tot->trimmed_bytes },
        { "events_count", (double)events },
        { "items_peak_count", (double)tot->items_peak_count },
        { "sim_end_ns", (double)end_ns },
        { "steady_from_ns", (double)from_ns },
        { "rss_accounted_bytes", n ? acc_sum / (double)n : 0.0 },
        { "rss_untracked_bytes", n ? unt_sum / (double)n : 0.0 },
        { "rss_rounding_bytes", n ? rnd_sum / (double)n : 0.0 },
        { "rss_caches_bytes", n ? cch_sum / (double)n : 0.0 },
        { "rss_metadata_bytes", n ? met_sum / (double)n : 0.0 },
        { "rss_fragmentation_bytes", n ? frg_sum / (double)n : 0.0 },
        { "rss_base_bytes", n ? bas_sum / (double)n : 0.0 },
    };
    for (size_t i = 0; i < sizeof m / sizeof m[0] && !rc; i++)
        rc = rs_result_set_metric(res, m[i].name, m[i].value, err);
    return rc;
}
