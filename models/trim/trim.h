/*
 * trim.h — the trim-policy plug-in interface: *when* a cache is trimmed and
 * to what target.
 *
 * The daemon hands the policy a target (rs_trim_target): how many bytes it
 * counts, its limit, and a trim_to() that evicts down to a byte target.  A
 * policy arms its own engine timers at create (periodic) and/or reacts to
 * inserts (on-insert).  Every trim goes through rs_trim_apply(), which keeps
 * the counters the sampler and the metrics read.
 *
 * Two kinds of target (rs_trim_ops.needs, rs_daemon_slot.offers):
 *   RS_TRIM_BYTES   one cache, one byte limit: used_bytes, limit_bytes,
 *                   trim_to (kv, mds);
 *   RS_TRIM_SHARDS  a cache in shard_count shards, each holding a
 *                   count-limited cache of items (BlueStore's onodes) and a
 *                   byte-limited one (its buffers), each trimmed on its own
 *                   (shard_trim_items, shard_trim_bytes); the policy sets
 *                   the limits (rs_trim_ops.limit_bytes) and may hold a
 *                   shard's lock for a background pass (shard_hold).  BlueStore
 *                   trims this way from Luminous on (per-shard targets mixing
 *                   an onode count with buffer bytes), which one byte target
 *                   cannot say.
 * A daemon's trim slot offers one kind; a policy needing the other is
 * refused when the run is configured (sim/schema.c), naming both.
 */
#ifndef RS_TRIM_H
#define RS_TRIM_H

#include <stdint.h>

#include "../../sim/base/config.h"
#include "../../sim/engine.h"
#include "../../sim/base/err.h"

/* Target kinds, for rs_trim_ops.needs and rs_daemon_slot.offers (0 means
 * RS_TRIM_BYTES in both, so the byte-target daemons and policies need not
 * say it). */
#define RS_TRIM_BYTES 1u
#define RS_TRIM_SHARDS 2u

/* A sharded target's totals (RS_TRIM_SHARDS). */
typedef struct rs_trim_usage {
    uint64_t items_count; /* objects in the count-limited caches (onodes) */
    uint64_t meta_bytes;  /* accounted bytes but the byte-limited caches' data */
    uint64_t data_bytes;  /* bytes held by the byte-limited caches */
} rs_trim_usage;

typedef struct rs_trim_target {
    void *ctx;
    uint64_t (*used_bytes)(void *ctx);  /* accounted bytes now */
    uint64_t (*limit_bytes)(void *ctx); /* the configured limit */
    /* Evict until used <= target_bytes (and the target's other bounds, see
     * over, hold), or max_items were evicted (0: no cap), or nothing
     * unpinned is left.  Returns items evicted; adds the
     * accounted bytes freed to *r_bytes. */
    uint64_t (*trim_to)(void *ctx, uint64_t target_bytes, uint64_t max_items,
                        uint64_t now_ns, uint64_t *r_bytes);
    /* Optional (NULL: used_bytes > limit): whether the cache is past
     * limit_bytes or any other bound it has (the kv daemon's object count,
     * kv_cache_limit_objects); a policy with rs_trim_ops.counts asks this,
     * not used_bytes, before a pass. */
    int (*over)(void *ctx, uint64_t limit_bytes);
    /* Optional (NULL: not known): the process heap's mapped bytes as the
     * allocator reports them (tcmalloc heap_size - unmapped), which the
     * autotune policy steers by. */
    uint64_t (*mapped_bytes)(void *ctx);
    /* Optional: return free memory to the OS (tcmalloc ReleaseFreeMemory),
     * as Ceph's autotuner does before it reads the heap. */
    void (*release_memory)(void *ctx, uint64_t now_ns);

    /* ---- RS_TRIM_SHARDS only (NULL / 0 for a byte target) ---- */
    uint32_t shard_count;
    void (*usage)(void *ctx, rs_trim_usage *r_usage);
    /* Shard's count-limited cache holds r_items, its byte cache r_bytes;
     * either pointer may be NULL when the caller does not need it (a trim
     * after a buffer insert reads only the bytes, on every insert). */
    void (*shard_usage)(void *ctx, uint32_t shard, uint64_t *r_items, uint64_t *r_bytes);
    /* Evict from shard's byte cache until it holds <= max_bytes; from its
     * count cache until it holds <= max_items (pinned items are skipped and
     * the daemon may give up early).  background: called from the policy's
     * own thread (a timer), else from the inserting op's.  Return the items
     * evicted (a count-cache eviction may take byte-cache items with it) and
     * add the accounted bytes freed to *r_bytes. */
    uint64_t (*shard_trim_bytes)(void *ctx, uint32_t shard, uint64_t max_bytes, int background,
                                 uint64_t *r_bytes);
    uint64_t (*shard_trim_items)(void *ctx, uint32_t shard, uint64_t max_items, int background,
                                 uint64_t *r_bytes);
    /* A background pass holds shard's lock from start_ns for fixed_ns plus
     * the daemon's per-item cost of items; returns the time held. */
    uint64_t (*shard_hold)(void *ctx, uint32_t shard, uint64_t start_ns, uint64_t fixed_ns,
                           uint64_t items);
    /* The daemon has work in flight (a background thread that sleeps while
     * it is idle looks at this before re-arming). */
    int (*busy)(void *ctx);
    /* Optional (NULL: RocksDB is not simulated, its caches are taken to
     * want their whole ratio share): the RocksDB block caches' charged
     * bytes (kv; kv_onode, 0 when onodes share the kv cache), and the
     * capacities PriorityCache commits them. */
    void (*kv_usage)(void *ctx, uint64_t *r_kv_bytes, uint64_t *r_kv_onode_bytes);
    void (*set_kv_capacity)(void *ctx, uint64_t kv_bytes, uint64_t kv_onode_bytes);
} rs_trim_target;

