/*
 * lru_mid.h — Ceph's lru.h (the MDS dentry LRU) over dense object ids.
 *
 * Three lists, as in Ceph's src/include/lru.h (ceph/ceph master, same
 * structure since v12): top, bottom and pintail.  New items go in at the
 * midpoint (head of bottom), a touch moves an item to the head of top, and
 * after every change adjust() moves the boundary so that
 * |top| = floor(midpoint * (size - pinned)).  Expiry looks at the tail of
 * bottom, then the tail of top; pinned items it meets are moved to the head
 * of pintail and skipped.  Unpinning an item that sits in pintail moves it to
 * the tail of bottom (lru_bottouch), so it is the next to go.
 *
 * The MDS uses two of these: `lru` (midpoint mds_cache_mid, 0.7) and
 * `bottom_lru` (midpoint 0) for null and stray dentries.  Links are u32
 * indices in one array of nodes indexed by oid: 12 bytes per object id.
 */
#ifndef RS_LRU_MID_H
#define RS_LRU_MID_H

#include <stdint.h>

#include "../../sim/base/err.h"
#include "cache.h"

enum { RS_LRU_NONE = 0, RS_LRU_TOP = 1, RS_LRU_BOTTOM = 2, RS_LRU_PINTAIL = 3 };

typedef struct rs_lru_mid_list {
    uint32_t head, tail;
    uint64_t size;
} rs_lru_mid_list;

/* One item's links and list, together: a touch or a removal reads and
 * writes them at once (one cache line, not three). */
typedef struct rs_lru_mid_node {
    uint32_t prev, next;
    uint8_t where;         /* list (RS_LRU_*) | 4 when pinned */
} rs_lru_mid_node;

typedef struct rs_lru_mid {
    rs_lru_mid_node *n;    /* [cap] */
    uint32_t cap;
    rs_lru_mid_list list[4]; /* [1..3] used */
    uint64_t num_pinned;     /* pinned items held (any list) */
    double midpoint;         /* clamped to [0, 1] */
} rs_lru_mid;

void rs_lru_mid_init(rs_lru_mid *l, double midpoint);
void rs_lru_mid_release(rs_lru_mid *l);

/* lru_insert_mid: a new item (pinned or not) at the head of bottom. */
int rs_lru_mid_insert_mid(rs_lru_mid *l, rs_oid id, int pinned, rs_err *err);
/* lru_insert_top: a new item at the head of top. */
int rs_lru_mid_insert_top(rs_lru_mid *l, rs_oid id, int pinned, rs_err *err);
/* lru_touch: move a held item to the head of top. */
void rs_lru_mid_touch(rs_lru_mid *l, rs_oid id);
void rs_lru_mid_remove(rs_lru_mid *l, rs_oid id);
void rs_lru_mid_pin(rs_lru_mid *l, rs_oid id);
void rs_lru_mid_unpin(rs_lru_mid *l, rs_oid id);
/* The item rs_lru_mid_next_expire would give after id (a held, unpinned
 * item of top or bottom) is removed, were the lists not rebalanced first:
 * a prefetch hint for trims (models/cache/lookahead.h), or RS_OID_NONE
 * (also after 32 pinned items in a row). */
rs_oid rs_lru_mid_peek_after(const rs_lru_mid *l, rs_oid id);
/* lru_get_next_expire: the next unpinned item (not removed), moving the
 * pinned items met on the way to pintail; RS_OID_NONE if none. */
rs_oid rs_lru_mid_next_expire(rs_lru_mid *l);

static inline int rs_lru_mid_holds(const rs_lru_mid *l, rs_oid id)
{
    return id < l->cap && (l->n[id].where & 3) != RS_LRU_NONE;
}

static inline int rs_lru_mid_is_pinned(const rs_lru_mid *l, rs_oid id)
{
    return id < l->cap && (l->n[id].where & 4);
}

static inline uint64_t rs_lru_mid_size(const rs_lru_mid *l)
{
    return l->list[RS_LRU_TOP].size + l->list[RS_LRU_BOTTOM].size + l->list[RS_LRU_PINTAIL].size;
}

#endif
