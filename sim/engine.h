/*
 * engine.h — the virtual clock and the run loop.
 *
 * The engine merges a time-ordered record stream (an rs_rec_source: the
 * caller decides where records come from, and runs any reader thread; the
 * engine starts none) with the event calendar (timers: trim, sample, release...).
 * Records are never pushed into the heap: the loop compares the next record's
 * time with the heap head and takes the earlier, timers first on a tie (a
 * trim due at t happens before the operation at t).  Records are decoded
 * a batch at a time, up to 4 × RS_ENGINE_LOOKAHEAD ahead (the source's
 * next_many), and handed to the prefetch hook RS_ENGINE_LOOKAHEAD ahead so
 * the handler can prefetch what they will touch (a replay is memory-latency
 * bound); a read error ahead surfaces when the loop reaches it, so every
 * record before a bad one is still handled.
 * After the stream ends
 * the timers keep firing until end = last record time + tail_ns.
 * Virtual time only: nothing here reads a clock.
 */
#ifndef RS_ENGINE_H
#define RS_ENGINE_H

#include <stdint.h>

#include "../traces/source.h"
#include "base/err.h"
#include "evq.h"

typedef struct rs_engine {
    rs_evq q;
    uint64_t now_ns;    /* time of the event or record being handled */
    uint64_t events;    /* trace records handled */
    uint64_t first_rec_ns, last_rec_ns; /* the times the first and the last of them ran at */
    uint64_t timer_events; /* timer callbacks fired */
    uint64_t pending;   /* one-shot events (rs_engine_at) not yet fired */
    int held;           /* the record handler holds the stream (rs_engine_hold) */
    int stopped;        /* a callback failed: the loop stops */
    rs_err error;       /* why, when stopped */
    /* The latest virtual time a run may reach (0: no bound): a record past
     * it, or an end (last record + tail) past it, is refused with RS_EINPUT
     * before any timer fires up to it, so neither the samples nor any
     * periodic timer can run away with a far time (sim/run.c sets it from
     * the sample limit). */
    uint64_t horizon_ns;
    const char *horizon_why; /* what sets the horizon, for the message */
    uint64_t periodic_events; /* periodic timer callbacks fired (bounded, below) */
    /* Prefetch stages the record handler takes (rs_prefetch_fn): 3 after
     * rs_engine_init; a daemon whose records chain more misses may ask for
     * up to RS_ENGINE_PREFETCH_STAGES. */
    int prefetch_stages;
} rs_engine;

/* The most periodic timer callbacks one run may fire (a trim every
 * trim_interval, the allocator's clock ...): 2·10^8, months of virtual time
 * at the presets' periods, a few seconds of CPU.  Past it the run stops
 * with RS_EINPUT, so a short period over a long span (or a trace far from
 * t 0) cannot spin for hours before the first record. */
#define RS_ENGINE_MAX_PERIODIC_EVENTS 200000000ull

/* What a prefetch hook worked out about one buffered record (a hash, the id
 * it found), kept for its later stages and for the handler, so that neither
 * works it out again.  The engine keeps one per buffered record, all zero
 * when the record is read; its meaning is the hook's. */
typedef struct rs_memo {
    uint64_t word[2];
} rs_memo;

/* A record handler: apply rec at rec->t_ns.  memo is what the prefetch hook
 * left for this record (all zero without a hook); NULL when the caller is
 * not the engine.  Non-zero stops the run. */
typedef int (*rs_rec_fn)(void *ctx, const rs_rec *rec, const rs_memo *memo, rs_err *err);
/* Optional hint: rec will be handled soon.  stage 0 is called
 * RS_ENGINE_LOOKAHEAD records ahead, stage 1 half as far, stage 2 a quarter
 * as far, and, when eng->prefetch_stages asks for them, stage 3 an eighth
 * and stage 4 a sixteenth as far (the next record); each stage may read
 * what the previous one fetched; a handler may
 * prefetch the memory it will touch (a hint only: state may change first)
 * and note in memo what it worked out. */
typedef void (*rs_prefetch_fn)(void *ctx, const rs_rec *rec, rs_memo *memo, int stage);

#define RS_ENGINE_LOOKAHEAD 16
#define RS_ENGINE_PREFETCH_STAGES 5

void rs_engine_init(rs_engine *eng);
void rs_engine_release(rs_engine *eng);

/* Schedule fn(ctx, t) once at t_ns (a time before now means now).  A
 * one-shot event is work a model scheduled (an op completing, a client
 * releasing caps): after the last record the run goes on until every
 * one-shot event has fired, so a model must not re-schedule forever. */
int rs_engine_at(rs_engine *eng, uint64_t t_ns, rs_event_fn fn, void *ctx, rs_err *err);
/* The same, inline: for a model that schedules an event or two for every
 * record (the OSD's service), one call (the calendar's push) instead of two.
 * Elsewhere the call is shorter code (inlined into the MDS it cost more
 * instructions than it saved). */
static inline int rs_engine_at_inline(rs_engine *eng, uint64_t t_ns, rs_event_fn fn, void *ctx,
                                      rs_err *err)
{
    int rc = rs_evq_push(&eng->q, t_ns < eng->now_ns ? eng->now_ns : t_ns, 0, fn, ctx, err);
    if (!rc)
        eng->pending++;
    return rc;
}
/* Schedule fn every period_ns (> 0), first at first_ns. */
int rs_engine_every(rs_engine *eng, uint64_t first_ns, uint64_t period_ns,
                    rs_event_fn fn, void *ctx, rs_err *err);
/* The same for an observer (the sampler): at equal times it fires before
 * every other timer and every record. */
int rs_engine_observe_every(rs_engine *eng, uint64_t first_ns, uint64_t period_ns,
                            rs_event_fn fn, void *ctx, rs_err *err);

/* Back-pressure for closed-loop clients: after rs_engine_hold the loop
 * hands out no more records, only events, until some event calls
 * rs_engine_release_hold; the next record then runs at max(its time, now)
 * (its t_ns is raised to now).  Holding with no one-shot event pending
 * would wait forever: the run fails instead. */
void rs_engine_hold(rs_engine *eng);
void rs_engine_release_hold(rs_engine *eng);
/* Stop the run with an error; for timer callbacks, which return nothing. */
void rs_engine_abort(rs_engine *eng, const rs_err *why);

/* Run src to its end, dispatching records to on_rec, then fire events until
 * no one-shot event is pending, then timers up to that time (the last
 * record's when nothing was pending) + tail_ns (+ 1 ns when tail_ns is 0).
 * *r_end_ns gets that end time. */
int rs_engine_run(rs_engine *eng, const rs_rec_source *src, rs_rec_fn on_rec,
                  rs_prefetch_fn prefetch, void *ctx, uint64_t tail_ns, uint64_t *r_end_ns,
                  rs_err *err);

#endif
