/* evq.c — a 4-ary heap keyed by (t_ns, seq) beside FIFO runs; see evq.h. */
#include "evq.h"
#include "base/vec.h"

#include <stdlib.h>
#include <string.h>

void rs_evq_init(rs_evq *q)
{
    memset(q, 0, sizeof *q);
    q->next_ns = q->next_key = UINT64_MAX;
    q->next_run = -1;
    for (int r = 0; r < RS_EVQ_RUNS; r++)
        q->runs[r].head_ns = q->runs[r].head_seq = UINT64_MAX;
}

void rs_evq_release(rs_evq *q)
{
    free(q->heap);
    for (int r = 0; r < RS_EVQ_RUNS; r++)
        free(q->runs[r].ring);
    rs_evq_init(q);
}

/* (t_ns, seq) as one 128-bit key where the compiler has the type: one
 * compare, no branch.  seq is unique, so the order is total and any heap
 * pops the same sequence. */
#ifdef __SIZEOF_INT128__
typedef unsigned __int128 evkey;
static inline evkey key_make(uint64_t t_ns, uint64_t seq)
{
    return (evkey)t_ns << 64 | seq;
}
static inline int key_lt(evkey a, evkey b)
{
    return a < b;
}
static inline uint64_t key_t_ns(evkey k)
{
    return (uint64_t)(k >> 64);
}
static inline uint64_t key_seq(evkey k)
{
    return (uint64_t)k;
}
#else
typedef struct evkey {
    uint64_t t_ns, seq;
} evkey;
static inline evkey key_make(uint64_t t_ns, uint64_t seq)
{
    return (evkey){ t_ns, seq };
}
static inline int key_lt(evkey a, evkey b)
{
    return a.t_ns < b.t_ns || (a.t_ns == b.t_ns && a.seq < b.seq);
}
static inline uint64_t key_t_ns(evkey k)
{
    return k.t_ns;
}
static inline uint64_t key_seq(evkey k)
{
    return k.seq;
}
#endif

static inline evkey key_of(const rs_event *e)
{
    return key_make(e->t_ns, e->seq);
}

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

/* Note the earliest event: the least of the heap's head and every run's
 * (an empty run's head key is UINT64_MAX's; a loop of constant length is
 * shorter code than one over the non-empty runs).  Which source wins is
 * data-dependent, so it is chosen by conditional moves. */
static inline void find_next(rs_evq *q)
{
    evkey best = q->n ? key_of(&q->heap[0]) : key_make(UINT64_MAX, UINT64_MAX);
    uint64_t where = UINT64_MAX; /* the heap's head; -1 as an int (gcc, clang: modulo) */
    /* unrolled (gcc kept the loop): its counter and branch cost four
     * instructions a run on every pop */
#pragma GCC unroll 4
    for (int r = 0; r < RS_EVQ_RUNS; r++) {
        evkey k = key_make(q->runs[r].head_ns, q->runs[r].head_seq);
        int lt = key_lt(k, best);
        where = lt ? (uint64_t)r : where;
        best = lt ? k : best;
    }
    q->next_ns = key_t_ns(best);
    q->next_key = key_seq(best);
    q->next_run = (int)where;
}

/* Where a one-shot event keyed k joins a run at its end, or -1 (the heap
 * takes it): the first live run in the list whose last event sorts before
 * k (their last events descend along the list, so it is the latest such),
 * its place in the list; else an empty run, which then goes last in the
 * list (k sorts before every live run's last), -2 - its index. */
static inline int run_for(const rs_evq *q, evkey k)
{
    for (int i = 0; i < q->nlive; i++)
        if (key_lt(key_make(q->live_tail_ns[i], q->live_tail_seq[i]), k))
            return i;
    if (q->nlive == RS_EVQ_RUNS)
        return -1;
    int r = 0;
    while (q->runs[r].n)
        r++;
    return -2 - r;
}

/* Room for one more event in u, or -1 with nothing changed.  A full ring
 * doubles; its wrapped part (slots [0, head)) moves after the old end. */
static int run_grow(rs_evq_run *u)
{
    size_t cap = u->cap ? 2 * u->cap : 16;
    if (cap > SIZE_MAX / sizeof(rs_event))
        return -1;
    rs_event *ring = realloc(u->ring, cap * sizeof *ring);
    if (!ring)
        return -1;
    if (u->head)
        memcpy(ring + u->cap, ring, u->head * sizeof *ring);
    u->ring = ring;
    u->cap = cap;
    return 0;
}

/* ev (room made) at the end of run u. */
static inline void run_append(rs_evq_run *u, const rs_event *ev)
{
    u->ring[(u->head + u->n++) & (u->cap - 1)] = *ev;
    if (u->n == 1) {
        u->head_ns = ev->t_ns;
        u->head_seq = ev->seq;
    }
}

#define SEQ_BITS 56
#define SEQ_MASK ((UINT64_C(1) << SEQ_BITS) - 1)

