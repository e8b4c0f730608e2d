/*
 * rocksdb_lru.c — RocksDB's block cache as a cache plug-in "rocksdb-lru":
 * the LRUCache of facebook/rocksdb cache/lru_cache.cc, as Ceph copies it in
 * src/kv/rocksdb_cache/BinnedLRUCache.cc (rocksdb_cache_type binned_lru,
 * the default from 12.2.9/13.2.3 on; the age bins Quincy added on top of it
 * are not modelled).
 *
 * Per shard (2^rocksdb_cache_shard_bits of them; the caller hashes the key
 * to a shard and passes its capacity to trim_to) one LRU list split in two
 * pools: the high-priority pool at the head (entries inserted with
 * Cache::Priority::HIGH, i.e. index and filter blocks when
 * cache_index_and_filter_blocks_with_high_priority is set, and, as
 * lru_cache.cc's LRU_Insert does, an entry that was hit), and the low-
 * priority pool behind it, where a new block enters (lru_low_pri_).  The
 * high pool holds at most rocksdb_cache_high_pri_pool_ratio of the shard's
 * capacity; MaintainPoolSize moves its oldest entries to the head of the low
 * pool.  Eviction takes the LRU tail (the low pool's, then the high
 * pool's).  Levels: RS_CACHE_LEVEL_WARM_IN is the low pool, RS_CACHE_LEVEL_HOT
 * the high pool, RS_CACHE_LEVEL_ALL both (what trim_to bounds, in bytes:
 * RocksDB charges a block its size).  An entry in use (RocksDB: referenced,
 * off the LRU list) is a pinned entry here: trim_to passes over it.
 *
 * Key design choice: one instance holds every shard, its per-entry array
 * indexed by the daemon's ids (as models/cache/bluestore.c); 16 bytes per
 * id, two list heads per shard.  O(1) per call but victim() (O(pinned)).
 */
#include <stdlib.h>

#include "cache.h"
#include "../../sim/base/mem.h"

#define NIL UINT32_MAX

typedef struct node {
    uint32_t prev, next; /* on its pool's list; prev toward the head */
    uint32_t len;        /* charge, bytes */
    uint16_t shard;
    uint8_t level;       /* RS_CACHE_LEVEL_WARM_IN (low) or _HOT (high) */
    uint8_t pinned;
} node;

typedef struct pool {
    uint32_t head, tail; /* head = most recent */
    uint64_t count, bytes;
} pool;

typedef struct shard {
    pool p[2];             /* [0] low, [1] high */
    uint64_t capacity;     /* the last trim_to's max (the shard's capacity) */
} shard;

typedef struct lru {
    node *n;
    uint32_t cap;
    shard *sh;
    uint32_t nshards;
    uint64_t count;
    double high_ratio; /* high_pri_pool_ratio */
} lru;

static const rs_param params[] = {
    { .key = "rocksdb_cache_high_pri_pool_ratio", .type = RS_PT_DOUBLE, .def = "0",
      .doc = "share of each block-cache shard kept for high-priority entries (not a Ceph "
             "option: RocksDBStore passes 0.0, so by default one LRU)",
      .range = "[0, 1]" },
    { .key = NULL },
};

static int pidx(int level)
{
    return level == RS_CACHE_LEVEL_HOT;
}

static int set_shards(void *state, uint32_t shards, rs_err *err)
{
    lru *q = state;
    if (!shards || shards > UINT16_MAX + 1u)
        return rs_fail(err, RS_EINTERNAL, "bad cache shard count %u", shards);
    shard *sh = calloc(shards, sizeof *sh);
    if (!sh)
        return rs_fail(err, RS_ENOMEM, "out of memory for %u block-cache shards", shards);
    for (uint32_t i = 0; i < shards; i++) {
        sh[i].p[0].head = sh[i].p[0].tail = sh[i].p[1].head = sh[i].p[1].tail = NIL;
        sh[i].capacity = UINT64_MAX;
    }
    free(q->sh);
    q->sh = sh;
    q->nshards = shards;
    return 0;
}

static int create(const rs_config *cfg, void **r_state, rs_err *err)
{
    lru *q = calloc(1, sizeof *q);
    int rc;
    if (!q)
        return rs_fail(err, RS_ENOMEM, "out of memory for a block cache");
    q->high_ratio = rs_config_double(cfg, "rocksdb_cache_high_pri_pool_ratio");
    if ((rc = set_shards(q, 1, err))) {
        free(q);
        return rc;
    }
    *r_state = q;
    return 0;
}

static void destroy(void *state)
{
    lru *q = state;
    rs_mem_free(q->n);
    free(q->sh);
    free(q);
}

static int reserve(lru *q, rs_oid id, rs_err *err)
{
    if (id < q->cap)
        return 0;
    uint32_t cap = q->cap ? q->cap : 1024;
    while (cap <= id)
        cap *= 2;
    node *p = rs_mem_realloc(q->n, (size_t)cap * sizeof *p);
    if (!p)
        return rs_fail(err, RS_ENOMEM, "out of memory for a block cache of %u", cap);
    q->n = p;
    q->cap = cap;
    return 0;
}

static void push_front(lru *q, rs_oid id, int level)
{
    node *b = &q->n[id];
    pool *l = &q->sh[b->shard].p[pidx(level)];
    b->level = (uint8_t)level;
    b->prev = NIL;
    b->next = l->head;
    if (l->head != NIL)
        q->n[l->head].prev = id;
    l->head = id;
    if (l->tail == NIL)
        l->tail = id;
    l->count++;
    l->bytes += b->len;
}

