/*
 * bluestore.c — BlueStore's two cache policies (Ceph v15.2.5
 * src/os/bluestore/BlueStore.h/.cc), as cache plug-ins with the optional
 * sharded, list-level slots (cache.h):
 *
 *   bluestore-onode-lru  LruOnodeCacheShard: one LRU per shard, bounded by
 *                        count.  Pinned onodes stay in place (a touch still
 *                        moves them to the front); a trim skips them,
 *                        counting each against the excess, and gives up
 *                        after bluestore_cache_trim_max_skip_pinned of them
 *                        (v15 BlueStore.cc:887 _trim_to; 64 in v15.2.5
 *                        src/common/options.cc, 1000 since PR 40732).
 *   bluestore-2q         TwoQBufferCacheShard: warm_in (a miss, FIFO), hot
 *                        (a second use, LRU), warm_out ghosts (the Buffer
 *                        kept, its data dropped), bounded by data bytes
 *                        with the kin/kout quotas of _trim_to (v15
 *                        BlueStore.cc:1044-1300; the Luminous TwoQCache
 *                        buffer half, 50eb2108bd, is the same).  A warm_in
 *                        hit does nothing ("somewhat counter-intuitively"),
 *                        a range whose buffer was a ghost comes back hot.
 *                        BlueStore never pins a buffer: trim_to ignores
 *                        pins, only victim() honours them.
 *
 * Key design choice: one instance holds every shard (set_shards), so the
 * per-object array, indexed by the daemon's object id, exists once for the
 * id space rather than once per shard; the shards are list heads only.
 * 16 bytes per object id + 4 list heads per shard.  O(1) per call but
 * victim(), which walks past pinned objects (O(pinned)).
 */
#include <stdlib.h>
#include <string.h>

#include "cache.h"
#include "../../sim/base/mem.h"

#define NIL UINT32_MAX

typedef struct node {
    uint32_t prev, next; /* on its level's list; prev toward the head */
    uint32_t len;        /* data bytes (0: a ghost) */
    uint16_t shard;
    uint8_t level;       /* RS_CACHE_LEVEL_* (ALL for the onode LRU) */
    uint8_t pinned;
} node;

typedef struct qlist {
    uint32_t head, tail; /* head = most recent */
    uint64_t count, bytes;
} qlist;

typedef struct bq {
    node *n;           /* [cap] */
    uint32_t cap;
    qlist (*sh)[RS_CACHE_LEVELS]; /* [nshards] */
    uint32_t nshards;
    uint64_t count;    /* objects held, pinned and ghosts included */
    int twoq;
    uint64_t max_skip_pinned; /* onode LRU */
    double kin_ratio, kout_ratio; /* 2Q */
} bq;

static const rs_param onode_params[] = {
    { .key = "bluestore_cache_trim_max_skip_pinned", .type = RS_PT_INT, .def = "64",
      .doc = "pinned onodes an onode trim skips before it gives up (64; 1000 since PR 40732)",
      .range = "[0, 1000000000]" },
    { .key = NULL },
};

static const rs_param twoq_params[] = {
    { .key = "bluestore_2q_cache_kin_ratio", .type = RS_PT_DOUBLE, .def = "0.5",
      .doc = "2Q: share of the buffer target for warm_in",
      .range = "[0, 1]" },
    { .key = "bluestore_2q_cache_kout_ratio", .type = RS_PT_DOUBLE, .def = "0.5",
      .doc = "2Q: warm_out ghosts kept, as a fraction of target / average buffer",
      .range = "[0, 1]" },
    { .key = NULL },
};

static int set_shards(void *state, uint32_t shards, rs_err *err)
{
    bq *q = state;
    if (!shards || shards > UINT16_MAX + 1u)
        return rs_fail(err, RS_EINTERNAL, "bad cache shard count %u", shards);
    qlist (*sh)[RS_CACHE_LEVELS] = calloc(shards, sizeof *sh);
    if (!sh)
        return rs_fail(err, RS_ENOMEM, "out of memory for %u cache shards", shards);
    for (uint32_t i = 0; i < shards; i++)
        for (int l = 0; l < RS_CACHE_LEVELS; l++)
            sh[i][l].head = sh[i][l].tail = NIL;
    free(q->sh);
    q->sh = sh;
    q->nshards = shards;
    return 0;
}

