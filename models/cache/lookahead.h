/*
 * lookahead.h — prefetching the victims a trim will evict next.
 *
 * A trim pass evicts thousands of objects scattered through memory, one
 * after another; each eviction touches the object's record, the daemon's
 * records for it and the allocator's metadata for its allocations.  Looking
 * RS_LOOKAHEAD victims ahead (when the policy can say which come next) lets
 * those misses overlap: the far victim gets stage 0 (its own records), the
 * one two victims nearer stage 1 (what they point to), and so on to stage 3
 * for the one after the current victim, each stage reading what the one
 * before fetched.  The list is a hint: a victim that turns out different
 * restarts it.
 */
#ifndef RS_LOOKAHEAD_H
#define RS_LOOKAHEAD_H

#include <string.h>

#include "cache.h"

#define RS_LOOKAHEAD 8

typedef struct rs_lookahead {
    rs_oid id[RS_LOOKAHEAD]; /* the victims after the current one, in order */
    unsigned n;
} rs_lookahead;

/* The victim that would follow id once id is gone, or RS_OID_NONE. */
typedef rs_oid (*rs_next_victim_fn)(const void *ctx, rs_oid id);
/* Fetch what evicting id will touch, in stages 0 to 3 (see above). */
typedef void (*rs_victim_fetch_fn)(const void *ctx, rs_oid id, int stage);

/* victim is about to be evicted: advance the list past it, refill it with
 * next(), and issue each stage at its distance. */
static inline void rs_lookahead_step(rs_lookahead *la, rs_oid victim, rs_next_victim_fn next,
                                     const void *next_ctx, rs_victim_fetch_fn fetch,
                                     const void *fetch_ctx)
{
    if (la->n && la->id[0] == victim)
        memmove(la->id, la->id + 1, --la->n * sizeof la->id[0]);
    else
        la->n = 0;
    while (la->n < RS_LOOKAHEAD) {
        rs_oid id = next(next_ctx, la->n ? la->id[la->n - 1] : victim);
        if (id == RS_OID_NONE)
            break;
        la->id[la->n++] = id;
        fetch(fetch_ctx, id, 0);
    }
    for (int stage = 1; stage <= 3; stage++) { /* stage s at index 7 - 2s: 5, 3, 1 */
        unsigned i = RS_LOOKAHEAD - 1 - 2 * (unsigned)stage;
        if (la->n > i)
            fetch(fetch_ctx, la->id[i], stage);
    }
}

#endif
