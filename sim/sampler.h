/*
 * sampler.h — the only part of a run that reads across the others:
 * at every sample time it reads the daemon's counters and the allocator's
 * stats into one rs_sample; at the end it turns the samples into metrics.
 *
 * Steady state is the part of the run from steady_from * end on (default the
 * second half): steady rss/accounted are means over those samples, the
 * overshoot percentiles are taken over them, peaks over the whole run.
 */
#ifndef RS_SAMPLER_H
#define RS_SAMPLER_H

#include <stdint.h>

#include "../models/alloc/alloc.h"
#include "../models/daemon/daemon.h"
#include "engine.h"
#include "base/result.h"

/* The most samples one run holds (~210 MB of rs_sample, and as many rows
 * in the store): with the default sample_interval of 100 ms, 27.8 hours of
 * virtual time.  A run that would need more is refused (RS_EINPUT) before
 * its clock gets there; a longer run needs a larger sample_interval. */
#define RS_RUN_MAX_SAMPLES 1000000ull
/* The most ticks of the allocator's clock (alloc_tick_interval) one run may
 * take: 10^8, 115 days at the default 100 ms; it bounds the run's virtual
 * time the same way, so a tiny interval over a long span cannot spin. */
#define RS_RUN_MAX_ALLOC_TICKS 100000000ull

typedef struct rs_sampler {
    const rs_daemon_ops *daemon;
    void *daemon_state;
    rs_alloc *alloc;
    rs_engine *engine;
    rs_result *result;
    uint64_t last_t_ns; /* time of the last sample taken, UINT64_MAX before any */
    /* a sampled run's k (mds_sample_k; 0 or 1: none): every byte and item
     * count of a sample but base_bytes, and the limit, are multiplied by
     * it, so x and rss/limit are the full run's estimates (docs/models.md,
     * "Sampled MDS runs") */
    uint32_t scale;
    rs_sample fixed;    /* the allocator's stats before its first allocation (rs_sampler_fix) */
} rs_sampler;

/* Take the allocator's stats now, before the daemon allocates anything: a
 * sampled run does not scale them (its per-process memory). */
void rs_sampler_fix(rs_sampler *s);

/* Read one sample at now_ns (no side effects on the models).  RS_EINTERNAL
 * when the allocator model's stats break their ordering (a wrapped counter). */
int rs_sampler_read(const rs_sampler *s, uint64_t now_ns, rs_sample *r_sample, rs_err *err);
/* Append a sample at now_ns to the result (the engine timer callback). */
void rs_sampler_fire(void *ctx, uint64_t now_ns);
/* What a run's metrics need beside its samples: the daemon's counters at
 * the end (a simulated daemon's stats, or a measured run's last/peak
 * sample values). */
typedef struct rs_run_totals {
    uint64_t limit_bytes;          /* the configured limit */
    uint64_t accounted_peak_bytes; /* highest accounted bytes seen */
    uint64_t items_peak_count;     /* most cached objects seen */
    uint64_t trims_count, trimmed_items_count, trimmed_bytes; /* trim totals */
} rs_run_totals;

/* The run metrics (docs/store.md) of res's samples: steady means from
 * steady_from * end_ns on, peaks over all samples, overshoot percentiles
 * over the steady samples.  Adds them to res.  Shared by the simulator's
 * runs and imported measured ones, so both are summarised alike. */
int rs_result_metrics(rs_result *res, const rs_run_totals *tot, uint64_t end_ns,
                      double steady_from, uint64_t events, rs_err *err);
/* Compute the run's metrics from its samples and the models' counters. */
int rs_sampler_metrics(rs_sampler *s, uint64_t end_ns, double steady_from, uint64_t events,
                       rs_err *err);

#endif