static int create(int twoq, const rs_config *cfg, void **r_state, rs_err *err)
{
    bq *q = calloc(1, sizeof *q);
    int rc;
    if (!q)
        return rs_fail(err, RS_ENOMEM, "out of memory for a bluestore cache");
    q->twoq = twoq;
    if (twoq) {
        q->kin_ratio = rs_config_double(cfg, "bluestore_2q_cache_kin_ratio");
        q->kout_ratio = rs_config_double(cfg, "bluestore_2q_cache_kout_ratio");
    } else {
        q->max_skip_pinned = (uint64_t)rs_config_int(cfg, "bluestore_cache_trim_max_skip_pinned");
    }
    if ((rc = set_shards(q, 1, err))) {
        free(q);
        return rc;
    }
    *r_state = q;
    return 0;
}

static int onode_create(const rs_config *cfg, void **r_state, rs_err *err)
{
    return create(0, cfg, r_state, err);
}

static int twoq_create(const rs_config *cfg, void **r_state, rs_err *err)
{
    return create(1, cfg, r_state, err);
}

static void destroy(void *state)
{
    bq *q = state;
    rs_mem_free(q->n);
    free(q->sh);
    free(q);
}

static int reserve(bq *q, rs_oid id, rs_err *err)
{
    if (id < q->cap)
        return 0;
    uint32_t cap = q->cap ? q->cap : 1024;
    while (cap <= id)
        cap *= 2;
    node *p = rs_mem_realloc(q->n, (size_t)cap * sizeof *p);
    if (!p)
        return rs_fail(err, RS_ENOMEM, "out of memory for a bluestore cache of %u", cap);
    q->n = p;
    q->cap = cap;
    return 0;
}

/* push_front and unlink_ forced inline: a touch or a trim step is little
 * more than the two, and gcc kept them out of line, where their calls cost
 * about what their bodies do. */
