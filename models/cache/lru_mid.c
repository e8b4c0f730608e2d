/*
 * lru_mid.c — Ceph lru.h semantics (see lru_mid.h), and the cache policy
 * "lru-mid" built on it for daemons that use the generic cache interface
 * (midpoint from mds_cache_mid).  The MDS daemon calls the rs_lru_mid_*
 * functions directly, since it needs two instances with different midpoints.
 */
#include "lru_mid.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../../sim/base/mem.h"

#define NIL UINT32_MAX
#define PINNED 4u

void rs_lru_mid_init(rs_lru_mid *l, double midpoint)
{
    memset(l, 0, sizeof *l);
    for (int i = 0; i < 4; i++)
        l->list[i].head = l->list[i].tail = NIL;
    l->midpoint = fmin(1.0, fmax(0.0, midpoint));
}

void rs_lru_mid_release(rs_lru_mid *l)
{
    rs_mem_free(l->n);
    memset(l, 0, sizeof *l);
}

/* Room for id: the nodes grow (out of line: seldom). */
__attribute__((noinline)) static int reserve_grow(rs_lru_mid *l, rs_oid id, rs_err *err)
{
    uint32_t cap = l->cap ? l->cap : 1024;
    while (cap <= id)
        cap *= 2;
    /* the new nodes are zero (not on a list, unpinned) as rs_mem_realloc
     * gives them: not cleared here, so a node's page is touched only once an
     * object of its id is (sim/base/mem.h) */
    rs_lru_mid_node *n = rs_mem_realloc(l->n, (size_t)cap * sizeof *n);
    if (!n)
        return rs_fail(err, RS_ENOMEM, "out of memory for an lru of %u items", cap);
    l->n = n;
    l->cap = cap;
    return 0;
}

static inline int reserve(rs_lru_mid *l, rs_oid id, rs_err *err)
{
    return id < l->cap ? 0 : reserve_grow(l, id, err);
}

static void unlink_(rs_lru_mid *l, rs_oid id)
{
    rs_lru_mid_list *li = &l->list[l->n[id].where & 3];
    uint32_t p = l->n[id].prev, n = l->n[id].next;
    if (p != NIL)
        l->n[p].next = n;
    else
        li->head = n;
    if (n != NIL)
        l->n[n].prev = p;
    else
        li->tail = p;
    li->size--;
    l->n[id].where &= PINNED;
}

static void push_front(rs_lru_mid *l, int which, rs_oid id)
{
    rs_lru_mid_list *li = &l->list[which];
    l->n[id].prev = NIL;
    l->n[id].next = li->head;
    if (li->head != NIL)
        l->n[li->head].prev = id;
    else
        li->tail = id;
    li->head = id;
    li->size++;
    l->n[id].where = (uint8_t)((l->n[id].where & PINNED) | (unsigned)which);
}

static void push_back(rs_lru_mid *l, int which, rs_oid id)
{
    rs_lru_mid_list *li = &l->list[which];
    l->n[id].next = NIL;
    l->n[id].prev = li->tail;
    if (li->tail != NIL)
        l->n[li->tail].next = id;
    else
        li->head = id;
    li->tail = id;
    li->size++;
    l->n[id].where = (uint8_t)((l->n[id].where & PINNED) | (unsigned)which);
}

/* xlist::push_front/back of an item already on a list moves it. */
static void move_front(rs_lru_mid *l, int which, rs_oid id)
{
    unlink_(l, id);
    push_front(l, which, id);
}

static void move_back(rs_lru_mid *l, int which, rs_oid id)
{
    unlink_(l, id);
    push_back(l, which, id);
}

/* The moves of adjust() from |top| = toplen to topwant. */
__attribute__((noinline)) static void adjust_move(rs_lru_mid *l, uint64_t toplen, uint64_t topwant)
{
    for (uint64_t i = toplen; i < topwant && l->list[RS_LRU_BOTTOM].head != NIL; i++)
        move_back(l, RS_LRU_TOP, l->list[RS_LRU_BOTTOM].head);
    for (uint64_t i = toplen; i > topwant && l->list[RS_LRU_TOP].tail != NIL; i--)
        move_front(l, RS_LRU_BOTTOM, l->list[RS_LRU_TOP].tail);
}

/* lru.h adjust(): keep |top| = floor(midpoint * (size - pinned)).  Mostly
 * it is so already (an MDS's new dentries are pinned by their caps), so
 * that test is inline and the moves out of line. */
static inline void adjust(rs_lru_mid *l)
{
    uint64_t toplen = l->list[RS_LRU_TOP].size;
    uint64_t topwant = (uint64_t)(l->midpoint * (double)(rs_lru_mid_size(l) - l->num_pinned));
    if (toplen != topwant)
        adjust_move(l, toplen, topwant);
}

static inline int insert(rs_lru_mid *l, int which, rs_oid id, int pinned, rs_err *err)
{
    int rc = reserve(l, id, err);
    if (rc)
        return rc;
    l->n[id].where = pinned ? PINNED : 0;
    if (pinned)
        l->num_pinned++;
    push_front(l, which, id);
    adjust(l);
    return 0;
}

