/*
 * daemon.h — the daemon-model plug-in interface.
 *
 * A daemon model turns trace records into cache objects, pins and trims.  It
 * declares the components it is built from (slots: a cache policy, a layout,
 * a trim policy, each chosen by a config key with a default) and is handed
 * the chosen plug-ins' ops tables; it never searches the registry.  The
 * allocator is the run's, shared with anything else the process allocates.
 * The keys a run may set are the core keys, the daemon's params, its slots'
 * keys and the params of the plug-ins they chose and of the allocator: any
 * other key is refused (sim/schema.c).  stats() is what the sampler reads.
 */
#ifndef RS_DAEMON_H
#define RS_DAEMON_H

#include <stdint.h>
#include <stdio.h>

#include "../../sim/base/config.h"
#include "../../sim/engine.h"
#include "../../sim/base/err.h"
#include "../../sim/base/result.h"
#include "../../traces/trace.h"
#include "../alloc/alloc.h"
#include "../cache/cache.h"
#include "../trim/trim.h"

/* The kinds of component a daemon can be built from. */
typedef enum rs_component_kind {
    RS_COMPONENT_CACHE,  /* rs_cache_ops */
    RS_COMPONENT_LAYOUT, /* rs_layout_ops */
    RS_COMPONENT_TRIM,   /* rs_trim_ops */
} rs_component_kind;

/* One component a daemon uses: the key choosing it (type string, default
 * plug-in and doc in param) and its kind.  Tables end with param.key NULL.
 * A trim slot says which target it offers (RS_TRIM_BYTES or RS_TRIM_SHARDS,
 * trim.h; 0 = RS_TRIM_BYTES); a policy needing another is refused when the
 * run is configured. */
typedef struct rs_daemon_slot {
    rs_param param;
    rs_component_kind kind;
    unsigned offers; /* trim slots: the target kind the daemon hands the policy */
} rs_daemon_slot;

#define RS_DAEMON_MAX_SLOTS 8

typedef struct rs_daemon_env {
    const rs_config *cfg; /* validated */
    rs_engine *engine;
    rs_alloc *alloc;
    /* parts[i]: the ops table (rs_cache_ops, rs_layout_ops or rs_trim_ops,
     * per slots[i].kind) the run chose for the daemon's slots[i]. */
    const void *parts[RS_DAEMON_MAX_SLOTS];
} rs_daemon_env;

typedef struct rs_daemon_stats {
    uint64_t accounted_bytes;      /* what the daemon counts; the limit applies to it */
    uint64_t untracked_bytes;      /* requested by its objects but not counted */
    uint64_t limit_bytes;
    uint64_t base_bytes;           /* resident memory outside the cache */
    uint64_t items_count;          /* cached objects */
    uint64_t accounted_peak_bytes; /* highest accounted_bytes seen, at any instant */
    uint64_t items_peak_count;
    rs_trim_stats trim;
    rs_cache_hits hits;            /* the daemon's lookups so far (docs/models.md) */
    int paced;                     /* its own clients issue the records (a closed loop: the
                                    * osd's client_iodepth > 0), not the trace's times */
} rs_daemon_stats;

/* A rule of thumb operators size the daemon by: RSS ~ factor x limit (up
 * to factor_hi where reports give a range; 0: none), its text with its
 * source, and what the model leaves out that makes a prediction
 * optimistic (NULL: nothing known). */
typedef struct rs_daemon_rule {
    double factor, factor_hi;
    const char *text;
    const char *caveat;
} rs_daemon_rule;

typedef struct rs_daemon_ops {
    const char *name;          /* "kv", later "mds", "osd" */
    const char *doc;
    const rs_param *params;
    const rs_daemon_slot *slots; /* the components it is built from; may be NULL */
    const char *trace_daemon;  /* the trace header's daemon kind it replays */
    /* Optional: the size key the daemon enforces its memory limit with
     * (mds_cache_memory_limit, osd_memory_target...): what `rssim plan`
     * searches.  NULL: the daemon has no such limit. */
    const char *limit_key;
    /* Optional: how operators size it today, for `rssim plan` to compare
     * with; NULL when nothing is published. */
    const struct rs_daemon_rule *rule;
    /* Optional: the limit can come from a pod's memory limit times a ratio
     * (osd_memory_target_cgroup_limit_ratio): `rssim plan --cgroup-limit`. */
    int limit_from_cgroup;

    int (*create)(const rs_daemon_env *env, void **r_state, rs_err *err);
    void (*destroy)(void *state);
    /* Apply one record at rec->t_ns.  RS_EINPUT for a record it cannot use.
     * memo: what prefetch noted about rec, or NULL (see rs_rec_fn). */
    int (*op)(void *state, const rs_rec *rec, const rs_memo *memo, rs_err *err);
    /* Optional: rec is coming (see rs_prefetch_fn in sim/engine.h). */
    void (*prefetch)(void *state, const rs_rec *rec, rs_memo *memo, int stage);
    void (*stats)(const void *state, rs_daemon_stats *r_stats);
    /* Optional: add the daemon's own run metrics (IOPS, latency percentiles,
     * health warnings, records it could not apply...) with
     * rs_result_set_metric.  Called once, after the last sample at end_ns. */
    int (*metrics)(const void *state, uint64_t end_ns, rs_result *res, rs_err *err);
} rs_daemon_ops;

/* The run metrics of one cache's lookups: PREFIXhits, PREFIXmisses and,
 * when there was a lookup, PREFIXmiss_ratio = misses / (hits + misses)
 * and PREFIXbyte_miss_ratio = miss_bytes / (hit_bytes + miss_bytes)
 * (when any bytes were asked for); prefix "" for the daemon's own. */
static inline int rs_daemon_hit_metrics(rs_result *res, const char *prefix, const rs_cache_hits *h,
                                        rs_err *err)
{
    char name[48];
    int rc;
    snprintf(name, sizeof name, "%shits", prefix);
    if ((rc = rs_result_set_metric(res, name, (double)h->hits, err)))
        return rc;
    snprintf(name, sizeof name, "%smisses", prefix);
    if ((rc = rs_result_set_metric(res, name, (double)h->misses, err)))
        return rc;
    if (h->hits + h->misses) {
        snprintf(name, sizeof name, "%smiss_ratio", prefix);
        if ((rc = rs_result_set_metric(res, name, (double)h->misses / (double)(h->hits + h->misses),
                                       err)))
            return rc;
    }
    if (h->hit_bytes + h->miss_bytes) {
        snprintf(name, sizeof name, "%sbyte_miss_ratio", prefix);
        if ((rc = rs_result_set_metric(res, name,
                                       (double)h->miss_bytes / (double)(h->hit_bytes + h->miss_bytes),
                                       err)))
            return rc;
    }
    return 0;
}

#endif