static inline __attribute__((always_inline)) void push_front(bq *q, rs_oid id, int level)
{
    node *b = &q->n[id];
    qlist *l = &q->sh[b->shard][level];
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

static inline __attribute__((always_inline)) void unlink_(bq *q, rs_oid id)
{
    node *b = &q->n[id];
    qlist *l = &q->sh[b->shard][b->level];
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

static int insert_at(void *state, rs_oid id, uint64_t bytes, uint32_t shard, int level_hint,
                     rs_err *err)
{
    bq *q = state;
    int rc;
    if ((rc = reserve(q, id, err)))
        return rc;
    if (shard >= q->nshards || bytes > UINT32_MAX)
        return rs_fail(err, RS_EINTERNAL, "bad insert into cache shard %u of %u (%llu bytes)", shard,
                       q->nshards, (unsigned long long)bytes);
    int level = RS_CACHE_LEVEL_ALL;
    if (q->twoq) /* TwoQBufferCacheShard::_add: a ghost's range (cache_private) comes back hot */
        level = level_hint == RS_CACHE_LEVEL_WARM_OUT || level_hint == RS_CACHE_LEVEL_HOT
                    ? RS_CACHE_LEVEL_HOT : RS_CACHE_LEVEL_WARM_IN;
    q->n[id] = (node){ .len = (uint32_t)bytes, .shard = (uint16_t)shard };
    push_front(q, id, level);
    q->count++;
    return 0;
}

static int insert(void *state, rs_oid id, uint64_t bytes, rs_err *err)
{
    return insert_at(state, id, bytes, 0, RS_CACHE_LEVEL_ALL, err);
}

/* Onode LRU: a use moves it to the front, pinned or not (pins stay in place). */
static void onode_touch(void *state, rs_oid id)
{
    bq *q = state;
    unlink_(q, id);
    push_front(q, id, RS_CACHE_LEVEL_ALL);
}

/* 2Q _touch: hot to the front; warm_in and warm_out untouched. */
static void twoq_touch(void *state, rs_oid id)
{
    bq *q = state;
    if (q->n[id].level != RS_CACHE_LEVEL_HOT)
        return;
    unlink_(q, id);
    push_front(q, id, RS_CACHE_LEVEL_HOT);
}

static void remove_(void *state, rs_oid id)
{
    bq *q = state;
    unlink_(q, id);
    q->count--;
}

static void pin(void *state, rs_oid id)
{
    ((bq *)state)->n[id].pinned = 1;
}

static void unpin(void *state, rs_oid id)
{
    ((bq *)state)->n[id].pinned = 0;
}

static rs_oid first_unpinned(const bq *q, const qlist *l)
{
    uint32_t p = l->tail;
    while (p != NIL && q->n[p].pinned)
        p = q->n[p].prev;
    return p;
}

/* The generic victim: the oldest unpinned object of the first shard that
 * has one; 2Q offers ghosts first, then warm_in, then hot. */
static rs_oid victim(void *state)
{
    const bq *q = state;
    static const int order[] = { RS_CACHE_LEVEL_WARM_OUT, RS_CACHE_LEVEL_WARM_IN,
                                 RS_CACHE_LEVEL_HOT };
    for (uint32_t s = 0; s < q->nshards; s++) {
        if (!q->twoq) {
            rs_oid v = first_unpinned(q, &q->sh[s][RS_CACHE_LEVEL_ALL]);
            if (v != NIL)
                return v;
            continue;
        }
        for (size_t i = 0; i < sizeof order / sizeof order[0]; i++) {
            rs_oid v = first_unpinned(q, &q->sh[s][order[i]]);
            if (v != NIL)
                return v;
        }
    }
    return RS_OID_NONE;
}

static uint64_t count(const void *state)
{
    return ((const bq *)state)->count;
}

static int level(const void *state, rs_oid id)
{
    return ((const bq *)state)->n[id].level;
}

static void list_usage(const void *state, uint32_t shard, int lvl, uint64_t *r_count,
                       uint64_t *r_bytes)
{
    const bq *q = state;
    const qlist *l = q->sh[shard];
    if (q->twoq && lvl == RS_CACHE_LEVEL_ALL) {
        *r_count = l[RS_CACHE_LEVEL_WARM_IN].count + l[RS_CACHE_LEVEL_HOT].count;
        *r_bytes = l[RS_CACHE_LEVEL_WARM_IN].bytes + l[RS_CACHE_LEVEL_HOT].bytes;
        return;
    }
    *r_count = l[lvl].count;
    *r_bytes = l[lvl].bytes;
}

/* A trim takes a list from its tail toward its head; the node returned is
 * fetched too, so the caller's next step along the list finds it cached. */
static rs_oid trim_next(const void *state, uint32_t shard, int lvl, rs_oid id)
{
    const bq *q = state;
    if (shard >= q->nshards || lvl < 0 || lvl >= RS_CACHE_LEVELS)
        return RS_OID_NONE;
    uint32_t r = id == RS_OID_NONE ? q->sh[shard][lvl].tail : id < q->cap ? q->n[id].prev : NIL;
    if (r != NIL)
        __builtin_prefetch(&q->n[r]);
    return r;
}

/* LruOnodeCacheShard::_trim_to(max): to max entries, pinned ones skipped
 * (and counted against the excess), stopping after max_skip_pinned. */
static uint64_t onode_trim_to(void *state, uint32_t shard, uint64_t max, rs_cache_trim_fn fn,
                              void *ctx)
{
    bq *q = state;
    qlist *l = &q->sh[shard][RS_CACHE_LEVEL_ALL];
    uint64_t items = 0, skipped = 0;
    if (l->count <= max)
        return 0;
    uint64_t n = l->count - max;
    uint32_t p = l->tail;
    while (n > 0 && p != NIL) {
        uint32_t prev = q->n[p].prev;
        if (q->n[p].pinned) {
            if (++skipped >= q->max_skip_pinned)
                break;
            p = prev;
            n--;
            continue;
        }
        unlink_(q, p);
        q->count--;
        fn(ctx, p, RS_CACHE_EVICTED);
        items++;
        n--;
        p = prev;
    }
    return items;
}

/* TwoQBufferCacheShard::_trim_to(max): max data bytes in warm_in + hot,
 * split by kin_ratio with the slack given to the list under its quota;
 * warm_in's tail becomes ghosts, hot's tail is evicted, the ghosts are cut
 * to kout = (max / average buffer) x kout_ratio. */
static uint64_t twoq_trim_to(void *state, uint32_t shard, uint64_t max, rs_cache_trim_fn fn,
                             void *ctx)
{
    bq *q = state;
    qlist *c = q->sh[shard];
    qlist *win = &c[RS_CACHE_LEVEL_WARM_IN], *hot = &c[RS_CACHE_LEVEL_HOT];
    qlist *wout = &c[RS_CACHE_LEVEL_WARM_OUT];
    uint64_t items = 0, buffer_bytes = win->bytes + hot->bytes;
    if (buffer_bytes <= max)
        return 0;
    uint64_t kin = (uint64_t)((double)max * q->kin_ratio), khot = max - kin, kout = 0;
    uint64_t num = win->count + hot->count;
    if (num) {
        uint64_t avg = buffer_bytes / num;
        kout = (uint64_t)((double)(max / (avg ? avg : 1)) * q->kout_ratio);
    }
    if (hot->bytes < khot)
        kin += khot - hot->bytes;
    else if (win->bytes < kin)
        khot += kin - win->bytes;
    int64_t evict = (int64_t)win->bytes - (int64_t)kin;
    while (evict > 0 && win->tail != NIL) {
        uint32_t id = win->tail;
        evict -= q->n[id].len;
        unlink_(q, id);
        q->n[id].len = 0; /* a ghost keeps the Buffer, not its data */
        push_front(q, id, RS_CACHE_LEVEL_WARM_OUT);
        fn(ctx, id, RS_CACHE_DEMOTED);
        items++;
    }
    evict = (int64_t)hot->bytes - (int64_t)khot;
    while (evict > 0 && hot->tail != NIL) {
        uint32_t id = hot->tail;
        evict -= q->n[id].len;
        unlink_(q, id);
        q->count--;
        fn(ctx, id, RS_CACHE_EVICTED);
        items++;
    }
    while (wout->count > kout) {
        uint32_t id = wout->tail;
        unlink_(q, id);
        q->count--;
        fn(ctx, id, RS_CACHE_EVICTED);
        items++;
    }
    return items;
}

const rs_cache_ops rs_cache_bluestore_onode_lru = {
    .name = "bluestore-onode-lru",
    .doc = "BlueStore's onode LRU (v15 LruOnodeCacheShard), sharded, trimmed by count; pinned "
           "onodes stay in place and a trim gives up after max_skip_pinned of them (osd)",
    .params = onode_params,
    .create = onode_create,
    .destroy = destroy,
    .insert = insert,
    .touch = onode_touch,
    .remove = remove_,
    .pin = pin,
    .unpin = unpin,
    .victim = victim,
    .count = count,
    .set_shards = set_shards,
    .insert_at = insert_at,
    .level = level,
    .list_usage = list_usage,
    .trim_to = onode_trim_to,
};

const rs_cache_ops rs_cache_bluestore_2q = {
    .name = "bluestore-2q",
    .doc = "BlueStore's 2Q buffer cache (v15 TwoQBufferCacheShard), sharded, trimmed by data "
           "bytes with kin/kout quotas; warm_in demoted to data-less warm_out ghosts (osd)",
    .params = twoq_params,
    .create = twoq_create,
    .destroy = destroy,
    .insert = insert,
    .touch = twoq_touch,
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
    .trim_to = twoq_trim_to,
    .trim_next = trim_next,
};
