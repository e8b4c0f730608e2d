/* evq.c — 4-ary heap keyed by (t_ns, seq); see evq.h. */
#include "evq.h"
#include "base/vec.h"

#include <stdlib.h>
#include <string.h>

void rs_evq_init(rs_evq *q)
{
    memset(q, 0, sizeof *q);
}

void rs_evq_release(rs_evq *q)
{
    free(q->heap);
    rs_evq_init(q);
}

/* (t_ns, seq) as one 128-bit key where the compiler has the type: one
 * compare, no branch.  seq is unique, so the order is total and any heap
 * pops the same sequence. */
#ifdef __SIZEOF_INT128__
typedef unsigned __int128 evkey;
static inline evkey key_of(const rs_event *e)
{
    return (evkey)e->t_ns << 64 | e->seq;
}
static inline int key_lt(evkey a, evkey b)
{
    return a < b;
}
#else
typedef struct evkey {
    uint64_t t_ns, seq;
} evkey;
static inline evkey key_of(const rs_event *e)
{
    return (evkey){ e->t_ns, e->seq };
}
static inline int key_lt(evkey a, evkey b)
{
    return a.t_ns < b.t_ns || (a.t_ns == b.t_ns && a.seq < b.seq);
}
#endif

static int before(const rs_event *a, const rs_event *b)
{
    return key_lt(key_of(a), key_of(b));
}

/* ev into the hole at i, moving it up: the caller passes the event itself
 * (writing it into the slot first and reading it back here made the read
 * wait for the writes: wider than any one of them, it cannot be forwarded). */
static void sift_up(rs_evq *q, size_t i, rs_event ev)
{
    while (i > 0) {
        size_t parent = (i - 1) / 4;
        if (!before(&ev, &q->heap[parent]))
            break;
        q->heap[i] = q->heap[parent];
        i = parent;
    }
    q->heap[i] = ev;
}

/* ev into the hole at i, moving it down.  The smallest child is chosen by
 * conditional moves (which child wins is data-dependent and mispredicts as
 * a branch). */
static void sift_down(rs_evq *q, size_t i, rs_event ev)
{
    const evkey k = key_of(&ev);
    for (;;) {
        size_t first = 4 * i + 1;
        if (first >= q->n)
            break;
        size_t last = first + 4 < q->n ? first + 4 : q->n, best = first;
        evkey bk = key_of(&q->heap[first]);
        for (size_t c = first + 1; c < last; c++) {
            evkey ck = key_of(&q->heap[c]);
            int lt = key_lt(ck, bk);
            best = lt ? c : best;
            bk = lt ? ck : bk;
        }
        if (!key_lt(bk, k))
            break;
        q->heap[i] = q->heap[best];
        i = best;
    }
    q->heap[i] = ev;
}

#define SEQ_BITS 56
#define SEQ_MASK ((UINT64_C(1) << SEQ_BITS) - 1)

int rs_evq_push(rs_evq *q, uint64_t t_ns, uint64_t period_ns, rs_event_fn fn, void *ctx, rs_err *err)
{
    return rs_evq_push_prio(q, t_ns, period_ns, RS_PRIO_NORMAL, fn, ctx, err);
}

int rs_evq_push_prio(rs_evq *q, uint64_t t_ns, uint64_t period_ns, unsigned prio, rs_event_fn fn,
                     void *ctx, rs_err *err)
{
    if (RS_VEC_RESERVE(q->heap, q->cap, q->n + 1, 16))
        return rs_fail(err, RS_ENOMEM, "out of memory for %zu events", q->n + 1);
    rs_event ev = {
        .t_ns = t_ns, .seq = ((uint64_t)prio << SEQ_BITS) | (q->next_seq++ & SEQ_MASK),
        .period_ns = period_ns, .fn = fn, .ctx = ctx,
    };
    sift_up(q, q->n++, ev);
    return 0;
}

int rs_evq_pop(rs_evq *q, rs_event *r_ev, rs_err *err)
{
    if (!q->n)
        return RS_ENOTFOUND;
    *r_ev = q->heap[0];
    if (r_ev->period_ns) {
        /* Re-arm: the same event, later time, fresh seq, from the root. */
        rs_event ev = *r_ev;
        ev.t_ns += ev.period_ns;
        ev.seq = (ev.seq & ~SEQ_MASK) | (q->next_seq++ & SEQ_MASK);
        sift_down(q, 0, ev);
        return 0;
    }
    if (--q->n)
        sift_down(q, 0, q->heap[q->n]);
    (void)err;
    return 0;
}