static void unlink_(lru *q, rs_oid id)
{
    node *b = &q->n[id];
    pool *l = &q->sh[b->shard].p[pidx(b->level)];
    if (b->prev != NIL)
        q->n[b->prev].next = b->next;
    else
        l->head = b->next;
    if (b->next != NIL)
        q->n[b->next].prev = b->prev;
    else
        l->tail = b->prev;
    l->count--;
    l->bytes -= b->len;
}

/* MaintainPoolSize: the high pool's oldest entries overflow to the low
 * pool's head. */
static void maintain(lru *q, uint32_t s)
{
    shard *sh = &q->sh[s];
    double cap = q->high_ratio * (double)sh->capacity;
    while (sh->p[1].tail != NIL && (double)sh->p[1].bytes > cap) {
        rs_oid id = sh->p[1].tail;
        unlink_(q, id);
        push_front(q, id, RS_CACHE_LEVEL_WARM_IN);
    }
}

static int insert_at(void *state, rs_oid id, uint64_t bytes, uint32_t s, int level_hint,
                     rs_err *err)
{
    lru *q = state;
    int rc;
    if ((rc = reserve(q, id, err)))
        return rc;
    if (s >= q->nshards || bytes > UINT32_MAX)
        return rs_fail(err, RS_EINTERNAL, "bad insert into block-cache shard %u of %u (%llu bytes)",
                       s, q->nshards, (unsigned long long)bytes);
    /* LRU_Insert: a high-priority entry to the head when the pool exists */
    int high = q->high_ratio > 0 && level_hint == RS_CACHE_LEVEL_HOT;
    q->n[id] = (node){ .len = (uint32_t)bytes, .shard = (uint16_t)s };
    push_front(q, id, high ? RS_CACHE_LEVEL_HOT : RS_CACHE_LEVEL_WARM_IN);
    q->count++;
    if (high)
        maintain(q, s);
    return 0;
}

static int insert(void *state, rs_oid id, uint64_t bytes, rs_err *err)
{
    return insert_at(state, id, bytes, 0, RS_CACHE_LEVEL_ALL, err);
}

/* A hit: Release puts it back at the head, in the high pool when there is
 * one (lru_cache.cc LRU_Insert: IsHighPri() || HasHit()). */
static void touch(void *state, rs_oid id)
{
    lru *q = state;
    uint32_t s = q->n[id].shard;
    unlink_(q, id);
    push_front(q, id, q->high_ratio > 0 ? RS_CACHE_LEVEL_HOT : RS_CACHE_LEVEL_WARM_IN);
    maintain(q, s);
}

static void remove_(void *state, rs_oid id)
{
    lru *q = state;
    unlink_(q, id);
    q->count--;
}

static void pin(void *state, rs_oid id)
{
    ((lru *)state)->n[id].pinned = 1;
}

static void unpin(void *state, rs_oid id)
{
    ((lru *)state)->n[id].pinned = 0;
}

static rs_oid oldest_unpinned(const lru *q, const pool *l)
{
    uint32_t p = l->tail;
    while (p != NIL && q->n[p].pinned)
        p = q->n[p].prev;
    return p;
}

static rs_oid victim(void *state)
{
    const lru *q = state;
    for (uint32_t s = 0; s < q->nshards; s++)
        for (int k = 0; k < 2; k++) {
            rs_oid v = oldest_unpinned(q, &q->sh[s].p[k]);
            if (v != NIL)
                return v;
        }
    return RS_OID_NONE;
}

static uint64_t count(const void *state)
{
    return ((const lru *)state)->count;
}

static int level(const void *state, rs_oid id)
{
    return ((const lru *)state)->n[id].level;
}

static void list_usage(const void *state, uint32_t s, int lvl, uint64_t *r_count,
                       uint64_t *r_bytes)
{
    const lru *q = state;
    const pool *p = q->sh[s].p;
    if (lvl == RS_CACHE_LEVEL_ALL) {
        *r_count = p[0].count + p[1].count;
        *r_bytes = p[0].bytes + p[1].bytes;
    } else if (lvl == RS_CACHE_LEVEL_WARM_IN || lvl == RS_CACHE_LEVEL_HOT) {
        *r_count = p[pidx(lvl)].count;
        *r_bytes = p[pidx(lvl)].bytes;
    } else {
        *r_count = *r_bytes = 0;
    }
}

/* SetCapacity / EvictFromLRU: the shard's capacity becomes max bytes; the
 * LRU tail goes (low pool first) until the shard fits, entries in use
 * passed over. */
static uint64_t trim_to(void *state, uint32_t s, uint64_t max, rs_cache_trim_fn fn, void *ctx)
{
    lru *q = state;
    shard *sh = &q->sh[s];
    uint64_t items = 0;
    sh->capacity = max;
    for (int k = 0; k < 2; k++) {
        uint32_t p = sh->p[k].tail;
        while (p != NIL && sh->p[0].bytes + sh->p[1].bytes > max) {
            uint32_t prev = q->n[p].prev;
            if (!q->n[p].pinned) {
                unlink_(q, p);
                q->count--;
                fn(ctx, p, RS_CACHE_EVICTED);
                items++;
            }
            p = prev;
        }
    }
    maintain(q, s);
    return items;
}

const rs_cache_ops rs_cache_rocksdb_lru = {
    .name = "rocksdb-lru",
    .doc = "RocksDB block cache (LRUCache / Ceph's BinnedLRUCache): per shard one LRU, a "
           "high-priority pool at its head, bounded by bytes",
    .params = params,
    .create = create,
    .destroy = destroy,
    .insert = insert,
    .touch = touch,
    .remove = remove_,
    .pin = pin,
    .unpin = unpin,
    .victim = victim,
    .count = count,
    .trim_bytes = 1,
    .set_shards = set_shards,
    .insert_at = insert_at,
    .level = level,
    .list_usage = list_usage,
    .trim_to = trim_to,
};