typedef struct rs_trim_stats {
    uint64_t trims_count;         /* trim passes that ran */
    uint64_t trimmed_items_count; /* objects evicted by them */
    uint64_t trimmed_bytes;       /* accounted bytes they freed */
    uint64_t last_trim_ns;        /* when the last pass ran */
    /* Sharded policies with a per-shard byte max: bytes a shard's byte cache
     * held over it right after an insert, at worst (before its trim). */
    uint64_t shard_excess_peak_bytes;
    uint64_t tuned_bytes;         /* autotune: the caches' budget now (else 0) */
    uint64_t memory_target_bytes; /* autotune: the memory target it steers to (else 0) */
} rs_trim_stats;

typedef struct rs_trim_ops {
    const char *name;
    const char *doc;
    const rs_param *params;
    unsigned needs; /* the target kind it trims: RS_TRIM_BYTES (0) or RS_TRIM_SHARDS */
    /* It decides a pass with rs_trim_over, so a target's other bounds (an
     * object count) are honoured; a daemon with such a bound refuses a
     * policy without it. */
    int counts;
    /* It trims to the limit after every insert and at no other time, so the
     * cache never holds more than its limit once an insert is done: the
     * eviction order is the cache policy's alone (what `exact` presets need). */
    int exact;

    /* Build the policy for tgt; it may arm timers on eng.  stats is owned
     * by the caller and outlives the policy. */
    int (*create)(const rs_config *cfg, rs_engine *eng, const rs_trim_target *tgt,
                  rs_trim_stats *stats, void **r_state, rs_err *err);
    void (*destroy)(void *state);
    /* Called by the daemon after every insert.  May be NULL. */
    void (*after_insert)(void *state, uint64_t now_ns);

    /* ---- RS_TRIM_SHARDS policies (NULL otherwise) ---- */
    /* An object went into shard's count cache (items 1) or byte cache
     * (items 0), on an op's thread.  May be NULL. */
    void (*after_shard_insert)(void *state, uint32_t shard, int items, uint64_t now_ns);
    /* The daemon starts an op (a policy whose thread sleeps while the daemon
     * is idle restarts it).  May be NULL. */
    int (*wake)(void *state, uint64_t now_ns, rs_err *err);
    /* The accounted bytes the policy holds the cache to now. */
    uint64_t (*limit_bytes)(const void *state);
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

/* Whether tgt is past limit_bytes or another bound it has. */
static inline int rs_trim_over(const rs_trim_target *tgt, uint64_t limit_bytes)
{
    return tgt->over ? tgt->over(tgt->ctx, limit_bytes) : tgt->used_bytes(tgt->ctx) > limit_bytes;
}

/* Create the policy ops for tgt (r_trim->ops is NULL after a failure). */
int rs_trim_create(const rs_trim_ops *ops, const rs_config *cfg, rs_engine *eng,
                   const rs_trim_target *tgt, rs_trim_stats *stats, rs_trim *r_trim,
                   rs_err *err);
void rs_trim_destroy(rs_trim *trim);

#endif
