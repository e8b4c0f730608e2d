/*
 * evq.h — the event calendar: a 4-ary min-heap of timed callbacks, beside
 * a few FIFO runs of one-shot events that arrive in order.
 *
 * Events are ordered by (t_ns, prio, seq): prio puts observers first (a
 * sample at t sees the state before anything else at t, as the ground-truth
 * replayer samples), and seq, a per-queue counter assigned at push, makes
 * events of equal time and priority fire in the order they were scheduled,
 * so a run is deterministic.  Periodic events re-arm themselves at t + period
 * when they fire (rs_evq_pop hands the caller a copy and re-pushes).
 *
 * A model's one-shot events mostly come as a few interleaved streams, each
 * in time order (a FIFO device's completions, a release a fixed delay after
 * now, a CPU phase of one length), whatever callbacks they use: up to
 * RS_EVQ_RUNS runs, rings each sorted by construction, take them.  A
 * one-shot event is appended to the run whose last event is the latest one
 * before it (patience sorting's best fit: any interleaving of k ordered
 * streams takes at most k runs), else, when it sorts before every run's
 * last, to an empty run; failing both, or when periodic, it goes to the
 * heap.  Best fit keeps the runs' last events in the order of the runs'
 * list, latest first, so the search stops at the first run whose last
 * event is before the new one (an event after every last one: one
 * compare).  A pop takes the least of the heap's head and the runs'
 * heads, so the order is exactly the heap's alone (the keys are unique).
 * Push and pop are O(1) on a run, O(log4 n) on the heap; events are stored
 * by value.
 */
#ifndef RS_EVQ_H
#define RS_EVQ_H

#include <stddef.h>
#include <stdint.h>

#include "base/err.h"

typedef void (*rs_event_fn)(void *ctx, uint64_t now_ns);

enum { RS_PRIO_OBSERVE = 0, RS_PRIO_NORMAL = 1 };

typedef struct rs_event {
    uint64_t t_ns;      /* when it fires */
    uint64_t seq;       /* tie-breaker: (prio << 56) | order of scheduling */
    uint64_t period_ns; /* 0: one-shot; else re-armed at t_ns + period_ns */
    rs_event_fn fn;
    void *ctx;
} rs_event;

#define RS_EVQ_RUNS 4

/* One-shot events in (t_ns, seq) order. */
typedef struct rs_evq_run {
    uint64_t head_ns, head_seq; /* its earliest event's key; UINT64_MAX's when empty */
    rs_event *ring;   /* cap slots (a power of two), the oldest at head */
    size_t head, n, cap;
} rs_evq_run;

typedef struct rs_evq {
    rs_event *heap;   /* periodic events and one-shots out of their run's order */
    size_t n, cap;    /* the heap's */
    uint64_t next_seq;
    size_t count;     /* events in the heap and the runs */
    uint64_t next_ns, next_key; /* the earliest event's (t_ns, seq); UINT64_MAX's when empty */
    int next_run;     /* where it is: a run's index, or -1 for the heap's head */
    int nlive;        /* runs not empty: live[0, nlive), their last events in descending order */
    uint8_t live[RS_EVQ_RUNS];
    uint64_t live_tail_ns[RS_EVQ_RUNS], live_tail_seq[RS_EVQ_RUNS]; /* run live[i]'s last event's key */
    uint64_t heap_pushes; /* events that went to the heap (a periodic one's re-arming aside) */
    rs_evq_run runs[RS_EVQ_RUNS];
} rs_evq;

void rs_evq_init(rs_evq *q);
void rs_evq_release(rs_evq *q);
/* Schedule fn(ctx, t) at t_ns, then every period_ns (0: once), with a
 * priority (RS_PRIO_*; lower fires first at equal t).  0, or RS_ENOMEM with
 * nothing changed. */
int rs_evq_push_prio(rs_evq *q, uint64_t t_ns, uint64_t period_ns, unsigned prio, rs_event_fn fn,
                     void *ctx, rs_err *err);
/* The same at RS_PRIO_NORMAL. */
static inline int rs_evq_push(rs_evq *q, uint64_t t_ns, uint64_t period_ns, rs_event_fn fn,
                              void *ctx, rs_err *err)
{
    return rs_evq_push_prio(q, t_ns, period_ns, RS_PRIO_NORMAL, fn, ctx, err);
}
/* Time of the earliest event; UINT64_MAX when empty. */
static inline uint64_t rs_evq_next_ns(const rs_evq *q)
{
    return q->next_ns;
}
/* Events queued. */
static inline size_t rs_evq_count(const rs_evq *q)
{
    return q->count;
}
/* Remove the earliest event into *r_ev; a periodic one is re-pushed with a
 * new seq.  Returns 0, or RS_ENOTFOUND when the queue is empty. */
int rs_evq_pop(rs_evq *q, rs_event *r_ev, rs_err *err);

#endif
