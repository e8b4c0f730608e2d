/*
 * trim.h — the trim-policy plug-in interface: *when* a cache is trimmed and
 * to what target.
 *
 * The daemon hands the policy a target (rs_trim_target): how many bytes it
 * counts, its limit, and a trim_to() that evicts down to a byte target.  A
 * policy arms its own engine timers at create (periodic) and/or reacts to
 * inserts (on-insert).  Every trim goes through rs_trim_apply(), which keeps
 * the counters the sampler and the metrics read.
 */
#ifndef RS_TRIM_H
#define RS_TRIM_H

#include <stdint.h>

#include "../../sim/base/config.h"
#include "../../sim/engine.h"
#include "../../sim/base/err.h"

typedef struct rs_trim_target {
    void *ctx;
    uint64_t (*used_bytes)(void *ctx);  /* accounted bytes now */
    uint64_t (*limit_bytes)(void *ctx); /* the configured limit */
    /* Evict until used <= target_bytes, or max_items were evicted (0: no
     * cap), or nothing unpinned is left.  Returns items evicted; adds the
     * accounted bytes freed to *r_bytes. */
    uint64_t (*trim_to)(void *ctx, uint64_t target_bytes, uint64_t max_items,
                        uint64_t now_ns, uint64_t *r_bytes);
    /* Optional (NULL: not known): the process heap's mapped bytes as the
     * allocator reports them (tcmalloc heap_size - unmapped), which the
     * autotune policy steers by. */
    uint64_t (*mapped_bytes)(void *ctx);
} rs_trim_target;

typedef struct rs_trim_stats {
    uint64_t trims_count;         /* trim passes that ran */
    uint64_t trimmed_items_count; /* objects evicted by them */
    uint64_t trimmed_bytes;       /* accounted bytes they freed */
    uint64_t last_trim_ns;        /* when the last pass ran */
} rs_trim_stats;

typedef struct rs_trim_ops {
    const char *name;
    const char *doc;
    const rs_param *params;

    /* Build the policy for tgt; it may arm timers on eng.  stats is owned
     * by the caller and outlives the policy. */
    int (*create)(const rs_config *cfg, rs_engine *eng, const rs_trim_target *tgt,
                  rs_trim_stats *stats, void **r_state, rs_err *err);
    void (*destroy)(void *state);
    /* Called by the daemon after every insert.  May be NULL. */
    void (*after_insert)(void *state, uint64_t now_ns);
} rs_trim_ops;

typedef struct rs_trim {
    const rs_trim_ops *ops;
    void *state;
} rs_trim;

/* One trim pass to target_bytes (max_items 0 = no cap), counted in stats. */
static inline uint64_t rs_trim_apply(const rs_trim_target *tgt, rs_trim_stats *stats,
                                     uint64_t target_bytes, uint64_t max_items, uint64_t now_ns)
{
    uint64_t bytes = 0;
    uint64_t items = tgt->trim_to(tgt->ctx, target_bytes, max_items, now_ns, &bytes);
    stats->trims_count++;
    stats->trimmed_items_count += items;
    stats->trimmed_bytes += bytes;
    stats->last_trim_ns = now_ns;
    return items;
}

/* Create the policy ops for tgt (r_trim->ops is NULL after a failure). */
int rs_trim_create(const rs_trim_ops *ops, const rs_config *cfg, rs_engine *eng,
                   const rs_trim_target *tgt, rs_trim_stats *stats, rs_trim *r_trim,
                   rs_err *err);
void rs_trim_destroy(rs_trim *trim);

#endif