int rs_lru_mid_insert_mid(rs_lru_mid *l, rs_oid id, int pinned, rs_err *err)
{
    return insert(l, RS_LRU_BOTTOM, id, pinned, err);
}

int rs_lru_mid_insert_top(rs_lru_mid *l, rs_oid id, int pinned, rs_err *err)
{
    return insert(l, RS_LRU_TOP, id, pinned, err);
}

void rs_lru_mid_touch(rs_lru_mid *l, rs_oid id)
{
    move_front(l, RS_LRU_TOP, id);
    adjust(l);
}

void rs_lru_mid_remove(rs_lru_mid *l, rs_oid id)
{
    if (!rs_lru_mid_holds(l, id))
        return;
    if (l->n[id].where & PINNED)
        l->num_pinned--;
    unlink_(l, id);
    l->n[id].where = 0;
    adjust(l);
}

void rs_lru_mid_pin(rs_lru_mid *l, rs_oid id)
{
    if (l->n[id].where & PINNED)
        return;
    l->n[id].where |= PINNED;
    l->num_pinned++;
}

void rs_lru_mid_unpin(rs_lru_mid *l, rs_oid id)
{
    if (!(l->n[id].where & PINNED))
        return;
    l->n[id].where &= (uint8_t)~PINNED;
    l->num_pinned--;
    if ((l->n[id].where & 3) == RS_LRU_PINTAIL) {
        move_back(l, RS_LRU_BOTTOM, id); /* lru_bottouch */
        adjust(l);
    }
}

rs_oid rs_lru_mid_next_expire(rs_lru_mid *l)
{
    adjust(l);
    for (int which = RS_LRU_BOTTOM; which >= RS_LRU_TOP; which--) {
        while (l->list[which].tail != NIL) {
            rs_oid id = l->list[which].tail;
            if (!(l->n[id].where & PINNED))
                return id;
            move_front(l, RS_LRU_PINTAIL, id);
        }
    }
    return RS_OID_NONE;
}

rs_oid rs_lru_mid_peek_after(const rs_lru_mid *l, rs_oid id)
{
    unsigned which = l->n[id].where & 3;
    if (which != RS_LRU_TOP && which != RS_LRU_BOTTOM)
        return RS_OID_NONE;
    /* a hint: give up after a run of pinned items rather than walk it */
    unsigned steps = 0;
    for (uint32_t x = l->n[id].prev; steps < 32; x = l->n[x].prev, steps++) {
        if (x == NIL) {
            if (which == RS_LRU_TOP)
                return RS_OID_NONE;
            which = RS_LRU_TOP;
            x = l->list[RS_LRU_TOP].tail;
            if (x == NIL)
                return RS_OID_NONE;
        }
        if (!(l->n[x].where & PINNED))
            return x;
    }
    return RS_OID_NONE;
}

/* ---- the registered cache policy ---- */

static const rs_param params[] = {
    { .key = "mds_cache_mid", .type = RS_PT_DOUBLE, .def = "0.7",
      .doc = "LRU midpoint: the fraction of unpinned items kept in the top list; new items "
             "enter below it (Ceph mds_cache_mid, v15 default 0.7)" },
    { .key = NULL },
};

static int create(const rs_config *cfg, void **r_state, rs_err *err)
{
    rs_lru_mid *l = malloc(sizeof *l);
    if (!l)
        return rs_fail(err, RS_ENOMEM, "out of memory for cache policy lru-mid");
    rs_lru_mid_init(l, rs_config_double(cfg, "mds_cache_mid"));
    *r_state = l;
    return 0;
}

static void destroy(void *state)
{
    rs_lru_mid_release(state);
    free(state);
}

static int op_insert(void *state, rs_oid id, uint64_t bytes, rs_err *err)
{
    (void)bytes;
    return rs_lru_mid_insert_mid(state, id, 0, err);
}

static void op_touch(void *state, rs_oid id)
{
    rs_lru_mid_touch(state, id);
}

static void op_remove(void *state, rs_oid id)
{
    rs_lru_mid_remove(state, id);
}

static void op_pin(void *state, rs_oid id)
{
    rs_lru_mid_pin(state, id);
}

static void op_unpin(void *state, rs_oid id)
{
    rs_lru_mid_unpin(state, id);
}

static rs_oid op_victim(void *state)
{
    return rs_lru_mid_next_expire(state);
}

static uint64_t op_count(const void *state)
{
    return rs_lru_mid_size(state);
}

const rs_cache_ops rs_cache_lru_mid = {
    .name = "lru-mid",
    .doc = "Ceph lru.h: top/bottom/pintail, insert at the midpoint (mds_cache_mid), touch to top, "
           "pinned items moved to pintail when met",
    .params = params,
    .create = create,
    .destroy = destroy,
    .insert = op_insert,
    .touch = op_touch,
    .remove = op_remove,
    .pin = op_pin,
    .unpin = op_unpin,
    .victim = op_victim,
    .count = op_count,
};
