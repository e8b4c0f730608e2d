/*
 * evq.h — the event calendar: a 4-ary min-heap of timed callbacks.
 *
 * Events are ordered by (t_ns, prio, seq): prio puts observers first (a
 * sample at t sees the state before anything else at t, as the ground-truth
 * replayer samples), and seq, a per-queue counter assigned at push, makes
 * events of equal time and priority fire in the order they were scheduled,
 * so a run is deterministic.  Periodic events re-arm themselves at t + period
 * when they fire (rs_evq_pop hands the caller a copy and re-pushes).
 * Push and pop are O(log4 n); the heap stores events by value.
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

typedef struct rs_evq {
    rs_event *heap;
    size_t n, cap;
    uint64_t next_seq;
} rs_evq;

void rs_evq_init(rs_evq *q);
void rs_evq_release(rs_evq *q);
int rs_evq_push(rs_evq *q, uint64_t t_ns, uint64_t period_ns, rs_event_fn fn, void *ctx, rs_err *err);
/* The same with a priority (RS_PRIO_*; lower fires first at equal t). */
int rs_evq_push_prio(rs_evq *q, uint64_t t_ns, uint64_t period_ns, unsigned prio, rs_event_fn fn,
                     void *ctx, rs_err *err);
/* Time of the earliest event; UINT64_MAX when empty. */
static inline uint64_t rs_evq_next_ns(const rs_evq *q)
{
    return q->n ? q->heap[0].t_ns : UINT64_MAX;
}
/* Remove the earliest event into *r_ev; a periodic one is re-pushed with a
 * new seq.  Returns 0, or RS_ENOMEM if re-arming failed, or RS_ENOTFOUND
 * when the queue is empty. */
int rs_evq_pop(rs_evq *q, rs_event *r_ev, rs_err *err);

#endif
