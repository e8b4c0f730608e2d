/*
 * lru.c — least-recently-used policy over dense object ids.
 *
 * A doubly linked list threaded through one array of {prev, next} u32
 * pairs indexed by oid (one cache line per neighbour): insert and touch put the object at the head, victim() is the tail.
 * Pinned objects are unlinked and marked by prev = PINNED (the links of an
 * unlinked object mean nothing else), so victim() never walks past them
 * (Ceph's lru.h moves them to a pintail for the same reason) and a touch
 * reads no more than the links it rewrites; unpin puts them back at the
 * head, as a fresh use.  O(1) per call; 8 bytes per object id.
 *
 * "fifo" is the same list where a use moves nothing: the victim is the
 * object inserted first (libCacheSim FIFO: a hit updates no queue).
 */
#include <stdlib.h>

#include "cache.h"
#include "../../sim/base/mem.h"

#define NIL UINT32_MAX
#define PINNED (UINT32_MAX - 1) /* prev of a pinned object; ids stay below 2^31 */

typedef struct link {
    uint32_t prev, next;
} link;

typedef struct lru {
    link *ln;              /* [cap] */
    uint32_t cap;
    uint32_t head, tail;   /* most / least recently used */
    uint64_t count;        /* objects held, pinned included */
} lru;

static int lru_create(const rs_config *cfg, void **r_state, rs_err *err)
{
    (void)cfg;
    lru *l = calloc(1, sizeof *l);
    if (!l)
        return rs_fail(err, RS_ENOMEM, "out of memory for an lru");
    l->head = l->tail = NIL;
    *r_state = l;
    return 0;
}

static void lru_destroy(void *state)
{
    lru *l = state;
    rs_mem_free(l->ln);
    free(l);
}

static int reserve(lru *l, rs_oid id, rs_err *err)
{
    if (id < l->cap)
        return 0;
    uint32_t cap = l->cap ? l->cap : 1024;
    while (cap <= id)
        cap *= 2;
    link *p = rs_mem_realloc(l->ln, (size_t)cap * sizeof *p);
    if (!p)
        return rs_fail(err, RS_ENOMEM, "out of memory for an lru of %u", cap);
    l->ln = p;
    l->cap = cap;
    return 0;
}

static int is_pinned(const lru *l, rs_oid id)
{
    return l->ln[id].prev == PINNED;
}

static void link_head(lru *l, rs_oid id)
{
    l->ln[id].prev = NIL;
    l->ln[id].next = l->head;
    if (l->head != NIL)
        l->ln[l->head].prev = id;
    else
        l->tail = id;
    l->head = id;
}

static void unlink_(lru *l, rs_oid id)
{
    uint32_t p = l->ln[id].prev, n = l->ln[id].next;
    if (p != NIL)
        l->ln[p].next = n;
    else
        l->head = n;
    if (n != NIL)
        l->ln[n].prev = p;
    else
        l->tail = p;
}

static int lru_insert(void *state, rs_oid id, uint64_t bytes, rs_err *err)
{
    lru *l = state;
    int rc;
    (void)bytes;
    if ((rc = reserve(l, id, err)))
        return rc;
    link_head(l, id);
    l->count++;
    return 0;
}

static void lru_touch(void *state, rs_oid id)
{
    lru *l = state;
    if (is_pinned(l, id) || l->head == id)
        return;
    unlink_(l, id);
    link_head(l, id);
}

static void lru_remove(void *state, rs_oid id)
{
    lru *l = state;
    if (!is_pinned(l, id))
        unlink_(l, id);
    l->count--;
}

static void lru_pin(void *state, rs_oid id)
{
    lru *l = state;
    if (is_pinned(l, id))
        return;
    unlink_(l, id);
    l->ln[id].prev = PINNED;
}

static void lru_unpin(void *state, rs_oid id)
{
    lru *l = state;
    if (!is_pinned(l, id))
        return;
    link_head(l, id);
}

static void lru_prefetch(const void *state, rs_oid id, int stage)
{
    const lru *l = state;
    if (id >= l->cap)
        return;
    if (stage == 0) {
        __builtin_prefetch(&l->ln[id]);
        return;
    }
    link ln = l->ln[id]; /* NIL and PINNED are past cap */
    if (ln.prev < l->cap)
        __builtin_prefetch(&l->ln[ln.prev], 1);
    if (ln.next < l->cap)
        __builtin_prefetch(&l->ln[ln.next], 1);
}

static rs_oid lru_next_victim(const void *state, rs_oid id)
{
    const lru *l = state;
    return l->ln[id].prev;
}

static rs_oid lru_victim(void *state)
{
    const lru *l = state;
    return l->tail;
}

static uint64_t lru_count(const void *state)
{
    const lru *l = state;
    return l->count;
}

const rs_cache_ops rs_cache_lru = {
    .name = "lru",
    .doc = "least recently used, bounded by accounted bytes through trims; pinned objects skipped",
    .params = NULL,
    .create = lru_create,
    .destroy = lru_destroy,
    .insert = lru_insert,
    .touch = lru_touch,
    .remove = lru_remove,
    .pin = lru_pin,
    .unpin = lru_unpin,
    .victim = lru_victim,
    .prefetch = lru_prefetch,
    .next_victim = lru_next_victim,
    .count = lru_count,
};

static void fifo_touch(void *state, rs_oid id)
{
    (void)state;
    (void)id;
}

const rs_cache_ops rs_cache_fifo = {
    .name = "fifo",
    .doc = "first in first out: a hit moves nothing, the oldest insert goes first; pinned objects skipped",
    .params = NULL,
    .create = lru_create,
    .destroy = lru_destroy,
    .insert = lru_insert,
    .touch = fifo_touch,
    .remove = lru_remove,
    .pin = lru_pin,
    .unpin = lru_unpin,
    .victim = lru_victim,
    .prefetch = lru_prefetch,
    .next_victim = lru_next_victim,
    .count = lru_count,
};
