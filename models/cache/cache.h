/*
 * cache.h — the cache-policy plug-in interface.
 *
 * A policy decides *which* object goes next; when to trim and to what target
 * is the trim policy's job, and what an object costs is the layout's.
 * Objects are named by rs_oid, a dense 32-bit index into the daemon's object
 * table, so a policy keeps its links in arrays indexed by oid, not pointers.
 * Pinned objects are never offered as victims (Ceph moves them aside: lru.h
 * pintail, BlueStore's pinned onodes).
 *
 * Optional sharded, list-level slots (NULL in lru and lru-mid; the osd's
 * BlueStore caches, models/cache/bluestore.c, fill them): one instance holds
 * every cache shard, so its per-object arrays exist once for the id space,
 * not once per shard; an insert names its shard and a level hint, a trim is
 * per shard and to a target in the policy's own unit, and tells the caller
 * what it did to each object through a callback (evicted, or demoted to a
 * ghost that keeps its entry but no data).  A caller that uses them checks
 * they are there (the osd refuses a plug-in without them, its slots'
 * .choices name the ones that have them).
 */
#ifndef RS_CACHE_H
#define RS_CACHE_H

#include <stdint.h>

#include "../../sim/base/config.h"
#include "../../sim/base/err.h"

typedef uint32_t rs_oid;
#define RS_OID_NONE UINT32_MAX

/* Levels (lists) for insert_at, level and list_usage.  RS_CACHE_LEVEL_ALL
 * names what trim_to bounds (a one-list policy's list; 2Q's warm_in + hot). */
enum {
    RS_CACHE_LEVEL_ALL = 0,
    RS_CACHE_LEVEL_WARM_IN = 1,  /* 2Q: entered once, FIFO */
    RS_CACHE_LEVEL_HOT = 2,      /* 2Q: hit again, LRU */
    RS_CACHE_LEVEL_WARM_OUT = 3, /* 2Q: ghosts (no data bytes) */
    RS_CACHE_LEVELS = 4,
};

/* What trim_to did to one object, told to the caller's callback. */
enum { RS_CACHE_EVICTED = 0, RS_CACHE_DEMOTED = 1 };

/* Called by trim_to for each object it evicted (gone from the policy) or
 * demoted (still held, now a ghost of 0 bytes), in trim order, after the
 * policy updated its own lists; the callback must not insert into or trim
 * the same policy instance. */
typedef void (*rs_cache_trim_fn)(void *ctx, rs_oid id, int what);

typedef struct rs_cache_ops {
    const char *name;       /* "lru", ... */
    const char *doc;
    const rs_param *params; /* NULL-terminated, may be NULL */

    int (*create)(const rs_config *cfg, void **r_state, rs_err *err);
    void (*destroy)(void *state);
    /* Add a new object of bytes accounted bytes (not yet in the policy). */
    int (*insert)(void *state, rs_oid id, uint64_t bytes, rs_err *err);
    /* The object was used (a hit). */
    void (*touch)(void *state, rs_oid id);
    /* Drop the object (evicted or deleted); pinned or not. */
    void (*remove)(void *state, rs_oid id);
    /* Pin / unpin: a pinned object is never returned by victim(). */
    void (*pin)(void *state, rs_oid id);
    void (*unpin)(void *state, rs_oid id);
    /* The object to evict next, without removing it; RS_OID_NONE if none. */
    rs_oid (*victim)(void *state);
    /* Optional hint: id is about to be touched or removed; stage 0 may
     * fetch its own links, stage 1 (later) its neighbours'. */
    void (*prefetch)(const void *state, rs_oid id, int stage);
    /* Optional: the victim that would follow id once id is removed, or
     * RS_OID_NONE; lets a trim prefetch the objects it will evict. */
    rs_oid (*next_victim)(const void *state, rs_oid id);
    /* Objects held, pinned included. */
    uint64_t (*count)(const void *state);

    /* ---- optional: sharded and list-level (NULL: not offered) ---- */
    int trim_bytes; /* trim_to's max is data bytes (else a count of objects) */
    /* Use shards cache shards (1 after create); before any insert. */
    int (*set_shards)(void *state, uint32_t shards, rs_err *err);
    /* insert() into shard, at level_hint: RS_CACHE_LEVEL_ALL for the
     * policy's entry level, else the level of the entry this one replaces
     * (2Q: a WARM_OUT ghost's range comes back HOT). */
    int (*insert_at)(void *state, rs_oid id, uint64_t bytes, uint32_t shard, int level_hint,
                     rs_err *err);
    /* The level id is on (RS_CACHE_LEVEL_ALL for a one-list policy). */
    int (*level)(const void *state, rs_oid id);
    /* Objects and bytes (data bytes given at insert; 0 for a ghost) on one
     * level of shard; RS_CACHE_LEVEL_ALL: what trim_to bounds. */
    void (*list_usage)(const void *state, uint32_t shard, int level, uint64_t *r_count,
                       uint64_t *r_bytes);
    /* Trim shard to max (data bytes if trim_bytes, else objects) on
     * RS_CACHE_LEVEL_ALL, calling fn for each object evicted or demoted.  Returns the
     * objects evicted plus demoted.  A policy that keeps pinned objects in
     * place may stop early at pinned ones (within its skip budget). */
    uint64_t (*trim_to)(void *state, uint32_t shard, uint64_t max, rs_cache_trim_fn fn, void *ctx);
    /* Optional hint, to prefetch what the next trim will touch: the object
     * on level lvl of shard that a trim reaches after id (RS_OID_NONE: the
     * one it reaches first), or RS_OID_NONE.  Changes nothing. */
    rs_oid (*trim_next)(const void *state, uint32_t shard, int lvl, rs_oid id);
} rs_cache_ops;

typedef struct rs_cache {
    const rs_cache_ops *ops;
    void *state;
} rs_cache;

/* A cache's lookups as a cache simulator counts them (libCacheSim
 * bin/cachesim/sim.c: a request is a hit or a miss, and its requested
 * bytes go to hit_bytes or miss_bytes).  What one lookup is, is the
 * daemon's to say (docs/models.md, "Hits and misses"). */
typedef struct rs_cache_hits {
    uint64_t hits, misses;
    uint64_t hit_bytes, miss_bytes;
} rs_cache_hits;

static inline void rs_cache_count(rs_cache_hits *h, int hit, uint64_t bytes)
{
    if (hit) {
        h->hits++;
        h->hit_bytes += bytes;
    } else {
        h->misses++;
        h->miss_bytes += bytes;
    }
}

#endif