/* ev, keyed k, joined the queue at where (a run, or -1: the heap): the
 * next push gets the next seq; is it the earliest now? */
static inline void note_pushed(rs_evq *q, const rs_event *ev, evkey k, int where)
{
    /* an empty queue's earliest key is UINT64_MAX's, after every event's
     * (an RS_PRIO_* priority keeps a seq below UINT64_MAX): no test of count */
    q->next_seq++;
    q->count++;
    if (key_lt(k, key_make(q->next_ns, q->next_key))) {
        q->next_ns = ev->t_ns;
        q->next_key = ev->seq;
        q->next_run = where;
    }
}

/* The index of the run of place `at` (run_for's answer, not -1). */
static inline int run_index(const rs_evq *q, int at)
{
    return at >= 0 ? q->live[at] : -2 - at;
}

/* ev was appended to the run of place `at`: its new last event; a new run
 * goes last in the live list. */
static inline void run_joined(rs_evq *q, int at, const rs_event *ev)
{
    if (at < 0) {
        q->live[q->nlive] = (uint8_t)(-2 - at);
        at = q->nlive++;
    }
    q->live_tail_ns[at] = ev->t_ns;
    q->live_tail_seq[at] = ev->seq;
}

/* The push that grows a run's ring or goes to the heap (at -1); out of
 * line, so the common push (to a run with room) saves no registers. */
static __attribute__((noinline)) int push_slow(rs_evq *q, const rs_event *ev, int at, rs_err *err)
{
    const int r = at == -1 ? -1 : run_index(q, at);
    if (r >= 0 && !run_grow(&q->runs[r])) {
        run_append(&q->runs[r], ev);
        run_joined(q, at, ev);
        note_pushed(q, ev, key_of(ev), r);
        return 0;
    }
    if (q->n == q->cap && RS_VEC_RESERVE(q->heap, q->cap, q->n + 1, 16))
        return rs_fail(err, RS_ENOMEM, "out of memory for %zu events", q->count + 1);
    q->heap_pushes++;
    sift_up(q, q->n++, *ev);
    note_pushed(q, ev, key_of(ev), -1);
    return 0;
}

int rs_evq_push_prio(rs_evq *q, uint64_t t_ns, uint64_t period_ns, unsigned prio, rs_event_fn fn,
                     void *ctx, rs_err *err)
{
    rs_event ev = {
        .t_ns = t_ns, .seq = ((uint64_t)prio << SEQ_BITS) | (q->next_seq & SEQ_MASK),
        .period_ns = period_ns, .fn = fn, .ctx = ctx,
    };
    const evkey k = key_of(&ev);
    int at = period_ns ? -1 : run_for(q, k);
    if (at == -1)
        return push_slow(q, &ev, at, err);
    /* the index kept, not found again from u (a division by the run's size) */
    const int r = run_index(q, at);
    rs_evq_run *u = &q->runs[r];
    if (u->n == u->cap)
        return push_slow(q, &ev, at, err);
    run_append(u, &ev);
    run_joined(q, at, &ev);
    note_pushed(q, &ev, k, r);
    return 0;
}

/* Run r is empty now: out of the live list. */
static __attribute__((noinline)) void run_emptied(rs_evq *q, int r)
{
    int i = 0;
    while (q->live[i] != r)
        i++;
    for (q->nlive--; i < q->nlive; i++) {
        q->live[i] = q->live[i + 1];
        q->live_tail_ns[i] = q->live_tail_ns[i + 1];
        q->live_tail_seq[i] = q->live_tail_seq[i + 1];
    }
}

/* A pop from the heap's head; out of line, so a pop from a run, the
 * common one, saves no registers. */
static __attribute__((noinline)) int pop_heap(rs_evq *q, rs_event *r_ev)
{
    *r_ev = q->heap[0];
    if (r_ev->period_ns) {
        /* Re-arm: the same event, later time, fresh seq, from the root. */
        rs_event ev = *r_ev;
        ev.t_ns += ev.period_ns;
        ev.seq = (ev.seq & ~SEQ_MASK) | (q->next_seq++ & SEQ_MASK);
        sift_down(q, 0, ev);
    } else {
        q->count--;
        if (--q->n)
            sift_down(q, 0, q->heap[q->n]);
    }
    find_next(q);
    return 0;
}

int rs_evq_pop(rs_evq *q, rs_event *r_ev, rs_err *err)
{
    (void)err;
    if (!q->count)
        return RS_ENOTFOUND;
    if (q->next_run < 0)
        return pop_heap(q, r_ev);
    rs_evq_run *u = &q->runs[q->next_run];
    *r_ev = u->ring[u->head];
    u->head = (u->head + 1) & (u->cap - 1);
    q->count--;
    if (--u->n) {
        u->head_ns = u->ring[u->head].t_ns;
        u->head_seq = u->ring[u->head].seq;
    } else {
        u->head_ns = u->head_seq = UINT64_MAX;
        run_emptied(q, q->next_run);
    }
    find_next(q);
    return 0;
}
